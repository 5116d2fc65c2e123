/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xehpg firmware/GuC ABI of the driver (rust/). bindgen turns this header
 * into rust/abi/bindings.rs (`make bindings`); that file is checked in and
 * `make check` fails when it is stale. The mock device keeps its own reading
 * of upstream (tools/mock/src/abi.rs) so that a misreading here is not
 * shared; the `uabi` suite checks both against the kernel tree's headers.
 * Only fixed-width integer types and packed layouts here: these are the
 * bytes the GuC reads.
 *
 * Every definition names its source. The PRM (Volume 13, seed 000) gives
 * the GuC load constraints but not the CSS layout, so the layout below is
 * read from upstream xe: drivers/gpu/drm/xe/abi/uc_fw_abi.h (Linux 7.3).
 */
#ifndef XEHPG_ABI_H
#define XEHPG_ABI_H

#include <stdint.h>

/*
 * CSS header at the start of a GuC firmware file (uc_fw_abi.h,
 * struct uc_css_header: 128 bytes, all fields little-endian dwords).
 * File layout: header | uCode | RSA key | modulus | exponent; the last two
 * may be absent (the driver never needs them, uc_fw_abi.h "Modulus and
 * exponent key are not required by driver").
 */
struct xehpg_css_header {
	uint32_t module_type;
	/* Non-uCode dwords: this header + key + modulus + exponent. */
	uint32_t header_size_dw;
	uint32_t header_version;
	uint32_t reserved0;
	uint32_t module_vendor;
	/* Build date: year 31:16, month 15:8, day 7:0 (BCD-like, informative). */
	uint32_t date;
	/* uCode dwords plus header_size_dw. */
	uint32_t size_dw;
	/* RSA sizes in dwords (the rsa_info member of the upstream union). */
	uint32_t key_size_dw;
	uint32_t modulus_size_dw;
	uint32_t exponent_size_dw;
	/* GuC information (the guc_info member of the upstream union). */
	uint32_t time;
	uint32_t reserved1[5];
	/* Release version: major 23:16, minor 15:8, patch 7:0. */
	uint32_t sw_version;
	/* Submission interface version, same encoding as sw_version. */
	uint32_t submission_version;
	uint32_t reserved2[11];
	/* SVN 7:0, copy-valid 31. */
	uint32_t header_info;
	/* Bytes of GuC private data the driver must reserve (WOPCM side). */
	uint32_t private_data_size;
	/* Device field 31:16 (not a PCI ID), prod key 15:8, build type 3:2. */
	uint32_t ukernel_info;
} __attribute__((packed));

#define XEHPG_CSS_HEADER_BYTES 128
#define XEHPG_CSS_VERSION_MAJOR_SHIFT 16
#define XEHPG_CSS_VERSION_MINOR_SHIFT 8
#define XEHPG_CSS_VERSION_FIELD_MASK 0xff

/*
 * HXG message header, dword 0 of every GuC message, MMIO or CT
 * (upstream drivers/gpu/drm/xe/abi/guc_messages_abi.h; not in the seeds).
 */
#define XEHPG_HXG_ORIGIN_SHIFT 31
#define XEHPG_HXG_ORIGIN_HOST 0
#define XEHPG_HXG_ORIGIN_GUC 1
#define XEHPG_HXG_TYPE_SHIFT 28
#define XEHPG_HXG_TYPE_MASK 0x7
#define XEHPG_HXG_TYPE_REQUEST 0
#define XEHPG_HXG_TYPE_EVENT 1
#define XEHPG_HXG_TYPE_FAST_REQUEST 2
#define XEHPG_HXG_TYPE_NO_RESPONSE_BUSY 3
#define XEHPG_HXG_TYPE_NO_RESPONSE_RETRY 5
#define XEHPG_HXG_TYPE_RESPONSE_FAILURE 6
#define XEHPG_HXG_TYPE_RESPONSE_SUCCESS 7
/* REQUEST/EVENT: DATA0 27:16, ACTION 15:0. */
#define XEHPG_HXG_REQUEST_DATA0_SHIFT 16
#define XEHPG_HXG_REQUEST_DATA0_MASK 0xfff
#define XEHPG_HXG_REQUEST_ACTION_MASK 0xffff
/* FAILURE: HINT 27:16, ERROR 15:0. SUCCESS: DATA0 27:0. BUSY/RETRY: 27:0. */
#define XEHPG_HXG_FAILURE_HINT_SHIFT 16
#define XEHPG_HXG_FAILURE_HINT_MASK 0xfff
#define XEHPG_HXG_FAILURE_ERROR_MASK 0xffff
#define XEHPG_HXG_AUX_MASK 0x0fffffff

