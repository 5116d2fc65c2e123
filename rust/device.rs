// SPDX-License-Identifier: GPL-2.0

//! One bound device: its state, and the order in which it is brought up and torn down.
//!
//! Bring-up follows upstream's early steps (`drivers/gpu/drm/xe/xe_pci.c`, `xe_pci_probe`, and
//! `xe_device.c`, `xe_device_probe_early`): enable and map the BARs, tell a VF from the PF,
//! wait for PCODE, check local memory; then the blocks, lowest first: GT (fuses, forcewake
//! domains, steering), GGTT, local-memory pool, interrupts (installed disarmed), GuC, the
//! debugfs directory that shows them, and last the interrupts armed for the mode the GuC's
//! state decides. [`Xehpg::new`] lists the steps in that order, each with the constraint that
//! places it; teardown is the fields' drops, which run them backwards.

use kernel::{
    device::{Bound, Core},
    dma::{Device as _, DmaMask},
    pci,
    prelude::*,
    sync::{
        atomic::{Atomic, Relaxed},
        Arc, SetOnce,
    },
    time::Delta,
};

use crate::{
    compat,
    debugfs::{Blocks, DebugCtx, DeviceDir, Late},
    engine::{self, Mode, Plan, Present},
    gt::{GtInfo, GtState},
    guc::{
        self, BadEvent, Channel, Consumed, EventKind, EventSink, G2hEvent, LogEvent, SinkGuard,
        Unresponsive,
    },
    hw::{self, Hw},
    info::{BarInfo, DeviceInfo},
    irq::Irq,
    mem::lmem::{self, BarError, Lmembar, TileRange},
    mmio::{Bar0, Enabled, Gttmmadr, GTTMMADR_BAR, GTTMMADR_SIZE, LMEM_BAR},
    pcode,
    platform::{Platform, SteppingInfo},
    range::Range,
    regs::{ALL_ONES, GU_CNTL, VF_CAP_REG},
    reset::{self, GtReset, Why},
    sriov::{self, Owner, Pf},
    submit::{GucEvents, Running, Submit},
};

/// The `pcode_init_timeout_ms` module parameter, handed down by module init before the driver
/// registers (so probe never reaches up into the module root for it).
static PCODE_INIT_TIMEOUT_MS: Atomic<u32> = Atomic::new(0);

/// Sets how long probe waits for PCODE; called once by module init.
pub(crate) fn set_pcode_init_timeout_ms(ms: u32) {
    PCODE_INIT_TIMEOUT_MS.store(ms, Relaxed);
}

/// The `force_execlist` module parameter: do not load the GuC, submit through execlists
/// (upstream xe's parameter of the same name).
static FORCE_EXECLIST: Atomic<bool> = Atomic::new(false);

/// Sets `force_execlist`; called once by module init.
pub(crate) fn set_force_execlist(on: bool) {
    FORCE_EXECLIST.store(on, Relaxed);
}

/// The `max_vfs` module parameter: the most VFs a PF offers (upstream xe's parameter of the
/// same name, `xe_modparam.c`; 0 keeps SR-IOV off, as upstream's "continue as native").
// CAST: 63.
static MAX_VFS_PARAM: Atomic<u32> = Atomic::new(crate::mem::ggtt::MAX_VFS as u32);

/// Sets the `max_vfs` module parameter (module init, before the driver registers).
pub(crate) fn set_max_vfs(n: u32) {
    MAX_VFS_PARAM.store(n, Relaxed);
}

/// Xe-HPG addresses 46 bits of system memory (upstream `dma_mask_size` for DG2,
/// `drivers/gpu/drm/xe/xe_pci.c`).
const DMA_BITS: u32 = 46;

