//! `xehpg-smoke`: one verdict per step, for an operator on a real host.
//!
//! The host steps (kernel, firmware, IOMMU, the GPU's PCI function, Secure
//! Boot and lockdown) only read. Then the driver steps: the module is loaded
//! unless it is already (`--load PATH`, else `modprobe xehpg`; `--no-load`
//! stops before), bound to the GPU, its GuC running, the local-memory BAR
//! against local memory, the selftest of a test build, VFs enabled and
//! disabled again on an SR-IOV PF, and every debugfs file read. Each step's
//! verdict is computed by a pure function of what was read, so the unit
//! tests cover every verdict; the reading and writing around them goes
//! through a [`Root`] and, where a device could block, [`Bounded`].

use crate::bounded::Bounded;
use crate::facts::{self, MIN_KERNEL, MIN_LMEMBAR};
use crate::ids;
use crate::root::Root;
use crate::verdict::Step;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Where the driver's per-device debugfs directories are.
pub const DEBUGFS: &str = "/sys/kernel/debug/xehpg";

/// How the driver is to be loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Load {
    /// `finit_module` of this file (`--load PATH`).
    File(PathBuf),
    /// `modprobe xehpg` (the installed module).
    Modprobe,
    /// Not at all (`--no-load`: a host check before installing).
    No,
}

/// What to run.
#[derive(Debug, Clone)]
pub struct Options {
    pub root: Root,
    /// The GPU's PCI address when the host has more than one.
    pub device: Option<String>,
    pub load: Load,
    /// Module parameters for the load.
    pub params: String,
    /// VFs to enable and disable on an SR-IOV PF (0: do not).
    pub vfs: u32,
    /// Requests per engine for the selftest.
    pub requests: u32,
    /// Reads and writes.
    pub io: Bounded,
    /// The module load.
    pub load_io: Bounded,
}

/// One Intel display function (VFs left out).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gpu {
    pub bdf: String,
    pub device: u16,
    /// The product, when the driver binds the ID.
    pub product: Option<&'static str>,
    /// The driver bound to it, if any.
    pub driver: Option<String>,
}

/// Every Intel function of the display class, PFs only, by address.
pub fn find_gpus(root: &Root) -> Vec<Gpu> {
    let mut out = Vec::new();
    for bdf in root.list("/sys/bus/pci/devices") {
        let dev = format!("/sys/bus/pci/devices/{bdf}");
        let read = |f: &str| root.read_trim(&format!("{dev}/{f}")).ok();
        let hex16 = |s: Option<String>| s.as_deref().and_then(facts::parse_hex);
        if hex16(read("vendor")) != Some(u64::from(ids::INTEL)) {
            continue;
        }
        let display = read("class").is_some_and(|c| c.starts_with("0x03"));
        if !display || root.exists(&format!("{dev}/physfn")) {
            continue;
        }
        let Some(device) = hex16(read("device")).and_then(|d| u16::try_from(d).ok()) else {
            continue;
        };
        out.push(Gpu {
            bdf: bdf.clone(),
            device,
            product: ids::product(device),
            driver: root.link_name(&format!("{dev}/driver")),
        });
    }
    out
}

/// The GPU the driver steps use: `--device`, else the first the driver
/// binds. `Err` is the pci step's failure.
pub fn choose<'a>(gpus: &'a [Gpu], device: Option<&str>) -> Result<&'a Gpu, Step> {
    let known: Vec<&Gpu> = gpus.iter().filter(|g| g.product.is_some()).collect();
    let shown = |list: &[&Gpu]| {
        list.iter()
            .map(|g| format!("{} 8086:{:04x}", g.bdf, g.device))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if let Some(want) = device {
        return match gpus.iter().find(|g| g.bdf == want) {
            Some(g) if g.product.is_some() => Ok(g),
            Some(g) => Err(Step::fail(
                "pci",
                format!(
                    "{} is 8086:{:04x}, not a DG2/ATS-M device ID",
                    g.bdf, g.device
                ),
                "name the Arc/Flex function (lspci -nn -d 8086:)",
            )),
            None => Err(Step::fail(
                "pci",
                format!("no Intel display function at {want}"),
                "name the Arc/Flex function (lspci -nn -d 8086:)",
            )),
        };
    }
    match known.first() {
        Some(g) => Ok(g),
        None if gpus.is_empty() => Err(Step::fail(
            "pci",
            "no Intel display function on the PCI bus",
            "seat the card, check lspci -nn -d 8086: and the slot's power",
        )),
        None => Err(Step::fail(
            "pci",
            format!(
                "Intel display functions, none DG2/ATS-M: {}",
                shown(&gpus.iter().collect::<Vec<_>>())
            ),
            "xehpg binds Arc A-series and Flex 140/170 only",
        )),
    }
}

