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
//!   `[MODEL]`: the seed ties the SKU to no fuse, so the mock decides it
//!   from the number of enabled DSS: more than 16 is -512, 9..16 is -256,
//!   up to 8 is -128 (32/16/8 DSS, 16 EUs each, for the 512/256/128 EU parts);
//! - GSLICE s: terminated when all 4 of its DSS are off;
//! - DSS: terminated when its dss_g and dss_c bits are both 0;
//! - L3BANK, MSLICE, LNCF: terminated ONLY if BOTH the quadrant's meml3 bit
//!   is 0 AND all DSS of the quadrant are off.
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

/// Fuse values, as the fuse reflection registers read.
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
}

/// The SQIDI population of a part (seed 000 line 740).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sku {
    /// Alchemist-512: SQIDI 0..7.
    Alchemist512,
    /// Alchemist-256: SQIDI 2..5.
    Alchemist256,
    /// Alchemist-128: SQIDI 2..3.
    Alchemist128,
}

impl Sku {
    /// Bit i set = SQIDI instance i present.
    pub const fn sqidi_mask(self) -> u8 {
        match self {
            Sku::Alchemist512 => 0xFF,
            Sku::Alchemist256 => 0x3C,
            Sku::Alchemist128 => 0x0C,
        }
    }
}

impl Fuses {
    /// `--fuses ats-m150`: a full part, 32 DSS, all four quadrants; VDBOX 0
    /// and 2, VEBOX 0 and 1 (i915's DG2 engine mask, `i915_pci.c`
    /// `DG2_FEATURES`).
    pub const ATS_M150: Fuses = Fuses {
        dss_g: 0xFFFF_FFFF,
        dss_c: 0xFFFF_FFFF,
        meml3: 0xF,
        media: 0x0003_0005,
    };

    /// `--fuses g11-partial` (`[MODEL]`): a partly fused part with only
    /// quadrant 1 alive (DSS 8..15, meml3 bit 1), VDBOX 0 and VEBOX 0.
    /// Quadrant 0 is terminated for every group, so DSS (0,0) and L3BANK 0,
    /// the hardware's default steering target, are absent.
    pub const G11_PARTIAL: Fuses = Fuses {
        dss_g: 0x0000_FF00,
        dss_c: 0x0000_FF00,
        meml3: 0x2,
        media: 0x0001_0001,
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

    /// The part, from the number of enabled DSS (`[MODEL]`, module docs).
    pub const fn sku(&self) -> Sku {
        match self.dss().count_ones() {
            17.. => Sku::Alchemist512,
            9..=16 => Sku::Alchemist256,
            _ => Sku::Alchemist128,
        }
    }

    /// Whether instance `i` of `group` is present (not terminated by the
    /// MsgCh). Instance numbering is [`super::mcr::instance`]'s.
    pub const fn present(&self, group: Group, i: usize) -> bool {
        match group {
            Group::Sqidi => i < 8 && self.sku().sqidi_mask() >> i & 1 != 0,
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
        assert_eq!(a.sku(), Sku::Alchemist512);
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
        assert_eq!(g.sku(), Sku::Alchemist128);
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
    fn quadrant_termination_needs_both_meml3_and_dss_off() {
        // meml3 on, no DSS in quadrant 0: alive.
        let meml3_only = Fuses {
            dss_g: 0x0000_FF00,
            dss_c: 0,
            meml3: 0x1,
            media: 0,
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

    #[test]
    fn sku_thresholds() {
        let with = |n: u32| Fuses {
            dss_g: if n == 32 { u32::MAX } else { (1 << n) - 1 },
            dss_c: 0,
            meml3: 0xF,
            media: 0,
        };
        assert_eq!(with(32).sku(), Sku::Alchemist512);
        assert_eq!(with(17).sku(), Sku::Alchemist512);
        assert_eq!(with(16).sku(), Sku::Alchemist256);
        assert_eq!(with(9).sku(), Sku::Alchemist256);
        assert_eq!(with(8).sku(), Sku::Alchemist128);
        assert_eq!(Sku::Alchemist256.sqidi_mask(), 0b0011_1100);
    }

    #[test]
    fn registers() {
        let f = Fuses {
            dss_g: 0x1234_5678,
            dss_c: 0x9ABC_DEF0,
            meml3: 0x1F,
            media: 0x0003_0005,
        };
        assert_eq!(f.read(0x9118), Some(0xF));
        assert_eq!(f.read(0x913C), Some(0x1234_5678));
        assert_eq!(f.read(0x9140), Some(0x0003_0005));
        assert_eq!(f.read(0x9144), Some(0x9ABC_DEF0));
        assert_eq!(f.read(0x9148), None);
    }
}
