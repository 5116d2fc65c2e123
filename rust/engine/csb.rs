// SPDX-License-Identifier: GPL-2.0

//! The context status buffer (CSB): what the engine reports at each context switch.
//!
//! # Where it is
//!
//! The PRM puts twelve status qwords in the global HWSP at dword 28h and the last-written
//! index at dword 47h (seed 004 lines 323-339). Upstream i915, which runs execlists on DG2,
//! reads them at dword 0x10 and the index at dword 0x2f (`I915_HWS_CSB_BUF0_INDEX`,
//! `ICL_HWS_CSB_WRITE_INDEX`, `intel_engine.h`), and keeps its own data at dwords the seed's
//! placement would overwrite. The driver follows upstream: the placement real parts are known
//! to run with. The engine also mirrors the
//! entries in MMIO (+0x370, +0x3c0) and the pointers in `CONTEXT_STATUS_PTR` (+0x3a0, seed 004
//! lines 1596-1598); the driver reads memory, not those.
//!
//! # Pointer protocol
//!
//! The write index is pre-incremented: after a reset both pointers are 11, so the first entry
//! lands in slot 0 (seed 004 line 337; i915 `reset_csb_pointers`). The reader consumes slots
//! after its own index up to the write index, wrapping after 11.
//!
//! # Entry format
//!
//! The seed gives the meaning of each switch (lines 271-320) but not the bits; the Xe_HP
//! layout is i915's `xehp_csb_parse`: in the low dword the switch detail (3:0) and the ID of
//! the context switched to (25:10), in the high dword "switched to a new queue" (bit 1) and
//! the ID of the context switched away from (25:10). 0xffff is the idle ID.

use super::lrc::IDLE_CTX_ID;

/// Entries in the ring of status qwords (seed 004 lines 329-332).
pub(crate) const ENTRIES: u8 = 12;
/// HWSP dword of entry 0 and of the write index (module docs).
pub(crate) const HWSP_CSB: usize = 0x10;
pub(crate) const HWSP_WRITE_INDEX: usize = 0x2f;
/// The pointers' value after a reset: the last slot, so the next entry is slot 0.
pub(crate) const RESET_INDEX: u8 = ENTRIES - 1;

/// One decoded status qword.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    /// The context switched to (`None`: idle).
    pub(crate) to: Option<u16>,
    /// The context switched away from (`None`: idle).
    pub(crate) away: Option<u16>,
    /// "Switched to new queue": a Load caused this switch.
    pub(crate) new_queue: bool,
    /// Switch detail: 0 complete, 1-4 unsuccessful wait, 5 preempted (seed 004 line 317).
    pub(crate) detail: u8,
}

/// What an entry means for the driver's port (rows of seed 004 lines 284-319).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Event {
    /// Idle to active (row 1): the submitted context runs.
    Started(u16),
    /// The running context was resubmitted and picked up its new tail (row 7, lite restore).
    LiteRestore(u16),
    /// A new queue replaced the running context (rows 4-6; this driver never preempts, so it
    /// means the old one was done or stopped).
    Switched { away: u16, to: u16 },
    /// The context switched out to idle (row 10) or to the next element (row 8): it is off the
    /// engine.
    Completed(u16),
    /// Preempt-to-idle and similar rows with no context to track.
    Idle,
}

impl Entry {
    /// Decodes a status qword (low dword, high dword); `None` for the all-ones the driver
    /// leaves in a slot it consumed (i915 does the same), i.e. a slot the engine has not
    /// written yet.
    pub(crate) const fn decode(lo: u32, hi: u32) -> Option<Self> {
        if lo == u32::MAX && hi == u32::MAX {
            return None;
        }
        Some(Self {
            to: id(lo),
            away: id(hi),
            new_queue: hi & (1 << 1) != 0,
            // CAST: a 4-bit field.
            detail: (lo & 0xf) as u8,
        })
    }

    /// The port event this entry reports (i915 `__gen12_csb_parse`: a new queue or an idle
    /// "away" means the submission was promoted, otherwise the active element finished).
    pub(crate) const fn event(&self) -> Event {
        match (self.away, self.to, self.new_queue) {
            (None, Some(to), _) => Event::Started(to),
            (Some(away), Some(to), true) if away == to => Event::LiteRestore(to),
            (Some(away), Some(to), true) => Event::Switched { away, to },
            (Some(away), _, false) => Event::Completed(away),
            (Some(away), None, true) => Event::Completed(away),
            (None, None, _) => Event::Idle,
        }
    }
}

