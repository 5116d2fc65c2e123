#!/bin/sh
# SR-IOV PF provisioning end to end (issue 13), with the test-only shim making
# the mock PF's SR-IOV capability visible (Documentation/sriov.rst). Writing
# sriov_numvfs reaches the driver's sriov_configure (C glue): it gives each VF
# a fair share (GGTT range stamped with the VF, context and doorbell runs,
# local memory behind an LMTT leaf), pushes each configuration to the GuC in
# one PF2GUC_UPDATE_VF_CFG whose reply must count every KLV, then enables the
# VFs. 1, 7 and 63 VFs, each disabled again (configurations reset at the GuC,
# shares back), then 7 after 63. The mock's isolation checker walks the GGTT,
# the LMTT and the ID runs after every change and finds nothing shared.
# Each VF's local memory is cleared by the copy engine before its
# configuration goes to the GuC: the mock's record of XY_FAST_COLOR_BLT bytes
# covers every VF's share of every round, and memory dirtied beforehand
# (lmem:dirty, a test hook) is not what VF1 finds (lmem_not_cleared is an
# isolation finding); nor is the flat-CCS metadata the mock starts with
# (unknown until written) or lmem:dirty left (ccs_not_cleared).
# Then the PF removed with 2 VFs enabled, without writing 0 first (through its
# remove attribute, which holds the rescan-remove lock VF removal needs; a
# sysfs unbind does not, Documentation/sriov.rst "Known gaps"): the driver's
# teardown disables the VFs, then the PF resets their configurations at the
# GuC while the GuC still runs (its state drops in that order); the count of
# resets proves both (1 + 7 + 63 + 2 + 7). A rescan binds the driver again.
# Finally rmmod with the 7 VFs enabled: module exit disables them under the PCI
# rescan-remove lock (clean under lockdep), then the driver goes.
# VF drivers are kept off the VFs (sriov_drivers_autoprobe=0): their BARs have
# nothing behind them in this guest.
# guest-module: sriov-shim
# expect-mock: sriov.isolation_violations == 0
# expect-mock: sriov.isolation_kinds.ccs_not_cleared == 0
# expect-mock: sriov.vf_cfg_updates >= 78
# expect-mock: sriov.vfs_configured == 0
# expect-mock: sriov.vf_cfg_resets == 80
# expect-mock: sriov.isolation_kinds.lmem_not_cleared == 0
# Every LMTT change is followed by an invalidation the GuC reports done: one
# per VF provisioned and one per VF given back, 80 of each (issue 28).
# expect-mock: sriov.lmtt_invalidations == 160
# expect-mock: sriov.lmtt_stale == 0
# expect-mock: engines.bcs0.errors == 0
# expect-mock: violations == 0
# expect-mock: unknown_accesses == 0
# timeout: 300
# distro
. /tests/lib.sh

dev=$(gpu_dev 0x56c0)
bdf=${dev##*/}

check sriov_visible "$bdf"
expect_eq "PF: TotalVFs" "$(sriov_get "$bdf" total_vfs)" 63
expect_eq "nothing provisioned" "$(sriov_get "$bdf" provisioned)" 0
echo 0 >"$dev/sriov_drivers_autoprobe"

# A previous owner's data where the VFs' memory begins (right above the
# CPU-visible part, 256 MiB here) and past 4 GiB: VF1 of the first round
# gets both.
mock_request lmem:dirty:10000000:10000
mock_request lmem:dirty:100001000:3000

# vf_lmem_sum: the bytes of local memory the provisioned VFs hold.
vf_lmem_sum() {
	sum=0
	for r in $(sed -n 's/^vf[0-9]*: .* lmem \([^ ]*\) .*/\1/p' "$DBG/$bdf/sriov"); do
		sum=$((sum + $(runs_bytes "$r")))
	done
	echo "$sum"
}
cleared=0
for n in 1 7 63; do
	check numvfs "$bdf" "$n"
	cleared=$((cleared + $(vf_lmem_sum)))
	expect_eq "$n VF(s) enabled" "$(cat "$dev/sriov_numvfs")" "$n"
	expect_eq "$n VF(s) provisioned" "$(sriov_get "$bdf" provisioned)" "$n"
	expect_eq "by sriov_numvfs" "$(sriov_get "$bdf" by)" sriov_numvfs
	check test -e "$dev/virtfn$((n - 1))"
	check dmesg_has "sriov: $n VF(s) provisioned"
	mock_request vf:check
	# debugfs cannot take the VFs from under the PCI side.
	check not sh -c "echo unprovision >$DBG/$bdf/sriov_ctl"
	check numvfs "$bdf" 0
	expect_eq "none provisioned after disable" "$(sriov_get "$bdf" provisioned)" 0
	check not test -e "$dev/virtfn0"
done
diag "$(cat "$DBG/$bdf/sriov")"
check numvfs "$bdf" 2
cleared=$((cleared + $(vf_lmem_sum)))
echo 1 >"$dev/remove"
check not is_bound "$bdf"
check not test -e "$dev"
echo 1 >/sys/bus/pci/rescan
check wait_until 10 is_bound "$bdf"
check not test -e "$dev/virtfn0"
expect_eq "no VF after removal" "$(cat "$dev/sriov_numvfs")" 0
expect_eq "nothing provisioned after rebind" "$(sriov_get "$bdf" provisioned)" 0
# Shares are equal and fit: 7 VFs after 63 get the 7-VF profile again.
check numvfs "$bdf" 7
cleared=$((cleared + $(vf_lmem_sum)))
diag "$(grep '^vf' "$DBG/$bdf/sriov")"
# Every byte every VF was given went through the copy engine's fill.
check test "$cleared" -gt 0
mock_expect engines.bcs0.fill_bytes ">=" "$cleared"
# And their flat-CCS metadata, one byte per 256, zeroed after each fill.
mock_expect engines.bcs0.ccs_cleared_bytes ">=" "$((cleared / 256))"
expect_eq "VF7 has 8192 contexts" "$(sriov_vf "$bdf" 7 contexts | cut -d+ -f2)" 8192
expect_eq "VF7 has 32 doorbells" "$(sriov_vf "$bdf" 7 doorbells | cut -d+ -f2)" 32
check rmmod xehpg
check not test -e "$dev/virtfn0"
expect_eq "no VF after rmmod" "$(cat "$dev/sriov_numvfs")" 0
check sriov_shim_unload "$bdf"
check_dmesg_clean
done_testing