/// Per-device state, alive while the device is bound.
///
/// Every step of bring-up that starts something leaves a field whose drop undoes it, and the
/// fields are declared in the exact reverse of the order [`Xehpg::new`] initialises them. Rust
/// drops a struct's fields in declaration order, and a failed `try_pin_init!` drops the fields
/// already made in reverse initialisation order (pin-init's `DropGuard`), so unbind (the
/// driver core drops the driver data in `post_unbind_callback`, `rust/kernel/driver.rs`, with
/// the device lock held and the BARs still mapped) and a probe that fails at any step tear
/// down through the same drops, in the same order, with no cleanup list of their own
/// (Documentation/architecture.rst, "Bring-up and teardown"). In particular a probe that fails
/// after the GuC loaded stops the GuC (its handle) before the interrupts, the memory it reaches
/// and, last, bus mastering ([`Enabled`]) go.
#[pin_data]
pub(crate) struct Xehpg<'bound> {
    /// The PF's `sriov_admin` tree, removed before the PF its files reach.
    sriov_admin: Option<compat::sriov::Admin>,
    /// The VFs, disabled (their devices removed) before the PF gives their shares back, on a
    /// device that offers VFs.
    vfs: Option<compat::sriov::Vfs<'bound>>,
    /// The GT reset, shut (a reset in progress waited for) before anything it restarts goes.
    reset: reset::Handle,
    /// The SR-IOV PF, on a part that is one and offers VFs: finished while the engines (its
    /// VF memory clear) and the GuC (the VFs' configurations) still run.
    sriov: Option<sriov::Handle>,
    /// The engines, stopped (GuC contexts deregistered over the CT) before the sink and the
    /// GuC go.
    running: Running<'bound>,
    /// Removed once the engines stopped (a command waiting on one is woken by the stop; the
    /// removal waits for commands in flight), before the blocks its files read from.
    debugfs: DeviceDir,
    /// The GuC's event sink, attached in GuC mode, detached before the GuC stops.
    sink: Option<SinkGuard>,
    /// The sink's consumers, filled in as the blocks above submission come up.
    events: Arc<DeviceEvents>,
    /// Who schedules the engines, decided from the GuC's state; the interrupts are armed for
    /// it. Undoes nothing: the GuC's drop stops it, the interrupts' drop disarms.
    mode: Mode,
    /// The GuC, stopped when dropped, while its interrupts are still armed and before the
    /// memory it reaches.
    guc: guc::Handle<'bound>,
    /// The handler, disarmed, waited for and freed, before anything it reads (GT state,
    /// BAR 0) and the vector with it.
    #[pin]
    irq: Irq<'bound>,
    /// Submission, shared with the interrupt thread and debugfs.
    submit: Arc<Submit>,
    /// The GuC's CT channel, shared by the GuC, the interrupt thread and debugfs.
    ct: Arc<Channel>,
    /// Forcewake, closed (a debugfs hold released, later wakes refused) once nothing above
    /// wakes the GT.
    gt_open: hw::Open<'bound>,
    /// BAR 0, the local-memory BAR, the GT, the GGTT and the pool. Every block above holds a
    /// clone (the GuC, the interrupt handler, submission, the PF, the GT reset, debugfs, the
    /// forcewake guard), and all of them are declared (so dropped) before this field, whose
    /// drop is the last reference: the objects go after everything that reaches them, the
    /// pool first and BAR 0 last ([`Hw`]'s field order).
    hw: Arc<Hw>,
    info: DeviceInfo,
    gt_info: GtInfo,
    /// Memory decoding and bus mastering, turned off once everything above is gone.
    enabled: Enabled<'bound>,
    pdev: &'bound pci::Device<Bound>,
}

/// The GuC's events for the blocks above it, dispatched by kind: the GT reset's (an engine the
/// GuC could not reset), submission's (context events), the PF's (VF events); and the
/// channel's word that the GuC stopped answering, which queues a GT reset. Receive path (see
/// [`EventSink`]).
///
/// The sink is attached before the engines start (their start waits for the GuC's events);
/// the PF and the GT reset come up after them and fill their slots then. An event for a slot
/// still empty is left to the channel as unconsumed (it counts and logs those).
struct DeviceEvents {
    reset: SetOnce<Arc<GtReset>>,
    submit: GucEvents,
    sriov: SetOnce<Arc<Pf>>,
    /// The GuC itself, for its log's events (flush requests, crash dumps, exceptions).
    guc: Arc<guc::Guc>,
}

