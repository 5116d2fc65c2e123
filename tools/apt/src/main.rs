//! `xehpg-apt`: the command line of the `xehpg_apt` crate, for the
//! bootstrap's shell scripts. Results go to standard output, one per line;
//! when nothing fits, the reason goes to standard error and the exit status
//! is 1 (2 for a usage error).

use std::io::Read as _;
use std::path::PathBuf;
use std::process::ExitCode;
use xehpg_apt::{mirror, pick};

const USAGE: &str = "\
usage: xehpg-apt mirror [--root DIR]
           the Debian archive mirror URI ($XEHPG_DEBIAN_MIRROR when set)
       xehpg-apt host [--root DIR]
           the distribution, the suite and the mirror, as `key: value` lines
       xehpg-apt newest [--package NAME] < TEXT
           the newest version in `apt-cache madison` or `apt-cache policy`
           output, or in a list of versions, by Debian's version order
       xehpg-apt kver --series X.Y [--flavour FLAVOUR] < NAMES
           the newest kernel release linux-image-X.Y.*-FLAVOUR among package
           names (`apt-cache pkgnames linux-image-X.Y.`); FLAVOUR: amd64";

/// The parsed command line.
#[derive(Debug, PartialEq, Eq)]
enum Command {
    Mirror { root: PathBuf },
    Host { root: PathBuf },
    Newest { package: Option<String> },
    Kver { series: String, flavour: String },
}

fn parse(args: &[String]) -> Result<Command, String> {
    let (cmd, rest) = args.split_first().ok_or("no command")?;
    let mut root = PathBuf::from("/");
    let mut package = None;
    let mut series = None;
    let mut flavour = "amd64".to_string();
    let mut it = rest.iter();
    while let Some(opt) = it.next() {
        let mut value = || {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{opt} needs a value"))
        };
        match (cmd.as_str(), opt.as_str()) {
            ("mirror" | "host", "--root") => root = PathBuf::from(value()?),
            ("newest", "--package") => package = Some(value()?),
            ("kver", "--series") => series = Some(value()?),
            ("kver", "--flavour") => flavour = value()?,
            _ => return Err(format!("{cmd}: unknown argument `{opt}`")),
        }
    }
    Ok(match cmd.as_str() {
        "mirror" => Command::Mirror { root },
        "host" => Command::Host { root },
        "newest" => Command::Newest { package },
        "kver" => Command::Kver {
            series: series.ok_or("kver needs --series")?,
            flavour,
        },
        other => return Err(format!("unknown command `{other}`")),
    })
}

fn stdin() -> Result<String, String> {
    let mut s = String::new();
    std::io::stdin()
        .read_to_string(&mut s)
        .map_err(|e| format!("reading standard input: {e}"))?;
    Ok(s)
}

fn run(cmd: Command) -> Result<String, String> {
    let overridden = std::env::var(mirror::OVERRIDE).ok();
    match cmd {
        Command::Mirror { root } => {
            let report = mirror::survey(&root);
            Ok(report.mirror(overridden.as_deref())?.uri)
        }
        Command::Host { root } => {
            let report = mirror::survey(&root);
            let os = &report.os;
            let m = report.mirror(overridden.as_deref())?;
            let suite = if m.suite.is_empty() {
                os.codename.clone()
            } else {
                m.suite.clone()
            };
            Ok(format!(
                "distribution: {} {}\ncodename: {}\nsuite: {}\nmirror: {}\nfrom: {}",
                os.id, os.version_id, os.codename, suite, m.uri, m.from
            ))
        }
        Command::Newest { package } => {
            Ok(pick::newest_version(&stdin()?, package.as_deref())?.to_string())
        }
        Command::Kver { series, flavour } => pick::newest_kernel(&stdin()?, &series, &flavour),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if matches!(args.first().map(String::as_str), Some("-h" | "--help")) {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let cmd = match parse(&args) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("xehpg-apt: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(cmd) {
        Ok(out) => {
            println!("{out}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("xehpg-apt: {e}");
            ExitCode::from(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn parses_each_command_and_its_options() {
        assert_eq!(
            parse(&args("mirror")).unwrap(),
            Command::Mirror { root: "/".into() }
        );
        assert_eq!(
            parse(&args("host --root /tmp/r")).unwrap(),
            Command::Host {
                root: "/tmp/r".into()
            }
        );
        assert_eq!(
            parse(&args("newest --package linux-source-7.3")).unwrap(),
            Command::Newest {
                package: Some("linux-source-7.3".into())
            }
        );
        assert_eq!(
            parse(&args("kver --series 7.3")).unwrap(),
            Command::Kver {
                series: "7.3".into(),
                flavour: "amd64".into()
            }
        );
    }

    #[test]
    fn refuses_unknown_missing_and_misplaced_arguments() {
        assert_eq!(parse(&[]).unwrap_err(), "no command");
        assert_eq!(
            parse(&args("mirrors")).unwrap_err(),
            "unknown command `mirrors`"
        );
        assert_eq!(parse(&args("kver")).unwrap_err(), "kver needs --series");
        assert_eq!(
            parse(&args("mirror --root")).unwrap_err(),
            "--root needs a value"
        );
        assert_eq!(
            parse(&args("newest --root /")).unwrap_err(),
            "newest: unknown argument `--root`"
        );
    }
}
