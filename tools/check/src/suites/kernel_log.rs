//! The debug lane's `<run>: kernel log clean` assertion.
//!
//! On the debug kernel (tools/kernel-debug.config) the kernel's own bug
//! detectors print their reports on the console. [`DETECTORS`] is the one
//! table of what counts as a report; [`case`] scans a run's console with it
//! and fails showing every report's lines. Leaks are found only when asked
//! for: [`EPILOGUE`] (appended to the guest command) unloads the driver and
//! has kmemleak scan, and copies kmemleak's report onto the console.

use crate::report::Case;
use std::path::Path;

/// One kind of report: a name for the verdict, and the console line
/// fragments that start one (matched anywhere in a line, case-sensitive).
pub struct Detector {
    /// Short name, shown in the failure reason.
    pub name: &'static str,
    /// Fragments, any of which marks the line as a report.
    pub patterns: &'static [&'static str],
}

/// Every detector, most specific first: a line is counted under the first
/// one that matches (a KASAN report starts with `BUG:` too).
///
/// Where each report is printed, in the 7.3 tree: KASAN `mm/kasan/report.c`
/// (`print_error_description`), UBSAN `lib/ubsan.c` (`ubsan_prologue`), the
/// lockdep reports `kernel/locking/lockdep.c` (`print_circular_bug_header`,
/// `print_usage_bug`, ...), `__might_resched` in `kernel/sched/core.c`,
/// `debug_print_object` in `lib/debugobjects.c`, `lib/list_debug.c`, the
/// Rust panic handler `rust/kernel/lib.rs` (`panic`), `__warn` in
/// `kernel/panic.c`, `die` in `arch/x86/kernel/dumpstack.c`, and the
/// kmemleak lines [`EPILOGUE`] copies from `/sys/kernel/debug/kmemleak`
/// (`print_unreferenced` in `mm/kmemleak.c`) or that its scan prints.
pub const DETECTORS: &[Detector] = &[
    Detector {
        name: "KASAN",
        patterns: &["BUG: KASAN: "],
    },
    Detector {
        name: "UBSAN",
        patterns: &["UBSAN: "],
    },
    Detector {
        name: "sleep in atomic context",
        patterns: &[
            "BUG: sleeping function called from invalid context",
            "BUG: scheduling while atomic",
        ],
    },
    Detector {
        name: "lockdep",
        patterns: &[
            "WARNING: possible ",
            "WARNING: inconsistent lock state",
            "WARNING: suspicious RCU usage",
            "WARNING: bad unlock balance detected",
            "WARNING: held lock freed",
            "BUG: held lock freed",
            "INFO: possible recursive locking",
        ],
    },
    Detector {
        name: "debugobjects",
        patterns: &["ODEBUG: "],
    },
    Detector {
        name: "list corruption",
        patterns: &["list_add corruption", "list_del corruption"],
    },
    Detector {
        name: "Rust panic",
        patterns: &["panicked at "],
    },
    Detector {
        name: "kmemleak",
        patterns: &["unreferenced object 0x", "new suspected memory leaks"],
    },
    Detector {
        name: "leak scan incomplete",
        patterns: &[
            "debug-epilogue: rmmod xehpg failed",
            "debug-epilogue: no ",
            "debug-epilogue: kmemleak scan failed",
        ],
    },
    Detector {
        name: "BUG",
        patterns: &["BUG: ", "kernel BUG at "],
    },
    Detector {
        name: "WARN",
        patterns: &["WARNING: "],
    },
    Detector {
        name: "Oops",
        patterns: &["Oops: ", "Kernel panic - not syncing"],
    },
];

/// Lines that match a detector's words but report nothing: the detectors
/// announcing themselves at boot.
const BENIGN: &[&str] = &["ODEBUG: selftest passed"];

/// Console lines shown per report (its first line and what follows it: the
/// access, the locks held, the backtrace).
const REPORT_LINES: usize = 12;

/// At most this many console lines under one failure.
const MAX_DETAIL_LINES: usize = 80;

