#!/bin/sh
# The mock's GuC writes G2H messages on request while the driver's CT is
# enabled (Documentation/mock.rst, "Test control"): one EVENT with two DATA
# dwords, then a flood of 20000 NOTIFY_FLUSH_LOG_BUFFER_TO_FILE (0x8003)
# EVENTs, a benign event upstream's G2H path takes without a payload check
# (xe_guc_ct.c process_g2h_msg). Whatever the driver's G2H path does with
# them, it must not touch the GuC's fields (no violation) and must unload
# cleanly.
# That the driver read them is the mock's record, not the driver's count:
# each flood event is two dwords (CTB header, HXG header) and the 128 KiB
# G2H ring (ct.g2h_size) holds at most 16383 of them, so the mock can have
# written all 20000 (ct.events_sent) only if the driver moved the ring's
# head past what it had read, the first event included, since the ring is
# read in order; what it could not write would still be pending.
# expect-mock: ct.g2h_size == 131072
# expect-mock: ct.g2h_pending == 0
# expect-mock: ct.enables == 1
# expect-mock: irq.raised_by_source.guc >= 2
# expect-mock: violations == 0
# timeout: 240
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
check is_bound "$bdf"
# Each engine's GuC submission adds SCHED_CONTEXT_MODE_DONE at probe and at
# unbind and DEREGISTER_CONTEXT_DONE at unbind.
mock_expect ct.events_sent == $((20001 + 3 * $(engine_count "$bdf")))
expect_eq "CT enabled" "$(guc_get "$bdf" ct | cut -d' ' -f1)" enabled
ev0=$(ct_count "$bdf" received events)
mock_request g2h:event:8003:1:2
mock_request g2h:flood:20000
# Only pacing: the assertion is the mock's events_sent above.
wait_until 120 ct_count_is "$bdf" received events $((ev0 + 20001))
check rmmod xehpg
check_dmesg_clean
done_testing
