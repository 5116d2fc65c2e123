// SPDX-License-Identifier: GPL-2.0

//! GuC submission: the GuC puts the contexts on the engines; the host registers each context
//! and tells the GuC when it has work.
//!
//! The messages and their order are upstream's (`xe_guc_submit.c` `__register_exec_queue`,
//! `enable_scheduling`, `disable_scheduling_deregister`), the PRM gives none of them:
//!
//! 1. `REGISTER_CONTEXT` (0x4502) with the context index, the GuC engine class, the engine's
//!    logical-instance mask and the LRC descriptor (the execlist one);
//! 2. `UPDATE_CONTEXT_POLICIES` (0x100b): priority, execution quantum, preemption timeout as
//!    KLVs (`init_policies`; upstream's kernel-queue values);
//! 3. `SCHED_CONTEXT_MODE_SET` (0x1001) enable, which the GuC answers with the
//!    `SCHED_CONTEXT_MODE_DONE` event (0x1002);
//! 4. per submission, the new tail in the image, then `SCHED_CONTEXT` (0x1000) as a fast
//!    request: one CT notify, the only MMIO of a submission;
//! 5. at the end: mode set disable (and its done event), then `DEREGISTER_CONTEXT` (0x4503),
//!    answered by `DEREGISTER_CONTEXT_DONE` (0x4600).
//!
//! Upstream sends registration and policies as fast requests; here every setup message is a
//! blocking request, so a refusal is seen (and logged with the GuC's error) at the step that
//! caused it. The GuC answers any request, so this works on real firmware too.
//!
//! # Hangs
//!
//! The GuC watches each context with its preemption timeout; a context that does not yield
//! in time is reset by the GuC, which sends `CONTEXT_RESET_NOTIFICATION` (0x1008) and stops
//! scheduling it (xe then bans the queue). The event only marks the port; the process-context
//! side (a waiter, or the next submission) fails the requests in flight once, disables,
//! deregisters and registers the context again with an empty ring, as xe replaces a banned
//! queue. A port that stalls without a notification (the GuC lost a `SCHED_CONTEXT`) is sent
//! `SCHED_CONTEXT` again once, then recovered the same way.

use kernel::{
    device::Device,
    prelude::*,
    sync::{atomic::Relaxed, Arc, CondVarTimeoutResult},
    time::{msecs_to_jiffies, Delta, Instant, Monotonic},
};

#[cfg(xehpg_test)]
use super::doorbell;
use super::{
    ctx::{CtxInput, CtxState, GucCtx},
    port::{Mech, Port, State},
    Submit,
};
#[cfg(xehpg_test)]
use crate::guc::{AllocateDoorbell, DeallocateDoorbell};
use crate::{
    engine::{
        lrc,
        regs::{Io, MaskedWrite, GFX_MODE, HWSTAM, HWS_PGA},
    },
    gt::Gt,
    guc::{
        guc_class, BadEvent, Channel, CtAccess, DeregisterContext, G2hEvent, H2gRequest,
        RegisterContext, SchedContext, SchedContextModeSet, Unresponsive, UpdateContextPolicies,
    },
    trace::{self, CtxStep},
};

/// Upstream's kernel-queue policies (`xe_hw_engine.c`: 1 ms time slice, 640 ms preemption
/// timeout; `xe_exec_queue_prio_to_guc`: the kernel priority is GuC's KMD_HIGH, 0).
const EXEC_QUANTUM_US: u32 = 1000;
pub(crate) const PREEMPT_TIMEOUT_US: u32 = 640_000;
const PRIORITY_KMD_HIGH: u32 = 0;
/// How long a done event may take (upstream waits `HZ` for deregistration), and how long a
/// waiter sleeps before it reads G2H itself (the CT waiters' interval).
const DONE_MS: u32 = 1000;
const POLL_MS: u32 = 100;

