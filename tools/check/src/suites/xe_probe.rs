//! Suite `xe-probe`: upstream's C `xe` driver, which nobody here wrote,
//! probes the mock ATS-M on the plain kernel (built with
//! `tools/kernel-xe.config`). Where xe stops, or touches a register the mock
//! does not model, the mock is not yet the hardware xe was written for.
//!
//! The guest (`tools/guest/xe-probe.sh`) loads xe's dependencies and xe
//! with `force_probe`; the host judges the mock's summary and trace, the
//! guest's report and the kernel console against the baseline
//! `tools/check/xe-probe.toml`. Everything is matched exactly, so the
//! baseline is the whole account of the run:
//!
//! - `modules`: xe and its dependencies were built;
//! - `run`: the guest script ran to its end, the mock exited cleanly;
//! - `furthest stage`: xe got at least as far as the baseline's `stage`
//!   ([`stages`]);
//! - `probe result`: `insmod` returned 0 and xe is bound when the stage
//!   says so; `unbind`: a bound xe unbinds;
//! - `xe errors explained`: every line xe logged at error level or naming a
//!   wedge matches one `[xe_errors]` entry, and every entry still matches;
//! - `kernel log`: every report of the debug lane's detector table
//!   ([`super::kernel_log::DETECTORS`]) on the console (xe's WARNs
//!   included) matches a `[[kernel_log]]` entry by detector and text, with
//!   the entry's exact count;
//! - `unmodelled accesses`: exactly `unknown` distinct accesses to registers
//!   the mock does not model: the host's over BAR0 (the summary's
//!   `unknown`), those of xe's commands on the engines (SRM, LRI, LRR: the
//!   trace's `engine_unmodelled_reg`) and GuC actions the mock does not
//!   serve;
//! - `gaps explained`: each is listed, by who made it (host or engine) and
//!   offset, in a `[[gap]]` that says why it stays unmodelled, and every
//!   listed offset was accessed (a stale entry fails: the mock got closer,
//!   lower the baseline);
//! - `violations explained`: each mock violation (trace `violation` events,
//!   by kind and register offset) is a `[[violation]]` of the baseline,
//!   which says who is right (Documentation/xe-probe.rst), and every entry
//!   still occurs.

pub(crate) mod modules;
pub(crate) mod stages;

use super::kernel_log;
use super::kernel_log::Finding;
use super::vm::mock_summary;
use super::vm::retry::run_vm;
use super::Context;
use crate::report::{Case, Reporter};
use anyhow::{Context as _, Result};
use serde::Deserialize;
use stages::Stage;
use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;
use std::time::{Duration, Instant};
use xehpg_mock::summary::Summary;

/// The baseline, relative to the repository.
const BASELINE: &str = "tools/check/xe-probe.toml";

/// The guest script, relative to the repository.
const SCRIPT: &str = "tools/guest/xe-probe.sh";

/// Guest command timeout: xe's probe, its job timeouts on a stuck engine
/// (5 s each) and the settling time.
const GUEST_TIMEOUT_SECS: u64 = 240;

/// On top of the guest's timeout: boot and teardown.
const BOOT_MARGIN_SECS: u64 = 120;

/// The mock's trace, summary and the guest's console, in the suite's log
/// directory.
const TRACE: &str = "trace.jsonl";
const SUMMARY: &str = "mock.json";
const CONSOLE: &str = "console.log";

/// Suite name, the prefix of its cases.
const NAME: &str = "xe-probe";

/// What xe reached when the baseline was last raised.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Baseline {
    /// The stage xe must reach at least.
    stage: Stage,
    /// Exactly this many distinct unmodelled (who, op, offset) accesses.
    unknown: usize,
    /// xe's `max_vfs`: as PF it enables SR-IOV when above 0.
    max_vfs: u32,
    /// Mock arguments for the run, and why (in the file's comments).
    mock_args: Vec<String>,
    /// Registers the mock leaves unmodelled on purpose.
    #[serde(default)]
    gap: Vec<Gap>,
    /// Mock violations xe causes, each with the finding behind it.
    #[serde(default)]
    violation: Vec<KnownViolation>,
    /// GuC actions xe sends that the mock's GuC does not serve, by code
    /// (`"0x7000"`), each with the reason.
    #[serde(default)]
    guc_actions: BTreeMap<String, String>,
    /// Error lines of xe's that are understood: a fragment of the line, and
    /// why.
    #[serde(default)]
    xe_errors: BTreeMap<String, String>,
    /// Detector reports on the console that are understood.
    #[serde(default)]
    kernel_log: Vec<KnownReport>,
}

