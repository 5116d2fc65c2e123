//! GuC submission: the context messages the GuC serves over CT and the
//! scheduler that loads the registered contexts onto the command streamers.
//!
//! Facts: upstream `xe_guc_submit.c` (`__register_exec_queue`, the
//! scheduling and deregistration handshakes), `xe_guc_id_mgr.c`;
//! `abi/guc_actions_abi.h` (action codes), `abi/guc_scheduler_abi.h`
//! (`GUC_*_CLASS`, `CONTEXT_REGISTRATION_FLAG_*`, `GUC_CONTEXT_ENABLE` /
//! `DISABLE`, `GUC_ID_MAX`), `abi/guc_klvs_abi.h` (context policy keys
//! 0x2001-0x2005), `abi/guc_errors_abi.h` (codes), `xe_guc_submit.c` (what
//! the host sends: `register_exec_queue`, `init_policies`,
//! `enable_scheduling`, `submit_exec_queue`, `deregister_exec_queue`; what
//! it expects back: `xe_guc_sched_done_handler` len >= 2,
//! `xe_guc_deregister_done_handler` len >= 1,
//! `xe_guc_exec_queue_reset_handler` len >= 1), `xe_hw_engine.c` (logical
//! instances). The firmware's own checks and its scheduler are not
//! published: everything they decide here is `[MODEL]`.
//!
//! # Messages
//!
//! Each is served as a REQUEST (SUCCESS / FAILURE) or a FAST_REQUEST (a
//! reply only on FAILURE), as the CT serves every action. Every refusal
//! records a `guc_submit_bad` violation (the host broke a rule) and
//! answers its own error code (`[MODEL]`: the codes are the mock's choice
//! among `guc_errors_abi.h`, one per reason so a test can tell them apart).
//!
//! - `REGISTER_CONTEXT` (0x4502) {hdr, flags, guc_id, class, submit mask,
//!   wq_desc lo/hi, wq_base lo/hi, wq_size, descriptor lo/hi}, checks in
//!   this order:
//!   length not 12 dwords: `INVALID_SIZE` 0x102;
//!   flags other than `CONTEXT_REGISTRATION_FLAG_KMD` with TYPE 0:
//!   `INVALID_PARAMS` 0x60;
//!   guc_id >= `GUC_ID_MAX` (65535): `INVALID_CONTEXT_INDEX` 0x61;
//!   guc_id registered: `INVALID_CONTEXT_REGISTRATION` 0x62;
//!   class not one of `GUC_RENDER_CLASS` 0 .. `GUC_COMPUTE_CLASS` 4:
//!   `INVALID_ENGINE_ID` 0x64;
//!   mask with more than one bit (load balancing is not modelled):
//!   `NOT_SUPPORTED` 0x20;
//!   mask 0 or naming no present engine (bit n = the n-th present engine
//!   of the class, `xe_hw_engine.c` logical instances):
//!   `CANNOT_COMPLETE_ACTION` 0x41;
//!   a work-queue field not 0 (parallel submission is not modelled):
//!   `INVALID_BUFFER_RANGE` 0x70;
//!   descriptor without the valid bit or with LRCA 0: `INVALID_CONTEXT`
//!   0x104;
//!   the image (PPHWSP and register state) not reachable through the
//!   GGTT: `INVALID_GGTT_ADDRESS` 0x80;
//!   the register state not parsable the way the engine restores it
//!   (`engine/lrc.rs`): `INVALID_BUFFER` 0x71.
//!   The image is checked at registration (not at first run); the engine
//!   reads it again at every Load.
//! - `UPDATE_CONTEXT_POLICIES` (0x100B) {hdr, guc_id, KLVs}: keys 0x2001
//!   execution quantum (us), 0x2002 preemption timeout (us), 0x2003
//!   priority (0..3), 0x2004, 0x2005 (stored), each of length 1. Applied
//!   only if all are good; SUCCESS DATA0 = KLVs applied. No guc_id:
//!   `INVALID_SIZE`; unregistered: `CONTEXT_NOT_REGISTERED` 0x100; a KLV
//!   past the message: `MALFORMED_KLV` 0x103; another key:
//!   `INVALID_KLV_KEY` 0x105; a length other than 1 or a priority above 3:
//!   `INVALID_KLV_DATA` 0x50.
//! - `SCHED_CONTEXT_MODE_SET` (0x1001) {hdr, guc_id, state}: length not 3:
//!   `INVALID_SIZE`; unregistered: `CONTEXT_NOT_REGISTERED`; state other
//!   than `GUC_CONTEXT_ENABLE` (1) / `GUC_CONTEXT_DISABLE` (0):
//!   `INVALID_PARAMS`. Else SUCCESS and then the G2H EVENT
//!   `SCHED_CONTEXT_MODE_DONE` (0x1002) {guc_id, state}. Enabling a
//!   context whose ring holds work (image `RING_TAIL` != `RING_HEAD`)
//!   gives it to the scheduler as `SCHED_CONTEXT` does: upstream's first
//!   submission is the enable alone (`xe_guc_submit.c`
//!   `submit_exec_queue`; found by running xe on the mock, suite
//!   `xe-probe`). Disable takes the
//!   context off its engine's queue; if the engine is running it, the GuC
//!   preempts it to idle first and sends MODE_DONE once it is off (a hung
//!   or halted context cannot be preempted: its MODE_DONE follows the
//!   preemption timeout's reset and notification; upstream shortens that
//!   timeout to 1 us before a disable, `xe_guc_submit.c`).
//! - `SCHED_CONTEXT` (0x1000) {hdr, guc_id}: length not 2: `INVALID_SIZE`;
//!   unregistered: `CONTEXT_NOT_REGISTERED` (counted `sched_ignored`).
//!   Disabled or banned: ignored, counted, SUCCESS (no violation: the host
//!   may race a reset notification). Else the context has new work: the
//!   running one gets a lite restore (its new `CTX_RING_TAIL`), another is
//!   queued on its engine (once).
//! - `DEREGISTER_CONTEXT` (0x4503) {hdr, guc_id}: length not 2:
//!   `INVALID_SIZE`; unregistered: `CONTEXT_NOT_REGISTERED`; enabled, or a
//!   disable whose MODE_DONE has not gone out: `INVALID_STATE` 0x0A. Else SUCCESS and the G2H EVENT
//!   `DEREGISTER_CONTEXT_DONE` (0x4600) {guc_id}; the id is free again.
//!
//! G2H events go through the CT backlog: written after the reply, as room
//! allows, nothing dropped (`ct.rs`, "Test control").
//!
//! # A VF's contexts
//!
//! The GuC has one scheduler for every function. A VF sends the five
//! context messages above over its own CT (`vf.rs`), with guc_ids of its
//! own, 0 up to the `NUM_CONTEXTS` the PF provisioned for it; the GuC
//! keeps the context as `BEGIN_CONTEXT_ID` + that id (seed 003 line 11:
//! the VF's contexts are the run the PF gave it; upstream's VF numbers its
//! contexts from 0 within `num_ctxs`, `xe_guc_submit.c` / `xe_guc_id_mgr.c`
//! on a VF, `xe_gt_sriov_vf.c` `vf_get_submission_cfg`). The events about
//! it (`SCHED_CONTEXT_MODE_DONE`, `DEREGISTER_CONTEXT_DONE`,
//! `CONTEXT_RESET_NOTIFICATION`) go to the VF's CT with the VF's own id;
//! a Load names the VF to the engine, which then reports the context's
//! interrupts through the VF's memory (`engine.rs`, "Memory-based
//! interrupts"). Beyond the PF's checks, a VF's message is refused
//! `INVALID_CONTEXT_INDEX` for an id at or past its `NUM_CONTEXTS`, and a
//! registration `INVALID_GGTT_ADDRESS` for an LRCA outside the VF's GGTT
//! range (`[MODEL]`: the firmware's checks are not published; a VF may
//! reach only what the PF gave it, seed 000 lines 151-157); a VF gets no
//! doorbell (`[MODEL]`: upstream's VF rings none). A VF FLR, a
//! `VF2GUC_VF_RESET` or a reset of the VF's configuration forgets the
//! VF's contexts without an event (seed 000 lines 300-326: the GuC cleans
//! the VF's scheduling state); one on an engine is taken off it first
//! (preempted to idle, or with an engine reset if it cannot be).
//!
//! # Scheduling
//!
//! [`Guc::schedule`] runs after every register access that may have
//! changed something and on the device's 1 ms tick. Per engine it keeps a
//! round-robin queue of contexts with work and the context it loaded:
//!
//! - an idle engine gets the queue's first context: the GuC Loads it
//!   itself (on hardware it writes the ELSQ), one element, the SW context
//!   ID in the descriptor (bits 54:39) replaced by the guc_id (`[MODEL]`:
//!   the firmware owns the SW context IDs under GuC submission; a guc_id
//!   is below 0xFFFF, the CSB's idle ID). No `RING_MODE` / `HWS_PGA`
//!   programming by the host is needed;
//! - the context-status entries of a GuC Load go to the GuC
//!   ([`crate::regfile::engine::Submitter`]): no CSB write in the host's
//!   HWSP, no context-switch interrupt; user interrupts reach the host;
//! - the queue is plain round robin: the priority (policy 0x2003) is
//!   stored but orders nothing (`[MODEL]`);
//! - when the running context has used its execution quantum (policy
//!   0x2001; [`DEFAULT_QUANTUM`] when never set) and another context of the
//!   engine has work, the GuC preempts it and puts it at the queue's end;
//! - hang detection: a running context that makes no progress (hung
//!   under `engine:hang`, halted by an engine error, or blocked on an
//!   unsatisfied semaphore) for longer than its preemption timeout (policy
//!   0x2002; [`DEFAULT_PREEMPT_TIMEOUT`] when never set) is reset: the GuC
//!   resets the engine (the engine model's reset, traced `cause: guc`),
//!   the context is BANNED (later `SCHED_CONTEXT` ignored, counted) until
//!   deregistered, and the G2H EVENT `CONTEXT_RESET_NOTIFICATION` (0x1008)
//!   {guc_id} goes out; the engine's other contexts keep running.
//!   `[MODEL]`: hardware finds this when it tries to preempt; the mock
//!   measures the stall itself, preemption wanted or not;
//! - a failed engine reset (`engine:reset-fails`): the G2H EVENT
//!   `ENGINE_FAILURE_NOTIFICATION` (0x1009) {GuC class, physical instance,
//!   [`ENGINE_FAILURE_REASON`]}, no `CONTEXT_RESET_NOTIFICATION`, and the
//!   GuC schedules nothing more on the engine until it is reset
//!   (`Guc::engine_failed`, `[MODEL]`);
//! - nothing at all while the uKernel is stuck (`guc:hang:1`,
//!   [`Guc::hang`]).
//!
//! A GuC reset, a device reset or a Driver-FLR forgets every context
//! (traced `guc_submit_forget`) and every doorbell; `ct:disable` does not.
//!
//! # Doorbells
//!
//! MMIO doorbells (seed 000 L1001-1073) are in [`doorbell`]:
//! `ALLOCATE_DOORBELL` / `DEALLOCATE_DOORBELL` and the host's writes to the
//! doorbell window of BAR0.
//!
//! # Test control
//!
//! `guc:drop-sched:N`: the next N `SCHED_CONTEXT` are dropped without an
//! effect or a reply (counted `sched_dropped`). `guc:refuse-register:N`:
//! the next N `REGISTER_CONTEXT` are answered FAILURE `ACTION_ABORTED`
//! (0x31), nothing registered, no violation. `guc:refuse-doorbell:N`: the
//! next N `ALLOCATE_DOORBELL` likewise (nothing armed; a GuC that does not
//! arm doorbells, as real 70.x firmware answers the legacy action). `guc:reset-storm:N`: N
//! context resets of the registered contexts, round robin by guc_id,
//! without any hang: each as the preemption timeout's (engine reset if it
//! is running, banned, notification). With no context registered the rest
//! of the storm is dropped (traced). The switches are the test's: resets
//! keep them; a second one adds its N.

