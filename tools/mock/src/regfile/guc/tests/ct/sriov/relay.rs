//! The GuC's relay between the VFs' drivers and the PF, and the mock's VF
//! side (`ct/sriov/relay.rs`): `PF2GUC_RELAY_TO_VF` over CT, the
//! `vf:relay` controls, and the VF's checks of each answer.

use super::*;
use crate::regfile::guc::ct::sriov::relay::RUNTIME_REGS;

/// `PF2GUC_RELAY_TO_VF` REQUEST header (upstream's `prepare_pf2guc`).
const TO_VF: u32 = 0x5101;
/// `GUC2PF_RELAY_FROM_VF` EVENT header.
const FROM_VF: u32 = 0x9000_0000 | 0x5100;
/// Relay answers of host origin: SUCCESS, FAILURE, BUSY, RETRY.
const OK: u32 = 0x7000_0000;
const FAIL: u32 = 0x6000_0000;
const BUSY: u32 = 0x3000_0000;
const RETRY: u32 = 0x5000_0000;
/// `VF2PF_HANDSHAKE` for 1.0, `VF2PF_QUERY_RUNTIME` without a limit.
const HANDSHAKE: u32 = 0x0001;
const QUERY: u32 = 0x0101;
const V1_0: u32 = 0x0001_0000;

/// ATS-M150's runtime registers as the mock models them, in upstream's
/// order (`ats_m_runtime_regs`).
const RUNTIME: [(u32, u32); 8] = [
    (0x0D00, 0x16),
    (0x9118, 0xF),
    (0x911C, 0),
    (0x9134, 0xFF),
    (0x913C, 0xFFFF_FFFF),
    (0x9140, 0x0003_0005),
    (0x9144, 0xFFFF_FFFF),
    (0xC1DC, 0),
];

/// The pairs of entries `start..start + count`, as a PF answers them.
fn pairs(start: usize, count: usize) -> Vec<u32> {
    RUNTIME[start..start + count]
        .iter()
        .flat_map(|&(o, v)| [o, v])
        .collect()
}

/// A SUCCESS to `VF2PF_QUERY_RUNTIME`: COUNT, REMAINING, the pairs.
fn runtime_answer(start: usize, count: usize) -> Vec<u32> {
    let mut m = vec![OK | count as u32, (8 - start - count) as u32];
    m.extend(pairs(start, count));
    m
}

impl H {
    /// The CT enabled, VFs 1 and 2 configured.
    fn relay_ready() -> H {
        let mut h = H::sriov_ready();
        for vf in [1, 2] {
            let ctx = [
                klv(key::BEGIN_CONTEXT_ID, &[4 * vf]),
                klv(key::NUM_CONTEXTS, &[4]),
            ]
            .concat();
            assert_eq!(h.update(vf, &ctx), mmio::success(2));
        }
        h
    }

    /// The PF's `PF2GUC_RELAY_TO_VF` {vf, rid, msg}: the GuC's reply and
    /// what it wrote after it.
    fn pf_relay(&mut self, vf: u32, rid: u32, msg: &[u32]) -> (u32, Vec<u32>) {
        self.req(&[&[TO_VF, vf, rid][..], msg].concat())
    }

    /// Carries out `text` and returns what the GuC wrote to G2H for it.
    fn relayed(&mut self, text: &str) -> Vec<u32> {
        let from = self.desc(G2H_DESC_LMEM)[1];
        self.sriov_control(text);
        let to = self.desc(G2H_DESC_LMEM)[1];
        self.g2h(from, to - from)
    }

    /// VF `vf` agrees 1.0 with RID `rid`.
    fn agree(&mut self, vf: u32, rid: u32) {
        self.relayed(&format!("vf:relay:{vf}:{rid}:{HANDSHAKE:x},{V1_0:x}"));
        assert_eq!(self.pf_relay(vf, rid, &[OK, V1_0]).0, mmio::success(0));
    }

    fn relay_events(&mut self) -> Vec<Value> {
        self.events("sriov_relay")
    }
}

/// What the mock reads as the runtime registers is what the tests expect,
/// every one of upstream's list modelled.
#[test]
fn the_runtime_registers_are_modelled() {
    let h = H::relay_ready();
    let got: Vec<(u32, u32)> = RUNTIME_REGS
        .iter()
        .map(|r| (r.offset, h.rf.peek(r.offset).expect("modelled")))
        .collect();
    assert_eq!(got, RUNTIME);
    assert_eq!(RUNTIME_REGS[0].name, "RPM_CONFIG0");
    assert_eq!(RUNTIME_REGS[7].name, "HUC_KERNEL_LOAD_INFO");
}

