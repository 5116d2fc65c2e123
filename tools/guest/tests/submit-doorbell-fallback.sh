#!/bin/sh
# Doorbells asked for (guc_doorbells=1) from a GuC that does not arm them.
# After registering each context the driver picks a doorbell page and a
# physical doorbell and sends ALLOCATE_DOORBELL (the legacy action; its
# payload is the driver's labelled guess, Documentation/submission.rst). The
# mock's GuC, like GuC 70 firmware, answers an unknown action; the driver logs
# one line per port, gives the doorbell back and submits with SCHED_CONTEXT:
# every request completes and no doorbell page is ever written.
# expect-mock: ct.replies_failure >= 2
# expect-mock: violations == 0
# expect-mock: unknown_accesses == 0
# timeout: 120
. /tests/lib.sh

bdf=$(basename "$(gpu_dev 0x56c0)")
check reload guc_doorbells=1
check is_bound "$bdf"
expect_eq "GuC status" "$(guc_get "$bdf" status)" running
check dmesg_has "submit: rcs0: the GuC refused doorbell 0 (page at 0x400000): -5; submitting with SCHED_CONTEXT"
check dmesg_has "submit: bcs0: the GuC refused doorbell 0 (page at 0x400000)"
expect_eq "no doorbell armed" "$(sed -n 's/^doorbells: //p' "$(dbg "$bdf" engines)")" "0 of 256 armed"
check submit_cmd "$bdf" "all 50"
for e in $(sed -n 's/^\([a-z0-9]*\): class .*/\1/p' "$(dbg "$bdf" engines)"); do
	submit_ok "$bdf" "$e" 50
	expect_eq "$e: GuC mode" "$(eng_get "$bdf" "$e" mode)" guc
done
check rmmod xehpg
check_dmesg_clean
done_testing
