//! GuC submission (`ct/submit.rs`): the context messages over CT and the
//! scheduler loading contexts onto the command streamers, with an LRC and
//! a ring in the fake LMEM built like the engine tests' (upstream's
//! `dg2_xcs_offsets` image) and the ring commands the driver's
//! `engine/cmd.rs` `request` writes.

use super::*;
use crate::regfile::engine::EngineFault;

// ---- memory: one LMEM region behind GGTT_BASE ------------------------------

const GGTT_BASE: u64 = 0x0500_0000;
const LMEM_BASE: u64 = 0x40_0000;
const REGION: usize = 0x3_0000;
const LRCA1: u64 = GGTT_BASE;
const LRCA2: u64 = GGTT_BASE + 0x2000;
const LRCA3: u64 = GGTT_BASE + 0x4000;
const RING1: u64 = GGTT_BASE + 0x1_0000;
const RING2: u64 = GGTT_BASE + 0x1_2000;
const RING_SIZE: u32 = 0x2000;
const DATA: u64 = GGTT_BASE + 0x2_0000;
const SEM: u64 = DATA + 0x800;
/// bcs0's MMIO base (upstream `xe_engine_regs.h` `BLT_RING_BASE`).
const BCS0: u32 = 0x2_2000;
/// A status page for the engines.
const HWSP: u64 = DATA + 0x1000;
/// `RING_HWS_PGA`, `RING_MODE` (`xe_engine_regs.h`).
const RING_HWS_PGA: u32 = 0x80;
const RING_MODE: u32 = 0x29c;
/// `GFX_DISABLE_LEGACY_MODE`.
const LEGACY_OFF: u32 = 1 << 3;

// ---- messages -----------------------------------------------------------

const REGISTER: u32 = abi::action::REGISTER_CONTEXT;
const POLICIES: u32 = abi::action::UPDATE_CONTEXT_POLICIES;
const MODE_SET: u32 = abi::action::SCHED_CONTEXT_MODE_SET;
const DEREGISTER: u32 = abi::action::DEREGISTER_CONTEXT;
/// `SCHED_CONTEXT` as the FAST_REQUEST upstream sends.
const SCHED_FAST: u32 = 2 << 28 | abi::action::SCHED_CONTEXT;
/// HXG EVENT header of `action` (ORIGIN GuC, TYPE EVENT).
const fn event(action: u32) -> u32 {
    0x9000_0000 | action
}
/// Descriptor of a context at `lrca`: valid, addressing mode 3 (legacy
/// 64-bit, `xe_lrc.c`), the LRCA.
fn desc(lrca: u64) -> u32 {
    lrca as u32 | 3 << 3 | 1
}
/// `REGISTER_CONTEXT` of a blitter context (GuC class 3, logical
/// instance 0).
fn register_msg(id: u32, lrca: u64) -> Vec<u32> {
    vec![REGISTER, 1, id, 3, 1, 0, 0, 0, 0, 0, desc(lrca), 0]
}

// ---- ring commands (engine/cmd.rs `request`, bcs flavour) ---------------

const MI_ARB_CHECK: u32 = 0x0280_0000;
const MI_USER_INTERRUPT: u32 = 0x0100_0000;
const SDI_GGTT: u32 = 0x1040_0002;
const FLUSH_DW_STORE: u32 = 0x1300_4002;
const SEM_WAIT_EQ: u32 = 0x1c << 23 | 1 << 22 | 1 << 15 | 4 << 12 | 3;

impl H {
    /// A GuC with the CT enabled and the context memory mapped, bcs0 set
    /// up for GuC submission as upstream does it (legacy mode off, a
    /// status page: `xe_hw_engine.c` `xe_hw_engine_enable_ring`).
    fn submit_ready() -> H {
        let mut h = H::submit_bare();
        h.engine_setup(BCS0);
        h
    }

    /// As [`H::submit_ready`], the engines as at reset.
    fn submit_bare() -> H {
        let mut h = H::ct_enabled_on(&LAYOUT);
        h.bus.map_lmem(GGTT_BASE, LMEM_BASE, &vec![0; REGION]);
        h
    }

    /// `RING_HWS_PGA` to [`HWSP`] and `RING_MODE.GFX_DISABLE_LEGACY_MODE`
    /// (masked) on the engine at `base`.
    fn engine_setup(&mut self, base: u32) {
        self.w(base + RING_HWS_PGA, HWSP as u32);
        self.w(base + RING_MODE, LEGACY_OFF << 16 | LEGACY_OFF);
    }

    fn gput(&mut self, g: u64, v: u32) {
        self.put_lmem32(g - GGTT_BASE + LMEM_BASE, v);
    }

    fn gget(&self, g: u64) -> u32 {
        self.lmem32(g - GGTT_BASE + LMEM_BASE)
    }

    /// Upstream's xcs register state for a context whose ring is at `ring`,
    /// HEAD = TAIL = 0: NOP, LRI(15) with CONTEXT_CONTROL, HEAD, TAIL,
    /// START, CTL, ..., NOP, LRI(9), BB_END (absolute addresses).
    fn image(&mut self, lrca: u64, ring: u64) {
        self.image_on(BCS0, lrca, ring);
    }

    /// [`H::image`] for the engine at MMIO `b` (the xcs layout serves the
    /// video engines too, `dg2_xcs_offsets`).
    fn image_on(&mut self, b: u32, lrca: u64, ring: u64) {
        let mut img = vec![0, 0x1100_0000 | 1 << 19 | 1 << 12 | (2 * 15 - 1)];
        let regs15: [(u32, u32); 15] = [
            (0x244, 0x0009_0009),
            (0x34, 0),
            (0x30, 0),
            (0x38, ring as u32),
            (0x3c, (RING_SIZE - 4096) | 1),
            (0x168, 0),
            (0x140, 0),
            (0x110, 0),
            (0x1c0, 0),
            (0x1c4, 0),
            (0x1c8, 0),
            (0x180, 0),
            (0x2b4, 0),
            (0x120, 0),
            (0x124, 0),
        ];
        for (o, v) in regs15 {
            img.extend([b + o, v]);
        }
        img.extend([0, 0x1100_0000 | 1 << 19 | 1 << 12 | (2 * 9 - 1)]);
        for o in [
            0x3a8, 0x28c, 0x288, 0x284, 0x280, 0x27c, 0x278, 0x274, 0x270,
        ] {
            img.extend([b + o, 0]);
        }
        img.push(0x0500_0001);
        for (i, d) in img.iter().enumerate() {
            self.gput(lrca + 4096 + 4 * i as u64, *d);
        }
    }

    /// The image's `CTX_RING_HEAD` (dw 5) and `CTX_RING_TAIL` (dw 7).
    fn ring_regs(&self, lrca: u64) -> (u32, u32) {
        (
            self.gget(lrca + 4096 + 4 * 5),
            self.gget(lrca + 4096 + 4 * 7),
        )
    }

