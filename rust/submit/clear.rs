// SPDX-License-Identifier: GPL-2.0

//! Clearing local memory with the copy engine.
//!
//! A VF's local memory must hold nothing of its previous owner: the PRM's VF FLR sequence
//! clears the VF's state (seed 000 lines 300-326), and upstream clears VF local memory when it
//! provisions it (a new buffer object is cleared) and at FLR (`xe_gt_sriov_pf_config_sanitize`,
//! `xe_migrate_clear`). That memory lies beyond the CPU-visible part of the BAR, so only the
//! GPU reaches it: the copy engine fills it with zeros, upstream's way (`emit_clear_main_copy`,
//! `XY_FAST_COLOR_BLT` with a page-sized pitch), and clears the range's flat-CCS compression
//! metadata after it, as upstream does on parts with flat CCS, DG2 and ATS-M among them
//! (`xe_migrate_clear`, `emit_copy_ccs`): a VF must not inherit how its predecessor's data was
//! compressed either ([`Payload::Clear`]).
//!
//! The range is mapped into the GGTT a window at a time ([`WINDOW`], smaller when the GGTT has
//! less room), each window filled by one request on `bcs0` and waited for before the window is
//! pointed at the next part. Both submission modes; a hang is recovered as the selftest's are.
//!
//! Process context: sleeps while waiting, allocates the GGTT range. Runs under the selftest's
//! mutex, so the two never wait on each other's requests.

use kernel::prelude::*;

use super::Submit;
use crate::{
    engine::Payload,
    guc::{self, Channel},
    mem::ggtt::{Mapping, LMEM_ALIGN, PAGE},
    range::Range,
};

/// The GGTT window mapped at a time: 64 MiB, what one fill of [`PITCH`]-byte rows covers
/// within the rectangle's 16-bit row field (`emit_clear_main_copy` writes rows in bits 31:16).
const WINDOW: u64 = 64 << 20;
/// The smallest window tried when the GGTT has less room than [`WINDOW`].
const MIN_WINDOW: u64 = LMEM_ALIGN;
/// Row pitch of a fill: upstream clears with a page pitch (`xe_migrate_clear` passes
/// `XE_PAGE_SIZE` to `emit_clear`).
const PITCH: u64 = PAGE;

/// A failed clear: the step and the error.
pub(crate) type Failed = (&'static str, Error);

impl Submit {
    /// Fills local memory `lmem` (64 KiB aligned, as every local-memory mapping) with zeros on
    /// the copy engine and waits until it is done. Returns the bytes cleared. Process context.
    ///
    /// # Errors
    ///
    /// The step that failed and why: `EINVAL` for a misaligned range, `ENODEV` without a copy
    /// engine or after unbind, `ENOSPC` without GGTT room even for [`MIN_WINDOW`],
    /// `ETIMEDOUT`/`EIO` when the engine hung (recovered) or the request failed.
    pub(crate) fn clear_lmem(&self, ct: &Channel, lmem: Range) -> Result<u64, Failed> {
        // The selftest's requests and ours share the port; its mutex keeps the drains apart.
        let _serial = self.last.lock();
        self.clear_locked(ct, lmem, WINDOW)
    }

    /// [`Submit::clear_lmem`] with the selftest's mutex held, a window at most `max_window`
    /// bytes (the selftest makes it small to go through several windows).
    pub(super) fn clear_locked(
        &self,
        ct: &Channel,
        lmem: Range,
        max_window: u64,
    ) -> Result<u64, Failed> {
        if lmem.start % LMEM_ALIGN != 0 || lmem.end % LMEM_ALIGN != 0 || lmem.end < lmem.start {
            return Err(("range", EINVAL));
        }
        let total = lmem.size();
        if total == 0 {
            return Ok(0);
        }
        let p = self.port("bcs0").ok_or(("copy engine", ENODEV))?;
        let window = self.window(total.min(max_window).min(WINDOW))?;
        let res = (|| {
            let mut done = 0;
            while done < total {
                let n = (total - done).min(window.size());
                self.clear_window(p, ct, window, lmem.start + done, n)?;
                done += n;
            }
            Ok(done)
        })();
        let map = Mapping { ggtt: window };
        let _ = self
            .hw
            .bar()
            .try_access_with(|bar| self.hw.ggtt().clear(bar, map));
        self.hw.ggtt().release(window);
        res
    }

    /// A GGTT range of `want` bytes, or the largest power-of-two fraction of it down to
    /// [`MIN_WINDOW`] the GGTT has room for (the VFs leave the PF only a spare).
    fn window(&self, want: u64) -> Result<Range, Failed> {
        let mut size = want.next_multiple_of(LMEM_ALIGN);
        loop {
            match self.hw.ggtt().reserve(size) {
                Ok(r) => return Ok(r),
                Err(e) if e == ENOSPC && size > MIN_WINDOW => {
                    size = (size / 2).next_multiple_of(LMEM_ALIGN);
                }
                Err(e) => return Err(("GGTT window", e)),
            }
        }
    }

    /// Points the first `n` bytes of `window` at local memory `at` and fills them.
    fn clear_window(
        &self,
        p: &super::port::Port,
        ct: &Channel,
        window: Range,
        at: u64,
        n: u64,
    ) -> Result<(), Failed> {
        let map = Mapping {
            ggtt: Range {
                start: window.start,
                end: window.start + n,
            },
        };
        self.hw
            .bar()
            .try_access_with(|bar| {
                self.hw.ggtt().point(bar, map, at, true)?;
                // The window held other pages a moment ago: no cached translation may
                // survive (upstream invalidates the GGTT TLB after every update,
                // `xe_ggtt_invalidate`).
                guc::invalidate_ggtt(&self.hw.gt().view(&self.dev, bar))
            })
            .unwrap_or(Err(ENODEV))
            .map_err(|e| ("GGTT entries", e))?;
        // CAST: n <= WINDOW, so n / PITCH <= 16384 rows; GGTT addresses are below 4 GiB.
        let fill = Payload::Clear {
            dst: window.start as u32,
            rows: (n / PITCH) as u16,
            pitch: PITCH as u32,
        };
        let (_, kick) = self
            .with_gt(|gt| p.submit(gt, fill))
            .map_err(|e| ("fill submission", e))?;
        self.send(p, ct, kick).map_err(|e| ("fill submission", e))?;
        let mut failed = 0;
        if !self.drain(p, ct, &mut failed) {
            // A hang: recovered as the selftest does; the fill did not finish.
            let _ = self.recover(p, ct, "made no progress clearing local memory");
            return Err(("fill wait", ETIMEDOUT));
        }
        if failed > 0 {
            return Err(("fill wait", EIO));
        }
        Ok(())
    }
}
