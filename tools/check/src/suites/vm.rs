//! Suite `vm`: guest scenarios against the mock device.
//!
//! Each `tools/guest/tests/<name>.sh` is one test case named `<name>`. Its
//! header ([`scenario`]) sets the device ID, mock arguments, module
//! parameters, the timeout and what the mock may or must report. A
//! `# debug-only` scenario is a case of `vm-debug` alone: the other lanes
//! do not list it ([`pick`]).
//! Scenarios that agree on what is fixed when the device is attached share
//! one VM boot ([`group`]): `tools/guest/group.sh` runs them one after the
//! other, each in a test window of the mock of its own (the device as at
//! power-on, its own mock options, its own record), with the production
//! module (`build/module/xehpg.ko`) loaded for it, `tools/guest/lib.sh` at
//! `/tests/lib.sh` and itself at `/tests/<name>.sh`. A scenario passes when
//! all of its assertions pass:
//!
//! - one per TAP line (`<name>: <description>`, [`tap`]);
//! - `<name>: run`: the script ran to its end within its timeout, the plan
//!   matched, and a non-zero exit came with a `not ok`;
//! - `<name>: mock clean`: its window's mock summary holds nothing
//!   undeclared and every declared violation happened ([`mock_summary`]);
//! - `<name>: driver MMIO count matches the mock`, for scenarios that call
//!   `mmio_report` (`# mmio reads=N writes=N`): the driver's own count of its
//!   BAR accesses equals the mock's ([`mmio`]). Only meaningful in a scenario
//!   that loads the driver once: unloading resets the driver's counters.
//!   Plain lane only: the debug lane's epilogue unloads the driver after the
//!   count was printed, and the mock counts that teardown too.
//! - `<name>: kernel log clean`, in the debug lane only (suite `vm-debug`):
//!   no bug-detector report in its part of the console, leak scan after
//!   rmmod included ([`super::kernel_log`]).
//!
//! The case's assertion count is written to `assertions` beside its logs;
//! the floor keeps it, so a scenario cut to fewer assertions fails a full run
//! ([`crate::floor`]).
//!
//! A boot whose guest hung while booting is run once more ([`retry`]).
//! Boots run `--vm-jobs` at a time (each has its own VM, mock, logs and
//! sockets); scenarios are reported in their order, and each leaves
//! `build/check-logs/<lane>/<name>/` (`output.log`, `console.log`,
//! `mock.json`) as a boot of its own would.

mod expect;
mod group;
pub(crate) mod mmio;
pub(crate) mod mock_summary;
pub(super) mod retry;
mod scenario;
mod tap;

use super::{kernel_log, vm_exit_meaning, Context, DEBUG_SLOWDOWN};
use crate::report::{tail, Case, Reporter};
use group::End;
use retry::{run_vm, VM_EXIT_BOOT_HANG};
use scenario::{discover, Header, Scenario};
use std::collections::VecDeque;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex};
use std::time::{Duration, Instant};
use tap::{Directive, Tap, TapTest};
use xehpg_common::process::Finished;

/// Scenario directory, relative to the repository.
const SCENARIOS: &str = "tools/guest/tests";

/// Helper library every scenario sources, relative to the repository.
const LIB: &str = "tools/guest/lib.sh";

/// The guest side of a boot shared by scenarios ([`group`]).
const GROUP: &str = "tools/guest/group.sh";

/// Time for boot and teardown on top of the guest command's timeout.
const BOOT_MARGIN_SECS: u64 = 120;

/// Lines of the console shown under a failed run.
const CONSOLE_LINES: usize = 15;

/// Most scenarios one boot runs: groups larger than this are cut, so that
/// a boot that dies, or whose kernel log a detector spoils, hands a bounded
/// number of scenarios to a second boot. Each boot costs about 50 s on the
/// debug kernel before and after its scenarios (boot, leak scan, power
/// off), so the default group of about 78 scenarios goes in two boots, not
/// five: the two start first (largest first) and the smaller boots fill the
/// other job slot, which keeps `--vm-jobs 2` as even as before.
const MAX_PER_BOOT: usize = 40;

