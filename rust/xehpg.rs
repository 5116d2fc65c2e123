// SPDX-License-Identifier: GPL-2.0

//! xehpg: PCI driver core for Intel Xe-HPG discrete GPUs, Alchemist (DG2, Arc A-series) and
//! Arctic Sound-M (ATS-M, Data Center GPU Flex).
//!
//! One module per hardware block; `device` owns the bring-up order, `driver` only the PCI
//! binding. Register offsets and sequences cite the public PRM ("seed NNN" ids with line
//! numbers; `Documentation/references.rst` gives each volume's title) or the upstream `xe`
//! file and function they were read from. `Documentation/architecture.rst` describes how the
//! pieces meet.

use kernel::{
    driver::Registration,
    pci,
    prelude::*,
    InPlaceModule, //
};

// One module per block; `Documentation/architecture.rst` draws which imports which.
mod abi;
mod compat;
mod debugfs;
mod device;
mod driver;
mod engine;
mod gt;
mod guc;
mod hw;
mod info;
mod irq;
mod mem;
mod mmio;
mod pcode;
mod platform;
mod range;
mod regs;
mod reset;
mod sriov;
mod submit;
mod trace;

pub(crate) const MODULE_NAME: &CStr = <LocalModule as kernel::ModuleMetadata>::NAME;

#[pin_data(PinnedDrop)]
struct XehpgModule {
    // Declaration order is drop order: unregister the driver first, then drop the root.
    #[pin]
    _driver: Registration<pci::Adapter<driver::XehpgDriver>>,
    _debugfs_root: debugfs::RootGuard,
}

impl InPlaceModule for XehpgModule {
    fn init(module: &'static kernel::ThisModule) -> impl PinInit<Self, Error> {
        // Everything probe needs from the module is in place before the driver registers: the
        // lower blocks never reach up into the module root for it.
        device::set_pcode_init_timeout_ms(module_parameters::pcode_init_timeout_ms.value());
        device::set_force_execlist(module_parameters::force_execlist.value());
        device::set_max_vfs(module_parameters::max_vfs.value());
        guc::set_log_level(module_parameters::guc_log_level.value());
        #[cfg(xehpg_test)]
        submit::set_doorbells_asked(module_parameters::guc_doorbells.value());
        // SAFETY: module init runs once, before the driver is registered.
        let root = unsafe { debugfs::RootGuard::install(MODULE_NAME) };

        try_pin_init!(Self {
            _driver <- Registration::new(MODULE_NAME, module),
            _debugfs_root: root,
        })
    }
}

#[pinned_drop]
impl PinnedDrop for XehpgModule {
    fn drop(self: Pin<&mut Self>) {
        // Before the fields drop (the driver's unregistration removes every device): VFs are
        // disabled here, where the PCI rescan-remove lock can be taken (rust/xehpg_glue.c).
        // SAFETY: `MODULE_NAME` is a NUL-terminated string that outlives the call.
        unsafe { xehpg_sriov_disable_all(MODULE_NAME.as_char_ptr()) };
    }
}

// C glue (rust/xehpg_glue.c).
extern "C" {
    /// Disables the VFs of every device bound to the driver called `name`; no enable after.
    fn xehpg_sriov_disable_all(name: *const kernel::ffi::c_char);
}

// The module's metadata and parameters; the test build adds `guc_doorbells`, which asks for
// the guessed doorbell ABI (`rust/submit/doorbell.rs`) that the production module lacks.
macro_rules! xehpg_module {
    ($($test_params:tt)*) => {
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
                    description: "How long probe waits for PCODE to report initialisation \
                                  complete, in ms (upstream xe waits 3 minutes)",
                },
                force_execlist: bool {
                    default: false,
                    description: "Do not load the GuC; submit through execlists (upstream \
                                  xe's parameter)",
                },
                max_vfs: u32 {
                    default: 63,
                    description: "The most VFs an SR-IOV PF offers in sriov_totalvfs; 0 keeps \
                                  SR-IOV off (upstream xe's parameter; its default is 0)",
                },
                guc_log_level: u32 {
                    default: 1,
                    description: "GuC firmware logging level: 0 off, 1 normal, 2 to 5 \
                                  verbose (upstream xe's parameter and default)",
                },
                $($test_params)*
            },
        }
    };
}

#[cfg(not(xehpg_test))]
xehpg_module!();

#[cfg(xehpg_test)]
xehpg_module! {
    guc_doorbells: bool {
        default: false,
        description: "Test build: under GuC submission, ring MMIO doorbells the GuC arms \
                      instead of sending SCHED_CONTEXT (falls back per context when the GuC \
                      refuses)",
    },
}
