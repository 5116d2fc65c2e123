//! One VM session: initramfs, mock, QEMU, console, status, cleanup.
//!
//! Order matters: the mock must have created its socket before QEMU starts
//! (QEMU connects at device realize and fails otherwise), as must the
//! runner's command channel socket in batch mode, and after QEMU
//! exits the mock gets a moment to notice the disconnect and write its
//! summary before it is stopped. With `--attach SOCKET` there is no mock:
//! SOCKET is another process's vfio-user server (a VF the host VM's mock
//! serves), checked to be a socket before anything starts, and neither
//! made nor removed here. Every early return goes through the [`Proc`],
//! [`peer::Peers`] and `tempfile::TempDir` drops, which stop the children (a
//! running peer command first, then QEMU, it was started last) and remove
//! the temp dir.
//!
//! The batch loop never waits on one thing: it takes the streams' chunks,
//! carries out the guest's requests (mock, window, peer), looks at a
//! running peer command ([`peer::Peers::poll`]) and checks the deadline and
//! the signals, every [`POLL`] at most.

use std::fmt;
use std::fs;
use std::fs::File;
use std::io::Read;
use std::os::unix::fs::FileTypeExt;
use std::os::unix::net::UnixListener;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::path::PathBuf;
use std::process::Command;
use std::process::ExitStatus;
use std::process::Stdio;
use std::sync::mpsc;
use std::sync::mpsc::RecvTimeoutError;
use std::sync::mpsc::Sender;
use std::thread;
use std::time::Duration;
use std::time::Instant;

use anyhow::bail;
use anyhow::Context;
use anyhow::Result;

use crate::config::Device;
use crate::config::Outputs;
use crate::config::Plan;
use crate::console;
use crate::console::Phase;
use crate::console::Session;
use crate::console::Source;
use crate::console::Streams;
use crate::init_script;
use crate::initramfs;
use crate::peer;
use crate::qemu;
use crate::signals::Signals;
use crate::summary;
use xehpg_common::process;
use xehpg_common::process::Proc;

/// Temp dir name prefix, also what [`sweep_stale`] looks for.
const TEMP_PREFIX: &str = "xehpg-vm";
/// How often the loops check for signals, the deadline and child exits.
const POLL: Duration = Duration::from_millis(50);
/// How long the mock may take to create its socket.
const MOCK_SOCKET_WAIT: Duration = Duration::from_secs(10);
/// How long the mock may take to exit after QEMU disconnected.
const MOCK_EXIT_WAIT: Duration = Duration::from_secs(5);
/// How long QEMU may take to exit after the guest printed its status.
const POWEROFF_WAIT: Duration = Duration::from_secs(15);
/// Between SIGTERM and SIGKILL when stopping a child.
const STOP_GRACE: Duration = Duration::from_secs(3);
/// Console lines shown on failure in quiet mode, which printed none.
const FAILURE_TAIL_LINES: usize = 40;
/// Mock stderr lines shown when it fails.
const MOCK_TAIL_LINES: usize = 20;
/// `sun_path` holds 108 bytes including the terminating NUL.
const MAX_SOCKET_PATH: usize = 107;

/// Why a run ended before the guest reported a status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    Timeout(Duration),
    /// The guest's /init did not reach the command (no BEGIN marker on the
    /// command channel) within the boot timeout.
    BootHang(Duration),
    Signal(i32),
}

impl Stop {
    /// The runner's exit status: 124 like timeout(1), [`BOOT_HANG`], 128+N
    /// like a shell.
    pub fn exit_code(self) -> i32 {
        match self {
            Self::Timeout(_) => 124,
            Self::BootHang(_) => BOOT_HANG,
            Self::Signal(signal) => 128 + signal,
        }
    }
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Timeout(limit) => write!(f, "timed out after {} s", limit.as_secs()),
            Self::BootHang(limit) => write!(
                f,
                "boot hang: the guest's /init did not reach the command within {} s (--boot-timeout)",
                limit.as_secs()
            ),
            Self::Signal(signal) => write!(f, "interrupted by signal {signal}"),
        }
    }
}

impl std::error::Error for Stop {}

/// What ended a session that ran to QEMU's exit.
#[derive(Debug)]
enum Outcome {
    /// The guest printed the command's status.
    Exited {
        status: i32,
        session: Session,
        /// From start to the BEGIN marker, when seen live.
        boot: Option<Duration>,
    },
    /// QEMU exited without the guest printing a status.
    NoStatus { qemu: ExitStatus, session: Session },
}

/// Exit status when the guest reported none, or the runner failed.
pub const NO_STATUS: i32 = 125;

/// Exit status when the guest's boot hung: no BEGIN marker within the boot
/// timeout. Distinct so a harness can retry it: the command never ran.
pub const BOOT_HANG: i32 = 126;

/// Runs the plan and returns the process exit status. Prints its own
/// messages; everything is cleaned up before it returns.
pub fn run(plan: &Plan, signals: &Signals) -> i32 {
    let started = Instant::now();
    sweep_stale(&std::env::temp_dir(), TEMP_PREFIX);
    // Mode 0700; the pid in the name is what `sweep_stale` looks for.
    let tmp = tempfile::Builder::new()
        .prefix(&format!("{TEMP_PREFIX}.{}.", std::process::id()))
        .tempdir()
        .context("creating the run's temporary directory");
    let tmp = match tmp {
        Ok(tmp) => tmp,
        Err(err) => {
            eprintln!("xehpg-vm: {err:#}");
            return NO_STATUS;
        }
    };
    let logs = match Logs::new(&plan.outputs, tmp.path()) {
        Ok(logs) => logs,
        Err(err) => {
            eprintln!("xehpg-vm: {err:#}");
            return NO_STATUS;
        }
    };
    let watch = Watch {
        signals,
        started,
        limits: Limits {
            timeout: plan.timeout,
            boot: plan.boot_timeout,
        },
    };
    let result = session(plan, &logs, tmp.path(), &watch, started);
    // All children are gone here: `session` owned them.
    if plan.device.is_some() {
        print_summary(&logs.summary, logs.summary_kept);
    }
    report(plan, &logs, &result, started)
}

