// SPDX-License-Identifier: GPL-2.0

//! The registers of one engine, relative to its MMIO base.
//!
//! Offsets are the seed's where it prints them (seed 004's context tables, lines 1576-1740
//! and 1779-1831: RING_* 0x30-0x3c, HWS_PGA 0x80, HWSTAM 0x98, MI_MODE 0x9c, IMR 0xa8,
//! EIR/EMR 0xb0/0xb4, EXECLIST_STATUS 0x234, GFX_MODE 0x29c, CSB pointer 0x3a0, SQ contents
//! 0x510-0x54f) and upstream's otherwise (`drivers/gpu/drm/xe/regs/xe_engine_regs.h`:
//! `RING_EXECLIST_CONTROL` 0x550; i915 `gt/intel_engine_regs.h`: `RING_RESET_CTL` 0xd0,
//! `RING_IPEHR` 0x68, `RING_ACTHD` 0x74).
//!
//! Every register of [`ALL`] is checked at build time, for every engine, against the PRM's
//! forcewake table (it lies in the engine's domain) and the steering table (it is not
//! multicast): [`Io`] then needs only the run-time proof that the domain is held.
//!
//! The registers are `kernel::io::register!` relative registers over [`EngineBase`]: the base
//! is the engine's `mmio_base`, a run-time value that [`Io`] carries, so only the offset lives
//! in the type. Masked registers (bits 31:16 of a write select which of bits 15:0 it changes)
//! are declared over `u16`, the half that holds state, and implement [`Masked`]: they are
//! written only through a [`MaskedWrite`]. Every other register implements [`Plain`] and is
//! written whole; [`Io`] accepts no other mix.

use core::marker::PhantomData;

use crate::{
    engine::{in_domain, Engine, ENGINES},
    gt::{steering_of, FwGuard, Gt, Window},
};
use kernel::{
    io::{
        register,
        register::{Register, RegisterArray, WithBase},
    },
    prelude::*,
};

/// The base family of every engine register: an engine's MMIO base ([`Engine::mmio_base`]).
/// It has no `RegisterBase` implementor, as the base is only known at run time; [`Io`] adds it.
pub(crate) struct EngineBase(());

