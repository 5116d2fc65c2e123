//! Reads `kernel::io::register!` invocations out of Rust source.
//!
//! Grammar accepted (Linux 7.3 `rust/kernel/io/register.rs`, the macro's entry
//! rule, and `rust/kernel/bitfield.rs` for the fields):
//!
//! ```text
//! register! {
//!     #[attr]* vis? NAME(storage) ([SIZE (, stride = STRIDE)?])?
//!         ( @ (Base +)? OFFSET  |  => ALIAS (+ ALIAS2)? ([IDX])? )?
//!     {
//!         #[attr]* HI:LO field ( => Type | ?=> Type )? ;
//!     }
//! }
//! ```

use super::lex::{lex, Kind, Token};
use anyhow::{anyhow, bail, Result};

/// Where a register lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// `@ 0x100`: a fixed offset.
    Fixed(u64),
    /// `@ Base + 0x10`: an offset from a base chosen at the access.
    Relative {
        /// The base family type.
        base: String,
        /// Offset from the base.
        offset: u64,
    },
    /// `=> OTHER`, `=> OTHER[3]`, `=> Base + OTHER`: another register's address.
    Alias {
        /// Base family, for relative aliases.
        base: Option<String>,
        /// The aliased register.
        target: String,
        /// Array index, as written.
        index: Option<String>,
    },
}

/// `[SIZE, stride = STRIDE]` of a register array, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArraySpec {
    /// Number of registers.
    pub size: String,
    /// Distance between registers; `None` means the storage size.
    pub stride: Option<String>,
}

/// One bit field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// Field name.
    pub name: String,
    /// Highest bit, inclusive.
    pub hi: u8,
    /// Lowest bit, inclusive.
    pub lo: u8,
}

/// One register definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Register {
    /// Register name.
    pub name: String,
    /// Line of the name in its file.
    pub line: usize,
    /// Storage type, e.g. `u32`.
    pub storage: String,
    /// Array shape, for register arrays.
    pub array: Option<ArraySpec>,
    /// Where it lives.
    pub location: Location,
    /// Bit fields in declaration order.
    pub fields: Vec<Field>,
}

impl Register {
    /// Width of the storage type in bytes, if it is a plain unsigned integer.
    pub fn storage_bytes(&self) -> Option<u64> {
        match self.storage.as_str() {
            "u8" => Some(1),
            "u16" => Some(2),
            "u32" => Some(4),
            "u64" => Some(8),
            _ => None,
        }
    }
}

/// Every register defined by `register!` invocations in `src`.
pub fn registers_in(src: &str) -> Result<Vec<Register>> {
    let tokens = lex(src)?;
    let mut regs = Vec::new();
    collect(&tokens, &mut regs)?;
    Ok(regs)
}

/// Finds `register ! {...}` (any path prefix, any delimiter) at every depth.
fn collect(tokens: &[Token], out: &mut Vec<Register>) -> Result<()> {
    for (i, t) in tokens.iter().enumerate() {
        if let Kind::Group(_, inner) = &t.kind {
            let is_invocation =
                i >= 2 && tokens[i - 2].ident() == Some("register") && tokens[i - 1].is_punct('!');
            if is_invocation {
                out.extend(Items { t: inner, pos: 0 }.registers()?);
            } else {
                collect(inner, out)?;
            }
        }
    }
    Ok(())
}

/// A cursor over the tokens of one invocation.
struct Items<'a> {
    t: &'a [Token],
    pos: usize,
}

