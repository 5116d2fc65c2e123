//! Preparing the VM console for `kunit.py`, and reading its report back.
//!
//! The console holds several KTAP documents: one at boot for the kernel's
//! built-in suites (lib/kunit/executor.c, `kunit_exec_run_tests`; `1..0` when
//! there are none) and one per loaded module with suites. kunit.py reads only
//! the first document of its input, so [`driver_documents`] cuts the console
//! into documents and keeps those holding an `xehpg` suite.

/// The KTAP documents of `console` that contain an `xehpg*` suite; if none
/// does, every document with a suite; if there is none, the whole console (so
/// kunit.py still reports what it could not find).
pub fn driver_documents(console: &str) -> Vec<String> {
    let docs = documents(console);
    let with_suite = |name: &str| -> Vec<String> {
        docs.iter()
            .filter(|d| d.lines().any(|l| is_subtest(l, name)))
            .cloned()
            .collect()
    };
    let driver = with_suite("xehpg");
    if !driver.is_empty() {
        return driver;
    }
    let any = with_suite("");
    if !any.is_empty() {
        return any;
    }
    vec![console.to_string()]
}

/// Splits at top-level `KTAP version` lines (printk prefix allowed, no
/// indentation); text before the first one is dropped.
fn documents(console: &str) -> Vec<String> {
    let mut docs: Vec<String> = Vec::new();
    for line in console.lines() {
        if body(line).starts_with("KTAP version ") {
            docs.push(String::new());
        }
        if let Some(doc) = docs.last_mut() {
            doc.push_str(line);
            doc.push('\n');
        }
    }
    docs
}

/// `# Subtest: NAME...` at any indentation, with NAME starting with `prefix`.
fn is_subtest(line: &str, prefix: &str) -> bool {
    body(line)
        .trim_start()
        .strip_prefix("# Subtest: ")
        .is_some_and(|name| name.starts_with(prefix))
}

/// A console line without its printk timestamp and trailing whitespace.
fn body(line: &str) -> &str {
    let line = line.trim_end();
    match line
        .strip_prefix('[')
        .and_then(|rest| rest.split_once("] "))
    {
        Some((stamp, rest)) if stamp.trim().chars().all(|c| c.is_ascii_digit() || c == '.') => rest,
        _ => line,
    }
}

/// The log lines kunit.py printed for a failed `test` (the lines between the
/// previous verdict and `[FAILED] test` / `[CRASHED] test`), without
/// kunit.py's `[hh:mm:ss] ` prefixes.
pub fn failure_log(report: &str, test: &str) -> Vec<String> {
    let lines: Vec<&str> = report.lines().map(strip_clock).collect();
    let verdict = |l: &&str| *l == format!("[FAILED] {test}") || *l == format!("[CRASHED] {test}");
    let Some(end) = lines.iter().position(verdict) else {
        return Vec::new();
    };
    let start = lines[..end]
        .iter()
        .rposition(|l| is_boundary(l))
        .map_or(0, |i| i + 1);
    lines[start..end].iter().map(|l| l.to_string()).collect()
}

/// kunit.py lines that end one test's log: verdicts and suite rulers.
fn is_boundary(line: &str) -> bool {
    ["[PASSED]", "[FAILED]", "[SKIPPED]", "[CRASHED]", "="]
        .iter()
        .any(|p| line.starts_with(p))
}

/// `[00:37:30] text` → `text`.
fn strip_clock(line: &str) -> &str {
    let bytes = line.as_bytes();
    let stamped = bytes.len() >= 11 && bytes[0] == b'[' && bytes[9] == b']' && bytes[10] == b' ';
    if stamped {
        &line[11..]
    } else {
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONSOLE: &str = "\
[    0.4] boot
[    1.7] KTAP version 1
[    1.7] 1..1
[    1.7]     KTAP version 1
[    1.7]     # Subtest: rust_kernel_fmt
[    1.7]     1..1
[    1.7]     ok 1 test_ptr_formatting
[    1.7] ok 1 rust_kernel_fmt
[    1.9] Run /init as init process
[    2.1] KTAP version 1
[    2.1] 1..1
[    2.1]     KTAP version 1
[    2.1]     # Subtest: xehpg_lmem
[    2.1]     1..1
[    2.1]     ok 1 small_bar
[    2.1] ok 1 xehpg_lmem
XEHPG-VM-EXIT=0
";

    #[test]
    fn the_driver_document_is_picked() {
        let docs = driver_documents(CONSOLE);
        assert_eq!(docs.len(), 1);
        assert!(docs[0].starts_with("[    2.1] KTAP version 1\n[    2.1] 1..1\n"));
        assert!(docs[0].contains("# Subtest: xehpg_lmem"));
        assert!(!docs[0].contains("rust_kernel_fmt"));
    }

    #[test]
    fn without_a_driver_suite_every_suite_document_is_kept() {
        let console = CONSOLE.replace("xehpg_lmem", "other");
        assert_eq!(driver_documents(&console).len(), 2);
        let empty = "[ 1.0] KTAP version 1\n[ 1.0] 1..0\nno tests\n";
        assert_eq!(driver_documents(empty), [empty]);
        assert_eq!(driver_documents("plain boot log\n"), ["plain boot log\n"]);
    }

    #[test]
    fn failure_log_is_the_tests_own_lines() {
        let report = "[00:37:30] ======== xehpg_regs (3 subtests) ========\n\
                      [00:37:30] [PASSED] gu_cntl_fields\n\
                      [00:37:30] # bad_one: ASSERTION FAILED at rust/regs.rs:80\n\
                      [00:37:30] Expected 1 == 2\n\
                      [00:37:30] [FAILED] bad_one\n\
                      [00:37:30] [CRASHED] lost\n";
        assert_eq!(
            failure_log(report, "bad_one"),
            [
                "# bad_one: ASSERTION FAILED at rust/regs.rs:80",
                "Expected 1 == 2"
            ]
        );
        assert!(failure_log(report, "lost").is_empty());
        assert!(failure_log(report, "absent").is_empty());
    }
}