impl EventSink for DeviceEvents {
    fn guc_event(&self, dev: &kernel::device::Device, ev: &G2hEvent) -> Consumed {
        match *ev {
            G2hEvent::EngineFailure {
                class,
                instance,
                reason,
            } => match self.reset.as_ref() {
                Some(reset) => GtReset::engine_failure(reset, dev, class, instance, reason),
                None => return Consumed::NoConsumer,
            },
            G2hEvent::SchedDone { .. }
            | G2hEvent::DeregisterDone { .. }
            | G2hEvent::ContextReset { .. } => self.submit.guc_event(dev, ev),
            // The PF sends the only TLB invalidations that ask for a DONE (after LMTT changes).
            G2hEvent::VfState { .. }
            | G2hEvent::Adverse { .. }
            | G2hEvent::RelayFromVf { .. }
            | G2hEvent::TlbInvalDone { .. } => match self.sriov.as_ref() {
                Some(pf) => Pf::guc_event(pf, dev, ev),
                None => return Consumed::NoConsumer,
            },
            G2hEvent::FlushLog => guc::Guc::log_event(&self.guc, LogEvent::Flush),
            G2hEvent::CrashDump => guc::Guc::log_event(&self.guc, LogEvent::CrashDump),
            G2hEvent::Exception => guc::Guc::log_event(&self.guc, LogEvent::Exception),
            // Reported by the channel.
            G2hEvent::MemoryCatError | G2hEvent::Unknown { .. } => return Consumed::NoConsumer,
        }
        Consumed::Handled
    }

    fn guc_bad_event(&self, dev: &kernel::device::Device, bad: &BadEvent) -> Consumed {
        match bad.kind {
            EventKind::EngineFailure => GtReset::bad_engine_failure(dev, bad.len),
            EventKind::SchedDone | EventKind::DeregisterDone | EventKind::ContextReset => {
                self.submit.bad_event(dev, bad)
            }
            EventKind::VfState
            | EventKind::Adverse
            | EventKind::RelayFromVf
            | EventKind::TlbInvalDone => match self.sriov.as_ref() {
                Some(pf) => pf.bad_event(dev, bad),
                None => return Consumed::NoConsumer,
            },
            EventKind::MemoryCatError
            | EventKind::FlushLog
            | EventKind::CrashDump
            | EventKind::Exception => return Consumed::NoConsumer,
        }
        Consumed::Handled
    }

    fn guc_unresponsive(&self, _dev: &kernel::device::Device, why: Unresponsive) {
        // Counted (and a refusal logged) by `request`. Before the reset exists (probe, while
        // the engines start) nothing is queued: the step that gave up logs it and its port
        // refuses work.
        if let Some(reset) = self.reset.as_ref() {
            let _ = GtReset::request(reset, Why::Unresponsive(why));
        }
    }
}

/// What the PF is built from.
struct PfParts {
    hw: Arc<Hw>,
    ct: Arc<Channel>,
    submit: Arc<Submit>,
    /// Local memory the VFs share: beyond the CPU-visible pool, up to the usable top.
    vf_lmem: Range,
    usable: u64,
}

