//! The guest's serial streams: markers, echo and logs.
//!
//! A batch run has two serial ports. ttyS0 is the kernel console: boot
//! messages, oopses, KUnit output, whatever printk prints, whenever it prints
//! it. ttyS1 is the command channel: `/init` (see [`crate::init_script`])
//! writes its markers, insmod's complaints and the command's stdout and stderr
//! there, and nothing else does. So a marker is always a whole line of its
//! own, and a kernel message never lands inside a line of the command.
//!
//! The command channel carries, in order: insmod's errors, each failed
//! insmod's `XEHPG-VM-INSMOD-FAILED=<status>`, [`BEGIN`], the command's
//! output, then a newline and `XEHPG-VM-EXIT=<status>`. That newline puts the
//! exit marker on a line of its own even when the command's last line has
//! none; [`CommandChannel`] drops it again, so the output shown is the
//! command's, byte for byte.
//!
//! While the command runs, a line `XEHPG-VM-MOCK=<request>` asks the runner
//! to act on the mock device ([`MockRequest`]: `surprise-removal`,
//! `irq:SOURCE:DATA:COUNT`, `gt-error:SEV:BITS`, `spurious-msi`; the
//! grammar is the mock's own, `xehpg_mock::control`). It is a marker only
//! if the request parses: the runner takes it and it is not part of the
//! command's output; a malformed request stays output, so the script's own
//! checks fail visibly. Once the mock has carried a request out (it counts
//! the lines it handled in its `--control-ack` file) the runner answers
//! `XEHPG-VM-ACK=mock ok` on the command channel (`failed` after 10 s), so
//! the guest goes on only when the device is as the request left it; what
//! the request sets going (paced interrupts, a delayed reply) the guest
//! still polls for. A run without a mock of its own (`--no-device`,
//! `--attach`) answers a mock request, and a window `begin` ([`WINDOW_PREFIX`]),
//! `failed` at once.
//!
//! A line `XEHPG-VM-PEER=NAME` asks the runner to run the host command
//! configured as `--peer NAME=COMMAND` ([`crate::peer`]). It is a marker only
//! if NAME (`[a-z0-9-]+`) is one of the configured names ([`peer_marker`]);
//! any other such line stays output, so the guest's wait for an answer fails
//! visibly. When the command has ended the runner answers
//! `XEHPG-VM-ACK=NAME ok` (exit status 0) or `XEHPG-VM-ACK=NAME failed` (a
//! failure, over `--peer-timeout`, not started, or another peer still
//! running) on the command channel.
//!
//! The interactive shell has one port for the console and the shell; its log
//! is read after the run by [`scan_log`], which finds markers at the ends of
//! lines, since a kernel message may precede one there.

use std::io::Write;
use std::time::Duration;
use std::time::Instant;

/// Printed by `/init` right before the command.
pub const BEGIN: &str = "XEHPG-VM-BEGIN";
/// Printed by `/init` after the command, followed by its status.
pub const EXIT_PREFIX: &str = "XEHPG-VM-EXIT=";
/// Printed by `/init` when insmod fails, followed by insmod's status.
pub const INSMOD_FAILED_PREFIX: &str = "XEHPG-VM-INSMOD-FAILED=";
/// Printed by the guest command to ask for a [`MockRequest`], followed by
/// its name.
pub const MOCK_PREFIX: &str = "XEHPG-VM-MOCK=";
/// Printed by the guest command to open or close a test window of the mock
/// (`begin:NAME[:ARGS]`, `end:NAME`; `xehpg_mock`'s `window-begin:` and
/// `window-end:` requests). Unlike a [`MOCK_PREFIX`] line it stays in the
/// command's output, where it marks where each window's part starts and
/// ends; the runner answers a `begin` with an [`ACK_PREFIX`] line on the
/// command channel once the mock has opened the window, so the guest knows
/// that what it does next is recorded in it.
pub const WINDOW_PREFIX: &str = "XEHPG-VM-WINDOW=";
/// Printed by the guest command to have the runner start the host command
/// configured as `--peer NAME=COMMAND`, followed by NAME. A marker only when
/// NAME is configured ([`peer_marker`]); the runner answers with an
/// [`ACK_PREFIX`] line for NAME once the command has ended.
pub const PEER_PREFIX: &str = "XEHPG-VM-PEER=";
/// The runner's answer to a window `begin`, a mock request or a peer, sent to
/// the guest on the command channel: `XEHPG-VM-ACK=NAME ok` or
/// `XEHPG-VM-ACK=NAME failed` (NAME is [`MOCK_ACK_NAME`] for a mock request).
pub const ACK_PREFIX: &str = "XEHPG-VM-ACK=";
/// The name in the answer to a [`MOCK_PREFIX`] request, so no peer has it.
pub const MOCK_ACK_NAME: &str = "mock";
/// The kernel's panic banner.
const PANIC: &str = "Kernel panic - not syncing";
/// How long an unfinished line may wait for its end before it is shown: a
/// prompt or a progress dot must not wait for the next newline forever.
pub const PARTIAL_LINE_WAIT: Duration = Duration::from_millis(200);

/// A line that means something to the runner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    Begin,
    Exit(i32),
    InsmodFailed(i32),
    Panic,
    Mock(MockRequest),
    /// A peer request: the index of its name in [`Session::peers`].
    Peer(usize),
}

/// What the guest command can ask the runner to do to the mock device: a
/// test-control request, which the runner writes to the mock's control FIFO
/// as it came (Documentation/mock.rst, "Test control").
pub type MockRequest = xehpg_mock::control::Request;

/// Recognises a marker in one line of the shared console of the interactive
/// shell (line ending already stripped).
///
/// A kernel message printed without a newline may precede a marker on the
/// same line, so markers are matched at the end of the line, not the start.
/// A status must be all digits up to the line's end: `cat /init` shows the
/// marker text followed by `$?` or `$rc`, which must not count.
pub fn classify(line: &str) -> Option<Marker> {
    let line = line.trim_end();
    if line.ends_with(BEGIN) {
        return Some(Marker::Begin);
    }
    if let Some(status) = status_after(line, EXIT_PREFIX) {
        return Some(Marker::Exit(status));
    }
    if let Some(status) = status_after(line, INSMOD_FAILED_PREFIX) {
        return Some(Marker::InsmodFailed(status));
    }
    line.contains(PANIC).then_some(Marker::Panic)
}

