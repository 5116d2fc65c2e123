// SPDX-License-Identifier: GPL-2.0

//! Forcewake: keeping GT power domains awake while the driver touches their registers.
//!
//! A register behind a sleeping domain is "terminated": reads return 0 and writes are dropped
//! (seed 000, lines 756 and 780). The domains and their request/ack registers are the seed's table
//! (lines 760-777): GT, RENDER, VDBOX0-7 and VEBOX0-3, the media ones "as available in the
//! product". The seed gives no bit layout; the protocol is upstream xe's
//! (`drivers/gpu/drm/xe/xe_force_wake.c`, `regs/xe_gt_regs.h`): request registers are masked
//! (bits 31:16 enable writes to bits 15:0) and the driver owns bit 0 (FORCEWAKE_KERNEL); the
//! ack register's bit 0 follows it.
//!
//! Sequence, per domain: wait for a stale ack (left by an earlier release) to clear, write the
//! request, poll the ack until set; on release write the clear and poll the ack until it drops.
//! Acks are polled atomically because the domain lock is a spinlock (upstream does the same,
//! with the same 50 ms limit). An ack that reads all ones means the device is gone (`EIO`),
//! not that it is slow.
//!
//! A domain whose ack has read all ones stays dead (a surprise removal or a link that fell off
//! the bus makes every register read so; one dead ack register is the `fw-ack-dead` case). The
//! first all-ones ack of a domain is logged once, with the value, as i915 does when it loses the
//! MMIO BAR (`intel_uncore.c`, "Lost access to MMIO BAR"), and marks the domain lost: later gets
//! of it fail at once with `EIO` without touching a register or logging, and releases only drop
//! their references. Without the latch every debugfs command after a removal logged again and
//! polled a dead BAR: a flood of identical errors under load. Other domains keep working, so a
//! single dead ack register costs only its domain.
//!
//! Fallback-ack kick: i915 toggles a second request bit when an ack is late on every Gen11+
//! part, but the workaround it implements (`WaRsForcewakeAddDelayForAck`, HSDES 1604254524,
//! `intel_uncore.c`) is listed for SKL through ICL only, upstream xe (the driver for DG2 and
//! ATS-M) does not use it, and the PRM does not mention it. xehpg does not either: a missing
//! ack is reported, not papered over.
//!
//! Users take a [`FwGuard`] from [`Forcewake::get`]; dropping it releases. Per-domain
//! reference counts make nested users free: only the first get and the last put touch MMIO.
//!
//! # The domain table
//!
//! [`lookup`] maps an offset to its domain through `table::RANGES`, the seed's "Force Wake and
//! Steering Table" (seed 000, lines 455-704) with adjacent rows of the same wake target merged;
//! each entry names its seed lines. The rows are generated from the seed (tools/), so only the
//! types, the lookup and the shadowed-register lists below are written by hand; `make check`
//! regenerates the table and fails on any difference. Conventions:
//!
//! - RENDER* rows ("physically located in GTI but logically managed as if part of render",
//!   seed line 704) are RENDER.
//! - Rows with an empty wake target (reserved space) and offsets the table does not list need
//!   no wake: [`Wake::None`]. That includes 0x040000-0x1BFFFF, which holds the SGunit, display and
//!   Gunit blocks whose access rules "are defined elsewhere" (seed line 781).
//!
//! Settled conflicts (the seed is the specification; upstream is a cross-check):
//!
//! - 0x014000-0x0147FF: the seed gives VD0/VD2/VD4/VD6 per 512-byte block (lines 552-555);
//!   upstream i915 (`__dg2_fw_ranges`, `intel_uncore.c`) folds 0x13200-0x147FF into VD2 and
//!   calls 0x13400-0x147FF "reserved". The seed wins: it lists real rows there, and its pattern
//!   matches the per-VDBOX split of 0x013000-0x0133FF and 0x1CC000-0x1CFFFF.
//! - 0x020000-0x020FFF: seed VD0 (line 572), i915 RENDER ("reserved"). The seed wins.
//! - The seed omits 0x1D6000-0x1D67FF, 0x1E2000-0x1E27FF, 0x1E6000-0x1E67FF and
//!   0x1F6000-0x1F67FF, the 2 KiB sub-block it does list for VD0, VD1, VD2 and VD6. They take
//!   their VDBOX block's domain (VD3, VD4, VD5, VD7), as i915 does: waking one domain too many
//!   costs an ack, reading a sleeping register returns 0.
//! - 0x025B00-0x025FFF (unlisted, between two reserved rows) needs no wake.

mod table;

