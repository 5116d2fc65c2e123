#!/bin/sh
# A DG2-G10 (Arc A770 class) ID whose LMEMBAR covers all of local memory:
# no SR-IOV, no small BAR.
# device-id: 0x56a0
# mock-args: --lmem-size-gib 1 --lmem-bar-mib 1024
. /tests/lib.sh

bdf=$(gpu_bdf 0x56a0)
check is_bound "$bdf"
expect_eq "platform" "$(info_get "$bdf" platform)" "DG2-G10"
expect_eq "SR-IOV PF capable" "$(info_get "$bdf" sriov_pf_capable)" "no"
expect_eq "lmembar_size" "$(info_get "$bdf" lmembar_size)" "0x40000000"
expect_eq "small_bar" "$(info_get "$bdf" small_bar)" "no"
check_dmesg_clean
done_testing
