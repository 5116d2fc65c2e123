// SPDX-License-Identifier: GPL-2.0

//! Workarounds, tuning, MOCS, PAT and the command streamers' default MOCS: what upstream xe
//! programs on DG2 and ATS-M, as one table ([`table::TABLE`]) with xehpg's verdict on each
//! entry, and the code that applies the `applied` rows.
//!
//! Where the rows come from: `drivers/gpu/drm/xe/xe_wa.c` (`gt_was`, `engine_was`, `lrc_was`),
//! `xe_tuning.c` (`gt_tunings`, `engine_tunings`, `lrc_tunings`), `xe_hw_engine.c` (`engine_sr`,
//! "RING_CMD_CCTL_default_MOCS"), `xe_mocs.c` (`dg2_mocs_desc`), `xe_pat.c` (`xelp_pat_table`
//! with `xehp_pat_ops` on DG2), `xe_wa_oob.rules` and `xe_device_wa_oob.rules`. ATS-M is a
//! G10 or G11 die of the DG2 platform for xe (`xe_pci.c`: `ats_m_desc` is `PLATFORM(DG2)`,
//! its IDs are in the G10/G11 subplatform lists), graphics and media IP 12.55, so the DG2 rows
//! are its rows. The `wa-table` suite of `make check` keeps the table equal to upstream's.
//!
//! When: everything `applied` is written once, at GT init ([`apply`], called by probe right
//! after `Gt::init`, process context, may sleep), after steering is initialised and
//! before the GuC is loaded or any engine runs, under both submission back-ends: upstream
//! writes GT rows at GT init and engine rows when the engines are set up, both before the GuC
//! is loaded (`xe_gt.c`, `xe_hw_engine.c` `xe_hw_engine_enable_ring`). MCR registers go through
//! the steering API's multicast write (`Mcr::write_multicast_at` in `gt::mcr`); masked
//! registers are written in the encoding every masked write shares (`engine::regs::raw_bits`:
//! the bits changed in 31:16, their values in 15:0), others read-modify-written. Every row
//! upstream verifies is read back (upstream's `XE_RTP_NOCHECK` and `.read_mask = 0` rows are
//! not): a mismatch is a `dev_err!` naming the device, row, register and both values, and is
//! counted ([`MISMATCHES`]), not fatal.
//!
//! Engine resets: registers inside an engine's reset domain lose their value on an engine
//! reset. Under GuC submission the GuC restores what the ADS save/restore list names;
//! [`save_restore`] yields the table's part of that list per engine, which the ADS code
//! (rust/guc/ads.rs, `engine_list`) appends to the engine's own registers. Under
//! execlists xehpg resets an engine only to recover it (`submit::reset_engine`) and the rows
//! stay lost until the next bind: recorded as open work.

mod table;

use kernel::{
    prelude::*,
    sync::atomic::{Atomic, Relaxed},
};

use crate::{
    engine::regs::raw_bits,
    engine::source::{Class, Present},
    engine::{Engine, ENGINES},
    gt::{steering_of, wake_of, Domain, DomainMask, FwGuard, Gt, Topology, Wake, DOMAIN_COUNT},
    platform::Die,
};

pub(crate) use table::TABLE;

/// Die masks of [`Entry::sub`]: which DG2 subplatforms a row applies to (upstream's
/// `SUBPLATFORM(DG2, ...)` rule; `PLATFORM(DG2)` is all three).
pub(crate) const G10: u8 = 1 << 0;
pub(crate) const G11: u8 = 1 << 1;
pub(crate) const G12: u8 = 1 << 2;
pub(crate) const ALL: u8 = G10 | G11 | G12;

/// The upstream table a row comes from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Src {
    GtWas,
    EngineWas,
    LrcWas,
    GtTunings,
    EngineTunings,
    LrcTunings,
    /// `xe_hw_engine.c` `engine_sr`.
    HwEngine,
    Mocs,
    Pat,
    /// `xe_wa_oob.rules`.
    Oob,
    /// `xe_device_wa_oob.rules`.
    DeviceOob,
}

