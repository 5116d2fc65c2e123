//! `xehpg-sriov-map`: draws the SR-IOV provisioning map read from the
//! driver's debugfs `sriov` file as an SVG (`make sriov-map`;
//! Documentation/sriov.rst, "Provisioning map").

use anyhow::{Context as _, Result};
use clap::Parser;
use std::io::Read as _;
use std::path::PathBuf;

/// Draws the GGTT and local-memory map of an xehpg SR-IOV PF (the text of
/// debugfs `sriov`, read in the guest) as an SVG.
#[derive(Parser, Debug)]
#[command(version)]
struct Cli {
    /// The debugfs `sriov` text; `-` for standard input.
    input: PathBuf,
    /// Where to write the SVG; standard output when absent.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    let text = if cli.input.as_os_str() == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .context("reading standard input")?;
        s
    } else {
        std::fs::read_to_string(&cli.input)
            .with_context(|| format!("reading {}", cli.input.display()))?
    };
    let map = xehpg_sriov_map::parse(&text)
        .with_context(|| format!("{} is not a debugfs sriov report", cli.input.display()))?;
    let svg = xehpg_sriov_map::render(&map);
    match cli.output {
        Some(path) => {
            std::fs::write(&path, svg).with_context(|| format!("writing {}", path.display()))?
        }
        None => print!("{svg}"),
    }
    Ok(())
}
