//! Parsers for what the tools read: kernel release, command line, lockdown
//! and Secure Boot state, sysfs `resource`, the driver's debugfs `info` and
//! selftest report. Pure functions on text or bytes, tested on samples.

/// The oldest kernel the driver builds against (README, "Requirements").
pub const MIN_KERNEL: (u32, u32) = (7, 3);

/// The GuC firmware file the driver requests (`MODULE_FIRMWARE`).
pub const GUC_FIRMWARE: &str = "i915/dg2_guc_70.bin";

/// The firmware directories the kernel's loader searches, in its order
/// (`drivers/base/firmware_loader/main.c`, `fw_path`), as the operator's
/// tree has them.
pub const FIRMWARE_DIRS: &[&str] = &[
    "/lib/firmware/updates",
    "/lib/firmware",
    "/usr/lib/firmware/updates",
    "/usr/lib/firmware",
];

/// The suffixes the loader tries after the plain name when it was built
/// with compressed-firmware support.
pub const FIRMWARE_SUFFIXES: &[&str] = &["", ".zst", ".xz"];

/// The smallest local-memory BAR the driver accepts (it refuses a smaller
/// one at probe: Documentation/debugfs.rst, `lmembar_size`).
pub const MIN_LMEMBAR: u64 = 256 << 20;

/// The EFI variable holding the Secure Boot state (the global variable
/// GUID), under `/sys/firmware/efi/efivars`.
pub const SECURE_BOOT_VAR: &str =
    "/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c";

/// What the kernel's module signing appends to a signed module
/// (`MODULE_SIG_STRING` in `include/linux/module_signature.h`).
pub const MODULE_SIG_MAGIC: &[u8] = b"~Module signature appended~\n";

/// Major and minor of a kernel release string (`7.3.4+deb13-amd64`).
pub fn kernel_version(release: &str) -> Option<(u32, u32)> {
    let mut parts = release.trim().split(|c: char| !c.is_ascii_digit());
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}

/// What the kernel command line asks of the IOMMU.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct IommuCmdline {
    /// The words that turn it on or to pass-through (`intel_iommu=on`,
    /// `amd_iommu=on`, `iommu=pt`, `iommu=on`).
    pub on: Vec<String>,
    /// The words that turn it off (`intel_iommu=off`, `iommu=off`, ...).
    pub off: Vec<String>,
}

/// The IOMMU words of a `/proc/cmdline`. A key's later value wins for the
/// kernel, but listing both is what helps the operator.
pub fn iommu_cmdline(cmdline: &str) -> IommuCmdline {
    let mut out = IommuCmdline::default();
    for word in cmdline.split_whitespace() {
        let Some((key, value)) = word.split_once('=') else {
            continue;
        };
        if !matches!(key, "intel_iommu" | "amd_iommu" | "iommu") {
            continue;
        }
        let values: Vec<&str> = value.split(',').collect();
        if values.contains(&"off") || (key == "amd_iommu" && values.contains(&"disable")) {
            out.off.push(word.to_string());
        } else if values.iter().any(|v| matches!(*v, "on" | "pt" | "force")) {
            out.on.push(word.to_string());
        }
    }
    out
}

/// The selected mode of `/sys/kernel/security/lockdown`
/// (`none [integrity] confidentiality`).
pub fn lockdown(text: &str) -> Option<String> {
    let start = text.find('[')?;
    let end = start + text[start..].find(']')?;
    Some(text[start + 1..end].to_string())
}

/// Secure Boot from the EFI variable's contents: four bytes of attributes,
/// then one byte, 1 when on.
pub fn secure_boot(var: &[u8]) -> Option<bool> {
    (var.len() >= 5).then(|| var[4] == 1)
}

/// Each BAR's size from a sysfs `resource` file (`start end flags` per line,
/// hex; an unassigned BAR reads all zeros and has size 0).
pub fn resource_sizes(text: &str) -> Vec<u64> {
    text.lines()
        .map(|line| {
            let mut w = line.split_whitespace().map(parse_hex);
            match (w.next().flatten(), w.next().flatten()) {
                (Some(start), Some(end)) if end > start => end - start + 1,
                _ => 0,
            }
        })
        .collect()
}

