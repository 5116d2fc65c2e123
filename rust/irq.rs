// SPDX-License-Identifier: GPL-2.0

//! The tiled interrupt handler: one MSI (or a shared INTx line), the tile / primary / GT DW /
//! identity hierarchy of seed 000's interrupt chapter, and dispatch to the sources.
//!
//! # The flow (`Documentation/interrupts.rst` draws it)
//!
//! The top half ([`Handler::handle`], hard-interrupt context) follows the PRM's ISR pseudocode
//! (seed 000 L2336-2395):
//!
//! 1. write 0 to `DG1_MSTR_TILE_INTR` (disable, L2338), read it, write the tile bits back to
//!    clear them (RW1C, L2341); no tile bit means the interrupt is not ours (`IRQ_NONE`, which
//!    is what a shared INTx line needs);
//! 2. per tile: read `GFX_MSTR_IRQ` and write the value back (L2344-2345);
//! 3. per GT DW bank with its bit set: read `GT_INTR_DW`, then per set bit select it in
//!    `IIR_REG_SELECTOR` (one-hot), poll `INTR_IDENTITY_REG` for DataValid, write the value
//!    back (L2348-2367); after every bit of the bank, write the DW value back (L2355, L2372);
//! 4. the GT error bits of the primary register: read, log and clear the error status;
//! 5. write `DG1_MSTR_IRQ` to re-enable (L2393): anything that arrived meanwhile raises a new
//!    interrupt (L2389, L2395).
//!
//! Identities are dispatched after their bank is cleared, by (class, instance) to the source
//! table ([`source`]), counted per source and per vector bit. What needs the log or may sleep
//! (messages about bad identities, storms, GT errors, CS errors, and later the CT's G2H
//! processing) goes to the threaded half ([`Handler::handle_threaded`]).
//!
//! # Where the PRM and upstream differ
//!
//! - Clearing the identity: the PRM's text says "writing 1 to the Data-Valid bit" (L2231), its
//!   pseudocode "with same bits set" (L2353); upstream writes back the value it read
//!   (`xe_irq.c`, `gt_engine_identity`). Writing back the value read satisfies both: it has
//!   DataValid and the same data bits.
//! - A DataValid that never comes: upstream gives up after ~100 µs and leaves the selection in
//!   place; this driver also writes DataValid, which the PRM defines as the end of service that
//!   clears the selector (L2231), so the next selection starts clean.
//! - All ones in the primary register: upstream treats it as PCIe DPC containment and returns
//!   `IRQ_HANDLED` (`dg1_irq_handler`); here any all-ones read in the top half means the device
//!   is gone: it is counted, reported once, the tile enable is left off, and `IRQ_NONE` lets the
//!   kernel's spurious-interrupt detector disable a line that keeps firing.
//!
//! # Power
//!
//! Every register here is outside the PRM's forcewake table (seed 000 lines 455-704 have no
//! row in 0x040000-0x1BFFFF), so the top half takes no forcewake; the accessors
//! ([`Gt::read_aon`] and friends) prove that at build time.
//!
//! # Context and locking
//!
//! [`IrqState::ctl`] is an interrupt-disabling spinlock, held by the top half for the whole
//! service (as xe's `irq.lock`) and by process context (install, re-arm from debugfs,
//! quiesce), so masks are never written concurrently and the cached values stay true. The top
//! half never sleeps: the DataValid poll is an atomic poll of at most ~100 µs. Counters are
//! atomics read by debugfs without the lock.

mod regs;
mod storm;

use kernel::{
    bits::bit_u32,
    device::Bound,
    fmt,
    io::poll::read_poll_timeout_atomic,
    irq::{Flags, IrqRequest, IrqReturn, ThreadedHandler, ThreadedIrqReturn, ThreadedRegistration},
    new_spinlock_irq, pci,
    prelude::*,
    sync::{
        atomic::{Atomic, Relaxed},
        Arc, SpinLockIrq,
    },
    time::{Delta, Instant, Monotonic},
};

use crate::{
    compat,
    engine::{
        source::{self, EnableReg, Identity, MaskReg, COUNT, SOURCES},
        Mode, Plan, Present,
    },
    gt::{Gt, GtState},
    guc::{Channel, RX_BUDGET},
    mmio::Gttmmadr,
    regs::ALL_ONES,
};
use regs::*;
use storm::Meter;

/// Tiles of a DG2 or ATS-M: one (`xe_pci.c`, neither descriptor has remote tiles). A part with
/// more would give each tile's registers their own view in [`Handler::tile_view`].
const TILE_COUNT: u32 = 1;
/// `DG1_MSTR_TILE(t)` bits of the tile register (bits 3:0).
const TILE_BITS: u32 = 0xf;
/// `GT_DW_IRQ(x)` bits of the primary register.
const BANKS: usize = 2;
/// `ERROR_IRQ(x)` bits 28:26 of the primary register.
const ERROR_SHIFT: u32 = 26;
/// Bit 31 of an identity.
const DATA_VALID: u32 = 1 << 31;
/// DataValid poll: upstream spins ~100 µs ("Specs do not specify how long to spin wait",
/// `xe_irq.c`); the same budget, in 1 µs steps.
const DATA_VALID_STEP: Delta = Delta::from_micros(1);
const DATA_VALID_TRIES: usize = 100;
/// Severity names, indexed like `ERROR_IRQ(x)` and `ERR_STAT_GT_REG(x)`.
const SEVERITY: [&str; 3] = ["correctable", "nonfatal", "fatal"];

/// How the interrupt reaches the CPU.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Vector {
    Msi,
    Intx,
}

kernel::impl_flags!(
    /// What the top half left for the threaded half ([`Reports::pending`] holds its bits).
    #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
    struct Pending(u32);

    /// One thing the top half leaves for the threaded half: a report to print, or work.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Work {
        /// An identity whose DataValid never came.
        DataValid = bit_u32(0),
        /// An identity naming no source of this device.
        Unknown = bit_u32(1),
        /// A source masked for a storm.
        Storm = bit_u32(2),
        /// A GT error.
        GtError = bit_u32(3),
        /// The device reads all ones.
        Gone = bit_u32(4),
        /// A command streamer error.
        CsError = bit_u32(5),
        /// A tile this part does not have.
        Tile = bit_u32(6),
        /// Not a report: the GuC wrote G2H messages, for the thread to read.
        G2h = bit_u32(7),
        /// Not a report: engines have completions or context switches for the submission block.
        Engines = bit_u32(8),
    }
);

