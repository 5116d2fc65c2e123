//! The CT registration (`ct.rs`): SELF_CFG, CONTROL_CTB, the enable checks,
//! resets and faults, driven through the MMIO registers like the driver.

use super::*;
use crate::regfile::guc::ct::Layout;

// ---- the buffers, as upstream xe_guc_ct.c lays them out ----------------

/// GGTT address of the H2G object (8 KiB: descriptor +0, ring +4 KiB).
const H2G_GGTT: u64 = 0x0400_0000;
/// LMEM behind it.
const H2G_LMEM: u64 = 0x10_0000;
/// GGTT address of the G2H object (132 KiB: descriptor +2 KiB, ring +4 KiB).
const G2H_GGTT: u64 = 0x0410_0000;
/// LMEM behind it.
const G2H_LMEM: u64 = 0x20_0000;
const H2G_SIZE: u64 = 4096;
const G2H_SIZE: u64 = 128 * 1024;

/// The layout upstream registers.
const LAYOUT: Layout = Layout {
    h2g_desc: H2G_GGTT,
    h2g: H2G_GGTT + 0x1000,
    h2g_size: H2G_SIZE,
    g2h_desc: G2H_GGTT + 0x800,
    g2h: G2H_GGTT + 0x1000,
    g2h_size: G2H_SIZE,
};

fn self_cfg(key: u32, len: u32, value: u64) -> [u32; 4] {
    [
        abi::action::HOST2GUC_SELF_CFG,
        key << 16 | len,
        value as u32,
        (value >> 32) as u32,
    ]
}

/// The six SELF_CFG requests of `l`, in upstream's order.
fn registration(l: &Layout) -> [[u32; 4]; 6] {
    use abi::klv::*;
    [
        self_cfg(SELF_CFG_H2G_CTB_DESCRIPTOR_ADDR, 2, l.h2g_desc),
        self_cfg(SELF_CFG_H2G_CTB_ADDR, 2, l.h2g),
        self_cfg(SELF_CFG_H2G_CTB_SIZE, 1, l.h2g_size),
        self_cfg(SELF_CFG_G2H_CTB_DESCRIPTOR_ADDR, 2, l.g2h_desc),
        self_cfg(SELF_CFG_G2H_CTB_ADDR, 2, l.g2h),
        self_cfg(SELF_CFG_G2H_CTB_SIZE, 1, l.g2h_size),
    ]
}

const ENABLE: [u32; 2] = [abi::action::HOST2GUC_CONTROL_CTB, 1];
const DISABLE: [u32; 2] = [abi::action::HOST2GUC_CONTROL_CTB, 0];

fn failure(code: u32) -> u32 {
    mmio::failure(code)
}

impl H {
    /// A READY GuC with both CT objects zeroed in LMEM and mapped.
    fn ct_ready() -> H {
        H::ct_ready_with(|_| {})
    }

    fn ct_ready_with(f: impl FnOnce(&mut GucParams)) -> H {
        let mut h = H::with_guc(f);
        h.load_ready();
        h.bus.map_lmem(H2G_GGTT, H2G_LMEM, &[0; 0x2000]);
        h.bus.map_lmem(G2H_GGTT, G2H_LMEM, &vec![0; 0x2_1000]);
        h
    }

    /// Sends the six KLVs of `l`; the replies.
    fn register(&mut self, l: &Layout) -> Vec<u32> {
        registration(l).iter().map(|m| self.mmio(m)).collect()
    }

    /// The violation details of `kind`, in order.
    fn details(&mut self, kind: &str) -> Vec<String> {
        self.events("violation")
            .iter()
            .filter(|e| e["kind"] == kind)
            .map(|e| e["detail"].as_str().unwrap_or("").to_owned())
            .collect()
    }

    fn ct_results(&mut self, ev: &str) -> Vec<String> {
        self.events(ev)
            .iter()
            .map(|e| e["result"].as_str().unwrap_or("").to_owned())
            .collect()
    }
}

#[test]
fn upstream_registration_enable_and_disable() {
    let mut h = H::ct_ready();
    assert_eq!(h.register(&LAYOUT), [mmio::success(1); 6]);
    assert_eq!(h.rf.guc().ct().enabled(), None, "registered, not enabled");
    assert_eq!(
        h.rf.guc()
            .ct()
            .value(abi::klv::SELF_CFG_G2H_CTB_DESCRIPTOR_ADDR),
        Some(G2H_GGTT + 0x800)
    );
    assert_eq!(h.mmio(&ENABLE), mmio::success(0));
    assert_eq!(h.rf.guc().ct().enabled(), Some(LAYOUT));
    let ct = h.rec.summary(false).ct;
    assert_eq!(
        (ct.registrations, ct.enables, ct.disables, ct.enabled),
        (6, 1, 0, true)
    );
    assert_eq!((ct.h2g_size, ct.g2h_size), (4096, 131_072));
    // Disable, then disable again: both SUCCESS, one transition.
    assert_eq!(h.mmio(&DISABLE), mmio::success(0));
    assert_eq!(h.rf.guc().ct().enabled(), None);
    assert_eq!(h.mmio(&DISABLE), mmio::success(0));
    let ct = h.rec.summary(false).ct;
    assert_eq!((ct.enables, ct.disables, ct.enabled), (1, 1, false));
    // The registration outlives the disable: enabling again needs no KLVs.
    assert_eq!(h.mmio(&ENABLE), mmio::success(0));
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
    // The trace: six KLVs taken, one with its value; the controls.
    let cfg = h.events("guc_ct_self_cfg");
    assert_eq!(cfg.len(), 6);
    assert_eq!(cfg[0]["key"], "0x903");
    assert_eq!(cfg[0]["len"], 2);
    assert_eq!(cfg[0]["value"], format!("{H2G_GGTT:#x}"));
    assert_eq!(cfg[5]["value"], "0x20000");
    assert_eq!(
        h.ct_results("guc_ct_control"),
        ["enabled", "disabled", "already_disabled", "enabled"]
    );
    let ctl = h.events("guc_ct_control");
    assert_eq!(
        ctl[0]["layout"]["g2h_desc"],
        format!("{:#x}", G2H_GGTT + 0x800)
    );
    assert_eq!(ctl[0]["layout"]["h2g_size"], 4096);
    assert!(ctl[1].get("layout").is_none());
    let actions: Vec<_> = h
        .events("guc_h2g")
        .iter()
        .map(|e| e["action"].clone())
        .collect();
    assert_eq!(actions[0], "0x508");
    assert_eq!(actions[6], "0x4509");
}

