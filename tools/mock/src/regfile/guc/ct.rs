//! The GuC's command transport (CT) buffers: their registration through
//! `HOST2GUC_SELF_CFG` and their enable through `HOST2GUC_CONTROL_CTB`, both
//! MMIO messages ([`super::mmio`]); then the messages over the rings, the
//! actions served ([`serve`]) and the test control's switches ([`inject`]).
//!
//! Sources: upstream `abi/guc_actions_abi.h` (the two actions' DOC tables),
//! `abi/guc_klvs_abi.h` ("GuC Self Config KLVs"), `abi/guc_communication_ctb_abi.h`
//! (descriptor), `abi/guc_errors_abi.h` (codes), `xe_guc_ct.c`
//! (`guc_ct_ctb_*_register`, `guc_ct_control_toggle`) and `xe_guc.c`
//! (`guc_self_cfg`); for the messages `abi/guc_messages_abi.h` (HXG types)
//! and `xe_guc_ct.c` (`h2g_write`, `g2h_read`, `parse_g2h_response`,
//! `guc_ct_send_recv`). The
//! firmware's own checks are not published; what the mock checks beyond the
//! ABI text is marked `[MODEL]`.
//!
//! # SELF_CFG (0x0508) {hdr, KLV header, value 31:0, value 63:32}
//!
//! The KLV header is key 31:16, length in dwords 15:0. The GuC knows the six
//! CT keys, 0x0902-0x0907, with the lengths `guc_klvs_abi.h` gives (`*_LEN`:
//! addresses 2, sizes 1). Replies:
//!
//! - a CT key with its length: the value is recorded (a later one replaces
//!   it) and SUCCESS with DATA0 = 1 ("1 if KLV was parsed");
//! - any other key: SUCCESS with DATA0 = 0 ("0 if not recognized"; upstream
//!   `guc_self_cfg` maps that to `-ENOKEY`), nothing recorded, no violation
//!   (the ABI defines the answer; a driver may probe). The memory-based
//!   interrupt keys 0x0900 / 0x0901 are among them (`[MODEL]`: the mock has
//!   no memory-based interrupts);
//! - a CT key with another length: FAILURE `INVALID_KLV_DATA` (0x50) and
//!   `ct_self_cfg_bad`. `[MODEL]`: the action's DOC table gives only
//!   SUCCESS; it says nothing of a wrong length, and that error names the
//!   case;
//! - DATA0 (27:16) of the request not zero (the table says MBZ): FAILURE
//!   `INVALID_PARAMS` (0x60) and `ct_self_cfg_bad` (`[MODEL]`);
//! - a CT key while the CT is enabled: FAILURE `INVALID_STATE` (0x0A) and
//!   `ct_self_cfg_bad` (`[MODEL]`: moving a buffer the GuC is using;
//!   upstream registers only with the CT disabled, `__xe_guc_ct_start`
//!   asserts it).
//!
//! `VALUE64` (dword 3) is read only for a length-2 KLV: the table defines it
//! for `KLV_LEN = 2` alone, so a 32-bit KLV ignores whatever the register
//! holds.
//!
//! # CONTROL_CTB (0x4509) {hdr, control}
//!
//! - `GUC_CTB_CONTROL_ENABLE` (1) with the CT disabled: the checks below; all
//!   pass -> the registration is latched, the CT is enabled, SUCCESS with
//!   DATA0 = 0 (the table: MBZ). The first failing check answers FAILURE with
//!   its code and records `ct_register_bad` naming what was wrong; the CT
//!   stays disabled.
//! - ENABLE while enabled: FAILURE `INVALID_STATE` and `ct_control_bad`
//!   (`[MODEL]`: the firmware's answer is not published; upstream never
//!   does it, so the mock makes it visible).
//! - `GUC_CTB_CONTROL_DISABLE` (0): the CT is disabled, SUCCESS. While
//!   already disabled: SUCCESS too, nothing changes, no violation
//!   (`[MODEL]`: a disable asks for a state the GuC is already in; a driver
//!   may tear down after a refused enable). Traced as `already_disabled`.
//! - any other control value, or DATA0 not zero: FAILURE `INVALID_PARAMS` and
//!   `ct_control_bad`.
//!
//! The enable checks, in order (the first failure answers):
//!
//! 1. all six KLVs registered since the last GuC reset, else
//!    `CTB_NOT_REGISTERED` (0x304);
//! 2. both ring sizes non-zero multiples of 4 KiB (`guc_klvs_abi.h`:
//!    "Should be a multiple of 4K"), else `INVALID_PARAMS`;
//! 3. all four addresses dword aligned, else `INVALID_PARAMS` (`[MODEL]`: the
//!    ABI states no alignment; head and tail are dword offsets and the
//!    descriptor is dwords, so less is unusable);
//! 4. the two descriptors (64 bytes each) and the two rings do not overlap
//!    in the GGTT, else `INVALID_PARAMS` (`[MODEL]`);
//! 5. every byte of the four regions GGTT-translatable and reachable through
//!    the GuC's TLB ([`super::ggtt`]: above the WOPCM top, below
//!    `GUC_GGTT_TOP` — the KLV doc's "above WOPCM address but below APIC base
//!    address" —, present PTEs, backed memory; a stale TLB entry is used and
//!    recorded as `stale_ggtt_tlb`), else `INVALID_GGTT_ADDRESS` (0x80);
//! 6. each descriptor's head, tail and status 0 and its reserved dwords 0
//!    (the DOC table: MBZ), else `CTB_INVALID_DESC` (0x306) (`[MODEL]`:
//!    upstream zeroes both buffers before registering, `__xe_guc_ct_start`).
//!
//! A GuC reset (`GDRST`), a device reset or a Driver-FLR drops the
//! registration and disables the CT: the firmware forgets it.
//!
//! Faults: `ct-enable-refused` answers every ENABLE FAILURE `INVALID_PARAMS`
//! without checking or changing anything (traced `refused`, no violation);
//! `ct-self-cfg-unknown` answers every SELF_CFG SUCCESS with DATA0 = 0 and
//! records nothing (traced `unknown`, no violation).
//!
//! # Messages
//!
//! While the CT is enabled, every `GUC_HOST_INTERRUPT` doorbell (READY GuC)
//! has the GuC read the H2G ring, besides the MMIO registers (`[MODEL]`: with
//! upstream's order, `h2g_write` then `xe_guc_notify`, that doorbell comes
//! when `VF_SW_FLAG(0)` holds the last MMIO reply, no request). Head and
//! tail are dword offsets; the GuC keeps its own H2G head and G2H tail, both
//! 0 at the enable. Descriptor checks first, each setting the ABI's status
//! bit in that descriptor, recording `ct_h2g_bad` and reading no further:
//!
//! - a descriptor whose status is not 0 is not read at all (`[MODEL]`: the
//!   host marked it broken, or an earlier check did);
//! - H2G tail at or past the ring's end: `OVERFLOW`;
//! - H2G head not where the GuC left it (the host wrote the receiver's
//!   field): `MISMATCH`;
//! - a message whose length runs past the tail: `UNDERFLOW`.
//!
//! Each message is a CTB header (fence 31:16, format 15:12, NUM_DWORDS 7:0)
//! and an HXG message of NUM_DWORDS dwords, read modulo the ring. A header of
//! NUM_DWORDS 0 is skipped: upstream fills the ring's end with zeros before
//! it wraps (`h2g_write`). Another format, an HXG message of GuC origin or of
//! a type other than REQUEST / FAST_REQUEST is skipped with `ct_h2g_bad`.
//! A REQUEST gets its reply (SUCCESS or FAILURE), a FAST_REQUEST only a
//! FAILURE, both with the request's fence (upstream matches FAST_REQUEST
//! errors by fence, `parse_g2h_response`). The actions served are in
//! [`serve`]; any other fails with `UNKNOWN_ACTION`, no violation.
//!
//! A reply goes into the G2H ring at the GuC's tail (CTB header with the
//! fence and HXG format, then the HXG message, modulo the ring), then the
//! descriptor's tail; one `GuC-to-host` interrupt ([`Guc::interrupt_host`])
//! per doorbell (or re-check, below) that wrote anything. The G2H descriptor
//! is checked like the H2G one (status, head inside the ring: `OVERFLOW`,
//! tail where the GuC left it: `MISMATCH`); a reply to a G2H buffer that
//! fails is dropped, the request consumed. The GuC takes a request from H2G
//! only when G2H has room for the longest answer (2 dwords; upstream
//! `CIRC_SPACE`: one dword stays free), so a request is served exactly once:
//! without room it stays in the H2G ring, unconsumed, and is read again
//! when the GuC re-checks (`[MODEL]`: the firmware waits). A GGTT fault on
//! either ring is `guc_dma_fault` and stops the pass.
//!
//! Re-checks ([`Guc::ct_service`]): without a doorbell the GuC also serves
//! BUSY requests whose time came, writes G2H messages waiting for room (the
//! `g2h:` backlog) and reads requests held for room. The device calls it
//! after every register access and every millisecond (the server's tick
//! thread), since the host frees G2H room by writing the head in memory,
//! which the mock does not see. It costs nothing while there is nothing to
//! do.
//!
//! # Actions
//!
//! [`serve`]'s docs give each action's rules:
//!
//! - `UPDATE_SCHEDULING_POLICIES_KLV` (0x509) {hdr, KLVs}: RENDER_COMPUTE_YIELD
//!   (0x1001, {quantum ms, ratio %}); SUCCESS DATA0 = KLVs applied, unknown
//!   keys skipped, `MALFORMED_KLV` (0x103) for a KLV past the message,
//!   `INVALID_KLV_DATA` (0x50) for a ratio above 100 or a wrong length;
//! - `OPT_IN_FEATURE_KLV` (0x550E) {hdr, addr_lo, addr_hi, num_dwords}: the
//!   KLVs read through the GuC's GGTT and TLB (`INVALID_GGTT_ADDRESS`, 0x80,
//!   if unreachable); EXT_CAT_ERR_TYPE (0x4001, length 0) accepted; SUCCESS
//!   DATA0 = KLVs accepted.
//!
//! A request the firmware refuses for its content is `ct_request_bad`.
//!
//! The SR-IOV PF messages (`PF2GUC_UPDATE_VF_CFG`, `PF2GUC_VF_CONTROL`)
//! and the VF notifications are in [`sriov`]; the relay between the VFs'
//! drivers and the PF (`GUC2PF_RELAY_FROM_VF`, `PF2GUC_RELAY_TO_VF`) in
//! [`sriov::relay`].
//!
//! The context messages of GuC submission (`REGISTER_CONTEXT`,
//! `UPDATE_CONTEXT_POLICIES`, `SCHED_CONTEXT_MODE_SET`, `SCHED_CONTEXT`,
//! `DEREGISTER_CONTEXT`) and the scheduler behind them are in [`submit`].
//!
//! # Test control
//!
//! `ct:` and `g2h:` requests ([`crate::control`], carried out by
//! [`inject`]) stand for misbehaving firmware; none records a violation,
//! and what they cause later (a GuC waiting on a head it overwrote, replies
//! lost to a status it set) records none either. Switches for the next
//! requests, checked in this order, each counting down:
//!
//! 1. `ct-no-response` (the CLI fault, every request) or
//!    `ct:no-response:N`: the request (REQUEST or FAST_REQUEST) is consumed,
//!    not served, never answered;
//! 2. `ct:failure:CODE:N`: any request is answered RESPONSE_FAILURE with
//!    error CODE, hint 0, its fence; not served;
//! 3. `ct:retry:N`: a REQUEST is answered NO_RESPONSE_RETRY (reason 0,
//!    "unspecified"); not served (upstream resends it,
//!    `guc_ct_send_recv`);
//! 4. `ct:busy:N:MS`: a REQUEST is answered NO_RESPONSE_BUSY (counter 0) at
//!    once and served MS ms later, its real reply with the same fence
//!    (upstream keeps waiting on the fence). A GuC reset drops it.
//!
//! A FAST_REQUEST never takes a RETRY or BUSY switch (upstream does not wait
//! on its fence). A second switch of a kind adds its N and replaces the
//! delay or code. The switches are the test's: GuC and device resets keep
//! them. `ct:stray-fence` writes a SUCCESS (DATA0 0) with the last fence
//! read + 0x100, bit 15 clear; `g2h:event:ACTION[:DATA...]` an EVENT (CTB
//! fence 0); `g2h:flood:N` N `NOTIFY_FLUSH_LOG_BUFFER_TO_FILE` EVENTs; all
//! through the backlog: written as room allows, nothing dropped, one
//! interrupt per batch. `g2h:len-past-tail` writes a header claiming three
//! dwords and one EVENT dword before the new tail. `g2h:tail-outside` and
//! `g2h:head-outside` write the G2H descriptor's tail or head as the ring's
//! size + 16 dwords; the GuC's next message goes where it really is and
//! writes a good tail, and after a head it wrote it waits (no room) until
//! the host writes its own. `g2h:status:BITS` ORs BITS into the G2H
//! status: the GuC writes nothing more there. `ct:disable` sets `DISABLED`
//! in both descriptors and forgets registration and traffic: doorbells are
//! ignored until a new registration and enable. Each `g2h:` request and
//! `ct:disable` interrupts the host (the message ones when written); with
//! the CT not enabled they do nothing (traced `no_channel`). A CT disable
//! (`CONTROL_CTB` 0), a GuC reset or a device reset drops the backlog.

