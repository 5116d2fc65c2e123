//! Just enough of the C preprocessor and C integer expressions to read
//! upstream xe's register and bit definitions: `#define`s (object-like and
//! function-like), `REG_BIT`, `REG_GENMASK`, `REG_FIELD_PREP`, `BIT`,
//! `GENMASK`, `~ | & ^ << >> + - *` and parentheses, and `XE_REG` /
//! `XE_REG_MCR` register definitions.

use anyhow::{anyhow, bail, Context as _, Result};
use std::collections::BTreeMap;

/// One `#define`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Define {
    /// Parameter names of a function-like macro; `None` for object-like.
    pub params: Option<Vec<String>>,
    /// Replacement text.
    pub body: String,
}

/// Every `#define` of some C sources, later files overriding earlier ones.
#[derive(Debug, Default, Clone)]
pub struct Defines(pub BTreeMap<String, Define>);

/// A register as upstream defines it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reg {
    /// Offset (from the engine base when the definition's base is 0).
    pub offset: u32,
    /// `XE_REG_MCR`.
    pub mcr: bool,
    /// `XE_REG_OPTION_MASKED`.
    pub masked: bool,
}

/// `text` without `/* */` and `//` comments, line continuations joined.
pub fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let b = text.as_bytes();
    let mut i = 0;
    let mut in_str = false;
    while i < b.len() {
        let c = b[i] as char;
        if in_str {
            out.push(c);
            if c == '\\' && i + 1 < b.len() {
                out.push(b[i + 1] as char);
                i += 2;
                continue;
            }
            if c == '"' {
                in_str = false;
            }
            i += 1;
        } else if c == '"' {
            in_str = true;
            out.push(c);
            i += 1;
        } else if text[i..].starts_with("/*") {
            match text[i + 2..].find("*/") {
                Some(end) => {
                    // Keep line numbers roughly: a space for the comment.
                    out.push(' ');
                    i += 2 + end + 2;
                }
                None => break,
            }
        } else if text[i..].starts_with("//") {
            match text[i..].find('\n') {
                Some(end) => i += end,
                None => break,
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out.replace("\\\n", " ")
}

impl Defines {
    /// Adds the `#define`s of one C source.
    pub fn add_source(&mut self, text: &str) {
        for line in strip_comments(text).lines() {
            let t = line.trim_start();
            let Some(rest) = t.strip_prefix('#') else {
                continue;
            };
            let Some(rest) = rest.trim_start().strip_prefix("define") else {
                continue;
            };
            let rest = rest.trim_start();
            let name_end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            let name = &rest[..name_end];
            if name.is_empty() {
                continue;
            }
            let after = &rest[name_end..];
            let (params, body) = if let Some(p) = after.strip_prefix('(') {
                let Some(close) = p.find(')') else { continue };
                let params = p[..close]
                    .split(',')
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty())
                    .collect();
                (Some(params), p[close + 1..].trim().to_string())
            } else {
                (None, after.trim().to_string())
            };
            self.0.insert(name.to_string(), Define { params, body });
        }
    }

    /// Evaluates a C integer expression.
    ///
    /// # Errors
    ///
    /// An unknown identifier or a malformed expression.
    pub fn eval(&self, expr: &str) -> Result<u64> {
        let toks = tokenize(expr)?;
        let mut p = Parser {
            defs: self,
            toks,
            pos: 0,
            depth: 0,
        };
        let v = p.or().with_context(|| format!("evaluating {expr:?}"))?;
        if p.pos != p.toks.len() {
            bail!("trailing tokens in {expr:?}");
        }
        Ok(v)
    }

    /// Resolves a register expression (`MISCCPCTL`, `CS_DEBUG_MODE1(RENDER_RING_BASE)`) to
    /// its `XE_REG` / `XE_REG_MCR` definition.
    ///
    /// # Errors
    ///
    /// It does not expand to a register definition.
    pub fn reg(&self, expr: &str) -> Result<Reg> {
        let mut text = expr.trim().to_string();
        for _ in 0..16 {
            let (name, args) = split_call(&text);
            if name == "XE_REG" || name == "XE_REG_MCR" {
                let args = args.ok_or_else(|| anyhow!("{name} without arguments"))?;
                let parts = split_top(&args, ',');
                let first = parts.first().ok_or_else(|| anyhow!("empty {name}"))?;
                let offset = u32::try_from(self.eval(first)?)?;
                let rest = parts.get(1..).unwrap_or_default().join(",");
                return Ok(Reg {
                    offset,
                    mcr: name == "XE_REG_MCR" || rest.contains(".mcr = 1"),
                    masked: rest.contains("XE_REG_OPTION_MASKED"),
                });
            }
            let def = self
                .0
                .get(name)
                .ok_or_else(|| anyhow!("register {name:?} is not defined"))?;
            text = match (&def.params, args) {
                (Some(params), Some(args)) => substitute(&def.body, params, &split_top(&args, ',')),
                (None, None) => def.body.clone(),
                _ => bail!("register macro {name} used with the wrong shape in {expr:?}"),
            };
        }
        bail!("register {expr:?} expands too deeply")
    }
}

/// `NAME(args)` as `(NAME, Some(args))`; anything else as `(text, None)`.
fn split_call(text: &str) -> (&str, Option<String>) {
    let t = text.trim();
    match t.find('(') {
        Some(open) if t.ends_with(')') => {
            let name = t[..open].trim();
            if name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                (name, Some(t[open + 1..t.len() - 1].to_string()))
            } else {
                (t, None)
            }
        }
        _ => (t, None),
    }
}

