//! The suites, in the order `make check` runs them, and what they share.

mod abi;
mod cargo_test;
mod detectors;
mod docs;
mod fwtable;
pub(crate) mod kernel_log;
mod kunit;
mod prod_module;
pub(crate) mod regs;
mod style;
mod tools;
mod upstream_abi;
pub(crate) mod vm;
mod wa_table;
mod xe_diff;
pub(crate) mod xe_probe;
pub(crate) mod xe_vf;

use crate::cli::Selection;
use crate::report::Reporter;
use anyhow::{bail, Result};
use std::path::PathBuf;
use std::process::Command;
use xehpg_common::envmk::EnvMk;
use xehpg_common::process::Finished;

/// Which kernel a suite's VM boots run on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lane {
    /// The plain test kernel (`KDIR`), and the suites that boot nothing.
    Plain,
    /// The debug kernel (`KDIR_DEBUG`): KASAN, lockdep, kmemleak, UBSAN.
    Debug,
    /// Debian's packaged kernel, booted as Debian ships it, with the module
    /// `make distro-modules` built for it with Debian's own rustc
    /// ([`DISTRO_DIR`]).
    Distro,
}

/// Where `make distro-modules` (tools/distro-modules.sh) puts Debian's
/// `vmlinuz`, the module built for it and the guest modules, under `build/`.
pub const DISTRO_DIR: &str = "distro";

/// The target the guest's tools are built for (`make tools`): the host's
/// own triple named explicitly, so that `+crt-static` in RUSTFLAGS reaches
/// only the guest binaries and they land in a directory of their own.
pub const GUEST_TARGET: &str = "x86_64-unknown-linux-gnu";

/// One suite: a name for `--only`, a title for its header, and its body.
pub struct Suite {
    /// Name used by `--only`, the floor file and the summary.
    pub name: &'static str,
    /// The kernel its runs boot; a debug suite gets the debug [`Context`].
    pub lane: Lane,
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
        lane: Lane::Plain,
        title: "cargo test of the tools workspace",
        run: tools::run,
        list: None,
    },
    Suite {
        name: "style",
        lane: Lane::Plain,
        title: "rustfmt and clippy, tools and driver",
        run: style::run,
        list: None,
    },
    Suite {
        name: "docs",
        lane: Lane::Plain,
        title: "Sphinx builds the documentation without warnings; no merge damage; ABI files valid",
        run: docs::run,
        list: None,
    },
    Suite {
        name: "abi",
        lane: Lane::Plain,
        title: "checked-in bindgen output is current",
        run: abi::run,
        list: None,
    },
    Suite {
        name: "uabi",
        lane: Lane::Plain,
        title: "driver and mock ABI against the kernel tree's upstream headers",
        run: upstream_abi::run,
        list: None,
    },
    Suite {
        name: "regs",
        lane: Lane::Plain,
        title: "driver and mock agree on shared registers",
        run: regs::run,
        list: None,
    },
    Suite {
        name: "fwtable",
        lane: Lane::Plain,
        title: "forcewake and steering tables: seed, driver, upstream i915",
        run: fwtable::run,
        list: None,
    },
    Suite {
        name: "wa-table",
        lane: Lane::Plain,
        title: "workaround, tuning, MOCS and PAT table against upstream xe's sources",
        run: wa_table::run,
        list: None,
    },
    Suite {
        name: "prod-module",
        lane: Lane::Plain,
        title: "production module: sizes beside the test build's, no test-only symbols",
        run: prod_module::run,
        list: None,
    },
    Suite {
        name: "kunit",
        lane: Lane::Plain,
        title: "driver KUnit suites in the VM",
        run: kunit::run,
        list: None,
    },
    Suite {
        name: "vm",
        lane: Lane::Plain,
        title: "guest scenarios against the mock device",
        run: vm::run,
        list: Some(vm::list),
    },
    Suite {
        name: "xe-probe",
        lane: Lane::Plain,
        title: "upstream xe probes the mock ATS-M: how far it gets, what the mock does not model",
        run: xe_probe::run,
        list: None,
    },
    Suite {
        name: "xe-diff",
        lane: Lane::Plain,
        title: "xe and xehpg on one mock: every difference in what they program triaged",
        run: xe_diff::run,
        list: None,
    },
    Suite {
        name: "xe-vf",
        lane: Lane::Plain,
        title: "upstream xe, in a second VM, as the VF driver of a VF xehpg provisioned",
        run: xe_vf::run,
        list: None,
    },
    Suite {
        name: "detectors",
        lane: Lane::Debug,
        title: "each bug detector of the debug kernel reports its deliberate trigger",
        run: detectors::run,
        list: None,
    },
    Suite {
        name: "kunit-debug",
        lane: Lane::Debug,
        title: "driver KUnit suites on the debug kernel, kernel log clean",
        run: kunit::run,
        list: None,
    },
    Suite {
        name: "xe-vf-debug",
        lane: Lane::Debug,
        title: "xe-vf with xehpg on the debug kernel, its log clean",
        run: xe_vf::run,
        list: None,
    },
    Suite {
        name: "vm-debug",
        lane: Lane::Debug,
        title: "guest scenarios on the debug kernel, kernel log clean",
        run: vm::run,
        list: Some(vm::list),
    },
    Suite {
        name: "vm-distro",
        lane: Lane::Distro,
        title: "guest scenarios on Debian's packaged kernel, module built with Debian's rustc",
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
    /// The debug lane: boot `kdir`'s own image, load the `-debug` modules,
    /// judge every run's kernel log ([`kernel_log`]); the detectors are
    /// proven live first ([`detectors`]).
    pub debug: bool,
    /// The distro lane: boot Debian's `vmlinuz` and load what `make
    /// distro-modules` built for it (`build/distro/`).
    pub distro: bool,
    /// VM runs a suite may have in flight at once.
    pub vm_jobs: usize,
}

