//! The test floor, `tools/check-floor.toml`: the names of the cases every
//! suite must run.
//!
//! Tests that silently stop running look like passing tests, and a count can
//! be kept up by a trivial test standing in for a removed one. So the floor
//! lists every case by name, per suite; a full run fails the floor case when a
//! listed case did not run (it is missing or was skipped). A trailing ` (...)`
//! with a number in it (a count, a place) is not part of a floor name. New cases are
//! noted until `--update-floor` records them.
//!
//! `--update-floor` adds the names of a full run. It drops a name only when
//! `--floor-reason` explains why, and then appends the reason and the dropped
//! names to the file's `lowered` log, so lowering the floor is never silent.

use crate::report::SuiteTotals;
use anyhow::{bail, Result};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The file's content.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Floor {
    /// Every time cases were dropped from the floor, oldest first.
    #[serde(default)]
    pub lowered: Vec<Lowered>,
    /// Case names per suite.
    pub suites: BTreeMap<String, BTreeSet<String>>,
}

/// One logged removal of cases from the floor.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lowered {
    /// Why they went.
    pub reason: String,
    /// `suite: case` names dropped.
    pub removed: Vec<String>,
}

/// Header comment written above the TOML.
const HEADER: &str = "\
# The cases `make check` must run, by name, per suite (tools/check/src/floor.rs).
# A full run fails when a listed case did not run. `xehpg-check --update-floor`
# adds new cases; dropping one needs `--floor-reason`, logged under `lowered`.
";

/// Parses the floor file.
pub fn parse(text: &str) -> Result<Floor> {
    Ok(toml::from_str(text)?)
}

/// The file text for `floor`.
pub fn render(floor: &Floor) -> Result<String> {
    Ok(format!("{HEADER}\n{}", toml::to_string(floor)?))
}

/// A case's floor name: its name without a trailing ` (...)` detail that
/// holds a number, such as a count (`... matches the seed (223 rows)`) or a
/// place (`A (rust/regs.rs:1)`), which may change while the case stays the
/// same. A detail without digits names the case (`X (driver rust)`).
fn key(name: &str) -> String {
    match name.rfind(" (") {
        Some(i) if name.ends_with(')') && name[i..].bytes().any(|b| b.is_ascii_digit()) => {
            name[..i].to_string()
        }
        _ => name.to_string(),
    }
}

/// Floor names of the cases that ran in `run`, per suite.
fn ran(run: &[SuiteTotals]) -> BTreeMap<String, BTreeSet<String>> {
    run.iter()
        .map(|s| (s.name.clone(), s.ran_names.iter().map(|n| key(n)).collect()))
        .collect()
}

/// `suite: case` for every case `floor` lists that `run` did not run.
pub fn missing(floor: &Floor, run: &[SuiteTotals]) -> Vec<String> {
    let ran = ran(run);
    let empty = BTreeSet::new();
    floor
        .suites
        .iter()
        .flat_map(|(suite, cases)| {
            let got = ran.get(suite).unwrap_or(&empty);
            cases.difference(got).map(move |c| format!("{suite}: {c}"))
        })
        .collect()
}

/// How many cases of `run` the floor does not list yet.
pub fn unlisted(floor: &Floor, run: &[SuiteTotals]) -> usize {
    let empty = BTreeSet::new();
    ran(run)
        .iter()
        .map(|(suite, cases)| {
            cases
                .difference(floor.suites.get(suite).unwrap_or(&empty))
                .count()
        })
        .sum()
}

