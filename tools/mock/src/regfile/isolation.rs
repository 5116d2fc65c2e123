//! The SR-IOV isolation checker: a test oracle that walks what the PF
//! programmed (the GGTT's VF stamps, the LMTT, the GuC's VF configurations)
//! and records every page, doorbell or context two functions reach, or a VF
//! reaches outside what it was given.
//!
//! It is not a device rule: the hardware walks whatever tables it is given
//! and refuses none of these programmings, so a finding is not one of the
//! device's `violation`s. Each distinct finding is recorded once per run
//! (trace `sriov_isolation`, summary `sriov.isolation_violations`, 0 being
//! the pass condition); the key names the check and the function(s), so a
//! fault that comes back is not counted twice.
//!
//! Facts: the GGTT entry's function number (seed 000 lines 146-156; bits
//! 11:2 as upstream `GGTT_PTE_VFID`, `regs/xe_gtt_defs.h`: the seed's
//! "Function Number[7:2]" of the VF GTTMMADR table, line 156, is the same
//! field for the 63 VFs, which need 6 bits); the LMTT (seed 000 lines
//! 380-397): a directory of 64 32-bit entries indexed by function number,
//! 64 KiB aligned, each valid entry (bit 0) pointing at a leaf in 64 KiB
//! units (LMHAW - 16 bits from bit 4); a leaf of 64K 32-bit entries for
//! LMHAW = 37 (line 397), each valid entry (bit 0) a 2 MiB page of local
//! memory (address bits LMHAW-1:21 from bit 5, upstream's `LMTT_2L_PTE`
//! layout, `xe_lmtt_2l.c`, at the seed's width); the directory's location
//! in `LMEM_CFG` (bit 31 `LMEM_EN`, bits 30:0 in 64 KiB units, upstream
//! `regs/xe_gt_regs.h`), read from the primary GAM instance (the register
//! is in an MSLICE range, seed 000 line 524; the primary GAM is instance 1,
//! line 744). Upstream builds a 35-bit LMTT (a 16K-entry leaf); the seed's
//! table is the hardware's, and the driver follows it.
//!
//! The LMTT walk ([`walk`], [`leaf_page`]) is shared with the model of the
//! LMTT's translation cache (`guc/ct/sriov/lmtt.rs`).
//!
//! # Checks
//!
//! Immediate ones, at every run:
//!
//! - `ggtt_stamp`: a VF's configured GGTT range has an entry not present or
//!   not stamped with its number;
//! - `lmtt_shared`: a 2 MiB page two VFs' leaves map;
//! - `lmtt_in_tables`: a VF's page covers the LMTT directory or a leaf
//!   (the VF could rewrite its own translation);
//! - `lmtt_beyond_lmem`: a VF's page past the local memory;
//! - `lmtt_pf_entry`: directory entry 0 valid ("index 0 (PF) is unused",
//!   `xe_lmtt_2l.c`: the PF's accesses are not translated, seed 000 line
//!   445);
//! - `lmtt_unreadable`: the directory or a leaf is not in local memory;
//! - `ggtt_overlap`, `ctx_overlap`, `db_overlap`: two VFs' configured
//!   ranges overlap (the GuC refuses that, so only a model bug finds one);
//! - `ctx_pf_in_vf`: a context the PF registered for its own submission
//!   (`ct/submit.rs`) has a guc_id inside a VF's context run: two functions
//!   reach that context ID (upstream keeps the PF's IDs out of the VFs'
//!   runs, `xe_guc_id_mgr.c`).
//!
//! Local memory that should be clear, for the VFs the last messages name
//! (a configuration with `LMEM_SIZE` taken, an `FLR_FINISH` accepted):
//!
//! - `lmem_not_cleared`: a page the VF's leaf maps holds a non-zero byte.
//!   The mock's VFs never write local memory, so any such byte is what
//!   someone else left there: the PF must clear a VF's memory before the VF
//!   gets it and in its part of the FLR (seed 000 lines 300-326; upstream
//!   clears it, `xe_gt_sriov_pf_config_sanitize`). Only the data the
//!   memory holds is read ([`Bus::lmem_first_nonzero`]), so GiBs of
//!   cleared (sparse) memory cost nothing.
//! - `ccs_not_cleared`: a CCS byte covering a page the VF's leaf maps
//!   (one byte per 256 bytes, [`crate::ccs`]) is unknown (never written
//!   since power-on or the last function reset) or not zero. The flat-CCS
//!   metadata is something of the previous owner's too (seed 000 lines
//!   300-326: nothing of it may reach the VF), and upstream clears it
//!   with the memory: `xe_migrate.c` `xe_migrate_clear`, "On flat CCS
//!   devices, the CCS metadata is cleared to zero", which the PF's
//!   `pf_sanitize_lmem` asks for (`XE_MIGRATE_CLEAR_FLAG_FULL`). Only the
//!   blitter's `XY_CTRL_SURF_COPY_BLT` writes it
//!   (`crate::regfile::engine::cs`). A page past local memory is
//!   `lmtt_beyond_lmem`'s finding, not this one's; a bus without a CCS
//!   store ([`Bus::ccs`], register-file tests) is not checked.
//!
//! VF-dedicated registers, for the VFs whose `FLR_FINISH` was accepted:
//!
//! - `vf_regs_not_cleared`: a VF's `VF_SW_FLAG` copy is not zero, so the
//!   VF's next owner could read the previous one's last GuC message
//!   ([`super::vf_regs`]: the hardware resets them on a VF FLR, seed 000
//!   line 322; a PF that clears them itself does not rely on it).
//!
//! Leftovers, entries no configuration covers: the PF tells the GuC first
//! when it takes resources away and cleans its tables after (upstream
//! `xe_gt_sriov_pf_config_release`), it may stamp and map every VF before
//! it pushes their configurations, and after a GuC reset it pushes them
//! again while its tables stay; so a leftover is only a fault if it is
//! still there at a quiet point: the final summary, `vf:check` and an
//! accepted `VF_CONTROL` (the VFs are provisioned by then):
//!
//! - `ggtt_stray`: a GGTT entry with a function number outside every VF's
//!   configured range;
//! - `lmtt_no_config`: a valid directory entry of a VF without a
//!   configuration;
//! - `lmtt_over_quota`: a VF's leaf maps more pages than its `LMEM_SIZE`;
//! - `lmtt_unmapped`: a page below a VF's `LMEM_SIZE` has no valid leaf
//!   entry. The VF learns its local-memory size from that KLV alone
//!   (upstream `xe_gt_sriov_vf.c` `vf_get_lmem_info` queries
//!   `GUC_KLV_VF_CFG_LMEM_SIZE`) and uses all of it from offset 0, so the PF
//!   maps its whole object from guest offset 0 page by page (`xe_lmtt.c`
//!   `lmtt_insert_bo`, `xe_lmtt_populate_pages` with offset 0); a hole would
//!   fault the VF on memory it was told it has. A VF whose memory is several
//!   runs of pages must still be one gapless range to the guest.
//!
//! Triggers: every `UPDATE_VF_CFG` and `VF_CONTROL` the GuC serves, every
//! `LMEM_CFG` write (immediate checks only: the driver programs it after a
//! GT reset, before the configurations come back), `vf:check` and the final
//! summary.

