#!/bin/sh
# GuC fault: the boot stalls before READY. The device stays bound with the GuC down, the log names
# the step and the decoded status, and reload/rmmod work.
# mock-args: --fault guc-boot-stall
. /tests/lib.sh

guc_down "guc: boot timed out after 3000 ms" "boot:"
done_testing
