//! Suite `detectors` (debug lane only): every bug detector proven live by a deliberate bug.
//!
//! The debug lane's `<run>: kernel log clean` assertions ([`super::kernel_log`]) pass when the
//! console holds no report, which a detector that is off (a config line dropped by
//! olddefconfig, a report whose wording changed, lockdep disabled by an earlier report) would
//! also give. This suite boots the debug kernel once without the mock and loads the test-only
//! module `tests/triggers/` (`make trigger-module`, `build/triggers-debug/xehpg_triggers.ko`)
//! once per trigger of [`TRIGGERS`], each load committing one bug. The guest script
//! (`tools/guest/detectors.sh`) writes a begin and an end marker around each load; the host
//! cuts the console at the markers ([`segments`]) and, per trigger, asserts that
//! [`kernel_log::scan`] finds the expected detector in that trigger's own segment, with the
//! text that ties the report to the trigger ([`verdict`]). One case per trigger, plus the boot.

use super::vm::exit_meaning;
use super::vm::retry::run_vm;
use super::{kernel_log, Context};
use crate::report::{tail, Case, Reporter};
use std::path::Path;
use std::time::Duration;

/// The trigger module, relative to the repository (`make trigger-module`).
const MODULE: &str = "build/triggers-debug/xehpg_triggers.ko";

/// The guest script and the helpers it sources, relative to the repository.
const SCRIPT: &str = "tools/guest/detectors.sh";
const LIB: &str = "tools/guest/lib.sh";

/// Guest command timeout: a few seconds per load, two kmemleak scans of the whole memory on a
/// KASAN kernel under TCG.
const GUEST_TIMEOUT_SECS: u64 = 300;

/// Limit for the whole VM run: the command plus the debug kernel's boot (300 s allowed).
const VM_LIMIT: Duration = Duration::from_secs(GUEST_TIMEOUT_SECS + 420);

/// Console lines shown under a failure.
const DETAIL_LINES: usize = 30;

/// The marker lines `tools/guest/detectors.sh` writes to `/dev/kmsg`, each followed by the
/// trigger's name.
const BEGIN: &str = "detector-trigger: begin ";
const END: &str = "detector-trigger: end ";

/// One deliberate bug and what must report it.
pub struct Trigger {
    /// The module's `trigger=` value (tests/triggers/triggers.rs).
    pub param: &'static str,
    /// The case name.
    pub case: &'static str,
    /// The [`kernel_log::DETECTORS`] name that must report inside the segment; `None` for the
    /// control, whose segment must hold no report at all.
    pub detector: Option<&'static str>,
    /// Text the segment must also contain, tying the report to this trigger rather than to
    /// some other bug that happened to report meanwhile.
    pub evidence: &'static [&'static str],
    /// A further check of the segment's text, for what a substring cannot say.
    pub check: Option<SegmentCheck>,
}

/// A check of a segment's text: `Err` says what is wrong.
pub type SegmentCheck = fn(&str) -> Result<(), String>;

