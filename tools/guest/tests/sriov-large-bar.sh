#!/bin/sh
# An ATS-M whose local memory is all CPU-visible (a 2 GiB BAR onto 2 GiB, as
# with resizable BAR on a Flex server; issue 28): the PF keeps 256 MiB of it
# for its own objects and the VFs get the rest, inside the BAR, as upstream
# takes VF memory from all of VRAM whatever the BAR's size. Two VFs are
# enabled, each with local memory past the PF's 256 MiB, cleared by the copy
# engine and isolated (the mock's checker), each 256 MiB (upstream's profile:
# 1 GiB shareable over the PF and two VFs, a power of two), the PF's engines
# still run work,
# and the VFs are disabled and the driver unbinds cleanly.
# guest-module: sriov-shim
# mock-args: --lmem-size-gib 2 --lmem-bar-mib 2048
# expect-mock: sriov.isolation_violations == 0
# expect-mock: sriov.isolation_kinds.lmem_not_cleared == 0
# expect-mock: sriov.vf_cfg_resets == 2
# expect-mock: sriov.vfs_configured == 0
# expect-mock: violations == 0
# expect-mock: unknown_accesses == 0
. /tests/lib.sh

dev=$(gpu_dev 0x56c0)
bdf=${dev##*/}

check sriov_visible "$bdf"
expect_eq "sriov_totalvfs" "$(cat "$dev/sriov_totalvfs")" 63
expect_eq "the PF's pool: its 256 MiB" "$(sriov_get "$bdf" lmem_pool)" 0x0-0x10000000
vf=$(sriov_get "$bdf" lmem_vf)
expect_eq "the VFs' memory starts past the PF's" "${vf%-*}" 0x10000000
check test "$((${vf#*-}))" -gt "$((0x60000000))"
check test "$((${vf#*-}))" -le "$((0x80000000))"
echo 0 >"$dev/sriov_drivers_autoprobe"
check numvfs "$bdf" 2
for n in 1 2; do
	runs=$(sriov_vf "$bdf" $n lmem)
	diag "VF$n lmem $runs"
	expect_eq "VF$n's share" "$(runs_bytes "$runs")" "$((256 << 20))"
	check test "$((${runs%%-*}))" -ge "$((0x10000000))"
done
check submit_cmd "$bdf" "rcs0 10"
submit_ok "$bdf" rcs0 10
check numvfs "$bdf" 0
expect_eq "nothing provisioned" "$(sriov_get "$bdf" provisioned)" 0
check sriov_shim_unload "$bdf"
check wait_until 10 is_bound "$bdf"
check rmmod xehpg
check_dmesg_clean
done_testing
