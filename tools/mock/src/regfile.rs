//! Behaviour of the trapped BAR0 registers.
//!
//! [`RegisterFile`] dispatches dword accesses by offset to one unit per
//! hardware block, each in its own child module:
//!
//! - [`gunit`]: `GU_CNTL` and `GU_DEBUG` (LMEM init, Driver-FLR handshake);
//! - [`pcode`]: the PCODE mailbox;
//! - [`straps`]: read-only values fixed by the device configuration
//!   (`VF_CAP_REG`, `SG_TILE_ADDR_RANGE`, `GSMBASE`);
//! - [`forcewake`]: the forcewake request/acknowledge registers;
//! - [`fuses`]: the fuse reflections (DSS, meml3, media engines);
//! - [`mcr`]: the steering selectors and the replicated (MCR) registers;
//! - [`tuning`]: workaround and tuning registers outside the replicated
//!   ranges (storage);
//! - [`guc`]: the GuC shim, its DMA engine, boot and MMIO messages;
//! - [`engine`]: the command streamers of the present engines (register
//!   windows at the engine bases, execlist submission, command execution);
//!   their interrupts go to [`intc`], `GDRST`'s engine bits reset them;
//! - [`intc`]: the GT interrupt controller (tile, primary, GT DW,
//!   selector/identity, enables and masks, GT error registers). What it
//!   does is traced after each call ([`RegisterFile::flush_irq_events`]);
//!   the device sends the MSIs it generates ([`RegisterFile::take_msis`]).
//!   The GuC's interrupts to the host reach it through
//!   [`guc::Guc::interrupt_host`], drained after each GuC access;
//! - [`isolation`]: the SR-IOV isolation checker, a test oracle run after
//!   the GuC's VF messages, `LMEM_CFG` writes and at the final summary.
//!
//! The dispatcher returns `None` for an offset with no register, so the
//! device can count it as unknown.
//!
//! Before a register is reached, the power rule applies: a register whose
//! range the PRM's table gives a wake target (GT, RENDER, VDn, VEn; see
//! [`crate::power`]) is only reachable while that domain is awake. The MsgCh
//! terminates cycles to powered-down domains, "(i.e., not necessarily
//! because the domain is disabled/fused off.) If reading/writing the
//! registers is needed, then force-wake of the domain is required" (seed
//! 000 line 756): terminated writes are sunk and reads complete with 0
//! (line 780). So such a read returns 0, a write is dropped, and both are
//! recorded as `sleeping_domain`. Writes to shadowed registers pass while
//! the domain sleeps (line 756, [`crate::power::is_shadowed`]); reads of
//! them do not.
//!
//! Time-dependent behaviour is evaluated lazily from `now` at each access;
//! nothing here sleeps. The GuC reaches memory (the GGTT, LMEM, guest RAM)
//! through a [`guc::Bus`] the device passes with each write
//! ([`RegisterFile::write_with`]).

pub mod engine;
pub mod forcewake;
pub mod fuses;
pub mod guc;
pub mod gunit;
pub mod intc;
pub mod isolation;
pub mod mcr;
pub mod pcode;
pub mod straps;
pub mod tuning;
pub mod vf_regs;

use std::time::Duration;

pub use fuses::Fuses;
pub use fuses::SqidiPart;

use crate::power;
use crate::power::Domain;
use crate::recorder::Recorder;
use crate::regs;
use crate::regs::gsmbase;
use crate::regs::gu_cntl;
use crate::regs::gu_debug;
use crate::regs::pcode_data0;
use crate::regs::pcode_data1;
use crate::regs::pcode_mailbox;
use crate::regs::sg_tile_addr_range;
use crate::regs::vf_cap_reg;
use crate::seed_table;
use crate::trace::Event;
use crate::trace::Hex;
use crate::trace::Op;

/// Device configuration the registers depend on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegParams {
    /// Local memory size in bytes (a whole number of GiB).
    pub lmem_size: u64,
    /// Present as a VF.
    pub vf: bool,
    /// Time from reset until `GU_CNTL.LMEM_INIT` sets.
    pub lmem_init_delay: Duration,
    /// Time from reset until PCODE reports init complete.
    pub pcode_init_delay: Duration,
    /// Time from reset during which another agent's PCODE command holds the
    /// mailbox busy (`--pcode-busy-ms`).
    pub pcode_busy: Duration,
    /// Fault `lmem-never-init`.
    pub lmem_never_init: bool,
    /// Fault `pcode-never-init`.
    pub pcode_never_init: bool,
    /// Fault `pcode-stuck`.
    pub pcode_stuck: bool,
    /// Fault `pcode-init-error`.
    pub pcode_init_error: bool,
    /// Time from a forcewake request change to the acknowledge change.
    pub fw_ack_delay: Duration,
    /// Faults `fw-ack-never[=D]`: bit per [`Domain::index`].
    pub fw_ack_never: u16,
    /// Faults `fw-ack-dead=D`: bit per [`Domain::index`].
    pub fw_ack_dead: u16,
    /// The fuses.
    pub fuses: Fuses,
    /// The sliceid `GAM_MCR_SELECTOR` holds after reset ([`mcr`] module
    /// docs: the seed says 0, upstream says 1).
    pub gam_reset_slice: u32,
    /// The GuC's configuration.
    pub guc: guc::GucParams,
    /// Fault switches of the interrupt controller.
    pub intc: intc::IntcFaults,
    /// Fault `irq-on-guc-reset`: every GuC reset through `GDRST` raises
    /// the GuC's GuC-to-host and RCS0's user interrupt.
    pub irq_on_guc_reset: bool,
}

/// What the device must do after a register write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Nothing outside the register file.
    None,
    /// A Driver-FLR started: local and stolen memory are wiped
    /// (`xe_device.c`, comment above `__xe_driver_flr`).
    DriverFlr,
}

/// Why the register file could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    /// The checked-in forcewake/steering table does not validate.
    #[error("data/fw-steering.tsv: {0}")]
    Table(seed_table::Error),
    /// The hwconfig table cannot be built from `data/hwconfig-keys.tsv`.
    #[error("hwconfig: {0}")]
    Hwconfig(String),
    /// A modelled MCR register is not in a replicated range.
    #[error(transparent)]
    NotReplicated(#[from] mcr::NotReplicated),
}

