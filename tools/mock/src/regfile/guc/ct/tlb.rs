//! TLB invalidation through the GuC (`XE_GUC_ACTION_TLB_INVALIDATION` and
//! `XE_GUC_ACTION_TLB_INVALIDATION_ALL`).
//!
//! Sources: upstream `abi/guc_actions_abi.h` (the actions, the op word:
//! type 7:0, mode 15:8, flush-cache bit 31; the types), `xe_guc_tlb_inval.c`
//! (what the host sends: {hdr, seqno, op} for the GuC's and the full
//! invalidation, a range after it for the selective ones; `_ALL` from
//! `send_tlb_inval_all` with type FULL, as a FAST_REQUEST; the DONE it
//! waits for, `xe_guc_tlb_inval_done_handler`: {seqno}, one dword),
//! `xe_tlb_inval_types.h` (`TLB_INVALIDATION_SEQNO_INVALID`: no DONE) and
//! `xe_lmtt.c` (`lmtt_invalidate_hw`: the PF empties the LMTT's cache with
//! `_ALL`).
//!
//! Both actions, REQUEST or FAST_REQUEST:
//!
//! - {hdr, seqno, op, ...}: fewer than 3 dwords `INVALID_SIZE`; a type
//!   above 3 `INVALID_PARAMS` (violation `guc_tlb_bad`);
//! - `XE_GUC_TLB_INVAL_GUC` (3) empties the GuC's GGTT TLB (as
//!   `GUC_TLB_INV_CR` does, traced `ggtt_tlb_invalidate`);
//! - `TLB_INVALIDATION_ALL` of type `XE_GUC_TLB_INVAL_FULL` (0) empties
//!   every TLB the mock models: the GuC's GGTT TLB (traced
//!   `ggtt_tlb_invalidate`) and the LMTT's translation cache
//!   ([`super::sriov::lmtt`], traced `lmtt_tlb_invalidate`);
//! - `TLB_INVALIDATION`'s full and page-selective types, and `_ALL`'s
//!   page-selective ones, are the PPGTT's, which the mock does not have:
//!   nothing to drop (`[MODEL]`);
//! - then, unless the seqno is `TLB_INVALIDATION_SEQNO_INVALID`, the G2H
//!   EVENT `TLB_INVALIDATION_DONE` {seqno}.

use super::Ct;
use crate::abi;
use crate::abi::tlb;
use crate::recorder::Recorder;
use crate::regfile::guc::ggtt::Gtt;
use crate::trace::Event;

/// Serves `action` if it is a TLB invalidation; `None` otherwise.
pub(super) fn serve(
    ct: &mut Ct,
    gtt: &mut Gtt,
    action: u32,
    hxg: &[u32],
    rec: &mut Recorder,
) -> Option<Result<u32, u32>> {
    let (name, all) = match action {
        tlb::INVALIDATION => ("TLB_INVALIDATION", false),
        tlb::INVALIDATION_ALL => ("TLB_INVALIDATION_ALL", true),
        _ => return None,
    };
    let &[_, seqno, op, ..] = hxg else {
        rec.violation(
            "guc_tlb_bad",
            format!("{name} of {} dwords; it has at least 3", hxg.len()),
        );
        return Some(Err(abi::error::INVALID_SIZE));
    };
    let ty = op & 0xff;
    if ty > tlb::INVAL_GUC {
        rec.violation(
            "guc_tlb_bad",
            format!("{name} type {ty} is none of upstream's (0-3)"),
        );
        return Some(Err(abi::error::INVALID_PARAMS));
    }
    let full = all && ty == tlb::INVAL_FULL;
    if ty == tlb::INVAL_GUC || full {
        let entries = gtt.invalidate_tlb();
        rec.emit(Event::GgttTlbInvalidate { entries });
    }
    if full {
        ct.sriov.lmtt_invalidate(&*gtt.bus(), rec);
    }
    if seqno != tlb::SEQNO_INVALID {
        super::submit::send_event(ct, tlb::INVALIDATION_DONE, &[seqno], "tlb_done", rec);
    }
    Some(Ok(0))
}
