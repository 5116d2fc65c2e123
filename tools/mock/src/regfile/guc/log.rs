//! The GuC's log buffer: its configuration from the boot parameters, the
//! debug (event) entries the firmware writes, the half-full flush
//! protocol with the host, and the crash dump.
//!
//! Sources: `xe_guc_fwif.h` (`GUC_CTL_LOG_PARAMS` and `GUC_CTL_DEBUG`
//! fields), `xe_guc.c` (`guc_ctl_log_params_flags`, `guc_ctl_debug_flags`),
//! `xe_guc_log.h` (section sizes and order, log levels), `xe_guc_log.c`
//! (`xe_guc_log_load_lic`: how the host walks the state structs and their
//! markers), `abi/guc_log_abi.h` (`struct guc_log_buffer_state` and the
//! flush protocol), `abi/guc_actions_abi.h` (the notifications),
//! `xe_guc_fwif.h` (`XE_GUC_RECV_MSG_*`), `xe_guc.c`
//! (`guc_handle_mmio_msg`), `xe_guc_ct.c` (`guc_crash_process_msg`); i915
//! for what xe does not do yet: `intel_guc_log.c`
//! (`_guc_log_copy_debuglogs_for_relay`: the host's acknowledgement,
//! `intel_guc_check_log_buf_overflow`: the 4-bit full count) and an older
//! `intel_guc.c` (`GUC_LOG_DEFAULT_DISABLED`). The entry format and
//! everything the firmware decides on its own are `[MODEL]`;
//! Documentation/mock.rst ("The GuC log") lists each choice.
//!
//! # Configuration
//!
//! `GUC_CTL_LOG_PARAMS`: `VALID` (bit 0), `NOTIFY_ON_HALF_FULL` (1),
//! `CAPTURE_ALLOC_UNITS` (2: the capture size counts MiB, else 4 KiB),
//! `LOG_ALLOC_UNITS` (3: the crash and debug sizes count MiB, else
//! 4 KiB), crash size 5:4, debug size 9:6, capture size 11:10 (each the
//! number of units less one), buffer address 31:12. The buffer is one
//! 4 KiB header page, then the debug, crash and capture sections in that
//! order (`xe_guc_log.h` offsets). The whole buffer must translate through
//! the GGTT, else the boot fails `INIT_DATA_INVALID` (`boot.rs`).
//!
//! `GUC_CTL_DEBUG`: verbosity 1:0, destination 5:4 (not modelled),
//! `GUC_LOG_DISABLED` (bit 6: verbose logging off), and
//! [`DEFAULT_DISABLED`] (bit 10: all logging off, `[MODEL]`, below). The
//! mock keeps it as upstream's log level: 0 (bit 10) writes nothing, 1
//! (bit 6) only the non-verbose entries (errors, resets, crashes), 2..5
//! (neither) the verbose entries too, at verbosity 0..3.
//!
//! `[MODEL]` Bit 10: the current GuC interface has no bit that turns the
//! default logging off (xe writes bit 6 for levels 0 and 1 alike; its
//! `xe_guc_log.h` says the default logging ignores the enable bit). i915
//! once wrote `GUC_LOG_DEFAULT_DISABLED`, bit 10 of its debug word, for
//! level 0; the mock takes that bit with that meaning so a test can have
//! a silent log. Bit 7 is i915's `GUC_PROFILE_ENABLED`, not modelled.
//!
//! # Header page
//!
//! Three `struct guc_log_buffer_state` (36 bytes, packed) at 0, 36 and 72:
//! debug, crash, capture (the order of `enum guc_log_type`; the DOC
//! drawing's 32-byte spacing is not what the struct's size gives, and
//! both xe and i915 step by the struct). At each boot the GuC writes each
//! one's markers (the ones `xe_guc_log.c` recognises), `size`, `version`
//! ([`FORMAT_VERSION`]) and zeroes the rest (`[MODEL]`: a fresh firmware
//! starts its log at the section's start). The fourth slot (a LIC in
//! newer firmware) is left alone, so the host's walk ends there.
//!
//! # Entries
//!
//! `[MODEL]` An entry is [`ENTRY_BYTES`] bytes, four dwords: device time
//! in microseconds (low 32 bits), `seq << 16 | code` (seq counts entries
//! since the boot, modulo 2^16), two arguments. Codes ([`code`]):
//! non-verbose: a context reset by the GuC, a failed engine reset, a
//! crash, an exception, a test burst; verbosity 0 and up: each H2G request
//! read from the PF's CT (action, fence); verbosity 1 and up: each context
//! the GuC loads onto an engine (guc_id, class << 8 | instance).
//!
//! Each entry goes at the debug section's `write_ptr`, which then moves
//! on; at the section's end it wraps to 0, `wrap_offset` = the section
//! size (the byte after the last entry before the wrap). The GuC counts
//! what the host has not acknowledged: an entry that would overwrite
//! unacknowledged bytes (a full section) is an overflow: `buffer_full_cnt`
//! (flags 4:1) goes up by one, modulo 16, once per section-size of bytes
//! overwritten, and the entry is written.
//!
//! # Flush protocol
//!
//! With `NOTIFY_ON_HALF_FULL`, when the unacknowledged bytes reach half
//! the section the GuC sets `flush_to_file` (flags bit 0), sets
//! `sampled_write_ptr` to `write_ptr` and sends the G2H EVENT
//! `NOTIFY_FLUSH_LOG_BUFFER_TO_FILE` (0x8003; with the CT not enabled the
//! event is lost, `[MODEL]`). Then it sends nothing more until the host
//! acknowledges, as i915's relay does: `read_ptr` = `sampled_write_ptr`,
//! `flush_to_file` cleared. The GuC looks at the state when it writes
//! entries and, while it waits, at most once per [`POLL`]. An
//! acknowledgement with `read_ptr` other than `sampled_write_ptr` is a
//! `guc_log_ack_bad` violation (the GuC takes the `read_ptr` if it is
//! inside the section, else the sampled one). A host that never
//! acknowledges gets overflows, not more notifications. Without
//! `NOTIFY_ON_HALF_FULL` the GuC never notifies: it wraps and counts
//! overflows against the last `read_ptr` it saw.
//!
//! # Crash dump and exception
//!
//! `guc:crash:1` and `guc:exception:1` (test control, READY uKernel):
//! the GuC logs a non-verbose entry, writes a crash record at the crash
//! section's start ([`CRASH_MAGIC`], the kind, `GUC_STATUS`, the EIP, the
//! number of entries that follow, the time, then the last
//! [`CRASH_ENTRIES`] log entries), sets that section's `write_ptr` and
//! `sampled_write_ptr` to the record's length, and posts the event: with
//! the CT enabled the G2H EVENT `NOTIFY_CRASH_DUMP_POSTED` (0x8004) or
//! `NOTIFY_EXCEPTION` (0x8005) (`xe_guc_ct.c` `guc_crash_process_msg`),
//! otherwise `XE_GUC_RECV_MSG_CRASH_DUMP_POSTED` (bit 1) or
//! `XE_GUC_RECV_MSG_EXCEPTION` (bit 30) ORed into `SOFT_SCRATCH(15)`,
//! which upstream reads when it enables the CT (`guc_handle_mmio_msg`),
//! with a GuC-to-host interrupt. An exception also sets `GUC_STATUS`'s
//! uKernel field to `EXCEPTION` (0x70) and puts [`RUNTIME_EIP`] in
//! `SOFT_SCRATCH(13)`, where upstream reads the EIP of an exception.
//! `[MODEL]` After either the uKernel stops, as under `guc:hang:1`
//! ([`Guc::hang`]): only a GuC reset, a device reset or a Driver-FLR
//! brings it back.

