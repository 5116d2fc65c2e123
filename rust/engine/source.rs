// SPDX-License-Identifier: GPL-2.0

//! Interrupt sources: which engine sits on which bank bit and which enable and mask fields, the
//! identity format, and the enable/mask values for a submission mode and a fuse set.
//!
//! Everything here is plain computation (KUnit-tested below); the registers are written by the
//! parent module.
//!
//! Bank bits are upstream's (`regs/xe_irq_regs.h`: `INTR_RCS0` 0, `INTR_CCS(x)` 4+x,
//! `INTR_BCS(0)` 15, `INTR_GUC` 25 in bank 0; `INTR_VCS(x)` x, `INTR_VECS(x)` 31-x in bank 1).
//! Enable and mask fields are where `xe_irq.c` `xe_irq_enable_hwe` and `guc_enable_irq`
//! (`xe_guc.c`) put them: the first engine of a register pair in 31:16, the second in 15:0.
//! The seed names the classes and instances (seed 000 L2157-2168) and says the enable is per
//! class, the mask per instance (L2211, L2213, L2239).

use crate::{compat::bounded_enum, gt::Topology};
use kernel::num::Bounded;

bounded_enum! {
    /// Engine classes, with the ClassID the identity carries in its 3-bit field (seed 000
    /// L2157-2168); 6 and 7 name no class.
    pub(crate) enum Class: Bounded<u32, 3> {
        Render = 0,
        VideoDecode = 1,
        VideoEnhance = 2,
        Copy = 3,
        Other = 4,
        Compute = 5,
    }
}

/// `GT_MI_USER_INTERRUPT`: `MI_USER_INTERRUPT` executed (`regs/xe_irq_regs.h`).
pub(crate) const USER_INTERRUPT: u16 = 1 << 0;
/// `GT_CS_MASTER_ERROR_INTERRUPT`: command streamer error.
pub(crate) const CS_ERROR: u16 = 1 << 3;
/// `GT_FLUSH_COMPLETE_INTERRUPT`: `MI_FLUSH_DW` notify.
pub(crate) const FLUSH_COMPLETE: u16 = 1 << 4;
/// `GT_CONTEXT_SWITCH_INTERRUPT`: an execlist context switch (CSB entry written).
pub(crate) const CONTEXT_SWITCH: u16 = 1 << 8;
/// `GT_WAIT_SEMAPHORE_INTERRUPT`: a semaphore wait started.
pub(crate) const WAIT_SEMAPHORE: u16 = 1 << 11;
/// `GUC_INTR_GUC2HOST` (`regs/xe_guc_regs.h`): the GuC wrote a G2H message.
pub(crate) const GUC2HOST: u16 = 1 << 15;

/// Who schedules the engines, which decides the vectors the host wants (`xe_irq_enable_hwe`).
/// Chosen once at probe; what submits at a given moment, which a GT reset stops for a while,
/// is submission's `Mechanism`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// The host writes the execlist ports: it needs context switches, CS errors and semaphore
    /// waits besides the user interrupt.
    Execlist,
    /// The GuC schedules and handles context switches and errors itself; the host only needs
    /// completions (user interrupt, flush notify).
    Guc,
}

impl Mode {
    /// The engine vectors this mode enables (`xe_irq_enable_hwe`, `common_mask`).
    pub(crate) const fn engine_vectors(self) -> u16 {
        match self {
            Mode::Execlist => USER_INTERRUPT | CS_ERROR | CONTEXT_SWITCH | WAIT_SEMAPHORE,
            Mode::Guc => USER_INTERRUPT | FLUSH_COMPLETE,
        }
    }

    /// Name for debugfs and the log.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Mode::Execlist => "execlist",
            Mode::Guc => "guc",
        }
    }
}

/// The enable registers this driver programs, in [`EnableReg::ALL`] order.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum EnableReg {
    RenderCopy,
    VcsVecs,
    GucSg,
    Ccs,
}