use kernel::{
    io::{poll::read_poll_timeout_atomic, register, register::Array},
    prelude::*,
    sync::{
        atomic::{Atomic, Relaxed},
        SpinLock,
    },
    time::Delta,
};

use crate::{mmio::Bar0, regs::ALL_ONES};

register! {
    /// GT domain request (seed 000 line 762; field layout from `regs/xe_gt_regs.h`).
    pub(crate) FORCEWAKE_GT(u32) @ 0x0000a188 {
        /// Write enables for bits 15:0 (masked register).
        31:16 mask;
        /// The driver's request bit (FORCEWAKE_KERNEL).
        0:0 kernel => bool;
    }

    /// RENDER domain request (seed 000 line 763).
    pub(crate) FORCEWAKE_RENDER(u32) @ 0x0000a278 {
        31:16 mask;
        0:0 kernel => bool;
    }

    /// VDBOXn domain request, 0xA540 + 4n (seed 000 lines 764-773).
    pub(crate) FORCEWAKE_MEDIA_VDBOX(u32)[8] @ 0x0000a540 {
        31:16 mask;
        0:0 kernel => bool;
    }

    /// VEBOXn domain request, 0xA560 + 4n (seed 000 lines 774-777).
    pub(crate) FORCEWAKE_MEDIA_VEBOX(u32)[4] @ 0x0000a560 {
        31:16 mask;
        0:0 kernel => bool;
    }

    /// GT domain ack (seed 000 line 762), in the always-on 0x130000 block.
    pub(crate) FORCEWAKE_ACK_GT(u32) @ 0x00130044 {
        0:0 kernel => bool;
    }

    /// RENDER domain ack (seed 000 line 763).
    pub(crate) FORCEWAKE_ACK_RENDER(u32) @ 0x00000d84 {
        0:0 kernel => bool;
    }

    /// VDBOXn domain ack, 0x0D50 + 4n (seed 000 lines 764-773).
    pub(crate) FORCEWAKE_ACK_MEDIA_VDBOX(u32)[8] @ 0x00000d50 {
        0:0 kernel => bool;
    }

    /// VEBOXn domain ack, 0x0D70 + 4n (seed 000 lines 774-777).
    pub(crate) FORCEWAKE_ACK_MEDIA_VEBOX(u32)[4] @ 0x00000d70 {
        0:0 kernel => bool;
    }
}

/// Number of VDBOX and VEBOX domains the request/ack tables define.
pub(crate) const VDBOX_COUNT: u8 = 8;
pub(crate) const VEBOX_COUNT: u8 = 4;
/// GT + RENDER + the media domains.
pub(crate) const DOMAIN_COUNT: usize = 2 + VDBOX_COUNT as usize + VEBOX_COUNT as usize;

/// How long an ack may take (upstream `XE_FORCE_WAKE_ACK_TIMEOUT_MS`).
// TIMEOUT: 50 ms, upstream's limit; real parts ack within microseconds.
const ACK_TIMEOUT: Delta = Delta::from_millis(50);
const ACK_POLL_DELAY: Delta = Delta::from_micros(10);
const ACK_POLL_RETRIES: usize = (ACK_TIMEOUT.as_nanos() / ACK_POLL_DELAY.as_nanos()) as usize;

/// A forcewake domain.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Domain {
    Gt,
    Render,
    /// VDBOX instance 0..=7.
    Vdbox(u8),
    /// VEBOX instance 0..=3.
    Vebox(u8),
}

impl Domain {
    /// Dense index: GT, RENDER, VDBOX0-7, VEBOX0-3.
    pub(crate) const fn index(self) -> usize {
        match self {
            Self::Gt => 0,
            Self::Render => 1,
            Self::Vdbox(n) => 2 + n as usize,
            Self::Vebox(n) => 2 + VDBOX_COUNT as usize + n as usize,
        }
    }

    /// Inverse of [`Domain::index`].
    pub(crate) const fn from_index(i: usize) -> Option<Self> {
        const VD_END: usize = 2 + VDBOX_COUNT as usize;
        match i {
            0 => Some(Self::Gt),
            1 => Some(Self::Render),
            // CAST: the ranges bound the values below 8 and 4.
            2..VD_END => Some(Self::Vdbox((i - 2) as u8)),
            VD_END..DOMAIN_COUNT => Some(Self::Vebox((i - VD_END) as u8)),
            _ => None,
        }
    }

    pub(crate) const fn bit(self) -> DomainMask {
        DomainMask(1 << self.index())
    }
}

