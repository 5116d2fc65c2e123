// SPDX-License-Identifier: GPL-2.0

//! The PF's service to VF drivers over the GuC relay: what one relay message from a VF is
//! answered with.
//!
//! A VF's driver cannot reach the PF directly. It sends an HXG message to the GuC
//! (`VF2GUC_RELAY_TO_PF`), the GuC hands it to the PF with the VF's number
//! (`GUC2PF_RELAY_FROM_VF`), and the PF answers through the GuC (`PF2GUC_RELAY_TO_VF`),
//! matched by a relay ID (upstream `abi/guc_relay_communication_abi.h`). Upstream's VF driver
//! starts its probe with two requests (`xe_gt_sriov_vf.c`): `VF2PF_HANDSHAKE`, which agrees on
//! the relay ABI's version, and `VF2PF_QUERY_RUNTIME`, which reads the values of registers a
//! VF cannot read itself, from a list the PF keeps per platform (`abi/guc_relay_actions_abi.h`;
//! the PF side is `xe_gt_sriov_pf_service.c` and `xe_sriov_pf_service.c`). The PRM does not
//! describe the relay; upstream is the only source.
//!
//! [`serve`] is the whole service and does no I/O: the PF's work item (`pf/relays.rs`) sends
//! what it returns. VFs are untrusted: every field is checked, and an answer is never longer
//! than the buffer it is given.

use kernel::prelude::*;

use crate::{
    abi::*,
    guc::{Hxg, RelayMsg, RELAY_REPLY_MAX},
};

/// A relay ABI version, ordered major first.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Version {
    pub(crate) major: u16,
    pub(crate) minor: u16,
}

/// The oldest version the PF accepts (`GUC_RELAY_VERSION_BASE_*`).
pub(crate) const BASE: Version = Version {
    // CAST: the ABI header's 1 and 0.
    major: XEHPG_RELAY_VERSION_BASE_MAJOR as u16,
    minor: XEHPG_RELAY_VERSION_BASE_MINOR as u16,
};

/// The newest version the PF speaks (`GUC_RELAY_VERSION_LATEST_*`).
pub(crate) const LATEST: Version = Version {
    // CAST: the ABI header's 1 and 0.
    major: XEHPG_RELAY_VERSION_LATEST_MAJOR as u16,
    minor: XEHPG_RELAY_VERSION_LATEST_MINOR as u16,
};

/// The registers a VF of a Xe-HPG part (graphics 12.55: ATS-M, and DG2, which has no VFs)
/// reads through `VF2PF_QUERY_RUNTIME`, in upstream's order (`xe_gt_sriov_pf_service.c`
/// `ats_m_runtime_regs`): `RPM_CONFIG0`, `MIRROR_FUSE3`, `MIRROR_FUSE1`, `XELP_EU_ENABLE`,
/// `XELP_GT_GEOMETRY_DSS_ENABLE`, `GT_VEBOX_VDBOX_DISABLE`, `XEHP_GT_COMPUTE_DSS_ENABLE`,
/// `HUC_KERNEL_LOAD_INFO`. The PF reads their values once the GT is up.
pub(crate) const RUNTIME_REGS: [u32; 8] = [
    0x0d00, 0x9118, 0x911c, 0x9134, 0x913c, 0x9140, 0x9144, 0xc1dc,
];

/// The longest relay message (`GUC_RELAY_MSG_MAX_LEN`): a CT message less the event's header,
/// VF number and relay ID.
pub(crate) const MSG_MAX_DWORDS: usize = XEHPG_GUC_RELAY_MSG_MAX_DWORDS as usize;

/// A request of `VF2PF_HANDSHAKE`: the header and the wanted version.
const HANDSHAKE_DWORDS: usize = 2;
/// A request of `VF2PF_QUERY_RUNTIME`: the header (DATA0: the most entries wanted, 0 for no
/// limit) and the index of the first.
const QUERY_DWORDS: usize = 2;
/// An answer to `VF2PF_QUERY_RUNTIME` before its entries: the header (DATA0: the count) and
/// the entries left after these.
const QUERY_ANSWER_DWORDS: usize = 2;

