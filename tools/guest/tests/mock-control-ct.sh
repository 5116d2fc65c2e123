#!/bin/sh
# The CT engine's test-control requests end to end, without the driver
# (`no-load`): the guest's XEHPG-VM-MOCK markers for `ct:` and `g2h:` pass
# the runner's grammar check and reach the mock through its control FIFO
# (Documentation/mock.rst, "Test control"). Nothing enabled the CT, so the
# switches stay armed, waiting for requests (4 = 1 busy + 3 failures), and
# the `g2h:` requests find no channel: nothing is written, nothing
# interrupts. The malformed request (N 0) is never sent.
# no-load
# expect-mock: irq.control_requests == 4
# expect-mock: ct.faults_armed_left == 4
# expect-mock: ct.events_sent == 0
# expect-mock: ct.g2h_pending == 0
# expect-mock: ct.g2h_messages == 0
# expect-mock: irq.raised == 0
# expect-mock: mmio_reads == 0
# expect-mock: violations == 0
. /tests/lib.sh
plan 2

dev=$(gpu_dev 0x56c0)
if [ -n "$dev" ] && [ ! -e "$dev/driver" ]; then
	ok "the mock device is present and unbound (${dev##*/})"
else
	not_ok "the mock device is present and unbound" "$(ls /sys/bus/pci/devices 2>&1)"
fi

mock_request ct:busy:1:100
mock_request ct:failure:30:3
mock_request g2h:flood:10
mock_request ct:busy:0:100
mock_request g2h:event:8003:1:2
# The runner cannot answer; give the mock a moment before the VM stops.
sleep 1
check_dmesg_clean
done_testing
