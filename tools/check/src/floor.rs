//! The test-count floor, `tools/check-floor`.
//!
//! Tests that silently stop running look like passing tests. The floor file
//! records the fewest tests each suite (and the whole run) may run:
//!
//! ```text
//! # comment
//! total 180
//! suite tools 95
//! suite vm 30
//! ```
//!
//! A full run fails one extra test if a suite listed there is missing or ran
//! fewer tests (passed + failed; skips do not count), or the total is below
//! `total`. `--update-floor` rewrites the file from the current run.

use crate::report::SuiteTotals;
use anyhow::{bail, Context as _, Result};

/// Minimum test counts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Floor {
    /// Minimum over all suites.
    pub total: usize,
    /// Minimum per suite, in file order.
    pub suites: Vec<(String, usize)>,
}

/// Parses the floor file; every line must be a comment, blank, `total N` or `suite NAME N`.
pub fn parse(text: &str) -> Result<Floor> {
    let mut floor = Floor::default();
    let mut seen_total = false;
    for (i, line) in text.lines().enumerate() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let n = i + 1;
        match words.as_slice() {
            [] => {}
            [w, ..] if w.starts_with('#') => {}
            ["total", count] => {
                floor.total = number(count).with_context(|| format!("line {n}"))?;
                seen_total = true;
            }
            ["suite", name, count] => {
                let count = number(count).with_context(|| format!("line {n}"))?;
                if floor.suites.iter().any(|(s, _)| s == name) {
                    bail!("line {n}: suite {name} listed twice");
                }
                floor.suites.push((name.to_string(), count));
            }
            _ => bail!("line {n}: expected `total N` or `suite NAME N`, found {line:?}"),
        }
    }
    if !seen_total {
        bail!("no `total N` line");
    }
    Ok(floor)
}

fn number(word: &str) -> Result<usize> {
    word.parse()
        .with_context(|| format!("{word:?} is not a test count"))
}

/// The floor a run sets: what each suite ran.
pub fn from_run(suites: &[SuiteTotals]) -> Floor {
    Floor {
        total: suites.iter().map(SuiteTotals::ran).sum(),
        suites: suites.iter().map(|s| (s.name.clone(), s.ran())).collect(),
    }
}

/// The file text for `floor`.
pub fn render(floor: &Floor) -> String {
    let mut text = String::from(
        "# Fewest tests `make check` may run, per suite and in total (passed + failed).\n\
         # Checked by tools/check; rewrite with `xehpg-check --update-floor` when tests\n\
         # are added on purpose, never to hide tests that stopped running.\n",
    );
    text.push_str(&format!("total {}\n", floor.total));
    for (name, count) in &floor.suites {
        text.push_str(&format!("suite {name} {count}\n"));
    }
    text
}

/// Every way `run` falls short of `floor`; empty if it does not.
pub fn shortfalls(floor: &Floor, run: &[SuiteTotals]) -> Vec<String> {
    let mut problems = Vec::new();
    for (name, min) in &floor.suites {
        match run.iter().find(|s| &s.name == name) {
            None => problems.push(format!("suite {name} did not run (floor {min})")),
            Some(s) if s.ran() < *min => {
                problems.push(format!("suite {name} ran {} tests, floor {min}", s.ran()))
            }
            Some(_) => {}
        }
    }
    let total: usize = run.iter().map(SuiteTotals::ran).sum();
    if total < floor.total {
        problems.push(format!("{total} tests ran in total, floor {}", floor.total));
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    fn suite(name: &str, passed: usize, failed: usize, skipped: usize) -> SuiteTotals {
        SuiteTotals {
            name: name.into(),
            passed,
            failed,
            skipped,
            ..SuiteTotals::default()
        }
    }

    #[test]
    fn parses_comments_total_and_suites() {
        let f = parse("# hi\n\ntotal 10\nsuite tools 4\n  suite vm 6  \n").unwrap();
        assert_eq!(f.total, 10);
        assert_eq!(f.suites, vec![("tools".into(), 4), ("vm".into(), 6)]);
    }

    #[test]
    fn rejects_bad_lines() {
        assert!(parse("suite tools 4\n").is_err(), "no total");
        assert!(parse("total x\n").is_err());
        assert!(parse("total 1\nsuite a\n").is_err());
        assert!(parse("total 1\nsuite a 1\nsuite a 2\n").is_err());
        assert!(parse("total 1\nminimum 3\n").is_err());
    }

    #[test]
    fn render_round_trips() {
        let run = [suite("tools", 5, 1, 3), suite("style", 4, 0, 1)];
        let f = from_run(&run);
        assert_eq!(f.total, 10, "skips are not counted");
        assert_eq!(parse(&render(&f)).unwrap(), f);
    }

    #[test]
    fn reports_missing_and_short_suites_and_total() {
        let floor = parse("total 20\nsuite tools 5\nsuite vm 3\nsuite abi 1\n").unwrap();
        let run = [suite("tools", 4, 0, 9), suite("abi", 0, 1, 0)];
        assert_eq!(
            shortfalls(&floor, &run),
            vec![
                "suite tools ran 4 tests, floor 5".to_string(),
                "suite vm did not run (floor 3)".to_string(),
                "5 tests ran in total, floor 20".to_string(),
            ]
        );
        let ok = [
            suite("tools", 5, 0, 0),
            suite("vm", 14, 0, 0),
            suite("abi", 1, 0, 0),
        ];
        assert!(shortfalls(&floor, &ok).is_empty());
    }
}
