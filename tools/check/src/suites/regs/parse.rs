//! Reads `kernel::io::register!` invocations out of Rust source with `syn`.
//!
//! Every macro invocation whose path ends in `register` is parsed with
//! [`Registers`], the macro's grammar in Linux 7.3 (`rust/kernel/io/register.rs`,
//! the entry rule, and `rust/kernel/bitfield.rs` for the fields):
//!
//! ```text
//! register! {
//!     #[attr]* vis? NAME(storage) ([SIZE (, stride = STRIDE)?])?
//!         ( @ (Base +)? OFFSET  |  => ALIAS (+ ALIAS2)? ([IDX])? )
//!     {
//!         #[doc]* HI:LO field ( => Type | ?=> Type )? ;
//!     }
//! }
//! ```

use anyhow::{anyhow, Result};
use quote::ToTokens;
use syn::ext::IdentExt as _;
use syn::parse::{Parse, ParseStream};
use syn::visit::Visit;
use syn::{braced, bracketed, parenthesized, token, Attribute, Expr, Ident, LitInt, Token, Type};

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
///
/// # Errors
///
/// `src` is not Rust, or an invocation does not follow the grammar; the
/// message starts with `line N:`.
pub fn registers_in(src: &str) -> Result<Vec<Register>> {
    let file = syn::parse_file(src).map_err(located)?;
    let mut finder = Finder::default();
    finder.visit_file(&file);
    match finder.error {
        Some(e) => Err(located(e)),
        None => Ok(finder.registers),
    }
}

/// A syn error with its line in front.
fn located(e: syn::Error) -> anyhow::Error {
    anyhow!("line {}: {e}", e.span().start().line)
}

/// The bit fields of every `register!` and `bitfield!` definition in `src`,
/// as (type name, fields): wire words the driver names as types rather than
/// as constants.
///
/// # Errors
///
/// The file, or one of those invocations, does not parse.
pub fn field_types_in(src: &str) -> Result<Vec<(String, Vec<Field>)>> {
    let file = syn::parse_file(src).map_err(located)?;
    let mut finder = Finder::default();
    finder.visit_file(&file);
    if let Some(e) = finder.error {
        return Err(located(e));
    }
    let mut out: Vec<(String, Vec<Field>)> = finder
        .registers
        .into_iter()
        .map(|r| (r.name, r.fields))
        .collect();
    out.extend(finder.bitfields);
    Ok(out)
}

/// Collects the registers of every `register!` invocation, wherever it is,
/// and the fields of every `bitfield!` one.
#[derive(Default)]
struct Finder {
    registers: Vec<Register>,
    bitfields: Vec<(String, Vec<Field>)>,
    error: Option<syn::Error>,
}

impl<'ast> Visit<'ast> for Finder {
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        let is_register = mac
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == "register");
        let is_bitfield = mac
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == "bitfield");
        if is_register && self.error.is_none() {
            match mac.parse_body::<Registers>() {
                Ok(r) => self.registers.extend(r.0),
                Err(e) => self.error = Some(e),
            }
        }
        if is_bitfield && self.error.is_none() {
            match mac.parse_body_with(bitfield) {
                Ok(b) => self.bitfields.push(b),
                Err(e) => self.error = Some(e),
            }
        }
        syn::visit::visit_macro(self, mac);
    }
}

/// The body of one `register!` invocation.
pub struct Registers(pub Vec<Register>);

impl Parse for Registers {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let mut out = Vec::new();
        while !input.is_empty() {
            out.push(register(input)?);
        }
        Ok(Registers(out))
    }
}

/// Tokens as compact text (`u32`, `4`, `size_of::<u32>()`).
fn text(t: &impl ToTokens) -> String {
    t.to_token_stream().to_string().replace(' ', "")
}

fn register(input: ParseStream<'_>) -> syn::Result<Register> {
    Attribute::parse_outer(input)?;
    input.parse::<syn::Visibility>()?;
    let name: Ident = input.parse()?;
    let storage;
    parenthesized!(storage in input);
    let storage: Type = storage.parse()?;
    let array = if input.peek(token::Bracket) {
        let inner;
        bracketed!(inner in input);
        Some(array_spec(&inner)?)
    } else {
        None
    };
    let location = if input.parse::<Option<Token![@]>>()?.is_some() {
        if input.peek(Ident) {
            let base: Ident = input.parse()?;
            input.parse::<Token![+]>()?;
            let offset: LitInt = input.parse()?;
            Location::Relative {
                base: base.to_string(),
                offset: offset.base10_parse()?,
            }
        } else {
            let offset: LitInt = input.parse()?;
            Location::Fixed(offset.base10_parse()?)
        }
    } else if input.parse::<Option<Token![=>]>>()?.is_some() {
        let first: Ident = input.parse()?;
        let (base, target) = if input.parse::<Option<Token![+]>>()?.is_some() {
            let target: Ident = input.parse()?;
            (Some(first.to_string()), target.to_string())
        } else {
            (None, first.to_string())
        };
        let index = if input.peek(token::Bracket) {
            let inner;
            bracketed!(inner in input);
            Some(text(&inner.parse::<Expr>()?))
        } else {
            None
        };
        Location::Alias {
            base,
            target,
            index,
        }
    } else {
        return Err(syn::Error::new(
            name.span(),
            format!("register {name} has neither `@ offset` nor `=> alias`"),
        ));
    };
    let body;
    braced!(body in input);
    let mut fields = Vec::new();
    while !body.is_empty() {
        fields.push(field(&body)?);
    }
    Ok(Register {
        name: name.to_string(),
        line: name.span().start().line,
        storage: text(&storage),
        array,
        location,
        fields,
    })
}

