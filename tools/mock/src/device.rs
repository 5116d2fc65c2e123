//! The device model: config space, BARs, register file, DMA and interrupts,
//! tied to one [`Recorder`].
//!
//! BAR0 (GTTMMADR) layout per tile (`xe_mmio.c` maps a 4 MiB register window, `xe_ggtt.c` puts the GSM at
//! `regs + SZ_8M`; seed 000 L139: MMIO and GGTT share the 16 MiB BAR):
//!
//! | Range            | Content                           | Path                                 |
//! |------------------|-----------------------------------|--------------------------------------|
//! | `[0, 4 MiB)`     | registers                         | trapped, [`RegisterFile`]            |
//! | `[4 MiB, 8 MiB)` | doorbell pages (seed 000 L1038)   | trapped; writes: the GuC's doorbells |
//! |                  |                                   | (reads 0, unknown)                   |
//! | `[8 MiB, 16 MiB)`| GGTT PTEs (GSM window)            | mmap'd memfd, not trapped            |
//!
//! BAR2 (LMEMBAR) is a memfd as a whole. Accesses to the mmap'd windows only
//! reach [`Device`] if QEMU falls back to trapping them; they are then served
//! from the same memfd.
//!
//! Bus mastering: the Command register's Bus Master Enable (bit 2) gates
//! every access to guest RAM ([`GuestMemory::set_bus_master`]); a change is
//! traced as `bus_master`, and an access refused while it is clear is a
//! `dma_without_bus_master` violation (PCI Local Bus Spec / PCIe Base Spec,
//! Command register bit 2: with it clear the function issues no memory
//! requests). Local memory (BAR2) and the GGTT window are the device's own
//! memory, not bus requests, and stay reachable.
//!
//! Register accesses are handled as dword cycles: an aligned 8-byte access
//! is two cycles (low dword first). Anything else (sub-dword, misaligned) is
//! a `mmio_unaligned` violation; such reads return the bytes of the
//! containing dwords, such writes are dropped.

use std::cell::RefCell;
use std::fs::File;
use std::io;
use std::os::fd::RawFd;
use std::sync::Arc;

use anyhow::Context;
use vfio_bindings::bindings::vfio::VFIO_IRQ_SET_ACTION_TYPE_MASK;
use vfio_bindings::bindings::vfio::VFIO_IRQ_SET_ACTION_UNMASK;
use vfio_bindings::bindings::vfio::VFIO_PCI_BAR0_REGION_INDEX;
use vfio_bindings::bindings::vfio::VFIO_PCI_BAR2_REGION_INDEX;
use vfio_bindings::bindings::vfio::VFIO_PCI_CONFIG_REGION_INDEX;
use vfio_user::DmaMapFlags;
use vfio_user::DmaUnmapFlags;

use crate::ccs::Ccs;
use crate::cli::Fault;
use crate::cli::Options;
use crate::clock::Clock;
use crate::config_space::ConfigEffect;
use crate::config_space::ConfigParams;
use crate::config_space::ConfigSpace;
use crate::control::Injector;
use crate::control::Request;
use crate::ids;
use crate::irq;
use crate::irq::IrqError;
use crate::irq::Irqs;
use crate::memory::DmaError;
use crate::memory::GuestMemory;
use crate::memory::MemFd;
use crate::recorder::Recorder;
use crate::regfile::engine;
use crate::regfile::guc;
use crate::regfile::guc::FwFile;
use crate::regfile::intc::Raised;
use crate::regfile::intc::Source;
use crate::regfile::Effect;
use crate::regfile::RegParams;
use crate::regfile::RegisterFile;
use crate::regs;
use crate::summary::Summary;
use crate::trace::Event;
use crate::trace::Hex;
use crate::trace::Mmio;
use crate::trace::Op;
use crate::trace::TraceWriter;
use crate::trace::WopcmBounds;

/// End of the trapped register window (`xe_mmio.c`: `SZ_4M` per tile).
pub const REGS_END: u64 = 4 << 20;
/// Start of the GGTT (GSM) window (`xe_ggtt.c`: `regs + SZ_8M`).
pub const GGTT_START: u64 = 8 << 20;
/// Size of the GGTT window (`xe_ggtt.c`: `gsm_size = SZ_8M`).
pub const GGTT_SIZE: u64 = 8 << 20;

/// What a register read returns under the `all-ones` fault: the value a
/// read from a device that fell off the bus completes with.
const ALL_ONES: u32 = 0xFFFF_FFFF;

/// The fault name under which a run-time surprise removal is recorded (trace
/// `fault_armed`, summary `faults`).
pub const SURPRISE_REMOVAL: &str = "surprise-removal";

/// One mock GPU function.
pub struct Device {
    opts: Options,
    rec: Recorder,
    config: ConfigSpace,
    regs: RegisterFile,
    /// Backing of the GGTT window. Sized like a full BAR0 so the window sits
    /// at file offset [`GGTT_START`], which is where QEMU maps a sparse area
    /// from (region file offset 0 + area offset); the first 8 MiB are never
    /// touched and cost nothing. `None` if BAR0 is too small for the window.
    ggtt: Option<MemFd>,
    lmem: MemFd,
    /// The flat-CCS metadata of local memory ([`crate::ccs`]).
    ccs: Ccs,
    guest: GuestMemory,
    irqs: Irqs,
    finished: bool,
    /// Set by [`Device::surprise_remove`]: from then on BAR0's registers
    /// answer like the `all-ones` fault.
    removed: bool,
    /// Paced interrupt events of the test control.
    injector: Injector,
    /// The firmware file uploads must match, loaded once.
    fw: Option<Arc<FwFile>>,
    /// The test window open now ([`Device::begin_window`]), by name.
    window: Option<String>,
    /// The command line's options, which a window's arguments start from.
    base: Options,
    /// The VFs served as functions of their own (`--vf-socket`), by VF.
    vfs: std::collections::BTreeMap<u32, guest_vf::GuestVf>,
}

