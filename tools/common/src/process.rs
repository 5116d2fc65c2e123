//! Child processes that cannot outlive their parent (QEMU and the mock under
//! the VM runner, the runner and the builds under the test orchestrator).
//!
//! Three layers make sure of it: each child gets PR_SET_PDEATHSIG(SIGKILL),
//! so the kernel kills it if the parent dies, even by SIGKILL; a [`Proc`]
//! stops its child when dropped, on every error path; and the parent stops
//! children explicitly, in order, on the normal path.
//!
//! [`run_logged`] and [`run_split`] run a command to completion under a time
//! limit with its output in a log file headed by the command line, so a
//! failure can show the log's tail and CI keeps the whole of it. A command
//! that outlives its limit gets SIGTERM (so a VM runner can stop QEMU and the
//! mock), then SIGKILL after a grace period.

use std::fs::File;
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::path::PathBuf;
use std::process::Child;
use std::process::ChildStdout;
use std::process::Command;
use std::process::ExitStatus;
use std::process::Stdio;
use std::thread;
use std::time::Duration;
use std::time::Instant;

use anyhow::Context;
use anyhow::Result;

/// How often waits poll a child.
const POLL: Duration = Duration::from_millis(20);
/// How long a dropped child gets between SIGTERM and SIGKILL.
const DROP_GRACE: Duration = Duration::from_secs(3);
/// How long a logged command over its limit gets between SIGTERM and SIGKILL:
/// a VM runner then stops QEMU and the mock in order.
const LOGGED_GRACE: Duration = Duration::from_secs(10);

/// A running child, stopped on drop unless it was reaped.
#[derive(Debug)]
pub struct Proc {
    name: &'static str,
    child: Child,
    /// Set once reaped; the pid is then free for reuse and must not be
    /// signalled.
    status: Option<ExitStatus>,
}

