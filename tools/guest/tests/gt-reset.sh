#!/bin/sh
# A GT reset asked for through debugfs (gt_reset, as upstream's force_reset),
# with two VFs enabled through sriov_numvfs (VF drivers kept off: nothing is
# behind their BARs in this guest). The reset worker fails what is in flight
# (nothing here), stops the GuC without a message, writes GDRST.GRDOM_FULL
# (the mock resets every engine and the GuC), applies the workaround table
# again, reloads the GuC in both phases, sets up every engine and registers
# every context again (RCU_MODE first), and pushes the PF's and both VFs'
# configurations again (the reset GuC has none). The mock's record shows six
# GuC loads (two at the first bind, two after the rescan that shows the PF's
# SR-IOV capability, two at the reset) and nine UPDATE_VF_CFGs (the PF's and
# two VFs' at the enable and again after the reset, then the disable's two VF
# resets and the PF's own back to no limits); work runs on every engine the
# fuses leave after the reset, and nothing recovered silently.
# guest-module: sriov-shim
# expect-mock: guc_loads == 6
# expect-mock: guc.engine_resets == 0
# expect-mock: violations == 0
# expect-mock: sriov.isolation_violations == 0
# expect-mock: sriov.vf_cfg_updates == 9
# expect-mock: sriov.vf_cfg_resets == 2
# timeout: 240
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
check sriov_visible "$bdf"
echo 0 >"/sys/bus/pci/devices/$bdf/sriov_drivers_autoprobe"
expect_eq "GuC status" "$(guc_get "$bdf" status)" running
mock_engines_driven "$bdf"
check numvfs "$bdf" 2
check submit_cmd "$bdf" "all 10"
for e in $engines; do submit_ok "$bdf" "$e" 10; done

expect_eq "no reset yet" "$(reset_get "$bdf" done)" 0
check put "$bdf" gt_reset_ctl 1
check wait_until 60 resets_done_is "$bdf" 1
diag "$(cat "$DBG/$bdf/gt_reset")"
expect_eq "reset failed nothing" "$(reset_get "$bdf" failed)" 0
expect_eq "no request was in flight" "$(reset_get "$bdf" last_failed_requests)" 0
check dmesg_has "gt: reset started (asked through debugfs)"
check dmesg_has "sriov: 2 VF configuration(s) pushed again after the GT reset"
check dmesg_has "gt: reset done in"
expect_eq "GuC running again" "$(guc_get "$bdf" status)" running
for e in $engines; do
	expect_eq "$e: GuC mode" "$(eng_get "$bdf" "$e" mode)" guc
done
check submit_cmd "$bdf" "all 10"
for e in $engines; do submit_ok "$bdf" "$e" 10; done
no_nudges "$bdf"

# Garbage is refused; the state is unchanged.
check not put "$bdf" gt_reset_ctl 2
check not put "$bdf" gt_reset_ctl ""
expect_eq "still one reset" "$(reset_get "$bdf" requests)" 1

check numvfs "$bdf" 0
check rmmod xehpg
check sriov_shim_unload "$bdf"
check_dmesg_clean
done_testing
