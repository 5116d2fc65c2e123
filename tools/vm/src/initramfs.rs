//! The guest's root file system: a static busybox, its applet links, the
//! modules, firmware, user files and `/init`, written as one newc archive.
//!
//! The tree is collected first and written sorted by path, which puts every
//! directory before its contents as the kernel's unpacker requires, and makes
//! the archive independent of the order options were given in.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::path::PathBuf;
use std::process::Command;

use anyhow::bail;
use anyhow::Context;
use anyhow::Result;

use crate::cli::GuestFile;
use crate::config::Firmware;
use crate::cpio;

/// Where busybox lives in the guest; applet links point here.
const BUSYBOX: &str = "bin/busybox";
/// Directories `/init` mounts on or writes to. `sys/kernel/debug` is hidden
/// by sysfs once mounted (sysfs provides its own), but keeps debugfs
/// mountable should /init ever skip sysfs.
const DIRS: &[(&str, u32)] = &[
    ("proc", 0o555),
    ("sys", 0o555),
    ("sys/kernel/debug", 0o700),
    ("dev", 0o755),
    ("tmp", 0o1777),
    ("lib/modules", 0o755),
    ("lib/firmware", 0o755),
];

/// One file system object.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Node {
    Dir { perm: u32 },
    File { perm: u32, source: Source },
    Symlink { target: String },
    CharDev { major: u32, minor: u32 },
}

/// Where a file's contents come from.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Source {
    Host(PathBuf),
    Bytes(Vec<u8>),
}

/// A file tree keyed by normalized path (no leading `/`).
#[derive(Debug, Default)]
pub struct Tree {
    nodes: BTreeMap<String, Node>,
}

impl Tree {
    /// Adds a directory (and its parents).
    pub fn dir(&mut self, path: &str, perm: u32) -> Result<()> {
        self.insert(path, Node::Dir { perm })
    }

    /// Adds a file copied from the host when the archive is written.
    pub fn host_file(&mut self, path: &str, perm: u32, host: &Path) -> Result<()> {
        let source = Source::Host(host.to_owned());
        self.insert(path, Node::File { perm, source })
    }

    /// Adds a file with the given contents.
    pub fn bytes_file(&mut self, path: &str, perm: u32, data: Vec<u8>) -> Result<()> {
        let source = Source::Bytes(data);
        self.insert(path, Node::File { perm, source })
    }

    pub fn symlink(&mut self, path: &str, target: &str) -> Result<()> {
        let target = target.to_owned();
        self.insert(path, Node::Symlink { target })
    }

    pub fn char_dev(&mut self, path: &str, major: u32, minor: u32) -> Result<()> {
        self.insert(path, Node::CharDev { major, minor })
    }

    /// Inserts `node`, creating missing parents. A later non-directory
    /// replaces an earlier one (a `--guest-file` may replace an applet); a
    /// directory and a non-directory at one path is an error.
    fn insert(&mut self, path: &str, node: Node) -> Result<()> {
        let path = normalize(path)?;
        let mut parent = String::new();
        for component in path.split('/').take(path.split('/').count() - 1) {
            if !parent.is_empty() {
                parent.push('/');
            }
            parent.push_str(component);
            match self.nodes.get(&parent) {
                Some(Node::Dir { .. }) => {}
                Some(_) => bail!("initramfs: /{parent} is not a directory, cannot hold /{path}"),
                None => {
                    self.nodes.insert(parent.clone(), Node::Dir { perm: 0o755 });
                }
            }
        }
        let is_dir = matches!(node, Node::Dir { .. });
        match self.nodes.get(&path) {
            Some(Node::Dir { .. }) if is_dir => {}
            Some(Node::Dir { .. }) => bail!("initramfs: /{path} is a directory"),
            Some(_) if is_dir => bail!("initramfs: /{path} exists and is not a directory"),
            _ => {}
        }
        self.nodes.insert(path, node);
        Ok(())
    }

    /// Writes the archive to `out`.
    ///
    /// # Errors
    ///
    /// A host file cannot be read, or writing fails.
    pub fn write<W: Write>(&self, out: W) -> Result<W> {
        let mut writer = cpio::Writer::new(out);
        for (path, node) in &self.nodes {
            match node {
                Node::Dir { perm } => writer.dir(path, *perm)?,
                Node::File { perm, source } => {
                    let data = match source {
                        Source::Host(host) => {
                            fs::read(host).with_context(|| format!("reading {}", host.display()))?
                        }
                        Source::Bytes(data) => data.clone(),
                    };
                    writer.file(path, *perm, &data)?;
                }
                Node::Symlink { target } => writer.symlink(path, target)?,
                Node::CharDev { major, minor } => writer.char_dev(path, 0o600, *major, *minor)?,
            }
        }
        writer.finish()
    }
}