/// Who a [`Gap`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum GapBy {
    /// The host's BAR0 accesses.
    Host,
    /// xe's commands on the engines.
    Engine,
}

/// Registers the mock does not model, who touches them, and why.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Gap {
    /// Who makes the accesses.
    by: GapBy,
    /// The register offsets, each accessed in the run.
    offsets: Vec<u64>,
    /// Why they stay unmodelled.
    why: String,
}

/// A mock violation xe causes, by kind and register offset.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct KnownViolation {
    /// The mock's violation kind.
    kind: String,
    /// The register's offset, as the violation's detail names it (`+0x...`).
    offset: u64,
    /// Who is right, and why.
    why: String,
}

/// A detector report on the console that is understood.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct KnownReport {
    /// The detector's name ([`super::kernel_log::DETECTORS`]).
    detector: String,
    /// A fragment of the report's first line.
    contains: String,
    /// How many such reports the run has, exactly.
    count: usize,
    /// Why.
    why: String,
}

/// A reason's head, up to its first colon: what the range is.
fn short(why: &str) -> &str {
    why.split(':').next().unwrap_or(why).trim()
}

impl Baseline {
    fn load(repo: &Path) -> Result<Self> {
        let path = repo.join(BASELINE);
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        toml::from_str(&text).with_context(|| format!("parsing {}", path.display()))
    }

    /// The gap listing `a`, if any.
    fn gap_of(&self, a: &Access) -> Option<&Gap> {
        let by = match a.by {
            By::Host => GapBy::Host,
            By::Engine => GapBy::Engine,
            By::Guc => return None,
        };
        self.gap
            .iter()
            .find(|g| g.by == by && g.offsets.contains(&a.offset))
    }

    /// Why `a` stays unmodelled, if the baseline says.
    fn reason(&self, a: &Access) -> Option<&str> {
        match a.by {
            By::Guc => self
                .guc_actions
                .get(&format!("{:#x}", a.offset))
                .map(String::as_str),
            By::Host | By::Engine => self.gap_of(a).map(|g| g.why.as_str()),
        }
    }
}

/// Runs the suite.
pub fn run(ctx: &Context, r: &mut Reporter) {
    let base = match Baseline::load(&ctx.repo) {
        Ok(b) => b,
        Err(e) => return r.case(Case::fail("baseline".to_string(), format!("{e:#}"))),
    };
    let order = match modules::load_order(&ctx.kdir) {
        Ok(o) => o,
        Err(e) => return r.case(Case::fail("modules".to_string(), format!("{e:#}"))),
    };
    r.case(Case::pass("modules".to_string()));
    let start = Instant::now();
    let logs = ctx.log_dir(NAME);
    let (out, console, summary) = (
        logs.join("output.log"),
        logs.join(CONSOLE),
        logs.join(SUMMARY),
    );
    let mut cmd = command(ctx, &base, &order, &logs);
    let limit = Duration::from_secs(GUEST_TIMEOUT_SECS + BOOT_MARGIN_SECS);
    let mut notes = Vec::new();
    let finished = run_vm(
        NAME,
        &mut cmd,
        &out,
        &[&console, &summary],
        limit,
        &mut |n| notes.push(n),
    );
    let output = String::from_utf8_lossy(&std::fs::read(&out).unwrap_or_default()).into_owned();
    let guest = stages::parse_guest(&output);
    let parsed = std::fs::read_to_string(&summary)
        .map_err(|e| format!("no mock summary at {} ({e})", summary.display()))
        .and_then(|t| mock_summary::parse(&t).map_err(|e| format!("{e:#}")));
    let run_problem = match (&finished, &parsed) {
        (Err(e), _) => Some(format!("{e:#}")),
        (Ok(f), _) if f.code() != Some(0) => Some(super::vm_exit_meaning(f)),
        (_, Err(e)) => Some(e.clone()),
        (_, Ok(s)) if !s.is_final => Some("the mock did not exit cleanly".into()),
        _ if !guest.done => Some("the guest script did not reach its end".into()),
        _ => None,
    };
    let run_name = "run";
    r.case(match run_problem {
        None => Case::pass(run_name),
        Some(p) => Case::fail(run_name, p).with_log_tail(&console),
    });
    let Ok(s) = parsed else {
        return r.case(Case::fail("furthest stage", "no mock summary to judge"));
    };
    let trace = std::fs::read_to_string(logs.join(TRACE)).unwrap_or_default();
    let unmodelled = accesses(&s, &trace);
    let console_text =
        String::from_utf8_lossy(&std::fs::read(&console).unwrap_or_default()).into_owned();
    let run = Run {
        summary: &s,
        guest: &guest,
        unmodelled: &unmodelled,
        violations: &violations(&trace),
        reports: &kernel_log::scan(&console_text),
    };
    for c in judge(&base, &run) {
        r.case(c);
    }
    let reached = stages::furthest(&s, &guest);
    let total: u64 = unmodelled.iter().map(|a| a.count).sum();
    let by = |who: By| unmodelled.iter().filter(|a| a.by == who).count();
    r.note(&format!(
        "{NAME}: xe reached stage `{reached}` (baseline `{}`); {total} unmodelled access(es) at {} \
         distinct pair(s): {} by the host, {} by the command streamers, {} GuC action(s); logs in {}",
        base.stage,
        unmodelled.len(),
        by(By::Host),
        by(By::Engine),
        by(By::Guc),
        logs.display()
    ));
    for a in &unmodelled {
        let why = base.reason(a).map_or("UNEXPLAINED", short);
        r.note(&format!("{NAME}: unmodelled {a}: {why}"));
    }
    for v in &base.violation {
        r.note(&format!(
            "{NAME}: known violation {} at {:#x}: {}",
            v.kind,
            v.offset,
            short(&v.why)
        ));
    }
    for k in &base.kernel_log {
        r.note(&format!(
            "{NAME}: known {} `{}` ({}x): {}",
            k.detector,
            k.contains,
            k.count,
            short(&k.why)
        ));
    }
    for line in guest.log.iter().filter(|l| l.is_error()).take(12) {
        r.note(&format!("{NAME}: xe error: {line}"));
    }
    for n in notes {
        r.note(&n);
    }
    r.note(&format!("{NAME}: {:.1} s", start.elapsed().as_secs_f64()));
}

