// SPDX-License-Identifier: GPL-2.0

//! Local memory (LMEM): the LMEMBAR aperture and the physical size behind it.
//!
//! The PF LMEM_BAR gives the host direct access to local memory and its size is configurable
//! (seed 000, lines 443-451); upstream xe maps it as BAR 2 (`drivers/gpu/drm/xe/regs/xe_bars.h`)
//! and reads the physical size from SG_TILE_ADDR_RANGE (`drivers/gpu/drm/xe/xe_vram.c`). A BAR
//! smaller than local memory is a "small BAR" setup: legal, reported, and later blocks must
//! reach memory above the BAR through the GGTT or a blitter instead of the CPU.

use core::{num::NonZeroU64, ops::Deref};

use kernel::{
    device::Bound,
    gpu::buddy::{
        AllocatedBlocks, GpuBuddy, GpuBuddyAllocFlag, GpuBuddyAllocFlags, GpuBuddyAllocMode,
        GpuBuddyParams,
    },
    io::{Io, IoBackend, IoBase, Mmio as IoView, MmioBackend},
    pci,
    prelude::*,
    ptr::Alignment,
    sizes::SZ_256M,
    sync::{Arc, Mutex},
};

use crate::{
    mem::ggtt::LMEM_ALIGN,
    mmio::{Bar0, LMEM_BAR},
    range::Range,
    regs::SG_TILE_ADDR_RANGE,
};

const SZ_1G: u64 = 1 << 30;

/// Smallest LMEMBAR the driver accepts. The BAR is resizable in powers of two and 256 MiB is
/// the smallest size Xe-HPG parts offer (upstream's rebar code, `xe_pci_rebar.c`, never goes
/// below it either); anything smaller means firmware set the device up wrongly.
pub(crate) const LMEMBAR_MIN: u64 = SZ_256M as u64;

/// Why an LMEMBAR length is unusable.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum BarError {
    TooSmall,
    NotPowerOfTwo,
}

/// Checks the LMEMBAR length the PCI core sized.
///
/// # Errors
///
/// Why the length is unusable.
pub(crate) fn check_bar_len(len: u64) -> Result<(), BarError> {
    if len < LMEMBAR_MIN {
        Err(BarError::TooSmall)
    } else if !len.is_power_of_two() {
        Err(BarError::NotPowerOfTwo)
    } else {
        Ok(())
    }
}

/// Tile 0's local memory as SG_TILE_ADDR_RANGE describes it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct TileRange {
    /// Raw register value, kept for reports.
    pub(crate) raw: u32,
    /// Physical size in bytes.
    pub(crate) size: u64,
    /// Base in the device physical address space, in bytes.
    pub(crate) offset: u64,
}

impl TileRange {
    /// Decodes a raw SG_TILE_ADDR_RANGE value; a zero size is refused (the register is only
    /// meaningful after LMEM_INIT, and a device with no local memory is not an Xe-HPG dGPU).
    pub(crate) fn decode(raw: u32) -> Option<Self> {
        let reg = SG_TILE_ADDR_RANGE::from_raw(raw);
        let size = u64::from(reg.size_gib().get()) * SZ_1G;
        let offset = u64::from(reg.offset_gib().get()) * SZ_1G;
        (size != 0).then_some(Self { raw, size, offset })
    }

    /// Reads and decodes tile 0's range.
    ///
    /// # Errors
    ///
    /// `EIO` if the register reports no local memory.
    pub(crate) fn read(dev: &kernel::device::Device, bar: Bar0<'_>) -> Result<Self> {
        let raw = bar.read(SG_TILE_ADDR_RANGE).into_raw();
        Self::decode(raw).ok_or_else(|| {
            dev_err!(
                dev,
                "probe: SG_TILE_ADDR_RANGE reads {:#010x}: no local memory reported\n",
                raw
            );
            EIO
        })
    }
}

/// `size` bytes from `buddy` in blocks of at least `min`, as `flags` asks. Process context.
///
/// # Errors
///
/// `ENOSPC` for more than is free (the buddy would call a request larger than what it manages
/// invalid, not out of space), else what the buddy or the allocation of the list fails with.
fn take(
    buddy: &GpuBuddy,
    size: u64,
    min: Alignment,
    flags: GpuBuddyAllocFlags,
) -> Result<Pin<KBox<AllocatedBlocks>>> {
    if size > buddy.avail() {
        return Err(ENOSPC);
    }
    KBox::pin_init(
        buddy.alloc_blocks(GpuBuddyAllocMode::Simple, size, min, flags),
        GFP_KERNEL,
    )
}

