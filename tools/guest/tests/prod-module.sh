#!/bin/sh
# The production module (build/module-prod/xehpg.ko, built without
# XEHPG_TEST; Documentation/debugfs.rst, "Production and test builds") on the
# mock ATS-M: it binds, boots the GuC and sets every engine the mock's fuses
# enable up for GuC submission; its debugfs directory holds exactly the
# production files (no `submit` selftest, `ct` read-only, no provisioning
# command); it has no `guc_doorbells` parameter (the kernel calls it unknown
# at insmod) and never arms or rings a
# doorbell (the mock counts none); 2 VFs enabled and disabled through
# sriov_numvfs reach the GuC as configurations (the mock's record), their
# memory cleared by the copy engine under SCHED_CONTEXT; unbind deregisters
# every context and leaves a clean log.
# module: production
# guest-module: sriov-shim
# expect-mock: guc_loads >= 2
# expect-mock: guc_submit.registrations >= 2
# expect-mock: guc_submit.registered == 0
# expect-mock: guc_submit.doorbell_allocs == 0
# expect-mock: guc_submit.doorbell_rings == 0
# expect-mock: guc_submit.unarmed_rings == 0
# expect-mock: sriov.vf_cfg_updates >= 2
# expect-mock: sriov.vfs_configured == 0
# expect-mock: sriov.isolation_violations == 0
# expect-mock: engines.gtt_faults == 0
# expect-mock: violations == 0
# expect-mock: unknown_accesses == 0
# timeout: 300
. /tests/lib.sh

dev=$(gpu_dev 0x56c0)
bdf=${dev##*/}
check is_bound "$bdf"
expect_eq "GuC status" "$(guc_get "$bdf" status)" running
mock_engines_driven "$bdf"
n=$(echo $engines | wc -w)
for e in $engines; do
	expect_eq "$e: GuC mode" "$(eng_get "$bdf" "$e" mode)" guc
	expect_eq "$e: idle" "$(eng_get "$bdf" "$e" state)" idle
done
# Each present engine's kernel context was registered with the GuC at probe.
mock_expect guc_submit.registrations ">=" "$n"

# The production debugfs list, exactly (sorted).
expect_eq "debugfs files" "$(ls "$DBG/$bdf" | tr '\n' ' ')" \
	"ct engines forcewake forcewake_all forcewake_all_ctl gt_reset gt_reset_ctl guc_info guc_log hwconfig info irq irq_ctl mcr mcr_ctl mmio_stats sriov sriov_ctl steering topology "
check not test -e "$DBG/$bdf/submit"
check not test -e "$DBG/$bdf/ct_ctl"
# mode: the file's permission bits as ls prints them.
mode() { ls -l "$DBG/$bdf/$1" | cut -c1-10; }
# Reports have no write bit and commands no read bit, so lockdown lets every
# report be read (Documentation/debugfs.rst, "Under lockdown").
for f in ct sriov gt_reset irq mcr forcewake_all guc_log; do
	expect_eq "$f is read-only" "$(mode $f)" -r--------
done
for f in sriov_ctl gt_reset_ctl irq_ctl mcr_ctl forcewake_all_ctl; do
	expect_eq "$f is write-only" "$(mode $f)" --w-------
done
# Test-only commands are refused; the CT report has no load line.
check not sh -c "echo 'ping 1' >$DBG/$bdf/ct_ctl"
check not grep -q '^load:' "$DBG/$bdf/ct"
check ct_state_is "$bdf" up

check sriov_visible "$bdf"
echo 0 >"$dev/sriov_drivers_autoprobe"
check not sh -c "echo 'provision 2' >$DBG/$bdf/sriov_ctl"
expect_eq "debugfs provisioned nothing" "$(sriov_get "$bdf" provisioned)" 0
check numvfs "$bdf" 2
expect_eq "2 VFs enabled" "$(cat "$dev/sriov_numvfs")" 2
expect_eq "2 VFs provisioned" "$(sriov_get "$bdf" provisioned)" 2
expect_eq "by sriov_numvfs" "$(sriov_get "$bdf" by)" sriov_numvfs
check dmesg_has "sriov: 2 VF(s) provisioned"
# The production cost line: counters, no memcpy reference.
check grep -q '^provision_last: vfs 2 ' "$DBG/$bdf/sriov"
check not grep -q 'memcpy_ns' "$DBG/$bdf/sriov"
# The clears' GGTT bytes apart, last on the line.
check grep -q '^provision_last: .* lmtt_bytes [0-9]* clear_ggtt_bytes [1-9][0-9]*$' "$DBG/$bdf/sriov"
mock_request vf:check
# The VFs' memory went through the copy engine's fill.
mock_expect engines.bcs0.fill_bytes ">" 0
check numvfs "$bdf" 0
expect_eq "none provisioned after disable" "$(sriov_get "$bdf" provisioned)" 0
check not test -e "$dev/virtfn0"

echo "$bdf" >/sys/bus/pci/drivers/xehpg/unbind
check not is_bound "$bdf"
check not test -e "$DBG/$bdf"
check rmmod xehpg
# The production module has no `guc_doorbells` parameter: the kernel ignores
# it as unknown (load_module's unknown_module_param_cb) but knows
# force_execlist. The device binds again, then goes with the module.
check insmod /lib/modules/xehpg.ko force_execlist=0 guc_doorbells=1
check dmesg_has "xehpg: unknown parameter 'guc_doorbells' ignored"
check not dmesg_has "xehpg: unknown parameter 'force_execlist' ignored"
check wait_until 30 is_bound "$bdf"
check rmmod xehpg
check sriov_shim_unload "$bdf"
check_dmesg_clean
done_testing
