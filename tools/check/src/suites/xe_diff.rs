//! Suite `xe-diff`: xehpg and upstream xe, each bound to the same mock with
//! the same options, and every difference between what the two did to the
//! device triaged in a baseline (`tools/check/xe-diff.toml`).
//!
//! xe was written for the silicon; where it programs something xehpg does
//! not (or the other way round) one of them is wrong about the card, or the
//! difference does not matter. Each difference sits in the baseline with its
//! verdict: `needed` (needed on silicon, and xehpg does it: a difference of
//! value or order, not of substance), `not-needed` (the reason), `xehpg-right`
//! (xe merely differs; the PRM citation), or `missing` (needed on silicon
//! and xehpg does not do it yet: open work, listed on every run).
//!
//! What is compared, from the mock's traces (never either driver's report):
//!
//! - `reg`: the BAR0 registers each driver writes from probe through one
//!   request on every engine to unbind (xehpg: `submit all 1`, then
//!   `rmmod`; xe: its probe, which runs its default contexts, then its
//!   unbind, as in the xe-probe suite);
//! - `bits`: for registers both write that upstream's headers mark masked
//!   (`XE_REG_OPTION_MASKED` in `drivers/gpu/drm/xe/regs/`), the bits each
//!   sets and clears through the mask;
//! - `action`: the GuC actions each sends (H2G over CT or MMIO);
//! - `ads`: what the mock's GuC read at its last boot (each summary's
//!   `guc.ads`): engine masks, mapping table, golden-context sizes and
//!   save/restore list lengths per class or engine, which capture slots hold
//!   a register list, the WA KLV keys and the `GUC_CTL_WA` / `GUC_CTL_FEATURE`
//!   bits; a value both have but differently is side `differ`.
//!
//! Cases: `runs` (both runs finished, both traces read), `differences
//! triaged` (each difference is in an entry of its kind and side) and
//! `baseline current` (each entry's keys still differ: an entry that no
//! longer does fails, so the baseline shrinks as xehpg closes the gaps; an
//! entry marked `sometimes`, a difference that depends on timing, is
//! exempt).

use super::vm::retry::run_vm;
use super::xe_probe;
use super::Context;
use crate::report::{Case, Reporter};
use anyhow::{Context as _, Result};
use serde::Deserialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::Path;
use std::time::Duration;

/// The baseline, relative to the repository.
const BASELINE: &str = "tools/check/xe-diff.toml";

/// Suite name.
const NAME: &str = "xe-diff";

/// One run's limit.
const LIMIT: Duration = Duration::from_secs(6 * 60);

/// What kind of difference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Kind {
    /// A register one driver writes and the other does not.
    Reg,
    /// Masked bits one driver sets or clears in a register both write.
    Bits,
    /// A GuC action one driver sends and the other does not.
    Action,
    /// A field of the GuC's ADS or boot words, as the mock's GuC read them at its last boot
    /// (its summary's `guc.ads`).
    Ads,
}

/// Which driver does the thing the other does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum Side {
    XeOnly,
    XehpgOnly,
    /// Both have the field, with different values.
    Differ,
}

/// A verdict on a difference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum Verdict {
    Needed,
    NotNeeded,
    XehpgRight,
    Missing,
}

/// One baseline entry: a group of differences with one verdict.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    kind: Kind,
    side: Side,
    /// Register offsets (`reg`, `bits`), action codes (`action`) or field names (`ads`).
    keys: Vec<Key>,
    verdict: Verdict,
    why: String,
    /// The difference depends on timing (say why in `why`): the entry is not
    /// stale when a run does not show it.
    #[serde(default)]
    sometimes: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Baseline {
    #[serde(default)]
    diff: Vec<Entry>,
}

/// What a difference is about: a register offset or action code, or an ADS field's name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(untagged)]
enum Key {
    Num(u64),
    Name(String),
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Key::Num(n) => write!(f, "{n:#x}"),
            Key::Name(s) => f.write_str(s),
        }
    }
}

/// One difference.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Diff {
    kind: Kind,
    side: Side,
    key: Key,
    /// The register's name or what differs.
    detail: String,
}

