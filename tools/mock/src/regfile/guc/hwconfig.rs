//! The hardware configuration table the GuC hands out with `GET_HWCONFIG`.
//!
//! Format, as upstream parses it (`xe_guc_hwconfig.c`
//! `xe_guc_hwconfig_lookup_u32` / `_dump`): a sequence of KLV entries, each
//! `key`, `length in dwords`, then that many value dwords; an entry needs at
//! least three dwords.
//!
//! Key numbers and names: `data/hwconfig-keys.tsv`, Mesa's
//! `enum intel_hwconfig` (`src/intel/dev/intel_hwconfig_types.h`; the file
//! names the commit it was read at), compiled in and parsed by [`keys`]. The
//! same file is what `make tables` turns into the driver's name table, so the
//! two sides cannot drift apart. The table below names its keys; [`table`]
//! resolves each name to its number through the file.
//!
//! Values are an ATS-M150's (Data Center GPU Flex 170: a DG2-G10 die, 32 Xe
//! cores / DSS of 16 EUs, 512 EUs, 16 MiB of L3 in 32 banks, 16 GB of GDDR6
//! on a 256-bit bus). Those that depend on fusing are derived from the
//! fuses, so a partly fused part reports fewer DSS, banks, channels and
//! engines:
//!
//! | Key | Name (without `INTEL_HWCONFIG_`) | Value                              |
//! |-----|----------------------------------|------------------------------------|
//! | 1   | `MAX_SLICES_SUPPORTED`           | quadrants alive (MSLICEs present)  |
//! | 2   | `MAX_DUAL_SUBSLICES_SUPPORTED`   | enabled DSS (`dss_g | dss_c`)      |
//! | 3   | `MAX_NUM_EU_PER_DSS`             | 16                                 |
//! | 6   | `DEPRECATED_L3_CACHE_SIZE_IN_KB` | banks x 512                        |
//! | 7   | `DEPRECATED_L3_BANK_COUNT`       | L3 bank instances present          |
//! | 10  | `MAX_MEMORY_CHANNELS`            | 2 per meml3 quadrant (8 x 32 bit)  |
//! | 12  | `CACHE_TYPES`                    | 1: L3 only (no LLC, no eDRAM)      |
//! | 15  | `NUM_THREADS_PER_EU`             | 8                                  |
//! | 23  | `MAX_RCS`                        | 1                                  |
//! | 24  | `MAX_CCS`                        | 4                                  |
//! | 25  | `MAX_VCS`                        | present VDBOXes                    |
//! | 26  | `MAX_VECS`                       | present VEBOXes                    |
//! | 27  | `MAX_COPY_CS`                    | 1                                  |
//! | 64  | `L3_BANK_SIZE_IN_KB`             | 512                                |
//!
//! Where the constants come from: 16 EUs per DSS and 8 threads per EU are
//! Mesa's Gfx12.5 figures (`intel_device_info.c` `init_max_scratch_ids`,
//! "16 EUs" x 8 thread IDs per subslice); one RCS, one BCS and four CCS are
//! i915's DG2 engine mask (`i915_pci.c` `DG2_FEATURES`); the L3 bits are
//! Mesa's `INTEL_HWCONFIG_CACHE_TYPE_*` (same header as the keys). `[MODEL]`:
//! 512 KiB per L3 bank and 2 channels per quadrant are the product's 16 MiB
//! and 256-bit bus spread over the 32 banks and 4 quadrants; the "MAX_"
//! counts report what the fuses leave, not the die's maximum, so that a
//! fused-down mock is visibly smaller. Keys a real table has that the mock
//! does not serve (URB, thread and fill-rate figures) are left out rather
//! than guessed; `MEMORY_TYPE` too, whose values Mesa knows only for LPDDR4
//! and LPDDR5, not GDDR6.
//!
//! With the fault `guc-hwconfig-corrupt` the last entry claims more dwords
//! than the table has left, which a driver must reject without reading past
//! the end (upstream's dump reports "Attribute %u is %u dwords, but only
//! %llu remain").

use std::sync::OnceLock;

use crate::regfile::Fuses;
use crate::regs::fuse;
use crate::seed_table::Group;

/// The key list, as checked in (see the module docs).
pub const KEYS_TSV: &str = include_str!("../../../data/hwconfig-keys.tsv");