/// The PF of an SR-IOV capable part that offers VFs (upstream: ATS-M only, `xe_pci.c`), at
/// most 63 of them (the LMTT's directory, seed 000 line 382) and at most `max_vfs`. A failure
/// is logged and leaves the device without VFs rather than failing probe.
fn new_pf(
    pdev: &pci::Device<Bound>,
    platform: Platform,
    total: u16,
    p: &PfParts,
) -> Option<Arc<Pf>> {
    if total == 0 {
        return None;
    }
    if !platform.sriov_pf() {
        dev_info!(
            pdev,
            "sriov: the device offers {} VFs, but {} is not SR-IOV capable; VFs stay off\n",
            total,
            platform
        );
        return None;
    }
    let wanted = MAX_VFS_PARAM.load(Relaxed);
    if wanted == 0 {
        dev_info!(pdev, "sriov: VFs off (max_vfs=0)\n");
        return None;
    }
    // CAST: at most 63 after the `min`.
    let total = u32::from(total.min(crate::mem::ggtt::MAX_VFS)).min(wanted) as u16;
    let bound = pdev;
    let make = || -> Result<Arc<Pf>> {
        if p.vf_lmem.start >= p.vf_lmem.end {
            dev_err!(pdev, "sriov: no local memory beyond the PF's own for VFs\n");
            return Err(ENOSPC);
        }
        let blocks = sriov::Blocks {
            hw: p.hw.clone(),
            ct: p.ct.clone(),
            submit: p.submit.clone(),
        };
        let init = Pf::new(
            bound.as_ref().into(),
            blocks,
            p.hw.bar().access(bound)?,
            p.hw.lmembar().access(bound)?,
            total,
            p.vf_lmem,
            p.usable,
        )?;
        Arc::pin_init(init, GFP_KERNEL)
    };
    match make() {
        Ok(pf) => {
            dev_info!(pdev, "sriov: PF with {} VFs\n", total);
            Some(pf)
        }
        Err(e) => {
            dev_err!(
                pdev,
                "sriov: PF setup failed: {}; VFs stay off\n",
                e.to_errno()
            );
            None
        }
    }
}

/// The local memory an SR-IOV PF with VFs keeps for its own objects (the GuC's, the CT's,
/// the rings, the LMTT directory and leaves, the KLV page, the clear window): its pool is
/// capped at this, so the VFs get the rest of local memory whatever the size of the
/// CPU-visible BAR. Upstream's PF takes VF memory from all of VRAM and keeps a spare
/// (`xe_gt_sriov_pf_config.c` `pf_get_min_spare_lmem`, 128 MiB, "preliminary"); 256 MiB is
/// the default BAR's size, which holds everything this PF allocates with 63 VFs. A policy,
/// not a hardware limit.
const PF_OWN_LMEM: u64 = 256 << 20;

/// What the early, register-only checks learn.
struct Early {
    gu_cntl: u32,
    pcode_queries: u32,
    pcode_busy: u32,
    pcode_failed: u32,
    tile: TileRange,
}

