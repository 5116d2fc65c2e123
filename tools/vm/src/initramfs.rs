//! The guest's root file system: a static busybox, its applet links, the
//! modules, firmware, user files and `/init`, written as one newc archive by
//! the kernel's own `usr/gen_init_cpio` from a list this module writes.
//!
//! The tree is collected first and listed sorted by path, which puts every
//! directory before its contents as the kernel's unpacker requires, and makes
//! the archive independent of the order options were given in. Everything is
//! owned by root with mtime 0 (`-t 0`), so the archive depends only on its
//! inputs, and `/dev/console` needs no root on the host.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::path::PathBuf;
use std::process::Command;

use anyhow::bail;
use anyhow::Context;
use anyhow::Result;

use crate::cli::GuestFile;
use crate::config::Firmware;

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

    /// The `gen_init_cpio` list of the tree. Files given as bytes are
    /// written into `scratch` first, since the list names host files.
    ///
    /// # Errors
    ///
    /// A path that the list's whitespace-separated format cannot hold, or a
    /// scratch file that cannot be written.
    pub fn cpio_list(&self, scratch: &Path) -> Result<String> {
        let mut out = String::new();
        for (index, (path, node)) in self.nodes.iter().enumerate() {
            let name = format!("/{path}");
            list_word(&name)?;
            // Infallible: writing to a String.
            let _ = match node {
                Node::Dir { perm } => writeln!(out, "dir {name} {perm:04o} 0 0"),
                Node::File { perm, source } => {
                    let host = match source {
                        Source::Host(host) => host.clone(),
                        Source::Bytes(data) => {
                            let host = scratch.join(format!("initramfs-{index}"));
                            fs::write(&host, data)
                                .with_context(|| format!("writing {}", host.display()))?;
                            host
                        }
                    };
                    let host = host.to_str().unwrap_or_default().to_owned();
                    list_word(&host)?;
                    writeln!(out, "file {name} {host} {perm:04o} 0 0")
                }
                Node::Symlink { target } => {
                    list_word(target)?;
                    writeln!(out, "slink {name} {target} 0777 0 0")
                }
                Node::CharDev { major, minor } => {
                    writeln!(out, "nod {name} 0600 0 0 c {major} {minor}")
                }
            };
        }
        Ok(out)
    }

    /// Writes the archive to `out` with the kernel's `gen_init_cpio`; its
    /// list and the files given as bytes go to `scratch`.
    ///
    /// # Errors
    ///
    /// As [`Tree::cpio_list`], or `gen_init_cpio` fails (a host file it
    /// cannot read, for one).
    pub fn write(&self, gen_init_cpio: &Path, scratch: &Path, out: &Path) -> Result<()> {
        let list = scratch.join("initramfs.list");
        fs::write(&list, self.cpio_list(scratch)?)
            .with_context(|| format!("writing {}", list.display()))?;
        let result = Command::new(gen_init_cpio)
            .args(["-t", "0", "-o"])
            .arg(out)
            .arg(&list)
            .output()
            .with_context(|| format!("running {}", gen_init_cpio.display()))?;
        if !result.status.success() {
            bail!(
                "{} {}: {}",
                gen_init_cpio.display(),
                result.status,
                String::from_utf8_lossy(&result.stderr).trim()
            );
        }
        Ok(())
    }
}