/* MMIO messages travel in VF_SW_FLAG(0..3): at most 4 dwords
 * (upstream abi/guc_communication_mmio_abi.h, GUC_MAX_MMIO_MSG_LEN).
 */
#define XEHPG_GUC_MMIO_MSG_MAX_DWORDS 4

/* Action codes (upstream abi/guc_actions_abi.h). */
#define XEHPG_GUC_ACTION_GET_HWCONFIG 0x4100
#define XEHPG_GUC_ACTION_CLIENT_SOFT_RESET 0x5507
/* HOST2GUC_SELF_CFG: {hdr, KLV header, value low, value high} over MMIO;
 * the reply's DATA0 is the number of KLVs taken (1), 0 for an unknown key.
 */
#define XEHPG_GUC_ACTION_HOST2GUC_SELF_CFG 0x0508
/* HOST2GUC_CONTROL_CTB: {hdr, control}; control 1 enables, 0 disables. */
#define XEHPG_GUC_ACTION_HOST2GUC_CONTROL_CTB 0x4509
#define XEHPG_GUC_CTB_CONTROL_DISABLE 0
#define XEHPG_GUC_CTB_CONTROL_ENABLE 1
/* UPDATE_SCHEDULING_POLICIES_KLV: {hdr, KLVs...} over CT; the scheduling
 * policy KLVs follow the header inline (xe_guc_submit.c,
 * guc_init_global_schedule_policy).
 */
#define XEHPG_GUC_ACTION_UPDATE_SCHEDULING_POLICIES_KLV 0x0509
/* OPT_IN_FEATURE_KLV: {hdr, KLV buffer GGTT address low, high, dwords}
 * (xe_guc.c, __guc_opt_in_features_enable).
 */
#define XEHPG_GUC_ACTION_OPT_IN_FEATURE_KLV 0x550e
/*
 * GuC submission (xe_guc_submit.c). REGISTER_CONTEXT: {hdr, flags, context
 * index, GuC engine class, engine submit mask, work-queue descriptor low,
 * high, work-queue base low, high, work-queue size, LRC descriptor low, high}
 * (enum xe_guc_register_context_param_offsets; the work-queue fields are 0
 * for a single LRC). UPDATE_CONTEXT_POLICIES: {hdr, context index, KLVs}.
 * SCHED_CONTEXT_MODE_SET: {hdr, context index, GUC_CONTEXT_ENABLE/DISABLE},
 * answered by the SCHED_CONTEXT_MODE_DONE event {context index, state}.
 * SCHED_CONTEXT: {hdr, context index}. DEREGISTER_CONTEXT: {hdr, context
 * index}, answered by the DEREGISTER_CONTEXT_DONE event {context index}.
 */
#define XEHPG_GUC_ACTION_SCHED_CONTEXT 0x1000
#define XEHPG_GUC_ACTION_SCHED_CONTEXT_MODE_SET 0x1001
#define XEHPG_GUC_ACTION_SCHED_CONTEXT_MODE_DONE 0x1002
#define XEHPG_GUC_ACTION_UPDATE_CONTEXT_POLICIES 0x100b
#define XEHPG_GUC_ACTION_REGISTER_CONTEXT 0x4502
#define XEHPG_GUC_ACTION_DEREGISTER_CONTEXT 0x4503
#define XEHPG_GUC_ACTION_DEREGISTER_CONTEXT_DONE 0x4600
/* Legacy doorbell actions (abi/guc_actions_abi.h; no caller upstream): the
 * payloads the driver sends are its own guess (rust/submit/doorbell.rs).
 */
