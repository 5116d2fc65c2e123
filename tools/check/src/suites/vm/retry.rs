//! One more try for a VM run whose guest hung while booting.
//!
//! Under TCG on a loaded machine a guest kernel now and then hangs in early
//! boot, before its /init starts the command; `tools/vm/run` then stops after
//! its `--boot-timeout` with [`VM_EXIT_BOOT_HANG`]. The test never ran, so
//! the run is repeated once, with the first run's logs kept aside. Nothing
//! else is retried: a failing test, a command timeout (124), a guest that
//! reported no status (125) are results.

use anyhow::Result;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use xehpg_common::process::{run_logged, Finished};

/// Exit status of `tools/vm/run` when the guest's boot hung: no BEGIN
/// marker within its `--boot-timeout`, so the command never started.
pub const VM_EXIT_BOOT_HANG: i32 = 126;

/// Prefix of the first run's logs when it is retried.
const HUNG_PREFIX: &str = "hung-";

/// Whether a finished run gets another try: only when the boot hung.
pub fn boot_hung(f: &Finished) -> bool {
    !f.timed_out && f.code() == Some(VM_EXIT_BOOT_HANG)
}

/// Runs `cmd` (a `tools/vm/run`) like [`run_logged`]; if the guest's boot
/// hung, renames `log` and the run's other `outputs` to `hung-<name>`, tells
/// `note` so and runs it once more. Returns the last run.
pub fn run_vm(
    what: &str,
    cmd: &mut Command,
    log: &Path,
    outputs: &[&Path],
    limit: Duration,
    note: &mut dyn FnMut(String),
) -> Result<Finished> {
    let first = run_logged(cmd, log, limit)?;
    if !boot_hung(&first) {
        return Ok(first);
    }
    let kept = keep_aside(std::iter::once(log).chain(outputs.iter().copied()));
    note(format!(
        "{what}: the guest's boot hung (exit {VM_EXIT_BOOT_HANG}), so its test never ran; \
         running it once more (first run's logs: {})",
        kept.iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(" ")
    ));
    run_logged(cmd, log, limit)
}

/// Renames each existing file to `hung-<name>` beside it; returns the new paths.
fn keep_aside<'a>(files: impl Iterator<Item = &'a Path>) -> Vec<PathBuf> {
    files
        .filter_map(|file| {
            let name = file.file_name()?.to_string_lossy();
            let kept = file.with_file_name(format!("{HUNG_PREFIX}{name}"));
            std::fs::rename(file, &kept).ok().map(|()| kept)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::ExitStatusExt;
    use std::process::ExitStatus;

    fn finished(code: i32, timed_out: bool) -> Finished {
        Finished {
            status: Some(ExitStatus::from_raw(code << 8)),
            timed_out,
            limit: Duration::from_secs(10),
            log: PathBuf::from("/nonexistent/vm.log"),
        }
    }

    #[test]
    fn only_a_boot_hang_is_retried() {
        assert!(boot_hung(&finished(VM_EXIT_BOOT_HANG, false)));
        for code in [0, 1, 2, 124, 125, 130] {
            assert!(!boot_hung(&finished(code, false)), "{code}");
        }
        // Killed by the harness's own limit: not the runner's verdict.
        assert!(!boot_hung(&finished(VM_EXIT_BOOT_HANG, true)));
        let signalled = Finished {
            status: Some(ExitStatus::from_raw(9)),
            ..finished(0, false)
        };
        assert!(!boot_hung(&signalled));
    }

    /// A stand-in for `tools/vm/run`: exits with the first of `codes` not yet
    /// used (counted in a file), writing a console log each time.
    fn fake_vm(dir: &Path, codes: &[i32]) -> Command {
        let script = format!(
            "n=$(cat {d}/n 2>/dev/null || echo 0); echo $((n + 1)) > {d}/n; \
             echo run $n > {d}/console.log; echo vm run $n; \
             set -- {codes}; shift $n; exit $1",
            d = dir.display(),
            codes = codes
                .iter()
                .map(i32::to_string)
                .collect::<Vec<_>>()
                .join(" ")
        );
        let mut cmd = Command::new("sh");
        cmd.args(["-c", &script]);
        cmd
    }

    fn run_fake(name: &str, codes: &[i32]) -> (PathBuf, Finished, Vec<String>) {
        let dir =
            std::env::temp_dir().join(format!("xehpg-check-retry-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let (log, console) = (dir.join("vm.log"), dir.join("console.log"));
        let mut notes = Vec::new();
        let f = run_vm(
            "probe",
            &mut fake_vm(&dir, codes),
            &log,
            &[&console, &dir.join("absent.json")],
            Duration::from_secs(30),
            &mut |n| notes.push(n),
        )
        .unwrap();
        (dir, f, notes)
    }

    fn read(path: PathBuf) -> String {
        std::fs::read_to_string(path).unwrap_or_default()
    }

    #[test]
    fn a_boot_hang_runs_once_more_and_keeps_the_first_logs() {
        let (dir, f, notes) = run_fake("hang", &[VM_EXIT_BOOT_HANG, 0]);
        assert!(f.success());
        assert_eq!(notes.len(), 1);
        assert!(
            notes[0].starts_with("probe: the guest's boot hung"),
            "{notes:?}"
        );
        assert!(notes[0].contains(&dir.join("hung-console.log").display().to_string()));
        assert_eq!(read(dir.join("hung-console.log")), "run 0\n");
        assert!(read(dir.join("hung-vm.log")).contains("vm run 0"));
        assert_eq!(read(dir.join("console.log")), "run 1\n");
        assert!(read(dir.join("vm.log")).contains("vm run 1"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_second_boot_hang_is_the_result() {
        let (dir, f, notes) = run_fake("twice", &[VM_EXIT_BOOT_HANG, VM_EXIT_BOOT_HANG, 0]);
        assert_eq!(f.code(), Some(VM_EXIT_BOOT_HANG));
        assert_eq!(notes.len(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn other_failures_are_not_retried() {
        for code in [1, 124, 125] {
            let (dir, f, notes) = run_fake(&format!("fail{code}"), &[code, 0]);
            assert_eq!(f.code(), Some(code));
            assert!(notes.is_empty());
            assert!(!dir.join("hung-console.log").exists());
            std::fs::remove_dir_all(&dir).unwrap();
        }
    }
}