impl kernel::fmt::Display for Domain {
    fn fmt(&self, f: &mut kernel::fmt::Formatter<'_>) -> kernel::fmt::Result {
        match self {
            Self::Gt => f.write_str("GT"),
            Self::Render => f.write_str("RENDER"),
            Self::Vdbox(n) => f.write_fmt(fmt!("VDBOX{}", n)),
            Self::Vebox(n) => f.write_fmt(fmt!("VEBOX{}", n)),
        }
    }
}

/// A set of domains.
///
/// Not `kernel::impl_flags!`: its flag type must be a field-less enum, while a [`Domain`]
/// carries its VDBOX/VEBOX instance (the register arrays are indexed by it), and its operators
/// are not `const`, which [`DomainMask::GT`] and [`DomainMask::RENDER`] need.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct DomainMask(u16);

impl DomainMask {
    pub(crate) const EMPTY: Self = Self(0);
    pub(crate) const GT: Self = Domain::Gt.bit();
    pub(crate) const RENDER: Self = Domain::Render.bit();

    pub(crate) const fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub(crate) const fn union(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }

    pub(crate) const fn contains(self, d: Domain) -> bool {
        self.0 & d.bit().0 != 0
    }

    pub(crate) const fn without(self, other: Self) -> Self {
        Self(self.0 & !other.0)
    }

    /// The domains in index order.
    pub(crate) fn iter(self) -> impl Iterator<Item = Domain> {
        (0..DOMAIN_COUNT)
            .filter(move |i| self.0 & (1 << i) != 0)
            .filter_map(Domain::from_index)
    }

    /// GT, RENDER and the media domains whose engines the fuses report present
    /// (GT_VEBOX_VDBOX_DISABLE: bits 7:0 VDBOX, 19:16 VEBOX, set = present on Xe-HPG; upstream
    /// `xe_hw_engine.c`, `read_media_fuses`).
    pub(crate) fn from_media_fuse(vdbox: u32, vebox: u32) -> Self {
        let mut mask = Self::GT.union(Self::RENDER);
        for n in 0..VDBOX_COUNT {
            if vdbox & (1 << n) != 0 {
                mask = mask.union(Domain::Vdbox(n).bit());
            }
        }
        for n in 0..VEBOX_COUNT {
            if vebox & (1 << n) != 0 {
                mask = mask.union(Domain::Vebox(n).bit());
            }
        }
        mask
    }
}

/// What an offset needs before it may be accessed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Wake {
    /// Always-on, reserved, or outside the GT table: no forcewake.
    None,
    /// The domain must be awake (held) for the access to reach the register.
    Domain(Domain),
}

/// One table row: `start..=end` needs `wake`.
#[derive(Copy, Clone, Debug)]
struct Range {
    start: u32,
    end: u32,
    wake: Wake,
}

const fn r(start: u32, end: u32, wake: Wake) -> Range {
    Range { start, end, wake }
}

/// Looks an offset up: O(log n) over the table; offsets past the table need no wake.
///
/// A `const fn`, so a register whose offset is a constant has its domain known at build time
/// (see [`crate::gt::Gt::read`]).
pub(crate) const fn lookup(offset: u32) -> Wake {
    let ranges = table::RANGES;
    // Binary search for the first row starting above `offset`; the row before it is the only
    // candidate (the table is contiguous from 0).
    let (mut lo, mut hi) = (0, ranges.len());
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if ranges[mid].start <= offset {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if lo == 0 {
        return Wake::None;
    }
    let range = &ranges[lo - 1];
    if offset <= range.end {
        range.wake
    } else {
        Wake::None
    }
}

/// Shadowed registers: writes reach them without forcewake, reads still need it (seed 000
/// line 756 mentions shadowing but gives no list; this is upstream i915's `dg2_shadowed_regs`,
/// `drivers/gpu/drm/i915/intel_uncore.c`). Inclusive ranges, sorted.
const SHADOWED: &[(u32, u32)] = &[
    (0x002030, 0x002030),
    (0x002510, 0x002550),
    (0x00a008, 0x00a00c),
    (0x00a188, 0x00a188),
    (0x00a278, 0x00a278),
    (0x00a540, 0x00a56c),
    (0x00c4c8, 0x00c4c8),
    (0x00c4e0, 0x00c4e0),
    (0x00c600, 0x00c600),
    (0x00c658, 0x00c658),
    (0x022030, 0x022030),
    (0x022510, 0x022550),
];

/// Media engine bases whose ring tail (+0x30) and execlist submit ports (+0x510..=+0x550) are
/// shadowed (same source), one per VDBOX/VEBOX instance.
const SHADOWED_MEDIA_BASES: [u32; 12] = [
    0x1c0000, 0x1c4000, 0x1c8000, 0x1d0000, 0x1d4000, 0x1d8000, 0x1e0000, 0x1e4000, 0x1e8000,
    0x1f0000, 0x1f4000, 0x1f8000,
];

/// Whether a write to `offset` needs no forcewake.
pub(crate) const fn is_shadowed(offset: u32) -> bool {
    let mut i = 0;
    while i < SHADOWED.len() {
        if SHADOWED[i].0 <= offset && offset <= SHADOWED[i].1 {
            return true;
        }
        i += 1;
    }
    let mut i = 0;
    while i < SHADOWED_MEDIA_BASES.len() {
        let base = SHADOWED_MEDIA_BASES[i];
        if offset >= base {
            let rel = offset - base;
            if matches!(rel, 0x30 | 0x510..=0x550) {
                return true;
            }
        }
        i += 1;
    }
    false
}

/// Why a domain did not wake or sleep.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum AckError {
    /// The ack did not reach the wanted state in time.
    Timeout(u32),
    /// The ack read all ones: the device does not answer.
    Dead,
}