/// Builds the initramfs, starts the mock and QEMU, and follows the console
/// (and in batch mode the command channel).
fn session(
    plan: &Plan,
    logs: &Logs,
    tmp: &Path,
    watch: &Watch,
    started: Instant,
) -> Result<Outcome> {
    if let Some(socket) = &plan.attach {
        check_attach_socket(socket)?;
    }
    let initrd = tmp.join("initramfs.cpio");
    write_initramfs(plan, &initrd)?;
    watch.check(false)?;
    let command_socket = tmp.join("command.sock");
    let listener = match plan.command {
        Some(_) => Some(listen(&command_socket)?),
        None => None,
    };
    let peers = peer::Peers::new(
        &plan.peers,
        plan.outputs.keep_dir.as_deref(),
        tmp,
        STOP_GRACE,
    )?;
    let socket = tmp.join("mock.sock");
    let control_fifo = tmp.join("mock-control");
    let control_ack = tmp.join("mock-control-ack");
    let mut mock = match &plan.device {
        Some(device) => Some(start_mock(
            device,
            logs,
            &socket,
            (&control_fifo, &control_ack),
            watch,
        )?),
        None => None,
    };
    // The mock opened the FIFO before it created its socket: a reader is there.
    let control = match mock {
        Some(_) => Some(MockLink {
            fifo: open_control_writer(&control_fifo)?,
            ack: control_ack,
            sent: 0,
            wait: MOCK_ACK_WAIT,
        }),
        None => None,
    };
    let console_mode = match listener {
        Some(_) => qemu::ConsoleMode::Batch {
            command_socket: command_socket.to_string_lossy().into_owned(),
        },
        None => qemu::ConsoleMode::Interactive {
            log: logs.console.to_string_lossy().into_owned(),
        },
    };
    let argv = qemu::command_line(&qemu::QemuSpec {
        base: &plan.qemu,
        extra: &plan.qemu_args,
        kernel: &plan.kernel,
        initrd: &initrd,
        append: &plan.cmdline,
        mem_mib: plan.mem_mib,
        smp: plan.smp,
        socket: device_socket(plan.attach.as_deref(), mock.is_some(), &socket),
        // A VF's driver in a second VM keeps its CT in the VM's RAM (see
        // `qemu::vfio_user_device`); the host VM's drivers are left as they
        // were measured.
        ordered_writes: plan.attach.is_some(),
        console: console_mode,
    });
    let link = Link { control, peers };
    let outcome = match listener {
        Some(listener) => batch(&argv, listener, plan.quiet, logs, watch, started, link)?,
        None => interactive(&argv, logs, watch)?,
    };
    if let Some(mock) = &mut mock {
        finish_mock(mock, logs)?;
    }
    Ok(outcome)
}

/// Where each output goes: the user's paths, the keep dir, or the temp dir.
#[derive(Debug)]
struct Logs {
    console: PathBuf,
    /// The command channel's text (batch mode).
    output: PathBuf,
    mock_stdout: PathBuf,
    mock_stderr: PathBuf,
    trace: Option<PathBuf>,
    summary: PathBuf,
    /// Whether the console log survives the run.
    console_kept: bool,
    /// Whether the command's output survives the run.
    output_kept: bool,
    /// Whether the mock's output survives the run.
    mock_kept: bool,
    /// Whether the summary file survives the run.
    summary_kept: bool,
}

impl Logs {
    fn new(outputs: &Outputs, tmp: &Path) -> Result<Self> {
        if let Some(dir) = &outputs.keep_dir {
            fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        let dir = outputs.keep_dir.as_deref().unwrap_or(tmp);
        let pick =
            |given: &Option<PathBuf>, name: &str| given.clone().unwrap_or_else(|| dir.join(name));
        let logs = Self {
            console: pick(&outputs.console, "console.log"),
            output: pick(&outputs.output, "output.log"),
            mock_stdout: dir.join("mock.stdout"),
            mock_stderr: dir.join("mock.stderr"),
            // Tracing costs time, so it is on only when asked for.
            trace: outputs.trace.clone().or_else(|| {
                outputs
                    .keep_dir
                    .as_ref()
                    .map(|d| d.join("mock-trace.jsonl"))
            }),
            summary: pick(&outputs.summary, "mock-summary.json"),
            console_kept: outputs.console.is_some() || outputs.keep_dir.is_some(),
            output_kept: outputs.output.is_some() || outputs.keep_dir.is_some(),
            mock_kept: outputs.keep_dir.is_some(),
            summary_kept: outputs.summary.is_some() || outputs.keep_dir.is_some(),
        };
        // A summary left by an earlier run must not be reported as this one's.
        match fs::remove_file(&logs.summary) {
            Err(err) if err.kind() != std::io::ErrorKind::NotFound => {
                return Err(err)
                    .with_context(|| format!("removing old {}", logs.summary.display()));
            }
            _ => {}
        }
        Ok(logs)
    }

    /// The log a stream goes to.
    fn of(&self, source: Source) -> &Path {
        match source {
            Source::Console => &self.console,
            Source::Command => &self.output,
        }
    }
}

/// The run's time limits, both counted from its start.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Limits {
    /// `--timeout`: for the whole run.
    timeout: Option<Duration>,
    /// `--boot-timeout`: until the BEGIN marker (batch mode only).
    boot: Option<Duration>,
}

impl Limits {
    /// The stop due `elapsed` into the run, given whether the guest's /init
    /// has reached the command (`booted`). When both limits have passed, the
    /// shorter one is the one that fired.
    fn expired(self, elapsed: Duration, booted: bool) -> Option<Stop> {
        let boot = self.boot.filter(|&limit| !booted && elapsed >= limit);
        let timeout = self.timeout.filter(|&limit| elapsed >= limit);
        match (boot, timeout) {
            (Some(boot), Some(timeout)) if timeout < boot => Some(Stop::Timeout(timeout)),
            (Some(boot), _) => Some(Stop::BootHang(boot)),
            (None, Some(timeout)) => Some(Stop::Timeout(timeout)),
            (None, None) => None,
        }
    }
}

/// The timeout and signal checks the waiting loops share.
struct Watch<'a> {
    signals: &'a Signals,
    started: Instant,
    limits: Limits,
}

impl Watch<'_> {
    /// `booted`: whether the BEGIN marker has arrived.
    fn check(&self, booted: bool) -> Result<(), Stop> {
        if let Some(signal) = self.signals.caught() {
            return Err(Stop::Signal(signal));
        }
        match self.limits.expired(self.started.elapsed(), booted) {
            Some(stop) => Err(stop),
            None => Ok(()),
        }
    }
}

fn write_initramfs(plan: &Plan, path: &Path) -> Result<()> {
    let modules = plan
        .modules
        .iter()
        .map(|m| initramfs::module_guest_path(m))
        .collect::<Result<Vec<_>>>()?;
    let init = init_script::generate(&init_script::InitSpec {
        modules,
        params: plan.params.clone(),
        load: plan.load,
        command: plan.command.clone(),
    });
    let applets = initramfs::busybox_applets(&plan.busybox)?;
    let tree = initramfs::layout(&initramfs::Contents {
        busybox: &plan.busybox,
        applets: &applets,
        modules: &plan.modules,
        firmware: &plan.firmware,
        guest_files: &plan.guest_files,
        init: &init,
    })?;
    let scratch = path.parent().unwrap_or(Path::new("."));
    tree.write(&plan.gen_init_cpio, scratch, path)
        .with_context(|| format!("writing {}", path.display()))
}

