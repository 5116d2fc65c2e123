//! The command decoder and executor.
//!
//! Commands are fetched from `RING_START + RING_HEAD` (or the current batch
//! buffer) ONLY through the GGTT, one whole command at a time, and
//! executed at once (`[MODEL]`: no prefetch, no pipelining; seed 004 L2039
//! allows a model that is "more coherent" than the hardware). The ring
//! wraps at its size (`RING_CTL`); the context is complete when HEAD ==
//! TAIL in the ring (spec "Execution"). Encodings: header type bits 31:29
//! (seed 004 L559-567), MI opcode bits 28:23 (seed 004 L583-636), layouts
//! from `xe/instructions/xe_mi_commands.h`, `xe_gpu_commands.h` and i915
//! `intel_gpu_commands.h`:
//!
//! | command | header | executed as |
//! |---|---|---|
//! | `MI_NOOP` | opcode 00h | nothing |
//! | `MI_USER_INTERRUPT` | 02h | engine vector bit 0 |
//! | `MI_ARB_CHECK` | 05h | a preemption point; nothing (preemption happens at the Load) |
//! | `MI_ARB_ON_OFF` | 08h, bit 0 enable | recorded (xe emits it on every engine although seed 004 L594 says "All except Blitter") |
//! | `MI_BATCH_BUFFER_END` | 0Ah | back to the previous level; in the ring itself an instruction error |
//! | `MI_MATH` | 1Ah, bits 7:0 = dwords - 2, one ALU instruction a dword | the CS ALU over `CS_GPR` R0-R15 (seed 004 L745-964): LOAD/LOADINV/LOAD0/LOAD1, ADD/SUB/AND/OR/XOR/SHL/SHR/SAR, STORE/STOREINV, NOOP/FENCE; LOADIND/STOREIND and any other encoding are an instruction error, found before any instruction runs |
//! | `MI_SEMAPHORE_WAIT` | 1Ch, 4 or 5 dwords, bit 22 GGTT, bit 15 poll, 14:12 compare | waits until `*addr OP data` holds, re-polled on ticks |
//! | `MI_STORE_DATA_IMM` | 20h, bits 9:0 = dwords - 2 (4 or 5), bit 22 GGTT, bit 21 qword | writes 1 or 2 dwords |
//! | `MI_LOAD_REGISTER_IMM` | 22h, 2N - 1, bit 19 CS MMIO | each pair written as "Register writes" below says |
//! | `MI_STORE_REGISTER_MEM` | 24h, 4 dwords, bit 22 GGTT, bit 19 CS MMIO (`MI_SRM_ADD_CS_OFFSET`) | stores the register's dword, read as "Register reads" below says |
//! | `MI_FLUSH_DW` | 26h, bits 5:0 = dwords - 2 (4 or 5), bits 15:14 post-sync op (1 = store), dw1 bit 2 use GTT | BCS/VCS/VECS only (seed 004 L621) |
//! | `MI_LOAD_REGISTER_REG` | 2Ah, 3 dwords: source, destination; bit 18 source, bit 19 destination CS MMIO | the source read as SRM reads, the destination written as LRI writes |
//! | `MI_BATCH_BUFFER_START` | 31h, 3 dwords, bit 8 PPGTT, bit 22 second level | GGTT batches; PPGTT is a page-table error |
//! | `PIPE_CONTROL` | `GFX_OP_PIPE_CONTROL(6)` = 0x7a000004, dw1 bit 24 global GTT, bit 21 store data index, bits 15:14 post-sync (1 = write immediate qword) | RCS/CCS only; flush/invalidate/stall flags (dw0 12:9, dw1) accepted with nothing to do; the write goes to the GGTT address, or with store data index to that offset of the context's PPHWSP (the LRCA's first page); post-sync LRI (bit 23) and ops 2-3 are not modelled |
//! | `3DSTATE_*` | `GFXPIPE_3D_CMD(0 or 1, sub)`: type 3, pipeline 3 (bits 28:27), opcode 0-1 (26:24), bits 7:0 = dwords - 2 | RCS only: taken with no effect (`[MODEL]`: no 3D pipeline; xe's default-LRC job emits the SVG state, `xe_lrc_emit_hwe_state_instructions`) |
//! | `XY_FAST_COPY_BLT` | `(2 << 29) \| (0x42 << 22)`, 10 dwords | BCS only: a linear copy (no tiling) |
//! | `XY_FAST_COLOR_BLT` | `(2 << 29) \| (0x44 << 22)`, 16 dwords (Xe_HP form) | BCS only: a linear 32-bit fill of local memory |
//! | `XY_CTRL_SURF_COPY_BLT` | `(2 << 29) \| (0x48 << 22)`, 5 dwords; bit 21 source, bit 20 destination access (1 direct, 0 indirect), bits 17:8 blocks - 1 | BCS only: copies blocks × 256 bytes between main memory and the flat-CCS metadata of local memory ("Flat-CCS copies" below) |
//!
//! Anything else, a length the command does not have, or a command on an
//! engine class that lacks it is an instruction error (EIR bit 0, IPEHR =
//! header, ACTHD = its address); an address that does not translate (or a
//! PPGTT address: the mock has no PPGTT) is a page-table error (EIR bit 4).
//! Either way the context halts (stays active, makes no progress) and the
//! engine raises its CS error interrupt; a reset recovers.
//!
//! Register reads (SRM, LRR's source): a register of the engine's window
//! the mock models (the table in [`super`]) reads its value; any other,
//! in the window or outside it, reads 0 and is recorded
//! (`engine_unmodelled_reg`, summary `engines.NAME.unmodelled_regs`), not
//! an error.
//!
//! Register writes (LRI, LRR's destination): commands run from the ring or a GGTT batch,
//! which the PRM makes privileged: they may write any register (seed 004
//! L1169; L1180 drops an LRI to a privileged register only in a
//! non-privileged batch). So: `RING_CONTEXT_CONTROL` (0x244, masked),
//! `RING_NOPID` (0x94) and `CS_GPR` (0x600-0x67f) of the engine's own
//! window are written; `RING_CTX_TIMESTAMP` (0x3a8) is taken with no
//! effect; a register the mock does not model, in the window or outside
//! it (GT registers, other engines'), is recorded (`engine_unmodelled_reg`)
//! and the write dropped, not an error (the command streamer has no path to the rest of the register
//! file). `[MODEL]`: any other register of the engine's window the mock
//! models (the ring, execlist, CSB, error and mode registers of the table
//! in [`super`]) is refused as an instruction error: the model cannot let
//! a command reprogram the engine that runs it. Every pair of an LRI is
//! checked before any is written. Non-privileged (PPGTT) batches and their
//! privileged-command rules (seed 004 L1167-1203) are not modelled: a PPGTT
//! batch faults before it runs.
//!
//! # Flat-CCS copies
//!
//! `XY_CTRL_SURF_COPY_BLT` (`instructions/xe_gpu_commands.h`; the pre-Xe2
//! branch of `xe_migrate.c` `emit_copy_ccs`; seed 004 gives only the
//! header types, L559-567, and no blitter command) moves compression
//! metadata ([`crate::ccs`]: one CCS byte per 256 bytes of local
//! memory). Layout accepted:
//!
//! - dw0: `XY_CTRL_SURF_COPY_BLT` = `(2 << 29) | (0x48 << 22) | 3`; bit 21
//!   source and bit 20 destination access type (`SRC_ACCESS_TYPE_SHIFT`,
//!   `DST_ACCESS_TYPE_SHIFT`: 1 direct, main memory read or written as
//!   bytes; 0 indirect, the CCS of that memory); bits 17:8 the number of
//!   256-byte CCS blocks - 1 (`CCS_SIZE_MASK`, `NUM_CCS_BYTES_PER_BLOCK`:
//!   1 to 1024 blocks, 256 B to 256 KiB of CCS, the CCS of 64 KiB to
//!   64 MiB of local memory); bits 7:0 the length, 3 (5 dwords);
//!   `[MODEL]` bits 19:18 must be 0;
//! - dw1 / dw2: source address bits 31:0 / 47:32 in bits 15:0, MOCS in
//!   bits 31:26 (`XY_CTRL_SURF_MOCS_MASK`, taken, no effect); `[MODEL]`
//!   bits 25:16 must be 0;
//! - dw3 / dw4: the destination, alike.
//!
//! Addresses are GGTT addresses, as for the other blits (the mock has no
//! PPGTT). With `N` = blocks × 256 CCS bytes, a direct side is `N` bytes
//! of memory at its address; an indirect side is the CCS of the `N` × 256
//! bytes of local memory from its address, translated page by page, so
//! CCS byte `i` of the copy is the CCS byte of GGTT address
//! `addr + 256 i`. Direct to indirect: main-memory byte `i` of the source
//! becomes CCS byte `i` of the destination (upstream's clear copies zeroed
//! memory there, `xe_migrate_clear`); indirect to direct: the reverse
//! (`xe_migrate_ccs_copy` saving a BO's CCS; a CCS byte never written
//! arrives as [`crate::ccs::UNKNOWN_READ`]); indirect to indirect: CCS to
//! CCS (`xe_migrate_ccs_copy` when both sides are in local memory: "copy
//! the CCS aux state as-is"). The whole source is read before anything is
//! written; every page of the destination is checked before any byte is
//! written. Refused as instruction errors: direct to direct (upstream
//! asserts `src_is_indirect || dst_is_indirect`, `xe_migrate_ccs_copy`;
//! `[MODEL]`: no source gives it a meaning), set reserved bits, and
//! (`[MODEL]`) an indirect address that is not 256-byte aligned (a CCS
//! byte covers an aligned 256 bytes; a direct address may be any) or an
//! indirect side on a page that is
//! not local memory (flat CCS covers local memory only: upstream makes a
//! side indirect exactly when it is in VRAM, `__xe_migrate_copy`). An
//! address that does not translate, or memory past local memory, is a
//! page-table error, nothing written. Counted `engines.NAME.ccs_copies`,
//! `ccs_bytes`, `ccs_cleared_bytes`; traced `engine_ccs_copy`.
//!
//! # The watchdog
//!
//! `PR_CTR_CTRL` (0x178) and `PR_CTR_THRSH` (0x17c) belong to the context
//! (seed 004 L1832-1833 list them in its image): an LRI of
//! `CTR_LOGIC_OP(START)` (0) starts its counter, `CTR_LOGIC_OP(STOP)` (1)
//! stops it (`xe_engine_regs.h`). Upstream's VF starts it with a threshold
//! of 2 before a semaphore wait that can never end, "an impossible condition
//! to always trigger an hardware interrupt that would force the GuC to reset
//! the engine", so that its golden context is recorded from a clean one
//! (`xe_ring_ops.c` `emit_fake_watchdog`, `xe_gt.c` `emit_wa_job`: "only VFs
//! need to trigger reset to get a clean NULL context";
//! `xe_sched_job_types.h`: the reset comes "before payload"). What the
//! firmware then does is not published; upstream then waits one second
//! for the job's own completion (`emit_job_sync`) and treats a context
//! reset notification for it as a hung kernel job (`xe_guc_submit.c`
//! `guc_exec_queue_timedout_job`: a GT reset, then the device wedged).
//! `[MODEL]`: a context whose started counter has a non-zero threshold and
//! which stops on an unsatisfied `MI_SEMAPHORE_WAIT` expires it at once;
//! under GuC submission the GuC resets the engine's state and resumes the
//! context after the wait, without a notification (traced
//! `engine_watchdog` `resumed`); under the host's execlists the engine
//! raises its vector's "Watchdog Expired" bit 6 (seed 000 L2280) and keeps
//! waiting (`raised`).

