// SPDX-License-Identifier: GPL-2.0

//! Host-to-GuC messages over MMIO, for use before (and besides) the CT buffers.
//!
//! The request goes into VF_SW_FLAG(0..3) and GUC_HOST_INTERRUPT rings the GuC; the reply
//! comes back in the same registers with the origin bit set to GuC (upstream `xe_guc.c`,
//! `xe_guc_mmio_send_recv`). The PRM's older pair (SOFT_SCRATCH at 0xC180 with
//! GUC_SEND_INTERRUPT 0xC4C8) still carries the boot parameters, but upstream's comment in
//! `abi/guc_communication_mmio_abi.h` says the 0x190240 registers are preferred from Gen11 on,
//! and they are the ones replicated into each VF's MMIO (seed 000 line 127), which the SR-IOV
//! work needs; so xehpg uses them.
//!
//! Every reply is untrusted input: its type and length are checked before use.

// `send_atomic` (test build).
#[cfg(xehpg_test)]
use kernel::io::poll::read_poll_timeout_atomic;
use kernel::{
    prelude::*,
    time::{delay::fsleep, Delta},
};

use super::{
    hxg::Hxg,
    msg::{self, MmioRequest},
    regs::{GUC_HOST_INTERRUPT, VF_SW_FLAG},
};
use crate::{abi::*, gt::Gt, mmio::poll_timeout, regs::ALL_ONES};

/// How long the GuC may take to pick a request up (upstream: 50 ms).
// TIMEOUT: upstream's value for the first reply.
const REPLY_TIMEOUT: Delta = Delta::from_millis(50);
/// How long [`send_atomic`] spins for a reply: 10 ms in 1 µs steps.
// TIMEOUT: our bound for a caller that may not sleep; the GuC answers GET_HWCONFIG's size
// query without work.
#[cfg(xehpg_test)]
const ATOMIC_STEP: Delta = Delta::from_micros(1);
#[cfg(xehpg_test)]
const ATOMIC_TRIES: usize = 10_000;
/// How long a BUSY reply may take to turn final (upstream: 2 s).
// TIMEOUT: upstream's value.
const BUSY_TIMEOUT: Delta = Delta::from_secs(2);
/// Resends after RETRY replies before giving up.
const MAX_RETRIES: u32 = 4;
/// The message registers (`GUC_MAX_MMIO_MSG_LEN`).
const MMIO_DWORDS: usize = XEHPG_GUC_MMIO_MSG_MAX_DWORDS as usize;

/// A final reply, its SUCCESS decoded as the request's [`Reply`](msg::H2gRequest::Reply).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Reply<T = u32> {
    /// SUCCESS with its decoded DATA0.
    Success(T),
    /// FAILURE with its error and hint.
    Failure { error: u32, hint: u32 },
}

/// What one poll of the reply register means.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Seen {
    /// Still the host's request: not picked up yet.
    Pending,
    Busy,
    Retry,
    Final(Reply),
    /// A GuC-origin header of a type that cannot answer a request.
    Bogus(u32),
    /// All ones: the device no longer answers (an all-ones header would otherwise read as a
    /// SUCCESS with DATA0 0x0fffffff).
    Gone,
}

/// Classifies VF_SW_FLAG(0) (pure, for tests).
pub(crate) fn classify(raw: u32) -> Seen {
    if raw == ALL_ONES {
        return Seen::Gone;
    }
    let h = Hxg::from_raw(raw);
    if !h.from_guc() {
        return Seen::Pending;
    }
    match h.kind().get() {
        XEHPG_HXG_TYPE_NO_RESPONSE_BUSY => Seen::Busy,
        XEHPG_HXG_TYPE_NO_RESPONSE_RETRY => Seen::Retry,
        XEHPG_HXG_TYPE_RESPONSE_SUCCESS => Seen::Final(Reply::Success(h.aux().get())),
        XEHPG_HXG_TYPE_RESPONSE_FAILURE => Seen::Final(Reply::Failure {
            error: h.as_failure().error().get(),
            hint: h.as_failure().hint().get(),
        }),
        _ => Seen::Bogus(raw),
    }
}