/// Local memory the driver allocates its own objects from: the CPU-visible part below
/// LMEMBAR's end (the GuC objects, the LMTT tables and the KLV page are written by the CPU).
///
/// Upstream keeps all of VRAM in one `drm_buddy` and asks for the CPU-visible part with a
/// range constraint (`xe_ttm_vram_mgr.c`, `xe_ttm_vram_mgr_new`: `DRM_BUDDY_RANGE_ALLOCATION`
/// up to `visible_size` for `TTM_PL_FLAG_CONTIGUOUS`/CPU-access objects). This pool is that
/// visible part on its own [`GpuBuddy`] (the kernel's GPU buddy allocator, which `drm_buddy`
/// became); the VFs' share beyond it is a [`PagePool`]. Every object is one
/// contiguous run (the GGTT maps it as one range, the CPU writes it at one offset), 64 KiB
/// aligned as GGTT mappings of local memory must be on DG2 ([`LMEM_ALIGN`]); the buddy
/// hands it out as a power-of-two block trimmed to size, so it is aligned to at least that.
///
/// An allocation is an [`LmemBlock`]: dropping it gives the memory back, so an error path
/// needs no free of its own. The buddy's own mutex serialises allocations and frees (process
/// context); `used` is a leaf mutex for the debugfs map.
pub(crate) struct LmemPool {
    buddy: GpuBuddy,
    used: Arc<Used>,
}

/// The runs handed out and not yet dropped, for the debugfs provisioning map (the buddy has
/// no walk of its allocations). A leaf mutex, never taken under a spinlock or in the BARs' RCU
/// section (Documentation/architecture.rst, "Locks").
type Used = Mutex<KVec<Range>>;

impl LmemPool {
    /// A pool over `[0, size)` of local memory. Process context (probe).
    ///
    /// # Errors
    ///
    /// `EINVAL` for a pool smaller than one 64 KiB chunk, `ENOMEM`.
    pub(crate) fn new(size: u64) -> Result<Self> {
        if size < LMEM_ALIGN {
            return Err(EINVAL);
        }
        let buddy = GpuBuddy::new(GpuBuddyParams {
            base_offset: 0,
            // Whole chunks only, as `gpu_buddy_init` keeps.
            size: size - size % LMEM_ALIGN,
            chunk_size: Alignment::new::<{ LMEM_ALIGN as usize }>(),
        })?;
        let used = Arc::pin_init(kernel::new_mutex!(KVec::new()), GFP_KERNEL)?;
        Ok(Self { buddy, used })
    }

    /// Allocates at least `size` bytes (rounded up to 64 KiB) as one contiguous run. Process
    /// context.
    ///
    /// # Errors
    ///
    /// `EINVAL` for a zero size or one that overflows, `ENOSPC` if no run that large is free,
    /// `ENOMEM`.
    pub(crate) fn alloc(&self, size: u64) -> Result<LmemBlock> {
        let size = size.checked_next_multiple_of(LMEM_ALIGN).ok_or(EINVAL)?;
        if size == 0 {
            return Err(EINVAL);
        }
        let blocks = take(
            &self.buddy,
            size,
            Alignment::new::<{ LMEM_ALIGN as usize }>(),
            GpuBuddyAllocFlag::Contiguous.into(),
        )?;
        // A trimmed contiguous allocation is several blocks side by side; check they are.
        let start = blocks.iter().map(|b| b.offset()).min().ok_or(ENOSPC)?;
        let total: u64 = blocks.iter().map(|b| b.size()).sum();
        let end = blocks
            .iter()
            .map(|b| b.offset() + b.size())
            .max()
            .ok_or(ENOSPC)?;
        if end - start != total || total != size {
            return Err(EINVAL);
        }
        let range = Range { start, end };
        {
            let mut used = self.used.lock();
            let at = used.partition_point(|r| r.start < start);
            used.reserve(1, GFP_KERNEL)?;
            used.insert_within_capacity(at, range).map_err(|_| ENOMEM)?;
        }
        Ok(LmemBlock {
            range,
            _blocks: blocks,
            used: self.used.clone(),
        })
    }

