#!/bin/sh
# The GuC WOPCM registers come up locked with a partition running to the very
# top of the 4 MiB WOPCM (base 0x4000, size 0x3fc000: ends at 0x400000, into
# the 36 KiB the driver leaves for hardware contexts when it programs them
# itself). Upstream keeps locked values that fit its 8 MiB bound
# (xe_wopcm.c xe_wopcm_init / max_wopcm_size / __check_layout); the driver
# once refused anything past 4 MiB - 36 KiB. Now it keeps them without
# writing, and the GuC runs, on the first load and after a reload.
# mock-args: --wopcm-prelocked 0x4000,0x3fc000
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
expect_eq "WOPCM on first load" "$(guc_get "$bdf" wopcm)" "base 0x4000 size 0x3fc000 (found locked)"
expect_eq "last_error" "$(guc_get "$bdf" last_error)" none
guc_up
check reload
expect_eq "GuC status after reload" "$(guc_get "$bdf" status)" running
expect_eq "WOPCM after reload" "$(guc_get "$bdf" wopcm)" "base 0x4000 size 0x3fc000 (found locked)"
check rmmod xehpg
check_dmesg_clean
done_testing
