//! Parser for the output of `cargo test`.
//!
//! Cargo runs one test binary after another, each announced by
//! `Running unittests src/lib.rs (target/release/deps/xehpg_mock-0123abcd)` or
//! `Doc-tests xehpg_mock`. Libtest then prints `test NAME ... ok|FAILED|ignored`
//! per test, `---- NAME stdout ----` sections with the output of failed tests,
//! and ends with `test result: ok. 3 passed; 0 failed; 1 ignored; ...`.
//! The counts on that last line are authoritative; the per-test lines give names.

use crate::report::Case;

/// Verdict of one libtest test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// `... ok`
    Ok,
    /// `... FAILED`
    Failed,
    /// `... ignored` (with or without a reason)
    Ignored,
}

/// Counts from a `test result:` line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// `N passed`
    pub passed: usize,
    /// `N failed`
    pub failed: usize,
    /// `N ignored`
    pub ignored: usize,
}

/// One test binary's part of the output.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Binary {
    /// Crate and target, e.g. `xehpg_mock src/lib.rs` or `xehpg_mock doc-tests`.
    pub label: String,
    /// Named verdicts, in output order.
    pub tests: Vec<(String, Outcome)>,
    /// The `test result:` counts; `None` if the binary never printed them (it crashed).
    pub counts: Option<Counts>,
    /// Output sections of failed tests, by test name.
    pub failure_output: Vec<(String, Vec<String>)>,
}

/// Everything `parse` found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed {
    /// Test binaries in the order they ran.
    pub binaries: Vec<Binary>,
    /// `error...` lines of a failed build.
    pub build_errors: Vec<String>,
}

/// Parses a whole `cargo test` log.
pub fn parse(log: &str) -> Parsed {
    let mut parsed = Parsed::default();
    let mut section: Option<(String, Vec<String>)> = None;
    for raw in log.lines() {
        let line = raw.trim_end_matches('\r');
        if let Some(label) = binary_label(line) {
            flush_section(&mut parsed, &mut section);
            parsed.binaries.push(Binary {
                label,
                ..Binary::default()
            });
            continue;
        }
        if let Some(name) = failure_header(line) {
            flush_section(&mut parsed, &mut section);
            section = Some((name.to_string(), Vec::new()));
            continue;
        }
        if line == "failures:" || line.starts_with("test result: ") {
            flush_section(&mut parsed, &mut section);
        }
        if let Some((_, lines)) = section.as_mut() {
            lines.push(line.to_string());
            continue;
        }
        read_line(&mut parsed, line);
    }
    flush_section(&mut parsed, &mut section);
    parsed
}

/// Handles a line outside failure sections.
fn read_line(parsed: &mut Parsed, line: &str) {
    if let Some(counts) = result_counts(line) {
        if let Some(b) = parsed.binaries.last_mut() {
            b.counts = Some(counts);
        }
    } else if let Some((name, outcome)) = test_line(line) {
        if let Some(b) = parsed.binaries.last_mut() {
            b.tests.push((name, outcome));
        }
    } else if is_build_error(line) || is_error_location(parsed, line) {
        parsed.build_errors.push(line.to_string());
    }
}

/// The `--> file:line:col` line right under a compiler error.
fn is_error_location(parsed: &Parsed, line: &str) -> bool {
    line.trim_start().starts_with("--> ")
        && parsed
            .build_errors
            .last()
            .is_some_and(|l| l.starts_with("error["))
}

fn flush_section(parsed: &mut Parsed, section: &mut Option<(String, Vec<String>)>) {
    let Some((name, mut lines)) = section.take() else {
        return;
    };
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    if let Some(b) = parsed.binaries.last_mut() {
        b.failure_output.push((name, lines));
    }
}

/// `Running unittests src/lib.rs (target/x/deps/xehpg_mock-abc)` → `xehpg_mock src/lib.rs`;
/// `Doc-tests xehpg_mock` → `xehpg_mock doc-tests`.
fn binary_label(line: &str) -> Option<String> {
    let line = line.trim();
    if let Some(krate) = line.strip_prefix("Doc-tests ") {
        return Some(format!("{} doc-tests", krate.trim()));
    }
    let rest = line.strip_prefix("Running ")?;
    let (what, path) = rest.rsplit_once(" (")?;
    let file = path.trim_end_matches(')').rsplit('/').next()?;
    let krate = file.rsplit_once('-').map_or(file, |(k, _)| k);
    let what = what.strip_prefix("unittests ").unwrap_or(what);
    Some(format!("{krate} {what}"))
}