/// Lock-protected part of the state: which domains exist and their reference counts. Pure
/// bookkeeping, so the refcount rules are testable without hardware.
struct FwState {
    /// Domains that exist on this part.
    present: DomainMask,
    refs: [u32; DOMAIN_COUNT],
    /// Domains held on behalf of debugfs `forcewake_all` (no guard object to own them).
    user_hold: DomainMask,
    /// Set at unbind: no new wakes from then on.
    closed: bool,
}

impl FwState {
    /// Domains of `mask` nobody holds yet: the ones a get must wake.
    fn to_wake(&self, mask: DomainMask) -> DomainMask {
        mask.iter()
            .filter(|d| self.refs[d.index()] == 0)
            .fold(DomainMask::EMPTY, |m, d| m.union(d.bit()))
    }

    /// Takes one reference per domain of `mask`.
    fn acquire(&mut self, mask: DomainMask) {
        for d in mask.iter() {
            self.refs[d.index()] += 1;
        }
    }

    /// Drops one reference per domain of `mask`; returns the domains that reached zero.
    fn release(&mut self, mask: DomainMask) -> DomainMask {
        let mut idle = DomainMask::EMPTY;
        for d in mask.iter() {
            let refs = &mut self.refs[d.index()];
            if *refs > 0 {
                *refs -= 1;
                if *refs == 0 {
                    idle = idle.union(d.bit());
                }
            }
        }
        idle
    }
}

/// Forcewake state of one GT.
#[pin_data]
pub(crate) struct Forcewake {
    /// Process or atomic context, never the top half; held across the atomic ack poll; under
    /// the ports' locks, above only the steering lock (Documentation/architecture.rst, "Locks").
    #[pin]
    state: SpinLock<FwState>,
    /// Wakes (0 -> 1 transitions) taken per domain, for debugfs.
    wakes: [Atomic<u32>; DOMAIN_COUNT],
    /// Last ack state observed per domain (1 = awake), for debugfs without MMIO.
    ack_seen: [Atomic<u32>; DOMAIN_COUNT],
    /// Failed wakes and releases.
    failures: Atomic<u32>,
    /// Bit per domain index: its ack has read all ones, no register of it is touched again.
    lost: Atomic<u32>,
}

impl Forcewake {
    /// Forcewake state with only GT and RENDER known present; [`Forcewake::set_present`] adds
    /// the media domains once the fuses have been read (under GT forcewake).
    pub(crate) fn new() -> impl PinInit<Self> {
        pin_init!(Self {
            state <- kernel::new_spinlock!(FwState {
                present: DomainMask::GT.union(DomainMask::RENDER),
                refs: [0; DOMAIN_COUNT],
                user_hold: DomainMask::EMPTY,
                closed: false,
            }),
            wakes: [const { Atomic::new(0) }; DOMAIN_COUNT],
            ack_seen: [const { Atomic::new(0) }; DOMAIN_COUNT],
            failures: Atomic::new(0),
            lost: Atomic::new(0),
        })
    }

    /// Records which domains exist (GT and RENDER always do).
    pub(crate) fn set_present(&self, present: DomainMask) {
        self.state.lock().present = present.union(DomainMask::GT).union(DomainMask::RENDER);
    }

