#!/bin/sh
# Surprise removal in the middle of operation: the driver is bound with the
# GuC running, readers loop over every debugfs file, a writer toggles
# forcewake_all and another runs mcr commands; then the card vanishes (the
# runner passes the request to the mock over its control FIFO, and its BAR0
# registers read all ones from then on; tools/vm, Documentation/mock.rst).
# The driver must notice (a dev_err naming the device and the 0xffffffff it
# read, once per domain, not a flood), every
# command after it must fail instead of hanging, the readers keep working on
# what the driver holds in memory, and unbind (which cannot reset the GuC of
# a vanished card: it says so, turns bus mastering off and frees the GuC's
# memory instead of leaking it) and rmmod must still complete. A new insmod
# then refuses the dead device at probe.
# expect-mock: surprise_removals == 1
# expect-mock: violations == 0
# timeout: 240
. /tests/lib.sh

dev=$(gpu_dev 0x56c0)
bdf=${dev##*/}
drv=/sys/bus/pci/drivers/xehpg
dir=/sys/kernel/debug/xehpg/$bdf
check is_bound "$bdf"
expect_eq "GuC status" "$(guc_get "$bdf" status)" running
# The reports (the `_ctl` command files are write-only).
files=$(cd "$dir" && find . -type f -perm -400 | sed "s|^\./||" | sort)
out=/tmp/act
mkdir -p $out

# reader FILE: reads FILE until told to stop; counts reads and failures.
reader() {
	good=0 bad=0
	while [ ! -e $out/stop ]; do
		if cat "$dir/$1" >/dev/null 2>>$out/read-$1.err; then good=$((good + 1)); else bad=$((bad + 1)); fi
	done
	echo "$good $bad" >$out/read-$1.done
}
# writer NAME FILE CMD...: writes the commands in turn until told to stop;
# counts successes and failures, keeps the error texts.
writer() {
	name=$1 file=$2
	shift 2
	good=0 bad=0
	while [ ! -e $out/stop ]; do
		for c in "$@"; do
			if echo "$c" >"$dir/$file" 2>>$out/$name.err; then good=$((good + 1)); else bad=$((bad + 1)); fi
		done
	done
	echo "$good $bad" >$out/$name.done
}
pids=
for f in $files; do
	reader "$f" &
	pids="$pids $!"
done
writer fw forcewake_all_ctl 1 0 &
pids="$pids $!"
writer mcr mcr_ctl "read FF_MODE" "read LSC_CHICKEN_BIT_0" "write XEHP_SQCM all 0x5a5a0000" &
pids="$pids $!"
nact=$(echo $pids | wc -w)
sleep 2
check not test -s $out/fw.err
check not test -s $out/mcr.err

diag "asking the runner for the surprise removal"
mock_request surprise-removal
wait_until 30 dmesg_has "0xffffffff, device not responding"
line=$(dmesg | grep "0xffffffff, device not responding" | head -n 1)
case "$line" in
*"xehpg $bdf: forcewake: domain "*": ack register reads 0xffffffff, device not responding"*)
	ok "the driver noticed within ${waited} s and named the device and the value" ;;
*) not_ok "the driver noticed within 30 s and named the device and the value" "${line:-no such message}" ;;
esac
# Let the activity run into the dead device for a while.
sleep 3
touch $out/stop
wait_until 30 files_at_least "$out/*.done" "$nact"
expect_eq "activities that stopped within 30 s (no hang)" "$(count_files "$out/*.done")" "$nact"
for p in $pids; do kill "$p" 2>/dev/null; done
read mcr_ok mcr_bad <$out/mcr.done
read fw_ok fw_bad <$out/fw.done
diag "mcr commands: $mcr_ok ok, $mcr_bad failed; forcewake_all writes: $fw_ok ok, $fw_bad failed"
if [ "${mcr_bad:-0}" -gt 0 ] && [ "${fw_bad:-0}" -gt 0 ]; then
	ok "commands failed after the removal"
else
	not_ok "commands failed after the removal" "mcr $mcr_bad, forcewake_all $fw_bad"
fi
other=$(cat $out/mcr.err $out/fw.err | grep -v -e 'Input/output error' | sort | uniq -c)
if [ -z "$other" ]; then ok "every failed command failed with EIO"; else not_ok "every failed command failed with EIO" "$other"; fi
rb=$(cat $out/read-*.err 2>/dev/null | sort | uniq -c)
if [ -z "$rb" ]; then ok "reads of what the driver holds kept working"; else not_ok "reads of what the driver holds kept working" "$rb"; fi
n=$(dmesg | grep -c "0xffffffff, device not responding")
dead=$(fw_counter "$bdf" dead_domains)
diag "dead-ack messages: $n; dead domains: $dead"
if [ "$n" -ge 1 ] && [ "$n" -eq "${dead:-0}" ]; then
	ok "one message per dead domain, no flood"
else
	not_ok "one message per dead domain, no flood" "$n messages, $dead dead domains"
fi
check not mcr "$bdf" read FF_MODE
expect_eq "mcr after the removal" "$(cat "$DBG/$bdf/mcr")" "error -5"
expect_eq "platform still readable" "$(info_get "$bdf" platform)" ATS-M150
for d in GT RENDER; do
	expect_eq "$d refs after the removal" "$(fw_field "$bdf" $d refs)" 0
done

# Unbind and rmmod still complete, in the background so a hang is a failure.
(echo "$bdf" >$drv/unbind; echo $? >$out/unbind.rc) &
wait_until 60 test -e $out/unbind.rc
expect_eq "unbind returned within 60 s with status" "$(cat $out/unbind.rc 2>/dev/null)" 0
check not is_bound "$bdf"
check not test -e "$dir"
check not iomem_has "xehpg/"
check dmesg_has "guc: device gone at unbind"
check dmesg_has "bus mastering off, freeing its memory"
(rmmod xehpg; echo $? >$out/rmmod.rc) &
wait_until 60 test -e $out/rmmod.rc
expect_eq "rmmod returned within 60 s with status" "$(cat $out/rmmod.rc 2>/dev/null)" 0
check not test -e /sys/kernel/debug/xehpg

# The card stays gone: a new probe refuses it.
check insmod /lib/modules/xehpg.ko
check not is_bound "$bdf"
check dmesg_has "GU_CNTL reads 0xffffffff: the device does not respond"
check rmmod xehpg
check_dmesg_clean
done_testing
