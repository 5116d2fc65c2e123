//! A VF's own CT with the GuC: what upstream's VF driver registers by MMIO
//! (`HOST2GUC_SELF_CFG`, `HOST2GUC_CONTROL_CTB`, `../vf_mmio.rs`), the H2G
//! messages it sends over it, the G2H messages it gets back, and the
//! memory-based interrupt that tells it so.
//!
//! Facts: upstream `abi/guc_klvs_abi.h` (the SELF_CFG keys: the six CTB keys
//! the PF registers too, [`super::KEYS`], and `MEMIRQ_STATUS_ADDR` 0x0900 /
//! `MEMIRQ_SOURCE_ADDR` 0x0901, 64-bit: "GuC expects exact locations"),
//! `xe_memirq.c` (`xe_memirq_init_guc` registers the GuC's status vector
//! and its byte of the source report; `memirq_dispatch_guc` takes a set
//! source byte as `GUC_INTR_GUC2HOST`, bit 15 of the status vector, which
//! "the programming note says to assume"), `abi/guc_actions_sriov_abi.h`
//! (`VF2GUC_RELAY_TO_PF` 0x5103 {hdr, RELAY_ID, message} and
//! `GUC2VF_RELAY_FROM_PF` 0x5102 {hdr, RELAY_ID, message}),
//! `xe_guc_relay.c` (`prepare_vf2guc`: a REQUEST, done on SUCCESS with
//! DATA0 0).
//!
//! The ring mechanics are the PF's ([`super`], "Messages"), on a [`Ct`] of
//! its own whose `vf` names the VF: the GuC reads H2G at the VF's doorbell
//! (`GUC_HOST_INTERRUPT` in the VF's BAR0) and its G2H goes through the
//! VF's GGTT entries into the VF's memory (`../ggtt.rs`). A VF's CT also
//! takes EVENTs (upstream's VF sends `REGISTER_CONTEXT` as one while its
//! migration support is on, `xe_guc_submit.c`), which get no reply.
//!
//! Served (`[MODEL]` beyond the ABI text: which actions the firmware
//! serves a VF is not published; these are the ones upstream's VF sends):
//!
//! - `VF2GUC_RELAY_TO_PF`: 2..=253 dwords after the header, DATA0 0, else
//!   FAILURE `INVALID_PARAMS`; the GuC answers SUCCESS and queues
//!   `GUC2PF_RELAY_FROM_VF` {VFID, RELAY_ID, message} for the PF. The PF's
//!   `PF2GUC_RELAY_TO_VF` to a VF with an enabled CT comes back as
//!   `GUC2VF_RELAY_FROM_PF` here (`sriov/relay.rs`);
//! - `UPDATE_SCHEDULING_POLICIES_KLV`, `OPT_IN_FEATURE_KLV`,
//!   `TLB_INVALIDATION`: as the PF's ([`super::serve`]), on the VF's CT;
//! - `REGISTER_CONTEXT`, `UPDATE_CONTEXT_POLICIES`,
//!   `SCHED_CONTEXT_MODE_SET`, `SCHED_CONTEXT`, `DEREGISTER_CONTEXT`: GuC
//!   submission on the GuC's one scheduler, with the VF's own guc_ids
//!   (`submit.rs`, "A VF's contexts"). While the GuC serves a VF's CT the
//!   scheduler's state is lent to it, and the VF's provisioning with it;
//! - anything else: FAILURE `UNKNOWN_ACTION` to a REQUEST or FAST_REQUEST,
//!   nothing to an EVENT.
//!
//! After a pass that wrote G2H, the GuC sets the VF's memory-based
//! interrupt: 0xFF into its source byte and into byte 15 of its status
//! vector, then the VF's MSI. A VF without both MEMIRQ addresses gets the
//! MSI alone (`[MODEL]`).
//!
//! `VF2GUC_VF_RESET` forgets the VF's registration and traffic
//! (`[MODEL]`: upstream's VF registers everything again after each one,
//! `xe_gt_sriov_vf.c` `vf_reset_guc_state`), as do a VF FLR (`vf:flr`, a
//! reset of the VF's function) and a GuC reset.

use std::time::Duration;

