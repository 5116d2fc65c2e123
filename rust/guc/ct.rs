// SPDX-License-Identifier: GPL-2.0

//! The GuC's command transport (CT): two rings in GuC-reachable memory, host-to-GuC (H2G) and
//! GuC-to-host (G2H), each with a descriptor holding its head, tail and status.
//!
//! This step places the buffers, registers them with the GuC and enables the channel, as
//! upstream does once the hwconfig table is read (`xe_guc.c` `xe_guc_enable_communication`,
//! `xe_guc_ct.c` `__xe_guc_ct_start`; `research/anchor-xe.md` §5.3, §5.5):
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
//! Once enabled, [`channel::Channel`] carries the messages: sending, waiting, receiving and
//! the checks on everything the GuC writes (its module docs; `Documentation/ct.rst` draws the
//! flow). The wire words are in [`wire`], the ring arithmetic and G2H validation in [`ring`],
//! the waiters and G2H credits in [`waiters`].
//!
//! As upstream, the G2H ring is in system memory (a coherent DMA allocation mapped through the
//! GGTT): the CPU reads replies and events from RAM, not across the PCIe BAR, and the receive
//! path touches no device at all.

pub(crate) mod channel;
pub(crate) mod ring;
pub(crate) mod waiters;
pub(crate) mod wire;

use kernel::{prelude::*, sync::Arc};

use super::{
    h2g::{self, Reply},
    hxg::Hxg,
    klv::{guc_key_name, Writer},
    regs::SOFT_SCRATCH,
    tlb_inval, Ctx, Guc, GucState, Obj,
};
use crate::{
    abi::*,
    gt::{Awake, GtDomain},
};
use channel::{G2hBuf, Rings};

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

/// The six SELF_CFG KLVs for rings in GGTT objects at `h2g` and `g2h`, in upstream's order
/// (`guc_ct_ctb_h2g_register`, `guc_ct_ctb_g2h_register`): (key, value, 64-bit?).
fn self_cfg(h2g: u64, g2h: u64) -> [(u32, u64, bool); 6] {
    [
        (
            XEHPG_KLV_SELF_CFG_H2G_CTB_DESCRIPTOR_ADDR,
            h2g + H2G_DESC,
            true,
        ),
        (XEHPG_KLV_SELF_CFG_H2G_CTB_ADDR, h2g + H2G_RING, true),
        (
            XEHPG_KLV_SELF_CFG_H2G_CTB_SIZE,
            u64::from(H2G_RING_SIZE),
            false,
        ),
        (
            XEHPG_KLV_SELF_CFG_G2H_CTB_DESCRIPTOR_ADDR,
            g2h + G2H_DESC,
            true,
        ),
        (XEHPG_KLV_SELF_CFG_G2H_CTB_ADDR, g2h + G2H_RING, true),
        (
            XEHPG_KLV_SELF_CFG_G2H_CTB_SIZE,
            u64::from(G2H_RING_SIZE),
            false,
        ),
    ]
}