impl Device {
    /// Builds the device in its reset state, opens the trace and writes the
    /// first summary.
    ///
    /// # Errors
    ///
    /// The trace file or a memfd cannot be created, or the device ID is not
    /// a DG2/ATS-M ID.
    pub fn new(opts: &Options, clock: Arc<dyn Clock>) -> anyhow::Result<Self> {
        // A foreign ID (checked by `Options`) presents as a DG2-class function.
        let family = ids::lookup(opts.device_id).map_or(ids::Family::Dg2, |k| k.family);
        let trace = match &opts.trace {
            Some(p) => {
                TraceWriter::create(p).with_context(|| format!("creating trace {}", p.display()))?
            }
            None => TraceWriter::disabled(),
        };
        let now = clock.now();
        let rec = Recorder::new(clock, trace, opts.summary.clone());
        let ggtt = (opts.bar0_size() >= GGTT_START + GGTT_SIZE)
            .then(|| MemFd::new("xehpg-mock-ggtt", GGTT_START + GGTT_SIZE))
            .transpose()
            .context("creating the GGTT memfd")?;
        // All of local memory, not only what BAR2 shows: the copy engine
        // reaches the rest (the VFs' memory). The memfd is sparse, so the
        // GiBs nobody writes cost nothing; QEMU maps only BAR2's part.
        let lmem = MemFd::new(
            "xehpg-mock-lmem",
            opts.lmem_size().max(opts.lmem_bar_size()),
        )
        .context("creating the local memory memfd")?;
        let fw = opts
            .guc_fw
            .as_deref()
            .map(FwFile::load)
            .transpose()
            .map_err(|e| anyhow::anyhow!("--guc-fw {e}"))?
            .map(Arc::new);
        let mut dev = Self {
            opts: opts.clone(),
            rec,
            config: ConfigSpace::new(&config_params(opts, family)),
            regs: RegisterFile::new(&reg_params(opts, fw.clone()), now)
                .context("building the register file")?,
            ggtt,
            lmem,
            ccs: Ccs::new(),
            guest: GuestMemory::new(),
            irqs: Irqs::new(),
            finished: false,
            removed: false,
            injector: Injector::default(),
            fw,
            window: None,
            base: opts.clone(),
            vfs: opts
                .vf_sockets
                .iter()
                .map(|&(vf, _)| {
                    let s = crate::config_space::SriovParams::ats_m(opts.device_id);
                    (
                        vf,
                        guest_vf::GuestVf::new(&s, family.class_code(), opts.revision),
                    )
                })
                .collect(),
        };
        dev.announce(family);
        // The harness depends on the summary: an unwritable path is a
        // startup error, not something to discover after the run.
        if let Some(path) = &opts.summary {
            dev.rec
                .write_summary(false)
                .with_context(|| format!("writing the summary {}", path.display()))?;
        }
        Ok(dev)
    }

    fn announce(&mut self, family: ids::Family) {
        let o = &self.opts;
        let fuses = o.fuses();
        let start = Event::Start {
            device_id: Hex(o.device_id.into()),
            family: family.name(),
            revision: Hex(o.revision.into()),
            bar0_size: Hex(o.bar0_size()),
            lmem_bar_size: Hex(o.lmem_bar_size()),
            lmem_size: Hex(o.lmem_size()),
            vf: o.vf,
            fuse_dss_g: Hex(fuses.dss_g.into()),
            fuse_dss_c: Hex(fuses.dss_c.into()),
            fuse_meml3: Hex(fuses.meml3.into()),
            fuse_media: Hex(fuses.media.into()),
            sqidi_part: fuses.sqidi.name(),
            gam_reset_slice: o.gam_reset_slice,
            fw_ack_delay_us: o.fw_ack_delay_us,
            wopcm_prelocked: o.wopcm_prelocked.map(|w| WopcmBounds {
                base: Hex(w.base.into()),
                size: Hex(w.size.into()),
            }),
            engines: self.regs.engines().present().map(|d| d.name).collect(),
            bus_master: self.guest.bus_master(),
        };
        let mut faults = o.faults.clone();
        faults.sort();
        faults.dedup();
        self.rec.emit(start);
        for f in faults {
            self.rec.emit(Event::FaultArmed { name: f.name() });
        }
    }

    /// BAR0 size in bytes.
    pub fn bar0_size(&self) -> u64 {
        self.opts.bar0_size()
    }

    /// BAR2 size in bytes.
    pub fn lmem_bar_size(&self) -> u64 {
        self.opts.lmem_bar_size()
    }

    /// Descriptor backing the GGTT window (file offset = BAR0 offset).
    pub fn ggtt_fd(&self) -> Option<RawFd> {
        self.ggtt.as_ref().map(MemFd::raw_fd)
    }

    /// Descriptor backing BAR2.
    pub fn lmem_fd(&self) -> RawFd {
        self.lmem.raw_fd()
    }

    /// The counters as they stand.
    pub fn summary(&self) -> Summary {
        self.rec.summary(self.finished)
    }

    // ---- vfio-user entry points -------------------------------------------

    /// A region read from QEMU.
    ///
    /// # Errors
    ///
    /// `EINVAL` for a region the device does not have or an access outside it.
    pub fn region_read(&mut self, region: u32, offset: u64, data: &mut [u8]) -> io::Result<()> {
        match region {
            VFIO_PCI_CONFIG_REGION_INDEX => {
                self.rec.count_config_read();
                self.config.read(offset, data).map_err(|_| einval())
            }
            VFIO_PCI_BAR0_REGION_INDEX => self.bar0_read(offset, data),
            VFIO_PCI_BAR2_REGION_INDEX => self.lmem_access(Op::Read, offset, data),
            _ => Err(einval()),
        }
    }

    /// A region write from QEMU.
    ///
    /// # Errors
    ///
    /// `EINVAL` for a region the device does not have or an access outside it.
    pub fn region_write(&mut self, region: u32, offset: u64, data: &[u8]) -> io::Result<()> {
        match region {
            VFIO_PCI_CONFIG_REGION_INDEX => self.config_write(offset, data),
            VFIO_PCI_BAR0_REGION_INDEX => self.bar0_write(offset, data),
            VFIO_PCI_BAR2_REGION_INDEX => {
                let mut buf = data.to_vec();
                self.lmem_access(Op::Write, offset, &mut buf)
            }
            _ => Err(einval()),
        }
    }

    /// DMA_MAP: guest RAM at `iova` is reachable through `fd` at `offset`.
    ///
    /// # Errors
    ///
    /// See [`GuestMemory::map`].
    pub fn dma_map(
        &mut self,
        flags: DmaMapFlags,
        offset: u64,
        iova: u64,
        size: u64,
        fd: Option<File>,
    ) -> io::Result<()> {
        let read = flags.contains(DmaMapFlags::READ);
        let write = flags.contains(DmaMapFlags::WRITE);
        let has_fd = fd.is_some();
        self.guest.map(iova, size, offset, read, write, fd)?;
        self.rec.emit(Event::DmaMap {
            iova: Hex(iova),
            size: Hex(size),
            file_offset: Hex(offset),
            read,
            write,
            fd: has_fd,
        });
        Ok(())
    }

