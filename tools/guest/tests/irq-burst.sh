#!/bin/sh
# A burst: the mock raises 1000 GuC-to-host events back to back (each the
# moment the driver cleared the previous identity, so none merge in the
# collapsing register), and at the same time 500 user interrupts on vcs0 in
# the other bank. Every one is delivered exactly once: the driver's counts
# and the mock's equal the numbers raised, nothing lost, nothing twice, no
# DataValid timeout, no storm at the default limit. The burst is counted from
# what the driver had seen when it starts: the boot's GuC interrupts (one per
# CT reply and event of probe) may merge when two messages land before the
# driver clears the identity, as they may on hardware, so their number is not
# fixed on a loaded machine; the burst's are.
# expect-mock: irq.identities.vcs0 == 500
# expect-mock: violations == 0
# timeout: 300
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
check is_bound "$bdf"
t0=$(date +%s)
# Probe waited for every reply and event it asked for: the count is settled.
boot=$(irq_src "$bdf" guc)
bits=$(sed -n 's/^bit guc 15: //p' "$DBG/$bdf/irq")
# Top-half entries before the burst: the bound below is on the burst's own.
ints0=$(irq_get "$bdf" interrupts)
# The mock counts to the end: the unload adds the interrupts of each engine's
# disable and deregistration replies (at most two per engine, fewer if merged).
mock_expect irq.identities.guc ">=" $((boot + 1001))
mock_expect irq.identities.guc "<=" $((boot + 1000 + 2 * $(engine_count "$bdf")))
mock_request "irq:guc:0x8000:1000"
mock_request "irq:vcs0:0x0001:500"
wait_until 180 irq_src_at_least "$bdf" guc $((boot + 1000))
wait_until 60 irq_src_at_least "$bdf" vcs0 500
t1=$(date +%s)
sleep 2
expect_eq "GuC events delivered (the boot's included)" "$(irq_src "$bdf" guc)" $((boot + 1000))
expect_eq "vcs0 events delivered" "$(irq_src "$bdf" vcs0)" 500
expect_eq "GUC2HOST bits" "$(sed -n 's/^bit guc 15: //p' "$DBG/$bdf/irq")" $((bits + 1000))
expect_eq "vcs0 user-interrupt bits" "$(sed -n 's/^bit vcs0 0: //p' "$DBG/$bdf/irq")" 500
expect_eq "no other source fired" "$(sed -n 's/^source \([a-z0-9]*\): \([1-9][0-9]*\) .*/\1/p' "$DBG/$bdf/irq" | tr '\n' ' ')" "guc vcs0 "
expect_eq "DataValid timeouts" "$(irq_get "$bdf" data_valid_timeouts)" 0
expect_eq "storms" "$(irq_get "$bdf" storms)" 0
expect_eq "unknown identities" "$(irq_get "$bdf" unknown_identities)" 0
ints=$(($(irq_get "$bdf" interrupts) - ints0))
diag "1500 events in $((t1 - t0)) s, $ints top-half entries ($ints0 before), $(irq_get "$bdf" spurious) spurious"
if [ "$ints" -le 1500 ] && [ "$ints" -ge 1 ]; then ok "at most one entry per event ($ints)"; else not_ok "at most one entry per event" "$ints"; fi
check rmmod xehpg
check_dmesg_clean
done_testing
