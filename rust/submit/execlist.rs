// SPDX-License-Identifier: GPL-2.0

//! Execlist submission: the host writes the engine's submission queue itself.
//!
//! # One port per engine
//!
//! Each engine has one kernel context (its LRC and ring) and one system-memory object holding,
//! in this order, the engine's global HWSP (4 KiB: the CSB and the driver's seqno), the LRC
//! (per-process HWSP and register state, [`lrc`]) and the ring. System memory, not local: the
//! PRM wants both status pages snooped (seed 004 line 395), and it keeps every CPU access on
//! the completion path a memory read, never a BAR access.
//!
//! # Request lifetime
//!
//! 1. `submit` (process context, port lock): the request's commands go into the ring after the
//!    tail ([`cmd::request`]); it is queued in flight with its seqno. If the context is not on
//!    the engine, the new tail goes into the image (`CTX_RING_TAIL`) and the descriptor into
//!    SQ element 0, then `EXECLIST_CONTROL` Load: three register writes (elements 1-7 stay
//!    invalid from start-up: the SQ keeps its contents, seed 004 line 130). If it is, nothing
//!    more: the engine is never sent a context it is still running, so the image is never
//!    written while the engine may save it (no lite restore), and several requests queued
//!    meanwhile leave together.
//! 2. The engine reports the switch in (CSB row "idle to active") and runs the ring; each
//!    request writes its seqno into the HWSP and raises the user interrupt.
//! 3. The interrupt thread (`process`): CSB entries after the read index update whether the
//!    context is on the engine; the seqno retires every request up to it (each exactly once:
//!    retiring removes it from the queue), which frees its ring space. When the context has
//!    switched out with more in the ring, it is loaded again.
//!
//! Forcewake for the engine's domain is taken when the port goes busy and kept (as a
//! [`Held`]) until it is idle with nothing in flight, so a busy engine's submissions cost only
//! the three writes.
//!
//! # Untrusted input
//!
//! The HWSP is written by the device: a CSB write index outside 0..12, an entry naming a
//! context this port never submitted, or a seqno beyond the last one submitted are counted and
//! logged (first of each kind per port), and never retire a request that was not run.

use kernel::{
    new_condvar, new_spinlock,
    prelude::*,
    sync::{
        atomic::{Atomic, Relaxed},
        CondVar, SpinLock,
    },
    time::{Instant, Monotonic},
};

use crate::{
    engine::{
        cmd,
        csb::{self, Entry, Event},
        lrc,
        regs::{self, Io},
        ring::Ring,
        Engine,
    },
    gt::{forcewake::Held, Gt},
    mem::{
        ggtt::{Ggtt, Mapping},
        sysbuf::SysBuf,
    },
    mmio::Bar0,
};

/// Ring size: upstream's execlist port ring (`xe_execlist.c`, 16 KiB LRC ring).
const RING_SIZE: u32 = 16 << 10;
/// Requests in flight at most: a request takes at least 32 bytes of the ring.
pub(crate) const MAX_INFLIGHT: usize = 256;
/// HWSP layout: the global HWSP first, the LRC after it.
const HWSP_BYTES: usize = 4096;
/// HWSP dword of the driver's seqno (i915 `I915_GEM_HWS_SEQNO`, past the CSB's dwords).
pub(crate) const HWSP_SEQNO: usize = 0x40;
/// The port's SW context ID: 1 (xe reserves 0 for its idle context, 0xffff is the CSB's idle).
const CTX_ID: u16 = 1;

/// Where the objects of a port lie in its memory.
#[derive(Copy, Clone)]
struct Layout {
    /// Byte offsets.
    lrc: usize,
    state: usize,
    ring: usize,
    total: usize,
}

