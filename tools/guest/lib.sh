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
_tap_nl='
'
echo "TAP version 13"

# Processes are what a scenario's time goes on. Under the debug kernel and
# TCG a fork costs about 0.08 s and a fork and exec about 0.15 s
# (Documentation/testing.rst, "What a scenario's time goes on"). So the
# helpers below never build a path with `$(...)` or run a pipeline inside: one `sed` or
# `awk` reads a debugfs file. They do not read the driver's debugfs files
# with the shell's `read`, which reads a byte per system call, and the
# driver formats a file's whole report on every read call
# (Documentation/debugfs.rst): 2 kB take seconds that way. Small sysfs and
# procfs files, which the kernel formats once per open, are read with
# `read`.

# The driver's debugfs directory; "$DBG/$bdf/NAME" is one of its files.
DBG=/sys/kernel/debug/xehpg

# line_word FILE PREFIX WORD: on each line of FILE that starts with PREFIX
# (a sed pattern), the word after the last blank-separated WORD, in one sed.
line_word() { sed -n "s/^$2\(.* \)\{0,1\}$3 \([^ ]*\).*/\2/p" "$1"; }

# plan N: announce N tests (once, before the first test).
plan() {
	_tap_plan=$1
	echo "1..$1"
}

# diag TEXT...: print each argument (and each of its lines) as a `# ` line.
diag() {
	for _tap_line in "$@"; do
		while :; do
			_tap_one=${_tap_line%%"$_tap_nl"*}
			printf '# %s\n' "$_tap_one"
			[ "$_tap_one" = "$_tap_line" ] && break
			_tap_line=${_tap_line#*"$_tap_nl"}
		done
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
# CMD runs in this shell, not a subshell (a fork each), with its output in
# a file that is shown only when it fails: not for background jobs.
check() {
	"$@" >/tmp/.tap-check 2>&1
	_tap_rc=$?
	if [ $_tap_rc -eq 0 ]; then
		ok "$*"
	else
		not_ok "$*" "exit status $_tap_rc" "$(tail -n 20 /tmp/.tap-check)"
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

# gpu_dev ID: sysfs directory of the Intel PCI function with device ID ID
# (also left in $_d, which gpu_bdf uses).
gpu_dev() {
	for _d in /sys/bus/pci/devices/*; do
		read -r _v 2>/dev/null <"$_d/vendor" || continue
		[ "$_v" = 0x8086 ] || continue
		read -r _v 2>/dev/null <"$_d/device" && [ "$_v" = "$1" ] && { echo "$_d"; return 0; }
	done
	return 1
}

# gpu_bdf ID: the PCI address (0000:00:01.0) of that function.
gpu_bdf() { gpu_dev "$1" >/dev/null && echo "${_d##*/}"; }

# is_bound BDF: the xehpg driver owns BDF.
is_bound() { [ -e "/sys/bus/pci/drivers/xehpg/$1" ]; }

# not CMD...: inverts CMD's status (for `check not ...`).
not() { ! "$@"; }

# info_get BDF KEY: the value of KEY in the device's debugfs info file.
info_get() { sed -n "s/^$2: //p" "$DBG/$1/info" 2>/dev/null; }

# bar_start DEV N: start address of BAR N from sysfs `resource`, as 0x%x.
bar_start() {
	_bs=0
	while read -r _bs_start _bs_rest; do
		[ "$_bs" = "$2" ] && { printf '0x%x\n' "$_bs_start"; return 0; }
		_bs=$((_bs + 1))
	done <"$1/resource"
	return 1
}

# expect_eq DESC GOT WANT
expect_eq() {
	if [ "$2" = "$3" ]; then ok "$1 is $3"; else not_ok "$1 is $3" "got: '$2'"; fi
}

# dmesg_has TEXT: the kernel log contains TEXT (fixed string).
dmesg_has() { dmesg | grep -qF -- "$1"; }

# wait_until SECS CMD...: runs CMD once a second until it succeeds or SECS
# seconds have passed (so a hang is a failed check later, not a timeout);
# leaves the seconds waited in $waited. Fails if CMD never succeeded.
wait_until() {
	_wu_limit=$1
	shift
	waited=0
	until "$@"; do
		[ "$waited" -ge "$_wu_limit" ] && return 1
		sleep 1
		waited=$((waited + 1))
	done
}

# count_files GLOB: how many paths GLOB (unquoted inside) matches.
count_files() {
	_cf=0
	# shellcheck disable=SC2086 # GLOB is expanded here
	for _cf_p in $1; do
		{ [ -e "$_cf_p" ] || [ -L "$_cf_p" ]; } && _cf=$((_cf + 1))
	done
	echo "$_cf"
}

# files_at_least GLOB N: GLOB matches N paths or more.
files_at_least() { [ "$(count_files "$1")" -ge "$2" ]; }

# none_running PID...: none of the processes is alive.
none_running() {
	for _nr_pid; do kill -0 "$_nr_pid" 2>/dev/null && return 1; done
	return 0
}

# iomem_has NAME: a /proc/iomem region is claimed under NAME.
iomem_has() {
	while IFS= read -r _im; do
		case $_im in *"$1"*) return 0 ;; esac
	done </proc/iomem
	return 1
}

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

# put BDF FILE VALUE: writes VALUE to one of the device's debugfs files
# (fails as the write does).
put() { echo "$3" >"$DBG/$1/$2"; }

# mcr BDF CMD...: run an `mcr` debugfs command; prints the result (a value or
# "error N") and fails if the command was refused.
mcr() {
	mcr_into "$@"
	_rc=$?
	printf '%s\n' "$mcr_out"
	return $_rc
}

# mcr_into BDF CMD...: as mcr, with the result left in $mcr_out (no fork:
# the mcr file's report is a dozen bytes kept in memory, so the shell's
# byte-at-a-time read is cheap there).
mcr_into() {
	_b=$1
	shift
	echo "$*" 2>/dev/null >"$DBG/$_b/mcr_ctl"
	_rc=$?
	mcr_out=
	read -r mcr_out 2>/dev/null <"$DBG/$_b/mcr"
	return $_rc
}

# fw_field BDF DOMAIN COLUMN: a column (present, refs, ack, wakes) of the
# debugfs forcewake table.
fw_field() {
	awk -v d="$2" -v c="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 == d { print $(col[c]); exit }' "$DBG/$1/forcewake"
}

# fw_counter BDF NAME: a "NAME: N" line of the debugfs forcewake file.
fw_counter() { sed -n "s/^$2: //p" "$DBG/$1/forcewake"; }

# mmio_total BDF: reads + writes the driver has made (debugfs mmio_stats).
mmio_total() { awk '$1 == "reads:" || $1 == "writes:" { n += $2 } END { print n }' "$DBG/$1/mmio_stats"; }

# topo BDF KEY: a value of the debugfs topology file.
topo() { sed -n "s/^$2: //p" "$DBG/$1/topology"; }

# mmio_report BDF: prints `# mmio reads=N writes=N`, the driver's count of its
# BAR accesses since probe (debugfs mmio_stats). The vm suite compares the last
# such line with the mock summary's mmio_reads/mmio_writes, so call it last,
# after anything that touches the device, and only in a scenario that loads
# the driver once (unloading resets the driver's counters, not the mock's).
mmio_report() {
	awk '$1 == "reads:" { r = $2 } $1 == "writes:" { w = $2 }
		END { printf "# mmio reads=%s writes=%s\n", r, w }' "$DBG/$1/mmio_stats"
}

# mock_expect FIELD OP VALUE: the mock's summary must record FIELD OP VALUE
# (e.g. `mock_expect hwconfig_served_bytes == 232`); the vm suite checks it
# after the run against the mock's own record (tools/check vm/expect.rs).
mock_expect() { echo "# mock-expect: $*"; }

# mock_request REQUEST: asks the VM runner to act on the mock device now
# (XEHPG-VM-MOCK=REQUEST on the command channel, tools/vm/src/console.rs;
# the runner writes it to the mock's control FIFO; Documentation/mock.rst,
# "Test control"). Requests:
#   surprise-removal        the card vanishes, every BAR0 register reads all
#                           ones from then on.
#   irq:SOURCE:DATA:COUNT   COUNT (decimal, >= 1) events of DATA (16-bit
#                           hex, not 0) at SOURCE (rcs0 bcs0 ccs0..ccs3
#                           vcs0..vcs7 vecs0..vecs3 guc kcr gsc), one at a
#                           time: the next once the driver cleared the
#                           previous one's identity (DataValid), so none
#                           merge. Masked: the first waits in the collapsing
#                           register until unmasked; disabled: each is
#                           dropped (irq.dropped_disabled).
#                           E.g. irq:guc:8000:1000 (GUC2HOST, bit 15).
#   gt-error:SEV:BITS       GT error BITS (hex) of SEV (correctable,
#                           nonfatal, fatal): ERR_STAT_GT_REG, DEV_ERR_STAT_REG
#                           bit 0 and ERROR_IRQ(SEV) in GFX_MSTR_IRQ.
#   spurious-msi            one MSI with nothing pending (also after
#                           surprise-removal).
#   ct:no-response:N        the GuC's CT (N decimal): the next N requests are
#                           consumed and never answered;
#   ct:busy:N:MS            the next N REQUESTs answered NO_RESPONSE_BUSY,
#                           served MS ms later (same fence);
#   ct:retry:N              the next N REQUESTs answered NO_RESPONSE_RETRY;
#   ct:failure:CODE:N       the next N requests answered FAILURE CODE (hex);
#   ct:stray-fence          a SUCCESS with a fence no request carries;
#   ct:disable              DISABLED in both descriptors, channel dropped;
#   g2h:event:ACTION[:DATA...]  one EVENT (hex);
#   g2h:flood:N             N 0x8003 EVENTs, written as G2H has room;
#   g2h:len-past-tail, g2h:tail-outside, g2h:head-outside, g2h:status:BITS
#                           a broken G2H message, tail, head or status.
#   guc:drop-sched:N, guc:reset-storm:N, guc:refuse-register:N,
#   guc:refuse-doorbell:N   the GuC's submission model: the next N
#                           SCHED_CONTEXT dropped, N context resets, the next
#                           N REGISTER_CONTEXT / ALLOCATE_DOORBELL refused.
#                           (Documentation/mock.rst, "Test control").
# It returns once the mock has carried the request out: the runner answers
# `XEHPG-VM-ACK=mock ok` on the command channel then, so the next thing the
# scenario does meets the device as the request left it (a CT switch is set
# before the next request is sent). What the request starts (interrupts
# paced out, a reply served later) still takes its time: poll for the effect
# (the driver's counters, `mock_expect irq.identities.guc == N`). No answer
# within 15 s, or `failed`, is a failed test. A malformed request is not a
# marker: it stays in the output, nothing happens, and the wait fails.
# Call it with stdout on the command channel (not inside $(...)), one at a
# time (the answer is read from /dev/ttyS1).
mock_request() {
	echo "XEHPG-VM-MOCK=$1"
	_ack=
	read -r -t 15 _ack </dev/ttyS1
	[ "$_ack" = "XEHPG-VM-ACK=mock ok" ] ||
		not_ok "the mock carried out $1" "answer: '$_ack'"
}

# peer NAME [TIMEOUT]: asks the VM runner to run the host command given as
# `--peer NAME=COMMAND` (XEHPG-VM-PEER=NAME on the command channel,
# tools/vm/src/console.rs; e.g. a second VM on a VF's socket, `xehpg-vm
# --attach SOCKET`) and waits for it to end: the runner answers
# `XEHPG-VM-ACK=NAME ok` when COMMAND exited with status 0, `failed` when it
# did not, ran over --peer-timeout, could not start or another peer still
# runs. Returns 0 on `ok`, 1 otherwise and after TIMEOUT seconds (default
# 900) without an answer; it reports nothing, the caller decides (`if peer
# vf1; then ok ...; else not_ok ...; fi`). A NAME the runner was not given is
# not a marker: it stays in the output and the wait times out. Call it with
# stdout on the command channel (not inside $(...) or `check`, which
# redirect it), one at a time (the answer is read from /dev/ttyS1).
peer() {
	echo "XEHPG-VM-PEER=$1"
	_ack=
	read -r -t "${2:-900}" _ack </dev/ttyS1
	[ "$_ack" = "XEHPG-VM-ACK=$1 ok" ]
}

# devcd_of BDF: the /sys/class/devcoredump entry whose failing device is
# BDF, or nothing.
devcd_of() {
	for _c in /sys/class/devcoredump/devcd*; do
		[ -e "$_c/failing_device" ] || continue
		case $(readlink -f "$_c/failing_device") in */"$1") echo "$_c"; return ;; esac
	done
}

# guc_get BDF KEY: a value of the debugfs guc_info file.
guc_get() { sed -n "s/^$2: //p" "$DBG/$1/guc_info"; }

# hwconfig_get BDF NAME: the values of hwconfig attribute NAME (debugfs
# `hwconfig` lines read `NAME (KEY): VALUE ...`), as "(KEY): VALUE ...", so a
# caller checks the key number and the values together.
hwconfig_get() { sed -n "s/^$2 //p" "$DBG/$1/hwconfig"; }

# reload [PARAMS...]: rmmod (if loaded) and insmod the driver again.
reload() {
	rmmod xehpg 2>/dev/null
	insmod /lib/modules/xehpg.ko "$@"
}

# guc_down MESSAGE STEP: a GuC fault scenario's checks. The device is bound
# with the GuC down, the log has MESSAGE, guc_info's last_error starts with
# STEP, a reload hits the same fault, and the module unloads cleanly.
guc_down() {
	_bdf=$(gpu_bdf 0x56c0)
	check is_bound "$_bdf"
	expect_eq "GuC status" "$(guc_get "$_bdf" status)" failed
	check dmesg_has "$1"
	case "$(guc_get "$_bdf" last_error)" in
	"$2"*) ok "last_error names the step ($2)" ;;
	*) not_ok "last_error names the step ($2)" "$(guc_get "$_bdf" last_error)" ;;
	esac
	check reload
	expect_eq "GuC status after reload" "$(guc_get "$_bdf" status)" failed
	check rmmod xehpg
	check_dmesg_clean
}

