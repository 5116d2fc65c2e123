//! The LMTT's translation cache (`ct/sriov/lmtt.rs`): emptied by
//! `TLB_INVALIDATION_ALL` (`ct/tlb.rs`), a new `LMEM_CFG` and a device
//! reset, and the rule that every VF with local memory translates as the
//! cache was last emptied when the GuC lets a VF run.

use super::*;
use crate::regfile::guc::ct::sriov::lmtt::STALE;

/// `TLB_INVALIDATION_ALL` as a FAST_REQUEST and as a REQUEST.
const ALL_FAST: u32 = 2 << 28 | 0x7002;
const ALL: u32 = 0x7002;
/// `TLB_INVALIDATION` as a FAST_REQUEST.
const INVAL_FAST: u32 = 2 << 28 | 0x7000;
/// `MAKE_INVAL_OP(XE_GUC_TLB_INVAL_FULL)`: type 0, mode HEAVY (0),
/// FLUSH_CACHE.
const FULL: u32 = 1 << 31;
/// `TLB_INVALIDATION_DONE` EVENT header.
const DONE: u32 = 0x9000_7001;
/// A third leaf, above VF 2's.
const LEAF3: u64 = 0x79_0000;
/// VF 3's GGTT range: above VF 2's.
const VF3_GGTT: u64 = VF2_GGTT + VF_GGTT_SIZE;
/// 2 MiB pages the VFs get (beyond the fake memory, so they read clear).
const P4: u32 = 4;
const P5: u32 = 5;
const P6: u32 = 6;
const P7: u32 = 7;

/// `LMEM_CFG` with `LMEM_EN` and the directory at [`DIR`].
fn root() -> u32 {
    1 << 31 | (DIR >> 16) as u32
}

impl H {
    /// `TLB_INVALIDATION_ALL` as upstream sends it (`send_tlb_inval_all`);
    /// the DONE {seqno} it waits for comes back.
    fn invalidate_all(&mut self, seqno: u32) {
        let from = self.desc(G2H_DESC_LMEM)[1];
        self.send(&[(0x20, &[ALL_FAST, seqno, FULL])]);
        let to = self.desc(G2H_DESC_LMEM)[1];
        assert_eq!(self.g2h(from, to - from), [ctb(0, 2), DONE, seqno]);
    }

    /// The GuC loaded again and the CT registered and enabled on zeroed
    /// buffers, after a reset.
    fn ct_again(&mut self) {
        self.load_ready();
        self.bus.map_lmem(H2G_GGTT, H2G_LMEM, &[0; 0x2000]);
        self.bus.map_lmem(G2H_GGTT, G2H_LMEM, &vec![0; 0x2_1000]);
        assert_eq!(self.register(&LAYOUT), [mmio::success(1); 6]);
        assert_eq!(self.mmio(&ENABLE), mmio::success(0));
    }

    /// The `cause` of each `lmtt_tlb_invalidate`.
    fn lmtt_causes(&mut self) -> Vec<String> {
        self.events("lmtt_tlb_invalidate")
            .iter()
            .map(|e| e["cause"].as_str().unwrap_or("").to_string())
            .collect()
    }
}

