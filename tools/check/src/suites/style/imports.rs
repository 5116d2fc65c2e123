//! The driver's import graph across its top-level blocks, read with `syn`.
//!
//! A block is a module of the crate root: `rust/X.rs` together with its
//! children in `rust/X/`; the crate root `rust/xehpg.rs` is a block of its
//! own, which also owns whatever `crate::` path names no block. A block
//! imports another when its code names it: `use crate::x::..` (groups,
//! globs and renames included), a `crate::x::..`, `super::..` or `self::..`
//! path anywhere in items, types or expressions, a path through a name such
//! a `use` bound (`guc::Part` after `use crate::guc`), or such a path inside
//! a macro invocation's tokens. Test code (`#[cfg(test)]`, `#[kunit_tests]`)
//! is left out: it may reach anything it tests.
//!
//! Three facts are checked on the graph: it has no cycle across blocks
//! ([`Graph::cycles`]), no block imports one of a higher layer than its
//! own in the order of `tools/check/layers.toml` ([`Layers::problems`]),
//! and code outside a module's parent names the module (or anything in it)
//! only when the layer file lists it as open ([`Layers::closed_problems`]):
//! a block shows the rest of the crate its re-exports, not its children.

use anyhow::{bail, Context as _, Result};
use proc_macro2::{TokenStream, TokenTree};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use syn::visit::Visit;

/// The layer file, relative to the repository.
pub const LAYERS_FILE: &str = "tools/check/layers.toml";

/// The crate root's file name under `rust/`, and so the root block's name.
pub const ROOT_FILE: &str = "xehpg.rs";

/// Where an import was seen: repository-relative file and line.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Site {
    pub file: String,
    pub line: usize,
}