    /// Writes `cmds` into the ring from byte `at` and the new tail into
    /// the image (as `xe_lrc_set_ring_tail`); the new tail.
    fn emit(&mut self, lrca: u64, ring: u64, at: u32, cmds: &[u32]) -> u32 {
        for (i, &c) in cmds.iter().enumerate() {
            self.gput(ring + u64::from(at) + 4 * i as u64, c);
        }
        let tail = at + 4 * cmds.len() as u32;
        self.gput(lrca + 4096 + 4 * 7, tail);
        tail
    }

    /// One request as the driver writes it: arbitration point, payload
    /// store, seqno flush, user interrupt (10 dwords, a whole qword count).
    fn request(&mut self, lrca: u64, ring: u64, at: u32, payload: (u64, u32), seqno: u32) -> u32 {
        let (pa, pv) = payload;
        let seqno_at = DATA + 8 * u64::from(lrca == LRCA2);
        self.emit(
            lrca,
            ring,
            at,
            &[
                MI_ARB_CHECK,
                SDI_GGTT,
                pa as u32,
                0,
                pv,
                FLUSH_DW_STORE,
                seqno_at as u32 | 1 << 2,
                0,
                seqno,
                MI_USER_INTERRUPT,
            ],
        )
    }

    /// The G2H messages so far: (fence, HXG).
    fn g2h_msgs(&self) -> Vec<(u32, Vec<u32>)> {
        let tail = self.desc(G2H_DESC_LMEM)[1];
        let mut out = Vec::new();
        let mut at = 0;
        while at < tail {
            let hdr = self.g2h(at, 1)[0];
            let n = hdr & 0xff;
            out.push((hdr >> 16, self.g2h(at + 1, n)));
            at += 1 + n;
        }
        out
    }

    /// The EVENTs in G2H so far.
    fn g2h_events(&self) -> Vec<Vec<u32>> {
        self.g2h_msgs()
            .into_iter()
            .map(|(_, m)| m)
            .filter(|m| m[0] >> 28 == 9)
            .collect()
    }

    /// Sends one message with a fresh fence; its reply (None: none).
    fn send1(&mut self, hxg: &[u32]) -> Option<u32> {
        let fence = self.desc(H2G_LMEM)[1] + 1;
        self.send(&[(fence, hxg)]);
        self.g2h_msgs()
            .into_iter()
            .rev()
            .find(|(f, m)| *f == fence && m[0] >> 28 != 9)
            .map(|(_, m)| m[0])
    }

    fn sched(&mut self, id: u32) -> Option<u32> {
        self.send1(&[SCHED_FAST, id])
    }

    /// Registers `id` at `lrca` (ring `ring`), enables it: both SUCCESS.
    fn ready_context(&mut self, id: u32, lrca: u64, ring: u64) {
        self.image(lrca, ring);
        assert_eq!(self.send1(&register_msg(id, lrca)), Some(mmio::success(0)));
        assert_eq!(
            self.send1(&[MODE_SET, id, 1]),
            Some(mmio::success(0)),
            "{:?}",
            self.kinds()
        );
    }

    /// The device's tick: CT service, engine bursts, the GuC's scheduler.
    pub(super) fn tick(&mut self) {
        self.rf.service_guc(&mut self.rec, &mut self.bus);
        self.rf.service_engines(&mut self.rec, &mut self.bus);
    }

    fn gs(&self) -> crate::summary::GucSubmitSummary {
        self.rec.summary(false).guc_submit
    }

    /// Interrupt data raised at `source`, in order.
    fn irq_data(&mut self, source: &str) -> Vec<String> {
        self.events("irq_raise")
            .iter()
            .filter(|e| e["source"] == source)
            .map(|e| e["data"].as_str().unwrap_or("").to_owned())
            .collect()
    }
}

#[test]
fn submit_register_enable_sched_deregister() {
    let mut h = H::submit_ready();
    h.image(LRCA1, RING1);
    assert_eq!(h.send1(&register_msg(7, LRCA1)), Some(mmio::success(0)));
    // Upstream's init_policies KLVs: priority, quantum, preemption timeout,
    // frequency; DATA0 = KLVs applied.
    let pol = [
        POLICIES,
        7,
        0x2003_0001,
        2,
        0x2001_0001,
        1000,
        0x2002_0001,
        640_000,
        0x2005_0001,
        0,
    ];
    assert_eq!(h.send1(&pol), Some(mmio::success(4)));
    let p = h.rf.guc().submit().context(7).expect("registered").policies;
    assert_eq!(
        (p.priority, p.quantum_us, p.preempt_timeout_us, p.slpm_freq),
        (Some(2), Some(1000), Some(640_000), Some(0))
    );
    // Enable: SUCCESS, then MODE_DONE {guc_id, state}.
    assert_eq!(h.send1(&[MODE_SET, 7, 1]), Some(mmio::success(0)));
    assert_eq!(
        h.g2h_events(),
        [vec![event(abi::action::SCHED_CONTEXT_MODE_DONE), 7, 1]]
    );
    // SCHED_CONTEXT: the GuC loads it on bcs0; the store and the seqno land
    // in memory, the user interrupt reaches the host at bcs0; no CSB write,
    // no context-switch interrupt (the GuC's Load: its status is the GuC's).
    let tail = h.request(LRCA1, RING1, 0, (DATA + 0x100, 0xCAFE), 1);
    assert_eq!(h.sched(7), None, "a FAST_REQUEST: no reply on success");
    assert_eq!(h.gget(DATA + 0x100), 0xCAFE);
    assert_eq!(h.gget(DATA), 1);
    assert_eq!(h.ring_regs(LRCA1), (tail, tail), "HEAD saved at completion");
    assert_eq!(h.irq_data("bcs0"), ["0x1"]);
    let sw = h.events("engine_switch");
    assert_eq!(sw.len(), 2, "idle->active, active->idle");
    assert!(sw
        .iter()
        .all(|e| e["guc"] == true && e.get("index").is_none()));
    assert_eq!(h.rf.guc().submit().status_entries(), 2);
    let load = h.events("guc_submit_load");
    assert_eq!(load[0]["engine"], "bcs0");
    assert_eq!(load[0]["guc_id"], 7);
    assert_eq!(load[0]["action"], "start");
    // The engine reported guc_id as the SW context ID.
    assert_eq!(sw[0]["to"], "0x7");
    // A second request: loaded again from the saved HEAD.
    let tail2 = h.request(LRCA1, RING1, tail, (DATA + 0x104, 0xBEEF), 2);
    h.sched(7);
    assert_eq!((h.gget(DATA + 0x104), h.gget(DATA)), (0xBEEF, 2));
    assert_eq!(h.ring_regs(LRCA1), (tail2, tail2));
    // Deregister while enabled: INVALID_STATE.
    assert_eq!(
        h.send1(&[DEREGISTER, 7]),
        Some(failure(abi::error::INVALID_STATE))
    );
    // Disable: MODE_DONE {7, 0}; deregister: DEREGISTER_CONTEXT_DONE {7}.
    assert_eq!(h.send1(&[MODE_SET, 7, 0]), Some(mmio::success(0)));
    assert_eq!(h.send1(&[DEREGISTER, 7]), Some(mmio::success(0)));
    let ev = h.g2h_events();
    assert_eq!(
        ev[1..],
        [
            vec![event(abi::action::SCHED_CONTEXT_MODE_DONE), 7, 0],
            vec![event(abi::action::DEREGISTER_CONTEXT_DONE), 7],
        ]
    );
    assert!(h.rf.guc().submit().context(7).is_none());
    let s = h.gs();
    assert_eq!(
        (
            s.registered,
            s.registrations,
            s.policies,
            s.enables,
            s.disables
        ),
        (0, 1, 1, 1, 1)
    );
    assert_eq!(
        (
            s.sched,
            s.deregistrations,
            s.contexts_run,
            s.mode_done_sent,
            s.dereg_done_sent
        ),
        (2, 1, 2, 2, 1)
    );
    assert_eq!(s.refused, 1);
    assert_eq!(h.kind("guc_submit_bad"), 1);
    let e = h.rec.summary(false).engines;
    assert_eq!(
        e.by_engine["bcs0"].csb_entries, 0,
        "nothing written to the host"
    );
    assert_eq!(e.by_engine["bcs0"].user_interrupts, 2);
    // The id is free again.
    assert_eq!(h.send1(&register_msg(7, LRCA1)), Some(mmio::success(0)));
    assert_eq!(h.gs().registered, 1);
}

