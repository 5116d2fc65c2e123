//! The GuC's relay between the VFs' drivers and the PF (`GUC2PF_RELAY_FROM_VF`,
//! `PF2GUC_RELAY_TO_VF`), with the mock standing for the VFs' drivers: what
//! a VF sends comes from the test control, and what the PF answers is
//! checked the way upstream's VF driver would take it.
//!
//! Facts: upstream `abi/guc_actions_sriov_abi.h` (the two actions' DOC
//! tables and lengths), `abi/guc_relay_communication_abi.h` (the relay
//! message is an HXG message of a host driver, `GUC_RELAY_MSG_MAX_LEN` =
//! `GUC_CTB_MAX_DWORDS` 255 - 3 = 252 dwords), `abi/guc_relay_actions_abi.h`
//! (the VF/PF ABI 1.0: `VF2PF_HANDSHAKE` and `VF2PF_QUERY_RUNTIME`, their
//! fields), `abi/guc_messages_abi.h` (HXG types; a FAILURE's ERROR 15:0 and
//! HINT 27:16), `xe_guc_relay.c` (`relay_process_msg`, `relay_handle_reply`,
//! `relay_send_message_and_wait`: how a driver takes an answer),
//! `xe_gt_sriov_vf.c` (`relay_action_handshake`, `vf_handshake_with_pf`,
//! `vf_query_runtime_info`: what the VF checks), `xe_sriov_pf_service.c`
//! (`pf_negotiate_version`) and `xe_gt_sriov_pf_service.c`
//! (`pf_process_handshake_msg`, `pf_process_runtime_query_msg`,
//! `ats_m_runtime_regs`: what the PF may answer), `xe_gt_sriov_pf_control.c`
//! (`pf_exit_vf_flr_reset_data`: an FLR drops the VF's agreed version). The
//! firmware's own checks are not published: what goes beyond the ABI text is
//! `[MODEL]`.
//!
//! # `GUC2PF_RELAY_FROM_VF` (0x5100) {hdr, VFID, RELAY_ID, relay message}
//!
//! An EVENT (DATA0 0) the GuC sends the PF for each message a VF's driver
//! relays (1..=[`RELAY_MSG_MAX_LEN`] dwords). The GuC forwards whatever the
//! test says VF N sent, for any N in 1..=[`TOTAL_VFS`]: the PF has to check
//! the VF (traced `configured`: whether VF N has a configuration). The events
//! go through the CT backlog, one per message.
//!
//! # `PF2GUC_RELAY_TO_VF` (0x5101) {hdr, VFID, RELAY_ID, relay message}
//!
//! The DOC table gives TYPE `FAST_REQUEST`; upstream sends a `REQUEST`
//! (`xe_guc_relay.c` `prepare_pf2guc`) and takes SUCCESS with DATA0 0 as
//! done (`relay_send_transaction`: more is `-EPROTO`). The CT takes either
//! ([`super::super`]: a REQUEST gets SUCCESS with DATA0 0, a FAST_REQUEST
//! only a FAILURE). Checks, in order; each refusal answers FAILURE
//! `INVALID_PARAMS` (0x60), records a `guc_sriov_bad` violation and
//! delivers nothing:
//!
//! - fewer than 4 dwords or more than 3 + [`RELAY_MSG_MAX_LEN`]
//!   (`PF2GUC_RELAY_TO_VF_REQUEST_MSG_MIN_LEN` / `_MAX_LEN`: a relay message
//!   has at least its header; more cannot come over CT, whose header counts
//!   at most 255 dwords, but is checked all the same);
//! - DATA0 (27:16, MBZ) not 0;
//! - VFID 0 or above [`TOTAL_VFS`];
//! - VFID without a configuration in the GuC (`[MODEL]`: the firmware has
//!   no such VF to deliver to; the stricter reading).
//!
//! Otherwise the GuC delivers the relay message to the VF
//! (`GUC2VF_RELAY_FROM_PF` {RELAY_ID, message}, which the mock's VF side
//! takes at once, below).
//!
//! # The VF side
//!
//! Each VF's driver waits for an answer to every request it sent
//! (`vf:relay`, `vf:relay-burst`), by (VF, RELAY_ID); `[MODEL]` it keeps no
//! timeout (upstream gives up after `RELAY_TIMEOUT_MSEC`): a request never
//! answered stays outstanding (`relay_outstanding`). What the PF sends a VF
//! is checked like upstream's VF driver takes it; each rule broken records a
//! `relay_bad_answer` violation:
//!
//! - a header of GuC origin (`relay_process_msg`: `-EPROTO`), or a type that
//!   is no HXG type (`-EBADRQC`);
//! - a REQUEST, FAST_REQUEST or EVENT: VF/PF ABI 1.0 defines no PF-to-VF
//!   action (`guc_relay_actions_abi.h`) and upstream's VF refuses them
//!   (`relay_action_handler`: `-EOPNOTSUPP`). `[MODEL]`: the VF sends no
//!   refusal back;
//! - an answer (SUCCESS, FAILURE, NO_RESPONSE_BUSY, NO_RESPONSE_RETRY) to
//!   no request the VF waits for: "answer to a relay the VF never sent"
//!   (`relay_handle_reply`: `-ESRCH`), a second answer to one included.
//!
//! An answer to a waiting request, by type (`relay_send_message_and_wait`):
//!
//! - BUSY: the VF keeps waiting (traced `busy`);
//! - RETRY: the VF sends the same request again, same RELAY_ID (traced
//!   `retry`, then a `to_pf` `resent`);
//! - FAILURE: the request is done; its error (`GUC_HXG_FAILURE_MSG_0_ERROR`,
//!   15:0) is traced. Refusing is the PF's right: no violation. A refused
//!   handshake leaves the VF without a version (`vf_handshake_with_pf`:
//!   `vf_disconnect_pf`);
//! - SUCCESS: the request is done, and checked by its action:
//!   - `VF2PF_HANDSHAKE` (0x0001; request dword 1 = wanted MAJOR 31:16,
//!     MINOR 15:0): the request must have been {hdr with DATA0 0, version}
//!     (`pf_process_handshake_msg` refuses any other); the answer exactly 2
//!     dwords (`VF2PF_HANDSHAKE_RESPONSE_MSG_LEN`; `relay_action_handshake`:
//!     `-EPROTO`), DATA0 (27:0) 0 (`_MSG_0_MBZ`), the version not 0.0 ("No
//!     supported VF/PF ABI version can be 0.0"; `vf_handshake_with_pf`:
//!     `-ENODATA`); when the VF asked for a version (not 0.0 "any"): that
//!     version not below `GUC_RELAY_VERSION_BASE` 1.0 (`pf_negotiate_version`
//!     refuses it, `-EPERM`) and the answer not newer than it
//!     (`pf_negotiate_version` answers the version wanted, a lower common
//!     minor or its latest when the VF wants a newer major: never above
//!     what was asked). A good answer is the VF's agreed version
//!     (`relay_versions`); a bad one leaves it none;
//!   - `VF2PF_QUERY_RUNTIME` (0x0101; request DATA0 27:16 = LIMIT, dword 1 =
//!     START): the VF must have agreed a 1.x version (the action is ABI
//!     1.0's: `pf_process_runtime_query_msg` refuses it otherwise, `-EACCES`)
//!     and its request been {hdr, START} (`-EMSGSIZE`, `-EPROTO`); the answer
//!     {hdr with DATA0 = COUNT, REMAINING, COUNT (offset, value) pairs}:
//!     at least 2 dwords and an even number after them, COUNT equal to the
//!     pairs (`vf_query_runtime_info`: `-EPROTO`), COUNT at most LIMIT if
//!     LIMIT is not 0 (the VF's buffer holds LIMIT entries:
//!     `relay_handle_reply`, `-ENOBUFS`), START + COUNT + REMAINING =
//!     [`RUNTIME_REGS`]'s length, upstream's list for the platform
//!     (`ats_m_runtime_regs`, graphics 12.55: `pick_runtime_regs`); then
//!     each pair i: the offset [`RUNTIME_REGS`]`[START + i]`'s, the value the
//!     mock's register holds (read without side effects or forcewake,
//!     `RegisterFile::peek`: the VF asks precisely because it cannot read
//!     it). Entries that match are counted
//!     (`relay_runtime_entries_checked`);
//!   - an action in the debug range 0xDEB0..=0xDEFF
//!     (`GUC_RELAY_ACTION_DEBUG_ONLY_*`): taken, not checked (`[MODEL]`:
//!     debug builds only);
//!   - any other action: a violation (ABI 1.0 defines none; upstream's PF
//!     answers FAILURE, `xe_gt_sriov_pf_service_process_request`:
//!     `-EOPNOTSUPP`).
//!
//! A GuC reset, a device reset or a Driver-FLR forgets every VF's relays
//! (what they wait for, their agreed versions), as it forgets the
//! configurations ([`super`]); a VF FLR (`vf:flr:N`, or an accepted
//! `FLR_START` of VF N) forgets VF N's (the VF's driver is reset with it;
//! upstream's PF drops the VF's version, `pf_exit_vf_flr_reset_data`),
//! traced `sriov_relay_forget`. `ct:disable` does not. `[MODEL]` An answer
//! to a request a VF FLR dropped is taken without a violation (traced
//! `stale`) until the PF's accepted `FLR_FINISH` of that VF: the PF may have
//! written it before it learnt of the FLR (upstream's VF only logs such an
//! answer, `relay_handle_reply`); after it, it is an answer to nothing.
//!
//! # Test control
//!
//! - `vf:relay:N:RID:W0,W1,...`: VF N's driver relays the message W (hex,
//!   1..=[`RELAY_MSG_MAX_LEN`] dwords) with relay ID RID (decimal, or `0x`
//!   hex): the GuC sends `GUC2PF_RELAY_FROM_VF` {N, RID, W...} and the VF
//!   waits for the answer. A RID VF N still waits on sends nothing
//!   (`rid_outstanding`: a driver never reuses one, `relay_get_next_rid`);
//! - `vf:relay-raw:N:W0,...`: a `GUC2PF_RELAY_FROM_VF` whose dwords after
//!   the header are exactly W (0..=[`RAW_MAX_LEN`]; `vf:relay-raw:N:` and
//!   `vf:relay-raw:N:N` make a too-short event): a broken GuC, for the PF's
//!   checks; nothing awaited, N only for the trace;
//! - `vf:relay-burst:N:COUNT`: VF N's driver sends COUNT (1..=[`BURST_MAX`])
//!   `VF2PF_HANDSHAKE` requests for version 1.0 ({0x0001, 0x00010000}) at
//!   once, each awaited; RIDs from [`BURST_FIRST_RID`] up, each burst of a
//!   VF continuing where its last one ended (back to [`BURST_FIRST_RID`]
//!   when the VF's relays are forgotten); one still awaited sends nothing
//!   (`rid_outstanding`);
//! - `guc:relay-data0:N`: the next N `GUC2PF_RELAY_FROM_VF`, of any of the
//!   three (and resends), carry DATA0 1 where the ABI says MBZ (a broken
//!   GuC; the VF still waits for its request). A switch: resets keep it, a
//!   second one adds its N.
//!
//! With the CT not enabled, the first three send nothing and the VF waits
//! for nothing (`sriov_inject` `no_channel`).