mod doorbell;

pub use doorbell::Armed;
pub use doorbell::DRB_BASE;
pub use doorbell::PHYSICAL_DOORBELLS;
pub use doorbell::WINDOW_END;
pub use doorbell::WINDOW_START;

use std::collections::BTreeMap;
use std::collections::BTreeSet;
use std::collections::VecDeque;
use std::time::Duration;

use super::g2h_message;
use super::inject::event_header;
use super::serve::klvs;
use super::Ct;
use crate::abi;
use crate::control::GucRequest;
use crate::recorder::Recorder;
use crate::regfile::engine::lrc;
use crate::regfile::engine::EngineDef;
use crate::regfile::engine::Engines;
use crate::regfile::engine::Io;
use crate::regfile::engine::Submitter;
use crate::regfile::engine::GRDOM_RENDER;
use crate::regfile::guc::ads::Contract;
use crate::regfile::guc::ggtt::Gtt;
use crate::regfile::guc::log::code as log_code;
use crate::regfile::guc::log::Class as LogClass;
use crate::regfile::guc::Bus;
use crate::regfile::guc::Guc;
use crate::regfile::intc::Class;
use crate::trace::Event;
use crate::trace::Hex;

use abi::klv::CONTEXT_POLICY_EXECUTION_QUANTUM as KLV_EXECUTION_QUANTUM;
use abi::klv::CONTEXT_POLICY_PREEMPTION_TIMEOUT as KLV_PREEMPTION_TIMEOUT;
use abi::klv::CONTEXT_POLICY_PREEMPT_TO_IDLE as KLV_PREEMPT_TO_IDLE;
use abi::klv::CONTEXT_POLICY_SCHEDULING_PRIORITY as KLV_PRIORITY;
use abi::klv::CONTEXT_POLICY_SLPM_GT_FREQUENCY as KLV_SLPM_GT_FREQUENCY;
use abi::sched::CONTEXT_DISABLE;
use abi::sched::CONTEXT_ENABLE;
use abi::sched::CONTEXT_REGISTRATION_FLAG_KMD as FLAG_KMD;
use abi::sched::GUC_ID_MAX;

/// Highest priority value (`GUC_CLIENT_PRIORITY_NORMAL` 3,
/// `xe_guc_fwif.h`; 0 is KMD_HIGH).
pub const PRIORITY_MAX: u32 = 3;
/// Preemption timeout of a context that never set one (spec: 640000 us).
pub const DEFAULT_PREEMPT_TIMEOUT: Duration = Duration::from_micros(640_000);
/// The reason dword of `ENGINE_FAILURE_NOTIFICATION` (`[MODEL]`: the
/// firmware's reason codes are not published; upstream only prints it,
/// `xe_guc_submit.c` `xe_guc_exec_queue_reset_failure_handler`, and so
/// does i915, `intel_guc_submission.c`
/// `intel_guc_engine_failure_process_msg`). 1: the engine did not come
/// out of reset.
pub const ENGINE_FAILURE_REASON: u32 = 1;
/// Execution quantum of a context that never set one (`[MODEL]`: 5 ms).
pub const DEFAULT_QUANTUM: Duration = Duration::from_millis(5);
/// Dwords of `REGISTER_CONTEXT` (the action and `struct
/// guc_ctxt_registration_info`'s 11 fields, `xe_guc_submit.c`).
pub const REGISTER_DWORDS: usize = 12;
/// SW context ID field of a descriptor: bits 54:39 (`engine.rs`
/// `Element::ctx_id`).
const CTX_ID_SHIFT: u32 = 39;

/// The violation kind of a refused submission message.
const BAD: &str = "guc_submit_bad";
/// The violation kind of a registration the firmware's contract refuses.
const CONTRACT: &str = "guc_contract";

