//! The GuC's SR-IOV PF interface: VF configurations (`PF2GUC_UPDATE_VF_CFG`),
//! the VGT policies (`PF2GUC_UPDATE_VGT_POLICY`, in [`vgt`]),
//! VF control and FLR (`PF2GUC_VF_CONTROL`) and the notifications the GuC
//! sends the PF about VFs (`GUC2PF_VF_STATE_NOTIFY`); the relay between the
//! VFs' drivers and the PF (`GUC2PF_RELAY_FROM_VF`, `PF2GUC_RELAY_TO_VF`)
//! is in [`relay`]; the LMTT's translation cache and the rule that the PF
//! empties it before a VF runs on what it changed, checked at the messages
//! below, in [`lmtt`].
//!
//! Facts: seed 003 line 11 (the VF configuration KLVs, their units and
//! ranges); seed 003 line 9 (the VGT policy KLVs); seed 000 lines 300-326
//! (the VF FLR sequence: the GuC tells the PF a VF is in FLR, cleans the
//! VF's scheduling state, tells the PF it is done); upstream `abi/guc_actions_sriov_abi.h` (the two actions' DOC
//! tables, the commands and the notification's events),
//! `abi/guc_klvs_abi.h` (the VF_CFG keys and lengths) and
//! `xe_gt_sriov_pf_config.c` (what the PF sends: `pf_push_vf_cfg_klvs`
//! expects the reply to count every KLV, `pf_push_self_config` sends VFID 0);
//! `xe_pci_sriov.c` (the `sriov_numvfs` flow); `xe_gt_sriov_pf_policy.c`
//! (the VGT policy push, [`vgt`]); `xe_sriov_pf_sysfs.c` (whose priority
//! the firmware lets the PF set). The firmware's
//! own checks are not published: what goes beyond the ABI text is `[MODEL]`.
//!
//! # `PF2GUC_UPDATE_VF_CFG` (0x5503) {hdr, VFID, CFG_ADDR_LO, CFG_ADDR_HI, CFG_SIZE}
//!
//! CFG_SIZE is in dwords; the KLV list is read through the GuC's GGTT and
//! TLB like every GGTT-addressed buffer (`ggtt.rs`). Checks, in order; the
//! first failing one answers FAILURE and nothing of the message is applied:
//!
//! - another length, or DATA0 (27:16, MBZ) not 0: `INVALID_PARAMS` (0x60);
//! - VFID above [`TOTAL_VFS`]: `INVALID_PARAMS`;
//! - CFG_ADDR and CFG_SIZE both 0: the VF's configuration is reset to the
//!   defaults (nothing; its ranges are free again), SUCCESS with DATA0 0
//!   (the DOC table: "associated VF config shall be reset to its default
//!   state");
//! - CFG_ADDR 0 with a size: SUCCESS with DATA0 0, nothing changed (the
//!   table: "If this parameter is zero, the list is not parsed");
//! - CFG_SIZE above [`MAX_CFG_DWORDS`]: `INVALID_PARAMS` (`[MODEL]`; upstream's
//!   buffer is 8 KiB, 2048 dwords, `xe_guc_buf.c`);
//! - the list not reachable: `INVALID_GGTT_ADDRESS` (0x80);
//! - a KLV running past CFG_SIZE: `MALFORMED_KLV` (0x103)
//!   (`xe_guc_klv_count`: a truncated KLV makes the list invalid);
//! - a known key with a length other than its `_LEN`, or a value the rules
//!   below refuse: `INVALID_KLV_DATA` (0x50).
//!
//! The keys (seed 003 line 11), each applied over the VF's current
//! configuration, the list in order, and the result checked as a whole:
//!
//! - `GGTT_START` 0x0001, `GGTT_SIZE` 0x0002 (64-bit): both 4 KiB aligned;
//!   a non-empty range inside the GuC's GGTT window [`WOPCM_TOP`,
//!   `GUC_GGTT_TOP`) (`ggtt.rs`; upstream's VF side refuses anything else,
//!   `xe_ggtt_init_early`) and not overlapping another VF's range;
//! - `LMEM_SIZE` 0x0003 (64-bit): 2 MiB aligned, at most the local memory;
//! - `NUM_CONTEXTS` 0x0004 and `BEGIN_CONTEXT_ID` 0x8A0B: begin + num at
//!   most `GUC_ID_MAX` (65535), the run not overlapping another VF's;
//! - `NUM_DOORBELLS` 0x0006 and `BEGIN_DOORBELL_ID` 0x8A0A: begin + num at
//!   most `GUC_NUM_DOORBELLS` (256), not overlapping another VF's;
//! - `EXEC_QUANTUM` 0x8A01 (ms) above 100000 and `PREEMPT_TIMEOUT` 0x8A02
//!   (us) above 100000000 are clamped to those ("anything exceeding that will
//!   be clamped to the max") and count as applied (traced `clamped`);
//! - `SCHED_PRIORITY` 0x8A0C: 0 LOW, 1 NORMAL, 2 HIGH; more is refused.
//!   Only the PF's (VFID 0) is applied: for a VF a good value is not
//!   applied and not counted, no violation (traced `priority_refused` and
//!   `why` on `sriov_vf_cfg`; summary `sriov.vf_priority_refused`), so the
//!   PF sees a count one short. Upstream `xe_sriov_pf_sysfs.c`
//!   `sched_priority_change_allowed` ("As of today GuC FW allows to
//!   selectively change only the PF priority") and
//!   `sched_priority_high_allowed` (HIGH for the PF only). `[MODEL]`: every
//!   VF value is refused, the one the VGT policy implies included; upstream
//!   never sends that one (`xe_gt_sriov_pf_config.c`
//!   `custom_sched_priority`), and its sysfs refuses any other for a VF
//!   (only the debugfs `sched_priority` does not check), so the stricter
//!   reading costs no supported upstream sequence
//!   ([`vgt::priority_allowed`]). A function without a priority of its own
//!   has the policy's (below);
//! - the thresholds 0x8A03-0x8A08: any value, stored;
//! - `TILE_MASK` 0x0005: "for single-tile products this KLV config is
//!   ignored": accepted, counted, not stored;
//! - any other key: not applied and not counted (traced
//!   `guc_ct_klv_skipped`), no violation: the reply counts only the KLVs
//!   applied, which is how upstream detects it (`-ENOKEY`).
//!
//! SUCCESS with DATA0 = the KLVs applied. Each refusal also records a
//! `guc_sriov_bad` violation (the PF broke a rule of the ABI).
//!
//! An accepted message that leaves a VF (VFID 1..=63) with an `LMEM_SIZE`
//! is a rule point of [`lmtt`]: every VF with local memory must translate
//! as when the LMTT's cache was last emptied (else `lmtt_stale`).
//!
//! VFID 0 is the PF's own configuration: upstream pushes it
//! (`pf_push_self_config`: NUM_CONTEXTS 65535, NUM_DOORBELLS 256, BEGIN_*
//! 0 and a GGTT range covering the whole GuC window), so it is accepted with
//! the same per-key checks but takes part in no overlap check: it covers
//! everything by design, and the VFs' ranges are carved out of it.
//!
//! # `PF2GUC_UPDATE_VGT_POLICY` (0x5502) {hdr, CFG_ADDR_LO, CFG_ADDR_HI, CFG_SIZE}
//!
//! Upstream `abi/guc_actions_sriov_abi.h` ("DOC: PF2GUC_UPDATE_VGT_POLICY")
//! and `xe_gt_sriov_pf_policy.c` (`guc_action_update_vgt_policy`,
//! `pf_push_policy_buf_klvs`: a COUNT short of the KLVs sent is `-ENOKEY`).
//! Read and checked as `UPDATE_VF_CFG` above, in the same order, all or
//! nothing: another length or DATA0 (MBZ) not 0, or CFG_SIZE above
//! [`MAX_CFG_DWORDS`]: `INVALID_PARAMS`; the list not reachable:
//! `INVALID_GGTT_ADDRESS`; a KLV past CFG_SIZE: `MALFORMED_KLV`; a known key
//! not 1 dword long, or a value refused below: `INVALID_KLV_DATA`; each a
//! `guc_sriov_bad` violation. CFG_SIZE 0 is an empty list, SUCCESS with
//! DATA0 0 (`[MODEL]`: the table gives CFG_ADDR 0 no meaning of its own).
//! SUCCESS with DATA0 = the KLVs applied. The keys (seed 003 line 9, each
//! 1 dword):
//!
//! | key | value | stored |
//! |---|---|---|
//! | `SCHED_IF_IDLE` 0x8001 | 0, 1; more refused (`[MODEL]`: the seed lists those two) | `sriov.sched_if_idle` |
//! | `ADVERSE_SAMPLE_PERIOD` 0x8002 | ms, any | `sriov.adverse_sample_period_ms` |
//! | `RESET_AFTER_VF_SWITCH` 0x8D00 | 0, 1; more refused (`[MODEL]`, as above) | `sriov.reset_after_vf_switch` |
//! | any other (`ENGINE_GROUP_CONFIG` 0x8004 included) | - | not applied, not counted (`guc_ct_klv_skipped`) |
//!
//! Each applied `SCHED_IF_IDLE` sets the scheduling priority of every
//! function, the PF and VFs 1..=[`TOTAL_VFS`], configured or not, to
//! NORMAL (1) for 1 and LOW (0) for 0: seed 003 line 9 ("Changing this KLV
//! impacts all VFs"), `abi/guc_klvs_abi.h` from 70.12 ("Setting this policy
//! to 0 updates all VFs scheduling priorities to LOW"), upstream
//! `xe_gt_sriov_pf_policy_set_sched_if_idle_locked` ("As of GuC 70.12 a
//! change of this policy impacts individual configs of all VFs") and
//! `xe_gt_sriov_pf_config_force_sched_priority_locked` (PF and VFs). Stored
//! as the policy: a function's own priority is dropped
//! (`VfConfig::priority` `None`) and [`Sriov::priority`] and the entries
//! (`sriov.vfs.N.priority`, `own_priority` false) give the policy's. A VF
//! configuration reset (CFG_ADDR and CFG_SIZE 0) also leaves the policy's
//! (`[MODEL]`: upstream's PF keeps its cached priority over a release, and
//! sends none it takes for the policy's, `custom_sched_priority`). Traced
//! `sriov_vgt_policy`; summary `sriov.vgt_policy_updates`.
//!
//! # `PF2GUC_VF_CONTROL` (0x5506) {hdr, VFID, COMMAND}
//!
//! Another length, DATA0 not 0, VFID 0 or above [`TOTAL_VFS`], or a command
//! other than 1..5: `INVALID_PARAMS`. Each VF has a state (`[MODEL]`: the
//! firmware's is not published; these transitions are the ones
//! `xe_gt_sriov_pf_control.c` drives):
//!
//! | command | from | to | G2H event |
//! |---|---|---|---|
//! | 1 PAUSE | ready | paused | `VF_STATE_NOTIFY` {vf, 3 PAUSE_DONE} |
//! | 2 RESUME | paused | ready | - |
//! | 3 STOP | ready, paused | stopped | - |
//! | 4 FLR_START | any | flr_wait, then flr_done | `VF_STATE_NOTIFY` {vf, 2 FLR_DONE} |
//! | 5 FLR_FINISH | flr_done | ready | - |
//!
//! Anything else is `INVALID_STATE` (0x0A) and a `guc_sriov_bad` violation.
//! FLR_START from flr_wait or flr_done starts over (upstream restarts the
//! FLR when the VF is reset again). At FLR_START the GuC does its part of
//! the PRM's sequence (seed 000 lines 313-321: discard the VF's workloads,
//! its doorbells and semaphores, its interrupt interface): the mock runs no
//! VF workload, so that is the state change, and FLR_DONE follows at once.
//! The events go through the CT backlog after the reply. An accepted
//! `RESUME` or `FLR_FINISH` of a VF with an `LMEM_SIZE` is a rule point of
//! [`lmtt`].
//!
//! A GuC reset, device reset or Driver-FLR forgets every VF configuration and
//! state (upstream pushes them all again after a GT reset,
//! `xe_gt_sriov_pf_config_restart`), the VGT policies (pushed again too,
//! `xe_gt_sriov_pf_policy_restart`) and the VFs' relays ([`relay`]);
//! `ct:disable` does not (the channel is not the configuration). A VF FLR
//! (`vf:flr:N`, an accepted `FLR_START` of VF N) forgets VF N's relays and
//! its contexts (`submit.rs`, "A VF's contexts").
//!
//! # Test control
//!
//! - `vf:flr:N` (1..=[`TOTAL_VFS`]): the host FLR'ed VF N; the GuC sends
//!   `VF_STATE_NOTIFY` {N, 1 VF_FLR} (seed 000 line 310, step 3);
//! - `vf:check`: the isolation checker runs now, leftovers included
//!   (`crate::regfile::isolation`);
//! - `guc:refuse-vf-cfg:N`: the next N `UPDATE_VF_CFG` are answered FAILURE
//!   `ACTION_ABORTED` (0x31), nothing applied, no violation;
//! - `guc:flr-stuck:N`: the next N `FLR_START` are answered SUCCESS and the
//!   VF stays in flr_wait: no FLR_DONE;
//! - `guc:bogus-vf-notify:N`: N `VF_STATE_NOTIFY` {[`BOGUS_VF`], 1 VF_FLR},
//!   a VF number no PF can have enabled;
//! - `vf:relay:N:RID:W0,...`, `vf:relay-raw:N:W0,...`,
//!   `vf:relay-burst:N:COUNT`, `guc:relay-data0:N`: the relay ([`relay`],
//!   "Test control").
//!
//! The switches are the test's: resets keep them; a second one adds its N.
//! With the CT not enabled, `vf:flr`, `guc:bogus-vf-notify`, `vf:adverse`
//! and the `vf:relay` requests send nothing (traced `no_channel`).

