//! The PCI device IDs the driver binds, with their products.
//!
//! One list, kept by hand beside the driver's: `device_ids!` in
//! `rust/driver.rs` (upstream's `include/drm/intel/pciids.h`), with the
//! product names of `Platform::name` in `rust/platform.rs`. A unit test reads
//! the driver's source and fails when the two differ.

/// Intel's PCI vendor ID.
pub const INTEL: u16 = 0x8086;

/// Every device ID of `rust/driver.rs`, with its product.
pub const DEVICE_IDS: &[(u16, &str)] = &[
    (0x56a0, "DG2-G10"),
    (0x56a1, "DG2-G10"),
    (0x56a2, "DG2-G10"),
    (0x56be, "DG2-G10"),
    (0x56bf, "DG2-G10"),
    (0x5690, "DG2-G10"),
    (0x5691, "DG2-G10"),
    (0x5692, "DG2-G10"),
    (0x56a5, "DG2-G11"),
    (0x56a6, "DG2-G11"),
    (0x56b0, "DG2-G11"),
    (0x56b1, "DG2-G11"),
    (0x56ba, "DG2-G11"),
    (0x56bb, "DG2-G11"),
    (0x56bc, "DG2-G11"),
    (0x56bd, "DG2-G11"),
    (0x5693, "DG2-G11"),
    (0x5694, "DG2-G11"),
    (0x5695, "DG2-G11"),
    (0x56a3, "DG2-G12"),
    (0x56a4, "DG2-G12"),
    (0x56b2, "DG2-G12"),
    (0x56b3, "DG2-G12"),
    (0x5696, "DG2-G12"),
    (0x5697, "DG2-G12"),
    (0x56c0, "ATS-M150"),
    (0x56c2, "ATS-M150"),
    (0x56c1, "ATS-M75"),
];

/// The product of device ID `id`, if the driver binds it.
pub fn product(id: u16) -> Option<&'static str> {
    DEVICE_IDS.iter().find(|(d, _)| *d == id).map(|(_, p)| *p)
}

/// Whether the product runs an SR-IOV PF (ATS-M, as upstream).
pub fn sriov_pf(product: &str) -> bool {
    product.starts_with("ATS-M")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The driver's `device_ids!` block as (ID, product) pairs, its
    /// `Platform` variants turned into the names `Platform::name` prints.
    fn driver_ids(source: &str) -> Vec<(u16, String)> {
        let start = source.find("device_ids! {").expect("device_ids! block");
        let block = &source[start..];
        let block = &block[..block.find('}').expect("end of the block")];
        let name = |v: &str| match v {
            "Dg2G10" => "DG2-G10",
            "Dg2G11" => "DG2-G11",
            "Dg2G12" => "DG2-G12",
            "AtsM150" => "ATS-M150",
            "AtsM75" => "ATS-M75",
            other => panic!("a product this list does not know: {other}"),
        };
        block
            .split(',')
            .filter_map(|entry| entry.split_once("=>"))
            .map(|(id, variant)| {
                let id = id.trim().rsplit(char::is_whitespace).next().unwrap();
                let id = u16::from_str_radix(id.trim_start_matches("0x"), 16).unwrap();
                (id, name(variant.trim()).to_string())
            })
            .collect()
    }

    #[test]
    fn the_list_is_the_drivers() {
        let source = include_str!("../../../rust/driver.rs");
        let mut theirs = driver_ids(source);
        let mut ours: Vec<(u16, String)> = DEVICE_IDS
            .iter()
            .map(|(i, p)| (*i, p.to_string()))
            .collect();
        theirs.sort();
        ours.sort();
        assert_eq!(theirs.len(), 28, "the driver's table has 28 IDs");
        assert_eq!(ours, theirs);
    }

    #[test]
    fn the_parser_sees_a_change() {
        let changed = "device_ids! {\n    0x56a0 => Dg2G10, 0x1234 => AtsM75,\n}\n";
        assert_eq!(
            driver_ids(changed),
            [
                (0x56a0, "DG2-G10".to_string()),
                (0x1234, "ATS-M75".to_string())
            ]
        );
    }

    #[test]
    fn lookups() {
        assert_eq!(product(0x56c0), Some("ATS-M150"));
        assert_eq!(product(0x56c1), Some("ATS-M75"));
        assert_eq!(product(0x1234), None);
        assert!(sriov_pf("ATS-M75") && !sriov_pf("DG2-G11"));
    }
}
