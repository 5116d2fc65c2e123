// SPDX-License-Identifier: GPL-2.0

//! Writing into H2G: one message or a batch of FAST_REQUESTs, the tail, the notify.

use kernel::{
    prelude::*,
    sync::barrier::{mb, Write},
};

use super::{
    super::{
        ring::{self, Corrupt},
        wire::{self, CtbHeader, MSG_MAX},
    },
    bump, desc_at, Channel, CtIo, Inner, Link, Notify, DESC_HEAD, DESC_STATUS, DESC_TAIL,
};
use crate::{
    guc::{
        msg::{self, FastRequest, H2gRequest},
        regs::GUC_HOST_INTERRUPT,
    },
    regs::VF_CAP_REG,
    trace,
};

impl Channel {
    /// Encodes `req` and writes it into H2G (not yet published). Inner lock held.
    fn write<R: H2gRequest>(
        &self,
        g: &mut Inner,
        io: &CtIo<'_>,
        req: &R,
        fence: u16,
        tracked: bool,
    ) -> Result {
        // The request fits a CT message: checked when this is built.
        let () = R::FITS_CT;
        let rings = g.rings.ok_or(ENODEV)?;
        // The CTB header, then the message, encoded in place (no second copy).
        let mut words = [0u32; MSG_MAX];
        let hxg = words.get_mut(1..).ok_or(EINVAL)?;
        let n = msg::encode(req, hxg)?;
        // The codec writes a REQUEST header; a fast request changes its type.
        if let Some(h0) = hxg.first_mut() {
            *h0 = wire::with_kind(*h0, tracked);
        }
        let n = u8::try_from(n).map_err(|_| EINVAL)?;
        words[0] = CtbHeader::hxg(fence, n).into_raw();
        let len = u32::from(n) + 1;
        let size = rings.h2g_size;
        let mut placed = ring::place(g.h2g_head, g.h2g_tail, size, len);
        if placed.is_none() {
            // The cached head says full: look at what the GuC consumed since.
            let d = rings.h2g_desc;
            let status = io.lmem.read32(desc_at(d, DESC_STATUS))?;
            let head = io.lmem.read32(desc_at(d, DESC_HEAD))?;
            let bad = if status != 0 {
                Some(Corrupt::H2gStatus(status))
            } else if head >= size {
                Some(Corrupt::H2gHead(head))
            } else {
                None
            };
            if let Some(c) = bad {
                if self.broken(g, io.gt.dev, c) && c.status_bit() != 0 {
                    let _ = io
                        .lmem
                        .write32(desc_at(d, DESC_STATUS), status | c.status_bit());
                }
                return Err(EPIPE);
            }
            g.h2g_head = head;
            placed = ring::place(head, g.h2g_tail, size, len);
        }
        let p = placed.ok_or(EBUSY)?;
        if p.pad > 0 {
            io.lmem
                .zero(rings.h2g + u64::from(g.h2g_tail) * 4, u64::from(p.pad) * 4)?;
        }
        let out = words.get(..len as usize).ok_or(EINVAL)?;
        io.lmem
            .write_bytes(rings.h2g + u64::from(p.at) * 4, out.as_bytes())?;
        g.h2g_tail = p.tail;
        trace::h2g(io.gt.dev, R::ACTION, fence, len, p.tail, !tracked);
        Ok(())
    }

    /// Makes what was written visible: the descriptor tail, then the doorbell.
    fn publish(&self, g: &Inner, io: &CtIo<'_>) -> Result {
        let rings = g.rings.ok_or(ENODEV)?;
        // The ring and its descriptor sit in local memory behind the write-combining LMEM BAR:
        // without a write barrier the CPU may post the tail before the message words, and the
        // GuC would read a message that is not there yet. Upstream orders them the same way
        // (`xe_guc_ct.c` `h2g_write` calls `xe_device_wmb` between the message and the
        // descriptor update; i915 `intel_guc_ct.c` `ct_write` calls `intel_guc_write_barrier`).
        // Both follow the barrier with a posted MMIO write on a discrete GPU, which pushes the
        // write-combined data out ahead of it: xe writes 0 to the read-only VF_CAP_REG
        // (`xe_device.c` `xe_device_wmb`), i915 0 to SOFT_SCRATCH(0); as xe here.
        mb(Write);
        io.gt.write_aon(VF_CAP_REG::zeroed());
        io.lmem
            .write32(desc_at(rings.h2g_desc, DESC_TAIL), g.h2g_tail)?;
        io.gt.write_aon(GUC_HOST_INTERRUPT::zeroed());
        bump(&self.stats.notifies);
        Ok(())
    }

