//! Recorded suite times, `tools/check-times.toml`: how many seconds each
//! suite of `make check` took on the 2-core build machine.
//!
//! A suite that suddenly takes much longer (a scenario that now waits out its
//! timeouts, a retry that keeps firing, a build that no longer reuses what
//! `make check` built) still passes, so the summary warns instead: one
//! `warning: suite X took A s, more than twice its recorded B s` line per
//! suite that took more than twice its recorded time ([`warnings`]). A suite
//! the file does not list gets no warning.
//!
//! `xehpg-check --update-times` (`make check CHECK_ARGS=--update-times`)
//! writes the run's suite times into the file ([`update`]); suites that did
//! not run keep their recorded time.

use crate::report::SuiteTotals;
use anyhow::Result;
use std::collections::BTreeMap;
use std::time::Duration;

/// The file, relative to the repository.
pub const TIMES_FILE: &str = "tools/check-times.toml";

/// Recorded whole seconds per suite name: the file's content.
pub type Times = BTreeMap<String, u64>;

/// Header comment written above the TOML.
const HEADER: &str = "\
# Seconds each suite of `make check` took on the 2-core build machine
# (tools/check/src/times.rs). The summary warns about a suite that takes more
# than twice its time here; a suite not listed gets no warning. Refresh after
# a full, passing run: `make check CHECK_ARGS=--update-times`.
";

/// Parses the times file.
///
/// # Errors
///
/// The text is not TOML, or a value is not a whole number of seconds.
pub fn parse(text: &str) -> Result<Times> {
    Ok(toml::from_str(text)?)
}

/// The file text for `times`.
///
/// # Errors
///
/// The TOML serializer fails.
pub fn render(times: &Times) -> Result<String> {
    Ok(format!("{HEADER}\n{}", toml::to_string(times)?))
}

/// One warning line for each suite of `run` that took more than twice the
/// time `recorded` gives it, in run order.
pub fn warnings(recorded: &Times, run: &[SuiteTotals]) -> Vec<String> {
    run.iter()
        .filter_map(|s| {
            let &secs = recorded.get(&s.name)?;
            let limit = Duration::from_secs(secs).checked_mul(2)?;
            (s.elapsed > limit).then(|| {
                format!(
                    "warning: suite {} took {:.1} s, more than twice its recorded {secs} s",
                    s.name,
                    s.elapsed.as_secs_f64()
                )
            })
        })
        .collect()
}

/// A suite's time as the file records it: rounded to whole seconds, at
/// least 1 (a recorded 0 would make any time a warning).
fn whole_seconds(elapsed: Duration) -> u64 {
    let rounded = elapsed.as_secs() + u64::from(elapsed.subsec_millis() >= 500);
    rounded.max(1)
}

/// `old` with the time of every suite of `run` replaced by this run's.
pub fn update(old: &Times, run: &[SuiteTotals]) -> Times {
    let mut new = old.clone();
    for s in run {
        new.insert(s.name.clone(), whole_seconds(s.elapsed));
    }
    new
}

#[cfg(test)]
mod tests {
    use super::*;

    fn suite(name: &str, millis: u64) -> SuiteTotals {
        SuiteTotals {
            name: name.into(),
            elapsed: Duration::from_millis(millis),
            ..SuiteTotals::default()
        }
    }

    fn times(pairs: &[(&str, u64)]) -> Times {
        pairs.iter().map(|&(n, s)| (n.to_string(), s)).collect()
    }

    #[test]
    fn only_a_listed_suite_over_twice_its_time_warns() {
        let recorded = times(&[("vm", 550), ("abi", 5), ("regs", 5)]);
        let run = [
            suite("vm", 1_100_000),
            suite("abi", 10_001),
            suite("regs", 4_000),
            suite("new", 999_000),
        ];
        assert_eq!(
            warnings(&recorded, &run),
            ["warning: suite abi took 10.0 s, more than twice its recorded 5 s"],
            "exactly twice is not a warning; an unlisted suite never warns"
        );
        let huge = times(&[("vm", u64::MAX)]);
        assert!(warnings(&huge, &[suite("vm", 1)]).is_empty());
    }

    #[test]
    fn update_replaces_the_run_s_suites_and_keeps_the_rest() {
        let old = times(&[("vm", 550), ("abi", 5)]);
        let new = update(&old, &[suite("abi", 7_499), suite("regs", 100)]);
        assert_eq!(new, times(&[("vm", 550), ("abi", 7), ("regs", 1)]));
        assert_eq!(whole_seconds(Duration::from_millis(7_500)), 8);
    }

    #[test]
    fn render_round_trips_and_rejects_what_is_not_seconds() {
        let t = times(&[("vm-debug", 3250), ("xe-probe", 30), ("abi", 5)]);
        let text = render(&t).unwrap();
        assert!(text.starts_with(HEADER));
        assert!(text.contains("\nvm-debug = 3250\n"), "{text}");
        assert_eq!(parse(&text).unwrap(), t);
        assert!(parse("vm = 1.5\n").is_err());
        assert!(parse("vm = -1\n").is_err());
        assert!(parse("vm = \"slow\"\n").is_err());
        assert!(parse("[vm]\nseconds = 3\n").is_err());
    }

    #[test]
    fn the_checked_in_file_parses_and_is_as_rendered() {
        let text = include_str!("../../check-times.toml");
        let t = parse(text).unwrap();
        assert_eq!(render(&t).unwrap(), text);
        // A renamed suite must not leave a stale time behind.
        for name in t.keys() {
            assert!(
                crate::suites::SUITES.iter().any(|s| s.name == *name),
                "{name} is not a suite"
            );
        }
    }
}
