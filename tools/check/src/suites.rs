//! The suites, in the order `make check` runs them, and what they share.

mod abi;
mod cargo_test;
mod detectors;
mod fwtable;
pub(crate) mod kernel_log;
mod kunit;
pub(crate) mod regs;
mod style;
mod tools;
mod upstream_abi;
pub(crate) mod vm;

use crate::cli::Selection;
use crate::report::Reporter;
use anyhow::{bail, Result};
use std::path::PathBuf;
use std::process::Command;
use xehpg_common::envmk::EnvMk;
use xehpg_common::process::Finished;

/// One suite: a name for `--only`, a title for its header, and its body.
pub struct Suite {
    /// Name used by `--only`, the floor file and the summary.
    pub name: &'static str,
    /// One-line description printed in the header.
    pub title: &'static str,
    /// Runs the suite, reporting each test.
    pub run: fn(&Context, &mut Reporter),
    /// Items inside the suite, for `--list`.
    pub list: Option<fn(&Context) -> Vec<String>>,
}

/// Every suite, in run order.
pub const SUITES: &[Suite] = &[
    Suite {
        name: "tools",
        title: "cargo test of the tools workspace",
        run: tools::run,
        list: None,
    },
    Suite {
        name: "style",
        title: "rustfmt and clippy, tools and driver",
        run: style::run,
        list: None,
    },
    Suite {
        name: "abi",
        title: "checked-in bindgen output is current",
        run: abi::run,
        list: None,
    },
    Suite {
        name: "uabi",
        title: "driver and mock ABI against the kernel tree's upstream headers",
        run: upstream_abi::run,
        list: None,
    },
    Suite {
        name: "regs",
        title: "driver and mock agree on shared registers",
        run: regs::run,
        list: None,
    },
    Suite {
        name: "fwtable",
        title: "forcewake and steering tables: seed, driver, upstream i915",
        run: fwtable::run,
        list: None,
    },
    Suite {
        name: "detectors",
        title: "debug lane: each bug detector reports its deliberate trigger",
        run: detectors::run,
        list: None,
    },
    Suite {
        name: "kunit",
        title: "driver KUnit suites in the VM",
        run: kunit::run,
        list: None,
    },
    Suite {
        name: "vm",
        title: "guest scenarios against the mock device",
        run: vm::run,
        list: Some(vm::list),
    },
];

/// Exit status of `tools/vm/run` when the guest command timed out.
pub const VM_EXIT_TIMEOUT: i32 = 124;

/// Exit status of `tools/vm/run` when the guest never reported a status.
pub const VM_EXIT_NO_STATUS: i32 = 125;

/// A `tools/vm/run` exit in words, for failure messages.
pub fn vm_exit_meaning(f: &Finished) -> String {
    match f.code() {
        _ if f.timed_out => format!("the VM runner was killed after {} s", f.limit.as_secs()),
        Some(VM_EXIT_TIMEOUT) => "the guest command timed out".into(),
        Some(VM_EXIT_NO_STATUS) => {
            "the VM reported no exit status (kernel panic, QEMU or setup failure)".into()
        }
        _ => format!("the VM runner: {}", f.describe()),
    }
}

/// What every suite needs to know about this run.
pub struct Context {
    /// Repository root (absolute).
    pub repo: PathBuf,
    /// Kernel tree (absolute).
    pub kdir: PathBuf,
    /// The bootstrap's `env.mk`.
    pub env: EnvMk,
    /// `--only` selections.
    pub selections: Vec<Selection>,
    /// `--debug-kernel`: boot `kdir`'s own image, load the `-debug` modules,
    /// judge every run's kernel log ([`kernel_log`]), prove the detectors
    /// live first ([`detectors`]).
    pub debug: bool,
}

/// Boot timeout for the debug kernel: KASAN, lockdep and kmemleak make a
/// TCG boot several times slower than the runner's default allows for.
const DEBUG_BOOT_TIMEOUT_SECS: u64 = 300;