impl Pending {
    const ALL: [Work; 9] = [
        Work::DataValid,
        Work::Unknown,
        Work::Storm,
        Work::GtError,
        Work::Gone,
        Work::CsError,
        Work::Tile,
        Work::G2h,
        Work::Engines,
    ];

    /// The set of the bits of `raw`, as [`Reports::pending`] held them (`impl_flags!` makes no
    /// set from an integer); unknown bits are dropped.
    fn from_bits(raw: u32) -> Self {
        Self::ALL
            .iter()
            .filter(|w| raw & **w as u32 != 0)
            .fold(Self::empty(), |set, w| set | *w)
    }
}
/// The engine vectors submission handles.
const ENGINE_EVENTS: u16 = source::USER_INTERRUPT | source::CONTEXT_SWITCH | source::CS_ERROR;

/// Where engine interrupts go: the submission block, above this one, implements it.
pub(crate) trait EngineSink: Send + Sync {
    /// Threaded (process) context: source `i` ([`SOURCES`] index) raised `vectors` since the
    /// last call (several interrupts may be merged).
    fn engine_interrupt(&self, i: usize, vectors: u16);
}
/// Full receive passes one thread run makes at most (the rest waits for the next interrupt or
/// a waiter's poll).
const G2H_PASSES: usize = 64;

/// The details of the last event of each kind, for the threaded half's message. Several
/// events before the thread runs give one message with the last details and the total count:
/// that is the rate limit.
struct Reports {
    pending: Atomic<u32>,
    /// Bank << 8 | bit, and the identity read, of the last DataValid timeout.
    dv_where: Atomic<u32>,
    dv_value: Atomic<u32>,
    unknown: Atomic<u32>,
    /// Sources masked for a storm and not yet reported.
    stormed_new: Atomic<u32>,
    /// Engine vectors per source not yet handed to the submission block.
    engine_vectors: [Atomic<u32>; COUNT],
    /// Severity and status of the last GT error.
    error_sev: Atomic<u32>,
    error_bits: Atomic<u32>,
    /// Source and identity of the last CS error.
    cs_source: Atomic<u32>,
    cs_vector: Atomic<u32>,
    tile: Atomic<u32>,
    /// The device-gone message was printed.
    gone_told: Atomic<bool>,
}

/// Counters, written by the top half and read by debugfs.
struct Stats {
    /// Top-half entries that found work.
    interrupts: Atomic<u64>,
    /// Entries with nothing pending (`IRQ_NONE`).
    spurious: Atomic<u64>,
    /// Entries before install or after quiesce (`IRQ_NONE`, no MMIO).
    disarmed: Atomic<u64>,
    /// Entries that read all ones.
    device_gone: Atomic<u64>,
    thread_runs: Atomic<u64>,
    tiles: Atomic<u64>,
    /// Tile bits for tiles this part does not have.
    tile_unexpected: Atomic<u64>,
    banks: [Atomic<u64>; BANKS],
    data_valid_timeouts: Atomic<u64>,
    unknown_identities: Atomic<u64>,
    storms: Atomic<u64>,
    errors: [Atomic<u64>; 3],
    per_source: [Atomic<u64>; COUNT],
    per_bit: [[Atomic<u32>; 16]; COUNT],
}

/// State the top half and process context share under [`IrqState::ctl`].
struct Ctl {
    /// Set by install, cleared by quiesce: the top half touches no register while clear.
    armed: bool,
    plan: Plan,
    /// Sources masked for a storm, a bit per [`SOURCES`] index.
    stormed: u32,
    meters: [Meter; COUNT],
    storm_limit: u32,
}

/// The interrupt state of one device, shared by the handler and debugfs.
#[pin_data]
pub(crate) struct IrqState {
    /// The top half's lock (hard IRQ) and process context's with interrupts off; the
    /// innermost lock: only always-on registers under it (Documentation/architecture.rst, "Locks").
    #[pin]
    ctl: SpinLockIrq<Ctl>,
    stats: Stats,
    reports: Reports,
    vector: Vector,
    irq: u32,
    present: Present,
    epoch: Instant<Monotonic>,
}

impl IrqState {
    fn new(vector: Vector, irq: u32, present: Present, plan: Plan) -> impl PinInit<Self> {
        pin_init!(Self {
            ctl <- new_spinlock_irq!(Ctl {
                armed: false,
                plan,
                stormed: 0,
                meters: [Meter::default(); COUNT],
                storm_limit: storm::DEFAULT_LIMIT,
            }),
            stats: Stats {
                interrupts: Atomic::new(0),
                spurious: Atomic::new(0),
                disarmed: Atomic::new(0),
                device_gone: Atomic::new(0),
                thread_runs: Atomic::new(0),
                tiles: Atomic::new(0),
                tile_unexpected: Atomic::new(0),
                banks: [const { Atomic::new(0) }; BANKS],
                data_valid_timeouts: Atomic::new(0),
                unknown_identities: Atomic::new(0),
                storms: Atomic::new(0),
                errors: [const { Atomic::new(0) }; 3],
                per_source: [const { Atomic::new(0) }; COUNT],
                per_bit: [const { [const { Atomic::new(0) }; 16] }; COUNT],
            },
            reports: Reports {
                pending: Atomic::new(0),
                dv_where: Atomic::new(0),
                dv_value: Atomic::new(0),
                unknown: Atomic::new(0),
                stormed_new: Atomic::new(0),
                engine_vectors: [const { Atomic::new(0) }; COUNT],
                error_sev: Atomic::new(0),
                error_bits: Atomic::new(0),
                cs_source: Atomic::new(0),
                cs_vector: Atomic::new(0),
                tile: Atomic::new(0),
                gone_told: Atomic::new(false),
            },
            vector,
            irq,
            present,
            epoch: Instant::now(),
        })
    }

    /// Leaves `what` for the threaded half. Any context (lock-free).
    fn report(&self, what: Work) {
        set_bits(&self.reports.pending, Pending::from(what).into());
    }

    /// Nanoseconds since the state was made, for the storm windows.
    fn now_ns(&self) -> i64 {
        (Instant::<Monotonic>::now() - self.epoch).as_nanos()
    }

    /// Count of identities from source `name` (debugfs and tests).
    fn source_count(&self, i: usize) -> u64 {
        self.stats.per_source.get(i).map_or(0, |c| c.load(Relaxed))
    }
}

