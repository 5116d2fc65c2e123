#!/bin/sh
# GuC fault: the boot ROM rejects the signature. The device stays bound with the GuC down, the log names
# the step and the decoded status, and reload/rmmod work.
# mock-args: --fault guc-rsa-reject
. /tests/lib.sh

guc_down "boot ROM 0x50 RSA verification failed" "boot:"
done_testing
