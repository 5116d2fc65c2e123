// SPDX-License-Identifier: GPL-2.0

//! The running channel: sending into H2G, receiving from G2H, matching replies to requests.
//!
//! # Sending (`xe_guc_ct.c` `h2g_write`, `__guc_ct_send_locked`)
//!
//! Under [`Channel::inner`] (a spinlock: a send never sleeps): place the message after the
//! tail, zero-filling the rest of the ring first when it does not fit before the end; write the
//! CTB header, the HXG header (type REQUEST or FAST_REQUEST) and the payload; then the
//! descriptor's tail, so the GuC never sees a tail before the dwords behind it; then one write
//! of `GUC_HOST_INTERRUPT`, the only register access of a send. The head is re-read from the
//! descriptor only when the cached one says the ring is full. A batch of FAST_REQUESTs shares
//! one tail update and one notify.
//!
//! # Waiting (`guc_ct_send_recv`, §5.7-5.8)
//!
//! A REQUEST claims a waiter slot and G2H credits before it is sent, then sleeps on
//! [`Channel::done`] until its reply arrives: SUCCESS returns DATA0, FAILURE is `EIO` with the
//! error logged, BUSY extends the wait (bounded), RETRY resends after a growing sleep (at most
//! [`RETRY_LIMIT`] times). No reply in [`REPLY_TIMEOUT`] is `ETIME`; a channel that breaks or
//! goes down meanwhile wakes every waiter. Process context only.
//!
//! # Receiving (`g2h_read`, `parse_g2h_msg`, §5.9)
//!
//! The interrupt thread calls [`Channel::receive`] after a GuC-to-host interrupt; a waiter
//! also does when its sleep times out without a wake-up (the fallback upstream calls safe
//! mode: a masked or lost interrupt delays replies instead of losing them). One receiver at a
//! time ([`Channel::rx`]). Every message is checked before use (ring module: descriptor
//! status, head, tail, length inside what was written; wire module: format, origin, type);
//! a malformed message of sound length is counted, logged with its dwords and skipped, a ring
//! the reader cannot follow any more breaks the channel: sends fail with `EPIPE`, waiters are
//! woken, the descriptor gets the ABI's status bit, and unbind proceeds as usual.
//!
//! Register accesses on the receive path: none; head, tail and messages are in memory.

// The debugfs `ct` load runs: test build only (`make bench`, `make run`, the CT scenarios).
#[cfg(xehpg_test)]
mod load;

#[cfg(xehpg_test)]
pub(crate) use load::{LoadKind, LoadResult};

use kernel::{
    device::{Bound, Device},
    dma::Coherent,
    new_condvar, new_mutex, new_spinlock,
    prelude::*,
    sync::{
        atomic::{Atomic, Relaxed},
        barrier::{dma_mb, mb, Full, Read, Write},
        Arc, CondVar, CondVarTimeoutResult, Mutex, SpinLock,
    },
    time::{delay::fsleep, msecs_to_jiffies, Delta, Instant, Monotonic},
};

use super::{
    ring::{self, Corrupt, Desc, Next, RingRead},
    waiters::{FastHistory, Matched, Outcome, Waiters, CREDITS_PER_REQUEST, SLOTS},
    wire::{self, CtbHeader, Fences, G2h, Response, MSG_MAX, UNTRACKED},
};
use crate::{
    gt::{Gt, GtState},
    guc::{
        msg::{self, decode_event, BadEvent, EventKind, FastRequest, G2hEvent, H2gRequest},
        regs::GUC_HOST_INTERRUPT,
    },
    mem::lmem::{LmemAccess, Lmembar},
    mmio::Gttmmadr,
    regs::VF_CAP_REG,
};

/// How long a request waits for its reply (upstream: `HZ` per wait).
// TIMEOUT: upstream's value.
pub(crate) const REPLY_TIMEOUT: Delta = Delta::from_secs(1);
/// How long BUSY answers may keep a request waiting in all.
// TIMEOUT: our bound; upstream waits as long as BUSY keeps coming.
const BUSY_TIMEOUT: Delta = Delta::from_secs(5);
/// Resends after RETRY (upstream `GUC_SEND_RETRY_LIMIT`), sleeping 5 ms times the count.
pub(crate) const RETRY_LIMIT: u32 = 50;
const RETRY_SLEEP_MS: i64 = 5;
/// How long a sender waits for room in H2G or for credits (upstream gives up after 1 s).
// TIMEOUT: upstream's value.
const ROOM_TIMEOUT: Delta = Delta::from_secs(1);
/// A waiter looks at G2H itself when no wake-up came for this long.
const POLL_MS: u32 = 100;
/// Messages one receive pass handles before it lets the next pass continue.
pub(crate) const RX_BUDGET: usize = 512;
/// Malformed messages, unknown events and stray replies logged one by one; after that only
/// counted (debugfs `ct` has the totals).
const LOG_LIMIT: u64 = 8;

/// Device access for one send or receive pass.
pub(crate) struct CtIo<'a> {
    pub(crate) gt: &'a Gt<'a>,
    pub(crate) lmem: LmemAccess<'a>,
}

