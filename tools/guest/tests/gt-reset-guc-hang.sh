#!/bin/sh
# The GuC hangs (guc:hang:1): it reads no H2G message and writes no G2H. A
# request on rcs0 makes no progress; the driver sends SCHED_CONTEXT again
# once (its one nudge), then tries to disable the context, a request the GuC
# never answers (ETIME after 1 s). A context that cannot be disabled queues a
# GT reset, as upstream's guc_exec_queue_timedout_job does: the request
# fails, GDRST.GRDOM_FULL resets the GT and the hung GuC, the GuC loads again
# and every engine the fuses leave runs work afterwards.
# Before the reset the driver keeps what the hung GuC left as a device
# coredump (upstream's xe_devcoredump on a hang): the reason, the GuC's and
# the channel's state, then the whole log buffer; unbind removes it.
# The mock's record shows the hang, one full reset and four GuC loads.
# expect-mock: guc.hangs == 1
# expect-mock: guc.full_resets == 1
# expect-mock: guc_loads == 4
# expect-mock: violations == 0
# timeout: 180
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
check is_bound "$bdf"
mock_engines_driven "$bdf"

mock_request guc:hang:1
submit_cmd "$bdf" "rcs0 1"
expect_eq "rcs0: nothing retired" "$(submit_get "$bdf" rcs0 completed)" 0
check wait_until 60 resets_done_is "$bdf" 1
diag "$(cat "$DBG/$bdf/gt_reset")"
check dmesg_has "no reply within 1000 ms"
check dmesg_has "gt: reset started (context 1 could not be disabled)"
check dmesg_has "gt: reset done in"
expect_eq "rcs0: one nudge before the reset" "$(eng_get "$bdf" rcs0 nudges)" 1

# The coredump: one, of this device.
cd_dir=$(devcd_of "$bdf")
check test -n "$cd_dir"
expect_eq "guc_info crash_dumps" "$(guc_get "$bdf" crash_dumps)" "1 failed 0"
cp "$cd_dir/data" /tmp/hang.dump
check grep -q '^xehpg GuC crash dump$' /tmp/hang.dump
check grep -q '^reason: GuC hung: context 1 could not be disabled$' /tmp/hang.dump
check grep -q '^--- guc_info$' /tmp/hang.dump
check grep -q '^--- ct$' /tmp/hang.dump
# Text up to the count line, then exactly that many bytes of the buffer.
text_len=$(sed -n '1,/^guc_log: /p' /tmp/hang.dump | wc -c)
expect_eq "log bytes announced" "$(sed -n '/^guc_log: /{p;q}' /tmp/hang.dump)" "guc_log: $((0x115000)) bytes follow"
expect_eq "dump size" "$(wc -c </tmp/hang.dump)" $((text_len + 0x115000))

check submit_cmd "$bdf" "all 10"
for e in $engines; do submit_ok "$bdf" "$e" 10; done

check rmmod xehpg
expect_eq "coredump gone with the driver" "$(devcd_of "$bdf")" ""
check_dmesg_clean
done_testing
