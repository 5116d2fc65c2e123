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
//! GSM = GGTT stolen memory; LMEM = device-local memory; MCR = multicast /
//! replicated register (one copy per instance of a replicated unit, reached
//! through a steering selector); DSS = dual sub-slice; MGSR = the GT's MMIO
//! entry point that applies forcewake, shadowing and steering.
//!
//! Which forcewake domain each register needs is not part of this map: it
//! comes from the PRM's table ([`crate::power`]).

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

/// `RPM_CONFIG0`: the RPM unit's configuration, of which upstream reads
/// the crystal clock's frequency and the command-streamer timestamp's
/// shift (`regs/xe_gt_regs.h`; decoded in `xe_gt_clock.c`
/// `get_crystal_clock_freq` and `xe_gt_clock_init`). Always on (seed 000
/// line 464, AON). Read-only.
pub mod rpm_config0 {
    use super::{FieldDef, RegDef};

    /// Offset (`RPM_CONFIG0`).
    pub const OFFSET: u32 = 0x0D00;
    /// `RPM_CONFIG0_CRYSTAL_CLOCK_FREQ_MASK`: 0 24 MHz, 1 19.2 MHz, 2
    /// 38.4 MHz, 3 25 MHz (`RPM_CONFIG0_CRYSTAL_CLOCK_FREQ_*`).
    pub const CRYSTAL_CLOCK_FREQ: FieldDef = FieldDef {
        name: "crystal_clock_freq",
        hi: 5,
        lo: 3,
    };
    /// `RPM_CONFIG0_CRYSTAL_CLOCK_FREQ_38_4_MHZ`.
    pub const CRYSTAL_38_4_MHZ: u64 = 2;
    /// `RPM_CONFIG0_CTC_SHIFT_PARAMETER_MASK`: the timestamp counts at the
    /// crystal's frequency >> (3 - this) (`xe_gt_clock_init`).
    pub const CTC_SHIFT_PARAMETER: FieldDef = FieldDef {
        name: "ctc_shift_parameter",
        hi: 2,
        lo: 1,
    };
    /// Register definition.
    pub const DEF: RegDef = RegDef {
        name: "RPM_CONFIG0",
        offset: OFFSET,
        fields: &[CRYSTAL_CLOCK_FREQ, CTC_SHIFT_PARAMETER],
    };
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

/// Forcewake request (`FORCEWAKE_*`) and acknowledge (`FORCEWAKE_ACK_*`)
/// registers, one per domain, indexed like [`crate::power::Domain`]: GT,
/// RENDER, VDBOX0-7, VEBOX0-3.
///
/// Offsets: the driver forcewake table, seed 000 lines 760-777 (they match
/// `regs/xe_gt_regs.h`). The seed gives no bit layout; the fields are
/// upstream's (`regs/xe_gt_regs.h` `FORCEWAKE_KERNEL`, `FORCEWAKE_MT`,
/// `FORCEWAKE_MT_MASK`; use in `xe_force_wake.c`): the request registers are
/// masked, bits 31:16 enabling the writes of bits 15:0, and bit 0 is the
/// driver's (kernel) request; the acknowledge register's bit 0 answers it.
pub mod forcewake {
    use super::{FieldDef, RegDef};

    /// Write enables of bits 15:0 (`FORCEWAKE_MT_MASK`).
    pub const MASK: FieldDef = FieldDef {
        name: "mask",
        hi: 31,
        lo: 16,
    };
    /// The driver's request / its acknowledge (`FORCEWAKE_KERNEL` = bit 0).
    pub const KERNEL: FieldDef = FieldDef {
        name: "kernel",
        hi: 0,
        lo: 0,
    };
    const REQUEST_FIELDS: &[FieldDef] = &[MASK, KERNEL];
    const ACK_FIELDS: &[FieldDef] = &[KERNEL];

    const fn request(name: &'static str, offset: u32) -> RegDef {
        RegDef {
            name,
            offset,
            fields: REQUEST_FIELDS,
        }
    }

    const fn ack(name: &'static str, offset: u32) -> RegDef {
        RegDef {
            name,
            offset,
            fields: ACK_FIELDS,
        }
    }

    /// Request registers: GT 0xA188, RENDER 0xA278, VDBOXn 0xA540 + 4n,
    /// VEBOXn 0xA560 + 4n (seed 000 lines 762-777).
    pub const REQUEST: [RegDef; 14] = [
        request("FORCEWAKE_GT", 0xA188),
        request("FORCEWAKE_RENDER", 0xA278),
        request("FORCEWAKE_MEDIA_VDBOX0", 0xA540),
        request("FORCEWAKE_MEDIA_VDBOX1", 0xA544),
        request("FORCEWAKE_MEDIA_VDBOX2", 0xA548),
        request("FORCEWAKE_MEDIA_VDBOX3", 0xA54C),
        request("FORCEWAKE_MEDIA_VDBOX4", 0xA550),
        request("FORCEWAKE_MEDIA_VDBOX5", 0xA554),
        request("FORCEWAKE_MEDIA_VDBOX6", 0xA558),
        request("FORCEWAKE_MEDIA_VDBOX7", 0xA55C),
        request("FORCEWAKE_MEDIA_VEBOX0", 0xA560),
        request("FORCEWAKE_MEDIA_VEBOX1", 0xA564),
        request("FORCEWAKE_MEDIA_VEBOX2", 0xA568),
        request("FORCEWAKE_MEDIA_VEBOX3", 0xA56C),
    ];

    /// Acknowledge registers: GT 0x130044, RENDER 0x0D84, VDBOXn 0x0D50 + 4n,
    /// VEBOXn 0x0D70 + 4n (seed 000 lines 762-777).
    pub const ACK: [RegDef; 14] = [
        ack("FORCEWAKE_ACK_GT", 0x13_0044),
        ack("FORCEWAKE_ACK_RENDER", 0x0D84),
        ack("FORCEWAKE_ACK_MEDIA_VDBOX0", 0x0D50),
        ack("FORCEWAKE_ACK_MEDIA_VDBOX1", 0x0D54),
        ack("FORCEWAKE_ACK_MEDIA_VDBOX2", 0x0D58),
        ack("FORCEWAKE_ACK_MEDIA_VDBOX3", 0x0D5C),
        ack("FORCEWAKE_ACK_MEDIA_VDBOX4", 0x0D60),
        ack("FORCEWAKE_ACK_MEDIA_VDBOX5", 0x0D64),
        ack("FORCEWAKE_ACK_MEDIA_VDBOX6", 0x0D68),
        ack("FORCEWAKE_ACK_MEDIA_VDBOX7", 0x0D6C),
        ack("FORCEWAKE_ACK_MEDIA_VEBOX0", 0x0D70),
        ack("FORCEWAKE_ACK_MEDIA_VEBOX1", 0x0D74),
        ack("FORCEWAKE_ACK_MEDIA_VEBOX2", 0x0D78),
        ack("FORCEWAKE_ACK_MEDIA_VEBOX3", 0x0D7C),
    ];
}

/// The MGSR steering control registers (seed 000 lines 706-716), always on
/// (the table row 0x000E00-0x000FFF is AON, seed 000 line 465).
///
/// Names are upstream's (`regs/xe_gt_regs.h`; 0xFD0 is `STEER_SEMAPHORE`
/// there, the MCFG selector on DG2). The seed names the fields (lines
/// 727-732) but gives no bit positions; these are upstream's pre-MTL layout
/// (`MCR_MULTICAST`, `MCR_SLICE_MASK`, `MCR_SUBSLICE_MASK`).
pub mod mcr_selector {
    use super::{FieldDef, RegDef};

