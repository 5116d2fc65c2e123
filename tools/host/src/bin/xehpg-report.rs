//! `xehpg-report`: gathers what a bug report about xehpg needs into one
//! archive and prints its path.

use clap::Parser;
use std::path::PathBuf;
use std::time::Duration;
use xehpg_host::bounded::{self, Bounded};
use xehpg_host::report::{self, Options};
use xehpg_host::root::Root;

/// Gathers a bug report for xehpg into one tar.gz and prints its path.
///
/// The kernel log, the driver's debugfs files (the GuC log among them),
/// device coredumps, versions (kernel, module, GuC firmware with its
/// SHA-256), the GPU's and its VFs' PCI view (lspci when installed, the
/// sysfs files always), the module parameters and the SR-IOV files, with a
/// MANIFEST of what was collected and what could not be. Run it as root,
/// right after the failure. Reads only; every read of a device file runs
/// under a time limit.
///
/// Built by `make tools` (static for the test VM at
/// tools/target/x86_64-unknown-linux-gnu/release/xehpg-report);
/// tools/host/xehpg-report runs whichever was built.
#[derive(Parser)]
#[command(name = "xehpg-report", version)]
struct Cli {
    /// The archive to write (default /tmp/xehpg-report-HOST-SECONDS.tar.gz).
    #[arg(long, short, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Only this GPU (default: every DG2/ATS-M function).
    #[arg(long, value_name = "BDF")]
    device: Option<String>,
    /// Limit for each device file read, seconds.
    #[arg(long, default_value_t = 30)]
    timeout: u64,
    /// Read every path under DIR instead of / (tests).
    #[arg(long, value_name = "DIR", default_value = "/")]
    root: PathBuf,
}

fn main() {
    bounded::serve_child();
    let cli = Cli::parse();
    let root = Root::new(cli.root);
    let output = cli.output.unwrap_or_else(|| report::default_output(&root));
    let o = Options {
        root,
        device: cli.device,
        io: Bounded::current(Duration::from_secs(cli.timeout)),
    };
    let collected = report::collect(&o);
    if let Err(e) = report::write_archive(&collected, &output) {
        eprintln!("xehpg-report: writing {}: {e}", output.display());
        std::process::exit(1);
    }
    eprintln!(
        "xehpg-report: {} files, {} could not be read (MANIFEST says which)",
        collected.files.len(),
        collected.failures
    );
    println!("{}", output.display());
}
