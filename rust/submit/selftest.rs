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
//! `clear MIB` fills MIB MiB of local memory with a pattern through BAR 2, clears it with the
//! copy engine ([`super::clear`], in 4 MiB windows so the window is re-pointed) and reads it
//! back: all zeros, and the 64 KiB after it untouched.
//!
//! Process context; sleeps only between submissions, outside every lock and BAR access.

use kernel::{
    fmt,
    prelude::*,
    sync::atomic::Relaxed,
    time::{Instant, Monotonic},
};

use super::{
    port::{Port, State, MAX_INFLIGHT},
    Submit, STALL_MS,
};
use crate::{
    engine::{Payload, ENGINES},
    guc::Channel,
    mem::{ggtt::Mapping, lmem::LmemBlock},
    range::Range,
};

/// Slots of the scratch buffer (64 KiB of dwords).
pub(crate) const SLOTS: usize = 16384;
/// Scratch size in bytes.
pub(crate) const SCRATCH_BYTES: u64 = (SLOTS * 4) as u64;
/// Largest N.
const MAX_REQUESTS: usize = 1_000_000;

/// The scratch buffer: local memory, mapped into the GGTT at probe. The memory goes back to
/// the pool when this is dropped (with [`Submit`]), after `fini` has unmapped it.
pub(crate) struct Scratch {
    pub(crate) lmem: LmemBlock,
    pub(crate) map: Mapping,
}