use super::reg;
use super::Engine;
use super::Io;
use super::Ring;
use super::SemWait;
use super::ERROR_INSTRUCTION;
use super::ERROR_PAGE_TABLE;
use super::IRQ_USER;
use super::RING_VALID;
use crate::regfile::intc::Class;
use crate::trace::Event;
use crate::trace::Hex;

/// An engine error kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// Unknown or malformed command, privilege violation (EIR bit 0).
    Instruction,
    /// GGTT address not mapped (EIR bit 4).
    PageTable,
}

impl ErrorKind {
    /// The EIR bit (i915 `i915_reg.h` `I915_ERROR_INSTRUCTION`,
    /// `I915_ERROR_PAGE_TABLE`).
    pub const fn bit(self) -> u32 {
        match self {
            ErrorKind::Instruction => ERROR_INSTRUCTION,
            ErrorKind::PageTable => ERROR_PAGE_TABLE,
        }
    }

    /// The trace name.
    pub const fn name(self) -> &'static str {
        match self {
            ErrorKind::Instruction => "instruction",
            ErrorKind::PageTable => "page_table",
        }
    }
}

/// What one step did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// A command executed.
    Done {
        /// It was `MI_USER_INTERRUPT`.
        user_interrupt: bool,
    },
    /// HEAD == TAIL in the ring: the context is complete.
    Empty,
    /// An unsatisfied semaphore wait.
    Wait,
    /// An error halted the context.
    Error,
}

/// MI opcodes (bits 28:23; seed 004 L583-636).
mod op {
    pub const NOOP: u32 = 0x00;
    pub const USER_INTERRUPT: u32 = 0x02;
    pub const ARB_CHECK: u32 = 0x05;
    pub const ARB_ON_OFF: u32 = 0x08;
    pub const BATCH_BUFFER_END: u32 = 0x0a;
    pub const MATH: u32 = 0x1a;
    pub const SEMAPHORE_WAIT: u32 = 0x1c;
    pub const STORE_DATA_IMM: u32 = 0x20;
    pub const LOAD_REGISTER_IMM: u32 = 0x22;
    pub const STORE_REGISTER_MEM: u32 = 0x24;
    pub const LOAD_REGISTER_REG: u32 = 0x2a;
    pub const FLUSH_DW: u32 = 0x26;
    pub const BATCH_BUFFER_START: u32 = 0x31;
}

