//! Multicast (MCR) steering: the MGSR steering selectors and the replicated
//! registers behind them.
//!
//! Rules (seed 000 lines 725-732 and 783-811):
//!
//! - every steering selector has a multicast bit (reset 1) and sliceid /
//!   subsliceid fields (reset 0) (lines 727-732: "All Steering Control
//!   Registers contain the following fields"); GAM's sliceid is an option,
//!   below;
//! - a multicast write goes to every instance (sliceid/subsliceid ignored);
//!   a unicast write to the selected instance only (lines 789, 791);
//! - every read, multicast or not, returns the instance selected by
//!   sliceid/subsliceid: "The MsgCh selects single instance's response as
//!   the final read return, based on sliceid[]/subsliceid[]" (lines 730,
//!   790, 792);
//! - a terminated (fused-off) instance reads 0 and drops writes (lines 795,
//!   801). Reading one is recorded as `terminated_read`: "In order to get
//!   correct/valid value the steering registers must be used to access a
//!   valid instance" (line 801);
//! - GAM: "software must set the steering back to that primary GAM before
//!   reading any GAM register ... Primary GAM instance is 1" (line 744), so
//!   a read through the GAM selector with sliceid != 1 is recorded as
//!   `gam_not_primary`;
//! - the GAM selector's reset sliceid: the seed gives every selector
//!   sliceid 0 (line 731) and expects software to "set the steering back"
//!   to the primary GAM (line 744), which reads as the selector not resting
//!   there by itself; upstream calls instance 1 "already the hardware's
//!   default steering target, which we never change" (`xe_gt_mcr.c`
//!   `xe_gt_mcr_set_implicit_defaults`), while i915 programs
//!   `GAM_MCR_SELECTOR` to 1 anyway on DG2 (`intel_workarounds.c`
//!   `icl_wa_init_mcr`). The mock resets it to sliceid
//!   [`GAM_RESET_SLICE_SEED`] (0) and `--gam-reset-slice 1` gives
//!   upstream's reading, so a driver has to be right on both: only one that
//!   steers GAM to the primary before reading is.
//!
//! Instance numbering from (sliceid s, subsliceid ss), lines 740-746:
//! SQIDI ss (0..7); GSLICE s (0..7); DSS 4s + ss (s 0..7, ss 0..3); L3BANK
//! `l3BankIndex[4:2] = s[2:0]`, `[1:0] = ss[1:0]` (s bit 3 and ss bit 2
//! unused); MSLICE s (0..3); LNCF s (0..7). A selection outside those ranges
//! names no instance and is treated as terminated (`[MODEL]`).
//!
//! Which selector routes an access: "MGSR uses the MMIO offset requested in
//! the inbound cycle to select which steering register to use" (line 809),
//! but the seed only names the endpoint classes (lines 709-714). The ranges
//! are upstream's `dg2_implicit_steering_table` (`xe_gt_mcr.c`): SF
//! 0x000B00-0x000BFF and 0x001000-0x001FFF through `SF_MCR_SELECTOR` (the IA
//! one; 0xFD4 serves HW agents, line 711), MCFG 0x008700-0x0087FF through
//! `STEER_SEMAPHORE`, GAM 0x004000-0x004AFF, 0x00C800-0x00CFFF and
//! 0x00F000-0x00FFFF through `GAM_MCR_SELECTOR`; every other replicated
//! range through `MCR_SELECTOR`. 0x00F000-0x00FFFF is an MSLICE range in the
//! seed's table (lines 544-545) and a GAM range upstream; the mock routes it
//! through the GAM selector and keeps the table's MSLICE replication (4
//! instances by sliceid), as upstream's comment "GAM (MSLICE replication)"
//! says.
//!
//! An MCR register also needs its range's forcewake domain; the register
//! file checks that before it gets here.

use super::straps;
use super::Fuses;
use crate::power::Map;
use crate::recorder::Recorder;
use crate::regs;
use crate::regs::mcr_selector;
use crate::regs::RegDef;
use crate::seed_table::Group;
use crate::trace::Event;
use crate::trace::Hex;

/// A steering selector of the MGSR access point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Selector {
    /// 0xFD0, MCFG endpoints (`STEER_SEMAPHORE`).
    Mcfg,
    /// 0xFD4, SF endpoints for HW agents (`MTL_MCR_SELECTOR`).
    SfHw,
    /// 0xFD8, SF endpoints for IA (`SF_MCR_SELECTOR`).
    Sf,
    /// 0xFDC, all other endpoints (`MCR_SELECTOR`).
    Other,
    /// 0xFE0, GAM endpoints (`GAM_MCR_SELECTOR`).
    Gam,
}

impl Selector {
    /// Every selector, by offset.
    pub const ALL: [Selector; 5] = [
        Selector::Mcfg,
        Selector::SfHw,
        Selector::Sf,
        Selector::Other,
        Selector::Gam,
    ];

