//! Suite `xe-vf`: upstream's C `xe`, which nobody here wrote, as the VF
//! driver of a VF that xehpg provisioned (issue 28, Documentation/sriov.rst
//! "A VF in a second VM").
//!
//! One run, two VMs. The host VM boots with xehpg and the test shim; its
//! script (`tools/guest/xe-vf-host.sh`) enables two VFs, then asks the
//! runner for its peer (`--peer guest=...`): a second VM whose only GPU is
//! VF1, served by the same mock process on its own socket (`--vf-socket`),
//! attached with `--attach`. There `tools/guest/xe-vf-guest.sh` loads xe,
//! which finds `VF_CAP` set and probes as a VF driver. When the second VM
//! is gone, the host script disables the VFs and unbinds xehpg.
//!
//! Each stage is judged from the mock's record (`vf_guest.1` in its
//! summary, the GuC's VF configuration, the LMTT and FLR counters), never
//! from either driver's report of itself:
//!
//! - `attached`: the VM's PCI core read the VF's config space and xe read
//!   its BAR0;
//! - `handshake`: `VF2GUC_MATCH_VERSION` answered, with the version of the
//!   GuC image the PF loaded (the trace's `guc_loaded`);
//! - `config`: every `VF2GUC_QUERY_SINGLE_KLV` upstream's VF needs answered
//!   with what xehpg pushed for VF1 (`sriov.vfs.1`);
//! - `hwconfig`: `GET_HWCONFIG` served twice (size, then the copy into the
//!   VF's memory through its GGTT entries);
//! - `ct-enabled`: the VF's CT registered (`HOST2GUC_CONTROL_CTB`);
//! - `relay`: the GuC delivered two relay answers of the PF's (xehpg's
//!   handshake and runtime answers, `GUC2VF_RELAY_FROM_PF`) over the VF's
//!   CT, which xe asks for right after enabling it;
//! - `submission`: xe set the scheduling policies, the last step of
//!   `xe_guc_submit_enable`, which it takes only with the relay done;
//! - `context-sent`: xe sent a `REGISTER_CONTEXT` (recording its default
//!   contexts, `xe_gt_record_default_lrcs`);
//! - `context-ran`: the GuC loaded one of VF1's contexts onto an engine (a
//!   job of xe's, within the contexts xehpg gave VF1: the mock's GuC takes
//!   only those, `regfile/guc/ct/submit.rs` "A VF's contexts") and the
//!   engine reported its interrupt through VF1's memory;
//! - `probe-complete`: xe stayed bound (the guest's `driver=xe`) and every
//!   engine class the part has ran a context of VF1's (xe's probe records a
//!   default context per class by running a job on it).
//!
//! The baseline (`tools/check/xe-vf.toml`) names the stage xe must reach at
//! least, and explains each GuC action the mock's GuC refused a VF, each
//! xe error line and each unmodelled VF register. Beside the stages: the
//! PF's side must hold (every VF FLR the GuC reported finished by the PF:
//! QEMU's reset of the function at the second VM's start, and the guest's
//! own reset of it after xe, `echo 1 > reset`; no isolation
//! finding, no violation; VFs disabled and xehpg unbound at the end), and
//! both consoles must be free of detector reports. Both lanes: in the debug
//! lane (`xe-vf-debug`) the host VM boots the debug kernel with the debug
//! build of xehpg; the second VM stays on the plain kernel.

use super::kernel_log;
use super::vm::mock_summary;
use super::vm::retry::run_vm;
use super::xe_probe::modules;
use super::xe_probe::stages::{parse_prefixed, Guest};
use super::Context;
use crate::report::{Case, Reporter};
use anyhow::{Context as _, Result};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;
use std::time::{Duration, Instant};
use xehpg_mock::summary::sriov::VfEntry;
use xehpg_mock::summary::vf_guest::VfGuest;
use xehpg_mock::summary::Summary;

/// Suite names: the plain lane's and the debug lane's (xehpg on the debug
/// kernel, so lockdep, KASAN and kmemleak watch the PF's side; the second
/// VM stays on the plain kernel, whose tree has xe).
const NAME: &str = "xe-vf";
const NAME_DEBUG: &str = "xe-vf-debug";
/// The baseline, relative to the repository.
const BASELINE: &str = "tools/check/xe-vf.toml";
/// The scripts, relative to the repository.
const HOST_SCRIPT: &str = "tools/guest/xe-vf-host.sh";
const GUEST_SCRIPT: &str = "tools/guest/xe-vf-guest.sh";
/// The host's guest-command timeout: its setup, the second VM, teardown.
const HOST_TIMEOUT_SECS: u64 = 600;
/// The second VM's guest-command timeout (xe's probe, its timeouts).
const GUEST_TIMEOUT_SECS: u64 = 300;
/// On top of the host's timeout: boot and teardown.
const BOOT_MARGIN_SECS: u64 = 120;
/// The VF the second VM gets.
const VF: u32 = 1;

