//! Event counters and the JSON summary the test harness checks.
//!
//! The summary is rewritten atomically (temporary file + rename), so a reader
//! never sees a partial file: periodically while the mock runs and a last
//! time, with `"final": true`, when it exits. A harness fails the run on any
//! unknown access or violation it has not whitelisted, and can tell a clean
//! exit from a crash by `final`.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::io::Write;
use std::path::Path;
use std::path::PathBuf;

use serde::Deserialize;
use serde::Serialize;

use crate::trace::Event;
use crate::trace::Hex;
use crate::trace::Op;

pub mod sriov;
pub mod vf_guest;

/// Violation kind of an access to a register whose forcewake domain sleeps.
pub const SLEEPING_DOMAIN: &str = "sleeping_domain";
/// Violation kind of a read of a terminated MCR instance.
pub const TERMINATED_READ: &str = "terminated_read";

/// One unknown register dword and how often it was touched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnknownEntry {
    /// "read" or "write".
    pub op: Op,
    /// Dword-aligned BAR0 offset.
    pub offset: Hex,
    /// Number of accesses.
    pub count: u64,
}

/// The GT interrupt controller's record (`regfile::intc`), the summary's
/// `irq` object. Per-source maps are keyed by source name (`guc`, `rcs0`,
/// `vcs3`, ...); a source that never appeared has no key (reads as 0).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IrqSummary {
    /// Events raised at a modelled source (test control, the GuC, fault
    /// switches), whatever became of them.
    pub raised: u64,
    /// Raised events whose bits were all disabled: dropped.
    pub dropped_disabled: u64,
    /// MSIs the controller generated (each sent as an `irqs` or, without an
    /// eventfd, an `irqs_dropped`).
    pub msis: u64,
    /// Identities presented with DataValid, all sources.
    pub identities_total: u64,
    /// Identities presented per source (`irq.identities.guc`): what a
    /// driver's per-source count must equal.
    pub identities: BTreeMap<String, u64>,
    /// `raised` per source.
    pub raised_by_source: BTreeMap<String, u64>,
    /// `dropped_disabled` per source.
    pub dropped_by_source: BTreeMap<String, u64>,
    /// GT error raises per severity (`correctable`, `nonfatal`, `fatal`).
    pub gt_errors: BTreeMap<String, u64>,
    /// MSIs sent with nothing pending (test control `spurious-msi`).
    pub spurious_msis: u64,
    /// Test-control requests carried out.
    pub control_requests: u64,
    /// Paced test events never raised (a reset or surprise removal came
    /// first).
    pub injections_abandoned: u64,
    /// Interrupt teardowns seen: late windows opened
    /// (`regfile::intc::Intc::late_window_open`).
    #[serde(default)]
    pub disarms: u64,
    /// Accesses to a handler-path interrupt register inside a late window:
    /// a handler that ran after the teardown touched the device.
    #[serde(default)]
    pub accesses_after_disarm: u64,
}

/// The GuC's CT registration (`regfile::guc::ct`), the summary's `ct`
/// object.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CtSummary {
    /// `SELF_CFG` KLVs the GuC took (answered DATA0 1).
    pub registrations: u64,
    /// `CONTROL_CTB` enables that succeeded.
    pub enables: u64,
    /// `CONTROL_CTB` disables that disabled an enabled CT.
    pub disables: u64,
    /// The CT is enabled (as of this summary; the final one tells the state
    /// at exit). A GuC reset, Driver-FLR or device reset clears it.
    pub enabled: bool,
    /// H2G ring size in bytes of the last successful enable (0: none).
    pub h2g_size: u64,
    /// G2H ring size in bytes of the last successful enable (0: none).
    pub g2h_size: u64,
    /// Requests the GuC read from the H2G ring.
    #[serde(default)]
    pub h2g_messages: u64,
    /// Messages the GuC wrote into the G2H ring.
    #[serde(default)]
    pub g2h_messages: u64,
    /// REQUESTs the GuC read from the H2G ring (whatever their answer).
    #[serde(default)]
    pub requests: u64,
    /// FAST_REQUESTs the GuC read from the H2G ring.
    #[serde(default)]
    pub fast_requests: u64,
    /// RESPONSE_SUCCESS messages written into G2H (`ct:stray-fence` too).
    #[serde(default)]
    pub replies_success: u64,
    /// RESPONSE_FAILURE messages written into G2H.
    #[serde(default)]
    pub replies_failure: u64,
    /// NO_RESPONSE_BUSY messages written into G2H.
    #[serde(default)]
    pub replies_busy: u64,
    /// NO_RESPONSE_RETRY messages written into G2H.
    #[serde(default)]
    pub replies_retry: u64,
    /// Requests consumed and never answered (`ct:no-response`,
    /// `ct-no-response`).
    #[serde(default)]
    pub unanswered: u64,
    /// EVENT messages written into G2H.
    #[serde(default)]
    pub events_sent: u64,
    /// G2H messages waiting for room (the `g2h:flood` backlog); a GuC
    /// reset, a disable or a device reset drops them.
    #[serde(default)]
    pub g2h_pending: u64,
    /// RENDER_COMPUTE_YIELD quantum (ms) last applied; 0 if never.
    #[serde(default)]
    pub policy_yield_ms: u64,
    /// RENDER_COMPUTE_YIELD ratio (percent) last applied; 0 if never.
    #[serde(default)]
    pub policy_yield_ratio: u64,
    /// Distinct `OPT_IN_FEATURE_KLV` features enabled since the last GuC
    /// reset.
    #[serde(default)]
    pub opt_in_keys: u64,
    /// Actions the GuC does not serve, by code (hex), with their count
    /// (`guc_ct_unknown_action`).
    #[serde(default)]
    pub unknown_actions: BTreeMap<String, u64>,
    /// SLPC, GuC RC and engine-activity requests served (`guc_slpc`,
    /// result "done").
    #[serde(default)]
    pub slpc_requests: u64,
    /// Requests the `ct:` switches will still fault.
    #[serde(default)]
    pub faults_armed_left: u64,
}

/// GuC submission ([`crate::regfile::guc::ct::submit`]): `guc_submit.*`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GucSubmitSummary {
    /// Contexts registered now (0 after a GuC or device reset).
    pub registered: u64,
    /// `REGISTER_CONTEXT`s accepted.
    pub registrations: u64,
    /// `UPDATE_CONTEXT_POLICIES` accepted.
    pub policies: u64,
    /// `SCHED_CONTEXT_MODE_SET` enables accepted.
    pub enables: u64,
    /// `SCHED_CONTEXT_MODE_SET` disables accepted.
    pub disables: u64,
    /// `SCHED_CONTEXT`s that gave a context work (queued or lite restore).
    pub sched: u64,
    /// `SCHED_CONTEXT`s dropped by `guc:drop-sched`.
    pub sched_dropped: u64,
    /// `SCHED_CONTEXT`s ignored: the context is disabled, banned or not
    /// registered (that one answered FAILURE, not counted in `refused`).
    pub sched_ignored: u64,
    /// `DEREGISTER_CONTEXT`s accepted.
    pub deregistrations: u64,
    /// Context resets by the GuC (preemption timeout or `guc:reset-storm`),
    /// each with its `CONTEXT_RESET_NOTIFICATION`.
    pub resets: u64,
    /// Contexts the GuC loaded onto an engine (starts and switches; lite
    /// restores and preemptions to idle are not counted).
    pub contexts_run: u64,
    /// `SCHED_CONTEXT_MODE_DONE` events queued to G2H.
    pub mode_done_sent: u64,
    /// `DEREGISTER_CONTEXT_DONE` events queued to G2H.
    pub dereg_done_sent: u64,
    /// Submission messages refused with FAILURE (each also a
    /// `guc_submit_bad` violation; `guc:refuse-register` and
    /// `guc:refuse-doorbell` ones included).
    pub refused: u64,
    /// Physical doorbells armed now (0 after a GuC or device reset).
    #[serde(default)]
    pub doorbells_armed: u64,
    /// `ALLOCATE_DOORBELL`s accepted.
    #[serde(default)]
    pub doorbell_allocs: u64,
    /// `DEALLOCATE_DOORBELL`s accepted.
    #[serde(default)]
    pub doorbell_deallocs: u64,
    /// Writes to an armed doorbell page: each is a
    /// `SCHED_CONTEXT` of the bound context (`doorbell_rings_ignored` of
    /// them found it disabled or banned). Not counted in `sched`.
    #[serde(default)]
    pub doorbell_rings: u64,
    /// `REGISTER_CONTEXT`s refused because the (logical, through the ADS
    /// mapping table) engine is not enabled in the ADS masks (also in
    /// `refused`).
    #[serde(default)]
    pub refused_engine_disabled: u64,
    /// `REGISTER_CONTEXT`s refused because the boot words lacked bits the
    /// part needs (`guc.ads.wa_missing`, `feature_missing`; also in
    /// `refused`).
    #[serde(default)]
    pub refused_boot_words: u64,
    /// Of `doorbell_rings`: the bound context was disabled or banned.
    #[serde(default)]
    pub doorbell_rings_ignored: u64,
    /// Writes to a doorbell page without a valid physical doorbell
    /// (after a GuC reset: all of them): ignored (not monitored, seed 000
    /// L1009), not a violation.
    #[serde(default)]
    pub unarmed_rings: u64,
    /// Doorbells still armed when their context was deregistered (the GuC
    /// released them).
    #[serde(default)]
    pub doorbells_dropped_at_dereg: u64,
}

