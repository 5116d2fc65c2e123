#!/bin/sh
# GAM reads with GAM_MCR_SELECTOR reset to sliceid 0, the seed's reading:
# every steering register's sliceid defaults to 0 (seed 000 line 731) and
# software must steer back to the primary GAM before reading (line 744).
# The same body runs in mcr-gam-reset-0.sh and mcr-gam-reset-1.sh: the
# driver must read GAM registers (XEHP_FLAT_CCS_BASE_ADDR at probe, then
# XEHP_GAMCNTRL_CTRL here) from the primary GAM, sliceid 1, on both. A GAM
# read through any other sliceid is a mock violation (gam_not_primary),
# which fails the run.
# mock-args: --gam-reset-slice 0
. /tests/lib.sh

gam_primary_checks