impl<'bound> Xehpg<'bound> {
    /// Brings `pdev` up as `platform`.
    pub(crate) fn new<'core>(
        pdev: &'bound pci::Device<Core<'core>>,
        platform: Platform,
    ) -> impl PinInit<Self, Error> + 'bound + use<'bound, 'core> {
        pin_init::pin_init_scope(move || {
            let revision = pdev.revision_id();
            let stepping = SteppingInfo::from_revid(platform.die(), revision);
            if !stepping.exact {
                dev_warn!(
                    pdev,
                    "probe: unknown revision {:#04x} for {}, using stepping {}\n",
                    revision,
                    platform,
                    stepping.stepping
                );
            }
            // Both BARs are checked before either is mapped, so a misconfigured device gets a
            // precise message.
            let (gtt_info, lmem_info) = check_bars(pdev)?;
            crate::trace::dyn_dbg!(pdev, "probe: BARs checked\n");
            // Turned off again by its drop, however probe ends.
            let enabled = Enabled::new(pdev)?;
            // SAFETY: probe has made no DMA allocation or mapping for this device yet, and
            // nothing else runs for it concurrently.
            unsafe { pdev.dma_set_mask_and_coherent(DmaMask::new::<DMA_BITS>())? };
            // Every register access below goes through BAR 0; its mapping outlives them all
            // (dropped last but one, with the `Hw` it goes into).
            let gttmmadr = Gttmmadr::map(pdev)?;
            let early = early_checks(pdev, gttmmadr.access(pdev)?)?;
            crate::trace::dyn_dbg!(pdev, "probe: early checks passed (PCODE ready)\n");
            let total_vfs = pdev.sriov_get_totalvfs().map_or(0, |n| n.get());
            // The driver's objects come from the CPU-visible part of local memory; a PF with
            // VFs keeps at most [`PF_OWN_LMEM`] of it, the VFs get the rest whatever the BAR's
            // size.
            let pool_size = lmem_info.len.min(early.tile.size);
            let pool_size = if platform.sriov_pf() && total_vfs > 0 {
                pool_size.min(PF_OWN_LMEM)
            } else {
                pool_size
            };

            // The field initializers below see the fields initialized before them under the
            // fields' names; `bound` is the device itself.
            let bound: &'bound pci::Device<Bound> = pdev;
            // The device in probe's context, for what only probe may do (the field `pdev`
            // shadows the parameter below).
            let probing = pdev;
            // The directory's slots for the blocks made after it.
            let late = Arc::new(Late::new(), GFP_KERNEL)?;
            // The hardware objects are made here, before the device state, in the order their
            // constraints give (`Hw::new`): BAR 0 (above), BAR 2, the GT, the GGTT, the pool.
            // A failure drops the ones made so far in reverse, before `enabled`.
            let lmembar = Lmembar::map(bound)?;
            // The GT first: its fuses, forcewake domains and steering defaults are what every
            // later block's register accesses rely on. PCODE must have finished (the early
            // checks) before the GT is touched. `Hw::new` runs this right after making the GT,
            // before the GGTT; `up` receives what it learns.
            let gt_up = |gttmmadr: &Gttmmadr, gt: &GtState| -> Result<(GtInfo, DeviceInfo)> {
                let view = gt.view(bound.as_ref(), gttmmadr.access(bound)?);
                let gt_info = view.init()?;
                // Workarounds, tuning, MOCS and PAT once steering is set up, before the GuC
                // is loaded or any engine runs.
                engine::apply_workarounds(&view, &gt_info.topology, platform.die())?;
                // The flat-CCS base needs steering, so it comes from `gt_info`.
                let info = DeviceInfo {
                    platform,
                    device_id: bound.device_id(),
                    revision,
                    stepping,
                    gttmmadr: gtt_info,
                    lmembar: lmem_info,
                    tile: early.tile,
                    lmem_usable: lmem_usable(bound, &early.tile, &gt_info)?,
                    dss_count: gt_info.topology.dss().count_ones(),
                    gu_cntl: early.gu_cntl,
                    pcode_queries: early.pcode_queries,
                    pcode_busy: early.pcode_busy,
                    pcode_failed: early.pcode_failed,
                    total_vfs,
                };
                Ok((gt_info, info))
            };
            let mut up = None;
            let hw = Arc::pin_init(
                Hw::new(bound, gttmmadr, lmembar, pool_size, gt_up, &mut up),
                GFP_KERNEL,
            )?;
            // Set by `gt_up`, which ran if the `Hw` was made.
            let (gt_info, info) = up.ok_or(EINVAL)?;
            crate::trace::dyn_dbg!(
                pdev,
                "probe: GT, GGTT and local memory pool up ({} DSS, pool {:#x} bytes)\n",
                info.dss_count,
                pool_size
            );
            Ok(try_pin_init!(Self {
                // Fields are initialised in the reverse of their declaration order: each
                // step's field undoes it when dropped, on unbind or if a later step fails.
                pdev: bound,
                enabled,
                gt_info,
                info,
                hw,
                // Forcewake is open from here until every block that wakes the GT is gone.
                gt_open: hw::Open::new(bound, hw.clone()),
                // Interrupts are installed (reset, vector, handler) before the GuC load, as
                // upstream does, so that a failure here never leaves a running GuC behind;
                // they are armed once the GuC's state is known (below).
                // The CT channel exists (down) before the interrupt handler that feeds it.
                ct: Arc::pin_init(Channel::new(), GFP_KERNEL)?,
                // So does submission, whose engine interrupts it handles; its memory is
                // mapped now, the engines are set up once the mode is known.
                submit: Arc::new(
                    Submit::new(
                        bound,
                        hw.clone(),
                        Present::from_topology(&gt_info.topology),
                    )?,
                    GFP_KERNEL,
                )?,
                irq <- Irq::new(
                    bound,
                    hw.clone(),
                    ct.clone(),
                    submit.clone(),
                    Present::from_topology(&gt_info.topology),
                ),
                // The GuC next: it needs steering (TLB invalidation), the GGTT and the pool.
                // A failed load is recorded, not fatal. The handle exists before the load, so
                // any later failure of probe stops the GuC (its drop).
                guc: {
                    let guc = guc::Handle::new(ct.clone(), guc::Parts {
                        pdev: bound,
                        hw: hw.clone(),
                    })?;
                    let ctx = guc.ctx()?;
                    if FORCE_EXECLIST.load(Relaxed) {
                        dev_info!(bound, "guc: not loaded (force_execlist): execlist submission\n");
                    } else {
                        let part = guc::AdsPart {
                            platform,
                            present: Present::from_topology(&gt_info.topology),
                            topology: gt_info.topology,
                        };
                        guc.guc().load(&ctx, guc::firmware_path(), &part);
                        guc::Guc::kick_log(guc.guc());
                    }
                    guc
                },
                // The GuC's state decides the submission mode (the GuC's when it runs, as
                // upstream) and so the engine vectors, and whether the GuC-to-host interrupt
                // is armed. The second boot phase talks over CT, whose replies come through
                // the interrupt armed here; if it fails the GuC is stopped: execlist mode.
                mode: {
                    let present = Present::from_topology(&gt_info.topology);
                    let running = guc.guc().running();
                    if running {
                        irq.arm(Plan::new(Mode::Guc, present, true));
                        let loaded = guc
                            .ctx()
                            .and_then(|ctx| guc.guc().post_load(&ctx, present.ccs != 0));
                        if loaded.is_ok() {
                            Mode::Guc
                        } else {
                            irq.arm(Plan::new(Mode::Execlist, present, false));
                            Mode::Execlist
                        }
                    } else {
                        irq.arm(Plan::new(Mode::Execlist, present, false));
                        Mode::Execlist
                    }
                },
                events: Arc::new(
                    DeviceEvents {
                        reset: SetOnce::new(),
                        submit: GucEvents(submit.clone()),
                        sriov: SetOnce::new(),
                        guc: guc.guc().clone(),
                    },
                    GFP_KERNEL,
                )?,
                // In GuC mode the sink is attached before the engines start: their start
                // waits for the GuC's events.
                sink: (*mode == Mode::Guc).then(|| ct.install_sink(events.clone())),
                // The directory before the engines start (so it goes after they stop); the
                // PF and the GT reset it shows are filled in as they come up.
                debugfs: DeviceDir::new(
                    DebugCtx::new(
                        *info,
                        bound.as_ref().into(),
                        Blocks {
                            hw: hw.clone(),
                            guc: guc.guc().clone(),
                            irq: irq.state(),
                            submit: submit.clone(),
                            late: late.clone(),
                        },
                    ),
                    bound.as_ref().name(),
                )?,
                // Engines are set up with their interrupts armed: through the GuC when it
                // runs, else execlists.
                running: Running::start(bound, submit.clone(), ct.clone(), *mode == Mode::Guc)?,
                // The PF after the engines (its teardown clears VF memory with the copy
                // engine) and the GuC, whose CT carries the VFs' configurations.
                sriov: {
                    let pf = new_pf(bound, platform, total_vfs, &PfParts {
                        hw: hw.clone(),
                        ct: ct.clone(),
                        submit: submit.clone(),
                        vf_lmem: Range { start: pool_size, end: info.lmem_usable },
                        usable: info.lmem_usable,
                    });
                    if let Some(pf) = &pf {
                        events.sriov.populate(pf.clone());
                        late.sriov.populate(pf.clone());
                    }
                    pf.map(sriov::Handle::new)
                },
                // The GT reset over every block it restarts, before the directory that asks for
                // it.
                reset: {
                    let reset = reset::Handle::new(bound.as_ref().into(), reset::Blocks {
                        hw: hw.clone(),
                        ct: ct.clone(),
                        guc: guc.guc().clone(),
                        irq: irq.state(),
                        submit: submit.clone(),
                        pf: sriov.as_ref().map(|pf| pf.get().clone()),
                        part: guc::AdsPart {
                            platform,
                            present: Present::from_topology(&gt_info.topology),
                            topology: gt_info.topology,
                        },
                        die: platform.die(),
                    })?;
                    events.reset.populate(reset.get().clone());
                    late.reset.populate(reset.get().clone());
                    reset
                },
                // `sriov_numvfs` reaches the driver from here on, on a device that offers VFs;
                // it offers none when the PF could not be set up, as upstream (the driver still
                // answers, to refuse with a message, should a count get through).
                vfs: (total_vfs > 0).then(|| {
                    let offered = sriov.as_ref().map_or(0, |pf| pf.get().total());
                    compat::sriov::Vfs::hook(probing, total_vfs, offered)
                }),
                sriov_admin: match &sriov {
                    // SAFETY: the tree's files reach the `Pf` behind `pf`, which the `sriov`
                    // field keeps alive; this field is dropped before it (declared before it
                    // on unbind, made after it on a failed probe).
                    Some(pf) => unsafe {
                        compat::sriov::Admin::add(
                            bound,
                            Arc::as_ptr(pf.get()).cast(),
                            pf.get().total().into(),
                        )
                    },
                    None => None,
                },
            })
            .pin_chain(|this| {
                report_bound(this.pdev, &this.info);
                Ok(())
            }))
        })
    }

    /// Provisions `n` VFs before the PCI core enables them (`sriov_configure`, process
    /// context, device lock held).
    ///
    /// # Errors
    ///
    /// `ENODEV` on a part that is not an SR-IOV PF, else [`Pf::provision`]'s.
    pub(crate) fn sriov_provision(&self, n: u16) -> Result {
        let Some(pf) = self.sriov.as_ref().map(sriov::Handle::get) else {
            if self.info.platform.sriov_pf() {
                dev_err!(
                    self.pdev,
                    "sriov: {} VF(s) asked for, but the PF could not be set up at probe (logged \
                     then); VFs stay off\n",
                    n
                );
            } else {
                dev_err!(
                    self.pdev,
                    "sriov: {} VF(s) asked for, but {} is not SR-IOV capable (upstream enables \
                     SR-IOV on ATS-M only)\n",
                    n,
                    self.info.platform
                );
            }
            return Err(ENODEV);
        };
        pf.provision(n, Owner::Pci)
    }

    /// The glue's handle of the `sriov_admin` tree, NULL without one.
    pub(crate) fn sriov_admin_handle(&self) -> *mut kernel::ffi::c_void {
        self.sriov_admin
            .as_ref()
            .map_or(core::ptr::null_mut(), compat::sriov::Admin::handle)
    }

    /// Resets each VF (a PF-started FLR through the GuC, [`sriov::Pf::reset_vfs`]) and gives
    /// their shares back, after the PCI core disabled them.
    pub(crate) fn sriov_unprovision(&self) {
        if let Some(pf) = self.sriov.as_ref().map(sriov::Handle::get) {
            sriov::Pf::reset_vfs(pf);
            // The PCI side may always give back.
            let _ = pf.unprovision(Owner::Pci);
        }
    }
}

