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
//! Locking: the state is a mutex, held across the GuC messages (process context only; the
//! GuC's VF notifications never take it). BAR work runs inside the BARs' revocable access
//! and never sleeps there.

use kernel::{
    device::Device,
    new_condvar, new_mutex, new_spinlock,
    prelude::*,
    sync::{
        aref::ARef,
        atomic::{Atomic, Relaxed},
        Arc, CondVar, Mutex, SpinLock,
    },
    time::{msecs_to_jiffies, Instant, Monotonic},
    workqueue::{self, impl_has_work, new_work, Work, WorkItem},
};

use super::{
    config::{IdRun, VfConfig, MAX_DWORDS},
    control::{
        applied, control_msg, parse_state, update_cfg_msg, Command, Flr, FlrAction, FlrInput,
        Notice,
    },
    fair::{self, Profile},
    ids::{Ids, CONTEXTS, DOORBELLS},
    lmtt,
};
use crate::{
    abi::*,
    gt::{mcr::regs::LMEM_CFG, GtDomain, GtState},
    guc::{
        self,
        ct::channel::{with_bars, Channel, CtAccess, CtIo},
    },
    mem::{
        ggtt::{Ggtt, Mapping},
        lmem::{LmemAccess, LmemPool, Lmembar},
    },
    mmio::{Bar0, Gttmmadr},
    range::{Range, RangeAllocator},
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
    lmem: Option<Range>,
    leaf: Option<Range>,
    /// The GuC took the configuration (reset it when giving back).
    pushed: bool,
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

/// Who asked for the VFs provisioned now.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Owner {
    /// `sriov_numvfs`: the VFs exist on the bus; only disabling them gives the shares back.
    Pci,
    /// The debugfs `sriov` file: the provisioning layer alone, no VF on the bus (tests and
    /// measurements of up to 63 VFs where the bus cannot enumerate them).
    Debugfs,
}

struct State {
    /// VF `i + 1` is `vfs[i]`.
    vfs: KVec<Vf>,
    owner: Option<Owner>,
    /// Torn down ([`Pf::fini`]): the directory and the KLV page are gone, nothing may be
    /// provisioned any more (a debugfs write racing unbind).
    closed: bool,
    contexts: Ids,
    doorbells: Ids,
    /// Local memory the VFs share: beyond the CPU-visible pool.
    vf_lmem: RangeAllocator,
}

/// The GuC's VF notifications, from the receive path (which may not sleep) to the FLR work:
/// one bit per VF.
#[derive(Default)]
struct Inbox {
    flr: u64,
    done: u64,
    /// Torn down: nothing is queued any more.
    closed: bool,
}

/// Counters shown in debugfs.
struct Stats {
    flr_done: Atomic<u64>,
    flr_failed: Atomic<u64>,
    bad_notices: Atomic<u64>,
    adverse_events: Atomic<u64>,
}

