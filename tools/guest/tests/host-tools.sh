#!/bin/sh
# The host tools (tools/host, Documentation/install.rst) in the guest against
# the mock. xehpg-smoke runs first as before installing (--no-load: the host
# steps), then loads the test build itself with --load and runs every step:
# each step's verdict line must be there, and each is held to what the
# device and the guest are, read from sysfs, procfs and the mock, not from
# the driver's report: the PCI ID and address, BAR 2's size from the
# resource file against the mock's 16 GiB of local memory (its default,
# tools/mock/src/cli.rs: a small BAR, so a warning), the engines the
# selftest ran against those the mock's fuses enable ($MOCK_ENGINES), the
# VFs against sriov_totalvfs (SR-IOV made visible by the test-only shim
# before the load), every debugfs file read. Then xehpg-report's archive:
# the kernel log with the driver's probe line, every debugfs file, the
# versions (kernel, module, the firmware's SHA-256), the PCI view (config
# space byte for byte), the module parameters and a MANIFEST without a
# failure. Last, a load that fails fails the tool's exit status.
# no-load
# guest-module: sriov-shim
# guest-tools: host
# timeout: 300
# The smoke test enabled 2 VFs and disabled them: both configurations went
# to the GuC and were reset there, nothing shared, nothing left.
# expect-mock: sriov.vf_cfg_updates >= 2
# expect-mock: sriov.vf_cfg_resets == 2
# expect-mock: sriov.vfs_configured == 0
# expect-mock: sriov.isolation_violations == 0
# expect-mock: violations == 0
# expect-mock: unknown_accesses == 0
. /tests/lib.sh

dev=$(gpu_dev 0x56c0)
bdf=${dev##*/}
fw=/lib/firmware/i915/dg2_guc_70.bin
out=/tmp/smoke.out

# line STEP: the verdict line of STEP in the last smoke output.
line() { grep "^[A-Z]* $1: " "$out"; }

# expect_line DESC PREFIX: a verdict line of the last output begins with
# PREFIX (a fixed string).
expect_line() {
	while IFS= read -r _el; do
		case $_el in "$2"*) ok "$1"; return ;; esac
	done <"$out"
	not_ok "$1" "wanted a line starting: $2" "$(cat "$out")"
}

# The guest's own facts.
read -r release </proc/sys/kernel/osrelease
fw_size=$(wc -c <"$fw")
# Lockdown is readable once securityfs is mounted (the plain kernel has the
# LSM; a kernel without it has no file, which the tool reports as a pass).
mounted_sec=
if [ ! -e /sys/kernel/security/lockdown ] && mount -t securityfs securityfs /sys/kernel/security 2>/dev/null; then
	mounted_sec=1
fi
if [ -e /sys/kernel/security/lockdown ]; then
	mode=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/security/lockdown)
	lockdown_seen="lockdown $mode"
else
	mode=none
	lockdown_seen="no lockdown file"
fi
[ -d /sys/firmware/efi ] && efi="Secure Boot" || efi="not an EFI boot"
iommus=$(count_files "/sys/class/iommu/*")
# BAR 2 from the resource file: its third line.
{ read -r _ _ _; read -r _ _ _; read -r b2_start b2_end _; } <"$dev/resource"
bar2=$((b2_end - b2_start + 1))

# --- before installing ----------------------------------------------------
xehpg-smoke --no-load >"$out" 2>&1
expect_eq "smoke --no-load: exit status" "$?" 0
diag "$(cat "$out")"
expect_line "kernel: the release uname gives" "PASS kernel: $release (7.3 or newer needed)"
expect_line "firmware: the file and its size" "PASS firmware: $fw ($fw_size bytes)"
if [ "$iommus" = 0 ]; then
	expect_line "iommu: none registered, a warning" "WARN iommu: none registered"
else
	expect_line "iommu: registered" "PASS iommu: "
fi
expect_line "pci: the function's address and ID from sysfs, unbound" "PASS pci: $bdf 8086:56c0 ATS-M150"
check not grep -q "^PASS pci: .*bound to" "$out"
if [ "$mode" = none ]; then
	expect_line "lockdown as the kernel says" "PASS lockdown: $lockdown_seen"
else
	expect_line "lockdown as the kernel says" "WARN lockdown: $lockdown_seen"
fi
check grep -q "^[A-Z]* lockdown: .*; $efi" "$out"
expect_line "load skipped, and why" "SKIP load: xehpg not loaded (--no-load)"
expect_line "bar2: the resource file's size, local memory unknown" \
	"PASS bar2: $((bar2 >> 20)) MiB (local memory unknown"
check not test -e /sys/module/xehpg

# --- SR-IOV visible (the test-only shim), then the whole run --------------
check insmod /lib/modules/xehpg_sriov_shim.ko "pf=$bdf"
echo 1 >"$dev/remove" && echo 1 >/sys/bus/pci/rescan
check wait_until 10 test -e "$dev/sriov_totalvfs"
read -r total <"$dev/sriov_totalvfs"

