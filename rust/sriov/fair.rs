// SPDX-License-Identifier: GPL-2.0

//! Fair provisioning: what each of `n` VFs gets when the administrator set nothing.
//!
//! Upstream's rule (`xe_gt_sriov_pf_config.c`, `xe_sriov_pf_provision.c`) is followed so that
//! a VF is sized the same under this driver as under `xe`: each resource gets
//! `min(estimate, profile)`, where the estimate is what is free now divided by `n` and the
//! profile a power of two that leaves room for the PF and keeps every VF's share equal
//! whatever was provisioned before. An estimate of zero is `ENOSPC`. The profiles are pure
//! arithmetic ([`Profile`]); upstream's KUnit vectors check them below.
//!
//! One difference: upstream has an "admin-only PF" profile (the PF runs no workloads of its
//! own). This driver's PF always keeps its kernel contexts and submission, so only the
//! normal profile exists here.

use kernel::prelude::*;

use super::ids::{CONTEXTS, DOORBELLS};
use crate::mem::ggtt::GUC_GGTT_TOP;

const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;

/// Alignment of a VF's GGTT range on DG2 and ATS-M: 64 KiB, as local memory is mapped in
/// 64 KiB pages there (`pf_get_ggtt_alignment`, `XE_VRAM_FLAGS_NEED64K`).
pub(crate) const GGTT_ALIGN: u64 = 64 << 10;
/// GGTT the PF keeps for itself beyond what it already uses (upstream's minimum spare).
pub(crate) const GGTT_SPARE: u64 = 64 * MIB;
/// Contexts the PF keeps (upstream's minimum spare).
pub(crate) const CONTEXTS_SPARE: u32 = 256;
/// Local memory the PF keeps out of the shareable part (upstream's profile).
const LMEM_RESERVED: u64 = 128 * MIB;
/// Granule of a VF's local memory: one LMTT leaf page (seed 000 line 390).
pub(crate) const LMEM_ALIGN: u64 = 2 * MIB;
/// Execution quantum (ms) and preemption timeout (us) for the PF and every VF once VFs run:
/// upstream's values, "GuC should be able to handle up to 63 VFs within 2s".
pub(crate) const EXEC_QUANTUM_MS: u32 = 16;
pub(crate) const PREEMPT_TIMEOUT_US: u32 = 16_000;

fn pow2_floor(x: u64) -> u64 {
    match x {
        0 => 0,
        _ => 1 << (63 - x.leading_zeros()),
    }
}

fn align_down(x: u64, a: u64) -> u64 {
    x - x % a
}

/// The profile of `n` VFs (1..=63).
pub(crate) struct Profile {
    n: u64,
}

impl Profile {
    /// # Errors
    ///
    /// `EINVAL` for no VFs.
    pub(crate) fn new(n: u32) -> Result<Self> {
        match n {
            0 => Err(EINVAL),
            n => Ok(Self { n: u64::from(n) }),
        }
    }

    /// Contexts per VF: the largest power of two with `n` of them within the GuC's IDs.
    pub(crate) fn contexts(&self) -> u32 {
        // CAST: at most CONTEXTS.
        pow2_floor(u64::from(CONTEXTS) / self.n) as u32
    }

    /// Doorbells per VF: the PF counts as one more function.
    pub(crate) fn doorbells(&self) -> u32 {
        // CAST: at most DOORBELLS.
        pow2_floor(u64::from(DOORBELLS) / (self.n + 1)) as u32
    }

    /// GGTT bytes per VF. Upstream divides the GuC-visible GGTT rounded down to 512 MiB
    /// (3.5 GiB); above 56 VFs that would give 32 MiB, so 56 MiB is used, as ~512 MiB of the
    /// GGTT is the PF's.
    pub(crate) fn ggtt(&self) -> u64 {
        if self.n > 56 {
            return 56 * MIB;
        }
        pow2_floor(align_down(GUC_GGTT_TOP, 512 * MIB) / self.n)
    }

    /// Local-memory bytes per VF out of `usable`: what is left beyond 128 MiB, rounded down
    /// to whole GiB, shared by the PF and the VFs.
    pub(crate) fn lmem(&self, usable: u64) -> u64 {
        let shareable = align_down(usable.saturating_sub(LMEM_RESERVED), GIB);
        align_down(pow2_floor(shareable / (self.n + 1)), LMEM_ALIGN)
    }
}

/// `min(estimate, profile)` of one resource.
///
/// # Errors
///
/// `ENOSPC` when nothing is left to share.
pub(crate) fn fair<T: Ord + Default + Copy>(estimate: T, profile: T) -> Result<T> {
    match estimate.min(profile) {
        v if v == T::default() => Err(ENOSPC),
        v => Ok(v),
    }
}