/// The registered handler and the vector it owns, alive while the device is bound.
///
/// Dropping it stops the device interrupting first (`PinnedDrop`: disarm, then wait for a
/// handler running on another CPU), then the fields drop in declaration order: the handler is
/// freed (`free_irq` waits for a running handler) before the vector is given back. The device
/// state drops it after the GuC (whose last messages arrive through it) and before the blocks
/// the handler reads, on unbind and on a failed probe alike.
#[pin_data(PinnedDrop)]
pub(crate) struct Irq<'bound> {
    #[pin]
    reg: ThreadedRegistration<'bound, Handler<'bound>>,
    vectors: pci::IrqVectorRegistration<'bound>,
    state: Arc<IrqState>,
}

impl<'bound> Irq<'bound> {
    /// Resets the interrupt registers, allocates one MSI (INTx when the function has no MSI) and
    /// registers the handler, disarmed: nothing is enabled until [`Irq::arm`]. Process context.
    ///
    /// # Errors
    ///
    /// Vector allocation or `request_irq` failures, or `EINVAL` if `bar` is not `pdev`'s.
    pub(crate) fn new(
        pdev: &'bound pci::Device<Bound>,
        bar: Arc<Gttmmadr>,
        gt: Arc<GtState>,
        ct: Arc<Channel>,
        engines: Arc<dyn EngineSink>,
        present: Present,
    ) -> impl PinInit<Self, Error> + 'bound {
        pin_init::pin_init_scope(move || {
            {
                let view = gt.view(pdev.as_ref(), bar.access(pdev)?);
                reset(&view);
            }
            let types = pci::IrqTypes::default()
                .with(pci::IrqType::Msi)
                .with(pci::IrqType::Intx);
            let vectors = pdev.alloc_irq_vectors(1, 1, types).inspect_err(|e| {
                dev_err!(pdev, "irq: allocating a vector failed: {}\n", e.to_errno())
            })?;
            let (vector, flags) = match vectors.irq_type() {
                pci::IrqType::Intx => (Vector::Intx, Flags::SHARED),
                _ => (Vector::Msi, Flags::TRIGGER_NONE),
            };
            let request: IrqRequest<'_> = vectors.index(0)?.into();
            let irq = request.irq();
            // SAFETY: the vector allocation is `vectors`, moved into this struct below and
            // given back only when its field drops, after `reg` (declaration order), and on
            // an initialisation failure `reg` is the last field initialised, so it is never
            // registered without `vectors` in place.
            let request: IrqRequest<'bound> = unsafe { compat::irq::for_bound(request) };
            let off = Plan::off(Mode::Execlist);
            let state = Arc::pin_init(IrqState::new(vector, irq, present, off), GFP_KERNEL)?;
            let handler_state = state.clone();
            let handler = try_init!(Handler {
                pdev,
                bar,
                gt,
                ct,
                engines,
                state: handler_state,
            }? Error);
            Ok(try_pin_init!(Self {
                vectors,
                state,
                // SAFETY: the registration is a field of a pinned struct whose drop runs
                // (`Xehpg` is dropped by the driver core, never forgotten).
                reg <- unsafe { ThreadedRegistration::new(request, flags, c"xehpg", handler) },
            }))
        })
    }

    /// Post-install: arms the sources `plan` enables, then the tile enable last (`xe_irq.c`,
    /// `xe_irq_postinstall`). Probe calls it once the GuC's state, and so the mode, is known.
    /// Process context.
    pub(crate) fn arm(&self, plan: Plan) {
        self.reg.handler().arm(plan);
    }

    /// The shared state, for debugfs and the GT reset.
    pub(crate) fn state(&self) -> Arc<IrqState> {
        self.state.clone()
    }
}

#[pinned_drop]
impl PinnedDrop for Irq<'_> {
    /// Stops the device interrupting (every source disabled and masked, the tile enable off,
    /// the same reset as install) and waits for a handler still running on another CPU, before
    /// `reg` frees the handler. A later interrupt, from a shared line or one already in flight,
    /// finds the state disarmed and touches no register. Process context (unbind or a failed
    /// probe).
    fn drop(self: Pin<&mut Self>) {
        self.reg.handler().disarm();
        self.reg.synchronize();
    }
}

impl IrqState {
    /// GT reset, after `GDRST.GRDOM_FULL`: writes the armed plan's enables and masks again,
    /// then the tile enable, as [`Irq::arm`] did. Upstream keeps the GT's interrupt enables
    /// across the reset and only re-enables the GuC's (`xe_guc.c` `guc_enable_irq`, from
    /// `xe_guc_enable_communication`); writing all of them again is what a part that lost them
    /// needs and costs a reset-rare handful of writes. Nothing if disarmed (unbind). Process
    /// context; takes the control lock with interrupts off.
    pub(crate) fn rearm(&self, gt: &Gt<'_>) {
        let ctl = self.ctl.lock();
        if !ctl.armed {
            return;
        }
        program(gt, &ctl.plan, ctl.stormed);
        gt.write_aon(DG1_MSTR_TILE_INTR::zeroed().with_dg1_mstr_irq(true));
        let _ = gt.read_aon::<DG1_MSTR_TILE_INTR>();
    }
}

/// The handler: the device, its BAR and GT state, and the interrupt state.
pub(crate) struct Handler<'bound> {
    pdev: &'bound pci::Device<Bound>,
    bar: Arc<Gttmmadr>,
    gt: Arc<GtState>,
    /// The GuC's CT channel, whose G2H messages the thread reads.
    ct: Arc<Channel>,
    /// Submission, which the thread hands engine completions to.
    engines: Arc<dyn EngineSink>,
    state: Arc<IrqState>,
}

/// Result of servicing one tile.
enum TileOutcome {
    Serviced,
    Gone,
}

