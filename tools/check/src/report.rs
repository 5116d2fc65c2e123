//! Test verdicts and how they are printed.
//!
//! Every suite hands its results to a [`Reporter`] one [`Case`] at a time, so a
//! long suite shows progress. The printed format is the contract with CI and
//! with people reading its logs:
//!
//! ```text
//! === regs: driver and mock agree on shared registers ===
//! ok - GU_CNTL
//! FAIL - PCODE_DATA0: offset 0x138128 in the driver, 0x138124 in the mock
//!     | detail or log tail line
//! skip - name: reason
//! note: free-form remark that is not a test
//! --- regs: 1 passed, 1 failed, 1 skipped (0.1 s)
//! ```
//!
//! and, after all suites, a table, the run's wall time, a warning for each
//! suite that took more than twice its recorded time ([`crate::times`]), the
//! list of failures and the last line `N passed, N failed`. Skipped tests
//! count as neither.
//!
//! A test that cannot run because text outside the repository is absent (the
//! seeds in `../shared/`, which a public clone does not have) is skipped with
//! [`Case::skip_external`]: printed and counted like any skip, but recorded
//! apart in [`SuiteTotals::external_skips`], so the floor ([`crate::floor`])
//! can excuse exactly those cases and no other skip.
//!
//! One test is one [`Case`]: one behaviour checked, however many assertions it
//! makes (a VM scenario is one case; its TAP lines are its assertions). The
//! summary shows the assertions beside the cases, so neither number can pass
//! for the other.

use crate::times::{self, Times};
use std::io::Write;
use std::path::Path;
use std::time::Duration;

/// How many lines of a log a failure shows.
pub const TAIL_LINES: usize = 25;

/// The verdict of one test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// The test passed.
    Pass,
    /// The test failed, for the given one-line reason.
    Fail(String),
    /// The test did not run, for the given reason; counts as neither.
    Skip(String),
    /// The test did not run because text outside the repository (the seeds
    /// in `../shared/`) is absent, for the given reason; a skip like
    /// [`Status::Skip`], which the floor may excuse ([`crate::floor`]).
    SkipExternal(String),
}

impl Status {
    /// The reason of a skip of either kind; `None` for a test that ran.
    pub fn skip_reason(&self) -> Option<&str> {
        match self {
            Self::Skip(r) | Self::SkipExternal(r) => Some(r),
            Self::Pass | Self::Fail(_) => None,
        }
    }
}

/// One named test and its verdict, with optional lines shown under a failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Case {
    /// Name, unique within its suite.
    pub name: String,
    /// Verdict.
    pub status: Status,
    /// Context printed under a failure (log tail, diff, diagnostics).
    pub details: Vec<String>,
    /// Assertions the case made (at least 1 for a case that ran).
    pub assertions: usize,
}

impl Case {
    /// A passed test.
    pub fn pass(name: impl Into<String>) -> Self {
        Self::new(name, Status::Pass)
    }

    /// A failed test with a one-line reason.
    pub fn fail(name: impl Into<String>, reason: impl Into<String>) -> Self {
        Self::new(name, Status::Fail(reason.into()))
    }

    /// A skipped test with a reason.
    pub fn skip(name: impl Into<String>, reason: impl Into<String>) -> Self {
        Self::new(name, Status::Skip(reason.into()))
    }

    /// A test skipped because text outside the repository is absent (a
    /// public clone has no `../shared/`). Printed and counted as a skip,
    /// never as a pass; the floor excuses it only where
    /// `tools/check-floor.toml` lists it under `[external]`.
    pub fn skip_external(name: impl Into<String>, reason: impl Into<String>) -> Self {
        Self::new(name, Status::SkipExternal(reason.into()))
    }

    /// Passes if `result` is `Ok`, fails with the error chain otherwise.
    pub fn from_result(name: impl Into<String>, result: anyhow::Result<()>) -> Self {
        match result {
            Ok(()) => Self::pass(name),
            Err(e) => Self::fail(name, format!("{e:#}")),
        }
    }