/// The pci step of the chosen GPU.
pub fn pci_step(gpu: &Gpu, all: &[Gpu]) -> Step {
    let product = gpu.product.unwrap_or("?");
    let mut seen = format!("{} 8086:{:04x} {product}", gpu.bdf, gpu.device);
    let others = all
        .iter()
        .filter(|g| g.bdf != gpu.bdf && g.product.is_some())
        .count();
    if others > 0 {
        seen.push_str(&format!(" ({others} more DG2/ATS-M: --device picks one)"));
    }
    match gpu.driver.as_deref() {
        None | Some("xehpg") => {
            if let Some(d) = &gpu.driver {
                seen.push_str(&format!(", bound to {d}"));
            }
            Step::pass("pci", seen)
        }
        Some(other) => Step::warn(
            "pci",
            format!("{seen}, bound to {other}"),
            "unbind it and set driver_override (Documentation/install.rst, \"Taking the device from xe or i915\")",
        ),
    }
}

/// The kernel step from `/proc/sys/kernel/osrelease`.
pub fn kernel_step(release: Result<&str, String>) -> Step {
    let release = match release {
        Ok(r) => r.trim(),
        Err(e) => {
            return Step::fail(
                "kernel",
                format!("cannot read the release: {e}"),
                "is /proc mounted?",
            )
        }
    };
    match facts::kernel_version(release) {
        Some(v) if v >= MIN_KERNEL => {
            Step::pass("kernel", format!("{release} (7.3 or newer needed)"))
        }
        Some(_) => Step::fail(
            "kernel",
            format!("{release}, older than 7.3"),
            "boot a 7.3 kernel with CONFIG_RUST (Documentation/install.rst)",
        ),
        None => Step::fail(
            "kernel",
            format!("unreadable release {release:?}"),
            "check uname -r",
        ),
    }
}

/// Where the GuC firmware is: the first file of the loader's search order,
/// with its size.
pub fn find_firmware(root: &Root) -> Option<(String, u64)> {
    for dir in facts::FIRMWARE_DIRS {
        for suffix in facts::FIRMWARE_SUFFIXES {
            let abs = format!("{dir}/{}{suffix}", facts::GUC_FIRMWARE);
            if let Ok(meta) = std::fs::metadata(root.path(&abs)) {
                if meta.is_file() {
                    return Some((abs, meta.len()));
                }
            }
        }
    }
    None
}

/// The firmware step.
pub fn firmware_step(found: Option<(&str, u64)>) -> Step {
    match found {
        Some((path, 0)) => Step::fail(
            "firmware",
            format!("{path} is empty"),
            "reinstall firmware-intel-graphics (Debian) or linux-firmware",
        ),
        Some((path, size)) if path.ends_with(".bin") => {
            Step::pass("firmware", format!("{path} ({size} bytes)"))
        }
        Some((path, size)) => Step::pass(
            "firmware",
            format!("{path} ({size} bytes, compressed: the kernel needs the matching CONFIG_FW_LOADER_COMPRESS_*)"),
        ),
        None => Step::fail(
            "firmware",
            format!("no {} under /lib/firmware or /usr/lib/firmware", facts::GUC_FIRMWARE),
            "install firmware-intel-graphics (Debian, non-free-firmware) or linux-firmware",
        ),
    }
}

