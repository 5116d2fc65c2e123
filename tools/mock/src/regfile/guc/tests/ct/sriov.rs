//! The GuC's SR-IOV PF model (`ct/sriov.rs`) over CT, and the isolation
//! checker (`regfile/isolation.rs`) on GGTT entries and LMTT tables in the
//! fake memory.

use super::*;
use crate::control::Request as Control;
use crate::regfile::guc::ct::sriov::key;
use crate::regfile::guc::ct::sriov::VfState;
use crate::summary::sriov::SriovSummary;

/// GGTT address of the KLV buffer, and the LMEM behind it.
const KLV_GGTT: u64 = 0x0600_0000;
const KLV_LMEM: u64 = 0x30_0000;
const UPDATE: u32 = 0x5503;
const CONTROL: u32 = 0x5506;
/// `GUC2PF_VF_STATE_NOTIFY` EVENT header.
const NOTIFY: u32 = 0x9000_0000 | 0x5106;
/// `GUC2PF_ADVERSE_EVENT` EVENT header.
const ADVERSE: u32 = 0x9000_0000 | 0x5104;

/// VF 1's GGTT range: 16 pages at 256 MiB.
const VF1_GGTT: u64 = 0x1000_0000;
const VF_GGTT_SIZE: u64 = 0x1_0000;
/// VF 2's: right above.
const VF2_GGTT: u64 = VF1_GGTT + VF_GGTT_SIZE;

/// LMTT in the fake 8 MiB LMEM: the directory and two leaves (256 KiB
/// each), all 64 KiB aligned, in the last 2 MiB page.
const DIR: u64 = 0x70_0000;
const LEAF1: u64 = 0x71_0000;
const LEAF2: u64 = 0x75_0000;
const LMEM_CFG: u32 = 0xCF58;
const MIB2: u64 = 2 << 20;

fn klv(k: u32, v: &[u32]) -> Vec<u32> {
    let mut out = vec![k << 16 | v.len() as u32];
    out.extend_from_slice(v);
    out
}

fn klv64(k: u32, v: u64) -> Vec<u32> {
    klv(k, &[v as u32, (v >> 32) as u32])
}

/// The KLVs of a full VF configuration in upstream's order
/// (`encode_config`): GGTT, contexts, doorbells, LMEM, scheduling.
fn full(ggtt: u64, ctx: (u32, u32), db: (u32, u32), lmem: u64) -> Vec<u32> {
    [
        klv64(key::GGTT_START, ggtt),
        klv64(key::GGTT_SIZE, VF_GGTT_SIZE),
        klv(key::BEGIN_CONTEXT_ID, &[ctx.0]),
        klv(key::NUM_CONTEXTS, &[ctx.1]),
        klv(key::BEGIN_DOORBELL_ID, &[db.0]),
        klv(key::NUM_DOORBELLS, &[db.1]),
        klv64(key::LMEM_SIZE, lmem),
        klv(key::EXEC_QUANTUM, &[16]),
        klv(key::PREEMPT_TIMEOUT, &[16000]),
    ]
    .concat()
}

impl H {
    /// The CT enabled and the KLV buffer mapped.
    fn sriov_ready() -> H {
        let mut h = H::ct_enabled_on(&LAYOUT);
        h.bus.map_lmem(KLV_GGTT, KLV_LMEM, &[0; 0x1000]);
        h
    }

    /// Sends `hxg` as a REQUEST; returns the reply's HXG dword and every
    /// G2H message written after it (header and HXG).
    fn req(&mut self, hxg: &[u32]) -> (u32, Vec<u32>) {
        let from = self.desc(G2H_DESC_LMEM)[1];
        self.send(&[(0x10, hxg)]);
        let to = self.desc(G2H_DESC_LMEM)[1];
        let msgs = self.g2h(from, to - from);
        assert_eq!(msgs[0], ctb(0x10, 1), "the reply first: {msgs:x?}");
        (msgs[1], msgs[2..].to_vec())
    }

    /// `UPDATE_VF_CFG` of `vf` with `klvs` in the buffer.
    fn update(&mut self, vf: u32, klvs: &[u32]) -> u32 {
        for (i, &d) in (0u64..).zip(klvs) {
            self.put_lmem32(KLV_LMEM + 4 * i, d);
        }
        self.req(&[UPDATE, vf, KLV_GGTT as u32, 0, klvs.len() as u32])
            .0
    }

    /// `VF_CONTROL` of `vf`; the reply and the events after it.
    fn vf_control(&mut self, vf: u32, cmd: u32) -> (u32, Vec<u32>) {
        self.req(&[CONTROL, vf, cmd])
    }

    fn sriov_control(&mut self, text: &str) {
        let Ok(Control::Sriov(r)) = Control::parse(text) else {
            panic!("{text} is no SR-IOV request");
        };
        self.rf.sriov_inject(r, &mut self.rec, &mut self.bus);
    }

    fn sriov_summary(&self) -> SriovSummary {
        self.rec.summary(false).sriov
    }

    /// Stamps `pages` GGTT pages from `start` with VF `vf`, present (upstream
    /// `xe_ggtt_assign`).
    fn stamp(&mut self, start: u64, pages: u64, vf: u64) {
        for p in 0..pages {
            self.bus
                .ptes
                .insert(start / PAGE + p, vf << 2 | PTE_PRESENT);
        }
    }

    /// Writes a directory entry (`vf` -> `leaf`) and leaf entries (2 MiB
    /// page numbers) of the LMTT.
    fn lmtt(&mut self, vf: u64, leaf: u64, pages: &[u32]) {
        self.put_lmem32(DIR + 4 * vf, ((leaf >> 16) as u32) << 4 | 1);
        for (i, &p) in (0u64..).zip(pages) {
            self.put_lmem32(leaf + 4 * i, p << 5 | 1);
        }
    }

    fn isolation_kinds(&self) -> BTreeMap<String, u64> {
        self.sriov_summary().isolation_kinds
    }
}

#[test]
fn a_full_config_is_applied_and_counted() {
    let mut h = H::sriov_ready();
    // The PF's self-config as upstream pushes it (VFID 0): everything.
    let pf = [
        klv(key::BEGIN_CONTEXT_ID, &[0]),
        klv(key::NUM_CONTEXTS, &[65535]),
        klv(key::BEGIN_DOORBELL_ID, &[0]),
        klv(key::NUM_DOORBELLS, &[256]),
        klv(key::EXEC_QUANTUM, &[0]),
        klv(key::PREEMPT_TIMEOUT, &[0]),
        klv(0x8A03, &[0]),
        klv(0x8A08, &[0]),
        klv64(key::GGTT_START, 0x40_0000),
        klv64(key::GGTT_SIZE, 0xFEE0_0000 - 0x40_0000),
    ]
    .concat();
    assert_eq!(h.update(0, &pf), mmio::success(10));
    h.stamp(VF1_GGTT, 16, 1);
    let cfg = full(VF1_GGTT, (1024, 1024), (8, 8), 4 * MIB2);
    assert_eq!(h.update(1, &cfg), mmio::success(9));
    let c = h.rf.guc().sriov().configs()[&1];
    assert_eq!(
        (c.ggtt_start, c.ggtt_size, c.lmem),
        (VF1_GGTT, VF_GGTT_SIZE, 4 * MIB2)
    );
    assert_eq!(
        (c.ctx_begin, c.ctx_num, c.db_begin, c.db_num),
        (1024, 1024, 8, 8)
    );
    assert_eq!((c.exec_quantum_ms, c.preempt_timeout_us), (16, 16000));
    // A second message changes one value over the rest.
    assert_eq!(
        h.update(1, &klv(key::EXEC_QUANTUM, &[32])),
        mmio::success(1)
    );
    assert_eq!(h.rf.guc().sriov().configs()[&1].exec_quantum_ms, 32);
    assert_eq!(h.rf.guc().sriov().configs()[&1].ctx_num, 1024);
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
    let s = h.sriov_summary();
    assert_eq!((s.vf_cfg_updates, s.vfs_configured, s.refused), (3, 1, 0));
    assert_eq!(s.vfs["1"].ggtt_start.0, VF1_GGTT);
    assert_eq!((s.vfs["1"].ctx_begin, s.vfs["1"].db_num), (1024, 8));
    assert_eq!(s.vfs["0"].ctx_num, 65535);
    // The checker ran after each message and found nothing.
    assert_eq!((s.isolation_checks, s.isolation_violations), (3, 0));
    let ev = h.events("sriov_vf_cfg");
    assert_eq!(ev[1]["applied"], 9);
    assert_eq!(ev[1]["cfg"]["lmem"], 4 * MIB2);
}

