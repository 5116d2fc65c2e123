//! Each step's verdicts, from samples of what a host shows.

use super::*;
use crate::verdict::Verdict::{Fail, Pass, Skip, Warn};

fn gpu(bdf: &str, device: u16, driver: Option<&str>) -> Gpu {
    Gpu {
        bdf: bdf.into(),
        device,
        product: ids::product(device),
        driver: driver.map(String::from),
    }
}

#[test]
fn kernel() {
    assert_eq!(kernel_step(Ok("7.3.4+deb13-amd64\n")).verdict, Pass);
    assert_eq!(kernel_step(Ok("7.10.0")).verdict, Pass);
    let old = kernel_step(Ok("6.12.48+deb13-amd64"));
    assert_eq!(old.verdict, Fail);
    assert!(old.seen.contains("older than 7.3"), "{old}");
    assert_eq!(kernel_step(Ok("x")).verdict, Fail);
    assert_eq!(kernel_step(Err("gone".into())).verdict, Fail);
}

#[test]
fn firmware() {
    let s = firmware_step(Some(("/lib/firmware/i915/dg2_guc_70.bin", 300000)));
    assert_eq!(
        s.to_string(),
        "PASS firmware: /lib/firmware/i915/dg2_guc_70.bin (300000 bytes)"
    );
    let z = firmware_step(Some(("/usr/lib/firmware/i915/dg2_guc_70.bin.zst", 1000)));
    assert_eq!(z.verdict, Pass);
    assert!(z.seen.contains("compressed"));
    assert_eq!(
        firmware_step(Some(("/lib/firmware/i915/dg2_guc_70.bin", 0))).verdict,
        Fail
    );
    assert_eq!(firmware_step(None).verdict, Fail);
}

#[test]
fn firmware_search_order() {
    let t = tempfile::tempdir().unwrap();
    let r = Root::new(t.path());
    assert_eq!(find_firmware(&r), None);
    std::fs::create_dir_all(t.path().join("usr/lib/firmware/i915")).unwrap();
    std::fs::write(
        t.path().join("usr/lib/firmware/i915/dg2_guc_70.bin.zst"),
        "zz",
    )
    .unwrap();
    assert_eq!(
        find_firmware(&r),
        Some(("/usr/lib/firmware/i915/dg2_guc_70.bin.zst".into(), 2))
    );
    std::fs::create_dir_all(t.path().join("lib/firmware/i915")).unwrap();
    std::fs::write(t.path().join("lib/firmware/i915/dg2_guc_70.bin"), "abc").unwrap();
    assert_eq!(
        find_firmware(&r),
        Some(("/lib/firmware/i915/dg2_guc_70.bin".into(), 3))
    );
}

#[test]
fn iommu() {
    let s = iommu_step(
        &["dmar0".into(), "dmar1".into()],
        40,
        "intel_iommu=on iommu=pt",
    );
    assert_eq!(s.verdict, Pass);
    assert_eq!(s.seen, "dmar0 dmar1 (40 groups; intel_iommu=on iommu=pt)");
    // AMD hosts register their IOMMU without a word on the command line.
    assert_eq!(iommu_step(&["ivhd0".into()], 12, "quiet").verdict, Pass);
    let asked = iommu_step(&[], 0, "intel_iommu=on");
    assert_eq!(asked.verdict, Warn);
    assert!(asked.todo.contains("VT-d"), "{asked}");
    let none = iommu_step(&[], 0, "console=ttyS0");
    assert_eq!(none.verdict, Warn);
    assert!(none.todo.contains("intel_iommu=on iommu=pt"));
    let off = iommu_step(&["dmar0".into()], 3, "intel_iommu=off");
    assert_eq!(off.verdict, Warn);
    assert!(off.seen.contains("intel_iommu=off"));
}

