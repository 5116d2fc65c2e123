// SPDX-License-Identifier: GPL-2.0

//! A submission port: one engine's kernel context, its ring, and the requests in flight on it,
//! whichever mechanism ([`super::execlist`] or [`super::guc`]) puts the context on the engine.
//!
//! # Memory
//!
//! Each engine has one kernel context and one system-memory object holding, in this order,
//! the engine's global HWSP (4 KiB: the CSB and the driver's seqno), the LRC (per-process HWSP
//! and register state, [`lrc`]) and the ring. System memory, not local: the PRM wants both
//! status pages snooped (seed 004 line 395), and it keeps every CPU access on the completion
//! path a memory read, never a BAR access.
//!
//! # Request lifetime
//!
//! 1. `submit` (port lock): the request's commands go into the ring after the tail
//!    ([`request_commands`]); it is queued in flight with its seqno; the mechanism is told (an
//!    execlist Load, or a GuC `SCHED_CONTEXT` the caller sends once the lock is dropped).
//! 2. The engine runs the ring; each request writes its seqno into the HWSP and raises the
//!    user interrupt.
//! 3. The interrupt thread (`process`): the seqno retires every request up to it (each exactly
//!    once: retiring removes it from the queue), which frees its ring space; in execlist mode
//!    the CSB is read first and the context reloaded if more work is waiting.
//!
//! # Untrusted input
//!
//! The HWSP is written by the device: a CSB write index outside 0..12, an entry naming a
//! context this port never submitted, or a seqno beyond the last one submitted are counted and
//! logged (first of each kind per port), and never retire a request that was not run.

use kernel::{
    bits::bit_u32,
    device::Device,
    fmt, new_condvar, new_spinlock,
    prelude::*,
    sync::{
        atomic::{Atomic, Relaxed},
        CondVar, SpinLock,
    },
};
// The selftest's latencies (test build).
#[cfg(xehpg_test)]
use kernel::time::{Instant, Monotonic};

use super::ctx::{CtxState, GucCtx};
use crate::{
    engine::{csb, lrc, request_commands, Engine, Payload, Ring, REQUEST_DWORDS},
    gt::{Gt, Held},
    mem::{
        ggtt::{Ggtt, Mapping},
        SysBuf,
    },
    mmio::Bar0,
};

/// Ring size: upstream's execlist port ring (`xe_execlist.c`, 16 KiB LRC ring).
pub(super) const RING_SIZE: u32 = 16 << 10;
/// Requests in flight at most: a request takes at least 32 bytes of the ring.
pub(crate) const MAX_INFLIGHT: usize = 256;
/// HWSP layout: the global HWSP first, the LRC after it.
const HWSP_BYTES: usize = 4096;
/// HWSP dword of the driver's seqno (i915 `I915_GEM_HWS_SEQNO`, past the CSB's dwords).
pub(crate) const HWSP_SEQNO: usize = 0x40;
/// The port's SW context ID: 1 (xe reserves 0 for its idle context, 0xffff is the CSB's idle).
pub(super) const CTX_ID: u16 = 1;

/// Where the objects of a port lie in its memory.
#[derive(Copy, Clone)]
pub(super) struct Layout {
    /// Byte offsets.
    pub(super) lrc: usize,
    pub(super) state: usize,
    pub(super) ring: usize,
    pub(super) total: usize,
}

impl Layout {
    pub(super) const fn of(e: &Engine) -> Self {
        let lrc = HWSP_BYTES;
        let state = lrc + lrc::PPHWSP_SIZE;
        let ring = lrc + lrc::lrc_size(e.class);
        Self {
            lrc,
            state,
            ring,
            total: ring + RING_SIZE as usize,
        }
    }
}

/// One request in flight.
#[derive(Copy, Clone, Default)]
pub(super) struct Inflight {
    pub(super) seqno: u32,
    /// Ring offset after its commands: the head once it is retired.
    pub(super) end: u32,
    /// When it was submitted, for the selftest's latencies (test build).
    #[cfg(xehpg_test)]
    pub(super) submitted: Option<Instant<Monotonic>>,
}