/// Something that can lend device access: probe and unbind have it directly, debugfs and the
/// interrupt thread through the revocable BARs.
pub(crate) trait CtAccess {
    /// The device, for messages.
    fn dev(&self) -> &Device;
    /// Runs `f` with device access, or returns `None` if the device is gone. `f` must not
    /// sleep (it may run under RCU).
    fn with_io<R>(&self, f: impl FnOnce(&CtIo<'_>) -> R) -> Option<R>;
}

/// [`CtAccess::with_io`] for holders of both revocable BARs (debugfs, submission): `f` runs
/// only while the device is bound, under RCU, so it must not sleep.
pub(crate) fn with_bars<R>(
    dev: &Device,
    bar: &Gttmmadr,
    lmem: &Lmembar,
    gt: &GtState,
    f: impl FnOnce(&CtIo<'_>) -> R,
) -> Option<R> {
    bar.try_access_with(|bar| {
        lmem.try_access_with(|lmem| {
            f(&CtIo {
                gt: &gt.view(dev, bar),
                lmem,
            })
        })
    })
    .flatten()
}

/// Where the H2G ring is, as LMEMBAR offsets, and both rings' sizes in dwords.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Rings {
    pub(crate) h2g_desc: u64,
    pub(crate) h2g: u64,
    pub(crate) h2g_size: u32,
    pub(crate) g2h_size: u32,
}

/// The G2H object in system memory (descriptor and ring), shared with the GuC through the
/// GGTT. The GuC state keeps one reference until the GuC is reset, the channel one while it
/// runs, so the memory outlives every access of either side.
pub(crate) struct G2hBuf {
    mem: Coherent<[u32]>,
    /// Dword index of the descriptor and of the ring in `mem`.
    desc: usize,
    ring: usize,
}

impl G2hBuf {
    /// A zeroed object of `bytes` bytes with the descriptor and the ring at these byte offsets.
    ///
    /// # Errors
    ///
    /// `ENOMEM`, or `EINVAL` for a layout outside the object.
    pub(crate) fn new(
        dev: &Device<Bound>,
        bytes: usize,
        desc: usize,
        ring: usize,
        ring_bytes: usize,
    ) -> Result<Self> {
        if desc + 64 > ring || ring + ring_bytes > bytes {
            return Err(EINVAL);
        }
        Ok(Self {
            mem: Coherent::zeroed_slice(dev, bytes / 4, GFP_KERNEL)?,
            desc: desc / 4,
            ring: ring / 4,
        })
    }

    /// The bus address of the object, for the GGTT.
    pub(crate) fn dma(&self) -> u64 {
        self.mem.dma_address()
    }

    fn read(&self, i: usize) -> Result<u32> {
        if i >= self.mem.len() {
            return Err(EINVAL);
        }
        let p = self.mem.as_ptr().cast::<u32>();
        // SAFETY: `i` is inside the allocation (checked), which lives as long as `self`; the
        // GuC writes it concurrently, hence a volatile read of a `u32`, which any bit pattern
        // is.
        Ok(unsafe { p.add(i).read_volatile() })
    }

    fn write(&self, i: usize, v: u32) -> Result {
        if i >= self.mem.len() {
            return Err(EINVAL);
        }
        let p = self.mem.as_mut_ptr().cast::<u32>();
        // SAFETY: as in `read`; the dword is one the host owns (the head) or a status bit the
        // ABI lets either side set, written whole.
        unsafe { p.add(i).write_volatile(v) };
        Ok(())
    }

    fn desc_read(&self) -> Result<Desc> {
        Ok(Desc {
            head: self.read(self.desc + DESC_HEAD)?,
            tail: self.read(self.desc + DESC_TAIL)?,
            status: self.read(self.desc + DESC_STATUS)?,
        })
    }
}

/// Descriptor field offsets in dwords (`struct guc_ct_buffer_desc`).
const DESC_HEAD: usize = 0;
const DESC_TAIL: usize = 1;
const DESC_STATUS: usize = 2;

/// The same in bytes, for the H2G descriptor in local memory.
fn desc_at(desc: u64, field: usize) -> u64 {
    // CAST: a dword index below 16.
    desc + field as u64 * 4
}

/// The channel's state.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Link {
    /// Not enabled, or torn down.
    Down,
    Up,
    /// A ring could not be followed any more, or the GuC disabled the channel.
    Broken(Corrupt),
}

struct Inner {
    link: Link,
    rings: Option<Rings>,
    h2g_tail: u32,
    /// The H2G head as last read from the descriptor.
    h2g_head: u32,
    fences: Fences,
    waiters: Waiters,
    fast: FastHistory,
}

/// The receiver's cursor, the G2H memory and the copy buffer.
struct Rx {
    head: u32,
    g2h: Option<Arc<G2hBuf>>,
    buf: [u32; MSG_MAX],
}

/// Where the G2H events of the blocks above the GuC go (the device's dispatcher). Called from
/// the receive path (process context, the receive mutex held): it must not sleep, touch the
/// device or send on the channel.
pub(crate) trait EventSink: Send + Sync {
    /// A decoded event (never [`G2hEvent::Unknown`]: the channel counts and logs those).
    fn guc_event(&self, dev: &Device, ev: &G2hEvent) -> Consumed;

    /// A known event whose payload has the wrong length; its owner counts and logs it.
    fn guc_bad_event(&self, dev: &Device, bad: &BadEvent) -> Consumed;

