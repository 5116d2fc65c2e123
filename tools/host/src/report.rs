//! `xehpg-report`: everything a bug report needs, in one `tar.gz`.
//!
//! The archive has one directory, `xehpg-report/`: `MANIFEST` (every file
//! collected with its size and source, every failure with its reason),
//! `dmesg.txt`, `versions.txt`, `lspci.txt` when `lspci` is installed, and
//! under `fs/` each file copied from the machine at its own path: the
//! driver's debugfs directories (`guc_log` among them when the driver has
//! it), device coredumps, the GPU's and its VFs' sysfs files (`config`,
//! `resource`, the `sriov_*` files, `sriov_admin`), the module's version and
//! parameters, the kernel command line, `os-release`, the lockdown state.
//! Nothing is written to the machine: a devcoredump's `data` is read, never
//! written (a write frees it).

use crate::bounded::{self, Bounded};
use crate::facts;
use crate::kmsg;
use crate::root::Root;
use crate::smoke::{find_firmware, find_gpus, DEBUGFS};
use sha2::{Digest, Sha256};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The archive's top directory.
pub const TOP: &str = "xehpg-report";

/// The sysfs files of a PCI function the report copies (those a function
/// lacks, the `sriov_*` ones on a DG2, are listed as absent).
const PCI_FILES: &[&str] = &[
    "vendor",
    "device",
    "subsystem_vendor",
    "subsystem_device",
    "class",
    "revision",
    "resource",
    "config",
    "enable",
    "irq",
    "current_link_speed",
    "current_link_width",
    "max_link_speed",
    "max_link_width",
    "sriov_totalvfs",
    "sriov_numvfs",
    "sriov_drivers_autoprobe",
    "sriov_offset",
    "sriov_stride",
    "sriov_vf_device",
];

/// Single files of the machine the report copies when present.
const HOST_FILES: &[&str] = &[
    "/proc/version",
    "/proc/cmdline",
    "/proc/modules",
    "/etc/os-release",
    "/sys/kernel/security/lockdown",
    "/sys/module/xehpg/version",
    "/sys/module/xehpg/srcversion",
    "/sys/module/xehpg/initstate",
    "/sys/module/xehpg/taint",
];

/// What to collect.
#[derive(Debug, Clone)]
pub struct Options {
    pub root: Root,
    /// Only this GPU (default: every DG2/ATS-M function).
    pub device: Option<String>,
    /// Reads of debugfs and devcoredump files.
    pub io: Bounded,
}

/// The archive's files and the manifest, as collected.
#[derive(Debug, Default)]
pub struct Collected {
    /// Path inside [`TOP`], contents.
    pub files: Vec<(String, Vec<u8>)>,
    /// The manifest's lines after its header.
    pub manifest: Vec<String>,
    pub failures: usize,
}

impl Collected {
    /// Adds a file to the archive.
    pub fn add(&mut self, name: &str, source: &str, data: Vec<u8>) {
        self.manifest
            .push(format!("ok      {name} ({} bytes) <- {source}", data.len()));
        self.files.push((name.to_string(), data));
    }

    /// Notes a source that could not be read.
    pub fn failed(&mut self, source: &str, why: &str) {
        self.failures += 1;
        self.manifest.push(format!("FAILED  {source}: {why}"));
    }

    /// Notes something that is not there, which is not a failure.
    pub fn absent(&mut self, source: &str, why: &str) {
        self.manifest.push(format!("absent  {source}: {why}"));
    }

    /// The file at `abs`, read here, to `fs/<abs>`; a missing one is absent
    /// when `optional`, else a failure.
    fn copy(&mut self, root: &Root, abs: &str, optional: bool) {
        match std::fs::read(root.path(abs)) {
            Ok(data) => self.add(&fs_name(abs), abs, data),
            Err(e) if optional && e.kind() == std::io::ErrorKind::NotFound => {
                self.absent(abs, "no such file")
            }
            Err(e) => self.failed(abs, &e.to_string()),
        }
    }

    /// The file at `abs`, read in a bounded child, to `fs/<abs>`.
    fn copy_bounded(&mut self, o: &Options, abs: &str) {
        match o.io.read(&o.root.path(abs)) {
            Ok(data) => self.add(&fs_name(abs), abs, data),
            Err(e) => self.failed(abs, &e),
        }
    }

    /// The whole manifest file.
    pub fn manifest_text(&self) -> String {
        let mut out = format!(
            "xehpg-report {}: {} files, {} failed\n",
            env!("CARGO_PKG_VERSION"),
            self.files.len(),
            self.failures
        );
        for line in &self.manifest {
            out.push_str(line);
            out.push('\n');
        }
        out
    }
}