#[test]
fn self_cfg_unknown_key_wrong_length_and_mbz() {
    let mut h = H::ct_ready();
    // An unknown key (memory-based interrupts, not modelled): DATA0 0, no
    // violation, nothing recorded.
    assert_eq!(h.mmio(&self_cfg(0x0900, 2, 0x5000)), mmio::success(0));
    assert_eq!(h.mmio(&self_cfg(0x1234, 1, 7)), mmio::success(0));
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
    // A CT key with the wrong length: INVALID_KLV_DATA, not recorded.
    let size = abi::klv::SELF_CFG_H2G_CTB_SIZE;
    assert_eq!(
        h.mmio(&self_cfg(size, 2, 4096)),
        failure(abi::error::INVALID_KLV_DATA)
    );
    let desc = abi::klv::SELF_CFG_H2G_CTB_DESCRIPTOR_ADDR;
    assert_eq!(
        h.mmio(&self_cfg(desc, 1, H2G_GGTT)),
        failure(abi::error::INVALID_KLV_DATA)
    );
    assert_eq!(
        h.mmio(&self_cfg(desc, 0, 0)),
        failure(abi::error::INVALID_KLV_DATA)
    );
    assert_eq!(h.rf.guc().ct().value(size), None);
    assert_eq!(h.rf.guc().ct().value(desc), None);
    // DATA0 (MBZ) set.
    let mut m = self_cfg(size, 1, 4096);
    m[0] |= 1 << 16;
    assert_eq!(h.mmio(&m), failure(abi::error::INVALID_PARAMS));
    assert_eq!(h.kind("ct_self_cfg_bad"), 4);
    let d = h.details("ct_self_cfg_bad");
    assert!(
        d[0].contains("H2G_CTB_SIZE") && d[0].contains("length 2"),
        "{d:?}"
    );
    assert!(d[3].contains("DATA0"), "{d:?}");
    // A 32-bit KLV ignores dword 3.
    assert_eq!(
        h.mmio(&[m[0] & !(1 << 16), m[1], 4096, 0xDEAD]),
        mmio::success(1)
    );
    assert_eq!(h.rf.guc().ct().value(size), Some(4096));
    // A later value replaces the earlier one.
    assert_eq!(h.mmio(&self_cfg(size, 1, 8192)), mmio::success(1));
    assert_eq!(h.rf.guc().ct().value(size), Some(8192));
    assert_eq!(h.rec.summary(false).ct.registrations, 2);
    assert_eq!(
        h.ct_results("guc_ct_self_cfg"),
        ["unknown", "unknown", "rejected", "rejected", "rejected", "rejected", "taken", "taken"]
    );
}

#[test]
fn enable_needs_all_six_klvs() {
    let mut h = H::ct_ready();
    assert_eq!(h.mmio(&ENABLE), failure(abi::error::CTB_NOT_REGISTERED));
    for m in &registration(&LAYOUT)[..5] {
        assert_eq!(h.mmio(m), mmio::success(1));
    }
    assert_eq!(h.mmio(&ENABLE), failure(abi::error::CTB_NOT_REGISTERED));
    let d = h.details("ct_register_bad");
    assert!(d[0].contains("H2G_CTB_DESCRIPTOR_ADDR"), "{d:?}");
    assert!(
        d[1].contains("G2H_CTB_SIZE") && !d[1].contains("H2G_CTB_SIZE"),
        "{d:?}"
    );
    assert_eq!(h.rf.guc().ct().enabled(), None);
    let last = registration(&LAYOUT)[5];
    assert_eq!(h.mmio(&last), mmio::success(1));
    assert_eq!(h.mmio(&ENABLE), mmio::success(0));
    assert_eq!(h.kind("ct_register_bad"), 2);
    assert_eq!(
        h.ct_results("guc_ct_control"),
        ["rejected", "rejected", "enabled"]
    );
}

/// Spoils a good registration: its layout or the memory behind it.
type Spoil = Box<dyn Fn(&mut Layout, &mut H)>;

/// One enable check failing: how the layout or memory is spoiled, the code
/// and a piece of the violation's message.
struct Bad {
    name: &'static str,
    spoil: Spoil,
    code: u32,
    says: &'static str,
}

fn bad(
    name: &'static str,
    spoil: impl Fn(&mut Layout, &mut H) + 'static,
    code: u32,
    says: &'static str,
) -> Bad {
    Bad {
        name,
        spoil: Box::new(spoil),
        code,
        says,
    }
}

#[test]
fn enable_checks() {
    use abi::error::*;
    let put = |h: &mut H, lmem: u64, v: u32| {
        h.bus
            .write(Target::Lmem, lmem, &v.to_le_bytes())
            .expect("lmem");
    };
    let cases = [
        bad(
            "H2G size",
            |l, _| l.h2g_size = 0x1800,
            INVALID_PARAMS,
            "H2G ring size 0x1800",
        ),
        bad(
            "G2H size 0",
            |l, _| l.g2h_size = 0,
            INVALID_PARAMS,
            "G2H ring size 0x0",
        ),
        bad(
            "alignment",
            |l, _| l.h2g_desc += 2,
            INVALID_PARAMS,
            "dword aligned",
        ),
        bad(
            "descriptor in a ring",
            |l, _| l.g2h_desc = l.h2g + 0x100,
            INVALID_PARAMS,
            "overlaps G2H descriptor",
        ),
        bad(
            "rings overlap",
            |l, _| l.g2h = l.h2g + 0xF00,
            INVALID_PARAMS,
            "H2G ring 0x4001000..0x4002000 overlaps G2H ring",
        ),
        bad(
            "ring past the mapping",
            |l, _| l.h2g_size = 0x2000,
            INVALID_GGTT_ADDRESS,
            "CT H2G ring: GGTT address 0x4002000",
        ),
        bad(
            "unmapped descriptor page",
            |l, _| l.g2h_desc = 0x0500_0000,
            INVALID_GGTT_ADDRESS,
            "not present",
        ),
        bad(
            "below the WOPCM top",
            |l, _| l.g2h = 0x1000,
            INVALID_GGTT_ADDRESS,
            "below the WOPCM top",
        ),
        bad(
            "above GUC_GGTT_TOP",
            |l, _| l.g2h = 0xFEE0_0000,
            INVALID_GGTT_ADDRESS,
            "GUC_GGTT_TOP",
        ),
        bad(
            "64-bit address",
            |l, _| l.h2g = 1 << 32,
            INVALID_GGTT_ADDRESS,
            "GUC_GGTT_TOP",
        ),
        bad(
            "H2G head",
            move |_, h| put(h, H2G_LMEM, 5),
            CTB_INVALID_DESC,
            "H2G descriptor at GGTT 0x4000000: head 0x5",
        ),
        bad(
            "H2G tail",
            move |_, h| put(h, H2G_LMEM + 4, 1),
            CTB_INVALID_DESC,
            "tail 0x1",
        ),
        bad(
            "G2H status",
            move |_, h| put(h, G2H_LMEM + 0x808, 4),
            CTB_INVALID_DESC,
            "G2H descriptor at GGTT 0x4100800: head 0x0, tail 0x0, status 0x4",
        ),
        bad(
            "reserved",
            move |_, h| put(h, G2H_LMEM + 0x800 + 60, 1),
            CTB_INVALID_DESC,
            "reserved[12] = 0x1",
        ),
    ];
    for c in cases {
        let mut h = H::ct_ready();
        let mut l = LAYOUT;
        (c.spoil)(&mut l, &mut h);
        assert_eq!(h.register(&l), [mmio::success(1); 6], "{}", c.name);
        assert_eq!(h.mmio(&ENABLE), failure(c.code), "{}", c.name);
        assert_eq!(h.rf.guc().ct().enabled(), None, "{}", c.name);
        let d = h.details("ct_register_bad");
        assert_eq!(d.len(), 1, "{}: {:?}", c.name, h.kinds());
        assert!(d[0].contains(c.says), "{}: {}", c.name, d[0]);
        assert_eq!(h.kinds().len(), 1, "{}: {:?}", c.name, h.kinds());
    }
}

/// The GuC reaches the buffers through its TLB: a GGTT page it cached for
/// another buffer, remapped without `GUC_TLB_INV_CR`, is read stale.
#[test]
fn enable_reads_through_the_guc_tlb() {
    let mut h = H::ct_ready();
    // hwconfig lands in a page the H2G object later reuses.
    let n = hwconfig::bytes(h.rf.guc().hwconfig()).len() as u32;
    h.bus.map_sys(H2G_GGTT, 0x4000_0000, &[0; 4096]);
    assert_eq!(h.mmio(&get_hwconfig(H2G_GGTT, n)), mmio::success(n));
    h.bus.map_lmem(H2G_GGTT, H2G_LMEM, &[0; 0x2000]);
    h.register(&LAYOUT);
    assert_eq!(h.mmio(&ENABLE), failure(abi::error::CTB_INVALID_DESC));
    assert_eq!(h.kind("stale_ggtt_tlb"), 2, "probe and read");
    assert_eq!(
        h.kind("ct_register_bad"),
        1,
        "the stale page holds the table"
    );
    // Invalidated: the new mapping is used.
    h.w(TLB_INV, 1);
    assert_eq!(h.mmio(&ENABLE), mmio::success(0));
    assert_eq!(h.kind("stale_ggtt_tlb"), 2);
}

