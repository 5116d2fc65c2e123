#!/bin/sh
# `make bench`, the guest side: MMIO cycles (and wall time) per driver
# operation, measured through the xehpg debugfs files. Run by
# `xehpg-check --bench` after xehpg.ko is loaded; busybox sh compatible.
#
# Every measurement repeats one `mcr` command N times and reads the driver's
# own counter (debugfs mmio_stats) before and after. Output, one line each:
#
#   bench NAME n=N reads=R writes=W ns=T      R, W: MMIO over the N runs;
#                                            T: wall time in ns (shell and
#                                            debugfs overhead included), or -
#                                            without a nanosecond clock
#   bench mmio_stats reads=R writes=W        the driver's totals, last
#   bench error TEXT                         the bench could not run
#
# NAMEs (the host turns them into per-operation figures):
#   cold_steered_read    `read LSC_CHICKEN_BIT_0`, nothing held: forcewake
#                        get + put of RENDER around a steered read
#   held_steered_read    the same with forcewake_all held
#   held_gam_read        `read XEHP_GAMCNTRL_CTRL` held: a GT-domain read with
#                        no steering write, so anything beyond 1 read is the
#                        nested forcewake get/put
#   held_unicast_read    `read LSC_CHICKEN_BIT_0 G I` held (G,I: the DSS default)
#   held_unicast_write   `write LSC_CHICKEN_BIT_0 G I V` held
#   held_multicast_write `write LSC_CHICKEN_BIT_0 all V` held
#   guc_load             the probe-time GuC load (reset to READY, hwconfig
#                        included), from debugfs guc_info, when the GuC runs
#   irq_guc              BENCH_IRQ_N GuC-to-host interrupts raised back to
#                        back by the mock (`mock_request irq:...`): the
#                        driver's MMIO per handled interrupt and the burst's
#                        wall time
#   irq_engine           the same with RCS0 user interrupts
#   ct_request           BENCH_CT_N blocking CT requests (debugfs ct `ping`);
#                        the figures are the driver's own for the run
#                        (register cycles of the whole device, time in ns)
#   ct_fast_batched      8 x BENCH_CT_N fast requests, 64 per notify, then
#                        one request (`fast`)
#   ct_fast_each         BENCH_CT_N fast requests, a notify each, then one
#                        request (`fast-each`)
#   mmio_h2g             BENCH_CT_N MMIO H2G round trips (`mmio-ping`)
#
# `bench.sh execlist` (the second boot, force_execlist=1) measures submission
# instead, from the debugfs submit selftest's own figures:
#   irq_engine_el        as irq_engine, in this boot (to subtract)
#   exec_burst           one run of BENCH_SUBMIT_N requests on rcs0, queued as
#                        fast as the ring takes them
#   exec_single          BENCH_SINGLE_N runs of one request each (a Load, the
#                        forcewake get and put and the interrupts every time)
#   exec_blit            `blit 16`: 16 MiB copied by bcs0 (n counts MiB), with
#                        memcpy_ns, the CPU copying the same size
# Their lines add loads=L irqs=I p50_ns=M p99_ns=P (ELSQ Loads, the engine's
# interrupt identities, latency percentiles; exec_single sums and takes the
# largest percentiles). The default boot measures GuC submission the same way
# (guc_burst, guc_single) when the GuC schedules.
#
# `bench.sh doorbell` (a third boot, guc_doorbells=1) measures GuC submission
# through MMIO doorbells the same way, when the GuC armed rcs0's:
#   irq_engine_db        as irq_engine, in this boot (to subtract)
#   db_burst, db_single  as guc_burst, guc_single

#
# `bench.sh sriov` (a fourth boot, modules copied but not loaded) makes the
# mock's SR-IOV visible with the test-only shim (Documentation/sriov.rst,
# "Guest shim"), loads xehpg, and measures the PF's provisioning layer through
# debugfs `sriov` (`provision N`, no VF on the bus, so 63 VFs work), for N in
# BENCH_SRIOV_VFS (default "1 7 63"):
#   relay_handshake      BENCH_RELAY_N VF1 handshakes over the relay, one at
#                        a time (`relay_measure`; the host times them from
#                        the mock's trace)
#   sriov_provision_N    `provision N`
#   sriov_unprovision_N  `unprovision` of those N
# Their lines add h2g=H g2h=G (CT messages sent, received: debugfs ct),
# ggtt_bytes=B lmtt_bytes=L memcpy_ns=M clear_ggtt_bytes=C vfs=N from the
# driver's `provision_last`/`unprovision_last` line (C: the part of B the
# local-memory clears wrote); ns is the driver's own time of
# the operation. After each provision the whole debugfs `sriov` text follows
# as `sriov-map N: LINE` lines (the host saves them for tools/sriov-map).

