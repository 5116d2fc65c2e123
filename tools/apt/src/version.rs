//! Debian version numbers and their order, as dpkg defines it
//! (deb-version(7)): `[epoch:]upstream[-revision]`, compared field by field;
//! within a field, runs of non-digits compare character by character (letters
//! before other characters, `~` before everything, even the end of the
//! string) and runs of digits compare as numbers.

use std::cmp::Ordering;
use std::fmt;

/// A parsed Debian version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    epoch: u64,
    upstream: String,
    revision: String,
    text: String,
}

impl Version {
    /// Parses `text`; refuses what dpkg would not accept as a version.
    pub fn parse(text: &str) -> Result<Version, String> {
        let text = text.trim();
        if text.is_empty() {
            return Err("an empty version".into());
        }
        let (epoch, rest) = match text.split_once(':') {
            Some((e, rest)) => {
                let epoch = e
                    .parse::<u64>()
                    .map_err(|_| format!("`{text}`: the epoch `{e}` is not a number"))?;
                (epoch, rest)
            }
            None => (0, text),
        };
        let (upstream, revision) = match rest.rsplit_once('-') {
            Some((u, r)) => (u, r),
            None => (rest, ""),
        };
        if upstream.is_empty() {
            return Err(format!("`{text}`: no upstream version"));
        }
        if !upstream.starts_with(|c: char| c.is_ascii_digit()) {
            return Err(format!(
                "`{text}`: the upstream version must start with a digit"
            ));
        }
        let ok = |s: &str, extra: &str| {
            s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "+.~".contains(c) || extra.contains(c))
        };
        // The upstream part may hold hyphens (the revision is after the last
        // one) and colons (after the first, which ends the epoch).
        if !ok(upstream, "-:") || !ok(revision, "") {
            return Err(format!("`{text}`: a character no Debian version has"));
        }
        Ok(Version {
            epoch,
            upstream: upstream.to_string(),
            revision: revision.to_string(),
            text: text.to_string(),
        })
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl Ord for Version {
    fn cmp(&self, other: &Self) -> Ordering {
        self.epoch
            .cmp(&other.epoch)
            .then_with(|| compare_part(&self.upstream, &other.upstream))
            .then_with(|| compare_part(&self.revision, &other.revision))
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Where a character of a non-digit run sorts: `~` lowest, then the end of
/// the run (and digits, which end it), then letters, then everything else.
fn weight(c: Option<u8>) -> i32 {
    match c {
        None => 0,
        Some(b'~') => -1,
        Some(c) if c.is_ascii_digit() => 0,
        Some(c) if c.is_ascii_alphabetic() => i32::from(c),
        Some(c) => i32::from(c) + 256,
    }
}

/// Compares one field (upstream version or revision) of two versions.
pub fn compare_part(a: &str, b: &str) -> Ordering {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        // A run of non-digits on either side.
        while a.get(i).is_some_and(|c| !c.is_ascii_digit())
            || b.get(j).is_some_and(|c| !c.is_ascii_digit())
        {
            let (wa, wb) = (weight(a.get(i).copied()), weight(b.get(j).copied()));
            if wa != wb {
                return wa.cmp(&wb);
            }
            i += 1;
            j += 1;
        }
        // A run of digits: a number, leading zeros ignored, absent is 0.
        let start_a = i;
        while a.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        let start_b = j;
        while b.get(j).is_some_and(u8::is_ascii_digit) {
            j += 1;
        }
        let na = trim_zeros(&a[start_a.min(a.len())..i.min(a.len())]);
        let nb = trim_zeros(&b[start_b.min(b.len())..j.min(b.len())]);
        let by_number = na.len().cmp(&nb.len()).then_with(|| na.cmp(nb));
        if by_number != Ordering::Equal {
            return by_number;
        }
    }
    Ordering::Equal
}

fn trim_zeros(digits: &[u8]) -> &[u8] {
    let first = digits
        .iter()
        .position(|&c| c != b'0')
        .unwrap_or(digits.len());
    &digits[first..]
}

/// The newest of `versions` (the first of equals), or `None` when empty.
pub fn newest<'a>(versions: impl IntoIterator<Item = &'a Version>) -> Option<&'a Version> {
    versions
        .into_iter()
        .fold(None, |best: Option<&Version>, v| match best {
            Some(b) if *b >= *v => Some(b),
            _ => Some(v),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmp(a: &str, b: &str) -> Ordering {
        Version::parse(a).unwrap().cmp(&Version::parse(b).unwrap())
    }

    #[test]
    fn numbers_compare_as_numbers_not_text() {
        assert_eq!(cmp("7.3.10-1", "7.3.4-1"), Ordering::Greater);
        assert_eq!(cmp("7.3.4-1", "7.3.10-1"), Ordering::Less);
        assert_eq!(cmp("1.010", "1.10"), Ordering::Equal);
        assert_eq!(cmp("1.0", "1.0.1"), Ordering::Less);
        assert_eq!(cmp("20230625", "20240101"), Ordering::Less);
    }

    #[test]
    fn tilde_sorts_before_everything_even_the_end() {
        assert_eq!(cmp("7.3.4-1~bpo13+1", "7.3.4-1"), Ordering::Less);
        assert_eq!(cmp("1.0~rc1", "1.0"), Ordering::Less);
        assert_eq!(cmp("1.0~rc1", "1.0~rc2"), Ordering::Less);
        assert_eq!(cmp("1.0~~", "1.0~"), Ordering::Less);
        assert_eq!(cmp("1.0~~a", "1.0~~"), Ordering::Greater);
        assert_eq!(cmp("7.3.4-1~bpo13+1", "7.3.4-1~bpo13+2"), Ordering::Less);
    }

    #[test]
    fn letters_sort_before_other_characters_and_after_the_end() {
        assert_eq!(cmp("1.0a", "1.0"), Ordering::Greater);
        assert_eq!(cmp("1.0a", "1.0+"), Ordering::Less);
        assert_eq!(cmp("1.0+", "1.0."), Ordering::Less);
        assert_eq!(cmp("1.0-1+b1", "1.0-1"), Ordering::Greater);
        assert_eq!(cmp("1.0+dfsg-1", "1.0-1"), Ordering::Greater);
        assert_eq!(cmp("1.0a-1", "1.0B-1"), Ordering::Greater);
    }

    #[test]
    fn epoch_wins_then_upstream_then_revision() {
        assert_eq!(cmp("1:0.1", "9.9"), Ordering::Greater);
        assert_eq!(cmp("0:1.0", "1.0"), Ordering::Equal);
        assert_eq!(cmp("1.0-10", "1.0-9"), Ordering::Greater);
        assert_eq!(cmp("1.1-1", "1.0-9"), Ordering::Greater);
        assert_eq!(cmp("1.0", "1.0-0"), Ordering::Equal);
        // The revision is after the last hyphen; upstream may hold more.
        assert_eq!(cmp("1.0-rc1-2", "1.0-rc1-1"), Ordering::Greater);
        assert_eq!(cmp("2:1.0-1", "2:1.0-1"), Ordering::Equal);
    }

    #[test]
    fn malformed_versions_are_refused_with_the_reason() {
        for bad in ["", "  ", "a1.0", "x:1.0", "1.0-1_1", "-1", "1.0 2"] {
            assert!(Version::parse(bad).is_err(), "{bad:?} was accepted");
        }
        assert!(Version::parse("x:1.0").unwrap_err().contains("epoch"));
        assert_eq!(Version::parse(" 1:2.0-3 ").unwrap().to_string(), "1:2.0-3");
    }

    #[test]
    fn newest_picks_by_order_not_by_position() {
        let vs: Vec<Version> = [
            "7.3.4-1~bpo13+1",
            "7.3.10-1~bpo13+1",
            "7.3.9-2",
            "7.3.10-1~bpo13",
        ]
        .iter()
        .map(|s| Version::parse(s).unwrap())
        .collect();
        assert_eq!(newest(&vs).unwrap().to_string(), "7.3.10-1~bpo13+1");
        assert!(newest(&[]).is_none());
    }
}
