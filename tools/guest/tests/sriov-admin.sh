#!/bin/sh
# Manual per-VF settings in sysfs, in the layout of upstream xe's SR-IOV
# admin interface (sriov_admin/.bulk_profile, sriov_admin/vfN/profile with
# exec_quantum_ms, preempt_timeout_us, sched_priority, vram_quota). They are
# the next enable's: defaults shown until set, a value outside its key's range
# (seed 003) or not a value refused with the file unchanged, writes refused
# while VFs are enabled. The next enable pushes them: VF2's quantum, priority
# (sent as SCHED_PRIORITY only when not low, as upstream) and local memory;
# the bulk profile's preemption timeout for every VF. A quota that cannot fit
# beside the other VFs' shares fails the enable (ENOSPC at that VF's local
# memory) and leaves nothing provisioned. Then quotas that give VF2 pages
# in two runs: each VF gets exactly its quota, mapped and cleared.
# guest-module: sriov-shim
# expect-mock: sriov.isolation_violations == 0
# expect-mock: sriov.vf_cfg_updates >= 6
# expect-mock: violations == 0
# timeout: 180
. /tests/lib.sh

dev=$(gpu_dev 0x56c0)
bdf=${dev##*/}
adm=$dev/sriov_admin

# try_write FILE VALUE: the write's error text, empty on success.
try_write() { (echo "$2" >"$1") 2>&1 | sed 's/^.*: //'; }

check sriov_visible "$bdf"
echo 0 >"$dev/sriov_drivers_autoprobe"
check test -d "$adm/.bulk_profile"
expect_eq "one directory per VF" "$(ls -d "$adm"/vf* | wc -l)" 63
p2=$adm/vf2/profile
expect_eq "default quantum" "$(cat "$p2/exec_quantum_ms")" 16
expect_eq "default timeout" "$(cat "$p2/preempt_timeout_us")" 16000
expect_eq "default priority" "$(cat "$p2/sched_priority")" "[low] normal high"
expect_eq "default quota: fair share" "$(cat "$p2/vram_quota")" 0

expect_eq "quantum 50" "$(try_write "$p2/exec_quantum_ms" 50)" ""
expect_eq "priority high" "$(try_write "$p2/sched_priority" high)" ""
expect_eq "quota 256 MiB" "$(try_write "$p2/vram_quota" 268435456)" ""
expect_eq "bulk timeout" "$(try_write "$adm/.bulk_profile/preempt_timeout_us" 20000)" ""
expect_eq "VF2 quantum" "$(cat "$p2/exec_quantum_ms")" 50
expect_eq "VF2 priority" "$(cat "$p2/sched_priority")" "low normal [high]"
expect_eq "VF63 timeout from bulk" "$(cat "$adm/vf63/profile/preempt_timeout_us")" 20000

expect_eq "quantum above 100 s" "$(try_write "$p2/exec_quantum_ms" 100001)" "Numerical result out of range"
expect_eq "timeout above 100 s" "$(try_write "$p2/preempt_timeout_us" 100000001)" "Numerical result out of range"
expect_eq "quantum not a number" "$(try_write "$p2/exec_quantum_ms" fast)" "Invalid argument"
expect_eq "priority unknown" "$(try_write "$p2/sched_priority" urgent)" "Invalid argument"
expect_eq "quota not 2 MiB pages" "$(try_write "$p2/vram_quota" 3145728)" "Invalid argument"
expect_eq "quota beyond local memory" "$(try_write "$p2/vram_quota" 1099511627776)" "Numerical result out of range"
expect_eq "VF2 quantum unchanged" "$(cat "$p2/exec_quantum_ms")" 50

# A quota that fits alone but not beside the others' fair shares: the
# enable fails at VF3's local memory, nothing stays provisioned.
lmem_vf=$(sriov_get "$bdf" lmem_vf)
big=$(( (${lmem_vf#*-} - ${lmem_vf%-*}) / 2097152 * 2097152 ))
expect_eq "VF3 quota: the whole VF region" "$(try_write "$adm/vf3/profile/vram_quota" $big)" ""
check not numvfs "$bdf" 3
check dmesg_has "sriov: VF3: provisioning failed at local memory: -28"
expect_eq "nothing provisioned after the refusal" "$(sriov_get "$bdf" provisioned)" 0
expect_eq "no VF enabled" "$(cat "$dev/sriov_numvfs")" 0
expect_eq "VF3 back to the fair share" "$(try_write "$adm/vf3/profile/vram_quota" 0)" ""

check numvfs "$bdf" 3
expect_eq "VF2 pushed with its quantum" "$(sriov_vf "$bdf" 2 eq_ms)" 50
expect_eq "VF2 pushed with high priority" "$(sriov_vf "$bdf" 2 priority)" 2
expect_eq "VF1 pushed with the default quantum" "$(sriov_vf "$bdf" 1 eq_ms)" 16
expect_eq "every VF with the bulk timeout" "$(for v in 1 2 3; do sriov_vf "$bdf" $v pt_us; done | sort -u)" 20000
lmem=$(sriov_vf "$bdf" 2 lmem)
expect_eq "VF2 local memory is its quota" "$(runs_bytes "$lmem")" 268435456
expect_eq "settings are the next enable's" "$(try_write "$p2/exec_quantum_ms" 20)" "Device or resource busy"
check numvfs "$bdf" 0
expect_eq "writable again once disabled" "$(try_write "$p2/exec_quantum_ms" 20)" ""

# Quotas that make a VF's pages not touch: the buddy splits VF1's 2 MiB off
# the top of a larger block, leaving 2, 4, 8 MiB ... free below it; VF2's
# 10 MiB is an 8 MiB block from below those and the free 2 MiB next to VF1,
# and VF3's 4 MiB lands between VF2's two runs. Each VF still holds exactly
# its quota (the runs debugfs lists), its leaf maps every page below
# LMEM_SIZE and no page twice (the mock's lmtt_unmapped and lmtt_shared,
# isolation_violations == 0 above), and the copy engine cleared every run
# (lmem_not_cleared).
for q in "1 2" "2 10" "3 4"; do
	set -- $q
	expect_eq "VF$1 quota $2 MiB" "$(try_write "$adm/vf$1/profile/vram_quota" $(($2 << 20)))" ""
done
check numvfs "$bdf" 3
mock_request vf:check
runs=0
for q in "1 2" "2 10" "3 4"; do
	set -- $q
	l=$(sriov_vf "$bdf" "$1" lmem)
	diag "VF$1 lmem $l"
	expect_eq "VF$1 holds its $2 MiB" "$(runs_bytes "$l")" $(($2 << 20))
	runs=$((runs + $(echo "$l" | tr , '\n' | wc -l)))
done
# The buddy of 7.3 is deterministic: VF2 in two runs every time. Fewer runs
# would mean this no longer covers a VF whose pages do not touch.
expect_eq "VF2 in two runs" "$(sriov_vf "$bdf" 2 lmem | tr , '\n' | wc -l)" 2
expect_eq "four runs in all" "$runs" 4
check numvfs "$bdf" 0
for v in 1 2 3; do try_write "$adm/vf$v/profile/vram_quota" 0 >/dev/null; done
check rmmod xehpg
check sriov_shim_unload "$bdf"
check_dmesg_clean
done_testing