/// The PF: up to `total` VFs.
#[pin_data]
pub(crate) struct Pf {
    dev: ARef<Device>,
    b: Blocks,
    total: u16,
    /// Usable local memory, for upstream's local-memory profile.
    usable: u64,
    /// The LMTT directory (CPU-visible local memory).
    dir: Range,
    /// A page of local memory mapped into the GGTT for the KLV lists.
    klv: Range,
    klv_map: Mapping,
    #[pin]
    state: Mutex<State>,
    /// VFs provisioned, for the receive path's checks (it may not take `state`).
    num_vfs: Atomic<u32>,
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
        let region = RangeAllocator::new(vf_lmem.start, vf_lmem.end)?;
        let dir = b.pool.alloc(lmtt::TABLE_ALIGN)?;
        let klv = match b.pool.alloc(ggtt_page()) {
            Ok(r) => r,
            Err(e) => {
                b.pool.free(dir);
                return Err(e);
            }
        };
        let setup = || -> Result<Mapping> {
            lmem.zero(dir.start, dir.size())?;
            let map = b.ggtt.map_lmem(bar, klv.start, ggtt_page())?;
            let gt = b.gt.view(&dev, bar);
            let awake = gt.wake::<GtDomain>()?;
            let cfg = LMEM_CFG::zeroed()
                .with_lmem_en(true)
                .try_with_dir_ptr(lmtt::dir_ptr(dir.start)?)
                .map_err(|_| EINVAL)?;
            gt.mcr.write_multicast(&gt, awake.guard(), cfg)?;
            guc::invalidate_ggtt(&gt)?;
            Ok(map)
        };
        let klv_map = match setup() {
            Ok(m) => m,
            Err(e) => {
                b.pool.free(klv);
                b.pool.free(dir);
                return Err(e);
            }
        };
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
                bad_notices: Atomic::new(0),
                adverse_events: Atomic::new(0),
            },
        }))
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
        let est_lmem = fair::lmem_estimate(st.vf_lmem.largest(lmtt::PAGE), 0, vfs);
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
        let result = self.share(&st, n).and_then(|share| {
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
            Err((_, e)) => {
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
        let lmem = step("local memory", st.vf_lmem.alloc(share.lmem, lmtt::PAGE))?;
        self.vf(st, idx)?.lmem = Some(lmem);
        // Nothing of a previous owner may reach the VF (seed 000 lines 300-326; upstream
        // clears a VF's new local memory): cleared before the GuC hears of it.
        self.clear_lmem(vf, lmem)
            .map_err(|e| ("local memory clear", e))?;
        let leaf = step("LMTT leaf", self.b.pool.alloc(lmtt::LEAF_BYTES))?;
        self.vf(st, idx)?.leaf = Some(leaf);
        step(
            "LMTT",
            self.with_bars(|_, mem| self.write_lmtt(mem, vf, leaf, lmem)),
        )?;
        let cfg = VfConfig {
            ggtt: Some(ggtt),
            lmem: lmem.size(),
            contexts,
            doorbells,
            exec_quantum_ms: fair::EXEC_QUANTUM_MS,
            preempt_timeout_us: fair::PREEMPT_TIMEOUT_US,
        };
        self.push(vf, &cfg)?;
        self.vf(st, idx)?.pushed = true;
        Ok(())
    }

    fn vf<'s>(&self, st: &'s mut State, idx: usize) -> Result<&'s mut Vf, Step> {
        st.vfs.get_mut(idx).ok_or(("bookkeeping", EINVAL))
    }

    /// Clears VF `vf`'s local memory `lmem` on the copy engine; the failed step is logged.
    fn clear_lmem(&self, vf: u16, lmem: Range) -> Result {
        self.b
            .submit
            .clear_lmem(&self.b.ct, lmem)
            .map(|_| ())
            .map_err(|(what, e)| {
                dev_err!(
                    self.dev,
                    "sriov: VF{}: clearing local memory {:#x}-{:#x} failed at {}: {}\n",
                    vf,
                    lmem.start,
                    lmem.end,
                    what,
                    e.to_errno()
                );
                e
            })
    }

    /// Fills VF `vf`'s leaf table (every entry of `lmem`, the rest invalid) and points its
    /// directory entry at it (seed 000 lines 380-392).
    fn write_lmtt(&self, mem: LmemAccess<'_>, vf: u16, leaf: Range, lmem: Range) -> Result {
        mem.zero(leaf.start, leaf.size())?;
        // The VF sees its memory from offset 0; page i of it is page i of `lmem`.
        for page in 0..lmem.size() / lmtt::PAGE {
            let offset = page * lmtt::PAGE;
            let entry = lmtt::leaf_entry(lmem.start + offset)?;
            // CAST: below 64K entries.
            let index = lmtt::leaf_index(offset)? as u64;
            mem.write32(leaf.start + index * lmtt::ENTRY_BYTES, entry)?;
        }
        let at = self.dir.start + u64::from(vf) * lmtt::ENTRY_BYTES;
        mem.write32(at, lmtt::dir_entry(leaf.start)?)
    }

    /// Sends VF `vf`'s configuration and checks the GuC applied all of it.
    fn push(&self, vf: u16, cfg: &VfConfig) -> Result<(), Step> {
        let mut buf = [0u32; MAX_DWORDS];
        let (len, klvs) = step("configuration", cfg.encode(&mut buf))?;
        step(
            "KLV buffer",
            self.with_bars(|_, mem| {
                (0u64..)
                    .zip(buf.iter().take(len))
                    .try_for_each(|(i, dw)| mem.write32(self.klv.start + 4 * i, *dw))
            }),
        )?;
        // CAST: at most MAX_DWORDS.
        let msg = update_cfg_msg(vf, self.klv_map.addr(0), len as u32);
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
        let mut st = self.state.lock();
        if owner != Owner::Pci && st.owner == Some(Owner::Pci) {
            return Err(EBUSY);
        }
        if !st.vfs.is_empty() {
            self.release_all(&mut st);
        }
        st.owner = None;
        Ok(())
    }

    fn release_all(&self, st: &mut State) {
        self.num_vfs.store(0, Relaxed);
        while let Some(v) = st.vfs.pop() {
            // CAST: at most 63 VFs.
            let vf = (st.vfs.len() + 1) as u16;
            self.release(st, vf, v);
        }
        self.invalidate();
    }

    /// Gives back what VF `vf` holds: the GuC forgets its configuration first, so nothing it
    /// schedules still refers to what is freed.
    fn release(&self, st: &mut State, vf: u16, v: Vf) {
        if v.pushed {
            if let Err(e) = self.b.ct.request(self, &update_cfg_msg(vf, 0, 0)) {
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
            let _ = self.with_bars(|_, mem| mem.write32(at, 0));
            self.b.pool.free(leaf);
        }
        if let Some(lmem) = v.lmem {
            let _ = st.vf_lmem.free(lmem);
        }
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

    /// Teardown at unbind: every VF given back, `LMEM_CFG` cleared, the PF's pages freed.
    pub(crate) fn fini(&self) {
        self.inbox.lock().closed = true;
        self.notified.notify_all();
        // SAFETY: `work` is this object's initialized work item; flushing waits for a run in
        // progress (it sees `closed` and stops) and nothing queues it again once closed.
        unsafe { kernel::bindings::flush_work(Work::raw_get(&self.work)) };
        let _ = self.unprovision(Owner::Pci);
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
        self.b.pool.free(self.klv);
        self.b.pool.free(self.dir);
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
                Some(Owner::Debugfs) => "debugfs",
                None => "-",
            },
            self.dir.start,
            st.contexts.total() - st.contexts.used(),
            st.doorbells.total() - st.doorbells.used()
        )?;
        writeln!(
            f,
            "flr_done: {}\nflr_failed: {}\nbad_notices: {}\nadverse_events: {}",
            self.stats.flr_done.load(Relaxed),
            self.stats.flr_failed.load(Relaxed),
            self.stats.bad_notices.load(Relaxed),
            self.stats.adverse_events.load(Relaxed)
        )?;
        for (i, v) in st.vfs.iter().enumerate() {
            let g = v.ggtt.unwrap_or(Range { start: 0, end: 0 });
            let l = v.lmem.unwrap_or(Range { start: 0, end: 0 });
            let c = v.contexts.unwrap_or_default();
            let d = v.doorbells.unwrap_or_default();
            writeln!(
                f,
                "vf{}: ggtt {:#x}-{:#x} lmem {:#x}-{:#x} contexts {}+{} doorbells {}+{} \
                 pushed {} flr {:?}",
                i + 1,
                g.start,
                g.end,
                l.start,
                l.end,
                c.begin,
                c.count,
                d.begin,
                d.count,
                u8::from(v.pushed),
                v.flr
            )?;
        }
        Ok(())
    }
}

