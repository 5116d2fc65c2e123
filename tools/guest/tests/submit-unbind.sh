#!/bin/sh
# rmmod with requests in flight. The render engine hangs (control request
# engine:hang:rcs0) while a selftest run waits on it in the background; rmmod
# stops every port first (the waiter wakes and its run ends with ENODEV),
# resets the engine that still had work so nothing writes the driver's memory
# any more, then unmaps it. The module unloads, nothing leaks, no warning.
# expect-mock: engines.rcs0.resets == 1
# expect-mock: violations == 0
# timeout: 120
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
check reload force_execlist=1
check is_bound "$bdf"
mock_request engine:hang:rcs0
submit_cmd "$bdf" "rcs0 100" &
sleep 1
expect_eq "rcs0: work in flight" "$(eng_get "$bdf" rcs0 state)" active
check rmmod xehpg
wait
check dmesg_has "submit: rcs0: unbind with 100 request(s) in flight; engine reset"
check not is_bound "$bdf"
check_dmesg_clean
done_testing
