//! Suite `xe-probe`: upstream's C `xe` driver, which nobody here wrote,
//! probes the mock ATS-M on the plain kernel (built with
//! `tools/kernel-xe.config`). Where xe stops, or touches a register the mock
//! does not model, the mock is not yet the hardware xe was written for.
//!
//! The guest (`tools/guest/xe-probe.sh`) loads xe's dependencies and xe
//! with `force_probe`; the host judges the mock's summary and the guest's
//! report against the baseline `tools/check/xe-probe.toml`:
//!
//! - `modules`: xe and its dependencies were built;
//! - `run`: the guest script ran to its end, the mock exited
//!   cleanly;
//! - `furthest stage`: xe got at least as far as the baseline's
//!   `stage` ([`stages`]);
//! - `unmodelled accesses`: at most `unknown_max` distinct accesses to
//!   registers the mock does not model: the host's over BAR0 (the summary's
//!   `unknown`) and those of xe's commands on the engines (SRM, LRI, LRR:
//!   the trace's `engine_unmodelled_reg`); all of them are listed;
//! - `gaps explained`: each of them lies in a `[[gap]]` range of
//!   the baseline, which says why it stays unmodelled;
//! - `violations explained`: each mock violation kind is one the
//!   baseline explains (xe and the mock disagree, and the baseline says who
//!   is right, Documentation/xe-probe.rst).
//!
//! xe's own WARNs and errors are reported, not judged: they are xe's.

mod modules;
mod stages;

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
    /// At most this many distinct unmodelled (op, offset) pairs.
    unknown_max: usize,
    /// xe's `max_vfs`: as PF it enables SR-IOV when above 0.
    max_vfs: u32,
    /// Mock arguments for the run, and why (in the file's comments).
    mock_args: Vec<String>,
    /// Register ranges the mock leaves unmodelled on purpose.
    #[serde(default)]
    gap: Vec<Gap>,
    /// Violation kinds xe causes, each with the finding behind it.
    #[serde(default)]
    violations: BTreeMap<String, String>,
    /// GuC actions xe sends that the mock's GuC does not serve, by code
    /// (`"0x7000"`), each with the reason.
    #[serde(default)]
    guc_actions: BTreeMap<String, String>,
}