    /// The GuC stopped serving the channel: H2G stayed full, the channel broke, or a block
    /// above gave up on a request (see [`Unresponsive`]). Upstream answers each with a GT
    /// reset (`xe_guc_ct.c` `kick_reset`; `xe_guc_submit.c` when a context cannot be
    /// disabled). Any context, the channel's inner spinlock possibly held: it must not sleep
    /// or use the channel. By default nothing (a sink that only routes events).
    fn guc_unresponsive(&self, _dev: &Device, _why: Unresponsive) {}
}

/// Whether a block above took an event; if none did, the channel reports it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Consumed {
    Handled,
    /// No block handles this event now (no GuC submission, no PF, or report-only events).
    NoConsumer,
}

/// How a batch of fast requests rings the GuC.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Notify {
    /// One tail update and one doorbell for the whole batch.
    Once,
    /// One per request (the debugfs load run's comparison; test build).
    #[cfg(xehpg_test)]
    Each,
}

/// Why the channel gave up on the GuC. A single unanswered request is not one of them (it
/// fails with `ETIME`, as upstream's `guc_ct_send_recv`); its caller decides.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Unresponsive {
    /// H2G had no room for a request of this action for [`ROOM_TIMEOUT`] (upstream's
    /// `-EDEADLK`, which kicks the reset).
    NoRoom(u32),
    /// The rings could not be followed any more.
    Broken(Corrupt),
    /// The GuC did not answer the disabling of this context, whose recovery then failed
    /// (upstream's submission timeout that cannot disable a queue, `guc_exec_queue_timedout_job`).
    ContextStuck(u16),
}

/// Counters, read by debugfs without the locks.
struct Stats {
    requests: Atomic<u64>,
    fast: Atomic<u64>,
    notifies: Atomic<u64>,
    replies: Atomic<u64>,
    events: Atomic<u64>,
    per_event: [Atomic<u64>; EventKind::ALL.len()],
    unknown_events: Atomic<u64>,
    retries: Atomic<u64>,
    busy: Atomic<u64>,
    failures: Atomic<u64>,
    fast_failures: Atomic<u64>,
    timeouts: Atomic<u64>,
    malformed: Atomic<u64>,
    unexpected: Atomic<u64>,
    room_waits: Atomic<u64>,
    polls: Atomic<u64>,
    rx_passes: Atomic<u64>,
}

/// The CT channel of one GuC.
#[pin_data]
pub(crate) struct Channel {
    /// Sending and waiting; taken under `rx`, above `sink` and the reset's state spinlock
    /// (Documentation/architecture.rst, "Locks").
    #[pin]
    inner: SpinLock<Inner>,
    /// One receiver at a time (process context: the interrupt thread, a polling waiter,
    /// start/stop under the GuC's mutex); the innermost mutex (Documentation/architecture.rst, "Locks").
    #[pin]
    rx: Mutex<Rx>,
    #[pin]
    done: CondVar,
    stats: Stats,
    /// A debugfs load run is in progress (test build).
    #[cfg(xehpg_test)]
    loading: Atomic<bool>,
    /// The last load run's result (test build); a leaf spinlock, taken by debugfs.
    #[cfg(xehpg_test)]
    #[pin]
    last_load: SpinLock<Option<LoadResult>>,
    /// The events' consumer above the GuC, while one is attached. The channel holds it, never
    /// the reverse (the consumer is handed the channel per call), so no reference cycle.
    /// A leaf spinlock, held only to clone or replace the reference (Documentation/architecture.rst, "Locks").
    #[pin]
    sink: SpinLock<Option<Arc<dyn EventSink>>>,
}

impl Stats {
    const fn new() -> Self {
        Self {
            requests: Atomic::new(0),
            fast: Atomic::new(0),
            notifies: Atomic::new(0),
            replies: Atomic::new(0),
            events: Atomic::new(0),
            per_event: [const { Atomic::new(0) }; EventKind::ALL.len()],
            unknown_events: Atomic::new(0),
            retries: Atomic::new(0),
            busy: Atomic::new(0),
            failures: Atomic::new(0),
            fast_failures: Atomic::new(0),
            timeouts: Atomic::new(0),
            malformed: Atomic::new(0),
            unexpected: Atomic::new(0),
            room_waits: Atomic::new(0),
            polls: Atomic::new(0),
            rx_passes: Atomic::new(0),
        }
    }
}

fn bump(c: &Atomic<u64>) {
    c.add(1, Relaxed);
}

/// The G2H ring, for [`ring::next`].
struct G2hMem<'a> {
    buf: &'a G2hBuf,
    size: u32,
}

impl RingRead for G2hMem<'_> {
    fn size(&self) -> u32 {
        self.size
    }

    fn desc(&self) -> Result<Desc> {
        let d = self.buf.desc_read()?;
        // Nothing of the messages up to this tail may be read before the tail itself.
        dma_mb(Read);
        Ok(d)
    }

    fn dword(&self, i: u32) -> Result<u32> {
        self.buf.read(self.buf.ring + i as usize)
    }
}

impl Channel {
    pub(crate) fn new() -> impl PinInit<Self> {
        pin_init!(Self {
            inner <- new_spinlock!(Inner {
                link: Link::Down,
                rings: None,
                h2g_tail: 0,
                h2g_head: 0,
                fences: Fences::default(),
                waiters: Waiters::new(0),
                fast: FastHistory::new(),
            }),
            rx <- new_mutex!(Rx {
                head: 0,
                g2h: None,
                buf: [0; MSG_MAX],
            }),
            done <- new_condvar!(),
            stats: Stats::new(),
            #[cfg(xehpg_test)]
            loading: Atomic::new(false),
            #[cfg(xehpg_test)]
            last_load <- new_spinlock!(None),
            sink <- new_spinlock!(None),
        })
    }