/// The GuC engine class of a hardware class (`abi/guc_scheduler_abi.h`
/// `GUC_*_CLASS`).
pub(crate) fn guc_class(c: Class) -> Option<u32> {
    use abi::sched::*;
    Some(match c {
        Class::Render => RENDER_CLASS,
        Class::VideoDecode => VIDEO_CLASS,
        Class::VideoEnhance => VIDEOENHANCE_CLASS,
        Class::Copy => BLITTER_CLASS,
        Class::Compute => COMPUTE_CLASS,
        Class::Other => return None,
    })
}

/// Context policies (module docs, `UPDATE_CONTEXT_POLICIES`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Policies {
    /// 0x2001, us.
    pub quantum_us: Option<u32>,
    /// 0x2002, us.
    pub preempt_timeout_us: Option<u32>,
    /// 0x2003.
    pub priority: Option<u32>,
    /// 0x2004.
    pub preempt_to_idle: Option<u32>,
    /// 0x2005.
    pub slpm_freq: Option<u32>,
}

impl Policies {
    fn quantum(&self) -> Duration {
        self.quantum_us
            .map_or(DEFAULT_QUANTUM, |us| Duration::from_micros(us.into()))
    }

    fn preempt_timeout(&self) -> Duration {
        self.preempt_timeout_us
            .map_or(DEFAULT_PREEMPT_TIMEOUT, |us| {
                Duration::from_micros(us.into())
            })
    }
}

/// Whose context it is, and the guc_id its owner knows it by.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Owner {
    /// 0 the PF, `n` VF `n`.
    pub vf: u32,
    /// The owner's id: the PF's is the GuC's; a VF's is its own (module
    /// docs, "A VF's contexts").
    pub local: u32,
}

/// The VF whose CT the GuC is serving, and what it was provisioned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Guest {
    /// The VF.
    pub vf: u32,
    /// `BEGIN_CONTEXT_ID`.
    pub begin: u32,
    /// `NUM_CONTEXTS`.
    pub num: u32,
    /// Its GGTT range `[start, end)`, if any.
    pub ggtt: Option<(u64, u64)>,
}

/// A registered context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Context {
    /// Whose it is.
    pub owner: Owner,
    /// Its engine.
    pub engine: &'static EngineDef,
    /// The descriptor the host registered.
    pub desc: u64,
    /// `SCHED_CONTEXT_MODE_SET` enable.
    pub enabled: bool,
    /// Reset by the GuC: nothing runs until deregistered.
    pub banned: bool,
    /// Policies.
    pub policies: Policies,
    /// In its engine's queue.
    queued: bool,
    /// Running, and new work arrived: a lite restore is due.
    lite: bool,
    /// Disabled while on its engine: `SCHED_CONTEXT_MODE_DONE` is due once
    /// it is off.
    disabling: bool,
    /// The physical doorbell armed for it.
    pub doorbell: Option<u32>,
    /// Its VF was reset while it ran: dropped, without an event, once it
    /// is off its engine (module docs, "A VF's contexts").
    doomed: bool,
}

/// What the GuC loaded on an engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Running {
    guc_id: u32,
    /// When it was loaded (its quantum runs from here).
    since: Duration,
    /// Since when it makes no progress.
    stalled_since: Option<Duration>,
}

/// The test control's `guc:` switches (kept over resets).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Switches {
    drop_sched: u64,
    refuse_register: u64,
    refuse_doorbell: u64,
}

/// The GuC's submission state.
#[derive(Debug, Clone, Default)]
pub struct Submit {
    /// The present engines (the fuses'), in table order.
    present: Vec<&'static EngineDef>,
    switches: Switches,
    contexts: BTreeMap<u32, Context>,
    /// Per engine: guc_ids with work, round robin.
    queues: BTreeMap<&'static str, VecDeque<u32>>,
    /// Per engine: what the GuC loaded.
    running: BTreeMap<&'static str, Running>,
    /// Reset-storm notifications still to send, and the next guc_id to
    /// consider.
    storm: u64,
    storm_next: u32,
    /// Context-status entries the engines reported to the GuC.
    status_entries: u64,
    /// Armed physical doorbells by id.
    doorbells: BTreeMap<u32, Armed>,
    /// What the GuC read from its ADS and boot words at its last boot
    /// (nothing before a boot: it schedules nothing).
    pub contract: Contract,
    /// Engines whose reset failed (`ENGINE_FAILURE_NOTIFICATION` sent): the
    /// GuC schedules nothing more on them until it is reset.
    dead: BTreeSet<&'static str>,
    /// While the GuC serves a VF's CT: that VF (module docs, "A VF's
    /// contexts").
    pub(super) guest: Option<Guest>,
    /// G2H events for another function than the CT being served: (function,
    /// message), for [`Guc::route_submit_events`].
    routed: Vec<(u32, Vec<u32>)>,
}

impl Submit {
    /// The state of a GuC that knows the present engines and nothing else.
    pub fn new(present: Vec<&'static EngineDef>) -> Self {
        Self {
            present,
            ..Self::default()
        }
    }

    /// After a GuC reset: the engines and the test's switches stay.
    pub fn after_reset(&self) -> Self {
        Self {
            present: self.present.clone(),
            switches: self.switches,
            ..Self::default()
        }
    }

    /// The context `guc_id`, if registered.
    pub fn context(&self, guc_id: u32) -> Option<&Context> {
        self.contexts.get(&guc_id)
    }

    /// Contexts registered.
    pub fn registered(&self) -> usize {
        self.contexts.len()
    }

    /// Whether the GuC gave engine `name` up after a failed reset.
    pub fn engine_dead(&self, name: &str) -> bool {
        self.dead.contains(name)
    }

    /// Context-status entries the engines reported to the GuC so far.
    pub fn status_entries(&self) -> u64 {
        self.status_entries
    }

    /// Whether [`Guc::schedule`] has something to look at.
    fn has_work(&self) -> bool {
        self.storm > 0
            || !self.running.is_empty()
            || !self.routed.is_empty()
            || self.queues.values().any(|q| !q.is_empty())
    }

    /// Contexts of VF `vf` registered.
    pub fn registered_by(&self, vf: u32) -> usize {
        self.contexts.values().filter(|c| c.owner.vf == vf).count()
    }

    /// The present engine a (class, logical mask) pair names: the logical
    /// instance through the ADS mapping table to a physical one, which the
    /// ADS masks must enable (module docs, "The ADS and the boot words").
    fn engine_of(
        &self,
        class: u32,
        mask: u32,
    ) -> Result<&'static EngineDef, (u32, String, &'static str)> {
        let Some(hw) = [
            Class::Render,
            Class::VideoDecode,
            Class::VideoEnhance,
            Class::Copy,
            Class::Compute,
        ]
        .into_iter()
        .find(|&c| guc_class(c) == Some(class)) else {
            return Err((
                abi::error::INVALID_ENGINE_ID,
                format!("engine class {class} is not a GuC class (0..4, GUC_*_CLASS)"),
                "refused",
            ));
        };
        if mask.count_ones() > 1 {
            return Err((
                abi::error::NOT_SUPPORTED,
                format!("submit mask {mask:#x} names several engines (not modelled)"),
                "refused",
            ));
        }
        if mask == 0 {
            return Err((
                abi::error::CANNOT_COMPLETE_ACTION,
                format!("submit mask 0 names no present engine of class {class}"),
                "refused",
            ));
        }
        let logical = mask.trailing_zeros();
        let Some(phys) = self.contract.physical(class, logical) else {
            return Err((
                abi::error::INVALID_ENGINE_ID,
                format!(
                    "logical instance {logical} of class {class} is not in the ADS mapping \
                     table (gt_system_info.mapping_table; a minimal ADS maps nothing)"
                ),
                "refused_engine_disabled",
            ));
        };
        if !self.contract.enabled(class, phys) {
            return Err((
                abi::error::INVALID_ENGINE_ID,
                format!(
                    "logical instance {logical} of class {class} maps to physical instance \
                     {phys}, which the ADS engine_enabled_masks[{class}] ({:#x}) does not enable",
                    self.contract
                        .masks
                        .get(class as usize)
                        .copied()
                        .unwrap_or(0)
                ),
                "refused_engine_disabled",
            ));
        }
        self.present
            .iter()
            .find(|d| d.src.class == hw && u32::from(d.src.instance) == phys)
            .copied()
            .ok_or_else(|| {
                (
                    abi::error::CANNOT_COMPLETE_ACTION,
                    format!(
                        "submit mask {mask:#x} maps to physical instance {phys} of class \
                         {class}, which this part does not have"
                    ),
                    "refused",
                )
            })
    }
}