xehpg-smoke --load /lib/modules/xehpg.ko --vfs 2 --requests 10 >"$out" 2>&1
expect_eq "smoke --load: exit status" "$?" 0
diag "$(cat "$out")"
for step in kernel firmware iommu pci lockdown load bound bar2 guc selftest sriov debugfs; do
	if line "$step" >/dev/null; then ok "a verdict line for $step"; else not_ok "a verdict line for $step"; fi
done
expect_line "load: the file given" "PASS load: /lib/modules/xehpg.ko loaded in "
check is_bound "$bdf"
expect_line "bound, as sysfs says" "PASS bound: $bdf bound to xehpg"
expect_line "bar2: the resource file's size against the mock's 16 GiB" \
	"WARN bar2: $((bar2 >> 20)) MiB of 16 GiB local memory (small BAR)"
expect_line "guc: running" "PASS guc: running, firmware release "
# The selftest's engines are the mock's, in any order.
engines=$(sed -n 's/^PASS selftest: 10 requests on each of [0-9]* engines (\(.*\))$/\1/p' "$out")
expect_eq "selftest: the engines the mock's fuses enable" \
	"$(echo "$engines" | tr ' ' '\n' | sort | tr '\n' ' ')" \
	"$(echo "$MOCK_ENGINES" | tr ' ' '\n' | sort | tr '\n' ' ')"
expect_line "sriov: 2 of sriov_totalvfs enabled and disabled" \
	"PASS sriov: enabled 2 of $total VFs and disabled them"
expect_eq "no VF left" "$(cat "$dev/sriov_numvfs")" 0
# The reports: the write-only `_ctl` command files have nothing to read.
files=$(find "$DBG/$bdf" -type f -perm -400 | wc -l)
expect_line "debugfs: every report of the directory read" \
	"PASS debugfs: read $files of $files files in $DBG/$bdf"
expect_line "the summary: nothing failed" "xehpg-smoke: "
check grep -q "^xehpg-smoke: [0-9]* passed, [0-9]* warned, 0 failed, 0 skipped$" "$out"

# --- the report -------------------------------------------------------------
path=$(xehpg-report -o /tmp/report.tar.gz 2>/tmp/report.err)
expect_eq "report: exit status" "$?" 0
expect_eq "report: the archive's path printed" "$path" /tmp/report.tar.gz
mkdir -p /tmp/x && check tar -xzf /tmp/report.tar.gz -C /tmp/x
r=/tmp/x/xehpg-report
diag "$(grep -v '^ok ' "$r/MANIFEST")"
check grep -q "^xehpg-report [0-9.]*: [0-9]* files, 0 failed$" "$r/MANIFEST"
# The probe line of this load as the kernel log has it, its time included.
probe=$(dmesg | grep "xehpg $bdf: ATS-M150 rev .*, bound$" | tail -n 1)
check test -n "$probe"
check grep -qxF "$probe" "$r/dmesg.txt"
n=0
bad=
for f in $(find "$DBG/$bdf" -type f -perm -400); do
	n=$((n + 1))
	[ -f "$r/fs$f" ] || bad="$bad ${f##*/}"
done
expect_eq "report: every debugfs report ($n)" "${bad:-none missing}" "none missing"
# The GuC's log whole, binary (debugfs guc_log).
expect_eq "report: the GuC log's bytes" "$(wc -c <"$r/fs$DBG/$bdf/guc_log")" $((0x115000))
check cmp "$DBG/$bdf/info" "$r/fs$DBG/$bdf/info"
check cmp "$dev/config" "$r/fs/sys/bus/pci/devices/$bdf/config"
check cmp "$dev/resource" "$r/fs/sys/bus/pci/devices/$bdf/resource"
expect_eq "report: sriov_totalvfs" "$(cat "$r/fs/sys/bus/pci/devices/$bdf/sriov_totalvfs")" "$total"
for p in /sys/module/xehpg/parameters/*; do
	check cmp "$p" "$r/fs$p"
done
check grep -qx "uname: .* $release .*" "$r/versions.txt"
srcversion="(none)"
[ -e /sys/module/xehpg/srcversion ] && read -r srcversion </sys/module/xehpg/srcversion
check grep -qxF "xehpg_srcversion: $srcversion" "$r/versions.txt"
sum=$(sha256sum "$fw")
check grep -qx "guc_firmware: $fw size $fw_size sha256 ${sum%% *}" "$r/versions.txt"
check grep -q "^note    /sys/bus/pci/devices/$bdf/driver -> xehpg$" "$r/MANIFEST"
rm -rf /tmp/x /tmp/report.tar.gz

# --- a failing step fails the exit status -----------------------------------
check rmmod xehpg
xehpg-smoke --load /tmp/none.ko >"$out" 2>&1
expect_eq "smoke with a module that is not there: exit status" "$?" 1
expect_line "load: the failure named" "FAIL load: "
check not grep -q "^[A-Z]* bound: " "$out"

[ -n "$mounted_sec" ] && umount /sys/kernel/security
check sriov_shim_unload "$bdf"
check_dmesg_clean
done_testing
