//! `xehpg-check`: the test orchestrator behind `make check`.
//!
//! Runs the suites of [`suites::SUITES`] in order (tools, style, abi, regs, fwtable,
//! kunit, vm), printing a header per suite, one `ok - ` / `FAIL - ` /
//! `skip - ` line per test and the suite's time ([`report`]). A full run then
//! checks that every case named in `tools/check-floor.toml` ran ([`floor`]).
//! The summary gives the run's wall time and warns about a suite that took
//! more than twice its time in `tools/check-times.toml` ([`times`]). The last
//! line is always `N passed, N failed`; the exit status is 0 only when
//! nothing failed (1 on failures, 2 on bad usage). Subprocess output is kept
//! under `build/check-logs/<suite>/`.
//!
//! `--bench` runs no suite: it is `make bench` ([`bench`]), which ends by
//! holding its MMIO counts to `tools/bench-baseline.toml` ([`baseline`]);
//! `--compare-only FILE` runs that comparison alone.

mod baseline;
mod bench;
mod bringup;
mod cli;
mod floor;
mod progress;
mod report;
mod suites;
mod times;

use anyhow::{Context as _, Result};
use clap::Parser;
use cli::LaneArg;
use report::{Case, Reporter};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;
use suites::{Context, Lane};
use xehpg_common::envmk::EnvMk;

/// The floor file, relative to the repository.
const FLOOR_FILE: &str = "tools/check-floor.toml";

