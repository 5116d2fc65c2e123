//! Suite `fwtable`: the driver's generated forcewake and steering tables
//! agree with the seed, are current, and (up to explained differences) agree
//! with upstream i915.
//!
//! Sources: the PRM's "Force Wake and Steering Table" (seed 000 lines
//! 455-704), kept as `tools/mock/data/fw-steering.tsv` and read with
//! `xehpg_mock::seed_table`; the tables `xehpg_gen` builds from it and the
//! decisions in `tools/gen/tables.toml` (the rows `make tables` writes to
//! `rust/gt/forcewake/table.rs` and `rust/gt/mcr/table.rs`); i915's
//! `__dg2_fw_ranges` in the kernel tree ([`i915`]). Tests:
//!
//! - the checked-in TSV is what `seed_table::extract` makes of the seed
//!   (skipped when the seed is not beside the repository, `../shared/seeds/`:
//!   an external skip, which the floor excuses, `[external]` of
//!   `tools/check-floor.toml`);
//! - each checked-in generated file is what the generator makes today
//!   (the two tables, and the hwconfig key names `rust/guc/hwconfig/keys.rs`
//!   from `tools/mock/data/hwconfig-keys.tsv`, the list the mock serves by);
//! - the forcewake table is sorted and contiguous from 0 to 0x23FFFF;
//! - it maps every seed row to its wake target, except ranges settled by an
//!   `[[override]]` of the decisions; one test per override checks the
//!   difference still exists. Unlisted holes of the seed are notes;
//! - every range where the table and i915 differ is explained in
//!   `tools/check/fw-upstream-diffs.toml`, and every explanation still
//!   describes a real difference (both fail without the kernel tree's file:
//!   the bootstrap unpacks the whole source, so `make check` always has it);
//! - the multicast ranges cover exactly the seed's replicated rows, with the
//!   seed's group, up to the documented mapping (SQIDI behind the SF or MCFG
//!   selector; GAM for MSLICE on the decisions' GAM ranges).

mod compare;
mod i915;
mod notes;
pub(crate) mod wake;

use super::Context;
use crate::report::{Case, Reporter};
use anyhow::{Context as _, Result};
use std::path::{Path, PathBuf};
use wake::{Span, Wake};
use xehpg_gen::targets::Steering;
use xehpg_gen::{Generated, DECISIONS_FILE, FORCEWAKE_FILE, MCR_FILE, TSV_FILE};
use xehpg_mock::seed_table::{self, Group, Row};

/// Explained differences with i915, relative to the repository.
const UPSTREAM_FILE: &str = "tools/check/fw-upstream-diffs.toml";

/// Seed directory relative to the repository (CI has `shared/` beside the clone).
const SEED_DIR: &str = "../shared/seeds";

/// Runs the suite.
pub fn run(ctx: &Context, r: &mut Reporter) {
    let rows = match read(&ctx.repo, TSV_FILE).and_then(|t| Ok(seed_table::parse_tsv(&t)?)) {
        Ok(rows) => rows,
        Err(e) => return r.case(Case::fail(format!("{TSV_FILE} parses"), format!("{e:#}"))),
    };
    r.case(seed_fresh(&ctx.repo, &rows));
    let generated = match xehpg_gen::generate(&ctx.repo) {
        Ok(g) => g,
        Err(e) => {
            return r.case(Case::fail(
                format!("generate the tables from {TSV_FILE} and {DECISIONS_FILE}"),
                format!("{e:#}"),
            ))
        }
    };
    for (rel, text) in &generated.files {
        r.case(file_current(&ctx.repo, rel, text));
    }
    let seed: Vec<Span<Wake>> = rows.iter().map(seed_wake).collect();
    let groups: Vec<Span<Group>> = rows.iter().filter_map(seed_group).collect();
    let table = forcewake_spans(&generated);
    r.case(driver_shape(&table));
    seed_cases(&generated, &seed, &table, r);
    upstream_cases(ctx, &table, r);
    mcr_cases(&generated, &groups, r);
}

/// Line of the first row of the `RANGES` array in a generated file.
fn first_row_line(text: &str) -> usize {
    text.lines()
        .position(|l| l.contains("const RANGES"))
        .map_or(0, |i| i + 2)
}

/// The forcewake rows, with their lines in the generated file.
fn forcewake_spans(g: &Generated) -> Vec<Span<Wake>> {
    let first = g
        .files
        .iter()
        .find(|(rel, _)| *rel == FORCEWAKE_FILE)
        .map_or(0, |(_, t)| first_row_line(t));
    g.forcewake
        .iter()
        .enumerate()
        .map(|(i, row)| Span {
            start: row.start,
            end: row.end,
            value: row.wake,
            line: first + i,
        })
        .collect()
}

