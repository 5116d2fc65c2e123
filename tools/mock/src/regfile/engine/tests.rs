//! Tests of the command streamers through the register file: an LRC and a
//! ring in a fake GGTT-mapped local memory, submitted through the
//! registers in the order seed 004 and upstream's execlist backend use them.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use serde_json::Value;

use super::csb;
use super::reg;
use super::*;
use crate::ccs::Ccs;
use crate::clock::Clock;
use crate::clock::ManualClock;
use crate::power::Domain;
use crate::regfile::guc::ggtt::PAGE;
use crate::regfile::guc::ggtt::PTE_DM;
use crate::regfile::guc::ggtt::PTE_PRESENT;
use crate::regfile::guc::Target;
use crate::regfile::tests::awake;
use crate::regfile::tests::params;
use crate::regfile::RegisterFile;
use crate::trace::TraceWriter;

// ---- memory ------------------------------------------------------------

/// GGTT-mapped local memory, page by page; unmapped pages fault.
#[derive(Default)]
struct FakeBus {
    ptes: HashMap<u64, u64>,
    lmem: HashMap<u64, Vec<u8>>,
    /// Local memory's CCS metadata (all unknown at first, as at power-on).
    ccs: Ccs,
}

/// Local memory pages sit at the GGTT address plus this (any offset works;
/// a non-zero one proves the translation is used).
const LMEM_OFFSET: u64 = 0x4000_0000;

impl FakeBus {
    /// Maps `len` bytes of fresh zeroed local memory at GGTT `gaddr`.
    fn map(&mut self, gaddr: u64, len: u64) {
        for p in (gaddr / PAGE)..(gaddr + len).div_ceil(PAGE) {
            let phys = p * PAGE + LMEM_OFFSET;
            self.ptes.insert(p, phys | PTE_PRESENT | PTE_DM);
            self.lmem
                .entry(phys / PAGE)
                .or_insert_with(|| vec![0; PAGE as usize]);
        }
    }

    fn phys(&self, gaddr: u64) -> u64 {
        let pte = self.ptes[&(gaddr / PAGE)];
        (pte & !0xfff) + gaddr % PAGE
    }

    fn w32(&mut self, gaddr: u64, v: u32) {
        let a = self.phys(gaddr);
        let page = self.lmem.get_mut(&(a / PAGE)).expect("mapped");
        let o = (a % PAGE) as usize;
        page[o..o + 4].copy_from_slice(&v.to_le_bytes());
    }

    fn r32(&self, gaddr: u64) -> u32 {
        let a = self.phys(gaddr);
        let page = &self.lmem[&(a / PAGE)];
        let o = (a % PAGE) as usize;
        u32::from_le_bytes([page[o], page[o + 1], page[o + 2], page[o + 3]])
    }

    fn r64(&self, gaddr: u64) -> u64 {
        u64::from(self.r32(gaddr)) | u64::from(self.r32(gaddr + 4)) << 32
    }
}

impl Bus for FakeBus {
    fn pte(&self, index: u64) -> Option<u64> {
        Some(self.ptes.get(&index).copied().unwrap_or(0))
    }

    fn read(&self, target: Target, addr: u64, buf: &mut [u8]) -> Result<(), String> {
        assert_eq!(target, Target::Lmem);
        for (i, b) in buf.iter_mut().enumerate() {
            let a = addr + i as u64;
            let page = self.lmem.get(&(a / PAGE)).ok_or("no such LMEM page")?;
            *b = page[(a % PAGE) as usize];
        }
        Ok(())
    }

    fn write(&mut self, target: Target, addr: u64, buf: &[u8]) -> Result<(), String> {
        assert_eq!(target, Target::Lmem);
        for (i, b) in buf.iter().enumerate() {
            let a = addr + i as u64;
            let page = self.lmem.get_mut(&(a / PAGE)).ok_or("no such LMEM page")?;
            page[(a % PAGE) as usize] = *b;
        }
        Ok(())
    }

    fn probe(&self, _: Target, addr: u64, len: u64) -> Result<(), String> {
        for a in (addr / PAGE)..(addr + len).div_ceil(PAGE) {
            if !self.lmem.contains_key(&a) {
                return Err("no such LMEM page".into());
            }
        }
        Ok(())
    }

    fn ccs(&self) -> Option<&Ccs> {
        Some(&self.ccs)
    }

    fn ccs_mut(&mut self) -> Option<&mut Ccs> {
        Some(&mut self.ccs)
    }
}

// ---- commands (encodings as cs.rs cites them) -------------------------

const MI_NOOP: u32 = 0;
const MI_USER_INTERRUPT: u32 = 0x02 << 23;
const MI_ARB_ON_OFF_ENABLE: u32 = 0x08 << 23 | 1;
const MI_BB_END: u32 = 0x0a << 23;
/// `MI_STORE_DATA_IMM | MI_SDI_GGTT | MI_SDI_NUM_DW(1)`.
const SDI_GGTT_1DW: u32 = 0x20 << 23 | 1 << 22 | 2;
/// `MI_FLUSH_DW | MI_FLUSH_DW_OP_STOREDW | MI_FLUSH_IMM_DW`.
const FLUSH_DW_STORE: u32 = 0x26 << 23 | 1 << 14 | 2;
/// `GFX_OP_PIPE_CONTROL(6)`.
const PIPE_CONTROL_6: u32 = 0x7a00_0004;
/// `MI_SEMAPHORE_WAIT | MI_SEMW_GGTT | MI_SEMAPHORE_POLL | SAD_EQ_SDD`,
/// 5 dwords.
const SEM_WAIT_EQ: u32 = 0x1c << 23 | 1 << 22 | 1 << 15 | 4 << 12 | 3;
/// `MI_BATCH_BUFFER_START` (GGTT), 3 dwords.
const BB_START: u32 = 0x31 << 23 | 1;
/// `MI_LOAD_REGISTER_IMM | MI_LRI_LRM_CS_MMIO | MI_LRI_NUM_REGS(1)`.
const LRI_1: u32 = 0x22 << 23 | 1 << 19 | 1;
/// `MI_STORE_REGISTER_MEM | MI_SRM_USE_GGTT | MI_SRM_ADD_CS_OFFSET`, as
/// xe's `emit_copy_timestamp` writes it (0x12480002).
const SRM_GGTT_CS: u32 = 0x24 << 23 | 1 << 22 | 1 << 19 | 2;
/// `XY_FAST_COPY_BLT_CMD | (10 - 2)`.
const XY_FAST_COPY: u32 = (2 << 29) | (0x42 << 22) | 8;
/// `XY_FAST_COLOR_BLT_CMD | XY_FAST_COLOR_BLT_DEPTH_32 | (16 - 2)`, as
/// upstream's `emit_clear_main_copy` writes it on DG2.
const XY_FAST_COLOR: u32 = (2 << 29) | (0x44 << 22) | (2 << 19) | 14;

/// An `XY_FAST_COLOR_BLT` of `rows` rows of `pitch` bytes at `dst` with
/// `value`, in `emit_clear_main_copy`'s layout (MOCS 0, local memory).
fn color_blt(dst: u64, rows: u32, pitch: u32, value: u32) -> [u32; 16] {
    let mut c = [0u32; 16];
    c[0] = XY_FAST_COLOR;
    c[1] = pitch - 1;
    c[3] = (rows << 16) | (pitch / 4);
    c[4] = dst as u32;
    c[5] = (dst >> 32) as u32;
    c[7] = value;
    c
}

/// `XY_CTRL_SURF_COPY_BLT` (`xe_gpu_commands.h`, with its `| 3`).
const XY_CTRL_SURF: u32 = (2 << 29) | (0x48 << 22) | 3;

/// An `XY_CTRL_SURF_COPY_BLT` of `blocks` 256-byte CCS blocks from `src`
/// to `dst` (`true`: direct), in `emit_copy_ccs`'s pre-Xe2 layout with
/// MOCS index 3 in both address dwords.
fn ctrl_surf(src: (u64, bool), dst: (u64, bool), blocks: u32) -> [u32; 5] {
    let mocs = 3 << 26;
    [
        XY_CTRL_SURF | u32::from(src.1) << 21 | u32::from(dst.1) << 20 | (blocks - 1) << 8,
        src.0 as u32,
        (src.0 >> 32) as u32 | mocs,
        dst.0 as u32,
        (dst.0 >> 32) as u32 | mocs,
    ]
}

fn sdi(addr: u64, v: u32) -> [u32; 4] {
    [SDI_GGTT_1DW, addr as u32, (addr >> 32) as u32, v]
}

fn sem_eq(addr: u64, v: u32) -> [u32; 5] {
    [SEM_WAIT_EQ, v, addr as u32, (addr >> 32) as u32, 0]
}

// ---- layout --------------------------------------------------------------

const HWSP: u64 = 0x10_0000;
const RING: u64 = 0x20_0000;
const RING_SIZE: u32 = 0x2000;
const LRCA: u64 = 0x30_0000;
const LRCA2: u64 = 0x38_0000;
const RING2: u64 = 0x28_0000;
const DATA: u64 = 0x40_0000;
const BATCH: u64 = 0x50_0000;
const CTX: u16 = 0x2a;
const CTX2: u16 = 0x2b;

fn temp_trace() -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!("xehpg-mock-cs-{}-{n}.jsonl", std::process::id()))
}

struct H {
    rf: RegisterFile,
    rec: Recorder,
    clock: ManualClock,
    bus: FakeBus,
    trace: PathBuf,
    base: u32,
}

impl Drop for H {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.trace);
    }
}

impl H {
    /// Engine `name` with its domains awake, execlists enabled, the HWSP
    /// set and the CSB pointers primed like i915 does.
    fn new(name: &str) -> H {
        let clock = ManualClock::new();
        let trace = temp_trace();
        let mut rec = Recorder::new(
            Arc::new(clock.clone()),
            TraceWriter::create(&trace).expect("trace"),
            None,
        );
        let mut rf = RegisterFile::new(&params(), clock.now()).expect("register file");
        awake(&mut rf, &mut rec, &clock, &[Domain::GT, Domain::RENDER]);
        let mut bus = FakeBus::default();
        bus.map(HWSP, PAGE);
        bus.map(RING, u64::from(RING_SIZE));
        bus.map(RING2, u64::from(RING_SIZE));
        bus.map(LRCA, 2 * PAGE);
        bus.map(LRCA2, 2 * PAGE);
        bus.map(DATA, PAGE);
        bus.map(BATCH, PAGE);
        let base = def_by_name(name).expect("engine").base;
        let mut h = H {
            rf,
            rec,
            clock,
            bus,
            trace,
            base,
        };
        h.w(reg::RING_HWS_PGA, HWSP as u32);
        h.w(
            reg::RING_MODE,
            DISABLE_LEGACY_MODE << 16 | DISABLE_LEGACY_MODE,
        );
        h.w(reg::RING_MI_MODE, STOP_RING << 16);
        h.w(reg::RING_CONTEXT_STATUS_PTR, 0xffff << 16 | 11 << 8 | 11);
        if name.starts_with("ccs") {
            h.rcu_ccs_enable(true);
        }
        h
    }

