//! The one-line digest of the mock's `--summary` JSON file.
//!
//! The mock writes the file when QEMU disconnects; the harness reads the full
//! file. The runner only prints the two counts a person needs to notice: MMIO
//! accesses the mock did not model and protocol violations by the driver. The
//! file is read with the mock's own type.

pub use xehpg_mock::summary::Summary;

/// Formats `summary` as one line.
pub fn describe(summary: &Summary) -> String {
    format!(
        "mock: {} unknown accesses, {} violations",
        summary.unknown_accesses, summary.violations
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_mocks_file_and_names_both_counts() {
        let written = Summary {
            unknown_accesses: 2,
            violations: 1,
            mmio_reads: 100,
            ..Summary::default()
        };
        let read: Summary =
            serde_json::from_str(&serde_json::to_string(&written).unwrap()).unwrap();
        assert_eq!(describe(&read), "mock: 2 unknown accesses, 1 violations");
    }
}