/// The MMIO message carrying one SELF_CFG KLV: {header, KLV header, value low, value high};
/// a 32-bit value leaves the last dword 0 (`HOST2GUC_SELF_CFG` in `abi/guc_actions_abi.h`).
///
/// # Errors
///
/// `EINVAL` for a key that does not fit the 16-bit key field.
fn self_cfg_message(key: u32, value: u64, wide: bool) -> Result<[u32; 4]> {
    let key = u16::try_from(key).map_err(|_| EINVAL)?;
    let mut klv = [0u32; 3];
    let mut w = Writer::new(&mut klv);
    if wide {
        w.put_u64(key, value)?;
    } else {
        w.put_u32(key, u32::try_from(value).map_err(|_| EINVAL)?)?;
    }
    let header = Hxg::request(XEHPG_GUC_ACTION_HOST2GUC_SELF_CFG, 0).into_raw();
    Ok([header, klv[0], klv[1], klv[2]])
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
        for (key, value, wide) in self_cfg(h2g, g2h) {
            let msg = self_cfg_message(key, value, wide)?;
            match h2g::send(&ctx.gt, &msg)?.0 {
                Reply::Success(1) => {}
                Reply::Success(0) => {
                    dev_err!(
                        ctx.gt.dev,
                        "guc: CT registration: the GuC does not know SELF_CFG key {:#06x} ({})\n",
                        key,
                        guc_key_name(key).unwrap_or("?")
                    );
                    return Err(ENOKEY);
                }
                Reply::Success(n) => {
                    dev_err!(
                        ctx.gt.dev,
                        "guc: CT registration: SELF_CFG key {:#06x} answered {} KLVs taken, \
                         1 sent\n",
                        key,
                        n
                    );
                    return Err(EPROTO);
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
        control(ctx, XEHPG_GUC_CTB_CONTROL_ENABLE)?;
        self.channel.start(rings, buf);
        early_message(ctx, awake);
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
            let _ = control(ctx, XEHPG_GUC_CTB_CONTROL_DISABLE);
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

/// Reads, clears and logs the GuC's early message ([`EARLY_SCRATCH`]). Process context.
fn early_message(ctx: &Ctx<'_>, awake: &Awake<'_, GtDomain>) {
    let Ok(raw) = ctx
        .gt
        .read_at::<SOFT_SCRATCH, _>(awake, EARLY_SCRATCH)
        .map(|r| r.into_raw())
    else {
        return;
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
}

/// Zeroes a CT object: both descriptors start at head, tail and status 0.
fn zero(ctx: &Ctx<'_>, obj: &Obj, len: u64) -> Result {
    ctx.lmem.zero(obj.lmem.start, len)
}

/// Sends CONTROL_CTB with `control` (enable or disable).
fn control(ctx: &Ctx<'_>, control: u32) -> Result {
    let what = if control == XEHPG_GUC_CTB_CONTROL_ENABLE {
        "enable"
    } else {
        "disable"
    };
    let header = Hxg::request(XEHPG_GUC_ACTION_HOST2GUC_CONTROL_CTB, 0).into_raw();
    match h2g::send(&ctx.gt, &[header, control])?.0 {
        Reply::Success(0) => Ok(()),
        Reply::Success(n) => {
            dev_err!(
                ctx.gt.dev,
                "guc: CT {}: reply data {:#x}, the ABI has none\n",
                what,
                n
            );
            Err(EPROTO)
        }
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
    fn self_cfg_messages_match_upstream() {
        let h2g = 0x1_0000;
        let g2h = 0x2_0000;
        let msgs = self_cfg(h2g, g2h);
        // Upstream's example: {0x00000508, 0x09030002, desc_lo, desc_hi}.
        let (k, v, w) = msgs[0];
        assert_eq!(
            self_cfg_message(k, v, w),
            Ok([0x508, 0x0903_0002, h2g as u32, 0])
        );
        let (k, v, w) = msgs[2];
        assert_eq!(
            self_cfg_message(k, v, w),
            Ok([0x508, 0x0904_0001, 0x1000, 0])
        );
        let (k, v, w) = msgs[3];
        assert_eq!(
            self_cfg_message(k, v, w),
            Ok([0x508, 0x0906_0002, (g2h + 0x800) as u32, 0])
        );
        let (k, v, w) = msgs[5];
        assert_eq!(
            self_cfg_message(k, v, w),
            Ok([0x508, 0x0907_0001, 0x2_0000, 0])
        );
        // A 64-bit address keeps its high dword.
        assert_eq!(
            self_cfg_message(XEHPG_KLV_SELF_CFG_G2H_CTB_ADDR, 0x1_2345_6000, true),
            Ok([0x508, 0x0905_0002, 0x2345_6000, 1])
        );
    }

    #[test]
    fn rings_fit_their_objects() {
        assert!(H2G_RING + u64::from(H2G_RING_SIZE) <= H2G_OBJ);
        assert!(G2H_RING + u64::from(G2H_RING_SIZE) <= G2H_OBJ);
        // The descriptors (64 bytes) do not reach the rings.
        assert!(H2G_DESC + 64 <= H2G_RING);
        assert!(G2H_DESC + 64 <= G2H_RING);
        assert_eq!(self_cfg_message(0x1_0000, 0, false), Err(EINVAL));
        assert_eq!(self_cfg_message(0x904, 1 << 32, false), Err(EINVAL));
    }
}
