//! The mock's end-of-run summary (`--summary FILE`, JSON) and its verdict.
//!
//! Fields read: `unknown_accesses` (count of accesses to registers the mock
//! does not model), `unknown` (`[{op, offset, count}]`), `violations` (count of
//! protocol or programming-model violations) and `violation_kinds`
//! (`{kind: count}`) and `final` (true only in the file written when the mock
//! exited cleanly). A scenario is clean when every unknown access is at an
//! `expect-unknown` offset, every violation kind is an `expect-violation` one,
//! every `expect-violation` kind did happen, and the mock exited cleanly.

use super::scenario::Header;
use anyhow::{Context as _, Result};
use serde_json::Value;
use std::collections::BTreeMap;

/// One entry of `unknown`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unknown {
    /// `read` / `write` (as the mock spells it).
    pub op: String,
    /// BAR offset.
    pub offset: u64,
    /// How many times.
    pub count: u64,
}

/// The fields of the summary the check uses.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Total unknown accesses.
    pub unknown_accesses: u64,
    /// Unknown accesses by op and offset.
    pub unknown: Vec<Unknown>,
    /// Total violations.
    pub violations: u64,
    /// Violations by kind.
    pub violation_kinds: BTreeMap<String, u64>,
    /// `final`, if the summary has it: false means the mock died mid-run.
    pub is_final: Option<bool>,
    /// `mmio_reads`, if the summary has it.
    pub mmio_reads: Option<u64>,
    /// `mmio_writes`, if the summary has it.
    pub mmio_writes: Option<u64>,
}

/// Parses the summary JSON; offsets may be numbers or `"0x..."` strings.
pub fn parse(text: &str) -> Result<Summary> {
    let v: Value = serde_json::from_str(text).context("mock summary is not JSON")?;
    let count = |key: &str| -> Result<u64> {
        v.get(key)
            .and_then(Value::as_u64)
            .with_context(|| format!("mock summary has no numeric `{key}`"))
    };
    let unknown = match v.get("unknown").and_then(Value::as_array) {
        Some(list) => list.iter().map(unknown_entry).collect::<Result<_>>()?,
        None => Vec::new(),
    };
    let violation_kinds = match v.get("violation_kinds").and_then(Value::as_object) {
        Some(map) => map
            .iter()
            .map(|(k, n)| {
                Ok((
                    k.clone(),
                    n.as_u64().with_context(|| format!("violation_kinds.{k}"))?,
                ))
            })
            .collect::<Result<_>>()?,
        None => BTreeMap::new(),
    };
    Ok(Summary {
        unknown_accesses: count("unknown_accesses")?,
        unknown,
        violations: count("violations")?,
        violation_kinds,
        is_final: v.get("final").and_then(Value::as_bool),
        mmio_reads: v.get("mmio_reads").and_then(Value::as_u64),
        mmio_writes: v.get("mmio_writes").and_then(Value::as_u64),
    })
}

fn unknown_entry(v: &Value) -> Result<Unknown> {
    let offset = match v.get("offset") {
        Some(Value::Number(n)) => n.as_u64(),
        Some(Value::String(s)) => s
            .strip_prefix("0x")
            .and_then(|h| u64::from_str_radix(h, 16).ok()),
        _ => None,
    };
    Ok(Unknown {
        op: v
            .get("op")
            .and_then(Value::as_str)
            .unwrap_or("access")
            .to_string(),
        offset: offset.with_context(|| format!("unknown entry without a usable offset: {v}"))?,
        count: v.get("count").and_then(Value::as_u64).unwrap_or(1),
    })
}

/// Everything in `s` that `h` did not declare, and every declared violation
/// that did not happen. Empty means clean.
pub fn judge(s: &Summary, h: &Header) -> Vec<String> {
    let mut problems: Vec<String> = s
        .unknown
        .iter()
        .filter(|u| !h.expect_unknown.contains(&u.offset))
        .map(|u| format!("unknown {} at {:#x} ({}x)", u.op, u.offset, u.count))
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
    if s.is_final == Some(false) {
        problems.push("the mock did not exit cleanly (its last summary is not final)".into());
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIRTY: &str = r#"{
        "unknown_accesses": 3,
        "unknown": [
            {"op": "read", "offset": 4660, "count": 2},
            {"op": "write", "offset": "0x8000", "count": 1}
        ],
        "violations": 2,
        "violation_kinds": {"write-while-busy": 1, "bad-doorbell": 1},
        "other": "ignored",
        "mmio_reads": 12,
        "final": true
    }"#;

    #[test]
    fn parses_numbers_and_hex_strings() {
        let s = parse(DIRTY).unwrap();
        assert_eq!(s.unknown_accesses, 3);
        assert_eq!(
            s.unknown[0],
            Unknown {
                op: "read".into(),
                offset: 0x1234,
                count: 2
            }
        );
        assert_eq!(s.unknown[1].offset, 0x8000);
        assert_eq!(s.violation_kinds["bad-doorbell"], 1);
        assert_eq!(s.is_final, Some(true));
        assert_eq!((s.mmio_reads, s.mmio_writes), (Some(12), None));
    }

    #[test]
    fn missing_or_malformed_fields_are_errors() {
        assert!(parse("not json").is_err());
        assert!(parse(r#"{"violations": 0}"#).is_err());
        assert!(
            parse(r#"{"unknown_accesses": 1, "violations": 0, "unknown": [{"op": "read"}]}"#)
                .is_err()
        );
    }

    #[test]
    fn clean_summary_passes() {
        let s = parse(
            r#"{"unknown_accesses": 0, "unknown": [], "violations": 0, "violation_kinds": {}}"#,
        )
        .unwrap();
        assert!(judge(&s, &Header::default()).is_empty());
    }

    #[test]
    fn undeclared_findings_fail() {
        let s = parse(DIRTY).unwrap();
        assert_eq!(
            judge(&s, &Header::default()),
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
        let s = parse(DIRTY).unwrap();
        let h = Header {
            expect_unknown: vec![0x1234, 0x8000],
            expect_violations: vec!["bad-doorbell".into(), "write-while-busy".into()],
            ..Header::default()
        };
        assert!(judge(&s, &h).is_empty());
        let clean = Summary::default();
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
            is_final: Some(false),
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
