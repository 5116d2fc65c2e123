#!/bin/sh
# The GuC boots, then its GDRST reset never completes (the bit stays set
# once the GuC has been READY). The first such reset is the one between the
# hwconfig boot and the full load: the load fails there and the driver runs
# execlists, with the GuC still up. Unbind cannot stop it either: the driver logs the
# failure and turns bus mastering off, so the GuC can no longer reach system
# memory through the GGTT, then frees its memory as usual (keeping it instead
# left DMA allocations behind the unbound device, a DMA API debug WARNING on
# the debug kernel). The unbind still completes, releases the BARs and
# debugfs, and the module unloads without a warning.
# mock-args: --fault guc-reset-stuck-after-load
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
check is_bound "$bdf"
expect_eq "GuC status" "$(guc_get "$bdf" status)" failed
expect_eq "GuC load phase" "$(guc_get "$bdf" phase)" hwconfig
case $(guc_get "$bdf" last_error) in
"GuC reset before the full load: "*"(110)") ok "last_error names the second reset and ETIMEDOUT" ;;
*) not_ok "last_error names the second reset" "$(guc_get "$bdf" last_error)" ;;
esac
check dmesg_has "guc: load failed at GuC reset before the full load"
check sh -c "echo $bdf > /sys/bus/pci/drivers/xehpg/unbind"
check not is_bound "$bdf"
check dmesg_has "guc: GDRST GuC reset did not complete within 5 ms"
check dmesg_has "guc: reset failed at unbind"
check dmesg_has "bus mastering off, freeing its memory"
# PCI Command register (config offset 4), bit 2: Bus Master Enable.
cmd=$(od -An -tu1 -j4 -N1 "/sys/bus/pci/devices/$bdf/config" | tr -d ' ')
if [ -n "$cmd" ] && [ $((cmd & 4)) -eq 0 ]; then
	ok "bus mastering is off after the failed reset"
else
	not_ok "bus mastering is off after the failed reset" "command register low byte: '$cmd'"
fi
check not test -e "/sys/kernel/debug/xehpg/$bdf"
check not iomem_has "xehpg/"
check rmmod xehpg
check not test -e /sys/kernel/debug/xehpg
check_dmesg_clean
done_testing