/// What the GuC read from its ADS and boot words at the last boot
/// ([`crate::regfile::guc::ads`]): the summary's `guc.ads`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdsSummary {
    /// `engine_enabled_masks` per GuC class name (`render`, `video`,
    /// `videoenhance`, `blitter`, `compute`); classes with mask 0 absent.
    pub engine_masks: BTreeMap<String, u64>,
    /// `mapping_table` per class: the physical instance of logical 0, 1,
    /// ... up to the first unused entry; classes with none absent.
    pub mapping: BTreeMap<String, Vec<u64>>,
    /// `golden_context_lrca` per class (classes with a pointer or a size).
    pub golden_lrca: BTreeMap<String, Hex>,
    /// `eng_state_size` per class, bytes.
    pub golden_size: BTreeMap<String, u64>,
    /// Save/restore list length per engine (by name; sets with a count).
    pub save_restore: BTreeMap<String, u64>,
    /// Capture list pointers that are not 0, by `instance|class.pf|vf.CLASS`
    /// and `global.pf|vf`.
    pub capture: BTreeMap<String, Hex>,
    /// WA KLV buffer GGTT address.
    pub wa_klv_addr: Hex,
    /// WA KLV buffer size, bytes.
    pub wa_klv_size: u64,
    /// WA KLV keys, in buffer order.
    pub wa_klv_keys: Vec<String>,
    /// `GUC_CTL_WA`.
    pub ctl_wa: Hex,
    /// `GUC_CTL_FEATURE`.
    pub ctl_feature: Hex,
    /// `GUC_CTL_WA` bits this part needs that were not set.
    pub wa_missing: Hex,
    /// `GUC_CTL_FEATURE` bits needed that were not set.
    pub feature_missing: Hex,
    /// Pointers read later (golden contexts, capture lists) that did not
    /// translate (each also a `guc_ads_pointer` violation).
    pub faults: Vec<String>,
}

/// The GuC's firmware contract: the summary's `guc`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GucSummary {
    /// The last boot's ADS reading (absent before a boot got that far).
    #[serde(default)]
    pub ads: Option<AdsSummary>,
    /// Boots that got as far as reading the ADS.
    #[serde(default)]
    pub ads_reads: u64,
    /// GuC engine resets after which registers were restored from the
    /// ADS save/restore list.
    #[serde(default)]
    pub engine_resets: u64,
    /// Registers the GuC restored after its engine resets (summed).
    #[serde(default)]
    pub regs_restored: u64,
    /// Engine registers the GuC's engine resets put back to their reset
    /// value because no save/restore list named them (summed; by name in
    /// `regs_lost_by_name`).
    #[serde(default)]
    pub regs_lost: u64,
    /// `regs_lost` by register name.
    #[serde(default)]
    pub regs_lost_by_name: BTreeMap<String, u64>,
    /// `GDRST` writes with `GRDOM_FULL` (the GT's programmable state, the
    /// engines and the GuC reset; `gt_full_reset` events).
    #[serde(default)]
    pub full_resets: u64,
    /// `ENGINE_FAILURE_NOTIFICATION`s the GuC sent (`engine:reset-fails`:
    /// its engine reset failed; `guc_engine_failure` events).
    #[serde(default)]
    pub engine_failures: u64,
    /// Times the GuC's uKernel got stuck by `guc:hang` (`guc_hang` "hung").
    #[serde(default)]
    pub hangs: u64,
    /// Crash dumps the GuC wrote and posted (`guc:crash:1`; `guc_crash`
    /// events of kind `crash_dump`).
    #[serde(default)]
    pub crash_dumps_posted: u64,
    /// Exceptions the GuC wrote and posted (`guc:exception:1`).
    #[serde(default)]
    pub exceptions_posted: u64,
}

/// The GuC's log buffer ([`crate::regfile::guc::log`]): the summary's
/// `guc_log`. The configuration is the last boot's; the counters add up
/// over boots, but `wraps` and `buffer_full_cnt`, which are the last
/// boot's.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GucLogSummary {
    /// Boots that took a log configuration.
    pub boots: u64,
    /// GGTT address of the buffer.
    pub buf: Hex,
    /// Upstream's log level: 0 off, 1 non-verbose only, 2..5 verbose.
    pub level: u64,
    /// Verbosity 0..3 (0 below level 2).
    pub verbosity: u64,
    /// `NOTIFY_ON_HALF_FULL` was set.
    pub notify_on_half_full: bool,
    /// Debug (event) section, bytes.
    pub debug_size: u64,
    /// Crash dump section, bytes.
    pub crash_size: u64,
    /// Error state capture section, bytes.
    pub capture_size: u64,
    /// Entries written into the debug section.
    pub entries: u64,
    /// Wraps of the debug section since the last boot.
    pub wraps: u64,
    /// Half-full notifications (`flush_to_file` set), sent or not.
    pub flush_notifies: u64,
    /// Of those, lost for want of an enabled CT.
    pub flush_notifies_lost: u64,
    /// Acknowledgements the GuC took (the host cleared `flush_to_file`
    /// after moving `read_ptr`).
    pub acks: u64,
    /// Overflows: laps over entries the host had not acknowledged.
    pub overflows: u64,
    /// `buffer_full_cnt` as last written (4 bits).
    pub buffer_full_cnt: u64,
}

/// Counters of one engine's command streamer ([`crate::regfile::engine`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineCounters {
    /// Execlist Loads (every write of `RING_EXECLIST_CONTROL` bit 0).
    pub loads: u64,
    /// Loads that were lite restores of the running context.
    pub lite_restores: u64,
    /// Contexts switched away from before they completed (switch detail 5).
    pub preemptions: u64,
    /// Contexts that ran until HEAD == TAIL.
    pub contexts_completed: u64,
    /// Commands executed.
    pub commands: u64,
    /// `MI_USER_INTERRUPT`s executed.
    pub user_interrupts: u64,
    /// CSB entries written to the host (not the ones `engine:csb-lost`
    /// dropped, nor the ones of GuC-loaded contexts, which go to the GuC).
    pub csb_entries: u64,
    /// `XY_FAST_COLOR_BLT`s executed (the driver clears the VFs' local
    /// memory with them).
    #[serde(default)]
    pub fills: u64,
    /// Bytes those fills wrote.
    #[serde(default)]
    pub fill_bytes: u64,
    /// `XY_CTRL_SURF_COPY_BLT`s executed (the driver clears the flat-CCS
    /// metadata of the memory it fills with them, `crate::ccs`).
    #[serde(default)]
    pub ccs_copies: u64,
    /// CCS bytes those copies moved (256 per block; one CCS byte covers
    /// 256 bytes of local memory).
    #[serde(default)]
    pub ccs_bytes: u64,
    /// CCS bytes of local memory they set to zero (copies to the metadata
    /// whose bytes were all zero).
    #[serde(default)]
    pub ccs_cleared_bytes: u64,
    /// Register accesses of commands (SRM, LRI, ...) to registers the
    /// command streamer does not model: reads gave 0, writes were dropped
    /// (`engine_unmodelled_reg` events).
    #[serde(default)]
    pub unmodelled_regs: u64,
    /// Command streamer errors (instruction and page-table).
    pub errors: u64,
    /// Engine resets.
    pub resets: u64,
    /// Loads the engine could not run: a GuC Load while the host had not
    /// set the engine up for GuC submission (`RING_MODE` legacy mode,
    /// `RING_HWS_PGA` 0), or any Load of a CCS without `RCU_MODE` CCS
    /// enable. No progress.
    #[serde(default)]
    pub loads_blocked: u64,
    /// Rules the driver broke on this engine (also in `violations`).
    pub violations: u64,
}

/// The command streamers: `engines.NAME.*` per present engine (the
/// `start` event names them), and `engines.gtt_faults` over all of them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnginesSummary {
    /// Page-table errors (an unmapped GGTT address) over all engines.
    pub gtt_faults: u64,
    /// Per engine, by name.
    #[serde(flatten)]
    pub by_engine: BTreeMap<String, EngineCounters>,
}