pub mod lmtt;
pub mod relay;
pub mod vgt;

use std::collections::BTreeMap;

use super::g2h_message;
use super::inject::event_header;
use super::serve::{klvs, read_dwords};
use super::Ct;
use crate::abi;
use crate::control::SriovRequest;
use crate::recorder::Recorder;
use crate::regfile::guc::ggtt::Gtt;
use crate::regfile::guc::ggtt::GUC_GGTT_TOP;
use crate::regfile::guc::ggtt::WOPCM_TOP;
use crate::regfile::guc::Bus;
use crate::regfile::guc::Guc;
use crate::summary::sriov::VfEntry;
use crate::trace::Event;
use crate::trace::Hex;

/// `GUC_ACTION_PF2GUC_UPDATE_VF_CFG` (`abi/guc_actions_sriov_abi.h`).
pub const PF2GUC_UPDATE_VF_CFG: u32 = 0x5503;
/// `GUC_ACTION_PF2GUC_VF_CONTROL`.
pub const PF2GUC_VF_CONTROL: u32 = 0x5506;
/// `GUC_ACTION_GUC2PF_VF_STATE_NOTIFY`.
pub const GUC2PF_VF_STATE_NOTIFY: u32 = 0x5106;
/// `GUC_ACTION_GUC2PF_ADVERSE_EVENT` {VFID, THRESHOLD key}.
pub const GUC2PF_ADVERSE_EVENT: u32 = 0x5104;
/// `GUC_PF_NOTIFY_VF_FLR` (also `VF_ENABLE` for VFID 0).
pub const NOTIFY_VF_FLR: u32 = 1;
/// `GUC_PF_NOTIFY_VF_FLR_DONE`.
pub const NOTIFY_VF_FLR_DONE: u32 = 2;
/// `GUC_PF_NOTIFY_VF_PAUSE_DONE`.
pub const NOTIFY_VF_PAUSE_DONE: u32 = 3;