/// Time per scenario in a boot on top of its own timeout: loading and
/// unloading the driver, the debug lane's leak scan (a 5 s wait and two
/// scans) and the cleanup.
const PER_SCENARIO_MARGIN_SECS: u64 = 60;

/// Runs the suite: scenarios grouped into boots ([`group`]), up to
/// `ctx.vm_jobs` boots at once, each scenario reported in scenario order as
/// its verdict is in.
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
    let mut done: Vec<Option<Outcome>> = scenarios.iter().map(|_| None).collect();
    let mut ready = Vec::new();
    for (i, s) in scenarios.iter().enumerate() {
        match runnable(ctx, s) {
            Ok(h) => ready.push((i, s.name.as_str(), h)),
            Err(case) => {
                done[i] = Some(Outcome {
                    case,
                    notes: Vec::new(),
                })
            }
        }
    }
    let queue: Mutex<VecDeque<Boot>> = Mutex::new(
        group::plan(&ready, MAX_PER_BOOT)
            .into_iter()
            .map(|members| Boot {
                members,
                again: 0,
                scan_each: false,
                notes: Vec::new(),
            })
            .collect(),
    );
    let pending = AtomicUsize::new(ready.len());
    let (tx, rx) = mpsc::channel::<(usize, Outcome)>();
    std::thread::scope(|scope| {
        for _ in 0..ctx.vm_jobs.max(1) {
            let (tx, queue, pending, scenarios) = (tx.clone(), &queue, &pending, &scenarios);
            scope.spawn(move || loop {
                let next = queue
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .pop_front();
                let Some(boot) = next else {
                    if pending.load(Ordering::Acquire) == 0 {
                        break;
                    }
                    // Another worker's boot may still hand scenarios back.
                    std::thread::sleep(Duration::from_millis(200));
                    continue;
                };
                let result = run_boot(ctx, scenarios, &boot);
                if !result.again.is_empty() {
                    queue
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .push_back(Boot {
                            members: result.again,
                            again: boot.again + 1,
                            scan_each: boot.scan_each || result.scan_each,
                            notes: result.notes,
                        });
                }
                for (i, outcome) in result.done {
                    pending.fetch_sub(1, Ordering::AcqRel);
                    if tx.send((i, outcome)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(tx);
        let mut reported = 0;
        let mut flush = |done: &mut Vec<Option<Outcome>>, r: &mut Reporter| {
            while let Some(o) = done.get_mut(reported).and_then(Option::take) {
                o.report(r);
                reported += 1;
            }
        };
        flush(&mut done, r);
        for (i, outcome) in rx {
            done[i] = Some(outcome);
            flush(&mut done, r);
        }
    });
}

/// Scenarios (indices) that one VM boot runs in order.
struct Boot {
    members: Vec<usize>,
    /// How many boots before this one handed these scenarios on.
    again: u32,
    /// Debug lane: a leak scan after each scenario (`debug-each` in
    /// `group.sh`) instead of one for the boot, to learn whose a leak is.
    scan_each: bool,
    /// Notes from the boot that handed these scenarios on.
    notes: Vec<String>,
}

/// What a boot decided: verdicts, and the scenarios a new boot must run
/// (with a leak scan after each of them, if `scan_each`), with notes for it.
struct BootResult {
    done: Vec<(usize, Outcome)>,
    again: Vec<usize>,
    scan_each: bool,
    notes: Vec<String>,
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
                Ok(h) if h.debug_only.is_some() => format!(
                    "{} (timeout {} s, debug lane only)",
                    s.name,
                    h.timeout_secs()
                ),
                Ok(h) if h.plain_only.is_some() => format!(
                    "{} (timeout {} s, plain lane only)",
                    s.name,
                    h.timeout_secs()
                ),
                Ok(h) => format!("{} (timeout {} s)", s.name, h.timeout_secs()),
                Err(e) => format!("{} (bad header: {e})", s.name),
            })
            .collect(),
        Err(e) => vec![format!("(cannot list scenarios: {e:#})")],
    }
}

/// The scenarios to run: the lane's, or those named by `--only vm:NAME`.
fn selected(ctx: &Context) -> Result<Vec<Scenario>, String> {
    let all = discover(&ctx.repo.join(SCENARIOS)).map_err(|e| format!("{e:#}"))?;
    if all.is_empty() {
        return Err(format!("no scenarios in {SCENARIOS}"));
    }
    pick(all, &ctx.items("vm"), ctx.debug, ctx.distro)
}

/// Of `all`, the scenarios of the lane (`debug`, `distro`, or the plain one
/// when neither), or those `wanted` names.
///
/// A `# debug-only` scenario does not exist outside the debug lane: it is
/// not in the list at all (neither run nor skipped), and naming it there is
/// an error that says so. The distro lane's own list is the `# distro`
/// scenarios.
///
/// # Errors
///
/// A wanted name is no scenario, or names a debug-only one outside the debug
/// lane.
fn pick(
    all: Vec<Scenario>,
    wanted: &[String],
    debug: bool,
    distro: bool,
) -> Result<Vec<Scenario>, String> {
    let debug_only = |s: &Scenario| s.header.as_ref().ok().and_then(|h| h.debug_only.clone());
    let plain_only = |s: &Scenario| s.header.as_ref().ok().and_then(|h| h.plain_only.clone());
    if wanted.is_empty() && distro {
        // The distro lane's own: the scenarios whose header says `# distro`
        // (what a user's first load checks, on the kernel the user boots).
        // None is debug-only: the header refuses both.
        return Ok(all
            .into_iter()
            .filter(|s| s.header.as_ref().is_ok_and(|h| h.distro))
            .collect());
    }
    if wanted.is_empty() {
        return Ok(all
            .into_iter()
            .filter(|s| {
                if debug {
                    plain_only(s).is_none()
                } else {
                    debug_only(s).is_none()
                }
            })
            .collect());
    }
    if let Some(w) = wanted.iter().find(|w| !all.iter().any(|s| &s.name == *w)) {
        return Err(format!("no scenario {w} in {SCENARIOS}"));
    }
    let chosen: Vec<Scenario> = all
        .into_iter()
        .filter(|s| wanted.contains(&s.name))
        .collect();
    if debug {
        if let Some((name, why)) = chosen
            .iter()
            .find_map(|s| plain_only(s).map(|why| (&s.name, why)))
        {
            return Err(format!(
                "scenario {name} runs only in the plain lane (plain-only: {why}): \
                 select it as `--only vm:{name}`"
            ));
        }
    }
    if !debug {
        if let Some((name, why)) = chosen
            .iter()
            .find_map(|s| debug_only(s).map(|why| (&s.name, why)))
        {
            return Err(format!(
                "scenario {name} runs only in the debug lane (debug-only: {why}): \
                 select it as `--only vm-debug:{name}`"
            ));
        }
    }
    Ok(chosen)
}

/// A scenario's header, or the failed case of one that cannot run.
fn runnable<'a>(ctx: &Context, s: &'a Scenario) -> Result<&'a Header, Case> {
    let header = s
        .header
        .as_ref()
        .map_err(|e| Case::fail(&s.name, format!("header: {e}")))?;
    // Each guest module's make target is its name (`make sriov-shim`).
    if let Some((name, path)) = header
        .guest_modules
        .iter()
        .map(|m| (m, ctx.guest_module(m)))
        .find(|(_, p)| !p.exists())
    {
        return Err(Case::fail(
            &s.name,
            format!(
                "{} is missing: `make {name}` builds it (with XEHPG_DEBUG_KERNEL=1 also for the debug kernel)",
                path.display()
            ),
        ));
    }
    // The guest tools (`# guest-tools: host`): `make tools` builds them.
    if let Some(path) = header
        .guest_tools
        .iter()
        .map(|t| ctx.guest_tool(t))
        .find(|p| !p.exists())
    {
        return Err(Case::fail(
            &s.name,
            format!(
                "{} is missing: `make tools` builds the guest's static tools",
                path.display()
            ),
        ));
    }
    // The production build (`# module: production`): `make boot-modules`, and
    // `make debug-modules` for the debug lane.
    let module = ctx.module(header.module_dir());
    if header.production && !module.exists() {
        return Err(Case::fail(
            &s.name,
            format!(
                "{} is missing: `make boot-modules` builds it (`make debug-modules` for the debug kernel)",
                module.display()
            ),
        ));
    }
    Ok(header)
}

