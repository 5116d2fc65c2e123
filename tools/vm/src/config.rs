//! Turns the command line and `env.mk` into a [`Plan`]: every path and value
//! the run needs, with defaults applied and inputs checked before anything
//! is started.
//!
//! Rule for defaults: an input named explicitly must exist; a default input
//! that is missing is an error only when the run needs it (the default
//! module with `--no-load`, or the default firmware, is skipped with a note),
//! so the VM can boot before the driver or the firmware is built.

use std::path::Path;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::bail;
use anyhow::Context;
use anyhow::Result;

use crate::cli::Cli;
use crate::cli::GuestFile;
use crate::cli::Peer;
use crate::qemu;
use xehpg_common::envmk::EnvMk;

/// The GuC firmware the driver loads for DG2 (Xe-HPG).
pub const DEFAULT_FIRMWARE: &str = "i915/dg2_guc_70.bin";
const DEFAULT_BUSYBOX: &str = "/bin/busybox";
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);
/// Time for the guest's /init to start the command; a TCG boot takes ~3 s,
/// so far more than this is a boot hang.
const DEFAULT_BOOT_TIMEOUT: Duration = Duration::from_secs(60);
const DEFAULT_MEM_MIB: u32 = 512;
const DEFAULT_SMP: u32 = 2;
/// How long one peer command may run: a second VM's boot and its test.
const DEFAULT_PEER_TIMEOUT: Duration = Duration::from_secs(900);

/// A firmware file and its place under the guest's `/lib/firmware`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Firmware {
    pub host: PathBuf,
    pub rel: String,
}

/// The mock device process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Device {
    pub mock: PathBuf,
    pub device_id: Option<u16>,
    /// The GuC firmware the mock checks uploads against (`--guc-fw`).
    pub guc_fw: Option<PathBuf>,
    pub args: Vec<String>,
}

/// Host commands the guest may start by name (`--peer`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Peers {
    /// Names unique, in the order given.
    pub specs: Vec<Peer>,
    /// `--peer-log`; without it the keep dir, else the run's temp dir.
    pub log_dir: Option<PathBuf>,
    /// The limit of each peer run; `None` for none.
    pub timeout: Option<Duration>,
}

/// Output files the user asked for; the rest live in the run's temp dir.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outputs {
    pub keep_dir: Option<PathBuf>,
    pub console: Option<PathBuf>,
    /// The command channel's text, as printed.
    pub output: Option<PathBuf>,
    pub trace: Option<PathBuf>,
    pub summary: Option<PathBuf>,
}

/// A fully resolved run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub kernel: PathBuf,
    /// The kernel tree's `usr/gen_init_cpio`, which writes the initramfs.
    pub gen_init_cpio: PathBuf,
    /// The QEMU command split into words.
    pub qemu: Vec<String>,
    pub qemu_args: Vec<String>,
    pub busybox: PathBuf,
    pub modules: Vec<PathBuf>,
    pub load: bool,
    pub params: Vec<String>,
    pub firmware: Vec<Firmware>,
    pub guest_files: Vec<GuestFile>,
    pub cmdline: String,
    pub mem_mib: u32,
    pub smp: u32,
    /// The runner's own mock; `None` with `--no-device` or `--attach`.
    pub device: Option<Device>,
    /// `--attach`: the vfio-user server socket of a device another process
    /// serves, which QEMU connects to instead of a mock of the runner's.
    pub attach: Option<PathBuf>,
    pub peers: Peers,
    pub outputs: Outputs,
    pub timeout: Option<Duration>,
    /// Until the command starts (batch mode only).
    pub boot_timeout: Option<Duration>,
    pub quiet: bool,
    /// The guest command; `None` for the interactive shell.
    pub command: Option<String>,
    /// Notes for stderr about defaults that were skipped or ignored.
    pub notes: Vec<String>,
}