/// xe's run as the suite makes it (its baseline's mock arguments and VF
/// count), for another suite to compare with: console, summary and the
/// mock's trace into `logs` (`xe-*`).
///
/// # Errors
///
/// The baseline or the kernel tree's module list cannot be read.
pub(crate) fn xe_command(ctx: &Context, logs: &Path) -> Result<std::process::Command> {
    let base = Baseline::load(&ctx.repo)?;
    let order = modules::load_order(&ctx.kdir)?;
    Ok(xe_vm(
        ctx,
        &base,
        &order,
        [
            &logs.join("xe-console.log"),
            &logs.join("xe-mock.json"),
            &logs.join("xe-trace.jsonl"),
        ],
    ))
}

/// The mock arguments xe runs under (the baseline's), for a comparison run
/// of xehpg on the same mock.
///
/// # Errors
///
/// The baseline cannot be read.
pub(crate) fn mock_args(ctx: &Context) -> Result<Vec<String>> {
    Ok(Baseline::load(&ctx.repo)?.mock_args)
}

/// `tools/vm/run` for the suite: no xehpg, xe and its dependencies in
/// `/xe/`, the baseline's mock arguments, the guest script with the load
/// order; console, summary and trace into `logs`.
fn command(
    ctx: &Context,
    base: &Baseline,
    order: &[modules::Module],
    logs: &Path,
) -> std::process::Command {
    // The mock's trace: where xe's accesses went, for closing the gaps.
    xe_vm(
        ctx,
        base,
        order,
        [&logs.join(CONSOLE), &logs.join(SUMMARY), &logs.join(TRACE)],
    )
}

/// xe's VM run: no xehpg, xe and its dependencies in `/xe/`, the baseline's
/// mock arguments, the guest script with the load order; the console, the
/// mock's summary and its trace to the given files.
fn xe_vm(
    ctx: &Context,
    base: &Baseline,
    order: &[modules::Module],
    [console, summary, trace]: [&Path; 3],
) -> std::process::Command {
    let mut cmd = ctx.vm_command();
    cmd.args([
        "-q",
        &format!("--timeout={GUEST_TIMEOUT_SECS}"),
        "--no-module",
    ])
    .arg(format!("--console={}", console.display()))
    .arg(format!("--summary={}", summary.display()))
    .arg(format!("--trace={}", trace.display()))
    .arg(format!(
        "--guest-file={}:/tests/xe-probe.sh",
        ctx.repo.join(SCRIPT).display()
    ))
    .args(
        order
            .iter()
            .map(|m| format!("--guest-file={}:/xe/{}.ko", m.path.display(), m.name)),
    )
    .args(base.mock_args.iter().map(|a| format!("--mock-arg={a}")));
    let names: Vec<&str> = order.iter().map(|m| m.name.as_str()).collect();
    cmd.args([
        "--",
        &format!("sh /tests/xe-probe.sh {} {}", base.max_vfs, names.join(" ")),
    ]);
    cmd
}

