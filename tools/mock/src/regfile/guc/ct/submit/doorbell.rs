//! MMIO doorbells: the GuC arms a physical doorbell for a context, and a
//! host write to the doorbell's page of BAR0 is a `SCHED_CONTEXT` for it.
//!
//! # What the PRM says (seed 000)
//!
//! - L1038: 4 MiB of BAR0 from 0x400000 are doorbells, one per 4 KiB page,
//!   1024 pages ([`WINDOW_START`], [`WINDOW_END`]).
//! - L1044: only 256 physical doorbells can be armed; their registers are
//!   in SGUNIT at 0x3F_F000-0x3F_F7F8, 8 bytes each ([`DRB_BASE`]).
//! - L1009: once Valid is set the doorbell block monitors the doorbell and
//!   keeps the cookie (DW0 of the doorbell line); without Valid nothing is
//!   monitored. L1011: a trigger sets the doorbell's status bit; several
//!   triggers before the status is consumed collapse into one.
//! - L1019-1028: the doorbell address is programmed "thru GuC/Shim (no
//!   direct updates)"; Valid goes 0=>1 only from the GuC.
//! - L1059-1073: the KMD picks the page and the physical doorbell, puts the
//!   page's offset in the context descriptor and asks the GuC over H2G
//!   (step 4); the GuC validates the choice (step 5) and programs the
//!   physical doorbell register with VF#, the MMIO offset and VALID
//!   (step 6).
//!
//! # What the mock does
//!
//! - `ALLOCATE_DOORBELL` (0x10) {hdr, guc_id, physical doorbell, page
//!   offset in BAR0} (GUESS: the driver's layout, `rust/submit/doorbell.rs`;
//!   upstream has only the action code). Checks, in this order, each its
//!   own code (`[MODEL]`: the firmware's checks are not published):
//!   length not 4: `INVALID_SIZE` 0x102; guc_id not registered:
//!   `CONTEXT_NOT_REGISTERED` 0x100; doorbell >= 256: `INVALID_DOORBELL_ID`
//!   0x63; doorbell armed already: `NO_PERMISSION` 0x40 (step 5: the
//!   function may not arm it); offset not 4 KiB aligned or outside
//!   0x400000..0x800000: `INVALID_BUFFER_RANGE` 0x70; page bound to another
//!   doorbell: `BUFFER_ALREADY_REGISTERED` 0x72; the context holds a
//!   doorbell already: `INVALID_STATE` 0x0A. Each refusal is a
//!   `guc_submit_bad` violation, like the other submission messages.
//!   Accepted: the physical doorbell register gets VF# 0 (the PF), the
//!   offset and VALID ([`Submit::doorbell_register`]), SUCCESS.
//! - `DEALLOCATE_DOORBELL` (0x20) {hdr, guc_id}: length not 2:
//!   `INVALID_SIZE`; not registered: `CONTEXT_NOT_REGISTERED`; no doorbell:
//!   `INVALID_DOORBELL_ID`. Else VALID cleared, the doorbell and its page
//!   free, SUCCESS.
//! - `DEREGISTER_CONTEXT` of a context that still holds a doorbell
//!   releases it (`dropped_at_dereg`, counted).
//! - A dword write anywhere in an armed page is a trigger (L1038: the page
//!   is the doorbell); the value is kept as the cookie. The GuC acts on it
//!   at once as on a `SCHED_CONTEXT` of the bound context: a disabled or
//!   banned context is ignored (counted, as `SCHED_CONTEXT` does), a
//!   queued one stays queued once (the collapsed triggers of L1011). A
//!   write to a page no armed doorbell watches is ignored and counted,
//!   neither a violation nor an unknown access: L1009 says an invalid
//!   doorbell is simply not monitored. Every way out of READY (a GuC
//!   reset, a device reset, a Driver-FLR) disarms every doorbell (`[MODEL]`:
//!   the firmware that armed them and the contexts they ring are gone), so
//!   a write while the GuC is not running is an unarmed one.
//! - Host reads of the window are not modelled: the PRM defines no read
//!   (the doorbell block's own DW0 read of L1026 is for memory doorbells);
//!   they stay unknown accesses, reading 0.
//! - The physical doorbell registers are GuC-programmed state
//!   ([`Submit::doorbell_register`]); they are not in the public register
//!   map yet, so host accesses at 0x3F_F000 are unknown accesses.
//!
//! Offsets: the mock follows the seed's SGUNIT 0x3F_F000 + 8 * id, not
//! upstream's `DRBREGL(x)` 0x1000 + 8 * x (`regs/xe_guc_regs.h`), which is
//! the same register file as seen from the GuC. Layout (GUESS, the seed
//! gives none): low dword = offset 31:12 | `DRB_VALID` bit 0 (the bit is
//! upstream's, `xe_guc_regs.h`); high dword = VF# 5:0 (seed L1042: up to 63
//! VFs and the PF).