/// Recognises a line of the command channel that is a marker and nothing
/// else. A trailing `\r` is allowed, in case the port still translates `\n`
/// to `\r\n`.
pub fn command_marker(line: &str) -> Option<Marker> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    if line == BEGIN {
        return Some(Marker::Begin);
    }
    if let Some(status) = line.strip_prefix(EXIT_PREFIX).and_then(parse_status) {
        return Some(Marker::Exit(status));
    }
    if let Some(request) = line
        .strip_prefix(MOCK_PREFIX)
        .and_then(|text| MockRequest::parse(text).ok())
    {
        return Some(Marker::Mock(request));
    }
    line.strip_prefix(INSMOD_FAILED_PREFIX)
        .and_then(parse_status)
        .map(Marker::InsmodFailed)
}

/// Whether `name` is a peer name: `[a-z0-9-]+`.
pub fn is_peer_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(is_peer_name_byte)
}

fn is_peer_name_byte(byte: u8) -> bool {
    byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'-'
}

/// Recognises a command channel line `XEHPG-VM-PEER=NAME` (a trailing `\r`
/// allowed) naming one of `peers`; returns NAME's index there. A name not
/// configured, or not a name at all, makes no marker: the line stays output.
pub fn peer_marker(line: &str, peers: &[String]) -> Option<usize> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    let name = line.strip_prefix(PEER_PREFIX)?;
    if !is_peer_name(name) {
        return None;
    }
    peers.iter().position(|peer| peer == name)
}

/// The number after the last `prefix` when digits are all that follow it.
fn status_after(line: &str, prefix: &str) -> Option<i32> {
    line.rsplit_once(prefix)
        .and_then(|(_, digits)| parse_status(digits))
}

fn parse_status(digits: &str) -> Option<i32> {
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Whether an unfinished command channel line may still turn out to be a
/// marker, so it must not be shown yet.
fn may_become_marker(partial: &[u8]) -> bool {
    let partial = partial.strip_suffix(b"\r").unwrap_or(partial);
    if let Some(rest) = partial.strip_prefix(MOCK_PREFIX.as_bytes()) {
        return std::str::from_utf8(rest).is_ok_and(MockRequest::could_become);
    }
    // A peer line is held while it may still be a name (the configured
    // names are the session's; a line that is none is let out at its end).
    if let Some(rest) = partial.strip_prefix(PEER_PREFIX.as_bytes()) {
        return rest.iter().copied().all(is_peer_name_byte);
    }
    if PEER_PREFIX.as_bytes().starts_with(partial) {
        return true;
    }
    // A window line is held until its end, whatever follows the prefix.
    if partial.starts_with(WINDOW_PREFIX.as_bytes())
        || WINDOW_PREFIX.as_bytes().starts_with(partial)
    {
        return true;
    }
    [BEGIN, EXIT_PREFIX, INSMOD_FAILED_PREFIX, MOCK_PREFIX]
        .iter()
        .any(|marker| {
            let marker = marker.as_bytes();
            match partial.strip_prefix(marker) {
                None => marker.starts_with(partial),
                Some(rest) => {
                    rest.is_empty()
                        || (marker != BEGIN.as_bytes() && rest.iter().all(u8::is_ascii_digit))
                }
            }
        })
}

/// Where the guest is, as far as the markers show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Kernel boot, mounts and module loading.
    Boot,
    /// The command (or shell) is running.
    Command,
    /// The command has exited with this status.
    Done(i32),
}

/// What the guest has shown so far.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    pub phase: Phase,
    /// Statuses of failed insmods, in order.
    pub insmod_failures: Vec<i32>,
    pub panicked: bool,
    /// Exit markers taken so far (normally one).
    pub exit_markers: u32,
    /// Mock requests taken and not yet carried out by the runner.
    pub mock_requests: Vec<MockRequest>,
    /// Window requests ([`WINDOW_PREFIX`]) seen and not yet carried out.
    pub window_requests: Vec<String>,
    /// The configured peer names (`--peer`), the only ones whose
    /// [`PEER_PREFIX`] lines are markers.
    pub peers: Vec<String>,
    /// Peer requests taken and not yet carried out, by name.
    pub peer_requests: Vec<String>,
}

impl Default for Session {
    fn default() -> Self {
        Self {
            phase: Phase::Boot,
            insmod_failures: Vec::new(),
            panicked: false,
            exit_markers: 0,
            mock_requests: Vec::new(),
            window_requests: Vec::new(),
            peers: Vec::new(),
            peer_requests: Vec::new(),
        }
    }
}

impl Session {
    /// Takes in one line of the command channel; returns the marker it was,
    /// if it was one in its place. Anything else is output.
    ///
    /// BEGIN and insmod failures count before the command only; after BEGIN
    /// such lines are the command's own. Exit markers count from BEGIN on,
    /// and the last one wins: `/init` writes its marker after everything the
    /// command wrote, including a copy of the marker text.
    pub fn on_command_line(&mut self, line: &str) -> Option<Marker> {
        if self.phase == Phase::Command {
            let text = line.strip_suffix('\r').unwrap_or(line);
            if let Some(request) = text.strip_prefix(WINDOW_PREFIX) {
                // Output all the same: the harness splits the output there.
                self.window_requests.push(request.to_string());
                return None;
            }
            if let Some(index) = peer_marker(text, &self.peers) {
                self.peer_requests.push(self.peers[index].clone());
                return Some(Marker::Peer(index));
            }
        }
        let marker = command_marker(line)?;
        match (marker, self.phase) {
            (Marker::Begin, Phase::Boot) => self.phase = Phase::Command,
            (Marker::InsmodFailed(status), Phase::Boot) => self.insmod_failures.push(status),
            (Marker::Exit(status), Phase::Command | Phase::Done(_)) => {
                self.phase = Phase::Done(status);
                self.exit_markers += 1;
            }
            // Only the command asks; the runner drains the list.
            (Marker::Mock(request), Phase::Command) => self.mock_requests.push(request),
            _ => return None,
        }
        Some(marker)
    }