#[test]
fn enable_twice_self_cfg_while_enabled_and_bad_control() {
    let mut h = H::ct_ready();
    h.register(&LAYOUT);
    assert_eq!(h.mmio(&ENABLE), mmio::success(0));
    assert_eq!(h.mmio(&ENABLE), failure(abi::error::INVALID_STATE));
    assert_eq!(h.rf.guc().ct().enabled(), Some(LAYOUT), "still enabled");
    // Moving a buffer while enabled.
    assert_eq!(
        h.mmio(&registration(&LAYOUT)[1]),
        failure(abi::error::INVALID_STATE)
    );
    assert_eq!(h.kind("ct_self_cfg_bad"), 1);
    // Neither enable nor disable.
    assert_eq!(
        h.mmio(&[abi::action::HOST2GUC_CONTROL_CTB, 2]),
        failure(abi::error::INVALID_PARAMS)
    );
    // DATA0 (MBZ) set.
    assert_eq!(
        h.mmio(&[abi::action::HOST2GUC_CONTROL_CTB | 1 << 16, 0]),
        failure(abi::error::INVALID_PARAMS)
    );
    assert_eq!(h.rf.guc().ct().enabled(), Some(LAYOUT));
    assert_eq!(h.kind("ct_control_bad"), 3);
    let d = h.details("ct_control_bad");
    assert!(d[1].contains("0x2"), "{d:?}");
    let ct = h.rec.summary(false).ct;
    assert_eq!((ct.enables, ct.disables, ct.enabled), (1, 0, true));
}

#[test]
fn resets_drop_the_registration() {
    let mut h = H::ct_ready();
    h.register(&LAYOUT);
    assert_eq!(h.mmio(&ENABLE), mmio::success(0));
    // GDRST: the firmware forgets the buffers.
    h.guc_reset();
    assert_eq!(h.rf.guc().ct().enabled(), None);
    assert_eq!(h.rf.guc().ct().value(abi::klv::SELF_CFG_H2G_CTB_ADDR), None);
    assert!(!h.rec.summary(false).ct.enabled);
    h.load_ready();
    assert_eq!(h.mmio(&ENABLE), failure(abi::error::CTB_NOT_REGISTERED));
    h.register(&LAYOUT);
    assert_eq!(h.mmio(&ENABLE), mmio::success(0));
    // A device reset too.
    let now = h.clock.now();
    h.rf.reset(now, &mut h.rec);
    awake(&mut h.rf, &mut h.rec, &h.clock, &[Domain::GT]);
    assert_eq!(h.rf.guc().ct().enabled(), None);
    assert_eq!(h.rf.guc().ct().value(abi::klv::SELF_CFG_G2H_CTB_SIZE), None);
    // A stuck reset is no reset: the CT stays.
    let mut h = H::ct_ready_with(|g| g.faults.reset_stuck_after_load = true);
    h.register(&LAYOUT);
    assert_eq!(h.mmio(&ENABLE), mmio::success(0));
    h.w(GDRST, regs::guc::GRDOM_GUC.mask32());
    assert_eq!(h.rf.guc().ct().enabled(), Some(LAYOUT));
}

/// `ct-enable-refused`: ENABLE answers INVALID_PARAMS without a check or a
/// violation; the rest works.
#[test]
fn fault_ct_enable_refused() {
    let mut h = H::ct_ready_with(|g| g.faults.ct_enable_refused = true);
    assert_eq!(h.register(&LAYOUT), [mmio::success(1); 6]);
    assert_eq!(h.mmio(&ENABLE), failure(abi::error::INVALID_PARAMS));
    assert_eq!(h.rf.guc().ct().enabled(), None);
    assert_eq!(h.mmio(&DISABLE), mmio::success(0));
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
    assert_eq!(
        h.ct_results("guc_ct_control"),
        ["refused", "already_disabled"]
    );
    let ct = h.rec.summary(false).ct;
    assert_eq!((ct.registrations, ct.enables, ct.enabled), (6, 0, false));
}

/// `ct-self-cfg-unknown`: every KLV answers DATA0 0 and nothing is kept.
#[test]
fn fault_ct_self_cfg_unknown() {
    let mut h = H::ct_ready_with(|g| g.faults.ct_self_cfg_unknown = true);
    assert_eq!(h.register(&LAYOUT), [mmio::success(0); 6]);
    // Even a malformed one.
    assert_eq!(
        h.mmio(&self_cfg(abi::klv::SELF_CFG_H2G_CTB_SIZE, 2, 0)),
        mmio::success(0)
    );
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
    assert_eq!(h.rf.guc().ct().value(abi::klv::SELF_CFG_H2G_CTB_ADDR), None);
    assert_eq!(h.rec.summary(false).ct.registrations, 0);
    assert_eq!(h.mmio(&ENABLE), failure(abi::error::CTB_NOT_REGISTERED));
}

// ---- messages over the rings ---------------------------------------------

/// H2G ring in LMEM (dwords).
const H2G_RING_LMEM: u64 = H2G_LMEM + 0x1000;
const G2H_RING_LMEM: u64 = G2H_LMEM + 0x1000;
const G2H_DESC_LMEM: u64 = G2H_LMEM + 0x800;
/// HXG REQUEST / FAST_REQUEST headers of an action nothing serves.
const REQ: u32 = 0x1234;
const FAST: u32 = 2 << 28 | 0x1234;

impl H {
    /// A GuC with the CT enabled on `l`.
    fn ct_enabled_on(l: &Layout) -> H {
        let mut h = H::ct_ready();
        assert_eq!(h.register(l), [mmio::success(1); 6]);
        assert_eq!(h.mmio(&ENABLE), mmio::success(0));
        h
    }

    fn lmem32(&self, addr: u64) -> u32 {
        let a = addr as usize;
        u32::from_le_bytes(self.bus.lmem[a..a + 4].try_into().expect("4 bytes"))
    }

    fn put_lmem32(&mut self, addr: u64, v: u32) {
        self.bus
            .write(Target::Lmem, addr, &v.to_le_bytes())
            .expect("lmem");
    }

    /// Writes `dwords` into the H2G ring (`size` dwords) from `at`, modulo
    /// the ring.
    fn h2g_put(&mut self, at: u32, dwords: &[u32]) {
        for (i, &d) in (0u32..).zip(dwords) {
            self.put_lmem32(H2G_RING_LMEM + 4 * u64::from((at + i) % 1024), d);
        }
    }

    /// {head, tail, status} of the descriptor in LMEM at `desc`.
    fn desc(&self, desc: u64) -> [u32; 3] {
        [0, 4, 8].map(|o| self.lmem32(desc + o))
    }

    fn doorbell(&mut self) {
        self.w(HOST_INT, 0);
    }

    fn guc_irqs(&self) -> u64 {
        let s = self.rec.summary(false);
        s.irq.raised_by_source.get("guc").copied().unwrap_or(0)
    }
}

fn ctb(fence: u32, n: u32) -> u32 {
    fence << 16 | n
}