#[test]
fn submit_registration_refusals_have_their_codes() {
    let mut h = H::submit_ready();
    h.image(LRCA1, RING1);
    let good = register_msg(1, LRCA1);
    let with = |i: usize, v: u32| {
        let mut m = good.clone();
        m[i] = v;
        m
    };
    // Garbage where the register state should be: not parsable.
    h.gput(LRCA3 + 4096, 0xDEAD_0000);
    let cases: Vec<(Vec<u32>, u32, &str)> = vec![
        (
            good[..11].to_vec(),
            abi::error::INVALID_SIZE,
            "of 11 dwords",
        ),
        (with(1, 0), abi::error::INVALID_PARAMS, "flags 0x0"),
        (with(1, 1 | 1 << 1), abi::error::INVALID_PARAMS, "flags 0x3"),
        (
            with(2, 65535),
            abi::error::INVALID_CONTEXT_INDEX,
            "GUC_ID_MAX",
        ),
        (with(3, 5), abi::error::INVALID_ENGINE_ID, "class 5"),
        (with(4, 3), abi::error::NOT_SUPPORTED, "several engines"),
        (
            with(4, 0),
            abi::error::CANNOT_COMPLETE_ACTION,
            "no present engine",
        ),
        (
            with(5, 0x1000),
            abi::error::INVALID_BUFFER_RANGE,
            "work-queue",
        ),
        (
            with(10, LRCA1 as u32),
            abi::error::INVALID_CONTEXT,
            "valid bit clear",
        ),
        (with(10, 1), abi::error::INVALID_CONTEXT, "LRCA 0"),
        (
            with(10, desc(0x0700_0000)),
            abi::error::INVALID_GGTT_ADDRESS,
            "LRCA 0x7000000",
        ),
        (with(10, desc(LRCA3)), abi::error::INVALID_BUFFER, "LRCA"),
    ];
    for (i, (msg, code, why)) in cases.iter().enumerate() {
        assert_eq!(h.send1(msg), Some(failure(*code)), "case {i}");
        let d = h.details("guc_submit_bad");
        assert!(d[i].contains(why), "case {i}: {d:?}");
    }
    assert_eq!(h.gs().registered, 0);
    assert_eq!(h.send1(&good), Some(mmio::success(0)));
    // Registered already.
    assert_eq!(
        h.send1(&good),
        Some(failure(abi::error::INVALID_CONTEXT_REGISTRATION))
    );
    let s = h.gs();
    assert_eq!((s.registered, s.registrations), (1, 1));
    assert_eq!(s.refused, cases.len() as u64 + 1);
    let ev = h.events("guc_submit");
    assert_eq!(ev[0]["result"], "refused");
    assert_eq!(ev[0]["code"], "0x102");
    // Sent as a FAST_REQUEST (upstream's way), a refusal still answers.
    assert_eq!(
        h.send1(&with(0, 2 << 28 | REGISTER)),
        Some(failure(abi::error::INVALID_CONTEXT_REGISTRATION))
    );
}

#[test]
fn submit_policies_mode_set_and_sched_checks() {
    let mut h = H::submit_ready();
    h.image(LRCA1, RING1);
    assert_eq!(h.send1(&register_msg(3, LRCA1)), Some(mmio::success(0)));
    let cases: Vec<(Vec<u32>, u32)> = vec![
        (vec![POLICIES], abi::error::INVALID_SIZE),
        (
            vec![POLICIES, 9, 0x2001_0001, 5],
            abi::error::CONTEXT_NOT_REGISTERED,
        ),
        (vec![POLICIES, 3, 0x2001_0002, 5], abi::error::MALFORMED_KLV),
        (
            vec![POLICIES, 3, 0x2006_0001, 5],
            abi::error::INVALID_KLV_KEY,
        ),
        (
            vec![POLICIES, 3, 0x2001_0002, 5, 6],
            abi::error::INVALID_KLV_DATA,
        ),
        (
            vec![POLICIES, 3, 0x2003_0001, 4],
            abi::error::INVALID_KLV_DATA,
        ),
        // All or nothing: a good KLV before a bad one is not applied.
        (
            vec![POLICIES, 3, 0x2002_0001, 7, 0x2003_0001, 9],
            abi::error::INVALID_KLV_DATA,
        ),
        (vec![MODE_SET, 3], abi::error::INVALID_SIZE),
        (vec![MODE_SET, 4, 1], abi::error::CONTEXT_NOT_REGISTERED),
        (vec![MODE_SET, 3, 2], abi::error::INVALID_PARAMS),
        (vec![DEREGISTER, 4], abi::error::CONTEXT_NOT_REGISTERED),
        (vec![DEREGISTER, 3, 0], abi::error::INVALID_SIZE),
    ];
    for (i, (msg, code)) in cases.iter().enumerate() {
        assert_eq!(h.send1(msg), Some(failure(*code)), "case {i}");
    }
    let p = h.rf.guc().submit().context(3).expect("registered").policies;
    assert_eq!(p, Default::default(), "nothing applied");
    // 0x2004 and 0x2005 are stored.
    assert_eq!(
        h.send1(&[POLICIES, 3, 0x2004_0001, 1, 0x2005_0001, 300]),
        Some(mmio::success(2))
    );
    let p = h.rf.guc().submit().context(3).expect("registered").policies;
    assert_eq!((p.preempt_to_idle, p.slpm_freq), (Some(1), Some(300)));
    // SCHED_CONTEXT: unregistered answers FAILURE, disabled is ignored;
    // both counted, nothing runs.
    assert_eq!(
        h.sched(9),
        Some(failure(abi::error::CONTEXT_NOT_REGISTERED))
    );
    h.request(LRCA1, RING1, 0, (DATA + 0x10, 5), 1);
    assert_eq!(h.sched(3), None);
    assert_eq!(h.gget(DATA + 0x10), 0, "disabled: not run");
    let s = h.gs();
    assert_eq!((s.sched, s.sched_ignored, s.contexts_run), (0, 2, 0));
    assert_eq!(s.refused, cases.len() as u64);
    // No MODE_DONE for a refused MODE_SET.
    assert!(h.g2h_events().is_empty());
}

