//! `make bench`'s committed baseline, `tools/bench-baseline.toml`: the MMIO
//! count of every operation the bench measures, so that a change that makes
//! an operation cost more register cycles fails `make bench` instead of
//! going unnoticed in a table nobody compares by eye.
//!
//! Only counts are kept, never times: on the mock a register access is
//! counted exactly by the driver and reconciled with the mock's own count
//! (`bench.rs`), while times follow the host's load. Each operation is
//! stored as the guest measured it, `n` repetitions and the reads and writes
//! over all of them, and compared per repetition (`reads / n`, as exact
//! fractions), so a different `n` in `bench.sh` compares fairly.
//!
//! Some counts depend on timing even on the mock: a forcewake acknowledge
//! the driver polls for arrives after a delay of the mock's clock, a burst
//! of requests shares interrupts when they complete close together. The
//! file's `[varies]` table names those with the reason, either a whole
//! operation (`name`) or one of its counts (`name.reads`, `name.writes`);
//! such an operation must still be measured (a run without it fails), but a
//! varying count is not compared, and an operation that varies as a whole
//! is not recorded.
//!
//! The verdict ([`compare`]): a count per repetition above the baseline's
//! fails, with a line naming the operation, the count, the baseline and the
//! new value; one below passes with a note asking to record it; an operation
//! of the baseline the run did not measure fails; one the baseline does not
//! know is a note. `--update-baseline` rewrites the file from a run
//! ([`update`]), keeping `[varies]`.

use anyhow::{bail, Context as _, Result};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

/// The baseline file, relative to the repository.
pub const BASELINE_FILE: &str = "tools/bench-baseline.toml";

/// How to record a run in the file, for the messages.
const HOW_TO_UPDATE: &str = "make bench BENCH_ARGS=--update-baseline";

/// One operation's MMIO counts over `n` repetitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Counts {
    /// Repetitions measured.
    pub n: u64,
    /// MMIO reads over all repetitions.
    pub reads: u64,
    /// MMIO writes over all repetitions.
    pub writes: u64,
}

/// The file's content.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    /// Counts that depend on timing, with the reason: `name` for both of
    /// an operation's, `name.reads` or `name.writes` for one. Measured, not
    /// compared.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub varies: BTreeMap<String, String>,
    /// The recorded counts per operation.
    #[serde(default)]
    pub ops: BTreeMap<String, Counts>,
}

/// Header comment written above the TOML.
const HEADER: &str = "\
# MMIO reads and writes per operation of `make bench`, over n repetitions
# (tools/check/src/baseline.rs). `make bench` fails when an operation costs
# more per repetition than recorded here, or was not measured; a lower count
# is a note. Times are never recorded. `varies` lists what depends on timing
# even on the mock, an operation (both counts) or `op.reads`/`op.writes`:
# it must be measured but is not compared.
# Record a run: `make bench BENCH_ARGS=--update-baseline`.
";

/// Parses the baseline file.
///
/// # Errors
///
/// Not TOML, an unknown key, or an operation with `n = 0`.
pub fn parse(text: &str) -> Result<Baseline> {
    let b: Baseline = toml::from_str(text)?;
    if let Some((name, _)) = b.ops.iter().find(|(_, c)| c.n == 0) {
        bail!("operation `{name}` has n = 0");
    }
    if let Some(name) = b.ops.keys().find(|k| b.varies.contains_key(*k)) {
        bail!("operation `{name}` is both recorded and under `varies`");
    }
    for key in b.varies.keys() {
        if let Some((_, count)) = key.split_once('.') {
            if count != "reads" && count != "writes" {
                bail!("`varies` key `{key}`: a count is `reads` or `writes`");
            }
        }
    }
    Ok(b)
}

impl Baseline {
    /// Whether `count` (`reads` or `writes`) of operation `name` varies.
    fn count_varies(&self, name: &str, count: &str) -> bool {
        self.varies.contains_key(name) || self.varies.contains_key(&format!("{name}.{count}"))
    }

    /// The operations `[varies]` names, whole or by a count.
    fn varying_ops(&self) -> BTreeSet<&str> {
        self.varies
            .keys()
            .map(|k| k.split_once('.').map_or(k.as_str(), |(op, _)| op))
            .collect()
    }
}

/// The file text for `baseline`.
///
/// # Errors
///
/// The TOML serializer fails.
pub fn render(baseline: &Baseline) -> Result<String> {
    Ok(format!("{HEADER}\n{}", toml::to_string(baseline)?))
}