#define XEHPG_GUC_ACTION_ALLOCATE_DOORBELL 0x10
#define XEHPG_GUC_ACTION_DEALLOCATE_DOORBELL 0x20
#define XEHPG_GUC_REGISTER_CONTEXT_DWORDS 12
/* abi/guc_scheduler_abi.h: CONTEXT_REGISTRATION_FLAG_KMD, GUC_CONTEXT_*. */
#define XEHPG_GUC_CONTEXT_REGISTRATION_FLAG_KMD 0x1
#define XEHPG_GUC_CONTEXT_DISABLE 0
#define XEHPG_GUC_CONTEXT_ENABLE 1
/* GuC engine classes (abi/guc_scheduler_abi.h GUC_*_CLASS). */
#define XEHPG_GUC_RENDER_CLASS 0
#define XEHPG_GUC_VIDEO_CLASS 1
#define XEHPG_GUC_VIDEOENHANCE_CLASS 2
#define XEHPG_GUC_BLITTER_CLASS 3
#define XEHPG_GUC_COMPUTE_CLASS 4

/* G2H events (GuC to host, HXG type EVENT). */
#define XEHPG_GUC_ACTION_CONTEXT_RESET_NOTIFICATION 0x1008
#define XEHPG_GUC_ACTION_ENGINE_FAILURE_NOTIFICATION 0x1009
#define XEHPG_GUC_ACTION_NOTIFY_MEMORY_CAT_ERROR 0x6000
#define XEHPG_GUC_ACTION_NOTIFY_FLUSH_LOG_BUFFER_TO_FILE 0x8003
/* The host's answer to it, with the section acknowledged (abi/guc_actions_abi.h). */
#define XEHPG_GUC_ACTION_LOG_BUFFER_FILE_FLUSH_COMPLETE 0x30
#define XEHPG_GUC_ACTION_NOTIFY_CRASH_DUMP_POSTED 0x8004
#define XEHPG_GUC_ACTION_NOTIFY_EXCEPTION 0x8005

/*
 * A CT buffer's descriptor (abi/guc_communication_ctb_abi.h,
 * struct guc_ct_buffer_desc, 64 bytes): head and tail are dword offsets in
 * the ring, written by the receiver and the sender; status bits are set by
 * whichever side finds the buffer inconsistent.
 */
struct xehpg_ct_buffer_desc {
	uint32_t head;
	uint32_t tail;
	uint32_t status;
	uint32_t reserved[13];
} __attribute__((packed));
#define XEHPG_CTB_STATUS_OVERFLOW 0x1
#define XEHPG_CTB_STATUS_UNDERFLOW 0x2
#define XEHPG_CTB_STATUS_MISMATCH 0x4
#define XEHPG_CTB_STATUS_DISABLED 0x8

/* CTB message header (dw0 of each ring message): fence 31:16, format 15:12
 * (0 = HXG), length of the HXG message that follows in dwords 7:0.
 */
#define XEHPG_CTB_FENCE_SHIFT 16
#define XEHPG_CTB_FORMAT_SHIFT 12
#define XEHPG_CTB_FORMAT_HXG 0
#define XEHPG_CTB_NUM_DWORDS_MASK 0xff
/* A ring message is at most the header plus 255 HXG dwords
 * (GUC_CTB_MSG_MAX_LEN).
 */
#define XEHPG_CTB_MSG_MAX_DWORDS 256

/*
 * KLVs (upstream abi/guc_klvs_abi.h): a header dword, key 31:16 and value
 * length in dwords 15:0, then the value; 64-bit values low dword first.
 */
#define XEHPG_KLV_KEY_SHIFT 16
#define XEHPG_KLV_LEN_MASK 0xffff

/* SELF_CFG keys: where the CT buffers live (GUC_KLV_SELF_CFG_*_KEY). */
#define XEHPG_KLV_SELF_CFG_H2G_CTB_ADDR 0x0902
#define XEHPG_KLV_SELF_CFG_H2G_CTB_DESCRIPTOR_ADDR 0x0903
#define XEHPG_KLV_SELF_CFG_H2G_CTB_SIZE 0x0904
#define XEHPG_KLV_SELF_CFG_G2H_CTB_ADDR 0x0905
#define XEHPG_KLV_SELF_CFG_G2H_CTB_DESCRIPTOR_ADDR 0x0906
#define XEHPG_KLV_SELF_CFG_G2H_CTB_SIZE 0x0907

/* Scheduling policy key (GUC_KLV_SCHEDULING_POLICIES_*_KEY). */
#define XEHPG_KLV_SCHEDULING_POLICIES_RENDER_COMPUTE_YIELD 0x1001
#define XEHPG_KLV_SCHEDULING_POLICIES_RENDER_COMPUTE_YIELD_LEN 2

