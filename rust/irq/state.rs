// SPDX-License-Identifier: GPL-2.0

//! The interrupt state of one device: what the top half and process context share under the
//! control lock ([`Ctl`]: armed, the plan, stormed sources and their meters), the counters
//! debugfs reads ([`Stats`]) and the details the top half leaves for the threaded half's
//! messages ([`Reports`], [`Pending`]).

use kernel::{
    bits::bit_u32,
    new_spinlock_irq,
    prelude::*,
    sync::{
        atomic::{Atomic, Relaxed},
        SpinLockIrq,
    },
    time::{Instant, Monotonic},
};

use super::{
    storm::{self, Meter},
    BANKS,
};
use crate::engine::{source::COUNT, Plan, Present};

/// How the interrupt reaches the CPU.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Vector {
    Msi,
    Intx,
}

kernel::impl_flags!(
    /// What the top half left for the threaded half ([`Reports::pending`] holds its bits).
    #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
    pub(super) struct Pending(u32);

    /// One thing the top half leaves for the threaded half: a report to print, or work.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub(super) enum Work {
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
    pub(super) fn from_bits(raw: u32) -> Self {
        Self::ALL
            .iter()
            .filter(|w| raw & **w as u32 != 0)
            .fold(Self::empty(), |set, w| set | *w)
    }
}

/// The details of the last event of each kind, for the threaded half's message. Several
/// events before the thread runs give one message with the last details and the total count:
/// that is the rate limit.
pub(super) struct Reports {
    pub(super) pending: Atomic<u32>,
    /// Bank << 8 | bit, and the identity read, of the last DataValid timeout.
    pub(super) dv_where: Atomic<u32>,
    pub(super) dv_value: Atomic<u32>,
    pub(super) unknown: Atomic<u32>,
    /// Sources masked for a storm and not yet reported.
    pub(super) stormed_new: Atomic<u32>,
    /// Engine vectors per source not yet handed to the submission block.
    pub(super) engine_vectors: [Atomic<u32>; COUNT],
    /// Severity and status of the last GT error.
    pub(super) error_sev: Atomic<u32>,
    pub(super) error_bits: Atomic<u32>,
    /// Source and identity of the last CS error.
    pub(super) cs_source: Atomic<u32>,
    pub(super) cs_vector: Atomic<u32>,
    pub(super) tile: Atomic<u32>,
    /// The device-gone message was printed.
    pub(super) gone_told: Atomic<bool>,
}

/// Counters, written by the top half and read by debugfs.
pub(super) struct Stats {
    /// Top-half entries that found work.
    pub(super) interrupts: Atomic<u64>,
    /// Entries with nothing pending (`IRQ_NONE`).
    pub(super) spurious: Atomic<u64>,
    /// Entries before install or after quiesce (`IRQ_NONE`, no MMIO).
    pub(super) disarmed: Atomic<u64>,
    /// Entries that read all ones.
    pub(super) device_gone: Atomic<u64>,
    pub(super) thread_runs: Atomic<u64>,
    pub(super) tiles: Atomic<u64>,
    /// Tile bits for tiles this part does not have.
    pub(super) tile_unexpected: Atomic<u64>,
    pub(super) banks: [Atomic<u64>; BANKS],
    pub(super) data_valid_timeouts: Atomic<u64>,
    pub(super) unknown_identities: Atomic<u64>,
    pub(super) storms: Atomic<u64>,
    pub(super) errors: [Atomic<u64>; 3],
    pub(super) per_source: [Atomic<u64>; COUNT],
    pub(super) per_bit: [[Atomic<u32>; 16]; COUNT],
}

/// State the top half and process context share under [`IrqState::ctl`].
pub(super) struct Ctl {
    /// Set by install, cleared by quiesce: the top half touches no register while clear.
    pub(super) armed: bool,
    pub(super) plan: Plan,
    /// Sources masked for a storm, a bit per [`SOURCES`](crate::engine::source::SOURCES) index.
    pub(super) stormed: u32,
    pub(super) meters: [Meter; COUNT],
    pub(super) storm_limit: u32,
}

/// The interrupt state of one device, shared by the handler and debugfs.
#[pin_data]
pub(crate) struct IrqState {
    /// The top half's lock (hard IRQ) and process context's with interrupts off; the
    /// innermost lock: only always-on registers under it (Documentation/architecture.rst, "Locks").
    #[pin]
    pub(super) ctl: SpinLockIrq<Ctl>,
    pub(super) stats: Stats,
    pub(super) reports: Reports,
    pub(super) vector: Vector,
    pub(super) irq: u32,
    pub(super) present: Present,
    pub(super) epoch: Instant<Monotonic>,
}

impl IrqState {
    pub(super) fn new(
        vector: Vector,
        irq: u32,
        present: Present,
        plan: Plan,
    ) -> impl PinInit<Self> {
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
    pub(super) fn report(&self, what: Work) {
        set_bits(&self.reports.pending, Pending::from(what).into());
    }

    /// Nanoseconds since the state was made, for the storm windows.
    pub(super) fn now_ns(&self) -> i64 {
        (Instant::<Monotonic>::now() - self.epoch).as_nanos()
    }

    /// Count of identities from source `name` (debugfs and tests).
    pub(super) fn source_count(&self, i: usize) -> u64 {
        self.stats.per_source.get(i).map_or(0, |c| c.load(Relaxed))
    }
}

/// ORs `bits` into `a` (the 7.3 atomics have no `fetch_or`).
pub(super) fn set_bits(a: &Atomic<u32>, bits: u32) {
    let mut old = a.load(Relaxed);
    while let Err(now) = a.cmpxchg(old, old | bits, Relaxed) {
        old = now;
    }
}
