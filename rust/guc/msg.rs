// SPDX-License-Identifier: GPL-2.0

//! The typed GuC protocol: one type per host-to-GuC request the driver sends, and one enum
//! for the GuC-to-host events it handles. This module is the driver's codec: no other module
//! builds or reads raw message dwords (the mock has its own codec, on purpose: it is the other
//! side of the wire).
//!
//! # Requests
//!
//! A request implements [`H2gRequest`]: its action, its longest encoding (the exact length for
//! the fixed-size ones; every request the driver sends today is fixed-size, the KLV-carrying
//! ones pass their KLVs by GGTT address or inline at a fixed count), its named fields, how its
//! fields are laid out after the HXG header, and the [`H2gRequest::Reply`] its SUCCESS carries
//! in DATA0. The CT channel ([`Channel::request`], [`Channel::send_fast`]) and the MMIO path
//! ([`h2g::send`]) take a request, never dwords: the header comes from the type's `ACTION`, so
//! a message cannot carry a wrong action, and the length checks are at build time (at most 255
//! dwords for the CT, 4 for MMIO). The marker traits say which path a request may take:
//! [`MmioRequest`] (fits the four message registers) and [`FastRequest`] (may go without a
//! reply, as a FAST_REQUEST).
//!
//! Layouts are upstream's (`abi/guc_actions_abi.h`, `abi/guc_actions_sriov_abi.h`,
//! `abi/guc_messages_abi.h`); each type names the header and the xe function that sends the
//! same message. Nothing is allocated: a request encodes into the caller's buffer (for the CT,
//! the stack copy the channel writes into the ring).
//!
//! # Events
//!
//! [`decode_event`] turns an EVENT's action and payload into a [`G2hEvent`] once, in the
//! channel; a known event whose payload is too short is a [`BadEvent`] (counted and logged by
//! its owner as before), an unknown action is [`G2hEvent::Unknown`].
//!
//! [`Channel::request`]: super::Channel::request
//! [`Channel::send_fast`]: super::Channel::send_fast
//! [`h2g::send`]: super::h2g::send

use kernel::prelude::*;

use super::{hxg::Hxg, klv::Writer};
use crate::abi::*;

/// The longest CT message after its CTB header (`GUC_CTB_MSG_MAX_LEN` less the header).
const CT_MAX_DWORDS: usize = XEHPG_CTB_NUM_DWORDS_MASK as usize;

/// A host-to-GuC request.
pub(crate) trait H2gRequest {
    /// The action in the HXG header (`XEHPG_GUC_ACTION_*`).
    const ACTION: u32;
    /// The longest encoding in dwords, HXG header included.
    const MAX_DWORDS: usize;
    /// What a SUCCESS reply carries, decoded from its DATA0.
    type Reply: FromData0;

    /// Build-time check that the request fits a CT message (used by the channel).
    const FITS_CT: () = assert!(Self::MAX_DWORDS >= 1 && Self::MAX_DWORDS <= CT_MAX_DWORDS);

    /// Writes the dwords after the HXG header into `out`, which holds `MAX_DWORDS - 1`;
    /// returns how many it wrote. Any context: no allocation, no sleeping.
    ///
    /// # Errors
    ///
    /// `EINVAL` for a field value its bits cannot hold, or the KLV writer's error.
    fn encode_payload(&self, out: &mut [u32]) -> Result<usize>;

    /// Decodes a SUCCESS's DATA0: by default as [`Self::Reply`]'s [`FromData0`] reads it; a
    /// request whose ABI is stricter than its reply type overrides this.
    ///
    /// # Errors
    ///
    /// The DATA0 itself when the ABI does not allow it for this request.
    fn decode_reply(data0: u32) -> Result<Self::Reply, u32> {
        Self::Reply::from_data0(data0)
    }
}

/// A reply type read from a SUCCESS's DATA0 (`abi/guc_messages_abi.h`, `GUC_HXG_RESPONSE_MSG_0`).
pub(crate) trait FromData0: Sized {
    /// Decodes `data0`.
    ///
    /// # Errors
    ///
    /// The DATA0 itself when this type cannot hold it.
    fn from_data0(data0: u32) -> Result<Self, u32>;
}

/// A reply that carries nothing: any DATA0 is accepted and ignored (upstream reads none).
impl FromData0 for () {
    fn from_data0(_data0: u32) -> Result<(), u32> {
        Ok(())
    }
}

/// A DATA0 that is a count (of KLVs applied, of bytes written): any value; the caller
/// compares it with what it sent.
impl FromData0 for u32 {
    fn from_data0(data0: u32) -> Result<u32, u32> {
        Ok(data0)
    }
}

/// A DATA0 that is a flag: 1 or 0, anything else refused.
impl FromData0 for bool {
    fn from_data0(data0: u32) -> Result<bool, u32> {
        match data0 {
            1 => Ok(true),
            0 => Ok(false),
            n => Err(n),
        }
    }
}

/// A request that fits the four MMIO message registers (`GUC_MAX_MMIO_MSG_LEN`).
pub(crate) trait MmioRequest: H2gRequest {
    /// Build-time check of the length (used by [`super::h2g`]).
    const FITS_MMIO: () = assert!(
        Self::MAX_DWORDS >= 1 && Self::MAX_DWORDS <= XEHPG_GUC_MMIO_MSG_MAX_DWORDS as usize
    );
}

/// A request that may be sent as a FAST_REQUEST: the GuC answers only if it fails.
pub(crate) trait FastRequest: H2gRequest {}

/// Encodes `req` into `out`: the HXG REQUEST header with `R::ACTION`, then its fields. Returns
/// the dwords written. Any context.
///
/// # Errors
///
/// `EINVAL` if `out` is shorter than `R::MAX_DWORDS` or the request's encoding fails or claims
/// more than its maximum.
pub(crate) fn encode<R: H2gRequest>(req: &R, out: &mut [u32]) -> Result<usize> {
    let out = out.get_mut(..R::MAX_DWORDS).ok_or(EINVAL)?;
    let (header, rest) = out.split_first_mut().ok_or(EINVAL)?;
    let n = req.encode_payload(rest)?;
    if n > rest.len() {
        return Err(EINVAL);
    }
    *header = Hxg::request(R::ACTION, 0).into_raw();
    Ok(n + 1)
}

/// The low and high dwords of a 64-bit value.
fn halves(v: u64) -> (u32, u32) {
    // CAST: the two halves of `v`.
    (v as u32, (v >> 32) as u32)
}

/// Writes `words` at the start of `out`; returns how many.
fn put(out: &mut [u32], words: &[u32]) -> Result<usize> {
    let dst = out.get_mut(..words.len()).ok_or(EINVAL)?;
    for (d, w) in dst.iter_mut().zip(words) {
        *d = *w;
    }
    Ok(words.len())
}

