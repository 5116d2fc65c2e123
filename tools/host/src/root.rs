//! The prefix every path is read under (`--root DIR`).

use std::io;
use std::path::{Path, PathBuf};

/// A directory standing for `/`: the host's own root in use, a fixture tree
/// in the unit tests.
#[derive(Debug, Clone)]
pub struct Root(PathBuf);

impl Default for Root {
    fn default() -> Self {
        Self(PathBuf::from("/"))
    }
}

impl Root {
    /// A root at `dir`.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self(dir.into())
    }

    /// Whether this is the real `/` (commands such as `lspci` and `modprobe`
    /// only make sense there).
    pub fn is_host(&self) -> bool {
        self.0 == Path::new("/")
    }

    /// The host path of `abs`, an absolute path as seen on the machine.
    pub fn path(&self, abs: &str) -> PathBuf {
        self.0.join(abs.trim_start_matches('/'))
    }

    /// The path inside this root of a host path under it (the inverse of
    /// [`Root::path`]), for messages.
    pub fn shown(&self, host: &Path) -> String {
        match host.strip_prefix(&self.0) {
            Ok(rel) => format!("/{}", rel.display()),
            Err(_) => host.display().to_string(),
        }
    }

    /// The whole file `abs` as text.
    pub fn read(&self, abs: &str) -> io::Result<String> {
        std::fs::read_to_string(self.path(abs))
    }

    /// The file `abs` as text without surrounding white space.
    pub fn read_trim(&self, abs: &str) -> io::Result<String> {
        self.read(abs).map(|s| s.trim().to_string())
    }

    /// The names in directory `abs`, sorted; none if it cannot be listed.
    pub fn list(&self, abs: &str) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.path(abs))
            .map(|rd| {
                rd.filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    }

    /// The last component of the link `abs` points to (a device's
    /// `driver`), if it is a link.
    pub fn link_name(&self, abs: &str) -> Option<String> {
        let target = std::fs::read_link(self.path(abs)).ok()?;
        Some(target.file_name()?.to_string_lossy().into_owned())
    }

    /// Whether `abs` exists (a link counts, dangling or not).
    pub fn exists(&self, abs: &str) -> bool {
        std::fs::symlink_metadata(self.path(abs)).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_prefixed_and_shown_back() {
        let r = Root::new("/fx");
        assert_eq!(r.path("/proc/cmdline"), PathBuf::from("/fx/proc/cmdline"));
        assert_eq!(r.shown(Path::new("/fx/proc/cmdline")), "/proc/cmdline");
        assert!(!r.is_host());
        assert!(Root::default().is_host());
        assert_eq!(Root::default().path("/x"), PathBuf::from("/x"));
    }

    #[test]
    fn reads_lists_and_links() {
        let t = tempfile::tempdir().unwrap();
        let r = Root::new(t.path());
        std::fs::create_dir_all(t.path().join("d")).unwrap();
        std::fs::write(t.path().join("d/b"), " 1\n").unwrap();
        std::fs::write(t.path().join("d/a"), "").unwrap();
        std::os::unix::fs::symlink("../../bus/drivers/xe", t.path().join("d/driver")).unwrap();
        assert_eq!(r.read_trim("/d/b").unwrap(), "1");
        assert_eq!(r.list("/d"), ["a", "b", "driver"]);
        assert!(r.list("/none").is_empty());
        assert_eq!(r.link_name("/d/driver").as_deref(), Some("xe"));
        assert_eq!(r.link_name("/d/a"), None);
        assert!(r.exists("/d/driver") && !r.exists("/d/c"));
    }
}
