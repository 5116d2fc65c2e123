//! Reader for `env.mk`, the settings file `tools/bootstrap.sh` writes into
//! the cache directory.
//!
//! The file is a Makefile fragment of `KEY := VALUE` lines (KDIR, QEMU,
//! BINDGEN, LLVM, GUC_FW_DIR). Only that subset of make syntax is understood:
//! assignments with `:=`, `=` or `?=`, blank lines and `#` comments. Values
//! are taken literally; make variable references are not expanded, because the
//! bootstrap never writes any.

use std::collections::BTreeMap;
use std::path::Path;
use std::path::PathBuf;

use anyhow::bail;
use anyhow::Context;
use anyhow::Result;

/// The variables of one `env.mk` file.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct EnvMk {
    vars: BTreeMap<String, String>,
    /// Where the values came from, for error messages.
    origin: Option<PathBuf>,
}

impl EnvMk {
    /// Parses the text of an `env.mk` file.
    ///
    /// # Errors
    ///
    /// A line that is neither blank, a comment nor an assignment to a plain
    /// identifier: silently skipping it could hide a truncated file.
    pub fn parse(text: &str) -> Result<Self> {
        let mut vars = BTreeMap::new();
        for (index, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (key, value) = split_assignment(line).with_context(|| {
                format!("line {}: not a `KEY := VALUE` line: {line}", index + 1)
            })?;
            vars.insert(key.to_owned(), value.to_owned());
        }
        Ok(Self { vars, origin: None })
    }

    /// Reads `path`; a missing file gives an empty set, since every value can
    /// also come from a command-line option.
    ///
    /// # Errors
    ///
    /// The file exists but cannot be read or parsed.
    pub fn load(path: &Path) -> Result<Self> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(err) => return Err(err).with_context(|| format!("reading {}", path.display())),
        };
        let mut env = Self::parse(&text).with_context(|| format!("parsing {}", path.display()))?;
        env.origin = Some(path.to_owned());
        Ok(env)
    }

    /// The value of `key`, if set and not empty.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.vars
            .get(key)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    /// The value of `key`, or an error that says which option replaces it.
    ///
    /// # Errors
    ///
    /// `key` is unset or empty.
    pub fn require(&self, key: &str, option: &str) -> Result<&str> {
        match self.get(key) {
            Some(value) => Ok(value),
            None => {
                let origin = self
                    .origin
                    .as_ref()
                    .map_or_else(|| "env.mk".to_owned(), |p| p.display().to_string());
                bail!("{key} is not set in {origin}: run tools/bootstrap.sh or pass {option}")
            }
        }
    }
}

/// Splits `KEY := VALUE` (or `=`, `?=`) into trimmed key and value.
fn split_assignment(line: &str) -> Option<(&str, &str)> {
    let (left, value) = line.split_once('=')?;
    let key = left
        .strip_suffix(':')
        .or_else(|| left.strip_suffix('?'))
        .unwrap_or(left)
        .trim();
    let is_identifier =
        !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    is_identifier.then_some((key, value.trim()))
}

/// The path of `env.mk`: `$XEHPG_CACHE/env.mk`, else `$HOME/.cache/xehpg/env.mk`.
///
/// # Errors
///
/// Neither variable is set.
pub fn default_path(xehpg_cache: Option<&str>, home: Option<&str>) -> Result<PathBuf> {
    let cache = match (xehpg_cache.filter(|v| !v.is_empty()), home) {
        (Some(cache), _) => PathBuf::from(cache),
        (None, Some(home)) => Path::new(home).join(".cache/xehpg"),
        (None, None) => bail!("neither XEHPG_CACHE nor HOME is set: cannot find env.mk"),
    };
    Ok(cache.join("env.mk"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOOTSTRAP_OUTPUT: &str = "\
KDIR := /home/dev/.cache/xehpg/linux-7.3
QEMU := /q/ld.so --library-path /q/lib /q/qemu -L /q/seabios -L /q/qemu
BINDGEN := /home/dev/.cargo/bin/bindgen
LLVM := -19
GUC_FW_DIR := /home/dev/.cache/xehpg/firmware/usr/lib/firmware
";

    #[test]
    fn parses_what_bootstrap_writes() {
        let env = EnvMk::parse(BOOTSTRAP_OUTPUT).unwrap();
        assert_eq!(env.get("KDIR"), Some("/home/dev/.cache/xehpg/linux-7.3"));
        assert_eq!(
            env.get("QEMU"),
            Some("/q/ld.so --library-path /q/lib /q/qemu -L /q/seabios -L /q/qemu")
        );
        assert_eq!(env.get("LLVM"), Some("-19"));
        assert_eq!(
            env.get("GUC_FW_DIR"),
            Some("/home/dev/.cache/xehpg/firmware/usr/lib/firmware")
        );
        assert_eq!(env.get("MISSING"), None);
    }

    #[test]
    fn accepts_other_assignment_forms_comments_and_blank_lines() {
        let env = EnvMk::parse("# comment\n\nA=1\nB ?= two words \n  C:=x=y\nD :=\n").unwrap();
        assert_eq!(env.get("A"), Some("1"));
        assert_eq!(env.get("B"), Some("two words"));
        assert_eq!(env.get("C"), Some("x=y"));
        // An empty value counts as unset, so the error message asks for it.
        assert_eq!(env.get("D"), None);
    }

    #[test]
    fn later_assignment_wins() {
        let env = EnvMk::parse("A := 1\nA := 2\n").unwrap();
        assert_eq!(env.get("A"), Some("2"));
    }

    #[test]
    fn rejects_lines_that_are_not_assignments() {
        let err = EnvMk::parse("A := 1\nthis is garbage\n").unwrap_err();
        assert!(format!("{err:#}").contains("line 2"), "{err:#}");
        assert!(EnvMk::parse("bad key := 1").is_err());
        assert!(EnvMk::parse(":= 1").is_err());
    }

    #[test]
    fn require_names_the_replacing_option() {
        let env = EnvMk::parse("").unwrap();
        let err = env.require("KDIR", "--kernel").unwrap_err().to_string();
        assert!(err.contains("KDIR") && err.contains("--kernel"), "{err}");
    }

    #[test]
    fn missing_file_is_empty() {
        let env = EnvMk::load(Path::new("/nonexistent/xehpg/env.mk")).unwrap();
        assert_eq!(env.get("KDIR"), None);
    }

    #[test]
    fn default_path_prefers_xehpg_cache() {
        assert_eq!(
            default_path(Some("/c"), Some("/home/u")).unwrap(),
            PathBuf::from("/c/env.mk")
        );
        assert_eq!(
            default_path(None, Some("/home/u")).unwrap(),
            PathBuf::from("/home/u/.cache/xehpg/env.mk")
        );
        assert_eq!(
            default_path(Some(""), Some("/home/u")).unwrap(),
            PathBuf::from("/home/u/.cache/xehpg/env.mk")
        );
        assert!(default_path(None, None).is_err());
    }
}