#[test]
fn submit_hung_context_is_reset_after_its_preemption_timeout() {
    let mut h = H::submit_ready();
    h.ready_context(1, LRCA1, RING1);
    h.ready_context(2, LRCA2, RING2);
    // A short preemption timeout: 1 ms.
    assert_eq!(
        h.send1(&[POLICIES, 1, 0x2002_0001, 1000]),
        Some(mmio::success(1))
    );
    assert!(h.rf.arm_engine_fault("bcs0", EngineFault::Hang, &mut h.rec));
    h.request(LRCA1, RING1, 0, (DATA + 0x20, 0x11), 1);
    h.sched(1);
    assert_eq!(h.gget(DATA), 0, "hung at its first command");
    // Context 2 has work too: it waits behind the hung one.
    h.request(LRCA2, RING2, 0, (DATA + 0x24, 0x22), 1);
    h.sched(2);
    assert_eq!(h.gget(DATA + 0x24), 0);
    h.us(999);
    h.tick();
    assert_eq!(h.gs().resets, 0, "not yet");
    h.us(2);
    h.tick();
    // Reset: engine reset by the GuC, the notification, context 1 banned;
    // context 2 runs.
    let s = h.gs();
    assert_eq!(s.resets, 1);
    let reset = h.events("guc_submit_reset");
    assert_eq!(reset[0]["guc_id"], 1);
    assert_eq!(reset[0]["cause"], "preemption_timeout");
    assert_eq!(reset[0]["engine_reset"], true);
    assert!(reset[0]["stalled_us"].as_u64().expect("us") >= 1000);
    let er = h.events("engine_reset");
    assert_eq!(er.len(), 1);
    assert_eq!(er[0]["cause"], "guc");
    let ev = h.g2h_events();
    assert_eq!(
        ev.last().expect("event"),
        &vec![event(abi::action::CONTEXT_RESET_NOTIFICATION), 1]
    );
    assert!(h.rf.guc().submit().context(1).expect("registered").banned);
    assert_eq!((h.gget(DATA + 0x24), h.gget(DATA + 8)), (0x22, 1));
    // Later SCHED_CONTEXT of the banned context: ignored, counted.
    h.sched(1);
    assert_eq!(h.gget(DATA + 0x20), 0);
    assert_eq!(h.gs().sched_ignored, 1);
    // Deregistering it frees the id (disable first).
    assert_eq!(h.send1(&[MODE_SET, 1, 0]), Some(mmio::success(0)));
    assert_eq!(h.send1(&[DEREGISTER, 1]), Some(mmio::success(0)));
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
}

#[test]
fn submit_semaphore_stall_uses_the_default_timeout_and_round_robin() {
    let mut h = H::submit_ready();
    h.ready_context(1, LRCA1, RING1);
    h.ready_context(2, LRCA2, RING2);
    // Context 1 waits for SEM == 1, then stores; its quantum is 1 ms.
    assert_eq!(
        h.send1(&[POLICIES, 1, 0x2001_0001, 1000]),
        Some(mmio::success(1))
    );
    let t = h.emit(
        LRCA1,
        RING1,
        0,
        &[
            SEM_WAIT_EQ,
            1,
            SEM as u32,
            0,
            0,
            SDI_GGTT,
            DATA as u32 + 0x30,
            0,
            0x33,
            0,
        ],
    );
    assert_eq!(t, 40);
    h.sched(1);
    h.request(LRCA2, RING2, 0, (DATA + 0x34, 0x44), 1);
    h.sched(2);
    assert_eq!(h.gget(DATA + 0x34), 0, "queued behind the waiting context");
    // Its quantum ends: context 2 preempts it and completes, 1 is back.
    h.us(1000);
    h.tick();
    assert_eq!(h.gget(DATA + 0x34), 0x44);
    let loads: Vec<String> = h
        .events("guc_submit_load")
        .iter()
        .map(|e| format!("{}:{}", e["guc_id"], e["action"].as_str().unwrap_or("")))
        .collect();
    assert_eq!(loads, ["1:start", "2:switch", "1:start"]);
    // Released: context 1 completes on the next tick.
    h.gput(SEM, 1);
    h.tick();
    assert_eq!(h.gget(DATA + 0x30), 0x33);
    assert_eq!(h.gs().resets, 0);
    // A wait that never ends: reset after the default 640 ms, not before.
    h.emit(LRCA1, RING1, 40, &[SEM_WAIT_EQ, 7, SEM as u32, 0, 0, 0]);
    h.sched(1);
    h.ms(639);
    h.tick();
    assert_eq!(h.gs().resets, 0);
    h.ms(2);
    h.tick();
    assert_eq!(h.gs().resets, 1);
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
}

#[test]
fn submit_enable_runs_pending_work_without_sched_context() {
    // Upstream's first job: the ring tail in the image, then the enable
    // alone (xe_guc_submit.c submit_exec_queue). The GuC runs it.
    let mut h = H::submit_ready();
    h.image(LRCA1, RING1);
    assert_eq!(h.send1(&register_msg(3, LRCA1)), Some(mmio::success(0)));
    let tail = h.request(LRCA1, RING1, 0, (DATA + 0x20, 0x77), 1);
    assert_eq!(h.send1(&[MODE_SET, 3, 1]), Some(mmio::success(0)));
    h.tick();
    assert_eq!((h.gget(DATA + 0x20), h.gget(DATA)), (0x77, 1));
    assert_eq!(h.ring_regs(LRCA1), (tail, tail));
    let s = h.gs();
    assert_eq!((s.sched, s.contexts_run), (0, 1));
    // Disabled and enabled again with an empty ring: nothing is loaded.
    assert_eq!(h.send1(&[MODE_SET, 3, 0]), Some(mmio::success(0)));
    assert_eq!(h.send1(&[MODE_SET, 3, 1]), Some(mmio::success(0)));
    h.tick();
    assert_eq!(h.gs().contexts_run, 1);
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
}