impl<'a> Items<'a> {
    fn peek(&self, ahead: usize) -> Option<&'a Token> {
        self.t.get(self.pos + ahead)
    }

    fn next(&mut self) -> Option<&'a Token> {
        let t = self.peek(0)?;
        self.pos += 1;
        Some(t)
    }

    /// Line of the next token (or the last one), for messages.
    fn line(&self) -> usize {
        self.peek(0).or(self.t.last()).map_or(0, |t| t.line)
    }

    fn punct(&mut self, c: char) -> bool {
        let hit = self.peek(0).is_some_and(|t| t.is_punct(c));
        if hit {
            self.pos += 1;
        }
        hit
    }

    /// Consumes `=>` (if `c` is `=`, the `>` must follow).
    fn arrow(&mut self) -> bool {
        let hit = self.peek(0).is_some_and(|t| t.is_punct('='))
            && self.peek(1).is_some_and(|t| t.is_punct('>'));
        if hit {
            self.pos += 2;
        }
        hit
    }

    fn expect_ident(&mut self, what: &str) -> Result<(&'a str, usize)> {
        let line = self.line();
        match self.next() {
            Some(t) => match t.ident() {
                Some(s) => Ok((s, t.line)),
                None => bail!("line {line}: expected {what}, found {:?}", t.kind),
            },
            None => bail!("line {line}: expected {what}, found the end"),
        }
    }

    fn expect_group(&mut self, open: char, what: &str) -> Result<&'a [Token]> {
        let line = self.line();
        self.next()
            .and_then(|t| t.group(open))
            .ok_or_else(|| anyhow!("line {line}: expected {what}"))
    }

    fn skip_attributes(&mut self) {
        while self.peek(0).is_some_and(|t| t.is_punct('#'))
            && self.peek(1).is_some_and(|t| t.group('[').is_some())
        {
            self.pos += 2;
        }
    }

    fn skip_visibility(&mut self) {
        if self.peek(0).and_then(Token::ident) == Some("pub") {
            self.pos += 1;
            if self.peek(0).is_some_and(|t| t.group('(').is_some()) {
                self.pos += 1;
            }
        }
    }

    fn registers(mut self) -> Result<Vec<Register>> {
        let mut regs = Vec::new();
        loop {
            self.skip_attributes();
            if self.peek(0).is_none() {
                return Ok(regs);
            }
            regs.push(self.register()?);
        }
    }

    fn register(&mut self) -> Result<Register> {
        self.skip_visibility();
        let (name, line) = self.expect_ident("a register name")?;
        let storage = text(self.expect_group('(', "`(storage)` after the register name")?);
        let array = match self.peek(0).and_then(|t| t.group('[')) {
            Some(inner) => {
                self.pos += 1;
                Some(array_spec(inner))
            }
            None => None,
        };
        let location = self.location(name)?;
        let body = self.expect_group('{', "the `{ fields }` of the register")?;
        let fields = Items { t: body, pos: 0 }.fields()?;
        Ok(Register {
            name: name.to_string(),
            line,
            storage,
            array,
            location,
            fields,
        })
    }

    fn location(&mut self, name: &str) -> Result<Location> {
        let line = self.line();
        if self.punct('@') {
            let first = self
                .next()
                .ok_or_else(|| anyhow!("line {line}: nothing after `@`"))?;
            if let Some(base) = first.ident() {
                if !self.punct('+') {
                    bail!("line {line}: expected `+` after base `{base}`");
                }
                let offset = self.number()?;
                return Ok(Location::Relative {
                    base: base.to_string(),
                    offset,
                });
            }
            self.pos -= 1;
            return Ok(Location::Fixed(self.number()?));
        }
        if self.arrow() {
            let (first, _) = self.expect_ident("the aliased register")?;
            let (base, target) = if self.punct('+') {
                let (t, _) = self.expect_ident("the aliased register")?;
                (Some(first.to_string()), t.to_string())
            } else {
                (None, first.to_string())
            };
            let index = match self.peek(0).and_then(|t| t.group('[')) {
                Some(inner) => {
                    self.pos += 1;
                    Some(text(inner))
                }
                None => None,
            };
            return Ok(Location::Alias {
                base,
                target,
                index,
            });
        }
        bail!("line {line}: register {name} has neither `@ offset` nor `=> alias`")
    }

    fn number(&mut self) -> Result<u64> {
        let line = self.line();
        match self.next().map(|t| &t.kind) {
            Some(Kind::Lit(s)) => {
                parse_int(s).ok_or_else(|| anyhow!("line {line}: {s:?} is not an integer literal"))
            }
            other => bail!("line {line}: expected an integer literal, found {other:?}"),
        }
    }

    fn fields(mut self) -> Result<Vec<Field>> {
        let mut fields = Vec::new();
        loop {
            self.skip_attributes();
            if self.peek(0).is_none() {
                return Ok(fields);
            }
            fields.push(self.field()?);
        }
    }

    /// `HI:LO name (=> Type | ?=> Type)? ;`
    fn field(&mut self) -> Result<Field> {
        let line = self.line();
        let hi = self.bit()?;
        if !self.punct(':') {
            bail!("line {line}: expected `:` in a `hi:lo` bit range");
        }
        let lo = self.bit()?;
        let (name, _) = self.expect_ident("a field name")?;
        if hi < lo {
            bail!("line {line}: field {name} has hi {hi} below lo {lo}");
        }
        let converted = self.arrow() || (self.punct('?') && self.arrow());
        if converted {
            // The type may be any path or generic; it ends at `;`.
            while self.peek(0).is_some_and(|t| !t.is_punct(';')) {
                self.pos += 1;
            }
        }
        if !self.punct(';') && self.peek(0).is_some() {
            bail!("line {line}: expected `;` after field {name}");
        }
        Ok(Field {
            name: name.to_string(),
            hi,
            lo,
        })
    }

    fn bit(&mut self) -> Result<u8> {
        let line = self.line();
        let n = self.number()?;
        u8::try_from(n)
            .ok()
            .filter(|b| *b < 64)
            .ok_or_else(|| anyhow!("line {line}: bit {n} out of range"))
    }
}