/// The header of a scenario [`runnable`] accepted.
fn header_of(s: &Scenario) -> &Header {
    static NONE: std::sync::OnceLock<Header> = std::sync::OnceLock::new();
    s.header
        .as_ref()
        .unwrap_or_else(|_| NONE.get_or_init(Header::default))
}

/// Runs one boot's scenarios and judges each. Runs on a worker thread.
fn run_boot(ctx: &Context, scenarios: &[Scenario], boot: &Boot) -> BootResult {
    let members: Vec<&Scenario> = boot.members.iter().map(|&i| &scenarios[i]).collect();
    let Some(first) = members.first() else {
        return BootResult {
            done: Vec::new(),
            again: Vec::new(),
            scan_each: false,
            notes: Vec::new(),
        };
    };
    let start = Instant::now();
    let tag = match boot.again {
        0 => first.name.clone(),
        n => format!("{}-again{n}", first.name),
    };
    let dir = ctx.log_dir("vm").join(format!("boot-{tag}"));
    let mut notes = boot.notes.clone();
    let lane = match (ctx.debug, boot.scan_each) {
        (false, _) => "plain",
        (true, false) => "debug",
        (true, true) => "debug-each",
    };
    let finished = prepare_dir(&dir).and_then(|()| {
        let plan = dir.join("group.plan");
        let lines: Vec<String> = members
            .iter()
            .map(|s| group::plan_line(s, header_of(s), guest_timeout(ctx, header_of(s))))
            .collect();
        std::fs::write(&plan, lines.join("\n") + "\n")
            .map_err(|e| anyhow::anyhow!("writing {}: {e}", plan.display()))?;
        let limit: u64 = members
            .iter()
            .map(|s| guest_timeout(ctx, header_of(s)) + PER_SCENARIO_MARGIN_SECS)
            .sum();
        let mut cmd = boot_command(ctx, &members, &dir, limit, lane);
        run_vm(
            &format!("boot {tag}"),
            &mut cmd,
            &dir.join("output.log"),
            &[&dir.join("console.log"), &dir.join("mock.json")],
            Duration::from_secs(limit + BOOT_MARGIN_SECS),
            &mut |note| notes.push(note),
        )
    });
    let read = |name: &str| {
        String::from_utf8_lossy(&std::fs::read(dir.join(name)).unwrap_or_default()).into_owned()
    };
    let (output, console) = (read("output.log"), read("console.log"));
    let outputs = group::split_output(&output);
    let consoles = group::split_console(&console);
    // The debug lane's one leak scan, after the boot's last scenario: part
    // of every scenario's kernel log. A leak found there is somebody's: the
    // boot's scenarios run again, each followed by a scan of its own.
    let leak_scan = (lane == "debug")
        .then(|| group::leak_scan_part(&console))
        .flatten();
    if let Some(scan) = &leak_scan {
        if group::spoils_the_boot(scan) {
            notes.push(format!(
                "boot {tag}: its leak scan found leaks; its {} scenario(s) run again, each \
                 followed by a leak scan of its own, to learn whose",
                members.len()
            ));
            return BootResult {
                done: Vec::new(),
                again: boot.members.clone(),
                scan_each: true,
                notes,
            };
        }
    }
    let lost = match &finished {
        Ok(f) if f.success() => "the boot ended before this scenario finished".to_string(),
        Ok(f) => format!(
            "the boot ended while this scenario ran: {}",
            exit_meaning(f)
        ),
        Err(e) => format!("the boot failed: {e:#}"),
    };
    let mut result = BootResult {
        done: Vec::new(),
        again: Vec::new(),
        scan_each: false,
        notes: Vec::new(),
    };
    for (k, (&i, s)) in boot.members.iter().zip(&members).enumerate() {
        let part = outputs.get(&s.name);
        // The first scenario is always judged, so every boot makes progress.
        if k > 0 && part.is_none() {
            result.again.push(i);
            continue;
        }
        let mut own_notes = std::mem::take(&mut notes);
        // Each scenario's kernel log, with the boot's leak scan after it.
        let console_part = consoles.get(&s.name).map(|own| match &leak_scan {
            Some(scan) if !own.contains(group::LEAK_SCAN) => {
                format!("{own}--- the boot's leak scan, after its last scenario ---\n{scan}")
            }
            _ => own.clone(),
        });
        let case = judge(
            ctx,
            s,
            part,
            console_part.as_deref(),
            &dir,
            &lost,
            &mut own_notes,
        );
        let spoiled = consoles
            .get(&s.name)
            .is_some_and(|c| group::spoils_the_boot(group::before_leak_scan(c)));
        result.done.push((
            i,
            Outcome {
                case,
                notes: own_notes,
            },
        ));
        if spoiled {
            let rest: Vec<usize> = boot.members[k + 1..].to_vec();
            if !rest.is_empty() {
                if let Some((_, o)) = result.done.last_mut() {
                    o.notes.push(format!(
                        "{}: its kernel log has a detector report, so the {} scenario(s) after \
                         it in boot {tag} run again in a new boot",
                        s.name,
                        rest.len()
                    ));
                }
            }
            result.again.extend(rest);
            break;
        }
    }
    let note = format!(
        "boot {tag}: {} scenario(s) judged, {} handed on, {:.1} s",
        result.done.len(),
        result.again.len(),
        start.elapsed().as_secs_f64()
    );
    if let Some((_, o)) = result.done.last_mut() {
        o.notes.push(note);
    }
    result
}

