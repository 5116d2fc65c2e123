//! Command-line options, declared with clap. Options take their value as the
//! next argument or after `=` (`--mem 1024`, `--mem=1024`); everything after
//! `--` is the guest command.

use std::path::PathBuf;

use anyhow::anyhow;
use anyhow::bail;
use anyhow::Context;
use anyhow::Result;
use clap::Parser;

use crate::console;

/// A `--guest-file HOST:GUEST` pair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuestFile {
    /// File on the host.
    pub host: PathBuf,
    /// Absolute path in the guest.
    pub guest: String,
}

/// A `--peer NAME=COMMAND` pair: a host command the guest starts by name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Peer {
    /// `[a-z0-9-]+`, the name in the guest's `XEHPG-VM-PEER=NAME`.
    pub name: String,
    /// Run on the host with `sh -c`.
    pub command: String,
}

/// The options as given, before defaults from `env.mk` are applied.
#[derive(Debug, Clone, Default, PartialEq, Eq, Parser)]
#[command(
    name = "xehpg-vm",
    // A later single-valued option wins: a harness passes its defaults
    // first and a test's own choice after them.
    args_override_self = true,
    about = "Boots the test kernel in QEMU with the xehpg mock device, loads the driver and\n\
runs COMMAND in the guest.",
    long_about = "Boots the test kernel in QEMU with the xehpg mock device, loads the driver and\n\
runs COMMAND in the guest with `sh -c` (words are joined with spaces), and\n\
exits with COMMAND's status. COMMAND's output (stdout and stderr, and insmod's\n\
errors) has a serial port of its own, apart from the kernel console; it goes\n\
to stdout, and without -q so does the console, a line at a time as each\n\
arrives. Without COMMAND: an interactive shell on the console (Ctrl-A X kills\n\
QEMU).\n\n\
With --attach SOCKET the device is the one another process serves on SOCKET\n\
(a VF of the host VM's mock) and no mock is started. With --peer NAME=COMMAND\n\
the guest command can run COMMAND on the host (sh -c, one at a time) by\n\
printing XEHPG-VM-PEER=NAME on its stdout; the runner answers\n\
XEHPG-VM-ACK=NAME ok (exit status 0) or failed on /dev/ttyS1 when it ends\n\
(tools/guest/lib.sh: peer NAME).\n\n\
Defaults come from $XEHPG_CACHE/env.mk (default $HOME/.cache/xehpg), written\n\
by tools/bootstrap.sh.",
    after_help = "Exit status: COMMAND's, 124 on timeout, 125 when the guest never reported\n\
one (panic, QEMU failure, setup error), 126 when the boot hung (COMMAND never\n\
started within --boot-timeout), 128+N on signal N, 2 on bad usage."
)]
pub struct Cli {
    /// Repository root (default: found from the binary's path)
    #[arg(long, value_name = "DIR", help_heading = "Inputs")]
    pub repo: Option<PathBuf>,
    /// Kernel image (default: $KDIR/arch/x86/boot/bzImage)
    #[arg(long, value_name = "FILE", help_heading = "Inputs")]
    pub kernel: Option<PathBuf>,
    /// QEMU command, split on whitespace (default: $QEMU)
    #[arg(long, value_name = "CMD", help_heading = "Inputs")]
    pub qemu: Option<String>,
    /// Extra QEMU argument (repeatable)
    #[arg(
        long = "qemu-arg",
        value_name = "ARG",
        allow_hyphen_values = true,
        help_heading = "Inputs"
    )]
    pub qemu_args: Vec<String>,
    /// Static busybox for the guest (default: /bin/busybox)
    #[arg(long, value_name = "FILE", help_heading = "Inputs")]
    pub busybox: Option<PathBuf>,

    /// Module to load, in order (repeatable; replaces the default
    /// <repo>/build/module/xehpg.ko)
    #[arg(long = "module", value_name = "FILE", help_heading = "Guest")]
    pub modules: Vec<PathBuf>,
    /// No module at all
    #[arg(long, help_heading = "Guest")]
    pub no_module: bool,
    /// Copy the modules to /lib/modules but do not insmod
    #[arg(long, help_heading = "Guest")]
    pub no_load: bool,
    /// Parameter of the first module (repeatable)
    #[arg(long = "param", value_name = "K=V", value_parser = parse_param, help_heading = "Guest")]
    pub params: Vec<String>,
    /// Firmware package dir (default: $GUC_FW_DIR)
    #[arg(long, value_name = "DIR", help_heading = "Guest")]
    pub firmware_dir: Option<PathBuf>,
    /// File copied to /lib/firmware/REL (repeatable; default: i915/dg2_guc_70.bin)
    #[arg(long, value_name = "REL", value_parser = parse_firmware, help_heading = "Guest")]
    pub firmware: Vec<String>,
    /// Copy no firmware
    #[arg(long, help_heading = "Guest")]
    pub no_firmware: bool,
    /// Copy a file into the guest, mode preserved (repeatable)
    #[arg(
        long = "guest-file",
        value_name = "HOST:GUEST",
        value_parser = parse_guest_file,
        help_heading = "Guest"
    )]
    pub guest_files: Vec<GuestFile>,
    /// Extra kernel command line
    #[arg(
        long,
        value_name = "ARGS",
        allow_hyphen_values = true,
        help_heading = "Guest"
    )]
    pub append: Vec<String>,
    /// Guest RAM (default 512)
    #[arg(long = "mem", value_name = "MIB", value_parser = parse_positive, help_heading = "Guest")]
    pub mem_mib: Option<u32>,
    /// Guest CPUs (default 2)
    #[arg(long, value_name = "N", value_parser = parse_positive, help_heading = "Guest")]
    pub smp: Option<u32>,

    /// Mock device (default: <repo>/tools/target/release/xehpg-mock)
    #[arg(long, value_name = "FILE", help_heading = "Device")]
    pub mock: Option<PathBuf>,
    /// Argument passed to the mock (repeatable)
    #[arg(
        long = "mock-arg",
        value_name = "ARG",
        allow_hyphen_values = true,
        help_heading = "Device"
    )]
    pub mock_args: Vec<String>,
    /// PCI device ID the mock presents (e.g. 0x56c0)
    #[arg(long, value_name = "HEX", value_parser = parse_device_id, help_heading = "Device")]
    pub device_id: Option<u16>,
    /// GuC firmware the mock checks uploads against (default: the shipped
    /// i915/dg2_guc_70.bin, unless --no-firmware or a --mock-arg --guc-fw)
    #[arg(long, value_name = "FILE", help_heading = "Device")]
    pub guc_fw: Option<PathBuf>,
    /// Boot without the mock device
    #[arg(long, help_heading = "Device")]
    pub no_device: bool,
    /// Attach the vfio-user-pci device to SOCKET, a vfio-user server another
    /// process runs (a VF the host VM's mock serves): no mock of our own,
    /// and SOCKET is neither made nor removed
    #[arg(long, value_name = "SOCKET", help_heading = "Device")]
    pub attach: Option<PathBuf>,

    /// Host command the guest starts by printing XEHPG-VM-PEER=NAME on the
    /// command channel; its end is answered XEHPG-VM-ACK=NAME ok|failed
    /// (repeatable; NAME is [a-z0-9-]+)
    #[arg(
        long = "peer",
        value_name = "NAME=COMMAND",
        value_parser = parse_peer,
        allow_hyphen_values = true,
        help_heading = "Peers"
    )]
    pub peers: Vec<Peer>,
    /// Append each peer's stdout and stderr to DIR/peer-NAME.log (default: the
    /// --keep-logs dir, else the run's temporary dir)
    #[arg(long, value_name = "DIR", help_heading = "Peers")]
    pub peer_log: Option<PathBuf>,
    /// Stop a peer that runs longer than SECS and answer `failed` (default
    /// 900; 0 = none)
    #[arg(long, value_name = "SECS", value_parser = parse_number, help_heading = "Peers")]
    pub peer_timeout: Option<u64>,

    /// Mock access trace
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub trace: Option<PathBuf>,
    /// Mock summary (JSON)
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub summary: Option<PathBuf>,
    /// Save the full kernel console log
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub console: Option<PathBuf>,
    /// Save COMMAND's output (as printed on stdout)
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub output: Option<PathBuf>,
    /// Keep the console log, COMMAND's output, the mock's stdout/stderr, its
    /// summary and a trace (turned on) in DIR (console.log, output.log, ...)
    #[arg(long, value_name = "DIR", help_heading = "Output")]
    pub keep_logs: Option<PathBuf>,
    /// Kill everything after SECS (default 600 with COMMAND, none for the
    /// interactive shell; 0 = none)
    #[arg(long, value_name = "SECS", value_parser = parse_number, help_heading = "Output")]
    pub timeout: Option<u64>,
    /// Stop everything, exiting 126, if the guest's /init has not started
    /// COMMAND after SECS (default 60; 0 = none; not for the interactive shell)
    #[arg(long, value_name = "SECS", value_parser = parse_number, help_heading = "Output")]
    pub boot_timeout: Option<u64>,
    /// Print only COMMAND's output, not the kernel console
    #[arg(short, long, help_heading = "Output")]
    pub quiet: bool,

    /// The guest command, after `--`; none for the interactive shell.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// A module parameter: `name=value`, or a bare `name` (a bool set to true).