/// Makes the mock's test-control FIFO (`--control`): the guest's mock
/// requests travel over it as text lines.
fn make_control_fifo(path: &Path) -> Result<()> {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes())
        .with_context(|| format!("control FIFO path {}", path.display()))?;
    // SAFETY: `c` is a valid NUL-terminated path; mkfifo reads it only.
    if unsafe { libc::mkfifo(c.as_ptr(), 0o600) } != 0 {
        return Err(std::io::Error::last_os_error())
            .with_context(|| format!("creating the control FIFO {}", path.display()));
    }
    Ok(())
}

/// Opens the control FIFO for writing without blocking: a mock that stopped
/// reading must not stall the runner (a write then fails and is reported).
fn open_control_writer(path: &Path) -> Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .with_context(|| format!("opening the mock's control FIFO {}", path.display()))
}

/// Starts the mock and waits until its socket exists.
fn start_mock(
    device: &Device,
    logs: &Logs,
    socket: &Path,
    (control, control_ack): (&Path, &Path),
    watch: &Watch,
) -> Result<Proc> {
    check_socket_path(socket)?;
    make_control_fifo(control)?;
    let mut command = Command::new(&device.mock);
    command.arg("--socket").arg(socket);
    command.arg("--control").arg(control);
    command.arg("--control-ack").arg(control_ack);
    if let Some(id) = device.device_id {
        command.arg("--device-id").arg(format!("{id:#06x}"));
    }
    if let Some(fw) = &device.guc_fw {
        command.arg("--guc-fw").arg(fw);
    }
    if let Some(trace) = &logs.trace {
        command.arg("--trace").arg(trace);
    }
    command.arg("--summary").arg(&logs.summary);
    command.args(&device.args);
    command
        .stdin(Stdio::null())
        .stdout(create(&logs.mock_stdout)?)
        .stderr(create(&logs.mock_stderr)?);
    let mut mock = process::spawn("the mock", &mut command, true)?;
    let limit = Instant::now() + MOCK_SOCKET_WAIT;
    loop {
        if fs::symlink_metadata(socket).is_ok_and(|m| m.file_type().is_socket()) {
            return Ok(mock);
        }
        if let Some(status) = mock.poll()? {
            bail!(
                "the mock exited ({status}) before creating its socket{}",
                mock_stderr(logs)
            );
        }
        watch.check(false)?;
        if Instant::now() >= limit {
            bail!(
                "the mock did not create {} within {} s",
                socket.display(),
                MOCK_SOCKET_WAIT.as_secs()
            );
        }
        thread::sleep(Duration::from_millis(20));
    }
}

/// The vfio-user socket QEMU connects to: `--attach`'s, or the one the mock
/// makes at `mock_socket`, or none.
fn device_socket<'a>(
    attach: Option<&'a Path>,
    mock: bool,
    mock_socket: &'a Path,
) -> Option<&'a Path> {
    match (attach, mock) {
        (Some(socket), _) => Some(socket),
        (None, true) => Some(mock_socket),
        (None, false) => None,
    }
}

/// `--attach`'s socket must be there, and a socket, before QEMU starts, which
/// otherwise fails at device realize with a vaguer message. Only its type is
/// checked: connecting would take the server's one client slot.
fn check_attach_socket(socket: &Path) -> Result<()> {
    if socket.as_os_str().len() > MAX_SOCKET_PATH {
        bail!(
            "--attach {}: the path is too long for a unix socket (at most {MAX_SOCKET_PATH} \
             bytes; a shorter symlink to it will do)",
            socket.display()
        );
    }
    let meta = fs::metadata(socket).with_context(|| {
        format!(
            "--attach {}: no such socket (start the process that serves it first)",
            socket.display()
        )
    })?;
    if !meta.file_type().is_socket() {
        bail!("--attach {}: not a unix socket", socket.display());
    }
    Ok(())
}

fn check_socket_path(socket: &Path) -> Result<()> {
    if socket.as_os_str().len() > MAX_SOCKET_PATH {
        bail!(
            "socket path {} is too long for a unix socket: set TMPDIR to a shorter directory",
            socket.display()
        );
    }
    Ok(())
}

/// The runner's end of the command channel, which QEMU connects to as it
/// starts. Non-blocking, so waiting for that connection cannot hang the run.
fn listen(socket: &Path) -> Result<UnixListener> {
    check_socket_path(socket)?;
    let listener =
        UnixListener::bind(socket).with_context(|| format!("listening on {}", socket.display()))?;
    listener
        .set_nonblocking(true)
        .context("setting up the command channel socket")?;
    Ok(listener)
}

/// QEMU's connection to the command channel, if it has made it.
fn accept(listener: &UnixListener) -> Result<Option<UnixStream>> {
    match listener.accept() {
        Ok((stream, _)) => {
            stream
                .set_nonblocking(false)
                .context("setting up the command channel")?;
            Ok(Some(stream))
        }
        Err(err)
            if matches!(
                err.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::Interrupted
            ) =>
        {
            Ok(None)
        }
        Err(err) => Err(err).context("accepting QEMU's command channel connection"),
    }
}

fn create(path: &Path) -> Result<File> {
    File::create(path).with_context(|| format!("creating {}", path.display()))
}

/// What the guest's requests act on: the mock's test control (none without
/// a mock of the runner's own) and the peer commands.
struct Link {
    control: Option<MockLink>,
    peers: peer::Peers,
}

