// SPDX-License-Identifier: GPL-2.0

//! Firmware and GuC ABI: the CSS header, HXG fields, action and status codes, boot parameters
//! and the ADS layout.
//!
//! The definitions come from `include/xehpg_abi.h` through bindgen (`make bindings`); the
//! generated file is checked in and `make check` fails when it is stale. The mock keeps its
//! own reading of the same ABI, and the `uabi` suite checks both against upstream's headers.

#![allow(
    dead_code,
    non_camel_case_types,
    non_upper_case_globals,
    missing_docs,
    unreachable_pub,
    clippy::all
)]

include!("abi/bindings.rs");