// The longest answer, to the whole runtime list, fits what the PF relays.
const _: () = assert!(QUERY_ANSWER_DWORDS + 2 * RUNTIME_REGS.len() <= RELAY_REPLY_MAX);

/// Why a message gets no answer but an error, or no answer at all. `errno` is what upstream's
/// PF passes as the relay error (`xe_guc_relay.c` `to_relay_error`: relay errors are errno
/// values); like upstream's production build (`sanitize_relay_error`), the VF is told only
/// "undisclosed", and the PF logs and counts the reason.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Refusal {
    pub(crate) errno: u32,
    pub(crate) why: &'static str,
}

/// What to do with one relay message.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Answer {
    /// Send the first `n` dwords of the buffer [`serve`] was given.
    Reply(usize),
    /// Send a RESPONSE_FAILURE ([`failure`]); upstream answers every request it cannot serve.
    Refuse(Refusal),
    /// Send nothing: a reply to a request the PF never made, or a message that is not an HXG
    /// request (upstream `relay_process_msg` drops these with a notice).
    Drop(Refusal),
}

/// The RESPONSE_FAILURE sent for a refusal: error and hint undisclosed, as upstream's
/// production build sends them (`sanitize_relay_error`, `sanitize_relay_error_hint`).
pub(crate) fn failure() -> u32 {
    Hxg::failure(XEHPG_RELAY_ERROR_UNDISCLOSED, 0).into_raw()
}

fn refuse(errno: Error, why: &'static str) -> Answer {
    Answer::Refuse(Refusal {
        // CAST: errno values are small positive numbers.
        errno: errno.to_errno().unsigned_abs(),
        why,
    })
}

fn drop_msg(errno: Error, why: &'static str) -> Answer {
    Answer::Drop(Refusal {
        // CAST: as in `refuse`.
        errno: errno.to_errno().unsigned_abs(),
        why,
    })
}

/// Answers one relay message `msg` from a VF whose agreed version is `agreed` (`None` before
/// a handshake; a handshake sets it, a failed one clears it, as upstream's `pf_connect` and
/// `pf_disconnect`), with `runtime` the values of [`RUNTIME_REGS`], writing the answer into
/// `out`. Any context: no allocation, no lock.
pub(crate) fn serve(
    msg: &RelayMsg,
    agreed: &mut Option<Version>,
    runtime: &[u32; RUNTIME_REGS.len()],
    out: &mut [u32],
) -> Answer {
    // Upstream `relay_process_msg`: an HXG message from a host, of an action type.
    let Some(&dw0) = msg.head().first() else {
        return drop_msg(EPROTO, "empty message");
    };
    if msg.len() > MSG_MAX_DWORDS {
        return drop_msg(EMSGSIZE, "longer than a relay message");
    }
    let hdr = Hxg::from_raw(dw0);
    if hdr.from_guc() {
        return drop_msg(EPROTO, "origin is not a host");
    }
    match hdr.kind().get() {
        XEHPG_HXG_TYPE_REQUEST => {}
        // Upstream queues these as actions, and its PF serves only requests
        // (`relay_action_handler`: anything else is -EOPNOTSUPP, answered as a failure).
        XEHPG_HXG_TYPE_EVENT | XEHPG_HXG_TYPE_FAST_REQUEST => {
            return refuse(EOPNOTSUPP, "not a request");
        }
        // Answers to the PF: it never asks a VF anything, so there is nothing they answer.
        XEHPG_HXG_TYPE_RESPONSE_SUCCESS
        | XEHPG_HXG_TYPE_RESPONSE_FAILURE
        | XEHPG_HXG_TYPE_NO_RESPONSE_BUSY
        | XEHPG_HXG_TYPE_NO_RESPONSE_RETRY => {
            return drop_msg(ESRCH, "a reply to no request of the PF");
        }
        _ => return drop_msg(EBADRQC, "unknown message type"),
    }
    let req = hdr.as_request();
    match req.action().get() {
        XEHPG_RELAY_ACTION_VF2PF_HANDSHAKE => handshake(msg, req.data0().get(), agreed, out),
        XEHPG_RELAY_ACTION_VF2PF_QUERY_RUNTIME => {
            query_runtime(msg, req.data0().get(), *agreed, runtime, out)
        }
        _ => refuse(EOPNOTSUPP, "unknown action"),
    }
}

