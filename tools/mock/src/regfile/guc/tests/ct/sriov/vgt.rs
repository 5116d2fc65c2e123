//! The VGT policies (`ct/sriov/vgt.rs`): `PF2GUC_UPDATE_VGT_POLICY`, the
//! priority every function gets from `SCHED_IF_IDLE`, and the rule that
//! only the PF's own `SCHED_PRIORITY` is applied.

use super::*;
use crate::regfile::guc::ct::sriov::vgt::policy_key;
use crate::regfile::guc::ct::sriov::vgt::VgtPolicy;

const POLICY: u32 = 0x5502;
const LOW: u32 = 0;
const NORMAL: u32 = 1;
const HIGH: u32 = 2;

impl H {
    /// `UPDATE_VGT_POLICY` with `klvs` in the buffer, as upstream sends it
    /// (`guc_action_update_vgt_policy`).
    fn policy(&mut self, klvs: &[u32]) -> u32 {
        for (i, &d) in (0u64..).zip(klvs) {
            self.put_lmem32(KLV_LMEM + 4 * i, d);
        }
        self.req(&[POLICY, KLV_GGTT as u32, 0, klvs.len() as u32]).0
    }

    fn sched_if_idle(&mut self, on: u32) {
        let reply = self.policy(&klv(policy_key::SCHED_IF_IDLE, &[on]));
        assert_eq!(reply, mmio::success(1), "SCHED_IF_IDLE {on}");
    }

    fn priority(&self, vf: u32) -> u32 {
        self.rf.guc().sriov().priority(vf)
    }
}

#[test]
fn a_policy_update_is_applied_and_counted() {
    let mut h = H::sriov_ready();
    let list = [
        klv(policy_key::ADVERSE_SAMPLE_PERIOD, &[250]),
        klv(policy_key::RESET_AFTER_VF_SWITCH, &[1]),
    ]
    .concat();
    assert_eq!(h.policy(&list), mmio::success(2));
    assert_eq!(
        h.rf.guc().sriov().policy(),
        VgtPolicy {
            sched_if_idle: false,
            sample_period_ms: 250,
            reset_after_vf_switch: true,
        }
    );
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
    let ev = h.events("sriov_vgt_policy");
    assert_eq!(
        ev[0],
        serde_json::json!({
            "seq": ev[0]["seq"], "t_us": ev[0]["t_us"], "ev": "sriov_vgt_policy",
            "addr": "0x6000000", "dwords": 4, "klvs": 2, "applied": 2,
            "result": "applied", "sched_if_idle": 0, "sample_period_ms": 250,
            "reset_after_vf_switch": 1
        }),
        "no forced_priority without SCHED_IF_IDLE"
    );
    // A second message changes one policy over the rest.
    h.sched_if_idle(1);
    let p = h.rf.guc().sriov().policy();
    assert_eq!(
        (p.sched_if_idle, p.sample_period_ms, p.reset_after_vf_switch),
        (true, 250, true)
    );
    let s = h.sriov_summary();
    assert_eq!(
        (
            s.vgt_policy_updates,
            s.sched_if_idle,
            s.adverse_sample_period_ms,
            s.reset_after_vf_switch,
            s.refused
        ),
        (2, 1, 250, 1, 0)
    );
    // The summary's JSON names them under `sriov`.
    let json = serde_json::to_value(h.rec.summary(false)).expect("serialises");
    let sr = &json["sriov"];
    assert_eq!(
        (
            &sr["vgt_policy_updates"],
            &sr["sched_if_idle"],
            &sr["adverse_sample_period_ms"],
            &sr["reset_after_vf_switch"],
            &sr["vf_priority_refused"]
        ),
        (&2.into(), &1.into(), &250.into(), &1.into(), &0.into())
    );
}