    /// The error for a send on a channel that is not up.
    fn not_up(link: Link) -> Error {
        match link {
            Link::Broken(_) => EPIPE,
            _ => ENODEV,
        }
    }

    /// Sends `req` as a FAST_REQUEST with its own notify: no reply unless it fails. Never
    /// sleeps: callable from atomic context (not from the interrupt top half, which takes no
    /// CT locks).
    ///
    /// # Errors
    ///
    /// `ENODEV` (channel down), `EPIPE` (broken), `EBUSY` (no room in H2G), or the request's
    /// encoding error.
    pub(crate) fn send_fast<R: FastRequest>(&self, io: &CtIo<'_>, req: &R) -> Result {
        self.send_fast_batch(io, core::slice::from_ref(req), Notify::Once)
            .map(|_| ())
    }

    /// Sends `reqs` as FAST_REQUESTs, ringing the GuC as `notify` says. Never sleeps, as
    /// [`Channel::send_fast`]. Returns how many were sent (those before a full H2G).
    ///
    /// # Errors
    ///
    /// As [`Channel::send_fast`], for the first request (`EBUSY` if H2G had no room for it).
    pub(crate) fn send_fast_batch<R: FastRequest>(
        &self,
        io: &CtIo<'_>,
        reqs: &[R],
        notify: Notify,
    ) -> Result<usize> {
        let mut g = self.inner.lock();
        if g.link != Link::Up {
            return Err(Self::not_up(g.link));
        }
        let batch = notify == Notify::Once;
        let mut sent = 0;
        for req in reqs {
            let fence = g.fences.next(false);
            match self.write(&mut g, io, req, fence, false) {
                Ok(()) => {}
                Err(e) if e == EBUSY && sent > 0 => break,
                Err(e) if e == EPIPE => {
                    // This write found the ring corrupt: nothing more goes out.
                    let link = g.link;
                    drop(g);
                    self.report_broken(io.gt.dev, link);
                    return Err(e);
                }
                Err(e) => {
                    // What was written before the error still goes out.
                    if sent > 0 && batch {
                        self.publish(&g, io)?;
                    }
                    return Err(e);
                }
            }
            // CAST: a 16-bit field.
            g.fast.push(fence, R::ACTION as u16);
            bump(&self.stats.fast);
            sent += 1;
            if !batch {
                self.publish(&g, io)?;
            }
        }
        if batch && sent > 0 {
            self.publish(&g, io)?;
        }
        Ok(sent)
    }

    /// Sends `req` as a REQUEST with a waiter slot; `Ok(None)` if H2G or the credits have no
    /// room now.
    pub(super) fn submit<R: H2gRequest>(
        &self,
        io: &CtIo<'_>,
        req: &R,
    ) -> Result<Option<(usize, u16)>> {
        let mut g = self.inner.lock();
        if g.link != Link::Up {
            return Err(Self::not_up(g.link));
        }
        let fence = g.fences.next(true);
        // CAST: a 16-bit field.
        let Some(slot) = g.waiters.claim(fence, R::ACTION as u16) else {
            return Ok(None);
        };
        match self.write(&mut g, io, req, fence, true) {
            Ok(()) => {}
            Err(e) => {
                g.waiters.abandon(slot);
                if e == EPIPE {
                    let link = g.link;
                    drop(g);
                    self.report_broken(io.gt.dev, link);
                }
                return if e == EBUSY { Ok(None) } else { Err(e) };
            }
        }
        if let Err(e) = self.publish(&g, io) {
            g.waiters.abandon(slot);
            return Err(e);
        }
        bump(&self.stats.requests);
        Ok(Some((slot, fence)))
    }
}
