// SPDX-License-Identifier: GPL-2.0

//! GTTMMADR (BAR 0): its layout, its mapping, and the counted register window over it.
//!
//! Every register access of the driver goes through [`Mmio`], so the driver can say exactly
//! how many MMIO cycles an operation costs (debugfs `mmio_stats`, `make bench`) and the test
//! harness can reconcile that count with the mock device's own. Counting costs two relaxed
//! atomic adds per access; an MMIO cycle costs far more.
//!
//! The mapping ([`Gttmmadr`]) is a device resource ([`DevresBar`]): the bound device reaches
//! it for free with its `Device<Bound>`, and a debugfs callback, which may run while unbind is
//! under way, reaches it only through [`Gttmmadr::try_access_with`], which fails once the
//! device is unbound. [`Mmio`] is the short-lived view both hand out.
//!
//! Every register access names its register type, so `register!`'s build-time offset checks
//! apply; there is no run-time-offset register access. Which registers may be reached without
//! forcewake or steering is the GT block's rule (`gt.rs`).
//!
//! This is the lowest block: it imports nothing from the rest of the driver.

use kernel::{
    device::{Bound, Core},
    io::{
        poll::read_poll_timeout, register::LocatedRegister, Io, IoCapable, IoLoc, MmioBackend,
        Region,
    },
    pci::{self, DevresBar},
    prelude::*,
    sizes::SZ_16M,
    sync::atomic::{Atomic, Relaxed},
    time::Delta,
};

/// GTTMMADR (BAR 0) is 16 MiB: MMIO registers in the lower 8 MiB, of which Xe-HPG uses the
/// first 4 MiB, and the GGTT (GSM) in the upper 8 MiB (seed 000 lines 125 and 139; offsets from
/// `drivers/gpu/drm/xe/xe_mmio.c` and `xe_ggtt.c`).
pub(crate) const GTTMMADR_SIZE: usize = SZ_16M;
/// BAR numbers (`drivers/gpu/drm/xe/regs/xe_bars.h`).
pub(crate) const GTTMMADR_BAR: u32 = 0;
pub(crate) const LMEM_BAR: u32 = 2;

/// The GGTT (GSM) starts 8 MiB into GTTMMADR (seed 000 lines 125 and 139: 8 MiB of registers
/// then the GGTT; offset from upstream `xe_ggtt.c`, `ggtt->gsm = regs + SZ_8M`).
pub(crate) const GSM_OFFSET: usize = 8 << 20;
/// The MMIO doorbell pages (seed 000 lines 1034-1038): 4 MiB from 0x400000, below the GSM.
/// Rung only by the test build's guessed doorbell ABI (`rust/submit/doorbell.rs`).
#[cfg(xehpg_test)]
pub(crate) const DOORBELL_WINDOW: u32 = 0x40_0000;
#[cfg(xehpg_test)]
pub(crate) const DOORBELL_WINDOW_SIZE: u32 = 0x40_0000;
/// 8 MiB of 8-byte entries: 1 Mi entries, a 4 GiB GGTT of 4 KiB pages.
pub(crate) const GSM_ENTRIES: u64 = (8 << 20) / 8;

/// The function's memory decoding and bus mastering, on from [`Enabled::new`] until this is
/// dropped (probe, process context).
///
/// Probe creates it before anything else touches the device, and the device state holds it
/// until everything else it owns is gone, so no path, a probe that fails late included, leaves
/// the function mastering the bus behind a driver that freed its memory. Dropping it clears
/// Bus Master Enable (PCIe Base Specification, Command register bit 2: with it clear the
/// function issues no memory requests) and disables the function, as `pcim_enable_device`'s
/// release does for upstream xe (`xe_pci.c` `xe_pci_probe`).
pub(crate) struct Enabled<'a> {
    pdev: &'a pci::Device<Bound>,
}

impl<'a> Enabled<'a> {
    /// Enables memory decoding and bus mastering. Process context (probe).
    ///
    /// # Errors
    ///
    /// `pci_enable_device_mem`'s error.
    pub(crate) fn new(pdev: &'a pci::Device<Core<'_>>) -> Result<Self> {
        pdev.enable_device_mem()?;
        pdev.set_master();
        Ok(Self { pdev })
    }
}

impl Drop for Enabled<'_> {
    /// Process context (probe failure or unbind).
    fn drop(&mut self) {
        clear_master(self.pdev);
        // SAFETY: `raw_pci` gives the bound device's `struct pci_dev`; `Enabled::new` enabled
        // it once, so this balances the enable count (`pci_disable_device`).
        unsafe { kernel::bindings::pci_disable_device(raw_pci(self.pdev)) };
    }
}

