//! The PCODE mailbox: `PCODE_MAILBOX`, `PCODE_DATA0`, `PCODE_DATA1`.
//!
//! Protocol (`drivers/gpu/drm/xe/xe_pcode.c` `__pcode_mailbox_rw`): with READY clear, the host writes DATA0 and
//! DATA1, then `MAILBOX = READY | param2 << 16 | param1 << 8 | command`.
//! PCODE clears READY when done, leaves its error code in bits 7:0 and its
//! reply in DATA0/DATA1 (`xe_pcode_api.h` for all codes).
//!
//! The mock completes a command within the write that submits it, so the
//! host's first poll sees READY clear. Commands modelled:
//!
//! - `DGFX_PCODE_STATUS` (0x7E), param1 `DGFX_GET_INIT_STATUS` (0): DATA0
//!   bit 0 (`DGFX_INIT_STATUS_COMPLETE`) reads 1 once `--pcode-init-delay-ms`
//!   has passed since reset (never with `pcode-never-init`); DATA1 = 0. Input
//!   DATA0 is not checked: upstream passes the request (0) there
//!   (`xe_pcode_ready`). Another param1 answers `PCODE_ILLEGAL_SUBCOMMAND`.
//! - anything else answers `PCODE_ILLEGAL_CMD`, data unchanged.
//!
//! With `pcode-init-error`, the init-status command completes with
//! `PCODE_ILLEGAL_DATA` (0x3), data unchanged, every time.
//!
//! With `--pcode-busy-ms N`, for N ms after each reset another agent's
//! command holds the mailbox: `PCODE_MAILBOX` reads `READY` with command 0,
//! each such read is recorded (`pcode_busy_replies`), and host writes are
//! refused as below. xe treats a READY it did not set as "busy" and asks
//! again later (`xe_pcode.c` `__pcode_mailbox_rw` returns -EAGAIN,
//! `pcode_try_request` retries). [MODEL] Which agent, and the word it
//! leaves in the mailbox, are not documented anywhere we can read; command 0
//! and no parameters is the plainest choice and the host must not care.
//!
//! With `pcode-stuck`, READY never clears. Writing any mailbox register
//! while READY is set breaks the protocol (upstream returns -EAGAIN rather
//! than do it): the write is ignored and recorded as `pcode_busy_write`.

use std::time::Duration;

use super::RegParams;
use crate::recorder::Recorder;
use crate::regs::pcode_mailbox;
use crate::trace::Event;
use crate::trace::Hex;

/// `DGFX_PCODE_STATUS` command (`xe_pcode_api.h`).
pub const DGFX_PCODE_STATUS: u8 = 0x7E;
/// `DGFX_GET_INIT_STATUS` sub-command (`xe_pcode_api.h`).
pub const DGFX_GET_INIT_STATUS: u8 = 0x0;
/// `DGFX_INIT_STATUS_COMPLETE` reply bit (`xe_pcode_api.h`).
pub const DGFX_INIT_STATUS_COMPLETE: u32 = 0x1;
/// `PCODE_SUCCESS` (`xe_pcode_api.h`).
pub const PCODE_SUCCESS: u8 = 0x0;
/// `PCODE_ILLEGAL_CMD` (`xe_pcode_api.h`).
pub const PCODE_ILLEGAL_CMD: u8 = 0x1;
/// `PCODE_ILLEGAL_DATA` (`xe_pcode_api.h`).
pub const PCODE_ILLEGAL_DATA: u8 = 0x3;
/// `PCODE_ILLEGAL_SUBCOMMAND` (`xe_pcode_api.h`).
pub const PCODE_ILLEGAL_SUBCOMMAND: u8 = 0x4;

/// State behind the three mailbox registers.
#[derive(Debug)]
pub struct Pcode {
    init_delay: Duration,
    never_init: bool,
    stuck: bool,
    init_error: bool,
    /// How long after reset another agent holds the mailbox.
    busy_for: Duration,
    /// When PCODE (re)started initialising.
    epoch: Duration,
    mailbox: u32,
    data: [u32; 2],
}

