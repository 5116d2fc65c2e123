// SPDX-License-Identifier: GPL-2.0

//! VF control: the FLR work and the commands (pause, resume, stop) debugfs sends.
//!
//! The GuC's FLR notifications ([`Pf::post`], from the receive path) queue [`Pf`]'s work,
//! which runs each VF's FLR through the [`Flr`] table: `FLR_START`, the GuC's `VF_FLR_DONE`
//! within upstream's `FLR_WAIT_GUC` timeout, the PF's cleaning, `FLR_FINISH` (seed 000 lines
//! 300-326). The cleaning is upstream's: the VF's GGTT entries stamped again
//! (`pf_sanitize_ggtt`), its local memory cleared (`xe_gt_sriov_pf_config_sanitize`) and its
//! scratch registers zeroed (`xe_gt_sriov_pf.c` `pf_clear_vf_scratch_regs`).

use kernel::{
    io::register::RegisterArray,
    prelude::*,
    sync::{atomic::Relaxed, Arc},
    time::{msecs_to_jiffies, Instant, Monotonic},
    workqueue::WorkItem,
};

use super::{
    super::control::{Command, Flr, FlrAction, FlrInput},
    Pf, Vf,
};
use crate::{
    guc::{VfControl, VF_SW_FLAG},
    mmio::Bar0,
    range::Range,
    trace,
};

/// A copy of `runs`, to clear them with the PF's mutex dropped.
pub(super) fn copy_runs(runs: &[Range]) -> Result<KVec<Range>> {
    let mut copy = KVec::with_capacity(runs.len(), GFP_KERNEL)?;
    copy.extend_from_slice(runs, GFP_KERNEL)?;
    Ok(copy)
}

/// How long the GuC gets for its part of a VF FLR (upstream's `FLR_WAIT_GUC` timeout).
const FLR_WAIT_MS: i64 = 500;

impl WorkItem for Pf {
    type Pointer = Arc<Pf>;

    fn run(this: Arc<Pf>) {
        // FLRs first: a VF's FLR forgets the relay requests it sent before.
        this.run_flrs();
        this.serve_relays();
    }
}

impl Pf {
    /// Resets every VF the GuC has a configuration for, through the FLR work, and waits for
    /// the work: upstream resets each VF after the PCI core disabled them, before their shares
    /// are given back (`xe_pci_sriov.c` `pf_disable_vfs` -> `pf_reset_vfs`), so the GuC has
    /// dropped whatever a VF left scheduled and its memory is cleared before anything of it
    /// is freed. The work runs one FLR at a time, so this takes no lock of its own. Process
    /// context, after `pci_disable_sriov`; holds no lock.
    pub(crate) fn reset_vfs(this: &Arc<Pf>) {
        let configured: u64 = {
            let st = this.state.lock();
            st.vfs
                .iter()
                .zip(1u16..)
                .filter(|(v, _)| v.pushed.is_some())
                .fold(0, |m, (_, vf)| m | 1 << vf)
        };
        if configured == 0 {
            return;
        }
        // As if the GuC had reported each in FLR: the work runs them one at a time.
        for vf in (1..=crate::mem::ggtt::MAX_VFS).filter(|vf| configured & (1 << vf) != 0) {
            Self::post(this, vf, true);
        }
        this.flush_work();
    }

    /// Zeroes VF `vf`'s copy of `VF_SW_FLAG(0..3)` through the PF's view of it. Any context.
    fn clear_vf_regs(&self, bar: Bar0<'_>, vf: u16) -> Result {
        let gt = self.b.hw.gt().view(&self.dev, bar);
        (0..VF_SW_FLAG::SIZE).try_for_each(|i| gt.write_vf_aon_at::<VF_SW_FLAG>(vf, i, 0))
    }