#[test]
fn unknown_keys_are_not_counted_and_a_truncated_list_is_malformed() {
    let mut h = H::sriov_ready();
    let list = [klv(key::NUM_CONTEXTS, &[4]), klv(0x9999, &[1, 2])].concat();
    assert_eq!(h.update(1, &list), mmio::success(1), "only the known key");
    assert_eq!(h.events("guc_ct_klv_skipped")[0]["key"], "0x9999");
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
    // Truncated: the value runs past CFG_SIZE; nothing applied.
    let list = [
        klv(key::NUM_CONTEXTS, &[8]),
        vec![key::GGTT_START << 16 | 2, 0],
    ]
    .concat();
    assert_eq!(h.update(1, &list), failure(abi::error::MALFORMED_KLV));
    assert_eq!(h.rf.guc().sriov().configs()[&1].ctx_num, 4);
    assert_eq!(h.kind("guc_sriov_bad"), 1);
}

#[test]
fn a_bad_value_refuses_the_whole_message() {
    let mut h = H::sriov_ready();
    assert_eq!(
        h.update(1, &full(VF1_GGTT, (100, 100), (0, 8), MIB2)),
        mmio::success(9)
    );
    let before = h.rf.guc().sriov().configs()[&1];
    let ok_first = klv(key::NUM_CONTEXTS, &[7]);
    let bad: [(&str, Vec<u32>); 14] = [
        ("GGTT unaligned", klv64(key::GGTT_START, VF2_GGTT + 8)),
        ("GGTT below WOPCM", klv64(key::GGTT_START, 0x1000)),
        (
            "GGTT past GUC_GGTT_TOP",
            klv64(key::GGTT_START, 0xFEE0_0000 - 0x1000),
        ),
        ("GGTT_START length 1", klv(key::GGTT_START, &[0x100_0000])),
        ("LMEM unaligned", klv64(key::LMEM_SIZE, MIB2 + 4096)),
        ("LMEM above the memory", klv64(key::LMEM_SIZE, 32 << 30)),
        (
            "contexts past GUC_ID_MAX",
            [
                klv(key::BEGIN_CONTEXT_ID, &[65000]),
                klv(key::NUM_CONTEXTS, &[536]),
            ]
            .concat(),
        ),
        (
            "doorbells past 256",
            [
                klv(key::BEGIN_DOORBELL_ID, &[250]),
                klv(key::NUM_DOORBELLS, &[7]),
            ]
            .concat(),
        ),
        ("priority 3", klv(key::SCHED_PRIORITY, &[3])),
        ("NUM_DOORBELLS length 2", klv(key::NUM_DOORBELLS, &[1, 1])),
        // VF 2 against VF 1.
        ("GGTT overlap", klv64(key::GGTT_START, VF1_GGTT + 0x8000)),
        (
            "context overlap",
            [
                klv(key::BEGIN_CONTEXT_ID, &[150]),
                klv(key::NUM_CONTEXTS, &[10]),
            ]
            .concat(),
        ),
        (
            "doorbell overlap",
            [
                klv(key::BEGIN_DOORBELL_ID, &[7]),
                klv(key::NUM_DOORBELLS, &[2]),
            ]
            .concat(),
        ),
        ("a threshold of length 0", klv(0x8A05, &[])),
    ];
    for (what, k) in &bad {
        let mut list = ok_first.clone();
        list.extend_from_slice(k);
        if what.starts_with("GGTT") && !what.contains("length") {
            list.extend(klv64(key::GGTT_SIZE, VF_GGTT_SIZE));
        }
        let reply = h.update(2, &list);
        assert_eq!(reply, failure(abi::error::INVALID_KLV_DATA), "{what}");
        assert!(
            !h.rf.guc().sriov().configs().contains_key(&2),
            "{what}: nothing of it applied"
        );
    }
    assert_eq!(h.kind("guc_sriov_bad"), bad.len() as u64);
    assert_eq!(h.rf.guc().sriov().configs()[&1], before, "VF 1 untouched");
    // Clamped values are applied and counted.
    let clamp = [
        klv(key::EXEC_QUANTUM, &[200_000]),
        klv(key::PREEMPT_TIMEOUT, &[u32::MAX]),
    ]
    .concat();
    assert_eq!(h.update(2, &clamp), mmio::success(2));
    let c = h.rf.guc().sriov().configs()[&2];
    assert_eq!(
        (c.exec_quantum_ms, c.preempt_timeout_us),
        (100_000, 100_000_000)
    );
    assert_eq!(
        h.events("sriov_vf_cfg").last().expect("event")["clamped"],
        2
    );
    // The same ranges one VF up are fine: adjacent, not overlapping.
    assert_eq!(
        h.update(2, &full(VF2_GGTT, (200, 100), (8, 8), MIB2)),
        mmio::success(9)
    );
    assert_eq!(h.sriov_summary().vfs_configured, 2);
}

#[test]
fn vfid_reset_and_message_checks() {
    let mut h = H::sriov_ready();
    assert_eq!(
        h.update(64, &klv(key::NUM_CONTEXTS, &[1])),
        failure(abi::error::INVALID_PARAMS)
    );
    assert_eq!(
        h.update(63, &klv(key::NUM_CONTEXTS, &[1])),
        mmio::success(1)
    );
    assert_eq!(h.sriov_summary().vfs_configured, 1);
    // Address 0, size 0: the VF's configuration is reset.
    assert_eq!(h.req(&[UPDATE, 63, 0, 0, 0]).0, mmio::success(0));
    assert!(h.rf.guc().sriov().configs().is_empty());
    let s = h.sriov_summary();
    assert_eq!((s.vfs_configured, s.vf_cfg_resets), (0, 1));
    assert!(s.vfs.is_empty());
    // Address 0 with a size: not parsed.
    assert_eq!(h.req(&[UPDATE, 5, 0, 0, 3]).0, mmio::success(0));
    assert!(h.rf.guc().sriov().configs().is_empty());
    // A short message, MBZ set, too big, unreachable.
    let invalid = failure(abi::error::INVALID_PARAMS);
    assert_eq!(h.req(&[UPDATE, 1, KLV_GGTT as u32, 0]).0, invalid);
    assert_eq!(h.req(&[UPDATE | 1 << 16, 1, 0, 0, 0]).0, invalid);
    assert_eq!(h.req(&[UPDATE, 1, KLV_GGTT as u32, 0, 5000]).0, invalid);
    assert_eq!(
        h.req(&[UPDATE, 1, 0x0700_0000, 0, 2]).0,
        failure(abi::error::INVALID_GGTT_ADDRESS)
    );
    assert_eq!(h.kind("guc_sriov_bad"), 5);
    assert_eq!(h.sriov_summary().refused, 5);
}