register! {
    /// `RING_TAIL`.
    pub(crate) RING_TAIL(u32) @ EngineBase + 0x30 {
        31:0 value;
    }
    /// `RING_HEAD`.
    pub(crate) RING_HEAD(u32) @ EngineBase + 0x34 {
        31:0 value;
    }
    /// `RING_START`.
    pub(crate) RING_START(u32) @ EngineBase + 0x38 {
        31:0 value;
    }
    /// `RING_CTL`.
    pub(crate) RING_CTL(u32) @ EngineBase + 0x3c {
        31:0 value;
    }
    /// `RING_IPEHR` (i915 `gt/intel_engine_regs.h`).
    pub(crate) IPEHR(u32) @ EngineBase + 0x68 {
        31:0 value;
    }
    /// `RING_ACTHD` (i915 `gt/intel_engine_regs.h`).
    pub(crate) ACTHD(u32) @ EngineBase + 0x74 {
        31:0 value;
    }
    /// `RING_HWS_PGA`: the GGTT address of the hardware status page.
    pub(crate) HWS_PGA(u32) @ EngineBase + 0x80 {
        31:0 value;
    }
    /// `RING_HWSTAM`: which status-page interrupts are masked.
    pub(crate) HWSTAM(u32) @ EngineBase + 0x98 {
        31:0 value;
    }
    /// `RING_MI_MODE`, masked (`regs/xe_engine_regs.h`; the bit from i915
    /// `gt/intel_engine_regs.h`).
    pub(crate) MI_MODE(u16) @ EngineBase + 0x9c {
        /// `STOP_RING`.
        8:8 stop_ring => bool;
    }
    /// `RING_IMR` (seed 004's context table prints IMR at 0xa8; `regs/xe_engine_regs.h`).
    pub(crate) IMR(u32) @ EngineBase + 0xa8 {
        31:0 value;
    }
    /// `RING_EIR`.
    pub(crate) EIR(u32) @ EngineBase + 0xb0 {
        31:0 value;
    }
    /// `RING_EMR`.
    pub(crate) EMR(u32) @ EngineBase + 0xb4 {
        31:0 value;
    }
    /// `RING_ESR`.
    pub(crate) ESR(u32) @ EngineBase + 0xb8 {
        31:0 value;
    }
    /// `RING_CMD_CCTL`, masked: the default MOCS of command-streamer accesses that carry none
    /// (`regs/xe_engine_regs.h`, `XE_REG_OPTION_MASKED` and the two override fields; seed 004
    /// line 1583 lists `CMD_CCTL_0` in the context image).
    pub(crate) CMD_CCTL(u16) @ EngineBase + 0xc4 {
        /// `CMD_CCTL_WRITE_OVERRIDE_MASK`.
        13:8 write_override;
        /// `CMD_CCTL_READ_OVERRIDE_MASK`.
        6:1 read_override;
    }
    /// `RING_RESET_CTL`, masked (i915 `gt/intel_engine_regs.h`; written with
    /// `_MASKED_BIT_ENABLE` in i915 `gt/intel_reset.c`, `gen8_engine_reset_prepare`).
    pub(crate) RESET_CTL(u16) @ EngineBase + 0xd0 {
        /// `RESET_CTL_READY_TO_RESET`.
        1:1 ready => bool;
        /// `RESET_CTL_REQUEST_RESET`.
        0:0 request => bool;
    }
    /// `RING_EXECLIST_STATUS_LO`.
    pub(crate) EXECLIST_STATUS_LO(u32) @ EngineBase + 0x234 {
        31:0 value;
    }
    /// `RING_EXECLIST_STATUS_HI`.
    pub(crate) EXECLIST_STATUS_HI(u32) @ EngineBase + 0x238 {
        31:0 value;
    }
    /// `RING_MODE` (`GFX_MODE`), masked (`regs/xe_engine_regs.h`).
    pub(crate) GFX_MODE(u16) @ EngineBase + 0x29c {
        /// `GFX_DISABLE_LEGACY_MODE`: execlists on (seed 004 line 118 names the Execlist
        /// Enable bit of the MODE register without its position; `regs/xe_engine_regs.h`).
        3:3 disable_legacy_mode => bool;
    }
    /// `RING_CONTEXT_STATUS_PTR`, masked: the CSB read and write pointers (i915
    /// `gt/intel_engine_regs.h`; written masked in i915 `gt/intel_execlists_submission.c`,
    /// `reset_csb_pointers`).
    pub(crate) CONTEXT_STATUS_PTR(u16) @ EngineBase + 0x3a0 {
        /// The read pointer.
        15:8 read;
        /// The write pointer.
        7:0 write;
    }
    /// `RING_EXECLIST_SQ_CONTENTS_LO`: the low dwords of the eight SQ elements, eight bytes
    /// apart (`regs/xe_engine_regs.h`; seed 004's 0x510-0x54f).
    pub(crate) SQ_CONTENTS_LO(u32)[8, stride = 8] @ EngineBase + 0x510 {
        31:0 value;
    }
    /// `RING_EXECLIST_SQ_CONTENTS_HI`: their high dwords.
    pub(crate) SQ_CONTENTS_HI(u32)[8, stride = 8] @ EngineBase + 0x514 {
        31:0 value;
    }
    /// `RING_EXECLIST_CONTROL` (`regs/xe_engine_regs.h`).
    pub(crate) EXECLIST_CONTROL(u32) @ EngineBase + 0x550 {
        /// `EL_CTRL_LOAD`: load the SQ into the ELSP.
        0:0 load => bool;
    }
}

/// A register of one engine written whole.
pub(crate) trait Plain:
    Register<Storage = u32> + WithBase<BaseFamily = EngineBase> + From<u32> + Into<u32>
{
}

