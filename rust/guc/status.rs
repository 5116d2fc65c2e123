// SPDX-License-Identifier: GPL-2.0

//! GUC_STATUS: its fields' values, what they say about a boot, and upstream's names for the
//! codes (`abi/guc_errors_abi.h`, through `include/xehpg_abi.h`; the field layout and the
//! authentication values are `regs/xe_guc_regs.h`'s `GS_*`).
//!
//! Each field decodes to an enum ([`Auth`], [`Ukernel`], [`Bootrom`]) through the register's
//! `?=>` getters; a code upstream does not list is an `Err` carrying the raw value.

use crate::compat::bounded_enum;

bounded_enum! {
    /// GUC_STATUS 31:30, authentication of the image (`GS_AUTH_STATUS_*`).
    pub(crate) enum Auth: Bounded<u32, 2> {
        /// Not authenticated yet.
        None = 0 => "none",
        /// `GS_AUTH_STATUS_BAD`.
        Bad = 1 => "bad",
        /// `GS_AUTH_STATUS_GOOD`.
        Good = 2 => "good",
    }
}

bounded_enum! {
    /// GUC_STATUS 15:8, the uKernel's progress or error (`enum xe_guc_load_status`,
    /// `XE_GUC_LOAD_STATUS_*`).
    pub(crate) enum Ukernel: Bounded<u32, 8> {
        Default = 0x00 => "default",
        Start = 0x01 => "start",
        DevidBuildMismatch = 0x02 => "device ID build mismatch",
        PreprodBuildMismatch = 0x03 => "pre-production build mismatch",
        DevidInvalidGuctype = 0x04 => "invalid GuC type for device",
        HwconfigStart = 0x05 => "hwconfig start",
        HwconfigDone = 0x06 => "hwconfig done",
        HwconfigError = 0x07 => "hwconfig error",
        BootromVersionMismatch = 0x08 => "boot ROM version mismatch",
        GdtDone = 0x10 => "GDT done",
        IdtDone = 0x20 => "IDT done",
        LapicDone = 0x30 => "LAPIC done",
        GucintDone = 0x40 => "GuC interrupts done",
        DpcReady = 0x50 => "DPC ready",
        DpcError = 0x60 => "DPC error",
        Exception = 0x70 => "exception",
        InitDataInvalid = 0x71 => "init data invalid",
        PxpTeardownCtrlEnabled = 0x72 => "PXP teardown control enabled",
        MpuDataInvalid = 0x73 => "MPU data invalid",
        InitMmioSaveRestoreInvalid = 0x74 => "MMIO save/restore list invalid",
        KlvWorkaroundInitError = 0x75 => "workaround KLV init error",
        InvalidFtrFlag = 0x76 => "invalid feature flag",
        Ready = 0xf0 => "ready",
    }
}

bounded_enum! {
    /// GUC_STATUS 7:1, the boot ROM's progress or error (`enum xe_bootrom_load_status`,
    /// `XE_BOOTROM_STATUS_*`; 0 before the ROM reports).
    pub(crate) enum Bootrom: Bounded<u32, 7> {
        None = 0x00 => "none",
        NoKeyFound = 0x13 => "no key found",
        AesProdKeyFound = 0x1a => "AES production key found",
        ProdKeyCheckFailure = 0x2b => "production key check failed",
        RsaFailed = 0x50 => "RSA verification failed",
        PavpcFailed = 0x73 => "PAVPC failed",
        WopcmFailed = 0x74 => "WOPCM failed",
        LoadlocFailed = 0x75 => "load location failed",
        JumpPassed = 0x76 => "jump passed",
        JumpFailed = 0x77 => "jump failed",
        Rc6ctxconfigFailed = 0x79 => "RC6 context config failed",
        MpumapIncorrect = 0x7a => "MPU map incorrect",
        Exception = 0x7e => "exception",
    }
}

impl Ukernel {
    /// Whether the code is a terminal failure (`xe_guc.c`, `guc_load_done`). Any context.
    pub(crate) const fn is_failure(self) -> bool {
        matches!(
            self,
            Self::DevidBuildMismatch
                | Self::PreprodBuildMismatch
                | Self::DevidInvalidGuctype
                | Self::HwconfigError
                | Self::BootromVersionMismatch
                | Self::DpcError
                | Self::Exception
                | Self::InitDataInvalid
                | Self::MpuDataInvalid
                | Self::InitMmioSaveRestoreInvalid
                | Self::KlvWorkaroundInitError
                | Self::InvalidFtrFlag
        )
    }
}

impl Bootrom {
    /// Whether the code is a terminal failure (`xe_guc.c`, `guc_load_done`). Any context.
    pub(crate) const fn is_failure(self) -> bool {
        matches!(
            self,
            Self::NoKeyFound
                | Self::ProdKeyCheckFailure
                | Self::RsaFailed
                | Self::PavpcFailed
                | Self::WopcmFailed
                | Self::LoadlocFailed
                | Self::JumpFailed
                | Self::Rc6ctxconfigFailed
                | Self::MpumapIncorrect
                | Self::Exception
        )
    }
}

/// A decoded field as (raw code, label): an unknown code is labelled "unknown". Any context.
pub(crate) fn code<E: Copy + Into<u32>>(
    f: Result<E, u32>,
    name: fn(E) -> &'static str,
) -> (u32, &'static str) {
    match f {
        Ok(v) => (v.into(), name(v)),
        Err(raw) => (raw, "unknown"),
    }
}

/// Where a boot stands, from GUC_STATUS (`xe_guc.c`, `guc_load_done`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum BootOutcome {
    /// The uKernel reports READY.
    Ready,
    /// A terminal failure of the uKernel, the boot ROM or authentication.
    Failed,
    /// Still booting: every other code, known or not (an unknown code is not a failure
    /// upstream knows; the wait's timeout ends it).
    Booting,
}
