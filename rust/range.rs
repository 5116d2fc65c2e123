// SPDX-License-Identifier: GPL-2.0

//! Half-open address ranges, and a first-fit allocator over a window of them: the GGTT's GuC
//! window.
//!
//! Upstream keeps the GGTT on `drm_mm` (`xe_ggtt.c`), which has no Rust abstraction in 7.3, so
//! the GGTT stays here. Local memory is on the kernel's GPU buddy allocator: the PF's objects
//! in `mem::lmem::LmemPool`, the VFs' pages in `mem::lmem::PagePool`.
//!
//! Ranges are few and long-lived (GGTT mappings, VF GGTT partitions), so a sorted free list is
//! enough; each allocation is a linear scan.

use kernel::prelude::*;

/// A half-open range `[start, end)`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Range {
    pub(crate) start: u64,
    pub(crate) end: u64,
}

impl Range {
    pub(crate) fn size(&self) -> u64 {
        self.end - self.start
    }
}

/// Which end of the window an allocation is taken from.
#[derive(Copy, Clone)]
enum End {
    Low,
    High,
}

/// Free space of a window, as sorted, disjoint, non-adjacent ranges.
pub(crate) struct RangeAllocator {
    free: KVec<Range>,
    window: Range,
}

impl RangeAllocator {
    /// An allocator over `[start, end)`, all free.
    ///
    /// # Errors
    ///
    /// `EINVAL` for an empty window, `ENOMEM`.
    pub(crate) fn new(start: u64, end: u64) -> Result<Self> {
        if start >= end {
            return Err(EINVAL);
        }
        let window = Range { start, end };
        let mut free = KVec::new();
        free.push(window, GFP_KERNEL)?;
        Ok(Self { free, window })
    }

    /// Takes `size` bytes aligned to `align` (a power of two) from the first hole that fits.
    ///
    /// # Errors
    ///
    /// `EINVAL` for a zero size or an alignment that is not a power of two, `ENOSPC` if no
    /// hole fits, `ENOMEM`.
    pub(crate) fn alloc(&mut self, size: u64, align: u64) -> Result<Range> {
        self.place(size, align, End::Low)
    }

    /// Allocates `size` bytes aligned to `align` as high as they fit: the top of the highest
    /// hole that holds them (how VF ranges are placed, so the PF's own allocations, first fit
    /// from the bottom, never meet them until the window is full).
    ///
    /// # Errors
    ///
    /// As [`RangeAllocator::alloc`].
    pub(crate) fn alloc_high(&mut self, size: u64, align: u64) -> Result<Range> {
        self.place(size, align, End::High)
    }

    /// Finds room for `size` bytes aligned to `align`, searching the holes from `end`.
    fn place(&mut self, size: u64, align: u64, end: End) -> Result<Range> {
        if size == 0 || !align.is_power_of_two() {
            return Err(EINVAL);
        }
        // Where in `hole` the allocation starts, if it fits.
        let fit = |hole: &Range| match end {
            End::Low => {
                let start = hole.start.checked_next_multiple_of(align)?;
                (start.checked_add(size)? <= hole.end).then_some(start)
            }
            End::High => {
                let top = hole.end.checked_sub(size)?;
                let start = top - top % align;
                (start >= hole.start).then_some(start)
            }
        };
        let mut holes = self.free.iter().enumerate();
        let found = match end {
            End::Low => holes.find_map(|(i, h)| Some((i, fit(h)?))),
            End::High => holes.rev().find_map(|(i, h)| Some((i, fit(h)?))),
        };
        let (idx, start) = found.ok_or(ENOSPC)?;
        self.take(idx, start, size)
    }

    /// The largest run of whole `align` units any hole holds: what one allocation could
    /// still get.
    pub(crate) fn largest(&self, align: u64) -> u64 {
        self.free
            .iter()
            .filter_map(|h| {
                let start = h.start.checked_next_multiple_of(align)?;
                let end = h.end - h.end % align;
                end.checked_sub(start)
            })
            .max()
            .unwrap_or(0)
    }