/// The VF configuration keys and their lengths in dwords (seed 003 line
/// 11; `GUC_KLV_VF_CFG_*_KEY` / `_LEN`, `abi/guc_klvs_abi.h`).
pub mod key {
    /// GGTT start, 64-bit.
    pub const GGTT_START: u32 = 0x0001;
    /// GGTT size, 64-bit.
    pub const GGTT_SIZE: u32 = 0x0002;
    /// Local memory size, 64-bit.
    pub const LMEM_SIZE: u32 = 0x0003;
    /// Number of contexts.
    pub const NUM_CONTEXTS: u32 = 0x0004;
    /// Tiles (ignored on single-tile parts).
    pub const TILE_MASK: u32 = 0x0005;
    /// Number of doorbells.
    pub const NUM_DOORBELLS: u32 = 0x0006;
    /// Execution quantum, ms.
    pub const EXEC_QUANTUM: u32 = 0x8A01;
    /// Preemption timeout, us.
    pub const PREEMPT_TIMEOUT: u32 = 0x8A02;
    /// First threshold (`THRESHOLD_CAT_ERR`).
    pub const THRESHOLD_FIRST: u32 = 0x8A03;
    /// Last threshold (`THRESHOLD_DOORBELL_STORM`).
    pub const THRESHOLD_LAST: u32 = 0x8A08;
    /// First doorbell.
    pub const BEGIN_DOORBELL_ID: u32 = 0x8A0A;
    /// First context.
    pub const BEGIN_CONTEXT_ID: u32 = 0x8A0B;
    /// Scheduling priority.
    pub const SCHED_PRIORITY: u32 = 0x8A0C;
}

/// The most VFs: the LMTT directory has 64 entries, "63 VF + 1 PF" (seed
/// 000 line 382); upstream's `LMTT_2L_PDE_MAX_NUM` (`xe_lmtt_2l.c`). The
/// mock's SR-IOV capability may say fewer (TotalVFs); the GuC's limit is
/// the architecture's.
pub const TOTAL_VFS: u32 = 63;
/// The VF number `guc:bogus-vf-notify` names: above [`TOTAL_VFS`].
pub const BOGUS_VF: u32 = TOTAL_VFS + 1;
/// Most dwords one `UPDATE_VF_CFG` may name (module docs, `[MODEL]`).
pub const MAX_CFG_DWORDS: u32 = 4096;
/// GGTT ranges are 4 KiB aligned (seed 003).
pub const GGTT_ALIGN: u64 = 4096;
/// Local memory sizes are 2 MiB aligned (seed 003).
pub const LMEM_ALIGN: u64 = 2 << 20;
/// Context IDs: begin + num at most this (`GUC_ID_MAX`).
pub const MAX_CONTEXTS: u64 = abi::sched::GUC_ID_MAX as u64;
/// Doorbells: begin + num at most this (`GUC_NUM_DOORBELLS`,
/// `xe_guc_fwif.h`).
pub const MAX_DOORBELLS: u64 = 256;
/// Largest execution quantum, ms (seed 003: 100 s).
pub const MAX_EXEC_QUANTUM_MS: u32 = 100_000;
/// Largest preemption timeout, us (seed 003: 100 s).
pub const MAX_PREEMPT_TIMEOUT_US: u32 = 100_000_000;
/// Largest priority (seed 003: 2 HIGH).
pub const MAX_PRIORITY: u32 = 2;

/// The violation kind of a refused SR-IOV message.
const BAD: &str = "guc_sriov_bad";

/// One function's configuration as the GuC holds it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct VfConfig {
    /// GGTT range start (bytes).
    pub ggtt_start: u64,
    /// GGTT range size (bytes); 0: none.
    pub ggtt_size: u64,
    /// Local memory (bytes).
    pub lmem: u64,
    /// First context ID.
    pub ctx_begin: u32,
    /// Contexts.
    pub ctx_num: u32,
    /// First doorbell.
    pub db_begin: u32,
    /// Doorbells.
    pub db_num: u32,
    /// Execution quantum, ms (0: infinite).
    pub exec_quantum_ms: u32,
    /// Preemption timeout, us (0: none).
    pub preempt_timeout_us: u32,
    /// Scheduling priority of its own (`SCHED_PRIORITY`, the PF's only,
    /// module docs); `None`: the one the VGT policy implies
    /// ([`vgt::VgtPolicy::implied_priority`]).
    pub priority: Option<u32>,
    /// Thresholds 0x8A03..=0x8A08, in key order.
    pub thresholds: [u32; 6],
}