/// A `0x`-prefixed (or bare) hex number.
pub fn parse_hex(s: &str) -> Option<u64> {
    let s = s.trim();
    u64::from_str_radix(s.strip_prefix("0x").unwrap_or(s), 16).ok()
}

/// The value of a `key: value` line of a debugfs report.
pub fn field<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines().find_map(|l| {
        l.strip_prefix(key)
            .and_then(|r| r.strip_prefix(": "))
            .map(str::trim)
    })
}

/// A byte count as the operator reads it: `256 MiB`, `16 GiB`, `1536 KiB`.
pub fn size(bytes: u64) -> String {
    const UNITS: &[(u32, &str)] = &[(40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")];
    for (shift, unit) in UNITS {
        if bytes >= 1 << shift && bytes.is_multiple_of(1 << shift) {
            return format!("{} {unit}", bytes >> shift);
        }
    }
    format!("{bytes} bytes")
}

/// One engine's line of the selftest report (`debugfs submit`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineRun {
    pub engine: String,
    pub requests: u64,
    pub completed: u64,
    pub failed: u64,
    pub errno: i64,
    /// `ok`, `unchecked` or `bad slot ...`.
    pub payload: String,
}

impl EngineRun {
    /// Every request completed, none failed, and every payload read back.
    pub fn clean(&self) -> bool {
        self.completed == self.requests
            && self.failed == 0
            && self.errno == 0
            && self.payload == "ok"
    }
}

/// The engine lines of a selftest report: `NAME: mode M requests N completed
/// N failed N errno E payload P latency_us ...`.
pub fn selftest_runs(report: &str) -> Vec<EngineRun> {
    report
        .lines()
        .filter_map(|line| {
            let (engine, rest) = line.split_once(": mode ")?;
            let words: Vec<&str> = rest.split_whitespace().collect();
            let after = |key: &str| {
                let i = words.iter().position(|w| *w == key)?;
                words.get(i + 1).copied()
            };
            let num = |key: &str| after(key)?.parse::<u64>().ok();
            let payload_at = words.iter().position(|w| *w == "payload")?;
            let end = words
                .iter()
                .position(|w| *w == "latency_us")
                .unwrap_or(words.len());
            Some(EngineRun {
                engine: engine.trim().to_string(),
                requests: num("requests")?,
                completed: num("completed")?,
                failed: num("failed")?,
                errno: after("errno")?.parse().ok()?,
                payload: words.get(payload_at + 1..end)?.join(" "),
            })
        })
        .collect()
}

/// Whether a module file carries a signature.
pub fn module_signed(module: &[u8]) -> bool {
    module.ends_with(MODULE_SIG_MAGIC)
}

/// The fields of an `os-release` file (`NAME="Debian GNU/Linux"`), for
/// `PRETTY_NAME` and the like.
pub fn os_release<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines().find_map(|l| {
        let (k, v) = l.split_once('=')?;
        (k.trim() == key).then(|| v.trim().trim_matches('"'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_releases() {
        assert_eq!(kernel_version("7.3.4+deb13-amd64\n"), Some((7, 3)));
        assert_eq!(kernel_version("7.3.0-rc2"), Some((7, 3)));
        assert_eq!(kernel_version("6.12.48+deb13-amd64"), Some((6, 12)));
        assert_eq!(kernel_version("10.0"), Some((10, 0)));
        assert_eq!(kernel_version("linux"), None);
        assert!(Some((6, 12)) < Some(MIN_KERNEL) && Some((8, 0)) > Some(MIN_KERNEL));
    }

    #[test]
    fn iommu_words() {
        let c =
            iommu_cmdline("BOOT_IMAGE=/vmlinuz root=/dev/sda1 intel_iommu=on,sm_on iommu=pt quiet");
        assert_eq!(c.on, ["intel_iommu=on,sm_on", "iommu=pt"]);
        assert!(c.off.is_empty());
        let c = iommu_cmdline("intel_iommu=off amd_iommu=disable iommu=soft");
        assert_eq!(c.off, ["intel_iommu=off", "amd_iommu=disable"]);
        assert!(c.on.is_empty());
        assert_eq!(
            iommu_cmdline("console=ttyS0 myiommu=on"),
            IommuCmdline::default()
        );
    }

    #[test]
    fn lockdown_and_secure_boot() {
        assert_eq!(
            lockdown("none [integrity] confidentiality\n").as_deref(),
            Some("integrity")
        );
        assert_eq!(
            lockdown("[none] integrity confidentiality").as_deref(),
            Some("none")
        );
        assert_eq!(lockdown("none integrity"), None);
        assert_eq!(secure_boot(&[6, 0, 0, 0, 1]), Some(true));
        assert_eq!(secure_boot(&[6, 0, 0, 0, 0]), Some(false));
        assert_eq!(secure_boot(&[6, 0, 0]), None);
    }

    #[test]
    fn bar_sizes_from_resource() {
        let resource = "\
0x0000000080000000 0x0000000080ffffff 0x0000000000140204
0x0000000000000000 0x0000000000000000 0x0000000000000000
0x0000004000000000 0x000000400fffffff 0x000000000014220c
0x0000000000000000 0x0000000000000000 0x0000000000000000
";
        assert_eq!(resource_sizes(resource), [16 << 20, 0, 256 << 20, 0]);
        assert_eq!(resource_sizes("garbage\n"), [0]);
    }

    #[test]
    fn sizes_and_fields() {
        assert_eq!(size(256 << 20), "256 MiB");
        assert_eq!(size(16 << 30), "16 GiB");
        assert_eq!(size(1536 << 10), "1536 KiB");
        assert_eq!(size(1000), "1000 bytes");
        let info = "platform: ATS-M150\nlmem_size: 0x400000000\nlmem_offset: 0x0\n";
        assert_eq!(field(info, "platform"), Some("ATS-M150"));
        assert_eq!(field(info, "lmem_size").and_then(parse_hex), Some(16 << 30));
        assert_eq!(field(info, "lmem"), None);
        assert_eq!(parse_hex("ff"), Some(255));
    }

    #[test]
    fn selftest_report() {
        let report = "runs: 2\n\
rcs0: mode guc requests 10 completed 10 failed 0 errno 0 payload ok latency_us median 5 p99 9 elapsed_us 80 rate 1/s loads 0 interrupts 10 mmio_reads 1 mmio_writes 2\n\
bcs0: mode guc requests 10 completed 3 failed 0 errno -110 payload unchecked latency_us median 5 p99 9 elapsed_us 80 rate 1/s loads 0 interrupts 10 mmio_reads 1 mmio_writes 2\n\
ccs0: mode guc requests 10 completed 10 failed 0 errno 0 payload bad slot 3 read 0x00000000 expected 0x00000003 latency_us median 5\n";
        let runs = selftest_runs(report);
        assert_eq!(runs.len(), 3);
        assert_eq!(runs[0].engine, "rcs0");
        assert!(runs[0].clean());
        assert_eq!((runs[1].completed, runs[1].errno), (3, -110));
        assert!(!runs[1].clean());
        assert_eq!(
            runs[2].payload,
            "bad slot 3 read 0x00000000 expected 0x00000003"
        );
        assert!(!runs[2].clean());
        assert!(selftest_runs("runs: 0\n").is_empty());
    }

    #[test]
    fn signatures_and_os_release() {
        let mut m = b"\x7fELF...".to_vec();
        assert!(!module_signed(&m));
        m.extend_from_slice(MODULE_SIG_MAGIC);
        assert!(module_signed(&m));
        let os = "PRETTY_NAME=\"Debian GNU/Linux 13 (trixie)\"\nID=debian\n";
        assert_eq!(
            os_release(os, "PRETTY_NAME"),
            Some("Debian GNU/Linux 13 (trixie)")
        );
        assert_eq!(os_release(os, "ID"), Some("debian"));
        assert_eq!(os_release(os, "VERSION"), None);
    }
}
