//! Gunit control: `GU_CNTL` (LMEM init status, Driver-FLR trigger) and
//! `GU_DEBUG` (Driver-FLR completion status).
//!
//! Driver-FLR handshake, as upstream drives it (`drivers/gpu/drm/xe/xe_device.c`
//! `__xe_driver_flr`):
//!
//! 1. wait for `GU_CNTL.DRIVERFLR` == 0; write 1 to `GU_DEBUG.DRIVERFLR_STATUS`
//!    to clear a stale status;
//! 2. set `GU_CNTL.DRIVERFLR`; hardware tears down and the bit self-clears;
//! 3. `GU_DEBUG.DRIVERFLR_STATUS` sets when re-init is done (sticky, W1C).
//!
//! The mock keeps `DRIVERFLR` set for [`FLR_TEARDOWN`], then sets the status
//! after a further [`FLR_REINIT`]. Neither the PRM seeds nor upstream give
//! real durations (upstream only allows 3 s per phase), so these are
//! `[MODEL]` values: long enough that a driver polling right after the
//! trigger sees the busy state at least once (a trapped read takes ~35 us,
//! ENVIRONMENT.md), short enough not to slow tests.
//!
//! The FLR wipes local and stolen memory (comment above `__xe_driver_flr`),
//! so local memory must re-initialise: `LMEM_INIT` reads 0 from the trigger
//! until `--lmem-init-delay-ms` after the teardown ends. `[MODEL]`: PCODE is
//! not reset by a Driver-FLR (upstream: it "doesn't fully reset the SGUnit").

use std::time::Duration;

use super::Effect;
use super::RegParams;
use crate::recorder::Recorder;
use crate::regs::gu_cntl;
use crate::regs::gu_debug;
use crate::trace::Event;

/// How long `GU_CNTL.DRIVERFLR` reads 1 after the trigger (`[MODEL]`).
pub const FLR_TEARDOWN: Duration = Duration::from_millis(2);
/// How long after the teardown `GU_DEBUG.DRIVERFLR_STATUS` sets (`[MODEL]`).
pub const FLR_REINIT: Duration = Duration::from_millis(2);

/// A Driver-FLR in progress.
#[derive(Debug, Clone, Copy)]
struct FlrRun {
    started: Duration,
    teardown_reported: bool,
}

impl FlrRun {
    fn teardown_end(&self) -> Duration {
        self.started + FLR_TEARDOWN
    }

    fn reinit_end(&self) -> Duration {
        self.teardown_end() + FLR_REINIT
    }
}

/// State behind `GU_CNTL` and `GU_DEBUG`.
#[derive(Debug)]
pub struct Gunit {
    lmem_init_delay: Duration,
    lmem_never_init: bool,
    /// When local memory (re)starts initialising: reset time, or the end of
    /// a Driver-FLR teardown.
    lmem_epoch: Duration,
    flr: Option<FlrRun>,
    /// `GU_DEBUG.DRIVERFLR_STATUS`.
    flr_status: bool,
}

impl Gunit {
    /// Reset state at `now`.
    pub fn new(p: &RegParams, now: Duration) -> Self {
        Self {
            lmem_init_delay: p.lmem_init_delay,
            lmem_never_init: p.lmem_never_init,
            lmem_epoch: now,
            flr: None,
            flr_status: false,
        }
    }

    /// Function reset: no FLR pending, status clear, LMEM init restarts.
    pub fn reset(&mut self, now: Duration) {
        self.lmem_epoch = now;
        self.flr = None;
        self.flr_status = false;
    }

    /// Applies Driver-FLR phase changes that happened by `now`.
    pub fn advance(&mut self, now: Duration, rec: &mut Recorder) {
        let Some(run) = self.flr.as_mut() else {
            return;
        };
        if !run.teardown_reported && now >= run.teardown_end() {
            run.teardown_reported = true;
            rec.emit(Event::DriverFlr {
                phase: "teardown_done",
            });
        }
        if now >= run.reinit_end() {
            self.flr = None;
            self.flr_status = true;
            rec.emit(Event::DriverFlr { phase: "complete" });
        }
    }

