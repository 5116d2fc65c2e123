//! The LMTT's translation cache (its TLB) and the rule that the PF empties
//! it, with the GuC's `XE_GUC_ACTION_TLB_INVALIDATION_ALL`, before a VF runs
//! on local memory whose translation it changed.
//!
//! Facts: the LMTT itself (seed 000 lines 380-397; the walk is the isolation
//! checker's, [`isolation::walk`]); upstream `xe_lmtt.c` (`lmtt_invalidate_hw`:
//! `xe_tlb_inval_all` on every GT of the tile, i.e. the full invalidation
//! `send_tlb_inval_all` of `xe_guc_tlb_inval.c`; `lmtt_drop_pages`: the
//! VF's directory entry cleared, then that invalidation, then the leaf
//! freed) and `xe_gt_sriov_pf_config.c` (`pf_update_vf_lmtt`: the VF's old
//! leaf dropped, the new one prepared and populated, then
//! `pf_force_lmtt_invalidate`; `pf_provision_vf_lmem` pushes `LMEM_SIZE`
//! only after that). Upstream invalidating after every change of a
//! directory entry or a leaf entry is the evidence that the hardware caches
//! both; the seed does not describe the cache.
//!
//! # The cache (`[MODEL]`)
//!
//! The LMTT tables are in local memory, which the CPU writes through BAR 2
//! without the mock seeing it, so the cache is modelled as a record: when
//! it is emptied the mock records each VF's translation as the tables give
//! it then (the directory entry's leaf address and every valid leaf entry's
//! 2 MiB page; "no valid entry" for a VF without one, and for every VF while
//! `LMEM_CFG.LMEM_EN` is clear). It is emptied by
//!
//! - a full invalidation: `TLB_INVALIDATION_ALL` (0x7002) of type
//!   `XE_GUC_TLB_INVAL_FULL` (`super::super::tlb`, traced cause
//!   `tlb_invalidation_all`). Nothing else counts: `TLB_INVALIDATION`
//!   (0x7000) of type FULL is the PPGTT's, and `_ALL` of another type is
//!   not what upstream sends for the LMTT (the stricter reading);
//! - a change of `LMEM_CFG` as the primary GAM instance holds it (a write
//!   of another value, a `GDRST.GRDOM_FULL` putting it back to 0; cause
//!   `lmem_cfg`): a new root, walked from scratch;
//! - a device reset or a Driver-FLR (cause `reset`), after which
//!   `LMEM_CFG` is 0 again.
//!
//! A GuC reset (`GRDOM_GUC`) leaves it: the cache belongs to the memory
//! path whose root is a GT (GAM) register (seed 000 line 388), not to the
//! GuC.
//!
//! # The rule (`[MODEL]`)
//!
//! Neither the seed nor upstream says when a stale translation does harm;
//! the mock takes the points where the GuC lets a VF run on local memory,
//! the earliest a VF could use one. At each rule point, every VF (1..=[`TOTAL_VFS`]) that has a
//! configuration with an `LMEM_SIZE` must translate as the record says:
//! the mock walks their directory entries and leaves now and compares. A VF
//! that does not has had its directory entry or a leaf entry changed since
//! the cache was last emptied, and the hardware may still translate with
//! the old entries (into pages the VF no longer owns, or through a freed
//! leaf): a `lmtt_stale` violation, "VF n: its LMTT changed since the last
//! TLB invalidation (TLB_INVALIDATION_ALL): the hardware may still translate
//! with the old entries", with what changed (traced `lmtt_stale`). Each VF
//! is reported once until the cache is next emptied (`[MODEL]`: the same
//! stale state is one fault, not one per message).
//!
//! The rule points are where the GuC is about to let a VF run on its local
//! memory:
//!
//! - each `PF2GUC_UPDATE_VF_CFG` the GuC accepts for a VF (VFID 1..=63)
//!   that leaves that VF with an `LMEM_SIZE`;
//! - each `PF2GUC_VF_CONTROL` `FLR_FINISH` or `RESUME` the GuC accepts for
//!   a VF with an `LMEM_SIZE`.
//!
//! All configured VFs are checked at each point, not only the one the
//! message names: the mock cannot see the PF clear another VF's directory
//! entry or rewrite its leaf, so a PF that gives pages back without
//! invalidating is caught at its next rule point, whichever VF that is. A
//! VF whose configuration is reset (`UPDATE_VF_CFG` with address and size
//! 0) or has no `LMEM_SIZE` is not checked: it runs on no local memory. A
//! refused message is no rule point.
//!
//! A PF that provisions the upstream way (leaf written, full invalidation,
//! then `UPDATE_VF_CFG`) never breaks the rule.
//!
//! # Cost
//!
//! A walk reads the directory and, per VF checked or recorded, one 256 KiB
//! leaf: at most 63 of them.
//!
//! # Trace and summary
//!
//! `lmtt_tlb_invalidate` {cause, vfs, pages, changed} each time the cache is
//! emptied (at a device reset only when something was recorded or
//! `LMEM_CFG` moved); `lmtt_stale` {vf, at, by, detail} with each
//! violation. Summary `sriov.lmtt_invalidations` (full
//! invalidations served) and `sriov.lmtt_stale` (violations of the rule).

