//! The decisions file, `tools/gen/tables.toml`: everything the generated
//! tables say that the seed's table does not say by itself. Each entry names
//! the seed lines it rests on and why.
//!
//! ```toml
//! [[seed_wake]]          # a seed wake text that is no domain of its own
//! seed = "RENDER*"       # or "AON", or "reserved" (blank wake target)
//! wake = "RENDER"
//!
//! [[fill]]               # a range the seed's table does not list
//! start = 0x025B00
//! end = 0x025FFF
//! wake = "NONE"
//! comment = "not in the seed table"   # the generated row's comment
//!
//! [[override]]           # seed rows deliberately mapped to another wake
//! start = 0x014000
//! end = 0x0141FF
//! wake = "VD2"
//!
//! [[steer]]              # replicated seed rows with a steering of their own
//! start = 0x000B00
//! end = 0x000BFF
//! group = "SQIDI"        # the seed's group of those rows
//! steering = "SqidiSf"
//! ```
//!
//! and in every entry `seed = "L704"` (seed 000 lines) and `reason`.

use crate::targets::{Steering, Wake};
use anyhow::{bail, Context as _, Result};
use serde::Deserialize;

/// The parsed decisions file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Decisions {
    /// How seed wake texts without a domain of their own map.
    #[serde(default, rename = "seed_wake")]
    pub seed_wakes: Vec<SeedWake>,
    /// Ranges the seed does not list.
    #[serde(default, rename = "fill")]
    pub fills: Vec<Fill>,
    /// Seed rows the driver maps to another wake ("settled" differences).
    #[serde(default, rename = "override")]
    pub overrides: Vec<Override>,
    /// Replicated seed rows whose steering is not their group's own.
    #[serde(default, rename = "steer")]
    pub steers: Vec<Steer>,
}

/// `[[seed_wake]]`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeedWake {
    /// `AON`, `RENDER*` or `reserved`.
    pub seed: String,
    /// What the driver does there.
    pub wake: Wake,
    /// Seed 000 lines the decision rests on.
    pub lines: String,
    /// Why.
    pub reason: String,
}

/// `[[fill]]`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fill {
    /// First offset.
    pub start: u32,
    /// Last offset (inclusive).
    pub end: u32,
    /// What the driver does there.
    pub wake: Wake,
    /// The generated row's comment.
    pub comment: String,
    /// Seed 000 lines around the range or behind the choice.
    pub lines: String,
    /// Why.
    pub reason: String,
}

/// `[[override]]`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Override {
    /// First offset (a seed row's start).
    pub start: u32,
    /// Last offset (a seed row's end).
    pub end: u32,
    /// What the driver does there instead of the seed's target.
    pub wake: Wake,
    /// The seed rows overridden.
    pub lines: String,
    /// Why.
    pub reason: String,
}

/// `[[steer]]`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Steer {
    /// First offset (a seed row's start).
    pub start: u32,
    /// Last offset (a seed row's end).
    pub end: u32,
    /// The seed's replication group of the rows, as the seed writes it.
    pub group: String,
    /// The driver's steering there.
    pub steering: Steering,
    /// The seed rows and the lines behind the choice.
    pub lines: String,
    /// Why.
    pub reason: String,
}

/// The text the decisions use for a reserved (blank) seed row.
pub const RESERVED: &str = "reserved";

impl Decisions {
    /// Parses and checks the file's text: every entry has seed lines and a
    /// reason, ranges do not end before they start, each kind of range entry
    /// is sorted and disjoint, and each seed wake text is mapped once.
    ///
    /// # Errors
    ///
    /// TOML syntax, unknown keys or values, and the rules above.
    pub fn parse(text: &str) -> Result<Decisions> {
        let d: Decisions = toml::from_str(text)?;
        for w in &d.seed_wakes {
            why(&w.lines, &w.reason).with_context(|| format!("seed_wake {}", w.seed))?;
            if d.seed_wakes.iter().filter(|o| o.seed == w.seed).count() > 1 {
                bail!("seed_wake {} is given twice", w.seed);
            }
            if !["AON", "RENDER*", RESERVED].contains(&w.seed.as_str()) {
                bail!(
                    "seed_wake `{}`: only AON, RENDER* and {RESERVED} need one",
                    w.seed
                );
            }
        }
        let ranges = |kind: &str, r: Vec<(u32, u32, &str, &str)>| -> Result<()> {
            for (i, &(s, e, lines, reason)) in r.iter().enumerate() {
                let at = || format!("{kind} {}", range_text(s, e));
                why(lines, reason).with_context(at)?;
                if e < s {
                    bail!("{}: ends before it starts", at());
                }
                if let Some(&(_, pe, ..)) = i.checked_sub(1).and_then(|p| r.get(p)) {
                    if s <= pe {
                        bail!("{}: {kind} entries must be sorted and disjoint", at());
                    }
                }
            }
            Ok(())
        };
        ranges(
            "fill",
            d.fills
                .iter()
                .map(|x| (x.start, x.end, x.lines.as_str(), x.reason.as_str()))
                .collect(),
        )?;
        ranges(
            "override",
            d.overrides
                .iter()
                .map(|x| (x.start, x.end, x.lines.as_str(), x.reason.as_str()))
                .collect(),
        )?;
        ranges(
            "steer",
            d.steers
                .iter()
                .map(|x| (x.start, x.end, x.lines.as_str(), x.reason.as_str()))
                .collect(),
        )?;
        for f in &d.fills {
            if f.comment.trim().is_empty() {
                bail!("fill {}: no comment", range_text(f.start, f.end));
            }
        }
        Ok(d)
    }