/// Resolves `cli` against `env` and the repository root. `exists` answers
/// whether a file exists (a parameter so tests need no real files).
///
/// # Errors
///
/// A required value is unset, an explicit input is missing, or options
/// contradict each other.
pub fn resolve(cli: Cli, env: &EnvMk, repo: &Path, exists: &dyn Fn(&Path) -> bool) -> Result<Plan> {
    let mut notes = Vec::new();
    let kernel = resolve_kernel(&cli, env, exists)?;
    let qemu = resolve_qemu(&cli, env, exists)?;
    let gen_init_cpio = resolve_gen_init_cpio(env, exists)?;
    let (modules, load) = resolve_modules(&cli, repo, exists, &mut notes)?;
    if !cli.params.is_empty() && modules.is_empty() {
        bail!("--param given but there is no module to pass it to");
    }
    let firmware = resolve_firmware(&cli, env, exists, &mut notes)?;
    let device = match &cli.attach {
        Some(_) => {
            check_attach(&cli)?;
            None
        }
        None => resolve_device(&cli, &firmware, repo, exists, &mut notes)?,
    };
    let busybox = cli
        .busybox
        .clone()
        .unwrap_or_else(|| DEFAULT_BUSYBOX.into());
    require_file(
        &busybox,
        "busybox",
        "install busybox-static or pass --busybox",
        exists,
    )?;
    for file in &cli.guest_files {
        require_file(&file.host, "--guest-file", "check the HOST part", exists)?;
    }
    let command = (!cli.command.is_empty()).then(|| cli.command.join(" "));
    let timeout = match cli.timeout {
        Some(0) => None,
        Some(secs) => Some(Duration::from_secs(secs)),
        // An interactive session ends when the user says so.
        None => command.as_ref().map(|_| DEFAULT_TIMEOUT),
    };
    // The interactive shell's console is the terminal's: BEGIN is not seen.
    let boot_timeout = match (cli.boot_timeout, &command) {
        (_, None) => None,
        (Some(0), Some(_)) => None,
        (Some(secs), Some(_)) => Some(Duration::from_secs(secs)),
        (None, Some(_)) => Some(DEFAULT_BOOT_TIMEOUT),
    };
    if command.is_none() && cli.boot_timeout.is_some_and(|secs| secs > 0) {
        notes.push("--boot-timeout has no effect on the interactive shell".into());
    }
    if command.is_none() && cli.quiet {
        notes.push("--quiet has no effect on the interactive shell".into());
    }
    let peers = resolve_peers(&cli, command.is_some(), &mut notes)?;
    if command.is_none() && cli.output.is_some() {
        notes.push(
            "--output has no effect on the interactive shell: its output is in the console log"
                .into(),
        );
    }
    Ok(Plan {
        kernel,
        gen_init_cpio,
        qemu,
        qemu_args: cli.qemu_args,
        busybox,
        modules,
        load,
        params: cli.params,
        firmware,
        guest_files: cli.guest_files,
        cmdline: qemu::kernel_cmdline(&cli.append),
        mem_mib: cli.mem_mib.unwrap_or(DEFAULT_MEM_MIB),
        smp: cli.smp.unwrap_or(DEFAULT_SMP),
        device,
        attach: cli.attach,
        peers,
        outputs: Outputs {
            keep_dir: cli.keep_logs,
            console: cli.console,
            output: cli.output,
            trace: cli.trace,
            summary: cli.summary,
        },
        timeout,
        boot_timeout,
        quiet: cli.quiet,
        command,
        notes,
    })
}

/// `$KDIR/usr/gen_init_cpio`, built with the kernel (CONFIG_BLK_DEV_INITRD).
fn resolve_gen_init_cpio(env: &EnvMk, exists: &dyn Fn(&Path) -> bool) -> Result<PathBuf> {
    let kdir = env.get("KDIR").with_context(|| {
        format!(
            "KDIR is not set in {}: the initramfs is written by the kernel tree's \
                 usr/gen_init_cpio; run tools/bootstrap.sh",
            env.origin()
        )
    })?;
    let tool = Path::new(kdir).join("usr/gen_init_cpio");
    require_file(
        &tool,
        "initramfs writer",
        &format!("build it with `make -C {kdir} usr/gen_init_cpio`"),
        exists,
    )?;
    Ok(tool)
}

