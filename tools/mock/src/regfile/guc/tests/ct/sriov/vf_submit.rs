//! GuC submission for a VF (`ct/submit.rs`, "A VF's contexts"; the
//! engine's memory-based interrupts, `engine.rs`): VF 1's context, in its
//! own memory behind its GGTT range, registered over its own CT with its
//! own guc_id, run on bcs0, its completion reported through its memirq page.

use super::*;

/// VF 1's pages past its CT (`vf_ct_ready` maps 0-3): the context's
/// PPHWSP and register state, its ring, a data page.
const LRCA: u64 = VF1_GGTT + 4 * PAGE;
const RING: u64 = VF1_GGTT + 6 * PAGE;
const DATA: u64 = VF1_GGTT + 7 * PAGE;
/// The memirq page's parts as upstream lays them out (`xe_memirq.c`:
/// status report at 0, source report at 0x400, enable mask at 0x440).
const STATUS: u64 = VF_MEMIRQ;
const SOURCE: u64 = VF_MEMIRQ + 0x400;
const ENABLE: u64 = VF_MEMIRQ + 0x440;
/// bcs0 (`BLT_RING_BASE`) and its slot in the report pages (its bit in
/// `GT_INTR_DW0`, `INTR_BCS(0)`).
const BCS0: u32 = 0x2_2000;
const BCS0_SLOT: u64 = 15;
/// A status page of the PF's for the engine.
const HWSP_GGTT: u64 = 0x0500_0000;
const HWSP_LMEM: u64 = 0x40_0000;
/// VF 1's contexts (`full`: BEGIN_CONTEXT_ID 1024, NUM_CONTEXTS 256).
const BEGIN: u32 = 1024;
const NUM: u32 = 256;

const SDI_GGTT: u32 = 0x1040_0002;
const MI_USER_INTERRUPT: u32 = 0x0100_0000;
/// `MI_LOAD_REGISTER_MEM | MI_LRI_LRM_CS_MMIO | MI_LRM_USE_GGTT`.
const LRM_CS_GGTT: u32 = 0x29 << 23 | 1 << 22 | 1 << 19 | 2;
/// `MI_LOAD_REGISTER_IMM`, 2 registers, CS-MMIO, force posted.
const LRI2_CS: u32 = 0x22 << 23 | 1 << 19 | 1 << 12 | 3;

impl H {
    /// VF 1's CT registered and enabled, its context pages mapped, bcs0 set
    /// up by the PF for GuC submission, VF 1's interrupts enabled.
    fn vf_submit_ready() -> H {
        let mut h = H::vf_ct_ready();
        h.map_vf_pages(4..8);
        for (key, len, v) in [
            (0x0900, 2, VF_MEMIRQ + 0x190),
            (0x0901, 2, VF_MEMIRQ + 0x419),
            (0x0903, 2, VF_H2G_DESC),
            (0x0902, 2, VF_H2G),
            (0x0904, 1, PAGE),
            (0x0906, 2, VF_G2H_DESC),
            (0x0905, 2, VF_G2H),
            (0x0907, 1, PAGE),
        ] {
            let msg = [0x508, key << 16 | len, v as u32, (v >> 32) as u32];
            assert_eq!(vf_mmio(&mut h, 1, msg)[0], mmio::success(1), "{key:#x}");
        }
        assert_eq!(vf_mmio(&mut h, 1, [0x4509, 1, 0, 0])[0], mmio::success(0));
        h.bus.map_lmem(HWSP_GGTT, HWSP_LMEM, &[0; 0x1000]);
        h.w(BCS0 + 0x80, HWSP_GGTT as u32);
        h.w(BCS0 + 0x29c, 1 << 19 | 1 << 3);
        h.vf_put32(ENABLE, 0xFFFF);
        h
    }

    /// Upstream's xcs image for VF 1 (`xe_lrc.c`, seed 004 L1775-1825): the
    /// ring registers, then the memory-based interrupt setup.
    fn vf_image(&mut self) {
        self.vf_image_with(Some(STATUS));
    }

