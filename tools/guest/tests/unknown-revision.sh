#!/bin/sh
# A revision newer than every known stepping is a warning, not a failure
# (upstream xe_step.c falls back the same way).
# mock-args: --revision 0x3f
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
check is_bound "$bdf"
expect_eq "stepping" "$(info_get "$bdf" stepping)" "future (nearest known)"
check dmesg_has "unknown revision 0x3f for ATS-M150, using stepping future"
check_dmesg_clean
done_testing