/// How much longer a guest command may take on the debug kernel.
pub const DEBUG_SLOWDOWN: u64 = 3;

/// Kernel command line of every debug-lane boot. `slab_debug=U` (alloc/free
/// owner tracking) matters for what it turns off: a cache with any
/// `SLAB_DEBUG_FLAGS` gets no per-CPU sheaves (`calculate_sheaf_capacity`,
/// mm/slub.c). A sheaf is a kmalloc'ed array of object pointers, scanned by
/// kmemleak like any object, and an allocation only lowers its `size`
/// (`alloc_from_pcs`), leaving the pointer to the object it handed out in the
/// slot: every recently allocated object looked referenced, so a leak went
/// unreported (Documentation/testing.rst, "kmemleak and the slab sheaves").
pub const DEBUG_CMDLINE: &str = "slab_debug=U";

/// Suites the debug lane runs.
pub const DEBUG_SUITES: &[&str] = &["detectors", "kunit", "vm"];

/// Suites only the debug lane runs: the detectors' triggers need the debug kernel.
pub const DEBUG_ONLY_SUITES: &[&str] = &["detectors"];

impl Context {
    /// `tools/`, the cargo workspace.
    pub fn tools_dir(&self) -> PathBuf {
        self.repo.join("tools")
    }

    /// `build/check-logs/<suite>`, where the suite's subprocess logs go.
    pub fn log_dir(&self, suite: &str) -> PathBuf {
        self.repo.join("build/check-logs").join(suite)
    }

    /// Items selected inside `suite` by `--only SUITE:ITEM`.
    pub fn items(&self, suite: &str) -> Vec<String> {
        self.selections
            .iter()
            .filter(|s| s.suite == suite)
            .filter_map(|s| s.item.clone())
            .collect()
    }

    /// The LLVM suffix for Kbuild: `$LLVM`, else `LLVM` from `env.mk`.
    pub fn llvm(&self) -> Result<String> {
        if let Ok(v) = std::env::var("LLVM") {
            if !v.is_empty() {
                return Ok(v);
            }
        }
        match self.env.get("LLVM") {
            Some(v) => Ok(v.to_string()),
            None => bail!(
                "no LLVM in {} (run tools/bootstrap.sh) or the environment",
                self.env.origin()
            ),
        }
    }

    /// `tools/vm/run` (which builds the runner and the mock, then passes
    /// `--repo`), ready for more arguments.
    pub fn vm_command(&self) -> Command {
        let mut cmd = Command::new(self.repo.join("tools/vm/run"));
        if self.debug {
            cmd.arg(format!(
                "--kernel={}",
                self.kdir.join("arch/x86/boot/bzImage").display()
            ))
            .arg(format!("--boot-timeout={DEBUG_BOOT_TIMEOUT_SECS}"))
            .arg(format!("--append={DEBUG_CMDLINE}"));
        }
        cmd
    }

    /// `build/<variant>/xehpg.ko`, or `build/<variant>-debug/xehpg.ko` in
    /// the debug lane (`make debug-modules`).
    pub fn module(&self, variant: &str) -> PathBuf {
        let dir = if self.debug {
            format!("{variant}-debug")
        } else {
            variant.to_string()
        };
        self.repo.join("build").join(dir).join("xehpg.ko")
    }

    /// The guest command running `test` (a shell command line); in the
    /// debug lane followed by the leak-scan epilogue, keeping its status.
    pub fn guest_command(&self, test: &str) -> String {
        if self.debug {
            format!("{test}; {}", kernel_log::EPILOGUE)
        } else {
            test.to_string()
        }
    }
}

