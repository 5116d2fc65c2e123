// SPDX-License-Identifier: GPL-2.0

//! The GuC's log: the level the GuC logs at, the buffer it writes, the half-full flush
//! handshake, and the crash dumps taken from it.
//!
//! # Layout
//!
//! One local-memory object the GuC reaches through the GGTT (upstream `abi/guc_log_abi.h`,
//! "GuC Log buffer Layout"; the sizes of a non-debug xe build, `xe_guc_log.h`): a 4 KiB
//! header holding one `struct guc_log_buffer_state` (nine dwords) per section, in
//! `enum guc_log_type` order (event data, crash dump, state capture), then the sections
//! themselves: 64 KiB of event data, 16 KiB of crash dump, 1 MiB of state capture.
//! `GUC_CTL_LOG_PARAMS` tells the GuC the sizes ([`PARAMS_SIZES`]) and the address, and asks
//! for the half-full notification (`GUC_LOG_NOTIFY_ON_HALF_FULL`, as `xe_guc.c`
//! `guc_ctl_log_params_flags` does).
//!
//! # Level
//!
//! `guc_log_level`, upstream's module parameter with its meaning (`xe_module.c`): 0 off,
//! 1 normal, 2 to 5 more and more verbose. The GuC sees it in `GUC_CTL_DEBUG`
//! (`xe_guc.c` `guc_ctl_debug_flags`): up to level 1 the "verbose logging disabled" bit,
//! above it verbosity `level - 2` in bits 1:0. Upstream's levels 0 and 1 reach the GuC
//! alike, and so do ours; 0 also makes the driver leave flush requests unanswered, as an
//! upstream driver with no reader does.
//!
//! # Flush
//!
//! When a section is half full the GuC sets its `flush_to_file` flag, copies `write_ptr` to
//! `sampled_write_ptr` and sends `NOTIFY_FLUSH_LOG_BUFFER_TO_FILE`; it then expects the host
//! to consume the data, move `read_ptr` to the sampled pointer, clear the flag and answer
//! `LOG_BUFFER_FILE_FLUSH_COMPLETE`, or it overwrites unread entries and counts the overflow
//! in `buffer_full_cnt` (the comment on `struct guc_log_buffer_state`; i915
//! `intel_guc_log.c` `_guc_log_copy_debuglogs_for_relay`, `guc_action_flush_log_complete`).
//! The consumer here is the reader of debugfs `guc_log`, which reads the buffer whole; the
//! acknowledgement keeps the GuC from counting overflows in between. A state the GuC wrote
//! out of range (a sampled pointer beyond the section) is refused, counted and logged: the
//! GuC is not trusted.
//!
//! # Crash dumps
//!
//! `NOTIFY_CRASH_DUMP_POSTED`, `NOTIFY_EXCEPTION`, or a GT reset because the GuC stopped
//! answering: the GuC's state, the channel's and the whole log buffer go into one device
//! coredump (`/sys/class/devcoredump/devcdN/data`, through the C glue), as upstream's
//! `xe_devcoredump` captures on a hang. The dump is text up to a `guc_log: N bytes follow`
//! line, then the buffer's N bytes as the GuC wrote them (the same bytes as debugfs
//! `guc_log`). The device keeps one dump at a time (the devcoredump core refuses a second
//! until the first is read or dismissed); unbind removes it (`dev_coredump_put`).
//!
//! # Contexts
//!
//! - [`Guc::log_event`]: the CT receive path (process context, the receive mutex held): sets a
//!   pending flag and queues the worker; never sleeps.
//! - the worker ([`Guc::run_log_work`]): process context on the system workqueue; takes the
//!   GuC's mutex, then the channel's locks (the driver's order, Documentation/architecture.rst,
//!   "Locks"); device access only through the revocable BARs, so a run after unbind finds
//!   nothing to do.
//! - [`Guc::read_log`]: a debugfs read, process context; the GuC's mutex.

use kernel::{
    alloc::VVec,
    fmt,
    prelude::*,
    sync::{
        atomic::{Atomic, Relaxed},
        Arc,
    },
    workqueue::{self, impl_has_work, Work, WorkItem},
};