#[test]
fn submit_running_context_gets_a_lite_restore() {
    let mut h = H::submit_ready();
    h.ready_context(1, LRCA1, RING1);
    // Blocked on a semaphore, so it stays on the engine.
    let t = h.emit(LRCA1, RING1, 0, &[SEM_WAIT_EQ, 1, SEM as u32, 0, 0, 0]);
    h.sched(1);
    // More work while it runs: the new tail is picked up by a lite restore.
    h.emit(
        LRCA1,
        RING1,
        t,
        &[SDI_GGTT, DATA as u32 + 0x40, 0, 0x55, MI_USER_INTERRUPT, 0],
    );
    h.sched(1);
    let loads = h.events("guc_submit_load");
    assert_eq!(loads.len(), 2);
    assert_eq!(loads[1]["action"], "lite_restore");
    h.gput(SEM, 1);
    h.tick();
    assert_eq!(h.gget(DATA + 0x40), 0x55);
    assert_eq!(h.gs().contexts_run, 1, "a lite restore is no new run");
}

#[test]
fn submit_disable_takes_a_running_context_off_first() {
    let mut h = H::submit_ready();
    h.ready_context(1, LRCA1, RING1);
    // Running, blocked on a semaphore (preemptible).
    h.emit(LRCA1, RING1, 0, &[SEM_WAIT_EQ, 1, SEM as u32, 0, 0, 0]);
    h.sched(1);
    assert_eq!(h.send1(&[MODE_SET, 1, 0]), Some(mmio::success(0)));
    // Preempted to idle, then MODE_DONE; HEAD saved at the wait.
    let ev = h.g2h_events();
    assert_eq!(
        ev.last().expect("event"),
        &vec![event(abi::action::SCHED_CONTEXT_MODE_DONE), 1, 0]
    );
    let loads = h.events("guc_submit_load");
    assert_eq!(loads.last().expect("load")["action"], "preempt_to_idle");
    assert_eq!(h.ring_regs(LRCA1), (0, 24));
    let sw = h.events("engine_switch");
    assert_eq!(sw.last().expect("switch")["detail"], 5, "preempted");
    assert_eq!(h.send1(&[DEREGISTER, 1]), Some(mmio::success(0)));
    // A hung context cannot be preempted: MODE_DONE waits for the
    // preemption timeout (1 us, as upstream sets it before a disable), and
    // deregistration is refused until then.
    h.ready_context(2, LRCA2, RING2);
    assert!(h.rf.arm_engine_fault("bcs0", EngineFault::Hang, &mut h.rec));
    h.request(LRCA2, RING2, 0, (DATA + 0x60, 1), 1);
    h.sched(2);
    assert_eq!(
        h.send1(&[POLICIES, 2, 0x2002_0001, 1]),
        Some(mmio::success(1))
    );
    let before = h.g2h_events().len();
    assert_eq!(h.send1(&[MODE_SET, 2, 0]), Some(mmio::success(0)));
    assert_eq!(h.g2h_events().len(), before, "no MODE_DONE yet");
    assert_eq!(
        h.send1(&[DEREGISTER, 2]),
        Some(failure(abi::error::INVALID_STATE))
    );
    h.us(2);
    h.tick();
    let ev = h.g2h_events();
    assert_eq!(
        ev[before..],
        [
            vec![event(abi::action::CONTEXT_RESET_NOTIFICATION), 2],
            vec![event(abi::action::SCHED_CONTEXT_MODE_DONE), 2, 0],
        ]
    );
    assert_eq!(h.send1(&[DEREGISTER, 2]), Some(mmio::success(0)));
    let s = h.gs();
    assert_eq!((s.mode_done_sent, s.dereg_done_sent, s.resets), (4, 2, 1));
    assert_eq!(s.contexts_run, 2);
}

#[test]
fn submit_fault_switches() {
    let mut h = H::submit_ready();
    // refuse-register: ACTION_ABORTED, no violation, nothing registered.
    h.control_guc("guc:refuse-register:1");
    h.image(LRCA1, RING1);
    assert_eq!(
        h.send1(&register_msg(1, LRCA1)),
        Some(failure(abi::error::ACTION_ABORTED))
    );
    assert_eq!(h.gs().registered, 0);
    assert_eq!(h.send1(&register_msg(1, LRCA1)), Some(mmio::success(0)));
    assert_eq!(h.send1(&[MODE_SET, 1, 1]), Some(mmio::success(0)));
    // drop-sched: the SCHED_CONTEXT has no effect; the next one works.
    h.control_guc("guc:drop-sched:1");
    h.request(LRCA1, RING1, 0, (DATA + 0x50, 0x66), 1);
    assert_eq!(h.sched(1), None);
    assert_eq!(h.gget(DATA + 0x50), 0, "dropped");
    h.sched(1);
    assert_eq!(h.gget(DATA + 0x50), 0x66);
    // reset-storm: notifications round robin over the registered contexts,
    // no hang needed; each is banned.
    h.ready_context(4, LRCA2, RING2);
    h.control_guc("guc:reset-storm:3");
    let ev = h.g2h_events();
    let resets: Vec<u32> = ev
        .iter()
        .filter(|m| m[0] == event(abi::action::CONTEXT_RESET_NOTIFICATION))
        .map(|m| m[1])
        .collect();
    assert_eq!(resets, [1, 4, 1]);
    let s = h.gs();
    assert_eq!((s.resets, s.sched_dropped, s.refused), (3, 1, 1));
    assert!(h.rf.guc().submit().context(4).expect("registered").banned);
    assert_eq!(h.events("guc_submit_reset")[0]["cause"], "storm");
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
    // Switches survive a GuC reset; the contexts do not.
    h.control_guc("guc:refuse-register:2");
    h.guc_reset();
    assert_eq!(h.gs().registered, 0);
    assert_eq!(h.rf.guc().submit().registered(), 0);
    assert_eq!(h.events("guc_submit_forget")[0]["contexts"], 2);
    // A storm with nothing registered is dropped.
    h.control_guc("guc:reset-storm:1");
    assert_eq!(h.gs().resets, 3);
}

impl H {
    pub(super) fn control_guc(&mut self, text: &str) {
        let Ok(Control::Guc(r)) = Control::parse(text) else {
            panic!("{text} is no guc: request");
        };
        self.rf.guc_inject(r, &mut self.rec, &mut self.bus);
    }
}

// ---- doorbells (ct/submit/doorbell.rs; seed 000 L1001-1073) --------------

const ALLOC_DB: u32 = abi::action::ALLOCATE_DOORBELL;
const DEALLOC_DB: u32 = abi::action::DEALLOCATE_DOORBELL;
/// Page 3 of the doorbell window (seed 000 L1038: from 0x400000).
const PAGE3: u32 = 0x40_3000;

impl H {
    /// The host writes `v` at BAR0 `offset` in the doorbell window.
    fn ring(&mut self, offset: u32, v: u32) {
        self.rf
            .doorbell_write(offset, v, &mut self.rec, &mut self.bus);
    }
}

