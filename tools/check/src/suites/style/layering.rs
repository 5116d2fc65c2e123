//! No direct BAR access outside the register layer.
//!
//! Every BAR access of the driver goes through `Mmio` (`rust/mmio.rs`):
//! `read`, `write`, `write_reg`, `try_read32`, `try_write32` (and `update`,
//! should it grow one). Only the files in `tools/check/bar-access-allow.txt`
//! may call those on the BAR; every other file reaches registers through the
//! forcewake-checked `Gt` accessor or the steering layer. A file outside the
//! list fails if it
//!
//! - calls one of those methods on a value named `bar`, `gttmmadr` or `mmio`,
//!   on a binding or function declared with type `Bar0`, `Mmio` or
//!   `pci::Bar`, on a `let` bound to one of those, or as `Mmio::method(..)`;
//! - mentions `pci::Bar` at all.
//!
//! The source is read with the `regs` suite's lexer, so comments, strings and
//! line breaks do not matter.
//!
//! The allowed files touch registers without `Gt`'s forcewake check, so each
//! `register!` they define, and each register named in the arguments of
//! their direct accesses, must need no forcewake per the driver's table
//! (`NONE`/`AON`), or be a forcewake request register that is only written
//! (requests are shadowed: writes need no wake).

use crate::suites::fwtable::wake::{find, Span, Wake};
use crate::suites::regs::lex::{lex, Kind, Token};
use crate::suites::regs::parse::{parse_int, Location, Register};
use anyhow::{bail, Result};
use std::collections::{BTreeMap, BTreeSet};

/// The allow-list, relative to the repository.
pub const ALLOW_FILE: &str = "tools/check/bar-access-allow.txt";

/// `Mmio`'s access methods.
const METHODS: [&str; 6] = [
    "read",
    "write",
    "write_reg",
    "try_read32",
    "try_write32",
    "update",
];

/// Names that mean the BAR whatever their declared type.
const BAR_NAMES: [&str; 3] = ["bar", "gttmmadr", "mmio"];

/// Types that are the BAR (`pci::Bar` is matched as a path).
const BAR_TYPES: [&str; 2] = ["Bar0", "Mmio"];

/// The forcewake request registers: GT 0xA188, RENDER 0xA278, VDBOX0-7
/// 0xA540-0xA55C, VEBOX0-3 0xA560-0xA56C (seed 000 lines 758-777). They
/// are shadowed, so writing them needs no wake.
fn is_forcewake_request(offset: u64) -> bool {
    offset == 0xA188
        || offset == 0xA278
        || ((0xA540..=0xA56C).contains(&offset) && offset.is_multiple_of(4))
}

/// One entry of the allow-list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Allowed {
    /// Path relative to the repository (`rust/gt.rs`).
    pub file: String,
    /// Why the file may touch the BAR.
    pub reason: String,
}

/// Parses the allow-list: `rust/FILE.rs reason...` per line, `#` comments.
pub fn parse_allow(text: &str) -> Result<Vec<Allowed>> {
    let mut out: Vec<Allowed> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (file, reason) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let n = i + 1;
        if !(file.starts_with("rust/") && file.ends_with(".rs")) {
            bail!("line {n}: `{file}` is not a rust/**/*.rs path");
        }
        if reason.trim().is_empty() {
            bail!("line {n}: {file} has no reason");
        }
        if out.iter().any(|a| a.file == file) {
            bail!("line {n}: {file} is listed twice");
        }
        out.push(Allowed {
            file: file.to_string(),
            reason: reason.trim().to_string(),
        });
    }
    Ok(out)
}

/// One direct access to the BAR.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Access {
    /// Line of the method name.
    pub line: usize,
    /// The receiver as written (`bar`, `self.bar`, `bar()`, `Mmio`).
    pub receiver: String,
    /// The method.
    pub method: String,
    /// Identifiers in the arguments (register names among them).
    pub idents: Vec<String>,
}

impl Access {
    fn reads(&self) -> bool {
        matches!(self.method.as_str(), "read" | "try_read32" | "update")
    }

    fn writes(&self) -> bool {
        !matches!(self.method.as_str(), "read" | "try_read32")
    }
}