use std::collections::BTreeMap;
use std::collections::BTreeSet;
use std::collections::HashMap;

use super::guc::ct::sriov::overlap;
use super::guc::ct::sriov::VfConfig;
use super::guc::ggtt::PAGE;
use super::guc::ggtt::PTE_PRESENT;
use super::guc::Bus;
use super::guc::Target;
use crate::ccs::Ccs;
use crate::recorder::Recorder;
use crate::trace::Event;

/// The function number in a GGTT entry: bits 11:2 (`GGTT_PTE_VFID`).
pub const PTE_VFID_SHIFT: u32 = 2;
/// Its mask after the shift (10 bits).
pub const PTE_VFID_MASK: u64 = 0x3FF;
/// GGTT entries: 4 GiB of 4 KiB pages.
pub const GGTT_ENTRIES: u64 = 1 << 20;
/// LMHAW (seed 000 line 397).
pub const LMHAW: u32 = 37;
/// Directory entries: 63 VFs and the PF (seed 000 line 382).
pub const DIR_ENTRIES: usize = 64;
/// Leaf entries: one per 2 MiB of 2^LMHAW bytes (64K, line 397).
pub const LEAF_ENTRIES: usize = 1 << (LMHAW - 21);
/// An LMTT page: 2 MiB.
pub const LMTT_PAGE: u64 = 1 << 21;
/// Table unit of `LMEM_CFG` and the directory's pointers: 64 KiB.
pub const TABLE_UNIT: u64 = 64 << 10;
/// Entry valid bit (directory and leaf).
const VALID: u32 = 1;
/// Directory pointer: bits (LMHAW-13):4, in 64 KiB units.
const DIR_PTR_SHIFT: u32 = 4;
const DIR_PTR_MASK: u32 = (1 << (LMHAW - 16)) - 1;
/// Leaf page: bits (LMHAW-17):5, in 2 MiB units.
const PAGE_SHIFT: u32 = 5;
const PAGE_MASK: u32 = (1 << (LMHAW - 21)) - 1;
/// `LMEM_CFG.LMEM_EN`.
const LMEM_EN: u32 = 1 << 31;
/// `LMEM_CFG.LMTT_DIR_PTR`.
const LMTT_DIR_PTR: u32 = 0x7FFF_FFFF;
/// PTEs read per chunk of the GGTT walk.
const CHUNK: usize = 1 << 16;