/// The archive path of a file copied from `abs`.
fn fs_name(abs: &str) -> String {
    format!("fs/{}", abs.trim_start_matches('/'))
}

/// Collects everything.
pub fn collect(o: &Options) -> Collected {
    let mut c = Collected::default();
    let r = &o.root;
    dmesg(o, &mut c);
    c.add("versions.txt", "(composed)", versions(r).into_bytes());
    for abs in HOST_FILES {
        c.copy(r, abs, true);
    }
    for p in r.list("/sys/module/xehpg/parameters") {
        c.copy(r, &format!("/sys/module/xehpg/parameters/{p}"), false);
    }
    let gpus: Vec<String> = find_gpus(r)
        .into_iter()
        .filter(|g| g.product.is_some())
        .map(|g| g.bdf)
        .filter(|b| o.device.as_deref().is_none_or(|d| d == b))
        .collect();
    if gpus.is_empty() {
        c.failed("/sys/bus/pci/devices", "no DG2/ATS-M function found");
    }
    let mut lspci = String::new();
    for bdf in &gpus {
        pci(o, &mut c, bdf, &mut lspci);
        debugfs(o, &mut c, bdf);
    }
    if !lspci.is_empty() {
        c.add("lspci.txt", "lspci -vvv -nn", lspci.into_bytes());
    }
    coredumps(o, &mut c);
    c
}

/// The kernel log, from `/dev/kmsg`, else from `dmesg`.
fn dmesg(o: &Options, c: &mut Collected) {
    match kmsg::read_records(&o.root.path("/dev/kmsg")) {
        Ok(records) => c.add(
            "dmesg.txt",
            "/dev/kmsg",
            kmsg::format(&records).into_bytes(),
        ),
        Err(e) if o.root.is_host() => match bounded::run(&mut Command::new("dmesg"), o.io.limit) {
            Ok(d) if d.success() => c.add("dmesg.txt", "dmesg", d.stdout),
            Ok(d) => c.failed("/dev/kmsg and dmesg", &format!("{e}; dmesg: {}", d.why())),
            Err(e2) => c.failed("/dev/kmsg and dmesg", &format!("{e}; {e2}")),
        },
        Err(e) => c.failed("/dev/kmsg", &e.to_string()),
    }
}

