//! The system's apt sources as apt reads them: `etc/apt/sources.list`, then
//! every `*.list` (one-line format) and `*.sources` (deb822 format) file of
//! `etc/apt/sources.list.d` in name order, all under a root directory.
//!
//! One-line entries are `TYPE [OPTIONS] URI SUITE [COMPONENT...]`, a `#`
//! starting a comment. deb822 stanzas are blocks of `Field: value` lines
//! separated by blank lines, `#` lines being comments and indented lines
//! continuing the field above; `Types`, `URIs`, `Suites` and `Components` are
//! lists, and `Enabled: no` turns a stanza off.

use std::fs;
use std::path::{Path, PathBuf};

/// One entry: a one-line source, or a deb822 stanza (with its lists).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The file it came from (the root included).
    pub file: PathBuf,
    /// The line of the entry, or of the stanza's first field (from 1).
    pub line: usize,
    /// `deb` and/or `deb-src`.
    pub types: Vec<String>,
    pub uris: Vec<String>,
    pub suites: Vec<String>,
    pub components: Vec<String>,
    /// The `Signed-By` field or `signed-by=` option, as written.
    pub signed_by: Option<String>,
    /// False for `Enabled: no` (or `enabled=no`).
    pub enabled: bool,
}

/// What was read: the entries in apt's order, the files looked at, and the
/// lines that could not be read (each as `FILE:LINE: what`).
#[derive(Debug, Default)]
pub struct Sources {
    pub entries: Vec<Entry>,
    pub files: Vec<PathBuf>,
    pub problems: Vec<String>,
}

/// The list of places apt reads, for messages.
pub const LOOKED_AT: &str =
    "etc/apt/sources.list, etc/apt/sources.list.d/*.list and etc/apt/sources.list.d/*.sources";

/// Reads the apt sources under `root`.
pub fn read(root: &Path) -> Sources {
    let mut out = Sources::default();
    let main = root.join("etc/apt/sources.list");
    if main.is_file() {
        read_file(&main, &mut out);
    }
    let parts = root.join("etc/apt/sources.list.d");
    let mut names: Vec<PathBuf> = fs::read_dir(&parts)
        .map(|dir| {
            dir.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file() && is_part_name(p))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    for p in names {
        read_file(&p, &mut out);
    }
    out
}

/// apt reads only `.list` and `.sources` files whose names are letters,
/// digits, `_`, `-` and `.` (so `foo.list.disabled` or `foo.list~` are not).
fn is_part_name(p: &Path) -> bool {
    let Some(name) = p.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    let plain = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c));
    plain && (name.ends_with(".list") || name.ends_with(".sources"))
}

fn read_file(path: &Path, out: &mut Sources) {
    out.files.push(path.to_path_buf());
    let text = match fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            out.problems.push(format!("{}: {e}", path.display()));
            return;
        }
    };
    let deb822 = path.extension().is_some_and(|e| e == "sources");
    let (entries, problems) = if deb822 {
        parse_deb822(path, &text)
    } else {
        parse_one_line(path, &text)
    };
    out.entries.extend(entries);
    out.problems.extend(problems);
}

fn words(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_string).collect()
}

fn is_no(v: &str) -> bool {
    matches!(
        v.trim().to_ascii_lowercase().as_str(),
        "no" | "false" | "0" | "off"
    )
}

