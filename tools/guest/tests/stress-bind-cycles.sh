#!/bin/sh
# 100 unbind/bind cycles through the PCI core (sysfs driver unbind/bind) on
# the default ATS-M150 with the real GuC firmware: every bind brings the GuC
# to READY again (guc_info status running), every unbind removes the debugfs
# directory and both BAR regions, forcewake is balanced after each bind, and
# the module then unloads cleanly. Each property is one TAP line carrying the
# count of cycles that kept it, so a failure names how many cycles broke it
# and the first one that did. Each bind boots the GuC twice (hwconfig, then
# the full load). The debug kernel (the one with kmemleak) runs 20 cycles:
# its detectors report a leak, a lock inversion or a use after free on the
# first cycle that has one, and a cycle costs it 5.5 s where the plain
# kernel takes 0.4 s; the plain lane runs the 100 that look for rare races.
# timeout: 400
. /tests/lib.sh

if [ -e /sys/kernel/debug/kmemleak ]; then CYCLES=20; else CYCLES=100; fi
# Two GuC boots per bind: the 100 or 20 cycles and the first bind.
mock_expect guc_loads == $((2 * CYCLES + 2))
bdf=$(gpu_bdf 0x56c0)
drv=/sys/bus/pci/drivers/xehpg
check is_bound "$bdf"
expect_eq "GuC status before the cycles" "$(guc_get "$bdf" status)" running

# count_bad NAME CYCLE: one more cycle broke NAME; the first is remembered.
count_bad() {
	eval "bad_$1=\$((bad_$1 + 1)); [ -n \"\$first_$1\" ] || first_$1=$2"
}
for p in unbind gone regions bind bound guc fw; do eval "bad_$p=0; first_$p="; done

start=$(date +%s)
i=0
while [ $i -lt $CYCLES ]; do
	i=$((i + 1))
	echo "$bdf" >"$drv/unbind" || count_bad unbind $i
	# Unbind is synchronous: by the time the write returns, remove() ran.
	{ ! is_bound "$bdf" && [ ! -e "/sys/kernel/debug/xehpg/$bdf" ]; } || count_bad gone $i
	iomem_has "xehpg/" && count_bad regions $i
	echo "$bdf" >"$drv/bind" || count_bad bind $i
	is_bound "$bdf" || count_bad bound $i
	# guc_get and fw_field in one awk: a process costs about 0.15 s on the
	# debug kernel, and this runs 100 times.
	state=$(awk 'FNR == 1 { f++ }
		f == 1 && $1 == "status:" { print "guc " $2 }
		f == 2 && FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i }
		f == 2 && $1 == "GT" { print "refs " $(col["refs"]) }' \
		"$DBG/$bdf/guc_info" "$DBG/$bdf/forcewake" 2>/dev/null)
	case $state in *"guc running"*) ;; *) count_bad guc $i ;; esac
	case $state in *"refs 0") ;; *) count_bad fw $i ;; esac
done
end=$(date +%s)
diag "$CYCLES cycles took $((end - start)) s"

# report NAME DESC: one TAP line for a property over all cycles.
report() {
	eval "n=\$bad_$1; f=\$first_$1"
	if [ "$n" -eq 0 ]; then
		ok "$2 in $CYCLES/$CYCLES cycles"
	else
		not_ok "$2 in $CYCLES/$CYCLES cycles" "failed in $n cycles, first in cycle $f"
	fi
}
report unbind "sysfs unbind accepted"
report gone "unbind removed the binding and the debugfs directory"
report regions "unbind released both BAR regions"
report bind "sysfs bind accepted"
report bound "bind bound the device again"
report guc "GuC running after bind"
report fw "no forcewake reference left after bind"

expect_eq "last_error after the cycles" "$(guc_get "$bdf" last_error)" none
check rmmod xehpg
check not test -e /sys/kernel/debug/xehpg
check not iomem_has "xehpg/"
check_dmesg_clean
done_testing
