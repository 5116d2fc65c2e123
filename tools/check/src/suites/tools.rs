//! Suite `tools`: the unit and integration tests of the tools workspace.
//!
//! Runs `cargo test --workspace --release --no-fail-fast -- --include-ignored`
//! in `tools/`. Release
//! mode reuses what `make check` just built for the tools themselves.

use super::cargo_test;
use super::Context;
use crate::report::{Case, Reporter};
use std::process::Command;
use std::time::Duration;
use xehpg_common::process::run_logged;

/// Upper bound for building and running the workspace's tests on 2 cores.
const LIMIT: Duration = Duration::from_secs(40 * 60);

/// Runs the suite.
pub fn run(ctx: &Context, r: &mut Reporter) {
    let log = ctx.log_dir("tools").join("cargo-test.log");
    let mut cmd = Command::new("cargo");
    // Ignored tests need what the bootstrap provides (the real GuC firmware);
    // `make check` has run the bootstrap, so they run here and fail if it is
    // missing.
    cmd.args(["test", "--workspace", "--release", "--no-fail-fast"])
        .args(["--", "--include-ignored"])
        .current_dir(ctx.tools_dir())
        .env("CARGO_TERM_COLOR", "never");
    let finished = match run_logged(&mut cmd, &log, LIMIT) {
        Ok(f) => f,
        Err(e) => return r.case(Case::fail("cargo test", format!("{e:#}"))),
    };
    let text = String::from_utf8_lossy(&std::fs::read(&log).unwrap_or_default()).into_owned();
    let cases = cargo_test::cases(&cargo_test::parse(&text));
    r.note(&breakdown(&cases));
    let any_failed = cases.iter().any(Case::is_failure);
    if cases.is_empty() {
        r.case(Case::fail("cargo test", "no test results in the output").with_log_tail(&log));
    }
    for c in cases {
        r.case(c);
    }
    // Cargo failing with every parsed test green means something the parser did not see.
    if !finished.success() && !any_failed {
        let reason = format!("{} with no failed test in its output", finished.describe());
        r.case(Case::fail("cargo test", reason).with_log_tail(&log));
    } else if any_failed {
        r.note(&format!("full output: {}", log.display()));
    }
}

/// Cases per crate, with what each crate tests: the device model and the table
/// generator check project facts; the apt reader, the bootstrap's view of the
/// host; the runner, the orchestrator and the shared crate are the test
/// harness itself.
fn breakdown(cases: &[Case]) -> String {
    let mut per: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for c in cases {
        let krate = c.name.split([' ', ':']).next().unwrap_or("");
        *per.entry(krate).or_default() += 1;
    }
    let role = |k: &str| match k {
        "xehpg_mock" => "device model",
        "xehpg_gen" => "table generator",
        "xehpg_sriov_map" => "provisioning map",
        "xehpg_apt" => "apt sources and versions",
        "xehpg_host" | "host_tools" => "host tools",
        _ => "harness",
    };
    let parts: Vec<String> = per
        .iter()
        .map(|(k, n)| format!("{k} {n} ({})", role(k)))
        .collect();
    format!("cases by crate: {}", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn breakdown_names_each_crate_and_its_role() {
        let cases = [
            Case::pass("xehpg_mock src/lib.rs: a"),
            Case::pass("xehpg_mock src/lib.rs: b"),
            Case::pass("xehpg_check src/main.rs: c"),
            Case::pass("xehpg_apt src/lib.rs: d"),
        ];
        assert_eq!(
            breakdown(&cases),
            "cases by crate: xehpg_apt 1 (apt sources and versions), xehpg_check 1 (harness), \
             xehpg_mock 2 (device model)"
        );
    }
}
