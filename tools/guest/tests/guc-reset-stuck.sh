#!/bin/sh
# GuC fault: no GDRST GuC reset ever completes, so the load stops at its
# first step. The device stays bound with the GuC down, the log names the
# timeout, a reload hits the same, and rmmod works (no DMA was started, so
# unbind does not try to reset the GuC).
# mock-args: --fault guc-reset-stuck
. /tests/lib.sh

guc_down "guc: GDRST GuC reset did not complete within 5 ms" "GuC reset:"
done_testing