/// `MI_SDI_GGTT`, `MI_SEMW_GGTT` (`xe_mi_commands.h`), i.e. "use global
/// GTT".
const MI_GGTT: u32 = 1 << 22;
/// `MI_SRM_ADD_CS_OFFSET` (`xe_mi_commands.h`): the register address is
/// relative to the engine's base, as `MI_LRI_LRM_CS_MMIO` for LRI.
const SRM_CS_MMIO: u32 = 1 << 19;
/// `MI_LRR_SRC_CS_MMIO` (`xe_mi_commands.h`): the source register is
/// engine-relative.
const LRR_SRC_CS_MMIO: u32 = 1 << 18;
/// `MI_LRR_DST_CS_MMIO` (`xe_mi_commands.h`): the destination register is
/// engine-relative.
const LRR_DST_CS_MMIO: u32 = 1 << 19;
/// `MI_SDI_LEN_DW` bits 9:0 (`xe_mi_commands.h`).
const SDI_LEN: u32 = 0x3ff;
/// `MI_FLUSH_DW_LEN_DW` bits 5:0 (`xe_mi_commands.h`).
const FLUSH_LEN: u32 = 0x3f;
/// `XE_INSTR_LEN_MASK` bits 7:0 (`xe_instr_defs.h`).
const LEN: u32 = 0xff;
/// `MI_FLUSH_DW_USE_GTT` in dword 1 (`xe_mi_commands.h`).
const FLUSH_USE_GTT: u32 = 1 << 2;
/// `MI_SEMAPHORE_REGISTER_POLL` (`xe_mi_commands.h`).
const SEM_REGISTER_POLL: u32 = 1 << 16;
/// `MI_BATCH_PPGTT_HSW` (i915 `intel_gpu_commands.h`): the batch is in the
/// PPGTT.
const BB_PPGTT: u32 = 1 << 8;
/// Second-level batch (seed004.md §10.3, i915 `MI_BATCH_BUFFER_START`
/// bit 22).
const BB_SECOND_LEVEL: u32 = 1 << 22;
/// `GFX_OP_PIPE_CONTROL(len)` without the length (`xe_gpu_commands.h`):
/// type 3, pipeline 3, opcode 2, sub-opcode 0.
const PIPE_CONTROL: u32 = (0x3 << 29) | (0x3 << 27) | (0x2 << 24);
/// `PIPE_CONTROL_GLOBAL_GTT_IVB` (`xe_gpu_commands.h`).
const PC_GLOBAL_GTT: u32 = 1 << 24;
/// `PIPE_CONTROL_LRI_POST_SYNC` (`xe_gpu_commands.h`).
const PC_LRI_POST_SYNC: u32 = 1 << 23;
/// `PIPE_CONTROL_STORE_DATA_INDEX` (`xe_gpu_commands.h`): the address is
/// an offset into the context's per-process HWSP (the name of the offsets
/// xe and i915 pair with it, `LRC_PPHWSP_FLUSH_INVAL_SCRATCH_ADDR` in
/// `xe_lrc.h`, `LRC_PPHWSP_SCRATCH_ADDR` in i915 `intel_lrc.h`), which is
/// the LRCA's first page (seed 004 L214-222).
const PC_STORE_DATA_INDEX: u32 = 1 << 21;
/// Size of the per-process HWSP (seed 004 L214: 4K).
const PPHWSP_SIZE: u32 = 4096;
/// The `3DSTATE_*` commands (`GFXPIPE_3D_CMD(0x0 or 0x1, sub)` in
/// `xe_gfxpipe_commands.h`): type 3 (`XE_INSTR_GFXPIPE`, seed 004 L559-567
/// "Engine Command"), pipeline 3D (bits 28:27 = 3), GFXPIPE opcode 0 or 1
/// (bits 26:24), any sub-opcode; matched under [`GFX_3DSTATE_MASK`].
const GFX_3DSTATE: u32 = (0x3 << 29) | (0x3 << 27);
/// Type, pipeline and opcode bits 26:25 (opcode 0 or 1 leaves them 0).
const GFX_3DSTATE_MASK: u32 = 0xfe00_0000;
/// `XY_FAST_COPY_BLT_CMD` (`xe_gpu_commands.h`).
const XY_FAST_COPY_BLT: u32 = (2 << 29) | (0x42 << 22);
/// Largest copy one `XY_FAST_COPY_BLT` may do in the model (`[MODEL]`).
const MAX_BLT_BYTES: u64 = 64 << 20;
/// `XY_FAST_COLOR_BLT_CMD` (`xe_gpu_commands.h`; type 2 is an engine
/// command, seed 004 L559-567).
const XY_FAST_COLOR_BLT: u32 = (2 << 29) | (0x44 << 22);
/// Its length before Xe2 on graphics 12.50 and later, DG2 included
/// (`blt_fast_color_cmd_len`, `xe_migrate.c`).
const COLOR_BLT_DWORDS: u32 = 16;
/// `XY_FAST_COLOR_BLT_DEPTH_32` (dw0 bits 21:19 = 2).
const COLOR_DEPTH_32: u32 = 2 << 19;
/// The colour depth field, dw0 bits 21:19.
const COLOR_DEPTH_MASK: u32 = 7 << 19;
/// `XY_FAST_COLOR_BLT_MOCS_MASK` (dw1 bits 27:22); below it the pitch - 1
/// (bits 17:0, as wide as `emit_clear_main_copy` writes up to 256 KiB).
const COLOR_PITCH_MASK: u32 = (1 << 18) - 1;
/// `XY_FAST_COLOR_BLT_MEM_TYPE_SHIFT`: dw6 bit 31, 0 = local memory.
const COLOR_MEM_SYSTEM: u32 = 1 << 31;
/// Largest fill one `XY_FAST_COLOR_BLT` may do in the model (`[MODEL]`;
/// the rectangle's fields allow 65535 rows of 256 KiB).
const MAX_FILL_BYTES: u64 = 1 << 30;
/// `XY_CTRL_SURF_COPY_BLT` without its length (`xe_gpu_commands.h`).
const XY_CTRL_SURF_COPY_BLT: u32 = (2 << 29) | (0x48 << 22);
/// Its length: 5 dwords (the `| 3` of the upstream define).
const CTRL_SURF_DWORDS: u32 = 5;
/// `1 << SRC_ACCESS_TYPE_SHIFT`: the source is accessed directly.
const CCS_SRC_DIRECT: u32 = 1 << 21;
/// `1 << DST_ACCESS_TYPE_SHIFT`: the destination is accessed directly.
const CCS_DST_DIRECT: u32 = 1 << 20;
/// `CCS_SIZE_MASK`, bits 17:8: blocks - 1.
const CCS_SIZE_MASK: u32 = 0x3ff << 8;
/// dw0 bits 19:18, between the access types and the size (`[MODEL]`
/// reserved, must be 0).
const CTRL_SURF_RESERVED: u32 = 3 << 18;
/// Address bits 47:32 in dw2 and dw4.
const CTRL_SURF_ADDR_HI: u32 = 0xffff;
/// `XY_CTRL_SURF_MOCS_MASK`, bits 31:26 of dw2 and dw4.
const CTRL_SURF_MOCS: u32 = 0x3f << 26;
/// `NUM_CCS_BYTES_PER_BLOCK`.
const CCS_BLOCK: u64 = 256;

/// Checks restored ring registers; `Some((0, why))` if they cannot run.
pub fn check_ring(r: &Ring) -> Option<(u32, String)> {
    if r.ctl & RING_VALID == 0 {
        return Some((
            0,
            format!("RING_CTL {:#x} does not have RING_VALID (bit 0)", r.ctl),
        ));
    }
    let size = r.size();
    if r.head >= size || r.tail >= size {
        return Some((
            0,
            format!(
                "RING_HEAD {:#x} or RING_TAIL {:#x} beyond the ring's {size:#x} bytes",
                r.head, r.tail
            ),
        ));
    }
    None
}

/// Total dwords of the command with header `hdr` on an engine of `class`,
/// or why it is not a command the engine executes.
fn length(hdr: u32, class: Class) -> Result<u32, String> {
    let kind = hdr >> 29;
    let render = matches!(class, Class::Render | Class::Compute);
    if kind == 0 {
        let n = match (hdr >> 23) & 0x3f {
            op::NOOP
            | op::USER_INTERRUPT
            | op::ARB_CHECK
            | op::ARB_ON_OFF
            | op::BATCH_BUFFER_END => 1,
            op::MATH => (hdr & LEN) + 2,
            op::SEMAPHORE_WAIT => (hdr & LEN) + 2,
            op::STORE_DATA_IMM => (hdr & SDI_LEN) + 2,
            op::LOAD_REGISTER_IMM => (hdr & LEN) + 2,
            op::STORE_REGISTER_MEM => (hdr & LEN) + 2,
            op::LOAD_REGISTER_REG => (hdr & LEN) + 2,
            op::FLUSH_DW if render => return Err("MI_FLUSH_DW on a render/compute engine".into()),
            op::FLUSH_DW => (hdr & FLUSH_LEN) + 2,
            op::BATCH_BUFFER_START => (hdr & LEN) + 2,
            o => return Err(format!("MI opcode {o:#x} is not modelled")),
        };
        return Ok(n);
    }
    if hdr & 0xffff_0000 == PIPE_CONTROL {
        if !render {
            return Err("PIPE_CONTROL on a copy/video engine".into());
        }
        return Ok((hdr & LEN) + 2);
    }
    if hdr & GFX_3DSTATE_MASK == GFX_3DSTATE {
        if class != Class::Render {
            return Err("3DSTATE command on an engine without the 3D pipeline".into());
        }
        // Bits 7:0 = dwords - 2 (`xe_lrc_emit_hwe_state_instructions`).
        return Ok((hdr & LEN) + 2);
    }
    if hdr & 0xffc0_0000 == XY_FAST_COPY_BLT {
        if class != Class::Copy {
            return Err("XY_FAST_COPY_BLT on an engine other than the blitter".into());
        }
        return Ok((hdr & LEN) + 2);
    }
    if hdr & 0xffc0_0000 == XY_FAST_COLOR_BLT {
        if class != Class::Copy {
            return Err("XY_FAST_COLOR_BLT on an engine other than the blitter".into());
        }
        return Ok((hdr & LEN) + 2);
    }
    if hdr & 0xffc0_0000 == XY_CTRL_SURF_COPY_BLT {
        if class != Class::Copy {
            return Err("XY_CTRL_SURF_COPY_BLT on an engine other than the blitter".into());
        }
        return Ok((hdr & LEN) + 2);
    }
    Err(format!("header {hdr:#010x} is not a modelled command"))
}

