#!/bin/sh
# The identity names a reserved class and an instance no engine has (the
# mock's identity-garbage fault: class 7, instance 63, the real data and
# DataValid). The driver counts it, logs it with the raw value, drops it,
# and keeps going. The boot's two CT replies already met the same fate (their
# waiters read G2H themselves after 100 ms).
# mock-args: --fault irq-identity-garbage
# expect-mock: violations == 0
# timeout: 180
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
check is_bound "$bdf"
# The boot's CT replies raised unknown identities (some may share one).
boot=$(irq_get "$bdf" unknown_identities)
check boot_guc_irqs_fit "$bdf" "$boot"
expect_eq "GuC running all the same" "$(guc_get "$bdf" status)" running
mock_request "irq:guc:0x8000:3"
wait_until 20 irq_get_at_least "$bdf" unknown_identities $((boot + 3))
sleep 1
expect_eq "unknown identities" "$(irq_get "$bdf" unknown_identities)" $((boot + 3))
expect_eq "nothing delivered to the GuC" "$(irq_src "$bdf" guc)" 0
check dmesg_has "names class 7 instance 63, not a source of this device; dropped"
expect_eq "tile enable set again" "$(irq_get "$bdf" "reg DG1_MSTR_TILE_INTR")" 0x80000000
check rmmod xehpg
check_dmesg_clean
done_testing
