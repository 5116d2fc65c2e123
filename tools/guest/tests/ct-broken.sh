#!/bin/sh
# G2H rings the reader can no longer follow, one per load of the driver: a
# header claiming dwords past the tail, a tail outside the ring, the host's
# head overwritten, an error bit in the descriptor status, and the GuC
# disabling the channel. Each breaks the channel with a clear message (the
# descriptor gets the ABI's status bit where the host found the fault),
# sends fail at once with EPIPE instead of hanging, nothing is read past the
# ring, and unbind and a fresh load bring a working channel back.
# timeout: 300
# expect-mock: violations == 0
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)

# broken REQUEST STATE MESSAGE: inject, expect the state and the message.
broken() {
	check is_bound "$bdf"
	expect_eq "$1: up before" "$(ct_get "$bdf" state)" up
	mock_request "$1"
	wait_until 10 ct_state_is "$bdf" "broken: $2"
	check dmesg_has "$3"
	check not ct_cmd "$bdf" "ping 1"
	expect_eq "$1: send fails with EPIPE" "$(ct_load "$bdf" error)" -32
	check dmesg_has "guc: CT request 0x0509 not sent: the channel is broken ($2)"
	check reload
	expect_eq "$1: up after reload" "$(ct_get "$bdf" state)" up
	check ct_cmd "$bdf" "ping 3"
}

broken g2h:len-past-tail "message length past the tail" "guc: CT broken: message length past the tail"
broken g2h:tail-outside "tail outside the ring" "guc: CT broken: tail outside the ring"
broken g2h:head-outside "head moved under the host" "guc: CT broken: head moved under the host"
broken g2h:status:4 "descriptor status error" "guc: CT broken: descriptor status error"
broken ct:disable "disabled by the GuC" "guc: CT disabled by the GuC; sends now fail"
check rmmod xehpg
check_dmesg_clean
done_testing
