//! The GuC's VGT policies: `PF2GUC_UPDATE_VGT_POLICY` (0x5502) and the
//! policy's hold on the scheduling priority of every function.
//!
//! The message, its checks and its keys are in the parent module's docs
//! ([`super`], "`PF2GUC_UPDATE_VGT_POLICY`"). Facts: seed 003 line 9 (the
//! VGT policy keys, their values and defaults); upstream
//! `abi/guc_actions_sriov_abi.h` ("DOC: PF2GUC_UPDATE_VGT_POLICY": the
//! request and the COUNT in the reply), `abi/guc_klvs_abi.h` ("DOC: GuC VGT
//! Policy KLVs": the `_KEY`/`_LEN`s, and from GuC 70.12 "Setting this policy
//! to 0 updates all VFs scheduling priorities to LOW, and setting this
//! policy to 1 updates all VFs scheduling priorities to NORMAL"),
//! `xe_gt_sriov_pf_policy.c` (`guc_action_update_vgt_policy`,
//! `pf_push_policy_buf_klvs`: the reply must count every KLV sent, fewer is
//! `-ENOKEY`; `xe_gt_sriov_pf_policy_set_sched_if_idle_locked` and
//! `xe_gt_sriov_pf_config.c` `xe_gt_sriov_pf_config_force_sched_priority_locked`:
//! after each SCHED_IF_IDLE set the PF's cache holds that priority for the
//! PF and every VF; `xe_gt_sriov_pf_policy_restart`: the policies are
//! pushed again after a reset, so a GuC reset forgets them).

use super::Sriov;
use super::BAD;
use super::MAX_CFG_DWORDS;
use crate::abi;
use crate::recorder::Recorder;
use crate::regfile::guc::ct::serve::{klvs, read_dwords};
use crate::regfile::guc::ggtt::Gtt;
use crate::trace::Event;
use crate::trace::Hex;

/// `GUC_ACTION_PF2GUC_UPDATE_VGT_POLICY` (`abi/guc_actions_sriov_abi.h`).
pub const PF2GUC_UPDATE_VGT_POLICY: u32 = 0x5502;

/// The VGT policy keys (seed 003 line 9; `GUC_KLV_VGT_POLICY_*_KEY`,
/// `abi/guc_klvs_abi.h`); each is one dword (`_LEN` 1u).
pub mod policy_key {
    /// Schedule if idle: 0 (default) or 1.
    pub const SCHED_IF_IDLE: u32 = 0x8001;
    /// Adverse-event sample period, ms (0: not counted, the default).
    pub const ADVERSE_SAMPLE_PERIOD: u32 = 0x8002;
    /// Reset the engines after a VF switch: 0 (default) or 1.
    pub const RESET_AFTER_VF_SWITCH: u32 = 0x8D00;
}

/// `GUC_SCHED_PRIORITY_LOW` (`abi/guc_klvs_abi.h`; seed 003 line 11
/// "0: LOW ... (default)").
pub const PRIORITY_LOW: u32 = 0;
/// `GUC_SCHED_PRIORITY_NORMAL`.
pub const PRIORITY_NORMAL: u32 = 1;

/// The VGT policies the GuC holds (all default after a GuC reset).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct VgtPolicy {
    /// `SCHED_IF_IDLE`.
    pub sched_if_idle: bool,
    /// `ADVERSE_SAMPLE_PERIOD`, ms.
    pub sample_period_ms: u32,
    /// `RESET_AFTER_VF_SWITCH`.
    pub reset_after_vf_switch: bool,
}

impl VgtPolicy {
    /// The scheduling priority of a function that has none of its own:
    /// what the last SCHED_IF_IDLE set for all (NORMAL for 1, LOW for 0,
    /// `abi/guc_klvs_abi.h` from GuC 70.12), LOW before any (seed 003 line
    /// 11: LOW is the default).
    pub const fn implied_priority(&self) -> u32 {
        if self.sched_if_idle {
            PRIORITY_NORMAL
        } else {
            PRIORITY_LOW
        }
    }
}

/// What an `UPDATE_VGT_POLICY` did, for the trace.
struct Outcome {
    klvs: u32,
    applied: u32,
    /// The priority every function got (a SCHED_IF_IDLE was applied).
    forced: Option<u32>,
    result: &'static str,
    answer: Result<u32, u32>,
}

impl Outcome {
    fn refused(code: u32, why: String, rec: &mut Recorder) -> Self {
        rec.violation(BAD, format!("PF2GUC_UPDATE_VGT_POLICY: {why}"));
        Outcome {
            klvs: 0,
            applied: 0,
            forced: None,
            result: "refused",
            answer: Err(code),
        }
    }
}