/// Which engines a row is for (upstream's engine rules).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Scope {
    /// No engine rule: the GT.
    Gt,
    /// `ENGINE_CLASS(...)`: the register is absolute, written once if such an engine exists.
    Class(Class),
    /// `FUNC(xe_rtp_match_first_render_or_compute)`: the render/compute engine with the lowest
    /// engine-mask bit, RCS0 on these parts (RCS0 always exists, `xe_pci.c` `graphics_xehpg`).
    FirstRenderOrCompute,
    /// `ENGINE_CLASS(VIDEO_DECODE), FUNC(xe_rtp_match_even_instance)`, `FOREACH_ENGINE`: the
    /// offset is from each even VCS's base.
    VcsEven,
    /// `xe_rtp_match_always` with `ENGINE_BASE`: the offset is from each engine's base.
    EachEngine,
}

/// When xehpg applies an `applied` row.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Stage {
    /// A GT-level register, at GT init.
    GtInit,
    /// An engine-level register (upstream's engine tables), also at GT init: before either
    /// back-end starts, and listed by [`save_restore`] for the GuC.
    EngineInit,
}

/// Why xehpg does not apply a row.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Why {
    /// A register of the render context image (upstream's LRC tables, written into the
    /// default context by a workaround batch): 3D-pipeline state. xehpg runs no 3D work and its
    /// context image builder (rust/engine/lrc.rs, being reworked for GuC submission) takes no
    /// register list; to be added there if 3D work ever runs.
    Lrc,
    /// A flag the driver passes to the GuC at load (`xe_guc.c` `guc_ctl_wa_flags`,
    /// `xe_guc_ads.c`): belongs to the GuC load (rust/guc), listed here for it.
    GucFlag,
    /// A user VM binding rule (`xe_vm.c`): xehpg has no user VMs.
    UserVm,
    /// A render-ring flush for 3D work (`xe_ring_ops.c`): xehpg emits no 3D commands.
    ThreeD,
    /// The OA performance unit (`xe_oa.c`): xehpg offers no performance streams.
    Oa,
}

/// xehpg's verdict on a row.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    Applied(Stage),
    NotApplied(Why),
}

/// One row: one upstream entry's action on one register.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Entry {
    /// Upstream's `XE_RTP_NAME` (WA numbers or tuning name); MOCS and PAT rows name the
    /// register.
    pub(crate) name: &'static str,
    pub(crate) src: Src,
    /// Die mask ([`G10`], [`G11`], [`G12`]).
    pub(crate) sub: u8,
    pub(crate) scope: Scope,
    /// Upstream's register name; empty for out-of-band rows.
    pub(crate) reg: &'static str,
    /// BAR 0 offset, or from the engine's base for [`Scope::VcsEven`] and
    /// [`Scope::EachEngine`].
    pub(crate) offset: u32,
    /// Upstream `XE_REG_MCR`: written through the steering API.
    pub(crate) mcr: bool,
    /// Upstream `XE_REG_OPTION_MASKED`.
    pub(crate) masked: bool,
    /// Bits the action changes (for a masked register, of bits 15:0).
    pub(crate) clear: u32,
    /// Their new value.
    pub(crate) set: u32,
    /// Whether upstream reads the row back to verify it.
    pub(crate) check: bool,
    pub(crate) verdict: Verdict,
}

impl Entry {
    /// Whether xehpg programs this row on die `die`.
    pub(crate) fn applies(&self, die: Die) -> bool {
        matches!(self.verdict, Verdict::Applied(_)) && self.sub & die_bit(die) != 0
    }

    /// The value one write of this row puts in the register, given its old value (ignored for
    /// a masked register).
    pub(crate) fn value(&self, old: u32) -> u32 {
        if self.masked {
            // CAST: a masked row changes only bits 15:0 (checked at build time below).
            raw_bits(self.clear as u16, self.set as u16)
        } else {
            (old & !self.clear) | (self.set & self.clear)
        }
    }

    /// Whether `read` shows this row in effect.
    pub(crate) fn holds(&self, read: u32) -> bool {
        read & self.clear == self.set & self.clear
    }

    /// Whether this row's register belongs to engine `e`'s save/restore list: the engine it is
    /// programmed for (upstream keeps engine rows in that engine's `reg_sr`).
    pub(crate) fn owned_by(&self, e: &Engine) -> bool {
        match self.scope {
            Scope::Gt => false,
            Scope::Class(c) => e.class == c && e.instance == 0,
            Scope::FirstRenderOrCompute => e.class == Class::Render && e.instance == 0,
            Scope::VcsEven => e.class == Class::VideoDecode && e.instance % 2 == 0,
            Scope::EachEngine => true,
        }
    }
}

