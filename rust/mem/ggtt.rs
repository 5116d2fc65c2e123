// SPDX-License-Identifier: GPL-2.0

//! Global GTT: the 4 GiB graphics address space shared by the GuC and (later) the VFs.
//!
//! Its page table is the GSM half of GTTMMADR ([`crate::mmio::GSM_OFFSET`]): one 8-byte entry
//! per 4 KiB page. The seed gives the GGTT's size and sharing rules (seed 000 lines 139-143,
//! 418) but not the entry format; that is upstream's (`regs/xe_gtt_defs.h`, `xe_ggtt.c`):
//! bit 0 present, bit 1 local memory (DM), bits 11:2 the owning VF (0 for the PF), address in
//! bits 51:12. Unused entries point at a scratch page in system memory, as upstream does, so a
//! stray GuC access lands somewhere harmless rather than faulting.
//!
//! Only the part the GuC can use is managed here: the GuC cannot reach below the WOPCM top
//! (4 MiB on discrete parts, upstream `xe_wopcm.c` `DGFX_WOPCM_SIZE`) nor at or above
//! 0xFEE00000 (`GUC_GGTT_TOP`, `regs/xe_gtt_defs.h`). After changing entries the GuC's GGTT
//! TLB must be invalidated, which is a GuC operation (`guc::tlb_inval`).

use kernel::{device::Bound, dma::Coherent, prelude::*, sync::Mutex};

use crate::{
    mmio::{Bar0, GSM_ENTRIES},
    range::{Range, RangeAllocator},
};

/// Page size of the GGTT.
pub(crate) const PAGE: u64 = 4096;
/// Lowest GGTT address the GuC can use (the WOPCM top).
pub(crate) const GUC_GGTT_BOTTOM: u64 = 4 << 20;
/// First GGTT address the GuC cannot use.
pub(crate) const GUC_GGTT_TOP: u64 = 0xfee0_0000;
/// Local memory mapped into the GGTT must be 64 KiB aligned on DG2 (upstream
/// `XE_GGTT_FLAGS_64K` for `XE_VRAM_FLAGS_NEED64K`).
pub(crate) const LMEM_ALIGN: u64 = 64 << 10;

kernel::bitfield! {
    /// A GGTT entry (upstream `regs/xe_gtt_defs.h`, `xe_ggtt.c`).
    struct Pte(u64) {
        /// Page frame: address bits 51:12.
        51:12 frame;
        /// The owning VF; 0 for the PF.
        11:2 vfid;
        /// The page is in local memory (DM).
        1:1 lmem => bool;
        0:0 present => bool;
    }
}

/// The entry for a PF page at `addr` (device physical for local memory, DMA address
/// otherwise).
///
/// # Errors
///
/// `EINVAL` for an address that is not page aligned or does not fit 52 bits.
pub(crate) fn pte(addr: u64, lmem: bool) -> Result<u64> {
    if addr % PAGE != 0 {
        return Err(EINVAL);
    }
    let entry = Pte::from_raw(0)
        .try_with_frame(addr / PAGE)
        .map_err(|_| EINVAL)?
        .with_lmem(lmem)
        .with_present(true);
    Ok(entry.into_raw())
}

/// Functions the VF-ID field can name besides the PF: the LMTT's 63 VFs (seed 000 line 382).
pub(crate) const MAX_VFS: u16 = 63;

/// The entry of a page given to VF `vf`: present, owned by `vf`, no address yet. The VF fills
/// in the address through its own GTT window, which can change every field but the function
/// number and the valid bit (seed 000 lines 146-156); the PF must therefore set both
/// (upstream `xe_ggtt_assign` also sets present, "as on some platforms VFs can't modify that").
///
/// # Errors
///
/// `EINVAL` for the PF (0) or a function above [`MAX_VFS`].
pub(crate) fn vf_pte(vf: u16) -> Result<u64> {
    if vf == 0 || vf > MAX_VFS {
        return Err(EINVAL);
    }
    let entry = Pte::from_raw(0)
        .try_with_vfid(u64::from(vf))
        .map_err(|_| EINVAL)?
        .with_present(true);
    Ok(entry.into_raw())
}

/// A GGTT range mapping local or system memory.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Mapping {
    pub(crate) ggtt: Range,
}

impl Mapping {
    /// GGTT address of `offset` bytes into the mapping.
    pub(crate) fn addr(&self, offset: u64) -> u64 {
        self.ggtt.start + offset
    }
}

