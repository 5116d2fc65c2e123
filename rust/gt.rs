// SPDX-License-Identifier: GPL-2.0

//! The GT: its register accessor, forcewake ([`forcewake`]), steering ([`mcr`]) and fuse
//! topology ([`topology`]).
//!
//! A GT register behind a sleeping forcewake domain reads 0 and drops writes (seed 000, lines
//! 756 and 780), and a multicast register reached without steering hits whichever instance the
//! selector happens to name. [`Gt`] makes both mistakes fail to compile:
//!
//! - a plain access takes an [`Awake`] proof whose type names the domains it holds, and a
//!   build-time assertion checks, from the forcewake table by the register's offset, that
//!   those domains cover the register (shadowed registers take writes without a wake);
//! - always-on registers are read without a proof only if the table says they need no wake;
//! - a plain access to an offset the MCR table lists does not compile: multicast registers go
//!   through [`mcr::Mcr`], whose API takes them by their own type.
//!
//! The accesses go through `register!`'s build-time offset checks. Only the steering layer,
//! whose callers choose the register's domain at run time (debugfs `mcr`), checks the held
//! domains at run time, counted in debugfs `unheld_accesses`.
//!
//! This block sits on [`crate::mmio`] and [`crate::regs`]; nothing here imports a block above.

use core::marker::PhantomData;

use kernel::{
    io::register::{Array, FixedRegister, FixedRegisterLoc, RegisterArray},
    prelude::*,
    sync::atomic::{Atomic, Relaxed},
};

use crate::mmio::Bar0;

mod forcewake;
mod mcr;
mod topology;

// What the blocks above use: the forcewake domains and guards, the steering API's lookups and
// the multicast registers other blocks write, and the fused topology.
pub(crate) use forcewake::{
    lookup as wake_of, Domain, DomainMask, FwGuard, Held, Wake, DOMAIN_COUNT,
};
pub(crate) use mcr::{
    default_target, run_command as run_mcr_command, steering_of, Target, GUC_TLB_INV_CR, LMEM_CFG,
};
// The ADS's KUnit tests check which registers the save/restore lists steer.
#[cfg(xehpg_kunit)]
pub(crate) use mcr::Steering;
pub(crate) use topology::Topology;

use forcewake::Forcewake;
use mcr::Mcr;

/// Distance between two functions' copies of their dedicated registers, as the PF sees them:
/// 0x400 for graphics versions above 12.00 (upstream `xe_mmio.c` `vf_regs_stride`; Xe-HPG is
/// 12.55).
pub(crate) const VF_REGS_STRIDE: usize = 0x400;

/// Counter of steered accesses refused because the register's domain was not held.
struct AccessStats {
    unheld: Atomic<u32>,
}

/// State of one GT: forcewake reference counts, steering, and the refused-access counters.
///
/// Held by the device's hardware state (`Hw`, in the block above `mem`), through which the
/// blocks above (debugfs among them, which shows it) reach it.
#[pin_data]
pub(crate) struct GtState {
    #[pin]
    fw: Forcewake,
    #[pin]
    mcr: Mcr,
    stats: AccessStats,
}

impl GtState {
    /// A GT with no domain held and no topology known yet.
    pub(crate) fn new() -> impl PinInit<Self> {
        pin_init!(Self {
            fw <- Forcewake::new(),
            mcr <- Mcr::new(),
            stats: AccessStats {
                unheld: Atomic::new(0),
            },
        })
    }

    /// A view of the GT's registers through `bar`, for the duration of a call.
    pub(crate) fn view<'a>(&'a self, dev: &'a kernel::device::Device, bar: Bar0<'a>) -> Gt<'a> {
        Gt {
            dev,
            bar,
            fw: &self.fw,
            mcr: &self.mcr,
            stats: &self.stats,
        }
    }

    /// The debugfs `forcewake` report: per-domain state, then the failure and refusal counts.
    ///
    /// # Errors
    ///
    /// Only the formatter's.
    pub(crate) fn fmt_forcewake(&self, f: &mut kernel::fmt::Formatter<'_>) -> kernel::fmt::Result {
        self.fw.fmt_status(f)?;
        f.write_fmt(fmt!(
            "unheld_accesses: {}\n",
            self.stats.unheld.load(Relaxed)
        ))?;
        // A plain access to a multicast register does not compile, so none is ever counted;
        // the line stays for the file's documented format.
        f.write_str("unsteered_accesses: 0\n")
    }

    /// The steering state (debugfs `steering`, `topology` and `mcr`).
    pub(crate) fn mcr(&self) -> &Mcr {
        &self.mcr
    }

    /// Whether debugfs `forcewake_all` holds the domains.
    pub(crate) fn user_holds(&self) -> bool {
        self.fw.user_holds()
    }
}

