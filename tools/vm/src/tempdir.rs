//! The run's private temporary directory, removed when dropped.
//!
//! Everything temporary (the vfio-user socket, the initramfs, logs not kept
//! with `--keep-logs`) lives in one such directory, so a single removal on
//! every exit path leaves nothing behind. Only `kill -9` of the runner skips
//! that; [`sweep_stale`] removes what such runs left, on the next run.

use std::fs;
use std::os::unix::fs::DirBuilderExt;
use std::path::Path;
use std::path::PathBuf;
use std::sync::atomic::AtomicU32;
use std::sync::atomic::Ordering;
use std::time::SystemTime;

use anyhow::Context;
use anyhow::Result;

/// A directory named `<prefix>.<pid>.<unique>`, mode 0700, removed on drop.
#[derive(Debug)]
pub struct TempDir {
    path: PathBuf,
}

impl TempDir {
    /// Creates a directory under the system temp dir (`$TMPDIR` or /tmp).
    ///
    /// # Errors
    ///
    /// The directory cannot be created.
    pub fn new(prefix: &str) -> Result<Self> {
        Self::new_in(&std::env::temp_dir(), prefix)
    }

    /// Creates a directory under `base`.
    ///
    /// # Errors
    ///
    /// The directory cannot be created.
    pub fn new_in(base: &Path, prefix: &str) -> Result<Self> {
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let nanos = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let mut attempt = 0;
        loop {
            let unique = COUNTER.fetch_add(1, Ordering::Relaxed);
            let path = base.join(format!("{prefix}.{}.{unique}{nanos:x}", std::process::id()));
            // create (not create_all) fails if the name exists, so the
            // directory is ours alone even if another process raced us.
            match fs::DirBuilder::new().mode(0o700).create(&path) {
                Ok(()) => return Ok(Self { path }),
                Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists && attempt < 100 => {
                    attempt += 1;
                }
                Err(err) => {
                    return Err(err).with_context(|| format!("creating {}", path.display()));
                }
            }
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        // Nothing useful to do on failure while unwinding or exiting.
        let _ = fs::remove_dir_all(&self.path);
    }
}

/// Removes `<prefix>.<pid>.*` directories in `base` whose process is gone.
pub fn sweep_stale(base: &Path, prefix: &str) {
    let Ok(entries) = fs::read_dir(base) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| owner_pid(n, prefix)) else {
            continue;
        };
        if !Path::new("/proc").join(pid.to_string()).exists() {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

/// The pid in a name made by [`TempDir::new`] with `prefix`.
fn owner_pid(name: &str, prefix: &str) -> Option<u32> {
    let rest = name.strip_prefix(prefix)?.strip_prefix('.')?;
    let (pid, _) = rest.split_once('.')?;
    pid.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn created_private_and_removed_on_drop() {
        let dir = TempDir::new("xehpg-vm-test").unwrap();
        let path = dir.path().to_owned();
        fs::write(path.join("f"), b"x").unwrap();
        fs::create_dir(path.join("d")).unwrap();
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o700
        );
        drop(dir);
        assert!(!path.exists());
    }

    #[test]
    fn names_are_unique() {
        let a = TempDir::new("xehpg-vm-test").unwrap();
        let b = TempDir::new("xehpg-vm-test").unwrap();
        assert_ne!(a.path(), b.path());
    }

    #[test]
    fn sweeps_only_dead_owners() {
        let base = TempDir::new("xehpg-vm-test").unwrap();
        // Pid 0x7fffffff is above pid_max, so no such process exists.
        let stale = base.path().join("run.2147483647.1a");
        let live = base.path().join(format!("run.{}.1b", std::process::id()));
        let other = base.path().join("other.2147483647.1c");
        for dir in [&stale, &live, &other] {
            fs::create_dir(dir).unwrap();
        }
        sweep_stale(base.path(), "run");
        assert!(!stale.exists());
        assert!(live.exists());
        assert!(other.exists());
    }

    #[test]
    fn owner_pid_parsing() {
        assert_eq!(owner_pid("xehpg-vm.123.abc", "xehpg-vm"), Some(123));
        assert_eq!(owner_pid("xehpg-vm-test.123.abc", "xehpg-vm"), None);
        assert_eq!(owner_pid("xehpg-vm.x.abc", "xehpg-vm"), None);
        assert_eq!(owner_pid("xehpg-vm.123", "xehpg-vm"), None);
    }
}
