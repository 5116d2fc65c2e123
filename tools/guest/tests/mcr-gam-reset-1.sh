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

gam_primary_checks
