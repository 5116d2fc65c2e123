//! Peer commands: host commands the guest command starts by name.
//!
//! `--peer NAME=COMMAND` configures one; a line `XEHPG-VM-PEER=NAME` on the
//! command channel asks for it ([`crate::console::peer_marker`]). The runner
//! then runs `sh -c COMMAND` on the host with `XEHPG_VM_PEER=NAME` in its
//! environment, stdin from /dev/null and stdout and stderr appended to
//! `peer-NAME.log`, in a process group of its own, and goes on following the
//! VM meanwhile: [`Peers::poll`] is called from the console loop and never
//! waits. When the command exits the guest gets `XEHPG-VM-ACK=NAME ok`
//! (status 0) or `XEHPG-VM-ACK=NAME failed`, and whatever the command left
//! running in its group is killed.
//!
//! One peer runs at a time: a request while one runs, or one that cannot be
//! started, is answered `failed` at once. A peer over its limit
//! (`--peer-timeout`) gets SIGTERM, its whole group does, and SIGKILL after a
//! grace, and is answered `failed`. A peer still running when the run ends
//! (the guest's exit, the run's timeout, a signal, an error) is stopped the
//! same way, by [`Peers::stop`] or the drop. The shell itself also dies with
//! the runner (PR_SET_PDEATHSIG, [`xehpg_common::process`]); what it started
//! does not, if the runner is killed with SIGKILL.
//!
//! The use: SR-IOV tests, where the host VM's mock also serves a VF on a
//! socket of its own and a peer boots a second VM on it
//! (`xehpg-vm --attach SOCKET`) while the host VM waits.

use std::fs;
use std::fs::OpenOptions;
use std::path::Path;
use std::path::PathBuf;
use std::process::Command;
use std::process::ExitStatus;
use std::process::Stdio;
use std::thread;
use std::time::Duration;
use std::time::Instant;

use anyhow::Context;
use anyhow::Result;

use crate::cli::Peer;
use crate::config;
use xehpg_common::process;
use xehpg_common::process::Proc;

/// How often a blocking stop looks at the group.
const POLL: Duration = Duration::from_millis(20);
/// Log lines shown when a peer whose log is not kept fails.
const LOG_TAIL_LINES: usize = 20;

/// The runner's answer to one peer request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The peer's name, the answer's name on the command channel.
    pub name: String,
    /// `ok` (the command exited with status 0) or `failed`.
    pub ok: bool,
}

impl Answer {
    /// The verdict word the guest reads.
    pub fn verdict(&self) -> &'static str {
        if self.ok {
            "ok"
        } else {
            "failed"
        }
    }

    fn failed(name: &str) -> Self {
        Self {
            name: name.to_owned(),
            ok: false,
        }
    }
}

/// The configured peers and the one running, if any.
#[derive(Debug)]
pub struct Peers {
    specs: Vec<Peer>,
    log_dir: PathBuf,
    /// Whether `log_dir` survives the run; if not, a failure shows the end
    /// of the peer's log.
    kept: bool,
    timeout: Option<Duration>,
    /// Between SIGTERM and SIGKILL.
    grace: Duration,
    running: Option<Running>,
}

/// A peer command that has not been reaped yet.
#[derive(Debug)]
struct Running {
    name: String,
    log: PathBuf,
    /// The shell, leader of the peer's process group.
    proc: Proc,
    started: Instant,
    /// When its group got SIGTERM for running over its limit.
    stopping: Option<Instant>,
}

