//! `xehpg-seed-table`: extracts the "Force Wake and Steering Table" from the
//! PRM seed into the TSV the mock is built from
//! (`tools/mock/data/fw-steering.tsv`).
//!
//! ```text
//! xehpg-seed-table SEED                 # TSV on stdout
//! xehpg-seed-table SEED -o FILE         # write FILE
//! xehpg-seed-table SEED --check FILE    # exit 1 if FILE differs
//! ```
//!
//! The ranges the table leaves out are reported on stderr. Exit status: 0
//! on success, 1 on a seed that does not validate, an I/O error or a
//! `--check` mismatch, 2 on a usage error.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Parser;
use xehpg_mock::seed_table;

/// Options.
#[derive(Debug, Parser)]
#[command(
    name = "xehpg-seed-table",
    version,
    about = "Extract the PRM's Force Wake and Steering Table into the mock's TSV"
)]
struct Args {
    /// The PRM seed text (000_d753d714b6865175.txt).
    seed: PathBuf,
    /// Write the TSV here instead of stdout.
    #[arg(short, long, value_name = "FILE", conflicts_with = "check")]
    out: Option<PathBuf>,
    /// Compare with FILE instead of writing; exit 1 if it differs.
    #[arg(long, value_name = "FILE")]
    check: Option<PathBuf>,
}

fn run(args: &Args) -> anyhow::Result<bool> {
    let text = std::fs::read_to_string(&args.seed)
        .with_context(|| format!("reading {}", args.seed.display()))?;
    let rows = seed_table::extract(&text).with_context(|| format!("{}", args.seed.display()))?;
    for (start, end) in seed_table::holes(&rows) {
        eprintln!("xehpg-seed-table: not listed in the table: {start:#08X}-{end:#08X}");
    }
    let tsv = seed_table::to_tsv(&rows);
    if let Some(path) = &args.check {
        let have =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        if have != tsv {
            let line = have
                .lines()
                .zip(tsv.lines())
                .position(|(a, b)| a != b)
                .unwrap_or_else(|| have.lines().count().min(tsv.lines().count()))
                + 1;
            eprintln!(
                "xehpg-seed-table: {} differs from the seed's table (first at line {line})",
                path.display()
            );
            return Ok(false);
        }
        return Ok(true);
    }
    match &args.out {
        Some(path) => {
            std::fs::write(path, &tsv).with_context(|| format!("writing {}", path.display()))?
        }
        None => print!("{tsv}"),
    }
    eprintln!("xehpg-seed-table: {} rows", rows.len());
    Ok(true)
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("xehpg-seed-table: {e:#}");
            ExitCode::FAILURE
        }
    }
}
