//! Integration scenarios: `tools/guest/tests/<name>.sh` and their headers.
//!
//! The comment block at the top of a scenario (after an optional `#!` line)
//! configures its VM run, one directive per line:
//!
//! ```text
//! # mock-args: --fault all-ones         extra mock arguments (repeatable, split on spaces)
//! # device-id: 0x56a0                   PCI device ID the mock presents
//! # params: key=val key2=val2           module parameters (repeatable)
//! # expect-violation: KIND              mock violation kind that must occur (repeatable)
//! # expect-unknown: 0x1234              unknown-register offset allowed (repeatable)
//! # expect-mock: mmio_reads == 0        what the mock's summary must record (repeatable, [`super::expect`])
//! # no-load                             do not insmod the driver at boot
//! # distro                              also run in the distro lane (a first-load check)
//! # guest-module: sriov-shim            ship a test-only module to /lib/modules (repeatable)
//! # guest-tools: host                   ship the host tools (xehpg-smoke, xehpg-report) to /usr/bin
//! # module: production                  ship the production xehpg.ko (default: the test build)
//! # timeout: 120                        guest command timeout in seconds
//! # own-boot: REASON                    never share a boot with other scenarios
//! # debug-only: REASON                  exists only in the debug lane (`vm-debug`)
//! # plain-only: REASON                  exists only in the plain lane (`vm`)
//! # vcpus: 2                            guest CPUs (default 1; 1 to 4)
//! ```
//!
//! `debug-only` is for a scenario that needs what only the debug kernel has
//! (fault injection such as failslab, a detector's report): the other lanes
//! do not list it at all. It contradicts `distro` (the distro lane boots
//! Debian's kernel, never the debug one); a header with both is an error.
//!
//! `plain-only` is the converse, for a scenario the debug lane cannot judge
//! (`lockdown` shuts the debug lane's kmemleak control file, so its leak
//! scan cannot run after it). A header with both is an error.
//!
//! Other comment lines are prose. A line shaped like a directive with a dashed
//! key (`# expect-violations: x`) that is not one is an error, so a typo
//! cannot silently drop an expectation.

use super::expect::{self, Expectation};
use anyhow::{bail, Context as _, Result};
use std::path::{Path, PathBuf};

/// The test-only guest modules the Makefile builds (`make sriov-shim`).
pub const GUEST_MODULES: &[&str] = &["sriov-shim"];

/// The tool sets a scenario may ship (`# guest-tools: NAME`), with their
/// binaries: `host` is `tools/host`, built static for the guest by `make
/// tools` ([`super::super::Context::guest_tool`]).
pub const GUEST_TOOLS: &[(&str, &[&str])] = &[("host", &["xehpg-smoke", "xehpg-report"])];

/// The builds of the driver a scenario may ship (`# module: NAME`), with
/// their `build/` directory: the test build (`XEHPG_TEST=y`, the default:
/// the scenarios drive its selftest and load runs) and the production one.
pub const MODULES: &[(&str, &str)] = &[("test", "module"), ("production", "module-prod")];

/// Guest command timeout when the header sets none.
pub const DEFAULT_TIMEOUT_SECS: u64 = 180;

/// The directives of one scenario header.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Header {
    /// Extra mock arguments.
    pub mock_args: Vec<String>,
    /// Device ID, as written (validated hex).
    pub device_id: Option<String>,
    /// Module parameters, `key=val`.
    pub params: Vec<String>,
    /// Violation kinds that must occur.
    pub expect_violations: Vec<String>,
    /// Unknown-access offsets that are allowed.
    pub expect_unknown: Vec<u64>,
    /// What the mock's summary must record.
    pub expect_mock: Vec<Expectation>,
    /// Do not load the module at boot.
    pub no_load: bool,
    /// Also run in the distro lane (`vm-distro`): one of the checks of a
    /// user's first load.
    pub distro: bool,
    /// Test-only guest modules shipped to `/lib/modules/` (not loaded: the
    /// script loads them when it needs them), e.g. `sriov-shim`.
    pub guest_modules: Vec<String>,
    /// Binaries shipped to `/usr/bin/` ([`GUEST_TOOLS`]); not part of
    /// the boot key: a boot ships them when one of its scenarios asks.
    pub guest_tools: Vec<&'static str>,
    /// Guest command timeout, seconds.
    pub timeout: Option<u64>,
    /// Why the scenario boots alone ([`super::group`]), if it does.
    pub own_boot: Option<String>,
    /// Guest CPUs, if not [`super::super::VCPUS`].
    pub vcpus: Option<u32>,
    /// `# module: production`: the production build of the driver is
    /// shipped instead of the test build.
    pub production: bool,
    /// Why the scenario runs only in the debug lane (`vm-debug`), if it
    /// does: the other lanes do not list it.
    pub debug_only: Option<String>,
    /// Why the scenario runs only in the plain lane (`vm`), if it does: the
    /// debug lane does not list it.
    pub plain_only: Option<String>,
}

