// SPDX-License-Identifier: GPL-2.0

//! Execlist submission: the host writes the engine's submission queue itself.
//!
//! A request that finds the context off the engine writes the new tail into the image
//! (`CTX_RING_TAIL`) and the descriptor into SQ element 0, then `EXECLIST_CONTROL` Load: three
//! register writes (elements 1-7 stay invalid from start-up: the SQ keeps its contents, seed
//! 004 line 130). One that finds it on the engine does nothing more: the engine is never sent
//! a context it is still running, so the image is never written while the engine may save it
//! (no lite restore), and requests queued meanwhile leave together on the next Load, which
//! the interrupt thread makes when the CSB says the context switched out.
//!
//! Forcewake for the engine's domain is taken when the port goes busy and kept (as a
//! [`crate::gt::Held`]) until it is idle with nothing in flight, so a busy engine's submissions
//! cost only the three writes.

use kernel::{prelude::*, sync::atomic::Relaxed};

use super::port::{BadKind, El, Mech, Port, State, CTX_ID, HWSP_SEQNO};
use crate::{
    engine::{
        csb::{self, Entry, Event},
        lrc,
        regs::{
            Io, MaskedWrite, CONTEXT_STATUS_PTR, EXECLIST_CONTROL, GFX_MODE, HWSTAM, HWS_PGA,
            MI_MODE, SQ_CONTENTS_HI, SQ_CONTENTS_LO,
        },
    },
    gt::Gt,
};

impl Port {
    /// Loads the context again although the CSB says it is on the engine: the stall
    /// handling's first step (see the selftest's `nudge`). Process context.
    ///
    /// # Errors
    ///
    /// Forcewake errors; `ENODEV` outside execlist mode.
    pub(crate) fn reload(&self, gt: &Gt<'_>) -> Result {
        let mut st = self.state.lock();
        if !matches!(st.mech, Mech::Execlist(_)) {
            return Err(ENODEV);
        }
        self.load(gt, &mut st)
    }

    /// Execlist mode on: the engine set up as `xe_hw_engine.c` and `xe_execlist.c` do
    /// (HWSTAM all masked, legacy mode off, ring not stopped, HWSP address with a posting
    /// read), the CSB pointers reset as i915's `reset_csb_pointers`, and SQ elements 1-7
    /// invalidated once. Process context (probe).
    ///
    /// # Errors
    ///
    /// Forcewake errors.
    pub(crate) fn start(&self, gt: &Gt<'_>) -> Result {
        let guard = gt.forcewake(self.engine.domain.bit())?;
        let io = Io::new(gt, &guard, self.engine)?;
        let mut st = self.state.lock();
        if st.mech.start_execlist().is_err() {
            self.refused(
                gt.dev,
                &mut st,
                format_args!("execlist start of a port already started"),
            );
            return Err(EBUSY);
        }
        self.program(&io, &mut st);
        Ok(())
    }

    /// The engine registers of execlist mode (see [`Port::start`]).
    fn program(&self, io: &Io<'_>, st: &mut State) {
        io.write(HWSTAM::zeroed().with_value(u32::MAX));
        io.write_masked(MaskedWrite::enable(
            GFX_MODE::zeroed().with_disable_legacy_mode(true),
        ));
        io.write_masked(MaskedWrite::disable(MI_MODE::zeroed().with_stop_ring(true)));
        self.reset_csb(io, st);
        io.write(HWS_PGA::zeroed().with_value(self.ggtt(0)));
        let _ = io.read::<HWS_PGA>();
        for n in 1..8 {
            let _ = io.write_at(n, SQ_CONTENTS_LO::zeroed());
            let _ = io.write_at(n, SQ_CONTENTS_HI::zeroed());
        }
    }

    /// Hang recovery: the engine made no progress for `stalled_ms`. Resets it
    /// ([`super::reset_engine`]), fails every request in flight (each exactly once: the queue
    /// is emptied), empties the ring (the context image's head and tail back to 0, as the
    /// reset dropped the context without saving it) and programs execlist mode again, so the
    /// next request runs. Process context. Returns how many requests failed.
    ///
    /// # Errors
    ///
    /// Forcewake or reset errors; the port then stays stopped (`EIO` for later submissions).
    pub(crate) fn recover(&self, gt: &Gt<'_>, stalled_ms: u32) -> Result<usize> {
        let mut st = self.state.lock();
        let hw = self.mem.read(HWSP_SEQNO).unwrap_or(0);
        let oldest = st.inflight.get(st.first).map_or(0, |r| r.seqno);
        let failed = st.count;
        dev_err!(
            gt.dev,
            "submit: {}: hung: nothing retired for {} ms (engine seqno {}, oldest in flight              {}, {} in flight); resetting the engine\n",
            self.engine.name,
            stalled_ms,
            hw,
            oldest,
            failed
        );
        st.count = 0;
        self.stats.resets.add(1, Relaxed);
        // CAST: usize to u64 is lossless.
        self.stats.failed.add(failed as u64, Relaxed);
        let res = super::reset_engine(gt, self.engine).and_then(|()| {
            let guard = match st.held.take() {
                Some(h) => gt.resume(h),
                None => gt.forcewake(self.engine.domain.bit())?,
            };
            let io = Io::new(gt, &guard, self.engine)?;
            self.empty_ring(&mut st)?;
            self.program(&io, &mut st);
            Ok(())
        });
        // The seqno the engine wrote last stays: the next request's is newer.
        if let Err(e) = res {
            st.mech.fail_recovery();
            dev_err!(
                gt.dev,
                "submit: {}: recovery failed ({}); engine stopped until unbind\n",
                self.engine.name,
                e.to_errno()
            );
            drop(st);
            self.done.notify_all();
            return Err(e);
        }
        st.mech.recovered();
        drop(st);
        self.done.notify_all();
        Ok(failed)
    }

