// SPDX-License-Identifier: GPL-2.0

//! The PF's messages to the GuC about VFs, the GuC's notifications about them, and the VF
//! FLR sequence they drive.
//!
//! The PRM describes the FLR in twelve steps (seed 000 lines 300-326): the GuC tells the PF a
//! VF is in FLR, cleans the VF's scheduling state and tells the PF it is done; the PF cleans
//! what it owns. It names no message; the messages are upstream's (`abi/
//! guc_actions_sriov_abi.h`), and so is the split of the cleaning: the PF re-stamps the
//! VF's GGTT entries, clears its local memory and its scratch registers, the GuC its
//! doorbells and contexts (`xe_gt_sriov_pf_control.c`; the PRM's step 4 has the PF clear the
//! doorbell cookies, a choice it leaves to "the SAS").
//!
//! Everything from the GuC is untrusted: [`parse_state`] refuses a notification for a VF
//! that is not enabled, and [`Flr::on`] a step out of order, each with the reason for the log.

use kernel::prelude::*;

use super::config::threshold_index;
use crate::abi::*;

/// A `PF2GUC_VF_CONTROL` command: the codec's type, as the guc block below may not name
/// this one.
pub(crate) use crate::guc::VfCommand as Command;

/// Checks the reply to `PF2GUC_UPDATE_VF_CFG`: the GuC must have applied every KLV sent.
///
/// # Errors
///
/// `ENOKEY` when it applied fewer (it did not know a key), `EPROTO` when it claims more.
pub(crate) fn applied(sent: u32, reply: u32) -> Result {
    match reply.cmp(&sent) {
        core::cmp::Ordering::Equal => Ok(()),
        core::cmp::Ordering::Less => Err(ENOKEY),
        core::cmp::Ordering::Greater => Err(EPROTO),
    }
}

/// What a `GUC2PF_VF_STATE_NOTIFY` says.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Notice {
    /// The PF's own: the GuC saw VF Enable set.
    Enabled,
    /// A VF entered FLR (seed 000 line 311, step 3).
    Flr(u16),
    /// The GuC finished its part of a VF's FLR (step 11).
    FlrDone(u16),
    PauseDone(u16),
    FixupDone(u16),
}

/// Why a notification is refused.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum BadNotice {
    /// Fewer than the two payload dwords (found by the event decoder,
    /// [`crate::guc::BadEvent`]).
    Short(usize),
    /// A VF number that is not enabled (`num_vfs`).
    NoSuchVf(u32),
    /// An event code the ABI does not define for this function.
    Unknown { vf: u32, event: u32 },
    /// An adverse event naming a key that is not a threshold.
    NotAThreshold { vf: u32, key: u32 },
}

/// Checks a decoded `GUC2PF_ADVERSE_EVENT` {VF, threshold key} (upstream
/// `abi/guc_actions_sriov_abi.h`) with `num_vfs` VFs enabled: the VF and the threshold's
/// index in [`THRESHOLDS`](super::config::THRESHOLDS).
///
/// # Errors
///
/// The reason, as [`BadNotice`]: the PF (0) has no thresholds either.
pub(crate) fn parse_adverse(vf: u32, key: u32, num_vfs: u16) -> Result<(u16, usize), BadNotice> {
    let n = u16::try_from(vf)
        .ok()
        .filter(|n| (1..=num_vfs).contains(n))
        .ok_or(BadNotice::NoSuchVf(vf))?;
    let i = threshold_index(key).ok_or(BadNotice::NotAThreshold { vf, key })?;
    Ok((n, i))
}

/// Checks a decoded `GUC2PF_VF_STATE_NOTIFY` {VF, event} with `num_vfs` VFs enabled.
///
/// # Errors
///
/// The reason, as [`BadNotice`].
pub(crate) fn parse_state(vf: u32, event: u32, num_vfs: u16) -> Result<Notice, BadNotice> {
    if vf == 0 {
        return match event {
            XEHPG_GUC_PF_NOTIFY_VF_ENABLE => Ok(Notice::Enabled),
            _ => Err(BadNotice::Unknown { vf, event }),
        };
    }
    let n = u16::try_from(vf)
        .ok()
        .filter(|n| *n <= num_vfs)
        .ok_or(BadNotice::NoSuchVf(vf))?;
    match event {
        XEHPG_GUC_PF_NOTIFY_VF_FLR => Ok(Notice::Flr(n)),
        XEHPG_GUC_PF_NOTIFY_VF_FLR_DONE => Ok(Notice::FlrDone(n)),
        XEHPG_GUC_PF_NOTIFY_VF_PAUSE_DONE => Ok(Notice::PauseDone(n)),
        XEHPG_GUC_PF_NOTIFY_VF_FIXUP_DONE => Ok(Notice::FixupDone(n)),
        _ => Err(BadNotice::Unknown { vf, event }),
    }
}