impl fmt::Display for Diff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = match self.side {
            Side::XeOnly => "xe only",
            Side::XehpgOnly => "xehpg only",
            Side::Differ => "both, different",
        };
        let kind = match self.kind {
            Kind::Reg => "reg",
            Kind::Bits => "bits",
            Kind::Action => "action",
            Kind::Ads => "ads",
        };
        write!(f, "{kind} {} ({side}): {}", self.key, self.detail)
    }
}

/// What one driver did to the device.
#[derive(Debug, Default)]
struct Profile {
    /// BAR0 register writes: offset to (name, values written).
    writes: BTreeMap<u64, (String, BTreeSet<u32>)>,
    /// GuC action codes sent.
    actions: BTreeSet<u64>,
}

fn hex(v: &Value) -> Option<u64> {
    u64::from_str_radix(v.as_str()?.trim_start_matches("0x"), 16).ok()
}

/// The profile of a trace (the mock's JSON lines).
fn profile(trace: &str) -> Profile {
    let mut p = Profile::default();
    for v in trace
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
    {
        match v["ev"].as_str().unwrap_or("") {
            "mmio_write" if v["bar"].as_u64() == Some(0) => {
                let (Some(offset), Some(value)) = (hex(&v["offset"]), hex(&v["value"])) else {
                    continue;
                };
                let name = v["reg"].as_str().unwrap_or("").to_string();
                let entry = p.writes.entry(offset).or_insert((name, BTreeSet::new()));
                // CAST: a 32-bit register's value.
                entry.1.insert(value as u32);
            }
            "guc_ct_h2g" | "guc_h2g" => {
                if let Some(code) = hex(&v["action"]) {
                    p.actions.insert(code);
                }
            }
            _ => {}
        }
    }
    p
}

/// Masked registers as upstream's headers define them: absolute offsets,
/// and offsets relative to an engine's base (`(base) + 0x29c`).
#[derive(Debug, Default)]
struct Masked {
    absolute: BTreeSet<u64>,
    relative: BTreeSet<u64>,
}

impl Masked {
    /// Reads every `regs/*.h` of upstream xe under `kdir`.
    fn load(kdir: &Path) -> Result<Self> {
        let dir = kdir.join("drivers/gpu/drm/xe/regs");
        let mut m = Masked::default();
        for entry in
            std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))?
        {
            let path = entry?.path();
            if path.extension().is_some_and(|e| e == "h") {
                let text = std::fs::read_to_string(&path)
                    .with_context(|| format!("reading {}", path.display()))?;
                m.parse(&text);
            }
        }
        Ok(m)
    }

    /// Adds the masked defines of one header.
    fn parse(&mut self, text: &str) {
        for line in text.lines().filter(|l| l.contains("XE_REG_OPTION_MASKED")) {
            let Some(args) = line
                .split_once("XE_REG_MCR(")
                .or_else(|| line.split_once("XE_REG("))
                .map(|(_, rest)| rest)
            else {
                continue;
            };
            let first = args.split(',').next().unwrap_or("").trim();
            let parse = |s: &str| u64::from_str_radix(s.trim().trim_start_matches("0x"), 16).ok();
            if let Some(rel) = first.split_once('+').map(|(_, r)| r) {
                if let Some(r) = parse(rel.trim_end_matches(')')) {
                    self.relative.insert(r);
                }
            } else if let Some(a) = first.strip_prefix("0x").and_then(|_| parse(first)) {
                self.absolute.insert(a);
            }
        }
    }

    /// Whether `offset` is masked; an engine-relative define matches the
    /// offset's low 12 bits (engine register windows are 4 KiB aligned) when
    /// the mock names the register `RING_*` or after an engine.
    fn is(&self, offset: u64, name: &str) -> bool {
        self.absolute.contains(&offset)
            || (self.relative.contains(&(offset & 0xfff))
                && (name.starts_with("RING_") || name.starts_with("CS_")))
    }
}

/// The bits a driver set and cleared through the mask of a masked register.
fn masked_bits(values: &BTreeSet<u32>) -> (u32, u32) {
    values.iter().fold((0, 0), |(set, clear), &v| {
        let mask = v >> 16;
        (set | (mask & v), clear | (mask & !v & 0xffff))
    })
}

