// SPDX-License-Identifier: GPL-2.0

//! PCI binding: the device-ID table, and probe and unbind handing over to [`Xehpg`], which
//! owns the bring-up and teardown order.

use kernel::{
    device::Core,
    pci,
    prelude::*, //
};

use crate::{device::Xehpg, platform::Platform};

/// Declares the PCI match table and [`DEVICE_IDS`] from one list, so lookups and tests use
/// exactly what the PCI core matches on.
macro_rules! device_ids {
    ($($id:literal => $platform:ident,)*) => {
        kernel::pci_device_table!(
            PCI_TABLE,
            <XehpgDriver as pci::Driver>::IdInfo,
            [$((pci::DeviceId::from_id(pci::Vendor::INTEL, $id), Platform::$platform)),*]
        );

        /// Every device ID the driver binds, with its product.
        #[cfg_attr(not(xehpg_kunit), allow(dead_code))]
        pub(crate) const DEVICE_IDS: &[(u16, Platform)] = &[$(($id, Platform::$platform)),*];
    };
}

// `include/drm/intel/pciids.h`: INTEL_DG2_G10/G11/G12_{D,E,M}_IDS, INTEL_ATS_M150_IDS and
// INTEL_ATS_M75_IDS.
device_ids! {
    0x56a0 => Dg2G10, 0x56a1 => Dg2G10, 0x56a2 => Dg2G10,
    0x56be => Dg2G10, 0x56bf => Dg2G10,
    0x5690 => Dg2G10, 0x5691 => Dg2G10, 0x5692 => Dg2G10,
    0x56a5 => Dg2G11, 0x56a6 => Dg2G11, 0x56b0 => Dg2G11, 0x56b1 => Dg2G11,
    0x56ba => Dg2G11, 0x56bb => Dg2G11, 0x56bc => Dg2G11, 0x56bd => Dg2G11,
    0x5693 => Dg2G11, 0x5694 => Dg2G11, 0x5695 => Dg2G11,
    0x56a3 => Dg2G12, 0x56a4 => Dg2G12, 0x56b2 => Dg2G12, 0x56b3 => Dg2G12,
    0x5696 => Dg2G12, 0x5697 => Dg2G12,
    0x56c0 => AtsM150, 0x56c2 => AtsM150,
    0x56c1 => AtsM75,
}

pub(crate) struct XehpgDriver;

impl pci::Driver for XehpgDriver {
    type IdInfo = Platform;
    type Data<'bound> = Xehpg<'bound>;
    const ID_TABLE: pci::IdTable<Self::IdInfo> = &PCI_TABLE;

    fn probe<'bound>(
        pdev: &'bound pci::Device<Core<'_>>,
        info: Option<&'bound Self::IdInfo>,
    ) -> impl PinInit<Self::Data<'bound>, Error> + 'bound {
        pin_init::pin_init_scope(move || Ok(Xehpg::new(pdev, *info.ok_or(ENODEV)?)))
    }

    fn unbind<'bound>(pdev: &'bound pci::Device<Core<'_>>, this: Pin<&Self::Data<'bound>>) {
        this.unbind(pdev);
    }
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_driver)]
mod tests {
    use super::*;

    #[test]
    fn id_table_matches_pciids() {
        // 8 G10 + 11 G11 + 6 G12 IDs (DG2) and 3 ATS-M IDs in pciids.h.
        assert_eq!(DEVICE_IDS.len(), 28);
        let count = |p| DEVICE_IDS.iter().filter(|(_, q)| *q == p).count();
        assert_eq!(count(Platform::Dg2G10), 8);
        assert_eq!(count(Platform::Dg2G11), 11);
        assert_eq!(count(Platform::Dg2G12), 6);
        assert_eq!(count(Platform::AtsM150), 2);
        assert_eq!(count(Platform::AtsM75), 1);
    }

    #[test]
    fn id_table_has_no_duplicates() {
        for (i, (a, _)) in DEVICE_IDS.iter().enumerate() {
            assert!(DEVICE_IDS[i + 1..].iter().all(|(b, _)| b != a));
        }
    }

    #[test]
    fn only_ats_m_is_sriov_pf() {
        for (id, p) in DEVICE_IDS {
            assert_eq!(p.sriov_pf(), (0x56c0..=0x56c2).contains(id));
        }
    }
}
