//! Suite `wa-table`: the driver's workaround table (`rust/engine/wa/table.rs`)
//! against upstream xe's sources in the kernel tree.
//!
//! Upstream's entries are read from `drivers/gpu/drm/xe`: the `XE_RTP`
//! tables of `xe_wa.c` (`gt_was`, `engine_was`, `lrc_was`), `xe_tuning.c`
//! (`gt_tunings`, `engine_tunings`, `lrc_tunings`) and the
//! "RING_CMD_CCTL_default_MOCS" entry of `xe_hw_engine.c`; the rules of
//! `xe_wa_oob.rules` and `xe_device_wa_oob.rules`; `dg2_mocs_desc` and the
//! DG2 case of `xe_mocs.c`; `xelp_pat_table` of `xe_pat.c`. Registers and
//! bits are evaluated from `regs/*.h` and the sources' own `#define`s
//! ([`cexpr`]).
//!
//! Each entry's rules are evaluated for DG2 and ATS-M (platform DG2,
//! subplatforms G10/G11/G12, graphics and media version 12.55, discrete):
//! `GRAPHICS_VERSION(_RANGE)`, `MEDIA_VERSION(_RANGE)`, `PLATFORM`,
//! `SUBPLATFORM`, `GRAPHICS_`/`MEDIA_VERSION_ANY_GT` (one GT: the same),
//! `IS_INTEGRATED`/`IS_DISCRETE`, `ENGINE_CLASS`, `OR`, and
//! the `FUNC`s that pick engines (`xe_rtp_match_first_render_or_compute`,
//! `xe_rtp_match_even_instance`, `xe_rtp_match_always`). Steppings
//! (`GRAPHICS_STEP`, `MEDIA_STEP`, `PLATFORM_STEP`) and any other `FUNC`
//! cannot be evaluated here and count as matching: the stricter reading,
//! which puts the entry in front of a reviewer rather than dropping it.
//!
//! Cases: upstream parses; every upstream entry that matches is in the
//! table with the same register (name, offset, MCR, masked), action
//! (bits changed and their value), dies, engine scope and read-back
//! check; every table row is such an entry (none upstream has dropped);
//! the MOCS and PAT rows equal the tables upstream programs on DG2.

mod cexpr;

use super::Context;
use crate::report::{Case, Reporter};
use anyhow::{anyhow, bail, Context as _, Result};
use cexpr::{split_top, strip_comments, Defines};
use std::collections::BTreeMap;
use std::path::Path;

/// The driver's table, relative to the repository.
pub const TABLE_FILE: &str = "rust/engine/wa/table.rs";

/// Upstream xe, relative to the kernel tree.
const XE: &str = "drivers/gpu/drm/xe";

/// DG2's graphics and media IP version (`xe_pci.c` `graphics_xehpg`,
/// `media_xehpm`), times 100.
const DG2_VERSION: u32 = 1255;

/// Die bits, as the driver's `G10`, `G11`, `G12`.
const G10: u8 = 1;
const G11: u8 = 2;
const G12: u8 = 4;
const ALL: u8 = G10 | G11 | G12;

/// One row: an entry's action on one register, as both sides describe it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Row {
    /// Source table (the driver's `Src` variant name).
    pub src: String,
    /// `XE_RTP_NAME`, or the register for MOCS and PAT rows.
    pub name: String,
    /// Register name; empty for out-of-band rows.
    pub reg: String,
    /// Dies it applies to.
    pub sub: u8,
    /// Engine scope (the driver's `Scope` expression).
    pub scope: String,
    pub offset: u32,
    pub mcr: bool,
    pub masked: bool,
    pub clear: u32,
    pub set: u32,
    pub check: bool,
}

impl std::fmt::Display for Row {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {:?} {} @{:#x} mcr={} masked={} clear={:#x} set={:#x} check={} sub={:#x} {}",
            self.src,
            self.name,
            self.reg,
            self.offset,
            self.mcr,
            self.masked,
            self.clear,
            self.set,
            self.check,
            self.sub,
            self.scope
        )
    }
}

