//! The guest console stream: marker detection, quiet filtering and logging.
//!
//! `/init` (see [`crate::init_script`]) prints [`BEGIN`] before the command
//! and `XEHPG-VM-EXIT=<status>` after it. Everything else on the serial line
//! is kernel messages and the command's output, interleaved. QEMU passes the
//! serial bytes through unchanged, so lines end in `\r\n`.

use std::io::Write;

/// Printed by `/init` right before the command.
pub const BEGIN: &str = "XEHPG-VM-BEGIN";
/// Printed by `/init` after the command, followed by its status.
pub const EXIT_PREFIX: &str = "XEHPG-VM-EXIT=";
/// Printed by `/init` when insmod fails, followed by insmod's status.
pub const INSMOD_FAILED_PREFIX: &str = "XEHPG-VM-INSMOD-FAILED=";
/// The kernel's panic banner.
const PANIC: &str = "Kernel panic - not syncing";

/// A console line that means something to the runner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    Begin,
    Exit(i32),
    InsmodFailed(i32),
    Panic,
}

/// Recognises a marker in one line (line ending already stripped).
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

/// The number after the last `prefix` when digits are all that follow it.
fn status_after(line: &str, prefix: &str) -> Option<i32> {
    let (_, digits) = line.rsplit_once(prefix)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Where the guest is, as far as the console shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Kernel boot, mounts and module loading.
    Boot,
    /// The command (or shell) is running.
    Command,
    /// The command has exited with this status.
    Done(i32),
}

/// What the console has shown so far.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    pub phase: Phase,
    /// Statuses of failed insmods, in order.
    pub insmod_failures: Vec<i32>,
    pub panicked: bool,
}

impl Default for Session {
    fn default() -> Self {
        Self {
            phase: Phase::Boot,
            insmod_failures: Vec::new(),
            panicked: false,
        }
    }
}

