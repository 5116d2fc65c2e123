//! Tests of the device model through its vfio-user entry points.

use std::path::PathBuf;
use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::json;
use serde_json::Value;
use vfio_bindings::bindings::vfio::VFIO_IRQ_SET_ACTION_TRIGGER;
use vfio_bindings::bindings::vfio::VFIO_IRQ_SET_DATA_EVENTFD;

use super::*;
use crate::clock::ManualClock;
use crate::irq::tests::drain;
use crate::irq::tests::eventfd;
use crate::regfile::gunit::FLR_REINIT;
use crate::regfile::gunit::FLR_TEARDOWN;

const BAR0: u32 = VFIO_PCI_BAR0_REGION_INDEX;
const BAR2: u32 = VFIO_PCI_BAR2_REGION_INDEX;
const CONFIG: u32 = VFIO_PCI_CONFIG_REGION_INDEX;
const GU_CNTL: u64 = 0x10_1010;
const GU_DEBUG: u64 = 0x10_1018;
const PCODE_MAILBOX: u64 = 0x13_8124;
const PCODE_DATA0: u64 = 0x13_8128;
const GSMBASE: u64 = 0x10_8100;

fn opts() -> Options {
    Options::with_socket("/nonexistent/xehpg-mock.sock")
}

fn device(o: &Options) -> (Device, ManualClock) {
    let clock = ManualClock::new();
    let dev = Device::new(o, Arc::new(clock.clone())).expect("device");
    (dev, clock)
}

/// A unique temporary path for this test process.
fn temp(name: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!("xehpg-mock-{}-{n}-{name}", std::process::id()))
}

fn read32(d: &mut Device, off: u64) -> u32 {
    let mut b = [0u8; 4];
    d.region_read(BAR0, off, &mut b).expect("read");
    u32::from_le_bytes(b)
}

fn write32(d: &mut Device, off: u64, v: u32) {
    d.region_write(BAR0, off, &v.to_le_bytes()).expect("write");
}

/// Writes the PCI Command register: memory space (bit 1) and, with
/// `master`, Bus Master Enable (bit 2), as `pci_enable_device_mem` and
/// `pci_set_master` / `pci_clear_master` leave it.
fn command(d: &mut Device, master: bool) {
    let v: u16 = if master { 0x6 } else { 0x2 };
    d.region_write(CONFIG, 0x04, &v.to_le_bytes())
        .expect("command");
}

#[test]
fn known_register_read_is_counted_per_register() {
    let (mut d, _) = device(&opts());
    assert_eq!(read32(&mut d, GU_CNTL), 0x80);
    let s = d.summary();
    assert_eq!(s.mmio_reads, 1);
    assert_eq!(s.reg_reads.get("GU_CNTL"), Some(&1));
    assert_eq!((s.unknown_accesses, s.violations), (0, 0));
}

#[test]
fn unknown_offsets_read_zero_drop_writes_and_are_counted() {
    let (mut d, _) = device(&opts());
    assert_eq!(read32(&mut d, 0x0), 0);
    assert_eq!(read32(&mut d, 0x0), 0);
    write32(&mut d, 0x4, 0xDEAD_BEEF);
    assert_eq!(read32(&mut d, 0x4), 0, "write was dropped");
    // Reads of the doorbell window [4 MiB, 8 MiB) are unknown (the PRM
    // defines none); a write there is a doorbell ring, unarmed here: not
    // unknown, counted by the GuC model.
    write32(&mut d, 0x50_0000, 1);
    assert_eq!(read32(&mut d, 0x50_0000), 0);
    let s = d.summary();
    assert_eq!(s.guc_submit.unarmed_rings, 1);
    assert_eq!(s.violations, 0);
    assert_eq!(s.unknown_accesses, 5);
    let entries: Vec<_> = s
        .unknown
        .iter()
        .map(|u| (u.op, u.offset.0, u.count))
        .collect();
    assert_eq!(
        entries,
        vec![
            (Op::Read, 0x0, 2),
            (Op::Read, 0x4, 1),
            (Op::Read, 0x50_0000, 1),
            (Op::Write, 0x4, 1),
        ]
    );
    assert!(s.reg_reads.is_empty() && s.reg_writes.is_empty());
}

#[test]
fn qword_accesses_are_two_dword_cycles() {
    let (mut d, _) = device(&opts());
    let mut b = [0u8; 8];
    d.region_read(BAR0, GSMBASE, &mut b).expect("read");
    assert_eq!(u64::from_le_bytes(b), (16 << 30) - (8 << 20));
    // One 64-bit write covering PCODE_DATA0 and PCODE_DATA1.
    d.region_write(BAR0, PCODE_DATA0, &0x2222_2222_1111_1111u64.to_le_bytes())
        .expect("write");
    assert_eq!(read32(&mut d, PCODE_DATA0), 0x1111_1111);
    assert_eq!(read32(&mut d, PCODE_DATA0 + 4), 0x2222_2222);
    let s = d.summary();
    assert_eq!(
        s.reg_reads.get("GSMBASE"),
        Some(&1),
        "one access, one register"
    );
    assert_eq!(s.reg_writes.get("PCODE_DATA0"), Some(&1));
    assert_eq!(s.reg_writes.get("PCODE_DATA1"), Some(&1));
    assert_eq!(s.violations, 0);
}

#[test]
fn sub_dword_accesses_are_violations_and_writes_are_dropped() {
    let (mut d, clock) = device(&opts());
    write32(&mut d, GU_CNTL, 1 << 31);
    clock.advance(FLR_TEARDOWN + FLR_REINIT);
    assert_eq!(read32(&mut d, GU_DEBUG), 1 << 31);
    // A byte write of the W1C bit must not clear it.
    d.region_write(BAR0, GU_DEBUG + 3, &[0x80])
        .expect("accepted");
    assert_eq!(read32(&mut d, GU_DEBUG), 1 << 31);
    // A 2-byte read returns the bytes of the containing dword.
    let mut b = [0u8; 2];
    d.region_read(BAR0, GU_DEBUG + 2, &mut b).expect("read");
    assert_eq!(b, [0x00, 0x80]);
    let s = d.summary();
    assert_eq!(s.violation_kinds.get("mmio_unaligned"), Some(&2));
}

#[test]
fn all_ones_fault_answers_every_read_with_ones_and_drops_writes() {
    let mut o = opts();
    o.faults = vec![Fault::AllOnes];
    let (mut d, clock) = device(&o);
    assert_eq!(read32(&mut d, GU_CNTL), 0xFFFF_FFFF);
    assert_eq!(read32(&mut d, 0x0), 0xFFFF_FFFF);
    assert_eq!(read32(&mut d, 0x60_0000), 0xFFFF_FFFF);
    write32(&mut d, GU_CNTL, 1 << 31);
    clock.advance(Duration::from_secs(1));
    let s = d.summary();
    assert_eq!(s.driver_flrs, 0, "write never reached the register");
    assert_eq!(s.unknown_accesses, 2, "unknown offsets are still counted");
    assert_eq!(s.reg_reads.get("GU_CNTL"), Some(&1));
    assert_eq!(s.faults, vec!["all-ones"]);
    // The GGTT window is memory, not registers: unaffected.
    d.region_write(BAR0, GGTT_START, &[1, 2, 3, 4])
        .expect("write");
    let mut b = [0u8; 4];
    d.region_read(BAR0, GGTT_START, &mut b).expect("read");
    assert_eq!(b, [1, 2, 3, 4]);
}

#[test]
fn surprise_removal_turns_a_live_device_into_all_ones_mid_run() {
    let (mut d, clock) = device(&opts());
    let alive = read32(&mut d, GU_CNTL);
    assert_ne!(alive, 0xFFFF_FFFF);
    assert!(d.summary().faults.is_empty());
    assert!(d.surprise_remove());
    assert!(!d.surprise_remove(), "a second removal changes nothing");
    assert_eq!(read32(&mut d, GU_CNTL), 0xFFFF_FFFF);
    assert_eq!(read32(&mut d, PCODE_MAILBOX), 0xFFFF_FFFF);
    // A Driver-FLR request is dropped like every write: nothing resets.
    write32(&mut d, GU_CNTL, 1 << 31);
    clock.advance(Duration::from_secs(1));
    let s = d.summary();
    assert_eq!(s.driver_flrs, 0, "write never reached the register");
    assert_eq!(s.faults, vec!["surprise-removal"]);
    assert_eq!(s.surprise_removals, 1);
    assert_eq!(s.unknown_accesses, 0);
    assert_eq!(s.violations, 0, "a dead device breaks no rule");
    // Local memory is QEMU's mapping of the memfd: it stays.
    d.region_write(BAR2, 0x1000, &[9, 8, 7, 6]).expect("write");
    let mut b = [0u8; 4];
    d.region_read(BAR2, 0x1000, &mut b).expect("read");
    assert_eq!(b, [9, 8, 7, 6]);
}

#[test]
fn pcode_init_probe_through_bar0() {
    let mut o = opts();
    o.pcode_init_delay_ms = 20;
    let (mut d, clock) = device(&o);
    let probe = |d: &mut Device| {
        write32(d, PCODE_DATA0, 0);
        write32(d, PCODE_DATA0 + 4, 0);
        write32(d, PCODE_MAILBOX, 0x8000_007E);
        assert_eq!(read32(d, PCODE_MAILBOX), 0, "completed, success");
        read32(d, PCODE_DATA0)
    };
    assert_eq!(probe(&mut d), 0);
    clock.advance_ms(20);
    assert_eq!(probe(&mut d), 1);
    assert_eq!(d.summary().pcode_commands, 2);
}

#[test]
fn pcode_stuck_busy_write_is_a_violation() {
    let mut o = opts();
    o.faults = vec![Fault::PcodeStuck];
    let (mut d, _) = device(&o);
    write32(&mut d, PCODE_MAILBOX, 0x8000_007E);
    write32(&mut d, PCODE_MAILBOX, 0x8000_007E);
    assert_eq!(read32(&mut d, PCODE_MAILBOX), 0x8000_007E);
    assert_eq!(
        d.summary().violation_kinds.get("pcode_busy_write"),
        Some(&1)
    );
}

#[test]
fn vf_switch_and_lmem_size_reach_the_registers() {
    let mut o = opts();
    o.vf = true;
    o.lmem_size_gib = 8;
    let (mut d, _) = device(&o);
    assert_eq!(read32(&mut d, 0x19_01F8), 1);
    assert_eq!(read32(&mut d, 0x10_83A0), 8 << 8);
    assert_eq!(read32(&mut d, GSMBASE), 0xFF80_0000);
    assert_eq!(read32(&mut d, GSMBASE + 4), 1);
}

