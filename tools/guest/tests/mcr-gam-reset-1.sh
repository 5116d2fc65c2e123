#!/bin/sh
# GAM reads with GAM_MCR_SELECTOR reset to sliceid 1, upstream's reading:
# slice 1, the primary GAM, is "already the hardware's default steering
# target" (xe_gt_mcr.c xe_gt_mcr_set_implicit_defaults).
# The same body runs in mcr-gam-reset-0.sh and mcr-gam-reset-1.sh: the
# driver must read GAM registers (XEHP_FLAT_CCS_BASE_ADDR at probe, then
# XEHP_GAMCNTRL_CTRL here) from the primary GAM, sliceid 1, on both. A GAM
# read through any other sliceid is a mock violation (gam_not_primary),
# which fails the run.
# mock-args: --gam-reset-slice 1
. /tests/lib.sh

bdf=$(basename "$(gpu_dev 0x56c0)")
check is_bound "$bdf"
expect_eq "GAM steering target" "$(sed -n 's/^GAM *//p' "$(dbg "$bdf" steering)")" "1,0"
check sh -c "echo 1 > $(dbg "$bdf" forcewake_all)"
check mcr "$bdf" read XEHP_GAMCNTRL_CTRL
check mcr "$bdf" write XEHP_GAMCNTRL_CTRL all 0x3
expect_eq "GAM multicast write reads back from the primary" "$(mcr "$bdf" read XEHP_GAMCNTRL_CTRL)" 0x00000003
check not mcr "$bdf" read XEHP_GAMCNTRL_CTRL 1 0
check not mcr "$bdf" read XEHP_GAMCNTRL_CTRL 0 0
check not mcr "$bdf" write XEHP_GAMCNTRL_CTRL 0 0 0x1
# Steering other groups must not disturb GAM.
check mcr "$bdf" read LSC_CHICKEN_BIT_0 3 2
expect_eq "GAM still reads from the primary" "$(mcr "$bdf" read XEHP_GAMCNTRL_CTRL)" 0x00000003
check sh -c "echo 0 > $(dbg "$bdf" forcewake_all)"
check_dmesg_clean
done_testing