/// Outcome of a served message, for the trace and the reply.
struct Outcome {
    result: &'static str,
    engine: Option<&'static str>,
    answer: Result<u32, u32>,
}

impl Outcome {
    fn ok(data0: u32, engine: Option<&'static str>) -> Self {
        Outcome {
            result: "ok",
            engine,
            answer: Ok(data0),
        }
    }

    fn refused(code: u32, why: String, rec: &mut Recorder) -> Self {
        Self::refused_as(code, why, "refused", rec)
    }

    /// A refusal traced as `result`; the ones of the firmware's contract
    /// (module docs, "The ADS and the boot words") record `guc_contract`.
    fn refused_as(code: u32, why: String, result: &'static str, rec: &mut Recorder) -> Self {
        let kind = if result == "refused" { BAD } else { CONTRACT };
        rec.violation(kind, why);
        Outcome {
            result,
            engine: None,
            answer: Err(code),
        }
    }
}

/// The actions [`serve`] takes.
const SERVED: [u32; 7] = [
    abi::action::REGISTER_CONTEXT,
    abi::action::UPDATE_CONTEXT_POLICIES,
    abi::action::SCHED_CONTEXT_MODE_SET,
    abi::action::SCHED_CONTEXT,
    abi::action::DEREGISTER_CONTEXT,
    abi::action::ALLOCATE_DOORBELL,
    abi::action::DEALLOCATE_DOORBELL,
];

/// Serves a submission action, if `action` is one; `None` otherwise.
pub(super) fn serve(
    ct: &mut Ct,
    gtt: &mut Gtt,
    action: u32,
    hxg: &[u32],
    rec: &mut Recorder,
) -> Option<Result<u32, u32>> {
    if !SERVED.contains(&action) {
        return None;
    }
    let translated;
    let hxg = match ct.submit.guest {
        None => hxg,
        Some(g) => match to_global(g, action, hxg, rec) {
            Ok(h) => {
                translated = h;
                &translated
            }
            Err(out) => return Some(out.answer),
        },
    };
    let (name, out) = match action {
        abi::action::REGISTER_CONTEXT => ("register", register(ct, gtt, hxg, rec)),
        abi::action::UPDATE_CONTEXT_POLICIES => ("policies", policies(ct, hxg, rec)),
        abi::action::SCHED_CONTEXT_MODE_SET => ("mode_set", mode_set(ct, gtt, hxg, rec)),
        abi::action::SCHED_CONTEXT => ("sched", sched(ct, hxg, rec)),
        abi::action::DEREGISTER_CONTEXT => ("deregister", deregister(ct, hxg, rec)),
        abi::action::ALLOCATE_DOORBELL => ("allocate_doorbell", doorbell::allocate(ct, hxg, rec)),
        abi::action::DEALLOCATE_DOORBELL => {
            ("deallocate_doorbell", doorbell::deallocate(ct, hxg, rec))
        }
        _ => return None,
    };
    let s = &ct.submit;
    rec.emit(Event::GucSubmit {
        vf: s.guest.map_or(0, |g| g.vf),
        action: name,
        guc_id: hxg.get(id_dword(action)).copied(),
        state: (action == abi::action::SCHED_CONTEXT_MODE_SET)
            .then(|| hxg.get(2).copied())
            .flatten(),
        result: out.result,
        code: out.answer.err().map(|c| Hex(c.into())),
        engine: out.engine,
        // CAST: at most GUC_ID_MAX.
        registered: s.contexts.len() as u64,
    });
    Some(out.answer)
}

/// A VF's message with its guc_id made the GuC's (module docs, "A VF's
/// contexts"), or the refusal of an id outside its run or of a message a
/// VF may not send.
fn to_global(g: Guest, action: u32, hxg: &[u32], rec: &mut Recorder) -> Result<Vec<u32>, Outcome> {
    if [
        abi::action::ALLOCATE_DOORBELL,
        abi::action::DEALLOCATE_DOORBELL,
    ]
    .contains(&action)
    {
        return Err(Outcome {
            result: "refused",
            engine: None,
            answer: Err(abi::error::UNKNOWN_ACTION),
        });
    }
    let mut out = hxg.to_vec();
    // A message too short for an id is refused by its own check.
    if let Some(id) = out.get_mut(id_dword(action)) {
        if *id >= g.num {
            return Err(Outcome::refused(
                abi::error::INVALID_CONTEXT_INDEX,
                format!(
                    "VF {}: guc_id {:#x} is not below its NUM_CONTEXTS ({})",
                    g.vf, *id, g.num
                ),
                rec,
            ));
        }
        *id += g.begin;
    }
    Ok(out)
}

/// Which dword of the message holds the guc_id.
fn id_dword(action: u32) -> usize {
    if action == abi::action::REGISTER_CONTEXT {
        2
    } else {
        1
    }
}

/// Queues a G2H EVENT {hdr, data} and traces it.
pub(super) fn send_event(
    ct: &mut Ct,
    action: u32,
    data: &[u32],
    what: &'static str,
    rec: &mut Recorder,
) {
    let mut hxg = vec![event_header(action)];
    hxg.extend_from_slice(data);
    ct.backlog.push_back((g2h_message(0, &hxg), 1));
    rec.emit(Event::GucSubmitG2h {
        event: what,
        guc_id: data.first().copied().unwrap_or(0),
    });
}

/// Queues a G2H EVENT about a context {its owner's id, `rest`} for its
/// owner: on `ct` if it is the owner's, else routed
/// ([`Guc::route_submit_events`]).
fn notify(
    ct: &mut Ct,
    owner: Owner,
    action: u32,
    rest: &[u32],
    what: &'static str,
    rec: &mut Recorder,
) {
    let mut data = Vec::with_capacity(1 + rest.len());
    data.push(owner.local);
    data.extend_from_slice(rest);
    if owner.vf == ct.vf {
        send_event(ct, action, &data, what, rec);
        return;
    }
    let mut hxg = vec![event_header(action)];
    hxg.extend_from_slice(&data);
    ct.submit.routed.push((owner.vf, hxg));
    rec.emit(Event::GucSubmitG2h {
        event: what,
        guc_id: owner.local,
    });
}