/// The `struct pci_dev` behind `pdev`, for the PCI calls 7.3's `pci::Device` does not wrap.
fn raw_pci(pdev: &pci::Device<Bound>) -> *mut kernel::bindings::pci_dev {
    // CAST: `pci::Device` is a `#[repr(transparent)]` wrapper of `struct pci_dev`
    // (`rust/kernel/pci.rs`).
    core::ptr::from_ref(pdev)
        .cast::<kernel::bindings::pci_dev>()
        .cast_mut()
}

/// Turns bus mastering off at once: the function can no longer read or write system memory
/// (for a GuC that cannot be stopped; [`Enabled`]'s drop does it at the end of teardown).
/// Process context.
pub(crate) fn clear_master(pdev: &pci::Device<Bound>) {
    // SAFETY: `raw_pci` gives the bound device's valid `struct pci_dev`; `pci_clear_master`
    // only updates its command register and `is_busmaster`.
    unsafe { kernel::bindings::pci_clear_master(raw_pci(pdev)) };
}

/// The register BAR as the blocks use it: a view valid for one call or one bring-up step.
pub(crate) type Bar0<'a> = Mmio<'a>;

/// Access counters of BAR 0, kept apart from the mapping so they can be read after it is gone.
struct Counters {
    reads: Atomic<u64>,
    writes: Atomic<u64>,
    /// GGTT entry writes, kept apart: the GSM half of the BAR is plain memory to the device
    /// model (not trapped), so these are not register cycles.
    gsm_writes: Atomic<u64>,
}

/// BAR 0 mapped for the bound device, plus how many reads and writes went through it.
/// Polls `op` until `cond` holds, sleeping `sleep` between reads, for at most `timeout`; once
/// the time is up it reads once more, as C `read_poll_timeout` and upstream's
/// `xe_mmio_wait32` do. The 7.3 Rust `read_poll_timeout` stops at the read it made before
/// seeing the time up, and that read may be arbitrarily old by then: a vCPU or a task
/// preempted after the read, or a device model answering late, turned a reset that had long
/// completed into `ETIMEDOUT` (seen: `stress-bind-cycles`, one GuC reset in a hundred on a
/// loaded 2-core host). Process context only: it sleeps.
///
/// # Errors
///
/// `ETIMEDOUT` if `cond` still fails on the last look, or `op`'s error.
pub(crate) fn poll_timeout<T>(
    mut op: impl FnMut() -> Result<T>,
    mut cond: impl FnMut(&T) -> bool,
    sleep: Delta,
    timeout: Delta,
) -> Result<T> {
    match read_poll_timeout(&mut op, &mut cond, sleep, timeout) {
        Err(e) if e == ETIMEDOUT => {
            let last = op()?;
            if cond(&last) {
                Ok(last)
            } else {
                Err(ETIMEDOUT)
            }
        }
        done => done,
    }
}

pub(crate) struct Gttmmadr {
    bar: DevresBar<GTTMMADR_SIZE>,
    counters: Counters,
}

impl Gttmmadr {
    /// Requests and maps BAR 0 (at least [`GTTMMADR_SIZE`] bytes, checked by the caller).
    ///
    /// # Errors
    ///
    /// Whatever requesting, mapping or registering the device resource fails with (`EBUSY`,
    /// `ENOMEM`).
    pub(crate) fn map(pdev: &pci::Device<Bound>) -> Result<Self> {
        let bar = pdev
            .iomap_region_sized::<GTTMMADR_SIZE>(GTTMMADR_BAR, c"xehpg/gttmmadr")?
            .into_devres()?;
        Ok(Self {
            bar,
            counters: Counters {
                reads: Atomic::new(0),
                writes: Atomic::new(0),
                gsm_writes: Atomic::new(0),
            },
        })
    }

    /// The register window, for code that runs while `pdev` is bound (probe, unbind).
    ///
    /// # Errors
    ///
    /// `EINVAL` if `pdev` is not the device the BAR belongs to.
    pub(crate) fn access<'a>(&'a self, pdev: &'a pci::Device<Bound>) -> Result<Mmio<'a>> {
        Ok(Mmio {
            bar: self.bar.access(pdev.as_ref())?,
            counters: &self.counters,
        })
    }