    /// DMA_UNMAP: guest RAM in `iova..iova + size` (or all) goes away.
    pub fn dma_unmap(&mut self, flags: DmaUnmapFlags, iova: u64, size: u64) {
        let all = flags.contains(DmaUnmapFlags::UNMAP_ALL);
        let removed = if all {
            self.guest.unmap_all()
        } else {
            self.guest.unmap(iova, size)
        };
        self.rec.emit(Event::DmaUnmap {
            iova: Hex(iova),
            size: Hex(size),
            all,
            removed,
        });
    }

    /// SET_IRQS: QEMU (re)wires interrupt eventfds.
    ///
    /// # Errors
    ///
    /// See [`Irqs::set`].
    pub fn set_irqs(
        &mut self,
        index: u32,
        flags: u32,
        start: u32,
        count: u32,
        fds: Vec<File>,
    ) -> io::Result<()> {
        let nfds = fds.len();
        self.irqs.set(index, flags, start, count, fds)?;
        self.rec.emit(Event::SetIrqs {
            index,
            flags: Hex(flags.into()),
            start,
            count,
            fds: nfds,
        });
        let unmask = flags & VFIO_IRQ_SET_ACTION_TYPE_MASK == VFIO_IRQ_SET_ACTION_UNMASK;
        if index == irq::INTX_INDEX && unmask && self.regs.intc().asserted() && !self.dead() {
            // INTx is a level: still up after QEMU's end-of-interrupt, it
            // interrupts again.
            self.raise_intx();
        }
        Ok(())
    }

    /// Resets the function: registers, config space and memory return to
    /// their reset state. DMA mappings and eventfds are QEMU's wiring, not
    /// device state, and stay.
    pub fn reset(&mut self, cause: &'static str) {
        self.regs.reset(self.rec.now(), &mut self.rec);
        self.config.reset();
        self.wipe_memory();
        self.rec.emit(Event::Reset { cause });
        // The Command register is back at 0: no more bus mastering. Not a
        // host clear (`bus_master_clears` counts those only).
        self.follow_bus_master(cause);
        // The interrupt controller forgot its pending events: paced test
        // events waiting for their service would wait for ever.
        self.abandon_injections();
        self.settle_irqs();
    }

    /// Opens test window `name` with the command line's options and `args`
    /// on top ([`Options::for_window`]): the device as at power-on under those
    /// options (a new register file, local memory and GGTT wiped, no removal,
    /// no paced events), and a new record whose summary goes to
    /// [`window_summary_path`] from now on, written at once (the caller's
    /// sign that the window is open). The standard config header is left as
    /// the guest's PCI core programmed it (BARs, command register), as are
    /// QEMU's DMA mappings and eventfds: the guest enumerated the device
    /// once. The extended config space (SR-IOV) returns to its reset state
    /// ([`ConfigSpace::reset_extended`]). A window
    /// still open is closed first.
    ///
    /// `[MODEL]` Not a hardware event: the test harness's way to run several
    /// scenarios against one attach (Documentation/mock.rst, "Test windows").
    ///
    /// # Errors
    ///
    /// `name` is not a window name, `args` are refused, there is no
    /// `--summary`, the register
    /// file cannot be built, or the first window summary cannot be written.
    pub fn begin_window(&mut self, name: &str, args: &[String]) -> anyhow::Result<()> {
        check_window_name(name)?;
        let opts = &self.base.for_window(args).map_err(anyhow::Error::msg)?;
        let Some(base) = self.opts.summary.clone() else {
            anyhow::bail!("test windows need --summary (their records go beside it)");
        };
        if let Some(open) = self.window.clone() {
            self.end_window(&open)?;
        }
        let now = self.rec.now();
        let regs = RegisterFile::new(&reg_params(opts, self.fw.clone()), now)
            .context("building the register file")?;
        self.regs = regs;
        self.config.reset_extended();
        self.wipe_memory();
        self.injector = Injector::default();
        self.removed = false;
        self.rec.restart(Some(window_summary_path(&base, name)));
        self.opts = opts.clone();
        self.window = Some(name.to_string());
        let family = ids::lookup(opts.device_id).map_or(ids::Family::Dg2, |k| k.family);
        self.announce(family);
        self.settle_irqs();
        self.rec
            .write_summary(false)
            .with_context(|| format!("writing window {name}'s first summary"))
    }

    /// Closes test window `name`: the isolation checker's last run, then its
    /// final summary. Until the next window the record goes on into the
    /// `--summary` file.
    ///
    /// # Errors
    ///
    /// No window of that name is open, or its summary cannot be written.
    pub fn end_window(&mut self, name: &str) -> anyhow::Result<()> {
        if self.window.as_deref() != Some(name) {
            anyhow::bail!(
                "window-end:{name}, but the open window is {}",
                self.window.as_deref().unwrap_or("none")
            );
        }
        self.close_record("window-end");
        let written = self.rec.write_summary(true);
        self.window = None;
        self.rec.restart(self.opts.summary.clone());
        written.with_context(|| format!("writing window {name}'s summary"))
    }

    /// The card vanishes while the guest runs (a surprise removal, or a
    /// link that fell off the bus): from now on every BAR0 register read
    /// completes with all ones and every register write is dropped, exactly
    /// as under `--fault all-ones` from the start. Config space and the
    /// memory windows (GGTT, LMEMBAR) are left as they are: QEMU maps the
    /// windows straight from the memfds, so the mock cannot take them away,
    /// and the driver learns of the removal from its register reads.
    ///
    /// Recorded once as the fault `surprise-removal` (trace `fault_armed`,
    /// summary `faults` and `surprise_removals`). Returns false, and records
    /// nothing, if the device was already removed.
    pub fn surprise_remove(&mut self) -> bool {
        if self.removed {
            return false;
        }
        self.removed = true;
        self.rec.emit(Event::FaultArmed {
            name: SURPRISE_REMOVAL,
        });
        // No register write can end a service any more.
        self.abandon_injections();
        // The summary on disk shows the removal at once (a failure was
        // reported on stderr; the final summary is written at exit anyway).
        let _ = self.rec.write_summary(false);
        true
    }

