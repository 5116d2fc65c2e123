//! Which apt source is Debian's archive, and so which mirror the private
//! trixie apt roots of the bootstrap use.
//!
//! Every (URI, suite) pair of every entry is judged on its own. Security and
//! debug archives, disabled entries, CD-ROMs and Ubuntu's archive are never
//! taken. The rest is Debian's archive when the evidence says so, strongest
//! first: apt's downloaded Release file for that suite says `Origin: Debian`;
//! the entry is signed by Debian's archive keyring; its URI ends in
//! `/debian`; its suite is a Debian suite name (a codename such as
//! `bookworm`, `trixie`, `forky` or `sid`, or `stable`, `oldstable`,
//! `testing`, `unstable`, each with or without `-updates`, `-backports` and
//! the like). A Release file from another origin rules an entry out whatever
//! else it says. Of the entries with the strongest evidence, the first in
//! apt's own order wins. A `mirror+file:` URI, as Debian's cloud images
//! write them, stands for the first mirror its list names.
//!
//! A mirror named in `XEHPG_DEBIAN_MIRROR` wins over all of it (the caller
//! passes it in), which is the way on Ubuntu, whose archive does not carry
//! Debian's packages.

use crate::osrelease::{self, OsRelease};
use crate::sources::{self, Entry, Sources};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The variable that names a Debian mirror by hand.
pub const OVERRIDE: &str = "XEHPG_DEBIAN_MIRROR";

/// Debian's codenames, old and planned, and its suite aliases.
const DEBIAN_SUITES: &[&str] = &[
    "buzz",
    "rex",
    "bo",
    "hamm",
    "slink",
    "potato",
    "woody",
    "sarge",
    "etch",
    "lenny",
    "squeeze",
    "wheezy",
    "jessie",
    "stretch",
    "buster",
    "bullseye",
    "bookworm",
    "trixie",
    "forky",
    "duke",
    "sid",
    "experimental",
    "rc-buggy",
    "stable",
    "oldstable",
    "oldoldstable",
    "testing",
    "unstable",
    "proposed-updates",
];

/// Ubuntu's codenames: a suite named after one is never Debian's.
const UBUNTU_SUITES: &[&str] = &[
    "warty", "hoary", "breezy", "dapper", "edgy", "feisty", "gutsy", "hardy", "intrepid", "jaunty",
    "karmic", "lucid", "maverick", "natty", "oneiric", "precise", "quantal", "raring", "saucy",
    "trusty", "utopic", "vivid", "wily", "xenial", "yakkety", "zesty", "artful", "bionic",
    "cosmic", "disco", "eoan", "focal", "groovy", "hirsute", "impish", "jammy", "kinetic", "lunar",
    "mantic", "noble", "oracular", "plucky", "questing", "resolute",
];

/// Suffixes of update and backport suites, longest first.
const SUFFIXES: &[&str] = &[
    "-backports-sloppy",
    "-proposed-updates",
    "-backports",
    "-proposed",
    "-updates",
];

/// The components of Debian's archive.
const DEBIAN_COMPONENTS: &[&str] = &["main", "contrib", "non-free", "non-free-firmware"];

/// The suite without its update or backport suffix: `trixie-backports` is
/// `trixie`.
pub fn base_suite(suite: &str) -> &str {
    let mut s = suite;
    for suffix in SUFFIXES {
        if let Some(base) = s.strip_suffix(suffix) {
            s = base;
            break;
        }
    }
    s
}

/// The first URI of a `mirror+file:` list under `root` (Debian's cloud
/// images name their mirrors so: `mirror+file:///etc/apt/mirrors/debian.list`,
/// a file of URIs, one per line, each maybe followed by a tab and metadata),
/// or why there is none.
pub fn mirror_list_first(root: &Path, uri: &str) -> Result<String, String> {
    let Some(path) = uri.strip_prefix("mirror+file:") else {
        return Ok(uri.to_string());
    };
    let path = path.trim_start_matches('/');
    let file = root.join(path);
    let text = std::fs::read_to_string(&file)
        .map_err(|e| format!("{uri}: reading {}: {e}", file.display()))?;
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .find_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .ok_or_else(|| format!("{uri}: {} lists no mirror", file.display()))
}

