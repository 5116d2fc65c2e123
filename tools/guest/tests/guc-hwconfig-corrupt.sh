#!/bin/sh
# GuC fault: the hwconfig table's last entry overruns it. The device stays bound with the GuC down, the log names
# the step and the decoded status, and reload/rmmod work.
# mock-args: --fault guc-hwconfig-corrupt
. /tests/lib.sh

guc_down "table refused" "hwconfig:"
done_testing
