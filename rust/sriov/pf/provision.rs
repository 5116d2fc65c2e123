// SPDX-License-Identifier: GPL-2.0

//! Provisioning: giving `n` VFs their shares and telling the GuC, giving them back, and
//! pushing the configurations again after a GT reset.
//!
//! Each VF gets, in this order (upstream's, `xe_gt_sriov_pf_config.c`): a GGTT range from the
//! top of the GuC's window with every entry stamped with the VF ([`Ggtt::reserve_vf`]), a run
//! of context IDs from the top and of doorbells from the bottom ([`Ids`]), local memory beyond
//! the CPU-visible part behind its own LMTT leaf table, and the scheduling upstream uses once
//! VFs run; then its configuration goes to the GuC in one `PF2GUC_UPDATE_VF_CFG`, whose reply
//! must count every KLV. A failure at any step for any VF unwinds every VF, so nothing stays
//! half-provisioned. Giving back resets each VF's configuration at the GuC first, then frees
//! what it held (upstream's `reprovision_default` for the PF's own configuration). After a GT
//! reset, [`Pf::restart`] does upstream `xe_gt.c` `do_gt_restart`'s part: `xe_lmtt_init_hw`
//! and `xe_gt_sriov_pf_restart`. The LMTT is filled as `xe_lmtt.c` `lmtt_insert_bo` does, and
//! a share's local memory is what is free, as `pf_query_max_lmem`.
//!
//! [`Ggtt::reserve_vf`]: crate::mem::ggtt::Ggtt::reserve_vf
//! [`Ids`]: crate::sriov::ids::Ids

use kernel::{
    prelude::*,
    sync::{atomic::Relaxed, MutexGuard},
};

use super::{
    super::{
        config::{encode_self, IdRun, VfConfig, MAX_DWORDS, SELF_DWORDS, THRESHOLDS},
        control::applied,
        fair::{self, Profile},
        lmtt,
    },
    step, Owner, Pf, State, Step, Vf,
};
use crate::{
    gt::{GtDomain, LMEM_CFG},
    guc::UpdateVfCfg,
    mem::{
        ggtt::Mapping,
        lmem::{LmemAccess, Pages},
    },
    range::Range,
    trace,
};

/// One VF's share, the same for each of the `n`.
#[derive(Copy, Clone, Debug)]
struct Share {
    ggtt: u64,
    lmem: u64,
    contexts: u32,
    doorbells: u32,
}