#[test]
fn requests_are_answered_in_g2h() {
    let mut h = H::ct_enabled_on(&LAYOUT);
    // A REQUEST: FAILURE UNKNOWN_ACTION with its fence.
    h.h2g_put(0, &[ctb(5, 2), REQ, 0xAB]);
    h.put_lmem32(H2G_LMEM + 4, 3);
    h.doorbell();
    assert_eq!(h.desc(H2G_LMEM), [3, 3, 0], "consumed");
    let unknown = mmio::failure(abi::error::UNKNOWN_ACTION);
    assert_eq!(
        [h.lmem32(G2H_RING_LMEM), h.lmem32(G2H_RING_LMEM + 4)],
        [ctb(5, 1), unknown]
    );
    assert_eq!(h.desc(G2H_DESC_LMEM), [0, 2, 0]);
    assert_eq!(h.guc_irqs(), 1);
    // A FAST_REQUEST's failure carries its (untracked) fence too.
    h.h2g_put(3, &[ctb(0x8001, 1), FAST]);
    h.put_lmem32(H2G_LMEM + 4, 5);
    h.doorbell();
    assert_eq!(h.lmem32(G2H_RING_LMEM + 8), ctb(0x8001, 1));
    assert_eq!(h.desc(G2H_DESC_LMEM), [0, 4, 0]);
    // A doorbell with nothing new: no message, no interrupt.
    h.doorbell();
    assert_eq!(h.guc_irqs(), 2);
    // Upstream's wrap: zeros to the end (each a NOP), the next message at 0.
    // Here a message that itself wraps is read modulo the ring too.
    h.put_lmem32(H2G_LMEM + 4, 1022);
    h.doorbell();
    assert_eq!(h.desc(H2G_LMEM)[0], 1022, "zero fill skipped");
    h.h2g_put(1022, &[ctb(7, 2), REQ, 0xCD]);
    h.put_lmem32(H2G_LMEM + 4, 1);
    h.doorbell();
    assert_eq!(h.desc(H2G_LMEM)[0], 1);
    assert_eq!(h.lmem32(G2H_RING_LMEM + 16), ctb(7, 1));
    let ct = h.rec.summary(false).ct;
    assert_eq!((ct.h2g_messages, ct.g2h_messages), (3, 3));
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
    let ev = h.events("guc_ct_h2g");
    assert_eq!(ev[0]["fence"], 5);
    assert_eq!(ev[0]["action"], "0x1234");
    assert_eq!(ev[0]["len"], 2);
    assert_eq!(ev[0]["reply"], "failure");
    // Disabled: the ring is not read.
    assert_eq!(h.mmio(&DISABLE), mmio::success(0));
    h.h2g_put(1, &[ctb(8, 1), REQ]);
    h.put_lmem32(H2G_LMEM + 4, 3);
    h.doorbell();
    assert_eq!(h.desc(H2G_LMEM)[0], 1);
    assert_eq!(h.rec.summary(false).ct.h2g_messages, 3);
}

#[test]
fn descriptor_checks_set_the_status() {
    // Tail past the ring: OVERFLOW; a broken descriptor is not read again.
    let mut h = H::ct_enabled_on(&LAYOUT);
    h.put_lmem32(H2G_LMEM + 4, 1024);
    h.doorbell();
    assert_eq!(h.desc(H2G_LMEM), [0, 1024, abi::ctb::STATUS_OVERFLOW]);
    h.h2g_put(0, &[ctb(1, 1), REQ]);
    h.put_lmem32(H2G_LMEM + 4, 2);
    h.doorbell();
    assert_eq!(h.desc(H2G_LMEM)[0], 0);
    assert_eq!(h.kind("ct_h2g_bad"), 1);
    // The host wrote the receiver's head: MISMATCH.
    let mut h = H::ct_enabled_on(&LAYOUT);
    h.h2g_put(0, &[ctb(1, 1), REQ]);
    h.put_lmem32(H2G_LMEM + 4, 2);
    h.put_lmem32(H2G_LMEM, 1);
    h.doorbell();
    assert_eq!(h.desc(H2G_LMEM), [1, 2, abi::ctb::STATUS_MISMATCH]);
    assert_eq!(h.rec.summary(false).ct.h2g_messages, 0);
    // A message longer than what is left before the tail: UNDERFLOW, after
    // the whole messages before it.
    let mut h = H::ct_enabled_on(&LAYOUT);
    h.h2g_put(0, &[ctb(1, 1), REQ, ctb(2, 5), REQ]);
    h.put_lmem32(H2G_LMEM + 4, 4);
    h.doorbell();
    assert_eq!(h.desc(H2G_LMEM), [2, 4, abi::ctb::STATUS_UNDERFLOW]);
    assert_eq!(h.rec.summary(false).ct.h2g_messages, 1);
    let d = h.details("ct_h2g_bad");
    assert!(d[0].contains("claims 5 dwords, 1 remain"), "{d:?}");
    // The host wrote the sender's G2H tail: MISMATCH there, the reply is
    // dropped, the request consumed.
    let mut h = H::ct_enabled_on(&LAYOUT);
    h.put_lmem32(G2H_DESC_LMEM + 4, 9);
    h.h2g_put(0, &[ctb(1, 1), REQ]);
    h.put_lmem32(H2G_LMEM + 4, 2);
    h.doorbell();
    assert_eq!(h.desc(H2G_LMEM), [2, 2, 0]);
    assert_eq!(h.desc(G2H_DESC_LMEM), [0, 9, abi::ctb::STATUS_MISMATCH]);
    assert_eq!((h.rec.summary(false).ct.g2h_messages, h.guc_irqs()), (0, 0));
    // Not a host request (GuC origin, an EVENT, another format): skipped.
    let mut h = H::ct_enabled_on(&LAYOUT);
    h.h2g_put(0, &[ctb(1, 1), 1 << 31 | REQ, ctb(2, 1), 1 << 28 | REQ]);
    h.h2g_put(4, &[ctb(3, 1) | 1 << 12, REQ]);
    h.put_lmem32(H2G_LMEM + 4, 6);
    h.doorbell();
    assert_eq!(h.desc(H2G_LMEM), [6, 6, 0]);
    assert_eq!(h.kind("ct_h2g_bad"), 3);
    assert_eq!(h.desc(G2H_DESC_LMEM), [0, 0, 0], "no reply");
}

/// A full G2H ring holds the requests back until the host reads G2H.
#[test]
fn full_g2h_holds_requests_back() {
    let small = Layout {
        g2h_size: 4096,
        ..LAYOUT
    };
    let mut h = H::ct_enabled_on(&small);
    let mut tail = 0;
    let mut send = |h: &mut H, n: u32| {
        for i in 0..n {
            h.h2g_put(tail, &[ctb(i, 1), REQ]);
            tail = (tail + 2) % 1024;
        }
        h.put_lmem32(H2G_LMEM + 4, tail);
        h.doorbell();
    };
    send(&mut h, 300);
    assert_eq!(h.desc(G2H_DESC_LMEM)[1], 600);
    // 211 more fit (1023 dwords of room, 2 each); 89 wait.
    send(&mut h, 300);
    assert_eq!(h.desc(G2H_DESC_LMEM)[1], 1022);
    assert_eq!(h.desc(H2G_LMEM)[0], 1022);
    assert_eq!(h.rec.summary(false).ct.h2g_messages, 511);
    // Nothing moves until the host reads G2H.
    h.doorbell();
    assert_eq!(h.desc(H2G_LMEM)[0], 1022);
    h.put_lmem32(G2H_DESC_LMEM, 1022);
    h.doorbell();
    assert_eq!(h.desc(H2G_LMEM)[0], 176);
    assert_eq!(h.desc(G2H_DESC_LMEM)[1], 176, "wrapped");
    let ct = h.rec.summary(false).ct;
    assert_eq!((ct.h2g_messages, ct.g2h_messages), (600, 600));
    assert_eq!(h.guc_irqs(), 3);
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
}

// ---- actions served over CT, and the test control -----------------------

use crate::control::Request as Control;

