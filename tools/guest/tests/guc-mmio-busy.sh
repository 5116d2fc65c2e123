#!/bin/sh
# The GuC answers the first MMIO request with busy: the driver waits or
# resends and still reads the hwconfig table.
# mock-args: --fault guc-mmio-busy
. /tests/lib.sh

guc_up
done_testing
