// SPDX-License-Identifier: GPL-2.0

//! Which forcewake domain each GT MMIO offset needs, and which registers are shadowed.
//!
//! The table is the seed's "Force Wake and Steering Table" (seed 000, lines 455-704), generated
//! row by row from the seed text with adjacent rows of the same wake target merged; each entry
//! names its seed lines. `make check` regenerates the seed's table mechanically and compares it
//! with this one, so a typo here fails the build. Conventions:
//!
//! - RENDER* rows ("physically located in GTI but logically managed as if part of render",
//!   seed line 704) are RENDER.
//! - Rows with an empty wake target (reserved space) and offsets the table does not list need
//!   no wake: `NONE`. That includes 0x040000-0x1BFFFF, which holds the SGunit, display and
//!   Gunit blocks whose access rules "are defined elsewhere" (seed line 781).
//!
//! Settled conflicts (the seed is the specification; upstream is a cross-check):
//!
//! - 0x014000-0x0147FF: the seed gives VD0/VD2/VD4/VD6 per 512-byte block (lines 552-555);
//!   upstream i915 (`__dg2_fw_ranges`, `intel_uncore.c`) folds 0x13200-0x147FF into VD2 and
//!   calls 0x13400-0x147FF "reserved". The seed wins: it lists real rows there, and its pattern
//!   matches the per-VDBOX split of 0x013000-0x0133FF and 0x1CC000-0x1CFFFF.
//! - 0x020000-0x020FFF: seed VD0 (line 572), i915 RENDER ("reserved"). The seed wins.
//! - The seed omits 0x1D6000-0x1D67FF, 0x1E2000-0x1E27FF, 0x1E6000-0x1E67FF and
//!   0x1F6000-0x1F67FF, the 2 KiB sub-block it does list for VD0, VD1, VD2 and VD6. They take
//!   their VDBOX block's domain (VD3, VD4, VD5, VD7), as i915 does: waking one domain too many
//!   costs an ack, reading a sleeping register returns 0.
//! - 0x025B00-0x025FFF (unlisted, between two reserved rows) needs no wake.

use super::Domain;

/// What an offset needs before it may be accessed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Wake {
    /// Always-on, reserved, or outside the GT table: no forcewake.
    None,
    /// The domain must be awake (held) for the access to reach the register.
    Domain(Domain),
}

/// One table row: `start..=end` needs `wake`.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Range {
    pub(crate) start: u32,
    pub(crate) end: u32,
    pub(crate) wake: Wake,
}

const fn r(start: u32, end: u32, wake: Wake) -> Range {
    Range { start, end, wake }
}

const NONE: Wake = Wake::None;
const AON: Wake = Wake::None;
const GT: Wake = Wake::Domain(Domain::Gt);
const RENDER: Wake = Wake::Domain(Domain::Render);
const VD0: Wake = Wake::Domain(Domain::Vdbox(0));
const VD1: Wake = Wake::Domain(Domain::Vdbox(1));
const VD2: Wake = Wake::Domain(Domain::Vdbox(2));
const VD3: Wake = Wake::Domain(Domain::Vdbox(3));
const VD4: Wake = Wake::Domain(Domain::Vdbox(4));
const VD5: Wake = Wake::Domain(Domain::Vdbox(5));
const VD6: Wake = Wake::Domain(Domain::Vdbox(6));
const VD7: Wake = Wake::Domain(Domain::Vdbox(7));
const VE0: Wake = Wake::Domain(Domain::Vebox(0));
const VE1: Wake = Wake::Domain(Domain::Vebox(1));
const VE2: Wake = Wake::Domain(Domain::Vebox(2));
const VE3: Wake = Wake::Domain(Domain::Vebox(3));

