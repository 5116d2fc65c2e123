//! The QEMU command line.
//!
//! Facts behind the choices (../shared/ENVIRONMENT.md): KVM hangs on the
//! nested CI machines, so the machine is q35 under TCG; guest RAM is a shared
//! memfd so the mock can map it for DMA; the device is QEMU's vfio-user client
//! (`vfio-user-pci`, QEMU >= 10.1) in the JSON `-device` form, the one that
//! takes the nested `socket` object.

use std::path::Path;

/// How the guest console is wired.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConsoleMode {
    /// The kernel console (ttyS0) on QEMU's stdout (a pipe to the runner),
    /// the command channel (ttyS1) on a unix socket the runner listens on;
    /// no monitor.
    Batch { command_socket: String },
    /// Serial port and monitor multiplexed on the terminal (Ctrl-A C
    /// switches, Ctrl-A X quits), with QEMU itself logging the console.
    Interactive { log: String },
}

/// Everything the command line depends on.
#[derive(Debug, Clone)]
pub struct QemuSpec<'a> {
    /// The QEMU command: possibly a loader, its options, the binary, `-L` dirs.
    pub base: &'a [String],
    /// User's extra arguments, appended last so they can override.
    pub extra: &'a [String],
    pub kernel: &'a Path,
    pub initrd: &'a Path,
    /// The kernel command line.
    pub append: &'a str,
    pub mem_mib: u32,
    pub smp: u32,
    /// The mock's vfio-user socket; `None` boots without the device.
    pub socket: Option<&'a Path>,
    /// Every BAR write waits for the server (`x-no-posted-writes`; see
    /// [`vfio_user_device`]).
    pub ordered_writes: bool,
    pub console: ConsoleMode,
}

/// The kernel command line: serial console, and a panic that ends the VM
/// at once (with `-no-reboot`) instead of hanging until the timeout. An oops
/// does not panic: tests look for oopses in dmesg.
pub fn kernel_cmdline(extra: &[String]) -> String {
    let mut cmdline = String::from("console=ttyS0 panic=-1");
    for arg in extra.iter().filter(|a| !a.trim().is_empty()) {
        cmdline.push(' ');
        cmdline.push_str(arg.trim());
    }
    cmdline
}

/// Builds the full argv, program first.
pub fn command_line(spec: &QemuSpec) -> Vec<String> {
    let mut argv: Vec<String> = spec.base.to_vec();
    let mut push = |args: &[&str]| argv.extend(args.iter().map(|a| (*a).to_owned()));
    let mem = format!("{}M", spec.mem_mib);
    push(&["-machine", "q35,accel=tcg,memory-backend=mem"]);
    // SeaBIOS sizes the 64-bit PCI window for the BARs it sees at boot, and
    // the SR-IOV shim's VF BARs (63 of each) appear only after a rescan: a
    // padded window (`opt/org.seabios/pci64`, SeaBIOS `pciinit.c`) leaves
    // room to place them, and a 2 GiB local-memory BAR, again then.
    push(&["-fw_cfg", "name=opt/org.seabios/pci64,string=yes"]);
    push(&["-m", &mem, "-smp", &spec.smp.to_string()]);
    push(&[
        "-object",
        &format!("memory-backend-memfd,id=mem,size={mem},share=on"),
    ]);
    // No default NIC, VGA or monitor: fewer devices to probe, and the guest's
    // PCI list shows just the chipset and the mock.
    push(&["-nodefaults", "-no-user-config", "-display", "none"]);
    match &spec.console {
        // QEMU connects to the socket while it starts, before the guest
        // runs, so nothing the guest writes to ttyS1 is lost; when the
        // runner reads slowly, the UART waits.
        ConsoleMode::Batch { command_socket } => push(&[
            "-serial",
            "stdio",
            "-chardev",
            &format!("socket,id=cmd,path={}", chardev_escape(command_socket)),
            "-serial",
            "chardev:cmd",
        ]),
        ConsoleMode::Interactive { log } => push(&[
            "-chardev",
            &format!(
                "stdio,id=con,mux=on,signal=off,logfile={}",
                chardev_escape(log)
            ),
            "-serial",
            "chardev:con",
            "-mon",
            "chardev=con,mode=readline",
        ]),
    }
    push(&[
        "-kernel",
        &path_arg(spec.kernel),
        "-initrd",
        &path_arg(spec.initrd),
    ]);
    push(&["-append", spec.append, "-no-reboot"]);
    if let Some(socket) = spec.socket {
        push(&["-device", &vfio_user_device(socket, spec.ordered_writes)]);
    }
    argv.extend(spec.extra.iter().cloned());
    argv
}

