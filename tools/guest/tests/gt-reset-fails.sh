#!/bin/sh
# GT reset failure paths. A malformed ENGINE_FAILURE_NOTIFICATION (one dword
# where upstream requires three) is refused with a message and queues
# nothing. Then a reset whose restart fails: the GuC refuses the first CT
# request after the reload (ct:failure, the second boot phase's opt-in), so
# the reset stops at that step, the GT is wedged (submissions fail, further
# reset requests are refused as coalesced) and unbind still works.
# expect-mock: violations == 0
# timeout: 180
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
check is_bound "$bdf"

mock_request g2h:event:1009:3
check wait_until 10 dmesg_has "gt: ENGINE_FAILURE_NOTIFICATION with 1 dwords, 3 expected; ignored"
expect_eq "a malformed notice queues nothing" "$(reset_get "$bdf" requests)" 0

mock_request ct:failure:60:1
check put "$bdf" gt_reset_ctl 1
wedged() { [ "$(reset_get "$bdf" phase)" = wedged ]; }
check wait_until 60 wedged
expect_eq "the reset failed" "$(reset_get "$bdf" failed)" 1
expect_eq "none done" "$(reset_get "$bdf" done)" 0
check dmesg_has "gt: reset (asked through debugfs) failed at GuC second boot phase"
submit_cmd "$bdf" "rcs0 1"
expect_eq "wedged: rcs0 submits nothing (ENODEV)" "$(submit_get "$bdf" rcs0 errno)" -19
check not put "$bdf" gt_reset_ctl 1
expect_eq "the second request coalesced" "$(reset_get "$bdf" coalesced)" 1

check rmmod xehpg
check_dmesg_clean
done_testing
