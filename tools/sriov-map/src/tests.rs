//! Tests of the map: parsing real captures, the PF/VF split, and the SVG's
//! rects against the ranges they draw.

use super::*;

/// Captured from the VM (debugfs `sriov` after `provision 7`, then after
/// `provision 63`, against the mock ATS-M); see tests/data/README.
const SEVEN: &str = include_str!("../tests/data/sriov-7.txt");
const SIXTY_THREE: &str = include_str!("../tests/data/sriov-63.txt");

/// A rect's attributes, by name.
struct Rect(Vec<(String, String)>);

impl Rect {
    fn get(&self, key: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
    fn num(&self, key: &str) -> f64 {
        self.get(key).unwrap().parse().unwrap()
    }
    fn hex(&self, key: &str) -> u64 {
        hex(self.get(key).unwrap()).unwrap()
    }
}

/// Every `<rect ...>` of the SVG with its attributes.
fn rects(svg: &str) -> Vec<Rect> {
    svg.split("<rect ")
        .skip(1)
        .map(|r| {
            let head = &r[..r.find('>').unwrap()];
            let mut attrs = Vec::new();
            let mut rest = head;
            while let Some(eq) = rest.find("=\"") {
                let key = rest[..eq].trim().to_string();
                let after = &rest[eq + 2..];
                let end = after.find('"').unwrap();
                attrs.push((key, after[..end].to_string()));
                rest = &after[end + 1..];
            }
            Rect(attrs)
        })
        .collect()
}

#[test]
fn the_captured_report_parses() {
    let m = parse(SEVEN).unwrap();
    assert_eq!(
        (m.total_vfs, m.by.as_str(), m.vfs.len()),
        (63, "debugfs", 7)
    );
    assert_eq!(
        m.ggtt_window,
        Range {
            start: 0x40_0000,
            end: 0xfee0_0000
        }
    );
    assert_eq!(m.lmem_pool.end, m.lmem_vf.start);
    assert_eq!(m.lmem_vf.end, m.lmem_usable);
    // Each VF's GGTT range is one of the allocated runs' parts, and its leaf
    // one of the pool's.
    for v in &m.vfs {
        assert!(m
            .ggtt_used
            .iter()
            .any(|u| u.start <= v.ggtt.start && v.ggtt.end <= u.end));
        let leaf = v.leaf.unwrap();
        assert!(m
            .lmem_pool_used
            .iter()
            .any(|u| u.start <= leaf.start && leaf.end <= u.end));
    }
    assert_eq!(m.vfs[6].n, 7);
}

/// The PF's GGTT is what is allocated minus the VFs': nothing of a VF in it,
/// and together they are exactly the allocated runs.
#[test]
fn pf_ranges_exclude_the_vfs() {
    let m = parse(SEVEN).unwrap();
    let pf = pf_ggtt(&m);
    assert!(!pf.is_empty());
    for p in &pf {
        for v in &m.vfs {
            assert!(
                p.end <= v.ggtt.start || p.start >= v.ggtt.end,
                "{p:?} overlaps VF{}",
                v.n
            );
        }
    }
    let total = |rs: &[Range]| rs.iter().map(Range::size).sum::<u64>();
    let vfs: Vec<Range> = m.vfs.iter().map(|v| v.ggtt).collect();
    assert_eq!(total(&pf) + total(&vfs), total(&m.ggtt_used));
    let objects = pf_pool(&m);
    let leaves: Vec<Range> = m.vfs.iter().filter_map(|v| v.leaf).collect();
    assert_eq!(
        total(&objects) + total(&leaves) + LMTT_DIR_BYTES,
        total(&m.lmem_pool_used)
    );
}

#[test]
fn subtract_cuts_holes_anywhere() {
    let r = |start, end| Range { start, end };
    assert_eq!(
        subtract(&[r(0, 100)], &[r(10, 20), r(90, 120), r(40, 50)]),
        [r(0, 10), r(20, 40), r(50, 90)]
    );
    assert_eq!(subtract(&[r(0, 100)], &[r(0, 100)]), []);
    assert_eq!(subtract(&[r(0, 10), r(20, 30)], &[]), [r(0, 10), r(20, 30)]);
}

/// Checks the drawing of `text`: in each bar, one rect per VF, placed and
/// sized in proportion to its range.
fn check_vf_rects(text: &str, vfs: usize) {
    let m = parse(text).unwrap();
    let svg = render(&m);
    let all = rects(&svg);
    check_bar(&all, "ggtt", GGTT_END, 0, &m, |v| vec![v.ggtt], vfs);
    let runs = m.vfs.iter().map(|v| v.lmem.len()).sum();
    check_bar(&all, "lmem", m.lmem_usable, 0, &m, |v| v.lmem.clone(), runs);
    check_bar(
        &all,
        "pool",
        m.lmem_pool.end,
        0,
        &m,
        |v| vec![v.leaf.unwrap()],
        vfs,
    );
    // The zoomed LMTT bar counts from the directory.
    let span = lmtt_span(&m);
    assert_eq!(span.start, m.lmtt_dir);
    check_bar(
        &all,
        "lmtt",
        span.size(),
        span.start,
        &m,
        |v| vec![v.leaf.unwrap()],
        vfs,
    );
    // Equal shares draw as equal widths.
    let widths: Vec<f64> = all
        .iter()
        .filter(|r| r.get("data-bar") == Some("ggtt") && r.get("data-vf").is_some())
        .map(|r| r.num("width"))
        .collect();
    assert!(widths.iter().all(|w| (w - widths[0]).abs() < 1e-3));
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(svg.trim_end().ends_with("</svg>"));
}

/// In bar `bar` (0 to `end` bytes, offsets from `base`): one rect per range
/// of `ranges_of(vf)` (`rects` in all), each in proportion.
fn check_bar(
    all: &[Rect],
    bar: &str,
    end: u64,
    base: u64,
    m: &Map,
    ranges_of: fn(&Vf) -> Vec<Range>,
    rects: usize,
) {
    let mine: Vec<&Rect> = all
        .iter()
        .filter(|r| r.get("data-bar") == Some(bar) && r.get("data-vf").is_some())
        .collect();
    assert_eq!(mine.len(), rects, "{bar}: one rect per VF range");
    for v in &m.vfs {
        let n = v.n.to_string();
        let found: Vec<&&Rect> = mine
            .iter()
            .filter(|r| r.get("data-vf") == Some(n.as_str()))
            .collect();
        let ranges = ranges_of(v);
        assert_eq!(
            found.len(),
            ranges.len(),
            "{bar}: VF{n} drawn once per range"
        );
        for (r, range) in found.iter().zip(&ranges) {
            let want = Range {
                start: range.start - base,
                end: range.end - base,
            };
            assert_eq!(
                (r.hex("data-start"), r.hex("data-end")),
                (want.start, want.end)
            );
            let scale = BAR_W / end as f64;
            let (x, w) = (r.num("x"), r.num("width"));
            assert!(
                (w - want.size() as f64 * scale).abs() < 1e-3,
                "{bar} VF{n} width {w}"
            );
            assert!(
                (x - LEFT - want.start as f64 * scale).abs() < 1e-3,
                "{bar} VF{n} x {x}"
            );
        }
    }
}

#[test]
fn one_rect_per_vf_range_in_proportion() {
    check_vf_rects(SEVEN, 7);
    check_vf_rects(SIXTY_THREE, 63);
}

/// A VF whose pages lie in several runs (the buddy hands a VF's pages out
/// wherever they are free): each run parses and is drawn, in its place.
#[test]
fn a_vf_in_several_runs_is_drawn_run_by_run() {
    let split = SEVEN.replace(
        "lmem 0x10000000-0x50000000 ",
        "lmem 0x10000000-0x20000000,0x30000000-0x50000000 ",
    );
    assert_ne!(split, SEVEN);
    let m = parse(&split).unwrap();
    assert_eq!(
        m.vfs[0].lmem,
        [
            Range {
                start: 0x1000_0000,
                end: 0x2000_0000
            },
            Range {
                start: 0x3000_0000,
                end: 0x5000_0000
            }
        ]
    );
    check_vf_rects(&split, 7);
    // A run past the usable top is refused like a single range.
    let past = SEVEN.replace(
        "lmem 0x10000000-0x50000000 ",
        "lmem 0x10000000-0x20000000,0x7000000000-0x7100000000 ",
    );
    assert!(parse(&past).is_err());
    // A malformed run is an error, not a skipped one.
    let bad = SEVEN.replace(
        "lmem 0x10000000-0x50000000 ",
        "lmem 0x10000000-0x20000000,zz ",
    );
    assert!(parse(&bad).is_err());
}

/// The picture in the documentation is this tool's rendering of the
/// committed capture (`make sriov-map` regenerates it).
#[test]
fn the_documentation_figure_is_current() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../Documentation/sriov-map.svg"
    );
    let committed = std::fs::read_to_string(path).unwrap();
    assert!(
        committed == render(&parse(SEVEN).unwrap()),
        "{path} is stale: `make sriov-map` regenerates it"
    );
}

#[test]
fn missing_or_malformed_lines_are_errors() {
    let without: String = SEVEN
        .lines()
        .filter(|l| !l.starts_with("lmem_usable:"))
        .map(|l| format!("{l}\n"))
        .collect();
    let e = format!("{:#}", parse(&without).unwrap_err());
    assert!(e.contains("lmem_usable"), "{e}");
    let e = format!("{:#}", parse("not an SR-IOV PF\n").unwrap_err());
    assert!(e.contains("not an SR-IOV PF"), "{e}");
    let bad = SEVEN.replace("vf3: ggtt 0x", "vf3: ggtt 0y");
    assert!(parse(&bad).is_err());
    let backwards = SEVEN.replace("lmem_vf: 0x10000000-", "lmem_vf: 0x500000000-");
    assert!(parse(&backwards).is_err());
}

#[test]
fn sizes_read_short() {
    assert_eq!(size(1 << 32), "4 GiB");
    assert_eq!(size(0x3fb800000), "15.9 GiB");
    assert_eq!(size(64 << 10), "64 KiB");
    assert_eq!(size(0), "0");
    assert_eq!(tick_step(1 << 32), 1 << 30);
    assert_eq!(tick_step(0x1000_0000), 1 << 26);
}
