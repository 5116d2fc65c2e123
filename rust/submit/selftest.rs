// SPDX-License-Identifier: GPL-2.0

//! The debugfs `submit` selftest: work a driver core can run without a user API.
//!
//! `ENGINE N` (an engine name, or `all`) submits N requests to each engine named, one at a
//! time as fast as the ring takes them. Request i stores a value derived from i into slot
//! i mod [`SLOTS`] of a scratch buffer in local memory (through the GGTT), then writes its
//! seqno and raises the user interrupt. The run checks that every request retired exactly
//! once (the port's completed count moves by N and its queue drains), then reads every slot
//! back through BAR 2 against the value of the last request that wrote it. Reading `submit`
//! prints the last run: requests, completions, errors, the payload check, the per-request
//! latency (submission to retirement: median and 99th percentile) and the rate.
//!
//! Process context; sleeps only between submissions, outside every lock and BAR access.

use kernel::{
    fmt,
    prelude::*,
    sync::atomic::Relaxed,
    time::{delay::fsleep, Delta, Instant, Monotonic},
};

use super::{
    port::{Kick, Port, MAX_INFLIGHT},
    Mode, Submit,
};
use crate::{engine::ENGINES, guc::ct::channel::Channel, mem::ggtt::Mapping, range::Range};

/// Slots of the scratch buffer (64 KiB of dwords).
pub(crate) const SLOTS: usize = 16384;
/// Scratch size in bytes.
pub(crate) const SCRATCH_BYTES: u64 = (SLOTS * 4) as u64;
/// Largest N.
const MAX_REQUESTS: usize = 1_000_000;
/// A port that retires nothing for this long is hung (i915's default heartbeat is 2.5 s;
/// the selftest's requests are a few commands each).
const STALL_MS: u32 = 2000;

/// The scratch buffer: local memory, mapped into the GGTT at probe.
pub(crate) struct Scratch {
    pub(crate) lmem: Range,
    pub(crate) map: Mapping,
}

/// The outcome of one engine's run.
#[derive(Copy, Clone, Default)]
pub(crate) struct Outcome {
    requests: u32,
    completed: u64,
    /// Requests failed by the hang recovery.
    failed: u64,
    /// Errno of the run's failure, 0 if none.
    errno: i32,
    /// First slot whose value was wrong, with what it held and what was expected.
    mismatch: Option<(u32, u32, u32)>,
    median_ns: u64,
    p99_ns: u64,
    elapsed_ns: u64,
    /// ELSQ Loads and engine interrupts the run took, and the device's MMIO over the run
    /// (everything: submissions, interrupts, forcewake), for `make bench`.
    loads: u64,
    interrupts: u64,
    mmio: (u64, u64),
}

/// The last run, per engine (in [`ENGINES`] order).
#[derive(Default)]
pub(crate) struct Report {
    runs: u64,
    outcomes: [Option<Outcome>; ENGINES.len()],
}

/// The value request `i` of run `run` stores.
const fn value(run: u64, i: usize) -> u32 {
    // CAST: mixing bits; truncation is intended.
    ((run as u32) << 24) ^ (i as u32).wrapping_mul(0x9e37_79b1) ^ 0x5a5a_0000
}

impl Submit {
    /// Parses and runs a `submit` command.
    ///
    /// # Errors
    ///
    /// `EINVAL` for a malformed command or an engine this device lacks, `EBUSY` while another
    /// run is in progress, `ENODEV` without execlist submission.
    pub(crate) fn selftest(&self, cmd: &str, ct: &Channel) -> Result {
        let mut words = cmd.split_whitespace();
        let (Some(which), Some(n), None) = (words.next(), words.next(), words.next()) else {
            return Err(EINVAL);
        };
        let n: usize = n.parse().map_err(|_| EINVAL)?;
        if n == 0 || n > MAX_REQUESTS {
            return Err(EINVAL);
        }
        if which != "all" && self.port(which).is_none() {
            return Err(EINVAL);
        }
        let Some(scratch) = self.scratch.as_ref() else {
            return Err(ENODEV);
        };
        let mut report = self.last.try_lock().ok_or(EBUSY)?;
        report.runs += 1;
        let run = report.runs;
        report.outcomes = [None; ENGINES.len()];
        for p in self
            .ports
            .iter()
            .filter(|p| which == "all" || p.engine.name == which)
        {
            let outcome = self.run_one(p, ct, scratch, run, n);
            if outcome.errno != 0 {
                p.stats.errors.add(1, Relaxed);
            }
            if let Some(i) = ENGINES.iter().position(|e| e.name == p.engine.name) {
                report.outcomes[i] = Some(outcome);
            }
        }
        Ok(())
    }

