#!/bin/sh
# How many VFs the PF offers (issue 28): `max_vfs` as upstream xe's module
# parameter. 0 keeps SR-IOV off: the PF is not set up and sriov_totalvfs
# reads 0 (upstream lowers it when the PF cannot run VFs, xe_sriov.c), so the
# PCI core refuses any count (ERANGE) before the driver is asked, while the
# device still runs work. 2 offers two: three are refused, two are enabled.
# Each unbind gives sriov_totalvfs the capability's 63 back (the PCI core's
# pci_iov_remove, and the driver's guard on a failed probe).
# guest-module: sriov-shim
# expect-mock: sriov.isolation_violations == 0
# expect-mock: sriov.vfs_configured == 0
# expect-mock: violations == 0
# expect-mock: unknown_accesses == 0
. /tests/lib.sh

dev=$(gpu_dev 0x56c0)
bdf=${dev##*/}
totalvfs() { cat "$dev/sriov_totalvfs"; }

check sriov_visible "$bdf"
echo 0 >"$dev/sriov_drivers_autoprobe"
expect_eq "the default offers 63" "$(totalvfs)" 63

check reload max_vfs=0
check wait_until 10 is_bound "$bdf"
check dmesg_has "sriov: VFs off (max_vfs=0)"
expect_eq "max_vfs=0: none offered" "$(totalvfs)" 0
expect_eq "debugfs sriov" "$(cat "$DBG/$bdf/sriov")" "not an SR-IOV PF"
check not numvfs "$bdf" 1
expect_eq "no VF enabled" "$(cat "$dev/sriov_numvfs")" 0
check submit_cmd "$bdf" "rcs0 10"
submit_ok "$bdf" rcs0 10

check reload max_vfs=2
check wait_until 10 is_bound "$bdf"
expect_eq "max_vfs=2: two offered" "$(totalvfs)" 2
expect_eq "the PF's own limit" "$(sriov_get "$bdf" total_vfs)" 2
check not numvfs "$bdf" 3
check numvfs "$bdf" 2
expect_eq "two provisioned" "$(sriov_get "$bdf" provisioned)" 2
check numvfs "$bdf" 0

check rmmod xehpg
expect_eq "unbound: the capability's 63 again" "$(totalvfs)" 63
check reload
check wait_until 10 is_bound "$bdf"
expect_eq "default again" "$(totalvfs)" 63
check sriov_shim_unload "$bdf"
check wait_until 10 is_bound "$bdf"
check rmmod xehpg
check_dmesg_clean
done_testing