use std::collections::BTreeMap;
use std::collections::BTreeSet;
use std::time::Duration;

use super::super::g2h_message;
use super::super::inject::event_header;
use super::super::Ct;
use super::Sriov;
use super::BAD;
use super::TOTAL_VFS;
use crate::abi;
use crate::recorder::Recorder;
use crate::regfile::guc::Bus;
use crate::regfile::guc::Guc;
use crate::regs;
use crate::regs::RegDef;
use crate::trace::Event;
use crate::trace::Hex;

/// `XE_GUC_ACTION_GUC2PF_RELAY_FROM_VF` (`abi/guc_actions_sriov_abi.h`).
pub const GUC2PF_RELAY_FROM_VF: u32 = 0x5100;
/// `XE_GUC_ACTION_PF2GUC_RELAY_TO_VF`.
pub const PF2GUC_RELAY_TO_VF: u32 = 0x5101;
/// `GUC_RELAY_MSG_MAX_LEN`: `GUC_CTB_MAX_DWORDS` (255) less
/// `GUC2PF_RELAY_FROM_VF_EVENT_MSG_MIN_LEN` (3).
pub const RELAY_MSG_MAX_LEN: usize = 252;
/// `PF2GUC_RELAY_TO_VF_REQUEST_MSG_MIN_LEN` without the relay message:
/// {hdr, VFID, RELAY_ID}.
const TO_VF_HEADER_LEN: usize = 3;
/// Most dwords after the header of a `vf:relay-raw` event: a CTB HXG
/// message is at most `GUC_CTB_MAX_DWORDS` (255) with its header.
pub const RAW_MAX_LEN: usize = RELAY_MSG_MAX_LEN + 2;
/// Most requests of one `vf:relay-burst`.
pub const BURST_MAX: u32 = 64;
/// The RID of a VF's first burst request.
pub const BURST_FIRST_RID: u32 = 0x1000;
/// `GUC_RELAY_ACTION_VF2PF_HANDSHAKE` (`abi/guc_relay_actions_abi.h`).
pub const VF2PF_HANDSHAKE: u32 = 0x0001;
/// `GUC_RELAY_ACTION_VF2PF_QUERY_RUNTIME`.
pub const VF2PF_QUERY_RUNTIME: u32 = 0x0101;
/// `GUC_RELAY_VERSION_BASE_MAJOR`.`_MINOR`: 1.0.
pub const VERSION_BASE: (u32, u32) = (1, 0);
/// A burst request's dword 1: version 1.0 (`VF2PF_HANDSHAKE_REQUEST_MSG_1_*`).
pub const HANDSHAKE_1_0: u32 = 0x0001_0000;
/// `GUC_RELAY_ACTION_DEBUG_ONLY_START` / `_END`.
const DEBUG_ACTIONS: std::ops::RangeInclusive<u32> = 0xDEB0..=0xDEFF;

