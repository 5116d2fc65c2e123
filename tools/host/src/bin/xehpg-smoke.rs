//! `xehpg-smoke`: checks a host for xehpg step by step, one verdict line per
//! step; exits 1 when a step failed.

use clap::Parser;
use std::path::PathBuf;
use std::time::Duration;
use xehpg_host::bounded::{self, Bounded};
use xehpg_host::root::Root;
use xehpg_host::smoke::{self, Load, Options};
use xehpg_host::verdict;

/// Checks a host with an Arc or Flex card for xehpg, then the driver on it.
///
/// One line per step, `PASS|WARN|FAIL|SKIP step: what was seen -- what to
/// do`; the steps: kernel, firmware, iommu, pci, lockdown, load, bound,
/// bar2, guc, selftest, sriov, debugfs. The exit status is 1 when any step
/// failed. Before installing the driver, run it with --no-load; after, with
/// --load PATH (or without, for `modprobe xehpg`). Every load, read and
/// write runs under a time limit, so it does not hang on a stuck device.
///
/// Built by `make tools` (or `cd tools && cargo build --release -p
/// xehpg-host`), static for the test VM at
/// tools/target/x86_64-unknown-linux-gnu/release/xehpg-smoke;
/// tools/host/xehpg-smoke runs whichever was built.
#[derive(Parser)]
#[command(name = "xehpg-smoke", version)]
struct Cli {
    /// Load this module file (finit_module) unless xehpg is loaded.
    #[arg(long, value_name = "PATH", conflicts_with = "no_load")]
    load: Option<PathBuf>,
    /// Do not load the driver: the host steps only (before installing).
    #[arg(long)]
    no_load: bool,
    /// Module parameters for the load (`max_vfs=7 ...`).
    #[arg(long, default_value = "")]
    params: String,
    /// The GPU's PCI address, when the host has more than one.
    #[arg(long, value_name = "BDF")]
    device: Option<String>,
    /// VFs to enable and disable again on an SR-IOV PF (0: none).
    #[arg(long, default_value_t = 2)]
    vfs: u32,
    /// Selftest requests per engine.
    #[arg(long, default_value_t = 10)]
    requests: u32,
    /// Limit for each read and write, seconds.
    #[arg(long, default_value_t = 60)]
    timeout: u64,
    /// Limit for the module load, seconds (the driver waits up to 180 s
    /// for the card's firmware at probe).
    #[arg(long, default_value_t = 240)]
    load_timeout: u64,
    /// Read every path under DIR instead of / (tests).
    #[arg(long, value_name = "DIR", default_value = "/")]
    root: PathBuf,
}

fn main() {
    bounded::serve_child();
    let cli = Cli::parse();
    let load = match (cli.load, cli.no_load) {
        (_, true) => Load::No,
        (Some(p), false) => Load::File(p),
        (None, false) => Load::Modprobe,
    };
    let o = Options {
        root: Root::new(cli.root),
        device: cli.device,
        load,
        params: cli.params,
        vfs: cli.vfs,
        requests: cli.requests.max(1),
        io: Bounded::current(Duration::from_secs(cli.timeout)),
        load_io: Bounded::current(Duration::from_secs(cli.load_timeout)),
    };
    let steps = smoke::run(&o, &mut |s| println!("{s}"));
    println!("{}", verdict::summary(&steps));
    std::process::exit(i32::from(verdict::any_failed(&steps)));
}
