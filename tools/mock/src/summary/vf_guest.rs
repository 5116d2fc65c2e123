//! The summary's `vf_guest` object: each VF the mock served as its own PCI
//! function to a second VM (`device/guest_vf.rs`) and its GuC's MMIO
//! requests (`regfile/guc/vf_mmio.rs`), keyed by VF number, counted from
//! their trace events. Tests judge a VF driver's progress from it (what the
//! device saw and answered), never from the VF driver's own report.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde::Serialize;

use crate::trace::Event;

/// One VF's function as a second VM used it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct VfGuest {
    /// The counted happenings of [`Event::VfGuest`], by `what`.
    pub counts: BTreeMap<String, u64>,
    /// Blocked accesses by reason ([`Event::VfGuestBlocked`]).
    pub blocked: BTreeMap<String, u64>,
    /// Unmodelled BAR0 accesses, keyed `read@0x...` / `write@0x...`.
    pub unknown: BTreeMap<String, u64>,
    /// MMIO requests to the GuC by action (`0x5500`...) and result,
    /// keyed `0x5500:success`.
    pub guc_requests: BTreeMap<String, u64>,
    /// Messages the GuC read from the VF's CT, keyed
    /// `0xACTION:KIND:REPLY` (`0x5103:request:success`).
    pub ct_h2g: BTreeMap<String, u64>,
    /// Messages the GuC wrote into the VF's CT, by HXG type.
    pub ct_g2h: BTreeMap<String, u64>,
    /// The last interface version the GuC answered (`MATCH_VERSION`),
    /// `branch.major.minor.patch`.
    pub version: Option<String>,
    /// The last value the GuC told for each KLV key (`QUERY_SINGLE_KLV`),
    /// keyed by the key in hex.
    pub klvs: BTreeMap<String, u64>,
    /// GuC submission for the VF's contexts (`regfile/guc/ct/submit.rs`,
    /// "A VF's contexts"): its messages keyed `ACTION:RESULT`
    /// (`register:ok`), the GuC's Loads of its contexts `load:ACTION@ENGINE`
    /// (`load:start@rcs0`), its contexts' interrupts reported through memory
    /// `memirq:OUTCOME@ENGINE` (`memirq:reported@rcs0`), its contexts'
    /// watchdogs `watchdog:OUTCOME@ENGINE`, and the resets of the VF that
    /// forgot contexts of it (`forget`).
    pub submit: BTreeMap<String, u64>,
}

/// Counts one event into `m`.
pub fn count(m: &mut BTreeMap<u32, VfGuest>, ev: &Event) {
    match ev {
        Event::VfGuest { vf, what } => bump(&mut m.entry(*vf).or_default().counts, what),
        Event::GucCtH2g {
            vf,
            action,
            kind,
            reply,
            ..
        } if *vf != 0 => bump(
            &mut m.entry(*vf).or_default().ct_h2g,
            &format!("{:#x}:{kind}:{reply}", action.0),
        ),
        Event::GucCtG2h { vf, hxg, .. } if *vf != 0 => {
            bump(&mut m.entry(*vf).or_default().ct_g2h, hxg);
        }
        Event::GucSubmit {
            vf, action, result, ..
        } if *vf != 0 => bump(
            &mut m.entry(*vf).or_default().submit,
            &format!("{action}:{result}"),
        ),
        Event::GucSubmitLoad {
            vf, engine, action, ..
        } if *vf != 0 => bump(
            &mut m.entry(*vf).or_default().submit,
            &format!("load:{action}@{engine}"),
        ),
        Event::EngineMemirq {
            vf,
            engine,
            outcome,
            ..
        } => bump(
            &mut m.entry(*vf).or_default().submit,
            &format!("memirq:{outcome}@{engine}"),
        ),
        Event::EngineWatchdog {
            vf,
            engine,
            outcome,
            ..
        } if *vf != 0 => bump(
            &mut m.entry(*vf).or_default().submit,
            &format!("watchdog:{outcome}@{engine}"),
        ),
        Event::GucSubmitForget { vf, .. } if *vf != 0 => {
            bump(&mut m.entry(*vf).or_default().submit, "forget");
        }
        Event::VfGuestBlocked { vf, why, .. } => bump(&mut m.entry(*vf).or_default().blocked, why),
        Event::VfGuestUnknown { vf, op, offset } => bump(
            &mut m.entry(*vf).or_default().unknown,
            &format!("{}@{:#x}", op.name(), offset.0),
        ),
        Event::VfGuestGuc {
            vf,
            action,
            result,
            told,
            key,
            value,
            ..
        } => {
            let g = m.entry(*vf).or_default();
            bump(&mut g.guc_requests, &format!("{:#x}:{result}", action.0));
            match (*told, key, value) {
                ("version", _, Some(v)) => {
                    let v = v.0;
                    g.version = Some(format!(
                        "{}.{}.{}.{}",
                        (v >> 24) & 0xFF,
                        (v >> 16) & 0xFF,
                        (v >> 8) & 0xFF,
                        v & 0xFF
                    ));
                }
                ("klv", Some(k), Some(v)) => {
                    g.klvs.insert(format!("{:#x}", k.0), v.0);
                }
                _ => {}
            }
        }
        _ => {}
    }
}

fn bump(map: &mut BTreeMap<String, u64>, key: &str) {
    *map.entry(key.to_owned()).or_default() += 1;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::Hex;
    use crate::trace::Op;

    #[test]
    fn counts_by_vf_and_keeps_the_answers() {
        let mut m = BTreeMap::new();
        count(
            &mut m,
            &Event::VfGuest {
                vf: 1,
                what: "mmio_read",
            },
        );
        count(
            &mut m,
            &Event::VfGuest {
                vf: 1,
                what: "mmio_read",
            },
        );
        count(
            &mut m,
            &Event::VfGuest {
                vf: 2,
                what: "reset",
            },
        );
        count(
            &mut m,
            &Event::VfGuestUnknown {
                vf: 1,
                op: Op::Read,
                offset: Hex(0x2358),
            },
        );
        count(
            &mut m,
            &Event::VfGuestGuc {
                vf: 1,
                action: Hex(0x5500),
                result: "success",
                reply: vec![],
                told: "version",
                key: None,
                value: Some(Hex(0x0001_0D00)),
            },
        );
        count(
            &mut m,
            &Event::VfGuestGuc {
                vf: 1,
                action: Hex(0x5509),
                result: "success",
                reply: vec![],
                told: "klv",
                key: Some(Hex(2)),
                value: Some(Hex(0x1000_0000)),
            },
        );
        let one = &m[&1];
        assert_eq!(one.counts["mmio_read"], 2);
        assert_eq!(one.unknown["read@0x2358"], 1);
        assert_eq!(one.guc_requests["0x5500:success"], 1);
        assert_eq!(one.version.as_deref(), Some("0.1.13.0"));
        assert_eq!(one.klvs["0x2"], 0x1000_0000);
        assert_eq!(m[&2].counts["reset"], 1);
    }
}
