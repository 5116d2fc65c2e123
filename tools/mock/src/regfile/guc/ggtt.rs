//! How the GuC reaches memory: GGTT addresses, translated page by page
//! through the PTEs the driver wrote, with a TLB.
//!
//! The GGTT is the PTE array in the BAR0 GGTT window (`crate::device`
//! `GGTT_START`, one 8-byte PTE per 4 KiB page of the 4 GiB GGTT, `xe_ggtt.c`).
//! A PTE (upstream `regs/xe_gtt_defs.h`): bit
//! 0 present (`XE_PAGE_PRESENT`), bit 1 device memory (`XE_GGTT_PTE_DM`),
//! bits 51:12 the page address (`XE_PAGE_ADDR_MASK(12)`). A DM page is local
//! memory at that device-physical address, which the mock can only serve
//! inside its LMEMBAR memfd; any other page is guest memory at that bus
//! address, reached through QEMU's DMA map.
//!
//! The GuC cannot use every GGTT address: below the WOPCM top its addresses
//! decode to the boot ROM, SRAM and WOPCM, not the GGTT (seed 000 GuC address
//! table, lines 1086-1090; upstream `guc_bo_ggtt_addr` asserts
//! `addr >= xe_wopcm_size()`, 4 MiB on DGFX, `xe_wopcm.c`), and from
//! `GUC_GGTT_TOP` (0xFEE00000, `regs/xe_gtt_defs.h`) up they do not map
//! through the GGTT (`xe_guc.c`: "GuC addresses above GUC_GGTT_TOP don't map
//! through the GTT"). An access that touches either, a non-present PTE or a
//! page the mock cannot reach is a [`Fault`].
//!
//! TLB: each translation the GuC uses is cached per page until
//! `GUC_TLB_INV_CR` is written or the GuC is reset. At every use the cached
//! PTE is compared with the one in memory; if they differ the access still
//! goes through the cached (stale) one, as the hardware would, and the
//! operation records one `stale_ggtt_tlb` violation: the driver changed a
//! mapping the GuC had used without invalidating (upstream invalidates with
//! `GUC_TLB_INV_CR` for BOs created with `XE_BO_FLAG_GGTT_INVALIDATE`).
//! Non-present PTEs are not cached (`[MODEL]`).

use std::collections::HashMap;
use std::fmt;

use crate::ccs::Ccs;
use crate::recorder::Recorder;

/// GGTT page size.
pub const PAGE: u64 = 4096;
/// First GuC address that maps through the GGTT: the WOPCM top
/// (`DGFX_WOPCM_SIZE`, `xe_wopcm.c`).
pub const WOPCM_TOP: u64 = 4 << 20;
/// First GuC address that no longer maps through the GGTT
/// (`GUC_GGTT_TOP`, `regs/xe_gtt_defs.h`).
pub const GUC_GGTT_TOP: u64 = 0xFEE0_0000;
/// `XE_PAGE_PRESENT`.
pub const PTE_PRESENT: u64 = 1 << 0;
/// `XE_GGTT_PTE_DM`: the page is device (local) memory.
pub const PTE_DM: u64 = 1 << 1;
/// `XE_PAGE_ADDR_MASK(12)`: bits 51:12.
pub const PTE_ADDR_MASK: u64 = ((1 << 52) - 1) & !(PAGE - 1);

/// Fills `len` bytes from `addr` with the little-endian dword `value`
/// repeated, through `write`, a 64 KiB chunk at a time.
///
/// # Errors
///
/// The first failing write's.
pub fn fill_by_writes(
    mut write: impl FnMut(u64, &[u8]) -> Result<(), String>,
    addr: u64,
    len: u64,
    value: u32,
) -> Result<(), String> {
    const CHUNK: u64 = 1 << 16;
    // CAST: CHUNK fits a usize.
    let buf: Vec<u8> = value
        .to_le_bytes()
        .into_iter()
        .cycle()
        .take(CHUNK as usize)
        .collect();
    let mut done = 0;
    while done < len {
        let n = (len - done).min(CHUNK);
        // CAST: n <= CHUNK.
        write(addr + done, &buf[..n as usize])?;
        done += n;
    }
    Ok(())
}