impl Pf {
    /// A G2H event for the PF: `GUC2PF_VF_STATE_NOTIFY` or `GUC2PF_ADVERSE_EVENT`; false for
    /// any other action. Receive path: no sleeping, no device access; the FLR itself runs in
    /// the work item. The GuC is untrusted: a notification for a VF that is not provisioned
    /// is refused and counted.
    pub(crate) fn guc_event(this: &Arc<Self>, dev: &Device, action: u32, payload: &[u32]) -> bool {
        match action {
            XEHPG_GUC_ACTION_GUC2PF_VF_STATE_NOTIFY => {}
            XEHPG_GUC_ACTION_GUC2PF_ADVERSE_EVENT => {
                this.stats.adverse_events.add(1, Relaxed);
                let (vf, key) = (payload.first(), payload.get(1));
                dev_warn!(
                    dev,
                    "sriov: the GuC reports an adverse event of VF{} (threshold {:#06x})\n",
                    vf.copied().unwrap_or(0),
                    key.copied().unwrap_or(0)
                );
                return true;
            }
            _ => return false,
        }
        // CAST: at most 63.
        match parse_state(payload, this.num_vfs.load(Relaxed) as u16) {
            Ok(Notice::Flr(vf)) => Self::post(this, vf, true),
            Ok(Notice::FlrDone(vf)) => Self::post(this, vf, false),
            Ok(_) => {}
            Err(bad) => {
                this.stats.bad_notices.add(1, Relaxed);
                dev_err!(
                    dev,
                    "sriov: VF state notification {:?} refused ({} VFs provisioned)\n",
                    bad,
                    this.num_vfs.load(Relaxed)
                );
            }
        }
        true
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
        for vf in (1..=crate::mem::ggtt::MAX_VFS).filter(|vf| stray & (1 << vf) != 0) {
            dev_warn!(
                self.dev,
                "sriov: VF{}: VF_FLR_DONE without an FLR in progress; ignored\n",
                vf
            );
            self.stats.bad_notices.add(1, Relaxed);
        }
    }