/// An error of a step: kind and what.
type Fail = (ErrorKind, String);

fn malformed(what: &str, n: u32) -> Fail {
    (ErrorKind::Instruction, format!("{what} with {n} dwords"))
}

fn addr64(lo: u32, hi: u32) -> u64 {
    u64::from(lo) | u64::from(hi) << 32
}

/// Executes one command of `e`'s active context.
pub fn step(e: &mut Engine, io: &mut Io<'_>) -> Step {
    let Some(c) = e.active.as_ref() else {
        return Step::Empty;
    };
    let in_batch = !c.batch.is_empty();
    if !in_batch && c.ring.head == c.ring.tail {
        return Step::Empty;
    }
    let at = fetch_addr(e, 0);
    e.acthd = u32::try_from(at).unwrap_or(u32::MAX);
    let hdr = match io.read_u32(at, "command fetch") {
        Ok(h) => h,
        Err(f) => return fail(e, io, 0, at, (ErrorKind::PageTable, f.to_string())),
    };
    let n = match length(hdr, e.def.src.class) {
        Ok(n) => n,
        Err(why) => return fail(e, io, hdr, at, (ErrorKind::Instruction, why)),
    };
    let mut dw = vec![hdr];
    for i in 1..n {
        match io.read_u32(fetch_addr(e, i), "command fetch") {
            Ok(v) => dw.push(v),
            Err(f) => return fail(e, io, hdr, at, (ErrorKind::PageTable, f.to_string())),
        }
    }
    match execute(e, io, &dw) {
        Ok(Flow::Next { user_interrupt }) => {
            advance(e, n);
            Step::Done { user_interrupt }
        }
        Ok(Flow::Jumped) => Step::Done {
            user_interrupt: false,
        },
        Ok(Flow::Wait) => Step::Wait,
        Err(f) => fail(e, io, hdr, at, f),
    }
}

fn fail(e: &mut Engine, io: &mut Io<'_>, hdr: u32, at: u64, (kind, why): Fail) -> Step {
    e.error(kind, hdr, at, why, io);
    Step::Error
}

/// GGTT address of dword `i` of the command at the fetch position.
fn fetch_addr(e: &Engine, i: u32) -> u64 {
    let Some(c) = e.active.as_ref() else {
        return 0;
    };
    if let Some(&b) = c.batch.last() {
        return b + 4 * u64::from(i);
    }
    let size = c.ring.size();
    u64::from(c.ring.start) + u64::from((c.ring.head + 4 * i) % size)
}

/// Moves the fetch position past `n` dwords.
fn advance(e: &mut Engine, n: u32) {
    let Some(c) = e.active.as_mut() else {
        return;
    };
    if let Some(b) = c.batch.last_mut() {
        *b += 4 * u64::from(n);
        return;
    }
    let size = c.ring.size();
    c.ring.head = (c.ring.head + 4 * n) % size;
}

/// What follows a command.
enum Flow {
    /// The next command.
    Next { user_interrupt: bool },
    /// The fetch position was set by the command.
    Jumped,
    /// Blocked; the same command runs again later.
    Wait,
}

const NEXT: Flow = Flow::Next {
    user_interrupt: false,
};

fn execute(e: &mut Engine, io: &mut Io<'_>, dw: &[u32]) -> Result<Flow, Fail> {
    let hdr = dw[0];
    // CAST: at most 2^10 + 1.
    let n = dw.len() as u32;
    if hdr >> 29 != 0 {
        return if hdr & 0xffff_0000 == PIPE_CONTROL {
            pipe_control(e, io, dw).map(|()| NEXT)
        } else if hdr & GFX_3DSTATE_MASK == GFX_3DSTATE {
            // [MODEL] The mock has no 3D pipeline: its state is taken and
            // has no effect.
            Ok(NEXT)
        } else if hdr & 0xffc0_0000 == XY_FAST_COLOR_BLT {
            fast_color(e, io, dw).map(|()| NEXT)
        } else if hdr & 0xffc0_0000 == XY_CTRL_SURF_COPY_BLT {
            ctrl_surf_copy(e, io, dw).map(|()| NEXT)
        } else {
            fast_copy(io, dw).map(|()| NEXT)
        };
    }
    match (hdr >> 23) & 0x3f {
        op::NOOP | op::ARB_CHECK => Ok(NEXT),
        op::USER_INTERRUPT => {
            e.irq(io, IRQ_USER);
            Ok(Flow::Next {
                user_interrupt: true,
            })
        }
        op::ARB_ON_OFF => {
            if let Some(c) = e.active.as_mut() {
                c.arb = hdr & 1 != 0;
            }
            Ok(NEXT)
        }
        op::BATCH_BUFFER_END => {
            let Some(c) = e.active.as_mut() else {
                return Ok(NEXT);
            };
            if c.batch.pop().is_none() {
                return Err((
                    ErrorKind::Instruction,
                    "MI_BATCH_BUFFER_END in the ring itself".into(),
                ));
            }
            Ok(Flow::Jumped)
        }
        op::STORE_DATA_IMM => {
            if n != 4 && n != 5 {
                return Err(malformed("MI_STORE_DATA_IMM", n));
            }
            ggtt_only(hdr & MI_GGTT != 0, "MI_STORE_DATA_IMM")?;
            if dw[1] & 3 != 0 {
                return Err((
                    ErrorKind::Instruction,
                    format!(
                        "MI_STORE_DATA_IMM address {:#x} is not dword aligned",
                        dw[1]
                    ),
                ));
            }
            let bytes: Vec<u8> = dw[3..].iter().flat_map(|d| d.to_le_bytes()).collect();
            store(io, addr64(dw[1], dw[2]), &bytes, "MI_STORE_DATA_IMM")?;
            Ok(NEXT)
        }
        op::LOAD_REGISTER_IMM => {
            lri(e, io, dw)?;
            Ok(NEXT)
        }
        op::STORE_REGISTER_MEM => {
            srm(e, io, dw)?;
            Ok(NEXT)
        }
        op::LOAD_REGISTER_REG => {
            lrr(e, io, dw)?;
            Ok(NEXT)
        }
        op::FLUSH_DW => {
            if n != 4 && n != 5 {
                return Err(malformed("MI_FLUSH_DW", n));
            }
            match (hdr >> 14) & 3 {
                0 => Ok(NEXT),
                1 => {
                    ggtt_only(dw[1] & FLUSH_USE_GTT != 0, "MI_FLUSH_DW")?;
                    let bytes: Vec<u8> = dw[3..].iter().flat_map(|d| d.to_le_bytes()).collect();
                    store(io, addr64(dw[1] & !7, dw[2]), &bytes, "MI_FLUSH_DW")?;
                    Ok(NEXT)
                }
                o => Err((
                    ErrorKind::Instruction,
                    format!("MI_FLUSH_DW post-sync operation {o} is not modelled"),
                )),
            }
        }
        op::SEMAPHORE_WAIT => semaphore(e, io, dw),
        op::MATH => {
            math(e, dw)?;
            Ok(NEXT)
        }
        op::BATCH_BUFFER_START => {
            if n != 3 {
                return Err(malformed("MI_BATCH_BUFFER_START", n));
            }
            if hdr & BB_PPGTT != 0 {
                return Err((
                    ErrorKind::PageTable,
                    "MI_BATCH_BUFFER_START of a PPGTT batch: the mock has no PPGTT".into(),
                ));
            }
            let target = addr64(dw[1] & !3, dw[2] & 0xffff);
            advance(e, n);
            let Some(c) = e.active.as_mut() else {
                return Ok(Flow::Jumped);
            };
            if c.batch.is_empty() || hdr & BB_SECOND_LEVEL != 0 {
                if c.batch.len() >= 2 {
                    return Err((
                        ErrorKind::Instruction,
                        "MI_BATCH_BUFFER_START: a third batch level".into(),
                    ));
                }
                c.batch.push(target);
            } else if let Some(top) = c.batch.last_mut() {
                // Chained: replaces the current level.
                *top = target;
            }
            Ok(Flow::Jumped)
        }
        _ => Err((ErrorKind::Instruction, format!("{hdr:#010x}"))),
    }
}