/// Every difference between `xe` and `xehpg`.
fn differences(xe: &Profile, xehpg: &Profile, masked: &Masked) -> Vec<Diff> {
    let mut out = Vec::new();
    for (a, b, side) in [(xe, xehpg, Side::XeOnly), (xehpg, xe, Side::XehpgOnly)] {
        for (offset, (name, _)) in a.writes.iter().filter(|(o, _)| !b.writes.contains_key(o)) {
            out.push(Diff {
                kind: Kind::Reg,
                side,
                key: Key::Num(*offset),
                detail: name.clone(),
            });
        }
        for code in a.actions.difference(&b.actions) {
            out.push(Diff {
                kind: Kind::Action,
                side,
                key: Key::Num(*code),
                detail: "GuC action".to_string(),
            });
        }
    }
    for (offset, (name, xe_values)) in &xe.writes {
        let Some((_, ours)) = xehpg.writes.get(offset) else {
            continue;
        };
        if !masked.is(*offset, name) {
            continue;
        }
        let (xe_set, xe_clear) = masked_bits(xe_values);
        let (our_set, our_clear) = masked_bits(ours);
        for (side, set, clear) in [
            (Side::XeOnly, xe_set & !our_set, xe_clear & !our_clear),
            (Side::XehpgOnly, our_set & !xe_set, our_clear & !xe_clear),
        ] {
            if set != 0 || clear != 0 {
                out.push(Diff {
                    kind: Kind::Bits,
                    side,
                    key: Key::Num(*offset),
                    detail: format!("{name}: sets {set:#06x}, clears {clear:#06x}"),
                });
            }
        }
    }
    out.sort();
    out
}

/// The fields of a JSON object (none if it is not one).
fn fields(v: &Value) -> BTreeMap<&str, &Value> {
    v.as_object()
        .map(|m| m.iter().map(|(k, v)| (k.as_str(), v)).collect())
        .unwrap_or_default()
}

/// The capture-list slots (`class.pf.render`, ...) that point at a list of their own: every
/// slot but those at the address most of them share, the empty list both drivers give the
/// slots they do not fill (`xe_guc_capture.c` `xe_guc_capture_getnullheader`).
fn capture_lists(v: &Value) -> BTreeSet<String> {
    let slots = fields(v);
    let mut by_addr: BTreeMap<&str, usize> = BTreeMap::new();
    for a in slots.values().filter_map(|a| a.as_str()) {
        *by_addr.entry(a).or_default() += 1;
    }
    let empty = by_addr.iter().max_by_key(|(_, n)| **n).map(|(a, _)| *a);
    slots
        .iter()
        .filter(|(_, a)| a.as_str() != empty)
        .map(|(k, _)| (*k).to_string())
        .collect()
}