/// Who made an access the mock does not model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum By {
    /// The host, over BAR0 (the summary's `unknown`).
    Host,
    /// A command streamer running one of xe's commands (SRM, LRI, LRR:
    /// the trace's `engine_unmodelled_reg`).
    Engine,
    /// The host, over CT: an action the mock's GuC does not serve (the
    /// summary's `ct.unknown_actions`); `offset` is the action code.
    Guc,
}

/// One distinct unmodelled access.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Access {
    by: By,
    op: String,
    offset: u64,
    count: u64,
}

impl fmt::Display for Access {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let by = match self.by {
            By::Host => "",
            By::Engine => " (command streamer)",
            By::Guc => " (GuC)",
        };
        write!(f, "{} {:#x}{by} ({}x)", self.op, self.offset, self.count)
    }
}

/// The host's unmodelled register accesses (summary), the command
/// streamers' (trace events) and the GuC actions the mock does not serve
/// (summary), each distinct (who, op, offset) once with its count.
fn accesses(s: &Summary, trace: &str) -> Vec<Access> {
    let mut out: Vec<Access> = s
        .unknown
        .iter()
        .map(|u| Access {
            by: By::Host,
            op: u.op.name().to_string(),
            offset: u.offset.0,
            count: u.count,
        })
        .collect();
    let mut engine: BTreeMap<(String, u64), u64> = BTreeMap::new();
    for v in trace
        .lines()
        .filter(|l| l.contains("\"engine_unmodelled_reg\""))
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
    {
        let op = v["op"].as_str().unwrap_or("?").to_string();
        let offset = v["offset"]
            .as_str()
            .and_then(|o| u64::from_str_radix(o.trim_start_matches("0x"), 16).ok());
        if let Some(offset) = offset {
            *engine.entry((op, offset)).or_default() += 1;
        }
    }
    out.extend(engine.into_iter().map(|((op, offset), count)| Access {
        by: By::Engine,
        op,
        offset,
        count,
    }));
    out.extend(s.ct.unknown_actions.iter().filter_map(|(code, &count)| {
        let offset = u64::from_str_radix(code.trim_start_matches("0x"), 16).ok()?;
        Some(Access {
            by: By::Guc,
            op: "action".into(),
            offset,
            count,
        })
    }));
    out
}

/// A mock violation of the run, by kind and the register offset its detail
/// names (`(+0x...)`; `None` when it names none).
type ViolationKey = (String, Option<u64>);

/// The trace's `violation` events, counted by [`ViolationKey`].
fn violations(trace: &str) -> BTreeMap<ViolationKey, u64> {
    let mut out = BTreeMap::new();
    for v in trace
        .lines()
        .filter(|l| l.contains("\"violation\""))
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["ev"] == "violation")
    {
        let kind = v["kind"].as_str().unwrap_or("?").to_string();
        let offset = v["detail"].as_str().and_then(|d| {
            let hex = d.split("(+0x").nth(1)?.split(')').next()?;
            u64::from_str_radix(hex, 16).ok()
        });
        *out.entry((kind, offset)).or_default() += 1;
    }
    out
}

/// What one run left to judge.
struct Run<'a> {
    summary: &'a Summary,
    guest: &'a stages::Guest,
    unmodelled: &'a [Access],
    violations: &'a BTreeMap<ViolationKey, u64>,
    reports: &'a [Finding],
}

/// The judged cases of a run: stage, probe result, unbind, xe's errors, the
/// kernel log, unmodelled accesses and their reasons, violations.
fn judge(base: &Baseline, run: &Run<'_>) -> Vec<Case> {
    let (s, guest) = (run.summary, run.guest);
    let reached = stages::furthest(s, guest);
    let stage = verdict(
        "furthest stage",
        (reached < base.stage).then(|| {
            format!(
                "xe reached `{reached}`, short of the baseline `{}`",
                base.stage
            )
        }),
    )
    .with_details(guest.log.iter().map(ToString::to_string));
    vec![
        stage,
        probe_result(base, guest),
        unbind(guest),
        xe_errors(base, guest),
        kernel_log_case(base, run.reports),
        unmodelled_count(base, run.unmodelled),
        gaps(base, run.unmodelled),
        violations_case(base, s, run.violations),
    ]
}

