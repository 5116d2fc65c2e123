// SPDX-License-Identifier: GPL-2.0

//! GTTMMADR register window with access counters.
//!
//! Every register access of the driver goes through [`Mmio`], so the driver can say exactly
//! how many MMIO cycles an operation costs (debugfs `mmio_stats`, `make bench`) and the test
//! harness can reconcile that count with the mock device's own. Counting costs two relaxed
//! atomic adds per access; an MMIO cycle costs far more.

use kernel::{
    io::{register::LocatedRegister, Io, IoCapable, IoLoc, MmioBackend, Region},
    pci,
    prelude::*,
    sizes::SZ_16M,
    sync::atomic::{Atomic, Relaxed},
};

/// GTTMMADR (BAR 0) is 16 MiB: MMIO registers in the lower 8 MiB, of which Xe-HPG uses the
/// first 4 MiB, and the GGTT (GSM) in the upper 8 MiB (seed 000 lines 125 and 139; offsets from
/// `drivers/gpu/drm/xe/xe_mmio.c` and `xe_ggtt.c`).
pub(crate) const GTTMMADR_SIZE: usize = SZ_16M;
/// BAR numbers (`drivers/gpu/drm/xe/regs/xe_bars.h`).
pub(crate) const GTTMMADR_BAR: u32 = 0;
pub(crate) const LMEM_BAR: u32 = 2;

/// The register BAR, borrowed for as long as the device is bound.
pub(crate) type Bar0<'a> = &'a Mmio<'a>;

/// BAR 0 mapped, plus how many reads and writes went through it.
pub(crate) struct Mmio<'bound> {
    bar: pci::Bar<'bound, GTTMMADR_SIZE>,
    reads: Atomic<u64>,
    writes: Atomic<u64>,
    /// GGTT entry writes, kept apart: the GSM half of the BAR is plain memory to the device
    /// model (not trapped), so these are not register cycles.
    gsm_writes: Atomic<u64>,
}

/// The GGTT (GSM) starts 8 MiB into GTTMMADR (seed 000 lines 125 and 139: 8 MiB of registers
/// then the GGTT; offset from upstream `xe_ggtt.c`, `ggtt->gsm = regs + SZ_8M`).
pub(crate) const GSM_OFFSET: usize = 8 << 20;
/// 8 MiB of 8-byte entries: 1 Mi entries, a 4 GiB GGTT of 4 KiB pages.
pub(crate) const GSM_ENTRIES: u64 = (8 << 20) / 8;

impl<'bound> Mmio<'bound> {
    pub(crate) fn new(bar: pci::Bar<'bound, GTTMMADR_SIZE>) -> Self {
        Self {
            bar,
            reads: Atomic::new(0),
            writes: Atomic::new(0),
            gsm_writes: Atomic::new(0),
        }
    }

    /// Reads a register at a location known at build time.
    // The location check is a build-time assertion: it only holds if this is inlined into a
    // caller whose register offset is a constant.
    #[inline(always)]
    pub(crate) fn read<T, L>(&self, loc: L) -> T
    where
        L: IoLoc<Region<GTTMMADR_SIZE>, T>,
        MmioBackend: IoCapable<L::IoType>,
    {
        self.reads.add(1, Relaxed);
        (&self.bar).read(loc)
    }

    /// Writes `value` at `loc`.
    // The location check is a build-time assertion: it only holds if this is inlined into a
    // caller whose register offset is a constant.
    #[inline(always)]
    pub(crate) fn write<T, L>(&self, loc: L, value: T)
    where
        L: IoLoc<Region<GTTMMADR_SIZE>, T>,
        MmioBackend: IoCapable<L::IoType>,
    {
        self.writes.add(1, Relaxed);
        (&self.bar).write(loc, value)
    }

    /// Writes a register value that carries its own location.
    // The location check is a build-time assertion: it only holds if this is inlined into a
    // caller whose register offset is a constant.
    #[inline(always)]
    pub(crate) fn write_reg<T, L, V>(&self, value: V)
    where
        L: IoLoc<Region<GTTMMADR_SIZE>, T>,
        V: LocatedRegister<Region<GTTMMADR_SIZE>, Location = L, Value = T>,
        MmioBackend: IoCapable<L::IoType>,
    {
        self.writes.add(1, Relaxed);
        (&self.bar).write_reg(value)
    }

    /// Reads the dword at a run-time offset (bounds and alignment checked).
    pub(crate) fn try_read32(&self, offset: usize) -> Result<u32> {
        self.reads.add(1, Relaxed);
        (&self.bar).try_read32(offset)
    }

    /// Writes the dword at a run-time offset (bounds and alignment checked).
    pub(crate) fn try_write32(&self, value: u32, offset: usize) -> Result {
        self.writes.add(1, Relaxed);
        (&self.bar).try_write32(value, offset)
    }

    /// Writes GGTT entry `index` (one 64-bit store: an entry must never be seen half written).
    pub(crate) fn write_gsm(&self, index: u64, pte: u64) -> Result {
        if index >= GSM_ENTRIES {
            return Err(EINVAL);
        }
        self.gsm_writes.add(1, Relaxed);
        // CAST: index < 1 Mi, so the offset is below 16 MiB.
        (&self.bar).try_write64(pte, GSM_OFFSET + index as usize * 8)
    }

    /// GGTT entries written since probe.
    pub(crate) fn gsm_writes(&self) -> u64 {
        self.gsm_writes.load(Relaxed)
    }

    /// MMIO reads and writes since probe.
    pub(crate) fn counts(&self) -> (u64, u64) {
        (self.reads.load(Relaxed), self.writes.load(Relaxed))
    }
}
