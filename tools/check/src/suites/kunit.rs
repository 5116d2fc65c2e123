//! Suite `kunit`: the driver's `#[kunit_tests]` suites, run in the VM.
//!
//! Boots the VM with the KUnit build of the module (`build/kunit/xehpg.ko`);
//! its suites run when it loads and print a KTAP document on the console.
//! That document ([`console`] leaves out the kernel's built-in suites) goes
//! through the kernel's own `kunit.py parse --json`, whose result [`results`]
//! turns into one test per KUnit test case; a failure shows the lines
//! kunit.py printed for it. Also counted:
//! `vm run` (the VM booted, the guest command finished and the mock recorded
//! no undeclared access or violation) and
//! `xehpg suites present` (a module that ran no xehpg suite tests nothing).
//! In the debug lane (suite `kunit-debug`) `vm run` also asserts
//! `kunit: kernel log clean` ([`super::kernel_log`]).

mod console;
mod results;

use super::vm::retry::run_vm;
use super::vm::{exit_meaning, mock_clean};
use super::{kernel_log, Context};
use crate::report::{tail, Case, Reporter, Status};
use std::path::Path;
use std::process::Command;
use std::time::Duration;
use xehpg_common::process::run_logged;

/// The KUnit module's build directory under `build/` (`kunit`, or
/// `kunit-debug` in the debug lane).
const MODULE: &str = "kunit";

/// The guest helpers, for the debug lane's epilogue.
const LIB: &str = "tools/guest/lib.sh";

/// Limit for the whole VM run on a slow TCG guest.
const VM_LIMIT: Duration = Duration::from_secs(15 * 60);

/// Guest command timeout passed to the runner.
const GUEST_TIMEOUT_SECS: u64 = 600;

/// Lines of the runner's log and of the console shown under a failed boot.
const CONSOLE_LINES: usize = 15;

/// Limit for kunit.py.
const PARSE_LIMIT: Duration = Duration::from_secs(5 * 60);

/// Runs the suite.
pub fn run(ctx: &Context, r: &mut Reporter) {
    let logs = ctx.log_dir("kunit");
    let module = ctx.module(MODULE);
    if !module.is_file() {
        let why = format!(
            "{} is missing (make builds it with MO={})",
            module.display(),
            module.parent().unwrap_or(&module).display()
        );
        return r.case(Case::fail("vm run", why));
    }
    let console = logs.join("console.log");
    let (vm_log, summary) = (logs.join("vm.log"), logs.join("mock.json"));
    let booted = boot(ctx, &module, &console, &vm_log, &summary, &mut |note| {
        r.note(&note)
    });
    // The KUnit build probes the mock too: what the mock records about that
    // boot is judged like a scenario's.
    let mut parts = vec![booted, mock_clean("kunit", &summary)];
    if ctx.debug {
        parts.push(kernel_log::case("kunit", &console));
    }
    r.case(Case::combine("vm run", parts));
    let text = String::from_utf8_lossy(&std::fs::read(&console).unwrap_or_default()).into_owned();
    let mut suites = Vec::new();
    for (i, doc) in console::driver_documents(&text).iter().enumerate() {
        suites.extend(report_document(ctx, doc, &logs, i + 1, r));
    }
    r.case(suites_present(&suites).with_log_tail(&console));
}

/// Parses KTAP document `n` with kunit.py and reports its tests; returns its suites.
fn report_document(
    ctx: &Context,
    doc: &str,
    logs: &Path,
    n: usize,
    r: &mut Reporter,
) -> Vec<String> {
    let report = logs.join(format!("kunit-parse-{n}.log"));
    let parsed = parse_document(ctx, doc, logs, n, &report)
        .and_then(|json| results::cases(&json).map_err(|e| format!("{e:#}")));
    let (cases, suites) = match parsed {
        Ok(x) => x,
        Err(e) => {
            r.case(Case::fail(format!("kunit.py parse {n}"), e).with_log_tail(&report));
            return Vec::new();
        }
    };
    let report_text = std::fs::read_to_string(&report).unwrap_or_default();
    for c in cases {
        r.case(with_failure_log(c, &report_text));
    }
    suites
}

