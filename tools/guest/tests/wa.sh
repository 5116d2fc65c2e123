#!/bin/sh
# Workarounds, tuning, MOCS and PAT (rust/engine/wa/table.rs) on an ATS-M150, a
# G10 die: after bind, the mock's own record must show each applied register
# written, as often as the table's G10 rows say (one write per row; a masked
# register or a read-modify-write row is one write), and the G11-only rows
# not at all. The values are the driver's read-back (also through the mock):
# no mismatch, no refused access.
# Counts, G10 (xe_wa.c, xe_tuning.c, xe_hw_engine.c, xe_mocs.c, xe_pat.c):
# - LSC_CHICKEN_BIT_0_UDW: Wa_22013037850, Wa_18028616096, Wa_22015475538
#   (Wa_22012826095 is G11 only);
# - LSC_CHICKEN_BIT_0: Wa_22014226127 (Wa_22013059131 is G11 only);
# - SAMPLER_MODE: Wa_1509727124 and "Set Indirect State Override";
# - XEHP_HDC_CHICKEN0: Wa_22010960976 and Wa_14015150844;
# - RING_CMD_CCTL: once per engine the mock's fuses give (10);
# - VDBOX_CGCTL3F10: VCS0 and VCS2, the even VCS instances present.
# expect-mock: violations == 0
# expect-mock: reg_writes.MISCCPCTL == 1
# expect-mock: reg_writes.UNSLICE_UNIT_LEVEL_CLKGATE == 1
# expect-mock: reg_writes.SUBSLICE_UNIT_LEVEL_CLKGATE == 1
# expect-mock: reg_writes.SARB_CHICKEN1 == 1
# expect-mock: reg_writes.RENDER_MOD_CTRL == 1
# expect-mock: reg_writes.COMP_MOD_CTRL == 1
# expect-mock: reg_writes.XEHP_VDBX_MOD_CTRL == 1
# expect-mock: reg_writes.XEHP_VEBX_MOD_CTRL == 1
# expect-mock: reg_writes.XEHP_GAMCNTRL_CTRL == 1
# expect-mock: reg_writes.CS_DEBUG_MODE1 == 1
# expect-mock: reg_writes.VFG_PREEMPTION_CHICKEN == 1
# expect-mock: reg_writes.LSC_CHICKEN_BIT_0_UDW == 3
# expect-mock: reg_writes.LSC_CHICKEN_BIT_0 == 1
# expect-mock: reg_writes.ROW_CHICKEN4 == 1
# expect-mock: reg_writes.ROW_CHICKEN2 == 1
# expect-mock: reg_writes.SAMPLER_MODE == 2
# expect-mock: reg_writes.XEHP_HDC_CHICKEN0 == 2
# expect-mock: reg_writes.XEHP_L3SCQREG7 == 1
# expect-mock: reg_writes.XEHP_SQCM == 1
# expect-mock: reg_writes.RING_CMD_CCTL == 10
# expect-mock: reg_writes.VDBOX_CGCTL3F10_VD0 == 1
# expect-mock: reg_writes.VDBOX_CGCTL3F10_VD2 == 1
# expect-mock: reg_writes.XEHP_CLOCK_GATE_DIS == 1
# expect-mock: reg_writes.XEHP_LNCFCMOCS0 == 1
# expect-mock: reg_writes.XEHP_LNCFCMOCS31 == 1
# expect-mock: reg_writes.PAT_INDEX0 == 1
# expect-mock: reg_writes.PAT_INDEX3 == 1
# expect-mock: reg_writes.PAT_INDEX4 == 0
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
check is_bound "$bdf"
check dmesg_has "wa: "
check dmesg_has "for G10, 0 read-back mismatches, 0 refused accesses, 0 skipped (domain asleep)"
check not dmesg_has "wa: read-back"
check_dmesg_clean
done_testing
