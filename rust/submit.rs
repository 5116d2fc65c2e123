// SPDX-License-Identifier: GPL-2.0

//! Submission: running commands on the engines.
//!
//! Upstream submits through the GuC when it runs and through execlists otherwise
//! (`xe_hw_engine.c`: an execlist port per engine unless `xe_device_uc_enabled`); the
//! `force_execlist` module parameter (upstream's name) skips the GuC to get execlists.
//! Each engine has one [`port`] (kernel context, ring, requests in flight); the mechanisms
//! that put it on the engine are [`execlist`] and [`guc`], the latter by `SCHED_CONTEXT` or,
//! in the test build with `guc_doorbells=1`, by the PRM's MMIO doorbells when the GuC arms
//! them (`doorbell`: its H2G ABI is a guess, so the production build never rings one, as
//! upstream xe never does with GuC 70 firmware).
//!
//! [`clear`] fills local memory with zeros on the copy engine (the PF clears VFs' memory with
//! it).
//!
//! `Documentation/submission.rst` draws the request lifetime.
//!
//! # Contexts
//!
//! - `submit`: process or atomic context (port spinlock, forcewake spinlock, MMIO).
//! - interrupts: the interrupt thread calls [`Submit`]'s [`EngineSink`] implementation for
//!   the engines with completions or context switches (process context); the top half only
//!   records which.
//! - the selftest (debugfs `submit`, test build only) sleeps between submissions, outside
//!   every lock and BAR access.

mod clear;
mod ctx;
#[cfg(xehpg_test)]
mod doorbell;
mod execlist;
mod guc;
mod port;
#[cfg(xehpg_test)]
mod selftest;

// The module's `guc_doorbells` parameter, and the GuC events the device's dispatcher routes here.
#[cfg(xehpg_test)]
pub(crate) use doorbell::set_asked as set_doorbells_asked;
pub(crate) use guc::Events as GucEvents;

use kernel::{
    device::{Bound, Device},
    io::poll::read_poll_timeout_atomic,
    new_mutex, pci,
    prelude::*,
    sync::{
        aref::ARef,
        atomic::{Atomic, Relaxed},
        Arc, Mutex,
    },
    time::{delay::fsleep, Delta},
};

use crate::{
    engine::{
        ccs,
        regs::{self, Io, MaskedWrite, RESET_CTL},
        source::{self, COUNT},
        Engine, Present, ENGINES,
    },
    gt::{Gt, GtDomain, RenderDomain},
    guc::{with_bars, Channel, CtAccess, CtIo, GDRST},
    hw::Hw,
    irq::EngineSink,
};
use port::{Kick, Port};

/// A port that retires nothing for this long is hung (i915's default heartbeat is 2.5 s;
/// the driver's own requests, the clears and the selftest's, are a few commands each).
const STALL_MS: u32 = 2000;

/// What [`Submit`]'s serialising mutex guards: the last selftest's report in the test build,
/// nothing in production (it still keeps the clears' drains apart).
#[cfg(xehpg_test)]
type Serial = selftest::Report;
#[cfg(not(xehpg_test))]
type Serial = ();

/// The mechanism that puts requests on the engines now: the state of submission, which
/// [`Submit::mode`] reads.
///
/// Not [`engine::Mode`](crate::engine::Mode), which says who schedules the engines, is chosen
/// once at probe and decides the interrupt plan. This one also has [`Mechanism::None`]: before
/// probe starts a mechanism, when none could start, and during a GT reset from
/// [`Submit::reset_prepare`] until [`Submit::start_guc`] runs again, while the device's
/// scheduler and interrupt plan stay the GuC's. Each port keeps its own state of the mechanism
/// (`port::Mech`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Mechanism {
    /// Not yet started (probe), none available, or stopped by a GT reset.
    None = 0,
    Execlist = 1,
    Guc = 2,
}

impl Mechanism {
    /// Name for debugfs and the log.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Mechanism::None => "none",
            Mechanism::Execlist => "execlist",
            Mechanism::Guc => "guc",
        }
    }
}

/// Engine reset handshake limits: i915 waits 700 us for READY_TO_RESET
/// (`gen8_engine_reset_prepare`) and 500 us for GDRST to clear (`gen6_hw_domain_reset`).
const RESET_READY_TRIES: usize = 700;
const RESET_DONE_TRIES: usize = 500;

