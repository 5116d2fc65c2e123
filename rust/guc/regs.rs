// SPDX-License-Identifier: GPL-2.0

//! GuC registers. The seed names the GuC shim and DMA registers (seed 000 lines 1095-1129)
//! without offsets or fields; those are upstream's (`drivers/gpu/drm/xe/regs/xe_guc_regs.h`,
//! `regs/xe_gt_regs.h` for GDRST and PMINTRMSK). All of 0xC000-0xCFFF, 0x941C and 0xA168 need
//! GT forcewake (seed 000 lines 508, 517-523); GT_PM_CONFIG and the 0x190000 Gunit registers
//! are always-on.

use super::status::{Auth, BootOutcome, Bootrom, Ukernel};
use kernel::io::register;

register! {
    /// GuC boot and authentication status.
    pub(crate) GUC_STATUS(u32) @ 0x0000c000 {
        /// Authentication (`GS_AUTH_STATUS_MASK`).
        31:30 auth ?=> Auth;
        18:16 mia;
        /// uKernel progress or error code (`GS_UKERNEL_MASK`, `XEHPG_GUC_UKERNEL_*`).
        15:8 ukernel ?=> Ukernel;
        /// Boot ROM progress or error code (`GS_BOOTROM_MASK`, `XEHPG_GUC_BOOTROM_*`).
        7:1 bootrom ?=> Bootrom;
        0:0 mia_in_reset => bool;
    }

    /// GuC share of WOPCM; write-once until a device reset (LOCKED latches).
    pub(crate) GUC_WOPCM_SIZE(u32) @ 0x0000c050 {
        31:12 size;
        0:0 locked => bool;
    }

    /// GuC shim configuration; must be set before the DMA (upstream `guc_prepare_xfer`).
    pub(crate) GUC_SHIM_CONTROL(u32) @ 0x0000c064 {
        15:15 mia_clock_gating => bool;
        10:10 read_cache_for_wopcm_data => bool;
        9:9 read_cache_for_sram_data => bool;
        1:1 read_cache_logic => bool;
    }

    /// Boot parameters: SOFT_SCRATCH(0) = 0, SOFT_SCRATCH(1 + i) = GUC_CTL parameter i.
    pub(crate) SOFT_SCRATCH(u32)[16] @ 0x0000c180 {
        31:0 value;
    }

    /// RSA key, or in word 0 the GGTT address of a key larger than 256 bytes.
    pub(crate) UOS_RSA_SCRATCH(u32)[64] @ 0x0000c200 {
        31:0 value;
    }

    /// DMA source, low 32 bits (seed 000 line 1125 names the register).
    pub(crate) DMA_ADDR_0_LOW(u32) @ 0x0000c300 {
        31:0 value;
    }

    /// DMA source, high bits and address space.
    pub(crate) DMA_ADDR_0_HIGH(u32) @ 0x0000c304 {
        20:16 space;
        15:0 addr;
    }

    /// DMA destination, low 32 bits.
    pub(crate) DMA_ADDR_1_LOW(u32) @ 0x0000c308 {
        31:0 value;
    }

    /// DMA destination, high bits and address space.
    pub(crate) DMA_ADDR_1_HIGH(u32) @ 0x0000c30c {
        20:16 space;
        15:0 addr;
    }

    /// DMA size in bytes.
    pub(crate) DMA_COPY_SIZE(u32) @ 0x0000c310 {
        31:0 value;
    }

    /// DMA control, masked (bits 31:16 enable writes to 15:0).
    pub(crate) DMA_CTRL(u32) @ 0x0000c314 {
        31:16 mask;
        4:4 uos_move => bool;
        0:0 start_dma => bool;
    }

    /// GuC WOPCM base; write-once until a device reset (VALID latches).
    pub(crate) DMA_GUC_WOPCM_OFFSET(u32) @ 0x0000c340 {
        31:14 offset;
        1:1 huc_loading_agent_guc => bool;
        0:0 valid => bool;
    }

    /// Graphics domain reset (`regs/xe_gt_regs.h`).
    pub(crate) GDRST(u32) @ 0x0000941c {
        3:3 grdom_guc => bool;
        0:0 grdom_full => bool;
    }

    /// PM interrupt mask; the GuC needs the ARAT timer unmasked (`regs/xe_gt_regs.h`).
    pub(crate) PMINTRMSK(u32) @ 0x0000a168 {
        9:9 arat_expired_intrmsk => bool;
    }

    /// GT PM configuration (`regs/xe_guc_regs.h`).
    pub(crate) GT_PM_CONFIG(u32) @ 0x0013816c {
        0:0 gt_doorbell_enable => bool;
    }

    /// Host-to-GuC doorbell for MMIO messages.
    pub(crate) GUC_HOST_INTERRUPT(u32) @ 0x001901f0 {
        31:0 value;
    }

    /// MMIO message scratch: request in, reply out (upstream prefers these to SOFT_SCRATCH
    /// from Gen11 on, `abi/guc_communication_mmio_abi.h`).
    pub(crate) VF_SW_FLAG(u32)[4] @ 0x00190240 {
        31:0 value;
    }
}

impl GUC_STATUS {
    /// Where the boot stands (`xe_guc.c`, `guc_load_done`): READY, a terminal failure of the
    /// uKernel, the boot ROM or authentication, or still booting for every other code. Any
    /// context.
    pub(crate) fn outcome(self) -> BootOutcome {
        let ukernel = self.ukernel();
        if ukernel == Ok(Ukernel::Ready) {
            return BootOutcome::Ready;
        }
        let uk_fail = ukernel.is_ok_and(Ukernel::is_failure);
        let rom_fail = self.bootrom().is_ok_and(Bootrom::is_failure);
        if uk_fail || rom_fail || self.auth() == Ok(Auth::Bad) {
            BootOutcome::Failed
        } else {
            BootOutcome::Booting
        }
    }
}
