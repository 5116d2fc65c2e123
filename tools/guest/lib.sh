# Helpers for guest scenarios (tools/guest/tests/*.sh); busybox sh compatible.
#
# The vm suite of tools/check copies this file to /tests/lib.sh and runs each
# scenario as `sh /tests/NAME.sh`. A scenario sources it, then prints TAP 13:
#
#   . /tests/lib.sh
#   plan 3                          # or call done_testing at the end without a plan
#   check test -d /sys/bus/pci/drivers/xehpg
#   if cond; then ok "desc"; else not_ok "desc" "why" "more detail"; fi
#   check_dmesg_clean
#   done_testing                    # exit status: 0 only if nothing failed
#
# Output: `ok N - desc`, `not ok N - desc`, `ok N - desc # SKIP reason` and
# `# ` diagnostic lines after a failure. The harness counts every ok/not ok
# line as a test and checks the plan against them.

_tap_count=0
_tap_failed=0
_tap_plan=
echo "TAP version 13"

# plan N: announce N tests (once, before the first test).
plan() {
	_tap_plan=$1
	echo "1..$1"
}

# diag TEXT...: print each argument (and each of its lines) as a `# ` line.
diag() {
	for _tap_line in "$@"; do
		printf '%s\n' "$_tap_line" | sed 's/^/# /'
	done
}

# ok DESC: record a passed test.
ok() {
	_tap_count=$((_tap_count + 1))
	echo "ok $_tap_count - $*"
}

# not_ok DESC [DIAG...]: record a failed test, with diagnostics.
not_ok() {
	_tap_count=$((_tap_count + 1))
	_tap_failed=$((_tap_failed + 1))
	echo "not ok $_tap_count - $1"
	shift
	[ $# -gt 0 ] && diag "$@"
	return 0
}

# skip DESC REASON: record a test that could not run here.
skip() {
	_tap_count=$((_tap_count + 1))
	echo "ok $_tap_count - $1 # SKIP $2"
}

# check CMD...: run CMD; passes if it exits 0. Its output (last 20 lines) and
# status become the diagnostics of a failure. The description is the command.
check() {
	_tap_out=$("$@" 2>&1)
	_tap_rc=$?
	if [ $_tap_rc -eq 0 ]; then
		ok "$*"
	else
		not_ok "$*" "exit status $_tap_rc" "$(printf '%s\n' "$_tap_out" | tail -n 20)"
	fi
}

# Kernel log lines that mean something went wrong, and boot-time lines that
# match those words but are only informational (lockdep announcing itself).
_tap_dmesg_bad='WARNING:|BUG:|Oops|lockdep|possible circular locking|sleeping function called from invalid context|Call Trace|INFO: possible|turning off the locking correctness validator'
_tap_dmesg_benign='RCU lockdep checking is enabled'

# check_dmesg_clean [DESC]: fails on kernel warnings, oopses, lockdep reports
# and sleeping-in-atomic splats anywhere in the kernel log so far.
check_dmesg_clean() {
	_tap_bad=$(dmesg | grep -E "$_tap_dmesg_bad" | grep -v -E "$_tap_dmesg_benign")
	if [ -z "$_tap_bad" ]; then
		ok "${1:-dmesg clean}"
	else
		not_ok "${1:-dmesg clean}" "$(printf '%s\n' "$_tap_bad" | head -n 20)"
	fi
}

# done_testing: print the plan if none was given, then exit 0 if every test
# passed and the plan (if any) was met, 1 otherwise.
done_testing() {
	if [ -z "$_tap_plan" ]; then
		echo "1..$_tap_count"
	elif [ "$_tap_plan" -ne "$_tap_count" ]; then
		diag "planned $_tap_plan tests, ran $_tap_count"
		exit 1
	fi
	[ "$_tap_failed" -eq 0 ] || exit 1
	exit 0
}

# --- xehpg helpers ----------------------------------------------------------

# gpu_dev ID: sysfs directory of the Intel PCI function with device ID ID.
gpu_dev() {
	for _d in /sys/bus/pci/devices/*; do
		[ "$(cat "$_d/vendor")" = 0x8086 ] && [ "$(cat "$_d/device")" = "$1" ] && { echo "$_d"; return 0; }
	done
	return 1
}

# is_bound BDF: the xehpg driver owns BDF.
is_bound() { [ -e "/sys/bus/pci/drivers/xehpg/$1" ]; }

# not CMD...: inverts CMD's status (for `check not ...`).
not() { ! "$@"; }

# info_get BDF KEY: the value of KEY in the device's debugfs info file.
info_get() { sed -n "s/^$2: //p" "/sys/kernel/debug/xehpg/$1/info" 2>/dev/null; }

# bar_start DEV N: start address of BAR N from sysfs `resource`, as 0x%x.
bar_start() { printf '0x%x\n' "$(sed -n "$(($2 + 1))p" "$1/resource" | cut -d' ' -f1)"; }

# expect_eq DESC GOT WANT
expect_eq() {
	if [ "$2" = "$3" ]; then ok "$1 is $3"; else not_ok "$1 is $3" "got: '$2'"; fi
}

# dmesg_has TEXT: the kernel log contains TEXT (fixed string).
dmesg_has() { dmesg | grep -qF -- "$1"; }

# iomem_has NAME: a /proc/iomem region is claimed under NAME.
iomem_has() { grep -qF -- "$1" /proc/iomem; }

# probe_refused ID MESSAGE: the driver is loaded, the device ID is present but
# unbound, probe logged MESSAGE, nothing is left behind and rmmod works.
probe_refused() {
	_dev=$(gpu_dev "$1")
	_bdf=${_dev##*/}
	check test -n "$_bdf"
	check test -d /sys/bus/pci/drivers/xehpg
	check not is_bound "$_bdf"
	check dmesg_has "$2"
	check not test -e "/sys/kernel/debug/xehpg/$_bdf"
	check not iomem_has "xehpg/"
	check rmmod xehpg
	check_dmesg_clean
}