/// A CT buffer key of `HOST2GUC_SELF_CFG` (`abi/guc_klvs_abi.h` `GUC_KLV_SELF_CFG_*_KEY`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u32)]
pub(crate) enum SelfCfgKey {
    H2gDescriptor = XEHPG_KLV_SELF_CFG_H2G_CTB_DESCRIPTOR_ADDR,
    H2gAddr = XEHPG_KLV_SELF_CFG_H2G_CTB_ADDR,
    H2gSize = XEHPG_KLV_SELF_CFG_H2G_CTB_SIZE,
    G2hDescriptor = XEHPG_KLV_SELF_CFG_G2H_CTB_DESCRIPTOR_ADDR,
    G2hAddr = XEHPG_KLV_SELF_CFG_G2H_CTB_ADDR,
    G2hSize = XEHPG_KLV_SELF_CFG_G2H_CTB_SIZE,
}

impl SelfCfgKey {
    /// Addresses are 64-bit KLVs, sizes 32-bit (`GUC_KLV_SELF_CFG_*_LEN`).
    pub(crate) fn wide(self) -> bool {
        !matches!(self, SelfCfgKey::H2gSize | SelfCfgKey::G2hSize)
    }
}

/// `HOST2GUC_SELF_CFG` (0x0508, MMIO): one KLV {header, value low, value high}; a 32-bit value
/// leaves the last dword 0 (`abi/guc_actions_abi.h`; xe `xe_guc.c` `guc_self_cfg`). Reply:
/// whether the GuC took the KLV (DATA0 1, or 0 for a key it does not know; nothing else is
/// allowed).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct SelfCfg {
    pub(crate) key: SelfCfgKey,
    pub(crate) value: u64,
}

impl H2gRequest for SelfCfg {
    const ACTION: u32 = XEHPG_GUC_ACTION_HOST2GUC_SELF_CFG;
    const MAX_DWORDS: usize = 4;
    type Reply = bool;

    fn encode_payload(&self, out: &mut [u32]) -> Result<usize> {
        let out = out.get_mut(..3).ok_or(EINVAL)?;
        out.fill(0);
        // CAST: the keys are 16-bit ABI constants.
        let key = self.key as u16;
        let mut w = Writer::new(out);
        if self.key.wide() {
            w.put_u64(key, self.value)?;
        } else {
            w.put_u32(key, u32::try_from(self.value).map_err(|_| EINVAL)?)?;
        }
        Ok(3)
    }
}

impl MmioRequest for SelfCfg {}

/// `HOST2GUC_CONTROL_CTB` (0x4509, MMIO): {header, ENABLE or DISABLE}
/// (`abi/guc_actions_abi.h`; xe `xe_guc_ct.c` `guc_ct_control_toggle`). The reply carries no
/// data: a DATA0 other than 0 is refused.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct ControlCtb {
    pub(crate) enable: bool,
}

impl H2gRequest for ControlCtb {
    const ACTION: u32 = XEHPG_GUC_ACTION_HOST2GUC_CONTROL_CTB;
    const MAX_DWORDS: usize = 2;
    type Reply = ();

    fn encode_payload(&self, out: &mut [u32]) -> Result<usize> {
        let control = if self.enable {
            XEHPG_GUC_CTB_CONTROL_ENABLE
        } else {
            XEHPG_GUC_CTB_CONTROL_DISABLE
        };
        put(out, &[control])
    }

    fn decode_reply(data0: u32) -> Result<(), u32> {
        if data0 == 0 {
            Ok(())
        } else {
            Err(data0)
        }
    }
}

impl MmioRequest for ControlCtb {}

/// `GET_HWCONFIG` (0x4100, MMIO): {header, buffer GGTT address low, high, size in bytes};
/// address and size 0 ask for the table's size (`abi/guc_actions_abi.h`; xe
/// `xe_guc_hwconfig.c` `send_get_hwconfig`). Reply: the size, or the bytes written.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct GetHwconfig {
    pub(crate) addr: u64,
    pub(crate) size: u32,
}

impl GetHwconfig {
    /// The size query.
    pub(crate) const QUERY: Self = Self { addr: 0, size: 0 };
}

impl H2gRequest for GetHwconfig {
    const ACTION: u32 = XEHPG_GUC_ACTION_GET_HWCONFIG;
    const MAX_DWORDS: usize = 4;
    type Reply = u32;

    fn encode_payload(&self, out: &mut [u32]) -> Result<usize> {
        let (lo, hi) = halves(self.addr);
        put(out, &[lo, hi, self.size])
    }
}

impl MmioRequest for GetHwconfig {}

/// `UPDATE_SCHEDULING_POLICIES_KLV` (0x0509) with the one KLV the driver sets,
/// `RENDER_COMPUTE_YIELD` {ms, ratio}, inline (`abi/guc_actions_abi.h`, `abi/guc_klvs_abi.h`;
/// xe `xe_guc_submit.c` `guc_init_global_schedule_policy`). Reply: the KLVs applied. Also sent
/// as a FAST_REQUEST by the debugfs load runs (the GuC applies it again, nothing changes).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct RenderComputeYield {
    pub(crate) ms: u32,
    pub(crate) ratio: u32,
}

impl H2gRequest for RenderComputeYield {
    const ACTION: u32 = XEHPG_GUC_ACTION_UPDATE_SCHEDULING_POLICIES_KLV;
    const MAX_DWORDS: usize = 2 + XEHPG_KLV_SCHEDULING_POLICIES_RENDER_COMPUTE_YIELD_LEN as usize;
    type Reply = u32;

    fn encode_payload(&self, out: &mut [u32]) -> Result<usize> {
        let mut w = Writer::new(out);
        // CAST: the key is a 16-bit ABI constant.
        w.put(
            XEHPG_KLV_SCHEDULING_POLICIES_RENDER_COMPUTE_YIELD as u16,
            &[self.ms, self.ratio],
        )?;
        Ok(w.len())
    }
}

impl FastRequest for RenderComputeYield {}

/// `OPT_IN_FEATURE_KLV` (0x550E): {header, KLV buffer GGTT address low, high, dwords}
/// (`abi/guc_actions_abi.h`; xe `xe_guc.c` `__guc_opt_in_features_enable`). The reply's DATA0
/// is not used (upstream reads none).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct OptInFeatures {
    pub(crate) addr: u64,
    pub(crate) dwords: u32,
}

impl H2gRequest for OptInFeatures {
    const ACTION: u32 = XEHPG_GUC_ACTION_OPT_IN_FEATURE_KLV;
    const MAX_DWORDS: usize = 4;
    type Reply = ();

    fn encode_payload(&self, out: &mut [u32]) -> Result<usize> {
        let (lo, hi) = halves(self.addr);
        put(out, &[lo, hi, self.dwords])
    }
}