    fn new(name: impl Into<String>, status: Status) -> Self {
        Self {
            name: name.into(),
            status,
            details: Vec::new(),
            assertions: 1,
        }
    }

    /// One case made of the assertions `parts`: it passes when every part
    /// passed, fails with the failed parts' names, reasons and details
    /// otherwise. A part that skipped is neither, so a case whose parts all
    /// skipped is a skip: an external one ([`Case::skip_external`]) only when
    /// every part was, since any other skip must not be excused.
    pub fn combine(name: impl Into<String>, parts: Vec<Case>) -> Self {
        let failed: Vec<&Case> = parts.iter().filter(|p| p.is_failure()).collect();
        let ran = parts.iter().filter(|p| p.ran()).count();
        let status = if !failed.is_empty() {
            let reasons: Vec<String> = failed
                .iter()
                .map(|p| match &p.status {
                    Status::Fail(r) => format!("{}: {}", p.name, one_line(r)),
                    _ => unreachable!("filtered on failures"),
                })
                .collect();
            Status::Fail(format!(
                "{} of {} assertions failed: {}",
                failed.len(),
                ran,
                reasons.join("; ")
            ))
        } else if ran == 0 {
            let reason = parts
                .first()
                .and_then(|p| p.status.skip_reason())
                .unwrap_or("no assertions")
                .to_string();
            let external = !parts.is_empty()
                && parts
                    .iter()
                    .all(|p| matches!(p.status, Status::SkipExternal(_)));
            if external {
                Status::SkipExternal(reason)
            } else {
                Status::Skip(reason)
            }
        } else {
            Status::Pass
        };
        let details = failed
            .iter()
            .flat_map(|p| std::iter::once(format!("[{}]", p.name)).chain(p.details.iter().cloned()))
            .collect();
        Self {
            name: name.into(),
            status,
            details,
            assertions: ran,
        }
    }

    /// Adds lines to show under the verdict if the test failed.
    pub fn with_details(mut self, lines: impl IntoIterator<Item = String>) -> Self {
        self.details.extend(lines);
        self
    }

    /// Adds the tail of `log` (and its path) to show if the test failed.
    pub fn with_log_tail(self, log: &Path) -> Self {
        if !self.is_failure() {
            return self;
        }
        let mut lines = tail(log, TAIL_LINES);
        lines.push(format!("(log: {})", log.display()));
        self.with_details(lines)
    }

    /// Whether the verdict is a failure.
    pub fn is_failure(&self) -> bool {
        matches!(self.status, Status::Fail(_))
    }

    /// Whether the test ran (passed or failed): not a skip of either kind.
    pub fn ran(&self) -> bool {
        self.status.skip_reason().is_none()
    }
}

/// The last `n` lines of a text file; an unreadable file yields one line saying so.
pub fn tail(path: &Path, n: usize) -> Vec<String> {
    match std::fs::read(path) {
        Ok(bytes) => {
            let text = String::from_utf8_lossy(&bytes);
            let lines: Vec<&str> = text.lines().collect();
            let start = lines.len().saturating_sub(n);
            lines[start..]
                .iter()
                .map(|l| l.trim_end_matches('\r').to_string())
                .collect()
        }
        Err(e) => vec![format!("(cannot read {}: {e})", path.display())],
    }
}

/// Counts of one suite.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SuiteTotals {
    /// Suite name.
    pub name: String,
    /// Passed tests.
    pub passed: usize,
    /// Failed tests.
    pub failed: usize,
    /// Skipped tests.
    pub skipped: usize,
    /// Assertions made by the cases that ran.
    pub assertions: usize,
    /// Names of the cases that ran (passed or failed), in order.
    pub ran_names: Vec<String>,
    /// Every case's verdict in order: name, `pass`/`fail`/`skip`, the reason of a failure
    /// or skip (the results file, [`crate::progress::results`]).
    pub verdicts: Vec<(String, &'static str, Option<String>)>,
    /// Assertions of each case that ran, by name: what the floor keeps for
    /// the suites whose cases are made of many ([`crate::floor`]).
    pub case_assertions: std::collections::BTreeMap<String, usize>,
    /// Names of the cases skipped because text outside the repository is
    /// absent ([`Case::skip_external`]), in order; counted in `skipped` too.
    pub external_skips: Vec<String>,
    /// Wall time of the suite.
    pub elapsed: Duration,
}

