//! The suite's explanations: `tools/check/fw-upstream-diffs.toml`, ranges
//! where the driver and upstream i915 disagree and why, and the settled
//! seed differences, which are the `[[override]]`s of the generator's
//! decisions (`tools/gen/tables.toml`).
//!
//! ```toml
//! [[diff]]
//! start = 0x014000
//! end = 0x0141FF
//! driver = "VD0"
//! i915 = "VD2"
//! reason = "seed L552 lists a real VD0 row"
//! ```
//!
//! Entries must be sorted and must not overlap, and every entry needs a
//! reason. A span's `line` is the entry's number (1-based) in its file.

use super::wake::{order_problems, Span, Wake};
use anyhow::{bail, Context as _, Result};
use serde::Deserialize;
use xehpg_gen::decisions::Decisions;

/// One settled seed difference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settled {
    /// What the driver maps the range to.
    pub driver: Wake,
    /// Why.
    pub reason: String,
}

/// One explained driver/i915 difference.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UpstreamDiff {
    /// The driver's (the seed's) wake over the range.
    pub driver: Wake,
    /// i915's wake over the range.
    pub i915: Wake,
    /// Why they differ.
    pub reason: String,
}

/// `[[diff]]` as the file writes it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DiffEntry {
    start: u32,
    end: u32,
    #[serde(flatten)]
    diff: UpstreamDiff,
}

/// The whole file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DiffFile {
    #[serde(default)]
    diff: Vec<DiffEntry>,
}

/// The settled differences: the decisions' overrides.
pub fn settled(d: &Decisions) -> Vec<Span<Settled>> {
    d.overrides
        .iter()
        .enumerate()
        .map(|(i, o)| Span {
            start: o.start,
            end: o.end,
            value: Settled {
                driver: o.wake,
                reason: o.reason.clone(),
            },
            line: i + 1,
        })
        .collect()
}

/// Parses `fw-upstream-diffs.toml`.
pub fn parse_upstream(text: &str) -> Result<Vec<Span<UpstreamDiff>>> {
    let file: DiffFile = toml::from_str(text)?;
    let mut out = Vec::new();
    for (i, e) in file.diff.into_iter().enumerate() {
        let n = i + 1;
        let check = || -> Result<()> {
            if e.end < e.start {
                bail!("ends before it starts");
            }
            if e.diff.reason.trim().is_empty() {
                bail!("no reason given");
            }
            if e.diff.driver == e.diff.i915 {
                bail!(
                    "driver and i915 wake are both {}: nothing differs",
                    e.diff.driver
                );
            }
            Ok(())
        };
        check().with_context(|| format!("entry {n}"))?;
        out.push(Span {
            start: e.start,
            end: e.end,
            value: e.diff,
            line: n,
        });
    }
    if let Some(p) = order_problems(&out).first() {
        bail!("entries must be sorted and disjoint: {p}");
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(range: (&str, &str), driver: &str, i915: &str, reason: &str) -> String {
        format!(
            "[[diff]]\nstart = {}\nend = {}\ndriver = \"{driver}\"\ni915 = \"{i915}\"\nreason = \"{reason}\"\n",
            range.0, range.1
        )
    }

    #[test]
    fn reads_upstream_entries() {
        let text = format!(
            "# comment\n{}",
            entry(
                ("0x014000", "0x0141FF"),
                "VD0",
                "VD2",
                "seed L552 lists VD0"
            )
        );
        let t = parse_upstream(&text).unwrap();
        assert_eq!((t[0].start, t[0].end, t[0].line), (0x14000, 0x141ff, 1));
        assert_eq!(t[0].value.driver, Wake::Vd(0));
        assert_eq!(t[0].value.i915, Wake::Vd(2));
        assert_eq!(t[0].value.reason, "seed L552 lists VD0");
        assert!(parse_upstream("").unwrap().is_empty());
    }

    #[test]
    fn bad_entries_are_errors_with_their_number() {
        let ok = entry(("0x1000", "0x1FFF"), "GT", "NONE", "why");
        let e = parse_upstream(&format!(
            "{ok}{}",
            entry(("0x2000", "0x2FFF"), "GT", "VD0", " ")
        ))
        .unwrap_err();
        assert_eq!(format!("{e:#}"), "entry 2: no reason given");
        let bad = |s: String| parse_upstream(&s).is_err();
        assert!(
            bad(entry(("0x1000", "0x0FFF"), "GT", "NONE", "r")),
            "backwards"
        );
        assert!(bad(entry(("0x1000", "0x1FFF"), "VD9", "NONE", "r")), "VD9");
        assert!(
            bad(entry(("0x1000", "0x1FFF"), "GT", "GT", "r")),
            "no difference"
        );
        assert!(
            bad(entry(("0x1000", "0x1FFF"), "AON", "NONE", "r")),
            "AON is NONE"
        );
        assert!(bad(format!("{ok}{ok}")), "overlap");
        assert!(bad(format!(
            "{}{ok}",
            entry(("0x2000", "0x2FFF"), "GT", "NONE", "r")
        )));
        assert!(bad(ok.replace("reason", "because")), "unknown key");
    }

    #[test]
    fn overrides_are_the_settled_entries() {
        let d = Decisions::parse(
            "[[override]]\nstart = 0x100\nend = 0x1FF\nwake = \"GT\"\nlines = \"L9\"\nreason = \"why\"\n",
        )
        .unwrap();
        let s = settled(&d);
        assert_eq!((s[0].start, s[0].end, s[0].line), (0x100, 0x1ff, 1));
        assert_eq!(s[0].value.driver, Wake::Gt);
        assert_eq!(s[0].value.reason, "why");
    }
}
