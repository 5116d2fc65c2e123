// SPDX-License-Identifier: GPL-2.0

//! Load runs for debugfs `ct` and `make bench`: N requests, N batched or single fast
//! requests, or N MMIO H2G round trips for comparison, each measured by the driver itself
//! (time, register cycles of the whole device, doorbells).
//!
//! The CT message is `UPDATE_SCHEDULING_POLICIES_KLV` with the `RENDER_COMPUTE_YIELD` values the
//! second boot phase already set: the real GuC applies it again and nothing changes. The MMIO
//! comparison asks for the hwconfig table's size, which the GuC answers without work.

use kernel::{
    prelude::*,
    sync::atomic::Relaxed,
    time::{delay::fsleep, Delta, Instant, Monotonic},
};

use super::{Channel, CtAccess, Notify};
use crate::guc::{h2g, msg::GetHwconfig, post_load::YIELD};

/// What a debugfs load run does (`Documentation/debugfs.rst`, file `ct`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum LoadKind {
    /// N blocking REQUESTs, one after the other.
    Ping,
    /// N FAST_REQUESTs in batches sharing one notify, then one REQUEST: the GuC serves in
    /// order, so its reply means all were consumed.
    Fast,
    /// The same with one notify per FAST_REQUEST.
    FastEach,
    /// N MMIO H2G round trips, for comparison.
    MmioPing,
}

impl LoadKind {
    /// The command word.
    pub(crate) fn name(self) -> &'static str {
        match self {
            LoadKind::Ping => "ping",
            LoadKind::Fast => "fast",
            LoadKind::FastEach => "fast-each",
            LoadKind::MmioPing => "mmio-ping",
        }
    }

    /// Parses the command word.
    pub(crate) fn parse(word: &str) -> Option<Self> {
        [
            LoadKind::Ping,
            LoadKind::Fast,
            LoadKind::FastEach,
            LoadKind::MmioPing,
        ]
        .into_iter()
        .find(|k| k.name() == word)
    }
}

/// The outcome of the last load run.
#[derive(Copy, Clone, Debug)]
pub(crate) struct LoadResult {
    pub(crate) kind: LoadKind,
    pub(crate) asked: u32,
    pub(crate) done: u32,
    pub(crate) ns: i64,
    /// Register reads and writes during the run.
    pub(crate) reads: u64,
    pub(crate) writes: u64,
    pub(crate) notifies: u64,
    pub(crate) error: Option<Error>,
}

/// Messages per FAST_REQUEST batch.
const BATCH: usize = 64;

impl Channel {
    /// Runs a load: `n` messages of `kind` (module docs). Process context: sleeps.
    ///
    /// # Errors
    ///
    /// `EBUSY` while another run is in progress; a failed message ends the run and is in the
    /// result, not an error.
    pub(crate) fn load(&self, a: &impl CtAccess, kind: LoadKind, n: u32) -> Result<LoadResult> {
        if self.loading.xchg(true, Relaxed) {
            return Err(EBUSY);
        }
        let result = self.load_run(a, kind, n);
        if let Ok(r) = &result {
            *self.last_load.lock() = Some(*r);
        }
        self.loading.store(false, Relaxed);
        result
    }

    fn load_run(&self, a: &impl CtAccess, kind: LoadKind, n: u32) -> Result<LoadResult> {
        let msg = YIELD;
        let counts = || a.with_io(|io| io.gt.mmio_counts()).ok_or(ENODEV);
        let (r0, w0) = counts()?;
        let n0 = self.stats.notifies.load(Relaxed);
        let start = Instant::<Monotonic>::now();
        let mut done = 0;
        let mut error = None;
        match kind {
            LoadKind::Ping => {
                while done < n {
                    if let Err(e) = self.request(a, &msg) {
                        error = Some(e);
                        break;
                    }
                    done += 1;
                }
            }
            LoadKind::Fast | LoadKind::FastEach => {
                let notify = if kind == LoadKind::Fast {
                    Notify::Once
                } else {
                    Notify::Each
                };
                let msgs = [msg; BATCH];
                while done < n && error.is_none() {
                    let chunk = ((n - done) as usize).min(BATCH);
                    match a.with_io(|io| self.send_fast_batch(io, &msgs[..chunk], notify)) {
                        // CAST: at most `BATCH`.
                        Some(Ok(k)) => done += k as u32,
                        // H2G full: the GuC is behind; let it drain.
                        Some(Err(e)) if e == EBUSY => fsleep(Delta::from_micros(100)),
                        Some(Err(e)) => error = Some(e),
                        None => error = Some(ENODEV),
                    }
                    if start.elapsed() > Delta::from_secs(30) {
                        error = Some(ETIMEDOUT);
                    }
                }
                if error.is_none() {
                    error = self.request(a, &msg).err();
                }
            }
            LoadKind::MmioPing => {
                while done < n {
                    match a.with_io(|io| h2g::send_atomic(io.gt, &GetHwconfig::QUERY)) {
                        Some(Ok(h2g::Reply::Success(_))) => done += 1,
                        Some(Ok(h2g::Reply::Failure { .. })) => {
                            error = Some(EIO);
                            break;
                        }
                        Some(Err(e)) => {
                            error = Some(e);
                            break;
                        }
                        None => {
                            error = Some(ENODEV);
                            break;
                        }
                    }
                }
            }
        }
        let ns = start.elapsed().as_nanos();
        let (r1, w1) = counts()?;
        Ok(LoadResult {
            kind,
            asked: n,
            done,
            ns,
            reads: r1 - r0,
            writes: w1 - w0,
            notifies: self.stats.notifies.load(Relaxed) - n0,
            error,
        })
    }

    /// The `load:` line of the report.
    pub(super) fn fmt_load(&self, f: &mut kernel::fmt::Formatter<'_>) -> kernel::fmt::Result {
        let Some(r) = *self.last_load.lock() else {
            return f.write_str("load: none\n");
        };
        f.write_fmt(fmt!(
            "load: {} n={} done={} ns={} reads={} writes={} notifies={} error={}\n",
            r.kind.name(),
            r.asked,
            r.done,
            r.ns,
            r.reads,
            r.writes,
            r.notifies,
            r.error.map_or(0, |e| e.to_errno())
        ))
    }
}