    /// The pool's extent (the CPU-visible local memory the driver manages).
    pub(crate) fn window(&self) -> Range {
        Range {
            start: self.buddy.base_offset(),
            end: self.buddy.base_offset() + self.buddy.size(),
        }
    }

    /// Bytes still free.
    #[cfg(xehpg_kunit)]
    pub(crate) fn avail(&self) -> u64 {
        self.buddy.avail()
    }

    /// Calls `f` with each allocated run of the pool, in address order; for the debugfs
    /// provisioning map. Adjacent allocations come out as one run. Process context (mutex).
    pub(crate) fn for_each_used<E>(
        &self,
        mut f: impl FnMut(Range) -> Result<(), E>,
    ) -> Result<(), E> {
        let used = self.used.lock();
        let mut run: Option<Range> = None;
        for r in used.iter() {
            run = match run {
                Some(cur) if cur.end == r.start => Some(Range {
                    start: cur.start,
                    end: r.end,
                }),
                Some(cur) => {
                    f(cur)?;
                    Some(*r)
                }
                None => Some(*r),
            };
        }
        run.map_or(Ok(()), f)
    }
}

/// One allocation from the [`LmemPool`]: a contiguous run of local memory, given back when
/// dropped. It reads as its [`Range`].
pub(crate) struct LmemBlock {
    range: Range,
    /// The buddy's blocks; dropping them frees the run (after [`Drop::drop`] below has taken
    /// it off the map). They keep the buddy alive, so a block may outlive the pool's owner.
    _blocks: Pin<KBox<AllocatedBlocks>>,
    used: Arc<Used>,
}

impl Deref for LmemBlock {
    type Target = Range;

    fn deref(&self) -> &Range {
        &self.range
    }
}

impl Drop for LmemBlock {
    /// Process context (the map's mutex; the buddy's mutex when `_blocks` drops).
    fn drop(&mut self) {
        let mut used = self.used.lock();
        if let Some(i) = used.iter().position(|r| *r == self.range) {
            // `i` is in bounds.
            let _ = used.remove(i);
        }
    }
}

/// Local memory handed out in whole pages that need not be contiguous: the VFs' share,
/// beyond the CPU-visible [`LmemPool`].
///
/// Upstream gives each VF one object of 2 MiB pages wherever the VRAM manager finds them
/// (`xe_gt_sriov_pf_config.c` `pf_provision_vf_lmem`: `XE_BO_FLAG_NEEDS_2M`, not
/// `XE_BO_FLAG_CONTIGUOUS`), and the LMTT maps the VF's pages in order, so a VF's memory is a
/// list of runs, not one range. This is a second [`GpuBuddy`] over that region whose chunk is
/// the page: a request is split into power-of-two blocks, so any whole number of pages that is
/// free fits, however fragmented ([`Pages`]). Nothing here is reached by the CPU (the copy
/// engine clears it). Process context: the buddy's own mutex serialises allocations and frees.
pub(crate) struct PagePool {
    buddy: GpuBuddy,
    page: Alignment,
}

impl PagePool {
    /// A pool over `window` in pages of `page` bytes (a power of two, at least 4 KiB); a partial
    /// page at the window's end is left out. Process context (probe).
    ///
    /// # Errors
    ///
    /// `EINVAL` for a window not aligned to `page` at its start or holding no whole page,
    /// `ENOMEM`.
    pub(crate) fn new(window: Range, page: Alignment) -> Result<Self> {
        // CAST: a usize always fits a u64 on the 64-bit kernels the driver builds for.
        let unit = page.as_usize() as u64;
        if window.start % unit != 0 || window.end < window.start {
            return Err(EINVAL);
        }
        let size = window.size() - window.size() % unit;
        if size == 0 {
            return Err(EINVAL);
        }
        let buddy = GpuBuddy::new(GpuBuddyParams {
            base_offset: window.start,
            size,
            chunk_size: page,
        })?;
        Ok(Self { buddy, page })
    }

