//! The SR-IOV test-control requests ([`super`]'s grammar): `vf:flr:N`,
//! `vf:check`, `guc:refuse-vf-cfg:N`, `guc:flr-stuck:N` and
//! `guc:bogus-vf-notify:N`, carried out by
//! [`crate::regfile::guc::ct::sriov`]; `vf:scratch:N` and `vf:keep-regs:N`,
//! carried out by [`crate::regfile::vf_regs`]; `vf:adverse:N:KEY`, carried
//! out by the GuC model; the relay requests `vf:relay:N:RID:W0,...`,
//! `vf:relay-raw:N:W0,...`, `vf:relay-burst:N:COUNT` and
//! `guc:relay-data0:N`, carried out by
//! [`crate::regfile::guc::ct::sriov::relay`]. They are a family of their
//! own, not [`super::GucRequest`]s, so the GuC's submission model does not
//! have to know them.
//!
//! The relay grammar: N (the VF) decimal, 1..=[`TOTAL_VFS`]; RID decimal,
//! or hex with `0x`, 32 bits; W hex (`0x` optional, up to 8 digits),
//! comma-separated: 1..=[`RELAY_MSG_MAX_LEN`] of them for `vf:relay`,
//! 0..=[`RAW_MAX_LEN`] for `vf:relay-raw` (none: `vf:relay-raw:N:`); COUNT
//! decimal, 1..=[`BURST_MAX`].

use std::collections::HashSet;
use std::fmt;
use std::sync::Mutex;
use std::sync::OnceLock;
use std::sync::PoisonError;

use super::decimal;
use super::hex;
use super::MAX_COUNT;
use crate::regfile::guc::ct::sriov::key::THRESHOLD_FIRST;
use crate::regfile::guc::ct::sriov::key::THRESHOLD_LAST;
use crate::regfile::guc::ct::sriov::relay::BURST_MAX;
use crate::regfile::guc::ct::sriov::relay::RAW_MAX_LEN;
use crate::regfile::guc::ct::sriov::relay::RELAY_MSG_MAX_LEN;
use crate::regfile::guc::ct::sriov::TOTAL_VFS;

/// Longest text after `vf:` of a relay request: the words at 11
/// characters each (`0x`, 8 digits, a comma) and the rest.
pub const RELAY_TEXT_MAX: usize = 40 + 11 * RAW_MAX_LEN;

/// The dwords of a relay request. A request stays small and `Copy` (the
/// control channel and `xehpg-vm` pass requests by value): the dwords are
/// interned, each distinct list kept once for the life of the process
/// ([`RelayWords::new`]), so equal lists are the same slice.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct RelayWords(&'static [u32]);

impl RelayWords {
    /// `words`, if there are at most [`RAW_MAX_LEN`] of them.
    pub fn new(words: &[u32]) -> Option<RelayWords> {
        static TABLE: OnceLock<Mutex<HashSet<&'static [u32]>>> = OnceLock::new();
        if words.len() > RAW_MAX_LEN {
            return None;
        }
        let mut table = TABLE
            .get_or_init(Mutex::default)
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(&kept) = table.get(words) {
            return Some(RelayWords(kept));
        }
        // Kept for good: a test sends a few distinct messages per run.
        let kept: &'static [u32] = Box::leak(words.to_vec().into_boxed_slice());
        table.insert(kept);
        Some(RelayWords(kept))
    }

    /// The dwords.
    pub fn as_slice(&self) -> &[u32] {
        self.0
    }

    /// Parses `W0,W1,...` (empty: none); at most `max` words.
    fn parse(text: &str, max: usize) -> Result<RelayWords, String> {
        let words = if text.is_empty() {
            Vec::new()
        } else {
            text.split(',')
                .map(|w| {
                    hex(w)
                        .ok()
                        .and_then(|v| u32::try_from(v).ok())
                        .ok_or_else(|| format!("word `{w}` is not a hex dword"))
                })
                .collect::<Result<Vec<u32>, String>>()?
        };
        if words.len() > max {
            return Err(format!("{} words; at most {max}", words.len()));
        }
        RelayWords::new(&words).ok_or_else(|| format!("{} words", words.len()))
    }
}

impl fmt::Debug for RelayWords {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl fmt::Display for RelayWords {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, w) in self.as_slice().iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{w:x}")?;
        }
        Ok(())
    }
}