    /// The register.
    pub const fn def(self) -> &'static RegDef {
        match self {
            Selector::Mcfg => &mcr_selector::STEER_SEMAPHORE,
            Selector::SfHw => &mcr_selector::MTL_MCR_SELECTOR,
            Selector::Sf => &mcr_selector::SF_MCR_SELECTOR,
            Selector::Other => &mcr_selector::MCR_SELECTOR,
            Selector::Gam => &mcr_selector::GAM_MCR_SELECTOR,
        }
    }

    const fn index(self) -> usize {
        self as usize
    }

    /// Reset value: multicast, sliceid 0, subsliceid 0 (seed 000 lines
    /// 730-732), except that GAM's sliceid is `gam_slice` (module docs).
    pub const fn reset_value(self, gam_slice: u32) -> u32 {
        let multicast = mcr_selector::MULTICAST.mask32();
        match self {
            Selector::Gam => multicast | (gam_slice << mcr_selector::SLICE.lo),
            _ => multicast,
        }
    }

    /// The selector the IA driver's access to `offset` goes through, given
    /// that `offset` is replicated (upstream `dg2_implicit_steering_table`).
    pub fn route(offset: u32) -> Selector {
        let within = |ranges: &[(u32, u32)]| ranges.iter().any(|&(s, e)| (s..=e).contains(&offset));
        if within(&SF_RANGES) {
            Selector::Sf
        } else if within(&MCFG_RANGES) {
            Selector::Mcfg
        } else if within(&GAM_RANGES) {
            Selector::Gam
        } else {
            Selector::Other
        }
    }
}

/// SF endpoints (SQIDI replication), `dg2_implicit_steering_table`.
pub const SF_RANGES: [(u32, u32); 2] = [(0x00_0B00, 0x00_0BFF), (0x00_1000, 0x00_1FFF)];
/// MCFG endpoints (SQIDI replication), `dg2_implicit_steering_table`.
pub const MCFG_RANGES: [(u32, u32); 1] = [(0x00_8700, 0x00_87FF)];
/// GAM endpoints (MSLICE replication), `dg2_implicit_steering_table`.
pub const GAM_RANGES: [(u32, u32); 3] = [
    (0x00_4000, 0x00_4AFF),
    (0x00_C800, 0x00_CFFF),
    (0x00_F000, 0x00_FFFF),
];
/// The primary GAM instance (MSLICE sliceid), seed 000 line 744.
pub const PRIMARY_GAM: u32 = 1;
/// The GAM selector's reset sliceid by the seed: every selector's sliceid
/// defaults to 0 (seed 000 line 731).
pub const GAM_RESET_SLICE_SEED: u32 = 0;
/// The GAM selector's reset sliceid by upstream: the primary GAM
/// (`xe_gt_mcr.c` `xe_gt_mcr_set_implicit_defaults`).
pub const GAM_RESET_SLICE_UPSTREAM: u32 = PRIMARY_GAM;

/// A decoded selector value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Steer {
    /// The multicast bit.
    pub multicast: bool,
    /// sliceid (0..15).
    pub slice: u32,
    /// subsliceid (0..7).
    pub subslice: u32,
}

impl Steer {
    /// Decodes a selector value.
    pub fn decode(v: u32) -> Steer {
        let v = u64::from(v);
        // CAST: the fields are 4 and 3 bits wide.
        Steer {
            multicast: mcr_selector::MULTICAST.get(v) != 0,
            slice: mcr_selector::SLICE.get(v) as u32,
            subslice: mcr_selector::SUBSLICE.get(v) as u32,
        }
    }
}

/// The instance of `group` selected by (`slice`, `subslice`), or `None` if
/// the selection names none (numbering in the module docs).
pub const fn instance(group: Group, slice: u32, subslice: u32) -> Option<usize> {
    let (s, ss) = (slice as usize, subslice as usize);
    match group {
        Group::Sqidi if ss < 8 => Some(ss),
        Group::Gslice | Group::Lncf if s < 8 => Some(s),
        Group::Dss if s < 8 && ss < 4 => Some(4 * s + ss),
        Group::L3bank => Some(((s & 0x7) << 2) | (ss & 0x3)),
        Group::Mslice if s < 4 => Some(s),
        _ => None,
    }
}

/// How writes to a replicated register behave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Access {
    /// Plain storage.
    ReadWrite,
    /// Fixed value in every instance; writes are `read_only_write`.
    ReadOnly,
    /// Storage whose writes change only the bits their upper half selects
    /// ([`super::tuning::masked`]).
    Masked,
}

/// One replicated register with per-instance storage.
#[derive(Debug)]
struct McrReg {
    def: &'static RegDef,
    group: Group,
    selector: Selector,
    access: Access,
    reset: u32,
    values: Vec<u32>,
}

/// Why the MCR unit could not be built from the table.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{name} (+{offset:#x}) is not in a replicated range of the seed table")]
pub struct NotReplicated {
    /// Register name.
    pub name: &'static str,
    /// Its offset.
    pub offset: u32,
}

/// The steering selectors and the replicated registers.
#[derive(Debug)]
pub struct Mcr {
    fuses: Fuses,
    gam_reset_slice: u32,
    selectors: [u32; 5],
    regs: Vec<McrReg>,
}