    /// `GU_CNTL`: LMEM_INIT once local memory is up, DRIVERFLR during teardown.
    pub fn read_gu_cntl(&self, now: Duration) -> u32 {
        let lmem_ready =
            !self.lmem_never_init && now >= self.lmem_epoch.saturating_add(self.lmem_init_delay);
        let tearing_down = self.flr.is_some_and(|r| now < r.teardown_end());
        let mut v = 0;
        if lmem_ready {
            v |= gu_cntl::LMEM_INIT.mask32();
        }
        if tearing_down {
            v |= gu_cntl::DRIVERFLR.mask32();
        }
        v
    }

    /// `GU_CNTL` write: only DRIVERFLR=1 does anything (other bits are
    /// read-only or unmodelled; upstream writes LMEM_INIT back in its
    /// read-modify-write, which hardware ignores).
    pub fn write_gu_cntl(&mut self, value: u32, now: Duration, rec: &mut Recorder) -> Effect {
        if value & gu_cntl::DRIVERFLR.mask32() == 0 {
            return Effect::None;
        }
        if self.flr.is_some() {
            rec.violation(
                "driverflr_busy",
                "GU_CNTL.DRIVERFLR set while a Driver-FLR is still in progress",
            );
            return Effect::None;
        }
        let run = FlrRun {
            started: now,
            teardown_reported: false,
        };
        self.lmem_epoch = run.teardown_end();
        self.flr = Some(run);
        rec.emit(Event::DriverFlr { phase: "start" });
        Effect::DriverFlr
    }

    /// `GU_DEBUG`: the sticky Driver-FLR status.
    pub fn read_gu_debug(&self) -> u32 {
        if self.flr_status {
            gu_debug::DRIVERFLR_STATUS.mask32()
        } else {
            0
        }
    }