use std::collections::BTreeMap;

use super::VfConfig;
use super::TOTAL_VFS;
use crate::recorder::Recorder;
use crate::regfile::guc::Bus;
use crate::regfile::isolation;
use crate::regfile::isolation::Entries;
use crate::regfile::isolation::Lmtt;
use crate::regfile::isolation::LMTT_PAGE;
use crate::trace::Event;

/// The violation kind of the rule (module docs).
pub const STALE: &str = "lmtt_stale";

/// Every VF, bit per VFID.
const ALL_VFS: u64 = !1;

/// What the LMTT gives one VF.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
enum Translation {
    /// No valid directory entry, or the LMTT off.
    #[default]
    None,
    /// The directory is not in local memory.
    NoDirectory,
    /// The VF's leaf, at that local-memory address, is not in local memory.
    Unreadable(u64),
    /// The VF's leaf and its valid entries: (index, 2 MiB page address).
    Pages { leaf: u64, pages: Vec<(u32, u64)> },
}

impl Translation {
    fn describe(&self) -> String {
        match self {
            Translation::None => "no valid directory entry".into(),
            Translation::NoDirectory => "no readable directory".into(),
            Translation::Unreadable(leaf) => format!("an unreadable leaf at LMEM {leaf:#x}"),
            Translation::Pages { leaf, pages } => {
                format!("the leaf at LMEM {leaf:#x} mapping {} pages", pages.len())
            }
        }
    }

    fn pages(&self) -> u64 {
        match self {
            // CAST: at most 64K entries.
            Translation::Pages { pages, .. } => pages.len() as u64,
            _ => 0,
        }
    }
}

/// What changed from `was` to `now` (they differ).
fn difference(was: &Translation, now: &Translation) -> String {
    if let (Translation::Pages { leaf: a, pages: p }, Translation::Pages { leaf: b, pages: q }) =
        (was, now)
    {
        if a == b {
            if let Some((i, old, new)) = first_difference(p, q) {
                let page = |x: Option<u64>| x.map_or("nothing".into(), |a| format!("LMEM {a:#x}"));
                return format!(
                    "its leaf entry {i} maps {}, at the last invalidation {}",
                    page(new),
                    page(old)
                );
            }
        }
    }
    format!(
        "now {}, at the last invalidation {}",
        now.describe(),
        was.describe()
    )
}

/// The first entry index at which two valid-entry lists (sorted by index)
/// differ: (index, page in `a`, page in `b`).
fn first_difference(a: &[(u32, u64)], b: &[(u32, u64)]) -> Option<(u32, Option<u64>, Option<u64>)> {
    let (mut i, mut j) = (0, 0);
    loop {
        match (a.get(i), b.get(j)) {
            (None, None) => return None,
            (Some(&(x, pa)), Some(&(y, pb))) if x == y => {
                if pa != pb {
                    return Some((x, Some(pa), Some(pb)));
                }
                i += 1;
                j += 1;
            }
            (Some(&(x, pa)), Some(&(y, _))) if x < y => return Some((x, Some(pa), None)),
            (Some(&(x, pa)), None) => return Some((x, Some(pa), None)),
            (_, Some(&(y, pb))) => return Some((y, None, Some(pb))),
        }
    }
}

