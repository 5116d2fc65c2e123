//! Flat-CCS compression metadata of local memory.
//!
//! DG2 and ATS-M have flat CCS (upstream `xe_pci.c`, `DG2_FEATURES`
//! `.has_flat_ccs = 1`): each 256 bytes of local memory own one byte of
//! compression metadata (`instructions/xe_gpu_commands.h`
//! `NUM_BYTES_PER_CCS_BYTE`, 256 below Xe2), which no plain access sees.
//! Only the blitter's `XY_CTRL_SURF_COPY_BLT` reaches it, through an
//! "indirect" access (`crate::regfile::engine::cs`). Upstream clears it
//! with the memory it clears: `xe_migrate.c` `xe_migrate_clear` ("On flat
//! CCS devices, the CCS metadata is cleared to zero"), which the PF uses on
//! a VF's memory (`xe_gt_sriov_pf_config.c` `pf_sanitize_lmem`,
//! `XE_MIGRATE_CLEAR_FLAG_FULL`).
//!
//! The hardware keeps the metadata in local memory itself, in the flat-CCS
//! area above the usable part (`XEHP_FLAT_CCS_BASE_ADDR`,
//! `crate::regfile::flat_ccs_base_addr`; upstream takes its base as the end
//! of usable VRAM, `xe_vram.c` `get_flat_ccs_offset`). `[MODEL]` The mock
//! keeps it apart from the local-memory memfd, so that a byte can be
//! unknown; the memfd's bytes of that area are not it (nothing should reach
//! them).
//!
//! The store is byte-accurate: CCS byte `i` covers local memory
//! `256 * i .. 256 * (i + 1)` ([`index`]), and each byte is either unknown
//! or holds a value. It is sparse: chunks of [`CHUNK`] CCS bytes (1 MiB of
//! local memory each) are absent (all unknown), uniform (one value, what
//! a clear of whole windows leaves: a few bytes for GiBs) or mixed (one
//! entry per byte).
//!
//! `[MODEL]` decisions, none of which a source settles:
//!
//! - At power-on every byte is unknown. No source says the metadata is
//!   zeroed at reset, so the stricter reading: unknown, which counts as not
//!   clear (`ccs_not_cleared`, `crate::regfile::isolation`) until a command
//!   writes it.
//! - A function reset (PCIe FLR, Driver-FLR, a new test window: the
//!   device's `reset` and `begin_window`) makes every byte unknown again,
//!   as at power-on: the mock returns local memory to its power-on state
//!   then, and nothing says the hardware clears the metadata (upstream's PF
//!   clears it itself, `pf_sanitize_lmem`). A VF FLR leaves it alone: the
//!   PRM's VF FLR sequence (seed 000 lines 300-326) leaves a VF's memory to
//!   the PF.
//! - Plain writes of local memory (the host through LMEMBAR, the GuC,
//!   `XY_FAST_COLOR_BLT`, `XY_FAST_COPY_BLT`, `MI_STORE_DATA_IMM`) leave the
//!   metadata as it is: upstream follows each fill with a separate CCS
//!   clear (`xe_migrate_clear`), which it would not need if the fill reset
//!   the metadata.
//! - An unknown byte copied out into main memory (an indirect-to-direct
//!   copy) arrives as [`UNKNOWN_READ`], not 0, so memory filled from
//!   metadata nobody wrote never passes for cleared; an indirect-to-indirect
//!   copy carries it as unknown.

use std::collections::BTreeMap;

/// Bytes of local memory one CCS byte covers (`NUM_BYTES_PER_CCS_BYTE`
/// below Xe2, `instructions/xe_gpu_commands.h`).
pub const BYTES_PER_CCS_BYTE: u64 = 256;
/// CCS bytes per chunk of the store (1 MiB of local memory).
pub const CHUNK: u64 = 4096;
/// What an unknown CCS byte reads as when a command copies it into main
/// memory (`[MODEL]`, module docs).
pub const UNKNOWN_READ: u8 = 0xff;

/// The CCS byte covering local-memory address `addr`.
pub const fn index(addr: u64) -> u64 {
    addr / BYTES_PER_CCS_BYTE
}