#[test]
fn vf_control_runs_the_state_machine_with_its_notifications() {
    let mut h = H::sriov_ready();
    let ok = mmio::success(0);
    let state = failure(abi::error::INVALID_STATE);
    let ev = |vf: u32, what: u32| vec![ctb(0, 3), NOTIFY, vf, what];
    assert_eq!(h.vf_control(3, 1), (ok, ev(3, 3)), "PAUSE, PAUSE_DONE");
    assert_eq!(h.rf.guc().sriov().state(3), VfState::Paused);
    assert_eq!(h.vf_control(3, 1).0, state, "paused already");
    assert_eq!(h.vf_control(3, 2), (ok, vec![]), "RESUME");
    assert_eq!(h.vf_control(3, 2).0, state, "not paused");
    assert_eq!(h.vf_control(3, 3), (ok, vec![]), "STOP");
    assert_eq!(h.vf_control(3, 1).0, state, "stopped");
    assert_eq!(h.vf_control(3, 5).0, state, "FLR_FINISH before FLR_START");
    assert_eq!(h.vf_control(3, 4), (ok, ev(3, 2)), "FLR_START, FLR_DONE");
    assert_eq!(h.rf.guc().sriov().state(3), VfState::FlrDone);
    // Again (the VF was reset again): starts over.
    assert_eq!(h.vf_control(3, 4), (ok, ev(3, 2)));
    assert_eq!(h.vf_control(3, 5), (ok, vec![]), "FLR_FINISH");
    assert_eq!(h.rf.guc().sriov().state(3), VfState::Ready);
    assert_eq!(h.vf_control(3, 5).0, state);
    // Other VFs are not touched.
    assert_eq!(h.rf.guc().sriov().state(4), VfState::Ready);
    let invalid = failure(abi::error::INVALID_PARAMS);
    assert_eq!(h.vf_control(0, 1).0, invalid, "the PF is no VF");
    assert_eq!(h.vf_control(64, 1).0, invalid);
    assert_eq!(h.vf_control(3, 9).0, invalid);
    assert_eq!(h.req(&[CONTROL, 3]).0, invalid);
    assert_eq!(h.kind("guc_sriov_bad"), 9);
    let s = h.sriov_summary();
    assert_eq!(
        (
            s.flr_started,
            s.flr_done,
            s.flr_finished,
            s.paused,
            s.refused
        ),
        (2, 2, 1, 1, 9)
    );
    assert!(s.vf_states.is_empty(), "{:?}", s.vf_states);
    let ctl = h.events("sriov_vf_control");
    assert_eq!(ctl[0]["cmd"], "pause");
    assert_eq!(ctl[0]["state"], "paused");
    assert_eq!(ctl[1]["code"], "0xa");
}

#[test]
fn test_control_switches_and_notifications() {
    let mut h = H::sriov_ready();
    let ok = mmio::success(0);
    // guc:refuse-vf-cfg: FAILURE ACTION_ABORTED, nothing applied, no
    // violation; the next one goes through.
    h.sriov_control("guc:refuse-vf-cfg:1");
    let list = klv(key::NUM_CONTEXTS, &[4]);
    assert_eq!(h.update(1, &list), failure(abi::error::ACTION_ABORTED));
    assert!(h.rf.guc().sriov().configs().is_empty());
    assert_eq!(h.update(1, &list), mmio::success(1));
    // guc:flr-stuck: SUCCESS, no FLR_DONE, FLR_FINISH refused; the next
    // FLR_START completes.
    h.sriov_control("guc:flr-stuck:1");
    assert_eq!(h.vf_control(1, 4), (ok, vec![]));
    assert_eq!(h.rf.guc().sriov().state(1), VfState::FlrWait);
    assert_eq!(h.vf_control(1, 5).0, failure(abi::error::INVALID_STATE));
    assert_eq!(h.vf_control(1, 4), (ok, vec![ctb(0, 3), NOTIFY, 1, 2]));
    assert_eq!(h.sriov_summary().vf_states["1"], "flr_done");
    // vf:flr:N and guc:bogus-vf-notify:N: VF_STATE_NOTIFY {vf, VF_FLR}.
    let tail = h.desc(G2H_DESC_LMEM)[1];
    h.sriov_control("vf:flr:7");
    h.sriov_control("guc:bogus-vf-notify:2");
    let msg = |vf| [ctb(0, 3), NOTIFY, vf, 1];
    assert_eq!(
        h.g2h(tail, 12),
        [msg(7), msg(64), msg(64)].concat(),
        "one VF_FLR for VF 7, two for VF 64"
    );
    let s = h.sriov_summary();
    assert_eq!((s.vf_flr_notified, s.refused), (3, 2));
    assert_eq!(
        h.kind("guc_sriov_bad"),
        1,
        "only the out-of-order FLR_FINISH"
    );
    // Without a channel nothing is sent.
    assert_eq!(h.mmio(&DISABLE), mmio::success(0));
    h.sriov_control("vf:flr:2");
    let inj = h.events("sriov_inject");
    assert_eq!(inj.last().expect("event")["result"], "no_channel");
    assert_eq!(inj[0]["request"], "guc:refuse-vf-cfg:1");
}

#[test]
fn a_guc_reset_forgets_the_configs_and_keeps_the_switches() {
    let mut h = H::sriov_ready();
    assert_eq!(h.update(2, &klv(key::NUM_CONTEXTS, &[4])), mmio::success(1));
    h.sriov_control("guc:refuse-vf-cfg:1");
    assert_eq!(h.vf_control(2, 1).0, mmio::success(0));
    h.guc_reset();
    assert!(h.rf.guc().sriov().configs().is_empty());
    assert_eq!(h.rf.guc().sriov().state(2), VfState::Ready);
    let s = h.sriov_summary();
    assert!(s.vfs.is_empty() && s.vf_states.is_empty());
    assert_eq!(s.vfs_configured, 0);
    // The switch outlived the reset.
    h.load_ready();
    h.bus.map_lmem(H2G_GGTT, H2G_LMEM, &[0; 0x2000]);
    h.bus.map_lmem(G2H_GGTT, G2H_LMEM, &vec![0; 0x2_1000]);
    assert_eq!(h.register(&LAYOUT), [mmio::success(1); 6]);
    assert_eq!(h.mmio(&ENABLE), mmio::success(0));
    assert_eq!(
        h.update(2, &klv(key::NUM_CONTEXTS, &[4])),
        failure(abi::error::ACTION_ABORTED)
    );
}