/// The multicast rows, with their lines in the generated file.
fn mcr_spans(g: &Generated) -> Vec<Span<Steering>> {
    let first = g
        .files
        .iter()
        .find(|(rel, _)| *rel == MCR_FILE)
        .map_or(0, |(_, t)| first_row_line(t));
    g.mcr
        .iter()
        .enumerate()
        .map(|(i, row)| Span {
            start: row.start,
            end: row.end,
            value: row.steering,
            line: first + i,
        })
        .collect()
}

/// A checked-in generated file is byte for byte what the generator makes.
fn file_current(repo: &Path, rel: &str, want: &str) -> Case {
    let name = format!("{rel} is what `make tables` generates");
    let have = match std::fs::read_to_string(repo.join(rel)) {
        Ok(t) => t,
        Err(e) => return Case::fail(name, format!("reading {rel}: {e}")),
    };
    if have == want {
        return Case::pass(name);
    }
    let mut details: Vec<String> = want
        .lines()
        .filter(|l| !have.lines().any(|h| h == *l))
        .map(|l| format!("generated: {l}"))
        .chain(
            have.lines()
                .filter(|l| !want.lines().any(|w| w == *l))
                .map(|l| format!("checked in: {l}")),
        )
        .collect();
    details.truncate(crate::report::TAIL_LINES);
    Case::fail(
        name,
        "stale: run `make tables` and commit the result (edit its inputs, named in its header, not the file)",
    )
    .with_details(details)
}

fn read(repo: &Path, rel: &str) -> Result<String> {
    std::fs::read_to_string(repo.join(rel)).with_context(|| format!("reading {rel}"))
}

fn seed_wake(row: &Row) -> Span<Wake> {
    Span {
        start: row.start,
        end: row.end,
        value: wake::from_seed(row.wake),
        line: row.seed_line,
    }
}

fn seed_group(row: &Row) -> Option<Span<Group>> {
    Some(Span {
        start: row.start,
        end: row.end,
        value: row.group?,
        line: row.seed_line,
    })
}

/// `../shared/seeds/000_*.txt`, if there is one.
fn seed_file(repo: &Path) -> Option<PathBuf> {
    let dir = repo.join(SEED_DIR);
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("000_") && n.ends_with(".txt"))
        })
        .collect();
    found.sort();
    let first = found.into_iter().next()?;
    Some(first.canonicalize().unwrap_or(first))
}

/// (a) The TSV is the seed's table, regenerated.
fn seed_fresh(repo: &Path, tsv: &[Row]) -> Case {
    let name = format!("{TSV_FILE} is seed 000's table ({} rows)", tsv.len());
    let Some(path) = seed_file(repo) else {
        return Case::skip_external(
            name,
            format!("no {SEED_DIR}/000_*.txt beside the repository"),
        );
    };
    let extracted = std::fs::read_to_string(&path)
        .with_context(|| format!("reading {}", path.display()))
        .and_then(|t| Ok(seed_table::extract(&t)?));
    let extracted = match extracted {
        Ok(rows) => rows,
        Err(e) => return Case::fail(name, format!("{e:#}")),
    };
    if extracted == tsv {
        return Case::pass(name);
    }
    let (want, have) = (seed_table::to_tsv(&extracted), seed_table::to_tsv(tsv));
    let mut details: Vec<String> = want
        .lines()
        .filter(|l| !have.lines().any(|h| h == *l))
        .map(|l| format!("seed: {l}"))
        .chain(
            have.lines()
                .filter(|l| !want.lines().any(|w| w == *l))
                .map(|l| format!("tsv:  {l}")),
        )
        .collect();
    details.truncate(crate::report::TAIL_LINES);
    details.push(format!(
        "(regenerate in tools/: cargo run -q -p xehpg-mock --bin xehpg-seed-table -- {} -o ../{TSV_FILE})",
        path.display()
    ));
    Case::fail(
        name,
        format!(
            "{} rows from {}, {} in the TSV, differing",
            extracted.len(),
            path.display(),
            tsv.len()
        ),
    )
    .with_details(details)
}

fn driver_shape(table: &[Span<Wake>]) -> Case {
    let name = format!(
        "{} is sorted and contiguous from 0 to {:#08X} ({} rows)",
        FORCEWAKE_FILE,
        compare::TABLE_END,
        table.len()
    );
    let problems = compare::driver_shape(table);
    if problems.is_empty() {
        Case::pass(name)
    } else {
        Case::fail(name, format!("{} problems", problems.len())).with_details(problems)
    }
}