    /// Wakes every domain in `mask` (those not already held) and returns a guard that releases
    /// them when dropped. Fails without changing any reference count if a domain is absent,
    /// does not ack, or the device is dead; domains this call woke are released again.
    ///
    /// # Errors
    ///
    /// `ENODEV` after unbind or for a domain the part lacks, `ETIMEDOUT` if an ack does not
    /// come, `EIO` if the device does not answer.
    pub(crate) fn get<'a>(
        &'a self,
        dev: &'a kernel::device::Device,
        bar: Bar0<'a>,
        mask: DomainMask,
    ) -> Result<FwGuard<'a>> {
        let mut state = self.state.lock();
        if state.closed {
            return Err(ENODEV);
        }
        if mask.iter().any(|d| self.lost().contains(d)) {
            // A dead domain: already reported once, nothing to poll.
            self.failures.add(1, Relaxed);
            return Err(EIO);
        }
        let absent = mask.without(state.present);
        if let Some(d) = absent.iter().next() {
            dev_err!(dev, "forcewake: domain {} is not present on this part\n", d);
            return Err(ENODEV);
        }
        if let Err(e) = self.wake(dev, bar, state.to_wake(mask)) {
            self.failures.add(1, Relaxed);
            return Err(e);
        }
        state.acquire(mask);
        Ok(FwGuard {
            fw: self,
            dev,
            bar,
            mask,
        })
    }

    /// Drops one reference per domain in `mask`; the last one puts the domain to sleep.
    fn put(&self, dev: &kernel::device::Device, bar: Bar0<'_>, mask: DomainMask) {
        let mut state = self.state.lock();
        // A dead domain has nothing to put to sleep; its references are dropped all the same.
        let to_sleep = state.release(mask).without(self.lost());
        for d in to_sleep.iter() {
            write_request(bar, d, false);
        }
        for d in to_sleep.iter() {
            if let Err(e) = self.wait_ack(bar, d, false) {
                self.failures.add(1, Relaxed);
                self.report_ack_error(dev, d, "release", e);
            }
        }
    }

    /// Wakes `mask`: clear stale acks, request all, then wait for every ack. Called with the
    /// state lock held.
    fn wake(&self, dev: &kernel::device::Device, bar: Bar0<'_>, mask: DomainMask) -> Result {
        for d in mask.iter() {
            // An earlier release may still be in flight; a request now could be mistaken for
            // its (late) ack otherwise.
            self.wait_ack(bar, d, false).map_err(|e| {
                self.report_ack_error(dev, d, "clear of a stale ack before wake", e);
                e.errno()
            })?;
        }
        for d in mask.iter() {
            write_request(bar, d, true);
        }
        let mut result = Ok(());
        for d in mask.iter() {
            if let Err(e) = self.wait_ack(bar, d, true) {
                self.report_ack_error(dev, d, "wake", e);
                result = Err(e.errno());
                break;
            }
            self.wakes[d.index()].add(1, Relaxed);
        }
        if result.is_err() {
            // Undo the requests of this call; the caller's reference counts are unchanged.
            for d in mask.iter() {
                write_request(bar, d, false);
            }
        }
        result
    }

    /// Polls `d`'s ack until it reads `awake`.
    fn wait_ack(&self, bar: Bar0<'_>, d: Domain, awake: bool) -> Result<(), AckError> {
        let mut last = 0;
        let polled = read_poll_timeout_atomic(
            || {
                last = read_ack(bar, d);
                Ok(last)
            },
            |&raw| raw == ALL_ONES || (raw & 1 != 0) == awake,
            ACK_POLL_DELAY,
            ACK_POLL_RETRIES,
        );
        match polled {
            Ok(ALL_ONES) => Err(AckError::Dead),
            Ok(raw) => {
                self.ack_seen[d.index()].store(raw & 1, Relaxed);
                Ok(())
            }
            Err(_) => Err(AckError::Timeout(last)),
        }
    }

    /// Per-domain status and the failure count (debugfs `forcewake`); reads no register.
    ///
    /// # Errors
    ///
    /// Only the formatter's.
    pub(crate) fn fmt_status(&self, f: &mut kernel::fmt::Formatter<'_>) -> kernel::fmt::Result {
        // A snapshot under the lock, formatted after it: the formatter may sleep.
        let (present, refs) = {
            let state = self.state.lock();
            (state.present, state.refs)
        };
        f.write_str("domain   present refs ack wakes\n")?;
        for (i, &refs) in refs.iter().enumerate() {
            let Some(domain) = Domain::from_index(i) else {
                continue;
            };
            f.write_fmt(fmt!(
                "{:<8} {:<7} {:>4} {:>3} {:>5}\n",
                fmt!("{}", domain),
                if present.contains(domain) {
                    "yes"
                } else {
                    "no"
                },
                refs,
                u8::from(self.ack_seen[i].load(Relaxed) != 0),
                self.wakes[i].load(Relaxed)
            ))?;
        }
        f.write_fmt(fmt!("failures: {}\n", self.failures.load(Relaxed)))?;
        f.write_fmt(fmt!("dead_domains: {}\n", self.lost().iter().count()))
    }

    /// Holds every present domain until [`Forcewake::user_release`] (debugfs `forcewake_all`).
    /// Holding twice is a no-op: the user hold is one reference, not a counter.
    ///
    /// # Errors
    ///
    /// As [`Forcewake::get`].
    pub(crate) fn user_hold(&self, dev: &kernel::device::Device, bar: Bar0<'_>) -> Result {
        let all = {
            let state = self.state.lock();
            if !state.user_hold.is_empty() {
                return Ok(());
            }
            state.present
        };
        let guard = self.get(dev, bar, all)?;
        let mut state = self.state.lock();
        // Unbind may have closed forcewake since `get`: a hold stored now would never be
        // released, and the domains would stay awake into the next probe, whose stale-ack check
        // then times out (seen with `forcewake_all` written in a loop during unbind,
        // hostile-input scenario).
        if state.user_hold.is_empty() && !state.closed {
            state.user_hold = all;
            // The reference now belongs to `user_hold`; `user_release` drops it.
            core::mem::forget(guard);
        }
        // Else a concurrent hold won the race, or unbind closed forcewake: `guard` drops this
        // call's reference (after `state`, declared later, has released the lock).
        Ok(())
    }

    /// Drops the `forcewake_all` hold, if any.
    pub(crate) fn user_release(&self, dev: &kernel::device::Device, bar: Bar0<'_>) {
        let held = core::mem::take(&mut self.state.lock().user_hold);
        if !held.is_empty() {
            self.put(dev, bar, held);
        }
    }

    /// Whether the GT domain's ack has read all ones: the device no longer answers (every
    /// register of a vanished card reads so, and GT is what every user wakes first).
    pub(crate) fn gt_dead(&self) -> bool {
        self.lost().contains(Domain::Gt)
    }

    /// Domains whose ack has read all ones.
    fn lost(&self) -> DomainMask {
        // CAST: only bits below DOMAIN_COUNT (14) are ever set.
        DomainMask(self.lost.load(Relaxed) as u16)
    }

    /// Logs a failed wake or release; called with the state lock held. An all-ones ack marks
    /// the domain lost, and only the first such ack of a domain is logged (see the module
    /// documentation).
    fn report_ack_error(&self, dev: &kernel::device::Device, d: Domain, step: &str, e: AckError) {
        match e {
            AckError::Timeout(raw) => dev_err!(
                dev,
                "forcewake: domain {} {}: no ack within {} ms (ack register {:#010x})\n",
                d,
                step,
                ACK_TIMEOUT.as_millis(),
                raw
            ),
            AckError::Dead => {
                // Every caller (wake, put) holds the state lock: no other update races this one.
                let lost = self.lost.load(Relaxed);
                let bit = 1u32 << d.index();
                if lost & bit == 0 {
                    self.lost.store(lost | bit, Relaxed);
                    dev_err!(
                        dev,
                        "forcewake: domain {} {}: ack register reads {:#010x}, device not \
                         responding (surprise removal?); domain refused from now on\n",
                        d,
                        step,
                        ALL_ONES
                    );
                }
            }
        }
    }

    /// Whether debugfs `forcewake_all` holds the domains.
    pub(crate) fn user_holds(&self) -> bool {
        !self.state.lock().user_hold.is_empty()
    }

    /// Unbind: releases the user hold and refuses every later wake.
    ///
    /// Closing and taking the hold happen under one lock: released first and closed after, a
    /// `forcewake_all` write in between stored a hold nobody released (see `user_hold`).
    pub(crate) fn close(&self, dev: &kernel::device::Device, bar: Bar0<'_>) {
        let held = {
            let mut state = self.state.lock();
            state.closed = true;
            core::mem::take(&mut state.user_hold)
        };
        if !held.is_empty() {
            self.put(dev, bar, held);
        }
    }
}