/// Sorted, contiguous from 0 to 0x23FFFF, no overlaps (checked by KUnit).
pub(crate) const RANGES: &[Range] = &[
    r(0x000000, 0x000aff, NONE),   // seed L462
    r(0x000b00, 0x001fff, AON),    // seed L463-L466
    r(0x002000, 0x0026ff, RENDER), // seed L467
    r(0x002700, 0x004aff, GT),     // seed L468-L475
    r(0x004b00, 0x004fff, NONE),   // seed L476
    r(0x005000, 0x0051ff, AON),    // seed L477-L478
    r(0x005200, 0x007fff, RENDER), // seed L479-L484
    r(0x008000, 0x00813f, GT),     // seed L485-L486
    r(0x008140, 0x00815f, RENDER), // seed L487-L488
    r(0x008160, 0x00817f, NONE),   // seed L489
    r(0x008180, 0x0081ff, AON),    // seed L490
    r(0x008200, 0x0082ff, GT),     // seed L491
    r(0x008300, 0x0084ff, RENDER), // seed L492
    r(0x008500, 0x0087ff, GT),     // seed L493-L499
    r(0x008800, 0x008c7f, NONE),   // seed L500-L503
    r(0x008c80, 0x008cff, GT),     // seed L504
    r(0x008d00, 0x008dff, RENDER), // seed L505-L506
    r(0x008e00, 0x008fff, NONE),   // seed L507
    r(0x009000, 0x00947f, GT),     // seed L508-L509
    r(0x009480, 0x0094cf, NONE),   // seed L510
    r(0x0094d0, 0x00955f, RENDER), // seed L511-L512
    r(0x009560, 0x0095ff, AON),    // seed L513
    r(0x009600, 0x00967f, NONE),   // seed L514
    r(0x009680, 0x0096ff, RENDER), // seed L515
    r(0x009700, 0x0097ff, NONE),   // seed L516
    r(0x009800, 0x00b4ff, GT),     // seed L517-L521
    r(0x00b500, 0x00bfff, NONE),   // seed L522
    r(0x00c000, 0x00cfff, GT),     // seed L523-L524
    r(0x00d000, 0x00d7ff, AON),    // seed L525-L526
    r(0x00d800, 0x00d87f, RENDER), // seed L527
    r(0x00d880, 0x00dbff, GT),     // seed L528-L529
    r(0x00dc00, 0x00dcff, RENDER), // seed L530
    r(0x00dd00, 0x00ddff, GT),     // seed L533
    r(0x00de00, 0x00de7f, NONE),   // seed L534
    r(0x00de80, 0x00dfff, RENDER), // seed L535-L536
    r(0x00e000, 0x00e0ff, NONE),   // seed L537
    r(0x00e100, 0x00e8ff, RENDER), // seed L538-L541
    r(0x00e900, 0x00e9ff, GT),     // seed L542
    r(0x00ea00, 0x00efff, NONE),   // seed L543
    r(0x00f000, 0x00ffff, GT),     // seed L544-L545
    r(0x010000, 0x011fff, NONE),   // seed L546
    r(0x012000, 0x0127ff, AON),    // seed L547
    r(0x012800, 0x012fff, NONE),   // seed L548
    r(0x013000, 0x0131ff, VD0),    // seed L549
    r(0x013200, 0x0133ff, VD2),    // seed L550
    r(0x013400, 0x013fff, NONE),   // seed L551
    r(0x014000, 0x0141ff, VD0),    // seed L552
    r(0x014200, 0x0143ff, VD2),    // seed L553
    r(0x014400, 0x0145ff, VD4),    // seed L554
    r(0x014600, 0x0147ff, VD6),    // seed L555
    r(0x014800, 0x014fff, RENDER), // seed L556
    r(0x015000, 0x015fff, GT),     // seed L557-L560
    r(0x016000, 0x016dff, NONE),   // seed L561
    r(0x016e00, 0x01ffff, RENDER), // seed L562-L571
    r(0x020000, 0x020fff, VD0),    // seed L572
    r(0x021000, 0x021fff, NONE),   // seed L573
    r(0x022000, 0x023fff, GT),     // seed L574-L575
    r(0x024000, 0x02407f, AON),    // seed L576
    r(0x024080, 0x02417f, NONE),   // seed L577
    r(0x024180, 0x0241ff, GT),     // seed L578
    r(0x024200, 0x0249ff, NONE),   // seed L579
    r(0x024a00, 0x024a7f, RENDER), // seed L580
    r(0x024a80, 0x0251ff, NONE),   // seed L581
    r(0x025200, 0x0252ff, GT),     // seed L582-L583
    r(0x025300, 0x025aff, NONE),   // seed L584-L589
    r(0x025b00, 0x025fff, NONE),   // not in the seed table
    r(0x026000, 0x027fff, RENDER), // seed L590
    r(0x028000, 0x02ffff, NONE),   // seed L591
    r(0x030000, 0x03ffff, GT),     // seed L592
    r(0x040000, 0x1bffff, NONE),   // not in the seed table
    r(0x1c0000, 0x1c2bff, VD0),    // seed L593-L598
    r(0x1c2c00, 0x1c2cff, NONE),   // seed L599
    r(0x1c2d00, 0x1c3dff, VD0),    // seed L600-L601
    r(0x1c3e00, 0x1c3eff, NONE),   // seed L602
    r(0x1c3f00, 0x1c3fff, VD0),    // seed L603
    r(0x1c4000, 0x1c6bff, VD1),    // seed L604-L611
    r(0x1c6c00, 0x1c6cff, NONE),   // seed L612
    r(0x1c6d00, 0x1c6dff, VD1),    // seed L613
    r(0x1c6e00, 0x1c7fff, NONE),   // seed L614-L615
    r(0x1c8000, 0x1ca0ff, VE0),    // seed L616-L617
    r(0x1ca100, 0x1cbfff, NONE),   // seed L618-L619
    r(0x1cc000, 0x1ccfff, VD0),    // seed L620
    r(0x1cd000, 0x1cdfff, VD2),    // seed L621
    r(0x1ce000, 0x1cefff, VD4),    // seed L622
    r(0x1cf000, 0x1cffff, VD6),    // seed L623
    r(0x1d0000, 0x1d2bff, VD2),    // seed L624-L629
    r(0x1d2c00, 0x1d2cff, NONE),   // seed L630
    r(0x1d2d00, 0x1d2dff, VD2),    // seed L631
    r(0x1d2e00, 0x1d3eff, NONE),   // seed L632-L633
    r(0x1d3f00, 0x1d3fff, VD2),    // seed L634
    r(0x1d4000, 0x1d5fff, VD3),    // seed L635-L637
    r(0x1d6000, 0x1d67ff, VD3),    // not in the seed table; settled: the block's domain
    r(0x1d6800, 0x1d6bff, VD3),    // seed L638-L639
    r(0x1d6c00, 0x1d6cff, NONE),   // seed L640
    r(0x1d6d00, 0x1d6dff, VD3),    // seed L641
    r(0x1d6e00, 0x1d7fff, NONE),   // seed L642-L643
    r(0x1d8000, 0x1da0ff, VE1),    // seed L644-L645
    r(0x1da100, 0x1dffff, NONE),   // seed L650-L652
    r(0x1e0000, 0x1e1fff, VD4),    // seed L653-L655
    r(0x1e2000, 0x1e27ff, VD4),    // not in the seed table; settled: the block's domain
    r(0x1e2800, 0x1e2bff, VD4),    // seed L656-L657
    r(0x1e2c00, 0x1e2cff, NONE),   // seed L658
    r(0x1e2d00, 0x1e2dff, VD4),    // seed L659
    r(0x1e2e00, 0x1e3eff, NONE),   // seed L660
    r(0x1e3f00, 0x1e3fff, VD4),    // seed L661
    r(0x1e4000, 0x1e5fff, VD5),    // seed L662-L664
    r(0x1e6000, 0x1e67ff, VD5),    // not in the seed table; settled: the block's domain
    r(0x1e6800, 0x1e6bff, VD5),    // seed L665-L666
    r(0x1e6c00, 0x1e6cff, NONE),   // seed L667
    r(0x1e6d00, 0x1e6dff, VD5),    // seed L668
    r(0x1e6e00, 0x1e7fff, NONE),   // seed L669-L670
    r(0x1e8000, 0x1ea0ff, VE2),    // seed L671-L672
    r(0x1ea100, 0x1effff, NONE),   // seed L673-L675
    r(0x1f0000, 0x1f2bff, VD6),    // seed L676-L681
    r(0x1f2c00, 0x1f2cff, NONE),   // seed L682
    r(0x1f2d00, 0x1f2dff, VD6),    // seed L683
    r(0x1f2e00, 0x1f3eff, NONE),   // seed L684
    r(0x1f3f00, 0x1f3fff, VD6),    // seed L685
    r(0x1f4000, 0x1f5fff, VD7),    // seed L686-L690
    r(0x1f6000, 0x1f67ff, VD7),    // not in the seed table; settled: the block's domain
    r(0x1f6800, 0x1f6bff, VD7),    // seed L691-L692
    r(0x1f6c00, 0x1f6cff, NONE),   // seed L693
    r(0x1f6d00, 0x1f6dff, VD7),    // seed L694
    r(0x1f6e00, 0x1f7fff, NONE),   // seed L695-L696
    r(0x1f8000, 0x1fa0ff, VE3),    // seed L697-L698
    r(0x1fa100, 0x23ffff, NONE),   // seed L699-L702
];