impl Header {
    /// The `build/` directory of the driver build the scenario ships
    /// ([`MODULES`]).
    pub fn module_dir(&self) -> &'static str {
        let name = self.build();
        MODULES
            .iter()
            .find(|(n, _)| *n == name)
            .map_or("module", |(_, dir)| dir)
    }

    /// The name of the driver build the scenario loads ([`MODULES`]):
    /// `production` or `test`.
    pub fn build(&self) -> &'static str {
        if self.production {
            "production"
        } else {
            "test"
        }
    }

    /// The timeout to give the VM runner.
    pub fn timeout_secs(&self) -> u64 {
        self.timeout.unwrap_or(DEFAULT_TIMEOUT_SECS)
    }
}

/// One scenario file.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// File stem, used as the test-name prefix.
    pub name: String,
    /// Host path.
    pub path: PathBuf,
    /// Its header, or why it does not parse.
    pub header: Result<Header, String>,
}

/// Every `*.sh` in `dir`, sorted by name; a missing directory has none.
pub fn discover(dir: &Path) -> Result<Vec<Scenario>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("listing {}", dir.display())),
    };
    let mut out = Vec::new();
    for entry in entries {
        let path = entry?.path();
        if path.extension().is_none_or(|e| e != "sh") {
            continue;
        }
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let header = std::fs::read_to_string(&path)
            .map_err(anyhow::Error::from)
            .and_then(|t| parse_header(&t))
            .map_err(|e| format!("{e:#}"));
        out.push(Scenario { name, path, header });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// Parses the directives of the leading comment block.
pub fn parse_header(text: &str) -> Result<Header> {
    let mut h = Header::default();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if i == 0 && line.starts_with("#!") {
            continue;
        }
        if line.is_empty() {
            continue;
        }
        let Some(comment) = line.strip_prefix('#') else {
            break;
        };
        directive(&mut h, comment.trim()).with_context(|| format!("line {}", i + 1))?;
    }
    if h.debug_only.is_some() && h.plain_only.is_some() {
        bail!("`# debug-only` and `# plain-only` contradict each other");
    }
    if h.distro && h.debug_only.is_some() {
        bail!(
            "`# distro` and `# debug-only` contradict each other: the distro lane boots \
             Debian's kernel, never the debug one"
        );
    }
    Ok(h)
}

