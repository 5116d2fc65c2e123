// SPDX-License-Identifier: GPL-2.0

//! The compute engines' GT-wide switches: `RCU_MODE` turns the CCS engines on (without it
//! CCS0-3 make no progress on silicon, in either submission mode), `CCS_MODE` hands the
//! compute slices to them. Values as upstream xe programs them for graphics 12.55:
//!
//! - `RCU_MODE` (0x14800, masked): `CCS_ENABLE` bit 0 on the first render-or-compute
//!   engine (`xe_hw_engine.c` `engine_sr` "Enable CCS Engine(s)"), and `FIXED_SLICE_CCS_MODE`
//!   bit 1 when more than one CCS exists ("RCU_MODE_FIXED_SLICE_CCS_MODE",
//!   `xe_hw_engine_match_fixed_cslice_mode`). xe sets `CCS_ENABLE` on every 12.55 part; i915
//!   (`intel_guc_ads.c` `guc_mmio_regset_init`, `CCS_MASK`) and this driver only when a CCS
//!   exists, the stricter reading.
//! - `CCS_MODE` (0x14804, masked, 3 bits per compute slice): the default of one CCS engine
//!   with every compute slice, written when more than one CCS exists (`xe_gt.c`
//!   `gt_init_with_all_forcewake` after `xe_uc_load_hw`, `gt->ccs_mode = 1`; `xe_gt_ccs_mode.c`
//!   `__xe_gt_apply_ccs_mode`). Slices whose CCS is fused off stay disabled (7).
//!
//! Offsets and bits: `regs/xe_gt_regs.h`. Both lie in the render forcewake domain (seed 000
//! line 556, 0x14800-0x14FFF).

use kernel::{io::register, prelude::*};

use crate::{
    engine::source::Present,
    gt::{Awake, Gt, RenderDomain},
};

register! {
    /// Render/compute unit mode, masked.
    pub(crate) RCU_MODE(u32) @ 0x00014800 {
        31:0 value;
    }

    /// Compute slice to CCS engine assignment, masked.
    pub(crate) CCS_MODE(u32) @ 0x00014804 {
        31:0 value;
    }
}

/// `RCU_MODE_CCS_ENABLE`.
const CCS_ENABLE: u32 = 1 << 0;
/// `RCU_MODE_FIXED_SLICE_CCS_MODE`.
const FIXED_SLICE_CCS_MODE: u32 = 1 << 1;
/// `CCS_MODE_CSLICE_0_3_MASK`: four 3-bit slice fields.
const CSLICE_0_3: u32 = 0xfff;
/// `CCS_MODE_CSLICE_MASK`: a field's "no engine" value.
const CSLICE_NONE: u32 = 0x7;

/// Whether `CCS_MODE` is programmed: more than one CCS (`xe_gt_ccs_mode_enabled`).
pub(crate) const fn ccs_mode_enabled(p: &Present) -> bool {
    p.ccs.count_ones() > 1
}

/// The masked `RCU_MODE` write, if the part has a CCS.
pub(crate) const fn rcu_mode(p: &Present) -> Option<u32> {
    if p.ccs == 0 {
        return None;
    }
    let bits = if ccs_mode_enabled(p) {
        CCS_ENABLE | FIXED_SLICE_CCS_MODE
    } else {
        CCS_ENABLE
    };
    Some((bits << 16) | bits)
}

/// The masked `CCS_MODE` write of the default mode (one engine, the CCS of logical instance 0,
/// gets every present compute slice), if it is programmed at all.
pub(crate) const fn ccs_mode(p: &Present) -> Option<u32> {
    if !ccs_mode_enabled(p) {
        return None;
    }
    let first = p.ccs.trailing_zeros();
    let mut mode = CSLICE_0_3;
    let mut slice = 0;
    while slice < 4 {
        if p.ccs & (1 << slice) != 0 {
            mode &= !(CSLICE_NONE << (3 * slice));
            mode |= first << (3 * slice);
        }
        slice += 1;
    }
    Some((CSLICE_0_3 << 16) | mode)
}

/// Writes `RCU_MODE` and `CCS_MODE` for the present CCS engines (nothing without one).
/// Process context (probe), before any context runs on a CCS.
pub(crate) fn setup(gt: &Gt<'_>, awake: &Awake<'_, RenderDomain>, p: &Present) {
    if let Some(v) = rcu_mode(p) {
        gt.write(awake, RCU_MODE::zeroed().with_value(v));
    }
    if let Some(v) = ccs_mode(p) {
        gt.write(awake, CCS_MODE::zeroed().with_value(v));
    }
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_ccs)]
mod tests {
    use super::*;

    fn p(ccs: u8) -> Present {
        Present {
            ccs,
            vcs: 0,
            vecs: 0,
        }
    }

    #[test]
    fn rcu_mode_follows_the_ccs_count() {
        assert_eq!(rcu_mode(&p(0)), None);
        // One CCS: enable only, no fixed-slice mode.
        assert_eq!(rcu_mode(&p(0b0100)), Some(0x0001_0001));
        // Several: enable and fixed-slice mode.
        assert_eq!(rcu_mode(&p(0b1111)), Some(0x0003_0003));
    }

    #[test]
    fn ccs_mode_gives_every_slice_to_the_first_ccs() {
        assert_eq!(ccs_mode(&p(0)), None);
        assert_eq!(ccs_mode(&p(0b0001)), None);
        // Four CCS: every slice field 0 (ccs0).
        assert_eq!(ccs_mode(&p(0b1111)), Some(0x0fff_0000));
        // ccs0 and ccs2: slices 1 and 3 disabled (7).
        assert_eq!(ccs_mode(&p(0b0101)), Some(0x0fff_0e38));
        // ccs1 and ccs2: slices 1 and 2 go to ccs1, 0 and 3 disabled.
        assert_eq!(ccs_mode(&p(0b0110)), Some(0x0fff_0e4f));
    }
}
