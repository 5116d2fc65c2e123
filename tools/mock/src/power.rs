//! Power domains: which forcewake domain a register needs, and which
//! registers accept writes without it.
//!
//! The lookup is built from the checked-in `data/fw-steering.tsv`, which
//! `xehpg-seed-table` extracts from the PRM's "Force Wake and Steering
//! Table" (seed 000 lines 459-704; [`crate::seed_table`]); no range is typed
//! in here. Wake targets map to domains as follows:
//!
//! - `AON`: none ("Registers sit outside of the C6 boundary. No ForceWake
//!   required", seed 000 line 761);
//! - `GT`, `RENDER`, `VDn`, `VEn`: that domain;
//! - `RENDER*`: RENDER ("host SW should use Render wake before access", seed
//!   000 line 704);
//! - a reserved (blank) row, the unlisted holes (0x025B00-0x025FFF,
//!   0x040000-0x1BFFFF, 0x1D6000-0x1D67FF, 0x1E2000-0x1E27FF,
//!   0x1E6000-0x1E67FF, 0x1F6000-0x1F67FF) and anything from 0x240000 up:
//!   none. `[MODEL]`: the seed gives no rule for them (line 781: access
//!   rules for registers outside the table "are defined elsewhere"), and the
//!   mock models no register there that needs one; the Gunit/SGunit/PCODE
//!   registers of the 0x100000 block are always on.
//!
//! Shadowed registers ([`is_shadowed`]) take writes while their domain
//! sleeps: "Force-wake is not required for shadow register accesses coming
//! through MGSR" (seed 000 line 756). The seed does not list them; the list
//! is i915's `dg2_shadowed_regs` (`drivers/gpu/drm/i915/intel_uncore.c`).
//! Reads of a shadowed register still need the domain.

use std::sync::OnceLock;

use crate::regs;
use crate::seed_table;
use crate::seed_table::Group;
use crate::seed_table::Row;
use crate::seed_table::Wake;

/// A forcewake domain: GT, RENDER, VDBOX0-7 or VEBOX0-3 (the driver
/// forcewake table, seed 000 lines 760-777).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Domain(u8);

/// Names of the domains by index, as the trace, the summary and the CLI
/// write them.
const NAMES: [&str; Domain::COUNT] = [
    "gt", "render", "vdbox0", "vdbox1", "vdbox2", "vdbox3", "vdbox4", "vdbox5", "vdbox6", "vdbox7",
    "vebox0", "vebox1", "vebox2", "vebox3",
];

impl Domain {
    /// Number of domains.
    pub const COUNT: usize = 14;
    /// GT (request 0xA188, ack 0x130044; seed 000 line 762).
    pub const GT: Domain = Domain(0);
    /// RENDER (request 0xA278, ack 0x0D84; seed 000 line 763).
    pub const RENDER: Domain = Domain(1);
    /// First VDBOX index.
    const VDBOX0: u8 = 2;
    /// First VEBOX index.
    const VEBOX0: u8 = 10;

    /// VDBOX `n` (0..=7; seed 000 lines 764-773).
    pub const fn vdbox(n: u8) -> Option<Domain> {
        if n < 8 {
            Some(Domain(Self::VDBOX0 + n))
        } else {
            None
        }
    }

    /// VEBOX `n` (0..=3; seed 000 lines 774-777).
    pub const fn vebox(n: u8) -> Option<Domain> {
        if n < 4 {
            Some(Domain(Self::VEBOX0 + n))
        } else {
            None
        }
    }

    /// Every domain, in index order.
    pub fn all() -> impl Iterator<Item = Domain> {
        // CAST: COUNT is 14.
        (0..Self::COUNT as u8).map(Domain)
    }

