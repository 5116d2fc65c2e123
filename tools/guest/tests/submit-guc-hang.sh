#!/bin/sh
# A hang under GuC submission. The copy engine stops at the first command of
# its next context (engine:hang:bcs0); the GuC's preemption timeout (640 ms,
# set by the driver's context policies) finds the context stuck, resets the
# engine and sends CONTEXT_RESET_NOTIFICATION. The driver names the context,
# fails the requests in flight once, disables and deregisters it and
# registers it again with an empty ring; the next run completes. Then a lost
# SCHED_CONTEXT (guc:drop-sched:1): the request does not run, the driver sees
# no progress, sends SCHED_CONTEXT again and the request completes. Then a
# storm of reset notifications with no hang (guc:reset-storm:3): each named
# context is re-registered, nothing is lost. The mock counts the hang's reset
# and the storm's three, so the storm is shown to have fired. The GuC's engine
# reset puts every register of the engine's reset domain back to its reset
# value except those in the engine's ADS save/restore list (the mock's rule,
# from xe_guc_ads.c guc_mmio_regset_write): none of what the driver had
# programmed is lost, and work runs on every engine afterwards. Each reset
# notification the mock sent is one xehpg_ctx_reset trace event, the hang's
# naming bcs0's context (Documentation/tracing.rst).
# expect-mock: guc_submit.resets == 4
# expect-mock: guc.engine_resets >= 1
# expect-mock: guc.regs_restored >= 5
# expect-mock: guc.regs_lost == 0
# expect-mock: guc_submit.sched_dropped == 1
# expect-mock: violations == 0
# timeout: 180
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
check is_bound "$bdf"
expect_eq "bcs0: GuC mode" "$(eng_get "$bdf" bcs0 mode)" guc
T=/sys/kernel/tracing
[ -e "$T/trace" ] || mount -t tracefs nodev "$T"
echo >"$T/trace"
check sh -c "echo 1 >$T/events/xehpg/xehpg_ctx_reset/enable"
mock_request engine:hang:bcs0
check submit_cmd "$bdf" "bcs0 10"
expect_eq "bcs0: nothing retired" "$(submit_get "$bdf" bcs0 completed)" 0
expect_eq "bcs0: every request failed" "$(submit_get "$bdf" bcs0 failed)" 10
expect_eq "bcs0: the run reports EIO" "$(submit_get "$bdf" bcs0 errno)" -5
check dmesg_has "the GuC reset context"
check dmesg_has "submit: bcs0: context 2 was reset by the GuC; 10 request(s) failed, re-registering it"
expect_eq "bcs0: one recovery" "$(eng_get "$bdf" bcs0 resets)" 1
check submit_cmd "$bdf" "bcs0 50"
submit_ok "$bdf" bcs0 50

mock_request guc:drop-sched:1
check submit_cmd "$bdf" "rcs0 1"
submit_ok "$bdf" rcs0 1
check dmesg_has "submit: rcs0: no progress for 2000 ms; SCHED_CONTEXT sent again"
expect_eq "rcs0: the dropped SCHED_CONTEXT cost one nudge" "$(eng_get "$bdf" rcs0 nudges)" 1

mock_request guc:reset-storm:3
sleep 1
check submit_cmd "$bdf" "all 10"
mock_engines_driven "$bdf"
for e in $engines; do
	expect_eq "$e: 10 retired after the storm" "$(submit_get "$bdf" "$e" completed)" 10
	expect_eq "$e: payload after the storm" "$(submit_get "$bdf" "$e" payload)" ok
	# Resets, disables and deregistrations in the table's order (ctx.rs).
	expect_eq "$e: no refused context transition" "$(eng_get "$bdf" "$e" bad_transitions)" 0
done

set -- $(awk -v bdf="$bdf" '$0 ~ "xehpg_ctx_reset: dev=" bdf " " { n++; if (n == 1) e = $0 }
	END { sub(/.* engine=/, "", e); sub(/ .*/, "", e); print n + 0, e }' "$T/trace")
mock_expect guc_submit.resets == "$1"
expect_eq "the first context reset traced is bcs0's" "$2" bcs0

check rmmod xehpg
check_dmesg_clean
done_testing
