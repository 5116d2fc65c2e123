#!/bin/sh
# Fuses with no DSS at all (memory units only in quadrant 1, through MEML3):
# DSS and GSLICE have no instance to steer a read to. The driver says so
# instead of reading a terminated instance (which the mock would count as a
# violation), and the steering file reports "none" for those groups, while
# the quadrant-1 L3 banks still work.
# mock-args: --fuse-dss-g 0 --fuse-dss-c 0 --fuse-meml3 0x2
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
check is_bound "$bdf"
expect_eq "dss_count" "$(topo "$bdf" dss_count)" 0
expect_eq "DSS steering target" "$(sed -n 's/^DSS *//p' "$DBG/$bdf/steering")" none
expect_eq "GSLICE steering target" "$(sed -n 's/^GSLICE *//p' "$DBG/$bdf/steering")" none
expect_eq "L3BANK steering target" "$(sed -n 's/^L3BANK *//p' "$DBG/$bdf/steering")" 2,0
check put "$bdf" forcewake_all_ctl 1
check not mcr "$bdf" read LSC_CHICKEN_BIT_0
check dmesg_has "mcr: read of LSC_CHICKEN_BIT_0 refused: no instance of the group exists"
check not mcr "$bdf" read FF_MODE
check mcr "$bdf" read XEHP_L3SQCREG5
check mcr "$bdf" read XEHP_GAMCNTRL_CTRL
check put "$bdf" forcewake_all_ctl 0
check_dmesg_clean
done_testing