    /// Index 0..COUNT: GT, RENDER, VDBOX0-7, VEBOX0-3.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// Lower-case name: `gt`, `render`, `vdbox0`, ..., `vebox3`.
    pub const fn name(self) -> &'static str {
        NAMES[self.index()]
    }

    /// The domain called `name` (as [`Domain::name`] writes it).
    pub fn from_name(name: &str) -> Option<Domain> {
        Domain::all().find(|d| d.name() == name)
    }

    /// `Some(n)` for VDBOX n.
    pub const fn vdbox_index(self) -> Option<u8> {
        if self.0 >= Self::VDBOX0 && self.0 < Self::VEBOX0 {
            Some(self.0 - Self::VDBOX0)
        } else {
            None
        }
    }

    /// `Some(n)` for VEBOX n.
    pub const fn vebox_index(self) -> Option<u8> {
        if self.0 >= Self::VEBOX0 {
            Some(self.0 - Self::VEBOX0)
        } else {
            None
        }
    }

    /// The driver's request register (`FORCEWAKE_*`).
    pub const fn request(self) -> &'static regs::RegDef {
        &regs::forcewake::REQUEST[self.index()]
    }

    /// The driver's acknowledge register (`FORCEWAKE_ACK_*`).
    pub const fn ack(self) -> &'static regs::RegDef {
        &regs::forcewake::ACK[self.index()]
    }

    /// The domain whose request register is at `offset`.
    pub fn from_request_offset(offset: u32) -> Option<Domain> {
        Domain::all().find(|d| d.request().offset == offset)
    }

    /// The domain whose acknowledge register is at `offset`.
    pub fn from_ack_offset(offset: u32) -> Option<Domain> {
        Domain::all().find(|d| d.ack().offset == offset)
    }

    /// The domain of a wake target (`None` for AON).
    pub fn of_wake(w: Wake) -> Option<Domain> {
        match w {
            Wake::Aon => None,
            Wake::Gt => Some(Domain::GT),
            Wake::Render | Wake::RenderStar => Some(Domain::RENDER),
            Wake::Vd(n) => Domain::vdbox(n),
            Wake::Ve(n) => Domain::vebox(n),
        }
    }
}

/// The checked-in table (`xehpg-seed-table` output).
const TSV: &str = include_str!("../data/fw-steering.tsv");

/// The table rows, parsed once.
///
/// # Errors
///
/// The checked-in TSV does not validate (a unit test guards against it).
pub fn table() -> Result<&'static [Row], &'static seed_table::Error> {
    static TABLE: OnceLock<Result<Vec<Row>, seed_table::Error>> = OnceLock::new();
    TABLE
        .get_or_init(|| seed_table::parse_tsv(TSV))
        .as_ref()
        .map(Vec::as_slice)
}

/// Lookups over the table rows.
#[derive(Debug, Clone, Copy)]
pub struct Map {
    rows: &'static [Row],
}

impl Map {
    /// The map over the checked-in table.
    ///
    /// # Errors
    ///
    /// See [`table`].
    pub fn builtin() -> Result<Map, &'static seed_table::Error> {
        table().map(|rows| Map { rows })
    }

    /// The row whose range contains `offset`, if any (not for holes).
    pub fn row(&self, offset: u32) -> Option<&'static Row> {
        let rows = self.rows;
        let i = rows.partition_point(|r| r.end < offset);
        rows.get(i).filter(|r| r.contains(offset))
    }

    /// The domain an access to `offset` needs, if any.
    pub fn domain(&self, offset: u32) -> Option<Domain> {
        self.row(offset)
            .and_then(|r| r.wake)
            .and_then(Domain::of_wake)
    }

    /// The replication group of `offset`, if it is in a replicated range.
    pub fn group(&self, offset: u32) -> Option<Group> {
        self.row(offset).and_then(|r| r.group)
    }
}

/// Shadowed single registers and ranges, inclusive (i915
/// `dg2_shadowed_regs`, `drivers/gpu/drm/i915/intel_uncore.c`).
const SHADOWED: [(u32, u32); 12] = [
    (0x2030, 0x2030), // RCS ring tail
    (0x2510, 0x2550), // RCS execlist submit port
    (0xA008, 0xA00C),
    (0xA188, 0xA188), // FORCEWAKE_GT
    (0xA278, 0xA278), // FORCEWAKE_RENDER
    (0xA540, 0xA56C), // FORCEWAKE_MEDIA_VDBOX0-7, VEBOX0-3
    (0xC4C8, 0xC4C8),
    (0xC4E0, 0xC4E0),
    (0xC600, 0xC600),
    (0xC658, 0xC658),
    (0x22030, 0x22030), // BCS ring tail
    (0x22510, 0x22550), // BCS execlist submit port
];