impl VfConfig {
    /// Whether it is the default (nothing provisioned, default policies).
    pub fn is_empty(&self) -> bool {
        *self == VfConfig::default()
    }

    /// The GGTT range `[start, end)`, if not empty.
    pub fn ggtt(&self) -> Option<(u64, u64)> {
        (self.ggtt_size > 0).then(|| (self.ggtt_start, self.ggtt_start + self.ggtt_size))
    }

    /// The context run `[begin, end)`, if not empty.
    pub fn contexts(&self) -> Option<(u64, u64)> {
        run(self.ctx_begin, self.ctx_num)
    }

    /// The doorbell run `[begin, end)`, if not empty.
    pub fn doorbells(&self) -> Option<(u64, u64)> {
        run(self.db_begin, self.db_num)
    }

    /// The summary's and the trace's view; `implied` is the priority the
    /// VGT policy gives a function without one of its own.
    pub fn entry(&self, implied: u32) -> VfEntry {
        VfEntry {
            ggtt_start: Hex(self.ggtt_start),
            ggtt_size: self.ggtt_size,
            lmem: self.lmem,
            ctx_begin: self.ctx_begin,
            ctx_num: self.ctx_num,
            db_begin: self.db_begin,
            db_num: self.db_num,
            exec_quantum_ms: self.exec_quantum_ms,
            preempt_timeout_us: self.preempt_timeout_us,
            priority: self.priority.unwrap_or(implied),
            own_priority: self.priority.is_some(),
        }
    }
}

fn run(begin: u32, num: u32) -> Option<(u64, u64)> {
    (num > 0).then(|| (u64::from(begin), u64::from(begin) + u64::from(num)))
}

/// Whether `[a0, a1)` and `[b0, b1)` overlap.
pub fn overlap(a: (u64, u64), b: (u64, u64)) -> bool {
    a.0 < b.1 && b.0 < a.1
}

/// A VF's state in the GuC (module docs, the table).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum VfState {
    /// Runs (or may).
    #[default]
    Ready,
    /// PAUSE done.
    Paused,
    /// STOP done.
    Stopped,
    /// FLR_START received, the GuC's part not done (`guc:flr-stuck`).
    FlrWait,
    /// The GuC's part done, FLR_DONE sent; FLR_FINISH expected.
    FlrDone,
}

impl VfState {
    /// Trace and summary name.
    pub const fn name(self) -> &'static str {
        match self {
            VfState::Ready => "ready",
            VfState::Paused => "paused",
            VfState::Stopped => "stopped",
            VfState::FlrWait => "flr_wait",
            VfState::FlrDone => "flr_done",
        }
    }
}

/// The test control's switches (kept over resets).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Switches {
    refuse_cfg: u64,
    flr_stuck: u64,
    /// `guc:relay-data0` ([`relay`]).
    relay_data0: u64,
}

/// What the isolation checker should look at after a message
/// (`crate::regfile::isolation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckDue {
    /// Why: "vf_cfg", "vf_control", "vf:check".
    pub trigger: &'static str,
    /// Whether leftovers (table entries the configuration no longer
    /// covers) count now.
    pub leftovers: bool,
    /// VFs (bit per VFID) whose local memory must hold nothing now: a
    /// configuration with `LMEM_SIZE` was taken or an `FLR_FINISH`
    /// accepted since the last check (`lmem_not_cleared`).
    pub cleared: u64,
    /// VFs (bit per VFID) whose `FLR_FINISH` was accepted since the last
    /// check: their VF-dedicated registers must hold nothing
    /// (`vf_regs_not_cleared`).
    pub flr_finished: u64,
}

/// The GuC's SR-IOV PF state.
#[derive(Debug, Clone, Default)]
pub struct Sriov {
    /// Local memory size in bytes (the `LMEM_SIZE` limit).
    lmem_size: u64,
    /// Configurations by VFID (0: the PF's); a reset one is removed.
    configs: BTreeMap<u32, VfConfig>,
    /// States of the VFs not ready.
    states: BTreeMap<u32, VfState>,
    switches: Switches,
    /// A check the register file should run ([`Guc::sriov_take_check`]).
    check: Option<CheckDue>,
    /// The VFs' side of the relay ([`relay`]).
    relay: relay::Relay,
    /// The LMTT's translation cache ([`lmtt`]): the hardware's, so a GuC
    /// reset keeps it.
    lmtt: lmtt::Tlb,
    /// The VGT policies ([`vgt`]); a GuC reset forgets them.
    policy: vgt::VgtPolicy,
}

impl Sriov {
    /// After a GuC reset: the local memory size and the test's switches.
    pub fn after_reset(&self) -> Sriov {
        Sriov {
            lmem_size: self.lmem_size,
            switches: self.switches,
            lmtt: self.lmtt.clone(),
            ..Sriov::default()
        }
    }

    /// The configurations, by VFID (0 is the PF's own).
    pub fn configs(&self) -> &BTreeMap<u32, VfConfig> {
        &self.configs
    }

    /// The VGT policies (`PF2GUC_UPDATE_VGT_POLICY`).
    pub fn policy(&self) -> vgt::VgtPolicy {
        self.policy
    }

    /// Function `vfid`'s scheduling priority (0 is the PF): its own, else
    /// the one the VGT policy implies, configured or not (module docs,
    /// `PF2GUC_UPDATE_VGT_POLICY`).
    pub fn priority(&self, vfid: u32) -> u32 {
        self.configs
            .get(&vfid)
            .and_then(|c| c.priority)
            .unwrap_or(self.policy.implied_priority())
    }

    /// Function `vfid`'s configuration as the summary and the trace show
    /// it (the defaults and the policy's priority without one).
    pub fn entry(&self, vfid: u32) -> VfEntry {
        let c = self.configs.get(&vfid).copied().unwrap_or_default();
        c.entry(self.policy.implied_priority())
    }

    /// VF `vf`'s state.
    pub fn state(&self, vf: u32) -> VfState {
        self.states.get(&vf).copied().unwrap_or_default()
    }

    /// The VFs' side of the relay.
    pub fn relay(&self) -> &relay::Relay {
        &self.relay
    }

    /// VFs (not the PF) with a configuration.
    pub fn configured(&self) -> u64 {
        // CAST: at most 64.
        self.configs.keys().filter(|&&v| v != 0).count() as u64
    }

