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
//!
//! # Files
//!
//! This file holds the channel's state, its lifecycle (start, stop, broken) and the G2H
//! buffer; `access` the device access a pass borrows; `send` the writes into H2G; `request`
//! a REQUEST's wait for its reply; `receive` the receive pass and its dispatch; `report` the
//! debugfs report; `load` the test build's load runs.

mod access;
// The debugfs `ct` load runs: test build only (`make bench`, `make run`, the CT scenarios).
#[cfg(xehpg_test)]
mod load;
mod receive;
mod report;
mod request;
mod send;

pub(crate) use access::{with_bars, CtAccess, CtIo};

#[cfg(xehpg_test)]
pub(crate) use load::{LoadKind, LoadResult};

use kernel::{
    device::{Bound, Device},
    dma::Coherent,
    new_condvar, new_mutex, new_spinlock,
    prelude::*,
    sync::{
        atomic::{Atomic, Relaxed},
        barrier::{dma_mb, Read},
        Arc, CondVar, Mutex, SpinLock,
    },
    time::Delta,
};

use super::{
    ring::{Corrupt, Desc, RingRead},
    waiters::{FastHistory, Waiters, CREDITS_PER_REQUEST, SLOTS},
    wire::{Fences, MSG_MAX},
};
use crate::guc::msg::{BadEvent, EventKind, G2hEvent};

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

/// The G2H ring, for [`super::ring::next`].
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
    /// then sets the ABI's status bit where the host found the fault, and, once it has released
    /// the inner lock, tells the sink with [`Channel::report_broken`]). Inner lock held.
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
        true
    }

    /// Tells the sink that the channel broke, after the lock section that broke it released
    /// the inner lock (`link` is what that section left): the sink (the GT reset's request)
    /// runs with no lock of this block held. Process context.
    fn report_broken(&self, dev: &Device, link: Link) {
        if let Link::Broken(c) = link {
            self.unresponsive(dev, Unresponsive::Broken(c));
        }
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