/// Value of `XEHP_FLAT_CCS_BASE_ADDR` for `lmem_size` bytes of local memory.
///
/// `[MODEL]`: the flat-CCS area (1/256 of local memory) sits right below
/// the GSM at the top, so the base is `lmem - lmem/256 - 8 MiB`; the driver
/// reads it as `REG_FIELD_GET(XEHP_FLAT_CCS_PTR, reg) * SZ_64K`
/// (`xe_vram.c` `get_flat_ccs_offset`) and uses it as the usable VRAM size.
pub fn flat_ccs_base_addr(lmem_size: u64) -> u32 {
    let base = lmem_size
        .saturating_sub(lmem_size / 256)
        .saturating_sub(straps::GSM_SIZE);
    // CAST: at most 1023 GiB / 64 KiB < 2^24, so it fits bits 31:8.
    regs::mcr::FLAT_CCS_PTR.prep(base >> 16) as u32
}

/// The trapped register file.
pub struct RegisterFile {
    map: power::Map,
    gunit: gunit::Gunit,
    pcode: pcode::Pcode,
    straps: straps::Straps,
    fuses: Fuses,
    fw: forcewake::Forcewake,
    mcr: mcr::Mcr,
    tuning: tuning::Tuning,
    guc: guc::Guc,
    intc: intc::Intc,
    engines: engine::Engines,
    irq_on_guc_reset: bool,
    /// Sources whose service ended since the last [`RegisterFile::take_serviced`].
    serviced: Vec<intc::Source>,
    /// Local memory size in bytes.
    lmem_size: u64,
    /// The SR-IOV isolation checker's record.
    isolation: isolation::Checker,
    /// The VFs' copies of their dedicated registers.
    vf_regs: vf_regs::VfRegs,
}

impl RegisterFile {
    /// Registers in their reset state at time `now`.
    ///
    /// # Errors
    ///
    /// The built-in forcewake/steering table or hwconfig key list is
    /// unusable (unit tests guard against each).
    pub fn new(p: &RegParams, now: Duration) -> Result<Self, BuildError> {
        let map = power::Map::builtin().map_err(|e| BuildError::Table(e.clone()))?;
        let mut guc = guc::Guc::new(&p.guc, &p.fuses).map_err(BuildError::Hwconfig)?;
        guc.sriov_set_lmem_size(p.lmem_size);
        Ok(Self {
            map,
            gunit: gunit::Gunit::new(p, now),
            pcode: pcode::Pcode::new(p, now),
            straps: straps::Straps::new(p),
            fuses: p.fuses,
            fw: forcewake::Forcewake::new(p.fw_ack_delay, &p.fuses, p.fw_ack_never, p.fw_ack_dead),
            mcr: mcr::Mcr::new(
                &map,
                p.fuses,
                p.gam_reset_slice,
                flat_ccs_base_addr(p.lmem_size),
            )?,
            tuning: tuning::Tuning::default(),
            guc,
            intc: intc::Intc::new(p.intc),
            engines: engine::Engines::new(&p.fuses),
            irq_on_guc_reset: p.irq_on_guc_reset,
            serviced: Vec::new(),
            lmem_size: p.lmem_size,
            isolation: isolation::Checker::default(),
            vf_regs: vf_regs::VfRegs::default(),
        })
    }

    /// Function reset: every unit back to its reset state, timers restart.
    pub fn reset(&mut self, now: Duration, rec: &mut Recorder) {
        self.gunit.reset(now);
        // A PF reset ends the VFs (seed 000 lines 292-296) and their state.
        self.vf_regs.reset_all();
        self.pcode.reset(now);
        self.fw.reset();
        self.mcr.reset();
        self.tuning.reset();
        self.guc.reset_device(now, rec);
        // The LMTT's cache is empty; LMEM_CFG resets to 0 (no LMTT), so
        // nothing is walked.
        let lmem_cfg = self.lmem_cfg();
        self.guc.lmtt_reset(lmem_cfg, &guc::NoBus, rec);
        self.guc.take_resets();
        self.intc.reset();
        self.engines.reset_device(rec);
        self.engines.set_render_regs(0, 0);
        self.flush_irq_events(rec);
    }

    /// `GDRST.GRDOM_FULL` beyond the engines (reset by
    /// [`engine::Engines::gdrst`]) and the GuC (`guc.rs` `write_gdrst`):
    /// the GT's programmable state goes back to reset values. The tuning
    /// register file (`RCU_MODE`, `CCS_MODE`, clock gating, chicken bits)
    /// and the replicated registers' storage (PAT, MOCS, workaround and
    /// tuning rows, `LMEM_CFG`; [`mcr::Mcr::reset_storage`]) are cleared and
    /// the engines follow `RCU_MODE` = 0, so no CCS runs until it is written
    /// again. Traced `gt_full_reset` with how many registers were away from
    /// their reset value.
    ///
    /// Source: upstream re-applies all of it after its full reset
    /// (`xe_gt.c` `do_gt_restart`, after `do_gt_reset` wrote `GRDOM_FULL`:
    /// `xe_pat_init`, `xe_reg_sr_apply_mmio(&gt->reg_sr)`, `xe_mocs_init`,
    /// each engine's `reg_sr`, `xe_gt_apply_ccs_mode`), i.e. it treats them
    /// as lost. `[MODEL]`: every register of both files is reset, the
    /// stricter reading; the hardware's exact reset domain is not published
    /// in the seeds. The forcewake requests, the steering selectors, the
    /// interrupt controller and the GuC's write-once WOPCM registers stay
    /// (`do_gt_restart` does not re-program them; `xe_wopcm_init` re-checks
    /// the locked values).
    fn full_reset(&mut self, rec: &mut Recorder, bus: &dyn guc::Bus) {
        let tuning_lost = self.tuning.non_reset();
        self.tuning.reset();
        let mcr_lost = self.mcr.reset_storage();
        // `LMEM_CFG` back to 0: no LMTT root.
        self.sync_lmtt_root(rec, bus);
        self.engines.set_render_regs(0, 0);
        rec.emit(Event::GtFullReset {
            tuning_lost,
            mcr_lost,
        });
    }

    /// The command streamers.
    pub fn engines(&self) -> &engine::Engines {
        &self.engines
    }

    /// Delivers the engines' interrupts to the interrupt controller.
    fn drain_engines(&mut self, rec: &mut Recorder) {
        let irqs = self.engines.take_irqs();
        if irqs.is_empty() {
            return;
        }
        for (src, bits) in irqs {
            // Every present engine is a modelled source (tested).
            let _ = self.intc.raise(src, bits);
        }
        self.flush_irq_events(rec);
    }

