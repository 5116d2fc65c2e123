#!/bin/sh
# The GuC WOPCM registers come up locked (as if firmware or an earlier
# driver had written them) with a partition too small for the firmware:
# base 0x4000, size 0x10000 (64 KiB; the image needs ~372 KiB + 24 KiB).
# The driver cannot reprogram write-once registers, so the GuC stays down
# with the locked values in the log, the device stays bound, a reload hits
# the same (the lock survives GuC resets), and rmmod works. The driver must
# not write the locked registers (wopcm_locked_write would fail mock clean).
# mock-args: --wopcm-prelocked 0x4000,0x10000
. /tests/lib.sh

guc_down "guc: WOPCM locked at base 0x4000 size 0x10000" "WOPCM:"
done_testing