/// `REGISTER_CONTEXT` (0x4502) for a kernel single-LRC context: {header, flags (KMD), context
/// index, GuC engine class, logical-instance mask, five work-queue dwords (0: no work queue),
/// LRC descriptor low, high} (`abi/guc_actions_abi.h`, `struct guc_ctxt_registration_info`
/// in `xe_guc_fwif.h`; xe `xe_guc_submit.c` `__register_exec_queue`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct RegisterContext {
    pub(crate) id: u16,
    /// GuC engine class ([`super::guc_class`]).
    pub(crate) class: u32,
    pub(crate) mask: u32,
    /// The LRC descriptor.
    pub(crate) desc: u64,
}

impl H2gRequest for RegisterContext {
    const ACTION: u32 = XEHPG_GUC_ACTION_REGISTER_CONTEXT;
    const MAX_DWORDS: usize = XEHPG_GUC_REGISTER_CONTEXT_DWORDS as usize;
    type Reply = ();

    fn encode_payload(&self, out: &mut [u32]) -> Result<usize> {
        let (lo, hi) = halves(self.desc);
        put(
            out,
            &[
                XEHPG_GUC_CONTEXT_REGISTRATION_FLAG_KMD,
                u32::from(self.id),
                self.class,
                self.mask,
                0,
                0,
                0,
                0,
                0,
                lo,
                hi,
            ],
        )
    }
}

/// `HOST2GUC_UPDATE_CONTEXT_POLICIES` (0x100B): {header, context index, KLVs}, here the three
/// upstream sets for a kernel queue: priority, execution quantum, preemption timeout
/// (`abi/guc_actions_abi.h`, `abi/guc_klvs_abi.h` `GUC_CONTEXT_POLICIES_KLV_ID_*`; xe
/// `xe_guc_submit.c` `init_policies`, `__guc_exec_queue_policy_start_klv`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct UpdateContextPolicies {
    pub(crate) id: u16,
    pub(crate) priority: u32,
    pub(crate) quantum_us: u32,
    pub(crate) preempt_us: u32,
}

impl H2gRequest for UpdateContextPolicies {
    const ACTION: u32 = XEHPG_GUC_ACTION_UPDATE_CONTEXT_POLICIES;
    /// Header, index, three one-dword KLVs.
    const MAX_DWORDS: usize = 2 + 3 * 2;
    type Reply = ();

    fn encode_payload(&self, out: &mut [u32]) -> Result<usize> {
        let (id, klvs) = out.split_first_mut().ok_or(EINVAL)?;
        *id = u32::from(self.id);
        let mut w = Writer::new(klvs);
        // CAST: 16-bit KLV keys.
        w.put_u32(
            XEHPG_KLV_CONTEXT_POLICY_SCHEDULING_PRIORITY as u16,
            self.priority,
        )?;
        w.put_u32(
            XEHPG_KLV_CONTEXT_POLICY_EXECUTION_QUANTUM as u16,
            self.quantum_us,
        )?;
        w.put_u32(
            XEHPG_KLV_CONTEXT_POLICY_PREEMPTION_TIMEOUT as u16,
            self.preempt_us,
        )?;
        Ok(1 + w.len())
    }
}

/// `SCHED_CONTEXT_MODE_SET` (0x1001): {header, context index, enable or disable}; the GuC
/// answers with the `SCHED_CONTEXT_MODE_DONE` event (`abi/guc_actions_abi.h`; xe
/// `xe_guc_submit.c` `enable_scheduling`, `disable_scheduling`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct SchedContextModeSet {
    pub(crate) id: u16,
    pub(crate) enable: bool,
}

impl H2gRequest for SchedContextModeSet {
    const ACTION: u32 = XEHPG_GUC_ACTION_SCHED_CONTEXT_MODE_SET;
    const MAX_DWORDS: usize = 3;
    type Reply = ();

    fn encode_payload(&self, out: &mut [u32]) -> Result<usize> {
        let state = if self.enable {
            XEHPG_GUC_CONTEXT_ENABLE
        } else {
            XEHPG_GUC_CONTEXT_DISABLE
        };
        put(out, &[u32::from(self.id), state])
    }
}

/// `SCHED_CONTEXT` (0x1000): {header, context index}: the context has new work. A fast
/// request on the submission path (`abi/guc_actions_abi.h`; xe `xe_guc_submit.c`
/// `submit_exec_queue`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct SchedContext {
    pub(crate) id: u16,
}

impl H2gRequest for SchedContext {
    const ACTION: u32 = XEHPG_GUC_ACTION_SCHED_CONTEXT;
    const MAX_DWORDS: usize = 2;
    type Reply = ();

    fn encode_payload(&self, out: &mut [u32]) -> Result<usize> {
        put(out, &[u32::from(self.id)])
    }
}

impl FastRequest for SchedContext {}

/// `DEREGISTER_CONTEXT` (0x4503): {header, context index}; the GuC answers with the
/// `DEREGISTER_CONTEXT_DONE` event (`abi/guc_actions_abi.h`; xe `xe_guc_submit.c`
/// `deregister_exec_queue`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct DeregisterContext {
    pub(crate) id: u16,
}

impl H2gRequest for DeregisterContext {
    const ACTION: u32 = XEHPG_GUC_ACTION_DEREGISTER_CONTEXT;
    const MAX_DWORDS: usize = 2;
    type Reply = ();

    fn encode_payload(&self, out: &mut [u32]) -> Result<usize> {
        put(out, &[u32::from(self.id)])
    }
}

/// `ALLOCATE_DOORBELL` (0x10): {header, context index, doorbell id, doorbell page offset}.
/// The action number is upstream's (`abi/guc_actions_abi.h`); xe sends it nowhere and the
/// payload is a GUESS (`submit::doorbell` module docs).
/// Test build only: the doorbell ABI is a guess.
#[cfg(xehpg_test)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct AllocateDoorbell {
    pub(crate) ctx: u16,
    /// The physical doorbell.
    pub(crate) id: u16,
    /// Its page's offset in BAR 0.
    pub(crate) offset: u32,
}

#[cfg(xehpg_test)]
impl H2gRequest for AllocateDoorbell {
    const ACTION: u32 = XEHPG_GUC_ACTION_ALLOCATE_DOORBELL;
    const MAX_DWORDS: usize = 4;
    type Reply = ();

    fn encode_payload(&self, out: &mut [u32]) -> Result<usize> {
        put(out, &[u32::from(self.ctx), u32::from(self.id), self.offset])
    }
}

/// `DEALLOCATE_DOORBELL` (0x20): {header, context index} (action upstream's; payload a GUESS
/// as [`AllocateDoorbell`]).
/// Test build only: the doorbell ABI is a guess.
#[cfg(xehpg_test)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct DeallocateDoorbell {
    pub(crate) ctx: u16,
}

#[cfg(xehpg_test)]
impl H2gRequest for DeallocateDoorbell {
    const ACTION: u32 = XEHPG_GUC_ACTION_DEALLOCATE_DOORBELL;
    const MAX_DWORDS: usize = 2;
    type Reply = ();

    fn encode_payload(&self, out: &mut [u32]) -> Result<usize> {
        put(out, &[u32::from(self.ctx)])
    }
}

