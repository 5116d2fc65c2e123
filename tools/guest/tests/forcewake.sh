#!/bin/sh
# Forcewake bookkeeping on the default ATS-M150: present domains follow the
# media fuse, probe leaves nothing held, a nested user costs no MMIO and no
# second wake, the debugfs hold is released, and garbage input changes nothing.
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
check is_bound "$bdf"
# Mock default media fuse 0x00030005: VDBOX0/2 and VEBOX0/1 (i915's DG2 mask).
for d in GT RENDER VDBOX0 VDBOX2 VEBOX0 VEBOX1; do
	expect_eq "$d present" "$(fw_field "$bdf" $d present)" yes
done
for d in VDBOX1 VDBOX3 VEBOX2; do
	expect_eq "$d present" "$(fw_field "$bdf" $d present)" no
done
expect_eq "GT refs after probe" "$(fw_field "$bdf" GT refs)" 0
expect_eq "RENDER refs after probe" "$(fw_field "$bdf" RENDER refs)" 0

# Hold everything, then a steered read inside costs exactly the steering
# write and the read: the nested forcewake get/put touch no register.
check put "$bdf" forcewake_all_ctl 1
expect_eq "forcewake_all reads back" "$(cat "$DBG/$bdf/forcewake_all")" 1
expect_eq "RENDER refs while held" "$(fw_field "$bdf" RENDER refs)" 1
wakes=$(fw_field "$bdf" RENDER wakes)
before=$(mmio_total "$bdf")
check mcr "$bdf" read LSC_CHICKEN_BIT_0
after=$(mmio_total "$bdf")
expect_eq "MMIO for a steered read under a held domain" "$((after - before))" 2
expect_eq "no second RENDER wake" "$(fw_field "$bdf" RENDER wakes)" "$wakes"
expect_eq "RENDER refs back to the hold" "$(fw_field "$bdf" RENDER refs)" 1
check put "$bdf" forcewake_all_ctl 1
expect_eq "holding twice is one hold" "$(fw_field "$bdf" RENDER refs)" 1
check put "$bdf" forcewake_all_ctl 0
expect_eq "released" "$(fw_field "$bdf" RENDER refs)" 0
expect_eq "ack dropped after release" "$(fw_field "$bdf" RENDER ack)" 0

# Garbage is refused and changes nothing.
for junk in 2 abc "" "1 1" "$(printf '%0100d' 0)"; do
	if echo "$junk" >"$DBG/$bdf/forcewake_all_ctl" 2>/dev/null; then
		not_ok "forcewake_all refuses '$junk'"
	else
		ok "forcewake_all refuses '$(echo "$junk" | cut -c1-10)'"
	fi
done
expect_eq "GT refs after garbage" "$(fw_field "$bdf" GT refs)" 0
expect_eq "no failures" "$(fw_counter "$bdf" failures)" 0
expect_eq "no unheld accesses" "$(fw_counter "$bdf" unheld_accesses)" 0

# Unbind with the hold taken: unbind releases it and the device rebinds.
check put "$bdf" forcewake_all_ctl 1
check sh -c "echo $bdf > /sys/bus/pci/drivers/xehpg/unbind"
check sh -c "echo $bdf > /sys/bus/pci/drivers/xehpg/bind"
expect_eq "GT refs after rebind" "$(fw_field "$bdf" GT refs)" 0
check_dmesg_clean
done_testing
