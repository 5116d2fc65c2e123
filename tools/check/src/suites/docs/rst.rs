//! What the `docs` suite reads in the reST sources itself: leftover merge
//! markers, the index's toctree and the diagram directives of a page.
//!
//! Plain line-based readers, no reST parser: each rule is the one the suite
//! needs and is written out where it is applied.

/// A line left behind by a merge conflict, with its 1-based line number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marker {
    /// Line number, counting from 1.
    pub line: usize,
    /// The line as found (trailing white space removed).
    pub text: String,
}

/// Git's conflict markers are seven characters long by default.
const MARKER_LEN: usize = 7;

/// Whether `line` opens or closes a conflict (`<<<<<<<`, `>>>>>>>`, and the
/// base marker `|||||||` of the diff3 style): the seven characters, then the
/// end of the line or a space before the side's name.
fn is_side_marker(line: &str) -> bool {
    ["<<<<<<<", ">>>>>>>", "|||||||"].iter().any(|m| {
        line.strip_prefix(m)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
    })
}

/// Whether `line` is exactly git's separator, seven `=` (trailing white
/// space aside): a line of more or fewer `=` is never one.
fn is_separator(line: &str) -> bool {
    line.trim_end() == "=".repeat(MARKER_LEN)
}

/// Whether `line` can be a section title over or under a line of seven
/// `=`: it has text, is no longer than the adornment (reST requires the
/// adornment to be at least as long as the title) and is not an adornment
/// or a marker itself.
fn fits_as_title(line: &str) -> bool {
    let t = line.trim_end();
    !t.trim().is_empty()
        && t.chars().count() <= MARKER_LEN
        && !is_separator(t)
        && !is_side_marker(t)
        && !t.chars().all(|c| c == '=')
}

/// Every merge-conflict line of `text`. A line of exactly seven `=` is a
/// section adornment, not a marker, when it underlines the title just above
/// it (a title of at most seven characters) or is the overline of such a
/// title: a blank line (or the start) before, the title after, and the same
/// seven `=` under the title. Anywhere else (after a blank line, under a
/// longer line of text) it is the separator a conflict left behind, and so
/// is any such line between a `<<<<<<<` and the next `>>>>>>>`.
pub fn merge_markers(text: &str) -> Vec<Marker> {
    let lines: Vec<&str> = text.lines().collect();
    let blank = |i: usize| lines[i].trim().is_empty();
    let mut found = Vec::new();
    // Between a conflict's `<<<<<<<` and its `>>>>>>>` the separator is one
    // whatever stands above it.
    let mut in_conflict = false;
    for (i, line) in lines.iter().enumerate() {
        let damaged = if is_side_marker(line) {
            in_conflict = line.starts_with('<') || (in_conflict && line.starts_with('|'));
            true
        } else if is_separator(line) && in_conflict {
            true
        } else if is_separator(line) {
            let underline = i > 0 && fits_as_title(lines[i - 1]);
            let overline = (i == 0 || blank(i - 1))
                && i + 2 < lines.len()
                && fits_as_title(lines[i + 1])
                && is_separator(lines[i + 2]);
            !underline && !overline
        } else {
            false
        };
        if damaged {
            found.push(Marker {
                line: i + 1,
                text: line.trim_end().to_string(),
            });
        }
    }
    found
}

/// The documents the `toctree` directives of `text` list, in order, as
/// written (without `.rst`). An entry may be a bare document name or
/// `Title <name>`; the directive's options (`:maxdepth: 1`) and comments
/// are not entries. A directive's body is its indented lines; the first
/// line with text at the directive's own indentation or less ends it.
pub fn toctree_entries(text: &str) -> Vec<String> {
    let mut entries = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let indent = indentation(line);
        if line.trim() != ".. toctree::" {
            continue;
        }
        while let Some(next) = lines.peek() {
            if next.trim().is_empty() {
                lines.next();
                continue;
            }
            if indentation(next) <= indent {
                break;
            }
            let entry = next.trim();
            lines.next();
            if entry.starts_with(':') || entry.starts_with("..") {
                continue;
            }
            let name = match (entry.rfind('<'), entry.ends_with('>')) {
                (Some(open), true) => &entry[open + 1..entry.len() - 1],
                _ => entry,
            };
            entries.push(name.trim().trim_end_matches(".rst").to_string());
        }
    }
    entries
}