/// The last path segment of a URI: `debian` for `http://host/debian/`.
fn last_segment(uri: &str) -> &str {
    let path = uri.split_once("://").map_or(uri, |(_, rest)| rest);
    path.trim_end_matches('/').rsplit('/').next().unwrap_or("")
}

/// The name apt gives the downloaded copy of `dists/SUITE/FILE` of `uri` in
/// its lists directory: the URI without scheme and credentials, some
/// characters escaped as `%xx`, `/` turned into `_`.
pub fn list_file_name(uri: &str, suite: &str, file: &str) -> String {
    let rest = uri.split_once("://").map_or(uri, |(_, r)| r);
    // Credentials (`user:password@`) before the host are dropped.
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    let mut full = format!("{host}/{path}");
    if !full.ends_with('/') {
        full.push('/');
    }
    let _ = write!(full, "dists/{suite}/{file}");
    let mut out = String::new();
    for b in full.bytes() {
        if b <= 0x20 || b >= 0x7f || br#"\|{}[]<>"^~_=!@#$%*"#.contains(&b) {
            let _ = write!(out, "%{b:02x}");
        } else if b == b'/' {
            out.push('_');
        } else {
            out.push(char::from(b));
        }
    }
    out
}

/// The `Origin` of apt's downloaded Release file for (uri, suite) under
/// `root`, with the file's path; `None` when apt has not downloaded it.
pub fn release_origin(root: &Path, uri: &str, suite: &str) -> Option<(PathBuf, String)> {
    let lists = root.join("var/lib/apt/lists");
    for file in ["InRelease", "Release"] {
        let path = lists.join(list_file_name(uri, suite, file));
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let origin = text
            .lines()
            .find_map(|l| l.strip_prefix("Origin:"))
            .map(|v| v.trim().to_string())
            .unwrap_or_default();
        return Some((path, origin));
    }
    None
}

/// How one (URI, suite) pair of an entry was judged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub file: PathBuf,
    pub line: usize,
    pub uri: String,
    pub suite: String,
    /// `Ok(strength)` for Debian's archive (higher is surer), else why not.
    pub verdict: Result<u8, String>,
}

impl Finding {
    /// `FILE:LINE: URI SUITE`.
    pub fn place(&self) -> String {
        format!(
            "{}:{}: {} {}",
            self.file.display(),
            self.line,
            self.uri,
            self.suite
        )
    }
}

/// Judges one (URI, suite) pair of `entry`.
fn judge(root: &Path, entry: &Entry, uri: &str, suite: &str) -> Result<u8, String> {
    if !entry.enabled {
        return Err("disabled (Enabled: no)".into());
    }
    if !entry.types.iter().any(|t| t == "deb" || t == "deb-src") {
        return Err(format!(
            "type {} is not deb or deb-src",
            entry.types.join(" ")
        ));
    }
    if uri.starts_with("cdrom:") {
        return Err("a CD-ROM, not a mirror".into());
    }
    let segment = last_segment(uri);
    if suite.ends_with("-security") || suite.contains("/updates") || segment == "debian-security" {
        return Err("a security archive".into());
    }
    if suite.ends_with("-debug") || segment == "debian-debug" || segment == "debian-ports" {
        return Err(format!("not the main archive ({segment})"));
    }
    if suite.ends_with('/') {
        return Err("a flat repository, not an archive".into());
    }
    let origin = release_origin(root, uri, suite);
    if let Some((path, origin)) = &origin {
        if origin != "Debian" {
            let origin = if origin.is_empty() { "none" } else { origin };
            return Err(format!(
                "its Release file ({}) says Origin: {origin}",
                path.display()
            ));
        }
    }
    let base = base_suite(suite);
    let keyring = entry.signed_by.as_deref().unwrap_or("");
    if UBUNTU_SUITES.contains(&base) || segment.starts_with("ubuntu") || keyring.contains("ubuntu")
    {
        return Err("Ubuntu's archive".into());
    }
    if !entry.components.is_empty()
        && !entry
            .components
            .iter()
            .any(|c| DEBIAN_COMPONENTS.contains(&c.as_str()))
    {
        return Err(format!(
            "none of Debian's components (its own: {})",
            entry.components.join(" ")
        ));
    }
    let by_origin = origin.is_some();
    let by_keyring = keyring.contains("debian-archive-keyring");
    let by_path = segment == "debian";
    let by_name = DEBIAN_SUITES.contains(&base);
    if !(by_origin || by_keyring || by_path || by_name) {
        return Err(
            "no sign of Debian's archive (suite name, Release file, keyring or .../debian URI)"
                .into(),
        );
    }
    Ok(4 * u8::from(by_origin) + 2 * u8::from(by_keyring) + u8::from(by_path))
}

