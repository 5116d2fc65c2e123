#!/bin/sh
# Probe must refuse this device with a clear message, leave nothing
# behind (no debugfs directory, no claimed BAR region) and unload cleanly.
# mock-args: --lmem-bar-mib 128
. /tests/lib.sh

probe_refused 0x56c0 "LMEMBAR (BAR 2) is 0x8000000 bytes, below the 0x10000000 minimum"
done_testing