#[test]
fn the_checker_catches_a_mis_stamped_ggtt_entry_once() {
    let mut h = H::sriov_ready();
    h.stamp(VF1_GGTT, 16, 1);
    // One entry of VF 1's range stamped for VF 2.
    h.bus.ptes.insert(VF1_GGTT / PAGE + 5, 2 << 2 | PTE_PRESENT);
    let cfg = full(VF1_GGTT, (0, 16), (0, 0), MIB2);
    assert_eq!(h.update(1, &cfg), mmio::success(9));
    assert_eq!(h.isolation_kinds(), [("ggtt_stamp".into(), 1)].into());
    let iso = h.events("sriov_isolation");
    assert_eq!(iso[0]["vf"], 1);
    let d = iso[0]["detail"].as_str().unwrap_or("");
    assert!(d.contains("1 of VF 1's") && d.contains("0x10005000"), "{d}");
    // Not a device violation: the checker is an oracle.
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
    // Found again: counted once.
    assert_eq!(
        h.update(1, &klv(key::EXEC_QUANTUM, &[20])),
        mmio::success(1)
    );
    assert_eq!(h.sriov_summary().isolation_violations, 1);
    // Repaired: nothing new.
    h.stamp(VF1_GGTT, 16, 1);
    h.sriov_control("vf:check");
    assert_eq!(h.sriov_summary().isolation_violations, 1);
}

#[test]
fn stray_stamps_count_once_the_pf_had_its_turn() {
    let mut h = H::sriov_ready();
    h.stamp(VF1_GGTT, 16, 1);
    assert_eq!(
        h.update(1, &full(VF1_GGTT, (0, 16), (0, 0), MIB2)),
        mmio::success(9)
    );
    // Upstream's release: the GuC is told first, the GGTT cleaned after.
    assert_eq!(h.req(&[UPDATE, 1, 0, 0, 0]).0, mmio::success(0));
    assert_eq!(h.sriov_summary().isolation_violations, 0, "not yet");
    // The PF forgets to clean: the next check with leftovers finds it.
    h.sriov_control("vf:check");
    assert_eq!(h.isolation_kinds(), [("ggtt_stray".into(), 1)].into());
    let d = h.events("sriov_isolation")[0]["detail"].clone();
    assert!(
        d.as_str()
            .unwrap_or("")
            .starts_with("16 GGTT entries carry function number 1"),
        "{d}"
    );
    // Cleaned: nothing more at the final check.
    h.stamp(VF1_GGTT, 16, 0);
    h.rf.final_isolation_check(&mut h.rec, &mut h.bus);
    let s = h.sriov_summary();
    assert_eq!((s.isolation_violations, s.isolation_checks), (1, 4));
    assert_eq!(
        h.events("sriov_check").last().expect("run")["trigger"],
        "final"
    );
}

#[test]
fn the_checker_walks_the_lmtt() {
    let mut h = H::sriov_ready();
    h.stamp(VF1_GGTT, 16, 1);
    h.stamp(VF2_GGTT, 16, 2);
    assert_eq!(
        h.update(1, &full(VF1_GGTT, (0, 16), (0, 0), 2 * MIB2)),
        mmio::success(9)
    );
    assert_eq!(
        h.update(2, &full(VF2_GGTT, (16, 16), (0, 0), 2 * MIB2)),
        mmio::success(9)
    );
    // VF 1 pages 0 and 1, VF 2 pages 2 and 1: page 1 is shared.
    h.lmtt(1, LEAF1, &[0, 1]);
    h.lmtt(2, LEAF2, &[2, 1]);
    h.w(LMEM_CFG, 1 << 31 | (DIR >> 16) as u32);
    assert_eq!(h.isolation_kinds(), [("lmtt_shared".into(), 1)].into());
    let iso = h.events("sriov_isolation");
    assert_eq!(
        (iso[0]["vf"].clone(), iso[0]["other"].clone()),
        (1.into(), 2.into())
    );
    assert!(
        iso[0]["detail"].as_str().unwrap_or("").contains("0x200000"),
        "{}",
        iso[0]["detail"]
    );
    assert_eq!(
        h.events("sriov_check").last().expect("run")["trigger"],
        "lmem_cfg"
    );
    // VF 2 instead maps the page that holds the tables, and one past the
    // local memory (16 GiB; page 0xFFFF is at 128 GiB - 2 MiB).
    h.lmtt(2, LEAF2, &[3, 0xFFFF]);
    // And VF 5, without a configuration, has a directory entry; VF 1 maps
    // a third page, above its 4 MiB.
    h.lmtt(5, LEAF2, &[3]);
    h.lmtt(1, LEAF1, &[0, 1, 2]);
    h.sriov_control("vf:check");
    let kinds = h.isolation_kinds();
    for k in [
        "lmtt_shared",
        "lmtt_in_tables",
        "lmtt_beyond_lmem",
        "lmtt_no_config",
        "lmtt_over_quota",
    ] {
        assert!(kinds.contains_key(k), "{k}: {kinds:?}");
    }
    // VF 1's page 2 is VF 2's no more: VF 1 and 2 share nothing new, but
    // VF 2 and 5 share page 3.
    assert_eq!(kinds["lmtt_shared"], 2, "{kinds:?}");
    // Without LMEM_EN the LMTT is not walked.
    h.w(LMEM_CFG, (DIR >> 16) as u32);
    let n = h.sriov_summary().isolation_violations;
    h.put_lmem32(DIR + 4 * 6, 1);
    h.sriov_control("vf:check");
    assert_eq!(h.sriov_summary().isolation_violations, n);
    // Entry 0 (the PF's, unused) valid.
    h.w(LMEM_CFG, 1 << 31 | (DIR >> 16) as u32);
    h.put_lmem32(DIR, 1);
    h.sriov_control("vf:check");
    assert!(h.isolation_kinds().contains_key("lmtt_pf_entry"));
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
}

#[test]
fn a_correct_layout_is_clean() {
    // Two VFs stamped, LMTT disjoint and each exactly its quota from guest
    // offset 0 (physically scattered: VF 1's pages out of order, VF 2's
    // apart), ranges apart, their local memory clear (pages 0 and 1 hold the
    // CT and the KLVs, page 3 the tables): the checker finds nothing at any
    // trigger, the final one included.
    let mut h = H::sriov_ready();
    h.stamp(VF1_GGTT, 16, 1);
    h.stamp(VF2_GGTT, 16, 2);
    h.lmtt(1, LEAF1, &[5, 2]);
    h.lmtt(2, LEAF2, &[4, 7]);
    assert_eq!(
        h.update(1, &full(VF1_GGTT, (0, 16), (0, 4), 2 * MIB2)),
        mmio::success(9)
    );
    assert_eq!(
        h.update(2, &full(VF2_GGTT, (16, 16), (4, 4), 2 * MIB2)),
        mmio::success(9)
    );
    h.w(LMEM_CFG, 1 << 31 | (DIR >> 16) as u32);
    assert_eq!(h.vf_control(1, 4).0, mmio::success(0));
    assert_eq!(h.vf_control(1, 5).0, mmio::success(0));
    h.rf.final_isolation_check(&mut h.rec, &mut h.bus);
    let s = h.sriov_summary();
    assert_eq!((s.isolation_checks, s.isolation_violations), (6, 0));
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
}