/// The IOMMU step: the units the kernel registered (`/sys/class/iommu`),
/// its groups, and what the command line asks.
pub fn iommu_step(units: &[String], groups: usize, cmdline: &str) -> Step {
    let words = facts::iommu_cmdline(cmdline);
    let asked = if words.on.is_empty() && words.off.is_empty() {
        "nothing on the command line".to_string()
    } else {
        [words.on.clone(), words.off.clone()].concat().join(" ")
    };
    if !words.off.is_empty() {
        return Step::warn(
            "iommu",
            format!("turned off ({asked})"),
            "VFs cannot go to VMs: drop the off words, boot with intel_iommu=on iommu=pt",
        );
    }
    if !units.is_empty() {
        return Step::pass(
            "iommu",
            format!("{} ({groups} groups; {asked})", units.join(" ")),
        );
    }
    if !words.on.is_empty() {
        return Step::warn(
            "iommu",
            format!("asked for ({asked}) but no IOMMU registered"),
            "enable VT-d (or AMD-Vi) in the firmware setup: VFs in VMs need it",
        );
    }
    Step::warn(
        "iommu",
        "none registered, nothing on the command line",
        "for VFs in VMs: VT-d in the firmware setup and intel_iommu=on iommu=pt",
    )
}

/// The lockdown step: lockdown's mode (`None`: no lockdown file) and Secure
/// Boot (`None`: no EFI variable; `efi` whether the boot was EFI at all).
pub fn lockdown_step(lockdown: Option<&str>, secure_boot: Option<bool>, efi: bool) -> Step {
    let sb = match (efi, secure_boot) {
        (false, _) => "not an EFI boot",
        (true, Some(true)) => "Secure Boot on",
        (true, Some(false)) => "Secure Boot off",
        (true, None) => "Secure Boot state unknown",
    };
    match lockdown {
        None => Step::pass("lockdown", format!("no lockdown file (no lockdown LSM, or securityfs not mounted); {sb}")),
        Some("none") => Step::pass("lockdown", format!("lockdown none; {sb}")),
        Some(mode) => Step::warn(
            "lockdown",
            format!("lockdown {mode}; {sb}"),
            "the module must be signed with an enrolled key (Documentation/install.rst), and debugfs files with write bits (selftest, controls) are refused",
        ),
    }
}

/// The bar2 step: BAR 2's size (`None`: no `resource` file) against local
/// memory (`None`: not known before the driver is bound).
pub fn bar2_step(bar2: Option<u64>, lmem: Option<u64>) -> Step {
    let Some(bar) = bar2 else {
        return Step::fail("bar2", "no sysfs resource file", "is sysfs mounted?");
    };
    if bar == 0 {
        return Step::fail(
            "bar2",
            "BAR 2 is not assigned",
            "enable \"Above 4G decoding\" in the firmware setup",
        );
    }
    if bar < MIN_LMEMBAR {
        return Step::fail(
            "bar2",
            format!("{}, below the driver's 256 MiB minimum", facts::size(bar)),
            "enable \"Above 4G decoding\" and Resizable BAR in the firmware setup",
        );
    }
    match lmem {
        None => Step::pass(
            "bar2",
            format!(
                "{} (local memory unknown until the driver is bound)",
                facts::size(bar)
            ),
        ),
        Some(l) if bar < l => Step::warn(
            "bar2",
            format!(
                "{} of {} local memory (small BAR)",
                facts::size(bar),
                facts::size(l)
            ),
            "enable Resizable BAR in the firmware setup for a BAR over all of local memory",
        ),
        Some(l) => Step::pass(
            "bar2",
            format!(
                "{} covers {} local memory",
                facts::size(bar),
                facts::size(l)
            ),
        ),
    }
}

/// The selftest step from the report read after `all N` (`None`: the build
/// has no `submit_ctl` file). Under lockdown (`locked`) debugfs refuses the
/// command file, which has a write bit: a warning, not the driver's failure.
pub fn selftest_step(report: Option<Result<String, String>>, requests: u32, locked: bool) -> Step {
    let report = match report {
        None => {
            return Step::warn(
                "selftest",
                "not a test build (no debugfs submit)",
                "build with XEHPG_TEST=y to run the selftest; a production module has none",
            )
        }
        Some(Err(e)) if locked && e.contains("Operation not permitted") => {
            return Step::warn(
                "selftest",
                format!("refused under lockdown: {e}"),
                "run it on a host without lockdown (Secure Boot off) to test submission",
            )
        }
        Some(Err(e)) => return Step::fail("selftest", e, "dmesg and debugfs engines say more"),
        Some(Ok(r)) => r,
    };
    let runs = facts::selftest_runs(&report);
    if runs.is_empty() {
        return Step::fail(
            "selftest",
            "no engine ran",
            "dmesg and debugfs engines say more",
        );
    }
    let bad: Vec<String> = runs
        .iter()
        .filter(|r| !r.clean() || r.requests != u64::from(requests))
        .map(|r| {
            format!(
                "{} {} of {} completed, failed {}, errno {}, payload {}",
                r.engine, r.completed, r.requests, r.failed, r.errno, r.payload
            )
        })
        .collect();
    let names: Vec<&str> = runs.iter().map(|r| r.engine.as_str()).collect();
    if bad.is_empty() {
        Step::pass(
            "selftest",
            format!(
                "{requests} requests on each of {} engines ({})",
                runs.len(),
                names.join(" ")
            ),
        )
    } else {
        Step::fail("selftest", bad.join("; "), "report it with xehpg-report")
    }
}