# guc_up: the GuC runs and its hwconfig table was read.
guc_up() {
	_bdf=$(gpu_bdf 0x56c0)
	check is_bound "$_bdf"
	expect_eq "GuC status" "$(guc_get "$_bdf" status)" running
	_n=$(guc_get "$_bdf" hwconfig_dwords)
	if [ "${_n:-0}" -gt 2 ]; then ok "hwconfig table read ($_n dwords)"; else not_ok "hwconfig table read" "hwconfig_dwords: $_n"; fi
	# The table the driver holds is the one the mock served.
	mock_expect hwconfig_served_bytes == $((${_n:-0} * 4))
	check_dmesg_clean
}

# sqidi_part_checks: the body of the mcr-sqidi-* scenarios (one per --sqidi-part):
# only SQIDI 2 and 3 are addressed, the others refused.
sqidi_part_checks() {
	bdf=$(gpu_bdf 0x56c0)
	check is_bound "$bdf"
	check put "$bdf" forcewake_all_ctl 1
	check mcr "$bdf" write XEHP_SQCM all 0x5a5a0000
	expect_eq "steered SQIDI read returns the multicast value" "$(mcr "$bdf" read XEHP_SQCM)" 0x5a5a0000
	for i in 2 3; do
		check mcr "$bdf" write XEHP_SQCM 0 "$i" $((0x100 + i))
	done
	for i in 2 3; do
		expect_eq "SQIDI $i keeps its unicast value" "$(mcr "$bdf" read XEHP_SQCM 0 "$i")" "$(printf '0x%08x' $((0x100 + i)))"
	done
	for i in 0 1 4 5 6 7; do
		check not mcr "$bdf" read XEHP_SQCM 0 "$i"
		check not mcr "$bdf" write XEHP_SQCM 0 "$i" 0x1
	done
	check put "$bdf" forcewake_all_ctl 0
	check_dmesg_clean
	done_testing
}