/// Runs the suite.
pub fn run(ctx: &Context, r: &mut Reporter) {
    let ours = match std::fs::read_to_string(ctx.repo.join(TABLE_FILE))
        .map_err(anyhow::Error::from)
        .and_then(|t| parse_table(&t))
    {
        Ok(rows) => rows,
        Err(e) => return r.case(Case::fail(format!("{TABLE_FILE} parses"), format!("{e:#}"))),
    };
    r.case(Case::pass(format!("{TABLE_FILE} parses")));
    let upstream = match upstream_rows(&ctx.kdir) {
        Ok(rows) => rows,
        Err(e) => {
            return r.case(Case::fail(
                "upstream xe's tables parse",
                format!("{} ({}): {e:#}", ctx.kdir.display(), XE),
            ))
        }
    };
    r.case(Case::pass("upstream xe's tables parse"));
    let ours: Vec<Row> = ours.into_iter().map(oob_key).collect();
    let (missing, extra) = compare(&upstream, &ours);
    let case = |name: &str, rows: &[Row]| {
        if rows.is_empty() {
            Case::pass(name)
        } else {
            Case::fail(name, format!("{} rows", rows.len()))
                .with_details(rows.iter().map(|r| r.to_string()))
        }
    };
    r.case(case(
        "every upstream entry that matches DG2/ATS-M is in the table, the same",
        &missing,
    ));
    r.case(case(
        "every table row is an upstream entry that matches DG2/ATS-M",
        &extra,
    ));
}

/// An out-of-band row as upstream's rules describe it: name and dies only
/// (its register, if xehpg applies it, is in code upstream, not in a table).
fn oob_key(r: Row) -> Row {
    if r.src == "Oob" || r.src == "DeviceOob" {
        Row {
            reg: String::new(),
            scope: "Scope::Gt".into(),
            offset: 0,
            mcr: false,
            masked: false,
            clear: 0,
            set: 0,
            check: false,
            ..r
        }
    } else {
        r
    }
}

/// Rows upstream has that the table lacks (or has differently), and rows
/// the table has that upstream lacks.
pub fn compare(upstream: &[Row], ours: &[Row]) -> (Vec<Row>, Vec<Row>) {
    let mut left: Vec<Row> = ours.to_vec();
    let mut missing = Vec::new();
    for u in upstream {
        match left.iter().position(|o| o == u) {
            Some(i) => {
                left.remove(i);
            }
            None => missing.push(u.clone()),
        }
    }
    (missing, left)
}

/// Parses the driver's table: each `Entry { field: value, ... }`.
///
/// # Errors
///
/// A row without a field, or a value that does not parse.
pub fn parse_table(text: &str) -> Result<Vec<Row>> {
    let text = strip_comments(text);
    let mut rows = Vec::new();
    let mut rest = text.as_str();
    while let Some(start) = rest.find("Entry {") {
        let body_start = start + "Entry {".len();
        let body_len = rest[body_start..]
            .find("\n    }")
            .ok_or_else(|| anyhow!("unterminated Entry"))?;
        let body = &rest[body_start..body_start + body_len];
        rest = &rest[body_start + body_len..];
        let mut fields = BTreeMap::new();
        for f in split_top(body, ',') {
            let Some((k, v)) = f.split_once(':') else {
                continue;
            };
            fields.insert(k.trim().to_string(), v.trim().to_string());
        }
        let get = |k: &str| {
            fields
                .get(k)
                .cloned()
                .ok_or_else(|| anyhow!("row without {k}: {body}"))
        };
        let unquote = |s: String| s.trim_matches('"').to_string();
        let boolean = |k: &str| -> Result<bool> {
            match get(k)?.as_str() {
                "true" => Ok(true),
                "false" => Ok(false),
                v => bail!("{k}: {v}"),
            }
        };
        let verdict = get("verdict")?;
        // Only the verdict's presence matters here: the rows are compared as data.
        if !verdict.starts_with("Verdict::") {
            bail!("verdict {verdict}");
        }
        rows.push(Row {
            src: get("src")?.trim_start_matches("Src::").to_string(),
            name: unquote(get("name")?),
            reg: unquote(get("reg")?),
            sub: parse_sub(&get("sub")?)?,
            scope: get("scope")?,
            offset: rust_int(&get("offset")?)?,
            mcr: boolean("mcr")?,
            masked: boolean("masked")?,
            clear: rust_int(&get("clear")?)?,
            set: rust_int(&get("set")?)?,
            check: boolean("check")?,
        });
    }
    Ok(rows)
}

