//! `xehpg-check --bench` (`make bench`): MMIO cycles per driver operation.
//!
//! Boots the VM with the production module and `tools/guest/bench.sh`, which
//! repeats `mcr` debugfs commands and prints `bench NAME n=N reads=R
//! writes=W ns=T` lines ([`parse`]); a second boot with `force_execlist=1`
//! measures execlist submission through the debugfs `submit` selftest, a
//! third with `guc_doorbells=1` GuC submission through MMIO doorbells, a
//! fourth (with the test-only SR-IOV shim) the PF's provisioning of 1, 7 and
//! 63 VFs ([`sriov_lines`]), and two more compare xehpg's bring-up with
//! upstream xe's on the same mock ([`crate::bringup`]). This prints them as a table of MMIO
//! accesses (and wall time) per operation next to the driver's design
//! targets ([`table`]); it is a measurement, not a test, so a figure off its
//! target is printed, not failed.
//!
//! Two things are checked: the driver's final `mmio_stats` must equal the
//! mock's `mmio_reads`/`mmio_writes` (the mock counts every BAR access it
//! saw), and every GGTT and LMTT byte the driver counted in the SR-IOV boot
//! must be what the map it printed implies ([`sriov_lines`]). A mismatch, a
//! guest error or a VM failure is printed as `error:` and the command exits
//! non-zero. Logs go to `build/bench/`.
//!
//! Every figure printed is also written to `build/bench.json` ([`Record`],
//! [`Record::json`]), and the MMIO counts of its `operations` are held to
//! the committed `tools/bench-baseline.toml` ([`crate::baseline`]): a count
//! above its baseline fails the bench. `--compare-only FILE` runs that
//! comparison alone on a JSON file an earlier run wrote.

use crate::baseline;
use crate::suites::vm::{mmio, mock_summary};
use crate::suites::vm_exit_meaning;
use crate::suites::xe_vf::VfTimes;
use anyhow::{bail, Context as _, Result};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::Duration;
use xehpg_common::process::run_logged;

/// Limit for the whole VM run.
const LIMIT: Duration = Duration::from_secs(15 * 60);

/// The guest command's own limit, seconds.
const GUEST_TIMEOUT_SECS: u64 = 600;

/// Prefix of every line the guest script prints for the host.
const PREFIX: &str = "bench ";

/// One measurement: an operation repeated `n` times.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Measure {
    /// Its name (`held_steered_read`, ...).
    pub name: String,
    /// Repetitions.
    pub n: u64,
    /// MMIO reads over all repetitions.
    pub reads: u64,
    /// MMIO writes over all repetitions.
    pub writes: u64,
    /// Wall time over all repetitions, if the guest could measure it.
    pub ns: Option<u64>,
    /// Submission figures (`loads`, `irqs`, `p50_ns`, `p99_ns`), when the line has them.
    pub extra: Vec<(String, u64)>,
}

impl Measure {
    /// An optional figure of the line.
    pub fn get(&self, key: &str) -> Option<u64> {
        self.extra.iter().find(|(k, _)| k == key).map(|(_, v)| *v)
    }
}

/// Optional keys a measurement line may add.
const EXTRA_KEYS: [&str; 11] = [
    "loads",
    "irqs",
    "p50_ns",
    "p99_ns",
    "memcpy_ns",
    "h2g",
    "g2h",
    "ggtt_bytes",
    "clear_ggtt_bytes",
    "lmtt_bytes",
    "vfs",
];

/// Everything the guest reported.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Output {
    /// Measurements in order.
    pub measures: Vec<Measure>,
    /// The driver's final `mmio_stats`.
    pub stats: Option<mmio::Counts>,
    /// `bench error ...` lines.
    pub errors: Vec<String>,
    /// The SR-IOV boot's debugfs `sriov` captures, per VF count ([`sriov_maps`]).
    pub maps: Vec<(u64, String)>,
    /// The SR-IOV boot's relay round trips in microseconds, from the mock's trace
    /// ([`relay_round_trips`]).
    pub relays: Vec<u64>,
}

/// Parses the guest's `bench ...` lines; other lines are ignored.
pub fn parse(text: &str) -> Result<Output> {
    let mut out = Output::default();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim_end_matches('\r');
        let Some(rest) = line.strip_prefix(PREFIX) else {
            continue;
        };
        let n = i + 1;
        let (name, args) = rest.split_once(' ').unwrap_or((rest, ""));
        match name {
            "error" => out.errors.push(args.to_string()),
            "mmio_stats" => {
                let c = mmio::counts_after(line, "bench mmio_stats ")
                    .context("no counts")?
                    .map_err(anyhow::Error::msg)
                    .with_context(|| format!("output line {n}"))?;
                out.stats = Some(c);
            }
            _ => out
                .measures
                .push(measure(name, args).with_context(|| format!("output line {n}: `{line}`"))?),
        }
    }
    Ok(out)
}

/// `n=N reads=R writes=W ns=T|-`.
fn measure(name: &str, args: &str) -> Result<Measure> {
    let mut m = Measure {
        name: name.to_string(),
        n: 0,
        reads: 0,
        writes: 0,
        ns: None,
        extra: Vec::new(),
    };
    let mut seen = Vec::new();
    for word in args.split_whitespace() {
        let (key, value) = word
            .split_once('=')
            .with_context(|| format!("`{word}` is not key=value"))?;
        if seen.contains(&key) {
            bail!("{key} given twice");
        }
        seen.push(key);
        let number = || -> Result<u64> {
            value
                .parse()
                .with_context(|| format!("{key}={value} is not a count"))
        };
        match key {
            "n" => m.n = number()?,
            "reads" => m.reads = number()?,
            "writes" => m.writes = number()?,
            "ns" if value == "-" => m.ns = None,
            "ns" => m.ns = Some(number()?),
            k if EXTRA_KEYS.contains(&k) => m.extra.push((k.to_string(), number()?)),
            _ => bail!("unknown key {key}"),
        }
    }
    if m.n == 0
        || !["n", "reads", "writes", "ns"]
            .iter()
            .all(|k| seen.contains(k))
    {
        bail!("needs n (above 0), reads, writes and ns");
    }
    Ok(m)
}

/// MMIO per interrupt the PRM's ISR implies: 4 reads and 7 writes.
const IRQ_TARGET: f64 = 11.0;

/// One row of the table.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// What was measured.
    pub what: &'static str,
    /// MMIO reads per operation.
    pub reads: f64,
    /// MMIO writes per operation.
    pub writes: f64,
    /// The driver's design target for reads + writes, if it has one.
    pub target: Option<f64>,
    /// Wall time per operation, microseconds.
    pub us: Option<f64>,
}

impl Row {
    /// Reads + writes per operation.
    pub fn total(&self) -> f64 {
        self.reads + self.writes
    }

    /// Whether the row has a target and misses it.
    pub fn off_target(&self) -> bool {
        self.target.is_some_and(|t| (self.total() - t).abs() > 1e-9)
    }
}