/// GGTT address of a page holding opt-in KLVs, and its LMEM.
const OPT_IN_GGTT: u64 = 0x0420_0000;
const OPT_IN_LMEM: u64 = 0x30_0000;
const POLICY: u32 = abi::action::UPDATE_SCHEDULING_POLICIES_KLV;
const OPT_IN: u32 = abi::action::OPT_IN_FEATURE_KLV;
/// RENDER_COMPUTE_YIELD's KLV header (key 0x1001, len 2).
const YIELD: u32 = 0x1001_0002;
/// EXT_CAT_ERR_TYPE's KLV header (key 0x4001, len 0).
const EXT_CAT: u32 = 0x4001_0000;
/// HXG headers of the GuC's one-dword answers (`guc_messages_abi.h`).
const BUSY: u32 = 0xB000_0000;
const RETRY: u32 = 0xD000_0000;
/// The flush-log EVENT the flood writes.
const FLUSH_EVENT: u32 = 0x9000_8003;
/// The G2H descriptor's dwords in LMEM.
const G2H_HEAD: u64 = G2H_DESC_LMEM;
const G2H_STATUS: u64 = G2H_DESC_LMEM + 8;
const H2G_STATUS: u64 = H2G_LMEM + 8;

impl H {
    /// Writes each (fence, HXG message) at the H2G descriptor's tail, moves
    /// the tail and rings the doorbell.
    fn send(&mut self, msgs: &[(u32, &[u32])]) {
        let mut tail = self.desc(H2G_LMEM)[1];
        for (fence, hxg) in msgs {
            let mut m = vec![ctb(*fence, hxg.len() as u32)];
            m.extend_from_slice(hxg);
            self.h2g_put(tail, &m);
            tail = (tail + m.len() as u32) % 1024;
        }
        self.put_lmem32(H2G_LMEM + 4, tail);
        self.doorbell();
    }

    /// `n` dwords of the G2H ring from dword `at`.
    fn g2h(&self, at: u32, n: u32) -> Vec<u32> {
        (at..at + n)
            .map(|i| self.lmem32(G2H_RING_LMEM + 4 * u64::from(i)))
            .collect()
    }

    fn control(&mut self, text: &str) {
        let Ok(Control::Ct(r)) = Control::parse(text) else {
            panic!("{text} is no CT request");
        };
        self.rf.ct_inject(r, &mut self.rec, &mut self.bus);
    }

    fn service(&mut self) {
        self.rf.service_guc(&mut self.rec, &mut self.bus);
    }

    fn ct_summary(&self) -> crate::summary::CtSummary {
        self.rec.summary(false).ct
    }
}

#[test]
fn scheduling_policies_apply_render_compute_yield() {
    let mut h = H::ct_enabled_on(&LAYOUT);
    // Upstream's message (xe_guc_submit.c): 80 ms, 20 %.
    h.send(&[(1, &[POLICY, YIELD, 80, 20])]);
    assert_eq!(h.g2h(0, 2), [ctb(1, 1), mmio::success(1)]);
    assert_eq!(h.rf.guc().ct().yield_policy(), Some((80, 20)));
    let ct = h.ct_summary();
    assert_eq!((ct.policy_yield_ms, ct.policy_yield_ratio), (80, 20));
    assert_eq!((ct.requests, ct.replies_success), (1, 1));
    // An unknown key is skipped and not counted; the last yield wins.
    h.send(&[(2, &[POLICY, 0x1234_0001, 5, YIELD, 100, 100])]);
    assert_eq!(h.g2h(2, 2), [ctb(2, 1), mmio::success(1)]);
    assert_eq!(h.rf.guc().ct().yield_policy(), Some((100, 100)));
    let skipped = h.events("guc_ct_klv_skipped");
    assert_eq!(skipped.len(), 1);
    assert_eq!(skipped[0]["key"], "0x1234");
    // None at all: SUCCESS 0.
    h.send(&[(3, &[POLICY])]);
    assert_eq!(h.g2h(4, 2), [ctb(3, 1), mmio::success(0)]);
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
    // A ratio above 100, a wrong length, a KLV past the message: FAILURE,
    // nothing applied, even the good KLV before the bad one.
    h.send(&[
        (4, &[POLICY, YIELD, 50, 101]),
        (5, &[POLICY, YIELD, 50, 10, 0x1001_0001, 7]),
        (6, &[POLICY, YIELD, 50]),
    ]);
    assert_eq!(
        h.g2h(6, 6),
        [
            ctb(4, 1),
            failure(abi::error::INVALID_KLV_DATA),
            ctb(5, 1),
            failure(abi::error::INVALID_KLV_DATA),
            ctb(6, 1),
            failure(abi::error::MALFORMED_KLV),
        ]
    );
    assert_eq!(h.rf.guc().ct().yield_policy(), Some((100, 100)));
    assert_eq!(h.kind("ct_request_bad"), 3);
    let d = h.details("ct_request_bad");
    assert!(d[0].contains("101% is above 100"), "{d:?}");
    assert!(d[2].contains("claims 2 value dwords, 1 remain"), "{d:?}");
    let ct = h.ct_summary();
    assert_eq!((ct.policy_yield_ms, ct.policy_yield_ratio), (100, 100));
    assert_eq!((ct.replies_success, ct.replies_failure), (3, 3));
    // A FAST_REQUEST: no reply on success, its fence on failure.
    h.send(&[
        (0x8001, &[2 << 28 | POLICY, YIELD, 10, 10]),
        (0x8002, &[2 << 28 | POLICY, YIELD, 10, 200]),
    ]);
    assert_eq!(h.rf.guc().ct().yield_policy(), Some((10, 10)));
    assert_eq!(
        h.g2h(12, 2),
        [ctb(0x8002, 1), failure(abi::error::INVALID_KLV_DATA)]
    );
    assert_eq!(h.desc(G2H_DESC_LMEM)[1], 14);
    let ct = h.ct_summary();
    assert_eq!((ct.requests, ct.fast_requests), (6, 2));
    let ev = h.events("guc_ct_policy");
    assert_eq!(ev[0]["yield_ms"], 80);
    assert_eq!(ev[0]["applied"], 1);
    assert_eq!(ev[3]["result"], "rejected");
}

#[test]
fn opt_in_reads_its_klvs_through_the_ggtt() {
    let mut h = H::ct_enabled_on(&LAYOUT);
    let klvs = |h: &mut H, dw: &[u32]| {
        let bytes: Vec<u8> = dw.iter().flat_map(|d| d.to_le_bytes()).collect();
        h.bus.map_lmem(OPT_IN_GGTT, OPT_IN_LMEM, &bytes);
    };
    let lo = OPT_IN_GGTT as u32;
    // Upstream's message (xe_guc.c): one EXT_CAT_ERR_TYPE.
    klvs(&mut h, &[EXT_CAT]);
    h.send(&[(1, &[OPT_IN, lo, 0, 1])]);
    assert_eq!(h.g2h(0, 2), [ctb(1, 1), mmio::success(1)]);
    assert!(h.rf.guc().ct().opted_in().contains(&0x4001));
    assert_eq!(h.ct_summary().opt_in_keys, 1);
    // Unknown keys skipped; the same feature again is still one feature.
    klvs(&mut h, &[0x4003_0000, EXT_CAT, 0x9999_0001, 7]);
    h.send(&[(2, &[OPT_IN, lo, 0, 4])]);
    assert_eq!(h.g2h(2, 2), [ctb(2, 1), mmio::success(1)]);
    assert_eq!(h.events("guc_ct_klv_skipped").len(), 2);
    assert_eq!(h.ct_summary().opt_in_keys, 1);
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
    // Unmapped, past the mapping, 64-bit: INVALID_GGTT_ADDRESS.
    h.send(&[
        (3, &[OPT_IN, 0x0500_0000, 0, 1]),
        (4, &[OPT_IN, lo + 0xFFC, 0, 2]),
        (5, &[OPT_IN, lo, 1, 1]),
    ]);
    let bad = failure(abi::error::INVALID_GGTT_ADDRESS);
    assert_eq!(
        h.g2h(4, 6),
        [ctb(3, 1), bad, ctb(4, 1), bad, ctb(5, 1), bad]
    );
    // A truncated KLV, a flag with a value, a short message.
    klvs(&mut h, &[EXT_CAT, 0x4001_0001, 0]);
    h.send(&[
        (6, &[OPT_IN, lo, 0, 1 + 1]),
        (7, &[OPT_IN, lo, 0, 3]),
        (8, &[OPT_IN, lo, 0]),
    ]);
    assert_eq!(
        h.g2h(10, 6),
        [
            ctb(6, 1),
            failure(abi::error::MALFORMED_KLV),
            ctb(7, 1),
            failure(abi::error::INVALID_KLV_DATA),
            ctb(8, 1),
            failure(abi::error::INVALID_PARAMS),
        ]
    );
    assert_eq!(h.kind("ct_request_bad"), 6);
    // The GuC forgets its features at a reset.
    h.guc_reset();
    assert!(h.rf.guc().ct().opted_in().is_empty());
    assert_eq!(h.ct_summary().opt_in_keys, 0);
}