use std::collections::VecDeque;
use std::time::Duration;

use super::ggtt::Gtt;
use super::ggtt::PAGE;
use super::Bus;
use super::Guc;
use crate::abi;
use crate::control::GucRequest;
use crate::recorder::Recorder;
use crate::trace::Event;
use crate::trace::Hex;

/// `GUC_LOG_NOTIFY_ON_HALF_FULL` of `GUC_CTL_LOG_PARAMS`.
pub const NOTIFY_ON_HALF_FULL: u32 = 1 << 1;
/// `GUC_LOG_CAPTURE_ALLOC_UNITS`: the capture size counts MiB.
pub const CAPTURE_ALLOC_UNITS: u32 = 1 << 2;
/// `GUC_LOG_LOG_ALLOC_UNITS`: the crash and debug sizes count MiB.
pub const LOG_ALLOC_UNITS: u32 = 1 << 3;
/// `GUC_LOG_CRASH_DUMP`: bits 5:4 (shift, width mask).
const CRASH_FIELD: (u32, u32) = (4, 0x3);
/// `GUC_LOG_EVENT_DATA`: bits 9:6.
const DEBUG_FIELD: (u32, u32) = (6, 0xF);
/// `GUC_LOG_STATE_CAPTURE`: bits 11:10.
const CAPTURE_FIELD: (u32, u32) = (10, 0x3);

/// `GUC_CTL_DEBUG`: the boot parameter's index.
pub const CTL_DEBUG: u32 = 3;
/// `GUC_LOG_VERBOSITY` of `GUC_CTL_DEBUG`: bits 1:0.
pub const VERBOSITY: u32 = 0x3;
/// `GUC_LOG_DISABLED` of `GUC_CTL_DEBUG`: verbose logging off.
pub const LOG_DISABLED: u32 = 1 << 6;
/// All logging off (`[MODEL]`, module docs: i915's old
/// `GUC_LOG_DEFAULT_DISABLED`).
pub const DEFAULT_DISABLED: u32 = 1 << 10;

/// The header page before the sections.
pub const HEADER_BYTES: u64 = PAGE;
/// `sizeof(struct guc_log_buffer_state)`.
pub const STATE_BYTES: u64 = 36;
/// Byte offsets in `struct guc_log_buffer_state`.
pub mod state {
    /// `marker[2]`.
    pub const MARKER: u64 = 0;
    /// `read_ptr`: written by the host.
    pub const READ_PTR: u64 = 8;
    /// `write_ptr`.
    pub const WRITE_PTR: u64 = 12;
    /// `size`.
    pub const SIZE: u64 = 16;
    /// `sampled_write_ptr`.
    pub const SAMPLED_WRITE_PTR: u64 = 20;
    /// `wrap_offset`.
    pub const WRAP_OFFSET: u64 = 24;
    /// `flags`: `flush_to_file` bit 0, `buffer_full_cnt` 4:1.
    pub const FLAGS: u64 = 28;
    /// `version`.
    pub const VERSION: u64 = 32;
}
/// `GUC_LOG_BUFFER_STATE_FLUSH_TO_FILE`.
pub const FLUSH_TO_FILE: u32 = 1 << 0;
/// `GUC_LOG_BUFFER_STATE_BUFFER_FULL_CNT`: bits 4:1.
pub const FULL_CNT_SHIFT: u32 = 1;

/// The sections, in header and data order (`enum guc_log_type`).
pub const DEBUG: usize = 0;
/// The crash dump section.
pub const CRASH: usize = 1;
/// The error state capture section.
pub const CAPTURE: usize = 2;

/// The markers of each section's state (`xe_guc_log.c`: the event log's,
/// the crash dump's, the state capture's).
pub const MARKERS: [[u32; 2]; 3] = [
    [0xCABB_A9E6, 0xDEAD_FEED],
    [0xCABB_A9E6, 0x8086_DEAD],
    [0xCABB_A9F7, 0xBEEF_FEED],
];
/// `version` the mock's firmware writes (`[MODEL]`: its own entry format).
pub const FORMAT_VERSION: u32 = 1;
/// Bytes of one log entry (`[MODEL]`).
pub const ENTRY_BYTES: u32 = 16;
/// How often the GuC looks for the host's acknowledgement while it waits
/// for one (`[MODEL]`).
pub const POLL: Duration = Duration::from_millis(1);

