// SPDX-License-Identifier: GPL-2.0

//! Ranges of GuC IDs handed to virtual functions: doorbells (256) and contexts (65535).
//!
//! The GuC gives each VF one contiguous run of each (`BEGIN_DOORBELL_ID` / `NUM_DOORBELLS`,
//! `BEGIN_CONTEXT_ID` / `NUM_CONTEXTS`, seed 003 line 11), so both are a bitmap with
//! contiguous reservations. The two policies are upstream's, so that a VF sees the same IDs
//! under this driver as under `xe`:
//!
//! - [`Ids::reserve_low`]: first fit from ID 0 (`xe_guc_db_mgr.c`, doorbells);
//! - [`Ids::reserve_high`]: the top of the highest free run that fits (`xe_guc_id_mgr.c`,
//!   VF contexts), which keeps the low IDs for the PF's own contexts.
//!
//! Both take a `spare`: what must stay free for the PF after the reservation (`EDQUOT`
//! otherwise), as upstream's `spare` / `retain`.
//!
//! The set is a kernel bitmap (`kernel::bitmap::BitmapVec`, `include/linux/bitmap.h`), as
//! upstream's managers keep theirs; runs are found with its next-zero / next-set searches.

use kernel::bitmap::BitmapVec;
use kernel::prelude::*;

/// The GuC's context IDs (`GUC_ID_MAX`, upstream `abi/guc_scheduler_abi.h`).
pub(crate) const CONTEXTS: u32 = 65535;
/// The GuC's doorbells (`GUC_NUM_DOORBELLS`; seed 000 line 1040, 256 physical doorbells).
pub(crate) const DOORBELLS: u32 = 256;

/// A set of `total` IDs, each free or reserved (a set bit).
pub(crate) struct Ids {
    map: BitmapVec,
    total: u32,
    used: u32,
}

impl Ids {
    /// `total` free IDs. Zero is allowed (a VF provisioned with none): every reservation then
    /// fails with `ENODATA`. Process context (allocates).
    ///
    /// # Errors
    ///
    /// `ERANGE` above [`CONTEXTS`], `ENOMEM`.
    pub(crate) fn new(total: u32) -> Result<Self> {
        if total > CONTEXTS {
            return Err(ERANGE);
        }
        Ok(Self {
            map: BitmapVec::new(total as usize, GFP_KERNEL)?,
            total,
            used: 0,
        })
    }

    /// IDs in the set.
    pub(crate) fn total(&self) -> u32 {
        self.total
    }

    /// Reserved IDs.
    pub(crate) fn used(&self) -> u32 {
        self.used
    }

    /// The first free ID at or after `from`, if any. The searches are only asked about
    /// positions inside the set (a hardened bitmap would panic otherwise).
    fn next_free(&self, from: u32) -> Option<u32> {
        if from >= self.total {
            return None;
        }
        // CAST: a position in the bitmap, below `total` (a u32).
        self.map.next_zero_bit(from as usize).map(|id| id as u32)
    }

    /// The first reserved ID at or after `from`, if any.
    fn next_reserved(&self, from: u32) -> Option<u32> {
        if from >= self.total {
            return None;
        }
        // CAST: as in `next_free`.
        self.map.next_bit(from as usize).map(|id| id as u32)
    }

    fn set(&mut self, start: u32, count: u32, on: bool) {
        for id in start..start + count {
            if on {
                self.map.set_bit(id as usize);
            } else {
                self.map.clear_bit(id as usize);
            }
        }
    }

    /// The common checks: an empty set, a zero count, the PF's quota.
    fn check(&self, count: u32, spare: u32) -> Result {
        if self.total == 0 {
            return Err(ENODATA);
        }
        if count == 0 {
            return Err(EINVAL);
        }
        let after = u64::from(self.used) + u64::from(count) + u64::from(spare);
        if spare != 0 && after > u64::from(self.total) {
            return Err(EDQUOT);
        }
        Ok(())
    }

