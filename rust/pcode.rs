// SPDX-License-Identifier: GPL-2.0

//! PCODE mailbox: the driver's channel to the power-management firmware.
//!
//! Protocol from upstream xe (`drivers/gpu/drm/xe/xe_pcode.c`, `xe_pcode_api.h`): with READY
//! clear, write DATA0/DATA1, then write MAILBOX = READY | param2 | param1 | command; PCODE clears
//! READY when done and leaves an error code in bits 7:0 and the reply in DATA0/DATA1. The seeds
//! do not describe PCODE. Probe uses one command: the discrete-GPU init status, which must read
//! "complete" before local memory or anything else may be touched (`xe_pcode_probe_early`).

use kernel::{io::poll::read_poll_timeout, prelude::*, time::Delta};

use crate::{
    mmio::{poll_timeout, Bar0},
    regs::{PCODE_DATA0, PCODE_DATA1, PCODE_MAILBOX},
};

/// DGFX_PCODE_STATUS command and its GET_INIT_STATUS sub-command (`xe_pcode_api.h`).
const DGFX_PCODE_STATUS: u8 = 0x7e;
const DGFX_GET_INIT_STATUS: u8 = 0x0;
/// DATA0 bit saying PCODE finished initialising the device (`xe_pcode_api.h`).
const DGFX_INIT_STATUS_COMPLETE: u32 = 0x1;

/// How long one command may take before PCODE is considered stuck. Upstream allows 1 ms per
/// attempt and retries; a trapped register read in the mock costs ~35 us, so 10 ms leaves room
/// for a few hundred polls without hiding a real hang.
// TIMEOUT: PCODE answers mailbox commands within microseconds on real parts.
const COMMAND_TIMEOUT: Delta = Delta::from_millis(10);
/// Pause between init-status queries while PCODE is still booting.
const INIT_POLL_INTERVAL: Delta = Delta::from_millis(1);

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
}

/// Waits until PCODE reports the device initialised, or `timeout` passes.
///
/// A mailbox failure ends the wait at once (a stuck or erroring PCODE will not recover by
/// asking again); only "not complete yet" is retried.
///
/// # Errors
///
/// The mailbox failure's errno ([`PcodeError::to_errno`]) or `ETIMEDOUT` (logged).
pub(crate) fn wait_init_complete(
    dev: &kernel::device::Device,
    bar: Bar0<'_>,
    timeout: Delta,
) -> Result<InitStatus> {
    let mut queries = 0u32;
    let mut failure = None;
    // Not `poll_timeout`: each look here sends a command, and a last one after the time is up
    // would be a query the caller never asked for (and would hit a stuck mailbox again).
    let res = read_poll_timeout(
        || {
            queries += 1;
            mailbox(bar, DGFX_PCODE_STATUS, DGFX_GET_INIT_STATUS, 0).map_err(|e| {
                failure = Some(e);
                e.to_errno()
            })
        },
        |data0| data0 & DGFX_INIT_STATUS_COMPLETE != 0,
        INIT_POLL_INTERVAL,
        timeout,
    );
    match (res, failure) {
        (Ok(_), _) => Ok(InitStatus { queries }),
        (Err(e), Some(PcodeError::Failed(code))) => {
            dev_err!(
                dev,
                "probe: PCODE init-status command failed with error {:#x} ({})\n",
                code,
                PcodeError::code_name(code)
            );
            Err(e)
        }
        (Err(e), Some(PcodeError::Stuck)) => {
            dev_err!(
                dev,
                "probe: PCODE mailbox did not complete command {:#x} within {} ms\n",
                DGFX_PCODE_STATUS,
                COMMAND_TIMEOUT.as_millis()
            );
            Err(e)
        }
        (Err(e), Some(PcodeError::Busy)) => {
            dev_err!(dev, "probe: PCODE mailbox busy before the driver used it\n");
            Err(e)
        }
        (Err(e), None) => {
            dev_err!(
                dev,
                "probe: PCODE did not report init complete within {} ms ({} queries)\n",
                timeout.as_millis(),
                queries
            );
            Err(e)
        }
    }
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

    #[test]
    fn error_names_cover_upstream_codes() {
        assert_eq!(PcodeError::code_name(0x4), "illegal subcommand");
        assert_eq!(PcodeError::code_name(0x55), "unknown error");
    }
}
