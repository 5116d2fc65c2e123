// SPDX-License-Identifier: GPL-2.0

//! GUC_STATUS: its fields, what they say about a boot, and upstream's names for the codes
//! (`abi/guc_errors_abi.h`, through `include/xehpg_abi.h`).

use super::regs::GUC_STATUS;
use crate::abi::*;

/// GUC_STATUS fields.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Status {
    pub(crate) auth: u32,
    pub(crate) ukernel: u32,
    pub(crate) bootrom: u32,
    pub(crate) in_reset: bool,
}

impl Status {
    pub(crate) fn decode(raw: u32) -> Self {
        let r = GUC_STATUS::from_raw(raw);
        Self {
            auth: r.auth().get(),
            ukernel: r.ukernel().get(),
            bootrom: r.bootrom().get(),
            in_reset: r.mia_in_reset(),
        }
    }
}

/// Where a boot stands, from GUC_STATUS (`xe_guc.c`, `guc_load_done`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum BootOutcome {
    /// The uKernel reports READY.
    Ready,
    /// A terminal failure of the uKernel, the boot ROM or authentication.
    Failed,
    /// Still booting.
    Booting,
}

/// Classifies a raw GUC_STATUS.
pub(crate) fn boot_outcome(raw: u32) -> BootOutcome {
    let s = Status::decode(raw);
    if s.ukernel == XEHPG_GUC_UKERNEL_READY {
        return BootOutcome::Ready;
    }
    let uk_fail = matches!(
        s.ukernel,
        XEHPG_GUC_UKERNEL_DEVID_BUILD_MISMATCH
            | XEHPG_GUC_UKERNEL_PREPROD_BUILD_MISMATCH
            | XEHPG_GUC_UKERNEL_DEVID_INVALID_GUCTYPE
            | XEHPG_GUC_UKERNEL_HWCONFIG_ERROR
            | XEHPG_GUC_UKERNEL_BOOTROM_VERSION_MISMATCH
            | XEHPG_GUC_UKERNEL_DPC_ERROR
            | XEHPG_GUC_UKERNEL_EXCEPTION
            | XEHPG_GUC_UKERNEL_INIT_DATA_INVALID
            | XEHPG_GUC_UKERNEL_MPU_DATA_INVALID
            | XEHPG_GUC_UKERNEL_INIT_MMIO_SAVE_RESTORE_INVALID
            | XEHPG_GUC_UKERNEL_KLV_WORKAROUND_INIT_ERROR
            | XEHPG_GUC_UKERNEL_INVALID_FTR_FLAG
    );
    let rom_fail = matches!(
        s.bootrom,
        XEHPG_GUC_BOOTROM_NO_KEY_FOUND
            | XEHPG_GUC_BOOTROM_PROD_KEY_CHECK_FAILURE
            | XEHPG_GUC_BOOTROM_RSA_FAILED
            | XEHPG_GUC_BOOTROM_PAVPC_FAILED
            | XEHPG_GUC_BOOTROM_WOPCM_FAILED
            | XEHPG_GUC_BOOTROM_LOADLOC_FAILED
            | XEHPG_GUC_BOOTROM_JUMP_FAILED
            | XEHPG_GUC_BOOTROM_RC6CTXCONFIG_FAILED
            | XEHPG_GUC_BOOTROM_MPUMAP_INCORRECT
            | XEHPG_GUC_BOOTROM_EXCEPTION
    );
    if uk_fail || rom_fail || s.auth == 1 {
        BootOutcome::Failed
    } else {
        BootOutcome::Booting
    }
}

/// Upstream's name for a uKernel status code (`abi/guc_errors_abi.h`).
pub(crate) fn ukernel_name(code: u32) -> &'static str {
    match code {
        XEHPG_GUC_UKERNEL_DEFAULT => "default",
        XEHPG_GUC_UKERNEL_START => "start",
        XEHPG_GUC_UKERNEL_DEVID_BUILD_MISMATCH => "device ID build mismatch",
        XEHPG_GUC_UKERNEL_PREPROD_BUILD_MISMATCH => "pre-production build mismatch",
        XEHPG_GUC_UKERNEL_DEVID_INVALID_GUCTYPE => "invalid GuC type for device",
        XEHPG_GUC_UKERNEL_HWCONFIG_START => "hwconfig start",
        XEHPG_GUC_UKERNEL_HWCONFIG_DONE => "hwconfig done",
        XEHPG_GUC_UKERNEL_HWCONFIG_ERROR => "hwconfig error",
        XEHPG_GUC_UKERNEL_BOOTROM_VERSION_MISMATCH => "boot ROM version mismatch",
        XEHPG_GUC_UKERNEL_GDT_DONE => "GDT done",
        XEHPG_GUC_UKERNEL_IDT_DONE => "IDT done",
        XEHPG_GUC_UKERNEL_LAPIC_DONE => "LAPIC done",
        XEHPG_GUC_UKERNEL_GUCINT_DONE => "GuC interrupts done",
        XEHPG_GUC_UKERNEL_DPC_READY => "DPC ready",
        XEHPG_GUC_UKERNEL_DPC_ERROR => "DPC error",
        XEHPG_GUC_UKERNEL_EXCEPTION => "exception",
        XEHPG_GUC_UKERNEL_INIT_DATA_INVALID => "init data invalid",
        XEHPG_GUC_UKERNEL_PXP_TEARDOWN_CTRL_ENABLED => "PXP teardown control enabled",
        XEHPG_GUC_UKERNEL_MPU_DATA_INVALID => "MPU data invalid",
        XEHPG_GUC_UKERNEL_INIT_MMIO_SAVE_RESTORE_INVALID => "MMIO save/restore list invalid",
        XEHPG_GUC_UKERNEL_KLV_WORKAROUND_INIT_ERROR => "workaround KLV init error",
        XEHPG_GUC_UKERNEL_INVALID_FTR_FLAG => "invalid feature flag",
        XEHPG_GUC_UKERNEL_READY => "ready",
        _ => "unknown",
    }
}

/// Upstream's name for a boot ROM status code (`abi/guc_errors_abi.h`).
pub(crate) fn bootrom_name(code: u32) -> &'static str {
    match code {
        0 => "none",
        XEHPG_GUC_BOOTROM_NO_KEY_FOUND => "no key found",
        XEHPG_GUC_BOOTROM_AES_PROD_KEY_FOUND => "AES production key found",
        XEHPG_GUC_BOOTROM_PROD_KEY_CHECK_FAILURE => "production key check failed",
        XEHPG_GUC_BOOTROM_RSA_FAILED => "RSA verification failed",
        XEHPG_GUC_BOOTROM_PAVPC_FAILED => "PAVPC failed",
        XEHPG_GUC_BOOTROM_WOPCM_FAILED => "WOPCM failed",
        XEHPG_GUC_BOOTROM_LOADLOC_FAILED => "load location failed",
        XEHPG_GUC_BOOTROM_JUMP_PASSED => "jump passed",
        XEHPG_GUC_BOOTROM_JUMP_FAILED => "jump failed",
        XEHPG_GUC_BOOTROM_RC6CTXCONFIG_FAILED => "RC6 context config failed",
        XEHPG_GUC_BOOTROM_MPUMAP_INCORRECT => "MPU map incorrect",
        XEHPG_GUC_BOOTROM_EXCEPTION => "exception",
        _ => "unknown",
    }
}