mod inject;
mod serve;
pub mod slpc;
pub mod sriov;
pub mod submit;
mod tlb;
pub mod vf;

use std::collections::BTreeSet;
use std::collections::VecDeque;
use std::time::Duration;

use super::ggtt::Gtt;
use super::Bus;
use super::Guc;
use crate::abi;
use crate::abi::klv;
use crate::recorder::Recorder;
use crate::trace::CtLayout;
use crate::trace::Event;
use crate::trace::Hex;

/// Ring sizes must be a multiple of this (`guc_klvs_abi.h`).
pub const RING_ALIGN: u64 = 4096;
/// Alignment of the four addresses (`[MODEL]`, module docs).
pub const ADDR_ALIGN: u64 = 4;

/// The CT keys: key, length, name. The index is the slot in [`Ct`].
const KEYS: [(u32, u32, &str); 6] = [
    (
        klv::SELF_CFG_H2G_CTB_DESCRIPTOR_ADDR,
        klv::SELF_CFG_H2G_CTB_DESCRIPTOR_ADDR_LEN,
        "H2G_CTB_DESCRIPTOR_ADDR",
    ),
    (
        klv::SELF_CFG_H2G_CTB_ADDR,
        klv::SELF_CFG_H2G_CTB_ADDR_LEN,
        "H2G_CTB_ADDR",
    ),
    (
        klv::SELF_CFG_H2G_CTB_SIZE,
        klv::SELF_CFG_H2G_CTB_SIZE_LEN,
        "H2G_CTB_SIZE",
    ),
    (
        klv::SELF_CFG_G2H_CTB_DESCRIPTOR_ADDR,
        klv::SELF_CFG_G2H_CTB_DESCRIPTOR_ADDR_LEN,
        "G2H_CTB_DESCRIPTOR_ADDR",
    ),
    (
        klv::SELF_CFG_G2H_CTB_ADDR,
        klv::SELF_CFG_G2H_CTB_ADDR_LEN,
        "G2H_CTB_ADDR",
    ),
    (
        klv::SELF_CFG_G2H_CTB_SIZE,
        klv::SELF_CFG_G2H_CTB_SIZE_LEN,
        "G2H_CTB_SIZE",
    ),
];

