// SPDX-License-Identifier: GPL-2.0

//! The administrator's settings (sysfs `sriov_admin`, upstream's layout, names and rules from
//! `xe_sriov_pf_sysfs.c` and `xe_sriov_pf_provision.c`) and the adverse-event thresholds of
//! provisioned VFs (debugfs `vfN threshold`).
//!
//! | setting | PF (`pf/profile`) | VF (`vfN/profile`) | bulk (`.bulk_profile`, write-only) |
//! |---|---|---|---|
//! | `exec_quantum_ms`, `preempt_timeout_us` | pushed at once | kept; pushed at once to a provisioned VF | the PF's and every VF's |
//! | `sched_priority` | low, normal, high; pushed at once | read-only, follows the policy | low or normal: the `SCHED_IF_IDLE` policy |
//! | `vram_quota` | - | the next enable's; a provisioned VF gets it at once ([`Pf::set_quota`]) and reads the size it holds | every VF's |

use kernel::{prelude::*, sync::MutexGuard};

use super::{
    super::{
        config::{encode_lmem, encode_policy, encode_sched, encode_threshold, Sched},
        control::Flr,
        fair, lmtt,
    },
    flr::copy_runs,
    Pf, State,
};
use crate::guc::{UpdateVgtPolicy, VfCommand};

/// What the administrator set for one function (index 0: the PF); unset values take the fair
/// share and upstream's scheduling defaults.
#[derive(Copy, Clone, Default)]
pub(super) struct Quota {
    pub(super) exec_quantum_ms: Option<u32>,
    pub(super) preempt_timeout_us: Option<u32>,
    /// The PF's only: a VF's follows the `SCHED_IF_IDLE` policy.
    pub(super) priority: Option<u32>,
    /// A VF's only.
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

/// Whose setting a file is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Target {
    /// `sriov_admin/pf`.
    Pf,
    /// `sriov_admin/vfN`, `N` from 1 to TotalVFs.
    Vf(u16),
    /// `sriov_admin/.bulk_profile`: the PF and every VF (local memory: every VF).
    Bulk,
}

/// The scheduling priorities' names (seed 003: 0 LOW, 1 NORMAL, 2 HIGH).
const PRIORITIES: [&str; 3] = ["low", "normal", "high"];

/// NORMAL.
const NORMAL: u32 = 1;

impl State {
    /// The priority the `SCHED_IF_IDLE` policy gives every function (upstream
    /// `xe_gt_sriov_pf_policy_set_sched_if_idle_locked`): NORMAL when set, LOW otherwise.
    pub(super) fn policy_priority(&self) -> u32 {
        u32::from(self.sched_if_idle)
    }

    /// The PF's quantum and timeout: the administrator's, else upstream's fair scheduling
    /// while VFs are provisioned (`xe_gt_sriov_pf_config_set_fair_sched`) and no limits
    /// otherwise (`pf_reprovision_default`).
    pub(super) fn pf_sched(&self, vfs_running: bool) -> (u32, u32) {
        let q = self.quotas.first().copied().unwrap_or_default();
        let (eq, pt) = if vfs_running {
            (fair::EXEC_QUANTUM_MS, fair::PREEMPT_TIMEOUT_US)
        } else {
            (0, 0)
        };
        (
            q.exec_quantum_ms.unwrap_or(eq),
            q.preempt_timeout_us.unwrap_or(pt),
        )
    }

