//! The mock's end-of-run summary (`--summary FILE`, JSON) and its verdict.
//!
//! The summary is read with the mock's own type ([`Summary`]), so a field the
//! mock renames or drops fails the build or the parse, not the verdict.
//! Fields judged: `unknown` (`[{op, offset, count}]`) and `unknown_accesses`
//! (accesses to registers the mock does not model), `violation_kinds`
//! (`{kind: count}`) and `violations` (protocol or programming-model
//! violations), and `final` (true only in the file written when the mock
//! exited cleanly). A scenario is clean when every unknown access is at an
//! `expect-unknown` offset, every violation kind is an `expect-violation` one,
//! every `expect-violation` kind did happen, and the mock exited cleanly.

use super::scenario::Header;
use anyhow::{Context as _, Result};
pub use xehpg_mock::summary::Summary;

/// Parses the summary JSON.
///
/// # Errors
///
/// Not JSON, or not the mock's summary.
pub fn parse(text: &str) -> Result<Summary> {
    serde_json::from_str(text).context("not a mock summary")
}

/// Everything in `s` that `h` did not declare, and every declared violation
/// that did not happen. Empty means clean.
pub fn judge(s: &Summary, h: &Header) -> Vec<String> {
    let mut problems: Vec<String> = s
        .unknown
        .iter()
        .filter(|u| !h.expect_unknown.contains(&u.offset.0))
        .map(|u| {
            format!(
                "unknown {} at {:#x} ({}x)",
                u.op.name(),
                u.offset.0,
                u.count
            )
        })
        .collect();
    if s.unknown_accesses > 0 && s.unknown.is_empty() {
        problems.push(format!(
            "{} unknown accesses (no details in the summary)",
            s.unknown_accesses
        ));
    }
    for (kind, n) in &s.violation_kinds {
        if *n > 0 && !h.expect_violations.contains(kind) {
            problems.push(format!("violation {kind} ({n}x)"));
        }
    }
    let classified: u64 = s.violation_kinds.values().sum();
    if s.violations > classified {
        problems.push(format!(
            "{} violations without a kind",
            s.violations - classified
        ));
    }
    for kind in &h.expect_violations {
        if s.violation_kinds.get(kind).copied().unwrap_or(0) == 0 {
            problems.push(format!(
                "expected violation {kind} did not happen (the fault never fired?)"
            ));
        }
    }
    if !s.is_final {
        problems.push("the mock did not exit cleanly (its last summary is not final)".into());
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use xehpg_mock::summary::UnknownEntry;
    use xehpg_mock::trace::{Hex, Op};

    fn dirty() -> Summary {
        Summary {
            unknown_accesses: 3,
            unknown: vec![
                UnknownEntry {
                    op: Op::Read,
                    offset: Hex(0x1234),
                    count: 2,
                },
                UnknownEntry {
                    op: Op::Write,
                    offset: Hex(0x8000),
                    count: 1,
                },
            ],
            violations: 2,
            violation_kinds: [("write-while-busy", 1), ("bad-doorbell", 1)]
                .map(|(k, n)| (k.to_string(), n))
                .into(),
            mmio_reads: 12,
            is_final: true,
            ..Summary::default()
        }
    }

    #[test]
    fn reads_what_the_mock_writes() {
        let text = serde_json::to_string(&dirty()).unwrap();
        assert!(text.contains(r#""offset":"0x1234""#), "{text}");
        assert!(text.contains(r#""final":true"#), "{text}");
        assert_eq!(parse(&text).unwrap(), dirty());
    }

    #[test]
    fn missing_or_malformed_fields_are_errors() {
        let text = serde_json::to_string(&dirty()).unwrap();
        assert!(parse("not json").is_err());
        assert!(parse(r#"{"violations": 0}"#).is_err());
        assert!(parse(&text.replace(r#""0x1234""#, "4660")).is_err());
        assert!(parse(&text.replace(r#""0x1234""#, r#""1234""#)).is_err());
        assert!(parse(&text.replace(r#""read""#, r#""peek""#)).is_err());
    }

    #[test]
    fn clean_summary_passes() {
        let s = Summary {
            is_final: true,
            ..Summary::default()
        };
        assert!(judge(&s, &Header::default()).is_empty());
    }

    #[test]
    fn undeclared_findings_fail() {
        assert_eq!(
            judge(&dirty(), &Header::default()),
            [
                "unknown read at 0x1234 (2x)",
                "unknown write at 0x8000 (1x)",
                "violation bad-doorbell (1x)",
                "violation write-while-busy (1x)",
            ]
        );
    }

    #[test]
    fn declared_findings_pass_and_missing_expected_violations_fail() {
        let h = Header {
            expect_unknown: vec![0x1234, 0x8000],
            expect_violations: vec!["bad-doorbell".into(), "write-while-busy".into()],
            ..Header::default()
        };
        assert!(judge(&dirty(), &h).is_empty());
        let clean = Summary {
            is_final: true,
            ..Summary::default()
        };
        assert_eq!(
            judge(&clean, &h),
            [
                "expected violation bad-doorbell did not happen (the fault never fired?)",
                "expected violation write-while-busy did not happen (the fault never fired?)",
            ]
        );
    }

    #[test]
    fn totals_without_details_and_a_crashed_mock_fail() {
        let s = Summary {
            unknown_accesses: 2,
            violations: 1,
            is_final: false,
            ..Summary::default()
        };
        assert_eq!(
            judge(&s, &Header::default()),
            [
                "2 unknown accesses (no details in the summary)",
                "1 violations without a kind",
                "the mock did not exit cleanly (its last summary is not final)",
            ]
        );
    }
}