/// `TLB_INVALIDATION_ALL` (0x7002) as upstream sends it: both TLBs the mock
/// models emptied, DONE {seqno} unless the seqno says none is wanted; the
/// checks of `TLB_INVALIDATION`; a REQUEST is answered too. Only the full
/// type of `_ALL` empties the LMTT's cache.
#[test]
fn tlb_invalidation_all_empties_every_tlb() {
    let mut h = H::sriov_ready();
    h.lmtt(1, LEAF1, &[P4, P5]);
    h.w(LMEM_CFG, root());
    h.lmtt(2, LEAF2, &[P6]);
    let ggtt = h.events("ggtt_tlb_invalidate").len();
    h.send(&[
        (0x8001, &[ALL_FAST, 5, FULL]),
        (0x8002, &[ALL_FAST, 0x10_0000, FULL]),
        (0x8003, &[ALL_FAST, 6, 9]),
        (0x8004, &[ALL_FAST, 7]),
        (0x8005, &[ALL_FAST, 8, 3]),
        (0x8006, &[INVAL_FAST, 9, 0]),
    ]);
    assert_eq!(
        h.g2h(0, 13),
        [
            ctb(0x8003, 1),
            failure(abi::error::INVALID_PARAMS),
            ctb(0x8004, 1),
            failure(abi::error::INVALID_SIZE),
            ctb(0, 2),
            DONE,
            5,
            ctb(0, 2),
            DONE,
            8,
            ctb(0, 2),
            DONE,
            9,
        ]
    );
    assert_eq!(h.kind("guc_tlb_bad"), 2);
    let bad = h.details("guc_tlb_bad");
    assert!(
        bad[0].starts_with("TLB_INVALIDATION_ALL type 9") && bad[1].contains("of 2 dwords"),
        "{bad:?}"
    );
    // The GGTT TLB: both full ones and the GuC type.
    assert_eq!(h.events("ggtt_tlb_invalidate").len(), ggtt + 3);
    // The LMTT's: the root's, then the two full ones (VF 2's leaf is new).
    assert_eq!(
        h.lmtt_causes(),
        ["lmem_cfg", "tlb_invalidation_all", "tlb_invalidation_all"]
    );
    let ev = &h.events("lmtt_tlb_invalidate")[1];
    assert_eq!(
        (&ev["vfs"], &ev["pages"], &ev["changed"]),
        (&2.into(), &3.into(), &1.into())
    );
    // A REQUEST: SUCCESS, then DONE.
    let (reply, rest) = h.req(&[ALL, 10, FULL]);
    assert_eq!((reply, rest), (mmio::success(0), vec![ctb(0, 2), DONE, 10]));
    let s = h.sriov_summary();
    assert_eq!((s.lmtt_invalidations, s.lmtt_stale), (3, 0));
    assert!(h.rec.summary(false).ct.unknown_actions.is_empty());
}

/// Upstream's order (`pf_provision_vf_lmem`, `pf_update_vf_lmtt`): the
/// VF's leaf written, a full invalidation, then `LMEM_SIZE` pushed; a
/// re-provisioning pushes `LMEM_SIZE` 0, drops the leaf with an
/// invalidation (`lmtt_drop_pages`) and provisions again. FLR and
/// pause/resume in between. No violation anywhere.
#[test]
fn a_pf_that_invalidates_after_each_leaf_meets_the_rule() {
    let mut h = H::sriov_ready();
    h.stamp(VF1_GGTT, 16, 1);
    h.stamp(VF2_GGTT, 16, 2);
    h.w(LMEM_CFG, root());
    h.lmtt(1, LEAF1, &[P4, P5]);
    h.invalidate_all(1);
    assert_eq!(
        h.update(1, &full(VF1_GGTT, (0, 16), (0, 4), 2 * MIB2)),
        mmio::success(9)
    );
    h.lmtt(2, LEAF2, &[P6, P7]);
    h.invalidate_all(2);
    assert_eq!(
        h.update(2, &full(VF2_GGTT, (16, 16), (4, 4), 2 * MIB2)),
        mmio::success(9)
    );
    let ok = mmio::success(0);
    assert_eq!(h.vf_control(1, 4).0, ok);
    assert_eq!(h.vf_control(1, 5).0, ok);
    assert_eq!(h.vf_control(2, 1).0, ok);
    assert_eq!(h.vf_control(2, 2).0, ok);
    // VF 1 re-provisioned with one page.
    assert_eq!(h.update(1, &klv64(key::LMEM_SIZE, 0)), mmio::success(1));
    h.put_lmem32(DIR + 4, 0);
    h.invalidate_all(3);
    h.lmtt(1, LEAF3, &[P5]);
    h.invalidate_all(4);
    assert_eq!(h.update(1, &klv64(key::LMEM_SIZE, MIB2)), mmio::success(1));
    assert_eq!(h.vf_control(1, 4).0, ok);
    assert_eq!(h.vf_control(1, 5).0, ok);
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
    let s = h.sriov_summary();
    assert_eq!((s.lmtt_invalidations, s.lmtt_stale), (4, 0));
    assert!(h.events("lmtt_stale").is_empty());
}

