//! Running subprocesses with their output in a log file and a time limit.
//!
//! Every command a suite runs writes its stdout and stderr into one log under
//! `build/check-logs/<suite>/`, headed by the command line, so a failure can
//! show the log's tail and CI keeps the whole of it. A command that outlives
//! its limit gets SIGTERM (so a VM runner can stop QEMU and the mock), then
//! SIGKILL after a grace period.

use anyhow::{Context as _, Result};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

/// How long a command has between SIGTERM and SIGKILL.
const GRACE: Duration = Duration::from_secs(10);

/// How often a running command is polled for its exit.
const POLL: Duration = Duration::from_millis(100);

/// How a logged command ended.
#[derive(Debug)]
pub struct Finished {
    /// Exit status; `None` if it could not be collected.
    pub status: Option<ExitStatus>,
    /// Whether the command was stopped for exceeding its limit.
    pub timed_out: bool,
    /// The limit it ran under.
    pub limit: Duration,
    /// The log holding its output.
    pub log: PathBuf,
}

impl Finished {
    /// Whether it exited with status 0 in time.
    pub fn success(&self) -> bool {
        !self.timed_out && self.status.is_some_and(|s| s.success())
    }

    /// Exit code, if it exited rather than being killed.
    pub fn code(&self) -> Option<i32> {
        self.status.and_then(|s| s.code())
    }

    /// One phrase for messages: "exit status 2", "timed out after 300 s".
    pub fn describe(&self) -> String {
        if self.timed_out {
            return format!("timed out after {} s", self.limit.as_secs());
        }
        match self.status {
            Some(s) => s.to_string(),
            None => "exit status unknown".to_string(),
        }
    }
}

/// Runs `cmd` with stdout and stderr appended to `log`, killed after `limit`.
pub fn run_logged(cmd: &mut Command, log: &Path, limit: Duration) -> Result<Finished> {
    let out = open_log(cmd, log)?;
    let err = out.try_clone().context("duplicating the log handle")?;
    cmd.stdout(out).stderr(err);
    run(cmd, log, limit)
}

/// Runs `cmd` with stdout into `stdout` and stderr into `log`, killed after `limit`.
pub fn run_split(
    cmd: &mut Command,
    stdout: &Path,
    log: &Path,
    limit: Duration,
) -> Result<Finished> {
    let err = open_log(cmd, log)?;
    let out = File::create(stdout).with_context(|| format!("creating {}", stdout.display()))?;
    cmd.stdout(out).stderr(err);
    run(cmd, log, limit)
}

/// Creates `log`, headed by the command line.
fn open_log(cmd: &Command, log: &Path) -> Result<File> {
    if let Some(dir) = log.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let mut f = File::create(log).with_context(|| format!("creating {}", log.display()))?;
    // Debug output of a Command is a shell line, `cd DIR && ` included.
    writeln!(f, "$ {cmd:?}")?;
    Ok(f)
}

fn run(cmd: &mut Command, log: &Path, limit: Duration) -> Result<Finished> {
    cmd.stdin(Stdio::null());
    let mut child = cmd
        .spawn()
        .with_context(|| format!("starting {:?}", cmd.get_program()))?;
    let (status, timed_out) = wait_limited(&mut child, limit)?;
    Ok(Finished {
        status,
        timed_out,
        limit,
        log: log.to_path_buf(),
    })
}

/// Waits for `child` up to `limit`, then terminates it.
fn wait_limited(child: &mut Child, limit: Duration) -> Result<(Option<ExitStatus>, bool)> {
    let start = Instant::now();
    while start.elapsed() < limit {
        if let Some(status) = child.try_wait()? {
            return Ok((Some(status), false));
        }
        sleep(POLL);
    }
    terminate(child);
    let grace_end = Instant::now() + GRACE;
    while Instant::now() < grace_end {
        if let Some(status) = child.try_wait()? {
            return Ok((Some(status), true));
        }
        sleep(POLL);
    }
    // Already gone is fine: it then has nothing left to kill.
    let _ = child.kill();
    Ok((child.wait().ok(), true))
}

/// Sends SIGTERM to `child` (std only offers SIGKILL).
fn terminate(child: &Child) {
    // A failure here only means SIGKILL follows sooner.
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("xehpg-check-proc-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn output_and_status_land_in_the_log() {
        let dir = scratch("ok");
        let log = dir.join("a.log");
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "echo out; echo err >&2; exit 3"]);
        let f = run_logged(&mut cmd, &log, Duration::from_secs(20)).unwrap();
        assert_eq!(f.code(), Some(3));
        assert!(!f.success());
        let text = std::fs::read_to_string(&log).unwrap();
        assert!(text.starts_with("$ \"sh\""));
        assert!(text.contains("out\n") && text.contains("err\n"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn stdout_can_go_to_its_own_file() {
        let dir = scratch("split");
        let (out, log) = (dir.join("o"), dir.join("l"));
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "echo data; echo noise >&2"]);
        assert!(run_split(&mut cmd, &out, &log, Duration::from_secs(20))
            .unwrap()
            .success());
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "data\n");
        assert!(std::fs::read_to_string(&log).unwrap().contains("noise"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_command_over_its_limit_is_stopped() {
        let dir = scratch("slow");
        let mut cmd = Command::new("sleep");
        cmd.arg("30");
        let f = run_logged(&mut cmd, &dir.join("s.log"), Duration::from_millis(300)).unwrap();
        assert!(f.timed_out && !f.success());
        assert_eq!(f.describe(), "timed out after 0 s");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
