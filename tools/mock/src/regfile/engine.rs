//! The command streamers: one register block per present engine and an
//! execlist front end that loads contexts, executes their rings and reports
//! context switches.
//!
//! Facts come from seed 004 (the PRM's Volume 8: Command Stream Programming,
//! cited "seed 004 L<n>", see Documentation/references.rst) and, where
//! the seed has gaps, upstream Linux 7.3 (`drivers/gpu/drm/xe/regs/
//! xe_engine_regs.h`, `xe/instructions/*.h`, `xe/xe_lrc.c`; `drivers/gpu/
//! drm/i915/gt/intel_engine_regs.h`, `intel_lrc_reg.h`, `intel_engine.h`,
//! `intel_execlists_submission.c`, `intel_gt_regs.h`). `[MODEL]` marks a
//! convention of the mock's own.
//!
//! # Engines and power
//!
//! Bases: seed 004 L1006-1023 (the MMIO base table; upstream
//! `xe_engine_regs.h` agrees). An engine exists when the fuses say so, the
//! rule the driver's `Present` uses: RCS0 and BCS0 always; CCS n when
//! quadrant n has a DSS (`xe_hw_engine.c` `read_compute_fuses_from_dss`);
//! VCS n / VECS n from `GT_VEBOX_VDBOX_DISABLE` ([`super::Fuses`]). An
//! absent engine's window stays unknown. Every engine register lies in its
//! forcewake domain in the PRM's table, so the register file's power rule
//! applies before an access gets here (unchanged).
//!
//! # Registers (offsets from the base)
//!
//! | off | name | behaviour |
//! |---|---|---|
//! | 0x30-0x3c | `RING_TAIL/HEAD/START/CTL` | the active context's values (the last ones when idle); writes stored, legacy ring mode not modelled |
//! | 0x68 | `RING_IPEHR` | header of the faulting command, read-only |
//! | 0x74 | `RING_ACTHD` | GGTT address of the command executing / that faulted, read-only |
//! | 0x80 | `RING_HWS_PGA` | the global HWSP, 4 KiB aligned |
//! | 0x94 | `RING_NOPID` | `[MODEL]` storage, also written by LRI / LRR ([`cs`]) |
//! | 0x98 | `RING_HWSTAM` | storage |
//! | 0x9c | `RING_MI_MODE` | masked; `STOP_RING` bit 8; `MODE_IDLE` bit 9 read-only |
//! | 0xa8 | `RING_IMR` | storage, no effect |
//! | 0xb0/0xb4/0xb8 | `RING_EIR` (RW1C) / `RING_EMR` / `RING_ESR` | error bits 0 instruction, 4 page table |
//! | 0xc4 | `RING_CMD_CCTL` | storage, masked; also written by LRI / LRR (command-fetch caching: nothing to do) |
//! | 0xd0 | `RING_RESET_CTL` | masked: `REQUEST_RESET` bit 0, `READY_TO_RESET` bit 1 |
//! | 0xec | `CS_DEBUG_MODE1` | storage, masked; also written by LRI / LRR |
//! | 0x234/0x238 | `RING_EXECLIST_STATUS_LO/HI` | `[MODEL]` lo bit 0 = a context is active; hi = its SW context ID (0xffff idle) |
//! | 0x240 | `RING_CURRENT_LRCA` | the active LRCA, 0 idle |
//! | 0x244 | `RING_CONTEXT_CONTROL` | the active context's (masked) |
//! | 0x29c | `RING_MODE` | masked; `GFX_DISABLE_LEGACY_MODE` bit 3 = execlists on |
//! | 0x370-0x39f, 0x3c0-0x3ef | CSB mirror | entries 0-5, 6-11, read-only |
//! | 0x3a0 | `RING_CONTEXT_STATUS_PTR` | masked; write pointer 3:0, read pointer 11:8 |
//! | 0x3a8 | `RING_CTX_TIMESTAMP` | `[MODEL]` reads 0 (no context time is kept); writes have no effect |
//! | 0x4d0-0x4fc | `RING_FORCE_TO_NONPRIV(0..11)` | storage; also written by LRI / LRR (the mock runs no non-privileged batch, so the whitelist changes nothing) |
//! | 0x510-0x54f | `RING_EXECLIST_SQ_CONTENTS` | 8 elements (lo, hi), kept across Load |
//! | 0x550 | `RING_EXECLIST_CONTROL` | bit 0 `EL_CTRL_LOAD` |
//! | 0x600-0x67f | `CS_GPR` | `[MODEL]` storage (R0-R15, 64 bits each), also written by LRI / LRR and `MI_MATH` ([`cs`]) |
//!
//! The storage registers (`RING_CMD_CCTL`, `CS_DEBUG_MODE1`,
//! `RING_FORCE_TO_NONPRIV`) are engine-wide and cleared by an engine reset
//! (`[MODEL]`: the seed lists them in the context image, L1583/L1601; the
//! mock restores only the ring registers from an image). xe programs them
//! at init (`xe_reg_whitelist.c`, `xe_wa.c`); found by the `xe-probe` suite.
//!
//! Each register constant below cites its source. `GDRST` (0x941C) is the
//! GuC unit's register; the register file hands its engine domain bits
//! here ([`Engines::gdrst`]).
//!
//! # Execution
//!
//! See [`cs`] (commands, errors), [`csb`] (the CSB in the HWSP and its
//! mirror) and [`lrc`] (context restore and save). A Load samples the SQ;
//! the engine then runs synchronously, up to [`BUDGET`] commands per
//! burst, and continues on later register accesses and on the device's
//! 1 ms tick ([`Engines::service`]), which also re-polls semaphore waits.
//! Interrupts are queued as (source, vector bits) and delivered by the
//! register file to the interrupt controller.
//!
//! # Memory-based interrupts
//!
//! A context the GuC Loaded for a VF ([`Element::func`]) reports its
//! interrupts through memory, never through the PF's registers (seed 000
//! L2245-2278, "Memory Based Interrupt Status Reporting"): the engine
//! writes the event to memory at pointers software provides, then asks the
//! G-unit for the VF's interrupt. The pointers come from the context image
//! ([`lrc`]): `RING_INT_STATUS_RPT_PTR` and `RING_INT_SRC_RPT_PTR`, and the
//! enable mask `RING_IMR` is loaded from. Per event bit `b` enabled in the
//! mask (upstream writes `GENMASK(15, 0)` to enable, `xe_memirq.c`
//! `memirq_set_enable`), 0xFF goes to byte `16 * slot + b` of the status
//! page (a byte per event, in the bit order of the interrupt registers,
//! seed 000 L2266-2268), then 0xFF to byte `slot` of the source page, where
//! `slot` is the engine's bit in `GT_INTR_DW0/1` counted over both (RCS0 0,
//! BCS0 15, CCS`n` 4+`n`, VCS`n` 32+`n`, VECS`n` 63-`n`: upstream's
//! `irq_offset`, `xe_hw_engine.c`, read by `xe_memirq.c`
//! `xe_memirq_hwe_handler`). `[MODEL]`: 0xFF is the value upstream expects
//! (`memirq_received`); an event masked off, or a context without the two
//! pointers, reports nothing (traced `engine_memirq` `dropped`); a report
//! that faults is an `engine_memirq_fault` violation.

pub mod cs;
pub mod csb;
pub mod lrc;

#[cfg(test)]
mod tests;

use std::collections::BTreeSet;
use std::collections::HashMap;
use std::collections::VecDeque;

use super::guc::ggtt::Fault;
use super::guc::ggtt::Gtt;
use super::guc::ggtt::Tlb;
use super::guc::Bus;
use super::guc::Target;
use super::intc::Class;
use super::intc::Source;
use super::tuning::masked;
use super::Fuses;
use crate::recorder::Recorder;
use crate::regs;
use crate::trace::Event;
use crate::trace::Hex;

/// Commands one burst executes at most before it yields (`[MODEL]`).
pub const BUDGET: u64 = 4096;

/// One engine the part can have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EngineDef {
    /// Upstream's name (`xe_hw_engine.c`), also the interrupt source name.
    pub name: &'static str,
    /// Class and instance: its interrupt source.
    pub src: Source,
    /// MMIO base (seed 004 L1006-1023).
    pub base: u32,
    /// Its `GDRST` reset-domain bit (i915 `intel_gt_regs.h` `GEN11_GRDOM_*`;
    /// i915 `intel_engine_cs.c` gen11 table: RCS and every CCS share
    /// RENDER).
    pub gdrst: u32,
}

const fn def(name: &'static str, class: Class, instance: u8, base: u32, gdrst: u32) -> EngineDef {
    EngineDef {
        name,
        src: Source { class, instance },
        base,
        gdrst,
    }
}

/// `GEN11_GRDOM_RENDER` bit 1 (i915 `intel_gt_regs.h`).
pub const GRDOM_RENDER: u32 = 1 << 1;
/// `GEN11_GRDOM_BLT` bit 2 (i915 `intel_gt_regs.h`).
pub const GRDOM_BLT: u32 = 1 << 2;
/// `GEN11_GRDOM_MEDIA` bit 5, `MEDIA2..8` 6..12: VCS n at bit 5 + n (i915
/// `intel_gt_regs.h`).
pub const fn grdom_media(n: u32) -> u32 {
    1 << (5 + n)
}
/// `GEN11_GRDOM_VECS` bit 13, `VECS2..4` 14..16: VECS n at 13 + n (i915
/// `intel_gt_regs.h`).
pub const fn grdom_vecs(n: u32) -> u32 {
    1 << (13 + n)
}
/// `GEN11_GRDOM_FULL` bit 0 (i915 `intel_gt_regs.h`): resets every engine
/// too.
pub const GRDOM_FULL: u32 = 1 << 0;