/// Runs QEMU with the console on a pipe and the command channel on
/// `listener`, streaming both until QEMU exits. The guest's mock requests
/// are written to the mock's control FIFO as they come, and its peer
/// requests start peer commands, which the loop follows without waiting.
fn batch(
    argv: &[String],
    listener: UnixListener,
    quiet: bool,
    logs: &Logs,
    watch: &Watch,
    started: Instant,
    link: Link,
) -> Result<Outcome> {
    let (program, args) = split_program(argv)?;
    let mut command = Command::new(program);
    // stdin is /dev/null: CI has none, and the guest command needs none.
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    let mut qemu = process::spawn("QEMU", &mut command, true)?;
    // Declared after `qemu`, so an error return stops a peer before QEMU.
    let Link {
        mut control,
        mut peers,
    } = link;
    let (sender, messages) = mpsc::channel();
    let stdout = qemu.take_stdout().context("QEMU has no stdout pipe")?;
    spawn_reader(Source::Console, stdout, sender.clone());
    let mut streams = Streams::new(
        create(&logs.console)?,
        create(&logs.output)?,
        std::io::stdout(),
        quiet,
    );
    streams.session.peers = peers.names();
    // Kept until QEMU's connection is taken.
    let mut listener = Some(listener);
    let mut command_writer: Option<UnixStream> = None;
    let (mut console_open, mut command_open) = (true, false);
    let mut boot = None;
    // The exit markers seen, and since when.
    let mut exit_seen: Option<(u32, Instant)> = None;
    loop {
        if let Some(waiting) = &listener {
            if let Some(stream) = accept(waiting)? {
                // The runner's answers to window requests go the other way.
                command_writer = stream.try_clone().ok();
                spawn_reader(Source::Command, stream, sender.clone());
                (listener, command_open) = (None, true);
            } else if !console_open {
                // QEMU exited before it connected: it never started the guest.
                listener = None;
            }
        }
        if !console_open && !command_open && listener.is_none() {
            break;
        }
        match messages.recv_timeout(POLL) {
            Ok(Message::Data(source, chunk)) => streams
                .feed(source, &chunk)
                .with_context(|| format!("writing {}", logs.of(source).display()))?,
            Ok(Message::End(Source::Console)) => console_open = false,
            Ok(Message::End(Source::Command)) => command_open = false,
            // Disconnected cannot happen: `sender` is still here.
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => {}
        }
        for request in std::mem::take(&mut streams.session.mock_requests) {
            forward_to_mock(request, control.as_mut(), command_writer.as_mut());
        }
        for request in std::mem::take(&mut streams.session.window_requests) {
            carry_out_window(
                &request,
                control.as_mut(),
                &logs.summary,
                command_writer.as_mut(),
            );
        }
        for name in std::mem::take(&mut streams.session.peer_requests) {
            if let Some(answer) = peers.request(&name) {
                answer_guest(command_writer.as_mut(), &answer.name, answer.verdict());
            }
        }
        if let Some(answer) = peers.poll() {
            answer_guest(command_writer.as_mut(), &answer.name, answer.verdict());
        }
        streams
            .tick(Instant::now())
            .with_context(|| format!("writing {}", logs.output.display()))?;
        if boot.is_none() && streams.session.phase != Phase::Boot {
            boot = Some(started.elapsed());
        }
        if streams.session.exit_status().is_none() {
            watch.check(boot.is_some())?;
            continue;
        }
        let markers = streams.session.exit_markers;
        let since = match exit_seen {
            Some((seen, at)) if seen == markers => at,
            _ => exit_seen.insert((markers, Instant::now())).1,
        };
        if since.elapsed() > POWEROFF_WAIT {
            // The status is in; a guest stuck in poweroff must not cost it.
            eprintln!("xehpg-vm: QEMU did not exit after the guest's poweroff; stopping it");
            break;
        }
    }
    peers.stop();
    streams
        .finish()
        .context("writing the console and output logs")?;
    let qemu_status = qemu.stop(STOP_GRACE)?;
    let session = streams.session.clone();
    Ok(match session.exit_status() {
        Some(status) => Outcome::Exited {
            status,
            session,
            boot,
        },
        None => Outcome::NoStatus {
            qemu: qemu_status,
            session,
        },
    })
}

/// Runs QEMU on the terminal; the status comes from QEMU's console log.
fn interactive(argv: &[String], logs: &Logs, watch: &Watch) -> Result<Outcome> {
    let (program, args) = split_program(argv)?;
    let mut command = Command::new(program);
    command.args(args);
    eprintln!("xehpg-vm: interactive shell; `exit` powers off, Ctrl-A X kills QEMU, Ctrl-A C toggles its monitor");
    let mut qemu = process::spawn("QEMU", &mut command, false)?;
    let qemu_status = loop {
        if let Some(status) = qemu.poll()? {
            break status;
        }
        // The console is the terminal's: BEGIN is not seen, and there is no
        // boot limit without a command.
        watch.check(false)?;
        thread::sleep(POLL);
    };
    let log = fs::read(&logs.console).unwrap_or_default();
    let session = console::scan_log(&log);
    Ok(match session.exit_status() {
        Some(status) => Outcome::Exited {
            status,
            session,
            boot: None,
        },
        None => Outcome::NoStatus {
            qemu: qemu_status,
            session,
        },
    })
}

fn split_program(argv: &[String]) -> Result<(&String, &[String])> {
    argv.split_first().context("empty QEMU command")
}

/// What the stream readers send.
enum Message {
    Data(Source, Vec<u8>),
    /// End of file: QEMU has exited (or closed the stream).
    End(Source),
}

/// Reads one of QEMU's streams on a thread, so the main thread can wait for
/// output, signals and the deadline at once.
fn spawn_reader<R: Read + Send + 'static>(source: Source, mut reader: R, sender: Sender<Message>) {
    thread::spawn(move || {
        let mut buf = [0u8; 8192];
        loop {
            match reader.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    if sender
                        .send(Message::Data(source, buf[..n].to_vec()))
                        .is_err()
                    {
                        return;
                    }
                }
                Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        let _ = sender.send(Message::End(source));
    });
}

/// The runner's end of the mock's test control: the FIFO the requests go
/// down, and the file where the mock counts the lines it has handled
/// (`--control-ack`).
struct MockLink {
    fifo: File,
    ack: PathBuf,
    /// Lines written to `fifo` so far.
    sent: u64,
    /// How long the mock may take to handle a request ([`MOCK_ACK_WAIT`]).
    wait: Duration,
}

impl MockLink {
    /// Writes one line (one `write`, well below `PIPE_BUF`, so lines never
    /// interleave).
    fn send(&mut self, line: &str) -> std::io::Result<()> {
        use std::io::Write;
        self.fifo.write_all(format!("{line}\n").as_bytes())?;
        self.sent += 1;
        Ok(())
    }

