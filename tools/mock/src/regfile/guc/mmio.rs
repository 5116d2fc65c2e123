//! MMIO messages to the GuC: `VF_SW_FLAG(0..3)` and the
//! `GUC_HOST_INTERRUPT` doorbell (upstream `xe_guc_mmio_send_recv`,
//! `abi/guc_communication_mmio_abi.h`, `abi/guc_messages_abi.h`).
//!
//! The host writes an HXG request (ORIGIN host, TYPE REQUEST, ACTION 15:0)
//! into `VF_SW_FLAG(0..n)` and writes `GUC_HOST_INTERRUPT`. A READY GuC reads
//! all four registers (the GuC keeps a 4-dword message, `GUC_MAX_MMIO_MSG_LEN`)
//! and replies by overwriting them with an HXG message of ORIGIN GuC, visible
//! [`REPLY_DELAY`] after the doorbell (`[MODEL]`; upstream waits up to 50 ms):
//!
//! - `GET_HWCONFIG` (0x4100) {addr_lo, addr_hi, size}: size 0 -> SUCCESS
//!   with DATA0 = table size in bytes; size below the table -> FAILURE
//!   `INVALID_PARAMS`; otherwise the GuC writes the table at that GGTT address
//!   (through its TLB, into LMEM or guest memory) and answers SUCCESS with
//!   DATA0 = bytes written. A GGTT fault there is `guc_dma_fault` and FAILURE
//!   `INVALID_PARAMS` (`[MODEL]`).
//! - `CLIENT_SOFT_RESET` (0x5507): SUCCESS (`[MODEL]`: nothing else
//!   happens; the GuC keeps running until it is reset).
//! - `HOST2GUC_SELF_CFG` (0x0508) and `HOST2GUC_CONTROL_CTB` (0x4509): the
//!   CT registration, see [`super::ct`].
//! - any other action: FAILURE `UNKNOWN_ACTION` (0x30).
//!
//! Not requests:
//!
//! - a doorbell while `VF_SW_FLAG(0)` has ORIGIN GuC is no MMIO request
//!   (upstream rings the same doorbell for CT traffic, when the registers
//!   hold the last reply): ignored here, without a violation (while the CT
//!   is enabled every doorbell also has the GuC read the H2G ring, see
//!   [`super::ct`]);
//! - ORIGIN host with a TYPE other than REQUEST is malformed (upstream only
//!   sends REQUESTs by MMIO): `guc_h2g_malformed` and FAILURE
//!   `INVALID_PARAMS` (`[MODEL]`).
//!
//! While the GuC is not READY, or still answering the previous request, a
//! doorbell is ignored: no reply (`[MODEL]`). Faults: `guc-mmio-no-reply`
//! never answers; `guc-mmio-busy` answers NO_RESPONSE_BUSY first and the
//! final reply [`BUSY_TIME`] later; `guc-mmio-retry` answers the first
//! request after each boot with NO_RESPONSE_RETRY (upstream resends; the
//! resend is served); `guc-mmio-bogus-reply` answers every request with
//! [`BOGUS_REPLY`], a GuC-origin EVENT header, which no request may get
//! (traced as reply `event`; the request is not served).
//! `--guc-hwconfig-size-reply N` makes the size query answer SUCCESS with
//! DATA0 = N; the copy request is unchanged.

use std::time::Duration;

use sha2::Digest;
use sha2::Sha256;

use super::ggtt::Gtt;
use super::hwconfig;
use super::micros;
use super::Bus;
use super::Guc;
use crate::abi;
use crate::recorder::Recorder;
use crate::trace::Event;
use crate::trace::Hex;

/// From the doorbell to a visible reply (`[MODEL]`).
pub const REPLY_DELAY: Duration = Duration::from_micros(50);
/// From the doorbell to the final reply under `guc-mmio-busy` (`[MODEL]`).
pub const BUSY_TIME: Duration = Duration::from_millis(5);

/// The reply under `guc-mmio-bogus-reply`: ORIGIN GuC, TYPE EVENT, data 1.
pub const BOGUS_REPLY: u32 = abi::prep(abi::hxg::ORIGIN, abi::hxg::ORIGIN_GUC)
    | abi::prep(abi::hxg::TYPE, abi::hxg::TYPE_EVENT)
    | 1;

/// A reply that becomes visible at `at`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Reply {
    at: Duration,
    kind: &'static str,
    msg: [u32; 4],
}

/// HXG header of a GuC message of `ty` with `aux` (27:0).
fn header(ty: u32, aux: u32) -> u32 {
    abi::prep(abi::hxg::ORIGIN, abi::hxg::ORIGIN_GUC)
        | abi::prep(abi::hxg::TYPE, ty)
        | abi::prep(abi::hxg::AUX, aux)
}

/// SUCCESS with DATA0.
pub fn success(data0: u32) -> u32 {
    header(abi::hxg::TYPE_RESPONSE_SUCCESS, data0)
}

/// FAILURE with ERROR (hint 0).
pub fn failure(error: u32) -> u32 {
    header(
        abi::hxg::TYPE_RESPONSE_FAILURE,
        abi::prep(abi::hxg::FAILURE_ERROR, error),
    )
}