    /// A full invalidation: the LMTT's cache is emptied ([`lmtt`]).
    pub(super) fn lmtt_invalidate(&mut self, bus: &dyn Bus, rec: &mut Recorder) {
        self.lmtt.invalidate(bus, rec);
    }

    /// A rule point of [`lmtt`] (`at`, the message about VF `by`).
    fn lmtt_rule(&mut self, at: &'static str, by: u32, bus: &dyn Bus, rec: &mut Recorder) {
        self.lmtt.check(&self.configs, at, by, bus, rec);
    }

    fn armed_left(&self) -> u64 {
        self.switches.refuse_cfg + self.switches.flr_stuck + self.switches.relay_data0
    }

    fn due(&mut self, trigger: &'static str, leftovers: bool) {
        self.due_clear(trigger, leftovers, 0, 0);
    }

    /// [`Sriov::due`], with VFs whose local memory must be clear and VFs
    /// whose FLR ended.
    fn due_clear(&mut self, trigger: &'static str, leftovers: bool, cleared: u64, flr: u64) {
        // Two messages before a check: leftovers only if both allow them;
        // the VFs to look at add up.
        let leftovers = leftovers && self.check.is_none_or(|c| c.leftovers);
        let cleared = cleared | self.check.map_or(0, |c| c.cleared);
        let flr_finished = flr | self.check.map_or(0, |c| c.flr_finished);
        self.check = Some(CheckDue {
            trigger,
            leftovers,
            cleared,
            flr_finished,
        });
    }
}

/// Serves an SR-IOV action, if `action` is one; `None` otherwise.
pub(super) fn serve(
    ct: &mut Ct,
    gtt: &mut Gtt,
    action: u32,
    hxg: &[u32],
    rec: &mut Recorder,
) -> Option<Result<u32, u32>> {
    match action {
        PF2GUC_UPDATE_VF_CFG => Some(update_vf_cfg(ct, gtt, hxg, rec)),
        PF2GUC_VF_CONTROL => Some(vf_control(ct, gtt, hxg, rec)),
        vgt::PF2GUC_UPDATE_VGT_POLICY => Some(vgt::update_vgt_policy(&mut ct.sriov, gtt, hxg, rec)),
        relay::PF2GUC_RELAY_TO_VF => Some(relay::relay_to_vf(ct, hxg, rec)),
        _ => None,
    }
}

/// Outcome of an `UPDATE_VF_CFG`, for the trace.
struct CfgOutcome {
    klvs: u32,
    applied: u32,
    clamped: u32,
    /// VF `SCHED_PRIORITY` KLVs not applied, and the last one's why.
    priority_refused: u32,
    why: Option<String>,
    result: &'static str,
    answer: Result<u32, u32>,
}

impl CfgOutcome {
    fn refused(code: u32, why: String, rec: &mut Recorder) -> Self {
        rec.violation(BAD, format!("PF2GUC_UPDATE_VF_CFG: {why}"));
        CfgOutcome {
            klvs: 0,
            applied: 0,
            clamped: 0,
            priority_refused: 0,
            why: None,
            result: "refused",
            answer: Err(code),
        }
    }
}

fn update_vf_cfg(ct: &mut Ct, gtt: &mut Gtt, hxg: &[u32], rec: &mut Recorder) -> Result<u32, u32> {
    let vfid = hxg.get(1).copied().unwrap_or(0);
    let addr = u64::from(hxg.get(2).copied().unwrap_or(0))
        | u64::from(hxg.get(3).copied().unwrap_or(0)) << 32;
    let dwords = hxg.get(4).copied().unwrap_or(0);
    let out = cfg_outcome(ct, gtt, hxg, rec);
    let s = &mut ct.sriov;
    let after = s.configs.get(&vfid).copied().unwrap_or_default();
    let implied = s.policy.implied_priority();
    // The PF provisions and releases VF by VF or all at once, its tables
    // before or after the message: leftovers wait for a quiet point
    // (`crate::regfile::isolation`).
    // A VF given local memory must find nothing in it (upstream clears it
    // before the VF may use it).
    let cleared = if out.answer.is_ok() && after.lmem > 0 && (1..=TOTAL_VFS).contains(&vfid) {
        1 << vfid
    } else {
        0
    };
    s.due_clear("vf_cfg", false, cleared, 0);
    rec.emit(Event::SriovVfCfg {
        vfid,
        addr: Hex(addr),
        dwords,
        klvs: out.klvs,
        applied: out.applied,
        clamped: out.clamped,
        priority_refused: out.priority_refused,
        why: out.why,
        result: out.result,
        code: out.answer.err().map(|c| Hex(c.into())),
        cfg: (out.answer.is_ok() && vfid <= TOTAL_VFS).then(|| after.entry(implied)),
        configured: s.configured(),
    });
    // The GuC is about to let the VF run on its local memory ([`lmtt`]).
    if cleared != 0 {
        s.lmtt_rule("vf_cfg", vfid, &*gtt.bus(), rec);
    }
    out.answer
}

