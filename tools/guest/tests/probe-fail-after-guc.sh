#!/bin/sh
# Probe fails after the GuC is up, and nothing is left running. The kernel's
# failslab fault injection (Documentation/fault-injection/fault-injection.rst:
# a stack-trace filter, one failure) fails the first allocation made under
# the driver's debugfs-directory constructor, a step of probe that comes
# after both GuC boots and the CT. Probe then fails with ENOMEM, and what it
# had made is dropped from the failing step backwards: the GuC's handle
# resets the GuC before its memory is freed, and bus mastering goes off last.
# The mock is the witness: after the failed probe its Command register has
# Bus Master Enable clear (read back from config space), and in total it saw
# two probes of two boots each, three GuC resets per probe (before each boot
# and at teardown) and bus mastering cleared once per probe. The second
# probe, with nothing injected, binds and runs work on every engine, so the
# failed one left nothing behind that gets in the way.
# debug-only: failslab (CONFIG_FAILSLAB and its stack-trace filter) is built into the debug kernel only
# no-load
# expect-mock: guc_loads == 4
# expect-mock: guc_resets == 6
# expect-mock: guc_running_at_exit == false
# expect-mock: bus_master_clears == 2
# expect-mock: bus_master_at_exit == false
# expect-mock: violations == 0
. /tests/lib.sh

F=/sys/kernel/debug/failslab
bdf=$(gpu_bdf 0x56c0)
check test -n "$bdf"
check test -d "$F"

# Load without binding, so the fault can be aimed at the module's code.
echo 0 >/sys/bus/pci/drivers_autoprobe
check insmod /lib/modules/xehpg.ko
check not is_bound "$bdf"

# DeviceDir::new's address range: its symbol, up to the next symbol of the
# module (kallsyms addresses are fixed-width hex, so text order is numeric).
echo 0 >/proc/sys/kernel/kptr_restrict
sym=$(grep -E ' [tT] _R[A-Za-z0-9_]*5xehpg7debugfs[A-Za-z0-9_]*9DeviceDir3new[[:space:]]+\[xehpg\]' /proc/kallsyms | head -n 1)
start=${sym%% *}
end=$(grep '\[xehpg\]' /proc/kallsyms | cut -d' ' -f1 | sort -u | grep -A1 -x "$start" | sed -n 2p)
check test -n "$start"
check test -n "$end"
diag "DeviceDir::new at 0x$start..0x$end"

echo N >"$F/ignore-gfp-wait"
echo "0x$start" >"$F/require-start"
echo "0x$end" >"$F/require-end"
echo 0 >"$F/space"
echo 1 >"$F/interval"
echo 1 >"$F/verbose"
echo 1 >"$F/times"
echo 100 >"$F/probability"

check not sh -c "echo $bdf > /sys/bus/pci/drivers/xehpg/bind"
echo 0 >"$F/probability"
check not is_bound "$bdf"
check dmesg_has "FAULT_INJECTION: forcing a failure"
check dmesg_has "probe with driver xehpg failed with error -12"
# The GuC was up when probe failed.
expect_eq "GuC up before the failure" "$(dmesg | grep -c 'guc: firmware .* running after')" 1
check not test -e "$DBG/$bdf"
check not iomem_has "xehpg/"
# The device's own Command register: Bus Master Enable (bit 2) clear.
cmd=$(od -An -tx2 -j4 -N2 "/sys/bus/pci/devices/$bdf/config" | tr -d ' ')
diag "command register after the failed probe: 0x$cmd"
expect_eq "bus mastering off after the failed probe" "$(((0x$cmd >> 2) & 1))" 0

# The next attempt binds and runs work on every engine.
check sh -c "echo $bdf > /sys/bus/pci/drivers/xehpg/bind"
echo 1 >/sys/bus/pci/drivers_autoprobe
check is_bound "$bdf"
expect_eq "GuC status" "$(guc_get "$bdf" status)" running
mock_engines_driven "$bdf"
check submit_cmd "$bdf" "all 10"
for e in $engines; do
	submit_ok "$bdf" "$e" 10
done
check sh -c "echo $bdf > /sys/bus/pci/drivers/xehpg/unbind"
check rmmod xehpg
check_dmesg_clean
done_testing