/// Guest CPUs of a test VM unless a scenario asks for more (`# vcpus:`).
/// Two VMs run at once on the 2-core machine, and TCG runs each vCPU on a
/// host thread: one each keeps them from competing, and a single-CPU guest
/// boots faster (measured on the debug kernel, alone on the machine: 83 s
/// with two vCPUs, 51 s with one). Scenarios about concurrency ask for two.
pub const VCPUS: u32 = 1;

/// Boot timeout for the debug kernel: KASAN, lockdep and kmemleak make a
/// TCG boot several times slower than the runner's default allows for.
const DEBUG_BOOT_TIMEOUT_SECS: u64 = 300;

/// How much longer a guest command may take on the debug kernel.
pub const DEBUG_SLOWDOWN: u64 = 3;

/// Kernel command line of every debug-lane boot. `slab_debug=Z` (red zones,
/// the cheapest debug flag under TCG) matters for what it turns off: a cache with any
/// `SLAB_DEBUG_FLAGS` gets no per-CPU sheaves (`calculate_sheaf_capacity`,
/// mm/slub.c). A sheaf is a kmalloc'ed array of object pointers, scanned by
/// kmemleak like any object, and an allocation only lowers its `size`
/// (`alloc_from_pcs`), leaving the pointer to the object it handed out in the
/// slot: every recently allocated object looked referenced, so a leak went
/// unreported (Documentation/testing.rst, "kmemleak and the slab sheaves").
pub const DEBUG_CMDLINE: &str = "slab_debug=Z";

impl Context {
    /// `tools/`, the cargo workspace.
    pub fn tools_dir(&self) -> PathBuf {
        self.repo.join("tools")
    }

    /// A binary of the tools built static for the guest (`# guest-tools:`):
    /// `make tools` builds `tools/host` for [`GUEST_TARGET`] with
    /// `+crt-static`, into the target's own directory.
    pub fn guest_tool(&self, name: &str) -> PathBuf {
        self.tools_dir()
            .join("target")
            .join(GUEST_TARGET)
            .join("release")
            .join(name)
    }

    /// The name of suite `base` in this context's lane: `vm` runs as
    /// `vm-debug` on the debug kernel.
    pub fn lane_name(&self, base: &str) -> String {
        if self.debug {
            format!("{base}-debug")
        } else if self.distro {
            format!("{base}-distro")
        } else {
            base.to_string()
        }
    }

