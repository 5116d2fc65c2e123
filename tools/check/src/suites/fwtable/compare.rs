//! The judgements of the suite, on tables already read.

use super::notes::{Settled, UpstreamDiff};
use super::wake::{cuts, find, gaps, merge_runs, order_problems, range_text, segments, Span, Wake};
use xehpg_gen::targets::Steering;
use xehpg_mock::seed_table::Group;

/// Last offset of the GT MMIO map the seed's table covers (seed 000 line 702).
pub const TABLE_END: u32 = 0x23_FFFF;

/// Where the driver's table is not a lookup table over `0..=TABLE_END`:
/// disorder, overlaps, gaps, rows past the end. Empty when it is.
pub fn driver_shape(driver: &[Span<Wake>]) -> Vec<String> {
    let mut out = order_problems(driver);
    for (s, e) in gaps(driver, 0, TABLE_END) {
        out.push(format!("{} is in no row", range_text(s, e)));
    }
    for s in driver.iter().filter(|s| s.end > TABLE_END) {
        out.push(format!(
            "line {}: {} runs past {TABLE_END:#08X}",
            s.line,
            range_text(s.start, s.end)
        ));
    }
    out
}

/// The driver's wake over `start..=end` as runs, `None` where no row covers it.
fn driver_runs(driver: &[Span<Wake>], start: u32, end: u32) -> Vec<(u32, u32, Option<Wake>)> {
    let runs: Vec<_> = segments(cuts(driver), start, end)
        .into_iter()
        .map(|(s, e)| (s, e, find(driver, s).map(|x| x.value)))
        .collect();
    merge_runs(&runs)
}

fn wake_text(w: Option<Wake>) -> String {
    w.map_or_else(|| "no row".to_string(), |w| w.to_string())
}

/// The driver against every seed row.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct SeedCheck {
    /// One line per seed row the driver maps differently, unsettled.
    pub mismatches: Vec<String>,
    /// Seed rows whose difference a settled entry excuses.
    pub settled_rows: usize,
    /// One verdict per settled entry: its name and the problems (empty: still differs).
    pub settled: Vec<(String, Vec<String>)>,
    /// One line per unlisted hole of the seed, with what the driver does there.
    pub holes: Vec<String>,
}

/// Compares the driver with `seed` (one span per seed row, line = seed line).
pub fn seed_vs_driver(
    seed: &[Span<Wake>],
    driver: &[Span<Wake>],
    settled: &[Span<Settled>],
) -> SeedCheck {
    let mut out = SeedCheck::default();
    for row in seed {
        let mut wrong = Vec::new();
        let mut excused = false;
        for (s, e, w) in driver_runs(driver, row.start, row.end) {
            if w == Some(row.value) {
                continue;
            }
            let covered = settled
                .iter()
                .any(|x| x.start <= s && e <= x.end && Some(x.value.driver) == w);
            if covered {
                excused = true;
            } else {
                wrong.push(format!("{} on {}", wake_text(w), range_text(s, e)));
            }
        }
        if !wrong.is_empty() {
            out.mismatches.push(format!(
                "seed L{} {} {}: driver {}",
                row.line,
                range_text(row.start, row.end),
                row.value,
                wrong.join(", ")
            ));
        } else if excused {
            out.settled_rows += 1;
        }
    }
    for x in settled {
        let name = format!(
            "settled: {} {} still differs from the seed as documented",
            range_text(x.start, x.end),
            x.value.driver
        );
        out.settled.push((name, settled_problems(seed, driver, x)));
    }
    for (s, e) in gaps(seed, 0, TABLE_END) {
        let fill: Vec<String> = driver_runs(driver, s, e)
            .into_iter()
            .map(|(rs, re, w)| {
                if (rs, re) == (s, e) {
                    wake_text(w)
                } else {
                    format!("{} on {}", wake_text(w), range_text(rs, re))
                }
            })
            .collect();
        out.holes.push(format!(
            "{} is not a seed row; the driver maps it to {}",
            range_text(s, e),
            fill.join(", ")
        ));
    }
    out
}