    /// `RCU_MODE.RCU_MODE_CCS_ENABLE` (masked) set or cleared, as
    /// upstream's "Enable CCS Engine(s)" (`xe_hw_engine.c`).
    fn rcu_ccs_enable(&mut self, on: bool) {
        let v = RCU_MODE_CCS_ENABLE << 16 | if on { RCU_MODE_CCS_ENABLE } else { 0 };
        let done = self.rf.write_with(
            crate::regs::tuning::RCU_MODE.offset,
            v,
            &mut self.rec,
            &mut self.bus,
        );
        assert!(done.is_some(), "RCU_MODE is a register");
    }

    fn w(&mut self, rel: u32, v: u32) {
        let done = self
            .rf
            .write_with(self.base + rel, v, &mut self.rec, &mut self.bus);
        assert!(done.is_some(), "+{rel:#x} is an engine register");
    }

    fn r(&mut self, rel: u32) -> u32 {
        self.rf
            .read(self.base + rel, &mut self.rec)
            .expect("an engine register")
    }

    /// Writes upstream's xcs register state (`dg2_xcs_offsets`) for a
    /// context whose ring is at `ring`: LRCA + 4096 holds NOP, LRI(15) with
    /// CONTEXT_CONTROL, HEAD, TAIL, START, CTL, ..., NOP, LRI(9), BB_END.
    fn lrc(&mut self, lrca: u64, ring: u64, head: u32, tail: u32) {
        let b = self.base;
        let regs15: [(u32, u32); 15] = [
            (0x244, 0x0009_0009),
            (0x34, head),
            (0x30, tail),
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
        let mut img = vec![MI_NOOP, 0x1100_0000 | 1 << 19 | 1 << 12 | (2 * 15 - 1)];
        for (o, v) in regs15 {
            img.extend([b + o, v]);
        }
        img.extend([MI_NOOP, 0x1100_0000 | 1 << 19 | 1 << 12 | (2 * 9 - 1)]);
        for o in [
            0x3a8, 0x28c, 0x288, 0x284, 0x280, 0x27c, 0x278, 0x274, 0x270,
        ] {
            img.extend([b + o, 0]);
        }
        img.push(MI_BB_END | 1);
        for (i, d) in img.iter().enumerate() {
            self.bus.w32(lrca + 4096 + 4 * i as u64, *d);
        }
    }

    /// The image's `CTX_RING_HEAD` (dw 5) and `CTX_RING_TAIL` (dw 7).
    fn saved(&self, lrca: u64) -> (u32, u32) {
        (
            self.bus.r32(lrca + 4096 + 4 * 5),
            self.bus.r32(lrca + 4096 + 4 * 7),
        )
    }

    fn set_tail(&mut self, lrca: u64, tail: u32) {
        self.bus.w32(lrca + 4096 + 4 * 7, tail);
    }

    /// Writes `cmds` into the ring at byte `at`; returns the end.
    fn emit(&mut self, ring: u64, at: u32, cmds: &[u32]) -> u32 {
        for (i, c) in cmds.iter().enumerate() {
            self.bus.w32(ring + u64::from(at) + 4 * i as u64, *c);
        }
        at + 4 * cmds.len() as u32
    }

    /// Submits `(lrca, ctx id)` elements: SQ then Load.
    fn submit(&mut self, els: &[(u64, u16)]) {
        for n in 0..8u32 {
            let (lo, hi) = els.get(n as usize).map_or((0, 0), |&(lrca, id)| {
                (lrca as u32 | 3 << 3 | 1, u32::from(id) << 7)
            });
            self.w(reg::SQ_CONTENTS + 8 * n, lo);
            self.w(reg::SQ_CONTENTS + 8 * n + 4, hi);
        }
        self.w(reg::RING_EXECLIST_CONTROL, EL_CTRL_LOAD);
    }

    /// The HWSP CSB entries written so far (from entry 0) and its write
    /// pointer dword.
    fn csb(&self, n: u64) -> (Vec<u64>, u32) {
        let entries = (0..n)
            .map(|i| self.bus.r64(HWSP + 4 * (0x10 + 2 * i)))
            .collect();
        (entries, self.bus.r32(HWSP + 4 * 0x2f))
    }

    fn events(&mut self, ev: &str) -> Vec<Value> {
        self.rec.flush();
        std::fs::read_to_string(&self.trace)
            .expect("trace")
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).expect("JSON"))
            .filter(|v| v["ev"] == ev)
            .collect()
    }

    /// Vector bits raised at engine `name`, in order.
    fn irqs(&mut self, name: &str) -> Vec<u64> {
        self.events("irq_raise")
            .into_iter()
            .filter(|v| v["source"] == name)
            .map(|v| {
                u64::from_str_radix(
                    v["data"].as_str().expect("hex").trim_start_matches("0x"),
                    16,
                )
                .expect("hex")
            })
            .collect()
    }

    fn counters(&self, name: &str) -> crate::summary::EngineCounters {
        self.rec
            .summary(false)
            .engines
            .by_engine
            .get(name)
            .cloned()
            .unwrap_or_default()
    }

    fn tick(&mut self) {
        self.clock.advance(std::time::Duration::from_millis(1));
        self.rf.service_engines(&mut self.rec, &mut self.bus);
    }
}

fn idle_to_active(instance: u8, to: u16) -> u64 {
    // lo: detail 0, instance 9:4, to 25:10; hi: new queue bit 1, away 25:10.
    u64::from(u32::from(instance) << 4 | u32::from(to) << 10)
        | u64::from(1u32 << 1 | 0xffff << 10) << 32
}

fn to_idle(instance: u8, away: u16) -> u64 {
    u64::from(u32::from(instance) << 4 | 0xffff << 10) | u64::from(u32::from(away) << 10) << 32
}

// ---- tests ---------------------------------------------------------------

/// The whole path on BCS0: restore, execute, store, user interrupt,
/// complete, save HEAD, two CSB entries in HWSP and mirror, interrupts
/// 8, 0, 8 in that order.
#[test]
fn a_context_runs_to_completion_and_reports_both_switches() {
    let mut h = H::new("bcs0");
    let mut cmds = vec![MI_ARB_ON_OFF_ENABLE];
    cmds.extend(sdi(DATA + 0x40, 0xdead_beef));
    cmds.extend([MI_USER_INTERRUPT, MI_NOOP]);
    cmds.extend([FLUSH_DW_STORE, (DATA + 0x80) as u32 | 1 << 2, 0, 7, MI_NOOP]);
    let tail = h.emit(RING, 0, &cmds);
    assert_eq!(tail % 8, 0);
    h.lrc(LRCA, RING, 0, tail);
    h.submit(&[(LRCA, CTX)]);

    assert_eq!(h.bus.r32(DATA + 0x40), 0xdead_beef, "MI_STORE_DATA_IMM");
    assert_eq!(h.bus.r32(DATA + 0x80), 7, "MI_FLUSH_DW post-sync store");
    let (entries, wp) = h.csb(2);
    assert_eq!(entries[0], idle_to_active(0, CTX));
    assert_eq!(entries[1], to_idle(0, CTX));
    assert_eq!(wp, 1, "write pointer: index of the last entry");
    // The MMIO mirror and the pointer register.
    assert_eq!(h.r(reg::CSB_BUF), entries[0] as u32);
    assert_eq!(h.r(reg::CSB_BUF + 4), (entries[0] >> 32) as u32);
    assert_eq!(h.r(reg::CSB_BUF + 8), entries[1] as u32);
    assert_eq!(h.r(reg::CSB_BUF + 12), (entries[1] >> 32) as u32);
    assert_eq!(h.r(reg::RING_CONTEXT_STATUS_PTR) & 0xf, 1);
    assert_eq!(
        h.r(reg::RING_CONTEXT_STATUS_PTR) >> 8 & 0xf,
        11,
        "SW's read pointer"
    );
    // RING_HEAD saved back into the image.
    assert_eq!(h.saved(LRCA), (tail, tail));
    assert_eq!(h.irqs("bcs0"), vec![0x100, 0x1, 0x100]);
    // Idle again; the ring registers read the last context's.
    assert_eq!(h.r(reg::RING_EXECLIST_STATUS_LO) & 1, 0);
    assert_eq!(h.r(reg::RING_EXECLIST_STATUS_HI), 0xffff);
    assert_eq!(h.r(reg::RING_CURRENT_LRCA), 0);
    assert_eq!(h.r(reg::RING_HEAD), tail);
    assert_eq!(h.r(reg::RING_START), RING as u32);
    let c = h.counters("bcs0");
    assert_eq!(
        (
            c.loads,
            c.contexts_completed,
            c.commands,
            c.user_interrupts,
            c.csb_entries
        ),
        (1, 1, 6, 1, 2)
    );
    assert_eq!((c.errors, c.violations), (0, 0));
    assert_eq!(h.rec.summary(false).violations, 0);
}

/// RCS0: PIPE_CONTROL's post-sync write lands as a qword; MI_FLUSH_DW is
/// not a render command (instruction error).
#[test]
fn pipe_control_writes_on_render_and_flush_dw_is_refused() {
    let mut h = H::new("rcs0");
    let mut cmds = vec![
        PIPE_CONTROL_6,
        1 << 24 | 1 << 20 | 1 << 14,
        (DATA + 0x10) as u32,
        0,
        0x1234,
        0x5678,
    ];
    cmds.extend([MI_USER_INTERRUPT, MI_NOOP]);
    let tail = h.emit(RING, 0, &cmds);
    h.lrc(LRCA, RING, 0, tail);
    h.submit(&[(LRCA, CTX)]);
    assert_eq!(h.bus.r64(DATA + 0x10), 0x5678_0000_1234);
    assert_eq!(h.counters("rcs0").contexts_completed, 1);

    let at = tail;
    let tail2 = h.emit(RING, at, &[FLUSH_DW_STORE, (DATA + 0x20) as u32 | 4, 0, 9]);
    h.set_tail(LRCA, tail2);
    h.submit(&[(LRCA, CTX)]);
    assert_eq!(h.r(reg::RING_EIR), ERROR_INSTRUCTION);
    assert_eq!(h.r(reg::RING_IPEHR), FLUSH_DW_STORE);
    assert_eq!(h.r(reg::RING_ACTHD), RING as u32 + at);
    assert_eq!(h.bus.r32(DATA + 0x20), 0, "nothing stored");
}