/// What one file does with the BAR.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scan {
    /// Direct accesses.
    pub accesses: Vec<Access>,
    /// Lines mentioning `pci::Bar`.
    pub pci_bar: Vec<usize>,
}

/// Scans one source file.
pub fn scan(src: &str) -> Result<Scan> {
    let tokens = lex(src)?;
    let mut names: BTreeSet<String> = BAR_NAMES.iter().map(|s| s.to_string()).collect();
    // Twice, so a `let` bound to a binding found later in the file counts.
    for _ in 0..2 {
        walk(&tokens, &mut |seq| collect_names(seq, &mut names));
    }
    let mut out = Scan::default();
    walk(&tokens, &mut |seq| find_accesses(seq, &names, &mut out));
    out.accesses.sort_by_key(|a| a.line);
    out.pci_bar.sort_unstable();
    out.pci_bar.dedup();
    Ok(out)
}

/// Calls `f` on every token sequence: the file and every group's contents.
fn walk(tokens: &[Token], f: &mut dyn FnMut(&[Token])) {
    f(tokens);
    for t in tokens {
        if let Kind::Group(_, inner) = &t.kind {
            walk(inner, f);
        }
    }
}

fn is_path_sep(seq: &[Token], i: usize) -> bool {
    seq.get(i).is_some_and(|t| t.is_punct(':')) && seq.get(i + 1).is_some_and(|t| t.is_punct(':'))
}

/// Whether the type starting at `seq[i]` is the BAR: `&'a Mmio<..>`,
/// `*const Mmio`, `Bar0<'_>`, `crate::driver::Bar0`, `pci::Bar<..>`.
fn is_bar_type(seq: &[Token], mut i: usize) -> bool {
    // Sigils, lifetimes and qualifiers before the path.
    loop {
        match seq.get(i) {
            Some(t) if t.is_punct('&') || t.is_punct('*') => i += 1,
            Some(t) if t.is_punct('\'') => i += 2,
            Some(t) if matches!(t.ident(), Some("mut" | "const" | "dyn")) => i += 1,
            _ => break,
        }
    }
    let mut path = Vec::new();
    while let Some(id) = seq.get(i).and_then(Token::ident) {
        path.push(id);
        if is_path_sep(seq, i + 1) {
            i += 3;
        } else {
            break;
        }
    }
    match path.as_slice() {
        [.., last] if BAR_TYPES.contains(last) => true,
        [.., "pci", "Bar"] => true,
        _ => false,
    }
}

/// Adds the names this sequence declares as the BAR.
fn collect_names(seq: &[Token], names: &mut BTreeSet<String>) {
    for (i, t) in seq.iter().enumerate() {
        let Some(id) = t.ident() else { continue };
        // `name: Type` (fields, parameters, typed lets), not `a::b`.
        let annotated = seq.get(i + 1).is_some_and(|t| t.is_punct(':'))
            && !is_path_sep(seq, i + 1)
            && !(i > 0 && seq[i - 1].is_punct(':'))
            && is_bar_type(seq, i + 2);
        // `fn name(..) -> Type`.
        let returns = i > 0
            && seq[i - 1].ident() == Some("fn")
            && seq.get(i + 1).is_some_and(|t| t.group('(').is_some())
            && seq.get(i + 2).is_some_and(|t| t.is_punct('-'))
            && seq.get(i + 3).is_some_and(|t| t.is_punct('>'))
            && is_bar_type(seq, i + 4);
        if annotated || returns {
            names.insert(id.to_string());
        }
        // `let [mut] name = EXPR;` where EXPR ends in a BAR name or builds an Mmio.
        if id == "let" {
            let mut j = i + 1;
            if seq.get(j).and_then(Token::ident) == Some("mut") {
                j += 1;
            }
            let Some(name) = seq.get(j).and_then(Token::ident) else {
                continue;
            };
            let Some(eq) = seq[j..].iter().position(|t| t.is_punct('=')) else {
                continue;
            };
            let rest = &seq[j + eq + 1..];
            let expr = &rest[..rest
                .iter()
                .position(|t| t.is_punct(';'))
                .unwrap_or(rest.len())];
            let builds = expr.windows(4).any(|w| {
                w[0].ident() == Some("Mmio") && is_path_sep(w, 1) && w[3].ident() == Some("new")
            });
            // The last name of the expression, past `?` and a call's empty `()`.
            let last = expr
                .iter()
                .rev()
                .filter(|t| !t.is_punct('?') && t.group('(').is_none_or(|g| !g.is_empty()))
                .find_map(Token::ident);
            let ends_in_bar = last.is_some_and(|l| names.contains(l));
            if builds || ends_in_bar {
                names.insert(name.to_string());
            }
        }
    }
}