#[test]
fn relay_to_vf_refusals() {
    let mut h = H::relay_ready();
    let invalid = failure(abi::error::INVALID_PARAMS);
    // Too short: no relay message. (Too long cannot come over CT: a CTB
    // header counts at most 255 dwords, 3 + 252.)
    assert_eq!(h.req(&[TO_VF, 1, 5]).0, invalid);
    // DATA0 (MBZ) set.
    assert_eq!(h.req(&[TO_VF | 1 << 16, 1, 5, OK]).0, invalid);
    // VFID 0, 64.
    assert_eq!(h.pf_relay(0, 5, &[OK]).0, invalid);
    assert_eq!(h.pf_relay(64, 5, &[OK]).0, invalid);
    // VF 3 has no configuration.
    assert_eq!(h.pf_relay(3, 5, &[OK]).0, invalid);
    assert_eq!(h.kind("guc_sriov_bad"), 5);
    assert_eq!(h.kind("relay_bad_answer"), 0, "nothing reached a VF");
    let details = h.details("guc_sriov_bad");
    assert!(
        details[0].starts_with("PF2GUC_RELAY_TO_VF: 3 dwords"),
        "{details:?}"
    );
    assert!(
        details[4].contains("VF 3 has no configuration"),
        "{details:?}"
    );
    let ev = h.relay_events();
    assert_eq!(ev.len(), 5);
    assert!(ev
        .iter()
        .all(|e| e["verdict"] == "refused" && e["code"] == "0x60"));
    assert_eq!(ev[0]["kind"], "none");
    assert_eq!(h.sriov_summary().relay_refused, 5);
}

#[test]
fn relay_to_vf_success_delivers_to_the_vf() {
    let mut h = H::relay_ready();
    // The longest message (252 dwords) reaches the VF: here an answer to
    // nothing, which the VF refuses.
    assert_eq!(h.pf_relay(2, 9, &vec![OK; 252]).0, mmio::success(0));
    assert_eq!(h.kind("guc_sriov_bad"), 0);
    assert_eq!(h.kind("relay_bad_answer"), 1);
    // As a FAST_REQUEST (the DOC table's type): no reply at all.
    h.relayed(&format!("vf:relay:1:7:{HANDSHAKE:x},{V1_0:x}"));
    let tail = h.desc(G2H_DESC_LMEM)[1];
    let fast = 2 << 28 | TO_VF;
    h.send(&[(0x11, &[fast, 1, 7, OK, V1_0])]);
    assert_eq!(
        h.desc(G2H_DESC_LMEM)[1],
        tail,
        "a FAST_REQUEST gets no SUCCESS"
    );
    assert_eq!(
        h.rf.guc().sriov().relay().version(1),
        Some((1, 0)),
        "delivered and taken"
    );
    assert_eq!(h.kind("relay_bad_answer"), 1);
}

#[test]
fn a_good_handshake_is_agreed() {
    let mut h = H::relay_ready();
    let g2h = h.relayed("vf:relay:1:5:1,10000");
    assert_eq!(g2h, [ctb(0, 5), FROM_VF, 1, 5, HANDSHAKE, V1_0]);
    assert!(h.rf.guc().sriov().relay().waits(1, 5));
    let (reply, after) = h.pf_relay(1, 5, &[OK, V1_0]);
    assert_eq!((reply, after), (mmio::success(0), vec![]));
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
    let s = h.sriov_summary();
    assert_eq!(s.relay_versions, [("1".into(), "1.0".into())].into());
    assert_eq!(
        (s.relay_sent, s.relay_answered_success, s.relay_outstanding),
        (1, 1, 0)
    );
    let ev = h.relay_events();
    assert_eq!(ev[0]["dir"], "to_pf");
    assert_eq!(ev[0]["configured"], true);
    assert_eq!(ev[0]["action"], "0x1");
    assert_eq!(ev[1]["dir"], "to_vf");
    assert_eq!(ev[1]["verdict"], "ok");
    assert_eq!(ev[1]["version"], "1.0");
    // "Any" (0.0) takes whatever the PF has; a VF without a configuration
    // still reaches the PF (the PF must check).
    h.relayed("vf:relay:2:0x10:1,0");
    assert_eq!(h.pf_relay(2, 0x10, &[OK, V1_0]).0, mmio::success(0));
    assert_eq!(h.rf.guc().sriov().relay().version(2), Some((1, 0)));
    h.relayed("vf:relay:3:1:1,10000");
    assert_eq!(h.relay_events().last().expect("event")["configured"], false);
}

