//! What a table row maps to: a forcewake target ([`Wake`]) or a steering
//! class ([`Steering`]), as the decisions file and the generated driver code
//! name them.

use serde::Deserialize;
use std::fmt;
use xehpg_mock::seed_table::Group;

/// What an offset needs before it is accessed: nothing, or one domain awake.
///
/// The decisions file, the check's explanation files and its messages write
/// it `NONE`, `GT`, `RENDER`, `VD0`-`VD7`, `VE0`-`VE3` (`AON` reads as
/// `NONE`); the generated code as the driver's `Wake` value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(try_from = "String")]
pub enum Wake {
    /// No forcewake (always-on, reserved or outside the GT table).
    None,
    /// The GT domain.
    Gt,
    /// The RENDER domain.
    Render,
    /// VDBOX n (0..=7).
    Vd(u8),
    /// VEBOX n (0..=3).
    Ve(u8),
}

impl fmt::Display for Wake {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Wake::None => f.write_str("NONE"),
            Wake::Gt => f.write_str("GT"),
            Wake::Render => f.write_str("RENDER"),
            Wake::Vd(n) => write!(f, "VD{n}"),
            Wake::Ve(n) => write!(f, "VE{n}"),
        }
    }
}

impl TryFrom<String> for Wake {
    type Error = String;

    fn try_from(name: String) -> Result<Self, String> {
        Wake::from_name(&name)
    }
}

impl Wake {
    /// A wake by name (see the type's documentation).
    ///
    /// # Errors
    ///
    /// Any other name, including numbers past VD7 and VE3 (seed 000 lines
    /// 764-777 list eight VDBOX and four VEBOX domains).
    pub fn from_name(name: &str) -> Result<Wake, String> {
        let numbered = |prefix: &str, max: u8| {
            name.strip_prefix(prefix)
                .filter(|rest| rest.len() == 1)
                .and_then(|rest| rest.parse::<u8>().ok())
                .filter(|n| *n <= max)
        };
        Ok(match name {
            "NONE" | "AON" => Wake::None,
            "GT" => Wake::Gt,
            "RENDER" => Wake::Render,
            _ => match (numbered("VD", 7), numbered("VE", 3)) {
                (Some(n), _) => Wake::Vd(n),
                (_, Some(n)) => Wake::Ve(n),
                _ => {
                    return Err(format!(
                        "unknown wake target `{name}` (NONE, AON, GT, RENDER, VD0-7, VE0-3)"
                    ))
                }
            },
        })
    }

    /// The seed's own targets that need no decision: GT, RENDER, VDn and VEn
    /// are domains of the same name. `AON`, `RENDER*` and reserved rows are
    /// mapped by the decisions file.
    pub fn of_seed(w: xehpg_mock::seed_table::Wake) -> Option<Wake> {
        use xehpg_mock::seed_table::Wake as S;
        match w {
            S::Gt => Some(Wake::Gt),
            S::Render => Some(Wake::Render),
            S::Vd(n) => Some(Wake::Vd(n)),
            S::Ve(n) => Some(Wake::Ve(n)),
            S::Aon | S::RenderStar => None,
        }
    }

    /// The driver's value (`rust/gt/forcewake.rs`: `Wake`, `Domain`).
    pub fn rust(self) -> String {
        match self {
            Wake::None => "Wake::None".into(),
            Wake::Gt => "Wake::Domain(Domain::Gt)".into(),
            Wake::Render => "Wake::Domain(Domain::Render)".into(),
            Wake::Vd(n) => format!("Wake::Domain(Domain::Vdbox({n}))"),
            Wake::Ve(n) => format!("Wake::Domain(Domain::Vebox({n}))"),
        }
    }
}

/// The driver's steering class of a multicast range (`rust/gt/mcr.rs`:
/// `Steering`), spelled the same in the decisions file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
pub enum Steering {
    /// DSS (seed group DSS).
    Dss,
    /// GSLICE.
    Gslice,
    /// L3BANK.
    L3bank,
    /// LNCF.
    Lncf,
    /// MSLICE.
    Mslice,
    /// Read from the primary GAM only; no seed group of its own.
    Gam,
    /// SQIDI behind the SF selector (0xFD8).
    SqidiSf,
    /// SQIDI behind the MCFG selector (0xFD0).
    SqidiMcfg,
}

impl Steering {
    /// The seed group this class is, or `None` for GAM.
    pub fn group(self) -> Option<Group> {
        Some(match self {
            Steering::Dss => Group::Dss,
            Steering::Gslice => Group::Gslice,
            Steering::L3bank => Group::L3bank,
            Steering::Lncf => Group::Lncf,
            Steering::Mslice => Group::Mslice,
            Steering::SqidiSf | Steering::SqidiMcfg => Group::Sqidi,
            Steering::Gam => return None,
        })
    }

    /// The class a seed group takes without a decision; `None` for SQIDI,
    /// whose selector (SF or MCFG) the seed does not give per range.
    pub fn of_group(g: Group) -> Option<Steering> {
        Some(match g {
            Group::Dss => Steering::Dss,
            Group::Gslice => Steering::Gslice,
            Group::L3bank => Steering::L3bank,
            Group::Lncf => Steering::Lncf,
            Group::Mslice => Steering::Mslice,
            Group::Sqidi => return None,
        })
    }

    /// The driver's value.
    pub fn rust(self) -> String {
        format!("Steering::{self:?}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wake_names_round_trip_and_aon_is_none() {
        for n in ["NONE", "GT", "RENDER", "VD0", "VD7", "VE0", "VE3"] {
            assert_eq!(Wake::from_name(n).unwrap().to_string(), n);
        }
        assert_eq!(Wake::from_name("AON").unwrap(), Wake::None);
        for bad in ["VD8", "VE4", "VD", "VD01", "render", "RENDER*", ""] {
            assert!(Wake::from_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn only_plain_domains_map_without_a_decision() {
        use xehpg_mock::seed_table::Wake as S;
        assert_eq!(Wake::of_seed(S::Vd(5)), Some(Wake::Vd(5)));
        assert_eq!(Wake::of_seed(S::Ve(2)), Some(Wake::Ve(2)));
        assert_eq!(Wake::of_seed(S::Render), Some(Wake::Render));
        assert_eq!(Wake::of_seed(S::Aon), None);
        assert_eq!(Wake::of_seed(S::RenderStar), None);
    }

    #[test]
    fn rust_spellings() {
        assert_eq!(Wake::None.rust(), "Wake::None");
        assert_eq!(Wake::Gt.rust(), "Wake::Domain(Domain::Gt)");
        assert_eq!(Wake::Vd(3).rust(), "Wake::Domain(Domain::Vdbox(3))");
        assert_eq!(Wake::Ve(1).rust(), "Wake::Domain(Domain::Vebox(1))");
        assert_eq!(Steering::SqidiMcfg.rust(), "Steering::SqidiMcfg");
    }

    #[test]
    fn steering_and_groups() {
        assert_eq!(Steering::Gam.group(), None);
        assert_eq!(Steering::SqidiSf.group(), Some(Group::Sqidi));
        assert_eq!(Steering::of_group(Group::Sqidi), None);
        for g in Group::ALL.into_iter().filter(|g| *g != Group::Sqidi) {
            assert_eq!(Steering::of_group(g).and_then(Steering::group), Some(g));
        }
    }
}