impl Handler<'_> {
    /// A GT view of tile `t`'s registers. These parts have only tile 0, whose registers are the
    /// root view.
    fn tile_view<'a>(&self, root: &Gt<'a>, t: u32) -> Option<Gt<'a>> {
        (t < TILE_COUNT).then_some(*root)
    }

    /// Programs `plan`'s enables and masks, then enables the tile register last (top level
    /// last, with a posting read, as `xe_irq_postinstall`).
    fn arm(&self, plan: Plan) {
        let Ok(bar) = self.bar.access(self.pdev) else {
            return;
        };
        let gt = self.gt.view(self.pdev.as_ref(), bar);
        let mut ctl = self.state.ctl.lock();
        ctl.plan = plan;
        program(&gt, &ctl.plan, ctl.stormed);
        ctl.armed = true;
        gt.write_aon(DG1_MSTR_TILE_INTR::zeroed().with_dg1_mstr_irq(true));
        let _ = gt.read_aon::<DG1_MSTR_TILE_INTR>();
    }

    /// Quiesce: disarms and resets the registers under the lock, so a top half is either done
    /// or sees `armed` clear.
    fn disarm(&self) {
        let mut ctl = self.state.ctl.lock();
        ctl.armed = false;
        if let Ok(bar) = self.bar.access(self.pdev) {
            reset(&self.gt.view(self.pdev.as_ref(), bar));
        }
    }

    /// Marks the device gone: counted, and the thread woken once to say so. Later entries
    /// answer `IRQ_NONE`, which lets the spurious-interrupt detector silence a dead line that
    /// keeps firing. The tile enable stays off.
    fn gone(&self) -> ThreadedIrqReturn {
        self.state.stats.device_gone.add(1, Relaxed);
        if self.state.reports.gone_told.load(Relaxed) {
            return ThreadedIrqReturn::None;
        }
        self.state.report(Work::Gone);
        ThreadedIrqReturn::WakeThread
    }

    /// Steps 2-4 of the flow for one tile, under the lock.
    fn service_tile(&self, gt: &Gt<'_>, ctl: &mut Ctl) -> TileOutcome {
        let primary = gt.read_aon::<GFX_MSTR_IRQ>().into_raw();
        if primary == ALL_ONES {
            return TileOutcome::Gone;
        }
        gt.write_aon(GFX_MSTR_IRQ::from_raw(primary));
        self.state.stats.tiles.add(1, Relaxed);
        for bank in 0..BANKS {
            if primary & (1 << bank) == 0 {
                continue;
            }
            if let TileOutcome::Gone = self.service_bank(gt, ctl, bank) {
                return TileOutcome::Gone;
            }
        }
        let errors = (primary >> ERROR_SHIFT) & 0x7;
        for sev in 0..3 {
            if errors & (1 << sev) != 0 {
                self.service_error(gt, sev);
            }
        }
        TileOutcome::Serviced
    }

    /// Step 3 for one bank: every identity, then the DW clear, then dispatch.
    fn service_bank(&self, gt: &Gt<'_>, ctl: &mut Ctl, bank: usize) -> TileOutcome {
        let Ok(dw) = gt.read_aon_at::<GT_INTR_DW>(bank).map(|r| r.into_raw()) else {
            return TileOutcome::Serviced;
        };
        if dw == ALL_ONES {
            return TileOutcome::Gone;
        }
        if let Some(c) = self.state.stats.banks.get(bank) {
            c.add(1, Relaxed);
        }
        let mut ids = [0u32; 32];
        let mut bits = dw;
        while bits != 0 {
            let bit = bits.trailing_zeros();
            bits &= bits - 1;
            ids[bit as usize] = self.identity(gt, bank, bit);
        }
        // All identities of the bank are serviced: clear its second-level bits (L2235, L2355).
        let _ = gt.write_aon_at(bank, GT_INTR_DW::from_raw(dw));
        let mut bits = dw;
        while bits != 0 {
            let bit = bits.trailing_zeros();
            bits &= bits - 1;
            let raw = ids[bit as usize];
            if raw != 0 {
                // CAST: bank < 2, bit < 32.
                self.dispatch(gt, ctl, raw, (bank as u8, bit as u8));
            }
        }
        TileOutcome::Serviced
    }

    /// Selects `bit` of `bank` and reads its identity; 0 when DataValid never came (counted,
    /// reported with the bank and bit).
    fn identity(&self, gt: &Gt<'_>, bank: usize, bit: u32) -> u32 {
        let _ = gt.write_aon_at(bank, IIR_REG_SELECTOR::from_raw(1 << bit));
        let mut last = 0;
        let polled = read_poll_timeout_atomic(
            || {
                last = gt
                    .read_aon_at::<INTR_IDENTITY_REG>(bank)
                    .map_or(0, |r| r.into_raw());
                Ok(last)
            },
            |&v| v & DATA_VALID != 0,
            DATA_VALID_STEP,
            DATA_VALID_TRIES,
        );
        if polled.is_err() || last == ALL_ONES {
            self.state.stats.data_valid_timeouts.add(1, Relaxed);
            // CAST: bank < 2, bit < 32.
            self.state
                .reports
                .dv_where
                .store(((bank as u32) << 8) | bit, Relaxed);
            self.state.reports.dv_value.store(last, Relaxed);
            self.state.report(Work::DataValid);
            // End the service anyway: writing DataValid clears the selector (L2231).
            let _ = gt.write_aon_at(bank, INTR_IDENTITY_REG::from_raw(DATA_VALID));
            return 0;
        }
        // Clear by writing the value back: DataValid (the PRM's text, L2231) and the same data
        // bits (its pseudocode, L2353); see the module docs.
        let _ = gt.write_aon_at(bank, INTR_IDENTITY_REG::from_raw(last));
        last
    }

    /// Hands the identity read for bank bit `at` to its source's handler. An identity naming a
    /// source this device does not have, or one that does not sit on the bit that was selected,
    /// is counted and dropped.
    fn dispatch(&self, gt: &Gt<'_>, ctl: &mut Ctl, raw: u32, at: (u8, u8)) {
        let st = &self.state;
        let known = Identity::decode(raw)
            .ok()
            .and_then(|id| source::lookup(id.class, id.instance).map(|i| (i, id)))
            .filter(|(i, _)| {
                SOURCES
                    .get(*i)
                    .is_some_and(|s| st.present.has(s) && (s.bank, s.bit) == at)
            });
        let Some((i, id)) = known else {
            st.stats.unknown_identities.add(1, Relaxed);
            st.reports.unknown.store(raw, Relaxed);
            st.report(Work::Unknown);
            return;
        };
        if let Some(c) = st.stats.per_source.get(i) {
            c.add(1, Relaxed);
        }
        if let Some(row) = st.stats.per_bit.get(i) {
            for (b, c) in row.iter().enumerate() {
                if id.vector & (1 << b) != 0 {
                    c.add(1, Relaxed);
                }
            }
        }
        if i != source::GUC && id.vector & source::CS_ERROR != 0 {
            // CAST: i < COUNT.
            st.reports.cs_source.store(i as u32, Relaxed);
            st.reports.cs_vector.store(u32::from(id.vector), Relaxed);
            st.report(Work::CsError);
        }
        // The GuC wrote G2H, or an engine completed or switched: the thread handles it (it
        // may take the submission locks, this may not).
        if i == source::GUC && id.vector & source::GUC2HOST != 0 {
            st.report(Work::G2h);
        }
        if i != source::GUC && id.vector & ENGINE_EVENTS != 0 {
            if let Some(v) = st.reports.engine_vectors.get(i) {
                set_bits(v, u32::from(id.vector & ENGINE_EVENTS));
                st.report(Work::Engines);
            }
        }
        let limit = ctl.storm_limit;
        let now = st.now_ns();
        let stormed = ctl.meters.get_mut(i).is_some_and(|m| m.hit(now, limit));
        if stormed && ctl.stormed & (1 << i) == 0 {
            ctl.stormed |= 1 << i;
            let reg = SOURCES[i].mask.0;
            write_mask(gt, reg, ctl.plan.mask_with(reg, ctl.stormed));
            st.stats.storms.add(1, Relaxed);
            set_bits(&st.reports.stormed_new, 1 << i);
            st.report(Work::Storm);
        }
    }

    /// Step 4 for one severity: read, record and clear the GT error status (RW1C, seed 000
    /// L2314-2316) and the device error source's GT bit (L2319-2321).
    fn service_error(&self, gt: &Gt<'_>, sev: usize) {
        let Ok(bits) = gt.read_aon_at::<ERR_STAT_GT_REG>(sev).map(|r| r.into_raw()) else {
            return;
        };
        if bits != 0 && bits != ALL_ONES {
            let _ = gt.write_aon_at(sev, ERR_STAT_GT_REG::from_raw(bits));
        }
        let _ = gt.write_aon_at(2 - sev, DEV_ERR_STAT_REG::zeroed().with_gt_error(true));
        if let Some(c) = self.state.stats.errors.get(sev) {
            c.add(1, Relaxed);
        }
        // CAST: sev < 3.
        self.state.reports.error_sev.store(sev as u32, Relaxed);
        self.state.reports.error_bits.store(bits, Relaxed);
        self.state.report(Work::GtError);
    }

    /// Prints what the top half left to report (`what`, taken from the pending bits).
    /// Threaded (process) context.
    fn print_reports(&self, what: Pending) {
        let st = &self.state;
        let r = &st.reports;
        let dev = self.pdev;
        if what.contains(Work::Gone) && !r.gone_told.xchg(true, Relaxed) {
            dev_err!(
                dev,
                "irq: interrupt registers read 0xffffffff, device not responding; interrupts \
                 stay off\n"
            );
        }
        if what.contains(Work::DataValid) {
            let w = r.dv_where.load(Relaxed);
            dev_err!(
                dev,
                "irq: INTR_IDENTITY_REG{} bit {}: DataValid not set after {} us (read {:#010x}); \
                 bit cleared, {} such in total\n",
                w >> 8,
                w & 0xff,
                DATA_VALID_TRIES,
                r.dv_value.load(Relaxed),
                st.stats.data_valid_timeouts.load(Relaxed)
            );
        }
        if what.contains(Work::Unknown) {
            let raw = r.unknown.load(Relaxed);
            dev_err!(
                dev,
                "irq: identity {:#010x} names class {} instance {}, not a source of this \
                 device; dropped, {} such in total\n",
                raw,
                (raw >> 16) & 0x7,
                (raw >> 20) & 0x3f,
                st.stats.unknown_identities.load(Relaxed)
            );
        }
        if what.contains(Work::Storm) {
            let mut new = r.stormed_new.xchg(0, Relaxed);
            while new != 0 {
                let i = new.trailing_zeros() as usize;
                new &= new - 1;
                let limit = st.ctl.lock().storm_limit;
                dev_err!(
                    dev,
                    "irq: source {} fired more than {} times in a second: masked (write \
                     'rearm {}' to debugfs irq to re-arm)\n",
                    SOURCES.get(i).map_or("?", |s| s.name),
                    limit,
                    SOURCES.get(i).map_or("?", |s| s.name)
                );
            }
        }
        if what.contains(Work::GtError) {
            let sev = r.error_sev.load(Relaxed) as usize;
            dev_err!(
                dev,
                "irq: GT {} error, ERR_STAT_GT_REG{} {:#010x}; cleared\n",
                SEVERITY.get(sev).copied().unwrap_or("?"),
                sev,
                r.error_bits.load(Relaxed)
            );
        }
        if what.contains(Work::CsError) {
            let i = r.cs_source.load(Relaxed) as usize;
            dev_err!(
                dev,
                "irq: {}: command streamer error (vector {:#06x})\n",
                SOURCES.get(i).map_or("?", |s| s.name),
                r.cs_vector.load(Relaxed)
            );
        }
        if what.contains(Work::Tile) {
            dev_err!(
                dev,
                "irq: DG1_MSTR_TILE_INTR names tiles {:#x}; this part has {}\n",
                r.tile.load(Relaxed),
                TILE_COUNT
            );
        }
    }
}

