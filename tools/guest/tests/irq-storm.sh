#!/bin/sh
# A source that re-fires the moment it is serviced (fault irq-storm=guc).
# With a storm limit the driver masks it and says so, the top half goes
# quiet, and `rearm guc` lets it storm (and be masked) again. With no
# practical limit the storm goes on, and rmmod while the mock fires must
# complete with a clean log: quiesce disarms and resets under the lock,
# synchronize_irq waits, and nothing touches the device afterwards.
# mock-args: --fault irq-storm=guc
# timeout: 240
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
check is_bound "$bdf"
check irq_cmd "$bdf" "storm_limit 200"
mock_request "irq:guc:0x8000:1"
wait_until 30 irq_get_at_least "$bdf" storms 1
expect_eq "GuC masked" "$(irq_get "$bdf" stormed)" guc
expect_eq "GuC disarmed" "$(irq_armed "$bdf" guc)" 0x0000
wait_until 10 dmesg_has "irq: source guc fired more than 200 times in a second: masked"
check dmesg_has "xehpg $bdf: irq: source guc fired more than 200 times in a second: masked (write 'rearm guc' to debugfs irq to re-arm)"
n1=$(irq_src "$bdf" guc)
sleep 2
n2=$(irq_src "$bdf" guc)
expect_eq "quiet once masked" "$n2" "$n1"
if [ "$n1" -ge 201 ]; then ok "masked after the limit ($n1 events)"; else not_ok "masked after the limit" "$n1"; fi

check irq_cmd "$bdf" "rearm guc"
wait_until 30 irq_get_at_least "$bdf" storms 2
expect_eq "stormed again after rearm" "$(irq_get "$bdf" stormed)" guc

# No limit: it storms on while the module goes away.
check irq_cmd "$bdf" "storm_limit 4000000000"
check irq_cmd "$bdf" "rearm all"
n3=$(irq_src "$bdf" guc)
sleep 2
n4=$(irq_src "$bdf" guc)
if [ "$n4" -gt "$n3" ]; then ok "storming ($((n4 - n3)) events in 2 s)"; else not_ok "storming" "$n3 -> $n4"; fi
(rmmod xehpg; echo $? >/tmp/rmmod.rc) &
wait_until 60 test -e /tmp/rmmod.rc
expect_eq "rmmod during the storm returned within 60 s with status" "$(cat /tmp/rmmod.rc 2>/dev/null)" 0
check not test -e /sys/kernel/debug/xehpg
check insmod /lib/modules/xehpg.ko
check is_bound "$bdf"
check_dmesg_clean
done_testing
