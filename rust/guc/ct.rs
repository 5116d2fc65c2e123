// SPDX-License-Identifier: GPL-2.0

//! The GuC's command transport (CT): two rings in GuC-reachable memory, host-to-GuC (H2G) and
//! GuC-to-host (G2H), each with a descriptor holding its head, tail and status.
//!
//! This step places the buffers, registers them with the GuC and enables the channel, as
//! upstream does once the hwconfig table is read (`xe_guc.c` `xe_guc_enable_communication`,
//! `xe_guc_ct.c` `__xe_guc_ct_start`):
//!
//! 1. H2G object, 8 KiB, in local memory: descriptor at +0, ring at +4 KiB, 4 KiB long; G2H
//!    object, 132 KiB, in system memory: descriptor at +2 KiB, ring at +4 KiB, 128 KiB long
//!    (upstream's layout, sizes and placement on discrete parts); both zeroed, so descriptors
//!    start with head, tail and status 0, and mapped into the GGTT, then the GuC's GGTT TLB
//!    is invalidated.
//! 2. Six `HOST2GUC_SELF_CFG` (0x0508) MMIO requests, each carrying one KLV in upstream's
//!    order: H2G descriptor, ring address and size, then the same for G2H. The reply's DATA0
//!    is how many KLVs the GuC took: 1, or 0 for a key it does not know.
//! 3. `HOST2GUC_CONTROL_CTB` (0x4509) with ENABLE.
//!
//! Teardown sends CONTROL_CTB DISABLE before the GuC is reset, so the firmware stops using
//! the rings before their memory is released.
//!
//! Once enabled, [`Channel`] carries the messages: sending, waiting, receiving and
//! the checks on everything the GuC writes (its module docs; `Documentation/ct.rst` draws the
//! flow). The wire words are in [`wire`], the ring arithmetic and G2H validation in [`ring`],
//! the waiters and G2H credits in [`waiters`].
//!
//! As upstream, the G2H ring is in system memory (a coherent DMA allocation mapped through the
//! GGTT): the CPU reads replies and events from RAM, not across the PCIe BAR, and the receive
//! path touches no device at all.

mod channel;
mod ring;
mod waiters;
mod wire;

use kernel::{prelude::*, sync::Arc};

use super::{
    h2g::{self, Reply},
    klv::guc_key_name,
    msg::{ControlCtb, SelfCfg, SelfCfgKey},
    regs::SOFT_SCRATCH,
    tlb_inval, Ctx, Guc, GucState, Obj,
};
use crate::gt::{Awake, GtDomain};
use channel::Rings;
pub(crate) use ring::Desc;

#[cfg(xehpg_test)]
pub(crate) use channel::LoadKind;
pub(crate) use channel::{
    with_bars, Channel, Consumed, CtAccess, CtIo, EventSink, G2hBuf, SinkGuard, Unresponsive,
    RX_BUDGET,
};

/// H2G object and ring layout (`xe_guc_ct.c`: `CTB_DESC_SIZE` aligned to 2 KiB,
/// `CTB_H2G_BUFFER_OFFSET` 4 KiB, `CTB_H2G_BUFFER_SIZE` 4 KiB).
const H2G_OBJ: u64 = 8 << 10;
const H2G_DESC: u64 = 0;
const H2G_RING: u64 = 4 << 10;
const H2G_RING_SIZE: u32 = 4 << 10;
/// G2H object and ring layout (`CTB_G2H_BUFFER_OFFSET` 4 KiB, `CTB_G2H_BUFFER_SIZE` 128 KiB,
/// the descriptor in the second 2 KiB).
const G2H_OBJ: u64 = 132 << 10;
const G2H_DESC: u64 = 2 << 10;
const G2H_RING: u64 = 4 << 10;
const G2H_RING_SIZE: u32 = 128 << 10;

/// Where the channel stands.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum CtState {
    /// Never enabled, or disabled at teardown.
    Disabled,
    /// Registered and enabled.
    Enabled,
}

/// The channel's buffers and state.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Ct {
    pub(crate) state: CtState,
    /// GGTT addresses of the H2G and G2H objects (descriptor offsets above).
    pub(crate) h2g: u64,
    pub(crate) g2h: u64,
}

impl Ct {
    /// The debugfs `guc_info` lines of the channel.
    ///
    /// # Errors
    ///
    /// Only the formatter's.
    pub(crate) fn fmt(ct: Option<&Ct>, f: &mut kernel::fmt::Formatter<'_>) -> kernel::fmt::Result {
        let Some(ct) = ct else {
            return f.write_str("ct: none\n");
        };
        let state = match ct.state {
            CtState::Disabled => "disabled",
            CtState::Enabled => "enabled",
        };
        f.write_fmt(fmt!(
            "ct: {} (h2g desc {:#x} ring {:#x} size {:#x}, g2h desc {:#x} ring {:#x} size {:#x})\n",
            state,
            ct.h2g + H2G_DESC,
            ct.h2g + H2G_RING,
            H2G_RING_SIZE,
            ct.g2h + G2H_DESC,
            ct.g2h + G2H_RING,
            G2H_RING_SIZE
        ))
    }
}