/// The triggers in the order the guest runs them. The order matters:
///
/// - `none` first: a load that does nothing wrong must leave a clean segment, so the markers
///   and the scan do not manufacture reports;
/// - `lockdep` before anything that could clear `debug_locks`: lockdep reports once per boot
///   (its report calls `debug_locks_off`), and a KASAN report taints the kernel with
///   `LOCKDEP_NOW_UNRELIABLE` (`end_report`, mm/kasan/report.c), which turns it off too;
/// - `kasan` after the others: generic KASAN reports once per boot (`report_enabled`,
///   mm/kasan/report.c), so nothing after it may need KASAN;
/// - `overflow` last: the panic oopses the insmod task and leaves the module stuck loading.
pub const TRIGGERS: &[Trigger] = &[
    Trigger {
        param: "none",
        case: "a harmless load reports nothing, Rust debug assertions on (control)",
        detector: None,
        evidence: &[
            "xehpg_triggers: trigger none",
            "xehpg_triggers: debug_assertions on",
        ],
        check: None,
    },
    Trigger {
        param: "lockdep",
        case: "lockdep reports an AB/BA lock order",
        detector: Some("lockdep"),
        evidence: &[
            "possible circular locking dependency",
            "xehpg_trigger_lock_a",
            "xehpg_trigger_lock_b",
        ],
        check: None,
    },
    Trigger {
        param: "atomic-sleep",
        case: "a GFP_KERNEL allocation under a spinlock is reported as sleeping in atomic context",
        detector: Some("sleep in atomic context"),
        evidence: &["name: insmod"],
        check: None,
    },
    Trigger {
        param: "ubsan-shift",
        case: "UBSAN reports a shift out of bounds",
        detector: Some("UBSAN"),
        evidence: &["shift-out-of-bounds", "glue.c"],
        check: None,
    },
    Trigger {
        param: "ubsan-bounds",
        case: "UBSAN reports an array index out of bounds",
        detector: Some("UBSAN"),
        evidence: &["array-index-out-of-bounds", "glue.c"],
        check: None,
    },
    Trigger {
        param: "warn",
        case: "a WARN_ON is reported",
        detector: Some("WARN"),
        evidence: &["xehpg_trigger_warn"],
        check: None,
    },
    Trigger {
        param: "list",
        case: "DEBUG_LIST reports an add after a corrupted entry",
        detector: Some("list corruption"),
        evidence: &["list_add corruption. prev->next should be next"],
        check: None,
    },
    Trigger {
        param: "debugobjects",
        case: "debugobjects reports freeing a pending timer",
        detector: Some("debugobjects"),
        evidence: &["free active", "xehpg_trigger_timer_fn"],
        check: None,
    },
    Trigger {
        param: "leak",
        case: "kmemleak reports each of 16 leaked objects",
        detector: Some("kmemleak"),
        evidence: &["leaked object 15 at 0x"],
        check: Some(every_leaked_object_reported),
    },
    Trigger {
        param: "kasan",
        case: "KASAN reports a use-after-free",
        detector: Some("KASAN"),
        evidence: &["slab-use-after-free"],
        check: None,
    },
    Trigger {
        param: "overflow",
        case: "a Rust arithmetic overflow panics",
        detector: Some("Rust panic"),
        evidence: &["attempt to add with overflow"],
        check: None,
    },
];

/// The console lines between one trigger's begin and end markers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// The trigger's name, as the markers give it.
    pub trigger: String,
    /// The lines strictly between the markers.
    pub lines: Vec<String>,
    /// Whether the end marker came: without it the guest stopped during the trigger.
    pub ended: bool,
}

/// The marker's trigger name if `line` is a `marker` line (a console line ends with it, after
/// the printk timestamp).
fn marker<'a>(line: &'a str, marker: &str) -> Option<&'a str> {
    let at = line.find(marker)?;
    let name = line[at + marker.len()..].trim();
    (!name.is_empty() && !name.contains(' ')).then_some(name)
}

/// Cuts `console` at the markers: one segment per begin marker, running to its end marker (or,
/// without one, to the next begin marker or the end of the console).
pub fn segments(console: &str) -> Vec<Segment> {
    let mut out: Vec<Segment> = Vec::new();
    let mut open: Option<Segment> = None;
    for line in console.lines().map(|l| l.trim_end_matches('\r')) {
        if let Some(name) = marker(line, BEGIN) {
            out.extend(open.take());
            open = Some(Segment {
                trigger: name.to_string(),
                lines: Vec::new(),
                ended: false,
            });
        } else if let Some(name) = marker(line, END) {
            match open.take() {
                Some(mut s) if s.trigger == name => {
                    s.ended = true;
                    out.push(s);
                }
                other => open = other,
            }
        } else if let Some(s) = open.as_mut() {
            s.lines.push(line.to_string());
        }
    }
    out.extend(open);
    out
}

