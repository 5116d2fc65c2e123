#!/bin/sh
# Multicast steering on a fully enabled ATS-M150: distinct values written to
# every instance with unicast steering read back per instance; a multicast
# write reaches every instance; GAM is read from the primary only (no
# unicast); SQIDI only at instances 2 and 3, the ones every part has (seed
# 000 line 740 names no fuse for the part, so the driver cannot know more);
# instances that do not exist and malformed commands are refused. The mock
# runs with its defaults: GAM selector reset to sliceid 0 (seed 000 line
# 731), so a GAM read the driver did not steer to the primary fails the run.
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
check is_bound "$bdf"
check put "$bdf" forcewake_all_ctl 1

# unicast_round NAME GROUPS INSTANCES: write g*16+i+1 to every (g, i), read back,
# and have the mock confirm the write to (g, i) landed at sliceid g, subsliceid i.
unicast_round() {
	_bad=
	for g in $2; do for i in $3; do
		mcr "$bdf" write "$1" "$g" "$i" $((g * 16 + i + 1)) >/dev/null || _bad="$_bad w$g,$i"
	done; done
	for g in $2; do for i in $3; do
		mcr_into "$bdf" read "$1" "$g" "$i"
		v=$mcr_out
		[ "$((v))" = $((g * 16 + i + 1)) ] || _bad="$_bad r$g,$i=$v"
	done; done
	if [ -z "$_bad" ]; then ok "$1: unicast values per instance"; else not_ok "$1: unicast values per instance" "$_bad"; fi
	# Reading back through the driver cannot show a wrong mapping it applies both
	# ways; the mock's record of where each write landed can.
	for g in $2; do for i in $3; do
		mock_expect "mcr_unicast_values.$1@$g,$i" == $((g * 16 + i + 1))
	done; done
}

# multicast_round NAME GROUPS INSTANCES
multicast_round() {
	check mcr "$bdf" write "$1" all 0x5a5a0000
	_bad=
	for g in $2; do for i in $3; do
		mcr_into "$bdf" read "$1" "$g" "$i"
		v=$mcr_out
		[ "$((v))" = $((0x5a5a0000)) ] || _bad="$_bad $g,$i=$v"
	done; done
	if [ -z "$_bad" ]; then ok "$1: multicast reached every instance"; else not_ok "$1: multicast reached every instance" "$_bad"; fi
}

unicast_round LSC_CHICKEN_BIT_0 "0 1 2 3 4 5 6 7" "0 1 2 3"
multicast_round LSC_CHICKEN_BIT_0 "0 1 2 3 4 5 6 7" "0 1 2 3"
unicast_round XEHP_L3SQCREG5 "0 1 2 3 4 5 6 7" "0 1 2 3"
multicast_round XEHP_L3SQCREG5 "0 3 7" "0 3"
unicast_round FF_MODE "0 1 2 3 4 5 6 7" "0"
unicast_round XEHP_L3NODEARBCFG "0 1 2 3 4 5 6 7" "0"
unicast_round SARB_CHICKEN1 "0 1 2 3" "0"
multicast_round SARB_CHICKEN1 "0 1 2 3" "0"
unicast_round XEHP_SQCM "0" "2 3"
multicast_round XEHP_SQCM "0" "2 3"
for i in 0 1 4 5 6 7; do check not mcr "$bdf" read XEHP_SQCM 0 "$i"; done

# read_any picks the default target (the first DSS on a full part: 0,0).
expect_eq "steered read of DSS picks (0,0)" "$(mcr "$bdf" read LSC_CHICKEN_BIT_0)" "$(mcr "$bdf" read LSC_CHICKEN_BIT_0 0 0)"
check mcr "$bdf" read XEHP_GAMCNTRL_CTRL
check not mcr "$bdf" read XEHP_GAMCNTRL_CTRL 0 0
check mcr "$bdf" write XEHP_GAMCNTRL_CTRL all 0x3
expect_eq "GAM multicast write reads back from the primary" "$(mcr "$bdf" read XEHP_GAMCNTRL_CTRL)" 0x00000003
check not mcr "$bdf" read LSC_CHICKEN_BIT_0 8 0
check not mcr "$bdf" read LSC_CHICKEN_BIT_0 0 4
check not mcr "$bdf" read SARB_CHICKEN1 4 0
check not mcr "$bdf" read NO_SUCH_REG
check not mcr "$bdf" frobnicate LSC_CHICKEN_BIT_0
check not mcr "$bdf" write LSC_CHICKEN_BIT_0 0 0 notanumber
check not mcr "$bdf" read LSC_CHICKEN_BIT_0 0x100 0
expect_eq "an error is reported on read-back" "$(cat "$DBG/$bdf/mcr" | cut -d' ' -f1)" error
check put "$bdf" forcewake_all_ctl 0
expect_eq "no unsteered accesses" "$(fw_counter "$bdf" unsteered_accesses)" 0
check_dmesg_clean
done_testing
