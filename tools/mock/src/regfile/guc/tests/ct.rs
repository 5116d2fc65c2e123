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
