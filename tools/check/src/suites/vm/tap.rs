//! Parser for the TAP (version 13) a guest scenario prints.
//!
//! Recognised, at the start of a line: `ok N - desc`, `not ok N - desc` (the
//! number and the dash are optional), a `# SKIP`/`# TODO` directive after the
//! description, the plan `1..N`, `# diagnostic` lines (attached to the test
//! before them) and `Bail out! reason`. The shell's own complaints about a
//! scenario script (`/tests/x.sh: line 7: helper: not found`) are kept too:
//! they mean the script is broken. Everything else (kernel messages on a
//! shared console, indented subtests) is ignored.
//!
//! Not the kernel's `kunit.py parse` (which the kunit suite uses): on a
//! scenario's output it reports a plan printed at the end (`done_testing`,
//! valid TAP 13) as "No more test results!" plus a nameless failed test, its
//! JSON drops the `#` diagnostics that explain each failure here, and it
//! skips the shell's error lines. Using it would mean keeping this parser
//! for those anyway, plus a Python start per scenario.

/// A `# SKIP` or `# TODO` directive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Directive {
    /// Not run; neither passes nor fails.
    Skip(String),
    /// Known to fail; a `not ok` does not count as a failure.
    Todo(String),
}

/// One test line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TapTest {
    /// `ok` vs `not ok`.
    pub ok: bool,
    /// Test number, if given.
    pub number: Option<usize>,
    /// Description (without the leading `- `).
    pub desc: String,
    /// SKIP/TODO directive.
    pub directive: Option<Directive>,
    /// `#` lines that followed it.
    pub diagnostics: Vec<String>,
}

/// A whole TAP stream.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tap {
    /// The `1..N` plan.
    pub plan: Option<usize>,
    /// Test lines in order.
    pub tests: Vec<TapTest>,
    /// `Bail out!` reason.
    pub bail_out: Option<String>,
    /// Shell errors about a script under `/tests/`.
    pub shell_errors: Vec<String>,
}

impl Tap {
    /// Problems with the stream as a whole: no plan, a plan that does not
    /// match, no test at all, out-of-order numbers, a bail-out, shell errors.
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.tests.is_empty() {
            out.push("no test ran: a scenario that checks nothing proves nothing".into());
        }
        match self.plan {
            None => out.push("no TAP plan (`1..N`): the script stopped early or never called `plan`/`done_testing`".into()),
            Some(n) if n != self.tests.len() => {
                out.push(format!("planned {n} tests, {} ran", self.tests.len()))
            }
            Some(_) => {}
        }
        let misnumbered = self
            .tests
            .iter()
            .enumerate()
            .find(|(i, t)| t.number.is_some_and(|n| n != i + 1));
        if let Some((i, t)) = misnumbered {
            out.push(format!("test {} is numbered {:?}", i + 1, t.number));
        }
        if let Some(reason) = &self.bail_out {
            out.push(format!("Bail out! {reason}"));
        }
        if let Some(first) = self.shell_errors.first() {
            let n = self.shell_errors.len();
            out.push(format!(
                "{n} shell error(s) in the script, the first: {first}"
            ));
        }
        out
    }
}

/// Parses `text`.
pub fn parse(text: &str) -> Tap {
    let mut tap = Tap::default();
    for raw in text.lines() {
        let line = raw.trim_end_matches('\r').trim_end();
        if let Some(t) = test_line(line) {
            tap.tests.push(t);
        } else if let Some(n) = plan_line(line) {
            tap.plan = Some(n);
        } else if let Some(reason) = line.strip_prefix("Bail out!") {
            tap.bail_out = Some(reason.trim().to_string());
        } else if line.starts_with("/tests/") && line.contains(": line ") {
            tap.shell_errors.push(line.to_string());
        } else if let Some(diag) = line.strip_prefix('#') {
            if let Some(t) = tap.tests.last_mut() {
                t.diagnostics.push(diag.trim().to_string());
            }
        }
    }
    tap
}

/// `1..N`, possibly followed by `# skip reason`.
fn plan_line(line: &str) -> Option<usize> {
    let rest = line.strip_prefix("1..")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let after = rest[digits.len()..].trim_start();
    if digits.is_empty() || !(after.is_empty() || after.starts_with('#')) {
        return None;
    }
    digits.parse().ok()
}

