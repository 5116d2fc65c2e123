#!/bin/sh
# Execlist submission (force_execlist=1: the GuC is not loaded, as upstream's
# parameter does). Every present engine runs the debugfs submit selftest:
# each request stores a value into a local-memory slot through the GGTT, writes
# its seqno into the engine's HWSP and raises the user interrupt; the driver
# retires requests by seqno and follows the context through the CSB. Every
# request retires exactly once, every slot reads back right through BAR 2,
# and the ports go idle (forcewake released) when the work is done. Then
# 10,000 requests on one engine: none lost, none doubled. A GT reset through
# debugfs is refused in this mode.
# expect-mock: engines.rcs0.user_interrupts >= 10110
# expect-mock: engines.bcs0.user_interrupts >= 100
# expect-mock: engines.gtt_faults == 0
# expect-mock: violations == 0
# timeout: 240
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
check reload force_execlist=1
check is_bound "$bdf"
expect_eq "GuC not loaded" "$(guc_get "$bdf" status)" "not loaded"
check dmesg_has "guc: not loaded (force_execlist): execlist submission"

mock_engines_driven "$bdf"
diag "engines: $engines"
for e in $engines; do
	expect_eq "$e: execlist mode" "$(eng_get "$bdf" "$e" mode)" execlist
	expect_eq "$e: idle before work" "$(eng_get "$bdf" "$e" state)" idle
done

check submit_cmd "$bdf" "all 100"
for e in $engines; do
	submit_ok "$bdf" "$e" 100
	expect_eq "$e: idle after work" "$(eng_get "$bdf" "$e" state)" idle
	expect_eq "$e: nothing in flight" "$(eng_get "$bdf" "$e" inflight)" 0
	expect_eq "$e: submitted = completed" "$(eng_get "$bdf" "$e" completed)" \
		"$(eng_get "$bdf" "$e" submitted)"
	expect_eq "$e: last seqno" "$(eng_get "$bdf" "$e" seqno)" 100
	expect_eq "$e: no bad device input" "$(eng_get "$bdf" "$e" bad_input)" 0
	# Every CSB event found the port where a Load left it (Mech, port.rs).
	expect_eq "$e: no refused port transition" "$(eng_get "$bdf" "$e" bad_transitions)" 0
done
# With the engines idle no forcewake reference is left (the ports release it).
expect_eq "RENDER asleep after the work" "$(fw_field "$bdf" RENDER refs)" 0

check submit_cmd "$bdf" "rcs0 10000"
submit_ok "$bdf" rcs0 10000
diag "$(cat "$DBG/$bdf/submit")"
expect_eq "rcs0: 10,100 retired in all" "$(eng_get "$bdf" rcs0 completed)" 10100
expect_eq "rcs0: last seqno" "$(eng_get "$bdf" rcs0 seqno)" 10100

for bad in "rcs0 0" "rcs0" "nosuch 5" "rcs0 x" "all 1000001" "rcs0 1 2" "gsc0 1"; do
	check not submit_cmd "$bdf" "$bad"
done
expect_eq "bad commands submitted nothing" "$(eng_get "$bdf" rcs0 submitted)" 10100

no_nudges "$bdf"
# A GT reset is for GuC submission only (upstream's rule): refused, nothing
# queued, execlists keep running.
check not put "$bdf" gt_reset_ctl 1
check dmesg_has "gt: reset (asked through debugfs) refused: the GuC does not submit"
expect_eq "no reset queued" "$(sed -n 's/^phase: //p' "$DBG/$bdf/gt_reset")" idle
check submit_cmd "$bdf" "rcs0 10"
submit_ok "$bdf" rcs0 10
check rmmod xehpg
check_dmesg_clean
done_testing