/* Opt-in feature keys, value-less (GUC_KLV_OPT_IN_FEATURE_*_KEY). */
#define XEHPG_KLV_OPT_IN_FEATURE_EXT_CAT_ERR_TYPE 0x4001

/* Per-context policy keys (enum guc_context_policies, GUC_CONTEXT_POLICIES_KLV_ID_*). */
#define XEHPG_KLV_CONTEXT_POLICY_EXECUTION_QUANTUM 0x2001
#define XEHPG_KLV_CONTEXT_POLICY_PREEMPTION_TIMEOUT 0x2002
#define XEHPG_KLV_CONTEXT_POLICY_SCHEDULING_PRIORITY 0x2003

/*
 * SR-IOV PF actions (upstream abi/guc_actions_sriov_abi.h).
 * PF2GUC_UPDATE_VF_CFG: {hdr, VF, KLV list GGTT address low, high, dwords} over
 * CT; the reply's DATA0 counts the KLVs applied; address and size 0 reset the
 * VF's configuration. PF2GUC_VF_CONTROL: {hdr, VF, command}.
 * GUC2PF_VF_STATE_NOTIFY (event): {VF, what}; GUC2PF_ADVERSE_EVENT (event):
 * {VF, the threshold KLV key that was exceeded}.
 */
#define XEHPG_GUC_ACTION_PF2GUC_UPDATE_VF_CFG 0x5503
#define XEHPG_GUC_ACTION_PF2GUC_VF_CONTROL 0x5506
/*
 * PF2GUC_UPDATE_VGT_POLICY: {hdr, KLV list GGTT address low, high, dwords};
 * the reply's DATA0 counts the policy KLVs applied (xe_gt_sriov_pf_policy.c
 * guc_action_update_vgt_policy).
 */
#define XEHPG_GUC_ACTION_PF2GUC_UPDATE_VGT_POLICY 0x5502
#define XEHPG_GUC_ACTION_GUC2PF_VF_STATE_NOTIFY 0x5106
#define XEHPG_GUC_ACTION_GUC2PF_ADVERSE_EVENT 0x5104
/*
 * TLB invalidation through the GuC (upstream abi/guc_actions_abi.h;
 * xe_guc_tlb_inval.c send_tlb_inval_all, sent without waiting for a reply):
 * TLB_INVALIDATION_ALL {hdr, seqno, op}, op = type (7:0) | mode (15:8) |
 * FLUSH_CACHE (31); the GuC reports it done with the event
 * TLB_INVALIDATION_DONE {seqno}. The PF sends it after every LMTT change
 * (xe_lmtt.c lmtt_invalidate_hw).
 */
#define XEHPG_GUC_ACTION_TLB_INVALIDATION_ALL 0x7002
#define XEHPG_GUC_ACTION_TLB_INVALIDATION_DONE 0x7001
#define XEHPG_GUC_TLB_INVAL_FULL 0x0
#define XEHPG_GUC_TLB_INVAL_MODE_HEAVY 0x0
#define XEHPG_GUC_TLB_INVAL_TYPE_SHIFT 0
#define XEHPG_GUC_TLB_INVAL_MODE_SHIFT 8
#define XEHPG_GUC_TLB_INVAL_FLUSH_CACHE 0x80000000
/*
 * The VF/PF relay (upstream abi/guc_relay_communication_abi.h,
 * abi/guc_actions_sriov_abi.h): the GuC hands the PF a VF's relay message in
 * GUC2PF_RELAY_FROM_VF (event): {VFID, relay ID, message}; the PF answers with
 * PF2GUC_RELAY_TO_VF: {hdr, VFID, relay ID, message}. A relay message is an
 * HXG message of at most the CTB's 255 dwords less the event's 3.
 */
