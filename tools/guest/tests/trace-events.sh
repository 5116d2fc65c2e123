#!/bin/sh
# The driver's trace events (Documentation/tracing.rst) against the mock's
# own record. Every xehpg event is enabled before the module is loaded (the
# `:mod:` form of set_event, which an operator uses too); then
# the driver is driven through each traced path: probe (the GuC's boot, each
# engine's context registered and enabled), CT round trips from debugfs
# (blocking and batched fast requests), a submission selftest on every
# engine, the shim's remove and rescan (a whole unbind and probe), a GT reset
# from debugfs, 3 VFs enabled, an FLR of VF2 reported by the GuC, the VFs
# disabled (each reset through an FLR, then given back), 2 VFs enabled and
# disabled again, and an unbind. The buffer is read while the module is
# still loaded (an unloaded module's events cannot be decoded) and checked:
# - H2G: as many events as messages the GuC read, requests and fast
#   requests apart, and per action for the context and VF actions the mock
#   counts; G2H: as many as it wrote, replies and events apart, and the
#   context done events;
# - contexts: each follows register, enable, done(1), disable, done(0),
#   deregister, deregister-done in that order (a GT reset forgets them), and
#   the totals are the mock's;
# - interrupts: one event per identity the mock presented, per source;
# - VFs: each VF's provisioning steps in order, every round; each FLR's
#   three transitions in order, as often as the mock saw FLRs;
# - the GT reset's phases, and no event dropped by the ring buffer.
# The debug messages of the slow paths (dyn_dbg!) are checked too, by kernel:
# with dynamic debug (the distro lane's Debian kernel) the load turns them on
# (dyndbg=+p) and each is in the log as often as its path ran; the debug
# kernel, built with Rust debug assertions, prints them through dev_dbg!
# without being asked (kmemleak tells it apart); the plain kernel has none.
# no-load
# guest-module: sriov-shim
# expect-mock: violations == 0
# expect-mock: unknown_accesses == 0
# expect-mock: ct.replies_failure == 0
# expect-mock: sriov.isolation_violations == 0
# expect-mock: sriov.vfs_configured == 0
# expect-mock: sriov.refused == 0
# timeout: 300
# distro
. /tests/lib.sh

