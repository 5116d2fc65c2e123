// SPDX-License-Identifier: GPL-2.0

//! Device memory: the global GTT ([`ggtt`]) and local memory behind LMEMBAR ([`lmem`]).
//!
//! Neither child touches GT registers: the GGTT's page table is the GSM half of GTTMMADR and
//! local memory is plain memory through BAR 2, so this block sits below `gt` users such as
//! the GuC and imports nothing above [`crate::mmio`].

pub(crate) mod ggtt;
pub(crate) mod lmem;
