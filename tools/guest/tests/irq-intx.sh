#!/bin/sh
# A function without the MSI capability (mock --no-msi): the driver falls
# back to the INTx line, requested shared, and everything works the same
# way. Level semantics: the line stays up while the tile register has a bit
# pending, so the handler must acknowledge at the tile register before it
# returns or the interrupt would fire forever. An interrupt with nothing
# pending is answered IRQ_NONE (another device on a shared line).
# mock-args: --no-msi
# The GuC count includes the two replies of the second boot phase over CT.
# expect-mock: irq.identities.rcs0 == 100
# expect-mock: violations == 0
# timeout: 240
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
check is_bound "$bdf"
expect_eq "vector" "$(irq_get "$bdf" vector)" intx
check not test -e "/sys/bus/pci/devices/$bdf/msi_irqs"
mock_request "irq:guc:0x8000:200"
mock_request "irq:rcs0:0x0001:100"
boot=$(boot_guc_irqs "$bdf")
# The mock counts to the end: unbind adds one reply per engine for the
# disable and one for the deregistration.
mock_expect irq.identities.guc == $((boot + 200 + 2 * $(engine_count "$bdf")))
wait_until 120 irq_src_at_least "$bdf" guc $((boot + 200))
wait_until 60 irq_src_at_least "$bdf" rcs0 100
sleep 2
expect_eq "GuC events (the boot's included)" "$(irq_src "$bdf" guc)" $((boot + 200))
expect_eq "rcs0 events" "$(irq_src "$bdf" rcs0)" 100
mock_request spurious-msi
wait_until 20 irq_get_at_least "$bdf" spurious 1
expect_eq "tile enable set again" "$(irq_get "$bdf" "reg DG1_MSTR_TILE_INTR")" 0x80000000
check rmmod xehpg
check_dmesg_clean
done_testing