    /// 1: writes go to every instance; 0: unicast (seed 000 line 730).
    pub const MULTICAST: FieldDef = FieldDef {
        name: "multicast",
        hi: 31,
        lo: 31,
    };
    /// sliceid.
    pub const SLICE: FieldDef = FieldDef {
        name: "slice",
        hi: 30,
        lo: 27,
    };
    /// subsliceid.
    pub const SUBSLICE: FieldDef = FieldDef {
        name: "subslice",
        hi: 26,
        lo: 24,
    };
    const FIELDS: &[FieldDef] = &[MULTICAST, SLICE, SUBSLICE];

    const fn def(name: &'static str, offset: u32) -> RegDef {
        RegDef {
            name,
            offset,
            fields: FIELDS,
        }
    }

    /// 0xFD0: "steering towards MCFG endpoints only" (seed 000 line 710).
    pub const STEER_SEMAPHORE: RegDef = def("STEER_SEMAPHORE", 0xFD0);
    /// 0xFD4: SF endpoints, HW agents (seed 000 line 711).
    pub const MTL_MCR_SELECTOR: RegDef = def("MTL_MCR_SELECTOR", 0xFD4);
    /// 0xFD8: SF endpoints, IA (seed 000 line 712).
    pub const SF_MCR_SELECTOR: RegDef = def("SF_MCR_SELECTOR", 0xFD8);
    /// 0xFDC: all other endpoints (seed 000 line 714).
    pub const MCR_SELECTOR: RegDef = def("MCR_SELECTOR", 0xFDC);
    /// 0xFE0: GAM endpoints (seed 000 line 713).
    pub const GAM_MCR_SELECTOR: RegDef = def("GAM_MCR_SELECTOR", 0xFE0);
}

/// Fuse reflections, read-only, in the GT domain (row 0x009000-0x0093FF,
/// seed 000 line 508).
pub mod fuse {
    use super::{FieldDef, RegDef};

    /// `MIRROR_FUSE3` 0x9118: `fuse_meml3_en[3:0]` (seed 000 line 754;
    /// `MEML3_EN_MASK` in `regs/xe_gt_regs.h`).
    pub const MIRROR_FUSE3: RegDef = RegDef {
        name: "MIRROR_FUSE3",
        offset: 0x9118,
        fields: &[MEML3_EN],
    };
    /// One bit per memory/L3 quadrant.
    pub const MEML3_EN: FieldDef = FieldDef {
        name: "meml3_en",
        hi: 3,
        lo: 0,
    };
    /// One bit per DSS.
    pub const DSS: FieldDef = FieldDef {
        name: "dss",
        hi: 31,
        lo: 0,
    };
    /// The whole dword of a fuse register upstream names no field of.
    pub const VALUE: FieldDef = FieldDef {
        name: "value",
        hi: 31,
        lo: 0,
    };
    /// `MIRROR_FUSE1` 0x911C (`regs/xe_gt_regs.h`, no field; not in the
    /// seed): upstream reads it only to pass it to the VFs
    /// (`xe_gt_sriov_pf_service.c` `ats_m_runtime_regs`).
    pub const MIRROR_FUSE1: RegDef = RegDef {
        name: "MIRROR_FUSE1",
        offset: 0x911C,
        fields: &[VALUE],
    };
    /// One bit per pair of EUs of every DSS, an enable on graphics 12.50
    /// and later (`XELP_EU_MASK`; `xe_gt_topology.c` `load_eu_mask` inverts
    /// it only below 12.50, "_DISABLE" on Xe_LP).
    pub const EU: FieldDef = FieldDef {
        name: "eu",
        hi: 7,
        lo: 0,
    };
    /// `XELP_EU_ENABLE` 0x9134 (`regs/xe_gt_regs.h`; not in the seed).
    pub const XELP_EU_ENABLE: RegDef = RegDef {
        name: "XELP_EU_ENABLE",
        offset: 0x9134,
        fields: &[EU],
    };
    /// `XELP_GT_GEOMETRY_DSS_ENABLE` 0x913C: `fuse_dss_g_enable[31:0]` (seed
    /// 000 line 753; name from `regs/xe_gt_regs.h`).
    pub const XELP_GT_GEOMETRY_DSS_ENABLE: RegDef = RegDef {
        name: "XELP_GT_GEOMETRY_DSS_ENABLE",
        offset: 0x913C,
        fields: &[DSS],
    };
    /// Present VDBOXes (bit n = VDBOX n) on graphics >= 12.50
    /// (`GT_VDBOX_DISABLE_MASK`; polarity in `xe_hw_engine.c`
    /// `read_media_fuses`).
    pub const VDBOX: FieldDef = FieldDef {
        name: "vdbox",
        hi: 7,
        lo: 0,
    };
    /// Present VEBOXes (bit 16 + n = VEBOX n) (`GT_VEBOX_DISABLE_MASK`).
    pub const VEBOX: FieldDef = FieldDef {
        name: "vebox",
        hi: 19,
        lo: 16,
    };
    /// `GT_VEBOX_VDBOX_DISABLE` 0x9140 (`regs/xe_gt_regs.h`; not in the seed).
    pub const GT_VEBOX_VDBOX_DISABLE: RegDef = RegDef {
        name: "GT_VEBOX_VDBOX_DISABLE",
        offset: 0x9140,
        fields: &[VDBOX, VEBOX],
    };
    /// `FUSE2` bit 2: a production part (`PRODUCTION_HW`,
    /// `regs/xe_gt_regs.h`).
    pub const PRODUCTION_HW: FieldDef = FieldDef {
        name: "production_hw",
        hi: 2,
        lo: 2,
    };
    /// `FUSE2` 0x9120 (`regs/xe_gt_regs.h`; not in the seed): upstream
    /// reads `PRODUCTION_HW` to tell a production part from a
    /// pre-production one (`xe_device.c` `detect_preproduction_hw`).
    pub const FUSE2: RegDef = RegDef {
        name: "FUSE2",
        offset: 0x9120,
        fields: &[PRODUCTION_HW],
    };
    /// `XEHP_GT_COMPUTE_DSS_ENABLE` 0x9144: `fuse_dss_c_enable[31:0]` (seed
    /// 000 line 752; name from `regs/xe_gt_regs.h`).
    pub const XEHP_GT_COMPUTE_DSS_ENABLE: RegDef = RegDef {
        name: "XEHP_GT_COMPUTE_DSS_ENABLE",
        offset: 0x9144,
        fields: &[DSS],
    };
}

/// Replicated (MCR) registers with per-instance storage, one per
/// replication group type. Names and offsets are upstream's
/// (`regs/xe_gt_regs.h`, all `XE_REG_MCR`); each lies in a seed table range
/// of the group noted (checked by a test against the table).
pub mod mcr {
    use super::{FieldDef, RegDef};

    /// The whole dword.
    pub const VALUE: FieldDef = FieldDef {
        name: "value",
        hi: 31,
        lo: 0,
    };
    const VALUE_ONLY: &[FieldDef] = &[VALUE];

