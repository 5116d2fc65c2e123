//! Suite `uabi`: our GuC/firmware ABI and GuC-area registers against the
//! upstream headers of the kernel tree.
//!
//! Two spellings of the ABI exist on our side and each is checked on its
//! own: the driver's `include/xehpg_abi.h` and the mock's own `src/abi.rs`
//! plus its register table (`xehpg_mock::regs::REGISTERS`). The mapping
//! table `tools/check/uabi.toml` ([`mapping`]) pairs each of our items with
//! an upstream C expression; [`compile`] writes one translation unit that
//! includes the upstream headers and ours, states each pair as a
//! `_Static_assert`, and has the kernel's C compiler evaluate it with the
//! kernel's include paths. A diagnostic on an assertion's line fails that
//! case, with both values when clang gives them.
//!
//! Cases: one per constant and side, one per struct member (and size) and
//! side, one per mock register or register array, and three coverage cases
//! ([`coverage`]): every define, struct and member of the header, every
//! constant of the mock's ABI and every mock register is in the table.
//! Without a configured kernel tree (which the bootstrap always leaves for
//! `make check`) one failed `kernel tree` case stands for the comparisons;
//! the coverage cases, which read only the repository, still run.

mod compile;
mod coverage;
mod mapping;
mod rust_consts;

use super::Context;
use crate::report::{Case, Reporter};
use anyhow::{bail, Context as _, Result};
use mapping::{Check, Mapping, MockRegister, Sides};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use xehpg_common::process::{run_logged, run_split};

/// The mapping table, relative to the repository.
const TABLE: &str = "tools/check/uabi.toml";
/// The driver's ABI header, relative to the repository.
const HEADER: &str = "include/xehpg_abi.h";
/// The mock's ABI module, relative to the repository.
const MOCK_ABI: &str = "tools/mock/src/abi.rs";
/// Limit for the compiler run.
const LIMIT: Duration = Duration::from_secs(120);
/// A header every mapped upstream file needs; its absence means no tree.
const PROBE: &str = "drivers/gpu/drm/xe/xe_guc_fwif.h";

/// `(module::NAME, value)` of the mock's ABI constants, by path so that a
/// renamed constant fails to build here instead of dropping out.
macro_rules! mock_values {
    ($($m:ident :: $c:ident),* $(,)?) => {
        [$((
            concat!(stringify!($m), "::", stringify!($c)),
            // CAST: every constant is a u32 or a usize below 2^32.
            xehpg_mock::abi::$m::$c as u64,
        )),*]
    };
}

