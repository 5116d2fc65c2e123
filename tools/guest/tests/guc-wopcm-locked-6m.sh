#!/bin/sh
# The GuC WOPCM registers come up locked with a partition reaching past the
# 4 MiB the driver programs itself (base 0x4000, size 0x5f0000: ends at
# 0x5f4000). Upstream checks locked values against the largest WOPCM
# (xe_wopcm.c xe_wopcm_init / max_wopcm_size: 8 MiB, with a FIXME that this
# is not the per-GT size) and keeps them, so the driver must pass its WOPCM
# step: no "unusable" refusal, no write to the locked registers
# (wopcm_locked_write would fail mock clean), guc_info shows them found
# locked. The mock models the DG2 WOPCM as the 4 MiB upstream programs
# (DGFX_WOPCM_SIZE), so its DMA engine then refuses the partition
# (guc_dma_rejected) and the GuC stays down at the boot step, not at WOPCM.
# mock-args: --wopcm-prelocked 0x4000,0x5f0000
# expect-violation: guc_dma_rejected
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
expect_eq "WOPCM accepted" "$(guc_get "$bdf" wopcm)" "base 0x4000 size 0x5f0000 (found locked)"
check not dmesg_has "unusable for this firmware"
guc_down "guc: load failed at boot" "boot:"
done_testing
