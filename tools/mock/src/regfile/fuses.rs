//! Fuses: which DSS, memory/L3 quadrants and media engines the part has, the
//! read-only registers that reflect them, and which instance of each
//! replication group they leave alive.
//!
//! Topology (seed 000 line 735): the GT has four quadrants, each with 8 DSS,
//! 2 GSLICEs, 1 MSLICE and 8 L3 banks; quadrant n holds DSS 8n..8n+7,
//! GSLICE 2n..2n+1, MSLICE n and L3 banks 8n..8n+7. Helpers (lines
//! 736-737): `combined_dss_enable = dss_g | dss_c`, and a quadrant's DSS are
//! enabled if any of its 8 bits is set (the seed writes `&&` with unbalanced
//! parentheses; a bitwise AND is meant).
//!
//! Termination per group (seed 000 lines 740-746):
//!
//! - SQIDI: 8 instances; all on Alchemist-512, 2..5 on -256, 2..3 on -128.
//!   The seed names these three parts and nothing that tells them apart: no
//!   fuse, strap or reflection register (the fuse reflections it lists,
//!   lines 749-754, are DSS and meml3 only), and it does not relate the
//!   part names to DSS counts (upstream i915 ties the SQIDI population to
//!   the die, DG2-G10 or -G11, `intel_workarounds.c` `icl_wa_init_mcr`).
//!   So the part is an input of its own ([`SqidiPart`], option
//!   `--sqidi-part`), and a driver has to work on each of them;
//! - GSLICE s: terminated when all 4 of its DSS are off;
//! - DSS: terminated when its dss_g and dss_c bits are both 0;
//! - L3BANK, MSLICE, LNCF: terminated ONLY if BOTH the quadrant's meml3 bit
//!   is 0 AND all DSS of the quadrant are off.
//!
//! Two more reflections upstream hands to its VFs (`xe_gt_sriov_pf_service.c`
//! `ats_m_runtime_regs`), neither in the seeds:
//!
//! - `XELP_EU_ENABLE` (0x9134): one bit per pair of EUs, the same for every
//!   DSS, an enable mask on graphics 12.50 and later (`xe_gt_topology.c`
//!   `load_eu_mask` inverts it only below 12.50). `[MODEL]` the mock fuses
//!   whole DSSes only, so every EU of an enabled DSS is there: all eight bits
//!   of `XELP_EU_MASK` set, [`XELP_EU_ENABLE_VALUE`], on every preset;
//! - `MIRROR_FUSE1` (0x911C): upstream names no field of it and reads it for
//!   nothing but the VFs. `[MODEL]` 0, [`MIRROR_FUSE1_VALUE`]: no source says
//!   what it reflects, so it reflects nothing.
//!
//! Media engines: `GT_VEBOX_VDBOX_DISABLE` (0x9140, `regs/xe_gt_regs.h`)
//! holds present-engine bits on graphics >= 12.50 (`xe_hw_engine.c`
//! `read_media_fuses`): VDBOX n at bit n, VEBOX n at bit 16 + n. A domain
//! whose engine is absent never acknowledges forcewake.

use super::straps;
use crate::power::Domain;
use crate::recorder::Recorder;
use crate::regs::fuse;
use crate::seed_table::Group;

/// `XELP_EU_ENABLE`: every EU pair of a DSS present (module docs, `[MODEL]`).
pub const XELP_EU_ENABLE_VALUE: u32 = 0xFF;
/// `MIRROR_FUSE1`: nothing reflected (module docs, `[MODEL]`).
pub const MIRROR_FUSE1_VALUE: u32 = 0;

/// Fuse values, as the fuse reflection registers read, and the SQIDI part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fuses {
    /// `fuse_dss_g_enable[31:0]` (`XELP_GT_GEOMETRY_DSS_ENABLE`).
    pub dss_g: u32,
    /// `fuse_dss_c_enable[31:0]` (`XEHP_GT_COMPUTE_DSS_ENABLE`).
    pub dss_c: u32,
    /// `fuse_meml3_en[3:0]` (`MIRROR_FUSE3`); higher bits are ignored.
    pub meml3: u32,
    /// `GT_VEBOX_VDBOX_DISABLE`, raw.
    pub media: u32,
    /// Which of the seed's parts this is, for the SQIDI population; no
    /// register reflects it (module docs).
    pub sqidi: SqidiPart,
}