/// Where one VF's FLR stands.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) enum Flr {
    /// No FLR in progress.
    #[default]
    Idle,
    /// `FLR_START` sent; the GuC is cleaning the VF's scheduling state (steps 5-10).
    WaitGuc,
    /// The GuC is done; the PF cleans GGTT, local memory and scratch registers, then sends
    /// `FLR_FINISH`.
    Cleanup,
    /// The GuC did not finish its part in time, or a step of the sequence failed; the VF
    /// stays stopped until the next FLR.
    Failed,
}

/// What moves an FLR on.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum FlrInput {
    /// The GuC's `VF_FLR` notification.
    Started,
    /// The GuC's `VF_FLR_DONE`.
    GucDone,
    /// The PF finished its cleaning.
    Cleaned,
    /// The GuC's part took too long.
    TimedOut,
    /// A step of the PF's failed: `FLR_START` or `FLR_FINISH` refused, or a part of the
    /// cleaning (GGTT, local memory, VF registers).
    StepFailed,
}

impl FlrInput {
    /// The input's name in the `xehpg_vf_flr` trace event.
    pub(crate) fn name(self) -> &'static str {
        match self {
            FlrInput::Started => "started",
            FlrInput::GucDone => "guc_done",
            FlrInput::Cleaned => "cleaned",
            FlrInput::TimedOut => "timed_out",
            FlrInput::StepFailed => "step_failed",
        }
    }
}

/// What the PF must do next.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum FlrAction {
    SendStart,
    Clean,
    SendFinish,
    /// Log the failure.
    Report,
}

impl Flr {
    /// The state's name in the `xehpg_vf_flr` trace event.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Flr::Idle => "idle",
            Flr::WaitGuc => "wait_guc",
            Flr::Cleanup => "cleanup",
            Flr::Failed => "failed",
        }
    }

    /// The next state and the PF's action for `input`. Any context: pure.
    ///
    /// | from | input | to | action |
    /// |---|---|---|---|
    /// | any | `Started` | `WaitGuc` | `SendStart` |
    /// | `WaitGuc` | `GucDone` | `Cleanup` | `Clean` |
    /// | `WaitGuc` | `TimedOut` | `Failed` | `Report` |
    /// | `WaitGuc`, `Cleanup` | `StepFailed` | `Failed` | `Report` |
    /// | `Cleanup` | `Cleaned` | `Idle` | `SendFinish` |
    ///
    /// A `VF_FLR` while one is under way restarts it (the VF was reset again; the GuC
    /// is sent `FLR_START` again). Upstream instead
    /// refuses a second FLR while one is in progress (`xe_gt_sriov_pf_control.c`
    /// `pf_begin_vf_flr`, `EALREADY`); here the work item runs one FLR at a time, so a
    /// restart only follows a finished or failed round. A `VF_FLR_DONE` in any state but
    /// `WaitGuc`, a late one after the timeout included, is out of order (upstream
    /// `pf_handle_vf_flr_done` enters the VF mismatch state); the VF stays failed until its
    /// next FLR. Anything else
    /// out of order is refused and changes nothing.
    ///
    /// # Errors
    ///
    /// `EPROTO` for an input the current state does not expect.
    pub(crate) fn on(self, input: FlrInput) -> Result<(Flr, FlrAction)> {
        match (self, input) {
            (_, FlrInput::Started) => Ok((Flr::WaitGuc, FlrAction::SendStart)),
            (Flr::WaitGuc, FlrInput::GucDone) => Ok((Flr::Cleanup, FlrAction::Clean)),
            (Flr::WaitGuc, FlrInput::TimedOut) => Ok((Flr::Failed, FlrAction::Report)),
            (Flr::WaitGuc | Flr::Cleanup, FlrInput::StepFailed) => {
                Ok((Flr::Failed, FlrAction::Report))
            }
            (Flr::Cleanup, FlrInput::Cleaned) => Ok((Flr::Idle, FlrAction::SendFinish)),
            _ => Err(EPROTO),
        }
    }
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_sriov_control)]
mod tests {
    use super::*;

    #[test]
    fn the_reply_must_count_every_klv() {
        assert_eq!(applied(9, 9), Ok(()));
        assert_eq!(applied(9, 8), Err(ENOKEY));
        assert_eq!(applied(9, 10), Err(EPROTO));
    }

    #[test]
    fn notices_are_checked_against_enabled_vfs() {
        assert_eq!(parse_state(0, 1, 0), Ok(Notice::Enabled));
        assert_eq!(parse_state(3, 1, 7), Ok(Notice::Flr(3)));
        assert_eq!(parse_state(7, 2, 7), Ok(Notice::FlrDone(7)));
        assert_eq!(parse_state(8, 1, 7), Err(BadNotice::NoSuchVf(8)));
        assert_eq!(
            parse_state(0x1_0001, 1, 7),
            Err(BadNotice::NoSuchVf(0x1_0001))
        );
        assert_eq!(
            parse_state(2, 9, 7),
            Err(BadNotice::Unknown { vf: 2, event: 9 })
        );
        assert_eq!(
            parse_state(0, 2, 7),
            Err(BadNotice::Unknown { vf: 0, event: 2 })
        );
    }