/// Why a settled entry no longer describes a real difference.
fn settled_problems(seed: &[Span<Wake>], driver: &[Span<Wake>], x: &Span<Settled>) -> Vec<String> {
    let mut out = Vec::new();
    let want = x.value.driver;
    for (s, e) in segments(cuts(driver).chain(cuts(seed)), x.start, x.end) {
        let d = find(driver, s).map(|r| r.value);
        let here = range_text(s, e);
        if d != Some(want) {
            out.push(format!(
                "the driver maps {here} to {}, not {want}",
                wake_text(d)
            ));
        }
        match find(seed, s) {
            None => out.push(format!("{here} is not a seed row")),
            Some(row) if row.value == want => out.push(format!(
                "seed L{} says {want} too on {here}: the difference vanished",
                row.line
            )),
            Some(_) => {}
        }
    }
    out
}

/// The driver against i915's `__dg2_fw_ranges`.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct UpstreamCheck {
    /// Every range where they differ: (start, end, driver, i915).
    pub differing: Vec<(u32, u32, (Wake, Wake))>,
    /// Differences no entry explains.
    pub unexplained: Vec<String>,
    /// Entries that no longer match what the tables say.
    pub stale: Vec<String>,
}

/// Compares over `0..=TABLE_END`; an offset in no row needs no wake (in the
/// driver, past its table; in i915, past 0x1FA0FF).
pub fn driver_vs_i915(
    driver: &[Span<Wake>],
    i915: &[Span<Wake>],
    explained: &[Span<UpstreamDiff>],
) -> UpstreamCheck {
    let mut differing = Vec::new();
    let mut unexplained = Vec::new();
    let mut stale = Vec::new();
    let all_cuts = cuts(driver).chain(cuts(i915)).chain(cuts(explained));
    for (s, e) in segments(all_cuts, 0, TABLE_END) {
        let d = find(driver, s).map_or(Wake::None, |r| r.value);
        let i = find(i915, s).map_or(Wake::None, |r| r.value);
        let entry = find(explained, s);
        if d != i {
            differing.push((s, e, (d, i)));
            if entry.is_none_or(|x| (x.value.driver, x.value.i915) != (d, i)) {
                unexplained.push((s, e, (d, i)));
            }
        }
        if let Some(x) = entry {
            if (x.value.driver, x.value.i915) != (d, i) {
                stale.push((s, e, (x.line, d, i)));
            }
        }
    }
    UpstreamCheck {
        differing: merge_runs(&differing),
        unexplained: merge_runs(&unexplained)
            .into_iter()
            .map(|(s, e, (d, i))| format!("{} driver {d}, i915 {i}", range_text(s, e)))
            .collect(),
        stale: merge_runs(&stale)
            .into_iter()
            .map(|(s, e, (line, d, i))| {
                let what = if d == i {
                    format!("both {d} now")
                } else {
                    format!("now driver {d}, i915 {i}")
                };
                let x = find(explained, s);
                let said = x.map_or(String::new(), |x| {
                    format!(" (entry says {} vs {})", x.value.driver, x.value.i915)
                });
                format!("entry {line}: {} {what}{said}", range_text(s, e))
            })
            .collect(),
    }
}

/// The seed group a driver steering stands for over `s..=e`, or `None` when
/// the driver's choice has no seed counterpart there (GAM outside the
/// documented `gam` ranges, which the seed calls MSLICE).
fn seed_group_of(steering: Steering, s: u32, e: u32, gam: &[(u32, u32)]) -> Option<Group> {
    Some(match steering {
        Steering::Dss => Group::Dss,
        Steering::Gslice => Group::Gslice,
        Steering::L3bank => Group::L3bank,
        Steering::Lncf => Group::Lncf,
        Steering::Mslice => Group::Mslice,
        Steering::SqidiSf | Steering::SqidiMcfg => Group::Sqidi,
        Steering::Gam => {
            if gam.iter().any(|&(gs, ge)| gs <= s && e <= ge) {
                Group::Mslice
            } else {
                return None;
            }
        }
    })
}

