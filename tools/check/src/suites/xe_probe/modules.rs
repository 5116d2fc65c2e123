//! Which modules upstream xe needs, in load order, read from the kernel
//! tree the plain kernel was built in.
//!
//! `modules.order` (written by `make modules`) names every module built; each
//! module's `.modinfo` section holds `depends=a,b` (modpost writes it). The
//! closure of xe's dependencies, dependencies first, is the order the guest
//! `insmod`s them: the guest has no `depmod` output to let `modprobe` do it.

use anyhow::{bail, Context as _, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The module the suite loads last.
pub const XE: &str = "xe";

/// One module: its name (as `depends=` spells it) and its file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Module {
    /// Name, `-` as `_` (the kernel's spelling in `depends=`).
    pub name: String,
    /// The `.ko` in the kernel tree.
    pub path: PathBuf,
}

/// xe and everything it depends on, dependencies first.
///
/// # Errors
///
/// No `modules.order` in `kdir`, no xe in it (a plain kernel built without
/// `tools/kernel-xe.config`), a module file that cannot be read, or a
/// dependency that was not built as a module.
pub fn load_order(kdir: &Path) -> Result<Vec<Module>> {
    let order = kdir.join("modules.order");
    let text =
        std::fs::read_to_string(&order).with_context(|| format!("reading {}", order.display()))?;
    let built: BTreeMap<String, PathBuf> = text
        .lines()
        .filter_map(|l| {
            let ko = kdir.join(l.trim()).with_extension("ko");
            let name = ko.file_stem()?.to_str()?.replace('-', "_");
            Some((name, ko))
        })
        .collect();
    if !built.contains_key(XE) {
        bail!(
            "{} names no xe module: the plain kernel was built without tools/kernel-xe.config \
             (run tools/bootstrap.sh)",
            order.display()
        );
    }
    let mut deps = BTreeMap::new();
    for (name, path) in &built {
        let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        deps.insert(name.clone(), depends(&bytes));
    }
    let names = order_of(XE, &deps)?;
    Ok(names
        .into_iter()
        .filter_map(|n| {
            let path = built.get(&n)?.clone();
            Some(Module { name: n, path })
        })
        .collect())
}

/// The `depends=` list of a module image: modpost's NUL-terminated string
/// in `.modinfo`, `-` spelled `_` as in `modules.order`'s names. Empty when
/// the module depends on nothing.
pub fn depends(ko: &[u8]) -> Vec<String> {
    const KEY: &[u8] = b"\0depends=";
    let Some(at) = ko.windows(KEY.len()).position(|w| w == KEY) else {
        return Vec::new();
    };
    let rest = &ko[at + KEY.len()..];
    let end = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
    String::from_utf8_lossy(&rest[..end])
        .split(',')
        .filter(|s| !s.is_empty())
        .map(|s| s.replace('-', "_"))
        .collect()
}

/// `root` and its dependencies, each after what it depends on.
///
/// # Errors
///
/// A dependency missing from `deps` (built into the kernel modules only
/// name modules, so it was not built) or a dependency cycle.
pub fn order_of(root: &str, deps: &BTreeMap<String, Vec<String>>) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let mut visiting = Vec::new();
    visit(root, deps, &mut visiting, &mut out)?;
    Ok(out)
}

fn visit(
    name: &str,
    deps: &BTreeMap<String, Vec<String>>,
    visiting: &mut Vec<String>,
    out: &mut Vec<String>,
) -> Result<()> {
    if out.iter().any(|o| o == name) {
        return Ok(());
    }
    if visiting.iter().any(|v| v == name) {
        bail!("module dependency cycle through {name}");
    }
    let Some(list) = deps.get(name) else {
        bail!("module {name} is needed but was not built");
    };
    visiting.push(name.to_string());
    for d in list {
        visit(d, deps, visiting, out)?;
    }
    visiting.pop();
    out.push(name.to_string());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(list: &[(&str, &[&str])]) -> BTreeMap<String, Vec<String>> {
        list.iter()
            .map(|(n, d)| (n.to_string(), d.iter().map(|s| s.to_string()).collect()))
            .collect()
    }

    #[test]
    fn depends_reads_the_modinfo_string() {
        let image = b"\x7fELF...\0license=GPL\0depends=drm_buddy,gpu-sched\0name=xe\0";
        assert_eq!(depends(image), ["drm_buddy", "gpu_sched"]);
        assert!(depends(b"\0depends=\0name=backlight\0").is_empty());
        assert!(depends(b"no modinfo here").is_empty());
    }

    #[test]
    fn dependencies_come_first_once() {
        let deps = map(&[
            ("xe", &["ttm", "drm_buddy", "drm_ttm_helper"]),
            ("drm_ttm_helper", &["ttm"]),
            ("ttm", &[]),
            ("drm_buddy", &[]),
            ("unrelated", &[]),
        ]);
        assert_eq!(
            order_of("xe", &deps).unwrap(),
            ["ttm", "drm_buddy", "drm_ttm_helper", "xe"]
        );
    }

    #[test]
    fn missing_dependency_and_cycle_are_errors() {
        let missing = map(&[("xe", &["gone"])]);
        assert!(format!("{:#}", order_of("xe", &missing).unwrap_err()).contains("gone"));
        let cycle = map(&[("xe", &["a"]), ("a", &["xe"])]);
        assert!(format!("{:#}", order_of("xe", &cycle).unwrap_err()).contains("cycle"));
    }
}
