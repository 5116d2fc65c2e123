// SPDX-License-Identifier: GPL-2.0

//! Programming the interrupt registers: every enable and mask of a plan (with stormed sources
//! masked), the reset `xe_irq.c` does at install and quiesce, the re-arm after a GT reset, and
//! the accessors of the enable and mask arrays, with the build-time check that their indices
//! land on the named registers.

use kernel::prelude::*;

use super::{regs::*, state::IrqState, TILE_BITS};
use crate::{
    engine::{
        source::{EnableReg, MaskReg},
        Mode, Plan,
    },
    gt::Gt,
    regs::ALL_ONES,
};

impl IrqState {
    /// GT reset, after `GDRST.GRDOM_FULL`: writes the armed plan's enables and masks again,
    /// then the tile enable, as [`Irq::arm`](super::Irq::arm) did. Upstream keeps the GT's
    /// interrupt enables across the reset and only re-enables the GuC's (`xe_guc.c`
    /// `guc_enable_irq`, from `xe_guc_enable_communication`); writing all of them again is what
    /// a part that lost them needs and costs a reset-rare handful of writes. Nothing if disarmed
    /// (unbind). Process context; takes the control lock with interrupts off.
    pub(crate) fn rearm(&self, gt: &Gt<'_>) {
        let ctl = self.ctl.lock();
        if !ctl.armed {
            return;
        }
        program(gt, &ctl.plan, ctl.stormed);
        gt.write_aon(DG1_MSTR_TILE_INTR::zeroed().with_dg1_mstr_irq(true));
        let _ = gt.read_aon::<DG1_MSTR_TILE_INTR>();
    }
}

/// Writes every enable and mask of `plan`, with the stormed sources masked.
pub(super) fn program(gt: &Gt<'_>, plan: &Plan, stormed: u32) {
    for (r, v) in EnableReg::ALL.iter().zip(plan.enables) {
        write_enable(gt, *r, v);
    }
    for r in MaskReg::ALL {
        write_mask(gt, r, plan.mask_with(r, stormed));
    }
}

/// The reset of `xe_irq.c` (`xe_irq_reset`: `dg1_irq_reset`, `gt_irq_reset`,
/// `mask_and_disable` of the PCU and GU_MISC groups, `dg1_irq_reset_mstr`), in its order:
/// tile enable off first, every enable 0 and every mask all ones, the PCU and GU_MISC IIRs
/// cleared twice (an IIR can hold two queued events), and the primary register last so no
/// lower-level bit re-latches it.
pub(super) fn reset(gt: &Gt<'_>) {
    gt.write_aon(DG1_MSTR_TILE_INTR::zeroed());
    let tile = gt.read_aon::<DG1_MSTR_TILE_INTR>().into_raw();
    if tile != 0 && tile != ALL_ONES {
        gt.write_aon(DG1_MSTR_TILE_INTR::from_raw(tile & TILE_BITS));
    }
    let off = Plan::off(Mode::Guc);
    program(gt, &off, 0);
    gt.write_aon(GPM_WGBOXPERF_INTR_ENABLE::zeroed());
    gt.write_aon(CRYPTO_RSVD_INTR_ENABLE::zeroed());
    gt.write_aon(GUNIT_GSC_INTR_ENABLE::zeroed());
    gt.write_aon(HECI2_RSVD_INTR_MASK::from_raw(ALL_ONES));
    gt.write_aon(GPM_WGBOXPERF_INTR_MASK::from_raw(ALL_ONES));
    gt.write_aon(CRYPTO_RSVD_INTR_MASK::from_raw(ALL_ONES));
    gt.write_aon(GUNIT_GSC_INTR_MASK::from_raw(ALL_ONES));
    // PCU and GU_MISC: mask, posting read, disable, clear the IIR twice.
    gt.write_aon(PCU_IMR::from_raw(ALL_ONES));
    let _ = gt.read_aon::<PCU_IMR>();
    gt.write_aon(PCU_IER::zeroed());
    for _ in 0..2 {
        gt.write_aon(PCU_IIR::from_raw(ALL_ONES));
        let _ = gt.read_aon::<PCU_IIR>();
    }
    gt.write_aon(GU_MISC_IMR::from_raw(ALL_ONES));
    let _ = gt.read_aon::<GU_MISC_IMR>();
    gt.write_aon(GU_MISC_IER::zeroed());
    for _ in 0..2 {
        gt.write_aon(GU_MISC_IIR::from_raw(ALL_ONES));
        let _ = gt.read_aon::<GU_MISC_IIR>();
    }
    gt.write_aon(GFX_MSTR_IRQ::from_raw(ALL_ONES));
}

