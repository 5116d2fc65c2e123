//! Coverage: every item of ours is in the mapping table, checked or listed
//! as unmapped with a reason, so a constant added later cannot escape the
//! suite by not being mentioned.
//!
//! Our items are found by name only (no values are read here; the compiler
//! reads those): the `#define XEHPG_*`, `struct xehpg_*` tags and their
//! members of `include/xehpg_abi.h`; the `pub const` items of the mock's
//! `src/abi.rs` (as `module::NAME`); and the mock's register table.

use super::mapping::{Mapping, MockRegister};
use std::collections::BTreeSet;

/// Names defined by our C header: defines with a value, struct tags
/// (`struct NAME`) and members (`NAME.member`).
pub fn header_items(text: &str) -> Vec<String> {
    let text = strip_c_comments(text);
    let mut out = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("#define ") {
            let mut parts = rest.split_whitespace();
            if let (Some(name), Some(_value)) = (parts.next(), parts.next()) {
                out.push(name.to_string());
            }
        } else if let Some(rest) = t.strip_prefix("struct ") {
            if let Some(tag) = rest.strip_suffix('{').map(str::trim) {
                out.push(format!("struct {tag}"));
                current = Some(tag.to_string());
            } else if let (Some(tag), Some(member)) = (&current, member_name(t)) {
                out.push(format!("{tag}.{member}"));
            }
        } else if t.starts_with('}') {
            current = None;
        } else if let (Some(tag), Some(member)) = (&current, member_name(t)) {
            out.push(format!("{tag}.{member}"));
        }
    }
    out
}

/// The member declared by `line` (`type name[..];`), if it declares one.
fn member_name(line: &str) -> Option<&str> {
    let decl = line.strip_suffix(';')?;
    let decl = decl.split('[').next()?.trim_end();
    decl.rsplit(|c: char| c.is_whitespace() || c == '*').next()
}

fn strip_c_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("/*") {
        out.push_str(&rest[..start]);
        match rest[start..].find("*/") {
            Some(end) => {
                // Keep the line count: the newlines of the comment.
                let comment = &rest[start..start + end];
                out.extend(comment.chars().filter(|&c| c == '\n'));
                rest = &rest[start + end + 2..];
            }
            None => return out,
        }
    }
    out.push_str(rest);
    out
}

/// The `pub const` items of the mock's `abi.rs`: `NAME` at the top level,
/// `module::NAME` inside a top-level `pub mod module {`.
pub fn mock_items(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut module: Option<String> = None;
    for line in text.lines() {
        if let Some(m) = line
            .strip_prefix("pub mod ")
            .and_then(|r| r.strip_suffix(" {"))
        {
            module = Some(m.to_string());
        } else if line == "}" {
            module = None;
        } else if let Some(rest) = line.trim_start().strip_prefix("pub const ") {
            if rest.starts_with("fn ") {
                continue;
            }
            let Some((name, _)) = rest.split_once(':') else {
                continue;
            };
            let top = !line.starts_with(' ');
            match (&module, top) {
                (_, true) => out.push(name.to_string()),
                (Some(m), false) => out.push(format!("{m}::{name}")),
                (None, false) => {}
            }
        }
    }
    out
}

/// Identifiers of a C expression.
fn identifiers(expr: &str) -> impl Iterator<Item = &str> {
    expr.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| {
            w.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        })
}

/// Items of ours the table mentions: driver identifiers and struct members,
/// mock constant names, mock registers (array elements expanded), and
/// the unmapped list.
pub fn mentioned(m: &Mapping) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for c in &m.constant {
        if let Some(d) = &c.driver {
            out.extend(identifiers(d).map(str::to_string));
        }
        out.extend(c.mock.iter().cloned());
    }
    for l in &m.layout {
        if let Some(d) = &l.driver {
            out.insert(format!("struct {d}"));
            for member in l.members.values() {
                out.insert(format!("{d}.{member}"));
            }
        }
        out.extend(l.mock_size.iter().cloned());
        out.extend(l.mock.values().cloned());
    }
    for r in &m.register {
        match r.count {
            Some(n) => out.extend((0..n).map(|i| r.mock.replace("{n}", &i.to_string()))),
            None => {
                out.insert(r.mock.clone());
            }
        }
    }
    out.extend(m.unmapped.iter().map(|u| u.name.clone()));
    out
}

/// The items of `ours` the table does not mention.
pub fn missing(ours: &[String], mentioned: &BTreeSet<String>) -> Vec<String> {
    ours.iter()
        .filter(|i| !mentioned.contains(*i))
        .cloned()
        .collect()
}

/// The mock's register names.
pub fn register_items(regs: &[MockRegister]) -> Vec<String> {
    regs.iter().map(|r| r.name.clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "\
#ifndef XEHPG_ABI_H
#define XEHPG_ABI_H
/* A comment with #define XEHPG_NOT_REAL 1
 * over lines. */
struct xehpg_thing {
\tuint32_t first;
\t/* inner */
\tstruct xehpg_other list[4][2];
\tuint16_t last; /* trailing */
} __attribute__((packed));
#define XEHPG_A 0x1 /* why */
#define XEHPG_B (XEHPG_A << 2)
#endif
";

    #[test]
    fn header_defines_structs_and_members() {
        assert_eq!(
            header_items(HEADER),
            [
                "struct xehpg_thing",
                "xehpg_thing.first",
                "xehpg_thing.list",
                "xehpg_thing.last",
                "XEHPG_A",
                "XEHPG_B",
            ]
        );
    }

    #[test]
    fn mock_constants_by_module() {
        let abi = "\
pub const fn field(v: u32) -> u32 { v }
pub mod css {
    pub const fn inner(x: u32) -> u32 { x }
    /// Doc.
    pub const HEADER_BYTES: usize = 128;
}
pub const DRIVER_ADS_REGION: u64 = 0x2000;
mod tests {
    pub const HIDDEN: u32 = 1;
}
";
        assert_eq!(mock_items(abi), ["css::HEADER_BYTES", "DRIVER_ADS_REGION"]);
    }

    #[test]
    fn mentions_and_gaps() {
        let m = Mapping::parse(
            r#"
            [[constant]]
            name = "T"
            upstream = "GUC_HXG_MSG_0_TYPE"
            file = "f"
            driver = "XEHPG_HXG_TYPE_MASK << XEHPG_HXG_TYPE_SHIFT"
            mock = "hxg::TYPE"
            [[layout]]
            upstream = "guc_ads"
            file = "f"
            driver = "xehpg_guc_ads"
            members = { private_data = "private_data" }
            mock = { private_data = "ads::PRIVATE_DATA" }
            [[register]]
            mock = "F{n}"
            upstream = "F({n})"
            file = "f"
            count = 2
            [[unmapped]]
            name = "XEHPG_X"
            reason = "ours"
            "#,
        )
        .unwrap();
        let seen = mentioned(&m);
        let ours: Vec<String> = [
            "XEHPG_HXG_TYPE_MASK",
            "XEHPG_HXG_TYPE_SHIFT",
            "struct xehpg_guc_ads",
            "xehpg_guc_ads.private_data",
            "xehpg_guc_ads.reserved",
            "hxg::TYPE",
            "ads::PRIVATE_DATA",
            "F1",
            "F2",
            "XEHPG_X",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(missing(&ours, &seen), ["xehpg_guc_ads.reserved", "F2"]);
    }
}