/// `ALL`, `G10 | G12`, ...
fn parse_sub(s: &str) -> Result<u8> {
    s.split('|').try_fold(0, |m, p| {
        Ok(m | match p.trim() {
            "ALL" => ALL,
            "G10" => G10,
            "G11" => G11,
            "G12" => G12,
            o => bail!("die {o}"),
        })
    })
}

/// A Rust integer literal, or `a << b`.
fn rust_int(s: &str) -> Result<u32> {
    let lit = |s: &str| -> Result<u32> {
        let s = s.trim().replace('_', "");
        Ok(match s.strip_prefix("0x") {
            Some(h) => u32::from_str_radix(h, 16)?,
            None => s.parse()?,
        })
    };
    match s.split_once("<<") {
        Some((a, b)) => Ok(lit(a)? << lit(b)?),
        None => lit(s),
    }
}

/// Where an entry applies, from its rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Match {
    pub sub: u8,
    pub scope: String,
}

/// Evaluates `XE_RTP_RULES` arguments (or an `.rules` line) for DG2/ATS-M;
/// `None` if no alternative matches.
pub fn eval_rules(rules: &[String]) -> Option<Match> {
    let mut result: Option<Match> = None;
    for alt in rules.split(|r| r == "OR") {
        let mut sub = ALL;
        let mut class: Option<String> = None;
        let mut first_rc = false;
        let mut even = false;
        let mut ok = true;
        for rule in alt {
            let (name, args) = match rule.find('(') {
                Some(i) => (rule[..i].trim(), {
                    let inner = rule[i + 1..].trim_end();
                    split_top(inner.strip_suffix(')').unwrap_or(inner), ',')
                }),
                None => (rule.trim(), Vec::new()),
            };
            let ver = |a: &[String]| -> (u32, u32) {
                let num = |s: Option<&String>| {
                    s.and_then(|s| s.trim().parse::<u32>().ok())
                        .unwrap_or(u32::MAX)
                };
                (num(a.first()), num(a.get(1)))
            };
            match name {
                "GRAPHICS_VERSION"
                | "MEDIA_VERSION"
                | "GRAPHICS_VERSION_ANY_GT"
                | "MEDIA_VERSION_ANY_GT" => ok &= ver(&args).0 == DG2_VERSION,
                "GRAPHICS_VERSION_RANGE" | "MEDIA_VERSION_RANGE" => {
                    let (lo, hi) = ver(&args);
                    ok &= lo <= DG2_VERSION && DG2_VERSION <= hi;
                }
                "PLATFORM" => ok &= args.first().map(String::as_str) == Some("DG2"),
                "SUBPLATFORM" => {
                    ok &= args.first().map(String::as_str) == Some("DG2");
                    sub &= match args.get(1).map(String::as_str) {
                        Some("G10") => G10,
                        Some("G11") => G11,
                        Some("G12") => G12,
                        _ => 0,
                    };
                }
                "IS_INTEGRATED" => ok = false,
                "IS_DISCRETE" => {}
                "ENGINE_CLASS" => class = args.first().cloned(),
                "FUNC" => match args.first().map(String::as_str) {
                    Some("xe_rtp_match_first_render_or_compute") => first_rc = true,
                    Some("xe_rtp_match_even_instance") => even = true,
                    // Always, or not evaluable here: matches (the stricter reading).
                    _ => {}
                },
                // Steppings are not evaluated: every stepping matches.
                "GRAPHICS_STEP" | "MEDIA_STEP" | "PLATFORM_STEP" => {}
                _ => {}
            }
        }
        if !ok || sub == 0 {
            continue;
        }
        let scope = match (class.as_deref(), first_rc, even) {
            (Some("VIDEO_DECODE"), _, true) => "Scope::VcsEven".to_string(),
            (_, true, _) => "Scope::FirstRenderOrCompute".to_string(),
            (Some(c), _, _) => format!("Scope::Class(Class::{})", class_name(c)),
            (None, _, _) => "Scope::Gt".to_string(),
        };
        match &mut result {
            Some(m) => m.sub |= sub,
            None => result = Some(Match { sub, scope }),
        }
    }
    result
}

/// The driver's `Class` variant of an upstream `ENGINE_CLASS` argument.
fn class_name(c: &str) -> String {
    match c {
        "RENDER" => "Render",
        "VIDEO_DECODE" => "VideoDecode",
        "VIDEO_ENHANCE" => "VideoEnhance",
        "COPY" => "Copy",
        "COMPUTE" => "Compute",
        o => o,
    }
    .to_string()
}

