//! The two explanation files of the suite.
//!
//! `tools/check/fw-settled.txt`: seed rows the driver deliberately maps to
//! another wake target, one per line:
//!
//! ```text
//! START-END DRIVER_WAKE reason...
//! ```
//!
//! `tools/check/fw-upstream-diffs.txt`: ranges where the driver and upstream
//! i915 disagree, and why:
//!
//! ```text
//! START-END DRIVER_WAKE I915_WAKE reason...
//! ```
//!
//! Offsets are hex; wakes are `NONE`, `GT`, `RENDER`, `VD0`-`VD7`,
//! `VE0`-`VE3` (`AON` reads as `NONE`). `#` starts a comment line. Entries
//! must be sorted and must not overlap, and every entry needs a reason.

use super::wake::{order_problems, parse_range, Span, Wake};
use anyhow::{bail, Context as _, Result};

/// One settled seed difference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settled {
    /// What the driver maps the range to.
    pub driver: Wake,
    /// Why.
    pub reason: String,
}

/// One explained driver/i915 difference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpstreamDiff {
    /// The driver's (the seed's) wake over the range.
    pub driver: Wake,
    /// i915's wake over the range.
    pub i915: Wake,
    /// Why they differ.
    pub reason: String,
}

/// Parses `fw-settled.txt`.
pub fn parse_settled(text: &str) -> Result<Vec<Span<Settled>>> {
    entries(text, 1, |wakes, reason| {
        Ok(Settled {
            driver: wakes[0],
            reason,
        })
    })
}

/// Parses `fw-upstream-diffs.txt`.
pub fn parse_upstream(text: &str) -> Result<Vec<Span<UpstreamDiff>>> {
    entries(text, 2, |wakes, reason| {
        if wakes[0] == wakes[1] {
            bail!(
                "driver and i915 wake are both {}: nothing differs",
                wakes[0]
            );
        }
        Ok(UpstreamDiff {
            driver: wakes[0],
            i915: wakes[1],
            reason,
        })
    })
}

/// `START-END` plus `wakes` wake names plus a reason, per non-comment line.
fn entries<T>(
    text: &str,
    wakes: usize,
    make: impl Fn(&[Wake], String) -> Result<T>,
) -> Result<Vec<Span<T>>> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let entry = || -> Result<Span<T>> {
            let mut words = line.split_whitespace();
            let (start, end) = parse_range(words.next().unwrap_or_default())?;
            let mut w = Vec::with_capacity(wakes);
            for _ in 0..wakes {
                let name = words.next().context("missing wake target")?;
                w.push(Wake::from_name(name)?);
            }
            let reason = words.collect::<Vec<_>>().join(" ");
            if reason.is_empty() {
                bail!("no reason given");
            }
            Ok(Span {
                start,
                end,
                value: make(&w, reason)?,
                line: n,
            })
        };
        out.push(entry().with_context(|| format!("line {n}"))?);
    }
    if let Some(p) = order_problems(&out).first() {
        bail!("entries must be sorted and disjoint: {p}");
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_settled_entries() {
        let t = parse_settled("# comment\n\n0x1000-0x1FFF VD2 the seed is wrong here\n").unwrap();
        assert_eq!(t.len(), 1);
        assert_eq!((t[0].start, t[0].end, t[0].line), (0x1000, 0x1fff, 3));
        assert_eq!(t[0].value.driver, Wake::Vd(2));
        assert_eq!(t[0].value.reason, "the seed is wrong here");
    }

    #[test]
    fn reads_upstream_entries() {
        let t = parse_upstream("0x014000-0x0141FF VD0 VD2 seed L552 lists VD0\n").unwrap();
        assert_eq!(t[0].value.driver, Wake::Vd(0));
        assert_eq!(t[0].value.i915, Wake::Vd(2));
        assert_eq!(t[0].value.reason, "seed L552 lists VD0");
    }

    #[test]
    fn bad_entries_are_errors_with_their_line() {
        let e = parse_settled("\n0x1000-0x1FFF VD2\n").unwrap_err();
        assert_eq!(format!("{e:#}"), "line 2: no reason given");
        assert!(parse_settled("0x1000 VD2 why").is_err());
        assert!(parse_settled("0x1000-0x1FFF VD9 why").is_err());
        assert!(parse_settled("0x2000-0x2FFF GT a\n0x1000-0x1FFF GT b\n").is_err());
        assert!(parse_settled("0x1000-0x2FFF GT a\n0x2000-0x3FFF GT b\n").is_err());
        assert!(parse_upstream("0x1000-0x1FFF GT why").is_err(), "one wake");
        assert!(
            parse_upstream("0x1000-0x1FFF GT GT why").is_err(),
            "no difference"
        );
        assert!(
            parse_upstream("0x1000-0x1FFF AON NONE why").is_err(),
            "AON is NONE"
        );
    }
}
