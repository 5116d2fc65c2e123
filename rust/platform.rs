// SPDX-License-Identifier: GPL-2.0

//! Which Xe-HPG part a PCI function is, and its stepping.
//!
//! Device IDs and the die each product uses come from `include/drm/intel/pciids.h` and the
//! subplatform lists in `drivers/gpu/drm/xe/xe_pci.c` (ATS-M150 is a G10 die, ATS-M75 a G11
//! die). Revision-to-stepping tables are from `drivers/gpu/drm/xe/xe_step.c`. SR-IOV PF support
//! is an ATS-M feature: upstream sets `has_sriov` only in `ats_m_desc` (`xe_pci.c`). The
//! device-ID table itself is in `driver`, where the PCI core matches on it.

use kernel::fmt;

/// A product of the Xe-HPG family.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Platform {
    Dg2G10,
    Dg2G11,
    Dg2G12,
    AtsM150,
    AtsM75,
}

/// The graphics die under a product; steppings are per die.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Die {
    G10,
    G11,
    G12,
}

impl Platform {
    /// Product name as the driver reports it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Dg2G10 => "DG2-G10",
            Self::Dg2G11 => "DG2-G11",
            Self::Dg2G12 => "DG2-G12",
            Self::AtsM150 => "ATS-M150",
            Self::AtsM75 => "ATS-M75",
        }
    }

    pub(crate) fn die(self) -> Die {
        match self {
            Self::Dg2G10 | Self::AtsM150 => Die::G10,
            Self::Dg2G11 | Self::AtsM75 => Die::G11,
            Self::Dg2G12 => Die::G12,
        }
    }

    /// Whether this product can act as an SR-IOV physical function.
    pub(crate) fn sriov_pf(self) -> bool {
        matches!(self, Self::AtsM150 | Self::AtsM75)
    }
}

impl fmt::Display for Platform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Silicon stepping, as upstream names them (`drivers/gpu/drm/xe/xe_step.h`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Stepping {
    A0,
    A1,
    B0,
    B1,
    C0,
    /// Newer than every revision this driver knows.
    Future,
}

impl fmt::Display for Stepping {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            Self::A0 => "A0",
            Self::A1 => "A1",
            Self::B0 => "B0",
            Self::B1 => "B1",
            Self::C0 => "C0",
            Self::Future => "future",
        };
        f.write_str(s)
    }
}

/// How a PCI revision ID mapped to a stepping.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct SteppingInfo {
    pub(crate) stepping: Stepping,
    /// False when the revision is not in the table and the nearest newer entry (or
    /// [`Stepping::Future`]) was used instead, as upstream does.
    pub(crate) exact: bool,
}

/// Revision ID to stepping, per die (`drivers/gpu/drm/xe/xe_step.c`,
/// dg2_g1{0,1,2}_revid_step_tbl). Sorted by revision.
fn revid_table(die: Die) -> &'static [(u8, Stepping)] {
    match die {
        Die::G10 => &[
            (0x0, Stepping::A0),
            (0x1, Stepping::A1),
            (0x4, Stepping::B0),
            (0x8, Stepping::C0),
        ],
        Die::G11 => &[
            (0x0, Stepping::A0),
            (0x4, Stepping::B0),
            (0x5, Stepping::B1),
        ],
        Die::G12 => &[(0x0, Stepping::A0), (0x1, Stepping::A1)],
    }
}

impl SteppingInfo {
    /// Maps a revision ID to a stepping. An unknown revision takes the next known newer one,
    /// or [`Stepping::Future`] past the end of the table (`xe_step.c`, `xe_step_pre_gmdid_get`):
    /// a warning for the caller to print, never a probe failure.
    pub(crate) fn from_revid(die: Die, revid: u8) -> Self {
        let table = revid_table(die);
        if let Some((_, stepping)) = table.iter().find(|(r, _)| *r == revid) {
            return Self {
                stepping: *stepping,
                exact: true,
            };
        }
        let stepping = table
            .iter()
            .find(|(r, _)| *r > revid)
            .map_or(Stepping::Future, |(_, s)| *s);
        Self {
            stepping,
            exact: false,
        }
    }
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_platform)]
mod tests {
    use super::*;

    #[test]
    fn known_revisions_map_exactly() {
        let c0 = SteppingInfo::from_revid(Die::G10, 0x8);
        assert_eq!(c0.stepping, Stepping::C0);
        assert!(c0.exact);
        assert_eq!(
            SteppingInfo::from_revid(Die::G11, 0x5).stepping,
            Stepping::B1
        );
        assert_eq!(
            SteppingInfo::from_revid(Die::G12, 0x1).stepping,
            Stepping::A1
        );
    }

    #[test]
    fn gap_takes_next_newer_stepping() {
        // G10 has no revision 2 or 3: upstream uses the entry for revision 4 (B0).
        let info = SteppingInfo::from_revid(Die::G10, 0x2);
        assert_eq!(info.stepping, Stepping::B0);
        assert!(!info.exact);
    }

    #[test]
    fn past_the_table_is_future() {
        let info = SteppingInfo::from_revid(Die::G11, 0x3f);
        assert_eq!(info.stepping, Stepping::Future);
        assert!(!info.exact);
    }

    #[test]
    fn products_sit_on_their_dies() {
        assert_eq!(Platform::AtsM150.die(), Die::G10);
        assert_eq!(Platform::AtsM75.die(), Die::G11);
        assert_eq!(Platform::Dg2G12.die(), Die::G12);
        assert!(Platform::AtsM75.sriov_pf());
        assert!(!Platform::Dg2G10.sriov_pf());
    }
}
