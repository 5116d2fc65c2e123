#!/bin/sh
# Everything an operator reads stays readable under kernel lockdown, as on a
# Secure Boot host (Debian's kernel locks down to "integrity" there):
# debugfs then refuses any file with a write bit, even for reading
# (fs/debugfs/file.c debugfs_locked_down), so the driver keeps reports (0400)
# and commands (`_ctl`, 0200) apart (Documentation/debugfs.rst, "Under
# lockdown"). The driver and the SR-IOV shim are loaded and two VFs enabled
# before lockdown goes on through securityfs (the test kernel has the lockdown
# LSM, tools/kernel-xe.config); then every report is read and checked against
# the device, every command file is refused, the VFs go away and the driver
# unbinds as usual.
# own-boot: lockdown stays on until the next boot and refuses the unsigned modules every later scenario loads
# plain-only: lockdown also shuts the debug lane's kmemleak control file, so no leak scan could follow it
# guest-module: sriov-shim
# guest-tools: host
# expect-mock: sriov.isolation_violations == 0
# expect-mock: violations == 0
# timeout: 240
. /tests/lib.sh

dev=$(gpu_dev 0x56c0)
bdf=${dev##*/}
dir=$DBG/$bdf

check sriov_visible "$bdf"
echo 0 >"$dev/sriov_drivers_autoprobe"
check numvfs "$bdf" 2

# No file is both a report and a command file.
both=$(find "$dir" -type f -perm -600)
expect_eq "files both readable and writable" "$both" ""
reports=$(cd "$dir" && find . -type f -perm -400 | sed 's|^\./||' | sort)
ctls=$(cd "$dir" && find . -type f -perm -200 | sed 's|^\./||' | sort)
diag "reports:" $reports "commands:" $ctls
for f in $ctls; do
	case $f in
	*_ctl) ok "$f is a command file" ;;
	*) not_ok "$f is a command file (named *_ctl)" ;;
	esac
done

# Lockdown on, as a Secure Boot host boots.
grep -q ' /sys/kernel/security ' /proc/mounts || mount -t securityfs securityfs /sys/kernel/security
check test -e /sys/kernel/security/lockdown
check sh -c 'echo integrity >/sys/kernel/security/lockdown'
expect_eq "lockdown mode" "$(cat /sys/kernel/security/lockdown)" "none [integrity] confidentiality"

# Every report reads whole.
for f in $reports; do
	if cat "$dir/$f" >/tmp/ld.$f 2>/tmp/ld.err; then
		ok "$f reads under lockdown"
	else
		not_ok "$f reads under lockdown" "$(cat /tmp/ld.err)"
	fi
done
# What they say is the device's: the GuC runs, the CT is up, the two VFs the
# PCI core shows hold shares, the engines are the fuses'.
expect_eq "guc_info status" "$(sed -n 's/^status: //p' /tmp/ld.guc_info)" running
expect_eq "ct state" "$(sed -n 's/^state: //p' /tmp/ld.ct)" up
expect_eq "VFs on the bus" "$(cat "$dev/sriov_numvfs")" 2
expect_eq "sriov: provisioned" "$(sed -n 's/^provisioned: //p' /tmp/ld.sriov)" 2
expect_eq "sriov: a line per VF" "$(grep -c '^vf[12]: ' /tmp/ld.sriov)" 2
for e in $MOCK_ENGINES; do
	check grep -q "^$e: " /tmp/ld.engines
done
check grep -q '^interrupts: [1-9]' /tmp/ld.irq
# The GuC's log whole: the buffer upstream lays out, 4 KiB + 64 KiB + 16 KiB + 1 MiB.
expect_eq "guc_log bytes" "$(wc -c </tmp/ld.guc_log)" $((0x115000))

# Every command file is refused, and says so in the kernel log.
for f in $ctls; do
	if sh -c 'echo 0 >"$1"' _ "$dir/$f" 2>/tmp/ld.err; then
		not_ok "$f refused under lockdown"
	elif grep -q 'Operation not permitted' /tmp/ld.err; then
		ok "$f refused under lockdown (EPERM)"
	else
		not_ok "$f refused under lockdown (EPERM)" "$(cat /tmp/ld.err)"
	fi
done
check sh -c "dmesg | grep -q 'Lockdown: .*debugfs access is restricted'"
# A refused command changed nothing.
expect_eq "forcewake_all still released" "$(cat "$dir/forcewake_all")" 0

# The operator's smoke test under lockdown: lockdown and the refused
# selftest are warnings, not failures; every report is read.
xehpg-smoke --load /lib/modules/xehpg.ko >/tmp/smoke.out 2>&1
expect_eq "xehpg-smoke under lockdown: exit status" "$?" 0
diag "$(cat /tmp/smoke.out)"
check grep -q '^WARN lockdown: .*integrity' /tmp/smoke.out
check grep -q '^WARN selftest: refused under lockdown' /tmp/smoke.out
nreports=$(echo $reports | wc -w)
check grep -q "^PASS debugfs: read $nreports of $nreports files" /tmp/smoke.out

# Operating the VFs does not need debugfs: they go as usual.
check numvfs "$bdf" 0
expect_eq "sriov: provisioned after disable" "$(sriov_get "$bdf" provisioned)" 0
check sriov_shim_unload "$bdf"
check_dmesg_clean
done_testing