    /// Takes in one line of the kernel console, where only a panic counts.
    pub fn on_console_line(&mut self, line: &str) {
        if line.contains(PANIC) {
            self.panicked = true;
        }
    }

    /// Takes in one line of the interactive shell's shared console. The
    /// first exit marker wins: later ones are the user's doing.
    fn on_shared_line(&mut self, line: &str) {
        match (classify(line), self.phase) {
            (Some(Marker::Begin), Phase::Boot) => self.phase = Phase::Command,
            (Some(Marker::Exit(status)), Phase::Command) => {
                self.phase = Phase::Done(status);
                self.exit_markers += 1;
            }
            (Some(Marker::InsmodFailed(status)), Phase::Boot) => self.insmod_failures.push(status),
            (Some(Marker::Panic), _) => self.panicked = true,
            _ => {}
        }
    }

    /// The command's status, once its marker has been seen.
    pub fn exit_status(&self) -> Option<i32> {
        match self.phase {
            Phase::Done(status) => Some(status),
            _ => None,
        }
    }
}

/// Splits a byte stream into lines, dropping `\n` and trailing `\r`s.
#[derive(Debug, Default)]
pub struct LineSplitter {
    partial: Vec<u8>,
}

impl LineSplitter {
    /// Adds `chunk`; returns the lines it completed.
    pub fn push(&mut self, chunk: &[u8]) -> Vec<String> {
        let mut lines = Vec::new();
        for &byte in chunk {
            if byte == b'\n' {
                lines.push(Self::decode(&self.partial));
                self.partial.clear();
            } else {
                self.partial.push(byte);
            }
        }
        lines
    }

    /// The unterminated last line, if any, at the end of the stream.
    pub fn finish(&mut self) -> Option<String> {
        if self.partial.is_empty() {
            return None;
        }
        let line = Self::decode(&self.partial);
        self.partial.clear();
        Some(line)
    }

    fn decode(bytes: &[u8]) -> String {
        // Lossy: a garbled byte on the serial line must not stop the run.
        String::from_utf8_lossy(bytes)
            .trim_end_matches('\r')
            .to_owned()
    }
}

/// Turns the command channel into the command's output: markers go to the
/// [`Session`], the rest comes out as it went in, a line at a time.
///
/// Each line's `\n` is held back until the next line is known not to be the
/// exit marker, whose leading newline is `/init`'s, not the command's.
/// [`CommandChannel::pause`] lets out what waits when the channel goes
/// quiet, so an unfinished line or the last newline does not wait for the
/// next output.
#[derive(Debug, Default)]
pub struct CommandChannel {
    /// The current line so far, without `\n`.
    line: Vec<u8>,
    /// How much of `line` has been let out already.
    shown: usize,
    /// Whether the previous line's `\n` is still held back.
    newline_held: bool,
}

impl CommandChannel {
    /// Takes in a chunk; returns the output it completed.
    pub fn push(&mut self, chunk: &[u8], session: &mut Session) -> Vec<u8> {
        let mut out = Vec::new();
        for &byte in chunk {
            if byte == b'\n' {
                self.end_line(session, true, &mut out);
            } else {
                self.line.push(byte);
            }
        }
        out
    }

    /// The channel went quiet: returns what is held back, except a line
    /// that may still become a marker.
    pub fn pause(&mut self) -> Vec<u8> {
        let mut out = Vec::new();
        if self.line.is_empty() {
            self.let_out_newline(&mut out);
        } else if self.shown > 0 || !may_become_marker(&self.line) {
            self.let_out_newline(&mut out);
            out.extend_from_slice(&self.line[self.shown..]);
            self.shown = self.line.len();
        }
        out
    }

    /// The channel closed: returns the rest.
    pub fn finish(&mut self, session: &mut Session) -> Vec<u8> {
        let mut out = Vec::new();
        if !self.line.is_empty() {
            self.end_line(session, false, &mut out);
        }
        self.let_out_newline(&mut out);
        out
    }

    /// Ends the current line, which a `\n` ended if `terminated`.
    fn end_line(&mut self, session: &mut Session, terminated: bool, out: &mut Vec<u8>) {
        // A line partly let out was not a marker when it was let out.
        let marker = match self.shown {
            0 => session.on_command_line(&String::from_utf8_lossy(&self.line)),
            _ => None,
        };
        match marker {
            // The newline before it was /init's.
            Some(Marker::Exit(_)) => self.newline_held = false,
            Some(_) => self.let_out_newline(out),
            None => {
                self.let_out_newline(out);
                out.extend_from_slice(&self.line[self.shown..]);
                self.newline_held = terminated;
            }
        }
        self.line.clear();
        self.shown = 0;
    }

    fn let_out_newline(&mut self, out: &mut Vec<u8>) {
        if std::mem::take(&mut self.newline_held) {
            out.push(b'\n');
        }
    }
}

/// The two streams of a batch run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// ttyS0, the kernel console.
    Console,
    /// ttyS1, the command channel.
    Command,
}

/// The user's terminal, written by both streams a line at a time. If one
/// stream left a line unfinished (see [`PARTIAL_LINE_WAIT`]) and the other
/// writes, the unfinished line is ended first, and the newline that later
/// ends it for real is dropped.
struct Terminal<O: Write> {
    out: O,
    /// Set after a failed write (say, a closed pipe): the run goes on, only
    /// the echo stops.
    broken: bool,
    /// The stream whose unfinished line the cursor is at the end of.
    mid_line: Option<Source>,
    /// The stream whose unfinished line was ended for it.
    cut: Option<Source>,
}

impl<O: Write> Terminal<O> {
    fn new(out: O) -> Self {
        Self {
            out,
            broken: false,
            mid_line: None,
            cut: None,
        }
    }

