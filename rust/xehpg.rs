// SPDX-License-Identifier: GPL-2.0

//! xehpg: PCI driver core for Intel Xe-HPG discrete GPUs, Alchemist (DG2, Arc A-series) and
//! Arctic Sound-M (ATS-M, Data Center GPU Flex).
//!
//! One module per hardware block; `driver` holds the bring-up order. Register offsets and
//! sequences cite the PRM seeds (`shared/seeds/`, file and line) or the upstream `xe` file they
//! were read from. `Documentation/architecture.rst` describes how the pieces meet.

use kernel::{
    driver::Registration,
    pci,
    prelude::*,
    InPlaceModule, //
};

// One module per block; `Documentation/architecture.rst` draws which imports which.
mod abi;
mod debugfs;
mod device;
mod driver;
mod gt;
mod guc;
mod info;
mod mem;
mod mmio;
mod pcode;
mod platform;
mod range;
mod regs;

pub(crate) const MODULE_NAME: &CStr = <LocalModule as kernel::ModuleMetadata>::NAME;

/// `/sys/kernel/debug/xehpg`, parent of one directory per bound device.
///
/// Set in [`XehpgModule::init`] before the driver registers and cleared by [`DebugfsRootGuard`]
/// after it unregisters, so every probe sees `Some`. The kernel crate has no per-module data
/// slot yet; nova-core (`drivers/gpu/nova-core/nova_core.rs`) uses the same arrangement.
static mut DEBUGFS_ROOT: Option<kernel::debugfs::Dir> = None;

/// Returns the debugfs root, which exists for as long as `probe` can run.
pub(crate) fn debugfs_root() -> Option<&'static kernel::debugfs::Dir> {
    // SAFETY: `DEBUGFS_ROOT` is written only in `XehpgModule::init` before the driver is
    // registered and in `DebugfsRootGuard::drop` after it is unregistered; probe (the only
    // reader) cannot run outside that window, so no write races this read.
    unsafe { (*core::ptr::addr_of!(DEBUGFS_ROOT)).as_ref() }
}

/// Clears [`DEBUGFS_ROOT`] once the driver is unregistered.
struct DebugfsRootGuard;

impl Drop for DebugfsRootGuard {
    fn drop(&mut self) {
        // SAFETY: dropped after `_driver` (field order of `XehpgModule`), so no probe runs and
        // every per-device directory below the root is already gone.
        unsafe { *core::ptr::addr_of_mut!(DEBUGFS_ROOT) = None };
    }
}

#[pin_data]
struct XehpgModule {
    // Declaration order is drop order: unregister the driver first, then drop the root.
    #[pin]
    _driver: Registration<pci::Adapter<driver::XehpgDriver>>,
    _debugfs_root: DebugfsRootGuard,
}

impl InPlaceModule for XehpgModule {
    fn init(module: &'static kernel::ThisModule) -> impl PinInit<Self, Error> {
        // SAFETY: module init runs once, before the driver is registered, so nothing else can
        // access `DEBUGFS_ROOT` yet.
        unsafe {
            *core::ptr::addr_of_mut!(DEBUGFS_ROOT) = Some(kernel::debugfs::Dir::new(MODULE_NAME))
        };

        try_pin_init!(Self {
            _driver <- Registration::new(MODULE_NAME, module),
            _debugfs_root: DebugfsRootGuard,
        })
    }
}

module! {
    type: XehpgModule,
    name: "xehpg",
    authors: ["xehpg developers"],
    description: "PCI driver core for Intel Xe-HPG discrete GPUs (DG2, ATS-M)",
    license: "GPL v2",
    firmware: ["i915/dg2_guc_70.bin"],
    params: {
        pcode_init_timeout_ms: u32 {
            default: 180000,
            description: "How long probe waits for PCODE to report initialisation complete, \
                          in ms (upstream xe waits 3 minutes)",
        },
    },
}
