//! The fields every entry of a `Documentation/ABI/` file must have.
//!
//! The kernel's own checker (`tools/docs/get_abi.py validate`) reports tags
//! it does not know, misplaced `What:` lines and entries without a
//! description, but not an entry that lacks a date, a kernel version or a
//! contact, which the kernel's `Documentation/ABI/README` asks of every
//! entry. This reader checks just that: an entry is one or more `What:`
//! lines and the tags after them up to the next `What:`; each needs a
//! non-empty `Date:`, `KernelVersion:`, `Contact:` and `Description:` (the
//! description's text may start on the lines below its tag).

/// The tags an entry must carry besides `What:`.
pub const REQUIRED: &[&str] = &["Date", "KernelVersion", "Contact", "Description"];

/// The tags the README defines; any other `Word:` at the start of a line
/// inside a description is text.
const KNOWN: &[&str] = &[
    "What",
    "Date",
    "KernelVersion",
    "Contact",
    "Description",
    "Users",
];

/// One entry's problem: the line of its first `What:` and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// 1-based line of the entry's first `What:` (or of the stray text).
    pub line: usize,
    /// What is wrong, naming the entry's first path.
    pub message: String,
}

#[derive(Default)]
struct Entry {
    line: usize,
    what: String,
    /// Tags seen, each with whether it had text.
    tags: Vec<(&'static str, bool)>,
}

impl Entry {
    fn problems(&self) -> Vec<Problem> {
        REQUIRED
            .iter()
            .filter_map(|want| {
                let why = match self.tags.iter().find(|(t, _)| t == want) {
                    None => "has no",
                    Some((_, false)) => "has an empty",
                    Some((_, true)) => return None,
                };
                Some(Problem {
                    line: self.line,
                    message: format!("{} {why} {want}:", self.what),
                })
            })
            .collect()
    }
}

/// A known tag at the start of `line`, with the text after it.
fn tag_of(line: &str) -> Option<(&'static str, &str)> {
    let (head, rest) = line.split_once(':')?;
    let tag = KNOWN.iter().find(|k| **k == head)?;
    Some((tag, rest.trim()))
}

/// Every entry of the ABI file `text` that lacks a required field, and any
/// text before the first `What:` that is not blank.
pub fn check(text: &str) -> Vec<Problem> {
    let mut problems = Vec::new();
    let mut entries: Vec<Entry> = Vec::new();
    let mut last_tag: Option<&'static str> = None;
    for (i, line) in text.lines().enumerate() {
        match tag_of(line) {
            Some(("What", path)) => {
                if last_tag != Some("What") {
                    entries.push(Entry {
                        line: i + 1,
                        what: path.to_string(),
                        ..Entry::default()
                    });
                }
                last_tag = Some("What");
            }
            Some((tag, rest)) => match entries.last_mut() {
                Some(e) => {
                    e.tags.push((tag, !rest.is_empty()));
                    last_tag = Some(tag);
                }
                None => problems.push(Problem {
                    line: i + 1,
                    message: format!("{tag}: before the first What:"),
                }),
            },
            None if line.trim().is_empty() => {}
            None => match (entries.last_mut(), last_tag) {
                // Text under an empty tag (a description's first line)
                // fills it.
                (Some(e), Some(_)) => {
                    if let Some(last) = e.tags.last_mut() {
                        last.1 = true;
                    }
                }
                _ => problems.push(Problem {
                    line: i + 1,
                    message: "text before the first What:".to_string(),
                }),
            },
        }
    }
    problems.extend(entries.iter().flat_map(Entry::problems));
    problems.sort_by_key(|p| p.line);
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "What:\t\t/sys/a\nWhat:\t\t/sys/b\nDate:\t\tDecember 2026\n\
                        KernelVersion:\t7.3\nContact:\tsomeone\nDescription:\n\t\tText.\n\
                        \t\tNote: a colon in the text is not a tag.\n\n\
                        What:\t\t/sys/c\nDate:\t\tDecember 2026\nKernelVersion:\t7.3\n\
                        Contact:\tsomeone\nDescription:\tOn the tag's line.\nUsers:\t\tnone\n";

    #[test]
    fn complete_entries_pass() {
        assert_eq!(check(GOOD), []);
    }

    #[test]
    fn each_missing_or_empty_field_is_named() {
        let text = "What:\t\t/sys/a\nDate:\t\tDecember 2026\nContact:\nDescription:\n\t\tText.\n\n\
                    What:\t\t/sys/b\nKernelVersion:\t7.3\nContact:\tx\nDate:\tx\nDescription:\n";
        let got: Vec<(usize, String)> = check(text)
            .into_iter()
            .map(|p| (p.line, p.message))
            .collect();
        assert_eq!(
            got,
            [
                (1, "/sys/a has no KernelVersion:".to_string()),
                (1, "/sys/a has an empty Contact:".to_string()),
                (7, "/sys/b has an empty Description:".to_string()),
            ]
        );
    }

    #[test]
    fn text_before_the_first_entry_is_reported() {
        let text = format!("stray words\nDate:\t\tDecember 2026\n\n{GOOD}");
        let lines: Vec<usize> = check(&text).iter().map(|p| p.line).collect();
        assert_eq!(lines, [1, 2]);
    }

    #[test]
    fn every_required_field_is_checked() {
        for field in REQUIRED {
            let text: String = GOOD
                .lines()
                .take(8)
                .filter(|l| !l.starts_with(&format!("{field}:")))
                .map(|l| format!("{l}\n"))
                .collect();
            let problems = check(&text);
            assert_eq!(problems.len(), 1, "{field}: {problems:?}");
            assert!(problems[0].message.contains(field), "{problems:?}");
        }
    }
}
