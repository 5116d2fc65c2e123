#!/bin/sh
# Probe must refuse this device with a clear message, leave nothing
# behind (no debugfs directory, no claimed BAR region) and unload cleanly.
# mock-args: --vf
. /tests/lib.sh

probe_refused 0x56c0 "function is an SR-IOV VF (VF_CAP_REG bit 0); xehpg drives PFs only"
done_testing