/// The case of trigger `t` given the console's segments.
pub fn verdict(t: &Trigger, segments: &[Segment], console: &Path) -> Case {
    let Some(seg) = segments.iter().find(|s| s.trigger == t.param) else {
        return Case::fail(
            t.case,
            format!("no `{BEGIN}{}` marker: the guest never ran it", t.param),
        )
        .with_details([format!("(console: {})", console.display())]);
    };
    let shown = || {
        let from = seg.lines.len().saturating_sub(DETAIL_LINES);
        std::iter::once(format!("--- segment of {} (last lines) ---", t.param))
            .chain(seg.lines[from..].iter().cloned())
            .chain([format!("(console: {})", console.display())])
    };
    if !seg.ended {
        return Case::fail(
            t.case,
            format!(
                "no `{END}{}` marker: the guest stopped during the trigger",
                t.param
            ),
        )
        .with_details(shown());
    }
    let text = seg.lines.join("\n");
    let findings = kernel_log::scan(&text);
    let found: Vec<&str> = findings.iter().map(|f| f.detector).collect();
    match t.detector {
        None if !findings.is_empty() => {
            return Case::fail(
                t.case,
                format!("reports in the control's segment: {}", found.join(", ")),
            )
            .with_details(shown())
        }
        Some(d) if !found.contains(&d) => {
            let other = if found.is_empty() {
                "no report at all".to_string()
            } else {
                format!("only {}", found.join(", "))
            };
            return Case::fail(
                t.case,
                format!("no {d} report between the markers ({other}): is the detector off?"),
            )
            .with_details(shown());
        }
        _ => {}
    }
    if let Some(e) = t.evidence.iter().find(|e| !text.contains(**e)) {
        return Case::fail(t.case, format!("the segment has no `{e}`")).with_details(shown());
    }
    match t.check.map_or(Ok(()), |check| check(&text)) {
        Ok(()) => Case::pass(t.case),
        Err(why) => Case::fail(t.case, why).with_details(shown()),
    }
}

