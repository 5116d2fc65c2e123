#!/bin/sh
# A partially fused G11-like part: DSS only in quadrant 1, MEML3 only there,
# so DSS (0,0) and L3 banks 0-7 are terminated. Reads must be steered to an
# instance that exists (the mock counts a read of a terminated instance as a
# violation and the harness fails the run on it). The preset's SQIDI part is
# Alchemist-128 (instances 2 and 3); the driver addresses those two on every
# part, so it does not depend on the mock's choice (mcr-sqidi-*.sh).
# device-id: 0x56a5
# mock-args: --fuses g11-partial
. /tests/lib.sh

bdf=$(gpu_bdf 0x56a5)
check is_bound "$bdf"
expect_eq "platform" "$(info_get "$bdf" platform)" "DG2-G11"
expect_eq "dss_count" "$(topo "$bdf" dss_count)" 8
expect_eq "l3bank_mask" "$(topo "$bdf" l3bank_mask)" 0x0000ff00
expect_eq "mslice_mask" "$(topo "$bdf" mslice_mask)" 0x2
# The GuC's hwconfig table follows the same fuses: one quadrant, 8 DSS.
expect_eq "hwconfig MAX_SLICES_SUPPORTED" "$(hwconfig_get "$bdf" MAX_SLICES_SUPPORTED)" "(1): 1"
expect_eq "hwconfig MAX_DUAL_SUBSLICES_SUPPORTED" "$(hwconfig_get "$bdf" MAX_DUAL_SUBSLICES_SUPPORTED)" "(2): 8"
expect_eq "hwconfig DEPRECATED_L3_BANK_COUNT" "$(hwconfig_get "$bdf" DEPRECATED_L3_BANK_COUNT)" "(7): 8"
expect_eq "hwconfig MAX_VCS" "$(hwconfig_get "$bdf" MAX_VCS)" "(25): 1"
expect_eq "DSS steering target" "$(sed -n 's/^DSS *//p' "$DBG/$bdf/steering")" "2,0"
expect_eq "L3BANK steering target" "$(sed -n 's/^L3BANK *//p' "$DBG/$bdf/steering")" "2,0"
check put "$bdf" forcewake_all_ctl 1
check mcr "$bdf" write LSC_CHICKEN_BIT_0 all 0x1234
expect_eq "steered DSS read returns the multicast value" "$(mcr "$bdf" read LSC_CHICKEN_BIT_0)" 0x00001234
check mcr "$bdf" write XEHP_L3SQCREG5 all 0x77
expect_eq "steered L3BANK read returns the multicast value" "$(mcr "$bdf" read XEHP_L3SQCREG5)" 0x00000077
check not mcr "$bdf" read LSC_CHICKEN_BIT_0 0 0
check not mcr "$bdf" write XEHP_L3SQCREG5 0 0 1
check mcr "$bdf" write XEHP_L3SQCREG5 3 3 0x99
expect_eq "unicast to a present bank" "$(mcr "$bdf" read XEHP_L3SQCREG5 3 3)" 0x00000099
expect_eq "SQIDI: instance 3 (on every part) is read" "$(mcr "$bdf" read XEHP_SQCM 0 3 >/dev/null && echo yes)" yes
check not mcr "$bdf" read XEHP_SQCM 0 4
check not mcr "$bdf" read XEHP_SQCM 0 0
check put "$bdf" forcewake_all_ctl 0
check_dmesg_clean
done_testing
