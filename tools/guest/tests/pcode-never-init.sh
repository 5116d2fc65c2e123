#!/bin/sh
# Probe must refuse this device with a clear message, leave nothing
# behind (no debugfs directory, no claimed BAR region) and unload cleanly.
# mock-args: --fault pcode-never-init
# params: pcode_init_timeout_ms=300
. /tests/lib.sh

probe_refused 0x56c0 "PCODE did not report init complete within 300 ms"
done_testing