/// A final answer: its kind name and header.
fn answer(ok: Result<u32, u32>) -> (&'static str, u32) {
    match ok {
        Ok(data0) => ("success", success(data0)),
        Err(error) => ("failure", failure(error)),
    }
}

impl Guc {
    /// A `GUC_HOST_INTERRUPT` write.
    pub(super) fn doorbell(&mut self, now: Duration, rec: &mut Recorder, bus: &mut dyn Bus) {
        let written = std::mem::take(&mut self.flags_written);
        if !self.ready(now) || self.hung {
            // Not running, or stuck (`Guc::hang`): nobody reads the message.
            return;
        }
        // The same doorbell announces CT traffic (ct.rs, "Messages").
        self.ct_doorbell(now, rec, bus);
        if !self.replies.is_empty() {
            return;
        }
        let msg = self.flags;
        if abi::field(msg[0], abi::hxg::ORIGIN) == abi::hxg::ORIGIN_GUC {
            return;
        }
        let ty = abi::field(msg[0], abi::hxg::TYPE);
        let action = abi::field(msg[0], abi::hxg::REQUEST_ACTION);
        rec.emit(Event::GucH2g {
            action: Hex(action.into()),
            // CAST: at most 4.
            len: (u8::BITS - written.leading_zeros()) as usize,
        });
        if self.p.faults.mmio_no_reply {
            return;
        }
        let (kind, head) = if ty != abi::hxg::TYPE_REQUEST {
            rec.violation(
                "guc_h2g_malformed",
                format!(
                    "MMIO message {:#x}: TYPE {ty} from the host is not a REQUEST",
                    msg[0]
                ),
            );
            answer(Err(abi::error::INVALID_PARAMS))
        } else if self.p.faults.mmio_bogus_reply {
            ("event", BOGUS_REPLY)
        } else if std::mem::take(&mut self.retry_armed) {
            ("retry", header(abi::hxg::TYPE_NO_RESPONSE_RETRY, 0))
        } else {
            answer(self.serve(action, &msg, rec, bus))
        };
        let reply = |at, kind, head| Reply {
            at,
            kind,
            msg: [head, 0, 0, 0],
        };
        if self.p.faults.mmio_busy && kind != "retry" {
            let busy = header(abi::hxg::TYPE_NO_RESPONSE_BUSY, 0);
            self.replies
                .push_back(reply(now + REPLY_DELAY, "busy", busy));
            self.replies.push_back(reply(now + BUSY_TIME, kind, head));
        } else {
            self.replies.push_back(reply(now + REPLY_DELAY, kind, head));
        }
    }

    /// Executes a request; `Ok(DATA0)` or `Err(error code)`.
    fn serve(
        &mut self,
        action: u32,
        msg: &[u32; 4],
        rec: &mut Recorder,
        bus: &mut dyn Bus,
    ) -> Result<u32, u32> {
        match action {
            abi::action::GET_HWCONFIG => self.get_hwconfig(msg, rec, bus),
            abi::action::CLIENT_SOFT_RESET => Ok(0),
            abi::action::HOST2GUC_SELF_CFG => self.self_cfg(msg, rec),
            abi::action::HOST2GUC_CONTROL_CTB => self.control_ctb(msg, rec, bus),
            _ => Err(abi::error::UNKNOWN_ACTION),
        }
    }

    pub(super) fn get_hwconfig(
        &mut self,
        msg: &[u32; 4],
        rec: &mut Recorder,
        bus: &mut dyn Bus,
    ) -> Result<u32, u32> {
        let table = hwconfig::bytes(&self.hwconfig);
        // CAST: the table is a few hundred bytes.
        let len = table.len() as u32;
        let size = msg[3];
        if size == 0 {
            return Ok(self.p.hwconfig_size_reply.unwrap_or(len));
        }
        if size < len {
            return Err(abi::error::INVALID_PARAMS);
        }
        let addr = u64::from(msg[1]) | u64::from(msg[2]) << 32;
        Gtt::new(bus, &mut self.tlb)
            .write(addr, &table, "GET_HWCONFIG destination", rec)
            .map_err(|f| {
                rec.violation("guc_dma_fault", f.0);
                abi::error::INVALID_PARAMS
            })?;
        // What was served, so a test compares the driver's table with the
        // mock's record instead of with the driver's own report.
        rec.emit(Event::GucHwconfig {
            bytes: table.len() as u64,
            sha256: super::boot::hex(&Sha256::digest(&table)),
        });
        Ok(len)
    }

    /// Makes the replies due by `now` visible.
    pub(super) fn apply_replies(&mut self, now: Duration, rec: &mut Recorder) {
        while let Some(r) = self.replies.front().copied() {
            if r.at > now {
                break;
            }
            self.replies.pop_front();
            self.flags = r.msg;
            rec.emit(Event::GucG2hReply {
                kind: r.kind,
                data0: Hex(u64::from(r.msg[0] & abi::hxg::AUX)),
                at_us: micros(r.at),
            });
        }
    }
}