# gam_primary_checks: the body of the mcr-gam-reset-* scenarios (one per
# --gam-reset-slice): GAM is read from the primary whatever the reset value.
gam_primary_checks() {
	bdf=$(gpu_bdf 0x56c0)
	check is_bound "$bdf"
	expect_eq "GAM steering target" "$(sed -n 's/^GAM *//p' "$DBG/$bdf/steering")" "1,0"
	check put "$bdf" forcewake_all_ctl 1
	check mcr "$bdf" read XEHP_GAMCNTRL_CTRL
	check mcr "$bdf" write XEHP_GAMCNTRL_CTRL all 0x3
	expect_eq "GAM multicast write reads back from the primary" "$(mcr "$bdf" read XEHP_GAMCNTRL_CTRL)" 0x00000003
	check not mcr "$bdf" read XEHP_GAMCNTRL_CTRL 1 0
	check not mcr "$bdf" read XEHP_GAMCNTRL_CTRL 0 0
	check not mcr "$bdf" write XEHP_GAMCNTRL_CTRL 0 0 0x1
	# Steering other groups must not disturb GAM.
	check mcr "$bdf" read LSC_CHICKEN_BIT_0 3 2
	expect_eq "GAM still reads from the primary" "$(mcr "$bdf" read XEHP_GAMCNTRL_CTRL)" 0x00000003
	check put "$bdf" forcewake_all_ctl 0
	check_dmesg_clean
	done_testing
}

