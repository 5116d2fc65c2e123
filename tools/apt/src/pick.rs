//! Picking the newest of what the archive offers, from the text of apt's own
//! commands: the versions of one package (`apt-cache madison PKG` or
//! `apt-cache policy PKG`, or a bare list), and the newest kernel release of
//! a series among package names (`apt-cache pkgnames linux-image-7.3.`).

use crate::version::{self, Version};

/// The versions in `text`, in the order given: `apt-cache madison` lines
/// (`PKG | VERSION | SOURCE`; when `package` is given, only its lines), the
/// version table of `apt-cache policy`, or else the first word of each line.
pub fn versions(text: &str, package: Option<&str>) -> Result<Vec<Version>, String> {
    let mut out = Vec::new();
    let lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    if text.contains('|') {
        for line in lines {
            let cols: Vec<&str> = line.split('|').map(str::trim).collect();
            if cols.len() < 3 {
                return Err(format!("not an apt-cache madison line: `{line}`"));
            }
            if package.is_none_or(|p| p == cols[0]) {
                out.push(Version::parse(cols[1])?);
            }
        }
    } else if text.contains("Version table:") {
        // Version lines are `[***] VERSION PRIORITY`; each is followed by
        // `PRIORITY SOURCE...` lines, whose second word is a URI or a path.
        let mut in_table = false;
        let mut wanted = true;
        for line in lines {
            if let Some(name) = line.strip_suffix(':').filter(|n| !n.contains(' ')) {
                wanted = package.is_none_or(|p| p == name);
                in_table = false;
                continue;
            }
            if line == "Version table:" {
                in_table = true;
                continue;
            }
            if !in_table || !wanted {
                continue;
            }
            let words: Vec<&str> = line.trim_start_matches("***").split_whitespace().collect();
            if words.len() == 2 && words[1].bytes().all(|b| b.is_ascii_digit()) {
                out.push(Version::parse(words[0])?);
            }
        }
    } else {
        for line in lines {
            let first = line.split_whitespace().next().unwrap_or("");
            out.push(Version::parse(first)?);
        }
    }
    Ok(out)
}

/// The newest version in `text` (see [`versions`]).
pub fn newest_version(text: &str, package: Option<&str>) -> Result<Version, String> {
    let all = versions(text, package)?;
    version::newest(&all).cloned().ok_or_else(|| match package {
        Some(p) => format!("no version of {p} in the input"),
        None => "no version in the input".into(),
    })
}