    /// Free runs, lowest first, as `(start, length)`.
    fn free_runs(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        let mut from = 0;
        core::iter::from_fn(move || {
            let start = self.next_free(from)?;
            let end = self.next_reserved(start + 1).unwrap_or(self.total);
            from = end;
            Some((start, end - start))
        })
    }

    /// Reserves `count` contiguous IDs, the lowest run that fits, leaving at least `spare`
    /// free (0: no quota). Returns the first ID.
    ///
    /// # Errors
    ///
    /// `ENODATA` for an empty set, `EINVAL` for a zero count, `EDQUOT` when the quota would be
    /// broken, `ENOSPC` when no run is long enough.
    pub(crate) fn reserve_low(&mut self, count: u32, spare: u32) -> Result<u32> {
        self.check(count, spare)?;
        let (start, _) = self
            .free_runs()
            .find(|(_, len)| *len >= count)
            .ok_or(ENOSPC)?;
        self.set(start, count, true);
        self.used += count;
        Ok(start)
    }

    /// Reserves `count` contiguous IDs at the top of the highest free run that fits, leaving
    /// at least `spare` free. Returns the first ID.
    ///
    /// # Errors
    ///
    /// As [`Ids::reserve_low`].
    pub(crate) fn reserve_high(&mut self, count: u32, spare: u32) -> Result<u32> {
        self.check(count, spare)?;
        let (start, len) = self
            .free_runs()
            .filter(|(_, len)| *len >= count)
            .last()
            .ok_or(ENOSPC)?;
        let first = start + len - count;
        self.set(first, count, true);
        self.used += count;
        Ok(first)
    }

    /// Gives back `count` IDs from `start`.
    ///
    /// # Errors
    ///
    /// `EINVAL` unless every one of them is reserved (nothing changes then).
    pub(crate) fn release(&mut self, start: u32, count: u32) -> Result {
        let end = start.checked_add(count).ok_or(EINVAL)?;
        // Every ID of the range reserved: no free one from `start` before `end`.
        let all_reserved = self.next_free(start).is_none_or(|free| free >= end);
        if count == 0 || end > self.total || !all_reserved {
            return Err(EINVAL);
        }
        self.set(start, count, false);
        self.used -= count;
        Ok(())
    }

    /// The largest `n` such that `vfs` runs of `n` IDs could be reserved now as one run,
    /// leaving `spare` free: upstream's fair estimate for contexts and doorbells.
    pub(crate) fn largest_fair(&self, vfs: u32, spare: u32) -> u32 {
        if vfs == 0 || self.total == 0 {
            return 0;
        }
        let free = self.total - self.used;
        let longest = self.free_runs().map(|(_, len)| len).max().unwrap_or(0);
        let by_quota = free.saturating_sub(spare) / vfs;
        by_quota.min(longest / vfs)
    }
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_sriov_ids)]
mod tests {
    use super::*;

    // Upstream's doorbell-manager vectors (tests/xe_guc_db_mgr_test.c), for the sizes it
    // uses: 4, 8, 32 and 256.
    const SIZES: [u32; 4] = [4, 8, 32, 256];

    #[test]
    fn empty_set_refuses_everything() -> Result {
        let mut ids = Ids::new(0)?;
        assert_eq!(ids.reserve_low(1, 0), Err(ENODATA));
        assert_eq!(ids.reserve_high(1, 1), Err(ENODATA));
        assert_eq!(Ids::new(CONTEXTS + 1).err(), Some(ERANGE));
        Ok(())
    }

    #[test]
    fn singles_fill_the_set_then_fail() -> Result {
        for p in SIZES {
            let mut ids = Ids::new(p)?;
            for want in 0..p {
                assert_eq!(ids.reserve_low(1, 0), Ok(want));
            }
            assert_eq!(ids.reserve_low(1, 0), Err(ENOSPC));
            assert_eq!(ids.used(), p);
        }
        Ok(())
    }

    #[test]
    fn first_fit_reuses_a_released_id() -> Result {
        for p in SIZES {
            let mut ids = Ids::new(p)?;
            for _ in 0..p {
                ids.reserve_low(1, 0)?;
            }
            for n in 0..p {
                ids.release(n, 1)?;
                assert_eq!(ids.reserve_low(1, 0), Ok(n));
            }
            assert_eq!(ids.reserve_low(1, 0), Err(ENOSPC));
        }
        Ok(())
    }

