// SPDX-License-Identifier: GPL-2.0

//! The handler: the top half, which services tiles, banks and identities under the control
//! lock and dispatches them by source (hard-interrupt context), and the threaded half, which
//! prints what the top half left to report, reads the GuC's G2H messages and hands the
//! engines' completions to submission (process context). The flow is in the block's docs.

use kernel::{
    device::Bound,
    io::poll::read_poll_timeout_atomic,
    irq::{IrqReturn, ThreadedHandler, ThreadedIrqReturn},
    pci,
    prelude::*,
    sync::{atomic::Relaxed, Arc},
    time::Delta,
};

use super::{
    program::{program, reset, write_mask},
    regs::*,
    state::{set_bits, Ctl, IrqState, Pending, Work},
    EngineSink, BANKS, TILE_BITS, TILE_COUNT,
};
use crate::{
    engine::{
        source::{self, Identity, SOURCES},
        Plan,
    },
    gt::Gt,
    guc::{Channel, RX_BUDGET},
    hw::Hw,
    regs::ALL_ONES,
    trace,
};

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

/// The engine vectors submission handles.
const ENGINE_EVENTS: u16 = source::USER_INTERRUPT | source::CONTEXT_SWITCH | source::CS_ERROR;

/// Full receive passes one thread run makes at most (the rest waits for the next interrupt or
/// a waiter's poll).
const G2H_PASSES: usize = 64;

/// The handler: the device, its hardware (BAR 0 and the GT state), and the interrupt state.
pub(crate) struct Handler<'bound> {
    pub(super) pdev: &'bound pci::Device<Bound>,
    /// BAR 0 and the GT state, through which it reaches the interrupt registers.
    pub(super) hw: Arc<Hw>,
    /// The GuC's CT channel, whose G2H messages the thread reads.
    pub(super) ct: Arc<Channel>,
    /// Submission, which the thread hands engine completions to.
    pub(super) engines: Arc<dyn EngineSink>,
    pub(super) state: Arc<IrqState>,
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
    pub(super) fn arm(&self, plan: Plan) {
        let Ok(bar) = self.hw.bar().access(self.pdev) else {
            return;
        };
        let gt = self.hw.gt().view(self.pdev.as_ref(), bar);
        let mut ctl = self.state.ctl.lock();
        ctl.plan = plan;
        program(&gt, &ctl.plan, ctl.stormed);
        ctl.armed = true;
        gt.write_aon(DG1_MSTR_TILE_INTR::zeroed().with_dg1_mstr_irq(true));
        let _ = gt.read_aon::<DG1_MSTR_TILE_INTR>();
    }

    /// Quiesce: disarms and resets the registers under the lock, so a top half is either done
    /// or sees `armed` clear.
    pub(super) fn disarm(&self) {
        let mut ctl = self.state.ctl.lock();
        ctl.armed = false;
        if let Ok(bar) = self.hw.bar().access(self.pdev) {
            reset(&self.hw.gt().view(self.pdev.as_ref(), bar));
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
        if let Some(s) = SOURCES.get(i) {
            trace::irq(self.pdev.as_ref(), s.name, at.0, at.1, id.vector);
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
        let Ok(bar) = self.hw.bar().access(self.pdev) else {
            return ThreadedIrqReturn::None;
        };
        let root = self.hw.gt().view(self.pdev.as_ref(), bar);
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