/// The counts of every operation of a bench JSON file (its `operations`
/// array, `bench::json`).
///
/// # Errors
///
/// No `operations` array, an entry without a name or a count, `n = 0`, or
/// a name given twice.
pub fn run_counts(json: &Value) -> Result<BTreeMap<String, Counts>> {
    let ops = json["operations"]
        .as_array()
        .context("no `operations` array")?;
    let mut out = BTreeMap::new();
    for (i, op) in ops.iter().enumerate() {
        let name = op["name"]
            .as_str()
            .with_context(|| format!("operation {i} has no name"))?;
        let count = |key: &str| {
            op[key]
                .as_u64()
                .with_context(|| format!("operation `{name}` has no count `{key}`"))
        };
        let c = Counts {
            n: count("n")?,
            reads: count("reads")?,
            writes: count("writes")?,
        };
        if c.n == 0 {
            bail!("operation `{name}` has n = 0");
        }
        if out.insert(name.to_string(), c).is_some() {
            bail!("operation `{name}` appears twice");
        }
    }
    Ok(out)
}

/// What [`compare`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Verdict {
    /// One line per count that got worse and per operation the run lacks.
    pub failures: Vec<String>,
    /// One line per count that got better and per operation the baseline
    /// does not know.
    pub notes: Vec<String>,
}

impl Verdict {
    /// Whether nothing failed.
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }
}

/// `count / n` against `base_count / base_n`, exactly.
fn per_op_order(count: u64, n: u64, base_count: u64, base_n: u64) -> Ordering {
    (u128::from(count) * u128::from(base_n)).cmp(&(u128::from(base_count) * u128::from(n)))
}

/// `R over N (X per op)`.
fn per_op(count: u64, n: u64) -> String {
    // CAST: counts far below 2^52, exact in f64.
    format!("{count} over {n} ({:.3} per op)", count as f64 / n as f64)
}

/// The run's `counts` against `baseline`.
pub fn compare(baseline: &Baseline, run: &BTreeMap<String, Counts>) -> Verdict {
    let mut v = Verdict::default();
    for (name, base) in &baseline.ops {
        let Some(new) = run.get(name) else {
            v.failures.push(format!(
                "{name}: in the baseline (reads {}, writes {}), not measured by this run",
                per_op(base.reads, base.n),
                per_op(base.writes, base.n)
            ));
            continue;
        };
        for (what, count, base_count) in [
            ("reads", new.reads, base.reads),
            ("writes", new.writes, base.writes),
        ] {
            if baseline.count_varies(name, what) {
                continue;
            }
            let line = format!(
                "{name}: MMIO {what} {}, baseline {}",
                per_op(count, new.n),
                per_op(base_count, base.n)
            );
            match per_op_order(count, new.n, base_count, base.n) {
                Ordering::Greater => v.failures.push(format!("{line}: more than recorded")),
                Ordering::Less => v.notes.push(format!(
                    "{line}: fewer than recorded; record it with `{HOW_TO_UPDATE}`"
                )),
                Ordering::Equal => {}
            }
        }
    }
    for name in baseline.varying_ops() {
        if !run.contains_key(name) && !baseline.ops.contains_key(name) {
            v.failures.push(format!(
                "{name}: listed under `varies` in the baseline, not measured by this run"
            ));
        }
    }
    for name in run.keys() {
        if !baseline.ops.contains_key(name) && !baseline.varies.contains_key(name) {
            v.notes.push(format!(
                "{name}: not in the baseline; record it with `{HOW_TO_UPDATE}`"
            ));
        }
    }
    v
}