/// Records the accesses and `pci::Bar` mentions in this sequence.
fn find_accesses(seq: &[Token], names: &BTreeSet<String>, out: &mut Scan) {
    for (i, t) in seq.iter().enumerate() {
        // `pci::Bar` and `pci::{.., Bar, ..}`.
        if t.ident() == Some("pci") && is_path_sep(seq, i + 1) {
            let next = seq.get(i + 3);
            let named = next.and_then(Token::ident) == Some("Bar")
                || next
                    .and_then(|t| t.group('{'))
                    .is_some_and(|g| g.iter().any(|t| t.ident() == Some("Bar")));
            if named {
                out.pci_bar.push(t.line);
            }
        }
        let Some(method) = t.ident().filter(|m| METHODS.contains(m)) else {
            continue;
        };
        let Some(args) = call_args(seq, i + 1) else {
            continue;
        };
        let receiver = if i >= 1 && seq[i - 1].is_punct('.') {
            method_receiver(seq, i - 1, names)
        } else if i >= 3 && is_path_sep(seq, i - 2) && seq[i - 3].ident() == Some("Mmio") {
            Some("Mmio".to_string())
        } else {
            None
        };
        if let Some(receiver) = receiver {
            let mut idents = Vec::new();
            walk(args, &mut |s| {
                idents.extend(s.iter().filter_map(Token::ident).map(str::to_string));
            });
            out.accesses.push(Access {
                line: t.line,
                receiver,
                method: method.to_string(),
                idents,
            });
        }
    }
}

/// The argument group of a call whose name ends at `seq[i - 1]`: `(..)`
/// right away or after a turbofish `::<..>`.
fn call_args(seq: &[Token], i: usize) -> Option<&[Token]> {
    if let Some(g) = seq.get(i).and_then(|t| t.group('(')) {
        return Some(g);
    }
    if is_path_sep(seq, i) && seq.get(i + 2).is_some_and(|t| t.is_punct('<')) {
        return seq[i + 2..].iter().find_map(|t| t.group('('));
    }
    None
}

/// The receiver before the `.` at `seq[dot]`, if it is the BAR.
fn method_receiver(seq: &[Token], dot: usize, names: &BTreeSet<String>) -> Option<String> {
    let prev = seq.get(dot.checked_sub(1)?)?;
    if let Some(id) = prev.ident() {
        if !names.contains(id) {
            return None;
        }
        let owner = dot >= 3 && seq[dot - 2].is_punct('.');
        return Some(match seq.get(dot.wrapping_sub(3)).and_then(Token::ident) {
            Some(o) if owner => format!("{o}.{id}"),
            _ => id.to_string(),
        });
    }
    let inner = prev.group('(')?;
    if inner.is_empty() {
        // `bar().read(..)`.
        let id = seq.get(dot.checked_sub(2)?)?.ident()?;
        return names.contains(id).then(|| format!("{id}()"));
    }
    // `(&self.bar).read(..)`.
    let id = inner.last()?.ident()?;
    names.contains(id).then(|| format!("(..{id})"))
}

/// A register definition with its file.
#[derive(Debug, Clone)]
pub struct DefinedIn {
    /// Repository-relative file.
    pub file: String,
    /// The definition.
    pub reg: Register,
}

/// Every offset a register occupies (arrays expanded); `None` if its
/// location is relative or an alias, or its array shape is not a literal.
fn offsets(reg: &Register) -> Option<Vec<u64>> {
    let Location::Fixed(base) = reg.location else {
        return None;
    };
    let Some(array) = &reg.array else {
        return Some(vec![base]);
    };
    let size = parse_int(&array.size)?;
    let stride = match &array.stride {
        Some(s) => parse_int(s)?,
        None => reg.storage_bytes()?,
    };
    Some((0..size).map(|k| base + k * stride).collect())
}

