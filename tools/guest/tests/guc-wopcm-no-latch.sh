#!/bin/sh
# GuC fault: writes to GUC_WOPCM_SIZE / DMA_GUC_WOPCM_OFFSET are dropped, so
# LOCKED / VALID never read back. The device stays bound with the GuC down,
# the log says the registers did not latch, a reload hits the same, and
# rmmod works.
# mock-args: --fault guc-wopcm-no-latch
. /tests/lib.sh

guc_down "guc: WOPCM registers did not latch" "WOPCM:"
done_testing
