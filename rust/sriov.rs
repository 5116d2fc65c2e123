// SPDX-License-Identifier: GPL-2.0

//! SR-IOV physical function: sharing the GPU with up to 63 virtual functions.
//!
//! Each VF gets a GGTT range stamped with its number, local memory behind the LMTT, runs of
//! GuC doorbells and context IDs and scheduling settings, all pushed to the GuC as KLVs; the
//! hardware and the GuC enforce the isolation (seed 000 lines 1-453; seed 003).
//!
//! The children hold the resource arithmetic and the hardware and firmware formats, each
//! checked by KUnit against upstream's vectors: [`ids`] (doorbell and context runs),
//! [`fair`] (what each of `n` VFs gets), [`lmtt`] (the translation table's entries),
//! [`config`] (a VF's configuration as KLVs), [`control`] (VF control, the GuC's VF
//! notifications, the FLR sequence), [`relay`] (the answers to a VF driver's relay requests);
//! [`pf`] provisions VFs with them and serves the relay, behind
//! `sriov_numvfs` (through a small C hook, `rust/xehpg_glue.c`: the 7.3 PCI abstraction has
//! no `sriov_configure`) and the debugfs `sriov` file.

mod config;
mod control;
mod fair;
mod ids;
mod lmtt;
mod pf;
mod relay;

// What debugfs, the device and the reset worker use.
pub(crate) use config::threshold_by_name;
pub(crate) use pf::{Blocks, Handle, Owner, Pf, Setting, Target};
