// SPDX-License-Identifier: GPL-2.0

//! The local-memory translation table's formats: the two-level LMTT of Xe-HPG.
//!
//! A directory of 64 entries, one per function (the PF's, index 0, unused), each pointing at
//! the function's leaf table; a leaf entry maps one 2 MiB page of the VF's local memory onto
//! a 2 MiB page of the device's (seed 000 lines 380-392). Both entries are 32 bits with the
//! valid bit in bit 0; the directory pointer counts 64 KiB units from bit 4, the leaf's host
//! page number 2 MiB units from bit 5 (the bit positions are upstream's, `xe_lmtt_2l.c`: the
//! seed gives the widths, not where they sit).
//!
//! # Host address width: 37 bits, from the PRM
//!
//! The PRM's attribute table gives LMGAW = LMHAW = 37 bits with a 64K-entry (256 KiB) leaf
//! (seed 000 line 397). Upstream builds the 2-level table for 35 bits (a 16K-entry leaf)
//! unless a Kconfig option that no Kconfig defines asks for 37. The hardware walks the leaf
//! with the guest address bits LMGAW-1:21, whatever the driver allocated: with a 16K-entry
//! leaf, a VF touching its local-memory BAR beyond 32 GiB would make the GAM read the
//! 16K+1st entry, which is memory after the leaf, possibly another VF's table. The PRM's
//! width makes every index the hardware can form land in the VF's own leaf, all entries
//! beyond its size invalid. The cost is 192 KiB more local memory per VF (12 MiB for 63).
//! Both widths encode an address below 32 GiB identically.

use kernel::prelude::*;

/// Host (and guest) local-memory address width (seed 000 line 397).
pub(crate) const HAW: u32 = 37;
/// Directory entries: one per function, PF and 63 VFs (seed 000 line 382).
pub(crate) const DIR_ENTRIES: usize = 64;
const _: () = assert!(crate::mem::ggtt::MAX_VFS as usize == DIR_ENTRIES - 1);
/// Bytes of a leaf page (seed 000 line 391: address bits LMHAW-1:21).
pub(crate) const PAGE: u64 = 1 << 21;
/// Leaf entries: one per 2 MiB page of the guest's 2^HAW bytes (seed 000 line 397, 64K).
pub(crate) const LEAF_ENTRIES: usize = 1 << (HAW - 21);
/// Bytes of one entry of either level (seed 000 line 397).
pub(crate) const ENTRY_BYTES: u64 = 4;
/// Bytes of a leaf table (256 KiB).
pub(crate) const LEAF_BYTES: u64 = LEAF_ENTRIES as u64 * ENTRY_BYTES;
/// Alignment of the directory and of a leaf: the pointer counts 64 KiB units (seed 000
/// lines 384, 387).
pub(crate) const TABLE_ALIGN: u64 = 64 << 10;

const VALID: u32 = 1;
const DIR_PTR_SHIFT: u32 = 4;
const PAGE_SHIFT: u32 = 5;

fn below_haw(addr: u64) -> Result {
    if addr >> HAW != 0 {
        return Err(ERANGE);
    }
    Ok(())
}

/// The directory entry of a leaf table at device offset `leaf`.
///
/// # Errors
///
/// `EINVAL` unless 64 KiB aligned, `ERANGE` beyond the host address width.
pub(crate) fn dir_entry(leaf: u64) -> Result<u32> {
    if leaf % TABLE_ALIGN != 0 {
        return Err(EINVAL);
    }
    below_haw(leaf)?;
    // CAST: below 2^(37-16), the field's width.
    Ok(((leaf / TABLE_ALIGN) as u32) << DIR_PTR_SHIFT | VALID)
}

/// The leaf entry of the device page at offset `page`.
///
/// # Errors
///
/// `EINVAL` unless 2 MiB aligned, `ERANGE` beyond the host address width.
pub(crate) fn leaf_entry(page: u64) -> Result<u32> {
    if page % PAGE != 0 {
        return Err(EINVAL);
    }
    below_haw(page)?;
    // CAST: below 2^(37-21), the field's width.
    Ok(((page / PAGE) as u32) << PAGE_SHIFT | VALID)
}

/// The leaf index of offset `offset` of a VF's local memory.
///
/// # Errors
///
/// `ERANGE` beyond the guest address width.
pub(crate) fn leaf_index(offset: u64) -> Result<usize> {
    below_haw(offset)?;
    // CAST: below LEAF_ENTRIES.
    Ok((offset / PAGE) as usize)
}

/// The directory pointer of `LMEM_CFG` for a directory at device offset `dir`: 64 KiB units
/// (seed 000 lines 384, 387).
///
/// # Errors
///
/// As [`dir_entry`].
pub(crate) fn dir_ptr(dir: u64) -> Result<u32> {
    if dir % TABLE_ALIGN != 0 {
        return Err(EINVAL);
    }
    below_haw(dir)?;
    // CAST: below 2^21.
    Ok((dir / TABLE_ALIGN) as u32)
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_lmtt)]
mod tests {
    use super::*;

    #[test]
    fn geometry_is_the_prms() {
        assert_eq!(DIR_ENTRIES as u64 * ENTRY_BYTES, 256);
        assert_eq!(LEAF_ENTRIES, 65536);
        assert_eq!(LEAF_BYTES, 256 << 10);
        assert_eq!(LEAF_ENTRIES as u64 * PAGE, 128 << 30);
    }

    // Upstream's lmtt vectors (tests/xe_lmtt_test.c, xe_lmtt_2l.c): zero encodes as valid,
    // one page / one 64 KiB unit lands in the field's lowest bit.
    #[test]
    fn entries_encode_as_upstream_below_32_gib() -> Result {
        assert_eq!(leaf_entry(0)?, 0x1);
        assert_eq!(dir_entry(0)?, 0x1);
        assert_eq!(leaf_entry(PAGE)?, 0x21);
        assert_eq!(dir_entry(TABLE_ALIGN)?, 0x11);
        // 12 GiB: page 6144.
        assert_eq!(leaf_entry(0x3_0000_0000)?, 6144 << 5 | 1);
        Ok(())
    }

    #[test]
    fn the_prm_width_reaches_128_gib() -> Result {
        let top = (1u64 << HAW) - PAGE;
        assert_eq!(leaf_entry(top)?, 0xffff << 5 | 1);
        assert_eq!(leaf_entry(1 << HAW), Err(ERANGE));
        assert_eq!(leaf_index(top)?, LEAF_ENTRIES - 1);
        assert_eq!(leaf_index(1 << HAW), Err(ERANGE));
        assert_eq!(dir_entry((1 << HAW) - TABLE_ALIGN)?, 0x1f_ffff << 4 | 1);
        Ok(())
    }

    #[test]
    fn misaligned_addresses_are_refused() {
        assert_eq!(leaf_entry(PAGE / 2), Err(EINVAL));
        assert_eq!(dir_entry(4096), Err(EINVAL));
        assert_eq!(dir_ptr(4096), Err(EINVAL));
    }

    #[test]
    fn index_arithmetic() -> Result {
        assert_eq!(leaf_index(PAGE - 1)?, 0);
        assert_eq!(leaf_index(PAGE + 1)?, 1);
        assert_eq!(leaf_index(2 * PAGE - 1)?, 1);
        assert_eq!(leaf_index(2 * PAGE)?, 2);
        Ok(())
    }

    #[test]
    fn dir_ptr_counts_64_kib() -> Result {
        assert_eq!(dir_ptr(0x3ff0_0000)?, 0x3ff0);
        assert_eq!(dir_ptr(1 << HAW), Err(ERANGE));
        Ok(())
    }
}