impl std::fmt::Display for Site {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

/// A crate path from the root, and where it is named.
type Named = (Vec<String>, Site);

/// A cycle of imports: each step's target block and where it is imported.
pub type Cycle = Vec<(String, Site)>;

/// Blocks and the imports between them.
#[derive(Debug, Default)]
pub struct Graph {
    /// Every block, the root included.
    pub blocks: BTreeSet<String>,
    /// `(from, to)` with `from != to`, and every place it was seen, in order.
    pub edges: BTreeMap<(String, String), Vec<Site>>,
    /// Per block, the graph of its child modules (`block::child`, each with
    /// its own children folded in) and the imports between siblings; a
    /// child's imports of its parent are not edges.
    pub children: BTreeMap<String, Graph>,
    /// Every module below a block (`gt::mcr`, `gt::mcr::regs`), from a file.
    pub modules: BTreeSet<String>,
    /// Per such module, where code outside its parent names it or a path
    /// through it (`crate::gt::mcr::X` in `guc`, `super::ct::channel::Y` in
    /// `guc::ads`), in order.
    pub reaches: BTreeMap<String, Vec<Site>>,
}

/// Reads the driver's sources: every `*.rs` under `rust_dir`, keyed by the
/// path relative to it (`gt.rs`, `gt/forcewake.rs`).
///
/// # Errors
///
/// A directory or file cannot be read.
pub fn read_sources(rust_dir: &Path) -> Result<BTreeMap<String, String>> {
    fn walk(dir: &Path, base: &Path, out: &mut BTreeMap<String, String>) -> Result<()> {
        let entries =
            std::fs::read_dir(dir).with_context(|| format!("listing {}", dir.display()))?;
        for entry in entries {
            let path = entry?.path();
            if path.is_dir() {
                walk(&path, base, out)?;
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(base).unwrap_or(&path);
                let text = std::fs::read_to_string(&path)
                    .with_context(|| format!("reading {}", path.display()))?;
                out.insert(rel.display().to_string(), text);
            }
        }
        Ok(())
    }
    let mut out = BTreeMap::new();
    walk(rust_dir, rust_dir, &mut out)?;
    Ok(out)
}

/// Builds the graph of the crate whose files are `sources` (keyed as
/// [`read_sources`] does); `prefix` is prepended to file names in sites.
///
/// # Errors
///
/// The crate root is missing, or a file does not parse.
pub fn graph(sources: &BTreeMap<String, String>, prefix: &str) -> Result<Graph> {
    let root_src = sources
        .get(ROOT_FILE)
        .with_context(|| format!("no crate root {prefix}{ROOT_FILE}"))?;
    let root_name = ROOT_FILE.trim_end_matches(".rs").to_owned();
    let root_ast = syn::parse_file(root_src).with_context(|| format!("{prefix}{ROOT_FILE}"))?;
    let mut blocks: BTreeSet<String> = root_ast
        .items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Mod(m) if m.content.is_none() && !is_test_only(&m.attrs) => {
                Some(m.ident.to_string())
            }
            _ => None,
        })
        .collect();
    let mut g = Graph::default();
    // Module paths reached, and each file's module with the crate paths it
    // names, resolved once every module is known.
    let mut modules: BTreeSet<Vec<String>> = BTreeSet::new();
    let mut named: Vec<(Vec<String>, Vec<Named>)> = Vec::new();
    // Only files the crate reaches count: from the root through non-test
    // `mod x;` declarations and `include!`s, as the compiler reads them.
    let mut queue = vec![(ROOT_FILE.to_owned(), Vec::<String>::new())];
    let mut seen = BTreeSet::new();
    while let Some((rel, module)) = queue.pop() {
        if !seen.insert(rel.clone()) {
            continue;
        }
        let src = sources.get(&rel).with_context(|| {
            format!("{prefix}{rel}: declared by a `mod` or `include!`, but missing")
        })?;
        let ast = syn::parse_file(src).with_context(|| format!("{prefix}{rel}"))?;
        queue.extend(children(&rel, &module, &ast.items, sources));
        modules.insert(module.clone());
        let block = module.first().cloned().unwrap_or_else(|| root_name.clone());
        let mut v = Visitor {
            blocks: &blocks,
            root: &root_name,
            module: module.clone(),
            from: &block,
            file: format!("{prefix}{rel}"),
            found: Vec::new(),
            paths: Vec::new(),
            aliases: BTreeMap::new(),
        };
        v.visit_file(&ast);
        for (to, site) in v.found {
            g.edges.entry((block.clone(), to)).or_default().push(site);
        }
        named.push((module, v.paths));
    }
    // Reaches into a module from outside its parent: a path whose prefix
    // `p[..k]` is a module while the naming module is not inside `p[..k-1]`.
    for (module, paths) in &named {
        for (path, site) in paths {
            for k in 2..=path.len() {
                let inner = &path[..k];
                if !modules.contains(inner) {
                    break;
                }
                if !module.starts_with(&inner[..k - 1]) {
                    g.reaches
                        .entry(inner.join("::"))
                        .or_default()
                        .push(site.clone());
                }
            }
        }
    }
    g.modules = modules
        .iter()
        .filter(|m| m.len() >= 2)
        .map(|m| m.join("::"))
        .collect();
    // Sibling imports: a file of `block::x` naming `block::y::..`, where
    // `block::y` is a module and `y != x`.
    for (module, paths) in named {
        let [block, from, ..] = module.as_slice() else {
            continue;
        };
        for (path, site) in paths {
            let [to_block, to, ..] = path.as_slice() else {
                continue;
            };
            if to_block != block || to == from {
                continue;
            }
            if !modules.contains(&vec![block.clone(), to.clone()]) {
                continue;
            }
            let sub = g.children.entry(block.clone()).or_default();
            let (from, to) = (format!("{block}::{from}"), format!("{block}::{to}"));
            sub.blocks.insert(from.clone());
            sub.blocks.insert(to.clone());
            sub.edges.entry((from, to)).or_default().push(site);
        }
    }
    for sub in g.children.values_mut() {
        for sites in sub.edges.values_mut() {
            sites.sort();
            sites.dedup();
        }
    }
    for sites in g.edges.values_mut().chain(g.reaches.values_mut()) {
        sites.sort();
        sites.dedup();
    }
    blocks.insert(root_name);
    g.blocks = blocks;
    Ok(g)
}

/// The files `items` (of file `rel`, module `module`) pull in, with their
/// module paths: `mod x;` is `x.rs` or `x/mod.rs` in the file's directory
/// for children (`gt.rs` and `gt/mod.rs` keep them in `gt/`), and
/// `include!("f")` is `f` beside the file, in the same module.
fn children(
    rel: &str,
    module: &[String],
    items: &[syn::Item],
    sources: &BTreeMap<String, String>,
) -> Vec<(String, Vec<String>)> {
    let here = rel.rsplit_once('/').map_or("", |(dir, _)| dir);
    let join = |dir: &str, name: &str| match dir {
        "" => name.to_owned(),
        dir => format!("{dir}/{name}"),
    };
    let child_dir = if rel == ROOT_FILE || rel.ends_with("/mod.rs") {
        here.to_owned()
    } else {
        rel.trim_end_matches(".rs").to_owned()
    };
    let mut out = Vec::new();
    for item in items {
        match item {
            syn::Item::Mod(m) if m.content.is_none() && !is_test_only(&m.attrs) => {
                let name = m.ident.to_string();
                let nested = join(&child_dir, &format!("{name}/mod.rs"));
                let file = if sources.contains_key(&nested) {
                    nested
                } else {
                    join(&child_dir, &format!("{name}.rs"))
                };
                let mut path = module.to_vec();
                path.push(name);
                out.push((file, path));
            }
            syn::Item::Macro(m) if m.mac.path.is_ident("include") => {
                if let Ok(lit) = m.mac.parse_body::<syn::LitStr>() {
                    out.push((join(here, &lit.value()), module.to_vec()));
                }
            }
            _ => {}
        }
    }
    out
}