/// The differences between the ADS and boot words the mock's GuC read at its last boot from
/// xe and from xehpg (each summary's `guc.ads`). GGTT addresses differ by nature and are not
/// compared; what they describe is: engine masks, the mapping table, golden-context sizes and
/// save/restore list lengths per engine or class, which capture slots hold a list, the WA KLV
/// keys, and the `GUC_CTL_WA` / `GUC_CTL_FEATURE` words bit by bit.
fn ads_differences(xe: &Value, ours: &Value) -> Vec<Diff> {
    let mut out = Vec::new();
    let mut push = |side, key: String, detail: String| {
        out.push(Diff {
            kind: Kind::Ads,
            side,
            key: Key::Name(key),
            detail,
        })
    };
    for field in ["engine_masks", "mapping", "golden_size", "save_restore"] {
        let (a, b) = (fields(&xe[field]), fields(&ours[field]));
        let names: BTreeSet<&str> = a.keys().chain(b.keys()).copied().collect();
        for n in names {
            let key = format!("{field}.{n}");
            match (a.get(n), b.get(n)) {
                (Some(x), None) => push(Side::XeOnly, key, format!("xe {x}")),
                (None, Some(y)) => push(Side::XehpgOnly, key, format!("xehpg {y}")),
                (Some(x), Some(y)) if x != y => {
                    push(Side::Differ, key, format!("xe {x}, xehpg {y}"))
                }
                _ => {}
            }
        }
    }
    let (a, b) = (
        capture_lists(&xe["capture"]),
        capture_lists(&ours["capture"]),
    );
    for (only, side) in [
        (a.difference(&b), Side::XeOnly),
        (b.difference(&a), Side::XehpgOnly),
    ] {
        for slot in only {
            push(
                side,
                format!("capture.{slot}"),
                "a register list where the other driver gives the empty one".to_string(),
            );
        }
    }
    let keys = |v: &Value| -> BTreeSet<String> {
        v.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|k| k.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    };
    let (a, b) = (keys(&xe["wa_klv_keys"]), keys(&ours["wa_klv_keys"]));
    for (only, side) in [
        (a.difference(&b), Side::XeOnly),
        (b.difference(&a), Side::XehpgOnly),
    ] {
        for k in only {
            push(side, format!("wa_klv.{k}"), "workaround KLV".to_string());
        }
    }
    for word in ["ctl_wa", "ctl_feature"] {
        let (x, y) = (hex(&xe[word]).unwrap_or(0), hex(&ours[word]).unwrap_or(0));
        for bit in 0..32 {
            let (in_x, in_y) = (x >> bit & 1 == 1, y >> bit & 1 == 1);
            let side = match (in_x, in_y) {
                (true, false) => Side::XeOnly,
                (false, true) => Side::XehpgOnly,
                _ => continue,
            };
            push(
                side,
                format!("{word}.bit{bit}"),
                format!("{word} bit {bit}"),
            );
        }
    }
    out.sort();
    out
}

impl Baseline {
    fn load(repo: &Path) -> Result<Self> {
        let path = repo.join(BASELINE);
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        toml::from_str(&text).with_context(|| format!("parsing {}", path.display()))
    }

    fn entry(&self, d: &Diff) -> Option<&Entry> {
        self.diff
            .iter()
            .find(|e| e.kind == d.kind && e.side == d.side && e.keys.contains(&d.key))
    }
}

/// The judged cases of the differences `diffs` against `base`.
fn judge(base: &Baseline, diffs: &[Diff]) -> Vec<Case> {
    let untriaged: Vec<String> = diffs
        .iter()
        .filter(|d| base.entry(d).is_none())
        .map(ToString::to_string)
        .collect();
    let triaged = if untriaged.is_empty() {
        Case::pass("differences triaged")
    } else {
        Case::fail(
            "differences triaged",
            format!(
                "{} difference(s) with no verdict in {BASELINE}",
                untriaged.len()
            ),
        )
        .with_details(untriaged)
    };
    let stale: Vec<String> = base
        .diff
        .iter()
        .filter(|e| !e.sometimes)
        .flat_map(|e| e.keys.iter().map(move |k| (e, k)))
        .filter(|(e, k)| {
            !diffs
                .iter()
                .any(|d| d.kind == e.kind && d.side == e.side && d.key == **k)
        })
        .map(|(e, k)| {
            format!(
                "{:?} {:?} {k} ({})",
                e.kind,
                e.side,
                e.why.lines().next().unwrap_or("")
            )
        })
        .collect();
    let current = if stale.is_empty() {
        Case::pass("baseline current")
    } else {
        Case::fail(
            "baseline current",
            format!(
                "{} baseline key(s) no longer differ: remove them from {BASELINE}",
                stale.len()
            ),
        )
        .with_details(stale)
    };
    vec![triaged, current]
}

/// One driver's run (`cmd` writes the mock's trace to `NAME-trace.jsonl` in
/// `logs`); the trace's text.
fn run_one(name: &str, cmd: &mut std::process::Command, logs: &Path) -> Result<String> {
    let trace = logs.join(format!("{name}-trace.jsonl"));
    let out = logs.join(format!("{name}-output.log"));
    let finished = run_vm(
        &format!("{NAME} {name}"),
        cmd,
        &out,
        &[],
        LIMIT,
        &mut |_| {},
    )?;
    if !finished.success() {
        anyhow::bail!(
            "{name}: {} (output: {})",
            super::vm_exit_meaning(&finished),
            out.display()
        );
    }
    std::fs::read_to_string(&trace).with_context(|| format!("reading {}", trace.display()))
}

