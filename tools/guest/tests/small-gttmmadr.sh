#!/bin/sh
# Probe must refuse this device with a clear message, leave nothing
# behind (no debugfs directory, no claimed BAR region) and unload cleanly.
# mock-args: --bar0-size-mib 8
. /tests/lib.sh

probe_refused 0x56c0 "GTTMMADR (BAR 0) is 0x800000 bytes, the PRM layout needs 0x1000000"
done_testing
