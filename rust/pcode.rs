// SPDX-License-Identifier: GPL-2.0

//! PCODE mailbox: the driver's channel to the power-management firmware.
//!
//! Protocol from upstream xe (`drivers/gpu/drm/xe/xe_pcode.c`, `xe_pcode_api.h`): with READY
//! clear, write DATA0/DATA1, then write MAILBOX = READY | param2 | param1 | command; PCODE clears
//! READY when done and leaves an error code in bits 7:0 and the reply in DATA0/DATA1. The seeds
//! do not describe PCODE. Probe uses one command: the discrete-GPU init status, which must read
//! "complete" before local memory or anything else may be touched (`xe_pcode_probe_early`).

use kernel::{
    prelude::*,
    time::{delay::fsleep, Delta},
};

use crate::{
    mmio::{poll_timeout, Bar0},
    regs::{PCODE_DATA0, PCODE_DATA1, PCODE_MAILBOX},
};

/// DGFX_PCODE_STATUS command and its GET_INIT_STATUS sub-command (`xe_pcode_api.h`).
const DGFX_PCODE_STATUS: u8 = 0x7e;
const DGFX_GET_INIT_STATUS: u8 = 0x0;
/// DATA0 bit saying PCODE finished initialising the device (`xe_pcode_api.h`).
const DGFX_INIT_STATUS_COMPLETE: u32 = 0x1;

/// How long one command may take before PCODE is considered stuck: 1 ms, as upstream gives each
/// attempt (`xe_pcode.c` `pcode_try_request` passes `timeout_ms` 1 to `__pcode_mailbox_rw`).
// TIMEOUT: PCODE answers mailbox commands within microseconds on real parts.
const COMMAND_TIMEOUT: Delta = Delta::from_millis(1);
/// First pause between init-status queries, doubled after each (`xe_pcode.c`
/// `pcode_try_request`: `wait = 10` us, `wait <<= 1`).
const FIRST_WAIT_US: i64 = 10;
/// A PCODE mailbox failure.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum PcodeError {
    /// READY was already set: someone else's command is in flight.
    Busy,
    /// READY did not clear within [`COMMAND_TIMEOUT`].
    Stuck,
    /// PCODE completed the command with a non-zero error code.
    Failed(u32),
}

impl PcodeError {
    /// Errno for a failure, following upstream's table of PCODE error codes (`xe_pcode.c`,
    /// `pcode_mailbox_status`).
    pub(crate) fn to_errno(self) -> Error {
        match self {
            Self::Busy => EAGAIN,
            Self::Stuck => ETIMEDOUT,
            Self::Failed(code) => match code {
                0x1 | 0x4 => ENXIO,
                0x2 => ETIMEDOUT,
                0x3 => EINVAL,
                0x6 => EBUSY,
                0x10 => EOVERFLOW,
                0x11 => EACCES,
                _ => EPROTO,
            },
        }
    }

    /// Upstream's name for a PCODE error code (`xe_pcode_api.h`).
    pub(crate) fn code_name(code: u32) -> &'static str {
        match code {
            0x1 => "illegal command",
            0x2 => "timed out",
            0x3 => "illegal data",
            0x4 => "illegal subcommand",
            0x6 => "locked",
            0x10 => "GT ratio out of range",
            0x11 => "rejected",
            _ => "unknown error",
        }
    }
}

/// Runs one mailbox command and returns DATA0 of the reply.
///
/// # Errors
///
/// Why the command failed, as a [`PcodeError`].
pub(crate) fn mailbox(
    bar: Bar0<'_>,
    command: u8,
    param1: u8,
    data0: u32,
) -> Result<u32, PcodeError> {
    if bar.read(PCODE_MAILBOX).ready() {
        return Err(PcodeError::Busy);
    }
    bar.write_reg(PCODE_DATA0::zeroed().with_value(data0));
    bar.write_reg(PCODE_DATA1::zeroed().with_value(0u32));
    bar.write_reg(
        PCODE_MAILBOX::zeroed()
            .with_ready(true)
            .with_param1(param1)
            .with_command(command),
    );
    let done = poll_timeout(
        || Ok(bar.read(PCODE_MAILBOX)),
        |mbox| !mbox.ready(),
        Delta::from_micros(10),
        COMMAND_TIMEOUT,
    )
    .map_err(|_| PcodeError::Stuck)?;
    // On completion bits 7:0 hold the error code instead of the command.
    let code = done.command().get();
    if code != 0 {
        return Err(PcodeError::Failed(code));
    }
    Ok(bar.read(PCODE_DATA0).value().get())
}

/// Outcome of waiting for PCODE's init status.
pub(crate) struct InitStatus {
    /// Number of status queries it took.
    pub(crate) queries: u32,
    /// How many of them found the mailbox busy (READY already set) and were retried.
    pub(crate) busy: u32,
    /// How many of them failed otherwise (stuck or an error code) and were retried.
    pub(crate) failed: u32,
}

/// Upstream's retry schedule for one polled request (`xe_pcode.c` `pcode_try_request`): a
/// query, then a pause of `wait` (10 us, doubling), while the running total `slept` (which
/// upstream advances by the doubled `wait`, so it runs ahead of the real sleep) stays below the
/// budget. Yields the pause before each next query; `None` once the budget is spent, where
/// upstream's loop ends (it also sleeps once more first, which changes nothing). Any context.
struct Backoff {
    wait_us: i64,
    slept_us: i64,
    budget_us: i64,
}

