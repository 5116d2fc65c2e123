// SPDX-License-Identifier: GPL-2.0

//! GT register access: the one accessor that knows each register's forcewake domain.
//!
//! Every GT register read or write goes through [`Gt`]. It looks the offset up in the
//! forcewake table and refuses the access (counted, `EACCES`) when the register's domain is not
//! held: on the hardware such an access reads 0 or is dropped (seed 000, lines 756 and 780), so
//! letting it through would only hide the bug. Shadowed registers take writes without a wake.
//! Multicast registers are refused too: they must go through [`crate::mcr`], which steers.
//! The lookup costs a binary search over the table and an atomic load; no MMIO.

use kernel::{
    io::{register::LocatedRegister, IoLoc, Region},
    prelude::*,
    sync::atomic::{Atomic, Relaxed},
};

use crate::mmio::{Bar0, GTTMMADR_SIZE};

pub(crate) mod forcewake;
pub(crate) mod mcr;
pub(crate) mod topology;

use forcewake::{Domain, DomainMask, Forcewake, FwGuard, Wake};

/// Counters of accesses the accessor refused.
pub(crate) struct AccessStats {
    /// Accesses to a register whose forcewake domain was not held.
    pub(crate) unheld: Atomic<u32>,
    /// Direct accesses to a multicast register (must be steered).
    pub(crate) unsteered: Atomic<u32>,
}

impl AccessStats {
    pub(crate) const fn new() -> Self {
        Self {
            unheld: Atomic::new(0),
            unsteered: Atomic::new(0),
        }
    }
}

/// A view of one GT's registers for the duration of a call.
#[derive(Copy, Clone)]
pub(crate) struct Gt<'a> {
    pub(crate) dev: &'a kernel::device::Device,
    pub(crate) bar: Bar0<'a>,
    pub(crate) fw: &'a Forcewake,
    pub(crate) stats: &'a AccessStats,
}

impl<'a> Gt<'a> {
    /// Holds `mask` awake until the guard drops.
    pub(crate) fn forcewake(&self, mask: DomainMask) -> Result<FwGuard<'a>> {
        self.fw.get(self.dev, self.bar, mask)
    }

    /// Reads a (non-multicast) GT register.
    pub(crate) fn read<T, L>(&self, loc: L) -> Result<T>
    where
        L: IoLoc<Region<GTTMMADR_SIZE>, T, IoType = u32>,
        T: From<u32>,
    {
        let offset = loc.offset();
        self.check(offset, false)?;
        Ok(self.bar.try_read32(offset)?.into())
    }

    /// Writes a (non-multicast) GT register value that carries its own location.
    pub(crate) fn write_reg<T, L, V>(&self, value: V) -> Result
    where
        L: IoLoc<Region<GTTMMADR_SIZE>, T, IoType = u32>,
        V: LocatedRegister<Region<GTTMMADR_SIZE>, Location = L, Value = T>,
        u32: From<T>,
    {
        let (loc, value) = value.into_io_op();
        self.write(loc, value)
    }

    /// Writes `value` at a (non-multicast) GT register location, e.g. an array element.
    pub(crate) fn write<T, L>(&self, loc: L, value: T) -> Result
    where
        L: IoLoc<Region<GTTMMADR_SIZE>, T, IoType = u32>,
        u32: From<T>,
    {
        let offset = loc.offset();
        self.check(offset, true)?;
        self.bar.try_write32(value.into(), offset)
    }

    /// Raw access for the steering layer, which has already checked the wake and steered.
    pub(crate) fn read_steered(&self, offset: u32) -> Result<u32> {
        self.check_wake(offset, false)?;
        self.bar.try_read32(offset as usize)
    }

    /// Raw write for the steering layer; see [`Gt::read_steered`].
    pub(crate) fn write_steered(&self, offset: u32, value: u32) -> Result {
        self.check_wake(offset, true)?;
        self.bar.try_write32(value, offset as usize)
    }

    fn check(&self, offset: usize, write: bool) -> Result {
        let offset = u32::try_from(offset).map_err(|_| EINVAL)?;
        self.verdict(
            offset,
            access_rule(offset, write, true, |d| self.fw.is_held(d)),
        )
    }

    fn check_wake(&self, offset: u32, write: bool) -> Result {
        self.verdict(
            offset,
            access_rule(offset, write, false, |d| self.fw.is_held(d)),
        )
    }

    /// Counts and reports a refused access.
    fn verdict(&self, offset: u32, rule: Result<(), Refusal>) -> Result {
        match rule {
            Ok(()) => Ok(()),
            Err(Refusal::Unsteered) => {
                self.stats.unsteered.add(1, Relaxed);
                dev_err!(
                    self.dev,
                    "GT access: {:#08x} is a multicast register; use the steering API\n",
                    offset
                );
                Err(EACCES)
            }
            Err(Refusal::Unheld { domain, write }) => {
                self.stats.unheld.add(1, Relaxed);
                dev_err!(
                    self.dev,
                    "GT access: {} of {:#08x} without forcewake domain {} held\n",
                    if write { "write" } else { "read" },
                    offset,
                    domain
                );
                Err(EACCES)
            }
        }
    }
}