/// Where the CT buffers are, as registered: GGTT addresses and ring sizes
/// in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// H2G descriptor.
    pub h2g_desc: u64,
    /// H2G ring.
    pub h2g: u64,
    /// H2G ring size.
    pub h2g_size: u64,
    /// G2H descriptor.
    pub g2h_desc: u64,
    /// G2H ring.
    pub g2h: u64,
    /// G2H ring size.
    pub g2h_size: u64,
}

impl Layout {
    fn trace(self) -> CtLayout {
        CtLayout {
            h2g_desc: Hex(self.h2g_desc),
            h2g: Hex(self.h2g),
            h2g_size: self.h2g_size,
            g2h_desc: Hex(self.g2h_desc),
            g2h: Hex(self.g2h),
            g2h_size: self.g2h_size,
        }
    }

    /// The four GGTT regions: name, start, length.
    fn regions(&self) -> [(&'static str, u64, u64); 4] {
        let desc = abi::ctb::DESC_SIZE as u64;
        [
            ("H2G descriptor", self.h2g_desc, desc),
            ("H2G ring", self.h2g, self.h2g_size),
            ("G2H descriptor", self.g2h_desc, desc),
            ("G2H ring", self.g2h, self.g2h_size),
        ]
    }
}

/// The CT state the firmware keeps.
#[derive(Debug, Clone, Default)]
pub struct Ct {
    /// SELF_CFG values by slot of [`KEYS`], since the last GuC reset.
    values: [Option<u64>; 6],
    /// The layout latched by the enable, while enabled.
    enabled: Option<Layout>,
    /// Where the GuC reads the H2G ring next (dwords).
    h2g_head: u32,
    /// Where the GuC writes the G2H ring next (dwords).
    g2h_tail: u32,
    /// The G2H descriptor tail as the GuC last wrote it (`g2h:tail-outside`
    /// included): what the MISMATCH check expects.
    g2h_desc_tail: u32,
    /// The G2H head `g2h:head-outside` wrote, until the host writes its own.
    poisoned_head: Option<u32>,
    /// Requests read but not taken for want of G2H room: read again when
    /// the GuC re-checks ([`Guc::ct_service`]).
    held: bool,
    /// REQUESTs answered BUSY, in time order.
    delayed: VecDeque<Delayed>,
    /// G2H messages waiting for room: message, copies.
    backlog: VecDeque<(Vec<u32>, u64)>,
    /// The fence of the last request read.
    last_fence: u32,
    /// Features `OPT_IN_FEATURE_KLV` enabled.
    opted_in: BTreeSet<u32>,
    /// RENDER_COMPUTE_YIELD {quantum ms, ratio %} applied.
    yield_policy: Option<(u32, u32)>,
    /// The test control's switches (kept over resets).
    switches: Switches,
    /// GuC submission: contexts and the scheduler's state ([`submit`]).
    pub(super) submit: submit::Submit,
    /// SR-IOV PF: VF configurations and states ([`sriov`]).
    pub(super) sriov: sriov::Sriov,
    /// SLPC and GuC RC ([`slpc`]); forgotten at a GuC reset.
    pub(super) slpc: slpc::Slpc,
    /// Whose CT it is: 0 the PF's, `n` VF `n`'s ([`vf`]).
    vf: u32,
    /// What a VF's CT has for the PF: `GUC2PF_RELAY_FROM_VF` bodies
    /// {VFID, RELAY_ID, message} ([`vf`]), taken by the GuC after a pass.
    to_pf: Vec<Vec<u32>>,
    /// Requests read from the PF's H2G ring since the log last took them:
    /// (time, action, fence), for the GuC log's verbose entries
    /// ([`super::log`]).
    h2g_read: Vec<(Duration, u32, u32)>,
}

impl Ct {
    /// The layout in use, if the CT is enabled.
    pub fn enabled(&self) -> Option<Layout> {
        self.enabled
    }

    /// The value registered for SELF_CFG `key`, if any.
    pub fn value(&self, key: u32) -> Option<u64> {
        slot(key).and_then(|i| self.values[i])
    }

    /// The registration as a layout, or the names of the missing KLVs.
    fn layout(&self) -> Result<Layout, Vec<&'static str>> {
        let missing: Vec<&str> = KEYS
            .iter()
            .zip(&self.values)
            .filter(|(_, v)| v.is_none())
            .map(|(k, _)| k.2)
            .collect();
        let v = |i: usize| self.values[i].unwrap_or(0);
        if missing.is_empty() {
            Ok(Layout {
                h2g_desc: v(0),
                h2g: v(1),
                h2g_size: v(2),
                g2h_desc: v(3),
                g2h: v(4),
                g2h_size: v(5),
            })
        } else {
            Err(missing)
        }
    }
}

/// Slot of a CT key in [`KEYS`].
fn slot(key: u32) -> Option<usize> {
    KEYS.iter().position(|k| k.0 == key)
}

