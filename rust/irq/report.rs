// SPDX-License-Identifier: GPL-2.0

//! The debugfs `irq` file: the report of the interrupt state (counters, plan, stormed sources,
//! the registers of a [`RegSnapshot`]) and its commands (`rearm`, `storm_limit`).

use kernel::{fmt, prelude::*, sync::atomic::Relaxed};

use super::{
    program::write_mask,
    snapshot::RegSnapshot,
    state::{IrqState, Vector},
};
use crate::{
    engine::source::{self, MaskReg, SOURCES},
    gt::Gt,
};

/// Register names for the debugfs report, per
/// [`EnableReg::ALL`](crate::engine::source::EnableReg::ALL) and [`MaskReg::ALL`].
const ENABLE_NAMES: [&str; 4] = [
    "RENDER_COPY_INTR_ENABLE",
    "VCS_VECS_INTR_ENABLE",
    "GUC_SG_INTR_ENABLE",
    "CCS_RSVD_INTR_ENABLE",
];
const MASK_NAMES: [&str; 11] = [
    "RCS0_RSVD_INTR_MASK",
    "BCS_RSVD_INTR_MASK",
    "VCS0_VCS1_INTR_MASK",
    "VCS2_VCS3_INTR_MASK",
    "VCS4_VCS5_INTR_MASK",
    "VCS6_VCS7_INTR_MASK",
    "VECS0_VECS1_INTR_MASK",
    "VECS2_VECS3_INTR_MASK",
    "GUC_SG_INTR_MASK",
    "CCS0_CCS1_INTR_MASK",
    "CCS2_CCS3_INTR_MASK",
];

impl IrqState {
    /// The debugfs `irq` report (format in `Documentation/debugfs.rst`), with the registers
    /// `regs` read while the device was still bound.
    ///
    /// # Errors
    ///
    /// Only the formatter's.
    pub(crate) fn fmt_report(
        &self,
        f: &mut fmt::Formatter<'_>,
        regs: Option<&RegSnapshot>,
    ) -> fmt::Result {
        let s = &self.stats;
        let (armed, mode, stormed, limit, plan) = {
            let c = self.ctl.lock();
            (c.armed, c.plan.mode, c.stormed, c.storm_limit, c.plan)
        };
        let vector = match self.vector {
            Vector::Msi => "msi",
            Vector::Intx => "intx",
        };
        f.write_fmt(fmt!("vector: {}\nirq: {}\n", vector, self.irq))?;
        f.write_fmt(fmt!("mode: {}\narmed: {}\n", mode.name(), u8::from(armed)))?;
        for (name, c) in [
            ("interrupts", &s.interrupts),
            ("spurious", &s.spurious),
            ("disarmed", &s.disarmed),
            ("device_gone", &s.device_gone),
            ("thread_runs", &s.thread_runs),
            ("tile0", &s.tiles),
            ("tile_unexpected", &s.tile_unexpected),
            ("bank0", &s.banks[0]),
            ("bank1", &s.banks[1]),
            ("data_valid_timeouts", &s.data_valid_timeouts),
            ("unknown_identities", &s.unknown_identities),
            ("storms", &s.storms),
        ] {
            f.write_fmt(fmt!("{}: {}\n", name, c.load(Relaxed)))?;
        }
        f.write_fmt(fmt!("storm_limit: {}\nstormed:", limit))?;
        if stormed == 0 {
            f.write_str(" none")?;
        }
        for (i, src) in SOURCES.iter().enumerate() {
            if stormed & (1 << i) != 0 {
                f.write_fmt(fmt!(" {}", src.name))?;
            }
        }
        f.write_fmt(fmt!(
            "\nerrors: correctable {} nonfatal {} fatal {}\n",
            s.errors[0].load(Relaxed),
            s.errors[1].load(Relaxed),
            s.errors[2].load(Relaxed)
        ))?;
        for (i, src) in SOURCES.iter().enumerate() {
            let armed_vectors = if stormed & (1 << i) != 0 {
                0
            } else {
                plan.armed_vectors(i)
            };
            f.write_fmt(fmt!(
                "source {}: {} present {} armed {:#06x} bank {} bit {}\n",
                src.name,
                self.source_count(i),
                u8::from(self.present.has(src)),
                armed_vectors,
                src.bank,
                src.bit
            ))?;
        }
        for (i, src) in SOURCES.iter().enumerate() {
            for (b, c) in s.per_bit[i].iter().enumerate() {
                let n = c.load(Relaxed);
                if n != 0 {
                    f.write_fmt(fmt!("bit {} {}: {}\n", src.name, b, n))?;
                }
            }
        }
        let Some(regs) = regs else {
            return f.write_str("registers: device unbound\n");
        };
        f.write_fmt(fmt!(
            "reg DG1_MSTR_TILE_INTR: {:#010x}\nreg GFX_MSTR_IRQ: {:#010x}\n",
            regs.tile,
            regs.primary
        ))?;
        for (v, name) in regs.enables.iter().zip(ENABLE_NAMES) {
            f.write_fmt(fmt!("reg {}: {:#010x}\n", name, v))?;
        }
        for (v, name) in regs.masks.iter().zip(MASK_NAMES) {
            f.write_fmt(fmt!("reg {}: {:#010x}\n", name, v))?;
        }
        Ok(())
    }

    /// A debugfs `irq` command: `rearm NAME` or `rearm all` unmasks stormed sources (their
    /// window starts over); `storm_limit N` (N >= 1) sets the per-second limit. `gt` is the
    /// live view (the command fails with `ENODEV` once the device is unbound). Process context;
    /// does not sleep.
    ///
    /// # Errors
    ///
    /// `EINVAL` for a malformed command or an unknown source.
    pub(crate) fn command(&self, gt: &Gt<'_>, cmd: &str) -> Result {
        let mut words = cmd.split_ascii_whitespace();
        let (Some(verb), Some(arg), None) = (words.next(), words.next(), words.next()) else {
            return Err(EINVAL);
        };
        match verb {
            "rearm" => {
                let which = if arg == "all" {
                    u32::MAX
                } else {
                    1 << source::by_name(arg).ok_or(EINVAL)?
                };
                let mut c = self.ctl.lock();
                let hit = c.stormed & which;
                c.stormed &= !which;
                for (i, m) in c.meters.iter_mut().enumerate() {
                    if which & (1 << i) != 0 {
                        m.reset();
                    }
                }
                if c.armed {
                    for r in MaskReg::ALL {
                        if SOURCES
                            .iter()
                            .enumerate()
                            .any(|(i, s)| hit & (1 << i) != 0 && s.mask.0 == r)
                        {
                            write_mask(gt, r, c.plan.mask_with(r, c.stormed));
                        }
                    }
                }
                Ok(())
            }
            "storm_limit" => {
                let n: u32 = arg.parse().map_err(|_| EINVAL)?;
                if n == 0 {
                    return Err(EINVAL);
                }
                self.ctl.lock().storm_limit = n;
                Ok(())
            }
            _ => Err(EINVAL),
        }
    }
}