/// xe's `emit_pipe_invalidate`: flush and invalidate flags with a
/// store-data-index qword write lands at that offset of the context's
/// PPHWSP (the LRCA's page); a 7-dword PIPE_CONTROL and a post-sync LRI
/// are instruction errors.
#[test]
fn pipe_control_store_data_index_writes_the_pphwsp() {
    let mut h = H::new("rcs0");
    // flags0: L3 read-only invalidate (bit 10); flags1: command, instruction,
    // texture, VF, constant, state cache invalidates, CS stall, QW write,
    // store data index (xe_ring_ops.c).
    let flags1 =
        1 << 29 | 1 << 11 | 1 << 10 | 1 << 4 | 1 << 3 | 1 << 2 | 1 << 20 | 1 << 14 | 1 << 21;
    let mut cmds = vec![
        PIPE_CONTROL_6 | 1 << 10,
        flags1,
        0x34 * 4,
        0,
        0x1111,
        0x2222,
    ];
    cmds.extend([MI_NOOP, MI_NOOP]);
    let tail = h.emit(RING, 0, &cmds);
    h.lrc(LRCA, RING, 0, tail);
    h.submit(&[(LRCA, CTX)]);
    assert_eq!(h.r(reg::RING_EIR), 0);
    assert_eq!(h.bus.r64(LRCA + 0x34 * 4), 0x2222_0000_1111);
    assert_eq!(h.counters("rcs0").contexts_completed, 1);

    let mut h = H::new("rcs0");
    let long = PIPE_CONTROL_6 + 1;
    let tail = h.emit(
        RING,
        0,
        &[long, 1 << 14 | 1 << 24, DATA as u32, 0, 1, 0, 0, 0],
    );
    h.lrc(LRCA, RING, 0, tail);
    h.submit(&[(LRCA, CTX)]);
    assert_eq!(h.r(reg::RING_EIR), ERROR_INSTRUCTION);
    assert_eq!(h.r(reg::RING_IPEHR), long);
    assert_eq!(h.bus.r32(DATA), 0);

    let mut h = H::new("rcs0");
    let tail = h.emit(RING, 0, &[PIPE_CONTROL_6, 1 << 23, 0x2000, 0, 1, 0, 0, 0]);
    h.lrc(LRCA, RING, 0, tail);
    h.submit(&[(LRCA, CTX)]);
    assert_eq!(h.r(reg::RING_EIR), ERROR_INSTRUCTION);
}

/// A lite restore picks up the new TAIL: the context waits on a semaphore,
/// the driver appends a store and resubmits the same LRCA, then releases
/// the semaphore; the tick re-polls it and the context runs to the new tail.
#[test]
fn lite_restore_picks_up_the_new_tail_and_ticks_repoll_the_semaphore() {
    let mut h = H::new("bcs0");
    let sem = DATA;
    let mut cmds = sem_eq(sem, 1).to_vec();
    cmds.extend(sdi(DATA + 8, 0xa));
    cmds.push(MI_NOOP);
    let tail = h.emit(RING, 0, &cmds);
    assert_eq!(tail % 8, 0);
    h.lrc(LRCA, RING, 0, tail);
    h.submit(&[(LRCA, CTX)]);
    assert_eq!(
        h.r(reg::RING_EXECLIST_STATUS_LO) & 1,
        1,
        "waiting, still active"
    );
    assert_eq!(h.r(reg::RING_HEAD), 0, "the wait has not passed");
    h.tick();
    assert_eq!(h.bus.r32(DATA + 8), 0);

    let mut more = sdi(DATA + 0xc, 0xb).to_vec();
    more.extend([MI_USER_INTERRUPT, MI_NOOP, MI_NOOP, MI_NOOP]);
    let tail2 = h.emit(RING, tail, &more);
    h.set_tail(LRCA, tail2);
    h.submit(&[(LRCA, CTX)]);
    assert_eq!(h.r(reg::RING_TAIL), tail2, "the new tail is live");
    let (entries, wp) = h.csb(2);
    let lite = u64::from(u32::from(CTX) << 10) | u64::from(1 << 1 | u32::from(CTX) << 10) << 32;
    assert_eq!(entries[1], lite, "lite restore: new queue, away = to");
    assert_eq!(wp, 1);

    h.bus.w32(sem, 1);
    h.tick();
    assert_eq!(h.bus.r32(DATA + 8), 0xa);
    assert_eq!(h.bus.r32(DATA + 0xc), 0xb);
    assert_eq!(h.saved(LRCA), (tail2, tail2));
    let (entries, wp) = h.csb(3);
    assert_eq!(entries[2], to_idle(0, CTX));
    assert_eq!(wp, 2);
    assert_eq!(h.irqs("bcs0"), vec![0x100, 0x100, 0x1, 0x100]);
    let c = h.counters("bcs0");
    assert_eq!((c.loads, c.lite_restores, c.contexts_completed), (2, 1, 1));
}

/// A Load with a different context preempts the waiting one: its HEAD
/// (at the wait) is saved, one entry reports the switch with detail 5, the
/// new context runs; the second element of a queue follows on completion
/// with an element-switch entry.
#[test]
fn preemption_and_element_switch() {
    let mut h = H::new("bcs0");
    let mut a = vec![MI_NOOP, MI_NOOP];
    a.extend(sem_eq(DATA, 1));
    a.push(MI_NOOP);
    let tail_a = h.emit(RING, 0, &a);
    h.lrc(LRCA, RING, 0, tail_a);
    h.submit(&[(LRCA, CTX)]);
    let tail_b = h.emit(RING2, 0, &sdi(DATA + 4, 0xb));
    h.lrc(LRCA2, RING2, 0, tail_b);
    h.submit(&[(LRCA2, CTX2), (LRCA, CTX)]);
    assert_eq!(h.bus.r32(DATA + 4), 0xb);
    assert_eq!(h.saved(LRCA).0, 8, "A's HEAD at its semaphore wait");
    let (entries, _) = h.csb(3);
    let preempt =
        u64::from(5 | u32::from(CTX2) << 10) | u64::from(1 << 1 | u32::from(CTX) << 10) << 32;
    assert_eq!(entries[1], preempt);
    // B completed: element switch to A (new queue 0, detail 0).
    let element = u64::from(u32::from(CTX) << 10) | u64::from(u32::from(CTX2) << 10) << 32;
    assert_eq!(entries[2], element);
    assert_eq!(
        h.r(reg::RING_EXECLIST_STATUS_HI),
        u32::from(CTX),
        "A resumed"
    );
    assert_eq!(h.r(reg::RING_HEAD), 8, "from where it was preempted");
    h.bus.w32(DATA, 1);
    h.tick();
    let (entries, wp) = h.csb(4);
    assert_eq!(entries[3], to_idle(0, CTX));
    assert_eq!(wp, 3);
    let c = h.counters("bcs0");
    assert_eq!(
        (c.preemptions, c.contexts_completed, c.csb_entries),
        (1, 2, 4)
    );
}

/// A context preempted while it waits inside a batch resumes there: the
/// rest of the batch runs, then the ring after the batch start.
#[test]
fn a_context_preempted_in_a_batch_resumes_in_it() {
    let mut h = H::new("bcs0");
    let mut batch = sem_eq(DATA, 1).to_vec();
    batch.extend(sdi(DATA + 4, 0xa));
    batch.extend([MI_BB_END, MI_NOOP]);
    for (i, d) in batch.iter().enumerate() {
        h.bus.w32(BATCH + 4 * i as u64, *d);
    }
    let mut a = vec![BB_START, BATCH as u32, 0, MI_NOOP];
    a.extend(sdi(DATA + 8, 0xc));
    let tail_a = h.emit(RING, 0, &a);
    h.lrc(LRCA, RING, 0, tail_a);
    h.submit(&[(LRCA, CTX)]);
    let tail_b = h.emit(RING2, 0, &sdi(DATA + 12, 0xb));
    h.lrc(LRCA2, RING2, 0, tail_b);
    h.submit(&[(LRCA2, CTX2), (LRCA, CTX)]);
    assert_eq!(h.bus.r32(DATA + 12), 0xb, "B ran");
    assert_eq!(h.saved(LRCA).0, 12, "A's HEAD after its batch start");
    assert_eq!(h.r(reg::RING_EXECLIST_STATUS_HI), u32::from(CTX), "A back");
    h.bus.w32(DATA, 1);
    h.tick();
    assert_eq!(h.bus.r32(DATA + 4), 0xa, "the rest of the batch");
    assert_eq!(h.bus.r32(DATA + 8), 0xc, "then the ring");
    assert_eq!(h.counters("bcs0").contexts_completed, 2);
}

/// A ring in an unmapped page: page-table error (EIR/ESR bit 4, ACTHD),
/// CS error interrupt, the context halts and stays active.
#[test]
fn an_unmapped_ring_is_a_page_table_error_and_halts() {
    let mut h = H::new("bcs0");
    let hole = 0x60_0000u64;
    h.lrc(LRCA, hole, 0x10, 0x40);
    h.submit(&[(LRCA, CTX)]);
    assert_eq!(h.r(reg::RING_EIR), ERROR_PAGE_TABLE);
    assert_eq!(h.r(reg::RING_ESR), ERROR_PAGE_TABLE);
    assert_eq!(h.r(reg::RING_ACTHD), hole as u32 + 0x10);
    assert_eq!(
        h.r(reg::RING_EXECLIST_STATUS_LO) & 1,
        1,
        "halted, still active"
    );
    assert_eq!(h.irqs("bcs0"), vec![0x100, 0x8]);
    h.tick();
    assert_eq!(
        h.events("engine_error").len(),
        1,
        "no progress, no new error"
    );
    assert_eq!(h.rec.summary(false).engines.gtt_faults, 1);
    assert_eq!(h.counters("bcs0").errors, 1);
    // EIR is RW1C.
    h.w(reg::RING_EIR, ERROR_PAGE_TABLE);
    assert_eq!(h.r(reg::RING_EIR), 0);
    assert_eq!(h.r(reg::RING_ESR), ERROR_PAGE_TABLE);
}

/// An unknown command: instruction error with IPEHR = its header.
#[test]
fn an_unknown_command_is_an_instruction_error() {
    let mut h = H::new("bcs0");
    let bogus = 0x3f << 23; // MI opcode 3Fh: reserved (seed 004 L635).
    let tail = h.emit(RING, 0, &[MI_NOOP, MI_NOOP, bogus, MI_NOOP]);
    h.lrc(LRCA, RING, 0, tail);
    h.submit(&[(LRCA, CTX)]);
    assert_eq!(h.r(reg::RING_EIR), ERROR_INSTRUCTION);
    assert_eq!(h.r(reg::RING_IPEHR), bogus);
    assert_eq!(h.r(reg::RING_ACTHD), RING as u32 + 8);
    assert_eq!(h.r(reg::RING_HEAD), 8, "stopped at the command");
    assert_eq!(h.irqs("bcs0"), vec![0x100, 0x8]);
    // A masked error is recorded in ESR only and raises nothing.
    let mut h = H::new("bcs0");
    h.w(reg::RING_EMR, !0);
    let tail = h.emit(RING, 0, &[bogus, MI_NOOP]);
    h.lrc(LRCA, RING, 0, tail);
    h.submit(&[(LRCA, CTX)]);
    assert_eq!(
        (h.r(reg::RING_EIR), h.r(reg::RING_ESR)),
        (0, ERROR_INSTRUCTION)
    );
    assert_eq!(h.irqs("bcs0"), vec![0x100]);
}

