//! Forcewake targets and offset ranges, the common ground of the seed, the
//! driver and upstream i915.
//!
//! Every table is read into [`Span`]s of one [`Wake`]; comparisons cut the
//! offset space at every boundary any table has ([`segments`]), so each
//! segment has one value in every table.

pub use xehpg_gen::targets::Wake;

/// The seed's target as the driver must see it, by the documented rule the
/// generator's decisions have to follow: the seed's `AON` and blank rows need
/// no wake, its `RENDER*` is [`Wake::Render`] (seed 000 line 704: "host SW
/// should use Render wake before access").
pub fn from_seed(w: Option<xehpg_mock::seed_table::Wake>) -> Wake {
    use xehpg_mock::seed_table::Wake as S;
    match w {
        None | Some(S::Aon) => Wake::None,
        Some(S::Gt) => Wake::Gt,
        Some(S::Render | S::RenderStar) => Wake::Render,
        Some(S::Vd(n)) => Wake::Vd(n),
        Some(S::Ve(n)) => Wake::Ve(n),
    }
}

/// An inclusive offset range with a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span<T> {
    /// First offset.
    pub start: u32,
    /// Last offset (inclusive).
    pub end: u32,
    /// What the range maps to.
    pub value: T,
    /// 1-based line it came from, for messages.
    pub line: usize,
}

impl<T> Span<T> {
    /// Whether `offset` lies in the span.
    pub fn contains(&self, offset: u32) -> bool {
        (self.start..=self.end).contains(&offset)
    }
}

/// The span of `spans` (sorted, not overlapping) holding `offset`.
pub fn find<T>(spans: &[Span<T>], offset: u32) -> Option<&Span<T>> {
    let idx = spans.partition_point(|s| s.start <= offset);
    let s = spans.get(idx.checked_sub(1)?)?;
    s.contains(offset).then_some(s)
}

/// Problems with `spans` as a lookup table: a span ending before it starts,
/// spans out of order or overlapping. Empty when sorted and disjoint.
pub fn order_problems<T>(spans: &[Span<T>]) -> Vec<String> {
    let mut out = Vec::new();
    for s in spans.iter().filter(|s| s.end < s.start) {
        out.push(format!(
            "line {}: {:#08X}-{:#08X} ends before it starts",
            s.line, s.start, s.end
        ));
    }
    for p in spans.windows(2) {
        if p[1].start <= p[0].end {
            out.push(format!(
                "line {}: {:#08X}-{:#08X} overlaps or precedes {:#08X}-{:#08X} (line {})",
                p[1].line, p[1].start, p[1].end, p[0].start, p[0].end, p[0].line
            ));
        }
    }
    out
}

/// Gaps in `spans` (sorted, disjoint) between `lo` and `hi` inclusive.
pub fn gaps<T>(spans: &[Span<T>], lo: u32, hi: u32) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let mut next = u64::from(lo);
    for s in spans {
        if u64::from(s.start) > next && next <= u64::from(hi) {
            let end = (u64::from(s.start) - 1).min(u64::from(hi));
            out.push((narrow(next), narrow(end)));
        }
        next = next.max(u64::from(s.end) + 1);
    }
    if next <= u64::from(hi) {
        out.push((narrow(next), hi));
    }
    out
}

/// A value known to fit: every caller passes at most `u32::MAX`.
fn narrow(v: u64) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}

/// `lo..=hi` cut at every boundary in `cuts` (a start, or one past an end),
/// as inclusive `(start, end)` pairs in order.
pub fn segments(cuts: impl IntoIterator<Item = u64>, lo: u32, hi: u32) -> Vec<(u32, u32)> {
    let mut points: Vec<u64> = cuts
        .into_iter()
        .filter(|&c| c > u64::from(lo) && c <= u64::from(hi))
        .collect();
    points.push(u64::from(lo));
    points.push(u64::from(hi) + 1);
    points.sort_unstable();
    points.dedup();
    points
        .windows(2)
        .map(|w| (narrow(w[0]), narrow(w[1] - 1)))
        .collect()
}

