// SPDX-License-Identifier: GPL-2.0

//! The logical ring context (LRC) and the context descriptor that names it.
//!
//! # Layout
//!
//! The descriptor's LRCA points at a 4 KiB per-process HWSP, followed at once by the register
//! state (seed 004 lines 212-226): a list of `MI_LOAD_REGISTER_IMM` commands the engine runs
//! on restore and fills on save. The seed prints the copy/media list (lines 1756-1857) in two
//! merged variants; the one DG2 uses is upstream's (`drivers/gpu/drm/xe/xe_lrc.c`:
//! `dg2_rcs_offsets` for render, `gen12_xcs_offsets` for copy, `dg2_xcs_offsets` for compute
//! and media, chosen by `reg_offsets`), with the register addresses absolute (engine base +
//! offset) under `MI_LRI_LRM_CS_MMIO`, as `set_offsets` writes them, and the list ended by
//! `MI_BATCH_BUFFER_END | 1`. The value slots the driver writes are the `CTX_*` indices of
//! `regs/xe_lrc_layout.h`; a KUnit test checks that each sits after its register.
//!
//! Render and compute images are 13 pages, the others one (`xe_gt_lrc_hang_replay_size`,
//! before Xe2). The first image is built from the list with "engine context restore inhibit"
//! set (seed 004 lines 230-238; `set_context_control`), so the engine loads only the ring
//! registers.

use crate::{engine::cmd, engine::source::Class, engine::Engine};

/// Size of the per-process HWSP at the LRCA (seed 004 line 214).
pub(crate) const PPHWSP_SIZE: usize = 4096;

/// Dword indices of the value slots in the register state (`regs/xe_lrc_layout.h`).
pub(crate) const CTX_CONTEXT_CONTROL: usize = 0x03;
pub(crate) const CTX_RING_HEAD: usize = 0x05;
pub(crate) const CTX_RING_TAIL: usize = 0x07;
pub(crate) const CTX_RING_START: usize = 0x09;
pub(crate) const CTX_RING_CTL: usize = 0x0b;
pub(crate) const CTX_TIMESTAMP: usize = 0x23;

/// Context Control (+0x244, masked; `regs/xe_engine_regs.h`): bit 3 inhibit synchronous
/// context switch, bit 0 engine-context restore inhibit. `set_context_control` enables both.
const CONTEXT_CONTROL_INIT: u32 = ((1 << 3) | 1) << 16 | (1 << 3) | 1;
/// `RING_CTL`: bit 0 valid; the size field holds the size minus one page
/// (`RING_CTL_SIZE`, `RING_VALID`).
const RING_VALID: u32 = 1;

/// One step of an image list (`set_offsets`): skip dwords, or a register load.
#[derive(Copy, Clone)]
enum Step {
    /// `NOP(n)`: n dwords left as `MI_NOOP`.
    Skip(usize),
    /// `LRI(n, posted)` with the engine-relative offsets of its registers.
    Load(bool, &'static [u32]),
}

use Step::{Load, Skip};

/// The ring context shared by every list (`dg2_xcs_offsets` and `dg2_rcs_offsets` start
/// with it; seed 004 lines 1780-1795, the 15-register variant).
const RING_REGS_15: [u32; 15] = [
    0x244, 0x034, 0x030, 0x038, 0x03c, 0x168, 0x140, 0x110, 0x1c0, 0x1c4, 0x1c8, 0x180, 0x2b4,
    0x120, 0x124,
];
/// `gen12_xcs_offsets`, the copy engine's: the first 13 (seed 004 line 1780's variant).
const RING_REGS_13: [u32; 13] = [
    0x244, 0x034, 0x030, 0x038, 0x03c, 0x168, 0x140, 0x110, 0x1c0, 0x1c4, 0x1c8, 0x180, 0x2b4,
];
/// Context timestamp and the page-directory pointers (seed 004 lines 1798-1807).
const PPGTT_REGS: [u32; 9] = [
    0x3a8, 0x28c, 0x288, 0x284, 0x280, 0x27c, 0x278, 0x274, 0x270,
];
const RCS_EXTRA: [u32; 3] = [0x1b0, 0x5a8, 0x5ac];
const RCS_LAST: [u32; 1] = [0x0c8];

const DG2_XCS: [Step; 4] = [
    Skip(1),
    Load(true, &RING_REGS_15),
    Skip(1),
    Load(true, &PPGTT_REGS),
];
const GEN12_XCS: [Step; 4] = [
    Skip(1),
    Load(true, &RING_REGS_13),
    Skip(5),
    Load(true, &PPGTT_REGS),
];
const DG2_RCS: [Step; 7] = [
    Skip(1),
    Load(true, &RING_REGS_15),
    Skip(1),
    Load(true, &PPGTT_REGS),
    Load(true, &RCS_EXTRA),
    Skip(6),
    Load(false, &RCS_LAST),
];

/// The image list of an engine class.
fn steps(class: Class) -> &'static [Step] {
    match class {
        Class::Render => &DG2_RCS,
        Class::Copy => &GEN12_XCS,
        _ => &DG2_XCS,
    }
}