#[test]
fn driver_flr_wipes_lmem_and_ggtt() {
    let (mut d, _) = device(&opts());
    d.region_write(BAR2, 0x1000, &[0xAA; 16])
        .expect("lmem write");
    d.region_write(BAR0, GGTT_START + 8, &[0xBB; 8])
        .expect("ggtt write");
    write32(&mut d, GU_CNTL, 1 << 31);
    let mut b = [0xFFu8; 16];
    d.region_read(BAR2, 0x1000, &mut b).expect("lmem read");
    assert_eq!(b, [0; 16]);
    let mut g = [0xFFu8; 8];
    assert_eq!(d.ggtt_read(8, &mut g), Some(()));
    assert_eq!(g, [0; 8]);
}

/// `lmem:dirty` also gives the CCS metadata covering its range (whole
/// 256-byte units) a previous owner's non-zero byte; a function reset
/// (here a Driver-FLR) makes all of it unknown again, as at power-on.
#[test]
fn lmem_dirty_dirties_the_ccs_and_a_reset_forgets_it() {
    use crate::ccs::index;
    let (mut d, _) = device(&opts());
    assert_eq!(d.ccs.chunks(), 0, "unknown at power-on");
    d.control(Request::parse("lmem:dirty:10080:1001").expect("request"));
    let dirty = Some(crate::control::CCS_DIRTY_BYTE);
    assert_eq!(d.ccs.get(index(0xFF80)), None, "before the range");
    assert_eq!(d.ccs.get(index(0x1_0080)), dirty, "partly covered");
    assert_eq!(d.ccs.get(index(0x1_1080)), dirty, "the last byte's unit");
    assert_eq!(d.ccs.get(index(0x1_1100)), None, "after the range");
    let mut b = [0u8; 4];
    d.region_read(BAR2, 0x1_0080, &mut b).expect("lmem read");
    assert_eq!(u32::from_le_bytes(b), crate::control::LMEM_DIRTY_PATTERN);
    write32(&mut d, GU_CNTL, 1 << 31);
    assert_eq!(d.ccs.chunks(), 0, "forgotten by the reset");
}

/// The isolation checker reads the device's own GGTT window (the bulk PTE
/// read) on `vf:check` and once more at exit.
#[test]
fn isolation_checker_walks_the_device_ggtt() {
    let (mut d, _) = device(&opts());
    // A PTE stamped for VF 3 (bits 11:2), present, with no VF configured:
    // a stray stamp, a leftover.
    let pte: u64 = 3 << 2 | 1;
    d.region_write(BAR0, GGTT_START + 8 * 0x2345, &pte.to_le_bytes())
        .expect("ggtt write");
    d.control(Request::parse("vf:check").expect("request"));
    let s = d.summary().sriov;
    assert_eq!((s.isolation_checks, s.isolation_violations), (1, 1));
    assert_eq!(s.isolation_kinds["ggtt_stray"], 1);
    d.finish("disconnect");
    let s = d.summary().sriov;
    assert_eq!(
        (s.isolation_checks, s.isolation_violations),
        (2, 1),
        "counted once"
    );
    assert_eq!(d.summary().violations, 0, "an oracle, not a device rule");
}

#[test]
fn trapped_window_accesses_use_the_shared_memory() {
    let (mut d, _) = device(&opts());
    d.region_write(
        BAR0,
        GGTT_START + 0x10,
        &0x1234_5678_0000_0003u64.to_le_bytes(),
    )
    .expect("write");
    let mut pte = [0u8; 8];
    d.ggtt_read(0x10, &mut pte).expect("in window");
    assert_eq!(u64::from_le_bytes(pte), 0x1234_5678_0000_0003);
    d.region_write(BAR2, 0xFF_FFF0, &[5; 16])
        .expect("lmem write");
    let mut b = [0u8; 16];
    d.region_read(BAR2, 0xFF_FFF0, &mut b).expect("lmem read");
    assert_eq!(b, [5; 16]);
    let s = d.summary();
    assert_eq!((s.mmio_reads, s.mmio_writes), (1, 2));
    assert_eq!(s.unknown_accesses, 0);
}

#[test]
fn accesses_outside_the_bars_fail() {
    let (mut d, _) = device(&opts());
    let mut b = [0u8; 4];
    assert!(d.region_read(BAR0, (16 << 20) - 2, &mut b).is_err());
    assert!(d.region_read(BAR2, 256 << 20, &mut b).is_err());
    assert!(d.region_read(4, 0, &mut b).is_err(), "no BAR4");
    assert!(d.region_read(CONFIG, 4094, &mut b).is_err());
    assert_eq!(
        d.summary().violation_kinds.get("mmio_out_of_range"),
        Some(&2)
    );
}

#[test]
fn small_bar0_keeps_registers_and_loses_the_ggtt_window() {
    let mut o = opts();
    o.bar0_size_mib = 4;
    let (mut d, _) = device(&o);
    assert_eq!(d.ggtt_fd(), None);
    assert_eq!(read32(&mut d, GU_CNTL), 0x80);
    let mut b = [0u8; 4];
    assert!(d.region_read(BAR0, 4 << 20, &mut b).is_err());
}

#[test]
fn vfio_reset_restores_registers_and_config_space() {
    let mut o = opts();
    o.lmem_init_delay_ms = 5;
    let (mut d, clock) = device(&o);
    clock.advance_ms(5);
    d.region_write(CONFIG, 0x04, &[0x06, 0x00])
        .expect("command");
    write32(&mut d, PCODE_DATA0, 0x55);
    write32(&mut d, GU_CNTL, 1 << 31);
    d.reset("vfio_user");
    let mut cmd = [0u8; 2];
    d.region_read(CONFIG, 0x04, &mut cmd).expect("command");
    assert_eq!(cmd, [0, 0]);
    assert_eq!(read32(&mut d, PCODE_DATA0), 0);
    assert_eq!(
        read32(&mut d, GU_CNTL),
        0,
        "FLR cancelled, LMEM re-initialising"
    );
    clock.advance_ms(5);
    assert_eq!(read32(&mut d, GU_CNTL), 0x80);
    assert_eq!(d.summary().resets, 1);
}

#[test]
fn config_space_flr_resets_the_function() {
    let mut o = opts();
    o.pcode_init_delay_ms = 10;
    let (mut d, clock) = device(&o);
    write32(&mut d, PCODE_DATA0, 0x55);
    clock.advance_ms(3);
    // Device Control (PCIe cap at 0x40, +8), bit 15: Initiate FLR.
    d.region_write(CONFIG, 0x48, &0x8000u16.to_le_bytes())
        .expect("flr");
    assert_eq!(read32(&mut d, PCODE_DATA0), 0);
    let s = d.summary();
    assert_eq!((s.resets, s.config_writes), (1, 1));
    let mut id = [0u8; 4];
    d.region_read(CONFIG, 0, &mut id).expect("id");
    assert_eq!(u32::from_le_bytes(id), 0x56C0_8086);
}

#[test]
fn config_space_identity_for_dg2() {
    let mut o = opts();
    o.device_id = 0x56A0;
    o.revision = 0x04;
    let (mut d, _) = device(&o);
    let mut b = [0u8; 4];
    d.region_read(CONFIG, 0x08, &mut b).expect("class/rev");
    assert_eq!(u32::from_le_bytes(b), 0x0300_0004);
    d.region_read(CONFIG, 0x2C, &mut b).expect("subsystem");
    assert_eq!(u32::from_le_bytes(b), 0x56A0_8086);
}

#[test]
fn msi_is_delivered_only_once_wired() {
    let (mut d, _) = device(&opts());
    assert!(!d.raise_msi());
    let efd = eventfd();
    d.set_irqs(
        1,
        VFIO_IRQ_SET_ACTION_TRIGGER | VFIO_IRQ_SET_DATA_EVENTFD,
        0,
        1,
        vec![efd.try_clone().expect("dup")],
    )
    .expect("set_irqs");
    assert!(d.raise_msi());
    assert_eq!(drain(&efd), 1);
    let s = d.summary();
    assert_eq!((s.irqs, s.irqs_dropped), (1, 1));
}

#[test]
fn dma_through_mapped_guest_ram() {
    let (mut d, _) = device(&opts());
    let ram = MemFd::new("guest", 0x4000).expect("memfd");
    // SAFETY: dup returns a fresh descriptor that the File then owns.
    let fd = unsafe { libc::dup(ram.raw_fd()) };
    assert!(fd >= 0);
    // SAFETY: `fd` is owned by nobody else.
    let file = unsafe { <File as std::os::fd::FromRawFd>::from_raw_fd(fd) };
    d.dma_map(
        DmaMapFlags::READ_WRITE,
        0x1000,
        0x10_0000,
        0x2000,
        Some(file),
    )
    .expect("map");
    // Bus Master Enable is 0 at reset: nothing reaches guest RAM yet.
    assert_eq!(
        d.dma_write(0x10_0010, b"hello").map_err(|e| e.kind()),
        Err("dma_without_bus_master")
    );
    let mut back = [0u8; 5];
    ram.read(0x1010, &mut back).expect("guest RAM");
    assert_eq!(back, [0; 5], "the refused write did not land");
    command(&mut d, true);
    d.dma_write(0x10_0010, b"hello").expect("write");
    ram.read(0x1010, &mut back).expect("guest RAM");
    assert_eq!(&back, b"hello", "device write landed at the file offset");
    d.dma_read(0x10_0010, &mut back).expect("read");
    assert_eq!(&back, b"hello");
    assert!(d.dma_read(0x20_0000, &mut back).is_err());
    d.dma_unmap(DmaUnmapFlags::empty(), 0x10_0000, 0x2000);
    assert!(d.dma_write(0x10_0010, b"x").is_err());
    let s = d.summary();
    assert_eq!((s.dma_maps, s.dma_unmaps), (1, 1));
    assert_eq!(s.violation_kinds.get("dma_unmapped"), Some(&2));
    assert_eq!(s.violation_kinds.get("dma_without_bus_master"), Some(&1));
}