/// How far xe got as a VF driver, by the mock's record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum Stage {
    None,
    Attached,
    Handshake,
    Config,
    Hwconfig,
    CtEnabled,
    Relay,
    Submission,
    ContextSent,
    ContextRan,
    ProbeComplete,
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Stage::None => "none",
            Stage::Attached => "attached",
            Stage::Handshake => "handshake",
            Stage::Config => "config",
            Stage::Hwconfig => "hwconfig",
            Stage::CtEnabled => "ct-enabled",
            Stage::Relay => "relay",
            Stage::Submission => "submission",
            Stage::ContextSent => "context-sent",
            Stage::ContextRan => "context-ran",
            Stage::ProbeComplete => "probe-complete",
        })
    }
}

/// What the VF driver must reach, and what is understood.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Baseline {
    /// The stage xe must reach at least.
    stage: Stage,
    /// GuC actions the mock's GuC refused the VF, by `0xACTION`, and why.
    #[serde(default)]
    guc_actions: BTreeMap<String, String>,
    /// xe error lines understood: a fragment of the line, and why.
    #[serde(default)]
    xe_errors: BTreeMap<String, String>,
    /// VF BAR0 accesses the mock does not model, `read@0x...`, and why.
    #[serde(default)]
    unknown: BTreeMap<String, String>,
    /// Detector reports in the second VM's console that are understood: a
    /// fragment of the report's lines, and why. The host VM's console has
    /// none.
    #[serde(default)]
    guest_kernel_log: BTreeMap<String, String>,
}

impl Baseline {
    fn load(repo: &Path) -> Result<Self> {
        let path = repo.join(BASELINE);
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        toml::from_str(&text).with_context(|| format!("parsing {}", path.display()))
    }
}

/// Quotes `word` for `sh -c`.
fn sh_quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', "'\\''"))
}

