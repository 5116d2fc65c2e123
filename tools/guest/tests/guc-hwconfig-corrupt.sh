#!/bin/sh
# GuC fault: the hwconfig table's last entry overruns it. The device stays bound with the GuC down, the log names
# the step and the decoded status, and reload/rmmod work.
# The mock's last entry (L3_BANK_SIZE_IN_KB, the 14th) claims 5 dwords where 1
# remains; the driver keeps nothing of the table, so debugfs hwconfig is empty.
# mock-args: --fault guc-hwconfig-corrupt
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
check dmesg_has "guc: hwconfig entry 13 claims 5 dwords, 1 remain; table refused"
left=$(cat "$DBG/$bdf/hwconfig")
if [ -z "$left" ]; then ok "hwconfig debugfs of a refused table is empty"; else not_ok "hwconfig debugfs of a refused table is empty" "$left"; fi
# The mock did serve its whole table (14 entries of 3 dwords).
mock_expect hwconfig_served_bytes == 168
guc_down "table refused" "hwconfig:"
done_testing