#define XEHPG_GUC_ACTION_GUC2PF_RELAY_FROM_VF 0x5100
#define XEHPG_GUC_ACTION_PF2GUC_RELAY_TO_VF 0x5101
#define XEHPG_GUC_RELAY_MSG_MAX_DWORDS 252
/* Relay actions and the ABI version (upstream abi/guc_relay_actions_abi.h). */
#define XEHPG_RELAY_VERSION_BASE_MAJOR 1
#define XEHPG_RELAY_VERSION_BASE_MINOR 0
#define XEHPG_RELAY_VERSION_LATEST_MAJOR 1
#define XEHPG_RELAY_VERSION_LATEST_MINOR 0
#define XEHPG_RELAY_ACTION_VF2PF_HANDSHAKE 0x0001
#define XEHPG_RELAY_ACTION_VF2PF_QUERY_RUNTIME 0x0101
/* Relay error codes (GUC_RELAY_ERROR_*: errno values). */
#define XEHPG_RELAY_ERROR_UNDISCLOSED 0
/* PF2GUC_VF_CONTROL commands (GUC_PF_TRIGGER_VF_*). */
#define XEHPG_GUC_PF_TRIGGER_VF_PAUSE 1
#define XEHPG_GUC_PF_TRIGGER_VF_RESUME 2
#define XEHPG_GUC_PF_TRIGGER_VF_STOP 3
#define XEHPG_GUC_PF_TRIGGER_VF_FLR_START 4
#define XEHPG_GUC_PF_TRIGGER_VF_FLR_FINISH 5
/* GUC2PF_VF_STATE_NOTIFY events (GUC_PF_NOTIFY_VF_*); ENABLE only for VF 0. */
#define XEHPG_GUC_PF_NOTIFY_VF_ENABLE 1
#define XEHPG_GUC_PF_NOTIFY_VF_FLR 1
#define XEHPG_GUC_PF_NOTIFY_VF_FLR_DONE 2
#define XEHPG_GUC_PF_NOTIFY_VF_PAUSE_DONE 3
#define XEHPG_GUC_PF_NOTIFY_VF_FIXUP_DONE 4

/*
 * VGT policy keys (GUC_KLV_VGT_POLICY_*_KEY, seed 003 line 9), for
 * PF2GUC_UPDATE_VGT_POLICY. SCHED_IF_IDLE: 1 schedules a VF for its quantum
 * even without work; changing it sets every function's priority (NORMAL when
 * 1, LOW when 0).
 */
#define XEHPG_KLV_VGT_POLICY_SCHED_IF_IDLE 0x8001

/* VF configuration keys (GUC_KLV_VF_CFG_*_KEY), for PF2GUC_UPDATE_VF_CFG. */
#define XEHPG_KLV_VF_CFG_GGTT_START 0x0001
#define XEHPG_KLV_VF_CFG_GGTT_SIZE 0x0002
#define XEHPG_KLV_VF_CFG_LMEM_SIZE 0x0003
#define XEHPG_KLV_VF_CFG_NUM_CONTEXTS 0x0004
#define XEHPG_KLV_VF_CFG_NUM_DOORBELLS 0x0006
#define XEHPG_KLV_VF_CFG_EXEC_QUANTUM 0x8a01
#define XEHPG_KLV_VF_CFG_PREEMPT_TIMEOUT 0x8a02
#define XEHPG_KLV_VF_CFG_BEGIN_DOORBELL_ID 0x8a0a
#define XEHPG_KLV_VF_CFG_BEGIN_CONTEXT_ID 0x8a0b
#define XEHPG_KLV_VF_CFG_SCHED_PRIORITY 0x8a0c
/* Adverse-event thresholds (seed 003 line 11; 0: not reported). */
#define XEHPG_KLV_VF_CFG_THRESHOLD_CAT_ERR 0x8a03
#define XEHPG_KLV_VF_CFG_THRESHOLD_ENGINE_RESET 0x8a04
#define XEHPG_KLV_VF_CFG_THRESHOLD_PAGE_FAULT 0x8a05
#define XEHPG_KLV_VF_CFG_THRESHOLD_H2G_STORM 0x8a06
#define XEHPG_KLV_VF_CFG_THRESHOLD_IRQ_STORM 0x8a07
#define XEHPG_KLV_VF_CFG_THRESHOLD_DOORBELL_STORM 0x8a08

/* Error codes in FAILURE responses (upstream abi/guc_errors_abi.h). */
#define XEHPG_GUC_ERROR_UNKNOWN_ACTION 0x30
#define XEHPG_GUC_ERROR_INVALID_KLV_DATA 0x50
#define XEHPG_GUC_ERROR_INVALID_PARAMS 0x60
#define XEHPG_GUC_ERROR_INVALID_GGTT_ADDRESS 0x80
#define XEHPG_GUC_ERROR_MALFORMED_KLV 0x103
#define XEHPG_GUC_ERROR_INVALID_KLV_KEY 0x105
#define XEHPG_GUC_ERROR_CTB_FULL 0x301
#define XEHPG_GUC_ERROR_CTB_NOT_REGISTERED 0x304