    /// Lets the engines run what became possible without a register
    /// access (a semaphore to re-poll, a burst's budget used up); nothing
    /// when no engine can progress. The device calls it from its tick and
    /// after register accesses.
    pub fn service_engines(&mut self, rec: &mut Recorder, bus: &mut dyn guc::Bus) {
        if self.engines.has_work() {
            self.engines.service(rec, bus);
            self.drain_engines(rec);
        }
        self.schedule_guc(rec, bus);
    }

    /// The engines follow `RCU_MODE` / `CCS_MODE` (a CCS runs only with
    /// `RCU_MODE_CCS_ENABLE`, [`engine::Engine::guc_blocker`]).
    fn sync_render_regs(&mut self) {
        let rcu = self.tuning.read(regs::tuning::RCU_MODE.offset).unwrap_or(0);
        let ccs = self.tuning.read(regs::tuning::CCS_MODE.offset).unwrap_or(0);
        self.engines.set_render_regs(rcu, ccs);
    }

    /// Lets the GuC's scheduler look at the engines ([`guc::Guc::schedule`]:
    /// Loads, hang detection, its G2H events); nothing when it has no
    /// context with work.
    pub fn schedule_guc(&mut self, rec: &mut Recorder, bus: &mut dyn guc::Bus) {
        if !self.guc.schedule_has_work() {
            return;
        }
        let now = rec.now();
        self.guc.schedule(&mut self.engines, now, rec, bus);
        // A GuC engine reset may have put RCU_MODE / CCS_MODE back to 0.
        let (rcu, ccs) = self.engines.render_regs();
        self.tuning.set(regs::tuning::RCU_MODE.offset, rcu);
        self.tuning.set(regs::tuning::CCS_MODE.offset, ccs);
        self.drain_engines(rec);
        self.drain_guc(rec);
        self.check_isolation(rec, bus);
    }

    /// What follows the GuC's SR-IOV messages: the mock's VF side checks
    /// the relay messages the GuC delivered to it
    /// ([`guc::Guc::sriov_relay_deliver`], with the runtime registers'
    /// values, [`RegisterFile::peek`]), then the isolation checker runs if
    /// the messages asked for it ([`guc::Guc::sriov_take_check`]).
    fn check_isolation(&mut self, rec: &mut Recorder, bus: &mut dyn guc::Bus) {
        // A resend (a RETRY) lets the GuC read H2G it held back, which may
        // deliver more: until nothing is left.
        while self.guc.sriov_relay_pending() {
            let values: Vec<(u32, Option<u32>)> = guc::ct::sriov::relay::RUNTIME_REGS
                .iter()
                .map(|r| (r.offset, self.peek(r.offset)))
                .collect();
            let now = rec.now();
            self.guc.sriov_relay_deliver(&values, now, rec, bus);
            self.drain_guc(rec);
        }
        if let Some(due) = self.guc.sriov_take_check() {
            self.run_isolation_cleared(due, rec, bus);
        }
    }

    /// The value of the read-only register at `offset` (the fuse
    /// reflections and the fixed values, [`fuses`] and [`straps`]) as a
    /// read would return it with its domain awake; no side effect, no
    /// power rule, nothing recorded. `None` for any other offset: the
    /// registers with behaviour are read through [`RegisterFile::read`].
    pub fn peek(&self, offset: u32) -> Option<u32> {
        self.fuses
            .read(offset)
            .or_else(|| self.straps.fixed(offset))
    }

    /// `LMEM_CFG` as the primary GAM instance holds it: the LMTT root the
    /// isolation checker and the LMTT's cache walk.
    pub fn lmem_cfg(&self) -> u32 {
        self.mcr
            .peek(regs::mcr::LMEM_CFG.offset, mcr::PRIMARY_GAM as usize)
            .unwrap_or(0)
    }

    /// Tells the LMTT's cache what `LMEM_CFG` holds now (a change empties
    /// it, `guc/ct/sriov/lmtt.rs`).
    fn sync_lmtt_root(&mut self, rec: &mut Recorder, bus: &dyn guc::Bus) {
        let lmem_cfg = self.lmem_cfg();
        self.guc.lmtt_root(lmem_cfg, bus, rec);
    }

    /// The final isolation check, leftovers included, if anything SR-IOV
    /// happened in the run ([`isolation::Checker::runs`]).
    pub fn final_isolation_check(&mut self, rec: &mut Recorder, bus: &mut dyn guc::Bus) {
        if self.isolation.runs() > 0 {
            self.run_isolation("final", true, rec, bus);
        }
    }

    /// One isolation checker run ([`isolation`]); returns the new distinct
    /// findings. `LMEM_CFG` is read from the primary GAM instance.
    pub fn run_isolation(
        &mut self,
        trigger: &'static str,
        leftovers: bool,
        rec: &mut Recorder,
        bus: &mut dyn guc::Bus,
    ) -> u64 {
        let due = guc::ct::sriov::CheckDue {
            trigger,
            leftovers,
            cleared: 0,
            flr_finished: 0,
        };
        self.run_isolation_cleared(due, rec, bus)
    }

    /// [`RegisterFile::run_isolation`], also checking that the local memory
    /// of the VFs in `due.cleared` holds nothing and the VF-dedicated
    /// registers of those in `due.flr_finished` neither.
    fn run_isolation_cleared(
        &mut self,
        due: guc::ct::sriov::CheckDue,
        rec: &mut Recorder,
        bus: &mut dyn guc::Bus,
    ) -> u64 {
        let lmem_cfg = self.lmem_cfg();
        let configs = self.guc.sriov().configs();
        let submit = self.guc.submit();
        let pf_contexts_in_vfs = configs
            .iter()
            .filter(|(&vf, _)| vf != 0)
            .filter_map(|(&vf, c)| c.contexts().map(|r| (vf, r)))
            .flat_map(|(vf, (begin, end))| {
                // CAST: context runs end at GUC_ID_MAX (checked).
                (begin as u32..end as u32)
                    .filter(|&id| submit.context(id).is_some())
                    .map(move |id| (vf, id))
            })
            .collect();
        let view = isolation::View {
            configs,
            lmem_cfg,
            lmem_size: self.lmem_size,
            pf_contexts_in_vfs,
            cleared: due.cleared,
            vf_regs_dirty: self.vf_regs.dirty(due.flr_finished),
        };
        self.isolation
            .run(due.trigger, due.leftovers, &view, &*bus, rec)
    }