// Each enable and mask register the driver programs is its named register, as an element of
// its array: the index tables of `engine::source` against the aliases' offsets. Named, and never
// used, for rustc 1.85, as `engine::regs::ALL_CHECKED`.
#[expect(dead_code, reason = "evaluated for its asserts; named for rustc 1.85")]
const INDICES_CHECKED: () = {
    use kernel::io::register::{Register, RegisterArray};
    const fn at<A: RegisterArray>(idx: usize) -> usize {
        assert!(idx < A::SIZE);
        A::OFFSET + idx * A::STRIDE
    }
    assert!(at::<GT_INTR_ENABLE>(EnableReg::RenderCopy.index()) == RENDER_COPY_INTR_ENABLE::OFFSET);
    assert!(at::<GT_INTR_ENABLE>(EnableReg::VcsVecs.index()) == VCS_VECS_INTR_ENABLE::OFFSET);
    assert!(at::<GT_INTR_ENABLE>(EnableReg::GucSg.index()) == GUC_SG_INTR_ENABLE::OFFSET);
    assert!(at::<GT_INTR_ENABLE>(EnableReg::Ccs.index()) == CCS_RSVD_INTR_ENABLE::OFFSET);
    assert!(at::<GT_INTR_MASK>(MaskReg::Rcs0.index()) == RCS0_RSVD_INTR_MASK::OFFSET);
    assert!(at::<GT_INTR_MASK>(MaskReg::Bcs.index()) == BCS_RSVD_INTR_MASK::OFFSET);
    assert!(at::<GT_INTR_MASK>(MaskReg::Vcs01.index()) == VCS0_VCS1_INTR_MASK::OFFSET);
    assert!(at::<GT_INTR_MASK>(MaskReg::Vcs23.index()) == VCS2_VCS3_INTR_MASK::OFFSET);
    assert!(at::<GT_INTR_MASK>(MaskReg::Vcs45.index()) == VCS4_VCS5_INTR_MASK::OFFSET);
    assert!(at::<GT_INTR_MASK>(MaskReg::Vcs67.index()) == VCS6_VCS7_INTR_MASK::OFFSET);
    assert!(at::<GT_INTR_MASK>(MaskReg::Vecs01.index()) == VECS0_VECS1_INTR_MASK::OFFSET);
    assert!(at::<GT_INTR_MASK>(MaskReg::Vecs23.index()) == VECS2_VECS3_INTR_MASK::OFFSET);
    assert!(at::<GT_INTR_MASK>(MaskReg::GucSg.index()) == GUC_SG_INTR_MASK::OFFSET);
    assert!(at::<GT_INTR_MASK>(MaskReg::Ccs01.index()) == CCS0_CCS1_INTR_MASK::OFFSET);
    assert!(at::<GT_INTR_MASK>(MaskReg::Ccs23.index()) == CCS2_CCS3_INTR_MASK::OFFSET);
};

// The indices are in range (checked above), so the array accesses below cannot fail; a failure
// would leave the register unwritten, or read as all ones (what a missing register reads as).
fn write_enable(gt: &Gt<'_>, r: EnableReg, v: u32) {
    let _ = gt.write_aon_at(r.index(), GT_INTR_ENABLE::from_raw(v));
}

pub(super) fn read_enable(gt: &Gt<'_>, r: EnableReg) -> u32 {
    gt.read_aon_at::<GT_INTR_ENABLE>(r.index())
        .map_or(ALL_ONES, GT_INTR_ENABLE::into_raw)
}

pub(super) fn write_mask(gt: &Gt<'_>, r: MaskReg, v: u32) {
    let _ = gt.write_aon_at(r.index(), GT_INTR_MASK::from_raw(v));
}

pub(super) fn read_mask(gt: &Gt<'_>, r: MaskReg) -> u32 {
    gt.read_aon_at::<GT_INTR_MASK>(r.index())
        .map_or(ALL_ONES, GT_INTR_MASK::into_raw)
}
