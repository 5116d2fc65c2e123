//! Public register map of the mock's trapped BAR0 register file.
//!
//! This table is a contract: `tools/check` compares it with the driver's
//! `kernel::io::register!` definitions, so register names stay verbatim as the
//! PRM and upstream `xe` spell them, field names are lower-case snake case, and
//! bit ranges are inclusive (`hi:lo`). Behaviour lives in [`crate::regfile`];
//! this module only says *where* registers and fields are.
//!
//! Abbreviations: SGunit/Gunit = the system/graphics agent units that own the
//! always-on registers below (no forcewake needed); PCODE = the power
//! controller firmware reached through a mailbox; FLR = function-level reset;
//! GSM = GGTT stolen memory; LMEM = device-local memory.

/// One bit field of a register: bits `hi..=lo`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldDef {
    /// Lower-case snake-case field name.
    pub name: &'static str,
    /// Highest bit of the field (inclusive).
    pub hi: u8,
    /// Lowest bit of the field (inclusive).
    pub lo: u8,
}

impl FieldDef {
    /// Mask of the field's bits in the register value.
    pub const fn mask(&self) -> u64 {
        let width = self.hi - self.lo + 1;
        if width >= 64 {
            u64::MAX
        } else {
            ((1u64 << width) - 1) << self.lo
        }
    }

    /// Mask of the field for a 32-bit register.
    ///
    /// Only meaningful for fields that lie in bits 31:0; the high half of a
    /// wider field is dropped.
    pub const fn mask32(&self) -> u32 {
        // CAST: truncation to the low dword is the documented intent.
        self.mask() as u32
    }

    /// Extracts the field from a register value.
    pub const fn get(&self, value: u64) -> u64 {
        (value & self.mask()) >> self.lo
    }

    /// Places `value` into the field's position; excess high bits are dropped.
    pub const fn prep(&self, value: u64) -> u64 {
        (value << self.lo) & self.mask()
    }
}

/// One register of the trapped BAR0 range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegDef {
    /// Register name, verbatim from the PRM / upstream `xe`.
    pub name: &'static str,
    /// Byte offset in BAR0 (of the low dword for 64-bit registers).
    pub offset: u32,
    /// Fields, in no particular order.
    pub fields: &'static [FieldDef],
}

impl RegDef {
    /// Width of the register in bytes: 8 if a field reaches above bit 31.
    pub fn width(&self) -> u32 {
        if self.fields.iter().any(|f| f.hi > 31) {
            8
        } else {
            4
        }
    }

    /// Whether the byte at `offset` belongs to this register.
    pub fn contains(&self, offset: u32) -> bool {
        offset >= self.offset && offset - self.offset < self.width()
    }
}

/// `GU_CNTL`: Gunit control (`drivers/gpu/drm/xe/regs/xe_regs.h`).
pub mod gu_cntl {
    use super::{FieldDef, RegDef};

    /// Offset, `drivers/gpu/drm/xe/regs/xe_regs.h` (`GU_CNTL`).
    pub const OFFSET: u32 = 0x10_1010;
    /// Local memory is initialised and usable (`LMEM_INIT`, xe_regs.h).
    pub const LMEM_INIT: FieldDef = FieldDef {
        name: "lmem_init",
        hi: 7,
        lo: 7,
    };
    /// Driver-FLR trigger; reads 1 while the teardown runs (`DRIVERFLR`,
    /// xe_regs.h; handshake in `xe_device.c` `__xe_driver_flr`).
    pub const DRIVERFLR: FieldDef = FieldDef {
        name: "driverflr",
        hi: 31,
        lo: 31,
    };
    /// Register definition.
    pub const DEF: RegDef = RegDef {
        name: "GU_CNTL",
        offset: OFFSET,
        fields: &[LMEM_INIT, DRIVERFLR],
    };
}

/// `GU_DEBUG`: Gunit debug/status (`drivers/gpu/drm/xe/regs/xe_regs.h`).
pub mod gu_debug {
    use super::{FieldDef, RegDef};

    /// Offset, `drivers/gpu/drm/xe/regs/xe_regs.h` (`GU_DEBUG`).
    pub const OFFSET: u32 = 0x10_1018;
    /// Driver-FLR re-init complete; sticky, write 1 to clear
    /// (`DRIVERFLR_STATUS`, xe_regs.h; W1C use in `xe_device.c`).
    pub const DRIVERFLR_STATUS: FieldDef = FieldDef {
        name: "driverflr_status",
        hi: 31,
        lo: 31,
    };
    /// Register definition.
    pub const DEF: RegDef = RegDef {
        name: "GU_DEBUG",
        offset: OFFSET,
        fields: &[DRIVERFLR_STATUS],
    };
}

/// `PCODE_MAILBOX`: command/status word of the PCODE mailbox
/// (`drivers/gpu/drm/xe/xe_pcode_api.h`).
pub mod pcode_mailbox {
    use super::{FieldDef, RegDef};