    /// Whether BAR0's registers answer with all ones: the `all-ones` fault
    /// from the start, or a surprise removal since.
    fn dead(&self) -> bool {
        self.removed || self.opts.has_fault(Fault::AllOnes)
    }

    /// Carries out one test-control request ([`crate::control`]).
    pub fn control(&mut self, req: Request) {
        self.rec.emit(Event::Control {
            request: req.to_string(),
        });
        match req {
            Request::SurpriseRemoval => {
                self.surprise_remove();
            }
            Request::SpuriousMsi => {
                self.rec.emit(Event::SpuriousMsi);
                self.signal_interrupt();
            }
            Request::Irq {
                source,
                data,
                count,
            } => {
                if self.dead() {
                    // A card that is gone raises nothing.
                    self.rec.emit(Event::IrqInjectionsAbandoned {
                        source: source.name().unwrap_or("unknown"),
                        events: count,
                    });
                    return;
                }
                self.injector.push(source, data, count);
                self.pump(source);
                self.settle_irqs();
            }
            Request::GtError { sev, bits } => {
                if self.dead() {
                    return;
                }
                self.regs.raise_gt_error(sev, bits, &mut self.rec);
                self.settle_irqs();
            }
            Request::Engine { fault, engine } => {
                if self.dead() {
                    // A card that is gone runs nothing.
                    return;
                }
                self.regs.arm_engine_fault(engine, fault, &mut self.rec);
            }
            Request::LmemDirty { offset, len } => {
                // A test hook: memory, not registers, so a removed card keeps
                // it too. Out of range: said on stderr, nothing written.
                // The CCS bytes covering the range get a non-zero value
                // too, as a previous owner's compressed data would leave
                // them.
                match self
                    .lmem
                    .fill(offset, len, crate::control::LMEM_DIRTY_PATTERN)
                {
                    Ok(()) => {
                        let (first, n) = crate::ccs::covering(offset, len);
                        self.ccs
                            .fill(first, n, Some(crate::control::CCS_DIRTY_BYTE));
                    }
                    Err(e) => eprintln!("xehpg-mock: lmem:dirty: {e}"),
                }
            }
            Request::Guc(r) => self.inject(|regs, rec, bus| regs.guc_inject(r, rec, bus)),
            Request::Sriov(r) => self.inject(|regs, rec, bus| regs.sriov_inject(r, rec, bus)),
            Request::Ct(r) => self.inject(|regs, rec, bus| regs.ct_inject(r, rec, bus)),
        }
    }

    /// Carries out a GuC-side test-control request with the memory the GuC reaches, then
    /// delivers the interrupts it raised. A card that is gone does nothing.
    fn inject(
        &mut self,
        f: impl FnOnce(&mut RegisterFile, &mut Recorder, &mut dyn crate::regfile::guc::Bus),
    ) {
        if self.dead() {
            return;
        }
        self.with_bus(|regs, rec, bus| f(regs, rec, bus));
        self.settle_irqs();
    }

    /// Time passes: the GuC's CT engine does what became possible without
    /// a register access (a BUSY request's time came, the host freed G2H
    /// room for a backlog by writing its head in memory, which the mock
    /// does not see). The server calls it on a timer; register accesses do
    /// the same ([`Device::service_guc`]).
    pub fn tick(&mut self) {
        if self.finished || self.dead() {
            return;
        }
        self.service_guc();
        self.settle_irqs();
    }

    /// [`RegisterFile::service_guc`] and [`RegisterFile::service_engines`]
    /// with the device's memory: the GuC's CT engine and the command
    /// streamers (semaphore re-polls, bursts that used up their budget) do
    /// what became possible.
    fn service_guc(&mut self) {
        self.with_bus(|regs, rec, bus| {
            regs.service_guc(rec, bus);
            regs.service_engines(rec, bus);
        });
    }

