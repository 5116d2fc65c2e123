// SPDX-License-Identifier: GPL-2.0

//! MMIO doorbells: submission by one register write the GuC watches, instead of a CT message.
//!
//! # What this rests on
//!
//! The PRM describes the mechanism (seed 000 lines 1001-1073): 4 MiB of BAR 0 from 0x400000
//! are 1024 doorbell pages of 4 KiB; 256 physical doorbells, whose registers (SGUNIT
//! 0x3ff000-0x3ff7f8) only the GuC may arm. To use one, the driver picks a free page and a
//! physical doorbell (steps 1-2), puts the page's offset in BAR 0 into the context descriptor
//! it hands the GuC (step 3) and asks the GuC over H2G to arm that doorbell for the context
//! (step 4); the GuC validates the choice and programs the doorbell register (steps 5-6).
//! A write to the page then rings it.
//!
//! Upstream never rings doorbells with GuC 70 firmware (`xe_guc_submit.c` has no doorbell): the only
//! anchors are the legacy action codes `ALLOCATE_DOORBELL` (0x10) and `DEALLOCATE_DOORBELL`
//! (0x20) of `abi/guc_actions_abi.h`, which nothing calls. So:
//!
//! - GUESS: the H2G payload of `ALLOCATE_DOORBELL` is {context index, physical doorbell,
//!   page offset in BAR 0} (the three things step 4 says the GuC needs), and
//!   `DEALLOCATE_DOORBELL` is {context index};
//! - GUESS: the value written to the page is a cookie that changes at every ring (the
//!   memory doorbells' DW0 cookie, seed 000 line 1011), here the request's seqno;
//! - FALLBACK: a GuC that refuses the allocation (real 70.x firmware answers an unknown
//!   action) is logged once per port and the port submits with `SCHED_CONTEXT`, which real
//!   firmware takes. Doorbells are off unless the `guc_doorbells` module parameter asks.
//!
//! Because the ABI is a guess, this module, the parameter and every doorbell path build only
//! in the test build (`--cfg xehpg_test`, `XEHPG_TEST=y`); the production module submits with
//! `SCHED_CONTEXT` alone and never writes the doorbell window.

use kernel::{
    bitmap::BitmapVec,
    prelude::*,
    sync::atomic::{Atomic, Relaxed},
};

/// Doorbell pages in BAR 0 and physical doorbells (seed 000 lines 1034-1044).
pub(crate) const PAGES: usize = 1024;
pub(crate) const PHYSICAL: usize = 256;
/// Offset of page 0 in BAR 0 (seed 000 line 1036).
pub(crate) const WINDOW: u32 = crate::mmio::DOORBELL_WINDOW;

/// The `guc_doorbells` module parameter, handed down by module init before the driver
/// registers.
static ASKED: Atomic<bool> = Atomic::new(false);

/// Sets `guc_doorbells`; called once by module init.
pub(crate) fn set_asked(on: bool) {
    ASKED.store(on, Relaxed);
}

/// Whether `guc_doorbells` asks for doorbells (probe).
pub(crate) fn asked() -> bool {
    ASKED.load(Relaxed)
}

/// A doorbell held by a context: its physical doorbell and its page.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Doorbell {
    pub(crate) id: u16,
    pub(crate) page: u16,
}

impl Doorbell {
    /// The page's offset in BAR 0: what the PRM's step 3 puts in the descriptor.
    pub(crate) const fn offset(&self) -> u32 {
        WINDOW + self.page as u32 * 4096
    }
}

/// Which physical doorbells and pages are taken: two kernel bitmaps (`kernel::bitmap`,
/// `include/linux/bitmap.h`), sized once at probe so that taking and giving back a doorbell
/// (under the submission spinlock) never allocates.
///
/// Not `kernel::id_pool::IdPool`: it has no way to ask whether an ID is taken, which
/// [`Pool::free`] needs to refuse a doorbell it did not hand out, and its growing is of no use
/// for a fixed hardware count.
pub(crate) struct Pool {
    ids: BitmapVec,
    pages: BitmapVec,
    used: u32,
}

/// Whether `bit` of `map` is set (the Rust bitmap has no `test_bit`; the next set bit from
/// `bit` is `bit` itself exactly when it is set).
fn is_set(map: &BitmapVec, bit: usize) -> bool {
    bit < map.len() && map.next_bit(bit) == Some(bit)
}