    /// One engine's run.
    fn run_one(&self, p: &Port, ct: &Channel, scratch: &Scratch, run: u64, n: usize) -> Outcome {
        let mut out = Outcome {
            // CAST: n <= MAX_REQUESTS.
            requests: n as u32,
            ..Outcome::default()
        };
        if let Err(e) = self.fill_scratch(scratch, n) {
            out.errno = e.to_errno();
            return out;
        }
        if let Err(e) = p.record_latencies(n) {
            out.errno = e.to_errno();
            return out;
        }
        let before = p.stats.completed.load(Relaxed);
        let (loads, irqs) = (
            p.stats.loads.load(Relaxed),
            p.stats.interrupts.load(Relaxed),
        );
        let mmio = self.bar.counts();
        let start = Instant::<Monotonic>::now();
        let res = self.submit_all(p, ct, scratch, run, n, &mut out.failed);
        let drained = res.is_ok() && self.drain(p, ct, &mut out.failed);
        // CAST: a non-negative duration.
        out.elapsed_ns = start.elapsed().as_nanos() as u64;
        out.completed = p.stats.completed.load(Relaxed) - before;
        out.loads = p.stats.loads.load(Relaxed) - loads;
        out.interrupts = p.stats.interrupts.load(Relaxed) - irqs;
        let now = self.bar.counts();
        out.mmio = (now.0 - mmio.0, now.1 - mmio.1);
        if let Some(mut l) = p.take_latencies() {
            l.sort_unstable();
            out.median_ns = l.get(l.len() / 2).copied().unwrap_or(0);
            out.p99_ns = l.get(l.len() * 99 / 100).copied().unwrap_or(0);
        }
        out.errno = match res {
            Err(e) => e.to_errno(),
            Ok(()) if !drained => ETIMEDOUT.to_errno(),
            // CAST: usize to u64 is lossless.
            Ok(()) if out.completed != n as u64 => EIO.to_errno(),
            Ok(()) => 0,
        };
        if out.errno == ETIMEDOUT.to_errno() {
            // A hang: the engine (or the context) is reset and the requests in flight fail;
            // the port takes new work afterwards.
            if let Ok(failed) = self.recover(p, ct, "made no progress") {
                // CAST: usize to u64 is lossless.
                out.failed += failed as u64;
            }
        }
        if out.failed > 0 && out.errno == 0 {
            out.errno = EIO.to_errno();
        }
        if out.errno == 0 {
            out.mismatch = self
                .check_scratch(scratch, run, n)
                .unwrap_or(Some((0, 0, 0)));
        }
        out
    }

    /// Zeroes the slots a run of `n` uses.
    fn fill_scratch(&self, scratch: &Scratch, n: usize) -> Result {
        // CAST: at most SLOTS dwords.
        let len = (n.min(SLOTS) * 4) as u64;
        self.lmem
            .try_access_with(|a| a.zero(scratch.lmem.start, len))
            .unwrap_or(Err(ENODEV))
    }