/*
 * GUC_STATUS (0xC000) UKERNEL (15:8) and BOOTROM (7:1) codes
 * (upstream abi/guc_errors_abi.h). Both sides decode and produce these.
 */
#define XEHPG_GUC_UKERNEL_DEFAULT 0x00
#define XEHPG_GUC_UKERNEL_START 0x01
#define XEHPG_GUC_UKERNEL_DEVID_BUILD_MISMATCH 0x02
#define XEHPG_GUC_UKERNEL_PREPROD_BUILD_MISMATCH 0x03
#define XEHPG_GUC_UKERNEL_DEVID_INVALID_GUCTYPE 0x04
#define XEHPG_GUC_UKERNEL_HWCONFIG_START 0x05
#define XEHPG_GUC_UKERNEL_HWCONFIG_DONE 0x06
#define XEHPG_GUC_UKERNEL_HWCONFIG_ERROR 0x07
#define XEHPG_GUC_UKERNEL_BOOTROM_VERSION_MISMATCH 0x08
#define XEHPG_GUC_UKERNEL_GDT_DONE 0x10
#define XEHPG_GUC_UKERNEL_IDT_DONE 0x20
#define XEHPG_GUC_UKERNEL_LAPIC_DONE 0x30
#define XEHPG_GUC_UKERNEL_GUCINT_DONE 0x40
#define XEHPG_GUC_UKERNEL_DPC_READY 0x50
#define XEHPG_GUC_UKERNEL_DPC_ERROR 0x60
#define XEHPG_GUC_UKERNEL_EXCEPTION 0x70
#define XEHPG_GUC_UKERNEL_INIT_DATA_INVALID 0x71
#define XEHPG_GUC_UKERNEL_PXP_TEARDOWN_CTRL_ENABLED 0x72
#define XEHPG_GUC_UKERNEL_MPU_DATA_INVALID 0x73
#define XEHPG_GUC_UKERNEL_INIT_MMIO_SAVE_RESTORE_INVALID 0x74
#define XEHPG_GUC_UKERNEL_KLV_WORKAROUND_INIT_ERROR 0x75
#define XEHPG_GUC_UKERNEL_INVALID_FTR_FLAG 0x76
#define XEHPG_GUC_UKERNEL_READY 0xf0

#define XEHPG_GUC_BOOTROM_NO_KEY_FOUND 0x13
#define XEHPG_GUC_BOOTROM_AES_PROD_KEY_FOUND 0x1a
#define XEHPG_GUC_BOOTROM_PROD_KEY_CHECK_FAILURE 0x2b
#define XEHPG_GUC_BOOTROM_RSA_FAILED 0x50
#define XEHPG_GUC_BOOTROM_PAVPC_FAILED 0x73
#define XEHPG_GUC_BOOTROM_WOPCM_FAILED 0x74
#define XEHPG_GUC_BOOTROM_LOADLOC_FAILED 0x75
#define XEHPG_GUC_BOOTROM_JUMP_PASSED 0x76
#define XEHPG_GUC_BOOTROM_JUMP_FAILED 0x77
#define XEHPG_GUC_BOOTROM_RC6CTXCONFIG_FAILED 0x79
#define XEHPG_GUC_BOOTROM_MPUMAP_INCORRECT 0x7a
#define XEHPG_GUC_BOOTROM_EXCEPTION 0x7e

/*
 * Boot parameters: SOFT_SCRATCH(1 + i) = param[i] (upstream xe_guc_fwif.h,
 * GUC_CTL_*; SOFT_SCRATCH(0) is written 0).
 */
#define XEHPG_GUC_CTL_LOG_PARAMS 0
#define XEHPG_GUC_CTL_WA 1
#define XEHPG_GUC_CTL_FEATURE 2
#define XEHPG_GUC_CTL_DEBUG 3
#define XEHPG_GUC_CTL_ADS 4
#define XEHPG_GUC_CTL_DEVID 5
#define XEHPG_GUC_CTL_MAX_DWORDS 14
/*
 * GUC_CTL_WA bits (xe_guc_fwif.h GUC_WA_*), the ones guc_ctl_wa_flags can
 * set on DG2 / ATS-M (graphics 12.55): see rust/guc/ads.rs ctl_wa.
 */