/// Looks an offset up: O(log n) over [`RANGES`]; offsets past the table need no wake.
pub(crate) fn lookup(offset: u32) -> Wake {
    // `partition_point` finds the first range starting above `offset`; the one before it is the
    // only candidate (the table is contiguous from 0).
    let idx = RANGES.partition_point(|r| r.start <= offset);
    match idx.checked_sub(1).map(|i| &RANGES[i]) {
        Some(range) if offset <= range.end => range.wake,
        _ => Wake::None,
    }
}

/// Shadowed registers: writes reach them without forcewake, reads still need it (seed 000
/// line 756 mentions shadowing but gives no list; this is upstream i915's `dg2_shadowed_regs`,
/// `drivers/gpu/drm/i915/intel_uncore.c`). Inclusive ranges, sorted.
const SHADOWED: &[(u32, u32)] = &[
    (0x002030, 0x002030),
    (0x002510, 0x002550),
    (0x00a008, 0x00a00c),
    (0x00a188, 0x00a188),
    (0x00a278, 0x00a278),
    (0x00a540, 0x00a56c),
    (0x00c4c8, 0x00c4c8),
    (0x00c4e0, 0x00c4e0),
    (0x00c600, 0x00c600),
    (0x00c658, 0x00c658),
    (0x022030, 0x022030),
    (0x022510, 0x022550),
];