/// Applies one comment line if it is a directive.
fn directive(h: &mut Header, comment: &str) -> Result<()> {
    match comment {
        "no-load" => {
            h.no_load = true;
            return Ok(());
        }
        "distro" => {
            h.distro = true;
            return Ok(());
        }
        _ => {}
    }
    let Some((key, value)) = comment.split_once(':') else {
        return Ok(());
    };
    let value = value.trim();
    let words = || value.split_whitespace().map(str::to_string);
    match key {
        "mock-args" => h.mock_args.extend(words()),
        "params" => h.params.extend(words()),
        "guest-module" => {
            let known = GUEST_MODULES.contains(&value);
            if !known {
                bail!("guest-module {value:?} is not one of {GUEST_MODULES:?}");
            }
            h.guest_modules.push(value.to_string());
        }
        "guest-tools" => match GUEST_TOOLS.iter().find(|(n, _)| *n == value) {
            Some((_, bins)) => h.guest_tools.extend(bins.iter().copied()),
            None => {
                let names: Vec<&str> = GUEST_TOOLS.iter().map(|(n, _)| *n).collect();
                bail!("guest-tools {value:?} is not one of {names:?}");
            }
        },
        "module" => match value {
            "production" => h.production = true,
            "test" => h.production = false,
            _ => {
                let names: Vec<&str> = MODULES.iter().map(|(n, _)| *n).collect();
                bail!("module {value:?} is not one of {names:?}");
            }
        },
        "device-id" => {
            if h.device_id.is_some() {
                bail!("device-id given twice");
            }
            hex(value).with_context(|| format!("device-id {value:?}"))?;
            h.device_id = Some(value.to_string());
        }
        "expect-violation" => {
            if value.is_empty() || value.contains(char::is_whitespace) {
                bail!("expect-violation takes one kind, got {value:?}");
            }
            h.expect_violations.push(value.to_string());
        }
        "expect-unknown" => h
            .expect_unknown
            .push(hex(value).with_context(|| format!("expect-unknown {value:?}"))?),
        "expect-mock" => h
            .expect_mock
            .push(expect::parse(value).map_err(anyhow::Error::msg)?),
        "vcpus" => match value.parse::<u32>() {
            Ok(n @ 1..=4) => h.vcpus = Some(n),
            _ => bail!("vcpus {value:?} is not a number from 1 to 4"),
        },
        "own-boot" => {
            if value.is_empty() {
                bail!("own-boot needs a reason");
            }
            h.own_boot = Some(value.to_string());
        }
        "debug-only" => {
            if value.is_empty() {
                bail!("debug-only needs a reason (what only the debug kernel has)");
            }
            if h.debug_only.is_some() {
                bail!("debug-only given twice");
            }
            h.debug_only = Some(value.to_string());
        }
        "plain-only" => {
            if value.is_empty() {
                bail!("plain-only needs a reason (why the debug lane cannot run it)");
            }
            if h.plain_only.is_some() {
                bail!("plain-only given twice");
            }
            h.plain_only = Some(value.to_string());
        }
        "timeout" => match value.parse::<u64>() {
            Ok(n) if n > 0 => h.timeout = Some(n),
            _ => bail!("timeout {value:?} is not a positive number of seconds"),
        },
        _ if looks_like_directive(key) => bail!("unknown directive `{key}:`"),
        _ => {}
    }
    Ok(())
}

/// `word-word...`: the shape of a directive key, unlike ordinary prose.
fn looks_like_directive(key: &str) -> bool {
    key.contains('-')
        && !key.starts_with('-')
        && !key.ends_with('-')
        && key.chars().all(|c| c.is_ascii_lowercase() || c == '-')
}

