#!/bin/sh
# A lost context-status entry in execlist mode (engine:csb-lost:rcs0 drops the
# next entry that switches a context out). The first request's Load runs and
# completes, but the driver never learns the context left the engine, so the
# requests queued behind it are not loaded. After 2 s without progress the
# driver loads the context again instead of declaring a hang; everything
# retires, nothing is reset, nothing is lost or doubled.
# expect-mock: engines.rcs0.resets == 0
# expect-mock: violations == 0
# timeout: 120
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
check reload force_execlist=1
check is_bound "$bdf"
mock_request engine:csb-lost:rcs0
check submit_cmd "$bdf" "rcs0 10"
submit_ok "$bdf" rcs0 10
check dmesg_has "submit: rcs0: no progress for 2000 ms; context loaded again (a CSB entry may have been lost)"
expect_eq "rcs0: the lost entry cost one nudge" "$(eng_get "$bdf" rcs0 nudges)" 1
expect_eq "rcs0: no reset" "$(eng_get "$bdf" rcs0 resets)" 0
expect_eq "rcs0: idle at the end" "$(eng_get "$bdf" rcs0 state)" idle
check submit_cmd "$bdf" "rcs0 100"
submit_ok "$bdf" rcs0 100
check rmmod xehpg
check_dmesg_clean
done_testing