    /// A whole-dword register (`value` 31:0).
    pub(super) const fn def(name: &'static str, offset: u32) -> RegDef {
        RegDef {
            name,
            offset,
            fields: VALUE_ONLY,
        }
    }

    /// Flat-CCS base in 64 KiB units (`XEHP_FLAT_CCS_PTR`, bits 31:8).
    pub const FLAT_CCS_PTR: FieldDef = FieldDef {
        name: "ptr",
        hi: 31,
        lo: 8,
    };
    /// 0x4910, GAM range (MSLICE, GT); read-only.
    pub const XEHP_FLAT_CCS_BASE_ADDR: RegDef = RegDef {
        name: "XEHP_FLAT_CCS_BASE_ADDR",
        offset: 0x4910,
        fields: &[FLAT_CCS_PTR],
    };
    /// 0x6210, GSLICE, RENDER.
    pub const FF_MODE: RegDef = def("FF_MODE", 0x6210);
    /// 0x8724, SQIDI through the MCFG selector, GT.
    pub const XEHP_SQCM: RegDef = def("XEHP_SQCM", 0x8724);
    /// 0xB0B4, LNCF, GT.
    pub const XEHP_L3NODEARBCFG: RegDef = def("XEHP_L3NODEARBCFG", 0xB0B4);
    /// 0xB158, L3BANK, GT.
    pub const XEHP_L3SQCREG5: RegDef = def("XEHP_L3SQCREG5", 0xB158);
    /// 0xCF54, GAM range (MSLICE, GT).
    pub const XEHP_GAMCNTRL_CTRL: RegDef = def("XEHP_GAMCNTRL_CTRL", 0xCF54);
    /// `LMEM_CFG` bit 31: the LMTT is in use (`regs/xe_gt_regs.h`).
    pub const LMEM_EN: FieldDef = FieldDef {
        name: "lmem_en",
        hi: 31,
        lo: 31,
    };
    /// `LMEM_CFG` bits 30:0: the LMTT directory, in 64 KiB units.
    pub const LMTT_DIR_PTR: FieldDef = FieldDef {
        name: "lmtt_dir_ptr",
        hi: 30,
        lo: 0,
    };
    /// 0xCF58, GAM range (MSLICE, GT; seed 000 line 524): the LMTT root
    /// pointer (upstream `LMEM_CFG`, `regs/xe_gt_regs.h`; the seed says
    /// only that the directory's location is in "one [register] in GT
    /// (GAM)", line 388).
    pub const LMEM_CFG: RegDef = RegDef {
        name: "LMEM_CFG",
        offset: 0xCF58,
        fields: &[LMEM_EN, LMTT_DIR_PTR],
    };
    /// 0xE7C8, DSS, RENDER.
    pub const LSC_CHICKEN_BIT_0: RegDef = def("LSC_CHICKEN_BIT_0", 0xE7C8);
    /// 0xE90C, MSLICE, GT.
    pub const SARB_CHICKEN1: RegDef = def("SARB_CHICKEN1", 0xE90C);

    // Workaround, tuning and cache-policy registers upstream xe programs at
    // GT init (`xe_wa.c`, `xe_tuning.c`, `xe_mocs.c`, `xe_pat.c`; offsets
    // from `regs/xe_gt_regs.h` and `xe_pat.c`, checked by the `uabi`
    // suite; replication groups from the seed table). They change what the
    // mock does not simulate (clock gating, caches, arbitration), so they
    // are storage: what is written reads back. Found by the `xe-probe`
    // suite (Documentation/xe-probe.rst).

    /// `N` consecutive storage registers from `base`, named `names`.
    const fn array<const N: usize>(names: [&'static str; N], base: u32) -> [RegDef; N] {
        let mut out = [def("", 0); N];
        let mut i = 0;
        while i < N {
            // CAST: N is at most 32.
            out[i] = def(names[i], base + 4 * i as u32);
            i += 1;
        }
        out
    }

    /// `_PAT_INDEX(0..7)` 0x4800 + 4n (`xe_pat.c`), MSLICE, GT: the PPGTT
    /// attribute table.
    pub const PAT_INDEX: [RegDef; 8] = array(
        [
            "PAT_INDEX0",
            "PAT_INDEX1",
            "PAT_INDEX2",
            "PAT_INDEX3",
            "PAT_INDEX4",
            "PAT_INDEX5",
            "PAT_INDEX6",
            "PAT_INDEX7",
        ],
        0x4800,
    );
    /// 0x9524, DSS, RENDER.
    pub const SUBSLICE_UNIT_LEVEL_CLKGATE: RegDef = def("SUBSLICE_UNIT_LEVEL_CLKGATE", 0x9524);
    /// `XEHP_LNCFCMOCS(0..31)` 0xB020 + 4n, LNCF, GT: the L3 cache-control
    /// half of the MOCS table.
    pub const XEHP_LNCFCMOCS: [RegDef; 32] = array(
        [
            "XEHP_LNCFCMOCS0",
            "XEHP_LNCFCMOCS1",
            "XEHP_LNCFCMOCS2",
            "XEHP_LNCFCMOCS3",
            "XEHP_LNCFCMOCS4",
            "XEHP_LNCFCMOCS5",
            "XEHP_LNCFCMOCS6",
            "XEHP_LNCFCMOCS7",
            "XEHP_LNCFCMOCS8",
            "XEHP_LNCFCMOCS9",
            "XEHP_LNCFCMOCS10",
            "XEHP_LNCFCMOCS11",
            "XEHP_LNCFCMOCS12",
            "XEHP_LNCFCMOCS13",
            "XEHP_LNCFCMOCS14",
            "XEHP_LNCFCMOCS15",
            "XEHP_LNCFCMOCS16",
            "XEHP_LNCFCMOCS17",
            "XEHP_LNCFCMOCS18",
            "XEHP_LNCFCMOCS19",
            "XEHP_LNCFCMOCS20",
            "XEHP_LNCFCMOCS21",
            "XEHP_LNCFCMOCS22",
            "XEHP_LNCFCMOCS23",
            "XEHP_LNCFCMOCS24",
            "XEHP_LNCFCMOCS25",
            "XEHP_LNCFCMOCS26",
            "XEHP_LNCFCMOCS27",
            "XEHP_LNCFCMOCS28",
            "XEHP_LNCFCMOCS29",
            "XEHP_LNCFCMOCS30",
            "XEHP_LNCFCMOCS31",
        ],
        0xB020,
    );
    /// 0xB188, L3BANK, GT.
    pub const XEHP_L3SCQREG7: RegDef = def("XEHP_L3SCQREG7", 0xB188);
    /// 0xCF2C, MSLICE (GAM), GT.
    pub const RENDER_MOD_CTRL: RegDef = def("RENDER_MOD_CTRL", 0xCF2C);
    /// 0xCF30, MSLICE (GAM), GT.
    pub const COMP_MOD_CTRL: RegDef = def("COMP_MOD_CTRL", 0xCF30);
    /// 0xCF34, MSLICE (GAM), GT.
    pub const XEHP_VDBX_MOD_CTRL: RegDef = def("XEHP_VDBX_MOD_CTRL", 0xCF34);
    /// 0xCF38, MSLICE (GAM), GT.
    pub const XEHP_VEBX_MOD_CTRL: RegDef = def("XEHP_VEBX_MOD_CTRL", 0xCF38);
    /// 0xE18C, DSS, RENDER; masked.
    pub const SAMPLER_MODE: RegDef = def("SAMPLER_MODE", 0xE18C);
    /// 0xE420, DSS, RENDER; masked (`regs/xe_gt_regs.h` `CACHE_MODE_SS`).
    pub const CACHE_MODE_SS: RegDef = def("CACHE_MODE_SS", 0xE420);
    /// 0xE48C, DSS, RENDER; masked.
    pub const ROW_CHICKEN4: RegDef = def("ROW_CHICKEN4", 0xE48C);
    /// 0xE4F4, DSS, RENDER; masked.
    pub const ROW_CHICKEN2: RegDef = def("ROW_CHICKEN2", 0xE4F4);
    /// 0xE5F0, DSS, RENDER; masked.
    pub const XEHP_HDC_CHICKEN0: RegDef = def("XEHP_HDC_CHICKEN0", 0xE5F0);
    /// 0xE7CC, the upper dword of `LSC_CHICKEN_BIT_0`; DSS, RENDER.
    pub const LSC_CHICKEN_BIT_0_UDW: RegDef = def("LSC_CHICKEN_BIT_0_UDW", 0xE7CC);

    /// The masked ones (`XE_REG_OPTION_MASKED` upstream): bits 31:16 of a
    /// write select which of bits 15:0 it changes.
    pub const MASKED: [RegDef; 5] = [
        SAMPLER_MODE,
        CACHE_MODE_SS,
        ROW_CHICKEN4,
        ROW_CHICKEN2,
        XEHP_HDC_CHICKEN0,
    ];

    /// Number of replicated registers the mock models.
    pub const COUNT: usize = 61;

    /// All of them, by offset.
    pub const ALL: [RegDef; COUNT] = super::concat(&[
        &[XEHP_FLAT_CCS_BASE_ADDR],
        &PAT_INDEX,
        &[FF_MODE, XEHP_SQCM, SUBSLICE_UNIT_LEVEL_CLKGATE],
        &XEHP_LNCFCMOCS,
        &[
            XEHP_L3NODEARBCFG,
            XEHP_L3SQCREG5,
            XEHP_L3SCQREG7,
            RENDER_MOD_CTRL,
            COMP_MOD_CTRL,
            XEHP_VDBX_MOD_CTRL,
            XEHP_VEBX_MOD_CTRL,
            XEHP_GAMCNTRL_CTRL,
            LMEM_CFG,
            SAMPLER_MODE,
            CACHE_MODE_SS,
            ROW_CHICKEN4,
            ROW_CHICKEN2,
            XEHP_HDC_CHICKEN0,
            LSC_CHICKEN_BIT_0,
            LSC_CHICKEN_BIT_0_UDW,
            SARB_CHICKEN1,
        ],
    ]);
}

/// Workaround and tuning registers outside the replicated ranges that
/// upstream xe programs at GT init (`xe_wa.c`, `xe_tuning.c`; offsets from
/// `regs/xe_gt_regs.h`, `regs/xe_regs.h`, `regs/xe_engine_regs.h`, checked
/// by the `uabi` suite). Storage, as [`mcr`]'s: what is written reads back.
/// Behaviour: [`crate::regfile::tuning`].
pub mod tuning {
    use super::{mcr::def, RegDef};