#[test]
fn unknown_actions_still_fail() {
    let mut h = H::ct_enabled_on(&LAYOUT);
    // 0x1000 is SCHED_CONTEXT now (ct/submit.rs); 0x1003 is served by no
    // model.
    h.send(&[(9, &[0x4100]), (10, &[2 << 28 | 0x1003, 1])]);
    let unknown = failure(abi::error::UNKNOWN_ACTION);
    assert_eq!(h.g2h(0, 4), [ctb(9, 1), unknown, ctb(10, 1), unknown]);
    // Recorded by code, so a test can list what the mock left unmodelled.
    let by_code = h.ct_summary().unknown_actions;
    assert_eq!(
        by_code.into_iter().collect::<Vec<_>>(),
        [("0x1003".to_string(), 1), ("0x4100".to_string(), 1)]
    );
    assert_eq!(h.events("guc_ct_unknown_action").len(), 2);
}

/// Upstream's GuC TLB invalidation (xe_guc_tlb_inval.c): the GuC's GGTT
/// TLB emptied, DONE {seqno} back unless the seqno says none is wanted;
/// a bad type or a short message refused.
#[test]
fn tlb_invalidation_answers_done() {
    let mut h = H::ct_enabled_on(&LAYOUT);
    let fast = 2 << 28 | 0x7000;
    h.send(&[
        (0x8001, &[fast, 5, 3 | 1 << 31]),
        (0x8002, &[fast, 0x10_0000, 0]),
        (0x8003, &[fast, 6, 9]),
        (0x8004, &[fast, 7]),
    ]);
    assert_eq!(
        h.g2h(0, 6),
        [
            ctb(0x8003, 1),
            failure(abi::error::INVALID_PARAMS),
            ctb(0x8004, 1),
            failure(abi::error::INVALID_SIZE),
            ctb(0, 2),
            0x9000_7001,
        ]
    );
    assert_eq!(h.g2h(6, 1), [5], "DONE carries the seqno");
    assert_eq!(
        h.events("ggtt_tlb_invalidate").len(),
        1,
        "only type 3 is the GuC's"
    );
    assert_eq!(h.kind("guc_tlb_bad"), 2);
    assert!(h.ct_summary().unknown_actions.is_empty());
}

/// SLPC's shared page in LMEM and the GGTT (the opt-in KLVs' mapping).
const SLPC_GGTT: u64 = OPT_IN_GGTT;
/// `HOST2GUC_PC_SLPC_REQUEST` as a FAST_REQUEST, as upstream sends it.
const SLPC: u32 = 2 << 28 | 0x3003;

fn slpc_event(id: u32, argc: u32) -> u32 {
    id << 8 | argc
}

/// Upstream's `xe_guc_pc_start`: the page zeroed with its size, RESET, the
/// state polled for RUNNING; then overrides set and unset, the task state
/// queried, GuC RC set up. Bad requests are refused and recorded.
#[test]
fn slpc_runs_on_the_shared_page() {
    let mut h = H::ct_enabled_on(&LAYOUT);
    let mut page = vec![0u8; 8192];
    page[..4].copy_from_slice(&8192u32.to_le_bytes());
    h.bus.map_lmem(SLPC_GGTT, OPT_IN_LMEM, &page);
    let lo = SLPC_GGTT as u32;
    let state = |h: &H| h.lmem32(OPT_IN_LMEM + 4);
    // Before a reset nothing runs: a parameter is refused.
    h.send(&[(0x8001, &[SLPC, slpc_event(6, 2), 26, 1])]);
    assert_eq!(
        h.g2h(0, 2),
        [ctb(0x8001, 1), failure(abi::error::INVALID_STATE)]
    );
    h.send(&[(0x8002, &[SLPC, slpc_event(0, 2), lo, 0])]);
    assert_eq!(state(&h), 3, "RUNNING");
    // STRATEGIES (26) = 1, then IGNORE_EFFICIENT_FREQUENCY (28) set and unset.
    h.send(&[
        (0x8003, &[SLPC, slpc_event(6, 2), 26, 1]),
        (0x8004, &[SLPC, slpc_event(6, 2), 28, 1]),
        (0x8005, &[SLPC, slpc_event(7, 1), 28]),
        (7, &[0x3003, slpc_event(5, 2), lo, 0]),
        (0x8006, &[2 << 28 | 0x3004, 1]),
    ]);
    assert_eq!(h.g2h(2, 2), [ctb(7, 1), mmio::success(0)]);
    assert_eq!(h.lmem32(OPT_IN_LMEM + 192), 1 << 26, "bit 28 unset again");
    assert_eq!(h.lmem32(OPT_IN_LMEM + 224 + 4 * 26), 1);
    assert_eq!(h.rf.guc().ct().slpc().gucrc, Some(1));
    assert_eq!(
        h.kind("guc_slpc_bad"),
        1,
        "only the parameter before the reset"
    );
    assert_eq!(h.ct_summary().slpc_requests, 6);
    // argc not what follows, an id past 255, a page too small, another
    // page queried, an unknown event, a GuC RC mode of 2.
    page[..4].copy_from_slice(&64u32.to_le_bytes());
    h.bus
        .map_lmem(SLPC_GGTT + 0x2000, OPT_IN_LMEM + 0x2000, &page);
    h.send(&[
        (0x8010, &[SLPC, slpc_event(6, 3), 26, 1]),
        (0x8011, &[SLPC, slpc_event(6, 2), 256, 1]),
        (0x8012, &[SLPC, slpc_event(0, 2), lo + 0x2000, 0]),
        (0x8013, &[SLPC, slpc_event(5, 2), lo + 0x2000, 0]),
        (0x8014, &[SLPC, slpc_event(9, 0)]),
        (0x8015, &[2 << 28 | 0x3004, 2]),
    ]);
    assert_eq!(
        h.g2h(4, 12),
        [
            ctb(0x8010, 1),
            failure(abi::error::INVALID_SIZE),
            ctb(0x8011, 1),
            failure(abi::error::INVALID_PARAMS),
            ctb(0x8012, 1),
            failure(abi::error::INVALID_PARAMS),
            ctb(0x8013, 1),
            failure(abi::error::INVALID_STATE),
            ctb(0x8014, 1),
            failure(abi::error::NOT_SUPPORTED),
            ctb(0x8015, 1),
            failure(abi::error::INVALID_PARAMS),
        ]
    );
    assert_eq!(h.kind("guc_slpc_bad"), 7, "the first refusal counted too");
    assert_eq!(state(&h), 3, "still running on the first page");
    // The engine activity buffers: reachable ones are taken (xe's
    // enable_engine_activity_stats), an unreachable one or a short message
    // refused.
    h.send(&[
        (20, &[0x550C, lo, 0, lo + 0x1000, 0]),
        (21, &[0x550C, lo, 0, 0x0500_0000, 0]),
        (22, &[0x550C, lo, 0]),
    ]);
    assert_eq!(
        h.g2h(16, 6),
        [
            ctb(20, 1),
            mmio::success(0),
            ctb(21, 1),
            failure(abi::error::INVALID_GGTT_ADDRESS),
            ctb(22, 1),
            failure(abi::error::INVALID_SIZE),
        ]
    );
    // A page the GuC cannot reach; after SHUTDOWN nothing runs.
    h.send(&[
        (0x8020, &[SLPC, slpc_event(0, 2), 0x0500_0000, 0]),
        (0x8021, &[SLPC, slpc_event(1, 0)]),
        (0x8022, &[SLPC, slpc_event(6, 2), 26, 2]),
    ]);
    assert_eq!(
        h.g2h(22, 4),
        [
            ctb(0x8020, 1),
            failure(abi::error::INVALID_GGTT_ADDRESS),
            ctb(0x8022, 1),
            failure(abi::error::INVALID_STATE),
        ]
    );
    assert_eq!(h.rf.guc().ct().slpc().shared, None);
    h.send(&[(0x8023, &[SLPC, slpc_event(0, 2), lo, 0])]);
    assert_eq!(h.rf.guc().ct().slpc().shared, Some(SLPC_GGTT));
    // A GuC reset forgets SLPC.
    h.guc_reset();
    assert_eq!(h.rf.guc().ct().slpc(), Default::default());
}

