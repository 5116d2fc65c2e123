#!/bin/sh
# Probe must refuse this device with a clear message, leave nothing
# behind (no debugfs directory, no claimed BAR region) and unload cleanly.
# mock-args: --fault lmem-never-init
. /tests/lib.sh

probe_refused 0x56c0 "local memory not initialised (GU_CNTL 0x00000000, LMEM_INIT clear)"
done_testing
