//! Command-line options.

use anyhow::{bail, Context as _, Result};
use std::path::PathBuf;

/// The usage text printed by `--help` and after a bad option.
pub const USAGE: &str = "\
usage: xehpg-check [--repo DIR] [--kdir DIR] [--only SUITE[:SCENARIO]]...
                   [--update-floor] [--list] [--help]
       xehpg-check --bench [--repo DIR]

Runs the test suites of `make check` in order and ends with `N passed, N failed`.

  --repo DIR        repository root (default: the current directory)
  --kdir DIR        kernel tree (default: KDIR from $XEHPG_CACHE/env.mk)
  --only SUITE      run only this suite (repeatable); `vm:NAME` runs one
                    scenario of the vm suite. Skips the floor check.
  --update-floor    rewrite tools/check-floor from this run's test counts
  --list            list the suites and vm scenarios, run nothing
  --bench           `make bench`: boot the VM, print MMIO accesses per driver
                    operation, and check the driver's MMIO count against the
                    mock's (exit 1 if they differ); runs no suite
";

/// What the user asked for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// Repository root.
    pub repo: Option<PathBuf>,
    /// Kernel tree.
    pub kdir: Option<PathBuf>,
    /// `--only` selections, in the order given.
    pub only: Vec<Selection>,
    /// Rewrite the floor file.
    pub update_floor: bool,
    /// List suites instead of running them.
    pub list: bool,
    /// Print usage.
    pub help: bool,
    /// Run the MMIO bench instead of the suites.
    pub bench: bool,
}

/// One `--only` argument: a suite, optionally narrowed to one item (a vm scenario).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    /// Suite name.
    pub suite: String,
    /// Item within the suite, after `:`.
    pub item: Option<String>,
}

/// Parses the arguments after the program name.
pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Options> {
    let mut opts = Options::default();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let mut value = || -> Result<String> {
            match inline.clone() {
                Some(v) => Ok(v),
                None => args.next().with_context(|| format!("{flag} needs a value")),
            }
        };
        match flag.as_str() {
            "--repo" => opts.repo = Some(PathBuf::from(value()?)),
            "--kdir" => opts.kdir = Some(PathBuf::from(value()?)),
            "--only" => opts.only.push(selection(&value()?)),
            "--update-floor" => opts.update_floor = true,
            "--list" => opts.list = true,
            "--bench" => opts.bench = true,
            "-h" | "--help" => opts.help = true,
            _ => bail!("unknown argument {arg:?}"),
        }
    }
    if opts.update_floor && !opts.only.is_empty() {
        bail!("--update-floor needs a full run: it cannot be combined with --only");
    }
    if opts.bench && (opts.update_floor || opts.list || !opts.only.is_empty()) {
        bail!("--bench runs no suite: it cannot be combined with --only, --list or --update-floor");
    }
    Ok(opts)
}

fn selection(text: &str) -> Selection {
    match text.split_once(':') {
        Some((suite, item)) => Selection {
            suite: suite.to_string(),
            item: Some(item.to_string()),
        },
        None => Selection {
            suite: text.to_string(),
            item: None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn parses_every_option() {
        let o = parse(args(
            "--repo /r --kdir=/k --only regs --only vm:probe --list",
        ))
        .unwrap();
        assert_eq!(o.repo, Some(PathBuf::from("/r")));
        assert_eq!(o.kdir, Some(PathBuf::from("/k")));
        assert_eq!(o.only[0].suite, "regs");
        assert_eq!(o.only[0].item, None);
        assert_eq!(o.only[1].item.as_deref(), Some("probe"));
        assert!(o.list && !o.update_floor && !o.help);
    }

    #[test]
    fn rejects_unknown_missing_and_conflicting_options() {
        assert!(parse(args("--frobnicate")).is_err());
        assert!(parse(args("--repo")).is_err());
        assert!(parse(args("--update-floor --only abi")).is_err());
        assert!(parse(args("--update-floor")).unwrap().update_floor);
        assert!(parse(args("--bench --repo /r")).unwrap().bench);
        assert!(parse(args("--bench --only vm")).is_err());
        assert!(parse(args("--bench --list")).is_err());
    }
}