/// One `XE_RTP` entry: name, rules, actions, entry flags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RtpEntry {
    pub name: String,
    pub rules: Vec<String>,
    pub actions: Vec<String>,
    pub flags: String,
}

/// The entries of table `table` (`gt_was = XE_RTP_TABLE_SR(` ... `);`) in
/// a comment-free source.
///
/// # Errors
///
/// The table is not found.
pub fn rtp_table(src: &str, table: &str) -> Result<Vec<RtpEntry>> {
    let start = src
        .find(&format!(" {table} = XE_RTP_TABLE_SR("))
        .ok_or_else(|| anyhow!("table {table} not found"))?;
    let body = &src[start..];
    let end = body
        .find("\n);")
        .ok_or_else(|| anyhow!("table {table} unterminated"))?;
    let body = &body[body.find('(').unwrap_or(0) + 1..end];
    let mut out = Vec::new();
    for item in split_top(body, ',') {
        let inner = item.trim().trim_start_matches('{').trim_end_matches('}');
        let parts = split_top(inner, ',');
        let mut e = RtpEntry {
            name: String::new(),
            rules: Vec::new(),
            actions: Vec::new(),
            flags: String::new(),
        };
        for p in parts {
            let args = |p: &str| {
                let open = p.find('(').unwrap_or(0);
                split_top(&p[open + 1..p.len().saturating_sub(1)], ',')
            };
            if p.starts_with("XE_RTP_NAME(") {
                e.name = args(&p).join(", ").trim_matches('"').to_string();
            } else if p.starts_with("XE_RTP_RULES(") {
                e.rules = args(&p);
            } else if p.starts_with("XE_RTP_ACTIONS(") {
                e.actions = args(&p);
            } else {
                e.flags.push_str(&p);
            }
        }
        if !e.name.is_empty() {
            out.push(e);
        }
    }
    Ok(out)
}

/// The rows of one action (`SET(REG, BITS, ...)`), given the entry's match.
fn action_row(
    defs: &Defines,
    src: &str,
    e: &RtpEntry,
    m: &Match,
    action: &str,
    cctl: Option<u32>,
) -> Result<Row> {
    let open = action.find('(').ok_or_else(|| anyhow!("action {action}"))?;
    let kind = action[..open].trim();
    let args = split_top(&action[open + 1..action.len() - 1], ',');
    let arg = |i: usize| {
        args.get(i)
            .cloned()
            .ok_or_else(|| anyhow!("{kind} without argument {i}"))
    };
    let reg_expr = arg(0)?;
    let reg = defs.reg(&reg_expr)?;
    let reg_name = reg_expr.split('(').next().unwrap_or("").trim().to_string();
    let ev = |s: String| -> Result<u32> { Ok(u32::try_from(defs.eval(&s)? & 0xffff_ffff)?) };
    let (clear, set, rest) = match kind {
        "SET" => {
            let b = ev(arg(1)?)?;
            (b, b, 2)
        }
        "CLR" => (ev(arg(1)?)?, 0, 2),
        "FIELD_SET" | "FIELD_SET_NO_READ_MASK" => (ev(arg(1)?)?, ev(arg(2)?)?, 3),
        "FIELD_SET_FUNC" => (
            ev(arg(1)?)?,
            cctl.ok_or_else(|| anyhow!("{kind} has no value known here"))?,
            3,
        ),
        _ => bail!("action {kind} of {} not understood", e.name),
    };
    let extra = args.get(rest..).unwrap_or_default().join(",");
    let check = kind != "FIELD_SET_NO_READ_MASK"
        && !extra.contains("XE_RTP_NOCHECK")
        && !extra.contains(".read_mask = 0");
    let scope = if extra.contains("ENGINE_BASE") && m.scope == "Scope::Gt" {
        "Scope::EachEngine".to_string()
    } else {
        m.scope.clone()
    };
    Ok(Row {
        src: src.to_string(),
        name: e.name.clone(),
        reg: reg_name,
        sub: m.sub,
        scope,
        offset: reg.offset,
        mcr: reg.mcr,
        masked: reg.masked,
        clear,
        set,
        check,
    })
}