/// `---- NAME stdout ----` → `NAME`.
fn failure_header(line: &str) -> Option<&str> {
    line.strip_prefix("---- ")?.strip_suffix(" stdout ----")
}

/// `test NAME ... ok` → (NAME, Ok).
fn test_line(line: &str) -> Option<(String, Outcome)> {
    let rest = line.strip_prefix("test ")?;
    let (name, verdict) = rest.rsplit_once(" ... ")?;
    let outcome = match verdict.trim() {
        "ok" => Outcome::Ok,
        "FAILED" => Outcome::Failed,
        v if v.starts_with("ignored") => Outcome::Ignored,
        _ => return None,
    };
    Some((name.to_string(), outcome))
}

/// `test result: ok. 3 passed; 1 failed; 2 ignored; 0 measured; ...` → counts.
fn result_counts(line: &str) -> Option<Counts> {
    let rest = line.strip_prefix("test result: ")?;
    let (_, fields) = rest.split_once(". ")?;
    let mut counts = Counts::default();
    for field in fields.split(';') {
        let mut words = field.split_whitespace();
        let (Some(n), Some(what)) = (words.next(), words.next()) else {
            continue;
        };
        let Ok(n) = n.parse() else { continue };
        match what {
            "passed" => counts.passed = n,
            "failed" => counts.failed = n,
            "ignored" => counts.ignored = n,
            _ => {}
        }
    }
    Some(counts)
}

/// Compiler and cargo errors; libtest's own summary errors are not build errors.
fn is_build_error(line: &str) -> bool {
    (line.starts_with("error[") || line.starts_with("error:"))
        && !line.starts_with("error: test failed")
        && !line.contains("target failed")
        && !line.contains("targets failed")
}

/// One verdict per test: the counts of `test result:` lines decide, names come
/// from the `test` lines. A build failure is one failed test; so is a binary
/// that never printed its result.
pub fn cases(parsed: &Parsed) -> Vec<Case> {
    let build_failed = parsed
        .build_errors
        .iter()
        .any(|l| l.contains("could not compile"));
    if build_failed || (parsed.binaries.is_empty() && !parsed.build_errors.is_empty()) {
        let first = parsed.build_errors.first().cloned().unwrap_or_default();
        return vec![
            Case::fail("build", first).with_details(parsed.build_errors.iter().take(20).cloned())
        ];
    }
    parsed.binaries.iter().flat_map(binary_cases).collect()
}

fn binary_cases(b: &Binary) -> Vec<Case> {
    let Some(counts) = b.counts else {
        return vec![Case::fail(
            b.label.clone(),
            "no `test result:` line: the test binary crashed or was killed",
        )];
    };
    let mut cases = Vec::new();
    let named = |want: Outcome| b.tests.iter().filter(move |(_, o)| *o == want);
    for (name, _) in named(Outcome::Ok) {
        cases.push(Case::pass(format!("{}: {name}", b.label)));
    }
    for (name, _) in named(Outcome::Failed) {
        let output = b
            .failure_output
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, l)| l.as_slice());
        cases.push(failed_case(&b.label, name, output.unwrap_or(&[])));
    }
    for (name, _) in named(Outcome::Ignored) {
        cases.push(Case::skip(format!("{}: {name}", b.label), "ignored"));
    }
    // Counts are authoritative: tests whose `test` line got lost still count.
    let missing = |total: usize, want: Outcome| total.saturating_sub(named(want).count());
    for i in 0..missing(counts.passed, Outcome::Ok) {
        cases.push(Case::pass(format!("{}: unnamed test {}", b.label, i + 1)));
    }
    for i in 0..missing(counts.failed, Outcome::Failed) {
        cases.push(Case::fail(
            format!("{}: unnamed test {}", b.label, i + 1),
            "failed",
        ));
    }
    cases
}

fn failed_case(label: &str, name: &str, output: &[String]) -> Case {
    // A backtrace (RUST_BACKTRACE set by the user) buries the message.
    let shown = output
        .iter()
        .skip_while(|l| l.trim().is_empty())
        .take_while(|l| !l.starts_with("stack backtrace:"))
        .take(30)
        .cloned();
    Case::fail(format!("{label}: {name}"), panic_message(output)).with_details(shown)
}

