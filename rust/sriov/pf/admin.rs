// SPDX-License-Identifier: GPL-2.0

//! The administrator's settings: per-VF scheduling and local-memory quotas for the next
//! enable (sysfs `sriov_admin`, upstream's names and ranges from `xe_sriov_pf_sysfs.c`) and
//! the adverse-event thresholds of provisioned VFs (debugfs `vfN threshold`), pushed to the
//! GuC at once.

use kernel::prelude::*;

use super::{
    super::{config::encode_threshold, fair, lmtt},
    Pf,
};

/// What the administrator set for one VF (sysfs `sriov_admin`), applied at the next enable;
/// unset values take the fair share and upstream's scheduling defaults.
#[derive(Copy, Clone, Default)]
pub(super) struct Quota {
    pub(super) exec_quantum_ms: Option<u32>,
    pub(super) preempt_timeout_us: Option<u32>,
    pub(super) priority: Option<u32>,
    pub(super) lmem: Option<u64>,
}

/// An administrator setting, upstream's names (`xe_sriov_pf_sysfs.c`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Setting {
    ExecQuantumMs,
    PreemptTimeoutUs,
    SchedPriority,
    VramQuota,
}

impl Setting {
    /// The settings in the order the sysfs glue numbers its files.
    pub(crate) const ALL: [Setting; 4] = [
        Setting::ExecQuantumMs,
        Setting::PreemptTimeoutUs,
        Setting::SchedPriority,
        Setting::VramQuota,
    ];
}

/// The scheduling priorities' names (seed 003: 0 LOW, 1 NORMAL, 2 HIGH).
const PRIORITIES: [&str; 3] = ["low", "normal", "high"];

impl Pf {
    /// Sets adverse-event threshold `idx` ([`THRESHOLDS`]) of provisioned VF `vf` to `value`
    /// (0: not reported) and pushes it to the GuC at once, as one KLV; it lasts until the VF
    /// is given back. Process context.
    ///
    /// [`THRESHOLDS`]: crate::sriov::config::THRESHOLDS
    ///
    /// # Errors
    ///
    /// `ENOENT` for a VF that is not provisioned, `EINVAL` for an unknown threshold, the
    /// GuC's refusal, `EIO` when it did not apply it.
    pub(crate) fn set_threshold(&self, vf: u16, idx: usize, value: u32) -> Result {
        let mut st = self.state.lock();
        let v = usize::from(vf)
            .checked_sub(1)
            .and_then(|i| st.vfs.get_mut(i))
            .ok_or(ENOENT)?;
        let cfg = v.pushed.as_mut().ok_or(ENOENT)?;
        let slot = cfg.thresholds.get_mut(idx).ok_or(EINVAL)?;
        let mut buf = [0u32; 2];
        let (len, klvs) = encode_threshold(&mut buf, idx, value)?;
        self.send(vf, buf.get(..len).unwrap_or_default(), klvs)
            .map_err(|(what, e)| {
                dev_err!(
                    self.dev,
                    "sriov: VF{}: setting a threshold failed at {}: {}\n",
                    vf,
                    what,
                    e.to_errno()
                );
                e
            })?;
        *slot = value;
        Ok(())
    }

    /// Writes the value of `setting` for VF `vf` that the next enable applies (for the bulk
    /// profile, `vf` 0: VF1's, which a bulk write made everyone's).
    pub(crate) fn show(
        &self,
        vf: u16,
        setting: Setting,
        f: &mut impl core::fmt::Write,
    ) -> core::fmt::Result {
        let st = self.state.lock();
        let q = st
            .quotas
            .get(usize::from(vf.max(1)))
            .copied()
            .unwrap_or_default();
        match setting {
            Setting::ExecQuantumMs => {
                writeln!(f, "{}", q.exec_quantum_ms.unwrap_or(fair::EXEC_QUANTUM_MS))
            }
            Setting::PreemptTimeoutUs => {
                writeln!(
                    f,
                    "{}",
                    q.preempt_timeout_us.unwrap_or(fair::PREEMPT_TIMEOUT_US)
                )
            }
            Setting::SchedPriority => {
                let chosen = q.priority.unwrap_or(0) as usize;
                for (i, name) in PRIORITIES.iter().enumerate() {
                    let sep = if i == 0 { "" } else { " " };
                    if i == chosen {
                        write!(f, "{sep}[{name}]")?;
                    } else {
                        write!(f, "{sep}{name}")?;
                    }
                }
                writeln!(f)
            }
            // 0: the fair share of the next enable.
            Setting::VramQuota => writeln!(f, "{}", q.lmem.unwrap_or(0)),
        }
    }

    /// Sets `setting` of VF `vf` (0: every VF) from the text written to its file, for the
    /// next enable. Process context.
    ///
    /// # Errors
    ///
    /// `EBUSY` while VFs are provisioned (the settings are the next enable's), `ENOENT` for a
    /// VF beyond TotalVFs, `EINVAL` for text that is not a value, `ERANGE` for a value outside
    /// its key's range (seed 003) or, for local memory, beyond what VFs can share.
    pub(crate) fn set(&self, vf: u16, setting: Setting, text: &str) -> Result {
        let text = text.trim();
        let mut st = self.state.lock();
        if !st.vfs.is_empty() {
            return Err(EBUSY);
        }
        if vf > self.total {
            return Err(ENOENT);
        }
        let number = || text.parse::<u64>().map_err(|_| EINVAL);
        // Nothing is provisioned (checked above): all of the VFs' memory is free.
        let window = st.vf_lmem.avail();
        let apply: &dyn Fn(&mut Quota) = match setting {
            Setting::ExecQuantumMs => {
                let v = u32::try_from(number()?)
                    .ok()
                    .filter(|v| *v <= 100_000)
                    .ok_or(ERANGE)?;
                &move |q: &mut Quota| q.exec_quantum_ms = Some(v)
            }
            Setting::PreemptTimeoutUs => {
                let v = u32::try_from(number()?)
                    .ok()
                    .filter(|v| *v <= 100_000_000)
                    .ok_or(ERANGE)?;
                &move |q: &mut Quota| q.preempt_timeout_us = Some(v)
            }
            Setting::SchedPriority => {
                let i = PRIORITIES.iter().position(|p| *p == text).ok_or(EINVAL)?;
                // CAST: below 3.
                let v = i as u32;
                &move |q: &mut Quota| q.priority = Some(v)
            }
            Setting::VramQuota => {
                let v = number()?;
                if v % lmtt::PAGE != 0 {
                    return Err(EINVAL);
                }
                if v > window {
                    return Err(ERANGE);
                }
                let v = (v != 0).then_some(v);
                &move |q: &mut Quota| q.lmem = v
            }
        };
        let range = if vf == 0 {
            1..=usize::from(self.total)
        } else {
            usize::from(vf)..=usize::from(vf)
        };
        for q in st
            .quotas
            .iter_mut()
            .take(range.end() + 1)
            .skip(*range.start())
        {
            apply(q);
        }
        Ok(())
    }
}
