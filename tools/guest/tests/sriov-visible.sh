#!/bin/sh
# SR-IOV becomes visible through the test-only guest shim (issue 13, guest
# side; Documentation/sriov.rst "Guest shim"). QEMU hides the mock PF's SR-IOV
# capability, so without the shim the PCI core makes no sriov_* files. With
# xehpg_sriov_shim loaded and the PF removed and rescanned, the PCI core
# parses the mock's capability: TotalVFs 63, VF offset/stride 1/1, VF device
# 0x56c0, both VF BARs sized and assigned. Writing sriov_numvfs above TotalVFs
# is refused by the PCI core with ERANGE, and without a driver bound with
# ENOENT (drivers/pci/iov.c, sriov_numvfs_store; enabling VFs through the
# driver is sriov-enable's), and the mock records no SR-IOV rule broken (its
# violations fail "mock clean"). The
# shim refuses a device without the mock's window and a malformed address.
# Unloading the shim restores QEMU's view after another remove and rescan.
# guest-module: sriov-shim
# expect-mock: config_writes > 0
. /tests/lib.sh

dev=$(gpu_dev 0x56c0)
bdf=${dev##*/}
shim=/lib/modules/xehpg_sriov_shim.ko

# cfg_dword OFFSET: the PF's config dword at decimal OFFSET as the guest sees it.
cfg_dword() { hexdump -s "$1" -n 4 -e '1/4 "%08x"' "$dev/config"; }

# rescan_pf: remove the PF and rescan, so the PCI core parses it again; waits
# for the driver to bind again.
rescan_pf() {
	echo 1 >"$dev/remove" && echo 1 >/sys/bus/pci/rescan && wait_until 10 is_bound "$bdf"
}

check is_bound "$bdf"
check not test -e "$dev/sriov_totalvfs"
expect_eq "dword at 0x100 before the shim (QEMU hides the header)" "$(cfg_dword 256)" "00000000"

# The shim leaves anything but the mock alone: a device without the mock's
# config window (the LPC bridge) and a malformed address are refused.
check not insmod "$shim" "pf=0000:00:1f.0"
check dmesg_has "xehpg_sriov_shim: 0000:00:1f.0 has no mock config window"
check not insmod "$shim" "pf=00:01"
check dmesg_has "xehpg_sriov_shim: pf=00:01 is not DDDD:BB:DD.F"
check not test -d /sys/module/xehpg_sriov_shim
check insmod "$shim" "pf=$bdf"
check dmesg_has "xehpg_sriov_shim: $bdf: SR-IOV visible, TotalVFs 63, VF offset 1 stride 1"
check rescan_pf
expect_eq "dword at 0x100 with the shim (SR-IOV, version 1, last)" "$(cfg_dword 256)" "00010010"
expect_eq "sriov_totalvfs" "$(cat "$dev/sriov_totalvfs" 2>&1)" "63"
expect_eq "sriov_numvfs" "$(cat "$dev/sriov_numvfs" 2>&1)" "0"
expect_eq "sriov_offset" "$(cat "$dev/sriov_offset" 2>&1)" "1"
expect_eq "sriov_stride" "$(cat "$dev/sriov_stride" 2>&1)" "1"
expect_eq "sriov_vf_device" "$(cat "$dev/sriov_vf_device" 2>&1)" "56c0"
check dmesg_has "$bdf: VF BAR 0 [mem 0x00000000-0x3effffff 64bit]: contains BAR 0 for 63 VFs"
check dmesg_has "$bdf: VF BAR 2 [mem 0x00000000-0xfbffffff 64bit pref]: contains BAR 2 for 63 VFs"
# vf_bar_assigned N: the PCI core found room for VF BAR N of all 63 VFs.
vf_bar_assigned() { dmesg | grep -q "$bdf: VF BAR $1 \[mem 0x[0-9a-f]*-0x[0-9a-f]* .*\]: assigned"; }
check vf_bar_assigned 0
check vf_bar_assigned 2
expect_eq "platform after the rescan" "$(info_get "$bdf" platform)" "ATS-M150"

err=$( (echo 64 >"$dev/sriov_numvfs") 2>&1)
case $err in
*"out of range"*) ok "sriov_numvfs=64 refused with ERANGE" ;;
*) not_ok "sriov_numvfs=64 refused with ERANGE" "got: '$err'" ;;
esac
expect_eq "sriov_numvfs after the refusals" "$(cat "$dev/sriov_numvfs")" "0"
check is_bound "$bdf"
# Unbound, the PCI core refuses before asking any driver.
echo "$bdf" >/sys/bus/pci/drivers/xehpg/unbind
check not is_bound "$bdf"
err=$( (echo 1 >"$dev/sriov_numvfs") 2>&1)
case $err in
*"No such file or directory"*) ok "sriov_numvfs=1 without a driver refused with ENOENT" ;;
*) not_ok "sriov_numvfs=1 without a driver refused with ENOENT" "got: '$err'" ;;
esac
check dmesg_has "$bdf: no driver bound to device; cannot configure SR-IOV"
echo "$bdf" >/sys/bus/pci/drivers/xehpg/bind
check is_bound "$bdf"

# Unload: the original accessors come back; after another rescan the PCI core
# sees what QEMU shows, no SR-IOV.
check rmmod xehpg_sriov_shim
check dmesg_has "xehpg_sriov_shim: $bdf: original config accessors restored"
check rescan_pf
check not test -e "$dev/sriov_totalvfs"
expect_eq "dword at 0x100 after the shim" "$(cfg_dword 256)" "00000000"
expect_eq "platform after the last rescan" "$(info_get "$bdf" platform)" "ATS-M150"

check_dmesg_clean
done_testing