N=${BENCH_N:-50}
DBG=/sys/kernel/debug/xehpg
PHASE=${1:-default}

fail() {
	echo "bench error $*"
	exit 1
}

# The sriov boot loads the modules itself: the shim must see the PF before
# xehpg binds it (the PCI core reads SR-IOV when it scans the device), and
# xehpg's MMIO count must start with the mock's (nothing else touches BAR 0).
if [ "$PHASE" = sriov ]; then
	pf=
	for p in /sys/bus/pci/devices/*; do
		[ "$(cat "$p/vendor")" = 0x8086 ] || continue
		case $(cat "$p/class") in 0x03*) pf=${p##*/} ;; esac
	done
	[ -n "$pf" ] || fail "sriov: no Intel display device"
	insmod /lib/modules/xehpg_sriov_shim.ko "pf=$pf" || fail "sriov: the shim refused $pf"
	echo 1 >"/sys/bus/pci/devices/$pf/remove" && echo 1 >/sys/bus/pci/rescan ||
		fail "sriov: remove and rescan of $pf failed"
	insmod /lib/modules/xehpg.ko || fail "sriov: insmod xehpg failed"
	_k=0
	while [ ! -e "/sys/bus/pci/drivers/xehpg/$pf" ] && [ $_k -lt 100 ]; do
		sleep 0.1
		_k=$((_k + 1))
	done
fi

bdf=
for d in /sys/bus/pci/drivers/xehpg/0000:*; do
	[ -e "$d" ] && { bdf=${d##*/}; break; }
done
[ -n "$bdf" ] || fail "no device bound to xehpg"
dir=$DBG/$bdf
[ -r "$dir/mmio_stats" ] || fail "no $dir/mmio_stats"

# A nanosecond clock: `date +%s%N` if busybox date has %N, else the
# monotonic "now at N nsecs" of /proc/timer_list; nothing if neither works.
now_ns() {
	_t=$(date +%s%N 2>/dev/null)
	case $_t in
	*[!0-9]* | "") _t=$(sed -n 's/^now at \([0-9]*\) nsecs$/\1/p' /proc/timer_list 2>/dev/null | head -n 1) ;;
	esac
	case $_t in
	*[!0-9]* | "") ;;
	*) echo "$_t" ;;
	esac
}

# counts: "READS WRITES" from mmio_stats.
counts() {
	awk '$1 == "reads:" { r = $2 } $1 == "writes:" { w = $2 } END { print r, w }' "$dir/mmio_stats"
}

# measure NAME CMD: run the mcr command CMD N times; print its bench line.
measure() {
	_name=$1
	shift
	set -- $(counts) "$*"
	_r0=$1 _w0=$2 _cmd=$3
	_t0=$(now_ns)
	_i=0
	while [ "$_i" -lt "$N" ]; do
		echo "$_cmd" >"$dir/mcr_ctl" || fail "$_name: mcr '$_cmd' refused ($(cat "$dir/mcr"))"
		_i=$((_i + 1))
	done
	_t1=$(now_ns)
	set -- $(counts)
	if [ -n "$_t0" ] && [ -n "$_t1" ]; then _ns=$((_t1 - _t0)); else _ns=-; fi
	echo "bench $_name n=$N reads=$(($1 - _r0)) writes=$(($2 - _w0)) ns=$_ns"
}