/// A GGTT-only rule: without the GGTT bit the address is a PPGTT one,
/// which the mock does not have.
fn ggtt_only(ggtt: bool, what: &str) -> Result<(), Fail> {
    if ggtt {
        Ok(())
    } else {
        Err((
            ErrorKind::PageTable,
            format!("{what} to a PPGTT address: the mock has no PPGTT"),
        ))
    }
}

fn store(io: &mut Io<'_>, addr: u64, bytes: &[u8], what: &str) -> Result<(), Fail> {
    io.write(addr, bytes, what)
        .map_err(|f| (ErrorKind::PageTable, f.to_string()))
}

/// Where a command's register write goes (module docs, "Register
/// writes").
enum RegWrite {
    /// A register of the engine's window a command may write.
    Engine(u32),
    /// A storage register of the window (written as the host writes it).
    Storage(u32),
    /// A register the mock does not model: recorded and dropped.
    Unmodelled,
}

/// Classifies a command's write of register `addr` (`cs_mmio`: the
/// command's CS-MMIO bit); `Err` for a modelled engine register outside
/// the allow-list (`[MODEL]`, module docs).
fn reg_write_target(e: &Engine, command: &str, addr: u32, cs_mmio: bool) -> Result<RegWrite, Fail> {
    match super::lrc::relative_to(e.def.base, cs_mmio, addr) {
        Some(
            r @ (reg::RING_CONTEXT_CONTROL
            | reg::RING_NOPID
            | reg::RING_CTX_TIMESTAMP
            | reg::PR_CTR_CTRL
            | reg::PR_CTR_THRSH),
        ) => Ok(RegWrite::Engine(r)),
        Some(r) if (reg::CS_GPR..reg::CS_GPR_END).contains(&r) => Ok(RegWrite::Engine(r)),
        Some(r) if e.is_storage(r) => Ok(RegWrite::Storage(r)),
        Some(r) if super::reg_name(r).is_some() => Err((
            ErrorKind::Instruction,
            format!(
                "{command} to {addr:#x} ({}): the mock does not let a command reprogram this \
                 engine's own ring, execlist or error registers",
                super::reg_name(r).unwrap_or("?")
            ),
        )),
        _ => Ok(RegWrite::Unmodelled),
    }
}

/// Writes `value` to a register [`reg_write_target`] accepted.
fn reg_write(
    e: &mut Engine,
    io: &mut Io<'_>,
    command: &'static str,
    (addr, cs_mmio): (u32, bool),
    target: RegWrite,
    value: u32,
) {
    match target {
        RegWrite::Engine(reg::RING_CONTEXT_CONTROL) => {
            if let Some(c) = e.active.as_mut() {
                c.context_control = super::masked(c.context_control, value);
            }
        }
        RegWrite::Engine(reg::RING_NOPID) => e.nopid = value,
        // [MODEL] No context time is kept (the register reads 0).
        RegWrite::Engine(reg::RING_CTX_TIMESTAMP) => {}
        RegWrite::Engine(reg::PR_CTR_CTRL) => {
            if let Some(c) = e.active.as_mut() {
                // CTR_LOGIC_OP_MASK, bits 30:0: START 0, STOP 1.
                match value & 0x7fff_ffff {
                    0 => c.watchdog.started = true,
                    1 => c.watchdog.started = false,
                    _ => {}
                }
            }
        }
        RegWrite::Engine(reg::PR_CTR_THRSH) => {
            if let Some(c) = e.active.as_mut() {
                c.watchdog.threshold = value;
            }
        }
        RegWrite::Engine(r) => e.gpr[super::dw_index(r, reg::CS_GPR)] = value,
        RegWrite::Storage(r) => e.write_storage(r, value),
        RegWrite::Unmodelled => unmodelled(e, io, command, "write", addr, cs_mmio, value),
    }
}

/// `MI_LOAD_REGISTER_IMM`: every register is checked before any is
/// written (module docs, "Register writes").
fn lri(e: &mut Engine, io: &mut Io<'_>, dw: &[u32]) -> Result<(), Fail> {
    const WHAT: &str = "MI_LOAD_REGISTER_IMM";
    let hdr = dw[0];
    let cs_mmio = hdr & super::lrc::LRI_CS_MMIO != 0;
    let pairs = &dw[1..];
    if pairs.is_empty() || !pairs.len().is_multiple_of(2) {
        // CAST: small.
        return Err(malformed(WHAT, dw.len() as u32));
    }
    let mut writes = Vec::new();
    for p in pairs.chunks_exact(2) {
        writes.push((p[0], reg_write_target(e, WHAT, p[0], cs_mmio)?, p[1]));
    }
    for (addr, target, v) in writes {
        reg_write(e, io, WHAT, (addr, cs_mmio), target, v);
    }
    Ok(())
}

/// The value of register `addr` for `command` (`cs_mmio`: the command's
/// CS-MMIO bit): a register of the engine's window the mock models reads
/// its value; any other reads 0 and is recorded (module docs).
fn reg_read(e: &Engine, io: &mut Io<'_>, command: &'static str, addr: u32, cs_mmio: bool) -> u32 {
    if let Some(v) = super::lrc::relative_to(e.def.base, cs_mmio, addr).and_then(|r| e.read(r)) {
        return v;
    }
    unmodelled(e, io, command, "read", addr, cs_mmio, 0);
    0
}

/// Records a command's access to a register the mock does not model.
fn unmodelled(
    e: &Engine,
    io: &mut Io<'_>,
    command: &'static str,
    op: &'static str,
    addr: u32,
    cs_mmio: bool,
    value: u32,
) {
    io.rec.emit(Event::EngineUnmodelledReg {
        engine: e.def.name,
        command,
        op,
        offset: Hex(super::lrc::absolute(e.def.base, cs_mmio, addr).into()),
        value: Hex(value.into()),
    });
}

/// `MI_STORE_REGISTER_MEM` (`xe_mi_commands.h`: 4 dwords; dw1 the
/// register, dw2-3 the address; bit 22 GGTT, bit 19 CS-MMIO relative).
fn srm(e: &Engine, io: &mut Io<'_>, dw: &[u32]) -> Result<(), Fail> {
    const WHAT: &str = "MI_STORE_REGISTER_MEM";
    let hdr = dw[0];
    // CAST: small.
    let n = dw.len() as u32;
    if n != 4 {
        return Err(malformed(WHAT, n));
    }
    ggtt_only(hdr & MI_GGTT != 0, WHAT)?;
    if dw[2] & 3 != 0 {
        return Err((
            ErrorKind::Instruction,
            format!("{WHAT} address {:#x} is not dword aligned", dw[2]),
        ));
    }
    let v = reg_read(e, io, WHAT, dw[1], hdr & SRM_CS_MMIO != 0);
    store(io, addr64(dw[2], dw[3]), &v.to_le_bytes(), WHAT)
}