/// `UPDATE_CONTEXT_POLICIES` with upstream's kernel-queue priority and quantum and the
/// preemption timeout `preempt_us` (`init_policies`).
pub(crate) const fn policies(id: u16, preempt_us: u32) -> UpdateContextPolicies {
    UpdateContextPolicies {
        id,
        priority: PRIORITY_KMD_HIGH,
        quantum_us: EXEC_QUANTUM_US,
        preempt_us,
    }
}

impl Port {
    /// The engine's registers for GuC submission, before the GuC schedules on it, as xe
    /// programs them when the GuC submits (`xe_hw_engine.c`: the `engine_sr` table applied by
    /// `hw_engine_init`, then `xe_hw_engine_enable_ring`): `RING_HWSTAM` all masked ("Disable
    /// HW status page updates for interrupts"), `RING_MODE` legacy mode off by a masked write
    /// ("Disable engine 'legacy' mode"; i915 `intel_guc_submission.c` `guc_set_default_submission`
    /// does the same), and `RING_HWS_PGA` at the status page at the start of the port's memory,
    /// read back to post the write (as `xe_execlist.c` does for the same register). The CSB,
    /// SQ and `MI_MODE` are the GuC's to run. `RING_CMD_CCTL` ("RING_CMD_CCTL_default_MOCS")
    /// is not written here: it is a row of the workaround table, applied to every engine at GT
    /// init in both submission modes (`engine::wa`). These registers and `RING_CMD_CCTL` head the
    /// engine's ADS save/restore list (`guc::ads::saved_regs`). Process context (probe).
    ///
    /// # Errors
    ///
    /// Forcewake errors.
    pub(crate) fn guc_setup(&self, gt: &Gt<'_>) -> Result {
        let guard = gt.forcewake(self.engine.domain.bit())?;
        let io = Io::new(gt, &guard, self.engine)?;
        io.write(HWSTAM::zeroed().with_value(u32::MAX));
        io.write_masked(MaskedWrite::enable(
            GFX_MODE::zeroed().with_disable_legacy_mode(true),
        ));
        io.write(HWS_PGA::zeroed().with_value(self.ggtt(0)));
        let _ = io.read::<HWS_PGA>();
        Ok(())
    }

    /// Registers the port's context with the GuC and enables it. Process context (probe, or
    /// recovery); sleeps on the CT.
    ///
    /// # Errors
    ///
    /// The CT request's error (a refusal is `EIO`, logged by the channel with the GuC's
    /// error), or `ETIMEDOUT` if the enable is never confirmed.
    pub(crate) fn guc_start(&self, a: &Submit, ct: &Channel, id: u16, mask: u32) -> Result {
        let class = guc_class(self.engine.class);
        {
            let mut st = self.state.lock();
            // Stopped meanwhile (unbind during a recovery): no more work, as asked.
            if st.mech.stopped() {
                return Err(ENODEV);
            }
            if st.mech.start_guc(GucCtx::new(id, mask)).is_err() {
                self.refused(
                    a.dev(),
                    &mut st,
                    format_args!("GuC start of context {} on a port already started", id),
                );
                return Err(ENODEV);
            }
        }
        let desc = lrc::descriptor(self.ggtt(self.layout.lrc), id);
        let register = RegisterContext {
            id,
            class,
            mask,
            desc,
        };
        self.guc_step(a, ct, id, "registration", &register)?;
        self.ctx_input(a.dev(), id, CtxInput::RegisterAccepted)?;
        self.guc_step(a, ct, id, "policies", &policies(id, PREEMPT_TIMEOUT_US))?;
        let enable = SchedContextModeSet { id, enable: true };
        // Before the request: its done event may be received before the request's reply.
        self.ctx_input(a.dev(), id, CtxInput::EnableSent)?;
        self.guc_step(a, ct, id, "enable", &enable)?;
        self.wait_done(a, ct, "enable", CtxState::Enabled)?;
        // The test build's doorbells, when the `guc_doorbells` parameter asks for them.
        #[cfg(xehpg_test)]
        if let Some(pool) = a.doorbells() {
            self.arm_doorbell(a, ct, pool, id);
        }
        Ok(())
    }

