//! The GuC's command transport (CT) buffers: their registration through
//! `HOST2GUC_SELF_CFG` and their enable through `HOST2GUC_CONTROL_CTB`, both
//! MMIO messages ([`super::mmio`]).
//!
//! Sources: upstream `abi/guc_actions_abi.h` (the two actions' DOC tables),
//! `abi/guc_klvs_abi.h` ("GuC Self Config KLVs"), `abi/guc_communication_ctb_abi.h`
//! (descriptor), `abi/guc_errors_abi.h` (codes), `xe_guc_ct.c`
//! (`guc_ct_ctb_*_register`, `guc_ct_control_toggle`) and `xe_guc.c`
//! (`guc_self_cfg`); summarised in `research/anchor-xe.md` §5.2-5.5. The
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
//! Not yet modelled: reading H2G messages from the ring and writing G2H
//! replies (the next step of issue 11); an enabled CT only holds its
//! [`Layout`].

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
        let l = self.ct.layout().map_err(|missing| {
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
        let mut gtt = Gtt::new(bus, &mut self.tlb);
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