impl AckError {
    fn errno(self) -> Error {
        match self {
            Self::Timeout(_) => ETIMEDOUT,
            Self::Dead => EIO,
        }
    }
}

/// Writes `d`'s request bit through the write-enable mask.
fn write_request(bar: Bar0<'_>, d: Domain, wake: bool) {
    // Only bit 0 is ours: enable writes to it alone and leave other agents' bits alone.
    let mask = 1u16;
    match d {
        Domain::Gt => bar.write_reg(FORCEWAKE_GT::zeroed().with_mask(mask).with_kernel(wake)),
        Domain::Render => {
            bar.write_reg(FORCEWAKE_RENDER::zeroed().with_mask(mask).with_kernel(wake))
        }
        Domain::Vdbox(n) => {
            if let Some(loc) = FORCEWAKE_MEDIA_VDBOX::try_at(usize::from(n)) {
                bar.write(
                    loc,
                    FORCEWAKE_MEDIA_VDBOX::zeroed()
                        .with_mask(mask)
                        .with_kernel(wake),
                );
            }
        }
        Domain::Vebox(n) => {
            if let Some(loc) = FORCEWAKE_MEDIA_VEBOX::try_at(usize::from(n)) {
                bar.write(
                    loc,
                    FORCEWAKE_MEDIA_VEBOX::zeroed()
                        .with_mask(mask)
                        .with_kernel(wake),
                );
            }
        }
    }
}