    /// The FLR work: every VF the GuC reported in FLR goes through the sequence; a
    /// `VF_FLR_DONE` nobody waits for is logged and dropped.
    fn run_flrs(&self) {
        loop {
            let flr = {
                let mut ib = self.inbox.lock();
                if ib.closed {
                    return;
                }
                core::mem::take(&mut ib.flr)
            };
            if flr == 0 {
                break;
            }
            for vf in 1..=crate::mem::ggtt::MAX_VFS {
                if flr & (1 << vf) != 0 {
                    self.flr(vf);
                }
            }
        }
        let stray = core::mem::take(&mut self.inbox.lock().done);
        if stray == 0 {
            return;
        }
        let mut st = self.state.lock();
        for vf in (1..=crate::mem::ggtt::MAX_VFS).filter(|vf| stray & (1 << vf) != 0) {
            dev_warn!(
                self.dev,
                "sriov: VF{}: VF_FLR_DONE without an FLR in progress; ignored\n",
                vf
            );
            match st.vfs.get_mut(usize::from(vf) - 1) {
                // Through the table: refused (and counted) unless the VF waits for it, which
                // only this work item's `flr` leaves it doing, and not across runs.
                Some(v) => {
                    if self
                        .flr_next(v, vf, FlrInput::GucDone, FlrAction::Clean)
                        .is_some()
                    {
                        // A waiter after all: the DONE is its.
                        self.inbox.lock().done |= 1 << vf;
                    }
                }
                None => {
                    self.stats.bad_notices.add(1, Relaxed);
                }
            }
        }
    }

