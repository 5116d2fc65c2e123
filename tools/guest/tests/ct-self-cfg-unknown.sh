#!/bin/sh
# The GuC takes none of the SELF_CFG KLVs (mock fault ct-self-cfg-unknown:
# every one answers DATA0 0, the firmware's "unknown key"). The driver stops
# at the first, names the key, and the GuC stays down with the device bound.
# mock-args: --fault ct-self-cfg-unknown
# expect-mock: ct.enables == 0
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
check is_bound "$bdf"
expect_eq "GuC status" "$(guc_get "$bdf" status)" failed
check dmesg_has "xehpg $bdf: guc: CT registration: the GuC does not know SELF_CFG key 0x0903 (SELF_CFG_H2G_CTB_DESCRIPTOR_ADDR)"
case $(guc_get "$bdf" last_error) in
"CT enable: "*"(126)") ok "last_error names the CT step and ENOKEY" ;;
*) not_ok "last_error names the CT step" "$(guc_get "$bdf" last_error)" ;;
esac
check rmmod xehpg
check_dmesg_clean
done_testing