/// Outcome of one command: error code and the reply data.
struct Reply {
    error: u8,
    data: [u32; 2],
}

impl Pcode {
    /// Reset state at `now`.
    pub fn new(p: &RegParams, now: Duration) -> Self {
        Self {
            init_delay: p.pcode_init_delay,
            never_init: p.pcode_never_init,
            stuck: p.pcode_stuck,
            init_error: p.pcode_init_error,
            busy_for: p.pcode_busy,
            epoch: now,
            mailbox: 0,
            data: [0; 2],
        }
    }

    /// Function reset: idle mailbox, data cleared, init restarts.
    pub fn reset(&mut self, now: Duration) {
        self.epoch = now;
        self.mailbox = 0;
        self.data = [0; 2];
    }

    /// Whether another agent's command holds the mailbox at `now`.
    fn foreign_busy(&self, now: Duration) -> bool {
        now < self.epoch.saturating_add(self.busy_for)
    }

    /// `PCODE_MAILBOX` read.
    pub fn read_mailbox(&self, now: Duration, rec: &mut Recorder) -> u32 {
        if self.foreign_busy(now) {
            let word = pcode_mailbox::READY.mask32();
            rec.emit(Event::PcodeBusy {
                mailbox: Hex(word.into()),
            });
            return word;
        }
        self.mailbox
    }

    /// `PCODE_DATA0`.
    pub fn data0(&self) -> u32 {
        self.data[0]
    }

    /// `PCODE_DATA1`.
    pub fn data1(&self) -> u32 {
        self.data[1]
    }

    fn busy(&self) -> bool {
        self.mailbox & pcode_mailbox::READY.mask32() != 0
    }

    /// `PCODE_DATA0` (`index` 0) or `PCODE_DATA1` (1) write.
    pub fn write_data(&mut self, index: usize, value: u32, now: Duration, rec: &mut Recorder) {
        if self.busy() || self.foreign_busy(now) {
            rec.violation(
                "pcode_busy_write",
                format!("PCODE_DATA{index} written while PCODE_MAILBOX.READY is set"),
            );
            return;
        }
        if let Some(d) = self.data.get_mut(index) {
            *d = value;
        }
    }

    /// `PCODE_MAILBOX` write: stores the word, and runs the command if READY
    /// is set in it.
    pub fn write_mailbox(&mut self, value: u32, now: Duration, rec: &mut Recorder) {
        if self.busy() || self.foreign_busy(now) {
            rec.violation(
                "pcode_busy_write",
                format!("PCODE_MAILBOX written with {value:#x} while READY is set"),
            );
            return;
        }
        self.mailbox = value;
        if !self.busy() || self.stuck {
            return;
        }
        let f = |field: &crate::regs::FieldDef| {
            // CAST: every mailbox field is 8 bits wide.
            field.get(u64::from(value)) as u8
        };
        let (command, param1, param2) = (
            f(&pcode_mailbox::COMMAND),
            f(&pcode_mailbox::PARAM1),
            f(&pcode_mailbox::PARAM2),
        );
        let reply = self.execute(command, param1, now);
        self.data = reply.data;
        // Completion: READY clears, the command byte becomes the error code;
        // the parameters stay as written.
        let keep = !(pcode_mailbox::READY.mask32() | pcode_mailbox::COMMAND.mask32());
        self.mailbox = (value & keep) | u32::from(reply.error);
        rec.emit(Event::Pcode {
            command: Hex(command.into()),
            param1: Hex(param1.into()),
            param2: Hex(param2.into()),
            error: Hex(reply.error.into()),
            data0: Hex(reply.data[0].into()),
            data1: Hex(reply.data[1].into()),
        });
    }