/// The six SELF_CFG requests for rings in GGTT objects at `h2g` and `g2h`, in upstream's
/// order (`guc_ct_ctb_h2g_register`, `guc_ct_ctb_g2h_register`).
fn self_cfg(h2g: u64, g2h: u64) -> [SelfCfg; 6] {
    let cfg = |key, value| SelfCfg { key, value };
    [
        cfg(SelfCfgKey::H2gDescriptor, h2g + H2G_DESC),
        cfg(SelfCfgKey::H2gAddr, h2g + H2G_RING),
        cfg(SelfCfgKey::H2gSize, u64::from(H2G_RING_SIZE)),
        cfg(SelfCfgKey::G2hDescriptor, g2h + G2H_DESC),
        cfg(SelfCfgKey::G2hAddr, g2h + G2H_RING),
        cfg(SelfCfgKey::G2hSize, u64::from(G2H_RING_SIZE)),
    ]
}

impl Guc {
    /// Places, registers and enables the CT (steps 1-3 of the module docs). Called with the GuC
    /// READY and the hwconfig table read.
    ///
    /// # Errors
    ///
    /// `ENOKEY` if the GuC does not know a SELF_CFG key, `EIO` for a FAILURE reply, `EPROTO`
    /// for a reply the ABI does not allow, or the allocation's, mapping's or MMIO message's
    /// error; each logged with the step and the values.
    pub(super) fn ct_enable(
        &self,
        ctx: &Ctx<'_>,
        st: &mut GucState,
        awake: &Awake<'_, GtDomain>,
    ) -> Result<Ct> {
        let h2g = self.obj(ctx, st, H2G_OBJ)?;
        zero(ctx, &h2g, H2G_OBJ)?;
        // G2H in system memory, zeroed by the allocation; the GuC state holds it (and its
        // mapping) from here on, so every failure path below releases it after the reset.
        let buf = Arc::new(
            G2hBuf::new(
                ctx.pdev.as_ref(),
                G2H_OBJ as usize,
                G2H_DESC as usize,
                G2H_RING as usize,
                G2H_RING_SIZE as usize,
            )?,
            GFP_KERNEL,
        )?;
        let map = ctx.ggtt.map_sys(ctx.bar, buf.dma(), G2H_OBJ)?;
        st.g2h = Some((buf.clone(), map));
        // The GuC may have cached translations of these GGTT pages from an earlier use.
        tlb_inval::ggtt(&ctx.gt, awake)?;
        let rings = Rings {
            h2g_desc: h2g.lmem.start + H2G_DESC,
            h2g: h2g.lmem.start + H2G_RING,
            h2g_size: H2G_RING_SIZE / 4,
            g2h_size: G2H_RING_SIZE / 4,
        };
        let (h2g, g2h) = (h2g.map.addr(0), map.addr(0));
        for req in self_cfg(h2g, g2h) {
            let (key, value) = (req.key as u32, req.value);
            match h2g::send(&ctx.gt, &req)? {
                Reply::Success(true) => {}
                Reply::Success(false) => {
                    dev_err!(
                        ctx.gt.dev,
                        "guc: CT registration: the GuC does not know SELF_CFG key {:#06x} ({})\n",
                        key,
                        guc_key_name(key).unwrap_or("?")
                    );
                    return Err(ENOKEY);
                }
                Reply::Failure { error, hint } => {
                    dev_err!(
                        ctx.gt.dev,
                        "guc: CT registration: SELF_CFG {} ({:#06x}) value {:#x} refused: \
                         error {:#x} hint {:#x}\n",
                        guc_key_name(key).unwrap_or("?"),
                        key,
                        value,
                        error,
                        hint
                    );
                    return Err(EIO);
                }
            }
        }
        control(ctx, true)?;
        crate::trace::dyn_dbg!(
            ctx.gt.dev,
            "guc: CT enabled: H2G object {:#x}, G2H object {:#x}\n",
            h2g,
            g2h
        );
        self.channel.start(rings, buf);
        let (crash, exception) = early_message(ctx, awake);
        // Captured by the log's worker once the caller kicks it (`Guc::kick_log`).
        self.log.early(crash, exception);
        Ok(Ct {
            state: CtState::Enabled,
            h2g,
            g2h,
        })
    }

