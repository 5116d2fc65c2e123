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
//!
//! One kind of skip is excused: a few cases read text outside the repository
//! (the seeds in `../shared/`), which a public clone does not have. The
//! file's `[external]` table lists them per suite. A listed case that was
//! skipped for that reason ([`Case::skip_external`]) is not missing, and
//! `--update-floor` keeps it; a case skipped that way but not listed, or
//! listed but skipped for any other reason, is missing as before.
//!
//! A name alone does not stop a scenario from being cut to one `ok`: so for
//! the suites whose cases are made of many assertions (the VM lanes, see
//! [`guards_assertions`]) the file also keeps each case's assertion count
//! under `[assertions.<suite>]`, as a minimum. A full run fails when a case
//! made fewer assertions than recorded; `--update-floor` records this run's
//! counts, and lowers one only with `--floor-reason`, logged under
//! `lowered` like a dropped case. A case with no recorded count is not an
//! error (the next `--update-floor` records it).
//!
//! [`Case::skip_external`]: crate::report::Case::skip_external

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
    /// Per suite, the cases that may be skipped because text outside the
    /// repository is absent ([`crate::report::Case::skip_external`]).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub external: BTreeMap<String, BTreeSet<String>>,
    /// Case names per suite.
    pub suites: BTreeMap<String, BTreeSet<String>>,
    /// Per suite that [`guards_assertions`], the fewest assertions each
    /// case may make.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub assertions: BTreeMap<String, BTreeMap<String, usize>>,
}

/// One logged removal of cases from the floor.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lowered {
    /// Why they went.
    pub reason: String,
    /// `suite: case` names dropped.
    pub removed: Vec<String>,
    /// `suite: case: old -> new assertions`, for each lowered count.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub assertions: Vec<String>,
}

/// Header comment written above the TOML.
const HEADER: &str = "\
# The cases `make check` must run, by name, per suite (tools/check/src/floor.rs).
# A full run fails when a listed case did not run. `xehpg-check --update-floor`
# adds new cases; dropping one needs `--floor-reason`, logged under `lowered`.
# A case under `external` may be skipped when ../shared is absent (no seeds).
# `assertions` holds the fewest assertions each VM scenario may make; lowering
# one needs `--floor-reason` too.
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

/// Floor names of the cases of `run` that were skipped because text
/// outside the repository is absent and that `floor` lists under
/// `[external]` for their suite, per suite: the skips the floor excuses.
pub fn excused(floor: &Floor, run: &[SuiteTotals]) -> BTreeMap<String, BTreeSet<String>> {
    run.iter()
        .filter_map(|s| {
            let allowed = floor.external.get(&s.name)?;
            let names: BTreeSet<String> = s
                .external_skips
                .iter()
                .map(|n| key(n))
                .filter(|n| allowed.contains(n))
                .collect();
            (!names.is_empty()).then(|| (s.name.clone(), names))
        })
        .collect()
}