    /// [`H::vf_image`] with the status report pointer `status`, or without
    /// the interrupt setup at all (`None`).
    fn vf_image_with(&mut self, status: Option<u64>) {
        let b = BCS0;
        let mut img = vec![0, 0x1100_0000 | 1 << 19 | 1 << 12 | (2 * 5 - 1)];
        for (o, v) in [
            (0x244, 0x0009_0009),
            (0x34, 0),
            (0x30, 0),
            (0x38, RING as u32),
            (0x3c, 1),
        ] {
            img.extend([b + o, v]);
        }
        // Closed as upstream's `set_offsets` closes it; the interrupt
        // setup sits past the end, at its place in the layout (dwords
        // 0x50 and 0x55).
        img.push(0x0500_0001);
        img.resize(0x50, 0);
        if let Some(status) = status {
            img.extend([LRM_CS_GGTT, 0xa8, ENABLE as u32, 0, 0]);
            img.extend([LRI2_CS, 0xac, status as u32, 0xa4, SOURCE as u32]);
        }
        for (i, d) in (0u64..).zip(img) {
            self.vf_put32(LRCA + PAGE + 4 * i, d);
        }
    }

    /// The G2H messages in VF 1's CT so far (HXG only).
    fn vf_g2h(&self) -> Vec<Vec<u32>> {
        let tail = self.vf32(VF_G2H_DESC + 4);
        let mut out = Vec::new();
        let mut at = 0;
        while at < tail {
            let n = self.vf32(VF_G2H + 4 * u64::from(at)) & 0xff;
            out.push(
                (1..=n)
                    .map(|i| self.vf32(VF_G2H + 4 * u64::from(at + i)))
                    .collect(),
            );
            at += 1 + n;
        }
        out
    }
}

/// `REGISTER_CONTEXT` of VF 1's blitter context `id` at `lrca`, as `kind`
/// (1 EVENT, as upstream's VF sends it; 0 REQUEST).
fn register(kind: u32, id: u32, lrca: u64) -> Vec<u32> {
    let desc = lrca as u32 | 3 << 3 | 1;
    vec![
        ctb(0x40 + id, 12),
        kind << 28 | 0x4502,
        1,
        id,
        3,
        1,
        0,
        0,
        0,
        0,
        0,
        desc,
        0,
    ]
}

#[test]
fn a_vf_context_runs_with_its_own_id_and_interrupts_by_memory() {
    let mut h = H::vf_submit_ready();
    h.vf_image();
    let pf_g2h = h.desc(G2H_DESC_LMEM)[1];
    let raised = h.rf.intc().stats().raised;
    // Registered with VF 1's id 0: the GuC keeps it as BEGIN + 0.
    h.vf_send(&register(1, 0, LRCA));
    let ctx =
        h.rf.guc()
            .submit()
            .context(BEGIN)
            .cloned()
            .expect("registered");
    assert_eq!((ctx.owner.vf, ctx.owner.local), (1, 0));
    assert!(h.rf.guc().submit().context(0).is_none());
    // A job: a store into VF 1's data page and a user interrupt; the
    // enable (a FAST_REQUEST) hands it to the scheduler.
    for (i, d) in [SDI_GGTT, DATA as u32, 0, 0xC0FFEE, MI_USER_INTERRUPT, 0]
        .into_iter()
        .enumerate()
    {
        h.vf_put32(RING + 4 * i as u64, d);
    }
    h.vf_put32(LRCA + PAGE + 4 * 7, 24);
    h.vf_send(&[ctb(0x50, 3), 0x2000_1001, 0, 1]);
    h.tick();
    assert_eq!(h.vf32(DATA), 0xC0FFEE, "the job ran in VF 1's memory");
    // Its interrupt: bcs0's user-interrupt byte in the status page, its
    // source byte, then VF 1's MSI; nothing in the PF's registers.
    assert_eq!(h.vf32(STATUS + 16 * BCS0_SLOT) & 0xFF, 0xFF);
    assert_eq!(h.vf32(SOURCE + 12) >> 24, 0xFF, "source byte 15");
    assert_eq!(h.rf.take_vf_irqs(), [1]);
    assert_eq!(h.rf.intc().stats().raised, raised);
    // MODE_DONE {0, ENABLE} on VF 1's CT, with its own id; no reply to
    // the EVENT or the FAST_REQUEST; nothing on the PF's CT.
    assert_eq!(h.vf_g2h(), [vec![0x9000_1002, 0, 1]]);
    assert_eq!(h.desc(G2H_DESC_LMEM)[1], pf_g2h);
    let g = h.rec.summary(false).vf_guest[&1].clone();
    assert_eq!(g.submit["register:ok"], 1);
    assert_eq!(g.submit["load:start@bcs0"], 1);
    assert_eq!(g.submit["memirq:reported@bcs0"], 1);
    // An id past NUM_CONTEXTS, an LRCA outside VF 1's range: refused.
    h.vf_send(&register(0, NUM, LRCA));
    assert_eq!(
        h.vf_g2h().last().map(|m| m[0]),
        Some(mmio::failure(abi::error::INVALID_CONTEXT_INDEX))
    );
    h.vf_send(&register(0, 1, VF2_GGTT));
    assert_eq!(
        h.vf_g2h().last().map(|m| m[0]),
        Some(mmio::failure(abi::error::INVALID_GGTT_ADDRESS))
    );
    assert!(h.rf.guc().submit().context(BEGIN + 1).is_none());
    // Disable and deregister: DONE events with VF 1's id.
    h.vf_send(&[ctb(0x60, 3), 0x2000_1001, 0, 0]);
    h.tick();
    h.vf_send(&[ctb(0x61, 2), 0x2000_4503, 0]);
    let events: Vec<Vec<u32>> = h.vf_g2h().into_iter().filter(|m| m[0] >> 28 == 9).collect();
    assert_eq!(
        events,
        [
            vec![0x9000_1002, 0, 1],
            vec![0x9000_1002, 0, 0],
            vec![0x9000_4600, 0]
        ]
    );
    assert!(h.rf.guc().submit().context(BEGIN).is_none());
    // The VF's other actions still reach their own services: a GuC TLB
    // invalidation (FAST_REQUEST, seqno 9, type GUC) gets its DONE.
    h.vf_send(&[ctb(0x62, 3), 0x2000_7000, 9, 3]);
    assert_eq!(h.vf_g2h().last(), Some(&vec![0x9000_7001, 9]));
    assert_eq!(
        h.kinds().keys().collect::<Vec<_>>(),
        ["guc_submit_bad"],
        "only the two refusals"
    );
}