/// GGTT state of one device.
#[pin_data]
pub(crate) struct Ggtt {
    /// Process context; a leaf mutex, never taken under a spinlock or in the BARs' RCU
    /// section (Documentation/architecture.rst, "Locks").
    #[pin]
    alloc: Mutex<RangeAllocator>,
    /// What every unused entry points at. Freed with the GGTT: if the GuC could not be
    /// stopped at unbind, bus mastering is off by then (`Guc::fini`).
    scratch: Coherent<[u8; 4096]>,
}

impl Ggtt {
    /// The GGTT with every entry of the managed window pointing at a fresh scratch page, so
    /// nothing a previous driver left there stays reachable.
    ///
    /// # Errors
    ///
    /// `ENOMEM`, or a GSM write error.
    pub(crate) fn new(
        dev: &kernel::device::Device<Bound>,
        bar: Bar0<'_>,
    ) -> Result<impl PinInit<Self, Error>> {
        let alloc = RangeAllocator::new(GUC_GGTT_BOTTOM, GUC_GGTT_TOP)?;
        let scratch = Coherent::<[u8; 4096]>::zeroed(dev, GFP_KERNEL)?;
        let scratch_pte = pte(scratch.dma_address(), false)?;
        for index in GUC_GGTT_BOTTOM / PAGE..GUC_GGTT_TOP / PAGE {
            bar.write_gsm(index, scratch_pte)?;
        }
        Ok(try_pin_init!(Self {
            alloc <- kernel::new_mutex!(alloc),
            scratch,
        }))
    }

    fn scratch_pte(&self) -> Result<u64> {
        pte(self.scratch.dma_address(), false)
    }

    /// Maps `size` bytes of local memory at `lmem_offset` (both 64 KiB aligned) into a fresh
    /// GGTT range. The caller invalidates the GuC TLB before the GuC uses it.
    ///
    /// # Errors
    ///
    /// `EINVAL` for a misaligned range, `ENOSPC` if the GuC window is full, `ENOMEM`, or a GSM
    /// write error.
    pub(crate) fn map_lmem(&self, bar: Bar0<'_>, lmem_offset: u64, size: u64) -> Result<Mapping> {
        if lmem_offset % LMEM_ALIGN != 0 {
            return Err(EINVAL);
        }
        self.map(bar, lmem_offset, size, true)
    }

    /// Maps `size` bytes of system memory at bus address `dma` (page aligned and contiguous:
    /// one coherent DMA allocation) into a fresh GGTT range. The caller invalidates the GuC
    /// TLB before the GuC uses it.
    ///
    /// # Errors
    ///
    /// As [`Ggtt::map_lmem`].
    pub(crate) fn map_sys(&self, bar: Bar0<'_>, dma: u64, size: u64) -> Result<Mapping> {
        if dma % PAGE != 0 {
            return Err(EINVAL);
        }
        self.map(bar, dma, size, false)
    }

    /// Points a fresh GGTT range at `size` bytes from `base`, local memory or not.
    fn map(&self, bar: Bar0<'_>, base: u64, size: u64, lmem: bool) -> Result<Mapping> {
        let ggtt = self.reserve(size)?;
        let mapping = Mapping { ggtt };
        if let Err(e) = self.point(bar, mapping, base, lmem) {
            self.unmap(bar, mapping);
            return Err(e);
        }
        Ok(mapping)
    }

    /// Reserves a GGTT range of `size` bytes (64 KiB aligned) without touching an entry: the
    /// half of a mapping that takes the allocator's mutex, for callers that may not sleep
    /// while they hold the BAR (a debugfs callback), which then [`Ggtt::point`] it. Process
    /// context.
    ///
    /// # Errors
    ///
    /// `EINVAL` for a size that is not whole pages, `ENOSPC`, `ENOMEM`.
    pub(crate) fn reserve(&self, size: u64) -> Result<Range> {
        if size % PAGE != 0 {
            return Err(EINVAL);
        }
        self.alloc.lock().alloc(size, LMEM_ALIGN)
    }

    /// Points the entries of a reserved range at `base` (local memory when `lmem`): only GSM
    /// writes, no lock, callable with the BAR held. On an error the range is left to
    /// [`Ggtt::unmap`] or [`Ggtt::clear`].
    ///
    /// # Errors
    ///
    /// A PTE encoding or GSM write error.
    pub(crate) fn point(&self, bar: Bar0<'_>, mapping: Mapping, base: u64, lmem: bool) -> Result {
        let ggtt = mapping.ggtt;
        (0..ggtt.size() / PAGE).try_for_each(|page| {
            let entry = pte(base + page * PAGE, lmem)?;
            bar.write_gsm(ggtt.start / PAGE + page, entry)
        })
    }