/// `suite: case` for every case `floor` lists that `run` did not run, but
/// for the skips it excuses ([`excused`]).
pub fn missing(floor: &Floor, run: &[SuiteTotals]) -> Vec<String> {
    let ran = ran(run);
    let excused = excused(floor, run);
    let empty = BTreeSet::new();
    floor
        .suites
        .iter()
        .flat_map(|(suite, cases)| {
            let got = ran.get(suite).unwrap_or(&empty);
            let excused = excused.get(suite).unwrap_or(&empty);
            cases
                .iter()
                .filter(move |c| !got.contains(*c) && !excused.contains(*c))
                .map(move |c| format!("{suite}: {c}"))
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

/// Whether the floor keeps the assertion count of `suite`'s cases: the VM
/// lanes, whose cases are scenarios of many TAP lines. Other suites' cases
/// are mostly one assertion each, guarded by their names alone.
pub fn guards_assertions(suite: &str) -> bool {
    suite == "vm" || suite.starts_with("vm-")
}

/// Per guarded suite, the floor name and assertion count of each case that
/// ran in `run`.
fn ran_assertions(run: &[SuiteTotals]) -> BTreeMap<String, BTreeMap<String, usize>> {
    run.iter()
        .filter(|s| guards_assertions(&s.name))
        .map(|s| {
            let counts = s
                .case_assertions
                .iter()
                .map(|(n, a)| (key(n), *a))
                .collect();
            (s.name.clone(), counts)
        })
        .collect()
}

/// `suite: case: N assertions, at least M recorded` for every case of `run`
/// that made fewer assertions than `floor` records. A case without a
/// recorded count is not one of them.
pub fn fewer_assertions(floor: &Floor, run: &[SuiteTotals]) -> Vec<String> {
    let mut out = Vec::new();
    for (suite, counts) in ran_assertions(run) {
        let Some(recorded) = floor.assertions.get(&suite) else {
            continue;
        };
        for (case, got) in counts {
            match recorded.get(&case) {
                Some(&min) if got < min => out.push(format!(
                    "{suite}: {case}: {got} assertions, at least {min} recorded"
                )),
                _ => {}
            }
        }
    }
    out
}

/// The floor after a full run: `old` plus every case that ran. Cases of `old`
/// whose skip it excuses ([`excused`]) stay, as does its `[external]` table.
/// Other cases of `old` that did not run are dropped only with a `reason`,
/// which is logged.
///
/// # Errors
///
/// Cases would be dropped and no reason was given.
pub fn update(old: &Floor, run: &[SuiteTotals], reason: Option<&str>) -> Result<Floor> {
    let gone = missing(old, run);
    let mut suites = ran(run);
    for (suite, names) in excused(old, run) {
        let listed = old.suites.get(&suite).into_iter().flatten();
        let kept: Vec<String> = listed.filter(|n| names.contains(*n)).cloned().collect();
        suites.entry(suite).or_default().extend(kept);
    }
    // This run's counts replace the recorded ones; a case that did not run
    // keeps its count while its name stays on the floor.
    let mut assertions = old.assertions.clone();
    let mut lowered_counts = Vec::new();
    for (suite, counts) in ran_assertions(run) {
        let recorded = assertions.entry(suite.clone()).or_default();
        for (case, got) in counts {
            if let Some(&min) = recorded.get(&case) {
                if got < min {
                    lowered_counts.push(format!("{suite}: {case}: {min} -> {got} assertions"));
                }
            }
            recorded.insert(case, got);
        }
    }
    for (suite, counts) in &mut assertions {
        let listed = suites.get(suite);
        counts.retain(|case, _| listed.is_some_and(|l| l.contains(case)));
    }
    assertions.retain(|_, counts| !counts.is_empty());
    let mut new = Floor {
        lowered: old.lowered.clone(),
        external: old.external.clone(),
        suites,
        assertions,
    };
    if !gone.is_empty() || !lowered_counts.is_empty() {
        let Some(reason) = reason.filter(|r| !r.trim().is_empty()) else {
            let what: Vec<String> = gone.iter().chain(&lowered_counts).cloned().collect();
            bail!(
                "{} floor case(s) did not run and {} assertion count(s) fell ({}{}); \
                 say why with --floor-reason to lower the floor",
                gone.len(),
                lowered_counts.len(),
                what.iter().take(5).cloned().collect::<Vec<_>>().join(", "),
                if what.len() > 5 { ", ..." } else { "" }
            );
        };
        new.lowered.push(Lowered {
            reason: reason.to_string(),
            removed: gone,
            assertions: lowered_counts,
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

    /// `suite(name, ran)` that also skipped `external` for want of text
    /// outside the repository.
    fn suite_without_shared(name: &str, ran: &[&str], external: &[&str]) -> SuiteTotals {
        SuiteTotals {
            skipped: external.len(),
            external_skips: external.iter().map(|c| c.to_string()).collect(),
            ..suite(name, ran)
        }
    }

    fn names(suites: &[(&str, &[&str])]) -> BTreeMap<String, BTreeSet<String>> {
        suites
            .iter()
            .map(|(s, c)| (s.to_string(), c.iter().map(|c| c.to_string()).collect()))
            .collect()
    }

    fn floor(suites: &[(&str, &[&str])]) -> Floor {
        Floor {
            lowered: Vec::new(),
            external: BTreeMap::new(),
            suites: names(suites),
            assertions: BTreeMap::new(),
        }
    }

    /// A case that exists in one lane only (a `# debug-only` scenario) is
    /// on that lane's suite alone: the other lane never misses it, the
    /// update records it there only, and dropping it from that lane is
    /// missing as usual.
    #[test]
    fn a_case_of_one_lane_is_that_suites_only() {
        let run = [
            suite("vm", &["bind"]),
            suite("vm-debug", &["bind", "failslab"]),
        ];
        let f = update(&floor(&[]), &run, None).unwrap();
        assert_eq!(
            f.suites,
            names(&[("vm", &["bind"]), ("vm-debug", &["bind", "failslab"])])
        );
        assert!(missing(&f, &run).is_empty());
        assert_eq!(unlisted(&f, &run), 0);
        let without = [suite("vm", &["bind"]), suite("vm-debug", &["bind"])];
        assert_eq!(missing(&f, &without), ["vm-debug: failslab"]);
    }

    /// A floor whose `fwtable: seed` case may be skipped for want of the seed.
    fn floor_with_external() -> Floor {
        Floor {
            external: names(&[("fwtable", &["seed"])]),
            ..floor(&[("fwtable", &["seed", "shape"]), ("vm", &["bind"])])
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
                assertions: Vec::new(),
            }]
        );
    }

    #[test]
    fn a_listed_case_skipped_for_want_of_outside_text_is_not_missing() {
        let f = floor_with_external();
        let run = [
            suite_without_shared("fwtable", &["shape"], &["seed (223 rows)"]),
            suite("vm", &["bind"]),
        ];
        assert!(missing(&f, &run).is_empty());
        assert_eq!(excused(&f, &run), names(&[("fwtable", &["seed"])]));
        assert_eq!(unlisted(&f, &run), 0);
    }

    #[test]
    fn an_unlisted_case_skipped_for_want_of_outside_text_is_missing() {
        let f = floor_with_external();
        let run = [
            suite("fwtable", &["seed"]),
            suite_without_shared("vm", &[], &["bind"]),
        ];
        assert_eq!(missing(&f, &run), ["fwtable: shape", "vm: bind"]);
        assert!(excused(&f, &run).is_empty());
        // Listed for another suite is not listed for this one.
        let run = [
            suite_without_shared("fwtable", &["seed"], &["shape"]),
            suite("vm", &["bind"]),
        ];
        assert_eq!(missing(&f, &run), ["fwtable: shape"]);
    }

    #[test]
    fn a_listed_case_skipped_for_another_reason_is_missing() {
        let f = floor_with_external();
        // An ordinary skip is not in external_skips: only ran_names lack it.
        let run = [
            SuiteTotals {
                skipped: 1,
                ..suite("fwtable", &["shape"])
            },
            suite("vm", &["bind"]),
        ];
        assert_eq!(missing(&f, &run), ["fwtable: seed"]);
        assert!(update(&f, &run, None).is_err());
    }

    #[test]
    fn update_keeps_excused_cases_and_the_external_table() {
        let f = floor_with_external();
        let run = [
            suite_without_shared("fwtable", &["shape", "new"], &["seed (223 rows)"]),
            suite("vm", &["bind"]),
        ];
        let new = update(&f, &run, None).unwrap();
        assert_eq!(
            new.suites,
            names(&[("fwtable", &["new", "seed", "shape"]), ("vm", &["bind"])])
        );
        assert_eq!(new.external, f.external);
        assert!(new.lowered.is_empty());
        // A case the old floor did not list is not added by its skip.
        let f = Floor {
            external: names(&[("fwtable", &["seed", "other"])]),
            ..floor_with_external()
        };
        let run = [
            suite_without_shared("fwtable", &["shape"], &["seed", "other"]),
            suite("vm", &["bind"]),
        ];
        assert_eq!(update(&f, &run, None).unwrap().suites["fwtable"].len(), 2);
    }

    /// `suite(name, ..)` whose cases made the given numbers of assertions.
    fn counted(name: &str, cases: &[(&str, usize)]) -> SuiteTotals {
        let names: Vec<&str> = cases.iter().map(|(c, _)| *c).collect();
        SuiteTotals {
            assertions: cases.iter().map(|(_, n)| n).sum(),
            case_assertions: cases.iter().map(|(c, n)| (c.to_string(), *n)).collect(),
            ..suite(name, &names)
        }
    }

    /// A VM scenario cut to one `ok` keeps its name: the recorded count
    /// catches it. More assertions are fine; a case with no recorded count
    /// (new, or a lane never recorded) is not an error.
    #[test]
    fn a_scenario_with_fewer_assertions_than_recorded_fails() {
        let full = [counted("vm", &[("bind", 12), ("irq", 40)])];
        let f = update(&floor(&[]), &full, None).unwrap();
        assert_eq!(f.assertions["vm"]["bind"], 12);
        assert!(fewer_assertions(&f, &full).is_empty());
        let cut = [counted("vm", &[("bind", 3), ("irq", 41)])];
        assert!(missing(&f, &cut).is_empty(), "the names all ran");
        assert_eq!(
            fewer_assertions(&f, &cut),
            ["vm: bind: 3 assertions, at least 12 recorded"]
        );
        let unrecorded = [
            counted("vm", &[("bind", 12), ("irq", 40), ("new", 2)]),
            counted("vm-debug", &[("bind", 1)]),
        ];
        assert!(fewer_assertions(&f, &unrecorded).is_empty());
        // A trailing detail with a number is not part of the name here either.
        let detailed = [counted("vm", &[("bind (retried 1 time)", 2), ("irq", 40)])];
        assert_eq!(fewer_assertions(&f, &detailed).len(), 1);
    }

    /// Only the VM lanes keep counts: elsewhere a case is one assertion
    /// (or a fixed set of them) and its name is the guard.
    #[test]
    fn only_the_vm_lanes_keep_assertion_counts() {
        assert!(guards_assertions("vm") && guards_assertions("vm-debug"));
        assert!(guards_assertions("vm-distro"));
        assert!(!guards_assertions("kunit") && !guards_assertions("vmx"));
        let run = [counted("kunit", &[("a", 3)]), counted("vm", &[("bind", 5)])];
        let f = update(&floor(&[]), &run, None).unwrap();
        assert_eq!(f.assertions.keys().collect::<Vec<_>>(), ["vm"]);
    }

    /// `--update-floor` raises a count silently, lowers one only with a
    /// reason, logged with the old and new count; a dropped case takes its
    /// count with it; a lane that did not run keeps its counts.
    #[test]
    fn update_lowers_a_count_only_with_a_logged_reason() {
        let run = [
            counted("vm", &[("bind", 12), ("irq", 40)]),
            counted("vm-debug", &[("bind", 13)]),
        ];
        let f = update(&floor(&[]), &run, None).unwrap();
        let grown = update(
            &f,
            &[
                counted("vm", &[("bind", 14), ("irq", 40)]),
                counted("vm-debug", &[("bind", 13)]),
            ],
            None,
        )
        .unwrap();
        assert_eq!(grown.assertions["vm"]["bind"], 14);
        assert!(grown.lowered.is_empty());

        let cut = [
            counted("vm", &[("bind", 1), ("irq", 40)]),
            counted("vm-debug", &[("bind", 13)]),
        ];
        let e = update(&f, &cut, None).unwrap_err().to_string();
        assert!(e.contains("vm: bind: 12 -> 1 assertions"), "{e}");
        assert!(update(&f, &cut, Some(" ")).is_err());
        let lowered = update(&f, &cut, Some("bind split in two")).unwrap();
        assert_eq!(lowered.assertions["vm"]["bind"], 1);
        assert_eq!(
            lowered.lowered,
            [Lowered {
                reason: "bind split in two".into(),
                removed: Vec::new(),
                assertions: vec!["vm: bind: 12 -> 1 assertions".into()],
            }]
        );
        assert!(fewer_assertions(&lowered, &cut).is_empty());

        let dropped = update(
            &f,
            &[
                counted("vm", &[("bind", 12)]),
                counted("vm-debug", &[("bind", 13)]),
            ],
            Some("irq merged into bind"),
        )
        .unwrap();
        assert!(!dropped.assertions["vm"].contains_key("irq"));
        // The plain lane alone: the debug lane's names and counts stay
        // listed, so its names are missing (a full run needs both lanes).
        assert!(update(&f, &[counted("vm", &[("bind", 12), ("irq", 40)])], None).is_err());
    }

    #[test]
    fn the_checked_in_floor_round_trips() {
        let text = include_str!("../../check-floor.toml");
        let f = parse(text).unwrap();
        assert_eq!(render(&f).unwrap(), text);
        assert!(text.starts_with(HEADER));
        // Every case that may be excused is a floor case of its suite.
        for (suite, cases) in &f.external {
            let listed = &f.suites[suite];
            assert!(cases.is_subset(listed), "{suite}: {cases:?}");
        }
        // Every counted case is a floor case of a suite that keeps counts.
        for (suite, counts) in &f.assertions {
            assert!(guards_assertions(suite), "{suite}");
            let listed = &f.suites[suite];
            assert!(counts.keys().all(|c| listed.contains(c)), "{suite}");
        }
    }

    #[test]
    fn render_round_trips_and_rejects_unknown_keys() {
        let mut f = floor(&[("vm", &["bind: a \"quoted\" name"]), ("tools", &[])]);
        f.lowered.push(Lowered {
            reason: "r".into(),
            removed: vec!["vm: x".into()],
            assertions: Vec::new(),
        });
        assert_eq!(parse(&render(&f).unwrap()).unwrap(), f);
        assert!(!render(&f).unwrap().contains("[external]"));
        f.external = names(&[("vm", &["bind: a \"quoted\" name"])]);
        let text = render(&f).unwrap();
        assert!(text.contains("\n[external]\nvm = ["), "{text}");
        assert_eq!(parse(&text).unwrap(), f);
        assert!(parse("[external]\nvm = 3\n[suites]\n").is_err());
        assert!(parse("total = 3\n[suites]\n").is_err());
        assert!(parse("[suites]\nvm = 3\n").is_err());
        f.assertions = [(
            "vm".to_string(),
            [("bind: a \"quoted\" name".to_string(), 7)].into(),
        )]
        .into();
        let text = render(&f).unwrap();
        assert!(text.contains("[assertions.vm]"), "{text}");
        assert_eq!(parse(&text).unwrap(), f);
    }
}