    /// Runs `f` with the memory the GuC and the engines reach, then records
    /// each access it refused for want of Bus Master Enable as a
    /// `dma_without_bus_master` violation (after whatever `f` recorded of
    /// the failed access itself).
    fn with_bus<R>(
        &mut self,
        f: impl FnOnce(&mut RegisterFile, &mut Recorder, &mut DeviceBus<'_>) -> R,
    ) -> R {
        let mut bus = DeviceBus {
            ggtt: self.ggtt.as_ref(),
            lmem: &mut self.lmem,
            ccs: &mut self.ccs,
            guest: &mut self.guest,
            lmem_cfg: self.regs.lmem_cfg(),
            vfs: &mut self.vfs,
            refused: RefCell::default(),
        };
        let out = f(&mut self.regs, &mut self.rec, &mut bus);
        for e in bus.refused.into_inner() {
            self.rec.violation(e.kind(), e.to_string());
        }
        out
    }

    /// Makes guest-RAM access follow the Command register's Bus Master
    /// Enable and traces a change (`cause`: "config_write" or a reset's).
    fn follow_bus_master(&mut self, cause: &'static str) {
        let on = self.config.bus_master();
        if on != self.guest.bus_master() {
            self.guest.set_bus_master(on);
            if on {
                self.regs.bus_master_on();
            }
            self.rec.emit(Event::BusMaster { on, cause });
        }
    }

    /// Raises `src`'s paced test events until one reaches the source (and
    /// so must be serviced before the next) or none is left.
    fn pump(&mut self, src: Source) {
        while let Some(data) = self.injector.next(src) {
            match self.regs.raise_irq(src, data, &mut self.rec) {
                // Disabled: dropped and counted; nothing to wait for.
                Ok(Raised::Dropped) => {}
                Ok(Raised::Pending | Raised::Forwarded) => {
                    self.injector.delivered(src);
                    break;
                }
                // Requests name modelled sources only (`Source::from_name`).
                Err(_) => break,
            }
        }
    }

    /// After a register access or a raised event: the paced test events
    /// whose predecessor was serviced go on, and the MSIs the interrupt
    /// controller generated are sent.
    fn settle_irqs(&mut self) {
        loop {
            let serviced = self.regs.take_serviced();
            if serviced.is_empty() {
                break;
            }
            for src in serviced {
                if self.injector.serviced(src) {
                    self.pump(src);
                }
            }
        }
        for _ in 0..self.regs.take_msis() {
            self.signal_interrupt();
        }
        // The GuC's interrupts to VFs served as functions (`ct/vf.rs`).
        for vf in self.regs.take_vf_irqs() {
            self.vf_raise_msi(vf);
        }
    }

    fn abandon_injections(&mut self) {
        for (src, events) in self.injector.abandon() {
            self.rec.emit(Event::IrqInjectionsAbandoned {
                source: src.name().unwrap_or("unknown"),
                events,
            });
        }
    }

    // ---- device-side services for the units of later issues ----------------

    /// Signals the device's interrupt: MSI vector 0 while QEMU has an MSI
    /// eventfd attached (the guest enabled MSI) or has nothing at all
    /// (traced as not delivered), else INTx pin A. Returns whether it was
    /// delivered (an INTx already up and waiting for QEMU's
    /// end-of-interrupt counts as delivered: the line is a level).
    pub fn signal_interrupt(&mut self) -> bool {
        let msi = self.irqs.is_attached(irq::MSI_INDEX, 0);
        if msi || !self.irqs.is_attached(irq::INTX_INDEX, 0) {
            return self.raise_msi();
        }
        self.raise_intx()
    }

    /// Asserts INTx (pin A): the eventfd fires once and the vector masks
    /// itself until QEMU unmasks it; while masked the line is up already.
    fn raise_intx(&mut self) -> bool {
        match self.irqs.trigger(irq::INTX_INDEX, 0) {
            Ok(()) => {
                self.rec.emit(Event::Irq {
                    index: irq::INTX_INDEX,
                    vector: 0,
                });
                true
            }
            Err(IrqError::Masked { .. }) => true,
            Err(e) => {
                self.rec.emit(Event::IrqDropped {
                    index: irq::INTX_INDEX,
                    vector: 0,
                    reason: e.reason(),
                });
                false
            }
        }
    }

    /// Sends MSI vector 0 to the guest. Returns whether it was delivered;
    /// either way the attempt is traced.
    pub fn raise_msi(&mut self) -> bool {
        match self.irqs.trigger(irq::MSI_INDEX, 0) {
            Ok(()) => {
                self.rec.emit(Event::Irq {
                    index: irq::MSI_INDEX,
                    vector: 0,
                });
                true
            }
            Err(e) => {
                self.rec.emit(Event::IrqDropped {
                    index: irq::MSI_INDEX,
                    vector: 0,
                    reason: e.reason(),
                });
                false
            }
        }
    }

    /// Reads guest memory by DMA.
    ///
    /// # Errors
    ///
    /// A [`DmaError`], also recorded as a violation of its kind.
    pub fn dma_read(&mut self, addr: u64, buf: &mut [u8]) -> Result<(), DmaError> {
        let res = self.guest.read(addr, buf);
        self.note_dma(res)
    }

    /// Writes guest memory by DMA.
    ///
    /// # Errors
    ///
    /// A [`DmaError`], also recorded as a violation of its kind.
    pub fn dma_write(&mut self, addr: u64, buf: &[u8]) -> Result<(), DmaError> {
        let res = self.guest.write(addr, buf);
        self.note_dma(res)
    }

    /// Reads the GGTT (GSM) as the device sees it; `offset` is relative to
    /// the start of the GGTT window. `None` without a window or out of range.
    pub fn ggtt_read(&self, offset: u64, buf: &mut [u8]) -> Option<()> {
        self.ggtt
            .as_ref()?
            .read(GGTT_START.checked_add(offset)?, buf)
            .ok()
    }

    /// Records the final `stop` event, writes the final summary and flushes
    /// the trace. Only the first call does anything.
    pub fn finish(&mut self, reason: &str) {
        if self.finished {
            return;
        }
        self.finished = true;
        self.close_record(reason);
        // A failure was reported on stderr; nothing more can be done at exit.
        let _ = self.rec.write_summary(true);
        self.rec.flush();
    }

    // ---- internals ---------------------------------------------------------

    fn note_dma(&mut self, res: Result<(), DmaError>) -> Result<(), DmaError> {
        if let Err(e) = &res {
            self.rec.violation(e.kind(), e.to_string());
        }
        res
    }

    /// Brings the record up to now and ends it: time-driven work, the SR-IOV
    /// isolation checker's last run (leftovers included,
    /// `regfile::isolation`: what the summary's count ends with), and the
    /// stop event.
    fn close_record(&mut self, reason: &str) {
        let now = self.rec.now();
        self.regs.advance(now, &mut self.rec);
        self.with_bus(|regs, rec, bus| regs.final_isolation_check(rec, bus));
        self.rec.emit(Event::Stop {
            reason: reason.to_owned(),
        });
    }

    /// Local memory and the GGTT back to zeros, the CCS metadata back to
    /// unknown (its power-on state, [`crate::ccs`]).
    fn wipe_memory(&mut self) {
        self.ccs.forget_all();
        let results = [self.ggtt.as_ref().map(MemFd::wipe), Some(self.lmem.wipe())];
        for e in results.into_iter().flatten().filter_map(Result::err) {
            eprintln!("xehpg-mock: wiping device memory failed: {e}");
        }
    }

    fn config_write(&mut self, offset: u64, data: &[u8]) -> io::Result<()> {
        let effect = self.config.write(offset, data).map_err(|_| einval())?;
        self.rec.emit(Event::ConfigWrite {
            offset: Hex(offset),
            size: data.len(),
            value: Hex(le_value(data)),
        });
        for v in self.config.take_violations() {
            self.rec.violation(v.kind, v.detail);
        }
        self.follow_bus_master("config_write");
        if effect == ConfigEffect::FunctionLevelReset {
            self.reset("pcie_flr");
        }
        Ok(())
    }

    /// Checks that `offset..offset + len` lies in BAR0.
    fn bar0_check(&mut self, op: Op, offset: u64, len: usize) -> io::Result<()> {
        let fits = offset
            .checked_add(len as u64)
            .is_some_and(|end| end <= self.bar0_size());
        if fits {
            return Ok(());
        }
        self.rec.violation(
            "mmio_out_of_range",
            format!(
                "BAR0 {} at {offset:#x}+{len} beyond {:#x}",
                op.name(),
                self.bar0_size()
            ),
        );
        Err(einval())
    }

    fn bar0_read(&mut self, offset: u64, data: &mut [u8]) -> io::Result<()> {
        self.bar0_check(Op::Read, offset, data.len())?;
        if offset >= GGTT_START {
            return self.ggtt_access(Op::Read, offset, data);
        }
        self.reg_read(offset, data);
        Ok(())
    }

    fn bar0_write(&mut self, offset: u64, data: &[u8]) -> io::Result<()> {
        self.bar0_check(Op::Write, offset, data.len())?;
        if offset >= GGTT_START {
            let mut buf = data.to_vec();
            return self.ggtt_access(Op::Write, offset, &mut buf);
        }
        self.reg_write(offset, data);
        Ok(())
    }

    /// Whether an access is one or two whole dword cycles inside the
    /// register/reserved part of BAR0.
    fn is_dword_access(offset: u64, len: usize) -> bool {
        let whole =
            (len == 4 && offset.is_multiple_of(4)) || (len == 8 && offset.is_multiple_of(8));
        whole && offset + len as u64 <= GGTT_START
    }

    fn reg_read(&mut self, offset: u64, data: &mut [u8]) {
        let len = data.len();
        if !Self::is_dword_access(offset, len) {
            self.unaligned(Op::Read, offset, len);
        }
        // Dword cycles covering the access, clipped to the register side.
        let first = offset & !3;
        let end = (offset + len as u64).min(GGTT_START);
        let mut bytes = Vec::with_capacity(len + 8);
        let mut touched = Vec::new();
        let mut unknown = Vec::new();
        for dw in (first..end).step_by(4) {
            let v = self.reg_cycle_read(dw, &mut touched, &mut unknown);
            bytes.extend_from_slice(&v.to_le_bytes());
        }
        // A read can advance time-driven state (the GuC) that interrupts.
        if !self.dead() {
            self.service_guc();
        }
        self.settle_irqs();
        // CAST: offset - first < 4.
        let skew = (offset - first) as usize;
        bytes.resize(skew + len, 0);
        data.copy_from_slice(&bytes[skew..skew + len]);
        self.rec.emit(Event::MmioRead(Mmio {
            bar: 0,
            offset: Hex(offset),
            size: len,
            value: (len <= 8).then(|| Hex(le_value(data))),
            reg: touched,
            area: None,
            dropped: false,
        }));
        self.emit_unknown(Op::Read, &unknown);
    }

    fn reg_write(&mut self, offset: u64, data: &[u8]) {
        let len = data.len();
        let whole = Self::is_dword_access(offset, len);
        let dead = self.dead();
        let first = offset & !3;
        let end = (offset + len as u64).min(GGTT_START);
        let touched = self.touched_regs(first, end);
        self.rec.emit(Event::MmioWrite(Mmio {
            bar: 0,
            offset: Hex(offset),
            size: len,
            value: (len <= 8).then(|| Hex(le_value(data))),
            reg: touched,
            area: None,
            dropped: !whole || dead,
        }));
        if !whole {
            self.unaligned(Op::Write, offset, len);
            return;
        }
        let mut unknown = Vec::new();
        for (i, chunk) in data.chunks_exact(4).enumerate() {
            let dw = offset + 4 * i as u64;
            let v = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
            if !self.reg_cycle_write(dw, v, dead) {
                unknown.push(dw);
            }
        }
        if !dead {
            self.service_guc();
        }
        self.settle_irqs();
        self.emit_unknown(Op::Write, &unknown);
    }

    /// One dword read cycle; notes the register touched or the unknown offset.
    fn reg_cycle_read(
        &mut self,
        dw: u64,
        touched: &mut Vec<&'static str>,
        unknown: &mut Vec<u64>,
    ) -> u32 {
        let reg = self.reg_name_at(dw);
        if let Some(n) = reg {
            if touched.last() != Some(&n) {
                touched.push(n);
            }
        }
        if self.dead() {
            // A dead device answers without any register seeing the cycle;
            // the offset is still known or unknown.
            if reg.is_none() {
                unknown.push(dw);
            }
            return ALL_ONES;
        }
        let value = if dw < REGS_END {
            // CAST: dw < 4 MiB fits in u32.
            self.regs.read(dw as u32, &mut self.rec)
        } else {
            None
        };
        value.unwrap_or_else(|| {
            unknown.push(dw);
            0
        })
    }

    /// One dword write cycle; false if no register lives at `dw`.
    fn reg_cycle_write(&mut self, dw: u64, value: u32, dead: bool) -> bool {
        if dead {
            return self.reg_name_at(dw).is_some();
        }
        if (REGS_END..GGTT_START).contains(&dw) {
            // The doorbell window: every write is the GuC's doorbell
            // model's to judge (armed or not), none is unknown. CAST: below
            // 8 MiB.
            self.with_bus(|regs, rec, bus| regs.doorbell_write(dw as u32, value, rec, bus));
            return true;
        }
        if dw >= REGS_END {
            return false;
        }
        // CAST: dw < 4 MiB fits in u32.
        match self.with_bus(|regs, rec, bus| regs.write_with(dw as u32, value, rec, bus)) {
            Some(Effect::DriverFlr) => {
                self.wipe_memory();
                self.abandon_injections();
                true
            }
            Some(Effect::None) => true,
            None => false,
        }
    }

    /// The name of the register at dword `dw`: the public map's, or an
    /// engine register of a present engine (`RING_TAIL`, ...).
    fn reg_name_at(&self, dw: u64) -> Option<&'static str> {
        if let Some(r) = reg_at(dw) {
            return Some(r.name);
        }
        let (_, rel) = u32::try_from(dw)
            .ok()
            .and_then(|o| self.regs.engines().lookup(o))?;
        engine::reg_name(rel)
    }

