// SPDX-License-Identifier: GPL-2.0

//! Always-on SGunit and Gunit registers that probe reads before any forcewake exists.
//!
//! None of these sit in the GT forcewake ranges (seed 000, "Force Wake and Steering Table",
//! lines 455-704 cover 0x0000-0x3FFFF and the media ranges; the 0x10xxxx-0x19xxxx Gunit/SGunit
//! pages are outside it), so they read correctly while the GT sleeps. The seeds do not define
//! them; offsets and fields are from upstream xe as cited per register.

use kernel::io::register;

register! {
    /// Gunit control (`drivers/gpu/drm/xe/regs/xe_regs.h`: GU_CNTL).
    pub(crate) GU_CNTL(u32) @ 0x00101010 {
        /// Driver-initiated FLR: set to start one, hardware clears it when done.
        31:31 driverflr => bool;
        /// Local memory is initialised and usable (set by firmware before the driver runs).
        7:7 lmem_init => bool;
    }

    /// Gunit debug status (`drivers/gpu/drm/xe/regs/xe_regs.h`: GU_DEBUG).
    pub(crate) GU_DEBUG(u32) @ 0x00101018 {
        /// Driver-FLR completed; write 1 to clear.
        31:31 driverflr_status => bool;
    }

    /// Physical local-memory range of tile 0
    /// (`drivers/gpu/drm/xe/regs/xe_regs.h`: SG_TILE_ADDR_RANGE(0); fields decoded in
    /// `drivers/gpu/drm/xe/xe_vram.c`, `tile_vram_size()`).
    pub(crate) SG_TILE_ADDR_RANGE(u32) @ 0x001083a0 {
        /// Tile local-memory size in GiB.
        17:8 size_gib;
        /// Tile base in the device physical address space, in GiB.
        7:1 offset_gib;
    }

    /// PCODE mailbox command register (`drivers/gpu/drm/xe/xe_pcode_api.h`).
    pub(crate) PCODE_MAILBOX(u32) @ 0x00138124 {
        /// Set by the driver to post a command; PCODE clears it on completion.
        31:31 ready => bool;
        23:16 param2;
        15:8 param1;
        /// Command on submission; error code (0 = success) on completion.
        7:0 command;
    }

    /// PCODE mailbox data, first dword (`drivers/gpu/drm/xe/xe_pcode_api.h`).
    pub(crate) PCODE_DATA0(u32) @ 0x00138128 {
        31:0 value;
    }

    /// PCODE mailbox data, second dword (`drivers/gpu/drm/xe/xe_pcode_api.h`).
    pub(crate) PCODE_DATA1(u32) @ 0x0013812c {
        31:0 value;
    }

    /// Reads 1 in bit 0 when the function is an SR-IOV VF
    /// (`drivers/gpu/drm/xe/regs/xe_regs.h`: VF_CAP_REG; replicated in every VF's MMIO, seed 000
    /// line 127).
    pub(crate) VF_CAP_REG(u32) @ 0x001901f8 {
        0:0 vf_cap => bool;
    }
}

/// Value a register reads when the device no longer answers on the bus (a master abort
/// completes with all ones).
pub(crate) const ALL_ONES: u32 = u32::MAX;
