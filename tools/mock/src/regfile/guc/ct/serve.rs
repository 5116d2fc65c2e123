//! The actions the GuC serves over CT ([`super`] module docs, "Actions").
//!
//! Sources: `abi/guc_actions_abi.h` (codes), `abi/guc_klvs_abi.h` (KLV
//! layout, the scheduling-policy and opt-in keys), `abi/guc_errors_abi.h`
//! (codes), `xe_guc_submit.c` `guc_init_global_schedule_policy` and
//! `xe_guc.c` `xe_guc_opt_in_features_enable` (the messages upstream sends),
//! `xe_guc_klv_helpers.c` `xe_guc_klv_count` (what a truncated KLV is).
//! The firmware's own checks are not published: what is beyond the ABI text
//! is marked `[MODEL]`.

use super::Ct;
use crate::abi;
use crate::abi::klv;
use crate::recorder::Recorder;
use crate::regfile::guc::ggtt::Gtt;
use crate::trace::Event;
use crate::trace::Hex;

/// Most dwords `OPT_IN_FEATURE_KLV` reads (`[MODEL]`: the ABI gives no
/// limit; upstream sends at most 16, `OPT_IN_MAX_DWORDS` in `xe_guc.c`).
pub const OPT_IN_MAX_DWORDS: u32 = 4096;

/// The violation kind of a request the firmware refuses for its content.
const BAD: &str = "ct_request_bad";

/// Serves `action` with the HXG message `hxg` (header first); `Ok(DATA0)`
/// or `Err(error code)`.
pub(super) fn serve(
    ct: &mut Ct,
    gtt: &mut Gtt,
    action: u32,
    hxg: &[u32],
    rec: &mut Recorder,
) -> Result<u32, u32> {
    match action {
        abi::action::UPDATE_SCHEDULING_POLICIES_KLV => policies(ct, hxg, rec),
        abi::action::OPT_IN_FEATURE_KLV => opt_in(ct, gtt, hxg, rec),
        // The context messages of GuC submission (`submit.rs`), the SR-IOV
        // PF messages (`sriov.rs`), SLPC, GuC RC and engine activity
        // (`slpc.rs`), TLB invalidation (`tlb.rs`).
        _ => super::submit::serve(ct, gtt, action, hxg, rec)
            .or_else(|| super::sriov::serve(ct, gtt, action, hxg, rec))
            .or_else(|| super::slpc::serve(ct, gtt, action, hxg, rec))
            .or_else(|| super::tlb::serve(ct, gtt, action, hxg, rec))
            .unwrap_or_else(|| {
                // Firmware without the action answers this too; the record
                // says which action the mock left unmodelled.
                rec.emit(Event::GucCtUnknownAction {
                    action: Hex(action.into()),
                });
                Err(abi::error::UNKNOWN_ACTION)
            }),
    }
}

/// The `size` dwords of a KLV buffer at GGTT address `addr` (none for 0, nothing read), as
/// the PF's KLV-carrying actions hand them over; `what` names the access.
///
/// # Errors
///
/// The GGTT fault's text.
pub(super) fn read_dwords(
    gtt: &mut Gtt,
    addr: u64,
    size: u32,
    what: &str,
    rec: &mut Recorder,
) -> Result<Vec<u32>, String> {
    let mut bytes = vec![0u8; 4 * size as usize];
    if size > 0 {
        gtt.read(addr, &mut bytes, what, rec).map_err(|f| f.0)?;
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// One KLV: key and value dwords (`GUC_KLV_0_KEY` 31:16, `GUC_KLV_0_LEN`
/// 15:0 in dwords).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Klv<'a> {
    pub key: u32,
    pub value: &'a [u32],
}

/// Splits `dw` into KLVs; `Err` names the KLV whose value runs past the
/// end (`xe_guc_klv_count`: a truncated KLV makes the whole list invalid).
pub(super) fn klvs(dw: &[u32]) -> Result<Vec<Klv<'_>>, String> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < dw.len() {
        let hdr = dw[at];
        let key = abi::field(hdr, klv::KEY);
        let len = abi::field(hdr, klv::LEN) as usize;
        let Some(value) = dw.get(at + 1..at + 1 + len) else {
            return Err(format!(
                "KLV {} (header {hdr:#010x}, key {key:#06x}) claims {len} value dwords, {} remain",
                out.len(),
                dw.len() - at - 1
            ));
        };
        out.push(Klv { key, value });
        at += 1 + len;
    }
    Ok(out)
}