/// The die's bit in [`Entry::sub`].
pub(crate) fn die_bit(die: Die) -> u8 {
    match die {
        Die::G10 => G10,
        Die::G11 => G11,
        Die::G12 => G12,
    }
}

// Build-time: every applied row with an absolute offset is multicast exactly when the
// driver's steering table (generated from the PRM, rust/gt/mcr/table.rs) says so, and lies in
// a forcewake domain the apply step takes.
const _: () = {
    let mut i = 0;
    while i < TABLE.len() {
        let e = &TABLE[i];
        let absolute = !matches!(e.scope, Scope::VcsEven | Scope::EachEngine);
        if matches!(e.verdict, Verdict::Applied(_)) && absolute {
            assert!(e.mcr == steering_of(e.offset).is_some());
            assert!(match wake_of(e.offset) {
                Wake::None => true,
                Wake::Domain(d) => matches!(d, Domain::Gt | Domain::Render),
            });
        }
        if e.masked {
            assert!(e.clear <= 0xffff);
        }
        i += 1;
    }
};

/// Read-back mismatches since the module loaded, over all devices (each also logged).
static MISMATCHES: Atomic<u64> = Atomic::new(0);

/// Where a row is written: its absolute offset and forcewake domain, once per target.
fn targets(e: &Entry, present: &Present, mut f: impl FnMut(u32, Domain, Option<&Engine>)) {
    let domain_of = |offset| match wake_of(offset) {
        Wake::Domain(d) => d,
        Wake::None => Domain::Gt,
    };
    match e.scope {
        Scope::Gt | Scope::FirstRenderOrCompute => f(e.offset, domain_of(e.offset), None),
        Scope::Class(c) => {
            if ENGINES.iter().any(|g| g.class == c && g.present(present)) {
                f(e.offset, domain_of(e.offset), None)
            }
        }
        Scope::VcsEven | Scope::EachEngine => {
            for g in ENGINES
                .iter()
                .filter(|g| g.present(present) && e.owned_by(g))
            {
                f(g.mmio_base + e.offset, g.domain, Some(g))
            }
        }
    }
}