/// Serves `PF2GUC_UPDATE_VGT_POLICY` {hdr, CFG_ADDR_LO, CFG_ADDR_HI,
/// CFG_SIZE} ([`super`] module docs).
pub(in crate::regfile::guc::ct) fn update_vgt_policy(
    s: &mut Sriov,
    gtt: &mut Gtt,
    hxg: &[u32],
    rec: &mut Recorder,
) -> Result<u32, u32> {
    let addr = u64::from(hxg.get(1).copied().unwrap_or(0))
        | u64::from(hxg.get(2).copied().unwrap_or(0)) << 32;
    let dwords = hxg.get(3).copied().unwrap_or(0);
    let out = outcome(s, gtt, hxg, rec);
    let p = s.policy;
    rec.emit(Event::SriovVgtPolicy {
        addr: Hex(addr),
        dwords,
        klvs: out.klvs,
        applied: out.applied,
        result: out.result,
        code: out.answer.err().map(|c| Hex(c.into())),
        sched_if_idle: p.sched_if_idle.into(),
        sample_period_ms: p.sample_period_ms,
        reset_after_vf_switch: p.reset_after_vf_switch.into(),
        forced_priority: out.forced,
    });
    out.answer
}

fn outcome(s: &mut Sriov, gtt: &mut Gtt, hxg: &[u32], rec: &mut Recorder) -> Outcome {
    // The checks and their order are UPDATE_VF_CFG's (`super::cfg_outcome`):
    // the same DOC table layout, the same GGTT-addressed KLV list. Length
    // and MBZ: the DOC table (`PF2GUC_UPDATE_VGT_POLICY_REQUEST_MSG_LEN` 4,
    // `_MSG_0_MBZ` 27:16, `abi/guc_actions_sriov_abi.h`).
    let &[h0, lo, hi, size] = hxg else {
        return Outcome::refused(
            abi::error::INVALID_PARAMS,
            format!(
                "{} dwords; it is {{hdr, CFG_ADDR_LO, CFG_ADDR_HI, CFG_SIZE}}",
                hxg.len()
            ),
            rec,
        );
    };
    let mbz = abi::field(h0, abi::hxg::REQUEST_DATA0);
    if mbz != 0 {
        return Outcome::refused(
            abi::error::INVALID_PARAMS,
            format!("header {h0:#x}: DATA0 (27:16) is {mbz:#x}, must be 0"),
            rec,
        );
    }
    // [MODEL] the cap of UPDATE_VF_CFG (`super::MAX_CFG_DWORDS`).
    if size > MAX_CFG_DWORDS {
        return Outcome::refused(
            abi::error::INVALID_PARAMS,
            format!("CFG_SIZE {size} dwords is above {MAX_CFG_DWORDS}"),
            rec,
        );
    }
    let addr = u64::from(lo) | u64::from(hi) << 32;
    // [MODEL] CFG_SIZE 0: an empty list, nothing read, nothing applied (the
    // DOC table gives CFG_ADDR 0 no meaning of its own, unlike UPDATE_VF_CFG's).
    let dw = match read_dwords(gtt, addr, size, "UPDATE_VGT_POLICY KLVs", rec) {
        Ok(dw) => dw,
        Err(why) => return Outcome::refused(abi::error::INVALID_GGTT_ADDRESS, why, rec),
    };
    // A truncated KLV makes the list invalid (`xe_guc_klv_helpers.c`
    // `xe_guc_klv_count`).
    let list = match klvs(&dw) {
        Ok(l) => l,
        Err(why) => {
            return Outcome::refused(
                abi::error::MALFORMED_KLV,
                format!("KLVs at GGTT {addr:#x}: {why}"),
                rec,
            )
        }
    };
    // Applied to a copy, kept only if every KLV is good (UPDATE_VF_CFG's
    // all-or-nothing, `[MODEL]` as there).
    let mut p = s.policy;
    let mut applied = 0;
    let mut forced = None;
    for k in &list {
        let known = matches!(
            k.key,
            policy_key::SCHED_IF_IDLE
                | policy_key::ADVERSE_SAMPLE_PERIOD
                | policy_key::RESET_AFTER_VF_SWITCH
        );
        if !known {
            // Not applied, not counted (as UPDATE_VF_CFG's unknown keys):
            // upstream's PF sees the short COUNT (`pf_push_policy_buf_klvs`,
            // `-ENOKEY`). `ENGINE_GROUP_CONFIG` (0x8004) is one: the mock
            // does not model scheduling groups.
            rec.emit(Event::GucCtKlvSkipped {
                action: Hex(PF2GUC_UPDATE_VGT_POLICY.into()),
                key: Hex(k.key.into()),
                // CAST: at most 0xFFFF.
                len: k.value.len() as u32,
            });
            continue;
        }
        // `GUC_KLV_VGT_POLICY_*_LEN` 1u (`abi/guc_klvs_abi.h`).
        let &[v] = k.value else {
            return Outcome::refused(
                abi::error::INVALID_KLV_DATA,
                format!(
                    "KLV {:#06x}: length {}, the key's value is 1 dword",
                    k.key,
                    k.value.len()
                ),
                rec,
            );
        };
        match k.key {
            policy_key::ADVERSE_SAMPLE_PERIOD => p.sample_period_ms = v,
            // Seed 003 line 9 lists 0 and 1 only: [MODEL] anything else is
            // refused like a bad VF_CFG value (`super::apply`, `Applied::Bad`).
            _ if v > 1 => {
                let name = if k.key == policy_key::SCHED_IF_IDLE {
                    "SCHED_IF_IDLE"
                } else {
                    "RESET_AFTER_VF_SWITCH"
                };
                return Outcome::refused(
                    abi::error::INVALID_KLV_DATA,
                    format!("KLV {:#06x}: {name} {v} is not 0 or 1", k.key),
                    rec,
                );
            }
            policy_key::SCHED_IF_IDLE => {
                p.sched_if_idle = v == 1;
                forced = Some(p.implied_priority());
            }
            _ => p.reset_after_vf_switch = v == 1,
        }
        applied += 1;
    }
    s.policy = p;
    if forced.is_some() {
        force_priorities(s);
    }
    Outcome {
        // CAST: at most MAX_CFG_DWORDS.
        klvs: list.len() as u32,
        applied,
        forced,
        result: "applied",
        answer: Ok(applied),
    }
}

