// SPDX-License-Identifier: GPL-2.0

//! The LMTT's translations, invalidated after every change: the hardware caches them, so a
//! VF whose leaf was written, or whose directory entry was cleared, could otherwise still
//! reach its old pages. Upstream sends `TLB_INVALIDATION_ALL` after populating a VF's leaf
//! (`xe_gt_sriov_pf_config.c` `pf_update_vf_lmtt` → `pf_force_lmtt_invalidate`) and after
//! dropping it (`xe_lmtt.c` `xe_lmtt_drop_pages` → `lmtt_invalidate_hw`), and waits for the
//! GuC's `TLB_INVALIDATION_DONE`; so does this PF, with the VFs' pages handed on only after
//! the wait.
//!
//! Every LMTT change happens with the PF's mutex held, so one invalidation at a time is in
//! flight: the inbox keeps the seqno waited for and the last one done. A DONE the PF did not
//! wait for comes from an untrusted GuC: refused and counted.

use kernel::{
    device::Device,
    prelude::*,
    sync::atomic::Relaxed,
    time::{msecs_to_jiffies, Instant, Monotonic},
};

use super::Pf;
use crate::guc::{CtAccess, TlbInvalidationAll};

/// How long the GuC gets for an invalidation (upstream's TLB timeout is of this order,
/// `xe_tlb_inval.c` `xe_tlb_inval_timeout_delay`; a healthy GuC answers in microseconds).
const WAIT_MS: i64 = 1000;

/// Upstream's seqnos run from 1 below `TLB_INVALIDATION_SEQNO_MAX`, which means "no DONE"
/// (`xe_tlb_inval_types.h`).
const SEQNO_MAX: u32 = 0x10_0000;

impl Pf {
    /// Invalidates the LMTT's cached translations and waits for the GuC to report it done;
    /// `vf` and `why` name the change for the log. A failure is logged and counted
    /// (`lmtt_inval_failed`): the entries are right, only stale translations could remain.
    /// Process context with the PF's mutex held (every LMTT change holds it); sleeps.
    pub(super) fn invalidate_lmtt(&self, vf: u16, why: &str) {
        let seqno = {
            let mut ib = self.inbox.lock();
            let next = (ib.tlb_waiting % (SEQNO_MAX - 1)) + 1;
            ib.tlb_waiting = next;
            next
        };
        let sent = self
            .with_io(|io| self.b.ct.send_fast(io, &TlbInvalidationAll { seqno }))
            .unwrap_or(Err(ENODEV));
        let result = sent.and_then(|()| self.wait_tlb(seqno));
        match result {
            Ok(()) => {
                self.stats.lmtt_invalidations.add(1, Relaxed);
            }
            Err(e) => {
                self.stats.lmtt_inval_failed.add(1, Relaxed);
                dev_err!(
                    self.dev,
                    "sriov: VF{}: LMTT invalidation after {} (seqno {}) failed: {}\n",
                    vf,
                    why,
                    seqno,
                    e.to_errno()
                );
            }
        }
    }

    /// Waits for `TLB_INVALIDATION_DONE` {`seqno`}. Process context; sleeps.
    ///
    /// # Errors
    ///
    /// `ETIMEDOUT` after [`WAIT_MS`], or at once while the GuC is stuck (it let the last
    /// invalidation time out and has reported none done since).
    fn wait_tlb(&self, seqno: u32) -> Result {
        let start = Instant::<Monotonic>::now();
        let mut ib = self.inbox.lock();
        loop {
            if ib.tlb_done == seqno {
                return Ok(());
            }
            let left = WAIT_MS - start.elapsed().as_millis();
            // A GuC that let the last one time out is not waited for again until it reports
            // one done: giving back 63 VFs must not take a minute on a dead GuC.
            if left <= 0 || ib.tlb_stuck {
                ib.tlb_stuck = true;
                return Err(ETIMEDOUT);
            }
            // CAST: 1..=WAIT_MS.
            let _ = self
                .notified
                .wait_interruptible_timeout(&mut ib, msecs_to_jiffies(left as u32));
        }
    }

    /// A `TLB_INVALIDATION_DONE` {`seqno`}: the invalidation waited for is done; any other
    /// seqno is refused and counted. Receive path: a spinlock, no sleeping.
    pub(super) fn tlb_done(&self, dev: &Device, seqno: u32) {
        let expected = {
            let mut ib = self.inbox.lock();
            if seqno == ib.tlb_waiting && seqno != 0 {
                ib.tlb_done = seqno;
                ib.tlb_stuck = false;
                None
            } else {
                Some(ib.tlb_waiting)
            }
        };
        match expected {
            None => self.notified.notify_all(),
            Some(w) => {
                self.stats.bad_notices.add(1, Relaxed);
                dev_err!(
                    dev,
                    "sriov: TLB_INVALIDATION_DONE for seqno {} refused (waiting for {})\n",
                    seqno,
                    w
                );
            }
        }
    }
}
