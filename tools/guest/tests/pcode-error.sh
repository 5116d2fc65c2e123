#!/bin/sh
# PCODE answers the init-status command with error 0x3 (illegal data) every
# time. Like upstream (xe_pcode.c xe_pcode_ready / pcode_try_request), probe
# keeps asking on an exponential schedule until its budget is spent (300 ms
# here: 14 queries), then refuses the device with the counts and the decoded
# last error, leaves nothing behind (no debugfs directory, no claimed BAR
# region) and unloads cleanly. The mock ran every one of those commands.
# mock-args: --fault pcode-init-error
# params: pcode_init_timeout_ms=300
. /tests/lib.sh

probe_refused 0x56c0 "probe: PCODE did not report init complete within 300 ms: 14 queries (0 busy, 14 failed), last: illegal data (0x3)"
mock_expect pcode_commands == 14
mock_expect pcode_busy_replies == 0
done_testing
