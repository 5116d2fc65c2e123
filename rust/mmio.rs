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
    sync::atomic::{Atomic, Relaxed},
};

use crate::driver::GTTMMADR_SIZE;

/// BAR 0 mapped, plus how many reads and writes went through it.
pub(crate) struct Mmio<'bound> {
    bar: pci::Bar<'bound, GTTMMADR_SIZE>,
    reads: Atomic<u64>,
    writes: Atomic<u64>,
}

impl<'bound> Mmio<'bound> {
    pub(crate) fn new(bar: pci::Bar<'bound, GTTMMADR_SIZE>) -> Self {
        Self {
            bar,
            reads: Atomic::new(0),
            writes: Atomic::new(0),
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

    /// MMIO reads and writes since probe.
    pub(crate) fn counts(&self) -> (u64, u64) {
        (self.reads.load(Relaxed), self.writes.load(Relaxed))
    }
}