/// Guest commands appended after the test in the debug lane, in a shell
/// where `tools/guest/lib.sh` is at `/tests/lib.sh`: unload the driver, scan
/// for leaks, put the report on the console. Keeps the test's exit status.
pub const EPILOGUE: &str = "_rc=$?; . /tests/lib.sh >/dev/null; debug_epilogue; exit $_rc";

/// Printed by the epilogue (`debug_leak_scan` in `tools/guest/lib.sh`) only
/// when both kmemleak scans and the read of the report succeeded.
pub const SCANNED: &str = "debug-epilogue: kmemleak scanned";

/// One report found on the console.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The detector's name.
    pub detector: &'static str,
    /// 1-based line number in the console.
    pub line: usize,
    /// The report's first line and those after it (up to [`REPORT_LINES`]).
    pub lines: Vec<String>,
}

/// The first detector matching `line`, unless the line is benign.
pub fn classify(line: &str) -> Option<&'static str> {
    if BENIGN.iter().any(|b| line.contains(b)) {
        return None;
    }
    DETECTORS
        .iter()
        .find(|d| d.patterns.iter().any(|p| line.contains(p)))
        .map(|d| d.name)
}

/// Every report in `console`. Lines inside an earlier report's window (a
/// KASAN report's own `WARNING:`-free body, a backtrace) start a report of
/// their own only if they match a detector.
pub fn scan(console: &str) -> Vec<Finding> {
    let lines: Vec<&str> = console.lines().map(|l| l.trim_end_matches('\r')).collect();
    lines
        .iter()
        .enumerate()
        .filter_map(|(i, l)| {
            classify(l).map(|detector| Finding {
                detector,
                line: i + 1,
                lines: lines[i..lines.len().min(i + REPORT_LINES)]
                    .iter()
                    .map(|s| s.to_string())
                    .collect(),
            })
        })
        .collect()
}

/// `<prefix>: kernel log clean`: no detector report in the console at `path`.
pub fn case(prefix: &str, path: &Path) -> Case {
    let name = format!("{prefix}: kernel log clean");
    let text = match std::fs::read(path) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) => return Case::fail(name, format!("no console log at {} ({e})", path.display())),
    };
    if !text.contains("debug-epilogue: done") {
        // Without the epilogue's marker no leak scan ran: a clean log would
        // claim more than was checked.
        return Case::fail(
            name,
            "the guest never reached the debug epilogue (no leak scan ran)",
        )
        .with_details(crate::report::tail(path, 15));
    }
    let findings = scan(&text);
    if findings.is_empty() && !text.contains(SCANNED) {
        // The epilogue ran but never said its scan succeeded (a lib.sh
        // that lost the line, a scan that ended some other way): a clean
        // log would again claim a leak scan that did not happen.
        return Case::fail(
            name,
            "the debug epilogue ran but no kmemleak scan succeeded",
        )
        .with_details(crate::report::tail(path, 15));
    }
    verdict(name, &findings, path)
}