/// The suites `selections` name (all if none; in the debug lane, all of
/// [`DEBUG_SUITES`] if none and only those), in run order.
pub fn selected(selections: &[Selection], debug: bool) -> Result<Vec<&'static Suite>> {
    if let Some(bad) = selections
        .iter()
        .find(|s| debug && !DEBUG_SUITES.contains(&s.suite.as_str()))
    {
        bail!(
            "--debug-kernel runs only the {} suites, not {}",
            DEBUG_SUITES.join(" and "),
            bad.suite
        );
    }
    if let Some(bad) = selections
        .iter()
        .find(|s| !debug && DEBUG_ONLY_SUITES.contains(&s.suite.as_str()))
    {
        bail!(
            "suite {} runs only on the debug kernel (make check-debug, --debug-kernel)",
            bad.suite
        );
    }
    if let Some(bad) = selections
        .iter()
        .find(|s| !SUITES.iter().any(|x| x.name == s.suite))
    {
        let names: Vec<&str> = SUITES.iter().map(|s| s.name).collect();
        bail!("no suite {:?} (suites: {})", bad.suite, names.join(", "));
    }
    if let Some(bad) = selections
        .iter()
        .find(|s| s.item.is_some() && s.suite != "vm")
    {
        bail!(
            "suite {} has no items to select (only vm:SCENARIO)",
            bad.suite
        );
    }
    Ok(SUITES
        .iter()
        .filter(|s| !debug || DEBUG_SUITES.contains(&s.name))
        .filter(|s| debug || !DEBUG_ONLY_SUITES.contains(&s.name))
        .filter(|s| selections.is_empty() || selections.iter().any(|x| x.suite == s.name))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sel(suite: &str, item: Option<&str>) -> Selection {
        Selection {
            suite: suite.into(),
            item: item.map(String::from),
        }
    }

    #[test]
    fn selection_keeps_run_order_and_rejects_unknown_suites() {
        let names = |s: Vec<&Suite>| s.iter().map(|x| x.name).collect::<Vec<_>>();
        assert_eq!(
            names(selected(&[], false).unwrap()),
            ["tools", "style", "abi", "uabi", "regs", "fwtable", "kunit", "vm"]
        );
        let picked = selected(&[sel("vm", Some("probe")), sel("regs", None)], false).unwrap();
        assert_eq!(names(picked), ["regs", "vm"]);
        assert!(selected(&[sel("nope", None)], false).is_err());
        assert!(selected(&[sel("regs", Some("GU_CNTL"))], false).is_err());
    }

    #[test]
    fn the_debug_lane_runs_only_kunit_and_vm() {
        let names = |s: Vec<&Suite>| s.iter().map(|x| x.name).collect::<Vec<_>>();
        assert_eq!(
            names(selected(&[], true).unwrap()),
            ["detectors", "kunit", "vm"]
        );
        assert_eq!(
            names(selected(&[sel("vm", Some("bind"))], true).unwrap()),
            ["vm"]
        );
        assert!(selected(&[sel("regs", None)], true).is_err());
    }

    #[test]
    fn debug_boots_turn_the_slab_sheaves_off() {
        let ctx = |debug| Context {
            repo: PathBuf::from("/r"),
            kdir: PathBuf::from("/k"),
            env: EnvMk::parse("").unwrap(),
            selections: Vec::new(),
            debug,
        };
        let args = |c: &Context| {
            c.vm_command()
                .get_args()
                .map(|a| a.to_string_lossy().into_owned())
                .collect::<Vec<_>>()
        };
        let debug = args(&ctx(true));
        assert!(debug.contains(&"--append=slab_debug=U".to_string()));
        assert!(debug.contains(&"--kernel=/k/arch/x86/boot/bzImage".to_string()));
        assert!(args(&ctx(false)).is_empty());
    }

    #[test]
    fn the_detectors_suite_runs_only_on_the_debug_kernel() {
        let names = |s: Vec<&Suite>| s.iter().map(|x| x.name).collect::<Vec<_>>();
        assert!(!names(selected(&[], false).unwrap()).contains(&"detectors"));
        assert!(selected(&[sel("detectors", None)], false).is_err());
        assert_eq!(
            names(selected(&[sel("detectors", None)], true).unwrap()),
            ["detectors"]
        );
    }
}