/// Spawns `command` as `name` (for messages).
///
/// With `own_group`, the child leads a new process group, so a Ctrl-C at the
/// terminal reaches only the runner, which then stops the child in order.
/// QEMU must stay in the terminal's group when it owns the terminal
/// (interactive mode): a background group gets SIGTTOU on tcsetattr.
///
/// # Errors
///
/// The program cannot be started.
pub fn spawn(name: &'static str, command: &mut Command, own_group: bool) -> Result<Proc> {
    let parent = std::process::id();
    // SAFETY: the closure runs in the forked child before exec, where only
    // async-signal-safe functions may be called. It calls prctl, getppid and
    // setpgid, which are plain system calls, and builds errors with
    // `from_raw_os_error`/`last_os_error`, which do not allocate. It captures
    // only a `u32` and a `bool`, copied into the child's memory by fork.
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // The runner may have died between fork and prctl; the death
            // signal would then never come, so give up now.
            if u32::try_from(libc::getppid()).ok() != Some(parent) {
                return Err(std::io::Error::from_raw_os_error(libc::ESRCH));
            }
            if own_group && libc::setpgid(0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let child = command
        .spawn()
        .with_context(|| format!("starting {name} ({:?})", command.get_program()))?;
    Ok(Proc {
        name,
        child,
        status: None,
    })
}

impl Proc {
    /// The child's process id.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// The child's stdout pipe, once.
    pub fn take_stdout(&mut self) -> Option<ChildStdout> {
        self.child.stdout.take()
    }

    /// The exit status if the child has exited, without blocking.
    ///
    /// # Errors
    ///
    /// waitpid failed.
    pub fn poll(&mut self) -> Result<Option<ExitStatus>> {
        if self.status.is_none() {
            self.status = self
                .child
                .try_wait()
                .with_context(|| format!("waiting for {}", self.name))?;
        }
        Ok(self.status)
    }

    /// Waits up to `limit` for the child to exit.
    ///
    /// # Errors
    ///
    /// waitpid failed.
    pub fn wait_for(&mut self, limit: Duration) -> Result<Option<ExitStatus>> {
        let end = Instant::now() + limit;
        loop {
            if let Some(status) = self.poll()? {
                return Ok(Some(status));
            }
            if Instant::now() >= end {
                return Ok(None);
            }
            thread::sleep(POLL);
        }
    }

    /// Stops the child: SIGTERM, up to `grace` to exit (QEMU restores the
    /// terminal, the mock writes its summary), then SIGKILL.
    ///
    /// # Errors
    ///
    /// waitpid failed.
    pub fn stop(&mut self, grace: Duration) -> Result<ExitStatus> {
        if let Some(status) = self.poll()? {
            return Ok(status);
        }
        self.signal(libc::SIGTERM);
        if let Some(status) = self.wait_for(grace)? {
            return Ok(status);
        }
        // Child::kill sends SIGKILL; an error means it is already gone.
        let _ = self.child.kill();
        let status = self
            .child
            .wait()
            .with_context(|| format!("waiting for {}", self.name))?;
        self.status = Some(status);
        Ok(status)
    }

    fn signal(&self, signal: i32) {
        let Ok(pid) = libc::pid_t::try_from(self.child.id()) else {
            return;
        };
        // SAFETY: kill has no memory-safety preconditions. The pid is our
        // child's and it has not been reaped (`status` is None), so the pid
        // cannot have been reused by another process.
        unsafe {
            libc::kill(pid, signal);
        }
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        // Errors cannot be reported from drop; the death signal and the
        // SIGKILL in `stop` still end the child.
        let _ = self.stop(DROP_GRACE);
    }
}

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

/// Runs `cmd` with stdout and stderr into `log`, stopped after `limit`.
///
/// # Errors
///
/// The log cannot be created or the command cannot be started or waited for.
pub fn run_logged(cmd: &mut Command, log: &Path, limit: Duration) -> Result<Finished> {
    let out = open_log(cmd, log)?;
    let err = out.try_clone().context("duplicating the log handle")?;
    cmd.stdout(out).stderr(err);
    run_limited(cmd, log, limit)
}

/// Runs `cmd` with stdout into `stdout` and stderr into `log`, stopped after
/// `limit`.
///
/// # Errors
///
/// A file cannot be created or the command cannot be started or waited for.
pub fn run_split(
    cmd: &mut Command,
    stdout: &Path,
    log: &Path,
    limit: Duration,
) -> Result<Finished> {
    let err = open_log(cmd, log)?;
    let out = File::create(stdout).with_context(|| format!("creating {}", stdout.display()))?;
    cmd.stdout(out).stderr(err);
    run_limited(cmd, log, limit)
}

/// Creates `log` and its directory, headed by the command line.
fn open_log(cmd: &Command, log: &Path) -> Result<File> {
    if let Some(dir) = log.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let mut f = File::create(log).with_context(|| format!("creating {}", log.display()))?;
    // Debug output of a Command is a shell line, `cd DIR && ` included.
    writeln!(f, "$ {cmd:?}").with_context(|| format!("writing {}", log.display()))?;
    Ok(f)
}

fn run_limited(cmd: &mut Command, log: &Path, limit: Duration) -> Result<Finished> {
    cmd.stdin(Stdio::null());
    // The child stays in the parent's process group: a Ctrl-C at the
    // terminal then reaches it too, as it did before it had a parent.
    let mut proc = spawn("the command", cmd, false)?;
    let (status, timed_out) = match proc.wait_for(limit)? {
        Some(status) => (status, false),
        None => (proc.stop(LOGGED_GRACE)?, true),
    };
    Ok(Finished {
        status: Some(status),
        timed_out,
        limit,
        log: log.to_path_buf(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Command {
        let mut command = Command::new("sh");
        command.args(["-c", script]).stdin(Stdio::null());
        command
    }

    #[test]
    fn reports_exit_status() {
        let mut proc = spawn("sh", &mut sh("exit 3"), true).unwrap();
        let status = proc.wait_for(Duration::from_secs(10)).unwrap().unwrap();
        assert_eq!(status.code(), Some(3));
        // Polling again after reaping returns the same status.
        assert_eq!(proc.poll().unwrap(), Some(status));
    }

    #[test]
    fn stop_escalates_to_sigkill() {
        use std::os::unix::process::ExitStatusExt;
        // Ignores SIGTERM, so only SIGKILL ends it.
        let mut proc = spawn(
            "sh",
            &mut sh("trap '' TERM; while :; do sleep 1; done"),
            true,
        )
        .unwrap();
        thread::sleep(Duration::from_millis(100));
        let started = Instant::now();
        let status = proc.stop(Duration::from_millis(200)).unwrap();
        assert_eq!(status.signal(), Some(libc::SIGKILL));
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn stop_uses_sigterm_first() {
        use std::os::unix::process::ExitStatusExt;
        let mut proc = spawn("sleep", Command::new("sleep").arg("60"), true).unwrap();
        let status = proc.stop(Duration::from_secs(5)).unwrap();
        assert_eq!(status.signal(), Some(libc::SIGTERM));
    }

    #[test]
    fn drop_kills_the_child() {
        let proc = spawn("sleep", Command::new("sleep").arg("60"), true).unwrap();
        let pid = proc.child.id();
        drop(proc);
        // Reaped by drop, so not even a zombie remains.
        assert!(!std::path::Path::new(&format!("/proc/{pid}")).exists());
    }

    #[test]
    fn child_leads_its_own_group() {
        let mut command = sh("cat /proc/self/stat");
        command.stdout(Stdio::piped());
        let mut proc = spawn("sh", &mut command, true).unwrap();
        let pid = proc.child.id();
        let mut out = String::new();
        std::io::Read::read_to_string(&mut proc.take_stdout().unwrap(), &mut out).unwrap();
        proc.wait_for(Duration::from_secs(10)).unwrap();
        // Field 5 of /proc/<pid>/stat is the process group. `cat` is sh's
        // child in sh's group, which sh leads, so it is sh's pid.
        let after_comm = out.rsplit_once(')').unwrap().1;
        let pgrp: u32 = after_comm
            .split_whitespace()
            .nth(2)
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(pgrp, pid, "{out}");
    }

    /// The death signal fires when the spawning *thread* exits, which lets a
    /// test observe it without killing the test process. (It is also why the
    /// runner spawns its children from the main thread.)
    #[test]
    fn child_is_killed_when_its_parent_goes() {
        let pid = thread::spawn(|| {
            let proc = spawn("sleep", Command::new("sleep").arg("60"), false).unwrap();
            let pid = proc.child.id();
            // Skip the drop-time stop: only the death signal may end it.
            std::mem::forget(proc);
            pid
        })
        .join()
        .unwrap();
        let pid = libc::pid_t::try_from(pid).unwrap();
        let mut status = 0;
        // SAFETY: `status` is a valid out-pointer; the pid is our unreaped
        // child (its `Child` was forgotten, not waited for).
        let reaped = unsafe { libc::waitpid(pid, &mut status, 0) };
        assert_eq!(reaped, pid);
        assert!(libc::WIFSIGNALED(status));
        assert_eq!(libc::WTERMSIG(status), libc::SIGKILL);
    }

    #[test]
    fn missing_program_is_an_error() {
        let err = spawn("nothing", &mut Command::new("/nonexistent/prog"), true).unwrap_err();
        assert!(format!("{err:#}").contains("starting nothing"));
    }
    #[test]
    fn logged_output_and_status_land_in_the_log() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("logs/a.log");
        let mut cmd = sh("echo out; echo err >&2; exit 3");
        let f = run_logged(&mut cmd, &log, Duration::from_secs(20)).unwrap();
        assert_eq!(f.code(), Some(3));
        assert!(!f.success());
        let text = std::fs::read_to_string(&log).unwrap();
        assert!(text.starts_with("$ \"sh\""), "{text}");
        assert!(text.contains("out\n") && text.contains("err\n"));
    }

    #[test]
    fn split_stdout_goes_to_its_own_file() {
        let dir = tempfile::tempdir().unwrap();
        let (out, log) = (dir.path().join("o"), dir.path().join("l"));
        let mut cmd = sh("echo data; echo noise >&2");
        assert!(run_split(&mut cmd, &out, &log, Duration::from_secs(20))
            .unwrap()
            .success());
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "data\n");
        assert!(std::fs::read_to_string(&log).unwrap().contains("noise"));
    }

    #[test]
    fn a_logged_command_over_its_limit_is_stopped() {
        let dir = tempfile::tempdir().unwrap();
        let mut cmd = Command::new("sleep");
        cmd.arg("30");
        let f = run_logged(
            &mut cmd,
            &dir.path().join("s.log"),
            Duration::from_millis(300),
        )
        .unwrap();
        assert!(f.timed_out && !f.success());
        assert_eq!(f.describe(), "timed out after 0 s");
    }
}
