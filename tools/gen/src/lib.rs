//! Generates the driver's forcewake and multicast tables and its hwconfig
//! key names.
//!
//! Inputs: the seed's "Force Wake and Steering Table" as checked in by
//! `xehpg-seed-table` ([`TSV_FILE`]) and the documented decisions
//! ([`DECISIONS_FILE`], [`decisions`]); the hwconfig key list
//! ([`HWCONFIG_KEYS_TSV`], Mesa's numbering, parsed by the mock's own
//! reader so both sides read it alike). [`tables`] builds the rows,
//! [`render`] writes them as driver source ([`FORCEWAKE_FILE`],
//! [`MCR_FILE`], [`HWCONFIG_KEYS_FILE`]). `make tables` runs the
//! `xehpg-gen-tables` binary; the `fwtable` suite of `tools/check` calls
//! [`generate`] to check the rows and that the checked-in files are
//! current.

pub mod decisions;
pub mod render;
pub mod tables;
pub mod targets;

use anyhow::{Context as _, Result};
use std::path::Path;
use xehpg_mock::regfile::guc::hwconfig;
use xehpg_mock::seed_table::{self, Row};

/// The seed's table, relative to the repository.
pub const TSV_FILE: &str = "tools/mock/data/fw-steering.tsv";
/// The decisions, relative to the repository.
pub const DECISIONS_FILE: &str = "tools/gen/tables.toml";
/// The generated forcewake table, relative to the repository.
pub const FORCEWAKE_FILE: &str = "rust/gt/forcewake/table.rs";
/// The generated multicast table, relative to the repository.
pub const MCR_FILE: &str = "rust/gt/mcr/table.rs";
/// The hwconfig key list (Mesa's `enum intel_hwconfig`), relative to the
/// repository; the mock compiles in the same file.
pub const HWCONFIG_KEYS_TSV: &str = xehpg_mock::regfile::guc::hwconfig::KEYS_FILE;
/// The generated hwconfig key-name table, relative to the repository.
pub const HWCONFIG_KEYS_FILE: &str = "rust/guc/hwconfig/keys.rs";

/// Everything one generation read and made.
#[derive(Debug, Clone)]
pub struct Generated {
    /// The seed's rows.
    pub seed: Vec<Row>,
    /// The decisions.
    pub decisions: decisions::Decisions,
    /// The forcewake rows.
    pub forcewake: Vec<tables::FwRow>,
    /// The multicast rows.
    pub mcr: Vec<tables::McrRow>,
    /// (path relative to the repository, contents) of each generated file.
    pub files: Vec<(&'static str, String)>,
}

/// Reads the inputs under `repo` and builds the tables and files.
///
/// # Errors
///
/// An input that cannot be read or parsed, or decisions that do not fit the
/// seed's rows (see [`tables`]).
pub fn generate(repo: &Path) -> Result<Generated> {
    let read = |rel: &str| {
        std::fs::read_to_string(repo.join(rel)).with_context(|| format!("reading {rel}"))
    };
    let seed = seed_table::parse_tsv(&read(TSV_FILE)?).context(TSV_FILE)?;
    let decisions = decisions::Decisions::parse(&read(DECISIONS_FILE)?).context(DECISIONS_FILE)?;
    let mut g = from_inputs(seed, decisions)?;
    let keys_text = read(HWCONFIG_KEYS_TSV)?;
    let keys = hwconfig::parse_keys(&keys_text)
        .map_err(anyhow::Error::msg)
        .context(HWCONFIG_KEYS_TSV)?;
    g.files
        .push((HWCONFIG_KEYS_FILE, render::hwconfig_keys(&keys)));
    Ok(g)
}

/// [`generate`] on inputs already read.
///
/// # Errors
///
/// Decisions that do not fit the seed's rows (see [`tables`]).
pub fn from_inputs(seed: Vec<Row>, decisions: decisions::Decisions) -> Result<Generated> {
    let forcewake = tables::forcewake(&seed, &decisions).context(DECISIONS_FILE)?;
    let mcr = tables::mcr(&seed, &decisions).context(DECISIONS_FILE)?;
    let files = vec![
        (FORCEWAKE_FILE, render::forcewake(&forcewake)),
        (MCR_FILE, render::mcr(&mcr)),
    ];
    Ok(Generated {
        seed,
        decisions,
        forcewake,
        mcr,
        files,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;
    use std::process::{Command, Stdio};

    /// The repository this crate is checked out in.
    fn repo() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
    }

    #[test]
    fn the_checked_in_inputs_make_a_complete_table() {
        let g = generate(&repo()).unwrap();
        assert_eq!(g.forcewake[0].start, 0);
        for pair in g.forcewake.windows(2) {
            assert_eq!(pair[0].end + 1, pair[1].start, "{pair:?}");
        }
        let last_seed = g.seed.last().unwrap().end;
        assert_eq!(g.forcewake.last().unwrap().end, last_seed);
        assert!(g.mcr.windows(2).all(|p| p[0].end < p[1].start));
    }

    /// The files need no formatter: rustfmt (edition 2021, as the kernel's
    /// `.rustfmt.toml`) leaves them as they are.
    #[test]
    fn generated_files_are_rustfmt_clean() {
        for (rel, text) in generate(&repo()).unwrap().files {
            let mut child = Command::new("rustfmt")
                .args(["--edition", "2021", "--check"])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .expect("rustfmt is part of the toolchain the project requires");
            child
                .stdin
                .take()
                .unwrap()
                .write_all(text.as_bytes())
                .unwrap();
            let out = child.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "{rel}:\n{}",
                String::from_utf8_lossy(&out.stdout)
            );
        }
    }
}