/// `XE_GUC_ACTION_NOTIFY_CRASH_DUMP_POSTED`.
pub const NOTIFY_CRASH_DUMP_POSTED: u32 = 0x8004;
/// `XE_GUC_ACTION_NOTIFY_EXCEPTION`.
pub const NOTIFY_EXCEPTION: u32 = 0x8005;
/// `XE_GUC_RECV_MSG_CRASH_DUMP_POSTED` in `SOFT_SCRATCH(15)`.
pub const RECV_MSG_CRASH_DUMP_POSTED: u32 = 1 << 1;
/// `XE_GUC_RECV_MSG_EXCEPTION` in `SOFT_SCRATCH(15)`.
pub const RECV_MSG_EXCEPTION: u32 = 1 << 30;

/// First dword of a crash record (`[MODEL]`: "GCRD" read as bytes).
pub const CRASH_MAGIC: u32 = u32::from_le_bytes(*b"GCRD");
/// Dwords of a crash record's header.
pub const CRASH_HEADER_DWORDS: usize = 6;
/// Log entries a crash record carries, the newest last (`[MODEL]`).
pub const CRASH_ENTRIES: usize = 8;
/// The EIP an exception reports in `SOFT_SCRATCH(13)` (`[MODEL]`: an
/// address in the GuC's SRAM, like the boot exception's).
pub const RUNTIME_EIP: u32 = 0x0000_9C40;

/// Entry codes (`[MODEL]`, module docs).
pub mod code {
    /// An H2G request read from the PF's CT: action, fence.
    pub const H2G: u32 = 0x01;
    /// A context loaded onto an engine: guc_id, class << 8 | instance.
    pub const LOAD: u32 = 0x02;
    /// A context reset by the GuC: guc_id, class << 8 | instance.
    pub const CONTEXT_RESET: u32 = 0x10;
    /// An engine reset that failed: class << 8 | instance, guc_id.
    pub const ENGINE_FAILED: u32 = 0x11;
    /// `guc:crash:1`: GUC_STATUS, 0.
    pub const CRASH: u32 = 0x20;
    /// `guc:exception:1`: GUC_STATUS, EIP.
    pub const EXCEPTION: u32 = 0x21;
    /// `guc:log-burst:N`: index in the burst, N.
    pub const BURST: u32 = 0x7F;
}

/// How much an entry needs the log level to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// Errors, resets, crashes: written from level 1 up.
    Error,
    /// Written from verbosity `n` up (level `2 + n`).
    Verbose(u32),
}

/// The log configuration the GuC read at boot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// GGTT address of the buffer.
    pub buf: u64,
    /// `NOTIFY_ON_HALF_FULL`.
    pub notify: bool,
    /// Section sizes in bytes: debug, crash, capture.
    pub sizes: [u32; 3],
    /// Upstream's log level: 0 nothing, 1 non-verbose, 2..5 verbosity
    /// 0..3.
    pub level: u32,
}

impl Config {
    /// Decodes `GUC_CTL_LOG_PARAMS` and `GUC_CTL_DEBUG`.
    ///
    /// # Errors
    ///
    /// What is wrong with them (the boot fails `INIT_DATA_INVALID`).
    pub fn decode(log: u32, debug: u32) -> Result<Config, String> {
        if log & abi::ctl::LOG_VALID == 0 {
            return Err(format!("GUC_CTL_LOG_PARAMS {log:#x} lacks VALID"));
        }
        let units = |flag: u32| if log & flag != 0 { 1u64 << 20 } else { PAGE };
        let count = |(shift, mask): (u32, u32)| u64::from((log >> shift) & mask) + 1;
        let log_units = units(LOG_ALLOC_UNITS);
        let sizes = [
            count(DEBUG_FIELD) * log_units,
            count(CRASH_FIELD) * log_units,
            count(CAPTURE_FIELD) * units(CAPTURE_ALLOC_UNITS),
        ];
        let buf = u64::from(log & abi::ctl::LOG_BUF_ADDR);
        let total = HEADER_BYTES + sizes.iter().sum::<u64>();
        if buf + total > 1 << 32 {
            return Err(format!(
                "GUC_CTL_LOG_PARAMS {log:#x}: a {total:#x}-byte log buffer at {buf:#x} runs past \
                 the GuC's 4 GiB"
            ));
        }
        let level = if debug & DEFAULT_DISABLED != 0 {
            0
        } else if debug & LOG_DISABLED != 0 {
            1
        } else {
            2 + (debug & VERBOSITY)
        };
        Ok(Config {
            buf,
            notify: log & NOTIFY_ON_HALF_FULL != 0,
            // CAST: each at most 16 MiB.
            sizes: sizes.map(|s| s as u32),
            level,
        })
    }

    /// Bytes of the whole buffer: header and sections.
    pub fn total(&self) -> u64 {
        HEADER_BYTES + self.sizes.iter().map(|&s| u64::from(s)).sum::<u64>()
    }

    /// GGTT address of section `i`'s data.
    pub fn section(&self, i: usize) -> u64 {
        self.buf + HEADER_BYTES + self.sizes[..i].iter().map(|&s| u64::from(s)).sum::<u64>()
    }

    /// GGTT address of section `i`'s state struct.
    pub fn state(&self, i: usize) -> u64 {
        // CAST: i < 3.
        self.buf + STATE_BYTES * i as u64
    }

    /// Whether an entry of `class` is written at this level.
    pub fn logs(&self, class: Class) -> bool {
        match class {
            Class::Error => self.level >= 1,
            Class::Verbose(v) => self.level >= 2 + v,
        }
    }

    /// Verbosity 0..3 (0 below level 2).
    pub fn verbosity(&self) -> u32 {
        self.level.saturating_sub(2)
    }
}

/// One log entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    /// Device time, microseconds, low 32 bits.
    pub t_us: u32,
    /// Sequence number (modulo 2^16) and code.
    pub seq: u16,
    /// What happened ([`code`]).
    pub code: u32,
    /// First argument.
    pub a: u32,
    /// Second argument.
    pub b: u32,
}