fn register(ct: &mut Ct, gtt: &mut Gtt, hxg: &[u32], rec: &mut Recorder) -> Outcome {
    let s = &mut ct.submit;
    if s.switches.refuse_register > 0 {
        s.switches.refuse_register -= 1;
        return Outcome {
            result: "refused_switch",
            engine: None,
            answer: Err(abi::error::ACTION_ABORTED),
        };
    }
    let &[_, flags, id, class, mask, wq0, wq1, wq2, wq3, wq4, lo, hi] = hxg else {
        return Outcome::refused(
            abi::error::INVALID_SIZE,
            format!(
                "REGISTER_CONTEXT of {} dwords; it is {REGISTER_DWORDS}",
                hxg.len()
            ),
            rec,
        );
    };
    if flags != FLAG_KMD {
        return Outcome::refused(
            abi::error::INVALID_PARAMS,
            format!("REGISTER_CONTEXT flags {flags:#x}: KMD (bit 0) set and TYPE (2:1) 0 wanted"),
            rec,
        );
    }
    if id >= GUC_ID_MAX {
        return Outcome::refused(
            abi::error::INVALID_CONTEXT_INDEX,
            format!("REGISTER_CONTEXT guc_id {id:#x} is not below GUC_ID_MAX ({GUC_ID_MAX})"),
            rec,
        );
    }
    if s.contexts.contains_key(&id) {
        return Outcome::refused(
            abi::error::INVALID_CONTEXT_REGISTRATION,
            format!("REGISTER_CONTEXT guc_id {id:#x} is registered already"),
            rec,
        );
    }
    let c = &s.contract;
    if c.wa_missing != 0 || c.feature_missing != 0 {
        return Outcome::refused_as(
            abi::error::NO_PERMISSION,
            format!(
                "REGISTER_CONTEXT guc_id {id:#x}: the GuC booted with GUC_CTL_WA {:#x} (missing \
                 {:#x}) and GUC_CTL_FEATURE {:#x} (missing {:#x}); it schedules nothing",
                c.ctl_wa, c.wa_missing, c.ctl_feature, c.feature_missing
            ),
            "refused_boot_words",
            rec,
        );
    }
    let def = match s.engine_of(class, mask) {
        Ok(d) => d,
        Err((code, why, result)) => {
            return Outcome::refused_as(code, format!("REGISTER_CONTEXT: {why}"), result, rec)
        }
    };
    if [wq0, wq1, wq2, wq3, wq4].iter().any(|&w| w != 0) {
        return Outcome::refused(
            abi::error::INVALID_BUFFER_RANGE,
            "REGISTER_CONTEXT with work-queue fields (parallel submission is not modelled)".into(),
            rec,
        );
    }
    let desc = u64::from(lo) | u64::from(hi) << 32;
    // CAST: the low dword (LRCA 31:12).
    let lrca = (desc as u32) & !0xfff;
    if desc & 1 == 0 || lrca == 0 {
        return Outcome::refused(
            abi::error::INVALID_CONTEXT,
            format!("REGISTER_CONTEXT descriptor {desc:#x}: valid bit clear or LRCA 0"),
            rec,
        );
    }
    if let Some(g) = s.guest {
        let end = u64::from(lrca) + 4096;
        if !g
            .ggtt
            .is_some_and(|(a, b)| u64::from(lrca) >= a && end <= b)
        {
            return Outcome::refused(
                abi::error::INVALID_GGTT_ADDRESS,
                format!(
                    "VF {}: REGISTER_CONTEXT LRCA {lrca:#x} is outside its GGTT range",
                    g.vf
                ),
                rec,
            );
        }
    }
    // The image as the engine will restore it: its GGTT view, its parser.
    let mut irqs = Vec::new();
    let mut vf_irqs = BTreeSet::new();
    let mut io = Io {
        rec: &mut *rec,
        bus: gtt.bus(),
        irqs: &mut irqs,
        vf_irqs: &mut vf_irqs,
    };
    let mut pphwsp = [0u8; 4];
    let check = io
        .read(u64::from(lrca), &mut pphwsp, "context PPHWSP")
        .map_err(|f| (abi::error::INVALID_GGTT_ADDRESS, f.to_string()))
        .and_then(|()| {
            lrc::restore(def, lrca, &mut io).map_err(|e| {
                let code = match e.kind {
                    crate::regfile::engine::cs::ErrorKind::PageTable => {
                        abi::error::INVALID_GGTT_ADDRESS
                    }
                    _ => abi::error::INVALID_BUFFER,
                };
                (code, e.why)
            })
        });
    if let Err((code, why)) = check {
        return Outcome::refused(
            code,
            format!("REGISTER_CONTEXT guc_id {id:#x}, LRCA {lrca:#x}: {why}"),
            rec,
        );
    }
    let owner = s.guest.map_or(Owner { vf: 0, local: id }, |g| Owner {
        vf: g.vf,
        local: id - g.begin,
    });
    s.contexts.insert(
        id,
        Context {
            owner,
            engine: def,
            desc,
            enabled: false,
            banned: false,
            policies: Policies::default(),
            queued: false,
            lite: false,
            disabling: false,
            doorbell: None,
            doomed: false,
        },
    );
    Outcome::ok(0, Some(def.name))
}

/// The registered context of dword 1, or the refusal.
fn registered_id(s: &Submit, hxg: &[u32], name: &str, rec: &mut Recorder) -> Result<u32, Outcome> {
    let Some(&id) = hxg.get(1) else {
        return Err(Outcome::refused(
            abi::error::INVALID_SIZE,
            format!("{name} without a guc_id"),
            rec,
        ));
    };
    if !s.contexts.contains_key(&id) {
        return Err(Outcome::refused(
            abi::error::CONTEXT_NOT_REGISTERED,
            format!("{name} of guc_id {id:#x}, which is not registered"),
            rec,
        ));
    }
    Ok(id)
}

fn policies(ct: &mut Ct, hxg: &[u32], rec: &mut Recorder) -> Outcome {
    let s = &mut ct.submit;
    let id = match registered_id(s, hxg, "UPDATE_CONTEXT_POLICIES", rec) {
        Ok(id) => id,
        Err(o) => return o,
    };
    let list = match klvs(hxg.get(2..).unwrap_or(&[])) {
        Ok(l) => l,
        Err(why) => {
            return Outcome::refused(
                abi::error::MALFORMED_KLV,
                format!("UPDATE_CONTEXT_POLICIES: {why}"),
                rec,
            )
        }
    };
    let Some(ctx) = s.contexts.get_mut(&id) else {
        return Outcome::ok(0, None);
    };
    let mut p = ctx.policies;
    for k in &list {
        let slot = match k.key {
            KLV_EXECUTION_QUANTUM => &mut p.quantum_us,
            KLV_PREEMPTION_TIMEOUT => &mut p.preempt_timeout_us,
            KLV_PRIORITY => &mut p.priority,
            KLV_PREEMPT_TO_IDLE => &mut p.preempt_to_idle,
            KLV_SLPM_GT_FREQUENCY => &mut p.slpm_freq,
            key => {
                return Outcome::refused(
                    abi::error::INVALID_KLV_KEY,
                    format!("UPDATE_CONTEXT_POLICIES key {key:#06x} is no context policy"),
                    rec,
                )
            }
        };
        let &[v] = k.value else {
            return Outcome::refused(
                abi::error::INVALID_KLV_DATA,
                format!(
                    "UPDATE_CONTEXT_POLICIES key {:#06x} with {} value dwords; it has 1",
                    k.key,
                    k.value.len()
                ),
                rec,
            );
        };
        if k.key == KLV_PRIORITY && v > PRIORITY_MAX {
            return Outcome::refused(
                abi::error::INVALID_KLV_DATA,
                format!("UPDATE_CONTEXT_POLICIES priority {v} is above {PRIORITY_MAX}"),
                rec,
            );
        }
        *slot = Some(v);
    }
    ctx.policies = p;
    // CAST: at most 254 dwords of KLVs.
    Outcome::ok(list.len() as u32, Some(ctx.engine.name))
}

fn mode_set(ct: &mut Ct, gtt: &mut Gtt, hxg: &[u32], rec: &mut Recorder) -> Outcome {
    let s = &mut ct.submit;
    let id = match registered_id(s, hxg, "SCHED_CONTEXT_MODE_SET", rec) {
        Ok(id) => id,
        Err(o) => return o,
    };
    let &[_, _, state] = hxg else {
        return Outcome::refused(
            abi::error::INVALID_SIZE,
            format!("SCHED_CONTEXT_MODE_SET of {} dwords; it is 3", hxg.len()),
            rec,
        );
    };
    if state != CONTEXT_ENABLE && state != CONTEXT_DISABLE {
        return Outcome::refused(
            abi::error::INVALID_PARAMS,
            format!(
                "SCHED_CONTEXT_MODE_SET state {state:#x} is neither ENABLE (1) nor DISABLE (0)"
            ),
            rec,
        );
    }
    let Some(ctx) = s.contexts.get_mut(&id) else {
        return Outcome::ok(0, None);
    };
    ctx.enabled = state == CONTEXT_ENABLE;
    let engine = ctx.engine.name;
    if ctx.enabled {
        // An enabled context with work in its ring is the GuC's to run:
        // upstream sends a first job with the enable alone, no
        // SCHED_CONTEXT (`xe_guc_submit.c` `submit_exec_queue`).
        let (def, lrca) = (ctx.engine, (ctx.desc as u32) & !0xfff);
        if ring_has_work(gtt, def, lrca, rec) {
            give_work(s, id);
        }
    } else {
        unqueue(s, id);
        if s.running.get(engine).is_some_and(|r| r.guc_id == id) {
            // On its engine: MODE_DONE once the scheduler has taken it off
            // (preempted, or reset by the preemption timeout).
            if let Some(c) = s.contexts.get_mut(&id) {
                c.disabling = true;
            }
            return Outcome::ok(0, Some(engine));
        }
    }
    let owner = ct
        .submit
        .contexts
        .get(&id)
        .map(|c| c.owner)
        .unwrap_or_default();
    notify(
        ct,
        owner,
        abi::action::SCHED_CONTEXT_MODE_DONE,
        &[state],
        "mode_done",
        rec,
    );
    Outcome::ok(0, Some(engine))
}