    fn execute(&self, command: u8, param1: u8, now: Duration) -> Reply {
        let unchanged = self.data;
        match (command, param1) {
            (DGFX_PCODE_STATUS, DGFX_GET_INIT_STATUS) if self.init_error => Reply {
                error: PCODE_ILLEGAL_DATA,
                data: unchanged,
            },
            (DGFX_PCODE_STATUS, DGFX_GET_INIT_STATUS) => Reply {
                error: PCODE_SUCCESS,
                data: [self.init_status(now), 0],
            },
            (DGFX_PCODE_STATUS, _) => Reply {
                error: PCODE_ILLEGAL_SUBCOMMAND,
                data: unchanged,
            },
            _ => Reply {
                error: PCODE_ILLEGAL_CMD,
                data: unchanged,
            },
        }
    }

    fn init_status(&self, now: Duration) -> u32 {
        let done = !self.never_init && now >= self.epoch.saturating_add(self.init_delay);
        if done {
            DGFX_INIT_STATUS_COMPLETE
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Clock;
    use crate::regfile::tests::params;
    use crate::regfile::tests::setup;
    use crate::regfile::RegisterFile;
    use crate::regs::pcode_data0::OFFSET as DATA0;
    use crate::regs::pcode_data1::OFFSET as DATA1;
    use crate::regs::pcode_mailbox::OFFSET as MAILBOX;

    const READY: u32 = 1 << 31;

    /// Runs one command the way `__pcode_mailbox_rw` does; returns
    /// (mailbox, data0, data1) after the first poll.
    fn request(rf: &mut RegisterFile, rec: &mut Recorder, mbox: u32, d0: u32) -> (u32, u32, u32) {
        assert_eq!(
            rf.read(MAILBOX, rec).map(|m| m & READY),
            Some(0),
            "idle first"
        );
        rf.write(DATA0, d0, rec);
        rf.write(DATA1, 0, rec);
        rf.write(MAILBOX, READY | mbox, rec);
        let m = rf.read(MAILBOX, rec).unwrap_or(u32::MAX);
        let d0 = rf.read(DATA0, rec).unwrap_or(u32::MAX);
        let d1 = rf.read(DATA1, rec).unwrap_or(u32::MAX);
        (m, d0, d1)
    }

    #[test]
    fn init_status_complete_by_default() {
        let (mut rf, mut rec, _) = setup(params());
        assert_eq!(request(&mut rf, &mut rec, 0x7E, 0), (0x0000_0000, 1, 0));
        let s = rec.summary(false);
        assert_eq!((s.pcode_commands, s.violations), (1, 0));
    }

    #[test]
    fn init_status_follows_the_delay() {
        let mut p = params();
        p.pcode_init_delay = Duration::from_millis(50);
        let (mut rf, mut rec, clock) = setup(p);
        assert_eq!(request(&mut rf, &mut rec, 0x7E, 0), (0, 0, 0));
        clock.advance_ms(49);
        assert_eq!(request(&mut rf, &mut rec, 0x7E, 0).1, 0);
        clock.advance_ms(1);
        assert_eq!(request(&mut rf, &mut rec, 0x7E, 0).1, 1);
        rf.reset(clock.now(), &mut rec);
        assert_eq!(
            request(&mut rf, &mut rec, 0x7E, 0).1,
            0,
            "reset restarts init"
        );
    }

    #[test]
    fn pcode_never_init_fault() {
        let mut p = params();
        p.pcode_never_init = true;
        let (mut rf, mut rec, clock) = setup(p);
        clock.advance(Duration::from_secs(1000));
        let (m, d0, _) = request(&mut rf, &mut rec, 0x7E, 0);
        assert_eq!((m & 0xFF, d0), (0, 0), "success, but never complete");
    }

    #[test]
    fn pcode_init_error_fault() {
        let mut p = params();
        p.pcode_init_error = true;
        let (mut rf, mut rec, clock) = setup(p);
        clock.advance(Duration::from_secs(1));
        // Error 0x3 in bits 7:0, READY clear, params kept, data untouched.
        assert_eq!(request(&mut rf, &mut rec, 0x7E, 0), (0x03, 0, 0));
        assert_eq!(request(&mut rf, &mut rec, 0x7E, 0x55), (0x03, 0x55, 0));
        // Only the init-status command fails.
        assert_eq!(request(&mut rf, &mut rec, 0x57E, 0).0, 0x504);
        rf.reset(clock.now(), &mut rec);
        assert_eq!(
            request(&mut rf, &mut rec, 0x7E, 0).0,
            0x03,
            "after reset too"
        );
        let s = rec.summary(false);
        assert_eq!((s.pcode_commands, s.violations), (4, 0));
    }

    #[test]
    fn errors_for_unknown_command_and_subcommand() {
        let (mut rf, mut rec, _) = setup(params());
        // Unknown command: error 1, params kept, data untouched.
        let (m, d0, _) = request(&mut rf, &mut rec, 0x0012_3455, 0xABCD);
        assert_eq!(m, 0x0012_3401);
        assert_eq!(d0, 0xABCD);
        // Unknown sub-command of DGFX_PCODE_STATUS: error 4.
        let (m, _, _) = request(&mut rf, &mut rec, 0x0000_057E, 0);
        assert_eq!(m, 0x0000_0504);
    }

    #[test]
    fn mailbox_without_ready_only_stores() {
        let (mut rf, mut rec, _) = setup(params());
        rf.write(MAILBOX, 0x7E, &mut rec);
        assert_eq!(rf.read(MAILBOX, &mut rec), Some(0x7E));
        assert_eq!(rf.read(DATA0, &mut rec), Some(0));
        assert_eq!(rec.summary(false).pcode_commands, 0);
    }

    #[test]
    fn stuck_fault_keeps_ready_and_busy_writes_are_violations() {
        let mut p = params();
        p.pcode_stuck = true;
        let (mut rf, mut rec, clock) = setup(p);
        rf.write(DATA0, 0, &mut rec);
        rf.write(MAILBOX, READY | 0x7E, &mut rec);
        clock.advance(Duration::from_secs(10));
        assert_eq!(rf.read(MAILBOX, &mut rec), Some(READY | 0x7E));
        // Every write while busy is refused and recorded.
        rf.write(DATA0, 5, &mut rec);
        rf.write(DATA1, 6, &mut rec);
        rf.write(MAILBOX, READY | 0x11, &mut rec);
        assert_eq!(rf.read(MAILBOX, &mut rec), Some(READY | 0x7E));
        assert_eq!(rf.read(DATA0, &mut rec), Some(0));
        assert_eq!(rf.read(DATA1, &mut rec), Some(0));
        let s = rec.summary(false);
        assert_eq!(s.violation_kinds.get("pcode_busy_write"), Some(&3));
        assert_eq!(s.pcode_commands, 0);
        // Only a reset frees the mailbox.
        rf.reset(clock.now(), &mut rec);
        assert_eq!(rf.read(MAILBOX, &mut rec), Some(0));
    }

    #[test]
    fn busy_window_reads_ready_counts_and_then_frees() {
        let mut p = params();
        p.pcode_busy = Duration::from_millis(30);
        let (mut rf, mut rec, clock) = setup(p);
        // Inside the window: READY read back, every read counted, writes refused.
        assert_eq!(rf.read(MAILBOX, &mut rec), Some(READY));
        clock.advance_ms(29);
        assert_eq!(rf.read(MAILBOX, &mut rec), Some(READY));
        rf.write(DATA0, 7, &mut rec);
        rf.write(MAILBOX, READY | 0x7E, &mut rec);
        assert_eq!(rf.read(DATA0, &mut rec), Some(0), "write refused");
        let s = rec.summary(false);
        assert_eq!(s.pcode_busy_replies, 2, "MAILBOX reads only");
        assert_eq!(s.violation_kinds.get("pcode_busy_write"), Some(&2));
        assert_eq!(s.pcode_commands, 0);
        // After it: an ordinary idle mailbox, no more busy replies.
        clock.advance_ms(1);
        assert_eq!(request(&mut rf, &mut rec, 0x7E, 0), (0, 1, 0));
        assert_eq!(rec.summary(false).pcode_busy_replies, 2);
        // A reset starts the window again.
        rf.reset(clock.now(), &mut rec);
        assert_eq!(rf.read(MAILBOX, &mut rec), Some(READY));
        assert_eq!(rec.summary(false).pcode_busy_replies, 3);
    }
}