/// What a port reports, counted without the lock.
pub(crate) struct Stats {
    pub(crate) submitted: Atomic<u64>,
    pub(crate) completed: Atomic<u64>,
    pub(crate) loads: Atomic<u64>,
    /// Engine interrupts handled (calls of `process`).
    pub(crate) interrupts: Atomic<u64>,
    pub(crate) csb_events: Atomic<u64>,
    pub(crate) resets: Atomic<u64>,
    /// Stalls answered by telling the mechanism again (`SCHED_CONTEXT` resent, or the context
    /// loaded again): a silent recovery, 0 on a healthy device.
    pub(crate) nudges: Atomic<u64>,
    /// Device input rejected: bad CSB pointers or entries, seqnos never submitted.
    pub(crate) bad_input: Atomic<u64>,
    pub(crate) errors: Atomic<u64>,
    /// Requests failed by a reset or unbind instead of retiring.
    pub(crate) failed: Atomic<u64>,
    /// Inputs the GuC context's state table refused ([`super::ctx`]): an event or step
    /// impossible in the context's state, ignored. 0 on a healthy device.
    pub(crate) bad_transitions: Atomic<u64>,
}

/// The port's lifecycle: how its context reaches the engine, and whether it takes work.
/// Only the methods below move it; a move they refuse leaves it, and the caller counts it
/// (`bad_transitions`).
///
/// | from | event | to |
/// |---|---|---|
/// | `Off` | execlist start / GuC start | `Execlist(Idle)` / `Guc` |
/// | `Guc` with an unregistered context | GuC start (recovery) | `Guc` (a new context) |
/// | `Execlist(_)` | Load written | `Execlist(OnEngine)` |
/// | `Execlist(Parked)`, `Execlist(OnEngine)` | CSB Started, LiteRestore | `Execlist(OnEngine)` |
/// | `Execlist(Idle)` | CSB Started, LiteRestore | refused |
/// | `Execlist(OnEngine)` | CSB Completed | `Execlist(Parked)` |
/// | `Execlist(Parked)`, `Execlist(Idle)`, nothing in flight | forcewake released | `Execlist(Idle)` |
/// | `Execlist(_)` | hang recovered | `Execlist(Idle)` |
/// | `Execlist(_)`, `Guc` | recovery failed | `Stopped(FailedRecovery)` |
/// | any | unbind | `Stopped(Unbind)` |
/// | `Off`, `Execlist(_)`, `Guc`, `Stopped(FailedRecovery)` | GT reset | `Off` |
/// | `Stopped(Unbind)` | GT reset | refused (unbind closes the reset first) |
///
/// A stop keeps the GuC context: unbind still disables and deregisters it, and its done
/// events still move it ([`GucCtx`]).
pub(super) enum Mech {
    /// Not started (or its start failed before choosing): submissions fail with `ENODEV`.
    Off,
    /// The host loads the ELSQ ([`super::execlist`]).
    Execlist(El),
    /// The GuC schedules it ([`super::guc`]).
    Guc(GucCtx),
    /// No more work (`ENODEV`): why, and the GuC context it had, if any, for its teardown.
    Stopped(Stop, Option<GucCtx>),
}

/// Where an execlist port's context is (the CSB's view).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum El {
    /// Off the engine, nothing kept awake for it.
    Idle,
    /// On the engine: a Load was written, or the CSB says it started. A new request only
    /// moves the tail; the next Load waits for it to switch out.
    OnEngine,
    /// Switched out (CSB Completed), or its Load failed part way: forcewake may still be
    /// kept until nothing is in flight.
    Parked,
}

/// Why a port stopped.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Stop {
    /// Unbind: for good.
    Unbind,
    /// A hang recovery failed: until a GT reset forgets the port (GuC), or unbind.
    FailedRecovery,
}

impl Mech {
    /// The GuC context: in GuC mode, or kept by a stop for its teardown.
    pub(super) fn guc(&self) -> Option<&GucCtx> {
        match self {
            Mech::Guc(g) | Mech::Stopped(_, Some(g)) => Some(g),
            _ => None,
        }
    }

    /// [`Mech::guc`], to change.
    pub(super) fn guc_mut(&mut self) -> Option<&mut GucCtx> {
        match self {
            Mech::Guc(g) | Mech::Stopped(_, Some(g)) => Some(g),
            _ => None,
        }
    }

