//! Context restore and save through the logical ring context image.
//!
//! LRCA -> PPHWSP (4 KiB), then the register state at LRCA + 4096 (seed 004
//! L212-226). The register state is parsed as commands, the way upstream
//! writes it (`xe_lrc.c` `set_offsets`, `dg2_xcs_offsets` /
//! `dg2_rcs_offsets`): `MI_NOOP`s and `MI_LOAD_REGISTER_IMM` lists of
//! (register, value) pairs, closed by `MI_BATCH_BUFFER_END | 1`. Register
//! addresses are absolute (base + offset) as upstream writes them; with
//! `MI_LRI_LRM_CS_MMIO` (bit 19) a bare offset below the window size is
//! taken relative to the engine too (spec "LRC"). Registers outside the
//! engine's window (the TRTT ones, seed 004 L1863) are skipped.
//!
//! Taken on restore: `RING_HEAD`, `RING_TAIL`, `RING_START`, `RING_CTL`,
//! `RING_CONTEXT_CONTROL`, and the memory-based interrupt setup of a VF's
//! image, read at its fixed place in the layout whatever comes before it
//! (seed 004 L1821-1825: at dword 0x50 an `MI_LOAD_REGISTER_MEM` of
//! `RING_IMR` from the interrupt enable mask's GGTT address, at 0x55 an LRI
//! of `RING_INT_STATUS_RPT_PTR` 0xAC and `RING_INT_SRC_RPT_PTR` 0xA4;
//! upstream `xe_lrc.c` `set_memory_based_intr` writes them there, past the
//! `MI_BATCH_BUFFER_END` its `set_offsets` closes the xcs list with, so the
//! hardware's restore is by layout, not by parsing); the addresses of the HEAD and TAIL value dwords
//! are kept for the save (`CTX_RING_HEAD` dw 5 and `CTX_RING_TAIL` dw 7 in
//! upstream's image, seed 004 L1783-1784). Parsing is bounded to the image
//! pages (`[MODEL]` after xe `xe_gt_lrc_size`: 13 pages for render and
//! compute, 1 for the others); anything but NOOP / LRI / LRM / BB_END, an
//! LRI with an odd dword count, an LRM of another length than 4 dwords, or
//! running off the bound is an instruction error. An LRM of another register
//! than `RING_IMR`, or without `MI_LRM_USE_GGTT`, is skipped (`[MODEL]`).
//! An unreachable image is a page-table error.

use super::cs::ErrorKind;
use super::reg;
use super::Context;
use super::EngineDef;
use super::Io;
use super::Ring;
use super::WINDOW;
use crate::regfile::guc::ggtt::Fault;
use crate::regfile::intc::Class;

/// `MI_NOOP` (`xe_mi_commands.h`; opcode 00h seed 004 L587).
const MI_NOOP_OPCODE: u32 = 0x00;
/// `MI_LOAD_REGISTER_IMM` opcode 22h (`xe_mi_commands.h`; seed 004 L618).
const MI_LRI_OPCODE: u32 = 0x22;
/// `MI_BATCH_BUFFER_END` opcode 0Ah (`xe_mi_commands.h`; seed 004 L595).
const MI_BB_END_OPCODE: u32 = 0x0a;
/// `MI_LOAD_REGISTER_MEM` opcode 29h (`xe_mi_commands.h`; seed 004 L623).
const MI_LRM_OPCODE: u32 = 0x29;
/// `MI_LRM_USE_GGTT` (`xe_mi_commands.h`).
const LRM_USE_GGTT: u32 = 1 << 22;
/// `MI_LRI_LRM_CS_MMIO` (`xe_mi_commands.h`).
pub const LRI_CS_MMIO: u32 = 1 << 19;

/// Where a context's HEAD and TAIL go back to: GGTT addresses of their
/// value dwords in the image.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Slots {
    /// `RING_HEAD`'s value dword.
    pub head: Option<u32>,
    /// `RING_TAIL`'s value dword.
    pub tail: Option<u32>,
}

/// A context's memory-based interrupt setup (module docs): GGTT
/// addresses, each as the image loads it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MemIrq {
    /// Where `RING_IMR` is loaded from: the interrupt enable mask.
    pub enable_at: Option<u64>,
    /// `RING_INT_STATUS_RPT_PTR`: the status report page.
    pub status: Option<u32>,
    /// `RING_INT_SRC_RPT_PTR`: the source report page.
    pub source: Option<u32>,
}

/// What a restore takes from the image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Restored {
    /// Ring registers.
    pub ring: Ring,
    /// `RING_CONTEXT_CONTROL` (masked value applied to 0).
    pub context_control: u32,
    /// Save slots.
    pub slots: Slots,
    /// Memory-based interrupt setup.
    pub memirq: MemIrq,
}

/// Why a restore failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestoreError {
    /// Instruction (garbage) or page table (unreachable).
    pub kind: ErrorKind,
    /// GGTT address of the offending dword.
    pub at: u64,
    /// The offending header (0 if unreadable).
    pub header: u32,
    /// What went wrong.
    pub why: String,
}

