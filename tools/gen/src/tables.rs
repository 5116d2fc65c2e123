//! The two tables, built from the seed's rows and the decisions.
//!
//! Forcewake: every seed row maps to its wake (its own domain, or the
//! `[[seed_wake]]` mapping, or an `[[override]]`); every range the seed does
//! not list between 0 and its last row must be exactly one or more
//! `[[fill]]`s. Adjacent seed rows merge when they map to the same wake and
//! are both reserved or both not (an always-on row stays apart from a
//! reserved one, as the seed lists them); fills and overrides stay rows of
//! their own.
//!
//! Multicast: every replicated seed row maps to its group's steering, or to
//! the `[[steer]]` entry covering it (SQIDI rows need one: the seed does not
//! say which of them are SF and which MCFG endpoints). Adjacent rows with the
//! same steering from the same source merge.

use crate::decisions::{range_text, Decisions, RESERVED};
use crate::targets::{Steering, Wake};
use anyhow::{bail, Result};
use xehpg_mock::seed_table::{Group, Row, Wake as SeedWake};

/// Where a generated row comes from, for its comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// Seed rows on lines `first..=last`.
    Seed {
        /// First seed line.
        first: usize,
        /// Last seed line.
        last: usize,
        /// Whether an `[[override]]` changed their wake.
        overridden: bool,
    },
    /// A `[[fill]]`, with its comment.
    Fill(String),
}

/// One forcewake row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FwRow {
    /// First offset.
    pub start: u32,
    /// Last offset (inclusive).
    pub end: u32,
    /// What an access needs.
    pub wake: Wake,
    /// Where it comes from.
    pub origin: Origin,
}

/// One multicast row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McrRow {
    /// First offset.
    pub start: u32,
    /// Last offset (inclusive).
    pub end: u32,
    /// The driver's steering.
    pub steering: Steering,
    /// The seed's group of the rows.
    pub group: Group,
    /// First seed line.
    pub first: usize,
    /// Last seed line.
    pub last: usize,
}

/// The decisions' name for a seed wake text that is not a domain.
fn seed_name(w: Option<SeedWake>) -> String {
    w.map_or_else(|| RESERVED.to_string(), |w| w.to_string())
}

/// The entry of `ranges` (sorted, disjoint) that covers `row`, requiring it
/// to cover the row whole; `kind` names the entries in errors.
fn covering<'a, T>(
    ranges: &'a [T],
    span: impl Fn(&T) -> (u32, u32),
    row: &Row,
    kind: &str,
) -> Result<Option<(usize, &'a T)>> {
    for (i, x) in ranges.iter().enumerate() {
        let (s, e) = span(x);
        if e < row.start || s > row.end {
            continue;
        }
        if s > row.start || e < row.end {
            bail!(
                "{kind} {} cuts seed row L{} {} (entries cover whole rows)",
                range_text(s, e),
                row.seed_line,
                range_text(row.start, row.end)
            );
        }
        return Ok(Some((i, x)));
    }
    Ok(None)
}

/// What must be equal for two adjacent seed rows to merge: the wake, whether
/// the rows are reserved, and the override (none) that set the wake.
type MergeKey = (Wake, bool, Option<usize>);