/// Traces a KLV with a key the action does not know: skipped.
fn skip(action: u32, k: &Klv, rec: &mut Recorder) {
    rec.emit(Event::GucCtKlvSkipped {
        action: Hex(action.into()),
        key: Hex(k.key.into()),
        // CAST: at most 0xFFFF.
        len: k.value.len() as u32,
    });
}

/// `UPDATE_SCHEDULING_POLICIES_KLV` {hdr, KLVs}: the KLVs are checked
/// first and applied only if all are good (`[MODEL]`).
///
/// - a KLV running past the message: `MALFORMED_KLV`;
/// - `RENDER_COMPUTE_YIELD` (0x1001) of a length other than
///   `GUC_KLV_SCHEDULING_POLICIES_RENDER_COMPUTE_YIELD_LEN` (2), or a ratio
///   above 100 ("a percentage value between 0 and 100", `guc_klvs_abi.h`):
///   `INVALID_KLV_DATA`;
/// - another key: skipped, not counted (`guc_ct_klv_skipped`);
/// - SUCCESS with DATA0 = the KLVs applied.
fn policies(ct: &mut Ct, hxg: &[u32], rec: &mut Recorder) -> Result<u32, u32> {
    let action = abi::action::UPDATE_SCHEDULING_POLICIES_KLV;
    let body = hxg.get(1..).unwrap_or(&[]);
    // CAST: at most 254 dwords.
    let event = |klvs: usize, applied: u32, y: Option<(u32, u32)>, result| Event::GucCtPolicy {
        klvs: klvs as u32,
        applied,
        yield_ms: y.map(|y| y.0),
        yield_ratio: y.map(|y| y.1),
        result,
    };
    let list = match klvs(body) {
        Ok(l) => l,
        Err(why) => {
            rec.violation(BAD, format!("UPDATE_SCHEDULING_POLICIES_KLV: {why}"));
            rec.emit(event(0, 0, None, "rejected"));
            return Err(abi::error::MALFORMED_KLV);
        }
    };
    let mut applied = 0;
    let mut yield_policy = None;
    for k in &list {
        if k.key != klv::SCHEDULING_POLICIES_RENDER_COMPUTE_YIELD {
            skip(action, k, rec);
            continue;
        }
        let bad = match *k.value {
            [quantum, ratio] if ratio <= 100 => {
                yield_policy = Some((quantum, ratio));
                applied += 1;
                None
            }
            [_, ratio] => Some(format!("ratio {ratio}% is above 100")),
            _ => Some(format!(
                "length {} (GUC_KLV_SCHEDULING_POLICIES_RENDER_COMPUTE_YIELD_LEN is {})",
                k.value.len(),
                klv::SCHEDULING_POLICIES_RENDER_COMPUTE_YIELD_LEN
            )),
        };
        if let Some(why) = bad {
            rec.violation(
                BAD,
                format!("UPDATE_SCHEDULING_POLICIES_KLV RENDER_COMPUTE_YIELD (0x1001): {why}"),
            );
            rec.emit(event(list.len(), 0, None, "rejected"));
            return Err(abi::error::INVALID_KLV_DATA);
        }
    }
    if yield_policy.is_some() {
        ct.yield_policy = yield_policy;
    }
    rec.emit(event(list.len(), applied, yield_policy, "applied"));
    Ok(applied)
}

