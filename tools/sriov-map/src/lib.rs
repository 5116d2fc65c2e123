//! The SR-IOV provisioning map: reads the driver's debugfs `sriov` report
//! (`Pf::fmt` in `rust/sriov/pf.rs`, documented in
//! `Documentation/debugfs.rst`) and draws it as an SVG.
//!
//! Three bars, each to scale:
//!
//! - the GGTT, 0 to 4 GiB: the GuC's window, what the PF allocated in it and
//!   each VF's range;
//! - local memory, 0 to the usable top: the CPU-visible pool the PF
//!   allocates from, the part the VFs share, and each VF's slice;
//! - the CPU-visible pool alone, larger: the PF's objects, the LMTT
//!   directory and each VF's leaf table.
//!
//! Every drawn range is a `<rect>` carrying `data-bar`, `data-kind`,
//! `data-start` and `data-end` (and `data-vf` for a VF's), so tests and
//! readers can check the picture against the text.

use anyhow::{bail, Context as _, Result};
use std::fmt::Write as _;

/// A half-open byte range `[start, end)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Range {
    pub start: u64,
    pub end: u64,
}

impl Range {
    pub fn size(&self) -> u64 {
        self.end - self.start
    }

    /// `START-END`, both hex with `0x`.
    fn parse(text: &str) -> Result<Self> {
        let (a, b) = text
            .split_once('-')
            .with_context(|| format!("`{text}` is not START-END"))?;
        let r = Range {
            start: hex(a)?,
            end: hex(b)?,
        };
        if r.start > r.end {
            bail!("`{text}` ends before it starts");
        }
        Ok(r)
    }
}

fn hex(text: &str) -> Result<u64> {
    let digits = text
        .strip_prefix("0x")
        .with_context(|| format!("`{text}` is not 0x-prefixed hex"))?;
    u64::from_str_radix(digits, 16).with_context(|| format!("`{text}` is not hex"))
}

/// One provisioned VF.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vf {
    /// Its number, 1 to 63.
    pub n: u32,
    pub ggtt: Range,
    /// Its local memory: runs of 2 MiB pages in address order (`S-E,S-E`);
    /// a VF's pages need not touch.
    pub lmem: Vec<Range>,
    /// Its LMTT leaf table, in the CPU-visible pool.
    pub leaf: Option<Range>,
}

/// What the picture shows, from one debugfs `sriov` read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Map {
    pub total_vfs: u32,
    /// `sriov_numvfs`, `debugfs` or `-`.
    pub by: String,
    pub ggtt_window: Range,
    /// Allocated runs of the GGTT window: the PF's and the VFs'.
    pub ggtt_used: Vec<Range>,
    pub lmem_pool: Range,
    /// Allocated runs of the pool: the PF's objects, the LMTT directory and leaves.
    pub lmem_pool_used: Vec<Range>,
    /// The local memory the VFs share.
    pub lmem_vf: Range,
    pub lmem_usable: u64,
    /// Where the LMTT directory starts.
    pub lmtt_dir: u64,
    pub vfs: Vec<Vf>,
}

/// The GGTT's extent: 32-bit GGTT addresses.
pub const GGTT_END: u64 = 1 << 32;
/// The LMTT directory's allocation (the driver's `lmtt::TABLE_ALIGN`: the
/// pointer counts 64 KiB units, seed 000 lines 384, 387).
pub const LMTT_DIR_BYTES: u64 = 64 << 10;