    /// Stops the channel without telling the GuC (GT reset: the GuC may not answer); the GuC
    /// is reset next.
    pub(super) fn ct_forget(&self, st: &mut GucState) {
        if let Some(ct) = st.ct.as_mut() {
            ct.state = CtState::Disabled;
        }
        self.channel.stop();
    }

    /// Teardown: tells the GuC to stop using the rings, then stops the channel (waiters are
    /// woken, no pass reads the rings after this). A failure to tell the GuC is logged; the
    /// GuC is reset next either way.
    pub(super) fn ct_disable(&self, ctx: &Ctx<'_>, st: &mut GucState) {
        let Some(ct) = st.ct.as_mut() else {
            return;
        };
        if ct.state == CtState::Enabled {
            // Logged by `control` on failure.
            let _ = control(ctx, false);
            ct.state = CtState::Disabled;
        }
        self.channel.stop();
    }
}

/// What the GuC reported through `SOFT_SCRATCH(15)` before the CT could carry it: a crash
/// dump posted (bit 1) or an exception (bit 30) (`xe_guc_fwif.h` `XE_GUC_RECV_MSG_*`). Read
/// and cleared once the CT is enabled and logged, as upstream (`xe_guc.c`
/// `guc_handle_mmio_msg`, after `xe_guc_ct_enable`); later ones arrive as G2H events.
const EARLY_SCRATCH: usize = 15;
const EARLY_CRASH_DUMP_POSTED: u32 = 1 << 1;
const EARLY_EXCEPTION: u32 = 1 << 30;

/// Reads, clears and logs the GuC's early message ([`EARLY_SCRATCH`]); returns whether it
/// posted a crash dump and whether it took an exception. Process context.
fn early_message(ctx: &Ctx<'_>, awake: &Awake<'_, GtDomain>) -> (bool, bool) {
    let Ok(raw) = ctx
        .gt
        .read_at::<SOFT_SCRATCH, _>(awake, EARLY_SCRATCH)
        .map(|r| r.into_raw())
    else {
        return (false, false);
    };
    let _ = ctx
        .gt
        .write_at(awake, EARLY_SCRATCH, SOFT_SCRATCH::zeroed());
    if raw & EARLY_CRASH_DUMP_POSTED != 0 {
        dev_err!(
            ctx.gt.dev,
            "guc: early crash dump notification (SOFT_SCRATCH(15) {:#010x})\n",
            raw
        );
    }
    if raw & EARLY_EXCEPTION != 0 {
        dev_err!(
            ctx.gt.dev,
            "guc: early exception notification (SOFT_SCRATCH(15) {:#010x})\n",
            raw
        );
    }
    (
        raw & EARLY_CRASH_DUMP_POSTED != 0,
        raw & EARLY_EXCEPTION != 0,
    )
}

/// Zeroes a CT object: both descriptors start at head, tail and status 0.
fn zero(ctx: &Ctx<'_>, obj: &Obj, len: u64) -> Result {
    ctx.lmem.zero(obj.lmem.start, len)
}

/// Sends CONTROL_CTB with ENABLE or DISABLE (a DATA0 other than 0 is refused and logged by
/// [`h2g::send`]).
fn control(ctx: &Ctx<'_>, enable: bool) -> Result {
    let what = if enable { "enable" } else { "disable" };
    match h2g::send(&ctx.gt, &ControlCtb { enable })? {
        Reply::Success(()) => Ok(()),
        Reply::Failure { error, hint } => {
            dev_err!(
                ctx.gt.dev,
                "guc: CT {} refused: error {:#x} hint {:#x}\n",
                what,
                error,
                hint
            );
            Err(EIO)
        }
    }
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_guc_ct)]
mod tests {
    use super::*;

    #[test]
    fn self_cfg_requests_in_upstreams_order() {
        let (h2g, g2h) = (0x1_0000, 0x2_0000);
        let keys = self_cfg(h2g, g2h).map(|r| (r.key as u32, r.value));
        assert_eq!(
            keys,
            [
                (0x903, h2g),
                (0x902, h2g + 0x1000),
                (0x904, 0x1000),
                (0x906, g2h + 0x800),
                (0x905, g2h + 0x1000),
                (0x907, 0x2_0000),
            ]
        );
    }

    #[test]
    fn rings_fit_their_objects() {
        assert!(H2G_RING + u64::from(H2G_RING_SIZE) <= H2G_OBJ);
        assert!(G2H_RING + u64::from(G2H_RING_SIZE) <= G2H_OBJ);
        // The descriptors (64 bytes) do not reach the rings.
        assert!(H2G_DESC + 64 <= H2G_RING);
        assert!(G2H_DESC + 64 <= G2H_RING);
    }
}