/// The key list's path relative to the repository.
pub const KEYS_FILE: &str = "tools/mock/data/hwconfig-keys.tsv";

/// One hwconfig key: its number and name (without `INTEL_HWCONFIG_`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key<'a> {
    /// The key dword.
    pub number: u32,
    /// Mesa's name, prefix dropped.
    pub name: &'a str,
}

/// Parses the key list: `#` comments and blank lines, a `key<TAB>name`
/// header, then one `NUMBER<TAB>NAME` row per key, numbers decimal and
/// strictly increasing, names of `A-Z`, `0-9` and `_`, each once.
///
/// # Errors
///
/// The first line that breaks those rules, by line number.
pub fn parse_keys(text: &str) -> Result<Vec<Key<'_>>, String> {
    let mut keys: Vec<Key<'_>> = Vec::new();
    let mut header = false;
    for (i, line) in text.lines().enumerate() {
        let at = |what: String| format!("line {}: {what}", i + 1);
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        if !header {
            if line != "key\tname" {
                return Err(at(format!(
                    "expected the header `key<TAB>name`, got `{line}`"
                )));
            }
            header = true;
            continue;
        }
        let mut cols = line.split('\t');
        let (Some(num), Some(name), None) = (cols.next(), cols.next(), cols.next()) else {
            return Err(at(format!("expected `NUMBER<TAB>NAME`, got `{line}`")));
        };
        let number: u32 = num
            .parse()
            .map_err(|_| at(format!("`{num}` is not a decimal key number")))?;
        let name_ok = !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
        if !name_ok {
            return Err(at(format!("`{name}` is not a key name (A-Z, 0-9, _)")));
        }
        if let Some(prev) = keys.last() {
            if number <= prev.number {
                return Err(at(format!(
                    "key {number} after {}: keys must be strictly increasing",
                    prev.number
                )));
            }
        }
        if keys.iter().any(|k| k.name == name) {
            return Err(at(format!("`{name}` is listed twice")));
        }
        keys.push(Key { number, name });
    }
    if !header {
        return Err("no `key<TAB>name` header".into());
    }
    Ok(keys)
}

/// The checked-in key list, parsed once.
///
/// # Errors
///
/// The checked-in file does not parse (a unit test guards against it).
pub fn keys() -> Result<&'static [Key<'static>], &'static str> {
    static KEYS: OnceLock<Result<Vec<Key<'static>>, String>> = OnceLock::new();
    KEYS.get_or_init(|| parse_keys(KEYS_TSV))
        .as_ref()
        .map(Vec::as_slice)
        .map_err(String::as_str)
}

/// The number of the key called `name` in the checked-in list.
///
/// # Errors
///
/// The list does not parse or has no such key.
pub fn key(name: &str) -> Result<u32, String> {
    let keys = keys().map_err(|e| format!("{KEYS_FILE}: {e}"))?;
    keys.iter()
        .find(|k| k.name == name)
        .map(|k| k.number)
        .ok_or_else(|| format!("{KEYS_FILE} has no key `{name}`"))
}

/// The name of key `number` in the checked-in list, if it has one.
pub fn name(number: u32) -> Option<&'static str> {
    keys()
        .ok()?
        .iter()
        .find(|k| k.number == number)
        .map(|k| k.name)
}

/// EUs per DSS on Xe-HPG (module docs).
const EUS_PER_DSS: u32 = 16;
/// Hardware threads per EU on Xe-HPG (module docs).
const THREADS_PER_EU: u32 = 8;
/// L3 per bank in KiB (`[MODEL]`, module docs).
const L3_BANK_KB: u32 = 512;
/// Memory channels per memory/L3 quadrant (`[MODEL]`).
const CHANNELS_PER_QUADRANT: u32 = 2;
/// `INTEL_HWCONFIG_CACHE_TYPE_L3`, bit 0 (Mesa, same header as the keys).
const CACHE_TYPE_L3: u32 = 1 << 0;
/// Compute engines on DG2 (i915 `DG2_FEATURES`: CCS0-3).
const CCS: u32 = 4;

