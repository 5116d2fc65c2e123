//! Suite `prod-module`: the production module carries no test code.
//!
//! `make boot-modules` builds the driver twice: the test build
//! (`XEHPG_TEST=y`, `build/module/xehpg.ko`, which the VM scenarios load) and
//! the production build (`build/module-prod/xehpg.ko`). This suite reads both
//! `.ko` files and
//!
//! - reports their section sizes (`size`: text, data, bss) side by side, and
//!   checks the production module is the smaller one;
//! - checks, with `nm`, that each test-only item below names symbols in the
//!   test build (so the check can see it at all) and none in the
//!   production build; and for test-only code the compiler inlines, that a
//!   string only it uses is in the test build's file and not in the
//!   production one's.
//!
//! Rust symbols are v0-mangled: every path segment is its length then its
//! name (`8selftest`), so a segment is found as that text with no digit
//! before it. The VM scenario `prod-module` loads the production module and
//! checks its debugfs file list and its behaviour on the mock.

use super::Context;
use crate::report::{Case, Reporter};
use anyhow::{bail, Context as _, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Test-only code, as a path segment of its symbols' names, and what it is.
/// Each must appear in the test build: one that the compiler inlines away
/// entirely would prove nothing and is not listed.
pub const TEST_ONLY: &[(&str, &str)] = &[
    (
        "selftest",
        "the debugfs `submit` selftest (rust/submit/selftest.rs)",
    ),
    (
        "doorbell",
        "the guessed doorbell ABI (rust/submit/doorbell.rs)",
    ),
    ("load_run", "the CT load runs (rust/guc/ct/channel/load.rs)"),
    ("LoadResult", "the CT load runs' report"),
    (
        "send_atomic",
        "the load runs' MMIO round trip (rust/guc/h2g.rs)",
    ),
    ("fmt_load", "the CT load runs' `load:` line of debugfs `ct`"),
    (
        "arm_doorbell",
        "the doorbell allocation H2G (rust/submit/guc.rs)",
    ),
];

/// Test-only code the compiler inlines (no symbol of its own), found by a
/// string only it puts in the module: the string and what it is.
pub const TEST_ONLY_STRINGS: &[(&str, &str)] = &[
    (
        "memcpy_ns",
        "the memcpy cost reference (rust/sriov/pf.rs, the selftest's blit)",
    ),
    (
        "mmio-ping",
        "the debugfs `ct` load commands (rust/guc/ct/channel/load.rs)",
    ),
    (
        "guc_doorbells",
        "the `guc_doorbells` parameter of the guessed doorbell ABI",
    ),
    (
        "selftest buffer",
        "the selftest's per-probe scratch buffer (rust/submit.rs)",
    ),
];

/// Runs the suite.
pub fn run(ctx: &Context, r: &mut Reporter) {
    let test = ctx.module("module");
    let prod = ctx.module("module-prod");
    let missing: Vec<&PathBuf> = [&test, &prod].into_iter().filter(|p| !p.exists()).collect();
    if !missing.is_empty() {
        let names: Vec<String> = missing.iter().map(|p| p.display().to_string()).collect();
        r.case(Case::fail(
            "both builds exist",
            format!(
                "missing {}: `make boot-modules` builds both",
                names.join(", ")
            ),
        ));
        return;
    }
    let sizes = size_case(r, &test, &prod);
    r.case(sizes);
    let symbols = |ko: &Path| -> Result<Vec<String>> { nm(ko) };
    let (test_syms, prod_syms) = match (symbols(&test), symbols(&prod)) {
        (Ok(t), Ok(p)) => (t, p),
        (Err(e), _) | (_, Err(e)) => {
            r.case(Case::fail("nm reads both modules", format!("{e:#}")));
            return;
        }
    };
    for (segment, what) in TEST_ONLY {
        let name = format!("production module has no `{segment}` symbols");
        let in_test = with_segment(&test_syms, segment);
        let in_prod = with_segment(&prod_syms, segment);
        let case = if in_test.is_empty() {
            Case::fail(
                name,
                format!("the test build has none either: the check cannot see {what}"),
            )
        } else if !in_prod.is_empty() {
            Case::fail(name, format!("{what} is in the production module"))
                .with_details(in_prod.iter().take(5).map(|s| (*s).to_string()))
        } else {
            Case::pass(name)
        };
        r.case(case);
    }
    let read = |ko: &Path| std::fs::read(ko).with_context(|| format!("reading {}", ko.display()));
    let (test_bytes, prod_bytes) = match (read(&test), read(&prod)) {
        (Ok(t), Ok(p)) => (t, p),
        (Err(e), _) | (_, Err(e)) => {
            r.case(Case::fail("both modules read", format!("{e:#}")));
            return;
        }
    };
    for (text, what) in TEST_ONLY_STRINGS {
        let name = format!("production module has no \"{text}\" string");
        let case = if !contains(&test_bytes, text) {
            Case::fail(
                name,
                format!("the test build has none either: the check cannot see {what}"),
            )
        } else if contains(&prod_bytes, text) {
            Case::fail(name, format!("{what} is in the production module"))
        } else {
            Case::pass(name)
        };
        r.case(case);
    }
}

/// Whether `haystack` holds the bytes of `needle`.
pub fn contains(haystack: &[u8], needle: &str) -> bool {
    let n = needle.as_bytes();
    !n.is_empty() && haystack.windows(n.len()).any(|w| w == n)
}

/// Text, data and bss of a module, from `size` (Berkeley format).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sizes {
    pub text: u64,
    pub data: u64,
    pub bss: u64,
}