    /// One setup request of context `id`, a failure logged with the step (`what`). Process
    /// context.
    ///
    /// # Errors
    ///
    /// The CT request's error.
    fn guc_step<R: H2gRequest>(
        &self,
        a: &impl CtAccess,
        ct: &Channel,
        id: u16,
        what: &str,
        req: &R,
    ) -> Result {
        ct.request(a, req).map(|_| ()).inspect_err(|e| {
            dev_err!(
                a.dev(),
                "submit: {}: GuC {} of context {} failed: {}\n",
                self.engine.name,
                what,
                id,
                e.to_errno()
            )
        })
    }

    /// Asks the GuC to arm a doorbell for context `id` (seed 000 lines 1062-1073, steps 1-6;
    /// the H2G payload is a guess, [`super::doorbell`]). A refusal is logged and the port keeps
    /// submitting with `SCHED_CONTEXT`: what real GuC 70 firmware, which does not know the
    /// legacy action, needs. Test build only.
    #[cfg(xehpg_test)]
    fn arm_doorbell(
        &self,
        a: &impl CtAccess,
        ct: &Channel,
        pool: &kernel::sync::SpinLock<doorbell::Pool>,
        id: u16,
    ) {
        let Some(d) = pool.lock().alloc() else {
            dev_warn!(
                a.dev(),
                "submit: {}: no free doorbell; submitting with SCHED_CONTEXT\n",
                self.engine.name
            );
            return;
        };
        match ct.request(
            a,
            &AllocateDoorbell {
                ctx: id,
                id: d.id,
                offset: d.offset(),
            },
        ) {
            Ok(()) => {
                if let Some(g) = self.state.lock().mech.guc_mut() {
                    g.doorbell = Some(d);
                }
                trace::dyn_dbg!(
                    a.dev(),
                    "submit: {}: doorbell {} armed at {:#x}\n",
                    self.engine.name,
                    d.id,
                    d.offset()
                );
            }
            Err(e) => {
                let _ = pool.lock().free(d);
                dev_warn!(
                    a.dev(),
                    "submit: {}: the GuC refused doorbell {} (page at {:#x}): {}; submitting \
                     with SCHED_CONTEXT\n",
                    self.engine.name,
                    d.id,
                    d.offset(),
                    e.to_errno()
                );
            }
        }
    }

    /// Applies `input` to the port's context `id` ([`Port::ctx_step`]), the port lock taken
    /// here. Process or atomic context.
    ///
    /// # Errors
    ///
    /// `ENODEV` if the port no longer has context `id` (a GT reset forgot it), `EPROTO` for
    /// a pair the table refuses (counted and logged).
    fn ctx_input(&self, dev: &Device, id: u16, input: CtxInput) -> Result<CtxState> {
        self.ctx_step(dev, &mut self.state.lock(), u32::from(id), input)
            .ok_or(ENODEV)?
    }

    /// Applies `input` to the port's GuC context if it is context `id` (`None` if it is
    /// not). A pair the table refuses ([`CtxState::on`]) leaves the state unchanged, is
    /// counted in `bad_transitions` and logged the first time per port. Any context but the
    /// top half; the caller holds the port lock.
    fn ctx_step(
        &self,
        dev: &Device,
        st: &mut State,
        id: u32,
        input: CtxInput,
    ) -> Option<Result<CtxState>> {
        let g = st.mech.guc_mut()?;
        if u32::from(g.id) != id {
            return None;
        }
        let from = g.state;
        let res = g.step(input);
        if res.is_ok() {
            let step = match input {
                CtxInput::RegisterAccepted => CtxStep::Register,
                CtxInput::EnableSent => CtxStep::SchedEnable,
                CtxInput::SchedDone(on) => CtxStep::SchedDone(on),
                CtxInput::DisableSent => CtxStep::SchedDisable,
                CtxInput::DeregisterSent => CtxStep::Deregister,
                CtxInput::DeregisterDone => CtxStep::DeregisterDone,
                CtxInput::ResetNotified => CtxStep::Reset,
            };
            let class = guc_class(self.engine.class);
            trace::ctx(dev, step, self.engine.name, g.id, class);
        }
        if res.is_err() {
            self.refused(
                dev,
                st,
                format_args!(
                    "context {} is {}: {} is impossible there",
                    id,
                    from.name(),
                    input.name()
                ),
            );
        }
        Some(res)
    }

