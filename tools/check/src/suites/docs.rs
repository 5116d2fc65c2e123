//! Suite `docs`: the documentation builds, and nothing in it is damaged.
//!
//! - `sphinx-build: no warnings`: Debian's Sphinx ([`SPHINX_BUILD`], package
//!   `python3-sphinx`; `graphviz` draws the diagrams) builds
//!   `Documentation/` to HTML from scratch (`-E`) with every warning an
//!   error, all of them reported (`-W --keep-going`), into
//!   `build/check-logs/docs/html`. `make docs` is the same build into
//!   `build/docs`. A missing `sphinx-build` or `dot` fails the case with the
//!   package to install.
//! - `no merge markers in Documentation/ and README`: no line of any file
//!   under `Documentation/` or of a `README*` at the top is a conflict
//!   marker; a line of seven `=` counts unless it is a section adornment
//!   ([`rst::merge_markers`]).
//! - `every page is in the index's toctree`: each `Documentation/*.rst` but
//!   the index is listed by a toctree of `index.rst`, and each entry is a
//!   page ([`rst::toctree_entries`]).
//! - `every diagram is rendered to SVG`: per page, as many `graphviz-*.svg`
//!   objects in its HTML as the page has diagram directives, each an SVG
//!   file in the output ([`rst::diagram_count`], [`rst::rendered_svgs`]).
//!   Sphinx falls back to printing the source of a diagram it could not
//!   draw, with a warning; this case holds even if that warning were lost.
//! - `Documentation/ABI: the kernel's get_abi.py validate`: the kernel
//!   tree's own ABI checker (`tools/docs/get_abi.py -D DIR validate`, which
//!   takes any directory), silent on success, so any output fails.
//! - `Documentation/ABI: every entry has What, Date, KernelVersion, Contact
//!   and Description`: what the kernel's README asks of an entry and its
//!   checker does not verify ([`abi_entries`]).

mod abi_entries;
mod rst;

use super::Context;
use crate::report::{tail, Case, Reporter};
use anyhow::{bail, Context as _, Result};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use xehpg_common::process::{run_logged, run_split};

/// Debian's Sphinx, which runs on Debian's Python (the `python3` first in a
/// developer's PATH may be another without Sphinx); `$SPHINXBUILD`
/// overrides it, as it does for `make docs`.
pub const SPHINX_BUILD: &str = "/usr/bin/sphinx-build";

/// The documentation, relative to the repository.
const DOCS: &str = "Documentation";

/// The ABI files, relative to the repository.
const ABI_DIR: &str = "Documentation/ABI";

/// The kernel's ABI checker, relative to the kernel tree.
const GET_ABI: &str = "tools/docs/get_abi.py";

/// Limit for one Sphinx build or one ABI check (a few seconds each).
const LIMIT: Duration = Duration::from_secs(5 * 60);

/// How many lines of warnings a failure shows.
const SHOWN: usize = 40;

/// How much of one warning line a failure shows.
const LINE_CHARS: usize = 300;

/// Runs the suite.
pub fn run(ctx: &Context, r: &mut Reporter) {
    let logs = ctx.log_dir("docs");
    let html = logs.join("html");
    let built = sphinx_build(ctx, &logs, &html);
    let rendered_ok = built.ran;
    r.case(built.case);
    r.case(markers_case(&ctx.repo));
    r.case(toctree_case(&ctx.repo));
    r.case(diagrams_case(&ctx.repo, &html, rendered_ok));
    r.case(get_abi_case(ctx, &logs));
    r.case(abi_fields_case(&ctx.repo));
}

/// The Sphinx build's verdict, and whether it produced HTML to look at.
struct Built {
    case: Case,
    ran: bool,
}

/// `sphinx-build`, from `$SPHINXBUILD` or [`SPHINX_BUILD`].
fn sphinx_program() -> PathBuf {
    std::env::var_os("SPHINXBUILD")
        .filter(|v| !v.is_empty())
        .map_or_else(|| PathBuf::from(SPHINX_BUILD), PathBuf::from)
}

/// Whether `program` is on the PATH.
fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(program).is_file()))
}