/// The translations of the VFs in `vfs` (bit per VFID) as the tables
/// `lmem_cfg` points at give them now.
fn current(lmem_cfg: u32, bus: &dyn Bus, vfs: u64) -> BTreeMap<u32, Translation> {
    let selected = |vf: u32| vf < 64 && vfs & 1 << vf != 0;
    let mut out: BTreeMap<u32, Translation> = (1..=TOTAL_VFS)
        .filter(|&vf| selected(vf))
        .map(|vf| (vf, Translation::None))
        .collect();
    match isolation::walk(lmem_cfg, bus, selected) {
        Lmtt::Off => {}
        Lmtt::NoDirectory { .. } => out.values_mut().for_each(|t| *t = Translation::NoDirectory),
        Lmtt::Directory { leaves, .. } => {
            for leaf in leaves {
                let Some(t) = out.get_mut(&leaf.vf) else {
                    continue;
                };
                *t = match leaf.entries {
                    Entries::Read(ptes) => Translation::Pages {
                        leaf: leaf.addr,
                        pages: (0u32..)
                            .zip(ptes)
                            .filter_map(|(i, pte)| isolation::leaf_page(pte).map(|a| (i, a)))
                            .collect(),
                    },
                    Entries::Unreadable | Entries::NotRead => Translation::Unreadable(leaf.addr),
                };
            }
        }
    }
    out
}

/// The LMTT's translation cache (module docs).
#[derive(Debug, Clone, Default)]
pub struct Tlb {
    /// `LMEM_CFG` (primary GAM instance) as the register file last
    /// reported it.
    lmem_cfg: u32,
    /// Each VF's translation when the cache was last emptied; a VF not
    /// here had none.
    record: BTreeMap<u32, Translation>,
    /// VFs reported stale since (bit per VFID).
    reported: u64,
}

impl Tlb {
    /// Empties the cache: records every VF's translation now. Traced
    /// unless `quiet` and nothing was dropped (no VF translated, the
    /// root the same).
    fn empty(
        &mut self,
        cause: &'static str,
        lmem_cfg: u32,
        quiet: bool,
        bus: &dyn Bus,
        rec: &mut Recorder,
    ) {
        let now = current(lmem_cfg, bus, ALL_VFS);
        let none = Translation::None;
        // CAST: at most 63.
        let changed = now
            .iter()
            .filter(|&(vf, t)| self.record.get(vf).unwrap_or(&none) != t)
            .count() as u32;
        let had = self.record.values().any(|t| *t != none);
        let moved = self.lmem_cfg != lmem_cfg;
        self.lmem_cfg = lmem_cfg;
        self.reported = 0;
        self.record = now.into_iter().filter(|(_, t)| *t != none).collect();
        if quiet && !had && !moved && self.record.is_empty() {
            return;
        }
        rec.emit(Event::LmttTlbInvalidate {
            cause,
            // CAST: at most 63.
            vfs: self.record.len() as u32,
            pages: self.record.values().map(Translation::pages).sum(),
            changed,
        });
    }

    /// The local-memory address VF `vf`'s local-memory offset `offset`
    /// translates to as the cache holds it (the translation when it was
    /// last emptied), or `None` if no valid page maps it. `[MODEL]`: a VF
    /// access between an LMTT change and the invalidation uses the old
    /// translation (the stricter reading: the PF must invalidate before the
    /// VF sees a change, the rule [`Tlb::check`] enforces).
    pub fn translate(&self, vf: u32, offset: u64) -> Option<u64> {
        let Translation::Pages { pages, .. } = self.record.get(&vf)? else {
            return None;
        };
        let index = u32::try_from(offset / LMTT_PAGE).ok()?;
        let at = pages.binary_search_by_key(&index, |&(n, _)| n).ok()?;
        Some(pages[at].1 + offset % LMTT_PAGE)
    }