/// Every engine an Xe-HPG part can have (bases: seed 004 L1006-1023).
#[rustfmt::skip]
pub const ENGINES: [EngineDef; 18] = {
    use Class::*;
    [
        def("rcs0", Render, 0, 0x0000_2000, GRDOM_RENDER),
        def("bcs0", Copy, 0, 0x0002_2000, GRDOM_BLT),
        def("ccs0", Compute, 0, 0x0001_A000, GRDOM_RENDER),
        def("ccs1", Compute, 1, 0x0001_C000, GRDOM_RENDER),
        def("ccs2", Compute, 2, 0x0001_E000, GRDOM_RENDER),
        def("ccs3", Compute, 3, 0x0002_6000, GRDOM_RENDER),
        def("vcs0", VideoDecode, 0, 0x001C_0000, grdom_media(0)),
        def("vcs1", VideoDecode, 1, 0x001C_4000, grdom_media(1)),
        def("vcs2", VideoDecode, 2, 0x001D_0000, grdom_media(2)),
        def("vcs3", VideoDecode, 3, 0x001D_4000, grdom_media(3)),
        def("vcs4", VideoDecode, 4, 0x001E_0000, grdom_media(4)),
        def("vcs5", VideoDecode, 5, 0x001E_4000, grdom_media(5)),
        def("vcs6", VideoDecode, 6, 0x001F_0000, grdom_media(6)),
        def("vcs7", VideoDecode, 7, 0x001F_4000, grdom_media(7)),
        def("vecs0", VideoEnhance, 0, 0x001C_8000, grdom_vecs(0)),
        def("vecs1", VideoEnhance, 1, 0x001D_8000, grdom_vecs(1)),
        def("vecs2", VideoEnhance, 2, 0x001E_8000, grdom_vecs(2)),
        def("vecs3", VideoEnhance, 3, 0x001F_8000, grdom_vecs(3)),
    ]
};

/// Size of an engine's register window in the mock (`[MODEL]`: the highest
/// modelled register is `CS_GPR` at 0x67c).
pub const WINDOW: u32 = 0x1000;

/// Register offsets from the engine base.
pub mod reg {
    /// `RING_TAIL` (`xe_engine_regs.h`; seed 004 L1784).
    pub const RING_TAIL: u32 = 0x30;
    /// `RING_HEAD` (`xe_engine_regs.h`; seed 004 L1783).
    pub const RING_HEAD: u32 = 0x34;
    /// `RING_START` (`xe_engine_regs.h`; seed 004 L1785).
    pub const RING_START: u32 = 0x38;
    /// `RING_CTL` (`xe_engine_regs.h`; seed 004 L1786).
    pub const RING_CTL: u32 = 0x3c;
    /// `RING_IPEHR` (`xe_engine_regs.h`; seed 004 L1842).
    pub const RING_IPEHR: u32 = 0x68;
    /// `RING_ACTHD` (`xe_engine_regs.h`).
    pub const RING_ACTHD: u32 = 0x74;
    /// `RING_HWS_PGA` (`xe_engine_regs.h`; seed 004 L401, L1576).
    pub const RING_HWS_PGA: u32 = 0x80;
    /// `RING_NOPID` (seed 004 L1579).
    pub const RING_NOPID: u32 = 0x94;
    /// `RING_HWSTAM` (`xe_engine_regs.h`; seed 004 L1580).
    pub const RING_HWSTAM: u32 = 0x98;
    /// `RING_MI_MODE` (`xe_engine_regs.h`; seed 004 L1831).
    pub const RING_MI_MODE: u32 = 0x9c;
    /// `RING_INT_SRC_RPT_PTR` (`xe_engine_regs.h`; seed 004 L1825).
    pub const RING_INT_SRC_RPT_PTR: u32 = 0xa4;
    /// `RING_IMR` (`xe_engine_regs.h`; seed 004 L1697).
    pub const RING_IMR: u32 = 0xa8;
    /// `RING_INT_STATUS_RPT_PTR` (`xe_engine_regs.h`; seed 004 L1824).
    pub const RING_INT_STATUS_RPT_PTR: u32 = 0xac;
    /// `RING_EIR` (i915 `intel_engine_regs.h`; seed 004 L1698).
    pub const RING_EIR: u32 = 0xb0;
    /// `RING_EMR` (i915 `intel_engine_regs.h`; seed 004 L1699).
    pub const RING_EMR: u32 = 0xb4;
    /// `RING_ESR` (i915 `intel_engine_regs.h`; named seed 004 L458).
    pub const RING_ESR: u32 = 0xb8;
    /// `RING_RESET_CTL` (i915 `intel_engine_regs.h`).
    pub const RING_RESET_CTL: u32 = 0xd0;
    /// `RING_EXECLIST_STATUS_LO` (`xe_engine_regs.h`; seed 004 L1730).
    pub const RING_EXECLIST_STATUS_LO: u32 = 0x234;
    /// `RING_EXECLIST_STATUS_HI` (`xe_engine_regs.h`).
    pub const RING_EXECLIST_STATUS_HI: u32 = 0x238;
    /// `RING_CURRENT_LRCA` (`xe_engine_regs.h`).
    pub const RING_CURRENT_LRCA: u32 = 0x240;
    /// `RING_CONTEXT_CONTROL` (`xe_engine_regs.h`; seed 004 L1782).
    pub const RING_CONTEXT_CONTROL: u32 = 0x244;
    /// `RING_MODE` / `GFX_MODE` (`xe_engine_regs.h`; seed 004 L1575).
    pub const RING_MODE: u32 = 0x29c;
    /// First CSB mirror block, entries 0-5 (i915 `intel_lrc_reg.h`
    /// `GEN8_EXECLISTS_STATUS_BUF`; seed 004 L1724).
    pub const CSB_BUF: u32 = 0x370;
    /// `RING_CONTEXT_STATUS_PTR` (i915 `intel_engine_regs.h`; seed 004
    /// L1723).
    pub const RING_CONTEXT_STATUS_PTR: u32 = 0x3a0;
    /// `RING_CTX_TIMESTAMP` (`xe_engine_regs.h`; `CS_CTX_TIMESTAMP` at
    /// +0x3A8 of every engine, seed 004 L1088, L1102, L1107).
    pub const RING_CTX_TIMESTAMP: u32 = 0x3a8;
    /// `PR_CTR_CTRL`, the context's watchdog counter control
    /// (`xe_engine_regs.h`; in the context image, seed 004 L1832).
    pub const PR_CTR_CTRL: u32 = 0x178;
    /// `PR_CTR_THRSH`, its threshold (`xe_engine_regs.h`; seed 004 L1833).
    pub const PR_CTR_THRSH: u32 = 0x17c;
    /// Second CSB mirror block, entries 6-11 (i915 `intel_lrc_reg.h`
    /// `GEN11_EXECLISTS_STATUS_BUF2`; seed 004 L1725).
    pub const CSB_BUF2: u32 = 0x3c0;
    /// `RING_EXECLIST_SQ_CONTENTS_LO(0)` (`xe_engine_regs.h`; seed 004
    /// L1740): element n lo at +8n, hi at +8n+4.
    pub const SQ_CONTENTS: u32 = 0x510;
    /// `RING_EXECLIST_CONTROL` (`xe_engine_regs.h`).
    pub const RING_EXECLIST_CONTROL: u32 = 0x550;
    /// `RING_CMD_CCTL` (`xe_engine_regs.h`, masked; seed 004 L1583
    /// `CMD_CCTL_0`): cache control of command fetches.
    pub const RING_CMD_CCTL: u32 = 0xc4;
    /// `CS_DEBUG_MODE1` (`xe_engine_regs.h`, masked).
    pub const CS_DEBUG_MODE1: u32 = 0xec;
    /// `RING_FORCE_TO_NONPRIV(0..11)` (`xe_engine_regs.h`; seed 004 L1601
    /// `RCS_FORCE_TO_NONPRIV_0_11`): the registers a non-privileged batch
    /// may access.
    pub const FORCE_TO_NONPRIV: u32 = 0x4d0;
    /// End of the `FORCE_TO_NONPRIV` slots (exclusive).
    pub const FORCE_TO_NONPRIV_END: u32 = 0x500;
    /// `CS_GPR` R0..R15, 64 bits each (seed 004 L1348, L1841).
    pub const CS_GPR: u32 = 0x600;
    /// End of `CS_GPR` (exclusive).
    pub const CS_GPR_END: u32 = 0x680;
}

/// `STOP_RING` (i915 `intel_engine_regs.h`).
pub const STOP_RING: u32 = 1 << 8;
/// `MODE_IDLE` (i915 `intel_engine_regs.h`).
pub const MODE_IDLE: u32 = 1 << 9;
/// `RESET_CTL_REQUEST_RESET` (i915 `intel_engine_regs.h`).
pub const REQUEST_RESET: u32 = 1 << 0;
/// `RESET_CTL_READY_TO_RESET` (i915 `intel_engine_regs.h`).
pub const READY_TO_RESET: u32 = 1 << 1;
/// `GFX_DISABLE_LEGACY_MODE` (`xe_engine_regs.h`; the Execlist Enable of
/// seed 004 L118).
pub const DISABLE_LEGACY_MODE: u32 = 1 << 3;
/// `EL_CTRL_LOAD` (`xe_engine_regs.h`; the Load bit of seed 004 L126).
pub const EL_CTRL_LOAD: u32 = 1 << 0;
/// `I915_ERROR_INSTRUCTION` (i915 `i915_reg.h`).
pub const ERROR_INSTRUCTION: u32 = 1 << 0;
/// `I915_ERROR_PAGE_TABLE` (i915 `i915_reg.h`).
pub const ERROR_PAGE_TABLE: u32 = 1 << 4;
/// Engine interrupt vector bit 0, user interrupt (seed 004 L433).
pub const IRQ_USER: u16 = 1 << 0;
/// Engine interrupt vector bit 3, CS (primary) error (seed 004 L431; i915
/// `GT_CS_MASTER_ERROR_INTERRUPT`).
pub const IRQ_CS_ERROR: u16 = 1 << 3;
/// Engine interrupt vector bit 6, watchdog expired (seed 000 L2280).
pub const IRQ_WATCHDOG: u16 = 1 << 6;
/// Engine interrupt vector bit 8, context switch (seed 004 L426).
pub const IRQ_CONTEXT_SWITCH: u16 = 1 << 8;
/// The CSB's idle context ID (seed 004 L277-281; i915 `XEHP_IDLE_CTX_ID`).
pub const IDLE_CTX_ID: u16 = 0xffff;