/// A masked register of one engine: the value bits are 15:0 (its `u16` storage), and a write
/// carries in bits 31:16 which of them it changes (`regs/xe_reg_defs.h`,
/// `XE_REG_OPTION_MASKED`; i915 `i915_reg_defs.h`, `_MASKED_FIELD`).
pub(crate) trait Masked:
    Register<Storage = u16> + WithBase<BaseFamily = EngineBase> + From<u16> + Into<u16>
{
}

/// Sorts the registers into [`Plain`] and [`Masked`]; the storage bounds make a `u16`
/// register listed as plain, or a `u32` one as masked, a build error.
macro_rules! kinds {
    (plain: $($p:ident),* $(,)?; masked: $($m:ident),* $(,)?;) => {
        $(impl Plain for $p {})*
        $(impl Masked for $m {})*
    };
}

kinds! {
    plain: RING_TAIL, RING_HEAD, RING_START, RING_CTL, IPEHR, ACTHD, HWS_PGA, HWSTAM, IMR, EIR,
        EMR, ESR, EXECLIST_STATUS_LO, EXECLIST_STATUS_HI, SQ_CONTENTS_LO, SQ_CONTENTS_HI,
        EXECLIST_CONTROL;
    masked: MI_MODE, CMD_CCTL, RESET_CTL, GFX_MODE, CONTEXT_STATUS_PTR;
}

/// The offset of `R` from its engine's base.
pub(crate) const fn offset<R: Register>() -> u32 {
    // CAST: engine offsets are below 0x1000 (checked against the domain tables below).
    R::OFFSET as u32
}

/// The offset of element `idx` of array `R` (the last one for an index past the end).
pub(super) const fn offset_at<R: RegisterArray>(idx: usize) -> u32 {
    let idx = if idx < R::SIZE { idx } else { R::SIZE - 1 };
    // CAST: as in `offset`.
    (R::OFFSET + idx * R::STRIDE) as u32
}

/// Every register the driver touches, for the build-time check: the arrays by their first and
/// last elements.
const ALL: [u32; 24] = [
    offset::<RING_TAIL>(),
    offset::<RING_HEAD>(),
    offset::<RING_START>(),
    offset::<RING_CTL>(),
    offset::<IPEHR>(),
    offset::<ACTHD>(),
    offset::<HWS_PGA>(),
    offset::<HWSTAM>(),
    offset::<MI_MODE>(),
    offset::<IMR>(),
    offset::<CMD_CCTL>(),
    offset::<EIR>(),
    offset::<EMR>(),
    offset::<ESR>(),
    offset::<RESET_CTL>(),
    offset::<EXECLIST_STATUS_LO>(),
    offset::<EXECLIST_STATUS_HI>(),
    offset::<GFX_MODE>(),
    offset::<CONTEXT_STATUS_PTR>(),
    offset_at::<SQ_CONTENTS_LO>(0),
    offset_at::<SQ_CONTENTS_HI>(0),
    offset_at::<SQ_CONTENTS_LO>(7),
    offset_at::<SQ_CONTENTS_HI>(7),
    offset::<EXECLIST_CONTROL>(),
];

// Named rather than `const _`, and never used (hence the `expect`): rustc 1.85 (Debian's
// packaged kernel's compiler) does not count uses inside `const _` and would warn that
// every register of `ALL` is unused. A free constant is still evaluated, used or not.
#[expect(dead_code, reason = "evaluated for its asserts; named for rustc 1.85")]
const ALL_CHECKED: () = {
    let mut e = 0;
    while e < ENGINES.len() {
        let mut r = 0;
        while r < ALL.len() {
            let at = ENGINES[e].mmio_base + ALL[r];
            assert!(in_domain(at, ENGINES[e].domain));
            assert!(steering_of(at).is_none());
            r += 1;
        }
        e += 1;
    }
};

