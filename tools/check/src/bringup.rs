//! `make bench`'s bring-up comparison: xehpg and upstream xe, each bound to
//! the same mock with the same options in one run, measured from the mock's
//! trace, so both are judged by the same clock and the same counters and
//! neither driver's report of itself is used.
//!
//! Milestones, each as time and BAR0 MMIO reads and writes since the
//! driver's first BAR0 access (its probe starting):
//!
//! - **GuC ready**: the CT enable that precedes the first context
//!   registration (the GuC loaded, for xe and a two-phase xehpg the second
//!   time, and its channel up for submission);
//! - **every class ran**: the first context completed on at least one engine
//!   of every engine class the mock presents (xe records its default
//!   contexts this way during probe, `xe_gt_record_default_lrcs`);
//! - **every engine ran**: the first context completed on every present
//!   engine. xe never runs on every engine during probe, so this one is
//!   xehpg's alone.
//!
//! xehpg's guest sends one request to every engine (`submit all 1`) right
//! after `/init` loaded it, before anything reads its debugfs (a debugfs
//! read makes MMIO); xe's is the xe-probe suite's script, whose debugfs
//! reads and unbind come after its probe. The ratios are xehpg / xe.

use crate::suites::vm::mock_summary;
use crate::suites::vm_exit_meaning;
use crate::suites::xe_probe::modules;
use anyhow::{Context as _, Result};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use std::time::Duration;
use xehpg_common::process::run_logged;

/// The same mock options for both drivers: xe needs the GAM selector's
/// reset value to be the primary GAM (Documentation/xe-probe.rst,
/// "Findings"); xehpg steers explicitly either way.
const MOCK_ARGS: [&str; 2] = ["--gam-reset-slice", "1"];

/// Limit of one VM run.
const LIMIT: Duration = Duration::from_secs(6 * 60);

/// One point of a run: when, and the MMIO it took to get there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Point {
    /// Microseconds since the first BAR0 access.
    pub us: u64,
    /// BAR0 reads up to and including the event.
    pub reads: u64,
    /// BAR0 writes up to and including the event.
    pub writes: u64,
}

/// The milestones one trace reached.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Milestones {
    /// GuC ready for submission.
    pub guc_ready: Option<Point>,
    /// A context completed on an engine of every present class.
    pub every_class: Option<Point>,
    /// A context completed on every present engine.
    pub every_engine: Option<Point>,
    /// GuC loads in the trace.
    pub guc_loads: u64,
}

/// An engine's class: its name without the instance number.
fn class(engine: &str) -> &str {
    engine.trim_end_matches(|c: char| c.is_ascii_digit())
}

/// The milestones of `trace` (the mock's JSON lines) for the `present`
/// engines (the mock's summary).
pub fn milestones(trace: &str, present: &BTreeSet<String>) -> Milestones {
    let classes: BTreeSet<&str> = present.iter().map(|e| class(e)).collect();
    let mut m = Milestones::default();
    let (mut t0, mut reads, mut writes) = (None, 0u64, 0u64);
    let mut last_enable: Option<Point> = None;
    let mut registered = false;
    let mut ran: BTreeSet<String> = BTreeSet::new();
    for v in trace
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
    {
        let t = v["t_us"].as_u64().unwrap_or(0);
        let ev = v["ev"].as_str().unwrap_or("");
        let bar0 = v["bar"].as_u64() == Some(0);
        match ev {
            "mmio_read" if bar0 => reads += 1,
            "mmio_write" if bar0 => writes += 1,
            _ => {}
        }
        if bar0 && t0.is_none() && matches!(ev, "mmio_read" | "mmio_write") {
            t0 = Some(t);
        }
        let Some(start) = t0 else {
            continue;
        };
        let here = Point {
            us: t.saturating_sub(start),
            reads,
            writes,
        };
        match ev {
            "guc_loaded" => {
                m.guc_loads += 1;
                last_enable = None;
            }
            "guc_ct_control" if v["result"] == "enabled" => last_enable = Some(here),
            "guc_submit" if v["action"] == "register" && v["result"] == "ok" && !registered => {
                registered = true;
                m.guc_ready = last_enable;
            }
            "engine_complete" => {
                if let Some(e) = v["engine"].as_str() {
                    ran.insert(e.to_string());
                }
                let ran_classes: BTreeSet<&str> = ran.iter().map(|e| class(e)).collect();
                if m.every_class.is_none() && !classes.is_empty() && classes.is_subset(&ran_classes)
                {
                    m.every_class = Some(here);
                }
                if m.every_engine.is_none() && !present.is_empty() && present.is_subset(&ran) {
                    m.every_engine = Some(here);
                }
            }
            _ => {}
        }
    }
    m
}

