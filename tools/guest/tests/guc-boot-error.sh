#!/bin/sh
# GuC fault: the uKernel reports an exception. The device stays bound with the GuC down, the log names
# the step and the decoded status, and reload/rmmod work.
# mock-args: --fault guc-boot-error
. /tests/lib.sh

guc_down "uKernel 0x70 exception" "boot:"
done_testing