/// Which memory a translated page is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// Local memory (a DM page), by device-physical address.
    Lmem,
    /// Guest memory, by bus address through the DMA map.
    Sys,
    /// A VF's system memory (a page whose GGTT entry names VF `n`, not
    /// DM), by the VF's bus address through its own VM's DMA map: the
    /// hardware translates a global page "using the Function Number from the
    /// GGTT" (seed 000 line 424), and a VF's bus addresses are its VM's.
    VfSys(u32),
}

impl Target {
    fn name(self) -> &'static str {
        match self {
            Target::Lmem => "LMEM",
            Target::Sys => "system memory",
            Target::VfSys(_) => "a VF's system memory",
        }
    }
}

/// The memory the GuC can reach. The device implements it over its memfds
/// and the guest's DMA map; tests over plain buffers.
pub trait Bus {
    /// GGTT PTE `index`, or `None` if the device has no GGTT window.
    fn pte(&self, index: u64) -> Option<u64>;
    /// GGTT PTEs `first..first + out.len()` into `out`; false if the device
    /// has no GGTT window or the range leaves it. The isolation checker
    /// walks the whole GGTT with it; the device reads its window in one go.
    fn ptes(&self, first: u64, out: &mut [u64]) -> bool {
        for (slot, i) in out.iter_mut().zip(first..) {
            match self.pte(i) {
                Some(p) => *slot = p,
                None => return false,
            }
        }
        true
    }
    /// `LMEM_CFG` as the primary GAM instance holds it: the LMTT root a
    /// VF's DM page translates through (0: LMTT off, such a page faults).
    fn lmem_cfg(&self) -> u32 {
        0
    }
    /// Reads `buf.len()` bytes of `target` at `addr`.
    ///
    /// # Errors
    ///
    /// Why the bytes cannot be read.
    fn read(&self, target: Target, addr: u64, buf: &mut [u8]) -> Result<(), String>;
    /// Writes `buf` to `target` at `addr`.
    ///
    /// # Errors
    ///
    /// Why the bytes cannot be written.
    fn write(&mut self, target: Target, addr: u64, buf: &[u8]) -> Result<(), String>;
    /// Checks that `len` bytes of `target` at `addr` could be read, without
    /// copying them.
    ///
    /// # Errors
    ///
    /// Why they could not.
    fn probe(&self, target: Target, addr: u64, len: u64) -> Result<(), String>;
    /// Fills `len` bytes of `target` at `addr` with the little-endian dword
    /// `value` repeated (a blitter's colour fill). The device's local
    /// memory makes a zero fill free its pages; this default writes.
    ///
    /// # Errors
    ///
    /// Why the bytes cannot be written.
    fn fill(&mut self, target: Target, addr: u64, len: u64, value: u32) -> Result<(), String> {
        fill_by_writes(|a, b| self.write(target, a, b), addr, len, value)
    }
    /// The first non-zero byte of local memory in `addr..addr + len`, if
    /// any (the isolation checker's `lmem_not_cleared`). The device reads
    /// only what was ever written; this default reads everything.
    fn lmem_first_nonzero(&self, addr: u64, len: u64) -> Result<Option<u64>, String> {
        const CHUNK: u64 = 1 << 16;
        // CAST: CHUNK fits a usize.
        let mut buf = vec![0u8; CHUNK as usize];
        let mut done = 0;
        while done < len {
            let n = (len - done).min(CHUNK);
            // CAST: n <= CHUNK.
            let b = &mut buf[..n as usize];
            self.read(Target::Lmem, addr + done, b)?;
            if let Some(i) = b.iter().position(|&x| x != 0) {
                return Ok(Some(addr + done + i as u64));
            }
            done += n;
        }
        Ok(None)
    }
    /// The flat-CCS metadata of local memory ([`crate::ccs`]), if this
    /// memory models it. The device's does; a bus without one (register-file
    /// tests) leaves `XY_CTRL_SURF_COPY_BLT`'s indirect access refused and
    /// the isolation checker's `ccs_not_cleared` unchecked.
    fn ccs(&self) -> Option<&Ccs> {
        None
    }
    /// The same, to write.
    fn ccs_mut(&mut self) -> Option<&mut Ccs> {
        None
    }
}

/// No memory at all (register-file tests without a device).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoBus;

