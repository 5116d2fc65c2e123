// SPDX-License-Identifier: GPL-2.0

//! The tiled interrupt handler: one MSI (or a shared INTx line), the tile / primary / GT DW /
//! identity hierarchy of seed 000's interrupt chapter, and dispatch to the sources.
//!
//! # The flow (`Documentation/interrupts.rst` draws it)
//!
//! The top half (`Handler::handle` in [`handler`], hard-interrupt context) follows the PRM's ISR
//! pseudocode (seed 000 L2336-2395):
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
//! table ([`crate::engine::source`]), counted per source and per vector bit. What needs the log
//! or may sleep (messages about bad identities, storms, GT errors, CS errors, and later the CT's
//! G2H processing) goes to the threaded half (`Handler::handle_threaded`).
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
//! ([`crate::gt::Gt::read_aon`] and friends) prove that at build time.
//!
//! # Context and locking
//!
//! [`IrqState::ctl`] is an interrupt-disabling spinlock, held by the top half for the whole
//! service (as xe's `irq.lock`) and by process context (install, re-arm from debugfs,
//! quiesce), so masks are never written concurrently and the cached values stay true. The top
//! half never sleeps: the DataValid poll is an atomic poll of at most ~100 µs. Counters are
//! atomics read by debugfs without the lock.
//!
//! # Children
//!
//! This file registers the vector and its handler ([`Irq`]); the rest is split by concern:
//! [`handler`] (the top half and the threaded half), [`state`] (the shared state, its counters
//! and the top half's reports), [`program`] (writing the enables and masks, the reset, the
//! re-arm after a GT reset), [`snapshot`] (the registers debugfs shows), [`report`] (the debugfs
//! `irq` report and commands), [`regs`] (the `register!` definitions) and [`storm`] (the
//! per-source window count).

mod handler;
mod program;
mod regs;
mod report;
mod snapshot;
mod state;
mod storm;

pub(crate) use snapshot::RegSnapshot;
pub(crate) use state::IrqState;

use kernel::{
    device::Bound,
    irq::{Flags, IrqRequest, ThreadedRegistration},
    pci,
    prelude::*,
    sync::Arc,
};

use crate::{
    compat,
    engine::{Mode, Plan, Present},
    guc::Channel,
    hw::Hw,
};
use handler::Handler;
use program::reset;
use state::Vector;

/// Tiles of a DG2 or ATS-M: one (`xe_pci.c`, neither descriptor has remote tiles). A part with
/// more would give each tile's registers their own view in [`Handler::tile_view`].
const TILE_COUNT: u32 = 1;
/// `DG1_MSTR_TILE(t)` bits of the tile register (bits 3:0).
const TILE_BITS: u32 = 0xf;
/// `GT_DW_IRQ(x)` bits of the primary register.
const BANKS: usize = 2;

/// Where engine interrupts go: the submission block, above this one, implements it.
pub(crate) trait EngineSink: Send + Sync {
    /// Threaded (process) context: source `i` ([`SOURCES`](crate::engine::source::SOURCES)
    /// index) raised `vectors` since the last call (several interrupts may be merged).
    fn engine_interrupt(&self, i: usize, vectors: u16);
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
    /// Vector allocation or `request_irq` failures, or `EINVAL` if `hw`'s BAR 0 is not `pdev`'s.
    pub(crate) fn new(
        pdev: &'bound pci::Device<Bound>,
        hw: Arc<Hw>,
        ct: Arc<Channel>,
        engines: Arc<dyn EngineSink>,
        present: Present,
    ) -> impl PinInit<Self, Error> + 'bound {
        pin_init::pin_init_scope(move || {
            {
                let view = hw.gt().view(pdev.as_ref(), hw.bar().access(pdev)?);
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
                hw,
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

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_irq_pending)]
mod tests {
    use super::{
        regs::*,
        state::{Pending, Work},
    };
    use crate::engine::source::{EnableReg, MaskReg};

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
