//! The VF-dedicated registers, as the PF reaches them: each VF's copy of
//! `VF_SW_FLAG(0..3)`, the registers a VF's driver exchanges MMIO messages
//! with the GuC through.
//!
//! Facts: the registers a VF may touch are replicated in each VF's MMIO
//! space (seed 000 line 127), and on a VF FLR "Gunit resets VF-dedicated
//! MMIO registers" (line 322, the last step). Where the PF sees a VF's
//! copy is upstream's, not the seed's: VF `n`'s registers sit `n` × 0x400
//! above the PF's own for graphics versions above 12.00 (`xe_mmio.c`
//! `vf_regs_stride`, `xe_mmio_init_vf_view`); ATS-M is 12.55. Upstream's
//! PF clears a VF's `VF_SW_FLAG`s in its part of the FLR
//! (`xe_gt_sriov_pf.c` `pf_clear_vf_scratch_regs`) although the seed gives
//! that step to the hardware; a PF that does so does not depend on it.
//!
//! Only `VF_SW_FLAG` is modelled: another offset in a VF's window is an
//! unknown access, as before. The guest cannot reach a VF's own BAR (QEMU
//! backs none, `Documentation/sriov.rst`), so a VF's traffic is stood in for
//! by the test control: `vf:scratch:N` leaves a message in VF N's
//! registers, `vf:keep-regs:N` makes the next N VF FLRs skip the Gunit
//! reset (hardware that did not do the seed's step 12). The isolation
//! checker reports `vf_regs_not_cleared` for a VF whose registers still hold
//! something when the PF finishes its FLR (`FLR_FINISH` accepted).

use crate::recorder::Recorder;
use crate::regs;
use crate::trace::Event;
use crate::trace::Hex;

/// Distance between two functions' copies (upstream `vf_regs_stride`,
/// graphics version above 12.00).
pub const STRIDE: u32 = 0x400;
/// `VF_SW_FLAG(0..3)` per function.
pub const COUNT: usize = 4;
/// Functions with a window: the PF (0, whose copy is the register table's)
/// and VFs 1..=63.
const FUNCTIONS: usize = 64;

/// What `vf:scratch:N` leaves in VF N's register `i`: non-zero, and
/// naming the VF and the register, so a finding says whose it was.
pub fn planted(vf: u32, i: usize) -> u32 {
    // CAST: i < 4.
    0x5C00_0000 | (vf << 8) | i as u32
}

/// The VF (1..=63) and register index `offset` addresses, if it is a VF's
/// `VF_SW_FLAG` copy.
pub fn lookup(offset: u32) -> Option<(u32, usize)> {
    let base = regs::guc::VF_SW_FLAG[0].offset;
    let rel = offset.checked_sub(base + STRIDE)?;
    let vf = 1 + rel / STRIDE;
    let within = rel % STRIDE;
    // CAST: FUNCTIONS and COUNT are small.
    if vf >= FUNCTIONS as u32 || !within.is_multiple_of(4) || within / 4 >= COUNT as u32 {
        return None;
    }
    Some((vf, (within / 4) as usize))
}

/// The VFs' register copies and the `vf:keep-regs` switch.
#[derive(Debug, Clone)]
pub struct VfRegs {
    values: [[u32; COUNT]; FUNCTIONS],
    /// VF FLRs left that skip the Gunit reset.
    keep: u64,
}

impl Default for VfRegs {
    fn default() -> Self {
        Self {
            values: [[0; COUNT]; FUNCTIONS],
            keep: 0,
        }
    }
}

impl VfRegs {
    /// Reads VF `vf`'s register `i` ([`lookup`]).
    pub fn read(&self, vf: u32, i: usize) -> u32 {
        self.slot(vf, i).copied().unwrap_or(0)
    }

    /// The PF writes VF `vf`'s register `i`.
    pub fn write(&mut self, vf: u32, i: usize, value: u32, rec: &mut Recorder) {
        if let Some(s) = self.slot_mut(vf, i) {
            *s = value;
        }
        rec.emit(Event::SriovVfRegs {
            vf,
            action: "pf_write",
            value: Some(Hex(value.into())),
        });
    }

    /// `vf:scratch:N`: VF `vf`'s driver left a message ([`planted`]).
    pub fn plant(&mut self, vf: u32, rec: &mut Recorder) {
        for i in 0..COUNT {
            if let Some(s) = self.slot_mut(vf, i) {
                *s = planted(vf, i);
            }
        }
        rec.emit(Event::SriovVfRegs {
            vf,
            action: "planted",
            value: None,
        });
    }

    /// `vf:keep-regs:N`: the next `count` VF FLRs leave the registers.
    pub fn keep(&mut self, count: u64) {
        self.keep = self.keep.saturating_add(count);
    }

