// SPDX-License-Identifier: GPL-2.0

//! The CT's wire words: the CTB message header that precedes every HXG message in a ring, the
//! fence numbering, and the decoding of what the GuC writes into G2H (upstream
//! `abi/guc_communication_ctb_abi.h`, `abi/guc_messages_abi.h`; `xe_guc_ct.c` `h2g_write`,
//! `g2h_read`).
//!
//! Everything the GuC writes is untrusted: [`parse`] turns a message copied out of the ring
//! into a [`G2h`] or says why it is malformed, and never indexes past the copy.

use kernel::{bitfield, num::Bounded};

use crate::{abi::*, guc::hxg::Hxg};

bitfield! {
    /// Dword 0 of a ring message.
    pub(crate) struct CtbHeader(u32) {
        /// Matches a response to its request; see [`Fences`].
        31:16 fence;
        /// 0: an HXG message follows.
        15:12 format;
        /// Dwords of the HXG message after this header.
        7:0 num_dwords;
    }
}

const _: () = {
    assert!(CtbHeader::FENCE_SHIFT == XEHPG_CTB_FENCE_SHIFT);
    assert!(CtbHeader::FORMAT_SHIFT == XEHPG_CTB_FORMAT_SHIFT);
    assert!(CtbHeader::NUM_DWORDS_MASK == XEHPG_CTB_NUM_DWORDS_MASK);
    assert!(XEHPG_CTB_MSG_MAX_DWORDS == XEHPG_CTB_NUM_DWORDS_MASK + 1);
};

/// Longest ring message, header included.
pub(crate) const MSG_MAX: usize = XEHPG_CTB_MSG_MAX_DWORDS as usize;

impl CtbHeader {
    /// The header of an HXG message of `len` dwords (at most 255) with `fence`.
    pub(crate) fn hxg(fence: u16, len: u8) -> Self {
        Self::from_raw(0)
            .with_fence(Bounded::<u32, 16>::from_expr(u32::from(fence)))
            .with_format(Bounded::<u32, 4>::from_expr(XEHPG_CTB_FORMAT_HXG))
            .with_num_dwords(Bounded::<u32, 8>::from_expr(u32::from(len)))
    }

    /// The fence as sent.
    pub(crate) fn fence16(self) -> u16 {
        // CAST: a 16-bit field.
        self.fence().get() as u16
    }
}

/// Fence bit 15: set on fire-and-forget messages, so a reply to one (only a FAILURE may come)
/// is told apart from the reply to a request somebody waits for (upstream
/// `CT_SEQNO_UNTRACKED`, `xe_guc_ct.c`).
pub(crate) const UNTRACKED: u16 = 1 << 15;

/// The rolling fence counter: 15 bits, the 16th says whether anyone waits (`CT_SEQNO_MASK`).
#[derive(Copy, Clone, Debug, Default)]
pub(crate) struct Fences(u16);

impl Fences {
    /// The next fence, tracked (a REQUEST) or not (a FAST_REQUEST).
    pub(crate) fn next(&mut self, tracked: bool) -> u16 {
        let seq = self.0 & !UNTRACKED;
        self.0 = seq.wrapping_add(1) & !UNTRACKED;
        if tracked {
            seq
        } else {
            seq | UNTRACKED
        }
    }
}

/// A reply to a host request.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Response {
    /// RESPONSE_SUCCESS and its DATA0 (a longer response's extra dwords are not used by any
    /// request the driver makes).
    Success(u32),
    /// RESPONSE_FAILURE: the GuC refused the request.
    Failure { error: u32, hint: u32 },
    /// NO_RESPONSE_BUSY: the request is being worked on; the final reply comes later.
    Busy,
    /// NO_RESPONSE_RETRY: the request was dropped and must be sent again.
    Retry,
}

impl Response {
    /// The HXG type the reply came as.
    pub(crate) fn hxg_type(self) -> u32 {
        match self {
            Response::Success(_) => XEHPG_HXG_TYPE_RESPONSE_SUCCESS,
            Response::Failure { .. } => XEHPG_HXG_TYPE_RESPONSE_FAILURE,
            Response::Busy => XEHPG_HXG_TYPE_NO_RESPONSE_BUSY,
            Response::Retry => XEHPG_HXG_TYPE_NO_RESPONSE_RETRY,
        }
    }
}

/// One decoded G2H message.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum G2h<'a> {
    /// An unsolicited EVENT: action, DATA0 and the dwords after the HXG header.
    Event {
        action: u32,
        data0: u32,
        payload: &'a [u32],
    },
    /// A reply to the request with `fence`.
    Reply { fence: u16, response: Response },
}

/// Why a G2H message cannot be used. Its length was sound, so the ring stays in step: the
/// message is counted, logged and skipped.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Malformed {
    /// NUM_DWORDS 0: a CTB header with no HXG message.
    Empty,
    /// FORMAT other than HXG.
    Format(u32),
    /// The HXG origin bit says host.
    FromHost,
    /// A REQUEST or FAST_REQUEST from the GuC, or a reserved type.
    Kind(u32),
}

impl Malformed {
    /// For the log.
    pub(crate) fn why(self) -> &'static str {
        match self {
            Malformed::Empty => "no HXG message",
            Malformed::Format(_) => "not HXG format",
            Malformed::FromHost => "host origin",
            Malformed::Kind(_) => "a message type the GuC does not send",
        }
    }
}