# submit_run ENGINE N: one selftest run; prints "N NS LOADS IRQS READS WRITES
# P50_NS P99_NS" from its report line, IRQS being the interrupt identities
# the engine's source raised meanwhile (debugfs irq), which is what the top
# half's MMIO is per.
submit_run() {
	_i0=$(irq_src "$1")
	echo "$1 $2" >"$dir/submit_ctl" || fail "submit '$1 $2' refused"
	_i1=$(irq_src "$1")
	_l=$(sed -n "s/^$1: //p" "$dir/submit")
	set -- $(echo "$_l" | sed -n 's/.* completed \([0-9]*\) failed 0 errno 0 payload ok latency_us median \([0-9]*\) p99 \([0-9]*\) elapsed_us \([0-9]*\) rate [0-9]*\/s loads \([0-9]*\) interrupts [0-9]* mmio_reads \([0-9]*\) mmio_writes \([0-9]*\)$/\1 \4 \5 \6 \7 \2 \3/p')
	[ $# -eq 7 ] || fail "submit: run failed or no report: $_l"
	echo "$1 $(($2 * 1000)) $3 $((_i1 - _i0)) $4 $5 $(($6 * 1000)) $(($7 * 1000))"
}

if [ "$PHASE" = execlist ] || [ "$PHASE" = doorbell ]; then
	[ -w "$dir/submit" ] || fail "no $dir/submit"
fi

# h2g_g2h: "SENT RECEIVED", the CT messages of debugfs ct (no register read).
h2g_g2h() {
	sed -n -e 's/^sent: requests \([0-9]*\) fast \([0-9]*\) .*/\1 \2/p' \
		-e 's/^received: replies \([0-9]*\) events \([0-9]*\) .*/\1 \2/p' "$dir/ct" |
		awk 'NR == 1 { s = $1 + $2 } NR == 2 { r = $1 + $2 } END { print s + 0, r + 0 }'
}

# sriov_measure OP N: writes the debugfs sriov command of OP (provision N or
# unprovision) and prints its bench line.
sriov_measure() {
	_op=$1 _n=$2
	set -- $(counts) $(h2g_g2h)
	_r0=$1 _w0=$2 _s0=$3 _g0=$4
	if [ "$_op" = provision ]; then _cmd="provision $_n"; else _cmd=unprovision; fi
	echo "$_cmd" >"$dir/sriov_ctl" || fail "sriov: '$_cmd' refused"
	set -- $(counts) $(h2g_g2h)
	_r1=$1 _w1=$2 _s1=$3 _g1=$4
	# "vfs V ns T ggtt_bytes B lmtt_bytes L memcpy_ns M clear_ggtt_bytes C"
	set -- $(sed -n "s/^${_op}_last: //p" "$dir/sriov")
	[ $# -eq 12 ] && [ "$1 $3 $5 $7 $9 ${11}" = "vfs ns ggtt_bytes lmtt_bytes memcpy_ns clear_ggtt_bytes" ] &&
		[ "$2" = "$_n" ] || fail "sriov: no ${_op}_last line for $_n VFs ($*)"
	echo "bench sriov_${_op}_$_n n=1 reads=$((_r1 - _r0)) writes=$((_w1 - _w0)) ns=$4 h2g=$((_s1 - _s0)) g2h=$((_g1 - _g0)) ggtt_bytes=$6 lmtt_bytes=$8 memcpy_ns=${10} clear_ggtt_bytes=${12} vfs=$2"
}

# relay_measure: with one VF provisioned, BENCH_RELAY_N VF2PF_HANDSHAKE
# relays from VF1 (the mock standing for its driver, `vf:relay-burst:1:1`),
# one at a time: the next once the PF answered the last (debugfs sriov
# relay_served). The host times each from the mock's trace (GUC2PF_RELAY_FROM_VF
# queued to the PF's answer taken); the line's ns includes the console.
relay_measure() {
	echo "provision 1" >"$dir/sriov_ctl" || fail "sriov: 'provision 1' refused"
	_s0=$(sed -n 's/^relay_served: //p' "$dir/sriov")
	set -- $(counts)
	_r0=$1 _w0=$2
	_t0=$(now_ns)
	_k=0
	while [ "$_k" -lt "${BENCH_RELAY_N:-32}" ]; do
		echo "XEHPG-VM-MOCK=vf:relay-burst:1:1"
		_ack=
		read -r -t 15 _ack </dev/ttyS1
		[ "$_ack" = "XEHPG-VM-ACK=mock ok" ] || fail "relay: the mock did not take the request (answer: '$_ack')"
		_k=$((_k + 1))
		_waited=0
		while [ "$(sed -n 's/^relay_served: //p' "$dir/sriov")" -lt $((_s0 + _k)) ]; do
			_waited=$((_waited + 1))
			[ $_waited -gt 1000 ] && fail "relay: relay $_k not answered in 10 s"
			sleep 0.01
		done
	done
	_t1=$(now_ns)
	if [ -n "$_t0" ] && [ -n "$_t1" ]; then _ns=$((_t1 - _t0)); else _ns=-; fi
	set -- $(counts)
	echo "bench relay_handshake n=$_k reads=$(($1 - _r0)) writes=$(($2 - _w0)) ns=$_ns"
	echo unprovision >"$dir/sriov_ctl" || fail "sriov: 'unprovision' refused"
}

if [ "$PHASE" = sriov ]; then
	[ -w "$dir/sriov" ] || fail "no $dir/sriov"
	_t=$(sed -n 's/^total_vfs: //p' "$dir/sriov")
	[ "${_t:-0}" -gt 0 ] || fail "sriov: not an SR-IOV PF ($(head -n 1 "$dir/sriov"))"
	[ "$(sed -n 's/^state: //p' "$dir/ct")" = up ] || fail "sriov: the CT is not up"
	relay_measure
	for n in ${BENCH_SRIOV_VFS:-1 7 63}; do
		sriov_measure provision "$n"
		sed "s/^/sriov-map $n: /" "$dir/sriov"
		sriov_measure unprovision "$n"
	done
	set -- $(counts)
	echo "bench mmio_stats reads=$1 writes=$2"
	exit 0
fi

# single_measure NAME: BENCH_SINGLE_N runs of one request on rcs0, summed
# (the percentiles are the largest of the runs).
single_measure() {
	_name=$1
	_k=0 _ns=0 _lo=0 _ir=0 _r=0 _w=0 _p50=0 _p99=0
	while [ "$_k" -lt "${BENCH_SINGLE_N:-100}" ]; do
		set -- $(submit_run rcs0 1)
		_ns=$((_ns + $2)) _lo=$((_lo + $3)) _ir=$((_ir + $4)) _r=$((_r + $5)) _w=$((_w + $6))
		[ "$7" -gt "$_p50" ] && _p50=$7
		[ "$8" -gt "$_p99" ] && _p99=$8
		_k=$((_k + 1))
	done
	echo "bench $_name n=$_k reads=$_r writes=$_w ns=$_ns loads=$_lo irqs=$_ir p50_ns=$_p50 p99_ns=$_p99"
}

# The DSS instance reads are steered to by default: "DSS  G,I" in `steering`.
dss=$(awk '$1 == "DSS" { print $2 }' "$dir/steering")
case $dss in
*,*) g=${dss%,*} i=${dss#*,} ;;
*) fail "no DSS instance in $dir/steering ('$dss')" ;;
esac

echo 0 >"$dir/forcewake_all_ctl" || fail "cannot release forcewake_all"
measure cold_steered_read read LSC_CHICKEN_BIT_0

echo 1 >"$dir/forcewake_all_ctl" || fail "cannot hold forcewake_all"
measure held_steered_read read LSC_CHICKEN_BIT_0
measure held_gam_read read XEHP_GAMCNTRL_CTRL
measure held_unicast_read read LSC_CHICKEN_BIT_0 "$g" "$i"
measure held_unicast_write write LSC_CHICKEN_BIT_0 "$g" "$i" 0x1
measure held_multicast_write write LSC_CHICKEN_BIT_0 all 0x2
echo 0 >"$dir/forcewake_all_ctl" || fail "cannot release forcewake_all"

# irq_measure NAME SOURCE DATA: the mock raises BENCH_IRQ_N events of DATA on
# SOURCE, each as soon as the previous one was serviced; the wait reads
# /proc/interrupts (no device MMIO), so the MMIO delta is the handler's own.
IRQ_N=${BENCH_IRQ_N:-1000}
irq_count() {
	awk '$NF == "xehpg" { s = 0; for (i = 2; i < NF; i++) if ($i ~ /^[0-9]+$/) s += $i; print s; exit }' /proc/interrupts
}
irq_src() { sed -n "s/^source $1: \([0-9]*\) .*/\1/p" "$dir/irq"; }
irq_measure() {
	_name=$1 _src=$2 _data=$3
	_c0=$(irq_count)
	[ -n "$_c0" ] || fail "$_name: no xehpg line in /proc/interrupts"
	_e0=$(irq_src "$_src")
	set -- $(counts)
	_r0=$1 _w0=$2
	_t0=$(now_ns)
	echo "XEHPG-VM-MOCK=irq:$_src:$_data:$IRQ_N"
	# The runner answers once the mock has queued the events.
	_ack=
	read -r -t 15 _ack </dev/ttyS1
	[ "$_ack" = "XEHPG-VM-ACK=mock ok" ] || fail "$_name: the mock did not take the request (answer: '$_ack')"
	_waited=0
	while [ "$(irq_count)" -lt $((_c0 + IRQ_N)) ]; do
		_waited=$((_waited + 1))
		[ $_waited -gt 3000 ] && fail "$_name: only $(($(irq_count) - _c0)) of $IRQ_N interrupts in 300 s"
		sleep 0.1
	done
	_t1=$(now_ns)
	set -- $(counts)
	_e1=$(irq_src "$_src")
	[ $((_e1 - _e0)) -eq "$IRQ_N" ] || fail "$_name: the driver took $((_e1 - _e0)) $_src events, not $IRQ_N"
	if [ -n "$_t0" ] && [ -n "$_t1" ]; then _ns=$((_t1 - _t0)); else _ns=-; fi
	echo "bench $_name n=$IRQ_N reads=$(($1 - _r0)) writes=$(($2 - _w0)) ns=$_ns"
}
[ -r "$dir/irq" ] || fail "no $dir/irq"
if [ "$PHASE" = execlist ]; then
	irq_measure irq_engine_el rcs0 0x0001
	set -- $(submit_run rcs0 "${BENCH_SUBMIT_N:-2000}")
	echo "bench exec_burst n=$1 reads=$5 writes=$6 ns=$2 loads=$3 irqs=$4 p50_ns=$7 p99_ns=$8"
	single_measure exec_single
	# 16 MiB through the copy engine against the CPU's memcpy of the same size.
	set -- $(counts)
	_r0=$1 _w0=$2
	echo "blit 16" >"$dir/submit_ctl" || fail "blit refused"
	_b=$(sed -n 's/^blit: mib 16 errno 0 data ok blit_us \([0-9]*\) memcpy_us \([0-9]*\) .*/\1 \2/p' "$dir/submit")
	[ -n "$_b" ] || fail "blit: $(sed -n 's/^blit: //p' "$dir/submit")"
	set -- $(counts) $_b
	echo "bench exec_blit n=16 reads=$(($1 - _r0)) writes=$(($2 - _w0)) ns=$(($3 * 1000)) memcpy_ns=$(($4 * 1000))"
	set -- $(counts)
	echo "bench mmio_stats reads=$1 writes=$2"
	exit 0
fi
if [ "$PHASE" = doorbell ]; then
	_db=$(sed -n 's/^doorbells: \([0-9]*\) of .*/\1/p' "$dir/engines")
	[ "${_db:-0}" -gt 0 ] || fail "doorbell: the GuC armed no doorbell ($(sed -n 's/^doorbells: //p' "$dir/engines"))"
	irq_measure irq_engine_db rcs0 0x0001
	set -- $(submit_run rcs0 "${BENCH_SUBMIT_N:-2000}")
	echo "bench db_burst n=$1 reads=$5 writes=$6 ns=$2 loads=$3 irqs=$4 p50_ns=$7 p99_ns=$8"
	single_measure db_single
	set -- $(counts)
	echo "bench mmio_stats reads=$1 writes=$2"
	exit 0
fi
if [ "$(sed -n 's/^source guc: .* armed \(0x[0-9a-f]*\) .*/\1/p' "$dir/irq")" = 0x8000 ]; then
	irq_measure irq_guc guc 0x8000
fi
irq_measure irq_engine rcs0 0x0001

# ct_measure NAME COMMAND N: one debugfs ct load run, as the driver measured it.
CT_N=${BENCH_CT_N:-1000}
ct_measure() {
	_name=$1
	echo "$2 $3" >"$dir/ct_ctl" || fail "$_name: ct '$2 $3' failed: $(sed -n 's/^load: //p' "$dir/ct")"
	set -- $(sed -n 's/^load: [a-z-]* n=\([0-9]*\) done=[0-9]* ns=\([0-9]*\) reads=\([0-9]*\) writes=\([0-9]*\) .*/\1 \2 \3 \4/p' "$dir/ct")
	[ $# -eq 4 ] || fail "$_name: no load line in $dir/ct"
	echo "bench $_name n=$1 reads=$3 writes=$4 ns=$2"
}
if [ "$(sed -n 's/^state: //p' "$dir/ct" 2>/dev/null)" = up ]; then
	ct_measure ct_request ping "$CT_N"
	ct_measure ct_fast_batched fast $((CT_N * 8))
	ct_measure ct_fast_each fast-each "$CT_N"
	ct_measure mmio_h2g mmio-ping "$CT_N"
fi

# GuC submission, when the GuC schedules (debugfs engines says mode guc).
if [ "$(sed -n 's/^rcs0: .* mode \([a-z]*\) .*/\1/p' "$dir/engines")" = guc ]; then
	set -- $(submit_run rcs0 "${BENCH_SUBMIT_N:-2000}")
	echo "bench guc_burst n=$1 reads=$5 writes=$6 ns=$2 loads=$3 irqs=$4 p50_ns=$7 p99_ns=$8"
	single_measure guc_single
fi

# Last: nothing touches the BAR after this, so the mock's totals must match.
set -- $(counts)
echo "bench mmio_stats reads=$1 writes=$2"
if [ "$(sed -n 's/^status: //p' "$dir/guc_info")" = running ]; then
	us=$(sed -n 's/^load_time_us: //p' "$dir/guc_info")
	set -- $(sed -n 's/^load_mmio: reads \([0-9]*\) writes \([0-9]*\)$/\1 \2/p' "$dir/guc_info")
	echo "bench guc_load n=1 reads=$1 writes=$2 ns=$((us * 1000))"
fi