impl EnableReg {
    pub(crate) const ALL: [EnableReg; 4] = [
        EnableReg::RenderCopy,
        EnableReg::VcsVecs,
        EnableReg::GucSg,
        EnableReg::Ccs,
    ];

    /// The register's element of `GT_INTR_ENABLE` (0x190030 + 4i, `regs/xe_irq_regs.h`:
    /// `RENDER_COPY_INTR_ENABLE` 0x190030 to `CCS_RSVD_INTR_ENABLE` 0x190048). Any context.
    pub(crate) const fn index(self) -> usize {
        match self {
            EnableReg::RenderCopy => 0,
            EnableReg::VcsVecs => 1,
            EnableReg::GucSg => 2,
            EnableReg::Ccs => 6,
        }
    }
}

/// The mask registers of the sources this driver enables, in [`MaskReg::ALL`] order.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum MaskReg {
    Rcs0,
    Bcs,
    Vcs01,
    Vcs23,
    Vcs45,
    Vcs67,
    Vecs01,
    Vecs23,
    GucSg,
    Ccs01,
    Ccs23,
}

impl MaskReg {
    pub(crate) const ALL: [MaskReg; 11] = [
        MaskReg::Rcs0,
        MaskReg::Bcs,
        MaskReg::Vcs01,
        MaskReg::Vcs23,
        MaskReg::Vcs45,
        MaskReg::Vcs67,
        MaskReg::Vecs01,
        MaskReg::Vecs23,
        MaskReg::GucSg,
        MaskReg::Ccs01,
        MaskReg::Ccs23,
    ];

    /// The register's element of `GT_INTR_MASK` (0x190090 + 4i, `regs/xe_irq_regs.h`:
    /// `RCS0_RSVD_INTR_MASK` 0x190090 to `CCS2_CCS3_INTR_MASK` 0x190104). Any context.
    pub(crate) const fn index(self) -> usize {
        match self {
            MaskReg::Rcs0 => 0,
            MaskReg::Bcs => 4,
            MaskReg::Vcs01 => 6,
            MaskReg::Vcs23 => 7,
            MaskReg::Vcs45 => 8,
            MaskReg::Vcs67 => 9,
            MaskReg::Vecs01 => 16,
            MaskReg::Vecs23 => 17,
            MaskReg::GucSg => 22,
            MaskReg::Ccs01 => 28,
            MaskReg::Ccs23 => 29,
        }
    }
}

/// Which 16-bit half of an enable or mask register a source owns (`ENGINE1_MASK` 31:16,
/// `ENGINE0_MASK` 15:0).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Half {
    Hi,
    Lo,
}

impl Half {
    /// `v` placed in this half.
    pub(crate) const fn place(self, v: u16) -> u32 {
        match self {
            Half::Hi => (v as u32) << 16,
            Half::Lo => v as u32,
        }
    }
}

/// One interrupt source of the GT.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Source {
    pub(crate) name: &'static str,
    pub(crate) class: Class,
    pub(crate) instance: u8,
    pub(crate) bank: u8,
    pub(crate) bit: u8,
    pub(crate) enable: (EnableReg, Half),
    pub(crate) mask: (MaskReg, Half),
}

const fn src(
    name: &'static str,
    class: Class,
    instance: u8,
    bank: u8,
    bit: u8,
    enable: (EnableReg, Half),
    mask: (MaskReg, Half),
) -> Source {
    Source {
        name,
        class,
        instance,
        bank,
        bit,
        enable,
        mask,
    }
}

/// Number of sources in [`SOURCES`].
pub(crate) const COUNT: usize = 19;