/// The present engines of a mock summary file (one `engines` entry per
/// engine the mock's fuses enable).
fn present_engines(summary: &Path) -> Result<BTreeSet<String>> {
    let text = std::fs::read_to_string(summary)
        .with_context(|| format!("reading {}", summary.display()))?;
    let s = mock_summary::parse(&text).with_context(|| summary.display().to_string())?;
    Ok(s.engines.by_engine.into_keys().collect())
}

/// `a / b`, when both are known and `b` is not 0.
fn ratio(a: Option<u64>, b: Option<u64>) -> Option<f64> {
    match (a, b) {
        // CAST: microseconds and counts far below 2^52, exact in f64.
        (Some(a), Some(b)) if b > 0 => Some(a as f64 / b as f64),
        _ => None,
    }
}

/// The milestones of the table: a stable key, the printed name, and each
/// driver's point.
fn rows<'a>(
    xehpg: &'a Milestones,
    xe: &'a Milestones,
) -> [(&'static str, &'static str, Option<Point>, Option<Point>); 3] {
    [
        (
            "guc_ready",
            "GuC ready (CT up, first context)",
            xehpg.guc_ready,
            xe.guc_ready,
        ),
        (
            "every_class",
            "every class ran a context",
            xehpg.every_class,
            xe.every_class,
        ),
        (
            "every_engine",
            "every engine ran a context",
            xehpg.every_engine,
            xe.every_engine,
        ),
    ]
}

/// The comparison as JSON, every figure of [`render`]: per milestone each
/// driver's time (ms) and MMIO, and the xehpg/xe ratios.
pub fn json(xehpg: &Milestones, xe: &Milestones) -> Value {
    let point = |p: Option<Point>| {
        p.map_or(Value::Null, |p| {
            serde_json::json!({
                "ms": p.us as f64 / 1e3,
                "reads": p.reads,
                "writes": p.writes,
            })
        })
    };
    let milestones: Vec<Value> = rows(xehpg, xe)
        .into_iter()
        .map(|(key, _, a, b)| {
            serde_json::json!({
                "milestone": key,
                "xehpg": point(a),
                "xe": point(b),
                "ratio_time": ratio(a.map(|p| p.us), b.map(|p| p.us)),
                "ratio_reads": ratio(a.map(|p| p.reads), b.map(|p| p.reads)),
                "ratio_writes": ratio(a.map(|p| p.writes), b.map(|p| p.writes)),
            })
        })
        .collect();
    serde_json::json!({
        "guc_loads": { "xehpg": xehpg.guc_loads, "xe": xe.guc_loads },
        "milestones": milestones,
    })
}

/// The comparison table.
pub fn render(xehpg: &Milestones, xe: &Milestones) -> String {
    let ms = |p: Option<Point>| {
        p.map_or("n/a".to_string(), |p| {
            format!("{:.1} ms", p.us as f64 / 1e3)
        })
    };
    let rw =
        |p: Option<Point>| p.map_or("n/a".to_string(), |p| format!("{} / {}", p.reads, p.writes));
    let ratio = |a, b| ratio(a, b).map_or("n/a".to_string(), |r| format!("{r:.2}"));
    let mut s = format!(
        "\nbring-up, xehpg beside upstream xe on the same mock (from the mock's trace, since \
         the driver's first BAR0 access; GuC loads: xehpg {}, xe {})\n{:<34}{:>16}{:>16}{:>14}\n",
        xehpg.guc_loads, xe.guc_loads, "milestone", "xehpg", "xe", "xehpg/xe"
    );
    for (_, what, a, b) in rows(xehpg, xe) {
        s.push_str(&format!(
            "{what:<34}{:>16}{:>16}{:>14}\n",
            ms(a),
            ms(b),
            ratio(a.map(|p| p.us), b.map(|p| p.us))
        ));
        s.push_str(&format!(
            "{:<34}{:>16}{:>16}{:>14}\n",
            "  MMIO reads / writes",
            rw(a),
            rw(b),
            format!(
                "{} / {}",
                ratio(a.map(|p| p.reads), b.map(|p| p.reads)),
                ratio(a.map(|p| p.writes), b.map(|p| p.writes))
            )
        ));
    }
    s
}