/// A refused request: the FAILURE error code and, for a driver error, the
/// violation kind and what was wrong.
type Refusal = (u32, Option<(&'static str, String)>);

impl Guc {
    /// The CT state.
    pub fn ct(&self) -> &Ct {
        &self.ct
    }

    /// `HOST2GUC_SELF_CFG`; `Ok(DATA0)` or `Err(error code)`.
    pub(super) fn self_cfg(&mut self, msg: &[u32; 4], rec: &mut Recorder) -> Result<u32, u32> {
        let key = abi::field(msg[1], klv::KEY);
        let len = abi::field(msg[1], klv::LEN);
        let value = if len == 2 {
            u64::from(msg[2]) | u64::from(msg[3]) << 32
        } else {
            u64::from(msg[2])
        };
        let (result, answer) = self.take_klv(msg[0], key, len, value);
        rec.emit(Event::GucCtSelfCfg {
            key: Hex(key.into()),
            len,
            value: Hex(value),
            result,
        });
        answer.map_err(|(code, why)| {
            if let Some((kind, detail)) = why {
                rec.violation(kind, detail);
            }
            code
        })
    }

    /// Decides on one SELF_CFG KLV and records it if taken.
    fn take_klv(
        &mut self,
        hdr: u32,
        key: u32,
        len: u32,
        value: u64,
    ) -> (&'static str, Result<u32, Refusal>) {
        if self.p.faults.ct_self_cfg_unknown {
            return ("unknown", Ok(0));
        }
        let bad = |code: u32, detail: String| -> (&'static str, Result<u32, Refusal>) {
            ("rejected", Err((code, Some(("ct_self_cfg_bad", detail)))))
        };
        let mbz = abi::field(hdr, abi::hxg::REQUEST_DATA0);
        if mbz != 0 {
            return bad(
                abi::error::INVALID_PARAMS,
                format!("SELF_CFG header {hdr:#x}: DATA0 (27:16) is {mbz:#x}, must be 0"),
            );
        }
        let Some(i) = slot(key) else {
            return ("unknown", Ok(0));
        };
        let (_, want, name) = KEYS[i];
        if len != want {
            return bad(
                abi::error::INVALID_KLV_DATA,
                format!(
                    "SELF_CFG {name} ({key:#06x}) with length {len}; the key's value is {want} \
                     dword(s) (GUC_KLV_SELF_CFG_{name}_LEN)"
                ),
            );
        }
        if self.ct.enabled.is_some() {
            return (
                "rejected",
                Err((
                    abi::error::INVALID_STATE,
                    Some((
                        "ct_self_cfg_bad",
                        format!(
                            "SELF_CFG {name} ({key:#06x}) = {value:#x} while the CT is enabled; \
                             disable it (CONTROL_CTB 0) before moving its buffers"
                        ),
                    )),
                )),
            );
        }
        self.ct.values[i] = Some(value);
        ("taken", Ok(1))
    }

    /// `HOST2GUC_CONTROL_CTB`; `Ok(DATA0)` or `Err(error code)`.
    pub(super) fn control_ctb(
        &mut self,
        msg: &[u32; 4],
        rec: &mut Recorder,
        bus: &mut dyn Bus,
    ) -> Result<u32, u32> {
        let control = msg[1];
        let (result, answer) = self.control(msg[0], control, rec, bus);
        rec.emit(Event::GucCtControl {
            control: Hex(control.into()),
            result,
            layout: self
                .ct
                .enabled
                .filter(|_| result == "enabled")
                .map(Layout::trace),
        });
        answer.map_err(|(code, why)| {
            if let Some((kind, detail)) = why {
                rec.violation(kind, detail);
            }
            code
        })
    }

    fn control(
        &mut self,
        hdr: u32,
        control: u32,
        rec: &mut Recorder,
        bus: &mut dyn Bus,
    ) -> (&'static str, Result<u32, Refusal>) {
        let bad = |code: u32, detail: String| -> (&'static str, Result<u32, Refusal>) {
            ("rejected", Err((code, Some(("ct_control_bad", detail)))))
        };
        let mbz = abi::field(hdr, abi::hxg::REQUEST_DATA0);
        if mbz != 0 {
            return bad(
                abi::error::INVALID_PARAMS,
                format!("CONTROL_CTB header {hdr:#x}: DATA0 (27:16) is {mbz:#x}, must be 0"),
            );
        }
        match control {
            abi::action::CTB_CONTROL_DISABLE => {
                // The GuC stops using the buffers: what it still had to
                // send is gone.
                self.ct.drop_traffic();
                if self.ct.enabled.take().is_some() {
                    ("disabled", Ok(0))
                } else {
                    ("already_disabled", Ok(0))
                }
            }
            abi::action::CTB_CONTROL_ENABLE => {
                if self.p.faults.ct_enable_refused {
                    return ("refused", Err((abi::error::INVALID_PARAMS, None)));
                }
                if self.ct.enabled.is_some() {
                    return bad(
                        abi::error::INVALID_STATE,
                        "CONTROL_CTB ENABLE while the CT is already enabled".into(),
                    );
                }
                match self.check_registration(rec, bus) {
                    Ok(layout) => {
                        self.ct.enabled = Some(layout);
                        self.ct.h2g_head = 0;
                        self.ct.g2h_tail = 0;
                        self.ct.g2h_desc_tail = 0;
                        self.ct.poisoned_head = None;
                        self.ct.drop_traffic();
                        ("enabled", Ok(0))
                    }
                    Err((code, detail)) => {
                        ("rejected", Err((code, Some(("ct_register_bad", detail)))))
                    }
                }
            }
            other => bad(
                abi::error::INVALID_PARAMS,
                format!("CONTROL_CTB control {other:#x} is neither ENABLE (1) nor DISABLE (0)"),
            ),
        }
    }

    /// The enable checks (module docs); the layout, or the error code and
    /// what was wrong.
    fn check_registration(
        &mut self,
        rec: &mut Recorder,
        bus: &mut dyn Bus,
    ) -> Result<Layout, (u32, String)> {
        check_layout(&self.ct, &mut self.tlb, rec, bus)
    }
}

/// The enable checks of `ct`'s registration (module docs); the layout, or
/// the error code and what was wrong.
fn check_layout(
    ct: &Ct,
    tlb: &mut super::ggtt::Tlb,
    rec: &mut Recorder,
    bus: &mut dyn Bus,
) -> Result<Layout, (u32, String)> {
    {
        let l = ct.layout().map_err(|missing| {
            (
                abi::error::CTB_NOT_REGISTERED,
                format!(
                    "CONTROL_CTB ENABLE before SELF_CFG registered {} (since the last GuC \
                     reset)",
                    missing.join(", ")
                ),
            )
        })?;
        for (name, size) in [("H2G", l.h2g_size), ("G2H", l.g2h_size)] {
            if size == 0 || size % RING_ALIGN != 0 {
                return Err((
                    abi::error::INVALID_PARAMS,
                    format!(
                        "{name} ring size {size:#x} is not a non-zero multiple of 4 KiB \
                         (GUC_KLV_SELF_CFG_{name}_CTB_SIZE)"
                    ),
                ));
            }
        }
        let regions = l.regions();
        for (name, addr, _) in regions {
            if addr % ADDR_ALIGN != 0 {
                return Err((
                    abi::error::INVALID_PARAMS,
                    format!("{name} at GGTT {addr:#x} is not dword aligned"),
                ));
            }
        }
        for (i, &(a, a_start, a_len)) in regions.iter().enumerate() {
            for &(b, b_start, b_len) in &regions[i + 1..] {
                let (a_end, b_end) = (a_start.saturating_add(a_len), b_start.saturating_add(b_len));
                if a_start < b_end && b_start < a_end {
                    return Err((
                        abi::error::INVALID_PARAMS,
                        format!(
                            "{a} {a_start:#x}..{a_end:#x} overlaps {b} {b_start:#x}..{b_end:#x}"
                        ),
                    ));
                }
            }
        }
        let mut gtt = Gtt::new(bus, tlb);
        for (name, addr, len) in regions {
            gtt.probe(addr, len, &format!("CT {name}"), rec)
                .map_err(|f| (abi::error::INVALID_GGTT_ADDRESS, f.0))?;
        }
        for (name, addr) in [
            ("H2G descriptor", l.h2g_desc),
            ("G2H descriptor", l.g2h_desc),
        ] {
            let mut d = [0u8; abi::ctb::DESC_SIZE];
            gtt.read(addr, &mut d, &format!("CT {name}"), rec)
                .map_err(|f| (abi::error::INVALID_GGTT_ADDRESS, f.0))?;
            let at = |off| abi::dword(&d, off).unwrap_or(0);
            let (head, tail, status) = (
                at(abi::ctb::DESC_HEAD),
                at(abi::ctb::DESC_TAIL),
                at(abi::ctb::DESC_STATUS),
            );
            if head != 0 || tail != 0 || status != 0 {
                return Err((
                    abi::error::CTB_INVALID_DESC,
                    format!(
                        "{name} at GGTT {addr:#x}: head {head:#x}, tail {tail:#x}, status \
                         {status:#x}; all must be 0 when the CT is enabled"
                    ),
                ));
            }
            let reserved = (abi::ctb::DESC_RESERVED..abi::ctb::DESC_SIZE)
                .step_by(4)
                .map(at)
                .enumerate()
                .find(|&(_, v)| v != 0);
            if let Some((n, v)) = reserved {
                return Err((
                    abi::error::CTB_INVALID_DESC,
                    format!("{name} at GGTT {addr:#x}: reserved[{n}] = {v:#x}, must be 0"),
                ));
            }
        }
        Ok(l)
    }
}

/// Why the GuC stopped reading the H2G ring or writing G2H.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// A descriptor check or a fault: recorded, read no further.
    Broken,
    /// No room in G2H: the message stays for later.
    Full,
}

/// Byte offset of ring dword `at`.
fn ring_addr(base: u64, size_dw: u32, at: u32) -> u64 {
    base + 4 * u64::from(at % size_dw)
}

/// Reads the dword at GGTT `addr`.
fn read_dword(gtt: &mut Gtt, addr: u64, what: &str, rec: &mut Recorder) -> Result<u32, Stop> {
    let mut b = [0u8; 4];
    match gtt.read(addr, &mut b, what, rec) {
        Ok(()) => Ok(u32::from_le_bytes(b)),
        Err(f) => {
            rec.violation("guc_dma_fault", f.0);
            Err(Stop::Broken)
        }
    }
}

/// Writes the dword at GGTT `addr`.
fn write_dword(
    gtt: &mut Gtt,
    addr: u64,
    v: u32,
    what: &str,
    rec: &mut Recorder,
) -> Result<(), Stop> {
    gtt.write(addr, &v.to_le_bytes(), what, rec).map_err(|f| {
        rec.violation("guc_dma_fault", f.0);
        Stop::Broken
    })
}

/// Marks a descriptor broken: ORs `bit` into its status and records why.
fn mark(gtt: &mut Gtt, desc: u64, status: u32, bit: u32, why: String, rec: &mut Recorder) -> Stop {
    rec.violation("ct_h2g_bad", why);
    let at = desc + abi::ctb::DESC_STATUS as u64;
    let _ = write_dword(gtt, at, status | bit, "CT descriptor status", rec);
    Stop::Broken
}

/// Dwords of the longest answer to a request: the CTB header and a one-dword
/// HXG reply (SUCCESS, FAILURE, BUSY and RETRY are all one dword,
/// `abi/guc_messages_abi.h`). The GuC takes a request from H2G only with
/// that much room in G2H, so a request is served once, not again after a
/// wait for room.
const REPLY_DWORDS: u32 = 2;

/// The test control's switches for the next requests (`ct:` requests,
/// [`inject`]). They are the test's, not the firmware's: GuC and device
/// resets keep them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Switches {
    /// Requests to consume without an answer.
    no_response: u64,
    /// REQUESTs to answer BUSY and serve `busy_delay` later.
    busy: u64,
    busy_delay: Duration,
    /// REQUESTs to answer RETRY.
    retry: u64,
    /// Requests to answer FAILURE `failure_code`.
    failure: u64,
    failure_code: u32,
}