/// Splits `text` at `sep` outside parentheses, braces and strings.
pub fn split_top(text: &str, sep: char) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut in_str = false;
    let mut cur = String::new();
    for c in text.chars() {
        if in_str {
            cur.push(c);
            if c == '"' {
                in_str = false;
            }
            continue;
        }
        match c {
            '"' => {
                in_str = true;
                cur.push(c);
            }
            '(' | '{' | '[' => {
                depth += 1;
                cur.push(c);
            }
            ')' | '}' | ']' => {
                depth -= 1;
                cur.push(c);
            }
            c if c == sep && depth == 0 => out.push(std::mem::take(&mut cur).trim().to_string()),
            c => cur.push(c),
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// `body` with each parameter replaced by its argument (parenthesised).
fn substitute(body: &str, params: &[String], args: &[String]) -> String {
    let mut out = String::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        if let Some(i) = params.iter().position(|p| p == word) {
            let a = args.get(i).map(String::as_str).unwrap_or("");
            out.push('(');
            out.push_str(a);
            out.push(')');
        } else {
            out.push_str(word);
        }
        word.clear();
    };
    for c in body.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Num(u64),
    Ident(String),
    Op(&'static str),
}

fn tokenize(s: &str) -> Result<Vec<Tok>> {
    const OPS: [&str; 12] = ["<<", ">>", "(", ")", ",", "|", "&", "^", "~", "+", "-", "*"];
    let mut out = Vec::new();
    let mut rest = s.trim_start();
    while !rest.is_empty() {
        let c = rest.chars().next().unwrap_or(' ');
        if c.is_ascii_digit() {
            let end = rest
                .find(|c: char| !c.is_ascii_alphanumeric())
                .unwrap_or(rest.len());
            let lit = rest[..end].trim_end_matches(['u', 'U', 'l', 'L']);
            let v = match lit.strip_prefix("0x").or_else(|| lit.strip_prefix("0X")) {
                Some(h) => u64::from_str_radix(h, 16)?,
                None => lit.parse()?,
            };
            out.push(Tok::Num(v));
            rest = &rest[end..];
        } else if c.is_ascii_alphabetic() || c == '_' {
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            out.push(Tok::Ident(rest[..end].to_string()));
            rest = &rest[end..];
        } else if let Some(op) = OPS.iter().find(|o| rest.starts_with(**o)) {
            out.push(Tok::Op(op));
            rest = &rest[op.len()..];
        } else {
            bail!("unexpected {c:?} in {s:?}");
        }
        rest = rest.trim_start();
    }
    Ok(out)
}

struct Parser<'a> {
    defs: &'a Defines,
    toks: Vec<Tok>,
    pos: usize,
    depth: usize,
}

impl Parser<'_> {
    fn peek_op(&self, op: &str) -> bool {
        matches!(self.toks.get(self.pos), Some(Tok::Op(o)) if *o == op)
    }

    fn expect(&mut self, op: &str) -> Result<()> {
        if self.peek_op(op) {
            self.pos += 1;
            Ok(())
        } else {
            bail!("expected {op:?} at token {}", self.pos)
        }
    }

    fn binary(&mut self, ops: &[&str], next: fn(&mut Self) -> Result<u64>) -> Result<u64> {
        let mut v = next(self)?;
        while let Some(Tok::Op(o)) = self.toks.get(self.pos) {
            let o = *o;
            if !ops.contains(&o) {
                break;
            }
            self.pos += 1;
            let r = next(self)?;
            v = match o {
                "|" => v | r,
                "^" => v ^ r,
                "&" => v & r,
                "<<" => v.checked_shl(u32::try_from(r)?).unwrap_or(0),
                ">>" => v.checked_shr(u32::try_from(r)?).unwrap_or(0),
                "+" => v.wrapping_add(r),
                "-" => v.wrapping_sub(r),
                "*" => v.wrapping_mul(r),
                _ => bail!("operator {o}"),
            };
        }
        Ok(v)
    }

    fn or(&mut self) -> Result<u64> {
        self.binary(&["|"], Self::xor)
    }
    fn xor(&mut self) -> Result<u64> {
        self.binary(&["^"], Self::and)
    }
    fn and(&mut self) -> Result<u64> {
        self.binary(&["&"], Self::shift)
    }
    fn shift(&mut self) -> Result<u64> {
        self.binary(&["<<", ">>"], Self::add)
    }
    fn add(&mut self) -> Result<u64> {
        self.binary(&["+", "-"], Self::mul)
    }
    fn mul(&mut self) -> Result<u64> {
        self.binary(&["*"], Self::unary)
    }

    fn unary(&mut self) -> Result<u64> {
        if self.peek_op("~") {
            self.pos += 1;
            // Register values are 32 bits wide.
            return Ok(!self.unary()? & 0xffff_ffff);
        }
        if self.peek_op("-") {
            self.pos += 1;
            return Ok(self.unary()?.wrapping_neg());
        }
        self.primary()
    }

    /// The arguments of a call whose name was just consumed, as token slices evaluated.
    fn args(&mut self) -> Result<Vec<u64>> {
        self.expect("(")?;
        let mut out = vec![self.or()?];
        while self.peek_op(",") {
            self.pos += 1;
            out.push(self.or()?);
        }
        self.expect(")")?;
        Ok(out)
    }

    /// The raw text of the arguments of a call whose name was just consumed.
    fn raw_args(&mut self) -> Result<Vec<String>> {
        self.expect("(")?;
        let mut depth = 1;
        let mut cur = String::new();
        let mut out = Vec::new();
        while let Some(t) = self.toks.get(self.pos).cloned() {
            self.pos += 1;
            match t {
                Tok::Op("(") => {
                    depth += 1;
                    cur.push('(');
                }
                Tok::Op(")") => {
                    depth -= 1;
                    if depth == 0 {
                        out.push(cur);
                        return Ok(out);
                    }
                    cur.push(')');
                }
                Tok::Op(",") if depth == 1 => out.push(std::mem::take(&mut cur)),
                Tok::Op(o) => cur.push_str(o),
                Tok::Num(n) => cur.push_str(&format!(" {n} ")),
                Tok::Ident(i) => cur.push_str(&format!(" {i} ")),
            }
        }
        bail!("unclosed call")
    }

    fn primary(&mut self) -> Result<u64> {
        let tok = self
            .toks
            .get(self.pos)
            .cloned()
            .ok_or_else(|| anyhow!("unexpected end"))?;
        self.pos += 1;
        match tok {
            Tok::Num(n) => Ok(n),
            Tok::Op("(") => {
                let v = self.or()?;
                self.expect(")")?;
                Ok(v)
            }
            Tok::Ident(name) => self.ident(&name),
            Tok::Op(o) => bail!("unexpected {o:?}"),
        }
    }

    fn ident(&mut self, name: &str) -> Result<u64> {
        let mask = |h: u64, l: u64| -> Result<u64> {
            if h < l || h > 63 {
                bail!("bad mask {h}:{l}");
            }
            Ok((u64::MAX >> (63 - h)) & !((1u64 << l) - 1))
        };
        match name {
            "REG_BIT" | "BIT" | "BIT_U32" => {
                let a = self.args()?;
                let n = *a.first().ok_or_else(|| anyhow!("{name}()"))?;
                return Ok(1u64.checked_shl(u32::try_from(n)?).unwrap_or(0));
            }
            "REG_GENMASK" | "GENMASK" => {
                let a = self.args()?;
                let (Some(h), Some(l)) = (a.first(), a.get(1)) else {
                    bail!("{name} needs 2")
                };
                return mask(*h, *l);
            }
            "REG_FIELD_PREP" | "FIELD_PREP" => {
                let a = self.args()?;
                let (Some(m), Some(v)) = (a.first(), a.get(1)) else {
                    bail!("{name} needs 2")
                };
                if *m == 0 {
                    bail!("{name} with an empty mask");
                }
                return Ok((v << m.trailing_zeros()) & m);
            }
            _ => {}
        }
        self.depth += 1;
        if self.depth > 64 {
            bail!("{name} expands too deeply");
        }
        let def = self
            .defs
            .0
            .get(name)
            .ok_or_else(|| anyhow!("{name} is not defined"))?
            .clone();
        let text = match &def.params {
            Some(params) => {
                let args = self.raw_args()?;
                substitute(&def.body, params, &args)
            }
            None => def.body.clone(),
        };
        let v = self.defs.eval(&text);
        self.depth -= 1;
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defs() -> Defines {
        let mut d = Defines::default();
        d.add_source(
            "#define RENDER_RING_BASE 0x02000\n\
             #define CS_DEBUG_MODE1(base)\tXE_REG((base) + 0xec, XE_REG_OPTION_MASKED)\n\
             #define   FF_DOP_CLOCK_GATE_DISABLE REG_BIT(1)\n\
             #define SARB_CHICKEN1 XE_REG_MCR(0xe90c) /* comment */\n\
             #define   COMP_CKN_IN REG_GENMASK(30, 29)\n\
             #define   MAXREQS_PER_BANK REG_GENMASK(39 - 32, 37 - 32)\n\
             #define L3_LKUP(value) REG_FIELD_PREP(L3_LKUP_MASK, value)\n\
             #define L3_LKUP_MASK REG_BIT(7)\n\
             #define LONG \\\n  0x10\n",
        );
        d
    }

    #[test]
    fn bits_and_fields() {
        let d = defs();
        assert_eq!(d.eval("FF_DOP_CLOCK_GATE_DISABLE").ok(), Some(2));
        assert_eq!(d.eval("COMP_CKN_IN").ok(), Some(0x6000_0000));
        assert_eq!(d.eval("MAXREQS_PER_BANK").ok(), Some(0xe0));
        assert_eq!(
            d.eval("REG_FIELD_PREP(MAXREQS_PER_BANK, 2)").ok(),
            Some(0x40)
        );
        assert_eq!(d.eval("L3_LKUP(1) | 0x10").ok(), Some(0x90));
        assert_eq!(d.eval("~0x0").ok(), Some(0xffff_ffff));
        assert_eq!(d.eval("LONG").ok(), Some(0x10));
        assert!(d.eval("NOT_DEFINED").is_err());
    }

    #[test]
    fn registers() {
        let d = defs();
        let r = d.reg("CS_DEBUG_MODE1(RENDER_RING_BASE)").ok();
        assert_eq!(
            r,
            Some(Reg {
                offset: 0x20ec,
                mcr: false,
                masked: true
            })
        );
        let r = d.reg("SARB_CHICKEN1").ok();
        assert_eq!(
            r.map(|r| (r.offset, r.mcr, r.masked)),
            Some((0xe90c, true, false))
        );
        assert_eq!(
            d.reg("CS_DEBUG_MODE1(0)").ok().map(|r| r.offset),
            Some(0xec)
        );
        assert!(d.reg("FF_DOP_CLOCK_GATE_DISABLE").is_err());
    }

    #[test]
    fn splitting() {
        assert_eq!(
            split_top("A(1, 2), B, \"x, y\"", ','),
            vec!["A(1, 2)", "B", "\"x, y\""]
        );
    }
}