    /// Whether the port takes no more work.
    pub(super) fn stopped(&self) -> bool {
        matches!(self, Mech::Stopped(..))
    }

    /// Execlist mode on.
    ///
    /// # Errors
    ///
    /// `EPROTO` unless the port is `Off`.
    pub(super) fn start_execlist(&mut self) -> Result {
        match self {
            Mech::Off => {
                *self = Mech::Execlist(El::Idle);
                Ok(())
            }
            _ => Err(EPROTO),
        }
    }

    /// GuC mode with the new, unregistered context `g`.
    ///
    /// # Errors
    ///
    /// `EPROTO` unless the port is `Off` or its context was deregistered (recovery).
    pub(super) fn start_guc(&mut self, g: GucCtx) -> Result {
        match self {
            Mech::Off => {}
            Mech::Guc(old) if old.state == CtxState::Unregistered => {}
            _ => return Err(EPROTO),
        }
        *self = Mech::Guc(g);
        Ok(())
    }

    /// A Load was written: the context is on the engine. Nothing outside execlist mode.
    pub(super) fn loaded(&mut self) {
        if let Mech::Execlist(el) = self {
            *el = El::OnEngine;
        }
    }

    /// The CSB says the context started (or was lite-restored).
    ///
    /// # Errors
    ///
    /// `EPROTO` while the port is idle: no Load was written since it last went idle.
    pub(super) fn csb_started(&mut self) -> Result {
        match self {
            Mech::Execlist(El::Idle) => Err(EPROTO),
            Mech::Execlist(el) => {
                *el = El::OnEngine;
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// The CSB says the context switched out.
    pub(super) fn csb_completed(&mut self) {
        if let Mech::Execlist(el @ El::OnEngine) = self {
            *el = El::Parked;
        }
    }

    /// Whether an execlist port's context is off the engine (a Load may be written).
    pub(super) fn off_engine(&self) -> bool {
        matches!(self, Mech::Execlist(El::Idle | El::Parked))
    }

    /// Hang recovered: the engine reset dropped the context.
    pub(super) fn recovered(&mut self) {
        if let Mech::Execlist(el) = self {
            *el = El::Idle;
        }
    }

    /// A recovery failed: no more work until a GT reset (GuC) or unbind. A port already
    /// stopped stays as it is.
    pub(super) fn fail_recovery(&mut self) {
        *self = match core::mem::replace(self, Mech::Off) {
            Mech::Guc(g) => Mech::Stopped(Stop::FailedRecovery, Some(g)),
            Mech::Execlist(_) => Mech::Stopped(Stop::FailedRecovery, None),
            other => other,
        };
    }

    /// Unbind: no more work; the GuC context, if any, is kept for its teardown.
    pub(super) fn stop(&mut self) {
        *self = match core::mem::replace(self, Mech::Off) {
            Mech::Guc(g) => Mech::Stopped(Stop::Unbind, Some(g)),
            Mech::Stopped(_, g) => Mech::Stopped(Stop::Unbind, g),
            _ => Mech::Stopped(Stop::Unbind, None),
        };
    }

    /// GT reset: the GuC that knew the context is gone; the port is `Off` until started
    /// again.
    ///
    /// # Errors
    ///
    /// `EPROTO` after unbind (the reset is closed before the ports stop): the port stays
    /// stopped.
    pub(super) fn forget(&mut self) -> Result {
        if matches!(self, Mech::Stopped(Stop::Unbind, _)) {
            return Err(EPROTO);
        }
        *self = Mech::Off;
        Ok(())
    }
}

/// What the caller of [`Port::submit`] does once the port lock is dropped.
pub(crate) enum Kick {
    /// Nothing: the request is on its way.
    None,
    /// Tell the GuC the context has work: `SCHED_CONTEXT` for this context index.
    Sched(u16),
    /// Ring the context's doorbell: the page's offset in BAR 0 and the cookie (test build:
    /// the doorbell ABI is a guess, [`super::doorbell`]).
    #[cfg(xehpg_test)]
    Doorbell(u32, u32),
}

/// Per-port state under its lock.
pub(super) struct State {
    pub(super) mech: Mech,
    /// The engine domain's forcewake kept while the execlist port is busy. Beside `mech`,
    /// not in it: only a GT view gives a [`Held`] back, and a GT reset forgets the port
    /// without one; unbind's [`Port::stop`] releases it.
    pub(super) held: Option<Held>,
    /// The software tail, and the tail the engine was last given.
    pub(super) tail: u32,
    pub(super) hw_tail: u32,
    /// Start of the oldest request still in flight (the tail when none is).
    pub(super) head: u32,
    pub(super) csb_head: u8,
    pub(super) next_seqno: u32,
    pub(super) last_retired: u32,
    /// A ring of [`MAX_INFLIGHT`] entries (on the heap: the kernel stack is small).
    pub(super) inflight: KVec<Inflight>,
    pub(super) first: usize,
    pub(super) count: usize,
    /// Per-request latency samples in ns, while a selftest records them (test build).
    #[cfg(xehpg_test)]
    pub(super) latencies: Option<KVec<u64>>,
    /// Kinds of bad input already logged.
    pub(super) told: BadKinds,
}

/// An engine's execlist port.
#[pin_data]
pub(crate) struct Port {
    pub(crate) engine: &'static Engine,
    pub(super) mem: SysBuf,
    pub(super) map: Mapping,
    pub(super) layout: Layout,
    pub(super) ring: Ring,
    /// Process or atomic context, never the top half; taken under the CT's `rx` (GuC events),
    /// above forcewake's lock (Documentation/architecture.rst, "Locks").
    #[pin]
    pub(super) state: SpinLock<State>,
    /// Signalled whenever requests retire or the port stops.
    #[pin]
    pub(crate) done: CondVar,
    pub(crate) stats: Stats,
}

/// What a port's state is, for debugfs.
pub(crate) struct Snapshot {
    pub(crate) started: bool,
    pub(crate) active: bool,
    pub(crate) inflight: usize,
    pub(crate) last_retired: u32,
    pub(crate) head: u32,
    pub(crate) tail: u32,
}

kernel::impl_flags!(
    /// A set of [`BadKind`]s: those a port has already logged.
    #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
    pub(crate) struct BadKinds(u32);

    /// A kind of bad device input a port logs once ([`Port::bad`]).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub(crate) enum BadKind {
        /// The CSB write index out of range.
        CsbPointer = bit_u32(0),
        /// A CSB entry that is no known event.
        CsbEntry = bit_u32(1),
        /// A HWSP seqno beyond the last one submitted.
        Seqno = bit_u32(2),
        /// An input the GuC context's state table refuses ([`super::ctx::CtxState::on`]).
        Transition = bit_u32(3),
    }
);

/// `a` is at or after `b` in seqno order (wrapping, as i915's `i915_seqno_passed`).
pub(crate) const fn seqno_passed(a: u32, b: u32) -> bool {
    // CAST: the signed difference is the point.
    (a.wrapping_sub(b) as i32) >= 0
}

impl Port {
    /// A port for `engine`: its memory allocated and mapped into the GGTT, the LRC image built.
    /// Nothing is written to the engine yet. Process context.
    ///
    /// # Errors
    ///
    /// `ENOMEM`, a GGTT error, or `EINVAL` if the image does not fit.
    pub(crate) fn new(
        dev: &kernel::device::Device<kernel::device::Bound>,
        bar: Bar0<'_>,
        ggtt: &Ggtt,
        engine: &'static Engine,
    ) -> Result<impl PinInit<Self, Error>> {
        let layout = Layout::of(engine);
        let ring = Ring::new(RING_SIZE).ok_or(EINVAL)?;
        let mem = SysBuf::new(dev, layout.total)?;
        // CAST: usize to u64 is lossless.
        let map = ggtt.map_sys(bar, mem.dma(), layout.total as u64)?;
        let inflight =
            KVec::from_elem(Inflight::default(), MAX_INFLIGHT, GFP_KERNEL).map_err(Error::from);
        let built = inflight.and_then(|q| build_image(&mem, &map, &layout, engine).map(|()| q));
        let inflight = match built {
            Ok(q) => q,
            Err(e) => {
                ggtt.unmap(bar, map);
                return Err(e);
            }
        };
        Ok(try_pin_init!(Self {
            engine,
            mem,
            map,
            layout,
            ring,
            state <- new_spinlock!(State {
                held: None,
                tail: 0,
                hw_tail: 0,
                head: 0,
                csb_head: csb::RESET_INDEX,
                next_seqno: 1,
                last_retired: 0,
                inflight,
                first: 0,
                count: 0,
                mech: Mech::Off,
                #[cfg(xehpg_test)]
                latencies: None,
                told: BadKinds::empty(),
            }),
            done <- new_condvar!(),
            stats: Stats {
                submitted: Atomic::new(0),
                completed: Atomic::new(0),
                loads: Atomic::new(0),
                interrupts: Atomic::new(0),
                csb_events: Atomic::new(0),
                resets: Atomic::new(0),
                nudges: Atomic::new(0),
                bad_input: Atomic::new(0),
                errors: Atomic::new(0),
                failed: Atomic::new(0),
                bad_transitions: Atomic::new(0),
            },
        }? Error))
    }

    /// GGTT address of byte `off` of the port's memory.
    pub(super) fn ggtt(&self, off: usize) -> u32 {
        // CAST: the GGTT window ends below 4 GiB (`GUC_GGTT_TOP`).
        self.map.addr(off as u64) as u32
    }

    /// GGTT address of the seqno dword.
    fn seqno_addr(&self) -> u32 {
        self.ggtt(HWSP_SEQNO * 4)
    }

    /// Queues one request (its `payload`, then the seqno write and the user interrupt) and
    /// returns its seqno. Process or atomic context, never the top half.
    ///
    /// # Errors
    ///
    /// `EBUSY` when the ring or the in-flight queue is full (retry once requests retire),
    /// `ENODEV` before start or after stop, forcewake errors.
    pub(crate) fn submit(&self, gt: &Gt<'_>, payload: Payload) -> Result<(u32, Kick)> {
        let mut st = self.state.lock();
        if matches!(st.mech, Mech::Off) || st.mech.stopped() {
            return Err(ENODEV);
        }
        if let Mech::Guc(g) = &st.mech {
            g.check_submit()?;
        }
        let mut words = [0u32; REQUEST_DWORDS];
        let seqno = st.next_seqno;
        let n = request_commands(
            self.engine.class,
            payload,
            self.seqno_addr(),
            seqno,
            &mut words,
        );
        // CAST: at most REQUEST_DWORDS (34) dwords.
        let bytes = (n * 4) as u32;
        if st.count >= MAX_INFLIGHT || self.ring.space(st.head, st.tail) < bytes {
            return Err(EBUSY);
        }
        let mut at = st.tail;
        for w in words.iter().take(n) {
            self.mem
                .write(self.layout.ring / 4 + (at / 4) as usize, *w)?;
            at = self.ring.advance(at, 4);
        }
        let slot = (st.first + st.count) % MAX_INFLIGHT;
        if let Some(e) = st.inflight.get_mut(slot) {
            *e = Inflight {
                seqno,
                end: at,
                #[cfg(xehpg_test)]
                submitted: Some(Instant::now()),
            };
        }
        st.count += 1;
        st.tail = at;
        // 0 is what the HWSP holds before the first write: never a request's.
        st.next_seqno = match seqno.wrapping_add(1) {
            0 => 1,
            s => s,
        };
        self.stats.submitted.add(1, Relaxed);
        match &st.mech {
            Mech::Execlist(El::Idle | El::Parked) => {
                self.load(gt, &mut st)?;
                Ok((seqno, Kick::None))
            }
            Mech::Guc(g) => {
                // The GuC (re)loads the context from its image: the new tail goes there.
                #[cfg(xehpg_test)]
                let kick = match g.doorbell {
                    Some(d) => Kick::Doorbell(d.offset(), seqno),
                    None => Kick::Sched(g.id),
                };
                #[cfg(not(xehpg_test))]
                let kick = Kick::Sched(g.id);
                self.mem
                    .write(self.layout.state / 4 + lrc::CTX_RING_TAIL, st.tail)?;
                st.hw_tail = st.tail;
                Ok((seqno, kick))
            }
            _ => Ok((seqno, Kick::None)),
        }
    }

    /// Handles an engine interrupt: CSB, retirement, reload, forcewake release. Threaded
    /// (process) context.
    pub(crate) fn process(&self, gt: &Gt<'_>) {
        self.stats.interrupts.add(1, Relaxed);
        let mut st = self.state.lock();
        if matches!(st.mech, Mech::Off) || st.mech.stopped() {
            return;
        }
        let execlist = matches!(st.mech, Mech::Execlist(_));
        if execlist {
            self.read_csb(gt, &mut st);
        }
        let retired = self.retire(gt, &mut st);
        if st.mech.off_engine() && st.tail != st.hw_tail {
            if let Err(e) = self.load(gt, &mut st) {
                self.stats.errors.add(1, Relaxed);
                dev_err!(
                    gt.dev,
                    "submit: {}: reloading the context failed: {}\n",
                    self.engine.name,
                    e.to_errno()
                );
            }
        }
        if execlist {
            self.release_if_idle(gt, &mut st);
        }
        drop(st);
        if retired > 0 {
            self.done.notify_all();
        }
    }

    /// Retires every request the engine's seqno has passed; returns how many.
    fn retire(&self, gt: &Gt<'_>, st: &mut State) -> usize {
        let hw = self.mem.read(HWSP_SEQNO).unwrap_or(0);
        let newest = st.next_seqno.wrapping_sub(1);
        if !seqno_passed(newest, hw) {
            self.bad(
                gt,
                st,
                BadKind::Seqno,
                "seqno beyond the last submitted",
                hw,
            );
            return 0;
        }
        let mut n = 0;
        while st.count > 0 {
            let Some(req) = st.inflight.get(st.first).copied() else {
                break;
            };
            if !seqno_passed(hw, req.seqno) {
                break;
            }
            st.first = (st.first + 1) % MAX_INFLIGHT;
            st.count -= 1;
            st.head = req.end;
            st.last_retired = req.seqno;
            #[cfg(xehpg_test)]
            if let (Some(t), Some(l)) = (req.submitted, st.latencies.as_mut()) {
                // CAST: a non-negative duration.
                let _ = l.push_within_capacity(t.elapsed().as_nanos() as u64);
            }
            n += 1;
        }
        if st.count == 0 {
            st.head = st.tail;
        }
        // CAST: usize to u64 is lossless.
        self.stats.completed.add(n as u64, Relaxed);
        n
    }

    /// Counts bad device input and logs its first occurrence of each kind.
    pub(super) fn bad(&self, gt: &Gt<'_>, st: &mut State, kind: BadKind, what: &str, value: u32) {
        self.stats.bad_input.add(1, Relaxed);
        if !st.told.contains(kind) {
            st.told |= kind;
            dev_err!(
                gt.dev,
                "submit: {}: bad {} {:#x} in the HWSP; ignored (further ones counted in debugfs \
                 engines)\n",
                self.engine.name,
                what,
                value
            );
        }
    }

    /// Counts a state change the port's tables refuse ([`Mech`], [`super::ctx`]) and logs
    /// the first one: `what` says which. Any context but the top half (port lock held).
    pub(super) fn refused(&self, dev: &Device, st: &mut State, what: fmt::Arguments<'_>) {
        self.stats.bad_transitions.add(1, Relaxed);
        if !st.told.contains(BadKind::Transition) {
            st.told |= BadKind::Transition;
            dev_err!(
                dev,
                "submit: {}: {}; state kept (further ones counted in debugfs engines)\n",
                self.engine.name,
                what
            );
        }
    }

    /// Starts recording per-request latencies (room for `n`), returning the old recording.
    ///
    /// # Errors
    ///
    /// `ENOMEM`.
    #[cfg(xehpg_test)]
    pub(crate) fn record_latencies(&self, n: usize) -> Result {
        let v = KVec::with_capacity(n, GFP_KERNEL)?;
        self.state.lock().latencies = Some(v);
        Ok(())
    }

    /// Takes the recorded latencies.
    #[cfg(xehpg_test)]
    pub(crate) fn take_latencies(&self) -> Option<KVec<u64>> {
        self.state.lock().latencies.take()
    }

    /// Waits (interruptibly) until `f(state)` holds or `ms` pass without a wake-up (a
    /// retirement, a GuC event, a stop). Process context. Returns whether `f` held.
    pub(super) fn wait_progress(&self, ms: u32, mut f: impl FnMut(&State) -> bool) -> bool {
        let mut st = self.state.lock();
        loop {
            if f(&st) {
                return true;
            }
            match self
                .done
                .wait_interruptible_timeout(&mut st, kernel::time::msecs_to_jiffies(ms))
            {
                kernel::sync::CondVarTimeoutResult::Woken { .. } => {}
                _ => return f(&st),
            }
        }
    }

    /// Empties the ring after a reset dropped the context unsaved: the software offsets and
    /// the image's head and tail back to 0 (both mechanisms' recovery).
    ///
    /// # Errors
    ///
    /// Only the image write's, which cannot fail for the port's own layout.
    pub(super) fn empty_ring(&self, st: &mut State) -> Result {
        st.head = 0;
        st.tail = 0;
        st.hw_tail = 0;
        let base = self.layout.state / 4;
        self.mem.write(base + lrc::CTX_RING_HEAD, 0)?;
        self.mem.write(base + lrc::CTX_RING_TAIL, 0)
    }

    /// Whether the port has nothing in flight, is stopped, or awaits GuC recovery.
    pub(super) fn settled(st: &State) -> bool {
        st.count == 0
            || st.mech.stopped()
            || matches!(&st.mech, Mech::Guc(g) if g.state == CtxState::Reset)
    }

    /// Unbind: no more submissions; requests still in flight are dropped (their waiters see
    /// the port stopped), forcewake released. The caller stops the engine. Process context.
    pub(crate) fn stop(&self, gt: &Gt<'_>) -> usize {
        let mut st = self.state.lock();
        st.mech.stop();
        let dropped = st.count;
        // CAST: usize to u64 is lossless.
        self.stats.failed.add(dropped as u64, Relaxed);
        st.count = 0;
        if let Some(h) = st.held.take() {
            drop(gt.resume(h));
        }
        drop(st);
        self.done.notify_all();
        dropped
    }

    /// Frees the GGTT range (after [`Port::stop`] and the engine reset).
    pub(crate) fn unmap(&self, bar: Bar0<'_>, ggtt: &Ggtt) {
        ggtt.unmap(bar, self.map);
    }

    /// State for debugfs.
    pub(crate) fn snapshot(&self) -> Snapshot {
        let st = self.state.lock();
        Snapshot {
            started: !matches!(st.mech, Mech::Off),
            active: matches!(st.mech, Mech::Execlist(El::OnEngine)),
            inflight: st.count,
            last_retired: st.last_retired,
            head: st.head,
            tail: st.tail,
        }
    }
}

/// Writes the LRC image of `engine` into the port's memory.
fn build_image(mem: &SysBuf, map: &Mapping, layout: &Layout, engine: &Engine) -> Result {
    let words = lrc::state_pages(engine.class) * 1024;
    let mut state = KVec::from_elem(0u32, words, GFP_KERNEL)?;
    // CAST: GGTT addresses are below 4 GiB.
    let ring = map.addr(layout.ring as u64) as u32;
    lrc::build(&mut state, engine, ring, RING_SIZE).map_err(|_| EINVAL)?;
    for (i, v) in state.iter().enumerate() {
        mem.write(layout.state / 4 + i, *v)?;
    }
    Ok(())
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_port)]
mod tests {
    use super::*;
    use crate::engine::ENGINES;

