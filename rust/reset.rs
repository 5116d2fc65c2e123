// SPDX-License-Identifier: GPL-2.0

//! GT reset: the recovery from a GuC that failed an engine reset or stopped answering.
//!
//! Upstream queues the reset from the GuC's `ENGINE_FAILURE_NOTIFICATION`
//! (`xe_guc_submit.c` `xe_guc_exec_queue_reset_failure_handler`), from a CT that broke or
//! whose H2G stayed full (`xe_guc_ct.c` `kick_reset`), from a context the GuC would not
//! disable (`guc_exec_queue_timedout_job`) and from debugfs (`force_reset`); one worker runs it (`xe_gt.c` `gt_reset_worker`):
//!
//! 1. stop submission: every context the GuC knew is dropped and its requests fail
//!    (`xe_uc_stop`, here [`Submit::reset_prepare`]);
//! 2. stop the GuC without asking it anything and release what it could reach
//!    ([`Guc::abandon`]);
//! 3. reset the whole GT: `GDRST.GRDOM_FULL`, which clears itself within 5 ms (`do_gt_reset`);
//! 4. restart as bring-up did (`do_gt_restart`): the workaround, tuning, MOCS and PAT table
//!    ([`engine::apply_workarounds`]), the interrupt enables ([`IrqState::rearm`]), the GuC loaded
//!    again in both phases and its second boot phase (`xe_uc_load_hw`), the engines set up and
//!    every context registered again with `RCU_MODE`/`CCS_MODE` written first
//!    ([`Submit::start_guc`]; `xe_gt_apply_ccs_mode`, `xe_uc_start`), and the PF's and VFs'
//!    configurations pushed again ([`Pf::restart`]; `xe_gt_sriov_pf_restart`).
//!
//! A reset that fails leaves the GT wedged (submissions fail) until unbind, as upstream
//! declares the device wedged. Requests while one is queued or running are counted and
//! dropped (`xe_gt_reset_async`: "Don't do a reset while one is already in flight").
//!
//! # Contexts and locks
//!
//! - [`GtReset::request`]: any context (the CT receive path, a CT waiter with the channel's
//!   inner spinlock held, debugfs); takes only `state` (a spinlock, innermost).
//! - the worker: process context on the system workqueue; holds `gate` (a mutex) for the
//!   whole reset and, one after the other, the ports' spinlocks, the GuC's mutex and the PF's
//!   mutex (the driver's order: Documentation/architecture.rst, "Locks").
//! - [`GtReset::close`]: unbind or a failed probe, process context; takes `gate`, so it waits
//!   for a reset in progress, and flushes the work.
//!
//! The worker reaches the device through a bound-device reference: while it holds `gate`
//! and the state is not `Closed`, the driver's unbind has not passed [`GtReset::close`], so
//! the device is bound (see the `SAFETY` comment in [`GtReset::run`]).

use kernel::{
    device::{Bound, Device},
    new_mutex, new_spinlock, pci,
    prelude::*,
    sync::{
        aref::ARef,
        atomic::{Atomic, Relaxed},
        Arc, Mutex, SpinLock,
    },
    time::{Delta, Instant, Monotonic},
    workqueue::{self, impl_has_work, new_work, Work, WorkItem},
};

use crate::{
    engine,
    gt::{Gt, GtDomain},
    guc::{self, Channel, DumpReason, Guc, Unresponsive, GDRST},
    hw::Hw,
    irq::IrqState,
    mmio::poll_timeout,
    platform::Die,
    sriov::Pf,
    submit::{Mechanism, Submit},
    trace,
};

// TIMEOUT: how long `GDRST.GRDOM_FULL` may take to clear (`xe_gt.c` `do_gt_reset`: 5 ms).
const FULL_RESET_TIMEOUT: Delta = Delta::from_millis(5);

/// Why a reset was asked for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Why {
    /// `ENGINE_FAILURE_NOTIFICATION`: the GuC could not reset an engine (its GuC class,
    /// instance and reason).
    EngineFailure {
        class: u32,
        instance: u32,
        reason: u32,
    },
    /// The channel gave up on the GuC.
    Unresponsive(Unresponsive),
    /// Asked through debugfs (`gt_reset`).
    Debugfs,
}

impl Why {
    /// A short name for the `xehpg_gt_reset` trace event.
    fn trace_name(self) -> &'static str {
        match self {
            Self::EngineFailure { .. } => "engine_failure",
            Self::Unresponsive(Unresponsive::NoRoom(_)) => "h2g_full",
            Self::Unresponsive(Unresponsive::ContextStuck(_)) => "context_stuck",
            Self::Unresponsive(Unresponsive::Broken(_)) => "ct_broken",
            Self::Debugfs => "debugfs",
        }
    }
}