/// Parses a debugfs `sriov` report. Lines the picture does not need are
/// skipped; a missing or malformed needed line is an error naming it.
pub fn parse(text: &str) -> Result<Map> {
    let mut fields: Vec<(&str, &str)> = Vec::new();
    let mut vfs = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        if let Some(n) = key.strip_prefix("vf").and_then(|n| n.parse::<u32>().ok()) {
            vfs.push(vf(n, value).with_context(|| format!("line {}: `{line}`", i + 1))?);
        } else {
            fields.push((key, value));
        }
    }
    let get = |key: &str| -> Result<&str> {
        fields
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| *v)
            .with_context(|| {
                if text.contains("not an SR-IOV PF") {
                    "the device is not an SR-IOV PF".to_string()
                } else {
                    format!("no `{key}:` line (a driver older than the map lines?)")
                }
            })
    };
    let ranges = |key: &str| -> Result<Vec<Range>> {
        get(key)?
            .split_whitespace()
            .map(Range::parse)
            .collect::<Result<Vec<_>>>()
            .with_context(|| format!("`{key}:`"))
    };
    let range = |key: &str| Range::parse(get(key)?).with_context(|| format!("`{key}:`"));
    let map = Map {
        total_vfs: get("total_vfs")?.parse().context("`total_vfs:`")?,
        by: get("by")?.to_string(),
        ggtt_window: range("ggtt_window")?,
        ggtt_used: ranges("ggtt_used")?,
        lmem_pool: range("lmem_pool")?,
        lmem_pool_used: ranges("lmem_pool_used")?,
        lmem_vf: range("lmem_vf")?,
        lmem_usable: hex(get("lmem_usable")?).context("`lmem_usable:`")?,
        lmtt_dir: hex(get("lmtt_dir")?).context("`lmtt_dir:`")?,
        vfs,
    };
    if map.ggtt_window.end > GGTT_END {
        bail!("the GGTT window ends beyond 4 GiB");
    }
    if map.lmem_vf.end > map.lmem_usable || map.lmem_pool.end > map.lmem_usable {
        bail!("local memory ranges end beyond lmem_usable");
    }
    for v in &map.vfs {
        if v.ggtt.end > GGTT_END || v.lmem.iter().any(|r| r.end > map.lmem_usable) {
            bail!("VF{}'s ranges lie outside the device", v.n);
        }
    }
    Ok(map)
}

/// `vfN:`'s words after the colon: `ggtt S-E lmem S-E[,S-E...] ... leaf S-E`.
fn vf(n: u32, words: &str) -> Result<Vf> {
    let words: Vec<&str> = words.split_whitespace().collect();
    let after = |key: &str| -> Option<&str> {
        words
            .iter()
            .position(|w| *w == key)
            .and_then(|i| words.get(i + 1).copied())
    };
    let need = |key: &str| -> Result<Range> {
        Range::parse(after(key).with_context(|| format!("no `{key}`"))?)
    };
    Ok(Vf {
        n,
        ggtt: need("ggtt")?,
        lmem: after("lmem")
            .context("no `lmem`")?
            .split(',')
            .map(Range::parse)
            .collect::<Result<_>>()?,
        leaf: after("leaf").map(Range::parse).transpose()?,
    })
}

/// `ranges` minus every range of `holes` (both sorted or not; the result is
/// in address order).
pub fn subtract(ranges: &[Range], holes: &[Range]) -> Vec<Range> {
    let mut holes = holes.to_vec();
    holes.sort_by_key(|h| h.start);
    let mut out = Vec::new();
    for r in ranges {
        let mut at = r.start;
        for h in holes.iter().filter(|h| h.end > r.start && h.start < r.end) {
            if h.start > at {
                out.push(Range {
                    start: at,
                    end: h.start,
                });
            }
            at = at.max(h.end);
        }
        if at < r.end {
            out.push(Range {
                start: at,
                end: r.end,
            });
        }
    }
    out.sort_by_key(|r| r.start);
    out
}

/// The PF's GGTT: what is allocated and belongs to no VF.
pub fn pf_ggtt(map: &Map) -> Vec<Range> {
    let vfs: Vec<Range> = map.vfs.iter().map(|v| v.ggtt).collect();
    subtract(&map.ggtt_used, &vfs)
}

/// The PF's objects in the pool: what is allocated, minus the LMTT directory
/// and leaves.
pub fn pf_pool(map: &Map) -> Vec<Range> {
    let mut tables: Vec<Range> = map.vfs.iter().filter_map(|v| v.leaf).collect();
    tables.push(lmtt_dir(map));
    subtract(&map.lmem_pool_used, &tables)
}

/// The LMTT directory's allocation.
pub fn lmtt_dir(map: &Map) -> Range {
    Range {
        start: map.lmtt_dir,
        end: map.lmtt_dir + LMTT_DIR_BYTES,
    }
}