/// The forcewake table.
///
/// # Errors
///
/// A seed wake with no mapping, an override or fill that does not fit the
/// seed's rows and holes, or holes no fill covers.
pub fn forcewake(rows: &[Row], d: &Decisions) -> Result<Vec<FwRow>> {
    // (row, merge key) per seed row; the key keeps reserved and overridden rows apart.
    let mut keyed: Vec<(FwRow, MergeKey, usize)> = Vec::new();
    for row in rows {
        let over = covering(&d.overrides, |o| (o.start, o.end), row, "override")?;
        let mapped = match row.wake.and_then(Wake::of_seed) {
            Some(w) => w,
            None => match d.seed_wake(&seed_name(row.wake)) {
                Some(w) => w,
                None => bail!(
                    "seed row L{}: no [[seed_wake]] for `{}`",
                    row.seed_line,
                    seed_name(row.wake)
                ),
            },
        };
        let wake = over.map_or(mapped, |(_, o)| o.wake);
        let fw = FwRow {
            start: row.start,
            end: row.end,
            wake,
            origin: Origin::Seed {
                first: row.seed_line,
                last: row.seed_line,
                overridden: over.is_some(),
            },
        };
        let key = (wake, row.is_reserved(), over.map(|(i, _)| i));
        keyed.push((fw, key, row.seed_line));
    }
    for o in &d.overrides {
        if !rows.iter().any(|r| o.start <= r.start && r.end <= o.end) {
            bail!("override {} covers no seed row", range_text(o.start, o.end));
        }
    }
    let holes = holes(rows);
    for f in &d.fills {
        if !holes.iter().any(|&(s, e)| s <= f.start && f.end <= e) {
            bail!(
                "fill {} is not inside a range the seed leaves out",
                range_text(f.start, f.end)
            );
        }
    }
    for &(s, e) in &holes {
        let mut next = u64::from(s);
        for f in d.fills.iter().filter(|f| s <= f.start && f.end <= e) {
            if u64::from(f.start) != next {
                break;
            }
            next = u64::from(f.end) + 1;
        }
        if next != u64::from(e) + 1 {
            bail!(
                "the seed does not list {} and no [[fill]] says what it needs",
                range_text(narrow(next), e)
            );
        }
    }

    let mut out: Vec<FwRow> = Vec::new();
    let mut last_key = None;
    let mut fills = d.fills.iter().peekable();
    for (row, key, line) in keyed {
        while let Some(f) = fills.next_if(|f| f.start < row.start) {
            out.push(FwRow {
                start: f.start,
                end: f.end,
                wake: f.wake,
                origin: Origin::Fill(f.comment.clone()),
            });
            last_key = None;
        }
        match out.last_mut() {
            Some(prev)
                if last_key == Some(key)
                    && key.2.is_none()
                    && u64::from(prev.end) + 1 == u64::from(row.start) =>
            {
                prev.end = row.end;
                if let Origin::Seed { last, .. } = &mut prev.origin {
                    *last = line;
                }
            }
            _ => out.push(row),
        }
        last_key = Some(key);
    }
    // Every fill lies in a hole between two seed rows, so none is left over.
    Ok(out)
}

/// The ranges between 0 and the last seed row that no row covers.
fn holes(rows: &[Row]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    if let Some(first) = rows.first().filter(|r| r.start > 0) {
        out.push((0, first.start - 1));
    }
    out.extend(xehpg_mock::seed_table::holes(rows));
    out
}

/// A value known to fit (at most one past a `u32` end that is not `u32::MAX`).
fn narrow(v: u64) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}