/// Empties (or creates) a boot's log directory: its window summaries are
/// the mock's answers, and an old one must not pass for one.
fn prepare_dir(dir: &Path) -> anyhow::Result<()> {
    match std::fs::remove_dir_all(dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(anyhow::anyhow!("emptying {}: {e}", dir.display()));
        }
        _ => {}
    }
    std::fs::create_dir_all(dir).map_err(|e| anyhow::anyhow!("creating {}: {e}", dir.display()))
}

/// `tools/vm/run` for one boot: the module shipped, not loaded (group.sh
/// loads it per scenario), the group runner, its plan and the scenarios'
/// files, and the attach-time options the scenarios share.
fn boot_command(
    ctx: &Context,
    members: &[&Scenario],
    dir: &Path,
    limit: u64,
    lane: &str,
) -> Command {
    let h = members
        .first()
        .map_or(&Header::default(), |s| header_of(s))
        .clone();
    let mut cmd = ctx.vm_command();
    if let Some(n) = h.vcpus {
        // After vm_command's own --smp: the runner takes the last.
        cmd.arg(format!("--smp={n}"));
    }
    cmd.args(["-q", &format!("--timeout={limit}")])
        .arg(format!("--console={}", dir.join("console.log").display()))
        .arg(format!("--summary={}", dir.join("mock.json").display()))
        .arg(format!("--module={}", ctx.module(h.module_dir()).display()))
        .arg("--no-load")
        .args(builds_shipped(ctx, members))
        .arg(format!(
            "--guest-file={}:/tests/lib.sh",
            ctx.repo.join(LIB).display()
        ))
        .arg(format!(
            "--guest-file={}:/tests/group.sh",
            ctx.repo.join(GROUP).display()
        ))
        .arg(format!(
            "--guest-file={}:/tests/group.plan",
            dir.join("group.plan").display()
        ))
        .args(
            members
                .iter()
                .map(|s| format!("--guest-file={}:/tests/{}.sh", s.path.display(), s.name)),
        )
        .args(tools_shipped(ctx, members))
        .args(h.guest_modules.iter().map(|m| {
            format!(
                "--guest-file={}:/lib/modules/{}",
                ctx.guest_module(m).display(),
                super::guest_module_file(m)
            )
        }))
        .args(attach_args(&h))
        .args([
            "--",
            &format!("sh /tests/group.sh /tests/group.plan {lane}"),
        ]);
    cmd
}