/// A `PF2GUC_VF_CONTROL` command (`GUC_PF_TRIGGER_VF_*`, `abi/guc_actions_sriov_abi.h`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u32)]
pub(crate) enum VfCommand {
    Pause = XEHPG_GUC_PF_TRIGGER_VF_PAUSE,
    Resume = XEHPG_GUC_PF_TRIGGER_VF_RESUME,
    Stop = XEHPG_GUC_PF_TRIGGER_VF_STOP,
    FlrStart = XEHPG_GUC_PF_TRIGGER_VF_FLR_START,
    FlrFinish = XEHPG_GUC_PF_TRIGGER_VF_FLR_FINISH,
}

/// `PF2GUC_VF_CONTROL` (0x5506): {header, VF, command} (`abi/guc_actions_sriov_abi.h`; xe
/// `xe_gt_sriov_pf_control.c` `guc_action_vf_control_cmd`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct VfControl {
    pub(crate) vf: u16,
    pub(crate) cmd: VfCommand,
}

impl H2gRequest for VfControl {
    const ACTION: u32 = XEHPG_GUC_ACTION_PF2GUC_VF_CONTROL;
    const MAX_DWORDS: usize = 3;
    type Reply = ();

    fn encode_payload(&self, out: &mut [u32]) -> Result<usize> {
        put(out, &[u32::from(self.vf), self.cmd as u32])
    }
}

/// `PF2GUC_UPDATE_VGT_POLICY` (0x5502): {header, KLV buffer GGTT address low, high, dwords}
/// (`abi/guc_actions_sriov_abi.h`; xe `xe_gt_sriov_pf_policy.c` `guc_action_update_vgt_policy`).
/// Reply: the policy KLVs applied.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct UpdateVgtPolicy {
    pub(crate) addr: u64,
    pub(crate) dwords: u32,
}

impl H2gRequest for UpdateVgtPolicy {
    const ACTION: u32 = XEHPG_GUC_ACTION_PF2GUC_UPDATE_VGT_POLICY;
    const MAX_DWORDS: usize = 4;
    type Reply = u32;

    fn encode_payload(&self, out: &mut [u32]) -> Result<usize> {
        let (lo, hi) = halves(self.addr);
        put(out, &[lo, hi, self.dwords])
    }
}

/// `PF2GUC_UPDATE_VF_CFG` (0x5503): {header, VF, KLV buffer GGTT address low, high, dwords};
/// address and size 0 give the VF its defaults (`abi/guc_actions_sriov_abi.h`; xe
/// `xe_gt_sriov_pf_config.c` `guc_action_update_vf_cfg`). Reply: the KLVs applied.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct UpdateVfCfg {
    pub(crate) vf: u16,
    pub(crate) addr: u64,
    pub(crate) dwords: u32,
}

impl UpdateVfCfg {
    /// Back to the defaults (nothing) for VF `vf`.
    pub(crate) const fn reset(vf: u16) -> Self {
        Self {
            vf,
            addr: 0,
            dwords: 0,
        }
    }
}

impl H2gRequest for UpdateVfCfg {
    const ACTION: u32 = XEHPG_GUC_ACTION_PF2GUC_UPDATE_VF_CFG;
    const MAX_DWORDS: usize = 5;
    type Reply = u32;

    fn encode_payload(&self, out: &mut [u32]) -> Result<usize> {
        let (lo, hi) = halves(self.addr);
        put(out, &[u32::from(self.vf), lo, hi, self.dwords])
    }
}

/// `TLB_INVALIDATION_ALL` (0x7002): {header, seqno, op}: every TLB of the GT, the LMTT's
/// translations among them, invalidated in full, heavy mode, caches flushed; the GuC reports
/// it done with `TLB_INVALIDATION_DONE` {seqno} (`abi/guc_actions_abi.h`; xe
/// `xe_guc_tlb_inval.c` `send_tlb_inval_all`, `MAKE_INVAL_OP`). Sent without waiting for a
/// reply, as upstream does.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct TlbInvalidationAll {
    /// Matches the DONE; never 0 (upstream asserts a seqno) nor upstream's
    /// `TLB_INVALIDATION_SEQNO_INVALID` (no DONE).
    pub(crate) seqno: u32,
}

impl H2gRequest for TlbInvalidationAll {
    const ACTION: u32 = XEHPG_GUC_ACTION_TLB_INVALIDATION_ALL;
    const MAX_DWORDS: usize = 3;
    type Reply = ();

    fn encode_payload(&self, out: &mut [u32]) -> Result<usize> {
        let op = (XEHPG_GUC_TLB_INVAL_FULL << XEHPG_GUC_TLB_INVAL_TYPE_SHIFT)
            | (XEHPG_GUC_TLB_INVAL_MODE_HEAVY << XEHPG_GUC_TLB_INVAL_MODE_SHIFT)
            | XEHPG_GUC_TLB_INVAL_FLUSH_CACHE;
        put(out, &[self.seqno, op])
    }
}

impl FastRequest for TlbInvalidationAll {}

/// `LOG_BUFFER_FILE_FLUSH_COMPLETE` (0x30): {header, section}: the host read the section the
/// GuC asked it to flush (`NOTIFY_FLUSH_LOG_BUFFER_TO_FILE`), moved its `read_ptr` and cleared
/// its `flush_to_file` (`abi/guc_log_abi.h`, `struct guc_log_buffer_state`; i915
/// `intel_guc_log.c` `guc_action_flush_log_complete`, which names the event-data section,
/// `GUC_DEBUG_LOG_BUFFER`, 0). No reply.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct LogFlushComplete {
    /// The section (`enum guc_log_type`: 0 event data, 1 crash dump, 2 state capture).
    pub(crate) section: u32,
}

impl H2gRequest for LogFlushComplete {
    const ACTION: u32 = XEHPG_GUC_ACTION_LOG_BUFFER_FILE_FLUSH_COMPLETE;
    const MAX_DWORDS: usize = 2;
    type Reply = ();

    fn encode_payload(&self, out: &mut [u32]) -> Result<usize> {
        put(out, &[self.section])
    }
}

impl FastRequest for LogFlushComplete {}

/// The longest relay message the PF sends a VF: an answer to `VF2PF_QUERY_RUNTIME` over the
/// whole runtime list, its header and count dword and eight offset-value pairs (the relay
/// service checks its answers fit, `sriov::relay`).
pub(crate) const RELAY_REPLY_MAX: usize = 18;

/// The first dwords of a relay message kept on the receive path: enough for every request the
/// PF serves (two dwords each); a longer message is refused by its length, which is kept.
const RELAY_HEAD: usize = 4;

/// A relay message from a VF as the receive path keeps it (upstream
/// `abi/guc_relay_communication_abi.h`, "Relay Message": an HXG message): its first
/// [`RELAY_HEAD`] dwords and its true length, so that an event never allocates and a long
/// message is still refused for its length.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct RelayMsg {
    head: [u32; RELAY_HEAD],
    len: usize,
}