    /// The SR-IOV test-control requests ([`guc::Guc::sriov_inject`]).
    pub fn sriov_inject(
        &mut self,
        req: crate::control::SriovRequest,
        rec: &mut Recorder,
        bus: &mut dyn guc::Bus,
    ) {
        let now = rec.now();
        self.advance(now, rec);
        match req {
            crate::control::SriovRequest::Scratch { vf } => {
                self.vf_regs.plant(vf, rec);
                return self.vf_regs_injected(req, rec);
            }
            crate::control::SriovRequest::KeepRegs { count } => {
                self.vf_regs.keep(count);
                return self.vf_regs_injected(req, rec);
            }
            // The host's FLR of the VF: Gunit's part (seed 000 line 322)
            // does not wait for the GuC.
            crate::control::SriovRequest::Flr { vf } => self.vf_regs.flr(vf, rec),
            _ => {}
        }
        self.guc.sriov_inject(req, now, rec, bus);
        self.drain_guc(rec);
        self.check_isolation(rec, bus);
    }

    fn vf_regs_injected(&self, req: crate::control::SriovRequest, rec: &mut Recorder) {
        rec.emit(crate::trace::Event::SriovInject {
            request: req.to_string(),
            result: "done",
            armed_left: self.vf_regs.armed_left(),
        });
    }

    /// A `guc:` test-control request ([`guc::Guc::submit_inject`]).
    pub fn guc_inject(
        &mut self,
        req: crate::control::GucRequest,
        rec: &mut Recorder,
        bus: &mut dyn guc::Bus,
    ) {
        let now = rec.now();
        self.advance(now, rec);
        if req.is_log() {
            self.guc.log_inject(req, now, rec, bus);
            self.drain_guc(rec);
            self.check_isolation(rec, bus);
            return;
        }
        self.guc.submit_inject(req, rec);
        self.schedule_guc(rec, bus);
    }

    /// An `engine:FAULT:NAME` test-control request: arms the switch on the
    /// engine (traced `engine_fault`); false if the part has no such engine.
    pub fn arm_engine_fault(
        &mut self,
        name: &'static str,
        fault: engine::EngineFault,
        rec: &mut Recorder,
    ) -> bool {
        self.engines.arm(name, fault, rec)
    }

    /// A VF wrote GGTT page `page`'s entry ([`guc::Guc::vf_ggtt_written`]).
    pub fn vf_ggtt_written(&mut self, page: u64) {
        self.guc.vf_ggtt_written(page);
    }

    /// VFs whose MSI the GuC (`ct/vf.rs`) or an engine running a VF's
    /// context (`engine.rs`, "Memory-based interrupts") asked for since the
    /// last call, each once.
    pub fn take_vf_irqs(&mut self) -> Vec<u32> {
        let mut vfs = self.guc.take_vf_irqs();
        vfs.extend(self.engines.take_vf_irqs());
        vfs.sort_unstable();
        vfs.dedup();
        vfs
    }

    /// The GuC.
    pub fn guc(&self) -> &guc::Guc {
        &self.guc
    }

    /// The interrupt controller.
    pub fn intc(&self) -> &intc::Intc {
        &self.intc
    }

    /// Bus Master Enable was set: a new binding starts, the interrupt
    /// controller's late window closes ([`intc::Intc::bus_master_on`]).
    pub fn bus_master_on(&mut self) {
        self.intc.bus_master_on();
    }

    /// Raises an event at an interrupt source (test control, engines).
    ///
    /// # Errors
    ///
    /// [`intc::UnknownSource`] for a source the model does not have.
    pub fn raise_irq(
        &mut self,
        src: intc::Source,
        data: u16,
        rec: &mut Recorder,
    ) -> Result<intc::Raised, intc::UnknownSource> {
        let r = self.intc.raise(src, data);
        self.flush_irq_events(rec);
        r
    }

    /// Sets GT error bits of `sev` ([`intc::Intc::raise_gt_error`]).
    pub fn raise_gt_error(&mut self, sev: intc::Severity, bits: u32, rec: &mut Recorder) {
        self.intc.raise_gt_error(sev, bits);
        self.flush_irq_events(rec);
    }

    /// MSIs the interrupt controller generated since the last call.
    pub fn take_msis(&mut self) -> u32 {
        self.intc.take_msis()
    }

    /// Sources whose service ended since the last call, in order.
    pub fn take_serviced(&mut self) -> Vec<intc::Source> {
        std::mem::take(&mut self.serviced)
    }

    /// Delivers what the GuC asked for since the last call to the interrupt
    /// controller: its interrupts to the host, and under
    /// `irq-on-guc-reset` the events a GuC reset brings.
    fn drain_guc(&mut self, rec: &mut Recorder) {
        let resets = self.guc.take_resets();
        if self.irq_on_guc_reset {
            for _ in 0..resets {
                // The fault: an interrupt arrives while the driver resets
                // the GuC (at probe and at unbind), from the GuC and from
                // an engine (GT_MI_USER_INTERRUPT, bit 0, xe_irq_regs.h).
                self.guc.interrupt_host();
                let _ = self.intc.raise(intc::Source::RCS0, 1);
            }
        }
        for _ in 0..self.guc.take_host_interrupts() {
            // The GuC is a modelled source: this cannot fail.
            let _ = self.intc.raise(intc::Source::GUC, intc::GUC_INTR_GUC2HOST);
        }
        self.flush_irq_events(rec);
    }

    /// Turns what the interrupt controller did into trace events (and so
    /// summary counters) and notes the ended services.
    pub fn flush_irq_events(&mut self, rec: &mut Recorder) {
        for ev in self.intc.take_events() {
            let name = |s: intc::Source| s.name().unwrap_or("unknown");
            let e = match ev {
                intc::IntcEvent::Raised { src, data, outcome } => Event::IrqRaise {
                    source: name(src),
                    data: Hex(data.into()),
                    outcome: match outcome {
                        intc::Raised::Dropped => "dropped_disabled",
                        intc::Raised::Pending => "pending",
                        intc::Raised::Forwarded => "forwarded",
                    },
                },
                intc::IntcEvent::Identity {
                    bank,
                    src,
                    identity,
                } => Event::IrqIdentity {
                    bank,
                    source: name(src),
                    identity: Hex(identity.into()),
                },
                intc::IntcEvent::Serviced(src) => {
                    self.serviced.push(src);
                    continue;
                }
                intc::IntcEvent::Msi => Event::IntcMsi,
                intc::IntcEvent::GtError { sev, bits } => Event::GtError {
                    severity: sev.name(),
                    bits: Hex(bits.into()),
                },
                intc::IntcEvent::Disarmed => Event::IrqDisarmed,
                intc::IntcEvent::AccessAfterDisarm { offset, write } => {
                    Event::IrqAccessAfterDisarm {
                        op: if write { Op::Write } else { Op::Read },
                        offset: Hex(offset.into()),
                    }
                }
            };
            rec.emit(e);
        }
    }

