//! Compares the driver's register definitions with the mock's register table.
//!
//! For every register name both define: the offsets must match (where the
//! driver's offset is a fixed number, directly or through an alias), every
//! field both define must cover the same bits, and a field only one side
//! defines fails unless the register is allow-listed. One [`Case`] per shared
//! register; registers the comparison cannot fully judge get notes.

use super::parse::{parse_int, Field, Location, Register};
use crate::report::Case;
use anyhow::{bail, Result};
use serde::Deserialize;

/// A driver register and the file it came from.
#[derive(Debug, Clone)]
pub struct Defined {
    /// File, relative to the repository.
    pub file: String,
    /// The definition.
    pub reg: Register,
}

/// A register of the mock's table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MockReg {
    /// Name.
    pub name: String,
    /// BAR0 offset.
    pub offset: u64,
    /// Fields.
    pub fields: Vec<Field>,
}

/// `regs-allow.toml`: registers whose fields may differ, each with a reason.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Allow {
    #[serde(default, rename = "register")]
    entries: Vec<AllowEntry>,
}

/// `[[register]]`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
struct AllowEntry {
    name: String,
    reason: String,
}

impl Allow {
    /// Parses the file; every entry needs a reason.
    pub fn parse(text: &str) -> Result<Self> {
        let allow: Allow = toml::from_str(text)?;
        if let Some(e) = allow.entries.iter().find(|e| e.reason.trim().is_empty()) {
            bail!("register {} needs a reason", e.name);
        }
        Ok(allow)
    }

    fn reason(&self, name: &str) -> Option<&str> {
        self.entries
            .iter()
            .find(|e| e.name == name)
            .map(|e| e.reason.as_str())
    }
}

/// Verdicts and remarks of one comparison.
#[derive(Debug, Default)]
pub struct Comparison {
    /// One per shared register (or one failure if none are shared).
    pub cases: Vec<Case>,
    /// Remarks: what was not compared, one-sided registers, stale allow entries.
    pub notes: Vec<String>,
}

/// Fixed register arrays with literal sizes become one register per element, named
/// `NAME0`, `NAME1`, ... as the mock names them; everything else is kept as is.
pub fn expand_arrays(driver: &[Defined]) -> Vec<Defined> {
    let mut out = Vec::new();
    for d in driver {
        let size = d.reg.array.as_ref().and_then(|a| parse_int(&a.size));
        let (Location::Fixed(_), Some(size)) = (&d.reg.location, size) else {
            out.push(d.clone());
            continue;
        };
        for i in 0..size {
            match element_offset(&d.reg, &i.to_string()) {
                Ok(off) => {
                    let mut reg = d.reg.clone();
                    reg.name = format!("{}{i}", d.reg.name);
                    reg.location = Location::Fixed(off);
                    reg.array = None;
                    out.push(Defined {
                        file: d.file.clone(),
                        reg,
                    });
                }
                // A non-literal stride: leave the array for the "not compared" note.
                Err(_) => {
                    out.push(d.clone());
                    break;
                }
            }
        }
    }
    out
}