/// `#[cfg(test)]` or `#[kunit_tests(..)]` (any path ending so).
fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        let kunit = a
            .path()
            .segments
            .last()
            .is_some_and(|s| s.ident == "kunit_tests");
        let cfg_test = a.path().is_ident("cfg")
            && matches!(&a.meta, syn::Meta::List(l) if l.tokens.to_string() == "test");
        kunit || cfg_test
    })
}

fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    use syn::Item;
    match item {
        Item::Const(i) => &i.attrs,
        Item::Enum(i) => &i.attrs,
        Item::Fn(i) => &i.attrs,
        Item::Impl(i) => &i.attrs,
        Item::Macro(i) => &i.attrs,
        Item::Mod(i) => &i.attrs,
        Item::Static(i) => &i.attrs,
        Item::Struct(i) => &i.attrs,
        Item::Trait(i) => &i.attrs,
        Item::Type(i) => &i.attrs,
        Item::Union(i) => &i.attrs,
        Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

/// Collects the blocks one file names.
struct Visitor<'a> {
    blocks: &'a BTreeSet<String>,
    root: &'a str,
    /// The module being visited, from the crate root.
    module: Vec<String>,
    from: &'a str,
    file: String,
    found: Vec<(String, Site)>,
    /// Every crate path named, absolute (from the crate root), with its site.
    paths: Vec<Named>,
    /// Names a `use` of a crate path bound in this file, with the path they
    /// stand for (`use crate::guc::{self, ct::channel as ch}` binds `guc` and
    /// `ch`), so that a later `ch::Channel` is read as the crate path it is.
    /// File-wide: a binding in one function is assumed not to be shadowed.
    aliases: BTreeMap<String, Vec<String>>,
}

impl Visitor<'_> {
    /// Records the block `segments` (a path as written here) lies in, if it
    /// is a crate path naming another block.
    fn record(&mut self, segments: &[String], line: usize) {
        let Some(abs) = self.absolute(segments) else {
            return;
        };
        let block = match abs.first() {
            Some(b) if self.blocks.contains(b) => b.clone(),
            _ => self.root.to_owned(),
        };
        self.paths.push((
            abs,
            Site {
                file: self.file.clone(),
                line,
            },
        ));
        if block != self.from {
            let site = Site {
                file: self.file.clone(),
                line,
            };
            self.found.push((block, site));
        }
    }

    /// `segments` (a path as written here) from the crate root: a `crate`,
    /// `self` or `super` path, or one that starts with a name a `use` bound
    /// to a crate path.
    fn absolute(&self, segments: &[String]) -> Option<Vec<String>> {
        absolute(&self.module, segments, self.blocks).or_else(|| {
            let (first, rest) = segments.split_first()?;
            if rest.is_empty() {
                return None;
            }
            let base = self.aliases.get(first)?;
            Some(base.iter().chain(rest).cloned().collect())
        })
    }

    /// Binds `name` to what the crate path `path` (as written) stands for.
    fn bind(&mut self, name: String, path: &[String]) {
        if name != "_" {
            if let Some(abs) = self.absolute(path) {
                self.aliases.insert(name, abs);
            }
        }
    }

    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        use syn::UseTree;
        match tree {
            UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            UseTree::Name(n) => {
                self.use_leaf(prefix, n.ident.to_string(), n.ident.span());
                let leaf = n.ident.to_string();
                if leaf == "self" {
                    if let Some(name) = prefix.last() {
                        self.bind(name.clone(), prefix);
                    }
                } else {
                    let path: Vec<String> = prefix.iter().cloned().chain([leaf.clone()]).collect();
                    self.bind(leaf, &path);
                }
            }
            UseTree::Rename(r) => {
                self.use_leaf(prefix, r.ident.to_string(), r.ident.span());
                let path: Vec<String> = if r.ident == "self" {
                    prefix.clone()
                } else {
                    prefix
                        .iter()
                        .cloned()
                        .chain([r.ident.to_string()])
                        .collect()
                };
                self.bind(r.rename.to_string(), &path);
            }
            UseTree::Glob(g) => self.use_leaf(prefix, "*".to_owned(), g.star_token.span),
            UseTree::Group(g) => {
                for tree in &g.items {
                    self.use_tree(prefix, tree);
                }
            }
        }
    }

    fn use_leaf(&mut self, prefix: &[String], leaf: String, span: proc_macro2::Span) {
        let mut path = prefix.to_vec();
        path.push(leaf);
        self.record(&path, span.start().line);
    }

    /// `crate :: a :: b`, `super :: x`, `self :: y` runs in macro tokens.
    fn tokens(&mut self, tokens: TokenStream) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < trees.len() {
            match &trees[i] {
                TokenTree::Group(g) => self.tokens(g.stream()),
                TokenTree::Ident(id)
                    if ["crate", "super", "self"].contains(&id.to_string().as_str()) =>
                {
                    let mut path = vec![id.to_string()];
                    let mut j = i + 1;
                    while let (
                        Some(TokenTree::Punct(a)),
                        Some(TokenTree::Punct(b)),
                        Some(TokenTree::Ident(next)),
                    ) = (trees.get(j), trees.get(j + 1), trees.get(j + 2))
                    {
                        if a.as_char() != ':' || b.as_char() != ':' {
                            break;
                        }
                        path.push(next.to_string());
                        j += 3;
                    }
                    if path.len() > 1 {
                        self.record(&path, id.span().start().line);
                    }
                    i = j - 1;
                }
                _ => {}
            }
            i += 1;
        }
    }
}