/// Programs every `applied` row for this device and reads back the ones upstream verifies.
///
/// Context: process (probe, GT init), may sleep; takes forcewake for the GT domain, then the
/// render and each present media domain (each together with GT, for the steering registers)
/// and the steering lock per MCR access.
///
/// A domain other than GT that does not wake (a dead or never-acknowledging forcewake ack,
/// already logged by the forcewake code) costs only its own rows: they are counted as skipped
/// and named in one `dev_err!`, and the engines of that domain are later refused their setup
/// the same way. Probe needs only the GT domain, as it did before the table existed.
///
/// # Errors
///
/// A GT forcewake failure. A refused
/// register access (already logged by the accessor) or a read-back mismatch is counted and
/// logged, not returned.
pub(crate) fn apply(gt: &Gt<'_>, topology: &Topology, die: Die) -> Result {
    let present = Present::from_topology(topology);
    let others = DomainMask::RENDER
        .union(DomainMask::from_media_fuse(topology.vdbox, topology.vebox))
        .without(DomainMask::GT);
    let gt_fw = gt.forcewake(DomainMask::GT)?;
    // One guard per other domain, so that a domain that does not wake costs only its rows.
    let guards: [Option<FwGuard<'_>>; DOMAIN_COUNT] = core::array::from_fn(|i| {
        let d = Domain::from_index(i).filter(|d| others.contains(*d))?;
        match gt.forcewake(DomainMask::GT.union(d.bit())) {
            Ok(g) => Some(g),
            Err(err) => {
                dev_err!(
                    gt.dev,
                    "wa: apply: forcewake domain {} failed ({:?}); its rows are skipped\n",
                    d,
                    err
                );
                None
            }
        }
    });
    let guard_for = |d: Domain| match d {
        Domain::Gt => Some(&gt_fw),
        _ => guards[d.index()].as_ref(),
    };
    let mcr = gt.mcr;
    let mut refused = 0u32;
    let mut skipped = 0u32;
    let mut writes = 0u32;
    let rows = TABLE.iter().filter(|e| e.applies(die));
    for e in rows.clone() {
        targets(e, &present, |offset, domain, _| {
            let Some(fw) = guard_for(domain) else {
                skipped += 1;
                return;
            };
            let res = if e.mcr {
                let old = if e.masked || e.clear == u32::MAX {
                    Ok(0)
                } else {
                    mcr.read_any_at(gt, fw, offset)
                };
                old.and_then(|old| mcr.write_multicast_at(gt, fw, offset, e.value(old)))
            } else {
                gt.window(fw, 0, domain).map(|w| {
                    let old = if e.masked { 0 } else { w.read(offset) };
                    w.write(offset, e.value(old))
                })
            };
            match res {
                Ok(()) => writes += 1,
                Err(_) => refused += 1,
            }
        });
    }
    let mut bad = 0u32;
    for e in rows.filter(|e| e.check) {
        targets(e, &present, |offset, domain, _| {
            let Some(fw) = guard_for(domain) else {
                return;
            };
            let read = if e.mcr {
                mcr.read_any_at(gt, fw, offset)
            } else {
                gt.window(fw, 0, domain).map(|w| w.read(offset))
            };
            match read {
                Ok(v) if e.holds(v) => {}
                Ok(v) => {
                    bad += 1;
                    MISMATCHES.add(1, Relaxed);
                    dev_err!(
                        gt.dev,
                        "wa: read-back: {} ({:?}, {}) {} at {:#x}: expected {:#x} under mask {:#x}, reads {:#x}\n",
                        e.name,
                        e.src,
                        die_name(die),
                        e.reg,
                        offset,
                        e.set & e.clear,
                        e.clear,
                        v
                    );
                }
                Err(_) => refused += 1,
            }
        });
    }
    dev_info!(
        gt.dev,
        "wa: {} writes for {}, {} read-back mismatches, {} refused accesses, {} skipped (domain asleep)\n",
        writes,
        die_name(die),
        bad,
        refused,
        skipped
    );
    Ok(())
}

fn die_name(die: Die) -> &'static str {
    match die {
        Die::G10 => "G10",
        Die::G11 => "G11",
        Die::G12 => "G12",
    }
}

/// One register of an engine's save/restore list: what the GuC must write back after it
/// resets the engine.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct SaveRestore {
    /// Absolute BAR 0 offset.
    pub(crate) offset: u32,
    /// Whether the register is multicast (the GuC ADS register list's steering flag).
    pub(crate) mcr: bool,
    /// Whether it is a masked register (the value carries its mask in bits 31:16).
    pub(crate) masked: bool,
    /// Bits xehpg programs (for a masked register, of bits 15:0).
    pub(crate) mask: u32,
    /// Their value; for a masked register, the full write `(mask << 16) | value`.
    pub(crate) value: u32,
}

/// The registers engine `e` of a part with die `die` must get back after an engine reset:
/// every applied engine-level row it owns, merged per register (upstream's per-engine
/// `reg_sr`, which `xe_guc_ads.c` `guc_mmio_reg_state_init` turns into the ADS list).
///
/// Context: process; allocates with `GFP_KERNEL`.
///
/// # Errors
///
/// `ENOMEM`.
pub(crate) fn save_restore(e: &Engine, die: Die) -> Result<KVec<SaveRestore>> {
    let mut out: KVec<SaveRestore> = KVec::new();
    // Only what upstream keeps in the engine's own `reg_sr`: the engine tables of `xe_wa.c`
    // and `xe_tuning.c` and `xe_hw_engine.c`'s `engine_sr`. A GT-table row with an engine
    // rule (`VDBOX_CGCTL3F10`) lives in the GT's `reg_sr`, which the ADS does not list.
    let rows = TABLE.iter().filter(|r| {
        r.applies(die)
            && matches!(r.verdict, Verdict::Applied(Stage::EngineInit))
            && matches!(r.src, Src::EngineWas | Src::EngineTunings | Src::HwEngine)
            && r.owned_by(e)
    });
    for r in rows {
        let offset = match r.scope {
            Scope::VcsEven | Scope::EachEngine => e.mmio_base + r.offset,
            _ => r.offset,
        };
        if let Some(s) = out.iter_mut().find(|s| s.offset == offset) {
            s.mask |= r.clear;
            s.value = (s.value & !r.clear) | (r.set & r.clear);
        } else {
            out.push(
                SaveRestore {
                    offset,
                    mcr: r.mcr,
                    masked: r.masked,
                    mask: r.clear,
                    value: r.set & r.clear,
                },
                GFP_KERNEL,
            )?;
        }
    }
    for s in out.iter_mut().filter(|s| s.masked) {
        // CAST: masked rows change only bits 15:0 (checked at build time), so their union does.
        s.value = raw_bits(s.mask as u16, s.value as u16);
    }
    Ok(out)
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_wa)]
mod tests {
    use super::*;

