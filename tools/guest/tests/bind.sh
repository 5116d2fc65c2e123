#!/bin/sh
# Default mock (ATS-M150, 8086:56c0, revision 0x08, 16 GiB LMEM behind a
# 256 MiB LMEMBAR): the driver binds, reports what it read, survives sysfs
# unbind/bind and ten rmmod/insmod cycles, and leaves the kernel log clean.
# distro
. /tests/lib.sh

dev=$(gpu_dev 0x56c0)
bdf=${dev##*/}
check is_bound "$bdf"
expect_eq "platform" "$(info_get "$bdf" platform)" "ATS-M150"
expect_eq "device_id" "$(info_get "$bdf" device_id)" "0x56c0"
expect_eq "stepping of revision 0x08" "$(info_get "$bdf" stepping)" "C0"
expect_eq "SR-IOV PF capable" "$(info_get "$bdf" sriov_pf_capable)" "yes"
# GTTMMADR is 16 MiB (seed 000 line 139); the mock's LMEMBAR defaults to 256 MiB.
expect_eq "gttmmadr_size" "$(info_get "$bdf" gttmmadr_size)" "0x1000000"
expect_eq "gttmmadr_start matches sysfs" "$(info_get "$bdf" gttmmadr_start)" "$(bar_start "$dev" 0)"
expect_eq "lmembar_size" "$(info_get "$bdf" lmembar_size)" "0x10000000"
expect_eq "lmem_size from SG_TILE_ADDR_RANGE" "$(info_get "$bdf" lmem_size)" "0x400000000"
expect_eq "small_bar" "$(info_get "$bdf" small_bar)" "yes"
check dmesg_has "small BAR: LMEMBAR 0x10000000 bytes of 0x400000000"
check iomem_has "xehpg/gttmmadr"
check iomem_has "xehpg/lmembar"

# Unbind releases the debugfs directory and both BAR regions; bind restores.
echo "$bdf" >/sys/bus/pci/drivers/xehpg/unbind
check not is_bound "$bdf"
check not test -e "/sys/kernel/debug/xehpg/$bdf"
check not iomem_has "xehpg/"
echo "$bdf" >/sys/bus/pci/drivers/xehpg/bind
check is_bound "$bdf"
expect_eq "platform after rebind" "$(info_get "$bdf" platform)" "ATS-M150"

# rmmod/insmod: every cycle binds again and unload removes the debugfs root.
cycles_ok=0
i=0
while [ $i -lt 10 ]; do
	i=$((i + 1))
	rmmod xehpg || break
	[ -e /sys/kernel/debug/xehpg ] && break
	insmod /lib/modules/xehpg.ko || break
	is_bound "$bdf" || break
	cycles_ok=$i
done
expect_eq "rmmod/insmod cycles that rebound" "$cycles_ok" "10"

check_dmesg_clean
done_testing