/// `req` encoded for the message registers: the dwords and how many are used.
///
/// # Errors
///
/// The request's encoding error.
fn encode<R: MmioRequest>(req: &R) -> Result<([u32; MMIO_DWORDS], usize)> {
    // The request fits the registers: checked when this is built.
    let () = R::FITS_MMIO;
    let mut msg = [0u32; MMIO_DWORDS];
    let n = msg::encode(req, &mut msg)?;
    Ok((msg, n))
}

/// Decodes a final reply for `R`: a DATA0 the ABI does not allow for it is `Err(data0)`.
fn decode<R: MmioRequest>(reply: Reply) -> Result<Reply<R::Reply>, u32> {
    Ok(match reply {
        Reply::Success(data0) => Reply::Success(R::decode_reply(data0)?),
        Reply::Failure { error, hint } => Reply::Failure { error, hint },
    })
}

/// [`send`] for a caller that may not sleep (debugfs inside the device access, for the CT
/// round-trip comparison): spins at most ~10 ms for the final reply and does not
/// wait out RETRY. No message: the caller reports.
///
/// # Errors
///
/// `EINVAL` for a request that does not encode, `ETIMEDOUT` without a final reply, `EAGAIN`
/// for RETRY, `EPROTO` for a malformed reply or a DATA0 the request does not allow, `ENODEV`
/// if the register reads all ones. Test build only (the `ct` load runs' `mmio-ping`).
#[cfg(xehpg_test)]
pub(crate) fn send_atomic<R: MmioRequest>(gt: &Gt<'_>, req: &R) -> Result<Reply<R::Reply>> {
    let (msg, n) = encode(req)?;
    post(gt, msg.get(..n).ok_or(EINVAL)?)?;
    let seen = read_poll_timeout_atomic(
        || read_flag(gt, 0).map(classify),
        |s| !matches!(s, Seen::Pending | Seen::Busy),
        ATOMIC_STEP,
        ATOMIC_TRIES,
    )?;
    match seen {
        Seen::Final(r) => decode::<R>(r).map_err(|_| EPROTO),
        Seen::Retry => Err(EAGAIN),
        Seen::Bogus(_) => Err(EPROTO),
        Seen::Gone => Err(ENODEV),
        Seen::Pending | Seen::Busy => Err(ETIMEDOUT),
    }
}

// The message registers are always-on (Gunit, 0x190000): no forcewake needed, which the
// accessors check at build time.
fn read_flag(gt: &Gt<'_>, i: usize) -> Result<u32> {
    Ok(gt.read_aon_at::<VF_SW_FLAG>(i)?.into_raw())
}

fn post(gt: &Gt<'_>, request: &[u32]) -> Result {
    for (i, &dw) in request.iter().enumerate() {
        gt.write_aon_at(i, VF_SW_FLAG::from_raw(dw))?;
    }
    // A read back so the writes have landed before the doorbell (upstream reads the last).
    let _ = read_flag(gt, MMIO_DWORDS - 1)?;
    gt.write_aon(GUC_HOST_INTERRUPT::zeroed());
    Ok(())
}