    /// Waits up to `self.wait` until the mock has handled every line sent.
    fn wait_handled(&self) -> bool {
        let deadline = Instant::now() + self.wait;
        loop {
            let handled = fs::read_to_string(&self.ack)
                .ok()
                .and_then(|t| t.trim().parse::<u64>().ok())
                .unwrap_or(0);
            if handled >= self.sent {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            thread::sleep(Duration::from_millis(2));
        }
    }
}

/// How long the mock may take to carry out a request.
const MOCK_ACK_WAIT: Duration = Duration::from_secs(10);

/// Carries a guest's request to the mock: one line on its control FIFO.
/// Once the mock has carried it out the guest gets `XEHPG-VM-ACK=mock ok`
/// on the command channel (`failed` when it could not be sent or the mock
/// did not take it within [`MOCK_ACK_WAIT`]), so what the guest does next
/// meets the device as the request left it. A failure is reported, not
/// fatal: the guest's own checks fail.
fn forward_to_mock(
    request: console::MockRequest,
    control: Option<&mut MockLink>,
    guest: Option<&mut UnixStream>,
) {
    let verdict = match control {
        None => {
            eprintln!("xehpg-vm: the guest asked for {request} but this run has no mock");
            "failed"
        }
        Some(link) => match link.send(&request.to_string()) {
            Err(err) => {
                eprintln!("xehpg-vm: forwarding {request} to the mock failed: {err}");
                "failed"
            }
            Ok(()) if link.wait_handled() => {
                eprintln!("xehpg-vm: the guest asked for {request}: carried out by the mock");
                "ok"
            }
            Ok(()) => {
                eprintln!(
                    "xehpg-vm: the mock did not take {request} within {:?} (its stderr says why)",
                    link.wait
                );
                "failed"
            }
        },
    };
    answer_guest(guest, console::MOCK_ACK_NAME, verdict);
}

/// Sends the guest `XEHPG-VM-ACK=NAME VERDICT` on the command channel.
fn answer_guest(guest: Option<&mut UnixStream>, name: &str, verdict: &str) {
    use std::io::Write;
    let answer = format!("{}{name} {verdict}\n", console::ACK_PREFIX);
    match guest {
        Some(stream) => {
            if let Err(err) = stream.write_all(answer.as_bytes()) {
                eprintln!("xehpg-vm: answering {name} failed: {err}");
            }
        }
        None => eprintln!("xehpg-vm: no command channel to answer {name} on"),
    }
}

/// How long the mock may take to open a test window.
const WINDOW_WAIT: Duration = Duration::from_secs(10);

/// Carries out a guest's window request ([`console::WINDOW_PREFIX`]):
/// `begin:NAME[:ARGS]` becomes the mock's `window-begin:NAME:ARGS`, and once
/// the mock has written the window's first summary (`window-NAME.json`
/// beside `summary`) the guest gets `XEHPG-VM-ACK=NAME ok engines=LIST` on
/// the command channel (`failed` if it did not within [`WINDOW_WAIT`]);
/// `end:NAME` becomes `window-end:NAME`, unanswered. Anything else is
/// reported. Without a mock a `begin` is answered `failed` at once. LIST
/// ([`present_engines`]) is the engines the mock's fuses enable in this
/// window, so a scenario takes the engines it expects from the device, not
/// from the driver's report of itself.
fn carry_out_window(
    request: &str,
    control: Option<&mut MockLink>,
    summary: &Path,
    guest: Option<&mut UnixStream>,
) {
    let (line, begun) = match request.split_once(':') {
        Some(("begin", rest)) => {
            let name = rest.split_once(':').map_or(rest, |(n, _)| n);
            (format!("window-begin:{rest}"), Some(name.to_string()))
        }
        Some(("end", name)) => (format!("window-end:{name}"), None),
        _ => {
            eprintln!(
                "xehpg-vm: the guest asked for window {request:?}, which is not begin or end"
            );
            return;
        }
    };
    let Some(link) = control else {
        eprintln!("xehpg-vm: the guest asked for window {request} but this run has no mock");
        // Nothing will open it: the guest need not wait to hear so.
        if let Some(name) = begun {
            answer_guest(guest, &name, "failed");
        }
        return;
    };
    let file = begun.as_ref().map(|name| {
        summary
            .parent()
            .unwrap_or(Path::new("."))
            .join(format!("window-{name}.json"))
    });
    if let Some(file) = &file {
        // The mock's summary there is the answer: an old one is not.
        let _ = fs::remove_file(file);
    }
    if let Err(err) = link.send(&line) {
        eprintln!("xehpg-vm: forwarding {line} to the mock failed: {err}");
    }
    let (Some(name), Some(file)) = (begun, file) else {
        return;
    };
    let deadline = Instant::now() + WINDOW_WAIT;
    while !file.exists() && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(5));
    }
    let verdict = if file.exists() {
        // The summary is renamed into place whole, so it parses once there.
        match present_engines(&file) {
            Ok(engines) => format!("ok engines={}", engines.join(",")),
            Err(err) => {
                eprintln!("xehpg-vm: window {name}: {err:#}");
                "failed".to_string()
            }
        }
    } else {
        eprintln!(
            "xehpg-vm: the mock did not open window {name} within {} s (its stderr says why)",
            WINDOW_WAIT.as_secs()
        );
        "failed".to_string()
    };
    answer_guest(guest, &name, &verdict);
}

/// The engines the mock's fuses enable, from its summary `file`: the keys of
/// `engines` naming an engine (the mock keeps an entry per present engine,
/// Documentation/mock.rst), sorted by name.
///
/// # Errors
///
/// The file cannot be read or parsed, or has no `engines` object.
fn present_engines(file: &Path) -> Result<Vec<String>> {
    let text = fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    let json: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("parsing {}", file.display()))?;
    let engines = json
        .get("engines")
        .and_then(serde_json::Value::as_object)
        .with_context(|| format!("{} has no engines object", file.display()))?;
    Ok(engines
        .iter()
        .filter(|(_, v)| v.is_object())
        .map(|(k, _)| k.clone())
        .collect())
}

/// Lets the mock exit on its own after QEMU's disconnect, then stops it.
fn finish_mock(mock: &mut Proc, logs: &Logs) -> Result<()> {
    let status = match mock.wait_for(MOCK_EXIT_WAIT)? {
        Some(status) => status,
        None => {
            eprintln!(
                "xehpg-vm: the mock did not exit {} s after QEMU; stopping it",
                MOCK_EXIT_WAIT.as_secs()
            );
            mock.stop(STOP_GRACE)?
        }
    };
    if !status.success() {
        eprintln!(
            "xehpg-vm: the mock exited with {status}{}",
            mock_stderr(logs)
        );
    }
    Ok(())
}

/// Prints the mock's summary line, naming the file only if it survives.
fn print_summary(path: &Path, kept: bool) {
    let Ok(text) = fs::read_to_string(path) else {
        return;
    };
    let place = if kept {
        format!(" ({})", path.display())
    } else {
        String::new()
    };
    match serde_json::from_str::<summary::Summary>(&text) {
        Ok(value) => eprintln!("xehpg-vm: {}{place}", summary::describe(&value)),
        Err(err) => eprintln!("xehpg-vm: mock summary{place} unreadable: {err}"),
    }
}

