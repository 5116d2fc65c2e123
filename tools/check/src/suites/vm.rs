//! Suite `vm`: guest scenarios against the mock device.
//!
//! Each `tools/guest/tests/<name>.sh` boots its own VM through `tools/vm/run`
//! with the production module (`build/module/xehpg.ko`), `tools/guest/lib.sh`
//! at `/tests/lib.sh` and itself at `/tests/<name>.sh`, and runs
//! `sh /tests/<name>.sh`. Its header
//! ([`scenario`]) sets the device ID, mock arguments, module parameters, the
//! timeout and what the mock may or must report. A scenario is one test case
//! named `<name>`; it passes when all of its assertions pass:
//!
//! - one per TAP line (`<name>: <description>`, [`tap`]);
//! - `<name>: run`: the guest reported an exit status, the plan matched, and a
//!   non-zero exit came with a `not ok`;
//! - `<name>: mock clean`: the mock summary holds nothing undeclared and every
//!   declared violation happened ([`mock_summary`]);
//! - `<name>: driver MMIO count matches the mock`, for scenarios that call
//!   `mmio_report` (`# mmio reads=N writes=N`): the driver's own count of its
//!   BAR accesses equals the mock's ([`mmio`]). Only meaningful in a scenario
//!   that loads the driver once: unloading resets the driver's counters.
//!   Plain lane only: the debug lane's epilogue unloads the driver after the
//!   count was printed, and the mock counts that teardown too.
//!
//! - `<name>: kernel log clean`, in the debug lane only (suite `vm-debug`):
//!   no bug-detector report on the console, leak scan after rmmod included
//!   ([`super::kernel_log`]).
//!
//! A run whose guest hung while booting is run once more ([`retry`]).
//! Scenarios run `--vm-jobs` at a time (each has its own VM, mock, logs and
//! sockets), reported in their order.

mod expect;
pub(crate) mod mmio;
pub(crate) mod mock_summary;
pub(super) mod retry;
mod scenario;
mod tap;

use super::{
    kernel_log, vm_exit_meaning, Context, DEBUG_SLOWDOWN, VM_EXIT_NO_STATUS, VM_EXIT_TIMEOUT,
};
use crate::report::{tail, Case, Reporter};
use retry::{run_vm, VM_EXIT_BOOT_HANG};
use scenario::{discover, Header, Scenario};
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use tap::{Directive, Tap, TapTest};
use xehpg_common::process::Finished;

/// The production module's build directory under `build/` (`make check`
/// builds `build/module/xehpg.ko`, `make debug-modules` `build/module-debug/`).
const MODULE: &str = "module";

/// Scenario directory, relative to the repository.
const SCENARIOS: &str = "tools/guest/tests";

/// Helper library every scenario sources, relative to the repository.
const LIB: &str = "tools/guest/lib.sh";

/// Time for boot and teardown on top of the guest command's timeout.
const BOOT_MARGIN_SECS: u64 = 120;

/// Lines of the console shown under a failed run.
const CONSOLE_LINES: usize = 15;