/// The LMTT directory and every leaf, as one span of the pool.
pub fn lmtt_span(map: &Map) -> Range {
    let dir = lmtt_dir(map);
    map.vfs
        .iter()
        .filter_map(|v| v.leaf)
        .fold(dir, |a, l| Range {
            start: a.start.min(l.start),
            end: a.end.max(l.end),
        })
}

/// Geometry of the drawing.
const WIDTH: f64 = 1000.0;
const LEFT: f64 = 20.0;
const BAR_W: f64 = WIDTH - 2.0 * LEFT;
const BAR_H: f64 = 36.0;

/// Colours (also the legend's).
const OUTSIDE: &str = "#d9d9d9";
const WINDOW: &str = "#f4f4f4";
const PF: &str = "#3b6fb6";
const POOL: &str = "#e8f1fb";
const VF_SHARED: &str = "#fbf3e4";
const DIR: &str = "#c0392b";
const LEAF: &str = "#7d3c98";

/// VF `n`'s colour among `count`: hues spread over 330 degrees of the wheel,
/// so the first and the last VF (neighbours in the GGTT) do not both look red.
pub fn vf_colour(n: u32, count: usize) -> String {
    // CAST: at most 63 VFs.
    let hue = 330.0 * f64::from(n.saturating_sub(1)) / count.max(1) as f64;
    format!("hsl({hue:.0},70%,55%)")
}

/// One horizontal bar with an axis from 0 to `end` bytes.
struct Bar<'a> {
    svg: &'a mut String,
    name: &'static str,
    y: f64,
    end: u64,
}

impl Bar<'_> {
    fn x(&self, at: u64) -> f64 {
        // CAST: byte offsets below 2^53, exact enough for a picture.
        LEFT + BAR_W * at as f64 / self.end as f64
    }

    /// A rect for `r`, with its data attributes and a hover title.
    fn rect(&mut self, r: Range, kind: &str, vf: Option<u32>, fill: &str, title: &str) {
        let (x0, x1) = (self.x(r.start), self.x(r.end));
        let vf_attr = vf.map_or(String::new(), |n| format!(" data-vf=\"{n}\""));
        let _ = writeln!(
            self.svg,
            "<rect data-bar=\"{}\" data-kind=\"{kind}\"{vf_attr} data-start=\"{:#x}\" data-end=\"{:#x}\" \
             x=\"{x0:.4}\" y=\"{:.1}\" width=\"{:.4}\" height=\"{BAR_H}\" fill=\"{fill}\">\
             <title>{title} {:#x}-{:#x} ({})</title></rect>",
            self.name,
            r.start,
            r.end,
            self.y,
            x1 - x0,
            r.start,
            r.end,
            size(r.size())
        );
    }

    /// Ticks under the bar every `step` bytes.
    fn axis(&mut self, step: u64) {
        let y = self.y + BAR_H;
        let _ = writeln!(
            self.svg,
            "<line x1=\"{LEFT}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"#444\"/>",
            LEFT + BAR_W
        );
        let mut at = 0;
        while at <= self.end {
            let x = self.x(at);
            let _ = writeln!(
                self.svg,
                "<line x1=\"{x:.2}\" y1=\"{y}\" x2=\"{x:.2}\" y2=\"{}\" stroke=\"#444\"/>\
                 <text x=\"{x:.2}\" y=\"{}\" font-size=\"10\" text-anchor=\"middle\">{}</text>",
                y + 4.0,
                y + 15.0,
                size(at)
            );
            at += step;
        }
    }

    /// The bar's caption above it.
    fn caption(&mut self, text: &str) {
        let _ = writeln!(
            self.svg,
            "<text x=\"{LEFT}\" y=\"{:.1}\" font-size=\"13\" font-weight=\"bold\">{text}</text>",
            self.y - 6.0
        );
    }

    /// Labels each VF's rect with its number where it is wide enough.
    fn vf_labels(&mut self, vfs: &[(u32, Range)]) {
        for (n, r) in vfs {
            let (x0, x1) = (self.x(r.start), self.x(r.end));
            let label = format!("VF{n}");
            // About 6 px per character at font size 10.
            if x1 - x0 >= 6.5 * label.len() as f64 {
                let _ = writeln!(
                    self.svg,
                    "<text x=\"{:.2}\" y=\"{:.1}\" font-size=\"10\" text-anchor=\"middle\" fill=\"#fff\">{label}</text>",
                    (x0 + x1) / 2.0,
                    self.y + BAR_H / 2.0 + 4.0
                );
            }
        }
    }
}

