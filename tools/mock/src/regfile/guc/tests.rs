//! Tests of the GuC model through the register file, with memory behind a
//! [`FakeBus`] and an injected clock.

use std::collections::BTreeMap;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use sha2::Digest;
use sha2::Sha256;

use super::boot::EXCEPTION_EIP;
use super::css::Css;
use super::dma::DMA_TIME;
use super::ggtt::Gtt;
use super::ggtt::Tlb;
use super::ggtt::GUC_GGTT_TOP;
use super::ggtt::PAGE;
use super::ggtt::PTE_DM;
use super::ggtt::PTE_PRESENT;
use super::mmio::BUSY_TIME;
use super::mmio::REPLY_DELAY;
use super::*;
use crate::abi;
use crate::clock::Clock;
use crate::clock::ManualClock;
use crate::power::Domain;
use crate::regfile::engine::EngineDef;
use crate::regfile::tests::awake;
use crate::regfile::tests::params;
use crate::regfile::RegParams;
use crate::regfile::RegisterFile;
use crate::regs;
use crate::trace::TraceWriter;

// ---- memory ------------------------------------------------------------

/// Memory for the GuC: PTEs, a small LMEM and sparse guest pages.
#[derive(Default)]
struct FakeBus {
    ptes: HashMap<u64, u64>,
    lmem: Vec<u8>,
    sys: HashMap<u64, Vec<u8>>,
    no_ggtt: bool,
    /// `LMEM_CFG` as the bus reports it (the LMTT root).
    lmem_cfg: u32,
    /// Local memory's CCS metadata, if a test models it (`None`: the
    /// isolation checker's `ccs_not_cleared` is not checked).
    ccs: Option<crate::ccs::Ccs>,
}

/// A VF's memory in the fake bus: its pages among the PF's, tagged with
/// the VF number above any address the tests use.
fn vf_sys(vf: u32, addr: u64) -> u64 {
    u64::from(vf) << 56 | addr
}

/// The fake bus's system address of `target`'s `addr`.
fn sys_of(target: Target, addr: u64) -> u64 {
    match target {
        Target::VfSys(vf) => vf_sys(vf, addr),
        _ => addr,
    }
}

/// LMEM of the fake bus (stands for the LMEMBAR memfd).
const LMEM_SIZE: usize = 8 << 20;

impl FakeBus {
    fn new() -> Self {
        Self {
            lmem: vec![0; LMEM_SIZE],
            ..Self::default()
        }
    }

    fn sys_page(&mut self, addr: u64) -> &mut Vec<u8> {
        self.sys
            .entry(addr / PAGE)
            .or_insert_with(|| vec![0; PAGE as usize])
    }

    /// Maps `bytes` at GGTT `gaddr`, backed by guest memory at `phys`.
    fn map_sys(&mut self, gaddr: u64, phys: u64, bytes: &[u8]) {
        for (i, chunk) in bytes.chunks(PAGE as usize).enumerate() {
            let pa = phys + i as u64 * PAGE;
            self.sys_page(pa)[..chunk.len()].copy_from_slice(chunk);
            self.ptes.insert(gaddr / PAGE + i as u64, pa | PTE_PRESENT);
        }
    }

    /// Maps `bytes` at GGTT `gaddr`, backed by LMEM at `addr`.
    fn map_lmem(&mut self, gaddr: u64, addr: u64, bytes: &[u8]) {
        let a = addr as usize;
        self.lmem[a..a + bytes.len()].copy_from_slice(bytes);
        for i in 0..(bytes.len() as u64).div_ceil(PAGE) {
            self.ptes
                .insert(gaddr / PAGE + i, (addr + i * PAGE) | PTE_PRESENT | PTE_DM);
        }
    }

    /// Reads guest memory back.
    fn sys_bytes(&self, phys: u64, len: usize) -> Vec<u8> {
        (0..len as u64)
            .map(|i| {
                let a = phys + i;
                self.sys
                    .get(&(a / PAGE))
                    .map_or(0, |p| p[(a % PAGE) as usize])
            })
            .collect()
    }
}

impl Bus for FakeBus {
    fn lmem_cfg(&self) -> u32 {
        self.lmem_cfg
    }

    fn pte(&self, index: u64) -> Option<u64> {
        if self.no_ggtt || index >= 1 << 20 {
            return None;
        }
        Some(self.ptes.get(&index).copied().unwrap_or(0))
    }

    /// The sparse map's entries only: a walk of the whole GGTT (the
    /// isolation checker's) stays fast in debug builds.
    fn ptes(&self, first: u64, out: &mut [u64]) -> bool {
        let end = first + out.len() as u64;
        if self.no_ggtt || end > 1 << 20 {
            return false;
        }
        out.fill(0);
        for (&i, &p) in &self.ptes {
            if (first..end).contains(&i) {
                out[(i - first) as usize] = p;
            }
        }
        true
    }

    fn read(&self, target: Target, addr: u64, buf: &mut [u8]) -> Result<(), String> {
        self.probe(target, addr, buf.len() as u64)?;
        match target {
            Target::Lmem => {
                let a = addr as usize;
                buf.copy_from_slice(&self.lmem[a..a + buf.len()]);
            }
            Target::Sys | Target::VfSys(_) => {
                buf.copy_from_slice(&self.sys_bytes(sys_of(target, addr), buf.len()));
            }
        }
        Ok(())
    }

    fn write(&mut self, target: Target, addr: u64, buf: &[u8]) -> Result<(), String> {
        self.probe(target, addr, buf.len() as u64)?;
        match target {
            Target::Lmem => {
                let a = addr as usize;
                self.lmem[a..a + buf.len()].copy_from_slice(buf);
            }
            Target::Sys | Target::VfSys(_) => {
                for (i, &b) in buf.iter().enumerate() {
                    let a = sys_of(target, addr) + i as u64;
                    self.sys_page(a)[(a % PAGE) as usize] = b;
                }
            }
        }
        Ok(())
    }

    fn probe(&self, target: Target, addr: u64, len: u64) -> Result<(), String> {
        match target {
            Target::Lmem if addr + len <= LMEM_SIZE as u64 => Ok(()),
            Target::Lmem => Err("beyond LMEM".into()),
            Target::Sys | Target::VfSys(_) => {
                let addr = sys_of(target, addr);
                let last = (addr + len.max(1) - 1) / PAGE;
                match (addr / PAGE..=last).find(|p| !self.sys.contains_key(p)) {
                    None => Ok(()),
                    Some(p) => Err(format!("guest page {:#x} unmapped", p * PAGE)),
                }
            }
        }
    }
    fn ccs(&self) -> Option<&crate::ccs::Ccs> {
        self.ccs.as_ref()
    }

    fn ccs_mut(&mut self) -> Option<&mut crate::ccs::Ccs> {
        self.ccs.as_mut()
    }
}

// ---- images ------------------------------------------------------------

/// A synthetic GuC image: header, `ucode_dw` dwords of uCode, a key of
/// `key_dw` dwords (modulus the same size, exponent 1 dword, both absent
/// from the file as in the real blob).
pub(crate) fn image(ucode_dw: u32, key_dw: u32, private: u32) -> Vec<u8> {
    let header_size_dw = 32 + 2 * key_dw + 1;
    let mut h = vec![0u8; 128];
    let mut put = |off: usize, v: u32| h[off..off + 4].copy_from_slice(&v.to_le_bytes());
    put(abi::css::MODULE_TYPE, 6);
    put(abi::css::HEADER_SIZE_DW, header_size_dw);
    put(abi::css::SIZE_DW, header_size_dw + ucode_dw);
    put(abi::css::KEY_SIZE_DW, key_dw);
    put(abi::css::MODULUS_SIZE_DW, key_dw);
    put(abi::css::EXPONENT_SIZE_DW, 1);
    put(abi::css::SW_VERSION, 0x0046_3500);
    put(abi::css::SUBMISSION_VERSION, 0x0001_1A00);
    put(abi::css::PRIVATE_DATA_SIZE, private);
    let body = (0..(ucode_dw + key_dw) * 4).map(|i| (i * 7 + 3) as u8);
    h.extend(body);
    h
}

fn put32(bytes: &mut [u8], off: usize, v: u32) {
    bytes[off..off + 4].copy_from_slice(&v.to_le_bytes());
}

// ---- layout of the test driver's buffers ------------------------------

/// GGTT address of the firmware BO.
const FW_GGTT: u64 = 0x0080_0000;
/// Guest address backing it.
const FW_PHYS: u64 = 0x1000_0000;
/// GGTT address of the log buffer.
const LOG_GGTT: u64 = 0x0100_0000;
/// Guest address backing it.
const LOG_PHYS: u64 = 0x2000_0000;
/// `GUC_CTL_LOG_PARAMS` upstream writes (non-debug build): valid, notify
/// on half full, 16 KiB crash and 64 KiB debug in 4 KiB units, 1 MiB
/// capture in MiB units (`xe_guc.c` `guc_ctl_log_params_flags`).
const LOG_PARAMS: u32 = 0x3F7;
/// Bytes of that buffer: the header page and the three sections
/// (`xe_guc_log.h` `GUC_LOG_SIZE`).
const LOG_BYTES: usize = (4 + 64 + 16 + 1024) << 10;
/// GGTT address of the ADS.
const ADS_GGTT: u64 = 0x0200_0000;
/// GGTT address of the GuC private data: 8 KiB after the ADS (the test
/// driver's choice; the mock does not require it).
const PRIVATE_GGTT: u64 = ADS_GGTT + 0x2000;
/// GGTT address of the hwconfig buffer.
const HWCONFIG_GGTT: u64 = 0x0300_0000;
/// Private data size of the synthetic images.
const PRIVATE: u32 = 0x3000;

/// Offset of the policies in [`ads_blob`]: right after the ADS, as the
/// driver lays them out.
const BLOB_POLICIES: usize = abi::ads::SIZE;