/// `bus_master` is traced on a change of Command bit 2 only; host writes
/// count as sets and clears, resets (config FLR, vfio-user) return it to 0
/// without counting as a clear, and the summary's state follows.
#[test]
fn bus_master_changes_are_traced_and_counted() {
    let path = temp("bm-trace.jsonl");
    let mut o = opts();
    o.trace = Some(path.clone());
    let (mut d, _) = device(&o);
    command(&mut d, false);
    command(&mut d, true);
    command(&mut d, true);
    // A write of other Command bits keeps it (INTx disable, bit 10).
    d.region_write(CONFIG, 0x04, &0x0406u16.to_le_bytes())
        .expect("command");
    // A write of the status half alone touches nothing of it.
    d.region_write(CONFIG, 0x06, &0xFFFFu16.to_le_bytes())
        .expect("status");
    command(&mut d, false);
    command(&mut d, true);
    let s = d.summary();
    assert!(s.bus_master_at_exit);
    assert_eq!((s.bus_master_sets, s.bus_master_clears), (2, 1));
    // Device Control bit 15: Initiate FLR.
    d.region_write(CONFIG, 0x48, &0x8000u16.to_le_bytes())
        .expect("flr");
    let s = d.summary();
    assert!(
        !s.bus_master_at_exit,
        "FLR returns the Command register to 0"
    );
    assert_eq!((s.bus_master_sets, s.bus_master_clears), (2, 1));
    command(&mut d, true);
    d.reset("vfio_user");
    // A reset with bus mastering already off changes nothing.
    d.reset("vfio_user");
    let s = d.summary();
    assert!(!s.bus_master_at_exit);
    assert_eq!((s.bus_master_sets, s.bus_master_clears), (3, 1));
    assert_eq!(s.violations, 0);
    d.finish("test");
    let bm: Vec<(Value, Value)> = trace_lines(&path)
        .iter()
        .filter(|l| l["ev"] == "bus_master")
        .map(|l| (l["on"].clone(), l["cause"].clone()))
        .collect();
    let want = [
        (true, "config_write"),
        (false, "config_write"),
        (true, "config_write"),
        (false, "pcie_flr"),
        (true, "config_write"),
        (false, "vfio_user"),
    ]
    .map(|(on, c)| (json!(on), json!(c)));
    assert_eq!(bm, want);
    let _ = std::fs::remove_file(&path);
}

/// A Driver-FLR leaves config space, Bus Master Enable included, alone
/// (upstream `xe_device.c`, the comment above `__xe_driver_flr`).
#[test]
fn driver_flr_keeps_bus_mastering() {
    let (mut d, clock) = device(&opts());
    command(&mut d, true);
    write32(&mut d, GU_CNTL, 1 << 31);
    clock.advance(FLR_TEARDOWN + FLR_REINIT);
    assert_eq!(
        read32(&mut d, GU_DEBUG),
        1 << 31,
        "the Driver-FLR completed"
    );
    let s = d.summary();
    assert_eq!(s.driver_flrs, 1);
    assert!(s.bus_master_at_exit);
    assert_eq!((s.bus_master_sets, s.bus_master_clears), (1, 0));
    let mut cmd = [0u8; 2];
    d.region_read(CONFIG, 0x04, &mut cmd).expect("command");
    assert_eq!(u16::from_le_bytes(cmd), 0x6);
}

/// A test window keeps the Command register as the guest left it; its
/// record starts from that state (the `start` event names it).
#[test]
fn a_window_starts_with_the_bus_master_state() {
    let summary = temp("bm-summary.json");
    let mut o = opts();
    o.summary = Some(summary.clone());
    let (mut d, _) = device(&o);
    command(&mut d, true);
    d.begin_window("bm", &[]).expect("window");
    let s = d.summary();
    assert!(s.bus_master_at_exit, "still set in the window");
    assert_eq!((s.bus_master_sets, s.bus_master_clears), (0, 0));
    command(&mut d, false);
    d.end_window("bm").expect("end");
    let path = window_summary_path(&summary, "bm");
    let w: Value = serde_json::from_str(&std::fs::read_to_string(&path).expect("window summary"))
        .expect("JSON");
    assert_eq!(w["bus_master_at_exit"], json!(false));
    assert_eq!(w["bus_master_sets"], json!(0));
    assert_eq!(w["bus_master_clears"], json!(1));
    let _ = std::fs::remove_file(&path);
    let _ = std::fs::remove_file(&summary);
}

fn trace_lines(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .expect("trace")
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

#[test]
fn trace_file_records_the_run() {
    let path = temp("trace.jsonl");
    let mut o = opts();
    o.trace = Some(path.clone());
    o.faults = vec![
        Fault::PcodeNeverInit,
        Fault::LmemNeverInit,
        Fault::PcodeNeverInit,
    ];
    let (mut d, clock) = device(&o);
    clock.advance(Duration::from_micros(250));
    read32(&mut d, GU_CNTL);
    read32(&mut d, 0x2000);
    d.finish("test");
    let lines = trace_lines(&path);
    let evs: Vec<&str> = lines
        .iter()
        .map(|l| l["ev"].as_str().unwrap_or("?"))
        .collect();
    assert_eq!(
        evs,
        vec![
            "start",
            "fault_armed",
            "fault_armed",
            "mmio_read",
            "mmio_read",
            "unknown_access",
            "stop"
        ]
    );
    for (i, l) in lines.iter().enumerate() {
        assert_eq!(l["seq"], json!(i));
    }
    assert_eq!(lines[0]["device_id"], json!("0x56c0"));
    assert_eq!(lines[0]["family"], json!("ATS-M"));
    assert_eq!(lines[1]["name"], json!("lmem-never-init"));
    assert_eq!(lines[2]["name"], json!("pcode-never-init"));
    assert_eq!(
        lines[3],
        json!({"seq":3,"t_us":250,"ev":"mmio_read","bar":0,"offset":"0x101010",
               "size":4,"value":"0x0","reg":"GU_CNTL"})
    );
    assert_eq!(lines[4]["reg"], Value::Null);
    assert_eq!(
        lines[5],
        json!({"seq":5,"t_us":250,"ev":"unknown_access","op":"read","bar":0,"offset":"0x2000"})
    );
    assert_eq!(lines[6]["reason"], json!("test"));
    let _ = std::fs::remove_file(&path);
}

#[test]
fn unwritable_summary_is_a_startup_error() {
    let mut o = opts();
    o.summary = Some(PathBuf::from("/nonexistent-dir-xehpg/summary.json"));
    assert!(Device::new(&o, Arc::new(ManualClock::new())).is_err());
}

#[test]
fn summary_file_at_start_and_final_once() {
    let path = temp("summary.json");
    let mut o = opts();
    o.summary = Some(path.clone());
    let (mut d, _) = device(&o);
    let first: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("written at start"))
            .expect("JSON");
    assert_eq!(first["final"], json!(false));
    read32(&mut d, 0x8);
    d.finish("disconnect");
    d.finish("again");
    let last: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("final")).expect("JSON");
    assert_eq!(last["final"], json!(true));
    assert_eq!(
        last["unknown"],
        json!([{"op":"read","offset":"0x8","count":1}])
    );
    // start, mmio_read, unknown_access, stop: the second finish added nothing.
    assert_eq!(last["events"], json!(4));
    let _ = std::fs::remove_file(&path);
}

/// Forcewake, the power rule and steering through BAR0, as a driver sees
/// them, with the summary counters.
#[test]
fn forcewake_power_rule_and_steering_through_bar0() {
    const FORCEWAKE_GT: u64 = 0xA188;
    const FORCEWAKE_ACK_GT: u64 = 0x13_0044;
    const COMPUTE_DSS: u64 = 0x9144;
    const MCR_SELECTOR: u64 = 0xFDC;
    const SARB_CHICKEN1: u64 = 0xE90C;
    let path = temp("fw-trace.jsonl");
    let mut o = opts();
    o.trace = Some(path.clone());
    let (mut d, clock) = device(&o);
    write32(&mut d, FORCEWAKE_GT, 0x0001_0001);
    assert_eq!(
        read32(&mut d, FORCEWAKE_ACK_GT),
        0,
        "default delay is 20 us"
    );
    assert_eq!(read32(&mut d, COMPUTE_DSS), 0, "GT still asleep");
    clock.advance(Duration::from_micros(20));
    assert_eq!(read32(&mut d, FORCEWAKE_ACK_GT), 1);
    assert_eq!(read32(&mut d, COMPUTE_DSS), 0xFFFF_FFFF);
    // Unicast write to MSLICE 2, read it back steered there.
    write32(&mut d, MCR_SELECTOR, 2 << 27);
    write32(&mut d, SARB_CHICKEN1, 0x55);
    write32(&mut d, MCR_SELECTOR, 1 << 31);
    assert_eq!(read32(&mut d, SARB_CHICKEN1), 0, "instance 0 untouched");
    write32(&mut d, MCR_SELECTOR, 1 << 31 | 2 << 27);
    assert_eq!(read32(&mut d, SARB_CHICKEN1), 0x55);
    let s = d.summary();
    assert_eq!(s.fw_requests.get("gt"), Some(&1));
    assert_eq!(s.fw_wakes.get("gt"), Some(&1));
    assert_eq!(s.sleeping_accesses, 1);
    assert_eq!(s.violation_kinds.get("sleeping_domain"), Some(&1));
    assert_eq!(s.violations, 1);
    assert_eq!(s.mcr_selector_writes.get("MCR_SELECTOR"), Some(&3));
    assert_eq!(s.reg_reads.get("XEHP_GT_COMPUTE_DSS_ENABLE"), Some(&2));
    assert_eq!(s.reg_writes.get("FORCEWAKE_GT"), Some(&1));
    assert_eq!(s.unknown_accesses, 0);
    d.finish("test");
    let lines = trace_lines(&path);
    assert_eq!(lines[0]["fuse_media"], json!("0x30005"));
    assert_eq!(lines[0]["fw_ack_delay_us"], json!(20));
    assert_eq!(lines[0]["sqidi_part"], json!("alchemist-512"));
    assert_eq!(lines[0]["gam_reset_slice"], json!(0));
    let ack = lines
        .iter()
        .find(|l| l["ev"] == json!("fw_ack"))
        .expect("fw_ack traced");
    assert_eq!(ack["at_us"], json!(20));
    assert_eq!(ack["awake"], json!(true));
    assert!(lines
        .iter()
        .any(|l| l["ev"] == json!("steer") && l["slice"] == json!(2)));
    let _ = std::fs::remove_file(&path);
}