    /// The PF's priority when the administrator chose one.
    pub(super) fn pf_priority(&self) -> Option<u32> {
        self.quotas.first().and_then(|q| q.priority)
    }
}

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
        self.send_logged(vf, buf.get(..len).unwrap_or_default(), klvs, "a threshold")?;
        *slot = value;
        Ok(())
    }

    /// The function number and target of a glue file: `id` 0 is the PF, 1 to TotalVFs a VF,
    /// `bulk` the bulk profile.
    pub(crate) fn target(&self, id: u32, bulk: u32) -> Option<Target> {
        if id == bulk {
            return Some(Target::Bulk);
        }
        match u16::try_from(id).ok()? {
            0 => Some(Target::Pf),
            vf if vf <= self.total => Some(Target::Vf(vf)),
            _ => None,
        }
    }

    /// Writes `setting` of `t` as its file reads. Process context.
    ///
    /// # Errors
    ///
    /// `EPERM` for the write-only bulk profile and a setting the target lacks.
    pub(crate) fn show(
        &self,
        t: Target,
        setting: Setting,
        f: &mut impl core::fmt::Write,
    ) -> Result<core::fmt::Result> {
        let st = self.state.lock();
        let vf = match t {
            Target::Bulk => return Err(EPERM),
            Target::Pf => None,
            Target::Vf(vf) => Some(vf),
        };
        let q = st
            .quotas
            .get(vf.map_or(0, usize::from))
            .copied()
            .unwrap_or_default();
        // What the GuC holds for a provisioned VF.
        let pushed = vf
            .and_then(|vf| usize::from(vf).checked_sub(1))
            .and_then(|i| st.vfs.get(i));
        let cfg = pushed.and_then(|v| v.pushed);
        let running = !st.vfs.is_empty();
        Ok(match (setting, vf) {
            (Setting::ExecQuantumMs, None) => writeln!(f, "{}", st.pf_sched(running).0),
            (Setting::PreemptTimeoutUs, None) => writeln!(f, "{}", st.pf_sched(running).1),
            (Setting::ExecQuantumMs, Some(_)) => writeln!(
                f,
                "{}",
                cfg.map_or(q.exec_quantum_ms.unwrap_or(fair::EXEC_QUANTUM_MS), |c| c
                    .exec_quantum_ms)
            ),
            (Setting::PreemptTimeoutUs, Some(_)) => writeln!(
                f,
                "{}",
                cfg.map_or(
                    q.preempt_timeout_us.unwrap_or(fair::PREEMPT_TIMEOUT_US),
                    |c| c.preempt_timeout_us
                )
            ),
            // The PF may choose among all three; a VF's is the policy's, LOW or NORMAL.
            (Setting::SchedPriority, None) => choices(
                f,
                st.pf_priority().unwrap_or(st.policy_priority()),
                &PRIORITIES,
            ),
            (Setting::SchedPriority, Some(_)) => choices(
                f,
                st.policy_priority(),
                PRIORITIES.get(..2).unwrap_or_default(),
            ),
            // The real size a provisioned VF holds; else the next enable's quota, 0 for the
            // fair share (upstream: "shows the result of the auto-provisioning").
            (Setting::VramQuota, Some(_)) => writeln!(
                f,
                "{}",
                pushed
                    .and_then(|v| v.lmem.as_ref())
                    .map_or(q.lmem.unwrap_or(0), |l| l.size())
            ),
            (Setting::VramQuota, None) => return Err(EPERM),
        })
    }

    /// Sets `setting` of `t` from the text written to its file. Scheduling and quotas take
    /// effect at once where the GuC has the function's configuration (the PF always, a VF
    /// while provisioned) and are kept for the next enable. Process context; sleeps on the CT
    /// with the PF's mutex held, and on the copy engine without it.
    ///
    /// # Errors
    ///
    /// `EINVAL` for text that is not a value or a name, `ERANGE` for a value outside its key's
    /// range (seed 003) or, for local memory, beyond what VFs share, `EOPNOTSUPP` for a VF's
    /// priority, `EPERM` for a setting the target lacks; for a quota of a provisioned VF
    /// `EBUSY` during its FLR, `ENOSPC` without the memory free, the clear's error; the
    /// GuC's refusal (logged) when pushing.
    pub(crate) fn set(&self, t: Target, setting: Setting, text: &str) -> Result {
        let text = text.trim();
        let number = || text.parse::<u64>().map_err(|_| EINVAL);
        let mut st = self.state.lock();
        if st.closed {
            return Err(ENODEV);
        }
        match setting {
            Setting::ExecQuantumMs | Setting::PreemptTimeoutUs => {
                let what = if setting == Setting::ExecQuantumMs {
                    Sched::ExecQuantum
                } else {
                    Sched::PreemptTimeout
                };
                let v = u32::try_from(number()?)
                    .ok()
                    .filter(|v| what.allows(*v))
                    .ok_or(ERANGE)?;
                match t {
                    Target::Pf => self.set_sched(&mut st, 0, what, v),
                    Target::Vf(vf) => self.set_sched(&mut st, vf, what, v),
                    // The PF first, then each VF, as upstream's bulk; the first refusal stops
                    // it (those before keep the new value).
                    Target::Bulk => {
                        (0..=self.total).try_for_each(|vf| self.set_sched(&mut st, vf, what, v))
                    }
                }
            }
            Setting::SchedPriority => match t {
                Target::Pf => {
                    let p = position(&PRIORITIES, text)?;
                    self.set_sched(&mut st, 0, Sched::Priority, p)
                }
                // The GuC lets the PF change only its own (`sched_priority_change_allowed`).
                Target::Vf(_) => Err(EOPNOTSUPP),
                // HIGH only for the PF (`sched_priority_bulk_high_allowed`).
                Target::Bulk => {
                    let p = position(PRIORITIES.get(..2).unwrap_or_default(), text)?;
                    self.set_policy(&mut st, p == NORMAL)
                }
            },
            Setting::VramQuota => {
                let v = number()?;
                if v % lmtt::PAGE != 0 {
                    return Err(EINVAL);
                }
                // All of the VFs' memory, what a quota can at most be.
                if v > st.vf_lmem.window().size() {
                    return Err(ERANGE);
                }
                let range = match t {
                    Target::Pf => return Err(EPERM),
                    Target::Vf(vf) => vf..=vf,
                    Target::Bulk => 1..=self.total,
                };
                // Each VF in turn; an enabled one gets its new memory at once (upstream
                // `xe_gt_sriov_pf_config_bulk_set_lmem_locked`: the first failure stops it).
                for vf in range {
                    st = self.set_quota(st, vf, v)?;
                }
                Ok(())
            }
        }
    }

    /// Sets VF `vf`'s quota to `size` (0: the fair share of the next enable). A provisioned
    /// VF with a non-zero quota gets it at once, as upstream's `pf_provision_vf_lmem`: new
    /// pages taken while it keeps its old ones, cleared on the copy engine with the PF's mutex
    /// dropped (the VF marked `cleaning`), its leaf rewritten over them and the LMTT
    /// invalidated, the new `LMEM_SIZE` pushed; then the old pages go back to the pool. The
    /// VF's guest loses what its memory held, as under upstream. A failure leaves the VF with
    /// its old memory and quota. Returns the guard, held again.
    fn set_quota<'a>(
        &'a self,
        mut st: MutexGuard<'a, State>,
        vf: u16,
        size: u64,
    ) -> Result<MutexGuard<'a, State>> {
        let idx = usize::from(vf);
        let running = idx
            .checked_sub(1)
            .and_then(|i| st.vfs.get(i))
            .is_some_and(|v| v.pushed.is_some());
        if !running || size == 0 {
            let q = st.quotas.get_mut(idx).ok_or(ENOENT)?;
            q.lmem = (size != 0).then_some(size);
            return Ok(st);
        }
        // Not while an FLR or a clear has it, nor with a provisioning mid-clear.
        self.settle(&mut st);
        let v = st.vfs.get(idx - 1).ok_or(ENODEV)?;
        if v.flr != Flr::Idle || v.pushed.is_none() {
            return Err(EBUSY);
        }
        let new = st.vf_lmem.alloc(size).inspect_err(|e| {
            dev_err!(
                self.dev,
                "sriov: VF{}: no {:#x} bytes of local memory free for its new quota: {}\n",
                vf,
                size,
                e.to_errno()
            );
        })?;
        let runs = copy_runs(new.runs())?;
        if let Some(v) = st.vfs.get_mut(idx - 1) {
            v.cleaning = true;
        }
        drop(st);
        let cleared = runs.iter().try_for_each(|run| self.clear_run(vf, *run));
        let mut st = self.state.lock();
        if let Some(v) = st.vfs.get_mut(idx - 1) {
            v.cleaning = false;
        }
        self.cleaned.notify_all();
        // Logged by `clear_run`; the new pages go back when dropped.
        cleared?;
        let v = st.vfs.get_mut(idx - 1).ok_or(ENODEV)?;
        let leaf = v.leaf.as_deref().copied().ok_or(EINVAL)?;
        let mut buf = [0u32; 3];
        let (len, klvs) = encode_lmem(&mut buf, new.size())?;
        let switched = self
            .with_bars(|_, mem| self.write_lmtt(mem, vf, leaf, &new))
            .map_err(|e| ("LMTT", e))
            .and_then(|()| {
                // Nothing may still translate through the old entries once the GuC lets the VF
                // use the new size (upstream `pf_update_vf_lmtt`).
                self.invalidate_lmtt(vf, "its quota changed");
                self.send(vf, buf.get(..len).unwrap_or_default(), klvs)
            });
        if let Err((what, e)) = switched {
            dev_err!(
                self.dev,
                "sriov: VF{}: changing its local memory failed at {}: {}; it keeps the old\n",
                vf,
                what,
                e.to_errno()
            );
            if let Some(old) = v.lmem.as_ref() {
                let _ = self.with_bars(|_, mem| self.write_lmtt(mem, vf, leaf, old));
            }
            self.invalidate_lmtt(vf, "its old leaf came back");
            return Err(e);
        }
        // The old pages are no longer mapped: back to the pool as they drop.
        v.lmem = Some(new);
        if let Some(cfg) = v.pushed.as_mut() {
            cfg.lmem = size;
        }
        if let Some(q) = st.quotas.get_mut(idx) {
            q.lmem = Some(size);
        }
        dev_info!(
            self.dev,
            "sriov: VF{}: local memory now {:#x} bytes (its quota)\n",
            vf,
            size
        );
        Ok(st)
    }

    /// Sets scheduling `what` of function `vf` (0: the PF) to `v`: pushed as one KLV when the
    /// GuC has the function's configuration, then kept. A refused push keeps nothing.
    fn set_sched(&self, st: &mut State, vf: u16, what: Sched, v: u32) -> Result {
        let idx = usize::from(vf);
        let provisioned = idx
            .checked_sub(1)
            .and_then(|i| st.vfs.get(i))
            .is_some_and(|v| v.pushed.is_some());
        if vf == 0 || provisioned {
            let mut buf = [0u32; 2];
            let (len, klvs) = encode_sched(&mut buf, what, v)?;
            self.send_logged(vf, buf.get(..len).unwrap_or_default(), klvs, "scheduling")?;
        }
        if let Some(cfg) = idx
            .checked_sub(1)
            .and_then(|i| st.vfs.get_mut(i))
            .and_then(|v| v.pushed.as_mut())
        {
            match what {
                Sched::ExecQuantum => cfg.exec_quantum_ms = v,
                Sched::PreemptTimeout => cfg.preempt_timeout_us = v,
                Sched::Priority => {}
            }
        }
        let q = st.quotas.get_mut(idx).ok_or(ENOENT)?;
        match what {
            Sched::ExecQuantum => q.exec_quantum_ms = Some(v),
            Sched::PreemptTimeout => q.preempt_timeout_us = Some(v),
            Sched::Priority => q.priority = Some(v),
        }
        Ok(())
    }

    /// Sends the `SCHED_IF_IDLE` policy; the GuC then gives every function NORMAL (set) or
    /// LOW priority, the PF's choice included (upstream
    /// `xe_gt_sriov_pf_config_force_sched_priority_locked`).
    fn set_policy(&self, st: &mut State, sched_if_idle: bool) -> Result {
        self.push_policy(sched_if_idle).map_err(|(what, e)| {
            dev_err!(
                self.dev,
                "sriov: setting the scheduling policy (sched_if_idle {}) failed at {}: {}\n",
                u8::from(sched_if_idle),
                what,
                e.to_errno()
            );
            e
        })?;
        st.sched_if_idle = sched_if_idle;
        if let Some(q) = st.quotas.first_mut() {
            q.priority = None;
        }
        Ok(())
    }

    /// Sends the VGT policy `SCHED_IF_IDLE` through the KLV page and checks the GuC applied
    /// it.
    pub(super) fn push_policy(&self, sched_if_idle: bool) -> Result<(), super::Step> {
        let mut buf = [0u32; 2];
        let (len, klvs) = super::step("policy", encode_policy(&mut buf, sched_if_idle))?;
        let list = buf.get(..len).unwrap_or_default();
        super::step("KLV buffer", self.write_klvs(list))?;
        // CAST: two dwords.
        let msg = UpdateVgtPolicy {
            addr: self.klv_map.addr(0),
            dwords: len as u32,
        };
        let reply = super::step("PF2GUC_UPDATE_VGT_POLICY", self.b.ct.request(self, &msg))?;
        super::step(
            "PF2GUC_UPDATE_VGT_POLICY reply",
            super::super::control::applied(klvs, reply),
        )
    }

    /// [`Pf::send`] with a failure logged as a change of `what` on function `vf`.
    fn send_logged(&self, vf: u16, list: &[u32], klvs: u32, what: &str) -> Result {
        self.send(vf, list, klvs).map_err(|(step, e)| {
            dev_err!(
                self.dev,
                "sriov: {}: setting {} failed at {}: {}\n",
                Function(vf),
                what,
                step,
                e.to_errno()
            );
            e
        })
    }

    /// `vfN/stop`: the GuC stops scheduling provisioned VF `vf` at once; only an FLR lets it
    /// run again (upstream `xe_sriov_pf_control_stop_vf`). Process context.
    ///
    /// # Errors
    ///
    /// `ENOENT` for a VF that is not provisioned, `ESTALE` for one already stopped, the GuC's
    /// refusal (logged).
    pub(crate) fn stop(&self, vf: u16) -> Result {
        self.control(vf, VfCommand::Stop)
            .inspect(|()| dev_info!(self.dev, "sriov: VF{}: stopped by the administrator\n", vf))
            .inspect_err(|e| {
                if *e != ENOENT && *e != ESTALE {
                    dev_err!(
                        self.dev,
                        "sriov: VF{}: stopping failed: {}\n",
                        vf,
                        e.to_errno()
                    );
                }
            })
    }
}

/// A function's name in messages: `PF` or `VFn`.
struct Function(u16);

impl kernel::fmt::Display for Function {
    fn fmt(&self, f: &mut kernel::fmt::Formatter<'_>) -> kernel::fmt::Result {
        match self.0 {
            0 => f.write_str("PF"),
            vf => write!(f, "VF{vf}"),
        }
    }
}

/// The index of `text` among `names`.
fn position(names: &[&str], text: &str) -> Result<u32> {
    let i = names.iter().position(|p| *p == text).ok_or(EINVAL)?;
    u32::try_from(i).map_err(|_| EINVAL)
}

/// Writes `names` with `chosen` in brackets, as upstream's `emit_choice`.
fn choices(f: &mut impl core::fmt::Write, chosen: u32, names: &[&str]) -> core::fmt::Result {
    for (i, name) in (0u32..).zip(names) {
        let sep = if i == 0 { "" } else { " " };
        if i == chosen {
            write!(f, "{sep}[{name}]")?;
        } else {
            write!(f, "{sep}{name}")?;
        }
    }
    writeln!(f)
}