#[test]
fn pci_choice() {
    let igpu = gpu("0000:00:02.0", 0xa780, Some("i915"));
    let flex = gpu("0000:03:00.0", 0x56c0, None);
    let arc = gpu("0000:04:00.0", 0x56a0, Some("xe"));
    let all = [igpu.clone(), flex.clone(), arc.clone()];
    assert_eq!(choose(&all, None).unwrap(), &flex);
    assert_eq!(choose(&all, Some("0000:04:00.0")).unwrap(), &arc);
    assert_eq!(
        choose(&all, Some("0000:00:02.0")).unwrap_err().verdict,
        Fail
    );
    assert_eq!(
        choose(&all, Some("0000:09:00.0")).unwrap_err().verdict,
        Fail
    );
    let only_igpu = choose(std::slice::from_ref(&igpu), None).unwrap_err();
    assert!(only_igpu.seen.contains("8086:a780"), "{only_igpu}");
    assert!(choose(&[], None)
        .unwrap_err()
        .seen
        .contains("no Intel display"));
    let s = pci_step(&flex, &all);
    assert_eq!(s.verdict, Pass);
    assert_eq!(
        s.seen,
        "0000:03:00.0 8086:56c0 ATS-M150 (1 more DG2/ATS-M: --device picks one)"
    );
    let s = pci_step(&arc, std::slice::from_ref(&arc));
    assert_eq!(s.verdict, Warn);
    assert!(s.seen.ends_with("bound to xe"), "{s}");
    let mine = gpu("0000:03:00.0", 0x56c1, Some("xehpg"));
    assert_eq!(
        pci_step(&mine, std::slice::from_ref(&mine)).to_string(),
        "PASS pci: 0000:03:00.0 8086:56c1 ATS-M75, bound to xehpg"
    );
}

/// A sysfs tree of PCI functions: an integrated GPU, a Flex PF and its VF,
/// a network card.
#[test]
fn gpus_from_sysfs() {
    let t = tempfile::tempdir().unwrap();
    let root = Root::new(t.path());
    let dev = |bdf: &str, vendor: &str, device: &str, class: &str| {
        let d = t.path().join("sys/bus/pci/devices").join(bdf);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("vendor"), format!("{vendor}\n")).unwrap();
        std::fs::write(d.join("device"), format!("{device}\n")).unwrap();
        std::fs::write(d.join("class"), format!("{class}\n")).unwrap();
        d
    };
    dev("0000:00:02.0", "0x8086", "0xa780", "0x030000");
    let pf = dev("0000:03:00.0", "0x8086", "0x56c0", "0x038000");
    let vf = dev("0000:03:00.1", "0x8086", "0x56c0", "0x038000");
    dev("0000:05:00.0", "0x8086", "0x1533", "0x020000");
    std::os::unix::fs::symlink("../0000:03:00.0", vf.join("physfn")).unwrap();
    std::os::unix::fs::symlink("../../../bus/pci/drivers/xehpg", pf.join("driver")).unwrap();
    let gpus = find_gpus(&root);
    assert_eq!(
        gpus,
        [
            gpu("0000:00:02.0", 0xa780, None),
            gpu("0000:03:00.0", 0x56c0, Some("xehpg")),
        ]
    );
}

#[test]
fn lockdown() {
    assert_eq!(
        lockdown_step(Some("none"), Some(false), true).to_string(),
        "PASS lockdown: lockdown none; Secure Boot off"
    );
    let sb = lockdown_step(Some("integrity"), Some(true), true);
    assert_eq!(sb.verdict, Warn);
    assert_eq!(sb.seen, "lockdown integrity; Secure Boot on");
    assert!(sb.todo.contains("signed"));
    assert_eq!(
        lockdown_step(Some("confidentiality"), None, true).verdict,
        Warn
    );
    let bios = lockdown_step(None, None, false);
    assert_eq!(bios.verdict, Pass);
    assert!(bios.seen.contains("not an EFI boot"), "{bios}");
}