/// Prints the end-of-run messages and returns the exit status.
fn report(plan: &Plan, logs: &Logs, result: &Result<Outcome>, started: Instant) -> i32 {
    let (code, reason) = match result {
        Ok(Outcome::Exited {
            status,
            session,
            boot,
        }) => {
            report_success(plan, *status, session, *boot, started);
            return *status;
        }
        Ok(Outcome::NoStatus { qemu, session }) => {
            let cause = if session.panicked {
                "the kernel panicked".to_owned()
            } else {
                format!("QEMU exited ({qemu})")
            };
            (
                NO_STATUS,
                format!("the guest reported no exit status: {cause}"),
            )
        }
        Err(err) => match err.downcast_ref::<Stop>() {
            Some(stop) => {
                let stopped = match plan.device {
                    Some(_) => "QEMU and the mock",
                    None => "QEMU",
                };
                let mut reason = format!("{stop}; stopped {stopped}");
                if let Stop::BootHang(_) = stop {
                    // Where it hung, also when the console is on screen.
                    match tail(&logs.console, 1) {
                        last if last.is_empty() => reason.push_str("; the console is empty"),
                        last => reason.push_str(&format!("; last console line: {last}")),
                    }
                }
                (stop.exit_code(), reason)
            }
            None => (NO_STATUS, format!("{err:#}")),
        },
    };
    // Quiet mode printed none of the console; show its end as context,
    // before the reason, so the reason is the last thing on screen.
    if plan.quiet && plan.command.is_some() {
        let shown = tail(&logs.console, FAILURE_TAIL_LINES);
        if !shown.is_empty() {
            eprintln!("xehpg-vm: end of the console:\n{shown}");
        }
    }
    eprintln!("xehpg-vm: {reason}");
    point_to_logs(plan, logs);
    code
}

fn report_success(
    plan: &Plan,
    status: i32,
    session: &Session,
    boot: Option<Duration>,
    started: Instant,
) {
    for failure in &session.insmod_failures {
        eprintln!(
            "xehpg-vm: insmod failed with status {failure} (see its error above and the console)"
        );
    }
    if !plan.quiet {
        let boot = boot.map_or_else(String::new, |b| format!("boot {:.1} s, ", b.as_secs_f64()));
        eprintln!(
            "xehpg-vm: guest exited with status {status} ({boot}total {:.1} s)",
            started.elapsed().as_secs_f64()
        );
    }
}

/// After a failure: where the logs are, or how to keep them.
fn point_to_logs(plan: &Plan, logs: &Logs) {
    if logs.console_kept {
        eprintln!("xehpg-vm: console log: {}", logs.console.display());
    }
    if logs.output_kept && plan.command.is_some() {
        eprintln!("xehpg-vm: command output: {}", logs.output.display());
    }
    if logs.mock_kept && plan.device.is_some() {
        eprintln!(
            "xehpg-vm: mock output: {} {}",
            logs.mock_stdout.display(),
            logs.mock_stderr.display()
        );
    }
    if !logs.console_kept || (!logs.mock_kept && plan.device.is_some()) {
        eprintln!(
            "xehpg-vm: rerun with --keep-logs DIR to keep the console log and the mock's output"
        );
    }
}

/// The end of the mock's stderr, for a message about its failure.
fn mock_stderr(logs: &Logs) -> String {
    match tail(&logs.mock_stderr, MOCK_TAIL_LINES) {
        text if text.is_empty() => "; its stderr is empty".to_owned(),
        text => format!("; end of its stderr:\n{text}"),
    }
}

/// The last `lines` lines of a file, `\r` removed; empty if unreadable.
fn tail(path: &Path, lines: usize) -> String {
    let text = fs::read(path).unwrap_or_default();
    tail_of(&String::from_utf8_lossy(&text), lines)
}