/// What [`Gt::init`] learns from the GT's registers.
#[derive(Copy, Clone)]
pub(crate) struct GtInfo {
    pub(crate) topology: Topology,
    /// Flat CCS takes the top of local memory: its base in the device physical address space.
    pub(crate) flat_ccs_base: u64,
}

/// A view of one GT's registers for the duration of a call.
#[derive(Copy, Clone)]
pub(crate) struct Gt<'a> {
    pub(crate) dev: &'a kernel::device::Device,
    /// Private to the GT block: outside it, GT registers are reached only through the
    /// checked accessors below.
    bar: Bar0<'a>,
    fw: &'a Forcewake,
    pub(crate) mcr: &'a Mcr,
    stats: &'a AccessStats,
}

impl<'a> Gt<'a> {
    /// Whether the device has stopped answering: the GT forcewake ack read all ones (a
    /// surprise removal or a link that fell off the bus; see `forcewake`).
    pub(crate) fn device_gone(&self) -> bool {
        self.fw.gt_dead()
    }

    /// Turns a kept forcewake reference back into a guard (see [`forcewake::Held`]).
    pub(crate) fn resume(&self, held: forcewake::Held) -> FwGuard<'a> {
        self.fw.resume(self.dev, self.bar, held)
    }

    /// Registers at a base known at run time (an engine's), under `held`, which must hold
    /// `domain`. The caller's register list is checked at build time against the forcewake
    /// and steering tables (`engine/regs.rs` does it for every engine and register), so only
    /// the domain is checked here.
    ///
    /// # Errors
    ///
    /// `EACCES` (logged) if `held` does not hold `domain`.
    pub(crate) fn window<'g>(
        &'g self,
        held: &'g FwGuard<'a>,
        base: u32,
        domain: Domain,
    ) -> Result<Window<'g>> {
        if !held.mask().contains(domain) {
            self.stats.unheld.add(1, Relaxed);
            dev_err!(
                self.dev,
                "GT access: registers at {:#08x} without forcewake domain {} held\n",
                base,
                domain
            );
            return Err(EACCES);
        }
        Ok(Window {
            bar: self.bar,
            base,
        })
    }

    /// Holds `mask` awake until the guard drops.
    ///
    /// # Errors
    ///
    /// As [`Forcewake::get`].
    pub(crate) fn forcewake(&self, mask: DomainMask) -> Result<FwGuard<'a>> {
        self.fw.get(self.dev, self.bar, mask)
    }

    /// Holds every present domain until [`Gt::user_release`] (debugfs `forcewake_all`).
    ///
    /// # Errors
    ///
    /// As [`Forcewake::get`].
    pub(crate) fn user_hold(&self) -> Result {
        self.fw.user_hold(self.dev, self.bar)
    }

    /// Drops the `forcewake_all` hold, if any.
    pub(crate) fn user_release(&self) {
        self.fw.user_release(self.dev, self.bar)
    }

    /// Unbind: releases the user hold and refuses every later wake.
    pub(crate) fn close(&self) {
        self.fw.close(self.dev, self.bar)
    }

    /// MMIO reads and writes through BAR 0 since probe.
    pub(crate) fn mmio_counts(&self) -> (u64, u64) {
        self.bar.counts()
    }

    /// First GT bring-up step, under one GT wake: reads the fuses, records the present
    /// forcewake domains, programs the steering defaults, then reads the flat-CCS base (a GAM
    /// register, so steering must be ready first).
    ///
    /// # Errors
    ///
    /// Forcewake or register-access failures.
    pub(crate) fn init(&self) -> Result<GtInfo> {
        let awake = self.wake::<GtDomain>()?;
        let topology = Topology::read(self, &awake);
        self.fw.set_present(topology.domains());
        self.mcr.init(self.bar, topology)?;
        // The register holds the base in 64 KiB units (upstream `xe_vram.c`,
        // `get_flat_ccs_offset`).
        let ccs = self
            .mcr
            .read_any::<mcr::XEHP_FLAT_CCS_BASE_ADDR>(self, awake.guard())?;
        Ok(GtInfo {
            topology,
            flat_ccs_base: u64::from(ccs.ptr().get()) << 16,
        })
    }

    /// Holds the domains `D` awake until the returned proof drops.
    ///
    /// # Errors
    ///
    /// As [`Forcewake::get`].
    pub(crate) fn wake<D: Domains>(&self) -> Result<Awake<'a, D>> {
        Ok(Awake {
            guard: self.forcewake(D::MASK)?,
            _domains: PhantomData,
        })
    }

    /// Reads a GT register. Checked at build time: the register is not multicast, `D` covers
    /// its forcewake domain, and its offset lies in the BAR.
    #[inline(always)]
    pub(crate) fn read<R, D>(&self, _awake: &Awake<'_, D>) -> R
    where
        R: FixedRegister<Storage = u32>,
        D: Domains,
    {
        const { assert!(plain_access_ok(R::OFFSET, false, D::MASK)) };
        self.bar.read(FixedRegisterLoc::<R>::new())
    }

    /// Writes a GT register; checked at build time as [`Gt::read`] (a shadowed register takes
    /// the write without its domain).
    #[inline(always)]
    pub(crate) fn write<R, D>(&self, _awake: &Awake<'_, D>, value: R)
    where
        R: FixedRegister<Storage = u32>,
        D: Domains,
    {
        const { assert!(plain_access_ok(R::OFFSET, true, D::MASK)) };
        self.bar.write(FixedRegisterLoc::<R>::new(), value)
    }

    /// Reads element `idx` of a GT register array; every element is checked at build time as
    /// [`Gt::read`].
    ///
    /// # Errors
    ///
    /// `EINVAL` if `idx` is past the array.
    #[inline(always)]
    pub(crate) fn read_at<R, D>(&self, _awake: &Awake<'_, D>, idx: usize) -> Result<R>
    where
        R: RegisterArray<Storage = u32> + Array,
        D: Domains,
    {
        const {
            assert!(array_access_ok(
                R::OFFSET,
                R::SIZE,
                R::STRIDE,
                false,
                D::MASK
            ))
        };
        Ok(self.bar.read(R::try_at(idx).ok_or(EINVAL)?))
    }

    /// Writes element `idx` of a GT register array; every element is checked at build time as
    /// [`Gt::write`].
    ///
    /// # Errors
    ///
    /// `EINVAL` if `idx` is past the array.
    #[inline(always)]
    pub(crate) fn write_at<R, D>(&self, _awake: &Awake<'_, D>, idx: usize, value: R) -> Result
    where
        R: RegisterArray<Storage = u32> + Array,
        D: Domains,
    {
        const {
            assert!(array_access_ok(
                R::OFFSET,
                R::SIZE,
                R::STRIDE,
                true,
                D::MASK
            ))
        };
        self.bar.write(R::try_at(idx).ok_or(EINVAL)?, value);
        Ok(())
    }

    /// Reads an always-on GT register, which needs no forcewake; checked at build time.
    #[inline(always)]
    pub(crate) fn read_aon<R>(&self) -> R
    where
        R: FixedRegister<Storage = u32>,
    {
        const { assert!(plain_access_ok(R::OFFSET, false, DomainMask::EMPTY)) };
        self.bar.read(FixedRegisterLoc::<R>::new())
    }

    /// Writes an always-on GT register; checked at build time.
    #[inline(always)]
    pub(crate) fn write_aon<R>(&self, value: R)
    where
        R: FixedRegister<Storage = u32>,
    {
        const { assert!(plain_access_ok(R::OFFSET, true, DomainMask::EMPTY)) };
        self.bar.write(FixedRegisterLoc::<R>::new(), value)
    }

    /// Reads element `idx` of an always-on GT register array; checked at build time.
    ///
    /// # Errors
    ///
    /// `EINVAL` if `idx` is past the array.
    #[inline(always)]
    pub(crate) fn read_aon_at<R>(&self, idx: usize) -> Result<R>
    where
        R: RegisterArray<Storage = u32> + Array,
    {
        const { assert!(aon_array_ok::<R>(false)) };
        Ok(self.bar.read(R::try_at(idx).ok_or(EINVAL)?))
    }

    /// Writes element `idx` of an always-on GT register array; checked at build time.
    ///
    /// # Errors
    ///
    /// `EINVAL` if `idx` is past the array.
    #[inline(always)]
    pub(crate) fn write_aon_at<R>(&self, idx: usize, value: R) -> Result
    where
        R: RegisterArray<Storage = u32> + Array,
    {
        const { assert!(aon_array_ok::<R>(true)) };
        self.bar.write(R::try_at(idx).ok_or(EINVAL)?, value);
        Ok(())
    }

    /// Writes element `idx` of an always-on register array in VF `vf`'s copy, as the PF sees
    /// it: a VF's dedicated registers sit `vf` x [`VF_REGS_STRIDE`] above the PF's own
    /// (upstream `xe_mmio.c` `vf_regs_stride`/`xe_mmio_init_vf_view`; the seed only says they
    /// are replicated per VF, seed 000 line 127). Checked at build time as
    /// [`Gt::write_aon_at`]; the run-time offset is bounds-checked by the BAR.
    ///
    /// # Errors
    ///
    /// `EINVAL` if `idx` is past the array, `vf` is 0 (the PF's copy: [`Gt::write_aon_at`])
    /// or the copy lies outside the BAR.
    pub(crate) fn write_vf_aon_at<R>(&self, vf: u16, idx: usize, value: u32) -> Result
    where
        R: RegisterArray<Storage = u32> + Array,
    {
        const { assert!(aon_array_ok::<R>(true)) };
        if vf == 0 || idx >= R::SIZE {
            return Err(EINVAL);
        }
        let offset = R::OFFSET + idx * R::STRIDE + usize::from(vf) * VF_REGS_STRIDE;
        self.bar.write32_at(offset, value)
    }

    /// The run-time check of the steering layer, whose guard's domains are only known at run
    /// time: the register's domain must be held (or the write shadowed). A refusal is
    /// counted (debugfs `unheld_accesses`) and logged.
    fn check_held(&self, offset: usize, write: bool, held: DomainMask) -> Result {
        match access_rule(offset, write, false, held) {
            Ok(()) => Ok(()),
            Err(Refusal::Unsteered) => Err(EACCES),
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

/// Registers at a run-time base whose domain is held ([`Gt::window`]).
#[derive(Copy, Clone)]
pub(crate) struct Window<'g> {
    bar: Bar0<'g>,
    base: u32,
}

impl Window<'_> {
    /// Reads the register at `offset` from the base; all ones if the offset is outside the BAR
    /// (what a missing register reads as).
    pub(crate) fn read(&self, offset: u32) -> u32 {
        self.bar
            .read32_at((self.base + offset) as usize)
            .unwrap_or(u32::MAX)
    }

    /// Writes the register at `offset` from the base (dropped if outside the BAR).
    pub(crate) fn write(&self, offset: u32, value: u32) {
        let _ = self.bar.write32_at((self.base + offset) as usize, value);
    }
}

// The SoC-level registers blocks below the GT read through the BAR directly (`crate::regs`)
// must be always-on: checked here, where the table is known.
const _: () = {
    use crate::regs::*;
    use kernel::io::register::Register;
    // (offset, whether the driver writes it)
    let regs = [
        (GU_CNTL::OFFSET, true),
        (GU_DEBUG::OFFSET, true),
        (SG_TILE_ADDR_RANGE::OFFSET, false),
        (PCODE_MAILBOX::OFFSET, true),
        (PCODE_DATA0::OFFSET, true),
        (PCODE_DATA1::OFFSET, true),
        (VF_CAP_REG::OFFSET, false),
    ];
    let mut i = 0;
    while i < regs.len() {
        assert!(plain_access_ok(regs[i].0, regs[i].1, DomainMask::EMPTY));
        i += 1;
    }
};

/// A set of forcewake domains fixed at build time, for [`Awake`].
pub(crate) trait Domains {
    const MASK: DomainMask;
}

/// The GT domain alone.
pub(crate) enum GtDomain {}

impl Domains for GtDomain {
    const MASK: DomainMask = DomainMask::GT;
}

/// The render domain alone (render and compute engines, `RCU_MODE`, `CCS_MODE`).
pub(crate) enum RenderDomain {}

impl Domains for RenderDomain {
    const MASK: DomainMask = DomainMask::RENDER;
}

/// Proof that the domains `D` are held: a forcewake reference whose domain set is in its type,
/// which the GT accessors take as an argument. Dropping it releases the domains.
#[must_use]
pub(crate) struct Awake<'a, D: Domains> {
    guard: FwGuard<'a>,
    _domains: PhantomData<D>,
}

impl<'a, D: Domains> Awake<'a, D> {
    /// The underlying guard, for the steering API (which checks domains at run time).
    pub(crate) fn guard(&self) -> &FwGuard<'a> {
        &self.guard
    }
}

/// Why an access breaks the rules.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Refusal {
    /// A multicast register reached without steering.
    Unsteered,
    /// The register's domain is not held (and the write is not to a shadowed register).
    Unheld { domain: Domain, write: bool },
}

/// The access rule, without hardware: `held` says which domains are awake; `plain` is true
/// for the plain accessor (which must not reach multicast registers). A `const fn`: the typed
/// accessors evaluate it at build time.
const fn access_rule(
    offset: usize,
    write: bool,
    plain: bool,
    held: DomainMask,
) -> Result<(), Refusal> {
    // CAST: GT registers lie in the lower 4 MiB of the BAR; a larger offset would fail the
    // BAR's own bounds check, and maps to no table row here.
    let offset = if offset > u32::MAX as usize {
        u32::MAX
    } else {
        offset as u32
    };
    if plain && mcr::steering_of(offset).is_some() {
        return Err(Refusal::Unsteered);
    }
    match forcewake::lookup(offset) {
        Wake::None => Ok(()),
        Wake::Domain(domain) => {
            if held.contains(domain) || (write && forcewake::is_shadowed(offset)) {
                Ok(())
            } else {
                Err(Refusal::Unheld { domain, write })
            }
        }
    }
}

/// Build-time rule of the plain accessors.
const fn plain_access_ok(offset: usize, write: bool, held: DomainMask) -> bool {
    access_rule(offset, write, true, held).is_ok()
}

/// Whether every element of always-on array `R` may be read (or written) without a wake.
const fn aon_array_ok<R: RegisterArray + Array>(write: bool) -> bool {
    array_access_ok(R::OFFSET, R::SIZE, R::STRIDE, write, DomainMask::EMPTY)
}

/// [`plain_access_ok`] for every element of a register array.
const fn array_access_ok(
    offset: usize,
    size: usize,
    stride: usize,
    write: bool,
    held: DomainMask,
) -> bool {
    let mut i = 0;
    while i < size {
        if !plain_access_ok(offset + i * stride, write, held) {
            return false;
        }
        i += 1;
    }
    true
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_gt_access)]
mod tests {
    use super::*;

