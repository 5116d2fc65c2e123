//! Command-line options, declared with clap.

use clap::Parser;
use std::path::PathBuf;

/// What the user asked for.
#[derive(Debug, Clone, Default, PartialEq, Eq, Parser)]
#[command(
    name = "xehpg-check",
    about = "Runs the test suites of `make check` in order and ends with `N passed, N failed`."
)]
pub struct Options {
    /// Repository root (default: the current directory)
    #[arg(long, value_name = "DIR")]
    pub repo: Option<PathBuf>,
    /// Kernel tree (default: KDIR from $XEHPG_CACHE/env.mk)
    #[arg(long, value_name = "DIR")]
    pub kdir: Option<PathBuf>,
    /// Run only this suite (repeatable); `vm:NAME` runs one scenario of the
    /// vm suite. Skips the floor check.
    #[arg(long, value_name = "SUITE[:SCENARIO]", value_parser = selection)]
    pub only: Vec<Selection>,
    /// Record this full run's cases in tools/check-floor.toml (adds new cases;
    /// drops cases that did not run only with --floor-reason)
    #[arg(long, conflicts_with = "only")]
    pub update_floor: bool,
    /// Why cases that no longer run may leave the floor (logged in the file)
    #[arg(long, value_name = "TEXT", requires = "update_floor")]
    pub floor_reason: Option<String>,
    /// List the suites and vm scenarios, run nothing
    #[arg(long)]
    pub list: bool,
    /// `make bench`: boot the VM, print MMIO accesses per driver operation,
    /// and check the driver's MMIO count against the mock's (exit 1 if they
    /// differ); runs no suite
    #[arg(long, conflicts_with_all = ["only", "list", "update_floor"])]
    pub bench: bool,
    /// The debug-kernel lane (`make check-debug`, opt-in): the detectors, kunit and vm
    /// suites on the kernel KDIR_DEBUG names (or --kdir) with the modules in
    /// build/*-debug, each run also asserting `kernel log clean`; no floor
    #[arg(long, conflicts_with_all = ["bench", "update_floor"])]
    pub debug_kernel: bool,
}

/// One `--only` argument: a suite, optionally narrowed to one item (a vm scenario).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    /// Suite name.
    pub suite: String,
    /// Item within the suite, after `:`.
    pub item: Option<String>,
}

fn selection(text: &str) -> Result<Selection, std::convert::Infallible> {
    Ok(match text.split_once(':') {
        Some((suite, item)) => Selection {
            suite: suite.to_string(),
            item: Some(item.to_string()),
        },
        None => Selection {
            suite: text.to_string(),
            item: None,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    fn parse(s: &str) -> Result<Options, clap::Error> {
        Options::try_parse_from(std::iter::once("xehpg-check").chain(s.split_whitespace()))
    }

    #[test]
    fn parses_every_option() {
        Options::command().debug_assert();
        let o = parse("--repo /r --kdir=/k --only regs --only vm:probe --list").unwrap();
        assert_eq!(o.repo, Some(PathBuf::from("/r")));
        assert_eq!(o.kdir, Some(PathBuf::from("/k")));
        assert_eq!(o.only[0].suite, "regs");
        assert_eq!(o.only[0].item, None);
        assert_eq!(o.only[1].item.as_deref(), Some("probe"));
        assert!(o.list && !o.update_floor);
    }

    #[test]
    fn rejects_unknown_missing_and_conflicting_options() {
        assert!(parse("--frobnicate").is_err());
        assert!(parse("--repo").is_err());
        assert!(parse("--update-floor --only abi").is_err());
        assert!(parse("--update-floor").unwrap().update_floor);
        assert!(parse("--bench --repo /r").unwrap().bench);
        assert!(parse("--bench --only vm").is_err());
        assert!(parse("--bench --list").is_err());
        assert!(parse("--debug-kernel --only vm:bind").unwrap().debug_kernel);
        assert!(parse("--debug-kernel --bench").is_err());
        assert!(parse("--debug-kernel --update-floor").is_err());
    }
}
