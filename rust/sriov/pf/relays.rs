// SPDX-License-Identifier: GPL-2.0

//! The relay service's PF side: a VF driver's relay messages, from the receive path to the
//! work item that answers them (upstream `xe_guc_relay.c`: `xe_guc_relay_process_guc2pf`
//! checks and queues, `relay_process_incoming_action` answers from a worker with a blocking
//! `PF2GUC_RELAY_TO_VF`).
//!
//! VFs are untrusted, and so is the GuC that forwards their messages:
//!
//! - The receive path ([`Pf::relay_from_vf`]) checks the event (DATA0 MBZ, a VF that is
//!   provisioned) and keeps one request per VF in its [`RelaySlot`]; nothing is allocated.
//!   A VF that sends again before its request was answered is flooding: up to [`BUSY_MAX`]
//!   of those requests are remembered and refused, any more dropped; all are counted.
//! - The work item ([`Pf::serve_relays`]) answers each request through
//!   [`relay::serve`], under the inbox spinlock (it neither
//!   sleeps nor allocates), and sends the answer with the lock dropped. A refusal is answered
//!   with an undisclosed relay error, as upstream's production build does.
//! - Every refusal, drop and failed send is counted (debugfs `sriov`, `relay_*`) and logged
//!   at the 1st, 2nd, 4th, 8th... of its kind, so a VF cannot flood the log.
//! - A VF's slot is emptied, and its agreed version forgotten, at its FLR and when it is given
//!   back ([`Pf::forget_relays`]; upstream `xe_gt_sriov_pf_service_reset`).

use kernel::{
    device::Device,
    prelude::*,
    sync::{
        atomic::{Atomic, Relaxed},
        Arc,
    },
    workqueue,
};

use super::{
    super::relay::{self, Answer, Refusal, Version},
    Pf,
};
use crate::{
    guc::{RelayMsg, RelayToVf, RELAY_REPLY_MAX},
    mem::ggtt::MAX_VFS,
};

/// Requests of a flooding VF remembered, to be refused; more are dropped unanswered.
pub(super) const BUSY_MAX: usize = 4;

/// One VF's relay, in the inbox: the request the work item has still to answer, the relay IDs
/// of the requests that came while it waited, and the version the VF agreed on.
#[derive(Copy, Clone)]
pub(super) struct RelaySlot {
    pending: Option<(u32, RelayMsg)>,
    busy: [u32; BUSY_MAX],
    busy_len: usize,
    agreed: Option<Version>,
}

impl RelaySlot {
    /// Nothing queued, no version agreed.
    pub(super) const EMPTY: Self = Self {
        pending: None,
        busy: [0; BUSY_MAX],
        busy_len: 0,
        agreed: None,
    };

    /// The agreed version, for the report.
    pub(super) fn agreed(&self) -> Option<Version> {
        self.agreed
    }
}

/// The relay's counters (debugfs `sriov`).
pub(super) struct RelayStats {
    /// Requests answered with a success.
    pub(super) served: Atomic<u64>,
    /// Requests answered with a relay error: the service refused them.
    pub(super) refused: Atomic<u64>,
    /// Requests answered with a relay error because the VF's previous one was still waiting.
    pub(super) busy: Atomic<u64>,
    /// Messages left unanswered: not requests ([`Answer::Drop`]), or a flood past
    /// [`BUSY_MAX`].
    pub(super) dropped: Atomic<u64>,
    /// `GUC2PF_RELAY_FROM_VF` events refused: too short, DATA0 set, a VF not provisioned.
    pub(super) bad: Atomic<u64>,
    /// Answers the GuC did not take.
    pub(super) send_failed: Atomic<u64>,
}

impl RelayStats {
    pub(super) const fn new() -> Self {
        Self {
            served: Atomic::new(0),
            refused: Atomic::new(0),
            busy: Atomic::new(0),
            dropped: Atomic::new(0),
            bad: Atomic::new(0),
            send_failed: Atomic::new(0),
        }
    }
}

/// Counts one more in `c`; true when that count should be logged (1, 2, 4, 8...).
fn count_and_log(c: &Atomic<u64>) -> bool {
    c.fetch_add(1, Relaxed).wrapping_add(1).is_power_of_two()
}

/// What the work item does for one VF's slot.
enum Job {
    /// Send `out[..n]` (an answer) or a relay error to relay `rid`.
    Answer {
        rid: u32,
        answer: Answer,
        out: [u32; RELAY_REPLY_MAX],
        /// The request's first dword, for the log.
        head: u32,
    },
    /// Refuse relay `rid`: the VF sent it while its previous request waited.
    Busy(u32),
}