/// `MI_LOAD_REGISTER_REG` (`xe_mi_commands.h`: 3 dwords; dw1 the source
/// register, dw2 the destination, as xe's `emit_wa_job` and i915's
/// `intel_gpu_commands.h` users write them; bit 18 source and bit 19
/// destination CS-MMIO relative). The source reads as SRM's does, the
/// destination is written as LRI's is (module docs).
fn lrr(e: &mut Engine, io: &mut Io<'_>, dw: &[u32]) -> Result<(), Fail> {
    const WHAT: &str = "MI_LOAD_REGISTER_REG";
    let hdr = dw[0];
    // CAST: small.
    let n = dw.len() as u32;
    if n != 3 {
        return Err(malformed(WHAT, n));
    }
    let dst_cs = hdr & LRR_DST_CS_MMIO != 0;
    let target = reg_write_target(e, WHAT, dw[2], dst_cs)?;
    let v = reg_read(e, io, WHAT, dw[1], hdr & LRR_SRC_CS_MMIO != 0);
    reg_write(e, io, WHAT, (dw[2], dst_cs), target, v);
    Ok(())
}

/// An ALU operand (seed 004 "Table for Register Encodings", L941-964).
mod alu {
    /// `SRCA`.
    pub const SRCA: u32 = 0x20;
    /// `SRCB`.
    pub const SRCB: u32 = 0x21;
    /// `ACCU`.
    pub const ACCU: u32 = 0x31;
    /// `ZF`.
    pub const ZF: u32 = 0x32;
    /// `CF`.
    pub const CF: u32 = 0x33;
}

/// One decoded ALU instruction (seed 004 L789-794: opcode bits 31:20,
/// operand 1 19:10, operand 2 9:0; opcode encodings L903-937).
#[derive(Clone, Copy)]
enum AluOp {
    /// `NOOP`, `FENCE_RD`, `FENCE_WR` (0x000-0x002): nothing to wait for.
    Nop,
    /// `LOAD` / `LOADINV` (0x080 / 0x480): SRCA or SRCB (`b`: SRCB) from
    /// GPR `r`, inverted with `inv`.
    Load { b: bool, r: usize, inv: bool },
    /// `LOAD0` / `LOAD1` (0x081 / 0x481): all zeros or all ones (L840).
    LoadConst { b: bool, ones: bool },
    /// `ADD` .. `SAR` (0x100-0x107).
    Arith(u32),
    /// `STORE` / `STOREINV` (0x180 / 0x580): GPR `r` from ACCU, ZF or CF.
    Store { r: usize, src: u32, inv: bool },
}

fn decode_alu(i: u32) -> Option<AluOp> {
    let (opc, op1, op2) = (i >> 20, (i >> 10) & 0x3ff, i & 0x3ff);
    let gpr = |o: u32| (o < 16).then_some(o as usize);
    let src = |o: u32| match o {
        alu::SRCA => Some(false),
        alu::SRCB => Some(true),
        _ => None,
    };
    Some(match opc {
        0x000..=0x002 => AluOp::Nop,
        0x080 | 0x480 => AluOp::Load {
            b: src(op1)?,
            r: gpr(op2)?,
            inv: opc == 0x480,
        },
        0x081 | 0x481 => AluOp::LoadConst {
            b: src(op1)?,
            ones: opc == 0x481,
        },
        0x100..=0x107 => AluOp::Arith(opc),
        0x180 | 0x580 if matches!(op2, alu::ACCU | alu::ZF | alu::CF) => AluOp::Store {
            r: gpr(op1)?,
            src: op2,
            inv: opc == 0x580,
        },
        _ => return None,
    })
}

/// The shift a shift instruction makes for SRCB = `b`: 1, 2, 4, 8, 16 or
/// 32, the next lower one of those for any other value, 0 for 0 (seed 004
/// L828).
fn shift_amount(b: u64) -> u32 {
    match b {
        0 => 0,
        1 => 1,
        2..=3 => 2,
        4..=7 => 4,
        8..=15 => 8,
        16..=31 => 16,
        _ => 32,
    }
}

/// `MI_MATH` (opcode 1Ah, seed 004 L606; `MI_MATH(n)` in
/// `xe_mi_commands.h`: n ALU instructions after the header): the CS ALU
/// over the 64-bit GPRs R0-R15 (`CS_GPR`, dwords 2n and 2n + 1; seed 004
/// L771). Every instruction is decoded before any runs. `[MODEL]`: SRCA,
/// SRCB, ACCU and the flags start at 0 for each `MI_MATH` (they have no
/// MMIO address, seed 004 L747 and L838, so only a later `MI_MATH` could
/// tell);
/// CF is the carry of ADD and the borrow of SUB, 0 after the logic and
/// shift operations; `LOADIND` / `STOREIND` (memory through ACCU) are not
/// modelled.
fn math(e: &mut Engine, dw: &[u32]) -> Result<(), Fail> {
    let mut ops = Vec::with_capacity(dw.len() - 1);
    for &i in &dw[1..] {
        let Some(op) = decode_alu(i) else {
            return Err((
                ErrorKind::Instruction,
                format!("MI_MATH ALU instruction {i:#010x} is not modelled"),
            ));
        };
        ops.push(op);
    }
    let (mut srca, mut srcb, mut accu, mut zf, mut cf) = (0u64, 0u64, 0u64, false, false);
    for op in ops {
        match op {
            AluOp::Nop => {}
            AluOp::Load { b, r, inv } => {
                let v = u64::from(e.gpr[2 * r]) | u64::from(e.gpr[2 * r + 1]) << 32;
                let v = if inv { !v } else { v };
                if b {
                    srcb = v;
                } else {
                    srca = v;
                }
            }
            AluOp::LoadConst { b, ones } => {
                let v = if ones { u64::MAX } else { 0 };
                if b {
                    srcb = v;
                } else {
                    srca = v;
                }
            }
            AluOp::Arith(opc) => {
                let (v, c) = match opc {
                    0x100 => srca.overflowing_add(srcb),
                    0x101 => srca.overflowing_sub(srcb),
                    0x102 => (srca & srcb, false),
                    0x103 => (srca | srcb, false),
                    0x104 => (srca ^ srcb, false),
                    0x105 => (srca << shift_amount(srcb), false),
                    0x106 => (srca >> shift_amount(srcb), false),
                    // CAST: an arithmetic shift of the same bits.
                    _ => (((srca as i64) >> shift_amount(srcb)) as u64, false),
                };
                accu = v;
                cf = c;
                zf = v == 0;
            }
            AluOp::Store { r, src, inv } => {
                let v = match src {
                    alu::ACCU => accu,
                    alu::ZF => u64::from(zf).wrapping_neg(),
                    _ => u64::from(cf).wrapping_neg(),
                };
                let v = if inv { !v } else { v };
                // CAST: the two halves.
                e.gpr[2 * r] = v as u32;
                e.gpr[2 * r + 1] = (v >> 32) as u32;
            }
        }
    }
    Ok(())
}

/// `MI_SEMAPHORE_WAIT` (compare ops i915 `intel_gpu_commands.h`
/// `MI_SEMAPHORE_SAD_*_SDD`: 0 >, 1 >=, 2 <, 3 <=, 4 ==, 5 !=; the memory
/// value is on the left).
fn semaphore(e: &mut Engine, io: &mut Io<'_>, dw: &[u32]) -> Result<Flow, Fail> {
    let hdr = dw[0];
    // CAST: small.
    let n = dw.len() as u32;
    if n != 4 && n != 5 {
        return Err(malformed("MI_SEMAPHORE_WAIT", n));
    }
    if hdr & SEM_REGISTER_POLL != 0 {
        return Err((
            ErrorKind::Instruction,
            "MI_SEMAPHORE_WAIT register poll is not modelled".into(),
        ));
    }
    ggtt_only(hdr & MI_GGTT != 0, "MI_SEMAPHORE_WAIT")?;
    let w = SemWait {
        addr: addr64(dw[2] & !3, dw[3]),
        data: dw[1],
        op: (hdr >> 12) & 7,
    };
    if w.op > 5 {
        return Err((
            ErrorKind::Instruction,
            format!("MI_SEMAPHORE_WAIT compare operation {}", w.op),
        ));
    }
    let v = io
        .read_u32(w.addr, "MI_SEMAPHORE_WAIT")
        .map_err(|f| (ErrorKind::PageTable, f.to_string()))?;
    let ok = match w.op {
        0 => v > w.data,
        1 => v >= w.data,
        2 => v < w.data,
        3 => v <= w.data,
        4 => v == w.data,
        _ => v != w.data,
    };
    let guc = e.submitter() == super::Submitter::Guc;
    let Some(c) = e.active.as_mut() else {
        return Ok(NEXT);
    };
    if ok {
        c.wait = None;
        return Ok(NEXT);
    }
    let wd = c.watchdog;
    if !(wd.started && wd.threshold != 0) {
        c.wait = Some(w);
        return Ok(Flow::Wait);
    }
    // The watchdog expires (module docs, "The watchdog").
    let (func, ctx) = (c.el.func, c.el.ctx_id());
    c.watchdog.started = !guc;
    io.rec.emit(Event::EngineWatchdog {
        engine: e.def.name,
        vf: func,
        ctx: Hex(ctx.into()),
        threshold: wd.threshold,
        outcome: if guc { "resumed" } else { "raised" },
    });
    if guc {
        c.wait = None;
        Ok(NEXT)
    } else {
        c.wait = Some(w);
        e.irq(io, super::IRQ_WATCHDOG);
        Ok(Flow::Wait)
    }
}