    /// Takes `size` bytes (a whole number of pages) from wherever they are free. Process context.
    ///
    /// # Errors
    ///
    /// `EINVAL` for a zero size or one that is not whole pages, `ENOSPC` if fewer pages are
    /// free, `ENOMEM`.
    pub(crate) fn alloc(&self, size: u64) -> Result<Pages> {
        // CAST: as in `new`.
        let unit = self.page.as_usize() as u64;
        if size == 0 || size % unit != 0 {
            return Err(EINVAL);
        }
        let blocks = take(&self.buddy, size, self.page, GpuBuddyAllocFlags::empty())?;
        let mut runs = KVec::<Range>::new();
        for b in blocks.iter() {
            runs.push(
                Range {
                    start: b.offset(),
                    end: b.offset() + b.size(),
                },
                GFP_KERNEL,
            )?;
        }
        runs.sort_unstable_by_key(|r| r.start);
        // Blocks that touch are one run; the buddy split one request into them.
        let mut merged = KVec::<Range>::with_capacity(runs.len(), GFP_KERNEL)?;
        for r in runs.iter() {
            match merged.last_mut() {
                Some(last) if last.end == r.start => last.end = r.end,
                _ => merged.push_within_capacity(*r).map_err(|_| ENOMEM)?,
            }
        }
        if merged.iter().map(Range::size).sum::<u64>() != size {
            // The buddy gave more or less than asked: never seen, but the LMTT and the GuC's
            // LMEM_SIZE must agree, so refuse it (the blocks go back as `blocks` drops).
            return Err(EINVAL);
        }
        Ok(Pages {
            runs: merged,
            page: NonZeroU64::new(unit).ok_or(EINVAL)?,
            _blocks: blocks,
        })
    }

    /// Bytes still free.
    pub(crate) fn avail(&self) -> u64 {
        self.buddy.avail()
    }

    /// The pool's extent.
    pub(crate) fn window(&self) -> Range {
        Range {
            start: self.buddy.base_offset(),
            end: self.buddy.base_offset() + self.buddy.size(),
        }
    }
}

/// One allocation from a [`PagePool`]: runs of whole pages in address order, given back when
/// dropped.
pub(crate) struct Pages {
    runs: KVec<Range>,
    /// The pool's page size.
    page: NonZeroU64,
    /// The buddy's blocks; dropping them frees the pages (and they keep the buddy alive).
    _blocks: Pin<KBox<AllocatedBlocks>>,
}

impl Pages {
    /// The runs, in address order, none touching the next.
    pub(crate) fn runs(&self) -> &[Range] {
        &self.runs
    }

    /// Bytes held.
    pub(crate) fn size(&self) -> u64 {
        self.runs.iter().map(Range::size).sum()
    }

    /// The device offset of each page, in order: page `i` of the allocation is the `i`th item.
    pub(crate) fn pages(&self) -> impl Iterator<Item = u64> + '_ {
        let page = self.page;
        // Neither product nor sum can wrap: both stay inside the run.
        self.runs.iter().flat_map(move |r| {
            (0..r.size() / page).map(move |i| r.start.wrapping_add(i.wrapping_mul(page.get())))
        })
    }
}

/// LMEMBAR (BAR 2) mapped for the bound device. Held in an `Arc` by the blocks that reach
/// local memory outside probe and unbind (the interrupt thread's G2H reads, debugfs); access
/// is revoked when the device is unbound.
pub(crate) struct Lmembar(pci::DevresBar);

impl Lmembar {
    /// Requests and maps the whole of BAR 2.
    ///
    /// # Errors
    ///
    /// Whatever requesting, mapping or registering the device resource fails with.
    pub(crate) fn map(pdev: &pci::Device<Bound>) -> Result<Self> {
        Ok(Self(
            pdev.iomap_region(LMEM_BAR, c"xehpg/lmembar")?
                .into_devres()?,
        ))
    }

    /// Local memory, for code that runs while `pdev` is bound (probe, unbind, the interrupt
    /// thread).
    ///
    /// # Errors
    ///
    /// `EINVAL` if `pdev` is not the device the BAR belongs to.
    pub(crate) fn access<'a>(&'a self, pdev: &'a pci::Device<Bound>) -> Result<LmemAccess<'a>> {
        Ok(LmemAccess(self.0.access(pdev.as_ref())?))
    }