impl Pool {
    /// An empty pool. Process context (probe): allocates the two bitmaps.
    ///
    /// # Errors
    ///
    /// `ENOMEM`.
    pub(crate) fn new() -> Result<Self> {
        Ok(Self {
            ids: BitmapVec::new(PHYSICAL, GFP_KERNEL)?,
            pages: BitmapVec::new(PAGES, GFP_KERNEL)?,
            used: 0,
        })
    }

    /// A free physical doorbell and a free page (PRM step 1: "select a free/available
    /// Doorbell Page"), lowest first; `None` when either runs out ("KMD will fail that
    /// request"). Any context; no allocation.
    pub(crate) fn alloc(&mut self) -> Option<Doorbell> {
        let id = self.ids.next_zero_bit(0)?;
        let page = self.pages.next_zero_bit(0)?;
        // Both below PAGES (1024), the longer bitmap's length: the conversions cannot fail.
        let d = Doorbell {
            id: u16::try_from(id).ok()?,
            page: u16::try_from(page).ok()?,
        };
        self.ids.set_bit(id);
        self.pages.set_bit(page);
        self.used += 1;
        Some(d)
    }

    /// Gives a doorbell back. Any context; no allocation.
    ///
    /// # Errors
    ///
    /// `EINVAL` for one this pool did not hand out (nothing changes).
    pub(crate) fn free(&mut self, d: Doorbell) -> Result {
        let (id, page) = (usize::from(d.id), usize::from(d.page));
        if !is_set(&self.ids, id) || !is_set(&self.pages, page) {
            return Err(EINVAL);
        }
        self.ids.clear_bit(id);
        self.pages.clear_bit(page);
        self.used -= 1;
        Ok(())
    }

    /// Physical doorbells in use.
    pub(crate) fn used(&self) -> u32 {
        self.used
    }
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_doorbell)]
mod tests {
    use super::*;

    #[test]
    fn allocates_lowest_first_and_reuses() -> Result {
        let mut p = Pool::new()?;
        assert_eq!(p.alloc(), Some(Doorbell { id: 0, page: 0 }));
        assert_eq!(p.alloc(), Some(Doorbell { id: 1, page: 1 }));
        assert_eq!(p.free(Doorbell { id: 0, page: 0 }), Ok(()));
        assert_eq!(p.alloc(), Some(Doorbell { id: 0, page: 0 }));
        assert_eq!(p.used(), 2);
        Ok(())
    }

    #[test]
    fn runs_out_at_256_physical_doorbells() -> Result {
        let mut p = Pool::new()?;
        for i in 0..PHYSICAL {
            assert_eq!(p.alloc().map(|d| usize::from(d.id)), Some(i));
        }
        assert_eq!(p.alloc(), None);
        assert_eq!(p.used(), 256);
        // A failed allocation took no page either.
        assert_eq!(p.free(Doorbell { id: 255, page: 255 }), Ok(()));
        assert_eq!(p.alloc(), Some(Doorbell { id: 255, page: 255 }));
        Ok(())
    }

    #[test]
    fn refuses_what_it_did_not_hand_out() -> Result {
        let mut p = Pool::new()?;
        assert_eq!(p.free(Doorbell { id: 3, page: 3 }), Err(EINVAL));
        // Beyond the bitmaps: refused, not a write past their end.
        assert_eq!(p.free(Doorbell { id: 256, page: 0 }), Err(EINVAL));
        let d = p.alloc();
        assert_eq!(d, Some(Doorbell { id: 0, page: 0 }));
        assert_eq!(p.free(Doorbell { id: 0, page: 1024 }), Err(EINVAL));
        assert_eq!(p.free(Doorbell { id: 0, page: 1 }), Err(EINVAL));
        assert_eq!(p.used(), 1);
        assert_eq!(p.free(Doorbell { id: 0, page: 0 }), Ok(()));
        assert_eq!(p.free(Doorbell { id: 0, page: 0 }), Err(EINVAL));
        Ok(())
    }

    #[test]
    fn pages_lie_in_the_prm_window() {
        assert_eq!(Doorbell { id: 0, page: 0 }.offset(), 0x40_0000);
        assert_eq!(Doorbell { id: 0, page: 1023 }.offset(), 0x7f_f000);
    }
}
