#!/bin/sh
# The CT at work. The second boot phase (opt-in features, then the
# scheduling policies) goes over it before probe returns; then debugfs ct
# load runs: blocking requests, batched fast requests (one notify per batch
# of 64, then one request whose reply proves the GuC consumed them all),
# fast requests with a notify each, and MMIO H2G round trips for comparison.
# Each request is one register write (the notify); every reply arrives
# through the GuC-to-host interrupt, so no waiter had to poll G2H itself.
# Bad commands are refused without side effects.
# expect-mock: ct.fast_requests == 704
# expect-mock: ct.unanswered == 0
# expect-mock: ct.policy_yield_ms == 80
# expect-mock: ct.policy_yield_ratio == 20
# expect-mock: violations == 0
# distro
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
check is_bound "$bdf"
expect_eq "GuC status" "$(guc_get "$bdf" status)" running
expect_eq "second boot phase" "$(guc_get "$bdf" post_load)" \
	"opt_in 1 policies 1 (render_compute_yield 80 ms 20%)"
expect_eq "CT state" "$(ct_get "$bdf" state)" up
# Probe's requests: the second boot phase (2) and each engine's GuC
# submission setup (3: registration, policies, enable); unbind adds 2 per
# engine (disable, deregister). G2H also carries two SCHED_CONTEXT_MODE_DONE
# and one DEREGISTER_CONTEXT_DONE event per engine.
n=$(engine_count "$bdf")
boot=$((2 + 3 * n))
mock_expect ct.requests == $((boot + 203 + 2 * n))
mock_expect ct.replies_success == $((boot + 203 + 2 * n))
mock_expect ct.h2g_messages == $((boot + 203 + 2 * n + 704))
mock_expect ct.g2h_messages == $((boot + 203 + 2 * n + 3 * n))

check ct_cmd "$bdf" "ping 200"
expect_eq "ping: all done" "$(ct_load "$bdf" done)" 200
expect_eq "ping: no error" "$(ct_load "$bdf" error)" 0
expect_eq "ping: one notify per request" "$(ct_load "$bdf" notifies)" 200

check ct_cmd "$bdf" "fast 640"
expect_eq "fast: all done" "$(ct_load "$bdf" done)" 640
expect_eq "fast: one notify per batch of 64, plus the closing request" "$(ct_load "$bdf" notifies)" 11

check ct_cmd "$bdf" "fast-each 64"
expect_eq "fast-each: a notify each, plus the closing request" "$(ct_load "$bdf" notifies)" 65

check ct_cmd "$bdf" "mmio-ping 50"
expect_eq "mmio-ping: all done" "$(ct_load "$bdf" done)" 50
expect_eq "mmio-ping: no CT notify" "$(ct_load "$bdf" notifies)" 0

# The boot requests + 200 + 1 + 1 + 1 closing ping below.
check ct_cmd "$bdf" "ping 1"
expect_eq "requests sent" "$(ct_count "$bdf" sent requests)" $((boot + 203))
expect_eq "fast requests sent" "$(ct_count "$bdf" sent fast)" 704
expect_eq "replies received" "$(ct_count "$bdf" received replies)" $((boot + 203))
expect_eq "nothing outstanding" "$(ct_get "$bdf" outstanding)" 0
expect_eq "every credit back" "$(ct_get "$bdf" credits)" 16384
for c in failed fast_failed retried busy timeouts malformed unexpected; do
	expect_eq "no $c" "$(ct_count "$bdf" errors $c)" 0
done
expect_eq "no waiter polled G2H" "$(ct_count "$bdf" receive polls)" 0

for bad in "ping 0" "ping" "ping 1 2" "bogus 1" "ping 100001" "ping -1" "fast x"; do
	check not ct_cmd "$bdf" "$bad"
done
expect_eq "state after bad commands" "$(ct_get "$bdf" state)" up
expect_eq "bad commands sent nothing" "$(ct_count "$bdf" sent requests)" $((boot + 203))
check rmmod xehpg
check_dmesg_clean
done_testing
