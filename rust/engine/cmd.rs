// SPDX-License-Identifier: GPL-2.0

//! The command-streamer instructions the driver emits, as dwords.
//!
//! The opcodes are the PRM's (seed 004 lines 583-636: bits 28:23 of an MI command, type 000 in
//! bits 31:29, line 565); the seed gives no dword layouts, so the fields are upstream's
//! (`drivers/gpu/drm/xe/instructions/xe_mi_commands.h`, `xe_gpu_commands.h`) and the sequences
//! those of `xe_ring_ops.c`. Every sequence is a whole number of qwords (seed 004 line 553:
//! "command sequences require QWord alignment and padding to QWord length").

use crate::engine::source::Class;

/// An MI command header: opcode in bits 28:23 (seed 004 line 583).
const fn mi(opcode: u32) -> u32 {
    opcode << 23
}

/// `MI_NOOP` (opcode 00h, seed 004 line 587).
pub(crate) const MI_NOOP: u32 = mi(0x00);
/// `MI_USER_INTERRUPT` (02h, line 589): raises the engine's user interrupt (vector bit 0,
/// line 433).
pub(crate) const MI_USER_INTERRUPT: u32 = mi(0x02);
/// `MI_ARB_CHECK` (05h, line 592): a preemption point (line 366).
pub(crate) const MI_ARB_CHECK: u32 = mi(0x05);
/// `MI_BATCH_BUFFER_END` (0Ah, line 595).
pub(crate) const MI_BATCH_BUFFER_END: u32 = mi(0x0a);
/// `MI_STORE_DATA_IMM` (20h, line 616), one dword to a GGTT address: bit 22 `MI_SDI_GGTT`,
/// length field (bits 9:0) = 4 dwords - 2. The selftest's store (test build).
#[cfg(xehpg_test)]
pub(crate) const MI_STORE_DATA_IMM_GGTT: u32 = mi(0x20) | (1 << 22) | 2;
/// `MI_LOAD_REGISTER_IMM` (22h, line 618).
pub(crate) const MI_LOAD_REGISTER_IMM: u32 = mi(0x22);
/// LRI: register addresses are relative to the executing engine (`MI_LRI_LRM_CS_MMIO`).
pub(crate) const MI_LRI_CS_MMIO: u32 = 1 << 19;
/// LRI: `MI_LRI_FORCE_POSTED`.
pub(crate) const MI_LRI_FORCE_POSTED: u32 = 1 << 12;
/// `MI_FLUSH_DW` (26h, line 621; copy and media engines only) with a post-sync store of one
/// dword (`MI_FLUSH_DW_OP_STOREDW`, bit 14), 4 dwords long.
pub(crate) const MI_FLUSH_DW_STORE: u32 = mi(0x26) | (1 << 14) | 2;
/// `MI_FLUSH_DW` address dword: bit 2 `MI_FLUSH_DW_USE_GTT`.
pub(crate) const MI_FLUSH_DW_USE_GTT: u32 = 1 << 2;
/// A bare `MI_FLUSH_DW`, no post-sync operation, 4 dwords: the fill's writes land before the
/// next command reads them.
pub(crate) const MI_FLUSH_DW: u32 = mi(0x26) | 2;
/// `MI_FLUSH_DW_CCS` (bit 16, `xe_mi_commands.h`): the flush also flushes the compression
/// metadata; upstream adds it to a clear's completion flush (`xe_migrate_clear`).
pub(crate) const MI_FLUSH_DW_CCS: u32 = 1 << 16;
/// `PIPE_CONTROL`, 6 dwords (`GFX_OP_PIPE_CONTROL(6)`: type 3, subtype 3, opcode 2; render
/// and compute engines only).
pub(crate) const PIPE_CONTROL_6: u32 = (3 << 29) | (3 << 27) | (2 << 24) | (6 - 2);
/// `PIPE_CONTROL` flags of `emit_pipe_imm_ggtt`: GGTT destination (bit 24), CS stall (20),
/// post-sync "write immediate" (bits 15:14 = 1), flush enable (7).
pub(crate) const PIPE_CONTROL_STORE_GGTT: u32 = (1 << 24) | (1 << 20) | (1 << 14) | (1 << 7);

/// `XY_FAST_COPY_BLT` (`XY_FAST_COPY_BLT_CMD` of `instructions/xe_gpu_commands.h`: type 2,
/// opcode 0x42), 10 dwords; copy engines only. The selftest's `blit` (test build).
#[cfg(xehpg_test)]
pub(crate) const XY_FAST_COPY_BLT: u32 = (2 << 29) | (0x42 << 22) | (10 - 2);
/// Its colour depth field (dword 1, bits 26:24): 3 = 32 bits per pixel.
#[cfg(xehpg_test)]
const XY_FAST_COPY_DEPTH_32: u32 = 3 << 24;