    /// `GU_DEBUG` write: DRIVERFLR_STATUS is write-1-to-clear.
    pub fn write_gu_debug(&mut self, value: u32) {
        if value & gu_debug::DRIVERFLR_STATUS.mask32() != 0 {
            self.flr_status = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Clock;
    use crate::regfile::tests::params;
    use crate::regfile::tests::setup;
    use crate::regs::gu_cntl::OFFSET as GU_CNTL;
    use crate::regs::gu_debug::OFFSET as GU_DEBUG;

    const LMEM_INIT: u32 = 1 << 7;
    const DRIVERFLR: u32 = 1 << 31;
    const STATUS: u32 = 1 << 31;

    #[test]
    fn lmem_init_is_set_at_once_by_default() {
        let (mut rf, mut rec, _) = setup(params());
        assert_eq!(rf.read(GU_CNTL, &mut rec), Some(LMEM_INIT));
    }

    #[test]
    fn lmem_init_waits_for_the_delay() {
        let mut p = params();
        p.lmem_init_delay = Duration::from_millis(100);
        let (mut rf, mut rec, clock) = setup(p);
        assert_eq!(rf.read(GU_CNTL, &mut rec), Some(0));
        clock.advance_ms(99);
        assert_eq!(rf.read(GU_CNTL, &mut rec), Some(0));
        clock.advance_ms(1);
        assert_eq!(rf.read(GU_CNTL, &mut rec), Some(LMEM_INIT));
        // A reset restarts the timer.
        rf.reset(clock.now(), &mut rec);
        assert_eq!(rf.read(GU_CNTL, &mut rec), Some(0));
        clock.advance_ms(100);
        assert_eq!(rf.read(GU_CNTL, &mut rec), Some(LMEM_INIT));
    }

    #[test]
    fn lmem_never_init_fault() {
        let mut p = params();
        p.lmem_never_init = true;
        let (mut rf, mut rec, clock) = setup(p);
        clock.advance(Duration::from_secs(3600));
        assert_eq!(rf.read(GU_CNTL, &mut rec), Some(0));
    }

    #[test]
    fn lmem_init_is_read_only() {
        let mut p = params();
        p.lmem_never_init = true;
        let (mut rf, mut rec, _) = setup(p);
        assert_eq!(rf.write(GU_CNTL, LMEM_INIT, &mut rec), Some(Effect::None));
        assert_eq!(rf.read(GU_CNTL, &mut rec), Some(0));
    }

    /// The full upstream sequence, step by step.
    #[test]
    fn driver_flr_handshake() {
        let (mut rf, mut rec, clock) = setup(params());
        // Step 1: idle, clear stale status.
        assert_eq!(rf.read(GU_CNTL, &mut rec), Some(LMEM_INIT));
        assert_eq!(rf.write(GU_DEBUG, STATUS, &mut rec), Some(Effect::None));
        // Step 2: RMW sets DRIVERFLR (LMEM_INIT written back, ignored).
        assert_eq!(
            rf.write(GU_CNTL, LMEM_INIT | DRIVERFLR, &mut rec),
            Some(Effect::DriverFlr)
        );
        // Teardown: trigger reads 1, memory is not initialised.
        assert_eq!(rf.read(GU_CNTL, &mut rec), Some(DRIVERFLR));
        assert_eq!(rf.read(GU_DEBUG, &mut rec), Some(0));
        clock.advance(FLR_TEARDOWN - Duration::from_micros(1));
        assert_eq!(rf.read(GU_CNTL, &mut rec), Some(DRIVERFLR));
        // Teardown done: trigger self-clears, re-init still running.
        clock.advance(Duration::from_micros(1));
        assert_eq!(rf.read(GU_CNTL, &mut rec), Some(LMEM_INIT));
        assert_eq!(rf.read(GU_DEBUG, &mut rec), Some(0));
        // Step 3: status sets after re-init and is sticky ...
        clock.advance(FLR_REINIT);
        assert_eq!(rf.read(GU_DEBUG, &mut rec), Some(STATUS));
        clock.advance_ms(100);
        assert_eq!(rf.read(GU_DEBUG, &mut rec), Some(STATUS));
        // ... writing 0 does not clear it, writing 1 does.
        rf.write(GU_DEBUG, 0, &mut rec);
        assert_eq!(rf.read(GU_DEBUG, &mut rec), Some(STATUS));
        rf.write(GU_DEBUG, STATUS, &mut rec);
        assert_eq!(rf.read(GU_DEBUG, &mut rec), Some(0));
        let s = rec.summary(false);
        assert_eq!(s.driver_flrs, 1);
        assert_eq!(s.violations, 0);
    }

    #[test]
    fn status_latches_even_if_nobody_polls_during_the_flr() {
        let (mut rf, mut rec, clock) = setup(params());
        rf.write(GU_CNTL, DRIVERFLR, &mut rec);
        clock.advance(Duration::from_secs(1));
        assert_eq!(rf.read(GU_CNTL, &mut rec), Some(LMEM_INIT));
        assert_eq!(rf.read(GU_DEBUG, &mut rec), Some(STATUS));
    }

    #[test]
    fn lmem_reinitialises_after_flr_with_delay() {
        let mut p = params();
        p.lmem_init_delay = Duration::from_millis(10);
        let (mut rf, mut rec, clock) = setup(p);
        clock.advance_ms(10);
        assert_eq!(rf.read(GU_CNTL, &mut rec), Some(LMEM_INIT));
        rf.write(GU_CNTL, DRIVERFLR, &mut rec);
        clock.advance(FLR_TEARDOWN + Duration::from_millis(9));
        assert_eq!(rf.read(GU_CNTL, &mut rec), Some(0));
        clock.advance_ms(1);
        assert_eq!(rf.read(GU_CNTL, &mut rec), Some(LMEM_INIT));
    }

    #[test]
    fn retrigger_while_busy_is_a_violation_and_ignored() {
        let (mut rf, mut rec, clock) = setup(params());
        rf.write(GU_CNTL, DRIVERFLR, &mut rec);
        clock.advance(FLR_TEARDOWN);
        // Trigger reads 0 now, but re-init is still running.
        assert_eq!(rf.write(GU_CNTL, DRIVERFLR, &mut rec), Some(Effect::None));
        let s = rec.summary(false);
        assert_eq!(s.violation_kinds.get("driverflr_busy"), Some(&1));
        assert_eq!(s.driver_flrs, 1);
        clock.advance(FLR_REINIT);
        assert_eq!(rf.read(GU_DEBUG, &mut rec), Some(STATUS));
    }

    #[test]
    fn reset_cancels_a_running_flr() {
        let (mut rf, mut rec, clock) = setup(params());
        rf.write(GU_CNTL, DRIVERFLR, &mut rec);
        rf.reset(clock.now(), &mut rec);
        assert_eq!(rf.read(GU_CNTL, &mut rec), Some(LMEM_INIT));
        clock.advance_ms(100);
        assert_eq!(rf.read(GU_DEBUG, &mut rec), Some(0));
    }
}
