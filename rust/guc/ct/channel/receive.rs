// SPDX-License-Identifier: GPL-2.0

//! Reading G2H: the receive pass, replies matched to their waiters, events to the sink.

use kernel::{
    device::Device,
    prelude::*,
    sync::{
        atomic::Relaxed,
        barrier::{dma_mb, Full},
    },
};

use super::{
    super::{
        ring::{self, Next, RingRead},
        waiters::Matched,
        wire::{self, G2h, Response, UNTRACKED},
    },
    bump, Channel, Consumed, G2hMem, Link, Rx, DESC_HEAD, DESC_STATUS, LOG_LIMIT, RX_BUDGET,
};
use crate::{
    abi::XEHPG_HXG_TYPE_EVENT,
    guc::msg::{decode_event, EventKind, G2hEvent},
    trace,
};

impl Channel {
    /// Reads and handles what G2H holds, up to [`RX_BUDGET`] messages; returns how many.
    /// Process context (the interrupt thread, a waiter); the handlers it calls do not sleep.
    /// G2H is in system memory: no device access.
    pub(crate) fn receive(&self, dev: &Device) -> usize {
        let mut rx = self.rx.lock();
        let Rx { head, g2h, buf } = &mut *rx;
        let (Some(g2h), Some(size)) = (g2h.as_deref(), self.up_g2h_size()) else {
            return 0;
        };
        bump(&self.stats.rx_passes);
        let mem = G2hMem { buf: g2h, size };
        // The descriptor is read once per pass and again only when what it announced has been
        // consumed.
        let mut desc = match mem.desc() {
            Ok(d) => d,
            Err(e) => {
                dev_err!(dev, "guc: CT G2H descriptor read failed: {:?}\n", e);
                return 0;
            }
        };
        let mut fresh = true;
        let mut handled = 0;
        while handled < RX_BUDGET {
            match ring::next(&mem, desc, *head, buf) {
                Ok(Ok(Next::Empty)) if fresh => break,
                Ok(Ok(Next::Empty)) => match mem.desc() {
                    Ok(d) => {
                        desc = d;
                        fresh = true;
                    }
                    Err(_) => break,
                },
                Ok(Ok(Next::Message(len, new_head))) => {
                    *head = new_head;
                    desc.head = new_head;
                    fresh = false;
                    // The copy is complete before the GuC may reuse the space.
                    dma_mb(Full);
                    if g2h.write(g2h.desc + DESC_HEAD, new_head).is_err() {
                        break;
                    }
                    self.handle(dev, buf.get(..len).unwrap_or(&[]), new_head);
                    handled += 1;
                }
                Ok(Err(c)) => {
                    let mut g = self.inner.lock();
                    if self.broken(&mut g, dev, c) {
                        drop(g);
                        if c.status_bit() != 0 {
                            let at = g2h.desc + DESC_STATUS;
                            let old = g2h.read(at).unwrap_or(0);
                            let _ = g2h.write(at, old | c.status_bit());
                        }
                        self.report_broken(dev, Link::Broken(c));
                    }
                    break;
                }
                Err(e) => {
                    dev_err!(dev, "guc: CT G2H read failed: {:?}\n", e);
                    break;
                }
            }
        }
        handled
    }

    /// The G2H ring size while the channel is up.
    fn up_g2h_size(&self) -> Option<u32> {
        let g = self.inner.lock();
        match (g.link, g.rings) {
            (Link::Up, Some(r)) => Some(r.g2h_size),
            _ => None,
        }
    }