impl<'ast> Visit<'ast> for Visitor<'_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        if is_test_only(item_attrs(item)) {
            return;
        }
        syn::visit::visit_item(self, item);
    }

    fn visit_impl_item(&mut self, item: &'ast syn::ImplItem) {
        let attrs = match item {
            syn::ImplItem::Const(i) => &i.attrs,
            syn::ImplItem::Fn(i) => &i.attrs,
            syn::ImplItem::Type(i) => &i.attrs,
            _ => return syn::visit::visit_impl_item(self, item),
        };
        if !is_test_only(attrs) {
            syn::visit::visit_impl_item(self, item);
        }
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        // Only an inline module changes what `super` means; a `mod x;`
        // declaration's file is visited on its own.
        if m.content.is_some() {
            self.module.push(m.ident.to_string());
            syn::visit::visit_item_mod(self, m);
            self.module.pop();
        }
    }

    /// `pub(crate)`, `pub(super)`, `pub(in crate::x)` restrict who sees an
    /// item; they import nothing.
    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        self.use_tree(&mut Vec::new(), &u.tree);
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        if let Some(first) = path.segments.first() {
            self.record(&segments, first.ident.span().start().line);
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.visit_path(&mac.path);
        self.tokens(mac.tokens.clone());
    }
}

/// A path written in `module` from the crate root, or `None` if it is not a
/// path into this crate (an extern crate, the prelude, a local name).
fn absolute(
    module: &[String],
    segments: &[String],
    blocks: &BTreeSet<String>,
) -> Option<Vec<String>> {
    let first = segments.first()?;
    let absolute: Vec<String> = match first.as_str() {
        "crate" => segments[1..].to_vec(),
        "self" => module.iter().chain(&segments[1..]).cloned().collect(),
        "super" => {
            let ups = segments.iter().take_while(|s| *s == "super").count();
            let base = module.get(..module.len().checked_sub(ups)?)?;
            base.iter().chain(&segments[ups..]).cloned().collect()
        }
        // In the crate root, a block is named by its bare module name.
        name if module.is_empty() && blocks.contains(name) => segments.to_vec(),
        _ => return None,
    };
    Some(absolute)
}

impl Graph {
    /// Every set of sibling modules inside one block that import each other
    /// in a circle, as [`Graph::cycles`] gives them for blocks.
    pub fn sibling_cycles(&self) -> Vec<(BTreeSet<String>, Cycle)> {
        self.children.values().flat_map(Graph::cycles).collect()
    }

    /// Every set of blocks that import each other in a circle (the strongly
    /// connected components of more than one block), each with one concrete
    /// cycle `a -> b -> .. -> a` through its first block and the site of
    /// each step.
    pub fn cycles(&self) -> Vec<(BTreeSet<String>, Cycle)> {
        let mut out = Vec::new();
        for component in self.components() {
            if component.len() < 2 {
                continue;
            }
            if let Some(cycle) = self.cycle_through(&component) {
                out.push((component, cycle));
            }
        }
        out
    }