impl kernel::fmt::Display for Why {
    fn fmt(&self, f: &mut kernel::fmt::Formatter<'_>) -> kernel::fmt::Result {
        match self {
            Self::EngineFailure {
                class,
                instance,
                reason,
            } => f.write_fmt(fmt!(
                "engine failure on GuC class {} instance {}, reason {:#x}",
                class,
                instance,
                reason
            )),
            Self::Unresponsive(Unresponsive::NoRoom(action)) => {
                f.write_fmt(fmt!("no room in H2G for CT request {:#06x}", action))
            }
            Self::Unresponsive(Unresponsive::ContextStuck(id)) => {
                f.write_fmt(fmt!("context {} could not be disabled", id))
            }
            Self::Unresponsive(Unresponsive::Broken(c)) => {
                f.write_fmt(fmt!("CT broken: {}", c.name()))
            }
            Self::Debugfs => f.write_str("asked through debugfs"),
        }
    }
}

/// Where the reset stands. Transitions: `Idle` -> `Queued` ([`GtReset::request`]) ->
/// `Running` (the worker) -> `Idle` or `Wedged`; any -> `Closed` ([`GtReset::close`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    Idle,
    Queued(Why),
    Running(Why),
    /// The last reset failed: nothing runs until unbind.
    Wedged,
    Closed,
}

impl Phase {
    fn name(self) -> &'static str {
        match self {
            Self::Idle => "idle",
            Self::Queued(_) => "queued",
            Self::Running(_) => "running",
            Self::Wedged => "wedged",
            Self::Closed => "closed",
        }
    }
}

/// Counters, read by debugfs without the locks.
struct Stats {
    requests: Atomic<u64>,
    /// Requests dropped because a reset was queued or running, or the GT is wedged.
    coalesced: Atomic<u64>,
    done: Atomic<u64>,
    failed: Atomic<u64>,
    /// Requests failed by the last reset.
    last_failed_requests: Atomic<u64>,
    last_us: Atomic<u64>,
}

/// The blocks a reset goes through, shared with the device.
pub(crate) struct Blocks {
    /// BAR 0, the local-memory BAR, the GT, the GGTT and the pool.
    pub(crate) hw: Arc<Hw>,
    pub(crate) ct: Arc<Channel>,
    pub(crate) guc: Arc<Guc>,
    pub(crate) irq: Arc<IrqState>,
    pub(crate) submit: Arc<Submit>,
    pub(crate) pf: Option<Arc<Pf>>,
    /// What the GuC's ADS describes.
    pub(crate) part: guc::AdsPart,
    pub(crate) die: Die,
}

/// The GT reset of one device.
#[pin_data]
pub(crate) struct GtReset {
    dev: ARef<Device>,
    b: Blocks,
    /// Held by the worker for the whole reset; [`GtReset::close`] takes it to set the state
    /// `Closed`, so a worker that holds it and saw `Queued` runs before close returns.
    /// Process context; the outermost driver lock (Documentation/architecture.rst, "Locks").
    #[pin]
    gate: Mutex<()>,
    /// The reset's phase. A leaf spinlock, taken in any context but the top half, also with
    /// the CT's inner lock held (Documentation/architecture.rst, "Locks").
    #[pin]
    state: SpinLock<Phase>,
    #[pin]
    work: Work<GtReset>,
    stats: Stats,
}

impl_has_work! {
    impl HasWork<Self> for GtReset { self.work }
}

impl WorkItem for GtReset {
    type Pointer = Arc<GtReset>;

    fn run(this: Arc<GtReset>) {
        this.run();
    }
}

impl GtReset {
    /// The reset of a bound device whose GuC submits (probe, process context).
    pub(crate) fn new(dev: ARef<Device>, b: Blocks) -> impl PinInit<Self> {
        pin_init!(Self {
            dev,
            b,
            gate <- new_mutex!(()),
            state <- new_spinlock!(Phase::Idle),
            work <- new_work!("xehpg::reset"),
            stats: Stats {
                requests: Atomic::new(0),
                coalesced: Atomic::new(0),
                done: Atomic::new(0),
                failed: Atomic::new(0),
                last_failed_requests: Atomic::new(0),
                last_us: Atomic::new(0),
            },
        })
    }