T=/sys/kernel/tracing
dev=$(gpu_dev 0x56c0)
bdf=${dev##*/}

# Tracing on before the driver exists: `:mod:` enables the module's events as
# it loads, so every event of its life is recorded.
[ -e "$T/trace" ] || mount -t tracefs nodev "$T"
echo 0 >"$T/tracing_on"
echo 8192 >"$T/buffer_size_kb"
echo >"$T/trace"
check sh -c "echo ':mod:xehpg' >>$T/set_event"
echo 1 >"$T/tracing_on"
if [ -e /proc/dynamic_debug/control ]; then dbg=dyndbg=+p; else dbg=; fi
check insmod /lib/modules/xehpg.ko $dbg
expect_eq "every xehpg event on from the load" "$(cat "$T/events/xehpg/enable")" 1
check is_bound "$bdf"
expect_eq "GuC status" "$(guc_get "$bdf" status)" running
mock_engines_driven "$bdf"

check ct_cmd "$bdf" "ping 20"
check ct_cmd "$bdf" "fast 64"
check submit_cmd "$bdf" "all 5"
for e in $engines; do submit_ok "$bdf" "$e" 5; done

check sriov_visible "$bdf"
echo 0 >"$dev/sriov_drivers_autoprobe"
check put "$bdf" gt_reset_ctl 1
check wait_until 60 resets_done_is "$bdf" 1

check numvfs "$bdf" 3
mock_request vf:flr:2
check wait_until 10 dmesg_has "sriov: VF2: FLR complete"
check numvfs "$bdf" 0
check numvfs "$bdf" 2
check numvfs "$bdf" 0
echo "$bdf" >/sys/bus/pci/drivers/xehpg/unbind
check not is_bound "$bdf"
echo 0 >"$T/tracing_on"
cp "$T/trace" /tmp/trace.txt
expect_eq "no event lost in the ring buffer" \
	"$(cat "$T"/per_cpu/cpu*/stats | awk '$1 == "overrun:" { n += $2 } END { print n + 0 }')" 0

# One pass over the buffer: counts, per-context state machines, per-VF
# sequences, as shell assignments.
eval "$(awk -v bdf="$bdf" '
function reset_ctx(k) { for (k in st) st[k] = 0 }
{
	ev = ""
	for (i = 1; i <= NF; i++)
		if ($i ~ /^xehpg_[a-z0-9_]*:$/) { ev = substr($i, 1, length($i) - 1); break }
	if (ev == "") next
	delete f
	for (j = i + 1; j <= NF; j++) {
		p = index($j, "=")
		if (p > 0) f[substr($j, 1, p - 1)] = substr($j, p + 1)
	}
	events++
	if (f["dev"] != bdf) other_dev++
	if (ev == "xehpg_h2g") {
		h2g++
		if (f["fast"] == 1) h2g_fast++; else h2g_req++
		h2g_a[f["action"]]++
	} else if (ev == "xehpg_g2h") {
		g2h++
		g2h_t[f["type"]]++
		if (f["type"] == "event") g2h_a[f["action"]]++
	} else if (ev == "xehpg_irq") {
		irq++
		src[f["source"]]++
	} else if (ev ~ /^xehpg_ctx_/) {
		k = f["engine"] ":" f["guc_id"]
		step = substr(ev, 11)
		if (step == "sched_done") step = step f["enabled"]
		n[step]++
		# register 0->1, sched_enable 1->2, sched_done1 2->3, sched_disable
		# 3->4, sched_done0 4->5, deregister 5->6, deregister_done 6->0.
		from = (step == "register") ? 0 : (step == "sched_enable") ? 1 : \
			(step == "sched_done1") ? 2 : (step == "sched_disable") ? 3 : \
			(step == "sched_done0") ? 4 : (step == "deregister") ? 5 : \
			(step == "deregister_done") ? 6 : -1
		if (!(k in st)) { st[k] = 0; ctxs++ }
		if (st[k] != from) { ctx_bad++; if (ctx_bad_first == "") ctx_bad_first = k " " step " in " st[k] }
		st[k] = (from + 1) % 7
	} else if (ev == "xehpg_gt_reset") {
		gt = gt " " f["phase"] ":" f["why"]
		if (f["phase"] == "started") reset_ctx()
	} else if (ev == "xehpg_vf_provision") {
		vfp[f["vf"]] = vfp[f["vf"]] " " f["step"]
	} else if (ev == "xehpg_vf_flr") {
		flr[f["vf"]] = flr[f["vf"]] " " f["input"] ":" f["from"] ":" f["to"]
		flr_in[f["input"]]++
	}
}
END {
	for (k in st) if (st[k] != 0) { ctx_left++; if (ctx_left_first == "") ctx_left_first = k " in " st[k] }
	printf "events=%d other_dev=%d\n", events, other_dev
	printf "h2g=%d h2g_req=%d h2g_fast=%d\n", h2g, h2g_req, h2g_fast
	printf "h2g_register=%d h2g_mode_set=%d h2g_deregister=%d h2g_policies=%d\n", \
		h2g_a["0x4502"], h2g_a["0x1001"], h2g_a["0x4503"], h2g_a["0x100b"]
	printf "h2g_vf_cfg=%d h2g_vf_control=%d\n", h2g_a["0x5503"], h2g_a["0x5506"]
	printf "g2h=%d g2h_event=%d g2h_success=%d g2h_other=%d\n", g2h, g2h_t["event"], \
		g2h_t["success"], g2h - g2h_t["event"] - g2h_t["success"]
	printf "g2h_mode_done=%d g2h_dereg_done=%d g2h_vf_notify=%d\n", \
		g2h_a["0x1002"], g2h_a["0x4600"], g2h_a["0x5106"]
	printf "irq=%d irq_sources=\"", irq
	for (s in src) printf "%s=%d ", s, src[s]
	printf "\"\n"
	printf "ctxs=%d ctx_bad=%d ctx_left=%d ctx_first=\"%s%s\"\n", ctxs, ctx_bad, ctx_left, \
		ctx_bad_first, ctx_left_first
	printf "ctx_register=%d ctx_enable=%d ctx_done1=%d ctx_disable=%d ctx_done0=%d\n", \
		n["register"], n["sched_enable"], n["sched_done1"], n["sched_disable"], n["sched_done0"]
	printf "ctx_deregister=%d ctx_deregister_done=%d ctx_reset=%d\n", n["deregister"], \
		n["deregister_done"], n["reset"]
	printf "gt_reset=\"%s\"\n", gt
	for (v = 1; v <= 3; v++) printf "vfp_%d=\"%s\" flr_%d=\"%s\"\n", v, vfp[v], v, flr[v]
	printf "vfp_other=%d\n", length(vfp) - (1 in vfp) - (2 in vfp) - (3 in vfp)
	printf "flr_started=%d flr_guc_done=%d flr_cleaned=%d\n", flr_in["started"], \
		flr_in["guc_done"], flr_in["cleaned"]
}' /tmp/trace.txt)"
diag "$events events; h2g $h2g ($h2g_req requests, $h2g_fast fast), g2h $g2h, irq $irq ($irq_sources)"

check test "$events" -gt 0
expect_eq "every event names the device" "$other_dev" 0

# H2G and G2H: each message the GuC read or wrote has its event.
mock_expect ct.h2g_messages == "$h2g"
mock_expect ct.requests == "$h2g_req"
mock_expect ct.fast_requests == "$h2g_fast"
mock_expect ct.g2h_messages == "$g2h"
mock_expect ct.events_sent == "$g2h_event"
mock_expect ct.replies_success == "$g2h_success"
expect_eq "G2H: only events and success replies" "$g2h_other" 0
check test "$h2g_fast" -ge 64
mock_expect guc_submit.registrations == "$h2g_register"
mock_expect guc_submit.policies == "$h2g_policies"
mock_expect guc_submit.deregistrations == "$h2g_deregister"
mock_expect sriov.vf_cfg_updates == "$h2g_vf_cfg"
mock_expect guc_submit.mode_done_sent == "$g2h_mode_done"
mock_expect guc_submit.dereg_done_sent == "$g2h_dereg_done"

# Contexts: every one followed the table, and none is left registered.
diag "contexts: $ctxs $ctx_first"
check test "$ctxs" -ge 1
expect_eq "context steps out of order" "$ctx_bad" 0
expect_eq "contexts left registered" "$ctx_left" 0
expect_eq "enables: one per registration" "$ctx_enable" "$ctx_register"
expect_eq "enable done events: one per enable" "$ctx_done1" "$ctx_enable"
expect_eq "disable done events: one per disable" "$ctx_done0" "$ctx_disable"
expect_eq "deregister done events: one per deregistration" "$ctx_deregister_done" "$ctx_deregister"
expect_eq "no context reset" "$ctx_reset" 0
expect_eq "SCHED_CONTEXT_MODE_SETs: the enables and disables" "$h2g_mode_set" \
	"$((ctx_enable + ctx_disable))"
expect_eq "REGISTER_CONTEXTs: the registrations" "$h2g_register" "$ctx_register"
expect_eq "DEREGISTER_CONTEXTs: the deregistrations" "$h2g_deregister" "$ctx_deregister"
mock_expect guc_submit.registrations == "$ctx_register"
mock_expect guc_submit.enables == "$ctx_enable"
mock_expect guc_submit.disables == "$ctx_disable"
mock_expect guc_submit.deregistrations == "$ctx_deregister"
mock_expect guc_submit.mode_done_sent == "$((ctx_done1 + ctx_done0))"
mock_expect guc_submit.dereg_done_sent == "$ctx_deregister_done"

# Interrupts: one event per identity, per source.
mock_expect irq.identities_total == "$irq"
for s in $irq_sources; do
	mock_expect "irq.identities.${s%=*}" == "${s#*=}"
done

expect_eq "GT reset phases" "$gt_reset" " queued:debugfs started:debugfs done:debugfs"

# VFs: 3 VFs, then 2, each provisioned and given back in order.
round="share cleared lmtt configured unconfigured released"
expect_eq "VF1 provisioning steps" "$vfp_1" " $round $round"
expect_eq "VF2 provisioning steps" "$vfp_2" " $round $round"
expect_eq "VF3 provisioning steps" "$vfp_3" " $round"
expect_eq "no other VF provisioned" "$vfp_other" 0
# Every disable resets each VF through an FLR; VF2 had one more, the GuC's.
flr="started:idle:wait_guc guc_done:wait_guc:cleanup cleaned:cleanup:idle"
expect_eq "VF1 FLRs" "$flr_1" " $flr $flr"
expect_eq "VF2 FLRs" "$flr_2" " $flr $flr $flr"
expect_eq "VF3 FLRs" "$flr_3" " $flr"
mock_expect sriov.flr_started == "$flr_started"
mock_expect sriov.flr_done == "$flr_guc_done"
mock_expect sriov.flr_finished == "$flr_cleaned"
mock_expect sriov.vf_flr_notified == 1
expect_eq "VF_CONTROLs: FLR_START and FLR_FINISH of each FLR" "$h2g_vf_control" \
	"$((flr_started + flr_cleaned))"
expect_eq "VF_STATE_NOTIFYs: the GuC's FLR and each FLR's done" "$g2h_vf_notify" \
	"$((1 + flr_guc_done))"

# Debug messages: two probes (the load, the rescan), 5 VF shares, VF2's three
# FLRs, one GT reset, and the CT enabled at each GuC boot that got that far.
set -- $(dmesg | awk '/probe: BARs checked/ { p++ } /guc: CT enabled: / { c++ }
	/sriov: VF[0-9]*: share taken/ { s++ } /sriov: VF2: FLR idle -> wait_guc on started/ { f++ }
	/gt: reset: GDRST.GRDOM_FULL cleared/ { r++ } END { print p + 0, c + 0, s + 0, f + 0, r + 0 }')
if [ -n "$dbg" ]; then
	check grep -q '\[xehpg\]xehpg_dbg =p' /proc/dynamic_debug/control
fi
if [ -n "$dbg" ] || [ -e /sys/kernel/debug/kmemleak ]; then
	expect_eq "debug messages: probes, VF shares, VF2's FLRs, GT reset" "$1 $3 $4 $5" "2 5 3 1"
	check test "$2" -ge 3
else
	expect_eq "no debug message without dynamic debug or debug assertions" "$1 $2 $3 $4 $5" \
		"0 0 0 0 0"
fi

check rmmod xehpg
check sriov_shim_unload "$bdf"
check_dmesg_clean
done_testing