/// Runs the suite: up to `ctx.vm_jobs` scenarios at once, each its own VM
/// and mock, reported in scenario order as they finish.
pub fn run(ctx: &Context, r: &mut Reporter) {
    if ctx.distro {
        let kernel = ctx.distro_file("vmlinuz");
        if !kernel.exists() {
            return r.case(Case::fail(
                "distro kernel",
                format!(
                    "{} is missing: `make distro-modules` fetches Debian's kernel and builds \
                     the module for it",
                    kernel.display()
                ),
            ));
        }
    }
    let scenarios = match selected(ctx) {
        Ok(s) => s,
        Err(e) => return r.case(Case::fail("scenarios", e)),
    };
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<(usize, Outcome)>();
    std::thread::scope(|scope| {
        for _ in 0..ctx.vm_jobs.clamp(1, scenarios.len()) {
            let (tx, next, scenarios) = (tx.clone(), &next, &scenarios);
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(s) = scenarios.get(i) else { break };
                if tx.send((i, run_scenario(ctx, s))).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        let mut done: Vec<Option<Outcome>> = scenarios.iter().map(|_| None).collect();
        let mut reported = 0;
        for (i, outcome) in rx {
            done[i] = Some(outcome);
            while let Some(o) = done.get_mut(reported).and_then(Option::take) {
                o.report(r);
                reported += 1;
            }
        }
    });
}

/// One scenario's result: its case and the notes made while running it.
struct Outcome {
    case: Case,
    notes: Vec<String>,
}

impl Outcome {
    fn report(self, r: &mut Reporter) {
        r.case(self.case);
        for n in &self.notes {
            r.note(n);
        }
    }
}

/// Scenario names and headers, for `--list`.
pub fn list(ctx: &Context) -> Vec<String> {
    match discover(&ctx.repo.join(SCENARIOS)) {
        Ok(list) => list
            .iter()
            .map(|s| match &s.header {
                Ok(h) => format!("{} (timeout {} s)", s.name, h.timeout_secs()),
                Err(e) => format!("{} (bad header: {e})", s.name),
            })
            .collect(),
        Err(e) => vec![format!("(cannot list scenarios: {e:#})")],
    }
}

/// The scenarios to run: all, or those named by `--only vm:NAME`.
fn selected(ctx: &Context) -> Result<Vec<Scenario>, String> {
    let all = discover(&ctx.repo.join(SCENARIOS)).map_err(|e| format!("{e:#}"))?;
    if all.is_empty() {
        return Err(format!("no scenarios in {SCENARIOS}"));
    }
    let wanted = ctx.items("vm");
    if wanted.is_empty() && ctx.distro {
        // The distro lane's own: the scenarios whose header says `# distro`
        // (what a user's first load checks, on the kernel the user boots).
        return Ok(all
            .into_iter()
            .filter(|s| s.header.as_ref().is_ok_and(|h| h.distro))
            .collect());
    }
    if wanted.is_empty() {
        return Ok(all);
    }
    if let Some(w) = wanted.iter().find(|w| !all.iter().any(|s| &s.name == *w)) {
        return Err(format!("no scenario {w} in {SCENARIOS}"));
    }
    Ok(all
        .into_iter()
        .filter(|s| wanted.contains(&s.name))
        .collect())
}

/// Runs one scenario's VM and judges it. Runs on a worker thread.
fn run_scenario(ctx: &Context, s: &Scenario) -> Outcome {
    let mut notes = Vec::new();
    let case = scenario_case(ctx, s, &mut notes);
    Outcome { case, notes }
}

fn scenario_case(ctx: &Context, s: &Scenario, notes: &mut Vec<String>) -> Case {
    let header = match &s.header {
        Ok(h) => h,
        Err(e) => return Case::fail(&s.name, format!("header: {e}")),
    };
    // Each guest module's make target is its name (`make sriov-shim`).
    if let Some((name, path)) = header
        .guest_modules
        .iter()
        .map(|m| (m, ctx.guest_module(m)))
        .find(|(_, p)| !p.exists())
    {
        return Case::fail(
            &s.name,
            format!(
                "{} is missing: `make {name}` builds it (with XEHPG_DEBUG_KERNEL=1 also for the debug kernel)",
                path.display()
            ),
        );
    }
    let start = Instant::now();
    let logs = ctx.log_dir("vm").join(&s.name);
    let (out, console, summary) = (
        logs.join("output.log"),
        logs.join("console.log"),
        logs.join("mock.json"),
    );
    let mut cmd = scenario_command(ctx, s, header, &console, &summary);
    let limit = Duration::from_secs(guest_timeout(ctx, header) + BOOT_MARGIN_SECS);
    let finished = match run_vm(
        &s.name,
        &mut cmd,
        &out,
        &[&console, &summary],
        limit,
        &mut |note| notes.push(note),
    ) {
        Ok(f) => f,
        Err(e) => return Case::fail(&s.name, format!("{e:#}")),
    };
    let text = String::from_utf8_lossy(&std::fs::read(&out).unwrap_or_default()).into_owned();
    let tap = tap::parse(&text);
    // One scenario is one test case; its TAP lines, the run itself, the mock's
    // verdict and the MMIO reconciliation are the case's assertions.
    let mut parts = tap_cases(&s.name, &tap);
    parts.push(run_case(&s.name, &finished, &tap, &console));
    parts.push(mock_case(&s.name, header, &summary));
    // In the debug lane the epilogue unloads the driver after the scenario
    // printed its count, and the mock also counts that teardown's accesses:
    // the reconciliation holds only in the plain lane.
    if !ctx.debug {
        parts.extend(mmio_case(&s.name, &text, &summary));
    }
    parts.extend(expect_cases(&s.name, header, &text, &summary));
    if ctx.debug {
        parts.push(kernel_log::case(&s.name, &console));
    }
    notes.push(format!(
        "{}: {:.1} s",
        s.name,
        start.elapsed().as_secs_f64()
    ));
    Case::combine(&s.name, parts)
}

/// `tools/vm/run` for one scenario: its files, its header's options, its script.
fn scenario_command(
    ctx: &Context,
    s: &Scenario,
    h: &Header,
    console: &Path,
    summary: &Path,
) -> Command {
    let mut cmd = ctx.vm_command();
    cmd.args(["-q", &format!("--timeout={}", guest_timeout(ctx, h))])
        .arg(format!("--console={}", console.display()))
        .arg(format!("--summary={}", summary.display()))
        .arg(format!("--module={}", ctx.module(MODULE).display()))
        .arg(format!(
            "--guest-file={}:/tests/lib.sh",
            ctx.repo.join(LIB).display()
        ))
        .arg(format!(
            "--guest-file={}:/tests/{}.sh",
            s.path.display(),
            s.name
        ))
        .args(h.guest_modules.iter().map(|m| {
            format!(
                "--guest-file={}:/lib/modules/{}",
                ctx.guest_module(m).display(),
                super::guest_module_file(m)
            )
        }))
        .args(header_args(h))
        .args([
            "--",
            &ctx.guest_command(&format!("sh /tests/{}.sh", s.name)),
        ]);
    cmd
}

/// The header's timeout, longer on the debug kernel.
fn guest_timeout(ctx: &Context, h: &Header) -> u64 {
    if ctx.debug {
        h.timeout_secs() * DEBUG_SLOWDOWN
    } else {
        h.timeout_secs()
    }
}

/// Runner options a header asks for.
fn header_args(h: &Header) -> Vec<String> {
    let mut args = Vec::new();
    if h.no_load {
        args.push("--no-load".to_string());
    }
    if let Some(id) = &h.device_id {
        args.push(format!("--device-id={id}"));
    }
    args.extend(h.mock_args.iter().map(|a| format!("--mock-arg={a}")));
    args.extend(h.params.iter().map(|p| format!("--param={p}")));
    args
}

/// One case per TAP line, named `<scenario>: <description>`; a description
/// used twice gets its test number, so every name is unique.
fn tap_cases(scenario: &str, tap: &Tap) -> Vec<Case> {
    let descs: Vec<&str> = tap.tests.iter().map(|t| t.desc.as_str()).collect();
    tap.tests
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let name = match t.desc.as_str() {
                "" => format!("{scenario}: test {}", i + 1),
                d if descs.iter().filter(|o| **o == d).count() > 1 => {
                    format!("{scenario}: {d} (test {})", i + 1)
                }
                d => format!("{scenario}: {d}"),
            };
            tap_case(name, t)
        })
        .collect()
}