/// Where the driver's multicast ranges and the seed's replication column
/// disagree (coverage or group), one line per run; `gam` are the ranges
/// documented as GAM although the seed says MSLICE.
pub fn mcr_vs_seed(
    driver: &[Span<Steering>],
    seed: &[Span<Group>],
    gam: &[(u32, u32)],
) -> Vec<String> {
    let mut wrong = Vec::new();
    for (s, e) in segments(cuts(driver).chain(cuts(seed)), 0, u32::MAX) {
        let d = find(driver, s).map(|x| x.value);
        let g = find(seed, s).map(|x| x.value);
        let agrees = match d {
            None => g.is_none(),
            Some(st) => g.is_some() && seed_group_of(st, s, e, gam) == g,
        };
        if !agrees {
            wrong.push((s, e, (d, g)));
        }
    }
    merge_runs(&wrong)
        .into_iter()
        .map(|(s, e, (d, g))| {
            let seed = g.map_or("not replicated".to_string(), |g| g.to_string());
            let drv = d.map_or("not multicast".to_string(), |d| format!("{d:?}"));
            let mut text = format!("{} seed {seed}, driver {drv}", range_text(s, e));
            if d == Some(Steering::Gam) {
                text.push_str(" (GAM stands for MSLICE only on the documented ranges)");
            }
            text
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span<T>(start: u32, end: u32, value: T, line: usize) -> Span<T> {
        Span {
            start,
            end,
            value,
            line,
        }
    }

    fn full(rows: &[(u32, u32, Wake)]) -> Vec<Span<Wake>> {
        rows.iter()
            .enumerate()
            .map(|(i, &(s, e, w))| span(s, e, w, i + 1))
            .collect()
    }

    #[test]
    fn driver_shape_finds_gaps_overlaps_and_overruns() {
        let good = full(&[(0, 0xfff, Wake::None), (0x1000, TABLE_END, Wake::Gt)]);
        assert!(driver_shape(&good).is_empty());
        let bad = full(&[
            (0, 0xfff, Wake::None),
            (0x2000, 0x2fff, Wake::Gt),
            (0x2f00, TABLE_END + 1, Wake::Gt),
        ]);
        let p = driver_shape(&bad);
        assert!(p.iter().any(|l| l.contains("overlaps")), "{p:?}");
        assert!(
            p.iter().any(|l| l == "0x001000-0x001FFF is in no row"),
            "{p:?}"
        );
        assert!(p.iter().any(|l| l.contains("runs past")), "{p:?}");
    }

    #[test]
    fn seed_rows_must_match_unless_settled() {
        let seed = vec![
            span(0, 0xff, Wake::None, 462),
            span(0x100, 0x1ff, Wake::Vd(0), 552),
            span(0x300, TABLE_END, Wake::Gt, 600),
        ];
        let driver = full(&[
            (0, 0x17f, Wake::None),
            (0x180, 0x2ff, Wake::Vd(0)),
            (0x300, TABLE_END, Wake::Gt),
        ]);
        let c = seed_vs_driver(&seed, &driver, &[]);
        assert_eq!(
            c.mismatches,
            ["seed L552 0x000100-0x0001FF VD0: driver NONE on 0x000100-0x00017F"]
        );
        assert_eq!(
            c.holes,
            ["0x000200-0x0002FF is not a seed row; the driver maps it to VD0"]
        );
        let settled = vec![span(
            0x100,
            0x17f,
            Settled {
                driver: Wake::None,
                reason: "why".into(),
            },
            3,
        )];
        let c = seed_vs_driver(&seed, &driver, &settled);
        assert!(c.mismatches.is_empty());
        assert_eq!(c.settled_rows, 1);
        assert_eq!(c.settled.len(), 1);
        assert!(c.settled[0].1.is_empty(), "{:?}", c.settled);
        assert_eq!(
            c.settled[0].0,
            "settled: 0x000100-0x00017F NONE still differs from the seed as documented"
        );
    }

    #[test]
    fn stale_settled_entries_fail() {
        let seed = vec![span(0, TABLE_END, Wake::Gt, 462)];
        let driver = full(&[(0, TABLE_END, Wake::Gt)]);
        let settled = vec![span(
            0x100,
            0x1ff,
            Settled {
                driver: Wake::Gt,
                reason: "once differed".into(),
            },
            1,
        )];
        let c = seed_vs_driver(&seed, &driver, &settled);
        assert_eq!(
            c.settled[0].1,
            ["seed L462 says GT too on 0x000100-0x0001FF: the difference vanished"]
        );
        let settled = vec![span(
            0x100,
            0x1ff,
            Settled {
                driver: Wake::Render,
                reason: "never true".into(),
            },
            1,
        )];
        let c = seed_vs_driver(&seed, &driver, &settled);
        assert_eq!(
            c.settled[0].1,
            ["the driver maps 0x000100-0x0001FF to GT, not RENDER"]
        );
    }

    #[test]
    fn mixed_holes_list_each_run() {
        let seed = vec![
            span(0, 0xff, Wake::None, 1),
            span(0x200, TABLE_END, Wake::Gt, 2),
        ];
        let driver = full(&[
            (0, 0x17f, Wake::None),
            (0x180, 0x1ff, Wake::Gt),
            (0x200, TABLE_END, Wake::Gt),
        ]);
        let c = seed_vs_driver(&seed, &driver, &[]);
        assert_eq!(
            c.holes,
            ["0x000100-0x0001FF is not a seed row; the driver maps it to NONE on 0x000100-0x00017F, GT on 0x000180-0x0001FF"]
        );
    }

    fn diff(s: u32, e: u32, d: Wake, i: Wake, line: usize) -> Span<UpstreamDiff> {
        span(
            s,
            e,
            UpstreamDiff {
                driver: d,
                i915: i,
                reason: "r".into(),
            },
            line,
        )
    }

    #[test]
    fn upstream_differences_need_explanations() {
        let driver = full(&[
            (0, 0xff, Wake::Gt),
            (0x100, 0x1ff, Wake::None),
            (0x200, TABLE_END, Wake::Render),
        ]);
        // i915 folds the reserved 0x100-0x1ff into GT and ends at 0x2ff.
        let i915 = full(&[(0, 0x1ff, Wake::Gt), (0x200, 0x2ff, Wake::Render)]);
        let c = driver_vs_i915(&driver, &i915, &[]);
        assert_eq!(
            c.differing,
            [
                (0x100, 0x1ff, (Wake::None, Wake::Gt)),
                (0x300, TABLE_END, (Wake::Render, Wake::None))
            ]
        );
        assert_eq!(
            c.unexplained,
            [
                "0x000100-0x0001FF driver NONE, i915 GT",
                "0x000300-0x23FFFF driver RENDER, i915 NONE"
            ]
        );
        let notes = [
            diff(0x100, 0x1ff, Wake::None, Wake::Gt, 1),
            diff(0x300, TABLE_END, Wake::Render, Wake::None, 2),
        ];
        let c = driver_vs_i915(&driver, &i915, &notes);
        assert!(c.unexplained.is_empty() && c.stale.is_empty(), "{c:?}");
        // An explanation wider than the difference is stale where they agree.
        let notes = [diff(0x80, 0x1ff, Wake::None, Wake::Gt, 7)];
        let c = driver_vs_i915(&driver, &i915, &notes);
        assert_eq!(
            c.stale,
            ["entry 7: 0x000080-0x0000FF both GT now (entry says NONE vs GT)"]
        );
        // An explanation naming the wrong wakes explains nothing.
        let notes = [diff(0x100, 0x1ff, Wake::None, Wake::Render, 4)];
        let c = driver_vs_i915(&driver, &i915, &notes);
        assert_eq!(c.unexplained.len(), 2);
        assert_eq!(
            c.stale,
            ["entry 4: 0x000100-0x0001FF now driver NONE, i915 GT (entry says NONE vs RENDER)"]
        );
    }

    #[test]
    fn mcr_groups_follow_the_documented_mapping() {
        let seed = vec![
            span(0x0b00, 0x0bff, Group::Sqidi, 463),
            span(0x4000, 0x4aff, Group::Mslice, 472),
            span(0xdd00, 0xddff, Group::Mslice, 533),
            span(0xe100, 0xe8ff, Group::Dss, 538),
        ];
        let driver = vec![
            span(0x0b00, 0x0bff, Steering::SqidiSf, 1),
            span(0x4000, 0x4aff, Steering::Gam, 2),
            span(0xdd00, 0xddff, Steering::Mslice, 3),
            span(0xe100, 0xe8ff, Steering::Dss, 4),
        ];
        let gam = [(0x4000, 0x4aff)];
        assert!(mcr_vs_seed(&driver, &seed, &gam).is_empty());
        let driver = vec![
            span(0x0b00, 0x0bff, Steering::SqidiMcfg, 1),
            span(0x4000, 0x4aff, Steering::Gam, 2),
            span(0xdd00, 0xddff, Steering::Gam, 3),
            span(0xe100, 0xe7ff, Steering::Dss, 4),
            span(0x10000, 0x100ff, Steering::Gslice, 5),
        ];
        assert_eq!(
            mcr_vs_seed(&driver, &seed, &gam),
            [
                "0x00DD00-0x00DDFF seed MSLICE, driver Gam (GAM stands for MSLICE only on the documented ranges)",
                "0x00E800-0x00E8FF seed DSS, driver not multicast",
                "0x010000-0x0100FF seed not replicated, driver Gslice",
            ]
        );
    }
}