/// Compares `driver` with `mock`.
pub fn compare(driver: &[Defined], mock: &[MockReg], allow: &Allow) -> Comparison {
    // Aliases resolve against the definitions as written (`original`); array elements carry
    // their own fixed offsets after expansion.
    let original = driver;
    let expanded = expand_arrays(driver);
    let driver = expanded.as_slice();
    let mut out = Comparison::default();
    let mut unresolved = Vec::new();
    for d in driver {
        let Some(m) = mock.iter().find(|m| m.name == d.reg.name) else {
            continue;
        };
        let dupes = driver.iter().filter(|o| o.reg.name == d.reg.name).count();
        let name = match dupes {
            1 => d.reg.name.clone(),
            _ => format!("{} ({}:{})", d.reg.name, d.file, d.reg.line),
        };
        let mut problems = Vec::new();
        match offset_of(&d.reg, original, 0) {
            Ok(off) if off != m.offset => problems.push(format!(
                "offset {off:#x} in the driver, {:#x} in the mock",
                m.offset
            )),
            Ok(_) => {}
            Err(why) => unresolved.push(format!("{} ({why})", d.reg.name)),
        }
        problems.extend(field_problems(
            &d.reg.fields,
            &m.fields,
            allow.reason(&d.reg.name),
            &mut out.notes,
            &name,
        ));
        out.cases.push(verdict(name, d, problems));
    }
    out.cases = per_array(out.cases, original);
    if out.cases.is_empty() {
        out.cases.push(Case::fail(
            "shared registers",
            format!(
                "no register name is defined by both the driver ({}) and the mock ({}): the check compares nothing",
                driver.len(),
                mock.len()
            ),
        ));
    }
    if !unresolved.is_empty() {
        out.notes
            .push(format!("offset not compared: {}", unresolved.join(", ")));
    }
    out.notes.extend(one_sided_notes(driver, mock, allow));
    out
}

/// The elements of one register array are one case (the array is one
/// definition); each element is one of its assertions.
fn per_array(cases: Vec<Case>, original: &[Defined]) -> Vec<Case> {
    let array_of = |name: &str| {
        original
            .iter()
            .filter(|d| d.reg.array.is_some())
            .map(|d| d.reg.name.as_str())
            .find(|a| {
                name.strip_prefix(a)
                    .is_some_and(|i| !i.is_empty() && i.bytes().all(|b| b.is_ascii_digit()))
            })
    };
    let mut out: Vec<(Option<&str>, Vec<Case>)> = Vec::new();
    for c in cases {
        let group = array_of(&c.name);
        match out.last_mut() {
            Some((g, parts)) if group.is_some() && *g == group => parts.push(c),
            _ => out.push((group, vec![c])),
        }
    }
    out.into_iter()
        .flat_map(|(group, mut parts)| match group {
            Some(array) => vec![Case::combine(format!("{array}[]"), parts)],
            None => std::mem::take(&mut parts),
        })
        .collect()
}

fn verdict(name: String, d: &Defined, problems: Vec<String>) -> Case {
    if problems.is_empty() {
        return Case::pass(name);
    }
    let place = format!("defined at {}:{}", d.file, d.reg.line);
    let reason = problems.join("; ");
    // Several problems read better one per line; one is already on the verdict line.
    let listed = if problems.len() > 1 {
        problems
    } else {
        Vec::new()
    };
    Case::fail(name, reason).with_details(listed.into_iter().chain([place]))
}

/// Bit mismatches, and one-sided fields unless `allowed` (then a note instead).
fn field_problems(
    driver: &[Field],
    mock: &[Field],
    allowed: Option<&str>,
    notes: &mut Vec<String>,
    reg: &str,
) -> Vec<String> {
    let mut problems = Vec::new();
    for f in driver {
        if let Some(m) = mock.iter().find(|m| m.name == f.name) {
            if (m.hi, m.lo) != (f.hi, f.lo) {
                problems.push(format!(
                    "field {}: {}:{} in the driver, {}:{} in the mock",
                    f.name, f.hi, f.lo, m.hi, m.lo
                ));
            }
        }
    }
    let only = |a: &[Field], b: &[Field]| -> Vec<String> {
        a.iter()
            .filter(|f| !b.iter().any(|g| g.name == f.name))
            .map(|f| format!("{} ({}:{})", f.name, f.hi, f.lo))
            .collect()
    };
    for (side, names) in [("driver", only(driver, mock)), ("mock", only(mock, driver))] {
        if names.is_empty() {
            continue;
        }
        let text = format!("fields only in the {side}: {}", names.join(", "));
        match allowed {
            Some(reason) => notes.push(format!("{reg}: {text} (allowed: {reason})")),
            None => problems.push(text),
        }
    }
    problems
}