/// `insmod` succeeded, and xe is bound if the baseline's stage says so.
fn probe_result(base: &Baseline, guest: &stages::Guest) -> Case {
    let bound = guest.driver.as_deref() == Some("xe");
    let failure = match guest.insmod {
        Some(0) if bound || base.stage < Stage::ProbeComplete => None,
        Some(0) => Some(format!(
            "xe is not bound (driver {:?}) though the baseline's stage `{}` says it probes",
            guest.driver.as_deref().unwrap_or("unknown"),
            base.stage
        )),
        Some(rc) => Some(format!("insmod xe.ko returned {rc}")),
        None => Some("the guest reported no insmod status".to_string()),
    };
    verdict("probe result", failure)
}

/// A bound xe unbinds.
fn unbind(guest: &stages::Guest) -> Case {
    let bound = guest.driver.as_deref() == Some("xe");
    let failure = match guest.unbind.as_deref() {
        Some("ok") => None,
        None if !bound => None,
        None => Some("xe was bound but the guest reported no unbind".to_string()),
        Some(other) => Some(format!("unbinding xe: {other}")),
    };
    verdict("unbind", failure)
}

/// Every error line of xe's is explained, and every explanation is used.
fn xe_errors(base: &Baseline, guest: &stages::Guest) -> Case {
    let errors: Vec<&stages::LogLine> = guest.log.iter().filter(|l| l.is_error()).collect();
    let unexplained: Vec<String> = errors
        .iter()
        .filter(|l| !base.xe_errors.keys().any(|k| l.text.contains(k.as_str())))
        .map(ToString::to_string)
        .collect();
    let stale: Vec<&str> = base
        .xe_errors
        .keys()
        .filter(|k| !errors.iter().any(|l| l.text.contains(k.as_str())))
        .map(String::as_str)
        .collect();
    let failure = if !unexplained.is_empty() {
        Some(format!(
            "{} error line(s) of xe's that [xe_errors] in {BASELINE} does not explain",
            unexplained.len()
        ))
    } else if !stale.is_empty() {
        Some(format!(
            "[xe_errors] entries no line of this run matches (remove them): {}",
            stale.join(", ")
        ))
    } else {
        None
    };
    verdict("xe errors explained", failure).with_details(unexplained)
}

/// Every detector report on the console is a known one, in its exact count.
fn kernel_log_case(base: &Baseline, reports: &[Finding]) -> Case {
    let known = |f: &Finding, k: &KnownReport| {
        f.detector == k.detector && f.lines.first().is_some_and(|l| l.contains(&k.contains))
    };
    let mut problems = Vec::new();
    let mut details = Vec::new();
    for f in reports
        .iter()
        .filter(|f| !base.kernel_log.iter().any(|k| known(f, k)))
    {
        problems.push(format!("{} at console line {}", f.detector, f.line));
        details.extend(f.lines.iter().cloned());
    }
    for k in &base.kernel_log {
        let n = reports.iter().filter(|f| known(f, k)).count();
        if n != k.count {
            problems.push(format!(
                "{} `{}`: {n} report(s), the baseline says {}",
                k.detector, k.contains, k.count
            ));
        }
    }
    let failure = (!problems.is_empty()).then(|| problems.join("; "));
    verdict("kernel log", failure).with_details(details)
}

/// Exactly the baseline's number of distinct unmodelled accesses.
fn unmodelled_count(base: &Baseline, unmodelled: &[Access]) -> Case {
    let list = unmodelled.iter().map(|a| {
        let why = base.reason(a).unwrap_or("UNEXPLAINED");
        format!("{a}: {why}")
    });
    verdict(
        "unmodelled accesses",
        (unmodelled.len() != base.unknown).then(|| {
            format!(
                "{} distinct unmodelled accesses; the baseline says exactly {}",
                unmodelled.len(),
                base.unknown
            )
        }),
    )
    .with_details(list)
}

/// Each unmodelled access is listed by who and offset, and each listed
/// offset was accessed.
fn gaps(base: &Baseline, unmodelled: &[Access]) -> Case {
    let unexplained: Vec<String> = unmodelled
        .iter()
        .filter(|a| base.reason(a).is_none())
        .map(ToString::to_string)
        .collect();
    let stale: Vec<String> = base
        .gap
        .iter()
        .flat_map(|g| g.offsets.iter().map(move |&o| (g, o)))
        .filter(|&(g, o)| {
            !unmodelled.iter().any(|a| {
                a.offset == o
                    && matches!(
                        (a.by, g.by),
                        (By::Host, GapBy::Host) | (By::Engine, GapBy::Engine)
                    )
            })
        })
        .map(|(g, o)| format!("{o:#x} ({})", short(&g.why)))
        .collect();
    let stale_actions: Vec<&str> = base
        .guc_actions
        .keys()
        .filter(|code| {
            !unmodelled
                .iter()
                .any(|a| a.by == By::Guc && format!("{:#x}", a.offset) == **code)
        })
        .map(String::as_str)
        .collect();
    let failure = if !unexplained.is_empty() {
        Some(format!(
            "{} unmodelled access(es) in no [[gap]] of {BASELINE}: {}",
            unexplained.len(),
            unexplained.join(", ")
        ))
    } else if !stale.is_empty() || !stale_actions.is_empty() {
        Some(format!(
            "baseline entries this run no longer makes (remove them): {}",
            stale
                .iter()
                .map(String::as_str)
                .chain(stale_actions)
                .collect::<Vec<_>>()
                .join(", ")
        ))
    } else {
        None
    };
    verdict("gaps explained", failure)
}