#[test]
fn a_hole_below_lmem_size_is_unmapped() {
    // VF 1 is told 3 pages (LMEM_SIZE) and its leaf maps guest pages 0 and
    // 2: guest page 1 would fault. VF 2 is told 2 pages and maps one.
    let mut h = H::sriov_ready();
    h.stamp(VF1_GGTT, 16, 1);
    h.stamp(VF2_GGTT, 16, 2);
    h.lmtt(1, LEAF1, &[2, 4, 5]);
    h.put_lmem32(LEAF1 + 4, 0);
    h.lmtt(2, LEAF2, &[6]);
    h.w(LMEM_CFG, 1 << 31 | (DIR >> 16) as u32);
    assert_eq!(
        h.update(1, &full(VF1_GGTT, (0, 16), (0, 4), 3 * MIB2)),
        mmio::success(9)
    );
    assert_eq!(
        h.update(2, &full(VF2_GGTT, (16, 16), (4, 4), 2 * MIB2)),
        mmio::success(9)
    );
    // Not a quiet point yet: the PF may still be filling the leaves.
    assert!(!h.isolation_kinds().contains_key("lmtt_unmapped"));
    h.sriov_control("vf:check");
    assert_eq!(h.isolation_kinds()["lmtt_unmapped"], 2);
    let details: Vec<String> = h
        .events("sriov_isolation")
        .iter()
        .map(|e| e["detail"].as_str().unwrap_or("").to_string())
        .collect();
    assert!(
        details
            .iter()
            .any(|d| d.starts_with("VF 1's LMEM_SIZE is 0x600000") && d.contains("entry 1 ")),
        "{details:?}"
    );
    assert!(
        details
            .iter()
            .any(|d| d.starts_with("VF 2's LMEM_SIZE is 0x400000") && d.contains("entry 1 ")),
        "{details:?}"
    );
    // Both filled: a second check finds nothing new.
    h.lmtt(1, LEAF1, &[2, 4, 5]);
    h.lmtt(2, LEAF2, &[6, 7]);
    let n = h.sriov_summary().isolation_violations;
    h.sriov_control("vf:check");
    assert_eq!(h.sriov_summary().isolation_violations, n);
}

/// A VF must find its local memory clear when its configuration (with
/// `LMEM_SIZE`) is taken and when its FLR finishes: a non-zero byte in a
/// page its leaf maps is `lmem_not_cleared`; zeros are clean.
#[test]
fn memory_a_vf_gets_or_gets_back_must_be_clear() {
    // At UPDATE_VF_CFG: the page VF 1 gets holds data.
    let mut h = H::sriov_ready();
    h.stamp(VF1_GGTT, 16, 1);
    h.lmtt(1, LEAF1, &[2]);
    h.w(LMEM_CFG, 1 << 31 | (DIR >> 16) as u32);
    h.put_lmem32(0x45_0000, 0xbad);
    assert_eq!(
        h.update(1, &full(VF1_GGTT, (0, 16), (0, 4), MIB2)),
        mmio::success(9)
    );
    assert_eq!(h.isolation_kinds(), [("lmem_not_cleared".into(), 1)].into());
    let iso = h.events("sriov_isolation");
    assert_eq!(iso[0]["vf"], 1);
    let detail = iso[0]["detail"].as_str().unwrap_or("");
    assert!(detail.contains("0x450000"), "{detail}");

    // At FLR_FINISH: clean when provisioned, then the VF's memory holds
    // data at the end of its FLR (FLR_START is no such point).
    let mut h = H::sriov_ready();
    h.stamp(VF1_GGTT, 16, 1);
    h.lmtt(1, LEAF1, &[2]);
    h.w(LMEM_CFG, 1 << 31 | (DIR >> 16) as u32);
    assert_eq!(
        h.update(1, &full(VF1_GGTT, (0, 16), (0, 4), MIB2)),
        mmio::success(9)
    );
    assert!(h.isolation_kinds().is_empty());
    h.put_lmem32(0x5F_FFFC, 0x100);
    assert_eq!(h.vf_control(1, 4).0, mmio::success(0));
    assert!(h.isolation_kinds().is_empty(), "not at FLR_START");
    assert_eq!(h.vf_control(1, 5).0, mmio::success(0));
    assert_eq!(h.isolation_kinds(), [("lmem_not_cleared".into(), 1)].into());
    let iso = h.events("sriov_isolation");
    let detail = iso[0]["detail"].as_str().unwrap_or("");
    assert!(detail.contains("0x5ffffd"), "{detail}");
    assert_eq!(
        h.events("sriov_check").last().expect("run")["trigger"],
        "vf_control"
    );
}

/// With the flat-CCS metadata modelled, the CCS of the memory a VF gets
/// or gets back must be known zero too (`ccs_not_cleared`, at the same
/// points as `lmem_not_cleared`): unknown (power-on) at UPDATE_VF_CFG is
/// found; cleared it is clean; a previous owner's byte at FLR_FINISH is
/// found (FLR_START is no such point); the same byte outside the VF's
/// page is not.
#[test]
fn the_ccs_of_memory_a_vf_gets_or_gets_back_must_be_clear() {
    use crate::ccs::index;
    use crate::ccs::Ccs;
    let page = 2 * MIB2;
    let per_page = MIB2 / 256;
    let mut h = H::sriov_ready();
    h.bus.ccs = Some(Ccs::new());
    h.stamp(VF1_GGTT, 16, 1);
    h.lmtt(1, LEAF1, &[2]);
    h.w(LMEM_CFG, 1 << 31 | (DIR >> 16) as u32);
    assert_eq!(
        h.update(1, &full(VF1_GGTT, (0, 16), (0, 4), MIB2)),
        mmio::success(9)
    );
    assert_eq!(h.isolation_kinds(), [("ccs_not_cleared".into(), 1)].into());
    let iso = h.events("sriov_isolation");
    let detail = iso[0]["detail"].as_str().unwrap_or("");
    assert!(
        detail.contains("0x400000") && detail.contains("never written"),
        "{detail}"
    );

    let mut h = H::sriov_ready();
    let mut ccs = Ccs::new();
    ccs.fill(index(page), per_page, Some(0));
    h.bus.ccs = Some(ccs);
    h.stamp(VF1_GGTT, 16, 1);
    h.lmtt(1, LEAF1, &[2]);
    h.w(LMEM_CFG, 1 << 31 | (DIR >> 16) as u32);
    assert_eq!(
        h.update(1, &full(VF1_GGTT, (0, 16), (0, 4), MIB2)),
        mmio::success(9)
    );
    assert!(h.isolation_kinds().is_empty(), "memory and CCS clear");
    // A byte next to the page (not the VF's) changes nothing.
    if let Some(c) = h.bus.ccs.as_mut() {
        c.write(index(page + MIB2), &[Some(0xd1)]);
    }
    assert_eq!(h.vf_control(1, 4).0, mmio::success(0));
    assert_eq!(h.vf_control(1, 5).0, mmio::success(0));
    assert!(h.isolation_kinds().is_empty());
    // The VF's own: found at FLR_FINISH, not at FLR_START.
    if let Some(c) = h.bus.ccs.as_mut() {
        c.write(index(page + 0x1_2300), &[Some(0xd1)]);
    }
    assert_eq!(h.vf_control(1, 4).0, mmio::success(0));
    assert!(h.isolation_kinds().is_empty(), "not at FLR_START");
    assert_eq!(h.vf_control(1, 5).0, mmio::success(0));
    assert_eq!(h.isolation_kinds(), [("ccs_not_cleared".into(), 1)].into());
    let iso = h.events("sriov_isolation");
    let detail = iso[0]["detail"].as_str().unwrap_or("");
    assert!(
        detail.starts_with("1 of VF 1's") && detail.contains("LMEM 0x412300 holds 0xd1"),
        "{detail}"
    );
    assert!(h.kinds().is_empty(), "an oracle: {:?}", h.kinds());
}

