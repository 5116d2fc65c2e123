//! Reads the JSON `kunit.py parse --json FILE` writes.
//!
//! The JSON (tools/testing/kunit/kunit_json.py) is a tree of groups
//! ([`Group`]) with status `PASS`, `FAIL`, `SKIP` or `ERROR` (crashed or
//! missing) per test case. The root is "KUnit Test Group"; its sub-groups
//! are the suites; a parameterised test is a nested group.
//!
//! Each test case becomes one [`Case`] named `suite.test`. A group whose own
//! counts report a failure, crash or parse error that none of its cases shows
//! (a suite whose init failed, KTAP that kunit.py could not follow) becomes
//! one more failed case, so no failure kunit.py saw is lost.

use crate::report::Case;
use anyhow::{Context as _, Result};
use serde::Deserialize;

/// A group of tests: the root, a suite, or a parameterised test. Fields
/// kunit.py adds for KernelCI (arch, lab_name, ...) are not read.
#[derive(Debug, Deserialize)]
pub struct Group {
    pub name: String,
    pub sub_groups: Vec<Group>,
    pub test_cases: Vec<TestCase>,
    pub misc: Counts,
}

/// One test case's result.
#[derive(Debug, Deserialize)]
pub struct TestCase {
    pub name: String,
    pub status: String,
}

/// A group's counts, its subtests included.
#[derive(Debug, Deserialize)]
pub struct Counts {
    pub failed: u64,
    pub crashed: u64,
    pub errors: u64,
}

/// Parses kunit.py's JSON.
///
/// # Errors
///
/// Not the JSON kunit.py writes.
pub fn parse(json: &str) -> Result<Group> {
    serde_json::from_str(json).context("kunit.py JSON does not parse")
}

/// Parses the JSON into cases; also returns the names of the suites seen.
pub fn cases(json: &str) -> Result<(Vec<Case>, Vec<String>)> {
    let root = parse(json)?;
    let mut cases = Vec::new();
    let mut suites = Vec::new();
    for g in &root.sub_groups {
        suites.push(g.name.clone());
        walk(g, &g.name, &mut cases);
    }
    let failures = cases.iter().filter(|c| c.is_failure()).count();
    if let Some(c) = unexplained(&root, "kunit.py", failures) {
        cases.push(c);
    }
    Ok((cases, suites))
}

/// Adds the cases of group `g` (called `path`) and its sub-groups.
fn walk(g: &Group, path: &str, out: &mut Vec<Case>) {
    let before = out.len();
    for (i, t) in g.test_cases.iter().enumerate() {
        out.push(test_case(path, i, t));
    }
    for sub in &g.sub_groups {
        walk(sub, &format!("{path}.{}", sub.name), out);
    }
    let failures = out[before..].iter().filter(|c| c.is_failure()).count();
    if let Some(c) = unexplained(g, path, failures) {
        out.push(c);
    }
}

fn test_case(path: &str, index: usize, t: &TestCase) -> Case {
    let name = match t.name.as_str() {
        "" => format!("{path}.<test {} (no name)>", index + 1),
        n => format!("{path}.{n}"),
    };
    match t.status.as_str() {
        "PASS" => Case::pass(name),
        "SKIP" => Case::skip(name, "skipped by KUnit"),
        "ERROR" => Case::fail(name, "crashed or missing (no result line)"),
        other => Case::fail(name, format!("status {other}")),
    }
}

/// A failed case if `g`'s counts report trouble beyond `failures` failed cases.
fn unexplained(g: &Group, path: &str, failures: usize) -> Option<Case> {
    let Counts {
        failed,
        crashed,
        errors,
    } = g.misc;
    if failures > 0 || failed + crashed + errors == 0 {
        return None;
    }
    Some(Case::fail(
        format!("{path}: suite result"),
        format!("kunit.py counts {failed} failed, {crashed} crashed, {errors} errors that no test case shows"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Status;

    fn group(name: &str, cases: &str, subs: &str, misc: (u64, u64, u64)) -> String {
        format!(
            r#"{{"name": "{name}", "sub_groups": [{subs}], "test_cases": [{cases}],
                "misc": {{"tests": 0, "passed": 0, "failed": {}, "crashed": {}, "skipped": 0, "errors": {}}}}}"#,
            misc.0, misc.1, misc.2
        )
    }

    fn case(name: &str, status: &str) -> String {
        format!(r#"{{"name": "{name}", "status": "{status}"}}"#)
    }

    #[test]
    fn one_case_per_test_with_suite_prefix() {
        let suite = group(
            "xehpg_regs",
            &[
                case("a", "PASS"),
                case("b", "FAIL"),
                case("c", "SKIP"),
                case("", "ERROR"),
            ]
            .join(","),
            "",
            (1, 1, 1),
        );
        let root = group("KUnit Test Group", "", &suite, (1, 1, 1));
        let (cases, suites) = cases(&root).unwrap();
        assert_eq!(suites, ["xehpg_regs"]);
        assert_eq!(cases.len(), 4, "{cases:?}");
        assert_eq!(cases[0], Case::pass("xehpg_regs.a"));
        assert_eq!(cases[1].status, Status::Fail("status FAIL".into()));
        assert_eq!(cases[2].status, Status::Skip("skipped by KUnit".into()));
        assert_eq!(cases[3].name, "xehpg_regs.<test 4 (no name)>");
        assert!(cases[3].is_failure());
    }

    #[test]
    fn parameterised_tests_nest() {
        let param = group(
            "ranges",
            &[case("0", "PASS"), case("1", "PASS")].join(","),
            "",
            (0, 0, 0),
        );
        let suite = group("xehpg_ggtt", &case("plain", "PASS"), &param, (0, 0, 0));
        let (cases, _) = cases(&group("KUnit Test Group", "", &suite, (0, 0, 0))).unwrap();
        let names: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "xehpg_ggtt.plain",
                "xehpg_ggtt.ranges.0",
                "xehpg_ggtt.ranges.1"
            ]
        );
    }

    #[test]
    fn failures_without_a_failed_case_are_kept() {
        // kunit.py's JSON drops a suite's own `not ok` when its cases passed.
        let suite = group("xehpg_init", &case("a", "PASS"), "", (1, 0, 0));
        let (cases, _) = cases(&group("KUnit Test Group", "", &suite, (1, 0, 0))).unwrap();
        assert_eq!(cases.len(), 2);
        assert_eq!(cases[1].name, "xehpg_init: suite result");
        assert!(cases[1].is_failure());
    }

    #[test]
    fn no_ktap_at_all_is_a_failure() {
        let (cases, suites) = cases(&group("KUnit Test Group", "", "", (0, 0, 1))).unwrap();
        assert!(suites.is_empty());
        assert_eq!(cases.len(), 1);
        assert_eq!(cases[0].name, "kunit.py: suite result");
    }

    #[test]
    fn invalid_json_is_an_error() {
        assert!(cases("Traceback (most recent call last):").is_err());
    }
}
