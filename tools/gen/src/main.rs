//! `xehpg-gen-tables` (`make tables`): writes the driver's generated
//! forcewake and multicast tables and its hwconfig key names, or with
//! `--check` reports which checked-in file is stale.
//!
//! ```text
//! xehpg-gen-tables [--repo DIR]            # write rust/gt/{forcewake,mcr}/table.rs,
//!                                          # rust/guc/hwconfig/keys.rs
//! xehpg-gen-tables [--repo DIR] --check    # exit 1 if any differs
//! ```

use anyhow::Context as _;
use clap::Parser;
use std::path::PathBuf;
use std::process::ExitCode;

/// Options.
#[derive(Debug, Parser)]
#[command(
    name = "xehpg-gen-tables",
    version,
    about = "Generate the driver's forcewake and MCR tables (from the seed's table and tools/gen/tables.toml) and hwconfig key names (from tools/mock/data/hwconfig-keys.tsv)"
)]
struct Args {
    /// Repository root.
    #[arg(long, value_name = "DIR", default_value = ".")]
    repo: PathBuf,
    /// Compare with the checked-in files instead of writing them.
    #[arg(long)]
    check: bool,
}

fn run(args: &Args) -> anyhow::Result<bool> {
    let generated = xehpg_gen::generate(&args.repo)?;
    let mut current = true;
    for (rel, text) in &generated.files {
        let path = args.repo.join(rel);
        if args.check {
            if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
                eprintln!("xehpg-gen-tables: {rel} is stale; run `make tables`");
                current = false;
            }
            continue;
        }
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        std::fs::write(&path, text).with_context(|| format!("writing {rel}"))?;
        eprintln!("xehpg-gen-tables: wrote {rel}");
    }
    Ok(current)
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("xehpg-gen-tables: {e:#}");
            ExitCode::FAILURE
        }
    }
}