    /// Waits until the GuC's done event brings the context to `want`. The event normally
    /// arrives through the GuC-to-host interrupt; a waiter with nothing after [`POLL_MS`]
    /// reads G2H itself, as the CT's request waiters do (upstream's "safe mode"), so a lost
    /// interrupt costs
    /// time, not the context. Process context.
    fn wait_done(&self, a: &impl CtAccess, ct: &Channel, what: &str, want: CtxState) -> Result {
        let start = Instant::<Monotonic>::now();
        let done = |st: &State| -> Result<bool> {
            match st.mech.guc() {
                Some(g) => Ok(g.state == want),
                _ => Err(ENODEV),
            }
        };
        loop {
            {
                let mut st = self.state.lock();
                if done(&st)? {
                    return Ok(());
                }
                let res = self
                    .done
                    .wait_interruptible_timeout(&mut st, msecs_to_jiffies(POLL_MS));
                if matches!(res, CondVarTimeoutResult::Signal { .. }) {
                    return Err(EINTR);
                }
                if done(&st)? {
                    return Ok(());
                }
            }
            ct.receive(a.dev());
            if start.elapsed() > Delta::from_millis(i64::from(DONE_MS)) {
                break;
            }
        }
        if done(&self.state.lock())? {
            return Ok(());
        }
        dev_err!(
            a.dev(),
            "submit: {}: no GuC {} done event within {} ms\n",
            self.engine.name,
            what,
            DONE_MS
        );
        Err(ETIMEDOUT)
    }

    /// Disables and deregisters the context (unbind, recovery); nothing if the GuC never
    /// accepted its registration. A stop an earlier one left half done (a done event that
    /// never came) goes on from where it stopped: a disable is not sent twice. Process
    /// context.
    ///
    /// # Errors
    ///
    /// The CT's errors, a missing done event, or `EPROTO` if an event moved the context
    /// where the table does not allow the next step.
    pub(crate) fn guc_stop(&self, a: &Submit, ct: &Channel) -> Result {
        let (id, state) = match self.state.lock().mech.guc() {
            Some(g) if g.state != CtxState::Unregistered => (g.id, g.state),
            _ => return Ok(()),
        };
        #[cfg(xehpg_test)]
        self.put_doorbell(a, Some((ct, id)));
        let disable = matches!(
            state,
            CtxState::Registered | CtxState::Enabling | CtxState::Enabled | CtxState::Reset
        );
        if disable {
            // Before the request, as the enable in `guc_start`.
            self.ctx_input(a.dev(), id, CtxInput::DisableSent)?;
            ct.request(a, &SchedContextModeSet { id, enable: false })?;
        }
        if disable || state == CtxState::Disabling {
            self.wait_done(a, ct, "disable", CtxState::Disabled)?;
        }
        if state != CtxState::Deregistering {
            self.ctx_input(a.dev(), id, CtxInput::DeregisterSent)?;
            ct.request(a, &DeregisterContext { id })?;
        }
        self.wait_done(a, ct, "deregistration", CtxState::Unregistered)
    }

    /// Gives the context's doorbell back to the pool (test build: [`doorbell`]); with `ct`,
    /// first asks the GuC to disarm it, best effort: the doorbell goes back either way.
    /// Process context.
    #[cfg(xehpg_test)]
    pub(super) fn put_doorbell(&self, s: &Submit, ct: Option<(&Channel, u16)>) {
        let bell = self
            .state
            .lock()
            .mech
            .guc_mut()
            .and_then(|g| g.doorbell.take());
        let Some(d) = bell else {
            return;
        };
        if let Some((ct, id)) = ct {
            let _ = ct.request(s, &DeallocateDoorbell { ctx: id });
        }
        if let Some(pool) = s.doorbells() {
            let _ = pool.lock().free(d);
        }
    }