/// The summary file's content; the test harness and the VM runner read it
/// back with this type.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    /// BAR accesses that reached the mock, reads.
    pub mmio_reads: u64,
    /// BAR accesses that reached the mock, writes.
    pub mmio_writes: u64,
    /// Unknown register dwords touched (sum of `unknown[].count`).
    pub unknown_accesses: u64,
    /// Unknown dwords by direction and offset, sorted.
    pub unknown: Vec<UnknownEntry>,
    /// Violations of hardware rules (sum of `violation_kinds`).
    pub violations: u64,
    /// Violations by kind.
    pub violation_kinds: BTreeMap<String, u64>,
    /// Reads per known register.
    pub reg_reads: BTreeMap<String, u64>,
    /// Writes per known register.
    pub reg_writes: BTreeMap<String, u64>,
    /// Interrupts delivered.
    pub irqs: u64,
    /// Interrupts the device raised that could not be delivered.
    pub irqs_dropped: u64,
    /// DMA_MAP requests accepted.
    pub dma_maps: u64,
    /// DMA_UNMAP requests.
    pub dma_unmaps: u64,
    /// Function resets (vfio-user reset or config-space FLR).
    pub resets: u64,
    /// Driver-FLR handshakes started.
    pub driver_flrs: u64,
    /// PCODE mailbox commands executed.
    pub pcode_commands: u64,
    /// `PCODE_MAILBOX` reads answered busy (READY held by `--pcode-busy-ms`).
    pub pcode_busy_replies: u64,
    /// Forcewake wakes (acknowledge 0 -> 1) per domain.
    pub fw_wakes: BTreeMap<String, u64>,
    /// Forcewake request register writes per domain.
    pub fw_requests: BTreeMap<String, u64>,
    /// Register accesses while their forcewake domain slept (the
    /// `sleeping_domain` violations).
    pub sleeping_accesses: u64,
    /// Reads of terminated MCR instances (the `terminated_read` violations).
    pub terminated_reads: u64,
    /// The last value a unicast write stored, per `REG@slice,subslice`
    /// (the instance the mock routed it to).
    pub mcr_unicast_values: BTreeMap<String, u64>,
    /// Steering selector writes per selector register.
    pub mcr_selector_writes: BTreeMap<String, u64>,
    /// Config-space reads.
    pub config_reads: u64,
    /// Config-space writes.
    pub config_writes: u64,
    /// GuC resets through `GDRST`.
    pub guc_resets: u64,
    /// `GDRST` GuC resets that never completed (faults `guc-reset-stuck`,
    /// `guc-reset-stuck-after-load`; not in `guc_resets`).
    pub guc_resets_stuck: u64,
    /// GuC DMA starts (accepted or not).
    pub guc_dmas: u64,
    /// Images the GuC boot ROM authenticated.
    pub guc_loads: u64,
    /// MMIO requests the GuC took.
    pub h2g_requests: u64,
    /// MMIO replies the GuC made visible, by type ("success", "failure",
    /// "busy", "retry", "event").
    pub h2g_replies: BTreeMap<String, u64>,
    /// Bytes of the last hwconfig table `GET_HWCONFIG` copied (0: none).
    pub hwconfig_served_bytes: u64,
    /// SHA-256 of that table.
    pub hwconfig_served_sha256: Option<String>,
    /// `GUC_TLB_INV_CR` invalidations.
    pub tlb_invalidations: u64,
    /// Release of the last image loaded.
    pub guc_last_release: Option<String>,
    /// SHA-256 of the last image loaded.
    pub guc_last_sha256: Option<String>,
    /// A uKernel was started and no GuC reset, Driver-FLR or device reset
    /// followed (as of this summary; the final one tells the state at exit).
    pub guc_running_at_exit: bool,
    /// Bus Master Enable (PCI Command register bit 2) as of this summary
    /// (the final one tells the state at exit). Host writes of the Command
    /// register set and clear it, a function reset (FLR, vfio-user reset)
    /// clears it; a test window starts with the state the guest left.
    #[serde(default)]
    pub bus_master_at_exit: bool,
    /// Host writes of the Command register that set Bus Master Enable.
    #[serde(default)]
    pub bus_master_sets: u64,
    /// Host writes of the Command register that cleared Bus Master Enable.
    /// A reset that returns it to 0 is not counted: only the host's own
    /// clears (`pci_clear_master`, `pci_disable_device`) are.
    #[serde(default)]
    pub bus_master_clears: u64,
    /// Of `bus_master_clears`, those made while a started uKernel was still
    /// running (`guc_running_at_exit` true then): the host turned bus
    /// mastering off under a GuC it had not reset. Upstream's teardown
    /// resets the GuC first: `xe_pci.c` `xe_pci_probe` enables the device
    /// (`pcim_enable_device`, whose release disables it and so clears Bus
    /// Master Enable) before `xe_guc.c` `xe_guc_init_post_hwconfig`
    /// registers `guc_fini_hw` (`xe_uc_sanitize_reset`), so devres, which
    /// unwinds in reverse, resets the GuC before bus mastering goes off,
    /// after a failed probe as at unbind. Counted, not a violation: a GuC
    /// reset that never completes (`guc-reset-stuck`) leaves the host no
    /// better order, and the fault-injection sweeps assert it stays 0.
    #[serde(default)]
    pub bus_master_clears_guc_running: u64,
    /// Armed fault switches (written only: readers do not need them, and
    /// the names are the mock's own static strings).
    #[serde(skip_deserializing)]
    pub faults: Vec<&'static str>,
    /// Run-time surprise removals (`SIGUSR1` or the control request, see
    /// `server`): 0 or 1.
    #[serde(default)]
    pub surprise_removals: u64,
    /// The GT interrupt controller.
    #[serde(default)]
    pub irq: IrqSummary,
    /// The GuC's CT registration.
    #[serde(default)]
    pub ct: CtSummary,
    /// The command streamers.
    #[serde(default)]
    pub engines: EnginesSummary,
    /// GuC submission.
    #[serde(default)]
    pub guc_submit: GucSubmitSummary,
    /// The GuC's firmware contract (ADS, boot words, engine resets).
    #[serde(default)]
    pub guc: GucSummary,
    /// The GuC's log buffer.
    #[serde(default)]
    pub guc_log: GucLogSummary,
    /// The GuC's SR-IOV PF model and the isolation checker.
    #[serde(default)]
    pub sriov: sriov::SriovSummary,
    /// The VFs served as functions of their own to a second VM, by VF.
    #[serde(default)]
    pub vf_guest: BTreeMap<u32, vf_guest::VfGuest>,
    /// Events traced (the next trace `seq`).
    pub events: u64,
    /// True only in the file written at a clean exit.
    #[serde(rename = "final")]
    pub is_final: bool,
}

/// Running counters, updated from every event.
#[derive(Debug, Default)]
pub struct Counters {
    s: Summary,
    unknown: BTreeMap<(Op, u64), u64>,
}