/// A name, host path or link target as one word of the list: the format
/// splits on whitespace and expands `${VAR}` in host paths.
fn list_word(word: &str) -> Result<()> {
    if word.is_empty() || word.contains(char::is_whitespace) || word.contains("${") {
        bail!("initramfs: {word:?} cannot be named in a gen_init_cpio list (whitespace or ${{)");
    }
    Ok(())
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

    #[test]
    fn layout_puts_everything_in_place() {
        let tmp = tempfile::tempdir().unwrap();
        let host = |name: &str, mode: u32| {
            let path = tmp.path().join(name);
            fs::write(&path, name).unwrap();
            fs::set_permissions(&path, fs::Permissions::from_mode(mode)).unwrap();
            path
        };
        let busybox = host("busybox", 0o755);
        let modules = [host("xehpg.ko", 0o600)];
        let firmware = [Firmware {
            host: host("guc.bin", 0o600),
            rel: "i915/dg2_guc_70.bin".into(),
        }];
        let guest_files = [GuestFile {
            host: host("t.sh", 0o750),
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
        let scratch = tmp.path().join("scratch");
        fs::create_dir(&scratch).unwrap();
        let list = layout(&contents).unwrap().cpio_list(&scratch).unwrap();
        let t = tmp.path().display();
        let s = scratch.display();
        // Sorted by path, so parents come before children.
        let expected = format!(
            "dir /bin 0755 0 0
file /bin/busybox {t}/busybox 0755 0 0
slink /bin/sh /bin/busybox 0777 0 0
dir /dev 0755 0 0
nod /dev/console 0600 0 0 c 5 1
file /init {s}/initramfs-5 0755 0 0
dir /lib 0755 0 0
dir /lib/firmware 0755 0 0
dir /lib/firmware/i915 0755 0 0
file /lib/firmware/i915/dg2_guc_70.bin {t}/guc.bin 0644 0 0
dir /lib/modules 0755 0 0
file /lib/modules/xehpg.ko {t}/xehpg.ko 0644 0 0
dir /proc 0555 0 0
dir /sbin 0755 0 0
slink /sbin/insmod /bin/busybox 0777 0 0
dir /sys 0555 0 0
dir /sys/kernel 0755 0 0
dir /sys/kernel/debug 0700 0 0
dir /tests 0755 0 0
file /tests/t.sh {t}/t.sh 0750 0 0
dir /tmp 1777 0 0
dir /usr 0755 0 0
dir /usr/bin 0755 0 0
slink /usr/bin/env /bin/busybox 0777 0 0
"
        );
        assert_eq!(list, expected);
        assert_eq!(
            fs::read(scratch.join("initramfs-5")).unwrap(),
            b"#!/bin/sh\n"
        );
    }

    /// The kernel's tool, where the bootstrap built it, accepts the list.
    /// A plain `cargo test` reports it ignored (a skip, not a pass); `make
    /// check` runs it with `--include-ignored` after the bootstrap, where a
    /// missing tool fails it.
    #[test]
    #[ignore = "needs the bootstrap: the kernel tree's usr/gen_init_cpio (KDIR in env.mk)"]
    fn gen_init_cpio_writes_the_archive() {
        let env = xehpg_common::envmk::EnvMk::load_default()
            .unwrap_or_else(|e| panic!("the bootstrap's env.mk ({e:#}): run tools/bootstrap.sh"));
        let kdir = env
            .get("KDIR")
            .unwrap_or_else(|| panic!("no KDIR in {}: run tools/bootstrap.sh", env.origin()));
        let tool = Path::new(kdir).join("usr/gen_init_cpio");
        assert!(
            tool.is_file(),
            "no {}: the bootstrap builds the kernel tree (run tools/bootstrap.sh)",
            tool.display()
        );
        let tmp = tempfile::tempdir().unwrap();
        let mut tree = Tree::default();
        tree.char_dev("dev/console", 5, 1).unwrap();
        tree.bytes_file("init", 0o755, b"#!/bin/sh\n".to_vec())
            .unwrap();
        tree.symlink("bin/sh", "/bin/busybox").unwrap();
        let out = tmp.path().join("a.cpio");
        tree.write(&tool, tmp.path(), &out).unwrap();
        let archive = fs::read(&out).unwrap();
        assert!(archive.starts_with(b"070701"));
        // Each name once, without the leading slash, and the trailer.
        for name in [
            "dev\0",
            "dev/console\0",
            "init\0",
            "bin/sh\0",
            "TRAILER!!!\0",
        ] {
            assert!(
                archive.windows(name.len()).any(|w| w == name.as_bytes()),
                "{name}"
            );
        }
        assert!(archive.windows(10).any(|w| w == b"#!/bin/sh\n"));
    }

    #[test]
    fn conflicts_are_errors_and_files_replace_files() {
        let tmp = tempfile::tempdir().unwrap();
        let mut tree = Tree::default();
        tree.symlink("bin/ls", "/bin/busybox").unwrap();
        tree.bytes_file("bin/ls", 0o755, b"mine".to_vec()).unwrap();
        let list = tree.cpio_list(tmp.path()).unwrap();
        assert!(list.contains("file /bin/ls "), "{list}");
        assert!(!list.contains("slink"), "{list}");
        assert!(tree.bytes_file("bin/ls/x", 0o644, vec![]).is_err());
        assert!(tree.dir("bin/ls", 0o755).is_err());
        assert!(tree.bytes_file("bin", 0o644, vec![]).is_err());
        // Adding an existing directory again is harmless.
        tree.dir("bin", 0o755).unwrap();
    }

    #[test]
    fn paths_stay_inside_the_root_and_fit_the_list() {
        let mut tree = Tree::default();
        for bad in ["", "/", "a//b", "a/../b", "./a", "a/"] {
            assert!(tree.bytes_file(bad, 0o644, vec![]).is_err(), "{bad:?}");
        }
        tree.host_file("a b", 0o644, Path::new("/x")).unwrap();
        let err = tree.cpio_list(Path::new("/nonexistent")).unwrap_err();
        assert!(err.to_string().contains("gen_init_cpio"), "{err}");
        let mut tree = Tree::default();
        tree.host_file("a", 0o644, Path::new("/h/${HOME}")).unwrap();
        assert!(tree.cpio_list(Path::new("/nonexistent")).is_err());
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

    /// The host's static busybox, which the guest runs, lists the applets
    /// the guest needs. Ignored in a plain `cargo test`; `make check` runs it
    /// after the bootstrap, which installs `busybox-static`.
    #[test]
    #[ignore = "needs the bootstrap: /bin/busybox from the busybox-static package"]
    fn host_busybox_lists_applets() {
        let busybox = Path::new("/bin/busybox");
        assert!(
            busybox.is_file(),
            "no /bin/busybox: the bootstrap installs busybox-static (run tools/bootstrap.sh)"
        );
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
