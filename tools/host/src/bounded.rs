//! Work that could block on a real device, done in a child process under a
//! time limit, so the tools never hang.
//!
//! A write to `sriov_numvfs` waits for the driver's provisioning and for every
//! VF's driver; a module load runs the whole probe; a debugfs read of a
//! wedged device waits for its GuC. A thread stuck in such a call cannot be
//! stopped, and a process does not finish exiting while one of its threads
//! is in the kernel, so the call runs in a child: this tool's own binary
//! again, with [`CHILD_FLAG`] first ([`serve_child`]). Past the limit the
//! child is sent SIGKILL and left behind if it does not go (a task in
//! uninterruptible sleep cannot be killed): the caller reports the step as
//! failed and goes on.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The first argument that makes the binary do one bounded operation and
/// exit (not for people: the tools pass it to themselves).
pub const CHILD_FLAG: &str = "--xehpg-bounded-io";

/// A finished command's status and output.
#[derive(Debug)]
pub struct Done {
    /// The exit code, `None` when a signal ended it.
    pub code: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

impl Done {
    /// Exit status 0.
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }

    /// The last line of standard error, or the status.
    pub fn why(&self) -> String {
        let err = String::from_utf8_lossy(&self.stderr);
        match err.lines().rev().find(|l| !l.trim().is_empty()) {
            Some(line) => line.trim().to_string(),
            None => match self.code {
                Some(c) => format!("exit status {c}"),
                None => "killed by a signal".to_string(),
            },
        }
    }
}

/// Runs `cmd` to its end, or for `limit` at most: an error says which.
pub fn run(cmd: &mut Command, limit: Duration) -> Result<Done, String> {
    let name = cmd.get_program().to_string_lossy().into_owned();
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {name}: {e}"))?;
    // Readers on threads, so a child filling a pipe does not stall; they are
    // joined only once the child is gone.
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut buf);
            }
            buf
        })
    };
    let out = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                return Ok(Done {
                    code: status.code(),
                    stdout: out.join().unwrap_or_default(),
                    stderr: err.join().unwrap_or_default(),
                })
            }
            Ok(None) if start.elapsed() < limit => std::thread::sleep(Duration::from_millis(10)),
            Ok(None) => break,
            Err(e) => return Err(format!("waiting for {name}: {e}")),
        }
    }
    let _ = child.kill();
    // A child in uninterruptible sleep does not die: give it a moment, then
    // leave it (and its pipe readers) behind.
    let grace = Instant::now();
    while grace.elapsed() < Duration::from_millis(500) {
        if let Ok(Some(_)) = child.try_wait() {
            return Err(format!(
                "{name} did not finish within {} s and was killed",
                limit.as_secs()
            ));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    Err(format!(
        "{name} did not finish within {} s, and is still blocked in the kernel (pid {})",
        limit.as_secs(),
        child.id()
    ))
}

/// Bounded operations through a child of `exe` (the tool's own binary).
#[derive(Debug, Clone)]
pub struct Bounded {
    pub exe: PathBuf,
    pub limit: Duration,
}

impl Bounded {
    /// Operations through the running binary.
    pub fn current(limit: Duration) -> Self {
        let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("/proc/self/exe"));
        Self { exe, limit }
    }

    fn child(&self, op: &str, args: &[&std::ffi::OsStr]) -> Result<Done, String> {
        let mut cmd = Command::new(&self.exe);
        cmd.arg(CHILD_FLAG).arg(op).args(args);
        run(&mut cmd, self.limit)
    }

    /// The whole of file `path`, read in one child.
    pub fn read(&self, path: &Path) -> Result<Vec<u8>, String> {
        let done = self.child("read", &[path.as_os_str()])?;
        if done.success() {
            Ok(done.stdout)
        } else {
            Err(done.why())
        }
    }

    /// Writes `value` to `path` in one write call.
    pub fn write(&self, path: &Path, value: &str) -> Result<(), String> {
        let done = self.child("write", &[path.as_os_str(), value.as_ref()])?;
        if done.success() {
            Ok(())
        } else {
            Err(done.why())
        }
    }

    /// Loads the module file `path` with `params` (`finit_module`).
    pub fn load_module(&self, path: &Path, params: &str) -> Result<(), String> {
        let done = self.child("load", &[path.as_os_str(), params.as_ref()])?;
        if done.success() {
            Ok(())
        } else {
            Err(done.why())
        }
    }
}