fn tap_case(name: String, t: &TapTest) -> Case {
    match (&t.directive, t.ok) {
        (Some(Directive::Skip(why)), _) => Case::skip(name, why.clone()),
        (Some(Directive::Todo(why)), false) => Case::skip(name, format!("TODO {why}")),
        (_, true) => Case::pass(name),
        (_, false) => {
            let reason = t
                .diagnostics
                .first()
                .cloned()
                .unwrap_or_else(|| "not ok".into());
            Case::fail(name, reason).with_details(t.diagnostics.iter().cloned())
        }
    }
}

/// `<scenario>: run`: the VM finished, the guest reported its status, the plan held.
fn run_case(scenario: &str, f: &Finished, tap: &Tap, console: &Path) -> Case {
    let name = format!("{scenario}: run");
    let mut problems = tap.problems();
    problems.extend(exit_problem(f, tap));
    if problems.is_empty() {
        return Case::pass(name);
    }
    let mut details = vec!["--- output (tail) ---".to_string()];
    details.extend(tail(&f.log, CONSOLE_LINES));
    // The output is the guest command's part of the console; the rest of the
    // console matters when the guest never got to report (panic, hang).
    let guest_lost = f.timed_out
        || matches!(
            f.code(),
            Some(VM_EXIT_TIMEOUT | VM_EXIT_NO_STATUS | VM_EXIT_BOOT_HANG) | None
        );
    if guest_lost {
        details.push("--- console (tail) ---".into());
        details.extend(tail(console, CONSOLE_LINES));
    }
    details.push(format!(
        "(logs: {})",
        f.log.parent().unwrap_or(&f.log).display()
    ));
    Case::fail(name, problems.join("; ")).with_details(details)
}

