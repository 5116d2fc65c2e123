#!/bin/sh
# Interrupts arriving while the driver unbinds: with fault irq-on-guc-reset
# the GuC and RCS0 raise an event whenever the driver resets the GuC, which
# it does at probe (before interrupts are armed: the events are dropped by
# the disabled enables) and at unbind (with interrupts still armed: the
# handler runs in the middle of teardown, or the MSI is still in flight when
# quiesce disarms, and the late handler touches nothing: both happen, in a
# proportion that depends on the host; measured 13 to 21 serviced of 21).
# Twenty unbind/bind cycles, each must complete with the GuC running again
# and a clean log. The GuC source is raised twice per reset (21 bindings, 42)
# and once per reply of each binding's second boot phase over CT (two
# requests each, 42 more).
# mock-args: --fault irq-on-guc-reset
# expect-mock: irq.raised_by_source.guc == 84
# expect-mock: irq.identities.guc >= 1
# expect-mock: violations == 0
# timeout: 300
. /tests/lib.sh

bdf=$(basename "$(gpu_dev 0x56c0)")
drv=/sys/bus/pci/drivers/xehpg
check is_bound "$bdf"
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
