// SPDX-License-Identifier: GPL-2.0

//! Local memory (LMEM): the LMEMBAR aperture and the physical size behind it.
//!
//! The PF LMEM_BAR gives the host direct access to local memory and its size is configurable
//! (seed 000, lines 443-451); upstream xe maps it as BAR 2 (`drivers/gpu/drm/xe/regs/xe_bars.h`)
//! and reads the physical size from SG_TILE_ADDR_RANGE (`drivers/gpu/drm/xe/xe_vram.c`). A BAR
//! smaller than local memory is a "small BAR" setup: legal, reported, and later blocks must
//! reach memory above the BAR through the GGTT or a blitter instead of the CPU.

use kernel::{
    device::Bound,
    io::{Io, IoBackend, IoBase, Mmio as IoView, MmioBackend},
    pci,
    prelude::*,
    sizes::SZ_256M,
    sync::Mutex,
};

use crate::{
    mem::ggtt::LMEM_ALIGN,
    mmio::{Bar0, LMEM_BAR},
    range::{Range, RangeAllocator},
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

/// Local memory the driver allocates objects from: the CPU-visible part below LMEMBAR's end
/// (the GuC objects must be written by the CPU). Allocations are 64 KiB aligned, as GGTT
/// mappings of local memory must be on DG2.
#[pin_data]
pub(crate) struct LmemPool {
    /// Process context; a leaf mutex, never taken under a spinlock or in the BARs' RCU
    /// section (Documentation/architecture.rst, "Locks").
    #[pin]
    alloc: Mutex<RangeAllocator>,
}

impl LmemPool {
    /// A pool over `[0, size)` of local memory.
    ///
    /// # Errors
    ///
    /// `EINVAL` for an empty pool, `ENOMEM`.
    pub(crate) fn new(size: u64) -> Result<impl PinInit<Self>> {
        let alloc = RangeAllocator::new(0, size)?;
        Ok(pin_init!(Self {
            alloc <- kernel::new_mutex!(alloc),
        }))
    }

    /// Allocates at least `size` bytes (rounded up to 64 KiB).
    ///
    /// # Errors
    ///
    /// `EINVAL` for a size that overflows, `ENOSPC` if no hole fits, `ENOMEM`.
    pub(crate) fn alloc(&self, size: u64) -> Result<Range> {
        let size = size.checked_next_multiple_of(LMEM_ALIGN).ok_or(EINVAL)?;
        self.alloc.lock().alloc(size, LMEM_ALIGN)
    }

    /// Returns an allocation.
    pub(crate) fn free(&self, r: Range) {
        // Ranges from `alloc` are always accepted back.
        let _ = self.alloc.lock().free(r);
    }

    /// The pool's extent (the CPU-visible local memory the driver manages).
    pub(crate) fn window(&self) -> Range {
        self.alloc.lock().window()
    }

    /// Calls `f` with each allocated run of the pool, in address order; for the debugfs
    /// provisioning map. Process context (mutex).
    pub(crate) fn for_each_used<E>(
        &self,
        mut f: impl FnMut(Range) -> Result<(), E>,
    ) -> Result<(), E> {
        self.alloc.lock().used().try_for_each(&mut f)
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

    #[test]
    fn zero_size_is_refused() {
        assert!(TileRange::decode(0).is_none());
        assert!(TileRange::decode(0x7e).is_none());
    }
}