/// The table: per-operation figures derived from the measurements.
///
/// - forcewake get + put of one domain, cold: `cold_steered_read` minus
///   `held_steered_read` (the same steered read; only the wake differs). No
///   target: the ack polls depend on how fast the device acks.
/// - forcewake get with the domain already held: `held_gam_read` minus its 1
///   register read (a GAM read writes no selector). Target 0.
/// - steered read: `held_steered_read`, target 2 (selector write + read).
/// - unicast read: `held_unicast_read`, target 2 (selector write + read; the
///   main selector needs no restore).
/// - unicast write: `held_unicast_write`, target 3 (selector to unicast,
///   write, selector back to multicast).
/// - multicast write: `held_multicast_write`, target 1 (the selector rests
///   in multicast mode).
pub fn table(out: &Output) -> Result<Vec<Row>> {
    let get = |name: &str| -> Result<&Measure> {
        out.measures
            .iter()
            .find(|m| m.name == name)
            .with_context(|| format!("the guest reported no `{name}` measurement"))
    };
    let per = |m: &Measure| {
        // CAST: counts far below 2^52, exact in f64.
        let n = m.n as f64;
        (
            m.reads as f64 / n,
            m.writes as f64 / n,
            m.ns.map(|t| t as f64 / n / 1000.0),
        )
    };
    let row = |what, m: &Measure, target: Option<f64>| {
        let (reads, writes, us) = per(m);
        Row {
            what,
            reads,
            writes,
            target,
            us,
        }
    };
    let cold = per(get("cold_steered_read")?);
    let held = per(get("held_steered_read")?);
    let gam = per(get("held_gam_read")?);
    let mut rows = vec![
        Row {
            what: "forcewake get+put, one domain (cold)",
            reads: cold.0 - held.0,
            writes: cold.1 - held.1,
            target: None,
            us: cold.2.zip(held.2).map(|(c, h)| c - h),
        },
        Row {
            what: "forcewake get, domain already held",
            reads: gam.0 - 1.0,
            writes: gam.1,
            target: Some(0.0),
            us: None,
        },
        row("steered read", get("held_steered_read")?, Some(2.0)),
        row("unicast read", get("held_unicast_read")?, Some(2.0)),
        row("unicast write", get("held_unicast_write")?, Some(3.0)),
        row("multicast write", get("held_multicast_write")?, Some(1.0)),
    ];
    // One interrupt, GuC or engine: the PRM pseudocode's accesses (seed 000
    // L2336-2395) with DataValid set at the first poll, which are also
    // upstream's (`dg1_irq_handler`): reads of the tile, primary, DW and
    // identity registers; writes of the tile (disable, acknowledge,
    // re-enable), primary, selector, identity and DW. us/op is the burst's
    // time per interrupt (the rate is printed under the table).
    if let Ok(m) = get("irq_guc") {
        rows.push(row("GuC interrupt (one identity)", m, Some(IRQ_TARGET)));
    }
    rows.push(row(
        "engine interrupt (one identity)",
        get("irq_engine")?,
        Some(IRQ_TARGET),
    ));
    // The CT (issue 11), measured by the driver's own load runs when the CT is
    // up: every figure includes the interrupts the replies raised, so the
    // per-request ones subtract what the interrupt row measured.
    if let (Ok(rt), Ok(irq)) = (get("ct_request"), get("irq_guc")) {
        let round = per(rt);
        let intr = per(irq);
        // A round trip is one notify write plus one GuC interrupt; anything
        // beyond is the CT's own register traffic, which should be none.
        rows.push(row("CT request round trip", rt, Some(1.0 + IRQ_TARGET)));
        rows.push(Row {
            what: "CT G2H receive beyond the interrupt",
            reads: round.0 - intr.0,
            writes: round.1 - intr.1 - 1.0,
            target: Some(0.0),
            us: None,
        });
        // The fast runs end with one request whose reply proves the GuC
        // consumed them all: take one round trip off before dividing.
        for (name, what, target) in [
            ("ct_fast_each", "CT fast request, own notify", 1.0),
            (
                "ct_fast_batched",
                "CT fast request, batch of 64",
                1.0 / 64.0,
            ),
        ] {
            if let Ok(m) = get(name) {
                // CAST: counts far below 2^52, exact in f64.
                let n = m.n as f64;
                rows.push(Row {
                    what,
                    reads: (m.reads as f64 - round.0) / n,
                    writes: (m.writes as f64 - round.1) / n,
                    target: Some(target),
                    us: m.ns.zip(round.2).map(|(t, r)| (t as f64 / 1000.0 - r) / n),
                });
            }
        }
    }
    if let Ok(m) = get("mmio_h2g") {
        rows.push(row("MMIO H2G round trip", m, None));
    }
    // Execlist submission (issue 12), from the second boot (force_execlist=1):
    // the selftest's own MMIO over a run, with the run's engine interrupts
    // taken off at what one cost in the same boot.
    if let (Ok(burst), Ok(irq)) = (get("exec_burst"), get("irq_engine_el")) {
        let intr = per(irq);
        rows.push(row("execlist request in a burst (all MMIO)", burst, None));
        // CAST: counts far below 2^52, exact in f64.
        let (n, loads, irqs) = (
            burst.n as f64,
            burst.get("loads").unwrap_or(0) as f64,
            burst.get("irqs").unwrap_or(0) as f64,
        );
        if loads > 0.0 {
            // An ELSQ Load is three writes (SQ lo, SQ hi, control); forcewake
            // is taken once per burst, so its get and put are spread here.
            rows.push(Row {
                what: "execlist Load + amortized forcewake",
                reads: (burst.reads as f64 - intr.0 * irqs) / loads,
                writes: (burst.writes as f64 - intr.1 * irqs) / loads,
                target: None,
                us: None,
            });
        }
        rows.push(Row {
            what: "execlist completion beyond interrupts",
            reads: (burst.reads as f64 - intr.0 * irqs) / n,
            writes: 0.0,
            target: None,
            us: None,
        });
    }
    if let Ok(single) = get("exec_single") {
        rows.push(row("execlist request alone (all MMIO)", single, None));
    }
    // GuC submission, from the default boot: a request is its SCHED_CONTEXT
    // notify plus the interrupts; the completion beyond them reads nothing.
    // Doorbell submission, from the third boot (guc_doorbells=1): a request
    // is one 32-bit write to its doorbell page (seed 000 L1038) and no CT
    // message. In both the interrupts are taken off at what one cost in that
    // boot; the target is 1 MMIO per request.
    for (mode, [burst_row, beyond_row, single_row]) in [
        (
            ["guc_burst", "irq_engine", "guc_single"],
            [
                "GuC request in a burst (all MMIO)",
                "GuC submission beyond interrupts",
                "GuC request alone (all MMIO)",
            ],
        ),
        (
            ["db_burst", "irq_engine_db", "db_single"],
            [
                "doorbell request in a burst (all MMIO)",
                "doorbell submission beyond interrupts",
                "doorbell request alone (all MMIO)",
            ],
        ),
    ] {
        if let (Ok(burst), Ok(irq)) = (get(mode[0]), get(mode[1])) {
            let intr = per(irq);
            rows.push(row(burst_row, burst, None));
            // CAST: counts far below 2^52, exact in f64.
            let (n, irqs) = (burst.n as f64, burst.get("irqs").unwrap_or(0) as f64);
            rows.push(Row {
                what: beyond_row,
                reads: (burst.reads as f64 - intr.0 * irqs) / n,
                writes: (burst.writes as f64 - intr.1 * irqs) / n,
                target: Some(1.0),
                us: None,
            });
        }
        if let Ok(single) = get(mode[2]) {
            rows.push(row(single_row, single, None));
        }
    }
    // The GuC load happens once, at probe; the guest reports it when the GuC ran.
    if let Ok(load) = get("guc_load") {
        rows.push(row("GuC load to READY + hwconfig (once)", load, None));
    }
    Ok(rows)
}

/// The table as text.
pub fn render(rows: &[Row], n: u64) -> String {
    let mut s = format!(
        "{:<38} {:>8} {:>7} {:>7} {:>7} {:>9}\n",
        format!("operation (MMIO per op, N={n})"),
        "MMIO",
        "reads",
        "writes",
        "target",
        "us/op"
    );
    for r in rows {
        let target = r.target.map_or("-".to_string(), |t| {
            if t.fract() == 0.0 {
                format!("{t:.0}")
            } else {
                format!("{t:.3}")
            }
        });
        let us = r.us.map_or("-".to_string(), |u| format!("{u:.1}"));
        let flag = if r.off_target() {
            "  <- off target"
        } else {
            ""
        };
        s.push_str(&format!(
            "{:<38} {:>8.2} {:>7.2} {:>7.2} {:>7} {:>9}{flag}\n",
            r.what,
            r.total(),
            r.reads,
            r.writes,
            target,
            us
        ));
    }
    s.push_str(&ratios(rows));
    for (what, per_second) in interrupt_rates(rows) {
        s.push_str(&format!("{what}: {per_second:.0} per second in a burst\n"));
    }
    s
}

/// Interrupts per second in a burst, for each interrupt row that was timed.
pub fn interrupt_rates(rows: &[Row]) -> Vec<(&'static str, f64)> {
    rows.iter()
        .filter(|r| r.what.contains("interrupt ("))
        .filter_map(|r| r.us.filter(|u| *u > 0.0).map(|us| (r.what, 1e6 / us)))
        .collect()
}

/// The blit figures of the execlist boot ([`submissions`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Blit {
    /// MiB copied on bcs0.
    pub mib: u64,
    /// The blit's MiB per second.
    pub blit_mib_s: f64,
    /// A CPU memcpy's MiB per second, same size.
    pub memcpy_mib_s: f64,
    /// The memcpy's time over the blit's.
    pub memcpy_over_blit: f64,
}

/// One submission mode's figures ([`submissions`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Submission {
    /// The measurement (`exec_burst`, ...).
    pub name: &'static str,
    /// What it is, as printed.
    pub what: &'static str,
    /// Requests per second.
    pub per_second: f64,
    /// Median and 99th percentile latency, microseconds.
    pub p50_us: f64,
    /// See `p50_us`.
    pub p99_us: f64,
    /// ELSQ Loads per request.
    pub loads: f64,
    /// Interrupts per request.
    pub irqs: f64,
}

/// The submission figures of one run: the blit, and per mode the rate,
/// latency and the loads and interrupts per request.
pub fn submissions(out: &Output) -> (Option<Blit>, Vec<Submission>) {
    let blit = out
        .measures
        .iter()
        .find(|m| m.name == "exec_blit")
        .map(|b| {
            // CAST: counts far below 2^52, exact in f64.
            let mib_s = |ns: u64| b.n as f64 * 1e9 / ns.max(1) as f64;
            let (blit, cpu) = (b.ns.unwrap_or(0), b.get("memcpy_ns").unwrap_or(0));
            Blit {
                mib: b.n,
                blit_mib_s: mib_s(blit),
                memcpy_mib_s: mib_s(cpu),
                memcpy_over_blit: cpu as f64 / blit.max(1) as f64,
            }
        });
    let mut modes = Vec::new();
    for (name, what) in [
        ("exec_burst", "execlist, burst"),
        ("exec_single", "execlist, one at a time"),
        ("guc_burst", "GuC, burst"),
        ("guc_single", "GuC, one at a time"),
        ("db_burst", "doorbell, burst"),
        ("db_single", "doorbell, one at a time"),
    ] {
        let Some(m) = out.measures.iter().find(|m| m.name == name) else {
            continue;
        };
        // CAST: counts far below 2^52, exact in f64.
        modes.push(Submission {
            name,
            what,
            per_second: m
                .ns
                .filter(|t| *t > 0)
                .map_or(0.0, |t| m.n as f64 * 1e9 / t as f64),
            p50_us: m.get("p50_ns").unwrap_or(0) as f64 / 1000.0,
            p99_us: m.get("p99_ns").unwrap_or(0) as f64 / 1000.0,
            loads: m.get("loads").unwrap_or(0) as f64 / m.n as f64,
            irqs: m.get("irqs").unwrap_or(0) as f64 / m.n as f64,
        });
    }
    (blit, modes)
}

/// [`submissions`] as text.
pub fn submission_lines(out: &Output) -> String {
    let mut s = String::new();
    let (blit, modes) = submissions(out);
    if let Some(b) = blit {
        s.push_str(&format!(
            "blit {} MiB on bcs0: {:.0} MiB/s, CPU memcpy {:.0} MiB/s; blit/memcpy {:.2}\n",
            b.mib, b.blit_mib_s, b.memcpy_mib_s, b.memcpy_over_blit
        ));
    }
    for m in modes {
        s.push_str(&format!(
            "{}: {:.0} requests/s, latency median {:.0} us p99 {:.0} us, {:.3} Loads and {:.3} interrupts per request\n",
            m.what, m.per_second, m.p50_us, m.p99_us, m.loads, m.irqs
        ));
    }
    s
}

/// The ratios measured in one run ([`rates`]).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Rates {
    /// Round trips per second, CT and MMIO H2G, and the CT's gain over MMIO.
    pub round_trips: Option<[f64; 3]>,
    /// Fast requests per second, batched and with a notify each, and the
    /// gain of batching.
    pub fast: Option<[f64; 3]>,
}

