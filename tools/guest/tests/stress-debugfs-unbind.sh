#!/bin/sh
# sysfs unbind while every file of the device's debugfs directory (listed at
# run time, so files added later are covered) is read in loops by concurrent
# readers, some holding one descriptor, some opening the file anew. Three
# rounds: each unbind must return, every reader must stop with an error (no
# hang), the directory must be gone, and after the rebind the device works:
# info and guc_info read back, an mcr command runs, forcewake is balanced.
# vcpus: 2
# timeout: 300
. /tests/lib.sh

ROUNDS=3
bdf=$(gpu_bdf 0x56c0)
drv=/sys/bus/pci/drivers/xehpg
dir=/sys/kernel/debug/xehpg/$bdf
check is_bound "$bdf"
# The reports (the `_ctl` command files are write-only).
files=$(cd "$dir" && find . -type f -perm -400 | sed "s|^\./||" | sort)
nfiles=$(echo $files | wc -w)
if [ "$nfiles" -ge 1 ]; then ok "debugfs files found ($nfiles)"; else not_ok "debugfs files found"; fi

# held_reader FILE OUT: reads one descriptor of FILE until a read fails.
held_reader() {
	exec 3<"$dir/$1" || { echo open >"$2.done"; return; }
	n=0
	while dd bs=4096 count=1 <&3 >/dev/null 2>"$2.err"; do
		n=$((n + 1))
		[ $n -eq 1 ] && : >"$2.ready"
	done
	echo "$n" >"$2.done"
}
# fresh_reader FILE OUT: opens and reads FILE until that fails.
fresh_reader() {
	n=0
	while cat "$dir/$1" >/dev/null 2>"$2.err"; do
		n=$((n + 1))
		[ $n -eq 1 ] && : >"$2.ready"
	done
	echo "$n" >"$2.done"
}

for p in unbind gone stopped hung read rebound works; do eval "bad_$p=0"; done
r=0
while [ $r -lt $ROUNDS ]; do
	r=$((r + 1))
	out=/tmp/round$r
	mkdir -p $out
	pids=
	for f in $files; do
		held_reader "$f" "$out/held-$f" &
		pids="$pids $!"
		fresh_reader "$f" "$out/fresh-$f" &
		pids="$pids $!"
	done
	nreaders=$(echo $pids | wc -w)
	# Unbind once every reader has read its file (slow on the debug kernel).
	wait_until 30 files_at_least "$out/*.ready" "$nreaders"
	sleep 1
	(echo "$bdf" >$drv/unbind; echo $? >$out/unbind.rc) &
	wait_until 60 test -e $out/unbind.rc
	[ "$(cat $out/unbind.rc 2>/dev/null)" = 0 ] || bad_unbind=$((bad_unbind + 1))
	{ ! is_bound "$bdf" && [ ! -e "$dir" ]; } || bad_gone=$((bad_gone + 1))
	wait_until 20 files_at_least "$out/*.done" "$nreaders"
	stopped=$(count_files "$out/*.done")
	[ "$stopped" -eq "$nreaders" ] || { bad_stopped=$((bad_stopped + 1)); diag "round $r: $stopped of $nreaders readers stopped"; }
	for p in $pids; do kill -0 "$p" 2>/dev/null && { bad_hung=$((bad_hung + 1)); kill "$p"; }; done
	# Every reader had read its file before the unbind took it away.
	idle=$(cat $out/*.done 2>/dev/null | grep -cx 0)
	[ "$idle" -eq 0 ] || { bad_read=$((bad_read + 1)); diag "round $r: $idle readers never read"; }
	echo "$bdf" >$drv/bind && is_bound "$bdf" || bad_rebound=$((bad_rebound + 1))
	works=yes
	[ "$(info_get "$bdf" platform)" = ATS-M150 ] || works="info: $(info_get "$bdf" platform)"
	[ "$(guc_get "$bdf" status)" = running ] || works="guc: $(guc_get "$bdf" status)"
	mcr "$bdf" read FF_MODE >/dev/null || works="mcr: $(cat "$DBG/$bdf/mcr")"
	[ "$(fw_field "$bdf" GT refs)" = 0 ] || works="GT refs: $(fw_field "$bdf" GT refs)"
	[ "$works" = yes ] || { bad_works=$((bad_works + 1)); diag "round $r: $works"; }
done

# report NAME DESC: one TAP line for a property over all rounds.
report() {
	eval "n=\$bad_$1"
	if [ "$n" -eq 0 ]; then ok "$2 in $ROUNDS/$ROUNDS rounds"; else not_ok "$2 in $ROUNDS/$ROUNDS rounds" "failed in $n rounds"; fi
}
report unbind "unbind returned 0 within 60 s under $((nfiles * 2)) readers"
report gone "unbind removed the binding and the debugfs directory"
report stopped "every reader stopped on a failed read within 20 s"
report hung "no reader left running"
report read "every reader read its file before the unbind"
report rebound "bind bound the device again"
report works "info, guc_info, an mcr command and forcewake work after the rebind"
expect_eq "forcewake failures" "$(fw_counter "$bdf" failures)" 0
check rmmod xehpg
check_dmesg_clean
done_testing
