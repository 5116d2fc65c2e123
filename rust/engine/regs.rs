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

use crate::{
    engine::{in_domain, Engine, ENGINES},
    gt::{forcewake::FwGuard, mcr::steering_of, Gt, Window},
};
use kernel::prelude::*;

/// An engine register: an offset from the base, only constructible here.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Reg(u32);

pub(crate) const RING_TAIL: Reg = Reg(0x30);
pub(crate) const RING_HEAD: Reg = Reg(0x34);
pub(crate) const RING_START: Reg = Reg(0x38);
pub(crate) const RING_CTL: Reg = Reg(0x3c);
pub(crate) const IPEHR: Reg = Reg(0x68);
pub(crate) const ACTHD: Reg = Reg(0x74);
pub(crate) const HWS_PGA: Reg = Reg(0x80);
pub(crate) const HWSTAM: Reg = Reg(0x98);
pub(crate) const MI_MODE: Reg = Reg(0x9c);
/// `RING_IMR` (seed 004's context table prints IMR at 0xa8; `regs/xe_engine_regs.h`).
pub(crate) const IMR: Reg = Reg(0xa8);
/// `RING_CMD_CCTL`, masked: the default MOCS of command-streamer accesses that carry none
/// (`regs/xe_engine_regs.h`; seed 004 line 1583 lists `CMD_CCTL_0` in the context image).
pub(crate) const CMD_CCTL: Reg = Reg(0xc4);
pub(crate) const EIR: Reg = Reg(0xb0);
pub(crate) const EMR: Reg = Reg(0xb4);
pub(crate) const ESR: Reg = Reg(0xb8);
pub(crate) const RESET_CTL: Reg = Reg(0xd0);
pub(crate) const EXECLIST_STATUS_LO: Reg = Reg(0x234);
pub(crate) const EXECLIST_STATUS_HI: Reg = Reg(0x238);
pub(crate) const GFX_MODE: Reg = Reg(0x29c);
pub(crate) const CONTEXT_STATUS_PTR: Reg = Reg(0x3a0);
pub(crate) const SQ_CONTENTS_LO: Reg = Reg(0x510);
pub(crate) const SQ_CONTENTS_HI: Reg = Reg(0x514);
/// The last of the eight SQ elements' high dwords.
const SQ_CONTENTS_LAST: Reg = Reg(0x54c);
pub(crate) const EXECLIST_CONTROL: Reg = Reg(0x550);

/// Every register the driver touches, for the build-time check.
const ALL: [Reg; 23] = [
    RING_TAIL,
    RING_HEAD,
    RING_START,
    RING_CTL,
    IPEHR,
    ACTHD,
    HWS_PGA,
    HWSTAM,
    MI_MODE,
    IMR,
    CMD_CCTL,
    EIR,
    EMR,
    ESR,
    RESET_CTL,
    EXECLIST_STATUS_LO,
    EXECLIST_STATUS_HI,
    GFX_MODE,
    CONTEXT_STATUS_PTR,
    SQ_CONTENTS_LO,
    SQ_CONTENTS_HI,
    SQ_CONTENTS_LAST,
    EXECLIST_CONTROL,
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
            let at = ENGINES[e].mmio_base + ALL[r].0;
            assert!(in_domain(at, ENGINES[e].domain));
            assert!(steering_of(at).is_none());
            r += 1;
        }
        let mut n = 0;
        while n < 8 {
            let (lo, hi) = sq(n);
            assert!(in_domain(ENGINES[e].mmio_base + lo.0, ENGINES[e].domain));
            assert!(in_domain(ENGINES[e].mmio_base + hi.0, ENGINES[e].domain));
            n += 1;
        }
        e += 1;
    }
};

impl Reg {
    /// The offset from the engine's MMIO base.
    pub(crate) const fn offset(self) -> u32 {
        self.0
    }
}

/// SQ element `n`'s two dwords (0..8): `RING_EXECLIST_SQ_CONTENTS_LO/HI` + 8n.
pub(crate) const fn sq(n: u32) -> (Reg, Reg) {
    let n = if n > 7 { 7 } else { n };
    (Reg(0x510 + 8 * n), Reg(0x514 + 8 * n))
}

/// Masked-register write: bits 31:16 select which of bits 15:0 change.
pub(crate) const fn masked(bits: u32, set: bool) -> u32 {
    (bits << 16) | if set { bits } else { 0 }
}

/// `RING_MODE`/`GFX_MODE` bit 3, `GFX_DISABLE_LEGACY_MODE`: execlists on (seed 004 line 118
/// names the Execlist Enable bit of the MODE register without its position).
pub(crate) const GFX_DISABLE_LEGACY_MODE: u32 = 1 << 3;
/// `RING_MI_MODE` bit 8 `STOP_RING` (i915 `intel_engine_regs.h`).
pub(crate) const STOP_RING: u32 = 1 << 8;
/// `RING_RESET_CTL`: bit 0 request, bit 1 ready (i915).
pub(crate) const RESET_REQUEST: u32 = 1 << 0;
pub(crate) const RESET_READY: u32 = 1 << 1;
/// `EXECLIST_CONTROL` bit 0 `EL_CTRL_LOAD`.
pub(crate) const EL_CTRL_LOAD: u32 = 1;

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

/// An engine's registers while its forcewake domain is held.
pub(crate) struct Io<'g> {
    window: Window<'g>,
}

impl<'g> Io<'g> {
    /// The registers of `engine` under `held`.
    ///
    /// # Errors
    ///
    /// `EACCES` if `held` does not hold the engine's domain.
    pub(crate) fn new<'a>(gt: &'g Gt<'a>, held: &'g FwGuard<'a>, engine: &Engine) -> Result<Self> {
        Ok(Self {
            window: gt.window(held, engine.mmio_base, engine.domain)?,
        })
    }

    pub(crate) fn read(&self, r: Reg) -> u32 {
        self.window.read(r.0)
    }

    pub(crate) fn write(&self, r: Reg, v: u32) {
        self.window.write(r.0, v)
    }
}