/// Sends `req` and waits for the final reply, which is returned decoded; a FAILURE is a reply,
/// not an error. Process context: sleeps.
///
/// # Errors
///
/// `EINVAL` for a request that does not encode, `ETIMEDOUT` if the GuC does not answer,
/// `EPROTO` for a malformed reply or a DATA0 the request does not allow, `EAGAIN` if it still
/// asks to retry after the last resend (all logged).
pub(crate) fn send<R: MmioRequest>(gt: &Gt<'_>, req: &R) -> Result<Reply<R::Reply>> {
    let action = R::ACTION;
    let (msg, n) = encode(req)?;
    let request = msg.get(..n).ok_or(EINVAL)?;
    let mut backoff = Delta::from_millis(1);
    for _ in 0..=MAX_RETRIES {
        post(gt, request)?;
        let first = poll_timeout(
            || read_flag(gt, 0).map(classify),
            |s| *s != Seen::Pending,
            Delta::from_micros(20),
            REPLY_TIMEOUT,
        )
        .inspect_err(|_| {
            dev_err!(
                gt.dev,
                "guc: no reply to MMIO action {:#x} within {} ms\n",
                action,
                REPLY_TIMEOUT.as_millis()
            )
        })?;
        let seen = match first {
            Seen::Busy => poll_timeout(
                || read_flag(gt, 0).map(classify),
                |s| !matches!(s, Seen::Busy | Seen::Pending),
                Delta::from_micros(100),
                BUSY_TIMEOUT,
            )
            .inspect_err(|_| {
                dev_err!(
                    gt.dev,
                    "guc: MMIO action {:#x} still busy after {} ms\n",
                    action,
                    BUSY_TIMEOUT.as_millis()
                )
            })?,
            other => other,
        };
        match seen {
            Seen::Final(reply) => {
                return decode::<R>(reply).map_err(|data0| {
                    dev_err!(
                        gt.dev,
                        "guc: MMIO action {:#x}: reply DATA0 {:#x} is not one the ABI allows\n",
                        action,
                        data0
                    );
                    EPROTO
                });
            }
            Seen::Retry => {
                fsleep(backoff);
                backoff = Delta::from_millis((backoff.as_millis() * 2).min(256));
            }
            Seen::Bogus(raw) => {
                dev_err!(
                    gt.dev,
                    "guc: malformed reply {:#010x} to MMIO action {:#x}\n",
                    raw,
                    action
                );
                return Err(EPROTO);
            }
            Seen::Gone => {
                dev_err!(
                    gt.dev,
                    "guc: MMIO action {:#x}: reply register reads 0xffffffff, device not \
                     responding\n",
                    action
                );
                return Err(ENODEV);
            }
            Seen::Pending | Seen::Busy => return Err(ETIMEDOUT),
        }
    }
    dev_err!(
        gt.dev,
        "guc: MMIO action {:#x} still asked to retry after {} resends\n",
        action,
        MAX_RETRIES
    );
    Err(EAGAIN)
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_guc_hxg)]
mod tests {
    use super::*;

    #[test]
    fn request_header_layout() {
        assert_eq!(Hxg::request(0x4100, 0).into_raw(), 0x0000_4100);
        // DATA0 is 12 bits at 27:16; excess bits do not leak into TYPE.
        assert_eq!(Hxg::request(0x4100, 0xffff).into_raw(), 0x0fff_4100);
        assert_eq!(Hxg::request(0x1_0001, 0).into_raw() & 0xffff, 1);
    }

    #[test]
    fn reply_classification() {
        assert_eq!(classify(0x0000_4100), Seen::Pending);
        assert_eq!(classify(0xf000_1234), Seen::Final(Reply::Success(0x1234)));
        assert_eq!(
            classify(0xe005_0030),
            Seen::Final(Reply::Failure {
                error: 0x30,
                hint: 5
            })
        );
        assert_eq!(classify(0xb000_0007), Seen::Busy);
        assert_eq!(classify(0xd000_0000), Seen::Retry);
        // A GuC REQUEST or EVENT is not an answer to ours.
        assert_eq!(classify(0x8000_0001), Seen::Bogus(0x8000_0001));
        assert_eq!(classify(0x9000_0001), Seen::Bogus(0x9000_0001));
        // A vanished device is not a SUCCESS.
        assert_eq!(classify(0xffff_ffff), Seen::Gone);
        assert_eq!(
            classify(0xffff_fffe),
            Seen::Final(Reply::Success(0x0fff_fffe))
        );
    }
}
