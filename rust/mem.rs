// SPDX-License-Identifier: GPL-2.0

//! Device memory: the global GTT ([`ggtt`]) and local memory behind LMEMBAR ([`lmem`]).
//!
//! Neither child touches GT registers: the GGTT's page table is the GSM half of GTTMMADR and
//! local memory is plain memory through BAR 2. The block imports only the leaves below it
//! ([`crate::mmio`], [`crate::range`], [`crate::regs`]); the GuC, which needs both this block
//! and the GT, sits above it (invalidating the GuC's GGTT TLB is a GuC operation).

// `ggtt` and `lmem` stay visible: the blocks above use nearly every item of each (the GGTT's
// layout constants and mappings, local memory's pool, blocks and BAR), so re-exports would be
// all of them.
pub(crate) mod ggtt;
pub(crate) mod lmem;
mod sysbuf;

pub(crate) use sysbuf::SysBuf;