/// If the binary was started as a bounded child ([`CHILD_FLAG`] first), does
/// the one operation and exits; otherwise returns.
pub fn serve_child() {
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    if args.first().is_none_or(|a| a != CHILD_FLAG) {
        return;
    }
    let arg = |i: usize| args.get(i).cloned().unwrap_or_default();
    let result = match arg(1).to_str() {
        Some("read") => std::fs::read(arg(2)).and_then(|data| std::io::stdout().write_all(&data)),
        Some("write") => write_once(Path::new(&arg(2)), arg(3).as_encoded_bytes()),
        Some("load") => load(Path::new(&arg(2)), &arg(3).to_string_lossy()),
        _ => Err(std::io::Error::other("unknown bounded operation")),
    };
    match result {
        Ok(()) => std::process::exit(0),
        Err(e) => {
            eprintln!("{}: {e}", Path::new(&arg(2)).display());
            std::process::exit(1);
        }
    }
}

/// One `write(2)` of all of `data`, as `echo VALUE > FILE` does: a sysfs
/// attribute takes its value from a single write.
fn write_once(path: &Path, data: &[u8]) -> std::io::Result<()> {
    let mut f = std::fs::OpenOptions::new().write(true).open(path)?;
    let n = f.write(data)?;
    if n != data.len() {
        return Err(std::io::Error::other(format!(
            "short write: {n} of {} bytes",
            data.len()
        )));
    }
    Ok(())
}

/// `finit_module` of `path` with `params`, the errors a module load meets
/// named with what they usually mean.
fn load(path: &Path, params: &str) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let f = std::fs::File::open(path)?;
    let params = std::ffi::CString::new(params).map_err(std::io::Error::other)?;
    // SAFETY: a valid descriptor and NUL-terminated string for the call's
    // duration; the kernel reads, never keeps, either.
    let rc = unsafe { libc::syscall(libc::SYS_finit_module, f.as_raw_fd(), params.as_ptr(), 0) };
    if rc == 0 {
        return Ok(());
    }
    let e = std::io::Error::last_os_error();
    let hint = match e.raw_os_error() {
        Some(libc::EEXIST) => "the module is already loaded",
        Some(libc::EKEYREJECTED) | Some(libc::ENOKEY) => {
            "its signature was refused: sign it with an enrolled key (Documentation/install.rst)"
        }
        Some(libc::EPERM) => "not permitted: run as root; under lockdown the module must be signed",
        Some(libc::ENOEXEC) => "not a module this kernel takes (built for another kernel?)",
        Some(libc::EINVAL) | Some(libc::ENOENT) => {
            "refused by the kernel: built for another kernel or rustc? (dmesg says which)"
        }
        _ => "dmesg says why",
    };
    Err(std::io::Error::new(e.kind(), format!("{e}: {hint}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_that_ends_gives_its_output() {
        let done = run(
            Command::new("sh").args(["-c", "echo out; echo err >&2; exit 3"]),
            Duration::from_secs(10),
        )
        .unwrap();
        assert_eq!(done.code, Some(3));
        assert_eq!(done.stdout, b"out\n");
        assert_eq!(done.why(), "err");
        assert!(!done.success());
    }

    #[test]
    fn a_command_that_hangs_is_stopped_at_its_limit() {
        let start = Instant::now();
        let err = run(
            Command::new("sh").args(["-c", "sleep 30"]),
            Duration::from_millis(300),
        )
        .unwrap_err();
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "{:?}",
            start.elapsed()
        );
        assert!(err.contains("did not finish within"), "{err}");
    }

    #[test]
    fn a_missing_program_is_an_error() {
        let err = run(&mut Command::new("/nonexistent/x"), Duration::from_secs(1)).unwrap_err();
        assert!(err.contains("cannot run /nonexistent/x"), "{err}");
    }
}