/// The entries for `fuses`, by key name, in the order they are served.
fn entries(fuses: &Fuses) -> Vec<(&'static str, u32)> {
    let count = |group: Group, n: usize| -> u32 {
        // CAST: n <= 32.
        (0..n).filter(|&i| fuses.present(group, i)).count() as u32
    };
    let media = u64::from(fuses.media);
    let banks = count(Group::L3bank, 32);
    vec![
        ("MAX_SLICES_SUPPORTED", count(Group::Mslice, 4)),
        ("MAX_DUAL_SUBSLICES_SUPPORTED", fuses.dss().count_ones()),
        ("MAX_NUM_EU_PER_DSS", EUS_PER_DSS),
        ("DEPRECATED_L3_CACHE_SIZE_IN_KB", banks * L3_BANK_KB),
        ("DEPRECATED_L3_BANK_COUNT", banks),
        (
            "MAX_MEMORY_CHANNELS",
            CHANNELS_PER_QUADRANT * (fuses.meml3 & 0xF).count_ones(),
        ),
        ("CACHE_TYPES", CACHE_TYPE_L3),
        ("NUM_THREADS_PER_EU", THREADS_PER_EU),
        ("MAX_RCS", 1),
        ("MAX_CCS", CCS),
        ("MAX_VCS", fuse::VDBOX.get(media).count_ones()),
        ("MAX_VECS", fuse::VEBOX.get(media).count_ones()),
        ("MAX_COPY_CS", 1),
        ("L3_BANK_SIZE_IN_KB", L3_BANK_KB),
    ]
}

/// Dwords the corrupt table's last entry claims beyond the one it has.
const CORRUPT_EXTRA: u32 = 4;

