//! `xehpg-vm`: boots the test kernel in QEMU with the xehpg mock device,
//! loads the driver in the guest, runs a command there and exits with its
//! status. See `--help` for the options and `tools/vm/run` for the wrapper
//! that builds the runner and the mock first.
//!
//! Flow: [`cli`] parses the arguments, [`config`] resolves them against
//! `env.mk` ([`envmk`]) into a plan, and [`runner`] executes it: the
//! [`initramfs`] (written by the kernel's `usr/gen_init_cpio`, with an
//! [`init_script`]), the mock and
//! QEMU ([`qemu`], [`process`]), the [`console`] stream, the host commands
//! the guest starts ([`peer`]) and the mock's [`summary`], inside a
//! temporary directory, watching [`signals`].

mod cli;
mod config;
mod console;
mod init_script;
mod initramfs;
mod peer;
mod qemu;
mod runner;
mod signals;
mod summary;

use std::path::Path;
use std::path::PathBuf;

use anyhow::anyhow;
use anyhow::Context;
use anyhow::Result;
use clap::Parser;
use xehpg_common::envmk::EnvMk;

fn main() {
    // `process::exit` skips destructors, so everything that cleans up lives
    // inside `real_main` and is dropped before it returns.
    std::process::exit(real_main());
}

fn real_main() -> i32 {
    // First, so a Ctrl-C at any later point is handled by the runner.
    let signals = match signals::Signals::install() {
        Ok(signals) => signals,
        Err(err) => {
            eprintln!("xehpg-vm: {err:#}");
            return runner::NO_STATUS;
        }
    };
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            // --help and bad usage both end here; clap knows which is which
            // (exit 0 or 2) and where the text goes.
            let _ = err.print();
            return err.exit_code();
        }
    };
    let plan = match plan(cli) {
        Ok(plan) => plan,
        Err(err) => {
            eprintln!("xehpg-vm: {err:#}");
            return runner::NO_STATUS;
        }
    };
    for note in &plan.notes {
        eprintln!("xehpg-vm: note: {note}");
    }
    runner::run(&plan, &signals)
}

/// Finds the repository and `env.mk`, and resolves the options.
fn plan(cli: cli::Cli) -> Result<config::Plan> {
    let is_file = |path: &Path| path.is_file();
    let repo = match &cli.repo {
        Some(repo) => repo.clone(),
        None => find_repo(&is_file)?,
    };
    let env = EnvMk::load_default()?;
    config::resolve(cli, &env, &repo, &is_file)
}

fn find_repo(is_file: &dyn Fn(&Path) -> bool) -> Result<PathBuf> {
    let exe = std::env::current_exe().context("locating the runner's binary")?;
    config::find_repo(&exe, is_file).ok_or_else(|| {
        anyhow!(
            "cannot find the repository above {}: pass --repo DIR",
            exe.display()
        )
    })
}