impl Peers {
    /// Peers as `config` says, logging to its `--peer-log` dir, else to
    /// `keep_dir`, else to `tmp` (removed with the run). Stopping takes up
    /// to `grace` between SIGTERM and SIGKILL.
    ///
    /// # Errors
    ///
    /// The `--peer-log` dir cannot be created.
    pub fn new(
        config: &config::Peers,
        keep_dir: Option<&Path>,
        tmp: &Path,
        grace: Duration,
    ) -> Result<Self> {
        let (log_dir, kept) = match (&config.log_dir, keep_dir) {
            (Some(dir), _) => (dir.clone(), true),
            (None, Some(dir)) => (dir.to_path_buf(), true),
            (None, None) => (tmp.to_path_buf(), false),
        };
        if !config.specs.is_empty() {
            fs::create_dir_all(&log_dir)
                .with_context(|| format!("creating {}", log_dir.display()))?;
        }
        Ok(Self {
            specs: config.specs.clone(),
            log_dir,
            kept,
            timeout: config.timeout,
            grace,
            running: None,
        })
    }

    /// The configured names, in order.
    pub fn names(&self) -> Vec<String> {
        self.specs.iter().map(|p| p.name.clone()).collect()
    }

    /// Where peer `name` writes.
    pub fn log_of(&self, name: &str) -> PathBuf {
        self.log_dir.join(format!("peer-{name}.log"))
    }

    /// The guest asks for peer `name`: starts it, or returns the answer
    /// (`failed`) at once when another peer runs or it cannot be started.
    pub fn request(&mut self, name: &str) -> Option<Answer> {
        if let Some(running) = &self.running {
            eprintln!(
                "xehpg-vm: the guest asked for peer {name} while peer {} runs: answered failed",
                running.name
            );
            return Some(Answer::failed(name));
        }
        let Some(spec) = self.specs.iter().find(|p| p.name == name) else {
            // The session takes configured names only.
            eprintln!("xehpg-vm: the guest asked for peer {name}, which is not configured");
            return Some(Answer::failed(name));
        };
        let log = self.log_of(name);
        match start(spec, &log) {
            Ok(proc) => {
                eprintln!("xehpg-vm: peer {name} started: {}", spec.command);
                self.running = Some(Running {
                    name: name.to_owned(),
                    log,
                    proc,
                    started: Instant::now(),
                    stopping: None,
                });
                None
            }
            Err(err) => {
                eprintln!("xehpg-vm: peer {name}: {err:#}; answered failed");
                Some(Answer::failed(name))
            }
        }
    }

    /// Looks at the running peer without waiting: its answer once it has
    /// exited, or once it has been stopped for running over its limit.
    pub fn poll(&mut self) -> Option<Answer> {
        let running = self.running.as_mut()?;
        let pid = running.proc.id();
        let exited = match exited_unreaped(pid) {
            Ok(exited) => exited,
            Err(err) => {
                // Not expected for an unreaped child; its group is left
                // alone, as its id is no longer sure to be its own.
                eprintln!("xehpg-vm: waiting for peer {}: {err}", running.name);
                return self.finish(Some("after an error"));
            }
        };
        if running.stopping.is_none() {
            if exited {
                // The leader is a zombie: its group id cannot be reused yet.
                if group_alive(pid) {
                    eprintln!(
                        "xehpg-vm: peer {} exited and left processes in its group; killing them",
                        running.name
                    );
                    signal_group(pid, libc::SIGKILL);
                }
                return self.finish(None);
            }
            let over = self
                .timeout
                .filter(|&limit| running.started.elapsed() >= limit);
            if let Some(limit) = over {
                eprintln!(
                    "xehpg-vm: peer {} still runs after {} s (--peer-timeout); stopping it",
                    running.name,
                    limit.as_secs()
                );
                signal_group(pid, libc::SIGTERM);
                running.stopping = Some(Instant::now());
            }
            return None;
        }
        let since = running.stopping?;
        if group_alive(pid) && since.elapsed() < self.grace {
            return None;
        }
        signal_group(pid, libc::SIGKILL);
        self.finish(Some("over its --peer-timeout"))
    }