impl Counters {
    /// Counts one event.
    pub fn count(&mut self, ev: &Event) {
        let s = &mut self.s;
        sriov::count(&mut s.sriov, ev);
        vf_guest::count(&mut s.vf_guest, ev);
        match ev {
            Event::MmioRead(m) => {
                s.mmio_reads += 1;
                bump_each(&mut s.reg_reads, &m.reg);
            }
            Event::MmioWrite(m) => {
                s.mmio_writes += 1;
                bump_each(&mut s.reg_writes, &m.reg);
            }
            Event::UnknownAccess { op, offset, .. } => {
                s.unknown_accesses += 1;
                *self.unknown.entry((*op, offset.0)).or_default() += 1;
            }
            Event::Violation { kind, .. } => {
                s.violations += 1;
                *s.violation_kinds.entry((*kind).to_owned()).or_default() += 1;
                match *kind {
                    SLEEPING_DOMAIN => s.sleeping_accesses += 1,
                    TERMINATED_READ => s.terminated_reads += 1,
                    _ => {}
                }
            }
            Event::FwRequest { domain, .. } => bump(&mut s.fw_requests, domain),
            Event::FwAck {
                domain,
                awake: true,
                ..
            } => bump(&mut s.fw_wakes, domain),
            Event::Steer { selector, .. } => bump(&mut s.mcr_selector_writes, selector),
            Event::FaultArmed { name } => {
                s.faults.push(name);
                if *name == crate::device::SURPRISE_REMOVAL {
                    s.surprise_removals += 1;
                }
            }
            Event::DmaMap { .. } => s.dma_maps += 1,
            Event::DmaUnmap { .. } => s.dma_unmaps += 1,
            Event::Irq { .. } => s.irqs += 1,
            Event::IrqDropped { .. } => s.irqs_dropped += 1,
            // Every reset of the GuC also drops its CT registration.
            Event::Reset { .. } => {
                s.resets += 1;
                s.guc_running_at_exit = false;
                s.ct.enabled = false;
                s.ct.g2h_pending = 0;
                s.ct.opt_in_keys = 0;
            }
            Event::DriverFlr { phase } if *phase == "start" => {
                s.driver_flrs += 1;
                s.guc_running_at_exit = false;
                s.ct.enabled = false;
                s.ct.g2h_pending = 0;
                s.ct.opt_in_keys = 0;
            }
            Event::GucReset { .. } => {
                s.guc_resets += 1;
                s.guc_running_at_exit = false;
                s.ct.enabled = false;
                s.ct.g2h_pending = 0;
                s.ct.opt_in_keys = 0;
            }
            Event::GucCtSelfCfg { result, .. } if *result == "taken" => s.ct.registrations += 1,
            Event::GucCtControl { result, layout, .. } => match *result {
                "enabled" => {
                    s.ct.enables += 1;
                    s.ct.enabled = true;
                    if let Some(l) = layout {
                        s.ct.h2g_size = l.h2g_size;
                        s.ct.g2h_size = l.g2h_size;
                    }
                }
                "disabled" => {
                    s.ct.disables += 1;
                    s.ct.enabled = false;
                    s.ct.g2h_pending = 0;
                }
                _ => {}
            },
            Event::GucCtH2g { vf, .. } | Event::GucCtG2h { vf, .. } if *vf != 0 => {
                // A VF's CT: counted under `vf_guest` (`vf_guest::count`).
            }
            Event::GucCtH2g { kind, reply, .. } => {
                s.ct.h2g_messages += 1;
                match *kind {
                    "request" => s.ct.requests += 1,
                    _ => s.ct.fast_requests += 1,
                }
                if *reply == "unanswered" {
                    s.ct.unanswered += 1;
                }
            }
            Event::GucCtG2h { hxg, pending, .. } => {
                s.ct.g2h_messages += 1;
                s.ct.g2h_pending = *pending;
                match *hxg {
                    "success" => s.ct.replies_success += 1,
                    "failure" => s.ct.replies_failure += 1,
                    "busy" => s.ct.replies_busy += 1,
                    "retry" => s.ct.replies_retry += 1,
                    "event" => s.ct.events_sent += 1,
                    _ => {}
                }
            }
            Event::GucCtFault { armed_left, .. } => s.ct.faults_armed_left = *armed_left,
            Event::GucCtInject {
                request,
                result,
                armed_left,
                pending,
            } => {
                s.ct.faults_armed_left = *armed_left;
                s.ct.g2h_pending = *pending;
                if request == "ct:disable" && *result == "done" {
                    s.ct.enabled = false;
                }
            }
            Event::GucCtPolicy {
                yield_ms: Some(ms),
                yield_ratio: Some(ratio),
                result: "applied",
                ..
            } => {
                s.ct.policy_yield_ms = (*ms).into();
                s.ct.policy_yield_ratio = (*ratio).into();
            }
            Event::GucCtOptIn { opted_in, .. } => s.ct.opt_in_keys = (*opted_in).into(),
            Event::GucCtUnknownAction { action } => {
                *s.ct
                    .unknown_actions
                    .entry(format!("{:#x}", action.0))
                    .or_default() += 1;
            }
            Event::GucSlpc { result: "done", .. } => s.ct.slpc_requests += 1,
            // The GuC was not reset: it keeps running.
            Event::GucResetStuck { .. } => s.guc_resets_stuck += 1,
            Event::GucDma { .. } => s.guc_dmas += 1,
            Event::GucLoaded {
                release, sha256, ..
            } => {
                s.guc_loads += 1;
                s.guc_last_release = Some(release.clone());
                s.guc_last_sha256 = Some(sha256.clone());
                s.guc_running_at_exit = true;
            }
            Event::GucH2g { .. } => s.h2g_requests += 1,
            Event::GucAds { ads } => {
                s.guc.ads_reads += 1;
                s.guc.ads = Some(ads.clone());
            }
            Event::GtFullReset { .. } => s.guc.full_resets += 1,
            Event::GucEngineFailure { .. } => s.guc.engine_failures += 1,
            Event::GucHang { action: "hung" } => s.guc.hangs += 1,
            Event::GucCrash { kind, .. } => match *kind {
                "crash_dump" => s.guc.crash_dumps_posted += 1,
                _ => s.guc.exceptions_posted += 1,
            },
            Event::GucLogConfig {
                buf,
                level,
                verbosity,
                notify,
                debug_size,
                crash_size,
                capture_size,
            } => {
                let l = &mut s.guc_log;
                l.boots += 1;
                l.buf = *buf;
                l.level = (*level).into();
                l.verbosity = (*verbosity).into();
                l.notify_on_half_full = *notify;
                l.debug_size = *debug_size;
                l.crash_size = *crash_size;
                l.capture_size = *capture_size;
                l.wraps = 0;
                l.buffer_full_cnt = 0;
            }
            Event::GucLogWrite { entries, wraps, .. } => {
                s.guc_log.entries += *entries;
                s.guc_log.wraps = *wraps;
            }
            Event::GucLogNotify { sent, .. } => {
                s.guc_log.flush_notifies += 1;
                if *sent != "g2h" {
                    s.guc_log.flush_notifies_lost += 1;
                }
            }
            Event::GucLogAck { .. } => s.guc_log.acks += 1,
            Event::GucLogOverflow {
                count,
                buffer_full_cnt,
            } => {
                s.guc_log.overflows += *count;
                s.guc_log.buffer_full_cnt = (*buffer_full_cnt).into();
            }
            Event::GucEngineRestore { restored, lost, .. } => {
                s.guc.engine_resets += 1;
                s.guc.regs_restored += *restored;
                s.guc.regs_lost += lost.len() as u64;
                for l in lost {
                    *s.guc.regs_lost_by_name.entry((*l).to_owned()).or_default() += 1;
                }
            }
            Event::EngineBlocked { engine, .. } => {
                engine_entry(s, engine).loads_blocked += 1;
            }
            Event::McrUnicastWrite {
                reg,
                slice,
                subslice,
                value,
            } => {
                s.mcr_unicast_values
                    .insert(format!("{reg}@{slice},{subslice}"), value.0);
            }
            Event::GucG2hReply { kind, .. } => bump(&mut s.h2g_replies, kind),
            Event::GucHwconfig { bytes, sha256 } => {
                s.hwconfig_served_bytes = *bytes;
                s.hwconfig_served_sha256 = Some(sha256.clone());
            }
            Event::GgttTlbInvalidate { .. } => s.tlb_invalidations += 1,
            Event::Pcode { .. } => s.pcode_commands += 1,
            Event::PcodeBusy { .. } => s.pcode_busy_replies += 1,
            Event::ConfigWrite { .. } => s.config_writes += 1,
            Event::BusMaster { on, cause } => {
                s.bus_master_at_exit = *on;
                if *cause == "config_write" {
                    if *on {
                        s.bus_master_sets += 1;
                    } else {
                        s.bus_master_clears += 1;
                        if s.guc_running_at_exit {
                            s.bus_master_clears_guc_running += 1;
                        }
                    }
                }
            }
            Event::IrqRaise {
                source, outcome, ..
            } => {
                s.irq.raised += 1;
                bump(&mut s.irq.raised_by_source, source);
                if *outcome == "dropped_disabled" {
                    s.irq.dropped_disabled += 1;
                    bump(&mut s.irq.dropped_by_source, source);
                }
            }
            Event::IrqIdentity { source, .. } => {
                s.irq.identities_total += 1;
                bump(&mut s.irq.identities, source);
            }
            Event::Start {
                engines,
                bus_master,
                ..
            } => {
                s.bus_master_at_exit = *bus_master;
                for e in engines {
                    engine_entry(s, e);
                }
            }
            Event::EngineLoad { engine, action, .. } => {
                let e = engine_entry(s, engine);
                e.loads += 1;
                if *action == "lite_restore" {
                    e.lite_restores += 1;
                }
            }
            Event::EngineSwitch {
                engine,
                detail,
                lost,
                guc,
                ..
            } => {
                let e = engine_entry(s, engine);
                if !*lost && !*guc {
                    e.csb_entries += 1;
                }
                if *detail == 5 {
                    e.preemptions += 1;
                }
            }
            Event::EngineComplete { engine, .. } => engine_entry(s, engine).contexts_completed += 1,
            Event::EngineRun {
                engine,
                commands,
                user_interrupts,
                ..
            } => {
                let e = engine_entry(s, engine);
                e.commands += commands;
                e.user_interrupts += user_interrupts;
            }
            Event::EngineFill { engine, bytes, .. } => {
                let e = engine_entry(s, engine);
                e.fills += 1;
                e.fill_bytes += bytes;
            }
            Event::EngineCcsCopy {
                engine,
                bytes,
                zero,
                ..
            } => {
                let e = engine_entry(s, engine);
                e.ccs_copies += 1;
                e.ccs_bytes += bytes;
                if *zero == Some(true) {
                    e.ccs_cleared_bytes += bytes;
                }
            }
            Event::EngineUnmodelledReg { engine, .. } => {
                engine_entry(s, engine).unmodelled_regs += 1;
            }
            Event::EngineError { engine, kind, .. } => {
                engine_entry(s, engine).errors += 1;
                if *kind == "page_table" {
                    s.engines.gtt_faults += 1;
                }
            }
            Event::EngineReset { engine, .. } => engine_entry(s, engine).resets += 1,
            Event::EngineViolation { engine, kind, .. } => {
                engine_entry(s, engine).violations += 1;
                s.violations += 1;
                *s.violation_kinds.entry((*kind).to_owned()).or_default() += 1;
            }
            Event::GucSubmit {
                action,
                state,
                result,
                registered,
                ..
            } => {
                let g = &mut s.guc_submit;
                g.registered = *registered;
                match (*action, *result) {
                    (_, "refused_engine_disabled") => {
                        g.refused += 1;
                        g.refused_engine_disabled += 1;
                    }
                    (_, "refused_boot_words") => {
                        g.refused += 1;
                        g.refused_boot_words += 1;
                    }
                    (_, "refused" | "refused_switch") => g.refused += 1,
                    ("register", "ok") => g.registrations += 1,
                    ("policies", "ok") => g.policies += 1,
                    ("mode_set", "ok") if *state == Some(0) => g.disables += 1,
                    ("mode_set", "ok") => g.enables += 1,
                    ("sched", "ok") => g.sched += 1,
                    ("sched", "dropped") => g.sched_dropped += 1,
                    ("sched", "ignored") => g.sched_ignored += 1,
                    ("deregister", "ok") => g.deregistrations += 1,
                    ("allocate_doorbell", "ok") => g.doorbell_allocs += 1,
                    ("deallocate_doorbell", "ok") => g.doorbell_deallocs += 1,
                    _ => {}
                }
            }
            Event::GucSubmitG2h { event, .. } => match *event {
                "mode_done" => s.guc_submit.mode_done_sent += 1,
                "deregister_done" => s.guc_submit.dereg_done_sent += 1,
                _ => {}
            },
            Event::GucSubmitLoad { action, .. } if matches!(*action, "start" | "switch") => {
                s.guc_submit.contexts_run += 1;
            }
            Event::GucSubmitReset { .. } => s.guc_submit.resets += 1,
            Event::GucSubmitForget { vf: 0, .. } => s.guc_submit.registered = 0,
            Event::GucDoorbell { what, armed, .. } => {
                let g = &mut s.guc_submit;
                g.doorbells_armed = *armed;
                match *what {
                    "rang" => g.doorbell_rings += 1,
                    "ignored" | "guc_hung" => {
                        g.doorbell_rings += 1;
                        g.doorbell_rings_ignored += 1;
                    }
                    "unarmed" => g.unarmed_rings += 1,
                    "dropped_at_dereg" => g.doorbells_dropped_at_dereg += 1,
                    _ => {}
                }
            }
            Event::IntcMsi => s.irq.msis += 1,
            Event::IrqDisarmed => s.irq.disarms += 1,
            Event::IrqAccessAfterDisarm { .. } => s.irq.accesses_after_disarm += 1,
            Event::GtError { severity, .. } => bump(&mut s.irq.gt_errors, severity),
            Event::SpuriousMsi => s.irq.spurious_msis += 1,
            Event::Control { .. } => s.irq.control_requests += 1,
            Event::IrqInjectionsAbandoned { events, .. } => s.irq.injections_abandoned += events,
            _ => {}
        }
    }

