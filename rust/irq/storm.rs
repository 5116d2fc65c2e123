// SPDX-License-Identifier: GPL-2.0

//! Storm accounting: how many identities one source delivered in the current window.
//!
//! A source that keeps firing (a stuck engine, a misprogrammed GuC) would keep the CPU in the
//! top half; past a limit per window the parent module masks it at its mask register and
//! reports it. Neither the PRM nor upstream xe defines a limit (xe has no storm protection for
//! GT interrupts), so the window and the default limit are this driver's choice: one second,
//! and far more events per second than an engine signals for real work.

/// The window the limit applies to, in nanoseconds.
pub(crate) const WINDOW_NS: i64 = 1_000_000_000;

/// Default limit per window. A busy engine signals a user interrupt per request; 100 000 a
/// second is a request every 10 µs, beyond what submission produces, while a storm in the
/// hard-interrupt path reaches it within a fraction of a second.
pub(crate) const DEFAULT_LIMIT: u32 = 100_000;

/// The count of one source in the current window.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Meter {
    start: i64,
    count: u32,
}

impl Meter {
    /// Counts one identity at `now` (ns); whether the source is now past `limit` in its window.
    /// The window starts at the first identity after the previous window ended.
    pub(crate) fn hit(&mut self, now: i64, limit: u32) -> bool {
        if self.count == 0 || now.saturating_sub(self.start) >= WINDOW_NS {
            self.start = now;
            self.count = 0;
        }
        self.count = self.count.saturating_add(1);
        self.count > limit
    }

    /// Forgets the window (re-arming a stormed source).
    pub(crate) fn reset(&mut self) {
        *self = Self::default();
    }
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_irq_storm)]
mod tests {
    use super::*;

    #[test]
    fn limit_is_per_window() {
        let mut m = Meter::default();
        for i in 0..10 {
            // event {i} is within the limit
            assert!(!m.hit(i * 1000, 10));
        }
        // the 11th in the window is a storm
        assert!(m.hit(10_000, 10));
        // and stays one while the window lasts
        assert!(m.hit(20_000, 10));
    }

    #[test]
    fn a_new_window_starts_over() {
        let mut m = Meter::default();
        for _ in 0..10 {
            assert!(!m.hit(5, 10));
        }
        // One window later the count starts from 1 again.
        assert!(!m.hit(5 + WINDOW_NS, 10));
        for _ in 0..9 {
            assert!(!m.hit(6 + WINDOW_NS, 10));
        }
        assert!(m.hit(7 + WINDOW_NS, 10));
    }

    #[test]
    fn slow_steady_source_never_storms() {
        let mut m = Meter::default();
        // Ten a second for a minute, with a limit of ten per window.
        for i in 0..600 {
            // event {i}
            assert!(!m.hit(i * (WINDOW_NS / 10) + 1, 10));
        }
    }

    #[test]
    fn reset_forgets_the_count() {
        let mut m = Meter::default();
        for _ in 0..3 {
            m.hit(0, 2);
        }
        m.reset();
        assert!(!m.hit(1, 2));
        assert!(!m.hit(2, 2));
        assert!(m.hit(3, 2));
    }
}
