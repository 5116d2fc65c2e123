#!/bin/sh
# The test-control path end to end, without the driver (`no-load`): the
# guest's XEHPG-VM-MOCK markers reach the mock through the runner's control
# FIFO (tools/vm runner.rs, tools/mock control.rs; Documentation/mock.rst,
# "Test control"). With nothing enabled after reset, the five GuC events are
# dropped at the enable register one by one (paced: a dropped event has no
# service to wait for), the GT error latches without an interrupt (tile
# enable off), the spurious interrupt goes out on INTx (nobody enabled MSI,
# and QEMU wires INTx from the start, as a device without MSI enabled
# signals on its pin) and the malformed requests are never sent: they stay
# in the output. The CT engine's requests take the same path: nothing
# enabled the CT, so its switches stay armed waiting for requests (4 = 1
# busy + 3 failures) and the `g2h:` requests find no channel: nothing is
# written, nothing interrupts. The mock's record is the assertion.
# no-load
# expect-mock: irq.control_requests == 7
# expect-mock: irq.raised == 5
# expect-mock: ct.faults_armed_left == 4
# expect-mock: ct.events_sent == 0
# expect-mock: ct.g2h_pending == 0
# expect-mock: ct.g2h_messages == 0
# expect-mock: violations == 0
# expect-mock: irq.dropped_by_source.guc == 5
# expect-mock: irq.identities_total == 0
# expect-mock: irq.identities.guc == 0
# expect-mock: irq.gt_errors.nonfatal == 1
# expect-mock: irq.spurious_msis == 1
# expect-mock: irq.msis == 0
# expect-mock: irqs == 1
# expect-mock: irqs_dropped == 0
# expect-mock: surprise_removals == 0
# expect-mock: mmio_reads == 0
. /tests/lib.sh
plan 3

dev=$(gpu_dev 0x56c0)
if [ -n "$dev" ] && [ ! -e "$dev/driver" ]; then
	ok "the mock device is present and unbound (${dev##*/})"
else
	not_ok "the mock device is present and unbound" "$(ls /sys/bus/pci/devices 2>&1)"
fi

mock_request irq:guc:8000:5
mock_request gt-error:nonfatal:40
# Malformed (COUNT 0): not a marker, so printed by hand; nothing answers.
echo "XEHPG-VM-MOCK=irq:guc:8000:0"
mock_request spurious-msi
mock_request ct:busy:1:100
mock_request ct:failure:30:3
mock_request g2h:flood:10
echo "XEHPG-VM-MOCK=ct:busy:0:100"
mock_request g2h:event:8003:1:2
# Every well-formed request was answered once the mock carried it out, so
# its record is complete here.
# The spurious INTx left QEMU's INTx emulation pending with the BAR mmaps
# off; the next scenario in this boot would start from that (lib.sh
# intx_release has the cost).
check intx_release "${dev##*/}"
check_dmesg_clean
done_testing
