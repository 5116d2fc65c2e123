#!/bin/sh
# The GuC never answers over CT (fault ct-no-response): the second boot
# phase times out on its first request after 1 s, the GuC is stopped and the
# device stays bound in execlist mode, a reload fails the same way, and
# rmmod is clean.
# mock-args: --fault ct-no-response
# timeout: 180
. /tests/lib.sh

guc_down "guc: load failed at CT opt-in features: Error(62); stopping the GuC" "CT opt-in features"
bdf=$(gpu_bdf 0x56c0)
check insmod /lib/modules/xehpg.ko
expect_eq "interrupts armed for execlist mode" "$(irq_get "$bdf" mode)" execlist
expect_eq "CT down" "$(ct_get "$bdf" state)" down
check not ct_cmd "$bdf" "ping 1"
check rmmod xehpg
check_dmesg_clean
done_testing