impl ThreadedHandler for Handler<'_> {
    /// The top half (hard-interrupt context): the flow in the module docs.
    fn handle(&self) -> ThreadedIrqReturn {
        let st = &self.state;
        let Ok(bar) = self.bar.access(self.pdev) else {
            return ThreadedIrqReturn::None;
        };
        let root = self.gt.view(self.pdev.as_ref(), bar);
        let mut ctl = st.ctl.lock();
        if !ctl.armed {
            st.stats.disarmed.add(1, Relaxed);
            return ThreadedIrqReturn::None;
        }
        // 1. Disable, sample, acknowledge the tile bits (L2338-2341).
        root.write_aon(DG1_MSTR_TILE_INTR::zeroed());
        let tile = root.read_aon::<DG1_MSTR_TILE_INTR>().into_raw();
        if tile == ALL_ONES {
            return self.gone();
        }
        let tiles = tile & TILE_BITS;
        if tiles == 0 {
            st.stats.spurious.add(1, Relaxed);
            root.write_aon(DG1_MSTR_TILE_INTR::zeroed().with_dg1_mstr_irq(true));
            return ThreadedIrqReturn::None;
        }
        root.write_aon(DG1_MSTR_TILE_INTR::from_raw(tiles));
        st.stats.interrupts.add(1, Relaxed);
        for t in 0..4u32 {
            if tiles & (1 << t) == 0 {
                continue;
            }
            let Some(view) = self.tile_view(&root, t) else {
                st.stats.tile_unexpected.add(1, Relaxed);
                st.reports.tile.store(tiles, Relaxed);
                st.report(Work::Tile);
                continue;
            };
            if let TileOutcome::Gone = self.service_tile(&view, &mut ctl) {
                return self.gone();
            }
        }
        // 5. Re-enable (L2393); later arrivals raise a new interrupt (L2389).
        root.write_aon(DG1_MSTR_TILE_INTR::zeroed().with_dg1_mstr_irq(true));
        if st.reports.pending.load(Relaxed) != 0 {
            ThreadedIrqReturn::WakeThread
        } else {
            ThreadedIrqReturn::Handled
        }
    }

    /// The threaded half (process context): the messages the top half left, the G2H messages
    /// the GuC wrote, and the engines' completions.
    fn handle_threaded(&self) -> IrqReturn {
        self.state.stats.thread_runs.add(1, Relaxed);
        let what = Pending::from_bits(self.state.reports.pending.xchg(0, Relaxed));
        self.print_reports(what);
        if what.contains(Work::G2h) {
            // One pass handles a bounded number of messages; keep going while passes come back
            // full, as no new interrupt may follow for what is already in the ring.
            for _ in 0..G2H_PASSES {
                if self.ct.receive(self.pdev.as_ref()) < RX_BUDGET {
                    break;
                }
            }
        }
        if what.contains(Work::Engines) {
            for (i, v) in self.state.reports.engine_vectors.iter().enumerate() {
                let vectors = v.xchg(0, Relaxed);
                if vectors != 0 {
                    // CAST: only engine vector bits (16 bits) are ever set.
                    self.engines.engine_interrupt(i, vectors as u16);
                }
            }
        }
        IrqReturn::Handled
    }
}