    /// GT reset: the GuC that knew the context is gone, so the context is dropped here
    /// without a message. Requests in flight fail (their waiters are woken), the ring is
    /// emptied (the test build's caller gives the doorbell back first), and submissions fail
    /// (`ENODEV`) until [`Port::guc_start`] registers the context with the reloaded GuC
    /// (upstream stops every queue and bans the guilty ones, `xe_guc_submit.c`
    /// `xe_guc_submit_stop`; here each port has one kernel context, whose requests are failed,
    /// not replayed). A port a failed recovery stopped is taken back too. Process context.
    /// Returns the requests failed.
    pub(crate) fn guc_forget(&self, dev: &Device) -> usize {
        let failed = {
            let mut st = self.state.lock();
            if st.mech.forget().is_err() {
                self.refused(
                    dev,
                    &mut st,
                    format_args!("GT reset forgetting a port stopped by unbind"),
                );
            }
            let failed = st.count;
            st.count = 0;
            // Only the port's own image: cannot fail.
            let _ = self.empty_ring(&mut st);
            failed
        };
        // CAST: usize to u64 is lossless.
        self.stats.failed.add(failed as u64, Relaxed);
        self.done.notify_all();
        failed
    }

    /// Tells the GuC the context has work. Atomic or process context.
    ///
    /// # Errors
    ///
    /// The CT's errors (`EBUSY` when H2G is full).
    pub(crate) fn guc_kick(&self, a: &impl CtAccess, ct: &Channel, id: u16) -> Result {
        a.with_io(|io| ct.send_fast(io, &SchedContext { id }))
            .unwrap_or(Err(ENODEV))
    }

    /// The GuC context index, in GuC mode.
    pub(crate) fn guc_id(&self) -> Option<u16> {
        match &self.state.lock().mech {
            Mech::Guc(g) => Some(g.id),
            _ => None,
        }
    }

    /// Whether the GuC reset the context and it awaits recovery.
    pub(crate) fn guc_reset_pending(&self) -> bool {
        matches!(&self.state.lock().mech, Mech::Guc(g) if g.state == CtxState::Reset)
    }

    /// Recovery after a reset notification or a stall: fails the requests in flight once,
    /// disables and deregisters the context, empties the ring and registers it again.
    /// Process context. Returns how many requests failed.
    ///
    /// # Errors
    ///
    /// The CT's errors; the port then stays stopped.
    pub(crate) fn guc_recover(&self, a: &Submit, ct: &Channel, why: &str) -> Result<usize> {
        let (id, mask, failed) = {
            let mut st = self.state.lock();
            let Mech::Guc(g) = &st.mech else {
                return Err(ENODEV);
            };
            let (id, mask) = (g.id, g.mask);
            let failed = st.count;
            st.count = 0;
            (id, mask, failed)
        };
        dev_err!(
            a.dev(),
            "submit: {}: context {} {}; {} request(s) failed, re-registering it\n",
            self.engine.name,
            id,
            why,
            failed
        );
        // CAST: usize to u64 is lossless.
        self.stats.failed.add(failed as u64, Relaxed);
        self.stats.resets.add(1, Relaxed);
        self.done.notify_all();
        let res = self.guc_stop(a, ct).and_then(|()| {
            self.empty_ring(&mut self.state.lock())?;
            self.guc_start(a, ct, id, mask)
        });
        if let Err(e) = res {
            if e == ETIME || e == ETIMEDOUT {
                // The GuC did not answer the disable (or its done event never came): upstream
                // resets the GT when a stuck queue cannot be disabled
                // (`guc_exec_queue_timedout_job`).
                ct.unresponsive(a.dev(), Unresponsive::ContextStuck(id));
            }
            {
                let mut st = self.state.lock();
                // A GT reset that forgot the context meanwhile (its `Off`) brings the port
                // back itself: leave it to that.
                if matches!(st.mech, Mech::Guc(_)) {
                    st.mech.fail_recovery();
                }
            }
            dev_err!(
                a.dev(),
                "submit: {}: GuC recovery failed ({}); engine stopped until a GT reset\n",
                self.engine.name,
                e.to_errno()
            );
            self.done.notify_all();
            return Err(e);
        }
        Ok(failed)
    }