/// The violation kind of an answer the VF cannot take.
const VF_BAD: &str = "relay_bad_answer";

/// Upstream's runtime registers for graphics 12.55, in its order
/// (`xe_gt_sriov_pf_service.c` `ats_m_runtime_regs`): what a PF hands a VF
/// for `VF2PF_QUERY_RUNTIME`.
pub const RUNTIME_REGS: [RegDef; 8] = [
    regs::rpm_config0::DEF,
    regs::fuse::MIRROR_FUSE3,
    regs::fuse::MIRROR_FUSE1,
    regs::fuse::XELP_EU_ENABLE,
    regs::fuse::XELP_GT_GEOMETRY_DSS_ENABLE,
    regs::fuse::GT_VEBOX_VDBOX_DISABLE,
    regs::fuse::XEHP_GT_COMPUTE_DSS_ENABLE,
    regs::guc::HUC_KERNEL_LOAD_INFO,
];

/// The VFs' side of the relay (module docs).
#[derive(Debug, Clone, Default)]
pub struct Relay {
    /// Requests the VFs wait an answer to, by (VF, RID): the relay message.
    outstanding: BTreeMap<(u32, u32), Vec<u32>>,
    /// The VF/PF ABI version each VF agreed: (major, minor).
    versions: BTreeMap<u32, (u32, u32)>,
    /// Each VF's next burst RID.
    next_burst: BTreeMap<u32, u32>,
    /// RIDs a VF FLR dropped, by VF, until the PF's `FLR_FINISH` of it.
    stale: BTreeMap<u32, BTreeSet<u32>>,
    /// Relay messages the GuC delivered, for the VF side to take: (VF,
    /// RID, message).
    inbox: Vec<(u32, u32, Vec<u32>)>,
}