/// Boots the VM with the KUnit module and a trivial guest command (twice if
/// the first boot hung).
fn boot(
    ctx: &Context,
    module: &Path,
    console: &Path,
    log: &Path,
    summary: &Path,
    note: &mut dyn FnMut(String),
) -> Case {
    let mut cmd = ctx.vm_command();
    cmd.arg(format!("--module={}", module.display()))
        .arg(format!("--console={}", console.display()))
        .arg(format!("--summary={}", summary.display()))
        .arg(format!("--timeout={GUEST_TIMEOUT_SECS}"));
    if ctx.debug {
        cmd.arg(format!(
            "--guest-file={}:/tests/lib.sh",
            ctx.repo.join(LIB).display()
        ));
    }
    cmd.args(["-q", "--", &ctx.guest_command("true")]);
    match run_vm("kunit", &mut cmd, log, &[console, summary], VM_LIMIT, note) {
        Ok(f) if f.success() => Case::pass("vm run"),
        Ok(f) => {
            let mut details = tail(log, CONSOLE_LINES);
            details.push("--- console (tail) ---".into());
            details.extend(tail(console, CONSOLE_LINES));
            details.push(format!("(logs: {})", log.parent().unwrap_or(log).display()));
            Case::fail("vm run", exit_meaning(&f)).with_details(details)
        }
        Err(e) => Case::fail("vm run", format!("{e:#}")),
    }
}

/// Runs `kunit.py parse --json` on KTAP document `n`; returns the JSON text.
fn parse_document(
    ctx: &Context,
    doc: &str,
    logs: &Path,
    n: usize,
    report: &Path,
) -> Result<String, String> {
    let ktap = logs.join(format!("ktap-{n}.log"));
    let json = logs.join(format!("kunit-{n}.json"));
    std::fs::write(&ktap, doc).map_err(|e| format!("writing {}: {e}", ktap.display()))?;
    let mut cmd = Command::new("python3");
    cmd.arg(ctx.kdir.join("tools/testing/kunit/kunit.py"))
        .arg("parse")
        .arg(format!("--json={}", json.display()))
        .arg(&ktap);
    // kunit.py exits non-zero when tests fail; the JSON tells which.
    run_logged(&mut cmd, report, PARSE_LIMIT).map_err(|e| format!("{e:#}"))?;
    std::fs::read_to_string(&json)
        .map_err(|e| format!("kunit.py wrote no {} ({e})", json.display()))
}

/// Adds what kunit.py printed for a failed test; its first line becomes the reason.
fn with_failure_log(mut c: Case, report: &str) -> Case {
    if !c.is_failure() {
        return c;
    }
    let test = c.name.rsplit('.').next().unwrap_or_default();
    let log = console::failure_log(report, test);
    if let Some(first) = log.first() {
        c.status = Status::Fail(first.trim_start_matches("# ").to_string());
    }
    c.with_details(log)
}

/// Passes if at least one suite name contains `xehpg`.
fn suites_present(suites: &[String]) -> Case {
    let name = "xehpg suites present";
    if suites.iter().any(|s| s.contains("xehpg")) {
        return Case::pass(name);
    }
    let seen = if suites.is_empty() {
        "none".to_string()
    } else {
        suites.join(", ")
    };
    Case::fail(
        name,
        format!("no KUnit suite named *xehpg* ran (suites seen: {seen})"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_xehpg_suite_must_run() {
        assert!(suites_present(&[]).is_failure());
        assert!(suites_present(&["kunit_example".into()]).is_failure());
        assert!(!suites_present(&["kunit_example".into(), "xehpg_regs".into()]).is_failure());
    }
}