#[test]
fn fuse_options_reach_the_registers_and_reset_clears_forcewake() {
    let o = Options::try_parse_args([
        "xehpg-mock",
        "--socket",
        "/nonexistent/s",
        "--fuses",
        "g11-partial",
        "--fuse-meml3",
        "3",
        "--fw-ack-delay-us",
        "0",
    ])
    .expect("options");
    let (mut d, _) = device(&o);
    write32(&mut d, 0xA188, 0x0001_0001);
    assert_eq!(read32(&mut d, 0x913C), 0xFF00);
    assert_eq!(read32(&mut d, 0x9118), 0x3);
    assert_eq!(read32(&mut d, 0x9140), 0x0001_0001);
    d.reset("vfio_user");
    assert_eq!(read32(&mut d, 0x13_0044), 0, "reset puts GT to sleep");
    assert_eq!(read32(&mut d, 0x913C), 0);
    assert_eq!(d.summary().sleeping_accesses, 1);
}

#[test]
fn fw_ack_never_fault_through_bar0() {
    let mut o = opts();
    o.faults = vec![Fault::FwAckNever(None)];
    let (mut d, clock) = device(&o);
    write32(&mut d, 0xA278, 0x0001_0001);
    clock.advance(Duration::from_secs(1));
    assert_eq!(read32(&mut d, 0x0D84), 0);
    let s = d.summary();
    assert_eq!(s.faults, vec!["fw-ack-never"]);
    assert_eq!(s.violations, 0);
}

#[test]
fn acknowledges_due_at_exit_are_recorded() {
    let (mut d, clock) = device(&opts());
    write32(&mut d, 0xA278, 0x0001_0001);
    clock.advance(Duration::from_millis(1));
    assert_eq!(d.summary().fw_wakes.get("render"), None, "not noticed yet");
    d.finish("test");
    assert_eq!(d.summary().fw_wakes.get("render"), Some(&1));
}

/// A GuC load the way a driver does it, through BAR0, the GGTT window,
/// guest RAM and LMEMBAR, checked against `--guc-fw`; then GET_HWCONFIG
/// into local memory, and into a DM page beyond local memory.
/// A device whose GuC a driver's sequence (through BAR0, the GGTT window,
/// guest RAM and LMEMBAR) brought to READY, with `--guc-fw` written to a
/// temporary file named `fw` (returned, for the caller to remove). The GGTT
/// maps guest RAM linearly from 0x80_0000 (firmware, log, ADS, private
/// data) and two DM pages at 0x90_0000 (LMEM 0x1000, and the first byte
/// past local memory).
fn guc_ready(o: Options, fw: &str) -> (Device, ManualClock, PathBuf) {
    let (mut d, clock, fw_path) = guc_upload(o, fw, true);
    assert_eq!(read32(&mut d, 0xC314) & 1, 1);
    clock.advance_ms(1);
    assert_eq!(read32(&mut d, 0xC314) & 1, 0);
    write32(&mut d, 0xC314, 0x0010_0000);
    clock.advance_ms(20);
    assert_eq!(read32(&mut d, 0xC000), 0x8000_F0EC);
    (d, clock, fw_path)
}

/// [`guc_ready`] up to the upload's `DMA_CTRL` start, with Bus Master
/// Enable set first (as probe does) if `master`.
fn guc_upload(mut o: Options, fw: &str, master: bool) -> (Device, ManualClock, PathBuf) {
    use crate::regfile::guc::tests::ads_blob;
    use crate::regfile::guc::tests::image;
    use crate::regs::guc as g;
    const GGTT: u64 = 0x80_0000;
    const IOVA: u64 = 0x100_0000;
    let img = image(0x400, 96, 0x3000);
    let fw_path = temp(fw);
    std::fs::write(&fw_path, &img).expect("firmware file");
    o.guc_fw = Some(fw_path.clone());
    let (mut d, clock) = device(&o);
    command(&mut d, master);
    write32(&mut d, 0xA188, 0x0001_0001);
    clock.advance_ms(1);
    // Guest RAM: firmware at +0, ADS at +0x6000, private data at +0x8000,
    // the log (4 KiB header and three 4 KiB sections) at +0xC000; the
    // GGTT maps it linearly from GGTT.
    let mut ram = MemFd::new("guest", 0x10000).expect("memfd");
    ram.write(0, &img).expect("firmware");
    ram.write(0x6000, &ads_blob(GGTT + 0x6000)).expect("ADS");
    // SAFETY: dup returns a fresh descriptor that the File then owns.
    let fd = unsafe { libc::dup(ram.raw_fd()) };
    assert!(fd >= 0);
    // SAFETY: `fd` is owned by nobody else.
    let file = unsafe { <File as std::os::fd::FromRawFd>::from_raw_fd(fd) };
    d.dma_map(DmaMapFlags::READ_WRITE, 0, IOVA, 0x10000, Some(file))
        .expect("map");
    let pte = |d: &mut Device, gaddr: u64, v: u64| {
        d.region_write(BAR0, GGTT_START + 8 * (gaddr >> 12), &v.to_le_bytes())
            .expect("PTE");
    };
    for i in 0..16 {
        pte(&mut d, GGTT + i * 0x1000, (IOVA + i * 0x1000) | 1);
    }
    pte(&mut d, 0x90_0000, 0x1000 | 3);
    pte(&mut d, 0x90_1000, o.lmem_size() | 3);
    // The upstream sequence.
    write32(&mut d, 0x941C, 8);
    clock.advance(Duration::from_micros(100));
    write32(&mut d, 0xC050, 0x3F_3000);
    write32(&mut d, 0xC340, 0x4000);
    let params = [
        0x3 | (GGTT as u32 + 0xC000),
        0,
        0,
        0x40,
        ((((GGTT + 0x6000) >> 12) << 1) as u32),
        0x56C0 << 16 | 0x08,
    ];
    write32(&mut d, u64::from(g::SOFT_SCRATCH[0].offset), 0);
    for (i, p) in params.iter().enumerate() {
        write32(&mut d, u64::from(g::SOFT_SCRATCH[1 + i].offset), *p);
    }
    write32(&mut d, 0xC064, 0x8602);
    write32(&mut d, 0x13_816C, 1);
    write32(&mut d, 0xA168, 0xFFFF_FDFF);
    let upload = 128 + 0x400 * 4;
    write32(&mut d, 0xC200, GGTT as u32 + upload);
    write32(&mut d, 0xC300, GGTT as u32);
    write32(&mut d, 0xC304, 0x8_0000);
    write32(&mut d, 0xC308, 0x2000);
    write32(&mut d, 0xC30C, 0x7_0000);
    write32(&mut d, 0xC310, upload);
    write32(&mut d, 0xC314, 0x0011_0011);
    (d, clock, fw_path)
}

/// Without Bus Master Enable the GuC's boot DMA cannot read the image from
/// guest RAM: the upload faults (`guc_dma_fault`, boot ROM LOADLOC_FAILED)
/// and the refusal is a `dma_without_bus_master` violation.
#[test]
fn guc_upload_from_guest_ram_needs_bus_master() {
    let (mut d, clock, fw_path) = guc_upload(opts(), "guc-nobm.bin", false);
    assert_eq!(read32(&mut d, 0xC314) & 1, 0, "START_DMA cleared at once");
    clock.advance_ms(20);
    // GUC_STATUS bootrom field (bits 7:1) reads LOADLOC_FAILED (0x75).
    assert_eq!((read32(&mut d, 0xC000) >> 1) & 0x7F, 0x75);
    let s = d.summary();
    assert_eq!(s.violation_kinds.get("dma_without_bus_master"), Some(&1));
    assert_eq!(s.violation_kinds.get("guc_dma_fault"), Some(&1));
    assert_eq!(s.guc_loads, 0);
    assert!(!s.guc_running_at_exit);
    let _ = std::fs::remove_file(&fw_path);
}

/// Bus mastering cleared under a running GuC: its accesses to guest RAM
/// are refused and counted; local memory stays reachable.
#[test]
fn guc_access_to_guest_ram_is_refused_after_a_host_clear() {
    let (mut d, clock, fw_path) = guc_ready(opts(), "guc-bm-clear.bin");
    let size = 14 * 3 * 4;
    command(&mut d, false);
    // GET_HWCONFIG into guest RAM (GGTT 0x80_a000, a system memory page):
    // refused, FAILURE INVALID_PARAMS as for any fault.
    assert_eq!(
        mmio_send(&mut d, &clock, &[0x4100, 0x80_A000, 0, size]),
        0xE000_0060
    );
    let s = d.summary();
    assert_eq!(s.violation_kinds.get("dma_without_bus_master"), Some(&1));
    assert_eq!(s.violation_kinds.get("guc_dma_fault"), Some(&1));
    // ... into a DM page of local memory: served.
    assert_eq!(
        mmio_send(&mut d, &clock, &[0x4100, 0x90_0000, 0, size]),
        0xF000_0000 | size
    );
    // Set again: guest RAM is reachable.
    command(&mut d, true);
    assert_eq!(
        mmio_send(&mut d, &clock, &[0x4100, 0x80_A000, 0, size]),
        0xF000_0000 | size
    );
    let s = d.summary();
    assert_eq!(s.violation_kinds.get("dma_without_bus_master"), Some(&1));
    assert!(s.guc_running_at_exit);
    assert_eq!((s.bus_master_sets, s.bus_master_clears), (2, 1));
    let _ = std::fs::remove_file(&fw_path);
}

/// Maps GGTT page `gaddr` to LMEM `lmem` (DM) through the GGTT window.
fn map_lmem_page(d: &mut Device, gaddr: u64, lmem: u64) {
    d.region_write(
        BAR0,
        GGTT_START + 8 * (gaddr >> 12),
        &(lmem | 3).to_le_bytes(),
    )
    .expect("PTE");
}

/// An MMIO request through `VF_SW_FLAG(0..)` and the doorbell; the reply
/// header 50 us later.
fn mmio_send(d: &mut Device, clock: &ManualClock, msg: &[u32]) -> u32 {
    for (i, &v) in msg.iter().enumerate() {
        write32(d, 0x19_0240 + 4 * i as u64, v);
    }
    write32(d, 0x19_01F0, 0);
    clock.advance(Duration::from_micros(50));
    read32(d, 0x19_0240)
}

