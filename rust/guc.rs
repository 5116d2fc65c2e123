// SPDX-License-Identifier: GPL-2.0

//! GuC: firmware load through its DMA engine, the boot handshake, and the first messages.
//!
//! The PRM gives the DMA engine's rules (seed 000, lines 1105-1140: what the hardware rejects,
//! 64-byte alignment, WOPCM base and size programmed first, no DMA over a loaded uKernel) and
//! the GuC address map (lines 1080-1086); the sequence and register fields are upstream's
//! (`xe_guc.c` `__xe_guc_upload`, `xe_uc_fw.c` `uc_fw_xfer`, `xe_wopcm.c`), cited per step in
//! the children that do it ([`boot`], [`wopcm`], [`ads`], [`tlb_inval`], [`hwconfig`]):
//!
//! 1. reset the GuC (GDRST), which must report MIA_IN_RESET;
//! 2. partition WOPCM, or accept matching values already locked by an earlier load;
//! 3. put the image, the ADS (with the private data area the header asks for) and the log
//!    in local memory, map them into the GGTT, invalidate the GuC's GGTT TLB;
//! 4. write the boot parameters, the shim and PM programming, the RSA key location;
//! 5. DMA header + uCode to WOPCM offset 0x2000, wait for it, then for GUC_STATUS to say
//!    READY or an error, decoded for the log;
//! 6. ask for the hwconfig table over MMIO (the GuC-to-memory direction);
//! 7. reset the GuC again, fill the full ADS ([`ads::write_full`]) and repeat steps 4-5 with
//!    the post-hwconfig `GUC_CTL_WA` and `GUC_CTL_FEATURE` words: the GuC of steps 1-6 runs
//!    on the minimal ADS, which does not support submission (upstream `xe_uc.c`: the
//!    hwconfig boot, then `xe_uc_load_hw`). [`Phase`] is the state machine the load walks;
//! 8. place, register and enable the CT.
//!
//! A failed load leaves the device bound with the GuC down (debugfs `guc_info` says why), so
//! the rest of the driver stays inspectable. Unbind resets the GuC before any memory it can
//! reach is released.

mod ads;
mod boot;
mod ct;
mod fw;
mod h2g;
mod hwconfig;
mod hxg;
mod klv;
mod log;
mod msg;
mod post_load;
mod regs;
mod status;
mod tlb_inval;
mod wopcm;

// What the blocks above use: what the full ADS describes and the firmware to load (for the
// device and the reset worker), the CT channel, the messages sent and received through it, the
// KLV writer of the VF configuration, and the registers the GT reset and the PF touch.
pub(crate) use ads::Part as AdsPart;
#[cfg(xehpg_test)]
pub(crate) use ct::LoadKind;
pub(crate) use ct::{
    with_bars, Channel, Consumed, CtAccess, CtIo, EventSink, SinkGuard, Unresponsive, RX_BUDGET,
};
pub(crate) use fw::path as firmware_path;
pub(crate) use hxg::Hxg;
pub(crate) use klv::Writer as KlvWriter;
pub(crate) use log::{set_level as set_log_level, DumpReason, LogEvent};
#[cfg(xehpg_test)]
pub(crate) use msg::{AllocateDoorbell, DeallocateDoorbell};
pub(crate) use msg::{
    BadEvent, DeregisterContext, EventKind, G2hEvent, H2gRequest, RegisterContext, RelayMsg,
    RelayToVf, SchedContext, SchedContextModeSet, TlbInvalidationAll, UpdateContextPolicies,
    UpdateVfCfg, UpdateVgtPolicy, VfCommand, VfControl, RELAY_REPLY_MAX,
};
pub(crate) use regs::{GDRST, VF_SW_FLAG};

use kernel::{
    alloc::kvec::PushError,
    device::{Bound, Device},
    firmware::Firmware,
    pci,
    prelude::*,
    str::CString,
    sync::{aref::ARef, Arc, Mutex},
    time::{Instant, Monotonic},
    workqueue::{new_work, Work},
};

use crate::{
    abi::{
        XEHPG_GUC_BLITTER_CLASS, XEHPG_GUC_COMPUTE_CLASS, XEHPG_GUC_RENDER_CLASS,
        XEHPG_GUC_VIDEOENHANCE_CLASS, XEHPG_GUC_VIDEO_CLASS,
    },
    engine::{Class, Present},
    gt::{Awake, Gt, GtDomain},
    hw::Hw,
    mem::{
        ggtt::{Ggtt, Mapping},
        lmem::{LmemAccess, LmemBlock, LmemPool},
    },
    mmio::{clear_master, Bar0},
    range::Range,
};
use fw::CssInfo;
use status::{code, Auth, Bootrom, Ukernel};
use wopcm::Wopcm;

/// Where the GuC stands.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum State {
    NotLoaded,
    Running,
    Failed,
}

/// The load's phases (the last one the GuC reached READY in), in the order [`Guc::load`]
/// goes through them (upstream `xe_uc.c`:
/// `xe_uc_init_hwconfig` boots for the hwconfig table, `xe_uc_load_hw` resets and boots
/// again for submission; `xe_guc.c` `xe_guc_min_load_for_hwconfig`, `xe_guc_upload`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Nothing booted since the last GuC reset.
    Reset,
    /// Booted on the minimal ADS with `GUC_CTL_WA` and `GUC_CTL_FEATURE` 0
    /// (`guc_init_params`): the GuC serves `GET_HWCONFIG` and nothing else.
    Hwconfig,
    /// Reset, then booted on the full ADS with the post-hwconfig words
    /// (`guc_init_params_post_hwconfig`): the GuC may schedule.
    Full,
}