impl Relay {
    /// Requests of all VFs waiting for an answer.
    pub fn outstanding(&self) -> u64 {
        // CAST: a map's length.
        self.outstanding.len() as u64
    }

    /// Whether VF `vf` waits for an answer to RID `rid`.
    pub fn waits(&self, vf: u32, rid: u32) -> bool {
        self.outstanding.contains_key(&(vf, rid))
    }

    /// The version VF `vf` agreed, if any.
    pub fn version(&self, vf: u32) -> Option<(u32, u32)> {
        self.versions.get(&vf).copied()
    }
}

/// The trace name of an HXG type (`abi/guc_messages_abi.h`).
fn type_name(ty: u32) -> &'static str {
    match ty {
        abi::hxg::TYPE_REQUEST => "request",
        abi::hxg::TYPE_EVENT => "event",
        abi::hxg::TYPE_FAST_REQUEST => "fast_request",
        abi::hxg::TYPE_NO_RESPONSE_BUSY => "busy",
        abi::hxg::TYPE_NO_RESPONSE_RETRY => "retry",
        abi::hxg::TYPE_RESPONSE_FAILURE => "failure",
        abi::hxg::TYPE_RESPONSE_SUCCESS => "success",
        _ => "undefined",
    }
}

/// One `sriov_relay` trace event, before the VF side's state is added.
#[derive(Debug, Default)]
struct Note {
    vfid: u32,
    rid: Option<u32>,
    dir: &'static str,
    kind: &'static str,
    action: Option<u32>,
    dwords: usize,
    verdict: &'static str,
    matched: bool,
    code: Option<u32>,
    error: Option<u32>,
    configured: Option<bool>,
    data0: bool,
    entries: u32,
}

fn trace(rec: &mut Recorder, r: &Relay, n: Note) {
    rec.emit(Event::SriovRelay {
        vfid: n.vfid,
        rid: n.rid,
        dir: n.dir,
        kind: n.kind,
        action: n.action.map(|a| Hex(a.into())),
        // CAST: at most 255 dwords.
        dwords: n.dwords as u32,
        verdict: n.verdict,
        matched: n.matched,
        code: n.code.map(|c| Hex(c.into())),
        error: n.error.map(|e| Hex(e.into())),
        configured: n.configured,
        data0: n.data0,
        entries: n.entries,
        version: r.version(n.vfid).map(|(a, b)| format!("{a}.{b}")),
        outstanding: r.outstanding(),
    });
}

/// Queues one `GUC2PF_RELAY_FROM_VF` with `body` after its header;
/// whether `guc:relay-data0` set its DATA0.
fn queue(ct: &mut Ct, body: &[u32]) -> bool {
    let sw = &mut ct.sriov.switches;
    let data0 = sw.relay_data0 > 0;
    let mut hdr = event_header(GUC2PF_RELAY_FROM_VF);
    if data0 {
        sw.relay_data0 -= 1;
        hdr |= abi::prep(abi::hxg::REQUEST_DATA0, 1);
    }
    let mut hxg = Vec::with_capacity(1 + body.len());
    hxg.push(hdr);
    hxg.extend_from_slice(body);
    ct.backlog.push_back((g2h_message(0, &hxg), 1));
    data0
}

/// VF `vf` relays request `msg` with `rid` to the PF and waits for the
/// answer.
fn send_request(
    ct: &mut Ct,
    vf: u32,
    rid: u32,
    msg: &[u32],
    verdict: &'static str,
    rec: &mut Recorder,
) {
    let mut body = Vec::with_capacity(2 + msg.len());
    body.extend([vf, rid]);
    body.extend_from_slice(msg);
    let data0 = queue(ct, &body);
    let s = &mut ct.sriov;
    s.relay.outstanding.insert((vf, rid), msg.to_vec());
    if let Some(stale) = s.relay.stale.get_mut(&vf) {
        stale.remove(&rid);
    }
    let h0 = msg.first().copied().unwrap_or(0);
    let note = Note {
        vfid: vf,
        rid: Some(rid),
        dir: "to_pf",
        kind: type_name(abi::field(h0, abi::hxg::TYPE)),
        action: Some(abi::field(h0, abi::hxg::REQUEST_ACTION)),
        dwords: msg.len(),
        verdict,
        configured: Some(s.configs.contains_key(&vf)),
        data0,
        ..Note::default()
    };
    trace(rec, &s.relay, note);
}