    /// Takes `[start, start + size)` out of hole `idx`, which holds it.
    fn take(&mut self, idx: usize, start: u64, size: u64) -> Result<Range> {
        let hole = self.free[idx];
        let taken = Range {
            start,
            end: start + size,
        };
        // Replace the hole by what is left on either side of the allocation.
        let before = Range {
            start: hole.start,
            end: taken.start,
        };
        let after = Range {
            start: taken.end,
            end: hole.end,
        };
        match (before.size() > 0, after.size() > 0) {
            (true, true) => {
                // Reserve first so a failure leaves the free list untouched.
                self.free.reserve(1, GFP_KERNEL)?;
                self.free[idx] = before;
                self.free
                    .insert_within_capacity(idx + 1, after)
                    .map_err(|_| ENOMEM)?;
            }
            (true, false) => self.free[idx] = before,
            (false, true) => self.free[idx] = after,
            (false, false) => {
                self.free.remove(idx).map_err(|_| EINVAL)?;
            }
        }
        Ok(taken)
    }

    /// Returns a range obtained from [`RangeAllocator::alloc`]. A range that is not wholly
    /// allocated (a double free, or not from this allocator) is refused with `EINVAL`.
    ///
    /// # Errors
    ///
    /// `EINVAL` for a range that is not wholly allocated, `ENOMEM`.
    pub(crate) fn free(&mut self, r: Range) -> Result {
        if r.start < self.window.start || r.end > self.window.end || r.start >= r.end {
            return Err(EINVAL);
        }
        let idx = self.free.partition_point(|h| h.end <= r.start);
        if self.free.get(idx).is_some_and(|h| h.start < r.end) {
            return Err(EINVAL);
        }
        let merge_prev = idx > 0 && self.free[idx - 1].end == r.start;
        let merge_next = self.free.get(idx).is_some_and(|h| h.start == r.end);
        match (merge_prev, merge_next) {
            (true, true) => {
                self.free[idx - 1].end = self.free[idx].end;
                self.free.remove(idx).map_err(|_| EINVAL)?;
            }
            (true, false) => self.free[idx - 1].end = r.end,
            (false, true) => self.free[idx].start = r.start,
            (false, false) => {
                self.free.reserve(1, GFP_KERNEL)?;
                self.free
                    .insert_within_capacity(idx, r)
                    .map_err(|_| ENOMEM)?;
            }
        }
        Ok(())
    }

    /// What is allocated, in address order: the window minus the holes. Adjacent allocations
    /// come out as one range (the allocator keeps only the holes); for the debugfs maps.
    pub(crate) fn used(&self) -> impl Iterator<Item = Range> + '_ {
        // Each used run starts where a hole (or the window) ends and ends where the next hole
        // (or the window) starts.
        let starts = Iterator::chain(
            core::iter::once(self.window.start),
            self.free.iter().map(|h| h.end),
        );
        let ends = Iterator::chain(
            self.free.iter().map(|h| h.start),
            core::iter::once(self.window.end),
        );
        starts
            .zip(ends)
            .filter(|(start, end)| start < end)
            .map(|(start, end)| Range { start, end })
    }

    /// Bytes still free.
    #[cfg(xehpg_kunit)]
    pub(crate) fn free_bytes(&self) -> u64 {
        self.free.iter().map(Range::size).sum()
    }
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_range)]
mod tests {
    use super::*;