fn cfg_outcome(ct: &mut Ct, gtt: &mut Gtt, hxg: &[u32], rec: &mut Recorder) -> CfgOutcome {
    let s = &mut ct.sriov;
    if s.switches.refuse_cfg > 0 {
        s.switches.refuse_cfg -= 1;
        return CfgOutcome {
            klvs: 0,
            applied: 0,
            clamped: 0,
            priority_refused: 0,
            why: None,
            result: "refused_switch",
            answer: Err(abi::error::ACTION_ABORTED),
        };
    }
    let &[h0, vfid, lo, hi, size] = hxg else {
        return CfgOutcome::refused(
            abi::error::INVALID_PARAMS,
            format!(
                "{} dwords; it is {{hdr, VFID, CFG_ADDR_LO, CFG_ADDR_HI, CFG_SIZE}}",
                hxg.len()
            ),
            rec,
        );
    };
    let mbz = abi::field(h0, abi::hxg::REQUEST_DATA0);
    if mbz != 0 {
        return CfgOutcome::refused(
            abi::error::INVALID_PARAMS,
            format!("header {h0:#x}: DATA0 (27:16) is {mbz:#x}, must be 0"),
            rec,
        );
    }
    if vfid > TOTAL_VFS {
        return CfgOutcome::refused(
            abi::error::INVALID_PARAMS,
            format!("VFID {vfid} is above {TOTAL_VFS}, the most VFs"),
            rec,
        );
    }
    let addr = u64::from(lo) | u64::from(hi) << 32;
    if addr == 0 {
        if size == 0 {
            s.configs.remove(&vfid);
            super::submit::forget_vf(&mut ct.submit, vfid, rec);
        }
        return CfgOutcome {
            klvs: 0,
            applied: 0,
            clamped: 0,
            priority_refused: 0,
            why: None,
            result: if size == 0 { "reset" } else { "not_parsed" },
            answer: Ok(0),
        };
    }
    if size > MAX_CFG_DWORDS {
        return CfgOutcome::refused(
            abi::error::INVALID_PARAMS,
            format!("CFG_SIZE {size} dwords is above {MAX_CFG_DWORDS}"),
            rec,
        );
    }
    let dw = match read_dwords(gtt, addr, size, "UPDATE_VF_CFG KLVs", rec) {
        Ok(dw) => dw,
        Err(why) => return CfgOutcome::refused(abi::error::INVALID_GGTT_ADDRESS, why, rec),
    };
    let list = match klvs(&dw) {
        Ok(l) => l,
        Err(why) => {
            return CfgOutcome::refused(
                abi::error::MALFORMED_KLV,
                format!("VF {vfid}, KLVs at GGTT {addr:#x}: {why}"),
                rec,
            )
        }
    };
    let mut cfg = s.configs.get(&vfid).copied().unwrap_or_default();
    let mut applied = 0;
    let mut clamped = 0;
    let mut priority_refused = 0;
    let mut why = None;
    for k in &list {
        match apply(&mut cfg, vfid, k.key, k.value) {
            Applied::Yes => applied += 1,
            Applied::Clamped => {
                applied += 1;
                clamped += 1;
            }
            // Not applied, not counted, no violation (module docs,
            // `SCHED_PRIORITY`): the PF sees the short count.
            Applied::NotForVf(w) => {
                priority_refused += 1;
                why = Some(w);
            }
            Applied::Unknown => rec.emit(Event::GucCtKlvSkipped {
                action: Hex(PF2GUC_UPDATE_VF_CFG.into()),
                key: Hex(k.key.into()),
                // CAST: at most 0xFFFF.
                len: k.value.len() as u32,
            }),
            Applied::Bad(why) => {
                return CfgOutcome::refused(
                    abi::error::INVALID_KLV_DATA,
                    format!("VF {vfid}, KLV {:#06x}: {why}", k.key),
                    rec,
                )
            }
        }
    }
    if let Err(why) = validate(s, vfid, &cfg) {
        return CfgOutcome::refused(
            abi::error::INVALID_KLV_DATA,
            format!("VF {vfid}: {why}"),
            rec,
        );
    }
    if cfg.is_empty() {
        s.configs.remove(&vfid);
        super::submit::forget_vf(&mut ct.submit, vfid, rec);
    } else {
        s.configs.insert(vfid, cfg);
    }
    CfgOutcome {
        // CAST: at most MAX_CFG_DWORDS.
        klvs: list.len() as u32,
        applied,
        clamped,
        priority_refused,
        why,
        result: "applied",
        answer: Ok(applied),
    }
}

/// What [`apply`] did with one KLV.
enum Applied {
    Yes,
    Clamped,
    Unknown,
    /// A good value the GuC does not take for this function (a VF's
    /// `SCHED_PRIORITY`): not applied, not counted.
    NotForVf(String),
    Bad(String),
}

/// Applies one KLV to function `vfid`'s `cfg` (module docs, the keys).
fn apply(cfg: &mut VfConfig, vfid: u32, k: u32, v: &[u32]) -> Applied {
    let len = |want: usize| -> Result<(), Applied> {
        if v.len() == want {
            Ok(())
        } else {
            Err(Applied::Bad(format!(
                "length {}, the key's value is {want} dword(s)",
                v.len()
            )))
        }
    };
    let u64_of = |v: &[u32]| u64::from(v[0]) | u64::from(v[1]) << 32;
    let want = match k {
        key::GGTT_START | key::GGTT_SIZE | key::LMEM_SIZE => 2,
        key::NUM_CONTEXTS
        | key::TILE_MASK
        | key::NUM_DOORBELLS
        | key::EXEC_QUANTUM
        | key::PREEMPT_TIMEOUT
        | key::THRESHOLD_FIRST..=key::THRESHOLD_LAST
        | key::BEGIN_DOORBELL_ID
        | key::BEGIN_CONTEXT_ID
        | key::SCHED_PRIORITY => 1,
        _ => return Applied::Unknown,
    };
    if let Err(bad) = len(want) {
        return bad;
    }
    match k {
        key::GGTT_START => cfg.ggtt_start = u64_of(v),
        key::GGTT_SIZE => cfg.ggtt_size = u64_of(v),
        key::LMEM_SIZE => cfg.lmem = u64_of(v),
        key::NUM_CONTEXTS => cfg.ctx_num = v[0],
        key::BEGIN_CONTEXT_ID => cfg.ctx_begin = v[0],
        key::NUM_DOORBELLS => cfg.db_num = v[0],
        key::BEGIN_DOORBELL_ID => cfg.db_begin = v[0],
        key::TILE_MASK => {}
        key::EXEC_QUANTUM => {
            cfg.exec_quantum_ms = v[0].min(MAX_EXEC_QUANTUM_MS);
            if v[0] > MAX_EXEC_QUANTUM_MS {
                return Applied::Clamped;
            }
        }
        key::PREEMPT_TIMEOUT => {
            cfg.preempt_timeout_us = v[0].min(MAX_PREEMPT_TIMEOUT_US);
            if v[0] > MAX_PREEMPT_TIMEOUT_US {
                return Applied::Clamped;
            }
        }
        key::SCHED_PRIORITY => {
            if v[0] > MAX_PRIORITY {
                return Applied::Bad(format!(
                    "SCHED_PRIORITY {} is not 0 LOW, 1 NORMAL or 2 HIGH",
                    v[0]
                ));
            }
            // Range first (a bad value refuses the message for a VF too),
            // then whose priority it is (`vgt::priority_allowed`).
            if let Err(why) = vgt::priority_allowed(vfid, v[0]) {
                return Applied::NotForVf(why);
            }
            cfg.priority = Some(v[0]);
        }
        t => {
            // Thresholds: THRESHOLD_FIRST..=THRESHOLD_LAST (the match above).
            let i = (t - key::THRESHOLD_FIRST) as usize;
            if let Some(slot) = cfg.thresholds.get_mut(i) {
                *slot = v[0];
            }
        }
    }
    Applied::Yes
}