    const NOTHING: DomainMask = DomainMask::EMPTY;

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
        assert_eq!(access_rule(fuse, false, true, DomainMask::GT), Ok(()));
        // Holding another domain does not help.
        assert!(access_rule(fuse, false, true, DomainMask::RENDER).is_err());
    }

    #[test]
    fn shadowed_writes_need_no_wake_but_reads_do() {
        assert_eq!(access_rule(0xa188, true, true, NOTHING), Ok(()));
        assert!(access_rule(0xa188, false, true, NOTHING).is_err());
    }

    #[test]
    fn multicast_registers_need_steering() {
        let all = DomainMask::GT.union(DomainMask::RENDER);
        assert_eq!(
            access_rule(0xe7c8, false, true, all),
            Err(Refusal::Unsteered)
        );
        // The steering layer itself may reach them, once the domain is held.
        assert_eq!(access_rule(0xe7c8, false, false, all), Ok(()));
        assert!(access_rule(0xe7c8, false, false, NOTHING).is_err());
        // Every element of an array is checked: SOFT_SCRATCH (GT) needs GT, VF_SW_FLAG nothing.
        assert!(array_access_ok(0xc180, 16, 4, true, DomainMask::GT));
        assert!(!array_access_ok(0xc180, 16, 4, true, NOTHING));
        assert!(array_access_ok(0x190240, 4, 4, false, NOTHING));
    }
}