/// Parses a one-line format file.
pub fn parse_one_line(path: &Path, text: &str) -> (Vec<Entry>, Vec<String>) {
    let mut entries = Vec::new();
    let mut problems = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let at = format!("{}:{}", path.display(), n + 1);
        let (kind, mut rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        if kind != "deb" && kind != "deb-src" {
            problems.push(format!("{at}: unknown type `{kind}`"));
            continue;
        }
        rest = rest.trim_start();
        let mut options = String::new();
        if let Some(opened) = rest.strip_prefix('[') {
            match opened.split_once(']') {
                Some((o, r)) => {
                    options = o.to_string();
                    rest = r;
                }
                None => {
                    problems.push(format!("{at}: `[` without `]`"));
                    continue;
                }
            }
        }
        let mut entry = Entry {
            file: path.to_path_buf(),
            line: n + 1,
            types: vec![kind.to_string()],
            uris: Vec::new(),
            suites: Vec::new(),
            components: Vec::new(),
            signed_by: None,
            enabled: true,
        };
        for opt in options.split_whitespace() {
            if let Some((k, v)) = opt.split_once('=') {
                match k.to_ascii_lowercase().as_str() {
                    "signed-by" => entry.signed_by = Some(v.to_string()),
                    "enabled" => entry.enabled = !is_no(v),
                    _ => {}
                }
            }
        }
        let mut w = words(rest);
        // A CD-ROM's URI is `cdrom:[LABEL WITH SPACES]/`: one word here.
        if rest.trim_start().starts_with("cdrom:[") {
            if let Some((label, after)) = rest.trim_start().split_once(']') {
                let mut tail = words(after);
                let end = if tail.is_empty() || after.starts_with(char::is_whitespace) {
                    String::new()
                } else {
                    tail.remove(0)
                };
                w = std::iter::once(format!("{label}]{end}"))
                    .chain(tail)
                    .collect();
            }
        }
        if w.len() < 2 {
            problems.push(format!("{at}: no URI and suite"));
            continue;
        }
        entry.uris.push(w[0].clone());
        entry.suites.push(w[1].clone());
        entry.components = w[2..].to_vec();
        entries.push(entry);
    }
    (entries, problems)
}