impl Switches {
    /// Requests the switches will still fault.
    pub fn armed_left(&self) -> u64 {
        self.no_response + self.busy + self.retry + self.failure
    }
}

/// A REQUEST answered BUSY, to be served at `at`.
#[derive(Debug, Clone)]
struct Delayed {
    at: Duration,
    fence: u32,
    action: u32,
    hxg: Vec<u32>,
}

/// One request read from H2G.
struct Request {
    fence: u32,
    /// No reply is due: a FAST_REQUEST, or an EVENT (a VF's CT only).
    fast: bool,
    event: bool,
    action: u32,
    hxg: Vec<u32>,
}

impl Request {
    fn kind(&self) -> &'static str {
        if self.event {
            "event"
        } else if self.fast {
            "fast_request"
        } else {
            "request"
        }
    }
}

/// A G2H message: the CTB header (fence, HXG format, NUM_DWORDS) and `hxg`
/// (`abi/guc_communication_ctb_abi.h`).
fn g2h_message(fence: u32, hxg: &[u32]) -> Vec<u32> {
    // CAST: callers build at most 1 + MAX_EVENT_DATA dwords.
    let n = hxg.len() as u32;
    let mut m = Vec::with_capacity(hxg.len() + 1);
    m.push(
        abi::prep(abi::ctb::MSG_FENCE, fence)
            | abi::prep(abi::ctb::MSG_FORMAT, abi::ctb::FORMAT_HXG)
            | abi::prep(abi::ctb::MSG_NUM_DWORDS, n),
    );
    m.extend_from_slice(hxg);
    m
}