/// `VF2PF_HANDSHAKE` (upstream `pf_process_handshake_msg`, `pf_negotiate_version`).
fn handshake(msg: &RelayMsg, mbz: u32, agreed: &mut Option<Version>, out: &mut [u32]) -> Answer {
    if msg.len() != HANDSHAKE_DWORDS {
        return refuse(EMSGSIZE, "handshake of the wrong length");
    }
    if mbz != 0 {
        return refuse(EPFNOSUPPORT, "handshake with DATA0 set");
    }
    let wanted = msg.head().get(1).copied().unwrap_or(0);
    // CAST: the two 16-bit halves.
    let (major, minor) = ((wanted >> 16) as u16, wanted as u16);
    let wanted = Version { major, minor };
    let got = if major == 0 && minor == 0 {
        // The VF takes any: the latest.
        Ok(LATEST)
    } else if major > LATEST.major {
        Ok(LATEST)
    } else if wanted < BASE {
        Err((EPERM, "handshake for a version older than the base"))
    } else if major < LATEST.major {
        // An older major the PF would still have to speak: there is none (base and latest
        // share a major), as upstream's -ENOPKG.
        Err((ENOPKG, "handshake for an older major"))
    } else {
        // The latest's major: the common minor.
        Ok(wanted.min(LATEST))
    };
    match got {
        Ok(v) => {
            let [a, b, ..] = out else {
                return refuse(EINVAL, "no room for the answer");
            };
            *a = Hxg::success(0).into_raw();
            *b = (u32::from(v.major) << 16) | u32::from(v.minor);
            *agreed = Some(v);
            Answer::Reply(HANDSHAKE_DWORDS)
        }
        Err((e, why)) => {
            *agreed = None;
            refuse(e, why)
        }
    }
}

/// `VF2PF_QUERY_RUNTIME` (upstream `pf_process_runtime_query_msg`, `pf_service_runtime_query`):
/// entries from `start`, at most `limit` of them (0: as many as fit), each the register's
/// offset and value.
fn query_runtime(
    msg: &RelayMsg,
    limit: u32,
    agreed: Option<Version>,
    runtime: &[u32; RUNTIME_REGS.len()],
    out: &mut [u32],
) -> Answer {
    // Available from 1.0.
    if !matches!(agreed, Some(v) if v.major >= 1) {
        return refuse(EACCES, "query before a handshake");
    }
    if msg.len() > QUERY_DWORDS {
        return refuse(EMSGSIZE, "query too long");
    }
    if msg.len() < QUERY_DWORDS {
        return refuse(EPROTO, "query too short");
    }
    let room = out.len().min(MSG_MAX_DWORDS);
    let Some(fit) = room.checked_sub(QUERY_ANSWER_DWORDS).map(|r| r / 2) else {
        return refuse(EINVAL, "no room for the answer");
    };
    let Ok(start) = usize::try_from(msg.head().get(1).copied().unwrap_or(0)) else {
        return refuse(ERANGE, "query past the list");
    };
    let Some(left) = RUNTIME_REGS.len().checked_sub(start) else {
        return refuse(ERANGE, "query past the list");
    };
    let want = match usize::try_from(limit) {
        Ok(0) | Err(_) => fit,
        Ok(n) => n.min(fit),
    };
    let count = left.min(want);
    let entries = RUNTIME_REGS.iter().zip(runtime).skip(start).take(count);
    for (i, (&reg, &value)) in entries.enumerate() {
        let at = QUERY_ANSWER_DWORDS + 2 * i;
        if let Some([o, v]) = out.get_mut(at..at + 2) {
            *o = reg;
            *v = value;
        }
    }
    if let [a, b, ..] = out {
        // CAST: at most 8 entries.
        *a = Hxg::success(count as u32).into_raw();
        *b = (left - count) as u32;
    }
    Answer::Reply(QUERY_ANSWER_DWORDS + 2 * count)
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_sriov_relay)]
mod tests {
    use super::*;