/// The outcome of one engine's run.
#[derive(Copy, Clone, Default)]
pub(crate) struct Outcome {
    requests: u32,
    completed: u64,
    /// Requests failed over the run: by the hang recovery, a GuC reset of the context, or a
    /// GT reset (the port's own count, so every path is included).
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

/// The last run, per engine (in [`ENGINES`] order), and the last blit.
#[derive(Default)]
pub(crate) struct Report {
    runs: u64,
    outcomes: [Option<Outcome>; ENGINES.len()],
    blit: Option<BlitOutcome>,
    clear: Option<ClearOutcome>,
}

/// The outcome of a `clear MIB` run.
#[derive(Copy, Clone, Default)]
struct ClearOutcome {
    mib: u32,
    errno: i32,
    /// First byte offset whose dword was wrong, with what it held and what was expected.
    mismatch: Option<(u64, u32, u32)>,
    clear_ns: u64,
}

/// `clear MIB` goes through windows of this size, so a run re-points the window several times.
const CLEAR_WINDOW: u64 = 4 << 20;
/// Bytes after the cleared range that must keep their pattern.
const CLEAR_GUARD: u64 = 64 << 10;

/// The outcome of a `blit MIB` run.
#[derive(Copy, Clone, Default)]
struct BlitOutcome {
    mib: u32,
    errno: i32,
    /// First byte offset whose dword was wrong, with what it held and what was expected.
    mismatch: Option<(u64, u32, u32)>,
    /// The copy on the engine (submission to retirement), and the same size copied by the
    /// CPU in kernel memory.
    blit_ns: u64,
    memcpy_ns: u64,
}

/// Largest blit, in MiB.
const MAX_BLIT_MIB: usize = 64;
/// One `XY_FAST_COPY_BLT` copies this many rows of [`BLIT_PITCH`] bytes: 4 MiB, within the
/// field limits `emit_xy_fast_copy` asserts (pitch <= 65535, rows <= 32767).
const BLIT_ROWS: u16 = 256;
const BLIT_PITCH: u16 = 16384;
const BLIT_CHUNK: usize = BLIT_ROWS as usize * BLIT_PITCH as usize;
/// Host-side copies through BAR 2 go a buffer at a time.
const IO_CHUNK: usize = 64 << 10;

/// The pattern dword at byte offset `at` of a blit's source, for run `run`.
const fn pattern(run: u64, at: u64) -> u32 {
    // CAST: mixing bits; truncation is intended.
    ((at as u32) >> 2).wrapping_mul(0x9e37_79b1) ^ (run as u32).rotate_left(16) ^ 0xb117_0000
}

/// A buffer of local memory mapped into the GGTT for one blit.
#[derive(Copy, Clone)]
struct Buffer {
    lmem: Range,
    map: Mapping,
}

/// Nanoseconds the CPU takes to copy `bytes` between two kernel buffers (the comparison for
/// the blit).
fn memcpy_ns(bytes: u64) -> Result<u64> {
    // CAST: at most 64 MiB.
    let n = bytes as usize;
    let a = KVVec::from_elem(0x5au8, n, GFP_KERNEL)?;
    let mut b = KVVec::from_elem(0u8, n, GFP_KERNEL)?;
    let start = Instant::<Monotonic>::now();
    b.copy_from_slice(&a);
    // CAST: a non-negative duration.
    let ns = start.elapsed().as_nanos() as u64;
    // Keep the copy from being optimised away.
    if b.get(n / 2) != Some(&0x5a) {
        return Err(EIO);
    }
    Ok(ns)
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
        if which == "clear" {
            let mib: usize = n.parse().map_err(|_| EINVAL)?;
            if mib == 0 || mib > MAX_BLIT_MIB || self.port("bcs0").is_none() {
                return Err(EINVAL);
            }
            let mut report = self.last.try_lock().ok_or(EBUSY)?;
            report.runs += 1;
            let run = report.runs;
            report.clear = Some(self.clear_run(ct, run, mib));
            return Ok(());
        }
        if which == "blit" {
            let mib: usize = n.parse().map_err(|_| EINVAL)?;
            if mib == 0 || mib > MAX_BLIT_MIB || self.port("bcs0").is_none() {
                return Err(EINVAL);
            }
            let mut report = self.last.try_lock().ok_or(EBUSY)?;
            report.runs += 1;
            let run = report.runs;
            report.blit = Some(self.blit(ct, run, mib));
            return Ok(());
        }
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
        let failed_before = p.stats.failed.load(Relaxed);
        // The recoveries' own counts; the report takes the port's, which a GT reset adds to.
        let mut recovered = 0u64;
        let (loads, irqs) = (
            p.stats.loads.load(Relaxed),
            p.stats.interrupts.load(Relaxed),
        );
        let mmio = self.hw.bar().counts();
        let start = Instant::<Monotonic>::now();
        let res = self.submit_all(p, ct, scratch, run, n, &mut recovered);
        let drained = res.is_ok() && self.drain(p, ct, &mut recovered);
        // CAST: a non-negative duration.
        out.elapsed_ns = start.elapsed().as_nanos() as u64;
        out.completed = p.stats.completed.load(Relaxed) - before;
        out.loads = p.stats.loads.load(Relaxed) - loads;
        out.interrupts = p.stats.interrupts.load(Relaxed) - irqs;
        let now = self.hw.bar().counts();
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
            let _ = self.recover(p, ct, "made no progress");
        }
        out.failed = p.stats.failed.load(Relaxed) - failed_before;
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
        self.hw
            .lmembar()
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
            let payload = Payload::Store {
                addr,
                value: value(run, i),
            };
            loop {
                match self.with_gt(|gt| p.submit(gt, payload)) {
                    Ok((_, kick)) => {
                        self.send(p, ct, kick)?;
                        break;
                    }
                    Err(e) if e == EBUSY => {
                        let room = |st: &State| {
                            st.count < MAX_INFLIGHT / 2 || Port::settled(st) && st.count > 0
                        };
                        if !p.wait_progress(STALL_MS, room) {
                            self.nudge(p, ct)?;
                            if !p.wait_progress(STALL_MS, room) {
                                return Err(ETIMEDOUT);
                            }
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
                .hw
                .lmembar()
                .try_access_with(|a| a.read32(at))
                .unwrap_or(Err(ENODEV))?;
            if got != want {
                // CAST: slot < SLOTS.
                return Ok(Some((slot as u32, got, want)));
            }
        }
        Ok(None)
    }

    /// `blit MIB`: copies MIB MiB of local memory to another buffer of local memory on the
    /// copy engine and checks every dword through BAR 2; times a CPU copy of the same size in
    /// kernel memory for comparison. Process context: allocates, sleeps.
    fn blit(&self, ct: &Channel, run: u64, mib: usize) -> BlitOutcome {
        // CAST: mib <= 64.
        let mut out = BlitOutcome {
            mib: mib as u32,
            ..BlitOutcome::default()
        };
        let bytes = (mib << 20) as u64;
        let res = self.with_buffers(bytes, |src, dst| {
            self.blit_in(ct, run, bytes, src, dst, &mut out)
        });
        if let Err(e) = res {
            out.errno = e.to_errno();
        }
        out
    }

    /// `clear MIB`: fills MIB MiB of local memory and a guard after it with a pattern through
    /// BAR 2, clears the MIB MiB with [`Submit::clear_lmem`]'s code in [`CLEAR_WINDOW`]
    /// windows, then reads it all back: zeros, and the guard untouched. The selftest's mutex
    /// is held (the caller's). Process context.
    fn clear_run(&self, ct: &Channel, run: u64, mib: usize) -> ClearOutcome {
        // CAST: mib <= 64.
        let mut out = ClearOutcome {
            mib: mib as u32,
            ..ClearOutcome::default()
        };
        let bytes = (mib << 20) as u64;
        // The memory goes back to the pool as `lmem` drops.
        let res = self
            .hw
            .pool()
            .alloc(bytes + CLEAR_GUARD)
            .and_then(|lmem| self.clear_in(ct, run, *lmem, bytes, &mut out));
        if let Err(e) = res {
            out.errno = e.to_errno();
        }
        out
    }

    fn clear_in(
        &self,
        ct: &Channel,
        run: u64,
        lmem: Range,
        bytes: u64,
        out: &mut ClearOutcome,
    ) -> Result {
        let mut buf = KVVec::from_elem(0u8, IO_CHUNK, GFP_KERNEL)?;
        let mut at = 0u64;
        while at < lmem.size() {
            for (i, w) in buf.chunks_exact_mut(4).enumerate() {
                // CAST: i < 16384.
                w.copy_from_slice(&pattern(run, at + (i * 4) as u64).to_le_bytes());
            }
            self.hw
                .lmembar()
                .try_access_with(|a| a.write_bytes(lmem.start + at, &buf))
                .unwrap_or(Err(ENODEV))?;
            at += IO_CHUNK as u64;
        }
        let start = Instant::<Monotonic>::now();
        let range = Range {
            start: lmem.start,
            end: lmem.start + bytes,
        };
        self.clear_locked(ct, range, CLEAR_WINDOW)
            .map_err(|(what, e)| {
                dev_err!(
                    self.dev,
                    "submit: clear failed at {}: {}\n",
                    what,
                    e.to_errno()
                );
                e
            })?;
        // CAST: a non-negative duration.
        out.clear_ns = start.elapsed().as_nanos() as u64;
        let mut at = 0u64;
        while at < lmem.size() {
            self.hw
                .lmembar()
                .try_access_with(|a| a.read_bytes(lmem.start + at, &mut buf))
                .unwrap_or(Err(ENODEV))?;
            for (i, w) in buf.chunks_exact(4).enumerate() {
                // CAST: i < 16384.
                let off = at + (i * 4) as u64;
                let got = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
                let want = if off < bytes { 0 } else { pattern(run, off) };
                if got != want {
                    out.mismatch = Some((off, got, want));
                    return Ok(());
                }
            }
            at += IO_CHUNK as u64;
        }
        Ok(())
    }

    /// Two buffers of `bytes` in local memory, mapped into the GGTT, for `f`; unmapped and
    /// freed afterwards whatever `f` returns. The GGTT range is reserved outside the BAR
    /// access (its allocator sleeps) and its entries written inside it.
    fn with_buffers(&self, bytes: u64, f: impl FnOnce(Buffer, Buffer) -> Result) -> Result {
        // The local memory (`_src_mem`, `_dst_mem`) is dropped, and so freed, when this
        // returns: after the GGTT ranges pointing at it are gone.
        let (src, _src_mem) = self.buffer(bytes)?;
        let (dst, _dst_mem) = match self.buffer(bytes) {
            Ok(d) => d,
            Err(e) => {
                self.drop_buffer(src);
                return Err(e);
            }
        };
        let res = f(src, dst);
        self.drop_buffer(src);
        self.drop_buffer(dst);
        res
    }

    /// A buffer and the local memory it owns (freed when that drops, which the caller does
    /// after [`Self::drop_buffer`]).
    fn buffer(&self, bytes: u64) -> Result<(Buffer, LmemBlock)> {
        let mem = self.hw.pool().alloc(bytes)?;
        let lmem = *mem;
        let ggtt = self.hw.ggtt().reserve(bytes)?;
        let map = Mapping { ggtt };
        let pointed = self
            .hw
            .bar()
            .try_access_with(|bar| self.hw.ggtt().point(bar, map, lmem.start, true))
            .unwrap_or(Err(ENODEV));
        let b = Buffer { lmem, map };
        if let Err(e) = pointed {
            self.drop_buffer(b);
            return Err(e);
        }
        Ok((b, mem))
    }

    /// Clears and releases `b`'s GGTT range; its local memory is the caller's to drop.
    fn drop_buffer(&self, b: Buffer) {
        let _ = self
            .hw
            .bar()
            .try_access_with(|bar| self.hw.ggtt().clear(bar, b.map));
        self.hw.ggtt().release(b.map.ggtt);
    }

    fn blit_in(
        &self,
        ct: &Channel,
        run: u64,
        bytes: u64,
        src: Buffer,
        dst: Buffer,
        out: &mut BlitOutcome,
    ) -> Result {
        let p = self.port("bcs0").ok_or(ENODEV)?;
        let mut buf = KVVec::from_elem(0u8, IO_CHUNK, GFP_KERNEL)?;
        // The source gets the pattern, the destination zeroes, through BAR 2.
        let mut at = 0u64;
        while at < bytes {
            for (i, w) in buf.chunks_exact_mut(4).enumerate() {
                // CAST: i < 16384.
                w.copy_from_slice(&pattern(run, at + (i * 4) as u64).to_le_bytes());
            }
            self.hw
                .lmembar()
                .try_access_with(|a| {
                    a.write_bytes(src.lmem.start + at, &buf)?;
                    a.zero(dst.lmem.start + at, IO_CHUNK as u64)
                })
                .unwrap_or(Err(ENODEV))?;
            at += IO_CHUNK as u64;
        }
        let start = Instant::<Monotonic>::now();
        let mut done = 0u64;
        while done < bytes {
            // CAST: GGTT addresses are below 4 GiB.
            let copy = Payload::Copy {
                src: src.map.addr(done) as u32,
                dst: dst.map.addr(done) as u32,
                rows: BLIT_ROWS,
                pitch: BLIT_PITCH,
            };
            let (_, kick) = self.with_gt(|gt| p.submit(gt, copy))?;
            self.send(p, ct, kick)?;
            done += BLIT_CHUNK as u64;
        }
        let mut failed = 0;
        if !self.drain(p, ct, &mut failed) || failed > 0 {
            return Err(ETIMEDOUT);
        }
        // CAST: a non-negative duration.
        out.blit_ns = start.elapsed().as_nanos() as u64;
        out.memcpy_ns = memcpy_ns(bytes)?;
        let mut at = 0u64;
        while at < bytes {
            self.hw
                .lmembar()
                .try_access_with(|a| a.read_bytes(dst.lmem.start + at, &mut buf))
                .unwrap_or(Err(ENODEV))?;
            for (i, w) in buf.chunks_exact(4).enumerate() {
                // CAST: i < 16384.
                let off = at + (i * 4) as u64;
                let got = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
                if got != pattern(run, off) {
                    out.mismatch = Some((off, got, pattern(run, off)));
                    return Ok(());
                }
            }
            at += IO_CHUNK as u64;
        }
        Ok(())
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
        if let Some(b) = &r.blit {
            f.write_fmt(fmt!("blit: mib {} errno {} data ", b.mib, b.errno))?;
            fmt_data(f, b.errno, b.mismatch)?;
            // Throughput of the engine's copy as a share of the CPU's, in percent.
            let share = (b.memcpy_ns * 100).checked_div(b.blit_ns).unwrap_or(0);
            f.write_fmt(fmt!(
                " blit_us {} memcpy_us {} blit_vs_memcpy_pct {}\n",
                b.blit_ns / 1000,
                b.memcpy_ns / 1000,
                share
            ))?;
        }
        if let Some(c) = &r.clear {
            f.write_fmt(fmt!("clear: mib {} errno {} data ", c.mib, c.errno))?;
            fmt_data(f, c.errno, c.mismatch)?;
            f.write_fmt(fmt!(" clear_us {}\n", c.clear_ns / 1000))?;
        }
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

/// A run's data check for the report: `ok`, `unchecked` (the run failed before it) or the first
/// dword that differed, `(offset, read, expected)`.
fn fmt_data(
    f: &mut fmt::Formatter<'_>,
    errno: i32,
    mismatch: Option<(u64, u32, u32)>,
) -> fmt::Result {
    match mismatch {
        None if errno == 0 => f.write_str("ok"),
        None => f.write_str("unchecked"),
        Some((at, got, want)) => f.write_fmt(fmt!(
            "bad at {:#x} read {:#010x} expected {:#010x}",
            at,
            got,
            want
        )),
    }
}
