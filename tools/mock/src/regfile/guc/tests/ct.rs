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