    fn engine(name: &str) -> &'static Engine {
        ENGINES
            .iter()
            .find(|e| e.name == name)
            .unwrap_or(&ENGINES[0])
    }

    #[test]
    fn subplatform_rows_follow_the_die() {
        let named = |n: &str, reg: &str| TABLE.iter().find(|e| e.name == n && e.reg == reg);
        // Wa_22010523718 is G10 only (xe_wa.c gt_was, SUBPLATFORM(DG2, G10)).
        let g10 = named("22010523718", "UNSLICE_UNIT_LEVEL_CLKGATE");
        assert!(g10.is_some_and(|e| e.applies(Die::G10) && !e.applies(Die::G11)));
        // Wa_22013059131 is G11 only.
        let g11 = named("22013059131", "LSC_CHICKEN_BIT_0");
        assert!(g11.is_some_and(|e| e.applies(Die::G11) && !e.applies(Die::G10)));
        // A not-applied row never applies.
        let lrc = named("18019271663", "CACHE_MODE_1");
        assert!(lrc.is_some_and(|e| !e.applies(Die::G10)));
    }

    #[test]
    fn engine_rows_go_to_their_engine() -> Result {
        let rcs = save_restore(engine("rcs0"), Die::G10)?;
        // CS_DEBUG_MODE1 (render class) and SAMPLER_MODE, merged from two rows.
        assert!(rcs.iter().any(|s| s.offset == 0x20ec && s.masked));
        let sampler = rcs.iter().find(|s| s.offset == 0xe18c);
        assert_eq!(
            sampler.map(|s| (s.mask, s.value)),
            Some((0x201, 0x0201_0201))
        );
        // The default MOCS of every engine, at its own base.
        assert!(rcs.iter().any(|s| s.offset == 0x20c4));
        let bcs = save_restore(engine("bcs0"), Die::G10)?;
        assert_eq!(bcs.len(), 1);
        assert_eq!(bcs.first().map(|s| s.offset), Some(0x220c4));
        // VDBOX_CGCTL3F10 is a GT workaround (`gt_was`, per even VCS) applied at engine
        // init: upstream keeps it out of the engine's list, and so does this one.
        let vcs0 = save_restore(engine("vcs0"), Die::G10)?;
        assert!(TABLE
            .iter()
            .any(|e| e.reg == "VDBOX_CGCTL3F10" && e.src == Src::GtWas));
        assert!(!vcs0.iter().any(|s| s.offset == 0x1c3f10));
        assert_eq!(vcs0.first().map(|s| s.offset), Some(0x1c00c4));
        // G11's LSC_CHICKEN_BIT_0_UDW carries the MAXREQS field beside the G10 bits.
        let g11 = save_restore(engine("rcs0"), Die::G11)?;
        let udw = g11.iter().find(|s| s.offset == 0xe7cc);
        assert_eq!(udw.map(|s| s.value & 0xe0), Some(0x40));
        Ok(())
    }

    #[test]
    fn writes_and_checks() {
        let clr = TABLE.iter().find(|e| e.name == "14015795083");
        // A clear of a plain register keeps the other bits.
        assert_eq!(clr.map(|e| e.value(0xff)), Some(0xfd));
        assert!(clr.is_some_and(|e| e.holds(0xfd) && !e.holds(0xff)));
        let masked = TABLE.iter().find(|e| e.reg == "CS_DEBUG_MODE1");
        assert_eq!(masked.map(|e| e.value(0)), Some(0x0002_0002));
    }
}