use super::check_layout;
use super::flush;
use super::g2h_message;
use super::serve as pf_serve;
use super::slot;
use super::Ct;
use super::KEYS;
use crate::abi;
use crate::abi::klv;
use crate::recorder::Recorder;
use crate::regfile::guc::ggtt::Gtt;
use crate::regfile::guc::Bus;
use crate::regfile::guc::Guc;

/// `GUC_KLV_SELF_CFG_MEMIRQ_STATUS_ADDR_KEY`.
pub const MEMIRQ_STATUS_ADDR: u32 = 0x0900;
/// `GUC_KLV_SELF_CFG_MEMIRQ_SOURCE_ADDR_KEY`.
pub const MEMIRQ_SOURCE_ADDR: u32 = 0x0901;
/// Both keys' length in dwords (`_LEN`).
const MEMIRQ_LEN: u32 = 2;
/// `GUC_INTR_GUC2HOST`'s bit (15): its byte in the status vector.
const GUC2HOST_BYTE: u64 = 15;
/// `XE_GUC_ACTION_VF2GUC_RELAY_TO_PF`.
pub const VF2GUC_RELAY_TO_PF: u32 = 0x5103;
/// `XE_GUC_ACTION_GUC2VF_RELAY_FROM_PF`.
pub const GUC2VF_RELAY_FROM_PF: u32 = 0x5102;
/// `GUC_RELAY_MSG_MAX_LEN`.
const RELAY_MSG_MAX_LEN: usize = 252;

/// One VF's CT and its interrupt addresses.
#[derive(Debug, Default)]
pub struct VfCt {
    ct: Ct,
    /// `MEMIRQ_STATUS_ADDR`, `MEMIRQ_SOURCE_ADDR` as registered.
    memirq: [Option<u64>; 2],
}

impl VfCt {
    fn new(vf: u32) -> Self {
        Self {
            ct: Ct {
                vf,
                ..Ct::default()
            },
            memirq: [None; 2],
        }
    }

    /// Whether the VF's CT is enabled.
    pub fn enabled(&self) -> bool {
        self.ct.enabled.is_some()
    }
}

/// Serves one message of a VF's CT (module docs); `Ok(DATA0)` or the
/// error code.
pub(super) fn serve(
    ct: &mut Ct,
    gtt: &mut Gtt,
    action: u32,
    hxg: &[u32],
    rec: &mut Recorder,
) -> Result<u32, u32> {
    match action {
        VF2GUC_RELAY_TO_PF => {
            let data0 = abi::field(hxg[0], abi::hxg::REQUEST_DATA0);
            if data0 != 0 || !(3..=2 + RELAY_MSG_MAX_LEN).contains(&hxg.len()) {
                return Err(abi::error::INVALID_PARAMS);
            }
            let mut body = Vec::with_capacity(hxg.len());
            body.push(ct.vf);
            body.extend_from_slice(&hxg[1..]);
            ct.to_pf.push(body);
            Ok(0)
        }
        abi::action::UPDATE_SCHEDULING_POLICIES_KLV
        | abi::action::OPT_IN_FEATURE_KLV
        | abi::tlb::INVALIDATION => pf_serve::serve(ct, gtt, action, hxg, rec),
        abi::action::REGISTER_CONTEXT
        | abi::action::UPDATE_CONTEXT_POLICIES
        | abi::action::SCHED_CONTEXT_MODE_SET
        | abi::action::SCHED_CONTEXT
        | abi::action::DEREGISTER_CONTEXT => super::submit::serve(ct, gtt, action, hxg, rec)
            .unwrap_or(Err(abi::error::UNKNOWN_ACTION)),
        _ => Err(abi::error::UNKNOWN_ACTION),
    }
}

impl Guc {
    /// The VF's CT state, made on first use.
    fn vf_ct(&mut self, vf: u32) -> &mut VfCt {
        self.vf_cts.entry(vf).or_insert_with(|| VfCt::new(vf))
    }

    /// Whether VF `vf`'s CT is enabled.
    pub fn vf_ct_enabled(&self, vf: u32) -> bool {
        self.vf_cts.get(&vf).is_some_and(VfCt::enabled)
    }

    /// `VF2GUC_VF_RESET` or a VF FLR: the VF's registration, traffic and
    /// contexts are gone.
    pub(in crate::regfile::guc) fn vf_forget(&mut self, vf: u32, rec: &mut Recorder) {
        self.vf_cts.remove(&vf);
        self.submit_forget_vf(vf, rec);
    }

