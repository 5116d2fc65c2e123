//! Upstream i915's DG2 forcewake table, `__dg2_fw_ranges` in
//! `drivers/gpu/drm/i915/intel_uncore.c`:
//!
//! ```text
//! static const struct intel_forcewake_range __dg2_fw_ranges[] = {
//!     GEN_FW_RANGE(0x0, 0x1fff, 0), /* comment */
//!     GEN_FW_RANGE(0x2000, 0x26ff, FORCEWAKE_RENDER),
//!     ...
//! };
//! ```
//!
//! Domains: `0` (none), `FORCEWAKE_GT`, `FORCEWAKE_RENDER`,
//! `FORCEWAKE_MEDIA_VDBOXn`, `FORCEWAKE_MEDIA_VEBOXn`. Offsets the table
//! does not list need no forcewake in i915 either.

use super::wake::{Span, Wake};
use anyhow::{anyhow, bail, Context as _, Result};

/// The file, relative to the kernel tree.
pub const FILE: &str = "drivers/gpu/drm/i915/intel_uncore.c";

/// The array's name.
const TABLE: &str = "__dg2_fw_ranges";

/// The rows of `__dg2_fw_ranges`, with their lines in `src`.
pub fn dg2_ranges(src: &str) -> Result<Vec<Span<Wake>>> {
    let clean = strip_comments(src);
    let lines: Vec<&str> = clean.lines().collect();
    let first = lines
        .iter()
        .position(|l| l.contains(&format!("{TABLE}[]")) && l.contains('='))
        .with_context(|| format!("no `{TABLE}[] = {{` in the file"))?;
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate().skip(first + 1) {
        let n = i + 1;
        let text = line.trim();
        if text.starts_with("};") {
            if out.is_empty() {
                bail!("line {n}: {TABLE} has no rows");
            }
            return Ok(out);
        }
        if text.is_empty() {
            continue;
        }
        let mut span = row(text).with_context(|| format!("line {n}"))?;
        span.line = n;
        out.push(span);
    }
    bail!("{TABLE} is not closed by `}};`")
}

/// `GEN_FW_RANGE(start, end, domain),`
fn row(text: &str) -> Result<Span<Wake>> {
    let args = text
        .strip_prefix("GEN_FW_RANGE(")
        .and_then(|r| r.trim_end().strip_suffix(','))
        .and_then(|r| r.trim_end().strip_suffix(')'))
        .ok_or_else(|| anyhow!("expected `GEN_FW_RANGE(start, end, domain),`, found `{text}`"))?;
    let parts: Vec<&str> = args.split(',').map(str::trim).collect();
    let [start, end, domain] = parts.as_slice() else {
        bail!("expected three arguments in `{text}`");
    };
    let start = number(start)?;
    let end = number(end)?;
    if end < start {
        bail!("{start:#x}-{end:#x} ends before it starts");
    }
    Ok(Span {
        start,
        end,
        value: wake(domain)?,
        line: 0,
    })
}

fn number(s: &str) -> Result<u32> {
    let parsed = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u32::from_str_radix(hex, 16),
        None => s.parse(),
    };
    parsed.with_context(|| format!("`{s}` is not an offset"))
}

/// One i915 domain expression (a single domain: DG2 has no combined rows).
fn wake(domain: &str) -> Result<Wake> {
    let numbered = |prefix: &str, max: u8| {
        domain
            .strip_prefix(prefix)
            .and_then(|n| n.parse::<u8>().ok())
            .filter(|n| *n <= max)
    };
    Ok(match domain {
        "0" => Wake::None,
        "FORCEWAKE_GT" => Wake::Gt,
        "FORCEWAKE_RENDER" => Wake::Render,
        _ => match (
            numbered("FORCEWAKE_MEDIA_VDBOX", 7),
            numbered("FORCEWAKE_MEDIA_VEBOX", 3),
        ) {
            (Some(n), _) => Wake::Vd(n),
            (_, Some(n)) => Wake::Ve(n),
            _ => bail!("unknown forcewake domain `{domain}`"),
        },
    })
}

/// `src` with C comments blanked out; newlines stay, so line numbers hold.
fn strip_comments(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    let mut chars = src.chars().peekable();
    let mut in_block = false;
    while let Some(c) = chars.next() {
        if in_block {
            if c == '*' && chars.peek() == Some(&'/') {
                chars.next();
                in_block = false;
            } else if c == '\n' {
                out.push('\n');
            }
            continue;
        }
        match (c, chars.peek()) {
            ('/', Some('*')) => {
                chars.next();
                in_block = true;
            }
            ('/', Some('/')) => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = "\
static const struct intel_forcewake_range __gen12_fw_ranges[] = {
\tGEN_FW_RANGE(0x0, 0xaff, FORCEWAKE_GT),
};

static const struct intel_forcewake_range __dg2_fw_ranges[] = {
\tGEN_FW_RANGE(0x0, 0x1fff, 0), /*
\t\t  0x0 -  0xaff: reserved
\t\t0xb00 - 0x1fff: always on */
\tGEN_FW_RANGE(0x2000, 0x26ff, FORCEWAKE_RENDER),
\tGEN_FW_RANGE(0x13200, 0x147ff, FORCEWAKE_MEDIA_VDBOX2), // inline
\tGEN_FW_RANGE(0x1f8000, 0x1fa0ff, FORCEWAKE_MEDIA_VEBOX3),
};
";

    #[test]
    fn reads_the_dg2_table_only() {
        let t = dg2_ranges(SRC).unwrap();
        let got: Vec<_> = t
            .iter()
            .map(|s| (s.start, s.end, s.value, s.line))
            .collect();
        assert_eq!(
            got,
            [
                (0, 0x1fff, Wake::None, 6),
                (0x2000, 0x26ff, Wake::Render, 9),
                (0x13200, 0x147ff, Wake::Vd(2), 10),
                (0x1f8000, 0x1fa0ff, Wake::Ve(3), 11),
            ]
        );
    }

    #[test]
    fn malformed_tables_are_errors() {
        let table =
            |rows: &str| format!("static const struct x __dg2_fw_ranges[] = {{\n{rows}\n}};\n");
        assert!(dg2_ranges("nothing here").is_err());
        assert!(dg2_ranges(&table("")).is_err(), "no rows");
        assert!(dg2_ranges(&table("GEN_FW_RANGE(0x0, 0x1, FORCEWAKE_BLITTER),")).is_err());
        assert!(dg2_ranges(&table("GEN_FW_RANGE(0x0, 0x1, FORCEWAKE_MEDIA_VDBOX8),")).is_err());
        assert!(dg2_ranges(&table("GEN_FW_RANGE(0x2, 0x1, 0),")).is_err());
        assert!(dg2_ranges(&table("GEN_FW_RANGE(0x0, 0x1),")).is_err());
        assert!(dg2_ranges(&table("GEN_FW_RANGE(0x0, 0xfoo, 0),")).is_err());
        assert!(
            dg2_ranges("static const struct x __dg2_fw_ranges[] = {\nGEN_FW_RANGE(0, 1, 0),\n")
                .is_err(),
            "never closed"
        );
        assert_eq!(
            dg2_ranges(&table("GEN_FW_RANGE(16, 31, FORCEWAKE_GT),")).unwrap()[0].end,
            31
        );
    }
}