    fn successors<'a>(&'a self, from: &'a str) -> impl Iterator<Item = &'a String> + 'a {
        self.edges
            .keys()
            .filter(move |(f, _)| f == from)
            .map(|(_, t)| t)
    }

    /// Strongly connected components (Tarjan), each sorted.
    fn components(&self) -> Vec<BTreeSet<String>> {
        struct State<'g> {
            g: &'g Graph,
            index: BTreeMap<&'g str, usize>,
            low: BTreeMap<&'g str, usize>,
            stack: Vec<&'g str>,
            on_stack: BTreeSet<&'g str>,
            out: Vec<BTreeSet<String>>,
        }
        fn connect<'g>(s: &mut State<'g>, v: &'g str) {
            let n = s.index.len();
            s.index.insert(v, n);
            s.low.insert(v, n);
            s.stack.push(v);
            s.on_stack.insert(v);
            let g = s.g;
            for w in g.successors(v) {
                if !s.index.contains_key(w.as_str()) {
                    connect(s, w);
                    let low = s.low[v].min(s.low[w.as_str()]);
                    s.low.insert(v, low);
                } else if s.on_stack.contains(w.as_str()) {
                    let low = s.low[v].min(s.index[w.as_str()]);
                    s.low.insert(v, low);
                }
            }
            if s.low[v] == s.index[v] {
                let mut component = BTreeSet::new();
                while let Some(w) = s.stack.pop() {
                    s.on_stack.remove(w);
                    component.insert(w.to_owned());
                    if w == v {
                        break;
                    }
                }
                s.out.push(component);
            }
        }
        let mut s = State {
            g: self,
            index: BTreeMap::new(),
            low: BTreeMap::new(),
            stack: Vec::new(),
            on_stack: BTreeSet::new(),
            out: Vec::new(),
        };
        for b in &self.blocks {
            if !s.index.contains_key(b.as_str()) {
                connect(&mut s, b);
            }
        }
        s.out
    }

    /// A shortest cycle from the component's first block back to itself,
    /// staying inside the component (breadth-first search).
    fn cycle_through(&self, component: &BTreeSet<String>) -> Option<Cycle> {
        let start = component.first()?;
        let mut parent: BTreeMap<&str, &str> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([start.as_str()]);
        while let Some(v) = queue.pop_front() {
            for w in self.successors(v).filter(|w| component.contains(*w)) {
                if w == start {
                    let mut path = vec![(start.clone(), self.site(v, start))];
                    let mut cur = v;
                    while cur != start {
                        let p = parent[cur];
                        path.push((cur.to_owned(), self.site(p, cur)));
                        cur = p;
                    }
                    path.reverse();
                    return Some(path);
                }
                if !parent.contains_key(w.as_str()) {
                    parent.insert(w, v);
                    queue.push_back(w);
                }
            }
        }
        None
    }

    /// The first site of the edge `from -> to`.
    fn site(&self, from: &str, to: &str) -> Site {
        self.edges[&(from.to_owned(), to.to_owned())][0].clone()
    }
}

/// Renders a cycle as `a -> b (file:line) -> a (file:line)`.
fn render_cycle(cycle: &[(String, Site)]) -> String {
    let Some((last, _)) = cycle.last() else {
        return String::new();
    };
    let mut out = last.clone();
    for (to, site) in cycle {
        out.push_str(&format!(" -> {to} ({site})"));
    }
    out
}

/// One line for a component: its blocks, then one cycle through them.
pub fn render_component(blocks: &BTreeSet<String>, cycle: &[(String, Site)]) -> String {
    let names: Vec<&str> = blocks.iter().map(String::as_str).collect();
    format!(
        "{} blocks import each other ({}); e.g. {}",
        names.len(),
        names.join(", "),
        render_cycle(cycle)
    )
}

/// `tools/check/layers.toml`: the blocks in layers, lowest first.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Layers {
    pub layers: Vec<Vec<String>>,
    /// The modules below a block that code outside their parent may name
    /// (`engine::regs`); every other child is reached through its parent's
    /// re-exports.
    #[serde(default)]
    pub open: Vec<String>,
}

impl Layers {
    /// Parses the layer file.
    ///
    /// # Errors
    ///
    /// Bad TOML, or a block listed twice.
    pub fn parse(text: &str) -> Result<Self> {
        let layers: Self = toml::from_str(text)?;
        let mut seen = BTreeSet::new();
        for name in layers.layers.iter().flatten() {
            if !seen.insert(name) {
                bail!("block `{name}` is listed twice");
            }
        }
        let mut open = BTreeSet::new();
        for name in &layers.open {
            if !open.insert(name) {
                bail!("open module `{name}` is listed twice");
            }
        }
        Ok(layers)
    }

    fn layer_of(&self, block: &str) -> Option<usize> {
        self.layers
            .iter()
            .position(|l| l.iter().any(|b| b == block))
    }

    /// What breaks the order: blocks in no layer, listed names that are no
    /// block, and imports of a higher layer (each with its first site).
    pub fn problems(&self, g: &Graph) -> Vec<String> {
        let mut out = Vec::new();
        for block in &g.blocks {
            if self.layer_of(block).is_none() {
                out.push(format!("block `{block}` is in no layer of {LAYERS_FILE}"));
            }
        }
        for name in self.layers.iter().flatten() {
            if !g.blocks.contains(name) {
                out.push(format!(
                    "{LAYERS_FILE} lists `{name}`, which is no block of the driver"
                ));
            }
        }
        for ((from, to), sites) in &g.edges {
            let (Some(lf), Some(lt)) = (self.layer_of(from), self.layer_of(to)) else {
                continue;
            };
            if lt > lf {
                let more = match sites.len() {
                    1 => String::new(),
                    n => format!(" and {} more", n - 1),
                };
                out.push(format!(
                    "`{from}` (layer {}) imports `{to}` (layer {}, higher): {}{more}",
                    lf + 1,
                    lt + 1,
                    sites[0]
                ));
            }
        }
        out
    }

