//! Reader for `env.mk`, the settings file `tools/bootstrap.sh` writes into
//! the cache directory (`$XEHPG_CACHE`, default `$HOME/.cache/xehpg`).
//!
//! The file is a Makefile fragment of `KEY := VALUE` lines (KDIR, QEMU,
//! BINDGEN, LLVM, GUC_FW_DIR). This reader and the Makefile's `boot_var`
//! (`sed -n 's/^KEY := //p'`) follow one rule: a setting is a line that
//! starts with an identifier followed by ` := `, and its value is the rest of
//! the line, taken literally (the bootstrap writes no make references).
//! Blank lines and `#` comments are allowed; any other line is an error here,
//! since silently skipping it could hide a truncated or hand-edited file that
//! the Makefile would read differently.

use std::collections::BTreeMap;
use std::path::Path;
use std::path::PathBuf;

use anyhow::bail;
use anyhow::Context;
use anyhow::Result;

/// The separator between key and value, spaces included (as the Makefile's
/// `sed` expects them).
const ASSIGN: &str = " := ";

/// The variables of one `env.mk` file.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct EnvMk {
    vars: BTreeMap<String, String>,
    /// Where the values came from, for messages.
    origin: Option<PathBuf>,
}

impl EnvMk {
    /// Parses the text of an `env.mk` file.
    ///
    /// # Errors
    ///
    /// A line that is neither blank, a comment nor `KEY := VALUE`.
    pub fn parse(text: &str) -> Result<Self> {
        let mut vars = BTreeMap::new();
        for (index, line) in text.lines().enumerate() {
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let Some((key, value)) = split_assignment(line) else {
                bail!("line {}: not a `KEY := VALUE` line: {line}", index + 1);
            };
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

    /// Reads the `env.mk` of the cache named by the environment
    /// ([`default_path`]).
    ///
    /// # Errors
    ///
    /// As [`default_path`] and [`EnvMk::load`].
    pub fn load_default() -> Result<Self> {
        let path = default_path(
            std::env::var("XEHPG_CACHE").ok().as_deref(),
            std::env::var("HOME").ok().as_deref(),
        )?;
        Self::load(&path)
    }

    /// The value of `key`, if set and not empty.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.vars
            .get(key)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    /// Where the values came from, for messages.
    pub fn origin(&self) -> String {
        self.origin
            .as_ref()
            .map_or_else(|| "env.mk".to_owned(), |p| p.display().to_string())
    }

    /// The value of `key`, or an error that says which option replaces it.
    ///
    /// # Errors
    ///
    /// `key` is unset or empty.
    pub fn require(&self, key: &str, option: &str) -> Result<&str> {
        match self.get(key) {
            Some(value) => Ok(value),
            None => bail!(
                "{key} is not set in {}: run tools/bootstrap.sh or pass {option}",
                self.origin()
            ),
        }
    }
}

/// Splits `KEY := VALUE` into key and value; the value keeps inner spaces
/// and loses trailing ones, which make drops too.
fn split_assignment(line: &str) -> Option<(&str, &str)> {
    let (key, value) = line.split_once(ASSIGN)?;
    let is_identifier =
        !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    is_identifier.then_some((key, value.trim_end()))
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
    fn comments_blank_lines_and_values_with_separators() {
        let env = EnvMk::parse("# comment\n\nC := x := y \nD := \n").unwrap();
        assert_eq!(env.get("C"), Some("x := y"));
        // An empty value counts as unset, so the error message asks for it.
        assert_eq!(env.get("D"), None);
    }

    /// Exactly the lines the Makefile's `sed -n 's/^KEY := //p'` reads are
    /// settings; the rest would be read differently by one of the two.
    #[test]
    fn only_the_makefiles_form_is_a_setting() {
        for line in [
            "A=1", "A = 1", "A ?= 1", "A:=1", " A := 1", "a b := 1", " := 1",
        ] {
            let err = EnvMk::parse(&format!("K := v\n{line}\n")).unwrap_err();
            assert!(format!("{err:#}").contains("line 2"), "{line}: {err:#}");
        }
    }

    #[test]
    fn later_assignment_wins() {
        let env = EnvMk::parse("A := 1\nA := 2\n").unwrap();
        assert_eq!(env.get("A"), Some("2"));
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
        assert_eq!(env.origin(), "/nonexistent/xehpg/env.mk");
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