/// The name of engine register `rel` (offset from the base), if the mock
/// models one there.
pub fn reg_name(rel: u32) -> Option<&'static str> {
    use reg::*;
    let n = match rel {
        RING_TAIL => "RING_TAIL",
        RING_HEAD => "RING_HEAD",
        RING_START => "RING_START",
        RING_CTL => "RING_CTL",
        RING_IPEHR => "RING_IPEHR",
        RING_ACTHD => "RING_ACTHD",
        RING_HWS_PGA => "RING_HWS_PGA",
        RING_NOPID => "RING_NOPID",
        RING_HWSTAM => "RING_HWSTAM",
        RING_MI_MODE => "RING_MI_MODE",
        RING_IMR => "RING_IMR",
        RING_EIR => "RING_EIR",
        RING_EMR => "RING_EMR",
        RING_ESR => "RING_ESR",
        RING_RESET_CTL => "RING_RESET_CTL",
        RING_EXECLIST_STATUS_LO => "RING_EXECLIST_STATUS_LO",
        RING_EXECLIST_STATUS_HI => "RING_EXECLIST_STATUS_HI",
        RING_CURRENT_LRCA => "RING_CURRENT_LRCA",
        RING_CONTEXT_CONTROL => "RING_CONTEXT_CONTROL",
        RING_MODE => "RING_MODE",
        RING_CONTEXT_STATUS_PTR => "RING_CONTEXT_STATUS_PTR",
        RING_CTX_TIMESTAMP => "RING_CTX_TIMESTAMP",
        RING_EXECLIST_CONTROL => "RING_EXECLIST_CONTROL",
        RING_CMD_CCTL => "RING_CMD_CCTL",
        CS_DEBUG_MODE1 => "CS_DEBUG_MODE1",
        o if (FORCE_TO_NONPRIV..FORCE_TO_NONPRIV_END).contains(&o) => "RING_FORCE_TO_NONPRIV",
        o if (CSB_BUF..CSB_BUF + 0x30).contains(&o) || (CSB_BUF2..CSB_BUF2 + 0x30).contains(&o) => {
            "CTXT_ST_BUF"
        }
        o if (SQ_CONTENTS..SQ_CONTENTS + 0x40).contains(&o) => "RING_EXECLIST_SQ_CONTENTS",
        o if (CS_GPR..CS_GPR_END).contains(&o) => "CS_GPR",
        _ => return None,
    };
    Some(n)
}

/// The engine whose window holds `offset` (any engine, present or not),
/// and the offset from its base.
pub fn window_of(offset: u32) -> Option<(&'static EngineDef, u32)> {
    ENGINES.iter().find_map(|d| {
        let rel = offset.checked_sub(d.base)?;
        (rel < WINDOW).then_some((d, rel))
    })
}

/// Whether the fuses leave engine `d` (module docs).
pub fn present(fuses: &Fuses, d: &EngineDef) -> bool {
    let i = u32::from(d.src.instance);
    match d.src.class {
        Class::Render | Class::Copy => true,
        // CAST: an instance, below 8.
        Class::Compute => fuses.quadrant_dss_enabled(i as usize),
        Class::VideoDecode => crate::regs::fuse::VDBOX.get(fuses.media.into()) >> i & 1 != 0,
        Class::VideoEnhance => crate::regs::fuse::VEBOX.get(fuses.media.into()) >> i & 1 != 0,
        Class::Other => false,
    }
}

/// A test-control fault switch of an engine (`engine:FAULT:NAME`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EngineFault {
    /// `engine:hang:NAME`: the next context started stops at its first
    /// command and never progresses.
    Hang,
    /// `engine:csb-lost:NAME`: the next CSB entry that switches a context
    /// out is not written.
    CsbLost,
    /// `engine:reset-fails:NAME`: the next context started hangs as under
    /// `hang`, and the GuC's engine reset of it fails
    /// ([`Engines::guc_reset`] returns false; `[MODEL]`: the engine never
    /// reaches ready-to-reset, so the GuC gives up; what the firmware then
    /// does is in `regfile/guc/ct/submit.rs`, "Scheduling"). A host `GDRST`
    /// reset of the engine still works.
    ResetFails,
}

impl EngineFault {
    /// Every fault switch (the control grammar's list).
    pub const ALL: [EngineFault; 3] = [
        EngineFault::Hang,
        EngineFault::CsbLost,
        EngineFault::ResetFails,
    ];

    /// The name in the request and the trace.
    pub const fn name(self) -> &'static str {
        match self {
            EngineFault::Hang => "hang",
            EngineFault::CsbLost => "csb-lost",
            EngineFault::ResetFails => "reset-fails",
        }
    }

    /// The fault called `name`.
    pub fn from_name(name: &str) -> Option<EngineFault> {
        EngineFault::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// One element of the execution queue: a valid context descriptor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Element {
    /// The descriptor.
    pub desc: u64,
    /// The PCI function whose context it is: 0 the PF's, `n` VF `n`'s. The
    /// host's execlists submit the PF's only; the GuC names the owner of
    /// what it Loads (`[MODEL]`: how the firmware tells the hardware is not
    /// published).
    pub func: u32,
}

impl Element {
    /// LRCA: descriptor bits 31:12 (seed004.md §3.4, i915 `intel_lrc.h`,
    /// xe `xe_lrc.c` `CTX_GTT_ADDRESS_MASK`).
    pub fn lrca(self) -> u32 {
        // CAST: the low dword.
        (self.desc as u32) & !0xfff
    }

    /// SW context ID: descriptor bits 54:39 (seed 004 L166-177; xe
    /// `__start_lrc` `GENMASK_ULL(54, 39)`).
    pub fn ctx_id(self) -> u16 {
        // CAST: 16 bits.
        ((self.desc >> 39) & 0xffff) as u16
    }

    /// Valid: descriptor bit 0 (i915 `GEN8_CTX_VALID`).
    pub fn valid(desc: u64) -> bool {
        desc & 1 != 0
    }
}

/// The ring registers of a context.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Ring {
    /// `RING_TAIL`.
    pub tail: u32,
    /// `RING_HEAD`.
    pub head: u32,
    /// `RING_START`.
    pub start: u32,
    /// `RING_CTL`.
    pub ctl: u32,
}

/// `HEAD_ADDR` (i915 `intel_engine_regs.h`).
pub const HEAD_ADDR: u32 = 0x001F_FFFC;
/// `TAIL_ADDR` (i915 `intel_engine_regs.h`).
pub const TAIL_ADDR: u32 = 0x001F_FFF8;
/// `RING_NR_PAGES` (i915 `intel_engine_regs.h`): pages - 1 in bits 20:12.
pub const RING_NR_PAGES: u32 = 0x001F_F000;
/// `RING_VALID` (`xe_engine_regs.h`).
pub const RING_VALID: u32 = 1 << 0;

impl Ring {
    /// Ring size in bytes from `RING_CTL` (`RING_CTL_SIZE(size) = size -
    /// PAGE_SIZE`, i915 `intel_engine_regs.h`).
    pub fn size(&self) -> u32 {
        (self.ctl & RING_NR_PAGES) + 4096
    }
}

/// A semaphore wait the context is blocked on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SemWait {
    /// GGTT address polled.
    pub addr: u64,
    /// Inline data (SDD).
    pub data: u32,
    /// Compare operation (header bits 14:12).
    pub op: u32,
}

/// The context an engine is executing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Context {
    /// Its element.
    pub el: Element,
    /// Ring registers.
    pub ring: Ring,
    /// `RING_CONTEXT_CONTROL` as restored (masked bits applied).
    pub context_control: u32,
    /// Where HEAD and TAIL are saved in the image ([`lrc`]).
    pub slots: lrc::Slots,
    /// Its memory-based interrupt setup, as restored ([`lrc`]).
    pub memirq: lrc::MemIrq,
    /// The interrupt enable mask loaded from `memirq.enable_at` at the
    /// restore (0 without one).
    pub irq_enable: u32,
    /// Batch buffer levels: the GGTT address of the next command of each
    /// (first-level, second-level); empty in the ring.
    pub batch: Vec<u64>,
    /// An unsatisfied `MI_SEMAPHORE_WAIT`.
    pub wait: Option<SemWait>,
    /// Stopped by an engine error: no progress until a reset.
    pub halted: bool,
    /// Under `engine:hang`: stopped at its first command for ever.
    pub hung: bool,
    /// Under `engine:reset-fails` (hung too): the GuC's engine reset of it
    /// fails.
    pub reset_fails: bool,
    /// `MI_ARB_ON_OFF` state (recorded; preemption is immediate in this
    /// model, [`cs`]).
    pub arb: bool,
    /// Its watchdog counter ([`cs`], "The watchdog").
    pub watchdog: Watchdog,
}

/// A context's watchdog counter as its commands program it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Watchdog {
    /// Counting: `PR_CTR_CTRL` written with `CTR_LOGIC_OP(START)`.
    pub started: bool,
    /// `PR_CTR_THRSH`.
    pub threshold: u32,
}

