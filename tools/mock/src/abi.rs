//! The firmware/GuC ABI as the mock's GuC model reads and produces it.
//!
//! Written for the mock from upstream xe's headers (Linux 7.3,
//! `drivers/gpu/drm/xe/...`, each item names its file) and not from the
//! driver's `include/xehpg_abi.h`: a misreading of upstream in one of the
//! two places then shows as a disagreement instead of being shared. The
//! `uabi` suite of `tools/check` compares every constant here with the
//! upstream headers, evaluated by the C compiler. The PRM seeds do not
//! describe these layouts.
//!
//! Layouts are byte offsets into little-endian buffers ([`dword`]), not Rust
//! structs: the mock reads guest memory, which has no alignment or host
//! endianness guarantees. Bit fields are masks in place, as upstream
//! spells them; [`field`] and [`prep`] extract and place values.

/// Extracts the field `mask` (contiguous bits) from `value`.
pub const fn field(value: u32, mask: u32) -> u32 {
    (value & mask) >> mask.trailing_zeros()
}

/// Places `value` into the field `mask`; excess high bits are dropped.
pub const fn prep(mask: u32, value: u32) -> u32 {
    (value << mask.trailing_zeros()) & mask
}

/// The little-endian dword at byte `offset` of `bytes`; `None` if it does
/// not fit.
pub fn dword(bytes: &[u8], offset: usize) -> Option<u32> {
    let b = bytes.get(offset..offset.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// `major.minor.patch` of a CSS version dword ([`css::VERSION_MAJOR`] and
/// friends).
pub fn version_string(v: u32) -> String {
    format!(
        "{}.{}.{}",
        field(v, css::VERSION_MAJOR),
        field(v, css::VERSION_MINOR),
        field(v, css::VERSION_PATCH)
    )
}

/// CSS header at the start of a GuC image: `struct uc_css_header` of
/// `abi/uc_fw_abi.h` (`rsa_info` and `guc_info` are the union members a GuC
/// image uses). Byte offsets of the dwords the mock reads.
pub mod css {
    /// Size of the header (`sizeof(struct uc_css_header)`).
    pub const HEADER_BYTES: usize = 128;
    /// `module_type`.
    pub const MODULE_TYPE: usize = 0x00;
    /// `header_size_dw`: header, RSA key, modulus and exponent dwords.
    pub const HEADER_SIZE_DW: usize = 0x04;
    /// `size_dw`: uCode dwords plus `header_size_dw`.
    pub const SIZE_DW: usize = 0x18;
    /// `rsa_info.key_size_dw`.
    pub const KEY_SIZE_DW: usize = 0x1C;
    /// `rsa_info.modulus_size_dw`.
    pub const MODULUS_SIZE_DW: usize = 0x20;
    /// `rsa_info.exponent_size_dw`.
    pub const EXPONENT_SIZE_DW: usize = 0x24;
    /// `guc_info.sw_version`.
    pub const SW_VERSION: usize = 0x40;
    /// `guc_info.submission_version`.
    pub const SUBMISSION_VERSION: usize = 0x44;
    /// `guc_info.private_data_size`: bytes of GuC private data to provide.
    pub const PRIVATE_DATA_SIZE: usize = 0x78;
    /// `CSS_SW_VERSION_UC_MAJOR`.
    pub const VERSION_MAJOR: u32 = 0x00FF_0000;
    /// `CSS_SW_VERSION_UC_MINOR`.
    pub const VERSION_MINOR: u32 = 0x0000_FF00;
    /// `CSS_SW_VERSION_UC_PATCH`.
    pub const VERSION_PATCH: u32 = 0x0000_00FF;
}

/// HXG message dword 0 (`abi/guc_messages_abi.h`).
pub mod hxg {
    /// `GUC_HXG_MSG_0_ORIGIN`.
    pub const ORIGIN: u32 = 1 << 31;
    /// `GUC_HXG_ORIGIN_GUC`.
    pub const ORIGIN_GUC: u32 = 1;
    /// `GUC_HXG_MSG_0_TYPE`.
    pub const TYPE: u32 = 0x7 << 28;
    /// `GUC_HXG_MSG_0_AUX`: everything below the type.
    pub const AUX: u32 = 0x0FFF_FFFF;
    /// `GUC_HXG_TYPE_REQUEST`.
    pub const TYPE_REQUEST: u32 = 0;
    /// `GUC_HXG_TYPE_EVENT`.
    pub const TYPE_EVENT: u32 = 1;
    /// `GUC_HXG_TYPE_FAST_REQUEST`.
    pub const TYPE_FAST_REQUEST: u32 = 2;
    /// `GUC_HXG_TYPE_NO_RESPONSE_BUSY`.
    pub const TYPE_NO_RESPONSE_BUSY: u32 = 3;
    /// `GUC_HXG_TYPE_NO_RESPONSE_RETRY`.
    pub const TYPE_NO_RESPONSE_RETRY: u32 = 5;
    /// `GUC_HXG_TYPE_RESPONSE_FAILURE`.
    pub const TYPE_RESPONSE_FAILURE: u32 = 6;
    /// `GUC_HXG_TYPE_RESPONSE_SUCCESS`.
    pub const TYPE_RESPONSE_SUCCESS: u32 = 7;
    /// `GUC_HXG_REQUEST_MSG_0_DATA0`.
    pub const REQUEST_DATA0: u32 = 0xFFF << 16;
    /// `GUC_HXG_REQUEST_MSG_0_ACTION`.
    pub const REQUEST_ACTION: u32 = 0xFFFF;
    /// `GUC_HXG_FAILURE_MSG_0_HINT`.
    pub const FAILURE_HINT: u32 = 0xFFF << 16;
    /// `GUC_HXG_FAILURE_MSG_0_ERROR`.
    pub const FAILURE_ERROR: u32 = 0xFFFF;
    /// `GUC_MAX_MMIO_MSG_LEN` (`abi/guc_communication_mmio_abi.h`): an MMIO
    /// message fits the four `VF_SW_FLAG` registers.
    pub const MMIO_MSG_MAX_DWORDS: usize = 4;
}

/// Action codes (`abi/guc_actions_abi.h`, `enum xe_guc_action`).
pub mod action {
    /// `XE_GUC_ACTION_GET_HWCONFIG`.
    pub const GET_HWCONFIG: u32 = 0x4100;
    /// `XE_GUC_ACTION_CLIENT_SOFT_RESET`.
    pub const CLIENT_SOFT_RESET: u32 = 0x5507;
    /// `GUC_ACTION_HOST2GUC_SELF_CFG`: {hdr, KLV header, value 31:0, value
    /// 63:32}, MMIO only; SUCCESS DATA0 = KLVs parsed (1, or 0 for an
    /// unknown key).
    pub const HOST2GUC_SELF_CFG: u32 = 0x0508;
    /// `GUC_ACTION_HOST2GUC_CONTROL_CTB`: {hdr, control}, MMIO only.
    pub const HOST2GUC_CONTROL_CTB: u32 = 0x4509;
    /// `GUC_CTB_CONTROL_DISABLE`.
    pub const CTB_CONTROL_DISABLE: u32 = 0;
    /// `GUC_CTB_CONTROL_ENABLE`.
    pub const CTB_CONTROL_ENABLE: u32 = 1;
    /// `XE_GUC_ACTION_UPDATE_SCHEDULING_POLICIES_KLV`: {hdr, KLVs inline}
    /// over CT (`xe_guc_submit.c` `guc_init_global_schedule_policy`).
    pub const UPDATE_SCHEDULING_POLICIES_KLV: u32 = 0x509;
    /// `XE_GUC_ACTION_OPT_IN_FEATURE_KLV`: {hdr, addr_lo, addr_hi,
    /// num_dwords} over CT, the KLVs at that GGTT address (`xe_guc.c`
    /// `__guc_opt_in_features_enable`).
    pub const OPT_IN_FEATURE_KLV: u32 = 0x550E;
    /// `XE_GUC_ACTION_NOTIFY_FLUSH_LOG_BUFFER_TO_FILE`: a G2H EVENT
    /// (`xe_guc_ct.c` `process_g2h_msg` takes it without a payload check).
    pub const NOTIFY_FLUSH_LOG_BUFFER_TO_FILE: u32 = 0x8003;
    /// `XE_GUC_ACTION_SCHED_CONTEXT`: {hdr, guc_id}, the context has new
    /// work (`xe_guc_submit.c` `submit_exec_queue`).
    pub const SCHED_CONTEXT: u32 = 0x1000;
    /// `XE_GUC_ACTION_SCHED_CONTEXT_MODE_SET`: {hdr, guc_id, state}.
    pub const SCHED_CONTEXT_MODE_SET: u32 = 0x1001;
    /// `XE_GUC_ACTION_SCHED_CONTEXT_MODE_DONE`: G2H {hdr, guc_id, state}
    /// (`xe_guc_sched_done_handler` wants at least 2 dwords).
    pub const SCHED_CONTEXT_MODE_DONE: u32 = 0x1002;
    /// `XE_GUC_ACTION_CONTEXT_RESET_NOTIFICATION`: G2H {hdr, guc_id}
    /// (`xe_guc_exec_queue_reset_handler`).
    pub const CONTEXT_RESET_NOTIFICATION: u32 = 0x1008;
    /// `XE_GUC_ACTION_ENGINE_FAILURE_NOTIFICATION`: G2H {hdr, guc_class,
    /// instance, reason} (`xe_guc_submit.c`
    /// `xe_guc_exec_queue_reset_failure_handler` wants exactly 3 dwords).
    pub const ENGINE_FAILURE_NOTIFICATION: u32 = 0x1009;
    /// `XE_GUC_ACTION_HOST2GUC_UPDATE_CONTEXT_POLICIES`: {hdr, guc_id,
    /// KLVs} (`xe_guc_submit.c` `init_policies`).
    pub const UPDATE_CONTEXT_POLICIES: u32 = 0x100B;
    /// `XE_GUC_ACTION_REGISTER_CONTEXT`: {hdr, 11 dwords of `struct
    /// guc_ctxt_registration_info`} (`__register_exec_queue`).
    pub const REGISTER_CONTEXT: u32 = 0x4502;
    /// `XE_GUC_ACTION_DEREGISTER_CONTEXT`: {hdr, guc_id}.
    pub const DEREGISTER_CONTEXT: u32 = 0x4503;
    /// `XE_GUC_ACTION_DEREGISTER_CONTEXT_DONE`: G2H {hdr, guc_id}
    /// (`xe_guc_deregister_done_handler`).
    pub const DEREGISTER_CONTEXT_DONE: u32 = 0x4600;
    /// `XE_GUC_ACTION_ALLOCATE_DOORBELL`: the legacy action nothing
    /// upstream sends any more; its payload {hdr, guc_id, physical
    /// doorbell, page offset in BAR0} is the driver's GUESS
    /// (`rust/submit/doorbell.rs`).
    pub const ALLOCATE_DOORBELL: u32 = 0x10;
    /// `XE_GUC_ACTION_DEALLOCATE_DOORBELL`: {hdr, guc_id} (GUESS, as
    /// above).
    pub const DEALLOCATE_DOORBELL: u32 = 0x20;
}

/// TLB invalidation through the GuC (`abi/guc_actions_abi.h`,
/// `xe_guc_tlb_inval.c`).
pub mod tlb {
    /// `XE_GUC_ACTION_TLB_INVALIDATION`: {hdr, seqno, op (type 7:0, mode
    /// 15:8, flush cache 31), range for the selective types}.
    pub const INVALIDATION: u32 = 0x7000;
    /// `XE_GUC_ACTION_TLB_INVALIDATION_DONE`: G2H {hdr, seqno}.
    pub const INVALIDATION_DONE: u32 = 0x7001;
    /// `XE_GUC_ACTION_TLB_INVALIDATION_ALL`: {hdr, seqno, op}, every TLB
    /// (`xe_guc_tlb_inval.c` `send_tlb_inval_all`, type FULL).
    pub const INVALIDATION_ALL: u32 = 0x7002;
    /// `XE_GUC_TLB_INVAL_FULL`: with `INVALIDATION` the PPGTT's, with
    /// `INVALIDATION_ALL` every TLB.
    pub const INVAL_FULL: u32 = 0;
    /// `XE_GUC_TLB_INVAL_GUC`: the GuC's own GGTT TLB. The page-selective
    /// types (1, 2) are the PPGTT's.
    pub const INVAL_GUC: u32 = 3;
    /// `TLB_INVALIDATION_SEQNO_INVALID`: no DONE wanted
    /// (`xe_tlb_inval_types.h`).
    pub const SEQNO_INVALID: u32 = 0x10_0000;
}

/// SLPC, the GuC's power and frequency manager (upstream
/// `abi/guc_actions_slpc_abi.h`): its request, events and the shared-data
/// page the host gives it.
pub mod slpc {
    /// `GUC_ACTION_HOST2GUC_PC_SLPC_REQUEST`: {hdr, event id 15:8 and
    /// argc 7:0, argc data dwords}.
    pub const REQUEST: u32 = 0x3003;
    /// `GUC_ACTION_HOST2GUC_SETUP_PC_GUCRC`: {hdr, mode}.
    pub const SETUP_PC_GUCRC: u32 = 0x3004;
    /// `SLPC_EVENT_RESET`: {shared data GGTT address lo, hi}.
    pub const EVENT_RESET: u32 = 0;
    /// `SLPC_EVENT_SHUTDOWN`.
    pub const EVENT_SHUTDOWN: u32 = 1;
    /// `SLPC_EVENT_QUERY_TASK_STATE`: {shared data GGTT address lo, hi}.
    pub const EVENT_QUERY_TASK_STATE: u32 = 5;
    /// `SLPC_EVENT_PARAMETER_SET`: {parameter id, value}.
    pub const EVENT_PARAMETER_SET: u32 = 6;
    /// `SLPC_EVENT_PARAMETER_UNSET`: {parameter id}.
    pub const EVENT_PARAMETER_UNSET: u32 = 7;
    /// `SLPC_GLOBAL_STATE_RUNNING`.
    pub const STATE_RUNNING: u32 = 3;
    /// `SLPC_MAX_OVERRIDE_PARAMETERS`.
    pub const MAX_PARAMETERS: u32 = 256;
    /// `SLPC_SHARED_DATA_SIZE_BYTE_MAX`: `sizeof(struct slpc_shared_data)`.
    pub const SHARED_DATA_BYTES: u32 = 8192;
    /// `struct slpc_shared_data`: `header.global_state`.
    pub const GLOBAL_STATE: u64 = 4;
    /// `struct slpc_shared_data`: `task_state_data`.
    pub const TASK_STATE: u64 = 128;
    /// `struct slpc_shared_data`: `override_params.bits` (8 dwords), then
    /// `override_params.values` (256).
    pub const OVERRIDE_BITS: u64 = 192;
    /// `struct slpc_shared_data`: `override_params.values`.
    pub const OVERRIDE_VALUES: u64 = 224;
    /// `GUCRC_FIRMWARE_CONTROL`: the highest GuC RC mode.
    pub const GUCRC_FIRMWARE_CONTROL: u32 = 1;
    /// `XE_GUC_ACTION_SET_DEVICE_ENGINE_ACTIVITY_BUFFER`: {hdr, metadata
    /// GGTT address lo, hi, activity buffer lo, hi}
    /// (`xe_guc_engine_activity.c` `enable_engine_activity_stats`).
    pub const SET_DEVICE_ENGINE_ACTIVITY_BUFFER: u32 = 0x550C;
}

/// Error codes of FAILURE replies (`abi/guc_errors_abi.h`,
/// `enum xe_guc_response`).
pub mod error {
    /// `XE_GUC_RESPONSE_UNKNOWN_ACTION`.
    pub const UNKNOWN_ACTION: u32 = 0x30;
    /// `XE_GUC_RESPONSE_INVALID_PARAMS`.
    pub const INVALID_PARAMS: u32 = 0x60;
    /// `XE_GUC_RESPONSE_INVALID_STATE`.
    pub const INVALID_STATE: u32 = 0x0A;
    /// `XE_GUC_RESPONSE_INVALID_KLV_DATA`.
    pub const INVALID_KLV_DATA: u32 = 0x50;
    /// `XE_GUC_RESPONSE_INVALID_GGTT_ADDRESS`.
    pub const INVALID_GGTT_ADDRESS: u32 = 0x80;
    /// `XE_GUC_RESPONSE_MALFORMED_KLV`.
    pub const MALFORMED_KLV: u32 = 0x103;
    /// `XE_GUC_RESPONSE_CTB_NOT_REGISTERED`.
    pub const CTB_NOT_REGISTERED: u32 = 0x304;
    /// `XE_GUC_RESPONSE_CTB_INVALID_DESC`.
    pub const CTB_INVALID_DESC: u32 = 0x306;
    /// `XE_GUC_RESPONSE_NOT_SUPPORTED`.
    pub const NOT_SUPPORTED: u32 = 0x20;
    /// `XE_GUC_RESPONSE_ACTION_ABORTED`.
    pub const ACTION_ABORTED: u32 = 0x31;
    /// `XE_GUC_RESPONSE_CANNOT_COMPLETE_ACTION`.
    pub const CANNOT_COMPLETE_ACTION: u32 = 0x41;
    /// `XE_GUC_RESPONSE_INVALID_CONTEXT_INDEX`.
    pub const INVALID_CONTEXT_INDEX: u32 = 0x61;
    /// `XE_GUC_RESPONSE_INVALID_CONTEXT_REGISTRATION`.
    pub const INVALID_CONTEXT_REGISTRATION: u32 = 0x62;
    /// `XE_GUC_RESPONSE_INVALID_ENGINE_ID`.
    pub const INVALID_ENGINE_ID: u32 = 0x64;
    /// `XE_GUC_RESPONSE_INVALID_BUFFER_RANGE`.
    pub const INVALID_BUFFER_RANGE: u32 = 0x70;
    /// `XE_GUC_RESPONSE_INVALID_BUFFER`.
    pub const INVALID_BUFFER: u32 = 0x71;
    /// `XE_GUC_RESPONSE_CONTEXT_NOT_REGISTERED`.
    pub const CONTEXT_NOT_REGISTERED: u32 = 0x100;
    /// `XE_GUC_RESPONSE_INVALID_SIZE`.
    pub const INVALID_SIZE: u32 = 0x102;
    /// `XE_GUC_RESPONSE_INVALID_CONTEXT`.
    pub const INVALID_CONTEXT: u32 = 0x104;
    /// `XE_GUC_RESPONSE_INVALID_KLV_KEY`.
    pub const INVALID_KLV_KEY: u32 = 0x105;
    /// `XE_GUC_RESPONSE_NO_PERMISSION`.
    pub const NO_PERMISSION: u32 = 0x40;
    /// `XE_GUC_RESPONSE_INVALID_DOORBELL_ID`.
    pub const INVALID_DOORBELL_ID: u32 = 0x63;
    /// `XE_GUC_RESPONSE_BUFFER_ALREADY_REGISTERED`.
    pub const BUFFER_ALREADY_REGISTERED: u32 = 0x72;
}

/// KLVs (`abi/guc_klvs_abi.h`): a header dword, then LEN value dwords, a
/// 64-bit value low dword first.
pub mod klv {
    /// `GUC_KLV_0_KEY`.
    pub const KEY: u32 = 0xFFFF << 16;
    /// `GUC_KLV_0_LEN`: value length in dwords.
    pub const LEN: u32 = 0xFFFF;
    /// `GUC_KLV_SELF_CFG_H2G_CTB_ADDR_KEY`: GGTT address of the H2G ring.
    pub const SELF_CFG_H2G_CTB_ADDR: u32 = 0x0902;
    /// `GUC_KLV_SELF_CFG_H2G_CTB_ADDR_LEN`.
    pub const SELF_CFG_H2G_CTB_ADDR_LEN: u32 = 2;
    /// `GUC_KLV_SELF_CFG_H2G_CTB_DESCRIPTOR_ADDR_KEY`.
    pub const SELF_CFG_H2G_CTB_DESCRIPTOR_ADDR: u32 = 0x0903;
    /// `GUC_KLV_SELF_CFG_H2G_CTB_DESCRIPTOR_ADDR_LEN`.
    pub const SELF_CFG_H2G_CTB_DESCRIPTOR_ADDR_LEN: u32 = 2;
    /// `GUC_KLV_SELF_CFG_H2G_CTB_SIZE_KEY`: H2G ring size in bytes.
    pub const SELF_CFG_H2G_CTB_SIZE: u32 = 0x0904;
    /// `GUC_KLV_SELF_CFG_H2G_CTB_SIZE_LEN`.
    pub const SELF_CFG_H2G_CTB_SIZE_LEN: u32 = 1;
    /// `GUC_KLV_SELF_CFG_G2H_CTB_ADDR_KEY`.
    pub const SELF_CFG_G2H_CTB_ADDR: u32 = 0x0905;
    /// `GUC_KLV_SELF_CFG_G2H_CTB_ADDR_LEN`.
    pub const SELF_CFG_G2H_CTB_ADDR_LEN: u32 = 2;
    /// `GUC_KLV_SELF_CFG_G2H_CTB_DESCRIPTOR_ADDR_KEY`.
    pub const SELF_CFG_G2H_CTB_DESCRIPTOR_ADDR: u32 = 0x0906;
    /// `GUC_KLV_SELF_CFG_G2H_CTB_DESCRIPTOR_ADDR_LEN`.
    pub const SELF_CFG_G2H_CTB_DESCRIPTOR_ADDR_LEN: u32 = 2;
    /// `GUC_KLV_SELF_CFG_G2H_CTB_SIZE_KEY`.
    pub const SELF_CFG_G2H_CTB_SIZE: u32 = 0x0907;
    /// `GUC_KLV_SELF_CFG_G2H_CTB_SIZE_LEN`.
    pub const SELF_CFG_G2H_CTB_SIZE_LEN: u32 = 1;
    /// `GUC_KLV_SCHEDULING_POLICIES_RENDER_COMPUTE_YIELD_KEY`: {quantum ms,
    /// ratio percent 0..=100}.
    pub const SCHEDULING_POLICIES_RENDER_COMPUTE_YIELD: u32 = 0x1001;
    /// `GUC_KLV_SCHEDULING_POLICIES_RENDER_COMPUTE_YIELD_LEN`.
    pub const SCHEDULING_POLICIES_RENDER_COMPUTE_YIELD_LEN: u32 = 2;
    /// `GUC_CONTEXT_POLICIES_KLV_ID_EXECUTION_QUANTUM`: us.
    pub const CONTEXT_POLICY_EXECUTION_QUANTUM: u32 = 0x2001;
    /// `GUC_CONTEXT_POLICIES_KLV_ID_PREEMPTION_TIMEOUT`: us.
    pub const CONTEXT_POLICY_PREEMPTION_TIMEOUT: u32 = 0x2002;
    /// `GUC_CONTEXT_POLICIES_KLV_ID_SCHEDULING_PRIORITY`.
    pub const CONTEXT_POLICY_SCHEDULING_PRIORITY: u32 = 0x2003;
    /// `GUC_CONTEXT_POLICIES_KLV_ID_PREEMPT_TO_IDLE_ON_QUANTUM_EXPIRY`.
    pub const CONTEXT_POLICY_PREEMPT_TO_IDLE: u32 = 0x2004;
    /// `GUC_CONTEXT_POLICIES_KLV_ID_SLPM_GT_FREQUENCY`.
    pub const CONTEXT_POLICY_SLPM_GT_FREQUENCY: u32 = 0x2005;
    /// `GUC_KLV_OPT_IN_FEATURE_EXT_CAT_ERR_TYPE_KEY`.
    pub const OPT_IN_FEATURE_EXT_CAT_ERR_TYPE: u32 = 0x4001;
    /// `GUC_KLV_OPT_IN_FEATURE_EXT_CAT_ERR_TYPE_LEN`: a flag, no value.
    pub const OPT_IN_FEATURE_EXT_CAT_ERR_TYPE_LEN: u32 = 0;
}

/// CT buffers (`abi/guc_communication_ctb_abi.h`): the descriptor
/// (`struct guc_ct_buffer_desc`, byte offsets) and the CTB message header.
pub mod ctb {
    /// `sizeof(struct guc_ct_buffer_desc)`.
    pub const DESC_SIZE: usize = 64;
    /// `head`: dword offset of the last dword read, written by the receiver.
    pub const DESC_HEAD: usize = 0;
    /// `tail`: dword offset of the last dword written, written by the sender.
    pub const DESC_TAIL: usize = 4;
    /// `status`.
    pub const DESC_STATUS: usize = 8;
    /// `reserved[13]`: MBZ.
    pub const DESC_RESERVED: usize = 12;
    /// `GUC_CTB_STATUS_OVERFLOW`: head or tail too large.
    pub const STATUS_OVERFLOW: u32 = 1 << 0;
    /// `GUC_CTB_STATUS_UNDERFLOW`: truncated message.
    pub const STATUS_UNDERFLOW: u32 = 1 << 1;
    /// `GUC_CTB_STATUS_MISMATCH`: head or tail modified.
    pub const STATUS_MISMATCH: u32 = 1 << 2;
    /// `GUC_CTB_STATUS_DISABLED`.
    pub const STATUS_DISABLED: u32 = 1 << 3;
    /// `GUC_CTB_MSG_0_FENCE`.
    pub const MSG_FENCE: u32 = 0xFFFF << 16;
    /// `GUC_CTB_MSG_0_FORMAT`.
    pub const MSG_FORMAT: u32 = 0xF << 12;
    /// `GUC_CTB_FORMAT_HXG`.
    pub const FORMAT_HXG: u32 = 0;
    /// `GUC_CTB_MSG_0_NUM_DWORDS`: length of the message after this header.
    pub const MSG_NUM_DWORDS: u32 = 0xFF;
}

/// `GUC_STATUS` uKernel codes, bits 15:8 (`abi/guc_errors_abi.h`,
/// `enum xe_guc_load_status`).
pub mod ukernel {
    /// `XE_GUC_LOAD_STATUS_START`.
    pub const START: u32 = 0x01;
    /// `XE_GUC_LOAD_STATUS_ERROR_DEVID_BUILD_MISMATCH`.
    pub const DEVID_BUILD_MISMATCH: u32 = 0x02;
    /// `XE_GUC_LOAD_STATUS_GDT_DONE`.
    pub const GDT_DONE: u32 = 0x10;
    /// `XE_GUC_LOAD_STATUS_IDT_DONE`.
    pub const IDT_DONE: u32 = 0x20;
    /// `XE_GUC_LOAD_STATUS_LAPIC_DONE`.
    pub const LAPIC_DONE: u32 = 0x30;
    /// `XE_GUC_LOAD_STATUS_GUCINT_DONE`.
    pub const GUCINT_DONE: u32 = 0x40;
    /// `XE_GUC_LOAD_STATUS_DPC_READY`.
    pub const DPC_READY: u32 = 0x50;
    /// `XE_GUC_LOAD_STATUS_EXCEPTION`.
    pub const EXCEPTION: u32 = 0x70;
    /// `XE_GUC_LOAD_STATUS_INIT_DATA_INVALID`.
    pub const INIT_DATA_INVALID: u32 = 0x71;
    /// `XE_GUC_LOAD_STATUS_READY`.
    pub const READY: u32 = 0xF0;
}

/// `GUC_STATUS` boot ROM codes, bits 7:1 (`abi/guc_errors_abi.h`,
/// `enum xe_bootrom_load_status`).
pub mod bootrom {
    /// `XE_BOOTROM_STATUS_RSA_FAILED`.
    pub const RSA_FAILED: u32 = 0x50;
    /// `XE_BOOTROM_STATUS_LOADLOC_FAILED`.
    pub const LOADLOC_FAILED: u32 = 0x75;
    /// `XE_BOOTROM_STATUS_JUMP_PASSED`.
    pub const JUMP_PASSED: u32 = 0x76;
}

/// Boot parameters: `SOFT_SCRATCH(1 + i)` holds parameter `i` (`xe_guc_fwif.h`
/// `GUC_CTL_*`; `xe_guc.c` `guc_write_params`).
pub mod ctl {
    /// `GUC_CTL_LOG_PARAMS`.
    pub const LOG_PARAMS: u32 = 0;
    /// `GUC_CTL_WA`: workaround bits.
    pub const WA: u32 = 1;
    /// `GUC_CTL_FEATURE`: feature bits.
    pub const FEATURE: u32 = 2;
    /// `GUC_CTL_ADS`.
    pub const ADS: u32 = 4;
    /// `GUC_WA_DUAL_QUEUE` of `GUC_CTL_WA`.
    pub const WA_DUAL_QUEUE: u32 = 1 << 11;
    /// `GUC_WA_PRE_PARSER` of `GUC_CTL_WA`.
    pub const WA_PRE_PARSER: u32 = 1 << 14;
    /// `GUC_WA_CONTEXT_ISOLATION` of `GUC_CTL_WA`.
    pub const WA_CONTEXT_ISOLATION: u32 = 1 << 15;
    /// `GUC_WA_HOLD_CCS_SWITCHOUT` of `GUC_CTL_WA`.
    pub const WA_HOLD_CCS_SWITCHOUT: u32 = 1 << 17;
    /// `GUC_WA_ENABLE_TSC_CHECK_ON_RC6` of `GUC_CTL_WA`.
    pub const WA_ENABLE_TSC_CHECK_ON_RC6: u32 = 1 << 22;
    /// `GUC_CTL_ENABLE_LITE_RESTORE` of `GUC_CTL_FEATURE`.
    pub const FEATURE_LITE_RESTORE: u32 = 1 << 4;
    /// `GUC_CTL_DEVID`.
    pub const DEVID: u32 = 5;
    /// `GUC_CTL_MAX_DWORDS`: parameters the GuC reads.
    pub const MAX_DWORDS: u32 = 14;
    /// `GUC_LOG_VALID` of `GUC_CTL_LOG_PARAMS`.
    pub const LOG_VALID: u32 = 1 << 0;
    /// `GUC_LOG_BUF_ADDR` of `GUC_CTL_LOG_PARAMS`: GGTT address of the log
    /// buffer, 4 KiB aligned, in place.
    pub const LOG_BUF_ADDR: u32 = 0xFFFF_F000;
    /// `GUC_ADS_ADDR` of `GUC_CTL_ADS`: the ADS GGTT address >> 12, bits
    /// 21:1 in xe (i915's `intel_guc_fwif.h` reads 20:1; a GuC GGTT address
    /// is below 4 GiB, so bit 21 is 0 either way).
    pub const ADS_ADDR: u32 = 0x003F_FFFE;
}

/// `struct guc_ads` (`xe_guc_fwif.h`): byte offsets of the dwords the mock
/// reads. The pointers in it are GGTT addresses.
pub mod ads {
    /// `sizeof(struct guc_ads)`.
    pub const SIZE: usize = 4572;
    /// `scheduler_policies`: GGTT address of a [`super::policies`].
    pub const SCHEDULER_POLICIES: usize = 4100;
    /// `gt_system_info`: GGTT address of a [`super::gt_system_info`].
    pub const GT_SYSTEM_INFO: usize = 4104;
    /// `private_data`: GGTT address of the GuC's private data.
    pub const PRIVATE_DATA: usize = 4244;
    /// `reg_state_list[GUC_MAX_ENGINE_CLASSES][GUC_MAX_INSTANCES_PER_CLASS]`:
    /// 8-byte `struct guc_mmio_reg_set` {address, u16 count, u16 reserved}
    /// per (GuC class, physical instance), at offset 0
    /// (`abi/guc_capture_abi.h`).
    pub const REG_STATE_LIST: usize = 0;
    /// Bytes of one `struct guc_mmio_reg_set`.
    pub const REG_SET_BYTES: usize = 8;
    /// Bytes of one `struct guc_mmio_reg` {offset, value, flags, mask}
    /// (`abi/guc_capture_abi.h`): the list entries the set points at.
    pub const REG_BYTES: usize = 16;
    /// `golden_context_lrca[GUC_MAX_ENGINE_CLASSES]`.
    pub const GOLDEN_CONTEXT_LRCA: usize = 4116;
    /// `eng_state_size[GUC_MAX_ENGINE_CLASSES]`.
    pub const ENG_STATE_SIZE: usize = 4180;
    /// `capture_instance[GUC_CAPTURE_LIST_INDEX_MAX][GUC_MAX_ENGINE_CLASSES]`
    /// (`GUC_CAPTURE_LIST_INDEX_MAX` is 2, PF and VF, `abi/guc_capture_abi.h`).
    pub const CAPTURE_INSTANCE: usize = 4252;
    /// `capture_class[GUC_CAPTURE_LIST_INDEX_MAX][GUC_MAX_ENGINE_CLASSES]`.
    pub const CAPTURE_CLASS: usize = 4380;
    /// `capture_global[GUC_CAPTURE_LIST_INDEX_MAX]`.
    pub const CAPTURE_GLOBAL: usize = 4508;
    /// `wa_klv_addr_lo`, then `wa_klv_addr_hi`.
    pub const WA_KLV_ADDR_LO: usize = 4516;
    /// `wa_klv_addr_hi`.
    pub const WA_KLV_ADDR_HI: usize = 4520;
    /// `wa_klv_size`: bytes of KLVs at the address.
    pub const WA_KLV_SIZE: usize = 4524;
    /// `GUC_MAX_ENGINE_CLASSES` (`abi/guc_scheduler_abi.h`).
    pub const CLASSES: usize = 16;
    /// `GUC_MAX_INSTANCES_PER_CLASS` (`abi/guc_scheduler_abi.h`).
    pub const INSTANCES: usize = 32;
    /// `GUC_CAPTURE_LIST_INDEX_MAX` (`abi/guc_capture_abi.h`).
    pub const CAPTURE_OWNERS: usize = 2;
}

/// `struct guc_policies` (`xe_guc_fwif.h`).
pub mod policies {
    /// `sizeof(struct guc_policies)`.
    pub const SIZE: usize = 96;
    /// `is_valid`: must be 1 for the GuC to take the policies.
    pub const IS_VALID: usize = 68;
}

/// `struct guc_gt_system_info` (`xe_guc_fwif.h`).
pub mod gt_system_info {
    /// `sizeof(struct guc_gt_system_info)`.
    pub const SIZE: usize = 640;
    /// `u8 mapping_table[16][32]`: entry [GuC class][logical instance] is
    /// the physical instance; unused entries are
    /// `GUC_MAX_INSTANCES_PER_CLASS` (32) (`xe_guc_ads.c`
    /// `guc_mapping_table_init`, `guc_mapping_table_init_invalid`).
    pub const MAPPING_TABLE: usize = 0;
    /// `u32 engine_enabled_masks[16]`: bit n = physical instance n of the
    /// class is enabled (`xe_guc_ads.c` `fill_engine_enable_masks`).
    pub const ENGINE_ENABLED_MASKS: usize = 512;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_and_prep_follow_the_mask() {
        assert_eq!(field(0xF123_4567, hxg::TYPE), 7);
        assert_eq!(field(0x8000_0000, hxg::ORIGIN), 1);
        assert_eq!(prep(hxg::TYPE, 6), 0x6000_0000);
        assert_eq!(prep(hxg::TYPE, 0xF), 0x7000_0000);
        assert_eq!(prep(ctl::ADS_ADDR, 0x2000), 0x4000);
        assert_eq!(field(0x4000, ctl::ADS_ADDR), 0x2000);
    }

    #[test]
    fn helpers() {
        assert_eq!(dword(&[1, 2, 3, 4, 5], 1), Some(0x0504_0302));
        assert_eq!(dword(&[1, 2, 3], 0), None);
        assert_eq!(dword(&[], usize::MAX), None);
        assert_eq!(version_string(0x0046_3500), "70.53.0");
        assert_eq!(version_string(0x0001_1A00), "1.26.0");
    }

    /// The dwords read lie inside their structures.
    #[test]
    fn offsets_fit_their_structures() {
        for off in [
            css::HEADER_SIZE_DW,
            css::SIZE_DW,
            css::KEY_SIZE_DW,
            css::MODULUS_SIZE_DW,
            css::EXPONENT_SIZE_DW,
            css::SW_VERSION,
            css::SUBMISSION_VERSION,
            css::PRIVATE_DATA_SIZE,
        ] {
            assert!(off % 4 == 0 && off + 4 <= css::HEADER_BYTES, "{off}");
        }
        for off in [
            ads::SCHEDULER_POLICIES,
            ads::GT_SYSTEM_INFO,
            ads::PRIVATE_DATA,
        ] {
            assert!(off % 4 == 0 && off + 4 <= ads::SIZE, "{off}");
        }
        for off in [
            ctb::DESC_HEAD,
            ctb::DESC_TAIL,
            ctb::DESC_STATUS,
            ctb::DESC_RESERVED,
        ] {
            assert!(off % 4 == 0 && off + 4 <= ctb::DESC_SIZE, "{off}");
        }
    }
}

/// GuC submission (`abi/guc_scheduler_abi.h`).
pub mod sched {
    /// `GUC_ID_MAX`: guc_ids are below it.
    pub const GUC_ID_MAX: u32 = 65535;
    /// `CONTEXT_REGISTRATION_FLAG_KMD`.
    pub const CONTEXT_REGISTRATION_FLAG_KMD: u32 = 1 << 0;
    /// `GUC_CONTEXT_DISABLE`.
    pub const CONTEXT_DISABLE: u32 = 0;
    /// `GUC_CONTEXT_ENABLE`.
    pub const CONTEXT_ENABLE: u32 = 1;
    /// `GUC_RENDER_CLASS`.
    pub const RENDER_CLASS: u32 = 0;
    /// `GUC_VIDEO_CLASS`.
    pub const VIDEO_CLASS: u32 = 1;
    /// `GUC_VIDEOENHANCE_CLASS`.
    pub const VIDEOENHANCE_CLASS: u32 = 2;
    /// `GUC_BLITTER_CLASS`.
    pub const BLITTER_CLASS: u32 = 3;
    /// `GUC_COMPUTE_CLASS`.
    pub const COMPUTE_CLASS: u32 = 4;
}