    /// 0x83B4, RENDER; masked.
    pub const VFG_PREEMPTION_CHICKEN: RegDef = def("VFG_PREEMPTION_CHICKEN", 0x83B4);
    /// 0x9424, GT.
    pub const MISCCPCTL: RegDef = def("MISCCPCTL", 0x9424);
    /// 0x9434, GT.
    pub const UNSLICE_UNIT_LEVEL_CLKGATE: RegDef = def("UNSLICE_UNIT_LEVEL_CLKGATE", 0x9434);
    /// 0x14800, RENDER; masked.
    pub const RCU_MODE: RegDef = def("RCU_MODE", 0x1_4800);
    /// 0x14804, RENDER; masked: how compute slices are shared among the
    /// CCS engines (`xe_gt_ccs_mode.c`); the mock's engines share nothing.
    pub const CCS_MODE: RegDef = def("CCS_MODE", 0x1_4804);
    /// 0x101014, SGunit.
    pub const XEHP_CLOCK_GATE_DIS: RegDef = def("XEHP_CLOCK_GATE_DIS", 0x10_1014);
    /// `VDBOX_CGCTL3F10(base)` of the video engines the mock presents:
    /// VD0 (0x1C0000) and VD2 (0x1D0000); VD domains.
    pub const VDBOX_CGCTL3F10: [RegDef; 2] = [
        def("VDBOX_CGCTL3F10_VD0", 0x1C_3F10),
        def("VDBOX_CGCTL3F10_VD2", 0x1D_3F10),
    ];

    /// The masked ones (`XE_REG_OPTION_MASKED` upstream).
    pub const MASKED: [RegDef; 3] = [VFG_PREEMPTION_CHICKEN, RCU_MODE, CCS_MODE];

    /// All of them.
    pub const ALL: [RegDef; 8] = [
        VFG_PREEMPTION_CHICKEN,
        MISCCPCTL,
        UNSLICE_UNIT_LEVEL_CLKGATE,
        RCU_MODE,
        CCS_MODE,
        XEHP_CLOCK_GATE_DIS,
        VDBOX_CGCTL3F10[0],
        VDBOX_CGCTL3F10[1],
    ];
}

/// The GuC shim, DMA and doorbell registers, and the GT registers the GuC
/// load touches (`xe_guc.c` `xe_guc_upload`, `xe_uc_fw.c` `uc_fw_xfer`). Offsets and fields are
/// upstream's (`drivers/gpu/drm/xe/regs/xe_guc_regs.h`; `GDRST` and
/// `PMINTRMSK` from `regs/xe_gt_regs.h`); the seed names the shim and DMA
/// registers but gives no layout (seed 000 lines 1088-1123). Field names are
/// upstream's with the register prefix dropped. Behaviour:
/// [`crate::regfile::guc`].
pub mod guc {
    use super::{FieldDef, RegDef};

    const fn field(name: &'static str, hi: u8, lo: u8) -> FieldDef {
        FieldDef { name, hi, lo }
    }

    /// The whole dword.
    pub const VALUE: FieldDef = field("value", 31, 0);
    const VALUE_ONLY: &[FieldDef] = &[VALUE];

    const fn value(name: &'static str, offset: u32) -> RegDef {
        RegDef {
            name,
            offset,
            fields: VALUE_ONLY,
        }
    }