    /// One VF's FLR (seed 000 lines 300-326; messages upstream's): `FLR_START`, the GuC's
    /// `VF_FLR_DONE` within [`FLR_WAIT_MS`], the PF's cleaning, `FLR_FINISH`. Process
    /// context (the work). The PF's mutex is dropped for the wait for the GuC's part
    /// (Documentation/architecture.rst, "Locks"), so provisioning, `sriov_admin`, debugfs and
    /// the GT reset's restart do not wait behind it; the VF is looked up again after it.
    fn flr(&self, vf: u16) {
        let mut st = self.state.lock();
        let Some(v) = st.vfs.get_mut(usize::from(vf) - 1) else {
            return;
        };
        // A VF whose provisioning is still clearing its memory: the GuC has no configuration
        // for it, so it cannot be in an FLR (an untrusted notification).
        if v.pushed.is_none() {
            dev_warn!(
                self.dev,
                "sriov: VF{}: FLR of a VF still being provisioned; ignored\n",
                vf
            );
            self.stats.bad_notices.add(1, Relaxed);
            return;
        }
        // A DONE left from an earlier round must not end this one.
        self.inbox.lock().done &= !(1 << vf);
        // The VF's driver starts over: no request of its old self is answered, and it
        // handshakes again (upstream `xe_gt_sriov_pf_service_reset` at the FLR).
        self.forget_relays(vf);
        let Some(next) = self.flr_next(v, vf, FlrInput::Started, FlrAction::SendStart) else {
            return;
        };
        v.flr = next;
        dev_info!(self.dev, "sriov: VF{}: FLR\n", vf);
        if let Err(e) = self.b.ct.request(
            self,
            &VfControl {
                vf,
                cmd: Command::FlrStart,
            },
        ) {
            self.flr_failed(v, vf, "FLR_START", e);
            return;
        }
        drop(st);
        let done = self.wait_done(vf);
        let mut st = self.state.lock();
        // Given back meanwhile (and perhaps provisioned again, which starts a VF `Idle`): its
        // FLR ended with it. Only this work item moves a VF to `WaitGuc`, and it runs one at a
        // time, so a VF still waiting is the one this round started.
        let Some(mut v) = st
            .vfs
            .get_mut(usize::from(vf) - 1)
            .filter(|v| v.flr == Flr::WaitGuc)
        else {
            dev_info!(
                self.dev,
                "sriov: VF{}: given back during its FLR; FLR dropped\n",
                vf
            );
            return;
        };
        if !done {
            let Some(next) = self.flr_next(v, vf, FlrInput::TimedOut, FlrAction::Report) else {
                return;
            };
            v.flr = next;
            self.stats.flr_failed.add(1, Relaxed);
            dev_err!(
                self.dev,
                "sriov: VF{}: FLR: no VF_FLR_DONE from the GuC within {} ms; the VF stays \
                 stopped until its next FLR\n",
                vf,
                FLR_WAIT_MS
            );
            return;
        }
        let Some(next) = self.flr_next(v, vf, FlrInput::GucDone, FlrAction::Clean) else {
            return;
        };
        v.flr = next;
        // The PF's part: the VF's GGTT entries stamped again, dropping the addresses it wrote
        // (upstream `pf_sanitize_ggtt`). TLB entries the VF used are invalidated below.
        if let Some(g) = v.ggtt {
            if let Err(e) = self.with_bars(|bar, _| self.b.hw.ggtt().sanitize_vf(bar, g, vf)) {
                self.flr_failed(v, vf, "GGTT sanitize", e);
                return;
            }
        }
        // The VF's local memory back to zeros before it runs again (seed 000 lines 300-326:
        // an FLR clears the VF's state; upstream `xe_gt_sriov_pf_config_sanitize` clears it
        // with the copy engine). Without the PF's mutex: the VF is marked `cleaning`, so nothing
        // gives it back or frees its pages until the mark goes.
        let runs = match v.lmem.as_ref().map(|l| copy_runs(l.runs())).transpose() {
            Ok(runs) => runs,
            Err(e) => {
                self.flr_failed(v, vf, "bookkeeping", e);
                return;
            }
        };
        if let Some(runs) = runs {
            v.cleaning = true;
            drop(st);
            let cleared = runs.iter().try_for_each(|run| self.clear_run(vf, *run));
            st = self.state.lock();
            // Still there: giving back waits for the mark ([`Pf::settle`]).
            let Some(again) = st.vfs.get_mut(usize::from(vf) - 1) else {
                dev_err!(
                    self.dev,
                    "sriov: VF{}: gone while its memory was cleared\n",
                    vf
                );
                self.cleaned.notify_all();
                return;
            };
            again.cleaning = false;
            self.cleaned.notify_all();
            v = again;
            if let Err(e) = cleared {
                self.flr_failed(v, vf, "local memory clear", e);
                return;
            }
        }
        // The VF's MMIO message registers, where its last exchange with the GuC may still sit:
        // the seed gives their reset to the hardware (seed 000 line 322, "Gunit resets
        // VF-dedicated MMIO registers"); upstream clears them anyway
        // (`xe_gt_sriov_pf.c` `pf_clear_vf_scratch_regs`), and so does this PF, so the next
        // owner never depends on that step. Always-on registers: no forcewake.
        if let Err(e) = self.with_bars(|bar, _| self.clear_vf_regs(bar, vf)) {
            self.flr_failed(v, vf, "VF registers", e);
            return;
        }
        // `Idle` only once the GuC took `FLR_FINISH`; if it refuses, the VF fails from
        // `Cleanup`.
        let Some(next) = self.flr_next(v, vf, FlrInput::Cleaned, FlrAction::SendFinish) else {
            return;
        };
        if let Err(e) = self.b.ct.request(
            self,
            &VfControl {
                vf,
                cmd: Command::FlrFinish,
            },
        ) {
            self.flr_failed(v, vf, "FLR_FINISH", e);
            return;
        }
        v.flr = next;
        // The GuC schedules the VF again (`FLR_FINISH` leaves `STOPPED` too).
        v.stopped = false;
        drop(st);
        self.invalidate();
        self.stats.flr_done.add(1, Relaxed);
        dev_info!(self.dev, "sriov: VF{}: FLR complete\n", vf);
    }