    fn write(&mut self, source: Source, mut bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        if self.mid_line.is_some_and(|other| other != source) {
            self.raw(b"\n");
            self.cut = self.mid_line.take();
        }
        if self.cut == Some(source) {
            self.cut = None;
            bytes = bytes.strip_prefix(b"\n").unwrap_or(bytes);
        }
        if let Some(&last) = bytes.last() {
            self.raw(bytes);
            self.mid_line = (last != b'\n').then_some(source);
        }
    }

    fn raw(&mut self, bytes: &[u8]) {
        if !self.broken && (self.out.write_all(bytes).is_err() || self.out.flush().is_err()) {
            self.broken = true;
        }
    }
}

/// Feeds the two streams to their logs, the user's terminal and a
/// [`Session`]: the console to its log (as received) and, unless quiet, the
/// terminal; the command channel, less its markers, to the output log and
/// the terminal.
pub struct Streams<L: Write, F: Write, O: Write> {
    console_log: L,
    output_log: F,
    terminal: Terminal<O>,
    quiet: bool,
    /// Console lines, for the session.
    console_lines: LineSplitter,
    /// Console bytes after the last complete line, not yet echoed.
    console_partial: Vec<u8>,
    command: CommandChannel,
    /// When each stream last sent something it may still hold back:
    /// [`Source::Console`], then [`Source::Command`].
    last_chunk: [Option<Instant>; 2],
    pub session: Session,
}

impl<L: Write, F: Write, O: Write> Streams<L, F, O> {
    pub fn new(console_log: L, output_log: F, out: O, quiet: bool) -> Self {
        Self {
            console_log,
            output_log,
            terminal: Terminal::new(out),
            quiet,
            console_lines: LineSplitter::default(),
            console_partial: Vec::new(),
            command: CommandChannel::default(),
            last_chunk: [None; 2],
            session: Session::default(),
        }
    }

    /// Takes in a chunk of one stream as QEMU sent it.
    ///
    /// # Errors
    ///
    /// Writing the stream's log failed; the caller decides whether that is
    /// fatal.
    pub fn feed(&mut self, source: Source, chunk: &[u8]) -> std::io::Result<()> {
        match source {
            Source::Console => {
                self.console_log.write_all(chunk)?;
                for line in self.console_lines.push(chunk) {
                    self.session.on_console_line(&line);
                }
                if !self.quiet {
                    // Whole lines, so the other stream's lines stay whole.
                    self.console_partial.extend_from_slice(chunk);
                    if let Some(end) = self.console_partial.iter().rposition(|&b| b == b'\n') {
                        let rest = self.console_partial.split_off(end + 1);
                        let lines = std::mem::replace(&mut self.console_partial, rest);
                        self.terminal.write(Source::Console, &lines);
                    }
                }
            }
            Source::Command => {
                let text = self.command.push(chunk, &mut self.session);
                self.command_output(&text)?;
            }
        }
        self.last_chunk[source as usize] = Some(Instant::now());
        Ok(())
    }

    /// Lets out what a stream holds back once it has been quiet for
    /// [`PARTIAL_LINE_WAIT`] at `now`.
    ///
    /// # Errors
    ///
    /// Writing the output log failed.
    pub fn tick(&mut self, now: Instant) -> std::io::Result<()> {
        for source in [Source::Console, Source::Command] {
            let slot = &mut self.last_chunk[source as usize];
            if slot.is_some_and(|last| now.duration_since(last) >= PARTIAL_LINE_WAIT) {
                *slot = None;
                self.pause(source)?;
            }
        }
        Ok(())
    }

    /// Ends both streams: lets out what they hold back and flushes the logs.
    ///
    /// # Errors
    ///
    /// Writing or flushing a log failed.
    pub fn finish(&mut self) -> std::io::Result<()> {
        if let Some(line) = self.console_lines.finish() {
            self.session.on_console_line(&line);
        }
        self.pause(Source::Console)?;
        let text = self.command.finish(&mut self.session);
        self.command_output(&text)?;
        self.output_log.flush()?;
        self.console_log.flush()
    }

    fn pause(&mut self, source: Source) -> std::io::Result<()> {
        match source {
            Source::Console => {
                let partial = std::mem::take(&mut self.console_partial);
                self.terminal.write(Source::Console, &partial);
                Ok(())
            }
            Source::Command => {
                let text = self.command.pause();
                self.command_output(&text)
            }
        }
    }

    fn command_output(&mut self, text: &[u8]) -> std::io::Result<()> {
        if text.is_empty() {
            return Ok(());
        }
        self.output_log.write_all(text)?;
        self.terminal.write(Source::Command, text);
        Ok(())
    }
}