/// Pages of register state parsed at most (module docs).
fn image_pages(def: &EngineDef) -> u64 {
    match def.src.class {
        Class::Render | Class::Compute => 13,
        _ => 1,
    }
}

/// The engine-relative offset of `addr` written by an LRI with header
/// `hdr`, if it is in the engine's window.
pub fn relative(base: u32, hdr: u32, addr: u32) -> Option<u32> {
    relative_to(base, hdr & LRI_CS_MMIO != 0, addr)
}

/// The engine-relative offset of register `addr` named by a command, if
/// it is in the engine's window: absolute, or with `cs_mmio` (the
/// command's CS-MMIO bit, `MI_LRI_LRM_CS_MMIO`, `MI_SRM_ADD_CS_OFFSET`,
/// `MI_LRR_*_CS_MMIO` in `xe_mi_commands.h`) a bare offset below the
/// window size.
pub fn relative_to(base: u32, cs_mmio: bool, addr: u32) -> Option<u32> {
    let addr = addr & !3;
    if let Some(rel) = addr.checked_sub(base).filter(|&r| r < WINDOW) {
        return Some(rel);
    }
    (cs_mmio && addr < WINDOW).then_some(addr)
}

/// The MMIO offset a command's register address `addr` names: with
/// `cs_mmio` an offset below the window size is added to `base`.
pub fn absolute(base: u32, cs_mmio: bool, addr: u32) -> u32 {
    let addr = addr & !3;
    if cs_mmio && addr < WINDOW {
        base + addr
    } else {
        addr
    }
}

/// Applies a masked write to 0 (`RING_CONTEXT_CONTROL` is masked,
/// `xe_engine_regs.h` `XE_REG_OPTION_MASKED`).
fn masked_from_zero(v: u32) -> u32 {
    (v >> 16) & v & 0xffff
}

/// Restores the context at `lrca` for engine `def`.
///
/// # Errors
///
/// A [`RestoreError`] (module docs).
pub fn restore(def: &EngineDef, lrca: u32, io: &mut Io<'_>) -> Result<Restored, RestoreError> {
    let start = u64::from(lrca) + 4096;
    let end = start + 4096 * image_pages(def);
    let mut page: Option<(u64, Vec<u8>)> = None;
    let mut read = |at: u64, io: &mut Io<'_>| -> Result<u32, RestoreError> {
        if at >= end {
            return Err(RestoreError {
                kind: ErrorKind::Instruction,
                at,
                header: 0,
                why: format!(
                    "context image at LRCA {lrca:#x}: no MI_BATCH_BUFFER_END before the end of \
                     its register state ({:#x})",
                    end
                ),
            });
        }
        let p = at & !0xfff;
        if page.as_ref().is_none_or(|(a, _)| *a != p) {
            let mut buf = vec![0u8; 4096];
            io.read(p, &mut buf, "context image")
                .map_err(|f| RestoreError {
                    kind: ErrorKind::PageTable,
                    at,
                    header: 0,
                    why: f.to_string(),
                })?;
            page = Some((p, buf));
        }
        let (_, buf) = page.as_ref().ok_or_else(|| RestoreError {
            kind: ErrorKind::PageTable,
            at,
            header: 0,
            why: "context image page not read".into(),
        })?;
        // CAST: at - p < 4096.
        let o = (at - p) as usize;
        Ok(u32::from_le_bytes([
            buf[o],
            buf[o + 1],
            buf[o + 2],
            buf[o + 3],
        ]))
    };
    let mut r = Restored {
        ring: Ring::default(),
        context_control: 0,
        slots: Slots::default(),
        memirq: MemIrq::default(),
    };
    let mut at = start;
    loop {
        let hdr = read(at, io)?;
        let garbage = |why: String| RestoreError {
            kind: ErrorKind::Instruction,
            at,
            header: hdr,
            why: format!(
                "context image at LRCA {lrca:#x}, dword {:#x}: {why}",
                (at - start) / 4
            ),
        };
        if hdr >> 29 != 0 {
            return Err(garbage(format!("{hdr:#010x} is not an MI command")));
        }
        match (hdr >> 23) & 0x3f {
            MI_NOOP_OPCODE => at += 4,
            MI_BB_END_OPCODE => break,
            MI_LRI_OPCODE => {
                // Length: bits 7:0 = dwords - 2 (`MI_LRI_LEN`), 2N - 1.
                let n = (hdr & 0xff) + 1;
                if n % 2 != 0 {
                    return Err(garbage(format!(
                        "MI_LOAD_REGISTER_IMM {hdr:#010x} with an odd number of dwords ({n})"
                    )));
                }
                for k in 0..n / 2 {
                    let a = at + 4 + 8 * u64::from(k);
                    let addr = read(a, io)?;
                    let value = read(a + 4, io)?;
                    // CAST: the dword was read through the GGTT, so its
                    // address is below 4 GiB.
                    let slot = (a + 4) as u32;
                    match relative(def.base, hdr, addr) {
                        Some(reg::RING_HEAD) => {
                            r.ring.head = value & super::HEAD_ADDR;
                            r.slots.head = Some(slot);
                        }
                        Some(reg::RING_TAIL) => {
                            r.ring.tail = value & super::TAIL_ADDR;
                            r.slots.tail = Some(slot);
                        }
                        Some(reg::RING_START) => r.ring.start = value & !0xfff,
                        Some(reg::RING_CTL) => r.ring.ctl = value,
                        Some(reg::RING_CONTEXT_CONTROL) => {
                            r.context_control = masked_from_zero(value);
                        }
                        _ => {}
                    }
                }
                at += 4 * (u64::from(n) + 1);
            }
            MI_LRM_OPCODE => {
                // {header, register, address low, address high}.
                if hdr & 0xff != 2 {
                    return Err(garbage(format!(
                        "MI_LOAD_REGISTER_MEM {hdr:#010x} is not 4 dwords long"
                    )));
                }
                // Taken at its fixed place ([`memirq_block`]).
                at += 16;
            }
            op => {
                return Err(garbage(format!(
                    "{hdr:#010x} (MI opcode {op:#x}) is not MI_NOOP, MI_LOAD_REGISTER_IMM, \
                     MI_LOAD_REGISTER_MEM or MI_BATCH_BUFFER_END"
                )))
            }
        }
    }
    r.memirq = memirq_block(def, start, &mut read, io)?;
    if r.slots.head.is_none() || r.slots.tail.is_none() {
        return Err(RestoreError {
            kind: ErrorKind::Instruction,
            at: start,
            header: 0,
            why: format!("context image at LRCA {lrca:#x} loads no RING_HEAD or no RING_TAIL"),
        });
    }
    Ok(r)
}