impl Entry {
    /// The entry's bytes in the buffer.
    pub fn bytes(&self) -> [u8; ENTRY_BYTES as usize] {
        let mut out = [0u8; ENTRY_BYTES as usize];
        let words = [
            self.t_us,
            u32::from(self.seq) << 16 | self.code,
            self.a,
            self.b,
        ];
        for (chunk, w) in out.chunks_exact_mut(4).zip(words) {
            chunk.copy_from_slice(&w.to_le_bytes());
        }
        out
    }
}

/// What placing one entry did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Placed {
    /// Byte offset in the section the entry goes to.
    pub at: u32,
    /// `write_ptr` went back to 0 after it.
    pub wrapped: bool,
    /// It overwrote bytes the host had not acknowledged (counted).
    pub overflow: bool,
    /// The section reached half full: notify the host now.
    pub notify: bool,
}

/// The debug section as the GuC keeps it: pointers, the flush protocol's
/// state and counters. Pure bookkeeping; [`Guc`] writes the memory.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ring {
    /// Section size, bytes.
    pub size: u32,
    /// Where the next entry goes.
    pub write_ptr: u32,
    /// The last `read_ptr` the GuC took from the host.
    pub read_ptr: u32,
    /// Bytes written since that `read_ptr` (at most one section).
    pub unread: u32,
    /// `wrap_offset` as written.
    pub wrap_offset: u32,
    /// `buffer_full_cnt` as written (4 bits).
    pub full_cnt: u32,
    /// `flush_to_file` set, no acknowledgement yet.
    pub waiting: bool,
    /// `sampled_write_ptr` as written.
    pub sampled: u32,
    /// Entries written.
    pub entries: u64,
    /// Wraps to 0.
    pub wraps: u64,
    /// Overflows counted.
    pub overflows: u64,
    /// Half-full notifications.
    pub notifies: u64,
    /// Acknowledgements taken.
    pub acks: u64,
}

/// What the host's state said when the GuC looked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ack {
    /// Nothing to take: no acknowledgement awaited, or not given yet.
    None,
    /// Acknowledged; `bad` says why it broke the protocol, if it did;
    /// `renotify`: the section is still half full, notify again.
    Taken {
        /// The `read_ptr` the host wrote.
        read_ptr: u32,
        /// What was wrong with it.
        bad: Option<String>,
        /// Notify again at once.
        renotify: bool,
    },
}

impl Ring {
    /// An empty section of `size` bytes.
    pub fn new(size: u32) -> Ring {
        Ring {
            size,
            ..Ring::default()
        }
    }

    /// Places one entry (module docs, "Entries" and "Flush protocol").
    pub fn place(&mut self, notify: bool) -> Placed {
        let mut p = Placed {
            at: self.write_ptr,
            ..Placed::default()
        };
        self.write_ptr += ENTRY_BYTES;
        if self.write_ptr + ENTRY_BYTES > self.size {
            self.wrap_offset = self.write_ptr;
            self.write_ptr = 0;
            self.wraps += 1;
            p.wrapped = true;
        }
        if self.unread + ENTRY_BYTES > self.size {
            // The section is full of bytes the host has not acknowledged:
            // this entry starts another lap over them.
            self.overflows += 1;
            self.full_cnt = (self.full_cnt + 1) & 0xF;
            self.unread = self.unread + ENTRY_BYTES - self.size;
            p.overflow = true;
        } else {
            self.unread += ENTRY_BYTES;
        }
        self.entries += 1;
        p.notify = notify && self.half_full();
        if p.notify {
            self.sample();
        }
        p
    }

    fn half_full(&self) -> bool {
        !self.waiting && self.unread >= self.size / 2
    }

    fn sample(&mut self) {
        self.waiting = true;
        self.sampled = self.write_ptr;
        self.notifies += 1;
    }

    /// The host's `read_ptr` and `flags` as the GuC just read them.
    pub fn look(&mut self, read_ptr: u32, flags: u32, notify: bool) -> Ack {
        if !self.waiting {
            // Without an acknowledgement awaited the GuC still follows the
            // host's reading (a host that reads without being asked).
            if read_ptr < self.size && read_ptr != self.read_ptr {
                self.take(read_ptr);
            }
            return Ack::None;
        }
        if flags & FLUSH_TO_FILE != 0 {
            return Ack::None;
        }
        self.waiting = false;
        self.acks += 1;
        let bad = if read_ptr >= self.size {
            let why = format!(
                "the host acknowledged a GuC log flush with read_ptr {read_ptr:#x}, outside the \
                 {:#x}-byte debug section; the GuC takes sampled_write_ptr {:#x}",
                self.size, self.sampled
            );
            self.take(self.sampled);
            Some(why)
        } else {
            self.take(read_ptr);
            (read_ptr != self.sampled).then(|| {
                format!(
                    "the host acknowledged a GuC log flush with read_ptr {read_ptr:#x}, not the \
                     sampled_write_ptr {:#x} the GuC set (abi/guc_log_abi.h)",
                    self.sampled
                )
            })
        };
        let renotify = notify && self.half_full();
        if renotify {
            self.sample();
        }
        Ack::Taken {
            read_ptr,
            bad,
            renotify,
        }
    }

    fn take(&mut self, read_ptr: u32) {
        self.read_ptr = read_ptr;
        self.unread = (self.write_ptr + self.size - read_ptr) % self.size;
    }

    /// `flags` as the GuC writes them: `flush_to_file` and the full count.
    pub fn flags(&self) -> u32 {
        u32::from(self.waiting) | self.full_cnt << FULL_CNT_SHIFT
    }
}

/// The log of a booted GuC.
#[derive(Debug, Clone)]
pub struct Active {
    /// What the boot parameters asked for.
    pub config: Config,
    /// The debug section.
    pub ring: Ring,
    /// Entries since the boot (the next one's seq).
    seq: u64,
    /// The newest entries, for a crash record.
    recent: VecDeque<Entry>,
    /// Entries noted, not yet written.
    pending: Vec<Entry>,
    /// When the GuC looks at the host's state next while it waits.
    next_poll: Duration,
}

