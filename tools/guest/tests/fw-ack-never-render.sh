#!/bin/sh
# Only RENDER never acks. Probe needs GT alone and binds; a RENDER user gets
# an error naming the domain, reference counts stay at zero, the failure is
# counted, GT keeps working, and unbind/bind still work. Probe itself is a
# RENDER user seven times, each failing and counted: the workaround table's
# RENDER rows (skipped, the rest applied), RCU_MODE/CCS_MODE, then the
# GuC-mode setup of rcs0 and ccs0-3, which are then not registered with the
# GuC (the mock's ATS-M150 has four CCS).
# mock-args: --fault fw-ack-never=render
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
check is_bound "$bdf"
check not mcr "$bdf" read LSC_CHICKEN_BIT_0
expect_eq "mcr reports ETIMEDOUT" "$(cat "$DBG/$bdf/mcr")" "error -110"
check dmesg_has "forcewake: domain RENDER wake: no ack within 50 ms"
expect_eq "RENDER refs" "$(fw_field "$bdf" RENDER refs)" 0
expect_eq "GT refs" "$(fw_field "$bdf" GT refs)" 0
check dmesg_has "wa: apply: forcewake domain RENDER failed"
check dmesg_has "submit: RCU_MODE/CCS_MODE not written"
check dmesg_has "submit: rcs0: GuC-mode engine setup failed"
expect_eq "rcs0 not registered" "$(eng_get "$bdf" rcs0 state)" off
expect_eq "failures counted" "$(fw_counter "$bdf" failures)" 8
check not sh -c "echo 1 > $DBG/$bdf/forcewake_all_ctl"
expect_eq "forcewake_all not held" "$(cat "$DBG/$bdf/forcewake_all")" 0
expect_eq "GT refs after the failed hold" "$(fw_field "$bdf" GT refs)" 0
# A GT-domain register still works.
check mcr "$bdf" read XEHP_L3SQCREG5
check sh -c "echo $bdf > /sys/bus/pci/drivers/xehpg/unbind"
check sh -c "echo $bdf > /sys/bus/pci/drivers/xehpg/bind"
check is_bound "$bdf"
check rmmod xehpg
check_dmesg_clean
done_testing