#[test]
fn doorbell_ring_runs_the_bound_context() {
    let mut h = H::submit_ready();
    h.ready_context(1, LRCA1, RING1);
    assert_eq!(h.send1(&[ALLOC_DB, 1, 5, PAGE3]), Some(mmio::success(0)));
    let sub = h.rf.guc().submit();
    assert_eq!(sub.context(1).and_then(|c| c.doorbell), Some(5));
    // Step 6: offset + VALID (bit 0) in the low dword, VF# 0 in the high.
    assert_eq!(sub.doorbell_register(5), u64::from(PAGE3 | 1));
    assert_eq!(sub.doorbell_register(4), 0, "not armed");
    // One write to the page: the request runs as after a SCHED_CONTEXT.
    let tail = h.request(LRCA1, RING1, 0, (DATA + 0x100, 0xCAFE), 1);
    h.ring(PAGE3, 1);
    assert_eq!((h.gget(DATA + 0x100), h.gget(DATA)), (0xCAFE, 1));
    assert_eq!(h.ring_regs(LRCA1), (tail, tail));
    // Anywhere in the page rings it; the value is the cookie.
    h.request(LRCA1, RING1, tail, (DATA + 0x104, 0xBEEF), 2);
    h.ring(PAGE3 + 0x40, 2);
    assert_eq!((h.gget(DATA + 0x104), h.gget(DATA)), (0xBEEF, 2));
    let a = *h.rf.guc().submit().doorbell(5).expect("armed");
    assert_eq!((a.guc_id, a.cookie, a.rings), (1, Some(2), 2));
    let s = h.gs();
    assert_eq!(
        (
            s.doorbells_armed,
            s.doorbell_allocs,
            s.doorbell_rings,
            s.sched
        ),
        (1, 1, 2, 0),
        "rings are not SCHED_CONTEXT messages"
    );
    assert_eq!(s.contexts_run, 2);
    // Another page is not monitored: ignored, no violation, not unknown.
    let t3 = h.request(LRCA1, RING1, 2 * 40, (DATA + 0x108, 0xF00D), 3);
    h.ring(PAGE3 + 0x1000, 3);
    assert_eq!(h.gget(DATA + 0x108), 0, "nothing ran");
    // Deallocate: VALID clear; the page is no doorbell any more.
    assert_eq!(h.send1(&[DEALLOC_DB, 1]), Some(mmio::success(0)));
    assert_eq!(h.rf.guc().submit().doorbell_register(5), 0);
    h.ring(PAGE3, 3);
    assert_eq!(h.gget(DATA + 0x108), 0, "nothing ran");
    let s = h.gs();
    assert_eq!(
        (
            s.doorbells_armed,
            s.doorbell_deallocs,
            s.doorbell_rings,
            s.unarmed_rings
        ),
        (0, 1, 2, 2)
    );
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
    assert_eq!(h.events("guc_doorbell").len(), 2 + 2 + 2);
    // The same work still runs through SCHED_CONTEXT.
    h.sched(1);
    assert_eq!(h.gget(DATA + 0x108), 0xF00D);
    assert_eq!(h.ring_regs(LRCA1), (t3, t3));
}

#[test]
fn doorbell_allocation_refusals_have_their_codes() {
    let mut h = H::submit_ready();
    h.ready_context(1, LRCA1, RING1);
    h.ready_context(2, LRCA2, RING2);
    assert_eq!(h.send1(&[ALLOC_DB, 1, 5, PAGE3]), Some(mmio::success(0)));
    let cases: [(&[u32], u32, &str); 9] = [
        (&[ALLOC_DB, 2, 6], abi::error::INVALID_SIZE, "of 3 dwords"),
        (
            &[ALLOC_DB, 9, 6, PAGE3 + 0x1000],
            abi::error::CONTEXT_NOT_REGISTERED,
            "not registered",
        ),
        (
            &[ALLOC_DB, 2, 256, PAGE3 + 0x1000],
            abi::error::INVALID_DOORBELL_ID,
            "doorbell 256",
        ),
        (
            &[ALLOC_DB, 2, 5, PAGE3 + 0x1000],
            abi::error::NO_PERMISSION,
            "armed already",
        ),
        (
            &[ALLOC_DB, 2, 6, PAGE3 + 0x10],
            abi::error::INVALID_BUFFER_RANGE,
            "0x403010",
        ),
        (
            &[ALLOC_DB, 2, 6, 0x3F_F000],
            abi::error::INVALID_BUFFER_RANGE,
            "0x3ff000",
        ),
        (
            &[ALLOC_DB, 2, 6, 0x80_0000],
            abi::error::INVALID_BUFFER_RANGE,
            "0x800000",
        ),
        (
            &[ALLOC_DB, 2, 6, PAGE3],
            abi::error::BUFFER_ALREADY_REGISTERED,
            "bound to physical doorbell 5",
        ),
        (
            &[ALLOC_DB, 1, 6, PAGE3 + 0x1000],
            abi::error::INVALID_STATE,
            "holds doorbell 5",
        ),
    ];
    for (i, (msg, code, why)) in cases.iter().enumerate() {
        assert_eq!(h.send1(msg), Some(failure(*code)), "case {i}");
        let d = h.details("guc_submit_bad");
        assert!(d[i].contains(why), "case {i}: {d:?}");
    }
    // Deallocate: the wrong length, an unknown context, one without a
    // doorbell.
    let n = cases.len();
    for (i, (msg, code)) in [
        (&[DEALLOC_DB, 1, 0][..], abi::error::INVALID_SIZE),
        (&[DEALLOC_DB, 9], abi::error::CONTEXT_NOT_REGISTERED),
        (&[DEALLOC_DB, 2], abi::error::INVALID_DOORBELL_ID),
    ]
    .into_iter()
    .enumerate()
    {
        assert_eq!(h.send1(msg), Some(failure(code)), "dealloc case {i}");
    }
    assert_eq!(h.kind("guc_submit_bad"), n as u64 + 3);
    let s = h.gs();
    assert_eq!((s.doorbells_armed, s.doorbell_allocs), (1, 1));
    assert_eq!(s.refused, n as u64 + 3);
    // Nothing refused took a doorbell: 5 still rings 1, the last page and
    // doorbell 255 are free for 2.
    assert_eq!(h.rf.guc().submit().doorbell(5).map(|a| a.guc_id), Some(1));
    assert_eq!(
        h.send1(&[ALLOC_DB, 2, 255, 0x7F_F000]),
        Some(mmio::success(0))
    );
    assert_eq!(h.gs().doorbells_armed, 2);
}