#define XEHPG_GUC_WA_DUAL_QUEUE (1u << 11)
#define XEHPG_GUC_WA_PRE_PARSER (1u << 14)
#define XEHPG_GUC_WA_CONTEXT_ISOLATION (1u << 15)
#define XEHPG_GUC_WA_HOLD_CCS_SWITCHOUT (1u << 17)
#define XEHPG_GUC_WA_ENABLE_TSC_CHECK_ON_RC6 (1u << 22)
/* GUC_CTL_FEATURE bits (xe_guc_fwif.h). */
#define XEHPG_GUC_CTL_ENABLE_SLPC (1u << 2)
#define XEHPG_GUC_CTL_ENABLE_LITE_RESTORE (1u << 4)
#define XEHPG_GUC_CTL_DISABLE_MULTI_QUEUE (1u << 24)
/* LOG_PARAMS: valid 0, crash dump 5:4, event data 9:6 (4 KiB units less one), buffer 31:12. */
#define XEHPG_GUC_LOG_VALID 0x1
/* Ask the GuC for NOTIFY_FLUSH_LOG_BUFFER_TO_FILE at half full (bit 1). */
#define XEHPG_GUC_LOG_NOTIFY_ON_HALF_FULL 0x2
#define XEHPG_GUC_LOG_BUF_ADDR_MASK 0xfffff000
/* DEBUG: verbosity 1:0, log disabled 6 (verbose logging off; xe_guc_fwif.h). */
#define XEHPG_GUC_DEBUG_LOG_VERBOSITY 0x3
#define XEHPG_GUC_DEBUG_LOG_DISABLED 0x40
/*
 * ADS: GGTT address >> 12 in bits 21:1, as xe's GUC_ADS_ADDR
 * (REG_GENMASK(21, 1), xe_guc_fwif.h); the seeds do not describe GUC_CTL.
 * i915's intel_guc_fwif.h has (0xFFFFF << 1), bits 20:1: the readings differ
 * only in bit 21, which no GuC GGTT address (below GUC_GGTT_TOP, 0xFEE00000)
 * sets. Checked against xe by the `uabi` suite (tools/check/uabi.toml).
 */
#define XEHPG_GUC_ADS_ADDR_SHIFT 1
#define XEHPG_GUC_ADS_ADDR_MASK 0x1fffff

/*
 * Additional Data Structures (ADS): the GuC reads this at boot through the
 * GGTT address in GUC_CTL_ADS (upstream xe_guc_fwif.h struct guc_ads and
 * friends; abi/guc_scheduler_abi.h and abi/guc_capture_abi.h for the sizes).
 * Pointers inside are GGTT addresses.
 */
#define XEHPG_GUC_MAX_ENGINE_CLASSES 16
/* The last GuC engine class (GUC_LAST_ENGINE_CLASS, GUC_PAGING_CLASS). */
#define XEHPG_GUC_LAST_ENGINE_CLASS 6
/* Capture list classes: render-compute, video, video-enhance, blitter,
 * GSC-other, paging (GUC_CAPTURE_LIST_CLASS_MAX).
 */
#define XEHPG_GUC_CAPTURE_LIST_CLASS_MAX 6
#define XEHPG_GUC_MAX_INSTANCES_PER_CLASS 32
#define XEHPG_GUC_CAPTURE_LIST_INDEX_MAX 2
#define XEHPG_GUC_GENERIC_GT_SYSINFO_MAX 16

struct xehpg_guc_mmio_reg_set {
	uint32_t address;
	uint16_t count;
	uint16_t reserved;
} __attribute__((packed));

/*
 * One register of an engine's save/restore list (abi/guc_capture_abi.h
 * struct guc_mmio_reg): the GuC saves it before an engine reset it performs
 * and writes it back after. MASKED: a masked register, restored with its
 * enable half set.
 */
struct xehpg_guc_mmio_reg {
	uint32_t offset;
	uint32_t value;
	uint32_t flags;
	uint32_t mask;
} __attribute__((packed));
#define XEHPG_GUC_REGSET_MASKED 0x1
/* A multicast register: the GuC steers its save and restore to the group
 * and instance given, one that is not fused off (abi/guc_capture_abi.h
 * GUC_REGSET_STEERING_*, set by xe_guc_ads.c guc_mmio_regset_write_one).
 */
