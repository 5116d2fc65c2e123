// SPDX-License-Identifier: GPL-2.0

//! Provisioning: giving `n` VFs their shares and telling the GuC.
//!
//! Each VF gets, in this order (upstream's, `xe_gt_sriov_pf_config.c`): a GGTT range from the
//! top of the GuC's window with every entry stamped with the VF ([`Ggtt::reserve_vf`]), a run
//! of context IDs from the top and of doorbells from the bottom ([`Ids`]), local memory beyond
//! the CPU-visible part behind its own LMTT leaf table, and the scheduling upstream uses once
//! VFs run; then its configuration goes to the GuC in one `PF2GUC_UPDATE_VF_CFG`, whose reply
//! must count every KLV. A failure at any step for any VF unwinds every VF, so nothing stays
//! half-provisioned. Giving back resets each VF's configuration at the GuC first, then frees
//! what it held.
//!
//! The PF keeps context IDs below 256 (upstream's spare) and doorbells below 32 for its own
//! submission; upstream instead leaves them to a quota, since its PF allocates dynamically.
//! This driver's PF uses fixed low IDs, which a reservation makes safe.
//!
//! Locking: the state is a mutex, held across the GuC messages and the local-memory clears,
//! not across an FLR's wait for the GuC (process context only; the GuC's VF notifications
//! never take it). BAR work runs inside the BARs' revocable access and never sleeps there.
//! The driver's lock order: Documentation/architecture.rst, "Locks".

use kernel::{
    device::Device,
    io::register::RegisterArray,
    new_condvar, new_mutex, new_spinlock,
    prelude::*,
    ptr::Alignment,
    sync::{
        aref::ARef,
        atomic::{Atomic, Relaxed},
        Arc, CondVar, Mutex, SpinLock,
    },
    time::{msecs_to_jiffies, Instant, Monotonic},
    workqueue::{self, impl_has_work, new_work, Work, WorkItem},
};

use super::{
    config::{encode_self, encode_threshold, IdRun, VfConfig, MAX_DWORDS, SELF_DWORDS, THRESHOLDS},
    control::{
        applied, parse_adverse, parse_state, BadNotice, Command, Flr, FlrAction, FlrInput, Notice,
    },
    fair::{self, Profile},
    ids::{Ids, CONTEXTS, DOORBELLS},
    lmtt,
};
use crate::{
    gt::{GtDomain, GtState, LMEM_CFG},
    guc::{
        self, with_bars, BadEvent, Channel, CtAccess, CtIo, EventKind, G2hEvent, UpdateVfCfg,
        VfControl, VF_SW_FLAG,
    },
    mem::{
        ggtt::{Ggtt, Mapping, GUC_GGTT_BOTTOM, GUC_GGTT_TOP},
        lmem::{LmemAccess, LmemBlock, LmemPool, Lmembar, PagePool, Pages},
    },
    mmio::{Bar0, Gttmmadr},
    range::Range,
    submit::Submit,
};

/// Context IDs the PF keeps for its own submission (upstream's minimum spare).
pub(crate) const PF_CONTEXTS: u32 = fair::CONTEXTS_SPARE;
/// Doorbells the PF keeps.
pub(crate) const PF_DOORBELLS: u32 = 32;
/// How long the GuC gets for its part of a VF FLR (upstream's `FLR_WAIT_GUC` timeout).
const FLR_WAIT_MS: i64 = 500;

/// The blocks provisioning reaches.
pub(crate) struct Blocks {
    pub(crate) bar: Arc<Gttmmadr>,
    pub(crate) lmem: Arc<Lmembar>,
    pub(crate) gt: Arc<GtState>,
    pub(crate) ggtt: Arc<Ggtt>,
    pub(crate) pool: Arc<LmemPool>,
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
}

/// One VF's share, the same for each of the `n`.
#[derive(Copy, Clone, Debug)]
struct Share {
    ggtt: u64,
    lmem: u64,
    contexts: u32,
    doorbells: u32,
}

/// What the administrator set for one VF (sysfs `sriov_admin`), applied at the next enable;
/// unset values take the fair share and upstream's scheduling defaults.
#[derive(Copy, Clone, Default)]
struct Quota {
    exec_quantum_ms: Option<u32>,
    preempt_timeout_us: Option<u32>,
    priority: Option<u32>,
    lmem: Option<u64>,
}

/// An administrator setting, upstream's names (`xe_sriov_pf_sysfs.c`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Setting {
    ExecQuantumMs,
    PreemptTimeoutUs,
    SchedPriority,
    VramQuota,
}

impl Setting {
    /// The settings in the order the sysfs glue numbers its files.
    pub(crate) const ALL: [Setting; 4] = [
        Setting::ExecQuantumMs,
        Setting::PreemptTimeoutUs,
        Setting::SchedPriority,
        Setting::VramQuota,
    ];
}

/// The scheduling priorities' names (seed 003: 0 LOW, 1 NORMAL, 2 HIGH).
const PRIORITIES: [&str; 3] = ["low", "normal", "high"];

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
    /// Per VF (index = VF number; 0 unused) settings for the next enable.
    quotas: KVec<Quota>,
    /// Torn down ([`Pf::fini`]): the directory is disabled and the KLV page unmapped, nothing
    /// may be provisioned any more (a debugfs write racing unbind).
    closed: bool,
    contexts: Ids,
    doorbells: Ids,
    /// Local memory the VFs share: beyond the CPU-visible pool, in LMTT pages, a VF's pages
    /// wherever they are free (upstream's VF objects are not contiguous either).
    vf_lmem: PagePool,
}

/// The GuC's VF notifications, from the receive path (which may not sleep) to the FLR work
/// (one bit per VF) and to debugfs (adverse events).
struct Inbox {
    flr: u64,
    done: u64,
    /// Torn down: nothing is queued any more.
    closed: bool,
    /// Adverse events per VF (index = VF number) and threshold ([`THRESHOLDS`]), since the
    /// VFs were provisioned.
    adverse: [[u32; THRESHOLDS.len()]; 64],
}

impl Default for Inbox {
    fn default() -> Self {
        Self {
            flr: 0,
            done: 0,
            closed: false,
            adverse: [[0; THRESHOLDS.len()]; 64],
        }
    }
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
    /// The last successful [`Pf::provision`].
    provision: Cost,
    /// The last [`Pf::unprovision`] that gave VFs back.
    unprovision: Cost,
}

/// What one provision or unprovision cost, for the bench (`make bench`): its time, the table
/// bytes it wrote, and (test build only: the cost model the bench compares with) the time the
/// CPU takes to copy as many bytes between two kernel buffers, measured right after it in the
/// same boot so the ratio compares like with like. The production module keeps the cheap
/// counters and allocates no reference buffers.
/// Written after the operation under no lock; a reader racing a second operation may see a
/// mix of the two, which the bench never does (one command at a time).
struct Cost {
    vfs: Atomic<u64>,
    ns: Atomic<u64>,
    /// GGTT entries written x 8 (the GSM writes counted by BAR 0 over the operation).
    ggtt_bytes: Atomic<u64>,
    /// LMTT bytes written over the operation.
    lmtt_bytes: Atomic<u64>,
    /// The reference copy of `ggtt_bytes + lmtt_bytes`; 0 when it could not be allocated.
    #[cfg(xehpg_test)]
    memcpy_ns: Atomic<u64>,
}

