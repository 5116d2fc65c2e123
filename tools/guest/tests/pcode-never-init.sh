#!/bin/sh
# PCODE answers but never reports init complete. Probe asks on upstream's
# schedule until its budget is spent (300 ms: 14 queries), then refuses the
# device with a clear message, leaves nothing behind (no debugfs directory, no
# claimed BAR region) and unloads cleanly.
# mock-args: --fault pcode-never-init
# params: pcode_init_timeout_ms=300
. /tests/lib.sh

probe_refused 0x56c0 "probe: PCODE did not report init complete within 300 ms: 14 queries (0 busy, 0 failed), last: init status not complete (0x0)"
mock_expect pcode_commands == 14
done_testing