    /// A VF wrote GGTT page `page`'s entry through its own view: the GuC's
    /// cached translation of it is dropped. `[MODEL]`: upstream's VF sends
    /// no TLB invalidation before its CT runs GuC submission
    /// (`xe_ggtt.c` `ggtt_invalidate_gt_tlb`, `xe_tlb_inval.c`: nothing to
    /// send yet), yet the GuC then writes its CT through the entries it
    /// wrote, so the hardware cannot keep the old translation; the PF's own
    /// writes keep the stricter rule (`ggtt.rs`, `stale_ggtt_tlb`).
    pub fn vf_ggtt_written(&mut self, page: u64) {
        self.tlb.forget(page);
    }

    /// VFs whose MSI the GuC raised since the last call.
    pub fn take_vf_irqs(&mut self) -> Vec<u32> {
        std::mem::take(&mut self.vf_irqs).into_iter().collect()
    }

    /// `HOST2GUC_SELF_CFG` from VF `vf` (by MMIO): `Ok(KLVs taken)` or the
    /// error code. As the PF's: an unknown key is taken as nothing
    /// (DATA0 0), a wrong length is `INVALID_KLV_DATA`, a change while the
    /// CT is enabled `INVALID_STATE`; `[MODEL]` a MEMIRQ address outside the
    /// VF's GGTT range is `INVALID_KLV_DATA`.
    pub(in crate::regfile::guc) fn vf_self_cfg(
        &mut self,
        vf: u32,
        msg: &[u32; 4],
    ) -> Result<u32, u32> {
        if abi::field(msg[0], abi::hxg::REQUEST_DATA0) != 0 {
            return Err(abi::error::INVALID_PARAMS);
        }
        let key = abi::field(msg[1], klv::KEY);
        let len = abi::field(msg[1], klv::LEN);
        let value = u64::from(msg[2]) | if len == 2 { u64::from(msg[3]) << 32 } else { 0 };
        let range = self.sriov().configs().get(&vf).and_then(|c| c.ggtt());
        let v = self.vf_ct(vf);
        if v.enabled() {
            return Err(abi::error::INVALID_STATE);
        }
        if key == MEMIRQ_STATUS_ADDR || key == MEMIRQ_SOURCE_ADDR {
            if len != MEMIRQ_LEN {
                return Err(abi::error::INVALID_KLV_DATA);
            }
            // The status vector is 16 bytes, the source byte one.
            let inside = range
                .is_some_and(|(s, e)| value >= s && value.checked_add(16).is_some_and(|v| v <= e));
            if !inside {
                return Err(abi::error::INVALID_KLV_DATA);
            }
            v.memirq[usize::from(key == MEMIRQ_SOURCE_ADDR)] = Some(value);
            return Ok(1);
        }
        let Some(i) = slot(key) else {
            return Ok(0);
        };
        if len != KEYS[i].1 {
            return Err(abi::error::INVALID_KLV_DATA);
        }
        v.ct.values[i] = Some(value);
        Ok(1)
    }

    /// `HOST2GUC_CONTROL_CTB` from VF `vf` (by MMIO), as the PF's; `[MODEL]`
    /// every buffer must lie in the VF's GGTT range (`INVALID_GGTT_ADDRESS`).
    pub(in crate::regfile::guc) fn vf_control_ctb(
        &mut self,
        vf: u32,
        msg: &[u32; 4],
        rec: &mut Recorder,
        bus: &mut dyn Bus,
    ) -> Result<u32, u32> {
        if abi::field(msg[0], abi::hxg::REQUEST_DATA0) != 0 {
            return Err(abi::error::INVALID_PARAMS);
        }
        let range = self.sriov().configs().get(&vf).and_then(|c| c.ggtt());
        match msg[1] {
            abi::action::CTB_CONTROL_DISABLE => {
                let v = self.vf_ct(vf);
                v.ct.enabled = None;
                v.ct.drop_traffic();
                Ok(0)
            }
            abi::action::CTB_CONTROL_ENABLE => {
                let v = self.vf_cts.entry(vf).or_insert_with(|| VfCt::new(vf));
                if v.enabled() {
                    return Err(abi::error::INVALID_STATE);
                }
                let l = check_layout(&v.ct, &mut self.tlb, rec, bus).map_err(|(code, _)| code)?;
                let inside = |(_, a, n): (&str, u64, u64)| {
                    range.is_some_and(|(s, e)| a >= s && a.saturating_add(n) <= e)
                };
                if !l.regions().into_iter().all(inside) {
                    return Err(abi::error::INVALID_GGTT_ADDRESS);
                }
                v.ct.enabled = Some(l);
                v.ct.h2g_head = 0;
                v.ct.g2h_tail = 0;
                v.ct.g2h_desc_tail = 0;
                v.ct.drop_traffic();
                Ok(0)
            }
            _ => Err(abi::error::INVALID_PARAMS),
        }
    }