impl Phase {
    /// Moves to `to`, which must be the next phase.
    ///
    /// # Errors
    ///
    /// `EINVAL` for any other step (a bug: the load goes through them in order).
    fn advance(&mut self, to: Self) -> Result {
        let next = match self {
            Self::Reset => Self::Hwconfig,
            Self::Hwconfig => Self::Full,
            Self::Full => return Err(EINVAL),
        };
        if to != next {
            return Err(EINVAL);
        }
        *self = to;
        Ok(())
    }

    /// The `GUC_CTL_WA` and `GUC_CTL_FEATURE` words a boot into this phase carries.
    fn words(self, part: &ads::Part) -> (u32, u32) {
        match self {
            Self::Reset | Self::Hwconfig => (0, 0),
            Self::Full => (ads::ctl_wa(part.platform), ads::ctl_feature()),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::Reset => "reset",
            Self::Hwconfig => "hwconfig",
            Self::Full => "full",
        }
    }
}

/// GuC engine class of an engine class (`abi/guc_scheduler_abi.h`; xe's own compute class
/// number differs, `xe_engine_class_to_guc_class`).
pub(crate) const fn guc_class(c: Class) -> u32 {
    match c {
        Class::Render => XEHPG_GUC_RENDER_CLASS,
        Class::VideoDecode => XEHPG_GUC_VIDEO_CLASS,
        Class::VideoEnhance => XEHPG_GUC_VIDEOENHANCE_CLASS,
        Class::Copy => XEHPG_GUC_BLITTER_CLASS,
        Class::Compute | Class::Other => XEHPG_GUC_COMPUTE_CLASS,
    }
}

/// A GuC-visible object: local memory and its GGTT mapping.
#[derive(Copy, Clone, Debug)]
struct Obj {
    lmem: Range,
    map: Mapping,
}

/// An object the GuC state owns: its local memory is given back when this is dropped.
struct Held {
    obj: Obj,
    /// Dropped after the GGTT mapping is gone ([`Held::free`]).
    _mem: LmemBlock,
}

impl Held {
    /// Unmaps the GGTT range; the local memory goes back to the pool as `self` drops.
    fn free(self, ctx: &Ctx<'_>) {
        ctx.ggtt.unmap(ctx.bar, self.obj.map);
    }
}

/// Everything the debugfs files report, plus the objects to release.
pub(crate) struct GucState {
    pub(crate) path: Option<CString>,
    pub(crate) css: Option<CssInfo>,
    pub(crate) state: State,
    /// The last phase the GuC reached READY in.
    pub(crate) phase: Phase,
    /// GuC boots (DMA and READY) of the last load: 2 after a complete one.
    pub(crate) boots: u32,
    /// The post-hwconfig `GUC_CTL_WA` and `GUC_CTL_FEATURE` words the full boot carried.
    pub(crate) words: (u32, u32),
    /// Last GUC_STATUS read.
    pub(crate) status: u32,
    /// Start of reset to READY, in microseconds.
    pub(crate) load_us: i64,
    /// Register reads and writes the load took (hwconfig included).
    pub(crate) load_mmio: (u64, u64),
    /// WOPCM base and size the GuC runs with, and whether they were found locked.
    pub(crate) wopcm: Option<Wopcm>,
    /// The step that failed and the error.
    pub(crate) error: Option<(&'static str, Error)>,
    /// The hwconfig table, validated (key, length, values...).
    pub(crate) hwconfig: KVec<u32>,
    /// The command transport, once placed.
    pub(crate) ct: Option<ct::Ct>,
    /// What the second boot phase set up.
    pub(crate) post_load: post_load::Done,
    /// The G2H object in system memory and its GGTT mapping, released after the GuC reset.
    g2h: Option<(Arc<ct::G2hBuf>, Mapping)>,
    objs: KVec<Held>,
    /// The log buffer's local memory ([`log`]), while the GuC may write it.
    log: Option<Range>,
    /// A DMA was started since the last GuC reset: the GuC may hold or run an image.
    touched: bool,
}

/// GuC state of one device.
#[pin_data]
pub(crate) struct Guc {
    /// Process context; held across the load's waits and CT requests. Below the GT reset's
    /// gate, above the allocators' and the CT's locks; never taken with the PF's mutex
    /// (Documentation/architecture.rst, "Locks").
    #[pin]
    state: Mutex<GucState>,
    /// The CT channel, shared with the interrupt thread that receives its G2H messages.
    channel: Arc<Channel>,
    /// The log's pending events and counters ([`log`]).
    log: log::Log,
    /// The log's worker: flush acknowledgements and crash dumps.
    #[pin]
    log_work: Work<Guc>,
    /// For the worker, which reaches the device only through the revocable BARs.
    hw: Arc<Hw>,
    dev: ARef<Device>,
}

/// Makes the GuC drop the GGTT translations it cached, after entries changed (VF ranges
/// stamped or given back). Wakes the GT for it. Any context that may busy-wait.
///
/// # Errors
///
/// The forcewake or steering error.
pub(crate) fn invalidate_ggtt(gt: &Gt<'_>) -> Result {
    let awake = gt.wake::<GtDomain>()?;
    tlb_inval::ggtt(gt, &awake)
}

/// What a load needs from the rest of the driver.
pub(crate) struct Ctx<'a> {
    pub(crate) pdev: &'a pci::Device<Bound>,
    pub(crate) gt: Gt<'a>,
    /// BAR 0, for the GGTT's entries (the GSM half).
    pub(crate) bar: Bar0<'a>,
    pub(crate) ggtt: &'a Ggtt,
    pub(crate) pool: &'a LmemPool,
    pub(crate) lmem: LmemAccess<'a>,
}