    /// Queues a reset for `why`. Any context (see the module docs).
    ///
    /// # Errors
    ///
    /// `EBUSY` (counted as coalesced) if one is queued or running, the GT is wedged or the
    /// device is going away; `EOPNOTSUPP` unless the GuC submits (upstream resets only under
    /// GuC submission, `gt_reset_worker`).
    pub(crate) fn request(this: &Arc<Self>, why: Why) -> Result {
        this.stats.requests.add(1, Relaxed);
        {
            let mut st = this.state.lock();
            if *st != Phase::Idle {
                this.stats.coalesced.add(1, Relaxed);
                return Err(EBUSY);
            }
            if this.b.submit.mode() != Mechanism::Guc {
                drop(st);
                dev_err!(
                    this.dev,
                    "gt: reset ({}) refused: the GuC does not submit\n",
                    why
                );
                return Err(EOPNOTSUPP);
            }
            *st = Phase::Queued(why);
        }
        trace::gt_reset(&this.dev, "queued", why.trace_name());
        dev_warn!(this.dev, "gt: reset queued ({})\n", why);
        // Not queued yet: the state machine allows one at a time.
        let _ = workqueue::system().enqueue(this.clone());
        Ok(())
    }

    /// The GuC's `ENGINE_FAILURE_NOTIFICATION` (GuC class, instance, reason) queues a reset.
    /// Receive path: must not sleep.
    pub(crate) fn engine_failure(
        this: &Arc<Self>,
        dev: &Device,
        class: u32,
        instance: u32,
        reason: u32,
    ) {
        trace::engine_failure(dev, class, instance, reason);
        dev_err!(
            dev,
            "gt: the GuC failed to reset engine {}:{} (reason {:#010x})\n",
            class,
            instance,
            reason
        );
        let why = Why::EngineFailure {
            class,
            instance,
            reason,
        };
        // Refusals and coalesced requests are counted (and the former logged) by `request`.
        let _ = Self::request(this, why);
    }

    /// An `ENGINE_FAILURE_NOTIFICATION` without the length upstream requires
    /// (`xe_guc_exec_queue_reset_failure_handler`): logged, nothing queued. Receive path.
    pub(crate) fn bad_engine_failure(dev: &Device, len: usize) {
        dev_err!(
            dev,
            "gt: ENGINE_FAILURE_NOTIFICATION with {} dwords, 3 expected; ignored\n",
            len
        );
    }

    /// Where the reset stands.
    pub(crate) fn phase(&self) -> Phase {
        *self.state.lock()
    }

    /// Unbind or a failed probe: no reset starts after this returns, and one in progress has
    /// finished. Process context.
    pub(crate) fn close(&self) {
        {
            let _gate = self.gate.lock();
            *self.state.lock() = Phase::Closed;
        }
        // SAFETY: `work` is this object's initialized work item; a run that starts now finds
        // the state `Closed` and returns, and nothing queues it once the state is `Closed`.
        unsafe { kernel::bindings::flush_work(Work::raw_get(&self.work)) };
    }

    /// The worker (process context).
    fn run(&self) {
        let gate = self.gate.lock();
        let why = {
            let mut st = self.state.lock();
            // `Closed` (unbind) included: nothing to run.
            let Phase::Queued(why) = *st else {
                return;
            };
            *st = Phase::Running(why);
            why
        };
        // SAFETY: this run holds the gate and found the state `Queued`, not `Closed`: the
        // driver's unbind (and a failing probe's drop) calls `close`, which takes the gate to
        // set `Closed`, before the device is unbound, so it waits for this run and the device
        // stays bound until the guard is dropped below, after the last use of `bound`.
        let bound: &Device<Bound> = unsafe { self.dev.as_bound() };
        if let Why::Unresponsive(u) = why {
            // What the GuC left before the reset wipes it: its state, the channel's and its
            // log, as a device coredump (upstream captures one on a hang, `xe_devcoredump`).
            self.b.guc.coredump(DumpReason::Hung(u));
        }
        let start = Instant::<Monotonic>::now();
        let res = match <&pci::Device<Bound>>::try_from(bound) {
            Ok(pdev) => self.reset(pdev, why),
            Err(e) => Err(("device", e)),
        };
        // CAST: a non-negative duration.
        let us = start.elapsed().as_micros_ceil() as u64;
        self.stats.last_us.store(us, Relaxed);
        let phase = if res.is_ok() { "done" } else { "failed" };
        trace::gt_reset(&self.dev, phase, why.trace_name());
        let next = match res {
            Ok(failed) => {
                self.stats.done.add(1, Relaxed);
                // CAST: usize to u64 is lossless.
                self.stats
                    .last_failed_requests
                    .store(failed as u64, Relaxed);
                dev_info!(
                    self.dev,
                    "gt: reset done in {} us ({}); {} request(s) failed, submission restarted\n",
                    us,
                    why,
                    failed
                );
                Phase::Idle
            }
            Err((step, e)) => {
                self.stats.failed.add(1, Relaxed);
                dev_err!(
                    self.dev,
                    "gt: reset ({}) failed at {}: {}; the GT is wedged until unbind\n",
                    why,
                    step,
                    e.to_errno()
                );
                Phase::Wedged
            }
        };
        {
            let mut st = self.state.lock();
            if *st != Phase::Closed {
                *st = next;
            }
        }
        drop(gate);
    }

