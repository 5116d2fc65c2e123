#!/bin/sh
# RENDER's forcewake ack register reads all ones (a device that stopped
# answering for it). Probe needs GT alone and binds; a RENDER user fails at
# once with EIO in the stale-ack check, the log says the device is not
# responding (once: a second RENDER user fails the same way without touching
# the dead register or logging again), reference counts stay at zero, GT keeps
# working, and unbind/bind still work. Probe is the first RENDER user (seven
# times, each counted: the workaround table's RENDER rows, skipped while the
# rest apply, RCU_MODE/CCS_MODE, then the GuC-mode setup of rcs0 and ccs0-3,
# which are then not registered with the GuC).
# mock-args: --fault fw-ack-dead=render
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
check is_bound "$bdf"
check dmesg_has "wa: apply: forcewake domain RENDER failed"
check dmesg_has "submit: rcs0: GuC-mode engine setup failed"
check not mcr "$bdf" read LSC_CHICKEN_BIT_0
expect_eq "mcr reports EIO" "$(cat "$DBG/$bdf/mcr")" "error -5"
check dmesg_has "forcewake: domain RENDER clear of a stale ack before wake: ack register reads 0xffffffff, device not responding"
check not dmesg_has "forcewake: domain RENDER wake:"
expect_eq "dead domains" "$(fw_counter "$bdf" dead_domains)" 1
before=$(mmio_total "$bdf")
check not mcr "$bdf" read LSC_CHICKEN_BIT_0
expect_eq "second RENDER user reports EIO" "$(cat "$DBG/$bdf/mcr")" "error -5"
expect_eq "MMIO for a user of the dead domain" "$(($(mmio_total "$bdf") - before))" 0
expect_eq "dead ack logged once" "$(dmesg | grep -c 'domain RENDER .*0xffffffff')" 1
expect_eq "RENDER refs" "$(fw_field "$bdf" RENDER refs)" 0
expect_eq "GT refs" "$(fw_field "$bdf" GT refs)" 0
expect_eq "failures counted" "$(fw_counter "$bdf" failures)" 9
# A GT-domain register still works.
check mcr "$bdf" read XEHP_L3SQCREG5
check sh -c "echo $bdf > /sys/bus/pci/drivers/xehpg/unbind"
check not is_bound "$bdf"
check sh -c "echo $bdf > /sys/bus/pci/drivers/xehpg/bind"
check is_bound "$bdf"
expect_eq "RENDER refs after rebind" "$(fw_field "$bdf" RENDER refs)" 0
check rmmod xehpg
check_dmesg_clean
done_testing