    /// Both CSB pointers and the HWSP copy to the last slot, every slot consumed.
    fn reset_csb(&self, io: &Io<'_>, st: &mut State) {
        let last = u32::from(csb::RESET_INDEX);
        io.write_masked(MaskedWrite::all(
            CONTEXT_STATUS_PTR::zeroed()
                .with_read(csb::RESET_INDEX)
                .with_write(csb::RESET_INDEX),
        ));
        for i in 0..usize::from(csb::ENTRIES) * 2 {
            let _ = self.mem.write(csb::HWSP_CSB + i, u32::MAX);
        }
        let _ = self.mem.write(csb::HWSP_WRITE_INDEX, last);
        st.csb_head = csb::RESET_INDEX;
    }

    /// Gives the engine the context with the current tail: image tail, SQ element 0, Load
    /// (`xe_execlist.c`, `__start_lrc`). The context is not on the engine.
    pub(super) fn load(&self, gt: &Gt<'_>, st: &mut State) -> Result {
        let guard = match st.held.take() {
            Some(h) => gt.resume(h),
            None => gt.forcewake(self.engine.domain.bit())?,
        };
        let res = Io::new(gt, &guard, self.engine).and_then(|io| {
            self.mem
                .write(self.layout.state / 4 + lrc::CTX_RING_TAIL, st.tail)?;
            let desc = lrc::descriptor(self.ggtt(self.layout.lrc), CTX_ID);
            // The image is coherent memory; the register writes below are ordered after it
            // (`writel`).
            // CAST: the two halves of the descriptor.
            io.write_at(0, SQ_CONTENTS_LO::zeroed().with_value(desc as u32))?;
            io.write_at(0, SQ_CONTENTS_HI::zeroed().with_value((desc >> 32) as u32))?;
            io.write(EXECLIST_CONTROL::zeroed().with_load(true));
            Ok(())
        });
        st.held = Some(guard.keep());
        res?;
        st.hw_tail = st.tail;
        st.mech.loaded();
        self.stats.loads.add(1, Relaxed);
        Ok(())
    }

    /// Consumes the CSB entries after the read index.
    pub(super) fn read_csb(&self, gt: &Gt<'_>, st: &mut State) {
        let write = self.mem.read(csb::HWSP_WRITE_INDEX).unwrap_or(u32::MAX) & 0xff;
        // CAST: checked below.
        let Some(slots) = csb::pending(st.csb_head, write.min(0xff) as u8) else {
            self.bad(gt, st, BadKind::CsbPointer, "CSB write index", write);
            return;
        };
        for slot in slots {
            let i = csb::HWSP_CSB + 2 * usize::from(slot);
            let (lo, hi) = (
                self.mem.read(i).unwrap_or(u32::MAX),
                self.mem.read(i + 1).unwrap_or(u32::MAX),
            );
            let Some(entry) = Entry::decode(lo, hi) else {
                // Not written yet although the index says so: read again next time.
                break;
            };
            let _ = self.mem.write(i, u32::MAX);
            let _ = self.mem.write(i + 1, u32::MAX);
            st.csb_head = slot;
            self.stats.csb_events.add(1, Relaxed);
            match entry.event() {
                Event::Started(CTX_ID) | Event::LiteRestore(CTX_ID) => {
                    if st.mech.csb_started().is_err() {
                        self.refused(
                            gt.dev,
                            st,
                            format_args!(
                                "CSB entry {:#x} says the context started, but no Load was \
                                 written since it went idle",
                                lo
                            ),
                        );
                    }
                }
                Event::Completed(CTX_ID) => st.mech.csb_completed(),
                Event::Idle => {}
                _ => self.bad(gt, st, BadKind::CsbEntry, "CSB entry (low dword)", lo),
            }
        }
    }

    /// Drops the kept forcewake once the port has nothing on the engine and nothing queued:
    /// the port is idle.
    pub(super) fn release_if_idle(&self, gt: &Gt<'_>, st: &mut State) {
        if st.mech.off_engine() && st.count == 0 {
            if let Some(h) = st.held.take() {
                drop(gt.resume(h));
            }
            st.mech = Mech::Execlist(El::Idle);
        }
    }
}
