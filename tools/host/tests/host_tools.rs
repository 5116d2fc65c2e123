//! Both binaries run on fixture trees (`--root`): what a host with a Flex
//! card and the driver bound shows, and hosts with things wrong.

use std::path::Path;
use std::process::Command;

const BDF: &str = "0000:03:00.0";

/// Writes `data` at `abs` under `root`.
fn put(root: &Path, abs: &str, data: &[u8]) {
    let p = root.join(abs.trim_start_matches('/'));
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, data).unwrap();
}

fn link(root: &Path, abs: &str, target: &str) {
    let p = root.join(abs.trim_start_matches('/'));
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(target, p).unwrap();
}

/// A host with a Flex 170 bound to a production xehpg, 16 GiB of local
/// memory behind a 256 MiB BAR, SR-IOV off (max_vfs=0), no IOMMU, lockdown
/// integrity under Secure Boot.
fn flex_host(root: &Path) {
    put(root, "/proc/sys/kernel/osrelease", b"7.3.4+deb13-amd64\n");
    put(root, "/proc/sys/kernel/ostype", b"Linux\n");
    put(root, "/proc/sys/kernel/hostname", b"flex1\n");
    put(root, "/proc/sys/kernel/version", b"#1 SMP Debian 7.3.4-1\n");
    put(root, "/proc/version", b"Linux version 7.3.4+deb13-amd64\n");
    put(
        root,
        "/proc/cmdline",
        b"BOOT_IMAGE=/vmlinuz root=/dev/sda1 quiet\n",
    );
    put(
        root,
        "/etc/os-release",
        b"PRETTY_NAME=\"Debian GNU/Linux 13 (trixie)\"\n",
    );
    put(root, "/lib/firmware/i915/dg2_guc_70.bin", &[7u8; 4096]);
    std::fs::create_dir_all(root.join("sys/class/iommu")).unwrap();
    put(
        root,
        "/sys/kernel/security/lockdown",
        b"none [integrity] confidentiality\n",
    );
    put(
        root,
        "/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c",
        &[6, 0, 0, 0, 1],
    );
    let dev = format!("/sys/bus/pci/devices/{BDF}");
    put(root, &format!("{dev}/vendor"), b"0x8086\n");
    put(root, &format!("{dev}/device"), b"0x56c0\n");
    put(root, &format!("{dev}/class"), b"0x038000\n");
    put(root, &format!("{dev}/config"), &[0x86, 0x80, 0xc0, 0x56]);
    put(
        root,
        &format!("{dev}/resource"),
        b"0x0000000080000000 0x0000000080ffffff 0x0000000000140204\n\
0x0000000000000000 0x0000000000000000 0x0000000000000000\n\
0x0000004000000000 0x000000400fffffff 0x000000000014220c\n",
    );
    put(root, &format!("{dev}/sriov_totalvfs"), b"0\n");
    put(root, &format!("{dev}/sriov_numvfs"), b"0\n");
    link(
        root,
        &format!("{dev}/driver"),
        "../../../bus/pci/drivers/xehpg",
    );
    put(root, "/sys/module/xehpg/srcversion", b"0123ABCD\n");
    put(root, "/sys/module/xehpg/parameters/max_vfs", b"0\n");
    let dbg = format!("/sys/kernel/debug/xehpg/{BDF}");
    put(
        root,
        &format!("{dbg}/info"),
        b"platform: ATS-M150\nlmem_size: 0x400000000\n",
    );
    put(
        root,
        &format!("{dbg}/guc_info"),
        b"release: 70.53.0\nstatus: running\nlast_error: none\n",
    );
    put(root, &format!("{dbg}/engines"), b"rcs0 ...\n");
    put(
        root,
        "/dev/kmsg",
        format!("6,700,2345678,-;xehpg {BDF}: ATS-M150 rev 0x08 (stepping C0), 16384 MiB local memory, 32 DSS, bound\n SUBSYSTEM=pci\n")
            .as_bytes(),
    );
}

fn smoke(root: &Path, args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_xehpg-smoke"))
        .arg("--root")
        .arg(root)
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
    )
}