/// What the runner's exit says, beyond the TAP lines.
fn exit_problem(f: &Finished, tap: &Tap) -> Option<String> {
    let any_not_ok = tap
        .tests
        .iter()
        .any(|t| !t.ok && !matches!(t.directive, Some(Directive::Todo(_))));
    match f.code() {
        _ if f.timed_out => Some(vm_exit_meaning(f)),
        Some(0) => None,
        Some(VM_EXIT_TIMEOUT | VM_EXIT_NO_STATUS | VM_EXIT_BOOT_HANG) | None => {
            Some(exit_meaning(f))
        }
        Some(c) if !any_not_ok => Some(format!("the script exited {c} without a `not ok`")),
        Some(_) => None,
    }
}

/// A `tools/vm/run` exit in words, boot hangs included.
pub(super) fn exit_meaning(f: &Finished) -> String {
    match f.code() {
        Some(VM_EXIT_BOOT_HANG) if !f.timed_out => {
            "the guest's boot hung before its /init started the command, on the retry too".into()
        }
        _ => vm_exit_meaning(f),
    }
}

/// `<prefix>: mock clean` for a run that declares nothing (the KUnit boot).
pub(super) fn mock_clean(prefix: &str, summary: &Path) -> Case {
    mock_case(prefix, &Header::default(), summary)
}

/// `<scenario>: mock clean`.
fn mock_case(scenario: &str, h: &Header, summary: &Path) -> Case {
    let name = format!("{scenario}: mock clean");
    let text = match std::fs::read_to_string(summary) {
        Ok(t) => t,
        Err(e) => {
            return Case::fail(
                name,
                format!("no mock summary at {} ({e})", summary.display()),
            )
        }
    };
    let problems = match mock_summary::parse(&text) {
        Ok(s) => mock_summary::judge(&s, h),
        Err(e) => vec![format!("{e:#}")],
    };
    if problems.is_empty() {
        return Case::pass(name);
    }
    Case::fail(name, problems.join("; ")).with_details(
        problems
            .into_iter()
            .chain([format!("(summary: {})", summary.display())]),
    )
}

/// `<scenario>: mock recorded FIELD OP VALUE`, one per expectation of the
/// header and of the guest's output.
fn expect_cases(scenario: &str, h: &Header, output: &str, summary: &Path) -> Vec<Case> {
    let printed = expect::from_output(output);
    if h.expect_mock.is_empty() && printed.is_empty() {
        return Vec::new();
    }
    let parsed = std::fs::read_to_string(summary)
        .map_err(|e| format!("no mock summary at {} ({e})", summary.display()))
        .and_then(|t| mock_summary::parse(&t).map_err(|e| format!("{e:#}")));
    let all = h.expect_mock.iter().cloned().map(Ok).chain(printed);
    all.enumerate()
        .map(|(i, e)| {
            let label = e
                .as_ref()
                .map_or_else(|_| format!("expectation {}", i + 1), |e| e.to_string());
            let name = format!("{scenario}: mock recorded {label}");
            let verdict = e.and_then(|e| {
                let s = parsed.as_ref().map_err(Clone::clone)?;
                expect::check(&e, s)
            });
            match verdict {
                Ok(()) => Case::pass(name),
                Err(why) => Case::fail(name, why),
            }
        })
        .collect()
}

