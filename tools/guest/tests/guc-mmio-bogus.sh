#!/bin/sh
# GuC fault: the GuC answers the hwconfig MMIO request with a GuC-origin
# EVENT header (0x90000001), which cannot answer a request. The device
# stays bound with the GuC down, the log names the reply and the action, a
# reload hits the same, and rmmod works.
# mock-args: --fault guc-mmio-bogus-reply
. /tests/lib.sh

guc_down "guc: malformed reply 0x90000001 to MMIO action 0x4100" "hwconfig:"
done_testing