/// Submission state of a device.
pub(crate) struct Submit {
    dev: ARef<Device>,
    /// BAR 0 (the engines' and doorbells' registers), BAR 2 (the ports' rings and contexts in
    /// local memory), the GT, the GGTT, and the pool the ports' buffers and the selftest's
    /// (test build; production submission allocates nothing after probe) come from.
    hw: Arc<Hw>,
    /// One port per present engine, in [`ENGINES`] order.
    ports: KVec<Pin<KBox<Port>>>,
    /// Port of each interrupt source.
    by_source: [Option<usize>; COUNT],
    /// A [`Mechanism`], as its discriminant.
    mode: Atomic<u32>,
    /// The selftest's buffer in local memory (`None` if it could not be had at probe); test
    /// build only.
    #[cfg(xehpg_test)]
    scratch: Option<selftest::Scratch>,
    /// Serialises the clears and the selftest, and holds the last selftest's report (both
    /// sleep: a mutex). Process context; taken under the PF's mutex for the PF's local-memory
    /// clears, above the allocators', the CT's and the ports' locks
    /// (Documentation/architecture.rst, "Locks").
    last: Pin<KBox<Mutex<Serial>>>,
    /// Doorbells, when the `guc_doorbells` parameter asks for them (test build only). A leaf
    /// spinlock, never taken with a port's (Documentation/architecture.rst, "Locks").
    #[cfg(xehpg_test)]
    doorbells: Option<Pin<KBox<kernel::sync::SpinLock<doorbell::Pool>>>>,
    /// The engines the fuses left.
    present: Present,
}

impl Submit {
    /// Ports for every present engine, their memory mapped and images built; no engine
    /// touched. Probe, process context.
    ///
    /// # Errors
    ///
    /// Allocation or GGTT errors.
    pub(crate) fn new(pdev: &pci::Device<Bound>, hw: Arc<Hw>, present: Present) -> Result<Self> {
        let ggtt = hw.ggtt();
        let mut ports: KVec<Pin<KBox<Port>>> = KVec::new();
        let mut by_source = [None; COUNT];
        {
            let b = hw.bar().access(pdev)?;
            for e in ENGINES.iter().filter(|e| e.present(&present)) {
                let port = KBox::pin_init(Port::new(pdev.as_ref(), b, ggtt, e)?, GFP_KERNEL);
                let port = match port {
                    Ok(p) => p,
                    Err(err) => {
                        for p in &ports {
                            p.unmap(b, ggtt);
                        }
                        return Err(err);
                    }
                };
                if let Some(i) = source::lookup(e.class, u32::from(e.instance)) {
                    by_source[i] = Some(ports.len());
                }
                ports.push(port, GFP_KERNEL)?;
            }
        }
        #[cfg(xehpg_test)]
        let scratch = scratch(pdev, &hw);
        Ok(Self {
            dev: pdev.as_ref().into(),
            hw,
            ports,
            by_source,
            #[cfg(xehpg_test)]
            scratch,
            mode: Atomic::new(Mechanism::None as u32),
            present,
            last: KBox::pin_init(new_mutex!(Serial::default()), GFP_KERNEL)?,
            #[cfg(xehpg_test)]
            doorbells: if doorbell::asked() {
                Some(KBox::pin_init(
                    kernel::new_spinlock!(doorbell::Pool::new()?),
                    GFP_KERNEL,
                )?)
            } else {
                None
            },
        })
    }

    /// The mechanism submitting now (see [`Mechanism`]).
    pub(crate) fn mode(&self) -> Mechanism {
        match self.mode.load(Relaxed) {
            1 => Mechanism::Execlist,
            2 => Mechanism::Guc,
            _ => Mechanism::None,
        }
    }

    /// Execlist mode on every port. Probe, after the interrupts are armed. A port that fails
    /// to start is logged and left unstarted (its submissions fail with `ENODEV`).
    pub(crate) fn start_execlists(&self, pdev: &pci::Device<Bound>) -> Result {
        let bar = self.hw.bar().access(pdev)?;
        let gt = self.hw.gt().view(pdev.as_ref(), bar);
        self.ccs_setup(&gt);
        for p in &self.ports {
            if let Err(e) = p.start(&gt) {
                dev_err!(
                    pdev,
                    "submit: {}: execlist start failed: {}\n",
                    p.engine.name,
                    e.to_errno()
                );
            }
        }
        self.mode.store(Mechanism::Execlist as u32, Relaxed);
        Ok(())
    }