impl Cost {
    fn new() -> Self {
        Self {
            vfs: Atomic::new(0),
            ns: Atomic::new(0),
            ggtt_bytes: Atomic::new(0),
            lmtt_bytes: Atomic::new(0),
            #[cfg(xehpg_test)]
            memcpy_ns: Atomic::new(0),
        }
    }

    fn fmt(&self, f: &mut impl core::fmt::Write, name: &str) -> core::fmt::Result {
        write!(
            f,
            "{}: vfs {} ns {} ggtt_bytes {} lmtt_bytes {}",
            name,
            self.vfs.load(Relaxed),
            self.ns.load(Relaxed),
            self.ggtt_bytes.load(Relaxed),
            self.lmtt_bytes.load(Relaxed),
        )?;
        #[cfg(xehpg_test)]
        write!(f, " memcpy_ns {}", self.memcpy_ns.load(Relaxed))?;
        writeln!(f)
    }
}

/// Where the table counters stood when an operation began: (GSM writes, LMTT bytes).
#[derive(Copy, Clone)]
struct Mark {
    gsm: u64,
    lmtt: u64,
    start: Instant<Monotonic>,
}

/// Nanoseconds the CPU takes to copy `bytes` from one vmalloc'ed kernel buffer to another
/// (process context): the reference the table writes are compared with. The source is
/// non-zero so the copy cannot be satisfied by zero pages, and the result is checked so it
/// cannot be dropped. Test build only.
#[cfg(xehpg_test)]
fn memcpy_ns(bytes: u64) -> Result<u64> {
    let n = usize::try_from(bytes).map_err(|_| EINVAL)?;
    if n == 0 {
        return Ok(0);
    }
    let a = VVec::from_elem(0xa5u8, n, GFP_KERNEL)?;
    let mut b = VVec::from_elem(0u8, n, GFP_KERNEL)?;
    let start = Instant::<Monotonic>::now();
    b.copy_from_slice(&a);
    // CAST: a non-negative duration.
    let ns = start.elapsed().as_nanos() as u64;
    if b.get(n - 1) != Some(&0xa5) {
        return Err(EIO);
    }
    Ok(ns)
}

/// Writes ` NAME a,b,c`.
fn fmt_list(f: &mut impl core::fmt::Write, name: &str, values: &[u32]) -> core::fmt::Result {
    write!(f, "{name} ")?;
    for (i, v) in values.iter().enumerate() {
        let sep = if i == 0 { "" } else { "," };
        write!(f, "{sep}{v}")?;
    }
    Ok(())
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
    /// Process context; held across CT requests and local-memory clears. Below the GT
    /// reset's gate, above the selftest's mutex, the allocators', the CT's locks and `inbox`
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
    /// Runs VF FLRs in process context.
    #[pin]
    work: Work<Pf>,
    stats: Stats,
}

impl_has_work! {
    impl HasWork<Self> for Pf { self.work }
}

impl WorkItem for Pf {
    type Pointer = Arc<Pf>;

    fn run(this: Arc<Pf>) {
        this.run_flrs();
    }
}