impl Pf {
    /// A `GUC2PF_RELAY_FROM_VF` {`vf`, `rid`, `msg`} with header DATA0 `data0`. Receive path:
    /// a spinlock, no sleeping, no allocation.
    pub(super) fn relay_from_vf(
        this: &Arc<Self>,
        dev: &Device,
        vf: u32,
        rid: u32,
        data0: u32,
        msg: &RelayMsg,
    ) {
        // Upstream `xe_guc_relay_process_guc2pf`: DATA0 is MBZ, and the origin a VF.
        let why = if data0 != 0 {
            Some("DATA0 set")
        } else if vf == 0 || vf > this.num_vfs.load(Relaxed) {
            Some("not from a provisioned VF")
        } else {
            None
        };
        if let Some(why) = why {
            if count_and_log(&this.stats.relay.bad) {
                dev_err!(
                    dev,
                    "sriov: GUC2PF_RELAY_FROM_VF refused: {} (VF{}, relay {}, DATA0 {:#x}, {} VFs provisioned; {} refused)\n",
                    why,
                    vf,
                    rid,
                    data0,
                    this.num_vfs.load(Relaxed),
                    this.stats.relay.bad.load(Relaxed)
                );
            }
            return;
        }
        let flood = {
            let mut ib = this.inbox.lock();
            if ib.closed {
                return;
            }
            // CAST: at most 63, checked above.
            let Some(slot) = ib.relay.get_mut(vf as usize) else {
                return;
            };
            if slot.pending.is_none() {
                slot.pending = Some((rid, *msg));
                None
            } else if let Some(b) = slot.busy.get_mut(slot.busy_len) {
                *b = rid;
                slot.busy_len += 1;
                Some((&this.stats.relay.busy, "refused"))
            } else {
                Some((&this.stats.relay.dropped, "dropped"))
            }
        };
        match flood {
            None => {
                // Already queued: that run answers this one too.
                let _ = workqueue::system().enqueue(this.clone());
            }
            Some((c, what)) => {
                if count_and_log(c) {
                    dev_warn!(
                        dev,
                        "sriov: VF{}: relay {} while its previous request waits: {} ({} so far)\n",
                        vf,
                        rid,
                        what,
                        c.load(Relaxed)
                    );
                }
            }
        }
    }

    /// A `GUC2PF_RELAY_FROM_VF` too short to name a VF, a relay ID and a message. Receive
    /// path.
    pub(super) fn relay_short(&self, dev: &Device, len: usize) {
        if count_and_log(&self.stats.relay.bad) {
            dev_err!(
                dev,
                "sriov: GUC2PF_RELAY_FROM_VF refused: {} dwords after the header, 3 at least ({} refused)\n",
                len,
                self.stats.relay.bad.load(Relaxed)
            );
        }
    }

    /// Empties VF `vf`'s relay slot and forgets its agreed version: at its FLR and when it is
    /// given back. Any context (the inbox spinlock).
    pub(super) fn forget_relays(&self, vf: u16) {
        if let Some(slot) = self.inbox.lock().relay.get_mut(usize::from(vf)) {
            *slot = RelaySlot::EMPTY;
        }
    }

    /// The work item's part: answers every queued relay request, the VFs in order. Process
    /// context; sleeps in the CT's blocking send, with no lock held.
    pub(super) fn serve_relays(&self) {
        for vf in 1..=MAX_VFS {
            while let Some(job) = self.next_relay_job(vf) {
                self.finish_relay(vf, job);
            }
        }
    }

    /// Takes VF `vf`'s next job, serving a pending request under the inbox spinlock (so its
    /// agreed version changes with nothing in between); `None` when there is none or the PF
    /// is torn down.
    fn next_relay_job(&self, vf: u16) -> Option<Job> {
        let mut ib = self.inbox.lock();
        if ib.closed {
            return None;
        }
        let slot = ib.relay.get_mut(usize::from(vf))?;
        if let Some((rid, msg)) = slot.pending.take() {
            let mut out = [0u32; RELAY_REPLY_MAX];
            let answer = relay::serve(&msg, &mut slot.agreed, &self.runtime, &mut out);
            return Some(Job::Answer {
                rid,
                answer,
                out,
                head: msg.head().first().copied().unwrap_or(0),
            });
        }
        let n = slot.busy_len.checked_sub(1)?;
        slot.busy_len = n;
        slot.busy.get(n).copied().map(Job::Busy)
    }

    /// Sends what `job` says for VF `vf`, counts and logs it. Process context.
    fn finish_relay(&self, vf: u16, job: Job) {
        // Given back meanwhile: the GuC has no VF to hand an answer to.
        if u32::from(vf) > self.num_vfs.load(Relaxed) {
            self.stats.relay.dropped.add(1, Relaxed);
            return;
        }
        let failure = [relay::failure()];
        let (rid, msg): (u32, &[u32]) = match &job {
            Job::Answer {
                rid,
                answer: Answer::Reply(n),
                out,
                ..
            } => {
                self.stats.relay.served.add(1, Relaxed);
                (*rid, out.get(..*n).unwrap_or(&[]))
            }
            Job::Answer {
                rid,
                answer: Answer::Refuse(r),
                head,
                ..
            } => {
                self.relay_refusal(vf, *rid, *head, r, "refused", &self.stats.relay.refused);
                (*rid, &failure)
            }
            Job::Answer {
                rid,
                answer: Answer::Drop(r),
                head,
                ..
            } => {
                self.relay_refusal(vf, *rid, *head, r, "dropped", &self.stats.relay.dropped);
                return;
            }
            Job::Busy(rid) => (*rid, &failure),
        };
        let sent = RelayToVf::new(vf, rid, msg).and_then(|m| self.b.ct.request(self, &m));
        if let Err(e) = sent {
            if count_and_log(&self.stats.relay.send_failed) {
                dev_err!(
                    self.dev,
                    "sriov: VF{}: PF2GUC_RELAY_TO_VF for relay {} failed: {} ({} failed)\n",
                    vf,
                    rid,
                    e.to_errno(),
                    self.stats.relay.send_failed.load(Relaxed)
                );
            }
        }
    }

    /// Counts a relay request `what` ("refused", "dropped") in `c` and logs it rate-limited.
    /// Process context.
    fn relay_refusal(
        &self,
        vf: u16,
        rid: u32,
        head: u32,
        r: &Refusal,
        what: &str,
        c: &Atomic<u64>,
    ) {
        if count_and_log(c) {
            dev_warn!(
                self.dev,
                "sriov: VF{}: relay {} ({:#010x}) {}: {} (errno {}; {} so far)\n",
                vf,
                rid,
                head,
                what,
                r.why,
                r.errno,
                c.load(Relaxed)
            );
        }
    }
}
