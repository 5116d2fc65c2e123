// SPDX-License-Identifier: GPL-2.0

//! Multicast (MCR) register steering.
//!
//! Replicated units share one MMIO offset; a steering register picks which instance an access
//! reaches (seed 000, lines 783-811). Its fields: multicast (writes go to every instance; a read
//! returns the instance named by slice/subslice), and the slice/subslice selector (lines
//! 727-732; bit positions from upstream's pre-MTL layout, `regs/xe_gt_regs.h`). A disabled
//! instance reads 0 and drops writes, and the default target (0, 0) may be one, so reads must
//! be steered to an instance that exists (lines 801-803).
//!
//! Which steering register serves which endpoint (seed 000, lines 706-716):
//! MCFG endpoints 0xFD0, SF endpoints 0xFD8 (0xFD4 belongs to hardware agents), GAM 0xFE0,
//! everything else 0xFDC (lines 710-714). The seed does not say which ranges are MCFG, SF or GAM endpoints;
//! those ranges are upstream's `dg2_implicit_steering_table` (`xe_gt_mcr.c`).
//!
//! Settled ambiguities:
//!
//! - 0x4000-0x4AFF, 0xC800-0xCFFF and 0xF000-0xFFFF are MSLICE rows in the seed table
//!   (lines 472-475, 524, 544-545) and GAM ranges upstream. They are GAM here: the seed itself
//!   says GAM registers must be read from the primary GAM (line 744), and the MSLICE steering
//!   register would not route them. The primary GAM is instance 1 ("Primary GAM instance is
//!   1", line 744, overriding "0 unless otherwise noted"). Its selector is programmed once to
//!   the primary and rests there: the seed gives every selector sliceid 0 after reset (line
//!   731) and has software "set the steering back" to the primary (line 744), while upstream
//!   xe calls 1 the hardware default; steering it ourselves is right on both readings (i915
//!   does the same on DG2, `intel_workarounds.c` `icl_wa_init_mcr`).
//! - L3BANK: the seed's table column says sliceid 0..3/subsliceid 0..7, its group description
//!   (line 743) says bank index bits 4:2 -> sliceid, 1:0 -> subsliceid. The group description
//!   wins: it is the more specific text and upstream programs DG2 that way.
//! - LNCF: the table column says sliceid 0..3/subsliceid 0..1, the description (line 746)
//!   sliceid 0..7 with two per MSLICE. The description wins, as upstream.
//! - SQIDI: the seed lists the instances of Alchemist-512 (0..7), -256 (2..5) and -128 (2..3)
//!   (line 740) but no fuse or strap that says which part this is, so only the instances all
//!   three have, 2 and 3, are addressed; the others may be terminated.
//! - MCFG and SF selectors are programmed once with subslice 2, the SQIDI instance every SKU
//!   has (line 740), as upstream does; unlike upstream the multicast bit stays set, so a
//!   "multicast" write to those ranges really reaches every instance while reads still come
//!   from instance 2 (multicast reads return the selected instance, lines 730 and 790).
//!
//! One spinlock serialises all steering: the MCR_SELECTOR state must not change between the
//! steering write and the access. The steering register is left in multicast mode after every
//! operation (line 807), so a multicast write is a single MMIO write.

mod regs;
mod table;

pub(crate) use regs::{GUC_TLB_INV_CR, LMEM_CFG, XEHP_FLAT_CCS_BASE_ADDR};

use kernel::{
    io::{
        register,
        register::{FixedRegister, FixedRegisterLoc},
    },
    prelude::*,
    sync::SpinLock,
};

use crate::{
    gt::{
        forcewake::{self, DomainMask, FwGuard, Wake},
        topology::Topology,
        Gt,
    },
    mmio::Bar0,
};

