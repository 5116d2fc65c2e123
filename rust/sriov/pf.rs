// SPDX-License-Identifier: GPL-2.0

//! The PF: its state, construction and teardown; what it does is split by concern into its
//! children.
//!
//! [`Pf`] holds every VF's resources ([`State`], behind a mutex), the LMTT directory and the
//! KLV page, the GuC's VF notifications and the counters debugfs shows; [`Pf::new`] sets it up
//! at probe and [`Handle`]'s drop tears it down ([`Pf::fini`]). The children add to it:
//! `provision` (giving `n` VFs their shares and telling the GuC, giving them back, the GT
//! reset's restart), `flr` (the FLR work and the VF control commands), `notify` (the GuC's
//! VF notifications and adverse events, from the receive path), `relays` (the VF drivers'
//! relay messages, checked on the receive path and answered by the work), `admin` (the `sriov_admin`
//! settings and the adverse-event thresholds), `report` (the debugfs `sriov` report) and
//! `cost` (what the last provision and unprovision cost, for the bench), `tlb` (the LMTT's
//! invalidation after every change).
//!
//! The PF keeps context IDs below 256 (upstream's spare) and doorbells below 32 for its own
//! submission; upstream instead leaves them to a quota, since its PF allocates dynamically.
//! This driver's PF uses fixed low IDs, which a reservation makes safe.
//!
//! Locking: the state is a mutex, held across the GuC messages, not across an FLR's wait for
//! the GuC or the copy engine's clear of a VF's local memory (process context only; the GuC's
//! VF notifications never take it). A VF whose memory is being cleared without the mutex is
//! marked `cleaning`; nothing gives it back or frees its pages until the mark goes
//! ([`Pf::settle`]). BAR work runs inside the BARs' revocable access and never sleeps there.
//! The driver's lock order: Documentation/architecture.rst, "Locks".

mod admin;
mod cost;
mod flr;
mod notify;
mod provision;
mod relays;
mod report;
mod tlb;

pub(crate) use admin::{Setting, Target};

use kernel::{
    device::Device,
    new_condvar, new_mutex, new_spinlock,
    prelude::*,
    ptr::Alignment,
    sync::{aref::ARef, atomic::Atomic, Arc, CondVar, Mutex, MutexGuard, SpinLock},
    workqueue::{impl_has_work, new_work, Work},
};

use self::{admin::Quota, cost::Cost, notify::Inbox, relays::RelayStats};
use super::{
    config::{IdRun, VfConfig},
    control::Flr,
    fair,
    ids::{Ids, CONTEXTS, DOORBELLS},
    lmtt,
    relay::RUNTIME_REGS,
};
use crate::{
    gt::{GtDomain, LMEM_CFG},
    guc::{self, with_bars, Channel, CtAccess, CtIo},
    hw::Hw,
    mem::{
        ggtt::Mapping,
        lmem::{LmemAccess, LmemBlock, PagePool, Pages},
    },
    mmio::Bar0,
    range::Range,
    submit::Submit,
};

/// Context IDs the PF keeps for its own submission (upstream's minimum spare).
pub(crate) const PF_CONTEXTS: u32 = fair::CONTEXTS_SPARE;
/// Doorbells the PF keeps.
pub(crate) const PF_DOORBELLS: u32 = 32;

/// The blocks provisioning reaches.
pub(crate) struct Blocks {
    /// BAR 0, the local-memory BAR, the GT, the GGTT and the pool.
    pub(crate) hw: Arc<Hw>,
    pub(crate) ct: Arc<Channel>,
    /// The copy engine clears the VFs' local memory, which the CPU cannot reach.
    pub(crate) submit: Arc<Submit>,
}

/// What one VF holds; each resource is recorded as soon as it is taken, so a failure part
/// way gives back exactly what was taken.
#[derive(Default)]
struct Vf {
    ggtt: Option<Range>,
    contexts: Option<IdRun>,
    doorbells: Option<IdRun>,
    /// Its pages, in the order the LMTT maps them; given back when dropped.
    lmem: Option<Pages>,
    /// Given back to the pool when the VF is released ([`Pf::release`] drops it).
    leaf: Option<LmemBlock>,
    /// The configuration the GuC took (reset it when giving back).
    pushed: Option<VfConfig>,
    flr: Flr,
    /// Its local memory is being cleared with the PF's mutex dropped (provisioning or an
    /// FLR): `lmem` must stay where it is until the clear is over ([`Pf::settle`]).
    cleaning: bool,
    /// Stopped (`vfN/stop`): the GuC schedules it no more until an FLR.
    stopped: bool,
}

