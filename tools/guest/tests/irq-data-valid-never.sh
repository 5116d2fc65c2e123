#!/bin/sh
# The identity register never shows DataValid after a selection (fault
# irq-data-valid-never). The driver gives up after ~100 us, logs the bank,
# the bit and the value it read, ends the selection, clears the bit with the
# rest of the bank and stays working: the next interrupt is serviced again,
# and unbind and rmmod complete. The GuC interrupts of the boot's two CT
# replies were lost the same way, yet the GuC runs: the waiting requests read
# G2H themselves after 100 ms without a wake-up (Documentation/ct.rst).
# mock-args: --fault irq-data-valid-never
# expect-mock: violations == 0
# timeout: 180
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
check is_bound "$bdf"
# The boot's CT replies lost their interrupts (some may share one).
boot=$(irq_get "$bdf" data_valid_timeouts)
check boot_guc_irqs_fit "$bdf" "$boot"
expect_eq "GuC running all the same" "$(guc_get "$bdf" status)" running
expect_eq "CT up" "$(ct_get "$bdf" state)" up
if [ "$(ct_count "$bdf" receive polls)" -ge 2 ]; then ok "replies read by the waiters' polls"; else not_ok "replies read by the waiters' polls" "$(ct_get "$bdf" receive)"; fi
mock_request "irq:guc:0x8000:1"
wait_until 20 irq_get_at_least "$bdf" data_valid_timeouts $((boot + 1))
expect_eq "DataValid timeouts" "$(irq_get "$bdf" data_valid_timeouts)" $((boot + 1))
expect_eq "nothing delivered" "$(irq_src "$bdf" guc)" 0
wait_until 10 dmesg_has "irq: INTR_IDENTITY_REG0 bit 25: DataValid not set"
check dmesg_has "xehpg $bdf: irq: INTR_IDENTITY_REG0 bit 25: DataValid not set after 100 us (read 0x00000000); bit cleared, $((boot + 1)) such in total"
# The controller is not wedged: the next event is serviced (and times out the
# same way, because the fault stays on), in the other bank too.
mock_request "irq:vcs0:0x0001:1"
wait_until 20 irq_get_at_least "$bdf" data_valid_timeouts $((boot + 2))
check dmesg_has "irq: INTR_IDENTITY_REG1 bit 0: DataValid not set"
expect_eq "tile enable set again" "$(irq_get "$bdf" "reg DG1_MSTR_TILE_INTR")" 0x80000000
check rmmod xehpg
check not test -e /sys/kernel/debug/xehpg
check_dmesg_clean
done_testing