impl Session {
    /// Takes in one line; returns whether quiet mode shows it.
    ///
    /// Quiet mode shows the command's section without its markers, plus the
    /// lines that explain a failure wherever they occur (insmod failures and
    /// a panic), since nothing else of the console is printed.
    pub fn on_line(&mut self, line: &str) -> bool {
        match (classify(line), self.phase) {
            (Some(Marker::Begin), Phase::Boot) => {
                self.phase = Phase::Command;
                false
            }
            (Some(Marker::Exit(status)), Phase::Command) => {
                self.phase = Phase::Done(status);
                false
            }
            (Some(Marker::InsmodFailed(status)), Phase::Boot) => {
                self.insmod_failures.push(status);
                true
            }
            (Some(Marker::Panic), _) => {
                self.panicked = true;
                true
            }
            (_, phase) => phase == Phase::Command,
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

/// Feeds console bytes to the log, the user's terminal and a [`Session`].
pub struct Console<L: Write, O: Write> {
    log: L,
    out: O,
    quiet: bool,
    /// Set after a failed write to `out` (say, a closed pipe): the run goes
    /// on, only the echo stops.
    out_broken: bool,
    lines: LineSplitter,
    pub session: Session,
}

impl<L: Write, O: Write> Console<L, O> {
    pub fn new(log: L, out: O, quiet: bool) -> Self {
        Self {
            log,
            out,
            quiet,
            out_broken: false,
            lines: LineSplitter::default(),
            session: Session::default(),
        }
    }

    /// Takes in a chunk as QEMU wrote it.
    ///
    /// # Errors
    ///
    /// Writing the log failed; the caller decides whether that is fatal.
    pub fn feed(&mut self, chunk: &[u8]) -> std::io::Result<()> {
        self.log.write_all(chunk)?;
        if !self.quiet {
            // Raw bytes as they arrive, so prompts without a newline show.
            self.echo(chunk);
        }
        for line in self.lines.push(chunk) {
            self.on_line(&line);
        }
        Ok(())
    }

    /// Ends the stream: handles an unterminated last line and flushes.
    ///
    /// # Errors
    ///
    /// Flushing the log failed.
    pub fn finish(&mut self) -> std::io::Result<()> {
        if let Some(line) = self.lines.finish() {
            self.on_line(&line);
        }
        if !self.out_broken && self.out.flush().is_err() {
            self.out_broken = true;
        }
        self.log.flush()
    }

    fn on_line(&mut self, line: &str) {
        let show = self.session.on_line(line);
        if self.quiet && show {
            self.echo(format!("{line}\n").as_bytes());
        }
    }

    fn echo(&mut self, bytes: &[u8]) {
        if !self.out_broken && (self.out.write_all(bytes).is_err() || self.out.flush().is_err()) {
            self.out_broken = true;
        }
    }
}

/// Replays a finished console log (the interactive mode's), for its status.
pub fn scan_log(bytes: &[u8]) -> Session {
    let mut session = Session::default();
    let mut lines = LineSplitter::default();
    for line in lines.push(bytes).into_iter().chain(lines.finish()) {
        session.on_line(&line);
    }
    session
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_markers() {
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
    }

    #[test]
    fn markers_after_a_kernel_message_on_the_same_line() {
        assert_eq!(
            classify("[    2.000] pci 0000:00:03.0: fooXEHPG-VM-EXIT=3"),
            Some(Marker::Exit(3))
        );
        assert_eq!(
            classify("[    2.000] barXEHPG-VM-BEGIN"),
            Some(Marker::Begin)
        );
    }

    #[test]
    fn script_text_is_not_a_marker() {
        // What `cat /init` prints must not end the run.
        assert_eq!(classify("echo \"XEHPG-VM-EXIT=$?\""), None);
        assert_eq!(classify("\techo \"XEHPG-VM-INSMOD-FAILED=$rc\""), None);
        assert_eq!(classify("XEHPG-VM-EXIT="), None);
        assert_eq!(classify("XEHPG-VM-EXIT=1x"), None);
        assert_eq!(classify("XEHPG-VM-EXIT=-1"), None);
        assert_eq!(classify("XEHPG-VM-EXIT=99999999999"), None);
    }

    #[test]
    fn session_follows_the_phases() {
        let mut session = Session::default();
        assert!(!session.on_line("[    0.0] Linux version 7.3.4"));
        assert!(session.on_line("XEHPG-VM-INSMOD-FAILED=2"));
        assert!(!session.on_line("XEHPG-VM-BEGIN"));
        assert_eq!(session.phase, Phase::Command);
        assert!(session.on_line("Linux (none) 7.3.4"));
        assert!(!session.on_line("XEHPG-VM-EXIT=3"));
        assert_eq!(session.exit_status(), Some(3));
        assert!(!session.on_line("[    4.0] reboot: Power down"));
        assert_eq!(session.insmod_failures, [2]);
        assert!(!session.panicked);
    }

    #[test]
    fn markers_out_of_phase_are_ordinary_lines() {
        let mut session = Session::default();
        // An exit marker before BEGIN would come from the kernel command line
        // or similar; it must not end the run.
        assert!(!session.on_line("XEHPG-VM-EXIT=0"));
        assert_eq!(session.exit_status(), None);
        session.on_line("XEHPG-VM-BEGIN");
        // A second BEGIN is command output (say, `cat` of a log).
        assert!(session.on_line("XEHPG-VM-BEGIN"));
        assert!(session.on_line("XEHPG-VM-INSMOD-FAILED=1"));
        assert!(session.insmod_failures.is_empty());
        session.on_line("XEHPG-VM-EXIT=0");
        session.on_line("XEHPG-VM-EXIT=5");
        assert_eq!(session.exit_status(), Some(0));
    }

    #[test]
    fn panic_is_recorded_in_any_phase() {
        let mut session = Session::default();
        assert!(session.on_line("Kernel panic - not syncing: VFS"));
        assert!(session.panicked);
        assert_eq!(session.exit_status(), None);
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

    const CONSOLE: &[u8] = b"[    0.0] Linux version\r\nXEHPG-VM-BEGIN\r\nLinux (none)\r\n[    1.0] kmsg\r\nXEHPG-VM-EXIT=3\r\n[    1.1] reboot: Power down\r\n";

    #[test]
    fn console_streams_everything_when_not_quiet() {
        let mut console = Console::new(Vec::new(), Vec::new(), false);
        // Byte by byte: the worst chunking a pipe can produce.
        for byte in CONSOLE {
            console.feed(std::slice::from_ref(byte)).unwrap();
        }
        console.finish().unwrap();
        assert_eq!(console.log, CONSOLE);
        assert_eq!(console.out, CONSOLE);
        assert_eq!(console.session.exit_status(), Some(3));
    }

    #[test]
    fn console_quiet_shows_only_the_command_section() {
        let mut console = Console::new(Vec::new(), Vec::new(), true);
        console.feed(CONSOLE).unwrap();
        console.finish().unwrap();
        assert_eq!(console.log, CONSOLE);
        assert_eq!(
            String::from_utf8_lossy(&console.out),
            "Linux (none)\n[    1.0] kmsg\n"
        );
    }

    #[test]
    fn console_survives_a_broken_terminal() {
        struct Broken;
        impl Write for Broken {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Err(std::io::ErrorKind::BrokenPipe.into())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let mut console = Console::new(Vec::new(), Broken, false);
        console.feed(CONSOLE).unwrap();
        console.finish().unwrap();
        assert_eq!(console.session.exit_status(), Some(3));
        assert_eq!(console.log, CONSOLE);
    }

    #[test]
    fn scan_log_finds_the_status_without_final_newline() {
        let session = scan_log(b"XEHPG-VM-BEGIN\r\n/ # exit 4\r\nXEHPG-VM-EXIT=4");
        assert_eq!(session.exit_status(), Some(4));
    }
}
