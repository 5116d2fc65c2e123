//! The mapping table (`tools/check/uabi.toml`) and the checks it expands to.
//!
//! The table names, for each fact, the upstream C expression and the header
//! that defines it, and our two spellings of it: a C expression over
//! `include/xehpg_abi.h` (the driver) and a name of the mock's own ABI or
//! register table (the mock). Each side becomes its own case, so a
//! misreading on either side fails a test of its own. Items that have no
//! upstream counterpart are listed under `[[unmapped]]` with the reason; the
//! coverage cases ([`super::coverage`]) require every item to be in one of
//! the two.

use super::rust_consts::{self, Consts};
use anyhow::{bail, Context as _, Result};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};

/// The whole table file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mapping {
    /// Scalar facts: a define, a field mask, an enum value.
    #[serde(default)]
    pub constant: Vec<Constant>,
    /// Struct layouts.
    #[serde(default)]
    pub layout: Vec<Layout>,
    /// Registers of the mock's table.
    #[serde(default)]
    pub register: Vec<Register>,
    /// Items of ours that have no upstream counterpart, with the reason.
    #[serde(default)]
    pub unmapped: Vec<Unmapped>,
}

/// One scalar fact.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Constant {
    /// Case name stem, unique in the table.
    pub name: String,
    /// Upstream C expression.
    pub upstream: String,
    /// Upstream header that defines it, relative to the kernel tree.
    pub file: String,
    /// C expression over `include/xehpg_abi.h`, if the driver has it.
    pub driver: Option<String>,
    /// Name in the mock's ABI table (`module::NAME`), if the mock has it.
    pub mock: Option<String>,
    /// Name of an integer `const` of the driver's Rust sources, if the
    /// driver defines the fact there rather than in the header.
    pub rust: Option<String>,
}

/// One struct whose layout we describe.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Layout {
    /// Upstream struct tag.
    pub upstream: String,
    /// Upstream header that defines it, relative to the kernel tree.
    pub file: String,
    /// The driver's struct tag in `include/xehpg_abi.h`, if any.
    pub driver: Option<String>,
    /// Upstream member designator (`a.b` for union members) -> driver member.
    #[serde(default)]
    pub members: BTreeMap<String, String>,
    /// The mock's size constant, if any.
    pub mock_size: Option<String>,
    /// Upstream member designator -> the mock's byte-offset constant.
    #[serde(default)]
    pub mock: BTreeMap<String, String>,
}

/// One register (or array of registers) of `xehpg_mock::regs::REGISTERS`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Register {
    /// Name in the mock's table; `{n}` stands for the index of an array.
    pub mock: String,
    /// Upstream register: `NAME` or `NAME({n})` (an `XE_REG`), whose `.addr`
    /// is compared with the mock's offset.
    pub upstream: String,
    /// Upstream header that defines it, relative to the kernel tree.
    pub file: String,
    /// Number of array elements; absent for a single register.
    pub count: Option<u32>,
    /// Mock field -> upstream mask expression.
    #[serde(default)]
    pub fields: BTreeMap<String, String>,
    /// Mock field -> why it has no upstream mask.
    #[serde(default)]
    pub unmapped_fields: BTreeMap<String, String>,
}

/// An item of ours with no upstream counterpart.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Unmapped {
    /// `XEHPG_*` define, `struct` tag, `struct.member`, mock `module::NAME`
    /// or mock register name.
    pub name: String,
    /// Why it cannot be checked against upstream.
    pub reason: String,
}

/// Which of our two spellings a case checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// `include/xehpg_abi.h`.
    Driver,
    /// A `const` of the driver's Rust sources.
    DriverRust,
    /// The mock's own ABI and register table.
    Mock,
}

impl Side {
    fn label(self) -> &'static str {
        match self {
            Side::Driver => "driver",
            Side::DriverRust => "driver rust",
            Side::Mock => "mock",
        }
    }
}

