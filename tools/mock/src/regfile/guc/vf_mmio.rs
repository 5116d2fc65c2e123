//! A VF driver's MMIO messages to the GuC: the VF writes an HXG request
//! into its own `VF_SW_FLAG(0..3)` (0x190240, the VF's copy, `vf_regs`) and
//! rings `GUC_HOST_INTERRUPT` (0x1901F0) in its own BAR0; the GuC answers
//! in the same four registers (upstream `regs/xe_guc_regs.h`: both are
//! `XE_REG_OPTION_VF`, so a VF's driver uses them at the PF's offsets;
//! `xe_guc.c` `xe_guc_mmio_send_recv` polls `VF_SW_FLAG(0)` for the reply).
//!
//! The actions a VF may send before it has a CT (upstream
//! `abi/guc_actions_sriov_abi.h`, the DOC tables of each):
//!
//! - `VF2GUC_MATCH_VERSION` (0x5500) {hdr DATA0 MBZ, BRANCH 31:24 MAJOR
//!   23:16 MINOR 15:8 MBZ 7:0}: SUCCESS {hdr DATA0 MBZ, BRANCH MAJOR MINOR
//!   PATCH}. The GuC answers the VF interface version it implements:
//!   `[MODEL]` the firmware's submission (compatibility) version from its
//!   CSS header, branch 0 (upstream reads that field as the GuC's
//!   compatibility version, `xe_uc_fw.c` `guc_read_css_info`; the VF ABI
//!   text does not say how the firmware picks its answer, and upstream's VF
//!   compares the answer with what it wants itself, `xe_gt_sriov_vf.c`
//!   `vf_handshake_with_guc`). MBZ bits set: FAILURE `INVALID_PARAMS`.
//! - `VF2GUC_QUERY_SINGLE_KLV` (0x5509) {hdr, MBZ 31:16 KEY 15:0}: SUCCESS
//!   {hdr LENGTH 15:0, VALUE32, VALUE64, VALUE96} with the VF's own
//!   configuration as the PF pushed it (`PF2GUC_UPDATE_VF_CFG`,
//!   [`super::ct::sriov`]): `GGTT_START` 0x0001 and `GGTT_SIZE` 0x0002 and
//!   `LMEM_SIZE` 0x0003 (two dwords), `NUM_CONTEXTS` 0x0004 and
//!   `NUM_DOORBELLS` 0x0006 (one). A VF the PF never configured reads the
//!   defaults, 0 (`[MODEL]`). The global keys (`abi/guc_klvs_abi.h`, the
//!   "GuC Global Config KLVs" DOC) from the ABI version that has them:
//!   `GROUP_SCHEDULING_AVAILABLE` 0x3001 from 1.26 and
//!   `NUM_PAGING_ENGINE_INSTANCES` 0x3003 from 1.36, each one dword, 0
//!   (`[MODEL]`: the PF enables no scheduler groups, and Xe-HPG has no
//!   paging engine); `GMD_ID` 0x3000 is "MTL+ only", so not served here.
//!   Another key, or a global key older than the image: FAILURE `INVALID_KLV_KEY`
//!   (`[MODEL]`: the table lists no error for it; upstream's VF treats any
//!   failure as the query failing).
//! - `VF2GUC_VF_RESET` (0x5507) {hdr}: SUCCESS; the GuC forgets the VF's
//!   CT registration and traffic (`[MODEL]`, [`super::ct::vf`]).
//! - `HOST2GUC_SELF_CFG` (0x0508) and `HOST2GUC_CONTROL_CTB` (0x4509): the
//!   VF's CT and memory-based interrupt registration ([`super::ct::vf`]).
//! - `GET_HWCONFIG` (0x4100) {hdr, addr_lo, addr_hi, size}: as the PF's
//!   ([`super::mmio`]; upstream's VF asks for it by MMIO,
//!   `xe_guc_hwconfig.c`), the table written through the GGTT, where a
//!   VF's entries translate with the VF's function (`ggtt.rs`). `[MODEL]`:
//!   the destination must lie in the VF's own GGTT range, else FAILURE
//!   `INVALID_GGTT_ADDRESS` (a GuC that wrote where a VF asked would let
//!   it write any function's memory; the ABI text does not say).
//! - any other action: FAILURE `UNKNOWN_ACTION`.
//!
//! Not requests: a doorbell while `VF_SW_FLAG(0)` has ORIGIN GuC (the last
//! reply) is ignored, and a host message that is not a REQUEST is answered
//! FAILURE `INVALID_PARAMS` (as the PF's channel, [`super::mmio`]). The
//! reply is visible at once (`[MODEL]`: upstream polls for up to 50 ms). A
//! GuC that is not READY, or hung, does not answer.