use super::{
    ct::Desc,
    msg::LogFlushComplete,
    regs,
    status::{code, Ukernel},
    with_bars, Guc, GucState, Unresponsive,
};
use crate::{
    abi::{XEHPG_GUC_DEBUG_LOG_DISABLED, XEHPG_GUC_DEBUG_LOG_VERBOSITY},
    compat,
    gt::GtDomain,
    hw::Hw,
};

/// The header page of state structures.
const HEADER: u64 = 4 << 10;
/// Event data, crash dump and state capture (`xe_guc_log.h`, non-debug build).
const EVENT_SIZE: u64 = 64 << 10;
const CRASH_SIZE: u64 = 16 << 10;
const CAPTURE_SIZE: u64 = 1 << 20;
/// The whole buffer (`GUC_LOG_SIZE`).
pub(crate) const SIZE: u64 = HEADER + EVENT_SIZE + CRASH_SIZE + CAPTURE_SIZE;
/// `GUC_CTL_LOG_PARAMS` size fields for the sizes above (`xe_guc.c`
/// `guc_ctl_log_params_flags`): crash dump 16 KiB = 3 (4 KiB units less one) at 5:4, event
/// data 64 KiB = 15 at 9:6, capture 1 MiB = 0 (1 MiB units less one) at 11:10 with the
/// capture-unit bit 2.
pub(crate) const PARAMS_SIZES: u32 = (3 << 4) | (15 << 6) | (1 << 2);

/// Byte offsets in a `struct guc_log_buffer_state` (`abi/guc_log_abi.h`): two marker dwords,
/// then these; nine dwords in all.
const STATE_BYTES: u64 = 36;
const READ_PTR: u64 = 8;
const WRITE_PTR: u64 = 12;
const SAMPLED_WRITE_PTR: u64 = 20;
const FLAGS: u64 = 28;
/// `flags`: `GUC_LOG_BUFFER_STATE_FLUSH_TO_FILE` (bit 0) and
/// `GUC_LOG_BUFFER_STATE_BUFFER_FULL_CNT` (bits 4:1).
const FLUSH_TO_FILE: u32 = 1;
const FULL_CNT_SHIFT: u32 = 1;
const FULL_CNT_MASK: u32 = 0xf;

/// The event-data section, the one the GuC asks to flush (`GUC_LOG_TYPE_EVENT_DATA`, 0).
const EVENT_SECTION: u32 = 0;

/// Highest `guc_log_level` (`GUC_LOG_LEVEL_MAX`: verbosity 3 + 2).
pub(crate) const MAX_LEVEL: u32 = 5;
/// Upstream's default outside debug builds (`xe_defaults.h`).
const DEFAULT_LEVEL: u32 = 1;

static LEVEL: Atomic<u32> = Atomic::new(DEFAULT_LEVEL);

/// Sets the `guc_log_level` module parameter (module init, before the driver registers).
pub(crate) fn set_level(level: u32) {
    LEVEL.store(level, Relaxed);
}

/// The parameter as given: a value above [`MAX_LEVEL`] is reported at load and used as the
/// maximum ([`level`]).
pub(crate) fn level_param() -> u32 {
    LEVEL.load(Relaxed)
}

/// The level in force.
pub(crate) fn level() -> u32 {
    level_param().min(MAX_LEVEL)
}

/// The `GUC_CTL_DEBUG` word for `level` (`xe_guc.c` `guc_ctl_debug_flags`).
pub(crate) fn debug_flags(level: u32) -> u32 {
    if level <= 1 {
        XEHPG_GUC_DEBUG_LOG_DISABLED
    } else {
        (level - 2).min(3) & XEHPG_GUC_DEBUG_LOG_VERBOSITY
    }
}

/// A section's state as the GuC left it: the words the flush handshake reads.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct SectionState {
    pub(crate) read_ptr: u32,
    pub(crate) write_ptr: u32,
    pub(crate) sampled: u32,
    pub(crate) flags: u32,
}

/// What acknowledging a flush writes back.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Ack {
    pub(crate) read_ptr: u32,
    pub(crate) flags: u32,
    /// The GuC's overflow count (`buffer_full_cnt`, 4 bits, wraps).
    pub(crate) overflows: u32,
}