/// The parts seed 000 line 740 gives a SQIDI population for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SqidiPart {
    /// Alchemist-512: SQIDI 0..7.
    #[value(name = "alchemist-512")]
    Alchemist512,
    /// Alchemist-256: SQIDI 2..5 (0, 1, 6, 7 terminated).
    #[value(name = "alchemist-256")]
    Alchemist256,
    /// Alchemist-128: SQIDI 2..3 (0, 1, 4..7 terminated).
    #[value(name = "alchemist-128")]
    Alchemist128,
}

impl SqidiPart {
    /// Every part, for tests that must hold on each.
    pub const ALL: [SqidiPart; 3] = [
        SqidiPart::Alchemist512,
        SqidiPart::Alchemist256,
        SqidiPart::Alchemist128,
    ];

    /// Bit i set = SQIDI instance i present (seed 000 line 740).
    pub const fn mask(self) -> u8 {
        match self {
            SqidiPart::Alchemist512 => 0xFF,
            SqidiPart::Alchemist256 => 0x3C,
            SqidiPart::Alchemist128 => 0x0C,
        }
    }

    /// The command-line name.
    pub const fn name(self) -> &'static str {
        match self {
            SqidiPart::Alchemist512 => "alchemist-512",
            SqidiPart::Alchemist256 => "alchemist-256",
            SqidiPart::Alchemist128 => "alchemist-128",
        }
    }
}

impl Fuses {
    /// `--fuses ats-m150`: a full part, 32 DSS, all four quadrants; VDBOX 0
    /// and 2, VEBOX 0 and 1 (i915's DG2 engine mask, `i915_pci.c`
    /// `DG2_FEATURES`). ATS-M150 is a DG2-G10 die, on which "all instances
    /// are present" for SQIDI (i915 `intel_workarounds.c`
    /// `icl_wa_init_mcr`): Alchemist-512.
    pub const ATS_M150: Fuses = Fuses {
        dss_g: 0xFFFF_FFFF,
        dss_c: 0xFFFF_FFFF,
        meml3: 0xF,
        media: 0x0003_0005,
        sqidi: SqidiPart::Alchemist512,
    };

    /// `--fuses g11-partial` (`[MODEL]`): a partly fused part with only
    /// quadrant 1 alive (DSS 8..15, meml3 bit 1), VDBOX 0 and VEBOX 0.
    /// Quadrant 0 is terminated for every group, so DSS (0,0) and L3BANK 0,
    /// the hardware's default steering target, are absent. "DG2-G11 only
    /// has SQIDI instances at ID's 2 and 3" (i915 `intel_workarounds.c`
    /// `icl_wa_init_mcr`): Alchemist-128.
    pub const G11_PARTIAL: Fuses = Fuses {
        dss_g: 0x0000_FF00,
        dss_c: 0x0000_FF00,
        meml3: 0x2,
        media: 0x0001_0001,
        sqidi: SqidiPart::Alchemist128,
    };

    /// `combined_dss_enable` (seed 000 line 736).
    pub const fn dss(&self) -> u32 {
        self.dss_g | self.dss_c
    }

    /// `quadrant_dss_enabled[q]` (seed 000 line 737).
    pub const fn quadrant_dss_enabled(&self, q: usize) -> bool {
        q < 4 && (self.dss() >> (8 * q)) & 0xFF != 0
    }

    /// Whether quadrant `q`'s MSLICE, LNCFs and L3 banks answer: its meml3
    /// bit is set or one of its DSS is enabled (seed 000 lines 743-746).
    pub const fn quadrant_alive(&self, q: usize) -> bool {
        q < 4 && (self.meml3 >> q & 1 != 0 || self.quadrant_dss_enabled(q))
    }

    /// Whether instance `i` of `group` is present (not terminated by the
    /// MsgCh). Instance numbering is [`super::mcr::instance`]'s.
    pub const fn present(&self, group: Group, i: usize) -> bool {
        match group {
            Group::Sqidi => i < 8 && self.sqidi.mask() >> i & 1 != 0,
            Group::Gslice => i < 8 && (self.dss() >> (4 * i)) & 0xF != 0,
            Group::Dss => i < 32 && self.dss() >> i & 1 != 0,
            Group::L3bank => i < 32 && self.quadrant_alive(i / 8),
            Group::Mslice => self.quadrant_alive(i),
            Group::Lncf => i < 8 && self.quadrant_alive(i / 2),
        }
    }

    /// Whether `d`'s engine exists (GT and RENDER always do).
    pub fn domain_present(&self, d: Domain) -> bool {
        if let Some(n) = d.vdbox_index() {
            fuse::VDBOX.get(self.media.into()) >> n & 1 != 0
        } else if let Some(n) = d.vebox_index() {
            fuse::VEBOX.get(self.media.into()) >> n & 1 != 0
        } else {
            true
        }
    }