/// How long QEMU waits for the mock's reply to one vfio-user message, in ms.
/// QEMU's default (`x-msg-timeout`, 5000) was once exceeded on a loaded
/// 2-core host (two TCG guests, their mocks and compilers at once): QEMU then
/// dropped the connection and the device read all ones for the rest of the
/// boot. A mock that is really stuck still fails the scenario, 30 s later.
const MSG_TIMEOUT_MS: u32 = 30_000;

/// The JSON `-device` argument for the vfio-user client.
///
/// QEMU posts a guest's writes to memory BARs: the write is queued on the
/// socket without a reply and the vCPU goes on at once, while the guest's
/// RAM, which the server maps, changes at once. So a server can see a
/// message the guest put in its RAM after a BAR write before that write
/// itself. PCIe forbids that reordering (a read completion may not pass a
/// posted write going the same way, PCIe base specification, "Transaction
/// Ordering Rules"): a device reading host memory after a doorbell sees
/// every BAR write the CPU made before it. A driver that puts its command
/// buffers in system memory and its context state behind the BAR, as
/// upstream xe does as a VF (its CT in system memory, `xe_guc_ct.c`
/// `XE_BO_FLAG_SYSTEM`; its contexts in VRAM), depends on that. With `ordered_writes` each BAR write waits for
/// the server (`x-no-posted-writes`), which keeps PCIe's order at the cost
/// of a round trip per write.
fn vfio_user_device(socket: &Path, ordered_writes: bool) -> String {
    let mut device = serde_json::json!({
        "driver": "vfio-user-pci",
        "socket": { "path": path_arg(socket), "type": "unix" },
        "x-msg-timeout": MSG_TIMEOUT_MS,
    });
    if ordered_writes {
        device["x-no-posted-writes"] = serde_json::Value::Bool(true);
    }
    device.to_string()
}

/// QEMU's option syntax separates values with commas; a literal comma is
/// written twice.
fn chardev_escape(value: &str) -> String {
    value.replace(',', ",,")
}

