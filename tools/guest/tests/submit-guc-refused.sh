#!/bin/sh
# The GuC refuses a context registration (guc:refuse-register:1 before a
# reload). Probe logs the step, the context index and the error, leaves that
# engine's port without submission (its runs fail with ENODEV) and binds
# anyway; every other engine is registered and runs. Unbind deregisters the
# contexts that were registered and unloads cleanly.
# expect-mock: guc_submit.refused == 1
# expect-mock: violations == 0
# timeout: 120
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
check is_bound "$bdf"
check rmmod xehpg
mock_request guc:refuse-register:1
check reload
check is_bound "$bdf"
check dmesg_has "submit: rcs0: GuC registration of context 1 failed: -5"
check submit_cmd "$bdf" "rcs0 5"
expect_eq "rcs0: no submission" "$(submit_get "$bdf" rcs0 errno)" -19
expect_eq "rcs0: nothing submitted" "$(eng_get "$bdf" rcs0 submitted)" 0
check submit_cmd "$bdf" "bcs0 20"
submit_ok "$bdf" bcs0 20
check rmmod xehpg
check_dmesg_clean
done_testing
