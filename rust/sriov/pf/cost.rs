// SPDX-License-Identifier: GPL-2.0

//! What the last provision and unprovision cost, for the bench (`make bench`): the time, the
//! GGTT and LMTT bytes written (the GGTT bytes of the local-memory clears also apart), and
//! (test build) the reference copy of as many bytes.
//!
//! [`Pf::provision`] and [`Pf::unprovision`] take a [`Mark`] before they run and record a
//! [`Cost`] after; the debugfs `sriov` report shows both (`provision_last`,
//! `unprovision_last`).

use kernel::{
    sync::atomic::{Atomic, Relaxed},
    time::{Instant, Monotonic},
};
// The reference copy (test build).
#[cfg(xehpg_test)]
use kernel::prelude::*;

use super::Pf;

/// What one provision or unprovision cost, for the bench (`make bench`): its time, the table
/// bytes it wrote, and (test build only: the cost model the bench compares with) the time the
/// CPU takes to copy as many bytes between two kernel buffers, measured right after it in the
/// same boot so the ratio compares like with like. The production module keeps the cheap
/// counters and allocates no reference buffers.
/// Written after the operation under no lock; a reader racing a second operation may see a
/// mix of the two, which the bench never does (one command at a time).
pub(super) struct Cost {
    vfs: Atomic<u64>,
    ns: Atomic<u64>,
    /// GGTT entries written x 8 (the GSM writes counted by BAR 0 over the operation).
    ggtt_bytes: Atomic<u64>,
    /// The part of `ggtt_bytes` the copy engine's clears of the VFs' local memory wrote (their
    /// GGTT windows pointed and scrubbed); 0 when the operation clears nothing.
    clear_ggtt_bytes: Atomic<u64>,
    /// LMTT bytes written over the operation.
    lmtt_bytes: Atomic<u64>,
    /// The reference copy of `ggtt_bytes + lmtt_bytes`; 0 when it could not be allocated.
    #[cfg(xehpg_test)]
    memcpy_ns: Atomic<u64>,
}

impl Cost {
    pub(super) fn new() -> Self {
        Self {
            vfs: Atomic::new(0),
            ns: Atomic::new(0),
            ggtt_bytes: Atomic::new(0),
            clear_ggtt_bytes: Atomic::new(0),
            lmtt_bytes: Atomic::new(0),
            #[cfg(xehpg_test)]
            memcpy_ns: Atomic::new(0),
        }
    }

    /// The report line `name: vfs V ns T ggtt_bytes B lmtt_bytes L [memcpy_ns M]
    /// clear_ggtt_bytes C`: the clear's bytes last, so the fields before keep their places.
    pub(super) fn fmt(&self, f: &mut impl core::fmt::Write, name: &str) -> core::fmt::Result {
        write!(
            f,
            "{}: vfs {} ns {} ggtt_bytes {} lmtt_bytes {}",
            name,
            self.vfs.load(Relaxed),
            self.ns.load(Relaxed),
            self.ggtt_bytes.load(Relaxed),
            self.lmtt_bytes.load(Relaxed),
        )?;
        #[cfg(xehpg_test)]
        write!(f, " memcpy_ns {}", self.memcpy_ns.load(Relaxed))?;
        writeln!(
            f,
            " clear_ggtt_bytes {}",
            self.clear_ggtt_bytes.load(Relaxed)
        )
    }
}

/// Where the table counters stood when an operation began: (GSM writes, LMTT bytes).
#[derive(Copy, Clone)]
pub(super) struct Mark {
    gsm: u64,
    lmtt: u64,
    start: Instant<Monotonic>,
}

/// Nanoseconds the CPU takes to copy `bytes` from one vmalloc'ed kernel buffer to another
/// (process context): the reference the table writes are compared with. The source is
/// non-zero so the copy cannot be satisfied by zero pages, and the result is checked so it
/// cannot be dropped. Test build only.
#[cfg(xehpg_test)]
fn memcpy_ns(bytes: u64) -> Result<u64> {
    let n = usize::try_from(bytes).map_err(|_| EINVAL)?;
    if n == 0 {
        return Ok(0);
    }
    let a = VVec::from_elem(0xa5u8, n, GFP_KERNEL)?;
    let mut b = VVec::from_elem(0u8, n, GFP_KERNEL)?;
    let start = Instant::<Monotonic>::now();
    b.copy_from_slice(&a);
    // CAST: a non-negative duration.
    let ns = start.elapsed().as_nanos() as u64;
    if b.get(n - 1) != Some(&0xa5) {
        return Err(EIO);
    }
    Ok(ns)
}

impl Pf {
    /// Where the table counters stand now, and the time.
    pub(super) fn mark(&self) -> Mark {
        Mark {
            gsm: self.b.hw.bar().gsm_writes(),
            lmtt: self.stats.lmtt_bytes.load(Relaxed),
            start: Instant::<Monotonic>::now(),
        }
    }

    /// Records what an operation on `vfs` VFs that began at `mark` cost, then (test build)
    /// times the reference copy of as many bytes (after the operation, outside the lock). The GGTT
    /// bytes are BAR 0's GSM writes over the operation: every GGTT write of the driver, so
    /// another GGTT user running at the same time (none in the bench) would be counted too;
    /// `clear_gsm` is the part of them the operation's local-memory clears made (the same
    /// counter around the clears). Process context.
    pub(super) fn record(&self, cost: &Cost, vfs: u64, mark: Mark, clear_gsm: u64) {
        // CAST: a non-negative duration.
        let ns = mark.start.elapsed().as_nanos() as u64;
        let ggtt = self.b.hw.bar().gsm_writes().wrapping_sub(mark.gsm) * 8;
        let lmtt = self.stats.lmtt_bytes.load(Relaxed).wrapping_sub(mark.lmtt);
        cost.vfs.store(vfs, Relaxed);
        cost.ns.store(ns, Relaxed);
        cost.ggtt_bytes.store(ggtt, Relaxed);
        cost.clear_ggtt_bytes.store(clear_gsm * 8, Relaxed);
        cost.lmtt_bytes.store(lmtt, Relaxed);
        #[cfg(xehpg_test)]
        {
            let copy = memcpy_ns(ggtt + lmtt).unwrap_or_else(|e| {
                dev_warn!(
                    self.dev,
                    "sriov: no reference copy of {} bytes: {}\n",
                    ggtt + lmtt,
                    e.to_errno()
                );
                0
            });
            cost.memcpy_ns.store(copy, Relaxed);
        }
    }
}