impl Bus for NoBus {
    fn pte(&self, _: u64) -> Option<u64> {
        None
    }
    fn read(&self, _: Target, _: u64, _: &mut [u8]) -> Result<(), String> {
        Err("no memory".into())
    }
    fn write(&mut self, _: Target, _: u64, _: &[u8]) -> Result<(), String> {
        Err("no memory".into())
    }
    fn probe(&self, _: Target, _: u64, _: u64) -> Result<(), String> {
        Err("no memory".into())
    }
}

/// A GuC memory access that cannot complete.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault(pub String);

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The GuC's GGTT TLB: page number -> PTE.
#[derive(Debug, Default)]
pub struct Tlb {
    entries: HashMap<u64, u64>,
}

impl Tlb {
    /// Drops every entry; returns how many there were.
    pub fn clear(&mut self) -> usize {
        let n = self.entries.len();
        self.entries.clear();
        n
    }

    /// Drops the translation of GGTT page `page`, if cached.
    pub fn forget(&mut self, page: u64) {
        self.entries.remove(&page);
    }

    /// Number of cached translations.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// One physically contiguous piece of an access.
#[derive(Debug, Clone, Copy)]
struct Segment {
    target: Target,
    addr: u64,
    len: usize,
}

/// End of the GGTT: 4 GiB, one PTE per page of the 8 MiB PTE window
/// (`xe_ggtt.c`).
pub const GGTT_END: u64 = 1 << 32;

/// The GuC's (or a command streamer's) view of memory for one batch of
/// accesses.
pub struct Gtt<'a> {
    bus: &'a mut dyn Bus,
    tlb: &'a mut Tlb,
    /// The GuC's address limits apply (WOPCM below, `GUC_GGTT_TOP` above);
    /// a command streamer reaches the whole GGTT.
    guc_window: bool,
}

impl<'a> Gtt<'a> {
    /// Empties the TLB (the GuC's own invalidation, `TLB_INVALIDATION`);
    /// returns how many entries it held.
    pub fn invalidate_tlb(&mut self) -> usize {
        self.tlb.clear()
    }

    /// The GuC's accesses through `bus`, caching in `tlb`.
    pub fn new(bus: &'a mut dyn Bus, tlb: &'a mut Tlb) -> Self {
        Self {
            bus,
            tlb,
            guc_window: true,
        }
    }

    /// A command streamer's accesses through `bus`: the whole 4 GiB GGTT,
    /// no GuC window. `[MODEL]` The engines' TLBs are not modelled: pass a
    /// fresh `tlb` per operation, so every access reads the PTE in memory.
    pub fn engine(bus: &'a mut dyn Bus, tlb: &'a mut Tlb) -> Self {
        Self {
            bus,
            tlb,
            guc_window: false,
        }
    }

    /// The memory behind this view, for an access with the command
    /// streamers' view of the GGTT (the GuC checking a context image the
    /// way the engine will restore it, `ct/submit.rs`).
    pub fn bus(&mut self) -> &mut dyn Bus {
        &mut *self.bus
    }

    /// Reads `buf.len()` bytes at GGTT address `gaddr`; `what` names the
    /// access in violations.
    ///
    /// # Errors
    ///
    /// A [`Fault`]; nothing is guaranteed about `buf` then.
    pub fn read(
        &mut self,
        gaddr: u64,
        buf: &mut [u8],
        what: &str,
        rec: &mut Recorder,
    ) -> Result<(), Fault> {
        let segs = self.translate(gaddr, buf.len() as u64, what, rec)?;
        let mut done = 0;
        for s in segs {
            self.bus
                .read(s.target, s.addr, &mut buf[done..done + s.len])
                .map_err(|e| unreachable_page(what, s, &e))?;
            done += s.len;
        }
        Ok(())
    }

    /// Writes `buf` at GGTT address `gaddr`. Every page is translated and
    /// checked before anything is written.
    ///
    /// # Errors
    ///
    /// A [`Fault`].
    pub fn write(
        &mut self,
        gaddr: u64,
        buf: &[u8],
        what: &str,
        rec: &mut Recorder,
    ) -> Result<(), Fault> {
        let segs = self.translate(gaddr, buf.len() as u64, what, rec)?;
        for s in &segs {
            self.bus
                .probe(s.target, s.addr, s.len as u64)
                .map_err(|e| unreachable_page(what, *s, &e))?;
        }
        let mut done = 0;
        for s in segs {
            self.bus
                .write(s.target, s.addr, &buf[done..done + s.len])
                .map_err(|e| unreachable_page(what, s, &e))?;
            done += s.len;
        }
        Ok(())
    }