/// The sources this driver services. KCR (PXP), the GSC and GTPM/WDOAPerf stay disabled and
/// masked: this driver has no use for them, and an identity naming one is an unknown source.
#[rustfmt::skip]
pub(crate) const SOURCES: [Source; COUNT] = {
    use Class::*;
    use EnableReg as E;
    use Half::*;
    use MaskReg as M;
    [
        src("rcs0", Render, 0, 0, 0, (E::RenderCopy, Hi), (M::Rcs0, Hi)),
        src("bcs0", Copy, 0, 0, 15, (E::RenderCopy, Lo), (M::Bcs, Hi)),
        src("ccs0", Compute, 0, 0, 4, (E::Ccs, Hi), (M::Ccs01, Hi)),
        src("ccs1", Compute, 1, 0, 5, (E::Ccs, Hi), (M::Ccs01, Lo)),
        src("ccs2", Compute, 2, 0, 6, (E::Ccs, Hi), (M::Ccs23, Hi)),
        src("ccs3", Compute, 3, 0, 7, (E::Ccs, Hi), (M::Ccs23, Lo)),
        src("guc", Other, 0, 0, 25, (E::GucSg, Hi), (M::GucSg, Hi)),
        src("vcs0", VideoDecode, 0, 1, 0, (E::VcsVecs, Hi), (M::Vcs01, Hi)),
        src("vcs1", VideoDecode, 1, 1, 1, (E::VcsVecs, Hi), (M::Vcs01, Lo)),
        src("vcs2", VideoDecode, 2, 1, 2, (E::VcsVecs, Hi), (M::Vcs23, Hi)),
        src("vcs3", VideoDecode, 3, 1, 3, (E::VcsVecs, Hi), (M::Vcs23, Lo)),
        src("vcs4", VideoDecode, 4, 1, 4, (E::VcsVecs, Hi), (M::Vcs45, Hi)),
        src("vcs5", VideoDecode, 5, 1, 5, (E::VcsVecs, Hi), (M::Vcs45, Lo)),
        src("vcs6", VideoDecode, 6, 1, 6, (E::VcsVecs, Hi), (M::Vcs67, Hi)),
        src("vcs7", VideoDecode, 7, 1, 7, (E::VcsVecs, Hi), (M::Vcs67, Lo)),
        src("vecs0", VideoEnhance, 0, 1, 31, (E::VcsVecs, Lo), (M::Vecs01, Hi)),
        src("vecs1", VideoEnhance, 1, 1, 30, (E::VcsVecs, Lo), (M::Vecs01, Lo)),
        src("vecs2", VideoEnhance, 2, 1, 29, (E::VcsVecs, Lo), (M::Vecs23, Hi)),
        src("vecs3", VideoEnhance, 3, 1, 28, (E::VcsVecs, Lo), (M::Vecs23, Lo)),
    ]
};

/// Index in [`SOURCES`] of the GuC.
pub(crate) const GUC: usize = 6;

/// The index in [`SOURCES`] of (class, instance), if this driver services it.
pub(crate) fn lookup(class: Class, instance: u32) -> Option<usize> {
    SOURCES
        .iter()
        .position(|s| s.class == class && u32::from(s.instance) == instance)
}

/// The index in [`SOURCES`] of the source called `name`.
pub(crate) fn by_name(name: &str) -> Option<usize> {
    SOURCES.iter().position(|s| s.name == name)
}

/// A decoded identity (seed 000 L2173-2182: instance 25:20, class 18:16, data 15:0; the VF ID
/// in 29:27 is 0 for the PF's own interrupts and not used here).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Identity {
    pub(crate) class: Class,
    pub(crate) instance: u32,
    pub(crate) vector: u16,
}

impl Identity {
    /// Decodes a raw `INTR_IDENTITY_REG` value. Any context.
    ///
    /// # Errors
    ///
    /// The raw value back unless DataValid (bit 31) is set and the class field names a class
    /// (not 6 or 7).
    pub(crate) fn decode(raw: u32) -> Result<Self, u32> {
        if raw & (1 << 31) == 0 {
            return Err(raw);
        }
        let class = Bounded::<u32, 3>::try_new((raw >> 16) & 0x7).ok_or(raw)?;
        Ok(Self {
            class: Class::try_from(class).map_err(|_| raw)?,
            instance: (raw >> 20) & 0x3f,
            // CAST: bits 15:0.
            vector: raw as u16,
        })
    }
}