/// Every upstream row that matches DG2/ATS-M.
///
/// # Errors
///
/// A file is missing or an entry does not parse.
pub fn upstream_rows(kdir: &Path) -> Result<Vec<Row>> {
    let xe = kdir.join(XE);
    let read = |rel: &str| -> Result<String> {
        std::fs::read_to_string(xe.join(rel)).with_context(|| format!("{XE}/{rel}"))
    };
    let mut defs = Defines::default();
    let mut names: Vec<_> = std::fs::read_dir(xe.join("regs"))
        .with_context(|| format!("{XE}/regs"))?
        .filter_map(|d| d.ok().map(|d| d.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "h"))
        .collect();
    names.sort();
    for p in names {
        defs.add_source(&std::fs::read_to_string(&p)?);
    }
    let wa = read("xe_wa.c")?;
    let tuning = read("xe_tuning.c")?;
    let hw = read("xe_hw_engine.c")?;
    let mocs = read("xe_mocs.c")?;
    let pat = read("xe_pat.c")?;
    for s in [&wa, &tuning, &hw, &mocs, &pat] {
        defs.add_source(s);
    }
    let uc_index = dg2_uc_index(&strip_comments(&mocs))?;
    let cctl = u32::try_from(defs.eval(&format!(
        "REG_FIELD_PREP(CMD_CCTL_WRITE_OVERRIDE_MASK, {uc_index}) | \
             REG_FIELD_PREP(CMD_CCTL_READ_OVERRIDE_MASK, {uc_index})"
    ))?)?;
    let mut rows = Vec::new();
    let tables = [
        (&wa, "gt_was", "GtWas"),
        (&wa, "engine_was", "EngineWas"),
        (&wa, "lrc_was", "LrcWas"),
        (&tuning, "gt_tunings", "GtTunings"),
        (&tuning, "engine_tunings", "EngineTunings"),
        (&tuning, "lrc_tunings", "LrcTunings"),
        (&hw, "engine_sr", "HwEngine"),
    ];
    for (text, table, src) in tables {
        let text = strip_comments(text);
        for e in rtp_table(&text, table)? {
            // Of xe_hw_engine.c's engine setup, only the default MOCS is this table's: the
            // rest (RING_MODE, HWSTAM, RCU_MODE) is the engines' own setup.
            if src == "HwEngine" && e.name != "RING_CMD_CCTL_default_MOCS" {
                continue;
            }
            let Some(m) = eval_rules(&e.rules) else {
                continue;
            };
            for a in &e.actions {
                rows.push(
                    action_row(&defs, src, &e, &m, a, Some(cctl))
                        .with_context(|| format!("{table} {:?}", e.name))?,
                );
            }
        }
    }
    rows.extend(oob_rows(&read("xe_wa_oob.rules")?, "Oob"));
    // The device OOB rows are applied by code (xe_wa.c xe_wa_apply_tile_workarounds), so only
    // their names and dies are compared; the one register xehpg applies is checked by hand.
    for r in oob_rows(&read("xe_device_wa_oob.rules")?, "DeviceOob") {
        rows.push(r);
    }
    rows.extend(mocs_rows(&defs, &strip_comments(&mocs))?);
    rows.extend(pat_rows(&defs, &strip_comments(&pat))?);
    Ok(rows)
}

/// `info->uc_index` of the DG2 case of `get_mocs_settings`.
fn dg2_uc_index(mocs: &str) -> Result<u32> {
    let case = mocs
        .find("case XE_DG2:")
        .ok_or_else(|| anyhow!("xe_mocs.c: no DG2 case"))?;
    let body = &mocs[case..];
    let body = &body[..body.find("break;").unwrap_or(body.len())];
    let field = |f: &str| -> Result<u32> {
        let at = body
            .find(&format!("info->{f} = "))
            .ok_or_else(|| anyhow!("xe_mocs.c: DG2 sets no {f}"))?;
        let v = &body[at + f.len() + 9..];
        Ok(v[..v.find(';').unwrap_or(0)].trim().parse()?)
    };
    field("uc_index")
}