    /// Points a mapping's entries back at scratch; only GSM writes (see [`Ggtt::reserve`]).
    pub(crate) fn clear(&self, bar: Bar0<'_>, mapping: Mapping) {
        if let Ok(scratch) = self.scratch_pte() {
            for index in mapping.ggtt.start / PAGE..mapping.ggtt.end / PAGE {
                if index >= GSM_ENTRIES || bar.write_gsm(index, scratch).is_err() {
                    break;
                }
            }
        }
    }

    /// Frees a range whose entries point at scratch again. Process context.
    pub(crate) fn release(&self, range: Range) {
        // A range this allocator handed out is always accepted back.
        let _ = self.alloc.lock().free(range);
    }

    /// Points a mapping's entries back at scratch and frees its range. Best effort: called on
    /// teardown paths, where the only thing left to do with an error is to report it.
    pub(crate) fn unmap(&self, bar: Bar0<'_>, mapping: Mapping) {
        self.clear(bar, mapping);
        self.release(mapping.ggtt);
    }
}

/// The VF half: ranges given to virtual functions (the PF block, `sriov`).
impl Ggtt {
    /// Reserves `size` bytes of the GuC's GGTT window for a VF: the highest 64 KiB aligned
    /// range that fits (upstream places VF ranges top-down too), entries untouched; the
    /// caller stamps them ([`Ggtt::sanitize_vf`]) and later points them back at scratch and
    /// releases the range ([`Ggtt::clear`], [`Ggtt::release`]). Process context (mutex).
    ///
    /// # Errors
    ///
    /// `EINVAL` for a size that is not whole pages, `ENOSPC`, `ENOMEM`.
    pub(crate) fn reserve_vf(&self, size: u64) -> Result<Range> {
        if size % PAGE != 0 {
            return Err(EINVAL);
        }
        self.alloc.lock().alloc_high(size, LMEM_ALIGN)
    }

    /// Stamps every entry of a VF's range with the VF, dropping whatever address it held: at
    /// provisioning, and as the GGTT part of the VF FLR sequence (seed 000 lines 300-326).
    /// Only GSM writes: any context, callable with the BAR held.
    ///
    /// # Errors
    ///
    /// `EINVAL` for a bad VF number, a GSM write error.
    pub(crate) fn sanitize_vf(&self, bar: Bar0<'_>, range: Range, vf: u16) -> Result {
        self.fill(bar, range, vf_pte(vf)?)
    }

    /// The largest range one more VF could get now (64 KiB aligned). Process context.
    pub(crate) fn largest_hole(&self) -> u64 {
        self.alloc.lock().largest(LMEM_ALIGN)
    }

    /// Calls `f` with each allocated run of the GuC's window (the PF's and the VFs'), in
    /// address order; for the debugfs provisioning map. Process context (mutex).
    pub(crate) fn for_each_used<E>(
        &self,
        mut f: impl FnMut(Range) -> Result<(), E>,
    ) -> Result<(), E> {
        self.alloc.lock().used().try_for_each(&mut f)
    }

    /// Writes `entry` to every entry of `range`.
    fn fill(&self, bar: Bar0<'_>, range: Range, entry: u64) -> Result {
        (range.start / PAGE..range.end / PAGE).try_for_each(|index| bar.write_gsm(index, entry))
    }
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_ggtt)]
mod tests {
    use super::*;

    #[test]
    fn pte_encoding() {
        assert_eq!(pte(0x1234_5000, false), Ok(0x1234_5001));
        assert_eq!(pte(0x1234_5000, true), Ok(0x1234_5003));
        // The top of the 52-bit address field is accepted, a bit above it is not.
        assert_eq!(pte(1 << 51, true), Ok((1 << 51) | 3));
        assert_eq!(pte(1 << 52, false), Err(EINVAL));
        // Unaligned addresses would corrupt the flag and VF-ID bits.
        assert_eq!(pte(0x1000 | 0x4, false), Err(EINVAL));
        // VF ID bits 11:2 stay 0 for the PF.
        assert_eq!(pte(0xf000, true).map(|p| p & 0xffc), Ok(0));
    }

    #[test]
    fn vf_entries_carry_the_function_and_present() {
        assert_eq!(vf_pte(1), Ok(0x5));
        assert_eq!(vf_pte(2), Ok(0x9));
        assert_eq!(vf_pte(63), Ok(63 << 2 | 1));
        assert_eq!(vf_pte(0), Err(EINVAL));
        assert_eq!(vf_pte(64), Err(EINVAL));
    }

    #[test]
    fn guc_window_bounds() {
        assert!(GUC_GGTT_TOP / PAGE <= GSM_ENTRIES);
        assert_eq!(GUC_GGTT_BOTTOM % LMEM_ALIGN, 0);
    }
}
