#!/bin/sh
# Fault-injection sweep of enabling VFs (issue 27 item 2; Documentation/
# testing.rst, "Fault-injection sweeps"). With the PF bound and its SR-IOV
# capability visible (the test-only shim), writing 2 to sriov_numvfs runs
# the driver's sriov_configure in this shell's task: provisioning (GGTT,
# contexts, doorbells, LMTT leaves, each VF's memory cleared by the copy
# engine), the configurations pushed to the GuC, then the PCI core's
# pci_enable_sriov adding the VFs. lib.sh fault_sweep fails its 1st, 2nd,
# ... Nth fault-injectable call (failslab and fail_page_alloc through the
# task's fail-nth) until the write finishes with nothing injected, which
# must enable both VFs. After each injected failure: no detector report in
# the attempt's kernel log, the write failed and left no VF enabled, nothing
# provisioned and no virtfn link (a write a fallback let succeed is undone
# by writing 0, which must work), and the GuC still answers (a CT ping).
# The mock's isolation checker walks the GGTT, LMTT and ID runs after every
# change; at the end no VF configuration is left at the GuC and the VFs'
# memory was all cleared. kmemleak scans after the boot's last scenario.
# Each failure point is a diagnostic line (lib.sh fault_sweep: the count
# moves between runs, so the floor does not keep it); FAULT_MIN is the
# least this scenario accepts. Sampled (deterministic): every N up to
# FAULT_ALL, then every FAULT_STEP-th (Documentation/testing.rst,
# "Fault-injection sweeps"); the sweep measured 14 points, so today every N
# runs, and the sample only bounds the time if the path grows.
# debug-only: per-task fail-nth with failslab and fail_page_alloc exists in the debug kernel only
# guest-module: sriov-shim
# timeout: 300
# expect-mock: sriov.isolation_violations == 0
# expect-mock: sriov.isolation_kinds.lmem_not_cleared == 0
# expect-mock: sriov.vfs_configured == 0
# expect-mock: bus_master_clears_guc_running == 0
# expect-mock: guc_running_at_exit == false
# expect-mock: violations == 0
. /tests/lib.sh

# Failure points the sweep must find at least: 14 were measured
# (Documentation/testing.rst).
FAULT_MIN=10
# The sample: every N to FAULT_ALL, then every FAULT_STEP-th.
FAULT_ALL=24
FAULT_STEP=12

dev=$(gpu_dev 0x56c0)
bdf=${dev##*/}
check sriov_visible "$bdf"
echo 0 >"$dev/sriov_drivers_autoprobe"
# The PCI core's creation of a VF does not survive a failed allocation
# (lib.sh fault_setup): pci_iov_add_virtfn is left out, the driver's
# provisioning and the rest of sriov_enable are swept.
check fault_setup pci_iov_add_virtfn

# nothing_enabled: the state before an enable (fault_sweep's CLEAN).
nothing_enabled() {
	read -r _nv <"$dev/sriov_numvfs"
	[ "$_nv" = 0 ] || fault_why="$fault_why; sriov_numvfs reads $_nv"
	[ -e "$dev/virtfn0" ] && fault_why="$fault_why; a VF is left on the bus"
	_pv=$(sriov_get "$bdf" provisioned)
	[ "$_pv" = 0 ] || fault_why="$fault_why; $_pv VF(s) left provisioned"
	ct_cmd "$bdf" "ping 1" || fault_why="$fault_why; the GuC does not answer a CT ping"
}

# disable_vfs: gives back VFs a write enabled despite the injected failure
# (fault_sweep's UNDO).
disable_vfs() { numvfs "$bdf" 0 || fault_why="$fault_why; disabling the VFs failed"; }

fault_sweep fault-sriov-numvfs "$dev/sriov_numvfs" 2 nothing_enabled disable_vfs
fault_report fault-sriov-numvfs "$FAULT_MIN"

# The write with nothing injected enabled both VFs; they go again cleanly.
expect_eq "write with nothing injected" "$fault_rc" 0
expect_eq "2 VFs enabled" "$(cat "$dev/sriov_numvfs")" 2
expect_eq "2 VFs provisioned" "$(sriov_get "$bdf" provisioned)" 2
mock_request vf:check
check numvfs "$bdf" 0
expect_eq "none provisioned after disable" "$(sriov_get "$bdf" provisioned)" 0
fault_teardown
check rmmod xehpg
check sriov_shim_unload "$bdf"
check_dmesg_clean
done_testing