#[test]
fn guc_load_through_device_memory() {
    let summary = temp("guc-summary.json");
    let mut o = opts();
    o.summary = Some(summary.clone());
    let (mut d, clock, fw_path) = guc_ready(o, "guc.bin");
    // GET_HWCONFIG into a DM page: the table lands in LMEMBAR.
    let send =
        |d: &mut Device, addr: u32, size: u32| mmio_send(d, &clock, &[0x4100, addr, 0, size]);
    let size = send(&mut d, 0, 0) & 0x0FFF_FFFF;
    // 14 single-dword entries of 3 dwords (regfile/guc/hwconfig.rs).
    assert_eq!(size, 14 * 3 * 4);
    assert_eq!(send(&mut d, 0x90_0000, size), 0xF000_0000 | size);
    let mut first = [0u8; 12];
    d.region_read(BAR2, 0x1000, &mut first).expect("LMEMBAR");
    assert_eq!(
        first,
        [1, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0],
        "MAX_SLICES_SUPPORTED (key 1) = 4"
    );
    // Beyond local memory: a fault, FAILURE INVALID_PARAMS.
    assert_eq!(send(&mut d, 0x90_1000, size), 0xE000_0060);
    let s = d.summary();
    assert_eq!(s.violation_kinds.len(), 1, "{:?}", s.violation_kinds);
    assert_eq!(s.violation_kinds.get("guc_dma_fault"), Some(&1));
    assert_eq!((s.guc_loads, s.h2g_requests), (1, 3));
    d.finish("disconnect");
    let last: Value =
        serde_json::from_str(&std::fs::read_to_string(&summary).expect("final")).expect("JSON");
    assert_eq!(last["guc_running_at_exit"], json!(true));
    assert_eq!(last["guc_last_release"], json!("70.53.0"));
    let _ = std::fs::remove_file(&fw_path);
    let _ = std::fs::remove_file(&summary);
}

/// The CT engine's re-checks through the device: a `g2h:flood` bigger than
/// the G2H ring waits; once the host writes its head in LMEM (no register
/// sees that), a register access or the server's tick writes the rest.
#[test]
fn ct_backlog_goes_out_on_register_accesses_and_ticks() {
    use crate::control::Request;
    let (mut d, clock, fw_path) = guc_ready(opts(), "guc-ct.bin");
    // H2G object at GGTT 0xA0_0000 (LMEM 0x10_0000), G2H at 0xA1_0000
    // (LMEM 0x11_0000): descriptor at +0 / +0x800, rings at +0x1000, 4 KiB.
    for i in 0..2 {
        map_lmem_page(&mut d, 0xA0_0000 + i * 0x1000, 0x10_0000 + i * 0x1000);
        map_lmem_page(&mut d, 0xA1_0000 + i * 0x1000, 0x11_0000 + i * 0x1000);
    }
    for (key, len, v) in [
        (0x903, 2, 0xA0_0000),
        (0x902, 2, 0xA0_1000),
        (0x904, 1, 0x1000),
        (0x906, 2, 0xA1_0800),
        (0x905, 2, 0xA1_1000),
        (0x907, 1, 0x1000),
    ] {
        assert_eq!(
            mmio_send(&mut d, &clock, &[0x508, key << 16 | len, v, 0]),
            0xF000_0001
        );
    }
    assert_eq!(mmio_send(&mut d, &clock, &[0x4509, 1]), 0xF000_0000);
    let g2h_desc = |d: &mut Device| {
        let mut b = [0u8; 8];
        d.region_read(BAR2, 0x11_0800, &mut b).expect("LMEMBAR");
        [0, 4].map(|o| u32::from_le_bytes(b[o..o + 4].try_into().expect("4 bytes")))
    };
    d.control(Request::parse("g2h:flood:600").expect("request"));
    // 1023 free dwords: 511 events of 2 dwords.
    assert_eq!(g2h_desc(&mut d), [0, 1022]);
    assert_eq!(d.summary().ct.g2h_pending, 89);
    // The host reads 100 events: its head, in memory.
    d.region_write(BAR2, 0x11_0800, &200u32.to_le_bytes())
        .expect("head");
    assert_eq!(d.summary().ct.g2h_pending, 89, "nobody looked yet");
    read32(&mut d, 0xC000);
    assert_eq!(d.summary().ct.g2h_pending, 0);
    assert_eq!(g2h_desc(&mut d), [200, (1022 + 2 * 89) % 1024]);
    // Again, with nothing but the tick.
    d.control(Request::parse("g2h:flood:600").expect("request"));
    let pending = d.summary().ct.g2h_pending;
    assert!(pending > 0);
    let tail = g2h_desc(&mut d)[1];
    d.region_write(BAR2, 0x11_0800, &tail.to_le_bytes())
        .expect("head");
    d.tick();
    assert_eq!(d.summary().ct.g2h_pending, pending.saturating_sub(511));
    assert_eq!(
        d.summary().ct.events_sent,
        1200 - pending.saturating_sub(511)
    );
    assert_eq!(
        d.summary().violations,
        0,
        "{:?}",
        d.summary().violation_kinds
    );
    let _ = std::fs::remove_file(&fw_path);
}

#[test]
fn unreadable_guc_fw_is_a_startup_error() {
    let mut o = opts();
    o.guc_fw = Some(PathBuf::from("/nonexistent-dir-xehpg/guc.bin"));
    let e = Device::new(&o, Arc::new(ManualClock::new()))
        .err()
        .expect("fails");
    assert!(format!("{e:#}").contains("--guc-fw"), "{e:#}");
    let bad = temp("bad-guc.bin");
    std::fs::write(&bad, [0u8; 64]).expect("file");
    o.guc_fw = Some(bad.clone());
    assert!(Device::new(&o, Arc::new(ManualClock::new())).is_err());
    let _ = std::fs::remove_file(&bad);
}

/// A device reset stops the GuC and unlocks the WOPCM registers.
#[test]
fn device_reset_resets_the_guc() {
    let (mut d, clock) = device(&opts());
    write32(&mut d, 0xA188, 0x0001_0001);
    clock.advance_ms(1);
    write32(&mut d, 0xC050, 0x3F_3000);
    assert_eq!(read32(&mut d, 0xC050), 0x3F_3001);
    d.reset("vfio_user");
    write32(&mut d, 0xA188, 0x0001_0001);
    clock.advance_ms(1);
    assert_eq!(read32(&mut d, 0xC050), 0);
    assert_eq!(read32(&mut d, 0xC000), 1);
    assert_eq!(read32(&mut d, 0xA168), 0xFFFF_FFFF);
}

#[test]
fn fw_ack_dead_fault_through_bar0() {
    let mut o = opts();
    o.faults = vec![Fault::FwAckDead(crate::power::Domain::RENDER)];
    let (mut d, clock) = device(&o);
    assert_eq!(read32(&mut d, 0x0D84), 0xFFFF_FFFF, "RENDER ack");
    assert_eq!(read32(&mut d, 0x13_0044), 0, "GT ack answers");
    write32(&mut d, 0xA188, 0x0001_0001);
    clock.advance_ms(1);
    assert_eq!(read32(&mut d, 0x13_0044), 1);
    assert_eq!(read32(&mut d, 0x0D84), 0xFFFF_FFFF);
    let s = d.summary();
    assert_eq!(s.faults, vec!["fw-ack-dead=render"]);
    assert_eq!(s.violations, 0);
}

/// `--wopcm-prelocked`: latched from the start, traced in `start`, and
/// latched again after a device reset.
#[test]
fn wopcm_prelocked_through_bar0() {
    let path = temp("wopcm-trace.jsonl");
    let mut o = opts();
    o.trace = Some(path.clone());
    o.wopcm_prelocked = Some(crate::regfile::guc::WopcmLock {
        base: 0x4000,
        size: 0x1_0000,
    });
    let (mut d, clock) = device(&o);
    for round in 0..2 {
        write32(&mut d, 0xA188, 0x0001_0001);
        clock.advance_ms(1);
        assert_eq!(read32(&mut d, 0xC050), 0x1_0001, "size, LOCKED ({round})");
        assert_eq!(read32(&mut d, 0xC340), 0x4001, "base, VALID ({round})");
        d.reset("vfio_user");
    }
    assert_eq!(d.summary().violations, 0);
    d.finish("test");
    let lines = trace_lines(&path);
    assert_eq!(
        lines[0]["wopcm_prelocked"],
        json!({"base": "0x4000", "size": "0x10000"})
    );
    let _ = std::fs::remove_file(&path);
    // Without the option the key is absent.
    let path = temp("plain-trace.jsonl");
    let mut o = opts();
    o.trace = Some(path.clone());
    let (mut d, _) = device(&o);
    d.finish("test");
    assert!(trace_lines(&path)[0].get("wopcm_prelocked").is_none());
    let _ = std::fs::remove_file(&path);
}

// ---- the interrupt controller, wired ---------------------------------------

mod interrupts {
    use super::*;
    use crate::control::Request;
    use crate::regfile::intc::Severity;

    const TILE: u64 = 0x19_0008;
    const PRIMARY: u64 = 0x19_0010;
    const RENDER_COPY_INTR_ENABLE: u64 = 0x19_0030;
    const VCS_VECS_INTR_ENABLE: u64 = 0x19_0034;
    const GUC_SG_INTR_ENABLE: u64 = 0x19_0038;
    const RCS0_RSVD_INTR_MASK: u64 = 0x19_0090;
    const GUC_SG_INTR_MASK: u64 = 0x19_00E8;
    const GDRST: u64 = 0x941C;
    const GUC2HOST: u32 = 1 << 15;
    /// GuC identity: DataValid, class Other (4), instance 0, bit 15.
    const GUC_IDENTITY: u32 = 0x8004_8000;
    /// RCS0 identity: DataValid, class Render (0), instance 0, bit 0.
    const RCS0_IDENTITY: u32 = 0x8000_0001;

    fn request(d: &mut Device, text: &str) {
        d.control(Request::parse(text).expect("request"));
    }

    /// A device with its MSI wired to an eventfd.
    fn wired(o: &Options) -> (Device, ManualClock, File) {
        let (mut d, clock) = device(o);
        let efd = eventfd();
        d.set_irqs(
            1,
            VFIO_IRQ_SET_ACTION_TRIGGER | VFIO_IRQ_SET_DATA_EVENTFD,
            0,
            1,
            vec![efd.try_clone().expect("dup")],
        )
        .expect("set_irqs");
        (d, clock, efd)
    }

    /// Upstream's post-install for the GuC and RCS0 (user interrupt and
    /// context switch), VCS/VECS enabled but masked, tile enable on.
    fn arm(d: &mut Device) {
        write32(d, GUC_SG_INTR_ENABLE, GUC2HOST << 16);
        write32(d, GUC_SG_INTR_MASK, !(GUC2HOST << 16));
        write32(d, RENDER_COPY_INTR_ENABLE, 0x0101_0101);
        write32(d, RCS0_RSVD_INTR_MASK, !0x0101_0000);
        write32(d, VCS_VECS_INTR_ENABLE, 0x0001_0001);
        write32(d, TILE, 1 << 31);
    }