    #[test]
    fn ranges_never_overlap_and_compact() -> Result {
        for p in SIZES {
            let mut ids = Ids::new(DOORBELLS)?;
            let first = ids.reserve_low(p, 0)?;
            for _ in 0..DOORBELLS - p {
                let id = ids.reserve_low(1, 0)?;
                assert!(id < first || id >= first + p);
            }
            assert_eq!(ids.reserve_low(1, 0), Err(ENOSPC));

            let mut ids = Ids::new(DOORBELLS)?;
            for k in 0..DOORBELLS / p {
                assert_eq!(ids.reserve_low(p, 0), Ok(k * p));
            }
            assert_eq!(ids.reserve_low(1, 0), Err(ENOSPC));
        }
        Ok(())
    }

    #[test]
    fn spare_is_a_quota() -> Result {
        for p in SIZES {
            let mut ids = Ids::new(DOORBELLS)?;
            assert_eq!(ids.reserve_low(p, DOORBELLS), Err(EDQUOT));
            assert_eq!(ids.reserve_low(p, DOORBELLS - p + 1), Err(EDQUOT));
            assert_eq!(ids.reserve_low(p, DOORBELLS - p), Ok(0));
            // Over quota, or (p = 256, no quota left to check) out of IDs.
            let want = if p < DOORBELLS { EDQUOT } else { ENOSPC };
            assert_eq!(ids.reserve_low(1, DOORBELLS - p), Err(want));
        }
        Ok(())
    }

    // Upstream's context-manager vectors (tests/xe_guc_id_mgr_test.c).
    #[test]
    fn context_quota_and_accounting() -> Result {
        let mut ids = Ids::new(2)?;
        assert_eq!(ids.reserve_high(1, 2), Err(EDQUOT));
        assert_eq!(ids.reserve_high(2, 1), Err(EDQUOT));
        assert_eq!(ids.reserve_high(1, 1), Ok(1));
        assert_eq!(ids.reserve_high(1, 0), Ok(0));
        assert_eq!(ids.used(), 2);
        ids.release(0, 2)?;
        assert_eq!(ids.used(), 0);
        Ok(())
    }

    #[test]
    fn high_reservations_come_from_the_top() -> Result {
        let mut ids = Ids::new(CONTEXTS)?;
        assert_eq!(ids.reserve_low(256, 0), Ok(0));
        assert_eq!(ids.reserve_high(1024, 256), Ok(CONTEXTS - 1024));
        assert_eq!(ids.reserve_high(1024, 256), Ok(CONTEXTS - 2048));
        // A hole in the middle is not the highest run.
        ids.release(CONTEXTS - 1024, 1024)?;
        assert_eq!(ids.reserve_high(16, 0), Ok(CONTEXTS - 16));
        Ok(())
    }

    #[test]
    fn release_refuses_what_is_not_reserved() -> Result {
        let mut ids = Ids::new(DOORBELLS)?;
        let a = ids.reserve_low(4, 0)?;
        assert_eq!(ids.release(a, 5), Err(EINVAL));
        assert_eq!(ids.release(DOORBELLS - 1, 2), Err(EINVAL));
        assert_eq!(ids.release(u32::MAX, 2), Err(EINVAL));
        assert_eq!(ids.used(), 4);
        ids.release(a, 4)?;
        assert_eq!(ids.release(a, 4), Err(EINVAL));
        Ok(())
    }

    #[test]
    fn fair_estimate_respects_spare_and_holes() -> Result {
        let mut ids = Ids::new(DOORBELLS)?;
        assert_eq!(ids.largest_fair(7, 0), 36);
        assert_eq!(ids.largest_fair(7, 16), 34);
        // The PF holds 0..16: 240 left.
        ids.reserve_low(16, 0)?;
        assert_eq!(ids.largest_fair(15, 0), 16);
        assert_eq!(ids.largest_fair(0, 0), 0);
        Ok(())
    }
}