    /// Attaches `sink` as the consumer of the GuC's events, until the returned guard drops.
    /// Probe, process context, before the engines start (their start waits for the GuC's
    /// events).
    pub(crate) fn install_sink(self: &Arc<Self>, sink: Arc<dyn EventSink>) -> SinkGuard {
        *self.sink.lock() = Some(sink);
        SinkGuard(self.clone())
    }

    /// Starts using freshly zeroed, registered and enabled rings.
    pub(crate) fn start(&self, rings: Rings, g2h: Arc<G2hBuf>) {
        let mut rx = self.rx.lock();
        let mut g = self.inner.lock();
        rx.head = 0;
        rx.g2h = Some(g2h);
        g.rings = Some(rings);
        g.h2g_tail = 0;
        g.h2g_head = 0;
        // Half of G2H in credits for replies, the other half for events (upstream).
        let credits = (rings.g2h_size / 2).min(SLOTS as u32 * CREDITS_PER_REQUEST);
        g.waiters = Waiters::new(credits);
        g.link = Link::Up;
    }

    /// Tells the sink, if one is attached, that the GuC stopped serving the channel: the
    /// channel's own findings, and those of the blocks above (submission). Any context.
    pub(crate) fn unresponsive(&self, dev: &Device, why: Unresponsive) {
        let sink = self.sink.lock().clone();
        if let Some(s) = sink {
            s.guc_unresponsive(dev, why);
        }
    }

    /// Stops using the rings (teardown): waiters are woken with `ECANCELED`, and no send or
    /// receive touches the rings after this returns (a receive pass in progress finishes
    /// first), so their memory may be released.
    pub(crate) fn stop(&self) {
        let mut rx = self.rx.lock();
        rx.g2h = None;
        let mut g = self.inner.lock();
        g.link = Link::Down;
        g.rings = None;
        drop(g);
        self.done.notify_all();
    }

    /// Marks the channel broken and wakes the waiters; returns whether it was up (the caller
    /// then sets the ABI's status bit where the host found the fault). Inner lock held.
    fn broken(&self, g: &mut Inner, dev: &Device, c: Corrupt) -> bool {
        if g.link != Link::Up {
            return false;
        }
        g.link = Link::Broken(c);
        // Waiters see the state once they run; waking them under the lock is allowed.
        self.done.notify_all();
        match c {
            Corrupt::Disabled => dev_warn!(dev, "guc: CT disabled by the GuC; sends now fail\n"),
            _ => dev_err!(
                dev,
                "guc: CT broken: {} ({:?}); sends now fail until a GT reset\n",
                c.name(),
                c
            ),
        }
        // Lock order: inner, then sink (nothing takes inner while holding sink).
        self.unresponsive(dev, Unresponsive::Broken(c));
        true
    }

    /// Encodes `req` and writes it into H2G (not yet published). Inner lock held.
    fn write<R: H2gRequest>(
        &self,
        g: &mut Inner,
        io: &CtIo<'_>,
        req: &R,
        fence: u16,
        tracked: bool,
    ) -> Result {
        // The request fits a CT message: checked when this is built.
        let () = R::FITS_CT;
        let rings = g.rings.ok_or(ENODEV)?;
        // The CTB header, then the message, encoded in place (no second copy).
        let mut words = [0u32; MSG_MAX];
        let hxg = words.get_mut(1..).ok_or(EINVAL)?;
        let n = msg::encode(req, hxg)?;
        // The codec writes a REQUEST header; a fast request changes its type.
        if let Some(h0) = hxg.first_mut() {
            *h0 = wire::with_kind(*h0, tracked);
        }
        let n = u8::try_from(n).map_err(|_| EINVAL)?;
        words[0] = CtbHeader::hxg(fence, n).into_raw();
        let len = u32::from(n) + 1;
        let size = rings.h2g_size;
        let mut placed = ring::place(g.h2g_head, g.h2g_tail, size, len);
        if placed.is_none() {
            // The cached head says full: look at what the GuC consumed since.
            let d = rings.h2g_desc;
            let status = io.lmem.read32(desc_at(d, DESC_STATUS))?;
            let head = io.lmem.read32(desc_at(d, DESC_HEAD))?;
            let bad = if status != 0 {
                Some(Corrupt::H2gStatus(status))
            } else if head >= size {
                Some(Corrupt::H2gHead(head))
            } else {
                None
            };
            if let Some(c) = bad {
                if self.broken(g, io.gt.dev, c) && c.status_bit() != 0 {
                    let _ = io
                        .lmem
                        .write32(desc_at(d, DESC_STATUS), status | c.status_bit());
                }
                return Err(EPIPE);
            }
            g.h2g_head = head;
            placed = ring::place(head, g.h2g_tail, size, len);
        }
        let p = placed.ok_or(EBUSY)?;
        if p.pad > 0 {
            io.lmem
                .zero(rings.h2g + u64::from(g.h2g_tail) * 4, u64::from(p.pad) * 4)?;
        }
        let out = words.get(..len as usize).ok_or(EINVAL)?;
        io.lmem
            .write_bytes(rings.h2g + u64::from(p.at) * 4, out.as_bytes())?;
        g.h2g_tail = p.tail;
        Ok(())
    }

