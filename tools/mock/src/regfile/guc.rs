//! The GuC: its shim registers, the DMA engine that loads the uKernel, the
//! boot ROM's checks, the uKernel's boot walk and its MMIO message service.
//!
//! Sources: the PRM's GuC chapter (seed 000 lines 1075-1140: address map,
//! DMA rules), upstream `xe` for everything the seed leaves out (register
//! layout `regs/xe_guc_regs.h`, load sequence `xe_guc.c` / `xe_uc_fw.c` /
//! `xe_wopcm.c`, codes `abi/guc_errors_abi.h`, messages `abi/guc_*_abi.h`).
//! Constants come from the mock's own
//! reading of the upstream headers ([`crate::abi`]), not from the driver's. Invented behaviour is marked
//! `[MODEL]`.
//!
//! Registers (all but `GT_PM_CONFIG`, `GUC_HOST_INTERRUPT` and `VF_SW_FLAG`
//! need GT forcewake; the register file applies that rule first):
//!
//! - `GUC_WOPCM_SIZE`, `DMA_GUC_WOPCM_OFFSET`: write-once. The first write
//!   latches the value and sets LOCKED / VALID (upstream `__wopcm_init_regs`
//!   reads them back and fails without). Later writes are ignored; one with
//!   a different value is `wopcm_locked_write`. They survive GuC resets and
//!   driver reloads; a device reset or a Driver-FLR clears them. With
//!   `--wopcm-prelocked` they start latched instead, LOCKED / VALID, and a
//!   device reset or Driver-FLR latches them again (`[MODEL]`: firmware that
//!   locks them does so before any driver can look; see [`WopcmLock`]).
//!   Under `guc-wopcm-no-latch` every write to them is dropped, without a
//!   violation: they keep reading 0 (or the `--wopcm-prelocked` values).
//! - `GUC_STATUS`: read-only (`read_only_write`), see [the boot](#boot).
//! - `GDRST`: `GRDOM_GUC` (or `GRDOM_FULL`, which also resets the GuC; the
//!   rest of a full GT reset is not modelled) resets the GuC at once: status
//!   `MIA_IN_RESET` only, uKernel unloaded, SRAM cleared, TLB dropped, a
//!   running DMA and a pending MMIO reply abandoned, the CT registration
//!   dropped. The bit reads 1 for
//!   [`GDRST_TIME`] (`[MODEL]`; upstream waits up to 5 ms). Shim, scratch
//!   and DMA registers keep their values (`[MODEL]`). Under the fault
//!   `guc-reset-stuck-after-load` a reset requested while the uKernel is
//!   READY never completes: the bit reads 1 until a device reset or
//!   Driver-FLR and the GuC is not reset, it keeps running (`[MODEL]`; traced
//!   as `guc_reset_stuck`, not `guc_reset`). Under `guc-reset-stuck` every
//!   reset is like that, whatever the GuC's state.
//! - `GUC_TLB_INV_CR`: writing `invalidate` drops the GuC's GGTT TLB; the
//!   bit self-clears at once.
//! - `PMINTRMSK` resets to all ones, every PM interrupt masked (`[MODEL]`:
//!   the seeds give no reset value; i915 masks everything when RPS
//!   interrupts are off, `intel_rps.c` `rps_disable_interrupts` writes `~0`).
//! - `GUC_SHIM_CONTROL`, `GT_PM_CONFIG`, `SOFT_SCRATCH(n)`,
//!   `UOS_RSA_SCRATCH(i)`, `DMA_ADDR_*`, `DMA_COPY_SIZE`: storage, reset 0.
//! - `DMA_CTRL`: masked (bits 31:16 enable 15:0; a write without them is
//!   `masked_write_no_mask`). See [`dma`].
//! - `GUC_HOST_INTERRUPT`, `VF_SW_FLAG(n)`: see [`mmio`].
//!
//! # Boot
//!
//! `GUC_STATUS` is a function of time: every change is planned with the time
//! it happens and applied when an access notices it (traced as `guc_status`
//! with `at_us`). Nothing blocks. After reset it reads `MIA_IN_RESET`.
//! [`boot`] describes the walk from a completed uKernel DMA to READY.
//!
//! # Memory and tables
//!
//! Every GuC memory access (DMA source, RSA key, ADS, log, hwconfig
//! destination) goes through [`ggtt`]: GGTT translation with a TLB that the
//! driver must invalidate. [`css`] reads image headers and the `--guc-fw`
//! file; [`hwconfig`] builds the table `GET_HWCONFIG` returns.
//!
//! The log buffer (`GUC_CTL_LOG_PARAMS`, `GUC_CTL_DEBUG`), the entries the
//! firmware writes there, its flush protocol with the host and the crash
//! dump: [`log`].
//!
//! CT buffers: [`ct`] keeps their registration (`HOST2GUC_SELF_CFG`) and
//! enable (`HOST2GUC_CONTROL_CTB`), with the firmware's checks.
//!
//! Teardown: a GuC reset or a device reset is all the GuC needs; whether one
//! happened after the last boot shows in the summary
//! (`guc_running_at_exit`).