fn indentation(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// The directives of the graphviz extension.
const DIAGRAM_DIRECTIVES: &[&str] = &[".. graphviz::", ".. digraph::", ".. graph::"];

/// How many diagrams `text` asks the graphviz extension to draw: one per
/// `graphviz`, `digraph` or `graph` directive, wherever it is indented.
/// (A directive shown inside a literal block would count too; the project's
/// pages have none.)
pub fn diagram_count(text: &str) -> usize {
    text.lines()
        .filter(|l| {
            let t = l.trim_start();
            DIAGRAM_DIRECTIVES.iter().any(|d| t.starts_with(d))
        })
        .count()
}

/// The SVG files an HTML page embeds as rendered diagrams, as the paths the
/// page gives (relative to the page): the `data` of each `<object>` whose
/// file is named `graphviz-*.svg`, Sphinx's name for a rendered diagram.
pub fn rendered_svgs(html: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = html;
    while let Some(at) = rest.find("<object") {
        rest = &rest[at..];
        let end = rest.find('>').unwrap_or(rest.len());
        let tag = &rest[..end];
        if let Some(data) = attribute(tag, "data") {
            let file = data.rsplit('/').next().unwrap_or(data);
            if file.starts_with("graphviz-") && file.ends_with(".svg") {
                found.push(data.to_string());
            }
        }
        rest = &rest[end..];
    }
    found
}

/// The double-quoted value of attribute `name` in the start tag `tag`.
fn attribute<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let start = tag.find(&key)? + key.len();
    let len = tag[start..].find('"')?;
    Some(&tag[start..start + len])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(found: &[Marker]) -> Vec<usize> {
        found.iter().map(|m| m.line).collect()
    }

    #[test]
    fn a_whole_conflict_is_found() {
        let text = "Intro\n\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> branch\n";
        let found = merge_markers(text);
        assert_eq!(lines_of(&found), [3, 5, 7]);
        assert_eq!(found[0].text, "<<<<<<< HEAD");
        let diff3 = "a\n<<<<<<<\nx\n||||||| base\ny\n=======\nz\n>>>>>>>\n";
        assert_eq!(lines_of(&merge_markers(diff3)), [2, 4, 6, 8]);
    }

    #[test]
    fn section_adornments_of_seven_are_not_markers() {
        // Under a title as long as the line, under a shorter one, and a title
        // with an overline (testing.rst's own heading).
        let text = "engines\n=======\n\nText.\n\nSummary\n=======\n\nIRQ\n=======\n";
        assert!(merge_markers(text).is_empty());
        let over = "=======\nTesting\n=======\n\nText.\n";
        assert!(merge_markers(over).is_empty());
        let mid = "Para.\n\n=======\nTesting\n=======\n";
        assert!(merge_markers(mid).is_empty());
    }

    #[test]
    fn a_bare_separator_is_damage() {
        // After a blank line (what swallowed sriov.rst's heading), under a
        // line longer than itself, at the start of a file, at its end.
        // (Under a short line of text it is a title's underline, and reST
        // reads it as one.)
        assert_eq!(lines_of(&merge_markers("Text.\n\n=======\nHeading\n")), [3]);
        assert_eq!(
            lines_of(&merge_markers("a paragraph line\n=======\nmore\n")),
            [2]
        );
        assert_eq!(lines_of(&merge_markers("=======\nx\n")), [1]);
        assert_eq!(lines_of(&merge_markers("A line of text.\n=======")), [2]);
        // An overline whose title is too long, or with no underline.
        assert_eq!(
            lines_of(&merge_markers("=======\nA long title\n=======\n")),
            [1, 3]
        );
        assert_eq!(lines_of(&merge_markers("=======\nTitle\nText\n")), [1]);
        // Trailing white space does not hide it.
        assert_eq!(lines_of(&merge_markers("\n=======  \n")), [2]);
    }

    #[test]
    fn longer_adornments_tables_and_look_alikes_are_left_alone() {
        let text = "A much longer heading\n=====================\n\n\
                    ====  ====\na     b\n====  ====\n\n\
                    ========\n\n<<<<<<<<< not seven\n>>>>>>>x\n";
        assert!(merge_markers(text).is_empty());
        // A separator under another separator is not a title's underline.
        assert_eq!(lines_of(&merge_markers("\n=======\n=======\n")), [2, 3]);
    }

    #[test]
    fn toctree_entries_skip_options_and_comments() {
        let index = "Title\n=====\n\n.. toctree::\n   :maxdepth: 1\n\n   architecture\n   \
                     mock\n   .. a comment\n   The guide <install.rst>\n\nAfter the tree.\n\
                     \n   indented text outside a tree\n";
        assert_eq!(toctree_entries(index), ["architecture", "mock", "install"]);
    }

    #[test]
    fn a_toctree_ends_at_its_own_indentation() {
        let text = "- item\n\n  .. toctree::\n\n     a\n     b\n\n  back in the item\n\
                    \n.. toctree::\n   :hidden:\n\n   c\n";
        assert_eq!(toctree_entries(text), ["a", "b", "c"]);
        assert!(toctree_entries("no tree here\n   a\n").is_empty());
    }

    #[test]
    fn diagrams_are_counted_by_directive() {
        let text =
            ".. graphviz::\n\n   digraph a { x -> y }\n\n- item\n\n  .. graphviz:: f.dot\n\n\
                    .. digraph:: b\n\n   x -> y\n\n.. graph:: c\n\n   x -- y\n\n\
                    .. image:: d.svg\n";
        assert_eq!(diagram_count(text), 4);
        assert_eq!(diagram_count("digraph a { }\n"), 0);
    }

    #[test]
    fn rendered_svgs_are_the_graphviz_objects() {
        let html = r#"<div class="graphviz"><object data="_images/graphviz-12ab.svg" type="image/svg+xml" class="graphviz">
<p class="warning">digraph</p></object></div>
<object data="_images/other.svg" type="image/svg+xml"></object>
<img src="_images/graphviz-99.png" alt="x"/>
<object data="../_images/graphviz-cd34.svg" type="image/svg+xml" class="graphviz">"#;
        assert_eq!(
            rendered_svgs(html),
            ["_images/graphviz-12ab.svg", "../_images/graphviz-cd34.svg"]
        );
        assert!(rendered_svgs("<pre>digraph a {}</pre>").is_empty());
    }
}