/// Why a flush request is not acknowledged.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum NoAck {
    /// The flag is not set: nothing asked (a repeated or stale notification).
    NotAsked,
    /// The GuC's sampled pointer lies beyond the section.
    OutOfRange,
}

/// The acknowledgement of `s`, a section of `size` bytes. Any context.
///
/// # Errors
///
/// [`NoAck`] when the GuC did not ask or wrote an impossible pointer.
pub(crate) fn ack(s: SectionState, size: u32) -> Result<Ack, NoAck> {
    if s.flags & FLUSH_TO_FILE == 0 {
        return Err(NoAck::NotAsked);
    }
    if s.sampled >= size {
        return Err(NoAck::OutOfRange);
    }
    Ok(Ack {
        read_ptr: s.sampled,
        flags: s.flags & !FLUSH_TO_FILE,
        overflows: (s.flags >> FULL_CNT_SHIFT) & FULL_CNT_MASK,
    })
}

/// Why a crash dump was taken.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum DumpReason {
    /// `NOTIFY_CRASH_DUMP_POSTED`.
    CrashDumpPosted,
    /// `NOTIFY_EXCEPTION`.
    Exception,
    /// The GuC stopped answering and the GT is being reset.
    Hung(Unresponsive),
}

impl fmt::Display for DumpReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::CrashDumpPosted => f.write_str("NOTIFY_CRASH_DUMP_POSTED"),
            Self::Exception => f.write_str("NOTIFY_EXCEPTION"),
            Self::Hung(Unresponsive::NoRoom(a)) => {
                f.write_fmt(fmt!("GuC hung: no room in H2G for action {:#06x}", a))
            }
            Self::Hung(Unresponsive::Broken(c)) => {
                f.write_fmt(fmt!("GuC hung: CT broken ({})", c.name()))
            }
            Self::Hung(Unresponsive::ContextStuck(id)) => {
                f.write_fmt(fmt!("GuC hung: context {} could not be disabled", id))
            }
        }
    }
}

/// The log's pending work and counters, outside the GuC's mutex (debugfs reads them, the
/// receive path sets them).
pub(crate) struct Log {
    flush: Atomic<u32>,
    crash: Atomic<u32>,
    exception: Atomic<u32>,
    /// Unbind: nothing is queued or run any more.
    closed: Atomic<u32>,
    flushes: Atomic<u64>,
    not_asked: Atomic<u64>,
    refused: Atomic<u64>,
    overflows: Atomic<u32>,
    dumps: Atomic<u64>,
    dump_failures: Atomic<u64>,
}

impl Log {
    pub(crate) const fn new() -> Self {
        Self {
            flush: Atomic::new(0),
            crash: Atomic::new(0),
            exception: Atomic::new(0),
            closed: Atomic::new(0),
            flushes: Atomic::new(0),
            not_asked: Atomic::new(0),
            refused: Atomic::new(0),
            overflows: Atomic::new(0),
            dumps: Atomic::new(0),
            dump_failures: Atomic::new(0),
        }
    }

    /// Records an early crash dump or exception (`SOFT_SCRATCH(15)` at CT enable), for the
    /// worker [`Guc::kick_log`] starts. Process context (the load, the GuC's mutex held).
    pub(crate) fn early(&self, crash: bool, exception: bool) {
        if crash {
            self.crash.store(1, Relaxed);
        }
        if exception {
            self.exception.store(1, Relaxed);
        }
    }

    /// The `guc_info` lines.
    pub(crate) fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_fmt(fmt!(
            "log_level: {} (GUC_CTL_DEBUG {:#x})\n",
            level(),
            debug_flags(level())
        ))?;
        f.write_fmt(fmt!(
            "log_flushes: acked {} not_asked {} refused {} overflows {}\n",
            self.flushes.load(Relaxed),
            self.not_asked.load(Relaxed),
            self.refused.load(Relaxed),
            self.overflows.load(Relaxed)
        ))?;
        f.write_fmt(fmt!(
            "crash_dumps: {} failed {}\n",
            self.dumps.load(Relaxed),
            self.dump_failures.load(Relaxed)
        ))
    }
}

/// The event that woke the log's worker.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum LogEvent {
    Flush,
    CrashDump,
    Exception,
}

