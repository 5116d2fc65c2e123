#!/bin/sh
# Unsolicited G2H events: a known one is dispatched to its handler (counted
# per action, logged), an unknown one is counted and logged, not fatal; a
# flood of 20000 events (far more than the 128 KiB ring holds at once) is
# read to the last one while the GuC waits for room, and requests still work.
# timeout: 300
# expect-mock: ct.g2h_pending == 0
# expect-mock: violations == 0
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
check is_bound "$bdf"

# Probe already received each engine's SCHED_CONTEXT_MODE_DONE.
ev0=$(ct_count "$bdf" received events)
mock_request "g2h:event:1008:1"
wait_until 10 ct_count_is "$bdf" received events $((ev0 + 1))
expect_eq "context reset counted" "$(ct_get "$bdf" "event CONTEXT_RESET_NOTIFICATION")" 1
check dmesg_has "submit: rcs0: the GuC reset context 1 (CONTEXT_RESET_NOTIFICATION)"
# A reset with no hang behind it: the next run re-registers the context
# (nothing was in flight) and completes.
check submit_cmd "$bdf" "rcs0 5"
submit_ok "$bdf" rcs0 5
check dmesg_has "submit: rcs0: context 1 was reset by the GuC; 0 request(s) failed, re-registering it"
# A reset naming a context nobody registered is reported and ignored.
# (The mock takes the payload in hex: 0x3e7 is 999.)
mock_request "g2h:event:1008:3e7"
wait_until 10 dmesg_has "names context 999, which is not registered; ignored"
check dmesg_has "submit: GuC event 0x1008 names context 999, which is not registered; ignored"
expect_eq "rcs0: the reset followed the context's table" "$(eng_get "$bdf" rcs0 bad_transitions)" 0
# Done events for rcs0's enabled context that nothing asked for: an enable's
# done, a deregistration's done, a second one (rust/submit/ctx.rs refuses
# each). Each is counted, the first logged, the state kept: work still runs.
for ev in 1002:1:1 4600:1 4600:1; do
	ev2=$(ct_count "$bdf" received events)
	mock_request "g2h:event:$ev"
	wait_until 10 ct_count_is "$bdf" received events $((ev2 + 1))
done
expect_eq "rcs0: three refused context transitions" "$(eng_get "$bdf" rcs0 bad_transitions)" 3
check dmesg_has "submit: rcs0: context 1 is enabled: SCHED_CONTEXT_MODE_DONE(enabled) is impossible there; state kept"
expect_eq "logged once" "$(dmesg | grep -c 'is impossible there')" 1
check submit_cmd "$bdf" "rcs0 5"
submit_ok "$bdf" rcs0 5

mock_request "g2h:event:7777:1"
wait_until 10 ct_count_is "$bdf" received unknown_events 1
check dmesg_has "guc: CT unknown event 0x7777"
expect_eq "state after an unknown event" "$(ct_get "$bdf" state)" up

ev1=$(ct_count "$bdf" received events)
mock_request "g2h:flood:20000"
wait_until 120 ct_count_is "$bdf" received events $((ev1 + 20000))
expect_eq "flood: every event" "$(ct_get "$bdf" "event NOTIFY_FLUSH_LOG_BUFFER_TO_FILE")" 20000
expect_eq "flood: nothing malformed" "$(ct_count "$bdf" errors malformed)" 0
check ct_cmd "$bdf" "ping 5"
expect_eq "requests after the flood" "$(ct_load "$bdf" done)" 5
expect_eq "CT state" "$(ct_get "$bdf" state)" up
check rmmod xehpg
check_dmesg_clean
done_testing