    /// Runs `f` on local memory unless the device has been unbound (then `None`). `f` runs in
    /// an RCU read-side critical section and must not sleep.
    pub(crate) fn try_access_with<R>(&self, f: impl FnOnce(LmemAccess<'_>) -> R) -> Option<R> {
        self.0.try_access_with(|bar| f(LmemAccess(bar)))
    }
}

/// CPU access to local memory through LMEMBAR (plain memory, no side effects).
#[derive(Copy, Clone)]
pub(crate) struct LmemAccess<'a>(pub(crate) &'a pci::Bar<'a>);

/// Zeroes written per copy by [`LmemAccess::zero`].
const ZERO_CHUNK: usize = 4096;
static ZEROES: [u8; ZERO_CHUNK] = [0; ZERO_CHUNK];

impl<'a> LmemAccess<'a> {
    fn offset(at: u64) -> Result<usize> {
        usize::try_from(at).map_err(|_| EINVAL)
    }

    /// The `len` bytes of LMEMBAR at `at`, as one I/O view for whole-buffer copies
    /// (`memcpy_toio`/`memcpy_fromio`).
    fn bytes(&self, at: u64, len: usize) -> Result<IoView<'a, [u8]>> {
        let view = self.0.as_view();
        let base = MmioBackend::as_ptr(view);
        let start = Self::offset(at)?;
        let end = start.checked_add(len).ok_or(EINVAL)?;
        if end > self.0.size() {
            return Err(EINVAL);
        }
        let ptr = core::ptr::slice_from_raw_parts_mut(base.cast::<u8>().wrapping_add(start), len);
        // SAFETY: `ptr` covers `[start, end)` of the mapped BAR, which the check above keeps
        // inside the view: it is a projection of `view`, and `u8` has no alignment to keep.
        Ok(unsafe { MmioBackend::project_view(view, ptr) })
    }

    /// Copies `data` to local memory at `at` (4-byte aligned) in one `memcpy_toio`; a partial
    /// last dword is padded with zeroes.
    ///
    /// # Errors
    ///
    /// `EINVAL` if the range is not inside LMEMBAR.
    pub(crate) fn write_bytes(&self, at: u64, data: &[u8]) -> Result {
        let pad = data.len().next_multiple_of(4) - data.len();
        self.bytes(at, data.len() + pad)?;
        self.bytes(at, data.len())?.copy_from_slice(data);
        if pad > 0 {
            let end = at + data.len() as u64;
            self.bytes(end, pad)?.copy_from_slice(&ZEROES[..pad]);
        }
        Ok(())
    }

    /// Zeroes `len` bytes at `at`, a page-sized copy at a time.
    ///
    /// # Errors
    ///
    /// `EINVAL` if the range is not inside LMEMBAR.
    pub(crate) fn zero(&self, at: u64, len: u64) -> Result {
        self.bytes(at, Self::offset(len)?)?;
        let mut done = 0;
        while done < len {
            // CAST: bounded by `ZERO_CHUNK`.
            let n = (len - done).min(ZERO_CHUNK as u64) as usize;
            self.bytes(at + done, n)?.copy_from_slice(&ZEROES[..n]);
            done += n as u64;
        }
        Ok(())
    }

    /// Copies `buf.len()` bytes of local memory at `at` into `buf` in one `memcpy_fromio`.
    ///
    /// # Errors
    ///
    /// `EINVAL` if the range is not inside LMEMBAR.
    pub(crate) fn read_bytes(&self, at: u64, buf: &mut [u8]) -> Result {
        self.bytes(at, buf.len())?.copy_to_slice(buf);
        Ok(())
    }

    /// Writes one dword.
    ///
    /// # Errors
    ///
    /// `EINVAL` if `at` is outside LMEMBAR or misaligned.
    pub(crate) fn write32(&self, at: u64, value: u32) -> Result {
        self.0.try_write32(value, Self::offset(at)?)
    }

    /// Reads one dword.
    ///
    /// # Errors
    ///
    /// `EINVAL` if `at` is outside LMEMBAR or misaligned.
    pub(crate) fn read32(&self, at: u64) -> Result<u32> {
        self.0.try_read32(Self::offset(at)?)
    }
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_lmem)]
mod tests {
    use super::*;

    #[test]
    fn bar_lengths() {
        assert_eq!(check_bar_len(LMEMBAR_MIN), Ok(()));
        assert_eq!(check_bar_len(16 * SZ_1G), Ok(()));
        assert_eq!(check_bar_len(LMEMBAR_MIN / 2), Err(BarError::TooSmall));
        assert_eq!(check_bar_len(LMEMBAR_MIN * 3), Err(BarError::NotPowerOfTwo));
        assert_eq!(check_bar_len(0), Err(BarError::TooSmall));
    }