/// Reset: REQUEST_RESET gives READY_TO_RESET; GDRST's BLT bit drops the
/// halted context without a save, clears the ring and error registers and
/// RESET_CTL, leaves the CSB pointers; the engine then runs again. The
/// RENDER bit does not touch BCS0.
#[test]
fn reset_through_reset_ctl_and_gdrst_clears_the_engine() {
    let mut h = H::new("bcs0");
    let tail = h.emit(RING, 0, &[0x3f << 23, MI_NOOP]);
    h.lrc(LRCA, RING, 0, tail);
    h.submit(&[(LRCA, CTX)]);
    assert_eq!(h.r(reg::RING_EIR), ERROR_INSTRUCTION);
    h.w(reg::RING_RESET_CTL, REQUEST_RESET << 16 | REQUEST_RESET);
    assert_eq!(h.r(reg::RING_RESET_CTL), REQUEST_RESET | READY_TO_RESET);
    let gdrst = crate::regs::guc::GDRST.offset;
    h.rf.write_with(gdrst, GRDOM_RENDER, &mut h.rec, &mut h.bus);
    assert_eq!(
        h.r(reg::RING_EXECLIST_STATUS_LO) & 1,
        1,
        "RENDER is not BCS0's domain"
    );
    h.rf.write_with(gdrst, GRDOM_BLT, &mut h.rec, &mut h.bus);
    assert_eq!(h.rf.read(gdrst, &mut h.rec), Some(0), "self-clearing");
    assert_eq!(h.r(reg::RING_EXECLIST_STATUS_LO) & 1, 0);
    assert_eq!(h.r(reg::RING_EXECLIST_STATUS_HI), 0xffff);
    for r in [
        reg::RING_HEAD,
        reg::RING_TAIL,
        reg::RING_START,
        reg::RING_CTL,
    ] {
        assert_eq!(h.r(r), 0, "+{r:#x}");
    }
    for r in [
        reg::RING_EIR,
        reg::RING_ESR,
        reg::RING_IPEHR,
        reg::RING_ACTHD,
        reg::RING_RESET_CTL,
    ] {
        assert_eq!(h.r(r), 0, "+{r:#x}");
    }
    assert_eq!(
        h.r(reg::RING_CONTEXT_STATUS_PTR) & 0xf,
        0,
        "pointers untouched"
    );
    assert_eq!(h.saved(LRCA), (0, tail), "dropped without a save");
    assert_eq!(h.counters("bcs0").resets, 1);
    // Runs again: the next entry follows the old ones.
    let tail = h.emit(RING, 0, &sdi(DATA, 5));
    h.lrc(LRCA, RING, 0, tail);
    h.submit(&[(LRCA, CTX)]);
    assert_eq!(h.bus.r32(DATA), 5);
    let (entries, wp) = h.csb(3);
    assert_eq!(entries[1], idle_to_active(0, CTX));
    assert_eq!(wp, 2);
}

/// `engine:hang`: the next context never progresses (RESET_CTL still gets
/// ready, a reset recovers); `engine:csb-lost`: the next entry and pointer
/// are not written, the interrupt still fires.
#[test]
fn fault_switches() {
    let mut h = H::new("bcs0");
    assert!(h.rf.arm_engine_fault("bcs0", EngineFault::Hang, &mut h.rec));
    let tail = h.emit(RING, 0, &sdi(DATA, 5));
    h.lrc(LRCA, RING, 0, tail);
    h.submit(&[(LRCA, CTX)]);
    h.tick();
    assert_eq!(h.bus.r32(DATA), 0, "no progress");
    assert_eq!(h.r(reg::RING_EXECLIST_STATUS_LO) & 1, 1);
    h.w(reg::RING_RESET_CTL, REQUEST_RESET << 16 | REQUEST_RESET);
    assert_eq!(h.r(reg::RING_RESET_CTL) & READY_TO_RESET, READY_TO_RESET);
    let gdrst = crate::regs::guc::GDRST.offset;
    h.rf.write_with(gdrst, GRDOM_BLT, &mut h.rec, &mut h.bus);
    h.submit(&[(LRCA, CTX)]);
    assert_eq!(h.bus.r32(DATA), 5, "the switch was for one context");

    let mut h = H::new("bcs0");
    assert!(h
        .rf
        .arm_engine_fault("bcs0", EngineFault::CsbLost, &mut h.rec));
    let tail = h.emit(RING, 0, &sdi(DATA, 5));
    h.lrc(LRCA, RING, 0, tail);
    h.bus.w32(HWSP + 4 * 0x2f, 11);
    h.submit(&[(LRCA, CTX)]);
    let (entries, wp) = h.csb(1);
    assert_eq!(
        entries[0],
        idle_to_active(0, CTX),
        "the switch-out entry was lost, the switch-in kept"
    );
    assert_eq!(wp, 0);
    assert_eq!(h.irqs("bcs0"), vec![0x100, 0x100], "both interrupts fired");
    assert_eq!(h.counters("bcs0").csb_entries, 1);
    // Fused-off engines cannot be armed.
    assert!(!h.rf.arm_engine_fault("vcs1", EngineFault::Hang, &mut h.rec));
}

/// Batch buffers: the ring calls a GGTT batch that stores and ends; the
/// ring goes on. A PPGTT batch is a page-table error, MI_BATCH_BUFFER_END
/// in the ring an instruction error.
#[test]
fn batch_buffers() {
    let mut h = H::new("bcs0");
    let mut batch = sdi(DATA, 1).to_vec();
    batch.extend([MI_BB_END, MI_NOOP]);
    for (i, d) in batch.iter().enumerate() {
        h.bus.w32(BATCH + 4 * i as u64, *d);
    }
    let mut cmds = vec![BB_START, BATCH as u32, 0, MI_NOOP];
    cmds.extend(sdi(DATA + 4, 2));
    let tail = h.emit(RING, 0, &cmds);
    h.lrc(LRCA, RING, 0, tail);
    h.submit(&[(LRCA, CTX)]);
    assert_eq!((h.bus.r32(DATA), h.bus.r32(DATA + 4)), (1, 2));
    assert_eq!(h.counters("bcs0").contexts_completed, 1);

    let mut h = H::new("bcs0");
    let tail = h.emit(RING, 0, &[BB_START | 1 << 8, BATCH as u32, 0, MI_NOOP]);
    h.lrc(LRCA, RING, 0, tail);
    h.submit(&[(LRCA, CTX)]);
    assert_eq!(h.r(reg::RING_EIR), ERROR_PAGE_TABLE);

    let mut h = H::new("bcs0");
    let tail = h.emit(RING, 0, &[MI_BB_END, MI_NOOP]);
    h.lrc(LRCA, RING, 0, tail);
    h.submit(&[(LRCA, CTX)]);
    assert_eq!(h.r(reg::RING_EIR), ERROR_INSTRUCTION);
}

/// LRI: CONTEXT_CONTROL (masked) and the GPRs are allowed; RING_MODE is a
/// privilege violation.
#[test]
fn lri_allow_list() {
    let mut h = H::new("bcs0");
    let mut cmds = vec![LRI_1, h.base + reg::RING_CONTEXT_CONTROL, 1 << 16 | 1 << 2];
    cmds.extend([LRI_1, reg::CS_GPR + 4, 0x77]);
    let tail = h.emit(RING, 0, &cmds);
    h.lrc(LRCA, RING, 0, tail);
    h.submit(&[(LRCA, CTX)]);
    assert_eq!(h.r(reg::CS_GPR + 4), 0x77, "relative address with CS_MMIO");
    assert_eq!(h.r(reg::RING_EIR), 0);

    let mut h = H::new("bcs0");
    let tail = h.emit(
        RING,
        0,
        &[LRI_1, h.base + reg::RING_MODE, 0xffff_0000, MI_NOOP],
    );
    h.lrc(LRCA, RING, 0, tail);
    h.submit(&[(LRCA, CTX)]);
    assert_eq!(h.r(reg::RING_EIR), ERROR_INSTRUCTION);
    assert_eq!(h.r(reg::RING_MODE), DISABLE_LEGACY_MODE, "not written");
}

/// SRM stores a modelled register's value (a GPR set by LRI, CS-MMIO
/// relative; RING_TAIL by its absolute address), RING_CTX_TIMESTAMP's 0,
/// and 0 for a register the mock does not model, which is recorded, not
/// an error.
#[test]
fn store_register_mem_stores_registers() {
    let mut h = H::new("rcs0");
    let b = h.base;
    for i in 0..4 {
        h.bus.w32(DATA + 4 * i, 0xffff_ffff);
    }
    let mut cmds = vec![LRI_1, reg::CS_GPR + 8, 0xabcd_0123];
    cmds.extend([SRM_GGTT_CS, reg::CS_GPR + 8, DATA as u32, 0]);
    cmds.extend([
        SRM_GGTT_CS & !(1 << 19),
        b + reg::RING_TAIL,
        (DATA + 4) as u32,
        0,
    ]);
    cmds.extend([SRM_GGTT_CS, reg::RING_CTX_TIMESTAMP, (DATA + 8) as u32, 0]);
    cmds.extend([SRM_GGTT_CS & !(1 << 19), 0x7004, (DATA + 12) as u32, 0]);
    cmds.push(MI_NOOP);
    let tail = h.emit(RING, 0, &cmds);
    h.lrc(LRCA, RING, 0, tail);
    h.submit(&[(LRCA, CTX)]);
    assert_eq!(h.r(reg::RING_EIR), 0);
    assert_eq!(h.bus.r32(DATA), 0xabcd_0123, "CS_GPR R1 low dword");
    assert_eq!(h.bus.r32(DATA + 4), tail, "RING_TAIL");
    assert_eq!(h.bus.r32(DATA + 8), 0, "RING_CTX_TIMESTAMP [MODEL] 0");
    assert_eq!(h.bus.r32(DATA + 12), 0, "an unmodelled register reads 0");
    let ev = h.events("engine_unmodelled_reg");
    assert_eq!(ev.len(), 1);
    assert_eq!(ev[0]["command"], "MI_STORE_REGISTER_MEM");
    assert_eq!(ev[0]["op"], "read");
    assert_eq!(ev[0]["offset"], "0x7004");
    assert_eq!(h.counters("rcs0").unmodelled_regs, 1);
    assert_eq!(h.counters("rcs0").contexts_completed, 1);
}