/// Whether the image at `lrca` holds a ring with work (`RING_TAIL` not at
/// `RING_HEAD`). `[MODEL]`: the firmware's test is not published; an image
/// that no longer parses counts as none (the next `SCHED_CONTEXT` Loads it
/// and the engine reports the error).
fn ring_has_work(gtt: &mut Gtt, def: &'static EngineDef, lrca: u32, rec: &mut Recorder) -> bool {
    let mut irqs = Vec::new();
    let mut vf_irqs = BTreeSet::new();
    let mut io = Io {
        rec,
        bus: gtt.bus(),
        irqs: &mut irqs,
        vf_irqs: &mut vf_irqs,
    };
    lrc::restore(def, lrca, &mut io).is_ok_and(|r| r.ring.head != r.ring.tail)
}

/// A pending disable of `id` is complete: its `SCHED_CONTEXT_MODE_DONE`,
/// or, for a context whose VF was reset, its end.
fn disable_done(ct: &mut Ct, id: u32, rec: &mut Recorder) {
    let Some(c) = ct.submit.contexts.get_mut(&id).filter(|c| c.disabling) else {
        return;
    };
    c.disabling = false;
    if c.doomed {
        drop_doomed(&mut ct.submit, id, rec);
        return;
    }
    let owner = c.owner;
    notify(
        ct,
        owner,
        abi::action::SCHED_CONTEXT_MODE_DONE,
        &[CONTEXT_DISABLE],
        "mode_done",
        rec,
    );
}

/// VF `vf` was reset: [`Guc::submit_forget_vf`].
pub(super) fn forget_vf(s: &mut Submit, vf: u32, rec: &mut Recorder) {
    if vf == 0 {
        return;
    }
    let ids: Vec<u32> = s
        .contexts
        .iter()
        .filter(|(_, c)| c.owner.vf == vf && !c.doomed)
        .map(|(&id, _)| id)
        .collect();
    if ids.is_empty() {
        return;
    }
    for &id in &ids {
        if s.running.values().any(|r| r.guc_id == id) {
            // Off its engine first ([`Guc::schedule`]), then dropped.
            unqueue(s, id);
            if let Some(c) = s.contexts.get_mut(&id) {
                c.doomed = true;
                c.enabled = false;
                c.disabling = true;
            }
        } else {
            drop_doomed(s, id, rec);
        }
    }
    s.routed.retain(|(f, _)| *f != vf);
    rec.emit(Event::GucSubmitForget {
        vf,
        // CAST: at most GUC_ID_MAX.
        contexts: ids.len() as u64,
    });
}

/// Forgets context `id` of a reset VF, now off its engine.
fn drop_doomed(s: &mut Submit, id: u32, rec: &mut Recorder) {
    unqueue(s, id);
    if let Some(db) = s.contexts.remove(&id).and_then(|c| c.doorbell) {
        doorbell::release(s, db, "dropped_at_dereg", rec);
    }
}

/// Takes `id` off its engine's queue.
fn unqueue(s: &mut Submit, id: u32) {
    let Some(ctx) = s.contexts.get_mut(&id) else {
        return;
    };
    ctx.queued = false;
    ctx.lite = false;
    if let Some(q) = s.queues.get_mut(ctx.engine.name) {
        q.retain(|&g| g != id);
    }
}

fn sched(ct: &mut Ct, hxg: &[u32], rec: &mut Recorder) -> Outcome {
    let s = &mut ct.submit;
    if s.switches.drop_sched > 0 {
        s.switches.drop_sched -= 1;
        return Outcome {
            result: "dropped",
            engine: None,
            answer: Ok(0),
        };
    }
    if hxg.len() != 2 {
        return Outcome::refused(
            abi::error::INVALID_SIZE,
            format!("SCHED_CONTEXT of {} dwords; it is 2", hxg.len()),
            rec,
        );
    }
    let id = match registered_id(s, hxg, "SCHED_CONTEXT", rec) {
        Ok(id) => id,
        Err(mut o) => {
            o.result = "ignored";
            return o;
        }
    };
    let engine = s.contexts.get(&id).map(|c| c.engine.name);
    if !give_work(s, id) {
        return Outcome {
            result: "ignored",
            engine,
            answer: Ok(0),
        };
    }
    Outcome::ok(0, engine)
}

/// The context `id` has new work (`SCHED_CONTEXT`, a doorbell): the running
/// one gets a lite restore, another is queued once. False if it may not run
/// (unregistered, disabled, banned): nothing changes.
fn give_work(s: &mut Submit, id: u32) -> bool {
    let Some(ctx) = s.contexts.get_mut(&id) else {
        return false;
    };
    let engine = ctx.engine.name;
    if !ctx.enabled || ctx.banned {
        return false;
    }
    if s.running.get(engine).is_some_and(|r| r.guc_id == id) {
        ctx.lite = true;
    } else if !ctx.queued {
        ctx.queued = true;
        s.queues.entry(engine).or_default().push_back(id);
    }
    true
}

fn deregister(ct: &mut Ct, hxg: &[u32], rec: &mut Recorder) -> Outcome {
    let s = &mut ct.submit;
    if hxg.len() != 2 {
        return Outcome::refused(
            abi::error::INVALID_SIZE,
            format!("DEREGISTER_CONTEXT of {} dwords; it is 2", hxg.len()),
            rec,
        );
    }
    let id = match registered_id(s, hxg, "DEREGISTER_CONTEXT", rec) {
        Ok(id) => id,
        Err(o) => return o,
    };
    if s.contexts
        .get(&id)
        .is_some_and(|c| c.enabled || c.disabling)
    {
        return Outcome::refused(
            abi::error::INVALID_STATE,
            format!(
                "DEREGISTER_CONTEXT of guc_id {id:#x} while it is enabled or its disable has not \
                 completed (no SCHED_CONTEXT_MODE_DONE yet)"
            ),
            rec,
        );
    }
    unqueue(s, id);
    let ctx = s.contexts.remove(&id);
    if let Some(db) = ctx.as_ref().and_then(|c| c.doorbell) {
        // [MODEL] The PRM gives no rule; the GuC cannot leave a doorbell
        // ringing a context it forgot, so it disarms it and the test sees it.
        doorbell::release(s, db, "dropped_at_dereg", rec);
    }
    let owner = ctx.as_ref().map(|c| c.owner).unwrap_or_default();
    let engine = ctx.map(|c| c.engine.name);
    notify(
        ct,
        owner,
        abi::action::DEREGISTER_CONTEXT_DONE,
        &[],
        "deregister_done",
        rec,
    );
    Outcome::ok(0, engine)
}

impl Guc {
    /// The GuC's submission state.
    pub fn submit(&self) -> &Submit {
        &self.ct.submit
    }

    /// Whether [`Guc::schedule`] has something to look at (cheap); never
    /// while the uKernel is stuck ([`Guc::hang`]).
    pub fn schedule_has_work(&self) -> bool {
        !self.hung && self.ct.submit.has_work()
    }