    /// A full invalidation (`TLB_INVALIDATION_ALL` of type FULL).
    pub fn invalidate(&mut self, bus: &dyn Bus, rec: &mut Recorder) {
        self.empty("tlb_invalidation_all", self.lmem_cfg, false, bus, rec);
    }

    /// `LMEM_CFG` now holds `lmem_cfg`: a new root empties the cache.
    pub fn root(&mut self, lmem_cfg: u32, bus: &dyn Bus, rec: &mut Recorder) {
        if lmem_cfg != self.lmem_cfg {
            self.empty("lmem_cfg", lmem_cfg, false, bus, rec);
        }
    }

    /// A device reset or Driver-FLR: empty, with `LMEM_CFG` at `lmem_cfg`
    /// (its reset value, 0: nothing is walked).
    pub fn reset(&mut self, lmem_cfg: u32, bus: &dyn Bus, rec: &mut Recorder) {
        self.empty("reset", lmem_cfg, true, bus, rec);
    }

    /// A rule point (module docs): `at` names it, `by` the VF the message
    /// is about. Records a violation for each VF with a configuration and
    /// an `LMEM_SIZE` whose translation is not the record's; returns how
    /// many.
    pub fn check(
        &mut self,
        configs: &BTreeMap<u32, VfConfig>,
        at: &'static str,
        by: u32,
        bus: &dyn Bus,
        rec: &mut Recorder,
    ) -> u64 {
        let vfs = configs
            .iter()
            .filter(|&(&vf, c)| (1..=TOTAL_VFS).contains(&vf) && c.lmem > 0)
            .fold(0u64, |m, (&vf, _)| m | 1 << vf)
            & !self.reported;
        if vfs == 0 {
            return 0;
        }
        let none = Translation::None;
        let mut found = 0;
        for (vf, now) in current(self.lmem_cfg, bus, vfs) {
            let was = self.record.get(&vf).unwrap_or(&none);
            if *was == now {
                continue;
            }
            found += 1;
            self.reported |= 1 << vf;
            let detail = difference(was, &now);
            rec.violation(
                STALE,
                format!(
                    "VF {vf}: its LMTT changed since the last TLB invalidation \
                     (TLB_INVALIDATION_ALL): the hardware may still translate with the old \
                     entries ({detail}; at {at} of VF {by})"
                ),
            );
            rec.emit(Event::LmttStale { vf, at, by, detail });
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_difference_is_named() {
        let a = [(0, 0x20_0000), (1, 0x40_0000)];
        assert_eq!(first_difference(&a, &a), None);
        assert_eq!(
            first_difference(&a, &[(0, 0x20_0000), (1, 0x60_0000)]),
            Some((1, Some(0x40_0000), Some(0x60_0000)))
        );
        assert_eq!(
            first_difference(&a, &[(0, 0x20_0000)]),
            Some((1, Some(0x40_0000), None))
        );
        assert_eq!(
            first_difference(&a, &[(0, 0x20_0000), (1, 0x40_0000), (5, 0)]),
            Some((5, None, Some(0)))
        );
        assert_eq!(
            first_difference(&a[1..], &a),
            Some((0, None, Some(0x20_0000)))
        );
        let was = Translation::Pages {
            leaf: 0x71_0000,
            pages: a.to_vec(),
        };
        assert_eq!(
            difference(&was, &Translation::None),
            "now no valid directory entry, at the last invalidation the leaf at LMEM \
             0x710000 mapping 2 pages"
        );
        let now = Translation::Pages {
            leaf: 0x71_0000,
            pages: vec![(0, 0x20_0000)],
        };
        assert_eq!(
            difference(&was, &now),
            "its leaf entry 1 maps nothing, at the last invalidation LMEM 0x400000"
        );
    }
}
