#!/bin/sh
# Doorbells asked for (guc_doorbells=1) from a GuC that does not arm them.
# After registering each context the driver picks a doorbell page and a
# physical doorbell and sends ALLOCATE_DOORBELL (the legacy action; its
# payload is the driver's labelled guess, Documentation/submission.rst). Real
# GuC 70 firmware does not know the action; the mock's GuC arms doorbells
# unless told not to, so guc:refuse-doorbell (before the reload) has it answer
# every ALLOCATE_DOORBELL with FAILURE. The driver logs one line per port,
# gives the doorbell back and submits with SCHED_CONTEXT: every request
# completes and no doorbell page is ever written.
# expect-mock: ct.replies_failure >= 2
# expect-mock: guc_submit.doorbell_allocs == 0
# expect-mock: guc_submit.doorbell_rings == 0
# expect-mock: guc_submit.unarmed_rings == 0
# expect-mock: violations == 0
# expect-mock: unknown_accesses == 0
# timeout: 120
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
check is_bound "$bdf"
check rmmod xehpg
mock_request guc:refuse-doorbell:1000
check reload guc_doorbells=1
check is_bound "$bdf"
expect_eq "GuC status" "$(guc_get "$bdf" status)" running
check dmesg_has "submit: rcs0: the GuC refused doorbell 0 (page at 0x400000): -5; submitting with SCHED_CONTEXT"
check dmesg_has "submit: bcs0: the GuC refused doorbell 0 (page at 0x400000)"
expect_eq "no doorbell armed" "$(sed -n 's/^doorbells: //p' "$DBG/$bdf/engines")" "0 of 256 armed"
mock_engines_driven "$bdf"
# One refused ALLOCATE_DOORBELL per engine, nothing else refused.
mock_expect guc_submit.refused == "$(echo $engines | wc -w)"
check submit_cmd "$bdf" "all 50"
for e in $engines; do
	submit_ok "$bdf" "$e" 50
	expect_eq "$e: GuC mode" "$(eng_get "$bdf" "$e" mode)" guc
done
no_nudges "$bdf"
check rmmod xehpg
check_dmesg_clean
done_testing
