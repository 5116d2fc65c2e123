#!/bin/sh
# Hostile input to every file the driver makes writable, found by permission
# bits so a file added later is covered without editing this test: writable
# files under /sys/kernel/debug/xehpg/, under /sys/bus/pci/drivers/xehpg/ and
# /sys/module/xehpg/parameters/, and writable attributes of the device that
# exist only while the driver is bound (driver-created; today there are
# none). Each gets, as one write(2) each (dd with a block size above the
# payload): a lone newline, 1 MiB, negative and overflowing numbers (2^64,
# 99999999999999999999, 0x1ffffffff, alone and inside an mcr-shaped
# command), binary bytes with NUL (alone and after a valid "1"), and format
# strings. Every write must fail, and the driver must still work afterwards:
# a valid command runs, forcewake is back to no reference, info reads back.
#
# A 0-byte write is not in the list: no busybox tool issues write(2) with a
# count of 0 (`printf '' >f` and dd of an empty file write nothing). What it
# would exercise is covered: the debugfs files trim the command, so a 0-byte
# write and a lone newline both reach the parser as "" (rust/debugfs.rs,
# read_command), and sysfs returns 0 for a 0-byte write before any store
# method runs (fs/sysfs/file.c, sysfs_kf_write).
#
# Last, mcr and forcewake_all writes race a sysfs unbind: each write either
# runs, or fails with ENODEV (unbind under way), EIO (a held descriptor of a
# removed file) or ENOENT (the file is gone); nothing else, and no hang.
# timeout: 240
. /tests/lib.sh