    /// `RCU_MODE` and `CCS_MODE` for the present CCS engines ([`crate::engine::ccs`]), before any
    /// context runs, in either mode. A failure (forcewake) is logged: the CCS engines then
    /// make no progress on silicon.
    fn ccs_setup(&self, gt: &Gt<'_>) {
        let done = gt
            .wake::<RenderDomain>()
            .map(|awake| ccs::setup(gt, &awake, &self.present));
        if let Err(e) = done {
            dev_err!(
                gt.dev,
                "submit: RCU_MODE/CCS_MODE not written (render forcewake: {}); the CCS engines \
                 cannot run\n",
                e.to_errno()
            );
        }
    }

    /// GuC mode on every port: the engine registers set up for GuC submission
    /// ([`Port::guc_setup`]) and the CCS switches written, then each context registered, given
    /// its policies and enabled ([`guc`]). Probe, after the GuC's second boot phase, with the
    /// event sink attached. A port whose setup or registration fails is logged and refuses
    /// work (`ENODEV`).
    pub(crate) fn start_guc(&self, pdev: &pci::Device<Bound>, ct: &Channel) {
        // Which ports are set up: the others are not registered and refuse work.
        let mut ready = [false; ENGINES.len()];
        if let Ok(bar) = self.hw.bar().access(pdev) {
            let gt = self.hw.gt().view(pdev.as_ref(), bar);
            self.ccs_setup(&gt);
            for (p, ok) in self.ports.iter().zip(ready.iter_mut()) {
                match p.guc_setup(&gt) {
                    Ok(()) => *ok = true,
                    Err(e) => dev_err!(
                        pdev,
                        "submit: {}: GuC-mode engine setup failed: {}; not registered with \
                         the GuC\n",
                        p.engine.name,
                        e.to_errno()
                    ),
                }
            }
        }
        let mut ranks = [0u32; 8];
        for (i, p) in self.ports.iter().enumerate() {
            // The logical instance: the rank among the present engines of its class
            // (`xe_hw_engine.c`, `logical_instance`).
            let class = p.engine.class as usize;
            let rank = ranks.get(class).copied().unwrap_or(0);
            if let Some(r) = ranks.get_mut(class) {
                *r += 1;
            }
            // CAST: at most 18 ports; context 0 is left unused.
            let id = (i + 1) as u16;
            if ready.get(i).copied().unwrap_or(false) {
                let _ = p.guc_start(self, ct, id, 1 << rank);
            }
        }
        self.mode.store(Mechanism::Guc as u32, Relaxed);
    }

    /// GT reset, before the GuC and the engines are reset: every port's context is dropped
    /// ([`Port::guc_forget`]) and the mechanism goes back to none until [`Submit::start_guc`]
    /// runs again. Process context. Returns the requests failed.
    pub(crate) fn reset_prepare(&self) -> usize {
        self.mode.store(Mechanism::None as u32, Relaxed);
        self.ports
            .iter()
            .map(|p| {
                #[cfg(xehpg_test)]
                p.put_doorbell(self, None);
                p.guc_forget(&self.dev)
            })
            .sum()
    }

    /// The doorbell pool, when doorbells are asked for (test build only).
    #[cfg(xehpg_test)]
    pub(crate) fn doorbells(&self) -> Option<&kernel::sync::SpinLock<doorbell::Pool>> {
        self.doorbells.as_deref()
    }

    /// Rings a doorbell (the page's offset in BAR 0, the cookie). Any context, no forcewake:
    /// the doorbell window is not a GT register range.
    ///
    /// # Errors
    ///
    /// `ENODEV` after unbind, `EINVAL` for an offset outside the window.
    #[cfg(xehpg_test)]
    pub(crate) fn ring(&self, offset: u32, cookie: u32) -> Result {
        self.hw
            .bar()
            .try_access_with(|bar| bar.ring_doorbell(offset, cookie))
            .unwrap_or(Err(ENODEV))
    }

