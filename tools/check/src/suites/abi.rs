//! Suite `abi`: the checked-in bindgen output is what bindgen makes today.
//!
//! The Makefile owns the bindgen command line: `make -s -C REPO
//! print-bindgen-cmd` prints one shell command that writes the bindings to
//! stdout. The suite runs it with `sh -c` in the repository and compares the
//! result byte for byte with `rust/abi/bindings.rs`.

use super::Context;
use crate::report::{tail, Case, Reporter};
use anyhow::{bail, Context as _, Result};
use std::path::Path;
use std::process::Command;
use std::time::Duration;
use xehpg_common::process::run_split;

/// The checked-in bindings, relative to the repository.
const BINDINGS: &str = "rust/abi/bindings.rs";

/// Limit for printing and for running the bindgen command.
const LIMIT: Duration = Duration::from_secs(5 * 60);

/// How many lines of a diff a failure shows.
const DIFF_LINES: usize = 40;

/// Runs the suite.
pub fn run(ctx: &Context, r: &mut Reporter) {
    let name = format!("{BINDINGS} is up to date");
    let logs = ctx.log_dir("abi");
    let case = match regenerate_and_compare(ctx, &logs) {
        Ok(None) => Case::pass(name),
        Ok(Some(diff)) => Case::fail(
            name,
            "differs from the bindgen output; run `make bindings` and commit the result",
        )
        .with_details(diff),
        Err(e) => Case::fail(name, format!("{e:#}")),
    };
    r.case(case);
}

/// `None` if the bindings match, else the head of a unified diff.
fn regenerate_and_compare(ctx: &Context, logs: &Path) -> Result<Option<Vec<String>>> {
    let checked_in = ctx.repo.join(BINDINGS);
    let want = std::fs::read(&checked_in).with_context(|| format!("reading {BINDINGS}"))?;
    let cmd = bindgen_command(ctx, logs)?;
    let fresh = logs.join("bindings.rs");
    let log = logs.join("bindgen.log");
    let mut sh = Command::new("sh");
    sh.args(["-c", &cmd]).current_dir(&ctx.repo);
    let f = run_split(&mut sh, &fresh, &log, LIMIT)?;
    if !f.success() {
        bail!(
            "the bindgen command failed ({}); {}",
            f.describe(),
            tail(&log, 5).join(" / ")
        );
    }
    let got = std::fs::read(&fresh).with_context(|| format!("reading {}", fresh.display()))?;
    if got == want {
        return Ok(None);
    }
    let diff_file = logs.join("bindings.diff");
    let mut diff = Command::new("diff");
    diff.arg("-u").arg(&checked_in).arg(&fresh);
    run_split(&mut diff, &diff_file, &logs.join("diff.log"), LIMIT)?;
    let text = std::fs::read_to_string(&diff_file).unwrap_or_default();
    let mut lines: Vec<String> = text.lines().take(DIFF_LINES).map(str::to_string).collect();
    lines.push(format!("(full diff: {})", diff_file.display()));
    Ok(Some(lines))
}

/// The command the Makefile's `bindings` target runs, from `print-bindgen-cmd`.
fn bindgen_command(ctx: &Context, logs: &Path) -> Result<String> {
    let out = logs.join("bindgen-cmd.txt");
    let log = logs.join("print-bindgen-cmd.log");
    let mut make = Command::new("make");
    make.args(["-s", "--no-print-directory", "-C"])
        .arg(&ctx.repo)
        .arg("print-bindgen-cmd");
    if !run_split(&mut make, &out, &log, LIMIT)?.success() {
        let why = tail(&log, 3).join(" / ");
        bail!(
            "`make print-bindgen-cmd` failed (the Makefile must print the bindgen command): {why}"
        );
    }
    let cmd = std::fs::read_to_string(&out)?.trim().to_string();
    if cmd.is_empty() {
        bail!("`make print-bindgen-cmd` printed nothing (does the Makefile define that target?)");
    }
    Ok(cmd)
}
