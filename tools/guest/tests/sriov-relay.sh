#!/bin/sh
# The PF's VF relay service (issue 28, Documentation/sriov.rst "The VF
# relay"). The mock's GuC forwards what its VF side sends (vf:relay, the
# messages upstream's VF driver starts its probe with, xe_gt_sriov_vf.c) as
# GUC2PF_RELAY_FROM_VF and takes the PF's PF2GUC_RELAY_TO_VF; the mock's VF
# side checks every answer as upstream's VF would: the handshake agrees on
# 1.0, and each runtime register the PF reports holds the value the mock's
# own register has (sriov.relay_runtime_entries_checked counts the entries
# that matched; a wrong one is a violation).
# Then what a VF must not get served: a query before its handshake, an
# unknown action, a handshake of the wrong length (a 252-dword message, the
# longest a relay carries), a message that is not a request (no answer);
# events a broken GuC could send: too short, from a VF that is not enabled,
# with DATA0 set, and a TLB_INVALIDATION_DONE nobody waits for.
# A flooding VF (64 requests at once) gets relay errors and drops, all
# counted, its log rate-limited, and the CT keeps serving: another VF's
# handshake right after is answered. An FLR forgets the VF's agreed version
# (it must handshake again); disabling the VFs forgets all.
# guest-module: sriov-shim
# expect-mock: violations == 0
# expect-mock: unknown_accesses == 0
# expect-mock: sriov.relay_bad_answers == 0
# expect-mock: sriov.relay_runtime_entries_checked == 11
# expect-mock: sriov.isolation_violations == 0
# timeout: 240
. /tests/lib.sh

dev=$(gpu_dev 0x56c0)
bdf=${dev##*/}

check sriov_visible "$bdf"
echo 0 >"$dev/sriov_drivers_autoprobe"
check numvfs "$bdf" 3
expect_eq "nothing agreed yet" "$(sriov_get "$bdf" relay_agreed)" ""

# relay_is FIELD N: debugfs sriov's relay_FIELD is N.
relay_is() { [ "$(sriov_get "$bdf" "relay_$1")" = "$2" ]; }
# agreed_has VFN=V: relay_agreed lists it.
agreed_has() { sriov_get "$bdf" relay_agreed | grep -qw "$1"; }

# VF1: the handshake (any version: the PF's latest, 1.0), the whole runtime
# list, then three entries from the sixth.
mock_request vf:relay:1:1:00000001,00000000
check wait_until 10 relay_is served 1
expect_eq "VF1 agreed on 1.0" "$(sriov_get "$bdf" relay_agreed)" "vf1=1.0"
mock_request vf:relay:1:2:00000101,00000000
check wait_until 10 relay_is served 2
mock_request vf:relay:1:3:00030101,00000005
check wait_until 10 relay_is served 3

# Refused with a relay error: VF2 queries before its handshake; VF1 asks for
# an unknown action; VF1 handshakes with 252 dwords.
mock_request vf:relay:2:1:00000101,00000000
check wait_until 10 relay_is refused 1
check dmesg_has "sriov: VF2: relay 1 (0x00000101) refused: query before a handshake (errno 13; 1 so far)"
mock_request vf:relay:1:4:00007777
check wait_until 10 relay_is refused 2
check dmesg_has "sriov: VF1: relay 4 (0x00007777) refused: unknown action (errno 95; 2 so far)"
long=00000001
i=1
while [ $i -lt 252 ]; do
	long="$long,0"
	i=$((i + 1))
done
mock_request "vf:relay:1:5:$long"
check wait_until 10 relay_is refused 3
# The third refusal is not logged: the 1st, 2nd, 4th, 8th... are.
check not dmesg_has "sriov: VF1: relay 5 "
# A reply to nothing (RESPONSE_SUCCESS from a VF) gets no answer.
mock_request vf:relay:1:6:70000000
check wait_until 10 relay_is dropped 1
expect_eq "VF1 still agreed" "$(sriov_get "$bdf" relay_agreed)" "vf1=1.0"

# A broken GuC: an event with no message, one from VF 9 (3 enabled).
mock_request g2h:event:5100:1:7
check wait_until 10 relay_is bad 1
check dmesg_has "sriov: GUC2PF_RELAY_FROM_VF refused: 2 dwords after the header, 3 at least"
mock_request vf:relay:9:1:00000001,00000000
check wait_until 10 relay_is bad 2
check dmesg_has "sriov: GUC2PF_RELAY_FROM_VF refused: not from a provisioned VF (VF9"
# DATA0 set in the event's header (MBZ, upstream xe_guc_relay_process_guc2pf).
mock_request guc:relay-data0:1
mock_request vf:relay:1:9:00000001,00000000
check wait_until 10 relay_is bad 3
# A TLB_INVALIDATION_DONE the PF is not waiting for: refused and counted.
notices=$(sriov_get "$bdf" bad_notices)
mock_request g2h:event:7001:99
check wait_until 10 dmesg_has "sriov: TLB_INVALIDATION_DONE for seqno 153 refused"
expect_eq "the stray DONE counted" "$(sriov_get "$bdf" bad_notices)" "$((notices + 1))"

# VF3 floods: 64 handshakes at once. Each is answered, refused or dropped,
# never lost; the log says it a few times, not 64; the channel goes on.
mock_request vf:relay-burst:3:64
# answered BASE: served + refused + busy + dropped, less BASE's own.
handled() {
	echo $(($(sriov_get "$bdf" relay_served) + $(sriov_get "$bdf" relay_busy) +
		$(sriov_get "$bdf" relay_dropped) - 3 - 1))
}
handled_is() { [ "$(handled)" = "$1" ]; }
check wait_until 20 handled_is 64
busy=$(sriov_get "$bdf" relay_busy)
dropped=$(sriov_get "$bdf" relay_dropped)
check test "$busy" -ge 1
check test "$dropped" -ge 2
floodlog=$(dmesg | grep -c "sriov: VF3: relay .* while its previous request waits")
diag "flood: busy $busy dropped $dropped, $floodlog log lines"
check test "$floodlog" -le 14
mock_request vf:relay:2:2:00000001,00010000
check wait_until 10 agreed_has vf2=1.0
expect_eq "send failures" "$(sriov_get "$bdf" relay_send_failed)" 0

# VF1's FLR forgets its version: its next query is refused.
refused=$(sriov_get "$bdf" relay_refused)
mock_request vf:flr:1
check wait_until 10 dmesg_has "sriov: VF1: FLR complete"
check not agreed_has vf1=1.0
mock_request vf:relay:1:8:00000101,00000000
check wait_until 10 relay_is refused $((refused + 1))

# The mock's VF side saw every answer the PF counted.
mock_expect sriov.relay_answered_success == "$(sriov_get "$bdf" relay_served)"
mock_expect sriov.relay_answered_failure == \
	"$(($(sriov_get "$bdf" relay_refused) + $(sriov_get "$bdf" relay_busy)))"

check numvfs "$bdf" 0
expect_eq "nothing agreed after disable" "$(sriov_get "$bdf" relay_agreed)" ""
check sriov_shim_unload "$bdf"
check wait_until 10 is_bound "$bdf"
check rmmod xehpg
check_dmesg_clean
done_testing
