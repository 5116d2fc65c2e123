//! The SR-IOV test-control requests ([`super`]'s grammar): `vf:flr:N`,
//! `vf:check`, `guc:refuse-vf-cfg:N`, `guc:flr-stuck:N` and
//! `guc:bogus-vf-notify:N`, carried out by
//! [`crate::regfile::guc::ct::sriov`]; `vf:scratch:N` and `vf:keep-regs:N`,
//! carried out by [`crate::regfile::vf_regs`]; `vf:adverse:N:KEY`, carried
//! out by the GuC model. They are a family of their own, not
//! [`super::GucRequest`]s, so the GuC's submission model does not have to
//! know them.

use std::fmt;

use super::decimal;
use super::MAX_COUNT;
use crate::regfile::guc::ct::sriov::key::THRESHOLD_FIRST;
use crate::regfile::guc::ct::sriov::key::THRESHOLD_LAST;
use crate::regfile::guc::ct::sriov::TOTAL_VFS;

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
}

impl SriovRequest {
    /// The names of the `guc:` switches this family owns.
    pub const GUC_SWITCHES: [&'static str; 3] = ["refuse-vf-cfg", "flr-stuck", "bogus-vf-notify"];

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
            ("guc", ["refuse-vf-cfg", c]) => Ok(SriovRequest::RefuseVfCfg { count: n(c)? }),
            ("guc", ["flr-stuck", c]) => Ok(SriovRequest::FlrStuck { count: n(c)? }),
            ("guc", ["bogus-vf-notify", c]) => Ok(SriovRequest::BogusNotify { count: n(c)? }),
            _ => Err(format!(
                "`{family}:{}` is not vf:flr:N, vf:scratch:N, vf:keep-regs:N, vf:check, \
                 vf:adverse:N:KEY, guc:refuse-vf-cfg:N, guc:flr-stuck:N or \
                 guc:bogus-vf-notify:N",
                args.join(":")
            )),
        }
    }
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
}
