// SPDX-License-Identifier: GPL-2.0

//! A port's GuC context: its index, its engine mask and where it stands with the GuC, as
//! one state whose transitions are a table ([`CtxState::on`]). An input the table does not
//! have for the current state leaves the state unchanged and is an error, which the port
//! counts and logs ([`super::port::Stats`] `bad_transitions`).
//!
//! The states follow upstream's exec-queue state bits (`xe_guc_submit.c`,
//! `EXEC_QUEUE_STATE_REGISTERED`, `_PENDING_ENABLE`, `_ENABLED`, `_PENDING_DISABLE`,
//! `_DESTROYED`, `_RESET`), folded into one value because this driver has one kernel context
//! per engine and runs its steps one after the other:
//!
//! | from | input | to | upstream |
//! |---|---|---|---|
//! | `Unregistered` | `RegisterAccepted` | `Registered` | `register_exec_queue` |
//! | `Registered` | `EnableSent` | `Enabling` | `enable_scheduling` |
//! | `Enabling` | `SchedDone(true)` | `Enabled` | `handle_sched_done` |
//! | `Registered`, `Enabling`, `Enabled`, `Reset` | `DisableSent` | `Disabling` | (1) |
//! | `Disabling` | `SchedDone(false)` | `Disabled` | `handle_sched_done` |
//! | `Disabled` | `DeregisterSent` | `Deregistering` | `deregister_exec_queue` |
//! | `Deregistering` | `DeregisterDone` | `Unregistered` | `handle_deregister_done` |
//! | `Enabled` | `ResetNotified` | `Reset` | `xe_guc_exec_queue_reset_handler` |
//! | `Disabling` | `ResetNotified` | `Disabling` | (2) |
//!
//! (1) `disable_scheduling` sets pending_disable; (2) the disable's done event still comes
//! (`handle_sched_done` clears pending_disable whatever the reset). `register_exec_queue`
//! sets registered, `enable_scheduling` pending_enable, `handle_sched_done` clears the
//! pending bit, `handle_deregister_done` clears registered.
//!
//! Every other pair is refused. Upstream refuses the same events with `EPROTO`:
//! `xe_guc_sched_done_handler` when neither pending_enable nor pending_disable is set,
//! `xe_guc_deregister_done_handler` unless the queue is destroyed and neither pending nor
//! enabled.
//!
//! Where this driver differs, and why:
//! - `Registered` and `Enabling` accept `DisableSent`: the host disables a context whose
//!   enable the GuC refused or never confirmed before deregistering it (`disable_scheduling`
//!   asserts only registered and no pending disable).
//! - A reset notification is accepted only for an enabled context, or one being disabled
//!   (the GuC resets what it runs; a disable of a hung context ends in its reset, and
//!   `handle_sched_done` still clears pending_disable). The G2H channel is in order, so a
//!   reset cannot overtake the enable's done event.
//! - After a reset, recovery disables and deregisters the context and registers a new one
//!   ([`super::port::Port`] `guc_recover`), so `Reset` needs no way back to `Enabled`.

use kernel::prelude::*;

#[cfg(xehpg_test)]
use super::doorbell::Doorbell;

/// Where a context stands with the GuC.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum CtxState {
    /// Not known to the GuC (never registered, or deregistered).
    Unregistered,
    /// The GuC accepted `REGISTER_CONTEXT`; scheduling is off.
    Registered,
    /// `SCHED_CONTEXT_MODE_SET` enable sent; its done event has not come.
    Enabling,
    /// The GuC schedules the context: submissions are accepted.
    Enabled,
    /// `SCHED_CONTEXT_MODE_SET` disable sent; its done event has not come.
    Disabling,
    /// The GuC no longer schedules the context.
    Disabled,
    /// `DEREGISTER_CONTEXT` sent; its done event has not come.
    Deregistering,
    /// The GuC reset the context (`CONTEXT_RESET_NOTIFICATION`) and stopped scheduling it:
    /// submissions fail with `EIO` until recovery.
    Reset,
}