    #[test]
    fn adverse_events_name_an_enabled_vf_and_a_threshold() {
        assert_eq!(parse_adverse(2, 0x8a03, 7), Ok((2, 0)));
        assert_eq!(parse_adverse(7, 0x8a08, 7), Ok((7, 5)));
        assert_eq!(parse_adverse(8, 0x8a03, 7), Err(BadNotice::NoSuchVf(8)));
        assert_eq!(parse_adverse(0, 0x8a03, 7), Err(BadNotice::NoSuchVf(0)));
        assert_eq!(
            parse_adverse(2, 0x8a01, 7),
            Err(BadNotice::NotAThreshold { vf: 2, key: 0x8a01 })
        );
    }

    #[test]
    fn flr_runs_in_order_and_refuses_the_rest() -> Result {
        let (s, a) = Flr::Idle.on(FlrInput::Started)?;
        assert_eq!((s, a), (Flr::WaitGuc, FlrAction::SendStart));
        assert_eq!(s.on(FlrInput::Cleaned), Err(EPROTO));
        let (s, a) = s.on(FlrInput::GucDone)?;
        assert_eq!((s, a), (Flr::Cleanup, FlrAction::Clean));
        assert_eq!(s.on(FlrInput::GucDone), Err(EPROTO));
        let (s, a) = s.on(FlrInput::Cleaned)?;
        assert_eq!((s, a), (Flr::Idle, FlrAction::SendFinish));
        // A DONE nobody asked for (an untrusted GuC) changes nothing.
        assert_eq!(Flr::Idle.on(FlrInput::GucDone), Err(EPROTO));
        // A timeout leaves it failed; a late DONE still cleans up, a new FLR restarts.
        assert_eq!(
            Flr::WaitGuc.on(FlrInput::TimedOut),
            Ok((Flr::Failed, FlrAction::Report))
        );
        assert_eq!(Flr::Idle.on(FlrInput::TimedOut), Err(EPROTO));
        // A DONE after the timeout is out of order: the VF stays failed.
        assert_eq!(Flr::Failed.on(FlrInput::GucDone), Err(EPROTO));
        assert_eq!(
            Flr::Failed.on(FlrInput::Started),
            Ok((Flr::WaitGuc, FlrAction::SendStart))
        );
        // A second FLR while waiting restarts it.
        assert_eq!(
            Flr::Cleanup.on(FlrInput::Started),
            Ok((Flr::WaitGuc, FlrAction::SendStart))
        );
        Ok(())
    }

    #[test]
    fn every_flr_pair_follows_the_table() {
        use Flr as F;
        use FlrAction as A;
        use FlrInput as I;
        let states = [F::Idle, F::WaitGuc, F::Cleanup, F::Failed];
        let inputs = [
            I::Started,
            I::GucDone,
            I::Cleaned,
            I::TimedOut,
            I::StepFailed,
        ];
        // The table of `Flr::on`, written out again as data.
        let table = [
            (F::Idle, I::Started, F::WaitGuc, A::SendStart),
            (F::WaitGuc, I::Started, F::WaitGuc, A::SendStart),
            (F::Cleanup, I::Started, F::WaitGuc, A::SendStart),
            (F::Failed, I::Started, F::WaitGuc, A::SendStart),
            (F::WaitGuc, I::GucDone, F::Cleanup, A::Clean),
            (F::WaitGuc, I::TimedOut, F::Failed, A::Report),
            (F::WaitGuc, I::StepFailed, F::Failed, A::Report),
            (F::Cleanup, I::StepFailed, F::Failed, A::Report),
            (F::Cleanup, I::Cleaned, F::Idle, A::SendFinish),
        ];
        let mut allowed = 0;
        for s in states {
            for i in inputs {
                let want = table
                    .iter()
                    .find(|(f, inp, _, _)| *f == s && *inp == i)
                    .map(|(_, _, t, a)| (*t, *a));
                match want {
                    Some(w) => {
                        assert_eq!(s.on(i), Ok(w));
                        allowed += 1;
                    }
                    None => assert_eq!(s.on(i), Err(EPROTO)),
                }
            }
        }
        // 20 pairs, 9 of them transitions.
        assert_eq!(allowed, table.len());
        // The ones named in the plan: a DONE during the PF's cleaning is refused.
        assert_eq!(F::Cleanup.on(I::GucDone), Err(EPROTO));
        assert_eq!(F::Idle.on(I::StepFailed), Err(EPROTO));
    }
}