impl RelayMsg {
    /// The message `dwords`. Any context.
    pub(crate) fn new(dwords: &[u32]) -> Self {
        let mut head = [0; RELAY_HEAD];
        for (h, d) in head.iter_mut().zip(dwords) {
            *h = *d;
        }
        Self {
            head,
            len: dwords.len(),
        }
    }

    /// Its length in dwords.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Its first dwords: all of them unless it is longer than [`RELAY_HEAD`].
    pub(crate) fn head(&self) -> &[u32] {
        self.head.get(..self.len.min(RELAY_HEAD)).unwrap_or(&[])
    }
}

/// `PF2GUC_RELAY_TO_VF` (0x5101): {header, VF, relay ID, relay message}; the GuC hands the
/// message to the VF as `GUC2VF_RELAY_FROM_PF` (`abi/guc_actions_sriov_abi.h`,
/// `abi/guc_relay_communication_abi.h`; xe `xe_guc_relay.c` `prepare_pf2guc` and
/// `relay_send_transaction`, a blocking request). The SUCCESS's DATA0 is MBZ
/// (`PF2GUC_RELAY_TO_VF_RESPONSE_DATA0_MBZ`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct RelayToVf {
    pub(crate) vf: u16,
    pub(crate) rid: u32,
    msg: [u32; RELAY_REPLY_MAX],
    len: usize,
}

impl RelayToVf {
    /// Relay message `msg` (1 to [`RELAY_REPLY_MAX`] dwords) to VF `vf` as relay `rid`.
    ///
    /// # Errors
    ///
    /// `EMSGSIZE` for an empty or longer message.
    pub(crate) fn new(vf: u16, rid: u32, msg: &[u32]) -> Result<Self> {
        if msg.is_empty() || msg.len() > RELAY_REPLY_MAX {
            return Err(EMSGSIZE);
        }
        let mut buf = [0; RELAY_REPLY_MAX];
        for (b, m) in buf.iter_mut().zip(msg) {
            *b = *m;
        }
        Ok(Self {
            vf,
            rid,
            msg: buf,
            len: msg.len(),
        })
    }
}

impl H2gRequest for RelayToVf {
    const ACTION: u32 = XEHPG_GUC_ACTION_PF2GUC_RELAY_TO_VF;
    const MAX_DWORDS: usize = 3 + RELAY_REPLY_MAX;
    type Reply = ();

    fn encode_payload(&self, out: &mut [u32]) -> Result<usize> {
        let msg = self.msg.get(..self.len).ok_or(EINVAL)?;
        let [vf, rid, rest @ ..] = out else {
            return Err(EINVAL);
        };
        *vf = u32::from(self.vf);
        *rid = self.rid;
        if rest.len() < msg.len() {
            return Err(EINVAL);
        }
        for (o, m) in rest.iter_mut().zip(msg) {
            *o = *m;
        }
        Ok(2 + msg.len())
    }

    fn decode_reply(data0: u32) -> Result<(), u32> {
        match data0 {
            0 => Ok(()),
            n => Err(n),
        }
    }
}

/// The G2H events the driver knows, in the order of the debugfs `ct` counters.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum EventKind {
    SchedDone,
    DeregisterDone,
    ContextReset,
    EngineFailure,
    MemoryCatError,
    FlushLog,
    CrashDump,
    Exception,
    VfState,
    Adverse,
    RelayFromVf,
    TlbInvalDone,
}

impl EventKind {
    /// Every kind, in counter order.
    pub(crate) const ALL: [EventKind; 12] = [
        EventKind::SchedDone,
        EventKind::DeregisterDone,
        EventKind::ContextReset,
        EventKind::EngineFailure,
        EventKind::MemoryCatError,
        EventKind::FlushLog,
        EventKind::CrashDump,
        EventKind::Exception,
        EventKind::VfState,
        EventKind::Adverse,
        EventKind::RelayFromVf,
        EventKind::TlbInvalDone,
    ];

    /// The action (`abi/guc_actions_abi.h`, `abi/guc_actions_sriov_abi.h`).
    pub(crate) const fn action(self) -> u32 {
        match self {
            EventKind::SchedDone => XEHPG_GUC_ACTION_SCHED_CONTEXT_MODE_DONE,
            EventKind::DeregisterDone => XEHPG_GUC_ACTION_DEREGISTER_CONTEXT_DONE,
            EventKind::ContextReset => XEHPG_GUC_ACTION_CONTEXT_RESET_NOTIFICATION,
            EventKind::EngineFailure => XEHPG_GUC_ACTION_ENGINE_FAILURE_NOTIFICATION,
            EventKind::MemoryCatError => XEHPG_GUC_ACTION_NOTIFY_MEMORY_CAT_ERROR,
            EventKind::FlushLog => XEHPG_GUC_ACTION_NOTIFY_FLUSH_LOG_BUFFER_TO_FILE,
            EventKind::CrashDump => XEHPG_GUC_ACTION_NOTIFY_CRASH_DUMP_POSTED,
            EventKind::Exception => XEHPG_GUC_ACTION_NOTIFY_EXCEPTION,
            EventKind::VfState => XEHPG_GUC_ACTION_GUC2PF_VF_STATE_NOTIFY,
            EventKind::Adverse => XEHPG_GUC_ACTION_GUC2PF_ADVERSE_EVENT,
            EventKind::RelayFromVf => XEHPG_GUC_ACTION_GUC2PF_RELAY_FROM_VF,
            EventKind::TlbInvalDone => XEHPG_GUC_ACTION_TLB_INVALIDATION_DONE,
        }
    }