/// The function number of a GGTT entry.
pub fn pte_vfid(pte: u64) -> u32 {
    // CAST: 10 bits.
    ((pte >> PTE_VFID_SHIFT) & PTE_VFID_MASK) as u32
}

/// What the checker looks at.
pub struct View<'a> {
    /// The GuC's configurations by VFID (0 the PF's).
    pub configs: &'a BTreeMap<u32, VfConfig>,
    /// `LMEM_CFG` (the primary GAM instance).
    pub lmem_cfg: u32,
    /// Local memory size in bytes.
    pub lmem_size: u64,
    /// (VF, guc_id) of every context the PF registered inside a VF's
    /// context run.
    pub pf_contexts_in_vfs: Vec<(u32, u32)>,
    /// VFs (bit per VFID) whose mapped local memory must be all zeros.
    pub cleared: u64,
    /// VFs whose FLR ended with a VF-dedicated register still holding
    /// something: (VF, register index, value) ([`super::vf_regs`]).
    pub vf_regs_dirty: Vec<(u32, usize, u32)>,
}

/// One finding.
struct Finding {
    check: &'static str,
    vf: u32,
    other: Option<u32>,
    detail: String,
}

impl Finding {
    fn key(&self) -> String {
        match self.other {
            Some(o) => format!("{}:{}:{o}", self.check, self.vf),
            None => format!("{}:{}", self.check, self.vf),
        }
    }
}

/// The checker's record: the distinct findings so far.
#[derive(Debug, Default)]
pub struct Checker {
    seen: BTreeSet<String>,
    runs: u64,
}

impl Checker {
    /// Distinct findings so far.
    pub fn found(&self) -> usize {
        self.seen.len()
    }

    /// Runs so far: none means nothing SR-IOV happened (no VF message, no
    /// `LMEM_CFG` write), and the final run is skipped so a run without
    /// SR-IOV keeps its trace.
    pub fn runs(&self) -> u64 {
        self.runs
    }