/// Length of a BAR, or a probe error naming it.
fn bar_len(pdev: &pci::Device<Bound>, bar: u32, name: &str) -> Result<BarInfo> {
    let len = pdev.resource_len(bar)?;
    if len == 0 {
        dev_err!(pdev, "probe: {} (BAR {}) is not assigned\n", name, bar);
        return Err(ENODEV);
    }
    Ok(BarInfo {
        start: pdev.resource_start(bar)?,
        len,
    })
}

/// Checks both BARs before mapping them, so a misconfigured device gets a precise message.
fn check_bars(pdev: &pci::Device<Bound>) -> Result<(BarInfo, BarInfo)> {
    let gtt = bar_len(pdev, GTTMMADR_BAR, "GTTMMADR")?;
    if gtt.len < GTTMMADR_SIZE as u64 {
        dev_err!(
            pdev,
            "probe: GTTMMADR (BAR 0) is {:#x} bytes, the PRM layout needs {:#x}\n",
            gtt.len,
            GTTMMADR_SIZE
        );
        return Err(ENODEV);
    }
    let lmem = bar_len(pdev, LMEM_BAR, "LMEMBAR")?;
    match lmem::check_bar_len(lmem.len) {
        Ok(()) => Ok((gtt, lmem)),
        Err(BarError::TooSmall) => {
            dev_err!(
                pdev,
                "probe: LMEMBAR (BAR 2) is {:#x} bytes, below the {:#x} minimum\n",
                lmem.len,
                lmem::LMEMBAR_MIN
            );
            Err(ENODEV)
        }
        Err(BarError::NotPowerOfTwo) => {
            dev_err!(
                pdev,
                "probe: LMEMBAR (BAR 2) is {:#x} bytes, not a power of two\n",
                lmem.len
            );
            Err(ENODEV)
        }
    }
}