/// One write to masked register `R`: which of bits 15:0 change, and their new value.
#[derive(Debug)]
pub(crate) struct MaskedWrite<R: Masked> {
    change: u16,
    value: u16,
    reg: PhantomData<R>,
}

impl<R: Masked> MaskedWrite<R> {
    /// Sets the bits set in `bits`, leaving every other bit as it is. Any context.
    pub(crate) fn enable(bits: R) -> Self {
        let b = bits.into();
        Self {
            change: b,
            value: b,
            reg: PhantomData,
        }
    }

    /// Clears the bits set in `bits`, leaving every other bit as it is. Any context.
    pub(crate) fn disable(bits: R) -> Self {
        Self {
            change: bits.into(),
            value: 0,
            reg: PhantomData,
        }
    }

    /// Writes all of bits 15:0 with `value`. Any context.
    pub(crate) fn all(value: R) -> Self {
        Self {
            change: u16::MAX,
            value: value.into(),
            reg: PhantomData,
        }
    }

    /// The dword written: the changed bits in 31:16, their values in 15:0.
    pub(crate) fn raw(&self) -> u32 {
        raw_bits(self.change, self.value)
    }
}

/// A masked register's write of `value` to the bits of `change` (value bits outside `change`
/// are dropped, as the hardware ignores them). Any context.
pub(crate) const fn raw_bits(change: u16, value: u16) -> u32 {
    ((change as u32) << 16) | (value & change) as u32
}

/// An engine's registers while its forcewake domain is held.
pub(crate) struct Io<'g> {
    window: Window<'g>,
}

impl<'g> Io<'g> {
    /// The registers of `engine` under `held`. Any context.
    ///
    /// # Errors
    ///
    /// `EACCES` if `held` does not hold the engine's domain.
    pub(crate) fn new<'a>(gt: &'g Gt<'a>, held: &'g FwGuard<'a>, engine: &Engine) -> Result<Self> {
        Ok(Self {
            window: gt.window(held, engine.mmio_base, engine.domain)?,
        })
    }

    /// Reads plain register `R`. Any context.
    pub(crate) fn read<R: Plain>(&self) -> R {
        R::from(self.window.read(offset::<R>()))
    }

    /// Reads the value half (15:0) of masked register `R`; bits 31:16 are the write mask's,
    /// not state. Any context.
    pub(crate) fn read_masked<R: Masked>(&self) -> R {
        // CAST: the value bits; the upper half is dropped on purpose.
        R::from(self.window.read(offset::<R>()) as u16)
    }

    /// Writes plain register `R`. Any context.
    pub(crate) fn write<R: Plain>(&self, v: R) {
        self.window.write(offset::<R>(), v.into())
    }

    /// Writes masked register `R`. Any context.
    pub(crate) fn write_masked<R: Masked>(&self, w: MaskedWrite<R>) {
        self.window.write(offset::<R>(), w.raw())
    }

    /// Writes element `idx` of plain register array `R`. Any context.
    ///
    /// # Errors
    ///
    /// `EINVAL` if `idx` is past the array's end (nothing is written).
    pub(crate) fn write_at<R: Plain + RegisterArray>(&self, idx: usize, v: R) -> Result {
        if idx >= R::SIZE {
            return Err(EINVAL);
        }
        self.window.write(offset_at::<R>(idx), v.into());
        Ok(())
    }
}

/// `GDRST` (0x941c) engine domain of an engine (i915 `intel_engine_cs.c`, gen11 table;
/// `intel_gt_regs.h`): render and every compute engine share bit 1, copy bit 2, VCSn bit 5+n,
/// VECSn bit 13+n.
pub(crate) const fn reset_domain(e: &Engine) -> u32 {
    use crate::engine::source::Class;
    match e.class {
        Class::Render | Class::Compute => 1 << 1,
        Class::Copy => 1 << 2,
        Class::VideoDecode => 1 << (5 + e.instance as u32),
        Class::VideoEnhance => 1 << (13 + e.instance as u32),
        Class::Other => 0,
    }
}
