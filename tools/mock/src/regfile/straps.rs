//! Read-only registers whose values the device configuration fixes:
//! `VF_CAP_REG`, `SG_TILE_ADDR_RANGE(0)` and `GSMBASE`; and two whose
//! values the model fixes, [`Straps::fixed`]:
//!
//! - `RPM_CONFIG0` (0x0D00, always on: seed 000 line 464): the crystal
//!   clock's frequency and the timestamp's shift (`regs/xe_gt_regs.h`,
//!   decoded by `xe_gt_clock.c` `get_crystal_clock_freq`). `[MODEL]` no
//!   seed gives ATS-M's crystal: 38.4 MHz (`RPM_CONFIG0_CRYSTAL_CLOCK_FREQ_38_4_MHZ`,
//!   2) and a shift parameter of 3, so the command streamer's timestamp
//!   counts at the crystal's rate (`xe_gt_clock_init`: `freq >>= 3 - shift`);
//!   [`RPM_CONFIG0_VALUE`];
//! - `HUC_KERNEL_LOAD_INFO` (0xC1DC, GT domain: seed 000 line 523): bit 0
//!   `HUC_LOAD_SUCCESSFUL` once the HuC is authenticated (`regs/xe_guc_regs.h`;
//!   read by `xe_huc.c`). The mock has no HuC (no HuC upload, no
//!   authentication action in the GuC model): 0, [`HUC_KERNEL_LOAD_INFO_VALUE`].
//!
//! On hardware the last two are set up before the driver runs (the seed
//! says the BIOS programs the stolen-memory base registers,
//! seed 000 L342, Volume 13's stolen memory section); the mock derives them
//! from `--lmem-size-gib`. A write to any of them has no effect and is
//! recorded as a `read_only_write` violation: the driver has no business
//! writing them. The one exception is 0 to `VF_CAP_REG`, upstream's
//! posted-write flush (`xe_device.c` `xe_device_wmb`): no effect, no
//! violation (`RegFile::write`).

use super::RegParams;
use crate::recorder::Recorder;
use crate::regs;
use crate::regs::rpm_config0;
use crate::regs::sg_tile_addr_range;
use crate::regs::vf_cap_reg;

/// Size of GGTT stolen memory at the top of local memory: one 8-byte PTE per
/// 4 KiB page of the 4 GiB GGTT (`xe_ggtt.c` `gsm_size = SZ_8M`).
pub const GSM_SIZE: u64 = 8 << 20;

/// `RPM_CONFIG0`: a 38.4 MHz crystal, timestamp shift 3 (module docs,
/// `[MODEL]`).
// CAST: both fields lie in bits 5:1.
pub const RPM_CONFIG0_VALUE: u32 = (rpm_config0::CRYSTAL_CLOCK_FREQ
    .prep(rpm_config0::CRYSTAL_38_4_MHZ)
    | rpm_config0::CTC_SHIFT_PARAMETER.prep(3)) as u32;
/// `HUC_KERNEL_LOAD_INFO`: no HuC loaded (module docs).
pub const HUC_KERNEL_LOAD_INFO_VALUE: u32 = 0;

/// Values of the read-only registers.
#[derive(Debug, Clone, Copy)]
pub struct Straps {
    vf_cap_reg: u32,
    sg_tile_addr_range: u32,
    gsmbase: u64,
}

impl Straps {
    /// Values for the given configuration.
    pub fn new(p: &RegParams) -> Self {
        let vf_cap = if p.vf { 1 } else { 0 };
        let size_gib = p.lmem_size >> 30;
        // CAST: both fields lie in bits 17:1, so the value fits 32 bits.
        let range = (sg_tile_addr_range::SIZE_GIB.prep(size_gib)
            | sg_tile_addr_range::OFFSET_GIB.prep(0)) as u32;
        Self {
            // CAST: VF_CAP is bit 0.
            vf_cap_reg: vf_cap_reg::VF_CAP.prep(vf_cap) as u32,
            sg_tile_addr_range: range,
            // GSM sits at the top of tile 0's local memory (tile offset 0).
            gsmbase: p.lmem_size.saturating_sub(GSM_SIZE),
        }
    }

    /// `VF_CAP_REG`: VF_CAP is 1 only on a VF (`xe_sriov.c`).
    pub fn vf_cap_reg(&self) -> u32 {
        self.vf_cap_reg
    }

    /// `SG_TILE_ADDR_RANGE(0)`: size in GiB in 17:8, offset 0 in 7:1.
    pub fn sg_tile_addr_range(&self) -> u32 {
        self.sg_tile_addr_range
    }

    /// Low dword of `GSMBASE`.
    pub fn gsmbase_lo(&self) -> u32 {
        // CAST: taking the low dword is the intent.
        self.gsmbase as u32
    }

    /// `RPM_CONFIG0` and `HUC_KERNEL_LOAD_INFO` (module docs); `None` for
    /// any other offset. No side effect.
    pub fn fixed(&self, offset: u32) -> Option<u32> {
        match offset {
            rpm_config0::OFFSET => Some(RPM_CONFIG0_VALUE),
            o if o == regs::guc::HUC_KERNEL_LOAD_INFO.offset => Some(HUC_KERNEL_LOAD_INFO_VALUE),
            _ => None,
        }
    }