/// How many VFs to enable, or the step that says why none.
pub fn sriov_plan(total: Option<u32>, enabled: u32, want: u32) -> Result<u32, Step> {
    match total {
        None => Err(Step::skip(
            "sriov",
            "no SR-IOV capability on this function (DG2 has none)",
        )),
        Some(0) => Err(Step::skip(
            "sriov",
            "sriov_totalvfs is 0: the driver offers no VFs (max_vfs=0, or dmesg says why)",
        )),
        Some(_) if enabled > 0 => Err(Step::skip(
            "sriov",
            format!("{enabled} VFs already enabled: left alone"),
        )),
        Some(_) if want == 0 => Err(Step::skip("sriov", "--vfs 0")),
        Some(t) => Ok(want.min(t)),
    }
}

/// The debugfs step from the files read and those that failed.
pub fn debugfs_step(dir: &str, read: &[String], failed: &[(String, String)]) -> Step {
    let total = read.len() + failed.len();
    if total == 0 {
        return Step::fail(
            "debugfs",
            format!("{dir} has no files"),
            "is the driver bound?",
        );
    }
    let seen = format!("read {} of {total} files in {dir}", read.len());
    if failed.is_empty() {
        return Step::pass("debugfs", seen);
    }
    let why: Vec<String> = failed.iter().map(|(f, e)| format!("{f}: {e}")).collect();
    Step::warn(
        "debugfs",
        format!("{seen}; {}", why.join("; ")),
        "under lockdown only files without write bits read; else report it",
    )
}

/// Runs every step, handing each to `emit` as it is done.
pub fn run(o: &Options, emit: &mut dyn FnMut(&Step)) -> Vec<Step> {
    let mut steps = Vec::new();
    let mut put = |s: Step, steps: &mut Vec<Step>| {
        emit(&s);
        steps.push(s);
    };
    let r = &o.root;
    put(
        kernel_step(
            r.read("/proc/sys/kernel/osrelease")
                .as_deref()
                .map_err(|e| e.to_string()),
        ),
        &mut steps,
    );
    let fw = find_firmware(r);
    put(
        firmware_step(fw.as_ref().map(|(p, s)| (p.as_str(), *s))),
        &mut steps,
    );
    put(
        iommu_step(
            &r.list("/sys/class/iommu"),
            r.list("/sys/kernel/iommu_groups").len(),
            &r.read("/proc/cmdline").unwrap_or_default(),
        ),
        &mut steps,
    );
    let gpus = find_gpus(r);
    let gpu = match choose(&gpus, o.device.as_deref()) {
        Ok(g) => {
            put(pci_step(g, &gpus), &mut steps);
            Some(g.clone())
        }
        Err(s) => {
            put(s, &mut steps);
            None
        }
    };
    let lockdown = r.read("/sys/kernel/security/lockdown").ok();
    let lockdown = lockdown.as_deref().and_then(facts::lockdown);
    let sb = std::fs::read(r.path(facts::SECURE_BOOT_VAR)).ok();
    put(
        lockdown_step(
            lockdown.as_deref(),
            sb.as_deref().and_then(facts::secure_boot),
            r.exists("/sys/firmware/efi"),
        ),
        &mut steps,
    );
    let Some(gpu) = gpu else {
        put(
            Step::skip("driver", "no GPU for the driver steps"),
            &mut steps,
        );
        return steps;
    };
    let dev = format!("/sys/bus/pci/devices/{}", gpu.bdf);
    let bar2 = r
        .read(&format!("{dev}/resource"))
        .ok()
        .map(|t| facts::resource_sizes(&t).get(2).copied().unwrap_or(0));

    let loaded = load_step(o, lockdown.as_deref());
    let go_on = loaded.verdict != crate::verdict::Verdict::Fail
        && loaded.verdict != crate::verdict::Verdict::Skip;
    put(loaded, &mut steps);
    if !go_on {
        put(bar2_step(bar2, None), &mut steps);
        return steps;
    }
    let bound = bind_step(r, &gpu.bdf, o.io.limit);
    let is_bound = bound.verdict == crate::verdict::Verdict::Pass;
    put(bound, &mut steps);
    let dbg = format!("{DEBUGFS}/{}", gpu.bdf);
    let info = o.io.read(&r.path(&format!("{dbg}/info"))).ok();
    let info = info.map(|b| String::from_utf8_lossy(&b).into_owned());
    let lmem = info
        .as_deref()
        .and_then(|i| facts::field(i, "lmem_size"))
        .and_then(facts::parse_hex);
    put(bar2_step(bar2, lmem), &mut steps);
    if !is_bound {
        return steps;
    }
    if r.list("/sys/kernel/debug").is_empty() {
        put(
            Step::warn(
                "debugfs",
                "/sys/kernel/debug is empty",
                "mount -t debugfs none /sys/kernel/debug",
            ),
            &mut steps,
        );
    } else {
        put(guc_step(o, &dbg), &mut steps);
        // The command goes to `submit_ctl`, the report comes from `submit`
        // (Documentation/debugfs.rst, "Reports and commands").
        let submit_ctl = r.path(&format!("{dbg}/submit_ctl"));
        let submit = r.path(&format!("{dbg}/submit"));
        let report = submit_ctl.exists().then(|| {
            o.io.write(&submit_ctl, &format!("all {}", o.requests))
                .and_then(|()| o.io.read(&submit))
                .map(|b| String::from_utf8_lossy(&b).into_owned())
        });
        let locked = lockdown.as_deref().is_some_and(|m| m != "none");
        put(selftest_step(report, o.requests, locked), &mut steps);
    }
    put(sriov_step(o, &dev), &mut steps);
    if !r.list("/sys/kernel/debug").is_empty() {
        put(read_debugfs(o, &dbg), &mut steps);
    }
    steps
}