#[test]
fn bar2() {
    let small = bar2_step(Some(256 << 20), Some(16 << 30));
    assert_eq!(
        small.to_string(),
        "WARN bar2: 256 MiB of 16 GiB local memory (small BAR) -- enable Resizable BAR in the firmware setup for a BAR over all of local memory"
    );
    assert_eq!(bar2_step(Some(16 << 30), Some(16 << 30)).verdict, Pass);
    assert_eq!(bar2_step(Some(32 << 30), Some(16 << 30)).verdict, Pass);
    let unknown = bar2_step(Some(256 << 20), None);
    assert_eq!(unknown.verdict, Pass);
    assert!(unknown.seen.contains("unknown until the driver is bound"));
    assert_eq!(bar2_step(Some(128 << 20), Some(16 << 30)).verdict, Fail);
    assert_eq!(bar2_step(Some(0), None).verdict, Fail);
    assert_eq!(bar2_step(None, None).verdict, Fail);
}

#[test]
fn selftest() {
    let line = |e: &str, done: u32, errno: i32, payload: &str| {
        format!("{e}: mode guc requests 10 completed {done} failed 0 errno {errno} payload {payload} latency_us median 1 p99 2 elapsed_us 3 rate 4/s loads 0 interrupts 10 mmio_reads 1 mmio_writes 1\n")
    };
    let good = format!(
        "runs: 1\n{}{}",
        line("rcs0", 10, 0, "ok"),
        line("bcs0", 10, 0, "ok")
    );
    let s = selftest_step(Some(Ok(good.clone())), 10, false);
    assert_eq!(
        s.to_string(),
        "PASS selftest: 10 requests on each of 2 engines (rcs0 bcs0)"
    );
    // The report is of another run's size.
    assert_eq!(selftest_step(Some(Ok(good)), 20, false).verdict, Fail);
    let bad = format!(
        "{}{}",
        line("rcs0", 10, 0, "ok"),
        line("ccs0", 4, -110, "unchecked")
    );
    let s = selftest_step(Some(Ok(bad)), 10, false);
    assert_eq!(s.verdict, Fail);
    assert!(s.seen.contains("ccs0 4 of 10 completed"), "{s}");
    assert!(!s.seen.contains("rcs0"), "{s}");
    assert_eq!(
        selftest_step(Some(Ok("runs: 0\n".into())), 10, false).verdict,
        Fail
    );
    assert_eq!(
        selftest_step(Some(Err("EBUSY".into())), 10, false).verdict,
        Fail
    );
    let denied = || Some(Err("submit: Operation not permitted (os error 1)".into()));
    // Lockdown refuses a debugfs file with write bits: not the driver's fault.
    let locked = selftest_step(denied(), 10, true);
    assert_eq!(locked.verdict, Warn);
    assert!(
        locked.seen.starts_with("refused under lockdown"),
        "{locked}"
    );
    assert_eq!(selftest_step(denied(), 10, false).verdict, Fail);
    let prod = selftest_step(None, 10, false);
    assert_eq!(prod.verdict, Warn);
    assert!(prod.seen.contains("not a test build"));
}

#[test]
fn sriov() {
    assert_eq!(sriov_plan(Some(63), 0, 2), Ok(2));
    assert_eq!(sriov_plan(Some(1), 0, 2), Ok(1));
    let none = sriov_plan(None, 0, 2).unwrap_err();
    assert_eq!(none.verdict, Skip);
    let zero = sriov_plan(Some(0), 0, 2).unwrap_err();
    assert_eq!(zero.verdict, Skip);
    assert!(zero.seen.contains("sriov_totalvfs is 0"));
    let busy = sriov_plan(Some(63), 4, 2).unwrap_err();
    assert!(busy.seen.contains("4 VFs already enabled"));
    assert_eq!(sriov_plan(Some(63), 0, 0).unwrap_err().seen, "--vfs 0");
}

#[test]
fn debugfs() {
    let read = vec!["info".to_string(), "ct".to_string()];
    assert_eq!(
        debugfs_step("/d", &read, &[]).to_string(),
        "PASS debugfs: read 2 of 2 files in /d"
    );
    let s = debugfs_step(
        "/d",
        &read,
        &[("submit".into(), "Operation not permitted".into())],
    );
    assert_eq!(s.verdict, Warn);
    assert!(s
        .seen
        .contains("read 2 of 3 files in /d; submit: Operation not permitted"));
    assert_eq!(debugfs_step("/d", &[], &[]).verdict, Fail);
}