    #[test]
    fn tile_range_fields() {
        // 16 GiB at offset 0: size field (17:8) = 16.
        let t = TileRange::decode(16 << 8).ok_or(EINVAL);
        assert_eq!(t.map(|t| t.size), Ok(16 * SZ_1G));
        // 4 GiB at 2 GiB: offset field (7:1) = 2; bit 0 is not part of either field.
        let t = TileRange::decode((4 << 8) | (2 << 1) | 1).ok_or(EINVAL);
        assert_eq!(t.map(|t| (t.size, t.offset)), Ok((4 * SZ_1G, 2 * SZ_1G)));
        // Bits above 17 do not leak into the size.
        let t = TileRange::decode((1 << 18) | (8 << 8)).ok_or(EINVAL);
        assert_eq!(t.map(|t| t.size), Ok(8 * SZ_1G));
    }

    const SZ_1M: u64 = 1 << 20;

    #[test]
    fn pool_runs_are_aligned_and_contiguous() -> Result {
        let pool = LmemPool::new(16 * SZ_1M)?;
        assert_eq!(
            pool.window(),
            Range {
                start: 0,
                end: 16 * SZ_1M
            }
        );
        let before = pool.avail();
        // One byte takes a whole 64 KiB chunk.
        let a = pool.alloc(1)?;
        assert_eq!(a.size(), LMEM_ALIGN);
        assert_eq!(a.start % LMEM_ALIGN, 0);
        // Not a power of two: the run is trimmed to 192 KiB, but lies in one 256 KiB buddy
        // block, so it is aligned to that.
        let b = pool.alloc(3 * LMEM_ALIGN)?;
        assert_eq!(b.size(), 3 * LMEM_ALIGN);
        assert_eq!(b.start % (4 * LMEM_ALIGN), 0);
        assert!(b.end <= a.start || b.start >= a.end);
        assert_eq!(pool.avail(), before - 4 * LMEM_ALIGN);
        assert_eq!(pool.alloc(0).err(), Some(EINVAL));
        assert_eq!(pool.alloc(u64::MAX).err(), Some(EINVAL));
        Ok(())
    }

    #[test]
    fn pool_exhaustion_is_enospc_and_drop_gives_back() -> Result {
        let pool = LmemPool::new(4 * SZ_1M)?;
        let before = pool.avail();
        assert_eq!(before, 4 * SZ_1M);
        let half = pool.alloc(2 * SZ_1M)?;
        let quarter = pool.alloc(SZ_1M)?;
        // 1 MiB is left: 2 MiB cannot fit, nor can more than the pool.
        assert_eq!(pool.alloc(2 * SZ_1M).err(), Some(ENOSPC));
        assert_eq!(pool.alloc(8 * SZ_1M).err(), Some(ENOSPC));
        let mut used = KVec::new();
        pool.for_each_used(|r| used.push(r, GFP_KERNEL))?;
        assert_eq!(used.iter().map(Range::size).sum::<u64>(), 3 * SZ_1M);
        drop(half);
        assert_eq!(pool.avail(), 3 * SZ_1M);
        // The freed half is whole again: 2 MiB fits once more.
        let again = pool.alloc(2 * SZ_1M)?;
        drop(again);
        drop(quarter);
        assert_eq!(pool.avail(), before);
        let mut runs = 0;
        pool.for_each_used(|_| -> Result {
            runs += 1;
            Ok(())
        })?;
        assert_eq!(runs, 0);
        // Everything free again: the whole pool is one run.
        assert_eq!(pool.alloc(4 * SZ_1M)?.size(), 4 * SZ_1M);
        Ok(())
    }

    #[test]
    fn pool_fragmented_space_is_enospc() -> Result {
        let pool = LmemPool::new(4 * SZ_1M)?;
        let mut held = KVec::new();
        for _ in 0..4 {
            held.push(Some(pool.alloc(SZ_1M)?), GFP_KERNEL)?;
        }
        held.sort_unstable_by_key(|b| b.as_ref().map_or(0, |b| b.start));
        // Free the first and third MiB: 2 MiB free, but no 2 MiB run.
        held[0] = None;
        held[2] = None;
        assert_eq!(pool.avail(), 2 * SZ_1M);
        assert_eq!(pool.alloc(2 * SZ_1M).err(), Some(ENOSPC));
        assert_eq!(pool.alloc(SZ_1M)?.size(), SZ_1M);
        Ok(())
    }