/// Prints verdicts as they come and keeps the counts.
pub struct Reporter {
    out: Box<dyn Write>,
    suites: Vec<SuiteTotals>,
    failures: Vec<String>,
    /// The run's plan, for the `[n/N]` line at each suite's start.
    plan: Option<crate::progress::Plan>,
}

impl Reporter {
    /// A reporter printing to `out`.
    pub fn new(out: Box<dyn Write>) -> Self {
        Self {
            out,
            suites: Vec::new(),
            failures: Vec::new(),
            plan: None,
        }
    }

    /// Prints `plan`'s progress line as each suite starts from now on.
    pub fn set_plan(&mut self, plan: crate::progress::Plan) {
        self.plan = Some(plan);
    }

    /// Starts a suite: prints its header.
    pub fn begin(&mut self, name: &str, title: &str) {
        let done: usize = self
            .suites
            .iter()
            .map(|s| s.passed + s.failed + s.skipped)
            .sum();
        self.suites.push(SuiteTotals {
            name: name.to_string(),
            ..SuiteTotals::default()
        });
        self.line(&format!("\n=== {name}: {title} ==="));
        if let Some(line) = self.plan.as_ref().map(|p| p.line(name, done)) {
            self.line(&line);
        }
    }

    /// Prints and counts one verdict in the current suite.
    pub fn case(&mut self, case: Case) {
        let suite = self
            .suites
            .last()
            .map(|s| s.name.clone())
            .unwrap_or_default();
        let text = match &case.status {
            Status::Pass => format!("ok - {}", case.name),
            Status::Fail(reason) => format!("FAIL - {}: {}", case.name, one_line(reason)),
            Status::Skip(reason) | Status::SkipExternal(reason) => {
                format!("skip - {}: {}", case.name, one_line(reason))
            }
        };
        self.line(&text);
        if let Status::Fail(reason) = &case.status {
            // A first detail that only repeats the reason adds nothing.
            let skip = usize::from(case.details.first() == Some(reason));
            for d in &case.details[skip..] {
                self.line(&format!("    | {d}"));
            }
            self.failures.push(format!("{suite}: {}", case.name));
        }
        if let Some(s) = self.suites.last_mut() {
            let (status, reason) = match &case.status {
                Status::Pass => ("pass", None),
                Status::Fail(r) => ("fail", Some(r.clone())),
                Status::Skip(r) | Status::SkipExternal(r) => ("skip", Some(r.clone())),
            };
            s.verdicts.push((case.name.clone(), status, reason));
            match &case.status {
                Status::Pass => s.passed += 1,
                Status::Fail(_) => s.failed += 1,
                Status::Skip(_) => s.skipped += 1,
                Status::SkipExternal(_) => {
                    s.skipped += 1;
                    s.external_skips.push(case.name.clone());
                }
            }
            if case.ran() {
                s.assertions += case.assertions;
                s.case_assertions.insert(case.name.clone(), case.assertions);
                s.ran_names.push(case.name);
            }
        }
    }

    /// Prints a remark that is not a test.
    pub fn note(&mut self, text: &str) {
        self.line(&format!("note: {text}"));
    }

    /// Ends the current suite: prints its counts and time.
    pub fn end(&mut self, elapsed: Duration) {
        let Some(s) = self.suites.last_mut() else {
            return;
        };
        s.elapsed = elapsed;
        let text = format!(
            "--- {}: {} passed, {} failed, {} skipped; {} assertions ({:.1} s)",
            s.name,
            s.passed,
            s.failed,
            s.skipped,
            s.assertions,
            elapsed.as_secs_f64()
        );
        self.line(&text);
    }

    /// Counts of every suite so far.
    pub fn suites(&self) -> &[SuiteTotals] {
        &self.suites
    }