    /// Whether forcewake domain `d` is awake (its acknowledge reads 1).
    pub fn awake(&self, d: Domain) -> bool {
        self.fw.awake(d)
    }

    /// Applies and traces the time-driven state changes (Driver-FLR phases,
    /// forcewake acknowledges) that happened by `now`; register accesses do
    /// this on their own, the device calls it before it stops so the last
    /// changes are recorded.
    pub fn advance(&mut self, now: Duration, rec: &mut Recorder) {
        self.gunit.advance(now, rec);
        self.fw.advance(now, rec);
        self.guc.advance(now, rec);
        self.drain_guc(rec);
    }

    /// Lets the GuC's CT engine do what time and the host's progress allow
    /// outside a doorbell ([`guc::Guc::ct_service`]); nothing when it has
    /// nothing to do.
    pub fn service_guc(&mut self, rec: &mut Recorder, bus: &mut dyn guc::Bus) {
        if !self.guc.ct_has_work() {
            return;
        }
        let now = rec.now();
        self.advance(now, rec);
        self.guc.ct_service(now, rec, bus);
        self.drain_guc(rec);
        self.check_isolation(rec, bus);
    }

    /// A host dword write at `offset` in BAR0's doorbell window
    /// ([`guc::ct::submit::WINDOW_START`]..[`guc::ct::submit::WINDOW_END`]):
    /// the GuC's doorbell model, then its scheduler for what the ring
    /// queued.
    pub fn doorbell_write(
        &mut self,
        offset: u32,
        value: u32,
        rec: &mut Recorder,
        bus: &mut dyn guc::Bus,
    ) {
        let now = rec.now();
        self.advance(now, rec);
        self.guc.doorbell_write(offset, value, rec);
        self.schedule_guc(rec, bus);
    }

    /// A `ct:` / `g2h:` test-control request ([`guc::Guc::ct_inject`]).
    pub fn ct_inject(
        &mut self,
        req: crate::control::CtRequest,
        rec: &mut Recorder,
        bus: &mut dyn guc::Bus,
    ) {
        let now = rec.now();
        self.advance(now, rec);
        self.guc.ct_inject(req, now, rec, bus);
        self.drain_guc(rec);
        self.check_isolation(rec, bus);
    }

    /// The power rule: whether an access to `reg` at `offset` reaches it.
    /// Records `sleeping_domain` when it does not.
    fn powered(&self, name: &str, offset: u32, op: Op, rec: &mut Recorder) -> bool {
        let Some(d) = self.map.domain(offset) else {
            return true;
        };
        if self.fw.awake(d) || (op == Op::Write && power::is_shadowed(offset)) {
            return true;
        }
        let what = match op {
            Op::Read => "read returns 0",
            Op::Write => "write dropped",
        };
        rec.violation(
            crate::summary::SLEEPING_DOMAIN,
            format!(
                "{} of {} (+{offset:#x}) while forcewake domain {} is asleep; {what}",
                op.name(),
                name,
                d.name()
            ),
        );
        false
    }

    /// Reads the dword at `offset` (dword aligned); `None` if no register
    /// lives there.
    pub fn read(&mut self, offset: u32, rec: &mut Recorder) -> Option<u32> {
        let now = rec.now();
        self.advance(now, rec);
        if let Some((i, rel)) = self.engines.lookup(offset) {
            let name = engine::reg_name(rel)?;
            if !self.powered(name, offset, Op::Read, rec) {
                return Some(0);
            }
            return self.engines.read(i, rel);
        }
        if let Some((vf, i)) = vf_regs::lookup(offset) {
            // Gunit, always on (seed 000 line 127; `vf_regs`).
            return Some(self.vf_regs.read(vf, i));
        }
        let reg = regs::lookup(offset)?;
        if !self.powered(reg.name, offset, Op::Read, rec) {
            return Some(0);
        }
        if let Some(d) = Domain::from_request_offset(offset) {
            return Some(self.fw.read_request(d));
        }
        if let Some(d) = Domain::from_ack_offset(offset) {
            return Some(self.fw.read_ack(d));
        }
        if let Some(v) = self.fuses.read(offset) {
            return Some(v);
        }
        if let Some(v) = self.mcr.read(offset, rec) {
            return Some(v);
        }
        if let Some(v) = self.tuning.read(offset) {
            return Some(v);
        }
        if let Some(v) = self.guc.read(offset, now) {
            return Some(v);
        }
        if let Some(v) = self.intc.read(offset) {
            return Some(v);
        }
        if let Some(v) = self.straps.fixed(offset) {
            return Some(v);
        }
        let v = match offset {
            gu_cntl::OFFSET => self.gunit.read_gu_cntl(now),
            gu_debug::OFFSET => self.gunit.read_gu_debug(),
            pcode_mailbox::OFFSET => self.pcode.read_mailbox(now, rec),
            pcode_data0::OFFSET => self.pcode.data0(),
            pcode_data1::OFFSET => self.pcode.data1(),
            vf_cap_reg::OFFSET => self.straps.vf_cap_reg(),
            sg_tile_addr_range::OFFSET => self.straps.sg_tile_addr_range(),
            gsmbase::OFFSET => self.straps.gsmbase_lo(),
            o if o == gsmbase::OFFSET + 4 => self.straps.gsmbase_hi(),
            _ => return None,
        };
        Some(v)
    }

    /// VF `vf`'s own BAR0 reads the dword at `offset` (`device/guest_vf.rs`);
    /// `None` if the mock models no register there for a VF. A VF's
    /// function has the registers a VF may touch (seed 000 line 127); the
    /// mock models those upstream's VF driver starts with: `VF_CAP_REG`
    /// (0x1901F8, `VF_CAP` set: this is a VF, `xe_sriov.c`
    /// `test_is_vf`) and its `VF_SW_FLAG(0..3)` (0x190240, its copy the PF
    /// sees at the VF's stride, [`vf_regs`]).
    pub fn vf_fn_read(&mut self, vf: u32, offset: u32, rec: &mut Recorder) -> Option<u32> {
        let now = rec.now();
        self.advance(now, rec);
        if offset == vf_cap_reg::OFFSET {
            return Some(VF_CAP);
        }
        let i = vf_sw_flag_index(offset)?;
        Some(self.vf_regs.read(vf, i))
    }