    /// Runs `f` on the register window unless the device has been unbound (then `None`).
    ///
    /// `f` runs in an RCU read-side critical section and must not sleep.
    pub(crate) fn try_access_with<R>(&self, f: impl FnOnce(Mmio<'_>) -> R) -> Option<R> {
        let bar = self.bar.try_access()?;
        Some(f(Mmio {
            bar: &bar,
            counters: &self.counters,
        }))
    }

    /// MMIO reads and writes since probe.
    pub(crate) fn counts(&self) -> (u64, u64) {
        (
            self.counters.reads.load(Relaxed),
            self.counters.writes.load(Relaxed),
        )
    }

    /// GGTT entries written since probe (each one 8-byte GSM write).
    pub(crate) fn gsm_writes(&self) -> u64 {
        self.counters.gsm_writes.load(Relaxed)
    }

    /// The debugfs `mmio_stats` report.
    ///
    /// # Errors
    ///
    /// Only the formatter's.
    pub(crate) fn fmt_stats(&self, f: &mut kernel::fmt::Formatter<'_>) -> kernel::fmt::Result {
        let (reads, writes) = self.counts();
        f.write_fmt(fmt!("reads: {}\nwrites: {}\n", reads, writes))?;
        f.write_fmt(fmt!(
            "gsm_writes: {}\n",
            self.counters.gsm_writes.load(Relaxed)
        ))
    }
}

/// A counted view of BAR 0, borrowed from [`Gttmmadr`].
#[derive(Copy, Clone)]
pub(crate) struct Mmio<'a> {
    bar: &'a pci::Bar<'a, GTTMMADR_SIZE>,
    counters: &'a Counters,
}

impl<'a> Mmio<'a> {
    /// Reads a register at a location known at build time.
    // The location check is a build-time assertion: it only holds if this is inlined into a
    // caller whose register offset is a constant.
    #[inline(always)]
    pub(crate) fn read<T, L>(self, loc: L) -> T
    where
        L: IoLoc<Region<GTTMMADR_SIZE>, T>,
        MmioBackend: IoCapable<L::IoType>,
    {
        self.counters.reads.add(1, Relaxed);
        self.bar.read(loc)
    }

    /// Writes `value` at `loc`.
    // The location check is a build-time assertion: it only holds if this is inlined into a
    // caller whose register offset is a constant.
    #[inline(always)]
    pub(crate) fn write<T, L>(self, loc: L, value: T)
    where
        L: IoLoc<Region<GTTMMADR_SIZE>, T>,
        MmioBackend: IoCapable<L::IoType>,
    {
        self.counters.writes.add(1, Relaxed);
        self.bar.write(loc, value)
    }

    /// Writes a register value that carries its own location.
    // The location check is a build-time assertion: it only holds if this is inlined into a
    // caller whose register offset is a constant.
    #[inline(always)]
    pub(crate) fn write_reg<T, L, V>(self, value: V)
    where
        L: IoLoc<Region<GTTMMADR_SIZE>, T>,
        V: LocatedRegister<Region<GTTMMADR_SIZE>, Location = L, Value = T>,
        MmioBackend: IoCapable<L::IoType>,
    {
        self.counters.writes.add(1, Relaxed);
        self.bar.write_reg(value)
    }

    /// Reads the dword at a byte offset known only at run time (a register of an engine,
    /// whose base comes from a table). Only the GT block's `Window` calls it, after checking the
    /// forcewake domain; the offset is bounds-checked.
    ///
    /// # Errors
    ///
    /// `EINVAL` for an offset outside the register half of the BAR or not dword aligned.
    pub(crate) fn read32_at(self, offset: usize) -> Result<u32> {
        self.counters.reads.add(1, Relaxed);
        self.bar.try_read32(offset)
    }

    /// Writes the dword at a run-time byte offset; as [`Mmio::read32_at`].
    ///
    /// # Errors
    ///
    /// As [`Mmio::read32_at`].
    pub(crate) fn write32_at(self, offset: usize, value: u32) -> Result {
        self.counters.writes.add(1, Relaxed);
        self.bar.try_write32(value, offset)
    }

    /// Rings the MMIO doorbell at `offset`, which must lie in the doorbell window of BAR 0
    /// (seed 000 line 1036: 4 MiB from 0x400000, 4 KiB per doorbell page).
    ///
    /// # Errors
    ///
    /// `EINVAL` for an offset outside the window or not page aligned.
    #[cfg(xehpg_test)]
    pub(crate) fn ring_doorbell(self, offset: u32, value: u32) -> Result {
        if !(DOORBELL_WINDOW..DOORBELL_WINDOW + DOORBELL_WINDOW_SIZE).contains(&offset)
            || offset % 4096 != 0
        {
            return Err(EINVAL);
        }
        self.counters.writes.add(1, Relaxed);
        self.bar.try_write32(value, offset as usize)
    }

    /// Writes GGTT entry `index` (one 64-bit store: an entry must never be seen half written).
    ///
    /// # Errors
    ///
    /// `EINVAL` if `index` is past the last entry.
    pub(crate) fn write_gsm(self, index: u64, pte: u64) -> Result {
        if index >= GSM_ENTRIES {
            return Err(EINVAL);
        }
        self.counters.gsm_writes.add(1, Relaxed);
        // CAST: index < 1 Mi, so the offset is below 16 MiB.
        self.bar.try_write64(pte, GSM_OFFSET + index as usize * 8)
    }

    /// MMIO reads and writes since probe.
    pub(crate) fn counts(self) -> (u64, u64) {
        (
            self.counters.reads.load(Relaxed),
            self.counters.writes.load(Relaxed),
        )
    }
}
