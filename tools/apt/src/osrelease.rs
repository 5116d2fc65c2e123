//! The host's identity from os-release(5): `etc/os-release`, else
//! `usr/lib/os-release`, under a root directory. Lines are `KEY=value`, the
//! value optionally in double or single quotes with backslash escapes.

use std::fs;
use std::path::{Path, PathBuf};

/// The fields this tool uses.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OsRelease {
    /// Where it was read from; `None` when neither file exists.
    pub file: Option<PathBuf>,
    /// `ID`, e.g. `debian`, `ubuntu`.
    pub id: String,
    /// `ID_LIKE`, split.
    pub id_like: Vec<String>,
    /// `VERSION_ID`, e.g. `12`, `24.04` (absent on sid).
    pub version_id: String,
    /// `VERSION_CODENAME`, e.g. `bookworm`, `noble`.
    pub codename: String,
    /// `PRETTY_NAME`.
    pub pretty_name: String,
}

impl OsRelease {
    /// A name for messages: the pretty name, else the ID, else "unknown".
    pub fn describe(&self) -> String {
        if !self.pretty_name.is_empty() {
            self.pretty_name.clone()
        } else if !self.id.is_empty() {
            self.id.clone()
        } else {
            "an unknown distribution (no os-release)".into()
        }
    }

    /// Ubuntu, or a distribution built on it (`ID_LIKE` names ubuntu).
    pub fn is_ubuntu(&self) -> bool {
        self.id == "ubuntu" || self.id_like.iter().any(|l| l == "ubuntu")
    }
}

/// Reads os-release under `root`.
pub fn read(root: &Path) -> OsRelease {
    for rel in ["etc/os-release", "usr/lib/os-release"] {
        let path = root.join(rel);
        if let Ok(text) = fs::read_to_string(&path) {
            let mut os = parse(&text);
            os.file = Some(path);
            return os;
        }
    }
    OsRelease::default()
}

/// Parses os-release text.
pub fn parse(text: &str) -> OsRelease {
    let mut os = OsRelease::default();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('#') {
            continue;
        }
        let Some((key, raw)) = line.split_once('=') else {
            continue;
        };
        let value = unquote(raw.trim());
        match key.trim() {
            "ID" => os.id = value,
            "ID_LIKE" => os.id_like = value.split_whitespace().map(str::to_string).collect(),
            "VERSION_ID" => os.version_id = value,
            "VERSION_CODENAME" => os.codename = value,
            "PRETTY_NAME" => os.pretty_name = value,
            _ => {}
        }
    }
    os
}

fn unquote(raw: &str) -> String {
    let quoted = |q: char| raw.len() >= 2 && raw.starts_with(q) && raw.ends_with(q);
    let inner = if quoted('"') || quoted('\'') {
        &raw[1..raw.len() - 1]
    } else {
        raw
    };
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(next) = chars.next() {
                out.push(next);
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_escapes_and_comments() {
        let os = parse(
            "# comment\nPRETTY_NAME=\"Ubuntu 24.04.1 LTS\"\nID=ubuntu\nID_LIKE=debian\n\
             VERSION_ID='24.04'\nVERSION_CODENAME=noble\nNAME=\"A \\\"quoted\\\" name\"\n",
        );
        assert_eq!(os.pretty_name, "Ubuntu 24.04.1 LTS");
        assert_eq!(os.id, "ubuntu");
        assert_eq!(os.id_like, ["debian"]);
        assert_eq!(os.version_id, "24.04");
        assert_eq!(os.codename, "noble");
        assert!(os.is_ubuntu());
        assert_eq!(unquote("\"A \\\"q\\\" b\""), "A \"q\" b");
    }

    #[test]
    fn a_derivative_names_its_parent_in_id_like() {
        let os = parse("ID=linuxmint\nID_LIKE=\"ubuntu debian\"\n");
        assert!(os.is_ubuntu());
        assert!(!parse("ID=debian\n").is_ubuntu());
        assert_eq!(
            parse("").describe(),
            "an unknown distribution (no os-release)"
        );
    }
}
