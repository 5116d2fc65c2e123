#!/bin/sh
# Fault-injection sweep of probe (issue 27 item 2; Documentation/testing.rst,
# "Fault-injection sweeps"). The kernel's per-task fail-nth with failslab and
# fail_page_alloc (lib.sh fault_setup) fails the 1st, then the 2nd, ... Nth
# fault-injectable call of a write of the device's address to the driver's
# `bind` file: probe runs in that write, in this shell's task, so every
# allocation of probe (slab, pages, DMA memory, vmalloc, the kernel's own on
# the driver's behalf) is failed in turn, with the sysfs write's and the
# driver core's around it. One attempt per N until the write finishes before
# its Nth call (nothing was injected): that one must bind.
# After each injected failure: the write failed and the device is not bound
# (or the write succeeded because the failed call had a fallback: then it is
# bound and unbinds cleanly, counted apart), the debugfs directory and the
# BARs' regions are gone, Bus Master Enable reads back clear from the
# device's config space, and the attempt's kernel log has no detector report.
# The next attempt is the next N; the last one binds and runs work on every
# engine. The mock is the witness that no failed probe turned bus mastering
# off under a running GuC (bus_master_clears_guc_running, upstream's teardown
# order) and that the GuC and bus mastering are off at the end; kmemleak
# scans after the boot's last scenario, so a leak on any error path fails.
# Each failure point is a diagnostic line (lib.sh fault_sweep: the count
# moves between runs, so the floor does not keep it); FAULT_MIN is the
# least this scenario accepts.
# Sampled (deterministic, the same attempts on every run): every N up to
# FAULT_ALL, then every FAULT_STEP-th. A failure a fallback absorbs (the
# PCI device's sysfs files under pci_enable_device, an MSI vector's sysfs
# group, a firmware path the loader retries) costs a whole bind and
# unbind, 5 to 10 s on the debug kernel, and the write has about 250
# points, so the full sweep would take about 20 minutes; the sample runs
# 38 of them (Documentation/testing.rst, "Fault-injection sweeps", has the
# counts and times).
# debug-only: per-task fail-nth with failslab and fail_page_alloc exists in the debug kernel only
# no-load
# timeout: 300
# expect-mock: bus_master_clears_guc_running == 0
# expect-mock: guc_running_at_exit == false
# expect-mock: bus_master_at_exit == false
# expect-mock: violations == 0
. /tests/lib.sh

# Failure points the sample must find at least: 37 and 38 were measured
# (Documentation/testing.rst), the kernel's own allocations vary a little.
FAULT_MIN=30
# The sample: every N to FAULT_ALL, then every FAULT_STEP-th.
FAULT_ALL=24
FAULT_STEP=16

bdf=$(gpu_bdf 0x56c0)
check test -n "$bdf"
check fault_setup

echo 0 >/sys/bus/pci/drivers_autoprobe
check insmod /lib/modules/xehpg.ko
check not is_bound "$bdf"

# not_bound: what a failed probe must leave (fault_sweep's CLEAN).
not_bound() {
	is_bound "$bdf" && fault_why="$fault_why; still bound"
	[ -e "$DBG/$bdf" ] && fault_why="$fault_why; debugfs directory left"
	iomem_has "xehpg/" && fault_why="$fault_why; a BAR region left claimed"
	[ "$(bus_master "$bdf")" = 0 ] || fault_why="$fault_why; Bus Master Enable still set"
}

# unbind: a bind a fallback let succeed must unbind (fault_sweep's UNDO).
unbind() {
	is_bound "$bdf" || fault_why="$fault_why; bind succeeded but the device is not bound"
	echo "$bdf" >/sys/bus/pci/drivers/xehpg/unbind || fault_why="$fault_why; unbind failed"
	# A bind whose MSI setup failed ran on INTx: QEMU keeps the BARs
	# unmapped after it, which cost the next attempt a minute (lib.sh
	# intx_release).
	intx_release "$bdf" || fault_why="$fault_why; no MSI capability to release INTx with"
}

fault_sweep fault-probe /sys/bus/pci/drivers/xehpg/bind "$bdf" not_bound unbind
fault_report fault-probe "$FAULT_MIN"

# The attempt with nothing injected bound the device: it works.
expect_eq "write with nothing injected" "$fault_rc" 0
check is_bound "$bdf"
echo 1 >/sys/bus/pci/drivers_autoprobe
expect_eq "GuC status" "$(guc_get "$bdf" status)" running
mock_engines_driven "$bdf"
check submit_cmd "$bdf" "all 4"
for e in $engines; do
	submit_ok "$bdf" "$e" 4
done
check sh -c "echo $bdf > /sys/bus/pci/drivers/xehpg/unbind"
expect_eq "bus mastering off after unbind" "$(bus_master "$bdf")" 0
check rmmod xehpg
fault_teardown
check_dmesg_clean
done_testing