pub mod ads;
pub mod boot;
pub mod css;
pub mod ct;
pub mod dma;
pub mod ggtt;
pub mod hwconfig;
pub mod log;
pub mod mmio;
pub mod vf_mmio;

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

pub use css::FwFile;
pub use ggtt::Bus;
pub use ggtt::NoBus;
pub use ggtt::Target;

use super::straps;
use super::Fuses;
use crate::recorder::Recorder;
use crate::regs::guc as r;
use crate::trace::Event;
use crate::trace::Hex;

/// How long `GDRST.GRDOM_GUC` reads 1 after the write (`[MODEL]`).
pub const GDRST_TIME: Duration = Duration::from_micros(100);
/// `PMINTRMSK` reset value (`[MODEL]`, module docs).
pub const PMINTRMSK_RESET: u32 = 0xFFFF_FFFF;

/// Fault switches of the GuC.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GucFaults {
    /// `guc-dma-never-completes`: START_DMA never clears.
    pub dma_never_completes: bool,
    /// `guc-boot-stall`: the boot stops at GUCINT_DONE.
    pub boot_stall: bool,
    /// `guc-boot-error`: the uKernel takes an exception during boot.
    pub boot_error: bool,
    /// `guc-rsa-reject`: the boot ROM rejects every signature.
    pub rsa_reject: bool,
    /// `guc-mmio-no-reply`: MMIO requests are never answered.
    pub mmio_no_reply: bool,
    /// `guc-mmio-busy`: every MMIO request is answered BUSY first.
    pub mmio_busy: bool,
    /// `guc-mmio-retry`: the first MMIO request after each boot is answered
    /// RETRY.
    pub mmio_retry: bool,
    /// `guc-hwconfig-corrupt`: the hwconfig table's last entry runs past its
    /// end.
    pub hwconfig_corrupt: bool,
    /// `guc-reset-stuck-after-load`: a `GDRST` GuC reset requested while the
    /// uKernel is READY never completes.
    pub reset_stuck_after_load: bool,
    /// `guc-reset-stuck`: no `GDRST` GuC reset ever completes.
    pub reset_stuck: bool,
    /// `guc-wopcm-no-latch`: writes to the WOPCM registers are dropped.
    pub wopcm_no_latch: bool,
    /// `guc-mmio-bogus-reply`: MMIO requests are answered with a GuC-origin
    /// EVENT header.
    pub mmio_bogus_reply: bool,
    /// `ct-enable-refused`: every `CONTROL_CTB` ENABLE is answered FAILURE
    /// `INVALID_PARAMS`.
    pub ct_enable_refused: bool,
    /// `ct-self-cfg-unknown`: every `SELF_CFG` is answered SUCCESS with
    /// DATA0 0 (key not recognised).
    pub ct_self_cfg_unknown: bool,
    /// `ct-no-response`: every request read from the H2G ring is consumed
    /// and never answered.
    pub ct_no_response: bool,
}

/// WOPCM values latched before the driver starts (`--wopcm-prelocked`).
///
/// `[MODEL]`: upstream `xe_wopcm.c` `xe_wopcm_init` reads both registers
/// first and, when they are already locked ("preprogrammed by BIOS/IFWI"),
/// checks and keeps their values instead of programming its own. The mock
/// models that firmware case: the values are part of the reset state, so
/// they are there after every device reset and Driver-FLR too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WopcmLock {
    /// `DMA_GUC_WOPCM_OFFSET.offset`, bytes (a multiple of 16 KiB).
    pub base: u32,
    /// `GUC_WOPCM_SIZE.size`, bytes (a multiple of 4 KiB).
    pub size: u32,
}