impl Mcr {
    /// Reset state. Each register's replication group and instance count
    /// come from the seed table (`map`); `gam_reset_slice` is the GAM
    /// selector's sliceid after reset; `flat_ccs` is the fixed value of
    /// `XEHP_FLAT_CCS_BASE_ADDR`.
    ///
    /// # Errors
    ///
    /// A modelled register lies outside every replicated range of the table.
    pub fn new(
        map: &Map,
        fuses: Fuses,
        gam_reset_slice: u32,
        flat_ccs: u32,
    ) -> Result<Self, NotReplicated> {
        let mut out = Vec::new();
        for def in &regs::mcr::ALL {
            let not_replicated = NotReplicated {
                name: def.name,
                offset: def.offset,
            };
            let row = map.row(def.offset).ok_or(not_replicated.clone())?;
            let (Some(group), Some(count)) = (row.group, row.inst_count) else {
                return Err(not_replicated);
            };
            let (access, reset) = if def.offset == regs::mcr::XEHP_FLAT_CCS_BASE_ADDR.offset {
                (Access::ReadOnly, flat_ccs)
            } else if super::tuning::is_in(def, &regs::mcr::MASKED) {
                (Access::Masked, 0)
            } else {
                (Access::ReadWrite, 0)
            };
            // CAST: instance counts are at most 32.
            out.push(McrReg {
                def,
                group,
                selector: Selector::route(def.offset),
                access,
                reset,
                values: vec![reset; count as usize],
            });
        }
        Ok(Mcr {
            fuses,
            gam_reset_slice,
            selectors: Selector::ALL.map(|s| s.reset_value(gam_reset_slice)),
            regs: out,
        })
    }

    /// Function reset: selectors and every instance back to reset values.
    pub fn reset(&mut self) {
        let gam = self.gam_reset_slice;
        self.selectors = Selector::ALL.map(|s| s.reset_value(gam));
        for r in &mut self.regs {
            r.values.fill(r.reset);
        }
    }

    /// `GDRST.GRDOM_FULL`: every replicated register back to its reset
    /// value (the read-only `XEHP_FLAT_CCS_BASE_ADDR` keeps its fixed
    /// one); the steering selectors keep theirs. Returns how many
    /// registers had an instance away from its reset value.
    ///
    /// Source: upstream re-programs what lives here after its full reset
    /// (`xe_gt.c` `do_gt_restart`: `xe_pat_init` for `PAT_INDEX`,
    /// `xe_mocs_init` for `XEHP_LNCFCMOCS`, `xe_reg_sr_apply_mmio` of
    /// `gt->reg_sr` for the workaround and tuning rows, `xe_lmtt_init_hw` for
    /// `LMEM_CFG`), so it treats them as lost. `[MODEL]`: all of them go,
    /// the stricter reading; the selectors are not re-programmed by
    /// `do_gt_restart` (each steered access writes its own,
    /// `xe_gt_mcr.c`), so they stay.
    pub fn reset_storage(&mut self) -> u64 {
        let mut changed = 0;
        for r in &mut self.regs {
            if r.values.iter().any(|&v| v != r.reset) {
                changed += 1;
            }
            r.values.fill(r.reset);
        }
        changed
    }

    fn selector_at(offset: u32) -> Option<Selector> {
        Selector::ALL.into_iter().find(|s| s.def().offset == offset)
    }

    /// The selector's current value.
    pub fn selector(&self, s: Selector) -> u32 {
        self.selectors[s.index()]
    }

    /// Reads a selector or a replicated register; `None` for other offsets.
    pub fn read(&self, offset: u32, rec: &mut Recorder) -> Option<u32> {
        if let Some(s) = Self::selector_at(offset) {
            return Some(self.selector(s));
        }
        let r = self.regs.iter().find(|r| r.def.offset == offset)?;
        let steer = Steer::decode(self.selector(r.selector));
        let sel = r.selector.def().name;
        if r.selector == Selector::Gam && steer.slice != PRIMARY_GAM {
            rec.violation(
                "gam_not_primary",
                format!(
                    "read of {} (+{offset:#x}) with {sel} steered to sliceid {} (primary GAM is {PRIMARY_GAM})",
                    r.def.name, steer.slice
                ),
            );
        }
        let live = self.live_instance(r, steer);
        let Some(i) = live else {
            rec.violation(
                crate::summary::TERMINATED_READ,
                format!(
                    "read of {} (+{offset:#x}) through {sel} hits terminated {} instance \
                     (sliceid {}, subsliceid {}); it reads 0",
                    r.def.name, r.group, steer.slice, steer.subslice
                ),
            );
            return Some(0);
        };
        Some(r.values.get(i).copied().unwrap_or(0))
    }

    /// The selected instance, if it exists and is not terminated.
    fn live_instance(&self, r: &McrReg, steer: Steer) -> Option<usize> {
        instance(r.group, steer.slice, steer.subslice)
            .filter(|&i| i < r.values.len() && self.fuses.present(r.group, i))
    }