    /// One pass of the PRM's ISR through BAR0: the identities, in order.
    fn isr(d: &mut Device) -> Vec<u32> {
        let mut out = Vec::new();
        write32(d, TILE, 0);
        let tiles = read32(d, TILE);
        if tiles & 1 != 0 {
            write32(d, TILE, tiles);
            let master = read32(d, PRIMARY);
            write32(d, PRIMARY, master);
            for bank in 0..2u64 {
                if master & 1 << bank == 0 {
                    continue;
                }
                let dw = read32(d, 0x19_0018 + 4 * bank);
                for bit in 0..32 {
                    if dw & 1 << bit == 0 {
                        continue;
                    }
                    write32(d, 0x19_0070 + 4 * bank, 1 << bit);
                    let ident = read32(d, 0x19_0060 + 4 * bank);
                    if ident & 1 << 31 != 0 {
                        write32(d, 0x19_0060 + 4 * bank, ident);
                    }
                    out.push(ident);
                }
                write32(d, 0x19_0018 + 4 * bank, dw);
            }
        }
        write32(d, TILE, 1 << 31);
        out
    }

    /// The interrupt registers answer with every forcewake domain asleep,
    /// without a violation: 0x190000 is in the PRM table's hole, the error
    /// registers in the always-on 0x100000 block.
    #[test]
    fn intc_registers_are_dispatched_and_need_no_forcewake() {
        let (mut d, _) = device(&opts());
        write32(&mut d, GUC_SG_INTR_ENABLE, 0x8000_0000);
        assert_eq!(read32(&mut d, GUC_SG_INTR_ENABLE), 0x8000_0000);
        assert_eq!(read32(&mut d, GUC_SG_INTR_MASK), u32::MAX, "reset value");
        for r in crate::regs::REGISTERS
            .iter()
            .filter(|r| r.offset >= 0x19_0008 && r.offset <= 0x19_0104)
        {
            read32(&mut d, r.offset.into());
        }
        d.control(Request::GtError {
            sev: Severity::Correctable,
            bits: 2,
        });
        assert_eq!(read32(&mut d, 0x10_0160), 2);
        assert_eq!(read32(&mut d, 0x10_017C), 1);
        let s = d.summary();
        assert_eq!((s.violations, s.unknown_accesses), (0, 0));
        assert_eq!(s.reg_reads.get("GT_INTR_DW1"), Some(&1));
        assert_eq!(s.irq.gt_errors.get("correctable"), Some(&1));
        assert_eq!(s.irq.msis, 0, "tile enable off: no MSI");
    }

    /// One GuC event: one MSI on the eventfd, one identity, counted per
    /// source; the summary agrees with the model's own counters.
    #[test]
    fn one_event_one_msi_one_identity() {
        let (mut d, _, efd) = wired(&opts());
        arm(&mut d);
        assert_eq!(drain(&efd), 0);
        request(&mut d, "irq:guc:8000:1");
        assert_eq!(drain(&efd), 1);
        assert_eq!(isr(&mut d), vec![GUC_IDENTITY]);
        assert_eq!(drain(&efd), 0, "nothing more");
        let s = d.summary();
        assert_eq!(
            (s.irq.raised, s.irq.msis, s.irq.identities_total),
            (1, 1, 1)
        );
        assert_eq!(s.irq.identities.get("guc"), Some(&1));
        assert_eq!(s.irq.control_requests, 1);
        assert_eq!((s.irqs, s.violations), (1, 0));
        let st = d.regs.intc().stats();
        assert_eq!(
            (st.raised, st.dropped_disabled, st.msis, st.identities),
            (
                s.irq.raised,
                s.irq.dropped_disabled,
                s.irq.msis,
                s.irq.identities_total
            )
        );
    }

    /// COUNT events are raised one at a time: the next only once the
    /// driver cleared the previous identity. 1000 injected, 1000 MSIs,
    /// 1000 identities, none merged, none lost.
    #[test]
    fn paced_count_is_exact() {
        let (mut d, _, efd) = wired(&opts());
        arm(&mut d);
        request(&mut d, "irq:guc:8000:1000");
        assert_eq!(d.summary().irq.raised, 1, "one at a time");
        for i in 0..1000 {
            assert_eq!(drain(&efd), 1, "event {i}");
            assert_eq!(isr(&mut d), vec![GUC_IDENTITY], "event {i}");
        }
        assert_eq!(drain(&efd), 0);
        assert!(isr(&mut d).is_empty());
        let s = d.summary();
        assert_eq!(
            (s.irq.raised, s.irq.msis, s.irq.identities_total),
            (1000, 1000, 1000)
        );
        assert_eq!(s.irq.identities.get("guc"), Some(&1000));
        assert_eq!((s.irqs, s.violations), (1000, 0));
    }

    /// Without the identity clear the next event does not come, however
    /// long the driver takes; two sources pace independently.
    #[test]
    fn next_event_waits_for_the_identity_clear() {
        let (mut d, _, efd) = wired(&opts());
        arm(&mut d);
        request(&mut d, "irq:guc:8000:2");
        request(&mut d, "irq:rcs0:1:2");
        assert_eq!(
            drain(&efd),
            1,
            "one MSI: the second event found it asserted"
        );
        // Select the GuC but do not clear its identity yet.
        write32(&mut d, TILE, 0);
        write32(&mut d, TILE, 1);
        write32(&mut d, PRIMARY, 1);
        assert_eq!(read32(&mut d, 0x19_0018), 1 << 25 | 1);
        write32(&mut d, 0x19_0070, 1 << 25);
        assert_eq!(read32(&mut d, 0x19_0060), GUC_IDENTITY);
        assert_eq!(d.summary().irq.raised, 2, "guc 1 + rcs0 1");
        write32(&mut d, 0x19_0060, GUC_IDENTITY);
        assert_eq!(d.summary().irq.raised, 3, "the second guc event");
        write32(&mut d, 0x19_0070, 1);
        assert_eq!(read32(&mut d, 0x19_0060), RCS0_IDENTITY);
        write32(&mut d, 0x19_0060, RCS0_IDENTITY);
        write32(&mut d, 0x19_0018, 1 << 25 | 1);
        write32(&mut d, TILE, 1 << 31);
        assert_eq!(drain(&efd), 1, "the second events' DW event");
        let mut got = isr(&mut d);
        got.sort_unstable();
        assert_eq!(got, vec![RCS0_IDENTITY, GUC_IDENTITY]);
        assert!(isr(&mut d).is_empty());
        let s = d.summary();
        assert_eq!(s.irq.identities.get("guc"), Some(&2));
        assert_eq!(s.irq.identities.get("rcs0"), Some(&2));
        assert_eq!(s.violations, 0);
    }

    /// A masked source: the first event waits in the collapsing register
    /// (no MSI), the rest behind it; unmasking delivers them one by one.
    #[test]
    fn masked_then_unmasked_delivers_every_event_once() {
        let (mut d, _, efd) = wired(&opts());
        arm(&mut d);
        write32(&mut d, GUC_SG_INTR_MASK, u32::MAX);
        request(&mut d, "irq:guc:8000:3");
        assert_eq!(drain(&efd), 0);
        assert!(isr(&mut d).is_empty());
        let s = d.summary();
        assert_eq!((s.irq.raised, s.irq.dropped_disabled), (1, 0));
        write32(&mut d, GUC_SG_INTR_MASK, !(GUC2HOST << 16));
        for i in 0..3 {
            assert_eq!(drain(&efd), 1, "event {i}");
            assert_eq!(isr(&mut d), vec![GUC_IDENTITY], "event {i}");
        }
        assert_eq!(drain(&efd), 0);
        assert_eq!(d.summary().irq.identities_total, 3);
    }

    /// A disabled source drops every event at once, counted.
    #[test]
    fn disabled_source_drops_every_event() {
        let (mut d, _, efd) = wired(&opts());
        arm(&mut d);
        request(&mut d, "irq:vcs3:10:5");
        assert_eq!(drain(&efd), 0);
        let s = d.summary();
        assert_eq!((s.irq.raised, s.irq.dropped_disabled), (5, 5));
        assert_eq!(s.irq.dropped_by_source.get("vcs3"), Some(&5));
        assert_eq!(s.irq.injections_abandoned, 0);
    }

    /// A spurious MSI has nothing behind it, also after a surprise removal
    /// (where the driver reads all ones); interrupt requests after the
    /// removal raise nothing.
    #[test]
    fn spurious_msi_also_after_surprise_removal() {
        let (mut d, _, efd) = wired(&opts());
        arm(&mut d);
        request(&mut d, "spurious-msi");
        assert_eq!(drain(&efd), 1);
        assert!(isr(&mut d).is_empty());
        request(&mut d, "surprise-removal");
        assert_eq!(read32(&mut d, TILE), u32::MAX);
        request(&mut d, "spurious-msi");
        assert_eq!(drain(&efd), 1);
        request(&mut d, "irq:guc:8000:4");
        assert_eq!(drain(&efd), 0);
        let s = d.summary();
        assert_eq!(s.irq.spurious_msis, 2);
        assert_eq!((s.irqs, s.irq.msis), (2, 0));
        assert_eq!(s.surprise_removals, 1);
        assert_eq!(s.irq.injections_abandoned, 4);
        assert_eq!(s.irq.control_requests, 4);
    }

    /// A function reset and a Driver-FLR reset the controller and drop the
    /// paced events still waiting.
    #[test]
    fn resets_clear_the_controller_and_abandon_injections() {
        let (mut d, _, efd) = wired(&opts());
        arm(&mut d);
        request(&mut d, "irq:guc:8000:10");
        assert_eq!(drain(&efd), 1);
        d.reset("vfio_user");
        assert_eq!(read32(&mut d, GUC_SG_INTR_ENABLE), 0);
        assert_eq!(read32(&mut d, PRIMARY), 0);
        assert_eq!(d.summary().irq.injections_abandoned, 9);
        arm(&mut d);
        request(&mut d, "irq:guc:8000:3");
        assert_eq!(drain(&efd), 1);
        write32(&mut d, GU_CNTL, 1 << 31);
        assert_eq!(read32(&mut d, GUC_SG_INTR_ENABLE), 0, "Driver-FLR");
        assert_eq!(read32(&mut d, TILE), 0);
        assert_eq!(d.summary().irq.injections_abandoned, 11);
    }

