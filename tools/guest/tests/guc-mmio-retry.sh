#!/bin/sh
# The GuC answers the first MMIO request after each boot with retry: the
# driver waits or resends and still reads the hwconfig table (first boot) and
# registers CT (second, full boot).
# mock-args: --fault guc-mmio-retry
# expect-mock: h2g_replies.retry == 2
# expect-mock: h2g_replies.success >= 1
. /tests/lib.sh

guc_up
done_testing