/// The `leak` trigger logs `leaked object N at 0xADDR` per object; each address must come
/// back as an `unreferenced object 0xADDR` line of kmemleak's report, so a partial report (the
/// slab-sheaf blind spot hid 15 of 16) fails.
fn every_leaked_object_reported(text: &str) -> Result<(), String> {
    let after = |line: &str, key: &str| {
        let rest = &line[line.find(key)? + key.len()..];
        Some(rest.split([' ', ':']).next().unwrap_or(rest).to_string())
    };
    let leaked: Vec<String> = text
        .lines()
        .filter(|l| l.contains("leaked object "))
        .filter_map(|l| after(l, " at "))
        .collect();
    let reported: Vec<String> = text
        .lines()
        .filter_map(|l| after(l, "unreferenced object "))
        .collect();
    if leaked.is_empty() {
        return Err("the trigger logged no leaked object".into());
    }
    let missed: Vec<&String> = leaked.iter().filter(|a| !reported.contains(a)).collect();
    if missed.is_empty() {
        return Ok(());
    }
    Err(format!(
        "kmemleak reported {} of {} leaked objects; missed {}",
        leaked.len() - missed.len(),
        leaked.len(),
        missed
            .iter()
            .map(|a| a.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    ))
}

/// Runs the suite.
pub fn run(ctx: &Context, r: &mut Reporter) {
    let module = ctx.repo.join(MODULE);
    if !module.is_file() {
        return r.case(Case::fail(
            "trigger module",
            format!("{} is missing (make trigger-module)", module.display()),
        ));
    }
    let logs = ctx.log_dir("detectors");
    let (console, log) = (logs.join("console.log"), logs.join("output.log"));
    let names: Vec<&str> = TRIGGERS.iter().map(|t| t.param).collect();
    let mut cmd = ctx.vm_command();
    cmd.args(["-q", "--no-device", "--no-firmware", "--no-load"])
        .arg(format!("--timeout={GUEST_TIMEOUT_SECS}"))
        .arg(format!("--console={}", console.display()))
        .arg(format!("--module={}", module.display()))
        .arg(format!(
            "--guest-file={}:/tests/lib.sh",
            ctx.repo.join(LIB).display()
        ))
        .arg(format!(
            "--guest-file={}:/tests/detectors.sh",
            ctx.repo.join(SCRIPT).display()
        ))
        .args(["--", &format!("sh /tests/detectors.sh {}", names.join(" "))]);
    let boot = "the debug kernel boots and runs every trigger";
    match run_vm(
        "detectors",
        &mut cmd,
        &log,
        &[&console],
        VM_LIMIT,
        &mut |n| r.note(&n),
    ) {
        Ok(f) if f.success() => r.case(Case::pass(boot)),
        Ok(f) => {
            let mut details = tail(&log, 15);
            details.push("--- console (tail) ---".into());
            details.extend(tail(&console, 15));
            r.case(Case::fail(boot, exit_meaning(&f)).with_details(details));
        }
        Err(e) => r.case(Case::fail(boot, format!("{e:#}"))),
    }
    let text = String::from_utf8_lossy(&std::fs::read(&console).unwrap_or_default()).into_owned();
    let segs = segments(&text);
    for t in TRIGGERS {
        r.case(verdict(t, &segs, &console));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Status;

    const CONSOLE: &str = "/tmp/console.log";

    fn trigger(param: &str) -> &'static Trigger {
        TRIGGERS.iter().find(|t| t.param == param).unwrap()
    }

    fn begin(t: &str) -> String {
        format!("[   30.100000] {BEGIN}{t}")
    }

    fn end(t: &str) -> String {
        format!("[   31.200000] {END}{t}\r")
    }

    /// A console with one segment per `(trigger, body lines)`, boot noise around them.
    fn console(parts: &[(&str, &[&str])]) -> String {
        let mut lines = vec![
            "[    0.000000] Linux version 7.3.0".to_string(),
            "[    0.020000] ODEBUG: selftest passed".to_string(),
        ];
        for (t, body) in parts {
            lines.push(begin(t));
            lines.extend(body.iter().map(|l| l.to_string()));
            lines.push(end(t));
        }
        lines.push("[   90.0] reboot: Power down".into());
        lines.join("\n")
    }

    fn run_verdict(param: &str, text: &str) -> Case {
        verdict(trigger(param), &segments(text), Path::new(CONSOLE))
    }

    const KASAN: &[&str] = &[
        "[   40.1] ==================================================================",
        "[   40.1] BUG: KASAN: slab-use-after-free in triggers::use_after_free+0x9c/0x140 [xehpg_triggers]",
        "[   40.1] Read of size 8 at addr ffff888004c1e200 by task insmod/97",
    ];

    #[test]
    fn markers_cut_the_console_into_segments() {
        let text = console(&[
            ("none", &["[ 30.2] xehpg_triggers: trigger none"]),
            ("kasan", KASAN),
        ]);
        let segs = segments(&text);
        assert_eq!(segs.len(), 2);
        assert_eq!(segs[0].trigger, "none");
        assert_eq!(segs[0].lines, ["[ 30.2] xehpg_triggers: trigger none"]);
        assert!(segs[0].ended && segs[1].ended);
        assert_eq!(segs[1].lines.len(), KASAN.len());
        // Boot lines outside every segment belong to none.
        assert!(segs
            .iter()
            .all(|s| !s.lines.iter().any(|l| l.contains("ODEBUG"))));
    }

    #[test]
    fn a_segment_without_its_end_marker_stops_at_the_next_begin() {
        let text = [
            begin("warn"),
            "[ 31.0] oops".into(),
            begin("leak"),
            end("leak"),
        ]
        .join("\n");
        let segs = segments(&text);
        assert_eq!(segs.len(), 2);
        assert_eq!((segs[0].ended, segs[0].lines.len()), (false, 1));
        assert!(segs[1].ended);
        // A stray end marker of another trigger does not close the open segment.
        let text = [begin("warn"), end("leak"), "[ 31.0] x".into(), end("warn")].join("\n");
        let segs = segments(&text);
        assert_eq!(segs[0].lines, ["[ 31.0] x"]);
        assert!(segs[0].ended);
    }

    #[test]
    fn the_detector_in_its_own_segment_passes() {
        let text = console(&[("kasan", KASAN)]);
        assert_eq!(run_verdict("kasan", &text).status, Status::Pass);
    }

    #[test]
    fn a_detector_missing_from_its_segment_fails() {
        // The trigger ran and said so, but nothing reported: the detector is off.
        let text = console(&[("kasan", &["[ 40.0] xehpg_triggers: trigger kasan"])]);
        let c = run_verdict("kasan", &text);
        assert!(c.is_failure());
        assert!(matches!(&c.status, Status::Fail(r) if r.contains("no KASAN report")));
        assert!(c.details.iter().any(|l| l.contains("trigger kasan")));
    }

    #[test]
    fn a_report_in_another_segment_does_not_count() {
        // The KASAN report landed in the warn segment (e.g. a late report): kasan still fails.
        let text = console(&[("warn", KASAN), ("kasan", &[])]);
        assert!(run_verdict("kasan", &text).is_failure());
    }

    #[test]
    fn a_trigger_that_never_ran_or_never_ended_fails() {
        let text = console(&[("none", &[])]);
        let c = run_verdict("lockdep", &text);
        assert!(matches!(&c.status, Status::Fail(r) if r.contains("never ran")));
        let cut = [
            begin("overflow"),
            "[ 50.0] rust_kernel: panicked at triggers.rs:1:1:".into(),
        ]
        .join("\n");
        let c = run_verdict("overflow", &cut);
        assert!(matches!(&c.status, Status::Fail(r) if r.contains("stopped during")));
    }

    #[test]
    fn the_wrong_detector_or_missing_evidence_fails() {
        // A WARN where lockdep was expected is not lockdep.
        let warn = "[ 31.0] WARNING: glue.c:70 at xehpg_trigger_warn+0x1/0x2, CPU#0: insmod/90";
        assert!(run_verdict("lockdep", &console(&[("lockdep", &[warn])])).is_failure());
        // A lockdep report about other locks is not the trigger's.
        let other = [
            "[ 31.0] WARNING: possible circular locking dependency detected",
            "[ 31.0] (&dev->mutex){+.+.}-{4:4}",
        ];
        let c = run_verdict("lockdep", &console(&[("lockdep", &other)]));
        assert!(matches!(&c.status, Status::Fail(r) if r.contains("xehpg_trigger_lock_a")));
        let ours = [
            other[0],
            "[ 31.0] (xehpg_trigger_lock_a){+.+.}-{3:3}, at: triggers::lock_order_inversion",
            "[ 31.0] but task is already holding lock: (xehpg_trigger_lock_b){+.+.}-{3:3}",
        ];
        assert_eq!(
            run_verdict("lockdep", &console(&[("lockdep", &ours)])).status,
            Status::Pass
        );
    }

    #[test]
    fn every_leaked_object_must_be_reported() {
        let leaked: Vec<String> = (0..16)
            .map(|i| format!("[ 29.2] xehpg_triggers: leaked object {i} at 0xffff888005063{i:x}00"))
            .collect();
        let entry = |i: usize| {
            format!(
                "[ 49.2] kmemleak-report: unreferenced object 0xffff888005063{i:x}00 (size 512):"
            )
        };
        let seg = |reported: std::ops::Range<usize>| {
            let mut lines = leaked.clone();
            lines.push("[ 49.1] kmemleak: 15 new suspected memory leaks".into());
            lines.extend(reported.map(entry));
            let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
            run_verdict("leak", &console(&[("leak", &refs)]))
        };
        // 15 of 16: the one left out is named.
        let c = seg(1..16);
        assert!(
            matches!(&c.status, Status::Fail(r) if r.contains("15 of 16") && r.contains("0xffff88800506300")),
            "{:?}",
            c.status
        );
        assert_eq!(seg(0..16).status, Status::Pass);
        // Sixteen reports of other objects do not stand in for the trigger's.
        let mut other = leaked.join("\n");
        for i in 0..16 {
            other.push_str(&format!(
                "\nunreferenced object 0xffff888007000{i:x}00 (size 512):"
            ));
        }
        assert!(every_leaked_object_reported(&other).is_err());
        assert!(every_leaked_object_reported("no trigger output").is_err());
    }

    #[test]
    fn the_control_segment_must_be_clean() {
        let quiet = [
            "[ 30.2] xehpg_triggers: trigger none",
            "[ 30.2] xehpg_triggers: debug_assertions on",
        ];
        assert_eq!(
            run_verdict("none", &console(&[("none", &quiet)])).status,
            Status::Pass
        );
        // A module built without CONFIG_RUST_DEBUG_ASSERTIONS says so, and fails.
        let off = [quiet[0], "[ 30.2] xehpg_triggers: debug_assertions off"];
        assert!(run_verdict("none", &console(&[("none", &off)])).is_failure());
        let noisy = [
            quiet[0],
            quiet[1],
            "[ 30.3] WARNING: CPU: 1 PID: 7 at kernel/x.c:1 f+0x0/0x1",
        ];
        let c = run_verdict("none", &console(&[("none", &noisy)]));
        assert!(matches!(&c.status, Status::Fail(r) if r.contains("WARN")));
    }

    #[test]
    fn every_trigger_names_a_known_detector_and_is_unique() {
        for t in TRIGGERS {
            if let Some(d) = t.detector {
                assert!(
                    kernel_log::DETECTORS.iter().any(|k| k.name == d),
                    "{}: no detector {d}",
                    t.param
                );
            }
            assert!(!t.evidence.is_empty(), "{}", t.param);
            assert_eq!(TRIGGERS.iter().filter(|o| o.param == t.param).count(), 1);
        }
        // The overflow panic kills the loading task: nothing may come after it.
        assert_eq!(TRIGGERS.last().map(|t| t.param), Some("overflow"));
    }
}