/// A VF's own driver relayed {VFID, RELAY_ID, message} over its CT
/// (`ct/vf.rs`): the GuC passes it to the PF. The GuC does not wait for the
/// answer on the driver's behalf: it delivers whatever the PF sends
/// ([`Guc::sriov_relay_deliver`]).
pub(in crate::regfile::guc) fn from_vf_driver(ct: &mut Ct, body: &[u32], rec: &mut Recorder) {
    let data0 = queue(ct, body);
    let (vf, rid, msg) = (body[0], body.get(1).copied(), body.get(2..).unwrap_or(&[]));
    let h0 = msg.first().copied().unwrap_or(0);
    let s = &ct.sriov;
    let note = Note {
        vfid: vf,
        rid,
        dir: "to_pf",
        kind: type_name(abi::field(h0, abi::hxg::TYPE)),
        action: Some(abi::field(h0, abi::hxg::REQUEST_ACTION)),
        dwords: msg.len(),
        verdict: "vf_driver",
        configured: Some(s.configs.contains_key(&vf)),
        data0,
        ..Note::default()
    };
    trace(rec, &s.relay, note);
}

/// `vf:relay:N:RID:W...` (module docs, "Test control").
pub(super) fn relay(
    ct: &mut Ct,
    vf: u32,
    rid: u32,
    msg: &[u32],
    rec: &mut Recorder,
) -> &'static str {
    if ct.sriov.relay.waits(vf, rid) {
        return "rid_outstanding";
    }
    send_request(ct, vf, rid, msg, "queued", rec);
    "queued"
}

/// `vf:relay-raw:N:W...`.
pub(super) fn raw(ct: &mut Ct, vf: u32, words: &[u32], rec: &mut Recorder) -> &'static str {
    let data0 = queue(ct, words);
    let s = &ct.sriov;
    let note = Note {
        vfid: vf,
        dir: "to_pf",
        kind: "raw",
        dwords: words.len(),
        verdict: "raw",
        configured: Some(s.configs.contains_key(&vf)),
        data0,
        ..Note::default()
    };
    trace(rec, &s.relay, note);
    "queued"
}

/// `vf:relay-burst:N:COUNT`.
pub(super) fn burst(ct: &mut Ct, vf: u32, count: u32, rec: &mut Recorder) -> &'static str {
    let r = &ct.sriov.relay;
    let first = r.next_burst.get(&vf).copied().unwrap_or(BURST_FIRST_RID);
    let rids: Vec<u32> = (0..count).map(|i| first.wrapping_add(i)).collect();
    if rids.iter().any(|&rid| r.waits(vf, rid)) {
        return "rid_outstanding";
    }
    let hdr = abi::prep(abi::hxg::REQUEST_ACTION, VF2PF_HANDSHAKE);
    for rid in rids {
        send_request(ct, vf, rid, &[hdr, HANDSHAKE_1_0], "queued", rec);
    }
    ct.sriov
        .relay
        .next_burst
        .insert(vf, first.wrapping_add(count));
    "queued"
}

/// A VF FLR: VF `vf`'s driver forgets its relays (module docs).
pub(super) fn forget_vf(s: &mut Sriov, vf: u32, cause: &'static str, rec: &mut Recorder) {
    let r = &mut s.relay;
    let gone: Vec<u32> = r
        .outstanding
        .keys()
        .filter(|&&(v, _)| v == vf)
        .map(|&(_, rid)| rid)
        .collect();
    for &rid in &gone {
        r.outstanding.remove(&(vf, rid));
    }
    r.stale.entry(vf).or_default().extend(&gone);
    // CAST: at most the map's length.
    let dropped = gone.len() as u64;
    let had_version = r.versions.remove(&vf).is_some();
    r.next_burst.remove(&vf);
    if dropped > 0 || had_version {
        rec.emit(Event::SriovRelayForget {
            vfid: vf,
            cause,
            dropped,
            outstanding: r.outstanding(),
        });
    }
}

/// The PF's accepted `FLR_FINISH` of VF `vf`: answers to what the FLR
/// dropped are answers to nothing from now on (module docs).
pub(super) fn flr_finished(s: &mut Sriov, vf: u32) {
    s.relay.stale.remove(&vf);
}

/// `PF2GUC_RELAY_TO_VF` (module docs): delivers the relay message to the
/// VF side, or refuses it.
pub(super) fn relay_to_vf(ct: &mut Ct, hxg: &[u32], rec: &mut Recorder) -> Result<u32, u32> {
    let vfid = hxg.get(1).copied().unwrap_or(0);
    let rid = hxg.get(2).copied();
    let msg = hxg.get(TO_VF_HEADER_LEN..).unwrap_or(&[]);
    let s = &mut ct.sriov;
    let Some(why) = to_vf_refusal(s, hxg) else {
        s.relay.inbox.push((vfid, rid.unwrap_or(0), msg.to_vec()));
        return Ok(0);
    };
    rec.violation(BAD, format!("PF2GUC_RELAY_TO_VF: {why}"));
    let code = abi::error::INVALID_PARAMS;
    let note = Note {
        vfid,
        rid,
        dir: "to_vf",
        kind: msg
            .first()
            .map_or("none", |&h| type_name(abi::field(h, abi::hxg::TYPE))),
        dwords: msg.len(),
        verdict: "refused",
        code: Some(code),
        ..Note::default()
    };
    trace(rec, &s.relay, note);
    Err(code)
}