    /// `build/distro/<file>`, what `make distro-modules` built.
    pub fn distro_file(&self, file: &str) -> PathBuf {
        self.repo.join("build").join(DISTRO_DIR).join(file)
    }

    /// `build/check-logs/<suite>`, where the suite's subprocess logs go
    /// (`<suite>-debug` in the debug lane).
    pub fn log_dir(&self, base: &str) -> PathBuf {
        self.repo
            .join("build/check-logs")
            .join(self.lane_name(base))
    }

    /// Items selected inside suite `base` (of this lane) by `--only SUITE:ITEM`.
    pub fn items(&self, base: &str) -> Vec<String> {
        let suite = self.lane_name(base);
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
    /// `--repo`), ready for more arguments, with [`VCPUS`] guest CPUs.
    pub fn vm_command(&self) -> Command {
        let mut cmd = Command::new(self.repo.join("tools/vm/run"));
        cmd.arg(format!("--smp={VCPUS}"));
        if self.debug {
            cmd.arg(format!(
                "--kernel={}",
                self.kdir.join("arch/x86/boot/bzImage").display()
            ))
            .arg(format!("--boot-timeout={DEBUG_BOOT_TIMEOUT_SECS}"))
            .arg(format!("--append={DEBUG_CMDLINE}"));
        } else if self.distro {
            cmd.arg(format!(
                "--kernel={}",
                self.distro_file("vmlinuz").display()
            ));
        }
        cmd
    }

    /// `build/<variant>/xehpg.ko`, or `build/<variant>-debug/xehpg.ko` in
    /// the debug lane (`make debug-modules`). In the distro lane the test
    /// build (`module`) is `build/distro/test/xehpg.ko` and the production
    /// one (`module-prod`) `build/distro/xehpg.ko` (`make distro-modules`).
    pub fn module(&self, variant: &str) -> PathBuf {
        if self.distro {
            return match variant {
                "module" => self.distro_file("test/xehpg.ko"),
                _ => self.distro_file("xehpg.ko"),
            };
        }
        let dir = if self.debug {
            format!("{variant}-debug")
        } else {
            variant.to_string()
        };
        self.repo.join("build").join(dir).join("xehpg.ko")
    }

    /// A test-only guest module `name` (`# guest-module: NAME`):
    /// `build/<name>/xehpg_<name>.ko` with `-` as `_` in the file name, or
    /// `build/<name>-debug/...` in the debug lane (`make sriov-shim`).
    pub fn guest_module(&self, name: &str) -> PathBuf {
        if self.distro {
            return self.distro_file(name).join(guest_module_file(name));
        }
        let dir = if self.debug {
            format!("{name}-debug")
        } else {
            name.to_string()
        };
        self.repo
            .join("build")
            .join(dir)
            .join(guest_module_file(name))
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

/// The suites `selections` name (all if none), limited to `lanes`, in run
/// order.
pub fn selected(selections: &[Selection], lanes: &[Lane]) -> Result<Vec<&'static Suite>> {
    let in_lanes = |s: &&Suite| lanes.contains(&s.lane);
    if let Some(bad) = selections
        .iter()
        .find(|s| !SUITES.iter().any(|x| x.name == s.suite))
    {
        let names: Vec<&str> = SUITES.iter().map(|s| s.name).collect();
        bail!("no suite {:?} (suites: {})", bad.suite, names.join(", "));
    }
    if let Some(bad) = selections
        .iter()
        .find(|s| !SUITES.iter().filter(in_lanes).any(|x| x.name == s.suite))
    {
        bail!(
            "suite {} is not in the lane this run was asked for",
            bad.suite
        );
    }
    if let Some(bad) = selections
        .iter()
        .find(|s| s.item.is_some() && SUITES.iter().all(|x| x.name != s.suite || x.list.is_none()))
    {
        bail!(
            "suite {} has no items to select (only vm, vm-debug and vm-distro take :SCENARIO)",
            bad.suite
        );
    }
    Ok(SUITES
        .iter()
        .filter(in_lanes)
        .filter(|s| selections.is_empty() || selections.iter().any(|x| x.suite == s.name))
        .collect())
}

/// The `.ko` file name of guest module `name`, and where the guest finds it
/// under `/lib/modules/`: `xehpg_<name>.ko`, `-` written as `_` (Kbuild's
/// module names).
pub fn guest_module_file(name: &str) -> String {
    format!("xehpg_{}.ko", name.replace('-', "_"))
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

    const BOTH: &[Lane] = &[Lane::Plain, Lane::Debug];

    fn names(s: Vec<&Suite>) -> Vec<&str> {
        s.iter().map(|x| x.name).collect()
    }

    #[test]
    fn selection_keeps_run_order_and_rejects_unknown_suites() {
        assert_eq!(
            names(selected(&[], BOTH).unwrap()),
            [
                "tools",
                "style",
                "docs",
                "abi",
                "uabi",
                "regs",
                "fwtable",
                "wa-table",
                "prod-module",
                "kunit",
                "vm",
                "xe-probe",
                "xe-diff",
                "xe-vf",
                "detectors",
                "kunit-debug",
                "xe-vf-debug",
                "vm-debug"
            ]
        );
        let picked = selected(&[sel("vm", Some("probe")), sel("regs", None)], BOTH).unwrap();
        assert_eq!(names(picked), ["regs", "vm"]);
        assert!(selected(&[sel("nope", None)], BOTH).is_err());
        assert!(selected(&[sel("regs", Some("GU_CNTL"))], BOTH).is_err());
        assert!(selected(&[sel("vm-debug", Some("bind"))], BOTH).is_ok());
    }

    #[test]
    fn a_lane_runs_only_its_suites() {
        assert_eq!(
            names(selected(&[], &[Lane::Debug]).unwrap()),
            ["detectors", "kunit-debug", "xe-vf-debug", "vm-debug"]
        );
        assert!(selected(&[sel("detectors", None)], &[Lane::Plain]).is_err());
        assert!(!names(selected(&[], &[Lane::Plain]).unwrap()).contains(&"vm-debug"));
        assert!(selected(&[sel("regs", None)], &[Lane::Debug]).is_err());
        assert!(selected(&[sel("vm-debug", None)], &[Lane::Plain]).is_err());
    }

    #[test]
    fn debug_boots_turn_the_slab_sheaves_off() {
        let ctx = |debug| Context {
            repo: PathBuf::from("/r"),
            kdir: PathBuf::from("/k"),
            env: EnvMk::parse("").unwrap(),
            selections: Vec::new(),
            debug,
            distro: false,
            vm_jobs: 1,
        };
        let args = |c: &Context| {
            c.vm_command()
                .get_args()
                .map(|a| a.to_string_lossy().into_owned())
                .collect::<Vec<_>>()
        };
        let debug = args(&ctx(true));
        assert!(debug.contains(&"--append=slab_debug=Z".to_string()));
        assert!(debug.contains(&"--kernel=/k/arch/x86/boot/bzImage".to_string()));
        assert_eq!(args(&ctx(false)), ["--smp=1"]);
    }

    #[test]
    fn the_distro_lane_boots_debians_kernel_with_its_own_modules() {
        let ctx = Context {
            repo: PathBuf::from("/r"),
            kdir: PathBuf::from("/k"),
            env: EnvMk::parse("").unwrap(),
            selections: vec![sel("vm-distro", Some("guc"))],
            debug: false,
            distro: true,
            vm_jobs: 1,
        };
        let args: Vec<String> = ctx
            .vm_command()
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(args, ["--smp=1", "--kernel=/r/build/distro/vmlinuz"]);
        assert_eq!(
            ctx.module("module-prod"),
            PathBuf::from("/r/build/distro/xehpg.ko")
        );
        assert_eq!(
            ctx.module("module"),
            PathBuf::from("/r/build/distro/test/xehpg.ko")
        );
        assert_eq!(
            ctx.guest_module("sriov-shim"),
            PathBuf::from("/r/build/distro/sriov-shim/xehpg_sriov_shim.ko")
        );
        assert_eq!(ctx.lane_name("vm"), "vm-distro");
        assert_eq!(ctx.items("vm"), ["guc"]);
        assert_eq!(ctx.guest_command("x"), "x");
    }
}