/// An SR-IOV test-control request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SriovRequest {
    /// `vf:flr:N`: the host FLR'ed VF N (1..=63); the GuC notifies the PF.
    Flr {
        /// The VF.
        vf: u32,
    },
    /// `vf:check`: run the isolation checker now, leftovers included.
    Check,
    /// `vf:adverse:N:KEY`: VF N went past threshold KEY (hex, 8a03..=8a08)
    /// in a sampling interval; the GuC reports it if the PF set one.
    Adverse {
        /// The VF.
        vf: u32,
        /// The threshold's KLV key.
        key: u32,
    },
    /// `vf:scratch:N`: VF N's driver left a message in its VF-dedicated
    /// registers.
    Scratch {
        /// The VF.
        vf: u32,
    },
    /// `vf:keep-regs:N`: the next N VF FLRs leave the VF-dedicated
    /// registers as they are.
    KeepRegs {
        /// N.
        count: u64,
    },
    /// `guc:refuse-vf-cfg:N`: the next N `UPDATE_VF_CFG` fail.
    RefuseVfCfg {
        /// N.
        count: u64,
    },
    /// `guc:flr-stuck:N`: the next N `FLR_START` never complete.
    FlrStuck {
        /// N.
        count: u64,
    },
    /// `guc:bogus-vf-notify:N`: N notifications for a VF that cannot exist.
    BogusNotify {
        /// N.
        count: u64,
    },
    /// `vf:relay:N:RID:W0,...`: VF N's driver sent the relay message W
    /// with relay ID RID; the GuC forwards it to the PF
    /// (`GUC2PF_RELAY_FROM_VF`) and the VF waits for the answer.
    Relay {
        /// The VF.
        vf: u32,
        /// The relay ID.
        rid: u32,
        /// The relay message (1..=252 dwords).
        words: RelayWords,
    },
    /// `vf:relay-raw:N:W0,...`: a `GUC2PF_RELAY_FROM_VF` whose dwords
    /// after the header are exactly W (a broken GuC); nothing awaited.
    RelayRaw {
        /// The VF it stands for (the trace's).
        vf: u32,
        /// The dwords after the header (0..=254).
        words: RelayWords,
    },
    /// `vf:relay-burst:N:COUNT`: VF N's driver sends COUNT
    /// `VF2PF_HANDSHAKE` requests at once.
    RelayBurst {
        /// The VF.
        vf: u32,
        /// How many (1..=64).
        count: u32,
    },
    /// `guc:relay-data0:N`: the next N `GUC2PF_RELAY_FROM_VF` carry DATA0
    /// 1 (MBZ).
    RelayData0 {
        /// N.
        count: u64,
    },
}

impl SriovRequest {
    /// The names of the `guc:` switches this family owns.
    pub const GUC_SWITCHES: [&'static str; 4] = [
        "refuse-vf-cfg",
        "flr-stuck",
        "bogus-vf-notify",
        "relay-data0",
    ];

    /// Parses the words after `vf:` (`family` "vf") or an SR-IOV `guc:`
    /// switch (`family` "guc").
    pub(super) fn parse(family: &str, args: &[&str]) -> Result<SriovRequest, String> {
        let n = |text: &str| -> Result<u64, String> {
            let v = decimal(text)?;
            if (1..=MAX_COUNT).contains(&v) {
                Ok(v)
            } else {
                Err(format!("N {v} is not in 1..={MAX_COUNT}"))
            }
        };
        let vf = |text: &str| -> Result<u32, String> {
            let v = decimal(text)?;
            u32::try_from(v)
                .ok()
                .filter(|v| (1..=TOTAL_VFS).contains(v))
                .ok_or_else(|| format!("VF {v} is not in 1..={TOTAL_VFS}"))
        };
        match (family, args) {
            ("vf", ["flr", v]) => Ok(SriovRequest::Flr { vf: vf(v)? }),
            ("vf", ["scratch", v]) => Ok(SriovRequest::Scratch { vf: vf(v)? }),
            ("vf", ["keep-regs", c]) => Ok(SriovRequest::KeepRegs { count: n(c)? }),
            ("vf", ["check"]) => Ok(SriovRequest::Check),
            ("vf", ["adverse", v, k]) => {
                let raw = k.strip_prefix("0x").unwrap_or(k);
                let key = u32::from_str_radix(raw, 16)
                    .ok()
                    .filter(|k| (THRESHOLD_FIRST..=THRESHOLD_LAST).contains(k))
                    .ok_or_else(|| {
                        format!(
                            "KEY {k} is not a threshold ({THRESHOLD_FIRST:x}..={THRESHOLD_LAST:x})"
                        )
                    })?;
                Ok(SriovRequest::Adverse { vf: vf(v)?, key })
            }
            ("vf", ["relay", v, rid, words]) => {
                let rid = relay_id(rid)?;
                let words = RelayWords::parse(words, RELAY_MSG_MAX_LEN)?;
                if words.as_slice().is_empty() {
                    return Err("a relay message has at least one dword".into());
                }
                Ok(SriovRequest::Relay {
                    vf: vf(v)?,
                    rid,
                    words,
                })
            }
            ("vf", ["relay-raw", v, words]) => Ok(SriovRequest::RelayRaw {
                vf: vf(v)?,
                words: RelayWords::parse(words, RAW_MAX_LEN)?,
            }),
            ("vf", ["relay-burst", v, c]) => {
                let count = decimal(c)?;
                let count = u32::try_from(count)
                    .ok()
                    .filter(|c| (1..=BURST_MAX).contains(c))
                    .ok_or_else(|| format!("COUNT {count} is not in 1..={BURST_MAX}"))?;
                Ok(SriovRequest::RelayBurst { vf: vf(v)?, count })
            }
            ("guc", ["relay-data0", c]) => Ok(SriovRequest::RelayData0 { count: n(c)? }),
            ("guc", ["refuse-vf-cfg", c]) => Ok(SriovRequest::RefuseVfCfg { count: n(c)? }),
            ("guc", ["flr-stuck", c]) => Ok(SriovRequest::FlrStuck { count: n(c)? }),
            ("guc", ["bogus-vf-notify", c]) => Ok(SriovRequest::BogusNotify { count: n(c)? }),
            _ => Err(format!(
                "`{family}:{}` is not vf:flr:N, vf:scratch:N, vf:keep-regs:N, vf:check, \
                 vf:adverse:N:KEY, vf:relay:N:RID:W0,..., vf:relay-raw:N:W0,..., \
                 vf:relay-burst:N:COUNT, guc:refuse-vf-cfg:N, guc:flr-stuck:N, \
                 guc:bogus-vf-notify:N or guc:relay-data0:N",
                args.join(":")
            )),
        }
    }
}