    /// `irq-on-guc-reset`: a GuC reset through GDRST raises the GuC's
    /// GUC2HOST and RCS0's user interrupt; a stuck reset raises nothing.
    #[test]
    fn irq_on_guc_reset_fault() {
        let mut o = opts();
        o.faults.push(Fault::IrqOnGucReset);
        let (mut d, clock, efd) = wired(&o);
        arm(&mut d);
        write32(&mut d, 0xA188, 0x0001_0001);
        clock.advance_ms(1);
        write32(&mut d, GDRST, 1 << 3);
        assert_eq!(drain(&efd), 1);
        assert_eq!(isr(&mut d), vec![RCS0_IDENTITY, GUC_IDENTITY]);
        let s = d.summary();
        assert_eq!(s.guc_resets, 1);
        assert_eq!(s.irq.identities.get("rcs0"), Some(&1));
        // Without the fault a GuC reset interrupts nobody.
        let (mut d, clock, efd) = wired(&opts());
        arm(&mut d);
        write32(&mut d, 0xA188, 0x0001_0001);
        clock.advance_ms(1);
        write32(&mut d, GDRST, 1 << 3);
        assert_eq!(drain(&efd), 0);
        assert_eq!(d.summary().irq.raised, 0);
    }

    /// The CLI's interrupt faults reach the controller.
    #[test]
    fn cli_faults_reach_the_controller() {
        let o = Options::try_parse_args([
            "xehpg-mock",
            "--socket",
            "/tmp/s",
            "--fault",
            "irq-storm=guc",
            "--fault",
            "irq-identity-garbage",
        ])
        .expect("parses");
        let (mut d, _, efd) = wired(&o);
        arm(&mut d);
        request(&mut d, "irq:guc:8000:1");
        for pass in 0..5 {
            assert_eq!(drain(&efd), 1, "pass {pass}");
            // Class 7, instance 63, the real data.
            assert_eq!(isr(&mut d), vec![0x83F7_8000], "pass {pass}");
        }
        write32(&mut d, GUC_SG_INTR_MASK, u32::MAX);
        assert_eq!(drain(&efd), 1, "the one in flight");
        isr(&mut d);
        assert_eq!(drain(&efd), 0, "masked: quiet");
        let o = Options::try_parse_args([
            "xehpg-mock",
            "--socket",
            "/tmp/s",
            "--fault",
            "irq-data-valid-never",
        ])
        .expect("parses");
        let (mut d, _, efd) = wired(&o);
        arm(&mut d);
        request(&mut d, "irq:guc:8000:2");
        assert_eq!(drain(&efd), 1);
        assert_eq!(isr(&mut d), vec![0]);
        // The lost event's selection ended its service: the next comes.
        assert_eq!(drain(&efd), 1);
        assert_eq!(isr(&mut d), vec![0]);
        assert_eq!(d.summary().irq.identities_total, 0);
        assert_eq!(d.summary().irq.raised, 2);
    }

    /// `--no-msi`: no MSI capability, and the interrupt goes out on INTx,
    /// automasked until QEMU's unmask; a line still up at the unmask
    /// interrupts again, one that is down does not.
    #[test]
    fn no_msi_falls_back_to_intx_as_a_level() {
        use vfio_bindings::bindings::vfio::VFIO_IRQ_SET_ACTION_UNMASK;
        use vfio_bindings::bindings::vfio::VFIO_IRQ_SET_DATA_NONE;
        let mut o = opts();
        o.no_msi = true;
        let (mut d, _) = device(&o);
        let mut b = [0u8; 2];
        d.region_read(CONFIG, 0x40, &mut b).expect("config");
        assert_eq!(b, [0x10, 0x00], "PCIe capability, the last one");
        let intx = eventfd();
        d.set_irqs(
            0,
            VFIO_IRQ_SET_ACTION_TRIGGER | VFIO_IRQ_SET_DATA_EVENTFD,
            0,
            1,
            vec![intx.try_clone().expect("dup")],
        )
        .expect("set_irqs");
        let unmask = |d: &mut Device| {
            d.set_irqs(
                0,
                VFIO_IRQ_SET_ACTION_UNMASK | VFIO_IRQ_SET_DATA_NONE,
                0,
                1,
                Vec::new(),
            )
            .expect("unmask");
        };
        arm(&mut d);
        request(&mut d, "irq:guc:8000:2");
        assert_eq!(drain(&intx), 1);
        // QEMU has not unmasked yet: the second event's edge finds the line
        // up and masked, nothing more goes out ...
        assert_eq!(isr(&mut d), vec![GUC_IDENTITY]);
        assert_eq!(drain(&intx), 0);
        // ... until the unmask, with the line still up.
        unmask(&mut d);
        assert_eq!(drain(&intx), 1);
        assert_eq!(isr(&mut d), vec![GUC_IDENTITY]);
        unmask(&mut d);
        assert_eq!(drain(&intx), 0, "line down: no interrupt at the unmask");
        request(&mut d, "spurious-msi");
        assert_eq!(drain(&intx), 1, "spurious, on INTx");
        unmask(&mut d);
        assert_eq!(drain(&intx), 0);
        let s = d.summary();
        assert_eq!((s.irqs, s.irqs_dropped), (3, 0));
        assert_eq!(s.irq.identities_total, 2);
    }

    #[test]
    fn gt_error_request_interrupts() {
        let (mut d, _, efd) = wired(&opts());
        arm(&mut d);
        request(&mut d, "gt-error:fatal:8");
        assert_eq!(drain(&efd), 1);
        assert_eq!(read32(&mut d, PRIMARY), 1 << 28);
        assert_eq!(read32(&mut d, 0x10_0168), 8);
        assert_eq!(read32(&mut d, 0x10_0174), 1);
        assert_eq!(d.summary().irq.gt_errors.get("fatal"), Some(&1));
    }
}

/// The driver's clear of a window through the device: after `lmem:dirty`
/// (memory and CCS a previous owner's), BCS0 runs the fill and one
/// XY_CTRL_SURF_COPY_BLT direct(window) -> indirect(window) of 1 block:
/// the window's 64 KiB are zero and so is their CCS; the CCS of the dirty
/// memory past the block keeps the dirt.
#[test]
fn a_window_and_its_ccs_cleared_through_the_device() {
    use crate::ccs::index;
    use crate::control::Request;
    const BCS0: u64 = 0x2_2000;
    let (mut d, clock) = device(&opts());
    write32(&mut d, 0xA188, 0x0001_0001);
    clock.advance(Duration::from_micros(20));
    // GGTT 0x80_0000.. -> LMEM 0x1_0000..: HWSP, ring, LRC (2 pages); the
    // window GGTT 0x90_0000 -> LMEM 0x20_0000, 64 KiB.
    for i in 0..4 {
        map_lmem_page(&mut d, 0x80_0000 + i * 0x1000, 0x1_0000 + i * 0x1000);
    }
    for i in 0..16 {
        map_lmem_page(&mut d, 0x90_0000 + i * 0x1000, 0x20_0000 + i * 0x1000);
    }
    d.control(Request::parse("lmem:dirty:200000:20000").expect("request"));
    let lmem_w = |d: &mut Device, lmem: u64, words: &[u32]| {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        d.region_write(BAR2, lmem, &bytes).expect("LMEMBAR");
    };
    let (hwsp, ring, lrca, win) = (0x80_0000u32, 0x80_1000u32, 0x80_2000u32, 0x90_0000u32);
    let mut cmds = vec![0u32; 16];
    cmds[0] = (2 << 29) | (0x44 << 22) | (2 << 19) | 14;
    cmds[1] = 4096 - 1;
    cmds[3] = 16 << 16 | 1024;
    cmds[4] = win;
    let mocs = 3 << 26;
    cmds.extend([(2 << 29) | (0x48 << 22) | 3 | 1 << 21, win, mocs, win, mocs]);
    cmds.push(0);
    lmem_w(&mut d, 0x1_1000, &cmds);
    let tail = 4 * cmds.len() as u32;
    let b = BCS0 as u32;
    lmem_w(
        &mut d,
        0x1_3000,
        &[
            0,
            0x1108_1007,
            b + 0x34,
            0,
            b + 0x30,
            tail,
            b + 0x38,
            ring,
            b + 0x3c,
            1,
            0x0500_0001,
        ],
    );
    write32(&mut d, BCS0 + 0x80, hwsp);
    write32(&mut d, BCS0 + 0x29c, 0x0008_0008);
    write32(&mut d, BCS0 + 0x3a0, 0xffff_0000 | 11 << 8 | 11);
    write32(&mut d, BCS0 + 0x510, lrca | 0x19);
    write32(&mut d, BCS0 + 0x514, 7 << 7);
    write32(&mut d, BCS0 + 0x550, 1);
    d.tick();
    assert_eq!(read32(&mut d, BCS0 + 0x234) & 1, 0, "complete");
    let mut w = vec![0xffu8; 64 << 10];
    d.region_read(BAR2, 0x20_0000, &mut w).expect("LMEMBAR");
    assert!(w.iter().all(|&x| x == 0), "the window is zero");
    assert_eq!(d.ccs.first_not_zero(index(0x20_0000), 256), None);
    assert_eq!(
        d.ccs.get(index(0x21_0000)),
        Some(crate::control::CCS_DIRTY_BYTE),
        "past the block"
    );
    let s = d.summary();
    let c = &s.engines.by_engine["bcs0"];
    assert_eq!((c.fills, c.fill_bytes, c.errors), (1, 64 << 10, 0));
    assert_eq!(
        (c.ccs_copies, c.ccs_bytes, c.ccs_cleared_bytes),
        (1, 256, 256)
    );
}