/// The engines the fuses say are present, per class, as instance bit masks.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Present {
    pub(crate) ccs: u8,
    pub(crate) vcs: u8,
    pub(crate) vecs: u8,
}

impl Present {
    /// From the fuse topology: a CCS exists when its quadrant has a DSS (`xe_hw_engine.c`,
    /// `read_compute_fuses_from_dss`, the rule for graphics 12.55); VCS and VECS from the media
    /// fuse (`GT_VEBOX_VDBOX_DISABLE`, set bit = present). RCS0, BCS0 and the GuC always exist
    /// on these parts (`xe_pci.c` `graphics_xehpg`).
    pub(crate) fn from_topology(t: &Topology) -> Self {
        let ccs = (0..4u32)
            .filter(|&q| t.quadrant_has_dss(q))
            .fold(0u8, |m, q| m | (1 << q));
        Self {
            ccs,
            // CAST: the fuse fields are 8 and 4 bits wide.
            vcs: (t.vdbox & 0xff) as u8,
            vecs: (t.vebox & 0xf) as u8,
        }
    }

    /// Whether source `s` exists on this part.
    pub(crate) const fn has(&self, s: &Source) -> bool {
        self.contains(s.class, s.instance)
    }

    /// Whether the engine (or other unit) of `class` and `instance` exists on this part.
    pub(crate) const fn contains(&self, class: Class, instance: u8) -> bool {
        let bit = 1u8 << instance;
        match class {
            Class::Compute => self.ccs & bit != 0,
            Class::VideoDecode => self.vcs & bit != 0,
            Class::VideoEnhance => self.vecs & bit != 0,
            Class::Render | Class::Copy | Class::Other => true,
        }
    }
}

/// The enable and mask register values for one configuration; a register this driver does not
/// program (KCR, GSC, GTPM) stays at its reset value (enable 0, mask all ones).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Plan {
    pub(crate) mode: Mode,
    /// Per [`EnableReg::ALL`].
    pub(crate) enables: [u32; 4],
    /// Per [`MaskReg::ALL`]; a set bit masks.
    pub(crate) masks: [u32; 11],
}

impl Plan {
    /// Everything disabled and masked: the reset state.
    pub(crate) const fn off(mode: Mode) -> Self {
        Self {
            mode,
            enables: [0; 4],
            masks: [u32::MAX; 11],
        }
    }

    /// The vectors each present source gets in `mode`; the GuC's only while it runs (its
    /// GuC-to-host interrupt is what the CT channel waits for, `xe_guc.c` `guc_enable_irq`).
    pub(crate) fn new(mode: Mode, present: Present, guc_running: bool) -> Self {
        let mut plan = Self::off(mode);
        for s in &SOURCES {
            let vectors = if s.class == Class::Other {
                if guc_running {
                    GUC2HOST
                } else {
                    0
                }
            } else {
                mode.engine_vectors()
            };
            if vectors == 0 || !present.has(s) {
                continue;
            }
            plan.enables[enable_index(s.enable.0)] |= s.enable.1.place(vectors);
            plan.masks[mask_index(s.mask.0)] &= !s.mask.1.place(vectors);
        }
        plan
    }

    /// The value of mask register `reg` with the sources in `stormed` (a bit per [`SOURCES`]
    /// index) masked entirely.
    pub(crate) fn mask_with(&self, reg: MaskReg, stormed: u32) -> u32 {
        let mut v = self.masks[mask_index(reg)];
        for (i, s) in SOURCES.iter().enumerate() {
            if stormed & (1 << i) != 0 && s.mask.0 == reg {
                v |= s.mask.1.place(u16::MAX);
            }
        }
        v
    }

