//! Expectations on the mock's own record: `FIELD OP VALUE` checked against
//! the mock summary.
//!
//! A scenario declares them in its header (`# expect-mock: mmio_reads == 0`)
//! or prints them while it runs (`# mock-expect: hwconfig_served_bytes == 232`,
//! `mock_expect` in `tools/guest/lib.sh`), e.g. to compare what the driver
//! reports with what the mock did. FIELD is a dotted path into the summary's
//! JSON (`h2g_replies.busy`); a key missing from a map of counters reads as 0,
//! an unknown top-level field is an error, so a typo cannot pass. A boolean
//! field compares as `true` / `false` or as 1 / 0 (`ct.enabled == 0`).

use serde_json::Value;
use xehpg_mock::summary::{AdsSummary, Summary};

/// Prefix of an expectation printed by the guest.
pub const OUTPUT_PREFIX: &str = "# mock-expect: ";

/// How a value compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `>=`
    Ge,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `<`
    Lt,
}

/// One expectation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expectation {
    /// Dotted path into the summary.
    pub field: String,
    /// Comparison.
    pub op: Op,
    /// Right-hand side: a number (decimal or 0x hex) or a string.
    pub value: String,
}

impl std::fmt::Display for Expectation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let op = match self.op {
            Op::Eq => "==",
            Op::Ne => "!=",
            Op::Ge => ">=",
            Op::Le => "<=",
            Op::Gt => ">",
            Op::Lt => "<",
        };
        write!(f, "{} {op} {}", self.field, self.value)
    }
}

/// Parses `FIELD OP VALUE`.
///
/// # Errors
///
/// Not three words, or an unknown operator.
pub fn parse(text: &str) -> Result<Expectation, String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let [field, op, value] = words.as_slice() else {
        return Err(format!("expected `FIELD OP VALUE`, found {text:?}"));
    };
    let op = match *op {
        "==" => Op::Eq,
        "!=" => Op::Ne,
        ">=" => Op::Ge,
        "<=" => Op::Le,
        ">" => Op::Gt,
        "<" => Op::Lt,
        o => return Err(format!("unknown operator {o:?} in {text:?}")),
    };
    Ok(Expectation {
        field: field.to_string(),
        op,
        value: value.to_string(),
    })
}

/// The expectations the guest printed, in order (malformed ones as errors).
pub fn from_output(output: &str) -> Vec<Result<Expectation, String>> {
    output
        .lines()
        .filter_map(|l| l.trim_end_matches('\r').strip_prefix(OUTPUT_PREFIX))
        .map(parse)
        .collect()
}