    /// The wake a seed wake text without a domain of its own maps to.
    pub fn seed_wake(&self, seed: &str) -> Option<Wake> {
        self.seed_wakes
            .iter()
            .find(|w| w.seed == seed)
            .map(|w| w.wake)
    }
}

fn why(lines: &str, reason: &str) -> Result<()> {
    if lines.trim().is_empty() {
        bail!("no seed lines given");
    }
    if reason.trim().is_empty() {
        bail!("no reason given");
    }
    Ok(())
}

/// `0xSTART-0xEND` as messages write it.
pub fn range_text(start: u32, end: u32) -> String {
    format!("{start:#08X}-{end:#08X}")
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = r#"
[[seed_wake]]
seed = "RENDER*"
wake = "RENDER"
lines = "L704"
reason = "managed as part of render"

[[fill]]
start = 0x025B00
end = 0x025FFF
wake = "NONE"
comment = "not in the seed table"
lines = "L589-L590"
reason = "between reserved rows"

[[steer]]
start = 0x000B00
end = 0x000BFF
group = "SQIDI"
steering = "SqidiSf"
lines = "L463, L712"
reason = "an SF endpoint"
"#;

    #[test]
    fn reads_every_kind_of_entry() {
        let d = Decisions::parse(SAMPLE).unwrap();
        assert_eq!(d.seed_wake("RENDER*"), Some(Wake::Render));
        assert_eq!(d.seed_wake("AON"), None);
        assert_eq!((d.fills[0].start, d.fills[0].end), (0x25b00, 0x25fff));
        assert_eq!(d.fills[0].wake, Wake::None);
        assert_eq!(d.steers[0].steering, Steering::SqidiSf);
        assert!(d.overrides.is_empty());
        assert_eq!(Decisions::parse("").unwrap(), Decisions::default());
    }

    #[test]
    fn entries_need_lines_reasons_and_order() {
        let no_reason = SAMPLE.replace("reason = \"between reserved rows\"", "reason = \" \"");
        let e = Decisions::parse(&no_reason).unwrap_err();
        assert_eq!(format!("{e:#}"), "fill 0x025B00-0x025FFF: no reason given");
        let backwards = SAMPLE.replace("end = 0x025FFF", "end = 0x025000");
        assert!(Decisions::parse(&backwards).is_err());
        let twice = format!("{SAMPLE}\n{}", &SAMPLE[..SAMPLE.find("[[fill]]").unwrap()]);
        assert!(Decisions::parse(&twice).is_err(), "RENDER* mapped twice");
        let overlap = format!(
            "{SAMPLE}\n[[fill]]\nstart = 0x025F00\nend = 0x026FFF\nwake = \"GT\"\n\
             comment = \"c\"\nlines = \"L1\"\nreason = \"r\"\n"
        );
        assert!(Decisions::parse(&overlap).is_err());
        assert!(Decisions::parse(&SAMPLE.replace("\"RENDER*\"", "\"GT\"")).is_err());
        assert!(Decisions::parse(&SAMPLE.replace("SqidiSf", "Sqidi")).is_err());
        assert!(Decisions::parse(&SAMPLE.replace("wake = \"NONE\"", "wake = \"VD9\"")).is_err());
        assert!(Decisions::parse(&format!("{SAMPLE}\nextra = 1\n")).is_err());
    }
}