impl Active {
    fn new(config: Config) -> Active {
        Active {
            ring: Ring::new(config.sizes[DEBUG]),
            config,
            seq: 0,
            recent: VecDeque::new(),
            pending: Vec::new(),
            next_poll: Duration::ZERO,
        }
    }

    /// The last entries written, oldest first.
    pub fn recent(&self) -> impl Iterator<Item = &Entry> {
        self.recent.iter()
    }
}

/// The GuC's log: nothing until a boot took a configuration.
#[derive(Debug, Clone, Default)]
pub struct Log {
    active: Option<Active>,
}

impl Log {
    /// The booted log, if any.
    pub fn active(&self) -> Option<&Active> {
        self.active.as_ref()
    }

    /// Whether the GuC has log work: entries to write or an
    /// acknowledgement to look for.
    pub fn has_work(&self) -> bool {
        self.active
            .as_ref()
            .is_some_and(|a| !a.pending.is_empty() || a.ring.waiting)
    }
}

/// A crash or an exception (`guc:crash:1`, `guc:exception:1`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Crash {
    /// A crash dump.
    Dump,
    /// An exception.
    Exception,
}

impl Crash {
    fn name(self) -> &'static str {
        match self {
            Crash::Dump => "crash_dump",
            Crash::Exception => "exception",
        }
    }
}

/// Writes a little-endian dword; a fault is `guc_dma_fault`.
fn put(gtt: &mut Gtt, addr: u64, v: u32, rec: &mut Recorder) -> bool {
    match gtt.write(addr, &v.to_le_bytes(), "GuC log buffer", rec) {
        Ok(()) => true,
        Err(f) => {
            rec.violation("guc_dma_fault", f.0);
            false
        }
    }
}

/// Reads a little-endian dword; a fault is `guc_dma_fault`.
fn get(gtt: &mut Gtt, addr: u64, rec: &mut Recorder) -> Option<u32> {
    let mut b = [0u8; 4];
    match gtt.read(addr, &mut b, "GuC log buffer", rec) {
        Ok(()) => Some(u32::from_le_bytes(b)),
        Err(f) => {
            rec.violation("guc_dma_fault", f.0);
            None
        }
    }
}

impl Guc {
    /// The GuC's log.
    pub fn log(&self) -> &Log {
        &self.log
    }

    /// A boot took `config`: the header page's states are written
    /// (module docs, "Header page") and logging starts.
    pub(super) fn log_start(&mut self, config: Config, rec: &mut Recorder, bus: &mut dyn Bus) {
        let mut gtt = Gtt::new(bus, &mut self.tlb);
        for (i, markers) in MARKERS.iter().enumerate() {
            let mut s = [0u8; STATE_BYTES as usize];
            let mut set = |off: u64, v: u32| {
                // CAST: offsets inside the 36-byte struct.
                let o = off as usize;
                s[o..o + 4].copy_from_slice(&v.to_le_bytes());
            };
            set(state::MARKER, markers[0]);
            set(state::MARKER + 4, markers[1]);
            set(state::SIZE, config.sizes[i]);
            set(state::VERSION, FORMAT_VERSION);
            if let Err(f) = gtt.write(config.state(i), &s, "GuC log buffer state", rec) {
                rec.violation("guc_dma_fault", f.0);
            }
        }
        rec.emit(Event::GucLogConfig {
            buf: Hex(config.buf),
            level: config.level,
            verbosity: config.verbosity(),
            notify: config.notify,
            debug_size: config.sizes[DEBUG].into(),
            crash_size: config.sizes[CRASH].into(),
            capture_size: config.sizes[CAPTURE].into(),
        });
        self.log.active = Some(Active::new(config));
    }

    /// Notes an entry of `class` if the level logs it; it is written by
    /// the next [`Guc::log_flush`].
    pub(super) fn log_note(&mut self, now: Duration, class: Class, code: u32, a: u32, b: u32) {
        if self.hung {
            return;
        }
        let Some(act) = self.log.active.as_mut() else {
            return;
        };
        if !act.config.logs(class) {
            return;
        }
        act.pending.push(Entry {
            // CAST: the low 32 bits of the time (module docs).
            t_us: super::micros(now) as u32,
            // CAST: modulo 2^16.
            seq: act.seq as u16,
            code,
            a,
            b,
        });
        act.seq += 1;
    }