    /// The vectors source `i` has enabled and unmasked.
    pub(crate) fn armed_vectors(&self, i: usize) -> u16 {
        let Some(s) = SOURCES.get(i) else { return 0 };
        let shift = |h: Half, v: u32| -> u16 {
            // CAST: one 16-bit half.
            match h {
                Half::Hi => (v >> 16) as u16,
                Half::Lo => v as u16,
            }
        };
        shift(s.enable.1, self.enables[enable_index(s.enable.0)])
            & !shift(s.mask.1, self.masks[mask_index(s.mask.0)])
    }
}

pub(crate) const fn enable_index(r: EnableReg) -> usize {
    r as usize
}

pub(crate) const fn mask_index(r: MaskReg) -> usize {
    r as usize
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_irq_source)]
mod tests {
    use super::*;

    #[test]
    fn identity_fields_follow_the_message_format() {
        // VCS3 (class 1, instance 3), user interrupt, DataValid.
        let raw = (1 << 31) | (3 << 20) | (1 << 16) | 0x0001;
        assert_eq!(
            Identity::decode(raw),
            Ok(Identity {
                class: Class::VideoDecode,
                instance: 3,
                vector: USER_INTERRUPT
            })
        );
        // The largest instance the field holds; the VF ID bits are ignored.
        let raw = (1 << 31) | (0x7 << 27) | (0x3f << 20) | (0x5 << 16) | 0xffff;
        assert_eq!(
            Identity::decode(raw),
            Ok(Identity {
                class: Class::Compute,
                instance: 63,
                vector: 0xffff
            })
        );
        // Without DataValid nothing was presented.
        assert_eq!(Identity::decode(0x0001_8000), Err(0x0001_8000));
        // The GuC is class Other instance 0.
        let guc = Identity::decode((1 << 31) | (4 << 16) | u32::from(GUC2HOST));
        assert_eq!(
            guc.ok().and_then(|i| lookup(i.class, i.instance)),
            Some(GUC)
        );
        // KCR is not serviced
        assert_eq!(lookup(Class::Other, 4), None);
    }

    #[test]
    fn identity_classes_6_and_7_are_errors() {
        for class in [6u32, 7] {
            let raw = (1 << 31) | (class << 16) | 0x0001;
            assert_eq!(Identity::decode(raw), Err(raw));
        }
        for class in 0u32..6 {
            let c = Identity::decode((1 << 31) | (class << 16)).map(|i| u32::from(i.class));
            assert_eq!(c, Ok(class));
        }
    }

    #[test]
    fn source_table_is_consistent() {
        for (i, s) in SOURCES.iter().enumerate() {
            assert_eq!(lookup(s.class, u32::from(s.instance)), Some(i));
            assert_eq!(by_name(s.name), Some(i));
            for t in &SOURCES[i + 1..] {
                // No two sources share a bank bit or a mask field.
                assert!((s.bank, s.bit) != (t.bank, t.bit));
                assert!(s.mask != t.mask);
            }
        }
        assert_eq!(SOURCES[GUC].name, "guc");
    }

    /// ATS-M150 fuses: all four quadrants have DSS, VCS0/VCS2, VECS0/VECS1.
    fn ats_m150() -> Present {
        Present {
            ccs: 0xf,
            vcs: 0b101,
            vecs: 0b11,
        }
    }

    #[test]
    fn guc_mode_plan_matches_upstream_values() {
        let p = Plan::new(Mode::Guc, ats_m150(), true);
        let v = u32::from(USER_INTERRUPT | FLUSH_COMPLETE);
        assert_eq!(p.enables[enable_index(EnableReg::RenderCopy)], v << 16 | v);
        assert_eq!(p.enables[enable_index(EnableReg::VcsVecs)], v << 16 | v);
        assert_eq!(p.enables[enable_index(EnableReg::Ccs)], v << 16);
        assert_eq!(
            p.enables[enable_index(EnableReg::GucSg)],
            u32::from(GUC2HOST) << 16
        );
        assert_eq!(p.masks[mask_index(MaskReg::Rcs0)], !(v << 16));
        assert_eq!(p.masks[mask_index(MaskReg::Bcs)], !(v << 16));
        assert_eq!(p.masks[mask_index(MaskReg::Ccs01)], !(v << 16 | v));
        // VCS0 present, VCS1 fused off: only the high half unmasked.
        assert_eq!(p.masks[mask_index(MaskReg::Vcs01)], !(v << 16));
        assert_eq!(p.masks[mask_index(MaskReg::Vcs23)], !(v << 16));
        assert_eq!(p.masks[mask_index(MaskReg::Vcs45)], u32::MAX);
        assert_eq!(p.masks[mask_index(MaskReg::Vecs01)], !(v << 16 | v));
        assert_eq!(p.masks[mask_index(MaskReg::Vecs23)], u32::MAX);
        assert_eq!(
            p.masks[mask_index(MaskReg::GucSg)],
            !(u32::from(GUC2HOST) << 16)
        );
    }