# --- debug-kernel lane --------------------------------------------------------

# kmemleak_scan_report: has kmemleak scan twice, at least 6 s apart, and
# copies its report onto the kernel console, one `kmemleak-report: ` line
# per line of /sys/kernel/debug/kmemleak. Returns 1 without kmemleak, 2 when
# a scan or the read of the report failed (kmemleak turned itself off after
# an error of its own, say): no leak was looked for then.
kmemleak_scan_report() {
	_k=/sys/kernel/debug/kmemleak
	[ -w "$_k" ] || return 1
	# An object is reported by a scan only if it is at least 5 s old when
	# that scan starts (MSECS_MIN_AGE in mm/kmemleak.c) and its contents did
	# not change since the scan before (the first scan only notes its
	# checksum). So the first scan runs at once, and the second once what
	# the test allocated last is old enough: a scan under TCG takes about
	# that long by itself, so the wait is mostly none.
	_t0=$(cut -d. -f1 /proc/uptime)
	echo scan >"$_k" 2>/dev/null || return 2
	_left=$((_t0 + 6 - $(cut -d. -f1 /proc/uptime)))
	[ "$_left" -gt 0 ] && sleep "$_left"
	echo scan >"$_k" 2>/dev/null || return 2
	_report=$(cat "$_k" 2>/dev/null) || return 2
	printf '%s\n' "$_report" | while IFS= read -r _l; do
		[ -n "$_l" ] && echo "kmemleak-report: $_l" >/dev/kmsg
	done
	return 0
}

# debug_epilogue: run by the debug lane after a test (see EPILOGUE in
# tools/check/src/suites/kernel_log.rs, and tools/guest/group.sh), on a
# kernel with kmemleak. Unloads the driver so whatever it failed to free is
# unreferenced, has kmemleak scan (kmemleak_scan_report) and copies the
# report onto the kernel console, where the host looks for it. It says
# `kmemleak scanned` only when both scans and the read succeeded (the host
# requires that line), then ends with a marker that the epilogue ran.
debug_epilogue() {
	if grep -q '^xehpg ' /proc/modules && ! rmmod xehpg 2>/dev/null; then
		echo "debug-epilogue: rmmod xehpg failed" >/dev/kmsg
	fi
	debug_leak_scan
}

# debug_leak_scan: the leak scan of debug_epilogue and of a debug boot's end
# (tools/guest/group.sh): kmemleak_scan_report, then what became of it, then
# the `debug-epilogue: done` marker.
debug_leak_scan() {
	kmemleak_scan_report
	case $? in
	0) echo "debug-epilogue: kmemleak scanned" >/dev/kmsg ;;
	1) echo "debug-epilogue: no /sys/kernel/debug/kmemleak (kernel without kmemleak?)" >/dev/kmsg ;;
	*) echo "debug-epilogue: kmemleak scan failed" >/dev/kmsg ;;
	esac
	echo "debug-epilogue: done" >/dev/kmsg
}

# --- interrupts (debugfs irq, Documentation/debugfs.rst) ---------------------

# irq_get BDF KEY: a `key: value` line of debugfs irq.
irq_get() { sed -n "s/^$2: //p" "$DBG/$1/irq"; }

# irq_src BDF NAME: identities the driver took from source NAME.
irq_src() { sed -n "s/^source $2: \([0-9]*\) .*/\1/p" "$DBG/$1/irq"; }

# irq_armed BDF NAME: the vectors NAME has enabled and unmasked (0xVVVV).
irq_armed() { sed -n "s/^source $2: .* armed \(0x[0-9a-f]*\) .*/\1/p" "$DBG/$1/irq"; }

# irq_src_at_least BDF NAME N: source NAME delivered at least N identities.
irq_src_at_least() { [ "$(irq_src "$1" "$2")" -ge "$3" ] 2>/dev/null; }

# irq_get_at_least BDF KEY N: counter KEY of debugfs irq is at least N.
irq_get_at_least() { [ "$(irq_get "$1" "$2")" -ge "$3" ] 2>/dev/null; }

# irq_cmd BDF CMD: writes CMD to debugfs irq.
irq_cmd() { echo "$2" >"$DBG/$1/irq_ctl"; }

# proc_irq_count NAME: interrupts the kernel counted for handler NAME in
# /proc/interrupts (summed over CPUs); reading it costs no device MMIO.
proc_irq_count() {
	_pi_name=$1
	set -f
	while IFS= read -r _pi_l; do
		# shellcheck disable=SC2086 # the line's words
		set -- $_pi_l
		_pi_n=$#
		eval "_pi_last=\${$_pi_n}"
		[ "$_pi_last" = "$_pi_name" ] || continue
		shift
		_pi_s=0
		while [ $# -gt 1 ]; do
			case $1 in '' | *[!0-9]*) ;; *) _pi_s=$((_pi_s + $1)) ;; esac
			shift
		done
		set +f
		echo "$_pi_s"
		return 0
	done </proc/interrupts
	set +f
}

# ct_get BDF KEY: the rest of the debugfs ct line starting "KEY: ".
ct_get() { sed -n "s/^$2: //p" "$DBG/$1/ct"; }