/// The driver's offset of `reg`, or why it has none to compare.
fn offset_of(reg: &Register, all: &[Defined], depth: u8) -> Result<u64, String> {
    const MAX_ALIAS_DEPTH: u8 = 8;
    if depth > MAX_ALIAS_DEPTH {
        return Err("alias chain too long".into());
    }
    match (&reg.location, &reg.array) {
        (Location::Fixed(off), None) => Ok(*off),
        (Location::Fixed(_), Some(_)) => Err("register array".into()),
        (Location::Relative { base, .. }, _) => Err(format!("relative to {base}")),
        (
            Location::Alias {
                base: Some(base), ..
            },
            _,
        ) => Err(format!("alias relative to {base}")),
        (Location::Alias { target, index, .. }, _) => {
            let Some(t) = all.iter().find(|d| &d.reg.name == target) else {
                return Err(format!(
                    "alias of {target}, which the driver does not define"
                ));
            };
            match index {
                None => offset_of(&t.reg, all, depth + 1),
                Some(idx) => element_offset(&t.reg, idx),
            }
        }
    }
}

/// Offset of element `idx` of the fixed register array `array`.
fn element_offset(array: &Register, idx: &str) -> Result<u64, String> {
    let (Location::Fixed(base), Some(spec)) = (&array.location, &array.array) else {
        return Err(format!(
            "alias of {}[{idx}], which is not a fixed register array",
            array.name
        ));
    };
    let stride = match &spec.stride {
        Some(s) => parse_int(s),
        None => array.storage_bytes(),
    };
    match (parse_int(idx), stride) {
        (Some(i), Some(s)) => Ok(base + i * s),
        _ => Err(format!(
            "alias of {}[{idx}] with a non-literal index or stride",
            array.name
        )),
    }
}