/// The OOB rules that match: one row per name (continuation lines start
/// with whitespace and add alternatives).
pub fn oob_rows(text: &str, src: &str) -> Vec<Row> {
    let mut by_name: Vec<(String, Vec<Vec<String>>)> = Vec::new();
    for line in text.lines() {
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let cont = line.starts_with(' ') || line.starts_with('\t');
        let (name, rules) = if cont {
            (None, line.trim())
        } else {
            let t = line.trim();
            let end = t.find(char::is_whitespace).unwrap_or(t.len());
            (Some(t[..end].to_string()), t[end..].trim())
        };
        let rules = split_top(rules, ',');
        match name {
            Some(n) => by_name.push((n, vec![rules])),
            None => {
                if let Some(last) = by_name.last_mut() {
                    last.1.push(rules);
                }
            }
        }
    }
    let mut out = Vec::new();
    for (name, alts) in by_name {
        let mut rules = Vec::new();
        for (i, a) in alts.into_iter().enumerate() {
            if i > 0 {
                rules.push("OR".to_string());
            }
            rules.extend(a);
        }
        let Some(m) = eval_rules(&rules) else {
            continue;
        };
        out.push(Row {
            src: src.to_string(),
            name,
            reg: String::new(),
            sub: m.sub,
            scope: "Scope::Gt".to_string(),
            offset: 0,
            mcr: false,
            masked: false,
            clear: 0,
            set: 0,
            check: false,
        });
    }
    out
}

/// `XEHP_LNCFCMOCS0-31` from `dg2_mocs_desc`: entry `i`'s L3 control in
/// the low half of register `i / 2` (even) or its high half (odd); an entry
/// the table leaves out takes the `unused_entries_index` entry's value
/// (`xe_mocs.c` `init_l3cc_table`, `get_entry_l3cc`).
fn mocs_rows(defs: &Defines, mocs: &str) -> Result<Vec<Row>> {
    let start = mocs
        .find("dg2_mocs_desc[] = {")
        .ok_or_else(|| anyhow!("xe_mocs.c: no dg2_mocs_desc"))?;
    let body = &mocs[start..];
    let body = &body[body.find('{').unwrap_or(0) + 1..body.find("};").unwrap_or(0)];
    let mut l3 = BTreeMap::new();
    for e in split_top(body, ',') {
        let Some(args) = e.strip_prefix("MOCS_ENTRY(") else {
            continue;
        };
        let args = split_top(args.strip_suffix(')').unwrap_or(args), ',');
        let (Some(i), Some(v)) = (args.first(), args.get(2)) else {
            bail!("MOCS_ENTRY {e}")
        };
        l3.insert(defs.eval(i)?, u32::try_from(defs.eval(v)?)?);
    }
    let case = &mocs[mocs.find("case XE_DG2:").unwrap_or(0)..];
    let case = &case[..case.find("break;").unwrap_or(case.len())];
    let unused_at = case
        .find("unused_entries_index = ")
        .ok_or_else(|| anyhow!("xe_mocs.c: DG2 sets no unused_entries_index"))?;
    let unused: u64 = case[unused_at + 23..]
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .parse()?;
    let fallback = *l3
        .get(&unused)
        .ok_or_else(|| anyhow!("no MOCS entry {unused}"))?;
    let reg = defs.reg("XEHP_LNCFCMOCS(0)")?;
    let get = |i: u64| l3.get(&i).copied().unwrap_or(fallback);
    Ok((0..32u32)
        .map(|i| Row {
            src: "Mocs".into(),
            name: format!("LNCFCMOCS{i}"),
            reg: format!("XEHP_LNCFCMOCS{i}"),
            sub: ALL,
            scope: "Scope::Gt".into(),
            offset: reg.offset + 4 * i,
            mcr: reg.mcr,
            masked: false,
            clear: u32::MAX,
            set: get(2 * u64::from(i)) | get(2 * u64::from(i) + 1) << 16,
            check: true,
        })
        .collect())
}