fn resolve_kernel(cli: &Cli, env: &EnvMk, exists: &dyn Fn(&Path) -> bool) -> Result<PathBuf> {
    let kernel = match &cli.kernel {
        Some(kernel) => kernel.clone(),
        None => Path::new(env.require("KDIR", "--kernel")?).join("arch/x86/boot/bzImage"),
    };
    require_file(
        &kernel,
        "kernel image",
        "build it with tools/bootstrap.sh or pass --kernel",
        exists,
    )?;
    Ok(kernel)
}

fn resolve_qemu(cli: &Cli, env: &EnvMk, exists: &dyn Fn(&Path) -> bool) -> Result<Vec<String>> {
    let text = match &cli.qemu {
        Some(text) => text.as_str(),
        None => env.require("QEMU", "--qemu")?,
    };
    let words: Vec<String> = text.split_whitespace().map(str::to_owned).collect();
    let Some(program) = words.first() else {
        bail!("the QEMU command is empty");
    };
    // A bare name is looked up in PATH at spawn time; a path is checked now.
    if program.contains('/') {
        require_file(
            Path::new(program),
            "QEMU",
            "run tools/bootstrap.sh or pass --qemu",
            exists,
        )?;
    }
    Ok(words)
}

/// The modules and whether to load them.
fn resolve_modules(
    cli: &Cli,
    repo: &Path,
    exists: &dyn Fn(&Path) -> bool,
    notes: &mut Vec<String>,
) -> Result<(Vec<PathBuf>, bool)> {
    if cli.no_module {
        if !cli.modules.is_empty() {
            bail!("--no-module contradicts --module");
        }
        return Ok((Vec::new(), false));
    }
    if !cli.modules.is_empty() {
        for module in &cli.modules {
            require_file(module, "module", "check --module", exists)?;
        }
        check_unique_names(&cli.modules)?;
        return Ok((cli.modules.clone(), !cli.no_load));
    }
    let default = repo.join("build/module/xehpg.ko");
    if exists(&default) {
        return Ok((vec![default], !cli.no_load));
    }
    if cli.no_load {
        notes.push(format!(
            "{} not built; the guest gets no module",
            default.display()
        ));
        return Ok((Vec::new(), false));
    }
    bail!(
        "driver module {} not found: build it (make), or pass --module FILE, --no-module or --no-load",
        default.display()
    )
}

/// Modules land in /lib/modules by file name, so names must differ.
fn check_unique_names(modules: &[PathBuf]) -> Result<()> {
    for (index, module) in modules.iter().enumerate() {
        let name = module.file_name();
        if modules[..index].iter().any(|m| m.file_name() == name) {
            bail!(
                "two modules named {}: /lib/modules holds one",
                module.display()
            );
        }
    }
    Ok(())
}

fn resolve_firmware(
    cli: &Cli,
    env: &EnvMk,
    exists: &dyn Fn(&Path) -> bool,
    notes: &mut Vec<String>,
) -> Result<Vec<Firmware>> {
    if cli.no_firmware {
        return Ok(Vec::new());
    }
    let explicit = !cli.firmware.is_empty() || cli.firmware_dir.is_some();
    let dir = match (&cli.firmware_dir, env.get("GUC_FW_DIR")) {
        (Some(dir), _) => dir.clone(),
        (None, Some(dir)) => PathBuf::from(dir),
        (None, None) if explicit => {
            bail!("no firmware dir: set GUC_FW_DIR in env.mk or pass --firmware-dir")
        }
        (None, None) => {
            notes.push("GUC_FW_DIR unset; the guest gets no firmware".into());
            return Ok(Vec::new());
        }
    };
    let rels = if cli.firmware.is_empty() {
        vec![DEFAULT_FIRMWARE.to_owned()]
    } else {
        cli.firmware.clone()
    };
    let mut firmware = Vec::new();
    for rel in rels {
        let host = dir.join(&rel);
        if !exists(&host) && !explicit {
            notes.push(format!(
                "{} not found; the guest gets no firmware",
                host.display()
            ));
            continue;
        }
        require_file(
            &host,
            "firmware",
            "check --firmware-dir and --firmware",
            exists,
        )?;
        firmware.push(Firmware { host, rel });
    }
    Ok(firmware)
}