/// Media engine bases with a shadowed ring tail (base + 0x030) and submit
/// port (base + 0x510..=0x550) (i915 `dg2_shadowed_regs`).
const SHADOWED_MEDIA_BASES: [u32; 12] = [
    0x1C_0000, 0x1C_4000, 0x1C_8000, 0x1D_0000, 0x1D_4000, 0x1D_8000, 0x1E_0000, 0x1E_4000,
    0x1E_8000, 0x1F_0000, 0x1F_4000, 0x1F_8000,
];

/// Whether a write to `offset` needs no forcewake (a shadowed register).
pub fn is_shadowed(offset: u32) -> bool {
    let listed = SHADOWED.iter().any(|&(s, e)| (s..=e).contains(&offset));
    let media = SHADOWED_MEDIA_BASES
        .iter()
        .any(|&b| offset == b + 0x030 || (b + 0x510..=b + 0x550).contains(&offset));
    listed || media
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map() -> Map {
        Map::builtin().expect("the checked-in table parses")
    }

    #[test]
    fn domain_names_offsets_and_indices() {
        let names: Vec<_> = Domain::all().map(Domain::name).collect();
        assert_eq!(names, NAMES);
        for d in Domain::all() {
            assert_eq!(Domain::from_name(d.name()), Some(d));
            assert_eq!(Domain::from_request_offset(d.request().offset), Some(d));
            assert_eq!(Domain::from_ack_offset(d.ack().offset), Some(d));
        }
        assert_eq!(Domain::vdbox(8), None);
        assert_eq!(Domain::vebox(4), None);
        assert_eq!(Domain::vdbox(3).and_then(Domain::vdbox_index), Some(3));
        assert_eq!(Domain::vebox(2).and_then(Domain::vebox_index), Some(2));
        assert_eq!(Domain::GT.vdbox_index(), None);
        assert_eq!(Domain::RENDER.vebox_index(), None);
        // Seed 000 lines 762-777.
        assert_eq!(
            (Domain::GT.request().offset, Domain::GT.ack().offset),
            (0xA188, 0x13_0044)
        );
        assert_eq!(
            (Domain::RENDER.request().offset, Domain::RENDER.ack().offset),
            (0xA278, 0x0D84)
        );
        for n in 0..8u8 {
            let d = Domain::vdbox(n).expect("vdbox");
            let four = 4 * u32::from(n);
            assert_eq!(d.request().offset, 0xA540 + four);
            assert_eq!(d.ack().offset, 0x0D50 + four);
        }
        for n in 0..4u8 {
            let d = Domain::vebox(n).expect("vebox");
            let four = 4 * u32::from(n);
            assert_eq!(d.request().offset, 0xA560 + four);
            assert_eq!(d.ack().offset, 0x0D70 + four);
        }
    }

    /// Row edges: the last byte of one row and the first of the next.
    #[test]
    fn domain_lookup_at_row_edges() {
        let m = map();
        let vd = |n| Domain::vdbox(n);
        let ve = |n| Domain::vebox(n);
        let cases: &[(u32, Option<Domain>)] = &[
            (0x00_0000, None),                 // reserved, L462
            (0x00_0AFF, None),                 // reserved
            (0x00_0B00, None),                 // AON, L463
            (0x00_1FFF, None),                 // AON, L466
            (0x00_2000, Some(Domain::RENDER)), // RENDER*, L467
            (0x00_26FF, Some(Domain::RENDER)),
            (0x00_2700, Some(Domain::GT)),     // GT, L468
            (0x00_4AFF, Some(Domain::GT)),     // MSLICE GT, L475
            (0x00_4B00, None),                 // reserved, L476
            (0x00_5200, Some(Domain::RENDER)), // GSLICE, L479
            (0x00_A188, Some(Domain::GT)),     // FORCEWAKE_GT, L518
            (0x00_D7FF, None),                 // AON, L526
            (0x00_D800, Some(Domain::RENDER)), // GSLICE, L527
            (0x00_D880, Some(Domain::GT)),     // LNCF, L528
            (0x01_2FFF, None),                 // reserved
            (0x01_3000, vd(0)),                // VD0, L549
            (0x01_3200, vd(2)),                // VD2, L550
            (0x01_4600, vd(6)),                // VD6, L555
            (0x01_4800, Some(Domain::RENDER)), // RENDER*, L556
            (0x02_0000, vd(0)),                // VD0, L572
            (0x02_5AFF, None),                 // reserved, last before a hole
            (0x02_5B00, None),                 // hole
            (0x02_6000, Some(Domain::RENDER)), // RENDER*, L590
            (0x03_FFFF, Some(Domain::GT)),     // GT, L592
            (0x04_0000, None),                 // hole 0x040000-0x1BFFFF
            (0x1B_FFFF, None),
            (0x1C_0000, vd(0)), // L593
            (0x1C_8000, ve(0)), // L616
            (0x1D_5FFF, vd(3)), // L637
            (0x1D_6000, None),  // hole
            (0x1D_6800, vd(3)), // L638
            (0x1F_A0FF, ve(3)), // L698
            (0x1F_A100, None),  // reserved
            (0x23_FFFF, None),  // reserved, L702
            (0x24_0000, None),  // past the table
            (0x10_1010, None),  // GU_CNTL: always on
            (0x13_0044, None),  // FORCEWAKE_ACK_GT
        ];
        for &(off, want) in cases {
            assert_eq!(m.domain(off), want, "{off:#x}");
        }
    }

    #[test]
    fn group_lookup() {
        let m = map();
        assert_eq!(m.group(0x0B00), Some(Group::Sqidi));
        assert_eq!(m.group(0x0C00), None);
        assert_eq!(m.group(0x8150), Some(Group::Dss));
        assert_eq!(m.group(0x814F), Some(Group::Gslice));
        assert_eq!(m.group(0x8C80), Some(Group::L3bank));
        assert_eq!(m.group(0xB0FF), Some(Group::Lncf));
        assert_eq!(m.group(0xFFFF), Some(Group::Mslice));
        assert_eq!(m.group(0x1_0000), None);
        assert_eq!(m.group(0x24_0000), None);
    }

    #[test]
    fn shadowed_registers() {
        for off in [
            0x2030, 0x2510, 0x2550, 0xA008, 0xA00C, 0xA188, 0xA278, 0xA540, 0xA56C, 0xC4C8, 0xC4E0,
            0xC600, 0xC658, 0x22030, 0x22510, 0x22550, 0x1C_0030, 0x1C_0510, 0x1F_8550, 0x1D_4030,
        ] {
            assert!(is_shadowed(off), "{off:#x}");
        }
        for off in [
            0x2034, 0x2554, 0xA010, 0xA18C, 0xA570, 0x9118, 0x1C_0034, 0x1C_0554, 0x1C_C030,
        ] {
            assert!(!is_shadowed(off), "{off:#x}");
        }
        // Every forcewake request register is shadowed.
        for d in Domain::all() {
            assert!(is_shadowed(d.request().offset), "{}", d.name());
        }
    }

    /// The interrupt and GT error registers need no forcewake: 0x190000 and
    /// the PCU/GU_MISC groups at 0x444E0 are in the table's
    /// 0x040000-0x1BFFFF hole, 0x100160-0x10017C in the always-on 0x100000
    /// block (module docs), and none is shadowed.
    #[test]
    fn interrupt_registers_need_no_wake() {
        let m = map();
        let intc = crate::regs::REGISTERS.iter().filter(|r| {
            (0x19_0008..=0x19_0104).contains(&r.offset)
                || (0x10_0160..=0x10_017C).contains(&r.offset)
                || (0x4_44E4..=0x4_44FC).contains(&r.offset)
        });
        let mut n = 0;
        for r in intc {
            assert_eq!(m.domain(r.offset), None, "{}", r.name);
            assert!(!is_shadowed(r.offset), "{}", r.name);
            n += 1;
        }
        assert_eq!(n, 42, "every interrupt register is in the map");
    }
}