/// Everything found under a root.
#[derive(Debug)]
pub struct Report {
    pub root: PathBuf,
    pub os: OsRelease,
    pub sources: Sources,
    pub findings: Vec<Finding>,
}

/// Reads the apt sources and os-release under `root` and judges every entry.
pub fn survey(root: &Path) -> Report {
    let sources = sources::read(root);
    let mut findings = Vec::new();
    for entry in &sources.entries {
        for uri in &entry.uris {
            for suite in &entry.suites {
                findings.push(Finding {
                    file: entry.file.clone(),
                    line: entry.line,
                    uri: uri.clone(),
                    suite: suite.clone(),
                    verdict: judge(root, entry, uri, suite),
                });
            }
        }
    }
    Report {
        root: root.to_path_buf(),
        os: osrelease::read(root),
        sources,
        findings,
    }
}

/// The mirror chosen, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mirror {
    /// The archive's root URI, without a trailing `/`.
    pub uri: String,
    /// The suite of the entry it came from; empty for the override.
    pub suite: String,
    /// Where it came from: `FILE:LINE` or the override's name.
    pub from: String,
}

impl Report {
    /// The first of the Debian entries with the strongest evidence.
    pub fn debian_entry(&self) -> Option<&Finding> {
        let mut best: Option<(&Finding, u8)> = None;
        for f in &self.findings {
            if let Ok(strength) = f.verdict {
                if best.is_none_or(|(_, b)| strength > b) {
                    best = Some((f, strength));
                }
            }
        }
        best.map(|(f, _)| f)
    }

    /// The mirror: `overridden` (the value of [`OVERRIDE`]) when set, else
    /// the Debian entry's URI; otherwise a message that says what was looked
    /// at, what was found and what to do.
    pub fn mirror(&self, overridden: Option<&str>) -> Result<Mirror, String> {
        if let Some(o) = overridden.map(str::trim).filter(|o| !o.is_empty()) {
            if !o.contains("://") && !o.starts_with("file:/") {
                return Err(format!(
                    "{OVERRIDE}={o} is not a URI (expected e.g. http://HOST/debian)"
                ));
            }
            return Ok(Mirror {
                uri: o.trim_end_matches('/').to_string(),
                suite: String::new(),
                from: OVERRIDE.into(),
            });
        }
        match self.debian_entry() {
            Some(f) => Ok(Mirror {
                uri: mirror_list_first(&self.root, &f.uri)?
                    .trim_end_matches('/')
                    .to_string(),
                suite: f.suite.clone(),
                from: format!("{}:{}", f.file.display(), f.line),
            }),
            None => Err(self.explain()),
        }
    }