register! {
    /// Steering for MCFG endpoints (seed 000 line 710; upstream's name is its MTL+ role).
    pub(crate) STEER_SEMAPHORE(u32) @ 0x00000fd0 {
        31:31 multicast => bool;
        30:27 slice;
        26:24 subslice;
    }

    /// Steering for SF endpoints, IA agents (seed 000 line 712).
    pub(crate) SF_MCR_SELECTOR(u32) @ 0x00000fd8 {
        31:31 multicast => bool;
        30:27 slice;
        26:24 subslice;
    }

    /// Steering for all other endpoints (seed 000 line 714).
    pub(crate) MCR_SELECTOR(u32) @ 0x00000fdc {
        31:31 multicast => bool;
        30:27 slice;
        26:24 subslice;
    }

    /// Steering for GAM endpoints (seed 000 line 713); set once to the primary GAM.
    pub(crate) GAM_MCR_SELECTOR(u32) @ 0x00000fe0 {
        31:31 multicast => bool;
        30:27 slice;
        26:24 subslice;
    }
}

/// Replication group of a multicast range (seed 000, lines 739-746).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Steering {
    /// 32 DSS: slice 0..7 (GSLICE), subslice 0..3.
    Dss,
    /// 8 GSLICEs: slice 0..7.
    Gslice,
    /// 32 L3 banks: slice = bank bits 4:2, subslice = bank bits 1:0.
    L3bank,
    /// 8 LNCFs, two per MSLICE: slice 0..7.
    Lncf,
    /// 4 MSLICEs: slice 0..3.
    Mslice,
    /// GAM: read from the primary instance only, never re-steered.
    Gam,
    /// SQIDI behind an SF endpoint (0xFD8), subslice 0..7.
    SqidiSf,
    /// SQIDI behind an MCFG endpoint (0xFD0), subslice 0..7.
    SqidiMcfg,
}

/// The steering types, in the order debugfs lists them.
pub(crate) const STEERING_TYPES: [Steering; 8] = [
    Steering::Dss,
    Steering::Gslice,
    Steering::L3bank,
    Steering::Lncf,
    Steering::Mslice,
    Steering::Gam,
    Steering::SqidiSf,
    Steering::SqidiMcfg,
];

impl Steering {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Dss => "DSS",
            Self::Gslice => "GSLICE",
            Self::L3bank => "L3BANK",
            Self::Lncf => "LNCF",
            Self::Mslice => "MSLICE",
            Self::Gam => "GAM",
            Self::SqidiSf => "SQIDI(SF)",
            Self::SqidiMcfg => "SQIDI(MCFG)",
        }
    }

    /// The steering register this group is reached through.
    fn selector(self) -> Selector {
        match self {
            Self::Gam => Selector::Gam,
            Self::SqidiSf => Selector::Sf,
            Self::SqidiMcfg => Selector::Mcfg,
            _ => Selector::Main,
        }
    }
}

/// An instance address: the selector's slice and subslice fields.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Target {
    pub(crate) group: u8,
    pub(crate) instance: u8,
}

/// The subslice upstream and the seed agree every SKU's SQIDI has (seed 000 line 740).
const SQIDI_DEFAULT: Target = Target {
    group: 0,
    instance: 2,
};
/// The primary GAM (seed 000 line 744).
const GAM_PRIMARY: Target = Target {
    group: 1,
    instance: 0,
};

/// A replicated range: `start..=end` steered as `steering`.
struct McrRange {
    start: u32,
    end: u32,
    steering: Steering,
}

const fn m(start: u32, end: u32, steering: Steering) -> McrRange {
    McrRange {
        start,
        end,
        steering,
    }
}

/// The replication group of `offset`, or `None` for a non-replicated register.
///
/// DG2's multicast ranges are `table::RANGES` (seed 000 table, replication column, lines
/// 463-580; GAM and the SQIDI selectors as settled in the module documentation), generated
/// from the seed. A `const fn`, so a register's steering class is known at build time.
pub(crate) const fn steering_of(offset: u32) -> Option<Steering> {
    let ranges = table::RANGES;
    let (mut lo, mut hi) = (0, ranges.len());
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if ranges[mid].start <= offset {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if lo == 0 {
        return None;
    }
    let range = &ranges[lo - 1];
    if offset <= range.end {
        Some(range.steering)
    } else {
        None
    }
}

/// The MGSR steering registers the driver uses.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Selector {
    Mcfg,
    Sf,
    Main,
    Gam,
}

