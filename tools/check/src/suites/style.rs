//! Suite `style`: formatting and lints of the tools and of the driver.
//!
//! - `tools: cargo fmt`: `cargo fmt --all --check` in `tools/`.
//! - `tools: cargo clippy`: `cargo clippy --workspace --all-targets -- -D warnings`.
//! - `driver: rustfmt`: `rustfmt --check` of `rust/xehpg.rs` (and every file
//!   its `mod` declarations reach) and of the test-only trigger module
//!   (`tests/triggers/`) with the kernel's `.rustfmt.toml`.
//! - `driver: clippy`, `driver: clippy (test build)` and `driver: clippy
//!   (KUnit build)`: from-scratch Kbuild builds with `CLIPPY=1` of the
//!   production module into `build/clippy`, of the test build
//!   (`XEHPG_TEST=y`) into `build/clippy-test` and of the KUnit build
//!   (`XEHPG_KUNIT=y XEHPG_TEST=y`, the tests and what only they use) into
//!   `build/clippy-kunit`; any `warning:` or `error:` in any output fails
//!   (what one build cfg's out must leave no dead code in it).
//! - `driver: rustdoc`: the test build's documentation (a superset of the
//!   production module's) with private items, every rustdoc lint (broken
//!   intra-doc links included) an error ([`rustdoc`]), from the clippy test
//!   build's saved compile command.
//! - `driver: checkpatch FILE`: the kernel's `scripts/checkpatch.pl --no-tree -f` on each
//!   C file of the driver ([`CHECKPATCH`]); any ERROR or WARNING fails.
//! - `driver: no import cycle across top-level blocks` and `driver: imports
//!   follow the layer order`: the driver's import graph, read with `syn`
//!   ([`imports`]), against `tools/check/layers.toml`.
//! - `driver: child modules are reached through their parent`: outside a
//!   module's parent, code names only the children `tools/check/layers.toml`
//!   opens; the rest of a block is reached through its re-exports. Which code may touch
//!   the BAR, and that GT access holds forcewake, the driver's types enforce.

mod imports;
mod rustdoc;

use super::Context;
use crate::report::{Case, Reporter, TAIL_LINES};
use anyhow::{bail, Context as _, Result};
use std::path::Path;
use std::process::Command;
use std::time::Duration;
use xehpg_common::process::run_logged;

/// The test-only trigger module's crate root, formatted like the driver.
const TRIGGERS_ROOT: &str = "tests/triggers/triggers.rs";

/// The driver's C files for checkpatch, each with the message types it may ignore.
const CHECKPATCH: &[(&str, &[&str])] = &[
    ("rust/xehpg_glue.c", &[]),
    ("rust/xehpg_glue.h", &[]),
    // `%pA` prints a Rust `fmt::Arguments`, which only Rust can make; here C prints the one
    // Rust passed it (the dynamic debug call site, `xehpg_dbg`), as the kernel's own Rust
    // printing does.
    ("rust/xehpg_trace.c", &["VSPRINTF_POINTER_EXTENSION"]),
    ("rust/xehpg_trace.h", &[]),
    // The ABI header is also compiled outside the kernel (bindgen on the host, the uabi
    // suite), where the kernel's `__packed` does not exist, so it spells
    // `__attribute__((packed))`; checkpatch skips this message for `include/uapi/`
    // headers for the same reason.
    ("include/xehpg_abi.h", &["PREFER_DEFINED_ATTRIBUTE_MACRO"]),
];