/// Decodes `msg`, a whole ring message (CTB header first) copied out of G2H.
pub(crate) fn parse(msg: &[u32]) -> Result<G2h<'_>, Malformed> {
    let Some((&ctb, hxg)) = msg.split_first() else {
        return Err(Malformed::Empty);
    };
    let ctb = CtbHeader::from_raw(ctb);
    let Some((&h0, payload)) = hxg.split_first() else {
        return Err(Malformed::Empty);
    };
    if ctb.format().get() != XEHPG_CTB_FORMAT_HXG {
        return Err(Malformed::Format(ctb.format().get()));
    }
    let h = Hxg::from_raw(h0);
    if !h.from_guc() {
        return Err(Malformed::FromHost);
    }
    let fence = ctb.fence16();
    let response = match h.kind().get() {
        XEHPG_HXG_TYPE_EVENT => {
            let r = h.as_request();
            return Ok(G2h::Event {
                action: r.action().get(),
                data0: r.data0().get(),
                payload,
            });
        }
        XEHPG_HXG_TYPE_RESPONSE_SUCCESS => Response::Success(h.aux().get()),
        XEHPG_HXG_TYPE_RESPONSE_FAILURE => Response::Failure {
            error: h.as_failure().error().get(),
            hint: h.as_failure().hint().get(),
        },
        XEHPG_HXG_TYPE_NO_RESPONSE_BUSY => Response::Busy,
        XEHPG_HXG_TYPE_NO_RESPONSE_RETRY => Response::Retry,
        other => return Err(Malformed::Kind(other)),
    };
    Ok(G2h::Reply { fence, response })
}

/// The HXG header `h0` with its type set to REQUEST or FAST_REQUEST (the caller builds a
/// REQUEST header with [`Hxg::request`]).
pub(crate) fn with_kind(h0: u32, tracked: bool) -> u32 {
    let kind = if tracked {
        XEHPG_HXG_TYPE_REQUEST
    } else {
        XEHPG_HXG_TYPE_FAST_REQUEST
    };
    Hxg::from_raw(h0)
        .with_kind(Bounded::<u32, 3>::from_expr(kind))
        .into_raw()
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_guc_ct_wire)]
mod tests {
    use super::*;

    #[test]
    fn ctb_header_packing() {
        // A message as upstream's `h2g_write` lays it out: fence n, 5 HXG dwords.
        assert_eq!(CtbHeader::hxg(7, 5).into_raw(), (7 << 16) | 5);
        assert_eq!(CtbHeader::hxg(0x8003, 255).into_raw(), 0x8003_00ff);
        assert_eq!(CtbHeader::from_raw(0xabcd_0003).fence16(), 0xabcd);
    }

    #[test]
    fn fences_roll_over_15_bits() {
        let mut f = Fences(0x7ffe);
        assert_eq!(f.next(true), 0x7ffe);
        assert_eq!(f.next(false), 0xffff);
        // Wraps to 0, never into the untracked bit.
        assert_eq!(f.next(true), 0);
        assert_eq!(f.next(false), 0x8001);
    }

    #[test]
    fn request_kinds() {
        let h = Hxg::request(0x509, 0).into_raw();
        assert_eq!(with_kind(h, true), 0x0000_0509);
        assert_eq!(with_kind(h, false), 0x2000_0509);
        assert_eq!(with_kind(with_kind(h, false), true), 0x0000_0509);
    }

    #[test]
    fn g2h_decoding() {
        // SUCCESS with DATA0 1 to fence 3.
        assert_eq!(
            parse(&[0x0003_0001, 0xf000_0001]),
            Ok(G2h::Reply {
                fence: 3,
                response: Response::Success(1)
            })
        );
        // FAILURE UNKNOWN_ACTION hint 2 to an untracked fence.
        assert_eq!(
            parse(&[0x8005_0001, 0xe002_0030]),
            Ok(G2h::Reply {
                fence: 0x8005,
                response: Response::Failure {
                    error: 0x30,
                    hint: 2
                }
            })
        );
        assert_eq!(
            parse(&[0x0001_0001, 0xb000_0000]),
            Ok(G2h::Reply {
                fence: 1,
                response: Response::Busy
            })
        );
        assert_eq!(
            parse(&[0x0001_0001, 0xd000_0000]),
            Ok(G2h::Reply {
                fence: 1,
                response: Response::Retry
            })
        );
        // An EVENT with its payload.
        let msg = [0x0000_0003, 0x9000_1008, 5, 6];
        assert_eq!(
            parse(&msg),
            Ok(G2h::Event {
                action: 0x1008,
                data0: 0,
                payload: &[5, 6]
            })
        );
    }

    #[test]
    fn a_reply_traces_as_the_type_it_came_as() {
        // The HXG header's type field (bits 30:28) of each reply kind, read back through the
        // parser: what `xehpg_g2h` records must be what the GuC sent.
        for h0 in [0xf000_0001u32, 0xe002_0030, 0xb000_0000, 0xd000_0000] {
            let kind = match parse(&[0x0001_0001, h0]) {
                Ok(G2h::Reply { response, .. }) => Some(response.hxg_type()),
                _ => None,
            };
            assert_eq!(kind, Some((h0 >> 28) & 7));
        }
    }

    #[test]
    fn g2h_malformed_shapes() {
        assert_eq!(parse(&[]), Err(Malformed::Empty));
        assert_eq!(parse(&[0x0001_0000]), Err(Malformed::Empty));
        assert_eq!(
            parse(&[0x0001_1001, 0xf000_0000]),
            Err(Malformed::Format(1))
        );
        // Host origin.
        assert_eq!(parse(&[0x1, 0x7000_0000]), Err(Malformed::FromHost));
        // A GuC REQUEST, FAST_REQUEST and the reserved type 4.
        assert_eq!(parse(&[0x1, 0x8000_0001]), Err(Malformed::Kind(0)));
        assert_eq!(parse(&[0x1, 0xa000_0001]), Err(Malformed::Kind(2)));
        assert_eq!(parse(&[0x1, 0xc000_0001]), Err(Malformed::Kind(4)));
    }
}