    /// Makes what was written visible: the descriptor tail, then the doorbell.
    fn publish(&self, g: &Inner, io: &CtIo<'_>) -> Result {
        let rings = g.rings.ok_or(ENODEV)?;
        // The ring and its descriptor sit in local memory behind the write-combining LMEM BAR:
        // without a write barrier the CPU may post the tail before the message words, and the
        // GuC would read a message that is not there yet. Upstream orders them the same way
        // (`xe_guc_ct.c` `h2g_write` calls `xe_device_wmb` between the message and the
        // descriptor update; i915 `intel_guc_ct.c` `ct_write` calls `intel_guc_write_barrier`).
        // Both follow the barrier with a posted MMIO write on a discrete GPU, which pushes the
        // write-combined data out ahead of it: xe writes 0 to the read-only VF_CAP_REG
        // (`xe_device.c` `xe_device_wmb`), i915 0 to SOFT_SCRATCH(0); as xe here.
        mb(Write);
        io.gt.write_aon(VF_CAP_REG::zeroed());
        io.lmem
            .write32(desc_at(rings.h2g_desc, DESC_TAIL), g.h2g_tail)?;
        io.gt.write_aon(GUC_HOST_INTERRUPT::zeroed());
        bump(&self.stats.notifies);
        Ok(())
    }

    /// The error for a send on a channel that is not up.
    fn not_up(link: Link) -> Error {
        match link {
            Link::Broken(_) => EPIPE,
            _ => ENODEV,
        }
    }

    /// Sends `req` as a FAST_REQUEST with its own notify: no reply unless it fails. Never
    /// sleeps: callable from atomic context (not from the interrupt top half, which takes no
    /// CT locks).
    ///
    /// # Errors
    ///
    /// `ENODEV` (channel down), `EPIPE` (broken), `EBUSY` (no room in H2G), or the request's
    /// encoding error.
    pub(crate) fn send_fast<R: FastRequest>(&self, io: &CtIo<'_>, req: &R) -> Result {
        self.send_fast_batch(io, core::slice::from_ref(req), Notify::Once)
            .map(|_| ())
    }

    /// Sends `reqs` as FAST_REQUESTs, ringing the GuC as `notify` says. Never sleeps, as
    /// [`Channel::send_fast`]. Returns how many were sent (those before a full H2G).
    ///
    /// # Errors
    ///
    /// As [`Channel::send_fast`], for the first request (`EBUSY` if H2G had no room for it).
    pub(crate) fn send_fast_batch<R: FastRequest>(
        &self,
        io: &CtIo<'_>,
        reqs: &[R],
        notify: Notify,
    ) -> Result<usize> {
        let mut g = self.inner.lock();
        if g.link != Link::Up {
            return Err(Self::not_up(g.link));
        }
        let batch = notify == Notify::Once;
        let mut sent = 0;
        for req in reqs {
            let fence = g.fences.next(false);
            match self.write(&mut g, io, req, fence, false) {
                Ok(()) => {}
                Err(e) if e == EBUSY && sent > 0 => break,
                Err(e) => {
                    // What was written before the error still goes out.
                    if sent > 0 && batch {
                        self.publish(&g, io)?;
                    }
                    return Err(e);
                }
            }
            // CAST: a 16-bit field.
            g.fast.push(fence, R::ACTION as u16);
            bump(&self.stats.fast);
            sent += 1;
            if !batch {
                self.publish(&g, io)?;
            }
        }
        if batch && sent > 0 {
            self.publish(&g, io)?;
        }
        Ok(sent)
    }

    /// Sends `req` as a REQUEST with a waiter slot; `Ok(None)` if H2G or the credits have no
    /// room now.
    fn submit<R: H2gRequest>(&self, io: &CtIo<'_>, req: &R) -> Result<Option<(usize, u16)>> {
        let mut g = self.inner.lock();
        if g.link != Link::Up {
            return Err(Self::not_up(g.link));
        }
        let fence = g.fences.next(true);
        // CAST: a 16-bit field.
        let Some(slot) = g.waiters.claim(fence, R::ACTION as u16) else {
            return Ok(None);
        };
        match self.write(&mut g, io, req, fence, true) {
            Ok(()) => {}
            Err(e) => {
                g.waiters.abandon(slot);
                return if e == EBUSY { Ok(None) } else { Err(e) };
            }
        }
        if let Err(e) = self.publish(&g, io) {
            g.waiters.abandon(slot);
            return Err(e);
        }
        bump(&self.stats.requests);
        Ok(Some((slot, fence)))
    }