    /// Writes a selector or a replicated register; `None` for other offsets.
    pub fn write(&mut self, offset: u32, value: u32, rec: &mut Recorder) -> Option<()> {
        if let Some(s) = Self::selector_at(offset) {
            // [MODEL] Bits outside multicast/slice/subslice are reserved and
            // read 0 (the seed defines no others).
            let fields = mcr_selector::MULTICAST.mask32()
                | mcr_selector::SLICE.mask32()
                | mcr_selector::SUBSLICE.mask32();
            self.selectors[s.index()] = value & fields;
            let steer = Steer::decode(value);
            rec.emit(Event::Steer {
                selector: s.def().name,
                multicast: steer.multicast,
                slice: steer.slice,
                subslice: steer.subslice,
            });
            return Some(());
        }
        let idx = self.regs.iter().position(|r| r.def.offset == offset)?;
        let r = &self.regs[idx];
        if r.access == Access::ReadOnly {
            straps::write_ignored(offset, value, rec);
            return Some(());
        }
        let steer = Steer::decode(self.selector(r.selector));
        // Multicast: every present instance; unicast: the selected one if
        // present. A terminated instance drops the write (seed 000 line 795).
        let targets: Vec<usize> = if steer.multicast {
            (0..r.values.len())
                .filter(|&i| self.fuses.present(r.group, i))
                .collect()
        } else {
            let live = self.live_instance(r, steer);
            if live.is_some() {
                // Where a unicast write landed, in the mock's own terms, so a test
                // can tell a driver that steers to the wrong instance from one that
                // reads back through the same wrong mapping.
                rec.emit(Event::McrUnicastWrite {
                    reg: r.def.name,
                    slice: steer.slice,
                    subslice: steer.subslice,
                    value: Hex(value.into()),
                });
            }
            live.into_iter().collect()
        };
        let masked = r.access == Access::Masked;
        let values = &mut self.regs[idx].values;
        for i in targets {
            if let Some(v) = values.get_mut(i) {
                *v = if masked {
                    super::tuning::masked(*v, value)
                } else {
                    value
                };
            }
        }
        Some(())
    }