/// Dword of the image's interrupt-mask LRM and of its report-pointer LRI
/// (seed 004 L1821-1825; `xe_lrc_layout.h` `CTX_LRM_INT_MASK_ENABLE`,
/// `CTX_LRI_INT_REPORT_PTR`).
const LRM_INT_MASK_DW: u64 = 0x50;
const LRI_INT_REPORT_DW: u64 = 0x55;

/// The memory-based interrupt setup at its fixed place (module docs): the
/// LRM of `RING_IMR` with `MI_LRM_USE_GGTT`, and the LRI's report
/// pointers; what is not there is `None`.
fn memirq_block(
    def: &EngineDef,
    start: u64,
    read: &mut impl FnMut(u64, &mut Io<'_>) -> Result<u32, RestoreError>,
    io: &mut Io<'_>,
) -> Result<MemIrq, RestoreError> {
    let mut m = MemIrq::default();
    let at = start + 4 * LRM_INT_MASK_DW;
    let hdr = read(at, io)?;
    if hdr >> 29 == 0 && (hdr >> 23) & 0x3f == MI_LRM_OPCODE && hdr & 0xff == 2 {
        let reg = read(at + 4, io)?;
        let lo = read(at + 8, io)?;
        let hi = read(at + 12, io)?;
        if hdr & LRM_USE_GGTT != 0 && relative(def.base, hdr, reg) == Some(reg::RING_IMR) {
            m.enable_at = Some((u64::from(hi) << 32 | u64::from(lo)) & !3);
        }
    }
    let at = start + 4 * LRI_INT_REPORT_DW;
    let hdr = read(at, io)?;
    if hdr >> 29 == 0 && (hdr >> 23) & 0x3f == MI_LRI_OPCODE && hdr & 0xff == 3 {
        for k in 0..2u64 {
            let addr = read(at + 4 + 8 * k, io)?;
            let value = read(at + 8 + 8 * k, io)?;
            match relative(def.base, hdr, addr) {
                Some(reg::RING_INT_STATUS_RPT_PTR) => m.status = Some(value),
                Some(reg::RING_INT_SRC_RPT_PTR) => m.source = Some(value),
                _ => {}
            }
        }
    }
    Ok(m)
}

/// Writes the context's HEAD and TAIL back into their value dwords.
///
/// # Errors
///
/// The image is no longer reachable.
pub fn save(c: &Context, io: &mut Io<'_>) -> Result<(), Fault> {
    if let Some(a) = c.slots.head {
        io.write(
            u64::from(a),
            &c.ring.head.to_le_bytes(),
            "context save (RING_HEAD)",
        )?;
    }
    if let Some(a) = c.slots.tail {
        io.write(
            u64::from(a),
            &c.ring.tail.to_le_bytes(),
            "context save (RING_TAIL)",
        )?;
    }
    Ok(())
}

/// Re-reads `RING_TAIL` from the image (lite restore).
///
/// # Errors
///
/// The image is not reachable.
pub fn read_tail(slots: &Slots, io: &mut Io<'_>) -> Result<u32, Fault> {
    match slots.tail {
        Some(a) => io.read_u32(u64::from(a), "lite restore (RING_TAIL)"),
        None => Err(Fault("the context image has no RING_TAIL slot".into())),
    }
}
