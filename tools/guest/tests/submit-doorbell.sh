#!/bin/sh
# Doorbell submission (guc_doorbells=1) with a GuC that arms doorbells. After
# registering and enabling each engine's context the driver picks a doorbell
# page and a physical doorbell and sends ALLOCATE_DOORBELL {context, physical
# doorbell, page offset} (the driver's labelled guess of the payload,
# rust/submit/doorbell.rs); the mock's GuC checks it and programs the
# physical doorbell (seed 000 L1059-1073). Each request then costs one 32-bit
# write of its seqno to the page (seed 000 L1038) instead of a SCHED_CONTEXT
# message: the mock counts every ring on an armed page and none elsewhere.
# Then a hang in this mode (engine:hang:bcs0): the GuC's preemption timeout
# resets the context; the driver fails the run once, gives the doorbell back,
# deregisters, registers again and arms a doorbell again, and the next run
# rings it. At unload each doorbell is deallocated before its context is
# disabled and deregistered, so the GuC releases none at deregistration.
# expect-mock: guc_submit.doorbells_armed == 0
# expect-mock: guc_submit.doorbells_dropped_at_dereg == 0
# expect-mock: guc_submit.unarmed_rings == 0
# expect-mock: guc_submit.doorbell_rings_ignored == 0
# expect-mock: guc_submit.sched == 0
# expect-mock: violations == 0
# expect-mock: unknown_accesses == 0
# timeout: 180
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
check reload guc_doorbells=1
check is_bound "$bdf"
expect_eq "GuC status" "$(guc_get "$bdf" status)" running
mock_engines_driven "$bdf"
n=$(echo $engines | wc -w)
diag "engines: $engines"
expect_eq "one doorbell per engine" \
	"$(sed -n 's/^doorbells: //p' "$DBG/$bdf/engines")" "$n of 256 armed"
check not dmesg_has "the GuC refused doorbell"
check submit_cmd "$bdf" "all 100"
for e in $engines; do
	submit_ok "$bdf" "$e" 100
	expect_eq "$e: GuC mode" "$(eng_get "$bdf" "$e" mode)" guc
	expect_eq "$e: nothing in flight" "$(eng_get "$bdf" "$e" inflight)" 0
done
# One ring per request (checked at the end: 100 per engine, then 10 + 50 on
# bcs0): no SCHED_CONTEXT (expect-mock above), no CT request.
expect_eq "no CT request failed" "$(ct_count "$bdf" errors failed)" 0
mock_expect guc_submit.doorbell_allocs ">=" "$n"

mock_request engine:hang:bcs0
check submit_cmd "$bdf" "bcs0 10"
expect_eq "bcs0: every request failed" "$(submit_get "$bdf" bcs0 failed)" 10
check dmesg_has "submit: bcs0: context 2 was reset by the GuC; 10 request(s) failed, re-registering it"
expect_eq "bcs0: armed again" \
	"$(sed -n 's/^doorbells: //p' "$DBG/$bdf/engines")" "$n of 256 armed"
check submit_cmd "$bdf" "bcs0 50"
submit_ok "$bdf" bcs0 50
mock_expect guc_submit.doorbell_allocs == "$((n + 1))"
mock_expect guc_submit.doorbell_rings == "$((100 * n + 60))"

no_nudges "$bdf"
check rmmod xehpg
mock_expect guc_submit.doorbell_deallocs == "$((n + 1))"
mock_expect guc_submit.deregistrations == "$((2 * n + 1))"
check_dmesg_clean
done_testing