    /// One run (module docs); returns the new distinct findings.
    pub fn run(
        &mut self,
        trigger: &'static str,
        leftovers: bool,
        view: &View,
        bus: &dyn Bus,
        rec: &mut Recorder,
    ) -> u64 {
        self.runs += 1;
        let vfs: Vec<(u32, &VfConfig)> = view
            .configs
            .iter()
            .filter(|(&v, _)| v != 0)
            .map(|(&v, c)| (v, c))
            .collect();
        let mut out = Vec::new();
        ranges(&vfs, &mut out);
        // One finding per VF: the first such context and how many.
        let mut pf: BTreeMap<u32, (u32, u64)> = BTreeMap::new();
        for &(vf, id) in &view.pf_contexts_in_vfs {
            pf.entry(vf).or_insert((id, 0)).1 += 1;
        }
        for (vf, (id, n)) in pf {
            out.push(Finding {
                check: "ctx_pf_in_vf",
                vf,
                other: None,
                detail: format!(
                    "{n} context(s) the PF registered are in VF {vf}'s context run; the first \
                     is guc_id {id:#x}"
                ),
            });
        }
        for &(vf, i, value) in &view.vf_regs_dirty {
            out.push(Finding {
                check: "vf_regs_not_cleared",
                vf,
                other: None,
                detail: format!(
                    "VF {vf}'s VF_SW_FLAG({i}) holds {value:#x} when the PF finished its FLR"
                ),
            });
        }
        ggtt(&vfs, leftovers, bus, &mut out);
        lmtt(view, leftovers, bus, &mut out);
        let mut new = 0;
        for f in out {
            if self.seen.insert(f.key()) {
                new += 1;
                rec.emit(Event::SriovIsolation {
                    check: f.check,
                    vf: f.vf,
                    other: f.other,
                    detail: f.detail,
                });
            }
        }
        rec.emit(Event::SriovCheck {
            trigger,
            leftovers,
            found: new,
        });
        new
    }
}

/// Two VFs' configured GGTT ranges, context or doorbell runs overlapping.
fn ranges(vfs: &[(u32, &VfConfig)], out: &mut Vec<Finding>) {
    for (i, &(a, ca)) in vfs.iter().enumerate() {
        for &(b, cb) in &vfs[i + 1..] {
            for (check, ra, rb) in [
                ("ggtt_overlap", ca.ggtt(), cb.ggtt()),
                ("ctx_overlap", ca.contexts(), cb.contexts()),
                ("db_overlap", ca.doorbells(), cb.doorbells()),
            ] {
                if let (Some(ra), Some(rb)) = (ra, rb) {
                    if overlap(ra, rb) {
                        out.push(Finding {
                            check,
                            vf: a,
                            other: Some(b),
                            detail: format!(
                                "VF {a} {:#x}..{:#x} and VF {b} {:#x}..{:#x} overlap",
                                ra.0, ra.1, rb.0, rb.1
                            ),
                        });
                    }
                }
            }
        }
    }
}

/// Reads PTEs `first..first + buf.len()`; false without a GGTT window.
fn ptes(bus: &dyn Bus, first: u64, buf: &mut [u64]) -> bool {
    bus.ptes(first, buf)
}

