// SPDX-License-Identifier: GPL-2.0

//! Firmware and GuC ABI: the CSS header, HXG fields, action and status codes, boot parameters
//! and the ADS layout.
//!
//! The definitions come from `include/xehpg_abi.h` through bindgen (`make bindings`); the
//! generated file is checked in and `make check` fails when it is stale. The mock keeps its
//! own reading of the same ABI, and the `uabi` suite checks both against upstream's headers.

// bindgen output: much of the ABI is not used by the driver, and the generated items are
// `pub`, so these two always fire.
#![expect(dead_code, unreachable_pub)]
// These stay `allow`: they guard against what bindgen may generate from a changed header
// (lower-case C type and constant names, undocumented items, clippy's taste), which today's
// output happens not to contain, so an `expect` would be reported unfulfilled.
#![allow(
    non_camel_case_types,
    non_upper_case_globals,
    missing_docs,
    clippy::all
)]

include!("abi/bindings.rs");