    /// High dword of `GSMBASE`.
    pub fn gsmbase_hi(&self) -> u32 {
        // CAST: the shifted value fits 32 bits.
        (self.gsmbase >> 32) as u32
    }
}

/// Records a write to one of these read-only registers.
pub fn write_ignored(offset: u32, value: u32, rec: &mut Recorder) {
    let name = regs::lookup(offset).map_or("?", |r| r.name);
    rec.violation(
        "read_only_write",
        format!("{name} (+{offset:#x}) is read-only; write of {value:#x} ignored"),
    );
}

#[cfg(test)]
mod tests {
    use crate::regfile::tests::params;
    use crate::regfile::tests::setup;
    use crate::regs::gsmbase::OFFSET as GSMBASE;
    use crate::regs::sg_tile_addr_range::OFFSET as SG_TILE_ADDR_RANGE;
    use crate::regs::vf_cap_reg::OFFSET as VF_CAP_REG;

    #[test]
    fn pf_default_values() {
        let (mut rf, mut rec, _) = setup(params());
        assert_eq!(rf.read(VF_CAP_REG, &mut rec), Some(0));
        // 16 GiB at offset 0: 16 << 8.
        assert_eq!(rf.read(SG_TILE_ADDR_RANGE, &mut rec), Some(0x1000));
        // 16 GiB - 8 MiB = 0x3_FF80_0000.
        assert_eq!(rf.read(GSMBASE, &mut rec), Some(0xFF80_0000));
        assert_eq!(rf.read(GSMBASE + 4, &mut rec), Some(0x3));
    }

    #[test]
    fn vf_and_other_sizes() {
        let mut p = params();
        p.vf = true;
        p.lmem_size = 4 << 30;
        let (mut rf, mut rec, _) = setup(p);
        assert_eq!(rf.read(VF_CAP_REG, &mut rec), Some(1));
        assert_eq!(rf.read(SG_TILE_ADDR_RANGE, &mut rec), Some(4 << 8));
        assert_eq!(rf.read(GSMBASE, &mut rec), Some(0xFF80_0000));
        assert_eq!(rf.read(GSMBASE + 4, &mut rec), Some(0));
        // The driver's decode (xe_vram.c) recovers the size.
        let v = u64::from(rf.read(SG_TILE_ADDR_RANGE, &mut rec).unwrap_or(0));
        assert_eq!(((v >> 8) & 0x3FF) << 30, 4 << 30);
    }

    #[test]
    fn writes_are_ignored_and_recorded() {
        let (mut rf, mut rec, _) = setup(params());
        for off in [VF_CAP_REG, SG_TILE_ADDR_RANGE, GSMBASE, GSMBASE + 4] {
            rf.write(off, 0xFFFF_FFFF, &mut rec);
        }
        assert_eq!(rf.read(VF_CAP_REG, &mut rec), Some(0));
        assert_eq!(rf.read(SG_TILE_ADDR_RANGE, &mut rec), Some(0x1000));
        assert_eq!(rf.read(GSMBASE + 4, &mut rec), Some(0x3));
        assert_eq!(
            rec.summary(false).violation_kinds.get("read_only_write"),
            Some(&4)
        );
    }

    /// `RPM_CONFIG0` says a 38.4 MHz crystal in upstream's encoding, with
    /// no forcewake (AON); `HUC_KERNEL_LOAD_INFO` says no HuC (GT domain).
    /// Both read-only.
    #[test]
    fn rpm_config0_and_huc_kernel_load_info() {
        use crate::regs::rpm_config0;
        let (mut rf, mut rec, clock) = setup(params());
        let v = rf.read(0x0D00, &mut rec).expect("modelled");
        assert_eq!(v, 0x16);
        // xe_gt_clock.c: field 5:3 = 2 is 38.4 MHz; shift 3 keeps it.
        assert_eq!(rpm_config0::CRYSTAL_CLOCK_FREQ.get(v.into()), 2);
        let freq = 38_400_000u64 >> (3 - rpm_config0::CTC_SHIFT_PARAMETER.get(v.into()));
        assert_eq!(freq, 38_400_000);
        assert_eq!(rec.summary(false).violations, 0, "always on");
        crate::regfile::tests::awake(&mut rf, &mut rec, &clock, &[crate::power::Domain::GT]);
        assert_eq!(rf.read(0xC1DC, &mut rec), Some(0));
        rf.write(0x0D00, 0, &mut rec);
        rf.write(0xC1DC, 1, &mut rec);
        assert_eq!(rf.read(0x0D00, &mut rec), Some(0x16));
        assert_eq!(rf.read(0xC1DC, &mut rec), Some(0));
        assert_eq!(
            rec.summary(false).violation_kinds.get("read_only_write"),
            Some(&2)
        );
    }

    #[test]
    fn zero_to_vf_cap_reg_is_a_flush() {
        let mut p = params();
        p.vf = true;
        let (mut rf, mut rec, _) = setup(p);
        rf.write(VF_CAP_REG, 0, &mut rec);
        assert_eq!(rf.read(VF_CAP_REG, &mut rec), Some(1));
        assert_eq!(rec.summary(false).violations, 0);
        rf.write(VF_CAP_REG, 1, &mut rec);
        assert_eq!(
            rec.summary(false).violation_kinds.get("read_only_write"),
            Some(&1)
        );
    }
}
