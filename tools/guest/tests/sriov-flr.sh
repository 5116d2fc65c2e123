#!/bin/sh
# VF FLR, VF control and the SR-IOV fault switches (issue 13), 7 VFs enabled
# through the shim. The GuC reports VF3 in FLR (vf:flr:3, the mock's stand-in
# for a host FLR of the VF); the driver's work item sends FLR_START, waits for
# the GuC's VF_FLR_DONE, stamps VF3's GGTT range again and sends FLR_FINISH;
# no other VF's share moves; VF3's local memory, dirtied first (lmem:dirty, a
# test hook, which dirties its flat-CCS metadata too), is cleared by the copy
# engine, metadata included, before FLR_FINISH (the mock's isolation checker
# looks at it then: lmem_not_cleared, ccs_not_cleared). VF3's MMIO message
# registers hold its last exchange (vf:scratch:3) and the hardware skips its
# reset of them (vf:keep-regs:1): the PF zeroes them through its view of the
# VF before FLR_FINISH (vf_regs_not_cleared otherwise). A GuC that never finishes (guc:flr-stuck:1) is
# reported after 500 ms and the VF left failed until its next FLR, which then
# completes; debugfs reads the VF waiting meanwhile (the PF's mutex is not held
# across the wait). A notification for a VF that does not exist
# (guc:bogus-vf-notify:1) is refused and counted. An adverse-event threshold
# set from debugfs makes the GuC report the VF past it (vf:adverse); bogus
# adverse events (g2h:event) and a threshold the GuC refuses are errors that
# change nothing. A refused configuration
# (guc:refuse-vf-cfg:1) fails the sriov_numvfs write and leaves nothing
# provisioned, as does a copy engine that hangs while a VF's memory is cleared
# (engine:hang:bcs0). VF control from debugfs: pause and resume; a resume the GuC
# refuses (the VF is not paused) is an error, not a state change; garbage is
# EINVAL. Finally the PF is removed with VFs enabled: they are disabled before
# their shares go.
# guest-module: sriov-shim
# expect-violation: guc_sriov_bad
# Exactly one violation, and it is that kind: the RESUME of a VF that is not
# paused (INVALID_STATE). The two `guc:refuse-vf-cfg` refusals are the
# switch's, no violation; together the three are `sriov.refused`.
# expect-mock: violations == 1
# expect-mock: violation_kinds.guc_sriov_bad == 1
# expect-mock: sriov.refused == 3
# expect-mock: sriov.isolation_violations == 0
# expect-mock: sriov.lmtt_stale == 0
# expect-mock: sriov.isolation_kinds.lmem_not_cleared == 0
# expect-mock: sriov.isolation_kinds.ccs_not_cleared == 0
# expect-mock: sriov.isolation_kinds.vf_regs_not_cleared == 0
# expect-mock: sriov.vf_regs_kept == 1
# expect-mock: sriov.adverse_sent == 1
# expect-mock: sriov.adverse_not_reported == 1
# Each disable resets every VF the GuC has a configuration for first
# (upstream's pf_reset_vfs): FLRs the PF starts, each clearing the VF's four
# message registers. Two FLRs of the GuC's reports finish here, and ten of
# the PF's (the 7 VFs of the first disable, the 2 of a later one, and VF2 of
# the last, whose VF1 the GuC never finishes), 12 in all; 4 register writes
# each.
# expect-mock: sriov.vf_regs_pf_writes == 48
# expect-mock: sriov.flr_finished == 12
# expect-mock: sriov.paused == 1
# expect-mock: sriov.vfs_configured == 0
# timeout: 240
. /tests/lib.sh