    /// Sends `req` as a REQUEST and waits for the final reply; returns its decoded DATA0.
    /// Process context: sleeps.
    ///
    /// # Errors
    ///
    /// `EIO` for a FAILURE (logged with error and hint), `EPROTO` for a DATA0 the request does
    /// not allow (logged), `ETIME` without a reply, `ELOOP` after [`RETRY_LIMIT`] RETRYs,
    /// `EDEADLK` if H2G stays full, `EPIPE` if the channel breaks, `ECANCELED` if it is
    /// stopped, `ENODEV` if it is down or the device gone, `EINTR` on a signal, `EINVAL` if
    /// the request does not encode.
    pub(crate) fn request<R: H2gRequest>(&self, a: &impl CtAccess, req: &R) -> Result<R::Reply> {
        let action = R::ACTION;
        let mut retries = 0;
        loop {
            let (slot, fence) = self
                .submit_waiting(a, req, action)
                .inspect_err(|e| self.log_not_sent(a.dev(), action, *e))?;
            match self.wait(a, slot, fence, action)? {
                Outcome::Success(data0) => {
                    return R::decode_reply(data0).map_err(|data0| {
                        dev_err!(
                            a.dev(),
                            "guc: CT request {:#06x} (fence {:#06x}): reply DATA0 {:#x} is not \
                             one the ABI allows\n",
                            action,
                            fence,
                            data0
                        );
                        EPROTO
                    })
                }
                Outcome::Failure { error, hint } => {
                    bump(&self.stats.failures);
                    dev_err!(
                        a.dev(),
                        "guc: CT request {:#06x} (fence {:#06x}) refused: error {:#x} hint {:#x}\n",
                        action,
                        fence,
                        error,
                        hint
                    );
                    return Err(EIO);
                }
                Outcome::Retry => {
                    bump(&self.stats.retries);
                    retries += 1;
                    if retries > RETRY_LIMIT {
                        dev_err!(
                            a.dev(),
                            "guc: CT request {:#06x} still asked to retry after {} resends\n",
                            action,
                            RETRY_LIMIT
                        );
                        return Err(ELOOP);
                    }
                    fsleep(Delta::from_millis(RETRY_SLEEP_MS * i64::from(retries)));
                }
            }
        }
    }

    /// Says why a request could not be sent when the channel is not up.
    fn log_not_sent(&self, dev: &Device, action: u32, e: Error) {
        match self.inner.lock().link {
            Link::Broken(c) => dev_err!(
                dev,
                "guc: CT request {:#06x} not sent: the channel is broken ({})\n",
                action,
                c.name()
            ),
            Link::Down if e == ENODEV => dev_err!(
                dev,
                "guc: CT request {:#06x} not sent: the channel is down\n",
                action
            ),
            _ => {}
        }
    }

    /// [`Channel::submit`], sleeping while there is no room, up to [`ROOM_TIMEOUT`].
    fn submit_waiting<R: H2gRequest>(
        &self,
        a: &impl CtAccess,
        req: &R,
        action: u32,
    ) -> Result<(usize, u16)> {
        let start = Instant::<Monotonic>::now();
        let mut nap = Delta::from_millis(1);
        loop {
            let sent = a.with_io(|io| self.submit(io, req)).ok_or(ENODEV)??;
            if let Some(s) = sent {
                return Ok(s);
            }
            bump(&self.stats.room_waits);
            if start.elapsed() > ROOM_TIMEOUT {
                dev_err!(
                    a.dev(),
                    "guc: CT request {:#06x}: no room in H2G or G2H credits for {} ms\n",
                    action,
                    ROOM_TIMEOUT.as_millis()
                );
                self.unresponsive(a.dev(), Unresponsive::NoRoom(action));
                return Err(EDEADLK);
            }
            // Replies free credits; make sure they are read even without an interrupt.
            self.receive(a.dev());
            fsleep(nap);
            nap = Delta::from_millis((nap.as_millis() * 2).min(64));
        }
    }

    /// Sleeps until slot `slot` has its final reply.
    fn wait(&self, a: &impl CtAccess, slot: usize, fence: u16, action: u32) -> Result<Outcome> {
        let start = Instant::<Monotonic>::now();
        let mut g = self.inner.lock();
        loop {
            if let Some(o) = g.waiters.take(slot, fence) {
                return Ok(o);
            }
            if g.link != Link::Up {
                g.waiters.abandon(slot);
                return Err(match g.link {
                    Link::Broken(_) => EPIPE,
                    _ => ECANCELED,
                });
            }
            let busy = g.waiters.busy(slot);
            let limit = if busy { BUSY_TIMEOUT } else { REPLY_TIMEOUT };
            if start.elapsed() > limit {
                g.waiters.abandon(slot);
                drop(g);
                bump(&self.stats.timeouts);
                dev_err!(
                    a.dev(),
                    "guc: CT request {:#06x} (fence {:#06x}): no {}reply within {} ms\n",
                    action,
                    fence,
                    if busy { "final " } else { "" },
                    limit.as_millis()
                );
                return Err(ETIME);
            }
            match self
                .done
                .wait_interruptible_timeout(&mut g, msecs_to_jiffies(POLL_MS))
            {
                CondVarTimeoutResult::Woken { .. } => {}
                CondVarTimeoutResult::Timeout => {
                    drop(g);
                    bump(&self.stats.polls);
                    self.receive(a.dev());
                    g = self.inner.lock();
                }
                CondVarTimeoutResult::Signal { .. } => {
                    g.waiters.abandon(slot);
                    return Err(EINTR);
                }
            }
        }
    }