/// The GGTT: stamps inside each VF's range, and (leftovers) stamps outside
/// every range.
fn ggtt(vfs: &[(u32, &VfConfig)], leftovers: bool, bus: &dyn Bus, out: &mut Vec<Finding>) {
    if bus.pte(0).is_none() {
        // No GGTT window (register-file tests): nothing to walk.
        return;
    }
    let mut buf = vec![0u64; CHUNK];
    for &(vf, c) in vfs {
        let Some((start, end)) = c.ggtt() else {
            continue;
        };
        let (first, last) = (start / PAGE, end.div_ceil(PAGE).min(GGTT_ENTRIES));
        let mut bad = 0u64;
        let mut example = None;
        let mut at = first;
        while at < last {
            // CAST: at most CHUNK.
            let n = (last - at).min(CHUNK as u64) as usize;
            if !ptes(bus, at, &mut buf[..n]) {
                return;
            }
            for (i, &pte) in buf[..n].iter().enumerate() {
                if pte & PTE_PRESENT == 0 || pte_vfid(pte) != vf {
                    bad += 1;
                    example.get_or_insert((at + i as u64, pte));
                }
            }
            at += n as u64;
        }
        if let Some((page, pte)) = example {
            out.push(Finding {
                check: "ggtt_stamp",
                vf,
                other: None,
                detail: format!(
                    "{bad} of VF {vf}'s GGTT entries {start:#x}..{end:#x} are not present with \
                     function number {vf} (bits 11:2); the first at {:#x} is {pte:#x}",
                    page * PAGE
                ),
            });
        }
    }
    if !leftovers {
        return;
    }
    let inside = |page: u64| {
        let a = page * PAGE;
        vfs.iter()
            .any(|(_, c)| c.ggtt().is_some_and(|(s, e)| s <= a && a < e))
    };
    // Stamped entries outside every VF's range, per function number.
    let mut stray: BTreeMap<u32, (u64, u64, u64)> = BTreeMap::new();
    let mut at = 0;
    while at < GGTT_ENTRIES {
        if !ptes(bus, at, &mut buf) {
            return;
        }
        for (i, &pte) in buf.iter().enumerate() {
            let n = pte_vfid(pte);
            let page = at + i as u64;
            if n != 0 && !inside(page) {
                stray.entry(n).or_insert((0, page, pte)).0 += 1;
            }
        }
        at += CHUNK as u64;
    }
    for (n, (count, page, pte)) in stray {
        out.push(Finding {
            check: "ggtt_stray",
            vf: n,
            other: None,
            detail: format!(
                "{count} GGTT entries carry function number {n} outside every VF's configured \
                 range; the first at {:#x} is {pte:#x}",
                page * PAGE
            ),
        });
    }
}

/// Reads `n` little-endian dwords of local memory at `addr`.
fn lmem_dwords(bus: &dyn Bus, addr: u64, n: usize) -> Option<Vec<u32>> {
    let mut b = vec![0u8; 4 * n];
    bus.read(Target::Lmem, addr, &mut b).ok()?;
    Some(
        b.chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
    )
}

/// The leaf entries one valid LMTT directory entry leads to ([`walk`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entries {
    /// Not asked for (and never entry 0's: the PF's, unused).
    NotRead,
    /// The leaf is not in local memory.
    Unreadable,
    /// Its [`LEAF_ENTRIES`] entries.
    Read(Vec<u32>),
}

/// One valid LMTT directory entry ([`walk`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leaf {
    /// The function: the entry's index.
    pub vf: u32,
    /// The entry.
    pub pde: u32,
    /// The leaf's local-memory address.
    pub addr: u64,
    /// The leaf's entries, if read.
    pub entries: Entries,
}

/// The LMTT as `LMEM_CFG` points at it ([`walk`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lmtt {
    /// `LMEM_EN` clear: no translation.
    Off,
    /// The directory at `dir` is not in local memory.
    NoDirectory {
        /// Its local-memory address.
        dir: u64,
    },
    /// The directory at `dir` and its valid entries, in index order.
    Directory {
        /// Its local-memory address.
        dir: u64,
        /// The valid entries.
        leaves: Vec<Leaf>,
    },
}

/// Walks the LMTT `lmem_cfg` (`LMEM_CFG`) points at (module docs): the
/// directory, then the leaf of each valid entry 1..=63 that `read`
/// selects (entry 0's never). A leaf costs one 256 KiB read.
pub fn walk(lmem_cfg: u32, bus: &dyn Bus, read: impl Fn(u32) -> bool) -> Lmtt {
    if lmem_cfg & LMEM_EN == 0 {
        return Lmtt::Off;
    }
    let dir = u64::from(lmem_cfg & LMTT_DIR_PTR) * TABLE_UNIT;
    let Some(pdes) = lmem_dwords(bus, dir, DIR_ENTRIES) else {
        return Lmtt::NoDirectory { dir };
    };
    let leaves = (0u32..)
        .zip(pdes)
        .filter(|&(_, pde)| pde & VALID != 0)
        .map(|(vf, pde)| {
            let addr = u64::from((pde >> DIR_PTR_SHIFT) & DIR_PTR_MASK) * TABLE_UNIT;
            let entries = if vf == 0 || !read(vf) {
                Entries::NotRead
            } else {
                lmem_dwords(bus, addr, LEAF_ENTRIES).map_or(Entries::Unreadable, Entries::Read)
            };
            Leaf {
                vf,
                pde,
                addr,
                entries,
            }
        })
        .collect();
    Lmtt::Directory { dir, leaves }
}