/// One comparison: `ours == upstream`, both C expressions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assert {
    /// What is compared (`value`, `offset`, `size`, a field name).
    pub what: String,
    /// Our side.
    pub ours: String,
    /// Upstream's side.
    pub upstream: String,
}

/// One case: the comparisons of one fact on one side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    /// Case name, unique in the suite.
    pub name: String,
    /// Upstream header, relative to the kernel tree.
    pub file: String,
    /// The comparisons; the case passes when all hold.
    pub asserts: Vec<Assert>,
    /// Set when the case cannot be built (unknown mock name, ...): it fails
    /// with this reason without reaching the compiler.
    pub broken: Option<String>,
}

/// What our sides provide besides the header: the mock's ABI constants by
/// `module::NAME` and its registers, and the driver's Rust constants.
pub struct Sides<'a> {
    /// The driver's integer `const` items.
    pub rust: &'a Consts,
    /// The mock's ABI constants.
    pub values: &'a BTreeMap<String, u64>,
    /// The mock's register table.
    pub registers: &'a [MockRegister],
}

/// A register of the mock's table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MockRegister {
    /// Name.
    pub name: String,
    /// Byte offset in BAR0.
    pub offset: u64,
    /// Fields: name, high bit, low bit.
    pub fields: Vec<(String, u8, u8)>,
}

impl Mapping {
    /// Parses the table and rejects duplicate case names and empty entries.
    ///
    /// # Errors
    ///
    /// TOML syntax or schema errors, a constant with neither side, a name
    /// used twice.
    pub fn parse(text: &str) -> Result<Self> {
        let m: Mapping = toml::from_str(text).context("parsing the mapping table")?;
        let mut names = BTreeSet::new();
        for c in &m.constant {
            if c.driver.is_none() && c.mock.is_none() && c.rust.is_none() {
                bail!(
                    "constant {}: none of `driver`, `rust`, `mock` is given",
                    c.name
                );
            }
            if !names.insert(c.name.clone()) {
                bail!("constant {} is listed twice", c.name);
            }
        }
        for l in &m.layout {
            if !names.insert(format!("struct {}", l.upstream)) {
                bail!("layout {} is listed twice", l.upstream);
            }
            if l.driver.is_none() && !l.members.is_empty() {
                bail!("layout {}: `members` without a `driver` struct", l.upstream);
            }
        }
        let blank = m.unmapped.iter().map(|u| (&u.name, &u.reason)).chain(
            m.register
                .iter()
                .flat_map(|r| r.unmapped_fields.iter().map(move |f| (&r.mock, f.1))),
        );
        for (name, reason) in blank {
            if reason.trim().is_empty() {
                bail!("{name}: an unmapped item needs its reason");
            }
        }
        for r in &m.register {
            if !names.insert(format!("register {}", r.mock)) {
                bail!("register {} is listed twice", r.mock);
            }
            if r.mock.contains("{n}") != r.count.is_some() {
                bail!("register {}: `{{n}}` in the name goes with `count`", r.mock);
            }
        }
        Ok(m)
    }

    /// Every case of the table, in table order: constants, layouts,
    /// registers.
    pub fn checks(&self, mock: &Sides) -> Vec<Check> {
        let mut out = Vec::new();
        for c in &self.constant {
            let mut push = |side: Side, ours: Result<String>| {
                out.push(check(
                    format!("{} ({})", c.name, side.label()),
                    &c.file,
                    ours.map(|o| {
                        vec![Assert {
                            what: "value".into(),
                            ours: o,
                            upstream: c.upstream.clone(),
                        }]
                    }),
                ));
            };
            if let Some(d) = &c.driver {
                push(Side::Driver, Ok(d.clone()));
            }
            if let Some(r) = &c.rust {
                push(
                    Side::DriverRust,
                    rust_consts::expr_to_c(mock.rust, r).map_err(|e| anyhow::anyhow!(e)),
                );
            }
            if let Some(m) = &c.mock {
                push(Side::Mock, mock_value(mock, m));
            }
        }
        for l in &self.layout {
            layout_checks(l, mock, &mut out);
        }
        for r in &self.register {
            out.push(register_check(r, mock));
        }
        out
    }
}