/// The table for `fuses`, as dwords: one single-dword entry per key, or
/// (`corrupt`) the same with the last entry's length running past the end.
///
/// # Errors
///
/// A key name the checked-in list lacks (a unit test guards against it).
pub fn table(fuses: &Fuses, corrupt: bool) -> Result<Vec<u32>, String> {
    let entries = entries(fuses);
    let mut t = Vec::with_capacity(3 * entries.len());
    for (name, value) in entries {
        t.extend([key(name)?, 1, value]);
    }
    if corrupt {
        // The length dword of the last entry.
        let len = t.len() - 2;
        t[len] += CORRUPT_EXTRA;
    }
    Ok(t)
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

    fn k(name: &str) -> u32 {
        key(name).expect("a listed key")
    }

    #[test]
    fn checked_in_keys_are_mesas_enum() {
        let keys = keys().expect("the checked-in list parses");
        // `enum intel_hwconfig` starts at 1 and counts up to its last key, 73.
        assert_eq!(keys.len(), 73);
        for (i, key) in keys.iter().enumerate() {
            assert_eq!(key.number as usize, i + 1, "{key:?}");
        }
        // Spot checks against the header's numbered comments.
        assert_eq!(k("MAX_SLICES_SUPPORTED"), 1);
        assert_eq!(k("MAX_NUM_EU_PER_DSS"), 3);
        assert_eq!(k("MAX_MEMORY_CHANNELS"), 10);
        assert_eq!(k("NUM_THREADS_PER_EU"), 15);
        assert_eq!(k("MAX_VECS"), 26);
        assert_eq!(k("L3_BANK_SIZE_IN_KB"), 64);
        assert_eq!(k("SLM_SIZE_PER_SS_IN_KB"), 73);
        assert_eq!(name(24), Some("MAX_CCS"));
        assert_eq!(name(0), None);
        assert_eq!(name(74), None);
        assert!(key("DSS_MASKS").is_err(), "the old made-up key is gone");
    }

    #[test]
    fn key_list_parser_refuses_bad_files() {
        let ok = "# c\n\nkey\tname\n1\tA_1\n5\tB\n";
        assert_eq!(
            parse_keys(ok),
            Ok(vec![
                Key {
                    number: 1,
                    name: "A_1"
                },
                Key {
                    number: 5,
                    name: "B"
                }
            ])
        );
        for (bad, why) in [
            ("1\tA\n", "header"),
            ("key\tname\n2\tA\n2\tB\n", "strictly increasing"),
            ("key\tname\n2\tA\n1\tB\n", "strictly increasing"),
            ("key\tname\n1\tA\n2\tA\n", "twice"),
            ("key\tname\n0x1\tA\n", "decimal"),
            ("key\tname\n1\ta\n", "not a key name"),
            ("key\tname\n1\tA\textra\n", "NUMBER<TAB>NAME"),
            ("key\tname\n1 A\n", "NUMBER<TAB>NAME"),
            ("# only a comment\n", "header"),
        ] {
            let e = parse_keys(bad).expect_err(bad);
            assert!(e.contains(why), "{bad:?}: {e}");
        }
    }

    #[test]
    fn ats_m150_table() {
        let t = table(&Fuses::ATS_M150, false).expect("every name is listed");
        let one = |name| {
            lookup(&t, k(name))
                .expect("well formed")
                .map(|v| v.to_vec())
        };
        assert_eq!(one("MAX_SLICES_SUPPORTED"), Some(vec![4]));
        assert_eq!(one("MAX_DUAL_SUBSLICES_SUPPORTED"), Some(vec![32]));
        assert_eq!(one("MAX_NUM_EU_PER_DSS"), Some(vec![16]));
        assert_eq!(one("DEPRECATED_L3_CACHE_SIZE_IN_KB"), Some(vec![16384]));
        assert_eq!(one("DEPRECATED_L3_BANK_COUNT"), Some(vec![32]));
        assert_eq!(one("MAX_MEMORY_CHANNELS"), Some(vec![8]));
        assert_eq!(one("CACHE_TYPES"), Some(vec![1]));
        assert_eq!(one("NUM_THREADS_PER_EU"), Some(vec![8]));
        assert_eq!(one("MAX_RCS"), Some(vec![1]));
        assert_eq!(one("MAX_CCS"), Some(vec![4]));
        assert_eq!(one("MAX_VCS"), Some(vec![2]));
        assert_eq!(one("MAX_VECS"), Some(vec![2]));
        assert_eq!(one("MAX_COPY_CS"), Some(vec![1]));
        assert_eq!(one("L3_BANK_SIZE_IN_KB"), Some(vec![512]));
        assert_eq!(one("MEMORY_TYPE"), None);
        // The product's 512 EUs.
        let eus =
            one("MAX_DUAL_SUBSLICES_SUPPORTED").unwrap()[0] * one("MAX_NUM_EU_PER_DSS").unwrap()[0];
        assert_eq!(eus, 512);
        assert_eq!(t.len(), 14 * 3);
        // Served in key order, like the list.
        let served: Vec<u32> = t.chunks(3).map(|e| e[0]).collect();
        assert!(served.windows(2).all(|w| w[0] < w[1]), "{served:?}");
        assert_eq!(bytes(&t).len(), 4 * t.len());
    }

    #[test]
    fn partial_part_reports_less() {
        let t = table(&Fuses::G11_PARTIAL, false).expect("every name is listed");
        let one = |name| lookup(&t, k(name)).expect("well formed").map(|v| v[0]);
        assert_eq!(one("MAX_SLICES_SUPPORTED"), Some(1));
        assert_eq!(one("MAX_DUAL_SUBSLICES_SUPPORTED"), Some(8));
        assert_eq!(one("DEPRECATED_L3_BANK_COUNT"), Some(8));
        assert_eq!(one("DEPRECATED_L3_CACHE_SIZE_IN_KB"), Some(4096));
        assert_eq!(one("MAX_MEMORY_CHANNELS"), Some(2));
        assert_eq!(one("MAX_VCS"), Some(1));
        assert_eq!(one("MAX_VECS"), Some(1));
        assert_eq!(one("MAX_NUM_EU_PER_DSS"), Some(16), "per DSS, not fused");
    }

    #[test]
    fn corrupt_table_runs_past_its_end() {
        let good = table(&Fuses::ATS_M150, false).expect("every name is listed");
        let bad = table(&Fuses::ATS_M150, true).expect("every name is listed");
        assert_eq!(good.len(), bad.len(), "same size, only a length differs");
        assert_eq!(
            lookup(&bad, k("MAX_SLICES_SUPPORTED")),
            Ok(Some(&[4u32][..]))
        );
        let e = lookup(&bad, k("L3_BANK_SIZE_IN_KB")).expect_err("the last entry is too long");
        assert!(e.contains("claims 5 dwords, but only 1 remain"), "{e}");
    }
}