/// The GuC's checks of a `PF2GUC_RELAY_TO_VF` (module docs); what is
/// wrong, if anything.
fn to_vf_refusal(s: &Sriov, hxg: &[u32]) -> Option<String> {
    let n = hxg.len();
    if !(TO_VF_HEADER_LEN + 1..=TO_VF_HEADER_LEN + RELAY_MSG_MAX_LEN).contains(&n) {
        return Some(format!(
            "{n} dwords; it is {{hdr, VFID, RELAY_ID, relay message of 1..={RELAY_MSG_MAX_LEN} \
             dwords}}"
        ));
    }
    let h0 = hxg[0];
    let mbz = abi::field(h0, abi::hxg::REQUEST_DATA0);
    if mbz != 0 {
        return Some(format!(
            "header {h0:#x}: DATA0 (27:16) is {mbz:#x}, must be 0"
        ));
    }
    let vfid = hxg[1];
    if vfid == 0 || vfid > TOTAL_VFS {
        return Some(format!("VFID {vfid} is not a VF (1..={TOTAL_VFS})"));
    }
    if !s.configs.contains_key(&vfid) {
        return Some(format!(
            "VF {vfid} has no configuration: the GuC has no such VF to deliver to"
        ));
    }
    None
}

impl Guc {
    /// Whether the GuC delivered relay messages the VF side has not taken
    /// yet ([`Guc::sriov_relay_deliver`]).
    pub fn sriov_relay_pending(&self) -> bool {
        !self.ct.sriov.relay.inbox.is_empty()
    }

    /// The VF side takes what the GuC delivered (module docs, "The VF
    /// side"); `values` holds the runtime registers' values by offset
    /// (`None`: not modelled). What it sends again goes out at once.
    pub fn sriov_relay_deliver(
        &mut self,
        values: &[(u32, Option<u32>)],
        now: Duration,
        rec: &mut Recorder,
        bus: &mut dyn Bus,
    ) {
        let inbox = std::mem::take(&mut self.ct.sriov.relay.inbox);
        let mut resent = false;
        for (vf, rid, msg) in inbox {
            // A VF whose own driver has a CT gets the message there
            // (`GUC2VF_RELAY_FROM_PF`, `ct/vf.rs`); the mock's VF side
            // takes the rest.
            if self.vf_ct_enabled(vf) {
                let mut hxg = Vec::with_capacity(2 + msg.len());
                hxg.push(event_header(super::super::vf::GUC2VF_RELAY_FROM_PF));
                hxg.push(rid);
                hxg.extend_from_slice(&msg);
                if self.vf_send(vf, &hxg, rec, bus) {
                    rec.emit(crate::trace::Event::VfGuest {
                        vf,
                        what: "relay_from_pf",
                    });
                }
                continue;
            }
            resent |= take(&mut self.ct, vf, rid, &msg, values, rec);
        }
        if resent {
            self.ct_service(now, rec, bus);
        }
    }
}