/// SRM with 5 dwords is malformed (instruction error); without the GGTT
/// bit it names a PPGTT address (page-table error); nothing is stored.
#[test]
fn malformed_store_register_mem_is_refused() {
    let mut h = H::new("bcs0");
    let tail = h.emit(
        RING,
        0,
        &[SRM_GGTT_CS + 1, reg::CS_GPR, DATA as u32, 0, 0, MI_NOOP],
    );
    h.lrc(LRCA, RING, 0, tail);
    h.bus.w32(DATA, 0x55);
    h.submit(&[(LRCA, CTX)]);
    assert_eq!(h.r(reg::RING_EIR), ERROR_INSTRUCTION);
    assert_eq!(h.r(reg::RING_IPEHR), SRM_GGTT_CS + 1);
    assert_eq!(h.bus.r32(DATA), 0x55);

    let mut h = H::new("bcs0");
    let ppgtt = SRM_GGTT_CS & !(1 << 22);
    let tail = h.emit(RING, 0, &[ppgtt, reg::CS_GPR, DATA as u32, 0]);
    h.lrc(LRCA, RING, 0, tail);
    h.submit(&[(LRCA, CTX)]);
    assert_eq!(h.r(reg::RING_EIR), ERROR_PAGE_TABLE);
    assert_eq!(h.r(reg::RING_IPEHR), ppgtt);
}

/// A privileged LRI (seed 004 L1169) to registers the mock does not
/// model, a GT register and one of the engine's window, is taken: each
/// write recorded, the allow-listed pair of the same LRI written. An LRI
/// that also names a modelled ring register writes nothing.
#[test]
fn lri_to_unmodelled_registers_is_recorded_not_refused() {
    let mut h = H::new("rcs0");
    let b = h.base;
    // xe's emit_wa_job: one LRI, absolute addresses, no CS-MMIO bit.
    let lri3 = 0x22 << 23 | (2 * 3 - 1);
    let cmds = [
        lri3,
        0x6208,
        0x1234,
        b + 0x204,
        0x10001,
        b + reg::CS_GPR,
        7,
        MI_NOOP,
    ];
    let tail = h.emit(RING, 0, &cmds);
    h.lrc(LRCA, RING, 0, tail);
    h.submit(&[(LRCA, CTX)]);
    assert_eq!(h.r(reg::RING_EIR), 0);
    assert_eq!(h.r(reg::CS_GPR), 7);
    let ev = h.events("engine_unmodelled_reg");
    let got: Vec<_> = ev
        .iter()
        .map(|v| (v["op"].clone(), v["offset"].clone(), v["value"].clone()))
        .collect();
    assert_eq!(
        got,
        vec![
            ("write".into(), "0x6208".into(), "0x1234".into()),
            (
                "write".into(),
                format!("{:#x}", b + 0x204).into(),
                "0x10001".into()
            ),
        ]
    );
    assert_eq!(h.counters("rcs0").unmodelled_regs, 2);

    let mut h = H::new("rcs0");
    let lri2 = 0x22 << 23 | (2 * 2 - 1);
    let cmds = [lri2, b + reg::CS_GPR, 7, b + reg::RING_TAIL, 0, MI_NOOP];
    let tail = h.emit(RING, 0, &cmds);
    h.lrc(LRCA, RING, 0, tail);
    h.submit(&[(LRCA, CTX)]);
    assert_eq!(h.r(reg::RING_EIR), ERROR_INSTRUCTION);
    assert_eq!(h.r(reg::CS_GPR), 0, "checked before any write");
    assert!(h.events("engine_unmodelled_reg").is_empty());
}

/// `MI_LOAD_REGISTER_REG | MI_LRR_SRC_CS_MMIO | MI_LRR_DST_CS_MMIO`.
const LRR_CS: u32 = 0x2a << 23 | 1 << 19 | 1 << 18 | 1;

/// LRR copies GPR to GPR (CS-MMIO relative); an unmodelled source reads 0
/// and an unmodelled destination takes the value, both recorded, as xe's
/// `emit_wa_job` read-modify-write does; 4 dwords or a ring register as
/// destination is an instruction error.
#[test]
fn load_register_reg_copies_registers() {
    let mut h = H::new("rcs0");
    let gpr = |n: u32| reg::CS_GPR + 4 * n;
    let mut cmds = vec![LRI_1, gpr(2), 0x5a5a, LRI_1, gpr(4), 0x77];
    cmds.extend([LRR_CS, gpr(2), gpr(6)]);
    // xe: MI_LOAD_REGISTER_REG | MI_LRR_DST_CS_MMIO; reg; CS_GPR_REG(0, 0).
    cmds.extend([LRR_CS & !(1 << 18), 0x6208, gpr(4)]);
    // xe: MI_LOAD_REGISTER_REG | MI_LRR_SRC_CS_MMIO; CS_GPR_REG(0, 0); reg.
    cmds.extend([LRR_CS & !(1 << 19), gpr(6), 0x6208]);
    cmds.push(MI_NOOP);
    let tail = h.emit(RING, 0, &cmds);
    h.lrc(LRCA, RING, 0, tail);
    h.submit(&[(LRCA, CTX)]);
    assert_eq!(h.r(reg::RING_EIR), 0);
    assert_eq!(h.r(gpr(6)), 0x5a5a, "GPR to GPR");
    assert_eq!(h.r(gpr(4)), 0, "an unmodelled source reads 0");
    let got: Vec<_> = h
        .events("engine_unmodelled_reg")
        .iter()
        .map(|v| (v["op"].clone(), v["offset"].clone(), v["value"].clone()))
        .collect();
    assert_eq!(
        got,
        vec![
            ("read".into(), "0x6208".into(), "0x0".into()),
            ("write".into(), "0x6208".into(), "0x5a5a".into()),
        ]
    );

    let mut h = H::new("rcs0");
    let tail = h.emit(RING, 0, &[LRR_CS + 1, gpr(0), gpr(2), 0, MI_NOOP, MI_NOOP]);
    h.lrc(LRCA, RING, 0, tail);
    h.submit(&[(LRCA, CTX)]);
    assert_eq!(h.r(reg::RING_EIR), ERROR_INSTRUCTION);
    assert_eq!(h.r(reg::RING_IPEHR), LRR_CS + 1);

    let mut h = H::new("rcs0");
    let tail = h.emit(RING, 0, &[LRR_CS, gpr(0), reg::RING_START, MI_NOOP]);
    h.lrc(LRCA, RING, 0, tail);
    h.submit(&[(LRCA, CTX)]);
    assert_eq!(h.r(reg::RING_EIR), ERROR_INSTRUCTION);
    assert_eq!(h.r(reg::RING_START), RING as u32, "not written");
}

/// `MI_MATH(n)` (`xe_mi_commands.h`).
const fn mi_math(n: u32) -> u32 {
    0x1a << 23 | (n - 1)
}

/// An ALU instruction (seed 004 L789-794).
const fn alu(opc: u32, op1: u32, op2: u32) -> u32 {
    opc << 20 | op1 << 10 | op2
}

const SRCA: u32 = 0x20;
const SRCB: u32 = 0x21;
const ACCU: u32 = 0x31;
const ZF: u32 = 0x32;
const CF: u32 = 0x33;

/// LRIs setting 64-bit GPR `n` to `v`.
fn set_gpr(n: u32, v: u64) -> [u32; 6] {
    let a = reg::CS_GPR + 8 * n;
    [LRI_1, a, v as u32, LRI_1, a + 4, (v >> 32) as u32]
}

/// MI_MATH: xe's `emit_wa_job` read-modify-write (R0 = R0 & !R1 | R2),
/// ADD's carry and SUB's borrow, ZF, the shift rule (15 shifts by 8),
/// SAR, LOAD1 and STOREINV, each checked in the GPRs.
#[test]
fn mi_math_computes_on_the_gprs() {
    let mut h = H::new("rcs0");
    let gpr = |h: &mut H, n: u32| {
        u64::from(h.r(reg::CS_GPR + 8 * n)) | u64::from(h.r(reg::CS_GPR + 8 * n + 4)) << 32
    };
    let mut cmds = Vec::new();
    cmds.extend(set_gpr(0, 0xf0f0_0000_ffff_00ff));
    cmds.extend(set_gpr(1, 0x00ff));
    cmds.extend(set_gpr(2, 0x1_0000_0100));
    cmds.extend(set_gpr(3, u64::MAX));
    cmds.extend(set_gpr(4, 2));
    cmds.extend(set_gpr(5, 15));
    cmds.extend(set_gpr(6, 0x8000_0000_0000_0000));
    cmds.extend([
        mi_math(8),
        alu(0x080, SRCA, 0),
        alu(0x480, SRCB, 1),
        alu(0x102, 0, 0),
        alu(0x180, 0, ACCU),
        alu(0x080, SRCA, 0),
        alu(0x080, SRCB, 2),
        alu(0x103, 0, 0),
        alu(0x180, 0, ACCU),
    ]);
    cmds.extend([
        mi_math(21),
        // R7 = R3 + R4 (wraps to 1), R8 = CF of it.
        alu(0x080, SRCA, 3),
        alu(0x080, SRCB, 4),
        alu(0x100, 0, 0),
        alu(0x180, 7, ACCU),
        alu(0x180, 8, CF),
        // R9 = ZF of R4 - R4 (set), R10 = STOREINV CF of it (no borrow).
        alu(0x080, SRCA, 4),
        alu(0x080, SRCB, 4),
        alu(0x101, 0, 0),
        alu(0x180, 9, ZF),
        alu(0x580, 10, CF),
        // R11 = 1 << 15 shifts by 8.
        alu(0x481, SRCA, 0),
        alu(0x080, SRCB, 5),
        alu(0x106, 0, 0),
        alu(0x180, 11, ACCU),
        // R12 = R6 SAR 2, R13 = R6 SHR 2.
        alu(0x080, SRCA, 6),
        alu(0x080, SRCB, 4),
        alu(0x107, 0, 0),
        alu(0x180, 12, ACCU),
        alu(0x106, 0, 0),
        alu(0x180, 13, ACCU),
        alu(0x002, 0, 0),
    ]);
    cmds.push(MI_NOOP);
    let tail = h.emit(RING, 0, &cmds);
    h.lrc(LRCA, RING, 0, tail);
    h.submit(&[(LRCA, CTX)]);
    assert_eq!(h.r(reg::RING_EIR), 0);
    assert_eq!(gpr(&mut h, 0), 0xf0f0_0001_ffff_0100, "(R0 & !R1) | R2");
    assert_eq!(gpr(&mut h, 7), 1, "ADD wraps");
    assert_eq!(gpr(&mut h, 8), u64::MAX, "its carry on all 64 bits");
    assert_eq!(gpr(&mut h, 9), u64::MAX, "ZF after SUB to 0");
    assert_eq!(gpr(&mut h, 10), u64::MAX, "STOREINV of a clear CF");
    assert_eq!(gpr(&mut h, 11), u64::MAX >> 8, "a shift of 15 is 8");
    assert_eq!(gpr(&mut h, 12), 0xe000_0000_0000_0000, "SAR keeps the sign");
    assert_eq!(gpr(&mut h, 13), 0x2000_0000_0000_0000, "SHR does not");
    assert_eq!(h.counters("rcs0").contexts_completed, 1);
}