/// `<scenario>: driver MMIO count matches the mock`, if the scenario reported
/// its count.
fn mmio_case(scenario: &str, output: &str, summary: &Path) -> Option<Case> {
    let driver = mmio::counts_after(output, mmio::SCENARIO_PREFIX)?;
    let name = format!("{scenario}: driver MMIO count matches the mock");
    let result = driver.and_then(|d| {
        let text = std::fs::read_to_string(summary)
            .map_err(|e| format!("no mock summary at {} ({e})", summary.display()))?;
        let s = mock_summary::parse(&text).map_err(|e| format!("{e:#}"))?;
        mmio::reconcile(d, &s)
    });
    Some(match result {
        Ok(()) => Case::pass(name),
        Err(why) => Case::fail(name, why),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Status;
    use std::os::unix::process::ExitStatusExt;
    use std::path::PathBuf;
    use std::process::ExitStatus;

    fn finished(code: i32) -> Finished {
        Finished {
            status: Some(ExitStatus::from_raw(code << 8)),
            timed_out: false,
            limit: Duration::from_secs(10),
            log: PathBuf::from("/nonexistent/output.log"),
        }
    }

    #[test]
    fn header_becomes_runner_options() {
        let h = scenario::parse_header(
            "# no-load\n# device-id: 0x1234\n# mock-args: --fault all-ones\n# params: a=1 b\n",
        )
        .unwrap();
        assert_eq!(
            header_args(&h),
            [
                "--no-load",
                "--device-id=0x1234",
                "--mock-arg=--fault",
                "--mock-arg=all-ones",
                "--param=a=1",
                "--param=b"
            ]
        );
    }

    #[test]
    fn tap_lines_become_cases() {
        let tap = tap::parse(
            "1..6\nok 1 - a\nnot ok 2 - b\n# why\nok 3 # SKIP later\nnot ok 4 - d # TODO x\n\
             ok 5 - twice\nok 6 - twice\n",
        );
        let cases = tap_cases("probe", &tap);
        assert_eq!(cases[0], Case::pass("probe: a"));
        assert_eq!(cases[1].status, Status::Fail("why".into()));
        assert_eq!(cases[2], Case::skip("probe: test 3", "later"));
        assert_eq!(cases[3].status, Status::Skip("TODO x".into()));
        assert_eq!(cases[4].name, "probe: twice (test 5)");
        assert_eq!(cases[5].name, "probe: twice (test 6)");
    }

    #[test]
    fn exit_statuses_are_interpreted() {
        let passing = tap::parse("1..1\nok 1 - a\n");
        let failing = tap::parse("1..1\nnot ok 1 - a\n");
        assert_eq!(exit_problem(&finished(0), &passing), None);
        assert_eq!(
            exit_problem(&finished(1), &failing),
            None,
            "failure already reported"
        );
        assert_eq!(
            exit_problem(&finished(2), &passing).as_deref(),
            Some("the script exited 2 without a `not ok`")
        );
        assert!(exit_problem(&finished(VM_EXIT_NO_STATUS), &failing)
            .unwrap()
            .contains("no exit status"));
        assert!(exit_problem(&finished(VM_EXIT_TIMEOUT), &failing)
            .unwrap()
            .contains("timed out"));
        assert!(exit_problem(&finished(VM_EXIT_BOOT_HANG), &failing)
            .unwrap()
            .contains("boot hung"));
        let mut killed = finished(0);
        killed.timed_out = true;
        assert!(exit_problem(&killed, &passing)
            .unwrap()
            .contains("killed after 10 s"));
    }

    #[test]
    fn run_case_fails_on_plan_mismatch_even_with_exit_zero() {
        let tap = tap::parse("1..2\nok 1 - a\n");
        let c = run_case(
            "probe",
            &finished(0),
            &tap,
            Path::new("/nonexistent/console.log"),
        );
        assert_eq!(c.status, Status::Fail("planned 2 tests, 1 ran".into()));
    }

    #[test]
    fn mmio_case_only_for_scenarios_that_report() {
        let dir = std::env::temp_dir().join(format!("xehpg-check-mmio-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let summary = dir.join("mock.json");
        let mock = mock_summary::Summary {
            mmio_reads: 7,
            mmio_writes: 3,
            ..mock_summary::Summary::default()
        };
        std::fs::write(&summary, serde_json::to_string(&mock).unwrap()).unwrap();
        assert!(mmio_case("bind", "ok 1 - a\n", &summary).is_none());
        let ok = mmio_case("m", "# mmio reads=7 writes=3\n", &summary).unwrap();
        assert_eq!(ok, Case::pass("m: driver MMIO count matches the mock"));
        let bad = mmio_case("m", "# mmio reads=7 writes=4\n", &summary).unwrap();
        assert!(bad.is_failure());
        let lost = mmio_case("m", "# mmio reads=7 writes=3\n", &dir.join("none.json")).unwrap();
        assert!(lost.is_failure());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn missing_summary_is_a_failure() {
        let c = mock_case(
            "probe",
            &Header::default(),
            Path::new("/nonexistent/mock.json"),
        );
        assert!(c.is_failure());
    }
}
