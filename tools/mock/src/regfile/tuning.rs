//! Workaround and tuning registers outside the replicated ranges
//! ([`crate::regs::tuning`]): storage, reset to 0 by a function reset, a
//! Driver-FLR or a `GDRST.GRDOM_FULL` write (`[MODEL]`, see
//! [`super::RegisterFile::write_with`]). They steer clock gating and arbitration inside the GT, which
//! the mock does not simulate; what it keeps is the programming model a
//! driver can observe: a write reads back, a masked write changes only the
//! bits its upper half selects.

use crate::regs::tuning;
use crate::regs::RegDef;

/// A masked register's new value: bits 31:16 of `write` select which of
/// bits 15:0 change (upstream `XE_REG_OPTION_MASKED`, `_MASKED_BIT_ENABLE`
/// in `xe_reg_defs.h`); the upper half itself always reads 0.
pub fn masked(old: u32, write: u32) -> u32 {
    let sel = write >> 16;
    (old & !sel & 0xffff) | (write & sel)
}

/// Whether `def` is one of `list` (by offset).
pub fn is_in(def: &RegDef, list: &[RegDef]) -> bool {
    list.iter().any(|m| m.offset == def.offset)
}

/// The registers' values, in [`tuning::ALL`]'s order.
#[derive(Debug, Default)]
pub struct Tuning {
    values: [u32; tuning::ALL.len()],
}

impl Tuning {
    /// Function reset.
    pub fn reset(&mut self) {
        self.values = Default::default();
    }

    /// Registers away from their reset value (0).
    pub fn non_reset(&self) -> u64 {
        self.values.iter().filter(|&&v| v != 0).count() as u64
    }

    fn index(offset: u32) -> Option<usize> {
        tuning::ALL.iter().position(|r| r.offset == offset)
    }

    /// The value at `offset`; `None` if no tuning register lives there.
    pub fn read(&self, offset: u32) -> Option<u32> {
        Self::index(offset).and_then(|i| self.values.get(i).copied())
    }

    /// Sets the value at `offset` as hardware does (no mask applied): an
    /// engine reset putting a register back to its reset value.
    pub fn set(&mut self, offset: u32, value: u32) {
        if let Some(slot) = Self::index(offset).and_then(|i| self.values.get_mut(i)) {
            *slot = value;
        }
    }

    /// Stores a write; `None` if no tuning register lives at `offset`.
    pub fn write(&mut self, offset: u32, value: u32) -> Option<()> {
        let i = Self::index(offset)?;
        let def = tuning::ALL.get(i)?;
        let slot = self.values.get_mut(i)?;
        *slot = if is_in(def, &tuning::MASKED) {
            masked(*slot, value)
        } else {
            value
        };
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masked_writes_change_only_selected_bits() {
        // Enable bit 3: (1 << 19) | (1 << 3).
        assert_eq!(masked(0x0001, 0x0008_0008), 0x0009);
        // Disable bit 0, bit 3 untouched.
        assert_eq!(masked(0x0009, 0x0001_0000), 0x0008);
        // No mask: nothing changes, the upper half is never stored.
        assert_eq!(masked(0x0009, 0x0000_ffff), 0x0009);
    }

    #[test]
    fn storage_reads_back_and_resets() {
        let mut t = Tuning::default();
        let misc = tuning::MISCCPCTL.offset;
        let rcu = tuning::RCU_MODE.offset;
        assert_eq!(t.write(misc, 0xdead_beef), Some(()));
        assert_eq!(t.read(misc), Some(0xdead_beef));
        assert_eq!(t.write(rcu, 0x0001_0001), Some(()));
        assert_eq!(t.read(rcu), Some(1), "masked: the mask half is not stored");
        let ccs = tuning::CCS_MODE.offset;
        t.write(ccs, 0x00ff_0042);
        assert_eq!(t.read(ccs), Some(0x42), "CCS_MODE is masked too");
        assert_eq!(t.read(0x9428), None);
        assert_eq!(t.write(0x9428, 1), None);
        t.reset();
        assert_eq!((t.read(misc), t.read(rcu)), (Some(0), Some(0)));
    }
}