/// The registers the allowed files touch without `Gt` that need a wake.
///
/// `files` maps each allowed file to its scan; `registers` holds every
/// register of the driver; `table` is the driver's forcewake table. Returns
/// (violations, notes, number of registers checked).
pub fn always_on_problems(
    files: &BTreeMap<String, Scan>,
    registers: &[DefinedIn],
    table: &[Span<Wake>],
) -> (Vec<String>, Vec<String>, usize) {
    let mut problems = Vec::new();
    let mut notes = Vec::new();
    let mut checked = 0;
    for (file, scan) in files {
        // name -> (read directly, written directly)
        let mut used: BTreeMap<&str, (bool, bool)> = BTreeMap::new();
        for a in &scan.accesses {
            for id in &a.idents {
                if let Some(d) = registers.iter().find(|d| &d.reg.name == id) {
                    let e = used.entry(d.reg.name.as_str()).or_default();
                    e.0 |= a.reads();
                    e.1 |= a.writes();
                }
            }
        }
        for d in registers.iter().filter(|d| &d.file == file) {
            used.entry(d.reg.name.as_str()).or_default();
        }
        for (name, (read, _written)) in used {
            let Some(def) = registers.iter().find(|d| d.reg.name == name) else {
                continue;
            };
            let Some(offs) = offsets(&def.reg) else {
                notes.push(format!(
                    "{file}: {name} ({}:{}) has no fixed offset; not checked",
                    def.file, def.reg.line
                ));
                continue;
            };
            checked += 1;
            for off in offs {
                let wake = u32::try_from(off)
                    .ok()
                    .and_then(|o| find(table, o))
                    .map_or(Wake::None, |s| s.value);
                if wake == Wake::None || (is_forcewake_request(off) && !read) {
                    continue;
                }
                let how = if read {
                    "read directly"
                } else {
                    "accessed directly"
                };
                problems.push(format!(
                    "{file}: {name} at {off:#08x} ({}:{}) needs forcewake {wake} but is {how}, not through Gt",
                    def.file, def.reg.line
                ));
            }
        }
    }
    (problems, notes, checked)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suites::regs::parse::registers_in;

    fn receivers(src: &str) -> Vec<(usize, String, String)> {
        scan(src)
            .unwrap()
            .accesses
            .into_iter()
            .map(|a| (a.line, a.receiver, a.method))
            .collect()
    }

    #[test]
    fn finds_accesses_on_bar_names_and_types() {
        let src = "\
fn a(bar: Bar0<'_>) { bar.read(GU_CNTL); }
fn b(io: &Mmio<'_>, x: &Other) { io
    .write_reg(
        X::zeroed()); x.read(Y); }
fn c(&self) { (&self.bar).try_read32(4); self.gttmmadr.write(L, v); }
fn d(g: &Gt) { g.read(TOPO); g.bar.try_write32(1, 8); }
fn e(p: kernel::pci::Bar<'_, 16>) { p.update(R, |v| v); }
fn f(s: &S) { s.regs().read(Q); s.bar().read(Q); Mmio::read(&m, Q); }
fn bar(&self) -> Bar0<'_> { todo!() }
fn g() { let b = gt.bar; b.write(L, v); let m = Mmio::new(x); m.read::<u32, _>(L); }
fn h(c: &Ctx) { let io = c.refs.bar()?; io.try_read32(0x9118); let n = c.count(); n.read(X); }
";
        assert_eq!(
            receivers(src),
            [
                (1, "bar".into(), "read".into()),
                (3, "io".into(), "write_reg".into()),
                (5, "(..bar)".into(), "try_read32".into()),
                (5, "self.gttmmadr".into(), "write".into()),
                (6, "g.bar".into(), "try_write32".into()),
                (7, "p".into(), "update".into()),
                (8, "bar()".into(), "read".into()),
                (8, "Mmio".into(), "read".into()),
                (10, "b".into(), "write".into()),
                (10, "m".into(), "read".into()),
                (11, "io".into(), "try_read32".into()),
            ]
        );
    }

    #[test]
    fn comments_strings_and_other_receivers_are_not_accesses() {
        let src = "\
// bar.read(GU_CNTL) in a comment
/// doc: `bar.write(X, v)`
fn a(gt: &Gt<'_>, file: &File) {
    let s = \"bar.read(X)\";
    gt.read(TOPO)?;
    file.read(buf);
    mcr.read_any(gt, REG);
    let bar_count = 3;
    crate::mmio::Mmio::counts(bar);
}
";
        assert!(scan(src).unwrap().accesses.is_empty());
    }

    #[test]
    fn pci_bar_mentions_are_found() {
        let s = scan("use kernel::pci::{self, Bar};\nstruct S { b: pci::Bar<'static> }\nfn x(p: &pci::Device) {}\n")
            .unwrap();
        assert_eq!(s.pci_bar, [1, 2]);
    }

    #[test]
    fn arguments_keep_register_names() {
        let s = scan(
            "fn w(bar: Bar0) { bar.write(loc, FORCEWAKE_MEDIA_VDBOX::zeroed().with_mask(m)); }",
        )
        .unwrap();
        assert!(s.accesses[0]
            .idents
            .contains(&"FORCEWAKE_MEDIA_VDBOX".to_string()));
        assert!(s.accesses[0].writes() && !s.accesses[0].reads());
    }

    #[test]
    fn allow_list_parses_and_rejects_bad_lines() {
        let a = parse_allow("# c\nrust/gt.rs  the accessor\n\nrust/mcr.rs selectors\n").unwrap();
        assert_eq!(a.len(), 2);
        assert_eq!(a[0].reason, "the accessor");
        assert!(parse_allow("rust/gt.rs\n").is_err(), "no reason");
        assert!(parse_allow("gt.rs why\n").is_err(), "not under rust/");
        assert!(
            parse_allow("rust/gt.rs a\nrust/gt.rs b\n").is_err(),
            "twice"
        );
    }

    fn defined(file: &str, src: &str) -> Vec<DefinedIn> {
        registers_in(src)
            .unwrap()
            .into_iter()
            .map(|reg| DefinedIn {
                file: file.into(),
                reg,
            })
            .collect()
    }

    #[test]
    fn direct_registers_must_be_always_on_or_written_requests() {
        let table = vec![
            Span {
                start: 0,
                end: 0x1fff,
                value: Wake::None,
                line: 1,
            },
            Span {
                start: 0x2000,
                end: 0xffff,
                value: Wake::Gt,
                line: 2,
            },
        ];
        let mut regs = defined(
            "rust/fw.rs",
            "register! { REQ(u32)[8] @ 0xa540 { 0:0 k; } ACK(u32) @ 0x0d50 { 0:0 k; } }",
        );
        regs.extend(defined(
            "rust/regs.rs",
            "register! { FUSE(u32) @ 0x9118 { 3:0 m; } FAR(u32) @ 0x138124 { 0:0 x; } }",
        ));
        let mut files = BTreeMap::new();
        files.insert(
            "rust/fw.rs".to_string(),
            scan("fn f(bar: Bar0) { bar.write(l, REQ::zeroed()); bar.read(ACK); bar.read(FAR); }")
                .unwrap(),
        );
        let (p, notes, n) = always_on_problems(&files, &regs, &table);
        assert!(p.is_empty(), "{p:?}");
        assert!(notes.is_empty());
        assert_eq!(n, 3, "REQ, ACK (defined here) and FAR (used here)");
        files.insert(
            "rust/probe.rs".to_string(),
            scan(
                "fn f(bar: Bar0) { bar.read(FUSE); let x = REQ::zeroed(); bar.read(REQ::at(1)); }",
            )
            .unwrap(),
        );
        let (p, _, _) = always_on_problems(&files, &regs, &table);
        assert_eq!(p.len(), 9, "{p:?}");
        assert!(p[0].starts_with("rust/probe.rs: FUSE at 0x009118 (rust/regs.rs:1) needs forcewake GT but is read directly"));
        assert!(p[1].contains("REQ at 0x00a540"));
    }
}