/// ORs `bits` into `a` (the 7.3 atomics have no `fetch_or`).
fn set_bits(a: &Atomic<u32>, bits: u32) {
    let mut old = a.load(Relaxed);
    while let Err(now) = a.cmpxchg(old, old | bits, Relaxed) {
        old = now;
    }
}

/// Writes every enable and mask of `plan`, with the stormed sources masked.
fn program(gt: &Gt<'_>, plan: &Plan, stormed: u32) {
    for (r, v) in EnableReg::ALL.iter().zip(plan.enables) {
        write_enable(gt, *r, v);
    }
    for r in MaskReg::ALL {
        write_mask(gt, r, plan.mask_with(r, stormed));
    }
}

/// The reset of `xe_irq.c` (`xe_irq_reset`: `dg1_irq_reset`, `gt_irq_reset`,
/// `mask_and_disable` of the PCU and GU_MISC groups, `dg1_irq_reset_mstr`), in its order:
/// tile enable off first, every enable 0 and every mask all ones, the PCU and GU_MISC IIRs
/// cleared twice (an IIR can hold two queued events), and the primary register last so no
/// lower-level bit re-latches it.
fn reset(gt: &Gt<'_>) {
    gt.write_aon(DG1_MSTR_TILE_INTR::zeroed());
    let tile = gt.read_aon::<DG1_MSTR_TILE_INTR>().into_raw();
    if tile != 0 && tile != ALL_ONES {
        gt.write_aon(DG1_MSTR_TILE_INTR::from_raw(tile & TILE_BITS));
    }
    let off = Plan::off(Mode::Guc);
    program(gt, &off, 0);
    gt.write_aon(GPM_WGBOXPERF_INTR_ENABLE::zeroed());
    gt.write_aon(CRYPTO_RSVD_INTR_ENABLE::zeroed());
    gt.write_aon(GUNIT_GSC_INTR_ENABLE::zeroed());
    gt.write_aon(HECI2_RSVD_INTR_MASK::from_raw(ALL_ONES));
    gt.write_aon(GPM_WGBOXPERF_INTR_MASK::from_raw(ALL_ONES));
    gt.write_aon(CRYPTO_RSVD_INTR_MASK::from_raw(ALL_ONES));
    gt.write_aon(GUNIT_GSC_INTR_MASK::from_raw(ALL_ONES));
    // PCU and GU_MISC: mask, posting read, disable, clear the IIR twice.
    gt.write_aon(PCU_IMR::from_raw(ALL_ONES));
    let _ = gt.read_aon::<PCU_IMR>();
    gt.write_aon(PCU_IER::zeroed());
    for _ in 0..2 {
        gt.write_aon(PCU_IIR::from_raw(ALL_ONES));
        let _ = gt.read_aon::<PCU_IIR>();
    }
    gt.write_aon(GU_MISC_IMR::from_raw(ALL_ONES));
    let _ = gt.read_aon::<GU_MISC_IMR>();
    gt.write_aon(GU_MISC_IER::zeroed());
    for _ in 0..2 {
        gt.write_aon(GU_MISC_IIR::from_raw(ALL_ONES));
        let _ = gt.read_aon::<GU_MISC_IIR>();
    }
    gt.write_aon(GFX_MSTR_IRQ::from_raw(ALL_ONES));
}