/// The GGTT estimate: the largest hole less the PF's spare, split `n` ways, aligned down.
pub(crate) fn ggtt_estimate(largest_hole: u64, n: u32) -> u64 {
    match n {
        0 => 0,
        n => align_down(
            largest_hole.saturating_sub(GGTT_SPARE) / u64::from(n),
            GGTT_ALIGN,
        ),
    }
}

/// The local-memory estimate: what is free less the PF's spare, split `n` ways, in whole
/// LMTT pages.
pub(crate) fn lmem_estimate(free: u64, spare: u64, n: u32) -> u64 {
    match n {
        0 => 0,
        n => align_down(free.saturating_sub(spare) / u64::from(n), LMEM_ALIGN),
    }
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_sriov_fair)]
mod tests {
    use super::*;

    // Upstream's pf_gt_config vectors (tests/xe_gt_sriov_pf_config_kunit.c), normal profile.
    #[test]
    fn contexts_profile() -> Result {
        for n in 1..=63u32 {
            let want = match n {
                32.. => 1024,
                16.. => 2048,
                8.. => 4096,
                4.. => 8192,
                2.. => 16384,
                _ => 32768,
            };
            let p = Profile::new(n)?.contexts();
            assert_eq!(p, want);
            assert!(n * p < CONTEXTS);
        }
        Ok(())
    }

    #[test]
    fn doorbells_profile() -> Result {
        for n in 1..=63u32 {
            let want = match n {
                32.. => 4,
                16.. => 8,
                8.. => 16,
                4.. => 32,
                2.. => 64,
                _ => 128,
            };
            let p = Profile::new(n)?.doorbells();
            assert_eq!(p, want);
            assert!((n + 1) * p <= DOORBELLS);
        }
        Ok(())
    }

    #[test]
    fn ggtt_profile() -> Result {
        for n in 1..=63u32 {
            let want = match n {
                57.. => 56 * MIB,
                29.. => 64 * MIB,
                15.. => 128 * MIB,
                8.. => 256 * MIB,
                4.. => 512 * MIB,
                2.. => GIB,
                _ => 2 * GIB,
            };
            let p = Profile::new(n)?.ggtt();
            assert_eq!(p, want);
            assert_eq!(p % GGTT_ALIGN, 0);
            assert!(u64::from(n) * p <= 3 * GIB + 512 * MIB);
        }
        assert!(Profile::new(0).is_err());
        Ok(())
    }

    #[test]
    fn lmem_profile() -> Result {
        // Upstream's usable sizes; 0x7A800000 is its TEST_VRAM.
        let one_vf = [
            (3 * GIB + 512 * MIB, GIB),
            (11 * GIB + 512 * MIB, 4 * GIB),
            (15 * GIB + 512 * MIB, 4 * GIB),
            (31 * GIB + 512 * MIB, 8 * GIB),
            (63 * GIB + 512 * MIB, 16 * GIB),
            (0x7A80_0000, 512 * MIB),
        ];
        for (usable, want) in one_vf {
            let p = Profile::new(1)?.lmem(usable);
            assert_eq!(p, want);
            assert!(usable - p >= p);
        }
        for n in 1..=63u32 {
            let p = Profile::new(n)?.lmem(0x7A80_0000);
            let want = match n {
                32.. => 16 * MIB,
                16.. => 32 * MIB,
                8.. => 64 * MIB,
                4.. => 128 * MIB,
                2.. => 256 * MIB,
                _ => 512 * MIB,
            };
            assert_eq!(p, want);
            assert!(u64::from(n) * p <= 0x7A80_0000);
        }
        // Nothing beyond the PF's 128 MiB: nothing to share.
        assert_eq!(Profile::new(1)?.lmem(128 * MIB), 0);
        Ok(())
    }

    #[test]
    fn fair_is_the_smaller_and_never_zero() {
        assert_eq!(fair(100u64, 64), Ok(64));
        assert_eq!(fair(48u64, 64), Ok(48));
        assert_eq!(fair(0u32, 64), Err(ENOSPC));
        assert_eq!(ggtt_estimate(GGTT_SPARE, 1), 0);
        assert_eq!(ggtt_estimate(GGTT_SPARE + 7 * GIB / 4, 7), GIB / 4);
        // Aligned down to 64 KiB.
        assert_eq!(ggtt_estimate(GGTT_SPARE + 3 * 0x1_8000, 3), 0x1_0000);
        assert_eq!(lmem_estimate(7 * GIB, GIB, 3), 2 * GIB);
        assert_eq!(lmem_estimate(5 * MIB, 0, 2), 2 * MIB);
        assert_eq!(lmem_estimate(GIB, 2 * GIB, 1), 0);
    }
}