    /// Reads and handles what G2H holds, up to [`RX_BUDGET`] messages; returns how many.
    /// Process context (the interrupt thread, a waiter); the handlers it calls do not sleep.
    /// G2H is in system memory: no device access.
    pub(crate) fn receive(&self, dev: &Device) -> usize {
        let mut rx = self.rx.lock();
        let Rx { head, g2h, buf } = &mut *rx;
        let (Some(g2h), Some(size)) = (g2h.as_deref(), self.up_g2h_size()) else {
            return 0;
        };
        bump(&self.stats.rx_passes);
        let mem = G2hMem { buf: g2h, size };
        // The descriptor is read once per pass and again only when what it announced has been
        // consumed.
        let mut desc = match mem.desc() {
            Ok(d) => d,
            Err(e) => {
                dev_err!(dev, "guc: CT G2H descriptor read failed: {:?}\n", e);
                return 0;
            }
        };
        let mut fresh = true;
        let mut handled = 0;
        while handled < RX_BUDGET {
            match ring::next(&mem, desc, *head, buf) {
                Ok(Ok(Next::Empty)) if fresh => break,
                Ok(Ok(Next::Empty)) => match mem.desc() {
                    Ok(d) => {
                        desc = d;
                        fresh = true;
                    }
                    Err(_) => break,
                },
                Ok(Ok(Next::Message(len, new_head))) => {
                    *head = new_head;
                    desc.head = new_head;
                    fresh = false;
                    // The copy is complete before the GuC may reuse the space.
                    dma_mb(Full);
                    if g2h.write(g2h.desc + DESC_HEAD, new_head).is_err() {
                        break;
                    }
                    self.handle(dev, buf.get(..len).unwrap_or(&[]));
                    handled += 1;
                }
                Ok(Err(c)) => {
                    let mut g = self.inner.lock();
                    if self.broken(&mut g, dev, c) && c.status_bit() != 0 {
                        let at = g2h.desc + DESC_STATUS;
                        let old = g2h.read(at).unwrap_or(0);
                        let _ = g2h.write(at, old | c.status_bit());
                    }
                    break;
                }
                Err(e) => {
                    dev_err!(dev, "guc: CT G2H read failed: {:?}\n", e);
                    break;
                }
            }
        }
        handled
    }

    /// The G2H ring size while the channel is up.
    fn up_g2h_size(&self) -> Option<u32> {
        let g = self.inner.lock();
        match (g.link, g.rings) {
            (Link::Up, Some(r)) => Some(r.g2h_size),
            _ => None,
        }
    }

    /// Handles one message copied out of G2H.
    fn handle(&self, dev: &Device, msg: &[u32]) {
        match wire::parse(msg) {
            Ok(G2h::Reply { fence, response }) => self.reply(dev, msg, fence, response),
            Ok(G2h::Event {
                action,
                data0,
                payload,
            }) => self.event(dev, action, data0, payload),
            Err(m) => {
                let n = self.stats.malformed.fetch_add(1, Relaxed) + 1;
                if n <= LOG_LIMIT {
                    dev_err!(
                        dev,
                        "guc: CT G2H message dropped ({}): {:08x?}\n",
                        m.why(),
                        msg.get(..msg.len().min(4)).unwrap_or(&[])
                    );
                }
            }
        }
    }

    fn reply(&self, dev: &Device, msg: &[u32], fence: u16, response: Response) {
        bump(&self.stats.replies);
        if response == Response::Busy {
            bump(&self.stats.busy);
        }
        let mut g = self.inner.lock();
        match g.waiters.complete(fence, response) {
            Matched::Final => {
                drop(g);
                self.done.notify_all();
            }
            Matched::Busy => {}
            Matched::Nobody => {
                let fast = (fence & UNTRACKED != 0).then(|| g.fast.action(fence));
                drop(g);
                match (fast, response) {
                    (Some(action), Response::Failure { error, hint }) => {
                        bump(&self.stats.fast_failures);
                        dev_err!(
                            dev,
                            "guc: CT fast request {:#06x} (fence {:#06x}) failed: error {:#x} \
                             hint {:#x}\n",
                            action.unwrap_or(0),
                            fence,
                            error,
                            hint
                        );
                    }
                    _ => {
                        let n = self.stats.unexpected.fetch_add(1, Relaxed) + 1;
                        if n <= LOG_LIMIT {
                            dev_err!(
                                dev,
                                "guc: CT reply for fence {:#06x} that no request waits for: \
                                 {:08x?}\n",
                                fence,
                                msg.get(..msg.len().min(4)).unwrap_or(&[])
                            );
                        }
                    }
                }
            }
        }
    }

    /// Decodes an event and dispatches it: counted, then handed to the sink if one is
    /// attached, else (or if no block takes it) reported here (no capture: crash dumps and
    /// exceptions are only reported).
    fn event(&self, dev: &Device, action: u32, data0: u32, payload: &[u32]) {
        bump(&self.stats.events);
        let decoded = decode_event(action, data0, payload);
        let kind = match &decoded {
            Ok(G2hEvent::Unknown { action, data0, len }) => {
                let n = self.stats.unknown_events.fetch_add(1, Relaxed) + 1;
                if n <= LOG_LIMIT {
                    dev_warn!(
                        dev,
                        "guc: CT unknown event {:#06x} (data0 {:#x}, {} dwords): ignored\n",
                        action,
                        data0,
                        len
                    );
                }
                return;
            }
            Ok(ev) => ev.kind(),
            Err(bad) => Some(bad.kind),
        };
        let Some(kind) = kind else {
            return;
        };
        if let Some(c) = self.stats.per_event.get(kind.index()) {
            bump(c);
        }
        let sink = self.sink.lock().clone();
        let consumed = sink.map_or(Consumed::NoConsumer, |s| match &decoded {
            Ok(ev) => s.guc_event(dev, ev),
            Err(bad) => s.guc_bad_event(dev, bad),
        });
        if consumed == Consumed::Handled {
            return;
        }
        let name = kind.name();
        match kind {
            EventKind::FlushLog => {}
            EventKind::CrashDump | EventKind::Exception => {
                dev_err!(dev, "guc: {}: the GuC reports a firmware failure\n", name)
            }
            _ => dev_warn!(
                dev,
                "guc: {} {:08x?}: no GuC submission running, nothing to recover\n",
                name,
                payload.get(..payload.len().min(4)).unwrap_or(&[])
            ),
        }
    }