/// The CCS bytes covering local memory `addr..addr + len`: the first and
/// how many (a partly covered 256-byte unit counts whole).
pub fn covering(addr: u64, len: u64) -> (u64, u64) {
    let first = index(addr);
    let end = addr.saturating_add(len).div_ceil(BYTES_PER_CCS_BYTE);
    (first, end.saturating_sub(first))
}

/// One chunk of [`CHUNK`] CCS bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Chunk {
    /// Every byte holds this value.
    Uniform(u8),
    /// Byte by byte; `None` unknown. Never all equal (then it is uniform
    /// or absent).
    Mixed(Box<[Option<u8>]>),
}

/// The flat-CCS metadata of local memory (module docs).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ccs {
    /// By chunk number; absent: every byte unknown.
    chunks: BTreeMap<u64, Chunk>,
}

/// The pieces of `first..first + len` chunk by chunk: (chunk, offset in
/// it, length, offset in the range).
fn pieces(first: u64, len: u64) -> impl Iterator<Item = (u64, usize, usize, usize)> {
    let end = first.saturating_add(len);
    let mut at = first;
    std::iter::from_fn(move || {
        if at >= end {
            return None;
        }
        let off = at % CHUNK;
        let n = (CHUNK - off).min(end - at);
        // CAST: below CHUNK, and the range offset is below `len`, which
        // callers keep to what a buffer holds.
        let piece = (at / CHUNK, off as usize, n as usize, (at - first) as usize);
        at += n;
        Some(piece)
    })
}

impl Ccs {
    /// Every byte unknown: the power-on state (module docs).
    pub fn new() -> Self {
        Self::default()
    }

    /// Back to the power-on state: every byte unknown (a function reset,
    /// module docs).
    pub fn forget_all(&mut self) {
        self.chunks.clear();
    }

    /// CCS byte `i`: `None` unknown.
    pub fn get(&self, i: u64) -> Option<u8> {
        match self.chunks.get(&(i / CHUNK))? {
            Chunk::Uniform(v) => Some(*v),
            // CAST: below CHUNK.
            Chunk::Mixed(m) => m[(i % CHUNK) as usize],
        }
    }

    /// CCS bytes `first..first + out.len()` into `out` (`None` unknown).
    pub fn read(&self, first: u64, out: &mut [Option<u8>]) {
        for (c, off, n, at) in pieces(first, out.len() as u64) {
            let dst = &mut out[at..at + n];
            match self.chunks.get(&c) {
                None => dst.fill(None),
                Some(Chunk::Uniform(v)) => dst.fill(Some(*v)),
                Some(Chunk::Mixed(m)) => dst.copy_from_slice(&m[off..off + n]),
            }
        }
    }

    /// Sets CCS bytes `first..first + values.len()` (`None`: unknown).
    pub fn write(&mut self, first: u64, values: &[Option<u8>]) {
        for (c, off, n, at) in pieces(first, values.len() as u64) {
            let src = &values[at..at + n];
            if n as u64 == CHUNK && src.iter().all(|&v| v == src[0]) {
                self.set_uniform(c, src[0]);
            } else {
                self.mixed(c)[off..off + n].copy_from_slice(src);
                self.normalise(c);
            }
        }
    }

    /// Sets `len` CCS bytes from `first` to `value` (`None`: unknown).
    pub fn fill(&mut self, first: u64, len: u64, value: Option<u8>) {
        for (c, off, n, _) in pieces(first, len) {
            if n as u64 == CHUNK {
                self.set_uniform(c, value);
            } else {
                self.mixed(c)[off..off + n].fill(value);
                self.normalise(c);
            }
        }
    }

    /// The first of CCS bytes `first..first + len` that is not known to be
    /// zero, and its value (`None`: unknown). Costs a lookup per chunk
    /// unless a chunk is mixed.
    pub fn first_not_zero(&self, first: u64, len: u64) -> Option<(u64, Option<u8>)> {
        for (c, off, n, at) in pieces(first, len) {
            let at = first + at as u64;
            match self.chunks.get(&c) {
                None => return Some((at, None)),
                Some(Chunk::Uniform(0)) => {}
                Some(Chunk::Uniform(v)) => return Some((at, Some(*v))),
                Some(Chunk::Mixed(m)) => {
                    if let Some(k) = m[off..off + n].iter().position(|&v| v != Some(0)) {
                        return Some((at + k as u64, m[off + k]));
                    }
                }
            }
        }
        None
    }