    /// Fills `len` bytes at GGTT address `gaddr` with the dword `value`
    /// repeated ([`Bus::fill`]). Every page is translated and checked
    /// before anything is written.
    ///
    /// # Errors
    ///
    /// A [`Fault`].
    pub fn fill(
        &mut self,
        gaddr: u64,
        len: u64,
        value: u32,
        what: &str,
        rec: &mut Recorder,
    ) -> Result<(), Fault> {
        let segs = self.translate(gaddr, len, what, rec)?;
        for s in &segs {
            self.bus
                .probe(s.target, s.addr, s.len as u64)
                .map_err(|e| unreachable_page(what, *s, &e))?;
        }
        let mut done = 0u64;
        for s in segs {
            // The pattern continues across segments: rotate it to where
            // this one starts.
            // CAST: done % 4 < 4.
            let v = value.rotate_right(8 * (done % 4) as u32);
            self.bus
                .fill(s.target, s.addr, s.len as u64, v)
                .map_err(|e| unreachable_page(what, s, &e))?;
            done += s.len as u64;
        }
        Ok(())
    }

    /// Checks that `len` bytes at `gaddr` translate and can be read.
    ///
    /// # Errors
    ///
    /// A [`Fault`].
    pub fn probe(
        &mut self,
        gaddr: u64,
        len: u64,
        what: &str,
        rec: &mut Recorder,
    ) -> Result<(), Fault> {
        for s in self.translate(gaddr, len, what, rec)? {
            self.bus
                .probe(s.target, s.addr, s.len as u64)
                .map_err(|e| unreachable_page(what, s, &e))?;
        }
        Ok(())
    }

    /// The physical pieces of `gaddr..gaddr + len` in order, each checked
    /// as [`Gtt::probe`] checks it: (memory, address, length). For an
    /// access that is not a plain copy (an indirect access to the CCS of
    /// local memory, `crate::regfile::engine::cs`).
    ///
    /// # Errors
    ///
    /// A [`Fault`].
    pub fn segments(
        &mut self,
        gaddr: u64,
        len: u64,
        what: &str,
        rec: &mut Recorder,
    ) -> Result<Vec<(Target, u64, u64)>, Fault> {
        let segs = self.translate(gaddr, len, what, rec)?;
        for s in &segs {
            self.bus
                .probe(s.target, s.addr, s.len as u64)
                .map_err(|e| unreachable_page(what, *s, &e))?;
        }
        Ok(segs
            .into_iter()
            .map(|s| (s.target, s.addr, s.len as u64))
            .collect())
    }

    /// The PTE the GuC uses for `page`, and the one in memory if they differ.
    fn pte(&mut self, page: u64) -> Result<(u64, Option<u64>), Fault> {
        let current = self
            .bus
            .pte(page)
            .ok_or_else(|| Fault("the device has no GGTT window".into()))?;
        match self.tlb.entries.get(&page) {
            Some(&cached) if cached != current => Ok((cached, Some(current))),
            Some(&cached) => Ok((cached, None)),
            None => {
                if current & PTE_PRESENT != 0 {
                    self.tlb.entries.insert(page, current);
                }
                Ok((current, None))
            }
        }
    }

