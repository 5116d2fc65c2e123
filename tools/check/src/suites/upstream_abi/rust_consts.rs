//! The driver's own Rust constants (`const NAME: uN = EXPR;` in `rust/`)
//! as C expressions, so the compiler can hold them against upstream too.
//!
//! Only integer constant expressions are translated: literals (with `_`
//! separators and type suffixes), `<< >> | & ^ + - * / ( )`, `!` (bitwise
//! not, `~` in C), and names of other such constants, which are substituted.
//! Literals become `ULL` so that 64-bit shifts do not overflow C's `int`,
//! and the result is cast to the constant's declared type. Anything else
//! (a call, a cast, a path) makes the constant untranslatable, which fails
//! its case with the reason rather than guessing.

use std::collections::BTreeMap;

/// One `const` item: its type and initialiser text, where it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RustConst {
    /// `u8` .. `u64`, `usize`.
    pub ty: String,
    /// Initialiser, as written.
    pub expr: String,
    /// File it came from, relative to the repository.
    pub file: String,
}

/// Name -> definitions (more than one when several files define the name).
pub type Consts = BTreeMap<String, Vec<RustConst>>;

/// Adds the single-line integer `const` items of `text` (file `file`).
pub fn scan(text: &str, file: &str, out: &mut Consts) {
    for line in text.lines() {
        let t = line.trim_start();
        let t = t.strip_prefix("pub(crate) ").unwrap_or(t);
        let t = t.strip_prefix("pub ").unwrap_or(t);
        let Some(rest) = t.strip_prefix("const ") else {
            continue;
        };
        let Some((name, rest)) = rest.split_once(':') else {
            continue;
        };
        let Some((ty, rest)) = rest.split_once('=') else {
            continue;
        };
        let Some(expr) = rest.trim().strip_suffix(';') else {
            continue;
        };
        let ty = ty.trim();
        if !["u8", "u16", "u32", "u64", "usize"].contains(&ty) {
            continue;
        }
        out.entry(name.trim().to_string())
            .or_default()
            .push(RustConst {
                ty: ty.to_string(),
                expr: expr.trim().to_string(),
                file: file.to_string(),
            });
    }
}

/// Adds `TYPE.field` for every field of the `register!`/`bitfield!` types
/// of `text`: the field's mask in place, so a mapping can name the bits a
/// driver type declares (`Pte.present`, `GUC_SHIM_CONTROL.read_cache_logic`).
pub fn scan_fields(
    types: &[(String, Vec<crate::suites::regs::parse::Field>)],
    file: &str,
    out: &mut Consts,
) {
    for (ty, fields) in types {
        for f in fields {
            let width = u32::from(f.hi - f.lo) + 1;
            let mask = if width >= 64 {
                u64::MAX
            } else {
                ((1u64 << width) - 1) << f.lo
            };
            out.entry(format!("{ty}.{}", f.name))
                .or_default()
                .push(RustConst {
                    ty: "u64".into(),
                    expr: format!("{mask:#x}"),
                    file: file.to_string(),
                });
        }
    }
}

/// The C expression of `expr`, a Rust integer expression over literals and
/// driver constants (a bare name is the commonest case).
///
/// # Errors
///
/// As [`to_c`], for any name in it.
pub fn expr_to_c(consts: &Consts, expr: &str) -> Result<String, String> {
    // A bare name keeps its own declared type.
    if !expr.contains(|c: char| " ()<>|&^+-*/!".contains(c)) {
        return to_c(consts, expr);
    }
    let mut with = consts.clone();
    with.insert(
        "(mapping)".into(),
        vec![RustConst {
            ty: "u64".into(),
            expr: expr.to_string(),
            file: "tools/check/uabi.toml".into(),
        }],
    );
    to_c(&with, "(mapping)")
}

/// The C expression of constant `name`.
///
/// # Errors
///
/// The constant is not found, defined more than once, or not a plain
/// integer expression (the reason says which token).
pub fn to_c(consts: &Consts, name: &str) -> Result<String, String> {
    to_c_depth(consts, name, 0)
}