fn tail_of(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().map(|l| l.trim_end_matches('\r')).collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// Removes `<prefix>.<pid>.*` directories in `base` whose process is gone:
/// what runs killed with SIGKILL left behind (any other exit removes the
/// run's directory when it is dropped).
fn sweep_stale(base: &Path, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| owner_pid(n, prefix)) else {
            continue;
        };
        if !Path::new("/proc").join(pid.to_string()).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// The pid in a run directory's name, `<prefix>.<pid>.<random>`.
fn owner_pid(name: &str, prefix: &str) -> Option<u32> {
    let rest = name.strip_prefix(prefix)?.strip_prefix('.')?;
    let (pid, _) = rest.split_once('.')?;
    pid.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mock_request_reaches_the_mock_over_its_control_fifo() {
        let dir = tempfile::tempdir().expect("temp dir");
        let fifo = dir.path().join("mock-control");
        make_control_fifo(&fifo).expect("mkfifo");
        assert!(make_control_fifo(&fifo).is_err(), "exists already");
        // No reader yet: a non-blocking writer cannot open (ENXIO).
        assert!(open_control_writer(&fifo).is_err());
        // The mock's side: read-write, as `xehpg_mock::server` opens it.
        let reader = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&fifo)
            .expect("reader");
        let ack = dir.path().join("mock-control-ack");
        let mut link = MockLink {
            fifo: open_control_writer(&fifo).expect("writer"),
            ack: ack.clone(),
            sent: 0,
            wait: Duration::from_millis(300),
        };
        // The mock's part: each line read is counted in `ack`, a moment later.
        let mock = thread::spawn(move || {
            let mut lines = std::io::BufRead::lines(std::io::BufReader::new(reader));
            let mut got = Vec::new();
            for n in 1..=3 {
                got.push(lines.next().expect("line").expect("text"));
                thread::sleep(Duration::from_millis(20));
                fs::write(&ack, format!("{n}\n")).expect("ack");
            }
            got
        });
        let (mut guest_end, mut runner_end) = UnixStream::pair().expect("pair");
        for text in ["surprise-removal", "irq:vcs3:101:1000", "spurious-msi"] {
            let request = console::MockRequest::parse(text).expect("request");
            forward_to_mock(request, Some(&mut link), Some(&mut runner_end));
            // Answered only once the mock counted it.
            assert!(fs::read_to_string(dir.path().join("mock-control-ack"))
                .expect("ack file")
                .starts_with(&link.sent.to_string()));
        }
        assert_eq!(
            mock.join().expect("mock thread"),
            ["surprise-removal", "irq:vcs3:101:1000", "spurious-msi"]
        );
        // Nobody counts a fourth line: `failed` once the wait is over.
        forward_to_mock(
            console::MockRequest::SpuriousMsi,
            Some(&mut link),
            Some(&mut runner_end),
        );
        // No mock: reported and answered `failed`, not fatal.
        forward_to_mock(
            console::MockRequest::SpuriousMsi,
            None,
            Some(&mut runner_end),
        );
        drop(runner_end);
        let mut answers = String::new();
        std::io::Read::read_to_string(&mut guest_end, &mut answers).expect("answers");
        assert_eq!(
            answers,
            "XEHPG-VM-ACK=mock ok\n".repeat(3)
                + "XEHPG-VM-ACK=mock failed\nXEHPG-VM-ACK=mock failed\n"
        );
    }

    /// A window `begin` is forwarded and answered once the mock's window
    /// summary exists; an `end` is forwarded unanswered; a `begin` the mock
    /// never opens is answered `failed`.
    #[test]
    fn window_requests_are_forwarded_and_a_begin_is_answered() {
        use std::io::BufRead;
        let dir = tempfile::tempdir().expect("temp dir");
        let summary = dir.path().join("mock.json");
        let control = dir.path().join("control.txt");
        let mut link = MockLink {
            fifo: File::create(&control).expect("control file"),
            ack: dir.path().join("control-ack"),
            sent: 0,
            wait: MOCK_ACK_WAIT,
        };
        let (mut guest_end, mut runner_end) = UnixStream::pair().expect("pair");
        // The mock's part: the window summary appears a moment later.
        let window = dir.path().join("window-bind.json");
        fs::write(&window, "stale").expect("stale file");
        let mock = {
            let window = window.clone();
            thread::spawn(move || {
                thread::sleep(Duration::from_millis(100));
                fs::write(
                    window,
                    r#"{"engines": {"gtt_faults": 0, "bcs0": {}, "rcs0": {}, "vcs2": {}}}"#,
                )
                .expect("window summary");
            })
        };
        carry_out_window(
            "begin:bind:--fault all-ones",
            Some(&mut link),
            &summary,
            Some(&mut runner_end),
        );
        mock.join().expect("mock thread");
        carry_out_window("end:bind", Some(&mut link), &summary, Some(&mut runner_end));
        carry_out_window("bogus:x", Some(&mut link), &summary, Some(&mut runner_end));
        assert_eq!(
            fs::read_to_string(&control).expect("control"),
            "window-begin:bind:--fault all-ones\nwindow-end:bind\n"
        );
        drop(runner_end);
        let mut answers = String::new();
        std::io::Read::read_to_string(&mut guest_end, &mut answers).expect("answers");
        assert_eq!(answers, "XEHPG-VM-ACK=bind ok engines=bcs0,rcs0,vcs2\n");
        // Never opened: a summary left from before is not the answer (the
        // runner removes it first), so the answer is `failed` after the wait.
        let (mut guest_end, mut runner_end) = UnixStream::pair().expect("pair");
        fs::write(dir.path().join("window-gone.json"), "stale").expect("stale");
        let started = Instant::now();
        carry_out_window(
            "begin:gone",
            Some(&mut link),
            &summary,
            Some(&mut runner_end),
        );
        assert!(started.elapsed() >= WINDOW_WAIT);
        drop(runner_end);
        let line = std::io::BufReader::new(&mut guest_end)
            .lines()
            .next()
            .expect("a line")
            .expect("text");
        assert_eq!(line, "XEHPG-VM-ACK=gone failed");
    }

    /// Without a mock (`--no-device`, `--attach`) a window `begin` is
    /// answered `failed` at once; an `end` needs no answer.
    #[test]
    fn a_window_begin_without_a_mock_fails_at_once() {
        let (mut guest_end, mut runner_end) = UnixStream::pair().expect("pair");
        let started = Instant::now();
        let summary = Path::new("/nonexistent/mock.json");
        carry_out_window("begin:bind:--fault x", None, summary, Some(&mut runner_end));
        carry_out_window("end:bind", None, summary, Some(&mut runner_end));
        forward_to_mock(
            console::MockRequest::SurpriseRemoval,
            None,
            Some(&mut runner_end),
        );
        assert!(started.elapsed() < Duration::from_secs(1));
        drop(runner_end);
        let mut answers = String::new();
        std::io::Read::read_to_string(&mut guest_end, &mut answers).expect("answers");
        assert_eq!(
            answers,
            "XEHPG-VM-ACK=bind failed\nXEHPG-VM-ACK=mock failed\n"
        );
    }

    #[test]
    fn qemu_attaches_to_the_attach_socket_or_the_mock() {
        let mock = Path::new("/t/mock.sock");
        let attach = Path::new("/run/vf1.sock");
        assert_eq!(device_socket(Some(attach), false, mock), Some(attach));
        assert_eq!(device_socket(None, true, mock), Some(mock));
        assert_eq!(device_socket(None, false, mock), None);
        // The command line the runner builds for an attach run.
        let base = ["qemu".to_owned()];
        let argv = qemu::command_line(&qemu::QemuSpec {
            base: &base,
            extra: &[],
            kernel: Path::new("/k"),
            initrd: Path::new("/t/initramfs.cpio"),
            append: "console=ttyS0",
            mem_mib: 512,
            smp: 2,
            socket: device_socket(Some(attach), false, mock),
            ordered_writes: true,
            console: qemu::ConsoleMode::Batch {
                command_socket: "/t/command.sock".into(),
            },
        });
        let devices: Vec<serde_json::Value> = argv
            .windows(2)
            .filter(|w| w[0] == "-device")
            .map(|w| serde_json::from_str(&w[1]).expect("json"))
            .collect();
        assert_eq!(devices.len(), 1);
        assert_eq!(devices[0]["driver"], "vfio-user-pci");
        assert_eq!(
            devices[0]["socket"],
            serde_json::json!({"path": "/run/vf1.sock", "type": "unix"})
        );
        assert!(!argv.iter().any(|a| a.contains("mock.sock")));
    }

    #[test]
    fn the_attach_socket_must_be_a_socket() {
        let dir = tempfile::tempdir().expect("temp dir");
        let socket = dir.path().join("vf1.sock");
        let err = format!("{:#}", check_attach_socket(&socket).unwrap_err());
        assert!(err.contains("no such socket"), "{err}");
        fs::write(&socket, "").expect("file");
        let err = format!("{:#}", check_attach_socket(&socket).unwrap_err());
        assert!(err.contains("not a unix socket"), "{err}");
        fs::remove_file(&socket).expect("remove");
        let listener = UnixListener::bind(&socket).expect("bind");
        check_attach_socket(&socket).expect("a socket");
        // Through a symlink too, as QEMU follows it.
        let link = dir.path().join("link.sock");
        std::os::unix::fs::symlink(&socket, &link).expect("symlink");
        check_attach_socket(&link).expect("a socket behind a symlink");
        // Checked, not connected to: nobody is waiting to be accepted.
        listener.set_nonblocking(true).expect("nonblocking");
        assert!(listener.accept().is_err());
        let long = Path::new("/").join("x".repeat(MAX_SOCKET_PATH));
        assert!(format!("{:#}", check_attach_socket(&long).unwrap_err()).contains("too long"));
    }

    /// The engine list is the summary's engine entries, not its totals; a
    /// summary without engines is an error, not an empty list.
    #[test]
    fn present_engines_come_from_the_summary() {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("window-x.json");
        fs::write(
            &file,
            r#"{"mmio_reads": 3, "engines": {"vecs1": {"loads": 0}, "gtt_faults": 2, "ccs0": {}}}"#,
        )
        .expect("write");
        assert_eq!(present_engines(&file).expect("engines"), ["ccs0", "vecs1"]);
        fs::write(&file, r#"{"mmio_reads": 3}"#).expect("write");
        assert!(present_engines(&file).is_err());
        fs::write(&file, "{").expect("write");
        assert!(present_engines(&file).is_err());
        assert!(present_engines(&dir.path().join("none.json")).is_err());
    }

    #[test]
    fn stop_codes_and_messages() {
        assert_eq!(Stop::Timeout(Duration::from_secs(5)).exit_code(), 124);
        assert_eq!(Stop::Signal(2).exit_code(), 130);
        assert_eq!(
            Stop::Timeout(Duration::from_secs(5)).to_string(),
            "timed out after 5 s"
        );
        assert_eq!(Stop::Signal(15).to_string(), "interrupted by signal 15");
    }

    #[test]
    fn stop_survives_anyhow() {
        let err: anyhow::Error = Stop::Signal(2).into();
        let err = err.context("waiting for the mock");
        assert_eq!(err.downcast_ref::<Stop>(), Some(&Stop::Signal(2)));
    }

    #[test]
    fn tail_takes_the_last_lines() {
        assert_eq!(tail_of("a\r\nb\r\nc\r\n", 2), "b\nc");
        assert_eq!(tail_of("a\nb", 5), "a\nb");
        assert_eq!(tail_of("", 5), "");
        assert_eq!(tail(Path::new("/nonexistent"), 5), "");
    }

    #[test]
    fn logs_default_to_the_temp_dir() {
        let tmp = tempfile::tempdir().unwrap();
        let logs = Logs::new(&Outputs::default(), tmp.path()).unwrap();
        assert_eq!(logs.console, tmp.path().join("console.log"));
        assert_eq!(logs.output, tmp.path().join("output.log"));
        assert_eq!(logs.summary, tmp.path().join("mock-summary.json"));
        assert_eq!(logs.trace, None);
        assert!(!logs.console_kept && !logs.output_kept && !logs.mock_kept && !logs.summary_kept);
    }

    #[test]
    fn keep_dir_collects_everything_and_explicit_paths_win() {
        let tmp = tempfile::tempdir().unwrap();
        let keep = tmp.path().join("keep/nested");
        let outputs = Outputs {
            keep_dir: Some(keep.clone()),
            console: None,
            output: None,
            trace: None,
            summary: Some(tmp.path().join("s.json")),
        };
        fs::write(tmp.path().join("s.json"), "{}").unwrap();
        let logs = Logs::new(&outputs, tmp.path()).unwrap();
        assert!(keep.is_dir());
        assert_eq!(logs.console, keep.join("console.log"));
        assert_eq!(logs.output, keep.join("output.log"));
        assert_eq!(logs.of(Source::Command), keep.join("output.log"));
        assert_eq!(logs.mock_stderr, keep.join("mock.stderr"));
        assert_eq!(logs.trace, Some(keep.join("mock-trace.jsonl")));
        assert_eq!(logs.summary, tmp.path().join("s.json"));
        // The stale summary is gone.
        assert!(!logs.summary.exists());
        assert!(logs.console_kept && logs.output_kept && logs.mock_kept && logs.summary_kept);
    }

    #[test]
    fn boot_hang_code_and_message() {
        let stop = Stop::BootHang(Duration::from_secs(60));
        assert_eq!(stop.exit_code(), 126);
        assert!(stop.to_string().starts_with("boot hang: "), "{stop}");
        assert!(stop.to_string().contains("within 60 s"), "{stop}");
    }

    #[test]
    fn limits_decide_between_timeout_and_boot_hang() {
        let s = Duration::from_secs;
        let limits = Limits {
            timeout: Some(s(180)),
            boot: Some(s(60)),
        };
        assert_eq!(limits.expired(s(59), false), None);
        assert_eq!(limits.expired(s(60), false), Some(Stop::BootHang(s(60))));
        // Once BEGIN is in, only the timeout counts.
        assert_eq!(limits.expired(s(100), true), None);
        assert_eq!(limits.expired(s(180), true), Some(Stop::Timeout(s(180))));
        // Never booted: the boot limit fired first.
        assert_eq!(limits.expired(s(200), false), Some(Stop::BootHang(s(60))));
        // A timeout shorter than the boot limit fires first.
        let short = Limits {
            timeout: Some(s(30)),
            boot: Some(s(60)),
        };
        assert_eq!(short.expired(s(30), false), Some(Stop::Timeout(s(30))));
        assert_eq!(short.expired(s(90), false), Some(Stop::Timeout(s(30))));
        // Off.
        let no_boot = Limits {
            timeout: Some(s(180)),
            boot: None,
        };
        assert_eq!(no_boot.expired(s(179), false), None);
        assert_eq!(Limits::default().expired(s(100_000), false), None);
    }

    #[test]
    fn watch_reports_the_deadline() {
        let signals = Signals::install().unwrap();
        let limit = Duration::from_secs(7);
        let watch = Watch {
            signals: &signals,
            started: Instant::now() - limit,
            limits: Limits {
                timeout: Some(limit),
                boot: None,
            },
        };
        // The signals test may have raised SIGHUP in this process already.
        match watch.check(true) {
            Err(Stop::Timeout(got)) => assert_eq!(got, limit),
            Err(Stop::Signal(signal)) => assert_eq!(signal, libc::SIGHUP),
            Err(other) => panic!("unexpected {other:?}"),
            Ok(()) => panic!("deadline not noticed"),
        }
    }

    #[test]
    fn sweeps_only_dead_owners() {
        let base = tempfile::tempdir().unwrap();
        // Pid 0x7fffffff is above pid_max, so no such process exists.
        let stale = base.path().join("run.2147483647.1a");
        let live = base.path().join(format!("run.{}.1b", std::process::id()));
        let other = base.path().join("other.2147483647.1c");
        for dir in [&stale, &live, &other] {
            std::fs::create_dir(dir).unwrap();
        }
        sweep_stale(base.path(), "run");
        assert!(!stale.exists());
        assert!(live.exists());
        assert!(other.exists());
    }

    #[test]
    fn owner_pid_parsing() {
        assert_eq!(owner_pid("xehpg-vm.123.abc", "xehpg-vm"), Some(123));
        assert_eq!(owner_pid("xehpg-vm-test.123.abc", "xehpg-vm"), None);
        assert_eq!(owner_pid("xehpg-vm.x.abc", "xehpg-vm"), None);
        assert_eq!(owner_pid("xehpg-vm.123", "xehpg-vm"), None);
    }
}