/// The options that configure the runner's own mock, each with whether it
/// was given.
fn mock_options(cli: &Cli) -> [(bool, &'static str); 6] {
    [
        (cli.mock.is_some(), "--mock"),
        (!cli.mock_args.is_empty(), "--mock-arg"),
        (cli.device_id.is_some(), "--device-id"),
        (cli.guc_fw.is_some(), "--guc-fw"),
        (cli.trace.is_some(), "--trace"),
        (cli.summary.is_some(), "--summary"),
    ]
}

/// `--attach` starts no mock: the device is whatever serves the socket, so
/// an option for the runner's own mock would silently do nothing.
fn check_attach(cli: &Cli) -> Result<()> {
    if cli.no_device {
        bail!("--no-device contradicts --attach");
    }
    let given: Vec<&str> = mock_options(cli)
        .iter()
        .filter(|(given, _)| *given)
        .map(|(_, option)| *option)
        .collect();
    if !given.is_empty() {
        bail!(
            "{} configure the runner's own mock, which --attach does not start \
             (the device is the one served on the --attach socket)",
            given.join(", ")
        );
    }
    Ok(())
}

/// The peers, their log dir and limit; checks that names are unique.
fn resolve_peers(cli: &Cli, batch: bool, notes: &mut Vec<String>) -> Result<Peers> {
    for (index, peer) in cli.peers.iter().enumerate() {
        if cli.peers[..index].iter().any(|p| p.name == peer.name) {
            bail!("--peer {} given twice", peer.name);
        }
    }
    let tuning = cli.peer_log.is_some() || cli.peer_timeout.is_some();
    if cli.peers.is_empty() {
        if tuning {
            notes.push("--peer-log and --peer-timeout have no effect without --peer".into());
        }
        return Ok(Peers::default());
    }
    if !batch {
        // The guest asks on the command channel, which only a batch run has.
        notes.push("--peer has no effect on the interactive shell".into());
        return Ok(Peers::default());
    }
    Ok(Peers {
        specs: cli.peers.clone(),
        log_dir: cli.peer_log.clone(),
        timeout: match cli.peer_timeout {
            Some(0) => None,
            Some(secs) => Some(Duration::from_secs(secs)),
            None => Some(DEFAULT_PEER_TIMEOUT),
        },
    })
}

fn resolve_device(
    cli: &Cli,
    firmware: &[Firmware],
    repo: &Path,
    exists: &dyn Fn(&Path) -> bool,
    notes: &mut Vec<String>,
) -> Result<Option<Device>> {
    if cli.no_device {
        for (_, option) in mock_options(cli).iter().filter(|(given, _)| *given) {
            notes.push(format!("{option} ignored with --no-device"));
        }
        return Ok(None);
    }
    let mock = cli
        .mock
        .clone()
        .unwrap_or_else(|| repo.join("tools/target/release/xehpg-mock"));
    require_file(
        &mock,
        "mock device",
        "build it (cargo build --release -p xehpg-mock in tools/) or pass --no-device",
        exists,
    )?;
    Ok(Some(Device {
        mock,
        device_id: cli.device_id,
        guc_fw: resolve_guc_fw(cli, firmware, exists)?,
        args: cli.mock_args.clone(),
    }))
}

/// The firmware file the mock compares GuC uploads with: `--guc-fw`, else
/// the default GuC firmware when it is shipped into the guest, unless the
/// mock arguments already name one.
fn resolve_guc_fw(
    cli: &Cli,
    firmware: &[Firmware],
    exists: &dyn Fn(&Path) -> bool,
) -> Result<Option<PathBuf>> {
    let in_mock_args = cli
        .mock_args
        .iter()
        .any(|a| a == "--guc-fw" || a.starts_with("--guc-fw="));
    match &cli.guc_fw {
        Some(_) if in_mock_args => bail!("--guc-fw contradicts --mock-arg --guc-fw"),
        Some(path) => {
            require_file(path, "--guc-fw", "check the path", exists)?;
            Ok(Some(path.clone()))
        }
        None if in_mock_args => Ok(None),
        None => Ok(firmware
            .iter()
            .find(|f| f.rel == DEFAULT_FIRMWARE)
            .map(|f| f.host.clone())),
    }
}

fn require_file(path: &Path, what: &str, hint: &str, exists: &dyn Fn(&Path) -> bool) -> Result<()> {
    if !exists(path) {
        bail!("{what} not found: {} ({hint})", path.display());
    }
    Ok(())
}

/// Finds the repository root above the runner's binary
/// (`<repo>/tools/target/<profile>/xehpg-vm`) by looking for this crate.
pub fn find_repo(exe: &Path, exists: &dyn Fn(&Path) -> bool) -> Option<PathBuf> {
    exe.ancestors()
        .skip(1)
        .find(|dir| exists(&dir.join("tools/vm/Cargo.toml")))
        .map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    const ENV: &str = "\
KDIR := /c/linux
QEMU := /q/ld.so --library-path /q/lib /q/qemu -L /q/bios
GUC_FW_DIR := /c/fw
";

    /// Files that exist in the fake world of these tests.
    fn world(extra: &[&str]) -> BTreeSet<PathBuf> {
        let base = [
            "/c/linux/arch/x86/boot/bzImage",
            "/c/linux/usr/gen_init_cpio",
            "/q/ld.so",
            "/bin/busybox",
            "/r/build/module/xehpg.ko",
            "/r/tools/target/release/xehpg-mock",
            "/c/fw/i915/dg2_guc_70.bin",
        ];
        base.iter().chain(extra).map(PathBuf::from).collect()
    }

    fn resolve_in(args: &[&str], files: &BTreeSet<PathBuf>) -> Result<Plan> {
        let cli = <Cli as clap::Parser>::try_parse_from(
            std::iter::once("xehpg-vm").chain(args.iter().copied()),
        )?;
        let env = EnvMk::parse(ENV)?;
        resolve(cli, &env, Path::new("/r"), &|p| files.contains(p))
    }

    fn plan(args: &[&str]) -> Plan {
        resolve_in(args, &world(&[])).unwrap()
    }

    fn error(args: &[&str], files: &BTreeSet<PathBuf>) -> String {
        format!("{:#}", resolve_in(args, files).unwrap_err())
    }

    #[test]
    fn defaults_from_env_and_repo() {
        let plan = plan(&["--", "uname", "-a"]);
        assert_eq!(plan.kernel, PathBuf::from("/c/linux/arch/x86/boot/bzImage"));
        assert_eq!(
            plan.qemu,
            [
                "/q/ld.so",
                "--library-path",
                "/q/lib",
                "/q/qemu",
                "-L",
                "/q/bios"
            ]
        );
        assert_eq!(plan.modules, [PathBuf::from("/r/build/module/xehpg.ko")]);
        assert!(plan.load);
        assert_eq!(
            plan.firmware,
            [Firmware {
                host: "/c/fw/i915/dg2_guc_70.bin".into(),
                rel: "i915/dg2_guc_70.bin".into()
            }]
        );
        assert_eq!(
            plan.device,
            Some(Device {
                mock: "/r/tools/target/release/xehpg-mock".into(),
                device_id: None,
                guc_fw: Some("/c/fw/i915/dg2_guc_70.bin".into()),
                args: vec![]
            })
        );
        assert_eq!(plan.busybox, PathBuf::from("/bin/busybox"));
        assert_eq!(plan.command.as_deref(), Some("uname -a"));
        assert_eq!(plan.timeout, Some(Duration::from_secs(600)));
        assert_eq!(plan.boot_timeout, Some(Duration::from_secs(60)));
        assert_eq!((plan.mem_mib, plan.smp), (512, 2));
        assert_eq!(plan.cmdline, "console=ttyS0 panic=-1");
        assert!(plan.notes.is_empty(), "{:?}", plan.notes);
    }

    #[test]
    fn options_override_env() {
        let files = world(&["/k", "/m/a.ko", "/m/b.ko", "/fw2/x.bin", "/mock2"]);
        let plan = resolve_in(
            &[
                "--kernel",
                "/k",
                "--qemu",
                "qemu-system-x86_64 -L /x",
                "--module",
                "/m/a.ko",
                "--module",
                "/m/b.ko",
                "--param",
                "p=1",
                "--firmware-dir",
                "/fw2",
                "--firmware",
                "x.bin",
                "--mock",
                "/mock2",
                "--device-id",
                "56c1",
                "--mock-arg",
                "-v",
                "--append",
                "quiet",
                "--mem",
                "1024",
                "--smp",
                "1",
                "--timeout",
                "5",
                "--",
                "true",
            ],
            &files,
        )
        .unwrap();
        assert_eq!(plan.kernel, PathBuf::from("/k"));
        // A bare program name is left to PATH lookup.
        assert_eq!(plan.qemu, ["qemu-system-x86_64", "-L", "/x"]);
        assert_eq!(
            plan.modules,
            [PathBuf::from("/m/a.ko"), PathBuf::from("/m/b.ko")]
        );
        assert_eq!(plan.params, ["p=1"]);
        assert_eq!(plan.firmware[0].host, PathBuf::from("/fw2/x.bin"));
        let device = plan.device.unwrap();
        assert_eq!(device.mock, PathBuf::from("/mock2"));
        assert_eq!(device.device_id, Some(0x56c1));
        assert_eq!(device.args, ["-v"]);
        assert_eq!(plan.cmdline, "console=ttyS0 panic=-1 quiet");
        assert_eq!((plan.mem_mib, plan.smp), (1024, 1));
        assert_eq!(plan.timeout, Some(Duration::from_secs(5)));
    }

    #[test]
    fn interactive_has_no_default_timeout() {
        assert_eq!(plan(&[]).timeout, None);
        assert_eq!(plan(&[]).command, None);
        assert_eq!(
            plan(&["--timeout", "9"]).timeout,
            Some(Duration::from_secs(9))
        );
        assert_eq!(plan(&["--timeout", "0", "--", "x"]).timeout, None);
    }

    #[test]
    fn boot_timeout_only_with_a_command() {
        let boot = |args: &[&str]| plan(args).boot_timeout;
        assert_eq!(
            boot(&["--boot-timeout", "5", "--", "x"]),
            Some(Duration::from_secs(5))
        );
        assert_eq!(boot(&["--boot-timeout", "0", "--", "x"]), None);
        assert_eq!(boot(&[]), None);
        let interactive = plan(&["--boot-timeout", "5"]);
        assert_eq!(interactive.boot_timeout, None);
        assert_eq!(
            interactive.notes,
            ["--boot-timeout has no effect on the interactive shell"]
        );
        assert!(plan(&["--boot-timeout", "0"]).notes.is_empty());
    }

    #[test]
    fn missing_default_module_is_fine_only_without_loading() {
        let mut files = world(&[]);
        files.remove(Path::new("/r/build/module/xehpg.ko"));
        assert!(error(&["--", "x"], &files).contains("--no-load"));
        let plan = resolve_in(&["--no-load", "--", "x"], &files).unwrap();
        assert!(plan.modules.is_empty());
        assert_eq!(plan.notes.len(), 1);
        let plan = resolve_in(&["--no-module", "--", "x"], &files).unwrap();
        assert!(plan.modules.is_empty() && plan.notes.is_empty());
    }

    #[test]
    fn no_load_keeps_existing_module() {
        let plan = plan(&["--no-load"]);
        assert_eq!(plan.modules, [PathBuf::from("/r/build/module/xehpg.ko")]);
        assert!(!plan.load);
    }

    #[test]
    fn module_errors() {
        let files = world(&["/a/x.ko", "/b/x.ko"]);
        assert!(error(&["--module", "/nope.ko"], &files).contains("module not found: /nope.ko"));
        assert!(
            error(&["--module", "/a/x.ko", "--module", "/b/x.ko"], &files).contains("two modules")
        );
        assert!(error(&["--module", "/a/x.ko", "--no-module"], &files).contains("contradicts"));
        assert!(error(&["--no-module", "--param", "a=1"], &files).contains("no module"));
    }

    #[test]
    fn firmware_rules() {
        let mut files = world(&[]);
        files.remove(Path::new("/c/fw/i915/dg2_guc_70.bin"));
        // Default missing: a note. Explicit missing: an error.
        let plan = resolve_in(&[], &files).unwrap();
        assert!(plan.firmware.is_empty());
        assert_eq!(plan.notes.len(), 1);
        assert!(
            error(&["--firmware", "i915/dg2_guc_70.bin"], &files).contains("firmware not found")
        );
        assert!(resolve_in(&["--no-firmware"], &files)
            .unwrap()
            .notes
            .is_empty());
    }

    #[test]
    fn guc_fw_follows_the_shipped_firmware() {
        let guc_fw = |args: &[&str], files: &BTreeSet<PathBuf>| {
            resolve_in(args, files).unwrap().device.unwrap().guc_fw
        };
        let files = world(&["/g.bin", "/fw2/x.bin"]);
        let shipped = Some(PathBuf::from("/c/fw/i915/dg2_guc_70.bin"));
        assert_eq!(guc_fw(&[], &files), shipped);
        // Not shipped: nothing to compare with.
        assert_eq!(guc_fw(&["--no-firmware"], &files), None);
        assert_eq!(
            guc_fw(&["--firmware-dir", "/fw2", "--firmware", "x.bin"], &files),
            None
        );
        let mut missing = world(&[]);
        missing.remove(Path::new("/c/fw/i915/dg2_guc_70.bin"));
        assert_eq!(guc_fw(&[], &missing), None);
        // The user's own choice wins.
        assert_eq!(guc_fw(&["--mock-arg", "--guc-fw=/x"], &files), None);
        assert_eq!(
            guc_fw(&["--mock-arg", "--guc-fw", "--mock-arg", "/x"], &files),
            None
        );
        assert_eq!(
            guc_fw(&["--guc-fw", "/g.bin", "--no-firmware"], &files),
            Some(PathBuf::from("/g.bin"))
        );
        assert!(error(&["--guc-fw", "/nope"], &files).contains("--guc-fw not found"));
        assert!(
            error(&["--guc-fw", "/g.bin", "--mock-arg", "--guc-fw=/x"], &files)
                .contains("contradicts")
        );
    }

    #[test]
    fn no_device_drops_the_mock_and_notes_ignored_options() {
        let mut files = world(&[]);
        files.remove(Path::new("/r/tools/target/release/xehpg-mock"));
        assert!(error(&[], &files).contains("--no-device"));
        let plan = resolve_in(&["--no-device", "--trace", "/t"], &files).unwrap();
        assert_eq!(plan.device, None);
        assert_eq!(plan.notes, ["--trace ignored with --no-device"]);
    }

    #[test]
    fn attach_starts_no_mock_and_refuses_mock_options() {
        let mut files = world(&[]);
        // The mock need not even be built.
        files.remove(Path::new("/r/tools/target/release/xehpg-mock"));
        let plan = resolve_in(
            &[
                "--attach",
                "/t/vf1.sock",
                "--no-module",
                "--mem",
                "768",
                "--keep-logs",
                "/l",
                "--",
                "true",
            ],
            &files,
        )
        .unwrap();
        assert_eq!(plan.attach, Some("/t/vf1.sock".into()));
        assert_eq!(plan.device, None);
        assert_eq!(plan.mem_mib, 768);
        assert!(plan.notes.is_empty(), "{:?}", plan.notes);
        for (option, value) in [
            ("--mock", "/r/tools/target/release/xehpg-mock"),
            ("--mock-arg", "--fault=x"),
            ("--device-id", "0x56c0"),
            ("--guc-fw", "/c/fw/i915/dg2_guc_70.bin"),
            ("--trace", "/t.jsonl"),
            ("--summary", "/s.json"),
        ] {
            let err = error(&["--attach", "/t/vf1.sock", option, value], &world(&[]));
            assert!(err.starts_with(option), "{option}: {err}");
            assert!(err.contains("--attach does not start"), "{option}: {err}");
        }
        // All of them named at once.
        assert!(error(
            &["--attach", "/s", "--trace", "/t", "--mock-arg", "-v"],
            &world(&[])
        )
        .starts_with("--mock-arg, --trace configure"));
        assert!(error(&["--attach", "/s", "--no-device"], &world(&[])).contains("contradicts"));
    }

    #[test]
    fn peers_are_unique_and_batch_only() {
        let two = plan(&["--peer", "a=true", "--peer", "b=false", "--", "x"]);
        let names: Vec<&str> = two.peers.specs.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(two.peers.timeout, Some(Duration::from_secs(900)));
        assert_eq!(two.peers.log_dir, None);
        let tuned = plan(&[
            "--peer",
            "a=true",
            "--peer-timeout",
            "0",
            "--peer-log",
            "/p",
            "--",
            "x",
        ]);
        assert_eq!(tuned.peers.timeout, None);
        assert_eq!(tuned.peers.log_dir, Some("/p".into()));
        assert_eq!(
            plan(&["--peer", "a=true", "--peer-timeout", "5", "--", "x"])
                .peers
                .timeout,
            Some(Duration::from_secs(5))
        );
        assert!(error(
            &["--peer", "a=true", "--peer", "a=false", "--", "x"],
            &world(&[])
        )
        .contains("--peer a given twice"));
        // The interactive shell has no command channel to ask on.
        let interactive = plan(&["--peer", "a=true"]);
        assert_eq!(interactive.peers, Peers::default());
        assert_eq!(
            interactive.notes,
            ["--peer has no effect on the interactive shell"]
        );
        let unused = plan(&["--peer-timeout", "5", "--", "x"]);
        assert_eq!(unused.peers, Peers::default());
        assert_eq!(unused.notes.len(), 1, "{:?}", unused.notes);
    }

    #[test]
    fn missing_env_values_name_the_option() {
        let files = world(&[]);
        let cli = Cli::default();
        let env = EnvMk::parse("").unwrap();
        let err = resolve(cli, &env, Path::new("/r"), &|p| files.contains(p)).unwrap_err();
        assert!(err.to_string().contains("--kernel"), "{err}");
        let cli = Cli {
            kernel: Some("/c/linux/arch/x86/boot/bzImage".into()),
            ..Cli::default()
        };
        let err = resolve(cli, &env, Path::new("/r"), &|p| files.contains(p)).unwrap_err();
        assert!(err.to_string().contains("--qemu"), "{err}");
    }

    #[test]
    fn missing_inputs_are_reported() {
        let mut files = world(&[]);
        files.remove(Path::new("/c/linux/arch/x86/boot/bzImage"));
        assert!(error(&[], &files).contains("kernel image not found"));
        assert!(error(&["--guest-file", "/no:/x"], &world(&[])).contains("--guest-file not found"));
        assert!(error(&["--busybox", "/no"], &world(&[])).contains("busybox not found"));
        assert!(error(&["--qemu", "/no/qemu"], &world(&[])).contains("QEMU not found"));
        assert!(error(&["--qemu", "  "], &world(&[])).contains("empty"));
    }

    #[test]
    fn outputs_and_quiet() {
        let plan = plan(&[
            "-q",
            "--keep-logs",
            "/l",
            "--console",
            "/c.log",
            "--output",
            "/o.log",
            "--",
            "x",
        ]);
        assert!(plan.quiet);
        assert_eq!(plan.outputs.keep_dir, Some("/l".into()));
        assert_eq!(plan.outputs.console, Some("/c.log".into()));
        assert_eq!(plan.outputs.output, Some("/o.log".into()));
        assert_eq!(plan.outputs.trace, None);
        assert!(plan.notes.is_empty(), "{:?}", plan.notes);
    }

    #[test]
    fn interactive_notes_batch_only_options() {
        let plan = plan(&["-q", "--output", "/o.log"]);
        assert_eq!(plan.command, None);
        assert_eq!(plan.notes.len(), 2, "{:?}", plan.notes);
        assert!(plan.notes[1].starts_with("--output has no effect"));
    }

    #[test]
    fn repo_is_found_above_the_binary() {
        let files: BTreeSet<PathBuf> = [PathBuf::from("/w/repo/tools/vm/Cargo.toml")].into();
        let exists = |p: &Path| files.contains(p);
        assert_eq!(
            find_repo(Path::new("/w/repo/tools/target/release/xehpg-vm"), &exists),
            Some(PathBuf::from("/w/repo"))
        );
        assert_eq!(find_repo(Path::new("/usr/bin/xehpg-vm"), &exists), None);
    }
}