impl Selector {
    /// Programs the selector. All four share MCR_SELECTOR's field layout (seed 000 line 727:
    /// "All Steering Control Registers contain the following fields").
    fn write(self, bar: Bar0<'_>, multicast: bool, t: Target) -> Result {
        let raw = MCR_SELECTOR::zeroed()
            .with_multicast(multicast)
            .try_with_slice(t.group)?
            .try_with_subslice(t.instance)?
            .into_raw();
        match self {
            Self::Mcfg => bar.write_reg(STEER_SEMAPHORE::from_raw(raw)),
            Self::Sf => bar.write_reg(SF_MCR_SELECTOR::from_raw(raw)),
            Self::Main => bar.write_reg(MCR_SELECTOR::from_raw(raw)),
            Self::Gam => bar.write_reg(GAM_MCR_SELECTOR::from_raw(raw)),
        }
        Ok(())
    }

    /// Where the selector rests between operations: multicast, aimed at the implicit default
    /// for the SQIDI selectors and at the primary GAM, which GAM reads need (seed 000 line 744).
    fn rest(self) -> Target {
        match self {
            Self::Mcfg | Self::Sf => SQIDI_DEFAULT,
            Self::Gam => GAM_PRIMARY,
            Self::Main => Target {
                group: 0,
                instance: 0,
            },
        }
    }
}

/// The SQIDI instances every part has (seed 000 line 740: 0..7 on Alchemist-512, 2..5 on -256,
/// 2..3 on -128). Nothing the seed names tells the parts apart, so no other instance is known
/// to exist.
fn sqidi_present(instance: u8) -> bool {
    (2..=3).contains(&instance)
}

/// Whether `t` names an instance of `s` that exists (is not terminated).
pub(crate) fn is_present(s: Steering, topo: &Topology, t: Target) -> bool {
    let (g, i) = (u32::from(t.group), u32::from(t.instance));
    match s {
        Steering::Dss => g < 8 && i < 4 && topo.dss() & (1 << (4 * g + i)) != 0,
        Steering::Gslice => g < 8 && i == 0 && (topo.dss() >> (4 * g)) & 0xf != 0,
        Steering::L3bank => g < 8 && i < 4 && topo.l3bank_mask() & (1 << (4 * g + i)) != 0,
        Steering::Lncf => g < 8 && i == 0 && topo.quadrant_has_memory(g / 2),
        Steering::Mslice => g < 4 && i == 0 && topo.quadrant_has_memory(g),
        Steering::Gam => t == GAM_PRIMARY,
        Steering::SqidiSf | Steering::SqidiMcfg => g == 0 && sqidi_present(t.instance),
    }
}

/// The instance reads of `s` are steered to: the first one that exists.
pub(crate) fn default_target(s: Steering, topo: &Topology) -> Option<Target> {
    let first = |mask: u32| (mask != 0).then(|| mask.trailing_zeros());
    // CAST: every value below is under 32 (a bit index of a u32), or under 8 after division.
    let t = match s {
        Steering::Dss => first(topo.dss()).map(|d| (d / 4, d % 4))?,
        Steering::Gslice => first(topo.dss()).map(|d| (d / 4, 0))?,
        Steering::L3bank => first(topo.l3bank_mask()).map(|b| (b >> 2, b & 3))?,
        Steering::Lncf => first(topo.mslice_mask()).map(|q| (2 * q, 0))?,
        Steering::Mslice => first(topo.mslice_mask()).map(|q| (q, 0))?,
        Steering::Gam => return Some(GAM_PRIMARY),
        Steering::SqidiSf | Steering::SqidiMcfg => return Some(SQIDI_DEFAULT),
    };
    Some(Target {
        group: t.0 as u8,
        instance: t.1 as u8,
    })
}