fn array_spec(inner: &[Token]) -> ArraySpec {
    let mut parts = inner.split(|t| t.is_punct(','));
    let size = text(parts.next().unwrap_or_default());
    let stride = parts.next().map(|p| {
        let value = match p {
            [key, eq, rest @ ..] if key.ident() == Some("stride") && eq.is_punct('=') => rest,
            _ => p,
        };
        text(value)
    });
    ArraySpec { size, stride }
}

/// Tokens back as compact text (`u32`, `4`, `size_of::<u32>()` loosely).
fn text(tokens: &[Token]) -> String {
    tokens
        .iter()
        .map(|t| match &t.kind {
            Kind::Ident(s) | Kind::Lit(s) => s.clone(),
            Kind::Punct(c) => c.to_string(),
            Kind::Group(o, inner) => {
                let close = match o {
                    '(' => ')',
                    '[' => ']',
                    _ => '}',
                };
                format!("{o}{}{close}", text(inner))
            }
        })
        .collect::<Vec<_>>()
        .join("")
}

/// An integer literal: decimal, `0x`, `0o`, `0b`, with `_` and a type suffix.
pub fn parse_int(lit: &str) -> Option<u64> {
    let clean: String = lit.chars().filter(|c| *c != '_').collect();
    let (radix, digits) = match clean.get(..2) {
        Some("0x") => (16, &clean[2..]),
        Some("0o") => (8, &clean[2..]),
        Some("0b") => (2, &clean[2..]),
        _ => (10, clean.as_str()),
    };
    let end = digits
        .find(|c: char| !c.is_digit(radix))
        .unwrap_or(digits.len());
    let suffix = &digits[end..];
    let valid_suffix = suffix.is_empty()
        || [
            "u8", "u16", "u32", "u64", "usize", "i8", "i16", "i32", "i64", "isize",
        ]
        .contains(&suffix);
    if end == 0 || !valid_suffix {
        return None;
    }
    u64::from_str_radix(&digits[..end], radix).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = r#"
use kernel::io::register;

/// Docs mention `register! { FAKE(u32) @ 0x1 {} }` and { unbalanced braces.
kernel::io::register! {
    /// GU control; see the PRM { section 3 }.
    #[derive(Default)]
    pub(crate) GU_CNTL(u32) @ 0x0010_1010 {
        /// Function-level reset { request }.
        31:31 driverflr => bool;
        // plain comment }
        #[doc = "local memory } ready"]
        7:7 lmem_init => bool;
        3:0 status ?=> Status<u8>;
    }
    pub PCODE_DATA0(u32) @ 0x00138128 {
        31:0 value;
    }
    /* block } comment */
    ENGINE_CTL(u32) @ EngineBase + 0x40 {
        0:0 enable
    }
}

mod inner {
    register! {
        SCRATCH(u32)[16, stride = 8] @ 0x100 { 31:0 value; }
        SCRATCH_CONTIG(u16)[4] @ 0x200 { 15:0 value; }
        FW_STATUS(u32) => SCRATCH[8] { 7:0 status; }
        BOOT(u32) => GU_CNTL { 0:0 done; }
        CPU_ALIAS(u32) => CpuBase + ENGINE_CTL { 1:1 start; }
    }
}
"#;

    #[test]
    fn reads_fixed_registers_with_docs_attributes_and_conversions() {
        let regs = registers_in(SAMPLE).unwrap();
        let names: Vec<&str> = regs.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "GU_CNTL",
                "PCODE_DATA0",
                "ENGINE_CTL",
                "SCRATCH",
                "SCRATCH_CONTIG",
                "FW_STATUS",
                "BOOT",
                "CPU_ALIAS"
            ]
        );
        let gu = &regs[0];
        assert_eq!(gu.location, Location::Fixed(0x0010_1010));
        assert_eq!(gu.storage, "u32");
        assert_eq!(gu.line, 8);
        let fields: Vec<(&str, u8, u8)> = gu
            .fields
            .iter()
            .map(|f| (f.name.as_str(), f.hi, f.lo))
            .collect();
        assert_eq!(
            fields,
            [("driverflr", 31, 31), ("lmem_init", 7, 7), ("status", 3, 0)]
        );
        assert_eq!(regs[1].location, Location::Fixed(0x138128));
    }

    #[test]
    fn reads_relative_array_and_alias_forms() {
        let regs = registers_in(SAMPLE).unwrap();
        let by = |n: &str| regs.iter().find(|r| r.name == n).unwrap();
        assert_eq!(
            by("ENGINE_CTL").location,
            Location::Relative {
                base: "EngineBase".into(),
                offset: 0x40
            }
        );
        assert_eq!(by("ENGINE_CTL").fields.len(), 1, "last field without `;`");
        assert_eq!(
            by("SCRATCH").array,
            Some(ArraySpec {
                size: "16".into(),
                stride: Some("8".into())
            })
        );
        assert_eq!(by("SCRATCH_CONTIG").array.as_ref().unwrap().stride, None);
        assert_eq!(
            by("FW_STATUS").location,
            Location::Alias {
                base: None,
                target: "SCRATCH".into(),
                index: Some("8".into())
            }
        );
        assert_eq!(
            by("CPU_ALIAS").location,
            Location::Alias {
                base: Some("CpuBase".into()),
                target: "ENGINE_CTL".into(),
                index: None
            }
        );
    }

    #[test]
    fn malformed_definitions_are_errors_with_lines() {
        let e = registers_in("register! {\n  A(u32) @ 0x10 { 3:0 }\n}").unwrap_err();
        assert!(e.to_string().starts_with("line 2:"), "{e}");
        assert!(
            registers_in("register! { A(u32) { 0:0 x; } }").is_err(),
            "no location"
        );
        assert!(
            registers_in("register! { A(u32) @ 0x10 { 0:3 x; } }").is_err(),
            "hi < lo"
        );
        assert!(registers_in("register! { A(u32) @ 0x10 { 64:0 x; } }").is_err());
        assert!(registers_in("register! { A(u32) @ OFFSET { 0:0 x; } }").is_err());
    }

    #[test]
    fn macro_definitions_and_other_macros_are_ignored() {
        let src = "macro_rules! register { ($x:tt) => {} }\nbitfield! { struct X(u32) { 0:0 a; } }";
        assert!(registers_in(src).unwrap().is_empty());
    }

    #[test]
    fn integer_literals() {
        assert_eq!(parse_int("0x0010_1010"), Some(0x101010));
        assert_eq!(parse_int("0x100u32"), Some(0x100));
        assert_eq!(parse_int("42usize"), Some(42));
        assert_eq!(parse_int("0b101"), Some(5));
        assert_eq!(parse_int("0o17"), Some(15));
        assert_eq!(parse_int("0xfg"), None);
        assert_eq!(parse_int("0x"), None);
    }
}