    /// VF `vf`'s own BAR0 writes the dword at `offset`; `false` if the
    /// mock models no register there for a VF. `VF_CAP_REG` is read-only
    /// (a write changes nothing); a `GUC_HOST_INTERRUPT` write hands the
    /// VF's `VF_SW_FLAG`s to the GuC ([`guc::Guc::vf_mmio`]), whose reply
    /// overwrites them.
    pub fn vf_fn_write(
        &mut self,
        vf: u32,
        offset: u32,
        value: u32,
        rec: &mut Recorder,
        bus: &mut dyn guc::Bus,
    ) -> bool {
        let now = rec.now();
        self.advance(now, rec);
        if offset == vf_cap_reg::OFFSET {
            return true;
        }
        if offset == regs::guc::GUC_HOST_INTERRUPT.offset {
            // The same doorbell announces the VF's CT traffic (`ct/vf.rs`).
            self.guc.vf_ct_doorbell(vf, now, rec, bus);
            let msg = self.vf_regs.message(vf);
            if let Some(reply) = self.guc.vf_mmio(vf, msg, now, rec, bus) {
                self.vf_regs.set_message(vf, reply);
            }
            // What the VF's traffic has for the PF interrupts it now.
            self.drain_guc(rec);
            return true;
        }
        let Some(i) = vf_sw_flag_index(offset) else {
            return false;
        };
        self.vf_regs.vf_write(vf, i, value);
        true
    }

    /// Writes the dword at `offset` (dword aligned); `None` if no register
    /// lives there. The GuC sees no memory ([`guc::NoBus`]).
    pub fn write(&mut self, offset: u32, value: u32, rec: &mut Recorder) -> Option<Effect> {
        self.write_with(offset, value, rec, &mut guc::NoBus)
    }

    /// [`RegisterFile::write`], with the memory the GuC reaches.
    pub fn write_with(
        &mut self,
        offset: u32,
        value: u32,
        rec: &mut Recorder,
        bus: &mut dyn guc::Bus,
    ) -> Option<Effect> {
        let now = rec.now();
        self.advance(now, rec);
        if let Some((i, rel)) = self.engines.lookup(offset) {
            let name = engine::reg_name(rel)?;
            if !self.powered(name, offset, Op::Write, rec) {
                return Some(Effect::None);
            }
            let r = self.engines.write(i, rel, value, rec, bus);
            self.drain_engines(rec);
            // The GuC notices what the host did to an engine it uses.
            self.schedule_guc(rec, bus);
            return r.map(|()| Effect::None);
        }
        if let Some((vf, i)) = vf_regs::lookup(offset) {
            self.vf_regs.write(vf, i, value, rec);
            return Some(Effect::None);
        }
        let reg = regs::lookup(offset)?;
        if !self.powered(reg.name, offset, Op::Write, rec) {
            return Some(Effect::None);
        }
        if offset == regs::guc::GDRST.offset {
            // The engine domain bits (spec "GDRST"); the GuC's own bits are
            // the GuC's (below).
            self.engines.gdrst(value, rec);
            if value & regs::guc::GRDOM_FULL.mask32() != 0 {
                self.full_reset(rec, &*bus);
            }
        }
        if let Some(d) = Domain::from_request_offset(offset) {
            self.fw.write_request(d, value, now, rec);
            return Some(Effect::None);
        }
        if Domain::from_ack_offset(offset).is_some() {
            straps::write_ignored(offset, value, rec);
            return Some(Effect::None);
        }
        if self.tuning.write(offset, value).is_some() {
            self.sync_render_regs();
            return Some(Effect::None);
        }
        if self.fuses.write(offset, value, rec).is_some()
            || self.mcr.write(offset, value, rec).is_some()
        {
            if offset == regs::mcr::LMEM_CFG.offset {
                // A new LMTT root empties the LMTT's cache
                // (`guc/ct/sriov/lmtt.rs`).
                self.sync_lmtt_root(rec, &*bus);
                // A new LMTT root: the immediate checks (isolation docs).
                self.run_isolation("lmem_cfg", false, rec, bus);
            }
            return Some(Effect::None);
        }
        if self.guc.write(offset, value, now, rec, bus).is_some() {
            self.drain_guc(rec);
            // A doorbell may have brought submission messages.
            self.schedule_guc(rec, bus);
            self.check_isolation(rec, bus);
            return Some(Effect::None);
        }
        if self.intc.write(offset, value, rec).is_some() {
            self.flush_irq_events(rec);
            return Some(Effect::None);
        }
        let effect = match offset {
            gu_cntl::OFFSET => self.gunit.write_gu_cntl(value, now, rec),
            gu_debug::OFFSET => {
                self.gunit.write_gu_debug(value);
                Effect::None
            }
            pcode_mailbox::OFFSET => {
                self.pcode.write_mailbox(value, now, rec);
                Effect::None
            }
            pcode_data0::OFFSET => {
                self.pcode.write_data(0, value, now, rec);
                Effect::None
            }
            pcode_data1::OFFSET => {
                self.pcode.write_data(1, value, now, rec);
                Effect::None
            }
            // A posted-write flush, not a driver error: upstream writes 0 here after `wmb()`
            // on a discrete GPU (`xe_device.c` `xe_device_wmb`), before the GuC or the
            // hardware reads what the CPU wrote to local memory. The bits stay as they are.
            vf_cap_reg::OFFSET if value == 0 => Effect::None,
            vf_cap_reg::OFFSET | sg_tile_addr_range::OFFSET => {
                straps::write_ignored(offset, value, rec);
                Effect::None
            }
            o if o == gsmbase::OFFSET || o == gsmbase::OFFSET + 4 => {
                straps::write_ignored(offset, value, rec);
                Effect::None
            }
            o if self.straps.fixed(o).is_some() => {
                straps::write_ignored(offset, value, rec);
                Effect::None
            }
            _ => return None,
        };
        if effect == Effect::DriverFlr {
            // [MODEL] A Driver-FLR resets the GT: forcewake requests,
            // steering and the GuC (its write-once WOPCM registers too) go
            // back to their reset state with it.
            self.fw.reset();
            self.mcr.reset();
            self.tuning.reset();
            self.guc.reset_device(now, rec);
            self.guc.take_resets();
            self.intc.reset();
            self.engines.reset_device(rec);
            self.engines.set_render_regs(0, 0);
            self.vf_regs.reset_all();
            self.flush_irq_events(rec);
        }
        Some(effect)
    }
}