/// The ratios of one run: CT against MMIO round trips, and what batching
/// fast requests gains.
pub fn rates(rows: &[Row]) -> Rates {
    let us = |what: &str| {
        rows.iter()
            .find(|r| r.what == what)
            .and_then(|r| r.us)
            .filter(|u| *u > 0.0)
    };
    Rates {
        round_trips: us("CT request round trip")
            .zip(us("MMIO H2G round trip"))
            .map(|(ct, mmio)| [1e6 / ct, 1e6 / mmio, mmio / ct]),
        fast: us("CT fast request, own notify")
            .zip(us("CT fast request, batch of 64"))
            .map(|(each, batched)| [1e6 / batched, 1e6 / each, each / batched]),
    }
}

/// [`rates`] as text.
fn ratios(rows: &[Row]) -> String {
    let r = rates(rows);
    let mut s = String::new();
    if let Some([ct, mmio, gain]) = r.round_trips {
        s.push_str(&format!(
            "round trips per second: CT {ct:.0}, MMIO H2G {mmio:.0}; CT/MMIO {gain:.2}\n"
        ));
    }
    if let Some([batched, each, gain]) = r.fast {
        s.push_str(&format!(
            "fast requests per second: batched {batched:.0}, one notify each {each:.0}; batching gain {gain:.2}\n"
        ));
    }
    s
}

/// Where [`run`] writes its JSON, relative to the repository.
pub const JSON_FILE: &str = "build/bench.json";

/// One boot's MMIO reconciliation, for the JSON file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reconciled {
    /// The boot (`default`, `execlist`, ...).
    pub boot: String,
    /// Its module parameters.
    pub params: Vec<String>,
    /// The driver's final `mmio_stats`, if the guest printed it.
    pub driver: Option<mmio::Counts>,
    /// The mock's count, if its summary could be read.
    pub mock: Option<mmio::Counts>,
}

/// Everything one bench run measured and found: what `build/bench.json`
/// holds ([`Record::json`]).
#[derive(Debug, Clone, Default)]
pub struct Record {
    /// The measurements the tables are made of, from every boot, with the
    /// SR-IOV boot's relay round trips.
    pub output: Output,
    /// The boot each measurement came from, by name.
    pub boot_of: BTreeMap<String, String>,
    /// The per-operation table ([`table`]), when it could be made.
    pub rows: Vec<Row>,
    /// Each boot's MMIO reconciliation.
    pub reconciled: Vec<Reconciled>,
    /// VF1's probe under upstream xe, when it ran.
    pub vf: Option<VfTimes>,
    /// The bring-up comparison, when it ran.
    pub bringup: Option<crate::bringup::BringUp>,
    /// Every `error:` line printed, in order.
    pub errors: Vec<String>,
}

impl Record {
    /// Prints `error: LINE` and keeps it.
    fn error(&mut self, line: String) {
        println!("error: {line}");
        self.errors.push(line);
    }

    /// Adds the measurements of `boot`.
    fn add(&mut self, boot: &str, measures: impl IntoIterator<Item = Measure>) {
        for m in measures {
            self.boot_of.insert(m.name.clone(), boot.to_string());
            self.output.measures.push(m);
        }
    }

    /// The JSON file: every figure the bench prints, by stable keys
    /// (Documentation/testing.rst, "make bench").
    pub fn json(&self) -> Value {
        let operations: Vec<Value> = self
            .output
            .measures
            .iter()
            .map(|m| {
                // CAST: counts far below 2^52, exact in f64.
                let n = m.n as f64;
                let extra: serde_json::Map<String, Value> =
                    m.extra.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
                json!({
                    "name": m.name,
                    "boot": self.boot_of.get(&m.name),
                    "n": m.n,
                    "reads": m.reads,
                    "writes": m.writes,
                    "ns": m.ns,
                    "reads_per_op": m.reads as f64 / n,
                    "writes_per_op": m.writes as f64 / n,
                    "us_per_op": m.ns.map(|t| t as f64 / n / 1000.0),
                    "extra": extra,
                })
            })
            .collect();
        let table: Vec<Value> = self
            .rows
            .iter()
            .map(|r| {
                json!({
                    "operation": r.what,
                    "mmio": r.total(),
                    "reads": r.reads,
                    "writes": r.writes,
                    "target": r.target,
                    "us_per_op": r.us,
                    "off_target": r.off_target(),
                })
            })
            .collect();
        let r = rates(&self.rows);
        let (ct, fast) = (r.round_trips, r.fast);
        let (blit, modes) = submissions(&self.output);
        let relay = relay(&self.output.relays, &self.rows).ok();
        let counts = |c: Option<mmio::Counts>| {
            c.map_or(
                Value::Null,
                |c| json!({"reads": c.reads, "writes": c.writes}),
            )
        };
        json!({
            "ok": self.errors.is_empty(),
            "errors": self.errors,
            "operations": operations,
            "table": table,
            "rates": {
                "ct_round_trips_per_second": ct.map(|c| c[0]),
                "mmio_h2g_round_trips_per_second": ct.map(|c| c[1]),
                "ct_over_mmio": ct.map(|c| c[2]),
                "fast_batched_per_second": fast.map(|f| f[0]),
                "fast_each_per_second": fast.map(|f| f[1]),
                "batching_gain": fast.map(|f| f[2]),
                "interrupts_per_second": interrupt_rates(&self.rows)
                    .into_iter()
                    .map(|(what, per_second)| json!({"operation": what, "per_second": per_second}))
                    .collect::<Vec<_>>(),
            },
            "submission": {
                "blit": blit.map(|b| json!({
                    "mib": b.mib,
                    "blit_mib_per_second": b.blit_mib_s,
                    "memcpy_mib_per_second": b.memcpy_mib_s,
                    "memcpy_over_blit": b.memcpy_over_blit,
                })),
                "modes": modes.iter().map(|m| json!({
                    "name": m.name,
                    "mode": m.what,
                    "requests_per_second": m.per_second,
                    "p50_us": m.p50_us,
                    "p99_us": m.p99_us,
                    "loads_per_request": m.loads,
                    "interrupts_per_request": m.irqs,
                })).collect::<Vec<_>>(),
            },
            "sriov": sriov_rows(&self.output).iter().map(|r| json!({
                "vfs": r.vfs,
                "operation": r.operation,
                "ms": r.ms,
                "reads": r.reads,
                "writes": r.writes,
                "h2g": r.h2g,
                "g2h": r.g2h,
                "ggtt_bytes": r.ggtt_bytes,
                "clear_ggtt_bytes": r.clear_ggtt_bytes,
                "lmtt_bytes": r.lmtt_bytes,
                "memcpy_ms": r.memcpy_ms,
                "x_memcpy": r.x_memcpy,
            })).collect::<Vec<_>>(),
            "relay": relay.map(|r| json!({
                "round_trips": r.count,
                "median_us": r.median_us,
                "largest_us": r.largest_us,
                "ct_round_trip_us": r.ct_us,
                "relay_over_ct": r.relay_over_ct,
            })),
            "vf": self.vf.as_ref().map(|t| json!({
                "first_job_ms": t.ms_after_probe(t.first_job),
                "every_class_ms": t.ms_after_probe(t.every_class),
            })),
            "bringup": self.bringup.as_ref().and_then(|b| {
                b.xe.as_ref().map(|xe| crate::bringup::json(&b.xehpg, xe))
            }),
            "reconciliation": self.reconciled.iter().map(|c| json!({
                "boot": c.boot,
                "params": c.params,
                "driver": counts(c.driver),
                "mock": counts(c.mock),
                "equal": c.driver.is_some() && c.driver == c.mock,
            })).collect::<Vec<_>>(),
        })
    }
}

/// Runs the bench; `Ok(false)` when something is printed as an error or a
/// count is above its baseline.
///
/// Boots: the default one (GuC running) for everything but execlist and
/// doorbell submission, then one with `force_execlist=1` for the execlist
/// rows, one with `guc_doorbells=1` for the doorbell rows (each reconciles
/// its own MMIO counts), the SR-IOV one, the xe-vf suite's two VMs (VF1's probe to its first
/// job, [`vf_boot`]), and last the bring-up comparison
/// with upstream xe ([`crate::bringup`], two boots with the mock's trace).
/// Then writes [`JSON_FILE`] and compares its counts with `baseline`
/// ([`check_baseline`]), or with `update` records them there.
pub fn run(repo: &Path, kdir: Option<&Path>, baseline: &Path, update: bool) -> Result<bool> {
    let logs = repo.join("build/bench");
    std::fs::create_dir_all(&logs).with_context(|| format!("creating {}", logs.display()))?;
    let mut rec = Record::default();
    let default = boot(repo, &logs, "default", &[], &mut rec)?;
    rec.add("default", default.measures);
    let execlist = boot(repo, &logs, "execlist", &["force_execlist=1"], &mut rec)?;
    rec.add(
        "execlist",
        execlist
            .measures
            .into_iter()
            .filter(|m| m.name.starts_with("exec_") || m.name == "irq_engine_el"),
    );
    let doorbell = boot(repo, &logs, "doorbell", &["guc_doorbells=1"], &mut rec)?;
    rec.add(
        "doorbell",
        doorbell
            .measures
            .into_iter()
            .filter(|m| m.name.starts_with("db_") || m.name == "irq_engine_db"),
    );
    let sriov = sriov_boot(repo, &logs, &mut rec)?;
    rec.output.relays = sriov.relays;
    rec.add("sriov", sriov.measures);
    let submission = submission_lines(&rec.output);
    match table(&rec.output) {
        Ok(rows) => {
            let n = rec.output.measures.first().map_or(0, |m| m.n);
            print!("\n{}{submission}", render(&rows, n));
            let (text, errors) = sriov_lines(&rec.output, &sriov.maps);
            print!("{text}");
            match relay_line(&rec.output.relays, &rows) {
                Ok(line) => print!("{line}"),
                Err(e) => rec.error(format!("relay: {e}")),
            }
            for e in errors {
                rec.error(e);
            }
            rec.rows = rows;
        }
        Err(e) => rec.error(format!("{e:#}")),
    }
    // Then VF1 under upstream xe in a second VM (the xe-vf suite's two VMs).
    match vf_boot(repo, kdir) {
        Ok((times, passed)) => {
            println!("\n{}", crate::suites::xe_vf::vf_times_line(&times));
            rec.vf = Some(times);
            if !passed {
                rec.error("VF: the xe-vf run failed a case (above)".into());
            }
        }
        Err(e) => rec.error(format!("VF: {e:#}")),
    }
    // Last, after the per-operation table: two more boots, xehpg and xe.
    match crate::bringup::run(repo, kdir, &logs) {
        Ok(b) => {
            for e in &b.errors {
                rec.error(format!("bring-up: {e}"));
            }
            rec.bringup = Some(b);
        }
        Err(e) => rec.error(format!("bring-up: {e:#}")),
    }
    let json = rec.json();
    let file = repo.join(JSON_FILE);
    std::fs::write(&file, format!("{json:#}\n"))
        .with_context(|| format!("writing {}", file.display()))?;
    println!("\nresults: {}", file.display());
    let counts_ok = match check_baseline(baseline, &json, update) {
        Ok(ok) => ok,
        Err(e) => {
            println!("error: baseline: {e:#}");
            false
        }
    };
    Ok(rec.errors.is_empty() && counts_ok)
}