/// The guest tools any of a boot's scenarios asks for (`# guest-tools:`),
/// each once, at `/usr/bin/NAME`: they are not part of the boot key, so a
/// scenario that uses them shares its boot with those that do not.
fn tools_shipped(ctx: &Context, members: &[&Scenario]) -> Vec<String> {
    let mut names: Vec<&str> = members
        .iter()
        .flat_map(|s| header_of(s).guest_tools.iter().copied())
        .collect();
    names.sort_unstable();
    names.dedup();
    names
        .iter()
        .map(|n| format!("--guest-file={}:/usr/bin/{n}", ctx.guest_tool(n).display()))
        .collect()
}

/// The driver builds of a boot whose scenarios load more than one
/// (`# module: production` beside the test build): each at
/// `/lib/modules/xehpg-BUILD.ko`, from which `group.sh` copies the
/// scenario's build over `/lib/modules/xehpg.ko` before its window. A boot
/// of one build ships it as `--module` alone.
fn builds_shipped(ctx: &Context, members: &[&Scenario]) -> Vec<String> {
    let mut builds: Vec<&Header> = Vec::new();
    for s in members {
        let h = header_of(s);
        if !builds.iter().any(|b| b.build() == h.build()) {
            builds.push(h);
        }
    }
    if builds.len() < 2 {
        return Vec::new();
    }
    builds
        .iter()
        .map(|h| {
            format!(
                "--guest-file={}:/lib/modules/xehpg-{}.ko",
                ctx.module(h.module_dir()).display(),
                h.build()
            )
        })
        .collect()
}