/// Who asked for the VFs provisioned now.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Owner {
    /// `sriov_numvfs`: the VFs exist on the bus; only disabling them gives the shares back.
    Pci,
    /// The debugfs `sriov` file: the provisioning layer alone, no VF on the bus (tests and
    /// measurements of up to 63 VFs where the bus cannot enumerate them); test build only.
    #[cfg(xehpg_test)]
    Debugfs,
}

struct State {
    /// VF `i + 1` is `vfs[i]`.
    vfs: KVec<Vf>,
    owner: Option<Owner>,
    /// Per function (index 0: the PF, else the VF number) the administrator's settings
    /// (`sriov_admin`).
    quotas: KVec<Quota>,
    /// The `SCHED_IF_IDLE` policy the GuC has (`.bulk_profile/sched_priority` normal).
    sched_if_idle: bool,
    /// Torn down ([`Pf::fini`]): the directory is disabled and the KLV page unmapped, nothing
    /// may be provisioned any more (a debugfs write racing unbind).
    closed: bool,
    contexts: Ids,
    doorbells: Ids,
    /// Local memory the VFs share: beyond the PF's pool, in LMTT pages, a VF's pages
    /// wherever they are free (upstream's VF objects are not contiguous either).
    vf_lmem: PagePool,
}

/// Counters shown in debugfs.
struct Stats {
    flr_done: Atomic<u64>,
    flr_failed: Atomic<u64>,
    /// FLR inputs its table refuses ([`Flr::on`]): a `VF_FLR_DONE` out of order, or a step
    /// the sequence did not expect. 0 on a healthy device.
    flr_bad_transitions: Atomic<u64>,
    bad_notices: Atomic<u64>,
    adverse_events: Atomic<u64>,
    /// LMTT bytes written since probe: leaf zeroing, leaf entries, directory entries.
    lmtt_bytes: Atomic<u64>,
    /// LMTT invalidations the GuC reported done, and those that failed or timed out (0 on a
    /// healthy device).
    lmtt_invalidations: Atomic<u64>,
    lmtt_inval_failed: Atomic<u64>,
    /// The last successful [`Pf::provision`].
    provision: Cost,
    /// The last [`Pf::unprovision`] that gave VFs back.
    unprovision: Cost,
    /// The VF relay service's counters.
    relay: RelayStats,
}

/// The PF: up to `total` VFs.
#[pin_data]
pub(crate) struct Pf {
    dev: ARef<Device>,
    b: Blocks,
    total: u16,
    /// Usable local memory, for upstream's local-memory profile.
    usable: u64,
    /// The LMTT directory (CPU-visible local memory); freed when the PF is dropped.
    dir: LmemBlock,
    /// A page of local memory mapped into the GGTT for the KLV lists; freed when the PF is
    /// dropped, after [`Pf::fini`] has unmapped it.
    klv: LmemBlock,
    klv_map: Mapping,
    /// The values of [`RUNTIME_REGS`], read at probe: what `VF2PF_QUERY_RUNTIME` answers.
    runtime: [u32; RUNTIME_REGS.len()],
    /// Process context; held across CT requests, dropped across the waits for the GuC's part
    /// of an FLR and for local-memory clears (a VF mid-clear is marked, [`Vf::cleaning`]).
    /// Below the GT reset's gate, above the selftest's mutex, the allocators', the CT's locks and `inbox`
    /// (Documentation/architecture.rst, "Locks").
    #[pin]
    state: Mutex<State>,
    /// VFs provisioned, for the receive path's checks (it may not take `state`).
    num_vfs: Atomic<u32>,
    /// The receive path's notifications. A leaf spinlock: the receive path, the FLR work,
    /// `state` holders (Documentation/architecture.rst, "Locks").
    #[pin]
    inbox: SpinLock<Inbox>,
    /// Signalled when a notification arrives (the FLR work waits on it).
    #[pin]
    notified: CondVar,
    /// Signalled, with `state` held, when a VF's `cleaning` mark goes ([`Pf::settle`] waits
    /// on it).
    #[pin]
    cleaned: CondVar,
    /// Runs VF FLRs and answers the VFs' relay requests, in process context.
    #[pin]
    work: Work<Pf>,
    stats: Stats,
}