/// The device's GuC together with what stopping it needs: whatever loaded it, it is stopped
/// and its memory released when this is dropped.
///
/// Probe creates the handle before the load, so a probe that fails after the GuC is up (in a
/// later field of the device state) drops it and resets the GuC before the local memory, the
/// GGTT and the G2H buffer it could reach are freed; if the reset fails, bus mastering goes off
/// first ([`Guc::fini`]). Unbind drops it the same way, after the engines and the event sink
/// and while the interrupts are still armed (the device state's field order).
pub(crate) struct Handle<'a> {
    guc: Arc<Guc>,
    parts: Parts<'a>,
}

/// What a [`Handle`] is made from: the device blocks a GuC step reaches.
pub(crate) struct Parts<'a> {
    pub(crate) pdev: &'a pci::Device<Bound>,
    /// BAR 0, the local-memory BAR, the GT, the GGTT and the pool.
    pub(crate) hw: Arc<Hw>,
}

impl<'a> Handle<'a> {
    /// A handle over a GuC not loaded yet, using `channel` for its CT. Process context (probe).
    ///
    /// # Errors
    ///
    /// `ENOMEM`.
    pub(crate) fn new(channel: Arc<Channel>, parts: Parts<'a>) -> Result<Self> {
        Ok(Self {
            guc: Arc::pin_init(
                Guc::new(channel, parts.hw.clone(), parts.pdev.as_ref().into()),
                GFP_KERNEL,
            )?,
            parts,
        })
    }

    /// The GuC.
    pub(crate) fn guc(&self) -> &Arc<Guc> {
        &self.guc
    }

    /// What a GuC step needs, for the bound device.
    ///
    /// # Errors
    ///
    /// The BARs' access error (they are not this device's).
    pub(crate) fn ctx(&self) -> Result<Ctx<'_>> {
        self.parts.ctx()
    }
}

impl Parts<'_> {
    /// What a GuC step needs, for the bound device.
    ///
    /// # Errors
    ///
    /// The BARs' access error (they are not this device's).
    pub(crate) fn ctx(&self) -> Result<Ctx<'_>> {
        let hw = &*self.hw;
        let bar = hw.bar().access(self.pdev)?;
        Ok(Ctx {
            pdev: self.pdev,
            gt: hw.gt().view(self.pdev.as_ref(), bar),
            bar,
            ggtt: hw.ggtt(),
            pool: hw.pool(),
            lmem: hw.lmembar().access(self.pdev)?,
        })
    }
}

impl Drop for Handle<'_> {
    /// Process context (probe failure or unbind).
    fn drop(&mut self) {
        // No flush answer or dump starts while the GuC stops; a dump taken stays until the
        // device goes.
        self.guc.close_log();
        match self.ctx() {
            Ok(ctx) => self.guc.fini(&ctx),
            Err(e) => {
                // Nothing can reach the GuC; keep it off the bus before its memory goes.
                dev_err!(
                    self.parts.pdev,
                    "guc: teardown cannot reach the BARs ({:?}); bus mastering off\n",
                    e
                );
                clear_master(self.parts.pdev);
            }
        }
        self.guc.drop_coredump();
    }
}

