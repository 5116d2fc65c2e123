//! The driver's forcewake and steering tables, read from its source.
//!
//! `rust/forcewake/table.rs`:
//!
//! ```text
//! pub(crate) const RANGES: &[Range] = &[
//!     r(0x002000, 0x0026ff, RENDER), // seed L467
//! ];
//! ```
//!
//! and `rust/mcr.rs`:
//!
//! ```text
//! const RANGES: &[McrRange] = &[
//!     m(0x000b00, 0x000bff, Steering::SqidiSf),   // L463
//! ];
//! ```
//!
//! Both are read with the `regs` suite's lexer, so layout and comments do not
//! matter; anything else inside the array is an error rather than a row
//! silently skipped.

use super::wake::{Span, Wake};
use crate::suites::regs::lex::{lex, Kind, Token};
use crate::suites::regs::parse::parse_int;
use anyhow::{anyhow, bail, Context as _, Result};

/// The forcewake table, relative to the repository.
pub const TABLE_FILE: &str = "rust/forcewake/table.rs";

/// The multicast table, relative to the repository.
pub const MCR_FILE: &str = "rust/mcr.rs";

/// A replication group as the driver names it (`mcr::Steering`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Steering {
    /// `Dss`.
    Dss,
    /// `Gslice`.
    Gslice,
    /// `L3bank`.
    L3bank,
    /// `Lncf`.
    Lncf,
    /// `Mslice`.
    Mslice,
    /// `Gam`: read from the primary GAM only.
    Gam,
    /// `SqidiSf`: SQIDI behind the SF selector.
    SqidiSf,
    /// `SqidiMcfg`: SQIDI behind the MCFG selector.
    SqidiMcfg,
}

impl Steering {
    fn from_name(name: &str) -> Result<Steering> {
        Ok(match name {
            "Dss" => Steering::Dss,
            "Gslice" => Steering::Gslice,
            "L3bank" => Steering::L3bank,
            "Lncf" => Steering::Lncf,
            "Mslice" => Steering::Mslice,
            "Gam" => Steering::Gam,
            "SqidiSf" => Steering::SqidiSf,
            "SqidiMcfg" => Steering::SqidiMcfg,
            _ => bail!("unknown steering `{name}`"),
        })
    }
}

/// The rows of `rust/forcewake/table.rs`'s `RANGES`.
pub fn forcewake_table(src: &str) -> Result<Vec<Span<Wake>>> {
    calls(src, "RANGES", "r")?
        .into_iter()
        .map(|c| {
            let wake = match c.value.as_slice() {
                [name] => Wake::from_name(name),
                _ => Err(anyhow!(
                    "expected a wake name, found `{}`",
                    c.value.join("::")
                )),
            }
            .with_context(|| format!("line {}", c.line))?;
            Ok(c.span(wake))
        })
        .collect()
}

/// The rows of `rust/mcr.rs`'s `RANGES`.
pub fn mcr_table(src: &str) -> Result<Vec<Span<Steering>>> {
    calls(src, "RANGES", "m")?
        .into_iter()
        .map(|c| {
            let steering = match c.value.as_slice() {
                [name] | [_, name] => Steering::from_name(name),
                _ => Err(anyhow!(
                    "expected `Steering::X`, found `{}`",
                    c.value.join("::")
                )),
            }
            .with_context(|| format!("line {}", c.line))?;
            Ok(c.span(steering))
        })
        .collect()
}

/// One `f(start, end, path)` row.
struct Call {
    start: u32,
    end: u32,
    /// The path's identifiers (`RENDER`, or `Steering`, `Dss`).
    value: Vec<String>,
    line: usize,
}

impl Call {
    fn span<T>(&self, value: T) -> Span<T> {
        Span {
            start: self.start,
            end: self.end,
            value,
            line: self.line,
        }
    }
}

/// The `func(a, b, path)` rows of the array that initialises `const NAME`.
fn calls(src: &str, name: &str, func: &str) -> Result<Vec<Call>> {
    let tokens = lex(src)?;
    let body = array_of_const(&tokens, name)
        .with_context(|| format!("no `const {name}: ... = &[...]` found"))?;
    let mut out = Vec::new();
    let mut rest = body;
    while let Some(first) = rest.first() {
        let line = first.line;
        let args = match rest {
            [f, args, ..] if f.ident() == Some(func) => args
                .group('(')
                .with_context(|| format!("line {line}: expected `{func}(...)`"))?,
            _ => bail!("line {line}: expected a `{func}(start, end, target)` row"),
        };
        out.push(call(args, line)?);
        rest = &rest[2..];
        if rest.first().is_some_and(|t| t.is_punct(',')) {
            rest = &rest[1..];
        }
    }
    Ok(out)
}