/// The always-on checks before any block is touched: the device answers and is a PF, PCODE
/// has finished initialising it, local memory is trained, and where it lies.
fn early_checks(pdev: &pci::Device<Bound>, bar: Bar0<'_>) -> Result<Early> {
    let gu_cntl = check_alive_pf(pdev, bar)?;
    let timeout = Delta::from_millis(i64::from(PCODE_INIT_TIMEOUT_MS.load(Relaxed)));
    let pcode = pcode::wait_init_complete(pdev.as_ref(), bar, timeout)?;
    // PCODE completes its init only after local memory is trained, so LMEM_INIT must be set
    // now (upstream asserts the same, `xe_device.c`, `assert_lmem_ready`).
    let gu_cntl_now = bar.read(GU_CNTL);
    if !gu_cntl_now.lmem_init() {
        dev_err!(
            pdev,
            "probe: local memory not initialised (GU_CNTL {:#010x}, LMEM_INIT clear)\n",
            gu_cntl_now.into_raw()
        );
        return Err(EIO);
    }
    Ok(Early {
        gu_cntl,
        pcode_queries: pcode.queries,
        pcode_busy: pcode.busy,
        pcode_failed: pcode.failed,
        tile: TileRange::read(pdev.as_ref(), bar)?,
    })
}