# ct_cmd BDF CMD: writes a load command to debugfs ct (fails with the run's error).
ct_cmd() { echo "$2" >"$DBG/$1/ct_ctl"; }

# ct_load BDF FIELD: FIELD of the last load run (the `load:` line's FIELD=value).
ct_load() { sed -n "s/^load: \(.* \)\{0,1\}$2=\([^ ]*\).*/\2/p" "$DBG/$1/ct"; }

# ct_count BDF LINE NAME: the counter after NAME on the ct line "LINE: name N ...".
ct_count() { line_word "$DBG/$1/ct" "$2: " "$3"; }

# ct_count_is BDF LINE NAME N: that counter equals N (for wait_until).
ct_count_is() { [ "$(ct_count "$1" "$2" "$3")" = "$4" ]; }

# ct_state_is BDF PREFIX: the ct state line starts with PREFIX (for wait_until).
ct_state_is() { case "$(ct_get "$1" state)" in "$2"*) return 0 ;; esac; return 1; }

# ct_outstanding_is BDF N: N requests wait for a reply (for wait_until).
ct_outstanding_is() { [ "$(sed -n 's/^outstanding: \([^ ]*\).*/\1/p' "$DBG/$1/ct")" = "$2" ]; }

# mock_engines_driven BDF: one test, that the driver drives exactly the
# engines the mock's fuses enable in this window ($MOCK_ENGINES, from the
# runner's window answer; group.sh), so a driver that loses or invents an
# engine fails. Leaves the mock's list in $engines for the scenario's loops.
mock_engines_driven() {
	engines=$MOCK_ENGINES
	_drv=$(sed -n 's/^\([a-z0-9]*\): class .*/\1/p' "$DBG/$1/engines" | sort | tr '\n' ' ')
	_dev=$(for _e in $MOCK_ENGINES; do echo "$_e"; done | sort | tr '\n' ' ')
	expect_eq "the driver's engines are the ones the mock's fuses enable" "$_drv" "$_dev"
}

# no_nudges BDF: one test, that no engine needed a nudge (a resent
# SCHED_CONTEXT or a reload after a 2 s stall: a silent recovery the happy
# path must never need), summed over the engines of debugfs engines.
no_nudges() {
	expect_eq "no engine needed a nudge" \
		"$(awk '{ for (i = 1; i < NF; i++) if ($i == "nudges") s += $(i + 1) } END { print s + 0 }' "$DBG/$1/engines")" 0
}

# eng_get BDF ENGINE KEY: the value after KEY on ENGINE's line of debugfs
# engines (`NAME: class C ... mode M state S submitted N ...`).
eng_get() { line_word "$DBG/$1/engines" "$2: " "$3"; }

# reset_get BDF KEY: a value of the debugfs gt_reset file.
reset_get() { sed -n "s/^$2: //p" "$DBG/$1/gt_reset"; }

# resets_done_is BDF N: N GT resets have completed and none is queued or
# running (for wait_until).
resets_done_is() { [ "$(reset_get "$1" done)" = "$2" ] && [ "$(reset_get "$1" phase)" = idle ]; }

# submit_cmd BDF CMD: runs a submit selftest (`ENGINE N` or `all N`).
submit_cmd() { echo "$2" >"$DBG/$1/submit_ctl"; }

# submit_get BDF ENGINE KEY: the value after KEY on ENGINE's line of the last
# selftest's report; `payload` yields the word after it (ok, bad, unchecked).
submit_get() { line_word "$DBG/$1/submit" "$2: " "$3"; }

# submit_ok BDF ENGINE N: the last run on ENGINE retired all N requests with no
# error and every payload slot read back right.
submit_ok() {
	expect_eq "$2: $3 requests retired" "$(submit_get "$1" "$2" completed)" "$3"
	expect_eq "$2: no error" "$(submit_get "$1" "$2" errno)" 0
	expect_eq "$2: none failed" "$(submit_get "$1" "$2" failed)" 0
	expect_eq "$2: payload read back through BAR 2" "$(submit_get "$1" "$2" payload)" ok
}

# engine_count BDF: the engines debugfs engines lists (the present ones).
engine_count() { grep -c '^[a-z0-9]*: class ' "$DBG/$1/engines"; }

# boot_guc_irqs BDF: the GuC-to-host interrupts a probe raises: one per reply
# of the second boot phase (2 requests) and of each engine's GuC submission
# setup (registration, policies, enable: 3 requests; the enable's
# SCHED_CONTEXT_MODE_DONE event rides on its reply's interrupt).
boot_guc_irqs() { echo $((2 + 3 * $(engine_count "$1"))); }

# boot_guc_irqs_fit BDF COUNT: COUNT can be the boot's GuC interrupts: at least
# one, at most boot_guc_irqs (two replies written before the host cleared the
# identity share one interrupt, as on hardware; under load that happens).
boot_guc_irqs_fit() { [ "$2" -ge 1 ] && [ "$2" -le "$(boot_guc_irqs "$1")" ]; }

# --- SR-IOV (issue 13; Documentation/sriov.rst) ---

# sriov_visible BDF: loads the test-only shim for the PF and removes and
# rescans it, so the PCI core parses its SR-IOV capability; the driver binds
# again and sets up its PF.
sriov_visible() {
	insmod /lib/modules/xehpg_sriov_shim.ko "pf=$1" &&
		echo 1 >"/sys/bus/pci/devices/$1/remove" && echo 1 >/sys/bus/pci/rescan &&
		wait_until 10 is_bound "$1" && [ -e "/sys/bus/pci/devices/$1/sriov_totalvfs" ]
}