use std::time::Duration;

use super::css::Css;
use super::ct::sriov::key;
use super::mmio::failure;
use super::mmio::success;
use super::Bus;
use super::Guc;
use crate::abi;
use crate::recorder::Recorder;
use crate::trace::Event;
use crate::trace::Hex;

/// `GUC_ACTION_VF2GUC_MATCH_VERSION`.
pub const MATCH_VERSION: u32 = 0x5500;
/// `GUC_ACTION_VF2GUC_VF_RESET`.
pub const VF_RESET: u32 = 0x5507;
/// `GUC_ACTION_VF2GUC_QUERY_SINGLE_KLV`.
pub const QUERY_SINGLE_KLV: u32 = 0x5509;
/// `XE_GUC_ACTION_GET_HWCONFIG`.
pub const GET_HWCONFIG: u32 = 0x4100;

/// `GUC_KLV_GLOBAL_CFG_GROUP_SCHEDULING_AVAILABLE_KEY`, from ABI 1.26.
pub const GROUP_SCHEDULING_AVAILABLE: u32 = 0x3001;
/// `GUC_KLV_GLOBAL_CFG_NUM_PAGING_ENGINE_INSTANCES_KEY`, from ABI 1.36.
pub const NUM_PAGING_ENGINE_INSTANCES: u32 = 0x3003;

/// `VF2GUC_MATCH_VERSION_REQUEST_MSG_1_MBZ`.
const MATCH_MBZ: u32 = 0xFF;
/// `VF2GUC_QUERY_SINGLE_KLV_REQUEST_MSG_1_MBZ`.
const QUERY_MBZ: u32 = 0xFFFF_0000;
/// `VF2GUC_QUERY_SINGLE_KLV_RESPONSE_MSG_0_LENGTH`.
const QUERY_LENGTH: u32 = 0xFFFF;

/// What a reply told, for the record.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Told {
    what: &'static str,
    key: Option<u32>,
    value: Option<u64>,
}

impl Guc {
    /// VF `vf` rang `GUC_HOST_INTERRUPT` with `msg` in its `VF_SW_FLAG`s:
    /// the reply to write there, or `None` if the GuC does not answer.
    pub fn vf_mmio(
        &mut self,
        vf: u32,
        msg: [u32; 4],
        now: Duration,
        rec: &mut Recorder,
        bus: &mut dyn Bus,
    ) -> Option<[u32; 4]> {
        if !self.ready(now) || self.hung {
            return None;
        }
        let action = abi::field(msg[0], abi::hxg::REQUEST_ACTION);
        if abi::field(msg[0], abi::hxg::ORIGIN) == abi::hxg::ORIGIN_GUC {
            return None;
        }
        let (reply, told) = if abi::field(msg[0], abi::hxg::TYPE) != abi::hxg::TYPE_REQUEST {
            (
                [failure(abi::error::INVALID_PARAMS), 0, 0, 0],
                Told::default(),
            )
        } else {
            match self.vf_serve(vf, action, &msg, rec, bus) {
                Ok((reply, told)) => (reply, told),
                Err(error) => ([failure(error), 0, 0, 0], Told::default()),
            }
        };
        let ok = abi::field(reply[0], abi::hxg::TYPE) == abi::hxg::TYPE_RESPONSE_SUCCESS;
        rec.emit(Event::VfGuestGuc {
            vf,
            action: Hex(action.into()),
            result: if ok { "success" } else { "failure" },
            reply: reply.iter().map(|&d| Hex(d.into())).collect(),
            told: told.what,
            key: told.key.map(|k| Hex(k.into())),
            value: told.value.map(Hex),
        });
        Some(reply)
    }