/// Steering state of one GT.
#[pin_data]
pub(crate) struct Mcr {
    /// Serialises every steered access; holds the topology the targets come from. A leaf
    /// spinlock, process or atomic context; forcewake is held before it, never taken under it
    /// (Documentation/architecture.rst, "Locks").
    #[pin]
    state: SpinLock<Topology>,
}

/// A multicast register: a `register!` type listed in [`regs`], accepted only by the steering
/// API. Its steering group is looked up in the MCR table by offset at build time, so a type
/// whose offset the table does not list fails to compile.
pub(crate) trait McrRegister: FixedRegister<Storage = u32> + Into<u32> + From<u32> {
    /// The register's name (debugfs `mcr` commands, messages).
    const NAME: &'static str;
    /// The register's replication group.
    const STEERING: Steering = match steering_of(Self::OFFSET as u32) {
        Some(s) => s,
        None => panic!("not in the MCR table: use the plain GT accessor"),
    };
}

/// Why an MCR operation was refused.
fn refuse(gt: &Gt<'_>, what: &str, name: &str, detail: kernel::fmt::Arguments<'_>) -> Error {
    dev_err!(gt.dev, "mcr: {} of {} refused: {}\n", what, name, detail);
    EINVAL
}

impl Mcr {
    pub(crate) fn new() -> impl PinInit<Self> {
        pin_init!(Self {
            state <- kernel::new_spinlock!(Topology::default()),
        })
    }

    /// Records the topology and programs the one-time MCFG/SF/GAM defaults (GT forcewake held
    /// by the caller is not needed: the selectors are always-on, seed 000 line 465).
    ///
    /// # Errors
    ///
    /// `EINVAL` if a default target does not fit the selector fields (it always does).
    pub(crate) fn init(&self, bar: Bar0<'_>, topo: Topology) -> Result {
        let mut state = self.state.lock();
        *state = topo;
        Selector::Mcfg.write(bar, true, SQIDI_DEFAULT)?;
        Selector::Sf.write(bar, true, SQIDI_DEFAULT)?;
        Selector::Gam.write(bar, true, GAM_PRIMARY)
    }

    /// The topology steering uses.
    pub(crate) fn topology(&self) -> Topology {
        *self.state.lock()
    }

    /// The debugfs `steering` report: each group's default target.
    ///
    /// # Errors
    ///
    /// Only the formatter's.
    pub(crate) fn fmt_steering(&self, f: &mut kernel::fmt::Formatter<'_>) -> kernel::fmt::Result {
        let topo = self.topology();
        f.write_str("group        target\n")?;
        for s in STEERING_TYPES {
            match default_target(s, &topo) {
                Some(t) => f.write_fmt(fmt!("{:<12} {},{}\n", s.name(), t.group, t.instance))?,
                None => f.write_fmt(fmt!("{:<12} none\n", s.name()))?,
            }
        }
        Ok(())
    }

    /// Reads `R` from an instance that exists (the group's default target). `fw` must hold
    /// the register's forcewake domain (checked at run time, see [`Gt`]).
    ///
    /// # Errors
    ///
    /// `EINVAL` if no instance of the group exists, `EACCES` if the domain is not held.
    pub(crate) fn read_any<R: McrRegister>(&self, gt: &Gt<'_>, fw: &FwGuard<'_>) -> Result<R> {
        let topo = self.state.lock();
        let target = default_target(R::STEERING, &topo)
            .ok_or_else(|| refuse(gt, "read", R::NAME, fmt!("no instance of the group exists")))?;
        if matches!(R::STEERING.selector(), Selector::Main) {
            Selector::Main.write(gt.bar, true, target)?;
        }
        // GAM and SQIDI selectors already rest on their default target.
        gt.check_held(R::OFFSET, false, fw.mask())?;
        Ok(gt.bar.read(FixedRegisterLoc::<R>::new()))
    }