    /// `N` consecutive `value` registers from `base`, named `names`.
    const fn array<const N: usize>(names: [&'static str; N], base: u32) -> [RegDef; N] {
        let mut out = [value("", 0); N];
        let mut i = 0;
        while i < N {
            // CAST: N is at most 64.
            out[i] = value(names[i], base + 4 * i as u32);
            i += 1;
        }
        out
    }

    /// `GS_AUTH_STATUS_MASK`: 1 bad, 2 good.
    pub const AUTH: FieldDef = field("auth", 31, 30);
    /// `GS_MIA_MASK`.
    pub const MIA: FieldDef = field("mia", 18, 16);
    /// `GS_UKERNEL_MASK`: `XEHPG_GUC_UKERNEL_*`.
    pub const UKERNEL: FieldDef = field("ukernel", 15, 8);
    /// `GS_BOOTROM_MASK`: `XEHPG_GUC_BOOTROM_*`.
    pub const BOOTROM: FieldDef = field("bootrom", 7, 1);
    /// `GS_MIA_IN_RESET`.
    pub const MIA_IN_RESET: FieldDef = field("mia_in_reset", 0, 0);
    /// `GUC_STATUS` 0xC000, read-only.
    pub const GUC_STATUS: RegDef = RegDef {
        name: "GUC_STATUS",
        offset: 0xC000,
        fields: &[AUTH, MIA, UKERNEL, BOOTROM, MIA_IN_RESET],
    };

    /// `GUC_WOPCM_SIZE_MASK`: the GuC's WOPCM size in bytes (4 KiB units).
    pub const WOPCM_SIZE: FieldDef = field("size", 31, 12);
    /// `GUC_WOPCM_SIZE_LOCKED`: set by the first write.
    pub const WOPCM_LOCKED: FieldDef = field("locked", 0, 0);
    /// `GUC_WOPCM_SIZE` 0xC050, write-once.
    pub const GUC_WOPCM_SIZE: RegDef = RegDef {
        name: "GUC_WOPCM_SIZE",
        offset: 0xC050,
        fields: &[WOPCM_SIZE, WOPCM_LOCKED],
    };

    /// `GUC_ENABLE_READ_CACHE_LOGIC`.
    pub const READ_CACHE_LOGIC: FieldDef = field("read_cache_logic", 1, 1);
    /// `GUC_ENABLE_READ_CACHE_FOR_SRAM_DATA`.
    pub const READ_CACHE_FOR_SRAM_DATA: FieldDef = field("read_cache_for_sram_data", 9, 9);
    /// `GUC_ENABLE_READ_CACHE_FOR_WOPCM_DATA`.
    pub const READ_CACHE_FOR_WOPCM_DATA: FieldDef = field("read_cache_for_wopcm_data", 10, 10);
    /// `GUC_ENABLE_MIA_CLOCK_GATING`.
    pub const MIA_CLOCK_GATING: FieldDef = field("mia_clock_gating", 15, 15);
    /// `GUC_SHIM_CONTROL` 0xC064.
    pub const GUC_SHIM_CONTROL: RegDef = RegDef {
        name: "GUC_SHIM_CONTROL",
        offset: 0xC064,
        fields: &[
            READ_CACHE_LOGIC,
            READ_CACHE_FOR_SRAM_DATA,
            READ_CACHE_FOR_WOPCM_DATA,
            MIA_CLOCK_GATING,
        ],
    };

    /// `SOFT_SCRATCH(n)` 0xC180 + 4n, n < 16.
    pub const SOFT_SCRATCH: [RegDef; 16] = array(
        [
            "SOFT_SCRATCH0",
            "SOFT_SCRATCH1",
            "SOFT_SCRATCH2",
            "SOFT_SCRATCH3",
            "SOFT_SCRATCH4",
            "SOFT_SCRATCH5",
            "SOFT_SCRATCH6",
            "SOFT_SCRATCH7",
            "SOFT_SCRATCH8",
            "SOFT_SCRATCH9",
            "SOFT_SCRATCH10",
            "SOFT_SCRATCH11",
            "SOFT_SCRATCH12",
            "SOFT_SCRATCH13",
            "SOFT_SCRATCH14",
            "SOFT_SCRATCH15",
        ],
        0xC180,
    );
    /// `HUC_LOAD_SUCCESSFUL`: the HuC was authenticated (`xe_huc.c`
    /// reads it for the HuC's status).
    pub const HUC_LOAD_SUCCESSFUL: FieldDef = field("huc_load_successful", 0, 0);
    /// `HUC_KERNEL_LOAD_INFO` 0xC1DC (`regs/xe_guc_regs.h`), read-only.
    pub const HUC_KERNEL_LOAD_INFO: RegDef = RegDef {
        name: "HUC_KERNEL_LOAD_INFO",
        offset: 0xC1DC,
        fields: &[HUC_LOAD_SUCCESSFUL],
    };
    /// `UOS_RSA_SCRATCH(i)` 0xC200 + 4i, i < 64.
    pub const UOS_RSA_SCRATCH: [RegDef; 64] = array(
        [
            "UOS_RSA_SCRATCH0",
            "UOS_RSA_SCRATCH1",
            "UOS_RSA_SCRATCH2",
            "UOS_RSA_SCRATCH3",
            "UOS_RSA_SCRATCH4",
            "UOS_RSA_SCRATCH5",
            "UOS_RSA_SCRATCH6",
            "UOS_RSA_SCRATCH7",
            "UOS_RSA_SCRATCH8",
            "UOS_RSA_SCRATCH9",
            "UOS_RSA_SCRATCH10",
            "UOS_RSA_SCRATCH11",
            "UOS_RSA_SCRATCH12",
            "UOS_RSA_SCRATCH13",
            "UOS_RSA_SCRATCH14",
            "UOS_RSA_SCRATCH15",
            "UOS_RSA_SCRATCH16",
            "UOS_RSA_SCRATCH17",
            "UOS_RSA_SCRATCH18",
            "UOS_RSA_SCRATCH19",
            "UOS_RSA_SCRATCH20",
            "UOS_RSA_SCRATCH21",
            "UOS_RSA_SCRATCH22",
            "UOS_RSA_SCRATCH23",
            "UOS_RSA_SCRATCH24",
            "UOS_RSA_SCRATCH25",
            "UOS_RSA_SCRATCH26",
            "UOS_RSA_SCRATCH27",
            "UOS_RSA_SCRATCH28",
            "UOS_RSA_SCRATCH29",
            "UOS_RSA_SCRATCH30",
            "UOS_RSA_SCRATCH31",
            "UOS_RSA_SCRATCH32",
            "UOS_RSA_SCRATCH33",
            "UOS_RSA_SCRATCH34",
            "UOS_RSA_SCRATCH35",
            "UOS_RSA_SCRATCH36",
            "UOS_RSA_SCRATCH37",
            "UOS_RSA_SCRATCH38",
            "UOS_RSA_SCRATCH39",
            "UOS_RSA_SCRATCH40",
            "UOS_RSA_SCRATCH41",
            "UOS_RSA_SCRATCH42",
            "UOS_RSA_SCRATCH43",
            "UOS_RSA_SCRATCH44",
            "UOS_RSA_SCRATCH45",
            "UOS_RSA_SCRATCH46",
            "UOS_RSA_SCRATCH47",
            "UOS_RSA_SCRATCH48",
            "UOS_RSA_SCRATCH49",
            "UOS_RSA_SCRATCH50",
            "UOS_RSA_SCRATCH51",
            "UOS_RSA_SCRATCH52",
            "UOS_RSA_SCRATCH53",
            "UOS_RSA_SCRATCH54",
            "UOS_RSA_SCRATCH55",
            "UOS_RSA_SCRATCH56",
            "UOS_RSA_SCRATCH57",
            "UOS_RSA_SCRATCH58",
            "UOS_RSA_SCRATCH59",
            "UOS_RSA_SCRATCH60",
            "UOS_RSA_SCRATCH61",
            "UOS_RSA_SCRATCH62",
            "UOS_RSA_SCRATCH63",
        ],
        0xC200,
    );

    /// `DMA_ADDR_SPACE_MASK`: `DMA_ADDRESS_SPACE_WOPCM` 7, `_GGTT` 8.
    pub const DMA_SPACE: FieldDef = field("space", 20, 16);
    /// Address bits 47:32.
    pub const DMA_ADDR_HI: FieldDef = field("addr", 15, 0);
    const DMA_HIGH_FIELDS: &[FieldDef] = &[DMA_SPACE, DMA_ADDR_HI];
    /// `DMA_ADDR_0_LOW` 0xC300: source address 31:0.
    pub const DMA_ADDR_0_LOW: RegDef = value("DMA_ADDR_0_LOW", 0xC300);
    /// `DMA_ADDR_0_HIGH` 0xC304.
    pub const DMA_ADDR_0_HIGH: RegDef = RegDef {
        name: "DMA_ADDR_0_HIGH",
        offset: 0xC304,
        fields: DMA_HIGH_FIELDS,
    };
    /// `DMA_ADDR_1_LOW` 0xC308: destination address 31:0.
    pub const DMA_ADDR_1_LOW: RegDef = value("DMA_ADDR_1_LOW", 0xC308);
    /// `DMA_ADDR_1_HIGH` 0xC30C.
    pub const DMA_ADDR_1_HIGH: RegDef = RegDef {
        name: "DMA_ADDR_1_HIGH",
        offset: 0xC30C,
        fields: DMA_HIGH_FIELDS,
    };
    /// `DMA_COPY_SIZE` 0xC310: bytes.
    pub const DMA_COPY_SIZE: RegDef = value("DMA_COPY_SIZE", 0xC310);
    /// Write enables of bits 15:0 (a masked register).
    pub const DMA_CTRL_MASK: FieldDef = field("mask", 31, 16);
    /// `UOS_MOVE`: the copy is the uKernel.
    pub const UOS_MOVE: FieldDef = field("uos_move", 4, 4);
    /// `START_DMA`: reads 1 until the copy is done.
    pub const START_DMA: FieldDef = field("start_dma", 0, 0);
    /// `DMA_CTRL` 0xC314, masked.
    pub const DMA_CTRL: RegDef = RegDef {
        name: "DMA_CTRL",
        offset: 0xC314,
        fields: &[DMA_CTRL_MASK, UOS_MOVE, START_DMA],
    };

    /// `GUC_WOPCM_OFFSET_MASK`: WOPCM base, 16 KiB aligned.
    pub const WOPCM_OFFSET: FieldDef = field("offset", 31, 14);
    /// `HUC_LOADING_AGENT_GUC`.
    pub const HUC_LOADING_AGENT_GUC: FieldDef = field("huc_loading_agent_guc", 1, 1);
    /// `GUC_WOPCM_OFFSET_VALID`: set by the first write.
    pub const WOPCM_OFFSET_VALID: FieldDef = field("valid", 0, 0);
    /// `DMA_GUC_WOPCM_OFFSET` 0xC340, write-once.
    pub const DMA_GUC_WOPCM_OFFSET: RegDef = RegDef {
        name: "DMA_GUC_WOPCM_OFFSET",
        offset: 0xC340,
        fields: &[WOPCM_OFFSET, HUC_LOADING_AGENT_GUC, WOPCM_OFFSET_VALID],
    };

    /// `GUC_TLB_INV_CR_INVALIDATE`.
    pub const INVALIDATE: FieldDef = field("invalidate", 0, 0);
    /// `GUC_TLB_INV_CR` 0xCEE8.
    pub const GUC_TLB_INV_CR: RegDef = RegDef {
        name: "GUC_TLB_INV_CR",
        offset: 0xCEE8,
        fields: &[INVALIDATE],
    };

    /// `GRDOM_GUC`.
    pub const GRDOM_GUC: FieldDef = field("grdom_guc", 3, 3);
    /// `GRDOM_FULL`.
    pub const GRDOM_FULL: FieldDef = field("grdom_full", 0, 0);
    /// `GDRST` 0x941C (`regs/xe_gt_regs.h`).
    pub const GDRST: RegDef = RegDef {
        name: "GDRST",
        offset: 0x941C,
        fields: &[GRDOM_GUC, GRDOM_FULL],
    };

    /// `ARAT_EXPIRED_INTRMSK`.
    pub const ARAT_EXPIRED_INTRMSK: FieldDef = field("arat_expired_intrmsk", 9, 9);
    /// `PMINTRMSK` 0xA168 (`regs/xe_gt_regs.h`).
    pub const PMINTRMSK: RegDef = RegDef {
        name: "PMINTRMSK",
        offset: 0xA168,
        fields: &[ARAT_EXPIRED_INTRMSK],
    };

    /// `GT_DOORBELL_ENABLE`.
    pub const GT_DOORBELL_ENABLE: FieldDef = field("gt_doorbell_enable", 0, 0);
    /// `GT_PM_CONFIG` 0x13816C, always on.
    pub const GT_PM_CONFIG: RegDef = RegDef {
        name: "GT_PM_CONFIG",
        offset: 0x13_816C,
        fields: &[GT_DOORBELL_ENABLE],
    };

    /// `GUC_HOST_INTERRUPT` 0x1901F0: a write rings the GuC's doorbell.
    pub const GUC_HOST_INTERRUPT: RegDef = value("GUC_HOST_INTERRUPT", 0x19_01F0);
    /// `VF_SW_FLAG(n)` 0x190240 + 4n, n < 4: the MMIO message registers.
    pub const VF_SW_FLAG: [RegDef; 4] = array(
        ["VF_SW_FLAG0", "VF_SW_FLAG1", "VF_SW_FLAG2", "VF_SW_FLAG3"],
        0x19_0240,
    );
}

/// The GT interrupt controller of the tile and the GT error registers.
/// Offsets and fields are upstream's (`drivers/gpu/drm/xe/regs/xe_irq_regs.h`,
/// `regs/xe_hw_error_regs.h`); the seed places the tile, primary, DW,
/// selector, identity and error registers at the same offsets (seed 000
/// L2312-2326, L2341-2343, L2356-2358) but gives no enable/mask layout.
/// Names and fields are the driver's (`rust/irq/regs.rs`, compared by the
/// `regs` suite), which are upstream's with prefixes dropped; arrays are
/// indexed as the driver's `register!` arrays, so `DEV_ERR_STAT_REG0` is the
/// lowest offset (fatal, upstream's `DEV_ERR_STAT_REG(2)`). The PCU and
/// GU_MISC IIR groups sit at 4, 8 and 0xC past upstream's `PCU_IRQ_OFFSET`
/// and `GU_MISC_IRQ_OFFSET` (`xe_irq.c` `IMR()`, `IIR()`, `IER()`).
/// Behaviour: [`crate::regfile::intc`]. None of them needs
/// forcewake: 0x190000 is in the 0x040000-0x1BFFFF hole of the PRM's table,
/// 0x100160 in the always-on 0x100000 block ([`crate::power`]).
pub mod intc {
    use super::{FieldDef, RegDef};