/// VF-dedicated registers: Gunit resets them at a VF FLR (seed 000 line
/// 322); hardware that skips it (`vf:keep-regs`) and a PF that relies on
/// it leave the last owner's message behind, `vf_regs_not_cleared` at
/// FLR_FINISH; the PF's own clearing through its view of the VF avoids it.
#[test]
fn a_vf_whose_flr_ends_must_find_its_registers_clear() {
    use crate::regfile::vf_regs;
    let mut h = H::sriov_ready();
    let flag =
        |vf: u32, i: u32| crate::regs::guc::VF_SW_FLAG[0].offset + vf * vf_regs::STRIDE + 4 * i;
    let ok = mmio::success(0);
    h.sriov_control("vf:scratch:2");
    assert_eq!(h.r(flag(2, 1)), vf_regs::planted(2, 1));
    assert_eq!(h.r(flag(3, 1)), 0, "another VF's are its own");
    h.sriov_control("vf:flr:2");
    assert_eq!(h.r(flag(2, 1)), 0, "the hardware's reset");
    assert_eq!(h.vf_control(2, 4).0, ok);
    assert_eq!(h.vf_control(2, 5).0, ok);
    assert!(h.isolation_kinds().is_empty());

    h.sriov_control("vf:keep-regs:2");
    h.sriov_control("vf:scratch:2");
    h.sriov_control("vf:flr:2");
    assert_eq!(h.vf_control(2, 4).0, ok);
    assert!(h.isolation_kinds().is_empty(), "not at FLR_START");
    assert_eq!(h.vf_control(2, 5).0, ok);
    assert_eq!(
        h.isolation_kinds(),
        [("vf_regs_not_cleared".into(), 1)].into()
    );
    let iso = h.events("sriov_isolation");
    let detail = iso[0]["detail"].as_str().unwrap_or("");
    assert!(
        detail.contains("VF_SW_FLAG(0)") && detail.contains("0x5c000200"),
        "{detail}"
    );

    // The PF clears them itself: nothing new.
    h.sriov_control("vf:scratch:3");
    h.sriov_control("vf:flr:3");
    for i in 0..4 {
        h.w(flag(3, i), 0);
    }
    assert_eq!(h.vf_control(3, 4).0, ok);
    assert_eq!(h.vf_control(3, 5).0, ok);
    let s = h.sriov_summary();
    assert_eq!(s.isolation_violations, 1);
    assert_eq!(
        (s.vf_regs_pf_writes, s.vf_regs_reset, s.vf_regs_kept),
        (4, 1, 2)
    );
}

/// `vf:adverse`: the GuC reports a VF past a threshold only if the PF set
/// that threshold (seed 003: 0 is not reported), as GUC2PF_ADVERSE_EVENT
/// {VF, key}.
#[test]
fn adverse_events_follow_the_thresholds_the_pf_set() {
    let mut h = H::sriov_ready();
    assert_eq!(
        h.update(3, &klv(key::THRESHOLD_FIRST, &[2])),
        mmio::success(1)
    );
    let tail = h.desc(G2H_DESC_LMEM)[1];
    h.sriov_control("vf:adverse:3:8a03");
    h.sriov_control("vf:adverse:3:8a04");
    h.sriov_control("vf:adverse:4:8a03");
    assert_eq!(
        h.g2h(tail, 4),
        [ctb(0, 3), ADVERSE, 3, 0x8a03],
        "only VF 3's CAT error threshold is set"
    );
    assert_eq!(h.desc(G2H_DESC_LMEM)[1], tail + 4, "nothing else");
    let s = h.sriov_summary();
    assert_eq!((s.adverse_sent, s.adverse_not_reported), (1, 2));
    let ev = h.events("sriov_adverse");
    assert_eq!(ev[1]["threshold"], 0);
    assert_eq!(ev[0]["sent"], true);
}

mod lmtt;
mod relay;
mod vf_submit;
mod vgt;

/// A VF driver's MMIO exchange through its own `VF_SW_FLAG`s and doorbell
/// (`vf_mmio.rs`): the request in, the reply read back.
fn vf_mmio(h: &mut H, vf: u32, msg: [u32; 4]) -> [u32; 4] {
    const FLAG0: u32 = 0x19_0240;
    for (i, &d) in (0u32..).zip(&msg) {
        assert!(h
            .rf
            .vf_fn_write(vf, FLAG0 + 4 * i, d, &mut h.rec, &mut h.bus));
    }
    assert!(h.rf.vf_fn_write(vf, 0x19_01F0, 1, &mut h.rec, &mut h.bus));
    std::array::from_fn(|i| {
        // CAST: i < 4.
        h.rf.vf_fn_read(vf, FLAG0 + 4 * i as u32, &mut h.rec)
            .expect("VF_SW_FLAG is a VF register")
    })
}