/// VF `vf` takes relay message `msg` with `rid` from the PF; whether it
/// sent its request again (a RETRY).
fn take(
    ct: &mut Ct,
    vf: u32,
    rid: u32,
    msg: &[u32],
    values: &[(u32, Option<u32>)],
    rec: &mut Recorder,
) -> bool {
    let h0 = msg.first().copied().unwrap_or(0);
    let ty = abi::field(h0, abi::hxg::TYPE);
    let mut note = Note {
        vfid: vf,
        rid: Some(rid),
        dir: "to_vf",
        kind: type_name(ty),
        dwords: msg.len(),
        ..Note::default()
    };
    let mut why = Vec::new();
    let mut resend = None;
    let r = &mut ct.sriov.relay;
    use abi::hxg::*;
    if abi::field(h0, ORIGIN) == ORIGIN_GUC {
        why.push(format!(
            "header {h0:#x} is of GuC origin; a relay message is a host driver's \
             (xe_guc_relay.c relay_process_msg: -EPROTO)"
        ));
    } else {
        match ty {
            TYPE_REQUEST | TYPE_FAST_REQUEST | TYPE_EVENT => {
                let action = abi::field(h0, REQUEST_ACTION);
                note.action = Some(action);
                why.push(format!(
                    "a {} (action {action:#06x}) from the PF: VF/PF ABI 1.0 defines no \
                     PF-to-VF action (guc_relay_actions_abi.h) and upstream's VF refuses it \
                     (xe_guc_relay.c relay_action_handler: -EOPNOTSUPP)",
                    type_name(ty)
                ));
            }
            TYPE_RESPONSE_SUCCESS
            | TYPE_RESPONSE_FAILURE
            | TYPE_NO_RESPONSE_BUSY
            | TYPE_NO_RESPONSE_RETRY => match r.outstanding.get(&(vf, rid)).cloned() {
                None if r.stale.get_mut(&vf).is_some_and(|s| s.remove(&rid)) => {
                    note.verdict = "stale";
                }
                None => {
                    note.verdict = "unknown_rid";
                    why.push(format!(
                        "answer to a relay the VF never sent: VF {vf} waits for no RID \
                         {rid:#x} (a second answer included; xe_guc_relay.c \
                         relay_handle_reply: -ESRCH)"
                    ));
                }
                Some(req) => {
                    note.matched = true;
                    let action = abi::field(req.first().copied().unwrap_or(0), REQUEST_ACTION);
                    note.action = Some(action);
                    match ty {
                        TYPE_NO_RESPONSE_BUSY => note.verdict = "busy",
                        TYPE_NO_RESPONSE_RETRY => {
                            note.verdict = "retry";
                            resend = Some(req);
                        }
                        TYPE_RESPONSE_FAILURE => {
                            r.outstanding.remove(&(vf, rid));
                            note.verdict = "failure";
                            note.error = Some(abi::field(h0, FAILURE_ERROR));
                            if action == VF2PF_HANDSHAKE {
                                r.versions.remove(&vf);
                            }
                        }
                        _ => {
                            r.outstanding.remove(&(vf, rid));
                            match action {
                                VF2PF_HANDSHAKE => match handshake(&req, msg) {
                                    Ok(v) => {
                                        r.versions.insert(vf, v);
                                    }
                                    Err(w) => {
                                        r.versions.remove(&vf);
                                        why.push(w);
                                    }
                                },
                                VF2PF_QUERY_RUNTIME => {
                                    let version = r.version(vf);
                                    let (entries, w) = runtime(vf, version, &req, msg, values);
                                    note.entries = entries;
                                    why.extend(w);
                                }
                                a if DEBUG_ACTIONS.contains(&a) => {}
                                a => why.push(format!(
                                    "SUCCESS to action {a:#06x}, which VF/PF ABI 1.0 does not \
                                     define (guc_relay_actions_abi.h); upstream's PF answers it \
                                     FAILURE (xe_gt_sriov_pf_service.c \
                                     xe_gt_sriov_pf_service_process_request: -EOPNOTSUPP)"
                                )),
                            }
                        }
                    }
                }
            },
            _ => why.push(format!(
                "header {h0:#x}: type {ty} is no HXG type (xe_guc_relay.c relay_process_msg: \
                 -EBADRQC)"
            )),
        }
    }
    if note.verdict.is_empty() {
        note.verdict = if why.is_empty() { "ok" } else { "bad" };
    }
    for w in why {
        rec.violation(
            VF_BAD,
            format!("PF2GUC_RELAY_TO_VF to VF {vf}, RID {rid:#x}: {w}"),
        );
    }
    trace(rec, &ct.sriov.relay, note);
    match resend {
        Some(req) => {
            send_request(ct, vf, rid, &req, "resent", rec);
            true
        }
        None => false,
    }
}

/// A SUCCESS to `VF2PF_HANDSHAKE` request `req` (module docs): the agreed
/// version, or what is wrong.
fn handshake(req: &[u32], msg: &[u32]) -> Result<(u32, u32), String> {
    let r0 = req.first().copied().unwrap_or(0);
    let mbz = abi::field(r0, abi::hxg::REQUEST_DATA0);
    let &[_, wanted] = req else {
        return Err(format!(
            "SUCCESS to a VF2PF_HANDSHAKE of {} dwords: upstream's PF refuses any but {{hdr, \
             version}} (xe_gt_sriov_pf_service.c pf_process_handshake_msg: -EMSGSIZE)",
            req.len()
        ));
    };
    if mbz != 0 {
        return Err(format!(
            "SUCCESS to a VF2PF_HANDSHAKE with DATA0 {mbz:#x}: upstream's PF refuses it \
             (xe_gt_sriov_pf_service.c pf_process_handshake_msg: -EPFNOSUPPORT)"
        ));
    }
    let &[m0, m1] = msg else {
        return Err(format!(
            "VF2PF_HANDSHAKE answered with {} dwords; the answer is {{hdr, version}}, 2 \
             (VF2PF_HANDSHAKE_RESPONSE_MSG_LEN; xe_gt_sriov_vf.c relay_action_handshake: \
             -EPROTO)",
            msg.len()
        ));
    };
    let data0 = abi::field(m0, abi::hxg::AUX);
    if data0 != 0 {
        return Err(format!(
            "VF2PF_HANDSHAKE answer {m0:#x}: DATA0 (27:0) is {data0:#x}, must be 0 \
             (VF2PF_HANDSHAKE_RESPONSE_MSG_0_MBZ; xe_gt_sriov_vf.c relay_action_handshake: \
             -EPROTO)"
        ));
    }
    let got = (m1 >> 16, m1 & 0xFFFF);
    let want = (wanted >> 16, wanted & 0xFFFF);
    if got == (0, 0) {
        return Err(
            "VF2PF_HANDSHAKE answered version 0.0: no VF/PF ABI version is 0.0 \
             (guc_relay_actions_abi.h; xe_gt_sriov_vf.c vf_handshake_with_pf: -ENODATA)"
                .into(),
        );
    }
    if want != (0, 0) && want < VERSION_BASE {
        return Err(format!(
            "SUCCESS to a VF2PF_HANDSHAKE for {}.{}, below GUC_RELAY_VERSION_BASE 1.0: \
             upstream's PF refuses it (xe_sriov_pf_service.c pf_negotiate_version: -EPERM)",
            want.0, want.1
        ));
    }
    if want != (0, 0) && got > want {
        return Err(format!(
            "VF2PF_HANDSHAKE answered {}.{}, newer than the {}.{} the VF asked for \
             (xe_sriov_pf_service.c pf_negotiate_version never answers above the version \
             wanted)",
            got.0, got.1, want.0, want.1
        ));
    }
    Ok(got)
}

