//! Read-only registers whose values the device configuration fixes:
//! `VF_CAP_REG`, `SG_TILE_ADDR_RANGE(0)` and `GSMBASE`.
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
use crate::regs::sg_tile_addr_range;
use crate::regs::vf_cap_reg;

/// Size of GGTT stolen memory at the top of local memory: one 8-byte PTE per
/// 4 KiB page of the 4 GiB GGTT (`xe_ggtt.c` `gsm_size = SZ_8M`).
pub const GSM_SIZE: u64 = 8 << 20;

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