    /// Writes the noted entries and follows the flush protocol (module
    /// docs): first the host's acknowledgement, if one is awaited, then
    /// each entry, then the pointers; a notification goes into the G2H
    /// backlog (the caller's CT pass writes it).
    pub(super) fn log_flush(&mut self, now: Duration, rec: &mut Recorder, bus: &mut dyn Bus) {
        if self.hung {
            return;
        }
        let Some(act) = self.log.active.as_mut() else {
            return;
        };
        let poll_due = act.ring.waiting && now >= act.next_poll;
        if act.pending.is_empty() && !poll_due {
            return;
        }
        let cfg = act.config;
        let mut gtt = Gtt::new(bus, &mut self.tlb);
        let at = cfg.state(DEBUG);
        let mut notify = false;
        if act.ring.waiting || !act.pending.is_empty() {
            act.next_poll = now + POLL;
            let (Some(read_ptr), Some(flags)) = (
                get(&mut gtt, at + state::READ_PTR, rec),
                get(&mut gtt, at + state::FLAGS, rec),
            ) else {
                act.pending.clear();
                return;
            };
            if let Ack::Taken {
                read_ptr,
                bad,
                renotify,
            } = act.ring.look(read_ptr, flags, cfg.notify)
            {
                if let Some(why) = bad {
                    rec.violation("guc_log_ack_bad", why);
                }
                rec.emit(Event::GucLogAck {
                    read_ptr: read_ptr.into(),
                    sampled_write_ptr: act.ring.sampled.into(),
                });
                notify |= renotify;
                // The host cleared flush_to_file: write the flags back only
                // if the GuC sets it again (below).
            }
        }
        let entries = std::mem::take(&mut act.pending);
        let overflows_before = act.ring.overflows;
        let data = cfg.section(DEBUG);
        let mut run: Vec<u8> = Vec::new();
        let mut run_at = 0u32;
        let mut ok = true;
        for e in &entries {
            let p = act.ring.place(cfg.notify);
            if !run.is_empty() && run_at + run.len() as u32 != p.at {
                ok &= write_run(&mut gtt, data + u64::from(run_at), &run, rec);
                run.clear();
            }
            if run.is_empty() {
                run_at = p.at;
            }
            run.extend_from_slice(&e.bytes());
            if p.wrapped {
                ok &= write_run(&mut gtt, data + u64::from(run_at), &run, rec);
                run.clear();
            }
            notify |= p.notify;
            act.recent.push_back(*e);
            if act.recent.len() > CRASH_ENTRIES {
                act.recent.pop_front();
            }
        }
        if !run.is_empty() {
            ok &= write_run(&mut gtt, data + u64::from(run_at), &run, rec);
        }
        if !entries.is_empty() && ok {
            put(&mut gtt, at + state::WRITE_PTR, act.ring.write_ptr, rec);
            put(&mut gtt, at + state::WRAP_OFFSET, act.ring.wrap_offset, rec);
            rec.emit(Event::GucLogWrite {
                entries: entries.len() as u64,
                write_ptr: act.ring.write_ptr.into(),
                wraps: act.ring.wraps,
            });
        }
        let overflowed = act.ring.overflows > overflows_before;
        if overflowed {
            rec.emit(Event::GucLogOverflow {
                count: act.ring.overflows - overflows_before,
                buffer_full_cnt: act.ring.full_cnt,
            });
        }
        if notify {
            put(
                &mut gtt,
                at + state::SAMPLED_WRITE_PTR,
                act.ring.sampled,
                rec,
            );
        }
        if notify || overflowed {
            put(&mut gtt, at + state::FLAGS, act.ring.flags(), rec);
        }
        if notify {
            let sent = if self.ct.enabled().is_some() {
                self.ct
                    .queue_event(abi::action::NOTIFY_FLUSH_LOG_BUFFER_TO_FILE, &[]);
                "g2h"
            } else {
                "no_channel"
            };
            let act = self.log.active.as_ref();
            rec.emit(Event::GucLogNotify {
                sampled_write_ptr: act.map_or(0, |a| a.ring.sampled.into()),
                unread: act.map_or(0, |a| a.ring.unread.into()),
                sent,
            });
        }
    }

    /// What the GuC's log does as time passes: looks for the host's
    /// acknowledgement, writes what was noted.
    pub(super) fn log_service(&mut self, now: Duration, rec: &mut Recorder, bus: &mut dyn Bus) {
        if self.log.has_work() {
            self.log_flush(now, rec, bus);
        }
    }

    /// Carries out a `guc:log-burst`, `guc:crash` or `guc:exception`
    /// request (traced `guc_log_inject`); any other `guc:` request is not
    /// the log's and does nothing here.
    pub fn log_inject(
        &mut self,
        req: GucRequest,
        now: Duration,
        rec: &mut Recorder,
        bus: &mut dyn Bus,
    ) {
        let result = match req {
            GucRequest::LogBurst { count } => self.log_burst(count, now, rec, bus),
            GucRequest::Crash => self.log_crash(Crash::Dump, now, rec, bus),
            GucRequest::Exception => self.log_crash(Crash::Exception, now, rec, bus),
            _ => return,
        };
        rec.emit(Event::GucLogInject {
            request: req.to_string(),
            result,
        });
    }

    /// Why a log injection cannot run now: a stuck uKernel or one not READY
    /// (the trace's result), or `None`.
    fn log_inject_refused(&self, now: Duration) -> Option<&'static str> {
        if self.hung {
            Some("guc_hung")
        } else if !self.ready(now) {
            Some("not_running")
        } else {
            None
        }
    }

    /// `guc:log-burst:N`: N non-verbose entries at once. The result for
    /// the trace.
    pub fn log_burst(
        &mut self,
        count: u64,
        now: Duration,
        rec: &mut Recorder,
        bus: &mut dyn Bus,
    ) -> &'static str {
        if let Some(refused) = self.log_inject_refused(now) {
            return refused;
        }
        match self.log.active() {
            None => return "no_log",
            Some(a) if !a.config.logs(Class::Error) => return "log_off",
            Some(_) => {}
        }
        // CAST: N is at most MAX_LOG_BURST.
        let n = count as u32;
        for i in 0..n {
            self.log_note(now, Class::Error, code::BURST, i, n);
        }
        self.log_flush(now, rec, bus);
        self.ct_service(now, rec, bus);
        "done"
    }

    /// `guc:crash:1` / `guc:exception:1` (module docs, "Crash dump and
    /// exception"). The result for the trace.
    pub fn log_crash(
        &mut self,
        kind: Crash,
        now: Duration,
        rec: &mut Recorder,
        bus: &mut dyn Bus,
    ) -> &'static str {
        if let Some(refused) = self.log_inject_refused(now) {
            return refused;
        }
        let status = self.status_at(now);
        let (entry_code, eip, action, recv) = match kind {
            Crash::Dump => (
                code::CRASH,
                0,
                NOTIFY_CRASH_DUMP_POSTED,
                RECV_MSG_CRASH_DUMP_POSTED,
            ),
            Crash::Exception => (
                code::EXCEPTION,
                RUNTIME_EIP,
                NOTIFY_EXCEPTION,
                RECV_MSG_EXCEPTION,
            ),
        };
        self.log_note(now, Class::Error, entry_code, status, eip);
        self.log_flush(now, rec, bus);
        let entries = self.write_crash_record(kind, status, eip, now, rec, bus);
        if kind == Crash::Exception {
            let exc = super::status(
                super::AUTH_GOOD,
                abi::ukernel::EXCEPTION,
                abi::bootrom::JUMP_PASSED,
                false,
            );
            self.status.set(now, exc, rec);
            self.soft_scratch[13] = RUNTIME_EIP;
        }
        let posted = if self.ct.enabled().is_some() {
            self.ct.queue_event(action, &[]);
            self.ct_service(now, rec, bus);
            "g2h"
        } else {
            self.soft_scratch[15] |= recv;
            self.interrupt_host();
            "soft_scratch15"
        };
        self.hung = true;
        self.replies.clear();
        rec.emit(Event::GucCrash {
            kind: kind.name(),
            status: Hex(status.into()),
            eip: Hex(eip.into()),
            entries,
            posted,
        });
        "done"
    }

    /// Writes the crash record into the crash section and its state;
    /// the number of log entries it carries (0 without a log).
    fn write_crash_record(
        &mut self,
        kind: Crash,
        status: u32,
        eip: u32,
        now: Duration,
        rec: &mut Recorder,
        bus: &mut dyn Bus,
    ) -> u32 {
        let Some(act) = self.log.active.as_ref() else {
            return 0;
        };
        let cfg = act.config;
        let recent: Vec<Entry> = act.recent().copied().collect();
        // CAST: at most CRASH_ENTRIES.
        let n = recent.len() as u32;
        let header = [
            CRASH_MAGIC,
            match kind {
                Crash::Dump => 1,
                Crash::Exception => 2,
            },
            status,
            eip,
            n,
            // CAST: the low 32 bits of the time.
            super::micros(now) as u32,
        ];
        let mut bytes: Vec<u8> = header.iter().flat_map(|w| w.to_le_bytes()).collect();
        for e in &recent {
            bytes.extend_from_slice(&e.bytes());
        }
        // CAST: at most 24 + 8 * 16 bytes.
        let len = bytes.len() as u32;
        let mut gtt = Gtt::new(bus, &mut self.tlb);
        if write_run(&mut gtt, cfg.section(CRASH), &bytes, rec) {
            let at = cfg.state(CRASH);
            put(&mut gtt, at + state::WRITE_PTR, len, rec);
            put(&mut gtt, at + state::SAMPLED_WRITE_PTR, len, rec);
        }
        n
    }
}