/// A failed step: what, and the error.
type Step = (&'static str, Error);

fn step<T>(what: &'static str, r: Result<T>) -> Result<T, Step> {
    r.map_err(|e| (what, e))
}

impl Pf {
    /// The PF of a bound device with `total` VFs, sharing local memory `vf_lmem` (beyond the
    /// CPU-visible pool). Probe, process context: allocates the directory and the KLV page,
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
        let dir = b.pool.alloc(lmtt::TABLE_ALIGN)?;
        let klv = b.pool.alloc(ggtt_page())?;
        let setup = || -> Result<Mapping> {
            lmem.zero(dir.start, dir.size())?;
            let map = b.ggtt.map_lmem(bar, klv.start, ggtt_page())?;
            let gt = b.gt.view(&dev, bar);
            let awake = gt.wake::<GtDomain>()?;
            let cfg = LMEM_CFG::zeroed()
                .with_lmem_en(true)
                .try_with_lmtt_dir_ptr(lmtt::dir_ptr(dir.start)?)
                .map_err(|_| EINVAL)?;
            gt.mcr.write_multicast(&gt, awake.guard(), cfg)?;
            guc::invalidate_ggtt(&gt)?;
            Ok(map)
        };
        let klv_map = setup()?;
        Ok(try_pin_init!(Self {
            dev,
            b,
            total,
            usable,
            dir,
            klv,
            klv_map,
            state <- new_mutex!(State {
                vfs: KVec::new(),
                owner: None,
                quotas,
                closed: false,
                contexts,
                doorbells,
                vf_lmem: region,
            }),
            num_vfs: Atomic::new(0),
            inbox <- new_spinlock!(Inbox::default()),
            notified <- new_condvar!(),
            work <- new_work!("xehpg::sriov::flr"),
            stats: Stats {
                flr_done: Atomic::new(0),
                flr_failed: Atomic::new(0),
                flr_bad_transitions: Atomic::new(0),
                bad_notices: Atomic::new(0),
                adverse_events: Atomic::new(0),
                lmtt_bytes: Atomic::new(0),
                provision: Cost::new(),
                unprovision: Cost::new(),
            },
        }))
    }

    /// GT reset, once the GuC runs again: points `LMEM_CFG` at the LMTT directory again and
    /// pushes the PF's and every provisioned VF's configuration, which the reset GuC no longer
    /// has (upstream `xe_gt.c` `do_gt_restart`: `xe_lmtt_init_hw`, then
    /// `xe_gt_sriov_pf_restart`, which pushes each VF's configuration again). Process context;
    /// sleeps on the CT with the PF's mutex held.
    ///
    /// # Errors
    ///
    /// The first failed step's error, logged with the step; the VFs then lack their
    /// configuration in the GuC.
    pub(crate) fn restart(&self) -> Result {
        let st = self.state.lock();
        if st.closed {
            return Ok(());
        }
        let r = step(
            "LMEM_CFG",
            self.with_bars(|bar, _| {
                let gt = self.b.gt.view(&self.dev, bar);
                let awake = gt.wake::<GtDomain>()?;
                let cfg = LMEM_CFG::zeroed()
                    .with_lmem_en(true)
                    .try_with_lmtt_dir_ptr(lmtt::dir_ptr(self.dir.start)?)
                    .map_err(|_| EINVAL)?;
                gt.mcr.write_multicast(&gt, awake.guard(), cfg)
            }),
        )
        .and_then(|()| {
            if st.vfs.is_empty() {
                return Ok(());
            }
            self.push_self(fair::EXEC_QUANTUM_MS, fair::PREEMPT_TIMEOUT_US)?;
            (1u16..)
                .zip(st.vfs.iter())
                .try_for_each(|(vf, v)| v.pushed.as_ref().map_or(Ok(()), |c| self.push(vf, c)))
        });
        self.invalidate();
        r.map(|()| {
            if !st.vfs.is_empty() {
                dev_info!(
                    self.dev,
                    "sriov: {} VF configuration(s) pushed again after the GT reset\n",
                    st.vfs.len()
                );
            }
        })
        .map_err(|(what, e)| {
            dev_err!(
                self.dev,
                "sriov: restoring the PF after the GT reset failed at {}: {}\n",
                what,
                e.to_errno()
            );
            e
        })
    }

    /// VFs the device offers (TotalVFs, at most 63).
    pub(crate) fn total(&self) -> u16 {
        self.total
    }

    /// Runs `f` on both BARs, or `ENODEV` if the device is gone. `f` must not sleep.
    fn with_bars<R>(&self, f: impl FnOnce(Bar0<'_>, LmemAccess<'_>) -> Result<R>) -> Result<R> {
        self.b
            .bar
            .try_access_with(|bar| self.b.lmem.try_access_with(|lmem| f(bar, lmem)))
            .flatten()
            .unwrap_or(Err(ENODEV))
    }

    /// Each VF's share for `n` VFs: upstream's fair rule, logged when it falls short of the
    /// profile.
    fn share(&self, st: &State, n: u16) -> Result<Share, Step> {
        let p = step("profile", Profile::new(n.into()))?;
        let vfs = u32::from(n);
        let est_ggtt = fair::ggtt_estimate(self.b.ggtt.largest_hole(), vfs);
        // All that is free, as upstream (`pf_query_max_lmem`): a VF's pages need not touch.
        let est_lmem = fair::lmem_estimate(st.vf_lmem.avail(), 0, vfs);
        let est_ctx = st.contexts.largest_fair(vfs, 0);
        let est_db = st.doorbells.largest_fair(vfs, 0);
        let s = Share {
            ggtt: step("GGTT", fair::fair(est_ggtt, p.ggtt()))?,
            lmem: step("local memory", fair::fair(est_lmem, p.lmem(self.usable)))?,
            contexts: step("contexts", fair::fair(est_ctx, p.contexts()))?,
            // Doorbells are optional (upstream's rule): none is a valid share.
            doorbells: est_db.min(p.doorbells()),
        };
        if s.ggtt < p.ggtt()
            || s.lmem < p.lmem(self.usable)
            || s.contexts < p.contexts()
            || s.doorbells < p.doorbells()
        {
            dev_info!(
                self.dev,
                "sriov: {} VFs: less than the profile is free; each gets GGTT {:#x}, local \
                 memory {:#x}, {} contexts, {} doorbells\n",
                n,
                s.ggtt,
                s.lmem,
                s.contexts,
                s.doorbells
            );
        }
        Ok(s)
    }

    /// Provisions VFs 1..=`n` with equal fair shares and pushes each configuration to the
    /// GuC. Process context. On failure nothing stays provisioned.
    ///
    /// # Errors
    ///
    /// `EINVAL` for 0, `ERANGE` above [`Pf::total`], `EBUSY` while VFs are provisioned,
    /// `ENOSPC` when a resource has nothing left to share, the GuC's or the BAR's error.
    pub(crate) fn provision(&self, n: u16, owner: Owner) -> Result {
        let mark = self.mark();
        self.provision_locked(n, owner)?;
        self.record(&self.stats.provision, n.into(), mark);
        Ok(())
    }

    /// Where the table counters stand now, and the time.
    fn mark(&self) -> Mark {
        Mark {
            gsm: self.b.bar.gsm_writes(),
            lmtt: self.stats.lmtt_bytes.load(Relaxed),
            start: Instant::<Monotonic>::now(),
        }
    }

    /// Records what an operation on `vfs` VFs that began at `mark` cost, then (test build)
    /// times the reference copy of as many bytes (after the operation, outside the lock). The GGTT
    /// bytes are BAR 0's GSM writes over the operation: every GGTT write of the driver, so
    /// another GGTT user running at the same time (none in the bench) would be counted too.
    fn record(&self, cost: &Cost, vfs: u64, mark: Mark) {
        // CAST: a non-negative duration.
        let ns = mark.start.elapsed().as_nanos() as u64;
        let ggtt = self.b.bar.gsm_writes().wrapping_sub(mark.gsm) * 8;
        let lmtt = self.stats.lmtt_bytes.load(Relaxed).wrapping_sub(mark.lmtt);
        cost.vfs.store(vfs, Relaxed);
        cost.ns.store(ns, Relaxed);
        cost.ggtt_bytes.store(ggtt, Relaxed);
        cost.lmtt_bytes.store(lmtt, Relaxed);
        #[cfg(xehpg_test)]
        {
            let copy = memcpy_ns(ggtt + lmtt).unwrap_or_else(|e| {
                dev_warn!(
                    self.dev,
                    "sriov: no reference copy of {} bytes: {}\n",
                    ggtt + lmtt,
                    e.to_errno()
                );
                0
            });
            cost.memcpy_ns.store(copy, Relaxed);
        }
    }

    /// [`Pf::provision`] without the accounting.
    fn provision_locked(&self, n: u16, owner: Owner) -> Result {
        if n == 0 {
            return Err(EINVAL);
        }
        if n > self.total {
            return Err(ERANGE);
        }
        let mut st = self.state.lock();
        if st.closed {
            return Err(ENODEV);
        }
        if !st.vfs.is_empty() {
            return Err(EBUSY);
        }
        // New VFs: nothing reported yet.
        self.inbox.lock().adverse = [[0; THRESHOLDS.len()]; 64];
        let result = self
            .push_self(fair::EXEC_QUANTUM_MS, fair::PREEMPT_TIMEOUT_US)
            .and_then(|()| self.share(&st, n))
            .and_then(|share| {
                (1..=n).try_for_each(|vf| {
                    step(
                        "bookkeeping",
                        st.vfs.push(Vf::default(), GFP_KERNEL).map_err(Error::from),
                    )?;
                    self.provision_one(&mut st, vf, share).map_err(|(what, e)| {
                        dev_err!(
                            self.dev,
                            "sriov: VF{}: provisioning failed at {}: {}\n",
                            vf,
                            what,
                            e.to_errno()
                        );
                        (what, e)
                    })
                })
            });
        self.invalidate();
        match result {
            Ok(()) => {
                st.owner = Some(owner);
                self.num_vfs.store(n.into(), Relaxed);
                dev_info!(self.dev, "sriov: {} VF(s) provisioned\n", n);
                Ok(())
            }
            Err((what, e)) => {
                dev_err!(
                    self.dev,
                    "sriov: provisioning {} VF(s) failed at {}: {}; nothing kept\n",
                    n,
                    what,
                    e.to_errno()
                );
                self.release_all(&mut st);
                Err(e)
            }
        }
    }

    /// Takes VF `vf`'s share and pushes its configuration; every resource is recorded in
    /// `st.vfs[vf - 1]` as soon as taken.
    fn provision_one(&self, st: &mut State, vf: u16, share: Share) -> Result<(), Step> {
        let idx = usize::from(vf) - 1;
        let ggtt = step("GGTT", self.b.ggtt.reserve_vf(share.ggtt))?;
        self.vf(st, idx)?.ggtt = Some(ggtt);
        step(
            "GGTT entries",
            self.with_bars(|bar, _| self.b.ggtt.sanitize_vf(bar, ggtt, vf)),
        )?;
        let begin = step("contexts", st.contexts.reserve_high(share.contexts, 0))?;
        let contexts = IdRun {
            begin,
            count: share.contexts,
        };
        self.vf(st, idx)?.contexts = Some(contexts);
        let doorbells = if share.doorbells > 0 {
            let begin = step("doorbells", st.doorbells.reserve_low(share.doorbells, 0))?;
            let run = IdRun {
                begin,
                count: share.doorbells,
            };
            self.vf(st, idx)?.doorbells = Some(run);
            run
        } else {
            IdRun::default()
        };
        let q = st.quotas.get(usize::from(vf)).copied().unwrap_or_default();
        let lmem_size = q.lmem.unwrap_or(share.lmem);
        let lmem = step("local memory", st.vf_lmem.alloc(lmem_size))?;
        let lmem_size = lmem.size();
        // Nothing of a previous owner may reach the VF (seed 000 lines 300-326; upstream
        // clears a VF's new local memory): cleared before the GuC hears of it.
        let cleared = self.clear_lmem(vf, &lmem);
        self.vf(st, idx)?.lmem = Some(lmem);
        cleared.map_err(|e| ("local memory clear", e))?;
        let leaf = step("LMTT leaf", self.b.pool.alloc(lmtt::LEAF_BYTES))?;
        let table = *leaf;
        let v = self.vf(st, idx)?;
        v.leaf = Some(leaf);
        let pages = v.lmem.as_ref().ok_or(("bookkeeping", EINVAL))?;
        step(
            "LMTT",
            self.with_bars(|_, mem| self.write_lmtt(mem, vf, table, pages)),
        )?;
        let cfg = VfConfig {
            ggtt: Some(ggtt),
            lmem: lmem_size,
            contexts,
            doorbells,
            exec_quantum_ms: q.exec_quantum_ms.unwrap_or(fair::EXEC_QUANTUM_MS),
            preempt_timeout_us: q.preempt_timeout_us.unwrap_or(fair::PREEMPT_TIMEOUT_US),
            priority: q.priority.unwrap_or(0),
            // Not reported until set (debugfs `vfN threshold`), as upstream.
            thresholds: [0; THRESHOLDS.len()],
        };
        self.push(vf, &cfg)?;
        self.vf(st, idx)?.pushed = Some(cfg);
        Ok(())
    }

    fn vf<'s>(&self, st: &'s mut State, idx: usize) -> Result<&'s mut Vf, Step> {
        st.vfs.get_mut(idx).ok_or(("bookkeeping", EINVAL))
    }

    /// Zeroes VF `vf`'s copy of `VF_SW_FLAG(0..3)` through the PF's view of it. Any context.
    fn clear_vf_regs(&self, bar: Bar0<'_>, vf: u16) -> Result {
        let gt = self.b.gt.view(&self.dev, bar);
        (0..VF_SW_FLAG::SIZE).try_for_each(|i| gt.write_vf_aon_at::<VF_SW_FLAG>(vf, i, 0))
    }

    /// Clears VF `vf`'s local memory `lmem` on the copy engine, run by run; the failed step is
    /// logged.
    fn clear_lmem(&self, vf: u16, lmem: &Pages) -> Result {
        lmem.runs().iter().try_for_each(|run| {
            self.b
                .submit
                .clear_lmem(&self.b.ct, *run)
                .map(|_| ())
                .map_err(|(what, e)| {
                    dev_err!(
                        self.dev,
                        "sriov: VF{}: clearing local memory {:#x}-{:#x} failed at {}: {}\n",
                        vf,
                        run.start,
                        run.end,
                        what,
                        e.to_errno()
                    );
                    e
                })
        })
    }

    /// Fills VF `vf`'s leaf table (every entry of `lmem`, the rest invalid) and points its
    /// directory entry at it (seed 000 lines 380-392).
    fn write_lmtt(&self, mem: LmemAccess<'_>, vf: u16, leaf: Range, lmem: &Pages) -> Result {
        // Bytes written, counted as they are (a failure part way counts what was written).
        let mut written = 0u64;
        let r = (|| -> Result {
            mem.zero(leaf.start, leaf.size())?;
            written += leaf.size();
            // The VF sees its memory from offset 0; page i of it is page i of `lmem`'s runs in
            // address order (upstream walks its object's blocks in list order, `xe_lmtt.c`
            // `lmtt_insert_bo`: any order does, the VF only sees offsets).
            for (page, at) in (0u64..).zip(lmem.pages()) {
                let offset = page * lmtt::PAGE;
                let entry = lmtt::leaf_entry(at)?;
                // CAST: below 64K entries.
                let index = lmtt::leaf_index(offset)? as u64;
                mem.write32(leaf.start + index * lmtt::ENTRY_BYTES, entry)?;
                written += lmtt::ENTRY_BYTES;
            }
            let at = self.dir.start + u64::from(vf) * lmtt::ENTRY_BYTES;
            mem.write32(at, lmtt::dir_entry(leaf.start)?)?;
            written += lmtt::ENTRY_BYTES;
            Ok(())
        })();
        self.stats.lmtt_bytes.add(written, Relaxed);
        r
    }

    /// Sends VF `vf`'s configuration and checks the GuC applied all of it.
    fn push(&self, vf: u16, cfg: &VfConfig) -> Result<(), Step> {
        let mut buf = [0u32; MAX_DWORDS];
        let (len, klvs) = step("configuration", cfg.encode(&mut buf))?;
        self.send(vf, buf.get(..len).unwrap_or_default(), klvs)
    }

    /// Pushes the PF's own configuration (VF 0, [`encode_self`]) with scheduling `eq_ms` and
    /// `pt_us`: upstream's fair scheduling gives the PF the VFs' values while VFs run and 0
    /// (no limits) otherwise.
    fn push_self(&self, eq_ms: u32, pt_us: u32) -> Result<(), Step> {
        let mut buf = [0u32; SELF_DWORDS];
        let window = Range {
            start: crate::mem::ggtt::GUC_GGTT_BOTTOM,
            end: crate::mem::ggtt::GUC_GGTT_TOP,
        };
        let (len, klvs) = step(
            "PF configuration",
            encode_self(&mut buf, window, eq_ms, pt_us),
        )?;
        self.send(0, buf.get(..len).unwrap_or_default(), klvs)
    }

    /// Sends `klvs` KLVs (`list`) for function `vf` through the KLV page and checks the GuC
    /// applied each.
    fn send(&self, vf: u16, list: &[u32], klvs: u32) -> Result<(), Step> {
        let len = list.len();
        step(
            "KLV buffer",
            self.with_bars(|_, mem| {
                (0u64..)
                    .zip(list)
                    .try_for_each(|(i, dw)| mem.write32(self.klv.start + 4 * i, *dw))
            }),
        )?;
        // CAST: at most MAX_DWORDS.
        let msg = UpdateVfCfg {
            vf,
            addr: self.klv_map.addr(0),
            dwords: len as u32,
        };
        let reply = step("PF2GUC_UPDATE_VF_CFG", self.b.ct.request(self, &msg))?;
        if let Err(e) = applied(klvs, reply) {
            dev_err!(
                self.dev,
                "sriov: VF{}: the GuC applied {} of {} configuration KLVs\n",
                vf,
                reply,
                klvs
            );
            return Err(("PF2GUC_UPDATE_VF_CFG reply", e));
        }
        Ok(())
    }

    /// Invalidates the GuC's GGTT TLB after VF entries changed; failures are logged (the
    /// entries are right; only a stale translation could remain).
    fn invalidate(&self) {
        let r = self.with_bars(|bar, _| guc::invalidate_ggtt(&self.b.gt.view(&self.dev, bar)));
        if let Err(e) = r {
            dev_err!(
                self.dev,
                "sriov: GGTT invalidation failed: {}\n",
                e.to_errno()
            );
        }
    }

    /// Gives back every VF's share, the last VF first, if `owner` provisioned them (the PCI
    /// side may always: it disables the VFs first). Process context.
    ///
    /// # Errors
    ///
    /// `EBUSY` when the VFs are on the bus and `owner` is not the PCI side.
    pub(crate) fn unprovision(&self, owner: Owner) -> Result {
        let mark = self.mark();
        let vfs = self.unprovision_locked(owner)?;
        if vfs > 0 {
            self.record(&self.stats.unprovision, vfs, mark);
        }
        Ok(())
    }

    /// [`Pf::unprovision`] without the accounting: how many VFs it gave back.
    fn unprovision_locked(&self, owner: Owner) -> Result<u64> {
        let mut st = self.state.lock();
        if owner != Owner::Pci && st.owner == Some(Owner::Pci) {
            return Err(EBUSY);
        }
        // CAST: at most 63.
        let vfs = st.vfs.len() as u64;
        if !st.vfs.is_empty() {
            self.release_all(&mut st);
        }
        st.owner = None;
        Ok(vfs)
    }

    fn release_all(&self, st: &mut State) {
        self.num_vfs.store(0, Relaxed);
        while let Some(v) = st.vfs.pop() {
            // CAST: at most 63 VFs.
            let vf = (st.vfs.len() + 1) as u16;
            self.release(st, vf, v);
        }
        self.invalidate();
        // The PF alone again: no scheduling limits (upstream's `reprovision_default`).
        if let Err((what, e)) = self.push_self(0, 0) {
            dev_err!(
                self.dev,
                "sriov: restoring the PF's own configuration failed at {}: {}\n",
                what,
                e.to_errno()
            );
        }
    }

    /// Gives back what VF `vf` holds: the GuC forgets its configuration first, so nothing it
    /// schedules still refers to what is freed.
    fn release(&self, st: &mut State, vf: u16, v: Vf) {
        if v.pushed.is_some() {
            if let Err(e) = self.b.ct.request(self, &UpdateVfCfg::reset(vf)) {
                dev_err!(
                    self.dev,
                    "sriov: VF{}: resetting its configuration at the GuC failed: {}\n",
                    vf,
                    e.to_errno()
                );
            }
        }
        if let Some(leaf) = v.leaf {
            let at = self.dir.start + u64::from(vf) * lmtt::ENTRY_BYTES;
            if self.with_bars(|_, mem| mem.write32(at, 0)).is_ok() {
                self.stats.lmtt_bytes.add(lmtt::ENTRY_BYTES, Relaxed);
            }
            // The directory no longer points at it: back to the pool.
            drop(leaf);
        }
        // No leaf maps them any more: the pages back to the VFs' pool.
        drop(v.lmem);
        if let Some(r) = v.doorbells {
            let _ = st.doorbells.release(r.begin, r.count);
        }
        if let Some(r) = v.contexts {
            let _ = st.contexts.release(r.begin, r.count);
        }
        if let Some(g) = v.ggtt {
            let _ = self.with_bars(|bar, _| {
                self.b.ggtt.clear(bar, Mapping { ggtt: g });
                Ok(())
            });
            self.b.ggtt.release(g);
        }
    }

    /// Teardown ([`Handle`]'s drop): every VF given back, `LMEM_CFG` cleared, the PF's pages
    /// freed.
    fn fini(&self) {
        self.inbox.lock().closed = true;
        self.notified.notify_all();
        // SAFETY: `work` is this object's initialized work item; flushing waits for a run in
        // progress (it sees `closed` and stops) and nothing queues it again once closed.
        unsafe { kernel::bindings::flush_work(Work::raw_get(&self.work)) };
        // Without the accounting: nobody measures an unbind, and the reference copy would
        // allocate for nothing.
        let _ = self.unprovision_locked(Owner::Pci);
        self.state.lock().closed = true;
        let _ = self.with_bars(|bar, _| {
            let gt = self.b.gt.view(&self.dev, bar);
            let awake = gt.wake::<GtDomain>()?;
            gt.mcr
                .write_multicast(&gt, awake.guard(), LMEM_CFG::zeroed())?;
            self.b.ggtt.clear(bar, self.klv_map);
            Ok(())
        });
        self.b.ggtt.release(self.klv_map.ggtt);
        // The directory and the KLV page go back to the pool when the PF is dropped.
    }

    /// The debugfs `sriov` report: limits, then one line per provisioned VF.
    pub(crate) fn fmt(&self, f: &mut impl core::fmt::Write) -> core::fmt::Result {
        let st = self.state.lock();
        writeln!(
            f,
            "total_vfs: {}\nprovisioned: {}\nby: {}\nlmtt_dir: {:#x}\ncontexts_free: {}\n\
             doorbells_free: {}",
            self.total,
            st.vfs.len(),
            match st.owner {
                Some(Owner::Pci) => "sriov_numvfs",
                #[cfg(xehpg_test)]
                Some(Owner::Debugfs) => "debugfs",
                None => "-",
            },
            self.dir.start,
            st.contexts.total() - st.contexts.used(),
            st.doorbells.total() - st.doorbells.used()
        )?;
        writeln!(
            f,
            "flr_done: {}\nflr_failed: {}\nflr_bad_transitions: {}\nbad_notices: {}\n\
             adverse_events: {}",
            self.stats.flr_done.load(Relaxed),
            self.stats.flr_failed.load(Relaxed),
            self.stats.flr_bad_transitions.load(Relaxed),
            self.stats.bad_notices.load(Relaxed),
            self.stats.adverse_events.load(Relaxed)
        )?;
        self.stats.provision.fmt(f, "provision_last")?;
        self.stats.unprovision.fmt(f, "unprovision_last")?;
        // The maps (which function owns what; tools/sriov-map draws them): the GuC's GGTT
        // window and what is allocated in it (the PF's and the VFs' ranges), the CPU-visible
        // pool and what is allocated in it (the PF's objects, the LMTT directory and leaves),
        // the local memory VFs share and the usable top.
        fmt_window(
            f,
            "ggtt_window",
            Range {
                start: GUC_GGTT_BOTTOM,
                end: GUC_GGTT_TOP,
            },
        )?;
        write!(f, "ggtt_used:")?;
        self.b
            .ggtt
            .for_each_used(|r| write!(f, " {:#x}-{:#x}", r.start, r.end))?;
        writeln!(f)?;
        fmt_window(f, "lmem_pool", self.b.pool.window())?;
        write!(f, "lmem_pool_used:")?;
        self.b
            .pool
            .for_each_used(|r| write!(f, " {:#x}-{:#x}", r.start, r.end))?;
        writeln!(f)?;
        fmt_window(f, "lmem_vf", st.vf_lmem.window())?;
        writeln!(f, "lmem_usable: {:#x}", self.usable)?;
        for (i, v) in st.vfs.iter().enumerate() {
            let g = v.ggtt.unwrap_or(Range { start: 0, end: 0 });
            let c = v.contexts.unwrap_or_default();
            let d = v.doorbells.unwrap_or_default();
            let p = v.pushed.unwrap_or_default();
            let leaf = v
                .leaf
                .as_deref()
                .copied()
                .unwrap_or(Range { start: 0, end: 0 });
            write!(f, "vf{}: ggtt {:#x}-{:#x} lmem ", i + 1, g.start, g.end)?;
            // Its runs in address order, comma-separated (one run, or `0x0-0x0` for none).
            let none = [Range { start: 0, end: 0 }];
            let runs = v.lmem.as_ref().map_or(&none[..], Pages::runs);
            for (k, r) in runs.iter().enumerate() {
                let sep = if k == 0 { "" } else { "," };
                write!(f, "{}{:#x}-{:#x}", sep, r.start, r.end)?;
            }
            write!(
                f,
                " contexts {}+{} doorbells {}+{} pushed {} eq_ms {} pt_us {} priority {} flr {:?} \
                 leaf {:#x}-{:#x}",
                c.begin,
                c.count,
                d.begin,
                d.count,
                u8::from(v.pushed.is_some()),
                p.exec_quantum_ms,
                p.preempt_timeout_us,
                p.priority,
                v.flr,
                leaf.start,
                leaf.end
            )?;
            // Thresholds and the GuC's adverse-event counts, in THRESHOLDS' order.
            let adverse = self
                .inbox
                .lock()
                .adverse
                .get(i + 1)
                .copied()
                .unwrap_or_default();
            fmt_list(f, " thresholds", &p.thresholds)?;
            fmt_list(f, " adverse", &adverse)?;
            writeln!(f)?;
        }
        Ok(())
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

impl Pf {
    /// A G2H event for the PF: `GUC2PF_VF_STATE_NOTIFY` or `GUC2PF_ADVERSE_EVENT`; other
    /// events are not the PF's and are ignored. Receive path: no sleeping, no device access;
    /// the FLR itself runs in the work item. The GuC is untrusted: a notification for a VF
    /// that is not provisioned is refused and counted.
    pub(crate) fn guc_event(this: &Arc<Self>, dev: &Device, ev: &G2hEvent) {
        let (vf, event) = match *ev {
            G2hEvent::VfState { vf, event } => (vf, event),
            G2hEvent::Adverse { vf, key } => return this.adverse(dev, vf, key),
            _ => return,
        };
        // CAST: at most 63.
        match parse_state(vf, event, this.num_vfs.load(Relaxed) as u16) {
            Ok(Notice::Flr(vf)) => Self::post(this, vf, true),
            Ok(Notice::FlrDone(vf)) => Self::post(this, vf, false),
            Ok(_) => {}
            Err(bad) => this.refused(dev, "VF state notification", bad),
        }
    }

    /// A PF event too short to decode: refused and counted as [`BadNotice::Short`].
    /// Receive path.
    pub(crate) fn bad_event(&self, dev: &Device, bad: &BadEvent) {
        let what = match bad.kind {
            EventKind::Adverse => "adverse event",
            _ => "VF state notification",
        };
        self.refused(dev, what, BadNotice::Short(bad.len));
    }

    /// Counts and logs a GuC report refused (`what`: which kind). Receive path.
    fn refused(&self, dev: &Device, what: &str, bad: BadNotice) {
        self.stats.bad_notices.add(1, Relaxed);
        dev_err!(
            dev,
            "sriov: {} {:?} refused ({} VFs provisioned)\n",
            what,
            bad,
            self.num_vfs.load(Relaxed)
        );
    }

    /// A `GUC2PF_ADVERSE_EVENT`: VF `vf` went past a threshold the PF set. Counted per VF and
    /// threshold; logged at the 1st, 2nd, 4th, 8th... of a kind, since a misbehaving VF keeps
    /// the GuC reporting. Receive path: a spinlock, no sleeping.
    fn adverse(&self, dev: &Device, vf: u32, key: u32) {
        // CAST: at most 63.
        let (vf, i) = match parse_adverse(vf, key, self.num_vfs.load(Relaxed) as u16) {
            Ok(p) => p,
            Err(bad) => return self.refused(dev, "adverse event", bad),
        };
        self.stats.adverse_events.add(1, Relaxed);
        let count = {
            let mut ib = self.inbox.lock();
            match ib
                .adverse
                .get_mut(usize::from(vf))
                .and_then(|a| a.get_mut(i))
            {
                Some(c) => {
                    *c = c.saturating_add(1);
                    *c
                }
                None => 0,
            }
        };
        if count.is_power_of_two() {
            let name = THRESHOLDS.get(i).map_or("?", |t| t.1);
            dev_warn!(
                dev,
                "sriov: VF{}: past its {} threshold (the GuC's report {})\n",
                vf,
                name,
                count
            );
        }
    }

    /// Sets adverse-event threshold `idx` ([`THRESHOLDS`]) of provisioned VF `vf` to `value`
    /// (0: not reported) and pushes it to the GuC at once, as one KLV; it lasts until the VF
    /// is given back. Process context.
    ///
    /// # Errors
    ///
    /// `ENOENT` for a VF that is not provisioned, `EINVAL` for an unknown threshold, the
    /// GuC's refusal, `EIO` when it did not apply it.
    pub(crate) fn set_threshold(&self, vf: u16, idx: usize, value: u32) -> Result {
        let mut st = self.state.lock();
        let v = usize::from(vf)
            .checked_sub(1)
            .and_then(|i| st.vfs.get_mut(i))
            .ok_or(ENOENT)?;
        let cfg = v.pushed.as_mut().ok_or(ENOENT)?;
        let slot = cfg.thresholds.get_mut(idx).ok_or(EINVAL)?;
        let mut buf = [0u32; 2];
        let (len, klvs) = encode_threshold(&mut buf, idx, value)?;
        self.send(vf, buf.get(..len).unwrap_or_default(), klvs)
            .map_err(|(what, e)| {
                dev_err!(
                    self.dev,
                    "sriov: VF{}: setting a threshold failed at {}: {}\n",
                    vf,
                    what,
                    e.to_errno()
                );
                e
            })?;
        *slot = value;
        Ok(())
    }

    /// Records a notification for VF `vf` and wakes the FLR work.
    fn post(this: &Arc<Self>, vf: u16, flr: bool) {
        {
            let mut ib = this.inbox.lock();
            if ib.closed {
                return;
            }
            if flr {
                ib.flr |= 1 << vf;
            } else {
                ib.done |= 1 << vf;
            }
        }
        this.notified.notify_all();
        // Already queued: that run takes this notification too.
        let _ = workqueue::system().enqueue(this.clone());
    }

    /// The FLR work: every VF the GuC reported in FLR goes through the sequence; a
    /// `VF_FLR_DONE` nobody waits for is logged and dropped.
    fn run_flrs(&self) {
        loop {
            let flr = {
                let mut ib = self.inbox.lock();
                if ib.closed {
                    return;
                }
                core::mem::take(&mut ib.flr)
            };
            if flr == 0 {
                break;
            }
            for vf in 1..=crate::mem::ggtt::MAX_VFS {
                if flr & (1 << vf) != 0 {
                    self.flr(vf);
                }
            }
        }
        let stray = core::mem::take(&mut self.inbox.lock().done);
        if stray == 0 {
            return;
        }
        let mut st = self.state.lock();
        for vf in (1..=crate::mem::ggtt::MAX_VFS).filter(|vf| stray & (1 << vf) != 0) {
            dev_warn!(
                self.dev,
                "sriov: VF{}: VF_FLR_DONE without an FLR in progress; ignored\n",
                vf
            );
            match st.vfs.get_mut(usize::from(vf) - 1) {
                // Through the table: refused (and counted) unless the VF waits for it, which
                // only this work item's `flr` leaves it doing, and not across runs.
                Some(v) => {
                    if self
                        .flr_next(v, vf, FlrInput::GucDone, FlrAction::Clean)
                        .is_some()
                    {
                        // A waiter after all: the DONE is its.
                        self.inbox.lock().done |= 1 << vf;
                    }
                }
                None => {
                    self.stats.bad_notices.add(1, Relaxed);
                }
            }
        }
    }

    /// One VF's FLR (seed 000 lines 300-326; messages upstream's): `FLR_START`, the GuC's
    /// `VF_FLR_DONE` within [`FLR_WAIT_MS`], the PF's cleaning, `FLR_FINISH`. Process
    /// context (the work). The PF's mutex is dropped for the wait for the GuC's part
    /// (Documentation/architecture.rst, "Locks"), so provisioning, `sriov_admin`, debugfs and
    /// the GT reset's restart do not wait behind it; the VF is looked up again after it.
    fn flr(&self, vf: u16) {
        let mut st = self.state.lock();
        let Some(v) = st.vfs.get_mut(usize::from(vf) - 1) else {
            return;
        };
        // A DONE left from an earlier round must not end this one.
        self.inbox.lock().done &= !(1 << vf);
        let Some(next) = self.flr_next(v, vf, FlrInput::Started, FlrAction::SendStart) else {
            return;
        };
        v.flr = next;
        dev_info!(self.dev, "sriov: VF{}: FLR\n", vf);
        if let Err(e) = self.b.ct.request(
            self,
            &VfControl {
                vf,
                cmd: Command::FlrStart,
            },
        ) {
            self.flr_failed(v, vf, "FLR_START", e);
            return;
        }
        drop(st);
        let done = self.wait_done(vf);
        let mut st = self.state.lock();
        // Given back meanwhile (and perhaps provisioned again, which starts a VF `Idle`): its
        // FLR ended with it. Only this work item moves a VF to `WaitGuc`, and it runs one at a
        // time, so a VF still waiting is the one this round started.
        let Some(v) = st
            .vfs
            .get_mut(usize::from(vf) - 1)
            .filter(|v| v.flr == Flr::WaitGuc)
        else {
            dev_info!(
                self.dev,
                "sriov: VF{}: given back during its FLR; FLR dropped\n",
                vf
            );
            return;
        };
        if !done {
            let Some(next) = self.flr_next(v, vf, FlrInput::TimedOut, FlrAction::Report) else {
                return;
            };
            v.flr = next;
            self.stats.flr_failed.add(1, Relaxed);
            dev_err!(
                self.dev,
                "sriov: VF{}: FLR: no VF_FLR_DONE from the GuC within {} ms; the VF stays \
                 stopped until its next FLR\n",
                vf,
                FLR_WAIT_MS
            );
            return;
        }
        let Some(next) = self.flr_next(v, vf, FlrInput::GucDone, FlrAction::Clean) else {
            return;
        };
        v.flr = next;
        // The PF's part: the VF's GGTT entries stamped again, dropping the addresses it wrote
        // (upstream `pf_sanitize_ggtt`). TLB entries the VF used are invalidated below.
        if let Some(g) = v.ggtt {
            if let Err(e) = self.with_bars(|bar, _| self.b.ggtt.sanitize_vf(bar, g, vf)) {
                self.flr_failed(v, vf, "GGTT sanitize", e);
                return;
            }
        }
        // The VF's local memory back to zeros before it runs again (seed 000 lines 300-326:
        // an FLR clears the VF's state; upstream `xe_gt_sriov_pf_config_sanitize` clears it
        // with the copy engine).
        if let Some(Err(e)) = v.lmem.as_ref().map(|l| self.clear_lmem(vf, l)) {
            self.flr_failed(v, vf, "local memory clear", e);
            return;
        }
        // The VF's MMIO message registers, where its last exchange with the GuC may still sit:
        // the seed gives their reset to the hardware (seed 000 line 322, "Gunit resets
        // VF-dedicated MMIO registers"); upstream clears them anyway
        // (`xe_gt_sriov_pf.c` `pf_clear_vf_scratch_regs`), and so does this PF, so the next
        // owner never depends on that step. Always-on registers: no forcewake.
        if let Err(e) = self.with_bars(|bar, _| self.clear_vf_regs(bar, vf)) {
            self.flr_failed(v, vf, "VF registers", e);
            return;
        }
        // `Idle` only once the GuC took `FLR_FINISH`; if it refuses, the VF fails from
        // `Cleanup`.
        let Some(next) = self.flr_next(v, vf, FlrInput::Cleaned, FlrAction::SendFinish) else {
            return;
        };
        if let Err(e) = self.b.ct.request(
            self,
            &VfControl {
                vf,
                cmd: Command::FlrFinish,
            },
        ) {
            self.flr_failed(v, vf, "FLR_FINISH", e);
            return;
        }
        v.flr = next;
        drop(st);
        self.invalidate();
        self.stats.flr_done.add(1, Relaxed);
        dev_info!(self.dev, "sriov: VF{}: FLR complete\n", vf);
    }

    /// Sends `cmd` (pause, resume, stop) for provisioned VF `vf`. Process context.
    ///
    /// # Errors
    ///
    /// `ENOENT` for a VF that is not provisioned, the GuC's error (it refuses a command the
    /// VF's state does not allow).
    pub(crate) fn control(&self, vf: u16, cmd: Command) -> Result {
        let st = self.state.lock();
        if vf == 0 || usize::from(vf) > st.vfs.len() {
            return Err(ENOENT);
        }
        self.b.ct.request(self, &VfControl { vf, cmd })
    }

    /// Writes the value of `setting` for VF `vf` that the next enable applies (for the bulk
    /// profile, `vf` 0: VF1's, which a bulk write made everyone's).
    pub(crate) fn show(
        &self,
        vf: u16,
        setting: Setting,
        f: &mut impl core::fmt::Write,
    ) -> core::fmt::Result {
        let st = self.state.lock();
        let q = st
            .quotas
            .get(usize::from(vf.max(1)))
            .copied()
            .unwrap_or_default();
        match setting {
            Setting::ExecQuantumMs => {
                writeln!(f, "{}", q.exec_quantum_ms.unwrap_or(fair::EXEC_QUANTUM_MS))
            }
            Setting::PreemptTimeoutUs => {
                writeln!(
                    f,
                    "{}",
                    q.preempt_timeout_us.unwrap_or(fair::PREEMPT_TIMEOUT_US)
                )
            }
            Setting::SchedPriority => {
                let chosen = q.priority.unwrap_or(0) as usize;
                for (i, name) in PRIORITIES.iter().enumerate() {
                    let sep = if i == 0 { "" } else { " " };
                    if i == chosen {
                        write!(f, "{sep}[{name}]")?;
                    } else {
                        write!(f, "{sep}{name}")?;
                    }
                }
                writeln!(f)
            }
            // 0: the fair share of the next enable.
            Setting::VramQuota => writeln!(f, "{}", q.lmem.unwrap_or(0)),
        }
    }

    /// Sets `setting` of VF `vf` (0: every VF) from the text written to its file, for the
    /// next enable. Process context.
    ///
    /// # Errors
    ///
    /// `EBUSY` while VFs are provisioned (the settings are the next enable's), `ENOENT` for a
    /// VF beyond TotalVFs, `EINVAL` for text that is not a value, `ERANGE` for a value outside
    /// its key's range (seed 003) or, for local memory, beyond what VFs can share.
    pub(crate) fn set(&self, vf: u16, setting: Setting, text: &str) -> Result {
        let text = text.trim();
        let mut st = self.state.lock();
        if !st.vfs.is_empty() {
            return Err(EBUSY);
        }
        if vf > self.total {
            return Err(ENOENT);
        }
        let number = || text.parse::<u64>().map_err(|_| EINVAL);
        // Nothing is provisioned (checked above): all of the VFs' memory is free.
        let window = st.vf_lmem.avail();
        let apply: &dyn Fn(&mut Quota) = match setting {
            Setting::ExecQuantumMs => {
                let v = u32::try_from(number()?)
                    .ok()
                    .filter(|v| *v <= 100_000)
                    .ok_or(ERANGE)?;
                &move |q: &mut Quota| q.exec_quantum_ms = Some(v)
            }
            Setting::PreemptTimeoutUs => {
                let v = u32::try_from(number()?)
                    .ok()
                    .filter(|v| *v <= 100_000_000)
                    .ok_or(ERANGE)?;
                &move |q: &mut Quota| q.preempt_timeout_us = Some(v)
            }
            Setting::SchedPriority => {
                let i = PRIORITIES.iter().position(|p| *p == text).ok_or(EINVAL)?;
                // CAST: below 3.
                let v = i as u32;
                &move |q: &mut Quota| q.priority = Some(v)
            }
            Setting::VramQuota => {
                let v = number()?;
                if v % lmtt::PAGE != 0 {
                    return Err(EINVAL);
                }
                if v > window {
                    return Err(ERANGE);
                }
                let v = (v != 0).then_some(v);
                &move |q: &mut Quota| q.lmem = v
            }
        };
        let range = if vf == 0 {
            1..=usize::from(self.total)
        } else {
            usize::from(vf)..=usize::from(vf)
        };
        for q in st
            .quotas
            .iter_mut()
            .take(range.end() + 1)
            .skip(*range.start())
        {
            apply(q);
        }
        Ok(())
    }

    /// Waits for `VF_FLR_DONE` of `vf`; false on timeout or teardown.
    fn wait_done(&self, vf: u16) -> bool {
        let start = Instant::<Monotonic>::now();
        let mut ib = self.inbox.lock();
        loop {
            if ib.done & (1 << vf) != 0 {
                ib.done &= !(1 << vf);
                return true;
            }
            let left = FLR_WAIT_MS - start.elapsed().as_millis();
            if ib.closed || left <= 0 {
                return false;
            }
            // CAST: 1..=FLR_WAIT_MS.
            let _ = self
                .notified
                .wait_interruptible_timeout(&mut ib, msecs_to_jiffies(left as u32));
        }
    }

    /// The state `input` moves VF `vf`'s FLR to ([`Flr::on`]), if the table allows it and
    /// asks for `want`, the action the sequence takes next; the caller assigns it. Otherwise
    /// `None`: counted in `flr_bad_transitions`, logged, and the FLR goes no further. Any
    /// context but the top half (the PF's mutex held).
    fn flr_next(&self, v: &Vf, vf: u16, input: FlrInput, want: FlrAction) -> Option<Flr> {
        let res = v.flr.on(input);
        if let Ok((next, action)) = res {
            if action == want {
                return Some(next);
            }
        }
        self.stats.flr_bad_transitions.add(1, Relaxed);
        match res {
            Ok((_, action)) => dev_err!(
                self.dev,
                "sriov: VF{}: FLR: {:?} in state {:?} asks for {:?}, not {:?}; FLR not \
                 continued\n",
                vf,
                input,
                v.flr,
                action,
                want
            ),
            Err(_) => dev_err!(
                self.dev,
                "sriov: VF{}: FLR: {:?} is out of order in state {:?}; refused, FLR not \
                 continued\n",
                vf,
                input,
                v.flr
            ),
        }
        None
    }

    /// A step of VF `vf`'s FLR failed (`what`, `e`): the FLR ends `Failed` through the
    /// table's `StepFailed`, counted and logged. Process context (the PF's mutex held).
    fn flr_failed(&self, v: &mut Vf, vf: u16, what: &str, e: Error) {
        if let Some(next) = self.flr_next(v, vf, FlrInput::StepFailed, FlrAction::Report) {
            v.flr = next;
        }
        self.stats.flr_failed.add(1, Relaxed);
        dev_err!(
            self.dev,
            "sriov: VF{}: FLR failed at {}: {}\n",
            vf,
            what,
            e.to_errno()
        );
    }
}

/// A `name: START-END` line of debugfs `sriov`.
fn fmt_window(f: &mut impl core::fmt::Write, name: &str, r: Range) -> core::fmt::Result {
    writeln!(f, "{}: {:#x}-{:#x}", name, r.start, r.end)
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
        with_bars(&self.dev, &self.b.bar, &self.b.lmem, &self.b.gt, f)
    }
}