/// Compares the MMIO counts of a bench JSON file (`json`, as [`Record::json`]
/// writes it) with the baseline file at `path` and prints the verdict; with
/// `update`, records them there instead, if the run that wrote `json` had no
/// error. `Ok(false)` when a count is above its baseline, an operation of the
/// baseline was not measured, or the update was refused.
///
/// # Errors
///
/// The JSON has no operations, or the baseline cannot be read, parsed or
/// written.
pub fn check_baseline(path: &Path, json: &Value, update: bool) -> Result<bool> {
    let run = baseline::run_counts(json)?;
    let old = match std::fs::read_to_string(path) {
        // The first --update-baseline starts from an empty baseline.
        Err(e) if update && e.kind() == std::io::ErrorKind::NotFound => {
            baseline::Baseline::default()
        }
        text => text
            .with_context(|| format!("reading {}", path.display()))
            .and_then(|t| baseline::parse(&t).with_context(|| format!("{}", path.display())))?,
    };
    if update {
        if json["ok"] != true {
            println!(
                "error: baseline: {} not updated: the run had errors (above, or the JSON's `errors`)",
                path.display()
            );
            return Ok(false);
        }
        let (new, changes) = baseline::update(&old, &run);
        std::fs::write(path, baseline::render(&new)?)
            .with_context(|| format!("writing {}", path.display()))?;
        println!(
            "{} rewritten: {} operation(s) recorded, {} under `varies`",
            path.display(),
            new.ops.len(),
            new.varies.len()
        );
        for c in changes {
            println!("  {c}");
        }
        return Ok(true);
    }
    let v = baseline::compare(&old, &run);
    println!(
        "\nMMIO counts against {} ({} operation(s) recorded, {} under `varies`):",
        path.display(),
        old.ops.len(),
        old.varies.len()
    );
    for n in &v.notes {
        println!("note: {n}");
    }
    for f in &v.failures {
        println!("error: baseline: {f}");
    }
    if v.passed() {
        println!("ok: no count above its baseline");
    }
    Ok(v.passed())
}

/// The SR-IOV boot: the shim and xehpg copied, not loaded (`bench.sh sriov`
/// loads them in order); the `sriov-map N:` captures saved as
/// `build/bench/sriov-N.txt` for `make sriov-map`.
fn sriov_boot(repo: &Path, logs: &Path, rec: &mut Record) -> Result<Output> {
    let shim = repo.join("build/sriov-shim/xehpg_sriov_shim.ko");
    if !shim.exists() {
        rec.error(format!(
            "{} is missing: `make sriov-shim` builds it; no SR-IOV rows",
            shim.display()
        ));
        return Ok(Output::default());
    }
    let trace = logs.join("sriov-trace.jsonl");
    let _ = std::fs::remove_file(&trace);
    let extra = [
        "--no-load".to_string(),
        format!("--module={}", shim.display()),
        format!("--trace={}", trace.display()),
    ];
    let mut output = boot_with(repo, logs, "sriov", &[], &extra, rec)?;
    output.relays = relay_round_trips(&std::fs::read_to_string(&trace).unwrap_or_default());
    let text = std::fs::read_to_string(logs.join("sriov-output.log")).unwrap_or_default();
    output.maps = sriov_maps(&text);
    for (n, map) in &output.maps {
        let path = logs.join(format!("sriov-{n}.txt"));
        std::fs::write(&path, map).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(output)
}

/// The xe-vf suite's run on the plain kernel (`kdir`): VF1's probe to its first job and to a
/// context on every engine class, and whether every case passed.
fn vf_boot(repo: &Path, kdir: Option<&Path>) -> Result<(VfTimes, bool)> {
    let kdir = kdir.context("no plain kernel tree (KDIR) for upstream xe")?;
    let ctx = crate::suites::Context {
        repo: repo.to_path_buf(),
        kdir: kdir.to_path_buf(),
        env: xehpg_common::envmk::EnvMk::load_default()?,
        selections: Vec::new(),
        debug: false,
        distro: false,
        vm_jobs: 1,
    };
    crate::suites::xe_vf::bench(&ctx)
}

/// The relay round trips of a mock trace, in microseconds and in order: from a VF's request
/// queued to the PF (`sriov_relay` `to_pf`, `queued`) to the PF's answer the GuC took for it
/// (`to_vf`, `matched`, `ok`), both on the mock's clock.
pub fn relay_round_trips(trace: &str) -> Vec<u64> {
    let mut sent = std::collections::BTreeMap::new();
    let mut out = Vec::new();
    for line in trace.lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if v["ev"] != "sriov_relay" {
            continue;
        }
        let (Some(t), Some(vf), Some(rid)) =
            (v["t_us"].as_u64(), v["vfid"].as_u64(), v["rid"].as_u64())
        else {
            continue;
        };
        match (v["dir"].as_str(), v["verdict"].as_str()) {
            (Some("to_pf"), Some("queued")) => {
                sent.insert((vf, rid), t);
            }
            (Some("to_vf"), Some("ok")) if v["matched"] == true => {
                if let Some(t0) = sent.remove(&(vf, rid)) {
                    out.push(t.saturating_sub(t0));
                }
            }
            _ => {}
        }
    }
    out
}

/// The relay figures ([`relay`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Relay {
    /// Round trips timed.
    pub count: usize,
    /// Their median, microseconds.
    pub median_us: u64,
    /// The largest, microseconds.
    pub largest_us: u64,
    /// The PF's CT request round trip of the default boot, microseconds.
    pub ct_us: f64,
    /// The median over the CT round trip.
    pub relay_over_ct: f64,
}

/// The relay figures: the median and largest round trip of the SR-IOV
/// boot's handshakes beside a PF CT request round trip of the default boot,
/// and their ratio.
///
/// # Errors
///
/// No relay answered, or no CT round trip to compare with.
pub fn relay(relays: &[u64], rows: &[Row]) -> Result<Relay, String> {
    let mut rts = relays.to_vec();
    rts.sort_unstable();
    let Some(&max) = rts.last() else {
        return Err("no relay round trip in the SR-IOV boot's trace".into());
    };
    let median = rts[rts.len() / 2];
    let ct = rows
        .iter()
        .find(|r| r.what == "CT request round trip")
        .and_then(|r| r.us)
        .filter(|u| *u > 0.0)
        .ok_or("no CT request round trip to compare with")?;
    // CAST: microseconds far below 2^52, exact in f64.
    Ok(Relay {
        count: rts.len(),
        median_us: median,
        largest_us: max,
        ct_us: ct,
        relay_over_ct: median as f64 / ct,
    })
}

/// The relay row ([`relay`]) as text.
///
/// # Errors
///
/// As [`relay`].
pub fn relay_line(relays: &[u64], rows: &[Row]) -> Result<String, String> {
    let r = relay(relays, rows)?;
    Ok(format!(
        "relay round trip (VF1 VF2PF_HANDSHAKE, {} one at a time, mock's clock): median {} us, \
         largest {} us; PF CT request round trip {:.1} us; relay/CT {:.1}\n",
        r.count, r.median_us, r.largest_us, r.ct_us, r.relay_over_ct
    ))
}

/// The `sriov-map N: LINE` captures of the guest's output, per N in order.
pub fn sriov_maps(text: &str) -> Vec<(u64, String)> {
    let mut maps: Vec<(u64, String)> = Vec::new();
    for line in text.lines() {
        let line = line.trim_end_matches('\r');
        let Some((n, rest)) = line
            .strip_prefix(MAP_PREFIX)
            .and_then(|r| r.split_once(": "))
        else {
            continue;
        };
        let Ok(n) = n.parse::<u64>() else { continue };
        match maps.iter_mut().find(|(m, _)| *m == n) {
            Some((_, t)) => {
                t.push_str(rest);
                t.push('\n');
            }
            None => maps.push((n, format!("{rest}\n"))),
        }
    }
    maps
}

/// Prefix of the guest's debugfs `sriov` captures.
const MAP_PREFIX: &str = "sriov-map ";

/// One row of the SR-IOV table ([`sriov_rows`]).
#[derive(Debug, Clone, PartialEq)]
pub struct SriovRow {
    /// VFs (un)provisioned.
    pub vfs: u64,
    /// `provision` or `unprovision`.
    pub operation: &'static str,
    /// The driver's time, milliseconds.
    pub ms: f64,
    /// MMIO reads.
    pub reads: u64,
    /// MMIO writes.
    pub writes: u64,
    /// CT messages sent.
    pub h2g: u64,
    /// CT messages received.
    pub g2h: u64,
    /// GGTT bytes written.
    pub ggtt_bytes: u64,
    /// Of them, the local-memory clears', when the driver counts them.
    pub clear_ggtt_bytes: Option<u64>,
    /// LMTT bytes written.
    pub lmtt_bytes: u64,
    /// A CPU copy of the same bytes, milliseconds.
    pub memcpy_ms: f64,
    /// The operation's time over the copy's, when the copy was timed.
    pub x_memcpy: Option<f64>,
}

