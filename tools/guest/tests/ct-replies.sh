#!/bin/sh
# The GuC's replies misbehave, one fault at a time (mock control requests),
# and after each the channel still works:
# - no reply: the request fails with ETIME after 1 s, its credits come back;
# - BUSY, final reply 300 ms later: the request waits it out and succeeds;
# - RETRY three times: resent, then served; RETRY past the limit (50
#   resends): ELOOP;
# - FAILURE 0x60: EIO with the error and hint logged;
# - FAILURE to a fast request: reported by fence with the action's code;
# - a reply with a fence nobody waits for: counted, logged, ignored;
# - a second load run while one waits (BUSY for 2 s): EBUSY at once.
# timeout: 300
# expect-mock: ct.unanswered == 1
# expect-mock: ct.replies_failure == 2
# expect-mock: ct.replies_busy == 2
# expect-mock: ct.replies_retry == 54
# expect-mock: violations == 0
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
check is_bound "$bdf"
expect_eq "CT state" "$(ct_get "$bdf" state)" up
base=$(ct_count "$bdf" sent requests)

mock_request "ct:no-response:1"
check not ct_cmd "$bdf" "ping 1"
expect_eq "no reply: timed out" "$(ct_count "$bdf" errors timeouts)" 1
expect_eq "no reply: error is ETIME" "$(ct_load "$bdf" error)" -62
check dmesg_has "xehpg $bdf: guc: CT request 0x0509 (fence"
check dmesg_has "no reply within 1000 ms"
expect_eq "no reply: credits back" "$(ct_get "$bdf" credits)" 16384
check ct_cmd "$bdf" "ping 3"

mock_request "ct:busy:1:300"
check ct_cmd "$bdf" "ping 1"
expect_eq "busy: seen" "$(ct_count "$bdf" errors busy)" 1
expect_eq "busy: then done" "$(ct_load "$bdf" done)" 1

mock_request "ct:retry:3"
check ct_cmd "$bdf" "ping 1"
expect_eq "retry: resent three times" "$(ct_count "$bdf" errors retried)" 3
expect_eq "retry: then done" "$(ct_load "$bdf" done)" 1

mock_request "ct:retry:51"
check not ct_cmd "$bdf" "ping 1"
expect_eq "retry past the limit: ELOOP" "$(ct_load "$bdf" error)" -40
expect_eq "retry past the limit: 50 resends" "$(ct_count "$bdf" errors retried)" 54
check dmesg_has "guc: CT request 0x0509 still asked to retry after 50 resends"
check ct_cmd "$bdf" "ping 1"

mock_request "ct:failure:60:1"
check not ct_cmd "$bdf" "ping 1"
expect_eq "failure: counted" "$(ct_count "$bdf" errors failed)" 1
expect_eq "failure: EIO" "$(ct_load "$bdf" error)" -5
check dmesg_has "refused: error 0x60 hint 0x0"

mock_request "ct:failure:30:1"
check ct_cmd "$bdf" "fast 1"
wait_until 10 ct_count_is "$bdf" errors fast_failed 1
check dmesg_has "guc: CT fast request 0x0509 (fence 0x8"
check dmesg_has "failed: error 0x30 hint 0x0"

mock_request "ct:stray-fence"
wait_until 10 ct_count_is "$bdf" errors unexpected 1
check dmesg_has "that no request waits for"

mock_request "ct:busy:1:2000"
(ct_cmd "$bdf" "ping 1"; echo $? >/tmp/slow.rc) &
wait_until 10 ct_outstanding_is "$bdf" 1
check not ct_cmd "$bdf" "ping 1"
wait_until 20 test -e /tmp/slow.rc
expect_eq "the slow run completed" "$(cat /tmp/slow.rc)" 0

check ct_cmd "$bdf" "ping 10"
expect_eq "works after every fault" "$(ct_load "$bdf" done)" 10
expect_eq "CT state at the end" "$(ct_get "$bdf" state)" up
expect_eq "nothing outstanding" "$(ct_get "$bdf" outstanding)" 0
expect_eq "every credit back" "$(ct_get "$bdf" credits)" 16384
check rmmod xehpg
check_dmesg_clean
done_testing
