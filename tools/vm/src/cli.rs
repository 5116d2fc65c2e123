//! Command-line parsing.
//!
//! Hand-rolled rather than clap: the option set is flat, and this keeps the
//! runner quick to build on the small CI machines. Options take their value as
//! the next argument or after `=` (`--mem 1024`, `--mem=1024`); everything
//! after `--` is the guest command.

use std::path::PathBuf;

use anyhow::anyhow;
use anyhow::bail;
use anyhow::Context;
use anyhow::Result;

/// The `--help` text.
pub const USAGE: &str = "\
Usage: xehpg-vm [OPTIONS] [-- COMMAND...]

Boots the test kernel in QEMU with the xehpg mock device, loads the driver and
runs COMMAND in the guest with `sh -c` (words are joined with spaces), and
exits with COMMAND's status. COMMAND's output (stdout and stderr, and insmod's
errors) has a serial port of its own, apart from the kernel console; it goes
to stdout, and without -q so does the console, a line at a time as each
arrives. Without COMMAND: an interactive shell on the console (Ctrl-A X kills
QEMU).
Exit status: COMMAND's, 124 on timeout, 125 when the guest never reported
one (panic, QEMU failure, setup error), 126 when the boot hung (COMMAND never
started within --boot-timeout), 128+N on signal N, 2 on bad usage.

Defaults come from $XEHPG_CACHE/env.mk (default $HOME/.cache/xehpg), written
by tools/bootstrap.sh.

Inputs:
  --repo DIR            repository root (default: found from the binary's path)
  --kernel FILE         kernel image (default: $KDIR/arch/x86/boot/bzImage)
  --qemu \"CMD\"          QEMU command, split on whitespace (default: $QEMU)
  --qemu-arg ARG        extra QEMU argument (repeatable)
  --busybox FILE        static busybox for the guest (default: /bin/busybox)
Guest:
  --module FILE         module to load, in order (repeatable; replaces the
                        default <repo>/build/module/xehpg.ko)
  --no-module           no module at all
  --no-load             copy the modules to /lib/modules but do not insmod
  --param K=V           parameter of the first module (repeatable)
  --firmware-dir DIR    firmware package dir (default: $GUC_FW_DIR)
  --firmware REL        file copied to /lib/firmware/REL (repeatable;
                        default: i915/dg2_guc_70.bin)
  --no-firmware         copy no firmware
  --guest-file HOST:GUEST  copy a file into the guest, mode preserved (repeatable)
  --append \"ARGS\"       extra kernel command line
  --mem MIB             guest RAM (default 512)
  --smp N               guest CPUs (default 2)
Device:
  --mock FILE           mock device (default: <repo>/tools/target/release/xehpg-mock)
  --mock-arg ARG        argument passed to the mock (repeatable)
  --device-id HEX       PCI device ID the mock presents (e.g. 0x56c0)
  --guc-fw FILE         GuC firmware the mock checks uploads against
                        (default: the shipped i915/dg2_guc_70.bin, unless
                        --no-firmware or a --mock-arg --guc-fw)
  --no-device           boot without the mock device
Output:
  --trace FILE          mock access trace
  --summary FILE        mock summary (JSON)
  --console FILE        save the full kernel console log
  --output FILE         save COMMAND's output (as printed on stdout)
  --keep-logs DIR       keep the console log, COMMAND's output, the mock's
                        stdout/stderr, its summary and a trace (turned on) in
                        DIR (console.log, output.log, ...)
  --timeout SECS        kill everything after SECS (default 600 with COMMAND,
                        none for the interactive shell; 0 = none)
  --boot-timeout SECS   stop everything, exiting 126, if the guest's /init has
                        not started COMMAND after SECS (default 60; 0 = none;
                        not for the interactive shell)
  -q, --quiet           print only COMMAND's output, not the kernel console
  -h, --help            this text
";

/// A `--guest-file HOST:GUEST` pair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuestFile {
    /// File on the host.
    pub host: PathBuf,
    /// Absolute path in the guest.
    pub guest: String,
}