/// Where VF `vf`'s local-memory offset `offset` lands in local memory by
/// the LMTT `lmem_cfg` points at: its directory entry, then the leaf entry
/// of the offset's 2 MiB page (two dwords read, a table walk). `None`: the
/// LMTT off, an invalid entry on the way, or a table not in local memory.
pub fn lmtt_translate(lmem_cfg: u32, bus: &dyn Bus, vf: u32, offset: u64) -> Option<u64> {
    if lmem_cfg & LMEM_EN == 0 || vf == 0 || vf as usize >= DIR_ENTRIES {
        return None;
    }
    let dir = u64::from(lmem_cfg & LMTT_DIR_PTR) * TABLE_UNIT;
    let pde = *lmem_dwords(bus, dir + 4 * u64::from(vf), 1)?.first()?;
    if pde & VALID == 0 {
        return None;
    }
    let leaf = u64::from((pde >> DIR_PTR_SHIFT) & DIR_PTR_MASK) * TABLE_UNIT;
    let index = offset / LMTT_PAGE;
    if index >= LEAF_ENTRIES as u64 {
        return None;
    }
    let pte = *lmem_dwords(bus, leaf + 4 * index, 1)?.first()?;
    leaf_page(pte).map(|page| page + offset % LMTT_PAGE)
}

/// The 2 MiB page of local memory leaf entry `pte` maps, if valid.
pub fn leaf_page(pte: u32) -> Option<u64> {
    (pte & VALID != 0).then(|| u64::from((pte >> PAGE_SHIFT) & PAGE_MASK) * LMTT_PAGE)
}

