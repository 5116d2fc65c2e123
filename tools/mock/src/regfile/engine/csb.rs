//! The Context Status Buffer: 12 entries in the global HWSP, mirrored in
//! MMIO, with the write pointer in both.
//!
//! Layout DECISION (spec "Global HWSP"): upstream's, not the seed's
//! (seed004.md §6.4: i915 runs DG2 execlists with it). Entries (u64) at HWSP
//! DW 0x10..0x27 (i915 `intel_engine.h` `I915_HWS_CSB_BUF0_INDEX` 0x10), the
//! write pointer at DW 0x2f (`ICL_HWS_CSB_WRITE_INDEX`): the index of the
//! entry last written, pre-incremented, wrapping 11 -> 0 (seed 004 L337,
//! "(preincrement) value of the Context Status Buffer Write Pointer"). Every
//! entry is also written to the MMIO mirror (entry i < 6 at +0x370 + 8i,
//! else +0x3c0 + 8(i - 6); seed 004 L1724-1725, i915 `wa_csb_read`) and the
//! pointer to `RING_CONTEXT_STATUS_PTR` bits 3:0 (i915 `intel_lrc_reg.h`
//! `GEN11_CSB_WRITE_PTR_MASK`).
//!
//! Entry (Xe_HP, i915 `intel_execlists_submission.c` `xehp_csb_parse`,
//! seed004.md §6.2): lo bits 3:0 switch detail (`GEN12_CTX_SWITCH_DETAIL`),
//! 9:4 engine instance, 25:10 SW context ID switched to, 31:26 counter 0;
//! hi bit 1 switched to new queue (`XEHP_CTX_STATUS_SWITCHED_TO_NEW_QUEUE`),
//! 25:10 SW context ID switched away from, 31:26 counter 0.
//!
//! Pointers: `[MODEL]` after a device reset the write pointer reads 0xf
//! ("none written"), so the first entry lands in entry 0 (i915
//! `reset_csb_pointers`: "After a reset, the HW starts writing into CSB
//! entry [0]"); software primes it (i915 writes `0xffff << 16 | 11 << 8 |
//! 11`), which the model takes: a written write pointer of 11 also puts the
//! next entry in 0. An engine reset leaves the pointers alone.

use super::Io;
use crate::regfile::guc::ggtt::Fault;

/// Number of CSB entries (seed 004 L329-332; i915 `GEN11_CSB_ENTRIES`).
pub const ENTRIES: u8 = 12;
/// HWSP dword of entry 0 (i915 `I915_HWS_CSB_BUF0_INDEX`).
pub const HWSP_CSB_DW: u64 = 0x10;
/// HWSP dword of the write pointer (i915 `ICL_HWS_CSB_WRITE_INDEX`).
pub const HWSP_WRITE_PTR_DW: u64 = 0x2f;
/// Write pointer bits of `RING_CONTEXT_STATUS_PTR` (`GEN11_CSB_WRITE_PTR_MASK`).
pub const WRITE_PTR_MASK: u32 = 0xf;
/// Read pointer bits (`GEN11_CSB_READ_PTR_MASK`).
pub const READ_PTR_MASK: u32 = 0xf << 8;
/// "Switched to new queue", bit 1 of the upper dword
/// (`XEHP_CTX_STATUS_SWITCHED_TO_NEW_QUEUE`).
pub const NEW_QUEUE: u32 = 1 << 1;

/// Builds one entry.
pub fn entry(instance: u8, away: u16, to: u16, new_queue: bool, detail: u32) -> u64 {
    let lo = (detail & 0xf) | (u32::from(instance) & 0x3f) << 4 | u32::from(to) << 10;
    let hi = if new_queue { NEW_QUEUE } else { 0 } | u32::from(away) << 10;
    u64::from(lo) | u64::from(hi) << 32
}

/// The pointers and the MMIO mirror.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Csb {
    /// Write pointer, 4 bits.
    pub write: u32,
    /// Read pointer, 4 bits (software's).
    pub read: u32,
    /// The MMIO copy of the entries.
    pub mirror: [u64; ENTRIES as usize],
}

impl Default for Csb {
    fn default() -> Self {
        Self {
            write: WRITE_PTR_MASK,
            read: 0,
            mirror: [0; ENTRIES as usize],
        }
    }
}

impl Csb {
    /// `RING_CONTEXT_STATUS_PTR` as read.
    pub fn ptr_reg(&self) -> u32 {
        self.write | self.read << 8
    }

    /// A (masked) write of `RING_CONTEXT_STATUS_PTR`.
    pub fn write_ptr_reg(&mut self, value: u32) {
        let v = super::masked(self.ptr_reg(), value);
        self.write = v & WRITE_PTR_MASK;
        self.read = (v & READ_PTR_MASK) >> 8;
    }

    /// Dword `i` (0..24) of the mirror.
    pub fn mirror_dword(&self, i: u32) -> u32 {
        // CAST: i < 24.
        let e = self.mirror[(i / 2) as usize];
        // CAST: one half of the entry.
        if i.is_multiple_of(2) {
            e as u32
        } else {
            (e >> 32) as u32
        }
    }

    /// Writes `entry` at the next index: the HWSP at `hws_pga` (entry,
    /// then write pointer), the mirror, the pointer register. Returns the
    /// index and whether the HWSP was reachable (the MMIO copies are
    /// written either way).
    pub fn push(&mut self, entry: u64, hws_pga: u32, io: &mut Io<'_>) -> (u32, Result<(), Fault>) {
        let next = if self.write >= u32::from(ENTRIES) - 1 {
            0
        } else {
            self.write + 1
        };
        self.write = next;
        // CAST: next < 12.
        self.mirror[next as usize] = entry;
        let base = u64::from(hws_pga);
        let res = io
            .write(
                base + 4 * (HWSP_CSB_DW + 2 * u64::from(next)),
                &entry.to_le_bytes(),
                "CSB entry in the HWSP",
            )
            .and_then(|()| {
                io.write(
                    base + 4 * HWSP_WRITE_PTR_DW,
                    &next.to_le_bytes(),
                    "CSB write pointer in the HWSP",
                )
            });
        (next, res)
    }
}