    /// The stored value of instance `i` of the register at `offset` (tests
    /// and tools; no steering, no violation).
    pub fn peek(&self, offset: u32, i: usize) -> Option<u32> {
        self.regs
            .iter()
            .find(|r| r.def.offset == offset)
            .and_then(|r| r.values.get(i).copied())
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::power::Domain;
    use crate::regfile::tests::awake;
    use crate::regfile::tests::params;
    use crate::regfile::tests::setup;
    use crate::regfile::RegisterFile;
    use crate::regfile::SqidiPart;
    use crate::regs::mcr as m;
    use crate::summary::Summary;

    const MC: u32 = 1 << 31;

    fn sel(multicast: bool, slice: u32, subslice: u32) -> u32 {
        (if multicast { MC } else { 0 }) | slice << 27 | subslice << 24
    }

    /// A register file with GT and RENDER awake and the given fuses.
    fn with(fuses: Fuses) -> (RegisterFile, Recorder) {
        with_gam(fuses, GAM_RESET_SLICE_SEED)
    }

    /// As [`with`], with the GAM selector resetting to sliceid `gam`.
    fn with_gam(fuses: Fuses, gam: u32) -> (RegisterFile, Recorder) {
        let mut p = params();
        p.fuses = fuses;
        p.gam_reset_slice = gam;
        let (mut rf, mut rec, clock) = setup(p);
        awake(&mut rf, &mut rec, &clock, &[Domain::GT, Domain::RENDER]);
        (rf, rec)
    }

    fn kinds(rec: &Recorder) -> Summary {
        rec.summary(false)
    }

    #[test]
    fn every_register_is_in_a_range_of_its_group() {
        let map = Map::builtin().expect("table");
        let want = [
            (m::XEHP_FLAT_CCS_BASE_ADDR, Group::Mslice, Selector::Gam, 4),
            (m::FF_MODE, Group::Gslice, Selector::Other, 8),
            (m::XEHP_SQCM, Group::Sqidi, Selector::Mcfg, 8),
            (m::XEHP_L3NODEARBCFG, Group::Lncf, Selector::Other, 8),
            (m::XEHP_L3SQCREG5, Group::L3bank, Selector::Other, 32),
            (m::XEHP_GAMCNTRL_CTRL, Group::Mslice, Selector::Gam, 4),
            (m::LSC_CHICKEN_BIT_0, Group::Dss, Selector::Other, 32),
            (m::SARB_CHICKEN1, Group::Mslice, Selector::Other, 4),
            (m::PAT_INDEX[0], Group::Mslice, Selector::Gam, 4),
            (
                m::SUBSLICE_UNIT_LEVEL_CLKGATE,
                Group::Dss,
                Selector::Other,
                32,
            ),
            (m::XEHP_LNCFCMOCS[31], Group::Lncf, Selector::Other, 8),
            (m::XEHP_L3SCQREG7, Group::L3bank, Selector::Other, 32),
            (m::RENDER_MOD_CTRL, Group::Mslice, Selector::Gam, 4),
            (m::ROW_CHICKEN2, Group::Dss, Selector::Other, 32),
        ];
        for (def, group, selector, count) in want {
            let row = map.row(def.offset).expect("row");
            assert_eq!(row.group, Some(group), "{}", def.name);
            assert_eq!(row.inst_count, Some(count), "{}", def.name);
            assert_eq!(Selector::route(def.offset), selector, "{}", def.name);
        }
        // Domains: RENDER for GSLICE/DSS, GT for the rest.
        assert_eq!(map.domain(m::FF_MODE.offset), Some(Domain::RENDER));
        assert_eq!(
            map.domain(m::LSC_CHICKEN_BIT_0.offset),
            Some(Domain::RENDER)
        );
        assert_eq!(map.domain(m::XEHP_SQCM.offset), Some(Domain::GT));
        assert_eq!(
            map.domain(m::XEHP_FLAT_CCS_BASE_ADDR.offset),
            Some(Domain::GT)
        );
    }

    /// The upstream routing ranges agree with the seed's replication groups.
    #[test]
    fn routing_ranges_match_the_table() {
        let map = Map::builtin().expect("table");
        for (ranges, group) in [
            (&SF_RANGES[..], Group::Sqidi),
            (&MCFG_RANGES[..], Group::Sqidi),
            (&GAM_RANGES[..], Group::Mslice),
        ] {
            for &(s, e) in ranges {
                for off in (s..=e).step_by(4) {
                    assert_eq!(map.group(off), Some(group), "{off:#x}");
                }
            }
        }
        assert_eq!(map.domain(0xB00), None, "SF ranges are always on");
        for (off, s) in [
            (0x0B00, Selector::Sf),
            (0x1FFC, Selector::Sf),
            (0x4000, Selector::Gam),
            (0x4AFC, Selector::Gam),
            (0x8700, Selector::Mcfg),
            (0xC800, Selector::Gam),
            (0xDD00, Selector::Other),
            (0xE900, Selector::Other),
            (0xF000, Selector::Gam),
            (0xFFFC, Selector::Gam),
            (0x8C80, Selector::Other),
        ] {
            assert_eq!(Selector::route(off), s, "{off:#x}");
        }
    }

    #[test]
    fn selectors_reset_values_and_steer_events() {
        let (mut rf, mut rec) = with(Fuses::ATS_M150);
        for (off, v) in [
            (0xFD0, MC),
            (0xFD4, MC),
            (0xFD8, MC),
            (0xFDC, MC),
            (0xFE0, MC),
        ] {
            assert_eq!(rf.read(off, &mut rec), Some(v), "{off:#x}");
        }
        rf.write(0xFDC, 0xFFFF_FFFF, &mut rec);
        assert_eq!(
            rf.read(0xFDC, &mut rec),
            Some(0xFF00_0000),
            "reserved bits read 0"
        );
        rf.write(0xFDC, sel(false, 3, 2), &mut rec);
        rf.write(0xFD8, sel(false, 0, 2), &mut rec);
        let s = kinds(&rec);
        assert_eq!(s.mcr_selector_writes.get("MCR_SELECTOR"), Some(&2));
        assert_eq!(s.mcr_selector_writes.get("SF_MCR_SELECTOR"), Some(&1));
        // Selectors are always on: no forcewake needed.
        let (mut rf, mut rec, _) = setup(params());
        rf.write(0xFDC, sel(false, 1, 1), &mut rec);
        assert_eq!(rf.read(0xFDC, &mut rec), Some(sel(false, 1, 1)));
        assert_eq!(kinds(&rec).violations, 0);
        rf.reset(Duration::ZERO, &mut rec);
        assert_eq!(rf.read(0xFDC, &mut rec), Some(MC));
    }

    /// Multicast write reaches every present instance; reads return the
    /// selected one, multicast or not; unicast writes hit one instance.
    #[test]
    fn dss_multicast_unicast_and_reads() {
        let off = m::LSC_CHICKEN_BIT_0.offset;
        let (mut rf, mut rec) = with(Fuses::ATS_M150);
        rf.write(off, 0x1111, &mut rec);
        for i in 0..32 {
            assert_eq!(rf.mcr.peek(off, i), Some(0x1111));
        }
        // Unicast to DSS (2,3) = instance 11.
        rf.write(0xFDC, sel(false, 2, 3), &mut rec);
        rf.write(off, 0x2222, &mut rec);
        assert_eq!(rf.mcr.peek(off, 11), Some(0x2222));
        assert_eq!(rf.mcr.peek(off, 10), Some(0x1111));
        assert_eq!(rf.read(off, &mut rec), Some(0x2222), "unicast read");
        rf.write(0xFDC, sel(true, 2, 3), &mut rec);
        assert_eq!(
            rf.read(off, &mut rec),
            Some(0x2222),
            "multicast read is steered too"
        );
        rf.write(0xFDC, sel(true, 0, 0), &mut rec);
        assert_eq!(rf.read(off, &mut rec), Some(0x1111));
        let s = kinds(&rec);
        assert_eq!(s.violations, 0);
        // Only the unicast write is recorded, under the instance it reached.
        assert_eq!(
            s.mcr_unicast_values.into_iter().collect::<Vec<_>>(),
            [("LSC_CHICKEN_BIT_0@2,3".to_string(), 0x2222)]
        );
    }

    /// A masked replicated register (upstream `XE_REG_OPTION_MASKED`): a
    /// multicast write changes only the selected bits of every instance.
    #[test]
    fn masked_replicated_register() {
        let off = m::ROW_CHICKEN2.offset;
        let (mut rf, mut rec) = with(Fuses::ATS_M150);
        rf.write(off, 0x0005_0005, &mut rec);
        rf.write(off, 0x0004_0000 | 0x0002, &mut rec);
        for i in 0..32 {
            assert_eq!(rf.mcr.peek(off, i), Some(0x0001), "instance {i}");
        }
        assert_eq!(rf.read(off, &mut rec), Some(0x0001));
        assert_eq!(kinds(&rec).violations, 0);
    }

    /// g11-partial: DSS (0,0) is gone; the default steering reads 0 and is a
    /// violation; steering to DSS (2,0) = DSS 8 works; a multicast write
    /// skips the terminated instances and a unicast write to one is dropped.
    #[test]
    fn dss_terminated_instances() {
        let off = m::LSC_CHICKEN_BIT_0.offset;
        let (mut rf, mut rec) = with(Fuses::G11_PARTIAL);
        rf.write(off, 0xABCD, &mut rec);
        assert_eq!(rf.mcr.peek(off, 0), Some(0));
        assert_eq!(rf.mcr.peek(off, 8), Some(0xABCD));
        assert_eq!(rf.read(off, &mut rec), Some(0), "default steering (0,0)");
        let s = kinds(&rec);
        assert_eq!(s.violation_kinds.get("terminated_read"), Some(&1));
        assert_eq!(s.terminated_reads, 1);
        rf.write(0xFDC, sel(true, 2, 0), &mut rec);
        assert_eq!(rf.read(off, &mut rec), Some(0xABCD));
        // Unicast to terminated DSS (1,0): dropped, no violation for a write.
        rf.write(0xFDC, sel(false, 1, 0), &mut rec);
        rf.write(off, 0x5555, &mut rec);
        assert_eq!(rf.mcr.peek(off, 4), Some(0));
        // subsliceid 4..7 names no DSS.
        rf.write(0xFDC, sel(true, 2, 4), &mut rec);
        assert_eq!(rf.read(off, &mut rec), Some(0));
        assert_eq!(kinds(&rec).terminated_reads, 2);
    }

    #[test]
    fn gslice() {
        let off = m::FF_MODE.offset;
        let (mut rf, mut rec) = with(Fuses::G11_PARTIAL);
        rf.write(off, 7, &mut rec);
        // GSLICE 2 and 3 hold DSS 8..15.
        for (slice, want, terminated) in [(0, 0, 1), (1, 0, 2), (2, 7, 2), (3, 7, 2), (4, 0, 3)] {
            rf.write(0xFDC, sel(true, slice, 3), &mut rec);
            assert_eq!(rf.read(off, &mut rec), Some(want), "slice {slice}");
            assert_eq!(kinds(&rec).terminated_reads, terminated, "slice {slice}");
        }
        // One DSS of the four keeps a GSLICE alive.
        let mut f = Fuses::G11_PARTIAL;
        f.dss_c = 1 << 5;
        let (mut rf, mut rec) = with(f);
        rf.write(off, 9, &mut rec);
        rf.write(0xFDC, sel(true, 1, 0), &mut rec);
        assert_eq!(rf.read(off, &mut rec), Some(9));
        assert_eq!(kinds(&rec).violations, 0);
    }

    /// L3BANK 0 is terminated only when BOTH meml3 of quadrant 0 is off AND
    /// all its DSS are off.
    #[test]
    fn l3bank_termination_and_index() {
        let off = m::XEHP_L3SQCREG5.offset;
        // Both off (g11-partial): bank 0 terminated, bank 8 alive.
        let (mut rf, mut rec) = with(Fuses::G11_PARTIAL);
        rf.write(off, 0x33, &mut rec);
        assert_eq!(rf.read(off, &mut rec), Some(0));
        assert_eq!(kinds(&rec).terminated_reads, 1);
        // Bank 8 = sliceid 2, subsliceid 0 (index[4:2] = 2).
        rf.write(0xFDC, sel(true, 2, 0), &mut rec);
        assert_eq!(rf.read(off, &mut rec), Some(0x33));
        // sliceid bit 3 and subsliceid bit 2 are unused: (10, 4) is bank 8.
        rf.write(0xFDC, sel(false, 10, 4), &mut rec);
        rf.write(off, 0x44, &mut rec);
        assert_eq!(rf.mcr.peek(off, 8), Some(0x44));
        assert_eq!(rf.mcr.peek(off, 9), Some(0x33));
        // Half one: meml3 bit 0 on, no DSS in quadrant 0 -> bank 0 alive.
        let mut f = Fuses::G11_PARTIAL;
        f.meml3 = 0x3;
        let (mut rf, mut rec) = with(f);
        rf.write(off, 0x55, &mut rec);
        assert_eq!(rf.read(off, &mut rec), Some(0x55));
        // Half two: meml3 bit 0 off, one DSS in quadrant 0 -> bank 0 alive.
        let mut f = Fuses::G11_PARTIAL;
        f.dss_g |= 1 << 7;
        let (mut rf, mut rec) = with(f);
        rf.write(off, 0x66, &mut rec);
        assert_eq!(rf.read(off, &mut rec), Some(0x66));
        assert_eq!(kinds(&rec).violations, 0);
    }

    #[test]
    fn mslice_and_lncf() {
        let (mut rf, mut rec) = with(Fuses::G11_PARTIAL);
        let sarb = m::SARB_CHICKEN1.offset;
        let lncf = m::XEHP_L3NODEARBCFG.offset;
        rf.write(sarb, 0x10, &mut rec);
        rf.write(lncf, 0x20, &mut rec);
        assert_eq!(rf.read(sarb, &mut rec), Some(0), "MSLICE 0 terminated");
        assert_eq!(rf.read(lncf, &mut rec), Some(0), "LNCF 0 terminated");
        rf.write(0xFDC, sel(true, 1, 0), &mut rec);
        assert_eq!(rf.read(sarb, &mut rec), Some(0x10), "MSLICE 1");
        assert_eq!(rf.read(lncf, &mut rec), Some(0), "LNCF 1 is in MSLICE 0");
        rf.write(0xFDC, sel(true, 3, 0), &mut rec);
        assert_eq!(rf.read(lncf, &mut rec), Some(0x20), "LNCF 3 is in MSLICE 1");
        rf.write(0xFDC, sel(true, 4, 0), &mut rec);
        assert_eq!(rf.read(sarb, &mut rec), Some(0), "no MSLICE 4");
        assert_eq!(kinds(&rec).terminated_reads, 4);
    }

    /// SQIDI via the MCFG selector: instance = subsliceid; -128 has 2, 3.
    #[test]
    fn sqidi_through_mcfg() {
        let off = m::XEHP_SQCM.offset;
        let (mut rf, mut rec) = with(Fuses::G11_PARTIAL);
        // Upstream's implicit default: slice 0, subslice 2, unicast.
        rf.write(0xFD0, sel(false, 0, 2), &mut rec);
        rf.write(off, 0x77, &mut rec);
        assert_eq!(rf.mcr.peek(off, 2), Some(0x77));
        assert_eq!(rf.mcr.peek(off, 3), Some(0));
        assert_eq!(rf.read(off, &mut rec), Some(0x77));
        // MCR_SELECTOR does not steer SQIDI registers.
        rf.write(0xFDC, sel(true, 0, 3), &mut rec);
        assert_eq!(rf.read(off, &mut rec), Some(0x77));
        for (ss, terminated) in [(0, true), (1, true), (3, false), (4, true), (7, true)] {
            let before = kinds(&rec).terminated_reads;
            rf.write(0xFD0, sel(true, 0, ss), &mut rec);
            rf.read(off, &mut rec);
            assert_eq!(
                kinds(&rec).terminated_reads - before,
                u64::from(terminated),
                "{ss}"
            );
        }
        // A full part has all 8.
        let (mut rf, mut rec) = with(Fuses::ATS_M150);
        rf.write(off, 0x99, &mut rec);
        rf.write(0xFD0, sel(true, 0, 7), &mut rec);
        assert_eq!(rf.read(off, &mut rec), Some(0x99));
        assert_eq!(kinds(&rec).violations, 0);
    }

    /// Each selector steers only its own ranges.
    #[test]
    fn selector_routing() {
        let (mut rf, mut rec) = with(Fuses::ATS_M150);
        let gam = m::XEHP_GAMCNTRL_CTRL.offset;
        let lsc = m::LSC_CHICKEN_BIT_0.offset;
        let sqcm = m::XEHP_SQCM.offset;
        // Point every selector at a different unicast target, then write.
        rf.write(0xFD0, sel(false, 0, 5), &mut rec);
        rf.write(0xFD8, sel(false, 0, 6), &mut rec);
        rf.write(0xFD4, sel(false, 0, 7), &mut rec);
        rf.write(0xFDC, sel(false, 1, 1), &mut rec);
        rf.write(0xFE0, sel(false, 1, 0), &mut rec);
        rf.write(gam, 0xA, &mut rec);
        rf.write(lsc, 0xB, &mut rec);
        rf.write(sqcm, 0xC, &mut rec);
        assert_eq!(rf.mcr.peek(gam, 1), Some(0xA));
        assert_eq!(rf.mcr.peek(gam, 0), Some(0));
        assert_eq!(rf.mcr.peek(lsc, 5), Some(0xB));
        assert_eq!(rf.mcr.peek(lsc, 0), Some(0));
        assert_eq!(rf.mcr.peek(sqcm, 5), Some(0xC));
        assert_eq!(rf.mcr.peek(sqcm, 6), Some(0));
        assert_eq!(kinds(&rec).violations, 0);
    }

    /// The GAM selector resets to sliceid 0 by the seed (line 731) and to 1
    /// with upstream's reading; a function reset restores the chosen value.
    #[test]
    fn gam_selector_reset_value_is_the_option() {
        assert_eq!(GAM_RESET_SLICE_SEED, 0, "seed 000 line 731");
        for (gam, want) in [
            (GAM_RESET_SLICE_SEED, MC),
            (GAM_RESET_SLICE_UPSTREAM, MC | 1 << 27),
        ] {
            let (mut rf, mut rec) = with_gam(Fuses::ATS_M150, gam);
            assert_eq!(rf.read(0xFE0, &mut rec), Some(want), "reset {gam}");
            rf.write(0xFE0, sel(false, 3, 0), &mut rec);
            rf.reset(Duration::ZERO, &mut rec);
            assert_eq!(rf.read(0xFE0, &mut rec), Some(want), "after reset {gam}");
            // The other selectors do not follow the GAM option.
            assert_eq!(rf.read(0xFDC, &mut rec), Some(MC));
        }
    }

    /// A GAM read is right only through the primary (sliceid 1, seed 000
    /// line 744), whatever the selector reset to: with the seed's reset a
    /// driver that never steers GAM is caught, with upstream's it is not,
    /// and a driver that steers to the primary first is clean on both.
    #[test]
    fn gam_reads_must_use_the_primary_instance() {
        let off = m::XEHP_GAMCNTRL_CTRL.offset;
        let unsteered = |gam| {
            let (mut rf, mut rec) = with_gam(Fuses::ATS_M150, gam);
            rf.write(off, 0x42, &mut rec);
            assert_eq!(rf.read(off, &mut rec), Some(0x42), "instance 0 exists");
            kinds(&rec).violation_kinds.get("gam_not_primary").copied()
        };
        assert_eq!(unsteered(GAM_RESET_SLICE_SEED), Some(1));
        assert_eq!(unsteered(GAM_RESET_SLICE_UPSTREAM), None);
        for gam in [GAM_RESET_SLICE_SEED, GAM_RESET_SLICE_UPSTREAM] {
            let (mut rf, mut rec) = with_gam(Fuses::ATS_M150, gam);
            rf.write(0xFE0, sel(true, PRIMARY_GAM, 0), &mut rec);
            rf.write(off, 0x42, &mut rec);
            assert_eq!(rf.read(off, &mut rec), Some(0x42));
            // MCR_SELECTOR does not steer GAM.
            rf.write(0xFDC, sel(true, 0, 0), &mut rec);
            assert_eq!(rf.read(off, &mut rec), Some(0x42));
            assert_eq!(kinds(&rec).violations, 0, "reset {gam}");
        }
        // On g11-partial instance 0 is also terminated: both rules fire.
        let (mut rf, mut rec) = with_gam(Fuses::G11_PARTIAL, GAM_RESET_SLICE_UPSTREAM);
        rf.write(0xFE0, sel(true, 0, 0), &mut rec);
        assert_eq!(rf.read(off, &mut rec), Some(0));
        let s = kinds(&rec);
        assert_eq!(s.violation_kinds.get("gam_not_primary"), Some(&1));
        assert_eq!(s.violation_kinds.get("terminated_read"), Some(&1));
        // Writes through a non-primary GAM steering are fine.
        rf.write(off, 1, &mut rec);
        assert_eq!(kinds(&rec).violations, 2);
    }

    /// SQIDI termination follows the part option on the same (full) fuses:
    /// a unicast write to instance 0 lands only on Alchemist-512, a read of
    /// instance 4 is terminated on -128 only, instance 2 works on all.
    #[test]
    fn sqidi_population_is_the_parts() {
        let off = m::XEHP_SQCM.offset;
        for part in SqidiPart::ALL {
            let fuses = Fuses {
                sqidi: part,
                ..Fuses::ATS_M150
            };
            let (mut rf, mut rec) = with(fuses);
            rf.write(0xFD0, sel(false, 0, 0), &mut rec);
            rf.write(off, 0x10, &mut rec);
            let landed = rf.mcr.peek(off, 0) == Some(0x10);
            assert_eq!(landed, part == SqidiPart::Alchemist512, "{part:?}");
            for (ss, present) in [(2, true), (4, part != SqidiPart::Alchemist128)] {
                let before = kinds(&rec).terminated_reads;
                rf.write(0xFD0, sel(true, 0, ss), &mut rec);
                rf.read(off, &mut rec);
                let terminated = kinds(&rec).terminated_reads - before;
                assert_eq!(terminated, u64::from(!present), "{part:?} instance {ss}");
            }
        }
    }

    /// (lmem - lmem/256 - 8 MiB) / 64 KiB in bits 31:8, read-only.
    #[test]
    fn flat_ccs_base() {
        let off = m::XEHP_FLAT_CCS_BASE_ADDR.offset;
        let (mut rf, mut rec) = with(Fuses::ATS_M150);
        // 16 GiB: 0x4_0000_0000 - 0x400_0000 - 0x80_0000 = 0x3_FB80_0000.
        assert_eq!(rf.read(off, &mut rec), Some(0x3_FB80 << 8));
        let v = u64::from(rf.read(off, &mut rec).unwrap_or(0));
        assert_eq!((v >> 8) * 0x1_0000, 0x3_FB80_0000, "xe_vram.c decode");
        rf.write(off, 0, &mut rec);
        assert_eq!(rf.read(off, &mut rec), Some(0x3_FB80 << 8));
        assert_eq!(kinds(&rec).violation_kinds.get("read_only_write"), Some(&1));
        let mut p = params();
        p.lmem_size = 4 << 30;
        let (mut rf, mut rec, clock) = setup(p);
        awake(&mut rf, &mut rec, &clock, &[Domain::GT]);
        // 4 GiB - 16 MiB - 8 MiB = 0xFE80_0000.
        assert_eq!(rf.read(off, &mut rec), Some(0xFE80 << 8));
    }

    #[test]
    fn instance_numbering() {
        assert_eq!(instance(Group::Sqidi, 15, 7), Some(7));
        assert_eq!(instance(Group::Gslice, 7, 7), Some(7));
        assert_eq!(instance(Group::Gslice, 8, 0), None);
        assert_eq!(instance(Group::Dss, 7, 3), Some(31));
        assert_eq!(instance(Group::Dss, 0, 4), None);
        assert_eq!(instance(Group::L3bank, 7, 3), Some(31));
        assert_eq!(instance(Group::L3bank, 15, 7), Some(31));
        assert_eq!(instance(Group::Mslice, 3, 7), Some(3));
        assert_eq!(instance(Group::Mslice, 4, 0), None);
        assert_eq!(instance(Group::Lncf, 7, 1), Some(7));
        assert_eq!(instance(Group::Lncf, 8, 0), None);
    }
}
