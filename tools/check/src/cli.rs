//! Command-line options, declared with clap.

use clap::Parser;
use std::path::PathBuf;

/// What the user asked for.
#[derive(Debug, Clone, Default, PartialEq, Eq, Parser)]
#[command(
    name = "xehpg-check",
    about = "Runs the test suites of `make check` in order and ends with `N passed, N failed`.",
    group(clap::ArgGroup::new("bench_mode").args(["bench", "compare_only"]))
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
    /// Record this run's suite times in tools/check-times.toml (suites that
    /// did not run keep their recorded time); the summary warns about a
    /// suite that takes more than twice its recorded time
    #[arg(long)]
    pub update_times: bool,
    /// List the suites and vm scenarios, run nothing
    #[arg(long, conflicts_with = "update_times")]
    pub list: bool,
    /// `make bench`: boot the VM, print MMIO accesses per driver operation,
    /// and check the driver's MMIO count against the mock's (exit 1 if they
    /// differ); runs no suite
    #[arg(long, conflicts_with_all = ["only", "list", "update_floor", "update_times"])]
    pub bench: bool,
    /// Run no VM: compare the MMIO counts of a JSON file an earlier
    /// `--bench` wrote (build/bench.json) with the baseline, as `--bench`
    /// does at its end
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with_all = ["only", "list", "update_floor", "update_times"]
    )]
    pub compare_only: Option<PathBuf>,
    /// With --bench or --compare-only: record the run's MMIO counts in the
    /// baseline instead of comparing them (refused when the run had errors)
    #[arg(long, requires = "bench_mode")]
    pub update_baseline: bool,
    /// With --bench or --compare-only: the baseline file (default:
    /// tools/bench-baseline.toml in the repository)
    #[arg(long, value_name = "FILE", requires = "bench_mode")]
    pub baseline: Option<PathBuf>,
    /// Which kernels to run on: all three (`both`, `make check`: the plain
    /// test kernel, the debug kernel, Debian's packaged kernel), only the
    /// plain test kernel, only the debug kernel (`make check-debug`) or only
    /// Debian's (`make check-distro`). The floor is checked only on a full run.
    #[arg(long, value_enum, default_value_t = LaneArg::Both)]
    pub lane: LaneArg,
    /// Debug kernel tree (default: KDIR_DEBUG from $XEHPG_CACHE/env.mk)
    #[arg(long, value_name = "DIR")]
    pub kdir_debug: Option<PathBuf>,
    /// VM runs in flight at once within a suite (default: the CPUs this
    /// process may use, at most 2: one TCG vCPU thread each)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=16))]
    pub vm_jobs: Option<u16>,
}

/// `--lane`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum LaneArg {
    /// Every lane: the plain, the debug and Debian's kernel.
    #[default]
    Both,
    /// The plain test kernel (and the suites that boot nothing).
    Plain,
    /// The debug kernel's suites only.
    Debug,
    /// Debian's packaged kernel's suites only.
    Distro,
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
        assert!(parse("--bench --update-times").is_err());
        let o = parse("--bench --update-baseline --baseline /b.toml").unwrap();
        assert!(o.bench && o.update_baseline);
        assert_eq!(o.baseline, Some(PathBuf::from("/b.toml")));
        let o = parse("--compare-only build/bench.json").unwrap();
        assert_eq!(o.compare_only, Some(PathBuf::from("build/bench.json")));
        assert!(!o.bench && !o.update_baseline);
        assert!(
            parse("--compare-only f --update-baseline")
                .unwrap()
                .update_baseline
        );
        // The baseline options need one of the two modes, which exclude
        // each other and the suites' options.
        assert!(parse("--update-baseline").is_err());
        assert!(parse("--baseline /b.toml --only vm").is_err());
        assert!(parse("--bench --compare-only f").is_err());
        assert!(parse("--compare-only f --only vm").is_err());
        assert!(parse("--compare-only").is_err());
        assert!(parse("--list --update-times").is_err());
        let o = parse("--update-times --only abi").unwrap();
        assert!(o.update_times && !o.update_floor);
        assert!(parse("--update-times --update-floor").unwrap().update_times);
        assert_eq!(
            parse("--lane debug --only vm-debug:bind").unwrap().lane,
            LaneArg::Debug
        );
        assert_eq!(parse("").unwrap().lane, LaneArg::Both);
        assert!(parse("--lane sideways").is_err());
        assert_eq!(parse("--vm-jobs 2").unwrap().vm_jobs, Some(2));
        assert!(parse("--vm-jobs 0").is_err());
    }
}