/// Each violation is a known one by kind and offset; each known one occurs;
/// the trace holds every violation the summary counts.
fn violations_case(base: &Baseline, s: &Summary, seen: &BTreeMap<ViolationKey, u64>) -> Case {
    let known = |(kind, offset): &ViolationKey| {
        base.violation
            .iter()
            .any(|v| &v.kind == kind && Some(v.offset) == *offset)
    };
    let unknown: Vec<String> = seen
        .iter()
        .filter(|(k, _)| !known(k))
        .map(|((kind, offset), n)| match offset {
            Some(o) => format!("{kind} at {o:#x} ({n}x)"),
            None => format!("{kind}, no register named ({n}x)"),
        })
        .collect();
    let stale: Vec<String> = base
        .violation
        .iter()
        .filter(|v| !seen.contains_key(&(v.kind.clone(), Some(v.offset))))
        .map(|v| format!("{} at {:#x}", v.kind, v.offset))
        .collect();
    let traced: u64 = seen.values().sum();
    let failure = if !unknown.is_empty() {
        Some(format!(
            "mock violations {BASELINE} does not explain: {}",
            unknown.join(", ")
        ))
    } else if traced != s.violations {
        Some(format!(
            "the summary counts {} violation(s), the trace holds {traced}",
            s.violations
        ))
    } else if !stale.is_empty() {
        Some(format!(
            "[[violation]] entries that no longer occur (remove them): {}",
            stale.join(", ")
        ))
    } else {
        None
    };
    verdict("violations explained", failure)
}

