#!/bin/sh
# The GuC answers the hwconfig size query SUCCESS with 0x12345 bytes, not
# a whole number of dwords. The driver refuses it before allocating a
# buffer: the device stays bound with the GuC down, the log names the size,
# a reload hits the same, and rmmod works.
# mock-args: --guc-hwconfig-size-reply 0x12345
. /tests/lib.sh

guc_down "guc: hwconfig size 0x12345 is not a table the driver accepts" "hwconfig:"
done_testing
