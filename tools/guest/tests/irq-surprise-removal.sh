#!/bin/sh
# The card vanishes while interrupts are armed, then an MSI still arrives
# (a shared or stale interrupt): the top half reads all ones, counts the
# device as gone, says so once, leaves the tile enable off and answers
# IRQ_NONE without looping; further MSIs change nothing but the count. Unbind
# and rmmod complete.
# expect-mock: surprise_removals == 1
# timeout: 240
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
drv=/sys/bus/pci/drivers/xehpg
check is_bound "$bdf"
# Counted from what the driver saw, not from the boot's expected count: two of
# the boot's CT messages may share one interrupt under load.
before=$(irq_src "$bdf" guc)
mock_request "irq:guc:0x8000:1"
check wait_until 20 irq_src_at_least "$bdf" guc $((before + 1))
kept=$(irq_src "$bdf" guc)
mock_request surprise-removal
sleep 2
mock_request spurious-msi
wait_until 30 irq_get_at_least "$bdf" device_gone 1
wait_until 10 dmesg_has "irq: interrupt registers read 0xffffffff, device not responding"
check dmesg_has "xehpg $bdf: irq: interrupt registers read 0xffffffff, device not responding; interrupts stay off"
mock_request spurious-msi
mock_request spurious-msi
wait_until 30 irq_get_at_least "$bdf" device_gone 3
n=$(dmesg | grep -c "irq: interrupt registers read 0xffffffff")
expect_eq "said once" "$n" 1
expect_eq "the GuC count kept from before the removal" "$(irq_src "$bdf" guc)" "$kept"
(echo "$bdf" >$drv/unbind; echo $? >/tmp/unbind.rc) &
wait_until 60 test -e /tmp/unbind.rc
expect_eq "unbind returned within 60 s with status" "$(cat /tmp/unbind.rc 2>/dev/null)" 0
check rmmod xehpg
check_dmesg_clean
done_testing
