#!/bin/sh
# Runs a group of scenarios in one boot: xehpg-check's grouped VM runs
# (tools/check/src/suites/vm/group.rs; Documentation/testing.rst, "One boot
# for a group"). Busybox sh.
#
# Usage: sh /tests/group.sh PLAN LANE
#   PLAN  one scenario a line: NAME|TIMEOUT|LOAD|PARAMS|MOCK-ARGS|BUILD
#         (LOAD 1 to insmod the driver with PARAMS first; MOCK-ARGS are the
#         scenario's own mock options, applied by the mock's test window;
#         BUILD the driver build it loads, test or production: a boot that
#         mixes builds ships each as /lib/modules/xehpg-BUILD.ko, and the
#         scenario's is copied to /lib/modules/xehpg.ko before its window)
#   LANE  plain; debug: the driver is unloaded inside each scenario's
#         window, and kmemleak scans once, after the last scenario (a
#         "xehpg-group: leak scan" marker, then lib.sh's
#         debug_leak_scan); debug-each: the
#         whole leak-scan epilogue (lib.sh debug_epilogue) inside each
#         scenario's window, which the harness asks for when a boot's
#         single scan found a leak, to learn whose it is
#
# Per scenario, in this order, so that each one starts from what a fresh boot
# would give it:
#   1. the mock opens window NAME (XEHPG-VM-WINDOW=begin:..., answered by the
#      runner on the command channel): the device as at power-on with the
#      scenario's mock options, and a record of its own; the answer names
#      the engines the mock's fuses enable, exported as $MOCK_ENGINES;
#   2. a kernel-log marker `xehpg-group: begin NAME` (the host judges each
#      scenario's kernel log from its marker to the next one's);
#   3. the scenario's driver build put in place if it is not the one there,
#      insmod, the script (stdin /dev/null, killed after TIMEOUT seconds), in
#      the debug lanes rmmod (debug) or the epilogue (debug-each); then the
#      window closes and the status line XEHPG-VM-STATUS=NAME:RC follows;
#   4. cleanup, still in this scenario's kernel-log part: the driver and the
#      test-only SR-IOV shim unloaded, the GPU function back on the bus,
#      the kernel's ring buffer emptied (scenarios read dmesg whole) and, in
#      the debug lane, kmemleak's list cleared.

plan_file=$1
lane=$2
mod=/lib/modules/xehpg.ko
gpu_vendor=0x8086
# The build at $mod: the one the runner shipped (--module), until a plan
# line asks for another.
shipped=

# The runner's answers arrive on the command channel's input: not echoed
# back into the output.
stty -F /dev/ttyS1 -echo

# gpu_present: a PCI function of Intel's with the display class is on the bus.
gpu_present() {
	# `read`, not $(cat ...): two processes a function cost a second on the
	# debug kernel (lib.sh, "Processes are what a scenario's time goes on").
	for _d in /sys/bus/pci/devices/*; do
		read -r _v 2>/dev/null <"$_d/vendor" && [ "$_v" = "$gpu_vendor" ] || continue
		read -r _v 2>/dev/null <"$_d/class" || continue
		case $_v in 0x03*) return 0 ;; esac
	done
	return 1
}

cleanup() {
	if grep -q '^xehpg ' /proc/modules && ! rmmod xehpg; then
		echo "xehpg-group: rmmod xehpg failed after $1" >/dev/kmsg
	fi
	if grep -q '^xehpg_sriov_shim ' /proc/modules; then
		for _d in /sys/bus/pci/devices/*; do
			[ -e "$_d/sriov_totalvfs" ] && echo 1 >"$_d/remove"
		done
		rmmod xehpg_sriov_shim || echo "xehpg-group: rmmod shim failed after $1" >/dev/kmsg
		echo 1 >/sys/bus/pci/rescan
	fi
	gpu_present || echo 1 >/sys/bus/pci/rescan
	gpu_present || echo "xehpg-group: the GPU did not come back after $1" >/dev/kmsg
	dmesg -c >/dev/null
	if [ "$lane" = debug-each ] && [ -w /sys/kernel/debug/kmemleak ]; then
		echo clear >/sys/kernel/debug/kmemleak
	fi
}

while IFS='|' read -r name limit load params margs build; do
	[ -n "$name" ] || continue
	echo "XEHPG-VM-WINDOW=begin:$name:$margs"
	ack=
	read -r -t 30 ack </dev/ttyS1
	echo "xehpg-group: begin $name" >/dev/kmsg
	# "ok engines=A,B,...": the engines the mock's fuses enable in this
	# window, for the scenario as $MOCK_ENGINES (space-separated).
	MOCK_ENGINES=
	case "$ack" in
	"XEHPG-VM-ACK=$name ok engines="*)
		MOCK_ENGINES=$(echo "${ack#*engines=}" | tr , ' ')
		;;
	esac
	export MOCK_ENGINES
	if [ -z "$MOCK_ENGINES" ]; then
		echo "xehpg-group: the mock did not open window $name (answer: '$ack')"
		echo "XEHPG-VM-STATUS=$name:window"
		cleanup "$name"
		continue
	fi
	# The first scenario's build is the one shipped at $mod; another build
	# replaces it (no driver is loaded here: the previous cleanup ran). A
	# build that was not shipped fails the scenario, which does not run.
	[ -n "$shipped" ] || shipped=$build
	if [ -n "$build" ] && [ "$build" != "$shipped" ]; then
		cp "/lib/modules/xehpg-$build.ko" "$mod" && shipped=$build
	fi
	if [ -n "$build" ] && [ "$build" != "$shipped" ]; then
		echo "TAP version 13"
		echo "not ok 1 - the $build build of the driver is shipped"
		echo "1..1"
		rc=1
	else
		if [ "$load" = 1 ]; then
			# shellcheck disable=SC2086 # PARAMS are separate words
			insmod "$mod" $params || echo "xehpg-vm: insmod $mod failed"
		fi
		timeout -s KILL "$limit" sh "/tests/$name.sh" </dev/null
		rc=$?
	fi
	case "$lane" in
	debug)
		if grep -q '^xehpg ' /proc/modules && ! rmmod xehpg 2>/dev/null; then
			echo "debug-epilogue: rmmod xehpg failed" >/dev/kmsg
		fi
		;;
	debug-each)
		. /tests/lib.sh >/dev/null
		debug_epilogue
		;;
	esac
	echo "XEHPG-VM-WINDOW=end:$name"
	echo "XEHPG-VM-STATUS=$name:$rc"
	cleanup "$name"
done <"$plan_file"
if [ "$lane" = debug ]; then
	# One scan for the whole boot: what any scenario leaked is still
	# unreferenced. kmemleak_scan_report waits out the objects' minimum age.
	echo "xehpg-group: leak scan" >/dev/kmsg
	. /tests/lib.sh >/dev/null
	debug_leak_scan
fi
echo "xehpg-group: done" >/dev/kmsg
