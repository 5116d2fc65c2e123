#!/bin/sh
# MMIO accounting on the default ATS-M150: the driver is loaded once at boot,
# does a few steered operations (with and without forcewake held), and its
# own count of BAR accesses (debugfs mmio_stats) must equal what the mock saw.
# The harness makes that comparison from the `# mmio` line mmio_report prints
# last (test "mmio-count: driver MMIO count matches the mock").
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
check is_bound "$bdf"
check test -r "$DBG/$bdf/mmio_stats"

# Cold: each command takes and releases the register's domain itself.
check mcr "$bdf" read LSC_CHICKEN_BIT_0
check mcr "$bdf" write FF_MODE all 0x10001
# Held: steered reads and writes under forcewake_all.
check put "$bdf" forcewake_all_ctl 1
check mcr "$bdf" read XEHP_L3SQCREG5
check mcr "$bdf" write SARB_CHICKEN1 1 0 0x5
check mcr "$bdf" read XEHP_GAMCNTRL_CTRL
check put "$bdf" forcewake_all_ctl 0
# A refused command still takes and drops forcewake: counted on both sides.
check not mcr "$bdf" read LSC_CHICKEN_BIT_0 8 0

before=$(mmio_total "$bdf")
after=$(mmio_total "$bdf")
expect_eq "reading mmio_stats costs no MMIO" "$((after - before))" 0
check_dmesg_clean
# Last device access done: report, then finish (done_testing exits).
mmio_report "$bdf"
done_testing
