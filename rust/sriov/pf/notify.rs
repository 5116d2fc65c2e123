// SPDX-License-Identifier: GPL-2.0

//! The GuC's VF notifications, on the receive path: `GUC2PF_VF_STATE_NOTIFY` (a VF's FLR
//! started or the GuC's part of it is done), `GUC2PF_ADVERSE_EVENT` (a VF past one of
//! its thresholds) and `GUC2PF_RELAY_FROM_VF` (a VF driver's relay message, `relays`).
//!
//! They are checked ([`parse_state`], [`parse_adverse`]: the GuC is untrusted), recorded in
//! the [`Inbox`] under a spinlock and handed to the FLR work; nothing here sleeps or touches
//! the device.

use kernel::{
    device::Device,
    prelude::*,
    sync::{atomic::Relaxed, Arc},
    workqueue,
};

use super::{
    super::{
        config::THRESHOLDS,
        control::{parse_adverse, parse_state, BadNotice, Notice},
    },
    relays::RelaySlot,
    Pf,
};
use crate::guc::{BadEvent, EventKind, G2hEvent};

/// The GuC's VF notifications, from the receive path (which may not sleep) to the FLR work
/// (one bit per VF) and to debugfs (adverse events).
pub(super) struct Inbox {
    pub(super) flr: u64,
    pub(super) done: u64,
    /// Torn down: nothing is queued any more.
    pub(super) closed: bool,
    /// Adverse events per VF (index = VF number) and threshold ([`THRESHOLDS`]), since the
    /// VFs were provisioned.
    pub(super) adverse: [[u32; THRESHOLDS.len()]; 64],
    /// Each VF's relay (index = VF number; 0 unused): its queued messages and agreed version.
    pub(super) relay: [RelaySlot; 64],
    /// The seqno of the LMTT invalidation sent last, and of the last one the GuC reported
    /// done (`tlb`).
    pub(super) tlb_waiting: u32,
    pub(super) tlb_done: u32,
    /// The last invalidation timed out and no DONE came since: the next ones are not waited
    /// for.
    pub(super) tlb_stuck: bool,
}

impl Default for Inbox {
    fn default() -> Self {
        Self {
            flr: 0,
            done: 0,
            closed: false,
            adverse: [[0; THRESHOLDS.len()]; 64],
            relay: [RelaySlot::EMPTY; 64],
            tlb_waiting: 0,
            tlb_done: 0,
            tlb_stuck: false,
        }
    }
}

impl Pf {
    /// A G2H event for the PF: `GUC2PF_VF_STATE_NOTIFY`, `GUC2PF_ADVERSE_EVENT` or
    /// `GUC2PF_RELAY_FROM_VF`; other events are not the PF's and are ignored. Receive path: no sleeping, no device access;
    /// the FLR itself runs in the work item. The GuC is untrusted: a notification for a VF
    /// that is not provisioned is refused and counted.
    pub(crate) fn guc_event(this: &Arc<Self>, dev: &Device, ev: &G2hEvent) {
        let (vf, event) = match *ev {
            G2hEvent::VfState { vf, event } => (vf, event),
            G2hEvent::Adverse { vf, key } => return this.adverse(dev, vf, key),
            G2hEvent::RelayFromVf {
                vf,
                rid,
                data0,
                msg,
            } => return Self::relay_from_vf(this, dev, vf, rid, data0, &msg),
            G2hEvent::TlbInvalDone { seqno } => return this.tlb_done(dev, seqno),
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
            EventKind::RelayFromVf => return self.relay_short(dev, bad.len),
            EventKind::TlbInvalDone => "TLB_INVALIDATION_DONE",
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

    /// Records a notification for VF `vf` and wakes the FLR work.
    pub(super) fn post(this: &Arc<Self>, vf: u16, flr: bool) {
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
}