    /// Reads `R` from instance `t`, which must exist.
    ///
    /// # Errors
    ///
    /// `EINVAL` if `t` does not exist or the group is GAM, `EACCES` if the domain is not held.
    pub(crate) fn read_unicast<R: McrRegister>(
        &self,
        gt: &Gt<'_>,
        fw: &FwGuard<'_>,
        t: Target,
    ) -> Result<R> {
        let topo = self.state.lock();
        check_unicast(gt, &topo, "unicast read", R::NAME, R::STEERING, t)?;
        let sel = R::STEERING.selector();
        // Multicast mode with a target: the read returns that instance's value (seed 000
        // line 790), and the selector needs no restore.
        sel.write(gt.bar, true, t)?;
        let value = gt
            .check_held(R::OFFSET, false, fw.mask())
            .map(|()| gt.bar.read(FixedRegisterLoc::<R>::new()));
        if sel != Selector::Main {
            sel.write(gt.bar, true, sel.rest())?;
        }
        value
    }

    /// Writes `value` to instance `t` of `R` only.
    ///
    /// # Errors
    ///
    /// As [`Mcr::read_unicast`].
    pub(crate) fn write_unicast<R: McrRegister>(
        &self,
        gt: &Gt<'_>,
        fw: &FwGuard<'_>,
        t: Target,
        value: R,
    ) -> Result {
        let topo = self.state.lock();
        check_unicast(gt, &topo, "unicast write", R::NAME, R::STEERING, t)?;
        let sel = R::STEERING.selector();
        sel.write(gt.bar, false, t)?;
        let res = gt
            .check_held(R::OFFSET, true, fw.mask())
            .map(|()| gt.bar.write(FixedRegisterLoc::<R>::new(), value));
        // Back to multicast before anyone else steers (seed 000 line 807).
        sel.write(gt.bar, true, sel.rest())?;
        res
    }

    /// Writes `value` to every instance of `R`: the selector rests in multicast mode, so this
    /// is one MMIO write. That holds for GAM too: `init` leaves its selector multicast, aimed
    /// at the primary.
    ///
    /// # Errors
    ///
    /// `EACCES` if the domain is not held.
    pub(crate) fn write_multicast<R: McrRegister>(
        &self,
        gt: &Gt<'_>,
        fw: &FwGuard<'_>,
        value: R,
    ) -> Result {
        let _topo = self.state.lock();
        gt.check_held(R::OFFSET, true, fw.mask())?;
        gt.bar.write(FixedRegisterLoc::<R>::new(), value);
        Ok(())
    }
}

impl Mcr {
    /// [`Mcr::write_multicast`] for a register known by offset only (the workaround table,
    /// `engine::wa`, whose registers are data). Context: process or atomic; takes the steering lock.
    ///
    /// # Errors
    ///
    /// `EINVAL` (logged) if `offset` is not multicast, `EACCES` if the domain is not held.
    pub(crate) fn write_multicast_at(
        &self,
        gt: &Gt<'_>,
        fw: &FwGuard<'_>,
        offset: u32,
        value: u32,
    ) -> Result {
        if steering_of(offset).is_none() {
            return Err(refuse(
                gt,
                "multicast write",
                "a table register",
                fmt!("{:#x} is not multicast", offset),
            ));
        }
        let _topo = self.state.lock();
        gt.check_held(offset as usize, true, fw.mask())?;
        gt.bar.write32_at(offset as usize, value)
    }

    /// [`Mcr::read_any`] for a register known by offset only. Context: process or atomic;
    /// takes the steering lock.
    ///
    /// # Errors
    ///
    /// `EINVAL` (logged) if `offset` is not multicast or no instance of its group exists,
    /// `EACCES` if the domain is not held.
    pub(crate) fn read_any_at(&self, gt: &Gt<'_>, fw: &FwGuard<'_>, offset: u32) -> Result<u32> {
        let Some(steering) = steering_of(offset) else {
            return Err(refuse(
                gt,
                "read",
                "a table register",
                fmt!("{:#x} is not multicast", offset),
            ));
        };
        let topo = self.state.lock();
        let target = default_target(steering, &topo).ok_or_else(|| {
            refuse(
                gt,
                "read",
                "a table register",
                fmt!("no instance of the group exists"),
            )
        })?;
        if matches!(steering.selector(), Selector::Main) {
            Selector::Main.write(gt.bar, true, target)?;
        }
        gt.check_held(offset as usize, false, fw.mask())?;
        gt.bar.read32_at(offset as usize)
    }
}