/// Writes `bytes` at `addr`; a fault is `guc_dma_fault`.
fn write_run(gtt: &mut Gtt, addr: u64, bytes: &[u8], rec: &mut Recorder) -> bool {
    match gtt.write(addr, bytes, "GuC log buffer", rec) {
        Ok(()) => true,
        Err(f) => {
            rec.violation("guc_dma_fault", f.0);
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The LOG_PARAMS upstream xe writes on a non-debug build
    /// (`guc_ctl_log_params_flags`): 64 KiB debug and 16 KiB crash in
    /// 4 KiB units, 1 MiB capture in MiB units, notify on half full.
    const XE_LOG: u32 =
        0x0100_0000 | 1 | NOTIFY_ON_HALF_FULL | CAPTURE_ALLOC_UNITS | 3 << 4 | 15 << 6;

    #[test]
    fn log_params_decode_sizes_units_and_address() {
        let c = Config::decode(XE_LOG, LOG_DISABLED).expect("valid");
        assert_eq!(c.buf, 0x0100_0000);
        assert!(c.notify);
        assert_eq!(c.sizes, [64 << 10, 16 << 10, 1 << 20]);
        assert_eq!(c.total(), (4 + 64 + 16 + 1024) << 10);
        assert_eq!(c.state(DEBUG), 0x0100_0000);
        assert_eq!(c.state(CRASH), 0x0100_0000 + 36);
        assert_eq!(c.state(CAPTURE), 0x0100_0000 + 72);
        assert_eq!(c.section(DEBUG), 0x0100_1000);
        assert_eq!(c.section(CRASH), 0x0101_1000);
        assert_eq!(c.section(CAPTURE), 0x0101_5000);
        // The debug build's sizes: 8 MiB debug and 1 MiB crash in MiB
        // units, 1 MiB capture, no notify.
        let debug = 0x0200_0000 | 1 | LOG_ALLOC_UNITS | CAPTURE_ALLOC_UNITS | 7 << 6;
        let c = Config::decode(debug, 0).expect("valid");
        assert!(!c.notify);
        assert_eq!(c.sizes, [8 << 20, 1 << 20, 1 << 20]);
        // Smallest: one 4 KiB unit each.
        let c = Config::decode(0x1000 | 1, 0).expect("valid");
        assert_eq!(c.sizes, [4096; 3]);
        // Largest fields: 16 and 4 and 4 MiB units.
        let c = Config::decode(0x1000 | 1 | 0xFFC, 0).expect("valid");
        assert_eq!(c.sizes, [16 << 20, 4 << 20, 4 << 20]);
    }

    #[test]
    fn log_params_rejects() {
        let e = Config::decode(XE_LOG & !1, LOG_DISABLED).expect_err("no VALID");
        assert!(e.contains("lacks VALID"), "{e}");
        // A buffer that runs past 4 GiB.
        let e = Config::decode(0xFFFF_F000 | 1, 0).expect_err("past 4 GiB");
        assert!(e.contains("past"), "{e}");
    }

    #[test]
    fn debug_word_decodes_to_upstream_levels() {
        let level = |debug: u32| Config::decode(XE_LOG, debug).expect("valid").level;
        // guc_ctl_debug_flags: levels 0 and 1 write GUC_LOG_DISABLED.
        assert_eq!(level(LOG_DISABLED), 1);
        // The old "default logging off" bit silences it all.
        assert_eq!(level(DEFAULT_DISABLED | LOG_DISABLED), 0);
        assert_eq!(level(DEFAULT_DISABLED), 0);
        // Levels 2..5: verbosity 0..3 without GUC_LOG_DISABLED.
        for v in 0..4 {
            let c = Config::decode(XE_LOG, v).expect("valid");
            assert_eq!(c.level, 2 + v);
            assert_eq!(c.verbosity(), v);
        }
        // Verbosity bits under GUC_LOG_DISABLED do not count.
        assert_eq!(level(LOG_DISABLED | 3), 1);
        // Bit 7 (i915's GUC_PROFILE_ENABLED) is not a log level.
        assert_eq!(level(1 << 7), 2);
    }

    #[test]
    fn levels_filter_classes() {
        let at = |debug: u32| Config::decode(XE_LOG, debug).expect("valid");
        let off = at(DEFAULT_DISABLED);
        assert!(!off.logs(Class::Error));
        assert!(!off.logs(Class::Verbose(0)));
        let quiet = at(LOG_DISABLED);
        assert!(quiet.logs(Class::Error));
        assert!(!quiet.logs(Class::Verbose(0)));
        let v0 = at(0);
        assert!(v0.logs(Class::Verbose(0)));
        assert!(!v0.logs(Class::Verbose(1)));
        let v3 = at(3);
        assert!(v3.logs(Class::Verbose(3)));
        assert!(v3.logs(Class::Error));
    }

    #[test]
    fn entry_bytes_layout() {
        let e = Entry {
            t_us: 0x1122_3344,
            seq: 0xBEEF,
            code: code::H2G,
            a: 0x4502,
            b: 7,
        };
        let b = e.bytes();
        assert_eq!(&b[0..4], &0x1122_3344u32.to_le_bytes());
        assert_eq!(&b[4..8], &0xBEEF_0001u32.to_le_bytes());
        assert_eq!(&b[8..12], &0x4502u32.to_le_bytes());
        assert_eq!(&b[12..16], &7u32.to_le_bytes());
    }

    /// A 4 KiB section holds 256 entries: entry 256 wraps, wrap_offset is
    /// the section's size, and a host that never reads sees overflows once
    /// per lap.
    #[test]
    fn ring_wraps_and_counts_overflows_per_lap() {
        let mut r = Ring::new(4096);
        for i in 0..255u32 {
            let p = r.place(false);
            assert_eq!(p.at, 16 * i);
            assert!(!p.wrapped && !p.overflow, "entry {i}");
        }
        let p = r.place(false);
        assert_eq!(p.at, 4080);
        assert!(p.wrapped);
        assert!(!p.overflow, "the 256th entry fills the section exactly");
        assert_eq!((r.write_ptr, r.wrap_offset, r.wraps), (0, 4096, 1));
        // The 257th overwrites the oldest: one overflow, and the next 255
        // do not count again.
        let p = r.place(false);
        assert_eq!(p.at, 0);
        assert!(p.overflow);
        assert_eq!((r.overflows, r.full_cnt), (1, 1));
        for _ in 0..255 {
            assert!(!r.place(false).overflow);
        }
        assert!(r.place(false).overflow, "the next lap");
        assert_eq!(r.overflows, 2);
        // The full count is 4 bits.
        for _ in 0..14 * 256 {
            r.place(false);
        }
        assert_eq!(r.overflows, 16);
        assert_eq!(r.full_cnt, 0, "16 overflows wrap the 4-bit count");
        assert_eq!(r.entries, 257 + 256 + 14 * 256);
    }

    /// Half full: one notification, none more until the host acknowledges,
    /// whatever it writes meanwhile; the acknowledgement re-arms it.
    #[test]
    fn half_full_notifies_once_until_acknowledged() {
        let mut r = Ring::new(4096);
        let notified: Vec<u32> = (0..128).filter(|_| r.place(true).notify).collect();
        assert_eq!(notified, vec![127], "at 2048 bytes unread");
        assert!(r.waiting);
        assert_eq!(r.sampled, 2048);
        assert_eq!(r.flags(), FLUSH_TO_FILE);
        // No acknowledgement: more entries, no second notification, but
        // overflows once the section is full.
        let more = (0..400).filter(|_| r.place(true).notify).count();
        assert_eq!(more, 0);
        assert_eq!(r.notifies, 1);
        assert!(r.overflows >= 1);
        assert_eq!(r.flags() & FLUSH_TO_FILE, FLUSH_TO_FILE);
        // The host moved read_ptr but left flush_to_file set: not an
        // acknowledgement.
        assert_eq!(r.look(2048, FLUSH_TO_FILE, true), Ack::None);
        assert_eq!(r.acks, 0);
        // The acknowledgement as i915 gives it.
        let ack = r.look(2048, 0, true);
        let Ack::Taken { bad, renotify, .. } = ack else {
            panic!("{ack:?}");
        };
        assert!(bad.is_none());
        // 528 entries written, write_ptr at 528 * 16 mod 4096 = 256 ...
        assert_eq!(r.write_ptr, (528 * 16) % 4096);
        // ... unread from 2048 round to 256: 2304 bytes, still half full.
        assert!(renotify);
        assert_eq!(r.acks, 1);
        assert_eq!(r.notifies, 2);
        assert_eq!(r.sampled, r.write_ptr);
    }

    #[test]
    fn acknowledgement_read_ptr_is_checked() {
        let mut r = Ring::new(4096);
        for _ in 0..128 {
            r.place(true);
        }
        assert!(r.waiting);
        // Not the sampled pointer: taken, but the protocol was broken.
        let Ack::Taken { bad, renotify, .. } = r.look(1024, 0, true) else {
            panic!("no ack");
        };
        assert!(bad.is_some_and(|b| b.contains("not the sampled_write_ptr")));
        // 2048 written, read up to 1024 only: 1024 unread.
        assert_eq!(r.unread, 1024);
        assert!(!renotify);
        // Outside the section: the sampled one is taken instead.
        let more = (0..64).filter(|_| r.place(true).notify).count();
        assert_eq!(more, 1, "half full again");
        assert_eq!(r.sampled, 3072);
        let Ack::Taken { bad, .. } = r.look(0x10_0000, 0, true) else {
            panic!("no ack");
        };
        assert!(bad.is_some_and(|b| b.contains("outside")));
        assert_eq!(r.read_ptr, r.sampled);
        assert_eq!(r.unread, 0);
    }

    /// Without NOTIFY_ON_HALF_FULL nothing is sampled or flagged.
    #[test]
    fn no_notification_unless_asked() {
        let mut r = Ring::new(4096);
        assert!((0..1000).all(|_| !r.place(false).notify));
        assert_eq!(r.notifies, 0);
        assert_eq!(r.flags() & FLUSH_TO_FILE, 0);
        // A host that reads anyway moves the GuC's idea of unread bytes.
        assert_eq!(r.look(r.write_ptr, 0, false), Ack::None);
        assert_eq!(r.unread, 0);
    }
}