    /// Names of the registers in the dwords `first..end`, without repeats.
    fn touched_regs(&self, first: u64, end: u64) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = Vec::new();
        for dw in (first..end).step_by(4) {
            if let Some(n) = self.reg_name_at(dw) {
                if out.last() != Some(&n) {
                    out.push(n);
                }
            }
        }
        out
    }

    fn emit_unknown(&mut self, op: Op, offsets: &[u64]) {
        for &dw in offsets {
            self.rec.emit(Event::UnknownAccess {
                op,
                bar: 0,
                offset: Hex(dw),
            });
        }
    }

    fn unaligned(&mut self, op: Op, offset: u64, len: usize) {
        self.rec.violation(
            "mmio_unaligned",
            format!(
                "BAR0 {} of {len} bytes at {offset:#x}: registers take aligned 4- or 8-byte accesses",
                op.name()
            ),
        );
    }

    /// A trapped access to the GGTT window: plain memory.
    fn ggtt_access(&mut self, op: Op, offset: u64, data: &mut [u8]) -> io::Result<()> {
        let Some(ggtt) = self.ggtt.as_mut() else {
            // BAR0 smaller than 16 MiB never reaches here (bar0_check).
            return Err(einval());
        };
        let res = match op {
            Op::Read => ggtt.read(offset, data),
            Op::Write => ggtt.write(offset, data),
        };
        res.map_err(|_| einval())?;
        self.trace_window(op, 0, offset, data, "ggtt");
        Ok(())
    }

    /// A trapped access to BAR2: plain memory.
    fn lmem_access(&mut self, op: Op, offset: u64, data: &mut [u8]) -> io::Result<()> {
        // BAR2 shows the first `lmem_bar_size` bytes of local memory.
        let in_bar = offset
            .checked_add(data.len() as u64)
            .is_some_and(|end| end <= self.lmem_bar_size());
        let res = match op {
            _ if !in_bar => Err(()),
            Op::Read => self.lmem.read(offset, data).map_err(drop),
            Op::Write => self.lmem.write(offset, data).map_err(drop),
        };
        if res.is_err() {
            self.rec.violation(
                "mmio_out_of_range",
                format!(
                    "BAR2 {} at {offset:#x}+{} beyond {:#x}",
                    op.name(),
                    data.len(),
                    self.lmem_bar_size()
                ),
            );
            return Err(einval());
        }
        self.trace_window(op, 2, offset, data, "lmem");
        Ok(())
    }

    fn trace_window(&mut self, op: Op, bar: u32, offset: u64, data: &[u8], area: &'static str) {
        let m = Mmio {
            bar,
            offset: Hex(offset),
            size: data.len(),
            value: (data.len() <= 8).then(|| Hex(le_value(data))),
            reg: Vec::new(),
            area: Some(area),
            dropped: false,
        };
        self.rec.emit(match op {
            Op::Read => Event::MmioRead(m),
            Op::Write => Event::MmioWrite(m),
        });
    }
}