/// `VF_CAP_REG.VF_CAP` (bit 0, `regs/xe_regs.h`).
const VF_CAP: u32 = 1;

/// The index of `VF_SW_FLAG(i)` at `offset`, if it is one.
fn vf_sw_flag_index(offset: u32) -> Option<usize> {
    let base = regs::guc::VF_SW_FLAG[0].offset;
    let rel = offset.checked_sub(base)?;
    // CAST: at most 3.
    (rel.is_multiple_of(4) && (rel / 4) < vf_regs::COUNT as u32).then_some((rel / 4) as usize)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::clock::ManualClock;
    use crate::regs;
    use crate::trace::TraceWriter;
    use std::sync::Arc;

    /// Defaults of the CLI, without faults or delays.
    pub(crate) fn params() -> RegParams {
        RegParams {
            lmem_size: 16 << 30,
            vf: false,
            lmem_init_delay: Duration::ZERO,
            pcode_init_delay: Duration::ZERO,
            pcode_busy: Duration::ZERO,
            lmem_never_init: false,
            pcode_never_init: false,
            pcode_stuck: false,
            pcode_init_error: false,
            fw_ack_delay: Duration::ZERO,
            fw_ack_never: 0,
            fw_ack_dead: 0,
            fuses: Fuses::ATS_M150,
            gam_reset_slice: mcr::GAM_RESET_SLICE_SEED,
            guc: guc::GucParams::default(),
            intc: intc::IntcFaults::default(),
            irq_on_guc_reset: false,
        }
    }

    /// A register file and recorder sharing a manual clock.
    pub(crate) fn setup(p: RegParams) -> (RegisterFile, Recorder, ManualClock) {
        let clock = ManualClock::new();
        let rec = Recorder::new(Arc::new(clock.clone()), TraceWriter::disabled(), None);
        let rf = RegisterFile::new(&p, Duration::ZERO).expect("register file");
        (rf, rec, clock)
    }

    /// Requests `domains` and lets their acknowledges arrive.
    pub(crate) fn awake(
        rf: &mut RegisterFile,
        rec: &mut Recorder,
        clock: &ManualClock,
        domains: &[Domain],
    ) {
        for d in domains {
            rf.write(d.request().offset, 0x0001_0001, rec);
        }
        clock.advance(Duration::from_millis(1));
        for d in domains {
            assert_eq!(rf.read(d.ack().offset, rec), Some(1), "{} awake", d.name());
        }
    }

    #[test]
    fn every_mapped_dword_is_handled_and_nothing_else() {
        let (mut rf, mut rec, _) = setup(params());
        for r in regs::REGISTERS {
            for dw in (0..r.width()).step_by(4) {
                assert!(
                    rf.read(r.offset + dw, &mut rec).is_some(),
                    "{} +{dw}",
                    r.name
                );
            }
        }
        // Every handled dword is in the public map (scan the pages around
        // the known registers).
        for base in [
            0x0000u32, 0x4000, 0x6000, 0x8000, 0x9000, 0xA000, 0xB000, 0xC000, 0xE000, 0x10_1000,
            0x4_4000, 0x10_0000, 0x10_8000, 0x13_0000, 0x13_8000, 0x19_0000,
        ] {
            for off in (base..base + 0x1000).step_by(4) {
                let handled = rf.read(off, &mut rec).is_some();
                let mapped = regs::lookup(off).is_some() || vf_regs::lookup(off).is_some();
                assert_eq!(handled, mapped, "{off:#x}");
            }
        }
        assert_eq!(rf.write(0x0, 0, &mut rec), None);
    }

    /// GT registers read 0 and drop writes while GT sleeps, each access a
    /// `sleeping_domain` violation; awake, they work.
    #[test]
    fn power_rule_for_gt_registers() {
        let (mut rf, mut rec, clock) = setup(params());
        let sarb = regs::mcr::SARB_CHICKEN1.offset;
        assert_eq!(rf.read(0x9144, &mut rec), Some(0), "fuse read while asleep");
        rf.write(sarb, 0x1234, &mut rec);
        let s = rec.summary(false);
        assert_eq!(s.violation_kinds.get("sleeping_domain"), Some(&2));
        assert_eq!(s.sleeping_accesses, 2);
        awake(&mut rf, &mut rec, &clock, &[Domain::GT]);
        assert_eq!(rf.read(0x9144, &mut rec), Some(0xFFFF_FFFF));
        assert_eq!(rf.read(sarb, &mut rec), Some(0), "the write was dropped");
        rf.write(sarb, 0x1234, &mut rec);
        assert_eq!(rf.read(sarb, &mut rec), Some(0x1234));
        // RENDER registers need RENDER, not GT.
        let lsc = regs::mcr::LSC_CHICKEN_BIT_0.offset;
        assert_eq!(rf.read(lsc, &mut rec), Some(0));
        assert_eq!(rec.summary(false).sleeping_accesses, 3);
        awake(&mut rf, &mut rec, &clock, &[Domain::RENDER]);
        rf.write(lsc, 5, &mut rec);
        assert_eq!(rf.read(lsc, &mut rec), Some(5));
        // Release GT: it sleeps once the acknowledge drops, and the state
        // written while awake survives.
        rf.write(Domain::GT.request().offset, 0x0001_0000, &mut rec);
        clock.advance(Duration::from_millis(1));
        assert_eq!(rf.read(sarb, &mut rec), Some(0));
        assert_eq!(rec.summary(false).sleeping_accesses, 4);
        awake(&mut rf, &mut rec, &clock, &[Domain::GT]);
        assert_eq!(rf.read(sarb, &mut rec), Some(0x1234));
    }

    /// Between the request and its acknowledge the domain still sleeps.
    #[test]
    fn power_rule_waits_for_the_acknowledge() {
        let mut p = params();
        p.fw_ack_delay = Duration::from_micros(20);
        let (mut rf, mut rec, clock) = setup(p);
        rf.write(Domain::GT.request().offset, 0x0001_0001, &mut rec);
        clock.advance(Duration::from_micros(10));
        assert_eq!(rf.read(0x9118, &mut rec), Some(0));
        clock.advance(Duration::from_micros(10));
        assert_eq!(rf.read(0x9118, &mut rec), Some(0xF));
        assert_eq!(rec.summary(false).sleeping_accesses, 1);
    }

    /// Shadowed registers take writes while asleep; their reads still need
    /// the domain. The forcewake requests are shadowed.
    #[test]
    fn shadowed_writes_pass_reads_do_not() {
        let mut p = params();
        p.fw_ack_delay = Duration::from_micros(20);
        let (mut rf, mut rec, clock) = setup(p);
        let gt = Domain::GT.request().offset;
        rf.write(gt, 0x0001_0001, &mut rec);
        assert_eq!(rec.summary(false).violations, 0, "request needs no wake");
        // The request register itself is in the GT range: reading it needs GT.
        assert_eq!(rf.read(Domain::RENDER.request().offset, &mut rec), Some(0));
        assert_eq!(rec.summary(false).sleeping_accesses, 1);
        clock.advance(Duration::from_millis(1));
        assert_eq!(rf.read(gt, &mut rec), Some(1));
        // Acknowledge registers are always on (AON row / outside the table).
        let (mut rf, mut rec, _) = setup(params());
        for d in Domain::all() {
            assert_eq!(rf.read(d.ack().offset, &mut rec), Some(0));
        }
        assert_eq!(rec.summary(false).violations, 0);
    }

    #[test]
    fn unshadowed_write_while_asleep_is_dropped() {
        let (mut rf, mut rec, clock) = setup(params());
        let l3 = regs::mcr::XEHP_L3SQCREG5.offset;
        rf.write(l3, 9, &mut rec);
        awake(&mut rf, &mut rec, &clock, &[Domain::GT]);
        assert_eq!(rf.read(l3, &mut rec), Some(0));
        assert_eq!(rec.summary(false).sleeping_accesses, 1);
    }

    #[test]
    fn always_on_registers_need_no_wake() {
        let (mut rf, mut rec, _) = setup(params());
        for off in [0x10_1010, 0x13_8124, 0x19_01F8, 0xFDC, 0xFE0, 0x13_0044] {
            rf.read(off, &mut rec);
        }
        assert_eq!(rec.summary(false).violations, 0);
    }

    #[test]
    fn driver_flr_resets_forcewake_and_steering() {
        let (mut rf, mut rec, clock) = setup(params());
        awake(&mut rf, &mut rec, &clock, &[Domain::GT]);
        rf.write(0xFDC, 0x0900_0000, &mut rec);
        rf.write(gu_cntl::OFFSET, gu_cntl::DRIVERFLR.mask32(), &mut rec);
        assert!(!rf.awake(Domain::GT));
        assert_eq!(rf.read(0xFDC, &mut rec), Some(0x8000_0000));
    }

    /// `GDRST.GRDOM_FULL` puts the tuning registers and the replicated
    /// registers' storage (PAT, MOCS, chicken bits) back to reset values
    /// (`xe_gt.c` `do_gt_restart` programs them again); the steering
    /// selector and the fixed `XEHP_FLAT_CCS_BASE_ADDR` stay. `GRDOM_GUC`
    /// alone changes none of them.
    #[test]
    fn grdom_full_resets_tuning_pat_and_mocs() {
        let (mut rf, mut rec, clock) = setup(params());
        awake(&mut rf, &mut rec, &clock, &[Domain::GT, Domain::RENDER]);
        let misc = regs::tuning::MISCCPCTL.offset;
        let ccs_mode = regs::tuning::CCS_MODE.offset;
        let pat = regs::mcr::PAT_INDEX[3].offset;
        let mocs = regs::mcr::XEHP_LNCFCMOCS[7].offset;
        let sarb = regs::mcr::SARB_CHICKEN1.offset;
        let flat = regs::mcr::XEHP_FLAT_CCS_BASE_ADDR.offset;
        // PAT sits behind the GAM selector: steer it to the primary GAM
        // (multicast for the writes).
        let sel = regs::mcr_selector::GAM_MCR_SELECTOR.offset;
        let gam = regs::mcr_selector::MULTICAST.mask32()
            | regs::mcr_selector::SLICE.prep(mcr::PRIMARY_GAM.into()) as u32;
        rf.write(sel, gam, &mut rec);
        let written = [
            (misc, 0x1234),
            (ccs_mode, 0xffff_0042),
            (pat, 0xc),
            (mocs, 0x0030_0030),
            (sarb, 0x4000),
        ];
        let programme = |rf: &mut RegisterFile, rec: &mut Recorder| {
            for (o, v) in written {
                rf.write(o, v, rec);
            }
        };
        programme(&mut rf, &mut rec);
        let before: Vec<Option<u32>> = written.iter().map(|&(o, _)| rf.read(o, &mut rec)).collect();
        assert_eq!(
            before,
            [
                Some(0x1234),
                Some(0x42),
                Some(0xc),
                Some(0x0030_0030),
                Some(0x4000)
            ]
        );
        let flat_value = rf.read(flat, &mut rec);
        let selector = rf.read(sel, &mut rec);
        let gdrst = regs::guc::GDRST.offset;
        rf.write(gdrst, regs::guc::GRDOM_GUC.mask32(), &mut rec);
        let kept: Vec<Option<u32>> = written.iter().map(|&(o, _)| rf.read(o, &mut rec)).collect();
        assert_eq!(kept, before, "a GuC reset keeps them");
        rf.write(gdrst, regs::guc::GRDOM_FULL.mask32(), &mut rec);
        for (o, _) in written {
            assert_eq!(rf.read(o, &mut rec), Some(0), "{o:#x} after GRDOM_FULL");
        }
        assert_eq!(rf.read(flat, &mut rec), flat_value);
        assert_eq!(rf.read(sel, &mut rec), selector);
        assert_eq!(selector, Some(gam));
        let s = rec.summary(false);
        assert_eq!(s.guc.full_resets, 1);
        assert_eq!(s.violations, 0, "{:?}", s.violation_kinds);
        // Programmed again, they read back again.
        programme(&mut rf, &mut rec);
        assert_eq!(rf.read(pat, &mut rec), Some(0xc));
    }

    #[test]
    fn flat_ccs_values() {
        assert_eq!(flat_ccs_base_addr(16 << 30), 0x03FB_8000);
        assert_eq!(
            flat_ccs_base_addr(1 << 30),
            (((1 << 30) - (4 << 20) - (8 << 20)) >> 16) << 8
        );
        assert_eq!(flat_ccs_base_addr(0), 0);
    }
}
