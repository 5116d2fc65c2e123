// SPDX-License-Identifier: GPL-2.0

//! A REQUEST and its wait for the final reply (BUSY, RETRY, timeouts, polling).

use kernel::{
    device::Device,
    prelude::*,
    sync::CondVarTimeoutResult,
    time::{delay::fsleep, msecs_to_jiffies, Delta, Instant, Monotonic},
};

use super::{
    super::waiters::Outcome, bump, Channel, CtAccess, Link, Unresponsive, BUSY_TIMEOUT, POLL_MS,
    REPLY_TIMEOUT, RETRY_LIMIT, RETRY_SLEEP_MS, ROOM_TIMEOUT,
};
use crate::guc::msg::H2gRequest;

impl Channel {
    /// Sends `req` as a REQUEST and waits for the final reply; returns its decoded DATA0.
    /// Process context: sleeps.
    ///
    /// # Errors
    ///
    /// `EIO` for a FAILURE (logged with error and hint), `EPROTO` for a DATA0 the request does
    /// not allow (logged), `ETIME` without a reply, `ELOOP` after [`RETRY_LIMIT`] RETRYs,
    /// `EDEADLK` if H2G stays full, `EPIPE` if the channel breaks, `ECANCELED` if it is
    /// stopped, `ENODEV` if it is down or the device gone, `EINTR` on a signal, `EINVAL` if
    /// the request does not encode.
    pub(crate) fn request<R: H2gRequest>(&self, a: &impl CtAccess, req: &R) -> Result<R::Reply> {
        let action = R::ACTION;
        let mut retries = 0;
        loop {
            let (slot, fence) = self
                .submit_waiting(a, req, action)
                .inspect_err(|e| self.log_not_sent(a.dev(), action, *e))?;
            match self.wait(a, slot, fence, action)? {
                Outcome::Success(data0) => {
                    return R::decode_reply(data0).map_err(|data0| {
                        dev_err!(
                            a.dev(),
                            "guc: CT request {:#06x} (fence {:#06x}): reply DATA0 {:#x} is not \
                             one the ABI allows\n",
                            action,
                            fence,
                            data0
                        );
                        EPROTO
                    })
                }
                Outcome::Failure { error, hint } => {
                    bump(&self.stats.failures);
                    dev_err!(
                        a.dev(),
                        "guc: CT request {:#06x} (fence {:#06x}) refused: error {:#x} hint {:#x}\n",
                        action,
                        fence,
                        error,
                        hint
                    );
                    return Err(EIO);
                }
                Outcome::Retry => {
                    bump(&self.stats.retries);
                    retries += 1;
                    if retries > RETRY_LIMIT {
                        dev_err!(
                            a.dev(),
                            "guc: CT request {:#06x} still asked to retry after {} resends\n",
                            action,
                            RETRY_LIMIT
                        );
                        return Err(ELOOP);
                    }
                    fsleep(Delta::from_millis(RETRY_SLEEP_MS * i64::from(retries)));
                }
            }
        }
    }

    /// Says why a request could not be sent when the channel is not up.
    fn log_not_sent(&self, dev: &Device, action: u32, e: Error) {
        match self.inner.lock().link {
            Link::Broken(c) => dev_err!(
                dev,
                "guc: CT request {:#06x} not sent: the channel is broken ({})\n",
                action,
                c.name()
            ),
            Link::Down if e == ENODEV => dev_err!(
                dev,
                "guc: CT request {:#06x} not sent: the channel is down\n",
                action
            ),
            _ => {}
        }
    }

    /// [`Channel::submit`], sleeping while there is no room, up to [`ROOM_TIMEOUT`].
    fn submit_waiting<R: H2gRequest>(
        &self,
        a: &impl CtAccess,
        req: &R,
        action: u32,
    ) -> Result<(usize, u16)> {
        let start = Instant::<Monotonic>::now();
        let mut nap = Delta::from_millis(1);
        loop {
            let sent = a.with_io(|io| self.submit(io, req)).ok_or(ENODEV)??;
            if let Some(s) = sent {
                return Ok(s);
            }
            bump(&self.stats.room_waits);
            if start.elapsed() > ROOM_TIMEOUT {
                dev_err!(
                    a.dev(),
                    "guc: CT request {:#06x}: no room in H2G or G2H credits for {} ms\n",
                    action,
                    ROOM_TIMEOUT.as_millis()
                );
                self.unresponsive(a.dev(), Unresponsive::NoRoom(action));
                return Err(EDEADLK);
            }
            // Replies free credits; make sure they are read even without an interrupt.
            self.receive(a.dev());
            fsleep(nap);
            nap = Delta::from_millis((nap.as_millis() * 2).min(64));
        }
    }

    /// Sleeps until slot `slot` has its final reply.
    fn wait(&self, a: &impl CtAccess, slot: usize, fence: u16, action: u32) -> Result<Outcome> {
        let start = Instant::<Monotonic>::now();
        let mut g = self.inner.lock();
        loop {
            if let Some(o) = g.waiters.take(slot, fence) {
                return Ok(o);
            }
            if g.link != Link::Up {
                g.waiters.abandon(slot);
                return Err(match g.link {
                    Link::Broken(_) => EPIPE,
                    _ => ECANCELED,
                });
            }
            let busy = g.waiters.busy(slot);
            let limit = if busy { BUSY_TIMEOUT } else { REPLY_TIMEOUT };
            if start.elapsed() > limit {
                g.waiters.abandon(slot);
                drop(g);
                bump(&self.stats.timeouts);
                dev_err!(
                    a.dev(),
                    "guc: CT request {:#06x} (fence {:#06x}): no {}reply within {} ms\n",
                    action,
                    fence,
                    if busy { "final " } else { "" },
                    limit.as_millis()
                );
                return Err(ETIME);
            }
            match self
                .done
                .wait_interruptible_timeout(&mut g, msecs_to_jiffies(POLL_MS))
            {
                CondVarTimeoutResult::Woken { .. } => {}
                CondVarTimeoutResult::Timeout => {
                    drop(g);
                    bump(&self.stats.polls);
                    self.receive(a.dev());
                    g = self.inner.lock();
                }
                CondVarTimeoutResult::Signal { .. } => {
                    g.waiters.abandon(slot);
                    return Err(EINTR);
                }
            }
        }
    }
}