    /// Stops a peer still running at the end of the run: SIGTERM to its
    /// group, SIGKILL after the grace. Waits for it; the guest is not
    /// answered.
    pub fn stop(&mut self) {
        let Some(running) = &self.running else {
            return;
        };
        let pid = running.proc.id();
        if running.stopping.is_none() {
            signal_group(pid, libc::SIGTERM);
        }
        let deadline = Instant::now() + self.grace;
        while group_alive(pid) && Instant::now() < deadline {
            thread::sleep(POLL);
        }
        signal_group(pid, libc::SIGKILL);
        self.finish(Some("still running at the end of the run"));
    }

    /// Reaps the peer, whose group has been dealt with, and reports it;
    /// `stopped` says why the runner stopped it, if it did.
    fn finish(&mut self, stopped: Option<&str>) -> Option<Answer> {
        let mut running = self.running.take()?;
        let elapsed = running.started.elapsed().as_secs_f64();
        // Exited or killed: this returns at once, or as soon as SIGKILL lands.
        let status = running.proc.stop(self.grace);
        let ok = stopped.is_none() && status.as_ref().is_ok_and(ExitStatus::success);
        let how = match &status {
            Ok(status) => status.to_string(),
            Err(err) => format!("{err:#}"),
        };
        let name = &running.name;
        match stopped {
            Some(why) => {
                eprintln!("xehpg-vm: peer {name} stopped, {why}: {how} after {elapsed:.1} s")
            }
            None if ok => eprintln!("xehpg-vm: peer {name} ok: {how} after {elapsed:.1} s"),
            None => eprintln!("xehpg-vm: peer {name} failed: {how} after {elapsed:.1} s"),
        }
        if !ok {
            self.point_to_log(&running.log);
        }
        Some(Answer {
            name: running.name,
            ok,
        })
    }

    /// After a failure: the log's path if it is kept, else its end.
    fn point_to_log(&self, log: &Path) {
        if self.kept {
            eprintln!("xehpg-vm: peer log: {}", log.display());
            return;
        }
        let text = fs::read(log).unwrap_or_default();
        let text = String::from_utf8_lossy(&text);
        let lines: Vec<&str> = text.lines().collect();
        let tail = &lines[lines.len().saturating_sub(LOG_TAIL_LINES)..];
        if tail.is_empty() {
            eprintln!("xehpg-vm: the peer's log is empty (--peer-log DIR keeps it)");
        } else {
            eprintln!(
                "xehpg-vm: end of the peer's log (--peer-log DIR keeps it):\n{}",
                tail.join("\n")
            );
        }
    }
}

impl Drop for Peers {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Starts `sh -c COMMAND` as the leader of a new process group.
fn start(spec: &Peer, log: &Path) -> Result<Proc> {
    let out = OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .with_context(|| format!("opening {}", log.display()))?;
    let err = out
        .try_clone()
        .with_context(|| format!("opening {}", log.display()))?;
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(&spec.command)
        .env("XEHPG_VM_PEER", &spec.name)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err);
    process::spawn("the peer", &mut command, true)
}

/// Whether child `pid` has exited, without reaping it: until it is reaped
/// its pid, its group's id, cannot name another process or group, so the
/// rest of the group can still be signalled safely.
fn exited_unreaped(pid: u32) -> std::io::Result<bool> {
    let id = libc::id_t::from(pid);
    // SAFETY: siginfo_t is plain data, for which all zeroes is valid.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    // SAFETY: `info` is a valid, writable siginfo_t; waitid writes only it.
    let rc = unsafe {
        libc::waitid(
            libc::P_PID,
            id,
            &mut info,
            libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
        )
    };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // With WNOHANG and no child ready, waitid leaves si_pid 0.
    // SAFETY: waitid filled `info` in (or left it zeroed); si_pid reads it.
    Ok(unsafe { info.si_pid() } != 0)
}

/// Sends `signal` to the process group `pgid` leads.
fn signal_group(pgid: u32, signal: i32) {
    let Ok(pgid) = libc::pid_t::try_from(pgid) else {
        return;
    };
    // SAFETY: kill has no memory-safety preconditions. The group's leader is
    // our child and not reaped yet (callers reap it after), so the group id
    // is still this group's.
    unsafe {
        libc::kill(-pgid, signal);
    }
}