#[test]
fn doorbell_ring_obeys_the_sched_rules() {
    let mut h = H::submit_ready();
    h.ready_context(1, LRCA1, RING1);
    assert_eq!(
        h.send1(&[ALLOC_DB, 1, 0, 0x40_0000]),
        Some(mmio::success(0))
    );
    // Disabled: the ring is ignored, like SCHED_CONTEXT.
    assert_eq!(h.send1(&[MODE_SET, 1, 0]), Some(mmio::success(0)));
    h.request(LRCA1, RING1, 0, (DATA + 0x100, 0x11), 1);
    h.ring(0x40_0000, 1);
    assert_eq!(h.gget(DATA + 0x100), 0, "disabled: nothing ran");
    let s = h.gs();
    assert_eq!((s.doorbell_rings, s.doorbell_rings_ignored), (1, 1));
    assert_eq!(h.events("guc_doorbell")[1]["what"], "ignored");
    // Deregistering a context that holds a doorbell releases it (the
    // driver deallocates first; the count shows when it did not).
    assert_eq!(h.send1(&[DEREGISTER, 1]), Some(mmio::success(0)));
    let s = h.gs();
    assert_eq!((s.doorbells_armed, s.doorbells_dropped_at_dereg), (0, 1));
    assert_eq!(h.rf.guc().submit().doorbell_register(0), 0);
    // A GuC reset disarms every doorbell: later writes are unarmed.
    h.ready_context(2, LRCA2, RING2);
    assert_eq!(
        h.send1(&[ALLOC_DB, 2, 7, 0x40_1000]),
        Some(mmio::success(0))
    );
    h.guc_reset();
    assert_eq!(h.rf.guc().submit().doorbells_armed(), 0);
    assert_eq!(h.gs().doorbells_armed, 0);
    h.ring(0x40_1000, 1);
    let s = h.gs();
    assert_eq!((s.unarmed_rings, s.doorbell_rings), (1, 1));
    let what: Vec<String> = h
        .events("guc_doorbell")
        .iter()
        .map(|e| e["what"].as_str().unwrap_or("").to_owned())
        .collect();
    assert_eq!(
        what,
        [
            "armed",
            "ignored",
            "dropped_at_dereg",
            "armed",
            "forgotten",
            "unarmed"
        ]
    );
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
}

#[test]
fn doorbell_refuse_switch() {
    let mut h = H::submit_ready();
    h.ready_context(1, LRCA1, RING1);
    h.control_guc("guc:refuse-doorbell:2");
    for _ in 0..2 {
        assert_eq!(
            h.send1(&[ALLOC_DB, 1, 5, PAGE3]),
            Some(failure(abi::error::ACTION_ABORTED))
        );
    }
    assert_eq!(h.rf.guc().submit().doorbell_register(5), 0);
    assert!(
        h.kinds().is_empty(),
        "a switch, no violation: {:?}",
        h.kinds()
    );
    assert_eq!(h.send1(&[ALLOC_DB, 1, 5, PAGE3]), Some(mmio::success(0)));
    let s = h.gs();
    assert_eq!((s.doorbell_allocs, s.refused, s.doorbells_armed), (1, 2, 1));
    let inj = h.events("guc_submit_inject");
    assert_eq!(inj[0]["request"], "guc:refuse-doorbell:2");
    assert_eq!(inj[0]["armed_left"], 2);
}

// ---- GT reset: engine reset failure, a hung GuC --------------------------

/// vcs0's MMIO base (upstream `xe_engine_regs.h` `BSD_RING_BASE`).
const VCS0: u32 = 0x1C_0000;
const RING3: u64 = GGTT_BASE + 0x1_4000;
const ENGINE_FAILURE: u32 = abi::action::ENGINE_FAILURE_NOTIFICATION;
const RESET_NOTIFICATION: u32 = abi::action::CONTEXT_RESET_NOTIFICATION;

impl H {
    /// After a GuC reset: the upstream load again, both CT buffers zeroed
    /// (`__xe_guc_ct_start` clears them), registered and enabled.
    fn reload_ct(&mut self) {
        self.load_ready();
        self.bus.map_lmem(H2G_GGTT, H2G_LMEM, &[0; 0x2000]);
        self.bus.map_lmem(G2H_GGTT, G2H_LMEM, &vec![0; 0x2_1000]);
        assert_eq!(self.register(&LAYOUT), [mmio::success(1); 6]);
        assert_eq!(self.mmio(&ENABLE), mmio::success(0));
    }

    /// The G2H EVENTs of `action` so far.
    fn g2h_of(&self, action: u32) -> Vec<Vec<u32>> {
        self.g2h_events()
            .into_iter()
            .filter(|m| m[0] == event(action))
            .collect()
    }

    fn guc_summary(&self) -> crate::summary::GucSummary {
        self.rec.summary(false).guc
    }
}

/// `engine:reset-fails`: the hung context's preemption timeout makes the
/// GuC reset bcs0 and the reset fails. Exactly one
/// `ENGINE_FAILURE_NOTIFICATION` {3 blitter, instance 0, reason} (the three
/// dwords `xe_guc_exec_queue_reset_failure_handler` checks), no
/// `CONTEXT_RESET_NOTIFICATION`, the context not banned; nothing more runs
/// on bcs0 while vcs0 still runs; `GRDOM_FULL`, the engine set up again
/// and a reload bring bcs0 back.
#[test]
fn submit_engine_reset_failure_gives_the_engine_up_until_a_guc_reset() {
    let mut h = H::submit_ready();
    let vd0 = Domain::vdbox(0).expect("VDBOX0");
    awake(&mut h.rf, &mut h.rec, &h.clock, &[vd0]);
    h.engine_setup(VCS0);
    h.ready_context(1, LRCA1, RING1);
    h.ready_context(2, LRCA2, RING2);
    assert_eq!(
        h.send1(&[POLICIES, 1, 0x2002_0001, 1000]),
        Some(mmio::success(1))
    );
    assert!(h
        .rf
        .arm_engine_fault("bcs0", EngineFault::ResetFails, &mut h.rec));
    h.request(LRCA1, RING1, 0, (DATA + 0x20, 0x11), 1);
    h.sched(1);
    h.request(LRCA2, RING2, 0, (DATA + 0x24, 0x22), 1);
    h.sched(2);
    assert_eq!(h.gget(DATA + 0x20), 0, "hung at its first command");
    h.us(1001);
    h.tick();
    assert_eq!(
        h.g2h_of(ENGINE_FAILURE),
        [vec![
            event(ENGINE_FAILURE),
            3,
            0,
            crate::regfile::guc::ct::submit::ENGINE_FAILURE_REASON
        ]]
    );
    assert!(h.g2h_of(RESET_NOTIFICATION).is_empty());
    let f = h.events("guc_engine_failure");
    assert_eq!(
        (f.len(), &f[0]["engine"], &f[0]["guc_id"]),
        (1, &"bcs0".into(), &1.into())
    );
    assert!(h.events("guc_submit_reset").is_empty());
    let submit = h.rf.guc().submit();
    assert!(submit.engine_dead("bcs0"));
    assert!(!submit.context(1).expect("registered").banned);
    // Time passes: nothing more on bcs0, no second notification.
    for _ in 0..5 {
        h.ms(2);
        h.tick();
    }
    h.sched(2);
    h.tick();
    assert_eq!(h.gget(DATA + 0x24), 0, "context 2 waits on the dead engine");
    assert_eq!(h.g2h_of(ENGINE_FAILURE).len(), 1);
    let g = h.guc_summary();
    assert_eq!((g.engine_failures, g.engine_resets), (1, 0));
    assert_eq!(h.gs().resets, 0);
    // vcs0 still runs (GuC class 1, logical instance 0).
    h.image_on(VCS0, LRCA3, RING3);
    let reg3 = vec![REGISTER, 1, 3, 1, 1, 0, 0, 0, 0, 0, desc(LRCA3), 0];
    assert_eq!(h.send1(&reg3), Some(mmio::success(0)));
    assert_eq!(h.send1(&[MODE_SET, 3, 1]), Some(mmio::success(0)));
    h.request(LRCA3, RING3, 0, (DATA + 0x28, 0x33), 1);
    h.sched(3);
    h.tick();
    assert_eq!(h.gget(DATA + 0x28), 0x33, "vcs0 runs");
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
    // GRDOM_FULL: engines and GuC reset; the GuC gives nothing up any more.
    h.w(GDRST, regs::guc::GRDOM_FULL.mask32());
    h.us(100);
    assert!(!h.rf.guc().submit().engine_dead("bcs0"));
    h.reload_ct();
    h.engine_setup(BCS0);
    // Context 1 registered again with its request: it runs now.
    h.ready_context(1, LRCA1, RING1);
    h.request(LRCA1, RING1, 0, (DATA + 0x20, 0x11), 1);
    h.sched(1);
    h.tick();
    assert_eq!(h.gget(DATA + 0x20), 0x11, "bcs0 is back");
    assert!(h.g2h_of(ENGINE_FAILURE).is_empty(), "a new channel");
    assert_eq!(h.guc_summary().engine_failures, 1);
    assert_eq!(h.guc_summary().full_resets, 1);
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
}