// Each enable and mask register the driver programs is its named register, as an element of
// its array: the index tables of `engine::source` against the aliases' offsets. Named, and never
// used, for rustc 1.85, as `engine::regs::ALL_CHECKED`.
#[expect(dead_code, reason = "evaluated for its asserts; named for rustc 1.85")]
const INDICES_CHECKED: () = {
    use kernel::io::register::{Register, RegisterArray};
    const fn at<A: RegisterArray>(idx: usize) -> usize {
        assert!(idx < A::SIZE);
        A::OFFSET + idx * A::STRIDE
    }
    assert!(at::<GT_INTR_ENABLE>(EnableReg::RenderCopy.index()) == RENDER_COPY_INTR_ENABLE::OFFSET);
    assert!(at::<GT_INTR_ENABLE>(EnableReg::VcsVecs.index()) == VCS_VECS_INTR_ENABLE::OFFSET);
    assert!(at::<GT_INTR_ENABLE>(EnableReg::GucSg.index()) == GUC_SG_INTR_ENABLE::OFFSET);
    assert!(at::<GT_INTR_ENABLE>(EnableReg::Ccs.index()) == CCS_RSVD_INTR_ENABLE::OFFSET);
    assert!(at::<GT_INTR_MASK>(MaskReg::Rcs0.index()) == RCS0_RSVD_INTR_MASK::OFFSET);
    assert!(at::<GT_INTR_MASK>(MaskReg::Bcs.index()) == BCS_RSVD_INTR_MASK::OFFSET);
    assert!(at::<GT_INTR_MASK>(MaskReg::Vcs01.index()) == VCS0_VCS1_INTR_MASK::OFFSET);
    assert!(at::<GT_INTR_MASK>(MaskReg::Vcs23.index()) == VCS2_VCS3_INTR_MASK::OFFSET);
    assert!(at::<GT_INTR_MASK>(MaskReg::Vcs45.index()) == VCS4_VCS5_INTR_MASK::OFFSET);
    assert!(at::<GT_INTR_MASK>(MaskReg::Vcs67.index()) == VCS6_VCS7_INTR_MASK::OFFSET);
    assert!(at::<GT_INTR_MASK>(MaskReg::Vecs01.index()) == VECS0_VECS1_INTR_MASK::OFFSET);
    assert!(at::<GT_INTR_MASK>(MaskReg::Vecs23.index()) == VECS2_VECS3_INTR_MASK::OFFSET);
    assert!(at::<GT_INTR_MASK>(MaskReg::GucSg.index()) == GUC_SG_INTR_MASK::OFFSET);
    assert!(at::<GT_INTR_MASK>(MaskReg::Ccs01.index()) == CCS0_CCS1_INTR_MASK::OFFSET);
    assert!(at::<GT_INTR_MASK>(MaskReg::Ccs23.index()) == CCS2_CCS3_INTR_MASK::OFFSET);
};

// The indices are in range (checked above), so the array accesses below cannot fail; a failure
// would leave the register unwritten, or read as all ones (what a missing register reads as).
fn write_enable(gt: &Gt<'_>, r: EnableReg, v: u32) {
    let _ = gt.write_aon_at(r.index(), GT_INTR_ENABLE::from_raw(v));
}

fn read_enable(gt: &Gt<'_>, r: EnableReg) -> u32 {
    gt.read_aon_at::<GT_INTR_ENABLE>(r.index())
        .map_or(ALL_ONES, GT_INTR_ENABLE::into_raw)
}

fn write_mask(gt: &Gt<'_>, r: MaskReg, v: u32) {
    let _ = gt.write_aon_at(r.index(), GT_INTR_MASK::from_raw(v));
}

fn read_mask(gt: &Gt<'_>, r: MaskReg) -> u32 {
    gt.read_aon_at::<GT_INTR_MASK>(r.index())
        .map_or(ALL_ONES, GT_INTR_MASK::into_raw)
}

/// The registers debugfs shows, read in one go: debugfs reaches the BAR only inside an RCU
/// read-side section, where the report (which allocates) cannot be formatted. Reading them
/// has no side effect (the GT DW and identity registers, whose reads do, are not shown).
pub(crate) struct RegSnapshot {
    tile: u32,
    primary: u32,
    enables: [u32; 4],
    masks: [u32; 11],
}

impl RegSnapshot {
    /// Reads the registers; does not sleep.
    pub(crate) fn read(gt: &Gt<'_>) -> Self {
        Self {
            tile: gt.read_aon::<DG1_MSTR_TILE_INTR>().into_raw(),
            primary: gt.read_aon::<GFX_MSTR_IRQ>().into_raw(),
            enables: EnableReg::ALL.map(|r| read_enable(gt, r)),
            masks: MaskReg::ALL.map(|r| read_mask(gt, r)),
        }
    }
}

/// Register names for the debugfs report, per [`EnableReg::ALL`] and [`MaskReg::ALL`].
const ENABLE_NAMES: [&str; 4] = [
    "RENDER_COPY_INTR_ENABLE",
    "VCS_VECS_INTR_ENABLE",
    "GUC_SG_INTR_ENABLE",
    "CCS_RSVD_INTR_ENABLE",
];
const MASK_NAMES: [&str; 11] = [
    "RCS0_RSVD_INTR_MASK",
    "BCS_RSVD_INTR_MASK",
    "VCS0_VCS1_INTR_MASK",
    "VCS2_VCS3_INTR_MASK",
    "VCS4_VCS5_INTR_MASK",
    "VCS6_VCS7_INTR_MASK",
    "VECS0_VECS1_INTR_MASK",
    "VECS2_VECS3_INTR_MASK",
    "GUC_SG_INTR_MASK",
    "CCS0_CCS1_INTR_MASK",
    "CCS2_CCS3_INTR_MASK",
];