/// The options as given, before defaults from `env.mk` are applied.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cli {
    pub repo: Option<PathBuf>,
    pub kernel: Option<PathBuf>,
    pub qemu: Option<String>,
    pub qemu_args: Vec<String>,
    pub busybox: Option<PathBuf>,
    pub modules: Vec<PathBuf>,
    pub no_module: bool,
    pub no_load: bool,
    pub params: Vec<String>,
    pub firmware_dir: Option<PathBuf>,
    pub firmware: Vec<String>,
    pub no_firmware: bool,
    pub guest_files: Vec<GuestFile>,
    pub append: Vec<String>,
    pub mem_mib: Option<u32>,
    pub smp: Option<u32>,
    pub mock: Option<PathBuf>,
    pub mock_args: Vec<String>,
    pub device_id: Option<u16>,
    /// `--guc-fw FILE`: passed to the mock as `--guc-fw`.
    pub guc_fw: Option<PathBuf>,
    pub no_device: bool,
    pub trace: Option<PathBuf>,
    pub summary: Option<PathBuf>,
    pub console: Option<PathBuf>,
    pub output: Option<PathBuf>,
    pub keep_logs: Option<PathBuf>,
    /// Seconds; `Some(0)` means no timeout.
    pub timeout: Option<u64>,
    /// Seconds; `Some(0)` means no boot timeout.
    pub boot_timeout: Option<u64>,
    pub quiet: bool,
    /// The words after `--`; empty for the interactive shell.
    pub command: Vec<String>,
}

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
pub enum Parsed {
    Run(Box<Cli>),
    Help,
}

/// Parses the arguments after the program name.
///
/// # Errors
///
/// Unknown options, missing or malformed values, and stray words before `--`.
pub fn parse<I>(args: I) -> Result<Parsed>
where
    I: IntoIterator<Item = String>,
{
    let mut cli = Cli::default();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        if arg == "--" {
            cli.command = args.collect();
            break;
        }
        let (name, inline) = match arg.split_once('=') {
            Some((name, value)) if name.starts_with("--") => {
                (name.to_owned(), Some(value.to_owned()))
            }
            _ => (arg.clone(), None),
        };
        if matches!(name.as_str(), "-h" | "--help") {
            return Ok(Parsed::Help);
        }
        if apply_flag(&mut cli, &name)? {
            if inline.is_some() {
                bail!("option {name} takes no value");
            }
            continue;
        }
        if !VALUED.contains(&name.as_str()) {
            bail!("{}", unknown(&name));
        }
        let value = match inline {
            Some(value) => value,
            None => args
                .next()
                .ok_or_else(|| anyhow!("option {name} needs a value"))?,
        };
        apply_valued(&mut cli, &name, value)?;
    }
    Ok(Parsed::Run(Box::new(cli)))
}

/// Applies a valueless option; `Ok(false)` when `name` is not one.
fn apply_flag(cli: &mut Cli, name: &str) -> Result<bool> {
    let flag = match name {
        "--no-module" => &mut cli.no_module,
        "--no-load" => &mut cli.no_load,
        "--no-firmware" => &mut cli.no_firmware,
        "--no-device" => &mut cli.no_device,
        "-q" | "--quiet" => &mut cli.quiet,
        _ => return Ok(false),
    };
    *flag = true;
    Ok(true)
}

/// Applies an option that takes `value`.
fn apply_valued(cli: &mut Cli, name: &str, value: String) -> Result<()> {
    match name {
        "--repo" => cli.repo = Some(value.into()),
        "--kernel" => cli.kernel = Some(value.into()),
        "--qemu" => cli.qemu = Some(value),
        "--qemu-arg" => cli.qemu_args.push(value),
        "--busybox" => cli.busybox = Some(value.into()),
        "--module" => cli.modules.push(value.into()),
        "--param" => cli.params.push(parse_param(&value)?),
        "--firmware-dir" => cli.firmware_dir = Some(value.into()),
        "--firmware" => cli.firmware.push(parse_firmware(&value)?),
        "--guest-file" => cli.guest_files.push(parse_guest_file(&value)?),
        "--append" => cli.append.push(value),
        "--mem" => cli.mem_mib = Some(parse_positive(name, &value)?),
        "--smp" => cli.smp = Some(parse_positive(name, &value)?),
        "--mock" => cli.mock = Some(value.into()),
        "--mock-arg" => cli.mock_args.push(value),
        "--device-id" => cli.device_id = Some(parse_device_id(&value)?),
        "--guc-fw" => cli.guc_fw = Some(value.into()),
        "--trace" => cli.trace = Some(value.into()),
        "--summary" => cli.summary = Some(value.into()),
        "--console" => cli.console = Some(value.into()),
        "--output" => cli.output = Some(value.into()),
        "--keep-logs" => cli.keep_logs = Some(value.into()),
        "--timeout" => cli.timeout = Some(parse_number(name, &value)?),
        "--boot-timeout" => cli.boot_timeout = Some(parse_number(name, &value)?),
        _ => bail!("{}", unknown(name)),
    }
    Ok(())
}