/// Register-state pages of an engine class.
pub(crate) const fn state_pages(class: Class) -> usize {
    match class {
        Class::Render | Class::Compute => 13,
        _ => 1,
    }
}

/// Bytes of the LRC (PPHWSP and register state), without the ring.
pub(crate) const fn lrc_size(class: Class) -> usize {
    PPHWSP_SIZE + state_pages(class) * 4096
}

/// Where a register list would not fit the image.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct TooSmall;

/// Writes the register-state list of `engine` into `state` (zeroed by the caller, so skipped
/// dwords are `MI_NOOP`), then the ring registers: the ring at GGTT `ring` of `ring_size`
/// bytes, head and tail 0, and the context control of a first restore.
///
/// # Errors
///
/// [`TooSmall`] if `state` cannot hold the list.
pub(crate) fn build(
    state: &mut [u32],
    engine: &Engine,
    ring: u32,
    ring_size: u32,
) -> Result<(), TooSmall> {
    let mut i = 0;
    let mut put = |i: &mut usize, v: u32| -> Result<(), TooSmall> {
        *state.get_mut(*i).ok_or(TooSmall)? = v;
        *i += 1;
        Ok(())
    };
    for step in steps(engine.class) {
        match *step {
            Skip(n) => i += n,
            Load(posted, regs) => {
                // CAST: the lists hold at most 15 registers.
                put(&mut i, cmd::lri(regs.len() as u32, posted))?;
                for &off in regs {
                    put(&mut i, engine.mmio_base + off)?;
                    put(&mut i, 0)?;
                }
            }
        }
    }
    put(&mut i, cmd::MI_BATCH_BUFFER_END | 1)?;
    for (slot, value) in [
        (CTX_CONTEXT_CONTROL, CONTEXT_CONTROL_INIT),
        (CTX_RING_HEAD, 0),
        (CTX_RING_TAIL, 0),
        (CTX_RING_START, ring),
        (CTX_RING_CTL, (ring_size - 4096) | RING_VALID),
        (CTX_TIMESTAMP, 0),
    ] {
        *state.get_mut(slot).ok_or(TooSmall)? = value;
    }
    Ok(())
}

/// Context descriptor fields (`xe_lrc.c`; the high dword is seed 004 lines 166-179).
const DESC_VALID: u64 = 1;
/// Addressing mode (bits 4:3): 3, "legacy 64-bit".
const DESC_LEGACY_64B: u64 = 3 << 3;
/// SW context ID, bits 54:39 on graphics 12.50 and later (`XEHP_SW_CTX_ID`; seed 004
/// line 175).
const SW_CTX_ID_SHIFT: u32 = 39;
/// The CSB's idle ID (seed 004 lines 277-281): never a context's.
pub(crate) const IDLE_CTX_ID: u16 = 0xffff;

/// The descriptor of the context at GGTT `lrca` (4 KiB aligned) with SW context `id`: valid,
/// legacy 64-bit addressing, no PPGTT (a GGTT-only kernel context, so the "privilege" bit 8
/// stays clear, as xe's VM-less LRCs).
pub(crate) const fn descriptor(lrca: u32, id: u16) -> u64 {
    (lrca as u64 & 0xffff_f000) | DESC_LEGACY_64B | DESC_VALID | ((id as u64) << SW_CTX_ID_SHIFT)
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_lrc)]
mod tests {
    use super::*;
    use crate::engine::ENGINES;
    use kernel::prelude::*;