/// An MI_MATH whose length swallows the next command (an ALU opcode
/// 0x010 from MI_USER_INTERRUPT) and one with LOADIND are instruction
/// errors; no instruction of either runs.
#[test]
fn malformed_mi_math_is_refused() {
    for bad in [MI_USER_INTERRUPT, alu(0x082, 0, ACCU)] {
        let mut h = H::new("rcs0");
        let mut cmds = set_gpr(0, 5).to_vec();
        cmds.extend([mi_math(3), alu(0x481, SRCA, 0), alu(0x180, 0, ACCU), bad]);
        cmds.extend([MI_NOOP, MI_NOOP]);
        let tail = h.emit(RING, 0, &cmds);
        h.lrc(LRCA, RING, 0, tail);
        h.submit(&[(LRCA, CTX)]);
        assert_eq!(h.r(reg::RING_EIR), ERROR_INSTRUCTION);
        assert_eq!(h.r(reg::RING_IPEHR), mi_math(3));
        assert_eq!(h.r(reg::CS_GPR), 5, "R0 not stored");
    }
}

/// `CMD_3DSTATE_CONSTANT_VS` (11 dwords) and `CMD_3DSTATE_DRAWING_RECTANGLE`
/// (4 dwords) as xe's default-LRC job emits them
/// (`xe_gfxpipe_commands.h`, `xe_lrc_emit_hwe_state_instructions`).
const STATE_CONSTANT_VS: u32 = 0x7815_0000 | (11 - 2);
const STATE_DRAWING_RECTANGLE: u32 = 0x7900_0000 | (4 - 2);

/// 3DSTATE commands run on RCS0 (each its own length, zero payloads, the
/// store after them lands); on CCS0 they are an instruction error.
#[test]
fn three_d_state_is_taken_on_render_only() {
    let mut h = H::new("rcs0");
    let mut cmds = vec![STATE_CONSTANT_VS];
    cmds.extend([0; 10]);
    cmds.extend([STATE_DRAWING_RECTANGLE, 0, 0, 0]);
    cmds.extend(sdi(DATA, 9));
    cmds.extend([MI_NOOP, MI_NOOP, MI_NOOP]);
    let tail = h.emit(RING, 0, &cmds);
    assert_eq!(tail % 8, 0);
    h.lrc(LRCA, RING, 0, tail);
    h.submit(&[(LRCA, CTX)]);
    assert_eq!(h.r(reg::RING_EIR), 0);
    assert_eq!(h.bus.r32(DATA), 9);
    assert_eq!(h.counters("rcs0").commands, 6);

    let mut h = H::new("ccs0");
    let tail = h.emit(RING, 0, &[STATE_DRAWING_RECTANGLE, 0, 0, 0]);
    h.lrc(LRCA, RING, 0, tail);
    h.submit(&[(LRCA, CTX)]);
    assert_eq!(h.r(reg::RING_EIR), ERROR_INSTRUCTION);
    assert_eq!(h.r(reg::RING_IPEHR), STATE_DRAWING_RECTANGLE);
}

/// A 3DSTATE whose length field is one short leaves its last payload
/// dword (here 0xffffffff, header type 7: reserved, seed 004 L559-567)
/// to be parsed as a command, which is an instruction error there.
#[test]
fn a_short_three_d_state_is_refused_at_its_trailing_dword() {
    let mut h = H::new("rcs0");
    let short = 0x7900_0000 | (3 - 2);
    let tail = h.emit(RING, 0, &[short, 0, 0, 0xffff_ffff, MI_NOOP, MI_NOOP]);
    h.lrc(LRCA, RING, 0, tail);
    h.submit(&[(LRCA, CTX)]);
    assert_eq!(h.r(reg::RING_EIR), ERROR_INSTRUCTION);
    assert_eq!(h.r(reg::RING_IPEHR), 0xffff_ffff);
    assert_eq!(h.r(reg::RING_ACTHD), RING as u32 + 12);
}

/// A context image that is not NOOP / LRI / BB_END is an instruction
/// error at restore; one behind an unmapped page a page-table error.
#[test]
fn a_broken_context_image_halts_the_engine() {
    let mut h = H::new("bcs0");
    h.lrc(LRCA, RING, 0, 0);
    h.bus.w32(LRCA + 4096 + 4 * 0x20, 0xdead_beef);
    h.submit(&[(LRCA, CTX)]);
    assert_eq!(h.r(reg::RING_EIR), ERROR_INSTRUCTION);
    assert_eq!(h.r(reg::RING_IPEHR), 0xdead_beef);
    assert_eq!(h.r(reg::RING_ACTHD), LRCA as u32 + 4096 + 0x80);

    let mut h = H::new("bcs0");
    h.submit(&[(0x70_0000, CTX)]);
    assert_eq!(h.r(reg::RING_EIR), ERROR_PAGE_TABLE);
    assert_eq!(h.rec.summary(false).engines.gtt_faults, 1);
}

/// XY_FAST_COPY_BLT copies a linear rectangle on the blitter.
#[test]
fn fast_copy_blt_copies_linear_rows() {
    let mut h = H::new("bcs0");
    for i in 0..64u64 {
        h.bus.w32(BATCH + 4 * i, 0x100 + i as u32);
    }
    // 32 bpp, 2 rows of 4 pixels, pitches 64 (src) and 32 (dst).
    let cmds = [
        XY_FAST_COPY,
        3 << 24 | 32,
        0,
        2 << 16 | 4,
        DATA as u32,
        0,
        0,
        64,
        BATCH as u32,
        0,
        MI_NOOP,
        MI_NOOP,
    ];
    let tail = h.emit(RING, 0, &cmds);
    h.lrc(LRCA, RING, 0, tail);
    h.submit(&[(LRCA, CTX)]);
    assert_eq!(h.r(reg::RING_EIR), 0);
    for x in 0..4u64 {
        assert_eq!(h.bus.r32(DATA + 4 * x), 0x100 + x as u32);
        assert_eq!(h.bus.r32(DATA + 32 + 4 * x), 0x110 + x as u32);
    }
    assert_eq!(h.bus.r32(DATA + 16), 0, "outside the rectangle");
}

/// XY_FAST_COLOR_BLT fills whole rows of local memory with the value on
/// the blitter, nothing outside them, and is counted.
#[test]
fn fast_color_blt_fills_rows() {
    let mut h = H::new("bcs0");
    h.bus.map(0x60_0000, 4 * PAGE);
    for i in 0..(4 * PAGE / 4) {
        h.bus.w32(0x60_0000 + 4 * i, 0xdead_0000 | i as u32);
    }
    // Two rows of 4 KiB (upstream's clear pitch) from the second page.
    let mut cmds = color_blt(0x60_1000, 2, 4096, 0).to_vec();
    cmds.extend(color_blt(0x60_3000, 1, 4096, 0x1234_5678));
    let tail = h.emit(RING, 0, &cmds);
    h.lrc(LRCA, RING, 0, tail);
    h.submit(&[(LRCA, CTX)]);
    assert_eq!(h.r(reg::RING_EIR), 0);
    assert_eq!(h.bus.r32(0x60_0ffc), 0xdead_0000 | 0x3ff, "before");
    for at in [0x60_1000, 0x60_1ffc, 0x60_2000, 0x60_2ffc] {
        assert_eq!(h.bus.r32(at), 0, "{at:#x} cleared");
    }
    assert_eq!(h.bus.r32(0x60_3000), 0x1234_5678);
    assert_eq!(h.bus.r32(0x60_3ffc), 0x1234_5678);
    let c = h.counters("bcs0");
    assert_eq!((c.fills, c.fill_bytes), (2, 3 * PAGE));
    let ev = h.events("engine_fill");
    assert_eq!(ev.len(), 2);
    assert_eq!(ev[0]["addr"], "0x601000");
}

/// A fill reaching an unmapped page is the GGTT fault, and nothing is
/// written (every page is checked first).
#[test]
fn fast_color_blt_to_an_unmapped_page_faults() {
    let mut h = H::new("bcs0");
    h.bus.map(0x60_0000, PAGE);
    h.bus.w32(0x60_0000, 7);
    let tail = h.emit(RING, 0, &color_blt(0x60_0000, 2, 4096, 0));
    h.lrc(LRCA, RING, 0, tail);
    h.submit(&[(LRCA, CTX)]);
    assert_eq!(h.r(reg::RING_EIR), ERROR_PAGE_TABLE);
    assert_eq!(h.r(reg::RING_IPEHR), XY_FAST_COLOR);
    assert_eq!(h.bus.r32(0x60_0000), 7, "nothing written");
    assert_eq!(h.rec.summary(false).engines.gtt_faults, 1);
    assert_eq!(h.counters("bcs0").fills, 0);
}

/// Malformed fills are instruction errors: a wrong length, another
/// depth, system memory, rows past the pitch, a colour fill on the render
/// engine.
#[test]
fn malformed_fast_color_blts_are_refused() {
    let good = color_blt(DATA, 1, 4096, 0);
    let mut short = good.to_vec();
    short[0] = (short[0] & !0xff) | 9;
    short.truncate(11);
    let mut depth = good;
    depth[0] = (depth[0] & !(7 << 19)) | (3 << 19);
    let mut sys = good;
    sys[6] = 1 << 31;
    let mut wide = good;
    wide[3] = 1 << 16 | 2048;
    let mut extra = good;
    extra[9] = 1;
    for (what, cmds) in [
        ("length", short),
        ("depth", depth.to_vec()),
        ("system memory", sys.to_vec()),
        ("rows past the pitch", wide.to_vec()),
        ("wider colour", extra.to_vec()),
    ] {
        let mut h = H::new("bcs0");
        h.bus.w32(DATA, 9);
        let tail = h.emit(RING, 0, &cmds);
        h.lrc(LRCA, RING, 0, tail);
        h.submit(&[(LRCA, CTX)]);
        assert_eq!(h.r(reg::RING_EIR), ERROR_INSTRUCTION, "{what}");
        assert_eq!(h.bus.r32(DATA), 9, "{what}: nothing written");
    }
    let mut h = H::new("rcs0");
    let tail = h.emit(RING, 0, &good);
    h.lrc(LRCA, RING, 0, tail);
    h.submit(&[(LRCA, CTX)]);
    assert_eq!(h.r(reg::RING_EIR), ERROR_INSTRUCTION, "render engine");
}