/// The memory the GuC reaches: the GGTT window's PTEs, LMEMBAR for local
/// memory and guest RAM through the DMA map.
struct DeviceBus<'a> {
    ggtt: Option<&'a MemFd>,
    lmem: &'a mut MemFd,
    /// Local memory's CCS metadata.
    ccs: &'a mut Ccs,
    guest: &'a mut GuestMemory,
    /// `LMEM_CFG`, the LMTT root a VF's local-memory page goes through.
    lmem_cfg: u32,
    /// The VFs served as functions of their own: their VMs' memory.
    vfs: &'a mut std::collections::BTreeMap<u32, guest_vf::GuestVf>,
    /// Guest-RAM accesses refused because Bus Master Enable is clear, for
    /// [`Device::with_bus`] to record.
    refused: RefCell<Vec<DmaError>>,
}

impl DeviceBus<'_> {
    /// The text of a guest-RAM access failure for the GuC model; a refusal
    /// for want of bus mastering is also kept to be recorded.
    fn sys_error(&self, e: DmaError) -> String {
        let text = e.to_string();
        if matches!(e, DmaError::NoBusMaster { .. }) {
            self.refused.borrow_mut().push(e);
        }
        text
    }
}

impl DeviceBus<'_> {
    /// VF `vf`'s VM's memory, if the VF is served as a function.
    fn vf_guest(&self, vf: u32) -> Result<&GuestMemory, String> {
        self.vfs
            .get(&vf)
            .map(guest_vf::GuestVf::memory)
            .ok_or_else(|| format!("VF {vf} has no VM attached (no --vf-socket)"))
    }

    fn vf_guest_mut(&mut self, vf: u32) -> Result<&mut GuestMemory, String> {
        self.vfs
            .get_mut(&vf)
            .map(guest_vf::GuestVf::memory_mut)
            .ok_or_else(|| format!("VF {vf} has no VM attached (no --vf-socket)"))
    }
}

fn vf_sys_error(vf: u32, e: &DmaError) -> String {
    format!("VF {vf}'s memory: {e}")
}

impl guc::Bus for DeviceBus<'_> {
    fn lmem_cfg(&self) -> u32 {
        self.lmem_cfg
    }

    fn pte(&self, index: u64) -> Option<u64> {
        if index >= GGTT_SIZE / 8 {
            return None;
        }
        let mut b = [0u8; 8];
        self.ggtt?.read(GGTT_START + 8 * index, &mut b).ok()?;
        Some(u64::from_le_bytes(b))
    }

    fn ptes(&self, first: u64, out: &mut [u64]) -> bool {
        let n = out.len() as u64;
        if first.checked_add(n).is_none_or(|end| end > GGTT_SIZE / 8) {
            return false;
        }
        let mut b = vec![0u8; out.len() * 8];
        let Some(ggtt) = self.ggtt else {
            return false;
        };
        if ggtt.read(GGTT_START + 8 * first, &mut b).is_err() {
            return false;
        }
        for (slot, c) in out.iter_mut().zip(b.chunks_exact(8)) {
            *slot = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        }
        true
    }

    fn read(&self, target: guc::Target, addr: u64, buf: &mut [u8]) -> Result<(), String> {
        match target {
            guc::Target::Lmem => self.lmem.read(addr, buf).map_err(|e| lmem_error(&e)),
            guc::Target::Sys => self.guest.read(addr, buf).map_err(|e| self.sys_error(e)),
            guc::Target::VfSys(vf) => self
                .vf_guest(vf)?
                .read(addr, buf)
                .map_err(|e| vf_sys_error(vf, &e)),
        }
    }

    fn write(&mut self, target: guc::Target, addr: u64, buf: &[u8]) -> Result<(), String> {
        match target {
            guc::Target::Lmem => self.lmem.write(addr, buf).map_err(|e| lmem_error(&e)),
            guc::Target::Sys => {
                let res = self.guest.write(addr, buf);
                res.map_err(|e| self.sys_error(e))
            }
            guc::Target::VfSys(vf) => self
                .vf_guest_mut(vf)?
                .write(addr, buf)
                .map_err(|e| vf_sys_error(vf, &e)),
        }
    }

    fn probe(&self, target: guc::Target, addr: u64, len: u64) -> Result<(), String> {
        match target {
            guc::Target::Lmem => {
                let fits = addr.checked_add(len).is_some_and(|e| e <= self.lmem.len());
                if fits {
                    Ok(())
                } else {
                    Err(format!(
                        "beyond the {:#x} bytes of local memory",
                        self.lmem.len()
                    ))
                }
            }
            guc::Target::Sys => {
                let len = usize::try_from(len).map_err(|_| "range too large".to_owned())?;
                self.guest
                    .probe(addr, len, false)
                    .map_err(|e| self.sys_error(e))
            }
            guc::Target::VfSys(vf) => {
                let len = usize::try_from(len).map_err(|_| "range too large".to_owned())?;
                self.vf_guest(vf)?
                    .probe(addr, len, false)
                    .map_err(|e| vf_sys_error(vf, &e))
            }
        }
    }

    fn fill(&mut self, target: guc::Target, addr: u64, len: u64, value: u32) -> Result<(), String> {
        match target {
            guc::Target::VfSys(_) => {
                guc::ggtt::fill_by_writes(|a, b| self.write(target, a, b), addr, len, value)
            }
            // A zero fill frees the pages (`MemFd::fill`).
            guc::Target::Lmem => self.lmem.fill(addr, len, value).map_err(|e| lmem_error(&e)),
            guc::Target::Sys => {
                // Checked whole first, so a fault writes nothing.
                let n = usize::try_from(len).map_err(|_| "range too large".to_owned())?;
                let probed = self.guest.probe(addr, n, true);
                probed.map_err(|e| self.sys_error(e))?;
                guc::ggtt::fill_by_writes(|a, b| self.write(target, a, b), addr, len, value)
            }
        }
    }

    fn lmem_first_nonzero(&self, addr: u64, len: u64) -> Result<Option<u64>, String> {
        self.lmem
            .first_nonzero(addr, len)
            .map_err(|e| lmem_error(&e))
    }

    fn ccs(&self) -> Option<&Ccs> {
        Some(self.ccs)
    }

    fn ccs_mut(&mut self) -> Option<&mut Ccs> {
        Some(self.ccs)
    }
}

