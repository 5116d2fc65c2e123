// SPDX-License-Identifier: GPL-2.0

//! GT topology from the fuse mirror registers: which DSS, L3 banks, mslices and media engines
//! exist.
//!
//! The GT is four quadrants, each 8 DSS + 2 GSLICEs + 1 MSLICE + 8 L3 banks (seed 000,
//! line 735). The fuse reflections are seed 000 lines 749-754; the media fuse is upstream's
//! (`regs/xe_gt_regs.h`, `xe_hw_engine.c`). All of them are GT-domain registers: they read 0
//! unless GT forcewake is held, which is why topology is read after forcewake exists.

use kernel::{io::register, prelude::*};

use crate::gt::{forcewake::DomainMask, Awake, Gt, GtDomain};

register! {
    /// MEML3 enable per quadrant (seed 000 line 754; upstream MIRROR_FUSE3).
    pub(crate) MIRROR_FUSE3(u32) @ 0x00009118 {
        3:0 meml3_en;
    }

    /// DSS enabled for geometry (seed 000 line 753; upstream XELP_GT_GEOMETRY_DSS_ENABLE).
    pub(crate) XELP_GT_GEOMETRY_DSS_ENABLE(u32) @ 0x0000913c {
        31:0 dss;
    }

    /// Media engines present: VDBOX 7:0, VEBOX 19:16 (a set bit means present from graphics
    /// 12.50 on; upstream `regs/xe_gt_regs.h`, `xe_hw_engine.c`).
    pub(crate) GT_VEBOX_VDBOX_DISABLE(u32) @ 0x00009140 {
        19:16 vebox;
        7:0 vdbox;
    }

    /// DSS enabled for compute (seed 000 line 752; upstream XEHP_GT_COMPUTE_DSS_ENABLE).
    pub(crate) XEHP_GT_COMPUTE_DSS_ENABLE(u32) @ 0x00009144 {
        31:0 dss;
    }
}

/// Fuse-derived topology of one GT.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Topology {
    pub(crate) dss_geometry: u32,
    pub(crate) dss_compute: u32,
    /// MEML3 per quadrant, bits 3:0.
    pub(crate) meml3: u32,
    pub(crate) vdbox: u32,
    pub(crate) vebox: u32,
}

impl Topology {
    /// Reads the fuses, under GT forcewake.
    pub(crate) fn read(gt: &Gt<'_>, awake: &Awake<'_, GtDomain>) -> Self {
        let media: GT_VEBOX_VDBOX_DISABLE = gt.read(awake);
        Self {
            dss_geometry: gt.read::<XELP_GT_GEOMETRY_DSS_ENABLE, _>(awake).dss().get(),
            dss_compute: gt.read::<XEHP_GT_COMPUTE_DSS_ENABLE, _>(awake).dss().get(),
            meml3: gt.read::<MIRROR_FUSE3, _>(awake).meml3_en().get(),
            vdbox: media.vdbox().get(),
            vebox: media.vebox().get(),
        }
    }

    /// DSS enabled for geometry or compute (the seed's `combined_dss_enable`, line 736).
    pub(crate) fn dss(&self) -> u32 {
        self.dss_geometry | self.dss_compute
    }

    /// Quadrant `q` has at least one DSS (the seed's `quadrant_dss_enabled`, line 737).
    pub(crate) fn quadrant_has_dss(&self, q: u32) -> bool {
        q < 4 && (self.dss() >> (8 * q)) & 0xff != 0
    }

    /// Quadrant `q`'s L3 banks, MSLICE and LNCFs exist: they are terminated only when both its
    /// MEML3 is off and all its DSS are off (seed 000, lines 743-746).
    pub(crate) fn quadrant_has_memory(&self, q: u32) -> bool {
        q < 4 && (self.meml3 & (1 << q) != 0 || self.quadrant_has_dss(q))
    }

    /// Bit mask of quadrants with memory-side units (L3 banks, MSLICE, LNCF).
    pub(crate) fn mslice_mask(&self) -> u32 {
        (0..4)
            .filter(|&q| self.quadrant_has_memory(q))
            .fold(0, |m, q| m | (1 << q))
    }

    /// Bit mask of present L3 banks: 8 per quadrant with memory.
    pub(crate) fn l3bank_mask(&self) -> u32 {
        (0..4)
            .filter(|&q| self.quadrant_has_memory(q))
            .fold(0, |m, q| m | (0xff << (8 * q)))
    }

    /// Forcewake domains that exist: GT, RENDER and the fused-in media engines.
    pub(crate) fn domains(&self) -> DomainMask {
        DomainMask::from_media_fuse(self.vdbox, self.vebox)
    }
}

impl kernel::fmt::Display for Topology {
    /// The debugfs `topology` report.
    fn fmt(&self, f: &mut kernel::fmt::Formatter<'_>) -> kernel::fmt::Result {
        f.write_fmt(fmt!("dss_geometry: {:#010x}\n", self.dss_geometry))?;
        f.write_fmt(fmt!("dss_compute: {:#010x}\n", self.dss_compute))?;
        f.write_fmt(fmt!("dss_count: {}\n", self.dss().count_ones()))?;
        f.write_fmt(fmt!("meml3: {:#x}\n", self.meml3))?;
        f.write_fmt(fmt!("mslice_mask: {:#x}\n", self.mslice_mask()))?;
        f.write_fmt(fmt!("l3bank_mask: {:#010x}\n", self.l3bank_mask()))?;
        f.write_fmt(fmt!("vdbox_mask: {:#x}\n", self.vdbox))?;
        f.write_fmt(fmt!("vebox_mask: {:#x}\n", self.vebox))
    }
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_topology)]
mod tests {
    use super::*;

    #[test]
    fn quadrant_termination_needs_both_meml3_and_dss_off() {
        // DSS only in quadrant 1, MEML3 only in quadrant 2.
        let t = Topology {
            dss_geometry: 0x0000ff00,
            meml3: 0b0100,
            ..Default::default()
        };
        assert!(!t.quadrant_has_memory(0)); // neither: terminated
        assert!(t.quadrant_has_memory(1)); // DSS alone keeps it
        assert!(t.quadrant_has_memory(2)); // MEML3 alone keeps it
        assert!(!t.quadrant_has_memory(3));
        assert_eq!(t.mslice_mask(), 0b0110);
        assert_eq!(t.l3bank_mask(), 0x00ffff00);
    }

    #[test]
    fn combined_dss_is_geometry_or_compute() {
        let t = Topology {
            dss_geometry: 0x1,
            dss_compute: 0x100,
            ..Default::default()
        };
        assert_eq!(t.dss(), 0x101);
        assert!(t.quadrant_has_dss(0) && t.quadrant_has_dss(1) && !t.quadrant_has_dss(2));
        assert!(!t.quadrant_has_dss(4));
    }
}