fn number(text: &str) -> Option<u64> {
    match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

/// The shape of every summary: a default one with each optional part
/// present, so that a map (an object that is empty here) can be told from
/// a struct (an object with its fields here).
fn template() -> Value {
    let mut s = Summary::default();
    s.guc.ads = Some(AdsSummary::default());
    serde_json::to_value(s).unwrap_or(Value::Null)
}

/// The summary's value at `field`. A key missing from a counter map (an
/// object that `shape`, the [`template`], holds as an empty map) reads as
/// 0: nothing of that name happened. Any other missing key is an error
/// naming it: a typo in a struct's field (`guc.engine_resetz`) or a key
/// under a map's entry (`engines.rcs0.resetz`) must not read as 0.
fn lookup(summary: &Value, shape: &Value, field: &str) -> Result<Value, String> {
    let mut at = summary;
    let mut like = Some(shape);
    let mut parts = field.split('.').peekable();
    let mut path = String::new();
    while let Some(part) = parts.next() {
        let parent = std::mem::take(&mut path);
        path = if parent.is_empty() {
            part.to_string()
        } else {
            format!("{parent}.{part}")
        };
        let counter_map = matches!(like, Some(Value::Object(m)) if m.is_empty());
        match at.get(part) {
            Some(v) => {
                at = v;
                like = like.and_then(|l| l.get(part));
            }
            None if counter_map && at.is_object() && parts.peek().is_none() => {
                return Ok(Value::from(0u64))
            }
            None if parent.is_empty() => {
                return Err(format!("the mock summary has no field {field}"))
            }
            None => {
                return Err(format!(
                    "the mock summary has no field {field}: {parent} has no key {part}"
                ))
            }
        }
    }
    Ok(at.clone())
}

/// Checks `e` against `summary`; the error says what the mock recorded.
///
/// # Errors
///
/// The expectation does not hold, or names no summary field.
pub fn check(e: &Expectation, summary: &Summary) -> Result<(), String> {
    let json = serde_json::to_value(summary).map_err(|err| err.to_string())?;
    let got = lookup(&json, &template(), &e.field)?;
    // A boolean is also the number 0 or 1.
    let got_number = got.as_u64().or_else(|| got.as_bool().map(u64::from));
    let holds = match (got_number, number(&e.value)) {
        (Some(g), Some(w)) => match e.op {
            Op::Eq => g == w,
            Op::Ne => g != w,
            Op::Ge => g >= w,
            Op::Le => g <= w,
            Op::Gt => g > w,
            Op::Lt => g < w,
        },
        _ => {
            let g = match &got {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            match e.op {
                Op::Eq => g == e.value,
                Op::Ne => g != e.value,
                _ => return Err(format!("{e}: {g} is not a number")),
            }
        }
    };
    if holds {
        Ok(())
    } else {
        Err(format!("mock: expected {e}, recorded {got}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary() -> Summary {
        let mut s = Summary {
            mmio_reads: 7,
            guc_last_release: Some("70.53.0".into()),
            guc_running_at_exit: true,
            ..Summary::default()
        };
        s.h2g_replies.insert("busy".into(), 3);
        s
    }

    fn holds(text: &str) -> Result<(), String> {
        check(&parse(text)?, &summary())
    }

    #[test]
    fn numbers_strings_and_map_keys() {
        assert_eq!(holds("mmio_reads == 7"), Ok(()));
        assert_eq!(holds("mmio_reads == 0x7"), Ok(()));
        assert_eq!(
            holds("mmio_reads == 0"),
            Err("mock: expected mmio_reads == 0, recorded 7".into())
        );
        assert_eq!(holds("mmio_reads > 6"), Ok(()));
        assert!(holds("mmio_reads < 7").is_err());
        assert_eq!(holds("h2g_replies.busy >= 3"), Ok(()));
        assert_eq!(holds("h2g_replies.retry == 0"), Ok(()), "absent key is 0");
        assert_eq!(holds("guc_last_release == 70.53.0"), Ok(()));
        assert!(holds("guc_last_release != 70.53.0").is_err());
        assert!(holds("guc_last_release > 1").is_err());
        // Booleans: by name or as 0 / 1.
        assert_eq!(holds("guc_running_at_exit == true"), Ok(()));
        assert_eq!(holds("guc_running_at_exit == 1"), Ok(()));
        assert_eq!(holds("ct.enabled == 0"), Ok(()));
        assert_eq!(holds("ct.enabled == false"), Ok(()));
        assert_eq!(
            holds("ct.enabled != 0"),
            Err("mock: expected ct.enabled != 0, recorded false".into())
        );
        assert!(holds("guc_running_at_exit == 0").is_err());
        assert!(holds("guc_running_at_exit == false").is_err());
    }

    /// The bus mastering record reads like the other booleans and counters,
    /// so a scenario header can say `bus_master_at_exit == false` and
    /// `bus_master_clears == 2`.
    #[test]
    fn bus_master_fields() {
        let s = Summary {
            bus_master_at_exit: false,
            bus_master_sets: 2,
            bus_master_clears: 2,
            ..Summary::default()
        };
        let holds = |text: &str| check(&parse(text)?, &s);
        assert_eq!(holds("bus_master_at_exit == false"), Ok(()));
        assert_eq!(holds("bus_master_at_exit == 0"), Ok(()));
        assert_eq!(
            holds("bus_master_at_exit == true"),
            Err("mock: expected bus_master_at_exit == true, recorded false".into())
        );
        assert_eq!(holds("bus_master_clears == 2"), Ok(()));
        assert_eq!(
            holds("bus_master_clears == 1"),
            Err("mock: expected bus_master_clears == 1, recorded 2".into())
        );
        assert_eq!(holds("bus_master_sets >= 1"), Ok(()));
    }

    #[test]
    fn unknown_fields_and_bad_syntax_fail() {
        assert!(holds("mmio_readz == 0").unwrap_err().contains("no field"));
        assert!(holds("mmio_reads.x == 0").is_err());
        assert!(parse("mmio_reads = 0").is_err());
        assert!(parse("mmio_reads ==").is_err());
    }

    /// A typo in a nested struct field, or a key under a map's entry, is an
    /// error naming the key, not 0; a key missing from a counter map at any
    /// depth is 0.
    #[test]
    fn a_missing_nested_key_is_an_error_unless_its_parent_is_a_counter_map() {
        let mut s = summary();
        s.guc.engine_resets = 2;
        s.engines
            .by_engine
            .insert("rcs0".into(), Default::default());
        let holds = |text: &str| check(&parse(text)?, &s);
        assert_eq!(holds("guc.engine_resets == 2"), Ok(()));
        assert_eq!(
            holds("guc.engine_resetz == 0"),
            Err(
                "the mock summary has no field guc.engine_resetz: guc has no key engine_resetz"
                    .into()
            )
        );
        assert!(holds("guc.engine_resetz != 0")
            .unwrap_err()
            .contains("engine_resetz"));
        assert_eq!(holds("engines.rcs0.resets == 0"), Ok(()));
        assert!(holds("engines.rcs0.resetz == 0")
            .unwrap_err()
            .contains("rcs0 has no key resetz"));
        // An engine the run never started is no counter map entry either.
        assert!(holds("engines.ccs3.resets == 0").is_err());
        assert!(holds("engines.ccs3 == 0")
            .unwrap_err()
            .contains("engines has no key ccs3"));
        // Counter maps, top-level and nested: an absent key is 0.
        assert_eq!(holds("h2g_replies.retry == 0"), Ok(()));
        assert_eq!(holds("irq.identities.vcs9 == 0"), Ok(()));
        assert_eq!(holds("guc.regs_lost_by_name.X == 0"), Ok(()));
        assert!(
            holds("guc.ads.engine_masks.rcs == 0").is_err(),
            "no ADS in this run"
        );
        s.guc.ads = Some(AdsSummary::default());
        let holds = |text: &str| check(&parse(text)?, &s);
        assert_eq!(holds("guc.ads.engine_masks.rcs == 0"), Ok(()));
        assert!(holds("guc.ads.engine_maskz.rcs == 0").is_err());
        // A key under a counter's value is no key at all.
        assert!(holds("h2g_replies.busy.x == 0").is_err());
    }

    #[test]
    fn printed_expectations_are_found() {
        let out = "ok 1 - x\n# mock-expect: a == 1\r\n# other\n# mock-expect: b ~ 2\n";
        let got = from_output(out);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].as_ref().map(|e| e.field.as_str()), Ok("a"));
        assert!(got[1].is_err());
    }
}