/// Device configuration the GuC depends on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GucParams {
    /// PCI device ID (the uKernel checks `GUC_CTL_DEVID` against it).
    pub device_id: u16,
    /// PCI revision.
    pub revision: u8,
    /// Time from the uKernel's START to READY (`--guc-boot-ms`).
    pub boot_time: Duration,
    /// The firmware file uploads must match (`--guc-fw`).
    pub fw: Option<Arc<FwFile>>,
    /// WOPCM registers latched at reset (`--wopcm-prelocked`).
    pub wopcm_prelocked: Option<WopcmLock>,
    /// Fault switches.
    pub faults: GucFaults,
    /// DATA0 of the hwconfig size query's SUCCESS instead of the table's
    /// size (`--guc-hwconfig-size-reply`).
    pub hwconfig_size_reply: Option<u32>,
}

impl Default for GucParams {
    fn default() -> Self {
        Self {
            device_id: 0x56C0,
            revision: 0x08,
            boot_time: Duration::from_millis(20),
            fw: None,
            wopcm_prelocked: None,
            faults: GucFaults::default(),
            hwconfig_size_reply: None,
        }
    }
}

/// A `GUC_STATUS` value from its fields.
pub const fn status(auth: u32, ukernel: u32, bootrom: u32, in_reset: bool) -> u32 {
    (auth << r::AUTH.lo) | (ukernel << r::UKERNEL.lo) | (bootrom << r::BOOTROM.lo) | in_reset as u32
}

/// `GS_AUTH_STATUS_BAD`.
pub const AUTH_BAD: u32 = 1;
/// `GS_AUTH_STATUS_GOOD`.
pub const AUTH_GOOD: u32 = 2;
/// `GUC_STATUS` of a GuC held in reset.
pub const STATUS_IN_RESET: u32 = status(0, 0, 0, true);

/// `GUC_STATUS` over time: the value applied so far and the planned changes.
#[derive(Debug)]
struct Timeline {
    current: u32,
    planned: VecDeque<(Duration, u32)>,
}

impl Timeline {
    fn new() -> Self {
        Self {
            current: STATUS_IN_RESET,
            planned: VecDeque::new(),
        }
    }

    /// The value at `now`.
    fn at(&self, now: Duration) -> u32 {
        self.planned
            .iter()
            .rev()
            .find(|(t, _)| *t <= now)
            .map_or(self.current, |&(_, v)| v)
    }

    /// Applies the changes due by `now`, tracing each.
    fn advance(&mut self, now: Duration, rec: &mut Recorder) {
        while let Some(&(t, v)) = self.planned.front() {
            if t > now {
                break;
            }
            self.planned.pop_front();
            self.apply(t, v, rec);
        }
    }

    fn apply(&mut self, t: Duration, v: u32, rec: &mut Recorder) {
        if v == self.current {
            return;
        }
        self.current = v;
        let field = |f: &crate::regs::FieldDef| Hex(f.get(v.into()));
        rec.emit(Event::GucStatus {
            value: Hex(v.into()),
            ukernel: field(&r::UKERNEL),
            bootrom: field(&r::BOOTROM),
            auth: field(&r::AUTH),
            at_us: micros(t),
        });
    }

    /// Sets the value now, dropping every planned change.
    fn set(&mut self, now: Duration, v: u32, rec: &mut Recorder) {
        self.planned.clear();
        self.apply(now, v, rec);
    }

    /// Replaces the planned changes with `plan` (sorted by time).
    fn plan(&mut self, plan: impl IntoIterator<Item = (Duration, u32)>) {
        self.planned.clear();
        self.planned.extend(plan);
    }
}

/// The uKernel image the last uKernel DMA put in WOPCM.
#[derive(Debug)]
struct Image {
    /// WOPCM destination offset.
    dst: u64,
    /// The bytes copied.
    bytes: Vec<u8>,
    /// When the DMA completes; `None`: never.
    ready_at: Option<Duration>,
    /// The boot ROM has started on it.
    booted: bool,
}

/// A DMA in flight or completed but not yet traced.
#[derive(Debug, Clone, Copy)]
struct DmaRun {
    /// When START_DMA clears; `None`: never.
    done_at: Option<Duration>,
    bytes: u64,
}