/// The boundaries of `spans`, for [`segments`].
pub fn cuts<T>(spans: &[Span<T>]) -> impl Iterator<Item = u64> + '_ {
    spans
        .iter()
        .flat_map(|s| [u64::from(s.start), u64::from(s.end) + 1])
}

/// Adjacent `(start, end, key)` runs with equal keys merged.
pub fn merge_runs<K: PartialEq + Clone>(runs: &[(u32, u32, K)]) -> Vec<(u32, u32, K)> {
    let mut out: Vec<(u32, u32, K)> = Vec::new();
    for (s, e, k) in runs {
        match out.last_mut() {
            Some(last) if last.2 == *k && u64::from(last.1) + 1 == u64::from(*s) => last.1 = *e,
            _ => out.push((*s, *e, k.clone())),
        }
    }
    out
}

/// `START-END` as the explanation files and messages write it.
pub fn range_text(start: u32, end: u32) -> String {
    format!("{start:#08X}-{end:#08X}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(start: u32, end: u32, value: Wake) -> Span<Wake> {
        Span {
            start,
            end,
            value,
            line: 0,
        }
    }

    #[test]
    fn seed_targets_map_to_domains() {
        use xehpg_mock::seed_table::Wake as S;
        assert_eq!(from_seed(None), Wake::None);
        assert_eq!(from_seed(Some(S::Aon)), Wake::None);
        assert_eq!(from_seed(Some(S::RenderStar)), Wake::Render);
        assert_eq!(from_seed(Some(S::Vd(5))), Wake::Vd(5));
        assert_eq!(from_seed(Some(S::Ve(2))), Wake::Ve(2));
    }

    #[test]
    fn lookup_gaps_and_order() {
        let t = [span(0x10, 0x1f, Wake::Gt), span(0x30, 0x3f, Wake::Render)];
        assert_eq!(find(&t, 0x10).map(|s| s.value), Some(Wake::Gt));
        assert_eq!(find(&t, 0x1f).map(|s| s.value), Some(Wake::Gt));
        assert!(find(&t, 0x20).is_none());
        assert!(find(&t, 0x0).is_none());
        assert!(find(&t, 0x40).is_none());
        assert_eq!(gaps(&t, 0, 0x4f), [(0, 0xf), (0x20, 0x2f), (0x40, 0x4f)]);
        assert_eq!(gaps(&t, 0x10, 0x3f), [(0x20, 0x2f)]);
        assert!(order_problems(&t).is_empty());
        let bad = [span(0x10, 0x1f, Wake::Gt), span(0x1f, 0x2f, Wake::Gt)];
        assert_eq!(order_problems(&bad).len(), 1);
        assert_eq!(order_problems(&[span(2, 1, Wake::Gt)]).len(), 1);
    }

    #[test]
    fn segments_cut_at_every_boundary() {
        let t = [span(0x10, 0x1f, Wake::Gt)];
        let u = [span(0x18, 0x27, Wake::Gt)];
        let s = segments(cuts(&t).chain(cuts(&u)), 0, 0x2f);
        assert_eq!(
            s,
            [
                (0, 0xf),
                (0x10, 0x17),
                (0x18, 0x1f),
                (0x20, 0x27),
                (0x28, 0x2f)
            ]
        );
        assert_eq!(segments([], 5, 5), [(5, 5)]);
        assert_eq!(
            segments([0, u64::from(u32::MAX) + 1], 0, u32::MAX),
            [(0, u32::MAX)]
        );
    }

    #[test]
    fn runs_merge_only_when_adjacent_and_equal() {
        let r = merge_runs(&[(0, 9, 'a'), (10, 19, 'a'), (20, 29, 'b'), (31, 40, 'b')]);
        assert_eq!(r, [(0, 19, 'a'), (20, 29, 'b'), (31, 40, 'b')]);
    }

    #[test]
    fn ranges_print() {
        assert_eq!(range_text(0x14000, 0x147ff), "0x014000-0x0147FF");
    }
}