#[test]
fn bad_handshake_answers() {
    let mut h = H::relay_ready();
    let cases: [(&str, &str, Vec<u32>, &str); 6] = [
        (
            "newer",
            "10000",
            vec![OK, 0x0001_0001],
            "newer than the 1.0",
        ),
        ("0.0", "10000", vec![OK, 0], "version 0.0"),
        ("three dwords", "10000", vec![OK, V1_0, 0], "with 3 dwords"),
        ("DATA0", "10000", vec![OK | 1, V1_0], "DATA0 (27:0) is 0x1"),
        (
            "below base",
            "5",
            vec![OK, 5],
            "below GUC_RELAY_VERSION_BASE",
        ),
        (
            "minor above",
            "20000",
            vec![OK, 0x0002_0001],
            "newer than the 2.0",
        ),
    ];
    for (i, (what, wanted, answer, says)) in cases.iter().enumerate() {
        let rid = 100 + i as u32;
        h.relayed(&format!("vf:relay:1:{rid}:1,{wanted}"));
        assert_eq!(h.pf_relay(1, rid, answer).0, mmio::success(0), "{what}");
        let d = h.details("relay_bad_answer");
        assert_eq!(d.len(), i + 1, "{what}");
        assert!(
            d[i].starts_with(&format!("PF2GUC_RELAY_TO_VF to VF 1, RID {rid:#x}: "))
                && d[i].contains(says),
            "{what}: {}",
            d[i]
        );
        assert_eq!(h.rf.guc().sriov().relay().version(1), None, "{what}");
    }
    // The PF's latest for a newer major is fine.
    h.relayed("vf:relay:1:200:1,20000");
    assert_eq!(h.pf_relay(1, 200, &[OK, V1_0]).0, mmio::success(0));
    assert_eq!(h.rf.guc().sriov().relay().version(1), Some((1, 0)));
    let s = h.sriov_summary();
    assert_eq!((s.relay_bad_answers, s.relay_answered_success), (6, 7));
    assert_eq!(s.relay_versions["1"], "1.0");
}

#[test]
fn query_runtime_over_the_whole_list() {
    let mut h = H::relay_ready();
    h.agree(1, 1);
    h.relayed(&format!("vf:relay:1:2:{QUERY:x},0"));
    assert_eq!(h.pf_relay(1, 2, &runtime_answer(0, 8)).0, mmio::success(0));
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
    let s = h.sriov_summary();
    assert_eq!(s.relay_runtime_entries_checked, 8);
    assert_eq!(h.relay_events().last().expect("event")["entries"], 8);
}

#[test]
fn query_runtime_paged() {
    let mut h = H::relay_ready();
    h.agree(2, 1);
    // LIMIT 3 (DATA0 27:16), START 0, 3, 6: upstream's paging.
    let limited = 3 << 16 | QUERY;
    for (rid, start, count) in [(2, 0, 3), (3, 3, 3), (4, 6, 2)] {
        h.relayed(&format!("vf:relay:2:{rid}:{limited:x},{start}"));
        let answer = runtime_answer(start, count);
        assert_eq!(h.pf_relay(2, rid, &answer).0, mmio::success(0));
    }
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
    assert_eq!(h.sriov_summary().relay_runtime_entries_checked, 8);
    // More than the limit, a count that is not the pairs, a total that is
    // not the list's.
    let cases: [(Vec<u32>, u32, &str); 4] = [
        (
            runtime_answer(0, 4),
            limited,
            "COUNT 4 is above the LIMIT 3",
        ),
        (
            [vec![OK | 2, 5], pairs(0, 3)].concat(),
            QUERY,
            "COUNT (DATA0) is 2 but 3 entries follow",
        ),
        (
            vec![OK | 2, 0, 0xD00, 0x16, 0x9118],
            QUERY,
            "answered with 5 dwords",
        ),
        (
            [vec![OK | 2, 9], pairs(0, 2)].concat(),
            QUERY,
            "START 0 + COUNT 2 + REMAINING 9 is not 8",
        ),
    ];
    for (i, (answer, hdr, says)) in cases.iter().enumerate() {
        let rid = 10 + i as u32;
        h.relayed(&format!("vf:relay:2:{rid}:{hdr:x},0"));
        assert_eq!(h.pf_relay(2, rid, answer).0, mmio::success(0));
        let d = h.details("relay_bad_answer");
        assert!(d[i].contains(says), "{says}: {}", d[i]);
    }
    assert_eq!(h.kind("relay_bad_answer"), 4);
}