/// The message under `thread '...' panicked at FILE:LINE:COL:`, with its place.
fn panic_message(output: &[String]) -> String {
    let Some(at) = output.iter().position(|l| l.contains("panicked at")) else {
        return "failed".to_string();
    };
    let place = output[at]
        .rsplit_once("panicked at ")
        .map(|(_, p)| p.trim_end_matches(':').to_string())
        .unwrap_or_default();
    let message = output[at + 1..]
        .iter()
        .find(|l| !l.trim().is_empty())
        .map_or("panicked", |l| l.trim());
    format!("{message} (at {place})")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Status;

    const PASSING: &str = "\
   Compiling xehpg-check v0.1.0 (/r/tools/check)
    Finished `release` profile [optimized] target(s) in 9.1s
     Running unittests src/lib.rs (target/release/deps/xehpg_mock-7f3a9c2e1b0d4a55)

running 3 tests
test regs::tests::offsets_are_unique ... ok
test device::tests::slow ... ignored, needs a VM
test device::tests::reset ... ok

test result: ok. 2 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.01s

     Running unittests src/main.rs (target/release/deps/xehpg_check-11aa22bb33cc44dd)

running 0 tests

test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s

   Doc-tests xehpg_mock

running 1 test
test tools/mock/src/lib.rs - regs (line 3) ... ok

test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.20s
";

    const FAILING: &str = "\
     Running tests/protocol.rs (target/release/deps/protocol-0011223344556677)

running 2 tests
test reads_bar0 ... ok
test writes_bar0 ... FAILED

failures:

---- writes_bar0 stdout ----
some output

thread 'writes_bar0' panicked at tools/mock/tests/protocol.rs:40:5:
assertion `left == right` failed
  left: 1
 right: 2
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace


failures:
    writes_bar0

test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s

error: test failed, to rerun pass `-p xehpg-mock --test protocol`
     Running unittests src/main.rs (target/release/deps/xehpg_vm-99aa)

running 1 test
error: test failed, to rerun pass `-p xehpg-vm --bin xehpg-vm`

Caused by:
  process didn't exit successfully: `/r/target/release/deps/xehpg_vm-99aa` (signal: 11, SIGSEGV)
error: 2 targets failed:
";

    #[test]
    fn labels_name_crate_and_target() {
        let p = parse(PASSING);
        let labels: Vec<&str> = p.binaries.iter().map(|b| b.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "xehpg_mock src/lib.rs",
                "xehpg_check src/main.rs",
                "xehpg_mock doc-tests"
            ]
        );
        assert_eq!(
            p.binaries[0].counts,
            Some(Counts {
                passed: 2,
                failed: 0,
                ignored: 1
            })
        );
        assert!(p.build_errors.is_empty());
    }

    #[test]
    fn passing_run_gives_one_case_per_test() {
        let cases = cases(&parse(PASSING));
        let names: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "xehpg_mock src/lib.rs: regs::tests::offsets_are_unique",
                "xehpg_mock src/lib.rs: device::tests::reset",
                "xehpg_mock src/lib.rs: device::tests::slow",
                "xehpg_mock doc-tests: tools/mock/src/lib.rs - regs (line 3)",
            ]
        );
        assert_eq!(cases[2].status, Status::Skip("ignored".into()));
    }

    #[test]
    fn failure_carries_panic_message_and_output() {
        let cases = cases(&parse(FAILING));
        assert_eq!(cases.len(), 3);
        assert_eq!(
            cases[0],
            Case::pass("protocol tests/protocol.rs: reads_bar0")
        );
        let f = &cases[1];
        assert_eq!(
            f.status,
            Status::Fail(
                "assertion `left == right` failed (at tools/mock/tests/protocol.rs:40:5)".into()
            )
        );
        assert_eq!(f.details.first().map(String::as_str), Some("some output"));
        assert!(f.details.iter().all(|l| !l.starts_with("failures:")));
        assert!(
            cases[2].name == "xehpg_vm src/main.rs" && cases[2].is_failure(),
            "crashed binary"
        );
    }

    #[test]
    fn build_failure_is_one_failed_test() {
        let log = "   Compiling xehpg-mock v0.1.0\nerror[E0425]: cannot find value `x` in this scope\n \
                   --> mock/src/lib.rs:3:5\nerror: could not compile `xehpg-mock` (lib) due to 1 previous error\n";
        let cases = cases(&parse(log));
        assert_eq!(cases.len(), 1);
        assert_eq!(cases[0].details[1], " --> mock/src/lib.rs:3:5");
        assert_eq!(
            cases[0].status,
            Status::Fail("error[E0425]: cannot find value `x` in this scope".into())
        );
    }

    #[test]
    fn counts_win_over_lost_test_lines() {
        let log = "     Running unittests src/lib.rs (target/debug/deps/a-1)\n\
                   test x ... ok\ntest result: ok. 3 passed; 0 failed; 0 ignored; 0 measured\n";
        let cases = cases(&parse(log));
        assert_eq!(cases.len(), 3);
        assert_eq!(cases[2].name, "a src/lib.rs: unnamed test 2");
    }
}