    const fn field(name: &'static str, hi: u8, lo: u8) -> FieldDef {
        FieldDef { name, hi, lo }
    }

    /// The whole dword, one bit each.
    pub const BITS: FieldDef = field("bits", 31, 0);
    const BITS_ONLY: &[FieldDef] = &[BITS];

    const fn bits(name: &'static str, offset: u32) -> RegDef {
        RegDef {
            name,
            offset,
            fields: BITS_ONLY,
        }
    }

    /// `DG1_MSTR_IRQ`: the tile-level enable (seed 000 L2333, L2403).
    pub const DG1_MSTR_IRQ: FieldDef = field("dg1_mstr_irq", 31, 31);
    /// `DG1_MSTR_TILE(t)`: tile t has something pending, RW1C (L2324); only
    /// tile 0 exists on DG2/ATS-M.
    pub const TILES: FieldDef = field("tiles", 3, 0);
    /// `DG1_MSTR_TILE_INTR` 0x190008.
    pub const DG1_MSTR_TILE_INTR: RegDef = RegDef {
        name: "DG1_MSTR_TILE_INTR",
        offset: 0x19_0008,
        fields: &[DG1_MSTR_IRQ, TILES],
    };

    /// `MASTER_IRQ`: bit 31, not RW1C (L2326).
    pub const MASTER_IRQ: FieldDef = field("master_irq", 31, 31);
    /// `GU_MISC_IRQ`: never set by the mock.
    pub const GU_MISC_IRQ: FieldDef = field("gu_misc_irq", 29, 29);
    /// `ERROR_IRQ(0..2)`: bits 26 + severity.
    pub const ERROR_IRQ: FieldDef = field("error_irq", 28, 26);
    /// `DISPLAY_IRQ`: never set by the mock (no display).
    pub const DISPLAY_IRQ: FieldDef = field("display_irq", 16, 16);
    /// `GT_DW_IRQ(0..1)`: one bit per GT DW bank.
    pub const GT_DW: FieldDef = field("gt_dw", 1, 0);
    /// `GFX_MSTR_IRQ` 0x190010.
    pub const GFX_MSTR_IRQ: RegDef = RegDef {
        name: "GFX_MSTR_IRQ",
        offset: 0x19_0010,
        fields: &[MASTER_IRQ, GU_MISC_IRQ, ERROR_IRQ, DISPLAY_IRQ, GT_DW],
    };

