#!/bin/sh
# The GuC is loaded twice per probe, as upstream (xe_uc.c: the hwconfig boot
# on the minimal ADS, then xe_uc_load_hw): the mock records two DMAs and two
# authenticated loads with a GDRST GuC reset between them. Before the GuC
# schedules, every engine is set up for GuC submission (xe_hw_engine.c
# engine_sr, xe_hw_engine_enable_ring): RING_MODE (legacy off), HWS_PGA,
# HWSTAM and RING_CMD_CCTL written once on each of the ten engines of the
# mock's default ATS-M150 (rcs0, bcs0, ccs0-3, vcs0, vcs2, vecs0, vecs1), and
# RCU_MODE (CCS enable) and CCS_MODE once. Then work runs on every engine
# under the GuC: the mock's command streamer counts each engine's user
# interrupts.
# expect-mock: guc_dmas == 2
# expect-mock: guc.ads.ctl_wa == 0x424800
# expect-mock: guc.ads.ctl_feature == 0x10
# expect-mock: guc.ads.wa_missing == 0x0
# expect-mock: guc.ads.feature_missing == 0x0
# expect-mock: guc_loads == 2
# expect-mock: guc_resets >= 2
# expect-mock: reg_writes.RING_MODE == 10
# expect-mock: reg_writes.RING_HWS_PGA == 10
# expect-mock: reg_writes.RING_HWSTAM == 10
# expect-mock: reg_writes.RING_CMD_CCTL == 10
# expect-mock: reg_writes.RCU_MODE == 1
# expect-mock: reg_writes.CCS_MODE == 1
# expect-mock: guc_submit.refused == 0
# expect-mock: engines.rcs0.user_interrupts >= 20
# expect-mock: engines.bcs0.user_interrupts >= 20
# expect-mock: engines.ccs0.user_interrupts >= 20
# expect-mock: engines.ccs1.user_interrupts >= 20
# expect-mock: engines.ccs2.user_interrupts >= 20
# expect-mock: engines.ccs3.user_interrupts >= 20
# expect-mock: engines.vcs0.user_interrupts >= 20
# expect-mock: engines.vcs2.user_interrupts >= 20
# expect-mock: engines.vecs0.user_interrupts >= 20
# expect-mock: engines.vecs1.user_interrupts >= 20
# expect-mock: violations == 0
# distro
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
check is_bound "$bdf"
expect_eq "GuC status" "$(guc_get "$bdf" status)" running
# The driver's own account agrees with the mock's record (the proof is the
# mock's, above).
expect_eq "load phase" "$(guc_get "$bdf" phase)" full
expect_eq "boots" "$(guc_get "$bdf" boots)" 2
# ATS-M150 is a G10 die: HOLD_CCS_SWITCHOUT | DUAL_QUEUE | PRE_PARSER |
# ENABLE_TSC_CHECK_ON_RC6, no CONTEXT_ISOLATION (G11 only); LITE_RESTORE and
# no SLPC. The mock's record of the words (header) is the proof.
expect_eq "GUC_CTL_WA" "$(guc_get "$bdf" ctl_wa)" 0x00424800
expect_eq "GUC_CTL_FEATURE" "$(guc_get "$bdf" ctl_feature)" 0x00000010
engines=$(sed -n 's/^\([a-z0-9]*\): class .*/\1/p' "$DBG/$bdf/engines")
for e in $engines; do
	expect_eq "$e: GuC mode" "$(eng_get "$bdf" "$e" mode)" guc
done
check submit_cmd "$bdf" "all 20"
for e in $engines; do
	submit_ok "$bdf" "$e" 20
done
check rmmod xehpg
check_dmesg_clean
done_testing