/// The kernel release (`uname -r`, e.g. `7.3.4+deb13-amd64`) of a package
/// name `linux-image-RELEASE` whose release is of `series` (`7.3`) and plain
/// `flavour` (`amd64`; not `cloud-amd64`, `rt-amd64`, nor `-dbg` or
/// `-unsigned` packages), with the release's ABI part (`7.3.4+deb13`).
fn kernel_release<'a>(name: &'a str, series: &str, flavour: &str) -> Option<(&'a str, &'a str)> {
    let release = name.strip_prefix("linux-image-")?;
    let abi = release.strip_suffix(flavour)?.strip_suffix('-')?;
    let rest = abi.strip_prefix(series)?.strip_prefix('.')?;
    if !rest.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    // The older ABI naming, `6.1.0-18`, has one hyphen followed by a number.
    match abi.split_once('-') {
        None => {}
        Some((_, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {}
        Some(_) => return None,
    }
    Version::parse(abi).ok()?;
    Some((release, abi))
}

/// The newest kernel release of `series` and `flavour` among the package
/// names in `text` (whitespace separated), by Debian ordering of the ABI
/// part; an error names what was looked for.
pub fn newest_kernel(text: &str, series: &str, flavour: &str) -> Result<String, String> {
    let mut best: Option<(Version, &str)> = None;
    for name in text.split_whitespace() {
        let Some((release, abi)) = kernel_release(name, series, flavour) else {
            continue;
        };
        let v = Version::parse(abi)?;
        if best.as_ref().is_none_or(|(b, _)| v > *b) {
            best = Some((v, release));
        }
    }
    best.map(|(_, r)| r.to_string())
        .ok_or_else(|| format!("no linux-image-{series}.*-{flavour} package among the names given"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MADISON: &str = "\
linux-source-7.3 | 7.3.4-1~bpo13+1 | http://mirror.example/debian trixie-backports/main amd64 Packages
linux-source-7.3 | 7.3.10-1~bpo13+1 | http://mirror.example/debian trixie-backports/main amd64 Packages
firmware-intel-graphics | 20250410-2 | http://mirror.example/debian trixie/non-free-firmware amd64 Packages
firmware-intel-graphics | 20251111-1~bpo13+1 | http://mirror.example/debian trixie-backports/non-free-firmware amd64 Packages
";

    const POLICY: &str = "\
firmware-intel-graphics:
  Installed: (none)
  Candidate: 20250410-2
  Version table:
     20251111-1~bpo13+1 100
        100 http://mirror.example/debian trixie-backports/non-free-firmware amd64 Packages
 *** 20250410-2 990
        990 http://mirror.example/debian trixie/non-free-firmware amd64 Packages
        100 /var/lib/dpkg/status
linux-source-7.3:
  Installed: (none)
  Candidate: 7.3.4-1~bpo13+1
  Version table:
     7.3.4-1~bpo13+1 990
        990 http://mirror.example/debian trixie-backports/main amd64 Packages
";

    #[test]
    fn madison_lines_per_package() {
        let v = newest_version(MADISON, Some("linux-source-7.3")).unwrap();
        assert_eq!(v.to_string(), "7.3.10-1~bpo13+1");
        let fw = newest_version(MADISON, Some("firmware-intel-graphics")).unwrap();
        assert_eq!(fw.to_string(), "20251111-1~bpo13+1");
        let e = newest_version(MADISON, Some("linux-source-7.4")).unwrap_err();
        assert_eq!(e, "no version of linux-source-7.4 in the input");
        assert!(newest_version("a | b\n", None)
            .unwrap_err()
            .contains("madison"));
    }

    #[test]
    fn policy_version_tables_not_the_candidate_line() {
        // The candidate (pinned) is older than what the table offers.
        let fw = newest_version(POLICY, Some("firmware-intel-graphics")).unwrap();
        assert_eq!(fw.to_string(), "20251111-1~bpo13+1");
        let src = versions(POLICY, Some("linux-source-7.3")).unwrap();
        assert_eq!(src.len(), 1);
        assert_eq!(versions(POLICY, None).unwrap().len(), 3);
    }

    #[test]
    fn bare_lists_and_bad_input() {
        let v = newest_version("1.0-1\n1.0-1+b1 extra words\n\n0.9\n", None).unwrap();
        assert_eq!(v.to_string(), "1.0-1+b1");
        assert_eq!(
            newest_version("", None).unwrap_err(),
            "no version in the input"
        );
        assert!(newest_version("1.0\nnot-a-version\n", None).is_err());
    }

    #[test]
    fn kernel_releases_of_the_series_and_plain_flavour_only() {
        let names = "linux-image-7.3.4+deb13-amd64 linux-image-7.3.10+deb13-amd64
            linux-image-7.3.12+deb13-amd64-dbg linux-image-7.3.12+deb13-amd64-unsigned
            linux-image-7.3.12+deb13-cloud-amd64 linux-image-7.3.12+deb13-rt-amd64
            linux-image-7.4.1+deb13-amd64 linux-image-7.30.1+deb13-amd64
            linux-image-6.12.48+deb13-amd64 linux-image-amd64 linux-image-7.3.x-amd64";
        assert_eq!(
            newest_kernel(names, "7.3", "amd64").unwrap(),
            "7.3.10+deb13-amd64"
        );
        assert_eq!(
            newest_kernel(names, "7.4", "amd64").unwrap(),
            "7.4.1+deb13-amd64"
        );
        assert_eq!(
            newest_kernel(names, "7.3", "cloud-amd64").unwrap(),
            "7.3.12+deb13-cloud-amd64"
        );
        let e = newest_kernel(names, "7.5", "amd64").unwrap_err();
        assert_eq!(
            e,
            "no linux-image-7.5.*-amd64 package among the names given"
        );
    }

    #[test]
    fn the_older_abi_naming_is_understood() {
        let names =
            "linux-image-6.1.0-9-amd64 linux-image-6.1.0-18-amd64 linux-image-6.1.0-18-rt-amd64";
        assert_eq!(
            newest_kernel(names, "6.1", "amd64").unwrap(),
            "6.1.0-18-amd64"
        );
    }
}