#[test]
fn switch_no_response() {
    let mut h = H::ct_enabled_on(&LAYOUT);
    h.control("ct:no-response:2");
    assert_eq!(h.ct_summary().faults_armed_left, 2);
    h.send(&[
        (1, &[POLICY, YIELD, 80, 20]),
        (0x8002, &[2 << 28 | 0x1234]),
        (3, &[POLICY, YIELD, 80, 20]),
    ]);
    // The first two are consumed, not served, not answered.
    assert_eq!(h.desc(H2G_LMEM)[0], h.desc(H2G_LMEM)[1]);
    assert_eq!(h.g2h(0, 2), [ctb(3, 1), mmio::success(1)]);
    assert_eq!(h.desc(G2H_DESC_LMEM)[1], 2);
    let ct = h.ct_summary();
    assert_eq!((ct.unanswered, ct.faults_armed_left), (2, 0));
    let f = h.events("guc_ct_fault");
    assert_eq!(f.len(), 2);
    assert_eq!(f[1]["fence"], 0x8002);
    assert_eq!(f[1]["fault"], "no-response");
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
}

#[test]
fn switch_busy_serves_later_with_the_same_fence() {
    let mut h = H::ct_enabled_on(&LAYOUT);
    h.control("ct:busy:1:50");
    // A FAST_REQUEST is not what BUSY is for: served at once.
    h.send(&[(0x8001, &[2 << 28 | POLICY, YIELD, 1, 1])]);
    assert_eq!(h.ct_summary().faults_armed_left, 1);
    h.send(&[(7, &[POLICY, YIELD, 80, 20])]);
    assert_eq!(h.g2h(0, 2), [ctb(7, 1), BUSY]);
    assert_eq!(
        h.rf.guc().ct().yield_policy(),
        Some((1, 1)),
        "not served yet"
    );
    assert_eq!(h.guc_irqs(), 1);
    h.ms(49);
    h.service();
    assert_eq!(h.desc(G2H_DESC_LMEM)[1], 2, "not yet");
    h.ms(1);
    h.service();
    assert_eq!(h.g2h(2, 2), [ctb(7, 1), mmio::success(1)]);
    assert_eq!(h.rf.guc().ct().yield_policy(), Some((80, 20)));
    assert_eq!(h.guc_irqs(), 2);
    let ct = h.ct_summary();
    assert_eq!((ct.replies_busy, ct.replies_success), (1, 1));
    assert_eq!(h.events("guc_ct_busy_served")[0]["reply"], "success");
    // Once only.
    h.ms(100);
    h.service();
    assert_eq!(h.desc(G2H_DESC_LMEM)[1], 4);
    // An unknown action served late fails late.
    h.control("ct:busy:1:5");
    h.send(&[(8, &[0x1234])]);
    h.ms(5);
    assert_eq!(h.g2h(4, 2), [ctb(8, 1), BUSY]);
    h.service();
    assert_eq!(
        h.g2h(6, 2),
        [ctb(8, 1), failure(abi::error::UNKNOWN_ACTION)]
    );
    // A reset drops a pending BUSY request.
    h.control("ct:busy:1:5");
    h.send(&[(9, &[0x1234])]);
    h.guc_reset();
    h.ms(10);
    h.service();
    assert_eq!(h.ct_summary().replies_busy, 3);
    assert_eq!(h.ct_summary().replies_failure, 1);
}

#[test]
fn switch_retry_and_failure() {
    let mut h = H::ct_enabled_on(&LAYOUT);
    h.control("ct:retry:1");
    h.control("ct:failure:1234:2");
    assert_eq!(h.ct_summary().faults_armed_left, 3);
    // FAILURE first (module docs' order), any kind; then RETRY, REQUESTs
    // only; none of them served.
    h.send(&[
        (1, &[POLICY, YIELD, 80, 20]),
        (0x8002, &[2 << 28 | POLICY, YIELD, 80, 20]),
        (0x8003, &[2 << 28 | POLICY, YIELD, 1, 1]),
        (4, &[POLICY, YIELD, 2, 2]),
        (5, &[POLICY, YIELD, 3, 3]),
    ]);
    let code = failure(0x1234);
    assert_eq!(
        h.g2h(0, 8),
        [
            ctb(1, 1),
            code,
            ctb(0x8002, 1),
            code,
            ctb(4, 1),
            RETRY,
            ctb(5, 1),
            mmio::success(1)
        ]
    );
    // The FAST_REQUEST after the failures was served (no reply).
    assert_eq!(h.rf.guc().ct().yield_policy(), Some((3, 3)));
    let ct = h.ct_summary();
    assert_eq!(
        (ct.replies_failure, ct.replies_retry, ct.faults_armed_left),
        (2, 1, 0)
    );
    let faults: Vec<_> = h
        .events("guc_ct_fault")
        .iter()
        .map(|e| e["fault"].as_str().unwrap_or("").to_owned())
        .collect();
    assert_eq!(faults, ["failure", "failure", "retry"]);
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
}

#[test]
fn switches_outlive_resets() {
    let mut h = H::ct_enabled_on(&LAYOUT);
    h.control("ct:failure:30:1");
    h.guc_reset();
    h.load_ready();
    h.bus.map_lmem(H2G_GGTT, H2G_LMEM, &[0; 0x2000]);
    h.bus.map_lmem(G2H_GGTT, G2H_LMEM, &vec![0; 0x2_1000]);
    assert_eq!(h.register(&LAYOUT), [mmio::success(1); 6]);
    assert_eq!(h.mmio(&ENABLE), mmio::success(0));
    h.send(&[(1, &[POLICY, YIELD, 80, 20])]);
    assert_eq!(h.g2h(0, 2), [ctb(1, 1), failure(0x30)]);
}

