#!/bin/sh
# The module is shipped but not loaded (`no-load`): the mock device is present
# and nothing drives it, so the mock must see no register access at all.
# Exercises the harness's no-load and device-id header lines.
# The local-memory options are dg2's, which this scenario does not depend on
# (nothing reads the BARs): with the same attach-time options it shares
# dg2's boot instead of booting alone (one boot less in each lane, about
# 50 s of work on the debug kernel).
# no-load
# device-id: 0x56a0
# mock-args: --lmem-size-gib 1 --lmem-bar-mib 1024
# expect-mock: mmio_reads == 0
# expect-mock: mmio_writes == 0
. /tests/lib.sh
plan 5

check test -f /lib/modules/xehpg.ko

dev=$(grep -l 0x56a0 /sys/bus/pci/devices/*/device 2>/dev/null | head -n 1)
dev=${dev%/device}
if [ -n "$dev" ]; then
	ok "the mock presents device 0x56a0 (${dev##*/})"
else
	not_ok "the mock presents device 0x56a0" "$(cat /sys/bus/pci/devices/*/device 2>&1)"
fi

if [ -d /sys/bus/pci/drivers/xehpg ]; then
	not_ok "xehpg is not registered" "$(ls /sys/bus/pci/drivers/xehpg)"
else
	ok "xehpg is not registered"
fi

if [ -n "$dev" ] && [ ! -e "$dev/driver" ]; then
	ok "no driver bound to the device"
else
	not_ok "no driver bound to the device" "$(readlink "$dev/driver" 2>&1)"
fi

check_dmesg_clean
done_testing