/// The rules on a whole configuration (module docs): alignment, bounds and,
/// for a VF, no overlap with another VF.
fn validate(s: &Sriov, vfid: u32, cfg: &VfConfig) -> Result<(), String> {
    if !cfg.ggtt_start.is_multiple_of(GGTT_ALIGN) || !cfg.ggtt_size.is_multiple_of(GGTT_ALIGN) {
        return Err(format!(
            "GGTT start {:#x} / size {:#x} not 4 KiB aligned",
            cfg.ggtt_start, cfg.ggtt_size
        ));
    }
    if let Some((start, _)) = cfg.ggtt() {
        let end = cfg.ggtt_start.checked_add(cfg.ggtt_size);
        if start < WOPCM_TOP || end.is_none_or(|e| e > GUC_GGTT_TOP) {
            return Err(format!(
                "GGTT {start:#x}+{:#x} is outside the GuC's window [{WOPCM_TOP:#x}, \
                 {GUC_GGTT_TOP:#x})",
                cfg.ggtt_size
            ));
        }
    }
    if !cfg.lmem.is_multiple_of(LMEM_ALIGN) || cfg.lmem > s.lmem_size {
        return Err(format!(
            "LMEM_SIZE {:#x} is not 2 MiB aligned or above the local memory ({:#x})",
            cfg.lmem, s.lmem_size
        ));
    }
    if u64::from(cfg.ctx_begin) + u64::from(cfg.ctx_num) > MAX_CONTEXTS {
        return Err(format!(
            "contexts {}+{} run past GUC_ID_MAX ({MAX_CONTEXTS})",
            cfg.ctx_begin, cfg.ctx_num
        ));
    }
    if u64::from(cfg.db_begin) + u64::from(cfg.db_num) > MAX_DOORBELLS {
        return Err(format!(
            "doorbells {}+{} run past {MAX_DOORBELLS}",
            cfg.db_begin, cfg.db_num
        ));
    }
    if vfid == 0 {
        return Ok(());
    }
    let others = s.configs.iter().filter(|(&v, _)| v != 0 && v != vfid);
    for (&other, o) in others {
        let clash = [
            ("GGTT", cfg.ggtt(), o.ggtt()),
            ("contexts", cfg.contexts(), o.contexts()),
            ("doorbells", cfg.doorbells(), o.doorbells()),
        ]
        .into_iter()
        .find_map(|(what, a, b)| match (a, b) {
            (Some(a), Some(b)) if overlap(a, b) => Some((what, a, b)),
            _ => None,
        });
        if let Some((what, a, b)) = clash {
            return Err(format!(
                "{what} {:#x}..{:#x} overlaps VF {other}'s {:#x}..{:#x}",
                a.0, a.1, b.0, b.1
            ));
        }
    }
    Ok(())
}

/// The command names (module docs).
fn command_name(cmd: u32) -> &'static str {
    match cmd {
        1 => "pause",
        2 => "resume",
        3 => "stop",
        4 => "flr_start",
        5 => "flr_finish",
        _ => "unknown",
    }
}

fn vf_control(ct: &mut Ct, gtt: &mut Gtt, hxg: &[u32], rec: &mut Recorder) -> Result<u32, u32> {
    let vfid = hxg.get(1).copied().unwrap_or(0);
    let cmd = hxg.get(2).copied().unwrap_or(0);
    let (result, answer) = control_outcome(ct, hxg, rec);
    let s = &mut ct.sriov;
    // An FLR the GuC lets finish: the VF's memory must be clear by now
    // (seed 000 L300-326, the PF's part of the FLR).
    let cleared = if answer.is_ok() && cmd == 5 && (1..=TOTAL_VFS).contains(&vfid) {
        1 << vfid
    } else {
        0
    };
    s.due_clear("vf_control", answer.is_ok(), cleared, cleared);
    rec.emit(Event::SriovVfControl {
        vfid,
        cmd: command_name(cmd),
        result,
        code: answer.err().map(|c| Hex(c.into())),
        state: s.state(vfid).name(),
    });
    // RESUME and FLR_FINISH let the VF run again: on its local memory, if
    // it has some ([`lmtt`]).
    let runs = matches!(cmd, 2 | 5) && s.configs.get(&vfid).is_some_and(|c| c.lmem > 0);
    if answer.is_ok() && runs {
        let at = if cmd == 2 { "resume" } else { "flr_finish" };
        s.lmtt_rule(at, vfid, &*gtt.bus(), rec);
    }
    answer
}

fn control_outcome(
    ct: &mut Ct,
    hxg: &[u32],
    rec: &mut Recorder,
) -> (&'static str, Result<u32, u32>) {
    let refuse = |code: u32, why: String, rec: &mut Recorder| {
        rec.violation(BAD, format!("PF2GUC_VF_CONTROL: {why}"));
        ("refused", Err(code))
    };
    let &[h0, vfid, cmd] = hxg else {
        return refuse(
            abi::error::INVALID_PARAMS,
            format!("{} dwords; it is {{hdr, VFID, COMMAND}}", hxg.len()),
            rec,
        );
    };
    let mbz = abi::field(h0, abi::hxg::REQUEST_DATA0);
    if mbz != 0 {
        return refuse(
            abi::error::INVALID_PARAMS,
            format!("header {h0:#x}: DATA0 (27:16) is {mbz:#x}, must be 0"),
            rec,
        );
    }
    if vfid == 0 || vfid > TOTAL_VFS {
        return refuse(
            abi::error::INVALID_PARAMS,
            format!("VFID {vfid} is not a VF (1..={TOTAL_VFS})"),
            rec,
        );
    }
    let s = &mut ct.sriov;
    let from = s.state(vfid);
    use VfState::*;
    let (to, event) = match (cmd, from) {
        (1, Ready) => (Paused, Some(NOTIFY_VF_PAUSE_DONE)),
        (2, Paused) => (Ready, None),
        (3, Ready | Paused) => (Stopped, None),
        (4, _) if s.switches.flr_stuck > 0 => {
            s.switches.flr_stuck -= 1;
            (FlrWait, None)
        }
        (4, _) => (FlrDone, Some(NOTIFY_VF_FLR_DONE)),
        (5, FlrDone) => (Ready, None),
        (1..=5, _) => {
            return refuse(
                abi::error::INVALID_STATE,
                format!(
                    "{} of VF {vfid} in state {}",
                    command_name(cmd).to_uppercase(),
                    from.name()
                ),
                rec,
            )
        }
        _ => {
            return refuse(
                abi::error::INVALID_PARAMS,
                format!("command {cmd} is not 1 PAUSE .. 5 FLR_FINISH"),
                rec,
            )
        }
    };
    if to == Ready {
        s.states.remove(&vfid);
    } else {
        s.states.insert(vfid, to);
    }
    if let Some(ev) = event {
        notify(ct, vfid, ev, 1, rec);
    }
    match cmd {
        // The VF is being reset: its driver's relays are gone ([`relay`]),
        // and the GuC discards its workloads (seed 000 lines 313-321): its
        // contexts ([`super::submit`], "A VF's contexts").
        4 => {
            relay::forget_vf(&mut ct.sriov, vfid, "flr_start", rec);
            super::submit::forget_vf(&mut ct.submit, vfid, rec);
        }
        5 => relay::flr_finished(&mut ct.sriov, vfid),
        _ => {}
    }
    let result = if cmd == 4 && to == FlrWait {
        "stuck"
    } else {
        "ok"
    };
    (result, Ok(0))
}