/// Refuses a unicast access to GAM or to an instance that does not exist.
fn check_unicast(
    gt: &Gt<'_>,
    topo: &Topology,
    what: &str,
    name: &str,
    steering: Steering,
    t: Target,
) -> Result {
    if steering == Steering::Gam {
        return Err(refuse(
            gt,
            what,
            name,
            fmt!("GAM is read from its primary instance only"),
        ));
    }
    if !is_present(steering, topo, t) {
        return Err(refuse(
            gt,
            what,
            name,
            fmt!(
                "{} instance ({}, {}) does not exist on this part",
                steering.name(),
                t.group,
                t.instance
            ),
        ));
    }
    Ok(())
}

/// A debugfs `mcr` command, run on the register its name selects (see [`run_command`]).
struct Command<'c, 'g> {
    gt: &'c Gt<'g>,
    op: &'c str,
    args: &'c [&'c str],
}

impl regs::Visitor for Command<'_, '_> {
    type Output = Result<u32>;

    fn visit<R: McrRegister>(self) -> Result<u32> {
        // The register's domain, from the table: the command takes exactly what it needs.
        let mask = match forcewake::lookup(R::OFFSET as u32) {
            Wake::Domain(d) => d.bit(),
            Wake::None => DomainMask::EMPTY,
        };
        let gt = self.gt;
        let fw = gt.forcewake(mask)?;
        let target = |g: &str, i: &str| -> Result<Target> {
            Ok(Target {
                group: parse_u8(g)?,
                instance: parse_u8(i)?,
            })
        };
        let mcr = gt.mcr;
        match (self.op, self.args) {
            ("read", []) => mcr.read_any::<R>(gt, &fw).map(Into::into),
            ("read", [g, i]) => mcr
                .read_unicast::<R>(gt, &fw, target(g, i)?)
                .map(Into::into),
            ("write", ["all", v]) => mcr
                .write_multicast::<R>(gt, &fw, parse_u32(v)?.into())
                .map(|()| 0),
            ("write", [g, i, v]) => mcr
                .write_unicast::<R>(gt, &fw, target(g, i)?, parse_u32(v)?.into())
                .map(|()| 0),
            _ => Err(EINVAL),
        }
    }
}

/// Runs one debugfs `mcr` command on the registers of [`regs`] and returns the value read
/// (0 for a write): `read NAME`, `read NAME GROUP INSTANCE`, `write NAME GROUP INSTANCE VALUE`,
/// `write NAME all VALUE`. Forcewake for the register's domain is taken for the command.
///
/// # Errors
///
/// `EINVAL` for a malformed command, `ENOENT` for an unknown register, or the access's error.
pub(crate) fn run_command(gt: &Gt<'_>, cmd: &str) -> Result<u32> {
    let mut words = cmd.split_ascii_whitespace();
    let op = words.next().ok_or(EINVAL)?;
    let name = words.next().ok_or(EINVAL)?;
    // Four slots for at most three arguments: a fourth one makes the command match no form
    // (`EINVAL`), after an unknown register name has been reported (`ENOENT`).
    let mut args = [""; 4];
    let mut count = 0;
    for w in words {
        if let Some(slot) = args.get_mut(count) {
            *slot = w;
            count += 1;
        }
    }
    let command = Command {
        gt,
        op,
        args: &args[..count],
    };
    regs::visit(name, command).ok_or(ENOENT)?
}

/// A number in decimal or `0x` hexadecimal.
fn parse_u32(s: &str) -> Result<u32> {
    match s.strip_prefix("0x") {
        Some(hex) => u32::from_str_radix(hex, 16),
        None => s.parse(),
    }
    .map_err(|_| EINVAL)
}