/// The options that take a value; anything else is a flag or unknown.
const VALUED: &[&str] = &[
    "--repo",
    "--kernel",
    "--qemu",
    "--qemu-arg",
    "--busybox",
    "--module",
    "--param",
    "--firmware-dir",
    "--firmware",
    "--guest-file",
    "--append",
    "--mem",
    "--smp",
    "--mock",
    "--mock-arg",
    "--device-id",
    "--guc-fw",
    "--trace",
    "--summary",
    "--console",
    "--output",
    "--keep-logs",
    "--timeout",
    "--boot-timeout",
];

fn unknown(name: &str) -> String {
    if name.starts_with('-') {
        format!("unknown option {name} (see --help)")
    } else {
        format!("unexpected argument {name:?}: put the guest command after --")
    }
}

/// A module parameter: `name=value`, or a bare `name` (a bool set to true).
fn parse_param(value: &str) -> Result<String> {
    let name = value.split_once('=').map_or(value, |(name, _)| name);
    if name.is_empty() || name.contains(char::is_whitespace) {
        bail!("--param {value:?}: expected NAME=VALUE");
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
        bail!("--firmware {value:?}: expected a relative path like i915/dg2_guc_70.bin");
    }
    Ok(rel.to_owned())
}

/// `HOST:GUEST`; split at the last colon, so a host path may contain colons.
fn parse_guest_file(value: &str) -> Result<GuestFile> {
    let (host, guest) = value
        .rsplit_once(':')
        .ok_or_else(|| anyhow!("--guest-file {value:?}: expected HOST:GUEST"))?;
    if host.is_empty() || !guest.starts_with('/') || guest.ends_with('/') {
        bail!("--guest-file {value:?}: expected HOST:GUEST with an absolute guest file path");
    }
    Ok(GuestFile {
        host: host.into(),
        guest: guest.to_owned(),
    })
}

/// A PCI device ID in hex, with or without `0x`.
fn parse_device_id(value: &str) -> Result<u16> {
    let digits = value
        .strip_prefix("0x")
        .or_else(|| value.strip_prefix("0X"))
        .unwrap_or(value);
    u16::from_str_radix(digits, 16)
        .with_context(|| format!("--device-id {value:?}: expected a 16-bit hex number like 0x56c0"))
}

fn parse_number<T: std::str::FromStr>(name: &str, value: &str) -> Result<T> {
    value
        .parse()
        .map_err(|_| anyhow!("{name} {value:?}: expected a number"))
}