/// One driver's run: the VM with `driver_args`, the mock's trace and
/// summary into `logs` under `name`; its milestones.
fn one(repo: &Path, logs: &Path, name: &str, driver_args: &[String]) -> Result<Milestones> {
    let trace = logs.join(format!("bringup-{name}-trace.jsonl"));
    let summary = logs.join(format!("bringup-{name}-mock.json"));
    let console = logs.join(format!("bringup-{name}-console.log"));
    let out = logs.join(format!("bringup-{name}-output.log"));
    for f in [&trace, &summary, &console, &out] {
        let _ = std::fs::remove_file(f);
    }
    let mut cmd = Command::new(repo.join("tools/vm/run"));
    cmd.args(["-q", "--timeout=240"])
        .arg(format!("--console={}", console.display()))
        .arg(format!("--summary={}", summary.display()))
        .arg(format!("--trace={}", trace.display()))
        .args(MOCK_ARGS.iter().map(|a| format!("--mock-arg={a}")))
        .args(driver_args);
    println!(
        "xehpg bench: booting the VM, bring-up of {name} (logs in {})",
        logs.display()
    );
    let finished = run_logged(&mut cmd, &out, LIMIT)?;
    if !finished.success() {
        anyhow::bail!(
            "{name}: {} (output: {})",
            vm_exit_meaning(&finished),
            out.display()
        );
    }
    let present = present_engines(&summary)?;
    let text =
        std::fs::read_to_string(&trace).with_context(|| format!("reading {}", trace.display()))?;
    Ok(milestones(&text, &present))
}

/// What [`run`] measured and found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BringUp {
    /// xehpg's milestones.
    pub xehpg: Milestones,
    /// xe's, when it could be run.
    pub xe: Option<Milestones>,
    /// A milestone not reached, or xe not run: one line each.
    pub errors: Vec<String>,
}