/// Strips the leading `/` and rejects empty, `.` and `..` components, so
/// every path stays inside the archive's root.
fn normalize(path: &str) -> Result<String> {
    let path = path.trim_start_matches('/');
    if path.is_empty()
        || path
            .split('/')
            .any(|c| c.is_empty() || c == "." || c == "..")
    {
        bail!("initramfs: invalid path /{path}");
    }
    Ok(path.to_owned())
}

/// Everything that goes into the guest.
#[derive(Debug, Clone)]
pub struct Contents<'a> {
    pub busybox: &'a Path,
    /// Applet paths relative to `/`, from [`parse_applets`].
    pub applets: &'a [String],
    pub modules: &'a [PathBuf],
    pub firmware: &'a [Firmware],
    pub guest_files: &'a [GuestFile],
    pub init: &'a str,
}

/// The guest path of a module: `/lib/modules/<file name>`.
///
/// # Errors
///
/// The path has no usable file name.
pub fn module_guest_path(module: &Path) -> Result<String> {
    match module.file_name().and_then(|n| n.to_str()) {
        Some(name) => Ok(format!("/lib/modules/{name}")),
        None => bail!("module path {} has no file name", module.display()),
    }
}

/// Lays out the tree.
///
/// # Errors
///
/// Path conflicts, or a guest file whose mode cannot be read.
pub fn layout(contents: &Contents) -> Result<Tree> {
    let mut tree = Tree::default();
    for (dir, perm) in DIRS {
        tree.dir(dir, *perm)?;
    }
    // The kernel opens /dev/console for init's stdio before /init runs, so it
    // must exist before devtmpfs is mounted over /dev.
    tree.char_dev("dev/console", 5, 1)?;
    tree.host_file(BUSYBOX, 0o755, contents.busybox)?;
    for applet in contents.applets {
        tree.symlink(applet, &format!("/{BUSYBOX}"))?;
    }
    for module in contents.modules {
        tree.host_file(&module_guest_path(module)?, 0o644, module)?;
    }
    for firmware in contents.firmware {
        tree.host_file(
            &format!("lib/firmware/{}", firmware.rel),
            0o644,
            &firmware.host,
        )?;
    }
    for file in contents.guest_files {
        let meta =
            fs::metadata(&file.host).with_context(|| format!("reading {}", file.host.display()))?;
        if !meta.is_file() {
            bail!("--guest-file {}: not a regular file", file.host.display());
        }
        tree.host_file(&file.guest, meta.permissions().mode() & 0o7777, &file.host)?;
    }
    tree.bytes_file("init", 0o755, contents.init.as_bytes().to_vec())?;
    Ok(tree)
}

/// The applet paths (`bin/sh`, `sbin/insmod`, ...) of `busybox --list-full`.
/// Using busybox's own layout puts every applet where scripts expect it
/// (`/usr/bin/env` for shebangs, `/sbin/insmod`).
pub fn parse_applets(list: &str) -> Vec<String> {
    list.lines()
        .map(|line| line.trim().trim_start_matches('/'))
        .filter(|path| normalize(path).is_ok() && *path != BUSYBOX)
        .map(str::to_owned)
        .collect()
}