/// `versions.txt`: the kernel as `uname -a` shows it, the module's versions,
/// the firmware file's size and SHA-256, the distribution.
pub fn versions(r: &Root) -> String {
    let k = |f: &str| {
        r.read_trim(&format!("/proc/sys/kernel/{f}"))
            .unwrap_or_else(|_| "?".into())
    };
    let or_none = |abs: &str| r.read_trim(abs).unwrap_or_else(|_| "(none)".into());
    let mut out = format!(
        "uname: {} {} {} {} {}\n",
        k("ostype"),
        k("hostname"),
        k("osrelease"),
        k("version"),
        std::env::consts::ARCH
    );
    out.push_str(&format!("proc_version: {}\n", or_none("/proc/version")));
    out.push_str(&format!(
        "xehpg_version: {}\n",
        or_none("/sys/module/xehpg/version")
    ));
    out.push_str(&format!(
        "xehpg_srcversion: {}\n",
        or_none("/sys/module/xehpg/srcversion")
    ));
    match find_firmware(r) {
        Some((path, size)) => {
            let sum = std::fs::read(r.path(&path))
                .map(|d| hex(&Sha256::digest(&d)))
                .unwrap_or_else(|e| format!("unreadable: {e}"));
            out.push_str(&format!("guc_firmware: {path} size {size} sha256 {sum}\n"));
        }
        None => out.push_str(&format!("guc_firmware: no {}\n", facts::GUC_FIRMWARE)),
    }
    let os = r
        .read("/etc/os-release")
        .or_else(|_| r.read("/usr/lib/os-release"))
        .unwrap_or_default();
    out.push_str(&format!(
        "os: {}\n",
        facts::os_release(&os, "PRETTY_NAME").unwrap_or("(no os-release)")
    ));
    out.push_str(&format!("xehpg_report: {}\n", env!("CARGO_PKG_VERSION")));
    out
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A function's sysfs files, its `sriov_admin` tree and its VFs'; `lspci`
/// of each when the machine has it.
fn pci(o: &Options, c: &mut Collected, bdf: &str, lspci: &mut String) {
    let r = &o.root;
    let dev = format!("/sys/bus/pci/devices/{bdf}");
    let mut functions = vec![bdf.to_string()];
    for name in r.list(&dev) {
        if name.starts_with("virtfn") {
            if let Some(vf) = r.link_name(&format!("{dev}/{name}")) {
                functions.push(vf);
            }
        }
    }
    for f in &functions {
        let fdev = format!("/sys/bus/pci/devices/{f}");
        for file in PCI_FILES {
            c.copy(r, &format!("{fdev}/{file}"), true);
        }
        match r.link_name(&format!("{fdev}/driver")) {
            Some(d) => c.manifest.push(format!("note    {fdev}/driver -> {d}")),
            None => c.manifest.push(format!("note    {fdev}: no driver bound")),
        }
        if r.is_host() {
            let mut cmd = Command::new("lspci");
            cmd.args(["-vvv", "-nn", "-s", f]);
            match bounded::run(&mut cmd, o.io.limit) {
                Ok(d) if d.success() => lspci.push_str(&String::from_utf8_lossy(&d.stdout)),
                Ok(d) => c.absent(&format!("lspci -s {f}"), &d.why()),
                Err(e) => c.absent(&format!("lspci -s {f}"), &e),
            }
        }
    }
    walk(r, &format!("{dev}/sriov_admin"), 0, &mut |abs| {
        c.copy(r, abs, false)
    });
}

/// Calls `f` on every readable regular file under `abs` (links not
/// followed, four levels at most).
fn walk(r: &Root, abs: &str, depth: u32, f: &mut dyn FnMut(&str)) {
    for name in r.list(abs) {
        let path = format!("{abs}/{name}");
        let Ok(meta) = std::fs::symlink_metadata(r.path(&path)) else {
            continue;
        };
        if meta.is_dir() && depth < 4 {
            walk(r, &path, depth + 1, f);
        } else if meta.is_file() && meta.permissions().mode() & 0o444 != 0 {
            f(&path);
        }
    }
}

/// Every file of the GPU's debugfs directory that has a read bit.
fn debugfs(o: &Options, c: &mut Collected, bdf: &str) {
    let dir = format!("{DEBUGFS}/{bdf}");
    let names = o.root.list(&dir);
    if names.is_empty() {
        c.failed(
            &dir,
            "missing or empty (driver not bound, or debugfs not mounted)",
        );
        return;
    }
    for name in &names {
        let abs = format!("{dir}/{name}");
        let Ok(meta) = std::fs::metadata(o.root.path(&abs)) else {
            c.failed(&abs, "cannot stat");
            continue;
        };
        if !meta.is_file() {
            continue;
        }
        if meta.permissions().mode() & 0o444 == 0 {
            c.absent(&abs, "not readable (write-only)");
            continue;
        }
        c.copy_bounded(o, &abs);
    }
    if !names.iter().any(|n| n == "guc_log") {
        c.absent(&format!("{dir}/guc_log"), "this driver has no GuC log file");
    }
}

/// Every device coredump's `data`, and which device it is of.
fn coredumps(o: &Options, c: &mut Collected) {
    let dir = "/sys/class/devcoredump";
    let dumps: Vec<String> = o
        .root
        .list(dir)
        .into_iter()
        .filter(|d| d.starts_with("devcd"))
        .collect();
    if dumps.is_empty() {
        c.absent(dir, "no device coredump");
    }
    for d in dumps {
        let failing = o.root.link_name(&format!("{dir}/{d}/failing_device"));
        c.manifest.push(format!(
            "note    {dir}/{d}/failing_device -> {}",
            failing.as_deref().unwrap_or("?")
        ));
        c.copy_bounded(o, &format!("{dir}/{d}/data"));
    }
}

/// Writes the archive: `MANIFEST` first, then the files in order, each
/// under [`TOP`], gzip-compressed.
pub fn write_archive(c: &Collected, out: &Path) -> std::io::Result<()> {
    let file = std::fs::File::create(out)?;
    let gz = flate2::write::GzEncoder::new(file, flate2::Compression::default());
    let mut tar = tar::Builder::new(gz);
    let mtime = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let manifest = c.manifest_text().into_bytes();
    let all = std::iter::once(("MANIFEST", manifest.as_slice()))
        .chain(c.files.iter().map(|(n, d)| (n.as_str(), d.as_slice())));
    for (name, data) in all {
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_mtime(mtime);
        h.set_entry_type(tar::EntryType::Regular);
        tar.append_data(&mut h, format!("{TOP}/{name}"), data)?;
    }
    tar.into_inner()?.finish()?.sync_all()
}

/// The default archive path: `/tmp/xehpg-report-HOST-SECONDS.tar.gz`.
pub fn default_output(r: &Root) -> PathBuf {
    let host = r
        .read_trim("/proc/sys/kernel/hostname")
        .unwrap_or_else(|_| "host".into());
    let host: String = host
        .chars()
        .map(|ch| {
            if ch.is_ascii_alphanumeric() || ch == '-' {
                ch
            } else {
                '_'
            }
        })
        .collect();
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    PathBuf::from(format!("/tmp/xehpg-report-{host}-{secs}.tar.gz"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifest_lines() {
        let mut c = Collected::default();
        c.add("dmesg.txt", "/dev/kmsg", b"abc".to_vec());
        c.failed(
            "/sys/kernel/debug/xehpg/x/submit",
            "Operation not permitted",
        );
        c.absent("/sys/class/devcoredump", "no device coredump");
        assert_eq!(
            c.manifest_text(),
            format!(
                "xehpg-report {}: 1 files, 1 failed\n\
ok      dmesg.txt (3 bytes) <- /dev/kmsg\n\
FAILED  /sys/kernel/debug/xehpg/x/submit: Operation not permitted\n\
absent  /sys/class/devcoredump: no device coredump\n",
                env!("CARGO_PKG_VERSION")
            )
        );
    }

    #[test]
    fn versions_from_a_tree() {
        let t = tempfile::tempdir().unwrap();
        let put = |abs: &str, data: &[u8]| {
            let p = t.path().join(abs.trim_start_matches('/'));
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, data).unwrap();
        };
        put("/proc/sys/kernel/ostype", b"Linux\n");
        put("/proc/sys/kernel/hostname", b"flex1\n");
        put("/proc/sys/kernel/osrelease", b"7.3.4+deb13-amd64\n");
        put(
            "/proc/sys/kernel/version",
            b"#1 SMP PREEMPT_DYNAMIC Debian 7.3.4-1\n",
        );
        put("/sys/module/xehpg/srcversion", b"ABCDEF0123\n");
        put("/lib/firmware/i915/dg2_guc_70.bin", b"abc");
        put(
            "/etc/os-release",
            b"PRETTY_NAME=\"Debian GNU/Linux 13 (trixie)\"\n",
        );
        let v = versions(&Root::new(t.path()));
        let arch = std::env::consts::ARCH;
        assert_eq!(
            v,
            format!(
                "uname: Linux flex1 7.3.4+deb13-amd64 #1 SMP PREEMPT_DYNAMIC Debian 7.3.4-1 {arch}\n\
proc_version: (none)\n\
xehpg_version: (none)\n\
xehpg_srcversion: ABCDEF0123\n\
guc_firmware: /lib/firmware/i915/dg2_guc_70.bin size 3 sha256 ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n\
os: Debian GNU/Linux 13 (trixie)\n\
xehpg_report: {}\n",
                env!("CARGO_PKG_VERSION")
            )
        );
        assert_eq!(
            default_output(&Root::new(t.path())).parent(),
            Some(Path::new("/tmp"))
        );
        assert!(default_output(&Root::new(t.path()))
            .to_string_lossy()
            .starts_with("/tmp/xehpg-report-flex1-"));
    }

    #[test]
    fn the_archive_holds_the_manifest_first_and_every_file() {
        let t = tempfile::tempdir().unwrap();
        let mut c = Collected::default();
        c.add("dmesg.txt", "/dev/kmsg", b"[ 1.0] hello\n".to_vec());
        c.add(
            "fs/sys/kernel/debug/xehpg/0000:03:00.0/guc_log",
            "x",
            vec![0, 1, 2, 255],
        );
        let out = t.path().join("r.tar.gz");
        write_archive(&c, &out).unwrap();
        let gz = flate2::read::GzDecoder::new(std::fs::File::open(&out).unwrap());
        let mut ar = tar::Archive::new(gz);
        let mut seen = Vec::new();
        for e in ar.entries().unwrap() {
            let mut e = e.unwrap();
            let name = e.path().unwrap().to_string_lossy().into_owned();
            let mut data = Vec::new();
            std::io::Read::read_to_end(&mut e, &mut data).unwrap();
            seen.push((name, data));
        }
        assert_eq!(seen.len(), 3);
        assert_eq!(seen[0].0, "xehpg-report/MANIFEST");
        assert_eq!(seen[0].1, c.manifest_text().into_bytes());
        assert_eq!(
            seen[1],
            ("xehpg-report/dmesg.txt".into(), b"[ 1.0] hello\n".to_vec())
        );
        assert_eq!(
            seen[2],
            (
                "xehpg-report/fs/sys/kernel/debug/xehpg/0000:03:00.0/guc_log".into(),
                vec![0, 1, 2, 255]
            )
        );
    }
}