    /// A host REQUEST header for relay `action` with DATA0 `data0` (upstream's layout: type 0
    /// in bits 30:28, DATA0 in 27:16, the action in 15:0).
    fn req(action: u32, data0: u32) -> u32 {
        (data0 << 16) | action
    }

    fn m(dwords: &[u32]) -> RelayMsg {
        RelayMsg::new(dwords)
    }

    const RT: [u32; 8] = [10, 11, 12, 13, 14, 15, 16, 17];

    #[test]
    fn handshake_agrees_on_1_0_as_upstream() {
        let mut out = [0u32; 8];
        let mut agreed = None;
        // Any version: the latest, 1.0; RESPONSE_SUCCESS is type 7 from a host.
        let a = serve(&m(&[req(1, 0), 0]), &mut agreed, &RT, &mut out);
        assert_eq!(a, Answer::Reply(2));
        assert_eq!(out[..2], [0x7000_0000, 0x0001_0000]);
        assert_eq!(agreed, Some(Version { major: 1, minor: 0 }));
        // A newer major gets the latest; 1.5 gets 1.0 (the common minor).
        assert_eq!(
            serve(&m(&[req(1, 0), 2 << 16]), &mut agreed, &RT, &mut out),
            Answer::Reply(2)
        );
        assert_eq!(out[1], 0x0001_0000);
        assert_eq!(
            serve(&m(&[req(1, 0), (1 << 16) | 5]), &mut agreed, &RT, &mut out),
            Answer::Reply(2)
        );
        assert_eq!(out[1], 0x0001_0000);
    }

    #[test]
    fn a_bad_handshake_is_refused_and_disconnects() {
        let mut out = [0u32; 8];
        let mut agreed = Some(LATEST);
        // 0.1 is older than the base: EPERM, and the VF is no longer connected.
        let a = serve(&m(&[req(1, 0), 1]), &mut agreed, &RT, &mut out);
        assert!(matches!(a, Answer::Refuse(Refusal { errno: 1, .. })));
        assert_eq!(agreed, None);
        // Wrong length, DATA0 set.
        let a = serve(&m(&[req(1, 0), 0, 0]), &mut agreed, &RT, &mut out);
        assert!(matches!(a, Answer::Refuse(Refusal { errno: 90, .. })));
        let a = serve(&m(&[req(1, 3), 0]), &mut agreed, &RT, &mut out);
        assert!(matches!(a, Answer::Refuse(Refusal { errno: 96, .. })));
        // The failure sent: RESPONSE_FAILURE (type 6), error and hint 0.
        assert_eq!(failure(), 0x6000_0000);
    }