    /// Carries out a `guc:` test-control request (module docs).
    pub fn submit_inject(&mut self, req: GucRequest, rec: &mut Recorder) {
        if req == GucRequest::Hang {
            self.hang(rec);
            return;
        }
        let s = &mut self.ct.submit;
        match req {
            // Not the submission model's (`Guc::log_inject`).
            GucRequest::Hang
            | GucRequest::LogBurst { .. }
            | GucRequest::Crash
            | GucRequest::Exception => {}
            GucRequest::DropSched { count } => s.switches.drop_sched += count,
            GucRequest::RefuseRegister { count } => s.switches.refuse_register += count,
            GucRequest::RefuseDoorbell { count } => s.switches.refuse_doorbell += count,
            GucRequest::ResetStorm { count } => s.storm += count,
        }
        rec.emit(Event::GucSubmitInject {
            request: req.to_string(),
            armed_left: s.switches.drop_sched
                + s.switches.refuse_register
                + s.switches.refuse_doorbell
                + s.storm,
        });
    }

    /// Forgets every context (GuC reset, device reset): traced if there
    /// were any.
    pub(in crate::regfile::guc) fn submit_forget(&mut self, rec: &mut Recorder) {
        doorbell::forget(&mut self.ct.submit, rec);
        let n = self.ct.submit.contexts.len();
        if n > 0 {
            rec.emit(Event::GucSubmitForget {
                vf: 0,
                // CAST: at most GUC_ID_MAX.
                contexts: n as u64,
            });
        }
    }

    /// VF `vf` was reset (its FLR, `VF2GUC_VF_RESET`, its configuration
    /// reset): its contexts are forgotten without an event; one on an
    /// engine is marked and taken off by the scheduler first (module docs,
    /// "A VF's contexts").
    pub(in crate::regfile::guc) fn submit_forget_vf(&mut self, vf: u32, rec: &mut Recorder) {
        forget_vf(&mut self.ct.submit, vf, rec);
    }

    /// Delivers the G2H events of GuC submission meant for another
    /// function than the CT that produced them: the PF's into its CT, a
    /// VF's into its own (dropped, traced, if that CT is not enabled).
    pub(in crate::regfile::guc) fn route_submit_events(
        &mut self,
        rec: &mut Recorder,
        bus: &mut dyn Bus,
    ) {
        for (f, hxg) in std::mem::take(&mut self.ct.submit.routed) {
            if f == 0 {
                self.ct.backlog.push_back((g2h_message(0, &hxg), 1));
            } else if !self.vf_send(f, &hxg, rec, bus) {
                rec.emit(Event::VfGuest {
                    vf: f,
                    what: "g2h_dropped_ct_off",
                });
            }
        }
    }

    /// The scheduler (module docs, "Scheduling"): reset storms, hang
    /// detection, lite restores, quantum expiry and Loads onto idle
    /// engines; then writes the G2H events it produced.
    pub fn schedule(
        &mut self,
        engines: &mut Engines,
        now: Duration,
        rec: &mut Recorder,
        bus: &mut dyn Bus,
    ) {
        if !self.schedule_has_work() {
            return;
        }
        self.storm(engines, rec);
        let present = self.ct.submit.present.clone();
        for def in present {
            self.schedule_engine(def, engines, now, rec, bus);
        }
        self.route_submit_events(rec, bus);
        self.ct_service(now, rec, bus);
    }

    /// Sends the pending reset-storm notifications.
    fn storm(&mut self, engines: &mut Engines, rec: &mut Recorder) {
        while self.ct.submit.storm > 0 {
            let s = &mut self.ct.submit;
            s.storm -= 1;
            let next = s
                .contexts
                .range(s.storm_next..)
                .next()
                .or_else(|| s.contexts.iter().next())
                .map(|(&id, _)| id);
            let Some(id) = next else {
                rec.emit(Event::GucSubmitInject {
                    request: format!("guc:reset-storm: {} dropped, no context", s.storm + 1),
                    armed_left: 0,
                });
                s.storm = 0;
                break;
            };
            s.storm_next = id.wrapping_add(1);
            self.reset_context(id, "storm", None, engines, rec);
        }
    }