/// What moves a context's state: a step the host took, or an event from the GuC.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum CtxInput {
    /// The GuC answered `REGISTER_CONTEXT` with success.
    RegisterAccepted,
    /// The host is sending `SCHED_CONTEXT_MODE_SET` enable.
    EnableSent,
    /// `SCHED_CONTEXT_MODE_DONE` with its state (enabled or not).
    SchedDone(bool),
    /// The host is sending `SCHED_CONTEXT_MODE_SET` disable.
    DisableSent,
    /// The host is sending `DEREGISTER_CONTEXT`.
    DeregisterSent,
    /// `DEREGISTER_CONTEXT_DONE`.
    DeregisterDone,
    /// `CONTEXT_RESET_NOTIFICATION`.
    ResetNotified,
}

impl CtxState {
    /// Every state, for tests and tables.
    #[cfg(xehpg_kunit)]
    pub(crate) const ALL: [CtxState; 8] = [
        CtxState::Unregistered,
        CtxState::Registered,
        CtxState::Enabling,
        CtxState::Enabled,
        CtxState::Disabling,
        CtxState::Disabled,
        CtxState::Deregistering,
        CtxState::Reset,
    ];

    /// The state after `input` (the module's table). Any context: pure.
    ///
    /// # Errors
    ///
    /// `EPROTO` for a pair the table does not have; the caller keeps the old state.
    pub(crate) fn on(self, input: CtxInput) -> Result<CtxState> {
        use CtxInput as I;
        use CtxState as S;
        match (self, input) {
            (S::Unregistered, I::RegisterAccepted) => Ok(S::Registered),
            (S::Registered, I::EnableSent) => Ok(S::Enabling),
            (S::Enabling, I::SchedDone(true)) => Ok(S::Enabled),
            (S::Registered | S::Enabling | S::Enabled | S::Reset, I::DisableSent) => {
                Ok(S::Disabling)
            }
            (S::Disabling, I::SchedDone(false)) => Ok(S::Disabled),
            (S::Disabled, I::DeregisterSent) => Ok(S::Deregistering),
            (S::Deregistering, I::DeregisterDone) => Ok(S::Unregistered),
            (S::Enabled, I::ResetNotified) => Ok(S::Reset),
            (S::Disabling, I::ResetNotified) => Ok(S::Disabling),
            _ => Err(EPROTO),
        }
    }

    /// The state's name, for logs.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            CtxState::Unregistered => "unregistered",
            CtxState::Registered => "registered",
            CtxState::Enabling => "enabling",
            CtxState::Enabled => "enabled",
            CtxState::Disabling => "disabling",
            CtxState::Disabled => "disabled",
            CtxState::Deregistering => "deregistering",
            CtxState::Reset => "reset",
        }
    }
}

impl CtxInput {
    /// The input's name, for logs.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            CtxInput::RegisterAccepted => "registration accepted",
            CtxInput::EnableSent => "enable sent",
            CtxInput::SchedDone(true) => "SCHED_CONTEXT_MODE_DONE(enabled)",
            CtxInput::SchedDone(false) => "SCHED_CONTEXT_MODE_DONE(disabled)",
            CtxInput::DisableSent => "disable sent",
            CtxInput::DeregisterSent => "deregistration sent",
            CtxInput::DeregisterDone => "DEREGISTER_CONTEXT_DONE",
            CtxInput::ResetNotified => "CONTEXT_RESET_NOTIFICATION",
        }
    }
}

/// A context's registration with the GuC.
pub(crate) struct GucCtx {
    /// The context index (upstream's guc_id).
    pub(super) id: u16,
    /// The engine's logical-instance mask it was registered with.
    pub(super) mask: u32,
    /// Where it stands ([`CtxState::on`] moves it).
    pub(super) state: CtxState,
    /// The doorbell the GuC armed for it, if any ([`super::doorbell`]; test build only: the
    /// doorbell ABI is a guess).
    #[cfg(xehpg_test)]
    pub(super) doorbell: Option<Doorbell>,
}

impl GucCtx {
    /// A context not yet registered. Any context.
    pub(super) const fn new(id: u16, mask: u32) -> Self {
        Self {
            id,
            mask,
            state: CtxState::Unregistered,
            #[cfg(xehpg_test)]
            doorbell: None,
        }
    }

