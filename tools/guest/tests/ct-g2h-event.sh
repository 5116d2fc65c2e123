#!/bin/sh
# The mock's GuC writes G2H messages on request while the driver's CT is
# enabled (Documentation/mock.rst, "Test control"): one EVENT with two DATA
# dwords, then a flood of 100 NOTIFY_FLUSH_LOG_BUFFER_TO_FILE (0x8003)
# EVENTs, a benign event upstream's G2H path takes without a payload check
# (xe_guc_ct.c process_g2h_msg). The 128 KiB ring has room for all of them,
# so nothing waits; each request raises the GuC-to-host interrupt once (one
# per batch). Whatever the driver's G2H path does with them, it must not
# touch the GuC's fields (no violation) and must unload cleanly.
# expect-mock: ct.g2h_pending == 0
# expect-mock: ct.enables == 1
# expect-mock: irq.raised_by_source.guc >= 2
# expect-mock: violations == 0
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
check is_bound "$bdf"
# Each engine's GuC submission adds SCHED_CONTEXT_MODE_DONE at probe and at
# unbind and DEREGISTER_CONTEXT_DONE at unbind.
mock_expect ct.events_sent == $((101 + 3 * $(engine_count "$bdf")))
expect_eq "CT enabled" "$(guc_get "$bdf" ct | cut -d' ' -f1)" enabled
mock_request g2h:event:8003:1:2
mock_request g2h:flood:100
# The runner cannot answer; give the mock and the driver a moment.
sleep 1
check rmmod xehpg
check_dmesg_clean
done_testing
