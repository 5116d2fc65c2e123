//! PCI device IDs the mock can impersonate.
//!
//! Source: `include/drm/intel/pciids.h` (`INTEL_DG2_*_IDS`, `INTEL_ATS_M150_IDS`,
//! `INTEL_ATS_M75_IDS`).

/// Intel's PCI vendor ID.
pub const VENDOR_INTEL: u16 = 0x8086;

/// Product family of a device ID; decides the PCI class code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// Arc A-series (Alchemist) with display.
    Dg2,
    /// Data Center GPU Flex (Arctic Sound-M): no display, SR-IOV capable.
    AtsM,
}

impl Family {
    /// PCI class code (base class, subclass, prog-if) the device reports.
    ///
    /// Both are display controllers (base class 0x03; the xe/i915 ID tables
    /// match on it through `INTEL_VGA_DEVICE`). DG2 drives displays and
    /// reports VGA-compatible (subclass 0x00). ATS-M has no display
    /// (`ats_m_desc` `.has_display = false` in `drivers/gpu/drm/xe/xe_pci.c`)
    /// and reports "other display controller" (subclass 0x80).
    pub const fn class_code(self) -> u32 {
        match self {
            Family::Dg2 => 0x03_0000,
            Family::AtsM => 0x03_8000,
        }
    }

    /// Short name for traces.
    pub const fn name(self) -> &'static str {
        match self {
            Family::Dg2 => "DG2",
            Family::AtsM => "ATS-M",
        }
    }
}

/// A device ID with the `pciids.h` group it comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KnownId {
    /// PCI device ID.
    pub id: u16,
    /// Product family.
    pub family: Family,
    /// The `pciids.h` group macro, minus the `INTEL_` prefix and `_IDS` suffix.
    pub group: &'static str,
}

const fn known(id: u16, family: Family, group: &'static str) -> KnownId {
    KnownId { id, family, group }
}

/// Every DG2 and ATS-M device ID (`include/drm/intel/pciids.h`).
pub const KNOWN_IDS: &[KnownId] = &[
    known(0x56A0, Family::Dg2, "DG2_G10_D"),
    known(0x56A1, Family::Dg2, "DG2_G10_D"),
    known(0x56A2, Family::Dg2, "DG2_G10_D"),
    known(0x56BE, Family::Dg2, "DG2_G10_E"),
    known(0x56BF, Family::Dg2, "DG2_G10_E"),
    known(0x5690, Family::Dg2, "DG2_G10_M"),
    known(0x5691, Family::Dg2, "DG2_G10_M"),
    known(0x5692, Family::Dg2, "DG2_G10_M"),
    known(0x56A5, Family::Dg2, "DG2_G11_D"),
    known(0x56A6, Family::Dg2, "DG2_G11_D"),
    known(0x56B0, Family::Dg2, "DG2_G11_D"),
    known(0x56B1, Family::Dg2, "DG2_G11_D"),
    known(0x56BA, Family::Dg2, "DG2_G11_E"),
    known(0x56BB, Family::Dg2, "DG2_G11_E"),
    known(0x56BC, Family::Dg2, "DG2_G11_E"),
    known(0x56BD, Family::Dg2, "DG2_G11_E"),
    known(0x5693, Family::Dg2, "DG2_G11_M"),
    known(0x5694, Family::Dg2, "DG2_G11_M"),
    known(0x5695, Family::Dg2, "DG2_G11_M"),
    known(0x56A3, Family::Dg2, "DG2_G12_D"),
    known(0x56A4, Family::Dg2, "DG2_G12_D"),
    known(0x56B2, Family::Dg2, "DG2_G12_D"),
    known(0x56B3, Family::Dg2, "DG2_G12_D"),
    known(0x5696, Family::Dg2, "DG2_G12_M"),
    known(0x5697, Family::Dg2, "DG2_G12_M"),
    known(0x56C0, Family::AtsM, "ATS_M150"),
    known(0x56C2, Family::AtsM, "ATS_M150"),
    known(0x56C1, Family::AtsM, "ATS_M75"),
];

/// Looks up a device ID.
pub fn lookup(id: u16) -> Option<&'static KnownId> {
    KNOWN_IDS.iter().find(|k| k.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_match_pciids() {
        let dg2 = KNOWN_IDS.iter().filter(|k| k.family == Family::Dg2).count();
        let atsm = KNOWN_IDS
            .iter()
            .filter(|k| k.family == Family::AtsM)
            .count();
        assert_eq!((dg2, atsm), (25, 3));
    }

    #[test]
    fn ids_are_unique() {
        for (i, a) in KNOWN_IDS.iter().enumerate() {
            assert!(
                KNOWN_IDS[i + 1..].iter().all(|b| b.id != a.id),
                "{:#x}",
                a.id
            );
        }
    }

    #[test]
    fn class_codes_by_family() {
        for id in [0x56C0, 0x56C1, 0x56C2] {
            assert_eq!(lookup(id).map(|k| k.family.class_code()), Some(0x038000));
        }
        assert_eq!(
            lookup(0x56A0).map(|k| k.family.class_code()),
            Some(0x030000)
        );
        assert_eq!(lookup(0x1234), None);
    }
}
