// SPDX-License-Identifier: GPL-2.0

//! Requests waiting for their reply, and the G2H credits they hold.
//!
//! Every REQUEST reserves room in G2H for its reply before it is sent (upstream reserves
//! `GUC_CTB_HXG_MSG_MAX_LEN` dwords per blocking request and keeps half of G2H for unsolicited
//! events, `xe_guc_ct.c`), so the GuC never has to drop a reply for lack of space. The credits
//! bound the requests in flight; the slot table is sized to the same bound, so a free slot
//! exists whenever credits do.

use super::wire::{Response, MSG_MAX};

/// Dwords of G2H reserved per request: the longest message.
pub(crate) const CREDITS_PER_REQUEST: u32 = MSG_MAX as u32;
/// Requests in flight at most: half of the 128 KiB G2H ring in credits.
pub(crate) const SLOTS: usize = 64;

/// The final outcome of a request, as its waiter sees it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    Success(u32),
    Failure {
        error: u32,
        hint: u32,
    },
    /// The GuC asked for the request to be sent again.
    Retry,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Slot {
    Free,
    /// Sent; `busy` once the GuC answered BUSY.
    Waiting {
        fence: u16,
        action: u16,
        busy: bool,
    },
    Done {
        fence: u16,
        outcome: Outcome,
    },
}

/// What a reply matched.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Matched {
    /// A waiter's final reply, stored for it.
    Final,
    /// A waiter's BUSY: it keeps waiting.
    Busy,
    /// No request waits for this fence.
    Nobody,
}

/// The slot table and the credits.
pub(crate) struct Waiters {
    slots: [Slot; SLOTS],
    credits: u32,
}

impl Waiters {
    /// All slots free, `credits` dwords of G2H to hand out.
    pub(crate) const fn new(credits: u32) -> Self {
        Self {
            slots: [Slot::Free; SLOTS],
            credits,
        }
    }

    /// Claims a slot and its credits for a request with `fence`; `None` when the credits are
    /// used up (the caller waits for replies to free some).
    pub(crate) fn claim(&mut self, fence: u16, action: u16) -> Option<usize> {
        if self.credits < CREDITS_PER_REQUEST {
            return None;
        }
        let i = self.slots.iter().position(|s| *s == Slot::Free)?;
        self.slots[i] = Slot::Waiting {
            fence,
            action,
            busy: false,
        };
        self.credits -= CREDITS_PER_REQUEST;
        Some(i)
    }

    /// Hands a reply to the request with `fence`.
    pub(crate) fn complete(&mut self, fence: u16, response: Response) -> Matched {
        let Some(slot) = self
            .slots
            .iter_mut()
            .find(|s| matches!(s, Slot::Waiting { fence: f, .. } if *f == fence))
        else {
            return Matched::Nobody;
        };
        let outcome = match response {
            Response::Busy => {
                if let Slot::Waiting { busy, .. } = slot {
                    *busy = true;
                }
                return Matched::Busy;
            }
            Response::Success(d) => Outcome::Success(d),
            Response::Failure { error, hint } => Outcome::Failure { error, hint },
            Response::Retry => Outcome::Retry,
        };
        *slot = Slot::Done { fence, outcome };
        Matched::Final
    }

    /// The outcome of slot `i` if its reply came; frees the slot and its credits then.
    pub(crate) fn take(&mut self, i: usize, fence: u16) -> Option<Outcome> {
        match self.slots.get(i) {
            Some(Slot::Done { fence: f, outcome }) if *f == fence => {
                let o = *outcome;
                self.free(i);
                Some(o)
            }
            _ => None,
        }
    }

    /// Whether slot `i` got a BUSY.
    pub(crate) fn busy(&self, i: usize) -> bool {
        matches!(self.slots.get(i), Some(Slot::Waiting { busy: true, .. }))
    }

    /// Gives slot `i` up (timeout, signal, channel down); a reply that comes later matches
    /// nobody.
    pub(crate) fn abandon(&mut self, i: usize) {
        if self.slots.get(i).is_some_and(|s| *s != Slot::Free) {
            self.free(i);
        }
    }

    fn free(&mut self, i: usize) {
        if let Some(s) = self.slots.get_mut(i) {
            *s = Slot::Free;
            self.credits += CREDITS_PER_REQUEST;
        }
    }

    /// Requests waiting for a reply.
    pub(crate) fn outstanding(&self) -> usize {
        self.slots
            .iter()
            .filter(|s| matches!(s, Slot::Waiting { .. }))
            .count()
    }