/// `PAT_INDEX0-n` from `xelp_pat_table`, written multicast on DG2
/// (`xe_pat.c` `xehp_pat_ops`).
fn pat_rows(defs: &Defines, pat: &str) -> Result<Vec<Row>> {
    let start = pat
        .find("xelp_pat_table[] = {")
        .ok_or_else(|| anyhow!("xe_pat.c: no xelp_pat_table"))?;
    let body = &pat[start..];
    let body = &body[body.find('{').unwrap_or(0) + 1..body.find("};").unwrap_or(0)];
    let mut out = Vec::new();
    for e in split_top(body, ',') {
        let Some((idx, val)) = e.split_once('=') else {
            continue;
        };
        let idx = idx.trim().trim_start_matches('[').trim_end_matches(']');
        let i = u32::try_from(defs.eval(idx)?)?;
        let fields = split_top(
            val.trim().trim_start_matches('{').trim_end_matches('}'),
            ',',
        );
        let v = u32::try_from(defs.eval(fields.first().ok_or_else(|| anyhow!("PAT {e}"))?)?)?;
        out.push(Row {
            src: "Pat".into(),
            name: format!("PAT_INDEX{i}"),
            reg: format!("PAT_INDEX{i}"),
            sub: ALL,
            scope: "Scope::Gt".into(),
            offset: 0x4800 + 4 * i,
            mcr: true,
            masked: false,
            clear: u32::MAX,
            set: v,
            check: true,
        });
    }
    let reg = defs
        .reg("_PAT_INDEX(0)")
        .map(|r| r.offset)
        .unwrap_or(0x4800);
    if reg != 0x4800 {
        bail!("_PAT_INDEX(0) is {reg:#x}, not 0x4800");
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(s: &str) -> Vec<String> {
        split_top(s, ',')
    }

    #[test]
    fn rules_for_dg2() {
        let m = |s: &str| eval_rules(&rules(s));
        assert_eq!(m("PLATFORM(DG2)").map(|m| m.sub), Some(ALL));
        assert_eq!(m("PLATFORM(PVC)"), None);
        assert_eq!(m("SUBPLATFORM(DG2, G11)").map(|m| m.sub), Some(G11));
        assert_eq!(
            m("SUBPLATFORM(DG2, G10), OR, SUBPLATFORM(DG2, G12)").map(|m| m.sub),
            Some(G10 | G12)
        );
        assert!(m("GRAPHICS_VERSION_RANGE(1200, 1255)").is_some());
        assert!(m("GRAPHICS_VERSION_RANGE(1200, 1250)").is_none());
        assert!(m("GRAPHICS_VERSION(1255)").is_some());
        assert!(m("MEDIA_VERSION_RANGE(1300, 2000)").is_none());
        assert!(m("GRAPHICS_VERSION(2004), OR, MEDIA_VERSION_ANY_GT(2000)").is_none());
        assert!(m("GRAPHICS_VERSION(1200), ENGINE_CLASS(RENDER), IS_INTEGRATED").is_none());
        // A stepping is not evaluated: it matches.
        assert!(m("GRAPHICS_VERSION(1255), GRAPHICS_STEP(A0, B0)").is_some());
        assert_eq!(
            m("PLATFORM(DG2), FUNC(xe_rtp_match_first_render_or_compute)").map(|m| m.scope),
            Some("Scope::FirstRenderOrCompute".into())
        );
        assert_eq!(
            m(
                "MEDIA_VERSION_RANGE(1200, 1255), ENGINE_CLASS(VIDEO_DECODE), \
               FUNC(xe_rtp_match_even_instance)"
            )
            .map(|m| m.scope),
            Some("Scope::VcsEven".into())
        );
        assert_eq!(
            m("PLATFORM(DG2), ENGINE_CLASS(RENDER)").map(|m| m.scope),
            Some("Scope::Class(Class::Render)".into())
        );
    }

    fn defs() -> Defines {
        let mut d = Defines::default();
        d.add_source(
            "#define MISCCPCTL XE_REG(0x9424)\n\
             #define   DOP_CLOCK_GATE_RENDER_ENABLE REG_BIT(1)\n\
             #define SAMPLER_MODE XE_REG_MCR(0xe18c, XE_REG_OPTION_MASKED)\n\
             #define   SMALL REG_BIT(9)\n\
             #define VDBOX_CGCTL3F10(base) XE_REG((base) + 0x3f10)\n\
             #define   IECPUNIT_CLKGATE_DIS REG_BIT(22)\n",
        );
        d
    }

    const SRC: &str = "static const struct xe_rtp_table_sr gt_was = XE_RTP_TABLE_SR(\n\
        { XE_RTP_NAME(\"1\"),\n  XE_RTP_RULES(PLATFORM(DG2)),\n  XE_RTP_ACTIONS(CLR(MISCCPCTL, DOP_CLOCK_GATE_RENDER_ENABLE))\n},\n\
        { XE_RTP_NAME(\"2\"),\n  XE_RTP_RULES(PLATFORM(PVC)),\n  XE_RTP_ACTIONS(SET(MISCCPCTL, 1))\n},\n\
        { XE_RTP_NAME(\"3\"),\n  XE_RTP_RULES(PLATFORM(DG2), ENGINE_CLASS(RENDER)),\n  XE_RTP_ACTIONS(SET(SAMPLER_MODE, SMALL, XE_RTP_NOCHECK))\n},\n\
        { XE_RTP_NAME(\"4\"),\n  XE_RTP_RULES(MEDIA_VERSION_RANGE(1200, 1255), ENGINE_CLASS(VIDEO_DECODE), FUNC(xe_rtp_match_even_instance)),\n  XE_RTP_ACTIONS(SET(VDBOX_CGCTL3F10(0), IECPUNIT_CLKGATE_DIS)),\n  XE_RTP_ENTRY_FLAG(FOREACH_ENGINE),\n},\n);\n";

    fn upstream() -> Vec<Row> {
        let d = defs();
        let entries = rtp_table(SRC, "gt_was").unwrap_or_default();
        entries
            .iter()
            .filter_map(|e| eval_rules(&e.rules).map(|m| (e, m)))
            .flat_map(|(e, m)| {
                e.actions
                    .iter()
                    .filter_map(|a| action_row(&d, "GtWas", e, &m, a, None).ok())
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    #[test]
    fn entries_become_rows() {
        let rows = upstream();
        assert_eq!(rows.len(), 3, "{rows:?}");
        let r = &rows[0];
        assert_eq!(
            (r.name.as_str(), r.offset, r.clear, r.set),
            ("1", 0x9424, 2, 0)
        );
        let r = &rows[1];
        assert!(r.mcr && r.masked && !r.check);
        assert_eq!(r.scope, "Scope::Class(Class::Render)");
        let r = &rows[2];
        assert_eq!((r.offset, r.scope.as_str()), (0x3f10, "Scope::VcsEven"));
    }

    const OURS: &str = "pub(crate) const TABLE: &[Entry] = &[\n    Entry {\n        name: \"1\",\n        src: Src::GtWas,\n        sub: ALL,\n        scope: Scope::Gt,\n        reg: \"MISCCPCTL\",\n        offset: 0x9424,\n        mcr: false,\n        masked: false,\n        clear: 1 << 1,\n        set: 0,\n        check: true,\n        verdict: Verdict::Applied(Stage::GtInit),\n    },\n];\n";

    #[test]
    fn a_missing_a_changed_and_an_extra_row_are_found() {
        let ours = parse_table(OURS).unwrap_or_default();
        assert_eq!(ours.len(), 1);
        let up = upstream();
        let (missing, extra) = compare(&up, &ours);
        // Rows 3 and 4 are missing from ours; row 1 matches.
        assert_eq!(missing.len(), 2);
        assert!(extra.is_empty());
        // A changed bit is both missing and extra.
        let changed = OURS.replace("clear: 1 << 1", "clear: 1 << 2");
        let ours = parse_table(&changed).unwrap_or_default();
        let (missing, extra) = compare(&up, &ours);
        assert_eq!((missing.len(), extra.len()), (3, 1));
        // A row upstream does not have.
        let dropped = OURS.replace("name: \"1\"", "name: \"9\"");
        let (_, extra) = compare(&up, &parse_table(&dropped).unwrap_or_default());
        assert_eq!(extra.len(), 1);
    }

    #[test]
    fn oob_continuations_are_alternatives() {
        let rows = oob_rows(
            "1\tPLATFORM(PVC)\n2\tGRAPHICS_VERSION(2004)\n\t\tSUBPLATFORM(DG2, G12)\n3 MEDIA_VERSION(1300)\n",
            "Oob",
        );
        assert_eq!(rows.len(), 1);
        assert_eq!((rows[0].name.as_str(), rows[0].sub), ("2", G12));
    }

    #[test]
    fn literals() {
        assert_eq!(rust_int("1 << 22").ok(), Some(1 << 22));
        assert_eq!(rust_int("0x6000_0000").ok(), Some(0x6000_0000));
        assert_eq!(parse_sub("G10 | G12").ok(), Some(G10 | G12));
    }
}