fn to_c_depth(consts: &Consts, name: &str, depth: usize) -> Result<String, String> {
    if depth > 8 {
        return Err(format!("{name}: constants refer to each other too deeply"));
    }
    let c = match consts.get(name).map(Vec::as_slice) {
        Some([c]) => c,
        Some(many) => {
            let files: Vec<&str> = many.iter().map(|c| c.file.as_str()).collect();
            return Err(format!("{name} is defined in several places: {files:?}"));
        }
        None => {
            return Err(format!(
                "no `const {name}` of integer type in the driver's rust/"
            ))
        }
    };
    let ty = match c.ty.as_str() {
        "usize" => "u64",
        t => t,
    };
    let mut out = format!("((__{ty})(");
    let mut chars = c.expr.chars().peekable();
    while let Some(ch) = chars.next() {
        if ch.is_ascii_alphanumeric() || ch == '_' {
            let mut word = String::from(ch);
            while let Some(&n) = chars.peek() {
                // `.` joins a type and its field (`Pte.present`).
                if n.is_ascii_alphanumeric() || n == '_' || (n == '.' && !ch.is_ascii_digit()) {
                    word.push(n);
                    chars.next();
                } else {
                    break;
                }
            }
            if ch.is_ascii_digit() {
                out.push_str(
                    &literal(&word)
                        .ok_or_else(|| format!("{name}: `{word}` is not an integer literal"))?,
                );
            } else {
                out.push_str(&to_c_depth(consts, &word, depth + 1)?);
            }
        } else if ch == '!' {
            out.push('~');
        } else if " ()<>|&^+-*/".contains(ch) {
            out.push(ch);
        } else {
            return Err(format!("{name}: `{ch}` in `{}` is not translated", c.expr));
        }
    }
    out.push_str("))");
    Ok(out)
}

/// A Rust integer literal as a C `unsigned long long` literal.
fn literal(word: &str) -> Option<String> {
    let w = word.replace('_', "");
    let w = ["usize", "u64", "u32", "u16", "u8"]
        .iter()
        .find_map(|s| w.strip_suffix(s))
        .unwrap_or(&w);
    let value = match w.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok()?,
        None => w.parse::<u64>().ok()?,
    };
    Some(format!("{value:#x}ULL"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn consts(text: &str) -> Consts {
        let mut c = Consts::new();
        scan(text, "rust/x.rs", &mut c);
        c
    }

    #[test]
    fn field_masks_and_expressions_over_them() {
        use crate::suites::regs::parse::field_types_in;
        let mut c = Consts::new();
        let types = field_types_in(
            "kernel::bitfield! { struct Pte(u64) { 51:12 frame; 1:1 lmem => bool; 0:0 present => bool; } }",
        )
        .unwrap();
        scan_fields(&types, "rust/x.rs", &mut c);
        assert_eq!(c["Pte.frame"][0].expr, "0xffffffffff000");
        assert_eq!(expr_to_c(&c, "Pte.present").unwrap(), "((__u64)(0x1ULL))");
        assert_eq!(
            expr_to_c(&c, "Pte.lmem | Pte.present").unwrap(),
            "((__u64)(((__u64)(0x2ULL)) | ((__u64)(0x1ULL))))"
        );
        assert!(expr_to_c(&c, "Pte.dirty").is_err());
    }

    #[test]
    fn items_of_integer_type_are_found() {
        let c = consts(
            "pub(crate) const PAGE: u64 = 4096;\n\
             const NAME: &str = \"x\";\n\
             \x20   const INNER: u32 = 1 << 4;\n\
             const SLOW: Duration = Duration::from_millis(5);\n\
             pub const MULTI: u32 =\n",
        );
        assert_eq!(c.keys().collect::<Vec<_>>(), ["INNER", "PAGE"]);
        assert_eq!(c["PAGE"][0].expr, "4096");
    }

    #[test]
    fn expressions_become_c_with_wide_literals() {
        let c = consts(
            "const PAGE: u64 = 4096;\n\
             const MASK: u64 = ((1 << 52) - 1) & !(PAGE - 1);\n\
             const TOP: u32 = 0xfee0_0000;\n\
             const SUFFIX: usize = 8u64 << 20;\n",
        );
        assert_eq!(to_c(&c, "TOP").unwrap(), "((__u32)(0xfee00000ULL))");
        assert_eq!(
            to_c(&c, "MASK").unwrap(),
            "((__u64)(((0x1ULL << 0x34ULL) - 0x1ULL) & ~(((__u64)(0x1000ULL)) - 0x1ULL)))"
        );
        assert_eq!(to_c(&c, "SUFFIX").unwrap(), "((__u64)(0x8ULL << 0x14ULL))");
    }

    #[test]
    fn what_cannot_be_translated_says_why() {
        let mut c = consts("const CALL: u32 = f(1);\nconst TWICE: u8 = 1;\n");
        scan("const TWICE: u8 = 2;\n", "rust/y.rs", &mut c);
        assert!(to_c(&c, "CALL").unwrap_err().contains("no `const f`"));
        assert!(to_c(&c, "NOPE").unwrap_err().contains("no `const NOPE`"));
        assert!(to_c(&c, "TWICE").unwrap_err().contains("several places"));
        let loop_ = consts("const A: u32 = B;\nconst B: u32 = A;\n");
        assert!(to_c(&loop_, "A").unwrap_err().contains("too deeply"));
        let odd = consts("const Q: u32 = 1 % 2;\n");
        assert!(to_c(&odd, "Q").unwrap_err().contains("`%`"));
    }
}