#[test]
fn sched_if_idle_sets_every_functions_priority() {
    let mut h = H::sriov_ready();
    // Before any policy every function is LOW (seed 003 line 11).
    assert_eq!(
        (h.priority(0), h.priority(1), h.priority(63)),
        (LOW, LOW, LOW)
    );
    // The PF's own HIGH, with contexts; VF 1 configured; VF 5 not.
    let pf = [
        klv(key::NUM_CONTEXTS, &[1024]),
        klv(key::SCHED_PRIORITY, &[HIGH]),
    ]
    .concat();
    assert_eq!(h.update(0, &pf), mmio::success(2));
    h.stamp(VF1_GGTT, 16, 1);
    assert_eq!(
        h.update(1, &full(VF1_GGTT, (1024, 16), (0, 4), MIB2)),
        mmio::success(9)
    );
    assert_eq!(h.priority(0), HIGH);
    let s = h.sriov_summary();
    assert_eq!((s.vfs["0"].priority, s.vfs["0"].own_priority), (HIGH, true));
    assert_eq!((s.vfs["1"].priority, s.vfs["1"].own_priority), (LOW, false));
    // 1: every function NORMAL, the PF's own priority gone, configured or
    // not; the rest of the configurations kept.
    h.sched_if_idle(1);
    for vf in [0, 1, 5, 63] {
        assert_eq!(h.priority(vf), NORMAL, "function {vf}");
    }
    let configs = h.rf.guc().sriov().configs();
    assert_eq!((configs[&0].priority, configs[&0].ctx_num), (None, 1024));
    assert_eq!(configs[&1].ctx_num, 16);
    assert_eq!(h.rf.guc().sriov().entry(5).priority, NORMAL);
    let s = h.sriov_summary();
    assert_eq!(
        (s.vfs["0"].priority, s.vfs["0"].own_priority),
        (NORMAL, false)
    );
    assert_eq!((s.vfs["0"].ctx_num, s.vfs["1"].priority), (1024, NORMAL));
    assert_eq!(
        h.events("sriov_vgt_policy").last().expect("event")["forced_priority"],
        NORMAL
    );
    // A VF configured after the policy, and one reset, report it too.
    assert_eq!(
        h.update(5, &klv(key::EXEC_QUANTUM, &[16])),
        mmio::success(1)
    );
    assert_eq!(h.sriov_summary().vfs["5"].priority, NORMAL);
    assert_eq!(h.req(&[UPDATE, 5, 0, 0, 0]).0, mmio::success(0));
    assert_eq!(h.priority(5), NORMAL);
    assert!(!h.sriov_summary().vfs.contains_key("5"), "reset: not shown");
    // The PF sets its own again; 0: every function LOW.
    assert_eq!(
        h.update(0, &klv(key::SCHED_PRIORITY, &[HIGH])),
        mmio::success(1)
    );
    h.sched_if_idle(0);
    for vf in [0, 1, 5, 63] {
        assert_eq!(h.priority(vf), LOW, "function {vf}");
    }
    let s = h.sriov_summary();
    assert_eq!(
        (s.sched_if_idle, s.vfs["0"].priority, s.vfs["1"].priority),
        (0, LOW, LOW)
    );
    // Every set, not only a change: 0 again takes the PF's own HIGH away.
    assert_eq!(
        h.update(0, &klv(key::SCHED_PRIORITY, &[HIGH])),
        mmio::success(1)
    );
    h.sched_if_idle(0);
    assert_eq!(h.priority(0), LOW);
    // A configuration that held nothing but its priority is empty now.
    assert_eq!(h.req(&[UPDATE, 0, 0, 0, 0]).0, mmio::success(0));
    assert_eq!(
        h.update(0, &klv(key::SCHED_PRIORITY, &[NORMAL])),
        mmio::success(1)
    );
    assert!(h.sriov_summary().vfs.contains_key("0"));
    h.sched_if_idle(1);
    assert!(!h.rf.guc().sriov().configs().contains_key(&0));
    assert!(!h.sriov_summary().vfs.contains_key("0"));
    assert_eq!(h.priority(0), NORMAL);
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
    assert_eq!(h.sriov_summary().vgt_policy_updates, 4);
}