/// `OPT_IN_FEATURE_KLV` {hdr, addr_lo, addr_hi, num_dwords}: the KLVs are
/// read from that GGTT address through the GuC's GGTT and TLB, like the CT
/// buffers.
///
/// - a message of another length: `INVALID_PARAMS` (`[MODEL]`: upstream's
///   is always these four dwords);
/// - num_dwords above [`OPT_IN_MAX_DWORDS`]: `INVALID_PARAMS` (`[MODEL]`);
/// - any of the dwords not reachable: `INVALID_GGTT_ADDRESS`;
/// - a KLV running past num_dwords: `MALFORMED_KLV`;
/// - `EXT_CAT_ERR_TYPE` (0x4001) with a length other than 0
///   (`GUC_KLV_OPT_IN_FEATURE_EXT_CAT_ERR_TYPE_LEN`): `INVALID_KLV_DATA`;
/// - another key: skipped, not counted (`guc_ct_klv_skipped`; `[MODEL]`:
///   the other opt-in keys of `guc_klvs_abi.h` are for platforms after DG2);
/// - SUCCESS with DATA0 = the KLVs accepted; the features stay enabled
///   until a GuC reset.
fn opt_in(ct: &mut Ct, gtt: &mut Gtt, hxg: &[u32], rec: &mut Recorder) -> Result<u32, u32> {
    let action = abi::action::OPT_IN_FEATURE_KLV;
    let &[_, lo, hi, num] = hxg else {
        rec.violation(
            BAD,
            format!(
                "OPT_IN_FEATURE_KLV of {} dwords; it is {{hdr, addr_lo, addr_hi, num_dwords}}",
                hxg.len()
            ),
        );
        return Err(abi::error::INVALID_PARAMS);
    };
    let addr = u64::from(lo) | u64::from(hi) << 32;
    let result = |accepted: u32, ct: &Ct, result, rec: &mut Recorder| {
        rec.emit(Event::GucCtOptIn {
            addr: Hex(addr),
            num_dwords: num,
            accepted,
            // CAST: a handful of keys.
            opted_in: ct.opted_in.len() as u32,
            result,
        });
    };
    if num > OPT_IN_MAX_DWORDS {
        rec.violation(
            BAD,
            format!("OPT_IN_FEATURE_KLV num_dwords {num} is above {OPT_IN_MAX_DWORDS}"),
        );
        result(0, ct, "rejected", rec);
        return Err(abi::error::INVALID_PARAMS);
    }
    let dw = match read_dwords(gtt, addr, num, "OPT_IN_FEATURE_KLV buffer", rec) {
        Ok(dw) => dw,
        Err(why) => {
            rec.violation(BAD, why);
            result(0, ct, "rejected", rec);
            return Err(abi::error::INVALID_GGTT_ADDRESS);
        }
    };
    let list = match klvs(&dw) {
        Ok(l) => l,
        Err(why) => {
            rec.violation(BAD, format!("OPT_IN_FEATURE_KLV at GGTT {addr:#x}: {why}"));
            result(0, ct, "rejected", rec);
            return Err(abi::error::MALFORMED_KLV);
        }
    };
    let mut keys = Vec::new();
    for k in &list {
        if k.key != klv::OPT_IN_FEATURE_EXT_CAT_ERR_TYPE {
            skip(action, k, rec);
            continue;
        }
        // CAST: at most 0xFFFF.
        if k.value.len() as u32 != klv::OPT_IN_FEATURE_EXT_CAT_ERR_TYPE_LEN {
            rec.violation(
                BAD,
                format!(
                    "OPT_IN_FEATURE_KLV EXT_CAT_ERR_TYPE (0x4001) with {} value dwords; it has \
                     none (GUC_KLV_OPT_IN_FEATURE_EXT_CAT_ERR_TYPE_LEN)",
                    k.value.len()
                ),
            );
            result(0, ct, "rejected", rec);
            return Err(abi::error::INVALID_KLV_DATA);
        }
        keys.push(k.key);
    }
    ct.opted_in.extend(&keys);
    // CAST: at most OPT_IN_MAX_DWORDS.
    let accepted = keys.len() as u32;
    result(accepted, ct, "applied", rec);
    Ok(accepted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn klv_split() {
        let dw = [0x1001_0002, 80, 20, 0x4001_0000, 0];
        let l = klvs(&dw).expect("well formed");
        assert_eq!(
            l,
            [
                Klv {
                    key: 0x1001,
                    value: &[80, 20]
                },
                Klv {
                    key: 0x4001,
                    value: &[]
                },
                // A zero dword is a KLV {key 0, len 0} (xe_guc_klv_count).
                Klv { key: 0, value: &[] },
            ]
        );
        assert_eq!(klvs(&[]).expect("empty"), []);
        let e = klvs(&[0x4001_0000, 0x1001_0002, 80]).expect_err("truncated");
        assert!(
            e.contains("KLV 1") && e.contains("claims 2 value dwords, 1 remain"),
            "{e}"
        );
        assert!(klvs(&[0x1234_FFFF]).is_err());
    }
}
