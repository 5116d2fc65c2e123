#!/bin/sh
# G2H rings the reader can no longer follow: a header claiming dwords past
# the tail, a tail outside the ring, the host's head overwritten, an error bit
# in the descriptor status, and the GuC disabling the channel. Each breaks the
# channel with a clear message (the descriptor gets the ABI's status bit where
# the host found the fault), nothing is read past the ring, and the broken
# channel queues a GT reset, as upstream's kick_reset: GDRST.GRDOM_FULL, the
# GuC loaded again, a working channel back without unbind. The mock's record
# shows one full reset per break and two GuC loads for each besides the
# probe's.
# timeout: 300
# expect-mock: guc.full_resets == 5
# expect-mock: guc_loads == 12
# expect-mock: violations == 0
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
check is_bound "$bdf"
resets=0

# broken REQUEST STATE MESSAGE: inject, expect the message, the reset and
# the channel back.
broken() {
	expect_eq "$1: up before" "$(ct_get "$bdf" state)" up
	mock_request "$1"
	resets=$((resets + 1))
	check wait_until 30 resets_done_is "$bdf" "$resets"
	check dmesg_has "$3"
	check dmesg_has "gt: reset started (CT broken: $2)"
	expect_eq "$1: up after the reset" "$(ct_get "$bdf" state)" up
	check ct_cmd "$bdf" "ping 3"
}

broken g2h:len-past-tail "message length past the tail" "guc: CT broken: message length past the tail"
broken g2h:tail-outside "tail outside the ring" "guc: CT broken: tail outside the ring"
broken g2h:head-outside "head moved under the host" "guc: CT broken: head moved under the host"
broken g2h:status:4 "descriptor status error" "guc: CT broken: descriptor status error"
broken ct:disable "disabled by the GuC" "guc: CT disabled by the GuC; sends now fail"
expect_eq "no reset failed" "$(reset_get "$bdf" failed)" 0
check rmmod xehpg
check_dmesg_clean
done_testing