    /// The ports, for the GuC's events.
    pub(crate) fn ports(&self) -> impl Iterator<Item = &Port> {
        self.ports.iter().map(|p| &**p)
    }

    /// Teardown ([`Running`]'s drop), process context: stops every port (requests in flight
    /// are dropped and their waiters woken), resets the engines that were running so nothing
    /// writes the ports' memory any more, then unmaps it. The memory is freed with `self`.
    fn fini(&self, pdev: &pci::Device<Bound>, ct: &Channel) {
        let Ok(bar) = self.hw.bar().access(pdev) else {
            return;
        };
        let gt = self.hw.gt().view(pdev.as_ref(), bar);
        let guc = self.mode() == Mechanism::Guc;
        for p in &self.ports {
            let snapshot = p.snapshot();
            let dropped = p.stop(&gt);
            if guc {
                // The GuC stops using the context before its memory goes.
                if dropped > 0 {
                    dev_warn!(
                        pdev,
                        "submit: {}: unbind with {} request(s) in flight\n",
                        p.engine.name,
                        dropped
                    );
                }
                let _ = p.guc_stop(self, ct);
            } else if dropped > 0 || snapshot.active {
                dev_warn!(
                    pdev,
                    "submit: {}: unbind with {} request(s) in flight; engine reset\n",
                    p.engine.name,
                    dropped
                );
                if let Err(e) = reset_engine(&gt, p.engine) {
                    dev_err!(
                        pdev,
                        "submit: {}: engine reset at unbind failed: {}\n",
                        p.engine.name,
                        e.to_errno()
                    );
                }
            }
            p.unmap(bar, self.hw.ggtt());
        }
        #[cfg(xehpg_test)]
        if let Some(s) = &self.scratch {
            // Its memory goes back to the pool when `self` drops.
            self.hw.ggtt().unmap(bar, s.map);
        }
    }

    /// Does what [`Port::submit`] left for after its lock: nothing, `SCHED_CONTEXT`, or (test
    /// build) the doorbell. Used by [`clear`] and the selftest.
    fn send(&self, p: &Port, ct: &Channel, kick: Kick) -> Result {
        match kick {
            Kick::None => Ok(()),
            Kick::Sched(id) => self.kick(p, ct, id),
            #[cfg(xehpg_test)]
            Kick::Doorbell(offset, cookie) => self.ring(offset, cookie),
        }
    }

    /// `SCHED_CONTEXT`, retried while H2G is full (the GuC is behind; up to a second).
    fn kick(&self, p: &Port, ct: &Channel, id: u16) -> Result {
        for _ in 0..10_000 {
            match p.guc_kick(self, ct, id) {
                Err(e) if e == EBUSY => fsleep(Delta::from_micros(100)),
                r => return r,
            }
        }
        Err(EBUSY)
    }

    /// Waits for the queue to drain. A GuC reset is recovered on the way; a GuC-mode stall is
    /// first answered by sending `SCHED_CONTEXT` again (the GuC may have lost one). Returns
    /// whether it drained.
    fn drain(&self, p: &Port, ct: &Channel, failed: &mut u64) -> bool {
        let mut nudged = false;
        loop {
            let settled = p.wait_progress(STALL_MS, Port::settled);
            if p.guc_reset_pending() {
                match self.recover(p, ct, "was reset by the GuC") {
                    // CAST: usize to u64 is lossless.
                    Ok(k) => *failed += k as u64,
                    Err(_) => return false,
                }
                continue;
            }
            if settled {
                return true;
            }
            if nudged || self.nudge(p, ct).is_err() {
                return false;
            }
            nudged = true;
        }
    }

    /// A port with work made no progress for [`STALL_MS`]: before calling it hung, tell the
    /// mechanism again, in case the news was lost on the way. Under the GuC, `SCHED_CONTEXT`
    /// again (the GuC may have dropped one); in execlist mode a Load (a lost CSB entry leaves
    /// the driver believing the context is still on the engine; if it really is, the Load is
    /// a lite restore and harmless).
    fn nudge(&self, p: &Port, ct: &Channel) -> Result {
        p.stats.nudges.add(1, Relaxed);
        let (what, res) = match p.guc_id() {
            Some(id) => ("SCHED_CONTEXT sent again", self.kick(p, ct, id)),
            None => (
                "context loaded again (a CSB entry may have been lost)",
                self.with_gt(|gt| p.reload(gt)),
            ),
        };
        dev_warn!(
            self.dev,
            "submit: {}: no progress for {} ms; {}\n",
            p.engine.name,
            STALL_MS,
            what
        );
        res
    }