/// A push without the invalidation, and an FLR_FINISH or RESUME after a
/// leaf change without one: `lmtt_stale`, once per VF until the cache is
/// emptied. The GuC still accepts the messages.
#[test]
fn a_change_without_the_invalidation_is_stale() {
    let mut h = H::sriov_ready();
    h.stamp(VF1_GGTT, 16, 1);
    h.w(LMEM_CFG, root());
    h.lmtt(1, LEAF1, &[P4, P5]);
    assert_eq!(
        h.update(1, &full(VF1_GGTT, (0, 16), (0, 4), 2 * MIB2)),
        mmio::success(9)
    );
    assert_eq!(h.kind(STALE), 1);
    let d = h.details(STALE);
    assert!(
        d[0].starts_with(
            "VF 1: its LMTT changed since the last TLB invalidation (TLB_INVALIDATION_ALL): \
             the hardware may still translate with the old entries (now the leaf at LMEM \
             0x710000 mapping 2 pages, at the last invalidation no valid directory entry; at \
             vf_cfg of VF 1)"
        ),
        "{d:?}"
    );
    let ev = h.events("lmtt_stale");
    assert_eq!(
        (&ev[0]["vf"], &ev[0]["at"], &ev[0]["by"]),
        (&1.into(), &"vf_cfg".into(), &1.into())
    );
    // Reported once until the cache is emptied.
    assert_eq!(
        h.update(1, &klv(key::EXEC_QUANTUM, &[20])),
        mmio::success(1)
    );
    assert_eq!(h.kind(STALE), 1);
    // FLR_FINISH after a leaf entry changed (page 5 -> 6).
    h.invalidate_all(1);
    let ok = mmio::success(0);
    assert_eq!(h.vf_control(1, 4).0, ok);
    h.lmtt(1, LEAF1, &[P4, P6]);
    assert_eq!(h.vf_control(1, 5).0, ok);
    assert_eq!(h.kind(STALE), 2);
    assert!(
        h.details(STALE)[1].contains(
            "(its leaf entry 1 maps LMEM 0xc00000, at the last invalidation LMEM 0xa00000; at \
             flr_finish of VF 1)"
        ),
        "{:?}",
        h.details(STALE)
    );
    // RESUME after the leaf moved.
    h.invalidate_all(2);
    assert_eq!(h.vf_control(1, 1).0, ok);
    h.lmtt(1, LEAF3, &[P4, P6]);
    assert_eq!(h.vf_control(1, 2).0, ok);
    assert_eq!(h.kind(STALE), 3);
    assert!(
        h.details(STALE)[2].contains(
            "(now the leaf at LMEM 0x790000 mapping 2 pages, at the last invalidation the leaf \
             at LMEM 0x710000 mapping 2 pages; at resume of VF 1)"
        ),
        "{:?}",
        h.details(STALE)
    );
    // FLR_START and PAUSE are no rule points; neither is a VF without
    // LMEM_SIZE, nor a reset configuration.
    h.invalidate_all(3);
    h.lmtt(1, LEAF1, &[P7]);
    assert_eq!(h.vf_control(1, 1).0, ok);
    assert_eq!(h.vf_control(1, 4).0, ok);
    assert_eq!(h.update(1, &klv64(key::LMEM_SIZE, 0)), mmio::success(1));
    assert_eq!(h.req(&[UPDATE, 1, 0, 0, 0]).0, mmio::success(0));
    assert_eq!(h.kind(STALE), 3);
    let s = h.sriov_summary();
    assert_eq!((s.lmtt_invalidations, s.lmtt_stale), (3, 3));
}

