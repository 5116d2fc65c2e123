#!/bin/sh
# The GuC refuses CONTROL_CTB enable (mock fault ct-enable-refused): the load
# fails at the CT step with the GuC's error in the log, the device stays
# bound with the GuC down and interrupts armed for execlist mode, and unbind
# resets the GuC and frees the rings.
# mock-args: --fault ct-enable-refused
# expect-mock: ct.enabled == 0
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
check is_bound "$bdf"
expect_eq "GuC status" "$(guc_get "$bdf" status)" failed
case $(guc_get "$bdf" last_error) in
"CT enable: "*"(5)") ok "last_error names the CT step and EIO" ;;
*) not_ok "last_error names the CT step" "$(guc_get "$bdf" last_error)" ;;
esac
check dmesg_has "xehpg $bdf: guc: CT enable refused: error 0x60"
expect_eq "interrupts armed for execlist mode" "$(irq_get "$bdf" mode)" execlist
expect_eq "GuC interrupt not armed" "$(irq_armed "$bdf" guc)" 0x0000
check rmmod xehpg
check_dmesg_clean
done_testing