/// `XY_FAST_COLOR_BLT` (`XY_FAST_COLOR_BLT_CMD` of `instructions/xe_gpu_commands.h`: type 2, an
/// engine command (seed 004 line 565), opcode 0x44) at 32 bits per pixel
/// (`XY_FAST_COLOR_BLT_DEPTH_32`, bits 21:19 = 2), 16 dwords: the length upstream's
/// `blt_fast_color_cmd_len` gives graphics 12.50 and later before Xe2, DG2 included. Copy
/// engines only.
pub(crate) const XY_FAST_COLOR_BLT: u32 = (2 << 29) | (0x44 << 22) | (2 << 19) | (16 - 2);
/// Dwords of an `XY_FAST_COLOR_BLT`.
const XY_FAST_COLOR_DWORDS: usize = 16;

/// `XY_CTRL_SURF_COPY_BLT` (`instructions/xe_gpu_commands.h`: type 2, opcode 0x48, 5 dwords):
/// copies between a surface's bytes (direct access) and its flat-CCS compression metadata
/// (indirect), one metadata byte per 256 bytes (`NUM_BYTES_PER_CCS_BYTE` below Xe2). Copy
/// engines only.
pub(crate) const XY_CTRL_SURF_COPY_BLT: u32 = (2 << 29) | (0x48 << 22) | (5 - 2);
/// Source access type (bit 21, `SRC_ACCESS_TYPE_SHIFT`): 1 direct.
const CTRL_SURF_SRC_DIRECT: u32 = 1 << 21;
/// Metadata bytes per `CCS_SIZE_MASK` unit (bits 17:8 hold blocks - 1,
/// `NUM_CCS_BYTES_PER_BLOCK`).
const CCS_BLOCK_BYTES: u64 = 256;
/// Bytes of memory one metadata byte describes (`NUM_BYTES_PER_CCS_BYTE` below Xe2).
const BYTES_PER_CCS_BYTE: u64 = 256;

/// What a request does before its completion write.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Payload {
    /// Store `value` at GGTT `addr` (`MI_STORE_DATA_IMM`); the selftest's (test build).
    #[cfg(xehpg_test)]
    Store { addr: u32, value: u32 },
    /// Copy `rows` rows of `pitch` bytes from GGTT `src` to GGTT `dst` with the blitter; the
    /// selftest's `blit` (test build).
    #[cfg(xehpg_test)]
    Copy {
        src: u32,
        dst: u32,
        rows: u16,
        pitch: u16,
    },
    /// Clear `rows` rows of `pitch` bytes of local memory at GGTT `dst` and their flat-CCS
    /// metadata, as upstream's `xe_migrate_clear` on DG2 (`has_flat_ccs`): the blitter's
    /// colour fill with 0, a flush, then an `XY_CTRL_SURF_COPY_BLT` from the zeroed bytes
    /// (direct) into the range's metadata (indirect). The range is whole 64 KiB (one metadata
    /// block) and at most 64 MiB (1024 blocks, the `CCS_SIZE_MASK` field).
    Clear { dst: u32, rows: u16, pitch: u32 },
}

/// `MI_LOAD_REGISTER_IMM` header for `n` registers, as `set_offsets` writes it in a context
/// image: engine-relative, optionally posted; length = 2n + 1 dwords - 2.
pub(crate) const fn lri(n: u32, posted: bool) -> u32 {
    MI_LOAD_REGISTER_IMM
        | MI_LRI_CS_MMIO
        | if posted { MI_LRI_FORCE_POSTED } else { 0 }
        | (2 * n - 1)
}

/// Dwords of one request's commands, padding included: the largest sequence [`request`]
/// writes (arbitration point, a clear's fill, flush and metadata copy, a pipe control, the
/// user interrupt: 1 + 16 + 4 + 5 + 6 + 1; only the copy engine has the clear, but the
/// encoding does not depend on that).
pub(crate) const REQUEST_DWORDS: usize = 34;