    #[test]
    fn seqno_order_wraps() {
        assert!(seqno_passed(5, 5));
        assert!(seqno_passed(6, 5));
        assert!(!seqno_passed(4, 5));
        assert!(seqno_passed(1, u32::MAX));
        assert!(!seqno_passed(u32::MAX, 1));
    }

    /// Each kind of [`Mech`], for the tables below.
    fn mechs() -> [Mech; 9] {
        let unreg = GucCtx::new(1, 1);
        let mut reg = GucCtx::new(1, 1);
        let _ = reg.step(super::super::ctx::CtxInput::RegisterAccepted);
        [
            Mech::Off,
            Mech::Execlist(El::Idle),
            Mech::Execlist(El::OnEngine),
            Mech::Execlist(El::Parked),
            Mech::Guc(unreg),
            Mech::Guc(reg),
            Mech::Stopped(Stop::FailedRecovery, None),
            Mech::Stopped(Stop::FailedRecovery, Some(GucCtx::new(1, 1))),
            Mech::Stopped(Stop::Unbind, Some(GucCtx::new(1, 1))),
        ]
    }

    /// A short name of a [`Mech`], to compare.
    fn name(m: &Mech) -> &'static str {
        match m {
            Mech::Off => "off",
            Mech::Execlist(El::Idle) => "el-idle",
            Mech::Execlist(El::OnEngine) => "el-on",
            Mech::Execlist(El::Parked) => "el-parked",
            Mech::Guc(_) => "guc",
            Mech::Stopped(Stop::FailedRecovery, None) => "failed",
            Mech::Stopped(Stop::FailedRecovery, Some(_)) => "failed-guc",
            Mech::Stopped(Stop::Unbind, None) => "unbind",
            Mech::Stopped(Stop::Unbind, Some(_)) => "unbind-guc",
        }
    }

