// SPDX-License-Identifier: GPL-2.0

//! Device-shared system memory: one coherent DMA allocation of dwords that the GPU reads and
//! writes through the GGTT while the CPU does the same.
//!
//! Every access is a volatile dword access, bounds-checked: the device writes the memory
//! concurrently (any bit pattern is a valid `u32`), and a value read from it is untrusted
//! input to be checked by its user.

use kernel::{
    device::{Bound, Device},
    dma::Coherent,
    prelude::*,
};

/// A zeroed, page-granular coherent buffer.
pub(crate) struct SysBuf {
    mem: Coherent<[u32]>,
}

impl SysBuf {
    /// `bytes` zeroed bytes (a whole number of pages).
    ///
    /// # Errors
    ///
    /// `EINVAL` for a size that is not a whole number of pages, `ENOMEM`.
    pub(crate) fn new(dev: &Device<Bound>, bytes: usize) -> Result<Self> {
        if bytes == 0 || bytes % 4096 != 0 {
            return Err(EINVAL);
        }
        Ok(Self {
            mem: Coherent::zeroed_slice(dev, bytes / 4, GFP_KERNEL)?,
        })
    }

    /// The bus address, for the GGTT.
    pub(crate) fn dma(&self) -> u64 {
        self.mem.dma_address()
    }

    /// Dword `i`.
    ///
    /// # Errors
    ///
    /// `EINVAL` past the end.
    pub(crate) fn read(&self, i: usize) -> Result<u32> {
        if i >= self.mem.len() {
            return Err(EINVAL);
        }
        let p = self.mem.as_ptr().cast::<u32>();
        // SAFETY: `i` is inside the allocation (checked), which lives as long as `self`; the
        // device writes it concurrently, hence a volatile read of a `u32`, which any bit
        // pattern is.
        Ok(unsafe { p.add(i).read_volatile() })
    }

    /// Writes dword `i`.
    ///
    /// # Errors
    ///
    /// `EINVAL` past the end.
    pub(crate) fn write(&self, i: usize, v: u32) -> Result {
        if i >= self.mem.len() {
            return Err(EINVAL);
        }
        let p = self.mem.as_mut_ptr().cast::<u32>();
        // SAFETY: as in `read`; a whole dword, so the device never sees it half written.
        unsafe { p.add(i).write_volatile(v) };
        Ok(())
    }
}