/// First register read: proves the device answers and is a PF. Returns GU_CNTL.
fn check_alive_pf(pdev: &pci::Device<Bound>, bar: Bar0<'_>) -> Result<u32> {
    let gu_cntl = bar.read(GU_CNTL).into_raw();
    if gu_cntl == ALL_ONES {
        dev_err!(
            pdev,
            "probe: GU_CNTL reads {:#010x}: the device does not respond (surprise removal or \
             a link that fell off the bus)\n",
            gu_cntl
        );
        return Err(EIO);
    }
    if bar.read(VF_CAP_REG).vf_cap() {
        // A VF shares the PF's device ID (seed 000 lines 139-153); it needs a VF driver that
        // talks to the GuC through the PF, which this driver is not.
        dev_info!(
            pdev,
            "probe: function is an SR-IOV VF (VF_CAP_REG bit 0); xehpg drives PFs only\n"
        );
        return Err(ENODEV);
    }
    Ok(gu_cntl)
}

/// Local memory below the flat-CCS metadata, in bytes; the base must lie inside the tile.
fn lmem_usable(pdev: &pci::Device<Bound>, tile: &TileRange, gt: &GtInfo) -> Result<u64> {
    let base = gt.flat_ccs_base;
    if base <= tile.offset || base > tile.offset + tile.size {
        dev_err!(
            pdev,
            "probe: flat-CCS base {:#x} lies outside local memory [{:#x}, {:#x})\n",
            base,
            tile.offset,
            tile.offset + tile.size
        );
        return Err(EIO);
    }
    Ok(base - tile.offset)
}

/// The probe summary in the kernel log.
fn report_bound(pdev: &pci::Device<Bound>, info: &DeviceInfo) {
    if info.small_bar() {
        dev_info!(
            pdev,
            "small BAR: LMEMBAR {:#x} bytes of {:#x} local memory\n",
            info.lmembar.len,
            info.tile.size
        );
    }
    dev_info!(
        pdev,
        "{} rev {:#04x} (stepping {}), {} MiB local memory, {} DSS, bound\n",
        info.platform,
        info.revision,
        info.stepping.stepping,
        info.tile.size >> 20,
        info.dss_count
    );
}