/// The baseline recording `run`: every operation not under `varies` as a
/// whole with this run's counts (a count that varies is recorded but not
/// compared), `varies` kept. Also a line per difference from `old`
/// (recorded, changed or dropped), for the output.
pub fn update(old: &Baseline, run: &BTreeMap<String, Counts>) -> (Baseline, Vec<String>) {
    let ops: BTreeMap<String, Counts> = run
        .iter()
        .filter(|(name, _)| !old.varies.contains_key(*name))
        .map(|(name, c)| (name.clone(), *c))
        .collect();
    let mut changes = Vec::new();
    for (name, c) in &ops {
        match old.ops.get(name) {
            None => changes.push(format!(
                "{name}: recorded, reads {}, writes {}",
                per_op(c.reads, c.n),
                per_op(c.writes, c.n)
            )),
            Some(was) if was != c => changes.push(format!(
                "{name}: reads {} -> {}, writes {} -> {}",
                per_op(was.reads, was.n),
                per_op(c.reads, c.n),
                per_op(was.writes, was.n),
                per_op(c.writes, c.n)
            )),
            Some(_) => {}
        }
    }
    for name in old.ops.keys().filter(|k| !ops.contains_key(*k)) {
        changes.push(format!("{name}: dropped, this run did not measure it"));
    }
    let new = Baseline {
        varies: old.varies.clone(),
        ops,
    };
    (new, changes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn counts(n: u64, reads: u64, writes: u64) -> Counts {
        Counts { n, reads, writes }
    }

    fn run(ops: &[(&str, Counts)]) -> BTreeMap<String, Counts> {
        ops.iter().map(|(n, c)| (n.to_string(), *c)).collect()
    }

    fn baseline() -> Baseline {
        Baseline {
            varies: [("cold".to_string(), "forcewake ack polls".to_string())]
                .into_iter()
                .collect(),
            ops: run(&[
                ("steered", counts(50, 50, 50)),
                ("irq", counts(1000, 4000, 7000)),
            ]),
        }
    }

    fn same() -> BTreeMap<String, Counts> {
        run(&[
            ("steered", counts(50, 50, 50)),
            ("irq", counts(1000, 4000, 7000)),
            ("cold", counts(50, 253, 150)),
        ])
    }

    #[test]
    fn equal_counts_pass_silently() {
        let v = compare(&baseline(), &same());
        assert!(v.passed());
        assert_eq!(v, Verdict::default());
        // The same count per repetition over another n is equal too, and a
        // varying operation's count is not compared at all.
        let mut r = same();
        r.insert("steered".into(), counts(100, 100, 100));
        r.insert("cold".into(), counts(50, 999, 999));
        assert_eq!(compare(&baseline(), &r), Verdict::default());
    }

    #[test]
    fn a_worse_count_fails_naming_the_operation_and_both_values() {
        let mut r = same();
        r.insert("irq".into(), counts(1000, 4000, 7001));
        let v = compare(&baseline(), &r);
        assert!(!v.passed());
        assert_eq!(
            v.failures,
            [
                "irq: MMIO writes 7001 over 1000 (7.001 per op), baseline 7000 over 1000 \
              (7.000 per op): more than recorded"
            ]
        );
        assert!(v.notes.is_empty());
        // Per repetition: 101 reads over 100 is worse than 50 over 50, and
        // both counts worse give a line each.
        r.insert("steered".into(), counts(100, 101, 101));
        let v = compare(&baseline(), &r);
        assert_eq!(v.failures.len(), 3, "{:?}", v.failures);
        assert!(v.failures[1].starts_with("steered: MMIO reads 101 over 100"));
        assert!(v.failures[2].starts_with("steered: MMIO writes 101 over 100"));
    }

    #[test]
    fn a_better_count_passes_with_a_note() {
        let mut r = same();
        r.insert("steered".into(), counts(50, 49, 50));
        let v = compare(&baseline(), &r);
        assert!(v.passed());
        assert_eq!(
            v.notes,
            [
                "steered: MMIO reads 49 over 50 (0.980 per op), baseline 50 over 50 \
              (1.000 per op): fewer than recorded; record it with \
              `make bench BENCH_ARGS=--update-baseline`"
            ]
        );
    }

    #[test]
    fn missing_operations_are_reported_and_missing_from_the_run_fails() {
        let mut r = same();
        r.remove("irq");
        let v = compare(&baseline(), &r);
        assert!(!v.passed());
        assert_eq!(v.failures.len(), 1);
        assert!(
            v.failures[0].starts_with("irq: in the baseline")
                && v.failures[0].contains("not measured"),
            "{:?}",
            v.failures
        );
        // A varying operation must be measured too.
        let mut r = same();
        r.remove("cold");
        let v = compare(&baseline(), &r);
        assert_eq!(v.failures.len(), 1);
        assert!(v.failures[0].starts_with("cold: listed under `varies`"));
        // One the baseline does not know is a note, not a failure.
        let mut r = same();
        r.insert("new_op".into(), counts(1, 2, 3));
        let v = compare(&baseline(), &r);
        assert!(v.passed());
        assert_eq!(
            v.notes,
            ["new_op: not in the baseline; record it with `make bench BENCH_ARGS=--update-baseline`"]
        );
    }

    /// `name.reads` exempts the reads of `name` only; its writes are
    /// compared, and it must be measured.
    #[test]
    fn one_count_may_vary() {
        let mut b = baseline();
        b.varies.insert("steered.reads".into(), "ack polls".into());
        let mut r = same();
        r.insert("steered".into(), counts(50, 999, 50));
        assert_eq!(compare(&b, &r), Verdict::default());
        r.insert("steered".into(), counts(50, 0, 51));
        let v = compare(&b, &r);
        assert_eq!(v.failures.len(), 1, "{v:?}");
        assert!(v.failures[0].starts_with("steered: MMIO writes 51 over 50"));
        assert!(v.notes.is_empty(), "{v:?}");
        r.remove("steered");
        let v = compare(&b, &r);
        assert_eq!(v.failures.len(), 1, "{v:?}");
        assert!(v.failures[0].starts_with("steered: in the baseline"));
        // Recorded all the same, and the file keeps the key.
        let (new, _) = update(&b, &same());
        assert!(new.ops.contains_key("steered"));
        assert_eq!(parse(&render(&new).unwrap()).unwrap(), new);
        // Only named but not recorded: still must be measured.
        b.ops.remove("steered");
        assert!(compare(&b, &r).failures[0].starts_with("steered: listed under `varies`"));
    }

    #[test]
    fn update_records_the_run_and_keeps_varies() {
        let old = baseline();
        let mut r = same();
        r.insert("irq".into(), counts(1000, 4000, 8000));
        r.insert("new_op".into(), counts(1, 2, 3));
        r.remove("steered");
        let (new, changes) = update(&old, &r);
        assert_eq!(new.varies, old.varies);
        assert_eq!(
            new.ops,
            run(&[
                ("irq", counts(1000, 4000, 8000)),
                ("new_op", counts(1, 2, 3))
            ])
        );
        assert_eq!(changes.len(), 3, "{changes:?}");
        assert!(changes.iter().any(|c| c.starts_with("irq: reads")));
        assert!(changes.iter().any(|c| c.starts_with("new_op: recorded")));
        assert!(changes
            .iter()
            .any(|c| c == "steered: dropped, this run did not measure it"));
        // The updated baseline passes the run it was made from.
        assert!(compare(&new, &r).passed());
        assert!(compare(&new, &r).notes.is_empty());
        // Unchanged: no change lines.
        assert!(update(&old, &same()).1.is_empty());
    }

    #[test]
    fn the_file_round_trips_and_rejects_nonsense() {
        let b = baseline();
        let text = render(&b).unwrap();
        assert!(text.starts_with("# MMIO reads and writes per operation"));
        assert_eq!(parse(&text).unwrap(), b);
        assert!(parse("[ops.x]\nn = 0\nreads = 1\nwrites = 1\n").is_err());
        assert!(parse("[ops.x]\nn = 1\nreads = 1\n").is_err());
        assert!(parse("[ops.x]\nn = 1\nreads = 1\nwrites = 1\nns = 5\n").is_err());
        assert!(parse("[varies]\nx = \"why\"\n[ops.x]\nn = 1\nreads = 1\nwrites = 1\n").is_err());
        assert!(parse("surprise = 1\n").is_err());
        assert!(parse("[varies]\n\"x.ns\" = \"why\"\n").is_err());
        assert!(parse("[varies]\n\"x.reads\" = \"why\"\n").is_ok());
        assert_eq!(parse("").unwrap(), Baseline::default());
    }

    #[test]
    fn run_counts_read_the_json_operations() {
        let v = json!({"operations": [
            {"name": "a", "n": 2, "reads": 4, "writes": 6, "ns": 10},
            {"name": "b", "n": 1, "reads": 0, "writes": 1, "ns": null},
        ]});
        assert_eq!(
            run_counts(&v).unwrap(),
            run(&[("a", counts(2, 4, 6)), ("b", counts(1, 0, 1))])
        );
        for bad in [
            json!({}),
            json!({"operations": [{"n": 1, "reads": 1, "writes": 1}]}),
            json!({"operations": [{"name": "a", "n": 1, "reads": 1}]}),
            json!({"operations": [{"name": "a", "n": 0, "reads": 1, "writes": 1}]}),
            json!({"operations": [
                {"name": "a", "n": 1, "reads": 1, "writes": 1},
                {"name": "a", "n": 1, "reads": 1, "writes": 1},
            ]}),
        ] {
            assert!(run_counts(&bad).is_err(), "{bad}");
        }
    }
}
