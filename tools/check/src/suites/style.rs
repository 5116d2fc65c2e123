//! Suite `style`: formatting and lints of the tools and of the driver.
//!
//! - `tools: cargo fmt`: `cargo fmt --all --check` in `tools/`.
//! - `tools: cargo clippy`: `cargo clippy --workspace --all-targets -- -D warnings`.
//! - `driver: rustfmt`: `rustfmt --check` of `rust/xehpg.rs` (and every file
//!   its `mod` declarations reach) with the kernel's `.rustfmt.toml`.
//! - `driver: clippy`: a from-scratch Kbuild build with `CLIPPY=1` into
//!   `build/clippy`; any `warning:` or `error:` in its output fails.
//! - `driver: no direct BAR access outside the register layer`: only the
//!   files in `tools/check/bar-access-allow.txt` call `Mmio`'s access
//!   methods or name `pci::Bar` ([`layering`]).
//! - `driver: registers accessed without Gt need no forcewake`: the registers
//!   those files define or access directly are always-on per the driver's
//!   forcewake table, or forcewake requests that are only written.

mod layering;

use super::Context;
use crate::process::run_logged;
use crate::report::{Case, Reporter, TAIL_LINES};
use anyhow::{bail, Context as _, Result};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// Limit for a cargo lint or format run.
const CARGO_LIMIT: Duration = Duration::from_secs(30 * 60);

/// Limit for the driver's clippy build.
const KBUILD_LIMIT: Duration = Duration::from_secs(30 * 60);

/// Runs the suite.
pub fn run(ctx: &Context, r: &mut Reporter) {
    let logs = ctx.log_dir("style");
    let tools = ctx.tools_dir();

    let mut fmt = Command::new("cargo");
    fmt.args(["fmt", "--all", "--check", "--", "--color=never"])
        .current_dir(&tools);
    r.case(command_case(
        "tools: cargo fmt",
        &mut fmt,
        &logs.join("cargo-fmt.log"),
        CARGO_LIMIT,
    ));

    let mut clippy = Command::new("cargo");
    clippy
        .args([
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ])
        .current_dir(&tools)
        .env("CARGO_TERM_COLOR", "never");
    r.case(command_case(
        "tools: cargo clippy",
        &mut clippy,
        &logs.join("cargo-clippy.log"),
        CARGO_LIMIT,
    ));

    let root = ctx.repo.join("rust/xehpg.rs");
    let mut rustfmt = Command::new("rustfmt");
    rustfmt
        .args([
            "--check",
            "--color=never",
            "--edition",
            "2021",
            "--config-path",
        ])
        .arg(ctx.kdir.join(".rustfmt.toml"))
        .arg(&root);
    r.case(command_case(
        "driver: rustfmt",
        &mut rustfmt,
        &logs.join("rustfmt.log"),
        CARGO_LIMIT,
    ));

    let log = logs.join("driver-clippy.log");
    let clippy = driver_clippy(ctx, &log);
    r.case(Case::from_result("driver: clippy", clippy).with_details(lint_lines(&log)));

    for case in bar_access_layering(ctx) {
        r.case(case);
    }
}

/// A test that passes when the command exits 0; a failure shows the log tail.
fn command_case(name: &str, cmd: &mut Command, log: &Path, limit: Duration) -> Case {
    match run_logged(cmd, log, limit) {
        Ok(f) if f.success() => Case::pass(name),
        Ok(f) => Case::fail(name, f.describe()).with_log_tail(log),
        Err(e) => Case::fail(name, format!("{e:#}")),
    }
}

/// Builds the driver with `CLIPPY=1` into a fresh `build/clippy`.
fn driver_clippy(ctx: &Context, log: &Path) -> Result<()> {
    let out = ctx.repo.join("build/clippy");
    // A warm build tree would compile nothing and so lint nothing.
    if out.exists() {
        std::fs::remove_dir_all(&out).with_context(|| format!("removing {}", out.display()))?;
    }
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    let llvm = ctx.llvm()?;
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut make = Command::new("make");
    make.arg("-C")
        .arg(&ctx.kdir)
        .arg(format!("M={}", ctx.repo.display()))
        .arg(format!("MO={}", out.display()))
        .arg(format!("LLVM={llvm}"))
        .args(["CLIPPY=1", &format!("-j{jobs}"), "modules"]);
    let f = run_logged(&mut make, log, KBUILD_LIMIT)?;
    if !f.success() {
        bail!("build failed: {}", f.describe());
    }
    if !lint_lines(log).is_empty() {
        bail!("the build printed warnings or errors");
    }
    Ok(())
}

/// The diagnostics of a build log (`warning:`, `error[E0425]:`, ...), each
/// with the `-->` location line that follows it; at most a tail's worth.
fn lint_lines(log: &Path) -> Vec<String> {
    let text = String::from_utf8_lossy(&std::fs::read(log).unwrap_or_default()).into_owned();
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if !is_diagnostic(line) {
            continue;
        }
        out.push(line.to_string());
        if let Some(next) = lines
            .get(i + 1)
            .filter(|n| n.trim_start().starts_with("-->"))
        {
            out.push(next.to_string());
        }
    }
    out.truncate(TAIL_LINES);
    out
}

/// `warning:` or `error:` anywhere, or rustc's coded `error[E0425]:` form.
fn is_diagnostic(line: &str) -> bool {
    line.contains("warning:")
        || line.contains("error:")
        || ["error[", "warning["]
            .iter()
            .any(|p| line.trim_start().starts_with(p))
}