    /// The value slot of register `off` in a built image: the dword after its address.
    fn slot_of(state: &[u32], base: u32, off: u32) -> Option<usize> {
        state.iter().position(|&v| v == base + off).map(|i| i + 1)
    }

    #[test]
    fn value_slots_follow_their_registers() -> Result {
        for e in ENGINES.iter() {
            let mut state = KVec::from_elem(0u32, state_pages(e.class) * 1024, GFP_KERNEL)?;
            assert_eq!(build(&mut state, e, 0x10_0000, 16384), Ok(()));
            let b = e.mmio_base;
            assert_eq!(slot_of(&state, b, 0x244), Some(CTX_CONTEXT_CONTROL));
            assert_eq!(slot_of(&state, b, 0x034), Some(CTX_RING_HEAD));
            assert_eq!(slot_of(&state, b, 0x030), Some(CTX_RING_TAIL));
            assert_eq!(slot_of(&state, b, 0x038), Some(CTX_RING_START));
            assert_eq!(slot_of(&state, b, 0x03c), Some(CTX_RING_CTL));
            assert_eq!(slot_of(&state, b, 0x3a8), Some(CTX_TIMESTAMP));
            assert_eq!(state[CTX_RING_START], 0x10_0000);
            assert_eq!(state[CTX_RING_CTL], 12288 | 1);
            assert_eq!(state[CTX_CONTEXT_CONTROL], 0x0009_0009);
        }
        Ok(())
    }

    #[test]
    fn images_match_upstream_shapes() -> Result {
        let find = |name: &str| ENGINES.iter().find(|e| e.name == name);
        let mut state = KVec::from_elem(0u32, 13 * 1024, GFP_KERNEL)?;
        let Some(bcs) = find("bcs0") else {
            return Err(EINVAL);
        };
        assert_eq!(build(&mut state, bcs, 0, 4096), Ok(()));
        // gen12_xcs_offsets: NOOP, LRI(13) at 1, 26 dwords, NOOP x5, LRI(9) at 0x21.
        assert_eq!(state[0], cmd::MI_NOOP);
        assert_eq!(state[1], cmd::lri(13, true));
        assert_eq!(state[0x21], cmd::lri(9, true));
        assert_eq!(state[0x34], cmd::MI_BATCH_BUFFER_END | 1);
        state.iter_mut().for_each(|v| *v = 0);
        let Some(rcs) = find("rcs0") else {
            return Err(EINVAL);
        };
        assert_eq!(build(&mut state, rcs, 0, 4096), Ok(()));
        assert_eq!(state[1], cmd::lri(15, true));
        assert_eq!(state[0x21], cmd::lri(9, true));
        assert_eq!(state[0x34], cmd::lri(3, true));
        // NOP(6) after the three registers, then LRI(1, not posted) and the end.
        assert_eq!(state[0x34 + 7 + 6], cmd::lri(1, false));
        assert_eq!(state[0x34 + 7 + 6 + 3], cmd::MI_BATCH_BUFFER_END | 1);
        Ok(())
    }

    #[test]
    fn a_short_image_is_refused() {
        let mut state = [0u32; 40];
        assert_eq!(build(&mut state, &ENGINES[0], 0, 4096), Err(TooSmall));
    }

    #[test]
    fn descriptor_bits() {
        // xe: VM-less LRC low bits 0x19 (valid | legacy 64-bit), LRCA in 31:12.
        assert_eq!(descriptor(0x0012_3000, 0) & 0xfff, 0x19);
        assert_eq!(descriptor(0x0012_3000, 0) & 0xffff_f000, 0x0012_3000);
        // An unaligned LRCA loses its low bits rather than corrupting the flags.
        assert_eq!(descriptor(0x0012_3fff, 0) & 0xfff, 0x19);
        // SW context ID in 54:39.
        assert_eq!((descriptor(0, 0xabcd) >> 39) & 0xffff, 0xabcd);
        assert_eq!(descriptor(0, 0xffff) >> 55, 0);
    }
}