/// A range of BAR0 offsets the mock does not model, and why.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Gap {
    /// First offset.
    from: u64,
    /// Last offset (inclusive).
    to: u64,
    /// Why it stays unmodelled.
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

    /// Why `a` stays unmodelled, if the baseline says.
    fn reason(&self, a: &Access) -> Option<&str> {
        match a.by {
            By::Guc => self
                .guc_actions
                .get(&format!("{:#x}", a.offset))
                .map(String::as_str),
            By::Host | By::Engine => self
                .gap
                .iter()
                .find(|g| (g.from..=g.to).contains(&a.offset))
                .map(|g| g.why.as_str()),
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
    for c in judge(&base, &s, &guest, &unmodelled) {
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
    // xe's verdicts, not its chatter: errors, its probe result, a wedge.
    let verdicts = guest
        .log
        .iter()
        .filter(|l| l.contains("ERROR") || l.contains("probe") || l.contains("wedged"));
    for line in verdicts.take(12) {
        r.note(&format!("{NAME}: xe said: {line}"));
    }
    for n in notes {
        r.note(&n);
    }
    r.note(&format!("{NAME}: {:.1} s", start.elapsed().as_secs_f64()));
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
    let mut cmd = ctx.vm_command();
    cmd.args([
        "-q",
        &format!("--timeout={GUEST_TIMEOUT_SECS}"),
        "--no-module",
    ])
    .arg(format!("--console={}", logs.join(CONSOLE).display()))
    .arg(format!("--summary={}", logs.join(SUMMARY).display()))
    // The mock's trace: where xe's accesses went, for closing the gaps.
    .arg(format!("--trace={}", logs.join(TRACE).display()))
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

/// The judged cases of a run: stage, unmodelled accesses, their reasons,
/// violations.
fn judge(base: &Baseline, s: &Summary, guest: &stages::Guest, unmodelled: &[Access]) -> Vec<Case> {
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
    .with_details(guest.log.iter().cloned());
    let list = unmodelled.iter().map(|a| {
        let why = base.reason(a).unwrap_or("UNEXPLAINED");
        format!("{a}: {why}")
    });
    let count = verdict(
        "unmodelled accesses",
        (unmodelled.len() > base.unknown_max).then(|| {
            format!(
                "{} distinct unmodelled accesses, more than the baseline's {}",
                unmodelled.len(),
                base.unknown_max
            )
        }),
    )
    .with_details(list);
    let unexplained: Vec<String> = unmodelled
        .iter()
        .filter(|a| base.reason(a).is_none())
        .map(ToString::to_string)
        .collect();
    let gaps = verdict(
        "gaps explained",
        (!unexplained.is_empty()).then(|| {
            format!(
                "{} unmodelled access(es) in no [[gap]] of {BASELINE}: {}",
                unexplained.len(),
                unexplained.join(", ")
            )
        }),
    );
    let bad: Vec<String> = s
        .violation_kinds
        .iter()
        .filter(|(k, n)| **n > 0 && !base.violations.contains_key(*k))
        .map(|(k, n)| format!("{k} ({n}x)"))
        .collect();
    let viol = verdict(
        "violations explained",
        (!bad.is_empty()).then(|| {
            format!(
                "mock violations {BASELINE} does not explain: {}",
                bad.join(", ")
            )
        }),
    );
    vec![stage, count, gaps, viol]
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
unknown_max = 2
max_vfs = 0
mock_args = []
[[gap]]
from = 0x1000
to = 0x1fff
why = "display, absent on ATS-M"
[violations]
read_only_write = "xe writes it; the PRM says RO"
"#;

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

    fn statuses(cases: &[Case]) -> Vec<bool> {
        cases.iter().map(|c| c.status == Status::Pass).collect()
    }

    /// Judges `s` with the accesses it and `trace` hold.
    fn run_judge(base: &Baseline, s: &Summary, trace: &str) -> Vec<Case> {
        judge(base, s, &Default::default(), &accesses(s, trace))
    }

    const CS_READ: &str = r#"{"seq":9,"ev":"engine_unmodelled_reg","engine":"rcs0","command":"MI_STORE_REGISTER_MEM","op":"read","offset":"0x1a00","value":"0x0"}"#;

    #[test]
    fn at_baseline_everything_passes() {
        let cases = run_judge(&baseline(BASE), &summary(&[0x1004, 0x1800]), "");
        assert_eq!(statuses(&cases), [true, true, true, true]);
    }

    #[test]
    fn command_streamer_accesses_count_and_need_a_reason() {
        let s = summary(&[0x1004]);
        // The same engine access twice is one distinct pair, counted twice.
        let trace = format!("{CS_READ}\n{{\"ev\":\"mmio_read\"}}\n{CS_READ}\n");
        let list = accesses(&s, &trace);
        assert_eq!(list.len(), 2);
        assert_eq!(
            (list[1].by, list[1].offset, list[1].count),
            (By::Engine, 0x1a00, 2)
        );
        assert_eq!(statuses(&run_judge(&baseline(BASE), &s, &trace)), [true; 4]);
        // Outside every gap, and one more than the baseline allows.
        let far = CS_READ.replace("0x1a00", "0x9a00");
        let cases = run_judge(&baseline(BASE), &summary(&[0x1004, 0x1800]), &far);
        assert_eq!(statuses(&cases), [true, false, false, true]);
        assert!(cases[2].status != Status::Pass);
    }

    #[test]
    fn unserved_guc_actions_count_and_need_a_reason() {
        let mut s = summary(&[]);
        s.ct.unknown_actions.insert("0x3004".into(), 2);
        let list = accesses(&s, "");
        assert_eq!(
            (list[0].by, list[0].offset, list[0].count),
            (By::Guc, 0x3004, 2)
        );
        let base = baseline(BASE);
        assert_eq!(
            statuses(&run_judge(&base, &s, "")),
            [true, true, false, true]
        );
        let explained = baseline(&format!("{BASE}[guc_actions]\n\"0x3004\" = \"GuC RC\"\n"));
        assert_eq!(statuses(&run_judge(&explained, &s, "")), [true; 4]);
        // An address range does not explain an action of the same number.
        s.ct.unknown_actions = [("0x1004".to_string(), 1)].into();
        assert!(!statuses(&run_judge(&explained, &s, ""))[2]);
    }

    #[test]
    fn regressions_fail() {
        let base = baseline(BASE);
        // Short of the stage: no CT enable.
        let mut s = summary(&[]);
        s.ct.enables = 0;
        assert!(!statuses(&run_judge(&base, &s, ""))[0]);
        // More unmodelled accesses than the baseline, one outside any gap.
        let s = summary(&[0x1004, 0x1800, 0x9000]);
        let cases = run_judge(&base, &s, "");
        assert_eq!(statuses(&cases), [true, false, false, true]);
        assert!(cases[1]
            .details
            .iter()
            .any(|d| d.contains("0x9000") && d.contains("UNEXPLAINED")));
        // A violation kind the baseline does not explain.
        let mut s = summary(&[]);
        s.violation_kinds.insert("forcewake_not_held".into(), 2);
        s.violation_kinds.insert("read_only_write".into(), 7);
        assert!(!statuses(&run_judge(&base, &s, ""))[3]);
    }

    #[test]
    fn the_checked_in_baseline_parses() {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let b = Baseline::load(&repo).unwrap();
        assert!(b.gap.iter().all(|g| g.from <= g.to && !g.why.is_empty()));
    }
}