impl IrqState {
    /// The debugfs `irq` report (format in `Documentation/debugfs.rst`), with the registers
    /// `regs` read while the device was still bound.
    ///
    /// # Errors
    ///
    /// Only the formatter's.
    pub(crate) fn fmt_report(
        &self,
        f: &mut fmt::Formatter<'_>,
        regs: Option<&RegSnapshot>,
    ) -> fmt::Result {
        let s = &self.stats;
        let (armed, mode, stormed, limit, plan) = {
            let c = self.ctl.lock();
            (c.armed, c.plan.mode, c.stormed, c.storm_limit, c.plan)
        };
        let vector = match self.vector {
            Vector::Msi => "msi",
            Vector::Intx => "intx",
        };
        f.write_fmt(fmt!("vector: {}\nirq: {}\n", vector, self.irq))?;
        f.write_fmt(fmt!("mode: {}\narmed: {}\n", mode.name(), u8::from(armed)))?;
        for (name, c) in [
            ("interrupts", &s.interrupts),
            ("spurious", &s.spurious),
            ("disarmed", &s.disarmed),
            ("device_gone", &s.device_gone),
            ("thread_runs", &s.thread_runs),
            ("tile0", &s.tiles),
            ("tile_unexpected", &s.tile_unexpected),
            ("bank0", &s.banks[0]),
            ("bank1", &s.banks[1]),
            ("data_valid_timeouts", &s.data_valid_timeouts),
            ("unknown_identities", &s.unknown_identities),
            ("storms", &s.storms),
        ] {
            f.write_fmt(fmt!("{}: {}\n", name, c.load(Relaxed)))?;
        }
        f.write_fmt(fmt!("storm_limit: {}\nstormed:", limit))?;
        if stormed == 0 {
            f.write_str(" none")?;
        }
        for (i, src) in SOURCES.iter().enumerate() {
            if stormed & (1 << i) != 0 {
                f.write_fmt(fmt!(" {}", src.name))?;
            }
        }
        f.write_fmt(fmt!(
            "\nerrors: correctable {} nonfatal {} fatal {}\n",
            s.errors[0].load(Relaxed),
            s.errors[1].load(Relaxed),
            s.errors[2].load(Relaxed)
        ))?;
        for (i, src) in SOURCES.iter().enumerate() {
            let armed_vectors = if stormed & (1 << i) != 0 {
                0
            } else {
                plan.armed_vectors(i)
            };
            f.write_fmt(fmt!(
                "source {}: {} present {} armed {:#06x} bank {} bit {}\n",
                src.name,
                self.source_count(i),
                u8::from(self.present.has(src)),
                armed_vectors,
                src.bank,
                src.bit
            ))?;
        }
        for (i, src) in SOURCES.iter().enumerate() {
            for (b, c) in s.per_bit[i].iter().enumerate() {
                let n = c.load(Relaxed);
                if n != 0 {
                    f.write_fmt(fmt!("bit {} {}: {}\n", src.name, b, n))?;
                }
            }
        }
        let Some(regs) = regs else {
            return f.write_str("registers: device unbound\n");
        };
        f.write_fmt(fmt!(
            "reg DG1_MSTR_TILE_INTR: {:#010x}\nreg GFX_MSTR_IRQ: {:#010x}\n",
            regs.tile,
            regs.primary
        ))?;
        for (v, name) in regs.enables.iter().zip(ENABLE_NAMES) {
            f.write_fmt(fmt!("reg {}: {:#010x}\n", name, v))?;
        }
        for (v, name) in regs.masks.iter().zip(MASK_NAMES) {
            f.write_fmt(fmt!("reg {}: {:#010x}\n", name, v))?;
        }
        Ok(())
    }

    /// A debugfs `irq` command: `rearm NAME` or `rearm all` unmasks stormed sources (their
    /// window starts over); `storm_limit N` (N >= 1) sets the per-second limit. `gt` is the
    /// live view (the command fails with `ENODEV` once the device is unbound). Process context;
    /// does not sleep.
    ///
    /// # Errors
    ///
    /// `EINVAL` for a malformed command or an unknown source.
    pub(crate) fn command(&self, gt: &Gt<'_>, cmd: &str) -> Result {
        let mut words = cmd.split_ascii_whitespace();
        let (Some(verb), Some(arg), None) = (words.next(), words.next(), words.next()) else {
            return Err(EINVAL);
        };
        match verb {
            "rearm" => {
                let which = if arg == "all" {
                    u32::MAX
                } else {
                    1 << source::by_name(arg).ok_or(EINVAL)?
                };
                let mut c = self.ctl.lock();
                let hit = c.stormed & which;
                c.stormed &= !which;
                for (i, m) in c.meters.iter_mut().enumerate() {
                    if which & (1 << i) != 0 {
                        m.reset();
                    }
                }
                if c.armed {
                    for r in MaskReg::ALL {
                        if SOURCES
                            .iter()
                            .enumerate()
                            .any(|(i, s)| hit & (1 << i) != 0 && s.mask.0 == r)
                        {
                            write_mask(gt, r, c.plan.mask_with(r, c.stormed));
                        }
                    }
                }
                Ok(())
            }
            "storm_limit" => {
                let n: u32 = arg.parse().map_err(|_| EINVAL)?;
                if n == 0 {
                    return Err(EINVAL);
                }
                self.ctl.lock().storm_limit = n;
                Ok(())
            }
            _ => Err(EINVAL),
        }
    }
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_irq_pending)]
mod tests {
    use super::*;

    #[test]
    fn pending_bits_round_trip() {
        let set = Work::Storm | Work::Engines;
        let back = Pending::from_bits(u32::from(set));
        assert_eq!(back, set);
        assert!(back.contains(Work::Storm) && back.contains(Work::Engines));
        assert!(!back.contains(Work::G2h));
        // Bits no `Work` names are dropped, not carried into the set.
        assert_eq!(u32::from(Pending::from_bits(u32::MAX)), Pending::all_bits());
        assert_eq!(Pending::all_bits(), 0x1ff);
    }

    #[test]
    fn enable_and_mask_indices_land_on_their_named_registers() {
        use kernel::io::register::{Register, RegisterArray};
        fn at<A: RegisterArray>(idx: usize) -> Option<usize> {
            (idx < A::SIZE).then(|| A::OFFSET + idx * A::STRIDE)
        }
        let enables = [
            (EnableReg::RenderCopy, RENDER_COPY_INTR_ENABLE::OFFSET),
            (EnableReg::VcsVecs, VCS_VECS_INTR_ENABLE::OFFSET),
            (EnableReg::GucSg, GUC_SG_INTR_ENABLE::OFFSET),
            (EnableReg::Ccs, CCS_RSVD_INTR_ENABLE::OFFSET),
        ];
        assert_eq!(enables.map(|(r, _)| r), EnableReg::ALL);
        for (r, named) in enables {
            assert_eq!(at::<GT_INTR_ENABLE>(r.index()), Some(named));
        }
        let masks = [
            (MaskReg::Rcs0, 0x19_0090),
            (MaskReg::Bcs, 0x19_00a0),
            (MaskReg::Vcs01, 0x19_00a8),
            (MaskReg::Vcs23, 0x19_00ac),
            (MaskReg::Vcs45, 0x19_00b0),
            (MaskReg::Vcs67, 0x19_00b4),
            (MaskReg::Vecs01, 0x19_00d0),
            (MaskReg::Vecs23, 0x19_00d4),
            (MaskReg::GucSg, 0x19_00e8),
            (MaskReg::Ccs01, 0x19_0100),
            (MaskReg::Ccs23, 0x19_0104),
        ];
        assert_eq!(masks.map(|(r, _)| r), MaskReg::ALL);
        for (r, off) in masks {
            assert_eq!(at::<GT_INTR_MASK>(r.index()), Some(off));
        }
        assert_eq!(VCS0_VCS1_INTR_MASK::OFFSET, 0x19_00a8);
        assert_eq!(CCS_RSVD_INTR_ENABLE::OFFSET, 0x19_0048);
    }
}