/// The trace name of a G2H message's HXG type (`abi/guc_messages_abi.h`).
fn hxg_name(msg: &[u32]) -> &'static str {
    let ty = msg
        .get(1)
        .map_or(u32::MAX, |&h| abi::field(h, abi::hxg::TYPE));
    match ty {
        abi::hxg::TYPE_RESPONSE_SUCCESS => "success",
        abi::hxg::TYPE_RESPONSE_FAILURE => "failure",
        abi::hxg::TYPE_NO_RESPONSE_BUSY => "busy",
        abi::hxg::TYPE_NO_RESPONSE_RETRY => "retry",
        abi::hxg::TYPE_EVENT => "event",
        _ => "other",
    }
}

impl Ct {
    /// The state after a GuC reset: nothing but the test's switches.
    pub(super) fn keeping_switches(&self) -> Ct {
        Ct {
            switches: self.switches,
            submit: self.submit.after_reset(),
            sriov: self.sriov.after_reset(),
            ..Ct::default()
        }
    }

    /// The test control's switches.
    pub fn switches(&self) -> Switches {
        self.switches
    }

    /// G2H messages waiting for room.
    pub fn pending(&self) -> u64 {
        self.backlog.iter().map(|(_, n)| n).sum()
    }

    /// SLPC's and GuC RC's state.
    pub fn slpc(&self) -> slpc::Slpc {
        self.slpc
    }

    /// Features `OPT_IN_FEATURE_KLV` enabled since the last GuC reset.
    pub fn opted_in(&self) -> &BTreeSet<u32> {
        &self.opted_in
    }

    /// RENDER_COMPUTE_YIELD {quantum ms, ratio %} applied since the last
    /// GuC reset.
    pub fn yield_policy(&self) -> Option<(u32, u32)> {
        self.yield_policy
    }

    /// Whether time or the host's progress may let the GuC do something:
    /// a BUSY request to serve, a backlog or requests held for room.
    fn has_work(&self) -> bool {
        self.enabled.is_some()
            && (!self.delayed.is_empty() || !self.backlog.is_empty() || self.held)
    }

    /// Takes one message off the backlog's front.
    fn backlog_take(&mut self) -> Option<Vec<u32>> {
        let (msg, left) = self.backlog.front_mut()?;
        let msg = msg.clone();
        *left -= 1;
        if *left == 0 {
            self.backlog.pop_front();
        }
        Some(msg)
    }

    /// Queues a G2H EVENT of `action` with `data` (CTB fence 0) behind
    /// the backlog: written as room allows ([`Guc::ct_service`]).
    pub(super) fn queue_event(&mut self, action: u32, data: &[u32]) {
        let mut hxg = vec![inject::event_header(action)];
        hxg.extend_from_slice(data);
        self.backlog.push_back((g2h_message(0, &hxg), 1));
    }

    /// Puts a message taken with [`Ct::backlog_take`] back in front.
    fn backlog_put_back(&mut self, msg: Vec<u32>) {
        match self.backlog.front_mut() {
            Some((m, left)) if *m == msg => *left += 1,
            _ => self.backlog.push_front((msg, 1)),
        }
    }

    /// Forgets the channel's traffic: what the GuC would still have sent.
    fn drop_traffic(&mut self) {
        self.delayed.clear();
        self.backlog.clear();
        self.held = false;
    }
}

impl Guc {
    /// A doorbell while the CT is enabled: reads the H2G ring and answers
    /// into G2H, then writes what waits for room (module docs, "Messages").
    pub(super) fn ct_doorbell(&mut self, now: Duration, rec: &mut Recorder, bus: &mut dyn Bus) {
        let Some(l) = self.ct.enabled.filter(|_| !self.hung) else {
            return;
        };
        let unanswered = self.p.faults.ct_no_response;
        let mut wrote = 0;
        let mut gtt = Gtt::new(bus, &mut self.tlb);
        let _ = ct_pass(&mut self.ct, &l, &mut gtt, now, unanswered, &mut wrote, rec);
        self.log_h2g(now, rec, bus);
        let mut gtt = Gtt::new(bus, &mut self.tlb);
        let _ = flush(&mut self.ct, &l, &mut gtt, &mut wrote, rec);
        if wrote > 0 {
            self.interrupt_host();
        }
    }

    /// Hands the requests the last pass read to the GuC log (verbosity 0)
    /// and writes what it noted.
    fn log_h2g(&mut self, now: Duration, rec: &mut Recorder, bus: &mut dyn Bus) {
        for (t, action, fence) in std::mem::take(&mut self.ct.h2g_read) {
            self.log_note(
                t,
                super::log::Class::Verbose(0),
                super::log::code::H2G,
                action,
                fence,
            );
        }
        self.log_flush(now, rec, bus);
    }

    /// What the GuC does without a doorbell, as time passes and the host
    /// frees G2H: serves the BUSY requests whose time came, writes the
    /// backlog and reads the requests held for room. One interrupt if it
    /// wrote anything. Cheap when there is nothing to do: the device calls
    /// it after every register access and on a timer.
    pub fn ct_service(&mut self, now: Duration, rec: &mut Recorder, bus: &mut dyn Bus) {
        self.log_service(now, rec, bus);
        if !self.ct.has_work() || self.hung {
            return;
        }
        let Some(l) = self.ct.enabled else {
            return;
        };
        let unanswered = self.p.faults.ct_no_response;
        let mut wrote = 0;
        let mut gtt = Gtt::new(bus, &mut self.tlb);
        let ct = &mut self.ct;
        let _ = serve_delayed(ct, &l, &mut gtt, now, &mut wrote, rec);
        let _ = flush(ct, &l, &mut gtt, &mut wrote, rec);
        if std::mem::take(&mut ct.held) {
            let _ = ct_pass(ct, &l, &mut gtt, now, unanswered, &mut wrote, rec);
            self.log_h2g(now, rec, bus);
            let mut gtt = Gtt::new(bus, &mut self.tlb);
            let _ = flush(&mut self.ct, &l, &mut gtt, &mut wrote, rec);
        }
        if wrote > 0 {
            self.interrupt_host();
        }
    }

    /// Whether [`Guc::ct_service`] has something to try: the CT's own
    /// work, or the log's ([`super::log::Log::has_work`]).
    pub fn ct_has_work(&self) -> bool {
        self.ct.has_work() || (!self.hung && self.log.has_work())
    }
}