/// Whether process group `pgid` has a member that is not a zombie, from
/// /proc/PID/stat (`PID (COMM) STATE PPID PGRP ...`). When /proc cannot be
/// read, the answer is yes: a stop then waits out its grace.
fn group_alive(pgid: u32) -> bool {
    let Ok(entries) = fs::read_dir("/proc") else {
        return true;
    };
    entries.flatten().any(|entry| {
        if !entry
            .file_name()
            .to_str()
            .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
        {
            return false;
        }
        let Ok(stat) = fs::read_to_string(entry.path().join("stat")) else {
            return false;
        };
        stat_in_group(&stat, pgid)
    })
}

/// Whether a /proc/PID/stat line is of a live (not zombie or dead) process
/// in group `pgid`. COMM may hold spaces and parentheses, so the fields are
/// counted from its last `)`.
fn stat_in_group(stat: &str, pgid: u32) -> bool {
    let Some((_, fields)) = stat.rsplit_once(')') else {
        return false;
    };
    let mut fields = fields.split_whitespace();
    let state = fields.next();
    let group = fields.nth(1).and_then(|g| g.parse::<u32>().ok());
    group == Some(pgid) && !matches!(state, Some("Z" | "X" | "x"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn peers(specs: &[(&str, &str)], timeout: Option<Duration>, dir: &Path) -> Peers {
        let config = config::Peers {
            specs: specs
                .iter()
                .map(|(name, command)| Peer {
                    name: (*name).into(),
                    command: (*command).into(),
                })
                .collect(),
            log_dir: Some(dir.to_path_buf()),
            timeout,
        };
        Peers::new(
            &config,
            None,
            Path::new("/nonexistent"),
            Duration::from_secs(2),
        )
        .expect("peers")
    }

    /// Polls like the console loop until an answer comes.
    fn answer(peers: &mut Peers) -> Answer {
        let limit = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(answer) = peers.poll() {
                return answer;
            }
            assert!(Instant::now() < limit, "no answer");
            thread::sleep(Duration::from_millis(10));
        }
    }

    #[test]
    fn a_peer_runs_once_at_a_time_and_is_answered_by_its_status() {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut peers = peers(
            &[
                (
                    "hello",
                    "sleep 0.3; echo \"hi from $XEHPG_VM_PEER\"; echo oops >&2",
                ),
                ("bad", "exit 3"),
            ],
            None,
            dir.path(),
        );
        assert_eq!(peers.names(), ["hello", "bad"]);
        assert_eq!(peers.poll(), None, "nothing runs");
        assert_eq!(peers.request("hello"), None, "started");
        // Busy: the second request is answered at once.
        assert_eq!(peers.request("bad"), Some(Answer::failed("bad")));
        assert_eq!(peers.poll(), None, "still running");
        let got = answer(&mut peers);
        assert_eq!((got.name.as_str(), got.verdict()), ("hello", "ok"));
        assert_eq!(peers.request("bad"), None);
        assert_eq!(answer(&mut peers), Answer::failed("bad"));
        // Appended, not replaced, when the same peer runs again.
        assert_eq!(peers.request("hello"), None);
        assert!(answer(&mut peers).ok);
        assert_eq!(
            fs::read_to_string(dir.path().join("peer-hello.log")).expect("log"),
            "hi from hello\noops\n".repeat(2)
        );
        assert_eq!(peers.request("nobody"), Some(Answer::failed("nobody")));
    }

    /// Over its limit a peer is stopped, its whole group, and answered
    /// `failed`; what an exiting peer leaves in its group is killed.
    #[test]
    fn a_peer_over_its_limit_is_stopped_with_its_group() {
        let dir = tempfile::tempdir().expect("temp dir");
        let pidfile = dir.path().join("child.pid");
        let command = format!("sleep 60 & echo $! >{}; wait", pidfile.display());
        let mut peers = peers(
            &[
                ("slow", &command),
                ("leaver", &command.replace("; wait", "")),
            ],
            Some(Duration::from_millis(300)),
            dir.path(),
        );
        let child_gone = |pidfile: &Path| {
            let pid = fs::read_to_string(pidfile).expect("pid file");
            // Reaped by init once killed; a zombie for a moment at most.
            let stat = Path::new("/proc").join(pid.trim()).join("stat");
            let limit = Instant::now() + Duration::from_secs(5);
            while fs::read_to_string(&stat).is_ok_and(|s| !s.contains(") Z ")) {
                assert!(Instant::now() < limit, "sleep {} survived", pid.trim());
                thread::sleep(Duration::from_millis(10));
            }
        };
        let started = Instant::now();
        assert_eq!(peers.request("slow"), None);
        assert_eq!(answer(&mut peers), Answer::failed("slow"));
        assert!(started.elapsed() < Duration::from_secs(5));
        child_gone(&pidfile);
        fs::remove_file(&pidfile).expect("remove pid file");
        assert_eq!(peers.request("leaver"), None);
        assert!(answer(&mut peers).ok);
        child_gone(&pidfile);
    }

    #[test]
    fn a_peer_running_at_the_end_is_stopped() {
        let dir = tempfile::tempdir().expect("temp dir");
        let pidfile = dir.path().join("child.pid");
        let command = format!("sleep 60 & echo $! >{}; wait", pidfile.display());
        let mut peers = peers(&[("long", &command)], None, dir.path());
        assert_eq!(peers.request("long"), None);
        while !fs::read_to_string(&pidfile).is_ok_and(|t| t.ends_with('\n')) {
            thread::sleep(Duration::from_millis(10));
        }
        let started = Instant::now();
        drop(peers);
        // SIGTERM ended both at once: no wait for the grace.
        assert!(started.elapsed() < Duration::from_secs(2));
        let pid = fs::read_to_string(&pidfile).expect("pid");
        let group = Path::new("/proc").join(pid.trim()).join("stat");
        assert!(fs::read_to_string(group).map_or(true, |s| s.contains(") Z ")));
    }

    #[test]
    fn stat_lines_name_the_group_after_the_command() {
        assert!(stat_in_group("42 (sh) S 1 42 42 0 -1", 42));
        assert!(stat_in_group("43 (a) b) R 42 42 42 0", 42));
        assert!(!stat_in_group("42 (sh) Z 1 42 42 0", 42));
        assert!(!stat_in_group("42 (sh) S 1 41 41 0", 42));
        assert!(!stat_in_group("garbage", 42));
    }

    #[test]
    fn logs_go_to_the_peer_log_dir_then_the_keep_dir_then_the_temp_dir() {
        let dir = tempfile::tempdir().expect("temp dir");
        let keep = dir.path().join("keep");
        let tmp = dir.path().join("tmp");
        let mut config = config::Peers {
            specs: vec![Peer {
                name: "vf1".into(),
                command: "true".into(),
            }],
            log_dir: None,
            timeout: None,
        };
        let grace = Duration::from_secs(1);
        let at = |config: &config::Peers, keep: Option<&Path>| {
            let peers = Peers::new(config, keep, &tmp, grace).expect("peers");
            (peers.log_of("vf1"), peers.kept)
        };
        assert_eq!(at(&config, None), (tmp.join("peer-vf1.log"), false));
        assert_eq!(at(&config, Some(&keep)), (keep.join("peer-vf1.log"), true));
        config.log_dir = Some(dir.path().join("peers"));
        assert_eq!(
            at(&config, Some(&keep)),
            (dir.path().join("peers/peer-vf1.log"), true)
        );
        assert!(dir.path().join("peers").is_dir());
    }
}