    /// What breaks the modules' privacy: code outside a module's parent
    /// naming a module that is not open (with the first site), an open name
    /// that is no module, and an open module nothing outside its parent
    /// names (it can be private).
    pub fn closed_problems(&self, g: &Graph) -> Vec<String> {
        let mut out = Vec::new();
        for (module, sites) in &g.reaches {
            if self.open.contains(module) {
                continue;
            }
            let parent = module.rsplit_once("::").map_or("", |(p, _)| p);
            let more = match sites.len() {
                1 => String::new(),
                n => format!(" and {} more", n - 1),
            };
            out.push(format!(
                "`{module}` is named from outside `{parent}`, which should re-export \
                 what it needs (or list it as open in {LAYERS_FILE}): {}{more}",
                sites[0]
            ));
        }
        for name in &self.open {
            if !g.modules.contains(name) {
                out.push(format!(
                    "{LAYERS_FILE} opens `{name}`, which is no child module of a block"
                ));
            } else if !g.reaches.contains_key(name) {
                out.push(format!(
                    "{LAYERS_FILE} opens `{name}`, which nothing outside its parent \
                     names: make it private"
                ));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn krate(files: &[(&str, &str)]) -> Graph {
        let sources = files
            .iter()
            .map(|(p, s)| (p.to_string(), s.to_string()))
            .collect();
        graph(&sources, "rust/").unwrap()
    }

    fn edges(g: &Graph) -> Vec<(&str, &str)> {
        g.edges
            .keys()
            .map(|(f, t)| (f.as_str(), t.as_str()))
            .collect()
    }

    const ROOT: &str = "mod mmio; mod gt; mod guc;\nuse kernel::prelude::*;\n";

    #[test]
    fn use_paths_code_paths_and_macros_make_edges() {
        let g = krate(&[
            ("xehpg.rs", ROOT),
            ("mmio.rs", "pub struct Mmio;\n"),
            (
                "gt.rs",
                "mod forcewake;\nuse crate::{mmio::{self, Mmio as M}, info as _};\n",
            ),
            (
                "gt/forcewake.rs",
                "fn f() -> super::super::mmio::Mmio { todo!() }\n",
            ),
            (
                "guc.rs",
                "fn f() {\n    let x = crate::gt::Gt::new();\n    kernel::pr_info!(\"{}\", crate::MODULE_NAME);\n}\n",
            ),
        ]);
        assert_eq!(
            edges(&g),
            [
                ("gt", "mmio"),
                ("gt", "xehpg"),
                ("guc", "gt"),
                ("guc", "xehpg")
            ]
        );
        // `info` is no block, so `crate::info` is an item of the root.
        assert_eq!(g.edges[&("gt".into(), "xehpg".into())][0].line, 2);
        assert_eq!(
            g.edges[&("guc".into(), "gt".into())][0],
            Site {
                file: "rust/guc.rs".into(),
                line: 2
            }
        );
        assert!(g.blocks.contains("xehpg") && g.blocks.len() == 4);
    }

    #[test]
    fn super_in_a_top_level_file_is_the_root() {
        let g = krate(&[
            ("xehpg.rs", "mod a; mod b;\nfn probe() { a::go(); }\n"),
            ("a.rs", "use super::b::B;\npub fn go() {}\n"),
            ("b/mod.rs", "mod c;\n"),
            ("b/c.rs", "use super::C; use self::d::D; use crate::b::E;\n"),
        ]);
        // b's own `super`/`self`/`crate::b` paths stay inside b.
        assert_eq!(edges(&g), [("a", "b"), ("xehpg", "a")]);
    }

    #[test]
    fn test_code_is_left_out() {
        let g = krate(&[
            ("xehpg.rs", "mod a; mod b;\n"),
            (
                "a.rs",
                "#[cfg(test)]\nmod tests { use crate::b::X; }\n\
                 #[kernel::prelude::kunit_tests(a)]\nmod kunit { use super::super::b::*; }\n\
                 struct S;\nimpl S {\n    #[cfg(test)]\n    fn t() { crate::b::x(); }\n}\n\
                 #[cfg(CONFIG_X)]\nfn g() { crate::b::y(); }\n",
            ),
            ("b.rs", ""),
        ]);
        // Only the `cfg(CONFIG_X)` function counts: it is not a test.
        assert_eq!(edges(&g), [("a", "b")]);
        assert_eq!(g.edges[&("a".into(), "b".into())][0].line, 11);
    }

    #[test]
    fn only_files_the_crate_reaches_count() {
        let g = krate(&[
            ("xehpg.rs", "mod a; mod b;\n"),
            (
                "a.rs",
                "include!(\"a/gen.rs\");\n#[cfg(test)]\nmod tests;\n",
            ),
            ("a/gen.rs", "use crate::b::B;\n"),
            ("a/tests.rs", "use crate::xehpg::X;\n"),
            ("b.rs", ""),
            ("stale.rs", "use crate::a::A;\n"),
        ]);
        assert_eq!(edges(&g), [("a", "b")]);
        assert_eq!(g.edges[&("a".into(), "b".into())][0].file, "rust/a/gen.rs");
        let missing = [("xehpg.rs", "mod a;")]
            .iter()
            .map(|(p, s)| (p.to_string(), s.to_string()))
            .collect();
        let err = graph(&missing, "rust/").unwrap_err();
        assert!(
            format!("{err:#}").contains("rust/a.rs: declared"),
            "{err:#}"
        );
    }

    #[test]
    fn inline_modules_shift_super() {
        let g = krate(&[
            ("xehpg.rs", "mod a; mod b;\n"),
            (
                "a.rs",
                "mod inner { use super::super::b::B; use super::A; }\n",
            ),
            ("b.rs", ""),
        ]);
        assert_eq!(edges(&g), [("a", "b")]);
    }

    #[test]
    fn an_unparsable_file_is_an_error() {
        let sources = [("xehpg.rs", "mod a;"), ("a.rs", "fn (")]
            .iter()
            .map(|(p, s)| (p.to_string(), s.to_string()))
            .collect();
        let err = graph(&sources, "rust/").unwrap_err();
        assert!(format!("{err:#}").contains("rust/a.rs"), "{err:#}");
    }

    #[test]
    fn siblings_importing_each_other_are_a_cycle() {
        let g = krate(&[
            ("xehpg.rs", "mod s; mod t;\n"),
            ("s.rs", "mod a; mod b; mod c;\nuse a::A;\n"),
            // A child naming its parent or a lower child is no cycle.
            ("s/a.rs", "use super::{b::B, S};\n"),
            ("s/b.rs", "\nuse super::a::A;\n"),
            ("s/c.rs", "use super::a::A; use crate::t::T;\n"),
            ("t.rs", ""),
        ]);
        assert!(g.cycles().is_empty());
        let cycles = g.sibling_cycles();
        assert_eq!(cycles.len(), 1);
        let (mods, cycle) = &cycles[0];
        assert_eq!(
            render_component(mods, cycle),
            "2 blocks import each other (s::a, s::b); \
             e.g. s::a -> s::b (rust/s/a.rs:1) -> s::a (rust/s/b.rs:2)"
        );
    }

    #[test]
    fn siblings_in_one_direction_are_fine() {
        let g = krate(&[
            ("xehpg.rs", "mod s;\n"),
            ("s.rs", "mod a; mod b;\n"),
            ("s/a.rs", "use super::b::B; use crate::s::S;\n"),
            ("s/b.rs", "use super::S;\n"),
        ]);
        assert!(g.sibling_cycles().is_empty());
        assert_eq!(g.children["s"].edges.len(), 1);
    }

    #[test]
    fn acyclic_graph_has_no_cycles() {
        let g = krate(&[
            ("xehpg.rs", "mod a; mod b; mod c;\nuse a::A; use b::B;\n"),
            ("a.rs", ""),
            ("b.rs", "use crate::a::A;\n"),
            ("c.rs", "use crate::b::B; use crate::a::A;\n"),
        ]);
        assert!(g.cycles().is_empty());
    }

    #[test]
    fn a_cycle_is_reported_step_by_step() {
        let g = krate(&[
            ("xehpg.rs", "mod a; mod b; mod c; mod d;\n"),
            ("a.rs", "use crate::b::B;\n"),
            ("b.rs", "\nuse crate::c::C;\n"),
            ("c.rs", "\n\nuse crate::a::A;\n"),
            ("d.rs", "use crate::a::A;\n"),
        ]);
        let cycles = g.cycles();
        assert_eq!(cycles.len(), 1);
        let (blocks, cycle) = &cycles[0];
        assert_eq!(
            render_component(blocks, cycle),
            "3 blocks import each other (a, b, c); \
             e.g. a -> b (rust/a.rs:1) -> c (rust/b.rs:2) -> a (rust/c.rs:3)"
        );
    }

    #[test]
    fn the_root_closes_cycles_too() {
        // The hub: a lower block names an item of the root, which
        // declares (and so imports) it.
        let g = krate(&[
            (
                "xehpg.rs",
                "mod a;\nfn f() { a::go(); }\npub const N: u32 = 1;\n",
            ),
            ("a.rs", "pub(crate) fn go() -> u32 { crate::N }\n"),
        ]);
        let cycles = g.cycles();
        assert_eq!(cycles.len(), 1);
        assert_eq!(
            render_cycle(&cycles[0].1),
            "a -> xehpg (rust/a.rs:1) -> a (rust/xehpg.rs:2)"
        );
    }

    const LAYERS: &str = "layers = [[\"mmio\"], [\"regs\", \"info\"], [\"gt\"], [\"xehpg\"]]\n";

    #[test]
    fn downward_and_sideways_imports_follow_the_order() {
        let g = krate(&[
            (
                "xehpg.rs",
                "mod mmio; mod regs; mod info; mod gt;\nuse gt::Gt;\n",
            ),
            ("mmio.rs", ""),
            ("regs.rs", "use crate::info::X;\n"),
            ("info.rs", "use crate::mmio::M;\n"),
            ("gt.rs", "use crate::{mmio::M, regs::R};\n"),
        ]);
        let layers = Layers::parse(LAYERS).unwrap();
        assert_eq!(layers.problems(&g), Vec::<String>::new());
    }

    #[test]
    fn upward_imports_and_unlisted_blocks_are_named() {
        let g = krate(&[
            ("xehpg.rs", "mod mmio; mod regs; mod gt; mod ggtt;\n"),
            (
                "mmio.rs",
                "use crate::gt::Gt;\nfn f() { crate::gt::g(); }\n",
            ),
            ("regs.rs", ""),
            ("gt.rs", ""),
            ("ggtt.rs", ""),
        ]);
        let layers = Layers::parse(LAYERS).unwrap();
        assert_eq!(
            layers.problems(&g),
            [
                "block `ggtt` is in no layer of tools/check/layers.toml",
                "tools/check/layers.toml lists `info`, which is no block of the driver",
                "`mmio` (layer 1) imports `gt` (layer 3, higher): rust/mmio.rs:1 and 1 more",
            ]
        );
    }

    #[test]
    fn only_open_modules_are_named_from_outside_their_parent() {
        let g = krate(&[
            ("xehpg.rs", "mod a; mod b;\n"),
            // The parent and its children may name each other freely.
            (
                "a.rs",
                "mod c; pub(crate) mod o;\npub(crate) use c::C;\nuse self::o::O;\n",
            ),
            (
                "a/c.rs",
                "mod d;\nuse super::{o::O, A};\nuse crate::a::c::d::D;\n",
            ),
            (
                "a/c/d.rs",
                "use crate::a::o::O;\nfn f() { super::C::new(); }\n",
            ),
            ("a/o.rs", ""),
            (
                "b.rs",
                "use crate::a::{o::O, C};\n\
                 fn f() { crate::a::c::d::D::new(); }\n\
                 fn g() { kernel::pr_info!(\"{}\", crate::a::c::X); }\n\
                 use crate::a as top;\nfn h() { top::c::Z::new(); }\n",
            ),
        ]);
        assert_eq!(
            g.modules.iter().map(String::as_str).collect::<Vec<_>>(),
            ["a::c", "a::c::d", "a::o"]
        );
        let open =
            Layers::parse("layers = [[\"a\", \"b\", \"xehpg\"]]\nopen = [\"a::o\"]\n").unwrap();
        // `a::c` from `b` three times (in a macro, through a `use` alias),
        // `a::c::d` from `b` (outside `a::c`), while `a::c` naming its own
        // child `d` is fine.
        assert_eq!(
            open.closed_problems(&g),
            [
                "`a::c` is named from outside `a`, which should re-export what it needs \
                 (or list it as open in tools/check/layers.toml): rust/b.rs:2 and 2 more",
                "`a::c::d` is named from outside `a::c`, which should re-export what it needs \
                 (or list it as open in tools/check/layers.toml): rust/b.rs:2",
            ]
        );
        let wrong = Layers::parse(
            "layers = [[\"a\", \"b\", \"xehpg\"]]\n\
             open = [\"a::o\", \"a::c\", \"a::c::d\", \"a::x\", \"b\"]\n",
        )
        .unwrap();
        assert_eq!(
            wrong.closed_problems(&g),
            [
                "tools/check/layers.toml opens `a::x`, which is no child module of a block",
                "tools/check/layers.toml opens `b`, which is no child module of a block",
            ]
        );
        let unused = Layers::parse(
            "layers = [[\"a\", \"b\", \"xehpg\"]]\nopen = [\"a::o\", \"a::c\", \"a::c::d\"]\n",
        )
        .unwrap();
        assert!(unused.closed_problems(&g).is_empty());
        let g = krate(&[
            ("xehpg.rs", "mod a;\n"),
            ("a.rs", "mod o;\nuse o::O;\n"),
            ("a/o.rs", ""),
        ]);
        assert_eq!(
            open.closed_problems(&g),
            [
                "tools/check/layers.toml opens `a::o`, which nothing outside its parent \
              names: make it private"
            ]
        );
    }

    #[test]
    fn the_layer_file_is_strict() {
        assert!(Layers::parse("layers = [[\"a\"], [\"a\"]]").is_err());
        assert!(Layers::parse("layers = [[\"a\"]]\nopen = [\"a::b\", \"a::b\"]").is_err());
        assert!(Layers::parse("layer = [[\"a\"]]").is_err());
        assert!(Layers::parse("layers = \"a\"").is_err());
    }
}