fn parse_positive(name: &str, value: &str) -> Result<u32> {
    match parse_number(name, value)? {
        0 => bail!("{name} must be at least 1"),
        n => Ok(n),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_ok(args: &[&str]) -> Cli {
        match parse(args.iter().map(|s| s.to_string())).unwrap() {
            Parsed::Run(cli) => *cli,
            Parsed::Help => panic!("unexpected help"),
        }
    }

    fn parse_err(args: &[&str]) -> String {
        format!(
            "{:#}",
            parse(args.iter().map(|s| s.to_string())).unwrap_err()
        )
    }

    #[test]
    fn empty_command_line_is_interactive_with_defaults() {
        assert_eq!(parse_ok(&[]), Cli::default());
    }

    #[test]
    fn help_wins() {
        let parsed = parse(["--mem", "64", "-h"].map(String::from)).unwrap();
        assert_eq!(parsed, Parsed::Help);
        assert_eq!(parse(["--help".to_owned()]).unwrap(), Parsed::Help);
    }

    #[test]
    fn command_is_everything_after_double_dash() {
        let cli = parse_ok(&["-q", "--", "echo", "--mem", "--"]);
        assert!(cli.quiet);
        assert_eq!(cli.command, ["echo", "--mem", "--"]);
        assert_eq!(cli.mem_mib, None);
    }

    #[test]
    fn values_separate_or_inline() {
        let cli = parse_ok(&[
            "--mem",
            "1024",
            "--smp=4",
            "--append=a=b c",
            "--append",
            "d",
        ]);
        assert_eq!(cli.mem_mib, Some(1024));
        assert_eq!(cli.smp, Some(4));
        assert_eq!(cli.append, ["a=b c", "d"]);
    }

    #[test]
    fn repeatable_options_keep_order() {
        let cli = parse_ok(&[
            "--module",
            "a.ko",
            "--module",
            "b.ko",
            "--param",
            "x=1",
            "--param",
            "flag",
            "--mock-arg",
            "--fault",
            "--mock-arg=x",
            "--qemu-arg",
            "-s",
        ]);
        assert_eq!(cli.modules, [PathBuf::from("a.ko"), PathBuf::from("b.ko")]);
        assert_eq!(cli.params, ["x=1", "flag"]);
        assert_eq!(cli.mock_args, ["--fault", "x"]);
        assert_eq!(cli.qemu_args, ["-s"]);
    }

    #[test]
    fn flags() {
        let cli = parse_ok(&[
            "--no-load",
            "--no-device",
            "--no-module",
            "--no-firmware",
            "--quiet",
        ]);
        assert!(cli.no_load && cli.no_device && cli.no_module && cli.no_firmware && cli.quiet);
        assert!(parse_err(&["--no-load=1"]).contains("takes no value"));
    }

    #[test]
    fn paths_and_strings() {
        let cli = parse_ok(&[
            "--repo",
            "/r",
            "--kernel",
            "/k",
            "--qemu",
            "ld.so q -L x",
            "--busybox",
            "/bb",
            "--firmware-dir",
            "/fw",
            "--mock",
            "/m",
            "--guc-fw",
            "/g.bin",
            "--trace",
            "/t",
            "--summary",
            "/s",
            "--console",
            "/c",
            "--output",
            "/o",
            "--keep-logs",
            "/l",
            "--timeout",
            "0",
            "--boot-timeout",
            "7",
        ]);
        assert_eq!(cli.repo, Some("/r".into()));
        assert_eq!(cli.kernel, Some("/k".into()));
        assert_eq!(cli.qemu.as_deref(), Some("ld.so q -L x"));
        assert_eq!(cli.busybox, Some("/bb".into()));
        assert_eq!(cli.firmware_dir, Some("/fw".into()));
        assert_eq!(cli.mock, Some("/m".into()));
        assert_eq!(cli.guc_fw, Some("/g.bin".into()));
        assert_eq!(cli.trace, Some("/t".into()));
        assert_eq!(cli.summary, Some("/s".into()));
        assert_eq!(cli.console, Some("/c".into()));
        assert_eq!(cli.output, Some("/o".into()));
        assert_eq!(cli.keep_logs, Some("/l".into()));
        assert_eq!(cli.timeout, Some(0));
        assert_eq!(cli.boot_timeout, Some(7));
    }

    #[test]
    fn device_id_in_hex() {
        assert_eq!(parse_ok(&["--device-id", "0x56c0"]).device_id, Some(0x56c0));
        assert_eq!(parse_ok(&["--device-id", "56C1"]).device_id, Some(0x56c1));
        assert!(parse_err(&["--device-id", "0x10000"]).contains("--device-id"));
        assert!(parse_err(&["--device-id", "xyz"]).contains("--device-id"));
    }

    #[test]
    fn firmware_paths_are_relative_and_clean() {
        assert_eq!(
            parse_ok(&["--firmware", "/i915/x.bin"]).firmware,
            ["i915/x.bin"]
        );
        assert!(parse_err(&["--firmware", "../x"]).contains("relative path"));
        assert!(parse_err(&["--firmware", "a//b"]).contains("relative path"));
        assert!(parse_err(&["--firmware", ""]).contains("relative path"));
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
        assert!(parse_err(&["--guest-file", ":/x"]).contains("HOST:GUEST"));
    }

    #[test]
    fn params_need_a_name() {
        assert!(parse_err(&["--param", "=1"]).contains("NAME=VALUE"));
        assert!(parse_err(&["--param", "a b=1"]).contains("NAME=VALUE"));
        assert_eq!(parse_ok(&["--param", "s=a b"]).params, ["s=a b"]);
    }

    #[test]
    fn numbers_are_checked() {
        assert!(parse_err(&["--mem", "0"]).contains("at least 1"));
        assert!(parse_err(&["--smp", "two"]).contains("expected a number"));
        assert!(parse_err(&["--timeout", "-1"]).contains("expected a number"));
    }

    #[test]
    fn every_valued_option_is_handled() {
        for name in VALUED {
            let err = parse(vec![name.to_string(), "0x1".into()]).err();
            let text = err.map(|e| e.to_string()).unwrap_or_default();
            assert!(!text.contains("unknown option"), "{name}: {text}");
        }
    }

    #[test]
    fn errors_name_the_problem() {
        assert!(parse_err(&["--bogus"]).contains("unknown option --bogus"));
        assert!(parse_err(&["--mem"]).contains("needs a value"));
        assert!(parse_err(&["uname"]).contains("after --"));
        assert!(parse_err(&["--bogus=1"]).contains("unknown option --bogus"));
    }
}