/// (b) Driver against every seed row, settled entries, holes.
fn seed_cases(g: &Generated, seed: &[Span<Wake>], table: &[Span<Wake>], r: &mut Reporter) {
    let settled = notes::settled(&g.decisions);
    let check = compare::seed_vs_driver(seed, table, &settled);
    let name = format!("driver table matches the seed ({} rows)", seed.len());
    if check.mismatches.is_empty() {
        r.case(Case::pass(name));
    } else {
        let reason = format!(
            "{} seed rows differ (settle deliberate ones by an [[override]] in {DECISIONS_FILE})",
            check.mismatches.len()
        );
        r.case(Case::fail(name, reason).with_details(check.mismatches.clone()));
    }
    for (name, problems) in check.settled {
        if problems.is_empty() {
            r.case(Case::pass(name));
        } else {
            let reason = problems.join("; ");
            r.case(Case::fail(name, reason).with_details(problems));
        }
    }
    if check.settled_rows > 0 {
        r.note(&format!(
            "{} seed rows differ as settled in {DECISIONS_FILE}",
            check.settled_rows
        ));
    }
    for h in check.holes {
        r.note(&format!("seed hole {h}"));
    }
}

/// (c) Driver against i915's `__dg2_fw_ranges`.
fn upstream_cases(ctx: &Context, table: &[Span<Wake>], r: &mut Reporter) {
    const EXPLAINED: &str = "driver table vs i915 __dg2_fw_ranges: every difference explained";
    const HOLDS: &str = "driver table vs i915 __dg2_fw_ranges: every explanation still holds";
    let path = ctx.kdir.join(i915::FILE);
    if !path.is_file() {
        // The bootstrap's tree is the whole kernel source: a missing file is
        // a wrong --kdir or a broken tree, not a reason to check less.
        for name in [EXPLAINED, HOLDS] {
            let why = format!("no {} in the kernel tree", path.display());
            r.case(Case::fail(name, why));
        }
        return;
    }
    let i915 = std::fs::read_to_string(&path)
        .with_context(|| format!("reading {}", path.display()))
        .and_then(|t| i915::dg2_ranges(&t));
    let i915 = match i915 {
        Ok(t) => t,
        Err(e) => {
            return r.case(Case::fail(
                format!("parse i915 __dg2_fw_ranges ({})", i915::FILE),
                format!("{e:#}"),
            ))
        }
    };
    let explained = match read_optional(&ctx.repo.join(UPSTREAM_FILE))
        .and_then(|t| notes::parse_upstream(&t))
    {
        Ok(x) => x,
        Err(e) => return r.case(Case::fail(UPSTREAM_FILE, format!("{e:#}"))),
    };
    let check = compare::driver_vs_i915(table, &i915, &explained);
    let unexplained_name = format!("{EXPLAINED} ({} differing ranges)", check.differing.len());
    let stale_name = format!("{HOLDS} ({} entries)", explained.len());
    if check.unexplained.is_empty() {
        r.case(Case::pass(unexplained_name));
    } else {
        let reason = format!(
            "{} differences not explained in {UPSTREAM_FILE}",
            check.unexplained.len()
        );
        r.case(Case::fail(unexplained_name, reason).with_details(check.unexplained));
    }
    if check.stale.is_empty() {
        r.case(Case::pass(stale_name));
    } else {
        let reason = format!(
            "{} entries of {UPSTREAM_FILE} no longer match the tables",
            check.stale.len()
        );
        r.case(Case::fail(stale_name, reason).with_details(check.stale));
    }
}

/// (d) Multicast ranges against the seed's replication column.
fn mcr_cases(g: &Generated, groups: &[Span<Group>], r: &mut Reporter) {
    let mcr = mcr_spans(g);
    let name = format!(
        "{MCR_FILE} multicast ranges match the seed's replication groups ({} ranges)",
        mcr.len()
    );
    let gam: Vec<(u32, u32)> = g
        .decisions
        .steers
        .iter()
        .filter(|s| s.steering == Steering::Gam && s.group == Group::Mslice.name())
        .map(|s| (s.start, s.end))
        .collect();
    let mut problems = wake::order_problems(&mcr);
    problems.extend(compare::mcr_vs_seed(&mcr, groups, &gam));
    if problems.is_empty() {
        r.case(Case::pass(name));
    } else {
        let reason = format!("{} ranges differ", problems.len());
        r.case(Case::fail(name, reason).with_details(problems));
    }
    let gam: Vec<String> = gam.iter().map(|&(s, e)| wake::range_text(s, e)).collect();
    r.note(&format!(
        "documented MCR mapping: SqidiSf/SqidiMcfg = SQIDI; Gam = MSLICE on {} only",
        gam.join(", ")
    ));
}

/// A missing file reads as empty (no entries).
fn read_optional(path: &Path) -> Result<String> {
    match std::fs::read_to_string(path) {
        Ok(t) => Ok(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(e) => Err(e).with_context(|| format!("reading {}", path.display())),
    }
}