impl Layout {
    const fn of(e: &Engine) -> Self {
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
struct Inflight {
    seqno: u32,
    /// Ring offset after its commands: the head once it is retired.
    end: u32,
    submitted: Option<Instant<Monotonic>>,
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
    /// Device input rejected: bad CSB pointers or entries, seqnos never submitted.
    pub(crate) bad_input: Atomic<u64>,
    pub(crate) errors: Atomic<u64>,
    /// Requests failed by a reset or unbind instead of retiring.
    pub(crate) failed: Atomic<u64>,
}

/// Per-port state under its lock.
struct State {
    held: Option<Held>,
    /// The software tail, and the tail the engine was last given.
    tail: u32,
    hw_tail: u32,
    /// Start of the oldest request still in flight (the tail when none is).
    head: u32,
    /// The context is on the engine (CSB).
    active: bool,
    csb_head: u8,
    next_seqno: u32,
    last_retired: u32,
    /// A ring of [`MAX_INFLIGHT`] entries (on the heap: the kernel stack is small).
    inflight: KVec<Inflight>,
    first: usize,
    count: usize,
    started: bool,
    /// Set at unbind: no more submissions.
    stopped: bool,
    /// Per-request latency samples in ns, while a selftest records them.
    latencies: Option<KVec<u64>>,
    /// Kinds of bad input already logged (bit per kind).
    told: u32,
}

/// An engine's execlist port.
#[pin_data]
pub(crate) struct Port {
    pub(crate) engine: &'static Engine,
    mem: SysBuf,
    map: Mapping,
    layout: Layout,
    ring: Ring,
    #[pin]
    state: SpinLock<State>,
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

const TOLD_CSB_POINTER: u32 = 1 << 0;
const TOLD_CSB_ENTRY: u32 = 1 << 1;
const TOLD_SEQNO: u32 = 1 << 2;

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
                active: false,
                csb_head: csb::RESET_INDEX,
                next_seqno: 1,
                last_retired: 0,
                inflight,
                first: 0,
                count: 0,
                started: false,
                stopped: false,
                latencies: None,
                told: 0,
            }),
            done <- new_condvar!(),
            stats: Stats {
                submitted: Atomic::new(0),
                completed: Atomic::new(0),
                loads: Atomic::new(0),
                interrupts: Atomic::new(0),
                csb_events: Atomic::new(0),
                resets: Atomic::new(0),
                bad_input: Atomic::new(0),
                errors: Atomic::new(0),
                failed: Atomic::new(0),
            },
        }? Error))
    }

    /// GGTT address of byte `off` of the port's memory.
    fn ggtt(&self, off: usize) -> u32 {
        // CAST: the GGTT window ends below 4 GiB (`GUC_GGTT_TOP`).
        self.map.addr(off as u64) as u32
    }

    /// GGTT address of the seqno dword.
    fn seqno_addr(&self) -> u32 {
        self.ggtt(HWSP_SEQNO * 4)
    }

    /// Execlist mode on: the engine set up as `xe_hw_engine.c` and `xe_execlist.c` do
    /// (HWSTAM all masked, legacy mode off, ring not stopped, HWSP address with a posting
    /// read), the CSB pointers reset as i915's `reset_csb_pointers`, and SQ elements 1-7
    /// invalidated once. Process context (probe).
    ///
    /// # Errors
    ///
    /// Forcewake errors.
    pub(crate) fn start(&self, gt: &Gt<'_>) -> Result {
        let guard = gt.forcewake(self.engine.domain.bit())?;
        let io = Io::new(gt, &guard, self.engine)?;
        let mut st = self.state.lock();
        self.program(&io, &mut st);
        st.started = true;
        Ok(())
    }

    /// The engine registers of execlist mode (see [`Port::start`]).
    fn program(&self, io: &Io<'_>, st: &mut State) {
        io.write(regs::HWSTAM, u32::MAX);
        io.write(
            regs::GFX_MODE,
            regs::masked(regs::GFX_DISABLE_LEGACY_MODE, true),
        );
        io.write(regs::MI_MODE, regs::masked(regs::STOP_RING, false));
        self.reset_csb(io, st);
        io.write(regs::HWS_PGA, self.ggtt(0));
        let _ = io.read(regs::HWS_PGA);
        for n in 1..8 {
            let (lo, hi) = regs::sq(n);
            io.write(lo, 0);
            io.write(hi, 0);
        }
    }

    /// Hang recovery: the engine made no progress for `stalled_ms`. Resets it
    /// ([`super::reset_engine`]), fails every request in flight (each exactly once: the queue
    /// is emptied), empties the ring (the context image's head and tail back to 0, as the
    /// reset dropped the context without saving it) and programs execlist mode again, so the
    /// next request runs. Process context. Returns how many requests failed.
    ///
    /// # Errors
    ///
    /// Forcewake or reset errors; the port then stays stopped (`EIO` for later submissions).
    pub(crate) fn recover(&self, gt: &Gt<'_>, stalled_ms: u32) -> Result<usize> {
        let mut st = self.state.lock();
        let hw = self.mem.read(HWSP_SEQNO).unwrap_or(0);
        let oldest = st.inflight.get(st.first).map_or(0, |r| r.seqno);
        let failed = st.count;
        dev_err!(
            gt.dev,
            "submit: {}: hung: nothing retired for {} ms (engine seqno {}, oldest in flight              {}, {} in flight); resetting the engine\n",
            self.engine.name,
            stalled_ms,
            hw,
            oldest,
            failed
        );
        st.count = 0;
        st.active = false;
        self.stats.resets.add(1, Relaxed);
        // CAST: usize to u64 is lossless.
        self.stats.failed.add(failed as u64, Relaxed);
        let res = super::reset_engine(gt, self.engine).and_then(|()| {
            let guard = match st.held.take() {
                Some(h) => gt.resume(h),
                None => gt.forcewake(self.engine.domain.bit())?,
            };
            let io = Io::new(gt, &guard, self.engine)?;
            let base = self.layout.state / 4;
            self.mem.write(base + lrc::CTX_RING_HEAD, 0)?;
            self.mem.write(base + lrc::CTX_RING_TAIL, 0)?;
            self.program(&io, &mut st);
            Ok(())
        });
        st.head = 0;
        st.tail = 0;
        st.hw_tail = 0;
        // The seqno the engine wrote last stays: the next request's is newer.
        if let Err(e) = res {
            st.stopped = true;
            dev_err!(
                gt.dev,
                "submit: {}: recovery failed ({}); engine stopped until unbind\n",
                self.engine.name,
                e.to_errno()
            );
            drop(st);
            self.done.notify_all();
            return Err(e);
        }
        drop(st);
        self.done.notify_all();
        Ok(failed)
    }

    /// Both CSB pointers and the HWSP copy to the last slot, every slot consumed.
    fn reset_csb(&self, io: &Io<'_>, st: &mut State) {
        let last = u32::from(csb::RESET_INDEX);
        io.write(regs::CONTEXT_STATUS_PTR, 0xffff << 16 | last << 8 | last);
        for i in 0..usize::from(csb::ENTRIES) * 2 {
            let _ = self.mem.write(csb::HWSP_CSB + i, u32::MAX);
        }
        let _ = self.mem.write(csb::HWSP_WRITE_INDEX, last);
        st.csb_head = csb::RESET_INDEX;
    }

    /// Queues one request (an optional payload store of `payload.1` to GGTT `payload.0`) and
    /// returns its seqno. Process or atomic context, never the top half.
    ///
    /// # Errors
    ///
    /// `EBUSY` when the ring or the in-flight queue is full (retry once requests retire),
    /// `ENODEV` before start or after stop, forcewake errors.
    pub(crate) fn submit(&self, gt: &Gt<'_>, payload: Option<(u32, u32)>) -> Result<u32> {
        let mut st = self.state.lock();
        if !st.started || st.stopped {
            return Err(ENODEV);
        }
        let mut words = [0u32; cmd::REQUEST_DWORDS];
        let seqno = st.next_seqno;
        let n = cmd::request(
            self.engine.class,
            payload,
            self.seqno_addr(),
            seqno,
            &mut words,
        );
        // CAST: at most 16 dwords.
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
        if !st.active {
            self.load(gt, &mut st)?;
        }
        Ok(seqno)
    }

    /// Gives the engine the context with the current tail: image tail, SQ element 0, Load
    /// (`xe_execlist.c`, `__start_lrc`). The context is not on the engine.
    fn load(&self, gt: &Gt<'_>, st: &mut State) -> Result {
        let guard = match st.held.take() {
            Some(h) => gt.resume(h),
            None => gt.forcewake(self.engine.domain.bit())?,
        };
        let res = Io::new(gt, &guard, self.engine).and_then(|io| {
            self.mem
                .write(self.layout.state / 4 + lrc::CTX_RING_TAIL, st.tail)?;
            let desc = lrc::descriptor(self.ggtt(self.layout.lrc), CTX_ID);
            // The image is coherent memory; the register writes below are ordered after it
            // (`writel`).
            // CAST: the two halves of the descriptor.
            io.write(regs::SQ_CONTENTS_LO, desc as u32);
            io.write(regs::SQ_CONTENTS_HI, (desc >> 32) as u32);
            io.write(regs::EXECLIST_CONTROL, regs::EL_CTRL_LOAD);
            Ok(())
        });
        st.held = Some(guard.keep());
        res?;
        st.hw_tail = st.tail;
        st.active = true;
        self.stats.loads.add(1, Relaxed);
        Ok(())
    }

    /// Handles an engine interrupt: CSB, retirement, reload, forcewake release. Threaded
    /// (process) context.
    pub(crate) fn process(&self, gt: &Gt<'_>) {
        self.stats.interrupts.add(1, Relaxed);
        let mut st = self.state.lock();
        if !st.started {
            return;
        }
        self.read_csb(gt, &mut st);
        let retired = self.retire(gt, &mut st);
        if !st.active && st.tail != st.hw_tail && !st.stopped {
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
        self.release_if_idle(gt, &mut st);
        drop(st);
        if retired > 0 {
            self.done.notify_all();
        }
    }

    /// Consumes the CSB entries after the read index.
    fn read_csb(&self, gt: &Gt<'_>, st: &mut State) {
        let write = self.mem.read(csb::HWSP_WRITE_INDEX).unwrap_or(u32::MAX) & 0xff;
        // CAST: checked below.
        let Some(slots) = csb::pending(st.csb_head, write.min(0xff) as u8) else {
            self.bad(gt, st, TOLD_CSB_POINTER, "CSB write index", write);
            return;
        };
        for slot in slots {
            let i = csb::HWSP_CSB + 2 * usize::from(slot);
            let (lo, hi) = (
                self.mem.read(i).unwrap_or(u32::MAX),
                self.mem.read(i + 1).unwrap_or(u32::MAX),
            );
            let Some(entry) = Entry::decode(lo, hi) else {
                // Not written yet although the index says so: read again next time.
                break;
            };
            let _ = self.mem.write(i, u32::MAX);
            let _ = self.mem.write(i + 1, u32::MAX);
            st.csb_head = slot;
            self.stats.csb_events.add(1, Relaxed);
            match entry.event() {
                Event::Started(CTX_ID) | Event::LiteRestore(CTX_ID) => st.active = true,
                Event::Completed(CTX_ID) => st.active = false,
                Event::Idle => {}
                _ => self.bad(gt, st, TOLD_CSB_ENTRY, "CSB entry (low dword)", lo),
            }
        }
    }

    /// Retires every request the engine's seqno has passed; returns how many.
    fn retire(&self, gt: &Gt<'_>, st: &mut State) -> usize {
        let hw = self.mem.read(HWSP_SEQNO).unwrap_or(0);
        let newest = st.next_seqno.wrapping_sub(1);
        if !seqno_passed(newest, hw) {
            self.bad(gt, st, TOLD_SEQNO, "seqno beyond the last submitted", hw);
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

    /// Drops the kept forcewake once the port has nothing on the engine and nothing queued.
    fn release_if_idle(&self, gt: &Gt<'_>, st: &mut State) {
        if !st.active && st.count == 0 {
            if let Some(h) = st.held.take() {
                drop(gt.resume(h));
            }
        }
    }

    /// Counts bad device input and logs its first occurrence of each kind.
    fn bad(&self, gt: &Gt<'_>, st: &mut State, kind: u32, what: &str, value: u32) {
        self.stats.bad_input.add(1, Relaxed);
        if st.told & kind == 0 {
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

    /// Starts recording per-request latencies (room for `n`), returning the old recording.
    ///
    /// # Errors
    ///
    /// `ENOMEM`.
    pub(crate) fn record_latencies(&self, n: usize) -> Result {
        let v = KVec::with_capacity(n, GFP_KERNEL)?;
        self.state.lock().latencies = Some(v);
        Ok(())
    }

    /// Takes the recorded latencies.
    pub(crate) fn take_latencies(&self) -> Option<KVec<u64>> {
        self.state.lock().latencies.take()
    }

    /// Waits (interruptibly) until `f(state)` holds or `ms` pass without a retirement.
    /// Process context. Returns whether `f` held.
    pub(crate) fn wait_progress(&self, ms: u32, mut f: impl FnMut(usize, bool) -> bool) -> bool {
        let mut st = self.state.lock();
        loop {
            if f(st.count, st.stopped) {
                return true;
            }
            match self
                .done
                .wait_interruptible_timeout(&mut st, kernel::time::msecs_to_jiffies(ms))
            {
                kernel::sync::CondVarTimeoutResult::Woken { .. } => {}
                _ => return f(st.count, st.stopped),
            }
        }
    }

    /// Unbind: no more submissions; requests still in flight are dropped (their waiters see
    /// the port stopped), forcewake released. The caller stops the engine. Process context.
    pub(crate) fn stop(&self, gt: &Gt<'_>) -> usize {
        let mut st = self.state.lock();
        st.stopped = true;
        let dropped = st.count;
        // CAST: usize to u64 is lossless.
        self.stats.failed.add(dropped as u64, Relaxed);
        st.count = 0;
        st.active = false;
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
            started: st.started,
            active: st.active,
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
#[kernel::prelude::kunit_tests(xehpg_execlist)]
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