/// What engine operations produce besides register state.
pub struct Io<'a> {
    /// The recorder.
    pub rec: &'a mut Recorder,
    /// The device's memory.
    pub bus: &'a mut dyn Bus,
    /// Interrupts to deliver: (source, vector bits).
    pub irqs: &'a mut Vec<(Source, u16)>,
    /// VFs whose memory-based interrupt an engine reported, to trigger.
    pub vf_irqs: &'a mut BTreeSet<u32>,
}

impl Io<'_> {
    /// Reads `buf.len()` bytes at GGTT address `gaddr` (only through the
    /// GGTT, spec "Execution").
    pub fn read(&mut self, gaddr: u64, buf: &mut [u8], what: &str) -> Result<(), Fault> {
        let mut tlb = Tlb::default();
        Gtt::engine(self.bus, &mut tlb).read(gaddr, buf, what, self.rec)
    }

    /// Reads the dword at `gaddr`.
    pub fn read_u32(&mut self, gaddr: u64, what: &str) -> Result<u32, Fault> {
        let mut b = [0u8; 4];
        self.read(gaddr, &mut b, what)?;
        Ok(u32::from_le_bytes(b))
    }

    /// Writes `buf` at GGTT address `gaddr`.
    pub fn write(&mut self, gaddr: u64, buf: &[u8], what: &str) -> Result<(), Fault> {
        let mut tlb = Tlb::default();
        Gtt::engine(self.bus, &mut tlb).write(gaddr, buf, what, self.rec)
    }

    /// Fills `len` bytes at GGTT address `gaddr` with the dword `value`.
    pub fn fill(&mut self, gaddr: u64, len: u64, value: u32, what: &str) -> Result<(), Fault> {
        let mut tlb = Tlb::default();
        Gtt::engine(self.bus, &mut tlb).fill(gaddr, len, value, what, self.rec)
    }

    /// The physical pieces behind `len` bytes at GGTT address `gaddr`,
    /// each checked reachable: (memory, address, length).
    pub fn segments(
        &mut self,
        gaddr: u64,
        len: u64,
        what: &str,
    ) -> Result<Vec<(Target, u64, u64)>, Fault> {
        let mut tlb = Tlb::default();
        Gtt::engine(self.bus, &mut tlb).segments(gaddr, len, what, self.rec)
    }
}

/// One present engine.
#[derive(Debug, Clone)]
pub struct Engine {
    /// Which.
    pub def: &'static EngineDef,
    /// `RING_*` values written, and the last context's when idle.
    pub ring: Ring,
    hws_pga: u32,
    nopid: u32,
    hwstam: u32,
    mi_mode: u32,
    imr: u32,
    eir: u32,
    emr: u32,
    esr: u32,
    ipehr: u32,
    acthd: u32,
    reset_ctl: u32,
    ring_mode: u32,
    context_control: u32,
    gpr: [u32; 32],
    sq: [u32; 16],
    /// `RING_CMD_CCTL`, `CS_DEBUG_MODE1` and `RING_FORCE_TO_NONPRIV`:
    /// storage (module docs, "Storage registers").
    storage: Storage,
    /// The CSB pointers and mirror.
    pub csb: csb::Csb,
    /// Elements of the execution queue not yet started.
    pub eq: VecDeque<Element>,
    /// The context executing.
    pub active: Option<Context>,
    /// Batch positions of contexts switched out inside a batch, by LRCA
    /// (`[MODEL]`: the hardware saves them in the image, `RING_BBADDR`
    /// and `RING_BBSTATE`, seed 004 L1787-1789; the mock keeps them
    /// itself, so only HEAD and TAIL are written back).
    batches: HashMap<u32, Vec<u64>>,
    hang_next: bool,
    csb_lost_next: bool,
    /// `engine:reset-fails` armed: the next context hangs and the GuC's
    /// reset of it fails.
    reset_fails_next: bool,
    /// Who made the last Load: its status goes there.
    submitter: Submitter,
    /// Context-status entries for the GuC (its CSB read port, seed 000
    /// L1247-1279), not yet taken ([`Engines::take_guc_status`]).
    guc_csb: Vec<u64>,
    /// `RCU_MODE.RCU_MODE_CCS_ENABLE` as last set ([`Engines::set_rcu_mode`]):
    /// a CCS runs nothing without it.
    ccs_enabled: bool,
}

/// Who loaded the engine's queue: the host through the ELSP registers, or
/// the GuC scheduling a context (`regfile/guc/submit.rs`).
///
/// The rule (seed 000
/// L1247-1279: with GuC submission the context status is "reported to the
/// GuC"): the submitter of a Load receives its status. Host Loads write the
/// CSB into the HWSP at `RING_HWS_PGA` and raise the context-switch
/// interrupt; GuC Loads hand the entries to the GuC and raise nothing at
/// the host. User interrupts reach the host either way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Submitter {
    /// `RING_EXECLIST_CONTROL.EL_CTRL_LOAD`.
    #[default]
    Host,
    /// The GuC's scheduler.
    Guc,
}

impl Engine {
    fn new(def: &'static EngineDef) -> Self {
        Self {
            def,
            ring: Ring::default(),
            hws_pga: 0,
            nopid: 0,
            hwstam: 0,
            mi_mode: 0,
            imr: 0,
            eir: 0,
            // [MODEL] Reset 0: every error reported in EIR until the driver
            // masks some (the seeds give no reset value).
            emr: 0,
            esr: 0,
            ipehr: 0,
            acthd: 0,
            reset_ctl: 0,
            ring_mode: 0,
            context_control: 0,
            gpr: [0; 32],
            storage: Storage::default(),
            sq: [0; 16],
            csb: csb::Csb::default(),
            eq: VecDeque::new(),
            active: None,
            batches: HashMap::new(),
            hang_next: false,
            csb_lost_next: false,
            reset_fails_next: false,
            submitter: Submitter::Host,
            guc_csb: Vec::new(),
            ccs_enabled: false,
        }
    }

    /// Who made the last Load.
    pub fn submitter(&self) -> Submitter {
        self.submitter
    }

    /// Whether the active context makes no progress: hung
    /// (`engine:hang`), halted by an error, or blocked on an unsatisfied
    /// semaphore (what the GuC's preemption timeout looks for).
    pub fn stalled(&self) -> bool {
        self.active
            .as_ref()
            .is_some_and(|c| c.hung || c.halted || c.wait.is_some())
    }

    /// Whether the active context can never reach a preemption point:
    /// hung or halted (a semaphore wait can be preempted).
    pub fn stuck_hard(&self) -> bool {
        self.active.as_ref().is_some_and(|c| c.hung || c.halted)
    }

    /// A Load by the GuC of the single context `desc` (its descriptor, the
    /// SW context ID chosen by the GuC), with the status going to the GuC.
    ///
    /// The GuC writes the ELSQ of an engine the host set up
    /// ([`Engine::guc_blocker`]); on an engine that is not, the Load is
    /// traced `engine_blocked`, counted, and nothing runs (false).
    pub fn guc_load(&mut self, desc: u64, func: u32, io: &mut Io<'_>) -> bool {
        if let Some(reason) = self.guc_blocker() {
            self.blocked(desc, reason, io);
            return false;
        }
        self.submitter = Submitter::Guc;
        self.start_queue(VecDeque::from([Element { desc, func }]), io);
        true
    }