    /// `GT_INTR_DW(n)` 0x190018 + 4n: one bit per engine (`INTR_*`, which
    /// differ per bank), RW1C.
    pub const GT_INTR_DW: [RegDef; 2] = [
        bits("GT_INTR_DW0", 0x19_0018),
        bits("GT_INTR_DW1", 0x19_001C),
    ];

    /// `ENGINE1_MASK`: the first-named engine of a register pair.
    pub const ENGINE1: FieldDef = field("engine1", 31, 16);
    /// `ENGINE0_MASK`: the second-named engine.
    pub const ENGINE0: FieldDef = field("engine0", 15, 0);
    const ENGINE_FIELDS: &[FieldDef] = &[ENGINE1, ENGINE0];

    const fn engines(name: &'static str, offset: u32) -> RegDef {
        RegDef {
            name,
            offset,
            fields: ENGINE_FIELDS,
        }
    }

    /// The per-class (per-instance for class Other) enable registers,
    /// 0x190030-0x190048.
    pub const ENABLES: [RegDef; 7] = [
        engines("RENDER_COPY_INTR_ENABLE", 0x19_0030),
        engines("VCS_VECS_INTR_ENABLE", 0x19_0034),
        engines("GUC_SG_INTR_ENABLE", 0x19_0038),
        engines("GPM_WGBOXPERF_INTR_ENABLE", 0x19_003C),
        engines("CRYPTO_RSVD_INTR_ENABLE", 0x19_0040),
        engines("GUNIT_GSC_INTR_ENABLE", 0x19_0044),
        engines("CCS_RSVD_INTR_ENABLE", 0x19_0048),
    ];

    /// `INTR_DATA_VALID`.
    pub const DATA_VALID: FieldDef = field("data_valid", 31, 31);
    /// `INTR_ENGINE_INSTANCE()`: `GENMASK(25, 20)`.
    pub const INSTANCE: FieldDef = field("instance", 25, 20);
    /// `INTR_ENGINE_CLASS()`: `GENMASK(18, 16)`.
    pub const CLASS: FieldDef = field("class", 18, 16);
    /// `INTR_ENGINE_INTR()`: `GENMASK(15, 0)`, the event bits.
    pub const INTR: FieldDef = field("intr", 15, 0);
    const IDENTITY_FIELDS: &[FieldDef] = &[DATA_VALID, INSTANCE, CLASS, INTR];

    /// `INTR_IDENTITY_REG(n)` 0x190060 + 4n: the shared IIR of bank n.
    pub const INTR_IDENTITY_REG: [RegDef; 2] = [
        RegDef {
            name: "INTR_IDENTITY_REG0",
            offset: 0x19_0060,
            fields: IDENTITY_FIELDS,
        },
        RegDef {
            name: "INTR_IDENTITY_REG1",
            offset: 0x19_0064,
            fields: IDENTITY_FIELDS,
        },
    ];

    /// `IIR_REG_SELECTOR(n)` 0x190070 + 4n: one-hot, a bit of `GT_INTR_DW(n)`.
    pub const IIR_REG_SELECTOR: [RegDef; 2] = [
        bits("IIR_REG_SELECTOR0", 0x19_0070),
        bits("IIR_REG_SELECTOR1", 0x19_0074),
    ];

    /// The per-instance mask registers of this part, 0x190090-0x190104
    /// (the XEHPC BCS1-8 masks belong to parts with more copy engines).
    pub const MASKS: [RegDef; 15] = [
        engines("RCS0_RSVD_INTR_MASK", 0x19_0090),
        engines("BCS_RSVD_INTR_MASK", 0x19_00A0),
        engines("VCS0_VCS1_INTR_MASK", 0x19_00A8),
        engines("VCS2_VCS3_INTR_MASK", 0x19_00AC),
        engines("VCS4_VCS5_INTR_MASK", 0x19_00B0),
        engines("VCS6_VCS7_INTR_MASK", 0x19_00B4),
        engines("VECS0_VECS1_INTR_MASK", 0x19_00D0),
        engines("VECS2_VECS3_INTR_MASK", 0x19_00D4),
        engines("HECI2_RSVD_INTR_MASK", 0x19_00E4),
        engines("GUC_SG_INTR_MASK", 0x19_00E8),
        engines("GPM_WGBOXPERF_INTR_MASK", 0x19_00EC),
        engines("CRYPTO_RSVD_INTR_MASK", 0x19_00F0),
        engines("GUNIT_GSC_INTR_MASK", 0x19_00F4),
        engines("CCS0_CCS1_INTR_MASK", 0x19_0100),
        engines("CCS2_CCS3_INTR_MASK", 0x19_0104),
    ];

    /// `ERR_STAT_GT_REG(s)` 0x100160 + 4s: GT error status, correctable /
    /// non-fatal / fatal, RW1C; the error bits are per part.
    pub const ERR_STAT_GT_REG: [RegDef; 3] = [
        bits("ERR_STAT_GT_REG0", 0x10_0160),
        bits("ERR_STAT_GT_REG1", 0x10_0164),
        bits("ERR_STAT_GT_REG2", 0x10_0168),
    ];

    /// `XE_GT_ERROR`: bit 0, the GT reported an error.
    pub const GT_ERROR: FieldDef = field("gt_error", 0, 0);
    const DEV_ERR_FIELDS: &[FieldDef] = &[GT_ERROR];

