// SPDX-License-Identifier: GPL-2.0

//! Ring-buffer arithmetic.
//!
//! A ring starts on a 4 KiB boundary, is at most 2 MiB (seed 004 line 471) and its tail is a
//! qword offset (line 553). The engine executes from head to tail and stops when they meet, so
//! a full ring must still leave them apart: the writer keeps one qword free, as upstream's
//! `space = ((head - tail - 1) & (size - 1)) + 1` with the qword gap of `xe_lrc.c`.

/// Ring geometry: a power-of-two size in bytes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Ring {
    size: u32,
}

/// Largest ring (seed 004 line 471).
pub(crate) const MAX_RING: u32 = 2 << 20;

impl Ring {
    /// A ring of `size` bytes: a power of two from 4 KiB to 2 MiB.
    pub(crate) const fn new(size: u32) -> Option<Self> {
        if size.is_power_of_two() && size >= 4096 && size <= MAX_RING {
            Some(Self { size })
        } else {
            None
        }
    }

    /// Bytes that can be written at `tail` without reaching `head`, one qword kept free.
    pub(crate) const fn space(&self, head: u32, tail: u32) -> u32 {
        (head.wrapping_sub(tail).wrapping_sub(8) & (self.size - 1)) & !7
    }

    /// The offset `bytes` after `at`, wrapped.
    pub(crate) const fn advance(&self, at: u32, bytes: u32) -> u32 {
        at.wrapping_add(bytes) & (self.size - 1)
    }
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_ring)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert!(Ring::new(4096).is_some());
        assert!(Ring::new(2 << 20).is_some());
        assert!(Ring::new(2048).is_none());
        assert!(Ring::new(12288).is_none());
        assert!(Ring::new(4 << 20).is_none());
    }

    #[test]
    fn an_empty_ring_keeps_one_qword() {
        let r = Ring::new(4096).unwrap_or(Ring { size: 4096 });
        assert_eq!(r.space(0, 0), 4096 - 8);
        assert_eq!(r.space(512, 512), 4096 - 8);
    }

    #[test]
    fn space_wraps() {
        let r = Ring { size: 4096 };
        // Tail behind head: the gap between them, less the qword.
        assert_eq!(r.space(1024, 512), 512 - 8);
        // Tail ahead of head: the rest of the ring plus the start.
        assert_eq!(r.space(512, 1024), 4096 - 512 - 8);
        // Full: tail one qword behind head.
        assert_eq!(r.space(1024, 1016), 0);
        assert_eq!(r.space(0, 4088), 0);
    }

    #[test]
    fn writing_space_never_reaches_head() {
        let r = Ring { size: 4096 };
        let mut tail = 0u32;
        let head = 2048u32;
        let s = r.space(head, tail);
        tail = r.advance(tail, s);
        assert_ne!(tail, head);
        assert_eq!(r.space(head, tail), 0);
    }

    #[test]
    fn advance_wraps() {
        let r = Ring { size: 4096 };
        assert_eq!(r.advance(4088, 16), 8);
        assert_eq!(r.advance(0, 4096), 0);
    }
}
