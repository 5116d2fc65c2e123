// SPDX-License-Identifier: GPL-2.0

//! The debugfs `ct` report and the H2G descriptor it shows.

use kernel::{
    prelude::*,
    sync::atomic::{Atomic, Relaxed},
};

use super::{super::ring::Desc, desc_at, Channel, Link, DESC_HEAD, DESC_STATUS, DESC_TAIL};
use crate::{guc::EventKind, mem::lmem::LmemAccess};

impl Channel {
    /// The debugfs `ct` report.
    ///
    /// # Errors
    ///
    /// Only the formatter's.
    pub(crate) fn fmt(
        &self,
        f: &mut kernel::fmt::Formatter<'_>,
        h2g_desc: Option<Desc>,
    ) -> kernel::fmt::Result {
        let (link, tail, head, credits, outstanding, mut waiting) = {
            let g = self.inner.lock();
            let mut waiting = [(0u16, 0u16); 8];
            for (w, s) in waiting.iter_mut().zip(g.waiters.waiting()) {
                *w = s;
            }
            (
                g.link,
                g.h2g_tail,
                g.h2g_head,
                g.waiters.credits(),
                g.waiters.outstanding(),
                waiting,
            )
        };
        let (rx_head, g2h_desc) = {
            let rx = self.rx.lock();
            (rx.head, rx.g2h.as_deref().and_then(|b| b.desc_read().ok()))
        };
        match link {
            Link::Down => f.write_str("state: down\n")?,
            Link::Up => f.write_str("state: up\n")?,
            Link::Broken(c) => f.write_fmt(fmt!("state: broken: {} ({:?})\n", c.name(), c))?,
        }
        f.write_fmt(fmt!("h2g: tail {:#x} head_seen {:#x}\n", tail, head))?;
        f.write_fmt(fmt!("g2h: head {:#x}\n", rx_head))?;
        for (name, d) in [("h2g_desc", h2g_desc), ("g2h_desc", g2h_desc)] {
            if let Some(d) = d {
                f.write_fmt(fmt!(
                    "{}: head {:#x} tail {:#x} status {:#x}\n",
                    name,
                    d.head,
                    d.tail,
                    d.status
                ))?;
            }
        }
        f.write_fmt(fmt!("credits: {}\n", credits))?;
        f.write_fmt(fmt!("outstanding: {}", outstanding))?;
        for (fence, action) in waiting.iter_mut().take(outstanding.min(8)) {
            f.write_fmt(fmt!(" {:#06x}:{:#06x}", fence, action))?;
        }
        f.write_str("\n")?;
        let s = &self.stats;
        let l = |c: &Atomic<u64>| c.load(Relaxed);
        f.write_fmt(fmt!(
            "sent: requests {} fast {} notifies {}\n",
            l(&s.requests),
            l(&s.fast),
            l(&s.notifies)
        ))?;
        f.write_fmt(fmt!(
            "received: replies {} events {} unknown_events {}\n",
            l(&s.replies),
            l(&s.events),
            l(&s.unknown_events)
        ))?;
        f.write_fmt(fmt!(
            "errors: failed {} fast_failed {} retried {} busy {} timeouts {} malformed {} \
             unexpected {}\n",
            l(&s.failures),
            l(&s.fast_failures),
            l(&s.retries),
            l(&s.busy),
            l(&s.timeouts),
            l(&s.malformed),
            l(&s.unexpected)
        ))?;
        f.write_fmt(fmt!(
            "receive: passes {} polls {} room_waits {}\n",
            l(&s.rx_passes),
            l(&s.polls),
            l(&s.room_waits)
        ))?;
        for (kind, c) in EventKind::ALL.iter().zip(s.per_event.iter()) {
            f.write_fmt(fmt!("event {}: {}\n", kind.name(), l(c)))?;
        }
        #[cfg(xehpg_test)]
        self.fmt_load(f)?;
        Ok(())
    }

    /// Reads the H2G descriptor, for debugfs (inside the device access; formatted outside).
    pub(crate) fn h2g_desc(&self, lmem: LmemAccess<'_>) -> Option<Desc> {
        let d = self.inner.lock().rings?.h2g_desc;
        Some(Desc {
            head: lmem.read32(desc_at(d, DESC_HEAD)).ok()?,
            tail: lmem.read32(desc_at(d, DESC_TAIL)).ok()?,
            status: lmem.read32(desc_at(d, DESC_STATUS)).ok()?,
        })
    }
}