    /// Serves one request of VF `vf`: the reply and what it told, or the
    /// FAILURE's error code.
    fn vf_serve(
        &mut self,
        vf: u32,
        action: u32,
        msg: &[u32; 4],
        rec: &mut Recorder,
        bus: &mut dyn Bus,
    ) -> Result<([u32; 4], Told), u32> {
        let data0 = abi::field(msg[0], abi::hxg::REQUEST_DATA0);
        match action {
            MATCH_VERSION => {
                if data0 != 0 || msg[1] & MATCH_MBZ != 0 {
                    return Err(abi::error::INVALID_PARAMS);
                }
                let version = self.vf_interface_version();
                let told = Told {
                    what: "version",
                    key: None,
                    value: Some(version.into()),
                };
                Ok(([success(0), version, 0, 0], told))
            }
            QUERY_SINGLE_KLV => {
                if data0 != 0 || msg[1] & QUERY_MBZ != 0 {
                    return Err(abi::error::INVALID_PARAMS);
                }
                let k = msg[1] & !QUERY_MBZ;
                let cfg = self.sriov().configs().get(&vf).copied().unwrap_or_default();
                let (len, value) = match k {
                    key::GGTT_START => (2, cfg.ggtt_start),
                    key::GGTT_SIZE => (2, cfg.ggtt_size),
                    key::LMEM_SIZE => (2, cfg.lmem),
                    key::NUM_CONTEXTS => (1, cfg.ctx_num.into()),
                    key::NUM_DOORBELLS => (1, cfg.db_num.into()),
                    GROUP_SCHEDULING_AVAILABLE if self.vf_interface_version() >= 0x01_1A00 => {
                        (1, 0)
                    }
                    NUM_PAGING_ENGINE_INSTANCES if self.vf_interface_version() >= 0x01_2400 => {
                        (1, 0)
                    }
                    _ => return Err(abi::error::INVALID_KLV_KEY),
                };
                // CAST: the halves of a 64-bit value.
                let (lo, hi) = (value as u32, (value >> 32) as u32);
                let told = Told {
                    what: "klv",
                    key: Some(k),
                    value: Some(value),
                };
                let head = success(0) | (len & QUERY_LENGTH);
                Ok(([head, lo, if len > 1 { hi } else { 0 }, 0], told))
            }
            VF_RESET => {
                self.vf_forget(vf, rec);
                Ok(([success(0), 0, 0, 0], Told::default()))
            }
            abi::action::HOST2GUC_SELF_CFG => {
                let taken = self.vf_self_cfg(vf, msg)?;
                Ok(([success(taken), 0, 0, 0], Told::default()))
            }
            abi::action::HOST2GUC_CONTROL_CTB => {
                let data0 = self.vf_control_ctb(vf, msg, rec, bus)?;
                Ok(([success(data0), 0, 0, 0], Told::default()))
            }
            GET_HWCONFIG => {
                let (addr, size) = (u64::from(msg[1]) | u64::from(msg[2]) << 32, msg[3]);
                let own = self.sriov().configs().get(&vf).and_then(|c| c.ggtt());
                let inside = own.is_some_and(|(start, end)| {
                    addr >= start && addr.saturating_add(size.into()) <= end
                });
                if size != 0 && !inside {
                    return Err(abi::error::INVALID_GGTT_ADDRESS);
                }
                let data0 = self.get_hwconfig(msg, rec, bus)?;
                Ok(([success(data0), 0, 0, 0], Told::default()))
            }
            _ => Err(abi::error::UNKNOWN_ACTION),
        }
    }

    /// The VF interface version the GuC answers (module docs): branch 0,
    /// major.minor.patch of the running image's submission version; none
    /// known, 0.
    fn vf_interface_version(&self) -> u32 {
        self.image
            .as_ref()
            .and_then(|i| Css::parse(&i.bytes))
            .map_or(0, |c| c.submission_version & 0x00FF_FFFF)
    }
}