    /// Switches still armed.
    pub fn armed_left(&self) -> u64 {
        self.keep
    }

    /// A VF FLR of `vf` (seed 000 line 322): Gunit resets its registers,
    /// unless `vf:keep-regs` is armed.
    pub fn flr(&mut self, vf: u32, rec: &mut Recorder) {
        let action = if self.keep > 0 {
            self.keep -= 1;
            "kept"
        } else {
            if let Some(v) = usize::try_from(vf)
                .ok()
                .and_then(|v| self.values.get_mut(v))
            {
                *v = [0; COUNT];
            }
            "reset"
        };
        rec.emit(Event::SriovVfRegs {
            vf,
            action,
            value: None,
        });
    }

    /// A device reset: every copy back to zero (the switch stays, as the
    /// test control's do).
    pub fn reset_all(&mut self) {
        self.values = [[0; COUNT]; FUNCTIONS];
    }

    /// The first non-zero register of each VF in `vfs` (bit per VFID):
    /// (VF, index, value).
    pub fn dirty(&self, vfs: u64) -> Vec<(u32, usize, u32)> {
        (1..FUNCTIONS)
            .filter(|&v| vfs & (1 << v) != 0)
            .filter_map(|v| {
                let (i, &value) = self.values[v].iter().enumerate().find(|(_, &x)| x != 0)?;
                // CAST: v < 64.
                Some((v as u32, i, value))
            })
            .collect()
    }

    /// VF `vf`'s driver wrote its own register `i` (through its BAR0,
    /// `device/guest_vf.rs`): the same storage the PF sees at its stride.
    pub fn vf_write(&mut self, vf: u32, i: usize, value: u32) {
        if let Some(s) = self.slot_mut(vf, i) {
            *s = value;
        }
    }

    /// VF `vf`'s four registers, a message to the GuC.
    pub fn message(&self, vf: u32) -> [u32; COUNT] {
        std::array::from_fn(|i| self.read(vf, i))
    }

    /// The GuC's reply to VF `vf` overwrites its four registers.
    pub fn set_message(&mut self, vf: u32, msg: [u32; COUNT]) {
        for (i, v) in msg.into_iter().enumerate() {
            self.vf_write(vf, i, v);
        }
    }

    fn slot(&self, vf: u32, i: usize) -> Option<&u32> {
        self.values.get(usize::try_from(vf).ok()?)?.get(i)
    }

    fn slot_mut(&mut self, vf: u32, i: usize) -> Option<&mut u32> {
        self.values.get_mut(usize::try_from(vf).ok()?)?.get_mut(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    use crate::clock::ManualClock;
    use crate::trace::TraceWriter;

    fn recorder() -> Recorder {
        Recorder::new(Arc::new(ManualClock::new()), TraceWriter::disabled(), None)
    }

    #[test]
    fn windows_follow_upstreams_stride() {
        let flag0 = regs::guc::VF_SW_FLAG[0].offset;
        // The PF's own copy is the register table's, not a VF's.
        assert_eq!(lookup(flag0), None);
        assert_eq!(lookup(flag0 + 0x400), Some((1, 0)));
        assert_eq!(lookup(flag0 + 0x400 + 12), Some((1, 3)));
        assert_eq!(lookup(flag0 + 0x400 + 16), None, "only 4 registers");
        assert_eq!(lookup(flag0 + 0x400 + 2), None, "unaligned");
        assert_eq!(lookup(flag0 + 63 * 0x400 + 8), Some((63, 2)));
        assert_eq!(lookup(flag0 + 64 * 0x400), None, "no VF 64");
        assert_eq!(lookup(0), None);
    }

    #[test]
    fn flr_resets_unless_kept_and_dirty_names_the_first_value() {
        let mut rec = recorder();
        let mut r = VfRegs::default();
        r.plant(3, &mut rec);
        r.plant(4, &mut rec);
        assert_eq!(r.read(3, 2), planted(3, 2));
        assert_eq!(r.dirty(1 << 3 | 1 << 5), vec![(3, 0, planted(3, 0))]);
        r.flr(3, &mut rec);
        assert_eq!(r.dirty(1 << 3), vec![]);
        r.keep(1);
        r.flr(4, &mut rec);
        assert_eq!(r.armed_left(), 0);
        assert_eq!(r.dirty(1 << 4).len(), 1, "the switch kept them");
        // What the PF writes is what it reads back; zeros clear.
        for i in 0..COUNT {
            r.write(4, i, 0, &mut rec);
        }
        assert_eq!(r.dirty(1 << 4), vec![]);
        r.write(4, 1, 7, &mut rec);
        assert_eq!(r.dirty(1 << 4), vec![(4, 1, 7)]);
    }
}