/// Replays the finished console log of the interactive shell, for its status.
pub fn scan_log(bytes: &[u8]) -> Session {
    let mut session = Session::default();
    let mut lines = LineSplitter::default();
    for line in lines.push(bytes).into_iter().chain(lines.finish()) {
        session.on_shared_line(&line);
    }
    session
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_markers_on_the_shared_console() {
        assert_eq!(classify("XEHPG-VM-BEGIN"), Some(Marker::Begin));
        assert_eq!(classify("XEHPG-VM-BEGIN \r"), Some(Marker::Begin));
        assert_eq!(classify("XEHPG-VM-EXIT=0"), Some(Marker::Exit(0)));
        assert_eq!(classify("XEHPG-VM-EXIT=127"), Some(Marker::Exit(127)));
        assert_eq!(
            classify("XEHPG-VM-INSMOD-FAILED=1"),
            Some(Marker::InsmodFailed(1))
        );
        assert_eq!(
            classify("[    3.1] Kernel panic - not syncing: Attempted to kill init!"),
            Some(Marker::Panic)
        );
        assert_eq!(classify("hello"), None);
        assert_eq!(classify(""), None);
        // A kernel message printed without a newline may precede a marker.
        assert_eq!(
            classify("[    2.000] pci 0000:00:03.0: fooXEHPG-VM-EXIT=3"),
            Some(Marker::Exit(3))
        );
    }

    #[test]
    fn script_text_is_not_a_marker() {
        // What `cat /init` prints must not end the run.
        for line in [
            "echo \"XEHPG-VM-EXIT=$?\"",
            "printf '\\nXEHPG-VM-EXIT=%s\\n' \"$?\"",
            "\techo \"XEHPG-VM-INSMOD-FAILED=$rc\"",
            "XEHPG-VM-EXIT=",
            "XEHPG-VM-EXIT=1x",
            "XEHPG-VM-EXIT=-1",
            "XEHPG-VM-EXIT=99999999999",
        ] {
            assert_eq!(classify(line), None, "{line}");
            assert_eq!(command_marker(line), None, "{line}");
        }
    }

    #[test]
    fn command_markers_are_whole_lines() {
        assert_eq!(command_marker("XEHPG-VM-BEGIN"), Some(Marker::Begin));
        assert_eq!(command_marker("XEHPG-VM-BEGIN\r"), Some(Marker::Begin));
        assert_eq!(command_marker("XEHPG-VM-EXIT=4"), Some(Marker::Exit(4)));
        assert_eq!(command_marker("XEHPG-VM-EXIT=4\r"), Some(Marker::Exit(4)));
        assert_eq!(
            command_marker("XEHPG-VM-INSMOD-FAILED=17"),
            Some(Marker::InsmodFailed(17))
        );
        // The line that once cost a run its status, and its mirror image.
        assert_eq!(
            command_marker("XEHPG-VM-BEGIN[    2.089977] tsc: Refined TSC clocksource calibration"),
            None
        );
        assert_eq!(command_marker("[    2.0] fooXEHPG-VM-EXIT=3"), None);
        assert_eq!(command_marker(" XEHPG-VM-BEGIN"), None);
        assert_eq!(command_marker("XEHPG-VM-BEGIN "), None);
        // The console's business, not the channel's.
        assert_eq!(command_marker("Kernel panic - not syncing: VFS"), None);
    }

    #[test]
    fn marker_prefixes_are_held_back() {
        for partial in [
            "",
            "X",
            "XEHPG-VM-",
            "XEHPG-VM-BEGIN",
            "XEHPG-VM-BEGIN\r",
            "XEHPG-VM-EXIT=",
            "XEHPG-VM-EXIT=12",
            "XEHPG-VM-INSMOD-F",
            "XEHPG-VM-MO",
            "XEHPG-VM-MOCK=",
            "XEHPG-VM-MOCK=surprise-rem",
            "XEHPG-VM-MOCK=surprise-removal",
            "XEHPG-VM-MOCK=irq:guc:80",
            "XEHPG-VM-MOCK=gt-error:fatal:1",
            "XEHPG-VM-MOCK=spurious",
        ] {
            assert!(may_become_marker(partial.as_bytes()), "{partial:?}");
        }
        for partial in [
            "ok 1",
            "XEHPG-VM-BEGINx",
            "XEHPG-VM-EXIT=1 ",
            "xehpg",
            "XEHPG-VM-MOCK=reboot",
            "XEHPG-VM-MOCK=surprise-removal ",
            "XEHPG-VM-MOCK=irq:guc 1",
        ] {
            assert!(!may_become_marker(partial.as_bytes()), "{partial:?}");
        }
    }

    #[test]
    fn command_channel_session_follows_the_phases() {
        let mut session = Session::default();
        assert_eq!(session.on_command_line("insmod: can't insert"), None);
        // An exit marker before BEGIN is not /init's.
        assert_eq!(session.on_command_line("XEHPG-VM-EXIT=0"), None);
        assert_eq!(
            session.on_command_line("XEHPG-VM-INSMOD-FAILED=2"),
            Some(Marker::InsmodFailed(2))
        );
        assert_eq!(
            session.on_command_line("XEHPG-VM-BEGIN"),
            Some(Marker::Begin)
        );
        assert_eq!(session.phase, Phase::Command);
        // After BEGIN these are the command's output (`cat` of a log, say).
        assert_eq!(session.on_command_line("XEHPG-VM-BEGIN"), None);
        assert_eq!(session.on_command_line("XEHPG-VM-INSMOD-FAILED=1"), None);
        assert_eq!(
            session.on_command_line("XEHPG-VM-EXIT=0"),
            Some(Marker::Exit(0))
        );
        // /init's marker comes last and wins.
        assert_eq!(
            session.on_command_line("XEHPG-VM-EXIT=5"),
            Some(Marker::Exit(5))
        );
        assert_eq!(session.exit_status(), Some(5));
        assert_eq!(session.exit_markers, 2);
        assert_eq!(session.insmod_failures, [2]);
        assert!(!session.panicked);
    }

    #[test]
    fn mock_requests_count_only_while_the_command_runs() {
        let mut session = Session::default();
        let line = "XEHPG-VM-MOCK=surprise-removal";
        assert_eq!(
            command_marker(line),
            Some(Marker::Mock(MockRequest::SurpriseRemoval))
        );
        assert_eq!(
            command_marker("XEHPG-VM-MOCK=surprise-removal\r"),
            command_marker(line)
        );
        assert_eq!(command_marker("XEHPG-VM-MOCK=unplug"), None);
        assert_eq!(command_marker("# XEHPG-VM-MOCK=surprise-removal"), None);
        // Before BEGIN it is nobody's request.
        assert_eq!(session.on_command_line(line), None);
        session.on_command_line("XEHPG-VM-BEGIN");
        assert_eq!(
            session.on_command_line(line),
            Some(Marker::Mock(MockRequest::SurpriseRemoval))
        );
        assert_eq!(session.mock_requests, [MockRequest::SurpriseRemoval]);
        session.on_command_line("XEHPG-VM-EXIT=0");
        assert_eq!(session.on_command_line(line), None, "after the command");
        assert_eq!(session.mock_requests.len(), 1);
    }

    /// The interrupt requests are markers when well formed and output
    /// otherwise; what the runner forwards prints back as the guest wrote it.
    #[test]
    fn interrupt_requests_parse_and_malformed_ones_are_output() {
        use xehpg_mock::regfile::intc::Severity;
        use xehpg_mock::regfile::intc::Source;
        let mut session = Session::default();
        session.on_command_line("XEHPG-VM-BEGIN");
        for (line, want) in [
            (
                "XEHPG-VM-MOCK=irq:guc:8000:1000",
                MockRequest::Irq {
                    source: Source::GUC,
                    data: 0x8000,
                    count: 1000,
                },
            ),
            (
                "XEHPG-VM-MOCK=gt-error:correctable:2",
                MockRequest::GtError {
                    sev: Severity::Correctable,
                    bits: 2,
                },
            ),
            ("XEHPG-VM-MOCK=spurious-msi", MockRequest::SpuriousMsi),
        ] {
            assert_eq!(
                session.on_command_line(line),
                Some(Marker::Mock(want)),
                "{line}"
            );
            assert_eq!(format!("{MOCK_PREFIX}{want}"), line);
        }
        assert_eq!(session.mock_requests.len(), 3);
        for bad in [
            "XEHPG-VM-MOCK=irq",
            "XEHPG-VM-MOCK=irq:guc:8000",
            "XEHPG-VM-MOCK=irq:guc:8000:0",
            "XEHPG-VM-MOCK=irq:guc:18000:1",
            "XEHPG-VM-MOCK=irq:gpu:8000:1",
            "XEHPG-VM-MOCK=irq:guc:8000:1:1",
            "XEHPG-VM-MOCK=irq:guc:8000:x",
            "XEHPG-VM-MOCK=gt-error:severe:1",
            "XEHPG-VM-MOCK=gt-error:fatal:0",
            "XEHPG-VM-MOCK=spurious-msi ",
            "XEHPG-VM-MOCK= irq:guc:8000:1",
        ] {
            assert_eq!(session.on_command_line(bad), None, "{bad}");
        }
        assert_eq!(session.mock_requests.len(), 3);
        // Held back while it may still become one, shown when it cannot.
        let mut channel = CommandChannel::default();
        let mut out = channel.push(b"XEHPG-VM-MOCK=irq:guc:8", &mut session);
        out.extend(channel.pause());
        out.extend(channel.push(b"000:2\nXEHPG-VM-MOCK=irq:guc:8000:0\n", &mut session));
        out.extend(channel.finish(&mut session));
        assert_eq!(
            String::from_utf8_lossy(&out),
            "XEHPG-VM-MOCK=irq:guc:8000:0\n"
        );
        assert_eq!(session.mock_requests.len(), 4);
    }

    fn names(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| (*n).to_owned()).collect()
    }

    #[test]
    fn peer_markers_name_a_configured_peer() {
        let peers = names(&["vf1", "vf-2"]);
        assert_eq!(peer_marker("XEHPG-VM-PEER=vf1", &peers), Some(0));
        assert_eq!(peer_marker("XEHPG-VM-PEER=vf-2\r", &peers), Some(1));
        for line in [
            // Not configured.
            "XEHPG-VM-PEER=vf3",
            "XEHPG-VM-PEER=vf",
            // Malformed.
            "XEHPG-VM-PEER=",
            "XEHPG-VM-PEER=VF1",
            "XEHPG-VM-PEER=vf1 ",
            "XEHPG-VM-PEER= vf1",
            "XEHPG-VM-PEER=vf1=x",
            "XEHPG-VM-PEER=vf1\r\r",
            // Not a whole line.
            " XEHPG-VM-PEER=vf1",
            "# XEHPG-VM-PEER=vf1",
            "XEHPG-VM-PEER=vf1XEHPG-VM-PEER=vf1",
        ] {
            assert_eq!(peer_marker(line, &peers), None, "{line:?}");
        }
        assert_eq!(peer_marker("XEHPG-VM-PEER=vf1", &[]), None);
        assert!(is_peer_name("a-0") && is_peer_name("-"));
        assert!(!is_peer_name("") && !is_peer_name("a_b") && !is_peer_name("\u{e9}"));
    }

    /// A configured peer's line is a marker while the command runs and not
    /// output; any other peer line is output, so the guest's wait for an
    /// answer that never comes fails visibly.
    #[test]
    fn peer_requests_are_taken_while_the_command_runs() {
        let mut session = Session {
            peers: names(&["hello"]),
            ..Session::default()
        };
        let mut channel = CommandChannel::default();
        let mut out = channel.push(b"XEHPG-VM-PEER=hello\n", &mut session);
        assert!(session.peer_requests.is_empty(), "not before BEGIN");
        out.extend(channel.push(b"XEHPG-VM-BEGIN\nbefore\nXEHPG-VM-PEER=hel", &mut session));
        // Held back while it may still become a name.
        out.extend(channel.pause());
        out.extend(channel.push(
            b"lo\nXEHPG-VM-PEER=bye\nXEHPG-VM-PEER=Hello\nafter\n",
            &mut session,
        ));
        out.extend(channel.push(b"\nXEHPG-VM-EXIT=0\n", &mut session));
        assert_eq!(
            session.on_command_line("XEHPG-VM-PEER=hello"),
            None,
            "after the command"
        );
        out.extend(channel.finish(&mut session));
        assert_eq!(session.peer_requests, ["hello"]);
        assert_eq!(
            String::from_utf8_lossy(&out),
            "XEHPG-VM-PEER=hello\nbefore\nXEHPG-VM-PEER=bye\nXEHPG-VM-PEER=Hello\nafter\n"
        );
        let mut session = Session {
            phase: Phase::Command,
            peers: names(&["a", "b"]),
            ..Session::default()
        };
        assert_eq!(
            session.on_command_line("XEHPG-VM-PEER=b"),
            Some(Marker::Peer(1))
        );
        assert_eq!(session.peer_requests, ["b"]);
    }

    #[test]
    fn peer_prefixes_are_held_back_while_they_may_be_a_name() {
        for partial in [
            "XEHPG-VM-P",
            "XEHPG-VM-PEER=",
            "XEHPG-VM-PEER=vf-1",
            "XEHPG-VM-PEER=a\r",
        ] {
            assert!(may_become_marker(partial.as_bytes()), "{partial:?}");
        }
        for partial in ["XEHPG-VM-PEER=A", "XEHPG-VM-PEER=a b", "XEHPG-VM-PEERS"] {
            assert!(!may_become_marker(partial.as_bytes()), "{partial:?}");
        }
    }

    #[test]
    fn a_mock_request_is_not_command_output() {
        let mut session = Session::default();
        let mut channel = CommandChannel::default();
        let mut out = channel.push(b"XEHPG-VM-BEGIN\nbefore\nXEHPG-VM-MOCK=surp", &mut session);
        // The unfinished request is held back even when the channel pauses.
        out.extend(channel.pause());
        out.extend(channel.push(b"rise-removal\nafter\n", &mut session));
        out.extend(channel.finish(&mut session));
        assert_eq!(String::from_utf8_lossy(&out), "before\nafter\n");
        assert_eq!(session.mock_requests, [MockRequest::SurpriseRemoval]);
    }

    #[test]
    fn a_window_request_is_taken_and_stays_in_the_output() {
        let mut session = Session::default();
        let mut channel = CommandChannel::default();
        let mut out = channel.push(b"XEHPG-VM-WINDOW=begin:a:--fault x\n", &mut session);
        assert!(session.window_requests.is_empty(), "not before BEGIN");
        out.extend(channel.push(b"XEHPG-VM-BEGIN\nXEHPG-VM-WIN", &mut session));
        // An unfinished window line waits for its end.
        out.extend(channel.pause());
        out.extend(channel.push(
            b"DOW=begin:b:--fault y\nok\nXEHPG-VM-WINDOW=end:b\n",
            &mut session,
        ));
        out.extend(channel.finish(&mut session));
        assert_eq!(session.window_requests, ["begin:b:--fault y", "end:b"]);
        assert_eq!(
            String::from_utf8_lossy(&out),
            "XEHPG-VM-WINDOW=begin:a:--fault x\nXEHPG-VM-WINDOW=begin:b:--fault y\nok\n\
             XEHPG-VM-WINDOW=end:b\n"
        );
    }

    #[test]
    fn console_lines_only_report_a_panic() {
        let mut session = Session::default();
        session.on_console_line("XEHPG-VM-BEGIN");
        session.on_console_line("XEHPG-VM-EXIT=0");
        assert_eq!(session.phase, Phase::Boot);
        session.on_console_line("[    3.1] Kernel panic - not syncing: VFS");
        assert!(session.panicked);
    }

    #[test]
    fn splitter_handles_chunk_boundaries_and_crlf() {
        let mut lines = LineSplitter::default();
        assert!(lines.push(b"ab").is_empty());
        assert_eq!(lines.push(b"c\r\nde\r"), ["abc"]);
        assert_eq!(lines.push(b"\n\n\xff\r\r\nx"), ["de", "", "\u{fffd}"]);
        assert_eq!(lines.finish().as_deref(), Some("x"));
        assert_eq!(lines.finish(), None);
    }

    /// Runs `chunks` through a channel; returns the output and the session.
    fn channel(chunks: &[&[u8]]) -> (String, Session) {
        let mut session = Session::default();
        let mut channel = CommandChannel::default();
        let mut out = Vec::new();
        for chunk in chunks {
            out.extend(channel.push(chunk, &mut session));
        }
        out.extend(channel.finish(&mut session));
        (String::from_utf8(out).unwrap(), session)
    }

    const CHANNEL: &[u8] = b"insmod: can't insert '/lib/modules/x.ko': No such device\n\
xehpg-vm: insmod /lib/modules/x.ko failed\nXEHPG-VM-INSMOD-FAILED=1\n\
XEHPG-VM-BEGIN\nhi\nok 3 - probe\n\nXEHPG-VM-EXIT=4\n";

    #[test]
    fn command_channel_yields_the_output_without_markers() {
        let expected = "insmod: can't insert '/lib/modules/x.ko': No such device\n\
xehpg-vm: insmod /lib/modules/x.ko failed\nhi\nok 3 - probe\n";
        let (out, session) = channel(&[CHANNEL]);
        assert_eq!(out, expected);
        assert_eq!(session.exit_status(), Some(4));
        assert_eq!(session.insmod_failures, [1]);
        // Byte by byte: the worst chunking a socket can produce.
        let bytes: Vec<&[u8]> = CHANNEL.iter().map(std::slice::from_ref).collect();
        assert_eq!(channel(&bytes), (out, session));
    }

    #[test]
    fn command_output_is_kept_byte_for_byte() {
        let run = |output: &str| {
            let text = format!("XEHPG-VM-BEGIN\n{output}\nXEHPG-VM-EXIT=2\n");
            let (out, session) = channel(&[text.as_bytes()]);
            assert_eq!(session.exit_status(), Some(2), "{output:?}");
            out
        };
        for output in ["", "a", "a\n", "a\n\n", "\n", "a\nb", " XEHPG-VM-EXIT=0\n"] {
            assert_eq!(run(output), output);
        }
    }

    #[test]
    fn command_channel_tolerates_crlf() {
        let (out, session) = channel(&[b"XEHPG-VM-BEGIN\r\nhi\r\n\r\nXEHPG-VM-EXIT=1\r\n"]);
        assert_eq!(session.exit_status(), Some(1));
        assert!(out.starts_with("hi\r\n"), "{out:?}");
    }

    #[test]
    fn pause_lets_out_unfinished_lines_but_not_markers() {
        let mut session = Session::default();
        let mut channel = CommandChannel::default();
        assert_eq!(channel.push(b"XEHPG-VM-BEGIN\nprompt> ", &mut session), b"");
        assert_eq!(channel.pause(), b"prompt> ");
        assert_eq!(channel.pause(), b"");
        assert_eq!(channel.push(b"y\nline\n", &mut session), b"y\nline");
        assert_eq!(channel.pause(), b"\n");
        // A marker's start waits for the rest of its line.
        assert_eq!(channel.push(b"\nXEHPG-VM-EX", &mut session), b"");
        assert_eq!(channel.pause(), b"");
        assert_eq!(channel.push(b"IT=3\n", &mut session), b"");
        assert_eq!(channel.finish(&mut session), b"");
        assert_eq!(session.exit_status(), Some(3));
    }

    #[test]
    fn unterminated_marker_at_the_end_counts() {
        let (out, session) = channel(&[b"XEHPG-VM-BEGIN\nx\nXEHPG-VM-EXIT=9"]);
        assert_eq!((out.as_str(), session.exit_status()), ("x", Some(9)));
    }

    /// Console and command chunks as they might arrive, cutting lines.
    const CONSOLE_A: &[u8] = b"[    2.08] tsc: Refined TSC";
    const CONSOLE_B: &[u8] = b" clocksource calibration\r\n[    2.09] xehpg: bound\r\n";
    const COMMAND_A: &[u8] = b"XEHPG-VM-BEG";
    const COMMAND_B: &[u8] = b"IN\nok 1 - a\nok 2";
    const COMMAND_C: &[u8] = b" - b\n\nXEHPG-VM-EXIT=0\n";

    fn interleaved(quiet: bool) -> Streams<Vec<u8>, Vec<u8>, Vec<u8>> {
        let mut streams = Streams::new(Vec::new(), Vec::new(), Vec::new(), quiet);
        streams.feed(Source::Console, CONSOLE_A).unwrap();
        streams.feed(Source::Command, COMMAND_A).unwrap();
        streams.feed(Source::Command, COMMAND_B).unwrap();
        streams.feed(Source::Console, CONSOLE_B).unwrap();
        streams.feed(Source::Command, COMMAND_C).unwrap();
        streams.finish().unwrap();
        streams
    }

    #[test]
    fn streams_keep_kernel_messages_out_of_the_command_lines() {
        let streams = interleaved(false);
        assert_eq!(streams.console_log, [CONSOLE_A, CONSOLE_B].concat());
        assert_eq!(
            String::from_utf8_lossy(&streams.output_log),
            "ok 1 - a\nok 2 - b\n"
        );
        // Interleaved by arrival, whole lines each.
        assert_eq!(
            String::from_utf8_lossy(&streams.terminal.out),
            "ok 1 - a\n[    2.08] tsc: Refined TSC clocksource calibration\r\n\
             [    2.09] xehpg: bound\r\nok 2 - b\n"
        );
        assert_eq!(streams.session.exit_status(), Some(0));
        assert_eq!(streams.session.phase, Phase::Done(0));
    }

    #[test]
    fn quiet_streams_show_only_the_command_channel() {
        let streams = interleaved(true);
        assert_eq!(streams.terminal.out, streams.output_log);
        assert_eq!(streams.console_log, [CONSOLE_A, CONSOLE_B].concat());
        assert_eq!(streams.session.exit_status(), Some(0));
    }

    #[test]
    fn tick_shows_a_quiet_stream_and_keeps_lines_apart() {
        let mut streams = Streams::new(Vec::new(), Vec::new(), Vec::new(), false);
        streams
            .feed(Source::Command, b"XEHPG-VM-BEGIN\nfoo")
            .unwrap();
        streams.tick(Instant::now()).unwrap();
        assert!(streams.terminal.out.is_empty());
        streams
            .tick(Instant::now() + PARTIAL_LINE_WAIT * 2)
            .unwrap();
        assert_eq!(streams.terminal.out, b"foo");
        streams.feed(Source::Console, b"[ 1.0] kmsg\r\n").unwrap();
        streams.feed(Source::Command, b"bar\n").unwrap();
        streams
            .feed(Source::Command, b"\nXEHPG-VM-EXIT=1\n")
            .unwrap();
        streams.finish().unwrap();
        assert_eq!(
            String::from_utf8_lossy(&streams.terminal.out),
            "foo\n[ 1.0] kmsg\r\nbar\n"
        );
        assert_eq!(streams.output_log, b"foobar\n");
        assert_eq!(streams.session.exit_status(), Some(1));
    }

    #[test]
    fn cut_line_loses_only_its_own_newline() {
        let mut terminal = Terminal::new(Vec::new());
        terminal.write(Source::Command, b"a");
        terminal.write(Source::Console, b"k\r\n");
        terminal.write(Source::Command, b"\n");
        terminal.write(Source::Command, b"b\n");
        assert_eq!(terminal.out, b"a\nk\r\nb\n");
    }

    #[test]
    fn streams_survive_a_broken_terminal() {
        struct Broken;
        impl Write for Broken {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Err(std::io::ErrorKind::BrokenPipe.into())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let mut streams = Streams::new(Vec::new(), Vec::new(), Broken, false);
        streams.feed(Source::Console, CONSOLE_B).unwrap();
        streams.feed(Source::Command, CHANNEL).unwrap();
        streams.finish().unwrap();
        assert_eq!(streams.session.exit_status(), Some(4));
        assert_eq!(streams.console_log, CONSOLE_B);
        assert!(streams.terminal.broken);
    }

    #[test]
    fn scan_log_follows_the_shared_console() {
        let session = scan_log(
            b"[    0.0] Linux version\r\nXEHPG-VM-INSMOD-FAILED=2\r\n[ 1.0] fooXEHPG-VM-BEGIN\r\n\
/ # cat /init\r\necho \"XEHPG-VM-EXIT=$?\"\r\n/ # exit 4\r\nXEHPG-VM-EXIT=4\r\nXEHPG-VM-EXIT=5",
        );
        assert_eq!(session.exit_status(), Some(4));
        assert_eq!(session.insmod_failures, [2]);
        assert!(!session.panicked);
    }

    #[test]
    fn scan_log_finds_a_panic() {
        let session = scan_log(b"XEHPG-VM-BEGIN\r\nKernel panic - not syncing: VFS");
        assert!(session.panicked);
        assert_eq!(session.exit_status(), None);
    }
}
