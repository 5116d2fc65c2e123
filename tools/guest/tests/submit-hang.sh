#!/bin/sh
# A hang in execlist mode. The mock's copy engine stops at the first command
# of the next context it starts (control request engine:hang:bcs0), so none of
# the selftest's requests retires. After 2 s without progress the driver names
# the engine and what was in flight, resets it (RING_RESET_CTL handshake, then
# its GDRST domain), fails every request in flight exactly once, empties the
# ring and programs execlist mode again: the next run completes. The other
# engines are not touched.
# expect-mock: engines.bcs0.resets == 1
# expect-mock: engines.rcs0.resets == 0
# expect-mock: violations == 0
# timeout: 120
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
check reload force_execlist=1
check is_bound "$bdf"
mock_request engine:hang:bcs0

check submit_cmd "$bdf" "bcs0 10"
expect_eq "bcs0: the run timed out" "$(submit_get "$bdf" bcs0 errno)" -110
expect_eq "bcs0: nothing retired" "$(submit_get "$bdf" bcs0 completed)" 0
expect_eq "bcs0: every request failed" "$(submit_get "$bdf" bcs0 failed)" 10
check dmesg_has "submit: bcs0: hung: nothing retired for 2000 ms"
expect_eq "bcs0: one reset" "$(eng_get "$bdf" bcs0 resets)" 1
expect_eq "bcs0: failures counted once" "$(eng_get "$bdf" bcs0 failed)" 10
expect_eq "bcs0: nothing in flight" "$(eng_get "$bdf" bcs0 inflight)" 0

check submit_cmd "$bdf" "bcs0 50"
submit_ok "$bdf" bcs0 50
check submit_cmd "$bdf" "rcs0 50"
submit_ok "$bdf" rcs0 50
expect_eq "rcs0: never reset" "$(eng_get "$bdf" rcs0 resets)" 0

check rmmod xehpg
check_dmesg_clean
done_testing