fn main() -> ExitCode {
    let opts = match cli::Options::try_parse() {
        Ok(opts) => opts,
        Err(e) => {
            // --help (exit 0) and bad usage (exit 2) both end here.
            let _ = e.print();
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
        }
    };
    match run(opts) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("xehpg-check: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// Runs what the arguments ask for; `Ok(false)` if a test failed.
fn run(opts: cli::Options) -> Result<bool> {
    let started = Instant::now();
    let repo = match opts.repo {
        Some(r) => r,
        None => std::env::current_dir()?,
    };
    let repo = repo
        .canonicalize()
        .with_context(|| format!("repository {}", repo.display()))?;
    let baseline = opts
        .baseline
        .clone()
        .unwrap_or_else(|| repo.join(baseline::BASELINE_FILE));
    if let Some(file) = &opts.compare_only {
        let json: serde_json::Value = std::fs::read_to_string(file)
            .with_context(|| format!("reading {}", file.display()))
            .and_then(|t| {
                serde_json::from_str(&t).with_context(|| format!("{}: not JSON", file.display()))
            })?;
        return bench::check_baseline(&baseline, &json, opts.update_baseline);
    }
    if opts.bench {
        // Upstream xe's modules for the bring-up comparison come from the
        // plain kernel tree; without one the bench says so.
        let kdir = EnvMk::load_default()
            .ok()
            .and_then(|env| kernel_dir(opts.kdir.clone(), &env, false).ok());
        return bench::run(&repo, kdir.as_deref(), &baseline, opts.update_baseline);
    }
    let env = EnvMk::load_default()?;
    let lanes = match opts.lane {
        LaneArg::Both => vec![Lane::Plain, Lane::Debug, Lane::Distro],
        LaneArg::Plain => vec![Lane::Plain],
        LaneArg::Debug => vec![Lane::Debug],
        LaneArg::Distro => vec![Lane::Distro],
    };
    let selected = suites::selected(&opts.only, &lanes)?;
    let vm_jobs = opts.vm_jobs.map_or_else(default_vm_jobs, usize::from);
    let context = |lane: Lane| -> Result<Context> {
        let debug = lane == Lane::Debug;
        let arg = if debug {
            opts.kdir_debug.clone()
        } else {
            opts.kdir.clone()
        };
        Ok(Context {
            repo: repo.clone(),
            kdir: kernel_dir(arg, &env, debug)?,
            env: env.clone(),
            selections: opts.only.clone(),
            debug,
            distro: lane == Lane::Distro,
            vm_jobs,
        })
    };
    // A lane no selected suite needs is not resolved (`--lane plain` works
    // without a debug kernel), and a lane whose kernel is missing fails its
    // own suites, not the whole run. SUITES lists the plain lane first, so
    // running lane by lane keeps the run order.
    let lane_suites = |lane: Lane| -> Vec<&suites::Suite> {
        selected
            .iter()
            .copied()
            .filter(|s| s.lane == lane)
            .collect()
    };
    if opts.list {
        if let Some(ctx) = lanes.iter().find_map(|&l| context(l).ok()) {
            list(&ctx);
        }
        return Ok(true);
    }
    let mut r = Reporter::new(Box::new(std::io::stdout()));
    println!("xehpg-check: repository {}", repo.display());
    // `[n/N]` and the time left, from the committed floor and times; without
    // them (a fresh repository) no progress line.
    let floor_now = std::fs::read_to_string(repo.join(FLOOR_FILE))
        .ok()
        .and_then(|t| floor::parse(&t).ok());
    let times_now = std::fs::read_to_string(repo.join(times::TIMES_FILE))
        .ok()
        .and_then(|t| times::parse(&t).ok());
    if let (Some(f), Some(t)) = (&floor_now, &times_now) {
        let names: Vec<&str> = [Lane::Plain, Lane::Debug, Lane::Distro]
            .into_iter()
            .flat_map(lane_suites)
            .map(|s| s.name)
            .collect();
        r.set_plan(progress::Plan::new(&names, f, t));
    }
    for lane in [Lane::Plain, Lane::Debug, Lane::Distro] {
        let suites = lane_suites(lane);
        if suites.is_empty() {
            continue;
        }
        let ctx = context(lane);
        match &ctx {
            Ok(c) => println!(
                "xehpg-check: {lane:?} lane on {}, {} VM run(s) at once",
                c.kdir.display(),
                c.vm_jobs
            ),
            Err(e) => println!("xehpg-check: {lane:?} lane: {e:#}"),
        }
        for suite in suites {
            // Stale logs of an earlier run would pass for this run's. A debug
            // suite's logs are under its lane name (`Context::log_dir`).
            let logs = repo.join("build/check-logs");
            let _ = std::fs::remove_dir_all(logs.join(suite.name));
            let _ = std::fs::remove_dir_all(logs.join(format!("{}-debug", suite.name)));
            let _ = std::fs::remove_dir_all(logs.join(format!("{}-distro", suite.name)));
            r.begin(suite.name, suite.title);
            let start = Instant::now();
            match &ctx {
                Ok(ctx) => (suite.run)(ctx, &mut r),
                Err(e) => r.case(Case::fail("kernel tree", format!("{e:#}"))),
            }
            r.end(start.elapsed());
        }
    }
    // The floor lists the cases of a full `make check`.
    if opts.only.is_empty() && opts.lane == LaneArg::Both {
        floor_suite(
            &repo.join(FLOOR_FILE),
            opts.update_floor,
            opts.floor_reason.as_deref(),
            &mut r,
        );
    }
    let recorded = suite_times(&repo.join(times::TIMES_FILE), opts.update_times, &mut r);
    let results = repo.join(progress::RESULTS_FILE);
    let json = progress::results(r.suites(), started.elapsed());
    let written = results
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| std::fs::write(&results, format!("{json:#}\n")));
    match written {
        Ok(()) => r.note(&format!("results: {}", results.display())),
        Err(e) => r.note(&format!("writing {}: {e}", results.display())),
    }
    r.summary(started.elapsed(), &recorded);
    Ok(r.totals().1 == 0)
}

/// The recorded suite times for the summary's warnings; with `update`, first
/// rewrites the file with this run's suite times (the `floor` pseudo-suite
/// aside). A file that cannot be read or written is a note, not a failure:
/// the times judge no test.
fn suite_times(path: &Path, update: bool, r: &mut Reporter) -> times::Times {
    let old = match std::fs::read_to_string(path) {
        Ok(text) => times::parse(&text).with_context(|| format!("{}", path.display())),
        Err(e) => Err(e).with_context(|| format!("reading {}", path.display())),
    };
    let old = old.unwrap_or_else(|e| {
        r.note(&format!("{e:#}: no recorded suite times"));
        times::Times::new()
    });
    if !update {
        return old;
    }
    let run: Vec<report::SuiteTotals> = r
        .suites()
        .iter()
        .filter(|s| suites::SUITES.iter().any(|x| x.name == s.name))
        .cloned()
        .collect();
    let new = times::update(&old, &run);
    let written = times::render(&new).and_then(|text| {
        std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
    });
    match written {
        Ok(()) => r.note(&format!(
            "{} rewritten: {} suite time(s) from this run",
            path.display(),
            run.len()
        )),
        Err(e) => r.note(&format!("{e:#}")),
    }
    old
}

/// VM runs at once by default: one per CPU this process may use, at most
/// two (each TCG guest keeps one host thread busy; the mock and the runner
/// need little).
fn default_vm_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(2))
}