impl_has_work! {
    impl HasWork<Self> for Pf { self.work }
}

/// A failed step: what, and the error.
type Step = (&'static str, Error);

fn step<T>(what: &'static str, r: Result<T>) -> Result<T, Step> {
    r.map_err(|e| (what, e))
}

impl Pf {
    /// The PF of a bound device with `total` VFs, sharing local memory `vf_lmem` (beyond the
    /// PF's pool). Probe, process context: allocates the directory and the KLV page,
    /// points `LMEM_CFG` at the empty directory.
    ///
    /// # Errors
    ///
    /// `ENOMEM`/`ENOSPC` from the pools, a BAR or forcewake error.
    pub(crate) fn new(
        dev: ARef<Device>,
        b: Blocks,
        bar: Bar0<'_>,
        lmem: LmemAccess<'_>,
        total: u16,
        vf_lmem: Range,
        usable: u64,
    ) -> Result<impl PinInit<Self, Error>> {
        let mut contexts = Ids::new(CONTEXTS)?;
        contexts.reserve_low(PF_CONTEXTS, 0)?;
        let mut doorbells = Ids::new(DOORBELLS)?;
        doorbells.reserve_low(PF_DOORBELLS, 0)?;
        let region = PagePool::new(vf_lmem, Alignment::new::<{ lmtt::PAGE as usize }>())?;
        let mut quotas = KVec::with_capacity(lmtt::DIR_ENTRIES, GFP_KERNEL)?;
        for _ in 0..lmtt::DIR_ENTRIES {
            quotas.push(Quota::default(), GFP_KERNEL)?;
        }
        // Both go back to the pool if anything below fails (they drop).
        let dir = b.hw.pool().alloc(lmtt::TABLE_ALIGN)?;
        let klv = b.hw.pool().alloc(ggtt_page())?;
        let setup = || -> Result<(Mapping, [u32; RUNTIME_REGS.len()])> {
            lmem.zero(dir.start, dir.size())?;
            let map = b.hw.ggtt().map_lmem(bar, klv.start, ggtt_page())?;
            let gt = b.hw.gt().view(&dev, bar);
            let awake = gt.wake::<GtDomain>()?;
            let cfg = LMEM_CFG::zeroed()
                .with_lmem_en(true)
                .try_with_lmtt_dir_ptr(lmtt::dir_ptr(dir.start)?)
                .map_err(|_| EINVAL)?;
            gt.mcr.write_multicast(&gt, awake.guard(), cfg)?;
            guc::invalidate_ggtt(&gt)?;
            // The GT awake, as upstream reads them (`xe_gt_sriov_pf_service.c`
            // `pf_prepare_runtime_info`, under the GT's forcewake at init).
            let mut runtime = [0; RUNTIME_REGS.len()];
            for (v, &reg) in runtime.iter_mut().zip(RUNTIME_REGS.iter()) {
                // CAST: register offsets below 64 KiB.
                *v = bar.read32_at(reg as usize)?;
            }
            Ok((map, runtime))
        };
        let (klv_map, runtime) = setup()?;
        Ok(try_pin_init!(Self {
            dev,
            b,
            total,
            usable,
            dir,
            klv,
            klv_map,
            runtime,
            state <- new_mutex!(State {
                vfs: KVec::new(),
                owner: None,
                quotas,
                sched_if_idle: false,
                closed: false,
                contexts,
                doorbells,
                vf_lmem: region,
            }),
            num_vfs: Atomic::new(0),
            inbox <- new_spinlock!(Inbox::default()),
            notified <- new_condvar!(),
            cleaned <- new_condvar!(),
            work <- new_work!("xehpg::sriov::flr"),
            stats: Stats {
                flr_done: Atomic::new(0),
                flr_failed: Atomic::new(0),
                flr_bad_transitions: Atomic::new(0),
                bad_notices: Atomic::new(0),
                adverse_events: Atomic::new(0),
                lmtt_bytes: Atomic::new(0),
                lmtt_invalidations: Atomic::new(0),
                lmtt_inval_failed: Atomic::new(0),
                provision: Cost::new(),
                unprovision: Cost::new(),
                relay: RelayStats::new(),
            },
        }))
    }

    /// VFs the device offers (TotalVFs, at most 63).
    pub(crate) fn total(&self) -> u16 {
        self.total
    }

    /// Runs `f` on both BARs, or `ENODEV` if the device is gone. `f` must not sleep.
    fn with_bars<R>(&self, f: impl FnOnce(Bar0<'_>, LmemAccess<'_>) -> Result<R>) -> Result<R> {
        self.b
            .hw
            .bar()
            .try_access_with(|bar| self.b.hw.lmembar().try_access_with(|lmem| f(bar, lmem)))
            .flatten()
            .unwrap_or(Err(ENODEV))
    }

    /// Waits, `state` dropped meanwhile, until no VF's local memory is being cleared: whoever
    /// gives VFs back or frees their pages calls it first. Process context; sleeps. The clears
    /// it waits for end with a result or the copy engine's timeout, and take no lock above
    /// `state`, so the wait ends.
    fn settle(&self, st: &mut MutexGuard<'_, State>) {
        while st.vfs.iter().any(|v| v.cleaning) {
            self.cleaned.wait(st);
        }
    }

    /// Ends the `cleaning` mark of every VF in `st` and wakes [`Pf::settle`]'s waiters. Process
    /// context, `state` held.
    fn end_cleaning(&self, st: &mut State) {
        st.vfs.iter_mut().for_each(|v| v.cleaning = false);
        self.cleaned.notify_all();
    }

    /// Invalidates the GuC's GGTT TLB after VF entries changed; failures are logged (the
    /// entries are right; only a stale translation could remain).
    fn invalidate(&self) {
        let r = self.with_bars(|bar, _| guc::invalidate_ggtt(&self.b.hw.gt().view(&self.dev, bar)));
        if let Err(e) = r {
            dev_err!(
                self.dev,
                "sriov: GGTT invalidation failed: {}\n",
                e.to_errno()
            );
        }
    }

    /// Waits for the work's run in progress and the one queued, if any. Process context, no
    /// lock held.
    fn flush_work(&self) {
        // SAFETY: `work` is this object's initialized work item, alive as long as `self`.
        unsafe { kernel::bindings::flush_work(Work::raw_get(&self.work)) };
    }

    /// Teardown ([`Handle`]'s drop): every VF given back, `LMEM_CFG` cleared, the PF's pages
    /// freed.
    fn fini(&self) {
        self.inbox.lock().closed = true;
        self.notified.notify_all();
        // A run in progress sees `closed` and stops; nothing queues the work again once closed.
        self.flush_work();
        // Without the accounting: nobody measures an unbind, and the reference copy would
        // allocate for nothing.
        let _ = self.unprovision_locked(Owner::Pci);
        self.state.lock().closed = true;
        let _ = self.with_bars(|bar, _| {
            let gt = self.b.hw.gt().view(&self.dev, bar);
            let awake = gt.wake::<GtDomain>()?;
            gt.mcr
                .write_multicast(&gt, awake.guard(), LMEM_CFG::zeroed())?;
            self.b.hw.ggtt().clear(bar, self.klv_map);
            Ok(())
        });
        self.b.hw.ggtt().release(self.klv_map.ggtt);
        // The directory and the KLV page go back to the pool when the PF is dropped.
    }
}

/// The device's PF, finished ([`Pf::fini`]) when dropped: its work flushed, every VF's share
/// given back, `LMEM_CFG` cleared and its pages freed. The device state drops it after the
/// VFs are disabled and before the engines stop (the VFs' local memory is cleared with the copy
/// engine) and the GuC (their configurations are reset over the CT), on unbind and on a failed
/// probe alike.
pub(crate) struct Handle(Arc<Pf>);

impl Handle {
    /// Takes charge of `pf` (probe, process context).
    pub(crate) fn new(pf: Arc<Pf>) -> Self {
        Self(pf)
    }

    /// The PF, for the GuC's events, sysfs, debugfs and the GT reset.
    pub(crate) fn get(&self) -> &Arc<Pf> {
        &self.0
    }
}

impl Drop for Handle {
    /// Process context (unbind, device lock held, or a failed probe).
    fn drop(&mut self) {
        self.0.fini();
    }
}

/// The KLV page: one GGTT page.
const fn ggtt_page() -> u64 {
    crate::mem::ggtt::PAGE
}

impl CtAccess for Pf {
    fn dev(&self) -> &Device {
        &self.dev
    }

    fn with_io<R>(&self, f: impl FnOnce(&CtIo<'_>) -> R) -> Option<R> {
        with_bars(&self.dev, &self.b.hw, f)
    }
}