    /// A done or reset event for this port's context; false if `id` is not its context.
    /// Receive path (the CT's `rx` held): no sleeping.
    fn guc_event(&self, dev: &Device, id: u32, input: CtxInput) -> bool {
        let mut st = self.state.lock();
        if self.ctx_step(dev, &mut st, id, input).is_none() {
            return false;
        }
        drop(st);
        self.done.notify_all();
        true
    }
}

/// Routes the GuC's submission events to the ports (receive path: no sleeping, no device
/// access; called by the device's event dispatch).
pub(crate) struct Events(pub(crate) Arc<super::Submit>);

impl Events {
    /// A context event: `SCHED_CONTEXT_MODE_DONE`, `DEREGISTER_CONTEXT_DONE` or
    /// `CONTEXT_RESET_NOTIFICATION`; other events are not submission's and are ignored.
    pub(crate) fn guc_event(&self, dev: &Device, ev: &G2hEvent) {
        let (id, input) = match *ev {
            G2hEvent::SchedDone { ctx, enabled } => (ctx, CtxInput::SchedDone(enabled)),
            G2hEvent::DeregisterDone { ctx } => (ctx, CtxInput::DeregisterDone),
            G2hEvent::ContextReset { ctx } => (ctx, CtxInput::ResetNotified),
            _ => return,
        };
        for p in self.0.ports() {
            if p.guc_event(dev, id, input) {
                if input == CtxInput::ResetNotified {
                    dev_err!(
                        dev,
                        "submit: {}: the GuC reset context {} (CONTEXT_RESET_NOTIFICATION)\n",
                        p.engine.name,
                        id
                    );
                }
                return;
            }
        }
        dev_err!(
            dev,
            "submit: GuC event {:#06x} names context {}, which is not registered; ignored\n",
            ev.kind().map_or(0, |k| k.action()),
            id
        );
    }

    /// A context event too short to name its context (logged; nothing changes).
    pub(crate) fn bad_event(&self, dev: &Device, bad: &BadEvent) {
        dev_err!(
            dev,
            "submit: GuC event {:#06x} with {} dwords, {} expected; ignored\n",
            bad.kind.action(),
            bad.len,
            bad.expected
        );
    }
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_guc_submit)]
mod tests {
    use super::*;
    use crate::engine::Class;

    #[test]
    fn policies_are_the_kernel_queues() {
        // Layout tests are in `guc::msg`; here the values upstream gives a kernel queue.
        let p = policies(3, PREEMPT_TIMEOUT_US);
        assert_eq!((p.id, p.priority, p.quantum_us), (3, 0, 1000));
        assert_eq!(p.preempt_us, 640_000);
    }

    #[test]
    fn classes_follow_the_guc_numbering() {
        assert_eq!(guc_class(Class::Render), 0);
        assert_eq!(guc_class(Class::VideoDecode), 1);
        assert_eq!(guc_class(Class::VideoEnhance), 2);
        assert_eq!(guc_class(Class::Copy), 3);
        // xe numbers compute 5 (as the interrupt identity does); the GuC 4.
        assert_eq!(Class::Compute as u32, 5);
        assert_eq!(guc_class(Class::Compute), 4);
    }

    #[test]
    fn a_reset_context_refuses_work() {
        let mut g = GucCtx::new(1, 1);
        assert_eq!(g.check_submit(), Err(ENODEV));
        for i in [
            CtxInput::RegisterAccepted,
            CtxInput::EnableSent,
            CtxInput::SchedDone(true),
        ] {
            assert!(g.step(i).is_ok());
        }
        assert_eq!(g.check_submit(), Ok(()));
        assert_eq!(g.step(CtxInput::ResetNotified), Ok(CtxState::Reset));
        assert_eq!(g.check_submit(), Err(EIO));
    }
}
