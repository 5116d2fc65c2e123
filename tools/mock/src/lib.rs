//! `xehpg-mock`: a vfio-user model of an Intel Xe-HPG GPU function (DG2 /
//! ATS-M) that QEMU attaches with `-device vfio-user-pci`, so the `xehpg`
//! driver can be tested without hardware.
//!
//! The mock models the hardware's rules, not the driver's habits: registers
//! behave as the PRM and upstream `xe` describe them, accesses the hardware
//! would not honour are counted (unknown offsets) or recorded as violations,
//! and every access is traced. The test harness reads the summary after the
//! VM stops and fails a run on anything unexpected.
//!
//! Layout, one module per block:
//!
//! - [`abi`]: the firmware/GuC ABI, the mock's own reading of upstream's
//!   headers (checked against them by the `uabi` suite of `tools/check`);
//! - [`cli`]: command-line options and fault switches;
//! - [`device`]: the [`Device`] state and the BAR0/BAR2/config dispatch;
//! - [`config_space`]: PCI configuration space;
//! - [`control`]: test-control requests (`--control`) and the pacing of
//!   injected interrupts;
//! - [`regs`]: the public register map (a contract with `tools/check`);
//! - [`seed_table`]: the PRM's forcewake and steering table, extracted from
//!   the seed (a contract with `tools/check`; the `xehpg-seed-table` binary
//!   writes `data/fw-steering.tsv` with it);
//! - [`power`]: forcewake domains and the per-register domain lookup built
//!   from that table;
//! - [`regfile`]: register behaviour, one child module per hardware unit;
//! - [`memory`]: memfd-backed BAR windows and guest memory for DMA;
//! - [`ccs`]: the flat-CCS compression metadata of local memory;
//! - [`irq`]: interrupt eventfds;
//! - [`trace`], [`summary`], [`recorder`]: what the harness reads;
//! - [`clock`]: the injectable time source;
//! - [`ids`]: the PCI IDs the mock can take;
//! - [`server`]: the vfio-user server and process lifecycle.

#![warn(missing_docs)]

pub mod abi;
pub mod ccs;
pub mod cli;
pub mod clock;
pub mod config_space;
pub mod control;
pub mod device;
pub mod ids;
pub mod irq;
pub mod memory;
pub mod power;
pub mod recorder;
pub mod regfile;
pub mod regs;
pub mod seed_table;
pub mod server;
pub mod summary;
pub mod trace;

pub use cli::Fault;
pub use cli::Options;
pub use device::Device;