/// Why the accessor refuses an access.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Refusal {
    /// A multicast register reached without steering.
    Unsteered,
    /// The register's domain is not held (and the write is not to a shadowed register).
    Unheld { domain: Domain, write: bool },
}

/// The access rule, without hardware: `held` says which domains are awake; `plain` is true
/// for the plain accessor (which must not reach multicast registers).
fn access_rule(
    offset: u32,
    write: bool,
    plain: bool,
    held: impl Fn(Domain) -> bool,
) -> Result<(), Refusal> {
    if plain && mcr::steering_of(offset).is_some() {
        return Err(Refusal::Unsteered);
    }
    match forcewake::lookup(offset) {
        Wake::None => Ok(()),
        Wake::Domain(domain) if held(domain) || (write && forcewake::is_shadowed(offset)) => {
            Ok(())
        }
        Wake::Domain(domain) => Err(Refusal::Unheld { domain, write }),
    }
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_gt_access)]
mod tests {
    use super::*;

    const NOTHING: fn(Domain) -> bool = |_| false;

    #[test]
    fn always_on_needs_nothing() {
        assert_eq!(access_rule(0x0d84, false, true, NOTHING), Ok(())); // RENDER ack, AON
        assert_eq!(access_rule(0x190010, false, true, NOTHING), Ok(())); // Gunit
    }

    #[test]
    fn domain_must_be_held() {
        let fuse = 0x9118; // MIRROR_FUSE3, GT domain
        assert_eq!(
            access_rule(fuse, false, true, NOTHING),
            Err(Refusal::Unheld {
                domain: Domain::Gt,
                write: false
            })
        );
        assert_eq!(access_rule(fuse, false, true, |d| d == Domain::Gt), Ok(()));
        // Holding another domain does not help.
        assert!(access_rule(fuse, false, true, |d| d == Domain::Render).is_err());
    }

    #[test]
    fn shadowed_writes_need_no_wake_but_reads_do() {
        assert_eq!(access_rule(0xa188, true, true, NOTHING), Ok(()));
        assert!(access_rule(0xa188, false, true, NOTHING).is_err());
    }

    #[test]
    fn multicast_registers_need_steering() {
        let all: fn(Domain) -> bool = |_| true;
        assert_eq!(
            access_rule(0xe7c8, false, true, all),
            Err(Refusal::Unsteered)
        );
        // The steering layer itself may reach them, once the domain is held.
        assert_eq!(access_rule(0xe7c8, false, false, all), Ok(()));
        assert!(access_rule(0xe7c8, false, false, NOTHING).is_err());
    }
}