fn parse_u8(s: &str) -> Result<u8> {
    u8::try_from(parse_u32(s)?).map_err(|_| EINVAL)
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_mcr)]
mod tests {
    use super::*;

    fn full() -> Topology {
        Topology {
            dss_geometry: u32::MAX,
            dss_compute: u32::MAX,
            meml3: 0xf,
            vdbox: 0b101,
            vebox: 0b11,
        }
    }

    /// The partially fused G11-like part the mock offers: DSS only in quadrant 1.
    fn g11_partial() -> Topology {
        Topology {
            dss_geometry: 0x0000ff00,
            dss_compute: 0x0000ff00,
            meml3: 0b0010,
            vdbox: 0b1,
            vebox: 0b1,
        }
    }

    #[test]
    fn ranges_are_sorted_and_disjoint() {
        for pair in table::RANGES.windows(2) {
            assert!(pair[0].start <= pair[0].end && pair[0].end < pair[1].start);
        }
    }

    #[test]
    fn steering_lookup_at_range_edges() {
        for r in table::RANGES {
            assert_eq!(steering_of(r.start), Some(r.steering));
            assert_eq!(steering_of(r.end), Some(r.steering));
        }
        assert_eq!(steering_of(0x0aff), None);
        assert_eq!(steering_of(0x8160), None);
        assert_eq!(steering_of(0xe7c8), Some(Steering::Dss));
        assert_eq!(steering_of(0xb158), Some(Steering::L3bank));
        assert_eq!(steering_of(0xcf54), Some(Steering::Gam));
        assert_eq!(steering_of(0x190010), None);
    }

    #[test]
    fn defaults_on_a_full_part() {
        let t = full();
        let at = |g, i| {
            Some(Target {
                group: g,
                instance: i,
            })
        };
        assert_eq!(default_target(Steering::Dss, &t), at(0, 0));
        assert_eq!(default_target(Steering::L3bank, &t), at(0, 0));
        assert_eq!(default_target(Steering::Gam, &t), at(1, 0));
        assert_eq!(default_target(Steering::SqidiSf, &t), at(0, 2));
    }

    #[test]
    fn defaults_skip_fused_off_instances() {
        let t = g11_partial();
        let at = |g, i| {
            Some(Target {
                group: g,
                instance: i,
            })
        };
        // First DSS is 8: GSLICE 2, DSS 0 within it.
        assert_eq!(default_target(Steering::Dss, &t), at(2, 0));
        assert_eq!(default_target(Steering::Gslice, &t), at(2, 0));
        // Quadrant 0 has neither MEML3 nor DSS, so banks 0-7 are gone: first is bank 8.
        assert_eq!(default_target(Steering::L3bank, &t), at(2, 0));
        assert_eq!(default_target(Steering::Mslice, &t), at(1, 0));
        assert_eq!(default_target(Steering::Lncf, &t), at(2, 0));
    }

    #[test]
    fn presence_follows_the_termination_rules() {
        let t = g11_partial();
        let at = |g, i| Target {
            group: g,
            instance: i,
        };
        assert!(!is_present(Steering::Dss, &t, at(0, 0)));
        assert!(is_present(Steering::Dss, &t, at(3, 3)));
        assert!(!is_present(Steering::L3bank, &t, at(0, 0)));
        assert!(is_present(Steering::L3bank, &t, at(3, 3)));
        assert!(!is_present(Steering::Dss, &t, at(8, 0)));
        // SQIDI: only 2 and 3, on every part, whatever its DSS fuses.
        for topo in [t, full()] {
            for i in 0..8 {
                assert_eq!(
                    is_present(Steering::SqidiSf, &topo, at(0, i)),
                    (2..=3).contains(&i)
                );
            }
        }
        assert!(is_present(Steering::Gam, &t, GAM_PRIMARY));
        assert!(!is_present(Steering::Gam, &t, at(0, 0)));
    }
}