/// The multicast table.
///
/// # Errors
///
/// A SQIDI row without a `[[steer]]`, or a `[[steer]]` that does not cover
/// whole replicated rows of the group it names.
pub fn mcr(rows: &[Row], d: &Decisions) -> Result<Vec<McrRow>> {
    let mut out: Vec<McrRow> = Vec::new();
    let mut last_source = None;
    for row in rows {
        let steer = covering(&d.steers, |s| (s.start, s.end), row, "steer")?;
        let Some(group) = row.group else {
            if let Some((_, s)) = steer {
                bail!(
                    "steer {} covers seed row L{}, which is not replicated",
                    range_text(s.start, s.end),
                    row.seed_line
                );
            }
            continue;
        };
        let steering = match steer {
            Some((_, s)) if s.group != group.name() => bail!(
                "steer {} says group {}, seed row L{} is {group}",
                range_text(s.start, s.end),
                s.group,
                row.seed_line
            ),
            Some((_, s)) => s.steering,
            None => match Steering::of_group(group) {
                Some(st) => st,
                None => bail!(
                    "seed row L{} is {group}: a [[steer]] must say which selector reaches it",
                    row.seed_line
                ),
            },
        };
        let source = (steering, steer.map(|(i, _)| i));
        match out.last_mut() {
            Some(prev)
                if last_source == Some(source)
                    && u64::from(prev.end) + 1 == u64::from(row.start) =>
            {
                prev.end = row.end;
                prev.last = row.seed_line;
            }
            _ => out.push(McrRow {
                start: row.start,
                end: row.end,
                steering,
                group,
                first: row.seed_line,
                last: row.seed_line,
            }),
        }
        last_source = Some(source);
    }
    for s in &d.steers {
        if !rows.iter().any(|r| s.start <= r.start && r.end <= s.end) {
            bail!("steer {} covers no seed row", range_text(s.start, s.end));
        }
        // A hole inside the range would be steered by nothing: every offset must be a row.
        let covered: u64 = rows
            .iter()
            .filter(|r| s.start <= r.start && r.end <= s.end)
            .map(|r| u64::from(r.end) - u64::from(r.start) + 1)
            .sum();
        if covered != u64::from(s.end) - u64::from(s.start) + 1 {
            bail!(
                "steer {} runs over offsets no seed row lists",
                range_text(s.start, s.end)
            );
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decisions::{Fill, Override, SeedWake as SeedWakeEntry, Steer};

    fn row(line: usize, start: u32, end: u32, wake: &str, group: Option<Group>) -> Row {
        let wake = (!wake.is_empty()).then(|| wake.parse().unwrap());
        Row {
            seed_line: line,
            start,
            end,
            wake,
            replicated: wake.map(|_| group.is_some()),
            group,
            inst_count: wake.map(|_| if group.is_some() { 8 } else { 1 }),
            steering: group.map(|_| "sliceid[0..7]".to_string()),
        }
    }

    fn seed_wakes() -> Decisions {
        let map = |seed: &str, wake| SeedWakeEntry {
            seed: seed.into(),
            wake,
            lines: "L1".into(),
            reason: "r".into(),
        };
        Decisions {
            seed_wakes: vec![
                map("AON", Wake::None),
                map("RENDER*", Wake::Render),
                map(RESERVED, Wake::None),
            ],
            ..Decisions::default()
        }
    }

    fn fill(start: u32, end: u32, wake: Wake, comment: &str) -> Fill {
        Fill {
            start,
            end,
            wake,
            comment: comment.into(),
            lines: "L1".into(),
            reason: "r".into(),
        }
    }

    fn seed(first: usize, last: usize) -> Origin {
        Origin::Seed {
            first,
            last,
            overridden: false,
        }
    }

    fn fw(start: u32, end: u32, wake: Wake, origin: Origin) -> FwRow {
        FwRow {
            start,
            end,
            wake,
            origin,
        }
    }

    #[test]
    fn merges_equal_neighbours_but_not_reserved_with_always_on() {
        let rows = [
            row(10, 0x000, 0x0ff, "", None),
            row(11, 0x100, 0x1ff, "AON", None),
            row(12, 0x200, 0x2ff, "AON", None),
            row(13, 0x300, 0x3ff, "RENDER*", None),
            row(16, 0x400, 0x4ff, "RENDER", None),
            row(17, 0x500, 0x5ff, "VD2", None),
            row(18, 0x600, 0x6ff, "", None),
            row(19, 0x700, 0x7ff, "", None),
        ];
        let t = forcewake(&rows, &seed_wakes()).unwrap();
        assert_eq!(
            t,
            [
                fw(0x000, 0x0ff, Wake::None, seed(10, 10)),
                fw(0x100, 0x2ff, Wake::None, seed(11, 12)),
                fw(0x300, 0x4ff, Wake::Render, seed(13, 16)),
                fw(0x500, 0x5ff, Wake::Vd(2), seed(17, 17)),
                fw(0x600, 0x7ff, Wake::None, seed(18, 19)),
            ]
        );
    }

    #[test]
    fn fills_close_the_holes_as_rows_of_their_own() {
        let rows = [
            row(10, 0x000, 0x0ff, "VD3", None),
            row(11, 0x200, 0x2ff, "VD3", None),
            row(12, 0x400, 0x4ff, "GT", None),
        ];
        let mut d = seed_wakes();
        let e = forcewake(&rows, &d).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the seed does not list 0x000100-0x0001FF and no [[fill]] says what it needs"
        );
        d.fills = vec![
            fill(0x100, 0x1ff, Wake::Vd(3), "the block's domain"),
            fill(0x300, 0x37f, Wake::None, "a"),
            fill(0x380, 0x3ff, Wake::None, "b"),
        ];
        let t = forcewake(&rows, &d).unwrap();
        assert_eq!(
            t,
            [
                fw(0x000, 0x0ff, Wake::Vd(3), seed(10, 10)),
                fw(
                    0x100,
                    0x1ff,
                    Wake::Vd(3),
                    Origin::Fill("the block's domain".into())
                ),
                fw(0x200, 0x2ff, Wake::Vd(3), seed(11, 11)),
                fw(0x300, 0x37f, Wake::None, Origin::Fill("a".into())),
                fw(0x380, 0x3ff, Wake::None, Origin::Fill("b".into())),
                fw(0x400, 0x4ff, Wake::Gt, seed(12, 12)),
            ]
        );
        d.fills[0].start = 0x80;
        assert!(forcewake(&rows, &d).is_err(), "a fill over a seed row");
        d.fills[0].start = 0x180;
        assert!(
            forcewake(&rows, &d).is_err(),
            "a fill leaving part of a hole"
        );
    }

    #[test]
    fn missing_seed_wake_mappings_are_errors() {
        let rows = [row(10, 0, 0xff, "RENDER*", None)];
        let e = forcewake(&rows, &Decisions::default()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "seed row L10: no [[seed_wake]] for `RENDER*`"
        );
    }

    #[test]
    fn overrides_replace_whole_rows_and_stay_apart() {
        let rows = [
            row(10, 0x000, 0x0ff, "GT", None),
            row(11, 0x100, 0x1ff, "VD0", None),
            row(12, 0x200, 0x2ff, "GT", None),
        ];
        let mut d = seed_wakes();
        d.overrides = vec![Override {
            start: 0x100,
            end: 0x1ff,
            wake: Wake::Gt,
            lines: "L11".into(),
            reason: "r".into(),
        }];
        let t = forcewake(&rows, &d).unwrap();
        let over = Origin::Seed {
            first: 11,
            last: 11,
            overridden: true,
        };
        assert_eq!(
            t,
            [
                fw(0x000, 0x0ff, Wake::Gt, seed(10, 10)),
                fw(0x100, 0x1ff, Wake::Gt, over),
                fw(0x200, 0x2ff, Wake::Gt, seed(12, 12)),
            ]
        );
        d.overrides[0].end = 0x17f;
        assert!(forcewake(&rows, &d).is_err(), "half a row");
    }

    fn steer(start: u32, end: u32, group: &str, steering: Steering) -> Steer {
        Steer {
            start,
            end,
            group: group.into(),
            steering,
            lines: "L1".into(),
            reason: "r".into(),
        }
    }

    #[test]
    fn multicast_rows_follow_groups_and_steer_entries() {
        let rows = [
            row(10, 0x000, 0x0ff, "AON", Some(Group::Sqidi)),
            row(11, 0x100, 0x1ff, "GT", Some(Group::Mslice)),
            row(12, 0x200, 0x2ff, "GT", Some(Group::Mslice)),
            row(13, 0x300, 0x3ff, "GT", Some(Group::Mslice)),
            row(14, 0x400, 0x4ff, "GT", None),
            row(15, 0x500, 0x5ff, "RENDER", Some(Group::Dss)),
            row(16, 0x600, 0x6ff, "RENDER", Some(Group::Dss)),
        ];
        let mut d = seed_wakes();
        assert_eq!(
            mcr(&rows, &d).unwrap_err().to_string(),
            "seed row L10 is SQIDI: a [[steer]] must say which selector reaches it"
        );
        d.steers = vec![
            steer(0x000, 0x0ff, "SQIDI", Steering::SqidiMcfg),
            steer(0x100, 0x2ff, "MSLICE", Steering::Gam),
        ];
        let t: Vec<_> = mcr(&rows, &d)
            .unwrap()
            .into_iter()
            .map(|m| (m.start, m.end, m.steering, m.first, m.last))
            .collect();
        assert_eq!(
            t,
            [
                (0x000, 0x0ff, Steering::SqidiMcfg, 10, 10),
                (0x100, 0x2ff, Steering::Gam, 11, 12),
                (0x300, 0x3ff, Steering::Mslice, 13, 13),
                (0x500, 0x6ff, Steering::Dss, 15, 16),
            ]
        );
        d.steers[1] = steer(0x100, 0x2ff, "DSS", Steering::Gam);
        assert!(mcr(&rows, &d).is_err(), "wrong group");
        d.steers[1] = steer(0x100, 0x4ff, "MSLICE", Steering::Gam);
        assert!(mcr(&rows, &d).is_err(), "over a non-replicated row");
        d.steers[1] = steer(0x100, 0x27f, "MSLICE", Steering::Gam);
        assert!(mcr(&rows, &d).is_err(), "half a row");
    }
}