fn path_arg(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec<'a>(base: &'a [String], extra: &'a [String], socket: Option<&'a Path>) -> QemuSpec<'a> {
        QemuSpec {
            base,
            extra,
            kernel: Path::new("/k/bzImage"),
            initrd: Path::new("/t/initramfs.cpio"),
            append: "console=ttyS0 panic=-1",
            mem_mib: 512,
            smp: 2,
            socket,
            ordered_writes: false,
            console: ConsoleMode::Batch {
                command_socket: "/t/cmd.sock".into(),
            },
        }
    }

    fn value_of<'a>(argv: &'a [String], option: &str) -> Vec<&'a str> {
        argv.windows(2)
            .filter(|w| w[0] == option)
            .map(|w| w[1].as_str())
            .collect()
    }

    #[test]
    fn batch_command_line() {
        let base: Vec<String> = [
            "/q/ld.so",
            "--library-path",
            "/q/lib",
            "/q/qemu",
            "-L",
            "/q/bios",
        ]
        .map(String::from)
        .to_vec();
        let argv = command_line(&spec(&base, &[], Some(Path::new("/t/mock.sock"))));
        assert_eq!(argv[..6], base[..]);
        assert_eq!(
            value_of(&argv, "-machine"),
            ["q35,accel=tcg,memory-backend=mem"]
        );
        assert_eq!(
            value_of(&argv, "-fw_cfg"),
            ["name=opt/org.seabios/pci64,string=yes"]
        );
        assert_eq!(value_of(&argv, "-m"), ["512M"]);
        assert_eq!(value_of(&argv, "-smp"), ["2"]);
        assert_eq!(
            value_of(&argv, "-object"),
            ["memory-backend-memfd,id=mem,size=512M,share=on"]
        );
        // ttyS0 is the console, ttyS1 the command channel.
        assert_eq!(value_of(&argv, "-serial"), ["stdio", "chardev:cmd"]);
        assert_eq!(
            value_of(&argv, "-chardev"),
            ["socket,id=cmd,path=/t/cmd.sock"]
        );
        assert_eq!(value_of(&argv, "-kernel"), ["/k/bzImage"]);
        assert_eq!(value_of(&argv, "-initrd"), ["/t/initramfs.cpio"]);
        assert_eq!(value_of(&argv, "-append"), ["console=ttyS0 panic=-1"]);
        assert!(argv.iter().any(|a| a == "-no-reboot"));
        assert!(argv.iter().any(|a| a == "-nodefaults"));
        assert!(!argv.iter().any(|a| a == "-mon"));
        let device: serde_json::Value =
            serde_json::from_str(value_of(&argv, "-device")[0]).unwrap();
        assert_eq!(
            device,
            serde_json::json!({
                "driver": "vfio-user-pci",
                "socket": {"path": "/t/mock.sock", "type": "unix"},
                "x-msg-timeout": 30000
            })
        );
    }

    #[test]
    fn no_socket_no_device() {
        let base = ["qemu".to_owned()];
        let argv = command_line(&spec(&base, &[], None));
        assert!(value_of(&argv, "-device").is_empty());
    }

    #[test]
    fn extra_arguments_come_last() {
        let base = ["qemu".to_owned()];
        let extra = ["-s".to_owned(), "-S".to_owned()];
        let argv = command_line(&spec(&base, &extra, None));
        assert_eq!(argv[argv.len() - 2..], extra);
    }

    #[test]
    fn interactive_muxes_serial_and_monitor_with_a_log() {
        let base = ["qemu".to_owned()];
        let mut spec = spec(&base, &[], None);
        spec.console = ConsoleMode::Interactive {
            log: "/t/a,b/console.log".into(),
        };
        let argv = command_line(&spec);
        assert_eq!(
            value_of(&argv, "-chardev"),
            ["stdio,id=con,mux=on,signal=off,logfile=/t/a,,b/console.log"]
        );
        assert_eq!(value_of(&argv, "-serial"), ["chardev:con"]);
        assert_eq!(value_of(&argv, "-mon"), ["chardev=con,mode=readline"]);
    }

    #[test]
    fn batch_escapes_the_command_socket_path() {
        let base = ["qemu".to_owned()];
        let mut spec = spec(&base, &[], None);
        spec.console = ConsoleMode::Batch {
            command_socket: "/t/a,b/cmd.sock".into(),
        };
        let argv = command_line(&spec);
        assert_eq!(
            value_of(&argv, "-chardev"),
            ["socket,id=cmd,path=/t/a,,b/cmd.sock"]
        );
    }

    #[test]
    fn json_escapes_the_socket_path() {
        let device = vfio_user_device(Path::new("/t/we\"ird.sock"), false);
        let parsed: serde_json::Value = serde_json::from_str(&device).unwrap();
        assert_eq!(parsed["socket"]["path"], "/t/we\"ird.sock");
        assert!(parsed.get("x-no-posted-writes").is_none());
        let ordered = vfio_user_device(Path::new("/s"), true);
        let parsed: serde_json::Value = serde_json::from_str(&ordered).unwrap();
        assert_eq!(parsed["x-no-posted-writes"], true);
    }

    #[test]
    fn kernel_cmdline_appends_extra_words() {
        assert_eq!(kernel_cmdline(&[]), "console=ttyS0 panic=-1");
        assert_eq!(
            kernel_cmdline(&[" dyndbg=+p ".into(), "".into(), "a b".into()]),
            "console=ttyS0 panic=-1 dyndbg=+p a b"
        );
    }
}
