//! `driver: rustdoc`: the driver's documentation, private items included,
//! built with every rustdoc lint an error, so that a broken intra-doc link or
//! a malformed doc comment fails `make check`.
//!
//! Kbuild has no rustdoc target for an external module, so the suite derives
//! the rustdoc invocation from the exact `rustc` (or `clippy-driver`) command
//! Kbuild ran for the crate, as it saved it in `rust/.xehpg.o.cmd`: the same
//! target, cfgs, externs and `-Z` options, without the object outputs.

use anyhow::{bail, Context as _, Result};
use std::path::Path;

/// The saved command's key in a Kbuild `.cmd` file.
const SAVED: &str = "savedcmd_rust/xehpg.o := ";

/// Options of the compile that name its outputs; rustdoc gets its own.
const DROPPED_PREFIXES: &[&str] = &["--emit=", "--remap-path-prefix=", "--remap-path-scope="];

/// The rustdoc lints the suite denies: all of them (broken and private
/// intra-doc links, invalid HTML, bare URLs, unescaped backticks, ...; the
/// nightly-only `missing_doc_code_examples` is not in the group on stable).
const DENY: &[&str] = &["-D", "rustdoc::all"];

/// The shell command that documents the crate into `out_dir`, from the text
/// of Kbuild's `rust/.xehpg.o.cmd`.
///
/// # Errors
///
/// When the file has no saved command or the command has no compiler.
pub(super) fn command(cmd_file: &str, out_dir: &Path) -> Result<String> {
    let saved = cmd_file
        .lines()
        .find_map(|l| l.strip_prefix(SAVED))
        .context("no saved command for rust/xehpg.o")?;
    let mut words = saved.split_whitespace();
    let mut out: Vec<String> = Vec::new();
    let mut compiler = false;
    while let Some(w) = words.next() {
        if !compiler && (w.ends_with("rustc") || w.ends_with("clippy-driver")) {
            out.push("rustdoc".into());
            compiler = true;
        } else if w == "--out-dir" {
            // Its value goes with it.
            words.next();
        } else if DROPPED_PREFIXES.iter().any(|p| w.starts_with(p)) {
        } else if w.starts_with("-Wclippy::") || w.starts_with("-Aclippy::") {
            // Clippy's lints mean nothing to rustdoc, which warns about them.
        } else {
            out.push(w.into());
        }
    }
    if !compiler {
        bail!("the saved command runs neither rustc nor clippy-driver");
    }
    out.extend(
        [
            "--document-private-items",
            "--crate-name",
            "xehpg",
            "--out-dir",
        ]
        .iter()
        .map(|s| (*s).to_string()),
    );
    out.push(out_dir.display().to_string());
    out.extend(DENY.iter().map(|s| (*s).to_string()));
    Ok(out.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CMD: &str = "savedcmd_rust/xehpg.o := OBJTREE=/k RUST_MODFILE=./xehpg clippy-driver \
        --edition=2021 -Wclippy::all -Aclippy::collapsible_if -Dnon_ascii_idents \
        --target=/k/scripts/target.json -Zcrate-attr='feature(asm_goto)' --extern kernel \
        --crate-type rlib -L /k/rust/ --sysroot=/dev/null --out-dir rust/ \
        --emit=dep-info=rust/.xehpg.o.d --emit=obj=rust/xehpg.o \
        --remap-path-prefix=/r/= --remap-path-scope=macro /r/rust/xehpg.rs\n\nsource_rust/xehpg.o := /r/rust/xehpg.rs\n";

    #[test]
    fn keeps_the_build_and_replaces_the_outputs() {
        let c = command(CMD, Path::new("/o/doc")).unwrap();
        assert!(c.starts_with("OBJTREE=/k RUST_MODFILE=./xehpg rustdoc --edition=2021 "));
        for kept in [
            "-Dnon_ascii_idents",
            "--target=/k/scripts/target.json",
            "-Zcrate-attr='feature(asm_goto)'",
            "--extern kernel",
            "--sysroot=/dev/null",
            "/r/rust/xehpg.rs",
        ] {
            assert!(c.contains(kept), "{kept} missing from {c}");
        }
        for gone in ["--emit", "--remap", "clippy", "--out-dir rust/"] {
            assert!(!c.contains(gone), "{gone} left in {c}");
        }
        assert!(c.contains("--document-private-items --crate-name xehpg "));
        assert!(c.ends_with("--out-dir /o/doc -D rustdoc::all"));
    }

    #[test]
    fn plain_rustc_builds_work_too() {
        let c = command(
            "savedcmd_rust/xehpg.o := rustc --edition=2021 /r/rust/xehpg.rs",
            Path::new("d"),
        )
        .unwrap();
        assert!(c.starts_with("rustdoc --edition=2021 /r/rust/xehpg.rs"));
    }

    #[test]
    fn refuses_what_it_cannot_read() {
        assert!(command("savedcmd_rust/other.o := rustc x.rs", Path::new("d")).is_err());
        assert!(command("savedcmd_rust/xehpg.o := gcc -c x.c", Path::new("d")).is_err());
    }
}
