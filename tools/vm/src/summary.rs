//! The one-line digest of the mock's `--summary` JSON file.
//!
//! The mock writes the file when QEMU disconnects; the harness reads the full
//! file. The runner only prints the two counts a person needs to notice: MMIO
//! accesses the mock did not model and protocol violations by the driver.
//! Counts may be numbers or lists (of the offending accesses), and may sit at
//! the top level or under a `counts` object.

use serde_json::Value;

/// Names under which the mock may report each count.
const UNKNOWN_KEYS: &[&str] = &["unknown_accesses", "unknown_access", "unknown"];
const VIOLATION_KEYS: &[&str] = &["violations", "violation_count"];

/// Formats `summary` as one line.
pub fn describe(summary: &Value) -> String {
    let show = |count: Option<u64>| count.map_or_else(|| "?".to_owned(), |n| n.to_string());
    format!(
        "mock: {} unknown accesses, {} violations",
        show(count(summary, UNKNOWN_KEYS)),
        show(count(summary, VIOLATION_KEYS)),
    )
}

/// The first of `keys` found at the top level or under `counts`, as a count.
fn count(summary: &Value, keys: &[&str]) -> Option<u64> {
    let scopes = [Some(summary), summary.get("counts")];
    scopes
        .into_iter()
        .flatten()
        .flat_map(|scope| keys.iter().filter_map(move |key| scope.get(*key)))
        .find_map(as_count)
}

fn as_count(value: &Value) -> Option<u64> {
    match value {
        Value::Number(n) => n.as_u64(),
        Value::Array(items) => u64::try_from(items.len()).ok(),
        Value::Object(map) => u64::try_from(map.len()).ok(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_at_top_level() {
        let summary = json!({"unknown_accesses": 2, "violations": 0, "reads": 100});
        assert_eq!(describe(&summary), "mock: 2 unknown accesses, 0 violations");
    }

    #[test]
    fn lists_count_their_items() {
        let summary = json!({"unknown": [{"offset": 4}], "violations": [{}, {}, {}]});
        assert_eq!(describe(&summary), "mock: 1 unknown accesses, 3 violations");
    }

    #[test]
    fn nested_counts() {
        let summary = json!({"counts": {"unknown_accesses": 5, "violations": 1}});
        assert_eq!(describe(&summary), "mock: 5 unknown accesses, 1 violations");
    }

    #[test]
    fn missing_counts_show_a_question_mark() {
        assert_eq!(
            describe(&json!({})),
            "mock: ? unknown accesses, ? violations"
        );
        assert_eq!(
            describe(&json!([1, 2])),
            "mock: ? unknown accesses, ? violations"
        );
        assert_eq!(
            describe(&json!({"violations": "many"})),
            "mock: ? unknown accesses, ? violations"
        );
    }
}
