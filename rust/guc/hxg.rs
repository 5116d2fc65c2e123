// SPDX-License-Identifier: GPL-2.0

//! HXG, the message format shared by every host/GuC channel (MMIO and CT): dword 0 is a
//! header naming the origin and the message type, the rest of it is type specific (upstream
//! `abi/guc_messages_abi.h`; the constants are `XEHPG_HXG_*` in `include/xehpg_abi.h`).

use kernel::{bitfield, num::Bounded};

use crate::abi::*;

bitfield! {
    /// Dword 0 of an HXG message.
    pub(crate) struct Hxg(u32) {
        /// Set when the GuC sent the message, clear for the host.
        31:31 from_guc => bool;
        /// Message type (`XEHPG_HXG_TYPE_*`).
        30:28 kind;
        /// Type-specific payload: [`Request`] or [`Failure`] layout, or SUCCESS's DATA0.
        27:0 aux;
    }
}

bitfield! {
    /// [`Hxg::aux`] of a REQUEST.
    pub(crate) struct Request(u32) {
        /// Action-specific data.
        27:16 data0;
        /// The action (`XEHPG_GUC_ACTION_*`).
        15:0 action;
    }
}

bitfield! {
    /// [`Hxg::aux`] of a RESPONSE_FAILURE.
    pub(crate) struct Failure(u32) {
        27:16 hint;
        15:0 error;
    }
}

// The bit layout above is the ABI header's.
const _: () = {
    assert!(Hxg::FROM_GUC_SHIFT == XEHPG_HXG_ORIGIN_SHIFT);
    assert!(Hxg::KIND_SHIFT == XEHPG_HXG_TYPE_SHIFT);
    assert!(Hxg::KIND_MASK >> Hxg::KIND_SHIFT == XEHPG_HXG_TYPE_MASK);
    assert!(Hxg::AUX_MASK == XEHPG_HXG_AUX_MASK);
    assert!(Request::DATA0_SHIFT == XEHPG_HXG_REQUEST_DATA0_SHIFT);
    assert!(Request::DATA0_MASK >> Request::DATA0_SHIFT == XEHPG_HXG_REQUEST_DATA0_MASK);
    assert!(Request::ACTION_MASK == XEHPG_HXG_REQUEST_ACTION_MASK);
    assert!(Failure::HINT_SHIFT == XEHPG_HXG_FAILURE_HINT_SHIFT);
    assert!(Failure::HINT_MASK >> Failure::HINT_SHIFT == XEHPG_HXG_FAILURE_HINT_MASK);
    assert!(Failure::ERROR_MASK == XEHPG_HXG_FAILURE_ERROR_MASK);
};

impl Hxg {
    /// A host header of type `kind` (`XEHPG_HXG_TYPE_*`) with `aux` as its type-specific
    /// bits; bits beyond the fields' widths (3 and 28) are dropped.
    fn host(kind: u32, aux: u32) -> Self {
        Self::from_raw(0)
            .with_from_guc(false)
            .with_kind(Bounded::<u32, 3>::from_expr(kind & XEHPG_HXG_TYPE_MASK))
            .with_aux(Bounded::<u32, 28>::from_expr(aux & XEHPG_HXG_AUX_MASK))
    }

    /// A host REQUEST header for `action` with DATA0 `data0`; bits beyond the fields' widths
    /// (16 and 12) are dropped.
    pub(crate) fn request(action: u32, data0: u32) -> Self {
        let aux = Request::from_raw(0)
            .with_data0(Bounded::<u32, 12>::from_expr(
                data0 & XEHPG_HXG_REQUEST_DATA0_MASK,
            ))
            .with_action(Bounded::<u32, 16>::from_expr(
                action & XEHPG_HXG_REQUEST_ACTION_MASK,
            ));
        Self::host(XEHPG_HXG_TYPE_REQUEST, aux.into_raw())
    }

    /// A host RESPONSE_SUCCESS header carrying `data0` (28 bits; higher bits are dropped).
    pub(crate) fn success(data0: u32) -> Self {
        Self::host(XEHPG_HXG_TYPE_RESPONSE_SUCCESS, data0)
    }

    /// A host RESPONSE_FAILURE header with `error` and `hint` (16 and 12 bits; higher bits
    /// are dropped).
    pub(crate) fn failure(error: u32, hint: u32) -> Self {
        let aux = Failure::from_raw(0)
            .with_hint(Bounded::<u32, 12>::from_expr(
                hint & XEHPG_HXG_FAILURE_HINT_MASK,
            ))
            .with_error(Bounded::<u32, 16>::from_expr(
                error & XEHPG_HXG_FAILURE_ERROR_MASK,
            ));
        Self::host(XEHPG_HXG_TYPE_RESPONSE_FAILURE, aux.into_raw())
    }

    /// The REQUEST view of [`Hxg::aux`].
    pub(crate) fn as_request(self) -> Request {
        Request::from_raw(self.aux().get())
    }

    /// The RESPONSE_FAILURE view of [`Hxg::aux`].
    pub(crate) fn as_failure(self) -> Failure {
        Failure::from_raw(self.aux().get())
    }
}