/// The SR-IOV boot's `sriov_*` measurements as table rows.
pub fn sriov_rows(out: &Output) -> Vec<SriovRow> {
    out.measures
        .iter()
        .filter(|m| m.name.starts_with("sriov_"))
        .map(|m| {
            let (ns, copy) = (m.ns.unwrap_or(0), m.get("memcpy_ns").unwrap_or(0));
            // CAST: counts far below 2^52, exact in f64.
            SriovRow {
                vfs: m.get("vfs").unwrap_or(0),
                operation: if m.name.starts_with("sriov_provision") {
                    "provision"
                } else {
                    "unprovision"
                },
                ms: ns as f64 / 1e6,
                reads: m.reads,
                writes: m.writes,
                h2g: m.get("h2g").unwrap_or(0),
                g2h: m.get("g2h").unwrap_or(0),
                ggtt_bytes: m.get("ggtt_bytes").unwrap_or(0),
                clear_ggtt_bytes: m.get("clear_ggtt_bytes"),
                lmtt_bytes: m.get("lmtt_bytes").unwrap_or(0),
                memcpy_ms: copy as f64 / 1e6,
                x_memcpy: (copy > 0).then(|| ns as f64 / copy as f64),
            }
        })
        .collect()
}

/// The SR-IOV provisioning figures: per VF count, provision and unprovision
/// with their time, MMIO, CT messages and table bytes, and the time against
/// a CPU copy of the same bytes measured by the driver in the same run. Also
/// checks every byte the driver counted against the map it reported
/// (`maps`, [`expected_bytes`]): provisioning writes every GGTT entry of each
/// VF's range (8 bytes each), the GGTT entries its local-memory clears point
/// and scrub (`clear_ggtt_bytes`, the rest of `ggtt_bytes`), zeroes its 256
/// KiB leaf, writes one 4-byte leaf entry per 2 MiB of its local memory and
/// its directory entry; giving back points the same GGTT entries at scratch,
/// clears nothing and clears each directory entry. A difference is returned
/// as an error.
pub fn sriov_lines(out: &Output, maps: &[(u64, String)]) -> (String, Vec<String>) {
    let mut s = String::new();
    let mut errors = Vec::new();
    let rows: Vec<&Measure> = out
        .measures
        .iter()
        .filter(|m| m.name.starts_with("sriov_"))
        .collect();
    if rows.is_empty() {
        return (s, errors);
    }
    s.push_str(&format!(
        "\nSR-IOV PF, debugfs `provision N` (no VF on the bus), the driver's own times:\n\
         {:<4} {:<11} {:>9} {:>6} {:>6} {:>5} {:>5} {:>11} {:>11} {:>11} {:>10} {:>9}\n",
        "VFs",
        "operation",
        "ms",
        "reads",
        "writes",
        "H2G",
        "G2H",
        "GGTT bytes",
        "of it clear",
        "LMTT bytes",
        "memcpy ms",
        "x memcpy"
    ));
    for r in sriov_rows(out) {
        s.push_str(&format!(
            "{:<4} {:<11} {:>9.1} {:>6} {:>6} {:>5} {:>5} {:>11} {:>11} {:>11} {:>10.2} {:>9}\n",
            r.vfs,
            r.operation,
            r.ms,
            r.reads,
            r.writes,
            r.h2g,
            r.g2h,
            r.ggtt_bytes,
            r.clear_ggtt_bytes
                .map_or("-".to_string(), |c| c.to_string()),
            r.lmtt_bytes,
            r.memcpy_ms,
            r.x_memcpy.map_or("-".to_string(), |x| format!("{x:.1}"))
        ));
    }
    s.push_str(
        "(of it clear: the GGTT bytes of the copy engine's local-memory clears; \
         x memcpy: the operation's time over a CPU copy of its GGTT + LMTT bytes \
         between two kernel buffers)\n",
    );
    for (n, text) in maps {
        let expect = match expected_bytes(text) {
            Ok(e) => e,
            Err(e) => {
                errors.push(format!("sriov-{n}: {e:#}"));
                continue;
            }
        };
        for (name, want) in [
            (
                format!("sriov_provision_{n}"),
                (expect.ggtt, expect.clear, expect.lmtt),
            ),
            // Giving back clears nothing.
            (
                format!("sriov_unprovision_{n}"),
                (expect.ggtt, 0, expect.dir),
            ),
        ] {
            let Some(m) = rows.iter().find(|m| m.name == name) else {
                errors.push(format!("the guest reported no `{name}` measurement"));
                continue;
            };
            let Some(clear) = m.get("clear_ggtt_bytes") else {
                errors.push(format!(
                    "{name}: no clear_ggtt_bytes (a driver older than the clear's accounting?)"
                ));
                continue;
            };
            let total = m.get("ggtt_bytes").unwrap_or(0);
            // VF ranges, clears, LMTT.
            let got = (
                total.wrapping_sub(clear),
                clear,
                m.get("lmtt_bytes").unwrap_or(0),
            );
            if clear > total || got != want {
                errors.push(format!(
                    "{name}: the driver counted GGTT bytes {total} of which the clears {clear}, \
                     LMTT bytes {}; its map implies VF ranges/clears/LMTT {want:?}",
                    got.2
                ));
            }
        }
    }
    (s, errors)
}

/// Table bytes one provisioning of a map writes.
#[derive(Debug, PartialEq, Eq)]
struct Expected {
    /// GGTT, the VFs' ranges: 8 bytes per 4 KiB page of every VF's range.
    ggtt: u64,
    /// GGTT, the local-memory clears ([`clear_ggtt_bytes`]), summed over
    /// every run of every VF.
    clear: u64,
    /// LMTT at provisioning: each leaf zeroed, an entry per 2 MiB page, a
    /// directory entry.
    lmtt: u64,
    /// LMTT at giving back: a directory entry per VF.
    dir: u64,
}

/// What the map `text` (debugfs `sriov`) implies was written: a 64-bit GGTT
/// entry per 4 KiB page (the driver's `Mmio::write_gsm`, as upstream
/// `xe_ggtt.c` writes each PTE with one `writeq`) of each VF's range and of
/// its clears ([`clear_ggtt_bytes`]), a 32-bit LMTT entry per 2 MiB page and
/// a 256 KiB leaf (seed 000 lines 380-397).
fn expected_bytes(text: &str) -> Result<Expected> {
    let map = xehpg_sriov_map::parse(text)?;
    // The GGTT's holes during the clears: the map is read after provisioning,
    // and the GGTT then holds what it held while the clears ran (the VFs'
    // ranges are reserved before them, nothing after them reserves GGTT, and
    // each clear's window is given back before the next).
    let free = xehpg_sriov_map::subtract(&[map.ggtt_window], &map.ggtt_used);
    let mut e = Expected {
        ggtt: 0,
        clear: 0,
        lmtt: 0,
        dir: 0,
    };
    for v in &map.vfs {
        let leaf = v.leaf.with_context(|| format!("VF{} has no leaf", v.n))?;
        e.ggtt += v.ggtt.size() / GGTT_PAGE * 8;
        for run in &v.lmem {
            e.clear += clear_ggtt_bytes(run.size(), &free).with_context(|| {
                format!(
                    "VF{}'s run {:#x}-{:#x}: no GGTT room for a clear window",
                    v.n, run.start, run.end
                )
            })?;
        }
        let lmem: u64 = v.lmem.iter().map(|r| r.size()).sum();
        e.lmtt += leaf.size() + lmem / (2 << 20) * 4 + 4;
        e.dir += 4;
    }
    Ok(e)
}

/// GGTT page: one 8-byte entry each.
const GGTT_PAGE: u64 = 4096;
/// The clear's largest window (`rust/submit/clear.rs` `WINDOW`).
const CLEAR_WINDOW: u64 = 64 << 20;
/// The GGTT alignment of local memory, which the clear's window is reserved
/// with and its smallest size (`rust/mem/ggtt.rs` `LMEM_ALIGN`;
/// `rust/submit/clear.rs` `MIN_WINDOW`).
const LMEM_ALIGN: u64 = 64 << 10;

/// GGTT bytes the copy engine's clear of one `run` bytes of local memory
/// writes (`rust/submit/clear.rs`, `Submit::clear_lmem`): `clear_locked`
/// reserves a window of `min(run, WINDOW)` rounded up to 64 KiB, halved
/// (rounded up to 64 KiB) while the GGTT has no hole for it, down to 64 KiB
/// (`Submit::window`); `clear_window` points as many entries as each part
/// of the run it clears, so every page of the run once; and at the end the
/// whole window's entries are pointed back at scratch (`ggtt().clear(bar,
/// map)` with `map` the full window). So 8 bytes per 4 KiB page of the run
/// plus 8 per page of the window. `free` is the GGTT's holes
/// (`RangeAllocator::alloc` with 64 KiB alignment takes the first that
/// fits). `None` when not even 64 KiB fits (the clear fails with `ENOSPC`).
fn clear_ggtt_bytes(run: u64, free: &[xehpg_sriov_map::Range]) -> Option<u64> {
    if run == 0 {
        return Some(0);
    }
    let fits = |size: u64| {
        free.iter().any(|h| {
            h.start
                .checked_next_multiple_of(LMEM_ALIGN)
                .and_then(|start| start.checked_add(size))
                .is_some_and(|end| end <= h.end)
        })
    };
    let mut window = run.min(CLEAR_WINDOW).next_multiple_of(LMEM_ALIGN);
    while !fits(window) {
        if window <= LMEM_ALIGN {
            return None;
        }
        window = (window / 2).next_multiple_of(LMEM_ALIGN);
    }
    Some((run / GGTT_PAGE + window / GGTT_PAGE) * 8)
}

/// One VM boot running `bench.sh PHASE` with module `params`: its output;
/// a guest error, a VM failure or counts that do not reconcile go to `rec`.
fn boot(
    repo: &Path,
    logs: &Path,
    phase: &str,
    params: &[&str],
    rec: &mut Record,
) -> Result<Output> {
    boot_with(repo, logs, phase, params, &[], rec)
}