// ---- flat CCS ------------------------------------------------------------

/// The CCS byte of GGTT address `gaddr` (through the fake GGTT).
fn ccs_at(h: &H, gaddr: u64) -> Option<u8> {
    h.bus.ccs.get(crate::ccs::index(h.bus.phys(gaddr)))
}

/// Runs `cmds` on bcs0 to the end (or its error).
fn run_bcs(h: &mut H, cmds: &[u32]) {
    let mut cmds = cmds.to_vec();
    if cmds.len() % 2 == 1 {
        cmds.push(MI_NOOP);
    }
    let tail = h.emit(RING, 0, &cmds);
    h.lrc(LRCA, RING, 0, tail);
    h.submit(&[(LRCA, CTX)]);
}

/// The driver's clear of a window: the fill, then one
/// XY_CTRL_SURF_COPY_BLT direct(window) -> indirect(window) with
/// window / 64 KiB blocks (`xe_migrate_clear`). The CCS of the window
/// (a previous owner's, 0xd1) is zero after it, the CCS past the blocks
/// untouched; counted and traced.
#[test]
fn ctrl_surf_copy_clears_the_ccs_of_a_filled_window() {
    const WIN: u64 = 0x60_0000;
    let mut h = H::new("bcs0");
    h.bus.map(WIN, 256 << 10);
    let first = crate::ccs::index(h.bus.phys(WIN));
    h.bus.ccs.fill(first, 1024, Some(0xd1));
    h.bus.w32(WIN + 0x100, 0xbad);
    // 128 KiB filled; its CCS is 512 bytes, 2 blocks.
    let mut cmds = color_blt(WIN, 32, 4096, 0).to_vec();
    cmds.extend(ctrl_surf((WIN, true), (WIN, false), 2));
    run_bcs(&mut h, &cmds);
    assert_eq!(h.r(reg::RING_EIR), 0);
    assert_eq!(h.bus.r32(WIN + 0x100), 0, "the fill");
    for at in [WIN, WIN + 0x100, WIN + (128 << 10) - 256] {
        assert_eq!(ccs_at(&h, at), Some(0), "{at:#x}: CCS cleared");
    }
    assert_eq!(
        ccs_at(&h, WIN + (128 << 10)),
        Some(0xd1),
        "past the 2 blocks: untouched"
    );
    let c = h.counters("bcs0");
    assert_eq!(
        (c.fills, c.ccs_copies, c.ccs_bytes, c.ccs_cleared_bytes),
        (1, 1, 512, 512)
    );
    let ev = h.events("engine_ccs_copy");
    assert_eq!(ev.len(), 1);
    assert_eq!(
        (
            &ev[0]["src_access"],
            &ev[0]["dst_access"],
            &ev[0]["blocks"],
            &ev[0]["zero"]
        ),
        (
            &"direct".into(),
            &"indirect".into(),
            &2.into(),
            &true.into()
        )
    );
    assert_eq!(ev[0]["dst"], "0x600000");
}

/// The block count is honoured: 1 block clears the CCS of the first
/// 64 KiB only; a 64 MiB window takes 1024 blocks (the field's maximum),
/// 256 KiB of CCS, kept as whole uniform chunks.
#[test]
fn ctrl_surf_copy_honours_the_block_count_up_to_64_mib() {
    const WIN: u64 = 0x60_0000;
    let mut h = H::new("bcs0");
    h.bus.map(WIN, 128 << 10);
    run_bcs(&mut h, &ctrl_surf((WIN, true), (WIN, false), 1));
    assert_eq!(h.r(reg::RING_EIR), 0);
    assert_eq!(ccs_at(&h, WIN + (64 << 10) - 256), Some(0));
    assert_eq!(ccs_at(&h, WIN + (64 << 10)), None, "still unknown");
    assert_eq!(h.counters("bcs0").ccs_bytes, 256);

    const BIG: u64 = 0x1000_0000;
    let mut h = H::new("bcs0");
    h.bus.map(BIG, 64 << 20);
    run_bcs(&mut h, &ctrl_surf((BIG, true), (BIG, false), 1024));
    assert_eq!(h.r(reg::RING_EIR), 0);
    let first = crate::ccs::index(h.bus.phys(BIG));
    assert_eq!(h.bus.ccs.first_not_zero(first, 256 << 10), None);
    assert_eq!(
        h.bus.ccs.first_not_zero(first, (256 << 10) + 1),
        Some((first + (256 << 10), None))
    );
    assert_eq!(h.bus.ccs.chunks(), 64);
    let c = h.counters("bcs0");
    assert_eq!((c.ccs_bytes, c.ccs_cleared_bytes), (256 << 10, 256 << 10));
    assert_eq!(h.events("engine_ccs_copy")[0]["blocks"], 1024);
}

/// Indirect to direct copies CCS bytes out into memory (an unknown one
/// arrives as 0xff); indirect to indirect copies CCS to CCS, unknown
/// bytes staying unknown.
#[test]
fn ctrl_surf_copy_copies_ccs_out_and_across() {
    const A: u64 = 0x60_0000;
    const B: u64 = 0x70_0000;
    let mut h = H::new("bcs0");
    h.bus.map(A, 64 << 10);
    h.bus.map(B, 64 << 10);
    let a = crate::ccs::index(h.bus.phys(A));
    let vals: Vec<Option<u8>> = (0..256u32)
        .map(|i| (i != 7).then_some(i as u8 ^ 0x5a))
        .collect();
    h.bus.ccs.write(a, &vals);
    let mut cmds = ctrl_surf((A, false), (DATA, true), 1).to_vec();
    cmds.extend(ctrl_surf((A, false), (B, false), 1));
    run_bcs(&mut h, &cmds);
    assert_eq!(h.r(reg::RING_EIR), 0);
    assert_eq!(
        h.bus.r32(DATA),
        u32::from_le_bytes([0x5a, 0x5b, 0x58, 0x59])
    );
    assert_eq!(h.bus.r32(DATA + 4) >> 24, 0xff, "byte 7 was unknown");
    assert_eq!(
        h.bus.r32(DATA + 252),
        u32::from_le_bytes([0xa6, 0xa7, 0xa4, 0xa5])
    );
    let b = crate::ccs::index(h.bus.phys(B));
    let mut out = vec![Some(0); 256];
    h.bus.ccs.read(b, &mut out);
    assert_eq!(out, vals);
    let ev = h.events("engine_ccs_copy");
    assert_eq!(ev[0]["dst_access"], "direct");
    assert!(ev[0].get("zero").is_none());
    assert_eq!(ev[1]["zero"], false);
    assert_eq!(h.counters("bcs0").ccs_cleared_bytes, 0);
}

/// Malformed copies are instruction errors and write nothing: a wrong
/// length, reserved bits, direct to direct, an unaligned indirect
/// address, on the render engine; blocks that overrun the mapped window
/// are a page-table error, nothing written.
#[test]
fn malformed_ctrl_surf_copies_are_refused() {
    const WIN: u64 = 0x60_0000;
    let good = ctrl_surf((WIN, true), (WIN, false), 1);
    let mut long = good.to_vec();
    long[0] = (long[0] & !0xff) | 4;
    long.push(0);
    let mut reserved = good;
    reserved[0] |= 1 << 18;
    let mut reserved_hi = good;
    reserved_hi[4] |= 1 << 20;
    let direct = ctrl_surf((WIN, true), (DATA, true), 1);
    let unaligned = ctrl_surf((WIN, true), (WIN + 0x80, false), 1);
    for (what, cmds, eir) in [
        ("length", long, ERROR_INSTRUCTION),
        ("reserved dw0", reserved.to_vec(), ERROR_INSTRUCTION),
        ("reserved dw4", reserved_hi.to_vec(), ERROR_INSTRUCTION),
        ("direct to direct", direct.to_vec(), ERROR_INSTRUCTION),
        ("unaligned", unaligned.to_vec(), ERROR_INSTRUCTION),
        (
            "overrun",
            ctrl_surf((WIN, true), (WIN, false), 2).to_vec(),
            ERROR_PAGE_TABLE,
        ),
    ] {
        let mut h = H::new("bcs0");
        h.bus.map(WIN, 64 << 10);
        let first = crate::ccs::index(h.bus.phys(WIN));
        h.bus.ccs.fill(first, 256, Some(0xd1));
        h.bus.w32(DATA, 9);
        run_bcs(&mut h, &cmds);
        assert_eq!(h.r(reg::RING_EIR), eir, "{what}");
        assert_eq!(h.r(reg::RING_IPEHR), cmds[0], "{what}");
        assert_eq!(ccs_at(&h, WIN), Some(0xd1), "{what}: nothing written");
        assert_eq!(h.bus.r32(DATA), 9, "{what}: nothing written");
        assert_eq!(h.counters("bcs0").ccs_copies, 0, "{what}");
    }
    let mut h = H::new("rcs0");
    h.bus.map(WIN, 64 << 10);
    run_bcs(&mut h, &good);
    assert_eq!(h.r(reg::RING_EIR), ERROR_INSTRUCTION, "render engine");
    assert_eq!(ccs_at(&h, WIN), None);
}