    /// Handles one message copied out of G2H, which left the ring's head at `head`.
    fn handle(&self, dev: &Device, msg: &[u32], head: u32) {
        let parsed = wire::parse(msg);
        // CAST: a ring message is at most the ring's size, far below 2^32 dwords.
        let len = msg.len() as u32;
        match parsed {
            Ok(G2h::Reply { fence, response }) => {
                trace::g2h(dev, response.hxg_type(), 0, fence, len, head)
            }
            Ok(G2h::Event { action, .. }) => {
                trace::g2h(dev, XEHPG_HXG_TYPE_EVENT, action, 0, len, head)
            }
            Err(_) => trace::g2h(dev, trace::G2H_MALFORMED, 0, 0, len, head),
        }
        match parsed {
            Ok(G2h::Reply { fence, response }) => self.reply(dev, msg, fence, response),
            Ok(G2h::Event {
                action,
                data0,
                payload,
            }) => self.event(dev, action, data0, payload),
            Err(m) => {
                let n = self.stats.malformed.fetch_add(1, Relaxed) + 1;
                if n <= LOG_LIMIT {
                    dev_err!(
                        dev,
                        "guc: CT G2H message dropped ({}): {:08x?}\n",
                        m.why(),
                        msg.get(..msg.len().min(4)).unwrap_or(&[])
                    );
                }
            }
        }
    }

    fn reply(&self, dev: &Device, msg: &[u32], fence: u16, response: Response) {
        bump(&self.stats.replies);
        if response == Response::Busy {
            bump(&self.stats.busy);
        }
        let mut g = self.inner.lock();
        match g.waiters.complete(fence, response) {
            Matched::Final => {
                drop(g);
                self.done.notify_all();
            }
            Matched::Busy => {}
            Matched::Nobody => {
                let fast = (fence & UNTRACKED != 0).then(|| g.fast.action(fence));
                drop(g);
                match (fast, response) {
                    (Some(action), Response::Failure { error, hint }) => {
                        bump(&self.stats.fast_failures);
                        dev_err!(
                            dev,
                            "guc: CT fast request {:#06x} (fence {:#06x}) failed: error {:#x} \
                             hint {:#x}\n",
                            action.unwrap_or(0),
                            fence,
                            error,
                            hint
                        );
                    }
                    _ => {
                        let n = self.stats.unexpected.fetch_add(1, Relaxed) + 1;
                        if n <= LOG_LIMIT {
                            dev_err!(
                                dev,
                                "guc: CT reply for fence {:#06x} that no request waits for: \
                                 {:08x?}\n",
                                fence,
                                msg.get(..msg.len().min(4)).unwrap_or(&[])
                            );
                        }
                    }
                }
            }
        }
    }

    /// Decodes an event and dispatches it: counted, then handed to the sink if one is
    /// attached, else (or if no block takes it) reported here (no capture: crash dumps and
    /// exceptions are only reported).
    fn event(&self, dev: &Device, action: u32, data0: u32, payload: &[u32]) {
        bump(&self.stats.events);
        let decoded = decode_event(action, data0, payload);
        let kind = match &decoded {
            Ok(G2hEvent::Unknown { action, data0, len }) => {
                let n = self.stats.unknown_events.fetch_add(1, Relaxed) + 1;
                if n <= LOG_LIMIT {
                    dev_warn!(
                        dev,
                        "guc: CT unknown event {:#06x} (data0 {:#x}, {} dwords): ignored\n",
                        action,
                        data0,
                        len
                    );
                }
                return;
            }
            Ok(ev) => ev.kind(),
            Err(bad) => Some(bad.kind),
        };
        let Some(kind) = kind else {
            return;
        };
        if let Some(c) = self.stats.per_event.get(kind.index()) {
            bump(c);
        }
        let sink = self.sink.lock().clone();
        let consumed = sink.map_or(Consumed::NoConsumer, |s| match &decoded {
            Ok(ev) => s.guc_event(dev, ev),
            Err(bad) => s.guc_bad_event(dev, bad),
        });
        if consumed == Consumed::Handled {
            return;
        }
        let name = kind.name();
        match kind {
            EventKind::FlushLog => {}
            EventKind::CrashDump | EventKind::Exception => {
                dev_err!(dev, "guc: {}: the GuC reports a firmware failure\n", name)
            }
            _ => dev_warn!(
                dev,
                "guc: {} {:08x?}: no GuC submission running, nothing to recover\n",
                name,
                payload.get(..payload.len().min(4)).unwrap_or(&[])
            ),
        }
    }
}