#[test]
fn a_vf_flr_forgets_its_contexts_without_an_event() {
    let mut h = H::vf_submit_ready();
    h.vf_image();
    // A context that never ends: it waits on a semaphore in its own
    // memory (MI_SEMAPHORE_WAIT, poll, SAD == SDD 1).
    let sem = 0x1c << 23 | 1 << 22 | 1 << 15 | 4 << 12 | 3;
    for (i, d) in [sem, 1, DATA as u32, 0].into_iter().enumerate() {
        h.vf_put32(RING + 4 * i as u64, d);
    }
    h.vf_put32(LRCA + PAGE + 4 * 7, 16);
    h.vf_send(&register(1, 3, LRCA));
    h.vf_send(&[ctb(0x50, 3), 0x2000_1001, 3, 1]);
    h.tick();
    assert!(h
        .rf
        .engines()
        .by_name("bcs0")
        .is_some_and(|e| e.active.is_some()));
    let before = h.vf_g2h().len();
    h.sriov_control("vf:flr:1");
    h.tick();
    // Taken off bcs0 and forgotten; the id is free; no event anywhere.
    assert!(h.rf.guc().submit().context(BEGIN + 3).is_none());
    assert!(h
        .rf
        .engines()
        .by_name("bcs0")
        .is_some_and(|e| e.active.is_none()));
    assert_eq!(h.rf.guc().submit().registered_by(1), 0);
    assert_eq!(h.vf_g2h().len(), before);
    assert_eq!(h.rec.summary(false).vf_guest[&1].submit["forget"], 1);
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
}

