#!/bin/sh
# Teardown with requests in flight: a load run waits for a reply that never
# comes while the module is removed; unbind stops the channel, wakes the
# waiter (ECANCELED), and rmmod completes well within the reply timeout. Then ten
# bind/unbind cycles, each with the CT up and a round trip, leave a clean
# log and a balanced mock (one enable and one disable per binding).
# timeout: 240
# expect-mock: ct.enables == 12
# expect-mock: ct.disables == 12
# expect-mock: violations == 0
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
drv=/sys/bus/pci/drivers/xehpg
check is_bound "$bdf"
mock_request "ct:no-response:1"
(ct_cmd "$bdf" "ping 1"; echo $? >/tmp/ping.rc) &
wait_until 10 ct_outstanding_is "$bdf" 1
(rmmod xehpg; echo $? >/tmp/rmmod.rc) &
wait_until 10 test -e /tmp/ping.rc
expect_eq "the waiting write returned an error" "$(cat /tmp/ping.rc)" 1
wait_until 10 test -e /tmp/rmmod.rc
expect_eq "rmmod with the request in flight" "$(cat /tmp/rmmod.rc)" 0
check not test -e /sys/kernel/debug/xehpg
check insmod /lib/modules/xehpg.ko
check is_bound "$bdf"

i=0
while [ $i -lt 10 ]; do
	echo "$bdf" >$drv/unbind || break
	echo "$bdf" >$drv/bind || break
	[ "$(ct_get "$bdf" state)" = up ] || break
	ct_cmd "$bdf" "ping 1" || break
	i=$((i + 1))
done
expect_eq "bind cycles with a working CT" "$i" 10
check rmmod xehpg
check_dmesg_clean
done_testing