/// The LMTT (module docs).
fn lmtt(view: &View, leftovers: bool, bus: &dyn Bus, out: &mut Vec<Finding>) {
    let (dir, valid) = match walk(view.lmem_cfg, bus, |_| true) {
        Lmtt::Off => return,
        Lmtt::NoDirectory { dir } => {
            out.push(Finding {
                check: "lmtt_unreadable",
                vf: 0,
                other: None,
                detail: format!(
                    "the LMTT directory at LMEM {dir:#x} (LMEM_CFG) is not in local memory"
                ),
            });
            return;
        }
        Lmtt::Directory { dir, leaves } => (dir, leaves),
    };
    let leaf_bytes = (LEAF_ENTRIES * 4) as u64;
    let mut tables = vec![(dir, dir + (DIR_ENTRIES * 4) as u64)];
    let mut leaves: Vec<(u32, u64, Vec<u32>)> = Vec::new();
    for Leaf {
        vf,
        pde,
        addr: leaf,
        entries,
    } in valid
    {
        if vf == 0 {
            out.push(Finding {
                check: "lmtt_pf_entry",
                vf,
                other: None,
                detail: format!("LMTT directory entry 0 (the PF's, unused) is valid: {pde:#x}"),
            });
            continue;
        }
        tables.push((leaf, leaf + leaf_bytes));
        match entries {
            Entries::Read(ptes) => leaves.push((vf, leaf, ptes)),
            Entries::Unreadable | Entries::NotRead => out.push(Finding {
                check: "lmtt_unreadable",
                vf,
                other: None,
                detail: format!("VF {vf}'s LMTT leaf at LMEM {leaf:#x} is not in local memory"),
            }),
        }
    }
    let mut owner: HashMap<u64, u32> = HashMap::new();
    for (vf, leaf, ptes) in &leaves {
        let vf = *vf;
        let mut pages = 0u64;
        let mut beyond = None;
        let mut in_tables = None;
        for (i, &pte) in ptes.iter().enumerate() {
            let Some(phys) = leaf_page(pte) else {
                continue;
            };
            pages += 1;
            let page = (phys, phys + LMTT_PAGE);
            if page.1 > view.lmem_size {
                beyond.get_or_insert((i, phys));
            }
            if tables.iter().any(|&t| overlap(t, page)) {
                in_tables.get_or_insert((i, phys));
            }
            match owner.get(&phys) {
                Some(&o) if o != vf => out.push(Finding {
                    check: "lmtt_shared",
                    vf: o,
                    other: Some(vf),
                    detail: format!(
                        "LMEM page {phys:#x} is mapped by VF {o} and by VF {vf} (its entry {i})"
                    ),
                }),
                Some(_) => {}
                None => {
                    owner.insert(phys, vf);
                }
            }
        }
        if view.cleared & (1u64 << vf.min(63)) != 0 {
            not_cleared(vf, ptes, bus, out);
            if let Some(ccs) = bus.ccs() {
                ccs_not_cleared(vf, ptes, view.lmem_size, ccs, out);
            }
        }
        if let Some((i, phys)) = beyond {
            out.push(Finding {
                check: "lmtt_beyond_lmem",
                vf,
                other: None,
                detail: format!(
                    "VF {vf}'s LMTT entry {i} maps {phys:#x}, past the {:#x} bytes of local \
                     memory",
                    view.lmem_size
                ),
            });
        }
        if let Some((i, phys)) = in_tables {
            out.push(Finding {
                check: "lmtt_in_tables",
                vf,
                other: None,
                detail: format!(
                    "VF {vf}'s LMTT entry {i} maps {phys:#x}, which holds LMTT tables \
                     (directory {dir:#x}, VF {vf}'s leaf {leaf:#x})"
                ),
            });
        }
        if !leftovers {
            continue;
        }
        match view.configs.get(&vf) {
            None => out.push(Finding {
                check: "lmtt_no_config",
                vf,
                other: None,
                detail: format!(
                    "LMTT directory entry {vf} is valid ({pages} pages mapped) but the GuC has \
                     no configuration for VF {vf}"
                ),
            }),
            Some(c) if pages * LMTT_PAGE > c.lmem => out.push(Finding {
                check: "lmtt_over_quota",
                vf,
                other: None,
                detail: format!(
                    "VF {vf}'s LMTT maps {pages} pages ({:#x} bytes), its LMEM_SIZE is {:#x}",
                    pages * LMTT_PAGE,
                    c.lmem
                ),
            }),
            Some(c) => {
                let want = c.lmem / LMTT_PAGE;
                let hole = ptes
                    .iter()
                    .take(usize::try_from(want).unwrap_or(usize::MAX))
                    .position(|&pte| pte & VALID == 0)
                    .or_else(|| (pages < want).then_some(ptes.len()));
                if let Some(i) = hole {
                    out.push(Finding {
                        check: "lmtt_unmapped",
                        vf,
                        other: None,
                        detail: format!(
                            "VF {vf}'s LMEM_SIZE is {:#x} but its LMTT maps {pages} pages and \
                             entry {i} (guest offset {:#x}) is not valid",
                            c.lmem,
                            i as u64 * LMTT_PAGE
                        ),
                    });
                }
            }
        }
    }
}

/// `lmem_not_cleared` for VF `vf`: the first page of its leaf `ptes` that
/// holds a non-zero byte, and how many do.
fn not_cleared(vf: u32, ptes: &[u32], bus: &dyn Bus, out: &mut Vec<Finding>) {
    let mut dirty = 0u64;
    let mut first = None;
    for (i, &pte) in ptes.iter().enumerate() {
        let Some(phys) = leaf_page(pte) else {
            continue;
        };
        // A page beyond local memory is `lmtt_beyond_lmem`'s finding.
        if let Ok(Some(at)) = bus.lmem_first_nonzero(phys, LMTT_PAGE) {
            dirty += 1;
            first.get_or_insert((i, at));
        }
    }
    if let Some((i, at)) = first {
        out.push(Finding {
            check: "lmem_not_cleared",
            vf,
            other: None,
            detail: format!(
                "{dirty} of VF {vf}'s local memory pages hold data it did not write; the first \
                 (its entry {i}) has a non-zero byte at LMEM {at:#x}"
            ),
        });
    }
}