    /// Offset, `xe_pcode_api.h` (`PCODE_MAILBOX`).
    pub const OFFSET: u32 = 0x13_8124;
    /// Set by the host to submit; cleared by PCODE on completion (`PCODE_READY`).
    pub const READY: FieldDef = FieldDef {
        name: "ready",
        hi: 31,
        lo: 31,
    };
    /// Second command parameter (`PCODE_MB_PARAM2`).
    pub const PARAM2: FieldDef = FieldDef {
        name: "param2",
        hi: 23,
        lo: 16,
    };
    /// First command parameter / sub-command (`PCODE_MB_PARAM1`).
    pub const PARAM1: FieldDef = FieldDef {
        name: "param1",
        hi: 15,
        lo: 8,
    };
    /// Command on submission; error code on completion (`PCODE_MB_COMMAND`,
    /// `PCODE_ERROR_MASK`).
    pub const COMMAND: FieldDef = FieldDef {
        name: "command",
        hi: 7,
        lo: 0,
    };
    /// Register definition.
    pub const DEF: RegDef = RegDef {
        name: "PCODE_MAILBOX",
        offset: OFFSET,
        fields: &[READY, PARAM2, PARAM1, COMMAND],
    };
}

/// Whole-dword `value` field shared by the PCODE data registers.
const PCODE_DATA_VALUE: FieldDef = FieldDef {
    name: "value",
    hi: 31,
    lo: 0,
};

/// `PCODE_DATA0`: first mailbox data dword (`xe_pcode_api.h`).
pub mod pcode_data0 {
    use super::{FieldDef, RegDef, PCODE_DATA_VALUE};

    /// Offset, `xe_pcode_api.h` (`PCODE_DATA0`).
    pub const OFFSET: u32 = 0x13_8128;
    /// The data dword.
    pub const VALUE: FieldDef = PCODE_DATA_VALUE;
    /// Register definition.
    pub const DEF: RegDef = RegDef {
        name: "PCODE_DATA0",
        offset: OFFSET,
        fields: &[VALUE],
    };
}

/// `PCODE_DATA1`: second mailbox data dword (`xe_pcode_api.h`).
pub mod pcode_data1 {
    use super::{FieldDef, RegDef, PCODE_DATA_VALUE};

    /// Offset, `xe_pcode_api.h` (`PCODE_DATA1`).
    pub const OFFSET: u32 = 0x13_812C;
    /// The data dword.
    pub const VALUE: FieldDef = PCODE_DATA_VALUE;
    /// Register definition.
    pub const DEF: RegDef = RegDef {
        name: "PCODE_DATA1",
        offset: OFFSET,
        fields: &[VALUE],
    };
}

/// `VF_CAP_REG`: tells a function whether it is a VF
/// (`drivers/gpu/drm/xe/regs/xe_regs.h`; use in `xe_sriov.c`).
pub mod vf_cap_reg {
    use super::{FieldDef, RegDef};

    /// Offset, xe_regs.h (`VF_CAP_REG`).
    pub const OFFSET: u32 = 0x19_01F8;
    /// 1 on a virtual function, 0 on the PF (`VF_CAP`).
    pub const VF_CAP: FieldDef = FieldDef {
        name: "vf_cap",
        hi: 0,
        lo: 0,
    };
    /// Register definition.
    pub const DEF: RegDef = RegDef {
        name: "VF_CAP_REG",
        offset: OFFSET,
        fields: &[VF_CAP],
    };
}

/// `SG_TILE_ADDR_RANGE(0)`: size and offset of tile 0's local memory
/// (`drivers/gpu/drm/xe/regs/xe_regs.h`; fields from `xe_vram.c`
/// `tile_vram_size()`, which decodes `GENMASK(17, 8)` and `GENMASK(7, 1)`).
pub mod sg_tile_addr_range {
    use super::{FieldDef, RegDef};

    /// Offset of instance 0, xe_regs.h (`SG_TILE_ADDR_RANGE(_idx)` = 0x1083a0 + 4 * idx).
    pub const OFFSET: u32 = 0x10_83A0;
    /// Tile local-memory size in GiB.
    pub const SIZE_GIB: FieldDef = FieldDef {
        name: "size_gib",
        hi: 17,
        lo: 8,
    };
    /// Tile offset in the device physical address space, in GiB.
    pub const OFFSET_GIB: FieldDef = FieldDef {
        name: "offset_gib",
        hi: 7,
        lo: 1,
    };
    /// Register definition.
    pub const DEF: RegDef = RegDef {
        name: "SG_TILE_ADDR_RANGE",
        offset: OFFSET,
        fields: &[SIZE_GIB, OFFSET_GIB],
    };
}