/// A byte count the short way: `4 GiB`, `256 MiB`, `64 KiB`, `0`.
pub fn size(bytes: u64) -> String {
    const UNITS: [(u64, &str); 3] = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    if bytes == 0 {
        return "0".into();
    }
    for (unit, name) in UNITS {
        if bytes >= unit {
            // CAST: a display value.
            let v = bytes as f64 / unit as f64;
            return if v.fract() == 0.0 {
                format!("{v:.0} {name}")
            } else {
                format!("{v:.1} {name}")
            };
        }
    }
    format!("{bytes} B")
}

/// A tick step giving 4 to 10 ticks over `end` bytes: a power of two.
fn tick_step(end: u64) -> u64 {
    let mut step = end.max(1).next_power_of_two();
    while end / step < 4 && step > 1 {
        step /= 2;
    }
    step
}

/// The whole picture.
pub fn render(map: &Map) -> String {
    let mut svg = String::new();
    let height = 630.0;
    let _ = writeln!(
        svg,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{height}\" \
         viewBox=\"0 0 {WIDTH} {height}\" font-family=\"sans-serif\">"
    );
    let _ = writeln!(
        svg,
        "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n\
         <text x=\"{LEFT}\" y=\"22\" font-size=\"15\" font-weight=\"bold\">xehpg SR-IOV provisioning: \
         {} of {} VFs (by {})</text>",
        map.vfs.len(),
        map.total_vfs,
        map.by
    );
    let count = map.vfs.len();

    // The GGTT.
    let mut bar = Bar {
        svg: &mut svg,
        name: "ggtt",
        y: 70.0,
        end: GGTT_END,
    };
    bar.caption("GGTT (0 to 4 GiB)");
    bar.rect(
        Range {
            start: 0,
            end: GGTT_END,
        },
        "outside",
        None,
        OUTSIDE,
        "outside the GuC's window",
    );
    bar.rect(
        map.ggtt_window,
        "window",
        None,
        WINDOW,
        "the GuC's window, free",
    );
    for r in pf_ggtt(map) {
        bar.rect(r, "pf", None, PF, "PF");
    }
    for v in &map.vfs {
        bar.rect(
            v.ggtt,
            "vf",
            Some(v.n),
            &vf_colour(v.n, count),
            &format!("VF{}", v.n),
        );
    }
    bar.vf_labels(&map.vfs.iter().map(|v| (v.n, v.ggtt)).collect::<Vec<_>>());
    bar.axis(1 << 30);

    // Local memory.
    let mut bar = Bar {
        svg: &mut svg,
        name: "lmem",
        y: 180.0,
        end: map.lmem_usable,
    };
    bar.caption(&format!(
        "Local memory (0 to the usable top, {})",
        size(map.lmem_usable)
    ));
    bar.rect(map.lmem_pool, "pool", None, POOL, "CPU-visible pool (PF)");
    bar.rect(
        map.lmem_vf,
        "vf-shared",
        None,
        VF_SHARED,
        "shared by the VFs, free",
    );
    for r in &map.lmem_pool_used {
        bar.rect(*r, "pf", None, PF, "allocated by the PF");
    }
    for v in &map.vfs {
        for r in &v.lmem {
            bar.rect(
                *r,
                "vf",
                Some(v.n),
                &vf_colour(v.n, count),
                &format!("VF{}", v.n),
            );
        }
    }
    // Each VF's label on its longest run.
    let labels: Vec<(u32, Range)> = map
        .vfs
        .iter()
        .filter_map(|v| v.lmem.iter().max_by_key(|r| r.size()).map(|r| (v.n, *r)))
        .collect();
    bar.vf_labels(&labels);
    bar.axis(tick_step(map.lmem_usable));

    // The pool, zoomed.
    let mut bar = Bar {
        svg: &mut svg,
        name: "pool",
        y: 290.0,
        end: map.lmem_pool.end,
    };
    bar.caption(&format!(
        "CPU-visible pool (0 to {}): PF objects, LMTT directory and leaves",
        size(map.lmem_pool.end)
    ));
    bar.rect(map.lmem_pool, "pool", None, POOL, "CPU-visible pool, free");
    for r in pf_pool(map) {
        bar.rect(r, "pf", None, PF, "PF object");
    }
    bar.rect(lmtt_dir(map), "lmtt-dir", None, DIR, "LMTT directory");
    for v in &map.vfs {
        if let Some(leaf) = v.leaf {
            bar.rect(
                leaf,
                "lmtt-leaf",
                Some(v.n),
                LEAF,
                &format!("VF{}'s LMTT leaf", v.n),
            );
        }
    }
    bar.axis(tick_step(map.lmem_pool.end));

    // The LMTT tables, zoomed: from the directory to the last leaf (the
    // directory is 64 KiB, a leaf 256 KiB: too thin to see in the pool).
    let tables = lmtt_span(map);
    let mut bar = Bar {
        svg: &mut svg,
        name: "lmtt",
        y: 400.0,
        end: tables.size(),
    };
    bar.caption(&format!(
        "LMTT tables ({:#x} to {:#x} of the pool, offsets from the directory)",
        tables.start, tables.end
    ));
    let shift = |r: Range| Range {
        start: r.start - tables.start,
        end: r.end - tables.start,
    };
    bar.rect(shift(tables), "pool", None, POOL, "CPU-visible pool");
    for r in pf_pool(map) {
        let (start, end) = (r.start.max(tables.start), r.end.min(tables.end));
        if start < end {
            bar.rect(shift(Range { start, end }), "pf", None, PF, "PF object");
        }
    }
    bar.rect(
        shift(lmtt_dir(map)),
        "lmtt-dir",
        None,
        DIR,
        "LMTT directory",
    );
    let mut leaves = Vec::new();
    for v in &map.vfs {
        if let Some(leaf) = v.leaf {
            bar.rect(
                shift(leaf),
                "lmtt-leaf",
                Some(v.n),
                &vf_colour(v.n, count),
                &format!("VF{}'s LMTT leaf", v.n),
            );
            leaves.push((v.n, shift(leaf)));
        }
    }
    bar.vf_labels(&leaves);
    bar.axis(tick_step(tables.size()));

    legend(&mut svg, 490.0, map);
    svg.push_str("</svg>\n");
    svg
}