/// `#[doc]* VIS struct NAME(STORAGE) { FIELD* }`, the kernel's `bitfield!`.
fn bitfield(input: ParseStream<'_>) -> syn::Result<(String, Vec<Field>)> {
    Attribute::parse_outer(input)?;
    input.parse::<syn::Visibility>()?;
    input.parse::<Token![struct]>()?;
    let name: Ident = input.parse()?;
    let storage;
    parenthesized!(storage in input);
    storage.parse::<Type>()?;
    let body;
    braced!(body in input);
    let mut fields = Vec::new();
    while !body.is_empty() {
        fields.push(field(&body)?);
    }
    Ok((name.to_string(), fields))
}

/// `SIZE` or `SIZE, stride = STRIDE`.
fn array_spec(inner: ParseStream<'_>) -> syn::Result<ArraySpec> {
    let size: Expr = inner.parse()?;
    let stride = if inner.parse::<Option<Token![,]>>()?.is_some() {
        let key: Ident = inner.parse()?;
        if key != "stride" {
            return Err(syn::Error::new(key.span(), "expected `stride = ...`"));
        }
        inner.parse::<Token![=]>()?;
        Some(text(&inner.parse::<Expr>()?))
    } else {
        None
    };
    if !inner.is_empty() {
        return Err(inner.error("expected `]` after the array size"));
    }
    Ok(ArraySpec {
        size: text(&size),
        stride,
    })
}

/// `#[doc]* HI:LO name (=> Type | ?=> Type)? ;`
fn field(body: ParseStream<'_>) -> syn::Result<Field> {
    Attribute::parse_outer(body)?;
    let hi = bit(body)?;
    body.parse::<Token![:]>()?;
    let lo = bit(body)?;
    let name = Ident::parse_any(body)?;
    if hi < lo {
        return Err(syn::Error::new(
            name.span(),
            format!("field {name} has hi {hi} below lo {lo}"),
        ));
    }
    if body.parse::<Option<Token![?]>>()?.is_some() {
        body.parse::<Token![=>]>()?;
        body.parse::<Type>()?;
    } else if body.parse::<Option<Token![=>]>>()?.is_some() {
        body.parse::<Type>()?;
    }
    body.parse::<Token![;]>()?;
    Ok(Field {
        name: name.to_string(),
        hi,
        lo,
    })
}

fn bit(body: ParseStream<'_>) -> syn::Result<u8> {
    let lit: LitInt = body.parse()?;
    let n: u64 = lit.base10_parse()?;
    u8::try_from(n)
        .ok()
        .filter(|b| *b < 64)
        .ok_or_else(|| syn::Error::new(lit.span(), format!("bit {n} out of range")))
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
        0:0 enable;
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
        assert_eq!(by("ENGINE_CTL").fields.len(), 1);
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
        assert!(
            registers_in("register! { A(u32) @ 0x10 { 0:0 x } }").is_err(),
            "the kernel's grammar ends every field with `;`"
        );
        assert!(registers_in("register! { A(u32)[4, step = 8] @ 0x10 { 0:0 x; } }").is_err());
        assert!(registers_in("fn broken( {").is_err(), "not Rust");
    }

    #[test]
    fn invocations_in_functions_and_impls_and_expression_strides() {
        let src = "
impl X {
    fn f() {
        ::kernel::io::register! {
            /// Doc.
            pub(super) R(u64)[2, stride = size_of::<u64>() * 2] @ 0x40 { 63:32 hi => u32; 31:0 lo; }
        }
    }
}";
        let regs = registers_in(src).unwrap();
        assert_eq!(regs.len(), 1);
        assert_eq!((regs[0].name.as_str(), regs[0].line), ("R", 6));
        assert_eq!(regs[0].storage_bytes(), Some(8));
        let a = regs[0].array.as_ref().unwrap();
        assert_eq!(
            (a.size.as_str(), a.stride.as_deref()),
            ("2", Some("size_of::<u64>()*2"))
        );
        assert_eq!(
            regs[0].fields[0],
            Field {
                name: "hi".into(),
                hi: 63,
                lo: 32
            }
        );
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