/// [`boot`] with `extra` runner arguments.
fn boot_with(
    repo: &Path,
    logs: &Path,
    phase: &str,
    params: &[&str],
    extra: &[String],
    rec: &mut Record,
) -> Result<Output> {
    let (out_log, console, summary) = (
        logs.join(format!("{phase}-output.log")),
        logs.join(format!("{phase}-console.log")),
        logs.join(format!("{phase}-mock.json")),
    );
    for f in [&out_log, &console, &summary] {
        // A stale summary would pass for this run's.
        let _ = std::fs::remove_file(f);
    }
    let mut cmd = Command::new(repo.join("tools/vm/run"));
    cmd.args(["-q", &format!("--timeout={GUEST_TIMEOUT_SECS}")])
        .arg(format!("--console={}", console.display()))
        .arg(format!("--summary={}", summary.display()))
        .arg(format!(
            "--module={}",
            repo.join("build/module/xehpg.ko").display()
        ))
        .arg(format!(
            "--guest-file={}:/bench.sh",
            repo.join("tools/guest/bench.sh").display()
        ));
    for p in params {
        cmd.arg(format!("--param={p}"));
    }
    cmd.args(extra);
    cmd.args(["--", &format!("sh /bench.sh {phase}")]);
    println!(
        "xehpg bench: booting the VM, {phase} (logs in {})",
        logs.display()
    );
    let finished = run_logged(&mut cmd, &out_log, LIMIT)?;
    let text = String::from_utf8_lossy(&std::fs::read(&out_log).unwrap_or_default()).into_owned();
    let output = parse(&text)?;
    let before = rec.errors.len();
    for e in &output.errors {
        rec.error(format!("guest ({phase}): {e}"));
    }
    if !finished.success() {
        rec.error(format!("{phase}: {}", vm_exit_meaning(&finished)));
    }
    let reconciled = reconcile(&output, &summary, rec);
    rec.reconciled.push(Reconciled {
        boot: phase.to_string(),
        params: params.iter().map(|p| p.to_string()).collect(),
        ..reconciled
    });
    if rec.errors.len() > before {
        println!("(guest output: {})", out_log.display());
    }
    Ok(output)
}