    /// The reset's steps (module docs); the failed step and its error. Returns the requests
    /// failed.
    fn reset(&self, pdev: &pci::Device<Bound>, why: Why) -> Result<usize, (&'static str, Error)> {
        let b = &self.b;
        trace::gt_reset(pdev.as_ref(), "started", why.trace_name());
        dev_warn!(pdev, "gt: reset started ({})\n", why);
        let parts = guc::Parts {
            pdev,
            hw: b.hw.clone(),
        };
        let ctx = parts.ctx().map_err(|e| ("BARs", e))?;
        let failed = b.submit.reset_prepare();
        trace::dyn_dbg!(
            pdev,
            "gt: reset: submission stopped, {} request(s) failed\n",
            failed
        );
        b.guc.abandon(&ctx);
        full_reset(&ctx.gt).map_err(|e| ("GDRST.GRDOM_FULL", e))?;
        trace::dyn_dbg!(pdev, "gt: reset: GDRST.GRDOM_FULL cleared\n");
        engine::apply_workarounds(&ctx.gt, &b.part.topology, b.die)
            .map_err(|e| ("workarounds", e))?;
        b.irq.rearm(&ctx.gt);
        trace::dyn_dbg!(
            pdev,
            "gt: reset: workarounds applied, interrupts armed again\n"
        );
        b.guc.load(&ctx, guc::firmware_path(), &b.part);
        Guc::kick_log(&b.guc);
        if !b.guc.running() {
            return Err(("GuC load", EIO));
        }
        b.guc
            .post_load(&ctx, b.part.present.ccs != 0)
            .map_err(|e| ("GuC second boot phase", e))?;
        b.submit.start_guc(pdev, &b.ct);
        trace::dyn_dbg!(pdev, "gt: reset: GuC running, submission restarted\n");
        if let Some(pf) = &b.pf {
            pf.restart().map_err(|e| ("PF configuration", e))?;
        }
        Ok(failed)
    }

    /// The debugfs `gt_reset` lines.
    ///
    /// # Errors
    ///
    /// Only the formatter's.
    pub(crate) fn fmt(&self, f: &mut kernel::fmt::Formatter<'_>) -> kernel::fmt::Result {
        let s = &self.stats;
        f.write_fmt(fmt!(
            "phase: {}\nrequests: {}\ncoalesced: {}\ndone: {}\nfailed: {}\n\
             last_failed_requests: {}\nlast_us: {}\n",
            self.phase().name(),
            s.requests.load(Relaxed),
            s.coalesced.load(Relaxed),
            s.done.load(Relaxed),
            s.failed.load(Relaxed),
            s.last_failed_requests.load(Relaxed),
            s.last_us.load(Relaxed)
        ))
    }
}

/// `GDRST.GRDOM_FULL` and the wait for it to clear (`xe_gt.c` `do_gt_reset`). Process
/// context; sleeps.
///
/// # Errors
///
/// Forcewake errors, `ETIMEDOUT` if the bit does not clear.
fn full_reset(gt: &Gt<'_>) -> Result {
    let awake = gt.wake::<GtDomain>()?;
    gt.write(&awake, GDRST::zeroed().with_grdom_full(true));
    poll_timeout(
        || Ok(gt.read::<GDRST, _>(&awake)),
        |r| !r.grdom_full(),
        Delta::from_micros(10),
        FULL_RESET_TIMEOUT,
    )
    .map(|_| ())
}

/// The device's GT reset, shut ([`GtReset::close`], a reset in progress waited for) when
/// dropped: at unbind or by a probe that fails after making it, before anything it restarts.
pub(crate) struct Handle(Arc<GtReset>);

impl Handle {
    /// The reset of device `dev` over `b` (probe, process context).
    ///
    /// # Errors
    ///
    /// `ENOMEM`.
    pub(crate) fn new(dev: ARef<Device>, b: Blocks) -> Result<Self> {
        Ok(Self(Arc::pin_init(GtReset::new(dev, b), GFP_KERNEL)?))
    }

    /// The reset, for the GuC's events and debugfs.
    pub(crate) fn get(&self) -> &Arc<GtReset> {
        &self.0
    }
}

impl Drop for Handle {
    /// Process context.
    fn drop(&mut self) {
        self.0.close();
    }
}
