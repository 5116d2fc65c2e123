//! Behaviour of the trapped BAR0 registers.
//!
//! [`RegisterFile`] dispatches dword accesses by offset to one unit per
//! hardware block, each in its own child module:
//!
//! - [`gunit`]: `GU_CNTL` and `GU_DEBUG` (LMEM init, Driver-FLR handshake);
//! - [`pcode`]: the PCODE mailbox;
//! - [`straps`]: read-only values fixed by the device configuration
//!   (`VF_CAP_REG`, `SG_TILE_ADDR_RANGE`, `GSMBASE`).
//!
//! The dispatcher returns `None` for an offset with no register, so the
//! device can count it as unknown. Later units (forcewake, MCR, GuC,
//! interrupts) plug in as further `match` arms. All registers here are
//! always-on SGunit/Gunit registers: no forcewake is needed to reach them.
//!
//! Time-dependent behaviour is evaluated lazily from `now` at each access;
//! nothing here sleeps.

pub mod gunit;
pub mod pcode;
pub mod straps;

use std::time::Duration;

use crate::recorder::Recorder;
use crate::regs::gsmbase;
use crate::regs::gu_cntl;
use crate::regs::gu_debug;
use crate::regs::pcode_data0;
use crate::regs::pcode_data1;
use crate::regs::pcode_mailbox;
use crate::regs::sg_tile_addr_range;
use crate::regs::vf_cap_reg;

/// Device configuration the registers depend on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegParams {
    /// Local memory size in bytes (a whole number of GiB).
    pub lmem_size: u64,
    /// Present as a VF.
    pub vf: bool,
    /// Time from reset until `GU_CNTL.LMEM_INIT` sets.
    pub lmem_init_delay: Duration,
    /// Time from reset until PCODE reports init complete.
    pub pcode_init_delay: Duration,
    /// Fault `lmem-never-init`.
    pub lmem_never_init: bool,
    /// Fault `pcode-never-init`.
    pub pcode_never_init: bool,
    /// Fault `pcode-stuck`.
    pub pcode_stuck: bool,
}

/// What the device must do after a register write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Nothing outside the register file.
    None,
    /// A Driver-FLR started: local and stolen memory are wiped
    /// (`xe_device.c`, comment above `__xe_driver_flr`).
    DriverFlr,
}

/// The trapped register file.
pub struct RegisterFile {
    gunit: gunit::Gunit,
    pcode: pcode::Pcode,
    straps: straps::Straps,
}

impl RegisterFile {
    /// Registers in their reset state at time `now`.
    pub fn new(p: &RegParams, now: Duration) -> Self {
        Self {
            gunit: gunit::Gunit::new(p, now),
            pcode: pcode::Pcode::new(p, now),
            straps: straps::Straps::new(p),
        }
    }

    /// Function reset: every unit back to its reset state, timers restart.
    pub fn reset(&mut self, now: Duration) {
        self.gunit.reset(now);
        self.pcode.reset(now);
    }

    /// Reads the dword at `offset` (dword aligned); `None` if no register
    /// lives there.
    pub fn read(&mut self, offset: u32, rec: &mut Recorder) -> Option<u32> {
        let now = rec.now();
        self.gunit.advance(now, rec);
        let v = match offset {
            gu_cntl::OFFSET => self.gunit.read_gu_cntl(now),
            gu_debug::OFFSET => self.gunit.read_gu_debug(),
            pcode_mailbox::OFFSET => self.pcode.mailbox(),
            pcode_data0::OFFSET => self.pcode.data0(),
            pcode_data1::OFFSET => self.pcode.data1(),
            vf_cap_reg::OFFSET => self.straps.vf_cap_reg(),
            sg_tile_addr_range::OFFSET => self.straps.sg_tile_addr_range(),
            gsmbase::OFFSET => self.straps.gsmbase_lo(),
            o if o == gsmbase::OFFSET + 4 => self.straps.gsmbase_hi(),
            _ => return None,
        };
        Some(v)
    }

    /// Writes the dword at `offset` (dword aligned); `None` if no register
    /// lives there.
    pub fn write(&mut self, offset: u32, value: u32, rec: &mut Recorder) -> Option<Effect> {
        let now = rec.now();
        self.gunit.advance(now, rec);
        let effect = match offset {
            gu_cntl::OFFSET => self.gunit.write_gu_cntl(value, now, rec),
            gu_debug::OFFSET => {
                self.gunit.write_gu_debug(value);
                Effect::None
            }
            pcode_mailbox::OFFSET => {
                self.pcode.write_mailbox(value, now, rec);
                Effect::None
            }
            pcode_data0::OFFSET => {
                self.pcode.write_data(0, value, rec);
                Effect::None
            }
            pcode_data1::OFFSET => {
                self.pcode.write_data(1, value, rec);
                Effect::None
            }
            vf_cap_reg::OFFSET | sg_tile_addr_range::OFFSET => {
                straps::write_ignored(offset, value, rec);
                Effect::None
            }
            o if o == gsmbase::OFFSET || o == gsmbase::OFFSET + 4 => {
                straps::write_ignored(offset, value, rec);
                Effect::None
            }
            _ => return None,
        };
        Some(effect)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::clock::ManualClock;
    use crate::regs;
    use crate::trace::TraceWriter;
    use std::sync::Arc;

    /// Defaults of the CLI, without faults or delays.
    pub(crate) fn params() -> RegParams {
        RegParams {
            lmem_size: 16 << 30,
            vf: false,
            lmem_init_delay: Duration::ZERO,
            pcode_init_delay: Duration::ZERO,
            lmem_never_init: false,
            pcode_never_init: false,
            pcode_stuck: false,
        }
    }

    /// A register file and recorder sharing a manual clock.
    pub(crate) fn setup(p: RegParams) -> (RegisterFile, Recorder, ManualClock) {
        let clock = ManualClock::new();
        let rec = Recorder::new(Arc::new(clock.clone()), TraceWriter::disabled(), None);
        (RegisterFile::new(&p, Duration::ZERO), rec, clock)
    }

    #[test]
    fn every_mapped_dword_is_handled_and_nothing_else() {
        let (mut rf, mut rec, _) = setup(params());
        for r in regs::REGISTERS {
            for dw in (0..r.width()).step_by(4) {
                assert!(
                    rf.read(r.offset + dw, &mut rec).is_some(),
                    "{} +{dw}",
                    r.name
                );
            }
        }
        // Every handled dword is in the public map (scan the Gunit/SGunit
        // pages and the PCODE page around the known registers).
        for base in [0x10_1000u32, 0x10_8000, 0x13_8000, 0x19_0000] {
            for off in (base..base + 0x1000).step_by(4) {
                let handled = rf.read(off, &mut rec).is_some();
                assert_eq!(handled, regs::lookup(off).is_some(), "{off:#x}");
            }
        }
        assert_eq!(rf.write(0x0, 0, &mut rec), None);
    }
}