fn verdict(name: String, findings: &[Finding], path: &Path) -> Case {
    if findings.is_empty() {
        return Case::pass(name);
    }
    let mut kinds: Vec<(&str, usize)> = Vec::new();
    for f in findings {
        match kinds.iter_mut().find(|(k, _)| *k == f.detector) {
            Some((_, n)) => *n += 1,
            None => kinds.push((f.detector, 1)),
        }
    }
    let reason = kinds
        .iter()
        .map(|(k, n)| format!("{k} x{n}"))
        .collect::<Vec<_>>()
        .join(", ");
    let mut details = Vec::new();
    for f in findings {
        if details.len() >= MAX_DETAIL_LINES {
            details.push(format!("... more reports in {}", path.display()));
            break;
        }
        details.push(format!("--- {} (console line {}) ---", f.detector, f.line));
        details.extend(f.lines.iter().cloned());
    }
    details.push(format!("(console: {})", path.display()));
    Case::fail(name, format!("detector reports: {reason}")).with_details(details)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Real report lines (first lines as the 7.3 kernel prints them, with
    /// printk timestamps), one or more per detector.
    const FIXTURES: &[(&str, &str)] = &[
        (
            "[   12.345678] BUG: KASAN: slab-use-after-free in xehpg_remove+0x5c/0x120 [xehpg]",
            "KASAN",
        ),
        (
            "[    3.100000] BUG: KASAN: global-out-of-bounds in kasan_global_oob_right+0x1b4/0x250",
            "KASAN",
        ),
        (
            "[    4.000001] UBSAN: shift-out-of-bounds in drivers/gpu/x.c:12:5",
            "UBSAN",
        ),
        (
            "[    4.000001] UBSAN: array-index-out-of-bounds in lib/test_ubsan.c:93:9",
            "UBSAN",
        ),
        (
            "[    9.1] BUG: sleeping function called from invalid context at kernel/locking/mutex.c:580",
            "sleep in atomic context",
        ),
        (
            "[    9.1] BUG: scheduling while atomic: insmod/75/0x00000002",
            "sleep in atomic context",
        ),
        (
            "[   20.0] WARNING: possible circular locking dependency detected",
            "lockdep",
        ),
        ("[   20.0] WARNING: possible recursive locking detected", "lockdep"),
        (
            "[   20.0] WARNING: possible irq lock inversion dependency detected",
            "lockdep",
        ),
        ("[   20.0] WARNING: inconsistent lock state", "lockdep"),
        ("[   20.0] WARNING: suspicious RCU usage", "lockdep"),
        ("[   20.0] WARNING: bad unlock balance detected!", "lockdep"),
        (
            "[    7.7] ODEBUG: free active (active state 0) object: ffff888003a1c0b8 object type: timer_list hint: xehpg_tick+0x0/0x10 [xehpg]",
            "debugobjects",
        ),
        (
            "[    7.7] list_add corruption. prev->next should be next (ffff888004b2c0a0), but was 0000000000000000. (prev=ffff888004b2c0a0).",
            "list corruption",
        ),
        (
            "[    7.7] list_del corruption, ffff888004b2c0a0->next is LIST_POISON1 (dead000000000100)",
            "list corruption",
        ),
        (
            "[    5.2] rust_kernel: panicked at rust/gt/guc.rs:120:9:",
            "Rust panic",
        ),
        (
            "unreferenced object 0xffff888003f1e600 (size 64):",
            "kmemleak",
        ),
        (
            "[   30.1] kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)",
            "kmemleak",
        ),
        (
            "[   31.0] debug-epilogue: rmmod xehpg failed",
            "leak scan incomplete",
        ),
        (
            "[   31.0] debug-epilogue: kmemleak scan failed",
            "leak scan incomplete",
        ),
        (
            "[    6.0] BUG: unable to handle page fault for address: ffffc90000400000",
            "BUG",
        ),
        ("[    6.0] kernel BUG at lib/list_debug.c:62!", "BUG"),
        (
            "[    6.0] BUG: workqueue leaked atomic, lock or RCU: kworker/0:1[17]",
            "BUG",
        ),
        (
            "[    8.8] WARNING: CPU: 1 PID: 88 at drivers/base/devres.c:1064 devm_kfree+0x4c/0x60",
            "WARN",
        ),
        (
            "[    8.8] WARNING: mm/slub.c:4800 at kfree+0x1/0x2, CPU#0: rmmod/90",
            "WARN",
        ),
        (
            "[    8.9] Oops: general protection fault, probably for non-canonical address 0xdffffc0000000000: 0000 [#1] SMP KASAN",
            "Oops",
        ),
        (
            "[    8.9] Kernel panic - not syncing: Fatal exception",
            "Oops",
        ),
    ];

    /// Boot and driver lines a clean debug run prints, some with a
    /// detector's words in them.
    const CLEAN: &[&str] = &[
        "[    0.000000] kasan: KernelAddressSanitizer initialized (generic)",
        "[    0.010000] Lock dependency validator: Copyright (c) 2006 Red Hat, Inc., Ingo Molnar",
        "[    0.010000] ... MAX_LOCKDEP_SUBCLASSES:  8",
        "[    0.020000] ODEBUG: selftest passed",
        "[    0.030000] kmemleak: Kernel memory leak detector initialized (mem pool available: 15769)",
        "[    0.040000] rcu: RCU lockdep checking is enabled.",
        "[    2.000000] xehpg 0000:00:03.0: GuC loaded",
        "[    2.500000] xehpg 0000:00:03.0: probe failed: device reads all ones (-19)",
    ];

    #[test]
    fn every_fixture_is_caught_by_its_detector() {
        for (line, want) in FIXTURES {
            assert_eq!(classify(line), Some(*want), "{line}");
        }
        // Every detector has a fixture, so none is silently unreachable.
        for d in DETECTORS {
            assert!(
                FIXTURES.iter().any(|(_, n)| *n == d.name),
                "no fixture for {}",
                d.name
            );
        }
    }

    #[test]
    fn clean_boot_lines_are_not_reports() {
        for line in CLEAN {
            assert_eq!(classify(line), None, "{line}");
        }
    }

    #[test]
    fn scan_keeps_each_report_with_its_following_lines() {
        let mut console = String::from("[ 0.1] boot\r\n");
        console.push_str(FIXTURES[0].0);
        console.push('\n');
        for i in 0..20 {
            console.push_str(&format!("[ 12.4] frame {i}\n"));
        }
        console.push_str(
            "[ 13.0] kmemleak: 1 new suspected memory leaks (see /sys/kernel/debug/kmemleak)\n",
        );
        let found = scan(&console);
        assert_eq!(found.len(), 2);
        assert_eq!((found[0].detector, found[0].line), ("KASAN", 2));
        assert_eq!(found[0].lines.len(), REPORT_LINES);
        assert_eq!(found[0].lines[1], "[ 12.4] frame 0");
        assert_eq!((found[1].detector, found[1].lines.len()), ("kmemleak", 1));
    }

    fn console_file(tag: &str, text: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("xehpg-klog-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("console.log");
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn case_passes_clean_logs_and_shows_reports() {
        let clean = console_file(
            "clean",
            &format!("{}\n{SCANNED}\ndebug-epilogue: done\n", CLEAN.join("\n")),
        );
        assert_eq!(case("bind", &clean), Case::pass("bind: kernel log clean"));
        let text = format!(
            "{}\n{}\n[ 9.0] lock A\ndebug-epilogue: done\n",
            FIXTURES[6].0, FIXTURES[23].0
        );
        let dirty = case("bind", &console_file("dirty", &text));
        assert_eq!(
            dirty.status,
            crate::report::Status::Fail("detector reports: lockdep x1, WARN x1".into())
        );
        assert!(dirty.details.iter().any(|l| l == FIXTURES[6].0));
        assert!(dirty.details.iter().any(|l| l == "[ 9.0] lock A"));
        assert!(dirty.details[0].starts_with("--- lockdep (console line 1)"));
        // A run that never reached the leak scan is not clean.
        let cut = case("bind", &console_file("cut", CLEAN[0]));
        assert!(cut.is_failure());
        // Nor one whose epilogue ran but whose scan did not succeed: the
        // scan failed (a report of its own), kmemleak was absent, or the
        // success line is simply not there.
        for (tag, line, why) in [
            (
                "failed",
                "debug-epilogue: kmemleak scan failed",
                "detector reports: leak scan incomplete x1",
            ),
            (
                "absent",
                "debug-epilogue: no /sys/kernel/debug/kmemleak (kernel without kmemleak?)",
                "detector reports: leak scan incomplete x1",
            ),
            (
                "silent",
                "[ 9.0] nothing about the scan",
                "the debug epilogue ran but no kmemleak scan succeeded",
            ),
        ] {
            let text = format!("{}\n{line}\ndebug-epilogue: done\n", CLEAN.join("\n"));
            let c = case("bind", &console_file(tag, &text));
            assert_eq!(c.status, crate::report::Status::Fail(why.into()), "{tag}");
        }
        assert!(case("bind", Path::new("/nonexistent/console.log")).is_failure());
    }
}