/// The GuC unit.
#[derive(Debug)]
pub struct Guc {
    p: GucParams,
    /// The hwconfig table, dwords.
    hwconfig: Vec<u32>,
    /// `GUC_WOPCM_SIZE` once written: the value with LOCKED.
    wopcm_size: Option<u32>,
    /// `DMA_GUC_WOPCM_OFFSET` once written: the value with VALID.
    wopcm_offset: Option<u32>,
    shim_control: u32,
    pmintrmsk: u32,
    gt_pm_config: u32,
    soft_scratch: [u32; 16],
    rsa_scratch: [u32; 64],
    /// DMA_ADDR_0_LOW, _0_HIGH, _1_LOW, _1_HIGH.
    dma_addr: [u32; 4],
    dma_size: u32,
    /// DMA_CTRL bits 15:0 other than START_DMA.
    dma_ctrl: u32,
    dma: Option<DmaRun>,
    image: Option<Image>,
    status: Timeline,
    /// `GDRST` value and until when it reads so; `None`: for ever (fault
    /// `guc-reset-stuck-after-load`).
    gdrst: Option<(u32, Option<Duration>)>,
    tlb: ggtt::Tlb,
    /// A boot-error exception's EIP and when it lands in SOFT_SCRATCH(13).
    eip: Option<(Duration, u32)>,
    /// VF_SW_FLAG(0..3).
    flags: [u32; 4],
    /// Which VF_SW_FLAG registers were written since the last doorbell.
    flags_written: u8,
    /// MMIO replies not yet visible, in time order.
    replies: VecDeque<mmio::Reply>,
    /// The next MMIO request is answered RETRY (fault `guc-mmio-retry`).
    retry_armed: bool,
    /// GuC-to-host interrupts raised and not yet delivered to the
    /// interrupt controller ([`Guc::interrupt_host`]).
    host_interrupts: u32,
    /// Completed `GDRST` GuC resets not yet taken ([`Guc::take_resets`]).
    resets: u32,
    /// The CT registration and state ([`ct`]).
    ct: ct::Ct,
    /// `guc:hang:1`: the uKernel is stuck until a GuC reset ([`Guc::hang`]).
    hung: bool,
    /// The VFs' own CTs, by VF ([`ct::vf`]).
    vf_cts: std::collections::BTreeMap<u32, ct::vf::VfCt>,
    /// VFs whose MSI the GuC raised, not yet delivered ([`Guc::take_vf_irqs`]).
    vf_irqs: std::collections::BTreeSet<u32>,
    /// The log buffer as the last boot configured it ([`log`]).
    log: log::Log,
}

impl Guc {
    /// A GuC in its power-on state: held in reset, nothing programmed.
    ///
    /// # Errors
    ///
    /// The hwconfig table names a key the checked-in key list lacks
    /// ([`hwconfig::table`]; a unit test guards against it).
    pub fn new(p: &GucParams, fuses: &Fuses) -> Result<Self, String> {
        let table = hwconfig::table(fuses, p.faults.hwconfig_corrupt)?;
        let mut g = Self::power_on(p.clone(), table);
        let present = super::engine::ENGINES
            .iter()
            .filter(|d| super::engine::present(fuses, d))
            .collect();
        g.ct.submit = ct::submit::Submit::new(present);
        Ok(g)
    }

    fn power_on(p: GucParams, hwconfig: Vec<u32>) -> Self {
        let lock = p.wopcm_prelocked;
        Self {
            p,
            hwconfig,
            wopcm_size: lock.map(|l| l.size | r::WOPCM_LOCKED.mask32()),
            wopcm_offset: lock.map(|l| l.base | r::WOPCM_OFFSET_VALID.mask32()),
            shim_control: 0,
            pmintrmsk: PMINTRMSK_RESET,
            gt_pm_config: 0,
            soft_scratch: [0; 16],
            rsa_scratch: [0; 64],
            dma_addr: [0; 4],
            dma_size: 0,
            dma_ctrl: 0,
            dma: None,
            image: None,
            status: Timeline::new(),
            gdrst: None,
            tlb: ggtt::Tlb::default(),
            eip: None,
            flags: [0; 4],
            flags_written: 0,
            replies: VecDeque::new(),
            retry_armed: false,
            host_interrupts: 0,
            resets: 0,
            ct: ct::Ct::default(),
            hung: false,
            vf_cts: std::collections::BTreeMap::new(),
            vf_irqs: std::collections::BTreeSet::new(),
            log: log::Log::default(),
        }
    }