#[test]
fn a_started_watchdog_ends_a_wait_that_cannot_end_under_the_guc() {
    // Upstream's VF golden-context job (`emit_fake_watchdog`): the counter
    // started with threshold `thrsh`, a wait for 0xdead at the LRCA, STOP,
    // then the payload.
    let run = |thrsh: u32| {
        let mut h = H::vf_submit_ready();
        h.vf_image();
        let lri2 = 0x22 << 23 | 1 << 19 | 3;
        let lri1 = 0x22 << 23 | 1 << 19 | 1;
        let sem = 0x1c << 23 | 1 << 22 | 1 << 15 | 4 << 12 | 3;
        let cmds = [
            lri2,
            0x17c,
            thrsh,
            0x178,
            0,
            sem,
            0xdead,
            LRCA as u32,
            0,
            lri1,
            0x178,
            1,
            SDI_GGTT,
            DATA as u32,
            0,
            0xAB,
            MI_USER_INTERRUPT,
            0,
        ];
        for (i, d) in cmds.into_iter().enumerate() {
            h.vf_put32(RING + 4 * i as u64, d);
        }
        h.vf_put32(LRCA + PAGE + 4 * 7, 4 * cmds.len() as u32);
        h.vf_send(&register(1, 0, LRCA));
        h.vf_send(&[ctb(0x50, 3), 0x2000_1001, 0, 1]);
        h.tick();
        h
    };
    let mut h = run(2);
    assert_eq!(h.vf32(DATA), 0xAB, "resumed after the wait");
    assert_eq!(h.rf.take_vf_irqs(), [1]);
    let g = h.rec.summary(false).vf_guest[&1].clone();
    assert_eq!(g.submit["watchdog:resumed@bcs0"], 1);
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
    // Without a threshold the counter never expires: the wait holds.
    let h = run(0);
    assert_eq!(h.vf32(DATA), 0);
    let g = h.rec.summary(false).vf_guest[&1].clone();
    assert!(!g.submit.keys().any(|k| k.starts_with("watchdog")));
}

/// Registers, fills and enables VF 1's context 0 with one store and a user
/// interrupt, and lets it run.
fn run_one_job(h: &mut H) {
    for (i, d) in [SDI_GGTT, DATA as u32, 0, 0x5A, MI_USER_INTERRUPT, 0]
        .into_iter()
        .enumerate()
    {
        h.vf_put32(RING + 4 * i as u64, d);
    }
    h.vf_put32(LRCA + PAGE + 4 * 7, 24);
    h.vf_send(&register(1, 0, LRCA));
    h.vf_send(&[ctb(0x50, 3), 0x2000_1001, 0, 1]);
    h.tick();
    assert_eq!(h.vf32(DATA), 0x5A, "the job ran");
}

#[test]
fn a_vf_interrupt_without_its_setup_or_into_unmapped_memory_is_not_delivered() {
    // No report pointers in the image: traced as dropped, nothing written
    // (the VF's MSIs are the GuC's, for its CT).
    let mut h = H::vf_submit_ready();
    h.vf_image_with(None);
    run_one_job(&mut h);
    assert_eq!(h.vf32(SOURCE + 12) >> 24, 0, "no source byte");
    let g = h.rec.summary(false).vf_guest[&1].clone();
    assert_eq!(g.submit["memirq:dropped@bcs0"], 1);
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
    // A status page the VF's GGTT does not map: the report faults, a
    // violation, and the source byte is not written.
    let mut h = H::vf_submit_ready();
    h.vf_image_with(Some(VF1_GGTT + 12 * PAGE));
    run_one_job(&mut h);
    assert_eq!(h.vf32(SOURCE + 12) >> 24, 0, "no source byte");
    assert_eq!(
        h.kinds().get("engine_memirq_fault"),
        Some(&1),
        "{:?}",
        h.kinds()
    );
}

#[test]
fn a_vf_gets_no_doorbell_and_a_reset_of_its_context_with_its_ct_off_is_counted() {
    let mut h = H::vf_submit_ready();
    h.vf_image();
    // ALLOCATE_DOORBELL (a REQUEST) from a VF: UNKNOWN_ACTION.
    h.vf_send(&[ctb(0x70, 2), abi::action::ALLOCATE_DOORBELL, 0]);
    assert_eq!(
        h.vf_g2h().last().map(|m| m[0]),
        Some(mmio::failure(abi::error::UNKNOWN_ACTION))
    );
    // A registered context, then the VF's CT disabled: the GuC's reset of
    // that context has nowhere to go, and is counted.
    h.vf_send(&register(1, 0, LRCA));
    assert_eq!(vf_mmio(&mut h, 1, [0x4509, 0, 0, 0])[0], mmio::success(0));
    h.control_guc("guc:reset-storm:1");
    h.tick();
    let g = h.rec.summary(false).vf_guest[&1].clone();
    assert_eq!(g.counts["g2h_dropped_ct_off"], 1);
    assert!(h.rf.guc().submit().context(BEGIN).is_some_and(|c| c.banned));
}