    /// Why a GuC Load cannot run here, if it cannot:
    ///
    /// - `legacy_mode`: `RING_MODE.GFX_DISABLE_LEGACY_MODE` clear. Seed 004
    ///   L118: execlists "cannot be used" without it, and under GuC
    ///   submission the GuC drives the same ELSQ; the host sets it
    ///   (`xe_hw_engine.c` "Disable engine 'legacy' mode", applied by
    ///   `xe_hw_engine_enable_ring`; i915 `intel_guc_submission.c`
    ///   `guc_resume` -> `start_engine`).
    /// - `no_hws_pga`: `RING_HWS_PGA` 0: the host gives each engine its
    ///   status page (`xe_hw_engine.c` `xe_hw_engine_enable_ring`; i915
    ///   `setup_hwsp`). `[MODEL]`: what the CS does with a status page at
    ///   GGTT 0 is not in the seeds; the stricter reading, no progress.
    /// - `ccs_disabled`: a CCS while `RCU_MODE.RCU_MODE_CCS_ENABLE` is
    ///   clear (`xe_hw_engine.c` "Enable CCS Engine(s)", graphics 12.55+;
    ///   `regs/xe_gt_regs.h` `RCU_MODE` bit 0), either submitter.
    pub fn guc_blocker(&self) -> Option<&'static str> {
        if self.ring_mode & DISABLE_LEGACY_MODE == 0 {
            Some("legacy_mode")
        } else if self.hws_pga == 0 {
            Some("no_hws_pga")
        } else {
            self.ccs_blocker()
        }
    }

    /// `ccs_disabled` for a CCS without `RCU_MODE` CCS enable.
    fn ccs_blocker(&self) -> Option<&'static str> {
        (self.def.src.class == Class::Compute && !self.ccs_enabled).then_some("ccs_disabled")
    }

    /// Traces and counts a Load that cannot run.
    fn blocked(&mut self, desc: u64, reason: &'static str, io: &mut Io<'_>) {
        io.rec.emit(Event::EngineBlocked {
            engine: self.def.name,
            lrca: Hex(desc & 0xffff_f000),
            reason,
        });
    }

    /// The register read at `rel`; `None` if none is modelled there.
    pub fn read(&self, rel: u32) -> Option<u32> {
        use reg::*;
        let ring = self.active.as_ref().map_or(self.ring, |c| c.ring);
        let v = match rel {
            RING_TAIL => ring.tail,
            RING_HEAD => ring.head,
            RING_START => ring.start,
            RING_CTL => ring.ctl,
            RING_IPEHR => self.ipehr,
            RING_ACTHD => self.acthd,
            RING_HWS_PGA => self.hws_pga,
            RING_NOPID => self.nopid,
            RING_HWSTAM => self.hwstam,
            // [MODEL] Commands execute whole, so the engine is always
            // between commands: MODE_IDLE follows STOP_RING.
            RING_MI_MODE => {
                self.mi_mode
                    | if self.mi_mode & STOP_RING != 0 {
                        MODE_IDLE
                    } else {
                        0
                    }
            }
            RING_IMR => self.imr,
            RING_EIR => self.eir,
            RING_EMR => self.emr,
            RING_ESR => self.esr,
            // [MODEL] READY_TO_RESET follows REQUEST_RESET: the engine is
            // always at a command boundary, halted or hung (spec).
            RING_RESET_CTL => {
                let req = self.reset_ctl & REQUEST_RESET;
                req | if req != 0 { READY_TO_RESET } else { 0 }
            }
            RING_EXECLIST_STATUS_LO => u32::from(self.active.is_some()),
            RING_EXECLIST_STATUS_HI => self
                .active
                .as_ref()
                .map_or(u32::from(IDLE_CTX_ID), |c| u32::from(c.el.ctx_id())),
            RING_CURRENT_LRCA => self.active.as_ref().map_or(0, |c| c.el.lrca()),
            RING_CONTEXT_CONTROL => self
                .active
                .as_ref()
                .map_or(self.context_control, |c| c.context_control),
            RING_MODE => self.ring_mode,
            RING_CONTEXT_STATUS_PTR => self.csb.ptr_reg(),
            // [MODEL] The mock keeps no context time: the counter stays 0,
            // so a job's start stamp (xe's `emit_copy_timestamp`) equals
            // every later sample and xe sees no run time.
            RING_CTX_TIMESTAMP => 0,
            RING_EXECLIST_CONTROL => 0,
            o if (CSB_BUF..CSB_BUF + 0x30).contains(&o) => self.csb.mirror_dword((o - CSB_BUF) / 4),
            o if (CSB_BUF2..CSB_BUF2 + 0x30).contains(&o) => {
                self.csb.mirror_dword(12 + (o - CSB_BUF2) / 4)
            }
            o if (SQ_CONTENTS..SQ_CONTENTS + 0x40).contains(&o) => {
                self.sq[dw_index(o, SQ_CONTENTS)]
            }
            o if (CS_GPR..CS_GPR_END).contains(&o) => self.gpr[dw_index(o, CS_GPR)],
            o => return self.storage.read(o),
        };
        Some(v)
    }

    /// Writes the register at `rel`; `None` if none is modelled there.
    pub fn write(&mut self, rel: u32, value: u32, io: &mut Io<'_>) -> Option<()> {
        use reg::*;
        let is_masked = matches!(
            rel,
            RING_MI_MODE
                | RING_RESET_CTL
                | RING_CONTEXT_CONTROL
                | RING_MODE
                | RING_CONTEXT_STATUS_PTR
        );
        if is_masked && value >> 16 == 0 {
            // A masked register written without enable bits changes nothing
            // (the forcewake model's rule, `regfile/forcewake.rs`).
            self.violation(
                io,
                "masked_write_no_mask",
                format!(
                    "{} is masked (bits 31:16 enable 15:0); {value:#x} changes nothing",
                    reg_name(rel).unwrap_or("?")
                ),
            );
        }
        match rel {
            RING_TAIL => self.ring.tail = value,
            RING_HEAD => self.ring.head = value,
            RING_START => self.ring.start = value,
            RING_CTL => self.ring.ctl = value,
            RING_HWS_PGA => {
                if value & 0xfff != 0 {
                    self.violation(
                        io,
                        "engine_hwsp_unaligned",
                        format!("RING_HWS_PGA {value:#x} is not 4 KiB aligned (bits 31:12)"),
                    );
                }
                self.hws_pga = value & !0xfff;
            }
            RING_NOPID => self.nopid = value,
            RING_HWSTAM => self.hwstam = value,
            RING_MI_MODE => self.mi_mode = masked(self.mi_mode, value) & !MODE_IDLE,
            RING_IMR => self.imr = value,
            RING_EIR => self.eir &= !value,
            RING_EMR => self.emr = value,
            // [MODEL] The counter stays 0 (read above): a write is taken
            // and has no effect.
            RING_CTX_TIMESTAMP => {}
            RING_IPEHR
            | RING_ACTHD
            | RING_ESR
            | RING_EXECLIST_STATUS_LO
            | RING_EXECLIST_STATUS_HI
            | RING_CURRENT_LRCA => {
                self.violation(
                    io,
                    "read_only_write",
                    format!(
                        "{} is read-only (wrote {value:#x})",
                        reg_name(rel).unwrap_or("?")
                    ),
                );
            }
            RING_RESET_CTL => self.reset_ctl = masked(self.reset_ctl, value) & REQUEST_RESET,
            RING_CONTEXT_CONTROL => {
                let cc = self
                    .active
                    .as_ref()
                    .map_or(self.context_control, |c| c.context_control);
                let cc = masked(cc, value);
                match self.active.as_mut() {
                    Some(c) => c.context_control = cc,
                    None => self.context_control = cc,
                }
            }
            RING_MODE => self.ring_mode = masked(self.ring_mode, value),
            RING_CONTEXT_STATUS_PTR => self.csb.write_ptr_reg(value),
            RING_EXECLIST_CONTROL => {
                if value & EL_CTRL_LOAD != 0 {
                    self.load(io);
                }
            }
            o if (CSB_BUF..CSB_BUF + 0x30).contains(&o)
                || (CSB_BUF2..CSB_BUF2 + 0x30).contains(&o) =>
            {
                self.violation(
                    io,
                    "read_only_write",
                    format!("the CSB mirror (+{o:#x}) is read-only (wrote {value:#x})"),
                );
            }
            o if (SQ_CONTENTS..SQ_CONTENTS + 0x40).contains(&o) => {
                self.sq[dw_index(o, SQ_CONTENTS)] = value;
            }
            o if (CS_GPR..CS_GPR_END).contains(&o) => self.gpr[dw_index(o, CS_GPR)] = value,
            o => return self.storage.write(o, value),
        }
        Some(())
    }

    /// Whether `rel` is one of the window's storage registers
    /// (`RING_CMD_CCTL`, `CS_DEBUG_MODE1`, `RING_FORCE_TO_NONPRIV`), which a
    /// privileged command may write.
    pub fn is_storage(&self, rel: u32) -> bool {
        self.storage.read(rel).is_some()
    }

    /// A command's write to a storage register (`LRI`, `LRR`; checked with
    /// [`Engine::is_storage`]): as the host's.
    pub fn write_storage(&mut self, rel: u32, value: u32) {
        // Any other `rel` was refused before the command ran.
        let _ = self.storage.write(rel, value);
    }

    /// A rule the driver broke on this engine.
    fn violation(&self, io: &mut Io<'_>, kind: &'static str, detail: String) {
        io.rec.emit(Event::EngineViolation {
            engine: self.def.name,
            kind,
            detail,
        });
    }

    /// Queues an interrupt of this engine: the PF's by its interrupt
    /// registers, a VF context's by memory ("Memory-based interrupts").
    pub(crate) fn irq(&self, io: &mut Io<'_>, bits: u16) {
        match self.active.as_ref().filter(|c| c.el.func != 0) {
            Some(c) => self.memirq(c, bits, io),
            None => io.irqs.push((self.def.src, bits)),
        }
    }

    /// Reports `bits` of VF context `c` through memory (module docs,
    /// "Memory-based interrupts") and asks for the VF's interrupt.
    fn memirq(&self, c: &Context, bits: u16, io: &mut Io<'_>) {
        let vf = c.el.func;
        // CAST: the enable mask's low 16 bits are the engine's vector.
        let bits = bits & c.irq_enable as u16;
        let (Some(status), Some(source), Some(slot), true) = (
            c.memirq.status,
            c.memirq.source,
            report_slot(self.def.src),
            bits != 0,
        ) else {
            io.rec.emit(Event::EngineMemirq {
                engine: self.def.name,
                vf,
                bits: Hex(bits.into()),
                enable: Hex(c.irq_enable.into()),
                outcome: "dropped",
            });
            return;
        };
        let status = u64::from(status) + 16 * u64::from(slot);
        let mut writes: Vec<u64> = (0..16u64)
            .filter(|b| bits & 1 << b != 0)
            .map(|b| status + b)
            .collect();
        writes.push(u64::from(source) + u64::from(slot));
        for a in writes {
            if let Err(f) = io.write(a, &[0xFF], "memory-based interrupt report") {
                self.violation(io, "engine_memirq_fault", format!("VF {vf}: {f}"));
                return;
            }
        }
        io.rec.emit(Event::EngineMemirq {
            engine: self.def.name,
            vf,
            bits: Hex(bits.into()),
            enable: Hex(c.irq_enable.into()),
            outcome: "reported",
        });
        io.vf_irqs.insert(vf);
    }

    /// The SQ elements with the valid bit, in order (seed 004 L126).
    fn sample_sq(&self) -> VecDeque<Element> {
        (0..8)
            .map(|n| u64::from(self.sq[2 * n]) | u64::from(self.sq[2 * n + 1]) << 32)
            .filter(|&d| Element::valid(d))
            .map(|desc| Element { desc, func: 0 })
            .collect()
    }

    /// `RING_EXECLIST_CONTROL.EL_CTRL_LOAD` (seed 004 L126-132; spec
    /// "Execution").
    fn load(&mut self, io: &mut Io<'_>) {
        let eq = self.sample_sq();
        let first = eq.front().copied();
        let ev = |action: &'static str| Event::EngineLoad {
            engine: self.def.name,
            // CAST: at most 8.
            elements: eq.len() as u32,
            ctx: Hex(first.map_or(u64::from(IDLE_CTX_ID), |e| u64::from(e.ctx_id()))),
            lrca: Hex(first.map_or(0, |e| u64::from(e.lrca()))),
            action,
        };
        if self.ring_mode & DISABLE_LEGACY_MODE == 0 {
            // Seed 004 L118: execlists "cannot be used" without Execlist
            // Enable in the engine's MODE register.
            let e = ev("ignored_disabled");
            io.rec.emit(e);
            self.violation(
                io,
                "engine_execlists_disabled",
                "Load while RING_MODE.GFX_DISABLE_LEGACY_MODE is clear; ignored".into(),
            );
            return;
        }
        if let Some(reason) = self.ccs_blocker() {
            let e = ev("ignored_ccs_disabled");
            io.rec.emit(e);
            self.blocked(first.map_or(0, |e| e.desc), reason, io);
            return;
        }
        self.submitter = Submitter::Host;
        self.start_queue(eq, io);
    }

    /// Takes `eq` as the new execution queue (seed 004 L126-132; spec
    /// "Execution"): start, lite restore or preemption.
    fn start_queue(&mut self, eq: VecDeque<Element>, io: &mut Io<'_>) {
        let first = eq.front().copied();
        let ev = |action: &'static str| Event::EngineLoad {
            engine: self.def.name,
            // CAST: at most 8.
            elements: eq.len() as u32,
            ctx: Hex(first.map_or(u64::from(IDLE_CTX_ID), |e| u64::from(e.ctx_id()))),
            lrca: Hex(first.map_or(0, |e| u64::from(e.lrca()))),
            action,
        };
        let Some(active) = self.active.as_ref() else {
            let e = ev(if first.is_some() { "start" } else { "empty" });
            io.rec.emit(e);
            self.eq = eq;
            if let Some(next) = self.eq.pop_front() {
                self.switch_in(None, next, true, 0, io);
                self.run(io);
            }
            return;
        };
        if active.halted || active.hung {
            // [MODEL] A halted or hung context never reaches a preemption
            // point: the new queue waits; only a reset recovers.
            let e = ev("held");
            io.rec.emit(e);
            self.eq = eq;
            return;
        }
        let away = active.el;
        match first {
            Some(f) if f.lrca() == away.lrca() => {
                // Lite restore (seed 004 L308): the running context picks up
                // its new TAIL from the image.
                let e = ev("lite_restore");
                io.rec.emit(e);
                self.eq = eq;
                self.eq.pop_front();
                self.lite_restore(f, io);
                self.run(io);
            }
            Some(_) => {
                // Preemption (seed 004 L132, row 5 L301-304): at once, the
                // model being always at a command boundary.
                let e = ev("preempt");
                io.rec.emit(e);
                self.eq = eq;
                self.save_out(io);
                if let Some(next) = self.eq.pop_front() {
                    self.switch_in(Some(away), next, true, 5, io);
                    self.run(io);
                }
            }
            None => {
                // An empty queue while busy: preempt to idle (row 2,
                // L287-290).
                let e = ev("preempt_to_idle");
                io.rec.emit(e);
                self.eq = eq;
                self.save_out(io);
                self.report(away.ctx_id(), IDLE_CTX_ID, true, 5, io);
            }
        }
    }

    /// Saves the active context into its image and drops it.
    fn save_out(&mut self, io: &mut Io<'_>) {
        if let Some(c) = self.active.take() {
            self.ring = c.ring;
            self.context_control = c.context_control;
            if c.batch.is_empty() {
                self.batches.remove(&c.el.lrca());
            } else {
                self.batches.insert(c.el.lrca(), c.batch.clone());
            }
            if let Err(f) = lrc::save(&c, io) {
                self.violation(io, "engine_context_save_fault", f.to_string());
            }
        }
    }

    /// Makes `next` active: reports the switch (away: `away`, or idle),
    /// then restores its image; a restore failure halts the engine with
    /// the context active.
    fn switch_in(
        &mut self,
        away: Option<Element>,
        next: Element,
        new_queue: bool,
        detail: u32,
        io: &mut Io<'_>,
    ) {
        let away_id = away.map_or(IDLE_CTX_ID, Element::ctx_id);
        self.report(away_id, next.ctx_id(), new_queue, detail, io);
        let reset_fails = std::mem::take(&mut self.reset_fails_next);
        let hung = std::mem::take(&mut self.hang_next) || reset_fails;
        if hung {
            let fault = if reset_fails {
                EngineFault::ResetFails
            } else {
                EngineFault::Hang
            };
            io.rec.emit(Event::EngineFault {
                engine: self.def.name,
                fault: fault.name(),
                action: "applied",
            });
        }
        let mut ctx = Context {
            el: next,
            ring: Ring::default(),
            context_control: 0,
            slots: lrc::Slots::default(),
            memirq: lrc::MemIrq::default(),
            irq_enable: 0,
            batch: Vec::new(),
            wait: None,
            halted: false,
            hung,
            reset_fails,
            arb: false,
            watchdog: Watchdog::default(),
        };
        match lrc::restore(self.def, next.lrca(), io) {
            Ok(r) => {
                ctx.ring = r.ring;
                ctx.context_control = r.context_control;
                ctx.slots = r.slots;
                ctx.memirq = r.memirq;
                if let Some(a) = r.memirq.enable_at.filter(|_| next.func != 0) {
                    ctx.irq_enable = io.read_u32(a, "interrupt enable mask").unwrap_or_else(|f| {
                        self.violation(io, "engine_memirq_fault", f.to_string());
                        0
                    });
                }
                ctx.batch = self.batches.remove(&next.lrca()).unwrap_or_default();
                self.ring = r.ring;
                self.active = Some(ctx);
                if let Some((hdr, why)) = cs::check_ring(&r.ring) {
                    self.error(
                        cs::ErrorKind::Instruction,
                        hdr,
                        u64::from(next.lrca()),
                        why,
                        io,
                    );
                }
            }
            Err(lrc::RestoreError {
                kind,
                at,
                header,
                why,
            }) => {
                self.active = Some(ctx);
                self.error(kind, header, at, why, io);
            }
        }
    }

    /// Lite restore of the active context from `el`'s image: TAIL only.
    fn lite_restore(&mut self, el: Element, io: &mut Io<'_>) {
        let id = el.ctx_id();
        self.report(id, id, true, 0, io);
        let Some(c) = self.active.as_mut() else {
            return;
        };
        c.el = el;
        match lrc::read_tail(&c.slots, io) {
            Ok(t) => {
                c.ring.tail = t & TAIL_ADDR;
                self.ring = c.ring;
                if let Some((hdr, why)) = cs::check_ring(&c.ring) {
                    self.error(
                        cs::ErrorKind::Instruction,
                        hdr,
                        u64::from(el.lrca()),
                        why,
                        io,
                    );
                }
            }
            Err(f) => {
                let at = u64::from(c.slots.tail.unwrap_or(el.lrca()));
                self.error(cs::ErrorKind::PageTable, 0, at, f.to_string(), io);
            }
        }
    }

    /// Writes one CSB entry (unless `engine:csb-lost` drops it) and raises
    /// the context-switch interrupt (seed 004 L264). The switch drops the
    /// next entry that switches a context out (`away` not idle): the one a
    /// driver needs to learn the context left the engine.
    fn report(&mut self, away: u16, to: u16, new_queue: bool, detail: u32, io: &mut Io<'_>) {
        let entry = csb::entry(self.def.src.instance, away, to, new_queue, detail);
        if self.submitter == Submitter::Guc {
            // The GuC loaded it: the entry is the GuC's, the host sees no
            // CSB write and no context-switch interrupt ([`Submitter`]).
            self.guc_csb.push(entry);
            io.rec.emit(Event::EngineSwitch {
                engine: self.def.name,
                away: Hex(away.into()),
                to: Hex(to.into()),
                new_queue,
                detail,
                index: None,
                lost: false,
                guc: true,
            });
            return;
        }
        let lost = away != IDLE_CTX_ID && std::mem::take(&mut self.csb_lost_next);
        let index = if lost {
            io.rec.emit(Event::EngineFault {
                engine: self.def.name,
                fault: EngineFault::CsbLost.name(),
                action: "applied",
            });
            None
        } else {
            let (i, res) = self.csb.push(entry, self.hws_pga, io);
            if let Err(f) = res {
                self.violation(io, "engine_hwsp_fault", f.to_string());
            }
            Some(i)
        };
        io.rec.emit(Event::EngineSwitch {
            engine: self.def.name,
            away: Hex(away.into()),
            to: Hex(to.into()),
            new_queue,
            detail,
            index,
            lost,
            guc: false,
        });
        self.irq(io, IRQ_CONTEXT_SWITCH);
    }

    /// The active context completed (HEAD == TAIL): save it, report, start
    /// the next element or go idle (seed 004 rows 8 and 10, L309-319).
    fn complete(&mut self, io: &mut Io<'_>) {
        let Some(c) = self.active.as_ref() else {
            return;
        };
        let el = c.el;
        io.rec.emit(Event::EngineComplete {
            engine: self.def.name,
            ctx: Hex(el.ctx_id().into()),
            lrca: Hex(el.lrca().into()),
            head: Hex(c.ring.head.into()),
        });
        self.save_out(io);
        match self.eq.pop_front() {
            Some(next) => self.switch_in(Some(el), next, false, 0, io),
            None => self.report(el.ctx_id(), IDLE_CTX_ID, false, 0, io),
        }
    }

    /// Records an engine error: ESR, EIR (unless masked by EMR), IPEHR,
    /// ACTHD; the active context halts; CS error interrupt if EIR gained
    /// bits (seed 004 L439: "Any bit set in the EIR will cause the error
    /// bit in the ISR to be set").
    fn error(
        &mut self,
        kind: cs::ErrorKind,
        header: u32,
        acthd: u64,
        detail: String,
        io: &mut Io<'_>,
    ) {
        let bit = kind.bit();
        self.esr |= bit;
        let new = bit & !self.emr & !self.eir;
        self.eir |= bit & !self.emr;
        self.ipehr = header;
        // CAST: GGTT addresses are 32 bits.
        self.acthd = acthd as u32;
        if let Some(c) = self.active.as_mut() {
            c.halted = true;
        }
        io.rec.emit(Event::EngineError {
            engine: self.def.name,
            kind: kind.name(),
            ipehr: Hex(header.into()),
            acthd: Hex(acthd),
            detail,
        });
        if new != 0 {
            self.irq(io, IRQ_CS_ERROR);
        }
    }

    /// Engine reset: queue invalid, the active context dropped without a
    /// save, ring, mode and error registers back to 0, `RESET_CTL` cleared;
    /// the CSB pointers, SQ, `HWS_PGA` and `RING_MODE` stay (spec
    /// "GDRST"; `[MODEL]` for the registers the spec does not list).
    fn reset(&mut self, cause: &'static str, io: &mut Io<'_>) {
        self.eq.clear();
        self.active = None;
        self.batches.clear();
        self.ring = Ring::default();
        self.mi_mode = 0;
        self.eir = 0;
        self.esr = 0;
        self.ipehr = 0;
        self.acthd = 0;
        self.reset_ctl = 0;
        self.context_control = 0;
        self.storage = Storage::default();
        io.rec.emit(Event::EngineReset {
            engine: self.def.name,
            cause,
        });
    }

    /// Whether a burst could make progress now.
    fn runnable(&self) -> bool {
        self.active
            .as_ref()
            .is_some_and(|c| !c.halted && !c.hung && self.mi_mode & STOP_RING == 0)
    }

    /// Executes the active context (and the next elements) for up to
    /// [`BUDGET`] commands.
    pub fn run(&mut self, io: &mut Io<'_>) {
        let mut commands = 0u64;
        let mut user = 0u64;
        let mut stopped = "complete";
        let mut ran: Option<u16> = None;
        while let Some(c) = self.active.as_ref() {
            if c.hung {
                stopped = "hang";
                break;
            }
            if c.halted {
                stopped = "halt";
                break;
            }
            if self.mi_mode & STOP_RING != 0 {
                stopped = "stop_ring";
                break;
            }
            if commands >= BUDGET {
                stopped = "budget";
                break;
            }
            let id = c.el.ctx_id();
            if ran.is_some_and(|r| r != id) {
                self.flush_run(ran, commands, user, "complete", io);
                commands = 0;
                user = 0;
            }
            ran = Some(id);
            match cs::step(self, io) {
                cs::Step::Done { user_interrupt } => {
                    commands += 1;
                    user += u64::from(user_interrupt);
                }
                cs::Step::Empty => {
                    // The burst's record precedes the completion's.
                    self.flush_run(ran.take(), commands, user, "complete", io);
                    commands = 0;
                    user = 0;
                    self.complete(io);
                }
                cs::Step::Wait => {
                    stopped = "wait";
                    break;
                }
                cs::Step::Error => {
                    stopped = "halt";
                    break;
                }
            }
        }
        self.flush_run(ran, commands, user, stopped, io);
    }

    fn flush_run(
        &self,
        ctx: Option<u16>,
        commands: u64,
        user: u64,
        stopped: &'static str,
        io: &mut Io<'_>,
    ) {
        let Some(ctx) = ctx.filter(|_| commands > 0) else {
            return;
        };
        io.rec.emit(Event::EngineRun {
            engine: self.def.name,
            ctx: Hex(ctx.into()),
            commands,
            user_interrupts: user,
            stopped,
        });
    }
}

