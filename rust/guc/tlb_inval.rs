// SPDX-License-Identifier: GPL-2.0

//! GuC TLB invalidation: making the GuC drop translations it cached from the GGTT.
//!
//! Only the GGTT flavour exists so far, done by register before CT is up as upstream does on
//! DG2 (`xe_guc_tlb_inval.c`, `send_tlb_inval_ggtt` falling back to `GUC_TLB_INV_CR`). The
//! register is multicast (a GAM range), so it goes through the steering API.

use kernel::prelude::*;

use crate::{
    gt::{Awake, Gt, GtDomain, GUC_TLB_INV_CR},
    regs::VF_CAP_REG,
};

/// Invalidates the GuC's GGTT TLB: a read of an always-on register first, so the entry writes
/// have landed (upstream `xe_ggtt_invalidate`), then the invalidation register. The caller
/// holds GT forcewake (0xCEE8 is in a GT range, seed 000 line 524).
///
/// # Errors
///
/// The steering layer's error (none expected: the proof covers the register's domain).
pub(super) fn ggtt(gt: &Gt<'_>, awake: &Awake<'_, GtDomain>) -> Result {
    let _: VF_CAP_REG = gt.read_aon();
    let value = GUC_TLB_INV_CR::zeroed().with_invalidate(true);
    gt.mcr.write_multicast(gt, awake.guard(), value)
}