    #[test]
    fn pool_map_joins_touching_runs() -> Result {
        let pool = LmemPool::new(SZ_1M)?;
        let mut held = KVec::new();
        for _ in 0..4 {
            held.push(pool.alloc(LMEM_ALIGN)?, GFP_KERNEL)?;
        }
        let mut used = KVec::new();
        pool.for_each_used(|r| used.push(r, GFP_KERNEL))?;
        // Four 64 KiB chunks from a fresh buddy split one 256 KiB block: they touch.
        assert_eq!(used.len(), 1);
        assert_eq!(used[0].size(), 4 * LMEM_ALIGN);
        Ok(())
    }

    const PAGE: u64 = 2 * SZ_1M;

    fn page_pool(pages: u64) -> Result<PagePool> {
        PagePool::new(
            Range {
                start: 256 * SZ_1M,
                end: 256 * SZ_1M + pages * PAGE,
            },
            Alignment::new::<{ PAGE as usize }>(),
        )
    }

    #[test]
    fn page_pool_fills_fragmented_space() -> Result {
        let pool = page_pool(8)?;
        assert_eq!(pool.window().start, 256 * SZ_1M);
        assert_eq!(pool.avail(), 8 * PAGE);
        let mut held = KVec::new();
        for _ in 0..8 {
            held.push(Some(pool.alloc(PAGE)?), GFP_KERNEL)?;
        }
        held.sort_unstable_by_key(|p| p.as_ref().map_or(0, |p| p.runs()[0].start));
        // Every other page back: four pages free, no two of them touching.
        for i in [0, 2, 4, 6] {
            held[i] = None;
        }
        let four = pool.alloc(4 * PAGE)?;
        assert_eq!(four.size(), 4 * PAGE);
        assert_eq!(four.runs().len(), 4);
        let mut n = 0;
        for at in four.pages() {
            n += 1;
            assert_eq!(at % PAGE, 0);
            assert!((256 * SZ_1M..256 * SZ_1M + 8 * PAGE).contains(&at));
            // None of them is a page still held.
            assert!(held
                .iter()
                .flatten()
                .all(|p| p.runs().iter().all(|r| at < r.start || at >= r.end)));
        }
        assert_eq!(n, 4);
        assert_eq!(pool.alloc(PAGE).err(), Some(ENOSPC));
        drop(four);
        drop(held);
        assert_eq!(pool.avail(), 8 * PAGE);
        Ok(())
    }

    #[test]
    fn page_pool_runs_are_sorted_and_joined() -> Result {
        let pool = page_pool(16)?;
        // Seven pages: the buddy hands out 4 + 2 + 1 blocks; touching blocks are one run.
        let seven = pool.alloc(7 * PAGE)?;
        assert_eq!(seven.size(), 7 * PAGE);
        assert_eq!(seven.runs().iter().map(Range::size).sum::<u64>(), 7 * PAGE);
        for w in seven.runs().windows(2) {
            assert!(w[0].end < w[1].start);
        }
        assert_eq!(seven.pages().count(), 7);
        assert_eq!(pool.avail(), 9 * PAGE);
        Ok(())
    }

    #[test]
    fn page_pool_refuses_bad_requests() -> Result {
        let pool = page_pool(4)?;
        assert_eq!(pool.alloc(0).err(), Some(EINVAL));
        assert_eq!(pool.alloc(PAGE + 4096).err(), Some(EINVAL));
        assert_eq!(pool.alloc(8 * PAGE).err(), Some(ENOSPC));
        let off = PagePool::new(
            Range {
                start: PAGE / 2,
                end: 4 * PAGE,
            },
            Alignment::new::<{ PAGE as usize }>(),
        );
        assert_eq!(off.err(), Some(EINVAL));
        // A partial last page is left out.
        let short = PagePool::new(
            Range {
                start: 0,
                end: 3 * PAGE + 4096,
            },
            Alignment::new::<{ PAGE as usize }>(),
        )?;
        assert_eq!(short.window().end, 3 * PAGE);
        Ok(())
    }

    #[test]
    fn zero_size_is_refused() {
        assert!(TileRange::decode(0).is_none());
        assert!(TileRange::decode(0x7e).is_none());
    }
}