/// `--kdir`, else `KDIR` (`KDIR_DEBUG` for the debug lane) from `env.mk`;
/// made absolute.
fn kernel_dir(arg: Option<PathBuf>, env: &EnvMk, debug: bool) -> Result<PathBuf> {
    let (key, how) = if debug {
        ("KDIR_DEBUG", "XEHPG_DEBUG_KERNEL=1 tools/bootstrap.sh")
    } else {
        ("KDIR", "tools/bootstrap.sh")
    };
    let kdir = match (arg, env.get(key)) {
        (Some(k), _) => k,
        (None, Some(k)) => PathBuf::from(k),
        (None, None) => anyhow::bail!("no --kdir and no {key} in {} (run {how})", env.origin()),
    };
    kdir.canonicalize()
        .with_context(|| format!("kernel tree {}", kdir.display()))
}

/// `--list`: suites with their titles, and the items some suites have.
fn list(ctx: &Context) {
    for s in suites::SUITES {
        println!("{:<6} {}", s.name, s.title);
        if let Some(items) = s.list {
            for item in items(ctx) {
                println!("         {}:{item}", s.name);
            }
        }
    }
}

/// The `floor` pseudo-suite: checks that every case the floor lists ran, or
/// with `update`, rewrites the floor from this run.
fn floor_suite(path: &Path, update: bool, reason: Option<&str>, r: &mut Reporter) {
    let ran = r.suites().to_vec();
    r.begin(
        "floor",
        "every case tools/check-floor.toml lists ran, with its assertions",
    );
    let start = Instant::now();
    let name = "every floor case ran";
    // Checked only without `update`, which fails itself on a fall.
    const FEWER: &str = "every counted case made at least its recorded assertions";
    let old = match std::fs::read_to_string(path) {
        // The first --update-floor starts from an empty floor.
        Err(e) if update && e.kind() == std::io::ErrorKind::NotFound => Ok(floor::Floor::default()),
        text => text
            .with_context(|| format!("reading {}", path.display()))
            .and_then(|t| floor::parse(&t).with_context(|| format!("{}", path.display()))),
    };
    let case = match (old, update) {
        (Ok(old), true) => {
            let written = floor::update(&old, &ran, reason).and_then(|new| {
                r.note(&format!(
                    "{} rewritten: {} cases",
                    path.display(),
                    new.suites.values().map(|s| s.len()).sum::<usize>()
                ));
                std::fs::write(path, floor::render(&new)?)
                    .with_context(|| format!("writing {}", path.display()))
            });
            Case::from_result(name, written)
        }
        (Ok(old), false) => {
            let missing = floor::missing(&old, &ran);
            let new = floor::unlisted(&old, &ran);
            let excused: usize = floor::excused(&old, &ran).values().map(|s| s.len()).sum();
            if excused > 0 {
                r.note(&format!(
                    "{excused} floor case(s) skipped for want of text outside the repository, \
                     as [external] allows"
                ));
            }
            if new > 0 {
                r.note(&format!(
                    "{new} case(s) not in the floor yet: record them with --update-floor"
                ));
            }
            let fewer = floor::fewer_assertions(&old, &ran);
            let missing_case = if missing.is_empty() {
                Case::pass(name)
            } else {
                let reason = format!("{} floor case(s) did not run", missing.len());
                Case::fail(name, reason).with_details(missing)
            };
            let fewer_case = if fewer.is_empty() {
                Case::pass(FEWER)
            } else {
                let reason = format!(
                    "{} case(s) made fewer assertions than the floor records",
                    fewer.len()
                );
                Case::fail(FEWER, reason).with_details(fewer)
            };
            r.case(missing_case);
            fewer_case
        }
        (Err(e), _) => Case::fail(name, format!("{e:#}")),
    };
    r.case(case);
    r.end(start.elapsed());
}
