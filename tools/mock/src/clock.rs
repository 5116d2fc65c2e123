//! Time source of the device model.
//!
//! The mock never sleeps or blocks a vfio-user reply (QEMU gives up on a
//! request after 5 s). Every time-dependent behaviour (LMEM init delay, PCODE
//! init delay, the Driver-FLR handshake) is therefore computed from timestamps
//! taken when the guest accesses a register. Tests inject [`ManualClock`] to
//! move time by hand.

use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;
use std::time::Instant;

/// A monotonic time source measured from the clock's own origin.
pub trait Clock: Send + Sync {
    /// Time elapsed since the clock's origin.
    fn now(&self) -> Duration;
}

/// The real clock: time since the mock started.
#[derive(Debug, Clone, Copy)]
pub struct MonotonicClock {
    origin: Instant,
}

impl MonotonicClock {
    /// A clock whose origin is now.
    pub fn new() -> Self {
        Self {
            origin: Instant::now(),
        }
    }
}

impl Default for MonotonicClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock for MonotonicClock {
    fn now(&self) -> Duration {
        self.origin.elapsed()
    }
}

/// A clock that only moves when told to; clones share the same time.
#[derive(Debug, Clone, Default)]
pub struct ManualClock {
    nanos: Arc<AtomicU64>,
}

impl ManualClock {
    /// A clock standing at zero.
    pub fn new() -> Self {
        Self::default()
    }

    /// Moves the clock forward by `by` (saturating).
    pub fn advance(&self, by: Duration) {
        let by = saturating_nanos(by);
        // Relaxed is enough: the value is the only shared state.
        let _ = self
            .nanos
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                Some(n.saturating_add(by))
            });
    }

    /// Moves the clock forward by `ms` milliseconds.
    pub fn advance_ms(&self, ms: u64) {
        self.advance(Duration::from_millis(ms));
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Duration {
        Duration::from_nanos(self.nanos.load(Ordering::Relaxed))
    }
}

/// `d` in nanoseconds, saturated to `u64` (about 584 years).
fn saturating_nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manual_clock_moves_only_when_told_and_clones_share_time() {
        let a = ManualClock::new();
        let b = a.clone();
        assert_eq!(a.now(), Duration::ZERO);
        a.advance_ms(3);
        assert_eq!(b.now(), Duration::from_millis(3));
        b.advance(Duration::from_micros(5));
        assert_eq!(a.now(), Duration::from_micros(3005));
    }

    #[test]
    fn monotonic_clock_does_not_go_backwards() {
        let c = MonotonicClock::new();
        let t0 = c.now();
        let t1 = c.now();
        assert!(t1 >= t0);
    }
}