/// The ADS blob for the default part's present engines (see
/// [`ads_blob_bare`]): every present engine enabled and mapped, logical
/// instance = rank among the class's present engines (`xe_guc_ads.c`
/// `fill_engine_enable_masks`, `guc_mapping_table_init`).
pub(crate) fn ads_blob(ads: u64) -> Vec<u8> {
    let fuses = params().fuses;
    let present: Vec<&EngineDef> = crate::regfile::engine::ENGINES
        .iter()
        .filter(|d| crate::regfile::engine::present(&fuses, d))
        .collect();
    let mut b = ads_blob_bare(ads);
    let sys = BLOB_POLICIES + abi::policies::SIZE;
    // Save/restore lists after the system info, as upstream's regset
    // (`guc_mmio_reg_state_init`): per engine RING_HWS_PGA, RING_MODE,
    // RING_IMR; rcs0 also RCU_MODE (`xe_hw_engine.c` "Enable CCS
    // Engine(s)" on the first render/compute engine).
    let mut regset = ADS_BLOB_BYTES;
    for d in &present {
        let class = super::ct::submit::guc_class(d.src.class).expect("a GuC class") as usize;
        let mut regs = vec![d.base + 0x80, d.base + 0x29c, d.base + 0xa8];
        if d.name == "rcs0" {
            regs.push(regs::tuning::RCU_MODE.offset);
        }
        let set = abi::ads::REG_STATE_LIST
            + abi::ads::REG_SET_BYTES * (class * abi::ads::INSTANCES + usize::from(d.src.instance));
        put32(&mut b, set, (ads + regset as u64) as u32);
        put32(&mut b, set + 4, regs.len() as u32);
        for r in regs {
            b.resize(regset + abi::ads::REG_BYTES, 0);
            put32(&mut b, regset, r);
            regset += abi::ads::REG_BYTES;
        }
    }
    for d in present {
        let class = super::ct::submit::guc_class(d.src.class).expect("a GuC class") as usize;
        let inst = usize::from(d.src.instance);
        let m = sys + abi::gt_system_info::ENGINE_ENABLED_MASKS + 4 * class;
        let mask = abi::dword(&b, m).expect("mask") | 1 << inst;
        put32(&mut b, m, mask);
        let row = sys + abi::gt_system_info::MAPPING_TABLE + class * abi::ads::INSTANCES;
        let logical = mask.count_ones() as usize - 1;
        // CAST: below 32.
        b[row + logical] = inst as u8;
    }
    b
}

/// Bytes of the blob [`ads_blob`] builds.
pub(crate) const ADS_BLOB_BYTES: usize =
    BLOB_POLICIES + abi::policies::SIZE + abi::gt_system_info::SIZE;

/// The ADS blob as upstream's minimal ADS leaves it
/// (`xe_guc_ads_populate_minimal`): ADS, policies, system info (the
/// driver's layout), pointers filled for `ads`, every engine mask 0 and
/// the mapping table unused (32).
pub(crate) fn ads_blob_bare(ads: u64) -> Vec<u8> {
    let sys_off = BLOB_POLICIES + abi::policies::SIZE;
    let mut b = vec![0u8; sys_off + abi::gt_system_info::SIZE];
    let pol = ads + BLOB_POLICIES as u64;
    let sys = ads + sys_off as u64;
    put32(&mut b, abi::ads::SCHEDULER_POLICIES, pol as u32);
    put32(&mut b, abi::ads::GT_SYSTEM_INFO, sys as u32);
    put32(
        &mut b,
        abi::ads::PRIVATE_DATA,
        (ads + (PRIVATE_GGTT - ADS_GGTT)) as u32,
    );
    put32(&mut b, BLOB_POLICIES + abi::policies::IS_VALID, 1);
    let table = sys_off + abi::gt_system_info::MAPPING_TABLE;
    b[table..table + abi::ads::CLASSES * abi::ads::INSTANCES].fill(abi::ads::INSTANCES as u8);
    b
}

/// `GUC_CTL_WA` upstream writes on ATS-M150 (`xe_guc.c` `guc_ctl_wa_flags`).
pub(crate) const CTL_WA: u32 = abi::ctl::WA_PRE_PARSER
    | abi::ctl::WA_HOLD_CCS_SWITCHOUT
    | abi::ctl::WA_DUAL_QUEUE
    | abi::ctl::WA_ENABLE_TSC_CHECK_ON_RC6;
/// `GUC_CTL_FEATURE`: `GUC_CTL_ENABLE_LITE_RESTORE` and
/// `GUC_CTL_ENABLE_SLPC` (bit 2) (`guc_ctl_feature_flags`).
pub(crate) const CTL_FEATURE: u32 = abi::ctl::FEATURE_LITE_RESTORE | 1 << 2;

// ---- the harness -------------------------------------------------------

const STATUS: u32 = regs::guc::GUC_STATUS.offset;
const DMA_CTRL: u32 = regs::guc::DMA_CTRL.offset;
const GDRST: u32 = regs::guc::GDRST.offset;
const HOST_INT: u32 = regs::guc::GUC_HOST_INTERRUPT.offset;
const WOPCM_SIZE: u32 = regs::guc::GUC_WOPCM_SIZE.offset;
const WOPCM_OFFSET: u32 = regs::guc::DMA_GUC_WOPCM_OFFSET.offset;
const TLB_INV: u32 = regs::guc::GUC_TLB_INV_CR.offset;
/// Upstream's DG2 GuC WOPCM layout (`xe_wopcm.c` `xe_wopcm_init`).
const GUC_WOPCM: u32 = 0x3F_3000;
const GUC_BASE: u32 = 0x4000;
/// The status of a READY uKernel (`xe_guc.c` `guc_wait_ucode`).
const READY: u32 = 0x8000_F0EC;

fn scratch(n: usize) -> u32 {
    regs::guc::SOFT_SCRATCH[n].offset
}

fn rsa(i: usize) -> u32 {
    regs::guc::UOS_RSA_SCRATCH[i].offset
}

fn flag(i: usize) -> u32 {
    regs::guc::VF_SW_FLAG[i].offset
}

fn ukernel(status: u32) -> u32 {
    (status >> 8) & 0xFF
}

fn bootrom(status: u32) -> u32 {
    (status >> 1) & 0x7F
}

/// A change a test case makes to the harness.
type Step = Box<dyn Fn(&mut H)>;

struct H {
    rf: RegisterFile,
    rec: Recorder,
    clock: ManualClock,
    bus: FakeBus,
    trace: PathBuf,
    /// The image the test driver uploads.
    img: Vec<u8>,
}

impl Drop for H {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.trace);
    }
}

fn temp_trace() -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!("xehpg-mock-guc-{}-{n}.jsonl", std::process::id()))
}

impl H {
    /// A register file with GT awake and the default image in guest memory.
    fn with(p: RegParams, img: Vec<u8>) -> H {
        let clock = ManualClock::new();
        let trace = temp_trace();
        let mut rec = Recorder::new(
            Arc::new(clock.clone()),
            TraceWriter::create(&trace).expect("trace"),
            None,
        );
        let mut rf = RegisterFile::new(&p, clock.now()).expect("register file");
        awake(&mut rf, &mut rec, &clock, &[Domain::GT]);
        let mut bus = FakeBus::new();
        bus.map_sys(FW_GGTT, FW_PHYS, &img);
        bus.map_sys(LOG_GGTT, LOG_PHYS, &vec![0; LOG_BYTES]);
        bus.map_sys(ADS_GGTT, 0x3000_0000, &ads_blob(ADS_GGTT));
        bus.map_sys(PRIVATE_GGTT, 0x3100_0000, &vec![0; PRIVATE as usize]);
        H {
            rf,
            rec,
            clock,
            bus,
            trace,
            img,
        }
    }

    fn new() -> H {
        H::with(params(), image(0x400, 96, PRIVATE))
    }

    fn with_guc(f: impl FnOnce(&mut GucParams)) -> H {
        let mut p = params();
        f(&mut p.guc);
        H::with(p, image(0x400, 96, PRIVATE))
    }

    fn css(&self) -> Css {
        Css::parse(&self.img).expect("header")
    }

    fn w(&mut self, off: u32, v: u32) {
        let done = self.rf.write_with(off, v, &mut self.rec, &mut self.bus);
        assert!(done.is_some(), "{off:#x} is a register");
    }

    fn r(&mut self, off: u32) -> u32 {
        self.rf.read(off, &mut self.rec).expect("a register")
    }

    fn status(&mut self) -> u32 {
        self.r(STATUS)
    }

    fn us(&self, n: u64) {
        self.clock.advance(Duration::from_micros(n));
    }

    fn ms(&self, n: u64) {
        self.clock.advance_ms(n);
    }

    /// Points the ADS field at byte `field` to GGTT address `to`.
    fn ads_pointer(&mut self, field: usize, to: u32) {
        self.bus
            .write(Target::Sys, 0x3000_0000 + field as u64, &to.to_le_bytes())
            .expect("write");
    }

    fn kinds(&self) -> BTreeMap<String, u64> {
        self.rec.summary(false).violation_kinds
    }

