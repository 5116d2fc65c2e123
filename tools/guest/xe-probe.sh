#!/bin/sh
# Guest side of the xe-probe suite (tools/check/src/suites/xe_probe.rs):
# loads upstream xe against the mock instead of xehpg and prints what the
# host judges, one `xe-probe: KEY=VALUE` line per fact. The host judges; this
# script only reports.
#
# Usage: sh /tests/xe-probe.sh MAX_VFS MODULE...  (dependencies first, xe
# last, as /xe/NAME.ko)
max_vfs=$1
shift
dev=/sys/bus/pci/devices/0000:00:01.0
mount -t debugfs none /sys/kernel/debug 2>/dev/null

for m in "$@"; do
	if [ "$m" = xe ]; then
		# ATS-M is require_force_probe in xe_pci.c; max_vfs makes it a PF.
		insmod /xe/xe.ko force_probe=56c0 max_vfs="$max_vfs"
		echo "xe-probe: insmod=$?"
	else
		# A helper xe does not need may fail (drm_display_helper without
		# display): xe's own insmod says what was missing.
		insmod "/xe/$m.ko" 2>/dev/null || echo "xe-probe: helper-failed=$m"
	fi
done
# xe's GT setup finishes on workqueues after probe returns: let them settle.
sleep 5

drv=none
[ -e "$dev/driver" ] && drv=$(basename "$(readlink "$dev/driver")")
echo "xe-probe: driver=$drv"
# xe's own lines about the device, each with its log level (`log=LEVEL
# TEXT`; the raw buffer's <N> is facility * 8 + level), so the host can tell
# an error from chatter. The host judges the errors and, from the console,
# every WARN and detector report (Documentation/xe-probe.rst).
dmesg -r | sed -n 's/^<\([0-9]*\)>\[[ 0-9.]*\] \(xe [0-9a-f:.]*: .*\)/\1 \2/p' |
	while read -r lvl text; do
		echo "xe-probe: log=$((lvl % 8)) $text"
	done | head -n 200

if [ "$drv" = xe ]; then
	# The same device appears under several DRM minors: the first is enough.
	for d in /sys/kernel/debug/dri/*/; do
		[ -e "$d/gt0" ] || continue
		echo "xe-probe: debugfs=$(ls "$d/gt0" | tr '\n' ' ')"
		sed 's/^/xe-probe: guc_info=/' "$d/gt0/uc/guc_info" 2>/dev/null | head -n 12
		break
	done
	total=$(cat "$dev/sriov_totalvfs" 2>/dev/null || echo 0)
	echo "xe-probe: sriov_totalvfs=$total"
	if [ "$total" -gt 0 ] && [ "$max_vfs" -gt 0 ]; then
		echo 1 >"$dev/sriov_numvfs" 2>/dev/null
		echo "xe-probe: sriov_numvfs=$(cat "$dev/sriov_numvfs")"
		echo 0 >"$dev/sriov_numvfs" 2>/dev/null
	fi
	echo "xe-probe: unbind=$(echo 0000:00:01.0 >/sys/bus/pci/drivers/xe/unbind 2>&1 && echo ok || echo failed)"
fi
echo "xe-probe: done"
