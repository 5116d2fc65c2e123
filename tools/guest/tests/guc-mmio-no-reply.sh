#!/bin/sh
# GuC fault: MMIO requests get no reply. The device stays bound with the GuC down, the log names
# the step and the decoded status, and reload/rmmod work.
# mock-args: --fault guc-mmio-no-reply
. /tests/lib.sh

guc_down "guc: no reply to MMIO action 0x4100 within 50 ms" "hwconfig:"
done_testing
