//! The hardware configuration table the GuC hands out with `GET_HWCONFIG`.
//!
//! Format, as upstream parses it (`xe_guc_hwconfig.c`
//! `xe_guc_hwconfig_lookup_u32` / `_dump`): a sequence of KLV entries, each
//! `key`, `length in dwords`, then that many value dwords; an entry needs at
//! least three dwords.
//!
//! `[MODEL]` The key numbers are the mock's own: neither the PRM seeds nor
//! the kernel tree define them (upstream only looks keys up by number). The
//! values are derived from the fuses, so a partly fused part reports fewer
//! DSS, banks and engines:
//!
//! | Key | Name              | Value                                        |
//! |-----|-------------------|----------------------------------------------|
//! | 1   | `SLICES`          | quadrants alive (MSLICE instances present)   |
//! | 2   | `DSS`             | enabled DSS (`dss_g | dss_c`)                |
//! | 3   | `EUS_PER_DSS`     | 16 (Xe-HPG: 512/256/128 EUs on 32/16/8 DSS)  |
//! | 4   | `L3_BANKS`        | L3 bank instances present                    |
//! | 5   | `MEMORY_CHANNELS` | 2 per meml3 quadrant (ATS-M150: 8)           |
//! | 6   | `VDBOX`           | present VDBOXes                              |
//! | 7   | `VEBOX`           | present VEBOXes                              |
//! | 8   | `DSS_MASKS`       | 2 dwords: geometry, compute DSS enables      |
//!
//! With the fault `guc-hwconfig-corrupt` the last entry claims more dwords
//! than the table has left, which a driver must reject without reading past
//! the end (upstream's dump reports "Attribute %u is %u dwords, but only
//! %llu remain").

use crate::regfile::Fuses;
use crate::regs::fuse;
use crate::seed_table::Group;

/// Key: quadrants alive.
pub const KEY_SLICES: u32 = 1;
/// Key: enabled DSS.
pub const KEY_DSS: u32 = 2;
/// Key: EUs per DSS.
pub const KEY_EUS_PER_DSS: u32 = 3;
/// Key: L3 banks present.
pub const KEY_L3_BANKS: u32 = 4;
/// Key: memory channels.
pub const KEY_MEMORY_CHANNELS: u32 = 5;
/// Key: VDBOXes present.
pub const KEY_VDBOX: u32 = 6;
/// Key: VEBOXes present.
pub const KEY_VEBOX: u32 = 7;
/// Key: geometry and compute DSS masks (two dwords).
pub const KEY_DSS_MASKS: u32 = 8;

/// EUs per DSS on Xe-HPG (`[MODEL]`, see the module docs).
const EUS_PER_DSS: u32 = 16;
/// Memory channels per memory/L3 quadrant (`[MODEL]`).
const CHANNELS_PER_QUADRANT: u32 = 2;

/// The table for `fuses`, as dwords.
pub fn table(fuses: &Fuses, corrupt: bool) -> Vec<u32> {
    let count = |group: Group, n: usize| -> u32 {
        // CAST: n <= 32.
        (0..n).filter(|&i| fuses.present(group, i)).count() as u32
    };
    let bits = |v: u64| -> u32 { v.count_ones() };
    let media = u64::from(fuses.media);
    let meml3 = fuses.meml3 & 0xF;
    let mut t = Vec::new();
    for (key, value) in [
        (KEY_SLICES, count(Group::Mslice, 4)),
        (KEY_DSS, fuses.dss().count_ones()),
        (KEY_EUS_PER_DSS, EUS_PER_DSS),
        (KEY_L3_BANKS, count(Group::L3bank, 32)),
        (
            KEY_MEMORY_CHANNELS,
            CHANNELS_PER_QUADRANT * meml3.count_ones(),
        ),
        (KEY_VDBOX, bits(fuse::VDBOX.get(media))),
        (KEY_VEBOX, bits(fuse::VEBOX.get(media))),
    ] {
        t.extend([key, 1, value]);
    }
    // The last entry: two values, or (corrupt) a length that runs past the
    // end of the table.
    let len = if corrupt { 6 } else { 2 };
    t.extend([KEY_DSS_MASKS, len, fuses.dss_g, fuses.dss_c]);
    t
}

/// The table as little-endian bytes.
pub fn bytes(table: &[u32]) -> Vec<u8> {
    table.iter().flat_map(|d| d.to_le_bytes()).collect()
}

/// Looks `key` up the way upstream does (`xe_guc_hwconfig_lookup_u32`),
/// refusing entries that run past the end; for tests and tools.
pub fn lookup(table: &[u32], key: u32) -> Result<Option<&[u32]>, String> {
    let mut i = 0;
    while i + 3 <= table.len() {
        let (k, len) = (table[i], table[i + 1] as usize);
        i += 2;
        let Some(values) = table.get(i..i.saturating_add(len)) else {
            return Err(format!(
                "key {k} claims {len} dwords, but only {} remain",
                table.len() - i
            ));
        };
        if k == key {
            return Ok(Some(values));
        }
        i += len;
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ats_m150_table() {
        let t = table(&Fuses::ATS_M150, false);
        let one = |k| lookup(&t, k).expect("well formed").map(|v| v.to_vec());
        assert_eq!(one(KEY_SLICES), Some(vec![4]));
        assert_eq!(one(KEY_DSS), Some(vec![32]));
        assert_eq!(one(KEY_EUS_PER_DSS), Some(vec![16]));
        assert_eq!(one(KEY_L3_BANKS), Some(vec![32]));
        assert_eq!(one(KEY_MEMORY_CHANNELS), Some(vec![8]));
        assert_eq!(one(KEY_VDBOX), Some(vec![2]));
        assert_eq!(one(KEY_VEBOX), Some(vec![2]));
        assert_eq!(one(KEY_DSS_MASKS), Some(vec![0xFFFF_FFFF, 0xFFFF_FFFF]));
        assert_eq!(one(99), None);
        assert_eq!(t.len(), 7 * 3 + 4);
        assert_eq!(bytes(&t).len(), 4 * t.len());
    }

    #[test]
    fn partial_part_reports_less() {
        let t = table(&Fuses::G11_PARTIAL, false);
        let one = |k| lookup(&t, k).expect("well formed").map(|v| v[0]);
        assert_eq!(one(KEY_SLICES), Some(1));
        assert_eq!(one(KEY_DSS), Some(8));
        assert_eq!(one(KEY_L3_BANKS), Some(8));
        assert_eq!(one(KEY_MEMORY_CHANNELS), Some(2));
        assert_eq!(one(KEY_VDBOX), Some(1));
        assert_eq!(one(KEY_VEBOX), Some(1));
    }

    #[test]
    fn corrupt_table_runs_past_its_end() {
        let good = table(&Fuses::ATS_M150, false);
        let bad = table(&Fuses::ATS_M150, true);
        assert_eq!(good.len(), bad.len(), "same size, only a length differs");
        assert_eq!(lookup(&bad, KEY_SLICES), Ok(Some(&[4u32][..])));
        let e = lookup(&bad, KEY_DSS_MASKS).expect_err("the last entry is too long");
        assert!(e.contains("claims 6 dwords, but only 2 remain"), "{e}");
    }
}