#[test]
fn a_vf_driver_matches_the_version_and_reads_its_config_by_mmio() {
    let mut h = H::sriov_ready();
    h.stamp(VF1_GGTT, 16, 1);
    let cfg = full(VF1_GGTT, (1024, 256), (8, 4), 4 * MIB2);
    assert_eq!(h.update(1, &cfg), mmio::success(9));
    // VF_CAP_REG says VF; a write changes nothing.
    assert_eq!(h.rf.vf_fn_read(1, 0x19_01F8, &mut h.rec), Some(1));
    assert!(h.rf.vf_fn_write(1, 0x19_01F8, 0, &mut h.rec, &mut h.bus));
    // MATCH_VERSION asking 1.1: the image's submission version, 1.26.0.
    let r = vf_mmio(&mut h, 1, [0x5500, 0x0001_0100, 0, 0]);
    assert_eq!(r, [mmio::success(0), 0x0001_1A00, 0, 0]);
    // Each KLV upstream's VF queries, from VF 1's configuration.
    let q = |h: &mut H, k: u32| vf_mmio(h, 1, [0x5509, k, 0, 0]);
    assert_eq!(
        q(&mut h, key::GGTT_START),
        [mmio::success(2), VF1_GGTT as u32, 0, 0]
    );
    assert_eq!(
        q(&mut h, key::GGTT_SIZE),
        [mmio::success(2), VF_GGTT_SIZE as u32, 0, 0]
    );
    assert_eq!(
        q(&mut h, key::LMEM_SIZE),
        [mmio::success(2), (4 * MIB2) as u32, 0, 0]
    );
    assert_eq!(q(&mut h, key::NUM_CONTEXTS), [mmio::success(1), 256, 0, 0]);
    assert_eq!(q(&mut h, key::NUM_DOORBELLS), [mmio::success(1), 4, 0, 0]);
    // The image is 1.26: group scheduling is a key it has (none enabled),
    // the paging engines (1.36) and GMD_ID (MTL+) are not.
    assert_eq!(q(&mut h, 0x3001), [mmio::success(1), 0, 0, 0]);
    assert_eq!(
        q(&mut h, 0x3003)[0],
        mmio::failure(abi::error::INVALID_KLV_KEY)
    );
    assert_eq!(
        q(&mut h, 0x3000)[0],
        mmio::failure(abi::error::INVALID_KLV_KEY)
    );
    // VF 2 has no configuration: the defaults.
    assert_eq!(
        vf_mmio(&mut h, 2, [0x5509, key::GGTT_SIZE, 0, 0]),
        [mmio::success(2), 0, 0, 0]
    );
    // The PF sees VF 1's registers at its stride: the last reply.
    assert_eq!(
        h.rf.read(0x19_0240 + 0x400, &mut h.rec),
        Some(mmio::failure(abi::error::INVALID_KLV_KEY))
    );
    // Refusals: MBZ set, an unknown key, an unknown action, not a request.
    assert_eq!(
        vf_mmio(&mut h, 1, [0x5500, 0x0001_0101, 0, 0])[0],
        mmio::failure(abi::error::INVALID_PARAMS)
    );
    assert_eq!(
        vf_mmio(&mut h, 1, [0x5509, 0x1_0001, 0, 0])[0],
        mmio::failure(abi::error::INVALID_PARAMS)
    );
    assert_eq!(
        vf_mmio(&mut h, 1, [0x5509, key::EXEC_QUANTUM, 0, 0])[0],
        mmio::failure(abi::error::INVALID_KLV_KEY)
    );
    assert_eq!(
        vf_mmio(&mut h, 1, [0x4321, 0, 0, 0])[0],
        mmio::failure(abi::error::UNKNOWN_ACTION)
    );
    assert_eq!(
        vf_mmio(&mut h, 1, [0x1000_5500, 0, 0, 0])[0],
        mmio::failure(abi::error::INVALID_PARAMS)
    );
    // A doorbell over the last reply is not a request: nothing changes.
    let before = h.rec.summary(false).vf_guest[&1].guc_requests.clone();
    assert!(h.rf.vf_fn_write(1, 0x19_01F0, 1, &mut h.rec, &mut h.bus));
    let g = h.rec.summary(false).vf_guest[&1].clone();
    assert_eq!(g.guc_requests, before);
    assert_eq!(g.version.as_deref(), Some("0.1.26.0"));
    assert_eq!(g.klvs["0x1"], VF1_GGTT);
    assert_eq!(g.klvs["0x4"], 256);
    assert_eq!(g.guc_requests["0x5509:success"], 6);
    assert_eq!(g.guc_requests["0x5509:failure"], 4);
    // Another offset is no VF register.
    assert_eq!(h.rf.vf_fn_read(1, 0x2358, &mut h.rec), None);
}

#[test]
fn a_vf_gets_the_hwconfig_in_its_own_memory_through_its_ggtt() {
    let mut h = H::sriov_ready();
    let cfg = full(VF1_GGTT, (1024, 256), (8, 4), 4 * MIB2);
    assert_eq!(h.update(1, &cfg), mmio::success(9));
    let table: Vec<u8> =
        h.rf.guc()
            .hwconfig()
            .iter()
            .flat_map(|d| d.to_le_bytes())
            .collect();
    let len = table.len() as u32;
    // VF 1's first page: its VM's memory at 0x5000 (function 1, not DM).
    const VF_PHYS: u64 = 0x5000;
    h.bus
        .sys
        .insert(vf_sys(1, VF_PHYS) / PAGE, vec![0; PAGE as usize]);
    h.bus
        .ptes
        .insert(VF1_GGTT / PAGE, VF_PHYS | 1 << 2 | PTE_PRESENT);
    assert_eq!(
        vf_mmio(&mut h, 1, [0x4100, 0, 0, 0]),
        [mmio::success(len), 0, 0, 0]
    );
    let lo = VF1_GGTT as u32;
    assert_eq!(
        vf_mmio(&mut h, 1, [0x4100, lo, 0, len]),
        [mmio::success(len), 0, 0, 0]
    );
    assert_eq!(h.bus.sys_bytes(vf_sys(1, VF_PHYS), table.len()), table);
    // The PF's memory at the same address is untouched.
    assert!(!h.bus.sys.contains_key(&(VF_PHYS / PAGE)));
    // VF 1's second page is local memory: its offset 0x1000 goes through
    // the LMTT (VF 1's page 0 is LMEM page 2).
    h.bus.lmem_cfg = 1 << 31 | (DIR / (64 << 10)) as u32;
    h.lmtt(1, LEAF1, &[2]);
    h.bus
        .ptes
        .insert(VF1_GGTT / PAGE + 1, 0x1000 | 1 << 2 | PTE_DM | PTE_PRESENT);
    assert_eq!(
        vf_mmio(&mut h, 1, [0x4100, lo + 0x1000, 0, len]),
        [mmio::success(len), 0, 0, 0]
    );
    let at = (2 * MIB2 + 0x1000) as usize;
    assert_eq!(&h.bus.lmem[at..at + table.len()], &table[..]);
    // Outside VF 1's range (VF 2's), or a VF with no range: refused.
    for (vf, addr) in [(1, VF2_GGTT as u32), (2, lo)] {
        assert_eq!(
            vf_mmio(&mut h, vf, [0x4100, addr, 0, len])[0],
            mmio::failure(abi::error::INVALID_GGTT_ADDRESS)
        );
    }
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
}

/// VF 1's CT in its own memory (function 1's pages, `vf_sys`): the H2G and
/// G2H descriptors on its first page, a 4 KiB ring each on the next two,
/// the memory-based interrupt page on the fourth.
const VF_PHYS: u64 = 0x10_0000;
const VF_H2G_DESC: u64 = VF1_GGTT;
const VF_G2H_DESC: u64 = VF1_GGTT + 0x800;
const VF_H2G: u64 = VF1_GGTT + PAGE;
const VF_G2H: u64 = VF1_GGTT + 2 * PAGE;
const VF_MEMIRQ: u64 = VF1_GGTT + 3 * PAGE;

impl H {
    /// VF 1 configured, its four pages mapped as function 1's memory.
    fn vf_ct_ready() -> H {
        let mut h = H::sriov_ready();
        let cfg = full(VF1_GGTT, (1024, 256), (8, 4), 4 * MIB2);
        assert_eq!(h.update(1, &cfg), mmio::success(9));
        h.map_vf_pages(0..4);
        h
    }

    /// VF 1's pages `pages` (of its GGTT range) as function 1's memory at
    /// `VF_PHYS` on.
    fn map_vf_pages(&mut self, pages: std::ops::Range<u64>) {
        for p in pages {
            let phys = VF_PHYS + p * PAGE;
            self.bus
                .sys
                .insert(vf_sys(1, phys) / PAGE, vec![0; PAGE as usize]);
            self.bus
                .ptes
                .insert(VF1_GGTT / PAGE + p, phys | 1 << 2 | PTE_PRESENT);
        }
    }

    /// VF 1's memory at its GGTT address `g` (one of its four pages).
    fn vf32(&self, g: u64) -> u32 {
        let phys = VF_PHYS + (g - VF1_GGTT);
        let b = self.bus.sys_bytes(vf_sys(1, phys), 4);
        u32::from_le_bytes([b[0], b[1], b[2], b[3]])
    }