use super::registered_id;
use super::Outcome;
use super::Submit;
use crate::abi;
use crate::recorder::Recorder;
use crate::regfile::guc::ct::Ct;
use crate::regfile::guc::Guc;
use crate::trace::Event;
use crate::trace::Hex;

/// First byte of the doorbell window in BAR0 (seed 000 L1038).
pub const WINDOW_START: u32 = 0x40_0000;
/// End of the doorbell window: 4 MiB, 1024 pages (seed 000 L1038).
pub const WINDOW_END: u32 = 0x80_0000;
/// Bytes of one doorbell page (seed 000 L1038).
const PAGE: u32 = 4096;
/// Physical doorbells (seed 000 L1044; upstream `GUC_NUM_DOORBELLS`).
pub const PHYSICAL_DOORBELLS: u32 = 256;
/// SGUNIT offset of physical doorbell 0's register, 8 bytes each (seed 000
/// L1044: 0x3F_F000 to 0x3F_F7F8).
pub const DRB_BASE: u32 = 0x3F_F000;
/// VALID in the register's low dword (upstream `DRB_VALID`,
/// `regs/xe_guc_regs.h`).
const DRB_VALID: u32 = 1;

/// An armed physical doorbell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Armed {
    /// The context it rings.
    pub guc_id: u32,
    /// Its page's offset in BAR0.
    pub offset: u32,
    /// The last value written to the page (seed 000 L1009: the cookie).
    pub cookie: Option<u32>,
    /// Triggers seen.
    pub rings: u64,
}

impl Submit {
    /// The armed physical doorbell `id`.
    pub fn doorbell(&self, id: u32) -> Option<&Armed> {
        self.doorbells.get(&id)
    }

    /// Physical doorbells armed.
    pub fn doorbells_armed(&self) -> usize {
        self.doorbells.len()
    }

    /// The physical doorbell register of `id` (at [`DRB_BASE`] + 8 * id) as
    /// the GuC programmed it, high dword VF# (module docs: GUESS layout):
    /// 0 when not armed.
    pub fn doorbell_register(&self, id: u32) -> u64 {
        self.doorbells.get(&id).map_or(0, |a| {
            // VF# 0: the PF's own requests (no VFs are modelled).
            let vf: u64 = 0;
            vf << 32 | u64::from(a.offset & !(PAGE - 1) | DRB_VALID)
        })
    }

    /// The armed doorbell watching the page of BAR0 offset `offset`.
    fn doorbell_at(&self, offset: u32) -> Option<(u32, Armed)> {
        let page = offset & !(PAGE - 1);
        self.doorbells
            .iter()
            .find(|(_, a)| a.offset == page)
            .map(|(&id, &a)| (id, a))
    }

    fn armed_count(&self) -> u64 {
        // CAST: at most 256.
        self.doorbells.len() as u64
    }
}

/// `ALLOCATE_DOORBELL` (module docs).
pub(super) fn allocate(ct: &mut Ct, hxg: &[u32], rec: &mut Recorder) -> Outcome {
    let s = &mut ct.submit;
    if s.switches.refuse_doorbell > 0 {
        s.switches.refuse_doorbell -= 1;
        return Outcome {
            result: "refused_switch",
            engine: None,
            answer: Err(abi::error::ACTION_ABORTED),
        };
    }
    let &[_, _, id, offset] = hxg else {
        return Outcome::refused(
            abi::error::INVALID_SIZE,
            format!("ALLOCATE_DOORBELL of {} dwords; it is 4", hxg.len()),
            rec,
        );
    };
    let ctx = match registered_id(s, hxg, "ALLOCATE_DOORBELL", rec) {
        Ok(c) => c,
        Err(o) => return o,
    };
    if id >= PHYSICAL_DOORBELLS {
        return Outcome::refused(
            abi::error::INVALID_DOORBELL_ID,
            format!(
                "ALLOCATE_DOORBELL of physical doorbell {id}: there are {PHYSICAL_DOORBELLS} \
                 (seed 000 L1044)"
            ),
            rec,
        );
    }
    if let Some(a) = s.doorbells.get(&id) {
        return Outcome::refused(
            abi::error::NO_PERMISSION,
            format!(
                "ALLOCATE_DOORBELL of physical doorbell {id}, armed already for guc_id {:#x}",
                a.guc_id
            ),
            rec,
        );
    }
    if !offset.is_multiple_of(PAGE) || !(WINDOW_START..WINDOW_END).contains(&offset) {
        return Outcome::refused(
            abi::error::INVALID_BUFFER_RANGE,
            format!(
                "ALLOCATE_DOORBELL page offset {offset:#x}: not a 4 KiB page of \
                 {WINDOW_START:#x}..{WINDOW_END:#x} (seed 000 L1038)"
            ),
            rec,
        );
    }
    if let Some((other, _)) = s.doorbell_at(offset) {
        return Outcome::refused(
            abi::error::BUFFER_ALREADY_REGISTERED,
            format!("ALLOCATE_DOORBELL page {offset:#x} is bound to physical doorbell {other}"),
            rec,
        );
    }
    let Some(c) = s.contexts.get_mut(&ctx) else {
        return Outcome::ok(0, None);
    };
    if let Some(held) = c.doorbell {
        return Outcome::refused(
            abi::error::INVALID_STATE,
            format!("ALLOCATE_DOORBELL for guc_id {ctx:#x}, which holds doorbell {held}"),
            rec,
        );
    }
    c.doorbell = Some(id);
    let engine = c.engine.name;
    s.doorbells.insert(
        id,
        Armed {
            guc_id: ctx,
            offset,
            cookie: None,
            rings: 0,
        },
    );
    rec.emit(Event::GucDoorbell {
        what: "armed",
        doorbell: Some(id),
        guc_id: Some(ctx),
        offset: Hex(offset.into()),
        value: None,
        armed: s.armed_count(),
    });
    Outcome::ok(0, Some(engine))
}

