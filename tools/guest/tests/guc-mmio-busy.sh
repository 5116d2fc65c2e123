#!/bin/sh
# The GuC answers the first MMIO request with busy: the driver waits or
# resends and still reads the hwconfig table.
# mock-args: --fault guc-mmio-busy
# expect-mock: h2g_replies.busy >= 1
# expect-mock: h2g_replies.success >= 1
. /tests/lib.sh

guc_up
done_testing