/// The mock's ABI constants the table can refer to.
fn mock_values() -> BTreeMap<String, u64> {
    let table = mock_values![
        css::HEADER_BYTES,
        css::MODULE_TYPE,
        css::HEADER_SIZE_DW,
        css::SIZE_DW,
        css::KEY_SIZE_DW,
        css::MODULUS_SIZE_DW,
        css::EXPONENT_SIZE_DW,
        css::SW_VERSION,
        css::SUBMISSION_VERSION,
        css::PRIVATE_DATA_SIZE,
        css::VERSION_MAJOR,
        css::VERSION_MINOR,
        css::VERSION_PATCH,
        hxg::ORIGIN,
        hxg::ORIGIN_GUC,
        hxg::TYPE,
        hxg::AUX,
        hxg::TYPE_REQUEST,
        hxg::TYPE_EVENT,
        hxg::TYPE_FAST_REQUEST,
        hxg::TYPE_NO_RESPONSE_BUSY,
        hxg::TYPE_NO_RESPONSE_RETRY,
        hxg::TYPE_RESPONSE_FAILURE,
        hxg::TYPE_RESPONSE_SUCCESS,
        hxg::REQUEST_DATA0,
        hxg::REQUEST_ACTION,
        hxg::FAILURE_HINT,
        hxg::FAILURE_ERROR,
        hxg::MMIO_MSG_MAX_DWORDS,
        action::GET_HWCONFIG,
        action::CLIENT_SOFT_RESET,
        action::HOST2GUC_SELF_CFG,
        action::HOST2GUC_CONTROL_CTB,
        action::CTB_CONTROL_DISABLE,
        action::CTB_CONTROL_ENABLE,
        action::UPDATE_SCHEDULING_POLICIES_KLV,
        action::OPT_IN_FEATURE_KLV,
        tlb::INVALIDATION,
        tlb::INVALIDATION_DONE,
        tlb::INVALIDATION_ALL,
        tlb::INVAL_FULL,
        tlb::INVAL_GUC,
        tlb::SEQNO_INVALID,
        slpc::REQUEST,
        slpc::SETUP_PC_GUCRC,
        slpc::EVENT_RESET,
        slpc::EVENT_SHUTDOWN,
        slpc::EVENT_QUERY_TASK_STATE,
        slpc::EVENT_PARAMETER_SET,
        slpc::EVENT_PARAMETER_UNSET,
        slpc::STATE_RUNNING,
        slpc::MAX_PARAMETERS,
        slpc::SHARED_DATA_BYTES,
        slpc::GLOBAL_STATE,
        slpc::TASK_STATE,
        slpc::OVERRIDE_BITS,
        slpc::OVERRIDE_VALUES,
        slpc::GUCRC_FIRMWARE_CONTROL,
        slpc::SET_DEVICE_ENGINE_ACTIVITY_BUFFER,
        action::NOTIFY_FLUSH_LOG_BUFFER_TO_FILE,
        action::SCHED_CONTEXT,
        action::SCHED_CONTEXT_MODE_SET,
        action::SCHED_CONTEXT_MODE_DONE,
        action::CONTEXT_RESET_NOTIFICATION,
        action::ENGINE_FAILURE_NOTIFICATION,
        action::UPDATE_CONTEXT_POLICIES,
        action::REGISTER_CONTEXT,
        action::DEREGISTER_CONTEXT,
        action::DEREGISTER_CONTEXT_DONE,
        action::ALLOCATE_DOORBELL,
        action::DEALLOCATE_DOORBELL,
        error::UNKNOWN_ACTION,
        error::INVALID_PARAMS,
        error::INVALID_STATE,
        error::INVALID_KLV_DATA,
        error::INVALID_GGTT_ADDRESS,
        error::CTB_NOT_REGISTERED,
        error::CTB_INVALID_DESC,
        error::MALFORMED_KLV,
        error::NOT_SUPPORTED,
        error::ACTION_ABORTED,
        error::CANNOT_COMPLETE_ACTION,
        error::INVALID_CONTEXT_INDEX,
        error::INVALID_CONTEXT_REGISTRATION,
        error::INVALID_ENGINE_ID,
        error::INVALID_BUFFER_RANGE,
        error::INVALID_BUFFER,
        error::CONTEXT_NOT_REGISTERED,
        error::INVALID_SIZE,
        error::INVALID_CONTEXT,
        error::INVALID_KLV_KEY,
        error::NO_PERMISSION,
        error::INVALID_DOORBELL_ID,
        error::BUFFER_ALREADY_REGISTERED,
        klv::KEY,
        klv::LEN,
        klv::SELF_CFG_H2G_CTB_ADDR,
        klv::SELF_CFG_H2G_CTB_ADDR_LEN,
        klv::SELF_CFG_H2G_CTB_DESCRIPTOR_ADDR,
        klv::SELF_CFG_H2G_CTB_DESCRIPTOR_ADDR_LEN,
        klv::SELF_CFG_H2G_CTB_SIZE,
        klv::SELF_CFG_H2G_CTB_SIZE_LEN,
        klv::SELF_CFG_G2H_CTB_ADDR,
        klv::SELF_CFG_G2H_CTB_ADDR_LEN,
        klv::SELF_CFG_G2H_CTB_DESCRIPTOR_ADDR,
        klv::SELF_CFG_G2H_CTB_DESCRIPTOR_ADDR_LEN,
        klv::SELF_CFG_G2H_CTB_SIZE,
        klv::SELF_CFG_G2H_CTB_SIZE_LEN,
        klv::SCHEDULING_POLICIES_RENDER_COMPUTE_YIELD,
        klv::SCHEDULING_POLICIES_RENDER_COMPUTE_YIELD_LEN,
        klv::OPT_IN_FEATURE_EXT_CAT_ERR_TYPE,
        klv::OPT_IN_FEATURE_EXT_CAT_ERR_TYPE_LEN,
        klv::CONTEXT_POLICY_EXECUTION_QUANTUM,
        klv::CONTEXT_POLICY_PREEMPTION_TIMEOUT,
        klv::CONTEXT_POLICY_SCHEDULING_PRIORITY,
        klv::CONTEXT_POLICY_PREEMPT_TO_IDLE,
        klv::CONTEXT_POLICY_SLPM_GT_FREQUENCY,
        sched::GUC_ID_MAX,
        sched::CONTEXT_REGISTRATION_FLAG_KMD,
        sched::CONTEXT_DISABLE,
        sched::CONTEXT_ENABLE,
        sched::RENDER_CLASS,
        sched::VIDEO_CLASS,
        sched::VIDEOENHANCE_CLASS,
        sched::BLITTER_CLASS,
        sched::COMPUTE_CLASS,
        ctb::DESC_SIZE,
        ctb::DESC_HEAD,
        ctb::DESC_TAIL,
        ctb::DESC_STATUS,
        ctb::DESC_RESERVED,
        ctb::STATUS_OVERFLOW,
        ctb::STATUS_UNDERFLOW,
        ctb::STATUS_MISMATCH,
        ctb::STATUS_DISABLED,
        ctb::MSG_FENCE,
        ctb::MSG_FORMAT,
        ctb::FORMAT_HXG,
        ctb::MSG_NUM_DWORDS,
        ukernel::START,
        ukernel::DEVID_BUILD_MISMATCH,
        ukernel::GDT_DONE,
        ukernel::IDT_DONE,
        ukernel::LAPIC_DONE,
        ukernel::GUCINT_DONE,
        ukernel::DPC_READY,
        ukernel::EXCEPTION,
        ukernel::INIT_DATA_INVALID,
        ukernel::READY,
        bootrom::RSA_FAILED,
        bootrom::LOADLOC_FAILED,
        bootrom::JUMP_PASSED,
        ctl::LOG_PARAMS,
        ctl::WA,
        ctl::FEATURE,
        ctl::WA_DUAL_QUEUE,
        ctl::WA_PRE_PARSER,
        ctl::WA_CONTEXT_ISOLATION,
        ctl::WA_HOLD_CCS_SWITCHOUT,
        ctl::WA_ENABLE_TSC_CHECK_ON_RC6,
        ctl::FEATURE_LITE_RESTORE,
        ctl::ADS,
        ctl::DEVID,
        ctl::MAX_DWORDS,
        ctl::LOG_VALID,
        ctl::LOG_BUF_ADDR,
        ctl::ADS_ADDR,
        ads::SIZE,
        ads::SCHEDULER_POLICIES,
        ads::GT_SYSTEM_INFO,
        ads::PRIVATE_DATA,
        ads::REG_STATE_LIST,
        ads::REG_SET_BYTES,
        ads::REG_BYTES,
        ads::GOLDEN_CONTEXT_LRCA,
        ads::ENG_STATE_SIZE,
        ads::CAPTURE_INSTANCE,
        ads::CAPTURE_CLASS,
        ads::CAPTURE_GLOBAL,
        ads::WA_KLV_ADDR_LO,
        ads::WA_KLV_ADDR_HI,
        ads::WA_KLV_SIZE,
        ads::CLASSES,
        ads::INSTANCES,
        ads::CAPTURE_OWNERS,
        policies::SIZE,
        policies::IS_VALID,
        gt_system_info::SIZE,
        gt_system_info::MAPPING_TABLE,
        gt_system_info::ENGINE_ENABLED_MASKS,
    ];
    table.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

fn mock_registers() -> Vec<MockRegister> {
    xehpg_mock::regs::REGISTERS
        .iter()
        .map(|r| MockRegister {
            name: r.name.to_string(),
            offset: u64::from(r.offset),
            fields: r
                .fields
                .iter()
                .map(|f| (f.name.to_string(), f.hi, f.lo))
                .collect(),
        })
        .collect()
}

/// Runs the suite.
pub fn run(ctx: &Context, r: &mut Reporter) {
    let table = match std::fs::read_to_string(ctx.repo.join(TABLE))
        .with_context(|| format!("reading {TABLE}"))
        .and_then(|t| Mapping::parse(&t).with_context(|| TABLE.to_string()))
    {
        Ok(t) => t,
        Err(e) => return r.case(Case::fail(TABLE, format!("{e:#}"))),
    };
    let values = mock_values();
    let registers = mock_registers();
    let rust = driver_consts(&ctx.repo);
    let side = Sides {
        rust: &rust,
        values: &values,
        registers: &registers,
    };
    let checks = table.checks(&side);
    for u in &table.unmapped {
        r.note(&format!("not checked: {} ({})", u.name, u.reason));
    }
    for c in coverage_cases(ctx, &table, &values, &registers) {
        r.case(c);
    }
    if let Some(why) = missing_tree(&ctx.kdir) {
        // The bootstrap unpacks and configures the whole tree before `make
        // check` runs: without it nothing here can be judged, which fails.
        return r.case(Case::fail("kernel tree", why));
    }
    for case in compare(ctx, &checks) {
        r.case(case);
    }
}

/// The integer `const` items of the driver's `rust/` (bindgen output
/// aside: it is the header, checked as such).
fn driver_consts(repo: &Path) -> rust_consts::Consts {
    let mut out = rust_consts::Consts::new();
    let mut stack = vec![repo.join("rust")];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for path in entries.filter_map(|e| e.ok().map(|e| e.path())) {
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs")
                && !path.ends_with("abi/bindings.rs")
            {
                let rel = path
                    .strip_prefix(repo)
                    .unwrap_or(&path)
                    .display()
                    .to_string();
                if let Ok(text) = std::fs::read_to_string(&path) {
                    rust_consts::scan(&text, &rel, &mut out);
                    // A file syn cannot read fails the `regs` suite; here it
                    // only lacks field names, which fails the cases using them.
                    if let Ok(types) = super::regs::parse::field_types_in(&text) {
                        rust_consts::scan_fields(&types, &rel, &mut out);
                    }
                }
            }
        }
    }
    out
}