# sriov_shim_unload BDF: removes the PF (its VFs go with it) and unloads the
# shim, which restores QEMU's config accessors.
sriov_shim_unload() {
	echo 1 >"/sys/bus/pci/devices/$1/remove" && rmmod xehpg_sriov_shim &&
		echo 1 >/sys/bus/pci/rescan
}

# numvfs BDF N: writes N to sriov_numvfs (fails as the write does).
numvfs() { echo "$2" >"/sys/bus/pci/devices/$1/sriov_numvfs"; }

# sriov_get BDF FIELD: a "field: value" line of debugfs sriov.
sriov_get() { sed -n "s/^$2: //p" "$DBG/$1/sriov"; }

# sriov_vf BDF N FIELD: a field of VF N's line in debugfs sriov ("ggtt", "lmem",
# "contexts", "doorbells", "pushed", "flr"): the word after the field's name.
sriov_vf() { line_word "$DBG/$1/sriov" "vf$2: " "$3"; }

# runs_bytes LIST: the bytes of a comma-separated list of S-E ranges, as
# debugfs sriov gives a VF's local memory (its runs of 2 MiB pages, which need
# not touch).
runs_bytes() {
	sum=0
	for r in $(echo "$1" | tr , ' '); do
		sum=$((sum + ${r#*-} - ${r%-*}))
	done
	echo "$sum"
}

# --- kernel fault-injection sweeps (debug lane; Documentation/testing.rst,
# "Fault-injection sweeps") ----------------------------------------------------
#
# The kernel's per-task fail-nth (Documentation/fault-injection/
# fault-injection.rst, "/proc/<pid>/fail-nth"): writing N to the task's
# fail-nth file makes the Nth fault-injectable call the task makes fail, and
# reading it back gives 0 once that failure was injected, a positive number
# while not. It overrides failslab's and fail_page_alloc's probability,
# interval and times, but not their per-type filters, which fault_setup opens
# up. A forked process starts with none (kernel/fork.c, dup_task_struct), so
# the write a sweep aims at is a shell builtin's (`echo`), in this shell.

# fault_setup: failslab and fail_page_alloc fail only what fail-nth picks
# (probability 0), including sleeping allocations (ignore-gfp-wait N: the
# driver's are GFP_KERNEL) and single pages (min-order 0: a DMA page, a page
# table), with the injected failure and its backtrace logged (verbose 2;
# fault_frames reads it). ignore-gfp-highmem stays Y, its default: only user pages ask for
# highmem, and this shell's own page faults must not fail under it.
# Two kinds of calls are left out, so that the points are the driver's and
# the sweep fits CI's time:
# - kmemleak's record of each object (mm/kmemleak.c, __alloc_object) falls
#   back to its own pool when its allocation fails, so every allocation of
#   the driver's would add a point that always succeeds, a whole bind and
#   unbind each, telling nothing about the driver. failslab's cache filter
#   (cache-filter Y) fails only caches marked in /sys/kernel/slab/*/failslab,
#   and every cache is marked but kmemleak's (the boot's slab_debug=Z keeps
#   caches from merging, so each takes the mark; an alias refuses it, its
#   cache has it). A cache created later is not marked. The procfs entry
#   cache (proc_dir_entry) is left unmarked too: request_irq's
#   register_irq_proc (kernel/irq/proc.c) ignores an entry it could not
#   create, and free_irq's unregister_irq_proc then WARNs in
#   remove_proc_entry about the missing name: the kernel's, not the
#   driver's.
# - the kernel's ACPI IRQ routing lookup (drivers/acpi/pci_irq.c,
#   acpi_pci_irq_lookup, run by pci_enable_device and pci_disable_device):
#   the stack-trace filter (fail_stacktrace in lib/fault-inject.c) rejects
#   every call with it on the stack. Its failures are absorbed ("can't
#   derive routing"), each a whole bind and unbind, and one of them left
#   ACPICA's namespace with a freed object (KASAN slab-use-after-free in
#   acpi_ns_get_attached_object at the next pci_disable_device, after
#   "Could not update object reference count"): a kernel bug outside the
#   driver (Documentation/testing.rst, "Fault-injection sweeps").
# fault_setup FUNC rejects FUNC instead (one range per fault type): the
# SR-IOV sweep rejects pci_iov_add_virtfn (drivers/pci/iov.c), the PCI
# core's creation of one VF, which does not survive a failed allocation:
# pci_setup_device ignores a failed dev_set_name, and pci_device_add
# (drivers/pci/probe.c) only WARNs when device_add fails and goes on with a
# device that was never added, so the VF's removal in the error path
# oopses (NULL dereference in kill_device). The PCI core's, not the
# driver's.
# The range is the function's symbol to the next one in /proc/kallsyms.
# Fails if the debug kernel's fault injection is missing.
fault_setup() {
	echo 0 >/proc/sys/kernel/kptr_restrict
	_fs_rej=$(grep -A1 " ${1:-acpi_pci_irq_lookup}\$" /proc/kallsyms | cut -d' ' -f1)
	set -- $_fs_rej
	[ $# = 2 ] || return 1
	for _fs in /sys/kernel/debug/failslab /sys/kernel/debug/fail_page_alloc; do
		[ -d "$_fs" ] || return 1
		echo 0 >"$_fs/probability" &&
			echo N >"$_fs/ignore-gfp-wait" &&
			echo 2 >"$_fs/verbose" &&
			echo 0 >"$_fs/require-start" &&
			echo 0xffffffffffffffff >"$_fs/require-end" &&
			echo "0x$1" >"$_fs/reject-start" &&
			echo "0x$2" >"$_fs/reject-end" || return 1
	done
	echo 0 >/sys/kernel/debug/fail_page_alloc/min-order
	for _fs in /sys/kernel/slab/*; do
		case ${_fs##*/} in kmemleak_* | proc_dir_entry) continue ;; esac
		[ -L "$_fs" ] || echo 1 2>/dev/null >"$_fs/failslab"
	done
	echo Y >/sys/kernel/debug/failslab/cache-filter
}

# fault_teardown: back to the kernel's defaults for what fault_setup changed.
fault_teardown() {
	for _fs in /sys/kernel/debug/failslab /sys/kernel/debug/fail_page_alloc; do
		echo Y >"$_fs/ignore-gfp-wait"
		echo 2 >"$_fs/verbose"
		echo 0 >"$_fs/reject-start"
		echo 0 >"$_fs/reject-end"
	done
	echo N >/sys/kernel/debug/failslab/cache-filter
	echo 1 >/sys/kernel/debug/fail_page_alloc/min-order
}

# fault_try N FILE VALUE: writes VALUE to FILE (one write(2), the shell's
# `echo`) with this task's Nth fault-injectable call failing. Every file is
# opened before fail-nth is set (an open allocates a struct file, which would
# be a failure point of the shell's, not of the write), and the write's error
# message goes to a /dev/null opened then too. Leaves fault_rc, the write's
# status (0: it succeeded), and fault_hit: 1 if the failure was injected
# during the write, 0 if the write finished with fewer than N calls (then
# fail-nth is cleared again, so nothing after fails).
fault_try() {
	exec 3>"$2" 4</proc/thread-self/fail-nth 5<>/proc/thread-self/fail-nth 6>/dev/null
	echo "$1" >&5
	echo "$3" >&3 2>&6
	fault_rc=$?
	_ft_left=
	read -r _ft_left <&4
	if [ "$_ft_left" = 0 ]; then
		fault_hit=1
	else
		fault_hit=0
		echo 0 >&5
	fi
	exec 3>&- 4<&- 5>&- 6>&-
}

# fault_attempt_log: the kernel log since the last call (dmesg -c: the host
# still sees every line on the console), left in $fault_log; fails, with the
# reports in $fault_bad, if it has a report of the kernel's detectors: the
# lines tools/check's kernel_log.rs counts (KASAN, UBSAN, lockdep, a sleep
# in atomic context, debugobjects, list corruption, a Rust panic, BUG, WARN,
# Oops). An injected failure's own lines (FAULT_INJECTION, a page
# allocation failure's backtrace) are not reports. One process a call (the
# match is the shell's). Call it once before a sweep, so the boot's benign
# lines (ODEBUG's selftest) are gone.
fault_attempt_log() {
	fault_log=$(dmesg -c)
	fault_bad=
	case $fault_log in
	*"BUG: "* | *"WARNING: "* | *"Oops: "* | *"Kernel panic"* | *"UBSAN: "* | \
		*"ODEBUG: "* | *" corruption"* | *"panicked at "* | *"INFO: possible"*)
		fault_bad=$(printf '%s\n' "$fault_log" |
			grep -E -A8 'BUG: |WARNING: |Oops: |Kernel panic|UBSAN: |ODEBUG: | corruption|panicked at |INFO: possible' |
			head -n 30)
		return 1
		;;
	esac
	return 0
}

# bus_master BDF: Bus Master Enable (PCI Command register, config offset 4,
# bit 2) of BDF as the device answers a config read: 0 or 1.
bus_master() {
	_bm=$(od -An -tx2 -j4 -N2 "/sys/bus/pci/devices/$1/config")
	echo $(((0x${_bm##* } >> 2) & 1))
}

# intx_release BDF: turns MSI on and off again in BDF's config space, so that
# QEMU stops emulating INTx for it and starts afresh. QEMU's vfio-pci (which
# vfio-user-pci is) turns the device's BAR mmaps off when it delivers an INTx
# (hw/vfio/pci.c, vfio_intx_interrupt). Measured here, after an INTx that no
# driver took (mock-control's spurious interrupt), they stayed off into the
# next scenario until its driver enabled MSI, which disables INTx emulation
# and maps the BARs again (vfio_msi_enable, vfio_intx_disable): the next
# probe then wrote the GGTT's million entries through the socket, 61 s where
# 0.4 s is usual. Only for an unbound function with an MSI capability.
intx_release() {
	_ir_cfg=/sys/bus/pci/devices/$1/config
	# One read of the standard header; the capability list is walked in it.
	# shellcheck disable=SC2046 # the bytes are separate words
	set -- $(od -An -tx1 -v -N256 "$_ir_cfg")
	eval "_ir_at=\$((0x\${$((0x34 + 1))}))"
	_ir_n=0
	while [ "$_ir_at" -ne 0 ] && [ "$_ir_n" -lt 48 ]; do
		eval "_ir_id=\${$((_ir_at + 1))}"
		if [ "$_ir_id" = 05 ]; then
			printf '\001' | dd of="$_ir_cfg" bs=1 seek=$((_ir_at + 2)) conv=notrunc 2>/dev/null &&
				printf '\000' | dd of="$_ir_cfg" bs=1 seek=$((_ir_at + 2)) conv=notrunc 2>/dev/null
			return
		fi
		eval "_ir_at=\$((0x\${$((_ir_at + 2))}))"
		_ir_n=$((_ir_n + 1))
	done
	return 1
}

# fault_sweep LABEL FILE VALUE CLEAN UNDO: the sweep of one write. Runs
# fault_try N FILE VALUE for N = 1, 2, ... up to $FAULT_ALL (default: no
# limit), then every $FAULT_STEP-th N (default 1: every one; a sample is
# deterministic, the same N on every run), until the write finishes before
# its Nth call: nothing was injected then, and that write's status is left
# in fault_rc for the caller to judge. After each attempt with an injected
# failure: the attempt's kernel log must have no detector report
# (fault_attempt_log); if the write succeeded anyway (the failed call had a
# fallback) UNDO must give back what it made; then CLEAN must find the state
# as before the write. Both are shell functions that add to $fault_why what
# is wrong (nothing: all is well). Each attempt is a diagnostic line ("LABEL
# point N: ..."); a failed attempt is a failed TAP line of its own, and a
# sweep with none ends in one passing line. The number of failure points
# moves a little from run to run (the kernel's own allocations on the
# path), so it is not the assertion count: the floor
# (tools/check-floor.toml) keeps a stable count, and fault_report checks the
# number of points against the scenario's FAULT_MIN. At most
# $FAULT_MAX (default 3000) attempts. Leaves fault_points (attempts with an
# injected failure), fault_last (the last such N), fault_fallbacks,
# fault_slab and fault_pages (attempts whose log names failslab or
# fail_page_alloc; the kernel rate-limits those lines, so at least), and
# fault_secs (the sweep's wall time).
fault_sweep() {
	_fw_label=$1 _fw_file=$2 _fw_value=$3 _fw_clean=$4 _fw_undo=$5
	fault_points=0 fault_last=0 fault_fallbacks=0 fault_slab=0 fault_pages=0
	_fw_n=0 _fw_failed=0
	fault_attempt_log >/dev/null
	read -r _fw_t0 _fw_rest </proc/uptime
	while [ "$_fw_n" -lt "${FAULT_MAX:-3000}" ]; do
		if [ -z "${FAULT_ALL:-}" ] || [ "$_fw_n" -lt "$FAULT_ALL" ]; then
			_fw_n=$((_fw_n + 1))
		else
			_fw_n=$((_fw_n + ${FAULT_STEP:-1}))
		fi
		fault_try "$_fw_n" "$_fw_file" "$_fw_value"
		[ "$fault_hit" = 1 ] || break
		fault_points=$((fault_points + 1))
		fault_last=$_fw_n
		fault_why=
		fault_attempt_log || fault_why="kernel log: $fault_bad"
		case $fault_log in *"name failslab,"*) fault_slab=$((fault_slab + 1)) ;; esac
		case $fault_log in *"name fail_page_alloc,"*) fault_pages=$((fault_pages + 1)) ;; esac
		if [ "$fault_rc" = 0 ]; then
			fault_fallbacks=$((fault_fallbacks + 1))
			diag "$_fw_label point $_fw_n: absorbed under $(printf '%s\n' "$fault_log" | fault_frames)"
			"$_fw_undo"
		fi
		"$_fw_clean"
		if [ -z "$fault_why" ]; then
			diag "$_fw_label point $_fw_n: survived (write status $fault_rc)"
		else
			_fw_failed=$((_fw_failed + 1))
			not_ok "$_fw_label point $_fw_n: survived" "$fault_why"
		fi
	done
	if [ "$_fw_failed" = 0 ]; then
		ok "$_fw_label: each of the $fault_points failure points survived"
	fi
	fault_n=$_fw_n
	read -r _fw_t1 _fw_rest </proc/uptime
	fault_secs=$((${_fw_t1%.*} - ${_fw_t0%.*}))
}

# fault_frames: reads a kernel log, prints the first callers of the call
# fault injection failed (from the backtrace fail_dump logs with verbose 2,
# innermost first; the fault-injection, allocator and dump frames and the
# unreliable "? " entries left out), then the innermost frame of the
# driver's module if it is not among them, or "(no backtrace logged)" when
# the kernel's rate limit dropped it.
fault_frames() {
	awk '/FAULT_INJECTION: forcing a failure/ { on = 1; n = 0; out = ""; mod = ""; next }
		on && /<\/TASK>/ { on = 0; done = 1 }
		on && !done && !/\] +\? / {
			for (i = 1; i <= NF; i++) {
				if ($i !~ /\+0x/) continue
				f = $i; sub(/\+0x.*/, "", f)
				if (f ~ /^(dump_stack|fail_dump|should_fail|__should_fail|kmalloc|__kmalloc|kmem_cache_alloc|__kmem_cache_alloc|slab_|___slab|__slab|alloc_pages|__alloc_pages|alloc_frozen|__alloc_frozen|prepare_alloc_pages|get_page_from|krealloc|__krealloc|kvmalloc|__kvmalloc|kvrealloc|__kvrealloc|kzalloc|kcalloc|__get_free|kmalloc_)/) continue
				if (n < 4) { out = out (n ? " < " : "") f; n++; if (/\[xehpg\]/) mod = "in" }
				else if (mod == "" && /\[xehpg\]/) mod = f
			}
		}
		END {
			if (out == "") { print "(no backtrace logged)"; exit }
			if (mod != "" && mod != "in") out = out " < ... < " mod
			print out
		}'
}

# fault_report LABEL MIN: the sweep's summary line and its two tests: it
# ended with an attempt nothing was injected into (not at FAULT_MAX), and it
# found at least MIN failure points.
fault_report() {
	if [ -n "${FAULT_ALL:-}" ] && [ "${FAULT_STEP:-1}" -gt 1 ]; then
		_fr_how="sampled: every N to $FAULT_ALL, then every ${FAULT_STEP}th; the last failing N was $fault_last"
	else
		_fr_how="every N"
	fi
	diag "$1: $fault_points failure points ($_fr_how), all survived: $fault_fallbacks absorbed by a fallback; failslab >= $fault_slab, fail_page_alloc >= $fault_pages; $fault_secs s"
	expect_eq "$1: the sweep ended with an attempt nothing was injected into" "$fault_hit" 0
	if [ "$fault_points" -ge "$2" ]; then
		ok "$1: $fault_points failure points, all survived (at least $2)"
	else
		not_ok "$1: at least $2 failure points" "found $fault_points"
	fi
}