impl_has_work! {
    impl HasWork<Self> for Guc { self.log_work }
}

impl WorkItem for Guc {
    type Pointer = Arc<Guc>;

    fn run(this: Arc<Guc>) {
        this.run_log_work();
    }
}

/// A dump being written: text, then the raw buffer.
struct Dump(VVec<u8>);

impl fmt::Write for Dump {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0
            .extend_from_slice(s.as_bytes(), GFP_KERNEL)
            .map_err(|_| fmt::Error)
    }
}

/// Bytes of the log a dump copies per device access (each runs under RCU).
const DUMP_CHUNK: usize = 16 << 10;

impl Guc {
    /// The GuC reported a log event. Receive path: never sleeps (module docs).
    pub(crate) fn log_event(this: &Arc<Self>, ev: LogEvent) {
        let log = &this.log;
        match ev {
            LogEvent::Flush => log.flush.store(1, Relaxed),
            LogEvent::CrashDump => {
                dev_err!(this.dev, "guc: the GuC posted a crash dump; capturing it\n");
                log.crash.store(1, Relaxed);
            }
            LogEvent::Exception => {
                dev_err!(
                    this.dev,
                    "guc: the GuC reported an exception; capturing its state\n"
                );
                log.exception.store(1, Relaxed);
            }
        }
        if log.closed.load(Relaxed) == 0 {
            // Already queued: the run to come sees the flag.
            let _ = workqueue::system().enqueue(this.clone());
        }
    }

    /// After a load: starts the worker if the load found an early crash dump or exception
    /// ([`Log::early`]). Process context, without the GuC's mutex.
    pub(crate) fn kick_log(this: &Arc<Self>) {
        let log = &this.log;
        let pending = log.crash.load(Relaxed) | log.exception.load(Relaxed);
        if pending != 0 && log.closed.load(Relaxed) == 0 {
            let _ = workqueue::system().enqueue(this.clone());
        }
    }

    /// Unbind, before the GuC stops: no more log work; waits for a run in progress.
    pub(crate) fn close_log(&self) {
        self.log.closed.store(1, Relaxed);
        // SAFETY: `log_work` is this object's initialized work item; nothing queues it once
        // `closed` is set, and a run that starts now returns at once.
        unsafe { kernel::bindings::flush_work(Work::raw_get(&self.log_work)) };
    }

    /// Unbind, after the GuC stopped: the device's coredump, if one is left, goes too (as
    /// upstream's `xe_driver_devcoredump_fini`).
    pub(crate) fn drop_coredump(&self) {
        compat::coredump::put(&self.dev);
    }

    /// The worker: answers a flush request, takes a crash dump. Process context.
    fn run_log_work(&self) {
        if self.log.closed.load(Relaxed) != 0 {
            return;
        }
        if self.log.flush.xchg(0, Relaxed) != 0 && level() > 0 {
            self.ack_flush();
        }
        if self.log.crash.xchg(0, Relaxed) != 0 {
            self.coredump(DumpReason::CrashDumpPosted);
        }
        if self.log.exception.xchg(0, Relaxed) != 0 {
            self.coredump(DumpReason::Exception);
        }
    }