/// Turns the fields read so far into an entry (or a problem) and clears them.
fn finish_stanza(
    path: &Path,
    fields: &mut Vec<(String, String)>,
    line: usize,
    entries: &mut Vec<Entry>,
    problems: &mut Vec<String>,
) {
    if fields.is_empty() {
        return;
    }
    let get = |name: &str| {
        fields
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    let entry = Entry {
        file: path.to_path_buf(),
        line,
        types: words(get("types").unwrap_or("")),
        uris: words(get("uris").unwrap_or("")),
        suites: words(get("suites").unwrap_or("")),
        components: words(get("components").unwrap_or("")),
        signed_by: get("signed-by").map(str::to_string),
        enabled: !get("enabled").is_some_and(is_no),
    };
    if entry.types.is_empty() || entry.uris.is_empty() || entry.suites.is_empty() {
        problems.push(format!(
            "{}:{line}: a stanza without Types, URIs or Suites",
            path.display()
        ));
    } else {
        entries.push(entry);
    }
    fields.clear();
}

/// Parses a deb822 format file.
pub fn parse_deb822(path: &Path, text: &str) -> (Vec<Entry>, Vec<String>) {
    let mut entries = Vec::new();
    let mut problems = Vec::new();
    // The fields of the stanza being read: (name in lower case, value).
    let mut fields: Vec<(String, String)> = Vec::new();
    let mut first_line = 0;
    for (n, raw) in text.lines().enumerate() {
        if raw.starts_with('#') {
            continue;
        }
        if raw.trim().is_empty() {
            finish_stanza(path, &mut fields, first_line, &mut entries, &mut problems);
            continue;
        }
        if raw.starts_with([' ', '\t']) {
            match fields.last_mut() {
                Some((_, v)) => {
                    v.push('\n');
                    v.push_str(raw.trim());
                }
                None => problems.push(format!(
                    "{}:{}: a continuation line without a field",
                    path.display(),
                    n + 1
                )),
            }
            continue;
        }
        match raw.split_once(':') {
            Some((k, v)) => {
                if fields.is_empty() {
                    first_line = n + 1;
                }
                fields.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
            }
            None => problems.push(format!(
                "{}:{}: not a `Field: value` line",
                path.display(),
                n + 1
            )),
        }
    }
    finish_stanza(path, &mut fields, first_line, &mut entries, &mut problems);
    (entries, problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_options_comments_and_components() {
        let text = "\
# the main archive
deb [arch=amd64 signed-by=/usr/share/keyrings/k.gpg] http://mirror.example/debian bookworm main contrib
deb-src [ signed-by=/k.gpg ] http://mirror.example/debian bookworm main # a comment
#deb http://mirror.example/debian bookworm-backports main

deb http://mirror.example/debian-security bookworm-security main
rpm http://mirror.example/other x y
deb cdrom:[Debian GNU/Linux 13.1.0 _Trixie_ - Official amd64 DVD Binary-1]/ trixie contrib main
deb http://mirror.example/lonely
";
        let (e, problems) = parse_one_line(Path::new("/l"), text);
        assert_eq!(e.len(), 4);
        assert_eq!(e[0].line, 2);
        assert_eq!(e[0].types, ["deb"]);
        assert_eq!(e[0].uris, ["http://mirror.example/debian"]);
        assert_eq!(e[0].suites, ["bookworm"]);
        assert_eq!(e[0].components, ["main", "contrib"]);
        assert_eq!(e[0].signed_by.as_deref(), Some("/usr/share/keyrings/k.gpg"));
        assert_eq!(e[1].types, ["deb-src"]);
        assert_eq!(e[1].components, ["main"]);
        assert_eq!(e[1].signed_by.as_deref(), Some("/k.gpg"));
        assert_eq!(e[2].suites, ["bookworm-security"]);
        assert_eq!(
            e[3].uris,
            ["cdrom:[Debian GNU/Linux 13.1.0 _Trixie_ - Official amd64 DVD Binary-1]/"]
        );
        assert_eq!(e[3].suites, ["trixie"]);
        assert_eq!(e[3].components, ["contrib", "main"]);
        assert_eq!(
            problems,
            ["/l:7: unknown type `rpm`", "/l:9: no URI and suite"]
        );
    }

    #[test]
    fn deb822_lists_comments_continuations_and_enabled() {
        let text = "\
# leading comment
Types: deb deb-src
URIs: http://mirror.example/debian http://other.example/debian
Suites: trixie trixie-updates
# a comment inside the stanza does not end it
Components: main non-free-firmware
Signed-By: -----BEGIN PGP PUBLIC KEY BLOCK-----
 .
 abc
 -----END PGP PUBLIC KEY BLOCK-----

enabled: No
types: deb
uris: http://mirror.example/debian
suites: forky

Types: deb
URIs: http://mirror.example/debian
";
        let (e, problems) = parse_deb822(Path::new("/s"), text);
        assert_eq!(e.len(), 2);
        assert_eq!(e[0].line, 2);
        assert_eq!(e[0].types, ["deb", "deb-src"]);
        assert_eq!(e[0].uris.len(), 2);
        assert_eq!(e[0].suites, ["trixie", "trixie-updates"]);
        assert_eq!(e[0].components, ["main", "non-free-firmware"]);
        assert!(e[0]
            .signed_by
            .as_deref()
            .unwrap()
            .ends_with("END PGP PUBLIC KEY BLOCK-----"));
        assert!(e[0].enabled);
        assert_eq!(e[1].line, 12);
        assert!(!e[1].enabled, "field names are case-blind, `No` is no");
        assert_eq!(e[1].suites, ["forky"]);
        assert_eq!(problems, ["/s:17: a stanza without Types, URIs or Suites"]);
    }

    #[test]
    fn only_list_and_sources_files_with_plain_names_are_read() {
        for (name, read) in [
            ("debian.sources", true),
            ("a_b-c.1.list", true),
            ("x.list.disabled-by-farm", false),
            ("x.list~", false),
            ("x.sources.bak", false),
            ("my repo.list", false),
        ] {
            assert_eq!(is_part_name(Path::new(name)), read, "{name}");
        }
    }
}
