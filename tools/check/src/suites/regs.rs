//! Suite `regs`: the driver and the mock agree on every register both define.
//!
//! The driver side is read from the `register!` invocations in `rust/**/*.rs`
//! with `syn` ([`parse`]); the mock side is `xehpg_mock::regs::REGISTERS`, compiled into
//! this binary. [`compare`] judges them. Registers whose fields legitimately
//! differ are listed with a reason in `tools/check/regs-allow.toml`.

mod compare;
// Only the `style` suite's layering scan still uses this lexer; it goes with that scan.
pub(crate) mod parse;

use super::Context;
use crate::report::{Case, Reporter};
use anyhow::{Context as _, Result};
use compare::{compare, Allow, Defined, MockReg};
use parse::{registers_in, Field};
use std::path::{Path, PathBuf};

/// The allow-list, relative to the repository.
const ALLOW_FILE: &str = "tools/check/regs-allow.toml";

/// Runs the suite.
pub fn run(ctx: &Context, r: &mut Reporter) {
    let driver = match driver_registers(&ctx.repo, r) {
        Ok(d) => d,
        Err(e) => return r.case(Case::fail("driver sources", format!("{e:#}"))),
    };
    let allow = match load_allow(&ctx.repo.join(ALLOW_FILE)) {
        Ok(a) => a,
        Err(e) => return r.case(Case::fail(ALLOW_FILE, format!("{e:#}"))),
    };
    let result = compare(&driver, &mock_registers(), &allow);
    for c in result.cases {
        r.case(c);
    }
    for n in result.notes {
        r.note(&n);
    }
}

/// Parses every `rust/**/*.rs`; a file that does not parse is a failed test.
fn driver_registers(repo: &Path, r: &mut Reporter) -> Result<Vec<Defined>> {
    let mut files = Vec::new();
    rust_files(&repo.join("rust"), &mut files)?;
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let rel = path
            .strip_prefix(repo)
            .unwrap_or(&path)
            .display()
            .to_string();
        let text = std::fs::read_to_string(&path).with_context(|| format!("reading {rel}"))?;
        match registers_in(&text) {
            Ok(regs) => out.extend(regs.into_iter().map(|reg| Defined {
                file: rel.clone(),
                reg,
            })),
            Err(e) => r.case(Case::fail(format!("parse {rel}"), format!("{e:#}"))),
        }
    }
    Ok(out)
}

/// Every `*.rs` under `dir`, recursively (unsorted).
pub(crate) fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let entries = std::fs::read_dir(dir).with_context(|| format!("listing {}", dir.display()))?;
    for entry in entries {
        let path = entry?.path();
        if path.is_dir() {
            rust_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    Ok(())
}

/// A missing allow-list allows nothing.
fn load_allow(path: &Path) -> Result<Allow> {
    match std::fs::read_to_string(path) {
        Ok(text) => Allow::parse(&text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Allow::default()),
        Err(e) => Err(e).with_context(|| format!("reading {}", path.display())),
    }
}

fn mock_registers() -> Vec<MockReg> {
    xehpg_mock::regs::REGISTERS
        .iter()
        .map(|r| MockReg {
            name: r.name.to_string(),
            offset: u64::from(r.offset),
            fields: r
                .fields
                .iter()
                .map(|f| Field {
                    name: f.name.to_string(),
                    hi: f.hi,
                    lo: f.lo,
                })
                .collect(),
        })
        .collect()
}