    /// Hang or reset recovery in the device's mode; returns the requests failed.
    fn recover(&self, p: &Port, ct: &Channel, why: &str) -> Result<usize> {
        match self.mode() {
            Mechanism::Guc => p.guc_recover(self, ct, why),
            _ => self.with_gt(|gt| p.recover(gt, STALL_MS)),
        }
    }

    /// The port of engine `name`.
    fn port(&self, name: &str) -> Option<&Port> {
        self.ports
            .iter()
            .find(|p| p.engine.name == name)
            .map(|p| &**p)
    }

    /// Runs `f` on a GT view unless the device is unbound (`ENODEV`); `f` must not sleep.
    fn with_gt<R>(&self, f: impl FnOnce(&Gt<'_>) -> Result<R>) -> Result<R> {
        self.hw.with_gt(&self.dev, f)
    }

    /// The debugfs `engines` lines: one per present engine.
    ///
    /// # Errors
    ///
    /// Only the formatter's.
    pub(crate) fn fmt_engines(&self, f: &mut kernel::fmt::Formatter<'_>) -> kernel::fmt::Result {
        let mode = self.mode();
        for p in &self.ports {
            let e = p.engine;
            let s = p.snapshot();
            let st = &p.stats;
            let state = if !s.started {
                "off"
            } else if s.active {
                "active"
            } else {
                "idle"
            };
            f.write_fmt(kernel::prelude::fmt!(
                "{}: class {} instance {} mmio_base {:#08x} forcewake {} mode {} state {} \
                 submitted {} completed {} failed {} inflight {} loads {} csb {} resets {} \
                 nudges {} bad_input {} errors {} bad_transitions {} seqno {} head {:#x} \
                 tail {:#x}\n",
                e.name,
                e.class as u32,
                e.instance,
                e.mmio_base,
                e.domain,
                mode.name(),
                state,
                st.submitted.load(Relaxed),
                st.completed.load(Relaxed),
                st.failed.load(Relaxed),
                s.inflight,
                st.loads.load(Relaxed),
                st.csb_events.load(Relaxed),
                st.resets.load(Relaxed),
                st.nudges.load(Relaxed),
                st.bad_input.load(Relaxed),
                st.errors.load(Relaxed),
                st.bad_transitions.load(Relaxed),
                s.last_retired,
                s.head,
                s.tail
            ))?;
        }
        #[cfg(xehpg_test)]
        if let Some(pool) = self.doorbells() {
            f.write_fmt(kernel::prelude::fmt!(
                "doorbells: {} of {} armed\n",
                pool.lock().used(),
                doorbell::PHYSICAL
            ))?;
        }
        Ok(())
    }
}

/// The selftest's scratch buffer: local memory mapped into the GGTT. A device without room
/// for it still submits; only the selftest is unavailable (logged). Test build only: the
/// production module allocates nothing for the selftest.
#[cfg(xehpg_test)]
fn scratch(pdev: &pci::Device<Bound>, hw: &Hw) -> Option<selftest::Scratch> {
    // Dropped (freed) if the mapping fails.
    let got = hw.pool().alloc(selftest::SCRATCH_BYTES).and_then(|lmem| {
        let map = hw
            .bar()
            .access(pdev)
            .and_then(|b| hw.ggtt().map_lmem(b, lmem.start, lmem.size()))?;
        Ok(selftest::Scratch { lmem, map })
    });
    got.inspect_err(|e| {
        dev_warn!(
            pdev,
            "submit: no selftest buffer in local memory ({}); debugfs submit unavailable\n",
            e.to_errno()
        )
    })
    .ok()
}

/// Submission reaches the CT through both revocable BARs, a send at a time, and sleeps
/// outside them.
/// Submission started on the engines: dropping it stops them ([`Submit::fini`]: the ports
/// stopped, their contexts deregistered over the CT in GuC mode or their engines reset, their
/// memory unmapped). The device state drops it after the PF (which clears VF memory with the
/// copy engine) and before the event sink, the GuC and the interrupts (a deregistration waits
/// for the GuC's reply through them), on unbind and on a failed probe alike.
pub(crate) struct Running<'bound> {
    pdev: &'bound pci::Device<Bound>,
    submit: Arc<Submit>,
    ct: Arc<Channel>,
}