    /// Total (passed, failed) over all suites.
    pub fn totals(&self) -> (usize, usize) {
        self.suites
            .iter()
            .fold((0, 0), |(p, f), s| (p + s.passed, f + s.failed))
    }

    /// Prints the per-suite table, the run's wall time `wall`, a warning for
    /// each suite that took more than twice its time in `recorded`
    /// ([`times::warnings`]), the failures and the final `N passed, N failed`
    /// line.
    pub fn summary(&mut self, wall: Duration, recorded: &Times) {
        self.line("\n=== summary ===");
        let rows: Vec<String> = self
            .suites
            .iter()
            .map(|s| {
                format!(
                    "{:<8} {:>5} passed {:>4} failed {:>4} skipped {:>6} assertions {:>8.1} s",
                    s.name,
                    s.passed,
                    s.failed,
                    s.skipped,
                    s.assertions,
                    s.elapsed.as_secs_f64()
                )
            })
            .collect();
        for r in rows {
            self.line(&r);
        }
        let secs = wall.as_secs();
        self.line(&format!(
            "total wall time {:.1} s ({} min {:02} s)",
            wall.as_secs_f64(),
            secs / 60,
            secs % 60
        ));
        for w in times::warnings(recorded, &self.suites) {
            self.line(&w);
        }
        if !self.failures.is_empty() {
            self.line("failures:");
            for f in self.failures.clone() {
                self.line(&format!("  {f}"));
            }
        }
        let (passed, failed) = self.totals();
        self.line(&format!("{passed} passed, {failed} failed"));
    }

    fn line(&mut self, text: &str) {
        // A closed stdout (e.g. `| head`) must not abort the run; the exit
        // status still reports the verdict.
        let _ = writeln!(self.out, "{text}");
        let _ = self.out.flush();
    }
}