/// `GSMBASE`: 64-bit base of GGTT stolen memory in local memory
/// (`drivers/gpu/drm/xe/regs/xe_regs.h`; read whole with
/// `xe_mmio_read64_2x32` in `xe_vram.c` `tile_vram_size()`).
///
/// Upstream defines no field mask for GSMBASE and uses the raw 64-bit value as
/// a byte offset, so the map exposes a single `value` field (63:0) rather than
/// guessing an address mask like DSMBASE's `BDSM_MASK` (63:20).
pub mod gsmbase {
    use super::{FieldDef, RegDef};

    /// Offset of the low dword, xe_regs.h (`GSMBASE`); the high dword is at +4.
    pub const OFFSET: u32 = 0x10_8100;
    /// The 64-bit base address.
    pub const VALUE: FieldDef = FieldDef {
        name: "value",
        hi: 63,
        lo: 0,
    };
    /// Register definition.
    pub const DEF: RegDef = RegDef {
        name: "GSMBASE",
        offset: OFFSET,
        fields: &[VALUE],
    };
}

/// Every register of the trapped BAR0 range the mock knows, sorted by offset.
pub const REGISTERS: &[RegDef] = &[
    gu_cntl::DEF,
    gu_debug::DEF,
    gsmbase::DEF,
    sg_tile_addr_range::DEF,
    pcode_mailbox::DEF,
    pcode_data0::DEF,
    pcode_data1::DEF,
    vf_cap_reg::DEF,
];

/// The register that contains the byte at `offset`, if any.
pub fn lookup(offset: u32) -> Option<&'static RegDef> {
    REGISTERS.iter().find(|r| r.contains(offset))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(r: &RegDef) -> Vec<(&'static str, u8, u8)> {
        r.fields.iter().map(|f| (f.name, f.hi, f.lo)).collect()
    }

    /// Pins the contract with `tools/check`: any change here must be a
    /// deliberate change on both sides.
    #[test]
    fn contract_is_exact() {
        let got: Vec<_> = REGISTERS
            .iter()
            .map(|r| (r.name, r.offset, fields(r)))
            .collect();
        let want = vec![
            (
                "GU_CNTL",
                0x101010,
                vec![("lmem_init", 7, 7), ("driverflr", 31, 31)],
            ),
            ("GU_DEBUG", 0x101018, vec![("driverflr_status", 31, 31)]),
            ("GSMBASE", 0x108100, vec![("value", 63, 0)]),
            (
                "SG_TILE_ADDR_RANGE",
                0x1083A0,
                vec![("size_gib", 17, 8), ("offset_gib", 7, 1)],
            ),
            (
                "PCODE_MAILBOX",
                0x138124,
                vec![
                    ("ready", 31, 31),
                    ("param2", 23, 16),
                    ("param1", 15, 8),
                    ("command", 7, 0),
                ],
            ),
            ("PCODE_DATA0", 0x138128, vec![("value", 31, 0)]),
            ("PCODE_DATA1", 0x13812C, vec![("value", 31, 0)]),
            ("VF_CAP_REG", 0x1901F8, vec![("vf_cap", 0, 0)]),
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn table_is_sorted_and_disjoint() {
        for pair in REGISTERS.windows(2) {
            assert!(
                pair[0].offset + pair[0].width() <= pair[1].offset,
                "{} overlaps or precedes {}",
                pair[0].name,
                pair[1].name
            );
        }
    }

    #[test]
    fn fields_do_not_overlap_and_fit() {
        for r in REGISTERS {
            let mut seen = 0u64;
            for f in r.fields {
                assert!(f.hi >= f.lo, "{}.{}", r.name, f.name);
                assert!(u32::from(f.hi) < r.width() * 8, "{}.{}", r.name, f.name);
                assert_eq!(seen & f.mask(), 0, "{}.{} overlaps", r.name, f.name);
                seen |= f.mask();
            }
        }
    }

    #[test]
    fn field_helpers() {
        assert_eq!(pcode_mailbox::PARAM1.mask(), 0xFF00);
        assert_eq!(pcode_mailbox::PARAM1.get(0x8012_3456), 0x34);
        assert_eq!(pcode_mailbox::PARAM2.prep(0x1FF), 0xFF_0000);
        assert_eq!(gsmbase::VALUE.mask(), u64::MAX);
        assert_eq!(gu_cntl::DRIVERFLR.mask32(), 0x8000_0000);
        assert_eq!(sg_tile_addr_range::OFFSET_GIB.mask32(), 0xFE);
    }

    #[test]
    fn lookup_covers_both_dwords_of_64_bit_registers() {
        assert_eq!(gsmbase::DEF.width(), 8);
        assert_eq!(lookup(0x108104).map(|r| r.name), Some("GSMBASE"));
        assert_eq!(lookup(0x108108), None);
        assert_eq!(lookup(0x101013).map(|r| r.name), Some("GU_CNTL"));
        assert_eq!(lookup(0x101014), None);
    }
}