/// Runs the suite.
pub fn run(ctx: &Context, r: &mut Reporter) {
    let base = match Baseline::load(&ctx.repo) {
        Ok(b) => b,
        Err(e) => return r.case(Case::fail("baseline", format!("{e:#}"))),
    };
    let masked = match Masked::load(&ctx.kdir) {
        Ok(m) => m,
        Err(e) => return r.case(Case::fail("runs", format!("upstream headers: {e:#}"))),
    };
    let logs = ctx.log_dir(NAME);
    if let Err(e) = std::fs::create_dir_all(&logs) {
        return r.case(Case::fail("runs", format!("{}: {e}", logs.display())));
    }
    let traces = (|| -> Result<(String, String)> {
        for f in [
            "xe-trace.jsonl",
            "xehpg-trace.jsonl",
            "xe-mock.json",
            "xehpg-mock.json",
        ] {
            // A stale trace or summary would pass for this run's.
            let _ = std::fs::remove_file(logs.join(f));
        }
        let mut xe = xe_probe::xe_command(ctx, &logs)?;
        let xe_trace = run_one("xe", &mut xe, &logs)?;
        let mut ours = ctx.vm_command();
        ours.args(["-q", "--timeout=240"])
            .arg(format!(
                "--console={}",
                logs.join("xehpg-console.log").display()
            ))
            .arg(format!(
                "--summary={}",
                logs.join("xehpg-mock.json").display()
            ))
            .arg(format!(
                "--trace={}",
                logs.join("xehpg-trace.jsonl").display()
            ))
            .arg(format!("--module={}", ctx.module("module").display()))
            .args(
                xe_probe::mock_args(ctx)?
                    .iter()
                    .map(|a| format!("--mock-arg={a}")),
            )
            .args([
                "--",
                "for d in /sys/kernel/debug/xehpg/*/; do echo 'all 1' >\"$d/submit_ctl\"; done; \
                 rmmod xehpg",
            ]);
        let xehpg_trace = run_one("xehpg", &mut ours, &logs)?;
        Ok((xe_trace, xehpg_trace))
    })();
    let (xe_trace, xehpg_trace) = match traces {
        Ok(t) => t,
        Err(e) => return r.case(Case::fail("runs", format!("{e:#}"))),
    };
    let (xe, xehpg) = (profile(&xe_trace), profile(&xehpg_trace));
    if xe.writes.is_empty() || xehpg.writes.is_empty() {
        return r.case(Case::fail("runs", "a trace holds no register write"));
    }
    let ads = (|| -> Result<(Value, Value)> {
        let read = |name: &str| -> Result<Value> {
            let path = logs.join(format!("{name}-mock.json"));
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("reading {}", path.display()))?;
            let v: Value = serde_json::from_str(&text)
                .with_context(|| format!("parsing {}", path.display()))?;
            let ads = v["guc"]["ads"].clone();
            if !ads.is_object() {
                anyhow::bail!(
                    "{}: no guc.ads (the GuC never booted on a full ADS)",
                    path.display()
                );
            }
            Ok(ads)
        };
        Ok((read("xe")?, read("xehpg")?))
    })();
    let (xe_ads, xehpg_ads) = match ads {
        Ok(a) => a,
        Err(e) => return r.case(Case::fail("runs", format!("{e:#}"))),
    };
    r.case(Case::pass("runs"));
    let mut diffs = differences(&xe, &xehpg, &masked);
    diffs.extend(ads_differences(&xe_ads, &xehpg_ads));
    for c in judge(&base, &diffs) {
        r.case(c);
    }
    let mut by_verdict: BTreeMap<&str, usize> = BTreeMap::new();
    for d in &diffs {
        let v = match base.entry(d).map(|e| e.verdict) {
            Some(Verdict::Needed) => "needed",
            Some(Verdict::NotNeeded) => "not needed",
            Some(Verdict::XehpgRight) => "xehpg right",
            Some(Verdict::Missing) => "missing in xehpg",
            None => "untriaged",
        };
        *by_verdict.entry(v).or_default() += 1;
    }
    r.note(&format!(
        "{NAME}: {} difference(s): {}; logs in {}",
        diffs.len(),
        by_verdict
            .iter()
            .map(|(v, n)| format!("{n} {v}"))
            .collect::<Vec<_>>()
            .join(", "),
        logs.display()
    ));
    for e in base.diff.iter().filter(|e| e.verdict == Verdict::Missing) {
        r.note(&format!(
            "{NAME}: missing in xehpg ({} key(s)): {}",
            e.keys.len(),
            e.why.split(':').next().unwrap_or("").trim()
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Status;

    const XE: &str = r#"{"ev":"mmio_write","bar":0,"offset":"0x229c","value":"0x80008","reg":"RING_MODE"}
{"ev":"mmio_write","bar":0,"offset":"0x4800","value":"0x0","reg":"PAT_INDEX0"}
{"ev":"mmio_write","bar":2,"offset":"0x10","value":"0x1"}
{"ev":"guc_ct_h2g","action":"0x4502"}
{"ev":"guc_ct_h2g","action":"0x3003"}
"#;

    const OURS: &str = r#"{"ev":"mmio_write","bar":0,"offset":"0x229c","value":"0x80000","reg":"RING_MODE"}
{"ev":"mmio_write","bar":0,"offset":"0xfe0","value":"0x1","reg":"GAM_MCR_SELECTOR"}
{"ev":"guc_h2g","action":"0x4502"}
"#;

    fn masked() -> Masked {
        let mut m = Masked::default();
        m.parse(
            "#define RING_MODE(base)\t\t\tXE_REG((base) + 0x29c, XE_REG_OPTION_MASKED)\n\
             #define RCU_MODE\t\t\tXE_REG(0x14800, XE_REG_OPTION_MASKED)\n\
             #define PAT_INDEX(i)\t\tXE_REG(0x4800 + (i) * 4)\n",
        );
        m
    }

    #[test]
    fn headers_say_which_registers_are_masked() {
        let m = masked();
        assert!(m.absolute.contains(&0x14800));
        assert!(m.relative.contains(&0x29c));
        assert!(m.is(0x1c029c, "RING_MODE"));
        assert!(!m.is(0x1c029c, "SOMETHING_ELSE"));
        assert!(!m.is(0x4800, "PAT_INDEX0"));
    }

    #[test]
    fn differences_of_registers_bits_and_actions() {
        let d = differences(&profile(XE), &profile(OURS), &masked());
        let got: Vec<(Kind, Side, Key)> =
            d.iter().map(|d| (d.kind, d.side, d.key.clone())).collect();
        assert_eq!(
            got,
            [
                (Kind::Reg, Side::XeOnly, Key::Num(0x4800)),
                (Kind::Reg, Side::XehpgOnly, Key::Num(0xfe0)),
                // xe sets RING_MODE bit 3 through the mask; xehpg clears it.
                (Kind::Bits, Side::XeOnly, Key::Num(0x229c)),
                (Kind::Bits, Side::XehpgOnly, Key::Num(0x229c)),
                (Kind::Action, Side::XeOnly, Key::Num(0x3003)),
            ]
        );
        assert!(d[2].detail.contains("sets 0x0008"), "{}", d[2]);
        assert!(d[3].detail.contains("clears 0x0008"), "{}", d[3]);
    }

    fn statuses(base: &str, diffs: &[Diff]) -> Vec<bool> {
        let base: Baseline = toml::from_str(base).unwrap();
        judge(&base, diffs)
            .iter()
            .map(|c| c.status == Status::Pass)
            .collect()
    }

    #[test]
    fn every_difference_needs_a_verdict_and_every_entry_a_difference() {
        let d = differences(&profile(XE), &profile(OURS), &masked());
        let all = r#"
[[diff]]
kind = "reg"
side = "xe-only"
keys = [0x4800]
verdict = "missing"
why = "PAT"
[[diff]]
kind = "reg"
side = "xehpg-only"
keys = [0xfe0]
verdict = "xehpg-right"
why = "GAM steering"
[[diff]]
kind = "bits"
side = "xe-only"
keys = [0x229c]
verdict = "missing"
why = "legacy mode off"
[[diff]]
kind = "bits"
side = "xehpg-only"
keys = [0x229c]
verdict = "needed"
why = "the same bit"
[[diff]]
kind = "action"
side = "xe-only"
keys = [0x3003]
verdict = "not-needed"
why = "SLPC"
"#;
        assert_eq!(statuses(all, &d), [true, true]);
        // One difference without a verdict.
        let fewer = all.replace("keys = [0x3003]", "keys = [0x3004]");
        assert_eq!(statuses(&fewer, &d), [false, false]);
        // The same offset on the other side is not a verdict for it.
        let wrong_side = all.replace(
            "side = \"xehpg-only\"\nkeys = [0xfe0]",
            "side = \"xe-only\"\nkeys = [0xfe0]",
        );
        assert_eq!(statuses(&wrong_side, &d), [false, false]);
        // An entry whose key no longer differs, unless it depends on timing.
        let stale = all.replace("keys = [0x4800]", "keys = [0x4800, 0x4804]");
        assert_eq!(statuses(&stale, &d), [true, false]);
        let timing = stale.replace("why = \"PAT\"", "why = \"PAT\"\nsometimes = true");
        assert_eq!(statuses(&timing, &d), [true, true]);
    }

    #[test]
    fn ads_fields_lists_klvs_and_word_bits() {
        let xe: Value = serde_json::from_str(
            r#"{"engine_masks": {"render": 1, "compute": 15},
                "mapping": {"render": [0], "compute": [0, 1, 2, 3]},
                "golden_size": {"render": 52864},
                "save_restore": {"rcs0": 18, "bcs0": 6},
                "capture": {"global.pf": "0x5000", "class.pf.render": "0x3000",
                            "class.vf.render": "0x1000", "instance.pf.render": "0x1000"},
                "wa_klv_keys": ["0x9002", "0x900b"],
                "ctl_wa": "0x424800", "ctl_feature": "0x14"}"#,
        )
        .unwrap();
        let ours: Value = serde_json::from_str(
            r#"{"engine_masks": {"render": 1, "compute": 3},
                "mapping": {"render": [0], "compute": [0, 1, 2, 3]},
                "golden_size": {"render": 52864, "video": 3712},
                "save_restore": {"rcs0": 18, "bcs0": 5},
                "capture": {"global.pf": "0x8000", "class.pf.render": "0x8000",
                            "class.vf.render": "0x8000", "instance.pf.render": "0x8000"},
                "wa_klv_keys": ["0x9002"],
                "ctl_wa": "0x24800", "ctl_feature": "0x10"}"#,
        )
        .unwrap();
        let got: Vec<(Side, String)> = ads_differences(&xe, &ours)
            .into_iter()
            .map(|d| (d.side, d.key.to_string()))
            .collect();
        let want = [
            (Side::XeOnly, "capture.class.pf.render"),
            (Side::XeOnly, "capture.global.pf"),
            (Side::XeOnly, "ctl_feature.bit2"),
            (Side::XeOnly, "ctl_wa.bit22"),
            (Side::XeOnly, "wa_klv.0x900b"),
            (Side::XehpgOnly, "golden_size.video"),
            (Side::Differ, "engine_masks.compute"),
            (Side::Differ, "save_restore.bcs0"),
        ];
        let mut want: Vec<(Side, String)> = want.iter().map(|(s, k)| (*s, k.to_string())).collect();
        want.sort();
        let mut got = got;
        got.sort();
        assert_eq!(got, want);
        // The same ADS on both sides: nothing.
        assert!(ads_differences(&xe, &xe).is_empty());
    }

    #[test]
    fn ads_keys_are_names_in_the_baseline() {
        let base: Baseline = toml::from_str(
            r#"
[[diff]]
kind = "ads"
side = "differ"
keys = ["save_restore.bcs0"]
verdict = "needed"
why = "x"
"#,
        )
        .unwrap();
        let d = Diff {
            kind: Kind::Ads,
            side: Side::Differ,
            key: Key::Name("save_restore.bcs0".into()),
            detail: String::new(),
        };
        assert!(base.entry(&d).is_some());
    }

    #[test]
    fn the_checked_in_baseline_parses() {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let b = Baseline::load(&repo).unwrap();
        assert!(b
            .diff
            .iter()
            .all(|e| !e.keys.is_empty() && !e.why.is_empty()));
    }
}