    /// Upstream's name, for the log and debugfs.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            EventKind::SchedDone => "SCHED_CONTEXT_MODE_DONE",
            EventKind::DeregisterDone => "DEREGISTER_CONTEXT_DONE",
            EventKind::ContextReset => "CONTEXT_RESET_NOTIFICATION",
            EventKind::EngineFailure => "ENGINE_FAILURE_NOTIFICATION",
            EventKind::MemoryCatError => "NOTIFY_MEMORY_CAT_ERROR",
            EventKind::FlushLog => "NOTIFY_FLUSH_LOG_BUFFER_TO_FILE",
            EventKind::CrashDump => "NOTIFY_CRASH_DUMP_POSTED",
            EventKind::Exception => "NOTIFY_EXCEPTION",
            EventKind::VfState => "GUC2PF_VF_STATE_NOTIFY",
            EventKind::Adverse => "GUC2PF_ADVERSE_EVENT",
            EventKind::RelayFromVf => "GUC2PF_RELAY_FROM_VF",
            EventKind::TlbInvalDone => "TLB_INVALIDATION_DONE",
        }
    }

    /// The index of the kind's counter.
    pub(crate) fn index(self) -> usize {
        // CAST: a fieldless enum's discriminant, 0 to 11 in `ALL` order.
        self as usize
    }

    /// The kind of `action`, if the driver knows it.
    pub(crate) fn of(action: u32) -> Option<EventKind> {
        EventKind::ALL.into_iter().find(|k| k.action() == action)
    }

    /// The payload length the handler needs: at least `n`, or exactly `n`.
    const fn needs(self) -> Needs {
        match self {
            // {context, state} (`xe_guc_submit.c` `xe_guc_sched_done_handler`).
            EventKind::SchedDone => Needs::AtLeast(2),
            // {context} (`xe_guc_deregister_done_handler`, `xe_guc_exec_queue_reset_handler`).
            EventKind::DeregisterDone | EventKind::ContextReset => Needs::AtLeast(1),
            // {class, instance, reason} (`xe_guc_exec_queue_reset_failure_handler`).
            EventKind::EngineFailure => Needs::Exactly(3),
            // {VF, event} and {VF, threshold} (`GUC2PF_*_EVENT_MSG_LEN`).
            EventKind::VfState | EventKind::Adverse => Needs::AtLeast(2),
            // {VF, relay ID, relay message of at least one dword}
            // (`GUC2PF_RELAY_FROM_VF_EVENT_MSG_MIN_LEN`, `GUC_RELAY_MSG_MIN_LEN`); the longest
            // is the PF's to refuse.
            EventKind::RelayFromVf => Needs::AtLeast(3),
            // {seqno} (`xe_guc_tlb_inval_done_handler`).
            EventKind::TlbInvalDone => Needs::AtLeast(1),
            // Reported only; the payload is not read.
            EventKind::MemoryCatError
            | EventKind::FlushLog
            | EventKind::CrashDump
            | EventKind::Exception => Needs::AtLeast(0),
        }
    }
}

#[derive(Copy, Clone)]
enum Needs {
    AtLeast(usize),
    Exactly(usize),
}

/// A decoded G2H event.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum G2hEvent {
    /// `SCHED_CONTEXT_MODE_DONE`: scheduling of context `ctx` is now enabled or disabled (any
    /// state but 0 reads as enabled).
    SchedDone { ctx: u32, enabled: bool },
    /// `DEREGISTER_CONTEXT_DONE` for context `ctx`.
    DeregisterDone { ctx: u32 },
    /// `CONTEXT_RESET_NOTIFICATION`: the GuC reset context `ctx` and stopped scheduling it.
    ContextReset { ctx: u32 },
    /// `ENGINE_FAILURE_NOTIFICATION`: the GuC could not reset an engine.
    EngineFailure {
        class: u32,
        instance: u32,
        reason: u32,
    },
    /// `NOTIFY_MEMORY_CAT_ERROR`, reported only.
    MemoryCatError,
    /// `NOTIFY_FLUSH_LOG_BUFFER_TO_FILE`: a log section is half full (`guc::log`).
    FlushLog,
    /// `NOTIFY_CRASH_DUMP_POSTED`: the GuC wrote its crash dump (`guc::log`).
    CrashDump,
    /// `NOTIFY_EXCEPTION`: the GuC took an exception (`guc::log`).
    Exception,
    /// `GUC2PF_VF_STATE_NOTIFY` {VF, event}, checked against the enabled VFs by the PF.
    VfState { vf: u32, event: u32 },
    /// `GUC2PF_ADVERSE_EVENT` {VF, threshold key}, checked by the PF.
    Adverse { vf: u32, key: u32 },
    /// `GUC2PF_RELAY_FROM_VF` {VF, relay ID, message}, with the header's DATA0 (MBZ); checked
    /// and served by the PF.
    RelayFromVf {
        vf: u32,
        rid: u32,
        data0: u32,
        msg: RelayMsg,
    },
    /// `TLB_INVALIDATION_DONE` {seqno}: the invalidation sent with `seqno` is done.
    TlbInvalDone { seqno: u32 },
    /// An action the driver does not know; counted and logged by the channel.
    Unknown { action: u32, data0: u32, len: usize },
}

impl G2hEvent {
    /// The kind, for a known event.
    pub(crate) fn kind(&self) -> Option<EventKind> {
        Some(match self {
            G2hEvent::SchedDone { .. } => EventKind::SchedDone,
            G2hEvent::DeregisterDone { .. } => EventKind::DeregisterDone,
            G2hEvent::ContextReset { .. } => EventKind::ContextReset,
            G2hEvent::EngineFailure { .. } => EventKind::EngineFailure,
            G2hEvent::MemoryCatError => EventKind::MemoryCatError,
            G2hEvent::FlushLog => EventKind::FlushLog,
            G2hEvent::CrashDump => EventKind::CrashDump,
            G2hEvent::Exception => EventKind::Exception,
            G2hEvent::VfState { .. } => EventKind::VfState,
            G2hEvent::Adverse { .. } => EventKind::Adverse,
            G2hEvent::RelayFromVf { .. } => EventKind::RelayFromVf,
            G2hEvent::TlbInvalDone { .. } => EventKind::TlbInvalDone,
            G2hEvent::Unknown { .. } => return None,
        })
    }
}

/// A known event whose payload is not the length its handler needs.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct BadEvent {
    pub(crate) kind: EventKind,
    /// Payload dwords received.
    pub(crate) len: usize,
    /// Payload dwords expected (at least, or exactly for `ENGINE_FAILURE_NOTIFICATION`).
    pub(crate) expected: usize,
}

/// Decodes an EVENT: `action` and `data0` from its HXG header, `payload` the dwords after it.
/// Receive path: no allocation.
///
/// # Errors
///
/// [`BadEvent`] for a known action with a payload of the wrong length.
pub(crate) fn decode_event(action: u32, data0: u32, payload: &[u32]) -> Result<G2hEvent, BadEvent> {
    let Some(kind) = EventKind::of(action) else {
        return Ok(G2hEvent::Unknown {
            action,
            data0,
            len: payload.len(),
        });
    };
    let len = payload.len();
    match kind.needs() {
        Needs::AtLeast(n) if len < n => return Err(bad(kind, len, n)),
        Needs::Exactly(n) if len != n => return Err(bad(kind, len, n)),
        _ => {}
    }
    let at = |i: usize| payload.get(i).copied().ok_or(bad(kind, len, i + 1));
    Ok(match kind {
        EventKind::SchedDone => G2hEvent::SchedDone {
            ctx: at(0)?,
            enabled: at(1)? != 0,
        },
        EventKind::DeregisterDone => G2hEvent::DeregisterDone { ctx: at(0)? },
        EventKind::ContextReset => G2hEvent::ContextReset { ctx: at(0)? },
        EventKind::EngineFailure => G2hEvent::EngineFailure {
            class: at(0)?,
            instance: at(1)?,
            reason: at(2)?,
        },
        EventKind::MemoryCatError => G2hEvent::MemoryCatError,
        EventKind::FlushLog => G2hEvent::FlushLog,
        EventKind::CrashDump => G2hEvent::CrashDump,
        EventKind::Exception => G2hEvent::Exception,
        EventKind::VfState => G2hEvent::VfState {
            vf: at(0)?,
            event: at(1)?,
        },
        EventKind::Adverse => G2hEvent::Adverse {
            vf: at(0)?,
            key: at(1)?,
        },
        EventKind::RelayFromVf => G2hEvent::RelayFromVf {
            vf: at(0)?,
            rid: at(1)?,
            data0,
            msg: RelayMsg::new(payload.get(2..).unwrap_or(&[])),
        },
        EventKind::TlbInvalDone => G2hEvent::TlbInvalDone { seqno: at(0)? },
    })
}