/// The command streamers through the device: BCS0's registers in BAR0, the
/// LRC, ring and HWSP in LMEM behind the GGTT window; a semaphore released
/// by a host write to LMEMBAR is re-polled by the tick; the `engine:`
/// control requests reach the engine; the summary and trace say what ran.
#[test]
fn engine_submission_through_the_device() {
    use crate::control::Request;
    const BCS0: u64 = 0x2_2000;
    let trace = temp("engine-trace.jsonl");
    let mut o = opts();
    o.trace = Some(trace.clone());
    let (mut d, clock) = device(&o);
    write32(&mut d, 0xA188, 0x0001_0001);
    clock.advance(Duration::from_micros(20));
    assert_eq!(read32(&mut d, 0x13_0044), 1, "GT awake");
    // GGTT 0x80_0000.. -> LMEM 0x1_0000..: HWSP, ring, LRC (2 pages), data.
    for i in 0..5 {
        map_lmem_page(&mut d, 0x80_0000 + i * 0x1000, 0x1_0000 + i * 0x1000);
    }
    let lmem_w = |d: &mut Device, lmem: u64, words: &[u32]| {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        d.region_write(BAR2, lmem, &bytes).expect("LMEMBAR");
    };
    let lmem_r = |d: &mut Device, lmem: u64| {
        let mut b = [0u8; 4];
        d.region_read(BAR2, lmem, &mut b).expect("LMEMBAR");
        u32::from_le_bytes(b)
    };
    let (hwsp, ring, lrca, data) = (0x80_0000u32, 0x80_1000u32, 0x80_2000u32, 0x80_4000u32);
    // Ring: wait for data == 1, store 0x55 at data + 8, user interrupt.
    let sem = 0x1c << 23 | 1 << 22 | 1 << 15 | 4 << 12 | 3;
    let sdi = 0x20 << 23 | 1 << 22 | 2;
    let cmds = [sem, 1, data, 0, 0, sdi, data + 8, 0, 0x55, 0x02 << 23];
    lmem_w(&mut d, 0x1_1000, &cmds);
    let tail = 4 * cmds.len() as u32;
    let b = BCS0 as u32;
    lmem_w(
        &mut d,
        0x1_3000,
        &[
            0,
            0x1108_1007,
            b + 0x34,
            0,
            b + 0x30,
            tail,
            b + 0x38,
            ring,
            b + 0x3c,
            1,
            0x0500_0001,
        ],
    );
    write32(&mut d, BCS0 + 0x80, hwsp);
    write32(&mut d, BCS0 + 0x29c, 0x0008_0008);
    write32(&mut d, BCS0 + 0x3a0, 0xffff_0000 | 11 << 8 | 11);
    write32(&mut d, BCS0 + 0x510, lrca | 0x19);
    write32(&mut d, BCS0 + 0x514, 7 << 7);
    write32(&mut d, BCS0 + 0x550, 1);
    assert_eq!(read32(&mut d, BCS0 + 0x234) & 1, 1, "waiting");
    lmem_w(&mut d, 0x1_4000, &[1]);
    assert_eq!(lmem_r(&mut d, 0x1_4008), 0, "nobody looked yet");
    d.tick();
    assert_eq!(lmem_r(&mut d, 0x1_4008), 0x55);
    assert_eq!(read32(&mut d, BCS0 + 0x234) & 1, 0, "complete");
    assert_eq!(lmem_r(&mut d, 0x1_3000 + 4 * 3), tail, "RING_HEAD saved");
    // HWSP write pointer (DW 0x2f) after two entries.
    assert_eq!(lmem_r(&mut d, 0x1_0000 + 4 * 0x2f), 1);
    // engine:hang through the control request: the next context stalls.
    d.control(Request::parse("engine:hang:bcs0").expect("request"));
    lmem_w(&mut d, 0x1_3000 + 4 * 3, &[0]);
    write32(&mut d, BCS0 + 0x550, 1);
    d.tick();
    assert_eq!(read32(&mut d, BCS0 + 0x234) & 1, 1, "hung");
    let s = d.summary();
    let c = &s.engines.by_engine["bcs0"];
    assert_eq!((c.loads, c.contexts_completed, c.csb_entries), (2, 1, 3));
    assert_eq!((c.commands, c.user_interrupts), (3, 1));
    assert_eq!(s.reg_writes.get("RING_EXECLIST_CONTROL"), Some(&2));
    // Every present engine has its counters from the start, none other.
    assert_eq!(s.engines.by_engine["vecs1"], Default::default());
    assert!(!s.engines.by_engine.contains_key("vcs1"));
    assert_eq!(s.engines.by_engine.len(), 10);
    assert_eq!(
        (s.violations, s.unknown_accesses),
        (0, 0),
        "{:?}",
        s.violation_kinds
    );
    // A fused-off engine's window (vcs1) is unknown and unnamed.
    let head_reads = s.reg_reads.get("RING_HEAD").copied();
    assert_eq!(read32(&mut d, 0x1C_4034), 0);
    let s = d.summary();
    assert_eq!(s.unknown_accesses, 1);
    assert_eq!(s.reg_reads.get("RING_HEAD").copied(), head_reads);
    let lines = trace_lines(&trace);
    let evs: Vec<_> = lines
        .iter()
        .filter_map(|l| l["ev"].as_str())
        .filter(|e| e.starts_with("engine_"))
        .collect();
    assert_eq!(
        evs,
        [
            "engine_load",
            "engine_switch",
            "engine_run",
            "engine_complete",
            "engine_switch",
            "engine_fault",
            "engine_load",
            "engine_switch",
            "engine_fault"
        ]
    );
    let _ = std::fs::remove_file(&trace);
}

/// The SR-IOV capability is the ATS-M PF's only: not a DG2's, not a VF's;
/// an illegal SR-IOV write reaches the summary as a violation.
#[test]
fn sriov_capability_only_on_the_ats_m_pf() {
    let cap = |o: &Options| {
        let (mut d, _) = device(o);
        let mut b = [0u8; 4];
        d.region_read(CONFIG, 0x10E, &mut b).expect("TotalVFs");
        u16::from_le_bytes([b[0], b[1]])
    };
    assert_eq!(cap(&opts()), 63);
    let mut dg2 = opts();
    dg2.device_id = 0x56A0;
    assert_eq!(cap(&dg2), 0);
    let mut vf = opts();
    vf.vf = true;
    assert_eq!(cap(&vf), 0);
    let (mut d, _) = device(&opts());
    d.region_write(CONFIG, 0x110, &64u16.to_le_bytes())
        .expect("NumVFs");
    assert_eq!(d.summary().violations, 1);
}

/// VF 1 served as its own function (`guest_vf.rs`), VFs enabled or not.
fn guest_vf_device(enable: u16) -> Device {
    let mut o = opts();
    o.vf_sockets = vec![(1, PathBuf::from("/nonexistent/vf1.sock"))];
    let (mut d, _) = device(&o);
    let cap = crate::config_space::sriov::SRIOV_CAP as u64;
    d.region_write(CONFIG, cap + 0x10, &enable.to_le_bytes())
        .expect("NumVFs");
    if enable > 0 {
        d.region_write(CONFIG, cap + 0x08, &0x9u16.to_le_bytes())
            .expect("VF Enable and MSE");
    }
    d
}

fn vf_read32(d: &mut Device, region: u32, off: u64) -> u32 {
    let mut b = [0u8; 4];
    d.vf_region_read(1, region, off, &mut b).expect("VF read");
    u32::from_le_bytes(b)
}

#[test]
fn a_vf_function_is_absent_until_its_pf_enables_it() {
    let mut d = guest_vf_device(0);
    assert_eq!(vf_read32(&mut d, CONFIG, 0), 0xFFFF_FFFF);
    assert_eq!(vf_read32(&mut d, BAR0, 0x19_01F8), 0xFFFF_FFFF);
    assert_eq!(d.summary().vf_guest[&1].blocked["absent"], 1);
    let mut d = guest_vf_device(2);
    // The VF's identity: Intel, the VF Device ID (the PF's), VF_CAP set.
    assert_eq!(vf_read32(&mut d, CONFIG, 0), 0x56C0_8086);
    assert_eq!(vf_read32(&mut d, BAR0, 0x19_01F8), 1);
    // A VF not served has no socket, no function.
    let mut b = [0u8; 4];
    assert!(d.vf_region_read(2, CONFIG, 0, &mut b).is_err());
    // Unmodelled VF registers read 0 and are recorded.
    assert_eq!(vf_read32(&mut d, BAR0, 0x2358), 0);
    let g = d.summary().vf_guest[&1].clone();
    assert_eq!(g.unknown["read@0x2358"], 1);
    assert!(g.blocked.is_empty(), "{:?}", g.blocked);
    // "Initiate FLR" in the VF's own Device Control resets the VF.
    let devctl = crate::config_space::PCIE_CAP as u64 + 8;
    d.vf_region_write(1, CONFIG, devctl, &0x8000u16.to_le_bytes())
        .expect("FLR");
    assert_eq!(d.summary().vf_guest[&1].counts["reset"], 1);
}

#[test]
fn a_vf_ggtt_view_shows_only_its_own_entries() {
    let mut d = guest_vf_device(2);
    // The PF stamps entry 0x10 with VF 1 (bits 11:2) and present; entry
    // 0x11 is VF 2's.
    let own: u64 = 0xAB_C000 | 1 << 2 | 1;
    let other: u64 = 0xDE_F000 | 2 << 2 | 1;
    d.region_write(BAR0, GGTT_START + 0x80, &own.to_le_bytes())
        .expect("PF write");
    d.region_write(BAR0, GGTT_START + 0x88, &other.to_le_bytes())
        .expect("PF write");
    let mut b = [0u8; 8];
    // Matching: all but the function number.
    d.vf_region_read(1, BAR0, GGTT_START + 0x80, &mut b)
        .expect("read");
    assert_eq!(u64::from_le_bytes(b), 0xAB_C001);
    // A write keeps the function number and Valid.
    d.vf_region_write(1, BAR0, GGTT_START + 0x80, &0x12_3000u64.to_le_bytes())
        .expect("write");
    d.ggtt_read(0x80, &mut b).expect("in window");
    assert_eq!(u64::from_le_bytes(b), 0x12_3000 | 1 << 2 | 1);
    // Another function's entry: reads 0, the write dropped.
    d.vf_region_read(1, BAR0, GGTT_START + 0x88, &mut b)
        .expect("read");
    assert_eq!(u64::from_le_bytes(b), 0);
    d.vf_region_write(1, BAR0, GGTT_START + 0x88, &0u64.to_le_bytes())
        .expect("write");
    d.ggtt_read(0x88, &mut b).expect("in window");
    assert_eq!(u64::from_le_bytes(b), other);
    let g = d.summary().vf_guest[&1].clone();
    assert_eq!(g.blocked["ggtt_mismatch"], 2);
    assert_eq!((g.counts["ggtt_read"], g.counts["ggtt_write"]), (1, 1));
}

#[test]
fn a_vf_lmem_bar_without_an_lmtt_page_reads_ones() {
    let mut d = guest_vf_device(2);
    d.vf_region_write(1, BAR2, 0x1000, &[7; 8]).expect("write");
    let mut b = [0u8; 8];
    d.vf_region_read(1, BAR2, 0x1000, &mut b).expect("read");
    assert_eq!(b, [0xFF; 8]);
    // Local memory under it is untouched.
    d.region_read(BAR2, 0x1000, &mut b).expect("PF read");
    assert_eq!(b, [0; 8]);
    assert_eq!(d.summary().vf_guest[&1].blocked["lmem_unmapped"], 2);
    // Past the VF's BAR2: an error.
    let (_, bar2) = d.guest_vf_bars();
    assert!(d.vf_region_read(1, BAR2, bar2, &mut b).is_err());
}