fn sphinx_build(ctx: &Context, logs: &Path, html: &Path) -> Built {
    const NAME: &str = "sphinx-build: no warnings";
    let program = sphinx_program();
    let bare = program.components().count() == 1;
    let found = program.is_file() || (bare && on_path(&program.to_string_lossy()));
    if !found {
        return Built {
            case: Case::fail(
                NAME,
                format!(
                    "{} not found: install Debian's python3-sphinx (and graphviz), \
                     which tools/bootstrap.sh does",
                    program.display()
                ),
            ),
            ran: false,
        };
    }
    if !on_path("dot") {
        return Built {
            case: Case::fail(
                NAME,
                "graphviz's `dot` is not on the PATH: install Debian's graphviz, \
                 which tools/bootstrap.sh does",
            ),
            ran: false,
        };
    }
    let _ = std::fs::remove_dir_all(html);
    let out = logs.join("sphinx-build.out");
    let log = logs.join("sphinx-build.log");
    let mut cmd = Command::new(&program);
    cmd.args(["-b", "html", "-E", "-W", "--keep-going", "-q", "-d"])
        .arg(logs.join("doctrees"))
        .arg(ctx.repo.join(DOCS))
        .arg(html);
    let finished = match run_split(&mut cmd, &out, &log, LIMIT) {
        Ok(f) => f,
        Err(e) => {
            return Built {
                case: Case::fail(NAME, format!("{e:#}")),
                ran: false,
            }
        }
    };
    // The log starts with the command line; the rest is Sphinx's stderr,
    // which `-q` leaves to warnings and errors.
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let warnings: Vec<String> = text.lines().skip(1).map(str::to_string).collect();
    let count = warnings
        .iter()
        .filter(|l| {
            ["WARNING:", "ERROR:", "SEVERE:", "CRITICAL:"]
                .iter()
                .any(|k| l.contains(k))
        })
        .count();
    let case = if finished.success() && warnings.is_empty() {
        Case::pass(NAME)
    } else {
        // A diagram Sphinx could not draw comes back whole on one line.
        let mut details: Vec<String> = warnings
            .iter()
            .take(SHOWN)
            .map(|l| match l.char_indices().nth(LINE_CHARS) {
                Some((at, _)) => format!("{} ...", &l[..at]),
                None => l.clone(),
            })
            .collect();
        details.push(format!("(log: {})", log.display()));
        Case::fail(
            NAME,
            format!("{count} warning(s) or error(s), {}", finished.describe()),
        )
        .with_details(details)
    };
    Built {
        case,
        ran: finished.status.is_some() && html.join("index.html").is_file(),
    }
}

/// The files the marker check reads: everything under `Documentation/` and
/// each `README*` at the top of the repository, sorted.
fn marker_files(repo: &Path) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    walk(&repo.join(DOCS), &mut files)?;
    for entry in std::fs::read_dir(repo).context("reading the repository's top")? {
        let path = entry?.path();
        let is_readme = path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("README"));
        if is_readme && path.is_file() {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

fn walk(dir: &Path, files: &mut Vec<PathBuf>) -> Result<()> {
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        if path.is_dir() {
            walk(&path, files)?;
        } else {
            files.push(path);
        }
    }
    Ok(())
}

fn relative<'a>(repo: &Path, path: &'a Path) -> std::borrow::Cow<'a, str> {
    path.strip_prefix(repo).unwrap_or(path).to_string_lossy()
}

fn markers_case(repo: &Path) -> Case {
    const NAME: &str = "no merge markers in Documentation/ and README";
    let files = match marker_files(repo) {
        Ok(f) => f,
        Err(e) => return Case::fail(NAME, format!("{e:#}")),
    };
    let mut found = Vec::new();
    for file in &files {
        // A binary file has no lines to damage; one read as lossy text
        // would only give noise.
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        for m in rst::merge_markers(&text) {
            found.push(format!("{}:{}: {}", relative(repo, file), m.line, m.text));
        }
    }
    if found.is_empty() {
        Case::pass(NAME)
    } else {
        Case::fail(
            NAME,
            format!(
                "{} conflict line(s) left by a merge (a line of seven `=` counts unless it \
                 adorns a title of at most seven characters)",
                found.len()
            ),
        )
        .with_details(found)
    }
}

fn toctree_case(repo: &Path) -> Case {
    const NAME: &str = "every page is in the index's toctree";
    Case::from_result(NAME, check_toctree(repo))
}

/// The names of the pages, `Documentation/*.rst` without the suffix, sorted.
fn pages(repo: &Path) -> Result<Vec<String>> {
    let dir = repo.join(DOCS);
    let mut pages = Vec::new();
    for entry in std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "rst") {
            if let Some(stem) = path.file_stem() {
                pages.push(stem.to_string_lossy().into_owned());
            }
        }
    }
    pages.sort();
    Ok(pages)
}

fn check_toctree(repo: &Path) -> Result<()> {
    let pages = pages(repo)?;
    let index = std::fs::read_to_string(repo.join(DOCS).join("index.rst"))
        .context("reading Documentation/index.rst")?;
    let listed = rst::toctree_entries(&index);
    let missing: Vec<&str> = pages
        .iter()
        .filter(|p| *p != "index" && !listed.contains(p))
        .map(String::as_str)
        .collect();
    let unknown: Vec<&str> = listed
        .iter()
        .filter(|l| !pages.contains(l))
        .map(String::as_str)
        .collect();
    match (missing.is_empty(), unknown.is_empty()) {
        (true, true) => Ok(()),
        (false, _) => bail!(
            "not in index.rst's toctree: {} (add each under `.. toctree::`)",
            missing.join(", ")
        ),
        (true, false) => bail!(
            "index.rst's toctree names no such page: {}",
            unknown.join(", ")
        ),
    }
}

