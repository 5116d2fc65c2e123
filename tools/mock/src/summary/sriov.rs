//! The summary's `sriov` object: the GuC's SR-IOV PF model
//! (`regfile/guc/ct/sriov.rs`), its relay with the mock's VF side
//! (`regfile/guc/ct/sriov/relay.rs`), the LMTT's translation cache
//! (`regfile/guc/ct/sriov/lmtt.rs`) and the isolation checker
//! (`regfile/isolation.rs`), counted from their trace events.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde::Serialize;

use crate::trace::Event;
use crate::trace::Hex;

/// One function's configuration as the GuC holds it (`sriov.vfs.N`, and
/// the `cfg` of a `sriov_vf_cfg` trace event).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct VfEntry {
    /// GGTT range start.
    pub ggtt_start: Hex,
    /// GGTT range size in bytes (0: none).
    pub ggtt_size: u64,
    /// Local memory in bytes.
    pub lmem: u64,
    /// First context ID.
    pub ctx_begin: u32,
    /// Contexts.
    pub ctx_num: u32,
    /// First doorbell.
    pub db_begin: u32,
    /// Doorbells.
    pub db_num: u32,
    /// Execution quantum, ms.
    pub exec_quantum_ms: u32,
    /// Preemption timeout, us.
    pub preempt_timeout_us: u32,
    /// Scheduling priority: the function's own if [`VfEntry::own_priority`],
    /// else the one the VGT policy implies (`SCHED_IF_IDLE`: 1 NORMAL, 0
    /// LOW; `regfile/guc/ct/sriov/vgt.rs`).
    pub priority: u32,
    /// Whether the function set its priority itself (`SCHED_PRIORITY`, the
    /// PF only); absent in older traces: false.
    #[serde(default)]
    pub own_priority: bool,
}

impl VfEntry {
    /// Whether it is the default configuration (nothing provisioned): the
    /// priority counts only if it is the function's own, the policy's is
    /// every function's.
    pub fn is_empty(&self) -> bool {
        let VfEntry {
            ggtt_start,
            ggtt_size,
            lmem,
            ctx_begin,
            ctx_num,
            db_begin,
            db_num,
            exec_quantum_ms,
            preempt_timeout_us,
            priority: _,
            own_priority,
        } = *self;
        ggtt_start.0 == 0
            && [ggtt_size, lmem].iter().all(|&v| v == 0)
            && [
                ctx_begin,
                ctx_num,
                db_begin,
                db_num,
                exec_quantum_ms,
                preempt_timeout_us,
            ]
            .iter()
            .all(|&v| v == 0)
            && !own_priority
    }
}