/// A step's failure, for the log and for debugfs.
struct Fail(&'static str, Error);

/// Probe and unbind reach the device directly.
impl CtAccess for Ctx<'_> {
    fn dev(&self) -> &Device {
        self.gt.dev
    }

    fn with_io<R>(&self, f: impl FnOnce(&CtIo<'_>) -> R) -> Option<R> {
        Some(f(&CtIo {
            gt: &self.gt,
            lmem: self.lmem,
        }))
    }
}

impl Guc {
    /// A GuC of `dev` that will use `channel` for its CT.
    pub(crate) fn new(channel: Arc<Channel>, hw: Arc<Hw>, dev: ARef<Device>) -> impl PinInit<Self> {
        pin_init!(Self {
            channel,
            log: log::Log::new(),
            log_work <- new_work!("xehpg::guc_log"),
            hw,
            dev,
            state <- kernel::new_mutex!(GucState {
                path: None,
                css: None,
                state: State::NotLoaded,
                phase: Phase::Reset,
                boots: 0,
                words: (0, 0),
                status: 0,
                load_us: 0,
                load_mmio: (0, 0),
                wopcm: None,
                error: None,
                hwconfig: KVec::new(),
                ct: None,
                post_load: post_load::Done::NONE,
                g2h: None,
                objs: KVec::new(),
                log: None,
                touched: false,
            }),
        })
    }

    /// Whether the GuC runs (the last load succeeded and nothing stopped it since).
    pub(crate) fn running(&self) -> bool {
        matches!(self.state.lock().state, State::Running)
    }

    /// The debugfs `guc_info` report.
    ///
    /// # Errors
    ///
    /// Only the formatter's.
    pub(crate) fn fmt_info(&self, f: &mut kernel::fmt::Formatter<'_>) -> kernel::fmt::Result {
        let st = self.state.lock();
        self.fmt_locked(&st, f)
    }

    /// [`Guc::fmt_info`] of a state already locked (the crash dump's).
    fn fmt_locked(&self, st: &GucState, f: &mut kernel::fmt::Formatter<'_>) -> kernel::fmt::Result {
        match &st.path {
            Some(p) => f.write_fmt(fmt!("firmware: {}\n", p.to_str().unwrap_or("?")))?,
            None => f.write_str("firmware: none\n")?,
        }
        if let Some(css) = st.css {
            f.write_fmt(fmt!("release: {}\n", css.release))?;
            f.write_fmt(fmt!("submission: {}\n", css.submission))?;
            f.write_fmt(fmt!("ucode_size: {:#x}\n", css.ucode_bytes))?;
            f.write_fmt(fmt!("rsa_size: {:#x}\n", css.key_bytes))?;
            f.write_fmt(fmt!("private_data_size: {:#x}\n", css.private_data_bytes))?;
        }
        let state = match st.state {
            State::NotLoaded => "not loaded",
            State::Running => "running",
            State::Failed => "failed",
        };
        f.write_fmt(fmt!("status: {}\n", state))?;
        f.write_fmt(fmt!("phase: {}\n", st.phase.name()))?;
        f.write_fmt(fmt!("boots: {}\n", st.boots))?;
        f.write_fmt(fmt!(
            "ctl_wa: {:#010x}\nctl_feature: {:#010x}\n",
            st.words.0,
            st.words.1
        ))?;
        let s = regs::GUC_STATUS::from_raw(st.status);
        let (uk, uk_name) = code(s.ukernel(), Ukernel::name);
        let (rom, rom_name) = code(s.bootrom(), Bootrom::name);
        let (_, auth) = code(s.auth(), Auth::name);
        f.write_fmt(fmt!(
            "guc_status: {:#010x} (ukernel {:#04x} {}, bootrom {:#04x} {}, auth {})\n",
            st.status,
            uk,
            uk_name,
            rom,
            rom_name,
            auth
        ))?;
        if let Some(wopcm) = st.wopcm {
            f.write_fmt(fmt!("wopcm: {}\n", wopcm))?;
        }
        f.write_fmt(fmt!("load_time_us: {}\n", st.load_us))?;
        f.write_fmt(fmt!(
            "load_mmio: reads {} writes {}\n",
            st.load_mmio.0,
            st.load_mmio.1
        ))?;
        f.write_fmt(fmt!("hwconfig_dwords: {}\n", st.hwconfig.len()))?;
        ct::Ct::fmt(st.ct.as_ref(), f)?;
        st.post_load.fmt(f)?;
        self.log.fmt(f)?;
        match st.error {
            Some((step, e)) => f.write_fmt(fmt!("last_error: {}: {:?}\n", step, e)),
            None => f.write_str("last_error: none\n"),
        }
    }

    /// Fetches, checks and loads the firmware at `path` in two phases: on the minimal ADS to
    /// read the hwconfig table, then reset and on the full ADS that describes `part`; then
    /// enables CT. Failure is recorded (and logged with the step), never fatal to the binding.
    /// Process context (probe).
    pub(crate) fn load(&self, ctx: &Ctx<'_>, path: &CStr, part: &ads::Part) {
        // The fetch (the file system, or the firmware loader's fallback) comes before the
        // state's mutex, so readers of the state (debugfs, `Guc::running`) wait for the boots
        // only.
        let file = Firmware::request(path, ctx.gt.dev);
        if log::level_param() > log::MAX_LEVEL {
            dev_warn!(
                ctx.gt.dev,
                "guc: guc_log_level={} is above {}; logging at {}\n",
                log::level_param(),
                log::MAX_LEVEL,
                log::MAX_LEVEL
            );
        }
        let mut st = self.state.lock();
        st.path = CString::try_from_fmt(fmt!("{}", path)).ok();
        st.phase = Phase::Reset;
        st.boots = 0;
        st.words = (0, 0);
        let (reads0, writes0) = ctx.gt.mmio_counts();
        let result = self.load_locked(ctx, &mut st, file, path, part);
        let (reads1, writes1) = ctx.gt.mmio_counts();
        st.load_mmio = (reads1 - reads0, writes1 - writes0);
        crate::trace::dyn_dbg!(
            ctx.gt.dev,
            "guc: load of {} over: {} boot(s), {} MMIO reads, {} writes\n",
            path,
            st.boots,
            st.load_mmio.0,
            st.load_mmio.1
        );
        match result {
            Ok(()) => {
                st.state = State::Running;
                st.error = None;
                dev_info!(
                    ctx.gt.dev,
                    "guc: firmware {} running after {} us\n",
                    st.css.map_or(fw::MIN_RELEASE, |c| c.release),
                    st.load_us
                );
            }
            Err(Fail(step, e)) => {
                st.state = State::Failed;
                st.error = Some((step, e));
                dev_err!(
                    ctx.gt.dev,
                    "guc: load failed at {}: {:?}; the GuC stays down\n",
                    step,
                    e
                );
            }
        }
    }

    fn load_locked(
        &self,
        ctx: &Ctx<'_>,
        st: &mut GucState,
        file: Result<Firmware>,
        path: &CStr,
        part: &ads::Part,
    ) -> Result<(), Fail> {
        let dev = ctx.gt.dev;
        let file = file.map_err(|e| {
            dev_err!(dev, "guc: cannot get firmware {}: {:?}\n", path, e);
            Fail("firmware request", e)
        })?;
        let css = CssInfo::parse(file.data()).map_err(|e| {
            dev_err!(dev, "guc: firmware {} refused: {}\n", path, e);
            Fail("firmware header", EINVAL)
        })?;
        st.css = Some(css);
        let start = Instant::<Monotonic>::now();
        let gt = &ctx.gt;
        let awake = gt.wake::<GtDomain>().map_err(|e| Fail("forcewake", e))?;
        boot::reset(gt, &awake).map_err(|e| Fail("GuC reset", e))?;
        st.touched = false;
        st.wopcm = Some(wopcm::setup(gt, &awake, &css).map_err(|e| Fail("WOPCM", e))?);
        let objs = self
            .place(ctx, st, &css, file.data(), &part.present)
            .map_err(|e| Fail("GuC objects", e))?;
        tlb_inval::ggtt(gt, &awake).map_err(|e| Fail("GGTT invalidation", e))?;
        // Phase 1: the minimal ADS, for the hwconfig table only.
        let image = file.data();
        self.boot(ctx, st, &awake, &css, &objs, image, Phase::Hwconfig, part)?;
        st.phase
            .advance(Phase::Hwconfig)
            .map_err(|e| Fail("load phase", e))?;
        st.hwconfig = self
            .hwconfig(ctx, &awake, st)
            .map_err(|e| Fail("hwconfig", e))?;
        // Phase 2: reset, the full ADS and the post-hwconfig words (`xe_uc_load_hw`). WOPCM
        // stays as the first load locked it; the objects and their GGTT mappings are reused.
        boot::reset(gt, &awake).map_err(|e| Fail("GuC reset before the full load", e))?;
        st.touched = false;
        ads::write_full(
            ctx.lmem,
            &objs.ads,
            &objs.layout,
            css.private_data_bytes > 0,
            part,
            css.release,
        )
        .map_err(|e| Fail("full ADS", e))?;
        self.boot(ctx, st, &awake, &css, &objs, image, Phase::Full, part)?;
        st.phase
            .advance(Phase::Full)
            .map_err(|e| Fail("load phase", e))?;
        st.words = Phase::Full.words(part);
        st.load_us = start.elapsed().as_micros_ceil();
        let ct = self
            .ct_enable(ctx, st, &awake)
            .map_err(|e| Fail("CT enable", e))?;
        st.ct = Some(ct);
        Ok(())
    }

    /// One boot of the GuC into `phase`, after its reset: boot parameters, pre-load
    /// programming, the RSA key, the DMA and the wait for READY.
    #[expect(clippy::too_many_arguments)]
    fn boot(
        &self,
        ctx: &Ctx<'_>,
        st: &mut GucState,
        awake: &Awake<'_, GtDomain>,
        css: &CssInfo,
        objs: &Objs,
        image: &[u8],
        phase: Phase,
        part: &ads::Part,
    ) -> Result<(), Fail> {
        let gt = &ctx.gt;
        let (wa, feature) = phase.words(part);
        boot::params(ctx, awake, objs, wa, feature).map_err(|e| Fail("boot parameters", e))?;
        boot::preload(gt, awake).map_err(|e| Fail("pre-load programming", e))?;
        boot::rsa(gt, awake, css, objs, image).map_err(|e| Fail("RSA key", e))?;
        st.touched = true;
        boot::dma(gt, awake, css, objs.fw.map.addr(0)).map_err(|e| Fail("DMA", e))?;
        let status = boot::wait(gt, awake).map_err(|(raw, e)| {
            st.status = raw;
            Fail("boot", e)
        })?;
        st.status = status;
        st.boots += 1;
        Ok(())
    }

    /// Allocates, maps and fills the firmware image, the ADS and the log.
    /// The ADS is sized for the full load; the minimal one is written first.
    fn place(
        &self,
        ctx: &Ctx<'_>,
        st: &mut GucState,
        css: &CssInfo,
        image: &[u8],
        present: &Present,
    ) -> Result<Objs> {
        let fw_bytes = (css.dma_bytes() + css.key_bytes) as u64;
        let layout = ads::Layout::new(present, css.private_data_bytes);
        let fw = self.obj(ctx, st, fw_bytes)?;
        let ads = self.obj(ctx, st, layout.total as u64)?;
        let log = self.obj(ctx, st, log::SIZE)?;
        ctx.lmem
            .write_bytes(fw.lmem.start, image.get(..fw_bytes as usize).ok_or(EINVAL)?)?;
        ads::write_minimal(ctx.lmem, &ads, &layout, css.private_data_bytes > 0)?;
        ctx.lmem.zero(log.lmem.start, log::SIZE)?;
        st.log = Some(Range {
            start: log.lmem.start,
            end: log.lmem.start + log::SIZE,
        });
        Ok(Objs {
            fw,
            ads,
            log,
            layout,
        })
    }

    fn obj(&self, ctx: &Ctx<'_>, st: &mut GucState, bytes: u64) -> Result<Obj> {
        st.objs.reserve(1, GFP_KERNEL)?;
        // Dropped (freed) if the mapping fails.
        let mem = ctx.pool.alloc(bytes)?;
        let map = ctx.ggtt.map_lmem(ctx.bar, mem.start, mem.size())?;
        let obj = Obj { lmem: *mem, map };
        // Capacity was reserved above, so this cannot fail; if it did, the mapping would go
        // with the object.
        if let Err(PushError(held)) = st.objs.push_within_capacity(Held { obj, _mem: mem }) {
            held.free(ctx);
            return Err(ENOMEM);
        }
        Ok(obj)
    }

    /// Unmaps and frees `obj`, which the GuC no longer uses.
    fn release(&self, ctx: &Ctx<'_>, st: &mut GucState, obj: Obj) {
        if let Some(i) = st.objs.iter().position(|h| h.obj.lmem == obj.lmem) {
            if let Ok(held) = st.objs.remove(i) {
                held.free(ctx);
            }
        }
    }

    /// Unbind: stop the GuC, then release what it could reach. If it cannot be reset, bus
    /// mastering is turned off first so it cannot reach freed system memory.
    pub(crate) fn fini(&self, ctx: &Ctx<'_>) {
        let mut st = self.state.lock();
        self.stop(ctx, &mut st);
        st.state = State::NotLoaded;
        st.phase = Phase::Reset;
    }

    /// GT reset: stops the GuC as [`Guc::fini`] does, but without asking it to disable the
    /// CT first: it may be hung, and the reset that follows takes it down anyway (upstream
    /// `xe_guc_ct_stop` only marks the channel stopped before `do_gt_reset`). Process context.
    pub(crate) fn abandon(&self, ctx: &Ctx<'_>) {
        let mut st = self.state.lock();
        self.ct_forget(&mut st);
        self.stop(ctx, &mut st);
        st.state = State::NotLoaded;
        st.phase = Phase::Reset;
    }

    /// Stops the GuC and releases what it could reach (unbind, or a failed second boot
    /// phase).
    fn stop(&self, ctx: &Ctx<'_>, st: &mut GucState) {
        // The GuC stops using the rings before it is reset and their memory released.
        self.ct_disable(ctx, st);
        if st.touched {
            let stopped = ctx
                .gt
                .wake::<GtDomain>()
                .and_then(|awake| boot::reset(&ctx.gt, &awake));
            if let Err(e) = stopped {
                // The GuC cannot be stopped: the card is gone (its registers read all ones) or
                // its reset never completes. Either way it might still write through the GGTT
                // into the scratch page. With Bus Master Enable clear the function issues no
                // memory requests (PCIe Base Spec, Command register bit 2), so nothing it does
                // reaches system memory and everything is freed as usual. Keeping the memory
                // instead left DMA allocations behind the unbound device, which the DMA API
                // debug code reports as a WARNING (debug lane: surprise-removal,
                // guc-unbind-stuck).
                let why = if ctx.gt.device_gone() {
                    "device gone"
                } else {
                    "reset failed"
                };
                dev_err!(
                    ctx.gt.dev,
                    "guc: {} at unbind ({:?}); bus mastering off, freeing its memory\n",
                    why,
                    e
                );
                clear_master(ctx.pdev);
            }
            st.touched = false;
        }
        st.log = None;
        for held in core::mem::take(&mut st.objs) {
            held.free(ctx);
        }
        if let Some((buf, map)) = st.g2h.take() {
            ctx.ggtt.unmap(ctx.bar, map);
            // The channel dropped its reference when it stopped: this frees the memory.
            drop(buf);
        }
        st.ct = None;
        st.post_load = post_load::Done::NONE;
    }

    /// The CT channel.
    pub(crate) fn channel(&self) -> &Arc<Channel> {
        &self.channel
    }
}

/// The objects of one load.
struct Objs {
    fw: Obj,
    ads: Obj,
    log: Obj,
    layout: ads::Layout,
}
#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_guc)]
mod tests {
    use super::*;
    use crate::abi::*;
    use klv::{count, Layout, Malformed};
    use regs::GUC_STATUS;
    use status::BootOutcome;

    #[test]
    fn load_phases_only_move_forward() {
        let mut p = Phase::Reset;
        // The full load cannot come before the hwconfig boot.
        assert_eq!(p.advance(Phase::Full), Err(EINVAL));
        assert_eq!(p.advance(Phase::Hwconfig), Ok(()));
        assert_eq!(p.advance(Phase::Hwconfig), Err(EINVAL));
        assert_eq!(p.advance(Phase::Full), Ok(()));
        assert_eq!(p.advance(Phase::Full), Err(EINVAL));
        assert_eq!(p, Phase::Full);
    }

    #[test]
    fn only_the_full_boot_carries_the_words() {
        let part = ads::Part {
            platform: crate::platform::Platform::AtsM75,
            present: Present {
                ccs: 0b0011,
                vcs: 1,
                vecs: 1,
            },
            topology: Default::default(),
        };
        assert_eq!(Phase::Hwconfig.words(&part), (0, 0));
        // G11: HOLD_CCS_SWITCHOUT, DUAL_QUEUE, PRE_PARSER, CONTEXT_ISOLATION, TSC check on RC6;
        // LITE_RESTORE.
        assert_eq!(
            Phase::Full.words(&part),
            (
                (1 << 17) | (1 << 11) | (1 << 14) | (1 << 15) | (1 << 22),
                1 << 4
            )
        );
    }

    /// The outcome of a raw GUC_STATUS.
    fn outcome(raw: u32) -> BootOutcome {
        GUC_STATUS::from_raw(raw).outcome()
    }

    #[test]
    fn status_decode_and_outcome() {
        // AUTH good, uKernel READY, boot ROM JUMP_PASSED: upstream's success.
        let ready = (2 << 30) | (0xf0 << 8) | (0x76 << 1);
        assert_eq!(outcome(ready), BootOutcome::Ready);
        let s = GUC_STATUS::from_raw(ready);
        assert_eq!(s.auth(), Ok(Auth::Good));
        assert_eq!(s.ukernel(), Ok(Ukernel::Ready));
        assert_eq!(s.bootrom(), Ok(Bootrom::JumpPassed));
        assert!(!s.mia_in_reset());
        // Still booting.
        assert_eq!(outcome(0x40 << 8), BootOutcome::Booting);
        assert_eq!(outcome(1), BootOutcome::Booting);
        // Failures from each field.
        assert_eq!(outcome(0x71 << 8), BootOutcome::Failed);
        assert_eq!(outcome(0x50 << 1), BootOutcome::Failed);
        assert_eq!(outcome(1 << 30), BootOutcome::Failed);
        assert_eq!(Ukernel::InitDataInvalid.name(), "init data invalid");
        assert_eq!(Bootrom::RsaFailed.name(), "RSA verification failed");
    }

    #[test]
    fn status_codes_match_upstream_and_classify_as_before() {
        // (bindgen constant of `abi/guc_errors_abi.h`, enum value, a terminal failure?): the
        // failure column is the list the classification had before the enums.
        let ukernel = [
            (XEHPG_GUC_UKERNEL_DEFAULT, Ukernel::Default, false),
            (XEHPG_GUC_UKERNEL_START, Ukernel::Start, false),
            (
                XEHPG_GUC_UKERNEL_DEVID_BUILD_MISMATCH,
                Ukernel::DevidBuildMismatch,
                true,
            ),
            (
                XEHPG_GUC_UKERNEL_PREPROD_BUILD_MISMATCH,
                Ukernel::PreprodBuildMismatch,
                true,
            ),
            (
                XEHPG_GUC_UKERNEL_DEVID_INVALID_GUCTYPE,
                Ukernel::DevidInvalidGuctype,
                true,
            ),
            (
                XEHPG_GUC_UKERNEL_HWCONFIG_START,
                Ukernel::HwconfigStart,
                false,
            ),
            (
                XEHPG_GUC_UKERNEL_HWCONFIG_DONE,
                Ukernel::HwconfigDone,
                false,
            ),
            (
                XEHPG_GUC_UKERNEL_HWCONFIG_ERROR,
                Ukernel::HwconfigError,
                true,
            ),
            (
                XEHPG_GUC_UKERNEL_BOOTROM_VERSION_MISMATCH,
                Ukernel::BootromVersionMismatch,
                true,
            ),
            (XEHPG_GUC_UKERNEL_GDT_DONE, Ukernel::GdtDone, false),
            (XEHPG_GUC_UKERNEL_IDT_DONE, Ukernel::IdtDone, false),
            (XEHPG_GUC_UKERNEL_LAPIC_DONE, Ukernel::LapicDone, false),
            (XEHPG_GUC_UKERNEL_GUCINT_DONE, Ukernel::GucintDone, false),
            (XEHPG_GUC_UKERNEL_DPC_READY, Ukernel::DpcReady, false),
            (XEHPG_GUC_UKERNEL_DPC_ERROR, Ukernel::DpcError, true),
            (XEHPG_GUC_UKERNEL_EXCEPTION, Ukernel::Exception, true),
            (
                XEHPG_GUC_UKERNEL_INIT_DATA_INVALID,
                Ukernel::InitDataInvalid,
                true,
            ),
            (
                XEHPG_GUC_UKERNEL_PXP_TEARDOWN_CTRL_ENABLED,
                Ukernel::PxpTeardownCtrlEnabled,
                false,
            ),
            (
                XEHPG_GUC_UKERNEL_MPU_DATA_INVALID,
                Ukernel::MpuDataInvalid,
                true,
            ),
            (
                XEHPG_GUC_UKERNEL_INIT_MMIO_SAVE_RESTORE_INVALID,
                Ukernel::InitMmioSaveRestoreInvalid,
                true,
            ),
            (
                XEHPG_GUC_UKERNEL_KLV_WORKAROUND_INIT_ERROR,
                Ukernel::KlvWorkaroundInitError,
                true,
            ),
            (
                XEHPG_GUC_UKERNEL_INVALID_FTR_FLAG,
                Ukernel::InvalidFtrFlag,
                true,
            ),
        ];
        for (raw, v, fails) in ukernel {
            assert_eq!(u32::from(v), raw);
            assert_eq!(GUC_STATUS::from_raw(raw << 8).ukernel(), Ok(v));
            let want = if fails {
                BootOutcome::Failed
            } else {
                BootOutcome::Booting
            };
            assert_eq!(outcome(raw << 8), want);
        }
        assert_eq!(u32::from(Ukernel::Ready), XEHPG_GUC_UKERNEL_READY);
        let bootrom = [
            (0, Bootrom::None, false),
            (XEHPG_GUC_BOOTROM_NO_KEY_FOUND, Bootrom::NoKeyFound, true),
            (
                XEHPG_GUC_BOOTROM_AES_PROD_KEY_FOUND,
                Bootrom::AesProdKeyFound,
                false,
            ),
            (
                XEHPG_GUC_BOOTROM_PROD_KEY_CHECK_FAILURE,
                Bootrom::ProdKeyCheckFailure,
                true,
            ),
            (XEHPG_GUC_BOOTROM_RSA_FAILED, Bootrom::RsaFailed, true),
            (XEHPG_GUC_BOOTROM_PAVPC_FAILED, Bootrom::PavpcFailed, true),
            (XEHPG_GUC_BOOTROM_WOPCM_FAILED, Bootrom::WopcmFailed, true),
            (
                XEHPG_GUC_BOOTROM_LOADLOC_FAILED,
                Bootrom::LoadlocFailed,
                true,
            ),
            (XEHPG_GUC_BOOTROM_JUMP_PASSED, Bootrom::JumpPassed, false),
            (XEHPG_GUC_BOOTROM_JUMP_FAILED, Bootrom::JumpFailed, true),
            (
                XEHPG_GUC_BOOTROM_RC6CTXCONFIG_FAILED,
                Bootrom::Rc6ctxconfigFailed,
                true,
            ),
            (
                XEHPG_GUC_BOOTROM_MPUMAP_INCORRECT,
                Bootrom::MpumapIncorrect,
                true,
            ),
            (XEHPG_GUC_BOOTROM_EXCEPTION, Bootrom::Exception, true),
        ];
        for (raw, v, fails) in bootrom {
            assert_eq!(u32::from(v), raw);
            assert_eq!(GUC_STATUS::from_raw(raw << 1).bootrom(), Ok(v));
            let want = if fails {
                BootOutcome::Failed
            } else {
                BootOutcome::Booting
            };
            assert_eq!(outcome(raw << 1), want);
        }
    }

    #[test]
    fn unknown_status_codes_are_still_booting() {
        // uKernel 0x99, boot ROM 0x7f and auth 3 are no code upstream lists: the fields give
        // the raw value back, and the boot counts as still going (the wait times out).
        let s = GUC_STATUS::from_raw((3 << 30) | (0x99 << 8) | (0x7f << 1));
        assert_eq!(s.ukernel(), Err(0x99));
        assert_eq!(s.bootrom(), Err(0x7f));
        assert_eq!(s.auth(), Err(3));
        assert_eq!(s.outcome(), BootOutcome::Booting);
        assert_eq!(code(s.ukernel(), Ukernel::name), (0x99, "unknown"));
        // An unknown uKernel code does not hide a boot ROM failure.
        assert_eq!(outcome((0x99 << 8) | (0x50 << 1)), BootOutcome::Failed);
    }

    #[test]
    fn hwconfig_klv_bounds() {
        assert_eq!(count(&[], Layout::Hwconfig), Ok(0));
        assert_eq!(count(&[1, 1, 5, 2, 2, 7, 8], Layout::Hwconfig), Ok(2));
        // The second entry claims 3 dwords with 2 left.
        assert_eq!(
            count(&[1, 1, 5, 2, 3, 7, 8], Layout::Hwconfig),
            Err(Malformed {
                entry: 1,
                claimed: 3,
                left: 2
            })
        );
        // A dangling key with no length.
        assert_eq!(
            count(&[1, 0, 9], Layout::Hwconfig),
            Err(Malformed {
                entry: 1,
                claimed: 0,
                left: 1
            })
        );
        assert_eq!(
            count(&[1, u32::MAX], Layout::Hwconfig),
            Err(Malformed {
                entry: 0,
                claimed: u32::MAX,
                left: 0
            })
        );
    }

    #[test]
    fn hwconfig_key_names() {
        // Mesa's numbering (tools/mock/data/hwconfig-keys.tsv): first, an inner one, the last.
        assert_eq!(hwconfig::key_name(1), Some("MAX_SLICES_SUPPORTED"));
        assert_eq!(hwconfig::key_name(2), Some("MAX_DUAL_SUBSLICES_SUPPORTED"));
        assert_eq!(hwconfig::key_name(3), Some("MAX_NUM_EU_PER_DSS"));
        assert_eq!(hwconfig::key_name(10), Some("MAX_MEMORY_CHANNELS"));
        assert_eq!(hwconfig::key_name(64), Some("L3_BANK_SIZE_IN_KB"));
        assert_eq!(hwconfig::key_name(73), Some("SLM_SIZE_PER_SS_IN_KB"));
        // Outside the list: below its first key, past its last, far off.
        assert_eq!(hwconfig::key_name(0), None);
        assert_eq!(hwconfig::key_name(74), None);
        assert_eq!(hwconfig::key_name(u32::MAX), None);
    }

    #[test]
    fn hwconfig_keys_are_sorted() {
        // The name lookup is a binary search: it needs strictly increasing keys.
        assert!(!hwconfig::KEYS.is_empty());
        assert!(hwconfig::KEYS.windows(2).all(|w| w[0].0 < w[1].0));
        // Every listed key is found by the lookup under its own name.
        for &(k, name) in hwconfig::KEYS {
            assert_eq!(hwconfig::key_name(k), Some(name));
        }
    }

    #[test]
    fn wopcm_layout_like_upstream() -> Result {
        let css = CssInfo {
            release: fw::MIN_RELEASE,
            submission: fw::Version::new(1, 0, 0),
            ucode_bytes: 381248,
            key_bytes: 384,
            private_data_bytes: 8 << 20,
            ukernel_info: 0,
        };
        // DG2 without HuC: base 16 KiB, size 4 MiB - 36 KiB - 16 KiB (upstream's 0x3F3000).
        assert_eq!(wopcm::layout(&css)?, (0x4000, 0x3f3000));
        let huge = CssInfo {
            ucode_bytes: 0x3f3000,
            ..css
        };
        assert_eq!(wopcm::layout(&huge), Err(EFBIG));
        Ok(())
    }
}