    /// Reads a fuse reflection register; `None` for any other offset.
    pub fn read(&self, offset: u32) -> Option<u32> {
        match offset {
            o if o == fuse::MIRROR_FUSE3.offset => Some(self.meml3 & fuse::MEML3_EN.mask32()),
            o if o == fuse::MIRROR_FUSE1.offset => Some(MIRROR_FUSE1_VALUE),
            o if o == fuse::XELP_EU_ENABLE.offset => Some(XELP_EU_ENABLE_VALUE),
            // [MODEL] A production part (the revisions the mock presents
            // are production steppings); no other FUSE2 bit is modelled.
            o if o == fuse::FUSE2.offset => Some(fuse::PRODUCTION_HW.mask32()),
            o if o == fuse::XELP_GT_GEOMETRY_DSS_ENABLE.offset => Some(self.dss_g),
            o if o == fuse::GT_VEBOX_VDBOX_DISABLE.offset => Some(self.media),
            o if o == fuse::XEHP_GT_COMPUTE_DSS_ENABLE.offset => Some(self.dss_c),
            _ => None,
        }
    }

    /// Writes a fuse register: read-only, recorded as `read_only_write`.
    /// `None` for any other offset.
    pub fn write(&self, offset: u32, value: u32, rec: &mut Recorder) -> Option<()> {
        self.read(offset)?;
        straps::write_ignored(offset, value, rec);
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets() {
        let a = Fuses::ATS_M150;
        assert_eq!(a.sqidi, SqidiPart::Alchemist512);
        for q in 0..4 {
            assert!(a.quadrant_alive(q));
        }
        let present = |f: &Fuses, g, n| (0..n).filter(|&i| f.present(g, i)).count();
        assert_eq!(present(&a, Group::Dss, 32), 32);
        assert_eq!(present(&a, Group::Sqidi, 8), 8);
        let domains: Vec<_> = Domain::all()
            .filter(|d| a.domain_present(*d))
            .map(Domain::name)
            .collect();
        assert_eq!(
            domains,
            ["gt", "render", "vdbox0", "vdbox2", "vebox0", "vebox1"]
        );

        let g = Fuses::G11_PARTIAL;
        assert_eq!(g.sqidi, SqidiPart::Alchemist128);
        assert_eq!(
            (0..4).map(|q| g.quadrant_alive(q)).collect::<Vec<_>>(),
            [false, true, false, false]
        );
        assert_eq!(
            (0..32)
                .filter(|&i| g.present(Group::Dss, i))
                .collect::<Vec<_>>(),
            (8..16).collect::<Vec<_>>()
        );
        assert_eq!(
            (0..8)
                .filter(|&i| g.present(Group::Gslice, i))
                .collect::<Vec<_>>(),
            [2, 3]
        );
        assert_eq!(
            (0..8)
                .filter(|&i| g.present(Group::Lncf, i))
                .collect::<Vec<_>>(),
            [2, 3]
        );
        assert_eq!(
            (0..4)
                .filter(|&i| g.present(Group::Mslice, i))
                .collect::<Vec<_>>(),
            [1]
        );
        assert_eq!(
            (0..8)
                .filter(|&i| g.present(Group::Sqidi, i))
                .collect::<Vec<_>>(),
            [2, 3]
        );
        let domains: Vec<_> = Domain::all()
            .filter(|d| g.domain_present(*d))
            .map(Domain::name)
            .collect();
        assert_eq!(domains, ["gt", "render", "vdbox0", "vebox0"]);
    }

    /// L3BANK/MSLICE/LNCF termination needs BOTH halves of the AND.
    #[test]
    fn fuse2_says_production_and_is_read_only() {
        let f = Fuses::ATS_M150;
        assert_eq!(f.read(fuse::FUSE2.offset), Some(1 << 2), "PRODUCTION_HW");
        let (_, mut rec, _) = crate::regfile::tests::setup(crate::regfile::tests::params());
        assert_eq!(f.write(fuse::FUSE2.offset, 0, &mut rec), Some(()));
        assert_eq!(f.read(fuse::FUSE2.offset), Some(1 << 2));
        assert_eq!(rec.summary(false).violation_kinds["read_only_write"], 1);
    }

    #[test]
    fn quadrant_termination_needs_both_meml3_and_dss_off() {
        // meml3 on, no DSS in quadrant 0: alive.
        let meml3_only = Fuses {
            dss_g: 0x0000_FF00,
            dss_c: 0,
            meml3: 0x1,
            media: 0,
            sqidi: SqidiPart::Alchemist128,
        };
        assert!(meml3_only.present(Group::L3bank, 0));
        assert!(meml3_only.present(Group::Mslice, 0));
        assert!(meml3_only.present(Group::Lncf, 1));
        assert!(!meml3_only.present(Group::Dss, 0));
        // meml3 off, one compute-only DSS in quadrant 0: alive.
        let dss_only = Fuses {
            dss_g: 0,
            dss_c: 0x80,
            meml3: 0x2,
            media: 0,
            sqidi: SqidiPart::Alchemist128,
        };
        assert!(dss_only.present(Group::L3bank, 7));
        assert!(dss_only.present(Group::Mslice, 0));
        assert!(dss_only.present(Group::Dss, 7));
        assert!(!dss_only.present(Group::Dss, 0));
        // Both off: terminated.
        let neither = Fuses::G11_PARTIAL;
        assert!(!neither.present(Group::L3bank, 0));
        assert!(!neither.present(Group::Mslice, 0));
        assert!(!neither.present(Group::Lncf, 0));
        assert!(neither.present(Group::L3bank, 8));
    }

    /// The SQIDI population is the part's, whatever the DSS fuses say: a
    /// fully enabled DSS mask does not make a part Alchemist-512, and a
    /// single quadrant does not make it Alchemist-128.
    #[test]
    fn sqidi_follows_the_part_not_the_dss_fuses() {
        let sqidi = |f: &Fuses| {
            (0..8)
                .filter(|&i| f.present(Group::Sqidi, i))
                .collect::<Vec<_>>()
        };
        let want = [
            (SqidiPart::Alchemist512, vec![0, 1, 2, 3, 4, 5, 6, 7]),
            (SqidiPart::Alchemist256, vec![2, 3, 4, 5]),
            (SqidiPart::Alchemist128, vec![2, 3]),
        ];
        for (part, present) in want {
            for base in [Fuses::ATS_M150, Fuses::G11_PARTIAL] {
                let f = Fuses {
                    sqidi: part,
                    ..base
                };
                assert_eq!(sqidi(&f), present, "{part:?} on {base:?}");
            }
        }
        // Instances 2 and 3 are the ones every part has.
        let common = SqidiPart::ALL.iter().fold(0xFF, |m, p| m & p.mask());
        assert_eq!(common, 0b0000_1100);
        assert!(!Fuses::ATS_M150.present(Group::Sqidi, 8));
    }

    #[test]
    fn registers() {
        let f = Fuses {
            dss_g: 0x1234_5678,
            dss_c: 0x9ABC_DEF0,
            meml3: 0x1F,
            media: 0x0003_0005,
            sqidi: SqidiPart::Alchemist512,
        };
        assert_eq!(f.read(0x9118), Some(0xF));
        assert_eq!(f.read(0x913C), Some(0x1234_5678));
        assert_eq!(f.read(0x9140), Some(0x0003_0005));
        assert_eq!(f.read(0x9144), Some(0x9ABC_DEF0));
        assert_eq!(f.read(0x9148), None);
    }

    /// The two reflections only the VFs' runtime list needs: all EUs of a
    /// DSS (an enable mask on 12.55, one bit per pair) and an empty
    /// `MIRROR_FUSE1`, on every preset; read-only.
    #[test]
    fn eu_enable_and_mirror_fuse1() {
        for f in [Fuses::ATS_M150, Fuses::G11_PARTIAL] {
            assert_eq!(f.read(0x9134), Some(0xFF));
            assert_eq!(f.read(fuse::XELP_EU_ENABLE.offset), Some(fuse::EU.mask32()));
            assert_eq!(f.read(0x911C), Some(0));
        }
        let (mut rf, mut rec, clock) =
            crate::regfile::tests::setup(crate::regfile::tests::params());
        crate::regfile::tests::awake(&mut rf, &mut rec, &clock, &[crate::power::Domain::GT]);
        assert_eq!(rf.read(0x9134, &mut rec), Some(0xFF));
        assert_eq!(rf.read(0x911C, &mut rec), Some(0));
        rf.write(0x9134, 0, &mut rec);
        rf.write(0x911C, 1, &mut rec);
        assert_eq!(rf.read(0x9134, &mut rec), Some(0xFF));
        assert_eq!(rf.read(0x911C, &mut rec), Some(0));
        assert_eq!(rec.summary(false).violation_kinds["read_only_write"], 2);
    }
}
