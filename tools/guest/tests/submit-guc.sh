#!/bin/sh
# GuC submission, the default when the GuC runs (as upstream). At probe every
# engine's kernel context is registered with the GuC (REGISTER_CONTEXT with
# its class, logical-instance mask and LRC descriptor), given its policies
# (UPDATE_CONTEXT_POLICIES: priority, quantum, preemption timeout) and enabled
# (SCHED_CONTEXT_MODE_SET, confirmed by the SCHED_CONTEXT_MODE_DONE event).
# Each request then costs one SCHED_CONTEXT fast request (one CT notify) after
# its tail is written into the image; the GuC puts the context on the engine,
# the engine writes the seqno and raises the user interrupt, the driver
# retires. Every present engine runs the selftest; then 10,000 requests on one
# engine, none lost or doubled. At unbind every context is disabled and
# deregistered (DEREGISTER_CONTEXT_DONE) before the GuC stops.
# expect-mock: guc_submit.registrations >= 2
# expect-mock: guc_submit.registered == 0
# expect-mock: guc_submit.sched >= 10100
# expect-mock: engines.rcs0.user_interrupts >= 10100
# expect-mock: engines.gtt_faults == 0
# expect-mock: violations == 0
# timeout: 300
# distro
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
check is_bound "$bdf"
expect_eq "GuC status" "$(guc_get "$bdf" status)" running
mock_engines_driven "$bdf"
n=$(echo $engines | wc -w)
diag "engines: $engines"
for e in $engines; do
	expect_eq "$e: GuC mode" "$(eng_get "$bdf" "$e" mode)" guc
done
mock_expect guc_submit.registrations == "$n"
mock_expect guc_submit.enables == "$n"

check submit_cmd "$bdf" "all 100"
for e in $engines; do
	submit_ok "$bdf" "$e" 100
	expect_eq "$e: nothing in flight" "$(eng_get "$bdf" "$e" inflight)" 0
	expect_eq "$e: no ELSQ Load by the host" "$(eng_get "$bdf" "$e" loads)" 0
done
# No engine register is touched on the GuC path: forcewake stays asleep.
expect_eq "RENDER asleep" "$(fw_field "$bdf" RENDER refs)" 0

check submit_cmd "$bdf" "rcs0 10000"
submit_ok "$bdf" rcs0 10000
diag "$(cat "$DBG/$bdf/submit")"
expect_eq "rcs0: 10,100 retired in all" "$(eng_get "$bdf" rcs0 completed)" 10100
expect_eq "no CT request failed" "$(ct_count "$bdf" errors failed)" 0
expect_eq "no fast request failed" "$(ct_count "$bdf" errors fast_failed)" 0

no_nudges "$bdf"
# Every registration, enable and done event followed the context's state
# table (rust/submit/ctx.rs): none was refused.
for e in $engines; do
	expect_eq "$e: no refused context transition" "$(eng_get "$bdf" "$e" bad_transitions)" 0
done
check rmmod xehpg
mock_expect guc_submit.deregistrations == "$n"
check_dmesg_clean
done_testing