#define XEHPG_GUC_REGSET_STEERING_NEEDED 0x2
#define XEHPG_GUC_REGSET_STEERING_GROUP_SHIFT 12
#define XEHPG_GUC_REGSET_STEERING_GROUP_MASK 0x1f
#define XEHPG_GUC_REGSET_STEERING_INSTANCE_SHIFT 20
#define XEHPG_GUC_REGSET_STEERING_INSTANCE_MASK 0xf

/*
 * A capture list header with no register in it (xe_guc_capture.c
 * xe_guc_capture_getnullheader: four zero dwords).
 */
#define XEHPG_GUC_CAPTURE_NULL_LIST_DWORDS 4

/*
 * Workaround KLVs, value-less, in the ADS's w/a KLV buffer
 * (abi/guc_klvs_abi.h enum xe_guc_klv_ids).
 */
#define XEHPG_GUC_WA_KLV_BLOCK_INTERRUPTS_WHEN_MGSR_BLOCKED 0x9002
#define XEHPG_GUC_WA_KLV_RESET_BB_STACK_PTR_ON_VF_SWITCH 0x900b

/*
 * Bytes of the execlists register list at the start of a context's register
 * state, which the golden context's engine-state size leaves out
 * (xe_lrc.c xe_lrc_reg_size, graphics 12.50 and later: 96 dwords).
 */
#define XEHPG_LRC_REG_BYTES 384

struct xehpg_guc_policies {
	uint32_t submission_queue_depth[XEHPG_GUC_MAX_ENGINE_CLASSES];
	/* Microseconds before DPC processing is called back. */
	uint32_t dpc_promote_time;
	/* Must be 1 for the GuC to take these values. */
	uint32_t is_valid;
	uint32_t max_num_work_items;
	uint32_t global_flags;
	uint32_t reserved[4];
} __attribute__((packed));

struct xehpg_guc_gt_system_info {
	uint8_t mapping_table[XEHPG_GUC_MAX_ENGINE_CLASSES][XEHPG_GUC_MAX_INSTANCES_PER_CLASS];
	uint32_t engine_enabled_masks[XEHPG_GUC_MAX_ENGINE_CLASSES];
	uint32_t generic_gt_sysinfo[XEHPG_GUC_GENERIC_GT_SYSINFO_MAX];
} __attribute__((packed));

struct xehpg_guc_ads {
	struct xehpg_guc_mmio_reg_set reg_state_list[XEHPG_GUC_MAX_ENGINE_CLASSES][XEHPG_GUC_MAX_INSTANCES_PER_CLASS];
	uint32_t reserved0;
	uint32_t scheduler_policies;
	uint32_t gt_system_info;
	uint32_t reserved1;
	uint32_t control_data;
	uint32_t golden_context_lrca[XEHPG_GUC_MAX_ENGINE_CLASSES];
	uint32_t eng_state_size[XEHPG_GUC_MAX_ENGINE_CLASSES];
	uint32_t private_data;
	uint32_t um_init_data;
	uint32_t capture_instance[XEHPG_GUC_CAPTURE_LIST_INDEX_MAX][XEHPG_GUC_MAX_ENGINE_CLASSES];
	uint32_t capture_class[XEHPG_GUC_CAPTURE_LIST_INDEX_MAX][XEHPG_GUC_MAX_ENGINE_CLASSES];
	uint32_t capture_global[XEHPG_GUC_CAPTURE_LIST_INDEX_MAX];
	uint32_t wa_klv_addr_lo;
	uint32_t wa_klv_addr_hi;
	uint32_t wa_klv_size;
	uint32_t reserved[11];
} __attribute__((packed));

/*
 * The start of the ADS buffer xehpg hands the GuC, for both loads (as
 * upstream's struct __guc_ads_blob, without the engine usage and UM fields
 * DG2 does not use): the ADS, then the policies and the system info it
 * points to. For the full (second) load the per-engine register lists follow
 * at XEHPG_GUC_ADS_REGSET_OFFSET, then, each 4 KiB aligned, the golden
 * contexts, the w/a KLVs, the null capture list and the GuC private data
 * (rust/guc/ads.rs Layout).
 */
struct xehpg_guc_ads_blob {
	struct xehpg_guc_ads ads;
	struct xehpg_guc_policies policies;
	struct xehpg_guc_gt_system_info system_info;
} __attribute__((packed));

#define XEHPG_GUC_ADS_REGSET_OFFSET 0x1500
#define XEHPG_GUC_ADS_REGSET_END 0x2000

#endif /* XEHPG_ABI_H */