fn check(name: String, file: &str, asserts: Result<Vec<Assert>>) -> Check {
    let (asserts, broken) = match asserts {
        Ok(a) => (a, None),
        Err(e) => (Vec::new(), Some(format!("{e:#}"))),
    };
    Check {
        name,
        file: file.to_string(),
        asserts,
        broken,
    }
}

/// The mock constant `name` as a C literal.
fn mock_value(mock: &Sides, name: &str) -> Result<String> {
    match mock.values.get(name) {
        Some(v) => Ok(format!("{v:#x}ULL")),
        None => {
            bail!("the mock has no ABI constant {name} (or the suite's table of them lacks it)")
        }
    }
}

fn layout_checks(l: &Layout, mock: &Sides, out: &mut Vec<Check>) {
    let up = format!("struct {}", l.upstream);
    let size = |ours: String| Assert {
        what: "size".into(),
        ours,
        upstream: format!("sizeof({up})"),
    };
    if let Some(d) = &l.driver {
        let ours = format!("struct {d}");
        out.push(check(
            format!("{up} size (driver)"),
            &l.file,
            Ok(vec![size(format!("sizeof({ours})"))]),
        ));
        for (member, theirs) in &l.members {
            out.push(check(
                format!("{}.{member} (driver)", l.upstream),
                &l.file,
                Ok(vec![
                    Assert {
                        what: "offset".into(),
                        ours: format!("offsetof({ours}, {theirs})"),
                        upstream: format!("offsetof({up}, {member})"),
                    },
                    Assert {
                        what: "size".into(),
                        ours: format!("sizeof((({ours} *)0)->{theirs})"),
                        upstream: format!("sizeof((({up} *)0)->{member})"),
                    },
                ]),
            ));
        }
    }
    if let Some(m) = &l.mock_size {
        out.push(check(
            format!("{up} size (mock)"),
            &l.file,
            mock_value(mock, m).map(|v| vec![size(v)]),
        ));
    }
    for (member, name) in &l.mock {
        out.push(check(
            format!("{}.{member} (mock)", l.upstream),
            &l.file,
            mock_value(mock, name).map(|v| {
                vec![Assert {
                    what: "offset".into(),
                    ours: v,
                    upstream: format!("offsetof({up}, {member})"),
                }]
            }),
        ));
    }
}

/// One case for a register or a whole array: offsets and field masks.
fn register_check(r: &Register, mock: &Sides) -> Check {
    let name = format!("register {} (mock)", r.mock.replace("{n}", "[n]"));
    let count = r.count.unwrap_or(1);
    let mut asserts = Vec::new();
    for n in 0..count {
        let ours = r.mock.replace("{n}", &n.to_string());
        let up = r.upstream.replace("{n}", &n.to_string());
        let Some(reg) = mock.registers.iter().find(|x| x.name == ours) else {
            return check(
                name,
                &r.file,
                Err(anyhow::anyhow!("the mock's register table has no {ours}")),
            );
        };
        asserts.push(Assert {
            what: format!("{ours} offset"),
            ours: format!("{:#x}ULL", reg.offset),
            upstream: format!("({up}).addr"),
        });
        for (field, hi, lo) in &reg.fields {
            if let Some(mask) = r.fields.get(field) {
                asserts.push(Assert {
                    what: format!("{ours}.{field}"),
                    ours: format!("{:#x}ULL", field_mask(*hi, *lo)),
                    upstream: mask.clone(),
                });
            }
        }
        // Fields named in the table must exist: a renamed mock field would
        // otherwise drop out of the check silently.
        for field in r.fields.keys().chain(r.unmapped_fields.keys()) {
            if !reg.fields.iter().any(|(f, _, _)| f == field) {
                return check(
                    name,
                    &r.file,
                    Err(anyhow::anyhow!("{ours} has no field {field} in the mock")),
                );
            }
        }
    }
    check(name, &r.file, Ok(asserts))
}