dev=$(gpu_dev 0x56c0)
bdf=${dev##*/}
drv=/sys/bus/pci/drivers/xehpg
check is_bound "$bdf"

# Driver-created device attributes: writable while bound, absent unbound.
(cd "$dev" && find . -type f -perm -200 | sort) >/tmp/attrs.bound
echo "$bdf" >$drv/unbind
(cd "$dev" && find . -type f -perm -200 | sort) >/tmp/attrs.unbound
echo "$bdf" >$drv/bind
check is_bound "$bdf"
devattrs=$(grep -vxF -f /tmp/attrs.unbound /tmp/attrs.bound | sed "s|^\.|$dev|")

dbgfiles=$(find /sys/kernel/debug/xehpg -type f -perm -200 | sort)
drvfiles=$(find $drv /sys/module/xehpg/parameters -maxdepth 1 -type f -perm -200 2>/dev/null | sort)
n=$(echo $dbgfiles | wc -w)
if [ "$n" -ge 2 ]; then ok "writable debugfs files found ($n)"; else not_ok "writable debugfs files found" "$dbgfiles"; fi
diag "debugfs:" $dbgfiles "driver and module:" $drvfiles "device attributes:" ${devattrs:-none}

p=/tmp/payload
mkdir -p $p
printf '\n' >$p/newline
head -c 1048576 /dev/zero | tr '\0' 1 >$p/1MiB
printf -- '-1\n' >$p/minus-one
printf -- '-9223372036854775808\n' >$p/i64-min
printf '18446744073709551616\n' >$p/2pow64
printf '99999999999999999999\n' >$p/twenty-nines
printf '0x1ffffffff\n' >$p/hex-u33
printf 'write FF_MODE all -1\n' >$p/cmd-negative
printf 'write FF_MODE all 18446744073709551616\n' >$p/cmd-2pow64
printf 'write FF_MODE all 0x1ffffffff\n' >$p/cmd-hex-u33
printf 'read FF_MODE 99999999999999999999 0\n' >$p/cmd-group-overflow
printf 'read LSC_CHICKEN_BIT_0 -1 -1\n' >$p/cmd-negative-instance
printf '\000\001\002\177\200\376\377\n' >$p/binary
printf '1\000\n' >$p/one-nul
printf '\000' >$p/nul
printf '%%s%%n%%x%%p\n' >$p/fmt
printf '%%n%%n%%n%%n%%s%%s%%s%%s\n' >$p/fmt-n
npay=$(ls $p | wc -l)

# hostile FILE: every payload, one write each; prints the accepted ones.
hostile() {
	for pl in $(ls $p); do
		if dd if=$p/$pl of="$1" bs=2097152 count=1 conv=notrunc 2>/tmp/dd.err; then
			echo "$pl accepted"
		elif ! grep -q -e 'Invalid argument' -e 'No such device' -e 'No such file' \
			-e 'Argument list too long' -e 'Numerical result out of range' /tmp/dd.err; then
			echo "$pl: unexpected error: $(tail -n 1 /tmp/dd.err)"
		fi
	done
}
for f in $dbgfiles $drvfiles $devattrs; do
	bad=$(hostile "$f")
	if [ -z "$bad" ]; then
		ok "$f refuses all $npay hostile inputs"
	else
		not_ok "$f refuses all $npay hostile inputs" "$bad"
	fi
	# After each file the device is still there and idle.
	is_bound "$bdf" || { not_ok "still bound after $f"; echo "$bdf" >$drv/bind; }
done

# The driver still works.
check is_bound "$bdf"
expect_eq "platform still readable" "$(info_get "$bdf" platform)" ATS-M150
expect_eq "mcr result after hostile input" "$(cat "$DBG/$bdf/mcr")" "error -22"
check mcr "$bdf" read FF_MODE
check put "$bdf" forcewake_all_ctl 1
expect_eq "RENDER refs while held" "$(fw_field "$bdf" RENDER refs)" 1
check put "$bdf" forcewake_all_ctl 0
for d in GT RENDER VDBOX0 VEBOX0; do
	expect_eq "$d refs after hostile input" "$(fw_field "$bdf" $d refs)" 0
done
expect_eq "forcewake failures" "$(fw_counter "$bdf" failures)" 0
expect_eq "GuC still running" "$(guc_get "$bdf" status)" running

# Writes racing unbind. Each writer keeps one descriptor (so it also meets
# the removed file) and logs the error text of every failed write.
race_writer() {
	exec 4>"$DBG/$bdf/$1" || return
	n=0
	while [ ! -e /tmp/race.stop ]; do
		echo "$2" >&4 2>>/tmp/race.$1.err || :
		n=$((n + 1))
	done
	echo $n >/tmp/race.$1.count
}
rounds=5
r=0
while [ $r -lt $rounds ]; do
	r=$((r + 1))
	rm -f /tmp/race.stop
	race_writer mcr_ctl "read FF_MODE" &
	w1=$!
	race_writer forcewake_all_ctl 1 &
	w2=$!
	sleep 1
	(echo "$bdf" >$drv/unbind; echo $? >/tmp/race.unbind.$r) &
	wait_until 60 test -e /tmp/race.unbind.$r
	touch /tmp/race.stop
	wait_until 20 none_running $w1 $w2
	expect_eq "round $r: unbind under racing writes returned" "$(cat /tmp/race.unbind.$r 2>/dev/null)" 0
	if kill -0 $w1 2>/dev/null || kill -0 $w2 2>/dev/null; then
		not_ok "round $r: racing writers stopped"
		kill $w1 $w2 2>/dev/null
	else
		ok "round $r: racing writers stopped"
	fi
	check sh -c "echo $bdf > $drv/bind"
done
errs=$(cat /tmp/race.*.err 2>/dev/null | sed 's/.*: //' | sort | uniq -c)
diag "errors the racing writes met:" "$errs"
other=$(cat /tmp/race.*.err 2>/dev/null | grep -v -e 'No such device' -e 'Input/output error' -e 'No such file' | head -n 5)
if [ -z "$other" ]; then ok "racing writes failed only with ENODEV, EIO or ENOENT"; else not_ok "racing writes failed only with ENODEV, EIO or ENOENT" "$other"; fi
expect_eq "GT refs after the races and rebind" "$(fw_field "$bdf" GT refs)" 0
check mcr "$bdf" read FF_MODE
check rmmod xehpg
check_dmesg_clean
done_testing