/// Limit for one checkpatch run.
const CHECKPATCH_LIMIT: Duration = Duration::from_secs(5 * 60);

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
        .arg(&root)
        .arg(ctx.repo.join(TRIGGERS_ROOT));
    r.case(command_case(
        "driver: rustfmt",
        &mut rustfmt,
        &logs.join("rustfmt.log"),
        CARGO_LIMIT,
    ));

    for (file, ignore) in CHECKPATCH {
        r.case(checkpatch(ctx, file, ignore, &logs));
    }

    for (name, dir, extra) in [
        ("driver: clippy", "clippy", &[][..]),
        (
            "driver: clippy (test build)",
            "clippy-test",
            &["XEHPG_TEST=y"][..],
        ),
        (
            "driver: clippy (KUnit build)",
            "clippy-kunit",
            &["XEHPG_KUNIT=y", "XEHPG_TEST=y"][..],
        ),
    ] {
        let log = logs.join(format!("driver-{dir}.log"));
        let clippy = driver_clippy(ctx, dir, extra, &log);
        r.case(Case::from_result(name, clippy).with_details(lint_lines(&log)));
    }

    let log = logs.join("driver-rustdoc.log");
    let doc = driver_rustdoc(ctx, &log);
    r.case(Case::from_result("driver: rustdoc", doc).with_details(lint_lines(&log)));

    for case in import_graph(ctx) {
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

/// checkpatch on `file`: passes when it reports no ERROR and no WARNING (CHECKs are the
/// `--strict` set, not asked for) and its summary line says so.
fn checkpatch(ctx: &Context, file: &str, ignore: &[&str], logs: &Path) -> Case {
    let name = format!("driver: checkpatch {file}");
    let log = logs.join(format!("checkpatch-{}.log", file.replace('/', "_")));
    let mut cmd = Command::new("perl");
    cmd.arg(ctx.kdir.join("scripts/checkpatch.pl")).args([
        "--no-tree",
        "--no-color",
        "--show-types",
    ]);
    if !ignore.is_empty() {
        cmd.arg("--ignore").arg(ignore.join(","));
    }
    cmd.arg("-f").arg(ctx.repo.join(file));
    let finished = match run_logged(&mut cmd, &log, CHECKPATCH_LIMIT) {
        Ok(f) => f,
        Err(e) => return Case::fail(name, format!("{e:#}")),
    };
    let text = String::from_utf8_lossy(&std::fs::read(&log).unwrap_or_default()).into_owned();
    let findings: Vec<String> = text
        .lines()
        .filter(|l| l.starts_with("ERROR:") || l.starts_with("WARNING:"))
        .map(str::to_string)
        .collect();
    let summary_clean = text
        .lines()
        .any(|l| l.starts_with("total: 0 errors, 0 warnings,"));
    if finished.success() && findings.is_empty() && summary_clean {
        Case::pass(name)
    } else {
        let why = if findings.is_empty() {
            format!("checkpatch did not report clean: {}", finished.describe())
        } else {
            format!("{} errors or warnings", findings.len())
        };
        Case::fail(name, why)
            .with_details(findings)
            .with_log_tail(&log)
    }
}

/// Builds the driver with `CLIPPY=1` (and `extra`, Kbuild variables) into
/// a fresh `build/<dir>`.
fn driver_clippy(ctx: &Context, dir: &str, extra: &[&str], log: &Path) -> Result<()> {
    let out = ctx.repo.join("build").join(dir);
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
        .args(extra)
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

/// Documents the driver from the compile command the clippy test build saved.
fn driver_rustdoc(ctx: &Context, log: &Path) -> Result<()> {
    let build = ctx.repo.join("build/clippy-test");
    let cmd_file = build.join("rust/.xehpg.o.cmd");
    let saved = std::fs::read_to_string(&cmd_file).with_context(|| {
        format!(
            "reading {} (the clippy build runs first)",
            cmd_file.display()
        )
    })?;
    let out = ctx.repo.join("build/rustdoc");
    if out.exists() {
        std::fs::remove_dir_all(&out).with_context(|| format!("removing {}", out.display()))?;
    }
    let line = rustdoc::command(&saved, &out)?;
    let mut sh = Command::new("sh");
    // The kernel's build runs its toolchain with RUSTC_BOOTSTRAP=1 for the
    // `-Z` options; rustdoc needs the same.
    sh.args(["-c", &line])
        .current_dir(&build)
        .env("RUSTC_BOOTSTRAP", "1");
    let f = run_logged(&mut sh, log, CARGO_LIMIT)?;
    if !f.success() {
        bail!("rustdoc failed: {}", f.describe());
    }
    if !lint_lines(log).is_empty() {
        bail!("rustdoc printed warnings or errors");
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

/// The four import-graph tests: no cycle across the driver's blocks, none
/// among the child modules of one block, every import follows the layer
/// order of `tools/check/layers.toml`, and only the child modules it opens
/// are named from outside their parent.
fn import_graph(ctx: &Context) -> [Case; 4] {
    const ACYCLIC: &str = "driver: no import cycle across top-level blocks";
    const SIBLINGS: &str = "driver: no two modules inside one block import each other";
    const LAYERED: &str = "driver: imports follow the layer order";
    const CLOSED: &str = "driver: child modules are reached through their parent";
    let graph = imports::read_sources(&ctx.repo.join("rust"))
        .and_then(|sources| imports::graph(&sources, "rust/"));
    let graph = match graph {
        Ok(g) => g,
        Err(e) => {
            let why = format!("{e:#}");
            return [
                Case::fail(ACYCLIC, why.clone()),
                Case::fail(SIBLINGS, why.clone()),
                Case::fail(LAYERED, why.clone()),
                Case::fail(CLOSED, why),
            ];
        }
    };
    let siblings = graph.sibling_cycles();
    let modules: usize = graph.children.values().map(|g| g.blocks.len()).sum();
    let siblings = if siblings.is_empty() {
        Case::pass(format!(
            "{SIBLINGS} ({modules} child modules with sibling imports)"
        ))
    } else {
        Case::fail(SIBLINGS, format!("{} cycles", siblings.len())).with_details(
            siblings
                .iter()
                .map(|(b, c)| imports::render_component(b, c)),
        )
    };
    let size = format!(
        "({} blocks, {} imports)",
        graph.blocks.len(),
        graph.edges.len()
    );
    let cycles = graph.cycles();
    let acyclic = if cycles.is_empty() {
        Case::pass(format!("{ACYCLIC} {size}"))
    } else {
        let largest = cycles
            .iter()
            .map(|(blocks, _)| blocks.len())
            .max()
            .unwrap_or(0);
        Case::fail(
            ACYCLIC,
            format!(
                "{} cycles, the longest through {largest} blocks",
                cycles.len()
            ),
        )
        .with_details(cycles.iter().map(|(b, c)| imports::render_component(b, c)))
    };
    let layers = std::fs::read_to_string(ctx.repo.join(imports::LAYERS_FILE))
        .with_context(|| format!("reading {}", imports::LAYERS_FILE))
        .and_then(|t| imports::Layers::parse(&t).context(imports::LAYERS_FILE));
    let (layered, closed) = match layers {
        Ok(l) => {
            let layered = match l.problems(&graph) {
                p if p.is_empty() => {
                    Case::pass(format!("{LAYERED} of {} {size}", imports::LAYERS_FILE))
                }
                p => Case::fail(LAYERED, format!("{} violations", p.len())).with_details(p),
            };
            let closed = match l.closed_problems(&graph) {
                p if p.is_empty() => Case::pass(format!(
                    "{CLOSED} ({} child modules, {} open)",
                    graph.modules.len(),
                    l.open.len()
                )),
                p => Case::fail(CLOSED, format!("{} violations", p.len())).with_details(p),
            };
            (layered, closed)
        }
        Err(e) => {
            let why = format!("{e:#}");
            (Case::fail(LAYERED, why.clone()), Case::fail(CLOSED, why))
        }
    };
    [acyclic, siblings, layered, closed]
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
