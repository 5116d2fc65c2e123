#!/bin/sh
# GuC fault: the DMA engine never finishes. The device stays bound with the GuC down, the log names
# the step and the decoded status, and reload/rmmod work.
# mock-args: --fault guc-dma-never-completes
. /tests/lib.sh

guc_down "guc: DMA of 0x5d1c0 bytes did not complete within 100 ms" "DMA:"
done_testing