/// Why the kernel tree cannot be used, if it cannot.
fn missing_tree(kdir: &Path) -> Option<String> {
    if !kdir.join(PROBE).is_file() {
        return Some(format!(
            "no kernel tree with {PROBE} at {} (run tools/bootstrap.sh)",
            kdir.display()
        ));
    }
    if !kdir.join("include/generated/autoconf.h").is_file() {
        return Some(format!(
            "kernel tree {} is not configured (no include/generated/autoconf.h)",
            kdir.display()
        ));
    }
    None
}

/// The three coverage cases.
fn coverage_cases(
    ctx: &Context,
    table: &Mapping,
    values: &BTreeMap<String, u64>,
    registers: &[MockRegister],
) -> Vec<Case> {
    let seen = coverage::mentioned(table);
    let gaps = |what: &str, items: Result<Vec<String>>| match items {
        Ok(items) => {
            let missing = coverage::missing(&items, &seen);
            if missing.is_empty() {
                Case::pass(format!("every item of {what} is mapped"))
            } else {
                Case::fail(
                    format!("every item of {what} is mapped"),
                    format!(
                        "{} not in {TABLE} (map it or list it under [[unmapped]] with the reason)",
                        missing.join(", ")
                    ),
                )
            }
        }
        Err(e) => Case::fail(format!("every item of {what} is mapped"), format!("{e:#}")),
    };
    let read = |rel: &str| {
        std::fs::read_to_string(ctx.repo.join(rel)).with_context(|| format!("reading {rel}"))
    };
    let mock = read(MOCK_ABI).and_then(|text| {
        let items = coverage::mock_items(&text);
        // The suite's value table must know every constant the file has.
        let unknown: Vec<&String> = items
            .iter()
            .filter(|i| i.contains("::") && !values.contains_key(*i))
            .filter(|i| !table.unmapped.iter().any(|u| &u.name == *i))
            .collect();
        if !unknown.is_empty() {
            bail!(
                "{unknown:?} missing from the suite's table of mock values (mock_values! in \
                 tools/check/src/suites/upstream_abi.rs)"
            );
        }
        Ok(items)
    });
    vec![
        gaps(HEADER, read(HEADER).map(|t| coverage::header_items(&t))),
        gaps(MOCK_ABI, mock),
        gaps(
            "the mock's register table",
            Ok(coverage::register_items(registers)),
        ),
    ]
}