    /// Counts a config-space read (not traced: QEMU reads config space often).
    pub fn count_config_read(&mut self) {
        self.s.config_reads += 1;
    }

    /// A snapshot of the summary, with `events` and `final` filled in.
    pub fn summary(&self, events: u64, is_final: bool) -> Summary {
        let mut s = self.s.clone();
        s.unknown = self
            .unknown
            .iter()
            .map(|(&(op, offset), &count)| UnknownEntry {
                op,
                offset: Hex(offset),
                count,
            })
            .collect();
        s.events = events;
        s.is_final = is_final;
        s
    }
}

fn engine_entry<'a>(s: &'a mut Summary, engine: &str) -> &'a mut EngineCounters {
    s.engines.by_engine.entry(engine.to_owned()).or_default()
}

fn bump_each(map: &mut BTreeMap<String, u64>, regs: &[&'static str]) {
    for r in regs {
        bump(map, r);
    }
}

fn bump(map: &mut BTreeMap<String, u64>, key: &str) {
    *map.entry(key.to_owned()).or_default() += 1;
}

/// Writes `summary` to `path` atomically: the bytes go to a sibling
/// temporary file that is then renamed over `path`.
///
/// # Errors
///
/// Creating, writing or renaming the file failed.
pub fn write_atomic(path: &Path, summary: &Summary) -> io::Result<()> {
    let tmp = tmp_path(path);
    let mut bytes = serde_json::to_vec_pretty(summary).map_err(io::Error::from)?;
    bytes.push(b'\n');
    let res = fs::File::create(&tmp)
        .and_then(|mut f| f.write_all(&bytes))
        .and_then(|()| fs::rename(&tmp, path));
    if res.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    res
}

/// `path` with `.tmp.<pid>` appended: same directory, so rename is atomic.
fn tmp_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(format!(".tmp.{}", std::process::id()));
    PathBuf::from(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::Mmio;
    use serde_json::json;
    use serde_json::Value;

    fn mmio(reg: Vec<&'static str>) -> Mmio {
        Mmio {
            bar: 0,
            offset: Hex(0),
            size: 4,
            value: Some(Hex(0)),
            reg,
            area: None,
            dropped: false,
        }
    }

    /// `engines.NAME.*` and `engines.gtt_faults` from the engine events;
    /// an engine violation also counts as a violation of its kind.
    #[test]
    fn engine_events_count_per_engine() {
        let mut c = Counters::default();
        let load = |action| Event::EngineLoad {
            engine: "bcs0",
            elements: 1,
            ctx: Hex(1),
            lrca: Hex(0x1000),
            action,
        };
        c.count(&load("start"));
        c.count(&load("lite_restore"));
        for (detail, lost) in [(0, false), (5, false), (0, true)] {
            c.count(&Event::EngineSwitch {
                engine: "bcs0",
                away: Hex(1),
                to: Hex(2),
                new_queue: true,
                detail,
                index: (!lost).then_some(0),
                lost,
                guc: false,
            });
        }
        c.count(&Event::EngineComplete {
            engine: "bcs0",
            ctx: Hex(1),
            lrca: Hex(0x1000),
            head: Hex(0x40),
        });
        c.count(&Event::EngineRun {
            engine: "bcs0",
            ctx: Hex(1),
            commands: 7,
            user_interrupts: 2,
            stopped: "complete",
        });
        for bytes in [4096, 8192] {
            c.count(&Event::EngineFill {
                engine: "bcs0",
                addr: Hex(0x1000),
                bytes,
                value: Hex(0),
            });
        }
        for zero in [Some(true), Some(false), None] {
            c.count(&Event::EngineCcsCopy {
                engine: "bcs0",
                src: Hex(0x1000),
                src_access: "direct",
                dst: Hex(0x1000),
                dst_access: if zero.is_some() { "indirect" } else { "direct" },
                blocks: 1,
                bytes: 256,
                zero,
            });
        }
        c.count(&Event::EngineUnmodelledReg {
            engine: "rcs0",
            command: "MI_STORE_REGISTER_MEM",
            op: "read",
            offset: Hex(0x7004),
            value: Hex(0),
        });
        for kind in ["page_table", "instruction"] {
            c.count(&Event::EngineError {
                engine: "rcs0",
                kind,
                ipehr: Hex(0),
                acthd: Hex(0),
                detail: String::new(),
            });
        }
        c.count(&Event::EngineReset {
            engine: "rcs0",
            cause: "gdrst",
        });
        c.count(&Event::EngineViolation {
            engine: "rcs0",
            kind: "engine_execlists_disabled",
            detail: String::new(),
        });
        let s = c.summary(0, false);
        let v = serde_json::to_value(&s).expect("serialises");
        assert_eq!(
            v["engines"],
            json!({
                "gtt_faults": 1,
                "bcs0": {"loads": 2, "lite_restores": 1, "preemptions": 1,
                         "contexts_completed": 1, "commands": 7, "user_interrupts": 2,
                         "csb_entries": 2, "fills": 2, "fill_bytes": 12288,
                         "ccs_copies": 3, "ccs_bytes": 768, "ccs_cleared_bytes": 256,
                         "unmodelled_regs": 0, "errors": 0, "resets": 0, "violations": 0,
                         "loads_blocked": 0},
                "rcs0": {"loads": 0, "lite_restores": 0, "preemptions": 0,
                         "contexts_completed": 0, "commands": 0, "user_interrupts": 0,
                         "csb_entries": 0, "fills": 0, "fill_bytes": 0,
                         "ccs_copies": 0, "ccs_bytes": 0, "ccs_cleared_bytes": 0,
                         "unmodelled_regs": 1, "errors": 2, "resets": 1, "violations": 1,
                         "loads_blocked": 0}
            })
        );
        assert_eq!(s.violations, 1);
        assert_eq!(s.violation_kinds.get("engine_execlists_disabled"), Some(&1));
        // The harness reads it back with the same types.
        let back: Summary = serde_json::from_value(v).expect("reads back");
        assert_eq!(back.engines, s.engines);
    }

    #[test]
    fn counts_events_into_the_documented_shape() {
        let mut c = Counters::default();
        c.count(&Event::FaultArmed {
            name: "pcode-stuck",
        });
        c.count(&Event::MmioRead(mmio(vec!["GU_CNTL"])));
        c.count(&Event::MmioRead(mmio(vec!["GU_CNTL"])));
        c.count(&Event::MmioWrite(mmio(vec!["PCODE_DATA0", "PCODE_DATA1"])));
        c.count(&Event::MmioRead(mmio(vec![])));
        for off in [0x2000, 0x1000, 0x2000] {
            c.count(&Event::UnknownAccess {
                op: Op::Read,
                bar: 0,
                offset: Hex(off),
            });
        }
        c.count(&Event::UnknownAccess {
            op: Op::Write,
            bar: 0,
            offset: Hex(0x1000),
        });
        c.count(&Event::Violation {
            kind: "dma_unmapped",
            detail: String::new(),
        });
        c.count(&Event::Irq {
            index: 1,
            vector: 0,
        });
        c.count(&Event::DmaMap {
            iova: Hex(0),
            size: Hex(0x1000),
            file_offset: Hex(0),
            read: true,
            write: true,
            fd: true,
        });
        c.count(&Event::DriverFlr { phase: "start" });
        c.count(&Event::DriverFlr { phase: "complete" });
        c.count(&Event::FwRequest {
            domain: "gt",
            value: Hex(0x10001),
        });
        c.count(&Event::FwAck {
            domain: "gt",
            awake: true,
            at_us: 20,
        });
        c.count(&Event::FwAck {
            domain: "gt",
            awake: false,
            at_us: 40,
        });
        c.count(&Event::Steer {
            selector: "MCR_SELECTOR",
            multicast: true,
            slice: 0,
            subslice: 0,
        });
        for kind in ["sleeping_domain", "terminated_read"] {
            c.count(&Event::Violation {
                kind,
                detail: String::new(),
            });
        }
        c.count(&Event::GucReset { cause: "grdom_guc" });
        c.count(&Event::GucDma {
            src: Hex(0x80_0000),
            dst: Hex(0x2000),
            size: 0x100,
            space: "ggtt",
            dst_space: "wopcm",
            uos_move: true,
        });
        c.count(&Event::GucLoaded {
            release: "70.53.0".into(),
            submission: "1.26.0".into(),
            sha256: "ab".into(),
            bytes: 0x100,
        });
        c.count(&Event::GucH2g {
            action: Hex(0x4100),
            len: 4,
        });
        for kind in ["busy", "success"] {
            c.count(&Event::GucG2hReply {
                kind,
                data0: Hex(0),
                at_us: 0,
            });
        }
        c.count(&Event::GucHwconfig {
            bytes: 8,
            sha256: "cd".into(),
        });
        c.count(&Event::McrUnicastWrite {
            reg: "FF_MODE",
            slice: 3,
            subslice: 0,
            value: Hex(0x31),
        });
        c.count(&Event::GgttTlbInvalidate { entries: 3 });
        c.count(&Event::GucResetStuck { cause: "grdom_guc" });
        c.count(&Event::IrqRaise {
            source: "guc",
            data: Hex(0x8000),
            outcome: "forwarded",
        });
        c.count(&Event::IrqRaise {
            source: "vcs3",
            data: Hex(1),
            outcome: "dropped_disabled",
        });
        c.count(&Event::IntcMsi);
        c.count(&Event::IrqDisarmed);
        c.count(&Event::IrqDisarmed);
        c.count(&Event::IrqAccessAfterDisarm {
            op: Op::Read,
            offset: Hex(0x19_0018),
        });
        c.count(&Event::IrqIdentity {
            bank: 0,
            source: "guc",
            identity: Hex(0x8004_8000),
        });
        c.count(&Event::GtError {
            severity: "fatal",
            bits: Hex(1),
        });
        c.count(&Event::SpuriousMsi);
        c.count(&Event::Control {
            request: "spurious-msi".into(),
        });
        c.count(&Event::IrqInjectionsAbandoned {
            source: "guc",
            events: 7,
        });
        for result in ["taken", "unknown", "rejected", "taken"] {
            c.count(&Event::GucCtSelfCfg {
                key: Hex(0x902),
                len: 2,
                value: Hex(0),
                result,
            });
        }
        let layout = crate::trace::CtLayout {
            h2g_desc: Hex(0x80_0000),
            h2g: Hex(0x80_1000),
            h2g_size: 0x1000,
            g2h_desc: Hex(0x80_2800),
            g2h: Hex(0x80_3000),
            g2h_size: 0x2_0000,
        };
        for (result, layout) in [
            ("rejected", None),
            ("enabled", Some(layout)),
            ("already_disabled", None),
            ("disabled", None),
            ("refused", None),
            ("enabled", Some(layout)),
        ] {
            c.count(&Event::GucCtControl {
                control: Hex(1),
                result,
                layout,
            });
        }
        for (kind, reply) in [
            ("request", "failure"),
            ("fast_request", "unanswered"),
            ("request", "busy"),
        ] {
            c.count(&Event::GucCtH2g {
                vf: 0,
                fence: 1,
                action: Hex(0x1234),
                len: 1,
                kind,
                reply,
            });
        }
        for (hxg, pending) in [
            ("failure", 0),
            ("busy", 0),
            ("success", 0),
            ("retry", 0),
            ("event", 6),
            ("event", 5),
        ] {
            c.count(&Event::GucCtG2h {
                vf: 0,
                fence: 1,
                len: 2,
                hxg,
                pending,
            });
        }
        c.count(&Event::GucCtInject {
            request: "ct:retry:3".into(),
            result: "armed",
            armed_left: 3,
            pending: 5,
        });
        c.count(&Event::GucCtFault {
            fault: "retry",
            fence: 2,
            action: Hex(0x509),
            armed_left: 2,
        });
        for (ms, result) in [
            (Some(80), "applied"),
            (Some(90), "rejected"),
            (None, "applied"),
        ] {
            c.count(&Event::GucCtPolicy {
                klvs: 1,
                applied: 1,
                yield_ms: ms,
                yield_ratio: ms.map(|_| 20),
                result,
            });
        }
        c.count(&Event::GucCtOptIn {
            addr: Hex(0x1000),
            num_dwords: 1,
            accepted: 1,
            opted_in: 1,
            result: "applied",
        });
        for _ in 0..2 {
            c.count(&Event::GucCtUnknownAction {
                action: Hex(0x7000),
            });
        }
        for result in ["done", "refused"] {
            c.count(&Event::GucSlpc {
                event: "reset",
                result,
            });
        }
        c.count_config_read();
        let mut v = serde_json::to_value(c.summary(42, true)).expect("serialises");
        // Separately: one json! of everything exceeds the macro's recursion limit.
        let irq = v
            .as_object_mut()
            .and_then(|m| m.remove("irq"))
            .expect("irq object");
        let ct = v
            .as_object_mut()
            .and_then(|m| m.remove("ct"))
            .expect("ct object");
        let engines = v
            .as_object_mut()
            .and_then(|m| m.remove("engines"))
            .expect("engines object");
        assert_eq!(engines, json!({"gtt_faults": 0}), "no engine events");
        let guc_submit = v
            .as_object_mut()
            .and_then(|m| m.remove("guc_submit"))
            .expect("guc_submit object");
        assert_eq!(
            guc_submit,
            serde_json::to_value(GucSubmitSummary::default()).expect("serialises"),
            "no submission events"
        );
        let guc = v
            .as_object_mut()
            .and_then(|m| m.remove("guc"))
            .expect("guc object");
        assert_eq!(
            guc,
            json!({"ads": null, "ads_reads": 0, "engine_resets": 0, "regs_lost": 0,
                   "regs_lost_by_name": {}, "regs_restored": 0, "full_resets": 0,
                   "engine_failures": 0, "hangs": 0, "crash_dumps_posted": 0,
                   "exceptions_posted": 0})
        );
        let guc_log = v
            .as_object_mut()
            .and_then(|m| m.remove("guc_log"))
            .expect("guc_log object");
        assert_eq!(
            guc_log,
            serde_json::to_value(GucLogSummary::default()).expect("serialises"),
            "no log events"
        );
        let sriov = v
            .as_object_mut()
            .and_then(|m| m.remove("sriov"))
            .expect("sriov object");
        assert_eq!(
            sriov,
            serde_json::to_value(sriov::SriovSummary::default()).expect("serialises"),
            "no SR-IOV events"
        );
        assert_eq!(
            ct,
            json!({
                "registrations": 2, "enables": 2, "disables": 1, "enabled": true,
                "h2g_size": 4096, "g2h_size": 131_072, "h2g_messages": 3, "g2h_messages": 6,
                "requests": 2, "fast_requests": 1, "replies_success": 1,
                "replies_failure": 1, "replies_busy": 1, "replies_retry": 1,
                "unanswered": 1, "events_sent": 2, "g2h_pending": 5,
                "policy_yield_ms": 80, "policy_yield_ratio": 20, "opt_in_keys": 1,
                "unknown_actions": {"0x7000": 2}, "slpc_requests": 1,
                "faults_armed_left": 2
            })
        );
        assert_eq!(
            irq,
            json!({
                "raised": 2, "dropped_disabled": 1, "msis": 1, "identities_total": 1,
                "identities": {"guc": 1},
                "raised_by_source": {"guc": 1, "vcs3": 1},
                "dropped_by_source": {"vcs3": 1},
                "gt_errors": {"fatal": 1}, "spurious_msis": 1,
                "control_requests": 1, "injections_abandoned": 7,
                "disarms": 2, "accesses_after_disarm": 1
            })
        );
        let vf_guest = v
            .as_object_mut()
            .and_then(|m| m.remove("vf_guest"))
            .expect("vf_guest object");
        assert_eq!(vf_guest, json!({}), "no VF served as a function");
        let bus_master: Vec<Value> = [
            "bus_master_at_exit",
            "bus_master_sets",
            "bus_master_clears",
            "bus_master_clears_guc_running",
        ]
        .iter()
        .filter_map(|k| v.as_object_mut().and_then(|m| m.remove(*k)))
        .collect();
        assert_eq!(
            bus_master,
            [json!(false), json!(0), json!(0), json!(0)],
            "no bus_master events"
        );
        assert_eq!(
            v,
            json!({
                "mmio_reads": 3, "mmio_writes": 1,
                "unknown_accesses": 4,
                "unknown": [
                    {"op": "read", "offset": "0x1000", "count": 1},
                    {"op": "read", "offset": "0x2000", "count": 2},
                    {"op": "write", "offset": "0x1000", "count": 1}
                ],
                "violations": 3,
                "violation_kinds": {"dma_unmapped": 1, "sleeping_domain": 1, "terminated_read": 1},
                "reg_reads": {"GU_CNTL": 2},
                "reg_writes": {"PCODE_DATA0": 1, "PCODE_DATA1": 1},
                "irqs": 1, "irqs_dropped": 0, "dma_maps": 1, "dma_unmaps": 0,
                "resets": 0, "driver_flrs": 1, "pcode_commands": 0,
                "pcode_busy_replies": 0,
                "fw_wakes": {"gt": 1}, "fw_requests": {"gt": 1},
                "sleeping_accesses": 1, "terminated_reads": 1,
                "mcr_unicast_values": {"FF_MODE@3,0": 0x31},
                "mcr_selector_writes": {"MCR_SELECTOR": 1},
                "config_reads": 1, "config_writes": 0,
                "guc_resets": 1, "guc_resets_stuck": 1, "guc_dmas": 1, "guc_loads": 1, "h2g_requests": 1,
                "h2g_replies": {"busy": 1, "success": 1},
                "hwconfig_served_bytes": 8, "hwconfig_served_sha256": "cd",
                "tlb_invalidations": 1, "guc_last_release": "70.53.0",
                "guc_last_sha256": "ab", "guc_running_at_exit": true,
                "faults": ["pcode-stuck"], "surprise_removals": 0,
                "events": 42,
                "final": true
            })
        );
    }

    /// `guc_log.*` and the crash counters from the log events: the
    /// configuration is the last boot's, the counters add up, `wraps` and
    /// `buffer_full_cnt` start again at each boot.
    #[test]
    fn guc_log_counters() {
        let mut c = Counters::default();
        let config = |level, debug_size| Event::GucLogConfig {
            buf: Hex(0x100_0000),
            level,
            verbosity: level.saturating_sub(2),
            notify: true,
            debug_size,
            crash_size: 0x4000,
            capture_size: 0x10_0000,
        };
        c.count(&config(1, 0x1_0000));
        c.count(&Event::GucLogWrite {
            entries: 5000,
            write_ptr: 0x3880,
            wraps: 1,
        });
        for sent in ["g2h", "no_channel"] {
            c.count(&Event::GucLogNotify {
                sampled_write_ptr: 0x8000,
                unread: 0x8000,
                sent,
            });
        }
        c.count(&Event::GucLogAck {
            read_ptr: 0x8000,
            sampled_write_ptr: 0x8000,
        });
        c.count(&Event::GucLogOverflow {
            count: 3,
            buffer_full_cnt: 3,
        });
        c.count(&Event::GucCrash {
            kind: "crash_dump",
            status: Hex(0x8000_F0EC),
            eip: Hex(0),
            entries: 8,
            posted: "g2h",
        });
        c.count(&config(4, 0x2_0000));
        c.count(&Event::GucCrash {
            kind: "exception",
            status: Hex(0x8000_F0EC),
            eip: Hex(0x9C40),
            entries: 1,
            posted: "soft_scratch15",
        });
        let s = c.summary(0, false);
        assert_eq!(
            serde_json::to_value(&s.guc_log).expect("serialises"),
            json!({
                "boots": 2, "buf": "0x1000000", "level": 4, "verbosity": 2,
                "notify_on_half_full": true, "debug_size": 0x2_0000,
                "crash_size": 0x4000, "capture_size": 0x10_0000,
                "entries": 5000, "wraps": 0, "flush_notifies": 2,
                "flush_notifies_lost": 1, "acks": 1, "overflows": 3,
                "buffer_full_cnt": 0
            })
        );
        assert_eq!((s.guc.crash_dumps_posted, s.guc.exceptions_posted), (1, 1));
    }

    /// `guc_submit.*` from the submission events.
    #[test]
    fn guc_submit_counters() {
        let mut c = Counters::default();
        let sub = |action, state, result, registered| Event::GucSubmit {
            vf: 0,
            action,
            guc_id: Some(1),
            state,
            result,
            code: None,
            engine: Some("bcs0"),
            registered,
        };
        c.count(&sub("register", None, "ok", 1));
        c.count(&sub("register", None, "refused", 1));
        c.count(&sub("register", None, "refused_switch", 1));
        c.count(&sub("register", None, "ok", 2));
        c.count(&sub("policies", None, "ok", 2));
        c.count(&sub("mode_set", Some(1), "ok", 2));
        c.count(&sub("mode_set", Some(0), "ok", 2));
        c.count(&sub("sched", None, "ok", 2));
        c.count(&sub("sched", None, "dropped", 2));
        c.count(&sub("sched", None, "ignored", 2));
        c.count(&sub("deregister", None, "ok", 1));
        for event in [
            "mode_done",
            "mode_done",
            "deregister_done",
            "reset_notification",
        ] {
            c.count(&Event::GucSubmitG2h { event, guc_id: 1 });
        }
        for action in ["start", "lite_restore", "switch", "preempt_to_idle"] {
            c.count(&Event::GucSubmitLoad {
                vf: 0,
                engine: "bcs0",
                guc_id: 1,
                lrca: Hex(0x1000),
                action,
            });
        }
        c.count(&Event::GucSubmitReset {
            guc_id: 1,
            engine: "bcs0",
            cause: "storm",
            engine_reset: false,
            stalled_us: None,
        });
        let v = serde_json::to_value(c.summary(0, false)).expect("serialises");
        assert_eq!(
            v["guc_submit"],
            json!({
                "registered": 1, "registrations": 2, "policies": 1, "enables": 1,
                "disables": 1, "sched": 1, "sched_dropped": 1, "sched_ignored": 1,
                "deregistrations": 1, "resets": 1, "contexts_run": 2,
                "mode_done_sent": 2, "dereg_done_sent": 1, "refused": 2,
                "doorbells_armed": 0, "doorbell_allocs": 0, "doorbell_deallocs": 0,
                "doorbell_rings": 0, "doorbell_rings_ignored": 0, "unarmed_rings": 0,
                "doorbells_dropped_at_dereg": 0,
                "refused_engine_disabled": 0, "refused_boot_words": 0
            })
        );
        c.count(&Event::GucSubmitForget { vf: 0, contexts: 1 });
        assert_eq!(c.summary(0, false).guc_submit.registered, 0);
    }

    /// `guc_submit.doorbell*` from the doorbell events.
    #[test]
    fn guc_submit_doorbell_counters() {
        let mut c = Counters::default();
        let sub = |action, result| Event::GucSubmit {
            vf: 0,
            action,
            guc_id: Some(1),
            state: None,
            result,
            code: None,
            engine: None,
            registered: 1,
        };
        c.count(&sub("allocate_doorbell", "ok"));
        c.count(&sub("allocate_doorbell", "refused_switch"));
        c.count(&sub("deallocate_doorbell", "ok"));
        let db = |what, armed| Event::GucDoorbell {
            what,
            doorbell: Some(3),
            guc_id: Some(1),
            offset: Hex(0x40_3000),
            value: None,
            armed,
        };
        for (what, armed) in [
            ("armed", 1),
            ("rang", 1),
            ("rang", 1),
            ("ignored", 1),
            ("unarmed", 1),
            ("armed", 2),
            ("dropped_at_dereg", 1),
        ] {
            c.count(&db(what, armed));
        }
        let v = serde_json::to_value(c.summary(0, false)).expect("serialises");
        let g = &v["guc_submit"];
        let got: Vec<u64> = [
            "doorbells_armed",
            "doorbell_allocs",
            "doorbell_deallocs",
            "doorbell_rings",
            "doorbell_rings_ignored",
            "unarmed_rings",
            "doorbells_dropped_at_dereg",
            "refused",
            "sched",
        ]
        .iter()
        .map(|k| g[*k].as_u64().unwrap_or(u64::MAX))
        .collect();
        assert_eq!(got, [1, 1, 1, 3, 1, 1, 1, 1, 0]);
    }

    /// The GuC counts as running from `guc_loaded` until any reset.
    #[test]
    fn guc_running_until_a_reset() {
        let loaded = Event::GucLoaded {
            release: "70.53.0".into(),
            submission: "1.26.0".into(),
            sha256: "00".into(),
            bytes: 1,
        };
        for reset in [
            Event::GucReset { cause: "grdom_guc" },
            Event::Reset { cause: "pcie_flr" },
            Event::DriverFlr { phase: "start" },
        ] {
            let mut c = Counters::default();
            assert!(!c.summary(0, false).guc_running_at_exit);
            c.count(&loaded);
            assert!(c.summary(0, false).guc_running_at_exit);
            c.count(&reset);
            assert!(!c.summary(0, true).guc_running_at_exit, "{reset:?}");
        }
        // A reset that never completed leaves it running.
        let mut c = Counters::default();
        c.count(&loaded);
        c.count(&Event::GucResetStuck { cause: "grdom_guc" });
        let s = c.summary(0, true);
        assert!(s.guc_running_at_exit);
        assert_eq!((s.guc_resets, s.guc_resets_stuck), (0, 1));
    }

    /// Bus Master Enable: the state follows every change, only host writes
    /// are counted as sets and clears, and a record starts from the state
    /// its `start` event names.
    #[test]
    fn bus_master_state_and_host_transitions() {
        let bm = |on, cause| Event::BusMaster { on, cause };
        let mut c = Counters::default();
        assert!(!c.summary(0, false).bus_master_at_exit);
        c.count(&bm(true, "config_write"));
        assert!(c.summary(0, false).bus_master_at_exit);
        c.count(&bm(false, "config_write"));
        c.count(&bm(true, "config_write"));
        c.count(&bm(false, "pcie_flr"));
        let s = c.summary(0, true);
        assert!(!s.bus_master_at_exit, "the reset cleared it");
        assert_eq!((s.bus_master_sets, s.bus_master_clears), (2, 1));
        c.count(&bm(true, "config_write"));
        c.count(&bm(false, "vfio_user"));
        let s = c.summary(0, true);
        assert!(!s.bus_master_at_exit);
        assert_eq!((s.bus_master_sets, s.bus_master_clears), (3, 1));
        // Older summaries without the fields still parse.
        let mut v = serde_json::to_value(&s).expect("JSON");
        for k in ["bus_master_at_exit", "bus_master_sets", "bus_master_clears"] {
            v.as_object_mut().expect("object").remove(k);
        }
        let old: Summary = serde_json::from_value(v).expect("parses");
        assert_eq!((old.bus_master_sets, old.bus_master_clears), (0, 0));
    }

    /// A host clear of Bus Master Enable under a running uKernel is
    /// counted; one after a GuC reset, or a reset's own clear, is not.
    #[test]
    fn bus_master_clear_under_a_running_guc() {
        let bm = |on, cause| Event::BusMaster { on, cause };
        let loaded = || Event::GucLoaded {
            release: "70.53.0".into(),
            submission: "1.26.0".into(),
            sha256: "ab".into(),
            bytes: 4,
        };
        let mut c = Counters::default();
        c.count(&bm(true, "config_write"));
        c.count(&loaded());
        c.count(&bm(false, "pcie_flr"));
        c.count(&bm(true, "config_write"));
        c.count(&bm(false, "config_write"));
        assert_eq!(c.summary(0, false).bus_master_clears_guc_running, 1);
        c.count(&bm(true, "config_write"));
        c.count(&Event::GucReset { cause: "grdom_guc" });
        c.count(&bm(false, "config_write"));
        let s = c.summary(0, false);
        assert_eq!(
            (s.bus_master_clears, s.bus_master_clears_guc_running),
            (2, 1)
        );
    }

    /// `ct.enabled` from an enable until a disable or any reset; the counts
    /// and sizes stay.
    #[test]
    fn ct_enabled_until_a_disable_or_a_reset() {
        let enabled = Event::GucCtControl {
            control: Hex(1),
            result: "enabled",
            layout: Some(crate::trace::CtLayout {
                h2g_desc: Hex(0),
                h2g: Hex(0),
                h2g_size: 0x1000,
                g2h_desc: Hex(0),
                g2h: Hex(0),
                g2h_size: 0x2000,
            }),
        };
        for end in [
            Event::GucReset { cause: "grdom_guc" },
            Event::Reset { cause: "pcie_flr" },
            Event::DriverFlr { phase: "start" },
            Event::GucCtControl {
                control: Hex(0),
                result: "disabled",
                layout: None,
            },
        ] {
            let mut c = Counters::default();
            c.count(&enabled);
            assert!(c.summary(0, false).ct.enabled);
            c.count(&end);
            let ct = c.summary(0, true).ct;
            assert!(!ct.enabled, "{end:?}");
            assert_eq!((ct.enables, ct.h2g_size, ct.g2h_size), (1, 0x1000, 0x2000));
        }
        // Neither a stuck reset nor a refused or rejected request changes it.
        let mut c = Counters::default();
        c.count(&enabled);
        c.count(&Event::GucResetStuck { cause: "grdom_guc" });
        for result in ["refused", "rejected", "already_disabled"] {
            c.count(&Event::GucCtControl {
                control: Hex(1),
                result,
                layout: None,
            });
        }
        let ct = c.summary(0, true).ct;
        assert!(ct.enabled);
        assert_eq!((ct.enables, ct.disables), (1, 0));
    }

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp_file() {
        let dir = std::env::temp_dir();
        let path = dir.join(format!("xehpg-mock-summary-{}.json", std::process::id()));
        let mut c = Counters::default();
        write_atomic(&path, &c.summary(0, false)).expect("first write");
        c.count(&Event::Irq {
            index: 1,
            vector: 0,
        });
        write_atomic(&path, &c.summary(1, true)).expect("second write");
        let v: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(&path).expect("read")).expect("JSON");
        assert_eq!(v["irqs"], json!(1));
        assert_eq!(v["final"], json!(true));
        assert!(!tmp_path(&path).exists());
        let _ = fs::remove_file(&path);
    }

    #[test]
    fn failed_write_reports_error() {
        let path = Path::new("/nonexistent-dir-xehpg/summary.json");
        assert!(write_atomic(path, &Summary::default()).is_err());
    }
}