/// The legend: fixed kinds, then the VFs' colours as a strip.
fn legend(svg: &mut String, y: f64, map: &Map) {
    let items = [
        (OUTSIDE, "GGTT outside the GuC's window"),
        (WINDOW, "GuC's window, free"),
        (PF, "PF (allocated)"),
        (POOL, "CPU-visible pool, free"),
        (VF_SHARED, "VFs' local memory, free"),
        (DIR, "LMTT directory"),
        (LEAF, "LMTT leaf (one per VF; VF colours when zoomed)"),
    ];
    for (i, (fill, text)) in items.iter().enumerate() {
        // Two columns.
        let (col, row) = (i % 2, i / 2);
        // CAST: small indices.
        let (x, yy) = (LEFT + 360.0 * col as f64, y + 22.0 * row as f64);
        let _ = writeln!(
            svg,
            "<rect x=\"{x}\" y=\"{yy}\" width=\"14\" height=\"14\" fill=\"{fill}\" stroke=\"#888\"/>\
             <text x=\"{}\" y=\"{}\" font-size=\"12\">{text}</text>",
            x + 20.0,
            yy + 11.0
        );
    }
    let count = map.vfs.len();
    if count == 0 {
        return;
    }
    let yy = y + 22.0 * 4.0 + 10.0;
    let w = 300.0 / count as f64;
    for v in &map.vfs {
        let x = LEFT + w * f64::from(v.n - 1);
        let _ = writeln!(
            svg,
            "<rect x=\"{x:.2}\" y=\"{yy}\" width=\"{w:.2}\" height=\"14\" fill=\"{}\"/>",
            vf_colour(v.n, count)
        );
    }
    let _ = writeln!(
        svg,
        "<text x=\"{}\" y=\"{}\" font-size=\"12\">VF1 to VF{count}, in order (the same colour in every bar)</text>",
        LEFT + 310.0,
        yy + 11.0
    );
}

#[cfg(test)]
mod tests;