/// Judges one scenario of a boot from its parts, which it first writes to
/// `build/check-logs/<lane>/<name>/` (`output.log`, `console.log`,
/// `mock.json`) as a boot of its own would have left them.
fn judge(
    ctx: &Context,
    s: &Scenario,
    part: Option<&group::Part>,
    console_part: Option<&str>,
    boot_dir: &Path,
    lost: &str,
    notes: &mut Vec<String>,
) -> Case {
    let header = header_of(s);
    let logs = ctx.log_dir("vm").join(&s.name);
    let (out, console, summary) = (
        logs.join("output.log"),
        logs.join("console.log"),
        logs.join("mock.json"),
    );
    let written = prepare_dir(&logs).and_then(|()| {
        let output = part.map_or("", |p| p.output.as_str());
        std::fs::write(&out, output)?;
        // Without its own part (the boot died first) the whole console is
        // what there is to see.
        let whole;
        let text = match console_part {
            Some(c) => c,
            None => {
                whole = std::fs::read_to_string(boot_dir.join("console.log")).unwrap_or_default();
                &whole
            }
        };
        std::fs::write(&console, text)?;
        let window = boot_dir.join(format!("window-{}.json", s.name));
        if window.exists() {
            std::fs::copy(&window, &summary)?;
        }
        Ok(())
    });
    if let Err(e) = written {
        return Case::fail(&s.name, format!("writing its logs: {e:#}"));
    }
    let text = part.map_or(String::new(), |p| p.output.clone());
    let end = part
        .and_then(|p| p.end.clone())
        .unwrap_or_else(|| End::Lost(lost.to_string()));
    let tap = tap::parse(&text);
    // One scenario is one test case; its TAP lines, the run itself, the mock's
    // verdict and the MMIO reconciliation are the case's assertions.
    let mut parts = tap_cases(&s.name, &tap);
    parts.push(run_case(
        &s.name,
        &end,
        guest_timeout(ctx, header),
        &tap,
        &out,
        &console,
    ));
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
    if matches!(end, End::Lost(_)) {
        notes.push(format!("{}: {lost}", s.name));
    }
    let case = Case::combine(&s.name, parts);
    // The count the floor keeps ([`crate::floor`]), beside the logs, so a
    // partial run shows it too.
    let _ = std::fs::write(logs.join("assertions"), format!("{}\n", case.assertions));
    case
}

