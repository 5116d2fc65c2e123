#!/bin/sh
# The GuC WOPCM registers come up locked with exactly the partition the
# driver would program itself (base 0x4000, size 0x3f3000): the driver
# accepts them without writing, the GuC runs and guc_info says they were
# found locked, on the first load and after a reload.
# mock-args: --wopcm-prelocked 0x4000,0x3f3000
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
expect_eq "WOPCM on first load" "$(guc_get "$bdf" wopcm)" "base 0x4000 size 0x3f3000 (found locked)"
expect_eq "last_error" "$(guc_get "$bdf" last_error)" none
guc_up
check reload
expect_eq "GuC status after reload" "$(guc_get "$bdf" status)" running
expect_eq "WOPCM after reload" "$(guc_get "$bdf" wopcm)" "base 0x4000 size 0x3f3000 (found locked)"
check rmmod xehpg
check_dmesg_clean
done_testing