/// Media engine bases whose ring tail (+0x30) and execlist submit ports (+0x510..=+0x550) are
/// shadowed (same source), one per VDBOX/VEBOX instance.
const SHADOWED_MEDIA_BASES: [u32; 12] = [
    0x1c0000, 0x1c4000, 0x1c8000, 0x1d0000, 0x1d4000, 0x1d8000, 0x1e0000, 0x1e4000, 0x1e8000,
    0x1f0000, 0x1f4000, 0x1f8000,
];

/// Whether a write to `offset` needs no forcewake.
pub(crate) fn is_shadowed(offset: u32) -> bool {
    let in_list = SHADOWED
        .iter()
        .any(|&(start, end)| (start..=end).contains(&offset));
    let in_media = SHADOWED_MEDIA_BASES.iter().any(|&base| {
        offset
            .checked_sub(base)
            .is_some_and(|rel| rel == 0x30 || (0x510..=0x550).contains(&rel))
    });
    in_list || in_media
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_forcewake_table)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_contiguous_and_complete() {
        assert_eq!(RANGES[0].start, 0);
        for pair in RANGES.windows(2) {
            assert!(pair[0].start <= pair[0].end);
            assert_eq!(pair[0].end + 1, pair[1].start);
        }
        assert_eq!(RANGES[RANGES.len() - 1].end, 0x23ffff);
    }

    #[test]
    fn every_row_edge() {
        // Both ends of every row map to that row, and the offset just past the end maps to the
        // next row (or to no wake past the table).
        for (i, range) in RANGES.iter().enumerate() {
            assert_eq!(lookup(range.start), range.wake);
            assert_eq!(lookup(range.end), range.wake);
            let next = RANGES.get(i + 1).map_or(Wake::None, |n| n.wake);
            assert_eq!(lookup(range.end + 1), next);
        }
    }

    #[test]
    fn seed_rows_spot_checks() {
        assert_eq!(lookup(0x0b00), Wake::None); // L463 AON
        assert_eq!(lookup(0x2000), RENDER); // L467 RENDER*
        assert_eq!(lookup(0xa188), GT); // L517-L521 (the GT request register itself)
        assert_eq!(lookup(0x9118), GT); // L508 fuses
        assert_eq!(lookup(0xe7c8), RENDER); // L538-L541 DSS
        assert_eq!(lookup(0x14400), VD4); // L554, settled against i915
        assert_eq!(lookup(0x20000), VD0); // L572, settled against i915
        assert_eq!(lookup(0x1d6400), VD3); // unlisted hole, settled
        assert_eq!(lookup(0x1f8000), VE3); // L697
        assert_eq!(lookup(0x190010), Wake::None); // Gunit, outside the table
        assert_eq!(lookup(0x3fffff), Wake::None);
    }

    #[test]
    fn shadowed_registers() {
        assert!(is_shadowed(0xa188));
        assert!(is_shadowed(0xa56c));
        assert!(!is_shadowed(0xa570));
        assert!(is_shadowed(0x1d8030));
        assert!(is_shadowed(0x1f4550));
        assert!(!is_shadowed(0x1f4554));
        assert!(!is_shadowed(0x9118));
    }
}