/// One pass over the H2G ring.
fn ct_pass(
    ct: &mut Ct,
    l: &Layout,
    gtt: &mut Gtt,
    now: Duration,
    unanswered: bool,
    wrote: &mut u32,
    rec: &mut Recorder,
) -> Result<(), Stop> {
    // CAST: sizes were checked at the enable: multiples of 4 KiB below 4 GiB.
    let size = (l.h2g_size / 4) as u32;
    let desc = l.h2g_desc;
    let field = |off: usize| desc + off as u64;
    let status = read_dword(gtt, field(abi::ctb::DESC_STATUS), "CT H2G descriptor", rec)?;
    if status != 0 {
        return Err(Stop::Broken);
    }
    let tail = read_dword(gtt, field(abi::ctb::DESC_TAIL), "CT H2G descriptor", rec)?;
    let head = read_dword(gtt, field(abi::ctb::DESC_HEAD), "CT H2G descriptor", rec)?;
    if tail >= size {
        let why = format!("H2G tail {tail:#x} is outside the ring of {size:#x} dwords");
        return Err(mark(gtt, desc, status, abi::ctb::STATUS_OVERFLOW, why, rec));
    }
    if head != ct.h2g_head {
        let why = format!(
            "H2G head reads {head:#x}, the GuC left it at {:#x}: the host wrote the receiver's field",
            ct.h2g_head
        );
        return Err(mark(gtt, desc, status, abi::ctb::STATUS_MISMATCH, why, rec));
    }
    let mut result = Ok(());
    while ct.h2g_head != tail {
        let at = ct.h2g_head;
        let avail = (tail + size - at) % size;
        let hdr = read_dword(gtt, ring_addr(l.h2g, size, at), "CT H2G ring", rec)?;
        let n = abi::field(hdr, abi::ctb::MSG_NUM_DWORDS);
        if 1 + n > avail {
            let why = format!(
                "H2G message at {at:#x}: header {hdr:#x} claims {n} dwords, {} remain before the tail",
                avail - 1
            );
            result = Err(mark(
                gtt,
                desc,
                status,
                abi::ctb::STATUS_UNDERFLOW,
                why,
                rec,
            ));
            break;
        }
        let mut hxg = Vec::with_capacity(n as usize);
        for i in 1..=n {
            hxg.push(read_dword(
                gtt,
                ring_addr(l.h2g, size, at + i),
                "CT H2G ring",
                rec,
            )?);
        }
        let next = (at + 1 + n) % size;
        if let Some(req) = request(hdr, hxg, ct.vf != 0, rec) {
            // Room for the answer first (REPLY_DWORDS). A broken G2H
            // descriptor is no reason to wait: the answer is lost.
            match g2h_space(ct, l, gtt, rec) {
                Ok(space) if space < REPLY_DWORDS => {
                    ct.held = true;
                    result = Err(Stop::Full);
                    break;
                }
                Err(Stop::Full) => {
                    ct.held = true;
                    result = Err(Stop::Full);
                    break;
                }
                Ok(_) | Err(Stop::Broken) => {}
            }
            ct.last_fence = req.fence;
            if ct.vf == 0 {
                // Taken (not held for room): once in the GuC log.
                ct.h2g_read.push((now, req.action, req.fence));
            }
            let (reply, event) = dispose(ct, gtt, now, unanswered, &req, rec);
            if let Some(reply) = reply {
                // The reply is lost on a broken G2H; the request is consumed.
                if g2h_write(ct, l, gtt, &reply, rec).is_ok() {
                    *wrote += 1;
                }
            }
            rec.emit(event);
        }
        ct.h2g_head = next;
    }
    write_dword(
        gtt,
        field(abi::ctb::DESC_HEAD),
        ct.h2g_head,
        "CT H2G descriptor",
        rec,
    )?;
    result
}

/// Checks one H2G message; `None` if it is no request (skipped).
fn request(hdr: u32, hxg: Vec<u32>, events: bool, rec: &mut Recorder) -> Option<Request> {
    let fence = abi::field(hdr, abi::ctb::MSG_FENCE);
    let Some(&h0) = hxg.first() else {
        // Zero fill before a wrap (module docs).
        return None;
    };
    let bad = |why: String, rec: &mut Recorder| {
        rec.violation("ct_h2g_bad", why);
        None
    };
    let format = abi::field(hdr, abi::ctb::MSG_FORMAT);
    if format != abi::ctb::FORMAT_HXG {
        return bad(
            format!("H2G message fence {fence:#x}: format {format} is not HXG"),
            rec,
        );
    }
    let ty = abi::field(h0, abi::hxg::TYPE);
    let event = events && ty == abi::hxg::TYPE_EVENT;
    if abi::field(h0, abi::hxg::ORIGIN) == abi::hxg::ORIGIN_GUC
        || (ty != abi::hxg::TYPE_REQUEST && ty != abi::hxg::TYPE_FAST_REQUEST && !event)
    {
        return bad(
            format!("H2G message fence {fence:#x}: HXG header {h0:#x} is not a host REQUEST or FAST_REQUEST"),
            rec,
        );
    }
    Some(Request {
        fence,
        fast: ty != abi::hxg::TYPE_REQUEST,
        event,
        action: abi::field(h0, abi::hxg::REQUEST_ACTION),
        hxg,
    })
}

/// Decides what a request gets: the test's switches first (module docs,
/// "Test control"), else the action is served. Returns the G2H message to
/// send, if any, and the request's trace event.
fn dispose(
    ct: &mut Ct,
    gtt: &mut Gtt,
    now: Duration,
    unanswered: bool,
    req: &Request,
    rec: &mut Recorder,
) -> (Option<Vec<u32>>, Event) {
    let sw = &mut ct.switches;
    let (fault, hxg): (Option<&'static str>, Option<u32>) = if unanswered {
        // The CLI fault: traced `unanswered`, no `guc_ct_fault`.
        (None, None)
    } else if sw.no_response > 0 {
        sw.no_response -= 1;
        (Some("no-response"), None)
    } else if sw.failure > 0 {
        sw.failure -= 1;
        (Some("failure"), Some(super::mmio::failure(sw.failure_code)))
    } else if !req.fast && sw.retry > 0 {
        sw.retry -= 1;
        // NO_RESPONSE_RETRY, REASON 0 ("unspecified"): GUC_HXG_RETRY_MSG_0_REASON
        // is AUX (abi/guc_messages_abi.h).
        let retry = abi::prep(abi::hxg::ORIGIN, abi::hxg::ORIGIN_GUC)
            | abi::prep(abi::hxg::TYPE, abi::hxg::TYPE_NO_RESPONSE_RETRY);
        (Some("retry"), Some(retry))
    } else if !req.fast && sw.busy > 0 {
        sw.busy -= 1;
        ct.delayed.push_back(Delayed {
            at: now + sw.busy_delay,
            fence: req.fence,
            action: req.action,
            hxg: req.hxg.clone(),
        });
        // NO_RESPONSE_BUSY, COUNTER 0 (GUC_HXG_BUSY_MSG_0_COUNTER is AUX,
        // abi/guc_messages_abi.h).
        let busy = abi::prep(abi::hxg::ORIGIN, abi::hxg::ORIGIN_GUC)
            | abi::prep(abi::hxg::TYPE, abi::hxg::TYPE_NO_RESPONSE_BUSY);
        (Some("busy"), Some(busy))
    } else {
        let answer = if ct.vf == 0 {
            serve::serve(ct, gtt, req.action, &req.hxg, rec)
        } else {
            vf::serve(ct, gtt, req.action, &req.hxg, rec)
        };
        let reply = match answer {
            Ok(_) if req.fast => None,
            // An EVENT gets nothing back, not even a refusal.
            Err(_) if req.event => None,
            Ok(data0) => Some(super::mmio::success(data0)),
            Err(code) => Some(super::mmio::failure(code)),
        };
        let event = h2g_event(ct.vf, req, reply.map_or("none", |h| hxg_name(&[0, h])));
        return (reply.map(|h| g2h_message(req.fence, &[h])), event);
    };
    if let Some(fault) = fault {
        rec.emit(Event::GucCtFault {
            fault,
            fence: req.fence,
            action: Hex(req.action.into()),
            armed_left: ct.switches.armed_left(),
        });
    }
    let name = match fault {
        Some("busy") => "busy",
        Some("retry") => "retry",
        Some(_) if hxg.is_some() => "failure",
        _ => "unanswered",
    };
    (
        hxg.map(|h| g2h_message(req.fence, &[h])),
        h2g_event(ct.vf, req, name),
    )
}