    /// Credits left.
    pub(crate) fn credits(&self) -> u32 {
        self.credits
    }

    /// (fence, action) of the requests waiting, for debugfs.
    pub(crate) fn waiting(&self) -> impl Iterator<Item = (u16, u16)> + '_ {
        self.slots.iter().filter_map(|s| match s {
            Slot::Waiting { fence, action, .. } => Some((*fence, *action)),
            _ => None,
        })
    }
}

/// The last fire-and-forget requests, so a FAILURE that names one of their fences can say
/// which action failed (upstream keeps a similar history, `fast_req_track`).
pub(crate) struct FastHistory {
    entries: [(u16, u16); 16],
    next: usize,
}

impl FastHistory {
    pub(crate) const fn new() -> Self {
        Self {
            entries: [(0, 0); 16],
            next: 0,
        }
    }

    /// Records a FAST_REQUEST of `action` sent with `fence`.
    pub(crate) fn push(&mut self, fence: u16, action: u16) {
        let n = self.entries.len();
        if let Some(e) = self.entries.get_mut(self.next % n) {
            *e = (fence, action);
        }
        self.next = (self.next + 1) % n;
    }

    /// The action sent with `fence`, if still remembered.
    pub(crate) fn action(&self, fence: u16) -> Option<u16> {
        self.entries
            .iter()
            .find(|(f, a)| *f == fence && *a != 0)
            .map(|(_, a)| *a)
    }
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_guc_ct_waiters)]
mod tests {
    use super::*;

    #[test]
    fn credits_bound_requests() {
        let mut w = Waiters::new(3 * CREDITS_PER_REQUEST);
        let a = w.claim(1, 0x509);
        let b = w.claim(2, 0x509);
        let c = w.claim(3, 0x509);
        assert!(a.is_some() && b.is_some() && c.is_some());
        // Out of credits.
        assert_eq!(w.claim(4, 0x509), None);
        assert_eq!(w.outstanding(), 3);
        assert_eq!(w.credits(), 0);
        // A reply frees its credits once taken.
        assert_eq!(w.complete(2, Response::Success(1)), Matched::Final);
        assert_eq!(w.credits(), 0);
        assert_eq!(w.take(b.unwrap_or(99), 2), Some(Outcome::Success(1)));
        assert_eq!(w.credits(), CREDITS_PER_REQUEST);
        assert!(w.claim(4, 0x509).is_some());
    }

    #[test]
    fn replies_match_fences() {
        let mut w = Waiters::new(SLOTS as u32 * CREDITS_PER_REQUEST);
        let i = w.claim(7, 0x550e).unwrap_or(99);
        // A reply to another fence matches nobody and leaves the waiter alone.
        assert_eq!(w.complete(8, Response::Success(0)), Matched::Nobody);
        assert_eq!(w.take(i, 7), None);
        // BUSY keeps it waiting.
        assert_eq!(w.complete(7, Response::Busy), Matched::Busy);
        assert!(w.busy(i));
        assert_eq!(w.take(i, 7), None);
        assert_eq!(
            w.complete(
                7,
                Response::Failure {
                    error: 0x30,
                    hint: 0
                }
            ),
            Matched::Final
        );
        // A second reply to a completed fence matches nobody.
        assert_eq!(w.complete(7, Response::Success(0)), Matched::Nobody);
        // Another fence cannot take the slot's outcome.
        assert_eq!(w.take(i, 8), None);
        assert_eq!(
            w.take(i, 7),
            Some(Outcome::Failure {
                error: 0x30,
                hint: 0
            })
        );
        // An abandoned request's late reply matches nobody, and its credits came back.
        let j = w.claim(9, 0x509).unwrap_or(99);
        w.abandon(j);
        assert_eq!(w.complete(9, Response::Success(1)), Matched::Nobody);
        assert_eq!(w.credits(), SLOTS as u32 * CREDITS_PER_REQUEST);
        assert_eq!(w.outstanding(), 0);
    }

    #[test]
    fn fast_history_remembers_recent() {
        let mut h = FastHistory::new();
        for i in 0..20u16 {
            h.push(0x8000 | i, 0x500 + i);
        }
        assert_eq!(h.action(0x8013), Some(0x513));
        assert_eq!(h.action(0x8004), Some(0x504));
        // Overwritten by the 16 newer ones.
        assert_eq!(h.action(0x8003), None);
    }
}