/// Asks `busybox` for its applets.
///
/// # Errors
///
/// busybox does not run, or lists nothing (not a busybox, or one built
/// without the `--list-full` option).
pub fn busybox_applets(busybox: &Path) -> Result<Vec<String>> {
    let out = Command::new(busybox)
        .arg("--list-full")
        .output()
        .with_context(|| format!("running {} --list-full", busybox.display()))?;
    let applets = parse_applets(&String::from_utf8_lossy(&out.stdout));
    if !out.status.success() || !applets.iter().any(|a| a == "bin/sh") {
        bail!(
            "{} --list-full listed no bin/sh: need a static busybox (Debian: busybox-static)",
            busybox.display()
        );
    }
    Ok(applets)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpio::read::entries;
    use crate::cpio::read::Entry;

    fn find<'a>(entries: &'a [Entry], name: &str) -> &'a Entry {
        entries
            .iter()
            .find(|e| e.name == name)
            .unwrap_or_else(|| panic!("{name} missing"))
    }

    #[test]
    fn layout_puts_everything_in_place() {
        let tmp = tempfile::tempdir().unwrap();
        let host = |name: &str, data: &[u8], mode: u32| {
            let path = tmp.path().join(name);
            fs::write(&path, data).unwrap();
            fs::set_permissions(&path, fs::Permissions::from_mode(mode)).unwrap();
            path
        };
        let busybox = host("busybox", b"BB", 0o755);
        let modules = [host("xehpg.ko", b"KO", 0o600)];
        let firmware = [Firmware {
            host: host("guc.bin", b"FW", 0o600),
            rel: "i915/dg2_guc_70.bin".into(),
        }];
        let guest_files = [GuestFile {
            host: host("t.sh", b"#!/bin/sh\n", 0o750),
            guest: "/tests/t.sh".into(),
        }];
        let applets = parse_applets("bin/sh\nsbin/insmod\nusr/bin/env\n");
        let contents = Contents {
            busybox: &busybox,
            applets: &applets,
            modules: &modules,
            firmware: &firmware,
            guest_files: &guest_files,
            init: "#!/bin/sh\n",
        };
        let archive = layout(&contents).unwrap().write(Vec::new()).unwrap();
        let got = entries(&archive);

        // Parents come before children.
        for (index, entry) in got.iter().enumerate() {
            if let Some((parent, _)) = entry.name.rsplit_once('/') {
                let parent_index = got.iter().position(|e| e.name == parent).unwrap();
                assert!(parent_index < index, "{} before its parent", entry.name);
            }
        }
        assert_eq!(find(&got, "bin/busybox").data, b"BB");
        assert_eq!(find(&got, "bin/busybox").mode, cpio::S_IFREG | 0o755);
        for applet in ["bin/sh", "sbin/insmod", "usr/bin/env"] {
            assert_eq!(find(&got, applet).data, b"/bin/busybox");
            assert_eq!(find(&got, applet).mode, cpio::S_IFLNK | 0o777);
        }
        assert_eq!(find(&got, "lib/modules/xehpg.ko").data, b"KO");
        assert_eq!(
            find(&got, "lib/modules/xehpg.ko").mode,
            cpio::S_IFREG | 0o644
        );
        assert_eq!(find(&got, "lib/firmware/i915/dg2_guc_70.bin").data, b"FW");
        assert_eq!(find(&got, "lib/firmware/i915").mode, cpio::S_IFDIR | 0o755);
        assert_eq!(find(&got, "tests/t.sh").mode, cpio::S_IFREG | 0o750);
        assert_eq!(find(&got, "init").mode, cpio::S_IFREG | 0o755);
        assert_eq!(find(&got, "dev/console").rdev, (5, 1));
        assert_eq!(find(&got, "tmp").mode, cpio::S_IFDIR | 0o1777);
        assert_eq!(find(&got, "sys/kernel/debug").mode, cpio::S_IFDIR | 0o700);
    }

    #[test]
    fn conflicts_are_errors_and_files_replace_files() {
        let mut tree = Tree::default();
        tree.symlink("bin/ls", "/bin/busybox").unwrap();
        tree.bytes_file("bin/ls", 0o755, b"mine".to_vec()).unwrap();
        let got = entries(&tree.write(Vec::new()).unwrap());
        assert_eq!(find(&got, "bin/ls").data, b"mine");
        assert!(tree.bytes_file("bin/ls/x", 0o644, vec![]).is_err());
        assert!(tree.dir("bin/ls", 0o755).is_err());
        assert!(tree.bytes_file("bin", 0o644, vec![]).is_err());
        // Adding an existing directory again is harmless.
        tree.dir("bin", 0o755).unwrap();
    }

    #[test]
    fn paths_stay_inside_the_root() {
        let mut tree = Tree::default();
        for bad in ["", "/", "a//b", "a/../b", "./a", "a/"] {
            assert!(tree.bytes_file(bad, 0o644, vec![]).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn applet_list_parsing() {
        let list = "bin/sh\n/sbin/insmod\n\nusr/bin/[\nbin/busybox\n../evil\n";
        assert_eq!(parse_applets(list), ["bin/sh", "sbin/insmod", "usr/bin/["]);
    }

    #[test]
    fn module_paths() {
        assert_eq!(
            module_guest_path(Path::new("/r/xehpg.ko")).unwrap(),
            "/lib/modules/xehpg.ko"
        );
        assert!(module_guest_path(Path::new("/")).is_err());
    }

    #[test]
    fn host_busybox_lists_applets() {
        let busybox = Path::new("/bin/busybox");
        if !busybox.exists() {
            eprintln!("no /bin/busybox; skipping");
            return;
        }
        let applets = busybox_applets(busybox).unwrap();
        for needed in [
            "bin/sh",
            "sbin/insmod",
            "bin/mount",
            "sbin/poweroff",
            "bin/cttyhack",
        ] {
            assert!(applets.iter().any(|a| a == needed), "{needed}");
        }
    }

    #[test]
    fn non_busybox_is_rejected() {
        assert!(busybox_applets(Path::new("/bin/true")).is_err());
        assert!(busybox_applets(Path::new("/nonexistent")).is_err());
    }
}