#[test]
fn query_runtime_wrong_value_and_wrong_register() {
    let mut h = H::relay_ready();
    h.agree(1, 1);
    h.relayed(&format!("vf:relay:1:2:{QUERY:x},0"));
    let mut answer = runtime_answer(0, 8);
    // RPM_CONFIG0's value (a 24 MHz crystal), and entry 5 naming 0x9148.
    answer[3] = 0;
    answer[2 + 2 * 5] = 0x9148;
    assert_eq!(h.pf_relay(1, 2, &answer).0, mmio::success(0));
    let d = h.details("relay_bad_answer");
    assert_eq!(d.len(), 2, "{d:?}");
    assert!(
        d[0].ends_with(
            "runtime value of RPM_CONFIG0 (0xd00): PF said 0x0, the register holds 0x16"
        ),
        "{}",
        d[0]
    );
    assert!(
        d[1].contains(
            "runtime entry 5: register 0x9148; upstream's list has GT_VEBOX_VDBOX_DISABLE (0x9140)"
        ),
        "{}",
        d[1]
    );
    let s = h.sriov_summary();
    assert_eq!(
        (s.relay_runtime_entries_checked, s.relay_bad_answers),
        (6, 1)
    );
    assert_eq!(h.relay_events().last().expect("event")["verdict"], "bad");
}

#[test]
fn query_runtime_needs_an_agreed_version() {
    let mut h = H::relay_ready();
    h.relayed(&format!("vf:relay:1:2:{QUERY:x},0"));
    assert_eq!(h.pf_relay(1, 2, &runtime_answer(0, 8)).0, mmio::success(0));
    let d = h.details("relay_bad_answer");
    assert!(d[0].contains("-EACCES"), "{}", d[0]);
    // Refusing is the PF's right: FAILURE, error 13 (EACCES).
    h.relayed(&format!("vf:relay:1:3:{QUERY:x},0"));
    assert_eq!(h.pf_relay(1, 3, &[FAIL | 13]).0, mmio::success(0));
    assert_eq!(h.kind("relay_bad_answer"), 1);
    let ev = h.relay_events();
    assert_eq!(ev.last().expect("event")["error"], "0xd");
    assert_eq!(h.sriov_summary().relay_answered_failure, 1);
}

#[test]
fn answers_to_nothing_and_second_answers() {
    let mut h = H::relay_ready();
    assert_eq!(h.pf_relay(1, 0x77, &[OK, V1_0]).0, mmio::success(0));
    h.agree(1, 5);
    assert_eq!(h.pf_relay(1, 5, &[OK, V1_0]).0, mmio::success(0), "again");
    // Another VF's RID is not this VF's.
    h.relayed("vf:relay:2:6:1,10000");
    assert_eq!(h.pf_relay(1, 6, &[FAIL]).0, mmio::success(0));
    let d = h.details("relay_bad_answer");
    assert_eq!(d.len(), 3);
    for (x, rid) in d.iter().zip(["0x77", "0x5", "0x6"]) {
        assert!(
            x.contains(&format!(
                "answer to a relay the VF never sent: VF 1 waits for no RID {rid}"
            )),
            "{x}"
        );
    }
    let s = h.sriov_summary();
    assert_eq!(
        (
            s.relay_bad_answers,
            s.relay_answered_success,
            s.relay_outstanding
        ),
        (3, 1, 1)
    );
    assert_eq!(h.relay_events()[0]["verdict"], "unknown_rid");
}