/// A SUCCESS to `VF2PF_QUERY_RUNTIME` request `req` of VF `vf`, which
/// agreed `version` (module docs): the entries that matched, and what is
/// wrong.
fn runtime(
    vf: u32,
    version: Option<(u32, u32)>,
    req: &[u32],
    msg: &[u32],
    values: &[(u32, Option<u32>)],
) -> (u32, Vec<String>) {
    let fail = |w: String| (0, vec![w]);
    if !matches!(version, Some((1, _))) {
        let v = version.map_or("no".into(), |(a, b)| format!("version {a}.{b} of the"));
        return fail(format!(
            "SUCCESS to a VF2PF_QUERY_RUNTIME while VF {vf} agreed {v} VF/PF ABI: the action \
             is ABI 1.0's and upstream's PF refuses it before a handshake to 1.x \
             (xe_gt_sriov_pf_service.c pf_process_runtime_query_msg: -EACCES)"
        ));
    }
    let &[r0, start] = req else {
        return fail(format!(
            "SUCCESS to a VF2PF_QUERY_RUNTIME of {} dwords: upstream's PF refuses any but \
             {{hdr, START}} (xe_gt_sriov_pf_service.c pf_process_runtime_query_msg: \
             -EMSGSIZE, -EPROTO)",
            req.len()
        ));
    };
    let limit = abi::field(r0, abi::hxg::REQUEST_DATA0);
    let pairs = msg.len().checked_sub(2).filter(|n| n % 2 == 0);
    let (Some(pairs), Some(&m0), Some(&remaining)) = (pairs, msg.first(), msg.get(1)) else {
        return fail(format!(
            "VF2PF_QUERY_RUNTIME answered with {} dwords; it is {{hdr, REMAINING}} and \
             (offset, value) pairs (VF2PF_QUERY_RUNTIME_RESPONSE_MSG_MIN_LEN; \
             xe_gt_sriov_vf.c vf_query_runtime_info: -EPROTO)",
            msg.len()
        ));
    };
    let pairs = pairs / 2;
    let count = abi::field(m0, abi::hxg::AUX);
    if usize::try_from(count).ok() != Some(pairs) {
        return fail(format!(
            "VF2PF_QUERY_RUNTIME answer: COUNT (DATA0) is {count} but {pairs} entries follow \
             (xe_gt_sriov_vf.c vf_query_runtime_info: -EPROTO)"
        ));
    }
    if limit != 0 && count > limit {
        return fail(format!(
            "VF2PF_QUERY_RUNTIME answer: COUNT {count} is above the LIMIT {limit} the VF asked \
             for (VF2PF_QUERY_RUNTIME_REQUEST_MSG_0_LIMIT; the VF's buffer holds LIMIT \
             entries, xe_guc_relay.c relay_handle_reply: -ENOBUFS)"
        ));
    }
    let total = RUNTIME_REGS.len() as u64;
    if u64::from(start) + u64::from(count) + u64::from(remaining) != total {
        return fail(format!(
            "VF2PF_QUERY_RUNTIME answer: START {start} + COUNT {count} + REMAINING \
             {remaining} is not {total}, the length of upstream's list for the platform \
             (xe_gt_sriov_pf_service.c ats_m_runtime_regs)"
        ));
    }
    let mut matched = 0;
    let mut why = Vec::new();
    for (i, pair) in msg[2..].chunks_exact(2).enumerate() {
        let at = start as usize + i;
        let (reg, val) = (pair[0], pair[1]);
        let want = &RUNTIME_REGS[at];
        if reg != want.offset {
            why.push(format!(
                "runtime entry {at}: register {reg:#x}; upstream's list has {} ({:#x}) there \
                 (xe_gt_sriov_pf_service.c ats_m_runtime_regs)",
                want.name, want.offset
            ));
            continue;
        }
        let holds = values.iter().find(|(o, _)| *o == reg).and_then(|&(_, v)| v);
        match holds {
            Some(v) if v == val => matched += 1,
            Some(v) => why.push(format!(
                "runtime value of {} ({reg:#x}): PF said {val:#x}, the register holds {v:#x}",
                want.name
            )),
            // Every register of the list is modelled (tested): nothing to
            // compare with.
            None => {}
        }
    }
    (matched, why)
}