    #[test]
    fn execlist_plan_adds_switch_error_and_semaphore() {
        let p = Plan::new(Mode::Execlist, ats_m150(), false);
        let v = u32::from(USER_INTERRUPT | CS_ERROR | CONTEXT_SWITCH | WAIT_SEMAPHORE);
        assert_eq!(p.enables[enable_index(EnableReg::RenderCopy)], v << 16 | v);
        // The GuC is not running: its interrupt stays off and masked.
        assert_eq!(p.enables[enable_index(EnableReg::GucSg)], 0);
        assert_eq!(p.masks[mask_index(MaskReg::GucSg)], u32::MAX);
        assert_eq!(p.armed_vectors(0), v as u16);
        assert_eq!(p.armed_vectors(GUC), 0);
    }

    #[test]
    fn fused_off_engines_stay_masked() {
        // One quadrant with DSS, no media engines.
        let present = Present {
            ccs: 0b0100,
            vcs: 0,
            vecs: 0,
        };
        let p = Plan::new(Mode::Guc, present, true);
        assert_eq!(p.masks[mask_index(MaskReg::Ccs01)], u32::MAX);
        let v = u32::from(Mode::Guc.engine_vectors());
        assert_eq!(p.masks[mask_index(MaskReg::Ccs23)], !(v << 16));
        assert_eq!(p.enables[enable_index(EnableReg::VcsVecs)], 0);
        for r in [
            MaskReg::Vcs01,
            MaskReg::Vcs67,
            MaskReg::Vecs01,
            MaskReg::Vecs23,
        ] {
            assert_eq!(p.masks[mask_index(r)], u32::MAX);
        }
        let ccs = by_name("ccs2").unwrap_or(0);
        assert_eq!(p.armed_vectors(ccs), Mode::Guc.engine_vectors());
        assert_eq!(p.armed_vectors(by_name("ccs0").unwrap_or(0)), 0);
    }

    #[test]
    fn present_engines_from_the_fuses() {
        let t = Topology {
            dss_geometry: 0x0000_00ff,
            dss_compute: 0x00ff_0000,
            vdbox: 0b0101,
            vebox: 0b0011,
            ..Default::default()
        };
        assert_eq!(
            Present::from_topology(&t),
            Present {
                ccs: 0b0101,
                vcs: 0b0101,
                vecs: 0b0011
            }
        );
    }

    #[test]
    fn stormed_source_is_masked_whole() {
        let p = Plan::new(Mode::Guc, ats_m150(), true);
        let bcs = by_name("bcs0").unwrap_or(0);
        assert_eq!(p.mask_with(MaskReg::Bcs, 1 << bcs), u32::MAX);
        // Another source's storm leaves this register alone.
        assert_eq!(
            p.mask_with(MaskReg::Bcs, 1 << GUC),
            p.masks[mask_index(MaskReg::Bcs)]
        );
        // Both halves of a pair are independent.
        let ccs1 = by_name("ccs1").unwrap_or(0);
        let v = u32::from(Mode::Guc.engine_vectors());
        assert_eq!(p.mask_with(MaskReg::Ccs01, 1 << ccs1), !(v << 16));
    }
}