/// Loads the module unless it is loaded (or `--no-load`).
fn load_step(o: &Options, lockdown: Option<&str>) -> Step {
    let r = &o.root;
    if r.exists("/sys/module/xehpg") {
        let version = r
            .read_trim("/sys/module/xehpg/srcversion")
            .map(|v| format!(" (srcversion {v})"))
            .unwrap_or_default();
        let note = match &o.load {
            Load::File(p) => format!("; {} not loaded over it", p.display()),
            _ => String::new(),
        };
        return Step::pass("load", format!("xehpg already loaded{version}{note}"));
    }
    let start = Instant::now();
    let result = match &o.load {
        Load::No => {
            return Step::skip("load", "xehpg not loaded (--no-load): driver steps not run")
        }
        Load::File(path) => {
            let host = if path.is_absolute() {
                r.path(&path.to_string_lossy())
            } else {
                path.clone()
            };
            let unsigned = lockdown.is_some_and(|m| m != "none")
                && std::fs::read(&host).is_ok_and(|m| !facts::module_signed(&m));
            match o.load_io.load_module(&host, &o.params) {
                Ok(()) => Ok(format!("{} loaded", path.display())),
                Err(e) if unsigned => Err(format!(
                    "{e} (lockdown is on and the file carries no signature)"
                )),
                Err(e) => Err(e),
            }
        }
        Load::Modprobe => {
            let mut cmd = std::process::Command::new("modprobe");
            cmd.arg("xehpg").args(o.params.split_whitespace());
            match crate::bounded::run(&mut cmd, o.load_io.limit) {
                Ok(d) if d.success() => Ok("modprobe xehpg".to_string()),
                Ok(d) => Err(format!("modprobe xehpg: {}", d.why())),
                Err(e) => Err(e),
            }
        }
    };
    match result {
        Ok(what) => Step::pass(
            "load",
            format!("{what} in {:.1} s", start.elapsed().as_secs_f64()),
        ),
        Err(e) => Step::fail("load", e, "dmesg | grep xehpg says why"),
    }
}