    /// VF `vf` rang its doorbell: the GuC reads its H2G ring, answers, and
    /// passes on what is for the PF.
    pub fn vf_ct_doorbell(
        &mut self,
        vf: u32,
        now: Duration,
        rec: &mut Recorder,
        bus: &mut dyn Bus,
    ) {
        if self.hung {
            return;
        }
        let Some(v) = self.vf_cts.get_mut(&vf) else {
            return;
        };
        let Some(l) = v.ct.enabled else {
            return;
        };
        let mut wrote = 0;
        let cfg = self.ct.sriov.configs().get(&vf);
        let guest = super::submit::Guest {
            vf,
            // CAST: both below GUC_ID_MAX (`sriov.rs` checks).
            begin: cfg.map_or(0, |c| c.ctx_begin),
            num: cfg.map_or(0, |c| c.ctx_num),
            ggtt: cfg.and_then(|c| c.ggtt()),
        };
        // The one scheduler, lent to the VF's pass (module docs).
        std::mem::swap(&mut v.ct.submit, &mut self.ct.submit);
        v.ct.submit.guest = Some(guest);
        let mut gtt = Gtt::new(bus, &mut self.tlb);
        let _ = super::ct_pass(&mut v.ct, &l, &mut gtt, now, false, &mut wrote, rec);
        let _ = flush(&mut v.ct, &l, &mut gtt, &mut wrote, rec);
        v.ct.submit.guest = None;
        std::mem::swap(&mut v.ct.submit, &mut self.ct.submit);
        let to_pf = std::mem::take(&mut v.ct.to_pf);
        if wrote > 0 {
            let memirq = v.memirq;
            raise(vf, memirq, &mut gtt, rec);
            self.vf_irqs.insert(vf);
        }
        self.route_submit_events(rec, bus);
        if !to_pf.is_empty() {
            for body in to_pf {
                super::sriov::relay::from_vf_driver(&mut self.ct, &body, rec);
            }
            self.ct_service(now, rec, bus);
        }
    }

    /// The GuC sends VF `vf` the G2H message `hxg` (an EVENT) over its CT,
    /// if enabled; whether it was queued.
    pub(in crate::regfile::guc) fn vf_send(
        &mut self,
        vf: u32,
        hxg: &[u32],
        rec: &mut Recorder,
        bus: &mut dyn Bus,
    ) -> bool {
        let Some(v) = self.vf_cts.get_mut(&vf) else {
            return false;
        };
        let Some(l) = v.ct.enabled else {
            return false;
        };
        v.ct.backlog.push_back((g2h_message(0, hxg), 1));
        let mut wrote = 0;
        let mut gtt = Gtt::new(bus, &mut self.tlb);
        let _ = flush(&mut v.ct, &l, &mut gtt, &mut wrote, rec);
        if wrote > 0 {
            let memirq = v.memirq;
            raise(vf, memirq, &mut gtt, rec);
            self.vf_irqs.insert(vf);
        }
        true
    }
}

/// Sets VF `vf`'s memory-based interrupt for the GuC (module docs).
fn raise(vf: u32, memirq: [Option<u64>; 2], gtt: &mut Gtt, rec: &mut Recorder) {
    let [Some(status), Some(source)] = memirq else {
        return;
    };
    for (addr, what) in [
        (status + GUC2HOST_BYTE, "VF memirq status"),
        (source, "VF memirq source"),
    ] {
        if let Err(f) = gtt.write(addr, &[0xFF], what, rec) {
            rec.violation("guc_dma_fault", format!("VF {vf}: {}", f.0));
        }
    }
}