#[test]
fn bad_values_are_refused_and_unknown_keys_not_counted() {
    let mut h = H::sriov_ready();
    let period = klv(policy_key::ADVERSE_SAMPLE_PERIOD, &[100]);
    assert_eq!(h.policy(&period), mmio::success(1));
    let bad: [(&str, Vec<u32>); 4] = [
        ("SCHED_IF_IDLE 2", klv(policy_key::SCHED_IF_IDLE, &[2])),
        (
            "RESET_AFTER_VF_SWITCH 5",
            klv(policy_key::RESET_AFTER_VF_SWITCH, &[5]),
        ),
        (
            "SCHED_IF_IDLE length 2",
            klv(policy_key::SCHED_IF_IDLE, &[1, 1]),
        ),
        (
            "ADVERSE_SAMPLE_PERIOD length 0",
            klv(policy_key::ADVERSE_SAMPLE_PERIOD, &[]),
        ),
    ];
    for (what, k) in &bad {
        // A good KLV first: nothing of the message is applied.
        let list = [klv(policy_key::ADVERSE_SAMPLE_PERIOD, &[7]), k.clone()].concat();
        assert_eq!(
            h.policy(&list),
            failure(abi::error::INVALID_KLV_DATA),
            "{what}"
        );
        let p = h.rf.guc().sriov().policy();
        assert_eq!(
            (p.sample_period_ms, p.sched_if_idle),
            (100, false),
            "{what}"
        );
    }
    assert_eq!(h.kind("guc_sriov_bad"), bad.len() as u64);
    let d = h.details("guc_sriov_bad");
    assert!(
        d[0].starts_with("PF2GUC_UPDATE_VGT_POLICY: KLV 0x8001: SCHED_IF_IDLE 2 is not 0 or 1"),
        "{d:?}"
    );
    // Unknown keys (the scheduling groups' 0x8004 among them): not applied,
    // not counted, no violation; the known one is.
    let list = [
        klv(0x8004, &[1, 2, 3]),
        klv(policy_key::SCHED_IF_IDLE, &[1]),
        klv(0x8fff, &[]),
    ]
    .concat();
    assert_eq!(h.policy(&list), mmio::success(1), "the PF sees one short");
    assert!(h.rf.guc().sriov().policy().sched_if_idle);
    let skipped = h.events("guc_ct_klv_skipped");
    assert_eq!(
        (&skipped[0]["action"], &skipped[0]["key"]),
        (&"0x5502".into(), &"0x8004".into())
    );
    assert_eq!(skipped[1]["key"], "0x8fff");
    let ev = h.events("sriov_vgt_policy");
    assert_eq!(
        (
            &ev.last().expect("event")["klvs"],
            &ev.last().expect("event")["applied"]
        ),
        (&3.into(), &1.into())
    );
    assert_eq!(h.kind("guc_sriov_bad"), bad.len() as u64);
    let s = h.sriov_summary();
    assert_eq!((s.vgt_policy_updates, s.refused), (2, bad.len() as u64));
}

#[test]
fn malformed_messages_are_refused() {
    let mut h = H::sriov_ready();
    let invalid = failure(abi::error::INVALID_PARAMS);
    let addr = KLV_GGTT as u32;
    // Another length, DATA0 (MBZ) set, above the cap.
    assert_eq!(h.req(&[POLICY, addr, 0]).0, invalid);
    assert_eq!(h.req(&[POLICY, addr, 0, 2, 0]).0, invalid);
    assert_eq!(h.req(&[POLICY | 1 << 16, addr, 0, 0]).0, invalid);
    assert_eq!(h.req(&[POLICY, addr, 0, 5000]).0, invalid);
    // Unreachable.
    assert_eq!(
        h.req(&[POLICY, 0x0700_0000, 0, 2]).0,
        failure(abi::error::INVALID_GGTT_ADDRESS)
    );
    // A KLV running past CFG_SIZE.
    let list = [
        klv(policy_key::SCHED_IF_IDLE, &[1]),
        vec![policy_key::ADVERSE_SAMPLE_PERIOD << 16 | 1],
    ]
    .concat();
    assert_eq!(h.policy(&list), failure(abi::error::MALFORMED_KLV));
    assert_eq!(h.rf.guc().sriov().policy(), VgtPolicy::default());
    assert_eq!(h.kind("guc_sriov_bad"), 6);
    // An empty list: nothing read, nothing applied.
    assert_eq!(h.req(&[POLICY, 0, 0, 0]).0, mmio::success(0));
    let s = h.sriov_summary();
    assert_eq!((s.refused, s.vgt_policy_updates), (6, 1));
    let ev = h.events("sriov_vgt_policy");
    assert_eq!(
        (&ev[0]["result"], &ev[0]["code"]),
        (&"refused".into(), &"0x60".into())
    );
}

