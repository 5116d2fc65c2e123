#!/bin/sh
# rmmod with requests in flight under GuC submission, twice.
# First the render engine hangs (engine:hang:rcs0) with a run on it and rmmod
# comes as soon as the run is on the engine, normally inside the GuC's 640 ms
# preemption timeout: the disable of a context the engine is stuck in then
# waits for the GuC's reset and its MODE_DONE. (A slow guest may reach rmmod
# after the reset, when the run has already failed and the context was
# re-registered; the diag line says which happened, both must end the same
# way.) Then the GuC drops every SCHED_CONTEXT (guc:drop-sched:1000,
# last, as the switch outlives the module): a run of 100 requests sits in the
# ring, none executed. rmmod stops the port (the waiting run wakes and ends
# with ENODEV), logs the 100 requests it drops, then disables and
# deregisters the context, which the GuC sees idle. Each time the module
# unloads, no context stays registered with the GuC and nothing leaks.
# expect-mock: guc_submit.registered == 0
# expect-mock: guc_submit.sched_dropped >= 100
# expect-mock: engines.gtt_faults == 0
# expect-mock: violations == 0
# timeout: 180
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
check is_bound "$bdf"
expect_eq "rcs0: GuC mode" "$(eng_get "$bdf" rcs0 mode)" guc
n=$(engine_count "$bdf")

mock_request engine:hang:rcs0
submit_cmd "$bdf" "rcs0 20" &
# rmmod as soon as the run is on the engine, well inside the timeout.
i=0
while [ "$(eng_get "$bdf" rcs0 inflight)" != 20 ] && [ $i -lt 200 ]; do i=$((i + 1)); done
check rmmod xehpg
wait
check not is_bound "$bdf"
diag "$(dmesg | grep -E 'rcs0: (unbind with|the GuC reset)')"
mock_expect guc_submit.registered == 0

check reload
check is_bound "$bdf"
mock_request guc:drop-sched:1000
submit_cmd "$bdf" "rcs0 100" &
sleep 1
expect_eq "rcs0: the requests wait" "$(eng_get "$bdf" rcs0 inflight)" 100
check rmmod xehpg
wait
check dmesg_has "submit: rcs0: unbind with 100 request(s) in flight"
check not is_bound "$bdf"
mock_expect guc_submit.deregistrations ">=" "$((2 * n))"
check_dmesg_clean
done_testing
