//! A run's progress and its results file.
//!
//! At each suite's start the reporter prints `[n/N]`: n the cases judged so
//! far, N the cases the committed floor lists for the suites this run
//! selected (a suite the floor does not know counts 0; new cases can take n
//! past N), and the time left by the recorded suite times
//! (`tools/check-times.toml`) of this suite and the ones after it. At the
//! end the run writes every case's verdict as JSON (`build/check-results.json`,
//! [`results`]) beside the text summary.

use crate::floor::Floor;
use crate::report::SuiteTotals;
use crate::times::Times;
use serde_json::{json, Value};
use std::time::Duration;

/// The results file, relative to the repository.
pub const RESULTS_FILE: &str = "build/check-results.json";

/// What a run expects, suite by suite in run order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    /// Name, cases the floor lists, recorded seconds.
    suites: Vec<(String, usize, u64)>,
}

impl Plan {
    /// The plan of `names` (run order) from the floor's case lists and the
    /// recorded times.
    pub fn new(names: &[&str], floor: &Floor, times: &Times) -> Self {
        Self {
            suites: names
                .iter()
                .map(|n| {
                    let cases = floor.suites.get(*n).map_or(0, |c| c.len());
                    (n.to_string(), cases, times.get(*n).copied().unwrap_or(0))
                })
                .collect(),
        }
    }

    /// Cases the floor lists for the whole run.
    pub fn total(&self) -> usize {
        self.suites.iter().map(|s| s.1).sum()
    }

    /// The progress line printed as suite `name` starts, with `done` cases
    /// judged so far.
    pub fn line(&self, name: &str, done: usize) -> String {
        let left: u64 = self
            .suites
            .iter()
            .skip_while(|s| s.0 != name)
            .map(|s| s.2)
            .sum();
        format!(
            "[{done}/{}] about {} min left by the recorded suite times",
            self.total(),
            left.div_ceil(60)
        )
    }
}

/// The JSON of a run: per suite its counts, time and cases (name, `pass`,
/// `fail` or `skip`, the reason of a failure or skip), and the totals.
pub fn results(suites: &[SuiteTotals], wall: Duration) -> Value {
    let (passed, failed) = suites
        .iter()
        .fold((0, 0), |(p, f), s| (p + s.passed, f + s.failed));
    json!({
        "wall_seconds": wall.as_secs_f64(),
        "passed": passed,
        "failed": failed,
        "suites": suites.iter().map(|s| json!({
            "name": s.name,
            "passed": s.passed,
            "failed": s.failed,
            "skipped": s.skipped,
            "assertions": s.assertions,
            "seconds": s.elapsed.as_secs_f64(),
            "cases": s.verdicts.iter().map(|(name, status, reason)| json!({
                "name": name,
                "status": status,
                "reason": reason,
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn floor() -> Floor {
        let mut f = Floor::default();
        let set = |n: &[&str]| n.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
        f.suites.insert("tools".into(), set(&["a", "b", "c"]));
        f.suites.insert("vm".into(), set(&["bind", "ct"]));
        f
    }

    #[test]
    fn the_plan_counts_the_floors_cases_and_the_time_left() {
        let times: Times = [("tools".to_string(), 90), ("vm".to_string(), 300)]
            .into_iter()
            .collect();
        let p = Plan::new(&["tools", "vm", "new-suite"], &floor(), &times);
        assert_eq!(p.total(), 5);
        assert_eq!(
            p.line("tools", 0),
            "[0/5] about 7 min left by the recorded suite times"
        );
        assert_eq!(
            p.line("vm", 3),
            "[3/5] about 5 min left by the recorded suite times"
        );
        assert_eq!(
            p.line("new-suite", 5),
            "[5/5] about 0 min left by the recorded suite times"
        );
    }

    #[test]
    fn results_carry_every_verdict() {
        let s = SuiteTotals {
            name: "vm".into(),
            passed: 1,
            failed: 1,
            verdicts: vec![
                ("bind".into(), "pass", None),
                ("ct".into(), "fail", Some("no reply".into())),
            ],
            elapsed: Duration::from_secs(2),
            ..SuiteTotals::default()
        };
        let v = results(&[s], Duration::from_secs(3));
        assert_eq!(v["passed"], 1);
        assert_eq!(v["failed"], 1);
        assert_eq!(v["suites"][0]["cases"][1]["status"], "fail");
        assert_eq!(v["suites"][0]["cases"][1]["reason"], "no reply");
        assert_eq!(v["suites"][0]["cases"][0]["reason"], Value::Null);
        assert_eq!(v["suites"][0]["seconds"], 2.0);
    }
}