#[test]
fn a_vfs_priority_is_not_applied_the_pfs_is() {
    let mut h = H::sriov_ready();
    // VF 1: the priority is not applied nor counted, the rest is.
    let list = [
        klv(key::NUM_CONTEXTS, &[4]),
        klv(key::SCHED_PRIORITY, &[HIGH]),
    ]
    .concat();
    assert_eq!(h.update(1, &list), mmio::success(1), "one short");
    let c = h.rf.guc().sriov().configs()[&1];
    assert_eq!((c.ctx_num, c.priority), (4, None));
    assert_eq!(h.priority(1), LOW);
    let ev = h.events("sriov_vf_cfg");
    let last = ev.last().expect("event");
    assert_eq!(
        (&last["klvs"], &last["applied"], &last["priority_refused"]),
        (&2.into(), &1.into(), &1.into())
    );
    let why = last["why"].as_str().unwrap_or("");
    assert!(
        why.contains("SCHED_PRIORITY 2 for VF 1") && why.contains("only the PF"),
        "{why}"
    );
    assert_eq!(last["cfg"]["priority"], LOW);
    // [MODEL] the value the policy implies is refused too: LOW without
    // SCHED_IF_IDLE, NORMAL with it.
    assert_eq!(
        h.update(1, &klv(key::SCHED_PRIORITY, &[LOW])),
        mmio::success(0)
    );
    h.sched_if_idle(1);
    assert_eq!(
        h.update(2, &klv(key::SCHED_PRIORITY, &[NORMAL])),
        mmio::success(0)
    );
    assert!(
        !h.rf.guc().sriov().configs().contains_key(&2),
        "nothing applied"
    );
    assert_eq!(h.priority(2), NORMAL);
    // Out of range is still a bad value, for a VF too.
    assert_eq!(
        h.update(1, &klv(key::SCHED_PRIORITY, &[3])),
        failure(abi::error::INVALID_KLV_DATA)
    );
    assert_eq!(h.kind("guc_sriov_bad"), 1, "only the out-of-range value");
    // The PF may set each of the three.
    for p in [LOW, NORMAL, HIGH] {
        assert_eq!(
            h.update(0, &klv(key::SCHED_PRIORITY, &[p])),
            mmio::success(1)
        );
        assert_eq!(h.priority(0), p);
        let ev = h.events("sriov_vf_cfg");
        assert!(ev.last().expect("event").get("priority_refused").is_none());
    }
    let s = h.sriov_summary();
    assert_eq!((s.vf_priority_refused, s.refused), (3, 1));
    assert_eq!((s.vfs["0"].priority, s.vfs["0"].own_priority), (HIGH, true));
}

#[test]
fn a_guc_reset_forgets_the_policies() {
    let mut h = H::sriov_ready();
    let list = [
        klv(policy_key::SCHED_IF_IDLE, &[1]),
        klv(policy_key::ADVERSE_SAMPLE_PERIOD, &[50]),
        klv(policy_key::RESET_AFTER_VF_SWITCH, &[1]),
    ]
    .concat();
    assert_eq!(h.policy(&list), mmio::success(3));
    assert_eq!(h.priority(9), NORMAL);
    h.guc_reset();
    assert_eq!(h.rf.guc().sriov().policy(), VgtPolicy::default());
    assert_eq!(h.priority(9), LOW);
    let s = h.sriov_summary();
    assert_eq!(
        (
            s.sched_if_idle,
            s.adverse_sample_period_ms,
            s.reset_after_vf_switch,
            s.vgt_policy_updates
        ),
        (0, 0, 0, 1),
        "the count stays"
    );
}
