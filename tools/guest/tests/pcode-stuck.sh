#!/bin/sh
# Probe must refuse this device with a clear message, leave nothing
# behind (no debugfs directory, no claimed BAR region) and unload cleanly.
# mock-args: --fault pcode-stuck
. /tests/lib.sh

probe_refused 0x56c0 "PCODE mailbox did not complete command 0x7e within 10 ms"
done_testing