fn bad(kind: EventKind, len: usize, expected: usize) -> BadEvent {
    BadEvent {
        kind,
        len,
        expected,
    }
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_guc_msg)]
mod tests {
    use super::*;

    /// Encodes `req` into a buffer one dword longer than its maximum (which must stay 0).
    fn enc<R: H2gRequest>(req: &R) -> Result<KVec<u32>> {
        let mut buf = [0u32; 32];
        let n = encode(req, &mut buf)?;
        assert_eq!(buf[R::MAX_DWORDS], 0);
        let mut v = KVec::new();
        v.extend_from_slice(buf.get(..n).ok_or(EINVAL)?, GFP_KERNEL)?;
        Ok(v)
    }

    /// Dword 0 is a host REQUEST header with `action`, DATA0 0.
    fn header_is(msg: &[u32], action: u32) {
        assert_eq!(msg[0], action);
    }

    #[test]
    fn self_cfg_like_upstream() -> Result {
        // Upstream's example: {0x00000508, 0x09030002, desc_lo, desc_hi}.
        let m = enc(&SelfCfg {
            key: SelfCfgKey::H2gDescriptor,
            value: 0x1_0000,
        })?;
        assert_eq!(&m[..], &[0x508, 0x0903_0002, 0x1_0000, 0]);
        let m = enc(&SelfCfg {
            key: SelfCfgKey::H2gSize,
            value: 0x1000,
        })?;
        assert_eq!(&m[..], &[0x508, 0x0904_0001, 0x1000, 0]);
        // A 64-bit address keeps its high dword.
        let m = enc(&SelfCfg {
            key: SelfCfgKey::G2hAddr,
            value: 0x1_2345_6000,
        })?;
        assert_eq!(&m[..], &[0x508, 0x0905_0002, 0x2345_6000, 1]);
        // A size is 32 bits.
        let big = SelfCfg {
            key: SelfCfgKey::G2hSize,
            value: 1 << 32,
        };
        assert_eq!(encode(&big, &mut [0u32; 4]), Err(EINVAL));
        assert_eq!(SelfCfg::decode_reply(1), Ok(true));
        assert_eq!(SelfCfg::decode_reply(0), Ok(false));
        assert_eq!(SelfCfg::decode_reply(2), Err(2));
        Ok(())
    }

    #[test]
    fn mmio_requests() -> Result {
        assert_eq!(&enc(&ControlCtb { enable: true })?[..], &[0x4509, 1]);
        assert_eq!(&enc(&ControlCtb { enable: false })?[..], &[0x4509, 0]);
        assert_eq!(ControlCtb::decode_reply(0), Ok(()));
        assert_eq!(ControlCtb::decode_reply(1), Err(1));
        assert_eq!(&enc(&GetHwconfig::QUERY)?[..], &[0x4100, 0, 0, 0]);
        let copy = GetHwconfig {
            addr: 0x1_0000_2000,
            size: 0x400,
        };
        assert_eq!(&enc(&copy)?[..], &[0x4100, 0x2000, 1, 0x400]);
        assert_eq!(GetHwconfig::decode_reply(0x400), Ok(0x400));
        Ok(())
    }

    #[test]
    fn post_load_requests() -> Result {
        // {0x509, KLV header 0x1001 len 2, 80, 20} (`emit_render_compute_yield_klv`).
        let m = enc(&RenderComputeYield { ms: 80, ratio: 20 })?;
        assert_eq!(&m[..], &[0x509, 0x1001_0002, 80, 20]);
        assert_eq!(RenderComputeYield::decode_reply(1), Ok(1));
        let m = enc(&OptInFeatures {
            addr: 0x2_0000_3000,
            dwords: 1,
        })?;
        assert_eq!(&m[..], &[0x550e, 0x3000, 2, 1]);
        Ok(())
    }

    #[test]
    fn submission_requests() -> Result {
        let m = enc(&RegisterContext {
            id: 7,
            class: XEHPG_GUC_COMPUTE_CLASS,
            mask: 0b10,
            desc: 0x1234_5678_0012_3019,
        })?;
        assert_eq!(m.len(), 12);
        header_is(&m, XEHPG_GUC_ACTION_REGISTER_CONTEXT);
        assert_eq!(m[1], 1);
        assert_eq!((m[2], m[3], m[4]), (7, 4, 0b10));
        assert_eq!(&m[5..10], &[0, 0, 0, 0, 0]);
        assert_eq!((m[10], m[11]), (0x0012_3019, 0x1234_5678));

        let m = enc(&UpdateContextPolicies {
            id: 3,
            priority: 0,
            quantum_us: 1000,
            preempt_us: 640_000,
        })?;
        header_is(&m, XEHPG_GUC_ACTION_UPDATE_CONTEXT_POLICIES);
        assert_eq!(m.len(), 8);
        assert_eq!(m[1], 3);
        // {key << 16 | 1, value} three times.
        assert_eq!((m[2], m[3]), (0x2003 << 16 | 1, 0));
        assert_eq!((m[4], m[5]), (0x2001 << 16 | 1, 1000));
        assert_eq!((m[6], m[7]), (0x2002 << 16 | 1, 640_000));

        let on = enc(&SchedContextModeSet {
            id: 9,
            enable: true,
        })?;
        assert_eq!(&on[..], &[0x1001, 9, 1]);
        let off = enc(&SchedContextModeSet {
            id: 9,
            enable: false,
        })?;
        assert_eq!(&off[..], &[0x1001, 9, 0]);
        assert_eq!(&enc(&SchedContext { id: 4 })?[..], &[0x1000, 4]);
        assert_eq!(&enc(&DeregisterContext { id: 4 })?[..], &[0x4503, 4]);
        let m = enc(&AllocateDoorbell {
            ctx: 5,
            id: 7,
            offset: 0x40_2000,
        })?;
        assert_eq!(&m[..], &[0x10, 5, 7, 0x40_2000]);
        assert_eq!(&enc(&DeallocateDoorbell { ctx: 5 })?[..], &[0x20, 5]);
        // Replies with no data ignore DATA0, as upstream.
        assert_eq!(SchedContextModeSet::decode_reply(7), Ok(()));
        Ok(())
    }