/// `0x1f` (the `0x` is required).
fn hex(value: &str) -> Result<u64> {
    let digits = value
        .strip_prefix("0x")
        .with_context(|| "expected 0x followed by hex digits")?;
    u64::from_str_radix(digits, 16).context("expected 0x followed by hex digits")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_directive() {
        let h = parse_header(
            "#!/bin/sh\n# A fault scenario: the device dies.\n#\n\
             # mock-args: --fault all-ones --seed 3\n# device-id: 0x56a0\n\
             # params: a=1 b=2\n# params: c=3\n# expect-violation: bad-write\n\
             # expect-violation: dma-out-of-range\n# expect-unknown: 0x1234\n\
             # expect-mock: h2g_replies.busy >= 2\n\
             # no-load\n# distro\n# timeout: 60\n# own-boot: counts the boot\n# vcpus: 2\n\
             # guest-module: sriov-shim\n\n. /tests/lib.sh\n# mock-args: --ignored\n",
        )
        .unwrap();
        assert_eq!(h.mock_args, ["--fault", "all-ones", "--seed", "3"]);
        assert_eq!(h.device_id.as_deref(), Some("0x56a0"));
        assert_eq!(h.params, ["a=1", "b=2", "c=3"]);
        assert_eq!(h.expect_violations, ["bad-write", "dma-out-of-range"]);
        assert_eq!(h.expect_unknown, [0x1234]);
        assert_eq!(h.expect_mock[0].to_string(), "h2g_replies.busy >= 2");
        assert!(parse_header("# expect-mock: a = 1\n").is_err());
        assert!(h.no_load);
        assert!(h.distro);
        assert_eq!(h.timeout_secs(), 60);
        assert_eq!(h.own_boot.as_deref(), Some("counts the boot"));
        assert_eq!(h.vcpus, Some(2));
        assert_eq!(h.guest_modules, ["sriov-shim"]);
        assert_eq!(h.debug_only, None);
        let d =
            parse_header("#!/bin/sh\n# debug-only: failslab fault injection\n# no-load\n").unwrap();
        assert_eq!(d.debug_only.as_deref(), Some("failslab fault injection"));
        assert!(d.no_load);
    }

    #[test]
    fn debug_only_needs_a_reason_and_excludes_distro() {
        let e = parse_header("# debug-only:\n").unwrap_err();
        assert!(format!("{e:#}").contains("needs a reason"), "{e:#}");
        assert!(parse_header("# debug-only: a\n# debug-only: b\n").is_err());
        for text in [
            "# distro\n# debug-only: failslab\n",
            "# debug-only: failslab\n# distro\n",
        ] {
            let e = parse_header(text).unwrap_err();
            assert!(format!("{e:#}").contains("contradict"), "{text}: {e:#}");
        }
        // A typo of the key is an error, not prose.
        assert!(parse_header("# debug-onyl: x\n").is_err());
    }

    #[test]
    fn plain_only_needs_a_reason_and_excludes_debug_only() {
        let h = parse_header("# plain-only: lockdown shuts kmemleak\n").unwrap();
        assert_eq!(h.plain_only.as_deref(), Some("lockdown shuts kmemleak"));
        let e = parse_header("# plain-only:\n").unwrap_err();
        assert!(format!("{e:#}").contains("needs a reason"), "{e:#}");
        assert!(parse_header("# plain-only: a\n# plain-only: b\n").is_err());
        let e = parse_header("# plain-only: a\n# debug-only: b\n").unwrap_err();
        assert!(format!("{e:#}").contains("contradict"), "{e:#}");
    }

    #[test]
    fn prose_is_not_a_directive_but_typos_are_errors() {
        let h = parse_header("# Checks this: probe works\n# Note: nothing\nrun\n").unwrap();
        assert_eq!(h, Header::default());
        assert_eq!(h.timeout_secs(), DEFAULT_TIMEOUT_SECS);
        let e = parse_header("# expect-violations: x\n").unwrap_err();
        assert_eq!(
            format!("{e:#}"),
            "line 1: unknown directive `expect-violations:`"
        );
    }

    #[test]
    fn bad_values_are_errors() {
        assert!(parse_header("# device-id: 56a0\n").is_err());
        assert!(parse_header("# device-id: 0x56a0\n# device-id: 0x56a1\n").is_err());
        assert!(parse_header("# expect-unknown: 0xzz\n").is_err());
        assert!(parse_header("# expect-violation: a b\n").is_err());
        assert!(parse_header("# timeout: 0\n").is_err());
        assert!(parse_header("# timeout: soon\n").is_err());
        assert!(parse_header("# guest-module: nonesuch\n").is_err());
        assert!(parse_header("# own-boot:\n").is_err());
        assert!(parse_header("# vcpus: 0\n").is_err());
        assert!(parse_header("# vcpus: many\n").is_err());
        assert_eq!(parse_header("# vcpus: 2\n").unwrap().vcpus, Some(2));
        assert_eq!(
            parse_header("# own-boot: counts the boot\n")
                .unwrap()
                .own_boot
                .as_deref(),
            Some("counts the boot")
        );
    }

    #[test]
    fn module_picks_the_build() {
        let h = parse_header("# module: production\n").unwrap();
        assert!(h.production);
        assert_eq!(h.module_dir(), "module-prod");
        let t = parse_header("# timeout: 5\n").unwrap();
        assert!(!t.production);
        assert_eq!(t.module_dir(), "module");
        assert_eq!(
            parse_header("# module: test\n").unwrap().module_dir(),
            "module"
        );
        assert!(parse_header("# module: debug\n").is_err());
    }

    #[test]
    fn guest_modules_are_collected() {
        let h = parse_header("# guest-module: sriov-shim\n# no-load\n").unwrap();
        assert_eq!(h.guest_modules, ["sriov-shim"]);
        assert!(parse_header("# timeout: 5\n")
            .unwrap()
            .guest_modules
            .is_empty());
    }

    #[test]
    fn guest_tools_name_their_binaries() {
        let h = parse_header("# guest-tools: host\n").unwrap();
        assert_eq!(h.guest_tools, ["xehpg-smoke", "xehpg-report"]);
        assert!(parse_header("# guest-tools: hosts\n").is_err());
        assert!(parse_header("# no-load\n").unwrap().guest_tools.is_empty());
    }

    #[test]
    fn discovers_scripts_sorted() {
        let dir = std::env::temp_dir().join(format!("xehpg-check-scn-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("b.sh"), "# timeout: x\n").unwrap();
        std::fs::write(dir.join("a.sh"), "# no-load\n").unwrap();
        std::fs::write(dir.join("README"), "").unwrap();
        let s = discover(&dir).unwrap();
        assert_eq!(
            s.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
            ["a", "b"]
        );
        assert!(s[0].header.as_ref().unwrap().no_load);
        assert!(s[1].header.is_err());
        assert!(discover(&dir.join("none")).unwrap().is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