/// Mask of bits `hi..=lo`.
pub fn field_mask(hi: u8, lo: u8) -> u64 {
    let width = u32::from(hi.saturating_sub(lo)) + 1;
    let ones = if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    ones << lo
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mock_side() -> (BTreeMap<String, u64>, Vec<MockRegister>) {
        let values = BTreeMap::from([("ctl::ADS".to_string(), 4u64), ("css::SIZE".into(), 128)]);
        let regs = vec![
            MockRegister {
                name: "GUC_STATUS".into(),
                offset: 0xC000,
                fields: vec![("ukernel".into(), 15, 8), ("value".into(), 31, 0)],
            },
            MockRegister {
                name: "FLAG0".into(),
                offset: 0x100,
                fields: vec![],
            },
            MockRegister {
                name: "FLAG1".into(),
                offset: 0x104,
                fields: vec![],
            },
        ];
        (values, regs)
    }

    const TABLE: &str = r#"
        [[constant]]
        name = "GUC_CTL_ADS"
        upstream = "GUC_CTL_ADS"
        file = "x/fwif.h"
        driver = "XEHPG_GUC_CTL_ADS"
        mock = "ctl::ADS"

        [[constant]]
        name = "ONLY_DRIVER"
        upstream = "A << 1"
        file = "x/a.h"
        driver = "B"

        [[layout]]
        upstream = "uc_css_header"
        file = "x/uc.h"
        driver = "xehpg_css_header"
        mock_size = "css::SIZE"
        members = { "rsa_info.key_size_dw" = "key_size_dw" }
        mock = { "guc_info.time" = "css::NOPE" }

        [[register]]
        mock = "GUC_STATUS"
        upstream = "GUC_STATUS"
        file = "x/regs.h"
        fields = { ukernel = "GS_UKERNEL_MASK" }

        [[register]]
        mock = "FLAG{n}"
        upstream = "VF_SW_FLAG({n})"
        file = "x/regs.h"
        count = 2

        [[unmapped]]
        name = "XEHPG_GUC_ADS_PRIVATE_OFFSET"
        reason = "the driver's layout"
    "#;

    #[test]
    fn each_side_of_each_fact_is_its_own_case() {
        let m = Mapping::parse(TABLE).unwrap();
        let (values, registers) = mock_side();
        let rust = Consts::new();
        let side = Sides {
            rust: &rust,
            values: &values,
            registers: &registers,
        };
        let checks = m.checks(&side);
        let names: Vec<&str> = checks.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "GUC_CTL_ADS (driver)",
                "GUC_CTL_ADS (mock)",
                "ONLY_DRIVER (driver)",
                "struct uc_css_header size (driver)",
                "uc_css_header.rsa_info.key_size_dw (driver)",
                "struct uc_css_header size (mock)",
                "uc_css_header.guc_info.time (mock)",
                "register GUC_STATUS (mock)",
                "register FLAG[n] (mock)",
            ]
        );
        assert_eq!(checks[1].asserts[0].ours, "0x4ULL");
        assert_eq!(checks[1].asserts[0].upstream, "GUC_CTL_ADS");
        assert_eq!(checks[2].asserts[0].upstream, "A << 1");
        let member = &checks[4].asserts;
        assert_eq!(
            member[0].ours,
            "offsetof(struct xehpg_css_header, key_size_dw)"
        );
        assert_eq!(
            member[1].upstream,
            "sizeof(((struct uc_css_header *)0)->rsa_info.key_size_dw)"
        );
        assert_eq!(checks[5].asserts[0].ours, "0x80ULL");
        // An unknown mock name breaks its own case only.
        assert!(checks[6].broken.as_deref().unwrap().contains("css::NOPE"));
        assert!(checks.iter().filter(|c| c.broken.is_some()).count() == 1);
        // The whole-register field `value` has no mapping and is not compared.
        let status: Vec<_> = checks[7].asserts.iter().map(|a| a.what.as_str()).collect();
        assert_eq!(status, ["GUC_STATUS offset", "GUC_STATUS.ukernel"]);
        assert_eq!(checks[7].asserts[1].ours, "0xff00ULL");
        let flags = &checks[8].asserts;
        assert_eq!(flags.len(), 2);
        assert_eq!(flags[1].ours, "0x104ULL");
        assert_eq!(flags[1].upstream, "(VF_SW_FLAG(1)).addr");
        assert_eq!(m.unmapped[0].name, "XEHPG_GUC_ADS_PRIVATE_OFFSET");
    }

    #[test]
    fn malformed_tables_are_rejected() {
        let neither = "[[constant]]\nname = \"A\"\nupstream = \"A\"\nfile = \"f\"\n";
        assert!(Mapping::parse(neither)
            .unwrap_err()
            .to_string()
            .contains("none of"));
        let twice = format!("{0}driver = \"B\"\n{0}driver = \"C\"\n", neither);
        assert!(format!("{:#}", Mapping::parse(&twice).unwrap_err()).contains("twice"));
        let unknown = "[[constant]]\nname = \"A\"\nupstream = \"A\"\nfile = \"f\"\ndriver = \"B\"\ntypo = 1\n";
        assert!(Mapping::parse(unknown).is_err());
        let blank = "[[unmapped]]\nname = \"X\"\nreason = \" \"\n";
        assert!(format!("{:#}", Mapping::parse(blank).unwrap_err()).contains("reason"));
        let no_count = "[[register]]\nmock = \"F{n}\"\nupstream = \"F({n})\"\nfile = \"f\"\n";
        assert!(format!("{:#}", Mapping::parse(no_count).unwrap_err()).contains("count"));
    }

    #[test]
    fn a_missing_register_or_field_breaks_the_case() {
        let (values, registers) = mock_side();
        let rust = Consts::new();
        let side = Sides {
            rust: &rust,
            values: &values,
            registers: &registers,
        };
        let table = "[[register]]\nmock = \"NOPE\"\nupstream = \"N\"\nfile = \"f\"\n\
                     [[register]]\nmock = \"GUC_STATUS\"\nupstream = \"G\"\nfile = \"f\"\n\
                     fields = { renamed = \"X\" }\n";
        let checks = Mapping::parse(table).unwrap().checks(&side);
        assert!(checks[0].broken.as_deref().unwrap().contains("no NOPE"));
        assert!(checks[1]
            .broken
            .as_deref()
            .unwrap()
            .contains("no field renamed"));
    }

    #[test]
    fn a_driver_rust_constant_is_its_own_case() {
        let mut rust = Consts::new();
        rust_consts::scan(
            "const GUC_GGTT_TOP: u64 = 0xfee0_0000;\n",
            "rust/ggtt.rs",
            &mut rust,
        );
        let (values, registers) = mock_side();
        let side = Sides {
            rust: &rust,
            values: &values,
            registers: &registers,
        };
        let table = "[[constant]]\nname = \"T\"\nupstream = \"GUC_GGTT_TOP\"\nfile = \"f\"\n\
                     rust = \"GUC_GGTT_TOP\"\n\
                     [[constant]]\nname = \"U\"\nupstream = \"U\"\nfile = \"f\"\nrust = \"GONE\"\n";
        let checks = Mapping::parse(table).unwrap().checks(&side);
        assert_eq!(checks[0].name, "T (driver rust)");
        assert_eq!(checks[0].asserts[0].ours, "((__u64)(0xfee00000ULL))");
        assert!(checks[1]
            .broken
            .as_deref()
            .unwrap()
            .contains("no `const GONE`"));
    }

    #[test]
    fn masks() {
        assert_eq!(field_mask(15, 8), 0xFF00);
        assert_eq!(field_mask(0, 0), 1);
        assert_eq!(field_mask(63, 0), u64::MAX);
        assert_eq!(field_mask(31, 30), 0xC000_0000);
    }
}