    #[test]
    fn alloc_respects_alignment_and_window() -> Result {
        let mut a = RangeAllocator::new(0x1000, 0x10000)?;
        let r = a.alloc(0x100, 0x4000)?;
        assert_eq!((r.start, r.end), (0x4000, 0x4100));
        // The space below the aligned start stays usable.
        let low = a.alloc(0x1000, 0x1000)?;
        assert_eq!(low.start, 0x1000);
        assert_eq!(a.alloc(0x20000, 0x1000), Err(ENOSPC));
        assert_eq!(a.alloc(0, 0x1000), Err(EINVAL));
        assert_eq!(a.alloc(0x10, 3), Err(EINVAL));
        Ok(())
    }

    #[test]
    fn free_merges_and_refuses_double_free() -> Result {
        let mut a = RangeAllocator::new(0, 0x3000)?;
        let x = a.alloc(0x1000, 0x1000)?;
        let y = a.alloc(0x1000, 0x1000)?;
        let z = a.alloc(0x1000, 0x1000)?;
        assert_eq!(a.free_bytes(), 0);
        a.free(y)?;
        assert_eq!(a.free(y), Err(EINVAL));
        a.free(x)?;
        a.free(z)?;
        assert_eq!(a.free_bytes(), 0x3000);
        // Fully merged: one allocation of everything succeeds again.
        assert_eq!(a.alloc(0x3000, 0x1000)?.start, 0);
        assert_eq!(
            a.free(Range {
                start: 0x2000,
                end: 0x4000
            }),
            Err(EINVAL)
        );
        Ok(())
    }

    #[test]
    fn sizes_near_the_top_do_not_overflow() -> Result {
        let mut a = RangeAllocator::new(u64::MAX - 0x2000, u64::MAX)?;
        assert_eq!(a.alloc(0x1000, 1 << 63), Err(ENOSPC));
        assert_eq!(a.alloc(u64::MAX, 1), Err(ENOSPC));
        assert_eq!(a.alloc_high(u64::MAX, 1), Err(ENOSPC));
        Ok(())
    }

    #[test]
    fn used_is_the_window_minus_the_holes() -> Result {
        let mut a = RangeAllocator::new(0x1000, 0x10000)?;
        assert_eq!(a.used().count(), 0);
        let low = a.alloc(0x1000, 0x1000)?;
        let next = a.alloc(0x2000, 0x1000)?;
        let top = a.alloc_high(0x1000, 0x1000)?;
        let mut got = KVec::new();
        for r in a.used() {
            got.push(r, GFP_KERNEL)?;
        }
        // The two bottom allocations touch, so they are one run; the top one is apart.
        assert_eq!(
            &got[..],
            &[
                Range {
                    start: low.start,
                    end: next.end
                },
                top
            ]
        );
        assert_eq!((low.start, next.end, top.end), (0x1000, 0x4000, 0x10000));
        a.free(low)?;
        a.free(next)?;
        a.free(top)?;
        assert_eq!(a.used().count(), 0);
        assert_eq!(
            a.window,
            Range {
                start: 0x1000,
                end: 0x10000
            }
        );
        Ok(())
    }

    #[test]
    fn high_allocations_come_from_the_top() -> Result {
        let mut a = RangeAllocator::new(0x1000, 0x10_0000)?;
        let top = a.alloc_high(0x8000, 0x1_0000)?;
        assert_eq!((top.start, top.end), (0xf_0000, 0xf_8000));
        let next = a.alloc_high(0x1_0000, 0x1_0000)?;
        assert_eq!(next.start, 0xe_0000);
        // The bottom is untouched: first fit still starts there.
        assert_eq!(a.alloc(0x1000, 0x1000)?.start, 0x1000);
        // The 32 KiB above `top` is a hole, but too small for 64 KiB aligned.
        assert_eq!(a.largest(0x1_0000), 0xd_0000);
        a.free(top)?;
        assert_eq!(a.alloc_high(0x1_0000, 0x1_0000)?.start, 0xf_0000);
        assert_eq!(a.alloc_high(0, 0x1000), Err(EINVAL));
        assert_eq!(a.alloc_high(0x10_0000, 0x1000), Err(ENOSPC));
        Ok(())
    }
}