impl Pf {
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
                let gt = self.b.hw.gt().view(&self.dev, bar);
                let awake = gt.wake::<GtDomain>()?;
                let cfg = LMEM_CFG::zeroed()
                    .with_lmem_en(true)
                    .try_with_lmtt_dir_ptr(lmtt::dir_ptr(self.dir.start)?)
                    .map_err(|_| EINVAL)?;
                gt.mcr.write_multicast(&gt, awake.guard(), cfg)
            }),
        )
        .and_then(|()| {
            // Upstream's `pf_reprovision_sched_if_idle`: only a policy that is set.
            if st.sched_if_idle {
                self.push_policy(true)?;
            }
            // The PF's own configuration when VFs run or the administrator changed it.
            let q = st.quotas.first().copied().unwrap_or_default();
            let custom = q.exec_quantum_ms.is_some()
                || q.preempt_timeout_us.is_some()
                || q.priority.is_some();
            if st.vfs.is_empty() && !custom {
                return Ok(());
            }
            self.push_self(&st, !st.vfs.is_empty())?;
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

    /// Each VF's share for `n` VFs: upstream's fair rule, logged when it falls short of the
    /// profile.
    fn share(&self, st: &State, n: u16) -> Result<Share, Step> {
        let p = step("profile", Profile::new(n.into()))?;
        let vfs = u32::from(n);
        let est_ggtt = fair::ggtt_estimate(self.b.hw.ggtt().largest_hole(), vfs);
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
        let clear_gsm = self.provision_locked(n, owner)?;
        self.record(&self.stats.provision, n.into(), mark, clear_gsm);
        Ok(())
    }

    /// [`Pf::provision`] without the accounting but for the clears' GSM writes, which it
    /// returns. In three phases: every VF's share taken and recorded under the PF's mutex;
    /// their local memory cleared with the mutex dropped, each VF marked `cleaning` so that
    /// nothing gives it back meanwhile ([`Pf::settle`]); then, under the mutex again, each VF's
    /// LMTT written and its configuration pushed. Between the first and the last phase a second
    /// provisioning finds VFs and is refused, and the GuC has heard of none of them.
    fn provision_locked(&self, n: u16, owner: Owner) -> Result<u64> {
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
        let taken = self
            .push_self(&st, true)
            .and_then(|()| self.share(&st, n))
            .and_then(|share| {
                (1..=n).try_for_each(|vf| {
                    step(
                        "bookkeeping",
                        st.vfs.push(Vf::default(), GFP_KERNEL).map_err(Error::from),
                    )?;
                    self.vf_failed(vf, self.take_share(&mut st, vf, share))?;
                    trace::vf_provision(&self.dev, vf, "share");
                    Ok(())
                })
            })
            .and_then(|()| self.mark_cleaning(&mut st));
        // GSM writes of the clears: BAR 0's counter around them (no other provisioning runs
        // meanwhile; another GGTT user would be counted, as in the total).
        let mut clear_gsm = 0;
        let result = match taken {
            Ok(runs) => {
                drop(st);
                // Nothing of a previous owner may reach a VF (seed 000 lines 300-326; upstream
                // clears a VF's new local memory): cleared before the GuC hears of it.
                let gsm = self.b.hw.bar().gsm_writes();
                let cleared = runs
                    .iter()
                    .try_for_each(|(vf, run)| self.clear_run(*vf, *run))
                    .map_err(|e| ("local memory clear", e));
                clear_gsm = self.b.hw.bar().gsm_writes().wrapping_sub(gsm);
                st = self.state.lock();
                self.end_cleaning(&mut st);
                if cleared.is_ok() {
                    (1..=n).for_each(|vf| trace::vf_provision(&self.dev, vf, "cleared"));
                }
                cleared.and_then(|()| {
                    if st.closed {
                        return Err(("teardown", ENODEV));
                    }
                    (1..=n).try_for_each(|vf| self.vf_failed(vf, self.finish_one(&mut st, vf)))
                })
            }
            Err(e) => Err(e),
        };
        self.invalidate();
        match result {
            Ok(()) => {
                st.owner = Some(owner);
                self.num_vfs.store(n.into(), Relaxed);
                dev_info!(self.dev, "sriov: {} VF(s) provisioned\n", n);
                Ok(clear_gsm)
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

    /// Logs VF `vf`'s failed provisioning step, if `r` is one.
    fn vf_failed(&self, vf: u16, r: Result<(), Step>) -> Result<(), Step> {
        r.map_err(|(what, e)| {
            dev_err!(
                self.dev,
                "sriov: VF{}: provisioning failed at {}: {}\n",
                vf,
                what,
                e.to_errno()
            );
            (what, e)
        })
    }

    /// Takes VF `vf`'s share: GGTT range (entries stamped), contexts, doorbells and local
    /// memory, each recorded in `st.vfs[vf - 1]` as soon as taken.
    fn take_share(&self, st: &mut State, vf: u16, share: Share) -> Result<(), Step> {
        let idx = usize::from(vf) - 1;
        let ggtt = step("GGTT", self.b.hw.ggtt().reserve_vf(share.ggtt))?;
        self.vf(st, idx)?.ggtt = Some(ggtt);
        step(
            "GGTT entries",
            self.with_bars(|bar, _| self.b.hw.ggtt().sanitize_vf(bar, ggtt, vf)),
        )?;
        let begin = step("contexts", st.contexts.reserve_high(share.contexts, 0))?;
        self.vf(st, idx)?.contexts = Some(IdRun {
            begin,
            count: share.contexts,
        });
        if share.doorbells > 0 {
            let begin = step("doorbells", st.doorbells.reserve_low(share.doorbells, 0))?;
            self.vf(st, idx)?.doorbells = Some(IdRun {
                begin,
                count: share.doorbells,
            });
        }
        let q = st.quotas.get(usize::from(vf)).copied().unwrap_or_default();
        let lmem = step(
            "local memory",
            st.vf_lmem.alloc(q.lmem.unwrap_or(share.lmem)),
        )?;
        trace::dyn_dbg!(
            self.dev,
            "sriov: VF{}: share taken: GGTT {:#x}, {} contexts from {}, {} doorbells, \
             {:#x} bytes of local memory\n",
            vf,
            share.ggtt,
            share.contexts,
            begin,
            share.doorbells,
            lmem.size()
        );
        self.vf(st, idx)?.lmem = Some(lmem);
        Ok(())
    }

    /// Marks every VF in `st` `cleaning` and lists the runs of local memory to clear, VF by
    /// VF; the list is allocated before any mark is set.
    fn mark_cleaning(&self, st: &mut State) -> Result<KVec<(u16, Range)>, Step> {
        let count = st
            .vfs
            .iter()
            .map(|v| v.lmem.as_ref().map_or(0, |l| l.runs().len()))
            .sum();
        let mut runs = step(
            "bookkeeping",
            KVec::with_capacity(count, GFP_KERNEL).map_err(Error::from),
        )?;
        for (vf, v) in (1u16..).zip(st.vfs.iter_mut()) {
            for run in v.lmem.as_ref().map_or(&[][..], |l| l.runs()) {
                step(
                    "bookkeeping",
                    runs.push((vf, *run), GFP_KERNEL).map_err(Error::from),
                )?;
            }
            v.cleaning = true;
        }
        Ok(runs)
    }

    /// Writes VF `vf`'s LMTT leaf over its (cleared) local memory and pushes its
    /// configuration to the GuC, recording each as done.
    fn finish_one(&self, st: &mut State, vf: u16) -> Result<(), Step> {
        let idx = usize::from(vf) - 1;
        let q = st.quotas.get(usize::from(vf)).copied().unwrap_or_default();
        let leaf = step("LMTT leaf", self.b.hw.pool().alloc(lmtt::LEAF_BYTES))?;
        let table = *leaf;
        let v = self.vf(st, idx)?;
        v.leaf = Some(leaf);
        let pages = v.lmem.as_ref().ok_or(("bookkeeping", EINVAL))?;
        step(
            "LMTT",
            self.with_bars(|_, mem| self.write_lmtt(mem, vf, table, pages)),
        )?;
        // No cached translation of the VF's old entries may outlive them (upstream
        // `pf_update_vf_lmtt`), before the GuC lets the VF run.
        self.invalidate_lmtt(vf, "its leaf was written");
        trace::vf_provision(&self.dev, vf, "lmtt");
        let cfg = VfConfig {
            ggtt: Some(v.ggtt.ok_or(("bookkeeping", EINVAL))?),
            lmem: pages.size(),
            contexts: v.contexts.ok_or(("bookkeeping", EINVAL))?,
            // None when the share has no doorbells.
            doorbells: v.doorbells.unwrap_or_default(),
            exec_quantum_ms: q.exec_quantum_ms.unwrap_or(fair::EXEC_QUANTUM_MS),
            preempt_timeout_us: q.preempt_timeout_us.unwrap_or(fair::PREEMPT_TIMEOUT_US),
            // Not reported until set (debugfs `vfN threshold`), as upstream.
            thresholds: [0; THRESHOLDS.len()],
        };
        self.push(vf, &cfg)?;
        self.vf(st, idx)?.pushed = Some(cfg);
        trace::vf_provision(&self.dev, vf, "configured");
        Ok(())
    }

    fn vf<'s>(&self, st: &'s mut State, idx: usize) -> Result<&'s mut Vf, Step> {
        st.vfs.get_mut(idx).ok_or(("bookkeeping", EINVAL))
    }

    /// Clears run `run` of VF `vf`'s local memory on the copy engine; a failure is logged
    /// with its step. Process context, the PF's mutex not held (the VF is marked `cleaning`).
    pub(super) fn clear_run(&self, vf: u16, run: Range) -> Result {
        self.b
            .submit
            .clear_lmem(&self.b.ct, run)
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
    }

    /// Fills VF `vf`'s leaf table (every entry of `lmem`, the rest invalid) and points its
    /// directory entry at it (seed 000 lines 380-392).
    pub(super) fn write_lmtt(
        &self,
        mem: LmemAccess<'_>,
        vf: u16,
        leaf: Range,
        lmem: &Pages,
    ) -> Result {
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

    /// Pushes the PF's own configuration (VF 0, [`encode_self`]) with its scheduling
    /// ([`State::pf_sched`]: the administrator's, else the VFs' values while `running` and no
    /// limits otherwise) and the priority the administrator chose for it, if any.
    fn push_self(&self, st: &State, running: bool) -> Result<(), Step> {
        let (eq_ms, pt_us) = st.pf_sched(running);
        let mut buf = [0u32; SELF_DWORDS];
        let window = Range {
            start: crate::mem::ggtt::GUC_GGTT_BOTTOM,
            end: crate::mem::ggtt::GUC_GGTT_TOP,
        };
        let (len, klvs) = step(
            "PF configuration",
            encode_self(&mut buf, window, eq_ms, pt_us, st.pf_priority()),
        )?;
        self.send(0, buf.get(..len).unwrap_or_default(), klvs)
    }

    /// Sends `klvs` KLVs (`list`) for function `vf` through the KLV page and checks the GuC
    /// applied each.
    pub(super) fn send(&self, vf: u16, list: &[u32], klvs: u32) -> Result<(), Step> {
        let len = list.len();
        step("KLV buffer", self.write_klvs(list))?;
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

    /// Writes `list` to the KLV page, which the GuC reads through the GGTT.
    pub(super) fn write_klvs(&self, list: &[u32]) -> Result {
        self.with_bars(|_, mem| {
            (0u64..)
                .zip(list)
                .try_for_each(|(i, dw)| mem.write32(self.klv.start + 4 * i, *dw))
        })
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
            // Giving back clears no local memory (`release` only frees it): no clear bytes.
            self.record(&self.stats.unprovision, vfs, mark, 0);
        }
        Ok(())
    }

    /// [`Pf::unprovision`] without the accounting: how many VFs it gave back.
    pub(super) fn unprovision_locked(&self, owner: Owner) -> Result<u64> {
        let mut st = self.state.lock();
        // A provisioning mid-clear finishes first; then the owner is known.
        self.settle(&mut st);
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

    fn release_all(&self, st: &mut MutexGuard<'_, State>) {
        self.settle(st);
        self.num_vfs.store(0, Relaxed);
        while let Some(v) = st.vfs.pop() {
            // CAST: at most 63 VFs.
            let vf = (st.vfs.len() + 1) as u16;
            self.release(st, vf, v);
        }
        self.invalidate();
        // The PF alone again: no scheduling limits but the administrator's (upstream's
        // `reprovision_default`).
        if let Err((what, e)) = self.push_self(st, false) {
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
        trace::dyn_dbg!(self.dev, "sriov: VF{}: giving its share back\n", vf);
        self.forget_relays(vf);
        if v.pushed.is_some() {
            match self.b.ct.request(self, &UpdateVfCfg::reset(vf)) {
                Ok(_) => trace::vf_provision(&self.dev, vf, "unconfigured"),
                Err(e) => dev_err!(
                    self.dev,
                    "sriov: VF{}: resetting its configuration at the GuC failed: {}\n",
                    vf,
                    e.to_errno()
                ),
            }
        }
        if let Some(leaf) = v.leaf {
            let at = self.dir.start + u64::from(vf) * lmtt::ENTRY_BYTES;
            if self.with_bars(|_, mem| mem.write32(at, 0)).is_ok() {
                self.stats.lmtt_bytes.add(lmtt::ENTRY_BYTES, Relaxed);
            }
            // Nothing may translate through the leaf once its pages are someone else's
            // (upstream `xe_lmtt_drop_pages`).
            self.invalidate_lmtt(vf, "its leaf was dropped");
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
                self.b.hw.ggtt().clear(bar, Mapping { ggtt: g });
                Ok(())
            });
            self.b.hw.ggtt().release(g);
        }
        trace::vf_provision(&self.dev, vf, "released");
    }
}
