// SPDX-License-Identifier: GPL-2.0

//! The interrupt registers: the tile register, the primary register, the GT DW banks with
//! their selector and identity, the per-class enables and per-instance masks, the PCU and
//! GU_MISC IIR groups, and the GT error registers.
//!
//! Offsets the PRM gives are cited by line of its Volume 13 ("seed 000 L*n*",
//! Documentation/references.rst);
//! everything else is upstream `drivers/gpu/drm/xe/regs/xe_irq_regs.h` (and
//! `xe_hw_error_regs.h` for the error block). None of them is in a forcewake range: the PRM's
//! table (seed 000 lines 455-704) has no row between 0x040000 and 0x1BFFFF, and the error block
//! at 0x100160 lies in that hole too, so the top half reaches them without a wake
//! ([`crate::gt::Gt::read_aon`] checks that at build time).

use crate::engine::Class;
use kernel::io::register;

register! {
    /// Device tile interrupt register, in the root tile (seed 000 L2324 "19_0008h (RW1C)";
    /// `DG1_MSTR_TILE_INTR`). Bit 31 is the enable the ISR clears on entry and sets on exit
    /// (L2338, L2393); the tile bits below it are RW1C (L2302-2303, L2341).
    pub(crate) DG1_MSTR_TILE_INTR(u32) @ 0x00190008 {
        31:31 dg1_mstr_irq => bool;
        /// `DG1_MSTR_TILE(t)`: tile t has a pending primary interrupt.
        3:0 tiles;
    }

    /// Per-tile primary interrupt register (seed 000 L2325 "19_0010h (Mostly RW1C .. Except bit
    /// 31)"; `GFX_MSTR_IRQ`).
    pub(crate) GFX_MSTR_IRQ(u32) @ 0x00190010 {
        31:31 master_irq => bool;
        29:29 gu_misc_irq => bool;
        /// `ERROR_IRQ(x)`, x = correctable 0, non-fatal 1, fatal 2 (seed 000 L2305 "SoC and Error bits").
        28:26 error_irq;
        16:16 display_irq => bool;
        /// `GT_DW_IRQ(x)`: GT DW bank x has a DW-level event (seed 000 "Graphics
        /// interrupts use 2 bits", L2196).
        1:0 gt_dw;
    }

    /// Second-level IIR of GT DW bank x (seed 000 L2348, L2357: 190018h, 19001Ch;
    /// cleared by writing 1s, L2225).
    pub(crate) GT_INTR_DW(u32)[2] @ 0x00190018 {
        31:0 bits;
    }

    /// The per-class enables, one dword per class pair at 0x190030 + 4i: the first class in
    /// 31:16, the second in 15:0 (`regs/xe_irq_regs.h`, `RENDER_COPY_INTR_ENABLE` to
    /// `CCS_RSVD_INTR_ENABLE`, consecutive; seed 000 L2211: the enable is per class). The
    /// named aliases below are its elements.
    pub(crate) GT_INTR_ENABLE(u32)[7] @ 0x00190030 {
        31:16 engine1;
        15:0 engine0;
    }

    /// `RENDER_COPY_INTR_ENABLE` (0x190030): render in 31:16, copy in 15:0.
    pub(crate) RENDER_COPY_INTR_ENABLE(u32) => GT_INTR_ENABLE[0] {
        31:16 engine1;
        15:0 engine0;
    }

    /// `VCS_VECS_INTR_ENABLE` (0x190034): video decode in 31:16, video enhance in 15:0.
    pub(crate) VCS_VECS_INTR_ENABLE(u32) => GT_INTR_ENABLE[1] {
        31:16 engine1;
        15:0 engine0;
    }

    /// `GUC_SG_INTR_ENABLE` (0x190038): the GuC in 31:16.
    pub(crate) GUC_SG_INTR_ENABLE(u32) => GT_INTR_ENABLE[2] {
        31:16 engine1;
        15:0 engine0;
    }

    /// `GPM_WGBOXPERF_INTR_ENABLE` (0x19003c): GTPM and WDOAPerf; this driver keeps it 0.
    pub(crate) GPM_WGBOXPERF_INTR_ENABLE(u32) => GT_INTR_ENABLE[3] {
        31:16 engine1;
        15:0 engine0;
    }

    /// `CRYPTO_RSVD_INTR_ENABLE` (0x190040): KCR in 31:16; kept 0 (no PXP here).
    pub(crate) CRYPTO_RSVD_INTR_ENABLE(u32) => GT_INTR_ENABLE[4] {
        31:16 engine1;
        15:0 engine0;
    }

    /// `GUNIT_GSC_INTR_ENABLE` (0x190044): the GSC in 15:0; kept 0 (no GSC support here).
    pub(crate) GUNIT_GSC_INTR_ENABLE(u32) => GT_INTR_ENABLE[5] {
        31:16 engine1;
        15:0 engine0;
    }

    /// `CCS_RSVD_INTR_ENABLE` (0x190048): compute in 31:16.
    pub(crate) CCS_RSVD_INTR_ENABLE(u32) => GT_INTR_ENABLE[6] {
        31:16 engine1;
        15:0 engine0;
    }

    /// Shared IIR of GT DW bank x (seed 000 L2350, L2359: 190060h, 190064h); message
    /// format L2173-2182.
    pub(crate) INTR_IDENTITY_REG(u32)[2] @ 0x00190060 {
        /// Data-Valid (L2231): the selected engine's bits are presented.
        31:31 data_valid => bool;
        25:20 instance;
        /// The engine class; 6 and 7 name none.
        18:16 class ?=> Class;
        15:0 intr;
    }

    /// One-hot engine selector of GT DW bank x (seed 000 L2349, L2358: 190070h, 190074h).
    pub(crate) IIR_REG_SELECTOR(u32)[2] @ 0x00190070 {
        31:0 bits;
    }

    /// The per-instance masks, dwords at 0x190090 + 4i up to `CCS2_CCS3_INTR_MASK` (0x190104):
    /// the first-named engine in 31:16, the second in 15:0; a set bit masks (seed 000 L2213;
    /// `regs/xe_irq_regs.h`, `*_INTR_MASK`). Upstream names 15 of the 30 dwords; the driver
    /// touches only those, through the named aliases below.
    pub(crate) GT_INTR_MASK(u32)[30] @ 0x00190090 {
        31:16 engine1;
        15:0 engine0;
    }

    /// `RCS0_RSVD_INTR_MASK` (0x190090): RCS0 in 31:16.
    pub(crate) RCS0_RSVD_INTR_MASK(u32) => GT_INTR_MASK[0] {
        31:16 engine1;
        15:0 engine0;
    }

    /// `BCS_RSVD_INTR_MASK` (0x1900a0): BCS0 in 31:16.
    pub(crate) BCS_RSVD_INTR_MASK(u32) => GT_INTR_MASK[4] {
        31:16 engine1;
        15:0 engine0;
    }

    /// `VCS0_VCS1_INTR_MASK` (0x1900a8).
    pub(crate) VCS0_VCS1_INTR_MASK(u32) => GT_INTR_MASK[6] {
        31:16 engine1;
        15:0 engine0;
    }

    /// `VCS2_VCS3_INTR_MASK` (0x1900ac).
    pub(crate) VCS2_VCS3_INTR_MASK(u32) => GT_INTR_MASK[7] {
        31:16 engine1;
        15:0 engine0;
    }

    /// `VCS4_VCS5_INTR_MASK` (0x1900b0).
    pub(crate) VCS4_VCS5_INTR_MASK(u32) => GT_INTR_MASK[8] {
        31:16 engine1;
        15:0 engine0;
    }

    /// `VCS6_VCS7_INTR_MASK` (0x1900b4).
    pub(crate) VCS6_VCS7_INTR_MASK(u32) => GT_INTR_MASK[9] {
        31:16 engine1;
        15:0 engine0;
    }

    /// `VECS0_VECS1_INTR_MASK` (0x1900d0).
    pub(crate) VECS0_VECS1_INTR_MASK(u32) => GT_INTR_MASK[16] {
        31:16 engine1;
        15:0 engine0;
    }

    /// `VECS2_VECS3_INTR_MASK` (0x1900d4).
    pub(crate) VECS2_VECS3_INTR_MASK(u32) => GT_INTR_MASK[17] {
        31:16 engine1;
        15:0 engine0;
    }

    /// `HECI2_RSVD_INTR_MASK` (0x1900e4): kept all ones.
    pub(crate) HECI2_RSVD_INTR_MASK(u32) => GT_INTR_MASK[21] {
        31:16 engine1;
        15:0 engine0;
    }

    /// `GUC_SG_INTR_MASK` (0x1900e8): the GuC in 31:16.
    pub(crate) GUC_SG_INTR_MASK(u32) => GT_INTR_MASK[22] {
        31:16 engine1;
        15:0 engine0;
    }

    /// `GPM_WGBOXPERF_INTR_MASK` (0x1900ec): kept all ones.
    pub(crate) GPM_WGBOXPERF_INTR_MASK(u32) => GT_INTR_MASK[23] {
        31:16 engine1;
        15:0 engine0;
    }

    /// `CRYPTO_RSVD_INTR_MASK` (0x1900f0): kept all ones.
    pub(crate) CRYPTO_RSVD_INTR_MASK(u32) => GT_INTR_MASK[24] {
        31:16 engine1;
        15:0 engine0;
    }

    /// `GUNIT_GSC_INTR_MASK` (0x1900f4): kept all ones.
    pub(crate) GUNIT_GSC_INTR_MASK(u32) => GT_INTR_MASK[25] {
        31:16 engine1;
        15:0 engine0;
    }

    /// `CCS0_CCS1_INTR_MASK` (0x190100).
    pub(crate) CCS0_CCS1_INTR_MASK(u32) => GT_INTR_MASK[28] {
        31:16 engine1;
        15:0 engine0;
    }

    /// `CCS2_CCS3_INTR_MASK` (0x190104).
    pub(crate) CCS2_CCS3_INTR_MASK(u32) => GT_INTR_MASK[29] {
        31:16 engine1;
        15:0 engine0;
    }

    /// GT error status, correctable / non-fatal / fatal (seed 000 L2314-2316: 10_0160h-10_0168h,
    /// RW1C; `ERR_STAT_GT_REG(x)` in `xe_hw_error_regs.h`).
    pub(crate) ERR_STAT_GT_REG(u32)[3] @ 0x00100160 {
        31:0 bits;
    }

    /// Device error source, fatal / non-fatal / correctable at 10_0174h / 10_0178h / 10_017Ch
    /// (seed 000 L2319-2321, RW1C), so element `2 - severity`; bit 0 `XE_GT_ERROR`
    /// (`xe_hw_error_regs.h`, `DEV_ERR_STAT_REG(x)`).
    pub(crate) DEV_ERR_STAT_REG(u32)[3] @ 0x00100174 {
        0:0 gt_error => bool;
    }

    /// PCU interrupt group, ISR/IMR/IIR/IER at 444E0h-444EFh (seed 000 L2323 "PCU Interrupt
    /// Register 444E0-EFh"; order from `xe_irq.c`, "always consecutive and ordered ISR, IMR,
    /// IIR, IER"; `PCU_IRQ_OFFSET`). This driver keeps it masked and disabled.
    pub(crate) PCU_IMR(u32) @ 0x000444e4 {
        31:0 bits;
    }

    /// PCU IIR (RW1C; may hold two queued events, `xe_irq.c` `mask_and_disable`).
    pub(crate) PCU_IIR(u32) @ 0x000444e8 {
        31:0 bits;
    }

    /// PCU IER.
    pub(crate) PCU_IER(u32) @ 0x000444ec {
        31:0 bits;
    }

    /// GU_MISC interrupt group IMR (`GU_MISC_IRQ_OFFSET` 0x444f0 + 4). Its only user upstream is
    /// the display backlight (`GU_MISC_GSE`); this driver has no display and keeps it masked.
    pub(crate) GU_MISC_IMR(u32) @ 0x000444f4 {
        31:0 bits;
    }

    /// GU_MISC IIR.
    pub(crate) GU_MISC_IIR(u32) @ 0x000444f8 {
        31:0 bits;
    }

    /// GU_MISC IER.
    pub(crate) GU_MISC_IER(u32) @ 0x000444fc {
        31:0 bits;
    }
}