/// Index of the dword at window offset `rel` in an array starting at
/// window offset `start` (`rel >= start`, checked by the callers' ranges).
fn dw_index(rel: u32, start: u32) -> usize {
    // CAST: a window offset, below 0x1000.
    ((rel - start) / 4) as usize
}

/// Storage registers of an engine's window (module docs, "Storage
/// registers"): what is written reads back; the masked ones change only the
/// bits a write's upper half selects. Reset with the engine.
#[derive(Debug, Clone, Copy, Default)]
struct Storage {
    cmd_cctl: u32,
    debug_mode1: u32,
    nonpriv: [u32; 12],
}

impl Storage {
    fn read(&self, rel: u32) -> Option<u32> {
        use reg::*;
        match rel {
            RING_CMD_CCTL => Some(self.cmd_cctl),
            CS_DEBUG_MODE1 => Some(self.debug_mode1),
            o if (FORCE_TO_NONPRIV..FORCE_TO_NONPRIV_END).contains(&o) => {
                self.nonpriv.get(dw_index(o, FORCE_TO_NONPRIV)).copied()
            }
            _ => None,
        }
    }

    fn write(&mut self, rel: u32, value: u32) -> Option<()> {
        use reg::*;
        match rel {
            RING_CMD_CCTL => self.cmd_cctl = masked(self.cmd_cctl, value),
            CS_DEBUG_MODE1 => self.debug_mode1 = masked(self.debug_mode1, value),
            o if (FORCE_TO_NONPRIV..FORCE_TO_NONPRIV_END).contains(&o) => {
                *self.nonpriv.get_mut(dw_index(o, FORCE_TO_NONPRIV))? = value;
            }
            _ => return None,
        }
        Some(())
    }
}