    /// The GuC interrupts the host: `GUC_INTR_GUC2HOST` (bit 15, "GuC
    /// Interrupt to Host", seed 000 L2273; `regs/xe_guc_regs.h`) on the
    /// GuC's interrupt source, class Other instance 0 (L2157). The firmware
    /// does this after it wrote a G2H message to the CT buffer
    /// (`xe_guc_ct.c`: the host's G2H processing runs from this
    /// interrupt); the CT model calls it then. The register file delivers
    /// it to the interrupt controller after the access that raised it
    /// ([`Guc::take_host_interrupts`]).
    pub fn interrupt_host(&mut self) {
        self.host_interrupts += 1;
    }

    /// GuC-to-host interrupts raised since the last call.
    pub fn take_host_interrupts(&mut self) -> u32 {
        std::mem::take(&mut self.host_interrupts)
    }

    /// Completed `GDRST` GuC resets since the last call (a stuck reset is
    /// not one).
    pub fn take_resets(&mut self) -> u32 {
        std::mem::take(&mut self.resets)
    }

    /// Device reset or Driver-FLR: every register, the write-once ones
    /// included, back to power-on, and the GuC in reset.
    pub fn reset_device(&mut self, now: Duration, rec: &mut Recorder) {
        self.unhang(rec);
        let hwconfig = std::mem::take(&mut self.hwconfig);
        let status = std::mem::replace(&mut self.status, Timeline::new());
        self.submit_forget(rec);
        let ct = self.ct.keeping_switches();
        *self = Guc {
            status,
            ct,
            ..Self::power_on(self.p.clone(), hwconfig)
        };
        self.status.set(now, STATUS_IN_RESET, rec);
    }

    /// GuC reset (`GDRST`): the GuC's own state, not the shim registers.
    fn reset_guc(&mut self, now: Duration, cause: &'static str, rec: &mut Recorder) {
        rec.emit(Event::GucReset { cause });
        self.unhang(rec);
        self.resets += 1;
        self.dma = None;
        self.image = None;
        self.eip = None;
        self.replies.clear();
        self.retry_armed = false;
        self.tlb.clear();
        // The firmware forgets the CT registration and traffic (ct.rs
        // module docs) and its contexts (ct/submit.rs); the test's switches
        // stay.
        self.submit_forget(rec);
        self.ct = self.ct.keeping_switches();
        self.vf_cts.clear();
        // The firmware's log bookkeeping goes with it; the next boot
        // starts the buffer again.
        self.log = log::Log::default();
        self.status.set(now, STATUS_IN_RESET, rec);
    }

    /// `guc:hang:1`: the uKernel stops for good, as a crashed firmware
    /// would (`[MODEL]`: what a crashed GuC does is not published; upstream
    /// notices one only by its silence: `xe_guc_ct.c` `guc_ct_send_recv`
    /// times out and the GT reset worker resets the GuC, `xe_gt.c`
    /// `gt_reset_worker`). From now on it reads no H2G (the CT ring's head
    /// does not move), answers no MMIO request (`GUC_HOST_INTERRUPT`
    /// doorbells are ignored; replies not yet visible are lost), writes no
    /// G2H (the backlog waits), sends no interrupt, schedules nothing
    /// (engines keep running what they were given) and ignores the
    /// doorbell pages. `GUC_STATUS` keeps its value (`[MODEL]`: a stuck
    /// uKernel does not update it). A `GDRST` reset of the GuC
    /// (`GRDOM_GUC`, `GRDOM_FULL`), a device reset or a Driver-FLR clears
    /// it; the next load boots normally. A fault the test asked for: no
    /// violation. Traced `guc_hang` ("hung", or "already_hung").
    pub fn hang(&mut self, rec: &mut Recorder) {
        if self.hung {
            rec.emit(Event::GucHang {
                action: "already_hung",
            });
            return;
        }
        self.hung = true;
        self.replies.clear();
        rec.emit(Event::GucHang { action: "hung" });
    }

    /// Whether the uKernel is stuck (`guc:hang`).
    pub fn hung(&self) -> bool {
        self.hung
    }

    /// A reset frees a stuck uKernel (traced `guc_hang` "cleared").
    fn unhang(&mut self, rec: &mut Recorder) {
        if std::mem::take(&mut self.hung) {
            rec.emit(Event::GucHang { action: "cleared" });
        }
    }