/// `sriov.*`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SriovSummary {
    /// Distinct isolation violations the checker found (0 is the pass
    /// condition). Not part of the device's `violations`.
    pub isolation_violations: u64,
    /// Distinct isolation violations per check ("ggtt_stamp", ...).
    pub isolation_kinds: BTreeMap<String, u64>,
    /// Checker runs.
    pub isolation_checks: u64,
    /// `UPDATE_VF_CFG`s answered SUCCESS (resets included).
    pub vf_cfg_updates: u64,
    /// `UPDATE_VF_CFG`s that reset a configuration (address and size 0).
    pub vf_cfg_resets: u64,
    /// VFs (not the PF) with a configuration now (0 after a GuC or device
    /// reset).
    pub vfs_configured: u64,
    /// `VF_CONTROL` FLR_STARTs accepted (stuck ones included).
    pub flr_started: u64,
    /// `VF_STATE_NOTIFY` FLR_DONE events queued.
    pub flr_done: u64,
    /// `VF_CONTROL` FLR_FINISHes accepted.
    pub flr_finished: u64,
    /// `VF_CONTROL` PAUSEs accepted.
    pub paused: u64,
    /// `VF_STATE_NOTIFY` VF_FLR events queued (`vf:flr`,
    /// `guc:bogus-vf-notify`).
    pub vf_flr_notified: u64,
    /// `UPDATE_VF_CFG`, `VF_CONTROL` and `UPDATE_VGT_POLICY` answered
    /// FAILURE (the switch's included; the others are also `guc_sriov_bad`
    /// violations).
    pub refused: u64,
    /// `GUC2PF_ADVERSE_EVENT`s queued (`vf:adverse` with a threshold set).
    pub adverse_sent: u64,
    /// `vf:adverse` for a threshold of 0: not reported (seed 003).
    pub adverse_not_reported: u64,
    /// VF-dedicated register writes by the PF (`regfile/vf_regs.rs`).
    pub vf_regs_pf_writes: u64,
    /// VF FLRs whose Gunit reset cleared the VF's registers.
    pub vf_regs_reset: u64,
    /// VF FLRs that left them (`vf:keep-regs`).
    pub vf_regs_kept: u64,
    /// Configurations by VFID ("0" is the PF's own), as of this summary.
    pub vfs: BTreeMap<String, VfEntry>,
    /// States of the VFs not "ready", by VFID.
    pub vf_states: BTreeMap<String, String>,
    /// `GUC2PF_RELAY_FROM_VF` events queued to the PF (`vf:relay`,
    /// `vf:relay-raw`, `vf:relay-burst`, resends after a RETRY).
    #[serde(default)]
    pub relay_sent: u64,
    /// SUCCESS answers to a request a VF waited for (good or not).
    #[serde(default)]
    pub relay_answered_success: u64,
    /// FAILURE answers to a request a VF waited for (no violation).
    #[serde(default)]
    pub relay_answered_failure: u64,
    /// NO_RESPONSE_BUSY and NO_RESPONSE_RETRY answers to a request a VF
    /// waited for.
    #[serde(default)]
    pub relay_answered_other: u64,
    /// Requests of all VFs still waiting for an answer, as of this summary
    /// (0 after a GuC or device reset or a Driver-FLR).
    #[serde(default)]
    pub relay_outstanding: u64,
    /// Relay messages to a VF the VF could not take (`relay_bad_answer`
    /// violations: a bad answer, one to no waiting request, a message of
    /// the wrong origin or type).
    #[serde(default)]
    pub relay_bad_answers: u64,
    /// `PF2GUC_RELAY_TO_VF` the GuC refused (FAILURE, `guc_sriov_bad`).
    #[serde(default)]
    pub relay_refused: u64,
    /// The VF/PF ABI version each VF agreed with the PF ("1.0"), by VFID,
    /// as of this summary.
    #[serde(default)]
    pub relay_versions: BTreeMap<String, String>,
    /// `VF2PF_QUERY_RUNTIME` entries whose register and value matched.
    #[serde(default)]
    pub relay_runtime_entries_checked: u64,
    /// Full invalidations of the LMTT's translation cache served
    /// (`TLB_INVALIDATION_ALL` of type FULL; `regfile/guc/ct/sriov/lmtt.rs`).
    #[serde(default)]
    pub lmtt_invalidations: u64,
    /// `lmtt_stale` violations: a VF about to run on local memory whose
    /// LMTT changed since the last full invalidation.
    #[serde(default)]
    pub lmtt_stale: u64,
    /// `UPDATE_VGT_POLICY`s answered SUCCESS (`regfile/guc/ct/sriov/vgt.rs`).
    #[serde(default)]
    pub vgt_policy_updates: u64,
    /// The `SCHED_IF_IDLE` VGT policy as of this summary, 0 or 1 (0 after a
    /// GuC or device reset). 1: every function without a priority of its
    /// own is NORMAL (1), 0: LOW (0).
    #[serde(default)]
    pub sched_if_idle: u32,
    /// The `ADVERSE_SAMPLE_PERIOD` VGT policy as of this summary, ms.
    #[serde(default)]
    pub adverse_sample_period_ms: u32,
    /// The `RESET_AFTER_VF_SWITCH` VGT policy as of this summary, 0 or 1.
    #[serde(default)]
    pub reset_after_vf_switch: u32,
    /// `SCHED_PRIORITY` KLVs for a VF in an accepted `UPDATE_VF_CFG`: not
    /// applied, not counted in the reply (only the PF's priority may be
    /// set).
    #[serde(default)]
    pub vf_priority_refused: u64,
}