/// A relay ID: decimal, or hex with `0x`; 32 bits.
fn relay_id(text: &str) -> Result<u32, String> {
    let v = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(_) => hex(text)?,
        None => decimal(text)?,
    };
    u32::try_from(v).map_err(|_| format!("RID {text} is not 32 bits"))
}

impl fmt::Display for SriovRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SriovRequest::Flr { vf } => write!(f, "vf:flr:{vf}"),
            SriovRequest::Check => f.write_str("vf:check"),
            SriovRequest::Adverse { vf, key } => write!(f, "vf:adverse:{vf}:{key:x}"),
            SriovRequest::Scratch { vf } => write!(f, "vf:scratch:{vf}"),
            SriovRequest::KeepRegs { count } => write!(f, "vf:keep-regs:{count}"),
            SriovRequest::RefuseVfCfg { count } => write!(f, "guc:refuse-vf-cfg:{count}"),
            SriovRequest::FlrStuck { count } => write!(f, "guc:flr-stuck:{count}"),
            SriovRequest::BogusNotify { count } => write!(f, "guc:bogus-vf-notify:{count}"),
            SriovRequest::Relay { vf, rid, words } => write!(f, "vf:relay:{vf}:{rid:#x}:{words}"),
            SriovRequest::RelayRaw { vf, words } => write!(f, "vf:relay-raw:{vf}:{words}"),
            SriovRequest::RelayBurst { vf, count } => write!(f, "vf:relay-burst:{vf}:{count}"),
            SriovRequest::RelayData0 { count } => write!(f, "guc:relay-data0:{count}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::Request;
    use super::*;

    #[test]
    fn sriov_requests_parse_and_print_back() {
        for (text, want) in [
            ("vf:flr:1", SriovRequest::Flr { vf: 1 }),
            ("vf:flr:63", SriovRequest::Flr { vf: 63 }),
            ("vf:check", SriovRequest::Check),
            (
                "vf:adverse:2:8a03",
                SriovRequest::Adverse { vf: 2, key: 0x8a03 },
            ),
            ("vf:scratch:63", SriovRequest::Scratch { vf: 63 }),
            ("vf:keep-regs:2", SriovRequest::KeepRegs { count: 2 }),
            (
                "guc:refuse-vf-cfg:2",
                SriovRequest::RefuseVfCfg { count: 2 },
            ),
            ("guc:flr-stuck:1", SriovRequest::FlrStuck { count: 1 }),
            (
                "guc:bogus-vf-notify:1000000",
                SriovRequest::BogusNotify { count: 1_000_000 },
            ),
        ] {
            assert_eq!(Request::parse(text), Ok(Request::Sriov(want)), "{text}");
            assert_eq!(want.to_string(), text);
            assert!(Request::could_become(text), "{text}");
        }
        // The submission model's switches are still theirs.
        assert!(matches!(
            Request::parse("guc:refuse-register:1"),
            Ok(Request::Guc(_))
        ));
        for bad in [
            "vf",
            "vf:",
            "vf:flr",
            "vf:flr:0",
            "vf:flr:64",
            "vf:flr:x",
            "vf:flr:1:2",
            "vf:check:1",
            "vf:scratch:0",
            "vf:adverse:2:8a02",
            "vf:adverse:2:8a09",
            "vf:adverse:0:8a03",
            "vf:adverse:2",
            "vf:scratch:64",
            "vf:keep-regs:0",
            "vf:keep-regs",
            "vf:pause:1",
            "guc:refuse-vf-cfg",
            "guc:refuse-vf-cfg:0",
            "guc:flr-stuck:1000001",
            "guc:bogus-vf-notify:-1",
        ] {
            assert!(Request::parse(bad).is_err(), "{bad:?} was accepted");
        }
        assert!(Request::could_become("vf:fl"));
        assert!(!Request::could_become("vf:flr 1"));
    }

    fn words(w: &[u32]) -> RelayWords {
        RelayWords::new(w).expect("at most 254")
    }

    #[test]
    fn relay_requests_parse_and_print_back() {
        let handshake = words(&[1, 0x10000]);
        for (text, want) in [
            (
                "vf:relay:1:0x5:1,10000",
                SriovRequest::Relay {
                    vf: 1,
                    rid: 5,
                    words: handshake,
                },
            ),
            (
                "vf:relay:63:0xffffffff:30101,0",
                SriovRequest::Relay {
                    vf: 63,
                    rid: u32::MAX,
                    words: words(&[0x30101, 0]),
                },
            ),
            (
                "vf:relay-raw:3:",
                SriovRequest::RelayRaw {
                    vf: 3,
                    words: words(&[]),
                },
            ),
            (
                "vf:relay-raw:3:3",
                SriovRequest::RelayRaw {
                    vf: 3,
                    words: words(&[3]),
                },
            ),
            (
                "vf:relay-burst:2:64",
                SriovRequest::RelayBurst { vf: 2, count: 64 },
            ),
            ("guc:relay-data0:2", SriovRequest::RelayData0 { count: 2 }),
        ] {
            assert_eq!(Request::parse(text), Ok(Request::Sriov(want)), "{text}");
            assert_eq!(want.to_string(), text);
            assert!(Request::could_become(text), "{text}");
        }
        // RID in decimal, words with 0x: the same request.
        assert_eq!(
            Request::parse("vf:relay:1:5:0x1,0x00010000"),
            Ok(Request::Sriov(SriovRequest::Relay {
                vf: 1,
                rid: 5,
                words: handshake
            }))
        );
        // The longest of each: 252 words of a relay, 254 raw.
        let long = |n: usize| vec!["0xffffffff"; n].join(",");
        let full = format!("vf:relay:63:0xffffffff:{}", long(252));
        let Ok(Request::Sriov(SriovRequest::Relay { words, .. })) = Request::parse(&full) else {
            panic!("252 words");
        };
        assert_eq!(words.as_slice(), [u32::MAX; 252]);
        assert!(Request::could_become(&full));
        let raw = format!("vf:relay-raw:63:{}", long(254));
        assert!(Request::parse(&raw).is_ok());
        assert!(Request::could_become(&raw));
        for bad in [
            "vf:relay:1:5:".to_string(),
            "vf:relay:0:5:1".into(),
            "vf:relay:64:5:1".into(),
            "vf:relay:1:x:1".into(),
            "vf:relay:1:4294967296:1".into(),
            "vf:relay:1:0x100000000:1".into(),
            "vf:relay:1:5:1,,2".into(),
            "vf:relay:1:5:123456789".into(),
            "vf:relay:1:5:g".into(),
            "vf:relay:1:5".into(),
            format!("vf:relay:1:5:{}", long(253)),
            format!("vf:relay-raw:1:{}", long(255)),
            "vf:relay-raw:1".into(),
            "vf:relay-raw:0:".into(),
            "vf:relay-burst:1:0".into(),
            "vf:relay-burst:1:65".into(),
            "vf:relay-burst:64:1".into(),
            "guc:relay-data0:0".into(),
            "guc:relay-data0".into(),
        ] {
            assert!(Request::parse(&bad).is_err(), "{bad:?} was accepted");
        }
        // Interned: requests stay small and `Copy`.
        assert!(std::mem::size_of::<SriovRequest>() <= 32);
        assert!(std::ptr::eq(
            words.as_slice(),
            RelayWords::new(&[u32::MAX; 252]).expect("252").as_slice()
        ));
        // Commas only in the relay requests; not past the longest.
        assert!(Request::could_become("vf:relay:1:5:1,"));
        assert!(!Request::could_become("vf:flr:1,2"));
        assert!(!Request::could_become("g2h:event:1,2"));
        assert!(!Request::could_become(&format!(
            "{raw}{}",
            ",ffffffff".repeat(5)
        )));
    }
}