    #[test]
    fn execlist_context_follows_the_csb() {
        let mut m = Mech::Off;
        assert_eq!(m.start_execlist(), Ok(()));
        assert_eq!(name(&m), "el-idle");
        assert!(m.off_engine());
        // Started with no Load since idle: refused, state kept.
        assert_eq!(m.csb_started(), Err(EPROTO));
        assert_eq!(name(&m), "el-idle");
        m.loaded();
        assert_eq!(name(&m), "el-on");
        assert!(!m.off_engine());
        assert_eq!(m.csb_started(), Ok(()));
        m.csb_completed();
        assert_eq!(name(&m), "el-parked");
        assert!(m.off_engine());
        // A lite restore after a reload of a parked context.
        assert_eq!(m.csb_started(), Ok(()));
        assert_eq!(name(&m), "el-on");
        m.recovered();
        assert_eq!(name(&m), "el-idle");
        // Started twice is refused.
        assert_eq!(m.start_execlist(), Err(EPROTO));
    }

    #[test]
    fn every_lifecycle_event_follows_the_table() {
        // (from, after stop, after fail_recovery, forget accepted, after forget)
        let want = [
            ("off", "unbind", "off", true, "off"),
            ("el-idle", "unbind", "failed", true, "off"),
            ("el-on", "unbind", "failed", true, "off"),
            ("el-parked", "unbind", "failed", true, "off"),
            ("guc", "unbind-guc", "failed-guc", true, "off"),
            ("guc", "unbind-guc", "failed-guc", true, "off"),
            ("failed", "unbind", "failed", true, "off"),
            ("failed-guc", "unbind-guc", "failed-guc", true, "off"),
            (
                "unbind-guc",
                "unbind-guc",
                "unbind-guc",
                false,
                "unbind-guc",
            ),
        ];
        for (i, w) in want.iter().enumerate() {
            let from = || mechs().into_iter().nth(i).unwrap_or(Mech::Off);
            assert_eq!(name(&from()), w.0);
            let mut m = from();
            m.stop();
            assert_eq!(name(&m), w.1);
            assert!(m.stopped());
            let mut m = from();
            m.fail_recovery();
            assert_eq!(name(&m), w.2);
            let mut m = from();
            assert_eq!(m.forget().is_ok(), w.3);
            assert_eq!(name(&m), w.4);
            // A GuC start only from off or over a deregistered context.
            let mut m = from();
            let ok = matches!(i, 0 | 4);
            assert_eq!(m.start_guc(GucCtx::new(2, 1)).is_ok(), ok);
            if ok {
                assert_eq!(m.guc().map(|g| g.id), Some(2));
            }
            // A stop keeps the GuC context for its teardown.
            let mut m = from();
            let had = m.guc().map(|g| g.id);
            m.stop();
            assert_eq!(m.guc().map(|g| g.id), had);
        }
    }

    #[test]
    fn layouts_fit_and_align() {
        for e in ENGINES.iter() {
            let l = Layout::of(e);
            // The LRCA and the ring are page aligned (descriptor bits 31:12, seed 004 line 471).
            assert_eq!(l.lrc % 4096, 0);
            assert_eq!(l.ring % 4096, 0);
            assert_eq!(l.total % 4096, 0);
            assert_eq!(l.state, l.lrc + 4096);
            assert_eq!(l.ring - l.state, lrc::state_pages(e.class) * 4096);
            // The seqno lies past the CSB and its write index.
            assert!(HWSP_SEQNO > csb::HWSP_WRITE_INDEX);
        }
    }
}
