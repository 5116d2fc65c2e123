#!/bin/sh
# An ATS-M whose local memory is all CPU-visible (a 1 GiB BAR onto 1 GiB) has
# none left to give VFs: the PF setup fails at probe with a message naming
# why, the device binds and works without VFs (requests on rcs0
# complete), sriov_numvfs is refused with ENODEV and a message that says the
# PF could not be set up (not that the part lacks SR-IOV), debugfs sriov says
# it is not a PF, and the driver unbinds cleanly.
# guest-module: sriov-shim
# mock-args: --lmem-size-gib 1 --lmem-bar-mib 1024
# expect-mock: sriov.vf_cfg_updates == 0
. /tests/lib.sh

dev=$(gpu_dev 0x56c0)
bdf=${dev##*/}

check sriov_visible "$bdf"
check dmesg_has "sriov: no local memory beyond the CPU-visible part for VFs"
check dmesg_has "sriov: PF setup failed: -28; VFs stay off"
expect_eq "debugfs sriov" "$(cat "$DBG/$bdf/sriov")" "not an SR-IOV PF"
echo 0 >"$dev/sriov_drivers_autoprobe"
check not numvfs "$bdf" 1
check dmesg_has "sriov: 1 VF(s) asked for, but the PF could not be set up at probe"
expect_eq "no VF enabled" "$(cat "$dev/sriov_numvfs")" 0
check submit_cmd "$bdf" "rcs0 10"
submit_ok "$bdf" rcs0 10
check sriov_shim_unload "$bdf"
check wait_until 10 is_bound "$bdf"
check rmmod xehpg
check_dmesg_clean
done_testing