impl<'bound> Running<'bound> {
    /// Starts `submit` on the engines: through the GuC over `ct` if `guc` (its events must
    /// already reach submission through the channel's sink), else with execlists. Probe,
    /// process context, with the interrupts armed. The guard exists before the first engine
    /// starts, so a start that fails part way is stopped by its drop.
    ///
    /// # Errors
    ///
    /// As [`Submit::start_execlists`].
    pub(crate) fn start(
        pdev: &'bound pci::Device<Bound>,
        submit: Arc<Submit>,
        ct: Arc<Channel>,
        guc: bool,
    ) -> Result<Self> {
        let this = Self { pdev, submit, ct };
        if guc {
            this.submit.start_guc(pdev, &this.ct);
        } else {
            this.submit.start_execlists(pdev)?;
        }
        Ok(this)
    }
}

impl Drop for Running<'_> {
    /// Process context (unbind or a failed probe).
    fn drop(&mut self) {
        self.submit.fini(self.pdev, &self.ct);
    }
}

impl CtAccess for Submit {
    fn dev(&self) -> &Device {
        &self.dev
    }

    fn with_io<R>(&self, f: impl FnOnce(&CtIo<'_>) -> R) -> Option<R> {
        with_bars(&self.dev, &self.hw, f)
    }
}

impl EngineSink for Submit {
    fn engine_interrupt(&self, i: usize, _vectors: u16) {
        let Some(port) = self.by_source.get(i).copied().flatten() else {
            return;
        };
        let Some(port) = self.ports.get(port) else {
            return;
        };
        let _ = self.with_gt(|gt| {
            port.process(gt);
            Ok(())
        });
    }
}

/// Resets one engine: the per-engine handshake (`RING_RESET_CTL` request, wait for ready;
/// i915 `gen8_engine_reset_prepare`), then its `GDRST` domain, polled until the bit clears
/// (i915 `gen6_hw_domain_reset`). The PRM does not describe engine reset; these are upstream's registers and bits. An engine that never reports ready is reset
/// anyway, as i915 does after logging. Process or atomic context.
///
/// # Errors
///
/// Forcewake errors, or `ETIMEDOUT` if the reset bit never clears.
pub(crate) fn reset_engine(gt: &Gt<'_>, e: &Engine) -> Result {
    let awake = gt.wake::<GtDomain>()?;
    let guard = gt.forcewake(e.domain.bit())?;
    let io = Io::new(gt, &guard, e)?;
    io.write_masked(MaskedWrite::enable(RESET_CTL::zeroed().with_request(true)));
    let ready = read_poll_timeout_atomic(
        || Ok(io.read_masked::<RESET_CTL>()),
        |v| v.ready(),
        Delta::from_micros(1),
        RESET_READY_TRIES,
    );
    if ready.is_err() {
        dev_warn!(
            gt.dev,
            "submit: {}: RESET_CTL never reported ready to reset ({:#06x}); resetting anyway\n",
            e.name,
            u16::from(io.read_masked::<RESET_CTL>())
        );
    }
    let bit = regs::reset_domain(e);
    gt.write(&awake, GDRST::from_raw(bit));
    let done = read_poll_timeout_atomic(
        || Ok(gt.read::<GDRST, GtDomain>(&awake).into_raw()),
        |v| v & bit == 0,
        Delta::from_micros(1),
        RESET_DONE_TRIES,
    );
    io.write_masked(MaskedWrite::disable(RESET_CTL::zeroed().with_request(true)));
    done.map(|_| ()).map_err(|_| {
        dev_err!(
            gt.dev,
            "submit: {}: GDRST bit {:#x} did not clear\n",
            e.name,
            bit
        );
        ETIMEDOUT
    })
}