fn test_line(line: &str) -> Option<TapTest> {
    let (ok, rest) = if let Some(r) = line.strip_prefix("not ok") {
        (false, r)
    } else {
        (true, line.strip_prefix("ok")?)
    };
    if !(rest.is_empty() || rest.starts_with(' ')) {
        return None;
    }
    let rest = rest.trim_start();
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let number = digits.parse().ok();
    let rest = rest[digits.len()..].trim_start();
    let rest = rest.strip_prefix('-').unwrap_or(rest).trim_start();
    let (desc, directive) = split_directive(rest);
    Some(TapTest {
        ok,
        number,
        desc: desc.to_string(),
        directive,
        diagnostics: Vec::new(),
    })
}

/// Splits `desc # SKIP reason` / `desc # TODO reason` (case-insensitive).
fn split_directive(rest: &str) -> (&str, Option<Directive>) {
    let Some((desc, tail)) = rest
        .rsplit_once(" # ")
        .or_else(|| rest.strip_prefix("# ").map(|t| ("", t)))
    else {
        return (rest, None);
    };
    let word: String = tail
        .chars()
        .take(4)
        .collect::<String>()
        .to_ascii_uppercase();
    let reason = tail.get(4..).unwrap_or("").trim().to_string();
    let directive = match word.as_str() {
        "SKIP" => Directive::Skip(reason),
        "TODO" => Directive::Todo(reason),
        _ => return (rest, None),
    };
    (desc.trim_end(), Some(directive))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "\
TAP version 13
1..5
[    3.141] xehpg 0000:00:02.0: probed
ok 1 - driver registered\r
not ok 2 - device bound
# expected 1 device, found 0
#   /sys/bus/pci/drivers/xehpg: (empty)
ok 3 - sriov # SKIP no SR-IOV in this QEMU
not ok 4 - flaky # TODO issue 12
ok 5
    ok 1 - indented subtest is ignored
okay this is prose
";

    #[test]
    fn reads_tests_plan_diagnostics_and_directives() {
        let tap = parse(SAMPLE);
        assert_eq!(tap.plan, Some(5));
        assert_eq!(tap.tests.len(), 5);
        assert_eq!(tap.tests[0].desc, "driver registered");
        assert!(tap.tests[0].ok);
        let t = &tap.tests[1];
        assert!(!t.ok);
        assert_eq!(t.number, Some(2));
        assert_eq!(
            t.diagnostics,
            [
                "expected 1 device, found 0",
                "/sys/bus/pci/drivers/xehpg: (empty)"
            ]
        );
        assert_eq!(tap.tests[2].desc, "sriov");
        assert_eq!(
            tap.tests[2].directive,
            Some(Directive::Skip("no SR-IOV in this QEMU".into()))
        );
        assert_eq!(
            tap.tests[3].directive,
            Some(Directive::Todo("issue 12".into()))
        );
        assert_eq!(tap.tests[4].desc, "");
        assert!(tap.problems().is_empty(), "{:?}", tap.problems());
    }

    #[test]
    fn plan_may_come_last_and_must_match() {
        let tap = parse("ok 1 - a\nok 2 - b\n1..2\n");
        assert!(tap.problems().is_empty());
        let short = parse("1..3\nok 1 - a\n");
        assert_eq!(short.problems(), ["planned 3 tests, 1 ran"]);
        let none = parse("ok 1 - a\n");
        assert!(none.problems()[0].starts_with("no TAP plan"));
    }

    #[test]
    fn numbering_and_bail_out_are_problems() {
        let tap = parse("1..2\nok 1 - a\nok 3 - b\nBail out! mock died\n");
        assert_eq!(
            tap.problems(),
            ["test 2 is numbered Some(3)", "Bail out! mock died"]
        );
    }

    #[test]
    fn no_tests_and_shell_errors_are_problems() {
        let tap = parse("TAP version 13\n/tests/dead.sh: line 7: probe_refused: not found\n1..0\n");
        assert_eq!(
            tap.problems(),
            [
                "no test ran: a scenario that checks nothing proves nothing",
                "1 shell error(s) in the script, the first: /tests/dead.sh: line 7: probe_refused: not found",
            ]
        );
    }

    #[test]
    fn plan_lines_are_strict() {
        assert_eq!(plan_line("1..0 # skip no device"), Some(0));
        assert_eq!(plan_line("1..x"), None);
        assert_eq!(plan_line("1..3 tests"), None);
    }

    #[test]
    fn hash_in_a_description_is_not_a_directive() {
        let tap = parse("ok 1 - issue # 12 fixed\n");
        assert_eq!(tap.tests[0].desc, "issue # 12 fixed");
        assert_eq!(tap.tests[0].directive, None);
    }
}