fn parse_param(value: &str) -> Result<String> {
    let name = value.split_once('=').map_or(value, |(name, _)| name);
    if name.is_empty() || name.contains(char::is_whitespace) {
        bail!("expected NAME=VALUE");
    }
    Ok(value.to_owned())
}

/// A firmware path relative to the firmware directory, without `..`, since it
/// names both the host file and its place under the guest's /lib/firmware.
fn parse_firmware(value: &str) -> Result<String> {
    let rel = value.trim_start_matches('/');
    if rel.is_empty()
        || rel
            .split('/')
            .any(|c| c.is_empty() || c == "." || c == "..")
    {
        bail!("expected a relative path like i915/dg2_guc_70.bin");
    }
    Ok(rel.to_owned())
}

/// `HOST:GUEST`; split at the last colon, so a host path may contain colons.
fn parse_guest_file(value: &str) -> Result<GuestFile> {
    let (host, guest) = value
        .rsplit_once(':')
        .ok_or_else(|| anyhow!("expected HOST:GUEST"))?;
    if host.is_empty() || !guest.starts_with('/') || guest.ends_with('/') {
        bail!("expected HOST:GUEST with an absolute guest file path");
    }
    Ok(GuestFile {
        host: host.into(),
        guest: guest.to_owned(),
    })
}