/// The second VM's command: attached to VF1's socket, xe and its
/// dependencies in `/xe/`, the guest script; its console and output into
/// `logs`.
fn guest_command(ctx: &Context, order: &[modules::Module], socket: &Path, logs: &Path) -> String {
    let mut words = vec![
        ctx.repo.join("tools/vm/run").display().to_string(),
        format!("--attach={}", socket.display()),
        "-q".into(),
        format!("--timeout={GUEST_TIMEOUT_SECS}"),
        "--no-module".into(),
        format!("--console={}", logs.join("guest-console.log").display()),
        format!("--output={}", logs.join("guest-output.log").display()),
        format!(
            "--guest-file={}:/tests/xe-vf-guest.sh",
            ctx.repo.join(GUEST_SCRIPT).display()
        ),
    ];
    words.extend(
        order
            .iter()
            .map(|m| format!("--guest-file={}:/xe/{}.ko", m.path.display(), m.name)),
    );
    words.push("--".into());
    let names: Vec<&str> = order.iter().map(|m| m.name.as_str()).collect();
    words.push(format!("sh /tests/xe-vf-guest.sh {}", names.join(" ")));
    words
        .iter()
        .map(|w| sh_quote(w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The host VM's `tools/vm/run`: xehpg, the shim, the mock serving VF1 on
/// `socket`, the peer.
fn host_command(ctx: &Context, guest: &str, socket: &Path, logs: &Path) -> std::process::Command {
    let mut cmd = ctx.vm_command();
    cmd.args(["-q", &format!("--timeout={HOST_TIMEOUT_SECS}")])
        .arg(format!("--console={}", logs.join("console.log").display()))
        .arg(format!("--summary={}", logs.join("mock.json").display()))
        .arg(format!("--trace={}", logs.join("trace.jsonl").display()))
        .arg(format!("--module={}", ctx.module("module").display()))
        .arg(format!(
            "--guest-file={}:/tests/lib.sh",
            ctx.repo.join("tools/guest/lib.sh").display()
        ))
        .arg(format!(
            "--guest-file={}:/tests/xe-vf-host.sh",
            ctx.repo.join(HOST_SCRIPT).display()
        ))
        .arg(format!(
            "--guest-file={}:/lib/modules/{}",
            ctx.guest_module("sriov-shim").display(),
            super::guest_module_file("sriov-shim")
        ))
        .arg(format!("--mock-arg=--vf-socket={VF}:{}", socket.display()))
        .arg(format!("--peer=guest={guest}"))
        .arg(format!("--peer-log={}", logs.display()))
        .arg(format!(
            "--peer-timeout={}",
            GUEST_TIMEOUT_SECS + BOOT_MARGIN_SECS
        ))
        .args(["--", "sh /tests/xe-vf-host.sh"]);
    cmd
}

/// The host script's `xe-vf-host: KEY=VALUE` facts.
fn host_facts(output: &str) -> BTreeMap<String, String> {
    output
        .lines()
        .filter_map(|l| l.trim().strip_prefix("xe-vf-host: "))
        .map(|f| f.split_once('=').unwrap_or((f, "")))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// The submission version of the last GuC image the trace saw loaded.
fn loaded_submission(trace: &str) -> Option<String> {
    trace
        .lines()
        .rev()
        .filter(|l| l.contains("\"ev\":\"guc_loaded\""))
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find_map(|v| v["submission"].as_str().map(str::to_string))
}

fn requests(g: &VfGuest, action: u32, result: &str) -> u64 {
    g.guc_requests
        .get(&format!("{action:#x}:{result}"))
        .copied()
        .unwrap_or(0)
}

/// The last configuration xehpg pushed for VF1 that the GuC applied and
/// that gave it something (the trace's `sriov_vf_cfg`; the summary's
/// `sriov.vfs` is empty again once the VFs are disabled).
fn pushed_config(trace: &str) -> Option<VfEntry> {
    trace
        .lines()
        .rev()
        .filter(|l| l.contains("\"ev\":\"sriov_vf_cfg\""))
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["vfid"] == VF && v["result"] == "applied")
        .filter_map(|v| serde_json::from_value::<VfEntry>(v["cfg"].clone()).ok())
        .find(|c| !c.is_empty())
}

/// The KLVs upstream's VF driver asks for (`xe_gt_sriov_vf.c`
/// `xe_gt_sriov_vf_query_config`) and what xehpg pushed for them.
fn expected_klvs(trace: &str) -> Option<[(u32, u64); 5]> {
    let c = pushed_config(trace)?;
    Some([
        (0x1, c.ggtt_start.0),
        (0x2, c.ggtt_size),
        (0x3, c.lmem),
        (0x4, c.ctx_num.into()),
        (0x6, c.db_num.into()),
    ])
}

/// The stage reached.
/// The engine classes of the present engines (`rcs`, `bcs`, `ccs`, ...),
/// from the mock's summary.
fn classes(s: &Summary) -> Vec<String> {
    let mut c: Vec<String> = s.engines.by_engine.keys().map(|e| class(e)).collect();
    c.sort();
    c.dedup();
    c
}

/// An engine's class: its name without the instance (`ccs2` -> `ccs`).
fn class(engine: &str) -> String {
    engine
        .trim_end_matches(|c: char| c.is_ascii_digit())
        .to_owned()
}

/// Whether a context of the VF's was loaded on an engine of every class
/// in `classes`.
fn every_class_ran(g: &VfGuest, classes: &[String]) -> bool {
    let ran: Vec<String> = g
        .submit
        .keys()
        .filter_map(|k| k.strip_prefix("load:start@"))
        .map(class)
        .collect();
    !classes.is_empty() && classes.iter().all(|c| ran.contains(c))
}

/// VF1's bring-up under xe on the mock's clock (microseconds since the mock started).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VfTimes {
    /// xe's first read of VF1's BAR 0: its probe begins.
    pub probe: u64,
    /// VF1's first job done: its engine's interrupt reported through VF1's memory (the
    /// mock's `engine_memirq`, `reported`).
    pub first_job: Option<u64>,
    /// A context of VF1's loaded on every engine class in `classes`: the last class's first.
    pub every_class: Option<u64>,
}

/// [`VfTimes`] from the mock's trace; `None` when xe never read VF1's BAR 0.
pub fn vf_times(trace: &str, classes: &[String]) -> Option<VfTimes> {
    let mut probe = None;
    let mut first_job = None;
    let mut first_load: BTreeMap<String, u64> = BTreeMap::new();
    let vf = format!("\"vf\":{VF},");
    for line in trace.lines().filter(|l| l.contains(&vf)) {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let Some(t) = v["t_us"].as_u64() else {
            continue;
        };
        match v["ev"].as_str() {
            Some("vf_guest") if v["what"] == "mmio_read" => {
                probe.get_or_insert(t);
            }
            Some("engine_memirq") if v["outcome"] == "reported" => {
                first_job.get_or_insert(t);
            }
            Some("guc_submit_load") if v["action"] == "start" => {
                if let Some(e) = v["engine"].as_str() {
                    first_load.entry(class(e)).or_insert(t);
                }
            }
            _ => {}
        }
    }
    let every_class = if classes.is_empty() {
        None
    } else {
        classes
            .iter()
            .map(|c| first_load.get(c).copied())
            .collect::<Option<Vec<u64>>>()
            .and_then(|t| t.into_iter().max())
    };
    Some(VfTimes {
        probe: probe?,
        first_job,
        every_class,
    })
}

impl VfTimes {
    /// Milliseconds from the probe's start to `end`, when it came.
    pub fn ms_after_probe(&self, end: Option<u64>) -> Option<f64> {
        // CAST: microseconds far below 2^52, exact in f64.
        end.map(|e| e.saturating_sub(self.probe) as f64 / 1e3)
    }
}

/// The line `make bench` and the suite's note print for [`VfTimes`].
pub fn vf_times_line(t: &VfTimes) -> String {
    let ms = |end: Option<u64>| {
        t.ms_after_probe(end)
            .map_or("-".to_string(), |ms| format!("{ms:.1} ms"))
    };
    format!(
        "VF1 under upstream xe in a second VM (mock's clock, from xe's first BAR 0 read): first \
         job done {}, a context run on every engine class {}",
        ms(t.first_job),
        ms(t.every_class)
    )
}

/// Runs the suite for `make bench` (plain lane) and returns VF1's times from its trace, with
/// whether every case passed; the cases print as in `make check`.
///
/// # Errors
///
/// No trace, or xe never probed VF1.
pub fn bench(ctx: &Context) -> Result<(VfTimes, bool)> {
    let mut r = Reporter::new(Box::new(std::io::stdout()));
    r.begin(NAME, "upstream xe as the VF driver of VF1 (make bench)");
    run(ctx, &mut r);
    let (_, failed) = r.totals();
    let logs = ctx.log_dir(NAME);
    let trace = std::fs::read_to_string(logs.join("trace.jsonl"))
        .with_context(|| format!("reading {}", logs.join("trace.jsonl").display()))?;
    let classes = std::fs::read_to_string(logs.join("mock.json"))
        .ok()
        .and_then(|t| mock_summary::parse(&t).ok())
        .map(|s| classes(&s))
        .unwrap_or_default();
    let times = vf_times(&trace, &classes).context("xe never read VF1's BAR 0")?;
    Ok((times, failed == 0))
}

fn furthest(trace: &str, g: &VfGuest, guest: &Guest, classes: &[String]) -> Stage {
    let klvs_ok = expected_klvs(trace).is_some_and(|want| {
        want.iter()
            .all(|(k, v)| g.klvs.get(&format!("{k:#x}")) == Some(v))
    });
    let reached = [
        g.counts.get("config_read").is_some_and(|&n| n > 0)
            && g.counts.get("mmio_read").is_some_and(|&n| n > 0),
        requests(g, 0x5500, "success") > 0,
        klvs_ok,
        requests(g, 0x4100, "success") >= 2,
        requests(g, 0x4509, "success") > 0,
        g.counts.get("relay_from_pf").is_some_and(|&n| n >= 2),
        g.ct_h2g.contains_key("0x509:request:success"),
        g.ct_h2g.keys().any(|k| k.starts_with("0x4502:")),
        g.submit.keys().any(|k| k.starts_with("load:start@"))
            && g.submit.keys().any(|k| k.starts_with("memirq:reported@")),
        guest.driver.as_deref() == Some("xe") && every_class_ran(g, classes),
    ];
    let stages = [
        Stage::Attached,
        Stage::Handshake,
        Stage::Config,
        Stage::Hwconfig,
        Stage::CtEnabled,
        Stage::Relay,
        Stage::Submission,
        Stage::ContextSent,
        Stage::ContextRan,
        Stage::ProbeComplete,
    ];
    stages
        .iter()
        .zip(reached)
        .take_while(|(_, r)| *r)
        .last()
        .map_or(Stage::None, |(s, _)| *s)
}

fn verdict(name: &str, failure: Option<String>) -> Case {
    match failure {
        None => Case::pass(name),
        Some(why) => Case::fail(name, why),
    }
}

/// Runs the suite.
pub fn run(ctx: &Context, r: &mut Reporter) {
    let base = match Baseline::load(&ctx.repo) {
        Ok(b) => b,
        Err(e) => return r.case(Case::fail("baseline", format!("{e:#}"))),
    };
    let name = if ctx.debug { NAME_DEBUG } else { NAME };
    // xe is built in the plain kernel's tree only.
    let plain = ctx
        .env
        .get("KDIR")
        .map_or_else(|| ctx.kdir.clone(), std::path::PathBuf::from);
    let order = match modules::load_order(&plain) {
        Ok(o) => o,
        Err(e) => return r.case(Case::fail("modules", format!("{e:#}"))),
    };
    let start = Instant::now();
    let logs = ctx.log_dir(NAME);
    for stale in ["guest-output.log", "guest-console.log", "peer-guest.log"] {
        let _ = std::fs::remove_file(logs.join(stale));
    }
    let socket = logs.join("vf1.sock");
    let guest_cmd = guest_command(ctx, &order, &socket, &logs);
    let mut cmd = host_command(ctx, &guest_cmd, &socket, &logs);
    let (out, console, summary) = (
        logs.join("output.log"),
        logs.join("console.log"),
        logs.join("mock.json"),
    );
    let limit = Duration::from_secs(HOST_TIMEOUT_SECS + BOOT_MARGIN_SECS);
    let mut notes = Vec::new();
    let finished = run_vm(
        name,
        &mut cmd,
        &out,
        &[&console, &summary],
        limit,
        &mut |n| notes.push(n),
    );
    let read =
        |p: &Path| String::from_utf8_lossy(&std::fs::read(p).unwrap_or_default()).into_owned();
    let host = host_facts(&read(&out));
    let guest = parse_prefixed(&read(&logs.join("guest-output.log")), "xe-vf: ");
    let parsed = std::fs::read_to_string(&summary)
        .map_err(|e| format!("no mock summary at {} ({e})", summary.display()))
        .and_then(|t| mock_summary::parse(&t).map_err(|e| format!("{e:#}")));
    let run_problem = match (&finished, &parsed) {
        (Err(e), _) => Some(format!("{e:#}")),
        (Ok(f), _) if f.code() != Some(0) => Some(super::vm_exit_meaning(f)),
        (_, Err(e)) => Some(e.clone()),
        (_, Ok(s)) if !s.is_final => Some("the mock did not exit cleanly".into()),
        _ if !host.contains_key("done") => Some("the host script did not reach its end".into()),
        _ if host.get("peer").map(String::as_str) != Some("0") => Some(format!(
            "the second VM did not run to its end (peer status {:?}; {})",
            host.get("peer"),
            logs.join("peer-guest.log").display()
        )),
        _ if !guest.done => Some("the second VM's script did not reach its end".into()),
        _ => None,
    };
    r.case(match run_problem {
        None => Case::pass("run"),
        Some(p) => Case::fail("run", p).with_log_tail(&console),
    });
    let Ok(s) = parsed else {
        return r.case(Case::fail("furthest stage", "no mock summary"));
    };
    let trace = read(&logs.join("trace.jsonl"));
    let g = s.vf_guest.get(&VF).cloned().unwrap_or_default();
    let guest_out = read(&logs.join("guest-output.log"));
    let guest_reset = guest_out
        .lines()
        .find_map(|l| l.trim().strip_prefix("xe-vf: reset="));
    for c in judge(&base, &s, &g, &guest, &host, &trace, guest_reset) {
        r.case(c);
    }
    let guest_console = logs.join("guest-console.log");
    let known = |p: &Path, f: &kernel_log::Finding| {
        *p == guest_console
            && base
                .guest_kernel_log
                .keys()
                .any(|k| f.lines.iter().any(|l| l.contains(k.as_str())))
    };
    let reports: Vec<String> = [console.clone(), guest_console.clone()]
        .iter()
        .flat_map(|p| {
            kernel_log::scan(&read(p))
                .into_iter()
                .filter(|f| !known(p, f))
                .map(|f| format!("{}:{}: {}", p.display(), f.line, f.detector))
                .collect::<Vec<_>>()
        })
        .collect();
    r.case(verdict(
        "kernel logs",
        (!reports.is_empty()).then(|| format!("detector reports: {}", reports.join("; "))),
    ));
    let reached = furthest(&trace, &g, &guest, &classes(&s));
    if let Some(t) = vf_times(&trace, &classes(&s)) {
        r.note(&format!("{name}: {}", vf_times_line(&t)));
    }
    r.note(&format!(
        "{name}: xe as VF driver reached `{reached}` (baseline `{}`); GuC requests {:?}; logs in {}",
        base.stage,
        g.guc_requests,
        logs.display()
    ));
    for line in guest.log.iter().filter(|l| l.is_error()).take(8) {
        r.note(&format!("{name}: xe error: {line}"));
    }
    for n in notes {
        r.note(&n);
    }
    r.note(&format!("{name}: {:.1} s", start.elapsed().as_secs_f64()));
}

/// Every case but the run's and the kernel logs'.
fn judge(
    base: &Baseline,
    s: &Summary,
    g: &VfGuest,
    guest: &Guest,
    host: &BTreeMap<String, String>,
    trace: &str,
    guest_reset: Option<&str>,
) -> Vec<Case> {
    let reached = furthest(trace, g, guest, &classes(s));
    let mut cases = vec![verdict(
        "furthest stage",
        (reached < base.stage).then(|| {
            format!(
                "xe reached `{reached}`, short of the baseline `{}`",
                base.stage
            )
        }),
    )
    .with_details(guest.log.iter().map(ToString::to_string))];
    // The handshake's answer is the loaded image's version.
    let want = loaded_submission(trace).map(|v| format!("0.{v}"));
    cases.push(verdict(
        "GuC handshake",
        match (&g.version, &want) {
            (Some(got), Some(want)) if got == want => None,
            (got, want) => Some(format!(
                "VF2GUC_MATCH_VERSION answered {got:?}; the loaded GuC image's is {want:?}"
            )),
        },
    ));
    // Every configuration value xe read is what xehpg pushed.
    let config = match expected_klvs(trace) {
        None => Some("the trace has no configuration xehpg pushed for VF1".to_string()),
        Some(want) => {
            let wrong: Vec<String> = want
                .iter()
                .filter(|&&(k, v)| v == 0 || g.klvs.get(&format!("{k:#x}")) != Some(&v))
                .map(|(k, v)| {
                    format!(
                        "KLV {k:#x}: xe was told {:?}, xehpg pushed {v:#x}",
                        g.klvs.get(&format!("{k:#x}"))
                    )
                })
                .collect();
            (!wrong.is_empty()).then(|| wrong.join("; "))
        }
    };
    cases.push(verdict("configuration as provisioned", config));
    // Each refusal of the VF's GuC requests is one the baseline explains.
    let refused_all: Vec<&str> = g
        .guc_requests
        .keys()
        .filter_map(|k| k.strip_suffix(":failure"))
        .chain(
            g.ct_h2g
                .keys()
                .filter(|k| k.ends_with(":failure"))
                .filter_map(|k| k.split(':').next()),
        )
        .collect();
    let refused: Vec<String> = refused_all
        .iter()
        .copied()
        .filter(|a| !base.guc_actions.contains_key(*a))
        .map(str::to_string)
        .collect();
    cases.push(verdict(
        "refused GuC actions explained",
        (!refused.is_empty()).then(|| format!("unexplained: {}", refused.join(", "))),
    ));
    let errors: Vec<String> = guest
        .log
        .iter()
        .filter(|l| l.is_error())
        .filter(|l| !base.xe_errors.keys().any(|k| l.text.contains(k.as_str())))
        .map(ToString::to_string)
        .collect();
    cases.push(verdict(
        "xe errors explained",
        (!errors.is_empty()).then(|| errors.join("; ")),
    ));
    let unknown: Vec<&String> = g
        .unknown
        .keys()
        .filter(|k| !base.unknown.contains_key(*k))
        .collect();
    cases.push(verdict(
        "unmodelled VF registers explained",
        (!unknown.is_empty()).then(|| format!("{unknown:?}")),
    ));
    // The baseline moves with the mock: an explanation the run no longer
    // needs is stale.
    let stale: Vec<String> = base
        .guc_actions
        .keys()
        .filter(|a| !refused_all.contains(&a.as_str()))
        .map(|a| format!("guc_actions {a}"))
        .chain(
            base.xe_errors
                .keys()
                .filter(|k| {
                    !guest
                        .log
                        .iter()
                        .any(|l| l.is_error() && l.text.contains(k.as_str()))
                })
                .map(|k| format!("xe_errors {k:?}")),
        )
        .chain(
            base.unknown
                .keys()
                .filter(|k| !g.unknown.contains_key(*k))
                .map(|k| format!("unknown {k}")),
        )
        .collect();
    cases.push(verdict(
        "baseline entries all still needed",
        (!stale.is_empty()).then(|| format!("stale: {}", stale.join("; "))),
    ));
    cases.push(verdict(
        "VF accesses the hardware blocks",
        (!g.blocked.is_empty()).then(|| format!("{:?}", g.blocked)),
    ));
    // The PF's side: each FLR the GuC reported finished; isolation clean.
    let sr = &s.sriov;
    let resets = g.counts.get("reset").copied().unwrap_or(0);
    cases.push(verdict(
        "VF FLRs finished by the PF",
        if guest_reset != Some("0") {
            Some(format!("the guest's reset of VF1 failed: {guest_reset:?}"))
        } else if resets < 2 {
            Some(format!(
                "VF1's function was reset {resets} time(s): QEMU's at the VM's start and the \
                 guest's own are two"
            ))
        } else if sr.vf_flr_notified < 2 || sr.flr_finished < sr.vf_flr_notified {
            Some(format!(
                "the GuC reported {} VF FLR(s), the PF finished {}",
                sr.vf_flr_notified, sr.flr_finished
            ))
        } else {
            None
        },
    ));
    cases.push(verdict(
        "isolation and violations",
        (sr.isolation_violations != 0 || s.violations != 0 || sr.lmtt_stale != 0).then(|| {
            format!(
                "isolation findings {}, LMTT stale {}, violations {:?}",
                sr.isolation_violations, sr.lmtt_stale, s.violation_kinds
            )
        }),
    ));
    let fact = |k: &str| host.get(k).map_or("missing", String::as_str);
    cases.push(verdict(
        "VFs disabled, PF unbound",
        (fact("disable") != "0" || fact("vfs-left") != "0" || fact("unbind") != "ok").then(|| {
            format!(
                "disable {}, VFs left {}, unbind {}",
                fact("disable"),
                fact("vfs-left"),
                fact("unbind")
            )
        }),
    ));
    cases
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checked_in_baseline_parses() {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let b = Baseline::load(&repo).expect("baseline");
        assert!(b.stage >= Stage::Config, "{:?}", b.stage);
    }

    #[test]
    fn quoting_survives_quotes() {
        assert_eq!(sh_quote("a b"), "'a b'");
        assert_eq!(sh_quote("it's"), "'it'\\''s'");
    }

    #[test]
    fn host_facts_and_versions_are_read() {
        let f = host_facts("x\nxe-vf-host: peer=0\nxe-vf-host: vf1=ggtt 1=2\n");
        assert_eq!(f["peer"], "0");
        assert_eq!(f["vf1"], "ggtt 1=2");
        let t = "{\"ev\":\"guc_loaded\",\"submission\":\"1.2.0\"}\n\
                 {\"ev\":\"guc_loaded\",\"submission\":\"1.26.0\"}\n";
        assert_eq!(loaded_submission(t).as_deref(), Some("1.26.0"));
    }

    #[test]
    fn vf_times_come_from_vf1s_events() {
        let trace = [
            r#"{"seq":1,"t_us":900,"ev":"vf_guest","vf":2,"what":"mmio_read"}"#,
            r#"{"seq":2,"t_us":1000,"ev":"vf_guest","vf":1,"what":"config_read"}"#,
            r#"{"seq":3,"t_us":2000,"ev":"vf_guest","vf":1,"what":"mmio_read"}"#,
            r#"{"seq":4,"t_us":2500,"ev":"vf_guest","vf":1,"what":"mmio_read"}"#,
            r#"{"seq":5,"t_us":3000,"ev":"guc_submit_load","vf":1,"engine":"rcs0","guc_id":1,"lrca":"0x0","action":"start"}"#,
            r#"{"seq":6,"t_us":3100,"ev":"engine_memirq","engine":"rcs0","vf":1,"bits":"0x1","enable":"0x1","outcome":"dropped"}"#,
            r#"{"seq":7,"t_us":3200,"ev":"engine_memirq","engine":"rcs0","vf":1,"bits":"0x1","enable":"0x1","outcome":"reported"}"#,
            r#"{"seq":8,"t_us":5000,"ev":"guc_submit_load","vf":1,"engine":"bcs0","guc_id":2,"lrca":"0x0","action":"start"}"#,
            r#"{"seq":9,"t_us":6000,"ev":"guc_submit_load","vf":1,"engine":"rcs0","guc_id":3,"lrca":"0x0","action":"start"}"#,
        ]
        .join("\n");
        let both = ["bcs".to_string(), "rcs".to_string()];
        let t = vf_times(&trace, &both).unwrap();
        assert_eq!(
            t,
            VfTimes {
                probe: 2000,
                first_job: Some(3200),
                every_class: Some(5000)
            }
        );
        assert!(vf_times_line(&t).contains("first job done 1.2 ms"));
        assert!(vf_times_line(&t).contains("every engine class 3.0 ms"));
        // A class that never ran: no time for it.
        let three = ["bcs".to_string(), "ccs".to_string(), "rcs".to_string()];
        assert_eq!(vf_times(&trace, &three).unwrap().every_class, None);
        assert_eq!(vf_times("", &both), None);
    }

    #[test]
    fn stages_stop_at_the_first_missing() {
        let mut g = VfGuest::default();
        let guest = Guest::default();
        assert_eq!(furthest("", &g, &guest, &[]), Stage::None);
        g.counts.insert("config_read".into(), 1);
        g.counts.insert("mmio_read".into(), 1);
        assert_eq!(furthest("", &g, &guest, &[]), Stage::Attached);
        g.guc_requests.insert("0x5500:success".into(), 1);
        // No configuration pushed for VF1: config is not reached, whatever
        // comes after.
        g.guc_requests.insert("0x4100:success".into(), 2);
        assert_eq!(furthest("", &g, &guest, &[]), Stage::Handshake);
        // Pushed, and told as pushed (the last non-empty push counts).
        let trace = "{\"ev\":\"sriov_vf_cfg\",\"vfid\":1,\"result\":\"applied\",\"cfg\":\
            {\"ggtt_start\":\"0x1000\",\"ggtt_size\":4096,\"lmem\":2,\"ctx_begin\":0,\
            \"ctx_num\":3,\"db_begin\":0,\"db_num\":4,\"exec_quantum_ms\":0,\
            \"preempt_timeout_us\":0,\"priority\":0}}\n\
            {\"ev\":\"sriov_vf_cfg\",\"vfid\":1,\"result\":\"applied\",\"cfg\":\
            {\"ggtt_start\":\"0x0\",\"ggtt_size\":0,\"lmem\":0,\"ctx_begin\":0,\
            \"ctx_num\":0,\"db_begin\":0,\"db_num\":0,\"exec_quantum_ms\":0,\
            \"preempt_timeout_us\":0,\"priority\":0}}\n";
        for (k, v) in [
            ("0x1", 0x1000),
            ("0x2", 4096),
            ("0x3", 2),
            ("0x4", 3),
            ("0x6", 4),
        ] {
            g.klvs.insert(k.into(), v);
        }
        assert_eq!(furthest(trace, &g, &guest, &[]), Stage::Hwconfig);
        g.klvs.insert("0x4".into(), 5);
        assert_eq!(furthest(trace, &g, &guest, &[]), Stage::Handshake);
        g.klvs.insert("0x4".into(), 3);
        g.guc_requests.insert("0x4509:success".into(), 1);
        g.counts.insert("relay_from_pf".into(), 2);
        g.ct_h2g.insert("0x509:request:success".into(), 1);
        g.ct_h2g.insert("0x4502:event:none".into(), 1);
        assert_eq!(furthest(trace, &g, &guest, &[]), Stage::ContextSent);
        // A Load alone is not a job run: its interrupt must come back.
        g.submit.insert("load:start@rcs0".into(), 1);
        assert_eq!(furthest(trace, &g, &guest, &[]), Stage::ContextSent);
        g.submit.insert("memirq:reported@rcs0".into(), 1);
        assert_eq!(furthest(trace, &g, &guest, &[]), Stage::ContextRan);
        // Bound, but bcs never ran a context of VF1's: not complete.
        let bound = Guest {
            driver: Some("xe".into()),
            ..Guest::default()
        };
        let classes = ["bcs".to_string(), "rcs".to_string()];
        assert_eq!(furthest(trace, &g, &bound, &classes), Stage::ContextRan);
        g.submit.insert("load:start@bcs0".into(), 1);
        assert_eq!(furthest(trace, &g, &bound, &classes), Stage::ProbeComplete);
        assert_eq!(furthest(trace, &g, &guest, &classes), Stage::ContextRan);
        assert_eq!(class("ccs12"), "ccs");
    }
}