impl Sizes {
    fn total(self) -> u64 {
        self.text + self.data + self.bss
    }
}

/// The size case, and the sizes as a note.
fn size_case(r: &mut Reporter, test: &Path, prod: &Path) -> Case {
    let name = "production module is smaller than the test module";
    let (t, p) = match (size(test), size(prod)) {
        (Ok(t), Ok(p)) => (t, p),
        (Err(e), _) | (_, Err(e)) => return Case::fail(name, format!("{e:#}")),
    };
    let file = |ko: &Path| std::fs::metadata(ko).map_or(0, |m| m.len());
    r.note(&format!(
        "production xehpg.ko: text {} data {} bss {} (file {} bytes); test build: text {} \
         data {} bss {} (file {} bytes); production is {}% of the test build's sections",
        p.text,
        p.data,
        p.bss,
        file(prod),
        t.text,
        t.data,
        t.bss,
        file(test),
        (p.total() * 100).checked_div(t.total()).unwrap_or(0)
    ));
    if p.text < t.text && p.total() < t.total() {
        Case::pass(name)
    } else {
        Case::fail(
            name,
            format!(
                "production text {} total {}, test text {} total {}",
                p.text,
                p.total(),
                t.text,
                t.total()
            ),
        )
    }
}

/// `size` of one file.
fn size(ko: &Path) -> Result<Sizes> {
    let out = Command::new("size")
        .arg(ko)
        .output()
        .with_context(|| format!("running size on {}", ko.display()))?;
    if !out.status.success() {
        bail!(
            "size {}: {}",
            ko.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    parse_size(&String::from_utf8_lossy(&out.stdout))
        .with_context(|| format!("size output for {}", ko.display()))
}

/// The numbers of `size`'s Berkeley output (a header line, then
/// `text data bss dec hex filename`).
pub fn parse_size(text: &str) -> Result<Sizes> {
    let line = text.lines().nth(1).context("no second line")?;
    let mut nums = line.split_whitespace().map(str::parse::<u64>);
    let mut next = |what: &str| -> Result<u64> {
        nums.next()
            .with_context(|| format!("no {what}"))?
            .with_context(|| format!("{what} is not a number"))
    };
    Ok(Sizes {
        text: next("text")?,
        data: next("data")?,
        bss: next("bss")?,
    })
}

/// The symbol names of a module.
fn nm(ko: &Path) -> Result<Vec<String>> {
    let out = Command::new("nm")
        .arg(ko)
        .output()
        .with_context(|| format!("running nm on {}", ko.display()))?;
    if !out.status.success() {
        bail!(
            "nm {}: {}",
            ko.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().last().map(str::to_string))
        .collect())
}

/// The symbols with a v0 path segment `segment`: its length and name with no
/// digit before (`8selftest`, not `18selftest_...`'s tail).
pub fn with_segment<'a>(symbols: &'a [String], segment: &str) -> Vec<&'a str> {
    let needle = format!("{}{segment}", segment.len());
    symbols
        .iter()
        .filter(|s| {
            s.match_indices(&needle)
                .any(|(at, _)| !s[..at].ends_with(|c: char| c.is_ascii_digit()))
        })
        .map(String::as_str)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_output_is_parsed() {
        let s = parse_size("   text\t   data\t    bss\t    dec\t    hex\tfilename\n 412345\t  10240\t    128\t 422713\t  67339\tx.ko\n")
            .unwrap();
        assert_eq!(
            s,
            Sizes {
                text: 412345,
                data: 10240,
                bss: 128
            }
        );
        assert!(parse_size("   text data\n").is_err());
        assert!(parse_size("h\nx 1 2 3\n").is_err());
    }

    #[test]
    fn strings_are_found_as_bytes() {
        assert!(contains(b"\0abc memcpy_ns \0", "memcpy_ns"));
        assert!(!contains(b"memcpy_n", "memcpy_ns"));
        assert!(!contains(b"anything", ""));
    }

    #[test]
    fn segments_are_whole_and_length_prefixed() {
        let syms: Vec<String> = [
            "_RNvMNtNtCs1_5xehpg6submit8selftestNtB2_6Submit8selftest",
            "_RNvNtCs1_5xehpg18selftest_is_not_it",
            "_RNvNtCs1_5xehpg9selftests",
            "plain_c_symbol_selftest",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let hits = with_segment(&syms, "selftest");
        assert_eq!(hits, [syms[0].as_str()]);
        assert!(with_segment(&syms, "doorbell").is_empty());
    }
}