#[test]
fn smoke_on_a_flex_host_with_the_production_driver() {
    let t = tempfile::tempdir().unwrap();
    flex_host(t.path());
    let (code, out) = smoke(t.path(), &["--vfs", "2"]);
    let lines: Vec<&str> = out.lines().collect();
    let dbg = format!("/sys/kernel/debug/xehpg/{BDF}");
    assert_eq!(
        lines,
        [
            "PASS kernel: 7.3.4+deb13-amd64 (7.3 or newer needed)",
            "PASS firmware: /lib/firmware/i915/dg2_guc_70.bin (4096 bytes)",
            "WARN iommu: none registered, nothing on the command line -- for VFs in VMs: VT-d in the firmware setup and intel_iommu=on iommu=pt",
            "PASS pci: 0000:03:00.0 8086:56c0 ATS-M150, bound to xehpg",
            "WARN lockdown: lockdown integrity; Secure Boot on -- the module must be signed with an enrolled key (Documentation/install.rst), and debugfs files with write bits (selftest, controls) are refused",
            "PASS load: xehpg already loaded (srcversion 0123ABCD)",
            "PASS bound: 0000:03:00.0 bound to xehpg",
            "WARN bar2: 256 MiB of 16 GiB local memory (small BAR) -- enable Resizable BAR in the firmware setup for a BAR over all of local memory",
            "PASS guc: running, firmware release 70.53.0",
            "WARN selftest: not a test build (no debugfs submit) -- build with XEHPG_TEST=y to run the selftest; a production module has none",
            "SKIP sriov: sriov_totalvfs is 0: the driver offers no VFs (max_vfs=0, or dmesg says why)",
            &format!("PASS debugfs: read 3 of 3 files in {dbg}"),
            "xehpg-smoke: 7 passed, 4 warned, 0 failed, 1 skipped",
        ]
    );
    assert_eq!(code, 0);
}

#[test]
fn smoke_fails_on_an_old_kernel_without_firmware_and_a_dead_guc() {
    let t = tempfile::tempdir().unwrap();
    flex_host(t.path());
    put(
        t.path(),
        "/proc/sys/kernel/osrelease",
        b"6.12.48+deb13-amd64\n",
    );
    std::fs::remove_file(t.path().join("lib/firmware/i915/dg2_guc_70.bin")).unwrap();
    put(
        t.path(),
        &format!("/sys/kernel/debug/xehpg/{BDF}/guc_info"),
        b"status: failed\nlast_error: firmware request: -2\n",
    );
    let (code, out) = smoke(t.path(), &[]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("FAIL kernel: 6.12.48+deb13-amd64, older than 7.3"),
        "{out}"
    );
    assert!(
        out.contains("FAIL firmware: no i915/dg2_guc_70.bin"),
        "{out}"
    );
    assert!(
        out.contains("FAIL guc: failed (last_error firmware request: -2)"),
        "{out}"
    );
    assert!(
        out.ends_with("xehpg-smoke: 4 passed, 4 warned, 3 failed, 1 skipped\n"),
        "{out}"
    );
}