    /// Chunks that hold anything known (for tests and the cost of the
    /// store).
    pub fn chunks(&self) -> usize {
        self.chunks.len()
    }

    fn set_uniform(&mut self, c: u64, value: Option<u8>) {
        match value {
            None => {
                self.chunks.remove(&c);
            }
            Some(v) => {
                self.chunks.insert(c, Chunk::Uniform(v));
            }
        }
    }

    /// Chunk `c` byte by byte, made so if it was not.
    fn mixed(&mut self, c: u64) -> &mut [Option<u8>] {
        // CAST: CHUNK is small.
        let n = CHUNK as usize;
        let e = self
            .chunks
            .entry(c)
            .or_insert_with(|| Chunk::Mixed(vec![None; n].into()));
        if let Chunk::Uniform(v) = *e {
            *e = Chunk::Mixed(vec![Some(v); n].into());
        }
        match e {
            Chunk::Mixed(m) => m,
            Chunk::Uniform(_) => unreachable!("made mixed above"),
        }
    }

    /// Keeps the invariant: a mixed chunk whose bytes are all equal
    /// becomes uniform, or absent if they are all unknown.
    fn normalise(&mut self, c: u64) {
        let Some(Chunk::Mixed(m)) = self.chunks.get(&c) else {
            return;
        };
        let v = m[0];
        if m.iter().all(|&x| x == v) {
            self.set_uniform(c, v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_until_written_and_chunks_stay_compact() {
        let mut c = Ccs::new();
        assert_eq!(c.get(5), None);
        assert_eq!(c.first_not_zero(0, 10), Some((0, None)));
        // A 64 MiB window cleared: 256 KiB of CCS, 64 uniform chunks.
        c.fill(index(64 << 20), 256 << 10, Some(0));
        assert_eq!(c.chunks(), 64);
        assert_eq!(c.first_not_zero(index(64 << 20), 256 << 10), None);
        assert_eq!(
            c.first_not_zero(index(64 << 20), (256 << 10) + 1),
            Some((index(128 << 20), None)),
            "the byte after the window is unknown"
        );
        // One byte dirtied in the middle: mixed, found; cleared again:
        // uniform again.
        let at = index(64 << 20) + 5000;
        c.write(at, &[Some(0xd1)]);
        assert_eq!(c.chunks(), 64);
        assert_eq!(
            c.first_not_zero(index(64 << 20), 256 << 10),
            Some((at, Some(0xd1)))
        );
        c.write(at, &[Some(0)]);
        assert!(c.chunks.values().all(|k| *k == Chunk::Uniform(0)));
        // Forgetting part of a chunk, then all of it: absent.
        c.fill(at, 1, None);
        assert_eq!(c.get(at), None);
        c.fill(at - 5000 + 4096, CHUNK, None);
        assert_eq!(c.chunks(), 63);
        c.forget_all();
        assert_eq!(c.chunks(), 0);
    }

    #[test]
    fn reads_and_writes_across_chunks() {
        let mut c = Ccs::new();
        let vals: Vec<Option<u8>> = (0..6000u32).map(|i| Some((i % 251) as u8)).collect();
        c.write(3000, &vals);
        let mut out = vec![Some(9); 6002];
        c.read(2999, &mut out);
        assert_eq!(out[0], None);
        assert_eq!(&out[1..6001], &vals[..]);
        assert_eq!(out[6001], None);
        assert_eq!(c.first_not_zero(3000, 6000), Some((3001, Some(1))));
    }

    #[test]
    fn covering_counts_partial_units() {
        assert_eq!(covering(0, 256), (0, 1));
        assert_eq!(covering(255, 2), (0, 2));
        assert_eq!(covering(0x1000, 0x1000), (16, 16));
        assert_eq!(covering(0x3f00_0000, 1), (0x3f0000, 1));
    }
}
