#!/bin/sh
# Interrupts arriving while the driver unbinds: with fault irq-on-guc-reset
# the GuC and RCS0 raise an event whenever the driver resets the GuC, which
# it does at probe (before interrupts are armed: the events are dropped by
# the disabled enables) and at unbind (with interrupts still armed: the
# handler runs in the middle of teardown, or the MSI is still in flight when
# quiesce disarms, and the late handler touches nothing: both happen, in a
# proportion that depends on the host; measured 13 to 21 serviced of 21).
# Twenty unbind/bind cycles, each must complete with the GuC running again
# and a clean log. Per binding (21 of them) the GuC source is raised once
# per GuC reset (three: before each of the two boots at probe, and at
# unbind), once per reply of the second boot phase over CT (two requests)
# and once per reply of each engine's GuC submission requests (registration,
# policies and enable at probe, disable and deregistration at unbind: five;
# their done events ride on those interrupts).
# mock-args: --fault irq-on-guc-reset
# expect-mock: irq.identities.guc >= 1
# expect-mock: violations == 0
# The late handler touches nothing: from the end of each interrupt teardown
# (the mock's late window: GFX_MSTR_IRQ reset last with the tile and engine
# enables off, as xe_irq_reset) to the next arm or Bus Master Enable, no
# access to a register on the handler's path. The window must have opened:
# one teardown per probe (the install's reset) and one per unbind, 21 each.
# expect-mock: irq.accesses_after_disarm == 0
# expect-mock: irq.disarms == 42
# timeout: 300
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
drv=/sys/bus/pci/drivers/xehpg
check is_bound "$bdf"
mock_expect irq.raised_by_source.guc == $((21 * (3 + 2 + 5 * $(engine_count "$bdf"))))
expect_eq "GuC running" "$(guc_get "$bdf" status)" running
cycles=0
while [ $cycles -lt 20 ]; do
	echo "$bdf" >$drv/unbind || break
	echo "$bdf" >$drv/bind || break
	[ "$(guc_get "$bdf" status)" = running ] || break
	cycles=$((cycles + 1))
done
expect_eq "unbind/bind cycles" "$cycles" 20
expect_eq "armed after the last bind" "$(irq_get "$bdf" armed)" 1
check rmmod xehpg
check_dmesg_clean
done_testing