/// The command streamers of the part.
pub struct Engines {
    engines: Vec<Engine>,
    irqs: Vec<(Source, u16)>,
    vf_irqs: BTreeSet<u32>,
    render: RenderRegs,
}

/// The render domain's shared registers the engines depend on
/// (`regs::tuning`; storage of the register file, mirrored here).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct RenderRegs {
    /// `RCU_MODE` (0x14800).
    rcu_mode: u32,
    /// `CCS_MODE` (0x14804): how compute slices are shared among the CCSs
    /// (`xe_gt_ccs_mode.c` `__xe_gt_apply_ccs_mode`); recorded, the mock's
    /// CCSs share nothing.
    ccs_mode: u32,
}

/// `RCU_MODE_CCS_ENABLE`, `RCU_MODE` bit 0 (`regs/xe_gt_regs.h`).
pub const RCU_MODE_CCS_ENABLE: u32 = 1 << 0;

impl Engines {
    /// The engines `fuses` leave, in their reset state.
    pub fn new(fuses: &Fuses) -> Self {
        Self {
            engines: ENGINES
                .iter()
                .filter(|d| present(fuses, d))
                .map(Engine::new)
                .collect(),
            irqs: Vec::new(),
            vf_irqs: BTreeSet::new(),
            render: RenderRegs::default(),
        }
    }

    /// Device reset: every engine back to its reset state (CSB pointers
    /// and SQ too), fault switches disarmed.
    pub fn reset_device(&mut self, rec: &mut Recorder) {
        for e in &mut self.engines {
            let busy = e.active.is_some();
            *e = Engine::new(e.def);
            if busy {
                rec.emit(Event::EngineReset {
                    engine: e.def.name,
                    cause: "device",
                });
            }
        }
        self.irqs.clear();
    }

    /// The present engine whose window holds `offset`, with the offset from
    /// its base.
    pub fn lookup(&self, offset: u32) -> Option<(usize, u32)> {
        let (d, rel) = window_of(offset)?;
        let i = self.engines.iter().position(|e| std::ptr::eq(e.def, d))?;
        Some((i, rel))
    }

    /// The present engines' definitions, in table order.
    pub fn present(&self) -> impl Iterator<Item = &'static EngineDef> + '_ {
        self.engines.iter().map(|e| e.def)
    }

    /// The engine called `name`, if present.
    pub fn by_name(&self, name: &str) -> Option<&Engine> {
        self.engines.iter().find(|e| e.def.name == name)
    }

    /// Reads register `rel` of engine `i` ([`Engines::lookup`]).
    pub fn read(&self, i: usize, rel: u32) -> Option<u32> {
        self.engines.get(i)?.read(rel)
    }

    /// Writes register `rel` of engine `i`.
    pub fn write(
        &mut self,
        i: usize,
        rel: u32,
        value: u32,
        rec: &mut Recorder,
        bus: &mut dyn Bus,
    ) -> Option<()> {
        let e = self.engines.get_mut(i)?;
        let mut io = Io {
            rec,
            bus,
            irqs: &mut self.irqs,
            vf_irqs: &mut self.vf_irqs,
        };
        e.write(rel, value, &mut io)
    }

    /// The engine domain bits of a `GDRST` write (`GRDOM_FULL` resets
    /// them all); the bits self-clear at once (spec "GDRST").
    ///
    /// `GRDOM_FULL` also puts the host's engine setup back to its reset
    /// value: `RING_HWS_PGA`, `RING_MODE`, `RING_IMR`, `RING_HWSTAM` and
    /// `RING_EMR`, which an engine-domain reset keeps. Source: upstream
    /// writes them again after its full reset (`xe_gt.c` `do_gt_restart`:
    /// `xe_hw_engine_enable_ring` for `RING_HWS_PGA` / `RING_MODE`, and
    /// each engine's `reg_sr`), so it treats them as lost; `[MODEL]` the
    /// breadth (the stricter reading, as the register file's
    /// `full_reset`). A GuC Load then waits for the host to set the engine
    /// up again ([`Engine::guc_blocker`]).
    pub fn gdrst(&mut self, value: u32, rec: &mut Recorder) {
        let full = value & GRDOM_FULL != 0;
        let cause = if full { "grdom_full" } else { "gdrst" };
        let mut bus = super::guc::NoBus;
        for e in &mut self.engines {
            if full || value & e.def.gdrst != 0 {
                let mut io = Io {
                    rec,
                    bus: &mut bus,
                    irqs: &mut self.irqs,
                    vf_irqs: &mut self.vf_irqs,
                };
                e.reset(cause, &mut io);
                if full {
                    let fresh = Engine::new(e.def);
                    e.hws_pga = fresh.hws_pga;
                    e.ring_mode = fresh.ring_mode;
                    e.imr = fresh.imr;
                    e.hwstam = fresh.hwstam;
                    e.emr = fresh.emr;
                }
            }
        }
    }