    /// Submits the `n` requests, waiting for room when the ring or queue is full; a GuC reset
    /// met on the way is recovered (its failed requests added to `failed`) and the run goes on.
    fn submit_all(
        &self,
        p: &Port,
        ct: &Channel,
        scratch: &Scratch,
        run: u64,
        n: usize,
        failed: &mut u64,
    ) -> Result {
        for i in 0..n {
            // CAST: slot offsets below 64 KiB.
            let addr = scratch.map.addr(((i % SLOTS) * 4) as u64) as u32;
            let payload = Some((addr, value(run, i)));
            loop {
                match self.with_gt(|gt| p.submit(gt, payload)) {
                    Ok((_, Kick::None)) => break,
                    Ok((_, Kick::Sched(id))) => {
                        self.kick(p, ct, id)?;
                        break;
                    }
                    Ok((_, Kick::Doorbell(offset, cookie))) => {
                        self.ring(offset, cookie)?;
                        break;
                    }
                    Err(e) if e == EBUSY => {
                        let room = p.wait_progress(STALL_MS, |st| {
                            st.count < MAX_INFLIGHT / 2 || Port::settled(st) && st.count > 0
                        });
                        if !room {
                            return Err(ETIMEDOUT);
                        }
                        if p.guc_reset_pending() {
                            // CAST: usize to u64 is lossless.
                            *failed += self.recover(p, ct, "was reset by the GuC")? as u64;
                        }
                    }
                    Err(e) if e == EIO && p.guc_reset_pending() => {
                        // CAST: usize to u64 is lossless.
                        *failed += self.recover(p, ct, "was reset by the GuC")? as u64;
                    }
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(())
    }

    /// `SCHED_CONTEXT`, retried while H2G is full (the GuC is behind; up to a second).
    fn kick(&self, p: &Port, ct: &Channel, id: u16) -> Result {
        for _ in 0..10_000 {
            match p.guc_kick(self, ct, id) {
                Err(e) if e == EBUSY => fsleep(Delta::from_micros(100)),
                r => return r,
            }
        }
        Err(EBUSY)
    }

    /// Waits for the queue to drain. A GuC reset is recovered on the way; a GuC-mode stall is
    /// first answered by sending `SCHED_CONTEXT` again (the GuC may have lost one). Returns
    /// whether it drained.
    fn drain(&self, p: &Port, ct: &Channel, failed: &mut u64) -> bool {
        let mut kicked = false;
        loop {
            let settled = p.wait_progress(STALL_MS, Port::settled);
            if p.guc_reset_pending() {
                match self.recover(p, ct, "was reset by the GuC") {
                    // CAST: usize to u64 is lossless.
                    Ok(k) => *failed += k as u64,
                    Err(_) => return false,
                }
                continue;
            }
            if settled {
                return true;
            }
            match p.guc_id() {
                Some(id) if !kicked => {
                    dev_warn!(
                        self.dev,
                        "submit: {}: no progress for {} ms; SCHED_CONTEXT sent again\n",
                        p.engine.name,
                        STALL_MS
                    );
                    kicked = true;
                    if self.kick(p, ct, id).is_err() {
                        return false;
                    }
                }
                _ => return false,
            }
        }
    }

    /// Hang or reset recovery in the device's mode; returns the requests failed.
    fn recover(&self, p: &Port, ct: &Channel, why: &str) -> Result<usize> {
        match self.mode() {
            Mode::Guc => p.guc_recover(self, ct, self.doorbells(), why),
            _ => self.with_gt(|gt| p.recover(gt, STALL_MS)),
        }
    }

    /// Reads the used slots back; the first wrong one, if any.
    fn check_scratch(
        &self,
        scratch: &Scratch,
        run: u64,
        n: usize,
    ) -> Result<Option<(u32, u32, u32)>> {
        for slot in 0..n.min(SLOTS) {
            // The last request that wrote this slot.
            let last = slot + (n - 1 - slot) / SLOTS * SLOTS;
            let want = value(run, last);
            // CAST: slot < SLOTS.
            let at = scratch.lmem.start + (slot * 4) as u64;
            let got = self
                .lmem
                .try_access_with(|a| a.read32(at))
                .unwrap_or(Err(ENODEV))?;
            if got != want {
                // CAST: slot < SLOTS.
                return Ok(Some((slot as u32, got, want)));
            }
        }
        Ok(None)
    }

    /// The debugfs `submit` report.
    ///
    /// # Errors
    ///
    /// Only the formatter's.
    pub(crate) fn fmt_selftest(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(r) = self.last.try_lock() else {
            return f.write_str("running\n");
        };
        f.write_fmt(fmt!("runs: {}\n", r.runs))?;
        for (e, o) in ENGINES.iter().zip(r.outcomes.iter()) {
            let Some(o) = o else { continue };
            let rate = (o.completed * 1_000_000_000)
                .checked_div(o.elapsed_ns)
                .unwrap_or(0);
            f.write_fmt(fmt!(
                "{}: mode {} requests {} completed {} failed {} errno {} payload ",
                e.name,
                self.mode().name(),
                o.requests,
                o.completed,
                o.failed,
                o.errno
            ))?;
            match o.mismatch {
                None if o.errno == 0 => f.write_str("ok")?,
                None => f.write_str("unchecked")?,
                Some((slot, got, want)) => f.write_fmt(fmt!(
                    "bad slot {} read {:#010x} expected {:#010x}",
                    slot,
                    got,
                    want
                ))?,
            }
            f.write_fmt(fmt!(
                " latency_us median {} p99 {} elapsed_us {} rate {}/s loads {} interrupts {} \
                 mmio_reads {} mmio_writes {}\n",
                o.median_ns / 1000,
                o.p99_ns / 1000,
                o.elapsed_ns / 1000,
                rate,
                o.loads,
                o.interrupts,
                o.mmio.0,
                o.mmio.1
            ))?;
        }
        Ok(())
    }
}
