//! The bootstrap's `env.mk`: where the kernel tree, QEMU and tools live.
//!
//! `tools/bootstrap.sh` writes `$XEHPG_CACHE/env.mk` (default cache
//! `$HOME/.cache/xehpg`) as make assignments, one per line:
//! `KDIR := /path`, `QEMU := ...`, `BINDGEN := ...`, `LLVM := -19`,
//! `GUC_FW_DIR := ...`. Only `:=` and `=` assignments are read.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The values of one `env.mk`, empty if the file does not exist.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnvMk {
    /// Where the values came from (shown in messages).
    pub path: PathBuf,
    vars: BTreeMap<String, String>,
}

impl EnvMk {
    /// Reads the `env.mk` of the cache named by `XEHPG_CACHE` or `$HOME/.cache/xehpg`.
    pub fn load_default() -> Self {
        let cache = match std::env::var_os("XEHPG_CACHE") {
            Some(c) => PathBuf::from(c),
            None => {
                let home = std::env::var_os("HOME").unwrap_or_default();
                Path::new(&home).join(".cache/xehpg")
            }
        };
        Self::load(&cache.join("env.mk"))
    }

    /// Reads `path`; a missing or unreadable file gives no values.
    pub fn load(path: &Path) -> Self {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        Self {
            path: path.to_path_buf(),
            vars: parse(&text),
        }
    }

    /// The value of `key`, if the file sets it.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.vars.get(key).map(String::as_str)
    }
}

/// Parses `KEY := VALUE` / `KEY = VALUE` lines; `#` lines and others are ignored.
fn parse(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .filter_map(|l| {
            let (key, value) = l.split_once(":=").or_else(|| l.split_once('='))?;
            let key = key.trim();
            let valid =
                !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            valid.then(|| (key.to_string(), value.trim().to_string()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_bootstraps_assignments() {
        let v = parse(
            "KDIR := /c/linux-7.3\nQEMU := /q/ld.so --library-path /q/lib /q/qemu -L x\n\
             # comment\nLLVM := -19\nBROKEN LINE\nX=1\n",
        );
        assert_eq!(v["KDIR"], "/c/linux-7.3");
        assert_eq!(v["QEMU"], "/q/ld.so --library-path /q/lib /q/qemu -L x");
        assert_eq!(v["LLVM"], "-19");
        assert_eq!(v["X"], "1");
        assert_eq!(v.len(), 4);
    }

    #[test]
    fn a_missing_file_has_no_values() {
        let e = EnvMk::load(Path::new("/nonexistent/env.mk"));
        assert_eq!(e.get("KDIR"), None);
    }
}