    fn kind(&self, k: &str) -> u64 {
        self.kinds().get(k).copied().unwrap_or(0)
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

    // ---- the upstream sequence, step by step ---------------------------

    fn guc_reset(&mut self) {
        self.w(GDRST, regs::guc::GRDOM_GUC.mask32());
        self.us(100);
        assert_eq!(self.r(GDRST), 0);
        assert_eq!(self.status() & 1, 1, "MIA_IN_RESET");
    }

    fn wopcm(&mut self) {
        self.w(WOPCM_SIZE, GUC_WOPCM);
        self.w(WOPCM_OFFSET, GUC_BASE);
    }

    fn params(&mut self) {
        self.w(scratch(0), 0);
        let p = [
            LOG_PARAMS | LOG_GGTT as u32,
            CTL_WA,
            CTL_FEATURE,
            0x40,
            ((ADS_GGTT >> 12) << 1) as u32,
            0x56C0 << 16 | 0x08,
        ];
        for i in 0..14 {
            self.w(scratch(1 + i), p.get(i).copied().unwrap_or(0));
        }
    }

    fn prepare(&mut self) {
        self.w(regs::guc::GUC_SHIM_CONTROL.offset, 0x8602);
        self.w(regs::guc::GT_PM_CONFIG.offset, 1);
        let m = self.r(regs::guc::PMINTRMSK.offset);
        self.w(regs::guc::PMINTRMSK.offset, m & !(1 << 9));
    }

    /// Hands the key over the way `guc_xfer_rsa` does.
    fn rsa(&mut self) {
        let css = self.css();
        let off = css.upload_bytes();
        if css.key_bytes() > 256 {
            self.w(rsa(0), (FW_GGTT + off) as u32);
        } else {
            let key = self.img[off as usize..(off + css.key_bytes()) as usize].to_vec();
            let mut regs = [0u8; 256];
            regs[..key.len()].copy_from_slice(&key);
            for i in 0..64 {
                let d = abi::dword(&regs, 4 * i).expect("dword");
                self.w(rsa(i), d);
            }
        }
    }

    fn dma_regs(&mut self, src: u64, dst: u32, size: u32) {
        self.w(regs::guc::DMA_ADDR_0_LOW.offset, src as u32);
        self.w(
            regs::guc::DMA_ADDR_0_HIGH.offset,
            (src >> 32) as u32 | 0x8_0000,
        );
        self.w(regs::guc::DMA_ADDR_1_LOW.offset, dst);
        self.w(regs::guc::DMA_ADDR_1_HIGH.offset, 0x7_0000);
        self.w(regs::guc::DMA_COPY_SIZE.offset, size);
    }

    fn start(&mut self) {
        self.w(DMA_CTRL, 0x0011_0011);
    }

    /// DMA the image, wait for it, clear UOS_MOVE.
    fn upload(&mut self) {
        let size = self.css().upload_bytes() as u32;
        self.dma_regs(FW_GGTT, 0x2000, size);
        self.start();
        assert_eq!(self.r(DMA_CTRL) & 1, 1, "START_DMA reads 1 while copying");
        self.clock.advance(DMA_TIME);
        assert_eq!(self.r(DMA_CTRL) & 1, 0, "done");
        self.w(DMA_CTRL, 0x0010_0000);
    }

    /// Everything up to the hand-over.
    fn load(&mut self) {
        self.guc_reset();
        self.wopcm();
        self.params();
        self.prepare();
        self.rsa();
        self.upload();
    }

    fn load_ready(&mut self) {
        self.load();
        self.ms(20);
        assert_eq!(self.status(), READY, "{:?}", self.kinds());
    }

    /// Sends an MMIO request and returns the reply header once visible.
    fn mmio(&mut self, msg: &[u32]) -> u32 {
        for (i, &d) in msg.iter().enumerate() {
            self.w(flag(i), d);
        }
        self.w(HOST_INT, 0);
        self.clock.advance(REPLY_DELAY);
        self.r(flag(0))
    }
}

fn get_hwconfig(addr: u64, size: u32) -> [u32; 4] {
    [
        abi::action::GET_HWCONFIG,
        addr as u32,
        (addr >> 32) as u32,
        size,
    ]
}

// ---- registers, power, write-once --------------------------------------

#[test]
fn reset_values() {
    let mut h = H::new();
    assert_eq!(h.status(), 1, "MIA_IN_RESET");
    assert_eq!(h.r(regs::guc::PMINTRMSK.offset), 0xFFFF_FFFF);
    for off in [WOPCM_SIZE, WOPCM_OFFSET, DMA_CTRL, GDRST, TLB_INV] {
        assert_eq!(h.r(off), 0, "{off:#x}");
    }
    h.w(STATUS, 0xFFFF_FFFF);
    assert_eq!(h.status(), 1, "read-only");
    assert_eq!(h.kind("read_only_write"), 1);
}

/// GT registers need GT forcewake; GT_PM_CONFIG, GUC_HOST_INTERRUPT and
/// VF_SW_FLAG do not (seed table).
#[test]
fn power_domains_of_the_guc_registers() {
    let map = crate::power::Map::builtin().expect("table");
    let no_wake = ["GT_PM_CONFIG", "GUC_HOST_INTERRUPT", "VF_SW_FLAG"];
    let guc_regs = regs::REGISTERS.iter().filter(|r| {
        (0xC000..0xD000).contains(&r.offset)
            || [0x941C, 0xA168, 0x13_816C, 0x19_01F0].contains(&r.offset)
            || (0x19_0240..0x19_0250).contains(&r.offset)
    });
    // The replicated registers of the GAM range in there are not the GuC's.
    let guc_regs = guc_regs.filter(|r| !regs::mcr::ALL.iter().any(|m| m.offset == r.offset));
    let mut n = 0;
    for r in guc_regs {
        n += 1;
        let want = if no_wake.iter().any(|p| r.name.starts_with(p)) {
            None
        } else {
            Some(Domain::GT)
        };
        assert_eq!(map.domain(r.offset), want, "{}", r.name);
    }
    // HUC_KERNEL_LOAD_INFO (0xC1DC) is among them: GT, like its row.
    assert_eq!(n, 100, "every GuC register");
    // The rule applies: asleep, GUC_STATUS reads 0 and WOPCM writes drop.
    let (mut rf, mut rec, _) = crate::regfile::tests::setup(params());
    assert_eq!(rf.read(STATUS, &mut rec), Some(0));
    rf.write(WOPCM_SIZE, GUC_WOPCM, &mut rec);
    rf.write(flag(0), 5, &mut rec);
    assert_eq!(rf.read(flag(0), &mut rec), Some(5));
    assert_eq!(rec.summary(false).sleeping_accesses, 2);
}

#[test]
fn wopcm_registers_are_write_once() {
    let mut h = H::new();
    h.w(WOPCM_SIZE, GUC_WOPCM);
    h.w(WOPCM_OFFSET, GUC_BASE);
    assert_eq!(h.r(WOPCM_SIZE), GUC_WOPCM | 1, "LOCKED");
    assert_eq!(h.r(WOPCM_OFFSET), GUC_BASE | 1, "VALID");
    // The same value again (a reloaded driver): a no-op, no violation.
    h.w(WOPCM_SIZE, GUC_WOPCM);
    h.w(WOPCM_OFFSET, GUC_BASE | 1);
    assert_eq!(h.kind("wopcm_locked_write"), 0);
    // Another value: ignored and recorded.
    h.w(WOPCM_SIZE, 0x1000);
    h.w(WOPCM_OFFSET, 0x8000 | 2);
    assert_eq!(h.r(WOPCM_SIZE), GUC_WOPCM | 1);
    assert_eq!(h.r(WOPCM_OFFSET), GUC_BASE | 1);
    assert_eq!(h.kind("wopcm_locked_write"), 2);
    // A GuC reset keeps them.
    h.guc_reset();
    assert_eq!(h.r(WOPCM_SIZE), GUC_WOPCM | 1);
    // A device reset clears them.
    let now = h.clock.now();
    h.rf.reset(now, &mut h.rec);
    awake(&mut h.rf, &mut h.rec, &h.clock, &[Domain::GT]);
    assert_eq!(h.r(WOPCM_SIZE), 0);
    assert_eq!(h.r(WOPCM_OFFSET), 0);
    h.w(WOPCM_SIZE, 0x10_0000);
    assert_eq!(h.r(WOPCM_SIZE), 0x10_0001, "writable again");
    // So does a Driver-FLR.
    h.w(regs::gu_cntl::OFFSET, regs::gu_cntl::DRIVERFLR.mask32());
    awake(&mut h.rf, &mut h.rec, &h.clock, &[Domain::GT]);
    assert_eq!(h.r(WOPCM_SIZE), 0);
}

/// `--wopcm-prelocked`: latched from power-on, LOCKED / VALID, and again
/// after a device reset or Driver-FLR; GuC resets keep them.
#[test]
fn prelocked_wopcm_registers() {
    let mut h = H::with_guc(|g| {
        g.wopcm_prelocked = Some(WopcmLock {
            base: 0x8000,
            size: 0x1_0000,
        });
    });
    let latched = |h: &mut H| (h.r(WOPCM_OFFSET), h.r(WOPCM_SIZE));
    assert_eq!(latched(&mut h), (0x8001, 0x1_0001));
    // The same values again: a no-op; others: ignored and recorded.
    h.w(WOPCM_SIZE, 0x1_0000);
    h.w(WOPCM_OFFSET, 0x8000);
    assert_eq!(h.kind("wopcm_locked_write"), 0);
    h.w(WOPCM_SIZE, GUC_WOPCM);
    h.w(WOPCM_OFFSET, GUC_BASE);
    assert_eq!(h.kind("wopcm_locked_write"), 2);
    assert_eq!(latched(&mut h), (0x8001, 0x1_0001));
    h.guc_reset();
    assert_eq!(latched(&mut h), (0x8001, 0x1_0001), "GuC reset");
    let now = h.clock.now();
    h.rf.reset(now, &mut h.rec);
    awake(&mut h.rf, &mut h.rec, &h.clock, &[Domain::GT]);
    assert_eq!(latched(&mut h), (0x8001, 0x1_0001), "device reset");
    h.w(regs::gu_cntl::OFFSET, regs::gu_cntl::DRIVERFLR.mask32());
    awake(&mut h.rf, &mut h.rec, &h.clock, &[Domain::GT]);
    assert_eq!(latched(&mut h), (0x8001, 0x1_0001), "Driver-FLR");
    assert_eq!(h.kinds().len(), 1, "{:?}", h.kinds());
}

/// A load that finds the WOPCM locked with usable values boots without
/// writing it; one locked too small has its DMA rejected.
#[test]
fn prelocked_wopcm_good_and_too_small() {
    let lock = |size| {
        move |g: &mut GucParams| {
            g.wopcm_prelocked = Some(WopcmLock {
                base: GUC_BASE,
                size,
            });
        }
    };
    let mut h = H::with_guc(lock(GUC_WOPCM));
    h.guc_reset();
    h.params();
    h.prepare();
    h.rsa();
    h.upload();
    h.ms(20);
    assert_eq!(h.status(), READY, "{:?}", h.kinds());
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
    // Room for 4 KiB above the uKernel's 8 KiB offset: the image is larger.
    let mut h = H::with_guc(lock(0x3000));
    h.guc_reset();
    h.dma_regs(FW_GGTT, 0x2000, h.css().upload_bytes() as u32);
    h.start();
    assert_eq!(h.r(DMA_CTRL) & 1, 0);
    assert_eq!(h.kind("guc_dma_rejected"), 1);
    assert_eq!(h.status(), 1, "the GuC stays in reset");
}

#[test]
fn huc_agent_bit_latches_with_the_offset() {
    let mut h = H::new();
    h.w(WOPCM_OFFSET, GUC_BASE | 2);
    assert_eq!(h.r(WOPCM_OFFSET), GUC_BASE | 3);
    h.w(WOPCM_OFFSET, GUC_BASE);
    assert_eq!(h.kind("wopcm_locked_write"), 1, "the agent bit differs");
}

#[test]
fn gdrst_resets_the_guc_and_self_clears() {
    let mut h = H::new();
    h.load_ready();
    h.w(GDRST, regs::guc::GRDOM_GUC.mask32());
    assert_eq!(h.r(GDRST), 8);
    assert_eq!(h.status(), 1, "MIA_IN_RESET only");
    h.us(99);
    assert_eq!(h.r(GDRST), 8);
    h.us(1);
    assert_eq!(h.r(GDRST), 0);
    assert_eq!(h.status(), 1);
    // GRDOM_FULL resets the GuC too; other bits do nothing.
    h.w(GDRST, 0x6);
    assert_eq!(h.r(GDRST), 0);
    h.w(GDRST, 1);
    assert_eq!(h.r(GDRST), 1);
    let s = h.rec.summary(false);
    assert_eq!(s.guc_resets, 3, "load_ready's, GRDOM_GUC, GRDOM_FULL");
    assert!(!s.guc_running_at_exit);
    let causes: Vec<_> = h
        .events("guc_reset")
        .iter()
        .map(|e| e["cause"].clone())
        .collect();
    assert_eq!(causes, ["grdom_guc", "grdom_guc", "grdom_full"]);
}

#[test]
fn dma_ctrl_is_masked() {
    let mut h = H::new();
    h.w(DMA_CTRL, 0x11);
    assert_eq!(h.r(DMA_CTRL), 0);
    assert_eq!(h.kind("masked_write_no_mask"), 1);
    assert_eq!(h.rec.summary(false).guc_dmas, 0, "no DMA started");
    h.w(DMA_CTRL, 0x0010_0010);
    assert_eq!(h.r(DMA_CTRL), 0x10);
}

// ---- a good load -------------------------------------------------------

#[test]
fn good_load_walks_to_ready_in_time() {
    let mut h = H::new();
    h.load();
    let t0 = h.clock.now();
    let step = Duration::from_millis(20) / 6;
    let at = |h: &mut H, t: Duration| {
        h.clock.advance((t0 + t).saturating_sub(h.clock.now()));
        ukernel(h.status())
    };
    assert_eq!(at(&mut h, Duration::ZERO), 0x01, "START");
    assert_eq!(
        h.status() & 0xC000_00FF,
        0x8000_00EC,
        "AUTH good, JUMP_PASSED"
    );
    for (i, want) in [0x10, 0x20, 0x30, 0x40, 0x50, 0xF0].into_iter().enumerate() {
        let t = step * (i as u32 + 1);
        assert_eq!(
            at(&mut h, t - Duration::from_nanos(1)),
            boot::WALK[i],
            "just before step {i}"
        );
        assert_eq!(at(&mut h, t), want, "step {i}");
    }
    assert_eq!(h.status(), READY);
    assert!(h.rf.guc().ready(h.clock.now()));
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
    let upload = h.css().upload_bytes() as usize;
    let sha: String = Sha256::digest(&h.img[..upload])
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let loaded = h.events("guc_loaded");
    assert_eq!(loaded.len(), 1);
    assert_eq!(loaded[0]["release"], "70.53.0");
    assert_eq!(loaded[0]["submission"], "1.26.0");
    assert_eq!(loaded[0]["sha256"], sha.as_str());
    assert_eq!(loaded[0]["bytes"], upload);
    let s = h.rec.summary(false);
    assert_eq!((s.guc_loads, s.guc_dmas, s.guc_resets), (1, 1, 1));
    assert_eq!(s.guc_last_release.as_deref(), Some("70.53.0"));
    assert_eq!(s.guc_last_sha256.as_deref(), Some(sha.as_str()));
    assert!(s.guc_running_at_exit);
    // Every transition is traced with its time.
    let walk: Vec<_> = h
        .events("guc_status")
        .iter()
        .map(|e| e["ukernel"].as_str().unwrap_or("").to_owned())
        .collect();
    assert_eq!(
        walk,
        ["0x1", "0x10", "0x20", "0x30", "0x40", "0x50", "0xf0"]
    );
    assert_eq!(h.events("guc_dma_done").len(), 1);
}

#[test]
fn boot_time_option_scales_the_walk() {
    let mut h = H::with_guc(|g| g.boot_time = Duration::from_millis(600));
    h.load();
    h.ms(599);
    assert_eq!(ukernel(h.status()), 0x50);
    h.ms(1);
    assert_eq!(h.status(), READY);
}

#[test]
fn fw_in_lmem_key_in_registers_and_checked_against_the_file() {
    // A 256-byte key travels in UOS_RSA_SCRATCH(0..63).
    let img = image(0x800, 64, PRIVATE);
    let fw = FwFile::from_bytes(img.clone()).expect("valid image");
    let mut p = params();
    p.guc.fw = Some(Arc::new(fw));
    let mut h = H::with(p, img.clone());
    // The firmware BO in LMEM instead (DM PTEs).
    h.bus
        .ptes
        .retain(|&k, _| !(FW_GGTT / PAGE..=(FW_GGTT + 0x10_0000) / PAGE).contains(&k));
    h.bus.map_lmem(FW_GGTT, 0x20_0000, &img);
    h.load_ready();
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
}

// ---- DMA rules ---------------------------------------------------------

/// Each illegal case of seed 000 lines 1133-1138 and the placement rules.
#[test]
fn dma_rejections() {
    let cases: Vec<(&str, Step)> = vec![
        (
            "not programmed",
            Box::new(|h: &mut H| h.dma_regs(FW_GGTT, 0x2000, 0x1000)),
        ),
        (
            "size 0",
            Box::new(|h: &mut H| {
                h.wopcm();
                h.dma_regs(FW_GGTT, 0x2000, 0);
            }),
        ),
        (
            "does not fit",
            Box::new(|h: &mut H| {
                h.wopcm();
                h.dma_regs(FW_GGTT, GUC_WOPCM - 0x1000, 0x2000);
            }),
        ),
        (
            "low 6 bits",
            Box::new(|h: &mut H| {
                h.wopcm();
                h.dma_regs(FW_GGTT + 4, 0x2000, 0x1000);
            }),
        ),
        (
            "spaces",
            Box::new(|h: &mut H| {
                h.wopcm();
                h.dma_regs(FW_GGTT, 0x2000, 0x1000);
                h.w(regs::guc::DMA_ADDR_0_HIGH.offset, 0x7_0000);
            }),
        ),
        (
            "GuC WOPCM beyond the WOPCM",
            Box::new(|h: &mut H| {
                h.w(WOPCM_SIZE, 0x40_0000);
                h.w(WOPCM_OFFSET, GUC_BASE);
                h.dma_regs(FW_GGTT, 0x2000, 0x1000);
            }),
        ),
    ];
    for (name, setup) in cases {
        let mut h = H::new();
        setup(&mut h);
        h.start();
        assert_eq!(h.r(DMA_CTRL) & 1, 0, "{name}: START_DMA clears at once");
        assert_eq!(h.kind("guc_dma_rejected"), 1, "{name}");
        assert_eq!(h.status(), 1, "{name}: the GuC stays in reset");
        assert_eq!(h.rec.summary(false).guc_dmas, 1, "{name}: traced");
        assert!(h.events("guc_dma_done").is_empty(), "{name}");
        // Nothing loaded: clearing UOS_MOVE boots nothing.
        h.w(DMA_CTRL, 0x0010_0000);
        h.ms(50);
        assert_eq!(h.status(), 1, "{name}");
    }
}

/// The uKernel is placed on a 64-byte aligned address (seed 000 line
/// 1133): a `UOS_MOVE` copy to 0x2020 (source sharing its low 6 bits, so no
/// rejection) is recorded; the same copy to 0x2040, or a copy that is not
/// the uKernel to 0x2020, is not.
#[test]
fn ukernel_dma_must_be_64_byte_aligned() {
    let run = |dst: u32, ctrl: u32| {
        let mut h = H::new();
        let img = h.img.clone();
        // The image at a GGTT address with the destination's low 6 bits.
        let mut staged = vec![0u8; (dst & 0x3F) as usize];
        staged.extend_from_slice(&img);
        h.bus.map_sys(0x0400_0000, 0x1800_0000, &staged);
        h.guc_reset();
        h.wopcm();
        let size = h.css().upload_bytes() as u32;
        h.dma_regs(0x0400_0000 + u64::from(dst & 0x3F), dst, size);
        h.w(DMA_CTRL, ctrl);
        assert_eq!(h.kind("guc_dma_rejected"), 0, "{dst:#x}: not a rejection");
        assert_eq!(h.r(DMA_CTRL) & 1, 1, "{dst:#x}: copying");
        h.kind("guc_ukernel_misaligned")
    };
    assert_eq!(run(0x2020, 0x0011_0011), 1);
    assert_eq!(run(0x2004, 0x0011_0011), 1);
    assert_eq!(run(0x2040, 0x0011_0011), 0);
    assert_eq!(run(0x2000, 0x0011_0011), 0);
    assert_eq!(run(0x2020, 0x0001_0001), 0, "not a uKernel copy");
    assert_eq!(super::dma::UKERNEL_ALIGN, 64);
}

/// The ADS pointers only have to be GuC-reachable GGTT addresses (module
/// docs of `boot`): policies and system info in a buffer of their own, far
/// from the ADS, boot to READY without a violation.
#[test]
fn ads_pointers_may_point_anywhere_the_guc_reaches() {
    let mut h = H::new();
    let far: u64 = 0x0600_0000;
    let mut side = vec![0u8; abi::policies::SIZE + abi::gt_system_info::SIZE];
    put32(&mut side, abi::policies::IS_VALID, 1);
    h.bus.map_sys(far, 0x3400_0000, &side);
    h.ads_pointer(abi::ads::SCHEDULER_POLICIES, far as u32);
    h.ads_pointer(
        abi::ads::GT_SYSTEM_INFO,
        (far + abi::policies::SIZE as u64) as u32,
    );
    // Before the ADS, too: only the GGTT bounds matter.
    let before = ADS_GGTT - 0x10_0000;
    h.bus
        .map_sys(before, 0x3500_0000, &vec![0; PRIVATE as usize]);
    h.ads_pointer(abi::ads::PRIVATE_DATA, before as u32);
    h.load_ready();
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
}

#[test]
fn dma_busy_and_loaded_ukernel_are_protected() {
    let mut h = H::new();
    h.load();
    // A second upload without a GuC reset: over the loaded uKernel.
    h.upload_again_expect_reject();
    assert_eq!(h.kind("guc_dma_rejected"), 1);
    // A copy beside it is fine.
    h.dma_regs(FW_GGTT, 0x20_0000, 0x1000);
    h.w(DMA_CTRL, 0x0001_0001);
    assert_eq!(h.r(DMA_CTRL) & 1, 1);
    // ... and a START while it runs is refused.
    h.w(DMA_CTRL, 0x0001_0001);
    assert_eq!(h.kind("guc_dma_rejected"), 2);
    h.clock.advance(DMA_TIME);
    assert_eq!(h.r(DMA_CTRL) & 1, 0);
    // After a GuC reset the uKernel area can be loaded again.
    h.guc_reset();
    h.upload();
    h.ms(20);
    assert_eq!(h.status(), READY);
    assert_eq!(h.kind("guc_dma_rejected"), 2);
}

impl H {
    fn upload_again_expect_reject(&mut self) {
        let size = self.css().upload_bytes() as u32;
        self.dma_regs(FW_GGTT, 0x2000, size);
        self.start();
        assert_eq!(self.r(DMA_CTRL) & 1, 0);
        self.w(DMA_CTRL, 0x0010_0000);
    }
}

#[test]
fn dma_faults() {
    let upload = image(0x400, 96, PRIVATE).len() as u64;
    let cases: Vec<(&str, Step)> = vec![
        (
            "non-present PTE",
            Box::new(|h: &mut H| {
                h.bus.ptes.remove(&(FW_GGTT / PAGE + 1));
            }),
        ),
        (
            "unreachable guest page",
            Box::new(|h: &mut H| {
                h.bus.sys.remove(&(FW_PHYS / PAGE + 1));
            }),
        ),
        (
            "DM page beyond LMEM",
            Box::new(|h: &mut H| {
                h.bus
                    .ptes
                    .insert(FW_GGTT / PAGE, (LMEM_SIZE as u64) | PTE_PRESENT | PTE_DM);
            }),
        ),
        ("no GGTT", Box::new(|h: &mut H| h.bus.no_ggtt = true)),
    ];
    for (name, breakage) in cases {
        let mut h = H::new();
        h.guc_reset();
        h.wopcm();
        h.params();
        h.prepare();
        h.rsa();
        breakage(&mut h);
        h.dma_regs(FW_GGTT, 0x2000, h.css().upload_bytes() as u32);
        h.start();
        assert_eq!(h.r(DMA_CTRL) & 1, 0, "{name}");
        assert_eq!(h.kind("guc_dma_fault"), 1, "{name}: {:?}", h.kinds());
        let st = h.status();
        assert_eq!(bootrom(st), 0x75, "{name}: LOADLOC_FAILED");
        h.w(DMA_CTRL, 0x0010_0000);
        h.ms(50);
        assert_eq!(bootrom(h.status()), 0x75, "{name}: no boot");
        assert_eq!(h.rec.summary(false).guc_loads, 0);
    }
    // Addresses the GuC cannot reach through the GGTT.
    for (name, src) in [
        ("below the WOPCM top", 0x3F_F000u64),
        ("at GUC_GGTT_TOP", GUC_GGTT_TOP - 0x1000),
    ] {
        let mut h = H::new();
        h.wopcm();
        h.bus.map_sys(src, 0x5000_0000, &vec![0; upload as usize]);
        h.dma_regs(src, 0x2000, 0x2000);
        h.start();
        assert_eq!(h.kind("guc_dma_fault"), 1, "{name}");
    }
}

/// A faulting data copy (no UOS_MOVE) does not disturb a running GuC.
#[test]
fn data_copy_fault_leaves_a_running_guc_alone() {
    let mut h = H::new();
    h.load_ready();
    h.dma_regs(0x0900_0000, 0x20_0000, 0x1000);
    h.w(DMA_CTRL, 0x0001_0001);
    assert_eq!(h.kind("guc_dma_fault"), 1);
    assert_eq!(h.r(DMA_CTRL) & 1, 0);
    assert_eq!(h.status(), READY);
}

#[test]
fn uos_move_cleared_early_does_not_boot() {
    let mut h = H::new();
    h.guc_reset();
    h.wopcm();
    h.params();
    h.prepare();
    h.rsa();
    h.dma_regs(FW_GGTT, 0x2000, h.css().upload_bytes() as u32);
    h.start();
    h.w(DMA_CTRL, 0x0010_0000);
    h.ms(50);
    assert_eq!(h.status(), 1, "still in reset");
    assert_eq!(h.rec.summary(false).guc_loads, 0);
}

// ---- the GGTT TLB ------------------------------------------------------

#[test]
fn stale_tlb_is_used_and_recorded_until_invalidated() {
    let mut h = H::new();
    h.load_ready();
    let table = hwconfig::bytes(h.rf.guc().hwconfig());
    let n = table.len() as u32;
    let (old, new) = (0x4000_0000u64, 0x4100_0000u64);
    h.bus.map_sys(HWCONFIG_GGTT, old, &[0; 4096]);
    assert_eq!(h.mmio(&get_hwconfig(HWCONFIG_GGTT, n)), mmio::success(n));
    assert_eq!(h.bus.sys_bytes(old, table.len()), table);
    // The driver moves the buffer without invalidating.
    h.bus.map_sys(HWCONFIG_GGTT, new, &[0; 4096]);
    assert_eq!(h.mmio(&get_hwconfig(HWCONFIG_GGTT, n)), mmio::success(n));
    assert_eq!(h.kind("stale_ggtt_tlb"), 1);
    assert_eq!(h.bus.sys_bytes(new, 4), [0; 4], "the stale page got it");
    assert_eq!(h.bus.sys_bytes(old, table.len()), table);
    // After GUC_TLB_INV_CR the new mapping is used.
    h.w(TLB_INV, 1);
    assert_eq!(h.r(TLB_INV), 0, "self-clearing");
    assert_eq!(h.mmio(&get_hwconfig(HWCONFIG_GGTT, n)), mmio::success(n));
    assert_eq!(h.bus.sys_bytes(new, table.len()), table);
    assert_eq!(h.kind("stale_ggtt_tlb"), 1);
    let s = h.rec.summary(false);
    assert_eq!(s.tlb_invalidations, 1);
    let inv = h.events("ggtt_tlb_invalidate");
    assert!(inv[0]["entries"].as_u64().unwrap_or(0) > 1, "{inv:?}");
}

#[test]
fn tlb_is_dropped_by_a_guc_reset() {
    let mut h = H::new();
    h.load_ready();
    // Rebind the firmware elsewhere (same bytes), reset, reload: fresh
    // translations, no stale hit.
    let img = h.img.clone();
    h.bus.map_sys(FW_GGTT, 0x6000_0000, &img);
    h.load_ready();
    assert_eq!(h.kind("stale_ggtt_tlb"), 0);
    assert_eq!(h.rec.summary(false).guc_loads, 2);
}

#[test]
fn translation_reaches_lmem_and_system_memory() {
    let mut bus = FakeBus::new();
    bus.map_sys(0x50_0000, 0x9000_0000, &[1, 2, 3, 4]);
    bus.map_lmem(0x50_1000, 0x1000, &[5, 6, 7, 8]);
    let mut tlb = Tlb::default();
    let mut rf_rec = rec();
    let mut g = Gtt::new(&mut bus, &mut tlb);
    let mut b = [0u8; 8];
    g.read(0x50_0000, &mut b[..4], "t", &mut rf_rec)
        .expect("sys");
    assert_eq!(b[..4], [1, 2, 3, 4]);
    g.read(0x50_1000, &mut b[..4], "t", &mut rf_rec)
        .expect("lmem");
    assert_eq!(b[..4], [5, 6, 7, 8]);
    g.write(0x50_1002, &[9, 9], "t", &mut rf_rec)
        .expect("lmem write");
    assert_eq!(bus.lmem[0x1000..0x1004], [5, 6, 9, 9]);
    assert_eq!(tlb.len(), 2);
    assert_eq!(tlb.clear(), 2);
    assert!(tlb.is_empty());
}

fn rec() -> Recorder {
    Recorder::new(Arc::new(ManualClock::new()), TraceWriter::disabled(), None)
}

#[test]
fn page_crossing_access_spans_both_memories() {
    let mut bus = FakeBus::new();
    bus.map_sys(0x50_0000, 0x9000_0000, &[0xAA; 4096]);
    bus.map_lmem(0x50_1000, 0x2000, &[0xBB; 4096]);
    let mut tlb = Tlb::default();
    let mut r = rec();
    let mut b = [0u8; 4];
    Gtt::new(&mut bus, &mut tlb)
        .read(0x50_0FFE, &mut b, "t", &mut r)
        .expect("crosses from sys to lmem");
    assert_eq!(b, [0xAA, 0xAA, 0xBB, 0xBB]);
    let e = Gtt::new(&mut bus, &mut tlb)
        .probe(0x50_1000, 0x2000, "t", &mut r)
        .expect_err("second page not present");
    assert!(e.0.contains("not present"), "{e}");
}

// ---- image and key checks ----------------------------------------------

fn with_fw(img: &[u8], file: &[u8]) -> H {
    let mut p = params();
    p.guc.fw = Some(Arc::new(FwFile::from_bytes(file.to_vec()).expect("file")));
    H::with(p, img.to_vec())
}

fn expect_rsa_failed(h: &mut H, kind: &str) {
    h.load();
    h.ms(100);
    let st = h.status();
    assert_eq!(st >> 30, 1, "AUTH bad: {st:#x}");
    assert_eq!(bootrom(st), 0x50, "RSA_FAILED");
    assert_eq!(ukernel(st), 0, "no uKernel");
    assert_eq!(h.kind(kind), 1, "{:?}", h.kinds());
    assert_eq!(h.rec.summary(false).guc_loads, 0);
    assert!(!h.rec.summary(false).guc_running_at_exit);
}

#[test]
fn image_must_match_the_firmware_file() {
    let file = image(0x400, 96, PRIVATE);
    let mut img = file.clone();
    img[0x300] ^= 1;
    expect_rsa_failed(&mut with_fw(&img, &file), "guc_image_mismatch");
}

#[test]
fn in_memory_key_must_match_the_file() {
    let file = image(0x400, 96, PRIVATE);
    let mut img = file.clone();
    let last = img.len() - 1;
    img[last] ^= 1;
    expect_rsa_failed(&mut with_fw(&img, &file), "guc_rsa_mismatch");
}

#[test]
fn in_register_key_must_match_the_file() {
    let file = image(0x400, 64, PRIVATE);
    let mut img = file.clone();
    let last = img.len() - 1;
    img[last] ^= 1;
    expect_rsa_failed(&mut with_fw(&img, &file), "guc_rsa_mismatch");
}

#[test]
fn without_the_file_any_consistent_image_loads() {
    let mut img = image(0x400, 96, PRIVATE);
    let last = img.len() - 1;
    img[last] ^= 1;
    img[0x300] ^= 1;
    let mut h = H::with(params(), img);
    h.load_ready();
}

#[test]
fn unreachable_in_memory_key_fails_the_boot() {
    let mut h = H::new();
    h.guc_reset();
    h.wopcm();
    h.params();
    h.prepare();
    h.w(rsa(0), 0x0900_0000);
    h.upload();
    h.ms(50);
    assert_eq!(bootrom(h.status()), 0x50);
    assert_eq!(h.kind("guc_dma_fault"), 1);
}

#[test]
fn inconsistent_header_or_copy_size_fails_the_boot() {
    // header_size_dw does not add up.
    let mut img = image(0x400, 96, PRIVATE);
    put32(&mut img, abi::css::HEADER_SIZE_DW, 200);
    let mut h = H::with(params(), img);
    h.guc_reset();
    h.wopcm();
    h.params();
    h.prepare();
    h.w(rsa(0), (FW_GGTT + 0x1000) as u32);
    h.dma_regs(FW_GGTT, 0x2000, 0x1080);
    h.start();
    h.clock.advance(DMA_TIME);
    h.w(DMA_CTRL, 0x0010_0000);
    assert_eq!(bootrom(h.status()), 0x50);
    assert_eq!(h.kind("guc_css_invalid"), 1);
    // A copy one dword short of header + uCode.
    let mut h = H::new();
    h.guc_reset();
    h.wopcm();
    h.params();
    h.prepare();
    h.rsa();
    h.dma_regs(FW_GGTT, 0x2000, h.css().upload_bytes() as u32 - 64);
    h.start();
    h.clock.advance(DMA_TIME);
    h.w(DMA_CTRL, 0x0010_0000);
    assert_eq!(bootrom(h.status()), 0x50);
    assert_eq!(h.kind("guc_css_invalid"), 1);
}

// ---- pre-load programming and boot parameters --------------------------

#[test]
fn preload_misses_stall_at_start() {
    let misses: [(&str, Step); 3] = [
        (
            "guc_preload_shim",
            Box::new(|h: &mut H| h.w(regs::guc::GUC_SHIM_CONTROL.offset, 0x8600)),
        ),
        (
            "guc_preload_doorbell",
            Box::new(|h: &mut H| h.w(regs::guc::GT_PM_CONFIG.offset, 0)),
        ),
        (
            "guc_preload_arat",
            Box::new(|h: &mut H| h.w(regs::guc::PMINTRMSK.offset, 0xFFFF_FFFF)),
        ),
    ];
    for (kind, undo) in misses {
        let mut h = H::new();
        h.guc_reset();
        h.wopcm();
        h.params();
        h.prepare();
        undo(&mut h);
        h.rsa();
        h.upload();
        h.ms(1000);
        assert_eq!(ukernel(h.status()), 0x01, "{kind}: stalled at START");
        assert_eq!(h.kinds().keys().collect::<Vec<_>>(), [kind]);
        assert_eq!(h.rec.summary(false).guc_loads, 1, "authenticated");
    }
}

/// Each bad boot parameter, with the code it must produce.
#[test]
fn boot_parameter_checks() {
    let invalid = abi::ukernel::INIT_DATA_INVALID;
    let ads_field = |f: usize| ADS_GGTT + f as u64;
    let policies_ptr = ads_field(abi::ads::SCHEDULER_POLICIES);
    let cases: Vec<(&str, u32, &str, Step)> = vec![
        (
            "scratch 0",
            invalid,
            "guc_init_data_invalid",
            Box::new(|h: &mut H| h.w(scratch(0), 1)),
        ),
        (
            "devid",
            abi::ukernel::DEVID_BUILD_MISMATCH,
            "guc_devid_mismatch",
            Box::new(|h: &mut H| h.w(scratch(6), 0x56C1 << 16 | 8)),
        ),
        (
            "revision",
            abi::ukernel::DEVID_BUILD_MISMATCH,
            "guc_devid_mismatch",
            Box::new(|h: &mut H| h.w(scratch(6), 0x56C0 << 16 | 4)),
        ),
        (
            "log not valid",
            invalid,
            "guc_init_data_invalid",
            Box::new(|h: &mut H| h.w(scratch(1), LOG_GGTT as u32 | 0x3F6)),
        ),
        (
            "log unmapped",
            invalid,
            "guc_init_data_invalid",
            Box::new(|h: &mut H| h.w(scratch(1), 0x0700_0000 | 0x3F7)),
        ),
        (
            "log capture section's last page unmapped",
            invalid,
            "guc_init_data_invalid",
            Box::new(|h: &mut H| {
                h.bus
                    .ptes
                    .remove(&((LOG_GGTT + LOG_BYTES as u64) / PAGE - 1));
            }),
        ),
        (
            "log sizes in MiB units past the mapped buffer",
            invalid,
            "guc_init_data_invalid",
            Box::new(|h: &mut H| {
                let mib = super::log::LOG_ALLOC_UNITS;
                h.w(scratch(1), LOG_GGTT as u32 | LOG_PARAMS | mib);
            }),
        ),
        (
            "ADS unmapped",
            invalid,
            "guc_init_data_invalid",
            Box::new(|h: &mut H| h.w(scratch(5), (0x0700_0000 >> 12) << 1)),
        ),
        (
            "policies unmapped",
            invalid,
            "guc_init_data_invalid",
            Box::new(move |h: &mut H| {
                h.bus
                    .write(
                        Target::Sys,
                        0x3000_0000 + (policies_ptr - ADS_GGTT),
                        &0x0700_0000u32.to_le_bytes(),
                    )
                    .expect("write");
            }),
        ),
        (
            "ADS second page unmapped",
            invalid,
            "guc_init_data_invalid",
            Box::new(|h: &mut H| {
                h.bus.ptes.remove(&(ADS_GGTT / PAGE + 1));
            }),
        ),
        (
            "policies not valid",
            invalid,
            "guc_init_data_invalid",
            Box::new(|h: &mut H| {
                let off = BLOB_POLICIES + abi::policies::IS_VALID;
                h.bus
                    .write(Target::Sys, 0x3000_0000 + off as u64, &0u32.to_le_bytes())
                    .expect("write");
            }),
        ),
        (
            "system info below the WOPCM top",
            invalid,
            "guc_init_data_invalid",
            Box::new(|h: &mut H| h.ads_pointer(abi::ads::GT_SYSTEM_INFO, 0x0030_0000)),
        ),
        (
            "system info at GUC_GGTT_TOP",
            invalid,
            "guc_init_data_invalid",
            Box::new(|h: &mut H| h.ads_pointer(abi::ads::GT_SYSTEM_INFO, 0xFEE0_0000)),
        ),
        (
            "system info runs off its last page",
            invalid,
            "guc_init_data_invalid",
            Box::new(|h: &mut H| {
                // The last 0x100 bytes of the private area's last page: the
                // 640-byte structure runs into the unmapped page after it.
                let end = PRIVATE_GGTT + u64::from(PRIVATE);
                h.ads_pointer(abi::ads::GT_SYSTEM_INFO, (end - 0x100) as u32);
            }),
        ),
        (
            "private data 0",
            invalid,
            "guc_init_data_invalid",
            Box::new(|h: &mut H| {
                let off = abi::ads::PRIVATE_DATA;
                h.bus
                    .write(Target::Sys, 0x3000_0000 + off as u64, &0u32.to_le_bytes())
                    .expect("write");
            }),
        ),
        (
            "private data short",
            invalid,
            "guc_init_data_invalid",
            Box::new(|h: &mut H| {
                let last = PRIVATE_GGTT + 0x2000;
                h.bus.ptes.remove(&(last / PAGE));
            }),
        ),
    ];
    for (name, code, kind, breakage) in cases {
        let mut h = H::new();
        h.guc_reset();
        h.wopcm();
        h.params();
        h.prepare();
        h.rsa();
        breakage(&mut h);
        h.upload();
        assert_eq!(ukernel(h.status()), 0x01, "{name}: START first");
        h.ms(4);
        assert_eq!(ukernel(h.status()), code, "{name}");
        h.ms(100);
        assert_eq!(ukernel(h.status()), code, "{name}: stays");
        assert_eq!(h.kinds().keys().collect::<Vec<_>>(), [kind], "{name}");
    }
}

// ---- faults ------------------------------------------------------------

#[test]
fn fault_dma_never_completes() {
    let mut h = H::with_guc(|g| g.faults.dma_never_completes = true);
    h.guc_reset();
    h.wopcm();
    h.params();
    h.prepare();
    h.rsa();
    h.dma_regs(FW_GGTT, 0x2000, h.css().upload_bytes() as u32);
    h.start();
    h.ms(1000);
    assert_eq!(h.r(DMA_CTRL) & 1, 1);
    h.w(DMA_CTRL, 0x0010_0000);
    h.ms(100);
    assert_eq!(h.status(), 1, "no boot");
    // A GuC reset abandons it.
    h.guc_reset();
    assert_eq!(h.r(DMA_CTRL) & 1, 0);
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
}

#[test]
fn fault_boot_stall() {
    let mut h = H::with_guc(|g| g.faults.boot_stall = true);
    h.load();
    h.ms(10_000);
    assert_eq!(ukernel(h.status()), 0x40, "GUCINT_DONE forever");
}

#[test]
fn fault_boot_error() {
    let mut h = H::with_guc(|g| g.faults.boot_error = true);
    h.load();
    h.ms(10);
    assert_eq!(ukernel(h.status()), 0x30);
    assert_eq!(h.r(scratch(13)), 0, "no EIP yet");
    h.ms(10);
    assert_eq!(ukernel(h.status()), 0x70, "EXCEPTION");
    assert_eq!(h.r(scratch(13)), EXCEPTION_EIP);
    h.ms(1000);
    assert_eq!(ukernel(h.status()), 0x70);
}

#[test]
fn fault_rsa_reject() {
    let file = image(0x400, 96, PRIVATE);
    let mut p = params();
    p.guc.fw = Some(Arc::new(FwFile::from_bytes(file.clone()).expect("file")));
    p.guc.faults.rsa_reject = true;
    let mut h = H::with(p, file);
    h.load();
    h.ms(100);
    let st = h.status();
    assert_eq!((st >> 30, bootrom(st), ukernel(st)), (1, 0x50, 0));
    assert!(h.kinds().is_empty(), "a good key: no violation");
}

/// `guc-reset-stuck-after-load`: resets before READY work; once READY, a
/// GDRST reset never completes and the GuC runs on, until a device reset.
#[test]
fn fault_reset_stuck_after_load() {
    let mut h = H::with_guc(|g| g.faults.reset_stuck_after_load = true);
    // load_ready's own reset (GuC in reset, not READY) completes.
    h.load_ready();
    for bits in [
        regs::guc::GRDOM_GUC.mask32(),
        regs::guc::GRDOM_FULL.mask32(),
    ] {
        h.w(GDRST, bits);
        h.ms(1000);
        assert_eq!(h.r(GDRST), bits, "the bit stays set");
        assert_eq!(h.status(), READY, "not reset");
    }
    // Still serving MMIO requests.
    let n = hwconfig::bytes(h.rf.guc().hwconfig()).len() as u32;
    assert_eq!(h.mmio(&get_hwconfig(0, 0)), mmio::success(n));
    let s = h.rec.summary(false);
    assert_eq!((s.guc_resets, s.guc_resets_stuck), (1, 2));
    assert!(s.guc_running_at_exit);
    assert_eq!(s.violations, 0, "a fault, not a driver error");
    let causes: Vec<_> = h
        .events("guc_reset_stuck")
        .iter()
        .map(|e| e["cause"].clone())
        .collect();
    assert_eq!(causes, ["grdom_guc", "grdom_full"]);
    // A device reset clears the bit and resets the GuC; the next boot is
    // stuck again once READY.
    let now = h.clock.now();
    h.rf.reset(now, &mut h.rec);
    awake(&mut h.rf, &mut h.rec, &h.clock, &[Domain::GT]);
    assert_eq!(h.r(GDRST), 0);
    assert_eq!(h.status(), 1);
    h.load_ready();
    h.w(GDRST, regs::guc::GRDOM_GUC.mask32());
    h.ms(10);
    assert_eq!(h.r(GDRST), 8);
    assert_eq!(h.status(), READY);
}

/// Without the fault a reset of a READY GuC completes.
#[test]
fn reset_of_a_ready_guc_completes_without_the_fault() {
    let mut h = H::new();
    h.load_ready();
    h.guc_reset();
    assert!(h.events("guc_reset_stuck").is_empty());
}

/// `guc-reset-stuck`: every GDRST reset hangs, the first one (GuC in
/// reset, never loaded) included; no violation; a device reset clears it.
#[test]
fn fault_reset_stuck() {
    let mut h = H::with_guc(|g| g.faults.reset_stuck = true);
    let grdom_guc = regs::guc::GRDOM_GUC.mask32();
    h.w(GDRST, grdom_guc);
    h.ms(1000);
    assert_eq!(h.r(GDRST), grdom_guc, "the bit stays set");
    assert_eq!(h.status(), 1, "still MIA_IN_RESET from power-on");
    // Written again (a reloaded driver): still stuck.
    h.w(GDRST, grdom_guc);
    h.ms(10);
    assert_eq!(h.r(GDRST), grdom_guc);
    let s = h.rec.summary(false);
    assert_eq!((s.guc_resets, s.guc_resets_stuck), (0, 2));
    assert!(!s.guc_running_at_exit);
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
    let now = h.clock.now();
    h.rf.reset(now, &mut h.rec);
    awake(&mut h.rf, &mut h.rec, &h.clock, &[Domain::GT]);
    assert_eq!(h.r(GDRST), 0, "a device reset clears the bit");
}

/// `guc-wopcm-no-latch`: WOPCM writes are dropped, the registers read 0
/// (LOCKED / VALID clear), and no violation is recorded.
#[test]
fn fault_wopcm_no_latch() {
    let mut h = H::with_guc(|g| g.faults.wopcm_no_latch = true);
    for _ in 0..2 {
        h.wopcm();
        assert_eq!([h.r(WOPCM_SIZE), h.r(WOPCM_OFFSET)], [0, 0]);
    }
    h.w(WOPCM_SIZE, 0x1000);
    assert_eq!(h.r(WOPCM_SIZE), 0);
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
}

// ---- MMIO messages -----------------------------------------------------

#[test]
fn mmio_is_ignored_until_ready() {
    let mut h = H::new();
    let req = get_hwconfig(0, 0);
    assert_eq!(h.mmio(&req), req[0], "no reply in reset");
    h.load();
    h.ms(10);
    assert_eq!(h.mmio(&req), req[0], "no reply while booting");
    h.ms(10);
    let n = (hwconfig::bytes(h.rf.guc().hwconfig()).len()) as u32;
    assert_eq!(h.mmio(&req), mmio::success(n));
    assert_eq!(h.rec.summary(false).h2g_requests, 1);
}

#[test]
fn get_hwconfig_size_copy_and_errors() {
    let mut h = H::new();
    h.load_ready();
    let table = hwconfig::bytes(h.rf.guc().hwconfig());
    let n = table.len() as u32;
    // Reply visible only after REPLY_DELAY.
    for (i, d) in get_hwconfig(0, 0).iter().enumerate() {
        h.w(flag(i), *d);
    }
    h.w(HOST_INT, 0);
    h.us(49);
    assert_eq!(h.r(flag(0)), abi::action::GET_HWCONFIG);
    h.us(1);
    assert_eq!(h.r(flag(0)), mmio::success(n));
    assert_eq!(h.r(flag(0)) >> 31, 1, "ORIGIN GuC");
    assert_eq!([h.r(flag(1)), h.r(flag(2)), h.r(flag(3))], [0, 0, 0]);
    // Too small.
    assert_eq!(
        h.mmio(&get_hwconfig(HWCONFIG_GGTT, n - 4)),
        mmio::failure(abi::error::INVALID_PARAMS)
    );
    // Into LMEM.
    h.bus.map_lmem(HWCONFIG_GGTT, 0x40_0000, &[0; 4096]);
    assert_eq!(h.mmio(&get_hwconfig(HWCONFIG_GGTT, 4096)), mmio::success(n));
    assert_eq!(h.bus.lmem[0x40_0000..0x40_0000 + table.len()], table[..]);
    // Into system memory (a fresh GGTT page).
    h.bus
        .map_sys(HWCONFIG_GGTT + 0x10_0000, 0x4200_0000, &[0; 4096]);
    assert_eq!(
        h.mmio(&get_hwconfig(HWCONFIG_GGTT + 0x10_0000, n)),
        mmio::success(n)
    );
    assert_eq!(h.bus.sys_bytes(0x4200_0000, table.len()), table);
    // To an unmapped address: a fault, FAILURE.
    assert_eq!(
        h.mmio(&get_hwconfig(0x0900_0000, n)),
        mmio::failure(abi::error::INVALID_PARAMS)
    );
    assert_eq!(h.kind("guc_dma_fault"), 1);
    let replies: Vec<_> = h
        .events("guc_g2h_reply")
        .iter()
        .map(|e| {
            (
                e["type"].as_str().unwrap_or("").to_owned(),
                e["data0"].clone(),
            )
        })
        .collect();
    assert_eq!(
        replies[0],
        ("success".to_owned(), Value::from(format!("{n:#x}")))
    );
    assert_eq!(replies[1], ("failure".to_owned(), Value::from("0x60")));
    let h2g = h.events("guc_h2g");
    assert_eq!(h2g[0]["action"], "0x4100");
    assert_eq!(h2g[0]["len"], 4);
}

#[test]
fn mmio_unknown_soft_reset_malformed_and_guc_origin() {
    let mut h = H::new();
    h.load_ready();
    assert_eq!(h.mmio(&[0x1234]), mmio::failure(abi::error::UNKNOWN_ACTION));
    assert_eq!(h.mmio(&[abi::action::CLIENT_SOFT_RESET]), mmio::success(0));
    // A FAST_REQUEST is no MMIO request.
    assert_eq!(
        h.mmio(&[2 << 28 | abi::action::GET_HWCONFIG]),
        mmio::failure(abi::error::INVALID_PARAMS)
    );
    assert_eq!(h.kind("guc_h2g_malformed"), 1);
    // The doorbell over a GuC-origin message (a CT notification) is ignored.
    let before = h.rec.summary(false).h2g_requests;
    h.w(HOST_INT, 0);
    h.ms(1);
    assert_eq!(h.rec.summary(false).h2g_requests, before);
    assert_eq!(h.r(flag(0)) >> 31, 1);
    assert_eq!(h.kinds().len(), 1);
    let lens: Vec<_> = h
        .events("guc_h2g")
        .iter()
        .map(|e| e["len"].clone())
        .collect();
    assert_eq!(lens, [1, 1, 1]);
}

#[test]
fn fault_mmio_busy() {
    let mut h = H::with_guc(|g| g.faults.mmio_busy = true);
    h.load_ready();
    let busy = h.mmio(&get_hwconfig(0, 0));
    assert_eq!((busy >> 28) & 7, abi::hxg::TYPE_NO_RESPONSE_BUSY);
    assert_eq!(busy >> 31, 1);
    // A doorbell meanwhile is ignored.
    h.w(HOST_INT, 0);
    h.clock
        .advance(BUSY_TIME - REPLY_DELAY - Duration::from_micros(1));
    assert_eq!(h.r(flag(0)), busy);
    h.us(1);
    let n = hwconfig::bytes(h.rf.guc().hwconfig()).len() as u32;
    assert_eq!(h.r(flag(0)), mmio::success(n));
    assert_eq!(h.rec.summary(false).h2g_requests, 1);
}

#[test]
fn fault_mmio_retry() {
    let mut h = H::with_guc(|g| g.faults.mmio_retry = true);
    h.load_ready();
    let retry = h.mmio(&get_hwconfig(0, 0));
    assert_eq!((retry >> 28) & 7, abi::hxg::TYPE_NO_RESPONSE_RETRY);
    let n = hwconfig::bytes(h.rf.guc().hwconfig()).len() as u32;
    assert_eq!(h.mmio(&get_hwconfig(0, 0)), mmio::success(n), "the resend");
    assert_eq!(h.mmio(&get_hwconfig(0, 0)), mmio::success(n));
    // Armed again by the next boot.
    h.load_ready();
    let again = h.mmio(&get_hwconfig(0, 0));
    assert_eq!((again >> 28) & 7, abi::hxg::TYPE_NO_RESPONSE_RETRY);
}

#[test]
fn fault_mmio_no_reply() {
    let mut h = H::with_guc(|g| g.faults.mmio_no_reply = true);
    h.load_ready();
    let req = get_hwconfig(0, 0);
    assert_eq!(h.mmio(&req), req[0]);
    h.ms(1000);
    assert_eq!(h.r(flag(0)), req[0]);
    assert_eq!(
        h.rec.summary(false).h2g_requests,
        1,
        "taken, never answered"
    );
}

#[test]
fn fault_hwconfig_corrupt() {
    let mut h = H::with_guc(|g| g.faults.hwconfig_corrupt = true);
    h.load_ready();
    let n = hwconfig::bytes(h.rf.guc().hwconfig()).len() as u32;
    h.bus.map_sys(HWCONFIG_GGTT, 0x4000_0000, &[0; 4096]);
    assert_eq!(h.mmio(&get_hwconfig(HWCONFIG_GGTT, n)), mmio::success(n));
    let bytes = h.bus.sys_bytes(0x4000_0000, n as usize);
    let dwords: Vec<u32> = bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let last = hwconfig::key("L3_BANK_SIZE_IN_KB").expect("a listed key");
    assert!(hwconfig::lookup(&dwords, last).is_err());
}

/// `guc-mmio-bogus-reply`: every request is taken and answered with a
/// GuC-origin EVENT header; nothing is served, no violation.
#[test]
fn fault_mmio_bogus_reply() {
    let mut h = H::with_guc(|g| g.faults.mmio_bogus_reply = true);
    h.load_ready();
    assert_eq!(mmio::BOGUS_REPLY, 0x9000_0001);
    h.bus.map_sys(HWCONFIG_GGTT, 0x4000_0000, &[0; 4096]);
    assert_eq!(h.mmio(&get_hwconfig(0, 0)), 0x9000_0001);
    // A new request (the registers rewritten) gets the same.
    assert_eq!(h.mmio(&get_hwconfig(HWCONFIG_GGTT, 4096)), 0x9000_0001);
    assert_eq!(h.bus.sys_bytes(0x4000_0000, 16), [0; 16], "not served");
    assert_eq!(h.rec.summary(false).h2g_requests, 2);
    let kinds: Vec<_> = h
        .events("guc_g2h_reply")
        .iter()
        .map(|e| e["type"].clone())
        .collect();
    assert_eq!(kinds, ["event", "event"]);
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
}

/// `--guc-hwconfig-size-reply`: the size query answers that DATA0; the copy
/// is served as before.
#[test]
fn hwconfig_size_reply_override() {
    let mut h = H::with_guc(|g| g.hwconfig_size_reply = Some(0x12345));
    h.load_ready();
    assert_eq!(h.mmio(&get_hwconfig(0, 0)), mmio::success(0x12345));
    let n = hwconfig::bytes(h.rf.guc().hwconfig()).len() as u32;
    h.bus.map_sys(HWCONFIG_GGTT, 0x4000_0000, &[0; 4096]);
    assert_eq!(h.mmio(&get_hwconfig(HWCONFIG_GGTT, n)), mmio::success(n));
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
}

// ---- the real firmware -------------------------------------------------

/// The DG2 blob the VM ships, if the bootstrap fetched it.
fn real_blob() -> Option<Vec<u8>> {
    let home = std::env::var_os("HOME")?;
    let cache = std::env::var_os("XEHPG_CACHE")
        .map_or_else(|| PathBuf::from(home).join(".cache/xehpg"), PathBuf::from);
    let env = std::fs::read_to_string(cache.join("env.mk")).ok()?;
    let dir = env.lines().find_map(|l| l.strip_prefix("GUC_FW_DIR := "))?;
    std::fs::read(PathBuf::from(dir.trim()).join("i915/dg2_guc_70.bin")).ok()
}

// Needs the bootstrap's firmware: a plain `cargo test` reports it ignored (a
// skip, not a pass); `make check` runs it with `--include-ignored`, where a
// missing file fails it.
#[test]
#[ignore = "needs i915/dg2_guc_70.bin from the bootstrap cache (GUC_FW_DIR in env.mk)"]
fn real_dg2_blob_parses_and_loads() {
    let blob = real_blob().expect("i915/dg2_guc_70.bin under GUC_FW_DIR of env.mk");
    let fw = FwFile::from_bytes(blob.clone()).expect("the real blob is a GuC image");
    let c = fw.css;
    assert_eq!(blob.len(), 381_760);
    assert_eq!(
        (
            c.header_size_dw,
            c.size_dw,
            c.key_size_dw,
            c.modulus_size_dw,
            c.exponent_size_dw
        ),
        (225, 0x17531, 96, 96, 1)
    );
    assert_eq!(c.ucode_bytes(), 381_248);
    assert_eq!(c.upload_bytes(), 128 + 381_248);
    assert_eq!(fw.key().len(), 384);
    assert_eq!(
        (c.release(), c.submission()),
        ("70.53.0".into(), "1.26.0".into())
    );
    // A full load of it, checked against itself.
    let mut p = params();
    p.guc.fw = Some(Arc::new(fw));
    let mut h = H::with(p, blob.clone());
    h.bus.map_sys(
        PRIVATE_GGTT,
        0x3100_0000,
        &vec![0; c.private_data_size as usize],
    );
    h.load_ready();
    let sha: String = Sha256::digest(&blob[..c.upload_bytes() as usize])
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(
        h.rec.summary(false).guc_last_sha256.as_deref(),
        Some(sha.as_str())
    );
}

#[test]
fn css_rules() {
    let img = image(0x10, 64, 0);
    let c = Css::parse(&img).expect("header");
    assert_eq!(c.check(), Ok(()));
    assert_eq!(c.upload_bytes(), 128 + 0x40);
    assert_eq!(c.key_bytes(), 256);
    assert!(Css::parse(&img[..100]).is_none());
    let bad = Css {
        size_dw: c.header_size_dw,
        ..c
    };
    assert!(bad.check().is_err());
    let bad = Css {
        header_size_dw: c.header_size_dw + 1,
        size_dw: c.size_dw + 1,
        ..c
    };
    assert!(bad.check().is_err());
    assert!(
        FwFile::from_bytes(img[..img.len() - 4].to_vec()).is_err(),
        "key cut short"
    );
    assert!(FwFile::load(std::path::Path::new("/nonexistent/guc.bin")).is_err());
}

mod ct;