/// The header's timeout, longer on the debug kernel.
fn guest_timeout(ctx: &Context, h: &Header) -> u64 {
    if ctx.debug {
        h.timeout_secs() * DEBUG_SLOWDOWN
    } else {
        h.timeout_secs()
    }
}

/// Runner options for what a boot's scenarios share: the device ID and the
/// attach-time mock options ([`group::split_mock_args`]).
fn attach_args(h: &Header) -> Vec<String> {
    let mut args = Vec::new();
    if let Some(id) = &h.device_id {
        args.push(format!("--device-id={id}"));
    }
    args.extend(
        group::split_mock_args(&h.mock_args)
            .0
            .iter()
            .map(|a| format!("--mock-arg={a}")),
    );
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

/// `<scenario>: run`: the script ran to its end, the plan held, and a
/// non-zero exit came with a `not ok`.
fn run_case(
    scenario: &str,
    end: &End,
    timeout: u64,
    tap: &Tap,
    output: &Path,
    console: &Path,
) -> Case {
    let name = format!("{scenario}: run");
    let mut problems = tap.problems();
    problems.extend(exit_problem(end, timeout, tap));
    if problems.is_empty() {
        return Case::pass(name);
    }
    let mut details = vec!["--- output (tail) ---".to_string()];
    details.extend(tail(output, CONSOLE_LINES));
    // The rest of the console matters when the script never got to report
    // (panic, hang).
    if matches!(end, End::Killed | End::Lost(_)) {
        details.push("--- console (tail) ---".into());
        details.extend(tail(console, CONSOLE_LINES));
    }
    details.push(format!(
        "(logs: {})",
        output.parent().unwrap_or(output).display()
    ));
    Case::fail(name, problems.join("; ")).with_details(details)
}

/// What the scenario's end says, beyond the TAP lines.
fn exit_problem(end: &End, timeout: u64, tap: &Tap) -> Option<String> {
    let any_not_ok = tap
        .tests
        .iter()
        .any(|t| !t.ok && !matches!(t.directive, Some(Directive::Todo(_))));
    match end {
        End::Exited(0) => None,
        End::Exited(c) if !any_not_ok => Some(format!("the script exited {c} without a `not ok`")),
        End::Exited(_) => None,
        End::Killed => Some(format!(
            "the script ran past its {timeout} s timeout and was killed"
        )),
        End::NoWindow => Some(
            "the mock did not open the scenario's window, so it did not run (boot-*/mock.stderr \
             or the runner's output says why)"
                .into(),
        ),
        End::Lost(why) => Some(why.clone()),
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

    fn scenario(name: &str, header: &str) -> Scenario {
        Scenario {
            name: name.to_string(),
            path: format!("/tests/{name}.sh").into(),
            header: scenario::parse_header(header).map_err(|e| format!("{e:#}")),
        }
    }

    fn names(r: Result<Vec<Scenario>, String>) -> Result<Vec<String>, String> {
        r.map(|v| v.into_iter().map(|s| s.name).collect())
    }

    /// A `# plain-only` scenario is not in the debug lane's list, and naming
    /// it there is an error that says why.
    #[test]
    fn plain_only_scenarios_stay_out_of_the_debug_lane() {
        let all = || {
            vec![
                scenario("guc", ""),
                scenario("lockdown", "# plain-only: no leak scan under lockdown\n"),
            ]
        };
        let want = |w: &[&str]| w.iter().map(ToString::to_string).collect::<Vec<_>>();
        assert_eq!(
            names(pick(all(), &[], false, false)),
            Ok(want(&["guc", "lockdown"]))
        );
        assert_eq!(names(pick(all(), &[], true, false)), Ok(want(&["guc"])));
        assert_eq!(
            names(pick(all(), &want(&["lockdown"]), false, false)),
            Ok(want(&["lockdown"]))
        );
        let e = names(pick(all(), &want(&["lockdown"]), true, false)).unwrap_err();
        assert!(e.contains("runs only in the plain lane"), "{e}");
    }

    /// A `# debug-only` scenario exists in the debug lane alone: the plain
    /// lane does not list it, the distro lane keeps to `# distro`, and
    /// naming it outside the debug lane is an error that says why.
    #[test]
    fn debug_only_scenarios_exist_only_in_the_debug_lane() {
        let all = || {
            vec![
                scenario("bind", "# distro\n"),
                scenario("failslab", "# debug-only: failslab fault injection\n"),
                scenario("guc", ""),
            ]
        };
        let want = |w: &[&str]| w.iter().map(ToString::to_string).collect::<Vec<_>>();
        // Whole lanes: plain, debug, distro.
        assert_eq!(
            names(pick(all(), &[], false, false)),
            Ok(want(&["bind", "guc"]))
        );
        assert_eq!(
            names(pick(all(), &[], true, false)),
            Ok(want(&["bind", "failslab", "guc"]))
        );
        assert_eq!(names(pick(all(), &[], false, true)), Ok(want(&["bind"])));
        // Named.
        assert_eq!(
            names(pick(all(), &want(&["failslab"]), true, false)),
            Ok(want(&["failslab"]))
        );
        for distro in [false, true] {
            let e = names(pick(all(), &want(&["guc", "failslab"]), false, distro)).unwrap_err();
            assert_eq!(
                e,
                "scenario failslab runs only in the debug lane (debug-only: failslab fault \
                 injection): select it as `--only vm-debug:failslab`"
            );
        }
        assert_eq!(
            names(pick(all(), &want(&["guc"]), false, false)),
            Ok(want(&["guc"]))
        );
        assert!(names(pick(all(), &want(&["nonesuch"]), true, false))
            .unwrap_err()
            .contains("no scenario nonesuch"));
        // A header naming both lanes is a header error, reported as such.
        let both = scenario("both", "# distro\n# debug-only: x\n");
        assert!(both.header.as_ref().unwrap_err().contains("contradict"));
    }

    #[test]
    fn header_becomes_runner_options() {
        let h = scenario::parse_header(
            "# no-load\n# device-id: 0x1234\n# mock-args: --fault all-ones --no-msi\n# params: a=1\n",
        )
        .unwrap();
        assert_eq!(
            attach_args(&h),
            ["--device-id=0x1234", "--mock-arg=--no-msi"]
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
        let problem = |end: End, tap: &Tap| exit_problem(&end, 60, tap);
        assert_eq!(problem(End::Exited(0), &passing), None);
        assert_eq!(
            problem(End::Exited(1), &failing),
            None,
            "failure already reported"
        );
        assert_eq!(
            problem(End::Exited(2), &passing).as_deref(),
            Some("the script exited 2 without a `not ok`")
        );
        assert_eq!(
            problem(End::Killed, &failing).as_deref(),
            Some("the script ran past its 60 s timeout and was killed")
        );
        assert!(problem(End::NoWindow, &passing)
            .unwrap()
            .contains("did not open the scenario's window"));
        assert_eq!(
            problem(End::Lost("the boot ended".into()), &passing).as_deref(),
            Some("the boot ended")
        );
    }

    #[test]
    fn run_case_fails_on_plan_mismatch_even_with_exit_zero() {
        let tap = tap::parse("1..2\nok 1 - a\n");
        let c = run_case(
            "probe",
            &End::Exited(0),
            60,
            &tap,
            Path::new("/nonexistent/output.log"),
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