    /// Applies `input`; on a refused pair the state is unchanged. Any context.
    ///
    /// # Errors
    ///
    /// `EPROTO` from [`CtxState::on`].
    pub(super) fn step(&mut self, input: CtxInput) -> Result<CtxState> {
        let next = self.state.on(input)?;
        self.state = next;
        Ok(next)
    }

    /// Whether a request may be queued now. Any context.
    ///
    /// # Errors
    ///
    /// `EIO` after a reset notification (the caller recovers first), `ENODEV` in every state
    /// but [`CtxState::Enabled`].
    pub(super) fn check_submit(&self) -> Result {
        match self.state {
            CtxState::Enabled => Ok(()),
            CtxState::Reset => Err(EIO),
            _ => Err(ENODEV),
        }
    }
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_guc_ctx)]
mod tests {
    use super::*;

    const INPUTS: [CtxInput; 8] = [
        CtxInput::RegisterAccepted,
        CtxInput::EnableSent,
        CtxInput::SchedDone(true),
        CtxInput::SchedDone(false),
        CtxInput::DisableSent,
        CtxInput::DeregisterSent,
        CtxInput::DeregisterDone,
        CtxInput::ResetNotified,
    ];

    /// The module's table, written out again as data: (from, input, to).
    const TABLE: [(CtxState, CtxInput, CtxState); 12] = {
        use CtxInput as I;
        use CtxState as S;
        [
            (S::Unregistered, I::RegisterAccepted, S::Registered),
            (S::Registered, I::EnableSent, S::Enabling),
            (S::Enabling, I::SchedDone(true), S::Enabled),
            (S::Registered, I::DisableSent, S::Disabling),
            (S::Enabling, I::DisableSent, S::Disabling),
            (S::Enabled, I::DisableSent, S::Disabling),
            (S::Reset, I::DisableSent, S::Disabling),
            (S::Disabling, I::SchedDone(false), S::Disabled),
            (S::Disabled, I::DeregisterSent, S::Deregistering),
            (S::Deregistering, I::DeregisterDone, S::Unregistered),
            (S::Enabled, I::ResetNotified, S::Reset),
            (S::Disabling, I::ResetNotified, S::Disabling),
        ]
    };

    #[test]
    fn every_pair_follows_the_table() {
        let mut allowed = 0;
        for s in CtxState::ALL {
            for i in INPUTS {
                let want = TABLE
                    .iter()
                    .find(|(f, inp, _)| *f == s && *inp == i)
                    .map(|(_, _, t)| *t);
                match want {
                    Some(t) => {
                        assert_eq!(s.on(i), Ok(t));
                        allowed += 1;
                    }
                    None => assert_eq!(s.on(i), Err(EPROTO)),
                }
            }
        }
        // 64 pairs, 12 of them transitions.
        assert_eq!(allowed, TABLE.len());
    }

    #[test]
    fn a_refused_input_keeps_the_state() {
        let mut g = GucCtx::new(1, 1);
        assert_eq!(g.step(CtxInput::SchedDone(true)), Err(EPROTO));
        assert_eq!(g.state, CtxState::Unregistered);
        assert_eq!(g.step(CtxInput::RegisterAccepted), Ok(CtxState::Registered));
        assert_eq!(g.step(CtxInput::DeregisterDone), Err(EPROTO));
        assert_eq!(g.state, CtxState::Registered);
    }

    #[test]
    fn a_whole_life_returns_to_unregistered() {
        let mut g = GucCtx::new(2, 1);
        for i in [
            CtxInput::RegisterAccepted,
            CtxInput::EnableSent,
            CtxInput::SchedDone(true),
            CtxInput::ResetNotified,
            CtxInput::DisableSent,
            CtxInput::SchedDone(false),
            CtxInput::DeregisterSent,
            CtxInput::DeregisterDone,
        ] {
            assert!(g.step(i).is_ok());
        }
        assert_eq!(g.state, CtxState::Unregistered);
    }

    #[test]
    fn only_an_enabled_context_takes_work() {
        for s in CtxState::ALL {
            let g = GucCtx {
                state: s,
                ..GucCtx::new(1, 1)
            };
            let want = match s {
                CtxState::Enabled => Ok(()),
                CtxState::Reset => Err(EIO),
                _ => Err(ENODEV),
            };
            assert_eq!(g.check_submit(), want);
        }
    }
}