#[test]
fn busy_retry_failure_and_messages_a_vf_cannot_take() {
    let mut h = H::relay_ready();
    h.agree(1, 1);
    h.relayed(&format!("vf:relay:1:2:{HANDSHAKE:x},{V1_0:x}"));
    // BUSY: still waiting. RETRY: the same request again, same RID.
    assert_eq!(h.pf_relay(1, 2, &[BUSY]), (mmio::success(0), vec![]));
    assert!(h.rf.guc().sriov().relay().waits(1, 2));
    let (reply, resent) = h.pf_relay(1, 2, &[RETRY]);
    assert_eq!(reply, mmio::success(0));
    assert_eq!(resent, [ctb(0, 5), FROM_VF, 1, 2, HANDSHAKE, V1_0]);
    // A refused handshake leaves the VF without a version.
    assert_eq!(h.pf_relay(1, 2, &[FAIL | 1 << 16 | 22]).0, mmio::success(0));
    assert_eq!(h.rf.guc().sriov().relay().version(1), None);
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
    let s = h.sriov_summary();
    assert_eq!(
        (
            s.relay_sent,
            s.relay_answered_other,
            s.relay_answered_failure
        ),
        (3, 2, 1)
    );
    assert!(s.relay_versions.is_empty());
    let ev = h.relay_events();
    let verdicts: Vec<&str> = ev
        .iter()
        .map(|e| e["verdict"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        verdicts,
        ["queued", "ok", "queued", "busy", "retry", "resent", "failure"]
    );
    assert_eq!(ev[6]["error"], "0x16");
    // A request from the PF, a message of GuC origin, type 4.
    h.relayed("vf:relay:1:3:1,10000");
    for msg in [0x0000_0001, 0x8000_0000 | OK, 0x4000_0000] {
        assert_eq!(h.pf_relay(1, 3, &[msg, V1_0]).0, mmio::success(0));
    }
    let d = h.details("relay_bad_answer");
    assert!(
        d[0].contains("a request (action 0x0001) from the PF"),
        "{}",
        d[0]
    );
    assert!(d[1].contains("of GuC origin"), "{}", d[1]);
    assert!(d[2].contains("type 4 is no HXG type"), "{}", d[2]);
    assert!(h.rf.guc().sriov().relay().waits(1, 3), "none answered it");
    // A SUCCESS to an action ABI 1.0 does not define; the debug range is
    // taken.
    h.relayed("vf:relay:1:4:1234");
    h.relayed("vf:relay:1:5:deb1");
    assert_eq!(h.pf_relay(1, 4, &[OK]).0, mmio::success(0));
    assert_eq!(h.pf_relay(1, 5, &[OK]).0, mmio::success(0));
    let d = h.details("relay_bad_answer");
    assert_eq!(d.len(), 4);
    assert!(d[3].contains("SUCCESS to action 0x1234"), "{}", d[3]);
}

#[test]
fn a_burst_queues_count_events() {
    let mut h = H::relay_ready();
    let g2h = h.relayed("vf:relay-burst:2:64");
    assert_eq!(g2h.len(), 64 * 6);
    for (i, m) in g2h.chunks_exact(6).enumerate() {
        assert_eq!(
            m,
            [ctb(0, 5), FROM_VF, 2, 0x1000 + i as u32, 1, V1_0],
            "{i}"
        );
    }
    let s = h.sriov_summary();
    assert_eq!((s.relay_sent, s.relay_outstanding), (64, 64));
    // The next burst goes on from there; answers take them one by one.
    let g2h = h.relayed("vf:relay-burst:2:1");
    assert_eq!(g2h[3], 0x1040);
    assert_eq!(h.pf_relay(2, 0x1000, &[OK, V1_0]).0, mmio::success(0));
    assert_eq!(h.sriov_summary().relay_outstanding, 64);
    // A RID still awaited sends nothing.
    assert!(h.relayed("vf:relay:2:0x1001:1,10000").is_empty());
    let inj = h.events("sriov_inject");
    assert_eq!(inj.last().expect("event")["result"], "rid_outstanding");
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
}

#[test]
fn flr_and_resets_forget_the_relays() {
    let mut h = H::relay_ready();
    h.agree(1, 1);
    h.agree(2, 1);
    h.relayed("vf:relay-burst:1:3");
    h.relayed("vf:relay-burst:2:2");
    assert_eq!(h.sriov_summary().relay_outstanding, 5);
    // The host's FLR of VF 1: its relays and version are gone, VF 2's not.
    h.sriov_control("vf:flr:1");
    let relay = h.rf.guc().sriov().relay();
    assert_eq!((relay.outstanding(), relay.version(1)), (2, None));
    assert_eq!(relay.version(2), Some((1, 0)));
    let f = h.events("sriov_relay_forget");
    assert_eq!(
        (f[0]["vfid"].clone(), f[0]["dropped"].clone()),
        (1.into(), 3.into())
    );
    assert_eq!(f[0]["cause"], "vf_flr");
    // An answer to what VF 1 sent before: stale, taken until the PF's
    // FLR_FINISH of VF 1; after it, an answer to nothing.
    assert_eq!(h.pf_relay(1, 0x1000, &[OK, V1_0]).0, mmio::success(0));
    assert_eq!(h.relay_events().last().expect("event")["verdict"], "stale");
    assert_eq!(h.kind("relay_bad_answer"), 0);
    assert_eq!(h.vf_control(1, 4).0, mmio::success(0));
    assert_eq!(h.vf_control(1, 5).0, mmio::success(0));
    assert_eq!(h.pf_relay(1, 0x1001, &[OK, V1_0]).0, mmio::success(0));
    assert_eq!(h.kind("relay_bad_answer"), 1);
    // Its next burst starts over.
    assert_eq!(h.relayed("vf:relay-burst:1:1")[3], 0x1000);
    // The PF's FLR_START of VF 2 (VF 1's dropped nothing new).
    assert_eq!(h.vf_control(2, 4).0, mmio::success(0));
    assert_eq!(h.rf.guc().sriov().relay().version(2), None);
    let f = h.events("sriov_relay_forget");
    assert_eq!(f.len(), 2);
    assert_eq!(
        (f[1]["cause"].clone(), f[1]["vfid"].clone()),
        ("flr_start".into(), 2.into())
    );
    let s = h.sriov_summary();
    assert_eq!(s.relay_outstanding, 1);
    assert!(s.relay_versions.is_empty());
    // A GuC reset forgets the rest.
    h.agree(1, 7);
    assert_eq!(h.sriov_summary().relay_versions.len(), 1);
    h.guc_reset();
    assert_eq!(h.rf.guc().sriov().relay().outstanding(), 0);
    let s = h.sriov_summary();
    assert_eq!(s.relay_outstanding, 0);
    assert!(s.relay_versions.is_empty());
}

#[test]
fn raw_events_data0_and_no_channel() {
    let mut h = H::relay_ready();
    // Too short for the PF: {} and {N} alone; nothing awaited.
    assert_eq!(h.relayed("vf:relay-raw:3:"), [ctb(0, 1), FROM_VF]);
    assert_eq!(h.relayed("vf:relay-raw:3:3"), [ctb(0, 2), FROM_VF, 3]);
    assert_eq!(h.rf.guc().sriov().relay().outstanding(), 0);
    // DATA0 set on the next two events, whatever their kind.
    h.sriov_control("guc:relay-data0:2");
    assert_eq!(
        h.relayed("vf:relay-raw:1:1,2"),
        [ctb(0, 3), FROM_VF | 1 << 16, 1, 2]
    );
    assert_eq!(
        h.relayed("vf:relay:1:9:1,10000"),
        [ctb(0, 5), FROM_VF | 1 << 16, 1, 9, 1, V1_0]
    );
    assert_eq!(h.relayed("vf:relay:1:10:1,10000")[1], FROM_VF);
    assert!(h.rf.guc().sriov().relay().waits(1, 9), "the VF still waits");
    let ev = h.relay_events();
    assert_eq!(ev[0]["kind"], "raw");
    assert_eq!(ev[2]["data0"], true);
    assert!(ev[4].get("data0").is_none());
    assert_eq!(h.sriov_summary().relay_sent, 5);
    // Without a channel nothing is sent and nothing awaited.
    assert_eq!(h.mmio(&DISABLE), mmio::success(0));
    h.sriov_control("vf:relay:2:1:1,10000");
    h.sriov_control("vf:relay-burst:2:3");
    h.sriov_control("vf:relay-raw:2:");
    let inj = h.events("sriov_inject");
    assert!(inj[inj.len() - 3..]
        .iter()
        .all(|e| e["result"] == "no_channel"));
    assert_eq!(h.rf.guc().sriov().relay().outstanding(), 2);
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
}
