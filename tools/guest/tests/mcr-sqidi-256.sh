#!/bin/sh
# SQIDI steering on an Alchemist-256 (SQIDI instances 2-5, seed 000
# line 740). The seed names no fuse or strap that tells the three parts
# apart, so the mock takes the part as an option and the same body runs in
# mcr-sqidi-512.sh, mcr-sqidi-256.sh and mcr-sqidi-128.sh, all on full
# ATS-M150 DSS fuses: the driver must address only instances 2 and 3, which
# every part has, and refuse the rest. A read of a terminated instance is a
# mock violation, which fails the run.
# mock-args: --sqidi-part alchemist-256
. /tests/lib.sh

sqidi_part_checks