/// Raw value of `d`'s ack register.
fn read_ack(bar: Bar0<'_>, d: Domain) -> u32 {
    match d {
        Domain::Gt => bar.read(FORCEWAKE_ACK_GT).into_raw(),
        Domain::Render => bar.read(FORCEWAKE_ACK_RENDER).into_raw(),
        Domain::Vdbox(n) => FORCEWAKE_ACK_MEDIA_VDBOX::try_at(usize::from(n))
            .map_or(ALL_ONES, |loc| bar.read(loc).into_raw()),
        Domain::Vebox(n) => FORCEWAKE_ACK_MEDIA_VEBOX::try_at(usize::from(n))
            .map_or(ALL_ONES, |loc| bar.read(loc).into_raw()),
    }
}

/// Holds a set of domains awake; dropping it releases them.
pub(crate) struct FwGuard<'a> {
    fw: &'a Forcewake,
    dev: &'a kernel::device::Device,
    bar: Bar0<'a>,
    mask: DomainMask,
}

impl FwGuard<'_> {
    /// The domains this guard holds.
    pub(crate) fn mask(&self) -> DomainMask {
        self.mask
    }
}

impl<'a> FwGuard<'a> {
    /// Keeps the domains awake past this call: the reference moves into a [`Held`], which has
    /// no lifetime and so can live in state under a lock (an engine with work in flight).
    pub(crate) fn keep(self) -> Held {
        let held = Held { mask: self.mask };
        core::mem::forget(self);
        held
    }
}

impl Forcewake {
    /// Turns a [`Held`] reference back into a guard (no register access): dropping the guard
    /// releases it, [`FwGuard::keep`] keeps it again.
    pub(crate) fn resume<'a>(
        &'a self,
        dev: &'a kernel::device::Device,
        bar: Bar0<'a>,
        held: Held,
    ) -> FwGuard<'a> {
        FwGuard {
            fw: self,
            dev,
            bar,
            mask: held.mask,
        }
    }
}

/// A forcewake reference kept across calls, from [`FwGuard::keep`]. Only
/// [`Forcewake::resume`] gives it back; one that is dropped instead keeps its domains awake
/// until unbind, so the owner must hand it back before it goes away.
#[must_use]
pub(crate) struct Held {
    mask: DomainMask,
}

impl Drop for FwGuard<'_> {
    fn drop(&mut self) {
        self.fw.put(self.dev, self.bar, self.mask);
    }
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_forcewake)]
mod tests {
    use super::*;

    #[test]
    fn domain_index_round_trips() {
        for i in 0..DOMAIN_COUNT {
            let d = Domain::from_index(i).ok_or(EINVAL);
            assert_eq!(d.map(Domain::index), Ok(i));
        }
        assert!(Domain::from_index(DOMAIN_COUNT).is_none());
        assert_eq!(Domain::Vdbox(7).index(), 9);
        assert_eq!(Domain::Vebox(0).index(), 10);
    }

    #[test]
    fn media_fuse_selects_present_domains() {
        // ATS-M150 style: VDBOX 0 and 2, VEBOX 0 and 1.
        let mask = DomainMask::from_media_fuse(0b101, 0b11);
        assert!(mask.contains(Domain::Gt) && mask.contains(Domain::Render));
        assert!(mask.contains(Domain::Vdbox(0)) && mask.contains(Domain::Vdbox(2)));
        assert!(!mask.contains(Domain::Vdbox(1)));
        assert!(mask.contains(Domain::Vebox(1)) && !mask.contains(Domain::Vebox(2)));
        // Bits beyond the 8 VDBOX / 4 VEBOX the tables define are ignored.
        let mask = DomainMask::from_media_fuse(0xff00, 0xf0);
        assert_eq!(mask, DomainMask::GT.union(DomainMask::RENDER));
    }