/// Prints the MMIO reconciliation, a mismatch or missing data as an error
/// in `rec`; the counts compared (the boot's name and parameters left for
/// the caller).
fn reconcile(output: &Output, summary: &Path, rec: &mut Record) -> Reconciled {
    let mut r = Reconciled {
        boot: String::new(),
        params: Vec::new(),
        driver: output.stats,
        mock: None,
    };
    let Some(driver) = output.stats else {
        rec.error("the guest never printed the driver's final mmio_stats".into());
        return r;
    };
    let mock = std::fs::read_to_string(summary)
        .with_context(|| format!("reading {}", summary.display()))
        .and_then(|t| mock_summary::parse(&t));
    let mock = match mock {
        Ok(m) => m,
        Err(e) => {
            rec.error(format!("mock summary: {e:#}"));
            return r;
        }
    };
    r.mock = Some(mmio::Counts {
        reads: mock.mmio_reads,
        writes: mock.mmio_writes,
    });
    println!(
        "\nMMIO reconciliation: driver mmio_stats reads={} writes={}; mock saw reads={} writes={}",
        driver.reads, driver.writes, mock.mmio_reads, mock.mmio_writes
    );
    match mmio::reconcile(driver, &mock) {
        Ok(()) => println!("ok: equal"),
        Err(why) => rec.error(format!("MMIO counts differ: {why}")),
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    const GUEST: &str = "\
TAP version 13
[   3.1] some kernel line
bench cold_steered_read n=50 reads=400 writes=200 ns=5000000
bench held_steered_read n=50 reads=50 writes=50 ns=2000000
bench held_gam_read n=50 reads=50 writes=0 ns=-
bench held_unicast_read n=50 reads=50 writes=50 ns=1000000
bench held_unicast_write n=50 reads=0 writes=150 ns=1000000
bench held_multicast_write n=50 reads=0 writes=50 ns=1000000
bench irq_guc n=1000 reads=4000 writes=7000 ns=500000000
bench irq_engine n=1000 reads=4100 writes=7000 ns=250000000
bench ct_request n=1000 reads=4000 writes=8000 ns=1000000000
bench ct_fast_batched n=6400 reads=4 writes=108 ns=64000000
bench ct_fast_each n=1000 reads=4 writes=1008 ns=101000000
bench mmio_h2g n=1000 reads=8000 writes=5000 ns=2000000000
bench mmio_stats reads=700 writes=650
";

    #[test]
    fn parses_measures_and_stats() {
        let o = parse(GUEST).unwrap();
        assert_eq!(o.measures.len(), 12);
        assert_eq!(
            o.measures[0],
            Measure {
                name: "cold_steered_read".into(),
                n: 50,
                reads: 400,
                writes: 200,
                ns: Some(5_000_000),
                extra: Vec::new(),
            }
        );
        assert_eq!(o.measures[2].ns, None);
        assert_eq!(
            o.stats,
            Some(mmio::Counts {
                reads: 700,
                writes: 650
            })
        );
        assert!(o.errors.is_empty());
        let e = parse("bench error no device bound to xehpg\n").unwrap();
        assert_eq!(e.errors, ["no device bound to xehpg"]);
    }

    #[test]
    fn submission_figures() {
        let text = format!(
            "{GUEST}bench irq_engine_el n=100 reads=400 writes=700 ns=1000000\n\
             bench exec_burst n=1000 reads=800 writes=1120 ns=100000000 loads=40 irqs=200 \
             p50_ns=2000000 p99_ns=3000000\n\
             bench exec_single n=10 reads=200 writes=300 ns=10000000 loads=10 irqs=20 \
             p50_ns=500000 p99_ns=900000\n"
        );
        let o = parse(&text).unwrap();
        let burst = o.measures.iter().find(|m| m.name == "exec_burst").unwrap();
        assert_eq!(
            (burst.get("loads"), burst.get("irqs")),
            (Some(40), Some(200))
        );
        assert_eq!(burst.get("nothing"), None);
        let rows = table(&o).unwrap();
        let load = rows
            .iter()
            .find(|r| r.what == "execlist Load + amortized forcewake")
            .unwrap();
        // (1120 - 7 * 200) / 40 writes, (800 - 4 * 200) / 40 reads.
        assert_eq!((load.reads, load.writes), (0.0, -7.0));
        let done = rows
            .iter()
            .find(|r| r.what == "execlist completion beyond interrupts")
            .unwrap();
        assert_eq!(done.reads, 0.0);
        let lines = submission_lines(&o);
        assert!(
            lines.contains("execlist, burst: 10000 requests/s, latency median 2000 us p99 3000 us, 0.040 Loads and 0.200 interrupts per request"),
            "{lines}"
        );
        assert!(lines.contains("execlist, one at a time: 1000 requests/s"));
        let blit =
            parse("bench exec_blit n=16 reads=0 writes=3 ns=16000000 memcpy_ns=4000000\n").unwrap();
        let lines = submission_lines(&blit);
        assert!(
            lines.contains(
                "blit 16 MiB on bcs0: 1000 MiB/s, CPU memcpy 4000 MiB/s; blit/memcpy 0.25"
            ),
            "{lines}"
        );
        assert!(parse("bench x n=1 reads=1 writes=1 ns=1 loads=x").is_err());
        assert!(parse("bench x n=1 reads=1 writes=1 ns=1 loads=1 loads=2").is_err());
    }

    /// The doorbell rows: the burst's MMIO beyond its interrupts is the
    /// rings, one write per request.
    #[test]
    fn doorbell_figures() {
        let text = format!(
            "{GUEST}bench irq_engine_db n=100 reads=400 writes=700 ns=1000000\n\
             bench db_burst n=1000 reads=800 writes=2400 ns=50000000 loads=0 irqs=200 \
             p50_ns=1000000 p99_ns=2000000\n\
             bench db_single n=10 reads=40 writes=80 ns=10000000 loads=0 irqs=10 \
             p50_ns=500000 p99_ns=900000\n"
        );
        let o = parse(&text).unwrap();
        let rows = table(&o).unwrap();
        let db = rows
            .iter()
            .find(|r| r.what == "doorbell submission beyond interrupts")
            .unwrap();
        // (800 - 4 * 200) / 1000 reads, (2400 - 7 * 200) / 1000 writes.
        assert_eq!((db.reads, db.writes, db.target), (0.0, 1.0, Some(1.0)));
        assert!(rows
            .iter()
            .any(|r| r.what == "doorbell request alone (all MMIO)" && r.total() == 12.0));
        let lines = submission_lines(&o);
        assert!(
            lines.contains("doorbell, burst: 20000 requests/s"),
            "{lines}"
        );
        // Without the doorbell boot there are no doorbell rows.
        let plain = table(&parse(GUEST).unwrap()).unwrap();
        assert!(!plain.iter().any(|r| r.what.starts_with("doorbell")));
    }

    #[test]
    fn malformed_lines_are_errors() {
        for bad in [
            "bench x n=50 reads=1 writes=2",
            "bench x n=0 reads=1 writes=2 ns=-",
            "bench x n=5 reads=1 writes=2 ns=3 extra=4",
            "bench x n=5 reads=a writes=2 ns=3",
            "bench x n=5 n=5 reads=1 writes=2 ns=3",
            "bench x n=5 reads=1 writes ns=3",
            "bench mmio_stats reads=1",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn table_derives_per_operation_figures() {
        let rows = table(&parse(GUEST).unwrap()).unwrap();
        let fw = &rows[0];
        assert_eq!((fw.reads, fw.writes, fw.total()), (7.0, 3.0, 10.0));
        assert_eq!(fw.us, Some(60.0));
        assert_eq!((rows[1].total(), rows[1].target), (0.0, Some(0.0)));
        assert_eq!((rows[2].total(), rows[2].target), (2.0, Some(2.0)));
        assert_eq!(rows[2].us, Some(40.0));
        assert_eq!(rows[4].total(), 3.0);
        assert_eq!(rows[5].total(), 1.0);
        assert_eq!((rows[6].total(), rows[6].target), (11.0, Some(11.0)));
        assert_eq!(rows[6].us, Some(500.0));
        assert_eq!(rows[7].reads, 4.1);
        let text = render(&rows, 50);
        assert!(text.contains("GuC interrupt (one identity): 2000 per second in a burst"));
        assert!(text.contains("engine interrupt (one identity): 4000 per second"));
        assert!(
            text.contains("engine interrupt (one identity)           11.10"),
            "{text}"
        );
        assert!(text.starts_with("operation (MMIO per op, N=50)"));
        assert!(text.contains("steered read"));
        assert_eq!(text.matches("off target").count(), 1, "{text}");
        let mut off = rows.clone();
        off[5].writes = 2.0;
        assert!(render(&off, 50).contains("multicast write"));
        assert_eq!(render(&off, 50).matches("<- off target").count(), 2);
    }

    #[test]
    fn the_guc_interrupt_row_needs_a_running_guc_only() {
        let without: String = GUEST
            .lines()
            .filter(|l| !l.starts_with("bench irq_guc"))
            .map(|l| format!("{l}\n"))
            .collect();
        let rows = table(&parse(&without).unwrap()).unwrap();
        assert!(rows.iter().all(|r| !r.what.starts_with("GuC interrupt")));
        let no_engine: String = GUEST
            .lines()
            .filter(|l| !l.starts_with("bench irq_engine"))
            .map(|l| format!("{l}\n"))
            .collect();
        assert!(table(&parse(&no_engine).unwrap()).is_err());
    }

    #[test]
    fn ct_rows_subtract_the_interrupt_and_the_closing_request() {
        let rows = table(&parse(GUEST).unwrap()).unwrap();
        let find = |w: &str| rows.iter().find(|r| r.what == w).unwrap().clone();
        let rt = find("CT request round trip");
        assert_eq!((rt.reads, rt.writes, rt.target), (4.0, 8.0, Some(12.0)));
        // 4 + 8 per round trip, of which the interrupt is 4 + 7 and the notify 1.
        let rx = find("CT G2H receive beyond the interrupt");
        assert_eq!((rx.reads, rx.writes, rx.total()), (0.0, 0.0, 0.0));
        // (108 - 8) / 6400 writes per batched fast request: 1/64.
        let b = find("CT fast request, batch of 64");
        assert_eq!((b.reads, b.writes), (0.0, 1.0 / 64.0));
        assert_eq!(b.us, Some((64_000.0 - 1000.0) / 6400.0));
        let e = find("CT fast request, own notify");
        assert_eq!((e.reads, e.writes), (0.0, 1.0));
        assert_eq!(e.us, Some(100.0));
        let text = render(&rows, 50);
        assert!(
            text.contains("round trips per second: CT 1000, MMIO H2G 500; CT/MMIO 2.00"),
            "{text}"
        );
        assert!(text.contains("batching gain 10.16"), "{text}");
        // Without the CT lines the table still stands.
        let without: String = GUEST
            .lines()
            .filter(|l| !l.starts_with("bench ct_") && !l.starts_with("bench mmio_h2g"))
            .map(|l| format!("{l}\n"))
            .collect();
        let rows = table(&parse(&without).unwrap()).unwrap();
        assert!(rows.iter().all(|r| !r.what.starts_with("CT")));
        assert!(!render(&rows, 50).contains("round trips per second"));
    }

    /// Lines of a real `bench.sh sriov` run (the captures abridged to the
    /// committed 7-VF one, from an older driver that laid the VFs out the
    /// same: 512 MiB of GGTT and one 1 GiB run of local memory each, so the
    /// bytes are the same).
    const SRIOV: &str = "\
bench sriov_provision_7 n=1 reads=942 writes=1419 ns=1982869033 h2g=120 g2h=8 ggtt_bytes=22937600 lmtt_bytes=1849372 memcpy_ns=18647189 clear_ggtt_bytes=15597568 vfs=7
bench sriov_unprovision_7 n=1 reads=36 writes=75 ns=322638046 h2g=8 g2h=8 ggtt_bytes=7340032 lmtt_bytes=28 memcpy_ns=6061331 clear_ggtt_bytes=0 vfs=7
bench mmio_stats reads=834 writes=1550
";

    fn seven() -> String {
        let capture = include_str!("../../sriov-map/tests/data/sriov-7.txt");
        let mut text: String = capture
            .lines()
            .map(|l| format!("sriov-map 7: {l}\n"))
            .collect();
        text.push_str(SRIOV);
        text
    }

    #[test]
    fn sriov_captures_are_split_per_vf_count() {
        let text = format!("{}sriov-map 1: total_vfs: 63\nsriov-map x: no\n", seven());
        let maps = sriov_maps(&text);
        assert_eq!(maps.len(), 2);
        assert_eq!(maps[0].0, 7);
        assert_eq!(
            maps[0].1,
            include_str!("../../sriov-map/tests/data/sriov-7.txt")
        );
        assert_eq!(maps[1], (1, "total_vfs: 63\n".to_string()));
    }

    #[test]
    fn sriov_rows_and_the_byte_check() {
        let text = seven();
        let out = parse(&text).unwrap();
        let maps = sriov_maps(&text);
        let (lines, errors) = sriov_lines(&out, &maps);
        assert!(errors.is_empty(), "{errors:?}");
        // 1982.9 ms over 18.65 ms of memcpy: 106.3 times.
        assert!(
            lines.contains("7    provision      1982.9    942   1419   120     8    22937600    15597568     1849372      18.65     106.3"),
            "{lines}"
        );
        assert!(
            lines.contains("7    unprovision     322.6     36     75     8     8     7340032           0          28"),
            "{lines}"
        );
        // 7 VFs of 512 MiB GGTT: 131072 entries of 8 bytes each; each VF's
        // one run of 1 GiB cleared through a 64 MiB window: 262144 entries
        // pointed and the window's 16384 scrubbed; 7 leaves of 256 KiB, 512
        // entries (1 GiB in 2 MiB pages) and a directory entry.
        assert_eq!(
            expected_bytes(&maps[0].1).unwrap(),
            Expected {
                ggtt: 7 * 131072 * 8,
                clear: 7 * (262144 + 16384) * 8,
                lmtt: 7 * (256 * 1024 + 512 * 4 + 4),
                dir: 7 * 4
            }
        );
        // A driver counting wrong is caught: LMTT, the clears, a clear at
        // giving back, the clear's bytes missing or above the total.
        for (from, to, op) in [
            ("lmtt_bytes=28 ", "lmtt_bytes=32 ", "sriov_unprovision_7"),
            (
                "clear_ggtt_bytes=15597568 ",
                "clear_ggtt_bytes=15466496 ",
                "sriov_provision_7",
            ),
            (
                "ggtt_bytes=22937600 ",
                "ggtt_bytes=23068672 ",
                "sriov_provision_7",
            ),
            (
                "ggtt_bytes=7340032 lmtt_bytes=28 memcpy_ns=6061331 clear_ggtt_bytes=0 ",
                "ggtt_bytes=7340040 lmtt_bytes=28 memcpy_ns=6061331 clear_ggtt_bytes=8 ",
                "sriov_unprovision_7",
            ),
            ("clear_ggtt_bytes=0 ", "", "sriov_unprovision_7"),
            (
                "clear_ggtt_bytes=15597568 ",
                "clear_ggtt_bytes=22937608 ",
                "sriov_provision_7",
            ),
        ] {
            let wrong = text.replace(from, to);
            assert_ne!(wrong, text, "{from}");
            let (_, errors) = sriov_lines(&parse(&wrong).unwrap(), &maps);
            assert_eq!(errors.len(), 1, "{from}: {errors:?}");
            assert!(errors[0].contains(op), "{errors:?}");
        }
        // Without the SR-IOV boot there is nothing to print.
        assert_eq!(
            sriov_lines(&parse(GUEST).unwrap(), &[]),
            (String::new(), vec![])
        );
    }

    fn holes(h: &[(u64, u64)]) -> Vec<xehpg_sriov_map::Range> {
        h.iter()
            .map(|&(start, end)| xehpg_sriov_map::Range { start, end })
            .collect()
    }

    /// The clear's GGTT bytes follow `Submit::clear_lmem`: the run's pages
    /// once, plus the window's, the window min(run, 64 MiB) and halved while
    /// the GGTT has no hole for it.
    #[test]
    fn clear_ggtt_bytes_follow_the_window() {
        const MIB: u64 = 1 << 20;
        let room = holes(&[(0x400000, 0x400000 + 1024 * MIB)]);
        let entries = |run: u64, window: u64| Some((run + window) / 4096 * 8);
        // Smaller than the window: the window is the run.
        assert_eq!(clear_ggtt_bytes(2 * MIB, &room), entries(2 * MIB, 2 * MIB));
        assert_eq!(
            clear_ggtt_bytes(64 * MIB, &room),
            entries(64 * MIB, 64 * MIB)
        );
        // Larger: 64 MiB windows, the last part short, the whole window scrubbed.
        assert_eq!(
            clear_ggtt_bytes(100 * MIB, &room),
            entries(100 * MIB, 64 * MIB)
        );
        assert_eq!(
            clear_ggtt_bytes(4096 * MIB, &room),
            Some(4096 * MIB / 4096 * 8 + 16384 * 8)
        );
        assert_eq!(clear_ggtt_bytes(0, &room), Some(0));
        // Less room: 64 MiB, then 32, then 16 MiB, which fits 20 MiB.
        let short = holes(&[(0x400000, 0x400000 + 20 * MIB)]);
        assert_eq!(
            clear_ggtt_bytes(1024 * MIB, &short),
            entries(1024 * MIB, 16 * MIB)
        );
        // A hole counts from its first 64 KiB boundary: 32 MiB from 0x4f1000
        // holds no 32 MiB window once aligned (0x500000).
        let unaligned = holes(&[(0x4f1000, 0x4f1000 + 32 * MIB)]);
        assert_eq!(
            clear_ggtt_bytes(1024 * MIB, &unaligned),
            entries(1024 * MIB, 16 * MIB)
        );
        // The largest hole need not be the first; any that fits serves.
        let two = holes(&[(0x400000, 0x410000), (0x1000000, 0x1000000 + 64 * MIB)]);
        assert_eq!(
            clear_ggtt_bytes(128 * MIB, &two),
            entries(128 * MIB, 64 * MIB)
        );
        // 64 KiB the last try: then the clear fails (ENOSPC), no figure.
        assert_eq!(
            clear_ggtt_bytes(2 * MIB, &holes(&[(0x400000, 0x410000)])),
            entries(2 * MIB, 64 << 10)
        );
        assert_eq!(
            clear_ggtt_bytes(2 * MIB, &holes(&[(0x400000, 0x40f000)])),
            None
        );
        assert_eq!(clear_ggtt_bytes(2 * MIB, &[]), None);
    }

    /// A VF of two runs is cleared run by run, a window each.
    #[test]
    fn expected_clear_bytes_per_run() {
        let seven = include_str!("../../sriov-map/tests/data/sriov-7.txt");
        let split = seven.replace(
            "lmem 0x10000000-0x50000000 ",
            "lmem 0x10000000-0x11000000,0x20000000-0x4f000000 ",
        );
        assert_ne!(split, seven);
        let base = expected_bytes(seven).unwrap();
        let e = expected_bytes(&split).unwrap();
        // 16 MiB in a 16 MiB window and 752 MiB in 64 MiB ones, in place of
        // 1 GiB in 64 MiB ones.
        assert_eq!(
            e.clear - (base.clear - (262144 + 16384) * 8),
            (4096 + 4096 + 192512 + 16384) * 8
        );
        // A full GGTT leaves no window: the map cannot be reconciled.
        let full = seven.replace(
            "ggtt_used: 0x400000-0x413000",
            "ggtt_used: 0x400000-0xfee00000 0x400000-0x413000",
        );
        let err = expected_bytes(&full).unwrap_err();
        assert!(format!("{err:#}").contains("no GGTT room"), "{err:#}");
    }

    #[test]
    fn relay_round_trips_pair_requests_with_answers() {
        let trace = [
            r#"{"seq":1,"t_us":100,"ev":"sriov_relay","vfid":1,"rid":7,"dir":"to_pf","kind":"request","dwords":3,"verdict":"queued","matched":false}"#,
            r#"{"seq":2,"t_us":150,"ev":"sriov_relay","vfid":2,"rid":7,"dir":"to_pf","kind":"request","dwords":3,"verdict":"queued","matched":false}"#,
            // A BUSY does not end the round trip.
            r#"{"seq":3,"t_us":160,"ev":"sriov_relay","vfid":1,"rid":7,"dir":"to_vf","kind":"busy","dwords":1,"verdict":"busy","matched":true}"#,
            r#"{"seq":4,"t_us":400,"ev":"sriov_relay","vfid":1,"rid":7,"dir":"to_vf","kind":"success","dwords":2,"verdict":"ok","matched":true}"#,
            // An answer nobody waits for is not a round trip.
            r#"{"seq":5,"t_us":500,"ev":"sriov_relay","vfid":3,"rid":1,"dir":"to_vf","kind":"success","dwords":2,"verdict":"ok","matched":false}"#,
            r#"{"seq":6,"t_us":650,"ev":"sriov_relay","vfid":2,"rid":7,"dir":"to_vf","kind":"success","dwords":2,"verdict":"ok","matched":true}"#,
            "not json",
        ]
        .join("\n");
        assert_eq!(relay_round_trips(&trace), vec![300, 500]);
        let rows = table(&parse(GUEST).unwrap()).unwrap();
        let line = relay_line(&[300, 500, 100], &rows).unwrap();
        assert!(line.contains("median 300 us, largest 500 us"), "{line}");
        assert!(line.contains("relay/CT"), "{line}");
        assert!(relay_line(&[], &rows).is_err());
    }

    /// A record of the default boot (with execlist lines) and the SR-IOV
    /// boot, as `run` builds it.
    fn record() -> Record {
        let text = format!(
            "{GUEST}bench irq_engine_el n=100 reads=400 writes=700 ns=1000000\n\
             bench exec_burst n=1000 reads=800 writes=1120 ns=100000000 loads=40 irqs=200 \
             p50_ns=2000000 p99_ns=3000000\n\
             bench exec_blit n=16 reads=0 writes=3 ns=16000000 memcpy_ns=4000000\n"
        );
        let mut rec = Record::default();
        rec.add("default", parse(&text).unwrap().measures);
        rec.add("sriov", parse(&seven()).unwrap().measures);
        rec.output.relays = vec![300, 500, 100];
        rec.rows = table(&rec.output).unwrap();
        rec.vf = Some(VfTimes {
            probe: 1000,
            first_job: Some(2200),
            every_class: None,
        });
        let counts = |reads, writes| Some(mmio::Counts { reads, writes });
        rec.reconciled = vec![
            Reconciled {
                boot: "default".into(),
                params: vec![],
                driver: counts(700, 650),
                mock: counts(700, 650),
            },
            Reconciled {
                boot: "execlist".into(),
                params: vec!["force_execlist=1".into()],
                driver: counts(10, 20),
                mock: counts(10, 21),
            },
        ];
        rec
    }

    /// The JSON file has the figures the text prints, under stable keys.
    #[test]
    fn the_json_has_every_printed_figure() {
        let rec = record();
        let j = rec.json();
        assert_eq!((&j["ok"], &j["errors"]), (&json!(true), &json!([])));
        let op = &j["operations"][0];
        assert_eq!(op["name"], "cold_steered_read");
        assert_eq!(op["boot"], "default");
        assert_eq!(
            (&op["n"], &op["reads"], &op["writes"]),
            (&json!(50), &json!(400), &json!(200))
        );
        assert_eq!(
            (&op["reads_per_op"], &op["us_per_op"]),
            (&json!(8.0), &json!(100.0))
        );
        assert_eq!(j["operations"][2]["ns"], Value::Null);
        let burst = j["operations"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["name"] == "exec_burst")
            .unwrap();
        assert_eq!(burst["extra"]["loads"], 40);
        let provision = j["operations"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["name"] == "sriov_provision_7")
            .unwrap();
        assert_eq!(provision["boot"], "sriov");
        // The table's rows, in the printed order, with their targets.
        assert_eq!(j["table"].as_array().unwrap().len(), rec.rows.len());
        let fw = &j["table"][0];
        assert_eq!(fw["operation"], "forcewake get+put, one domain (cold)");
        assert_eq!(
            (&fw["mmio"], &fw["target"], &fw["us_per_op"]),
            (&json!(10.0), &Value::Null, &json!(60.0))
        );
        let engine = &j["table"][7];
        assert_eq!(engine["operation"], "engine interrupt (one identity)");
        assert_eq!(
            (&engine["target"], &engine["off_target"]),
            (&json!(11.0), &json!(true))
        );
        assert_eq!(j["table"][2]["off_target"], false);
        let rates = &j["rates"];
        assert_eq!(rates["ct_round_trips_per_second"], 1000.0);
        assert_eq!(rates["mmio_h2g_round_trips_per_second"], 500.0);
        assert_eq!(rates["ct_over_mmio"], 2.0);
        let gain = rates["batching_gain"].as_f64().unwrap();
        assert!((gain - 10.16).abs() < 0.01, "{gain}");
        assert_eq!(rates["interrupts_per_second"][0]["per_second"], 2000.0);
        assert_eq!(
            rates["interrupts_per_second"][1]["operation"],
            "engine interrupt (one identity)"
        );
        let sub = &j["submission"];
        assert_eq!(sub["blit"]["blit_mib_per_second"], 1000.0);
        assert_eq!(sub["blit"]["memcpy_over_blit"], 0.25);
        assert_eq!(sub["modes"][0]["name"], "exec_burst");
        assert_eq!(sub["modes"][0]["requests_per_second"], 10000.0);
        assert_eq!(sub["modes"][0]["p99_us"], 3000.0);
        assert_eq!(sub["modes"][0]["loads_per_request"], 0.04);
        let sriov = &j["sriov"][0];
        assert_eq!(
            (&sriov["vfs"], &sriov["operation"]),
            (&json!(7), &json!("provision"))
        );
        assert_eq!((&sriov["reads"], &sriov["h2g"]), (&json!(942), &json!(120)));
        assert_eq!(sriov["clear_ggtt_bytes"], 15597568);
        let x = sriov["x_memcpy"].as_f64().unwrap();
        assert!((x - 106.3).abs() < 0.05, "{x}");
        assert_eq!(j["relay"]["median_us"], 300);
        assert_eq!(j["relay"]["largest_us"], 500);
        assert_eq!(j["relay"]["ct_round_trip_us"], 1000.0);
        assert_eq!(j["vf"]["first_job_ms"], 1.2);
        assert_eq!(j["vf"]["every_class_ms"], Value::Null);
        assert_eq!(j["bringup"], Value::Null);
        let rc = &j["reconciliation"];
        assert_eq!(
            (&rc[0]["equal"], &rc[1]["equal"]),
            (&json!(true), &json!(false))
        );
        assert_eq!(rc[1]["params"][0], "force_execlist=1");
        assert_eq!(rc[1]["mock"]["writes"], 21);
        // As written and read back, and with an error it is not ok.
        // (Floats may differ in their last bit when read back.)
        let back: Value = serde_json::from_str(&format!("{j:#}")).unwrap();
        let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
        assert_eq!(keys(&back), keys(&j));
        assert_eq!(
            baseline::run_counts(&back).unwrap(),
            baseline::run_counts(&j).unwrap()
        );
        let mut failed = record();
        failed.errors.push("guest (default): no device".into());
        assert_eq!(failed.json()["ok"], false);
        assert_eq!(failed.json()["errors"][0], "guest (default): no device");
    }

    /// `check_baseline` on files: the first update records the JSON's
    /// counts, the same run then passes, a baseline one count lower fails,
    /// and a run with errors is not recorded.
    #[test]
    fn the_baseline_check_on_files() {
        let dir = std::env::temp_dir().join(format!("xehpg-check-bench-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("baseline.toml");
        let _ = std::fs::remove_file(&path);
        let j = record().json();
        // No file: an error, unless recording.
        assert!(check_baseline(&path, &j, false).is_err());
        assert!(check_baseline(&path, &j, true).unwrap());
        let b = baseline::parse(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(
            b.ops["held_unicast_write"],
            baseline::Counts {
                n: 50,
                reads: 0,
                writes: 150
            }
        );
        assert_eq!(b.ops.len(), j["operations"].as_array().unwrap().len());
        assert!(check_baseline(&path, &j, false).unwrap());
        // One write fewer in the baseline: this run's count is worse.
        let text = std::fs::read_to_string(&path).unwrap();
        let lowered = text.replace(
            "[ops.held_unicast_write]\nn = 50\nreads = 0\nwrites = 150\n",
            "[ops.held_unicast_write]\nn = 50\nreads = 0\nwrites = 149\n",
        );
        assert_ne!(lowered, text);
        std::fs::write(&path, &lowered).unwrap();
        assert!(!check_baseline(&path, &j, false).unwrap());
        // A failed run does not replace the baseline.
        let mut failed = record();
        failed.errors.push("boom".into());
        assert!(!check_baseline(&path, &failed.json(), true).unwrap());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), lowered);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_missing_measurement_is_an_error() {
        let partial = parse("bench held_steered_read n=1 reads=1 writes=1 ns=-\n").unwrap();
        assert!(table(&partial).is_err());
    }
}