#[test]
fn smoke_before_installing() {
    let t = tempfile::tempdir().unwrap();
    flex_host(t.path());
    std::fs::remove_dir_all(t.path().join("sys/module/xehpg")).unwrap();
    std::fs::remove_file(t.path().join(format!("sys/bus/pci/devices/{BDF}/driver"))).unwrap();
    let (code, out) = smoke(t.path(), &["--no-load"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("PASS pci: 0000:03:00.0 8086:56c0 ATS-M150\n"),
        "{out}"
    );
    assert!(
        out.contains("SKIP load: xehpg not loaded (--no-load)"),
        "{out}"
    );
    assert!(
        out.contains("PASS bar2: 256 MiB (local memory unknown until the driver is bound)"),
        "{out}"
    );
    assert!(!out.contains("bound:"), "{out}");
}

/// A load that fails (the file is not a module) fails the step and the exit
/// status, and a file without a signature under lockdown is named.
#[test]
fn smoke_load_failure() {
    let t = tempfile::tempdir().unwrap();
    flex_host(t.path());
    std::fs::remove_dir_all(t.path().join("sys/module/xehpg")).unwrap();
    put(t.path(), "/m/xehpg.ko", b"not an ELF file");
    let (code, out) = smoke(t.path(), &["--load", "/m/xehpg.ko"]);
    assert_eq!(code, 1, "{out}");
    let load = out
        .lines()
        .find(|l| l.starts_with("FAIL load: "))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(load.contains("the file carries no signature"), "{load}");
    assert!(!out.contains("bound:"), "{out}");
}

#[test]
fn report_archive_from_a_tree() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("root");
    flex_host(&root);
    put(
        &root,
        "/sys/class/devcoredump/devcd1/data",
        b"coredump bytes",
    );
    link(
        &root,
        "/sys/class/devcoredump/devcd1/failing_device",
        &format!("../../../devices/pci0000:00/{BDF}"),
    );
    // A coredump whose read never ends (a FIFO nobody writes): the
    // bounded read gives up and the report goes on.
    let fifo = root.join("sys/class/devcoredump/devcd2");
    std::fs::create_dir_all(&fifo).unwrap();
    let c = std::ffi::CString::new(fifo.join("data").to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc_mkfifo(c.as_ptr(), 0o644) }, 0);
    let out_file = t.path().join("r.tar.gz");
    let out = Command::new(env!("CARGO_BIN_EXE_xehpg-report"))
        .arg("--root")
        .arg(&root)
        .args(["--timeout", "1", "-o"])
        .arg(&out_file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        out_file.to_str().unwrap()
    );
    let x = t.path().join("x");
    std::fs::create_dir(&x).unwrap();
    let tar = Command::new("tar")
        .arg("-xzf")
        .arg(&out_file)
        .arg("-C")
        .arg(&x)
        .status()
        .unwrap();
    assert!(tar.success());
    let top = x.join("xehpg-report");
    let read =
        |p: &str| std::fs::read_to_string(top.join(p)).unwrap_or_else(|e| panic!("{p}: {e}"));
    assert!(read("dmesg.txt").contains(&format!("[    2.345678] xehpg {BDF}: ATS-M150 rev 0x08")));
    assert!(!read("dmesg.txt").contains("SUBSYSTEM"));
    let dbg = format!("fs/sys/kernel/debug/xehpg/{BDF}");
    assert_eq!(
        read(&format!("{dbg}/info")),
        "platform: ATS-M150\nlmem_size: 0x400000000\n"
    );
    assert!(read(&format!("{dbg}/guc_info")).contains("status: running"));
    assert_eq!(
        read("fs/sys/class/devcoredump/devcd1/data"),
        "coredump bytes"
    );
    assert_eq!(read("fs/sys/module/xehpg/parameters/max_vfs"), "0\n");
    assert_eq!(
        read(&format!("fs/sys/bus/pci/devices/{BDF}/sriov_totalvfs")),
        "0\n"
    );
    assert_eq!(
        std::fs::read(top.join(format!("fs/sys/bus/pci/devices/{BDF}/config"))).unwrap(),
        [0x86, 0x80, 0xc0, 0x56]
    );
    let v = read("versions.txt");
    assert!(v.contains("uname: Linux flex1 7.3.4+deb13-amd64"), "{v}");
    assert!(v.contains("xehpg_srcversion: 0123ABCD"), "{v}");
    assert!(
        v.contains("guc_firmware: /lib/firmware/i915/dg2_guc_70.bin size 4096 sha256 "),
        "{v}"
    );
    let m = read("MANIFEST");
    assert!(m.starts_with("xehpg-report "), "{m}");
    assert!(m.contains("ok      dmesg.txt ("), "{m}");
    assert!(m.contains(&format!("ok      {dbg}/info (")), "{m}");
    assert!(
        m.contains("FAILED  /sys/class/devcoredump/devcd2/data: "),
        "{m}"
    );
    assert!(m.contains(&format!("failing_device -> {BDF}")), "{m}");
    assert!(
        m.contains(&format!("absent  /sys/kernel/debug/xehpg/{BDF}/guc_log")),
        "{m}"
    );
    assert!(
        m.contains(&format!(
            "note    /sys/bus/pci/devices/{BDF}/driver -> xehpg"
        )),
        "{m}"
    );
    assert!(m.contains("1 failed"), "{m}");
}

extern "C" {
    #[link_name = "mkfifo"]
    fn libc_mkfifo(path: *const std::ffi::c_char, mode: u32) -> i32;
}