dev=$(gpu_dev 0x56c0)
bdf=${dev##*/}
sriov=$DBG/$bdf/sriov
# Its commands (the report above is read only).
sriov_ctl=$DBG/$bdf/sriov_ctl

check sriov_visible "$bdf"
echo 0 >"$dev/sriov_drivers_autoprobe"
check numvfs "$bdf" 7
before=$(grep -v '^vf3:' "$sriov" | grep '^vf')

# What VF3's tenant left: the first page of its first run and the last of
# its last.
vf3=$(sriov_vf "$bdf" 3 lmem)
first=${vf3%%,*}
last=${vf3##*,}
mock_request "lmem:dirty:${first%-*}:1000"
mock_request "lmem:dirty:$(printf %x $((${last#*-} - 0x1000))):1000"
mock_request vf:scratch:3
mock_request vf:keep-regs:1
mock_request vf:flr:3
check wait_until 10 dmesg_has "sriov: VF3: FLR complete"
expect_eq "one FLR done" "$(sriov_get "$bdf" flr_done)" 1
expect_eq "VF3 idle again" "$(sriov_vf "$bdf" 3 flr)" Idle
expect_eq "the other VFs untouched" "$(grep -v '^vf3:' "$sriov" | grep '^vf')" "$before"

mock_request guc:flr-stuck:1
mock_request vf:flr:5
# The PF's mutex is not held while the FLR waits for the GuC (Pf::flr): debugfs
# `sriov` reads VF5 waiting during those 500 ms. With the mutex held the read
# blocks until the FLR has failed and the first state it sees is Failed.
seen=Idle
tries=0
while [ "$seen" = Idle ] && [ "$tries" -lt 500 ]; do
	seen=$(sriov_vf "$bdf" 5 flr)
	tries=$((tries + 1))
done
expect_eq "VF5 seen waiting for the GuC" "$seen" WaitGuc
check wait_until 10 dmesg_has "sriov: VF5: FLR: no VF_FLR_DONE from the GuC within 500 ms"
expect_eq "VF5 failed" "$(sriov_vf "$bdf" 5 flr)" Failed
expect_eq "one FLR failed" "$(sriov_get "$bdf" flr_failed)" 1
mock_request vf:flr:5
check wait_until 10 dmesg_has "sriov: VF5: FLR complete"
expect_eq "VF5 idle after its next FLR" "$(sriov_vf "$bdf" 5 flr)" Idle
expect_eq "both FLRs followed the table" "$(sriov_get "$bdf" flr_bad_transitions)" 0
# A VF_FLR_DONE for VF3, which is in no FLR (GUC2PF_VF_STATE_NOTIFY {3,
# FLR_DONE}): the table (Flr::on) refuses it; counted, VF3 stays Idle and no
# FLR_FINISH goes out (flr_finished stays 2).
mock_request g2h:event:5106:3:2
check wait_until 10 dmesg_has "sriov: VF3: VF_FLR_DONE without an FLR in progress; ignored"
check wait_until 10 dmesg_has "sriov: VF3: FLR: GucDone is out of order in state Idle; refused"
expect_eq "the stray DONE counted" "$(sriov_get "$bdf" flr_bad_transitions)" 1
expect_eq "VF3 still idle" "$(sriov_vf "$bdf" 3 flr)" Idle

mock_request guc:bogus-vf-notify:1
check wait_until 10 dmesg_has "sriov: VF state notification NoSuchVf(64) refused (7 VFs provisioned)"
expect_eq "bad notice counted" "$(sriov_get "$bdf" bad_notices)" 1

check sh -c "echo 'vf2 pause' >$sriov_ctl"
check sh -c "echo 'vf2 resume' >$sriov_ctl"
check not sh -c "echo 'vf2 resume' >$sriov_ctl"
check dmesg_has "guc: CT request 0x5506"
check not sh -c "echo 'vf9 pause' >$sriov_ctl"
for junk in "vf2 dance" "provision" "provision x" "vf pause" "unprovision 3" "zzz"; do
	check not sh -c "echo '$junk' >$sriov_ctl"
done
expect_eq "still 7 provisioned" "$(sriov_get "$bdf" provisioned)" 7

# Adverse events: VF2's CAT-error threshold set through debugfs (pushed at once,
# one KLV); the GuC reports VF2 past it (vf:adverse) but not VF4, which has
# none (seed 003: 0 is not reported); reports naming no enabled VF or no
# threshold are refused and counted.
check sh -c "echo 'vf2 threshold cat_error_count 3' >$sriov_ctl"
expect_eq "VF2's thresholds" "$(sriov_vf "$bdf" 2 thresholds)" 3,0,0,0,0,0
mock_request vf:adverse:2:8a03
check wait_until 10 dmesg_has "sriov: VF2: past its cat_error_count threshold (the GuC's report 1)"
mock_request vf:adverse:4:8a03
expect_eq "VF2's adverse events" "$(sriov_vf "$bdf" 2 adverse)" 1,0,0,0,0,0
expect_eq "none for VF4" "$(sriov_vf "$bdf" 4 adverse)" 0,0,0,0,0,0
mock_request g2h:event:5104:40:8a03
check wait_until 10 dmesg_has "sriov: adverse event NoSuchVf(64) refused (7 VFs provisioned)"
mock_request g2h:event:5104:2:8a01
check wait_until 10 dmesg_has "sriov: adverse event NotAThreshold { vf: 2, key: 35329 } refused"
expect_eq "adverse events counted" "$(sriov_get "$bdf" adverse_events)" 1
expect_eq "bad notices counted" "$(sriov_get "$bdf" bad_notices)" 3
for junk in "vf2 threshold nope 1" "vf2 threshold cat_error_count x" \
	"vf9 threshold cat_error_count 1" "vf2 threshold cat_error_count 1 2" \
	"vf2 threshold" "vf0 threshold cat_error_count 1"; do
	check not sh -c "echo '$junk' >$sriov_ctl"
done
expect_eq "VF2's thresholds kept" "$(sriov_vf "$bdf" 2 thresholds)" 3,0,0,0,0,0
# A threshold the GuC refuses is an error and is not recorded.
mock_request guc:refuse-vf-cfg:1
check not sh -c "echo 'vf2 threshold cat_error_count 5' >$sriov_ctl"
check dmesg_has "sriov: VF2: setting a threshold failed at PF2GUC_UPDATE_VF_CFG"
expect_eq "VF2's thresholds after the refusal" "$(sriov_vf "$bdf" 2 thresholds)" 3,0,0,0,0,0

# The copy engine hangs while VF4's memory is cleared for its FLR. The PF's
# mutex is not held across the clear (Pf::flr marks the VF `cleaning`): debugfs
# `sriov` reads VF4 in Cleanup meanwhile. With the mutex held the read blocks
# until the clear has failed and the first state after WaitGuc it sees is
# Failed. Disabling the VFs then waits for the mark (Pf::settle) and gives
# every VF back.
mock_request engine:hang:bcs0
mock_request vf:flr:4
seen=Idle
tries=0
while [ "$seen" != Cleanup ] && [ "$seen" != Failed ] && [ "$tries" -lt 2000 ]; do
	seen=$(sriov_vf "$bdf" 4 flr)
	tries=$((tries + 1))
done
expect_eq "VF4 seen while its memory is cleared" "$seen" Cleanup
check numvfs "$bdf" 0
check dmesg_has "sriov: VF4: FLR failed at local memory clear"
expect_eq "two FLRs failed" "$(sriov_get "$bdf" flr_failed)" 2
expect_eq "nothing provisioned after the give-back" "$(sriov_get "$bdf" provisioned)" 0
mock_request guc:refuse-vf-cfg:1
check not numvfs "$bdf" 2
check dmesg_has "sriov: provisioning 2 VF(s) failed at PF2GUC_UPDATE_VF_CFG: -5; nothing kept"
expect_eq "nothing provisioned after the refusal" "$(sriov_get "$bdf" provisioned)" 0
expect_eq "no VF enabled" "$(cat "$dev/sriov_numvfs")" 0
check numvfs "$bdf" 2

# The copy engine hangs while a VF's memory is cleared: that enable fails at
# the clear, keeps nothing, and the engine is recovered for the next one.
check numvfs "$bdf" 0
mock_request engine:hang:bcs0
# The enable runs in the background: while its clear hangs, the PF's mutex is
# free and the VFs are listed but not yet pushed to the GuC. An FLR notice for
# VF1 then is refused and counted (the receive path: no VF is enabled yet), a
# debugfs command for it too (Pf::control: ENOENT).
(echo 2 >"$dev/sriov_numvfs") 2>/dev/null &
enable=$!
tries=0
while [ "$(sriov_get "$bdf" provisioned)" != 2 ] && [ "$tries" -lt 2000 ]; do
	tries=$((tries + 1))
done
expect_eq "two VFs listed while their memory is cleared" "$(sriov_get "$bdf" provisioned)" 2
expect_eq "owned by nobody yet" "$(sriov_get "$bdf" by)" -
mock_request vf:flr:1
check wait_until 10 dmesg_has "sriov: VF state notification NoSuchVf(1) refused (0 VFs provisioned)"
expect_eq "the early FLR notice counted" "$(sriov_get "$bdf" bad_notices)" 4
check not sh -c "echo 'vf1 pause' >$sriov_ctl"
check not wait "$enable"
check dmesg_has "sriov: provisioning 2 VF(s) failed at local memory clear"
expect_eq "nothing provisioned after the hang" "$(sriov_get "$bdf" provisioned)" 0
check numvfs "$bdf" 2

# The GuC never finishes the reset of VF1 at the next disable
# (guc:flr-stuck:1): that reset fails after 500 ms, logged, VF2's still runs,
# and every share goes back all the same; the VFs come back on the next
# enable.
mock_request guc:flr-stuck:1
check numvfs "$bdf" 0
check dmesg_has "sriov: VF1: FLR: no VF_FLR_DONE from the GuC within 500 ms"
expect_eq "three FLRs failed" "$(sriov_get "$bdf" flr_failed)" 3
expect_eq "nothing provisioned after the stuck reset" "$(sriov_get "$bdf" provisioned)" 0
check numvfs "$bdf" 2
expect_eq "VF1 idle again" "$(sriov_vf "$bdf" 1 flr)" Idle

# The PF goes with 2 VFs enabled: unbind disables them, then gives back.
check sriov_shim_unload "$bdf"
check wait_until 10 is_bound "$bdf"
check not test -e "$dev/sriov_totalvfs"
check_dmesg_clean
done_testing