/// Counts one event into `s`.
pub fn count(s: &mut SriovSummary, ev: &Event) {
    match ev {
        Event::SriovVfCfg {
            vfid,
            result,
            cfg,
            configured,
            priority_refused,
            ..
        } => {
            s.vfs_configured = *configured;
            s.vf_priority_refused += u64::from(*priority_refused);
            match *result {
                "refused" | "refused_switch" => s.refused += 1,
                r => {
                    s.vf_cfg_updates += 1;
                    if r == "reset" {
                        s.vf_cfg_resets += 1;
                    }
                }
            }
            if let Some(c) = cfg {
                if c.is_empty() {
                    s.vfs.remove(&vfid.to_string());
                } else {
                    s.vfs.insert(vfid.to_string(), *c);
                }
            }
        }
        Event::SriovVgtPolicy {
            result,
            sched_if_idle,
            sample_period_ms,
            reset_after_vf_switch,
            forced_priority,
            ..
        } => {
            if *result == "refused" {
                s.refused += 1;
            } else {
                s.vgt_policy_updates += 1;
            }
            s.sched_if_idle = *sched_if_idle;
            s.adverse_sample_period_ms = *sample_period_ms;
            s.reset_after_vf_switch = *reset_after_vf_switch;
            // Every function's priority is the policy's now: the
            // configurations shown take it, and one that held nothing but a
            // priority of its own is empty (`vgt.rs`, `force_priorities`).
            if let Some(p) = forced_priority {
                for e in s.vfs.values_mut() {
                    e.priority = *p;
                    e.own_priority = false;
                }
                s.vfs.retain(|_, e| !e.is_empty());
            }
        }
        Event::SriovVfControl {
            vfid,
            cmd,
            result,
            state,
            ..
        } => {
            match (*cmd, *result) {
                (_, "refused") => s.refused += 1,
                ("flr_start", _) => s.flr_started += 1,
                ("flr_finish", _) => s.flr_finished += 1,
                ("pause", _) => s.paused += 1,
                _ => {}
            }
            if *state == "ready" {
                s.vf_states.remove(&vfid.to_string());
            } else {
                s.vf_states.insert(vfid.to_string(), (*state).to_owned());
            }
        }
        Event::SriovNotify { event, count, .. } => match *event {
            "flr_done" => s.flr_done += count,
            "vf_flr" => s.vf_flr_notified += count,
            _ => {}
        },
        Event::SriovAdverse { sent, .. } => {
            if *sent {
                s.adverse_sent += 1;
            } else {
                s.adverse_not_reported += 1;
            }
        }
        Event::SriovVfRegs { action, .. } => match *action {
            "pf_write" => s.vf_regs_pf_writes += 1,
            "reset" => s.vf_regs_reset += 1,
            "kept" => s.vf_regs_kept += 1,
            _ => {}
        },
        Event::SriovRelay {
            vfid,
            dir,
            kind,
            verdict,
            matched,
            entries,
            version,
            outstanding,
            ..
        } => {
            s.relay_outstanding = *outstanding;
            s.relay_runtime_entries_checked += u64::from(*entries);
            match (*dir, *verdict) {
                ("to_pf", _) => s.relay_sent += 1,
                (_, "refused") => s.relay_refused += 1,
                (_, v) => {
                    if matches!(v, "bad" | "unknown_rid") {
                        s.relay_bad_answers += 1;
                    }
                    if *matched {
                        match *kind {
                            "success" => s.relay_answered_success += 1,
                            "failure" => s.relay_answered_failure += 1,
                            _ => s.relay_answered_other += 1,
                        }
                    }
                }
            }
            match version {
                Some(v) => {
                    s.relay_versions.insert(vfid.to_string(), v.clone());
                }
                None => {
                    s.relay_versions.remove(&vfid.to_string());
                }
            }
        }
        Event::SriovRelayForget {
            vfid, outstanding, ..
        } => {
            s.relay_outstanding = *outstanding;
            s.relay_versions.remove(&vfid.to_string());
        }
        Event::LmttTlbInvalidate { cause, .. } if *cause == "tlb_invalidation_all" => {
            s.lmtt_invalidations += 1;
        }
        Event::LmttStale { .. } => s.lmtt_stale += 1,
        Event::SriovCheck { .. } => s.isolation_checks += 1,
        Event::SriovIsolation { check, .. } => {
            s.isolation_violations += 1;
            *s.isolation_kinds.entry((*check).to_owned()).or_default() += 1;
        }
        // The GuC forgets its VF configurations and states.
        Event::Reset { .. } | Event::GucReset { .. } => forget(s),
        Event::DriverFlr { phase } if *phase == "start" => forget(s),
        _ => {}
    }
}

fn forget(s: &mut SriovSummary) {
    s.vfs.clear();
    // And the VGT policies (upstream pushes them again,
    // `xe_gt_sriov_pf_policy_restart`).
    s.sched_if_idle = 0;
    s.adverse_sample_period_ms = 0;
    s.reset_after_vf_switch = 0;
    s.vf_states.clear();
    s.vfs_configured = 0;
    // And the VFs' relays (`regfile/guc/ct/sriov/relay.rs`).
    s.relay_outstanding = 0;
    s.relay_versions.clear();
}