/// Runs both drivers and prints the table; the errors are a run that could
/// not have its column or a milestone a driver should reach but did not.
///
/// # Errors
///
/// A VM run failed or its trace cannot be read.
pub fn run(repo: &Path, kdir: Option<&Path>, logs: &Path) -> Result<BringUp> {
    let xehpg_args = vec![
        format!("--module={}", repo.join("build/module/xehpg.ko").display()),
        // One request on every engine, before anything reads debugfs.
        "--".to_string(),
        "for d in /sys/kernel/debug/xehpg/*/; do echo 'all 1' >\"$d/submit_ctl\"; done".to_string(),
    ];
    let xehpg = one(repo, logs, "xehpg", &xehpg_args)?;
    let Some(kdir) = kdir else {
        return Ok(BringUp {
            xehpg,
            xe: None,
            errors: vec!["no plain kernel tree (KDIR) for upstream xe; no xe column".into()],
        });
    };
    let order = modules::load_order(kdir)?;
    let mut xe_args = vec![
        "--no-module".to_string(),
        format!(
            "--guest-file={}:/tests/xe-probe.sh",
            repo.join("tools/guest/xe-probe.sh").display()
        ),
    ];
    xe_args.extend(
        order
            .iter()
            .map(|m| format!("--guest-file={}:/xe/{}.ko", m.path.display(), m.name)),
    );
    let names: Vec<&str> = order.iter().map(|m| m.name.as_str()).collect();
    xe_args.push("--".to_string());
    xe_args.push(format!("sh /tests/xe-probe.sh 0 {}", names.join(" ")));
    let xe = one(repo, logs, "xe", &xe_args)?;
    print!("{}", render(&xehpg, &xe));
    let mut errors = Vec::new();
    for (who, m) in [("xehpg", &xehpg), ("xe", &xe)] {
        if m.guc_ready.is_none() || m.every_class.is_none() {
            errors.push(format!("{who} did not reach every milestone it should"));
        }
    }
    if xehpg.every_engine.is_none() {
        errors.push("xehpg did not run a context on every engine".into());
    }
    Ok(BringUp {
        xehpg,
        xe: Some(xe),
        errors,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn present(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    const TRACE: &str = r#"{"seq":0,"t_us":5,"ev":"start"}
{"seq":1,"t_us":10,"ev":"config_read","offset":"0x0"}
{"seq":2,"t_us":1000,"ev":"mmio_read","bar":0,"offset":"0x0"}
{"seq":3,"t_us":1100,"ev":"mmio_write","bar":2,"offset":"0x0"}
{"seq":4,"t_us":1200,"ev":"guc_loaded"}
{"seq":5,"t_us":1300,"ev":"guc_ct_control","result":"enabled"}
{"seq":6,"t_us":1400,"ev":"mmio_write","bar":0,"offset":"0x10"}
{"seq":7,"t_us":1500,"ev":"guc_loaded"}
{"seq":8,"t_us":1600,"ev":"guc_ct_control","result":"enabled"}
{"seq":9,"t_us":1700,"ev":"mmio_read","bar":0,"offset":"0x4"}
{"seq":10,"t_us":1800,"ev":"guc_submit","action":"register","result":"ok"}
{"seq":11,"t_us":1900,"ev":"engine_complete","engine":"rcs0"}
{"seq":12,"t_us":2000,"ev":"guc_submit","action":"register","result":"ok"}
{"seq":13,"t_us":2100,"ev":"engine_complete","engine":"vcs0"}
{"seq":14,"t_us":2200,"ev":"mmio_write","bar":0,"offset":"0x10"}
{"seq":15,"t_us":2300,"ev":"engine_complete","engine":"vcs2"}
"#;

    /// Time and MMIO count from the first BAR0 access; the GuC is ready at
    /// the CT enable after the last load, before the first registration;
    /// classes and engines complete separately; BAR2 is not MMIO.
    #[test]
    fn milestones_from_a_trace() {
        let m = milestones(TRACE, &present(&["rcs0", "vcs0", "vcs2"]));
        assert_eq!(m.guc_loads, 2);
        assert_eq!(
            m.guc_ready,
            Some(Point {
                us: 600,
                reads: 1,
                writes: 1
            })
        );
        assert_eq!(
            m.every_class,
            Some(Point {
                us: 1100,
                reads: 2,
                writes: 1
            })
        );
        assert_eq!(
            m.every_engine,
            Some(Point {
                us: 1300,
                reads: 2,
                writes: 2
            })
        );
    }

    /// An engine that never ran leaves its milestones open; a trace without
    /// a registration has no ready point.
    #[test]
    fn missing_milestones_stay_open() {
        let m = milestones(TRACE, &present(&["rcs0", "vcs0", "vcs2", "bcs0"]));
        assert_eq!(m.every_class, None);
        assert_eq!(m.every_engine, None);
        let no_register: String = TRACE
            .lines()
            .filter(|l| !l.contains("register"))
            .map(|l| format!("{l}\n"))
            .collect();
        assert_eq!(
            milestones(&no_register, &present(&["rcs0"])).guc_ready,
            None
        );
    }

    /// The engines are the summary's engine entries, as the mock writes it.
    #[test]
    fn present_engines_from_a_summary_file() {
        let mut s = xehpg_mock::summary::Summary::default();
        for e in ["vecs1", "rcs0"] {
            s.engines
                .by_engine
                .insert(e.to_string(), Default::default());
        }
        let file =
            std::env::temp_dir().join(format!("xehpg-check-bringup-{}.json", std::process::id()));
        std::fs::write(&file, serde_json::to_string(&s).expect("json")).expect("write");
        assert_eq!(
            present_engines(&file).expect("engines"),
            present(&["rcs0", "vecs1"])
        );
        std::fs::write(&file, "{}").expect("write");
        assert!(present_engines(&file).is_err());
        let _ = std::fs::remove_file(&file);
    }

    #[test]
    fn the_table_has_ratios() {
        let a = milestones(TRACE, &present(&["rcs0", "vcs0", "vcs2"]));
        let mut b = a.clone();
        b.guc_ready = Some(Point {
            us: 1200,
            reads: 2,
            writes: 4,
        });
        b.every_engine = None;
        let t = render(&a, &b);
        assert!(t.contains("0.50"), "{t}");
        assert!(t.contains("0.50 / 0.25"), "{t}");
        assert!(t.contains("n/a"), "{t}");
        // The JSON has every figure of the table, by stable keys.
        let j = json(&a, &b);
        assert_eq!(j["guc_loads"]["xehpg"], 2);
        let ready = &j["milestones"][0];
        assert_eq!(ready["milestone"], "guc_ready");
        assert_eq!(ready["xehpg"]["ms"], 0.6);
        assert_eq!(ready["xe"]["reads"], 2);
        assert_eq!(ready["ratio_time"], 0.5);
        assert_eq!(ready["ratio_writes"], 0.25);
        assert_eq!(j["milestones"][2]["xe"], Value::Null);
        assert_eq!(j["milestones"][2]["ratio_time"], Value::Null);
    }
}