/// `ccs_not_cleared` for VF `vf`: the first page of its leaf `ptes`
/// (inside the `lmem_size` bytes of local memory) whose CCS is not all
/// known zero, and how many such pages there are.
fn ccs_not_cleared(vf: u32, ptes: &[u32], lmem_size: u64, ccs: &Ccs, out: &mut Vec<Finding>) {
    let per_page = LMTT_PAGE / crate::ccs::BYTES_PER_CCS_BYTE;
    let mut dirty = 0u64;
    let mut first = None;
    for (i, &pte) in ptes.iter().enumerate() {
        let Some(phys) = leaf_page(pte) else {
            continue;
        };
        if phys + LMTT_PAGE > lmem_size {
            continue;
        }
        if let Some((at, value)) = ccs.first_not_zero(crate::ccs::index(phys), per_page) {
            dirty += 1;
            first.get_or_insert((i, at, value));
        }
    }
    if let Some((i, at, value)) = first {
        let what = match value {
            None => "was never written since power-on or the last reset".to_owned(),
            Some(v) => format!("holds {v:#04x}"),
        };
        out.push(Finding {
            check: "ccs_not_cleared",
            vf,
            other: None,
            detail: format!(
                "{dirty} of VF {vf}'s local memory pages have CCS metadata not cleared; the \
                 first (its entry {i}): the CCS byte of LMEM {:#x} {what}",
                at * crate::ccs::BYTES_PER_CCS_BYTE
            ),
        });
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::clock::ManualClock;
    use crate::regfile::guc::NoBus;
    use crate::trace::TraceWriter;

    fn recorder() -> Recorder {
        let clock = ManualClock::new();
        Recorder::new(Arc::new(clock), TraceWriter::disabled(), None)
    }

    /// A PF context inside a VF's run is found once per VF; a VF's ranges
    /// that overlap another's are found; nothing without a GGTT or LMTT.
    #[test]
    fn pf_contexts_in_a_vf_run_and_overlapping_runs() {
        let mut rec = recorder();
        let vf = |ctx: (u32, u32), db: (u32, u32)| VfConfig {
            ctx_begin: ctx.0,
            ctx_num: ctx.1,
            db_begin: db.0,
            db_num: db.1,
            ..VfConfig::default()
        };
        let configs: BTreeMap<u32, VfConfig> =
            [(1, vf((100, 50), (0, 4))), (2, vf((200, 50), (2, 4)))].into();
        let mut c = Checker::default();
        let view = View {
            configs: &configs,
            lmem_cfg: 0,
            lmem_size: 16 << 30,
            pf_contexts_in_vfs: vec![(2, 210), (2, 211)],
            cleared: 0,
            vf_regs_dirty: vec![],
        };
        assert_eq!(c.run("vf:check", true, &view, &NoBus, &mut rec), 2);
        assert_eq!(c.found(), 2);
        let s = rec.summary(false).sriov;
        assert_eq!(s.isolation_kinds["ctx_pf_in_vf"], 1, "one per VF");
        assert_eq!(s.isolation_kinds["db_overlap"], 1);
        // Again: nothing new, one more run.
        assert_eq!(c.run("vf:check", true, &view, &NoBus, &mut rec), 0);
        assert_eq!(
            (c.runs(), rec.summary(false).sriov.isolation_checks),
            (2, 2)
        );
    }

    #[test]
    fn entry_fields() {
        assert_eq!(pte_vfid(63 << 2 | 3), 63);
        assert_eq!(pte_vfid(0x3FF << 2 | 1 << 12), 0x3FF);
        assert_eq!(LEAF_ENTRIES, 65536, "seed 000 line 397");
        assert_eq!(DIR_PTR_MASK, (1 << 21) - 1);
        assert_eq!(PAGE_MASK, 0xFFFF);
    }
}