    /// Device error source, RW1C: fatal 0x100174, non-fatal 0x100178,
    /// correctable 0x10017C (seed 000 L2317-2319). Element n is upstream's
    /// `DEV_ERR_STAT_REG(2 - n)` (upstream indexes by severity, which runs
    /// the other way), as the driver's ascending `register!` array has it.
    pub const DEV_ERR_STAT_REG: [RegDef; 3] = [
        RegDef {
            name: "DEV_ERR_STAT_REG0",
            offset: 0x10_0174,
            fields: DEV_ERR_FIELDS,
        },
        RegDef {
            name: "DEV_ERR_STAT_REG1",
            offset: 0x10_0178,
            fields: DEV_ERR_FIELDS,
        },
        RegDef {
            name: "DEV_ERR_STAT_REG2",
            offset: 0x10_017C,
            fields: DEV_ERR_FIELDS,
        },
    ];

    /// The PCU and GU_MISC interrupt groups' IMR, IIR and IER (seed 000
    /// L2320 "PCU Interrupt Register 444E0-EFh"; upstream `PCU_IRQ_OFFSET`
    /// 0x444e0, `GU_MISC_IRQ_OFFSET` 0x444f0, `xe_irq.c`: "always
    /// consecutive and ordered ISR, IMR, IIR, IER"). Nothing in the mock
    /// raises them; the driver masks, disables and clears them at reset.
    pub const DISPLAY_GROUPS: [RegDef; 6] = [
        bits("PCU_IMR", 0x4_44E4),
        bits("PCU_IIR", 0x4_44E8),
        bits("PCU_IER", 0x4_44EC),
        bits("GU_MISC_IMR", 0x4_44F4),
        bits("GU_MISC_IIR", 0x4_44F8),
        bits("GU_MISC_IER", 0x4_44FC),
    ];
}

/// Number of entries of [`REGISTERS`] (checked when the table is built).
const REGISTER_COUNT: usize = 260;

/// Concatenates `parts` into one array of exactly `N` entries; a count that
/// does not add up fails the build.
const fn concat<const N: usize>(parts: &[&[RegDef]]) -> [RegDef; N] {
    let mut out = [mcr::FF_MODE; N];
    let mut k = 0;
    let mut p = 0;
    while p < parts.len() {
        let mut i = 0;
        while i < parts[p].len() {
            out[k] = parts[p][i];
            k += 1;
            i += 1;
        }
        p += 1;
    }
    assert!(k == N, "REGISTER_COUNT does not match the table");
    out
}

/// `regs` by offset (insertion sort: a const fn, once, at build time), so
/// the parts of [`ALL`] may come in any order.
const fn sorted<const N: usize>(mut regs: [RegDef; N]) -> [RegDef; N] {
    let mut i = 1;
    while i < N {
        let mut j = i;
        while j > 0 && regs[j - 1].offset > regs[j].offset {
            let t = regs[j - 1];
            regs[j - 1] = regs[j];
            regs[j] = t;
            j -= 1;
        }
        i += 1;
    }
    regs
}

const ALL: [RegDef; REGISTER_COUNT] = sorted(concat(&[
    &mcr::ALL,
    &tuning::ALL,
    &[
        forcewake::ACK[2],
        forcewake::ACK[3],
        forcewake::ACK[4],
        forcewake::ACK[5],
        forcewake::ACK[6],
        forcewake::ACK[7],
        forcewake::ACK[8],
        forcewake::ACK[9],
        forcewake::ACK[10],
        forcewake::ACK[11],
        forcewake::ACK[12],
        forcewake::ACK[13],
        forcewake::ACK[1],
        mcr_selector::STEER_SEMAPHORE,
        mcr_selector::MTL_MCR_SELECTOR,
        mcr_selector::SF_MCR_SELECTOR,
        mcr_selector::MCR_SELECTOR,
        mcr_selector::GAM_MCR_SELECTOR,
        fuse::MIRROR_FUSE3,
        fuse::MIRROR_FUSE1,
        fuse::XELP_EU_ENABLE,
        fuse::FUSE2,
        fuse::XELP_GT_GEOMETRY_DSS_ENABLE,
        fuse::GT_VEBOX_VDBOX_DISABLE,
        fuse::XEHP_GT_COMPUTE_DSS_ENABLE,
        guc::GDRST,
        guc::PMINTRMSK,
    ],
    &forcewake::REQUEST,
    &[guc::GUC_STATUS, guc::GUC_WOPCM_SIZE, guc::GUC_SHIM_CONTROL],
    &guc::SOFT_SCRATCH,
    &[guc::HUC_KERNEL_LOAD_INFO, rpm_config0::DEF],
    &guc::UOS_RSA_SCRATCH,
    &[
        guc::DMA_ADDR_0_LOW,
        guc::DMA_ADDR_0_HIGH,
        guc::DMA_ADDR_1_LOW,
        guc::DMA_ADDR_1_HIGH,
        guc::DMA_COPY_SIZE,
        guc::DMA_CTRL,
        guc::DMA_GUC_WOPCM_OFFSET,
        guc::GUC_TLB_INV_CR,
    ],
    &intc::DISPLAY_GROUPS,
    &[
        intc::ERR_STAT_GT_REG[0],
        intc::ERR_STAT_GT_REG[1],
        intc::ERR_STAT_GT_REG[2],
        intc::DEV_ERR_STAT_REG[0],
        intc::DEV_ERR_STAT_REG[1],
        intc::DEV_ERR_STAT_REG[2],
        gu_cntl::DEF,
        gu_debug::DEF,
        gsmbase::DEF,
        sg_tile_addr_range::DEF,
        forcewake::ACK[0],
        pcode_mailbox::DEF,
        pcode_data0::DEF,
        pcode_data1::DEF,
        guc::GT_PM_CONFIG,
        intc::DG1_MSTR_TILE_INTR,
        intc::GFX_MSTR_IRQ,
    ],
    &intc::GT_INTR_DW,
    &intc::ENABLES,
    &intc::INTR_IDENTITY_REG,
    &intc::IIR_REG_SELECTOR,
    &intc::MASKS,
    &[guc::GUC_HOST_INTERRUPT, vf_cap_reg::DEF],
    &guc::VF_SW_FLAG,
]));

/// Every register of the trapped BAR0 range the mock knows, sorted by offset.
pub const REGISTERS: &[RegDef] = &ALL;

/// The register that contains the byte at `offset`, if any.
pub fn lookup(offset: u32) -> Option<&'static RegDef> {
    // REGISTERS is sorted and disjoint (tested): the candidate is the last
    // register starting at or below `offset`.
    let i = REGISTERS.partition_point(|r| r.offset <= offset);
    i.checked_sub(1)
        .and_then(|i| REGISTERS.get(i))
        .filter(|r| r.contains(offset))
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(
            lookup(0x101014).map(|r| r.name),
            Some("XEHP_CLOCK_GATE_DIS")
        );
        assert_eq!(lookup(0x0), None);
        assert_eq!(
            lookup(0xD50).map(|r| r.name),
            Some("FORCEWAKE_ACK_MEDIA_VDBOX0")
        );
        assert_eq!(lookup(0xFFFF_FFFF), None);
    }

    #[test]
    fn names_are_unique() {
        let mut names: Vec<_> = REGISTERS.iter().map(|r| r.name).collect();
        names.sort_unstable();
        let n = names.len();
        names.dedup();
        assert_eq!(names.len(), n);
    }
}