    /// Applies the time-driven changes due by `now`: status, DMA completion,
    /// MMIO replies, the exception EIP.
    pub fn advance(&mut self, now: Duration, rec: &mut Recorder) {
        if let Some(run) = self.dma {
            if run.done_at.is_some_and(|t| t <= now) {
                self.dma = None;
                rec.emit(Event::GucDmaDone {
                    bytes: run.bytes,
                    at_us: run.done_at.map_or(0, micros),
                });
            }
        }
        self.status.advance(now, rec);
        if let Some((t, eip)) = self.eip {
            if t <= now {
                self.soft_scratch[13] = eip;
                self.eip = None;
            }
        }
        self.apply_replies(now, rec);
    }

    /// `GUC_STATUS` at `now`.
    pub fn status_at(&self, now: Duration) -> u32 {
        self.status.at(now)
    }

    /// Whether the uKernel is READY at `now`.
    pub fn ready(&self, now: Duration) -> bool {
        r::UKERNEL.get(self.status_at(now).into()) == u64::from(crate::abi::ukernel::READY)
    }

    /// The hwconfig table the GuC serves.
    pub fn hwconfig(&self) -> &[u32] {
        &self.hwconfig
    }

    /// Reads the GuC register at `offset`; `None` if it is not one.
    pub fn read(&self, offset: u32, now: Duration) -> Option<u32> {
        if let Some(i) = index_in(&r::SOFT_SCRATCH, offset) {
            return Some(self.soft_scratch[i]);
        }
        if let Some(i) = index_in(&r::UOS_RSA_SCRATCH, offset) {
            return Some(self.rsa_scratch[i]);
        }
        if let Some(i) = index_in(&r::VF_SW_FLAG, offset) {
            return Some(self.flags[i]);
        }
        if let Some(i) = dma_addr_index(offset) {
            return Some(self.dma_addr[i]);
        }
        let v = match offset {
            o if o == r::GUC_STATUS.offset => self.status_at(now),
            o if o == r::GUC_WOPCM_SIZE.offset => self.wopcm_size.unwrap_or(0),
            o if o == r::DMA_GUC_WOPCM_OFFSET.offset => self.wopcm_offset.unwrap_or(0),
            o if o == r::GUC_SHIM_CONTROL.offset => self.shim_control,
            o if o == r::PMINTRMSK.offset => self.pmintrmsk,
            o if o == r::GT_PM_CONFIG.offset => self.gt_pm_config,
            o if o == r::DMA_COPY_SIZE.offset => self.dma_size,
            o if o == r::DMA_CTRL.offset => self.dma_ctrl | u32::from(self.dma_busy(now)),
            o if o == r::GDRST.offset => self
                .gdrst
                .filter(|&(_, until)| until.is_none_or(|t| now < t))
                .map_or(0, |(v, _)| v),
            o if o == r::GUC_TLB_INV_CR.offset || o == r::GUC_HOST_INTERRUPT.offset => 0,
            _ => return None,
        };
        Some(v)
    }