/// `guc:hang:1`: the GuC reads no H2G (head stays), writes no G2H,
/// answers no MMIO request and schedules nothing, without a violation,
/// until a GuC reset; after the reset and a reload CT works again.
#[test]
fn submit_hung_guc_is_silent_until_a_guc_reset() {
    let mut h = H::submit_ready();
    h.ready_context(1, LRCA1, RING1);
    let g2h_tail = h.desc(G2H_DESC_LMEM)[1];
    let h2g_head = h.desc(H2G_LMEM)[0];
    h.control_guc("guc:hang:1");
    assert!(h.rf.guc().hung());
    // Work for context 1 and a REQUEST: neither is read.
    h.request(LRCA1, RING1, 0, (DATA + 0x20, 0x11), 1);
    assert_eq!(h.sched(1), None);
    assert_eq!(h.send1(&[POLICIES, 1, 0x2002_0001, 1000]), None);
    for _ in 0..3 {
        h.ms(5);
        h.tick();
    }
    assert_eq!(h.desc(H2G_LMEM)[0], h2g_head, "H2G not read");
    assert_ne!(h.desc(H2G_LMEM)[1], h2g_head, "the host did write");
    assert_eq!(h.desc(G2H_DESC_LMEM)[1], g2h_tail, "no G2H");
    assert_eq!(h.gget(DATA + 0x20), 0, "nothing scheduled");
    // An injected G2H event is not written either.
    h.control("g2h:event:1234");
    assert_eq!(h.desc(G2H_DESC_LMEM)[1], g2h_tail);
    // MMIO: the request stays in the scratch registers, unanswered.
    let req = get_hwconfig(HWCONFIG_GGTT, 0);
    let h2g_before = h.rec.summary(false).h2g_requests;
    assert_eq!(h.mmio(&req), req[0]);
    h.ms(5);
    assert_eq!(h.r(flag(0)), req[0]);
    assert_eq!(h.rec.summary(false).h2g_requests, h2g_before);
    // A second hang request changes nothing.
    h.control_guc("guc:hang:1");
    assert_eq!(h.guc_summary().hangs, 1);
    let what: Vec<String> = h
        .events("guc_hang")
        .iter()
        .map(|e| e["action"].as_str().unwrap_or("").to_owned())
        .collect();
    assert_eq!(what, ["hung", "already_hung"]);
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
    // A GuC reset frees it; reloaded, the CT answers again.
    h.reload_ct();
    assert!(!h.rf.guc().hung());
    assert_eq!(h.events("guc_hang").len(), 3, "cleared");
    h.ready_context(1, LRCA1, RING1);
    h.request(LRCA1, RING1, 0, (DATA + 0x20, 0x11), 1);
    h.sched(1);
    h.tick();
    assert_eq!(h.gget(DATA + 0x20), 0x11, "scheduled again");
    assert_eq!(h.guc_summary().hangs, 1);
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
}

/// The GuC log (`log.rs`): at level 1 (upstream's default debug word) a
/// context reset is an entry, its Load is not; at verbosity 1 each Load
/// is (guc_id, GuC class << 8 | instance), after the H2G requests that
/// led to it.
#[test]
fn submit_resets_and_loads_in_the_guc_log() {
    use crate::regfile::guc::log::code;
    let bcs0 = abi::sched::BLITTER_CLASS << 8;
    let mut h = H::submit_ready();
    h.ready_context(1, LRCA1, RING1);
    h.request(LRCA1, RING1, 0, (DATA + 0x50, 0x66), 1);
    h.sched(1);
    assert_eq!(h.gget(DATA + 0x50), 0x66, "ran");
    assert_eq!(h.log_summary().entries, 0, "H2G and Loads are verbose");
    h.control_guc("guc:reset-storm:1");
    assert_eq!(h.log_summary().entries, 1);
    assert_eq!(h.entry(0)[1..], [code::CONTEXT_RESET, 1, bcs0]);

    let mut h = H::log_ct(1);
    assert_eq!(h.log_summary().level, 3);
    h.bus.map_lmem(GGTT_BASE, LMEM_BASE, &vec![0; REGION]);
    h.engine_setup(BCS0);
    h.ready_context(1, LRCA1, RING1);
    h.request(LRCA1, RING1, 0, (DATA + 0x50, 0x66), 1);
    h.sched(1);
    assert_eq!(h.gget(DATA + 0x50), 0x66, "ran");
    let n = h.log_summary().entries as u32;
    let entries: Vec<[u32; 4]> = (0..n).map(|i| h.entry(i)).collect();
    let codes: Vec<u32> = entries.iter().map(|e| e[1] & 0xFFFF).collect();
    // REGISTER_CONTEXT, SCHED_CONTEXT_MODE_SET, SCHED_CONTEXT, then the Load.
    assert_eq!(codes, [code::H2G, code::H2G, code::H2G, code::LOAD]);
    assert_eq!(entries[0][2], REGISTER);
    assert_eq!(entries[3][2..], [1, bcs0]);
    // Sequence numbers count up from the boot.
    let seqs: Vec<u32> = entries.iter().map(|e| e[1] >> 16).collect();
    assert_eq!(seqs, [0, 1, 2, 3]);
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
}