    /// Acknowledges the event-data section's flush request (module docs, "Flush").
    fn ack_flush(&self) {
        let st = self.state.lock();
        let Some(buf) = st.log else {
            return;
        };
        let at = buf.start + u64::from(EVENT_SECTION) * STATE_BYTES;
        let channel = &self.channel;
        let outcome = with_bars(&self.dev, &self.hw, |io| -> Result<Result<Ack, NoAck>> {
            let lmem = &io.lmem;
            let s = SectionState {
                read_ptr: lmem.read32(at + READ_PTR)?,
                write_ptr: lmem.read32(at + WRITE_PTR)?,
                sampled: lmem.read32(at + SAMPLED_WRITE_PTR)?,
                flags: lmem.read32(at + FLAGS)?,
            };
            // CAST: 64 KiB.
            let a = match ack(s, EVENT_SIZE as u32) {
                Ok(a) => a,
                Err(no) => return Ok(Err(no)),
            };
            lmem.write32(at + READ_PTR, a.read_ptr)?;
            lmem.write32(at + FLAGS, a.flags)?;
            channel.send_fast(
                io,
                &LogFlushComplete {
                    section: EVENT_SECTION,
                },
            )?;
            Ok(Ok(a))
        });
        drop(st);
        match outcome {
            None => {}
            Some(Ok(Ok(a))) => {
                self.log.flushes.add(1, Relaxed);
                self.log.overflows.store(a.overflows, Relaxed);
            }
            Some(Ok(Err(NoAck::NotAsked))) => {
                self.log.not_asked.add(1, Relaxed);
            }
            Some(Ok(Err(NoAck::OutOfRange))) => {
                self.log.refused.add(1, Relaxed);
                dev_err!(
                    self.dev,
                    "guc: log flush refused: the sampled write pointer lies beyond the {} byte section\n",
                    EVENT_SIZE
                );
            }
            Some(Err(e)) => {
                self.log.refused.add(1, Relaxed);
                dev_err!(self.dev, "guc: log flush acknowledgement failed: {:?}\n", e);
            }
        }
    }

    /// Copies up to `out.len()` bytes of the log buffer from `pos` into `out`; returns how
    /// many (0 at the end, or when no GuC is loaded). Process context.
    ///
    /// # Errors
    ///
    /// `ENODEV` once the device is unbound, `EINVAL` for a buffer outside LMEMBAR.
    pub(crate) fn read_log(&self, hw: &Hw, pos: u64, out: &mut [u8]) -> Result<usize> {
        let st = self.state.lock();
        let Some(buf) = st.log else {
            return Ok(0);
        };
        let left = buf.size().saturating_sub(pos);
        // CAST: bounded by `out.len()`.
        let n = (out.len() as u64).min(left) as usize;
        if n == 0 {
            return Ok(0);
        }
        hw.lmembar()
            .try_access_with(|lmem| lmem.read_bytes(buf.start + pos, &mut out[..n]))
            .ok_or(ENODEV)??;
        Ok(n)
    }

    /// Takes a device coredump for `why` (module docs, "Crash dumps"). Process context; takes
    /// the GuC's mutex, so never called with it held.
    pub(crate) fn coredump(&self, why: DumpReason) {
        match self.build_dump(why) {
            Ok(dump) => {
                let len = dump.0.len();
                compat::coredump::post(&self.dev, dump.0);
                self.log.dumps.add(1, Relaxed);
                dev_err!(
                    self.dev,
                    "guc: crash dump ({}) of {} bytes in /sys/class/devcoredump\n",
                    why,
                    len
                );
            }
            Err(e) => {
                self.log.dump_failures.add(1, Relaxed);
                dev_err!(self.dev, "guc: crash dump ({}) not taken: {:?}\n", why, e);
            }
        }
    }