/// Waits for the driver's link on the device.
fn bind_step(r: &Root, bdf: &str, limit: Duration) -> Step {
    let link = format!("/sys/bus/pci/devices/{bdf}/driver");
    let start = Instant::now();
    loop {
        match r.link_name(&link).as_deref() {
            Some("xehpg") => return Step::pass("bound", format!("{bdf} bound to xehpg")),
            Some(other) => {
                return Step::fail(
                    "bound",
                    format!("{bdf} bound to {other}"),
                    "unbind it and set driver_override (Documentation/install.rst)",
                )
            }
            None if start.elapsed() < limit.min(Duration::from_secs(10)) => {
                std::thread::sleep(Duration::from_millis(100))
            }
            None => {
                return Step::fail(
                    "bound",
                    format!("{bdf} has no driver"),
                    "probe failed: dmesg | grep xehpg names the step",
                )
            }
        }
    }
}

/// The GuC's status from debugfs `guc_info`.
fn guc_step(o: &Options, dbg: &str) -> Step {
    match o.io.read(&o.root.path(&format!("{dbg}/guc_info"))) {
        Ok(b) => {
            let text = String::from_utf8_lossy(&b);
            let status = facts::field(&text, "status").unwrap_or("?");
            let release = facts::field(&text, "release").unwrap_or("?");
            if status == "running" {
                Step::pass("guc", format!("running, firmware release {release}"))
            } else {
                let err = facts::field(&text, "last_error").unwrap_or("?");
                Step::fail(
                    "guc",
                    format!("{status} (last_error {err})"),
                    "report it with xehpg-report",
                )
            }
        }
        Err(e) => Step::fail("guc", e, "debugfs guc_info did not read"),
    }
}

/// Enables some VFs and disables them again, with host drivers kept off.
fn sriov_step(o: &Options, dev: &str) -> Step {
    let r = &o.root;
    let num = |f: &str| -> Option<u32> { r.read_trim(&format!("{dev}/{f}")).ok()?.parse().ok() };
    let n = match sriov_plan(
        num("sriov_totalvfs"),
        num("sriov_numvfs").unwrap_or(0),
        o.vfs,
    ) {
        Ok(n) => n,
        Err(s) => return s,
    };
    let total = num("sriov_totalvfs").unwrap_or(0);
    let file = |f: &str| r.path(&format!("{dev}/{f}"));
    let autoprobe = r.read_trim(&format!("{dev}/sriov_drivers_autoprobe")).ok();
    let fail = |what: String| Step::fail("sriov", what, "report it with xehpg-report");
    if let Err(e) = o.io.write(&file("sriov_drivers_autoprobe"), "0") {
        return fail(format!("sriov_drivers_autoprobe: {e}"));
    }
    let result = (|| {
        o.io.write(&file("sriov_numvfs"), &n.to_string())
            .map_err(|e| format!("enabling {n}: {e}"))?;
        let shown = num("sriov_numvfs");
        let links = (0..n)
            .filter(|i| r.exists(&format!("{dev}/virtfn{i}")))
            .count();
        o.io.write(&file("sriov_numvfs"), "0")
            .map_err(|e| format!("disabling: {e}"))?;
        if shown != Some(n) || links != n as usize {
            return Err(format!(
                "sriov_numvfs read {shown:?} and {links} virtfn links after enabling {n}"
            ));
        }
        if num("sriov_numvfs") != Some(0) || r.exists(&format!("{dev}/virtfn0")) {
            return Err("VFs left after writing 0".to_string());
        }
        Ok(())
    })();
    if let Some(a) = autoprobe {
        let _ = o.io.write(&file("sriov_drivers_autoprobe"), &a);
    }
    match result {
        Ok(()) => Step::pass(
            "sriov",
            format!("enabled {n} of {total} VFs and disabled them"),
        ),
        Err(e) => fail(e),
    }
}

/// Reads every readable regular file of the device's debugfs directory.
fn read_debugfs(o: &Options, dbg: &str) -> Step {
    use std::os::unix::fs::PermissionsExt;
    let (mut read, mut failed) = (Vec::new(), Vec::new());
    for name in o.root.list(dbg) {
        let path = o.root.path(&format!("{dbg}/{name}"));
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        if !meta.is_file() || meta.permissions().mode() & 0o444 == 0 {
            continue;
        }
        match o.io.read(&path) {
            Ok(_) => read.push(name),
            Err(e) => failed.push((name, e)),
        }
    }
    debugfs_step(dbg, &read, &failed)
}

#[cfg(test)]
mod tests;