/// Registers only one side defines, and allow-list entries that match nothing.
fn one_sided_notes(driver: &[Defined], mock: &[MockReg], allow: &Allow) -> Vec<String> {
    const SHOWN: usize = 30;
    let list = |names: Vec<&str>| -> String {
        let more = names.len().saturating_sub(SHOWN);
        let mut text = names.into_iter().take(SHOWN).collect::<Vec<_>>().join(", ");
        if more > 0 {
            text.push_str(&format!(" and {more} more"));
        }
        text
    };
    let driver_only: Vec<&str> = driver
        .iter()
        .map(|d| d.reg.name.as_str())
        .filter(|n| !mock.iter().any(|m| m.name == *n))
        .collect();
    let mock_only: Vec<&str> = mock
        .iter()
        .map(|m| m.name.as_str())
        .filter(|n| !driver.iter().any(|d| d.reg.name == *n))
        .collect();
    let mut notes = Vec::new();
    if !driver_only.is_empty() {
        notes.push(format!(
            "{} driver registers the mock does not define: {}",
            driver_only.len(),
            list(driver_only)
        ));
    }
    if !mock_only.is_empty() {
        notes.push(format!(
            "{} mock registers the driver does not define: {}",
            mock_only.len(),
            list(mock_only)
        ));
    }
    for name in allow.entries.iter().map(|e| &e.name) {
        let shared =
            driver.iter().any(|d| &d.reg.name == name) && mock.iter().any(|m| &m.name == name);
        if !shared {
            notes.push(format!(
                "regs-allow.toml lists {name}, which is not a shared register (stale entry?)"
            ));
        }
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Status;
    use crate::suites::regs::parse::registers_in;

    fn driver(src: &str) -> Vec<Defined> {
        registers_in(src)
            .unwrap()
            .into_iter()
            .map(|reg| Defined {
                file: "rust/regs.rs".into(),
                reg,
            })
            .collect()
    }

    fn field(name: &str, hi: u8, lo: u8) -> Field {
        Field {
            name: name.into(),
            hi,
            lo,
        }
    }

    fn mock(name: &str, offset: u64, fields: Vec<Field>) -> MockReg {
        MockReg {
            name: name.into(),
            offset,
            fields,
        }
    }

    #[test]
    fn matching_registers_pass_and_one_sided_registers_are_noted() {
        let d = driver("register! { A(u32) @ 0x10 { 7:0 x; } ONLY_D(u32) @ 0x20 { 0:0 y; } }");
        let m = [
            mock("A", 0x10, vec![field("x", 7, 0)]),
            mock("ONLY_M", 0x30, vec![]),
        ];
        let c = compare(&d, &m, &Allow::default());
        assert_eq!(c.cases, vec![Case::pass("A")]);
        assert!(c
            .notes
            .iter()
            .any(|n| n.contains("driver registers the mock does not define: ONLY_D")));
        assert!(c
            .notes
            .iter()
            .any(|n| n.contains("mock registers the driver does not define: ONLY_M")));
    }

    #[test]
    fn offset_bits_and_one_sided_fields_fail() {
        let d = driver("register! { A(u32) @ 0x10 { 7:0 x; 8:8 d; } }");
        let m = [mock("A", 0x14, vec![field("x", 7, 1), field("m", 9, 9)])];
        let c = compare(&d, &m, &Allow::default());
        let Status::Fail(reason) = &c.cases[0].status else {
            panic!("expected a failure: {:?}", c.cases);
        };
        assert_eq!(
            reason,
            "offset 0x10 in the driver, 0x14 in the mock; field x: 7:0 in the driver, 7:1 in the mock; \
             fields only in the driver: d (8:8); fields only in the mock: m (9:9)"
        );
        assert!(c.cases[0]
            .details
            .last()
            .unwrap()
            .contains("rust/regs.rs:1"));
    }

    #[test]
    fn allow_list_excuses_one_sided_fields_only() {
        let d = driver("register! { A(u32) @ 0x10 { 7:0 x; 8:8 d; } }");
        let allow = Allow::parse(
            "# comment\n[[register]]\nname = \"A\"\nreason = \"mock models only x\"\n\
             [[register]]\nname = \"GONE\"\nreason = \"old entry\"\n",
        )
        .unwrap();
        let ok = compare(&d, &[mock("A", 0x10, vec![field("x", 7, 0)])], &allow);
        assert_eq!(ok.cases, vec![Case::pass("A")]);
        assert!(ok.notes.iter().any(
            |n| n.contains("fields only in the driver: d (8:8) (allowed: mock models only x)")
        ));
        assert!(ok.notes.iter().any(|n| n.contains("GONE")));
        let bad = compare(&d, &[mock("A", 0x10, vec![field("x", 6, 0)])], &allow);
        assert!(bad.cases[0].is_failure(), "bit mismatch is never allowed");
    }

    #[test]
    fn allow_entries_need_reasons() {
        assert!(Allow::parse("[[register]]\nname = \"A\"\n").is_err());
        assert!(Allow::parse("[[register]]\nname = \"A\"\nreason = \"  \"\n").is_err());
        assert!(Allow::parse("[[register]]\nname = \"A\"\nwhy = \"x\"\n").is_err());
        assert_eq!(Allow::parse("# nothing\n").unwrap(), Allow::default());
    }

    #[test]
    fn aliases_resolve_and_relative_registers_are_noted() {
        let d = driver(
            "register! { S(u32)[16, stride = 8] @ 0x100 { 31:0 v; } C(u16)[4] @ 0x200 { 15:0 v; }
             FW(u32) => S[3] { 7:0 s; } H(u16) => C[2] { 0:0 b; } BOOT(u32) => FW { 0:0 d; }
             R(u32) @ Base + 0x4 { 0:0 e; } }",
        );
        let m = [
            mock("FW", 0x118, vec![field("s", 7, 0)]),
            mock("H", 0x204, vec![field("b", 0, 0)]),
            mock("BOOT", 0x118, vec![field("d", 0, 0)]),
            mock("R", 0x4, vec![field("e", 0, 0)]),
            mock("S0", 0x100, vec![field("v", 31, 0)]),
            mock("S15", 0x178, vec![field("v", 31, 0)]),
        ];
        let c = compare(&d, &m, &Allow::default());
        assert!(c.cases.iter().all(|c| !c.is_failure()), "{:?}", c.cases);
        // S0 and S15 are two assertions of the one case `S[]`.
        assert_eq!(c.cases.len(), 5);
        assert!(c.notes[0].starts_with("offset not compared: R (relative to Base)"));
    }

    #[test]
    fn nothing_shared_is_a_failure() {
        let d = driver("register! { A(u32) @ 0x10 { 0:0 x; } }");
        let c = compare(&d, &[mock("B", 0x10, vec![])], &Allow::default());
        assert_eq!(c.cases.len(), 1);
        assert_eq!(c.cases[0].name, "shared registers");
        assert!(c.cases[0].is_failure());
    }

    #[test]
    fn duplicate_driver_names_are_told_apart() {
        let d = driver(
            "register! { A(u32) @ 0x10 { 0:0 x; } }\nregister! { A(u32) @ 0x14 { 0:0 x; } }",
        );
        let c = compare(
            &d,
            &[mock("A", 0x10, vec![field("x", 0, 0)])],
            &Allow::default(),
        );
        assert_eq!(c.cases[0], Case::pass("A (rust/regs.rs:1)"));
        assert!(c.cases[1].is_failure() && c.cases[1].name == "A (rust/regs.rs:2)");
    }

    #[test]
    fn an_array_is_one_case_with_an_assertion_per_element() {
        let text = "register! { pub(crate) VF_SW_FLAG(u32)[2] @ 0x00190240 { 31:0 value; } \
                    pub(crate) ONE(u32) @ 0x100 { 31:0 value; } }";
        let driver: Vec<Defined> = super::super::parse::registers_in(text)
            .expect("parses")
            .into_iter()
            .map(|reg| Defined {
                file: "x.rs".into(),
                reg,
            })
            .collect();
        let value = || vec![field("value", 31, 0)];
        let c = compare(
            &driver,
            &[
                mock("VF_SW_FLAG0", 0x190240, value()),
                mock("VF_SW_FLAG1", 0x190248, value()),
                mock("ONE", 0x100, value()),
            ],
            &Allow::default(),
        );
        assert_eq!(c.cases.len(), 2);
        assert_eq!(c.cases[0].name, "VF_SW_FLAG[]");
        assert_eq!(c.cases[0].assertions, 2);
        assert!(c.cases[0].is_failure(), "element 1 is at another offset");
        assert_eq!(c.cases[1], Case::pass("ONE"));
    }

    #[test]
    fn arrays_expand_to_the_mock_names() {
        let text = "register! { pub(crate) VF_SW_FLAG(u32)[4] @ 0x00190240 { 31:0 value; } \
                    pub(crate) WIDE(u32)[2, stride = 0x10] @ 0x100 { 31:0 value; } }";
        let regs = super::super::parse::registers_in(text).expect("parses");
        let driver: Vec<Defined> = regs
            .into_iter()
            .map(|reg| Defined {
                file: "x.rs".into(),
                reg,
            })
            .collect();
        let out = expand_arrays(&driver);
        let got: Vec<(String, Option<u64>)> = out
            .iter()
            .map(|d| {
                (
                    d.reg.name.clone(),
                    match d.reg.location {
                        Location::Fixed(o) => Some(o),
                        _ => None,
                    },
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("VF_SW_FLAG0".to_string(), Some(0x190240)),
                ("VF_SW_FLAG1".to_string(), Some(0x190244)),
                ("VF_SW_FLAG2".to_string(), Some(0x190248)),
                ("VF_SW_FLAG3".to_string(), Some(0x19024c)),
                ("WIDE0".to_string(), Some(0x100)),
                ("WIDE1".to_string(), Some(0x110)),
            ]
        );
    }
}