/// Both layering tests: no direct BAR access outside the allowed files, and
/// only always-on registers (or written forcewake requests) inside them.
fn bar_access_layering(ctx: &Context) -> [Case; 2] {
    const LAYER: &str = "driver: no direct BAR access outside the register layer";
    const ALWAYS_ON: &str = "driver: registers accessed without Gt need no forcewake";
    let scans = match scan_driver(ctx) {
        Ok(s) => s,
        Err(e) => {
            let why = format!("{e:#}");
            return [Case::fail(LAYER, why.clone()), Case::fail(ALWAYS_ON, why)];
        }
    };
    [
        layer_case(LAYER, &scans),
        always_on_case(ALWAYS_ON, ctx, &scans),
    ]
}

/// The driver's files, scanned, and the allow-list.
struct DriverScan {
    allow: Vec<layering::Allowed>,
    /// Repository-relative path -> (source, scan).
    files: BTreeMap<String, (String, layering::Scan)>,
}

fn scan_driver(ctx: &Context) -> Result<DriverScan> {
    let allow_path = ctx.repo.join(layering::ALLOW_FILE);
    let allow = std::fs::read_to_string(&allow_path)
        .with_context(|| format!("reading {}", layering::ALLOW_FILE))
        .and_then(|t| layering::parse_allow(&t).context(layering::ALLOW_FILE))?;
    let mut paths = Vec::new();
    super::regs::rust_files(&ctx.repo.join("rust"), &mut paths)?;
    let mut files = BTreeMap::new();
    for path in paths {
        let rel = path
            .strip_prefix(&ctx.repo)
            .unwrap_or(&path)
            .display()
            .to_string();
        let src = std::fs::read_to_string(&path).with_context(|| format!("reading {rel}"))?;
        let scan = layering::scan(&src).with_context(|| format!("lexing {rel}"))?;
        files.insert(rel, (src, scan));
    }
    Ok(DriverScan { allow, files })
}

fn layer_case(name: &str, d: &DriverScan) -> Case {
    let allowed = |f: &str| d.allow.iter().any(|a| a.file == f);
    let mut problems = Vec::new();
    for (file, (_, scan)) in &d.files {
        if allowed(file) {
            continue;
        }
        for a in &scan.accesses {
            problems.push(format!(
                "{file}:{}: {}.{}(..) touches the BAR; go through Gt or Mcr, or list the file in {}",
                a.line,
                a.receiver,
                a.method,
                layering::ALLOW_FILE
            ));
        }
        for line in &scan.pci_bar {
            problems.push(format!(
                "{file}:{line}: names pci::Bar outside the register layer"
            ));
        }
    }
    for a in d.allow.iter().filter(|a| !d.files.contains_key(&a.file)) {
        problems.push(format!(
            "{}: lists {}, which does not exist",
            layering::ALLOW_FILE,
            a.file
        ));
    }
    if problems.is_empty() {
        let direct: usize = d.files.values().map(|(_, s)| s.accesses.len()).sum();
        return Case::pass(format!(
            "{name} ({direct} direct accesses in {} allowed files)",
            d.allow.len()
        ));
    }
    Case::fail(name, format!("{} violations", problems.len())).with_details(problems)
}

fn always_on_case(name: &str, ctx: &Context, d: &DriverScan) -> Case {
    let table = match super::fwtable::driver_table(&ctx.repo) {
        Ok(t) => t,
        Err(e) => return Case::fail(name, format!("{e:#}")),
    };
    let mut registers = Vec::new();
    for (file, (src, _)) in &d.files {
        match super::regs::parse::registers_in(src) {
            Ok(regs) => registers.extend(regs.into_iter().map(|reg| layering::DefinedIn {
                file: file.clone(),
                reg,
            })),
            Err(e) => return Case::fail(name, format!("{file}: {e:#}")),
        }
    }
    let allowed: BTreeMap<String, layering::Scan> = d
        .files
        .iter()
        .filter(|(f, _)| d.allow.iter().any(|a| &a.file == *f))
        .map(|(f, (_, s))| (f.clone(), s.clone()))
        .collect();
    let (problems, notes, checked) = layering::always_on_problems(&allowed, &registers, &table);
    let name = format!("{name} ({checked} registers in {} files)", allowed.len());
    if problems.is_empty() {
        Case::pass(name)
    } else {
        Case::fail(name, format!("{} registers need forcewake", problems.len()))
            .with_details(problems.into_iter().chain(notes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagnostics_come_with_their_location() {
        let dir = std::env::temp_dir().join(format!("xehpg-check-lint-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let log = dir.join("build.log");
        std::fs::write(
            &log,
            "  CLIPPY [M] rust/xehpg.o\nerror[E0425]: cannot find type `Vec`\n  --> rust/regs.rs:69:29\n   |\n\
             warning: unused variable: `x`\n  --> rust/regs.rs:70:9\nmake: *** Error 2\n",
        )
        .unwrap();
        assert_eq!(
            lint_lines(&log),
            [
                "error[E0425]: cannot find type `Vec`",
                "  --> rust/regs.rs:69:29",
                "warning: unused variable: `x`",
                "  --> rust/regs.rs:70:9",
            ]
        );
        std::fs::write(&log, "  CLIPPY [M] rust/xehpg.o\n  LD [M]  xehpg.ko\n").unwrap();
        assert!(lint_lines(&log).is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