    fn state() -> FwState {
        FwState {
            present: DomainMask::GT.union(DomainMask::RENDER),
            refs: [0; DOMAIN_COUNT],
            user_hold: DomainMask::EMPTY,
            closed: false,
        }
    }

    #[test]
    fn nested_users_wake_once_and_sleep_once() {
        let mut s = state();
        let both = DomainMask::GT.union(DomainMask::RENDER);
        assert_eq!(s.to_wake(DomainMask::GT), DomainMask::GT);
        s.acquire(DomainMask::GT);
        // A nested user of GT costs nothing; RENDER still needs waking.
        assert_eq!(s.to_wake(both), DomainMask::RENDER);
        s.acquire(both);
        assert_eq!(s.to_wake(both), DomainMask::EMPTY);
        // The inner release leaves GT held; RENDER goes idle.
        assert_eq!(s.release(both), DomainMask::RENDER);
        assert_eq!(s.release(DomainMask::GT), DomainMask::GT);
    }

    #[test]
    fn unbalanced_release_does_not_underflow() {
        let mut s = state();
        assert_eq!(s.release(DomainMask::GT), DomainMask::EMPTY);
        s.acquire(DomainMask::GT);
        assert_eq!(s.release(DomainMask::GT), DomainMask::GT);
        assert_eq!(s.to_wake(DomainMask::GT), DomainMask::GT);
    }

    #[test]
    fn mask_set_operations() {
        let a = DomainMask::GT.union(Domain::Vebox(3).bit());
        assert!(a.contains(Domain::Gt) && !a.contains(Domain::Render));
        assert_eq!(a.without(DomainMask::GT), Domain::Vebox(3).bit());
        let mut it = a.iter();
        assert_eq!(it.next(), Some(Domain::Gt));
        assert_eq!(it.next(), Some(Domain::Vebox(3)));
        assert_eq!(it.next(), None);
    }
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_forcewake_table)]
mod table_tests {
    use super::*;

    const RENDER: Wake = Wake::Domain(Domain::Render);
    const GT: Wake = Wake::Domain(Domain::Gt);
    const VD0: Wake = Wake::Domain(Domain::Vdbox(0));
    const VD3: Wake = Wake::Domain(Domain::Vdbox(3));
    const VD4: Wake = Wake::Domain(Domain::Vdbox(4));
    const VE3: Wake = Wake::Domain(Domain::Vebox(3));
    use table::RANGES;

    #[test]
    fn table_is_sorted_contiguous_and_complete() {
        assert_eq!(RANGES[0].start, 0);
        for pair in RANGES.windows(2) {
            assert!(pair[0].start <= pair[0].end);
            assert_eq!(pair[0].end + 1, pair[1].start);
        }
        assert_eq!(RANGES[RANGES.len() - 1].end, 0x23ffff);
    }

    #[test]
    fn every_row_edge() {
        // Both ends of every row map to that row, and the offset just past the end maps to the
        // next row (or to no wake past the table).
        for (i, range) in RANGES.iter().enumerate() {
            assert_eq!(lookup(range.start), range.wake);
            assert_eq!(lookup(range.end), range.wake);
            let next = RANGES.get(i + 1).map_or(Wake::None, |n| n.wake);
            assert_eq!(lookup(range.end + 1), next);
        }
    }

    #[test]
    fn seed_rows_spot_checks() {
        assert_eq!(lookup(0x0b00), Wake::None); // L463 AON
        assert_eq!(lookup(0x2000), RENDER); // L467 RENDER*
        assert_eq!(lookup(0xa188), GT); // L517-L521 (the GT request register itself)
        assert_eq!(lookup(0x9118), GT); // L508 fuses
        assert_eq!(lookup(0xe7c8), RENDER); // L538-L541 DSS
        assert_eq!(lookup(0x14400), VD4); // L554, settled against i915
        assert_eq!(lookup(0x20000), VD0); // L572, settled against i915
        assert_eq!(lookup(0x1d6400), VD3); // unlisted hole, settled
        assert_eq!(lookup(0x1f8000), VE3); // L697
        assert_eq!(lookup(0x190010), Wake::None); // Gunit, outside the table
        assert_eq!(lookup(0x3fffff), Wake::None);
    }

    #[test]
    fn shadowed_registers() {
        assert!(is_shadowed(0xa188));
        assert!(is_shadowed(0xa56c));
        assert!(!is_shadowed(0xa570));
        assert!(is_shadowed(0x1d8030));
        assert!(is_shadowed(0x1f4550));
        assert!(!is_shadowed(0x1f4554));
        assert!(!is_shadowed(0x9118));
    }
}