    /// One VF's FLR (seed 000 lines 300-326; messages upstream's): `FLR_START`, the GuC's
    /// `VF_FLR_DONE` within [`FLR_WAIT_MS`], the PF's cleaning, `FLR_FINISH`. Process
    /// context (the work).
    fn flr(&self, vf: u16) {
        let mut st = self.state.lock();
        let Some(v) = st.vfs.get_mut(usize::from(vf) - 1) else {
            return;
        };
        // A DONE left from an earlier round must not end this one.
        self.inbox.lock().done &= !(1 << vf);
        let Ok((next, _)) = v.flr.on(FlrInput::Started) else {
            return;
        };
        v.flr = next;
        dev_info!(self.dev, "sriov: VF{}: FLR\n", vf);
        if let Err(e) = self.b.ct.request(self, &control_msg(vf, Command::FlrStart)) {
            self.flr_failed(v, vf, "FLR_START", e);
            return;
        }
        if !self.wait_done(vf) {
            if let Ok((next, FlrAction::Report)) = v.flr.on(FlrInput::TimedOut) {
                v.flr = next;
            }
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
        if let Ok((next, FlrAction::Clean)) = v.flr.on(FlrInput::GucDone) {
            v.flr = next;
        }
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
        if let Some(l) = v.lmem {
            if let Err(e) = self.clear_lmem(vf, l) {
                self.flr_failed(v, vf, "local memory clear", e);
                return;
            }
        }
        if let Ok((next, _)) = v.flr.on(FlrInput::Cleaned) {
            v.flr = next;
        }
        if let Err(e) = self
            .b
            .ct
            .request(self, &control_msg(vf, Command::FlrFinish))
        {
            self.flr_failed(v, vf, "FLR_FINISH", e);
            return;
        }
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
        self.b.ct.request(self, &control_msg(vf, cmd)).map(|_| ())
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

    fn flr_failed(&self, v: &mut Vf, vf: u16, what: &str, e: Error) {
        v.flr = Flr::Failed;
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
