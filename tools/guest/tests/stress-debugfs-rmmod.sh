#!/bin/sh
# rmmod while every debugfs file of the device is held open by this shell
# and read in loops by background readers, some through the held descriptors,
# some opening the file anew each time. rmmod must succeed and return; every
# reader must then see an error (EIO through a held descriptor, ENOENT or EIO
# for a fresh open), none may hang; closing the held descriptors after the
# module is gone must not crash; nothing is left in debugfs and the module
# loads and binds again.
# vcpus: 2
# timeout: 240
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
dir=/sys/kernel/debug/xehpg/$bdf
check is_bound "$bdf"
# The reports (the `_ctl` command files are write-only).
files=$(cd "$dir" && find . -type f -perm -400 | sed "s|^\./||" | sort)
nfiles=$(echo $files | wc -w)
if [ "$nfiles" -ge 1 ]; then ok "debugfs files found ($nfiles)"; else not_ok "debugfs files found"; fi

out=/tmp/readers
mkdir -p $out
# held_reader FILE TAG: a shell that opens FILE once and keeps the descriptor
# (busybox sh redirects only descriptors 0-9, so each file gets its own
# holder), reads it until a read fails (after the first pass a seq_file at
# its end reads 0 bytes, which is success, but the debugfs proxy's liveness
# check runs on every read), then waits for $out/close, tries one late read
# and only then closes the descriptor: after the module is gone.
held_reader() {
	exec 3<"$dir/$1" || { echo open >$out/held$2.done; return; }
	n=0
	while dd bs=4096 count=1 <&3 >/dev/null 2>$out/held$2.err; do
		n=$((n + 1))
	done
	echo "$n" >$out/held$2.done
	while [ ! -e $out/close ]; do sleep 1; done
	if dd bs=4096 count=1 <&3 >/dev/null 2>/dev/null; then echo read; else echo refused; fi >$out/held$2.late
	exec 3<&-
	echo closed >$out/held$2.closed
}
# fresh_reader FILE TAG: opens and reads FILE until that fails.
fresh_reader() {
	n=0
	while cat "$dir/$1" >/dev/null 2>$out/fresh$2.err; do
		n=$((n + 1))
	done
	echo "$n" >$out/fresh$2.done
}
pids=
t=0
for f in $files; do
	held_reader "$f" $t &
	pids="$pids $!"
	fresh_reader "$f" $t &
	pids="$pids $!"
	t=$((t + 1))
done
nreaders=$(echo $pids | wc -w)
# Let every reader get going before the module goes.
sleep 2
running=0
for p in $pids; do kill -0 "$p" 2>/dev/null && running=$((running + 1)); done
expect_eq "readers running before rmmod" "$running" "$nreaders"

# rmmod in the background, so a hang is a failed check, not a timeout.
(rmmod xehpg; echo $? >$out/rmmod.rc) &
rmpid=$!
wait_until 60 test -e $out/rmmod.rc
expect_eq "rmmod returned within 60 s with status" "$(cat $out/rmmod.rc 2>/dev/null)" 0
check not test -e /sys/kernel/debug/xehpg
check not grep -q '^xehpg ' /proc/modules

# Every reader stops with an error within 20 s; the held ones then wait.
wait_until 20 files_at_least "$out/*.done" "$nreaders"
stopped=$(count_files "$out/*.done")
expect_eq "readers that stopped on a failed read within 20 s of rmmod" "$stopped" "$nreaders"
eio=$(grep -l 'Input/output error' $out/held*.err 2>/dev/null | wc -l)
if [ "$eio" -eq "$nfiles" ]; then
	ok "every held descriptor's read fails with EIO after rmmod"
else
	not_ok "every held descriptor's read fails with EIO after rmmod" "$eio of $nfiles" "$(cat $out/held*.err | sort | uniq -c)"
fi
# A read that starts now, through a held descriptor, fails too; then the
# descriptors are closed, releasing files whose module is gone.
touch $out/close
wait_until 20 files_at_least "$out/*.closed" "$nfiles"
expect_eq "held descriptors refusing a late read" "$(cat $out/held*.late 2>/dev/null | grep -c refused)" "$nfiles"
expect_eq "held descriptors closed after rmmod" "$(ls $out/*.closed 2>/dev/null | wc -l)" "$nfiles"
for p in $pids $rmpid; do kill "$p" 2>/dev/null; done

check insmod /lib/modules/xehpg.ko
check is_bound "$bdf"
expect_eq "GuC status after reload" "$(guc_get "$bdf" status)" running
expect_eq "platform after reload" "$(info_get "$bdf" platform)" ATS-M150
check rmmod xehpg
check_dmesg_clean
done_testing