/// A case that passes unless there is a `failure`.
fn verdict(name: &str, failure: Option<String>) -> Case {
    match failure {
        None => Case::pass(name),
        Some(why) => Case::fail(name, why),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Status;
    use xehpg_mock::summary::UnknownEntry;

    fn baseline(text: &str) -> Baseline {
        toml::from_str(text).unwrap()
    }

    const BASE: &str = r#"
stage = "ct-enabled"
unknown = 2
max_vfs = 0
mock_args = []
[[gap]]
by = "host"
offsets = [0x1004, 0x1800]
why = "display: absent on ATS-M"
"#;

    /// [`BASE`] with one known violation, the one [`VIOLATION`] traces.
    const VBASE: &str = r#"
[[violation]]
kind = "read_only_write"
offset = 0x1901f8
why = "xe writes it; the PRM says RO"
"#;

    fn vbase(text: &str) -> Baseline {
        baseline(&format!("{text}{VBASE}"))
    }

    fn summary(unknown: &[u64]) -> Summary {
        let mut s = Summary {
            mmio_reads: 1,
            guc_loads: 1,
            ..Default::default()
        };
        s.ct.enables = 1;
        s.unknown = unknown
            .iter()
            .map(|&o| {
                serde_json::from_value::<UnknownEntry>(serde_json::json!({
                    "op": "read", "offset": format!("{o:#x}"), "count": 1
                }))
                .unwrap()
            })
            .collect();
        s
    }

    /// A guest that loaded xe, which then did not bind (the stage above
    /// does not ask for it).
    fn guest() -> stages::Guest {
        stages::parse_guest("xe-probe: insmod=0\nxe-probe: driver=none\nxe-probe: done\n")
    }

    const VIOLATION: &str = r#"{"seq":1,"ev":"violation","kind":"read_only_write","detail":"VF_CAP_REG (+0x1901f8) is read-only; write of 0x0 ignored"}"#;

    /// Judges a run: summary `s`, the accesses it and `trace` hold, guest
    /// `g`, console `console`. Returns the failing cases' names.
    fn failing(
        base: &Baseline,
        s: &Summary,
        trace: &str,
        g: &stages::Guest,
        console: &str,
    ) -> Vec<String> {
        let run = Run {
            summary: s,
            guest: g,
            unmodelled: &accesses(s, trace),
            violations: &violations(trace),
            reports: &kernel_log::scan(console),
        };
        judge(base, &run)
            .into_iter()
            .filter(|c| c.status != Status::Pass)
            .map(|c| c.name)
            .collect()
    }

    fn quick(base: &Baseline, s: &Summary, trace: &str) -> Vec<String> {
        failing(base, s, trace, &guest(), "")
    }

    #[test]
    fn at_baseline_everything_passes() {
        let mut s = summary(&[0x1004, 0x1800]);
        s.violations = 1;
        assert!(quick(&vbase(BASE), &s, VIOLATION).is_empty());
        assert!(quick(&baseline(BASE), &summary(&[0x1004, 0x1800]), "").is_empty());
        // Eight cases, all judged.
        let run = Run {
            summary: &s,
            guest: &guest(),
            unmodelled: &accesses(&s, ""),
            violations: &violations(VIOLATION),
            reports: &[],
        };
        assert_eq!(judge(&vbase(BASE), &run).len(), 8);
    }

    const CS_READ: &str = r#"{"seq":9,"ev":"engine_unmodelled_reg","engine":"rcs0","command":"MI_STORE_REGISTER_MEM","op":"read","offset":"0x1a00","value":"0x0"}"#;

    #[test]
    fn accesses_match_by_who_and_offset() {
        let s = summary(&[0x1004]);
        // The same engine access twice is one distinct pair, counted twice.
        let trace = format!("{CS_READ}\n{{\"ev\":\"mmio_read\"}}\n{CS_READ}\n");
        let list = accesses(&s, &trace);
        assert_eq!(list.len(), 2);
        assert_eq!(
            (list[1].by, list[1].offset, list[1].count),
            (By::Engine, 0x1a00, 2)
        );
        // 0x1a00 is listed nowhere, and 0x1800 was not accessed.
        assert_eq!(quick(&baseline(BASE), &s, &trace), ["gaps explained"]);
        // Listed for the engines, it is explained; 0x1800 is still stale.
        let engine = baseline(&format!(
            "{BASE}[[gap]]\nby = \"engine\"\noffsets = [0x1a00]\nwhy = \"cs\"\n"
        ));
        assert_eq!(quick(&engine, &s, &trace), ["gaps explained"]);
        let s2 = summary(&[0x1004, 0x1800]);
        let three = baseline(
            &format!("{BASE}[[gap]]\nby = \"engine\"\noffsets = [0x1a00]\nwhy = \"cs\"\n")
                .replace("unknown = 2", "unknown = 3"),
        );
        assert!(quick(&three, &s2, &trace).is_empty());
        // The host touching an offset listed only for the engines is not
        // explained by it, and the engine entry is then stale.
        let host = summary(&[0x1004, 0x1800, 0x1a00]);
        assert_eq!(quick(&three, &host, ""), ["gaps explained"]);
    }

    #[test]
    fn the_count_is_exact() {
        // One fewer than the baseline says fails, as one more does.
        let fewer = baseline(&BASE.replace("offsets = [0x1004, 0x1800]", "offsets = [0x1004]"));
        assert_eq!(
            quick(&fewer, &summary(&[0x1004]), ""),
            ["unmodelled accesses"]
        );
        let cases = quick(&baseline(BASE), &summary(&[0x1004, 0x1800, 0x9000]), "");
        assert_eq!(cases, ["unmodelled accesses", "gaps explained"]);
    }

    #[test]
    fn unserved_guc_actions_count_and_need_a_reason() {
        let mut s = summary(&[0x1004]);
        s.ct.unknown_actions.insert("0x3004".into(), 2);
        let list = accesses(&s, "");
        assert_eq!(
            (list[1].by, list[1].offset, list[1].count),
            (By::Guc, 0x3004, 2)
        );
        let one_gap = BASE.replace("offsets = [0x1004, 0x1800]", "offsets = [0x1004]");
        assert_eq!(quick(&baseline(&one_gap), &s, ""), ["gaps explained"]);
        let explained = baseline(&format!(
            "{one_gap}[guc_actions]\n\"0x3004\" = \"GuC RC\"\n"
        ));
        assert!(quick(&explained, &s, "").is_empty());
        // A gap offset does not explain an action of the same number.
        s.ct.unknown_actions = [("0x1004".to_string(), 1)].into();
        assert_eq!(quick(&explained, &s, ""), ["gaps explained"]);
    }

    #[test]
    fn violations_match_by_kind_and_offset() {
        let base = vbase(BASE);
        let mut s = summary(&[0x1004, 0x1800]);
        // Another register, same kind: not explained.
        let other = VIOLATION.replace("0x1901f8", "0x2000");
        s.violations = 1;
        assert_eq!(quick(&base, &s, &other), ["violations explained"]);
        // The known one did not occur: stale.
        s.violations = 0;
        assert_eq!(quick(&base, &s, ""), ["violations explained"]);
        // The summary counts more than the trace holds.
        s.violations = 2;
        assert_eq!(quick(&base, &s, VIOLATION), ["violations explained"]);
        assert_eq!(
            violations(VIOLATION).into_iter().collect::<Vec<_>>(),
            [(("read_only_write".to_string(), Some(0x1901f8)), 1)]
        );
    }

    #[test]
    fn probe_result_unbind_and_errors_are_judged() {
        let mut s = summary(&[0x1004, 0x1800]);
        s.violations = 1;
        let probe = vbase(&BASE.replace("ct-enabled", "probe-complete"));
        let bound = |extra: &str| {
            stages::parse_guest(&format!(
                "xe-probe: insmod=0\nxe-probe: driver=xe\n{extra}xe-probe: done\n"
            ))
        };
        // The stage falls short (no contexts) and so does the probe result.
        let unbound = guest();
        let f = failing(&probe, &s, VIOLATION, &unbound, "");
        assert_eq!(f, ["furthest stage", "probe result"]);
        // Bound without an unbind report, or a failed unbind.
        let base = vbase(BASE);
        let f = failing(&base, &s, VIOLATION, &bound(""), "");
        assert_eq!(f, ["unbind"]);
        let f = failing(
            &base,
            &s,
            VIOLATION,
            &bound("xe-probe: unbind=failed\n"),
            "",
        );
        assert_eq!(f, ["unbind"]);
        // insmod failing.
        let g = stages::parse_guest("xe-probe: insmod=1\nxe-probe: driver=none\n");
        assert!(failing(&base, &s, VIOLATION, &g, "").contains(&"probe result".to_string()));
        // An error line needs an explanation, which must then match.
        let err =
            bound("xe-probe: unbind=ok\nxe-probe: log=3 xe 0000:00:01.0: [drm] *ERROR* GT0: x\n");
        let f = failing(&base, &s, VIOLATION, &err, "");
        assert_eq!(f, ["xe errors explained"]);
        let known = vbase(&format!("{BASE}[xe_errors]\n\"GT0: x\" = \"why\"\n"));
        assert!(failing(&known, &s, VIOLATION, &err, "").is_empty());
        let clean = bound("xe-probe: unbind=ok\n");
        let f = failing(&known, &s, VIOLATION, &clean, "");
        assert_eq!(f, ["xe errors explained"]);
    }

    #[test]
    fn kernel_log_reports_are_known_by_name_and_count() {
        let mut s = summary(&[0x1004, 0x1800]);
        s.violations = 1;
        let warn = "[ 1.0] WARNING: CPU: 0 PID: 1 at drivers/gpu/drm/xe/xe_pm.c:10 xe_pm_runtime_get_noresume+0x1\n[ 1.0] Call Trace:\n";
        let f = failing(&vbase(BASE), &s, VIOLATION, &guest(), warn);
        assert_eq!(f, ["kernel log"]);
        let known = |n: usize| {
            vbase(&format!(
                "{BASE}[[kernel_log]]\ndetector = \"WARN\"\ncontains = \"xe_pm.c\"\ncount = {n}\nwhy = \"xe's\"\n"
            ))
        };
        assert!(failing(&known(1), &s, VIOLATION, &guest(), warn).is_empty());
        let twice = format!("{warn}{warn}");
        let f = failing(&known(1), &s, VIOLATION, &guest(), &twice);
        assert_eq!(f, ["kernel log"]);
        // A KASAN report is not excused by a WARN entry.
        let kasan = "[ 1.0] BUG: KASAN: slab-use-after-free in xe_pm.c\n";
        let f = failing(&known(0), &s, VIOLATION, &guest(), kasan);
        assert_eq!(f, ["kernel log"]);
    }

    #[test]
    fn the_checked_in_baseline_parses() {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let b = Baseline::load(&repo).unwrap();
        assert!(b
            .gap
            .iter()
            .all(|g| !g.offsets.is_empty() && !g.why.is_empty()));
        assert!(b.violation.iter().all(|v| !v.why.is_empty()));
        assert!(b
            .kernel_log
            .iter()
            .all(|k| !k.why.is_empty() && k.count > 0));
        let listed: usize = b.gap.iter().map(|g| g.offsets.len()).sum();
        assert!(listed <= b.unknown, "more offsets listed than accesses");
    }
}