    #[test]
    fn query_runtime_pages_through_the_list() {
        let mut out = [0u32; 64];
        let mut agreed = None;
        // Not before a handshake.
        let a = serve(&m(&[req(0x101, 0), 0]), &mut agreed, &RT, &mut out);
        assert!(matches!(a, Answer::Refuse(Refusal { errno: 13, .. })));
        agreed = Some(LATEST);
        // Everything: 8 entries, none left.
        assert_eq!(
            serve(&m(&[req(0x101, 0), 0]), &mut agreed, &RT, &mut out),
            Answer::Reply(18)
        );
        assert_eq!(out[..4], [0x7000_0008, 0, 0x0d00, 10]);
        assert_eq!(out[16..18], [0xc1dc, 17]);
        // Three from the sixth: 0x9140, 0x9144, 0xc1dc, none left; two from the first: six
        // left.
        assert_eq!(
            serve(&m(&[req(0x101, 3), 5]), &mut agreed, &RT, &mut out),
            Answer::Reply(8)
        );
        assert_eq!(out[..4], [0x7000_0003, 0, 0x9140, 15]);
        assert_eq!(
            serve(&m(&[req(0x101, 2), 0]), &mut agreed, &RT, &mut out),
            Answer::Reply(6)
        );
        assert_eq!(out[..2], [0x7000_0002, 6]);
        // From the end: none, none left; past it: ERANGE.
        assert_eq!(
            serve(&m(&[req(0x101, 0), 8]), &mut agreed, &RT, &mut out),
            Answer::Reply(2)
        );
        assert_eq!(out[..2], [0x7000_0000, 0]);
        let a = serve(&m(&[req(0x101, 0), 9]), &mut agreed, &RT, &mut out);
        assert!(matches!(a, Answer::Refuse(Refusal { errno: 34, .. })));
        // A small buffer limits the count, never overflows.
        let mut small = [0u32; 5];
        assert_eq!(
            serve(&m(&[req(0x101, 0), 0]), &mut agreed, &RT, &mut small),
            Answer::Reply(4)
        );
        assert_eq!(small, [0x7000_0001, 7, 0x0d00, 10, 0]);
        // Lengths.
        let a = serve(&m(&[req(0x101, 0)]), &mut agreed, &RT, &mut out);
        assert!(matches!(a, Answer::Refuse(Refusal { errno: 71, .. })));
        let a = serve(&m(&[req(0x101, 0), 0, 0]), &mut agreed, &RT, &mut out);
        assert!(matches!(a, Answer::Refuse(Refusal { errno: 90, .. })));
    }

    #[test]
    fn what_is_not_a_served_request_is_refused_or_dropped() {
        let mut out = [0u32; 8];
        let mut agreed = Some(LATEST);
        // An unknown action is refused; so are an EVENT and a FAST_REQUEST.
        let a = serve(&m(&[req(0x7777, 0)]), &mut agreed, &RT, &mut out);
        assert!(matches!(a, Answer::Refuse(Refusal { errno: 95, .. })));
        let a = serve(&m(&[(1 << 28) | 1, 0]), &mut agreed, &RT, &mut out);
        assert!(matches!(a, Answer::Refuse(_)));
        let a = serve(&m(&[(2 << 28) | 1, 0]), &mut agreed, &RT, &mut out);
        assert!(matches!(a, Answer::Refuse(_)));
        // Replies, a GuC origin, an unknown type, nothing, too long: no answer.
        assert!(matches!(
            serve(&m(&[0x7000_0000]), &mut agreed, &RT, &mut out),
            Answer::Drop(_)
        ));
        assert!(matches!(
            serve(&m(&[(1 << 31) | 1, 0]), &mut agreed, &RT, &mut out),
            Answer::Drop(_)
        ));
        assert!(matches!(
            serve(&m(&[4 << 28]), &mut agreed, &RT, &mut out),
            Answer::Drop(_)
        ));
        assert!(matches!(
            serve(&m(&[]), &mut agreed, &RT, &mut out),
            Answer::Drop(_)
        ));
        let long = [0u32; MSG_MAX_DWORDS + 1];
        assert!(matches!(
            serve(&m(&long), &mut agreed, &RT, &mut out),
            Answer::Drop(_)
        ));
        // None of these touched the agreed version.
        assert_eq!(agreed, Some(LATEST));
    }

    #[test]
    fn the_list_is_upstreams_for_ats_m() {
        // `ats_m_runtime_regs`, and one value per register.
        assert_eq!(RUNTIME_REGS.len(), 8);
        assert_eq!(RUNTIME_REGS[0], 0x0d00);
        assert_eq!(RUNTIME_REGS[7], 0xc1dc);
        assert_eq!(MSG_MAX_DWORDS, 255 - 3);
    }
}