fn h2g_event(vf: u32, req: &Request, reply: &'static str) -> Event {
    Event::GucCtH2g {
        vf,
        fence: req.fence,
        action: Hex(req.action.into()),
        // CAST: at most 255 dwords (NUM_DWORDS).
        len: req.hxg.len() as u32,
        kind: req.kind(),
        reply,
    }
}

/// Serves the BUSY requests whose time came, while G2H has room.
fn serve_delayed(
    ct: &mut Ct,
    l: &Layout,
    gtt: &mut Gtt,
    now: Duration,
    wrote: &mut u32,
    rec: &mut Recorder,
) -> Result<(), Stop> {
    while ct.delayed.front().is_some_and(|d| d.at <= now) {
        let space = g2h_space(ct, l, gtt, rec);
        if matches!(space, Err(Stop::Full)) || space.is_ok_and(|s| s < REPLY_DWORDS) {
            return Err(Stop::Full);
        }
        let Some(d) = ct.delayed.pop_front() else {
            break;
        };
        let answer = serve::serve(ct, gtt, d.action, &d.hxg, rec);
        let (name, reply) = match answer {
            Ok(data0) => ("success", super::mmio::success(data0)),
            Err(code) => ("failure", super::mmio::failure(code)),
        };
        let sent =
            space.is_ok() && g2h_write(ct, l, gtt, &g2h_message(d.fence, &[reply]), rec).is_ok();
        if sent {
            *wrote += 1;
        }
        rec.emit(Event::GucCtBusyServed {
            fence: d.fence,
            action: Hex(d.action.into()),
            reply: if sent { name } else { "dropped" },
        });
    }
    Ok(())
}

/// Writes the backlog while G2H has room.
fn flush(
    ct: &mut Ct,
    l: &Layout,
    gtt: &mut Gtt,
    wrote: &mut u32,
    rec: &mut Recorder,
) -> Result<(), Stop> {
    while let Some(msg) = ct.backlog_take() {
        if let Err(stop) = g2h_write(ct, l, gtt, &msg, rec) {
            // Nothing is dropped: it waits for room, or for the host to
            // repair the descriptor, or for a reset.
            ct.backlog_put_back(msg);
            return Err(stop);
        }
        *wrote += 1;
    }
    Ok(())
}

/// The G2H descriptor checks; the room in dwords.
fn g2h_space(ct: &mut Ct, l: &Layout, gtt: &mut Gtt, rec: &mut Recorder) -> Result<u32, Stop> {
    // CAST: checked at the enable.
    let size = (l.g2h_size / 4) as u32;
    let desc = l.g2h_desc;
    let field = |off: usize| desc + off as u64;
    let status = read_dword(gtt, field(abi::ctb::DESC_STATUS), "CT G2H descriptor", rec)?;
    if status != 0 {
        return Err(Stop::Broken);
    }
    let head = read_dword(gtt, field(abi::ctb::DESC_HEAD), "CT G2H descriptor", rec)?;
    let tail = read_dword(gtt, field(abi::ctb::DESC_TAIL), "CT G2H descriptor", rec)?;
    if ct.poisoned_head == Some(head) {
        // `g2h:head-outside` wrote it, not the host: the GuC cannot tell
        // where the host is and waits for it to write its head (module
        // docs, "Test control"). No violation: the host did nothing wrong.
        return Err(Stop::Full);
    }
    ct.poisoned_head = None;
    if head >= size {
        let why = format!("G2H head {head:#x} is outside the ring of {size:#x} dwords");
        return Err(mark(gtt, desc, status, abi::ctb::STATUS_OVERFLOW, why, rec));
    }
    if tail != ct.g2h_desc_tail {
        let why = format!(
            "G2H tail reads {tail:#x}, the GuC left it at {:#x}: the host wrote the sender's field",
            ct.g2h_desc_tail
        );
        return Err(mark(gtt, desc, status, abi::ctb::STATUS_MISMATCH, why, rec));
    }
    // CIRC_SPACE: one dword stays free so that head == tail means empty.
    Ok((head + size - ct.g2h_tail - 1) % size)
}

/// Writes `msg` into the G2H ring and moves the descriptor's tail.
fn g2h_write(
    ct: &mut Ct,
    l: &Layout,
    gtt: &mut Gtt,
    msg: &[u32],
    rec: &mut Recorder,
) -> Result<(), Stop> {
    // CAST: checked at the enable.
    let size = (l.g2h_size / 4) as u32;
    let space = g2h_space(ct, l, gtt, rec)?;
    // CAST: a CTB message is at most 256 dwords.
    let len = msg.len() as u32;
    if space < len {
        return Err(Stop::Full);
    }
    let tail = ct.g2h_tail;
    for (i, &d) in (0u32..).zip(msg) {
        write_dword(gtt, ring_addr(l.g2h, size, tail + i), d, "CT G2H ring", rec)?;
    }
    ct.g2h_tail = (tail + len) % size;
    write_g2h_tail(ct, l, gtt, ct.g2h_tail, rec)?;
    rec.emit(Event::GucCtG2h {
        vf: ct.vf,
        fence: abi::field(msg[0], abi::ctb::MSG_FENCE),
        len,
        hxg: hxg_name(msg),
        pending: ct.pending(),
    });
    Ok(())
}

/// Writes the G2H descriptor's tail and remembers the value written.
fn write_g2h_tail(
    ct: &mut Ct,
    l: &Layout,
    gtt: &mut Gtt,
    tail: u32,
    rec: &mut Recorder,
) -> Result<(), Stop> {
    let at = l.g2h_desc + abi::ctb::DESC_TAIL as u64;
    write_dword(gtt, at, tail, "CT G2H descriptor", rec)?;
    ct.g2h_desc_tail = tail;
    Ok(())
}