fn diagrams_case(repo: &Path, html: &Path, built: bool) -> Case {
    const NAME: &str = "every diagram is rendered to SVG";
    if !built {
        return Case::fail(NAME, "no HTML to look at: the Sphinx build did not run");
    }
    let pages = match pages(repo) {
        Ok(p) => p,
        Err(e) => return Case::fail(NAME, format!("{e:#}")),
    };
    let mut parts = Vec::new();
    for page in pages {
        let source = match std::fs::read_to_string(repo.join(DOCS).join(format!("{page}.rst"))) {
            Ok(t) => t,
            Err(e) => {
                parts.push(Case::fail(&page, format!("reading the source: {e}")));
                continue;
            }
        };
        let want = rst::diagram_count(&source);
        if want == 0 {
            continue;
        }
        parts.push(Case::from_result(
            format!("{page}.rst"),
            check_rendered(html, &page, want),
        ));
    }
    if parts.is_empty() {
        return Case::fail(NAME, "no page has a diagram directive");
    }
    Case::combine(NAME, parts)
}

/// Whether the HTML of `page` embeds `want` rendered diagrams, each an SVG
/// file that exists.
fn check_rendered(html: &Path, page: &str, want: usize) -> Result<()> {
    let file = html.join(format!("{page}.html"));
    let text =
        std::fs::read_to_string(&file).with_context(|| format!("reading {}", file.display()))?;
    let svgs = rst::rendered_svgs(&text);
    if svgs.len() != want {
        bail!(
            "{want} diagram directive(s), {} rendered SVG(s) in {page}.html",
            svgs.len()
        );
    }
    for svg in svgs {
        let path = html.join(&svg);
        let body = std::fs::read_to_string(&path)
            .with_context(|| format!("{page}.html embeds {svg}, which cannot be read"))?;
        if !body.contains("<svg") {
            bail!("{svg} is not an SVG image");
        }
    }
    Ok(())
}

fn get_abi_case(ctx: &Context, logs: &Path) -> Case {
    const NAME: &str = "Documentation/ABI: the kernel's get_abi.py validate";
    let tool = ctx.kdir.join(GET_ABI);
    if !tool.is_file() {
        return Case::fail(
            NAME,
            format!(
                "{} not found: is {} a 7.3 kernel tree?",
                GET_ABI,
                ctx.kdir.display()
            ),
        );
    }
    let log = logs.join("get_abi.log");
    let mut cmd = Command::new("python3");
    cmd.arg(&tool)
        .arg("-D")
        .arg(ctx.repo.join(ABI_DIR))
        .arg("validate");
    let finished = match run_logged(&mut cmd, &log, LIMIT) {
        Ok(f) => f,
        Err(e) => return Case::fail(NAME, format!("{e:#}")),
    };
    // It prints nothing for clean files and warns without changing its exit
    // status, so any line after the logged command line is a finding.
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let output: Vec<String> = text.lines().skip(1).map(str::to_string).collect();
    if finished.success() && output.is_empty() {
        return Case::pass(NAME);
    }
    let why = if finished.success() {
        "the checker reported problems".to_string()
    } else {
        format!("the checker failed ({})", finished.describe())
    };
    let mut details: Vec<String> = if output.is_empty() {
        tail(&log, 5)
    } else {
        output.into_iter().take(SHOWN).collect()
    };
    details.push(format!("(log: {})", log.display()));
    Case::fail(NAME, why).with_details(details)
}

fn abi_fields_case(repo: &Path) -> Case {
    const NAME: &str =
        "Documentation/ABI: every entry has What, Date, KernelVersion, Contact and Description";
    let mut files = Vec::new();
    if let Err(e) = walk(&repo.join(ABI_DIR), &mut files) {
        return Case::fail(NAME, format!("{e:#}"));
    }
    files.sort();
    if files.is_empty() {
        return Case::fail(NAME, format!("no files under {ABI_DIR}"));
    }
    let mut found = Vec::new();
    for file in &files {
        match std::fs::read_to_string(file) {
            Ok(text) => found.extend(
                abi_entries::check(&text)
                    .into_iter()
                    .map(|p| format!("{}:{}: {}", relative(repo, file), p.line, p.message)),
            ),
            Err(e) => found.push(format!("{}: {e}", relative(repo, file))),
        }
    }
    if found.is_empty() {
        Case::pass(NAME)
    } else {
        Case::fail(NAME, format!("{} problem(s)", found.len())).with_details(found)
    }
}