impl Backoff {
    fn new(budget: Delta) -> Self {
        Self {
            wait_us: FIRST_WAIT_US,
            slept_us: 0,
            budget_us: budget.as_micros_ceil(),
        }
    }

    /// The pause before the next query, or `None` if there is none.
    fn next_pause(&mut self) -> Option<Delta> {
        let pause = self.wait_us;
        self.wait_us = self.wait_us.saturating_mul(2);
        self.slept_us = self.slept_us.saturating_add(self.wait_us);
        (self.slept_us < self.budget_us).then(|| Delta::from_micros(pause))
    }
}

/// Waits until PCODE reports the device initialised, retrying as upstream does.
///
/// Like `xe_pcode.c` `xe_pcode_ready` (3 minutes by default, the `pcode_init_timeout_ms`
/// parameter here): every failed query is retried after an exponential pause, whether PCODE
/// said "not complete yet", the mailbox was busy (READY already set: `__pcode_mailbox_rw`
/// returns -EAGAIN), a command did not finish within [`COMMAND_TIMEOUT`], or PCODE answered an
/// error code; only the spent budget ends the wait. Each retry is counted by kind.
///
/// Context: probe, process context; sleeps.
///
/// # Errors
///
/// The last failure's errno ([`PcodeError::to_errno`]), or `ETIMEDOUT` if PCODE answered but
/// never said "complete"; logged with the counts and the last reply.
pub(crate) fn wait_init_complete(
    dev: &kernel::device::Device,
    bar: Bar0<'_>,
    timeout: Delta,
) -> Result<InitStatus> {
    let mut st = InitStatus {
        queries: 0,
        busy: 0,
        failed: 0,
    };
    let mut backoff = Backoff::new(timeout);
    let last = loop {
        st.queries += 1;
        let res = mailbox(bar, DGFX_PCODE_STATUS, DGFX_GET_INIT_STATUS, 0);
        match res {
            Ok(data0) if data0 & DGFX_INIT_STATUS_COMPLETE != 0 => return Ok(st),
            Ok(_) => {}
            Err(PcodeError::Busy) => st.busy += 1,
            Err(_) => st.failed += 1,
        }
        match backoff.next_pause() {
            Some(pause) => fsleep(pause),
            None => break res,
        }
    };
    let (why, value, errno) = match last {
        Ok(data0) => ("init status not complete", data0, ETIMEDOUT),
        Err(e @ PcodeError::Busy) => ("mailbox busy (READY set)", 0, e.to_errno()),
        Err(e @ PcodeError::Stuck) => (
            "command not done within 1 ms",
            u32::from(DGFX_PCODE_STATUS),
            e.to_errno(),
        ),
        Err(e @ PcodeError::Failed(code)) => (PcodeError::code_name(code), code, e.to_errno()),
    };
    dev_err!(
        dev,
        "probe: PCODE did not report init complete within {} ms: {} queries ({} busy, {} failed), last: {} ({:#x})\n",
        timeout.as_millis(),
        st.queries,
        st.busy,
        st.failed,
        why,
        value
    );
    Err(errno)
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_pcode)]
mod tests {
    use super::*;

    #[test]
    fn error_codes_map_like_upstream() {
        assert_eq!(PcodeError::Failed(0x1).to_errno(), ENXIO);
        assert_eq!(PcodeError::Failed(0x3).to_errno(), EINVAL);
        assert_eq!(PcodeError::Failed(0x6).to_errno(), EBUSY);
        assert_eq!(PcodeError::Failed(0x11).to_errno(), EACCES);
        assert_eq!(PcodeError::Failed(0x7f).to_errno(), EPROTO);
        assert_eq!(PcodeError::Stuck.to_errno(), ETIMEDOUT);
        assert_eq!(PcodeError::Busy.to_errno(), EAGAIN);
    }

    /// Queries, first three pauses, last pause and total pause (us) for a budget.
    fn schedule(budget: Delta) -> (u32, [i64; 3], i64, i64) {
        let mut b = Backoff::new(budget);
        let (mut queries, mut first, mut last, mut total) = (1u32, [0i64; 3], 0i64, 0i64);
        while let Some(p) = b.next_pause() {
            let us = p.as_micros_ceil();
            if let Some(slot) = first.get_mut(queries as usize - 1) {
                *slot = us;
            }
            queries += 1;
            last = us;
            total += us;
        }
        (queries, first, last, total)
    }

    #[test]
    fn backoff_follows_upstream_schedule() {
        // Upstream's 3 minutes (`xe_pcode_ready`): 24 queries, pauses 10, 20, 40 us ... 41.9 s,
        // 83.9 s of sleep in all (`slept` runs ahead of the real sleep by twice).
        assert_eq!(
            schedule(Delta::from_secs(180)),
            (24, [10, 20, 40], 10 << 22, 83_886_070)
        );
        // The scenarios' 300 ms: 14 queries, the last pause 41 ms.
        assert_eq!(
            schedule(Delta::from_millis(300)),
            (14, [10, 20, 40], 10 << 12, 81_910)
        );
        // A budget below the first step still asks once.
        assert_eq!(schedule(Delta::from_micros(5)), (1, [0, 0, 0], 0, 0));
    }

    #[test]
    fn error_names_cover_upstream_codes() {
        assert_eq!(PcodeError::code_name(0x4), "illegal subcommand");
        assert_eq!(PcodeError::code_name(0x55), "unknown error");
    }
}