/// The commands of one request: an arbitration point, the payload, the completion write of
/// `seqno` to `seqno_at` with the flush the engine class has (`emit_flush_imm_ggtt` on copy
/// and media engines, `emit_pipe_imm_ggtt` on render and compute; on the copy engine the flush
/// also waits for the copy), then the user interrupt; padded with `MI_NOOP` to a qword.
/// Returns the number of dwords written to `out`.
///
/// A copy is a linear `XY_FAST_COPY_BLT` at 32 bits per pixel (as xe's `emit_xy_fast_copy`,
/// which on DG2 also marks both surfaces Tile4: for whole rows of the same pitch that copies
/// the same bytes; linear is the plain statement of a byte copy).
pub(crate) fn request(
    class: Class,
    payload: Payload,
    seqno_at: u32,
    seqno: u32,
    out: &mut [u32; REQUEST_DWORDS],
) -> usize {
    let mut n = 0;
    let mut put = |v: u32| {
        if let Some(slot) = out.get_mut(n) {
            *slot = v;
        }
        n += 1;
        n
    };
    put(MI_ARB_CHECK);
    // A clear's completion flush also flushes the metadata it wrote.
    let flush_ccs = if matches!(payload, Payload::Clear { .. }) {
        MI_FLUSH_DW_CCS
    } else {
        0
    };
    match payload {
        #[cfg(xehpg_test)]
        Payload::Store { addr, value } => {
            put(MI_STORE_DATA_IMM_GGTT);
            put(addr & !3);
            put(0);
            put(value);
        }
        #[cfg(xehpg_test)]
        Payload::Copy {
            src,
            dst,
            rows,
            pitch,
        } => {
            let pitch = u32::from(pitch) & !3;
            put(XY_FAST_COPY_BLT);
            put(XY_FAST_COPY_DEPTH_32 | pitch);
            put(0);
            put((u32::from(rows) << 16) | (pitch / 4));
            put(dst);
            put(0);
            put(0);
            put(pitch);
            put(src);
            put(0);
        }
        Payload::Clear { dst, rows, pitch } => {
            // Upstream's `emit_clear_main_copy` for graphics below 20: MOCS (bits 27:22) 0,
            // the pitch - 1; origin 0,0; the rectangle's bottom right (rows, pitch / 4 pixels);
            // the destination; memory type (dw6 bit 31) 0 = local memory; the fill value 0,
            // then the other colour and compression dwords, 0 for a 32-bit linear fill.
            let pitch = pitch & !3;
            put(XY_FAST_COLOR_BLT);
            put(pitch.saturating_sub(1));
            put(0);
            put((u32::from(rows) << 16) | (pitch / 4));
            put(dst);
            put(0);
            put(0);
            put(0);
            // Dwords 8-15.
            for _ in 8..XY_FAST_COLOR_DWORDS {
                put(0);
            }
            // The zeros must be in memory before they are read as the metadata's source.
            put(MI_FLUSH_DW);
            put(0);
            put(0);
            put(0);
            // `emit_copy_ccs` below Xe2: blocks - 1 in bits 17:8, source direct, destination
            // indirect (0), MOCS 0 (uncached); upstream reads its zeros from a page that reads
            // as zero, here the range just filled.
            let bytes = u64::from(rows) * u64::from(pitch);
            let blocks = (bytes / BYTES_PER_CCS_BYTE / CCS_BLOCK_BYTES).clamp(1, 1024);
            // CAST: at most 1023.
            put(XY_CTRL_SURF_COPY_BLT | CTRL_SURF_SRC_DIRECT | ((blocks - 1) as u32) << 8);
            put(dst);
            put(0);
            put(dst);
            put(0);
        }
    }
    match class {
        Class::Render | Class::Compute => {
            put(PIPE_CONTROL_6);
            put(PIPE_CONTROL_STORE_GGTT);
            put(seqno_at & !7);
            put(0);
            put(seqno);
            put(0);
        }
        _ => {
            put(MI_FLUSH_DW_STORE | flush_ccs);
            put((seqno_at & !7) | MI_FLUSH_DW_USE_GTT);
            put(0);
            put(seqno);
        }
    }
    let mut n = put(MI_USER_INTERRUPT);
    if n % 2 != 0 {
        n = put(MI_NOOP);
    }
    n
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_cmd)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_is_xe_s_fast_copy_without_tiling() {
        let mut out = [0; REQUEST_DWORDS];
        let copy = Payload::Copy {
            src: 0x10_0000,
            dst: 0x20_0000,
            rows: 256,
            pitch: 16384,
        };
        let n = request(Class::Copy, copy, 0x2100, 9, &mut out);
        assert_eq!(out[1], 0x5080_0008);
        // Depth 32, pitch; no Tile4 bits (31:30).
        assert_eq!(out[2], 0x0300_4000);
        assert_eq!(out[4], 256 << 16 | 4096);
        assert_eq!((out[5], out[9]), (0x20_0000, 0x10_0000));
        assert_eq!(out[8], 16384);
        // Then the flush with the seqno and the interrupt.
        assert_eq!(out[11], MI_FLUSH_DW_STORE);
        assert_eq!(out[14], 9);
        assert_eq!(out[15], MI_USER_INTERRUPT);
        assert_eq!(n, 16);
    }

    #[test]
    fn a_clear_is_xe_s_clear_blit_and_ccs_copy() {
        let mut out = [0; REQUEST_DWORDS];
        let fill = Payload::Clear {
            dst: 0x40_0000,
            rows: 16384,
            pitch: 4096,
        };
        let n = request(Class::Copy, fill, 0x2100, 5, &mut out);
        // What upstream's `emit_clear_main_copy` writes on DG2 (16 dwords, depth 32).
        assert_eq!(out[1], 0x5110_000e);
        assert_eq!(out[2], 4095);
        assert_eq!(out[3], 0);
        assert_eq!(out[4], 16384 << 16 | 1024);
        assert_eq!((out[5], out[6], out[7], out[8]), (0x40_0000, 0, 0, 0));
        assert!(out[9..17].iter().all(|&d| d == 0));
        // A bare flush, then `emit_copy_ccs`: 64 MiB is 1024 blocks of 256 metadata bytes,
        // from the range (direct) into its metadata (indirect).
        assert_eq!(&out[17..21], &[0x1300_0002, 0, 0, 0]);
        assert_eq!(out[21], 0x5200_0003 | 1 << 21 | 1023 << 8);
        assert_eq!(&out[22..26], &[0x40_0000, 0, 0x40_0000, 0]);
        // Then the flush with the seqno (which waits for both, metadata too) and the
        // interrupt.
        assert_eq!(out[26], MI_FLUSH_DW_STORE | MI_FLUSH_DW_CCS);
        assert_eq!(out[29], 5);
        assert_eq!(out[30], MI_USER_INTERRUPT);
        assert_eq!(n, 32);
        // One block for the smallest range.
        let small = Payload::Clear {
            dst: 0x40_0000,
            rows: 16,
            pitch: 4096,
        };
        request(Class::Copy, small, 0x2100, 5, &mut out);
        assert_eq!(out[21], 0x5220_0003);
    }

    #[test]
    fn opcodes_match_upstream_values() {
        // The values upstream's macros produce (xe_mi_commands.h).
        assert_eq!(MI_USER_INTERRUPT, 0x0100_0000);
        assert_eq!(MI_ARB_CHECK, 0x0280_0000);
        assert_eq!(MI_BATCH_BUFFER_END, 0x0500_0000);
        assert_eq!(MI_STORE_DATA_IMM_GGTT, 0x1040_0002);
        assert_eq!(MI_FLUSH_DW_STORE, 0x1300_4002);
        assert_eq!(MI_FLUSH_DW | MI_FLUSH_DW_CCS, 0x1301_0002);
        assert_eq!(XY_CTRL_SURF_COPY_BLT, 0x5200_0003);
        assert_eq!(PIPE_CONTROL_6, 0x7a00_0004);
        // LRI(15, POSTED) of the DG2 images: 0x1108_101d (seed 004 line 1781).
        assert_eq!(lri(15, true), 0x1108_101d);
        assert_eq!(lri(9, true), 0x1108_1011);
    }

    #[test]
    fn requests_are_qword_padded_and_fit() {
        for class in [
            Class::Render,
            Class::Copy,
            Class::Compute,
            Class::VideoDecode,
        ] {
            for payload in [
                Payload::Store {
                    addr: 0x1000,
                    value: 7,
                },
                Payload::Copy {
                    src: 0x10_0000,
                    dst: 0x20_0000,
                    rows: 256,
                    pitch: 16384,
                },
                Payload::Clear {
                    dst: 0x20_0000,
                    rows: 16384,
                    pitch: 4096,
                },
            ] {
                let mut out = [0xdead_beef; REQUEST_DWORDS];
                let n = request(class, payload, 0x2100, 42, &mut out);
                assert!(n <= REQUEST_DWORDS);
                assert_eq!(n % 2, 0);
                assert!(out[n - 1] == MI_USER_INTERRUPT || out[n - 1] == MI_NOOP);
                // The seqno is the value of the completion write.
                assert!(out[..n].contains(&42));
            }
        }
    }

    #[test]
    fn flush_kind_follows_the_class() {
        let mut out = [0; REQUEST_DWORDS];
        let store = Payload::Store {
            addr: 0x1000,
            value: 7,
        };
        let n = request(Class::Copy, store, 0x2100, 1, &mut out);
        assert!(out[..n].contains(&MI_FLUSH_DW_STORE));
        assert!(!out[..n].contains(&PIPE_CONTROL_6));
        assert!(out[..n].contains(&(0x2100 | MI_FLUSH_DW_USE_GTT)));
        let n = request(Class::Render, store, 0x2100, 1, &mut out);
        assert!(out[..n].contains(&PIPE_CONTROL_6));
        assert!(!out[..n].contains(&MI_FLUSH_DW_STORE));
    }
}
