#!/bin/sh
# The GuC runs, then its GDRST reset never completes (the bit stays set
# once the GuC has been READY). Unbind cannot stop it: the driver logs the
# failure and deliberately leaks the GuC's memory and the GGTT scratch page
# (the GuC may still write through them) instead of freeing them. The
# unbind still completes, releases the BARs and debugfs, and the module
# unloads without a warning.
# mock-args: --fault guc-reset-stuck-after-load
. /tests/lib.sh

bdf=$(basename "$(gpu_dev 0x56c0)")
check is_bound "$bdf"
expect_eq "GuC status" "$(guc_get "$bdf" status)" running
check sh -c "echo $bdf > /sys/bus/pci/drivers/xehpg/unbind"
check not is_bound "$bdf"
check dmesg_has "guc: GDRST GuC reset did not complete within 5 ms"
check dmesg_has "guc: reset at unbind failed"
check dmesg_has "leaking its memory"
check not test -e "/sys/kernel/debug/xehpg/$bdf"
check not iomem_has "xehpg/"
check rmmod xehpg
check not test -e /sys/kernel/debug/xehpg
check_dmesg_clean
done_testing