    /// Splits `gaddr..gaddr + len` into physical segments.
    fn translate(
        &mut self,
        gaddr: u64,
        len: u64,
        what: &str,
        rec: &mut Recorder,
    ) -> Result<Vec<Segment>, Fault> {
        let end = gaddr
            .checked_add(len)
            .ok_or_else(|| Fault(format!("{what}: GGTT range {gaddr:#x}+{len:#x} wraps")))?;
        if !self.guc_window && end > GGTT_END {
            return Err(Fault(format!(
                "{what}: GGTT range {gaddr:#x}..{end:#x} is beyond the 4 GiB GGTT"
            )));
        }
        if self.guc_window && gaddr < WOPCM_TOP {
            return Err(Fault(format!(
                "{what}: GGTT address {gaddr:#x} is below the WOPCM top {WOPCM_TOP:#x}; \
                 the GuC cannot reach it through the GGTT"
            )));
        }
        if self.guc_window && end > GUC_GGTT_TOP {
            return Err(Fault(format!(
                "{what}: GGTT range {gaddr:#x}..{end:#x} reaches GUC_GGTT_TOP \
                 {GUC_GGTT_TOP:#x}; the GuC cannot reach it"
            )));
        }
        let mut segs = Vec::new();
        let mut stale: Option<(u64, u64, u64)> = None;
        let mut stale_pages = 0u64;
        let mut at = gaddr;
        while at < end {
            let page = at / PAGE;
            let (pte, changed) = self.pte(page)?;
            if let Some(current) = changed {
                stale_pages += 1;
                stale.get_or_insert((page, pte, current));
            }
            if pte & PTE_PRESENT == 0 {
                return Err(Fault(format!(
                    "{what}: GGTT address {at:#x}: PTE {page:#x} = {pte:#x} is not present"
                )));
            }
            let offset = at % PAGE;
            let (target, addr) = self.page_target(pte, offset, what, at)?;
            let n = (PAGE - offset).min(end - at);
            // CAST: n <= 4096.
            segs.push(Segment {
                target,
                addr,
                len: n as usize,
            });
            at += n;
        }
        if let Some((page, cached, current)) = stale {
            rec.violation(
                "stale_ggtt_tlb",
                format!(
                    "{what}: the GuC used its cached translation of GGTT page {:#x} \
                     (PTE {cached:#x}), but memory now holds {current:#x}; {stale_pages} \
                     stale page(s): GUC_TLB_INV_CR was not written after the GGTT changed",
                    page * PAGE
                ),
            );
        }
        Ok(merge(segs))
    }
}

impl Gtt<'_> {
    /// Where byte `offset` of the present page `pte` maps (`at` its GGTT
    /// address, `what` the access, for a fault). A page of function 0 is
    /// the PF's: local memory at the PTE's address (DM) or the PF's VM's
    /// memory. A page whose function number (bits 11:2) names VF `n` is
    /// translated with that function (seed 000 line 424): a DM page's
    /// address is an offset in the VF's local memory, which the LMTT maps
    /// (seed 000 line 426; `[MODEL]`: the GuC's accesses walk the tables in
    /// memory, where a VF's own BAR2 goes through the LMTT's cache,
    /// `lmtt::Tlb::translate`), and another page is the VF's VM's memory.
    fn page_target(
        &self,
        pte: u64,
        offset: u64,
        what: &str,
        at: u64,
    ) -> Result<(Target, u64), Fault> {
        let addr = (pte & PTE_ADDR_MASK) + offset;
        let vf = crate::regfile::isolation::pte_vfid(pte);
        match (pte & PTE_DM != 0, vf) {
            (true, 0) => Ok((Target::Lmem, addr)),
            (false, 0) => Ok((Target::Sys, addr)),
            (false, vf) => Ok((Target::VfSys(vf), addr)),
            (true, vf) => {
                crate::regfile::isolation::lmtt_translate(self.bus.lmem_cfg(), &*self.bus, vf, addr)
                    .map(|a| (Target::Lmem, a))
                    .ok_or_else(|| {
                        Fault(format!(
                        "{what}: GGTT address {at:#x}: VF {vf}'s local-memory offset {addr:#x} \
                         has no valid LMTT page"
                    ))
                    })
            }
        }
    }
}

/// Joins segments that continue each other in the same memory.
fn merge(segs: Vec<Segment>) -> Vec<Segment> {
    let mut out: Vec<Segment> = Vec::with_capacity(segs.len());
    for s in segs {
        match out.last_mut() {
            Some(l) if l.target == s.target && l.addr + l.len as u64 == s.addr => l.len += s.len,
            _ => out.push(s),
        }
    }
    out
}

fn unreachable_page(what: &str, s: Segment, why: &str) -> Fault {
    Fault(format!(
        "{what}: {} at {:#x}+{:#x} cannot be reached: {why}",
        s.target.name(),
        s.addr,
        s.len
    ))
}