/// Compiles the comparisons and turns the diagnostics into cases.
fn compare(ctx: &Context, checks: &[Check]) -> Vec<Case> {
    let logs = ctx.log_dir("uabi");
    let mut missing_files = BTreeSet::new();
    let mut headers: Vec<PathBuf> = Vec::new();
    for c in checks {
        let path = ctx.kdir.join(&c.file);
        if !path.is_file() {
            missing_files.insert(c.file.clone());
        } else if !headers.contains(&path) {
            headers.push(path);
        }
    }
    let live: Vec<Check> = checks
        .iter()
        .cloned()
        .map(|mut c| {
            if c.broken.is_none() && missing_files.contains(&c.file) {
                c.broken = Some(format!("no upstream header {} in the kernel tree", c.file));
            }
            c
        })
        .collect();
    let outcome = run_compiler(ctx, &logs, &live, &headers);
    live.iter()
        .enumerate()
        .map(|(i, c)| {
            if let Some(why) = &c.broken {
                return Case::fail(&c.name, why);
            }
            match &outcome {
                Err(e) => Case::fail(&c.name, format!("{e:#}")),
                Ok(v) => match v.failed.get(&i) {
                    Some(lines) => {
                        let mut details = lines[1..].to_vec();
                        details.extend(
                            c.asserts
                                .iter()
                                .map(|a| format!("{}: {} vs {}", a.what, a.ours, a.upstream)),
                        );
                        details.push(format!("upstream: {}", c.file));
                        Case::fail(&c.name, &lines[0]).with_details(details)
                    }
                    None if !v.global.is_empty() => Case::fail(
                        &c.name,
                        format!("the headers did not compile: {}", v.global[0]),
                    )
                    .with_details(v.global.iter().take(10).cloned()),
                    None => Case::pass(&c.name),
                },
            }
        })
        .collect()
}

