#!/bin/sh
# Probe must refuse this device with a clear message, leave nothing
# behind (no debugfs directory, no claimed BAR region) and unload cleanly.
# mock-args: --fault all-ones
. /tests/lib.sh

probe_refused 0x56c0 "GU_CNTL reads 0xffffffff: the device does not respond"
done_testing