    /// Sends `cmd` (pause, resume, stop) for provisioned VF `vf`. Process context.
    ///
    /// # Errors
    ///
    /// `ENOENT` for a VF that is not provisioned, `ESTALE` to stop a stopped VF (upstream
    /// `xe_gt_sriov_pf_control_stop_vf`), `EPERM` to pause or resume one (only an FLR lets it
    /// run again), the GuC's error (it refuses a command the VF's state does not allow).
    pub(crate) fn control(&self, vf: u16, cmd: Command) -> Result {
        let mut st = self.state.lock();
        // Only a VF the GuC has a configuration for (not one still being provisioned).
        let v = usize::from(vf)
            .checked_sub(1)
            .and_then(|i| st.vfs.get_mut(i))
            .filter(|v| v.pushed.is_some())
            .ok_or(ENOENT)?;
        if v.stopped {
            return Err(if cmd == Command::Stop { ESTALE } else { EPERM });
        }
        self.b.ct.request(self, &VfControl { vf, cmd })?;
        if cmd == Command::Stop {
            v.stopped = true;
        }
        Ok(())
    }

    /// Waits for `VF_FLR_DONE` of `vf`; false on timeout or teardown.
    fn wait_done(&self, vf: u16) -> bool {
        let start = Instant::<Monotonic>::now();
        let mut ib = self.inbox.lock();
        loop {
            if ib.done & (1 << vf) != 0 {
                ib.done &= !(1 << vf);
                return true;
            }
            let left = FLR_WAIT_MS - start.elapsed().as_millis();
            if ib.closed || left <= 0 {
                return false;
            }
            // CAST: 1..=FLR_WAIT_MS.
            let _ = self
                .notified
                .wait_interruptible_timeout(&mut ib, msecs_to_jiffies(left as u32));
        }
    }

    /// The state `input` moves VF `vf`'s FLR to ([`Flr::on`]), if the table allows it and
    /// asks for `want`, the action the sequence takes next; the caller assigns it. Otherwise
    /// `None`: counted in `flr_bad_transitions`, logged, and the FLR goes no further. Any
    /// context but the top half (the PF's mutex held).
    fn flr_next(&self, v: &Vf, vf: u16, input: FlrInput, want: FlrAction) -> Option<Flr> {
        let res = v.flr.on(input);
        if let Ok((next, action)) = res {
            if action == want {
                trace::vf_flr(&self.dev, vf, input.name(), v.flr.name(), next.name());
                trace::dyn_dbg!(
                    self.dev,
                    "sriov: VF{}: FLR {} -> {} on {}\n",
                    vf,
                    v.flr.name(),
                    next.name(),
                    input.name()
                );
                return Some(next);
            }
        }
        self.stats.flr_bad_transitions.add(1, Relaxed);
        match res {
            Ok((_, action)) => dev_err!(
                self.dev,
                "sriov: VF{}: FLR: {:?} in state {:?} asks for {:?}, not {:?}; FLR not \
                 continued\n",
                vf,
                input,
                v.flr,
                action,
                want
            ),
            Err(_) => dev_err!(
                self.dev,
                "sriov: VF{}: FLR: {:?} is out of order in state {:?}; refused, FLR not \
                 continued\n",
                vf,
                input,
                v.flr
            ),
        }
        None
    }

    /// A step of VF `vf`'s FLR failed (`what`, `e`): the FLR ends `Failed` through the
    /// table's `StepFailed`, counted and logged. Process context (the PF's mutex held).
    fn flr_failed(&self, v: &mut Vf, vf: u16, what: &str, e: Error) {
        if let Some(next) = self.flr_next(v, vf, FlrInput::StepFailed, FlrAction::Report) {
            v.flr = next;
        }
        self.stats.flr_failed.add(1, Relaxed);
        dev_err!(
            self.dev,
            "sriov: VF{}: FLR failed at {}: {}\n",
            vf,
            what,
            e.to_errno()
        );
    }
}