/// Keeps a reason on its verdict line: newlines become ` / `.
fn one_line(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" / ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    /// A `Write` whose bytes the test can read back.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn printed(buf: &Shared) -> String {
        String::from_utf8(buf.0.lock().unwrap().clone()).unwrap()
    }

    #[test]
    fn prints_verdicts_counts_and_final_line() {
        let buf = Shared::default();
        let mut r = Reporter::new(Box::new(buf.clone()));
        r.begin("regs", "registers");
        r.case(Case::pass("A"));
        r.case(Case::fail("B", "bad\noffset").with_details(vec!["why".into()]));
        r.case(Case::fail("D", "same").with_details(vec!["same".into()]));
        r.case(Case::skip("C", "later"));
        r.end(Duration::from_millis(1500));
        r.summary(Duration::from_millis(61_250), &Times::new());
        let out = printed(&buf);
        assert!(out.contains(
            "=== regs: registers ===\nok - A\nFAIL - B: bad / offset\n    | why\nFAIL - D: same\nskip - C: later\n"
        ));
        assert!(out.contains("--- regs: 1 passed, 2 failed, 1 skipped; 3 assertions (1.5 s)"));
        assert_eq!(
            r.suites()[0].ran_names,
            ["A", "B", "D"],
            "a skip did not run"
        );
        assert!(out.contains("failures:\n  regs: B\n  regs: D\n"));
        assert!(out.contains("\ntotal wall time 61.2 s (1 min 01 s)\n"));
        assert!(!out.contains("warning"));
        assert!(out.ends_with("\n1 passed, 2 failed\n"));
    }

    #[test]
    fn summary_warns_about_slow_suites_before_the_final_line() {
        let buf = Shared::default();
        let mut r = Reporter::new(Box::new(buf.clone()));
        for (name, secs) in [("abi", 11), ("regs", 9), ("new", 500)] {
            r.begin(name, "t");
            r.case(Case::pass("a"));
            r.end(Duration::from_secs(secs));
        }
        let recorded: Times = [("abi".to_string(), 5), ("regs".to_string(), 5)].into();
        r.summary(Duration::from_secs(520), &recorded);
        let out = printed(&buf);
        assert!(
            out.ends_with(
                " 500.0 s\n\
                 total wall time 520.0 s (8 min 40 s)\n\
                 warning: suite abi took 11.0 s, more than twice its recorded 5 s\n\
                 3 passed, 0 failed\n"
            ),
            "{out}"
        );
    }

    #[test]
    fn an_external_skip_is_a_skip_recorded_apart() {
        let buf = Shared::default();
        let mut r = Reporter::new(Box::new(buf.clone()));
        r.begin("fwtable", "tables");
        r.case(Case::skip_external("seed (223 rows)", "no ../shared"));
        r.case(Case::skip("other", "why"));
        r.case(Case::pass("p"));
        let s = &r.suites()[0];
        assert_eq!((s.passed, s.failed, s.skipped), (1, 0, 2));
        assert_eq!(s.external_skips, ["seed (223 rows)"]);
        assert_eq!(s.ran_names, ["p"]);
        assert_eq!(s.assertions, 1);
        assert!(printed(&buf).contains("skip - seed (223 rows): no ../shared\nskip - other: why\n"));
        assert!(!Case::skip_external("x", "y").ran());
        assert!(!Case::skip_external("x", "y").is_failure());
    }

    #[test]
    fn assertions_of_cases_that_ran_are_summed() {
        let mut r = Reporter::new(Box::new(Shared::default()));
        r.begin("vm", "scenarios");
        let passes = |n| (0..n).map(|i| Case::pass(format!("p{i}"))).collect();
        r.case(Case::combine("a", passes(7)));
        let mut b: Vec<Case> = passes(2);
        b.push(Case::fail("f", "x"));
        r.case(Case::combine("b", b));
        r.case(Case::skip("c", "y"));
        assert_eq!(r.suites()[0].assertions, 10);
        assert_eq!((r.suites()[0].passed, r.suites()[0].failed), (1, 1));
    }

    #[test]
    fn combine_passes_only_when_every_part_passed() {
        let ok = Case::combine("s", vec![Case::pass("a"), Case::pass("b")]);
        assert_eq!((ok.status, ok.assertions), (Status::Pass, 2));
        let bad = Case::combine(
            "s",
            vec![
                Case::pass("a"),
                Case::fail("b", "wrong\nvalue").with_details(vec!["d".into()]),
                Case::skip("c", "n/a"),
            ],
        );
        assert_eq!(
            bad.status,
            Status::Fail("1 of 2 assertions failed: b: wrong / value".into())
        );
        assert_eq!(bad.details, ["[b]", "d"]);
        let skipped = Case::combine("s", vec![Case::skip("a", "no tree")]);
        assert_eq!(skipped.status, Status::Skip("no tree".into()));
        let ext = |n| Case::skip_external(n, "no seed");
        let external = Case::combine("s", vec![ext("a"), ext("b")]);
        assert_eq!(external.status, Status::SkipExternal("no seed".into()));
        let mixed = Case::combine("s", vec![ext("a"), Case::skip("b", "no tree")]);
        assert_eq!(mixed.status, Status::Skip("no seed".into()));
        let empty = Case::combine("s", Vec::new());
        assert_eq!(empty.status, Status::Skip("no assertions".into()));
    }

    #[test]
    fn log_tail_is_added_only_to_failures() {
        let dir = std::env::temp_dir().join(format!("xehpg-check-tail-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let log = dir.join("x.log");
        let text: String = (0..40).map(|i| format!("line {i}\r\n")).collect();
        std::fs::write(&log, text).unwrap();
        assert!(Case::pass("p").with_log_tail(&log).details.is_empty());
        let f = Case::fail("f", "r").with_log_tail(&log);
        assert_eq!(f.details.len(), TAIL_LINES + 1);
        assert_eq!(f.details[0], "line 15");
        assert!(f.details[TAIL_LINES].starts_with("(log: "));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn from_result_keeps_the_error_chain() {
        let e = anyhow::anyhow!("inner").context("outer");
        assert_eq!(
            Case::from_result("x", Err(e)).status,
            Status::Fail("outer: inner".into())
        );
    }
}
