#!/bin/sh
# A GuC exception (NOTIFY_EXCEPTION): the driver captures a device coredump
# with the live GUC_STATUS (uKernel EXCEPTION), the GuC's and the channel's
# state and the log, at the default guc_log_level (1, verbose logging off,
# as upstream: GUC_CTL_DEBUG 0x40). A dump read and dismissed through its
# data file goes.
# expect-mock: guc_log.level == 1
# expect-mock: guc.exceptions_posted == 1
# expect-mock: violations == 0
# timeout: 180
. /tests/lib.sh

# has_devcd BDF: the device has a coredump.
has_devcd() { [ -n "$(devcd_of "$1")" ]; }

bdf=$(gpu_bdf 0x56c0)
check is_bound "$bdf"
expect_eq "guc_info log_level" "$(guc_get "$bdf" log_level)" "1 (GUC_CTL_DEBUG 0x40)"

mock_request guc:exception:1
check wait_until 20 has_devcd "$bdf"
cd_dir=$(devcd_of "$bdf")
cp "$cd_dir/data" /tmp/exc.dump
check grep -q '^reason: NOTIFY_EXCEPTION$' /tmp/exc.dump
check grep -q '^guc_status_now: 0x[0-9a-f]* (ukernel 0x70 ' /tmp/exc.dump
check grep -q '^status: running$' /tmp/exc.dump
check grep -q '^state: up' /tmp/exc.dump
expect_eq "log bytes announced" "$(sed -n '/^guc_log: /{p;q}' /tmp/exc.dump)" "guc_log: $((0x115000)) bytes follow"
check dmesg_has "guc: the GuC reported an exception; capturing its state"
expect_eq "one devcoredump" "$(count_files '/sys/class/devcoredump/devcd*')" 1

# Dismissed through its data file, as the devcoredump ABI says.
echo 1 >"$cd_dir/data"
check wait_until 10 not has_devcd "$bdf"

check rmmod xehpg
check_dmesg_clean
done_testing