/// `DEALLOCATE_DOORBELL` (module docs).
pub(super) fn deallocate(ct: &mut Ct, hxg: &[u32], rec: &mut Recorder) -> Outcome {
    let s = &mut ct.submit;
    if hxg.len() != 2 {
        return Outcome::refused(
            abi::error::INVALID_SIZE,
            format!("DEALLOCATE_DOORBELL of {} dwords; it is 2", hxg.len()),
            rec,
        );
    }
    let ctx = match registered_id(s, hxg, "DEALLOCATE_DOORBELL", rec) {
        Ok(c) => c,
        Err(o) => return o,
    };
    let Some(c) = s.contexts.get(&ctx) else {
        return Outcome::ok(0, None);
    };
    let engine = c.engine.name;
    let Some(id) = c.doorbell else {
        return Outcome::refused(
            abi::error::INVALID_DOORBELL_ID,
            format!("DEALLOCATE_DOORBELL for guc_id {ctx:#x}, which holds no doorbell"),
            rec,
        );
    };
    release(s, id, "released", rec);
    Outcome::ok(0, Some(engine))
}

/// Clears VALID of doorbell `id` and frees it and its page.
pub(super) fn release(s: &mut Submit, id: u32, what: &'static str, rec: &mut Recorder) {
    let Some(a) = s.doorbells.remove(&id) else {
        return;
    };
    if let Some(c) = s.contexts.get_mut(&a.guc_id) {
        c.doorbell = None;
    }
    rec.emit(Event::GucDoorbell {
        what,
        doorbell: Some(id),
        guc_id: Some(a.guc_id),
        offset: Hex(a.offset.into()),
        value: None,
        armed: s.armed_count(),
    });
}

/// A GuC or device reset: every doorbell disarmed (`[MODEL]`: the firmware
/// that armed them is gone; the seed says nothing of the registers over a
/// GuC reset).
pub(super) fn forget(s: &mut Submit, rec: &mut Recorder) {
    let ids: Vec<u32> = s.doorbells.keys().copied().collect();
    for id in ids {
        release(s, id, "forgotten", rec);
    }
}

impl Guc {
    /// A host dword write at BAR0 `offset` in the doorbell window (module
    /// docs): a trigger of the doorbell armed on that page, if any.
    /// [`Guc::schedule`] then loads what it queued.
    pub fn doorbell_write(&mut self, offset: u32, value: u32, rec: &mut Recorder) {
        let hung = self.hung;
        let s = &mut self.ct.submit;
        let armed = s.armed_count();
        let Some((id, a)) = s.doorbell_at(offset) else {
            rec.emit(Event::GucDoorbell {
                what: "unarmed",
                doorbell: None,
                guc_id: None,
                offset: Hex(offset.into()),
                value: Some(Hex(value.into())),
                armed,
            });
            return;
        };
        if let Some(d) = s.doorbells.get_mut(&id) {
            d.cookie = Some(value);
            d.rings += 1;
        }
        let what = if hung {
            // The doorbell is recorded; the stuck uKernel never looks
            // (`Guc::hang`).
            "guc_hung"
        } else if super::give_work(s, a.guc_id) {
            "rang"
        } else {
            "ignored"
        };
        rec.emit(Event::GucDoorbell {
            what,
            doorbell: Some(id),
            guc_id: Some(a.guc_id),
            offset: Hex(offset.into()),
            value: Some(Hex(value.into())),
            armed,
        });
    }
}