    #[test]
    fn sriov_requests() -> Result {
        let m = enc(&VfControl {
            vf: 7,
            cmd: VfCommand::FlrStart,
        })?;
        assert_eq!(&m[..], &[0x5506, 7, 4]);
        let m = enc(&UpdateVfCfg {
            vf: 63,
            addr: 0x1_2345_6000,
            dwords: 21,
        })?;
        assert_eq!(&m[..], &[0x5503, 63, 0x2345_6000, 1, 21]);
        assert_eq!(&enc(&UpdateVfCfg::reset(1))?[..], &[0x5503, 1, 0, 0, 0]);
        assert_eq!(UpdateVfCfg::decode_reply(21), Ok(21));
        // Upstream's layout: {0x5101, VF, relay ID, the message}; DATA0 of the reply is MBZ.
        let m = enc(&RelayToVf::new(3, 0x1234, &[0x7000_0000, 0x0001_0000])?)?;
        assert_eq!(&m[..], &[0x5101, 3, 0x1234, 0x7000_0000, 0x0001_0000]);
        let full = [7u32; RELAY_REPLY_MAX];
        assert_eq!(
            enc(&RelayToVf::new(63, 1, &full)?)?.len(),
            3 + RELAY_REPLY_MAX
        );
        assert_eq!(RelayToVf::new(1, 1, &[]), Err(EMSGSIZE));
        assert_eq!(
            RelayToVf::new(1, 1, &[0u32; RELAY_REPLY_MAX + 1]),
            Err(EMSGSIZE)
        );
        // Upstream's MAKE_INVAL_OP(XE_GUC_TLB_INVAL_FULL): full, heavy, caches flushed.
        assert_eq!(
            &enc(&TlbInvalidationAll { seqno: 5 })?[..],
            &[0x7002, 5, 0x8000_0000]
        );
        assert_eq!(RelayToVf::decode_reply(0), Ok(()));
        assert_eq!(RelayToVf::decode_reply(1), Err(1));
        Ok(())
    }

    #[test]
    fn relay_messages_keep_their_head_and_length() {
        let m = RelayMsg::new(&[1, 2]);
        assert_eq!((m.head(), m.len()), (&[1u32, 2][..], 2));
        // A long message: its first four dwords, its true length.
        let long = [9u32; 252];
        let m = RelayMsg::new(&long);
        assert_eq!((m.head(), m.len()), (&[9u32; 4][..], 252));
        assert_eq!(RelayMsg::new(&[]).head(), &[] as &[u32]);
    }

    #[test]
    fn short_buffers_are_refused() {
        let mut buf = [0u32; 11];
        let r = RegisterContext {
            id: 1,
            class: 0,
            mask: 1,
            desc: 0,
        };
        assert_eq!(encode(&r, &mut buf), Err(EINVAL));
        assert_eq!(encode(&SchedContext { id: 1 }, &mut [0u32; 1]), Err(EINVAL));
    }

    #[test]
    fn events_decode() {
        assert_eq!(
            decode_event(0x1002, 0, &[3, 1]),
            Ok(G2hEvent::SchedDone {
                ctx: 3,
                enabled: true
            })
        );
        assert_eq!(
            decode_event(0x1002, 0, &[3, 0, 9]),
            Ok(G2hEvent::SchedDone {
                ctx: 3,
                enabled: false
            })
        );
        assert_eq!(
            decode_event(0x4600, 0, &[2]),
            Ok(G2hEvent::DeregisterDone { ctx: 2 })
        );
        assert_eq!(
            decode_event(0x1008, 0, &[1]),
            Ok(G2hEvent::ContextReset { ctx: 1 })
        );
        assert_eq!(
            decode_event(0x1009, 0, &[0, 1, 0xdead]),
            Ok(G2hEvent::EngineFailure {
                class: 0,
                instance: 1,
                reason: 0xdead
            })
        );
        assert_eq!(
            decode_event(0x5106, 0, &[3, 1]),
            Ok(G2hEvent::VfState { vf: 3, event: 1 })
        );
        assert_eq!(
            decode_event(0x5104, 0, &[2, 0x8a03]),
            Ok(G2hEvent::Adverse { vf: 2, key: 0x8a03 })
        );
        assert_eq!(
            decode_event(0x5100, 0, &[2, 0x77, 0x1, 0x0001_0000]),
            Ok(G2hEvent::RelayFromVf {
                vf: 2,
                rid: 0x77,
                data0: 0,
                msg: RelayMsg::new(&[0x1, 0x0001_0000]),
            })
        );
        assert_eq!(
            decode_event(0x7001, 0, &[9]),
            Ok(G2hEvent::TlbInvalDone { seqno: 9 })
        );
        assert_eq!(decode_event(0x8003, 0, &[]), Ok(G2hEvent::FlushLog));
        assert_eq!(decode_event(0x8004, 0, &[1, 2]), Ok(G2hEvent::CrashDump));
        assert_eq!(decode_event(0x8005, 0, &[]), Ok(G2hEvent::Exception));
        assert_eq!(decode_event(0x6000, 0, &[5]), Ok(G2hEvent::MemoryCatError));
        assert_eq!(
            decode_event(0x7777, 5, &[1, 2]),
            Ok(G2hEvent::Unknown {
                action: 0x7777,
                data0: 5,
                len: 2
            })
        );
    }

    #[test]
    fn malformed_events_are_refused() {
        let b = |kind, len, expected| {
            Err(BadEvent {
                kind,
                len,
                expected,
            })
        };
        assert_eq!(decode_event(0x1002, 0, &[3]), b(EventKind::SchedDone, 1, 2));
        assert_eq!(
            decode_event(0x4600, 0, &[]),
            b(EventKind::DeregisterDone, 0, 1)
        );
        assert_eq!(
            decode_event(0x1008, 0, &[]),
            b(EventKind::ContextReset, 0, 1)
        );
        // Exactly three: one more is refused too.
        assert_eq!(
            decode_event(0x1009, 0, &[1]),
            b(EventKind::EngineFailure, 1, 3)
        );
        assert_eq!(
            decode_event(0x1009, 0, &[1, 2, 3, 4]),
            b(EventKind::EngineFailure, 4, 3)
        );
        assert_eq!(decode_event(0x5106, 0, &[1]), b(EventKind::VfState, 1, 2));
        assert_eq!(decode_event(0x5104, 0, &[]), b(EventKind::Adverse, 0, 2));
        // A relay event needs a VF, a relay ID and at least one dword of message.
        assert_eq!(
            decode_event(0x5100, 0, &[1, 2]),
            b(EventKind::RelayFromVf, 2, 3)
        );
        assert_eq!(
            decode_event(0x7001, 0, &[]),
            b(EventKind::TlbInvalDone, 0, 1)
        );
    }

    #[test]
    fn event_kinds_round_trip() {
        for (i, k) in EventKind::ALL.into_iter().enumerate() {
            assert_eq!(k.index(), i);
            assert_eq!(EventKind::of(k.action()), Some(k));
        }
        assert_eq!(EventKind::of(0x7777), None);
    }
}