    /// The debugfs `ct` report.
    ///
    /// # Errors
    ///
    /// Only the formatter's.
    pub(crate) fn fmt(
        &self,
        f: &mut kernel::fmt::Formatter<'_>,
        h2g_desc: Option<Desc>,
    ) -> kernel::fmt::Result {
        let (link, tail, head, credits, outstanding, mut waiting) = {
            let g = self.inner.lock();
            let mut waiting = [(0u16, 0u16); 8];
            for (w, s) in waiting.iter_mut().zip(g.waiters.waiting()) {
                *w = s;
            }
            (
                g.link,
                g.h2g_tail,
                g.h2g_head,
                g.waiters.credits(),
                g.waiters.outstanding(),
                waiting,
            )
        };
        let (rx_head, g2h_desc) = {
            let rx = self.rx.lock();
            (rx.head, rx.g2h.as_deref().and_then(|b| b.desc_read().ok()))
        };
        match link {
            Link::Down => f.write_str("state: down\n")?,
            Link::Up => f.write_str("state: up\n")?,
            Link::Broken(c) => f.write_fmt(fmt!("state: broken: {} ({:?})\n", c.name(), c))?,
        }
        f.write_fmt(fmt!("h2g: tail {:#x} head_seen {:#x}\n", tail, head))?;
        f.write_fmt(fmt!("g2h: head {:#x}\n", rx_head))?;
        for (name, d) in [("h2g_desc", h2g_desc), ("g2h_desc", g2h_desc)] {
            if let Some(d) = d {
                f.write_fmt(fmt!(
                    "{}: head {:#x} tail {:#x} status {:#x}\n",
                    name,
                    d.head,
                    d.tail,
                    d.status
                ))?;
            }
        }
        f.write_fmt(fmt!("credits: {}\n", credits))?;
        f.write_fmt(fmt!("outstanding: {}", outstanding))?;
        for (fence, action) in waiting.iter_mut().take(outstanding.min(8)) {
            f.write_fmt(fmt!(" {:#06x}:{:#06x}", fence, action))?;
        }
        f.write_str("\n")?;
        let s = &self.stats;
        let l = |c: &Atomic<u64>| c.load(Relaxed);
        f.write_fmt(fmt!(
            "sent: requests {} fast {} notifies {}\n",
            l(&s.requests),
            l(&s.fast),
            l(&s.notifies)
        ))?;
        f.write_fmt(fmt!(
            "received: replies {} events {} unknown_events {}\n",
            l(&s.replies),
            l(&s.events),
            l(&s.unknown_events)
        ))?;
        f.write_fmt(fmt!(
            "errors: failed {} fast_failed {} retried {} busy {} timeouts {} malformed {} \
             unexpected {}\n",
            l(&s.failures),
            l(&s.fast_failures),
            l(&s.retries),
            l(&s.busy),
            l(&s.timeouts),
            l(&s.malformed),
            l(&s.unexpected)
        ))?;
        f.write_fmt(fmt!(
            "receive: passes {} polls {} room_waits {}\n",
            l(&s.rx_passes),
            l(&s.polls),
            l(&s.room_waits)
        ))?;
        for (kind, c) in EventKind::ALL.iter().zip(s.per_event.iter()) {
            f.write_fmt(fmt!("event {}: {}\n", kind.name(), l(c)))?;
        }
        #[cfg(xehpg_test)]
        self.fmt_load(f)?;
        Ok(())
    }

    /// Reads the H2G descriptor, for debugfs (inside the device access; formatted outside).
    pub(crate) fn h2g_desc(&self, lmem: LmemAccess<'_>) -> Option<Desc> {
        let d = self.inner.lock().rings?.h2g_desc;
        Some(Desc {
            head: lmem.read32(desc_at(d, DESC_HEAD)).ok()?,
            tail: lmem.read32(desc_at(d, DESC_TAIL)).ok()?,
            status: lmem.read32(desc_at(d, DESC_STATUS)).ok()?,
        })
    }
}

/// The event sink attached to a channel ([`Channel::install_sink`]): dropping it detaches the
/// sink, so no event reaches a block being torn down. It also breaks the reference cycle a
/// sink closes (the channel holds the sink, which holds the PF and submission, which hold the
/// channel): without the drop neither would ever be freed. The device state drops it after the
/// engines stop and before the GuC.
pub(crate) struct SinkGuard(Arc<Channel>);

impl Drop for SinkGuard {
    /// Any context: takes the sink spinlock.
    fn drop(&mut self) {
        let sink = self.0.sink.lock().take();
        // The sink's last reference may go here, outside the lock.
        drop(sink);
    }
}