/// Every configured VF with local memory is checked at each rule point:
/// VF 1's leaf changed after VF 2's push, with no invalidation after it,
/// is found at VF 3's push, which itself is clean.
#[test]
fn another_vfs_change_is_found_at_the_next_push() {
    let mut h = H::sriov_ready();
    h.stamp(VF1_GGTT, 16, 1);
    h.stamp(VF2_GGTT, 16, 2);
    h.stamp(VF3_GGTT, 16, 3);
    h.w(LMEM_CFG, root());
    h.lmtt(1, LEAF1, &[P4, P5]);
    h.invalidate_all(1);
    assert_eq!(
        h.update(1, &full(VF1_GGTT, (0, 16), (0, 4), 2 * MIB2)),
        mmio::success(9)
    );
    h.lmtt(2, LEAF2, &[P6]);
    h.invalidate_all(2);
    assert_eq!(
        h.update(2, &full(VF2_GGTT, (16, 16), (4, 4), MIB2)),
        mmio::success(9)
    );
    h.lmtt(3, LEAF3, &[P7]);
    h.invalidate_all(3);
    // VF 1 gives its second page back; nobody invalidates.
    h.put_lmem32(LEAF1 + 4, 0);
    assert_eq!(
        h.update(3, &full(VF3_GGTT, (32, 16), (8, 4), MIB2)),
        mmio::success(9)
    );
    let ev = h.events("lmtt_stale");
    assert_eq!(ev.len(), 1, "{ev:?}");
    assert_eq!(
        (&ev[0]["vf"], &ev[0]["at"], &ev[0]["by"]),
        (&1.into(), &"vf_cfg".into(), &3.into())
    );
    assert_eq!(
        ev[0]["detail"],
        "its leaf entry 1 maps nothing, at the last invalidation LMEM 0xa00000"
    );
    assert!(
        h.details(STALE)[0].starts_with("VF 1: its LMTT changed"),
        "{:?}",
        h.details(STALE)
    );
    assert_eq!(h.kinds(), [(STALE.to_string(), 1)].into());
}

/// A GT reset the upstream way (`GRDOM_FULL` puts `LMEM_CFG` back to 0, the
/// PF writes it again, `xe_lmtt_init_hw`, and pushes its configurations
/// again over unchanged tables) is clean; a GuC reset alone keeps the cache
/// (a change before it is stale after it); a device reset empties it and
/// forgets what was reported.
#[test]
fn resets_and_the_cache() {
    let mut h = H::sriov_ready();
    h.stamp(VF1_GGTT, 16, 1);
    let cfg = full(VF1_GGTT, (0, 16), (0, 4), 2 * MIB2);
    h.w(LMEM_CFG, root());
    h.lmtt(1, LEAF1, &[P4, P5]);
    h.invalidate_all(1);
    assert_eq!(h.update(1, &cfg), mmio::success(9));
    h.w(GDRST, regs::guc::GRDOM_FULL.mask32());
    h.us(100);
    h.w(LMEM_CFG, root());
    h.ct_again();
    assert_eq!(h.update(1, &cfg), mmio::success(9));
    assert_eq!(h.kind(STALE), 0);
    assert_eq!(
        h.lmtt_causes(),
        ["lmem_cfg", "tlb_invalidation_all", "lmem_cfg", "lmem_cfg"]
    );
    let ev = h.events("lmtt_tlb_invalidate");
    assert_eq!((&ev[2]["vfs"], &ev[3]["vfs"]), (&0.into(), &1.into()));

    // GuC reset alone.
    h.lmtt(1, LEAF1, &[P4, P6]);
    h.ct_again();
    assert_eq!(h.update(1, &cfg), mmio::success(9));
    assert_eq!(h.kind(STALE), 1);

    // Device reset: LMEM_CFG 0, the cache empty, nothing reported yet.
    let now = h.clock.now();
    h.rf.reset(now, &mut h.rec);
    awake(&mut h.rf, &mut h.rec, &h.clock, &[Domain::GT]);
    let ev = h.events("lmtt_tlb_invalidate");
    let last = ev.last().expect("reset");
    assert_eq!((&last["cause"], &last["vfs"]), (&"reset".into(), &0.into()));
    h.ct_again();
    h.w(LMEM_CFG, root());
    assert_eq!(h.update(1, &cfg), mmio::success(9));
    assert_eq!(h.kind(STALE), 1, "the tables as the new root found them");
    h.lmtt(1, LEAF1, &[P4, P7]);
    assert_eq!(h.update(1, &cfg), mmio::success(9));
    assert_eq!(h.kind(STALE), 2, "VF 1 reported again");
    // A device reset with nothing cached is not traced.
    let n = h.events("lmtt_tlb_invalidate").len();
    let now = h.clock.now();
    h.rf.reset(now, &mut h.rec);
    h.rf.reset(now, &mut h.rec);
    assert_eq!(h.events("lmtt_tlb_invalidate").len(), n + 1);
}