/// `PIPE_CONTROL` with its post-sync operation. Its flush, invalidate
/// and stall flags (dw0 bits 12:9, dw1) have nothing to act on in the
/// model (no caches, commands execute whole) and are accepted as they are.
fn pipe_control(e: &Engine, io: &mut Io<'_>, dw: &[u32]) -> Result<(), Fail> {
    // CAST: small.
    let n = dw.len() as u32;
    if n != 6 {
        return Err(malformed("PIPE_CONTROL", n));
    }
    let flags = dw[1];
    if flags & PC_LRI_POST_SYNC != 0 {
        return Err((
            ErrorKind::Instruction,
            "PIPE_CONTROL post-sync LRI is not modelled".into(),
        ));
    }
    match (flags >> 14) & 3 {
        0 => Ok(()),
        1 => {
            let bytes: Vec<u8> = dw[4..6].iter().flat_map(|d| d.to_le_bytes()).collect();
            let addr = if flags & PC_STORE_DATA_INDEX != 0 {
                let off = dw[2] & !7;
                if off + 8 > PPHWSP_SIZE {
                    return Err((
                        ErrorKind::Instruction,
                        format!("PIPE_CONTROL store data index {off:#x} beyond the PPHWSP"),
                    ));
                }
                let lrca = e.active.as_ref().map_or(0, |c| c.el.lrca());
                u64::from(lrca) + u64::from(off)
            } else {
                ggtt_only(flags & PC_GLOBAL_GTT != 0, "PIPE_CONTROL post-sync write")?;
                addr64(dw[2] & !7, dw[3])
            };
            store(io, addr, &bytes, "PIPE_CONTROL")
        }
        o => Err((
            ErrorKind::Instruction,
            format!("PIPE_CONTROL post-sync operation {o} is not modelled"),
        )),
    }
}

/// `XY_FAST_COPY_BLT` (layout as i915 `emit_copy` / xe `emit_copy` use
/// it): dw1 bits 31/30 tile-4 flags, 26:24 color depth (0 8 bpp, 1 and 2
/// 16 bpp, 3 32 bpp: i915 `BLT_DEPTH_*`), 15:0 destination pitch; dw2/dw3
/// destination y1:x1 / y2:x2 (exclusive), dw4-5 destination address; dw6
/// source y1:x1; dw7 source pitch; dw8-9 source address.
fn fast_copy(io: &mut Io<'_>, dw: &[u32]) -> Result<(), Fail> {
    // CAST: small.
    let n = dw.len() as u32;
    if n != 10 {
        return Err(malformed("XY_FAST_COPY_BLT", n));
    }
    if dw[1] & 0xc000_0000 != 0 {
        return Err((
            ErrorKind::Instruction,
            "XY_FAST_COPY_BLT with a tiled surface is not modelled".into(),
        ));
    }
    let bpp: u64 = match (dw[1] >> 24) & 7 {
        0 => 1,
        1 | 2 => 2,
        3 => 4,
        d => {
            return Err((
                ErrorKind::Instruction,
                format!("XY_FAST_COPY_BLT color depth {d}"),
            ))
        }
    };
    let dpitch = u64::from(dw[1] & 0xffff);
    let spitch = u64::from(dw[7] & 0xffff);
    let (dx1, dy1) = (u64::from(dw[2] & 0xffff), u64::from(dw[2] >> 16));
    let (dx2, dy2) = (u64::from(dw[3] & 0xffff), u64::from(dw[3] >> 16));
    let (sx1, sy1) = (u64::from(dw[6] & 0xffff), u64::from(dw[6] >> 16));
    let dst = addr64(dw[4], dw[5]);
    let src = addr64(dw[8], dw[9]);
    if dx2 < dx1 || dy2 < dy1 {
        return Err((
            ErrorKind::Instruction,
            "XY_FAST_COPY_BLT with an inverted rectangle".into(),
        ));
    }
    let row = (dx2 - dx1) * bpp;
    if row * (dy2 - dy1) > MAX_BLT_BYTES {
        return Err((
            ErrorKind::Instruction,
            format!("XY_FAST_COPY_BLT of more than {MAX_BLT_BYTES} bytes"),
        ));
    }
    // CAST: row <= MAX_BLT_BYTES.
    let mut buf = vec![0u8; row as usize];
    for y in 0..dy2 - dy1 {
        let s = src + (sy1 + y) * spitch + sx1 * bpp;
        let d = dst + (dy1 + y) * dpitch + dx1 * bpp;
        io.read(s, &mut buf, "XY_FAST_COPY_BLT source")
            .map_err(|f| (ErrorKind::PageTable, f.to_string()))?;
        store(io, d, &buf, "XY_FAST_COPY_BLT destination")?;
    }
    Ok(())
}

/// `XY_FAST_COLOR_BLT` in the Xe_HP form upstream emits to clear local
/// memory (`emit_clear_main_copy`, `xe_migrate.c`, graphics 12.50 to 12.x;
/// fields `instructions/xe_gpu_commands.h`): dw0 depth bits 21:19 (only
/// 32 bpp modelled), dw1 MOCS 27:22 and pitch - 1 in 17:0, dw2 y1:x1, dw3
/// y2:x2 (exclusive), dw4-5 destination GGTT address, dw6 bit 31 memory
/// type (0 local), dw7 the fill value, dw8-15 the other colour dwords and
/// compression fields, which a 32-bit linear fill leaves zero. The seed
/// documents no blitter command (seed 004 lists only the header types,
/// L559-567), so everything else is refused as not modelled.
fn fast_color(e: &Engine, io: &mut Io<'_>, dw: &[u32]) -> Result<(), Fail> {
    // CAST: small.
    let n = dw.len() as u32;
    if n != COLOR_BLT_DWORDS {
        return Err(malformed("XY_FAST_COLOR_BLT", n));
    }
    let refuse = |why: String| Err((ErrorKind::Instruction, format!("XY_FAST_COLOR_BLT {why}")));
    if dw[0] & COLOR_DEPTH_MASK != COLOR_DEPTH_32 {
        return refuse(format!(
            "colour depth {} (only 32 bpp, 2, is modelled)",
            (dw[0] & COLOR_DEPTH_MASK) >> 19
        ));
    }
    if dw[6] & COLOR_MEM_SYSTEM != 0 {
        return refuse("to system memory (dw6 bit 31) is not modelled".into());
    }
    if dw[6] & !COLOR_MEM_SYSTEM != 0 || dw[8..].iter().any(|&d| d != 0) {
        return refuse("with compression or a wider colour (dw6, dw8-15) is not modelled".into());
    }
    let pitch = u64::from(dw[1] & COLOR_PITCH_MASK) + 1;
    let (x1, y1) = (u64::from(dw[2] & 0xffff), u64::from(dw[2] >> 16));
    let (x2, y2) = (u64::from(dw[3] & 0xffff), u64::from(dw[3] >> 16));
    if x2 < x1 || y2 < y1 {
        return refuse("with an inverted rectangle".into());
    }
    if x2 * 4 > pitch {
        return refuse(format!("rows of {} bytes past the pitch {pitch}", x2 * 4));
    }
    let row = (x2 - x1) * 4;
    let rows = y2 - y1;
    if row * rows > MAX_FILL_BYTES {
        return refuse(format!("of more than {MAX_FILL_BYTES} bytes"));
    }
    let dst = addr64(dw[4], dw[5]);
    let value = dw[7];
    if row == 0 || rows == 0 {
        return Ok(());
    }
    let first = dst + y1 * pitch + x1 * 4;
    let fill = |io: &mut Io<'_>, at: u64, len: u64| {
        io.fill(at, len, value, "XY_FAST_COLOR_BLT destination")
            .map_err(|f| (ErrorKind::PageTable, f.to_string()))
    };
    if row == pitch {
        // Whole rows: one contiguous range (checked whole before any byte
        // is written).
        fill(io, first, row * rows)?;
    } else {
        for y in 0..rows {
            fill(io, first + y * pitch, row)?;
        }
    }
    io.rec.emit(Event::EngineFill {
        engine: e.def.name,
        addr: Hex(first),
        bytes: row * rows,
        value: Hex(value.into()),
    });
    Ok(())
}

