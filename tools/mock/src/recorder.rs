//! The single sink for device events: counts each one for the summary and
//! appends it to the trace.
//!
//! Keeping counting and tracing behind one call means the summary and the
//! trace cannot disagree about what happened.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::clock::Clock;
use crate::summary;
use crate::summary::Counters;
use crate::summary::Summary;
use crate::trace::Event;
use crate::trace::TraceWriter;

/// Rewrite the summary at least this often while events keep coming.
const SUMMARY_PERIOD: Duration = Duration::from_secs(1);
/// ... or after this many events, whichever comes first.
const SUMMARY_EVERY_EVENTS: u64 = 1000;

/// Counts, traces and periodically summarises events.
pub struct Recorder {
    clock: Arc<dyn Clock>,
    trace: TraceWriter,
    counters: Counters,
    summary_path: Option<PathBuf>,
    last_summary_at: Duration,
    events_since_summary: u64,
    summary_failed: bool,
}

impl Recorder {
    /// A recorder writing `trace` and, if given, the summary at `summary_path`.
    pub fn new(clock: Arc<dyn Clock>, trace: TraceWriter, summary_path: Option<PathBuf>) -> Self {
        let now = clock.now();
        Self {
            clock,
            trace,
            counters: Counters::default(),
            summary_path,
            last_summary_at: now,
            events_since_summary: 0,
            summary_failed: false,
        }
    }

    /// Starts a new record (a test window): the counters from zero, the
    /// summary written to `summary_path` from now on. The trace goes on.
    pub fn restart(&mut self, summary_path: Option<PathBuf>) {
        self.counters = Counters::default();
        self.summary_path = summary_path;
        self.last_summary_at = self.clock.now();
        self.events_since_summary = 0;
        self.summary_failed = false;
    }

    /// Current device time.
    pub fn now(&self) -> Duration {
        self.clock.now()
    }

    /// Records one event.
    pub fn emit(&mut self, ev: Event) {
        self.counters.count(&ev);
        self.trace.write(self.clock.now(), &ev);
        self.events_since_summary += 1;
        self.maybe_write_summary();
    }

    /// Records a violation of a hardware rule by the guest.
    pub fn violation(&mut self, kind: &'static str, detail: impl Into<String>) {
        self.emit(Event::Violation {
            kind,
            detail: detail.into(),
        });
    }

    /// Counts a config-space read (not traced).
    pub fn count_config_read(&mut self) {
        self.counters.count_config_read();
    }

    /// The summary as it stands.
    pub fn summary(&self, is_final: bool) -> Summary {
        self.counters.summary(self.trace.seq(), is_final)
    }

    /// Writes the summary file now (no-op without `--summary`). A failure is
    /// reported once on stderr and returned; the device keeps running.
    ///
    /// # Errors
    ///
    /// The file could not be written.
    pub fn write_summary(&mut self, is_final: bool) -> std::io::Result<()> {
        self.last_summary_at = self.clock.now();
        self.events_since_summary = 0;
        let Some(path) = self.summary_path.as_ref() else {
            return Ok(());
        };
        let res = summary::write_atomic(path, &self.summary(is_final));
        if let Err(e) = &res {
            if !self.summary_failed {
                eprintln!("xehpg-mock: cannot write summary {}: {e}", path.display());
            }
            self.summary_failed = true;
        }
        res
    }

    /// Flushes the trace.
    pub fn flush(&mut self) {
        self.trace.flush();
    }

    fn maybe_write_summary(&mut self) {
        let due = self.events_since_summary >= SUMMARY_EVERY_EVENTS
            || self.clock.now().saturating_sub(self.last_summary_at) >= SUMMARY_PERIOD;
        if due {
            // Already reported on stderr; a later write may succeed.
            let _ = self.write_summary(false);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::ManualClock;

    fn read_summary(path: &std::path::Path) -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(path).expect("summary exists")).expect("JSON")
    }

    #[test]
    fn summary_is_rewritten_after_a_period_and_after_many_events() {
        let clock = ManualClock::new();
        let path = std::env::temp_dir().join(format!("xehpg-mock-rec-{}.json", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let mut r = Recorder::new(
            Arc::new(clock.clone()),
            TraceWriter::disabled(),
            Some(path.clone()),
        );
        r.emit(Event::Irq {
            index: 1,
            vector: 0,
        });
        assert!(!path.exists(), "not due yet");
        clock.advance(SUMMARY_PERIOD);
        r.emit(Event::Irq {
            index: 1,
            vector: 0,
        });
        assert_eq!(read_summary(&path)["irqs"], serde_json::json!(2));
        for _ in 0..SUMMARY_EVERY_EVENTS {
            r.emit(Event::Irq {
                index: 1,
                vector: 0,
            });
        }
        assert_eq!(
            read_summary(&path)["irqs"],
            serde_json::json!(2 + SUMMARY_EVERY_EVENTS)
        );
        assert_eq!(read_summary(&path)["final"], serde_json::json!(false));
        r.write_summary(true).expect("summary written");
        assert_eq!(read_summary(&path)["final"], serde_json::json!(true));
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn violations_are_counted_by_kind() {
        let mut r = Recorder::new(Arc::new(ManualClock::new()), TraceWriter::disabled(), None);
        r.violation("a", "x");
        r.violation("a", "y");
        r.violation("b", String::from("z"));
        let s = r.summary(false);
        assert_eq!(s.violations, 3);
        assert_eq!(s.violation_kinds.get("a"), Some(&2));
        assert_eq!(s.violation_kinds.get("b"), Some(&1));
        assert_eq!(s.events, 3);
    }
}