    /// Writes the GuC register at `offset`; `None` if it is not one.
    pub fn write(
        &mut self,
        offset: u32,
        value: u32,
        now: Duration,
        rec: &mut Recorder,
        bus: &mut dyn Bus,
    ) -> Option<()> {
        if let Some(i) = index_in(&r::SOFT_SCRATCH, offset) {
            self.soft_scratch[i] = value;
            return Some(());
        }
        if let Some(i) = index_in(&r::UOS_RSA_SCRATCH, offset) {
            self.rsa_scratch[i] = value;
            return Some(());
        }
        if let Some(i) = index_in(&r::VF_SW_FLAG, offset) {
            self.flags[i] = value;
            self.flags_written |= 1 << i;
            return Some(());
        }
        if let Some(i) = dma_addr_index(offset) {
            self.dma_addr[i] = value;
            return Some(());
        }
        match offset {
            o if o == r::GUC_STATUS.offset => straps::write_ignored(offset, value, rec),
            o if (o == r::GUC_WOPCM_SIZE.offset || o == r::DMA_GUC_WOPCM_OFFSET.offset)
                && self.p.faults.wopcm_no_latch =>
            {
                // Dropped (module docs); the access itself is traced. A
                // fault, not a driver error: no violation.
            }
            o if o == r::GUC_WOPCM_SIZE.offset => {
                let keep = r::WOPCM_SIZE.mask32();
                let latched = latch(&mut self.wopcm_size, value, keep, r::WOPCM_LOCKED.mask32());
                note_locked(latched, "GUC_WOPCM_SIZE", value, keep, rec);
            }
            o if o == r::DMA_GUC_WOPCM_OFFSET.offset => {
                let keep = r::WOPCM_OFFSET.mask32() | r::HUC_LOADING_AGENT_GUC.mask32();
                let latched = latch(
                    &mut self.wopcm_offset,
                    value,
                    keep,
                    r::WOPCM_OFFSET_VALID.mask32(),
                );
                note_locked(latched, "DMA_GUC_WOPCM_OFFSET", value, keep, rec);
            }
            o if o == r::GUC_SHIM_CONTROL.offset => self.shim_control = value,
            o if o == r::PMINTRMSK.offset => self.pmintrmsk = value,
            o if o == r::GT_PM_CONFIG.offset => self.gt_pm_config = value,
            o if o == r::DMA_COPY_SIZE.offset => self.dma_size = value,
            o if o == r::DMA_CTRL.offset => self.write_dma_ctrl(value, now, rec, bus),
            o if o == r::GDRST.offset => self.write_gdrst(value, now, rec),
            o if o == r::GUC_TLB_INV_CR.offset => {
                if value & r::INVALIDATE.mask32() != 0 {
                    let entries = self.tlb.clear();
                    rec.emit(Event::GgttTlbInvalidate { entries });
                }
            }
            o if o == r::GUC_HOST_INTERRUPT.offset => self.doorbell(now, rec, bus),
            _ => return None,
        }
        Some(())
    }

    fn write_gdrst(&mut self, value: u32, now: Duration, rec: &mut Recorder) {
        let bits = value & (r::GRDOM_GUC.mask32() | r::GRDOM_FULL.mask32());
        if bits == 0 {
            return;
        }
        let cause = if bits & r::GRDOM_FULL.mask32() != 0 {
            "grdom_full"
        } else {
            "grdom_guc"
        };
        if self.p.faults.reset_stuck || (self.p.faults.reset_stuck_after_load && self.ready(now)) {
            // The reset never completes: the bit stays set and the GuC
            // keeps its state (module docs). A fault, not a driver error: no
            // violation.
            self.gdrst = Some((bits, None));
            rec.emit(Event::GucResetStuck { cause });
            return;
        }
        self.gdrst = Some((bits, Some(now + GDRST_TIME)));
        self.reset_guc(now, cause, rec);
    }

    /// Whether START_DMA reads 1 at `now`.
    fn dma_busy(&self, now: Duration) -> bool {
        self.dma
            .is_some_and(|run| run.done_at.is_none_or(|t| now < t))
    }
}

/// `micros` of a duration, saturated.
fn micros(t: Duration) -> u64 {
    u64::try_from(t.as_micros()).unwrap_or(u64::MAX)
}

/// Index of the register at `offset` in `regs`.
fn index_in(regs: &[crate::regs::RegDef], offset: u32) -> Option<usize> {
    regs.iter().position(|d| d.offset == offset)
}

/// Index of the DMA address register at `offset` (0 = DMA_ADDR_0_LOW ..
/// 3 = DMA_ADDR_1_HIGH).
fn dma_addr_index(offset: u32) -> Option<usize> {
    [
        r::DMA_ADDR_0_LOW.offset,
        r::DMA_ADDR_0_HIGH.offset,
        r::DMA_ADDR_1_LOW.offset,
        r::DMA_ADDR_1_HIGH.offset,
    ]
    .iter()
    .position(|&o| o == offset)
}

/// A write-once register: the first write stores `value & keep | set`;
/// returns the latched value if it was already latched.
fn latch(slot: &mut Option<u32>, value: u32, keep: u32, set: u32) -> Option<u32> {
    match slot {
        Some(v) => Some(*v),
        None => {
            *slot = Some((value & keep) | set);
            None
        }
    }
}

/// Records a write to a latched write-once register if it differs.
fn note_locked(latched: Option<u32>, name: &str, value: u32, keep: u32, rec: &mut Recorder) {
    let Some(v) = latched else {
        return;
    };
    if value & keep != v & keep {
        rec.violation(
            "wopcm_locked_write",
            format!(
                "{name} written with {value:#x}, but it is locked at {v:#x} until a device \
                 reset or Driver-FLR; write ignored"
            ),
        );
    }
}

#[cfg(test)]
pub(crate) mod tests;