    fn build_dump(&self, why: DumpReason) -> Result<Dump> {
        let mut d = Dump(VVec::new());
        let st = self.state.lock();
        let status = with_bars(&self.dev, &self.hw, |io| -> Result<u32> {
            let awake = io.gt.wake::<GtDomain>()?;
            Ok(io.gt.read::<regs::GUC_STATUS, _>(&awake).into_raw())
        });
        let h2g = self
            .hw
            .lmembar()
            .try_access_with(|lmem| self.channel.h2g_desc(lmem))
            .flatten();
        let written = fmt::Write::write_fmt(
            &mut d,
            fmt!(
                "xehpg GuC crash dump\ndevice: {}\nreason: {}\n",
                self.dev.name(),
                why
            ),
        )
        .and_then(|()| match status {
            Some(Ok(s)) => {
                let (uk, uk_name) = code(regs::GUC_STATUS::from_raw(s).ukernel(), Ukernel::name);
                fmt::Write::write_fmt(
                    &mut d,
                    fmt!(
                        "guc_status_now: {:#010x} (ukernel {:#04x} {})\n",
                        s,
                        uk,
                        uk_name
                    ),
                )
            }
            Some(Err(e)) => fmt::Write::write_fmt(&mut d, fmt!("guc_status_now: error {:?}\n", e)),
            None => fmt::Write::write_str(&mut d, "guc_status_now: device gone\n"),
        })
        .and_then(|()| fmt::Write::write_str(&mut d, "--- guc_info\n"))
        .and_then(|()| fmt::Write::write_fmt(&mut d, fmt!("{}", Info(self, &st))))
        .and_then(|()| fmt::Write::write_str(&mut d, "--- ct\n"))
        .and_then(|()| fmt::Write::write_fmt(&mut d, fmt!("{}", Ct(self, h2g))));
        written.map_err(|_| ENOMEM)?;
        let Some(buf) = st.log else {
            fmt::Write::write_str(&mut d, "guc_log: none\n").map_err(|_| ENOMEM)?;
            return Ok(d);
        };
        fmt::Write::write_fmt(&mut d, fmt!("guc_log: {} bytes follow\n", buf.size()))
            .map_err(|_| ENOMEM)?;
        let start = d.0.len();
        // CAST: the buffer is `SIZE`, 1.1 MiB.
        d.0.extend_with(buf.size() as usize, 0, GFP_KERNEL)?;
        let mut off = 0usize;
        while start + off < d.0.len() {
            let n = (d.0.len() - start - off).min(DUMP_CHUNK);
            let dst = &mut d.0[start + off..start + off + n];
            self.hw
                .lmembar()
                .try_access_with(|lmem| lmem.read_bytes(buf.start + off as u64, dst))
                .ok_or(ENODEV)??;
            off += n;
        }
        Ok(d)
    }
}

/// The `guc_info` report of a locked state, for the dump.
struct Info<'a>(&'a Guc, &'a GucState);

impl fmt::Display for Info<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt_locked(self.1, f)
    }
}

/// The channel's report, for the dump.
struct Ct<'a>(&'a Guc, Option<Desc>);

impl fmt::Display for Ct<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.channel.fmt(f, self.1)
    }
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_guc_log)]
mod tests {
    use super::*;

    #[test]
    fn debug_flags_follow_upstream_levels() {
        // Levels 0 and 1: verbose logging off, nothing else.
        assert_eq!(debug_flags(0), 0x40);
        assert_eq!(debug_flags(1), 0x40);
        // 2..5: verbosity 0..3, the disabled bit clear.
        assert_eq!(debug_flags(2), 0);
        assert_eq!(debug_flags(3), 1);
        assert_eq!(debug_flags(5), 3);
        // Beyond the range the verbosity stays at its maximum.
        assert_eq!(debug_flags(9), 3);
    }

    #[test]
    fn layout_matches_the_params() {
        // The buffer is 4 KiB + 64 KiB + 16 KiB + 1 MiB and page aligned.
        assert_eq!(SIZE, 0x115000);
        // Event data 64 KiB: 16 units of 4 KiB less one at 9:6; crash 16 KiB at 5:4.
        assert_eq!((PARAMS_SIZES >> 6) & 0xf, 15);
        assert_eq!((PARAMS_SIZES >> 4) & 0x3, 3);
        // Three nine-dword states fit the header page.
        assert!(3 * STATE_BYTES <= HEADER);
    }

    #[test]
    fn ack_moves_read_ptr_and_clears_only_the_flag() {
        let s = SectionState {
            read_ptr: 0,
            write_ptr: 0x8400,
            sampled: 0x8000,
            flags: FLUSH_TO_FILE | (5 << FULL_CNT_SHIFT),
        };
        assert_eq!(
            ack(s, 0x10000),
            Ok(Ack {
                read_ptr: 0x8000,
                flags: 5 << FULL_CNT_SHIFT,
                overflows: 5,
            })
        );
    }

    #[test]
    fn ack_refuses_what_was_not_asked_or_is_out_of_range() {
        let mut s = SectionState {
            read_ptr: 0,
            write_ptr: 0x8000,
            sampled: 0x8000,
            flags: 0,
        };
        assert_eq!(ack(s, 0x10000), Err(NoAck::NotAsked));
        s.flags = FLUSH_TO_FILE;
        s.sampled = 0x10000;
        assert_eq!(ack(s, 0x10000), Err(NoAck::OutOfRange));
        s.sampled = u32::MAX;
        assert_eq!(ack(s, 0x10000), Err(NoAck::OutOfRange));
    }
}