/// The floor after a full run: `old` plus every case that ran. Cases of `old`
/// that did not run are dropped only with a `reason`, which is logged.
///
/// # Errors
///
/// Cases would be dropped and no reason was given.
pub fn update(old: &Floor, run: &[SuiteTotals], reason: Option<&str>) -> Result<Floor> {
    let gone = missing(old, run);
    let mut new = Floor {
        lowered: old.lowered.clone(),
        suites: ran(run),
    };
    if !gone.is_empty() {
        let Some(reason) = reason.filter(|r| !r.trim().is_empty()) else {
            bail!(
                "{} floor case(s) did not run ({}{}); say why with --floor-reason to drop them",
                gone.len(),
                gone.iter().take(5).cloned().collect::<Vec<_>>().join(", "),
                if gone.len() > 5 { ", ..." } else { "" }
            );
        };
        new.lowered.push(Lowered {
            reason: reason.to_string(),
            removed: gone,
        });
    }
    Ok(new)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn suite(name: &str, cases: &[&str]) -> SuiteTotals {
        SuiteTotals {
            name: name.into(),
            passed: cases.len(),
            ran_names: cases.iter().map(|c| c.to_string()).collect(),
            ..SuiteTotals::default()
        }
    }

    fn floor(suites: &[(&str, &[&str])]) -> Floor {
        Floor {
            lowered: Vec::new(),
            suites: suites
                .iter()
                .map(|(s, c)| (s.to_string(), c.iter().map(|c| c.to_string()).collect()))
                .collect(),
        }
    }

    #[test]
    fn a_listed_case_that_did_not_run_is_missing() {
        let f = floor(&[("vm", &["bind", "guc"]), ("abi", &["bindings"])]);
        let run = [suite("vm", &["bind", "new"])];
        assert_eq!(missing(&f, &run), ["abi: bindings", "vm: guc"]);
        assert_eq!(unlisted(&f, &run), 1);
        let all = [suite("vm", &["bind", "guc"]), suite("abi", &["bindings"])];
        assert!(missing(&f, &all).is_empty());
    }

    #[test]
    fn a_trailing_detail_is_not_part_of_the_floor_name() {
        assert_eq!(
            key("table matches the seed (223 rows)"),
            "table matches the seed"
        );
        assert_eq!(key("A (rust/regs.rs:1)"), "A");
        assert_eq!(key("vm run"), "vm run");
        assert_eq!(key("X (driver rust)"), "X (driver rust)");
        assert_eq!(key("odd (name) here"), "odd (name) here");
        let f = floor(&[("fwtable", &["table matches the seed"])]);
        let run = [suite("fwtable", &["table matches the seed (224 rows)"])];
        assert!(missing(&f, &run).is_empty());
        assert_eq!(unlisted(&f, &run), 0);
    }

    #[test]
    fn a_renamed_case_counts_as_missing_even_if_the_count_holds() {
        let f = floor(&[("vm", &["bind", "guc"])]);
        let run = [suite("vm", &["bind", "trivial"])];
        assert_eq!(missing(&f, &run), ["vm: guc"]);
    }

    #[test]
    fn update_adds_silently_but_drops_only_with_a_logged_reason() {
        let f = floor(&[("vm", &["bind", "guc"])]);
        let grown = update(&f, &[suite("vm", &["bind", "guc", "mcr"])], None).unwrap();
        assert_eq!(grown.suites["vm"].len(), 3);
        assert!(grown.lowered.is_empty());

        let run = [suite("vm", &["bind"])];
        assert!(update(&f, &run, None).is_err());
        assert!(update(&f, &run, Some("  ")).is_err());
        let lowered = update(&f, &run, Some("guc merged into bind")).unwrap();
        assert_eq!(lowered.suites["vm"].len(), 1);
        assert_eq!(
            lowered.lowered,
            [Lowered {
                reason: "guc merged into bind".into(),
                removed: vec!["vm: guc".into()],
            }]
        );
    }

    #[test]
    fn render_round_trips_and_rejects_unknown_keys() {
        let mut f = floor(&[("vm", &["bind: a \"quoted\" name"]), ("tools", &[])]);
        f.lowered.push(Lowered {
            reason: "r".into(),
            removed: vec!["vm: x".into()],
        });
        assert_eq!(parse(&render(&f).unwrap()).unwrap(), f);
        assert!(parse("total = 3\n[suites]\n").is_err());
        assert!(parse("[suites]\nvm = 3\n").is_err());
    }
}