    /// Whether some engine could progress (a budget left over, a semaphore
    /// to re-poll).
    pub fn has_work(&self) -> bool {
        self.engines.iter().any(Engine::runnable)
    }

    /// Lets every runnable engine execute one burst.
    pub fn service(&mut self, rec: &mut Recorder, bus: &mut dyn Bus) {
        for e in &mut self.engines {
            if e.runnable() {
                let mut io = Io {
                    rec: &mut *rec,
                    bus: &mut *bus,
                    irqs: &mut self.irqs,
                    vf_irqs: &mut self.vf_irqs,
                };
                e.run(&mut io);
            }
        }
    }

    /// Arms `fault` on the engine of `src`; returns false (and traces
    /// "absent") when the part has no such engine.
    pub fn arm(&mut self, name: &'static str, fault: EngineFault, rec: &mut Recorder) -> bool {
        let e = self.engines.iter_mut().find(|e| e.def.name == name);
        let action = match e {
            Some(e) => {
                match fault {
                    EngineFault::Hang => e.hang_next = true,
                    EngineFault::CsbLost => e.csb_lost_next = true,
                    EngineFault::ResetFails => {
                        e.hang_next = true;
                        e.reset_fails_next = true;
                    }
                }
                "armed"
            }
            None => "absent",
        };
        rec.emit(Event::EngineFault {
            engine: name,
            fault: fault.name(),
            action,
        });
        action == "armed"
    }

    /// The present engine called `name`, mutable.
    fn by_name_mut(&mut self, name: &str) -> Option<&mut Engine> {
        self.engines.iter_mut().find(|e| e.def.name == name)
    }

    /// The GuC loads `desc` on engine `name` ([`Engine::guc_load`]); false
    /// if the part has no such engine.
    pub fn guc_load(
        &mut self,
        name: &str,
        desc: u64,
        func: u32,
        rec: &mut Recorder,
        bus: &mut dyn Bus,
    ) -> bool {
        let Some(i) = self.engines.iter().position(|e| e.def.name == name) else {
            return false;
        };
        let mut io = Io {
            rec,
            bus,
            irqs: &mut self.irqs,
            vf_irqs: &mut self.vf_irqs,
        };
        self.engines[i].guc_load(desc, func, &mut io)
    }

    /// The GuC takes the running context off engine `name` (a Load of an
    /// empty queue: preempt to idle, seed 004 L287-290); a halted or hung
    /// context cannot be preempted (the Load is held).
    pub fn guc_preempt_to_idle(&mut self, name: &str, rec: &mut Recorder, bus: &mut dyn Bus) {
        let Some(i) = self.engines.iter().position(|e| e.def.name == name) else {
            return;
        };
        let mut io = Io {
            rec,
            bus,
            irqs: &mut self.irqs,
            vf_irqs: &mut self.vf_irqs,
        };
        let e = &mut self.engines[i];
        e.submitter = Submitter::Guc;
        e.start_queue(VecDeque::new(), &mut io);
    }

    /// The GuC resets engine `name` (its hang detection, a reset storm):
    /// a `GDRST` engine reset, traced with `cause`, and then the reset
    /// domain's registers are at their reset value except those in `keep`
    /// (the engine's ADS save/restore list, MMIO offsets), which the GuC
    /// saved before and restores after (`xe_guc_ads.c`
    /// `guc_mmio_regset_write`: the engine's `reg_sr` entries, among them
    /// `RING_MODE` and, on the first render/compute engine, `RCU_MODE`,
    /// plus `RING_HWS_PGA`, `RING_IMR` and `CCS_MODE`). Modelled here:
    /// `RING_HWS_PGA`, `RING_MODE`, `RING_IMR`, `RING_HWSTAM`, `RING_EMR`,
    /// the engine's storage registers ([`Engine::is_storage`]) and, for the
    /// render domain (RCS and the CCSs), `RCU_MODE` and `CCS_MODE`. Traced
    /// `guc_engine_restore` with what was restored and what was lost (a
    /// register that was not at its reset value and is not listed).
    ///
    /// Returns false, changing nothing, when the reset fails: the active
    /// context hangs under `engine:reset-fails` ([`EngineFault::ResetFails`];
    /// the engine keeps running it, hung). True otherwise (an absent engine
    /// included: there is nothing to reset).
    pub fn guc_reset(
        &mut self,
        name: &str,
        cause: &'static str,
        keep: &[u32],
        rec: &mut Recorder,
    ) -> bool {
        let mut bus = super::guc::NoBus;
        let Some(i) = self.engines.iter().position(|e| e.def.name == name) else {
            return true;
        };
        if self.engines[i]
            .active
            .as_ref()
            .is_some_and(|c| c.reset_fails)
        {
            return false;
        }
        let mut io = Io {
            rec,
            bus: &mut bus,
            irqs: &mut self.irqs,
            vf_irqs: &mut self.vf_irqs,
        };
        let e = &mut self.engines[i];
        let base = e.def.base;
        let listed = |rel: u32| keep.contains(&(base + rel));
        let storage: Vec<(u32, u32)> = keep
            .iter()
            .filter_map(|&o| o.checked_sub(base))
            .filter(|&rel| e.is_storage(rel))
            .filter_map(|rel| e.read(rel).map(|v| (rel, v)))
            .collect();
        e.reset(cause, &mut io);
        let mut restored = storage.len() as u64;
        for (rel, v) in storage {
            e.write_storage(rel, v);
        }
        let mut lost = Vec::new();
        let fresh = Engine::new(e.def);
        for (rel, slot, reset_value, reg_name) in [
            (
                reg::RING_HWS_PGA,
                &mut e.hws_pga,
                fresh.hws_pga,
                "RING_HWS_PGA",
            ),
            (
                reg::RING_MODE,
                &mut e.ring_mode,
                fresh.ring_mode,
                "RING_MODE",
            ),
            (reg::RING_IMR, &mut e.imr, fresh.imr, "RING_IMR"),
            (reg::RING_HWSTAM, &mut e.hwstam, fresh.hwstam, "RING_HWSTAM"),
            (reg::RING_EMR, &mut e.emr, fresh.emr, "RING_EMR"),
        ] {
            if listed(rel) {
                restored += 1;
            } else {
                if *slot != reset_value {
                    lost.push(reg_name);
                }
                *slot = reset_value;
            }
        }
        if e.def.gdrst == GRDOM_RENDER {
            for (reg, slot) in [
                (regs::tuning::RCU_MODE, &mut self.render.rcu_mode),
                (regs::tuning::CCS_MODE, &mut self.render.ccs_mode),
            ] {
                if keep.contains(&reg.offset) {
                    restored += 1;
                } else {
                    if *slot != 0 {
                        lost.push(reg.name);
                    }
                    *slot = 0;
                }
            }
            self.apply_render();
        }
        rec.emit(Event::GucEngineRestore {
            engine: self.engines[i].def.name,
            restored,
            lost,
        });
        true
    }

    /// `RCU_MODE` and `CCS_MODE` as the register file holds them (masked
    /// writes applied): the engines follow `RCU_MODE_CCS_ENABLE`.
    pub fn set_render_regs(&mut self, rcu_mode: u32, ccs_mode: u32) {
        self.render = RenderRegs { rcu_mode, ccs_mode };
        self.apply_render();
    }

    /// `RCU_MODE` and `CCS_MODE` after the engines' last change (a GuC
    /// engine reset may have put them back to 0): the register file takes
    /// them back.
    pub fn render_regs(&self) -> (u32, u32) {
        (self.render.rcu_mode, self.render.ccs_mode)
    }

    fn apply_render(&mut self) {
        let on = self.render.rcu_mode & RCU_MODE_CCS_ENABLE != 0;
        for e in &mut self.engines {
            e.ccs_enabled = on;
        }
    }

    /// The context-status entries engine `name` reported to the GuC since
    /// the last call.
    pub fn take_guc_status(&mut self, name: &str) -> Vec<u64> {
        self.by_name_mut(name)
            .map(|e| std::mem::take(&mut e.guc_csb))
            .unwrap_or_default()
    }

    /// Interrupts queued since the last call.
    pub fn take_irqs(&mut self) -> Vec<(Source, u16)> {
        std::mem::take(&mut self.irqs)
    }

    /// VFs whose memory-based interrupt the engines reported since the
    /// last call ([`Engine`]'s interrupt, "Memory-based interrupts").
    pub fn take_vf_irqs(&mut self) -> Vec<u32> {
        std::mem::take(&mut self.vf_irqs).into_iter().collect()
    }
}

/// An engine's slot in the memory-based interrupt report pages: its bit
/// in `GT_INTR_DW0/1` counted over both (module docs, "Memory-based
/// interrupts").
pub fn report_slot(src: Source) -> Option<u32> {
    crate::regfile::intc::identity_bit(src).map(|(dw, bit)| 32 * dw + bit)
}

/// The engine called `name` (present or not).
pub fn def_by_name(name: &str) -> Option<&'static EngineDef> {
    ENGINES.iter().find(|d| d.name == name)
}