/// `NAME=COMMAND`, split at the first `=`: a command may contain `=`, a name
/// may not.
fn parse_peer(value: &str) -> Result<Peer> {
    let (name, command) = value
        .split_once('=')
        .ok_or_else(|| anyhow!("expected NAME=COMMAND"))?;
    if !console::is_peer_name(name) {
        bail!("peer name {name:?} is not [a-z0-9-]+");
    }
    if name == console::MOCK_ACK_NAME {
        bail!("peer name {name:?} is taken: the runner answers mock requests with it");
    }
    if command.trim().is_empty() {
        bail!("peer {name} has an empty command");
    }
    Ok(Peer {
        name: name.to_owned(),
        command: command.to_owned(),
    })
}

/// A PCI device ID in hex, with or without `0x`.
fn parse_device_id(value: &str) -> Result<u16> {
    let digits = value
        .strip_prefix("0x")
        .or_else(|| value.strip_prefix("0X"))
        .unwrap_or(value);
    u16::from_str_radix(digits, 16).context("expected a 16-bit hex number like 0x56c0")
}

fn parse_number(value: &str) -> Result<u64> {
    value.parse().map_err(|_| anyhow!("expected a number"))
}

fn parse_positive(value: &str) -> Result<u32> {
    match value.parse() {
        Ok(0) => bail!("must be at least 1"),
        Ok(n) => Ok(n),
        Err(_) => bail!("expected a number"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("xehpg-vm").chain(args.iter().copied()))
    }

    fn parse_ok(args: &[&str]) -> Cli {
        parse(args).unwrap()
    }

    fn parse_err(args: &[&str]) -> String {
        parse(args).unwrap_err().to_string()
    }

    #[test]
    fn the_declaration_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn empty_command_line_is_interactive_with_defaults() {
        assert_eq!(parse_ok(&[]), Cli::default());
    }

    #[test]
    fn command_is_everything_after_double_dash() {
        let cli = parse_ok(&["-q", "--", "echo", "--mem", "--"]);
        assert!(cli.quiet);
        assert_eq!(cli.command, ["echo", "--mem", "--"]);
        assert_eq!(cli.mem_mib, None);
        assert!(parse(&["uname"]).is_err());
    }

    #[test]
    fn repeatable_options_keep_order_and_take_hyphen_values() {
        let cli = parse_ok(&[
            "--module",
            "a.ko",
            "--module=b.ko",
            "--param",
            "x=1",
            "--param",
            "flag",
            "--mock-arg",
            "--fault",
            "--mock-arg=x",
            "--qemu-arg",
            "-s",
            "--append=a=b c",
            "--append",
            "d",
        ]);
        assert_eq!(cli.modules, [PathBuf::from("a.ko"), PathBuf::from("b.ko")]);
        assert_eq!(cli.params, ["x=1", "flag"]);
        assert_eq!(cli.mock_args, ["--fault", "x"]);
        assert_eq!(cli.qemu_args, ["-s"]);
        assert_eq!(cli.append, ["a=b c", "d"]);
    }

    #[test]
    fn value_checks() {
        assert_eq!(parse_ok(&["--device-id", "0x56c0"]).device_id, Some(0x56c0));
        assert_eq!(parse_ok(&["--device-id", "56C1"]).device_id, Some(0x56c1));
        assert!(parse_err(&["--device-id", "0x10000"]).contains("16-bit hex"));
        assert_eq!(
            parse_ok(&["--firmware", "/i915/x.bin"]).firmware,
            ["i915/x.bin"]
        );
        assert!(parse_err(&["--firmware", "a/../x"]).contains("relative path"));
        assert!(parse_err(&["--firmware", "a//b"]).contains("relative path"));
        assert!(parse_err(&["--param", "a b=1"]).contains("NAME=VALUE"));
        assert!(parse_err(&["--mem", "0"]).contains("at least 1"));
        assert!(parse_err(&["--smp", "two"]).contains("expected a number"));
        assert_eq!(
            parse_ok(&["--smp", "2", "--smp", "1"]).smp,
            Some(1),
            "the last wins"
        );
        assert_eq!(parse_ok(&["--timeout=0"]).timeout, Some(0));
        assert!(parse_err(&["--no-load=1"]).contains("--no-load"));
    }

    #[test]
    fn peer_splits_at_the_first_equals_sign() {
        let cli = parse_ok(&[
            "--peer",
            "vf1=tools/vm/run --attach /t/vf1.sock -- sh /tests/vf.sh",
            "--peer=b-2=FOO=1 exec -x",
            "--peer-timeout",
            "60",
            "--peer-log",
            "/l",
        ]);
        assert_eq!(
            cli.peers,
            [
                Peer {
                    name: "vf1".into(),
                    command: "tools/vm/run --attach /t/vf1.sock -- sh /tests/vf.sh".into()
                },
                Peer {
                    name: "b-2".into(),
                    command: "FOO=1 exec -x".into()
                }
            ]
        );
        assert_eq!(cli.peer_timeout, Some(60));
        assert_eq!(cli.peer_log, Some("/l".into()));
        // A command may start with a hyphen, since it is all one value.
        assert_eq!(parse_ok(&["--peer", "x=-y"]).peers[0].command, "-y");
        for (bad, why) in [
            ("hello", "NAME=COMMAND"),
            ("=true", "not [a-z0-9-]+"),
            ("Vf1=true", "not [a-z0-9-]+"),
            ("vf_1=true", "not [a-z0-9-]+"),
            ("vf 1=true", "not [a-z0-9-]+"),
            ("mock=true", "taken"),
            ("vf1=", "empty command"),
            ("vf1=  ", "empty command"),
        ] {
            assert!(parse_err(&["--peer", bad]).contains(why), "{bad}");
        }
        assert!(parse_err(&["--peer-timeout", "soon"]).contains("expected a number"));
    }

    #[test]
    fn attach_takes_a_path() {
        let cli = parse_ok(&["--attach", "/t/vf1.sock", "--", "true"]);
        assert_eq!(cli.attach, Some("/t/vf1.sock".into()));
    }

    #[test]
    fn guest_file_splits_at_last_colon() {
        let cli = parse_ok(&["--guest-file", "/h/a:b.sh:/t/x.sh"]);
        assert_eq!(
            cli.guest_files,
            [GuestFile {
                host: "/h/a:b.sh".into(),
                guest: "/t/x.sh".into()
            }]
        );
        assert!(parse_err(&["--guest-file", "a.sh"]).contains("HOST:GUEST"));
        assert!(parse_err(&["--guest-file", "a.sh:rel"]).contains("absolute"));
        assert!(parse_err(&["--guest-file", "a.sh:/dir/"]).contains("absolute"));
    }
}