/// The context ID of one side of an entry (bits 25:10 of its dword). The ID and the counter
/// (31:26) are compared together: a counter this driver never sets makes the side not idle,
/// as i915's mask does.
const fn id(dw: u32) -> Option<u16> {
    let field = (dw >> 10) & 0x3f_ffff;
    if field == IDLE_CTX_ID as u32 {
        None
    } else {
        // CAST: the 16-bit ID field.
        Some((dw >> 10) as u16)
    }
}

/// The slots to read after `head` up to `write` (both in 0..12), oldest first; `None` if
/// `write` is not a slot (a corrupt pointer).
pub(crate) fn pending(head: u8, write: u8) -> Option<impl Iterator<Item = u8>> {
    if head >= ENTRIES || write >= ENTRIES {
        return None;
    }
    let count = (write + ENTRIES - head) % ENTRIES;
    Some((1..=count).map(move |k| (head + k) % ENTRIES))
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_csb)]
mod tests {
    use super::*;

    /// An entry as the engine writes it (i915's Xe_HP layout).
    fn raw(to: u16, away: u16, new_queue: bool, detail: u32) -> (u32, u32) {
        (
            (u32::from(to) << 10) | detail,
            (u32::from(away) << 10) | if new_queue { 2 } else { 0 },
        )
    }

    #[test]
    fn rows_of_the_prm_table() {
        let e = |t, a, q, d| {
            let (lo, hi) = raw(t, a, q, d);
            Entry::decode(lo, hi).map(|e| e.event())
        };
        // Row 1: idle to active.
        assert_eq!(e(5, 0xffff, true, 0), Some(Event::Started(5)));
        // Row 7: lite restore.
        assert_eq!(e(5, 5, true, 0), Some(Event::LiteRestore(5)));
        // Row 4/5: switched to a new queue.
        assert_eq!(e(6, 5, true, 5), Some(Event::Switched { away: 5, to: 6 }));
        // Row 8: element switch on completion.
        assert_eq!(e(6, 5, false, 0), Some(Event::Completed(5)));
        // Row 10: active to idle.
        assert_eq!(e(0xffff, 5, false, 0), Some(Event::Completed(5)));
        // Row 2: preempt to idle.
        assert_eq!(e(0xffff, 5, true, 5), Some(Event::Completed(5)));
        // Row 3.
        assert_eq!(e(0xffff, 0xffff, true, 0), Some(Event::Idle));
    }

    #[test]
    fn fields() {
        let (lo, hi) = raw(0x1234, 0xffff, true, 5);
        let d = Entry::decode(lo, hi);
        assert_eq!(d.and_then(|d| d.to), Some(0x1234));
        assert_eq!(d.map(|d| d.away), Some(None));
        assert_eq!(d.map(|d| d.new_queue), Some(true));
        assert_eq!(d.map(|d| d.detail), Some(5));
        // All ones is a consumed slot the engine has not rewritten.
        assert_eq!(Entry::decode(u32::MAX, u32::MAX), None);
        // A counter this driver never sets makes the side not idle.
        assert_eq!(
            Entry::decode(0xfc00_0000 | (0xffff << 10), 0).and_then(|d| d.to),
            Some(0xffff)
        );
    }

    #[test]
    fn pointer_walk_wraps() {
        let slots = |h, w| pending(h, w).map(|i| i.fold(0u32, |acc, s| acc * 16 + u32::from(s)));
        // After reset (11, 11): nothing; one entry written: slot 0.
        assert_eq!(slots(11, 11), Some(0));
        assert_eq!(pending(11, 0).map(|i| i.count()), Some(1));
        assert_eq!(slots(11, 0), Some(0));
        // 10 -> 1 reads 11, 0, 1.
        assert_eq!(slots(10, 1), Some(0xb01));
        assert_eq!(pending(3, 3).map(|i| i.count()), Some(0));
        assert_eq!(pending(0, 11).map(|i| i.count()), Some(11));
        // A corrupt pointer.
        assert!(pending(0, 12).is_none());
        assert!(pending(15, 0).is_none());
    }
}