/// Writes the translation unit, runs the compiler and sorts its
/// diagnostics.
fn run_compiler(
    ctx: &Context,
    logs: &Path,
    checks: &[Check],
    headers: &[PathBuf],
) -> Result<compile::Verdicts> {
    std::fs::create_dir_all(logs).with_context(|| format!("creating {}", logs.display()))?;
    let shim = logs.join("shim");
    std::fs::create_dir_all(&shim)?;
    std::fs::write(shim.join("stdint.h"), compile::STDINT_SHIM)?;
    let unit = compile::unit(checks, headers, &ctx.repo.join(HEADER));
    let tu = logs.join("uabi.c");
    std::fs::write(&tu, &unit.text).with_context(|| format!("writing {}", tu.display()))?;
    let clang = clang(ctx);
    let resource = resource_include(&clang, logs)?;
    let log = logs.join("clang.log");
    let mut cmd = Command::new(&clang);
    cmd.args(compile::compiler_args(&ctx.kdir, &resource, &shim, &tu));
    let finished = run_logged(&mut cmd, &log, LIMIT)?;
    let output = std::fs::read_to_string(&log).unwrap_or_default();
    let diags = compile::diagnostics(&output);
    let verdicts = compile::verdicts(&diags, &tu.display().to_string(), &unit.owner);
    if !finished.success() && verdicts.failed.is_empty() && verdicts.global.is_empty() {
        bail!(
            "{clang} failed without a diagnostic ({}); see {}",
            finished.describe(),
            log.display()
        );
    }
    Ok(verdicts)
}

/// The kernel's C compiler: `clang$LLVM` for a version suffix, `clang` for
/// `LLVM=1`, `${LLVM}clang` for a directory prefix.
fn clang(ctx: &Context) -> String {
    match ctx.llvm() {
        Ok(v) if v.starts_with('-') => format!("clang{v}"),
        Ok(v) if v.ends_with('/') => format!("{v}clang"),
        _ => "clang".into(),
    }
}

/// The compiler's own header directory (`stddef.h`, `stdarg.h`), which
/// `-nostdinc` drops and the kernel adds back with `-isystem`.
fn resource_include(clang: &str, logs: &Path) -> Result<String> {
    let out = logs.join("resource-dir.txt");
    let mut cmd = Command::new(clang);
    cmd.arg("-print-file-name=include");
    let f = run_split(&mut cmd, &out, &logs.join("resource-dir.log"), LIMIT)?;
    if !f.success() {
        bail!("{clang} -print-file-name=include: {}", f.describe());
    }
    Ok(std::fs::read_to_string(&out)?.trim().to_string())
}