/// The isolation checker over the blitter's work, as the PF's FLR leaves
/// a VF's 2 MiB page: filled but its CCS not cleared is
/// `ccs_not_cleared`; the driver's sequence (fill, then the CCS copy) is
/// clean; the CCS as at power-on (never written) is not clear either.
#[test]
fn the_isolation_checker_wants_the_ccs_cleared_with_the_memory() {
    use crate::regfile::guc::ct::sriov::VfConfig;
    use crate::regfile::isolation::Checker;
    use crate::regfile::isolation::View;
    use std::collections::BTreeMap;
    /// The VF's page: GGTT 6 MiB, LMEM 0x4060_0000 (2 MiB aligned).
    const WIN: u64 = 0x60_0000;
    const DIR: u64 = 0x90_0000;
    const LEAF: u64 = 0xa0_0000;
    let kinds = |cmds: &[u32], dirty: bool| {
        let mut h = H::new("bcs0");
        h.bus.map(WIN, 2 << 20);
        h.bus.map(DIR, PAGE);
        h.bus.map(LEAF, 256 << 10);
        let (dir, leaf, page) = (h.bus.phys(DIR), h.bus.phys(LEAF), h.bus.phys(WIN));
        h.bus.w32(DIR + 4, ((leaf >> 16) as u32) << 4 | 1);
        h.bus.w32(LEAF, ((page >> 21) as u32) << 5 | 1);
        if dirty {
            // A previous owner's data and compression metadata.
            h.bus.w32(WIN + 0x1000, 0xbad);
            h.bus.ccs.fill(crate::ccs::index(page), 8192, Some(0xd1));
        }
        if !cmds.is_empty() {
            run_bcs(&mut h, cmds);
            assert_eq!(h.r(reg::RING_EIR), 0);
        }
        let configs: BTreeMap<u32, VfConfig> = [(
            1,
            VfConfig {
                lmem: 2 << 20,
                ..VfConfig::default()
            },
        )]
        .into();
        let view = View {
            configs: &configs,
            lmem_cfg: 1 << 31 | (dir >> 16) as u32,
            lmem_size: 4 << 30,
            pf_contexts_in_vfs: vec![],
            cleared: 1 << 1,
            vf_regs_dirty: vec![],
        };
        Checker::default().run("vf_control", false, &view, &h.bus, &mut h.rec);
        let detail = h
            .events("sriov_isolation")
            .iter()
            .find(|e| e["check"] == "ccs_not_cleared")
            .map(|e| e["detail"].as_str().unwrap_or("").to_owned());
        (h.rec.summary(false).sriov.isolation_kinds, detail)
    };
    let fill = color_blt(WIN, 512, 4096, 0);
    let both: Vec<u32> = fill
        .iter()
        .copied()
        .chain(ctrl_surf((WIN, true), (WIN, false), 32))
        .collect();
    let (k, _) = kinds(&[], true);
    assert_eq!(
        k,
        [
            ("ccs_not_cleared".into(), 1),
            ("lmem_not_cleared".into(), 1)
        ]
        .into()
    );
    let (k, d) = kinds(&fill, true);
    assert_eq!(k, [("ccs_not_cleared".into(), 1)].into(), "filled only");
    let d = d.unwrap_or_default();
    assert!(d.contains("holds 0xd1") && d.contains("0x40600000"), "{d}");
    let (k, _) = kinds(&both, true);
    assert!(k.is_empty(), "fill and CCS clear: {k:?}");
    let (k, d) = kinds(&[], false);
    assert_eq!(k, [("ccs_not_cleared".into(), 1)].into(), "power-on");
    assert!(d.unwrap_or_default().contains("never written"));
    // The same page cleared in one copy of 32 blocks: 8 KiB of CCS.
    assert_eq!(32 * 256, (2 << 20) / 256);
}

/// A Load without execlists enabled is a violation and does nothing; the
/// Load register reads 0.
#[test]
fn load_without_execlists_enabled_is_ignored() {
    let mut h = H::new("bcs0");
    h.w(reg::RING_MODE, DISABLE_LEGACY_MODE << 16);
    let tail = h.emit(RING, 0, &sdi(DATA, 5));
    h.lrc(LRCA, RING, 0, tail);
    h.submit(&[(LRCA, CTX)]);
    assert_eq!(h.bus.r32(DATA), 0);
    assert_eq!(h.r(reg::RING_EXECLIST_CONTROL), 0);
    assert_eq!(h.counters("bcs0").violations, 1);
    let s = h.rec.summary(false);
    assert_eq!(s.violation_kinds.get("engine_execlists_disabled"), Some(&1));
    assert_eq!(s.violations, 1);
    // A masked register written without enable bits: nothing changes.
    h.w(reg::RING_MODE, DISABLE_LEGACY_MODE);
    assert_eq!(h.r(reg::RING_MODE), 0);
    let s = h.rec.summary(false);
    assert_eq!(s.violation_kinds.get("masked_write_no_mask"), Some(&1));
}

/// Engine windows: behind their forcewake domain, unknown for fused-off
/// engines and for offsets without a register; the SQ keeps its contents.
#[test]
fn windows_power_presence_and_storage() {
    let clock = ManualClock::new();
    let mut rec = Recorder::new(Arc::new(clock.clone()), TraceWriter::disabled(), None);
    let mut rf = RegisterFile::new(&params(), clock.now()).expect("register file");
    let rcs_tail = 0x2000 + reg::RING_TAIL;
    assert_eq!(rf.read(rcs_tail, &mut rec), Some(0));
    assert_eq!(rec.summary(false).sleeping_accesses, 1, "RENDER sleeps");
    let vd0 = Domain::vdbox(0).expect("VD0");
    awake(
        &mut rf,
        &mut rec,
        &clock,
        &[Domain::RENDER, Domain::GT, vd0],
    );
    rf.write(rcs_tail, 0x40, &mut rec);
    assert_eq!(rf.read(rcs_tail, &mut rec), Some(0x40));
    // ATS-M150: VCS0 and VCS2 only.
    assert!(rf.read(0x1C_0000 + reg::RING_HEAD, &mut rec).is_some());
    assert_eq!(
        rf.read(0x1C_4000 + reg::RING_HEAD, &mut rec),
        None,
        "vcs1 fused off"
    );
    assert_eq!(
        rf.read(0x2000 + 0x40, &mut rec),
        None,
        "no register at +0x40"
    );
    let sq = 0x2_2000 + reg::SQ_CONTENTS + 8;
    rf.write(sq, 0x1234_5001, &mut rec);
    assert_eq!(rf.read(sq, &mut rec), Some(0x1234_5001));
    let names: Vec<_> = ENGINES
        .iter()
        .filter(|d| present(&params().fuses, d))
        .map(|d| d.name)
        .collect();
    assert_eq!(
        names,
        ["rcs0", "bcs0", "ccs0", "ccs1", "ccs2", "ccs3", "vcs0", "vcs2", "vecs0", "vecs1"]
    );
    for d in &ENGINES {
        assert!(crate::regfile::intc::Intc::has_source(d.src), "{}", d.name);
        assert_eq!(d.src.name(), Some(d.name));
    }
}

/// `RING_CMD_CCTL`, `CS_DEBUG_MODE1` (masked) and `RING_FORCE_TO_NONPRIV`
/// are storage for the host and for a privileged LRI (xe programs them at
/// init and in its workaround job); an engine reset clears them.
#[test]
fn storage_registers_read_back_and_reset() {
    let mut h = H::new("rcs0");
    let b = h.base;
    h.w(reg::RING_CMD_CCTL, 0x0003_0001);
    assert_eq!(
        h.r(reg::RING_CMD_CCTL),
        1,
        "masked: bit 1 cleared, bit 0 set"
    );
    h.w(reg::FORCE_TO_NONPRIV + 4 * 11, 0x0002_4d00);
    assert_eq!(h.r(reg::FORCE_TO_NONPRIV + 4 * 11), 0x0002_4d00);
    assert_eq!(h.rf.read(b + reg::FORCE_TO_NONPRIV_END, &mut h.rec), None);
    let lri = 0x22 << 23 | (2 - 1);
    let tail = h.emit(
        RING,
        0,
        &[lri, b + reg::CS_DEBUG_MODE1, 0x0004_0004, MI_NOOP],
    );
    h.lrc(LRCA, RING, 0, tail);
    h.submit(&[(LRCA, CTX)]);
    assert_eq!(h.r(reg::RING_EIR), 0);
    assert_eq!(h.r(reg::CS_DEBUG_MODE1), 4);
    assert!(h.events("engine_unmodelled_reg").is_empty());
    let gdrst = crate::regs::guc::GDRST.offset;
    h.rf.write_with(gdrst, GRDOM_RENDER, &mut h.rec, &mut h.bus);
    for rel in [
        reg::RING_CMD_CCTL,
        reg::CS_DEBUG_MODE1,
        reg::FORCE_TO_NONPRIV + 44,
    ] {
        assert_eq!(h.r(rel), 0, "{rel:#x} after the reset");
    }
}

/// The CSB entry layout, bit by bit (spec "CSB entry").
#[test]
fn csb_entry_bits() {
    let e = csb::entry(3, 0x1234, 0xffff, true, 5);
    assert_eq!(e as u32, 5 | 3 << 4 | 0xffff << 10);
    assert_eq!((e >> 32) as u32, 1 << 1 | 0x1234 << 10);
    assert_eq!(
        Element {
            desc: 0x0000_1500_0030_0019,
            func: 0,
        }
        .ctx_id(),
        0x2a
    );
}

/// `GDRST.GRDOM_FULL` takes the GT's programmable state with it
/// (`xe_gt.c` `do_gt_restart` writes it all again after `do_gt_reset`):
/// `RCU_MODE` reads 0, the engine's `RING_MODE` and `RING_HWS_PGA` too, so
/// a CCS refuses a Load (`ccs_disabled`) until `RCU_MODE` is written again;
/// then the same context runs. A GuC-only reset (`GRDOM_GUC`) keeps
/// `RCU_MODE`.
#[test]
fn grdom_full_clears_rcu_mode_and_a_ccs_waits_for_it() {
    let mut h = H::new("ccs0");
    let rcu = crate::regs::tuning::RCU_MODE.offset;
    let gdrst = crate::regs::guc::GDRST.offset;
    assert_eq!(h.rf.read(rcu, &mut h.rec), Some(RCU_MODE_CCS_ENABLE));
    h.rf.write_with(
        gdrst,
        crate::regs::guc::GRDOM_GUC.mask32(),
        &mut h.rec,
        &mut h.bus,
    );
    assert_eq!(
        h.rf.read(rcu, &mut h.rec),
        Some(RCU_MODE_CCS_ENABLE),
        "a GuC reset leaves RCU_MODE"
    );
    assert_eq!(h.rec.summary(false).guc.full_resets, 0);
    h.rf.write_with(gdrst, GRDOM_FULL, &mut h.rec, &mut h.bus);
    assert_eq!(h.rf.read(rcu, &mut h.rec), Some(0));
    assert_eq!((h.r(reg::RING_MODE), h.r(reg::RING_HWS_PGA)), (0, 0));
    assert_eq!(h.rec.summary(false).guc.full_resets, 1);
    let full = h.events("gt_full_reset");
    assert_eq!(full.len(), 1);
    assert_eq!(full[0]["tuning_lost"], 1, "RCU_MODE was set");
    // The engine set up again, RCU_MODE not: the Load is refused.
    h.w(reg::RING_HWS_PGA, HWSP as u32);
    h.w(
        reg::RING_MODE,
        DISABLE_LEGACY_MODE << 16 | DISABLE_LEGACY_MODE,
    );
    let mut cmds = vec![MI_NOOP, MI_NOOP];
    cmds.extend(sdi(DATA + 0x40, 0x5eed));
    let tail = h.emit(RING, 0, &cmds);
    h.lrc(LRCA, RING, 0, tail);
    h.submit(&[(LRCA, CTX)]);
    assert_eq!(h.bus.r32(DATA + 0x40), 0, "no CCS runs without RCU_MODE");
    let blocked = h.events("engine_blocked");
    assert_eq!(blocked.len(), 1);
    assert_eq!(blocked[0]["reason"], "ccs_disabled");
    // RCU_MODE written again: the context runs.
    h.rcu_ccs_enable(true);
    h.submit(&[(LRCA, CTX)]);
    assert_eq!(h.bus.r32(DATA + 0x40), 0x5eed);
    assert_eq!(h.rec.summary(false).violations, 0);
}