/// Arguments `START, END, PATH[,]`.
fn call(args: &[Token], line: usize) -> Result<Call> {
    let parts: Vec<&[Token]> = args.split(|t| t.is_punct(',')).collect();
    let parts = match parts.as_slice() {
        [a, b, c] | [a, b, c, []] => [*a, *b, *c],
        _ => bail!("line {line}: expected three arguments"),
    };
    let number = |p: &[Token]| -> Result<u32> {
        match p {
            [Token {
                kind: Kind::Lit(s), ..
            }] => parse_int(s)
                .and_then(|v| u32::try_from(v).ok())
                .ok_or_else(|| anyhow!("line {line}: `{s}` is not a 32-bit offset")),
            _ => bail!("line {line}: expected an offset literal"),
        }
    };
    let (start, end) = (number(parts[0])?, number(parts[1])?);
    let mut value = Vec::new();
    for t in parts[2] {
        match (&t.kind, t.ident()) {
            (_, Some(id)) => value.push(id.to_string()),
            (Kind::Punct(':'), _) => {}
            _ => bail!("line {line}: expected a name or a path as the third argument"),
        }
    }
    Ok(Call {
        start,
        end,
        value,
        line,
    })
}

/// The contents of `[...]` after `const NAME ... =`, at any depth.
fn array_of_const<'a>(tokens: &'a [Token], name: &str) -> Option<&'a [Token]> {
    for (i, t) in tokens.iter().enumerate() {
        let is_const = t.ident() == Some(name) && i > 0 && tokens[i - 1].ident() == Some("const");
        if is_const {
            let eq = tokens[i..].iter().position(|t| t.is_punct('='))? + i;
            return tokens[eq..].iter().find_map(|t| t.group('['));
        }
        if let Kind::Group(_, inner) = &t.kind {
            if let Some(found) = array_of_const(inner, name) {
                return Some(found);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: &str = "
/// Sorted (checked by KUnit): `[a]` in a doc comment is not the array.
pub(crate) const RANGES: &[Range] = &[
    r(0x000000, 0x000aff, NONE),   // seed L462
    r(0x000b00, 0x001fff, AON),    /* seed L463-L466 */
    r(
        0x002000,
        0x0026ff,
        RENDER,
    ), // rustfmt may break a row
    r(0x1f8000, 0x1fa0ff, VE3)
];
const OTHER: &[Range] = &[r(0, 1, GT)];
";

    #[test]
    fn reads_the_forcewake_rows() {
        let t = forcewake_table(TABLE).unwrap();
        let got: Vec<_> = t
            .iter()
            .map(|s| (s.start, s.end, s.value, s.line))
            .collect();
        assert_eq!(
            got,
            [
                (0, 0xaff, Wake::None, 4),
                (0xb00, 0x1fff, Wake::None, 5),
                (0x2000, 0x26ff, Wake::Render, 6),
                (0x1f8000, 0x1fa0ff, Wake::Ve(3), 11),
            ]
        );
    }

    #[test]
    fn reads_the_mcr_rows() {
        let src = "const RANGES: &[McrRange] = &[\n    m(0x000b00, 0x000bff, Steering::SqidiSf), // L463\n    m(0x4000, 0x4aff, Gam),\n];";
        let t = mcr_table(src).unwrap();
        assert_eq!(t[0].value, Steering::SqidiSf);
        assert_eq!(
            (t[1].start, t[1].end, t[1].value),
            (0x4000, 0x4aff, Steering::Gam)
        );
    }

    #[test]
    fn anything_unexpected_is_an_error() {
        let wrap = |rows: &str| format!("const RANGES: &[Range] = &[{rows}];");
        assert!(forcewake_table(&wrap("r(0, 1, GT), x(2, 3, GT)")).is_err());
        assert!(forcewake_table(&wrap("r(0, 1)")).is_err());
        assert!(forcewake_table(&wrap("r(0, 0x1_0000_0000, GT)")).is_err());
        assert!(forcewake_table(&wrap("r(0, 1, VD9)")).is_err());
        assert!(forcewake_table(&wrap("r(0, 1, \"GT\")")).is_err());
        assert!(forcewake_table("const OTHER: &[Range] = &[];").is_err());
        assert!(mcr_table("const RANGES: &[M] = &[m(0, 1, Steering::Foo)];").is_err());
        assert!(forcewake_table(&wrap("")).unwrap().is_empty());
    }
}