    /// Why there is no Debian mirror, for the user.
    pub fn explain(&self) -> String {
        let mut m = String::new();
        let root = self.root.display();
        if self.sources.files.is_empty() {
            let _ = writeln!(
                m,
                "no apt sources under {root} (looked for {})",
                sources::LOOKED_AT
            );
        } else if self.findings.is_empty() {
            let _ = writeln!(m, "no apt entries in the apt sources under {root}:");
            for f in &self.sources.files {
                let _ = writeln!(m, "  {}", f.display());
            }
        } else {
            let _ = writeln!(
                m,
                "no entry of Debian's archive in the apt sources under {root} ({}):",
                self.os.describe()
            );
            for f in &self.findings {
                if let Err(why) = &f.verdict {
                    let _ = writeln!(m, "  {}: {why}", f.place());
                }
            }
        }
        for p in &self.sources.problems {
            let _ = writeln!(m, "  (not read) {p}");
        }
        if self.os.is_ubuntu() {
            let _ = writeln!(
                m,
                "This is {}: Ubuntu's archive does not carry the Debian trixie packages the \
                 build needs, so no Debian mirror can be derived from it.",
                self.os.describe()
            );
        }
        let _ = write!(
            m,
            "Name a Debian mirror (the directory that holds dists/) in {OVERRIDE}, e.g. \
             `{OVERRIDE}=http://HOST/debian make run`; its packages are checked with Debian's \
             archive keyring (/usr/share/keyrings/debian-archive-keyring.gpg, package \
             debian-archive-keyring)."
        );
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> Report {
        survey(
            &Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("fixtures")
                .join(name),
        )
    }

    fn chosen(name: &str) -> Mirror {
        let r = fixture(name);
        r.mirror(None)
            .unwrap_or_else(|e| panic!("{name}: no mirror: {e}"))
    }

    #[test]
    fn debian12_one_line() {
        let m = chosen("debian12-oneline");
        assert_eq!(m.uri, "http://mirror.example/debian");
        assert_eq!(m.suite, "bookworm");
        assert!(m.from.ends_with("etc/apt/sources.list:3"), "{}", m.from);
    }

    #[test]
    fn debian12_deb822_skips_security_and_foreign_entries() {
        let r = fixture("debian12-deb822");
        let m = r.mirror(None).unwrap();
        assert_eq!(m.uri, "http://mirror.example/debian");
        assert_eq!(m.suite, "bookworm");
        assert!(
            m.from.ends_with("sources.list.d/debian.sources:1"),
            "{}",
            m.from
        );
        // The Docker-like entry comes first in name order and looks like
        // Debian (bookworm, .../debian) but its component is not Debian's.
        let docker = r
            .findings
            .iter()
            .find(|f| f.uri.contains("packages.example"))
            .unwrap();
        assert!(docker.verdict.as_ref().unwrap_err().contains("components"));
        let security = r
            .findings
            .iter()
            .find(|f| f.suite == "bookworm-security")
            .unwrap();
        assert_eq!(security.verdict, Err("a security archive".into()));
    }

    #[test]
    fn debian13_default_debian_sources() {
        let r = fixture("debian13-deb822");
        let m = r.mirror(None).unwrap();
        assert_eq!(m.uri, "http://mirror.example/debian");
        assert_eq!(m.suite, "trixie");
        assert_eq!(r.os.codename, "trixie");
    }

    #[test]
    fn debian12_cloud_image_mirror_list() {
        let r = fixture("debian12-cloud");
        let m = r.mirror(None).unwrap();
        assert_eq!(m.uri, "https://cloud.mirror.example/debian");
        assert_eq!(m.suite, "bookworm");
        let e = mirror_list_first(&r.root, "mirror+file:///etc/apt/mirrors/none.list");
        assert!(e.unwrap_err().contains("none.list"));
        assert_eq!(
            mirror_list_first(&r.root, "http://a.example/debian").unwrap(),
            "http://a.example/debian"
        );
    }

    #[test]
    fn stable_named_suites_are_debian() {
        let m = chosen("debian-stable-names");
        assert_eq!(m.uri, "http://mirror.example/debian");
        assert_eq!(m.suite, "stable");
        for s in [
            "stable-updates",
            "oldstable-backports",
            "testing",
            "unstable",
            "sid",
            "forky",
        ] {
            assert!(DEBIAN_SUITES.contains(&base_suite(s)), "{s}");
        }
    }

    #[test]
    fn a_disabled_stanza_is_not_taken() {
        let r = fixture("debian-disabled");
        let m = r.mirror(None).unwrap();
        // The disabled stanza comes first and names another mirror.
        assert_eq!(m.uri, "http://second.example/debian");
        let off = r
            .findings
            .iter()
            .find(|f| f.uri.starts_with("http://first.example"))
            .unwrap();
        assert_eq!(off.verdict, Err("disabled (Enabled: no)".into()));
    }

    #[test]
    fn ubuntu_2404_has_no_debian_mirror_and_says_what_to_do() {
        let r = fixture("ubuntu2404-deb822");
        assert!(r.os.is_ubuntu());
        let e = r.mirror(None).unwrap_err();
        assert!(e.contains("ubuntu.sources"), "{e}");
        assert!(e.contains("Ubuntu's archive"), "{e}");
        assert!(e.contains("Ubuntu 24.04"), "{e}");
        assert!(e.contains(OVERRIDE), "{e}");
        for f in &r.findings {
            assert!(f.verdict.is_err(), "{} taken", f.place());
        }
        let m = r.mirror(Some("http://deb.mirror.example/debian/")).unwrap();
        assert_eq!(m.uri, "http://deb.mirror.example/debian");
        assert_eq!(m.from, OVERRIDE);
    }

    #[test]
    fn ubuntu_2204_one_line_has_no_debian_mirror() {
        let r = fixture("ubuntu2204-oneline");
        let e = r.mirror(None).unwrap_err();
        assert!(e.contains("etc/apt/sources.list:"), "{e}");
        assert!(e.contains("jammy-security: a security archive"), "{e}");
        assert!(e.contains("jammy: Ubuntu's archive"), "{e}");
        assert!(e.contains("Ubuntu 22.04"), "{e}");
    }

    #[test]
    fn an_empty_configuration_names_where_it_looked() {
        let r = fixture("empty");
        let e = r.mirror(None).unwrap_err();
        assert!(e.contains("no apt sources under"), "{e}");
        assert!(e.contains("sources.list.d/*.sources"), "{e}");
        assert!(!e.contains("Ubuntu"), "{e}");
    }

    #[test]
    fn the_override_wins_on_debian_too_and_must_be_a_uri() {
        let r = fixture("debian13-deb822");
        let m = r.mirror(Some("http://local.example:3142/debian")).unwrap();
        assert_eq!(m.uri, "http://local.example:3142/debian");
        assert_eq!(
            r.mirror(Some("  ")).unwrap().uri,
            "http://mirror.example/debian"
        );
        assert!(r
            .mirror(Some("mirror.example"))
            .unwrap_err()
            .contains("not a URI"));
    }

    #[test]
    fn the_release_file_decides_when_apt_has_one() {
        // A bookworm entry at .../debian signed by nothing in particular,
        // listed first, whose downloaded Release file says another origin.
        let r = fixture("debian12-lists");
        let m = r.mirror(None).unwrap();
        assert_eq!(m.uri, "http://mirror.example/debian");
        let other = r
            .findings
            .iter()
            .find(|f| f.uri.contains("thirdparty.example"))
            .unwrap();
        assert!(
            other
                .verdict
                .as_ref()
                .unwrap_err()
                .contains("Origin: Example"),
            "{other:?}"
        );
        let debian = r.debian_entry().unwrap();
        assert_eq!(debian.verdict, Ok(4 + 1));
    }

    #[test]
    fn list_file_names_follow_apts_scheme() {
        assert_eq!(
            list_file_name("http://mirror.example/debian", "bookworm", "InRelease"),
            "mirror.example_debian_dists_bookworm_InRelease"
        );
        assert_eq!(
            list_file_name(
                "https://u:p@mirror.example:8080/~me/deb_x/",
                "sid",
                "Release"
            ),
            "mirror.example:8080_%7eme_deb%5fx_dists_sid_Release"
        );
    }

    #[test]
    fn base_suites_and_segments() {
        assert_eq!(base_suite("trixie-backports"), "trixie");
        assert_eq!(base_suite("bookworm-backports-sloppy"), "bookworm");
        assert_eq!(base_suite("stable-proposed-updates"), "stable");
        assert_eq!(base_suite("noble-proposed"), "noble");
        assert_eq!(base_suite("sid"), "sid");
        assert_eq!(last_segment("http://h/debian/"), "debian");
        assert_eq!(
            last_segment("http://h/pub/debian-security"),
            "debian-security"
        );
        assert_eq!(last_segment("http://h"), "h");
    }
}