    /// Resets context `id`: its engine if it runs there, banned, the
    /// notification. If the engine reset fails, the engine failure instead
    /// ([`Guc::engine_failed`]); a context running on an engine already
    /// given up is left alone.
    fn reset_context(
        &mut self,
        id: u32,
        cause: &'static str,
        stalled: Option<Duration>,
        engines: &mut Engines,
        rec: &mut Recorder,
    ) {
        let s = &mut self.ct.submit;
        let Some(def) = s.contexts.get(&id).map(|c| c.engine) else {
            unqueue(s, id);
            return;
        };
        let engine = def.name;
        let running = s.running.get(engine).is_some_and(|r| r.guc_id == id);
        if running && s.dead.contains(engine) {
            return;
        }
        if running {
            let keep = restore_lists(s, def);
            if !engines.guc_reset(engine, "guc", &keep, rec) {
                self.engine_failed(def, id, rec);
                return;
            }
            self.ct.submit.running.remove(engine);
        }
        let s = &mut self.ct.submit;
        unqueue(s, id);
        if s.contexts.get(&id).is_some_and(|c| c.doomed) {
            drop_doomed(s, id, rec);
            return;
        }
        if let Some(ctx) = s.contexts.get_mut(&id) {
            ctx.banned = true;
        }
        let owner = s.contexts.get(&id).map(|c| c.owner).unwrap_or_default();
        self.log_note(
            rec.now(),
            LogClass::Error,
            log_code::CONTEXT_RESET,
            id,
            engine_word(def),
        );
        rec.emit(Event::GucSubmitReset {
            guc_id: id,
            engine,
            cause,
            engine_reset: running,
            stalled_us: stalled.map(|d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX)),
        });
        notify(
            &mut self.ct,
            owner,
            abi::action::CONTEXT_RESET_NOTIFICATION,
            &[],
            "reset_notification",
            rec,
        );
        if running {
            disable_done(&mut self.ct, id, rec);
        }
    }

    /// The GuC's reset of engine `def` (running context `id`) failed
    /// (`engine:reset-fails`): it sends the G2H EVENT
    /// `ENGINE_FAILURE_NOTIFICATION` {GuC class, physical instance,
    /// [`ENGINE_FAILURE_REASON`]} (the three dwords upstream checks,
    /// `xe_guc_submit.c` `xe_guc_exec_queue_reset_failure_handler`; the
    /// instance is the physical one, which i915 looks the engine up by,
    /// `intel_guc_submission.c` `intel_guc_engine_failure_process_msg`) and
    /// no `CONTEXT_RESET_NOTIFICATION`: the context was not reset. Upstream
    /// answers with a GT reset (`xe_gt_reset_async`). `[MODEL]`: the engine
    /// is given up: the context stays registered, unbanned and running on
    /// it in the GuC's record, and the GuC schedules nothing more on the
    /// engine (no Load, no hang detection, no `SCHED_CONTEXT_MODE_DONE` for
    /// a disable of that context) until a GuC reset; the other engines
    /// keep running.
    fn engine_failed(&mut self, def: &'static EngineDef, id: u32, rec: &mut Recorder) {
        let s = &mut self.ct.submit;
        s.dead.insert(def.name);
        let class = guc_class(def.src.class).unwrap_or(u32::MAX);
        let instance = u32::from(def.src.instance);
        self.log_note(
            rec.now(),
            LogClass::Error,
            log_code::ENGINE_FAILED,
            engine_word(def),
            id,
        );
        rec.emit(Event::GucEngineFailure {
            engine: def.name,
            guc_id: id,
            guc_class: class,
            instance,
            reason: Hex(ENGINE_FAILURE_REASON.into()),
        });
        send_event(
            &mut self.ct,
            abi::action::ENGINE_FAILURE_NOTIFICATION,
            &[class, instance, ENGINE_FAILURE_REASON],
            "engine_failure",
            rec,
        );
    }

    /// One engine's turn of the scheduler.
    fn schedule_engine(
        &mut self,
        def: &'static EngineDef,
        engines: &mut Engines,
        now: Duration,
        rec: &mut Recorder,
        bus: &mut dyn Bus,
    ) {
        let name = def.name;
        let entries = engines.take_guc_status(name);
        self.ct.submit.status_entries += entries.len() as u64;
        if self.ct.submit.dead.contains(name) {
            // Given up after a failed reset (`Guc::engine_failed`).
            return;
        }
        let Some(e) = engines.by_name(name) else {
            return;
        };
        let active = e
            .active
            .as_ref()
            .filter(|_| e.submitter() == Submitter::Guc)
            .map(|c| u32::from(c.el.ctx_id()));
        let stalled = e.stalled();
        let hard = e.stuck_hard();
        // The GuC's record follows the engine: a context that completed
        // (or a host reset) leaves it idle.
        let stale = self
            .ct
            .submit
            .running
            .get(name)
            .filter(|r| Some(r.guc_id) != active)
            .map(|r| r.guc_id);
        if let Some(id) = stale {
            self.ct.submit.running.remove(name);
            disable_done(&mut self.ct, id, rec);
            let s = &mut self.ct.submit;
            // Work that came for it after it finished: it goes in the queue.
            if let Some(c) = s.contexts.get_mut(&id).filter(|c| c.lite) {
                c.lite = false;
                if !c.queued {
                    c.queued = true;
                    s.queues.entry(name).or_default().push_back(id);
                }
            }
        }
        let s = &mut self.ct.submit;
        if let Some(r) = s.running.get_mut(name) {
            let id = r.guc_id;
            let since = r.since;
            let stuck = if stalled {
                Some(now.saturating_sub(*r.stalled_since.get_or_insert(now)))
            } else {
                r.stalled_since = None;
                None
            };
            let policies = s.contexts.get(&id).map(|c| c.policies).unwrap_or_default();
            let disabling = s.contexts.get(&id).is_some_and(|c| c.disabling);
            if stuck.is_some_and(|t| t >= policies.preempt_timeout()) {
                self.reset_context(id, "preemption_timeout", stuck, engines, rec);
            } else if disabling && !hard {
                // Disabled while running: preempted to idle, then DONE.
                s.running.remove(name);
                rec.emit(Event::GucSubmitLoad {
                    vf: s.contexts.get(&id).map_or(0, |c| c.owner.vf),
                    engine: name,
                    guc_id: id,
                    lrca: Hex(0),
                    action: "preempt_to_idle",
                });
                engines.guc_preempt_to_idle(name, rec, bus);
                let entries = engines.take_guc_status(name);
                self.ct.submit.status_entries += entries.len() as u64;
                disable_done(&mut self.ct, id, rec);
            } else if !hard {
                let expired = now.saturating_sub(since) >= policies.quantum();
                let waiting = s
                    .queues
                    .get(name)
                    .is_some_and(|q| q.iter().any(|g| runnable(s, *g)));
                if expired && waiting {
                    // Round robin: the running context goes to the end, the
                    // next one preempts it (a semaphore wait is a
                    // preemption point; a hung or halted context is not).
                    if let Some(c) = s.contexts.get_mut(&id) {
                        if c.enabled && !c.banned {
                            c.queued = true;
                            s.queues.entry(name).or_default().push_back(id);
                        }
                    }
                    s.running.remove(name);
                    self.load_next(def, engines, now, rec, bus);
                    return;
                }
                let lite = s.contexts.get_mut(&id).is_some_and(|c| {
                    let l = c.lite;
                    c.lite = false;
                    l
                });
                if lite {
                    self.load(def, id, "lite_restore", engines, now, rec, bus);
                }
            }
        }
        if !self.ct.submit.running.contains_key(name) {
            self.load_next(def, engines, now, rec, bus);
        }
    }

    /// Loads the engine's next runnable context, and the one after it if
    /// that completes at once, until one stays or the queue is empty.
    fn load_next(
        &mut self,
        def: &'static EngineDef,
        engines: &mut Engines,
        now: Duration,
        rec: &mut Recorder,
        bus: &mut dyn Bus,
    ) {
        let name = def.name;
        let busy = engines
            .by_name(name)
            .is_some_and(|e| e.active.is_some() && e.submitter() == Submitter::Host);
        if busy {
            // The host's execlists own it (`[MODEL]`: the GuC waits).
            return;
        }
        let preempting = engines.by_name(name).is_some_and(|e| e.active.is_some());
        let mut action = if preempting { "switch" } else { "start" };
        loop {
            let s = &mut self.ct.submit;
            let Some(q) = s.queues.get_mut(name) else {
                return;
            };
            let Some(id) = q.pop_front() else {
                return;
            };
            if let Some(c) = s.contexts.get_mut(&id) {
                c.queued = false;
            }
            if !runnable(s, id) {
                continue;
            }
            self.load(def, id, action, engines, now, rec, bus);
            action = "start";
            if self.ct.submit.running.contains_key(name) {
                return;
            }
        }
    }

    /// The GuC Loads context `id` on `def` (module docs).
    #[allow(clippy::too_many_arguments)]
    fn load(
        &mut self,
        def: &'static EngineDef,
        id: u32,
        action: &'static str,
        engines: &mut Engines,
        now: Duration,
        rec: &mut Recorder,
        bus: &mut dyn Bus,
    ) {
        let s = &mut self.ct.submit;
        let Some(ctx) = s.contexts.get_mut(&id) else {
            return;
        };
        ctx.lite = false;
        let desc = (ctx.desc & !(0xffff << CTX_ID_SHIFT)) | u64::from(id) << CTX_ID_SHIFT;
        let func = ctx.owner.vf;
        self.log_note(
            now,
            LogClass::Verbose(1),
            log_code::LOAD,
            id,
            engine_word(def),
        );
        let s = &mut self.ct.submit;
        rec.emit(Event::GucSubmitLoad {
            vf: func,
            engine: def.name,
            guc_id: id,
            // CAST: LRCA 31:12 of the low dword.
            lrca: Hex(u64::from(desc as u32 & !0xfff)),
            action,
        });
        engines.guc_load(def.name, desc, func, rec, bus);
        let entries = engines.take_guc_status(def.name);
        s.status_entries += entries.len() as u64;
        let e = engines.by_name(def.name);
        let still = e.is_some_and(|e| {
            e.active
                .as_ref()
                .is_some_and(|c| u32::from(c.el.ctx_id()) == id)
        });
        // The stall clock starts at the Load that left it stalled.
        let stalled = e.is_some_and(|e| e.stalled());
        if still {
            let (since, stalled_since) = match s.running.get(def.name) {
                Some(r) if r.guc_id == id => (r.since, r.stalled_since),
                _ => (now, None),
            };
            s.running.insert(
                def.name,
                Running {
                    guc_id: id,
                    since,
                    stalled_since: stalled.then(|| stalled_since.unwrap_or(now)),
                },
            );
        } else {
            s.running.remove(def.name);
        }
    }
}

/// An engine in a GuC log entry: GuC class << 8 | physical instance
/// (`[MODEL]`, `regfile/guc/log.rs`).
fn engine_word(def: &EngineDef) -> u32 {
    guc_class(def.src.class).unwrap_or(0xFF) << 8 | u32::from(def.src.instance)
}

/// What the GuC restores after resetting `def`: its own save/restore
/// list and, when it is in the render reset domain (RCS and every CCS
/// share `GRDOM_RENDER`, i915 `intel_engine_cs.c`), the lists of the
/// domain's other engines, whose shared registers (`RCU_MODE`, `CCS_MODE`)
/// the same reset clears (`[MODEL]`: the GuC's reset is per domain; upstream
/// lists `RCU_MODE` on the first render/compute engine only,
/// `xe_hw_engine.c` "Enable CCS Engine(s)").
fn restore_lists(s: &Submit, def: &'static EngineDef) -> Vec<u32> {
    s.present
        .iter()
        .filter(|d| std::ptr::eq(**d, def) || (d.gdrst == def.gdrst && def.gdrst == GRDOM_RENDER))
        .filter_map(|d| {
            let c = guc_class(d.src.class)?;
            Some(s.contract.restore_list(c, d.src.instance.into()).to_vec())
        })
        .flatten()
        .collect()
}

/// Whether `id` may be loaded: registered, enabled, not banned.
fn runnable(s: &Submit, id: u32) -> bool {
    s.contexts.get(&id).is_some_and(|c| c.enabled && !c.banned)
}
