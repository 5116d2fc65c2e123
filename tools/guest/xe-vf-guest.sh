#!/bin/sh
# Guest side of the xe-vf suite (tools/check/src/suites/xe_vf.rs), in the
# second VM: its one PCI GPU is VF1 of the mock ATS-M that xehpg, in the
# host VM, provisioned. Loads upstream xe, which finds VF_CAP set and probes
# as a VF driver, and reports what the host judges, one `xe-vf: KEY=VALUE`
# line per fact. The mock's record is what counts (how far xe got with the
# device); these lines only help read it.
#
# Usage: sh /tests/xe-vf-guest.sh MODULE...  (dependencies first, xe last,
# as /xe/NAME.ko)
mount -t debugfs none /sys/kernel/debug 2>/dev/null

dev=
for d in /sys/bus/pci/devices/*; do
	[ "$(cat "$d/vendor")" = 0x8086 ] && [ "$(cat "$d/device")" = 0x56c0 ] && dev=$d
done
echo "xe-vf: function=${dev##*/}"
[ -n "$dev" ] || { echo "xe-vf: done"; exit 1; }

for m in "$@"; do
	if [ "$m" = xe ]; then
		# ATS-M is require_force_probe in xe_pci.c.
		insmod /xe/xe.ko force_probe=56c0
		echo "xe-vf: insmod=$?"
	else
		insmod "/xe/$m.ko" 2>/dev/null || echo "xe-vf: helper-failed=$m"
	fi
done
# xe's probe is synchronous; its GT work settles on workqueues after.
sleep 3

drv=none
[ -e "$dev/driver" ] && drv=$(basename "$(readlink "$dev/driver")")
echo "xe-vf: driver=$drv"
# xe's own lines about the device, with their log levels (as xe-probe.sh).
dmesg -r | sed -n 's/^<\([0-9]*\)>\[[ 0-9.]*\] \(xe [0-9a-f:.]*: .*\)/\1 \2/p' |
	while read -r lvl text; do
		echo "xe-vf: log=$((lvl % 8)) $text"
	done | head -n 200
if [ "$drv" = xe ]; then
	echo "xe-vf: unbind=$(echo "${dev##*/}" >/sys/bus/pci/drivers/xe/unbind 2>&1 && echo ok || echo failed)"
fi
# A VF FLR from the guest's side: the PCI core resets the function (the
# VF's own "Initiate FLR"); the GuC tells the PF, which must recover it.
echo 1 >"$dev/reset" 2>/dev/null
echo "xe-vf: reset=$?"
echo "xe-vf: done"