/// Queues `count` `GUC2PF_VF_STATE_NOTIFY` {vfid, event} (the CT
/// backlog) and traces them.
fn notify(ct: &mut Ct, vfid: u32, event: u32, count: u64, rec: &mut Recorder) {
    let hxg = [event_header(GUC2PF_VF_STATE_NOTIFY), vfid, event];
    ct.backlog.push_back((g2h_message(0, &hxg), count));
    rec.emit(Event::SriovNotify {
        vfid,
        count,
        event: match event {
            NOTIFY_VF_FLR => "vf_flr",
            NOTIFY_VF_FLR_DONE => "flr_done",
            NOTIFY_VF_PAUSE_DONE => "pause_done",
            _ => "other",
        },
    });
}

/// VF `vf` went past threshold `key` ([`key::THRESHOLD_FIRST`]..=
/// [`key::THRESHOLD_LAST`]) in a sampling interval: reported with
/// `GUC2PF_ADVERSE_EVENT` if the VF's configuration sets that threshold
/// ("0: adverse events or error will not be reported", seed 003 line 11).
/// `[MODEL]`: the GuC's sampling itself is not modelled, the request stands
/// for an interval past the threshold.
fn adverse(ct: &mut Ct, vf: u32, key: u32, rec: &mut Recorder) -> &'static str {
    let threshold = key
        .checked_sub(key::THRESHOLD_FIRST)
        .and_then(|i| {
            let c = ct.sriov.configs.get(&vf)?;
            c.thresholds.get(usize::try_from(i).ok()?).copied()
        })
        .unwrap_or(0);
    let sent = threshold != 0;
    if sent {
        let hxg = [event_header(GUC2PF_ADVERSE_EVENT), vf, key];
        ct.backlog.push_back((g2h_message(0, &hxg), 1));
    }
    rec.emit(Event::SriovAdverse {
        vfid: vf,
        key: Hex(key.into()),
        threshold,
        sent,
    });
    if sent {
        "queued"
    } else {
        "not_reported"
    }
}

impl Guc {
    /// The GuC's SR-IOV PF state.
    pub fn sriov(&self) -> &Sriov {
        &self.ct.sriov
    }

    /// Where VF `vf`'s local-memory offset `offset` lands in local memory,
    /// through the LMTT's cache ([`lmtt::Tlb::translate`]).
    pub fn lmtt_translate(&self, vf: u32, offset: u64) -> Option<u64> {
        self.ct.sriov.lmtt.translate(vf, offset)
    }

    /// Sets the local memory size `LMEM_SIZE` is checked against.
    pub fn sriov_set_lmem_size(&mut self, bytes: u64) {
        self.ct.sriov.lmem_size = bytes;
    }

    /// `LMEM_CFG` (primary GAM instance) now holds `lmem_cfg`: a new LMTT
    /// root empties the LMTT's cache ([`lmtt`]).
    pub fn lmtt_root(&mut self, lmem_cfg: u32, bus: &dyn Bus, rec: &mut Recorder) {
        self.ct.sriov.lmtt.root(lmem_cfg, bus, rec);
    }

    /// A device reset or Driver-FLR, `LMEM_CFG` back at `lmem_cfg`: the
    /// LMTT's cache is empty ([`lmtt`]).
    pub fn lmtt_reset(&mut self, lmem_cfg: u32, bus: &dyn Bus, rec: &mut Recorder) {
        self.ct.sriov.lmtt.reset(lmem_cfg, bus, rec);
    }

    /// The isolation check the last messages asked for, if any (taken).
    pub fn sriov_take_check(&mut self) -> Option<CheckDue> {
        self.ct.sriov.check.take()
    }

    /// Carries out a `vf:` / SR-IOV `guc:` test-control request (module
    /// docs, "Test control"), then writes what it queued.
    pub fn sriov_inject(
        &mut self,
        req: SriovRequest,
        now: std::time::Duration,
        rec: &mut Recorder,
        bus: &mut dyn Bus,
    ) {
        let enabled = self.ct.enabled().is_some();
        if let SriovRequest::Flr { vf } = req {
            // The host reset the VF, channel or not: its driver's relays
            // are gone ([`relay`]), and so is its own CT with the GuC
            // (seed 000 lines 313-321: the GuC discards the VF's interrupt
            // interface; `[MODEL]`: at the report, not at FLR_START, as the
            // function itself was just reset).
            relay::forget_vf(&mut self.ct.sriov, vf, "vf_flr", rec);
            self.vf_forget(vf, rec);
        }
        let result = match req {
            SriovRequest::RefuseVfCfg { count } => {
                self.ct.sriov.switches.refuse_cfg += count;
                "armed"
            }
            SriovRequest::FlrStuck { count } => {
                self.ct.sriov.switches.flr_stuck += count;
                "armed"
            }
            SriovRequest::RelayData0 { count } => {
                self.ct.sriov.switches.relay_data0 += count;
                "armed"
            }
            SriovRequest::Check => {
                self.ct.sriov.due("vf:check", true);
                "done"
            }
            // The register file's (`vf_regs`), never sent here.
            SriovRequest::Scratch { .. } | SriovRequest::KeepRegs { .. } => "not_guc",
            SriovRequest::Flr { .. } | SriovRequest::BogusNotify { .. } if !enabled => "no_channel",
            SriovRequest::Flr { vf } => {
                notify(&mut self.ct, vf, NOTIFY_VF_FLR, 1, rec);
                "queued"
            }
            SriovRequest::BogusNotify { count } => {
                notify(&mut self.ct, BOGUS_VF, NOTIFY_VF_FLR, count, rec);
                "queued"
            }
            SriovRequest::Adverse { .. } if !enabled => "no_channel",
            SriovRequest::Adverse { vf, key } => adverse(&mut self.ct, vf, key, rec),
            SriovRequest::Relay { .. }
            | SriovRequest::RelayRaw { .. }
            | SriovRequest::RelayBurst { .. }
                if !enabled =>
            {
                "no_channel"
            }
            SriovRequest::Relay { vf, rid, words } => {
                relay::relay(&mut self.ct, vf, rid, words.as_slice(), rec)
            }
            SriovRequest::RelayRaw { vf, words } => {
                relay::raw(&mut self.ct, vf, words.as_slice(), rec)
            }
            SriovRequest::RelayBurst { vf, count } => relay::burst(&mut self.ct, vf, count, rec),
        };
        rec.emit(Event::SriovInject {
            request: req.to_string(),
            result,
            armed_left: self.ct.sriov.armed_left(),
        });
        self.ct_service(now, rec, bus);
    }
}