/// One side of an `XY_CTRL_SURF_COPY_BLT` (module docs, "Flat-CCS
/// copies").
#[derive(Clone, Copy)]
struct CcsSide {
    /// GGTT address.
    addr: u64,
    /// Direct (main memory) rather than indirect (its CCS).
    direct: bool,
    /// "source" or "destination".
    name: &'static str,
}

impl CcsSide {
    fn access(self) -> &'static str {
        if self.direct {
            "direct"
        } else {
            "indirect"
        }
    }
}

/// `XY_CTRL_SURF_COPY_BLT` (module docs, "Flat-CCS copies").
fn ctrl_surf_copy(e: &Engine, io: &mut Io<'_>, dw: &[u32]) -> Result<(), Fail> {
    const WHAT: &str = "XY_CTRL_SURF_COPY_BLT";
    // CAST: small.
    let n = dw.len() as u32;
    if n != CTRL_SURF_DWORDS {
        return Err(malformed(WHAT, n));
    }
    let refuse = |why: String| Err((ErrorKind::Instruction, format!("{WHAT} {why}")));
    if dw[0] & CTRL_SURF_RESERVED != 0 {
        return refuse(format!(
            "with reserved dw0 bits 19:18 set ({:#010x})",
            dw[0]
        ));
    }
    for (i, d) in [(2, dw[2]), (4, dw[4])] {
        if d & !(CTRL_SURF_ADDR_HI | CTRL_SURF_MOCS) != 0 {
            return refuse(format!("with reserved dw{i} bits 25:16 set ({d:#010x})"));
        }
    }
    let blocks = u64::from((dw[0] & CCS_SIZE_MASK) >> 8) + 1;
    let bytes = blocks * CCS_BLOCK;
    let src = CcsSide {
        addr: addr64(dw[1], dw[2] & CTRL_SURF_ADDR_HI),
        direct: dw[0] & CCS_SRC_DIRECT != 0,
        name: "source",
    };
    let dst = CcsSide {
        addr: addr64(dw[3], dw[4] & CTRL_SURF_ADDR_HI),
        direct: dw[0] & CCS_DST_DIRECT != 0,
        name: "destination",
    };
    if src.direct && dst.direct {
        return refuse("from direct to direct access: one side must be indirect (a CCS)".into());
    }
    // The source whole, then the destination checked whole, then written.
    let values = if src.direct {
        read_direct(io, src.addr, bytes)?
    } else {
        let ranges = indirect_ranges(io, src, bytes)?;
        let ccs = io.bus.ccs().ok_or_else(no_ccs)?;
        // CAST: at most 256 KiB.
        let mut values = Vec::with_capacity(bytes as usize);
        for (first, len) in ranges {
            let at = values.len();
            // CAST: at most 256 KiB in all.
            values.resize(at + len as usize, None);
            ccs.read(first, &mut values[at..]);
        }
        values
    };
    let zero = if dst.direct {
        let out: Vec<u8> = values
            .iter()
            .map(|v| v.unwrap_or(crate::ccs::UNKNOWN_READ))
            .collect();
        store(io, dst.addr, &out, "XY_CTRL_SURF_COPY_BLT destination")?;
        None
    } else {
        let ranges = indirect_ranges(io, dst, bytes)?;
        let ccs = io.bus.ccs_mut().ok_or_else(no_ccs)?;
        let mut done = 0;
        for (first, len) in ranges {
            // CAST: at most 256 KiB in all.
            let len = len as usize;
            ccs.write(first, &values[done..done + len]);
            done += len;
        }
        Some(values.iter().all(|&v| v == Some(0)))
    };
    io.rec.emit(Event::EngineCcsCopy {
        engine: e.def.name,
        src: Hex(src.addr),
        src_access: src.access(),
        dst: Hex(dst.addr),
        dst_access: dst.access(),
        blocks,
        bytes,
        zero,
    });
    Ok(())
}

fn no_ccs() -> Fail {
    (
        ErrorKind::Instruction,
        "XY_CTRL_SURF_COPY_BLT indirect access: this memory models no CCS".into(),
    )
}

/// `len` bytes of memory at GGTT address `addr`, read directly. A piece
/// of local memory that holds only zeros is not read (the device's local
/// memory is sparse: reading its holes would allocate them).
fn read_direct(io: &mut Io<'_>, addr: u64, len: u64) -> Result<Vec<Option<u8>>, Fail> {
    const WHAT: &str = "XY_CTRL_SURF_COPY_BLT source";
    let page_table = |f: String| (ErrorKind::PageTable, format!("{WHAT}: {f}"));
    let segs = io
        .segments(addr, len, WHAT)
        .map_err(|f| (ErrorKind::PageTable, f.to_string()))?;
    // CAST: at most 256 KiB.
    let mut out = vec![0u8; len as usize];
    let mut done = 0;
    for (target, at, n) in segs {
        // CAST: at most 256 KiB.
        let buf = &mut out[done..done + n as usize];
        let zeros = target == super::Target::Lmem
            && io
                .bus
                .lmem_first_nonzero(at, n)
                .map_err(page_table)?
                .is_none();
        if !zeros {
            io.bus.read(target, at, buf).map_err(page_table)?;
        }
        done += buf.len();
    }
    Ok(out.into_iter().map(Some).collect())
}

/// The CCS bytes an indirect `side` of `bytes` CCS bytes reaches: the
/// CCS of the `bytes * 256` bytes of local memory at its GGTT address, as
/// (first CCS byte, count) runs in order.
fn indirect_ranges(io: &mut Io<'_>, side: CcsSide, bytes: u64) -> Result<Vec<(u64, u64)>, Fail> {
    let what = if side.name == "source" {
        "XY_CTRL_SURF_COPY_BLT indirect source"
    } else {
        "XY_CTRL_SURF_COPY_BLT indirect destination"
    };
    let unit = crate::ccs::BYTES_PER_CCS_BYTE;
    if !side.addr.is_multiple_of(unit) {
        return Err((
            ErrorKind::Instruction,
            format!(
                "{what} address {:#x} is not {unit}-byte aligned (a CCS byte covers an \
                 aligned {unit} bytes)",
                side.addr
            ),
        ));
    }
    let segs = io
        .segments(side.addr, bytes * unit, what)
        .map_err(|f| (ErrorKind::PageTable, f.to_string()))?;
    let mut out = Vec::with_capacity(segs.len());
    let mut gaddr = side.addr;
    for (target, at, n) in segs {
        if target != super::Target::Lmem {
            return Err((
                ErrorKind::Instruction,
                format!(
                    "{what}: GGTT address {gaddr:#x} is not local memory; flat CCS covers \
                     local memory only"
                ),
            ));
        }
        // Pieces start and end on page or 256-byte boundaries: whole CCS
        // bytes.
        out.push((crate::ccs::index(at), n / unit));
        gaddr += n;
    }
    Ok(out)
}