/// A SCHED_IF_IDLE was applied: the PF's and every VF's priority is now
/// the policy's (LOW or NORMAL), configured or not.
///
/// Seed 003 line 9 ("Changing this KLV impacts all VFs");
/// `abi/guc_klvs_abi.h` from 70.12 ("updates all VFs scheduling priorities
/// to LOW/NORMAL", for every set, not only a change of value);
/// `xe_gt_sriov_pf_policy_set_sched_if_idle_locked` ("As of GuC 70.12 a
/// change of this policy impacts individual configs of all VFs") and
/// `xe_gt_sriov_pf_config_force_sched_priority_locked` (PFID and VFs
/// 1..=totalvfs). Stored as: no function keeps a priority of its own
/// (`VfConfig::priority` `None`), and [`VgtPolicy::implied_priority`] is
/// what every one reports, VFs 1..=`TOTAL_VFS` without a configuration
/// included. A configuration that held nothing but its priority is empty
/// now and goes (nothing else of it changes: no contexts to forget).
fn force_priorities(s: &mut Sriov) {
    for c in s.configs.values_mut() {
        c.priority = None;
    }
    s.configs.retain(|_, c| !c.is_empty());
}

/// Whether a `SCHED_PRIORITY` KLV of `value` for function `vfid` may be
/// applied; `Err` says why not (module docs, "`SCHED_PRIORITY`").
///
/// Upstream `xe_sriov_pf_sysfs.c` `sched_priority_change_allowed` ("As of
/// today GuC FW allows to selectively change only the PF priority") and
/// `sched_priority_high_allowed` (HIGH only for the PF). `[MODEL]`: the
/// stricter reading, every per-VF SCHED_PRIORITY is refused, the value
/// the policy implies included. Upstream's PF never sends one for a VF
/// whose priority is the policy's (`xe_gt_sriov_pf_config.c`
/// `custom_sched_priority` skips it in `encode_config_sched`) and its sysfs
/// lets no VF's be set to anything else (only the debugfs `sched_priority`,
/// a debug path, does not check), so no supported upstream sequence meets
/// the refusal; accepting the policy's value would only hide a driver that
/// pushes a VF priority at all.
pub fn priority_allowed(vfid: u32, value: u32) -> Result<(), String> {
    if vfid == 0 {
        return Ok(());
    }
    Err(format!(
        "SCHED_PRIORITY {value} for VF {vfid}: the GuC lets only the PF's priority be set \
         (a VF's is the VGT policy's, SCHED_IF_IDLE)"
    ))
}
