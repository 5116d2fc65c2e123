//! The test control's `ct:` and `g2h:` requests ([`crate::control`]):
//! switches for the next requests, and messages or damage the GuC writes
//! into G2H ([`super`] module docs, "Test control").
//!
//! They stand for firmware that misbehaves or for conditions a test cannot
//! otherwise reach; none records a violation (the host did nothing wrong).

use std::time::Duration;

use super::g2h_message;
use super::read_dword;
use super::write_dword;
use super::write_g2h_tail;
use super::Ct;
use super::Layout;
use crate::abi;
use crate::control::CtRequest;
use crate::recorder::Recorder;
use crate::regfile::guc::ggtt::Gtt;
use crate::regfile::guc::Bus;
use crate::regfile::guc::Guc;
use crate::trace::Event;

/// How far past the ring's end `g2h:tail-outside` and `g2h:head-outside`
/// put their offset, in dwords.
pub const OUTSIDE_BY: u32 = 16;

/// The stray fence: this much past the last fence read, bit 15 clear (the
/// host's tracked fences, `CT_SEQNO_UNTRACKED` in `xe_guc_ct.c`).
pub const STRAY_FENCE_DISTANCE: u32 = 0x100;

/// An HXG EVENT from the GuC: ORIGIN GuC, TYPE EVENT, DATA0 0, `action`
/// (`abi/guc_messages_abi.h`: EVENT's DATA0 27:16 and ACTION 15:0 are
/// REQUEST's fields).
pub fn event_header(action: u32) -> u32 {
    abi::prep(abi::hxg::ORIGIN, abi::hxg::ORIGIN_GUC)
        | abi::prep(abi::hxg::TYPE, abi::hxg::TYPE_EVENT)
        | abi::prep(abi::hxg::REQUEST_ACTION, action)
}

impl Guc {
    /// Carries out one `ct:` / `g2h:` request.
    pub fn ct_inject(
        &mut self,
        req: CtRequest,
        now: Duration,
        rec: &mut Recorder,
        bus: &mut dyn Bus,
    ) {
        let result = self.inject(req, rec, bus);
        rec.emit(Event::GucCtInject {
            request: req.to_string(),
            result,
            armed_left: self.ct.switches.armed_left(),
            pending: self.ct.pending(),
        });
        // What the GuC can write now goes out at once (its own interrupt).
        self.ct_service(now, rec, bus);
    }

    fn inject(&mut self, req: CtRequest, rec: &mut Recorder, bus: &mut dyn Bus) -> &'static str {
        let sw = &mut self.ct.switches;
        // A later switch of the same kind adds its count; its parameter
        // (delay, code) replaces the earlier one.
        match req {
            CtRequest::NoResponse { count } => {
                sw.no_response += count;
                return "armed";
            }
            CtRequest::Busy { count, ms } => {
                sw.busy += count;
                sw.busy_delay = Duration::from_millis(ms);
                return "armed";
            }
            CtRequest::Retry { count } => {
                sw.retry += count;
                return "armed";
            }
            CtRequest::Failure { code, count } => {
                sw.failure += count;
                sw.failure_code = code.into();
                return "armed";
            }
            _ => {}
        }
        if self.hung {
            // A stuck uKernel writes nothing (`Guc::hang`).
            return "guc_hung";
        }
        let Some(l) = self.ct.enabled else {
            return "no_channel";
        };
        let ct = &mut self.ct;
        let mut gtt = Gtt::new(bus, &mut self.tlb);
        match req {
            CtRequest::StrayFence => {
                let fence = (ct.last_fence + STRAY_FENCE_DISTANCE) & 0x7FFF;
                let msg = g2h_message(fence, &[super::super::mmio::success(0)]);
                ct.backlog.push_back((msg, 1));
                "queued"
            }
            CtRequest::Event { action, .. } => {
                let mut hxg = vec![event_header(action.into())];
                hxg.extend_from_slice(req.event_data());
                ct.backlog.push_back((g2h_message(0, &hxg), 1));
                "queued"
            }
            CtRequest::Flood { count } => {
                let hxg = [event_header(abi::action::NOTIFY_FLUSH_LOG_BUFFER_TO_FILE)];
                ct.backlog.push_back((g2h_message(0, &hxg), count));
                "queued"
            }
            CtRequest::LenPastTail => {
                // The header claims the EVENT and two DATA dwords; only the
                // EVENT header is written before the new tail.
                let mut msg = g2h_message(0, &[0; 3]);
                msg.truncate(2);
                msg[1] = event_header(abi::action::NOTIFY_FLUSH_LOG_BUFFER_TO_FILE);
                ct.backlog.push_back((msg, 1));
                "queued"
            }
            CtRequest::Disable => {
                disable(ct, &l, &mut gtt, rec);
                self.interrupt_host();
                "done"
            }
            CtRequest::TailOutside => {
                let outside = ring_dwords(l.g2h_size) + OUTSIDE_BY;
                let _ = write_g2h_tail(ct, &l, &mut gtt, outside, rec);
                self.interrupt_host();
                "done"
            }
            CtRequest::HeadOutside => {
                let outside = ring_dwords(l.g2h_size) + OUTSIDE_BY;
                let at = l.g2h_desc + abi::ctb::DESC_HEAD as u64;
                if write_dword(&mut gtt, at, outside, "CT G2H descriptor", rec).is_ok() {
                    ct.poisoned_head = Some(outside);
                }
                self.interrupt_host();
                "done"
            }
            CtRequest::Status { bits } => {
                let at = l.g2h_desc + abi::ctb::DESC_STATUS as u64;
                if let Ok(v) = read_dword(&mut gtt, at, "CT G2H descriptor", rec) {
                    let _ = write_dword(&mut gtt, at, v | bits, "CT G2H descriptor", rec);
                }
                self.interrupt_host();
                "done"
            }
            // Handled above.
            CtRequest::NoResponse { .. }
            | CtRequest::Busy { .. }
            | CtRequest::Retry { .. }
            | CtRequest::Failure { .. } => "armed",
        }
    }
}

/// Ring size in dwords.
fn ring_dwords(bytes: u64) -> u32 {
    // CAST: checked at the enable: a multiple of 4 KiB below 4 GiB.
    (bytes / 4) as u32
}

/// `ct:disable`: DISABLED in both descriptors, the registration and the
/// traffic forgotten: the CT is as unregistered until the host registers
/// and enables it again.
fn disable(ct: &mut Ct, l: &Layout, gtt: &mut Gtt, rec: &mut Recorder) {
    for desc in [l.h2g_desc, l.g2h_desc] {
        let at = desc + abi::ctb::DESC_STATUS as u64;
        if let Ok(v) = read_dword(gtt, at, "CT descriptor status", rec) {
            let _ = write_dword(
                gtt,
                at,
                v | abi::ctb::STATUS_DISABLED,
                "CT descriptor status",
                rec,
            );
        }
    }
    // The GuC's contexts and VF configurations are not the channel's: they
    // stay.
    let submit = std::mem::take(&mut ct.submit);
    let sriov = std::mem::take(&mut ct.sriov);
    *ct = Ct {
        submit,
        sriov,
        ..ct.keeping_switches()
    };
}