#[test]
fn fault_ct_no_response() {
    let mut h = H::ct_ready_with(|g| g.faults.ct_no_response = true);
    assert_eq!(h.register(&LAYOUT), [mmio::success(1); 6]);
    assert_eq!(h.mmio(&ENABLE), mmio::success(0));
    h.send(&[(1, &[POLICY, YIELD, 80, 20]), (0x8002, &[2 << 28 | 0x1234])]);
    assert_eq!(h.desc(H2G_LMEM), [7, 7, 0], "consumed");
    assert_eq!(h.desc(G2H_DESC_LMEM), [0, 0, 0], "never answered");
    assert_eq!(h.rf.guc().ct().yield_policy(), None, "not served");
    let ct = h.ct_summary();
    assert_eq!((ct.unanswered, ct.requests, ct.fast_requests), (2, 1, 1));
    assert_eq!(h.guc_irqs(), 0);
    assert!(h.events("guc_ct_fault").is_empty());
}

#[test]
fn stray_fence() {
    let mut h = H::ct_enabled_on(&LAYOUT);
    h.send(&[(0x7FF0, &[0x1234])]);
    h.control("ct:stray-fence");
    // 0x7FF0 + 0x100 with bit 15 clear.
    assert_eq!(h.g2h(2, 2), [ctb(0xF0, 1), mmio::success(0)]);
    assert_eq!(h.guc_irqs(), 2);
    assert_eq!(h.ct_summary().replies_success, 1);
}

#[test]
fn ct_disable_drops_the_channel() {
    let mut h = H::ct_enabled_on(&LAYOUT);
    h.control("ct:disable");
    let disabled = abi::ctb::STATUS_DISABLED;
    assert_eq!(
        (h.lmem32(H2G_STATUS), h.lmem32(G2H_STATUS)),
        (disabled, disabled)
    );
    assert_eq!(h.rf.guc().ct().enabled(), None);
    assert_eq!(h.guc_irqs(), 1);
    assert!(!h.ct_summary().enabled);
    // Doorbells are ignored, as for an unregistered CT.
    h.send(&[(1, &[0x1234])]);
    assert_eq!(h.desc(H2G_LMEM)[0], 0);
    assert_eq!(h.mmio(&ENABLE), failure(abi::error::CTB_NOT_REGISTERED));
    // g2h: requests find no channel.
    h.control("g2h:event:8003");
    assert_eq!(h.guc_irqs(), 1);
    assert_eq!(h.events("guc_ct_inject")[1]["result"], "no_channel");
    // A GuC reset, clean buffers and a new registration bring it back.
    h.guc_reset();
    h.load_ready();
    h.bus.map_lmem(H2G_GGTT, H2G_LMEM, &[0; 0x2000]);
    h.bus.map_lmem(G2H_GGTT, G2H_LMEM, &vec![0; 0x2_1000]);
    h.register(&LAYOUT);
    assert_eq!(h.mmio(&ENABLE), mmio::success(0));
    h.send(&[(2, &[0x1234])]);
    assert_eq!(h.g2h(0, 1), [ctb(2, 1)]);
    assert_eq!(h.kind("ct_register_bad"), 1, "only the enable without KLVs");
}

#[test]
fn g2h_event_and_flood() {
    let small = Layout {
        g2h_size: 4096,
        ..LAYOUT
    };
    let mut h = H::ct_enabled_on(&small);
    h.control("g2h:event:1008:2a:3");
    assert_eq!(h.g2h(0, 4), [ctb(0, 3), 0x9000_1008, 0x2A, 3]);
    assert_eq!(h.guc_irqs(), 1);
    // The host reads it; then a flood bigger than the ring: 511 events of
    // 2 dwords fill the 1023 free dwords, one interrupt, 89 wait.
    h.put_lmem32(G2H_HEAD, 4);
    h.control("g2h:flood:600");
    assert_eq!(h.desc(G2H_DESC_LMEM)[1], 2);
    assert_eq!(h.g2h(4, 2), [ctb(0, 1), FLUSH_EVENT]);
    assert_eq!(h.guc_irqs(), 2);
    let ct = h.ct_summary();
    assert_eq!((ct.events_sent, ct.g2h_pending), (512, 89));
    assert_eq!(h.rf.guc().ct().pending(), 89);
    // Nothing moves while the host reads nothing.
    h.service();
    h.service();
    assert_eq!(h.guc_irqs(), 2);
    // A REQUEST meanwhile waits in H2G: no room for its answer.
    h.send(&[(5, &[0x1234])]);
    assert_eq!(h.desc(H2G_LMEM)[0], 0, "held");
    // The host frees half the ring: a batch, one interrupt.
    h.put_lmem32(G2H_HEAD, 514);
    h.service();
    assert_eq!(h.guc_irqs(), 3);
    assert_eq!(h.ct_summary().g2h_pending, 0);
    // The held request came after the backlog, on the same pass.
    assert_eq!(h.desc(H2G_LMEM)[0], 2);
    let tail = h.desc(G2H_DESC_LMEM)[1];
    // Wrapped at 2, then 89 events and the answer.
    assert_eq!(tail, 2 + 2 * 89 + 2);
    assert_eq!(
        h.g2h(tail - 2, 2),
        [ctb(5, 1), failure(abi::error::UNKNOWN_ACTION)]
    );
    let ct = h.ct_summary();
    assert_eq!((ct.events_sent, ct.g2h_messages), (601, 602));
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
    // A GuC reset drops a backlog.
    h.control("g2h:flood:2000");
    assert!(h.ct_summary().g2h_pending > 0);
    h.guc_reset();
    assert_eq!(h.ct_summary().g2h_pending, 0);
    assert_eq!(h.rf.guc().ct().pending(), 0);
}

#[test]
fn g2h_damage() {
    let mut h = H::ct_enabled_on(&LAYOUT);
    let size = (G2H_SIZE / 4) as u32;
    // NUM_DWORDS 3, one dword written before the tail.
    h.control("g2h:len-past-tail");
    assert_eq!(h.g2h(0, 2), [ctb(0, 3), FLUSH_EVENT]);
    assert_eq!(h.desc(G2H_DESC_LMEM)[1], 2);
    assert_eq!(h.guc_irqs(), 1);
    // Tail outside; the next message goes where the GuC really is, and the
    // tail is right again. No violation: the GuC wrote that tail.
    h.control("g2h:tail-outside");
    assert_eq!(h.desc(G2H_DESC_LMEM)[1], size + 16);
    assert_eq!(h.guc_irqs(), 2);
    h.send(&[(1, &[0x1234])]);
    assert_eq!(h.desc(G2H_DESC_LMEM)[1], 4);
    assert_eq!(h.g2h(2, 1), [ctb(1, 1)]);
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
    // Head outside: the GuC waits until the host writes its head.
    h.control("g2h:head-outside");
    assert_eq!(h.desc(G2H_DESC_LMEM)[0], size + 16);
    assert_eq!(h.guc_irqs(), 4);
    h.send(&[(2, &[0x1234])]);
    assert_eq!(h.desc(H2G_LMEM)[0], 2, "held");
    h.put_lmem32(G2H_HEAD, 4);
    h.service();
    assert_eq!(h.desc(H2G_LMEM)[0], 4);
    assert_eq!(h.g2h(4, 1), [ctb(2, 1)]);
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
    // Status bits: ORed in; the GuC writes no more (answers lost, requests
    // consumed, no violation).
    h.control("g2h:status:4");
    assert_eq!(h.lmem32(G2H_STATUS), 4);
    h.control("g2h:status:1");
    assert_eq!(h.lmem32(G2H_STATUS), 5);
    assert_eq!(h.guc_irqs(), 7);
    h.send(&[(3, &[0x1234])]);
    assert_eq!(h.desc(H2G_LMEM)[0], 6);
    assert_eq!(h.desc(G2H_DESC_LMEM)[1], 6);
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
}

mod log;
mod sriov;
mod submit;
