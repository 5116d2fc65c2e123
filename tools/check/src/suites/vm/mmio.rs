//! MMIO reconciliation: the driver's count of its BAR accesses (debugfs
//! `mmio_stats`) against the mock's (`mmio_reads`/`mmio_writes` in its
//! summary). Every BAR access the driver makes goes through its `Mmio`
//! counter and reaches the mock as one access, so the two must be equal when
//! the driver was loaded once and nothing touched the BAR after the report.
//!
//! A scenario reports with `mmio_report` (`tools/guest/lib.sh`), which prints
//! `# mmio reads=N writes=N`; `make bench` prints `bench mmio_stats reads=N
//! writes=N`. Both are read by [`counts_after`].

use super::mock_summary::Summary;

/// Reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    /// Reads.
    pub reads: u64,
    /// Writes.
    pub writes: u64,
}

/// The scenario report's prefix.
pub const SCENARIO_PREFIX: &str = "# mmio ";

/// The last `PREFIX reads=N writes=N` line of `text`: `None` if there is
/// none, `Some(Err)` if the last one is malformed. Only lines whose text
/// after `PREFIX` starts with `reads=` or `writes=` count, so a diagnostic
/// such as `# mmio delta 3` is not taken for a report.
pub fn counts_after(text: &str, prefix: &str) -> Option<Result<Counts, String>> {
    let (line, rest) = text.lines().rev().find_map(|l| {
        let l = l.trim_end_matches('\r');
        let rest = l.strip_prefix(prefix)?;
        (rest.starts_with("reads=") || rest.starts_with("writes=")).then_some((l, rest))
    })?;
    Some(parse_counts(rest).ok_or_else(|| format!("malformed line `{line}`")))
}

/// `reads=N writes=N`, in either order; other words are not allowed.
fn parse_counts(text: &str) -> Option<Counts> {
    let (mut reads, mut writes) = (None, None);
    for word in text.split_whitespace() {
        let (key, value) = word.split_once('=')?;
        let value: u64 = value.parse().ok()?;
        match key {
            "reads" if reads.is_none() => reads = Some(value),
            "writes" if writes.is_none() => writes = Some(value),
            _ => return None,
        }
    }
    Some(Counts {
        reads: reads?,
        writes: writes?,
    })
}

/// Compares the driver's counts with the mock summary's; `Err` says how
/// they differ.
pub fn reconcile(driver: Counts, mock: &Summary) -> Result<(), String> {
    let mock = Counts {
        reads: mock.mmio_reads,
        writes: mock.mmio_writes,
    };
    if driver == mock {
        return Ok(());
    }
    Err(format!(
        "driver mmio_stats reads={} writes={}, mock saw reads={} writes={}",
        driver.reads, driver.writes, mock.reads, mock.writes
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_last_report() {
        let text = "ok 1 - a\n# mmio reads=1 writes=2\nok 2 - b\n# mmio writes=40 reads=30\r\n";
        assert_eq!(
            counts_after(text, SCENARIO_PREFIX),
            Some(Ok(Counts {
                reads: 30,
                writes: 40
            }))
        );
        assert_eq!(counts_after("ok 1 - a\n", SCENARIO_PREFIX), None);
        assert_eq!(
            counts_after("not ok 1 - a\n# mmio delta 3\n", SCENARIO_PREFIX),
            None
        );
        assert_eq!(
            counts_after("bench mmio_stats reads=5 writes=6\n", "bench mmio_stats "),
            Some(Ok(Counts {
                reads: 5,
                writes: 6
            }))
        );
    }

    #[test]
    fn malformed_reports_are_errors() {
        for bad in [
            "# mmio reads=1",
            "# mmio reads=x writes=2",
            "# mmio reads=1 writes=2 extra=3",
            "# mmio reads=1 reads=2",
            "# mmio reads=-1 writes=2",
            "# mmio writes=2",
        ] {
            assert!(
                matches!(counts_after(bad, SCENARIO_PREFIX), Some(Err(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn reconciles_with_the_summary() {
        let driver = Counts {
            reads: 10,
            writes: 4,
        };
        let mut s = Summary {
            mmio_reads: 10,
            mmio_writes: 4,
            ..Summary::default()
        };
        assert_eq!(reconcile(driver, &s), Ok(()));
        s.mmio_writes = 5;
        assert_eq!(
            reconcile(driver, &s),
            Err("driver mmio_stats reads=10 writes=4, mock saw reads=10 writes=5".into())
        );
    }
}