fn lmem_error(e: &crate::memory::OutOfBounds) -> String {
    format!("beyond local memory: {e}")
}

/// The register at dword `dw`, if any.
fn reg_at(dw: u64) -> Option<&'static regs::RegDef> {
    u32::try_from(dw).ok().and_then(regs::lookup)
}

/// Little-endian value of up to the first 8 bytes.
fn le_value(data: &[u8]) -> u64 {
    data.iter()
        .take(8)
        .enumerate()
        .fold(0, |v, (i, &b)| v | u64::from(b) << (8 * i))
}

fn einval() -> io::Error {
    io::Error::from_raw_os_error(libc::EINVAL)
}

/// Where test window `name`'s summary goes: `window-NAME.json` in the
/// directory of the `--summary` file.
pub fn window_summary_path(summary: &std::path::Path, name: &str) -> std::path::PathBuf {
    summary
        .parent()
        .unwrap_or(std::path::Path::new("."))
        .join(format!("window-{name}.json"))
}

/// A window name is a file-name part: ASCII letters, digits, `-` and `_`,
/// 1 to 64 of them.
fn check_window_name(name: &str) -> anyhow::Result<()> {
    let ok = (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if !ok {
        anyhow::bail!("{name:?} is not a window name (letters, digits, - and _, at most 64)");
    }
    Ok(())
}

fn config_params(o: &Options, family: ids::Family) -> ConfigParams {
    ConfigParams {
        vendor_id: ids::VENDOR_INTEL,
        device_id: o.device_id,
        revision: o.revision,
        class_code: family.class_code(),
        subsystem_vendor_id: o.subsystem_vendor_id,
        subsystem_id: o.subsystem_id(),
        bar0_size: o.bar0_size(),
        bar2_size: o.lmem_bar_size(),
        msi: !o.no_msi,
        // SR-IOV is an ATS-M feature (`has_sriov` only in `ats_m_desc`,
        // upstream `xe_pci.c`); a VF (`--vf`) has no SR-IOV capability.
        sriov: (family == ids::Family::AtsM && !o.vf)
            .then(|| crate::config_space::SriovParams::ats_m(o.device_id)),
    }
}

fn reg_params(o: &Options, fw: Option<Arc<FwFile>>) -> RegParams {
    RegParams {
        lmem_size: o.lmem_size(),
        vf: o.vf,
        lmem_init_delay: std::time::Duration::from_millis(o.lmem_init_delay_ms),
        pcode_init_delay: std::time::Duration::from_millis(o.pcode_init_delay_ms),
        pcode_busy: std::time::Duration::from_millis(o.pcode_busy_ms),
        lmem_never_init: o.has_fault(Fault::LmemNeverInit),
        pcode_never_init: o.has_fault(Fault::PcodeNeverInit),
        pcode_stuck: o.has_fault(Fault::PcodeStuck),
        pcode_init_error: o.has_fault(Fault::PcodeInitError),
        fw_ack_delay: std::time::Duration::from_micros(o.fw_ack_delay_us),
        fw_ack_never: o.fw_ack_never(),
        fw_ack_dead: o.fw_ack_dead(),
        fuses: o.fuses(),
        gam_reset_slice: o.gam_reset_slice,
        guc: guc::GucParams {
            device_id: o.device_id,
            revision: o.revision,
            boot_time: std::time::Duration::from_millis(o.guc_boot_ms),
            fw,
            wopcm_prelocked: o.wopcm_prelocked,
            faults: guc::GucFaults {
                dma_never_completes: o.has_fault(Fault::GucDmaNeverCompletes),
                boot_stall: o.has_fault(Fault::GucBootStall),
                boot_error: o.has_fault(Fault::GucBootError),
                rsa_reject: o.has_fault(Fault::GucRsaReject),
                mmio_no_reply: o.has_fault(Fault::GucMmioNoReply),
                mmio_busy: o.has_fault(Fault::GucMmioBusy),
                mmio_retry: o.has_fault(Fault::GucMmioRetry),
                hwconfig_corrupt: o.has_fault(Fault::GucHwconfigCorrupt),
                reset_stuck_after_load: o.has_fault(Fault::GucResetStuckAfterLoad),
                reset_stuck: o.has_fault(Fault::GucResetStuck),
                wopcm_no_latch: o.has_fault(Fault::GucWopcmNoLatch),
                mmio_bogus_reply: o.has_fault(Fault::GucMmioBogusReply),
                ct_enable_refused: o.has_fault(Fault::CtEnableRefused),
                ct_self_cfg_unknown: o.has_fault(Fault::CtSelfCfgUnknown),
                ct_no_response: o.has_fault(Fault::CtNoResponse),
            },
            hwconfig_size_reply: o.guc_hwconfig_size_reply,
        },
        intc: o.intc_faults(),
        irq_on_guc_reset: o.has_fault(Fault::IrqOnGucReset),
    }
}

mod guest_vf;

#[cfg(test)]
mod tests;