    fn vf_put32(&mut self, g: u64, v: u32) {
        let phys = vf_sys(1, VF_PHYS + (g - VF1_GGTT));
        let page = self.bus.sys.get_mut(&(phys / PAGE)).expect("mapped");
        let at = (phys % PAGE) as usize;
        page[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }

    /// VF 1 sends one H2G message (CTB header first) and rings.
    fn vf_send(&mut self, msg: &[u32]) {
        let tail = self.vf32(VF_H2G_DESC + 4);
        for (i, &d) in (0u32..).zip(msg) {
            self.vf_put32(VF_H2G + 4 * u64::from((tail + i) % 1024), d);
        }
        self.vf_put32(VF_H2G_DESC + 4, (tail + msg.len() as u32) % 1024);
        assert!(self
            .rf
            .vf_fn_write(1, 0x19_01F0, 0, &mut self.rec, &mut self.bus));
    }
}

#[test]
fn a_vf_registers_its_ct_and_relays_to_the_pf_and_back() {
    let mut h = H::vf_ct_ready();
    let self_cfg = |h: &mut H, key: u32, len: u32, v: u64| {
        vf_mmio(h, 1, [0x508, key << 16 | len, v as u32, (v >> 32) as u32])[0]
    };
    // The CT's six keys and the two MEMIRQ addresses, as upstream's VF
    // registers them (GuC source byte 25 of the source report at +0x400,
    // the GuC's status vector at 25 * 16).
    let keys = [
        (0x0900, 2, VF_MEMIRQ + 0x190),
        (0x0901, 2, VF_MEMIRQ + 0x419),
        (0x0903, 2, VF_H2G_DESC),
        (0x0902, 2, VF_H2G),
        (0x0904, 1, PAGE),
        (0x0906, 2, VF_G2H_DESC),
        (0x0905, 2, VF_G2H),
        (0x0907, 1, PAGE),
    ];
    for (key, len, v) in keys {
        assert_eq!(self_cfg(&mut h, key, len, v), mmio::success(1), "{key:#x}");
    }
    // A MEMIRQ address outside VF 1's range is refused, one that would
    // wrap past the top too.
    for bad in [VF2_GGTT, u64::MAX - 8] {
        assert_eq!(
            self_cfg(&mut h, 0x0900, 2, bad),
            mmio::failure(abi::error::INVALID_KLV_DATA)
        );
    }
    assert_eq!(vf_mmio(&mut h, 1, [0x4509, 1, 0, 0])[0], mmio::success(0));
    assert!(h.rf.guc().vf_ct_enabled(1));
    // Enabling twice is refused; moving a buffer while enabled too.
    assert_eq!(
        vf_mmio(&mut h, 1, [0x4509, 1, 0, 0])[0],
        mmio::failure(abi::error::INVALID_STATE)
    );
    assert_eq!(
        self_cfg(&mut h, 0x0907, 1, PAGE),
        mmio::failure(abi::error::INVALID_STATE)
    );
    // VF2PF_HANDSHAKE over the relay, RELAY_ID 7.
    let pf_from = h.desc(G2H_DESC_LMEM)[1];
    h.vf_send(&[ctb(0x10, 4), 0x5103, 7, 0x0000_0001, 0x0001_0000]);
    // The VF's CT got SUCCESS for its request, and the interrupt.
    assert_eq!(h.vf32(VF_G2H_DESC + 4), 2);
    assert_eq!(h.vf32(VF_G2H), ctb(0x10, 1));
    assert_eq!(h.vf32(VF_G2H + 4), mmio::success(0));
    assert_eq!(h.vf32(VF_MEMIRQ + 0x418) >> 8 & 0xFF, 0xFF, "source byte");
    assert_eq!(
        h.vf32(VF_MEMIRQ + 0x19C) >> 24,
        0xFF,
        "GUC2HOST status byte"
    );
    assert_eq!(h.rf.take_vf_irqs(), [1]);
    // The PF got GUC2PF_RELAY_FROM_VF {1, 7, message}.
    let pf_to = h.desc(G2H_DESC_LMEM)[1];
    let msgs = h.g2h(pf_from, pf_to - pf_from);
    assert_eq!(
        &msgs[1..],
        &[0x9000_5100, 1, 7, 0x0000_0001, 0x0001_0000],
        "{msgs:x?}"
    );
    // The PF's answer comes back over the VF's CT as GUC2VF_RELAY_FROM_PF.
    let (reply, _) = h.req(&[0x5101, 1, 7, 0x7000_0000, 0x0001_0000]);
    assert_eq!(reply, mmio::success(0));
    assert_eq!(h.vf32(VF_G2H_DESC + 4), 2 + 5);
    let event: Vec<u32> = (2..7).map(|i| h.vf32(VF_G2H + 4 * i)).collect();
    assert_eq!(event, [ctb(0, 4), 0x9000_5102, 7, 0x7000_0000, 0x0001_0000]);
    assert_eq!(h.rf.take_vf_irqs(), [1]);
    // An EVENT of an action the GuC does not serve a VF gets nothing back;
    // a FAST_REQUEST of one gets a FAILURE.
    // (PF2GUC_UPDATE_VF_CFG is the PF's.)
    h.vf_send(&[ctb(0x8001, 2), 0x1000_5503, 5]);
    assert_eq!(h.vf32(VF_G2H_DESC + 4), 7);
    h.vf_send(&[ctb(0x8002, 2), 0x2000_5503, 5]);
    assert_eq!(h.vf32(VF_G2H_DESC + 4), 9);
    assert_eq!(
        h.vf32(VF_G2H + 4 * 8),
        mmio::failure(abi::error::UNKNOWN_ACTION)
    );
    let g = h.rec.summary(false).vf_guest[&1].clone();
    assert_eq!(g.ct_h2g["0x5103:request:success"], 1);
    assert_eq!(g.ct_h2g["0x5503:event:none"], 1);
    assert_eq!(g.ct_g2h["event"], 1);
    // The PF's own CT counts none of the VF's traffic.
    assert_eq!(h.rec.summary(false).ct.fast_requests, 0);
    // VF_RESET forgets the CT; so does an FLR of the VF's function.
    assert_eq!(vf_mmio(&mut h, 1, [0x5507, 0, 0, 0])[0], mmio::success(0));
    assert!(!h.rf.guc().vf_ct_enabled(1));
    // It must register again: the keys went with the reset.
    assert_eq!(
        vf_mmio(&mut h, 1, [0x4509, 1, 0, 0])[0],
        mmio::failure(abi::error::CTB_NOT_REGISTERED)
    );
    for (key, len, v) in keys {
        assert_eq!(self_cfg(&mut h, key, len, v), mmio::success(1), "{key:#x}");
    }
    // Clean descriptors, as upstream's VF leaves them before an enable.
    for d in 0..16 {
        h.vf_put32(VF_H2G_DESC + 4 * d, 0);
        h.vf_put32(VF_G2H_DESC + 4 * d, 0);
    }
    assert_eq!(vf_mmio(&mut h, 1, [0x4509, 1, 0, 0])[0], mmio::success(0));
    assert!(h.rf.guc().vf_ct_enabled(1));
    h.sriov_control("vf:flr:1");
    assert!(!h.rf.guc().vf_ct_enabled(1));
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
}
