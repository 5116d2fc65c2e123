#!/bin/sh
# PCODE answers the init-status command with error 0x3 (illegal data).
# Probe must refuse the device with the decoded error, leave nothing
# behind (no debugfs directory, no claimed BAR region) and unload cleanly.
# mock-args: --fault pcode-init-error
. /tests/lib.sh

probe_refused 0x56c0 "probe: PCODE init-status command failed with error 0x3 (illegal data)"
done_testing
