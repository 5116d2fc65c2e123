// SPDX-License-Identifier: GPL-2.0

//! Multicast registers the driver uses, reachable only through the steering API.
//!
//! Each is defined with `register!` (for its fields and for the driver/mock cross-check in
//! `make check`) and exposed as an [`McrReg`] handle: the plain GT accessor refuses these
//! offsets, so the only way to them is [`super::Mcr`]. Offsets are upstream's
//! (`drivers/gpu/drm/xe/regs/xe_gt_regs.h`, `XE_REG_MCR`); each lies in a seed range of the
//! group named.

use kernel::io::{register, register::Register};

use super::Steering;

register! {
    /// Flat-CCS base: local memory above it holds compression metadata (GAM range, seed 000
    /// line 472; field from upstream `XEHP_FLAT_CCS_PTR`, decoded in `xe_vram.c`).
    pub(crate) XEHP_FLAT_CCS_BASE_ADDR(u32) @ 0x00004910 {
        /// Base in 64 KiB units.
        31:8 ptr;
    }

    /// A GSLICE-replicated mode register (seed 000 lines 481-484).
    pub(crate) FF_MODE(u32) @ 0x00006210 {
        31:0 value;
    }

    /// A SQIDI register behind the MCFG selector (seed 000 line 499).
    pub(crate) XEHP_SQCM(u32) @ 0x00008724 {
        31:0 value;
    }

    /// An LNCF register (seed 000 line 519).
    pub(crate) XEHP_L3NODEARBCFG(u32) @ 0x0000b0b4 {
        31:0 value;
    }

    /// An L3BANK register (seed 000 line 520).
    pub(crate) XEHP_L3SQCREG5(u32) @ 0x0000b158 {
        31:0 value;
    }

    /// A GAM register (seed 000 line 524, GAM as settled in `mcr`).
    pub(crate) XEHP_GAMCNTRL_CTRL(u32) @ 0x0000cf54 {
        31:0 value;
    }

    /// A DSS register (seed 000 lines 538-541).
    pub(crate) LSC_CHICKEN_BIT_0(u32) @ 0x0000e7c8 {
        31:0 value;
    }

    /// An MSLICE register (seed 000 line 542).
    pub(crate) SARB_CHICKEN1(u32) @ 0x0000e90c {
        31:0 value;
    }

    /// GuC GGTT TLB invalidation on DG2 (upstream `regs/xe_guc_regs.h`, used by
    /// `xe_guc_tlb_inval.c` before CT is up). It lies in the GAM range 0xC800-0xCFFF (seed 000
    /// line 524), so it is written multicast like upstream's plain write.
    pub(crate) GUC_TLB_INV_CR(u32) @ 0x0000cee8 {
        0:0 invalidate => bool;
    }
}

/// Handle to a multicast register.
#[derive(Copy, Clone, Debug)]
pub(crate) struct McrReg {
    pub(crate) name: &'static str,
    pub(crate) offset: u32,
    pub(crate) steering: Steering,
}

const fn reg<R: Register>(name: &'static str, steering: Steering) -> McrReg {
    // CAST: every register here lies below 0x240000.
    McrReg {
        name,
        offset: R::OFFSET as u32,
        steering,
    }
}

pub(crate) const FLAT_CCS_BASE: McrReg =
    reg::<XEHP_FLAT_CCS_BASE_ADDR>("XEHP_FLAT_CCS_BASE_ADDR", Steering::Gam);
pub(crate) const TLB_INV: McrReg = reg::<GUC_TLB_INV_CR>("GUC_TLB_INV_CR", Steering::Gam);

/// Every multicast register the driver knows, by name (debugfs `mcr` looks them up here).
pub(crate) const ALL: [McrReg; 9] = [
    FLAT_CCS_BASE,
    TLB_INV,
    reg::<FF_MODE>("FF_MODE", Steering::Gslice),
    reg::<XEHP_SQCM>("XEHP_SQCM", Steering::SqidiMcfg),
    reg::<XEHP_L3NODEARBCFG>("XEHP_L3NODEARBCFG", Steering::Lncf),
    reg::<XEHP_L3SQCREG5>("XEHP_L3SQCREG5", Steering::L3bank),
    reg::<XEHP_GAMCNTRL_CTRL>("XEHP_GAMCNTRL_CTRL", Steering::Gam),
    reg::<LSC_CHICKEN_BIT_0>("LSC_CHICKEN_BIT_0", Steering::Dss),
    reg::<SARB_CHICKEN1>("SARB_CHICKEN1", Steering::Mslice),
];

/// Looks a multicast register up by name.
pub(crate) fn by_name(name: &str) -> Option<McrReg> {
    ALL.iter().copied().find(|r| r.name == name)
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_mcr_regs)]
mod tests {
    use super::*;

    #[test]
    fn handles_agree_with_the_range_table() {
        for r in ALL {
            assert_eq!(super::super::steering_of(r.offset), Some(r.steering));
        }
    }

    #[test]
    fn lookup_by_name() {
        assert_eq!(by_name("SARB_CHICKEN1").map(|r| r.offset), Some(0xe90c));
        assert!(by_name("GU_CNTL").is_none());
    }
}
