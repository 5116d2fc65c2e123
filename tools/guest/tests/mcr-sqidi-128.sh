#!/bin/sh
# SQIDI steering on an Alchemist-128 (SQIDI instances 2 and 3, seed 000
# line 740). The seed names no fuse or strap that tells the three parts
# apart, so the mock takes the part as an option and the same body runs in
# mcr-sqidi-512.sh, mcr-sqidi-256.sh and mcr-sqidi-128.sh, all on full
# ATS-M150 DSS fuses: the driver must address only instances 2 and 3, which
# every part has, and refuse the rest. A read of a terminated instance is a
# mock violation, which fails the run.
# mock-args: --sqidi-part alchemist-128
. /tests/lib.sh

bdf=$(basename "$(gpu_dev 0x56c0)")
check is_bound "$bdf"
check sh -c "echo 1 > $(dbg "$bdf" forcewake_all)"
check mcr "$bdf" write XEHP_SQCM all 0x5a5a0000
expect_eq "steered SQIDI read returns the multicast value" "$(mcr "$bdf" read XEHP_SQCM)" 0x5a5a0000
for i in 2 3; do
	check mcr "$bdf" write XEHP_SQCM 0 "$i" $((0x100 + i))
done
for i in 2 3; do
	expect_eq "SQIDI $i keeps its unicast value" "$(mcr "$bdf" read XEHP_SQCM 0 "$i")" "$(printf '0x%08x' $((0x100 + i)))"
done
for i in 0 1 4 5 6 7; do
	check not mcr "$bdf" read XEHP_SQCM 0 "$i"
	check not mcr "$bdf" write XEHP_SQCM 0 "$i" 0x1
done
check sh -c "echo 0 > $(dbg "$bdf" forcewake_all)"
check_dmesg_clean
done_testing
