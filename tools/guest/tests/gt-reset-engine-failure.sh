#!/bin/sh
# The GuC cannot reset an engine (engine:reset-fails:bcs0): bcs0's context
# hangs, the GuC's preemption timeout finds it, its engine reset fails, and
# the GuC sends ENGINE_FAILURE_NOTIFICATION (GuC class 3, blitter, instance
# 0) and schedules nothing more on the engine. The driver queues a GT reset,
# as upstream does (xe_guc_exec_queue_reset_failure_handler): the requests in
# flight fail once, GDRST.GRDOM_FULL resets the GT and the GuC, and after the
# GuC's reload and the contexts' registration every engine the fuses leave
# runs work again, bcs0 included. The mock's record shows the one failure
# notification, one full reset and four GuC loads. The trace events of both
# (Documentation/tracing.rst) name the engine and the reset's phases.
# expect-mock: guc.engine_failures == 1
# expect-mock: guc.full_resets == 1
# expect-mock: guc_loads == 4
# expect-mock: violations == 0
# timeout: 180
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
check is_bound "$bdf"
mock_engines_driven "$bdf"
T=/sys/kernel/tracing
[ -e "$T/trace" ] || mount -t tracefs nodev "$T"
echo >"$T/trace"
check sh -c "echo 1 >$T/events/xehpg/xehpg_engine_failure/enable &&
	echo 1 >$T/events/xehpg/xehpg_gt_reset/enable"

mock_request engine:reset-fails:bcs0
check submit_cmd "$bdf" "bcs0 10"
expect_eq "bcs0: nothing retired" "$(submit_get "$bdf" bcs0 completed)" 0
expect_eq "bcs0: every request failed" "$(submit_get "$bdf" bcs0 failed)" 10
check wait_until 60 resets_done_is "$bdf" 1
diag "$(cat "$DBG/$bdf/gt_reset")"
check dmesg_has "gt: the GuC failed to reset engine 3:0"
check dmesg_has "gt: reset started (engine failure on GuC class 3 instance 0"
check dmesg_has "gt: reset done in"
expect_eq "one reset asked for" "$(reset_get "$bdf" requests)" 1
expect_eq "the reset failed the 10 requests" "$(reset_get "$bdf" last_failed_requests)" 10
expect_eq "traced: the failed engine, then the reset's phases" "$(awk -v bdf="$bdf" '
	$0 ~ "xehpg_engine_failure: dev=" bdf " guc_class=3 instance=0 reason=0x" { s = s " failure" }
	$0 ~ "xehpg_gt_reset: dev=" bdf " " { sub(/.* phase=/, ""); s = s " " $0 }
	END { print s }' "$T/trace")" " failure queued why=engine_failure started why=engine_failure done why=engine_failure"

check submit_cmd "$bdf" "all 10"
for e in $engines; do submit_ok "$bdf" "$e" 10; done

check rmmod xehpg
check_dmesg_clean
done_testing
