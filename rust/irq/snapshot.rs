// SPDX-License-Identifier: GPL-2.0

//! The interrupt registers debugfs shows, read in one go while the device is bound
//! ([`RegSnapshot`]), for the report to format later.

use super::{
    program::{read_enable, read_mask},
    regs::*,
};
use crate::{
    engine::source::{EnableReg, MaskReg},
    gt::Gt,
};

/// The registers debugfs shows, read in one go: debugfs reaches the BAR only inside an RCU
/// read-side section, where the report (which allocates) cannot be formatted. Reading them
/// has no side effect (the GT DW and identity registers, whose reads do, are not shown).
pub(crate) struct RegSnapshot {
    pub(super) tile: u32,
    pub(super) primary: u32,
    pub(super) enables: [u32; 4],
    pub(super) masks: [u32; 11],
}

impl RegSnapshot {
    /// Reads the registers; does not sleep.
    pub(crate) fn read(gt: &Gt<'_>) -> Self {
        Self {
            tile: gt.read_aon::<DG1_MSTR_TILE_INTR>().into_raw(),
            primary: gt.read_aon::<GFX_MSTR_IRQ>().into_raw(),
            enables: EnableReg::ALL.map(|r| read_enable(gt, r)),
            masks: MaskReg::ALL.map(|r| read_mask(gt, r)),
        }
    }
}
