//! The GT interrupt controller of one tile: the PRM's aggregation model from
//! an engine's interrupt message to the MSI.
//!
//! Sources are cited per item: "seed 000 L<n>" is a line of the PRM's
//! Volume 13 (its interrupt chapter is lines 2129-2422; see
//! Documentation/references.rst);
//! offsets and bit positions the seed does not give come from upstream
//! `drivers/gpu/drm/xe/regs/xe_irq_regs.h` (and `xe_hw_error_regs.h`,
//! `xe_irq.c`), which win for offsets. `[MODEL]` marks a choice neither
//! source settles.
//!
//! # The path of an event
//!
//! 1. An engine sends (class, instance, 16 bits of data) ([`Intc::raise`];
//!    message format seed 000 L2175-2182). The data is AND-ed with the
//!    engine's enable (IER) field; disabled bits are dropped (L2211). All
//!    instances of a class share one enable field, except class Other, where
//!    every instance has its own (L2211, L2241).
//! 2. Enabled bits collect in the instance's collapsing register, which
//!    software cannot read (L2213). Bits also set in the instance's own mask
//!    (IMR, L2213, L2243) stay there until unmasked; unmasked bits are OR-ed
//!    into the instance's second-level bit (L2215).
//! 3. Second level, per GT DW bank: the double-buffered IIR (L2219-2225).
//!    A software read of `GT_INTR_DW` with bits set takes a snapshot; until
//!    the IIR is completely cleared, new second-level bits go to the
//!    secondary storage, and if that is non-empty when the IIR becomes 0 a
//!    second DW-level event follows (L2225).
//! 4. A DW-level event latches `GT_DW_IRQ(bank)` in the tile's primary
//!    register `GFX_MSTR_IRQ` (L2197, L2203), which latches the tile's bit in
//!    `DG1_MSTR_TILE_INTR` (L2296-2299). An MSI goes out when that register
//!    has a tile bit pending while its enable (bit 31) is set (L2197 "an
//!    interrupt is sent ... whenever bits are set ... and the Enable bit is
//!    also set"; L2403, L2407: re-enabling re-triggers pending interrupts).
//! 5. Software services one engine at a time: a one-hot write to
//!    `IIR_REG_SELECTOR(bank)` for a bit the IIR read showed (L2229, L2233)
//!    presents that engine's unmasked first-level bits in
//!    `INTR_IDENTITY_REG(bank)` with DataValid (bit 31) set (L2231, L2350);
//!    writing 1 to DataValid clears the identity and the selector (L2231).
//!    Second-level bits are cleared (RW1C, L2225) only after that service
//!    (L2239).
//!
//! # Where the PRM and upstream differ
//!
//! - Clearing the identity: the PRM's text says "writing 1 to the
//!   Data-Valid bit" clears both the shared IIR and the selector (L2231);
//!   its pseudocode says "writes ... with same bits set to clear those
//!   interrupts" (L2353); xe writes back the whole value it read
//!   (`xe_irq.c` `gt_engine_identity`), which has bit 31 set. The model
//!   follows the text: any write with bit 31 set ends the service (so xe's
//!   write-back works); a write without bit 31 clears only the written data
//!   bits and leaves DataValid and the selector in place, so a driver that
//!   never writes bit 31 is caught by the next selection
//!   (`irq_identity_not_cleared`).
//! - `GFX_MSTR_IRQ`: the Host SW section calls its bits read-only level
//!   indications (L2197), the Gdie section makes them RW1C, "except bit 31"
//!   (L2297-2298, L2326). The model follows the Gdie section (this part has
//!   the tile register): the bits latch on events and are cleared by writing
//!   1; bit 31 is plain read/write storage that gates nothing (`[MODEL]`:
//!   the Gdie ISR gates delivery at the tile register only, L2333, L2403;
//!   upstream's `dg1_irq_handler` never writes `MASTER_IRQ` either).
//! - Fatal GT errors: the PRM routes fatal errors as PCIe error messages
//!   (L2413); the mock has no path for those (the vfio ERR eventfd is never
//!   signalled, [`crate::irq`]) and upstream's `xe_hw_error_irq_handler`
//!   handles `ERROR_IRQ(2)` as an interrupt, so all three severities latch
//!   `ERROR_IRQ(severity)` in the primary register (`[MODEL]`).
//! - Other-class instance 3 is SCTRG in the PRM (L2162) but the GSC HECI2
//!   in upstream (`OTHER_GSC_HECI2_INSTANCE`); neither gives this part's bit
//!   and enable field for it, so it is not a modelled source (nor are GTPM,
//!   WDOAPerf and Gunit, whose enable/mask fields no source places).
//!
//! # Wiring
//!
//! [`super::RegisterFile`] dispatches the registers of the public map
//! ([`crate::regs::intc`]) here; `DEV_ERR_ROUTING_CTRL` (0x100170) has no
//! upstream name and stays out of the map, so an access to it is unknown.
//! What happened is queued as [`IntcEvent`]s that the register file turns
//! into trace events (and so summary counters) after each call
//! ([`Intc::take_events`]); [`Intc::take_msis`] tells the device how many
//! MSIs to send. The registers at 0x190000 are in the hole
//! 0x040000-0x1BFFFF of the PRM's forcewake table and need no wake
//! ([`crate::power`]); the error registers at 0x100160 are in the
//! always-on 0x100000 block.

use crate::recorder::Recorder;

/// `DG1_MSTR_TILE_INTR`: the device tile interrupt register, in the root
/// tile (seed 000 L2324 "Device Tile Interrupt Register 19_0008h (RW1C)";
/// `xe_irq_regs.h`).
pub const DG1_MSTR_TILE_INTR: u32 = 0x19_0008;
/// `DG1_MSTR_IRQ`: bit 31 of the tile register, the enable the ISR clears
/// on entry and sets on exit (seed 000 L2333, L2403; `xe_irq_regs.h`).
pub const DG1_MSTR_IRQ: u32 = 1 << 31;
/// `GFX_MSTR_IRQ`: the per-tile primary interrupt register (seed 000 L2326
/// "19_0010h (Mostly RW1C .. Except bit 31)"; `xe_irq_regs.h`).
pub const GFX_MSTR_IRQ: u32 = 0x19_0010;
/// Bit 31 of `GFX_MSTR_IRQ`, not RW1C (seed 000 L2326; `MASTER_IRQ` in
/// `xe_irq_regs.h`).
pub const MASTER_IRQ: u32 = 1 << 31;
/// `ERROR_IRQ(x)`: bit 26 + severity in `GFX_MSTR_IRQ` (`xe_irq_regs.h`;
/// seed 000 L2299: "SoC and Error bits in the Per Tile Primary Interrupt
/// Register").
pub const fn error_irq(sev: Severity) -> u32 {
    1 << (26 + sev as u32)
}
/// `GT_DW_IRQ(x)`: bit x of `GFX_MSTR_IRQ` (`xe_irq_regs.h`; seed 000 L2197
/// "Graphics interrupts use 2 bits").
pub const fn gt_dw_irq(bank: usize) -> u32 {
    1 << bank
}
/// `GT_INTR_DW(x)`: the second-level IIR of bank x (seed 000 L2341, L2356
/// 190018h/19001Ch; `xe_irq_regs.h`).
pub const fn gt_intr_dw(bank: usize) -> u32 {
    0x19_0018 + 4 * bank as u32
}
/// `INTR_IDENTITY_REG(x)`: the shared IIR of bank x (seed 000 L2343, L2358
/// 190060h/190064h; `xe_irq_regs.h`).
pub const fn intr_identity_reg(bank: usize) -> u32 {
    0x19_0060 + 4 * bank as u32
}
/// `IIR_REG_SELECTOR(x)`: the selector of bank x (seed 000 L2342, L2357
/// 190070h/190074h; `xe_irq_regs.h`).
pub const fn iir_reg_selector(bank: usize) -> u32 {
    0x19_0070 + 4 * bank as u32
}
/// `INTR_DATA_VALID`: bit 31 of the identity (seed 000 L2231 "Data-Valid
/// bit (MSB)", L2343; `xe_irq_regs.h`).
pub const INTR_DATA_VALID: u32 = 1 << 31;

/// `RENDER_COPY_INTR_ENABLE` (`xe_irq_regs.h`).
pub const RENDER_COPY_INTR_ENABLE: u32 = 0x19_0030;
/// `VCS_VECS_INTR_ENABLE` (`xe_irq_regs.h`).
pub const VCS_VECS_INTR_ENABLE: u32 = 0x19_0034;
/// `GUC_SG_INTR_ENABLE` (`xe_irq_regs.h`).
pub const GUC_SG_INTR_ENABLE: u32 = 0x19_0038;
/// `GPM_WGBOXPERF_INTR_ENABLE` (`xe_irq_regs.h`); storage only.
pub const GPM_WGBOXPERF_INTR_ENABLE: u32 = 0x19_003C;
/// `CRYPTO_RSVD_INTR_ENABLE` (`xe_irq_regs.h`).
pub const CRYPTO_RSVD_INTR_ENABLE: u32 = 0x19_0040;
/// `GUNIT_GSC_INTR_ENABLE` (`xe_irq_regs.h`).
pub const GUNIT_GSC_INTR_ENABLE: u32 = 0x19_0044;
/// `CCS_RSVD_INTR_ENABLE` (`xe_irq_regs.h`).
pub const CCS_RSVD_INTR_ENABLE: u32 = 0x19_0048;
/// The enable registers, in offset order.
const ENABLES: [u32; 7] = [
    RENDER_COPY_INTR_ENABLE,
    VCS_VECS_INTR_ENABLE,
    GUC_SG_INTR_ENABLE,
    GPM_WGBOXPERF_INTR_ENABLE,
    CRYPTO_RSVD_INTR_ENABLE,
    GUNIT_GSC_INTR_ENABLE,
    CCS_RSVD_INTR_ENABLE,
];

/// `RCS0_RSVD_INTR_MASK` (`xe_irq_regs.h`).
pub const RCS0_RSVD_INTR_MASK: u32 = 0x19_0090;
/// `BCS_RSVD_INTR_MASK` (`xe_irq_regs.h`).
pub const BCS_RSVD_INTR_MASK: u32 = 0x19_00A0;
/// `VCS0_VCS1_INTR_MASK` (`xe_irq_regs.h`).
pub const VCS0_VCS1_INTR_MASK: u32 = 0x19_00A8;
/// `VCS2_VCS3_INTR_MASK` (`xe_irq_regs.h`).
pub const VCS2_VCS3_INTR_MASK: u32 = 0x19_00AC;
/// `VCS4_VCS5_INTR_MASK` (`xe_irq_regs.h`).
pub const VCS4_VCS5_INTR_MASK: u32 = 0x19_00B0;
/// `VCS6_VCS7_INTR_MASK` (`xe_irq_regs.h`).
pub const VCS6_VCS7_INTR_MASK: u32 = 0x19_00B4;
/// `VECS0_VECS1_INTR_MASK` (`xe_irq_regs.h`).
pub const VECS0_VECS1_INTR_MASK: u32 = 0x19_00D0;
/// `VECS2_VECS3_INTR_MASK` (`xe_irq_regs.h`).
pub const VECS2_VECS3_INTR_MASK: u32 = 0x19_00D4;
/// `HECI2_RSVD_INTR_MASK` (`xe_irq_regs.h`); storage only.
pub const HECI2_RSVD_INTR_MASK: u32 = 0x19_00E4;
/// `GUC_SG_INTR_MASK` (`xe_irq_regs.h`).
pub const GUC_SG_INTR_MASK: u32 = 0x19_00E8;
/// `GPM_WGBOXPERF_INTR_MASK` (`xe_irq_regs.h`); storage only.
pub const GPM_WGBOXPERF_INTR_MASK: u32 = 0x19_00EC;
/// `CRYPTO_RSVD_INTR_MASK` (`xe_irq_regs.h`).
pub const CRYPTO_RSVD_INTR_MASK: u32 = 0x19_00F0;
/// `GUNIT_GSC_INTR_MASK` (`xe_irq_regs.h`).
pub const GUNIT_GSC_INTR_MASK: u32 = 0x19_00F4;
/// `CCS0_CCS1_INTR_MASK` (`xe_irq_regs.h`).
pub const CCS0_CCS1_INTR_MASK: u32 = 0x19_0100;
/// `CCS2_CCS3_INTR_MASK` (`xe_irq_regs.h`).
pub const CCS2_CCS3_INTR_MASK: u32 = 0x19_0104;
/// The mask registers this part has, in offset order (the XEHPC BCS1-8
/// masks belong to parts with more copy engines than DG2/ATS-M's one).
const MASKS: [u32; 15] = [
    RCS0_RSVD_INTR_MASK,
    BCS_RSVD_INTR_MASK,
    VCS0_VCS1_INTR_MASK,
    VCS2_VCS3_INTR_MASK,
    VCS4_VCS5_INTR_MASK,
    VCS6_VCS7_INTR_MASK,
    VECS0_VECS1_INTR_MASK,
    VECS2_VECS3_INTR_MASK,
    HECI2_RSVD_INTR_MASK,
    GUC_SG_INTR_MASK,
    GPM_WGBOXPERF_INTR_MASK,
    CRYPTO_RSVD_INTR_MASK,
    GUNIT_GSC_INTR_MASK,
    CCS0_CCS1_INTR_MASK,
    CCS2_CCS3_INTR_MASK,
];

/// `ERR_STAT_GT_REG(x)`: GT error status, correctable / non-fatal / fatal,
/// RW1C (seed 000 L2312-2314 10_0160h-10_0168h; `xe_hw_error_regs.h`).
pub const fn err_stat_gt_reg(sev: Severity) -> u32 {
    0x10_0160 + 4 * sev as u32
}
/// Device Error Routing Ctrl, RW (seed 000 L2316 10_0170h); the seed
/// defines no fields, so it is storage.
pub const DEV_ERR_ROUTING_CTRL: u32 = 0x10_0170;
/// `DEV_ERR_STAT_REG(x)`: device error source, RW1C; correctable 0x10017C,
/// non-fatal 0x100178, fatal 0x100174 (seed 000 L2317-2319;
/// `xe_hw_error_regs.h` `_PICK_EVEN(x, 0x10017c, 0x100178)`).
pub const fn dev_err_stat_reg(sev: Severity) -> u32 {
    0x10_017C - 4 * sev as u32
}
/// `XE_GT_ERROR`: bit 0 of `DEV_ERR_STAT_REG`, "the GT reported an error"
/// (`xe_hw_error_regs.h`).
pub const XE_GT_ERROR: u32 = 1 << 0;

/// `PCU_IRQ_OFFSET`: the PCU interrupt group, ISR/IMR/IIR/IER (seed 000
/// L2320 "PCU Interrupt Register 444E0-EFh"; `xe_irq_regs.h`; order from
/// `xe_irq.c`, "always consecutive and ordered ISR, IMR, IIR, IER").
pub const PCU_IRQ_OFFSET: u32 = 0x4_44E0;
/// `GU_MISC_IRQ_OFFSET`: the GU_MISC interrupt group (`xe_irq_regs.h`).
pub const GU_MISC_IRQ_OFFSET: u32 = 0x4_44F0;

/// GuC vector bit 15, `GUC_INTR_GUC2HOST` (`regs/xe_guc_regs.h`; seed 000
/// L2273: byte/bit 15 of the GuC's status is "GuC Interrupt to Host").
pub const GUC_INTR_GUC2HOST: u16 = 1 << 15;

/// An engine class, with the ClassID the identity carries (seed 000
/// L2152-2167; `enum xe_engine_class`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// Render (RCS).
    Render = 0,
    /// Video decode (VCS).
    VideoDecode = 1,
    /// Video enhancement (VECS).
    VideoEnhance = 2,
    /// Copy (BCS).
    Copy = 3,
    /// Other: GuC, GTPM, WDOAPerf, SCTRG, KCR, Gunit, CSME.
    Other = 4,
    /// Compute (CCS).
    Compute = 5,
}

/// A GT error severity, indexed like upstream's `hardware_error`
/// (correctable 0, non-fatal 1, fatal 2; `xe_hw_error.c`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Correctable.
    Correctable = 0,
    /// Non-fatal.
    NonFatal = 1,
    /// Fatal.
    Fatal = 2,
}

impl Severity {
    /// Every severity, in index order.
    pub const ALL: [Severity; 3] = [Severity::Correctable, Severity::NonFatal, Severity::Fatal];

    /// `correctable`, `nonfatal` or `fatal`: the names of the test control,
    /// the trace and the summary.
    pub const fn name(self) -> &'static str {
        match self {
            Severity::Correctable => "correctable",
            Severity::NonFatal => "nonfatal",
            Severity::Fatal => "fatal",
        }
    }

    /// The severity called `name` ([`Severity::name`]).
    pub fn from_name(name: &str) -> Option<Severity> {
        Self::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// An interrupt source: an engine class and instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Source {
    /// Engine class.
    pub class: Class,
    /// Instance within the class.
    pub instance: u8,
}

impl Source {
    /// The GuC: class Other, instance 0 (seed 000 L2157;
    /// `OTHER_GUC_INSTANCE`).
    pub const GUC: Source = Source {
        class: Class::Other,
        instance: 0,
    };
    /// RCS0: class Render, instance 0.
    pub const RCS0: Source = Source {
        class: Class::Render,
        instance: 0,
    };

    /// Index of a modelled source in [`Source::all`].
    pub fn index(self) -> Option<usize> {
        SOURCES.iter().position(|d| d.src == self)
    }

    /// The modelled sources, in a fixed order (that of [`SOURCE_NAMES`]).
    pub fn all() -> impl Iterator<Item = Source> {
        SOURCES.iter().map(|d| d.src)
    }

    /// The lower-case name the CLI, the test control, the trace and the
    /// summary use (`rcs0`, `bcs0`, `ccs0`, `guc`, `kcr`, `gsc`, `vcs0`,
    /// `vecs0`, ...); `None` for a source the model does not have.
    pub fn name(self) -> Option<&'static str> {
        self.index().map(|i| SOURCE_NAMES[i])
    }

    /// The source called `name` ([`Source::name`]).
    pub fn from_name(name: &str) -> Option<Source> {
        SOURCE_NAMES
            .iter()
            .position(|&n| n == name)
            .map(|i| SOURCES[i].src)
    }
}

/// Names of [`SOURCES`], by index: engines as upstream's `hw_engine` names
/// them (`xe_hw_engine.c`), Other instances by their unit.
pub const SOURCE_NAMES: [&str; SOURCES.len()] = [
    "rcs0", "bcs0", "ccs0", "ccs1", "ccs2", "ccs3", "guc", "kcr", "gsc", "vcs0", "vcs1", "vcs2",
    "vcs3", "vcs4", "vcs5", "vcs6", "vcs7", "vecs0", "vecs1", "vecs2", "vecs3",
];

/// A modelled source's (bank, bit) in `GT_INTR_DW0/1` ([`SOURCES`]).
pub fn identity_bit(src: Source) -> Option<(u32, u32)> {
    SOURCES
        .iter()
        .find(|d| d.src == src)
        // CAST: bank 0 or 1.
        .map(|d| (d.bank as u32, d.bit))
}

/// Which 16-bit half of an enable or mask register a source owns:
/// `ENGINE1_MASK` 31:16 or `ENGINE0_MASK` 15:0 (`xe_irq_regs.h`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Half {
    Hi,
    Lo,
}

impl Half {
    fn get(self, reg: u32) -> u16 {
        // CAST: a 16-bit half of the register.
        match self {
            Half::Hi => (reg >> 16) as u16,
            Half::Lo => reg as u16,
        }
    }
}

/// Where one source lives in the registers.
#[derive(Debug, Clone, Copy)]
struct SourceDef {
    src: Source,
    bank: usize,
    bit: u32,
    enable: (u32, Half),
    mask: (u32, Half),
}

const fn def(
    class: Class,
    instance: u8,
    bank: usize,
    bit: u32,
    enable: (u32, Half),
    mask: (u32, Half),
) -> SourceDef {
    SourceDef {
        src: Source { class, instance },
        bank,
        bit,
        enable,
        mask,
    }
}

/// The sources of a DG2/ATS-M GT. Bank bits: `INTR_RCS0` 0, `INTR_CCS(x)`
/// 4+x, `INTR_BCS(0)` 15, `INTR_GUC` 25, `INTR_GSC` 31 in bank 0,
/// `INTR_VCS(x)` x and `INTR_VECS(x)` 31-x in bank 1 (`xe_irq_regs.h`);
/// KCR 19 (i915 `GEN11_KCR`, `gt/intel_gt_regs.h`). Enable and mask fields
/// as `xe_irq.c` `xe_irq_enable_hwe` writes them: the first-named engine
/// of a register pair in 31:16, the second in 15:0; BCS0's mask in 31:16
/// of `BCS_RSVD_INTR_MASK`; KCR in 31:16 of both CRYPTO registers
/// (`kcr_mask << 16`); the GSC (CSME, instance 6) in 15:0 of the GUNIT_GSC
/// registers (`gsc_mask`).
#[rustfmt::skip]
const SOURCES: [SourceDef; 21] = {
    use Class::*;
    use Half::*;
    [
        def(Render, 0, 0, 0, (RENDER_COPY_INTR_ENABLE, Hi), (RCS0_RSVD_INTR_MASK, Hi)),
        def(Copy, 0, 0, 15, (RENDER_COPY_INTR_ENABLE, Lo), (BCS_RSVD_INTR_MASK, Hi)),
        def(Compute, 0, 0, 4, (CCS_RSVD_INTR_ENABLE, Hi), (CCS0_CCS1_INTR_MASK, Hi)),
        def(Compute, 1, 0, 5, (CCS_RSVD_INTR_ENABLE, Hi), (CCS0_CCS1_INTR_MASK, Lo)),
        def(Compute, 2, 0, 6, (CCS_RSVD_INTR_ENABLE, Hi), (CCS2_CCS3_INTR_MASK, Hi)),
        def(Compute, 3, 0, 7, (CCS_RSVD_INTR_ENABLE, Hi), (CCS2_CCS3_INTR_MASK, Lo)),
        def(Other, 0, 0, 25, (GUC_SG_INTR_ENABLE, Hi), (GUC_SG_INTR_MASK, Hi)),
        def(Other, 4, 0, 19, (CRYPTO_RSVD_INTR_ENABLE, Hi), (CRYPTO_RSVD_INTR_MASK, Hi)),
        def(Other, 6, 0, 31, (GUNIT_GSC_INTR_ENABLE, Lo), (GUNIT_GSC_INTR_MASK, Lo)),
        def(VideoDecode, 0, 1, 0, (VCS_VECS_INTR_ENABLE, Hi), (VCS0_VCS1_INTR_MASK, Hi)),
        def(VideoDecode, 1, 1, 1, (VCS_VECS_INTR_ENABLE, Hi), (VCS0_VCS1_INTR_MASK, Lo)),
        def(VideoDecode, 2, 1, 2, (VCS_VECS_INTR_ENABLE, Hi), (VCS2_VCS3_INTR_MASK, Hi)),
        def(VideoDecode, 3, 1, 3, (VCS_VECS_INTR_ENABLE, Hi), (VCS2_VCS3_INTR_MASK, Lo)),
        def(VideoDecode, 4, 1, 4, (VCS_VECS_INTR_ENABLE, Hi), (VCS4_VCS5_INTR_MASK, Hi)),
        def(VideoDecode, 5, 1, 5, (VCS_VECS_INTR_ENABLE, Hi), (VCS4_VCS5_INTR_MASK, Lo)),
        def(VideoDecode, 6, 1, 6, (VCS_VECS_INTR_ENABLE, Hi), (VCS6_VCS7_INTR_MASK, Hi)),
        def(VideoDecode, 7, 1, 7, (VCS_VECS_INTR_ENABLE, Hi), (VCS6_VCS7_INTR_MASK, Lo)),
        def(VideoEnhance, 0, 1, 31, (VCS_VECS_INTR_ENABLE, Lo), (VECS0_VECS1_INTR_MASK, Hi)),
        def(VideoEnhance, 1, 1, 30, (VCS_VECS_INTR_ENABLE, Lo), (VECS0_VECS1_INTR_MASK, Lo)),
        def(VideoEnhance, 2, 1, 29, (VCS_VECS_INTR_ENABLE, Lo), (VECS2_VECS3_INTR_MASK, Hi)),
        def(VideoEnhance, 3, 1, 28, (VCS_VECS_INTR_ENABLE, Lo), (VECS2_VECS3_INTR_MASK, Lo)),
    ]
};

/// A register of the PCU / GU_MISC groups.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GroupReg {
    Imr,
    Iir,
    Ier,
}

/// The group (0 PCU, 1 GU_MISC) and register at `offset`; the ISRs are not
/// modelled (no source places their bits, and no driver reads them).
fn group_reg(offset: u32) -> Option<(usize, GroupReg)> {
    [PCU_IRQ_OFFSET, GU_MISC_IRQ_OFFSET]
        .iter()
        .enumerate()
        .find_map(|(g, &base)| {
            let reg = match offset.checked_sub(base)? {
                4 => GroupReg::Imr,
                8 => GroupReg::Iir,
                0xC => GroupReg::Ier,
                _ => return None,
            };
            Some((g, reg))
        })
}

/// Number of GT DW banks (seed 000 L2205: "Two such events are used to
/// provide support for up to 64 GT engines").
pub const BANKS: usize = 2;

/// Violation kind: a selector write that is not one-hot (seed 000 L2233).
pub const SELECTOR_NOT_ONE_HOT: &str = "irq_selector_not_one_hot";
/// Violation kind: a selector bit the IIR read did not show (L2233).
pub const SELECTOR_NOT_PENDING: &str = "irq_selector_not_pending";
/// Violation kind: a new selection while the previous identity still has
/// DataValid (L2231: end of service is the DataValid clear).
pub const IDENTITY_NOT_CLEARED: &str = "irq_identity_not_cleared";
/// Violation kind: a second-level bit cleared before its engine was
/// serviced through selector and identity (L2239).
pub const DW_CLEARED_UNSERVICED: &str = "irq_dw_cleared_unserviced";

/// Fault switches (issue 10, "Mock: fault switches").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IntcFaults {
    /// A selection never sets DataValid: the identity reads 0 and the
    /// selected engine's events are lost (the driver's timeout path).
    pub data_valid_never: bool,
    /// The identity names a reserved class and instance ([`GARBAGE_CLASS`],
    /// [`GARBAGE_INSTANCE`]) with the real data and DataValid.
    pub identity_garbage: bool,
    /// This source re-fires the same data the moment its identity is
    /// cleared, until software masks it.
    pub storm: Option<Source>,
}

/// The ClassID the `identity_garbage` fault reports: 7, reserved (seed 000
/// L2168 "Reserved 6-7").
pub const GARBAGE_CLASS: u32 = 7;
/// The InstanceID the `identity_garbage` fault reports: 63, the largest the
/// six-bit field holds (L2181), above every instance of the table.
pub const GARBAGE_INSTANCE: u32 = 63;

/// Why [`Intc::raise`] refused an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("no modelled interrupt source {0:?}")]
pub struct UnknownSource(pub Source);

/// What happened to a raised event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Raised {
    /// Every bit was disabled at the enable register: dropped.
    Dropped,
    /// Logged in the collapsing register; masked, it waits there.
    Pending,
    /// Reached the second level.
    Forwarded,
}

/// Something the controller did, for the trace and the summary; queued
/// until [`Intc::take_events`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntcEvent {
    /// An event was raised at a known source.
    Raised {
        /// Where.
        src: Source,
        /// Its 16 bits.
        data: u16,
        /// What became of it.
        outcome: Raised,
    },
    /// A selection presented an identity with DataValid.
    Identity {
        /// GT DW bank.
        bank: usize,
        /// The source selected (the real one, also when the fault
        /// `identity_garbage` reports another).
        src: Source,
        /// The identity register's value.
        identity: u32,
    },
    /// The source's service ended: software cleared its identity with
    /// DataValid, or (fault `data_valid_never`) a selection consumed its
    /// events without presenting them. The next paced test event may come.
    Serviced(Source),
    /// An MSI was generated.
    Msi,
    /// GT error bits were set.
    GtError {
        /// Severity.
        sev: Severity,
        /// The bits.
        bits: u32,
    },
    /// Software finished an interrupt reset: the late window opened
    /// ([`Intc::late_window_open`]).
    Disarmed,
    /// A handler-path register was accessed inside the late window.
    AccessAfterDisarm {
        /// The register.
        offset: u32,
        /// A write (else a read).
        write: bool,
    },
}

/// Counters of the model (the summary's `irq` fields).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IntcStats {
    /// Events raised at a known source.
    pub raised: u64,
    /// Events whose bits were all disabled.
    pub dropped_disabled: u64,
    /// MSIs generated.
    pub msis: u64,
    /// Identities presented with DataValid.
    pub identities: u64,
    /// Late windows opened ([`Intc::late_window_open`]).
    pub disarms: u64,
    /// Handler-path accesses inside a late window.
    pub accesses_after_disarm: u64,
}

/// Whether `offset` is a register an interrupt handler's service path
/// touches (upstream `dg1_irq_handler`, `gt_irq_handler`,
/// `gt_engine_identity`, `xe_hw_error_irq_handler`; the flow of seed 000
/// L2338-2360): the tile and primary registers, each bank's IIR, selector
/// and identity, and the GT error status registers. Enables and masks are
/// not: a reset or an arm writes those, a handler does not.
fn handler_reg(offset: u32) -> bool {
    offset == DG1_MSTR_TILE_INTR
        || offset == GFX_MSTR_IRQ
        || (0..BANKS).any(|b| {
            offset == gt_intr_dw(b)
                || offset == intr_identity_reg(b)
                || offset == iir_reg_selector(b)
        })
        || [Severity::Correctable, Severity::NonFatal, Severity::Fatal]
            .into_iter()
            .any(|sev| offset == err_stat_gt_reg(sev) || offset == dev_err_stat_reg(sev))
}

#[derive(Debug, Clone, Copy, Default)]
struct Bank {
    /// The software-visible second-level IIR.
    iir: u32,
    /// Events that arrived after the snapshot (L2221).
    secondary: u32,
    /// A read with bits set took a snapshot that is not yet fully cleared.
    snapshot: bool,
    /// IIR bits whose engine was selected since the bit was set.
    serviced: u32,
    selector: u32,
    identity: u32,
}

/// The interrupt controller of one tile.
#[derive(Debug, Clone)]
pub struct Intc {
    faults: IntcFaults,
    enables: [u32; ENABLES.len()],
    masks: [u32; MASKS.len()],
    /// Per [`SOURCES`] entry: the collapsing register (L2213).
    collapsing: [u16; SOURCES.len()],
    banks: [Bank; BANKS],
    /// `GFX_MSTR_IRQ` latched bits 30:0.
    primary: u32,
    /// `GFX_MSTR_IRQ` bit 31, storage.
    primary_31: bool,
    /// `DG1_MSTR_TILE_INTR` tile bits (only tile 0 exists on DG2/ATS-M).
    tile_bits: u32,
    tile_enable: bool,
    /// Whether the MSI condition (enable and a tile bit) held after the
    /// last change: an MSI is sent on its rising edge.
    asserted: bool,
    err_gt: [u32; 3],
    err_dev: [u32; 3],
    err_routing: u32,
    /// IMR and IER of the PCU and GU_MISC groups (their IIRs read 0:
    /// nothing in the mock raises them). `[MODEL]`: reset IMR all ones,
    /// IER 0, as upstream's `mask_and_disable` leaves them.
    group_imr: [u32; 2],
    group_ier: [u32; 2],
    msis_pending: u32,
    /// The late window is open: software reset the interrupts and has not
    /// armed them again (see [`Intc::late_window_open`]).
    late_window: bool,
    stats: IntcStats,
    log: Vec<IntcEvent>,
}

impl Intc {
    /// The controller after reset: enables 0, every mask all ones, nothing
    /// pending, tile enable off. `[MODEL]`: the seed gives no reset values;
    /// these are the values upstream's reset writes (`xe_irq.c`
    /// `gt_irq_reset`, `dg1_intr_disable`), so a driver that skips its own
    /// reset sees a quiet device.
    pub fn new(faults: IntcFaults) -> Self {
        Self {
            faults,
            enables: [0; ENABLES.len()],
            masks: [u32::MAX; MASKS.len()],
            collapsing: [0; SOURCES.len()],
            banks: [Bank::default(); BANKS],
            primary: 0,
            primary_31: false,
            tile_bits: 0,
            tile_enable: false,
            asserted: false,
            err_gt: [0; 3],
            err_dev: [0; 3],
            err_routing: 0,
            group_imr: [u32::MAX; 2],
            group_ier: [0; 2],
            msis_pending: 0,
            late_window: false,
            stats: IntcStats::default(),
            log: Vec::new(),
        }
    }

    /// Function reset: back to [`Intc::new`]'s state; MSIs not yet taken are
    /// dropped, the counters stay.
    pub fn reset(&mut self) {
        let stats = self.stats;
        let log = std::mem::take(&mut self.log);
        *self = Self::new(self.faults);
        self.stats = stats;
        self.log = log;
    }

    /// What happened since the last call, in order.
    pub fn take_events(&mut self) -> Vec<IntcEvent> {
        std::mem::take(&mut self.log)
    }

    /// Whether the late window is open. It opens when software finishes an
    /// interrupt reset: the write of all ones to `GFX_MSTR_IRQ` (upstream's
    /// last step, `xe_irq.c` `xe_irq_reset` -> `dg1_irq_reset_mstr`, "the
    /// tile's top-level status register should be the last one to be
    /// reset") while the tile enable is off (`dg1_intr_disable`, its first
    /// step) and every engine enable register reads 0 (`gt_irq_reset`).
    /// It closes when software arms again (a `DG1_MSTR_TILE_INTR` write
    /// with `DG1_MSTR_IRQ` set, `dg1_intr_enable`), when Bus Master Enable
    /// is set again (the next binding's first step; an MSI cannot be
    /// delivered without it), or at a function reset. `[MODEL]`: no source
    /// defines this window; it is the device's view of "the driver tore its
    /// interrupts down", and a handler-path access inside it
    /// ([`handler_reg`]) can only come from a handler that ran after the
    /// teardown, which must touch nothing (the issue 27 item 7 rule).
    pub fn late_window_open(&self) -> bool {
        self.late_window
    }

    /// Bus Master Enable went from 0 to 1: a new binding starts, the late
    /// window closes.
    pub fn bus_master_on(&mut self) {
        self.late_window = false;
    }

    /// Counts a handler-path access inside the late window, closing the
    /// window first if the access is an arm.
    fn note_late(&mut self, offset: u32, write: Option<u32>) {
        if !self.late_window {
            return;
        }
        if offset == DG1_MSTR_TILE_INTR && write.is_some_and(|v| v & DG1_MSTR_IRQ != 0) {
            self.late_window = false;
            return;
        }
        if handler_reg(offset) {
            self.stats.accesses_after_disarm += 1;
            self.log.push(IntcEvent::AccessAfterDisarm {
                offset,
                write: write.is_some(),
            });
        }
    }

    /// The counters.
    pub fn stats(&self) -> IntcStats {
        self.stats
    }

    /// Whether the interrupt line is up: the tile enable is set and a tile
    /// bit is pending (the level the MSIs are the rising edges of; INTx
    /// follows it).
    pub fn asserted(&self) -> bool {
        self.asserted
    }

    /// MSIs generated since the last call; the device sends that many.
    pub fn take_msis(&mut self) -> u32 {
        std::mem::take(&mut self.msis_pending)
    }

    /// Whether `src` is a modelled source.
    pub fn has_source(src: Source) -> bool {
        SOURCES.iter().any(|d| d.src == src)
    }

    /// An engine's interrupt message: `data` is its 16 event bits (seed 000
    /// L2182). Used by the GuC model (`GUC_INTR_GUC2HOST` on
    /// [`Source::GUC`]), future engines and tests.
    ///
    /// # Errors
    ///
    /// [`UnknownSource`] for a class/instance the model has no bit for.
    pub fn raise(&mut self, src: Source, data: u16) -> Result<Raised, UnknownSource> {
        let i = SOURCES
            .iter()
            .position(|d| d.src == src)
            .ok_or(UnknownSource(src))?;
        self.stats.raised += 1;
        let enabled = data & self.enable_of(i);
        if enabled == 0 {
            self.stats.dropped_disabled += 1;
            self.log.push(IntcEvent::Raised {
                src,
                data,
                outcome: Raised::Dropped,
            });
            return Ok(Raised::Dropped);
        }
        self.collapsing[i] |= enabled;
        let r = if self.forward(i) {
            Raised::Forwarded
        } else {
            Raised::Pending
        };
        self.log.push(IntcEvent::Raised {
            src,
            data,
            outcome: r,
        });
        self.update_msi();
        Ok(r)
    }

    /// Sets GT error bits of `severity` (seed 000 L2312-2314), as a unit
    /// reporting an error would: the GT error register, the device error
    /// source's GT bit, and `ERROR_IRQ(severity)` in the primary register.
    pub fn raise_gt_error(&mut self, sev: Severity, bits: u32) {
        if bits == 0 {
            return;
        }
        let s = sev as usize;
        self.log.push(IntcEvent::GtError { sev, bits });
        self.err_gt[s] |= bits;
        self.err_dev[s] |= XE_GT_ERROR;
        self.latch_primary(error_irq(sev));
        self.update_msi();
    }

    /// Reads the dword at `offset`; `None` if it is not one of this unit's.
    /// A read of `GT_INTR_DW` with bits set takes the snapshot (L2219).
    pub fn read(&mut self, offset: u32) -> Option<u32> {
        self.note_late(offset, None);
        if let Some(i) = ENABLES.iter().position(|&o| o == offset) {
            return Some(self.enables[i]);
        }
        if let Some(i) = MASKS.iter().position(|&o| o == offset) {
            return Some(self.masks[i]);
        }
        for b in 0..BANKS {
            if offset == gt_intr_dw(b) {
                let bank = &mut self.banks[b];
                if bank.iir != 0 {
                    bank.snapshot = true;
                }
                return Some(bank.iir);
            }
            if offset == intr_identity_reg(b) {
                return Some(self.banks[b].identity);
            }
            if offset == iir_reg_selector(b) {
                return Some(self.banks[b].selector);
            }
        }
        for sev in [Severity::Correctable, Severity::NonFatal, Severity::Fatal] {
            if offset == err_stat_gt_reg(sev) {
                return Some(self.err_gt[sev as usize]);
            }
            if offset == dev_err_stat_reg(sev) {
                return Some(self.err_dev[sev as usize]);
            }
        }
        if let Some((g, reg)) = group_reg(offset) {
            return Some(match reg {
                GroupReg::Imr => self.group_imr[g],
                GroupReg::Iir => 0,
                GroupReg::Ier => self.group_ier[g],
            });
        }
        let v = match offset {
            DG1_MSTR_TILE_INTR => self.tile_bits | if self.tile_enable { DG1_MSTR_IRQ } else { 0 },
            GFX_MSTR_IRQ => self.primary | if self.primary_31 { MASTER_IRQ } else { 0 },
            DEV_ERR_ROUTING_CTRL => self.err_routing,
            _ => return None,
        };
        Some(v)
    }

    /// Writes the dword at `offset`; `None` if it is not one of this
    /// unit's. Rule breaks are recorded as violations in `rec`.
    pub fn write(&mut self, offset: u32, value: u32, rec: &mut Recorder) -> Option<()> {
        self.note_late(offset, Some(value));
        if let Some(i) = ENABLES.iter().position(|&o| o == offset) {
            // Enables act on arriving events only (L2211): what already sits
            // in a collapsing register stays.
            self.enables[i] = value;
            return Some(());
        }
        if let Some(i) = MASKS.iter().position(|&o| o == offset) {
            self.masks[i] = value;
            // Unmasking lets waiting events on (L2213).
            let hit: Vec<usize> = (0..SOURCES.len())
                .filter(|&s| SOURCES[s].mask.0 == offset)
                .collect();
            for s in hit {
                self.forward(s);
            }
            self.update_msi();
            return Some(());
        }
        for b in 0..BANKS {
            if offset == gt_intr_dw(b) {
                self.write_dw(b, value, rec);
                self.update_msi();
                return Some(());
            }
            if offset == iir_reg_selector(b) {
                self.select(b, value, rec);
                return Some(());
            }
            if offset == intr_identity_reg(b) {
                self.write_identity(b, value);
                self.update_msi();
                return Some(());
            }
        }
        for sev in [Severity::Correctable, Severity::NonFatal, Severity::Fatal] {
            if offset == err_stat_gt_reg(sev) {
                self.err_gt[sev as usize] &= !value;
                return Some(());
            }
            if offset == dev_err_stat_reg(sev) {
                self.err_dev[sev as usize] &= !value;
                return Some(());
            }
        }
        if let Some((g, reg)) = group_reg(offset) {
            match reg {
                GroupReg::Imr => self.group_imr[g] = value,
                // RW1C, and nothing is ever set.
                GroupReg::Iir => {}
                GroupReg::Ier => self.group_ier[g] = value,
            }
            return Some(());
        }
        match offset {
            DG1_MSTR_TILE_INTR => {
                // Bit 31 is the enable; the tile bits are RW1C (L2296,
                // L2324; `dg1_intr_disable` writes 0 to disable without
                // acknowledging, then writes back the bits it read).
                self.tile_enable = value & DG1_MSTR_IRQ != 0;
                self.tile_bits &= !(value & !DG1_MSTR_IRQ);
            }
            GFX_MSTR_IRQ => {
                // RW1C except bit 31 (L2326).
                self.primary &= !(value & !MASTER_IRQ);
                self.primary_31 = value & MASTER_IRQ != 0;
                if value == u32::MAX
                    && !self.tile_enable
                    && self.enables.iter().all(|&e| e == 0)
                    && !self.late_window
                {
                    self.late_window = true;
                    self.stats.disarms += 1;
                    self.log.push(IntcEvent::Disarmed);
                }
            }
            DEV_ERR_ROUTING_CTRL => self.err_routing = value,
            _ => return None,
        }
        self.update_msi();
        Some(())
    }

    // ---- internals ---------------------------------------------------------

    fn enable_of(&self, i: usize) -> u16 {
        let (off, half) = SOURCES[i].enable;
        let r = ENABLES
            .iter()
            .position(|&o| o == off)
            .map_or(0, |k| self.enables[k]);
        half.get(r)
    }

    fn mask_of(&self, i: usize) -> u16 {
        let (off, half) = SOURCES[i].mask;
        let r = MASKS
            .iter()
            .position(|&o| o == off)
            .map_or(u32::MAX, |k| self.masks[k]);
        half.get(r)
    }

    /// Moves source `i`'s unmasked collapsing bits on to its second-level
    /// bit (L2215); whether there were any.
    fn forward(&mut self, i: usize) -> bool {
        if self.collapsing[i] & !self.mask_of(i) == 0 {
            return false;
        }
        let d = SOURCES[i];
        let bit = 1u32 << d.bit;
        let bank = &mut self.banks[d.bank];
        if bank.iir & bit != 0 && bank.serviced & bit == 0 {
            // Already requested and not yet selected: the selection will
            // present these bits with the others.
        } else if bank.snapshot {
            // Under service: the record software works from stays put (L2221).
            bank.secondary |= bit;
        } else if bank.iir & bit == 0 {
            bank.iir |= bit;
            self.dw_event(d.bank);
        }
        true
    }

    /// A DW-level event of `bank` (L2205, L2225).
    fn dw_event(&mut self, bank: usize) {
        self.latch_primary(gt_dw_irq(bank));
    }

    fn latch_primary(&mut self, bits: u32) {
        self.primary |= bits;
        // The tile register's bit t says tile t's primary register has
        // something (L2334-2336; `DG1_MSTR_TILE(t)`); one tile here.
        self.tile_bits |= 1;
    }

    /// An MSI on the rising edge of "enabled and a tile bit pending".
    fn update_msi(&mut self) {
        let now = self.tile_enable && self.tile_bits != 0;
        if now && !self.asserted {
            self.msis_pending += 1;
            self.stats.msis += 1;
            self.log.push(IntcEvent::Msi);
        }
        self.asserted = now;
    }

    fn select(&mut self, b: usize, value: u32, rec: &mut Recorder) {
        if !value.is_power_of_two() {
            rec.violation(
                SELECTOR_NOT_ONE_HOT,
                format!("IIR_REG_SELECTOR{b} = {value:#010x} is not one-hot; ignored"),
            );
            return;
        }
        if self.banks[b].iir & value == 0 {
            rec.violation(
                SELECTOR_NOT_PENDING,
                format!(
                    "IIR_REG_SELECTOR{b} = {value:#010x} selects a bit GT_INTR_DW{b} ({:#010x}) does not have; ignored",
                    self.banks[b].iir
                ),
            );
            return;
        }
        if self.banks[b].identity & INTR_DATA_VALID != 0 {
            rec.violation(
                IDENTITY_NOT_CLEARED,
                format!(
                    "IIR_REG_SELECTOR{b} written while INTR_IDENTITY_REG{b} ({:#010x}) still has DataValid; its events are lost",
                    self.banks[b].identity
                ),
            );
        }
        let bank = &mut self.banks[b];
        bank.selector = value;
        bank.serviced |= value;
        let bit = value.trailing_zeros();
        let Some(i) = SOURCES.iter().position(|d| d.bank == b && d.bit == bit) else {
            // A pending bit always has a source; nothing to present otherwise.
            bank.identity = 0;
            return;
        };
        // The unmasked first-level bits move to the shared IIR; masked ones
        // stay collapsed (L2231, L2213).
        let mask = self.mask_of(i);
        let data = self.collapsing[i] & !mask;
        self.collapsing[i] &= mask;
        let bank = &mut self.banks[b];
        let src = SOURCES[i].src;
        if self.faults.data_valid_never {
            bank.identity = 0;
            if data != 0 {
                self.log.push(IntcEvent::Serviced(src));
            }
            return;
        }
        let (class, instance) = if self.faults.identity_garbage {
            (GARBAGE_CLASS, GARBAGE_INSTANCE)
        } else {
            (src.class as u32, u32::from(src.instance))
        };
        bank.identity = INTR_DATA_VALID | instance << 20 | class << 16 | u32::from(data);
        self.stats.identities += 1;
        self.log.push(IntcEvent::Identity {
            bank: b,
            src,
            identity: bank.identity,
        });
    }

    fn write_identity(&mut self, b: usize, value: u32) {
        let bank = &mut self.banks[b];
        if value & INTR_DATA_VALID == 0 {
            // The pseudocode's "same bits set" clear (L2353) of data bits.
            bank.identity &= !(value & 0xFFFF);
            return;
        }
        let was_valid = bank.identity & INTR_DATA_VALID != 0;
        let data = bank.identity & 0xFFFF;
        let bit = bank.selector.trailing_zeros();
        bank.identity = 0;
        bank.selector = 0;
        if !was_valid || data == 0 {
            return;
        }
        let served = SOURCES.iter().find(|d| d.bank == b && d.bit == bit);
        if let Some(d) = served {
            self.log.push(IntcEvent::Serviced(d.src));
        }
        let Some(storm) = self.faults.storm else {
            return;
        };
        let hit = SOURCES
            .iter()
            .position(|d| d.bank == b && d.bit == bit && d.src == storm);
        if let Some(i) = hit {
            // The stormy source fires again at once, through its enable and
            // mask like any event.
            // CAST: the identity's data field is 16 bits.
            let _ = self.raise(SOURCES[i].src, data as u16);
        }
    }

    fn write_dw(&mut self, b: usize, value: u32, rec: &mut Recorder) {
        let bank = &mut self.banks[b];
        let clear = value & bank.iir;
        let unserviced = clear & !bank.serviced;
        if unserviced != 0 {
            rec.violation(
                DW_CLEARED_UNSERVICED,
                format!(
                    "GT_INTR_DW{b} bits {unserviced:#010x} cleared before selector/identity service"
                ),
            );
        }
        bank.iir &= !clear;
        bank.serviced &= !clear;
        if bank.iir == 0 && bank.snapshot {
            bank.snapshot = false;
            let next = std::mem::take(&mut bank.secondary);
            if next != 0 {
                // Events from the secondary storage: a second DW-level
                // event (L2225).
                bank.iir = next;
                self.dw_event(b);
            }
        }
        // A source whose events stayed collapsed past the clear (delivered
        // while no snapshot held them) asks again.
        let in_bank: Vec<usize> = (0..SOURCES.len())
            .filter(|&s| SOURCES[s].bank == b)
            .collect();
        for s in in_bank {
            self.forward(s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::ManualClock;
    use crate::trace::TraceWriter;
    use std::sync::Arc;

    fn rec() -> Recorder {
        Recorder::new(Arc::new(ManualClock::new()), TraceWriter::disabled(), None)
    }

    fn kinds(r: &Recorder, kind: &str) -> u64 {
        r.summary(false)
            .violation_kinds
            .get(kind)
            .copied()
            .unwrap_or(0)
    }

    const VCS0: Source = Source {
        class: Class::VideoDecode,
        instance: 0,
    };
    const VCS3: Source = Source {
        class: Class::VideoDecode,
        instance: 3,
    };
    const RCS0: Source = Source {
        class: Class::Render,
        instance: 0,
    };
    const KCR: Source = Source {
        class: Class::Other,
        instance: 4,
    };

    /// Upstream's post-install for the GuC, RCS and VCS/VECS: enables set,
    /// masks cleared for them, tile enable on.
    fn armed(faults: IntcFaults, r: &mut Recorder) -> Intc {
        let mut c = Intc::new(faults);
        c.write(GUC_SG_INTR_ENABLE, u32::from(GUC_INTR_GUC2HOST) << 16, r);
        c.write(GUC_SG_INTR_MASK, !(u32::from(GUC_INTR_GUC2HOST) << 16), r);
        c.write(RENDER_COPY_INTR_ENABLE, 0x0109_0109, r);
        c.write(RCS0_RSVD_INTR_MASK, !0x0109_0000, r);
        c.write(VCS_VECS_INTR_ENABLE, 0x0001_0001, r);
        c.write(VCS0_VCS1_INTR_MASK, !0x0001_0001, r);
        c.write(VCS2_VCS3_INTR_MASK, !0x0001_0001, r);
        c.write(DG1_MSTR_TILE_INTR, DG1_MSTR_IRQ, r);
        assert_eq!(c.take_msis(), 0);
        c
    }

    /// What one ISR pass returns: identities per bank, in bit order.
    type Handled = Vec<(usize, u32)>;

    /// The PRM's ISR (seed 000 L2333-2405) as xe runs it (`dg1_irq_handler`,
    /// `gt_irq_handler`).
    fn isr(c: &mut Intc, r: &mut Recorder) -> Handled {
        let mut out = Vec::new();
        c.write(DG1_MSTR_TILE_INTR, 0, r);
        let tiles = c.read(DG1_MSTR_TILE_INTR).unwrap_or(0);
        if tiles != 0 {
            c.write(DG1_MSTR_TILE_INTR, tiles, r);
            let master = c.read(GFX_MSTR_IRQ).unwrap_or(0);
            c.write(GFX_MSTR_IRQ, master, r);
            for b in 0..BANKS {
                if master & gt_dw_irq(b) == 0 {
                    continue;
                }
                let dw = c.read(gt_intr_dw(b)).unwrap_or(0);
                for bit in 0..32 {
                    if dw & 1 << bit == 0 {
                        continue;
                    }
                    c.write(iir_reg_selector(b), 1 << bit, r);
                    let ident = c.read(intr_identity_reg(b)).unwrap_or(0);
                    if ident & INTR_DATA_VALID != 0 {
                        c.write(intr_identity_reg(b), ident, r);
                    }
                    out.push((b, ident));
                }
                c.write(gt_intr_dw(b), dw, r);
            }
        }
        c.write(DG1_MSTR_TILE_INTR, DG1_MSTR_IRQ, r);
        out
    }

    fn ident(class: Class, instance: u32, data: u16) -> u32 {
        INTR_DATA_VALID | instance << 20 | (class as u32) << 16 | u32::from(data)
    }

    #[test]
    fn offsets_match_upstream_and_the_seed() {
        assert_eq!(gt_intr_dw(0), 0x19_0018);
        assert_eq!(gt_intr_dw(1), 0x19_001C);
        assert_eq!(intr_identity_reg(1), 0x19_0064);
        assert_eq!(iir_reg_selector(1), 0x19_0074);
        assert_eq!(err_stat_gt_reg(Severity::Correctable), 0x10_0160);
        assert_eq!(err_stat_gt_reg(Severity::Fatal), 0x10_0168);
        assert_eq!(dev_err_stat_reg(Severity::Correctable), 0x10_017C);
        assert_eq!(dev_err_stat_reg(Severity::NonFatal), 0x10_0178);
        assert_eq!(dev_err_stat_reg(Severity::Fatal), 0x10_0174);
        assert_eq!(error_irq(Severity::Fatal), 1 << 28);
        // Every source has its own bank bit and its own mask field.
        for (i, a) in SOURCES.iter().enumerate() {
            for b in &SOURCES[i + 1..] {
                assert!(
                    (a.bank, a.bit) != (b.bank, b.bit),
                    "{:?} {:?}",
                    a.src,
                    b.src
                );
                assert!(a.mask != b.mask, "{:?} {:?}", a.src, b.src);
                assert!(a.src != b.src);
            }
        }
    }

    /// One GuC-to-host event: MSI once, then the ISR reads the identity
    /// the PRM's format gives (class 4, instance 0, bit 15), and afterwards
    /// everything is clear and nothing fires again.
    #[test]
    fn guc_event_delivers_one_msi_and_its_identity() {
        let mut r = rec();
        let mut c = armed(IntcFaults::default(), &mut r);
        assert_eq!(
            c.raise(Source::GUC, GUC_INTR_GUC2HOST),
            Ok(Raised::Forwarded)
        );
        assert_eq!(c.take_msis(), 1);
        assert_eq!(c.read(GFX_MSTR_IRQ), Some(gt_dw_irq(0)));
        assert_eq!(c.read(DG1_MSTR_TILE_INTR), Some(DG1_MSTR_IRQ | 1));
        let got = isr(&mut c, &mut r);
        assert_eq!(got, vec![(0, ident(Class::Other, 0, GUC_INTR_GUC2HOST))]);
        assert_eq!(got[0].1, 0x8004_8000);
        assert_eq!(c.take_msis(), 0, "nothing pending at re-enable");
        assert_eq!(c.read(gt_intr_dw(0)), Some(0));
        assert_eq!(c.read(GFX_MSTR_IRQ), Some(0));
        assert_eq!(c.read(DG1_MSTR_TILE_INTR), Some(DG1_MSTR_IRQ));
        assert_eq!(r.summary(false).violations, 0);
        assert_eq!(c.stats().msis, 1);
        assert_eq!(c.stats().identities, 1);
    }

    /// Class enables are shared (VCS0 and VCS3 both pass with the one VCS
    /// enable); the disabled bits of an event are dropped, not kept.
    #[test]
    fn enable_is_per_class_and_drops_disabled_bits() {
        let mut r = rec();
        let mut c = armed(IntcFaults::default(), &mut r);
        assert_eq!(c.raise(VCS0, 1), Ok(Raised::Forwarded));
        assert_eq!(c.raise(VCS3, 1), Ok(Raised::Forwarded));
        // Bit 4 is not enabled for VCS: dropped.
        assert_eq!(c.raise(VCS0, 1 << 4), Ok(Raised::Dropped));
        assert_eq!(c.stats().dropped_disabled, 1);
        let got = isr(&mut c, &mut r);
        assert_eq!(
            got,
            vec![
                (1, ident(Class::VideoDecode, 0, 1)),
                (1, ident(Class::VideoDecode, 3, 1))
            ]
        );
        // Enabling bit 4 later does not bring the dropped event back.
        c.write(VCS_VECS_INTR_ENABLE, 0x0011_0001, &mut r);
        c.write(VCS0_VCS1_INTR_MASK, 0, &mut r);
        assert!(isr(&mut c, &mut r).is_empty());
        assert_eq!(r.summary(false).violations, 0);
    }

    /// Class Other has one enable per instance: the GuC's enable does not
    /// let KCR through, KCR's own does.
    #[test]
    fn other_class_enable_is_per_instance() {
        let mut r = rec();
        let mut c = armed(IntcFaults::default(), &mut r);
        c.write(CRYPTO_RSVD_INTR_MASK, 0, &mut r);
        assert_eq!(c.raise(KCR, 1 << 15), Ok(Raised::Dropped));
        c.write(CRYPTO_RSVD_INTR_ENABLE, 0x0002 << 16, &mut r);
        assert_eq!(c.raise(KCR, 1 << 1), Ok(Raised::Forwarded));
        assert_eq!(isr(&mut c, &mut r), vec![(0, ident(Class::Other, 4, 2))]);
        // And KCR's enable does not open the GuC's bit 1.
        assert_eq!(c.raise(Source::GUC, 1 << 1), Ok(Raised::Dropped));
    }

    /// Masks are per instance: with VCS3 masked, its event waits in the
    /// collapsing register (no MSI, not in the DW); VCS0 is unaffected;
    /// unmasking VCS3 delivers it exactly once.
    #[test]
    fn masked_event_stays_pending_and_fires_once_unmasked() {
        let mut r = rec();
        let mut c = armed(IntcFaults::default(), &mut r);
        c.write(VCS2_VCS3_INTR_MASK, u32::MAX, &mut r);
        assert_eq!(c.raise(VCS3, 1), Ok(Raised::Pending));
        assert_eq!(c.take_msis(), 0);
        assert_eq!(c.read(gt_intr_dw(1)), Some(0));
        assert_eq!(c.raise(VCS0, 1), Ok(Raised::Forwarded));
        assert_eq!(c.take_msis(), 1);
        assert_eq!(
            isr(&mut c, &mut r),
            vec![(1, ident(Class::VideoDecode, 0, 1))]
        );
        assert_eq!(c.take_msis(), 0);
        c.write(VCS2_VCS3_INTR_MASK, !0x0001_0001, &mut r);
        assert_eq!(c.take_msis(), 1);
        assert_eq!(
            isr(&mut c, &mut r),
            vec![(1, ident(Class::VideoDecode, 3, 1))]
        );
        assert_eq!(c.take_msis(), 0);
        assert!(isr(&mut c, &mut r).is_empty(), "delivered once");
    }

    /// Bits masked at selection time stay collapsed; only the unmasked ones
    /// are presented.
    #[test]
    fn selection_presents_only_unmasked_bits() {
        let mut r = rec();
        let mut c = armed(IntcFaults::default(), &mut r);
        // RCS: user (0), context switch (8) enabled and unmasked, bit 3 enabled
        // but masked.
        c.write(RCS0_RSVD_INTR_MASK, !0x0101_0000, &mut r);
        c.raise(RCS0, 0x0109).expect("rcs");
        assert_eq!(
            isr(&mut c, &mut r),
            vec![(0, ident(Class::Render, 0, 0x0101))]
        );
        c.write(RCS0_RSVD_INTR_MASK, !0x0109_0000, &mut r);
        assert_eq!(
            isr(&mut c, &mut r),
            vec![(0, ident(Class::Render, 0, 0x0008))]
        );
    }

    /// No MSI while the tile master enable is off; the pending event fires
    /// when it is set again (L2403-2407).
    #[test]
    fn msi_only_while_the_tile_enable_is_set() {
        let mut r = rec();
        let mut c = armed(IntcFaults::default(), &mut r);
        c.write(DG1_MSTR_TILE_INTR, 0, &mut r);
        c.raise(Source::GUC, GUC_INTR_GUC2HOST).expect("guc");
        assert_eq!(c.take_msis(), 0);
        c.write(DG1_MSTR_TILE_INTR, DG1_MSTR_IRQ, &mut r);
        assert_eq!(c.take_msis(), 1);
        // While enabled and already asserted, a second event adds no MSI:
        // the handler that runs for the first one finds it.
        c.raise(VCS0, 1).expect("vcs");
        assert_eq!(c.take_msis(), 0);
        assert_eq!(isr(&mut c, &mut r).len(), 2);
    }

    /// Double-buffered IIR: an event after the DW read goes to secondary
    /// storage (the DW the ISR works from does not change), and the full
    /// clear raises a second DW event, so it is delivered by a second MSI.
    #[test]
    fn double_buffered_iir_holds_late_events_until_the_full_clear() {
        let mut r = rec();
        let mut c = armed(IntcFaults::default(), &mut r);
        c.raise(VCS0, 1).expect("vcs0");
        assert_eq!(c.take_msis(), 1);
        c.write(DG1_MSTR_TILE_INTR, 0, &mut r);
        c.write(DG1_MSTR_TILE_INTR, 1, &mut r);
        c.write(GFX_MSTR_IRQ, gt_dw_irq(1), &mut r);
        assert_eq!(c.read(gt_intr_dw(1)), Some(1));
        // VCS3 fires while VCS0 is being serviced.
        c.raise(VCS3, 1).expect("vcs3");
        assert_eq!(c.read(gt_intr_dw(1)), Some(1), "snapshot unchanged");
        c.write(iir_reg_selector(1), 1, &mut r);
        let id = c.read(intr_identity_reg(1)).expect("identity");
        c.write(intr_identity_reg(1), id, &mut r);
        assert_eq!(c.read(GFX_MSTR_IRQ), Some(0), "no DW event yet");
        c.write(gt_intr_dw(1), 1, &mut r);
        assert_eq!(c.read(gt_intr_dw(1)), Some(1 << 3), "secondary moved in");
        assert_eq!(c.read(GFX_MSTR_IRQ), Some(gt_dw_irq(1)));
        c.write(DG1_MSTR_TILE_INTR, DG1_MSTR_IRQ, &mut r);
        assert_eq!(c.take_msis(), 1, "the second DW event");
        assert_eq!(
            isr(&mut c, &mut r),
            vec![(1, ident(Class::VideoDecode, 3, 1))]
        );
        assert_eq!(r.summary(false).violations, 0);
    }

    /// The selector must be one-hot and select a bit the IIR has; either
    /// break is a violation of its own kind and presents nothing.
    #[test]
    fn selector_must_be_one_hot_and_pending() {
        let mut r = rec();
        let mut c = armed(IntcFaults::default(), &mut r);
        c.raise(VCS0, 1).expect("vcs0");
        c.raise(VCS3, 1).expect("vcs3");
        assert_eq!(c.read(gt_intr_dw(1)), Some(0b1001));
        c.write(iir_reg_selector(1), 0b1001, &mut r);
        assert_eq!(kinds(&r, SELECTOR_NOT_ONE_HOT), 1);
        c.write(iir_reg_selector(1), 0, &mut r);
        assert_eq!(kinds(&r, SELECTOR_NOT_ONE_HOT), 2);
        assert_eq!(c.read(intr_identity_reg(1)), Some(0));
        c.write(iir_reg_selector(1), 0b10, &mut r);
        assert_eq!(kinds(&r, SELECTOR_NOT_PENDING), 1);
        assert_eq!(c.read(intr_identity_reg(1)), Some(0));
        // Bank 0 has nothing: any selection there is not pending.
        c.write(iir_reg_selector(0), 1, &mut r);
        assert_eq!(kinds(&r, SELECTOR_NOT_PENDING), 2);
        c.write(iir_reg_selector(1), 0b1000, &mut r);
        assert_eq!(
            c.read(intr_identity_reg(1)),
            Some(ident(Class::VideoDecode, 3, 1))
        );
        assert_eq!(r.summary(false).violations, 4);
    }

    /// Writing DataValid clears identity and selector; a write without it
    /// clears only the data bits written and leaves the service open, which
    /// the next selection records.
    #[test]
    fn identity_clear_semantics() {
        let mut r = rec();
        let mut c = armed(IntcFaults::default(), &mut r);
        c.raise(VCS0, 1).expect("vcs0");
        c.raise(VCS3, 1).expect("vcs3");
        c.read(gt_intr_dw(1));
        c.write(iir_reg_selector(1), 1, &mut r);
        assert_eq!(c.read(iir_reg_selector(1)), Some(1));
        c.write(intr_identity_reg(1), 1, &mut r);
        assert_eq!(
            c.read(intr_identity_reg(1)),
            Some(ident(Class::VideoDecode, 0, 0)),
            "data bit cleared, DataValid stays"
        );
        assert_eq!(c.read(iir_reg_selector(1)), Some(1));
        c.write(iir_reg_selector(1), 1 << 3, &mut r);
        assert_eq!(kinds(&r, IDENTITY_NOT_CLEARED), 1);
        c.write(intr_identity_reg(1), INTR_DATA_VALID, &mut r);
        assert_eq!(c.read(intr_identity_reg(1)), Some(0));
        assert_eq!(c.read(iir_reg_selector(1)), Some(0));
        assert_eq!(r.summary(false).violations, 1);
    }

    /// GT_INTR_DW is RW1C, and clearing a bit whose engine was not serviced
    /// is a violation (L2239); the serviced one is not.
    #[test]
    fn dw_is_rw1c_and_must_be_serviced_first() {
        let mut r = rec();
        let mut c = armed(IntcFaults::default(), &mut r);
        c.raise(VCS0, 1).expect("vcs0");
        c.raise(VCS3, 1).expect("vcs3");
        assert_eq!(c.read(gt_intr_dw(1)), Some(0b1001));
        c.write(gt_intr_dw(1), 0, &mut r);
        assert_eq!(
            c.read(gt_intr_dw(1)),
            Some(0b1001),
            "writing 0 clears nothing"
        );
        c.write(iir_reg_selector(1), 1, &mut r);
        c.write(intr_identity_reg(1), INTR_DATA_VALID, &mut r);
        c.write(gt_intr_dw(1), 1, &mut r);
        assert_eq!(kinds(&r, DW_CLEARED_UNSERVICED), 0);
        assert_eq!(c.read(gt_intr_dw(1)), Some(0b1000));
        c.write(gt_intr_dw(1), 0b1000, &mut r);
        assert_eq!(kinds(&r, DW_CLEARED_UNSERVICED), 1);
        // VCS3's event still sits in its collapsing register: it asks for
        // its second-level bit again instead of being lost.
        assert_eq!(c.read(gt_intr_dw(1)), Some(0b1000));
        assert_eq!(
            isr(&mut c, &mut r),
            vec![(1, ident(Class::VideoDecode, 3, 1))]
        );
        assert_eq!(c.read(gt_intr_dw(1)), Some(0));
        assert_eq!(kinds(&r, DW_CLEARED_UNSERVICED), 1);
    }

    /// Tile and primary registers: bits RW1C, bit 31 of each read/write;
    /// writing 0 to the tile register disables without acknowledging.
    #[test]
    fn tile_and_primary_rw1c_rules() {
        let mut r = rec();
        let mut c = armed(IntcFaults::default(), &mut r);
        c.raise(Source::GUC, GUC_INTR_GUC2HOST).expect("guc");
        c.write(DG1_MSTR_TILE_INTR, 0, &mut r);
        assert_eq!(c.read(DG1_MSTR_TILE_INTR), Some(1), "tile bit kept");
        c.write(DG1_MSTR_TILE_INTR, 1, &mut r);
        assert_eq!(c.read(DG1_MSTR_TILE_INTR), Some(0));
        c.write(GFX_MSTR_IRQ, MASTER_IRQ, &mut r);
        assert_eq!(
            c.read(GFX_MSTR_IRQ),
            Some(MASTER_IRQ | 1),
            "bit 31 stored, GT bit kept"
        );
        c.write(GFX_MSTR_IRQ, 1, &mut r);
        assert_eq!(c.read(GFX_MSTR_IRQ), Some(0), "RW1C, bit 31 written 0");
        // The GT DW is untouched by the upper levels' clears.
        assert_eq!(c.read(gt_intr_dw(0)), Some(1 << 25));
    }

    /// GT errors set on demand: the error register, the device error
    /// source's GT bit and ERROR_IRQ(severity), one MSI; all RW1C.
    #[test]
    fn gt_errors_latch_route_and_clear() {
        let mut r = rec();
        let mut c = armed(IntcFaults::default(), &mut r);
        c.raise_gt_error(Severity::NonFatal, 1 << 6);
        assert_eq!(c.take_msis(), 1);
        assert_eq!(c.read(0x10_0164), Some(1 << 6));
        assert_eq!(c.read(0x10_0178), Some(XE_GT_ERROR));
        assert_eq!(c.read(0x10_0160), Some(0));
        assert_eq!(c.read(GFX_MSTR_IRQ), Some(error_irq(Severity::NonFatal)));
        c.write(0x10_0164, 1 << 6, &mut r);
        c.write(0x10_0178, XE_GT_ERROR, &mut r);
        assert_eq!(c.read(0x10_0164), Some(0));
        assert_eq!(c.read(0x10_0178), Some(0));
        c.write(DEV_ERR_ROUTING_CTRL, 0x55, &mut r);
        assert_eq!(c.read(DEV_ERR_ROUTING_CTRL), Some(0x55));
        assert!(isr(&mut c, &mut r).is_empty(), "no GT DW bit");
        assert_eq!(c.read(GFX_MSTR_IRQ), Some(0));
    }

    #[test]
    fn unknown_sources_and_offsets() {
        let mut r = rec();
        let mut c = Intc::new(IntcFaults::default());
        let sctrg = Source {
            class: Class::Other,
            instance: 3,
        };
        assert_eq!(c.raise(sctrg, 1), Err(UnknownSource(sctrg)));
        assert_eq!(c.stats().raised, 0);
        assert_eq!(c.read(0x19_0000), None);
        assert_eq!(c.write(0x19_00FC, 1, &mut r), None);
        assert!(Intc::has_source(Source::GUC));
    }

    /// Reset: enables 0, masks all ones, nothing pending.
    #[test]
    fn reset_values() {
        let mut r = rec();
        let mut c = armed(IntcFaults::default(), &mut r);
        c.raise(Source::GUC, GUC_INTR_GUC2HOST).expect("guc");
        c.reset();
        assert_eq!(c.read(GUC_SG_INTR_ENABLE), Some(0));
        assert_eq!(c.read(GUC_SG_INTR_MASK), Some(u32::MAX));
        assert_eq!(c.read(gt_intr_dw(0)), Some(0));
        assert_eq!(c.read(DG1_MSTR_TILE_INTR), Some(0));
        assert_eq!(c.take_msis(), 0);
        assert_eq!(c.raise(Source::GUC, GUC_INTR_GUC2HOST), Ok(Raised::Dropped));
        // The PCU / GU_MISC groups: IMR all ones, IIR and IER 0; IMR and IER
        // are storage, the IIR stays 0.
        for base in [PCU_IRQ_OFFSET, GU_MISC_IRQ_OFFSET] {
            assert_eq!(c.read(base + 4), Some(u32::MAX));
            assert_eq!(c.read(base + 8), Some(0));
            assert_eq!(c.read(base + 0xC), Some(0));
            assert_eq!(c.read(base), None, "ISR not modelled");
            c.write(base + 4, 0x10, &mut r);
            c.write(base + 8, u32::MAX, &mut r);
            c.write(base + 0xC, 0x20, &mut r);
            assert_eq!(c.read(base + 4), Some(0x10));
            assert_eq!(c.read(base + 8), Some(0));
            assert_eq!(c.read(base + 0xC), Some(0x20));
        }
        c.reset();
        assert_eq!(c.read(PCU_IRQ_OFFSET + 4), Some(u32::MAX));
    }

    /// Fault: DataValid never set. The identity reads 0 however long the
    /// driver polls; the driver's clear of the DW after its timeout is not
    /// a violation and nothing fires again.
    #[test]
    fn fault_data_valid_never() {
        let mut r = rec();
        let faults = IntcFaults {
            data_valid_never: true,
            ..IntcFaults::default()
        };
        let mut c = armed(faults, &mut r);
        c.raise(Source::GUC, GUC_INTR_GUC2HOST).expect("guc");
        assert_eq!(isr(&mut c, &mut r), vec![(0, 0)]);
        for _ in 0..100 {
            assert_eq!(c.read(intr_identity_reg(0)), Some(0));
        }
        assert_eq!(c.read(gt_intr_dw(0)), Some(0));
        assert_eq!(c.take_msis(), 1, "only the first");
        assert_eq!(r.summary(false).violations, 0);
        assert_eq!(c.stats().identities, 0);
    }

    /// Fault: identity garbage. DataValid and data are real, class and
    /// instance are the reserved 7 / 63.
    #[test]
    fn fault_identity_garbage() {
        let mut r = rec();
        let faults = IntcFaults {
            identity_garbage: true,
            ..IntcFaults::default()
        };
        let mut c = armed(faults, &mut r);
        c.raise(Source::GUC, GUC_INTR_GUC2HOST).expect("guc");
        let got = isr(&mut c, &mut r);
        assert_eq!(got, vec![(0, 0x83F7_8000)]);
        assert_eq!(got[0].1 >> 16 & 7, GARBAGE_CLASS);
        assert_eq!(got[0].1 >> 20 & 0x3F, GARBAGE_INSTANCE);
        assert_eq!(r.summary(false).violations, 0);
    }

    /// Fault: storm. Every service of the stormy source brings it back (one
    /// MSI per ISR pass, without end); once the driver masks it the storm
    /// stops, and the event that was pending at the mask is delivered after
    /// unmasking. Other sources are unaffected.
    #[test]
    fn fault_storm_refires_until_masked() {
        let mut r = rec();
        let faults = IntcFaults {
            storm: Some(Source::GUC),
            ..IntcFaults::default()
        };
        let mut c = armed(faults, &mut r);
        c.raise(Source::GUC, GUC_INTR_GUC2HOST).expect("guc");
        for pass in 0..50 {
            assert_eq!(c.take_msis(), 1, "pass {pass}");
            assert_eq!(
                isr(&mut c, &mut r),
                vec![(0, ident(Class::Other, 0, GUC_INTR_GUC2HOST))]
            );
        }
        assert_eq!(c.take_msis(), 1);
        // The driver's storm protection: mask the GuC, then handle the one
        // that is in flight.
        c.write(GUC_SG_INTR_MASK, u32::MAX, &mut r);
        assert_eq!(isr(&mut c, &mut r).len(), 1);
        assert_eq!(c.take_msis(), 0, "masked: quiet");
        assert!(isr(&mut c, &mut r).is_empty());
        // VCS0 is not stormy.
        c.raise(VCS0, 1).expect("vcs0");
        assert_eq!(c.take_msis(), 1);
        assert_eq!(isr(&mut c, &mut r).len(), 1);
        assert_eq!(c.take_msis(), 0);
        // Re-armed, the pending GuC event fires again (and keeps storming).
        c.write(
            GUC_SG_INTR_MASK,
            !(u32::from(GUC_INTR_GUC2HOST) << 16),
            &mut r,
        );
        assert_eq!(c.take_msis(), 1);
        assert_eq!(r.summary(false).violations, 0);
    }

    /// 1000 events in a burst, alternating GuC and VCS0, each handled as it
    /// comes: exactly one MSI and one identity per event, none lost or
    /// duplicated.
    #[test]
    fn burst_of_events_is_delivered_exactly_once_each() {
        let mut r = rec();
        let mut c = armed(IntcFaults::default(), &mut r);
        for i in 0..1000u32 {
            let (src, want) = if i % 2 == 0 {
                (Source::GUC, ident(Class::Other, 0, GUC_INTR_GUC2HOST))
            } else {
                (VCS0, ident(Class::VideoDecode, 0, 1))
            };
            let data = if i % 2 == 0 { GUC_INTR_GUC2HOST } else { 1 };
            c.raise(src, data).expect("raise");
            assert_eq!(c.take_msis(), 1, "event {i}");
            let bank = usize::from(i % 2 == 1);
            assert_eq!(isr(&mut c, &mut r), vec![(bank, want)], "event {i}");
            assert_eq!(c.take_msis(), 0, "event {i}");
        }
        assert_eq!(c.stats().msis, 1000);
        assert_eq!(c.stats().identities, 1000);
        assert_eq!(r.summary(false).violations, 0);
    }

    /// Every modelled source has a unique name that maps back to it; the
    /// names are the engines' (`rcs0`, `vecs3`) and the Other units'.
    #[test]
    fn source_names_round_trip() {
        assert_eq!(Source::all().count(), SOURCE_NAMES.len());
        for src in Source::all() {
            let name = src.name().expect("named");
            assert_eq!(Source::from_name(name), Some(src), "{name}");
        }
        assert_eq!(Source::from_name("guc"), Some(Source::GUC));
        assert_eq!(Source::from_name("rcs0"), Some(Source::RCS0));
        assert_eq!(
            Source::from_name("vecs3"),
            Some(Source {
                class: Class::VideoEnhance,
                instance: 3
            })
        );
        assert_eq!(Source::from_name("kcr"), Some(KCR));
        assert_eq!(
            Source::from_name("gsc").map(|s| (s.class, s.instance)),
            Some((Class::Other, 6))
        );
        assert_eq!(Source::from_name("sctrg"), None);
        assert_eq!(
            Source {
                class: Class::Other,
                instance: 3
            }
            .name(),
            None
        );
        for sev in Severity::ALL {
            assert_eq!(Severity::from_name(sev.name()), Some(sev));
        }
    }

    /// What the controller reports for the trace: the raise with its
    /// outcome, the MSI, the identity and the end of the service, in order.
    #[test]
    fn events_are_logged_in_order() {
        let mut r = rec();
        let mut c = armed(IntcFaults::default(), &mut r);
        c.take_events();
        c.raise(VCS3, 1 << 4).expect("vcs3");
        c.raise(Source::GUC, GUC_INTR_GUC2HOST).expect("guc");
        isr(&mut c, &mut r);
        c.raise_gt_error(Severity::Fatal, 2);
        assert_eq!(
            c.take_events(),
            vec![
                IntcEvent::Raised {
                    src: VCS3,
                    data: 1 << 4,
                    outcome: Raised::Dropped
                },
                IntcEvent::Raised {
                    src: Source::GUC,
                    data: GUC_INTR_GUC2HOST,
                    outcome: Raised::Forwarded
                },
                IntcEvent::Msi,
                IntcEvent::Identity {
                    bank: 0,
                    src: Source::GUC,
                    identity: 0x8004_8000
                },
                IntcEvent::Serviced(Source::GUC),
                IntcEvent::GtError {
                    sev: Severity::Fatal,
                    bits: 2
                },
                IntcEvent::Msi,
            ]
        );
        assert!(c.take_events().is_empty());
    }

    /// Events of one source that arrive before its service collapse into
    /// one identity with the OR of their bits (L2213-2215).
    #[test]
    fn events_before_service_collapse() {
        let mut r = rec();
        let mut c = armed(IntcFaults::default(), &mut r);
        c.raise(RCS0, 1).expect("user");
        c.raise(RCS0, 1).expect("user again");
        c.raise(RCS0, 1 << 8).expect("context switch");
        assert_eq!(c.take_msis(), 1);
        assert_eq!(
            isr(&mut c, &mut r),
            vec![(0, ident(Class::Render, 0, 0x0101))]
        );
        assert_eq!(c.take_msis(), 0);
    }

    /// Upstream's teardown (`xe_irq_reset` on DG2): tile enable off, the
    /// engine enables 0, the masks all ones, the primary register last.
    fn teardown(c: &mut Intc, r: &mut Recorder) {
        c.write(DG1_MSTR_TILE_INTR, 0, r);
        let t = c.read(DG1_MSTR_TILE_INTR).unwrap();
        if t != 0 {
            c.write(DG1_MSTR_TILE_INTR, t, r);
        }
        for e in ENABLES {
            c.write(e, 0, r);
        }
        for m in MASKS {
            c.write(m, u32::MAX, r);
        }
        c.write(GFX_MSTR_IRQ, u32::MAX, r);
    }

    fn arm(c: &mut Intc, r: &mut Recorder) {
        c.write(GUC_SG_INTR_ENABLE, u32::MAX, r);
        c.write(GUC_SG_INTR_MASK, 0, r);
        c.write(DG1_MSTR_TILE_INTR, DG1_MSTR_IRQ, r);
    }

    #[test]
    fn late_window_opens_on_the_teardowns_last_write() {
        let mut r = rec();
        let mut c = Intc::new(IntcFaults::default());
        arm(&mut c, &mut r);
        // A handler's entry also clears the tile enable: no window.
        c.write(DG1_MSTR_TILE_INTR, 0, &mut r);
        c.read(GFX_MSTR_IRQ);
        c.write(DG1_MSTR_TILE_INTR, DG1_MSTR_IRQ, &mut r);
        assert!(!c.late_window_open());
        // The teardown's own accesses before its last write are not late.
        teardown(&mut c, &mut r);
        assert!(c.late_window_open());
        assert_eq!(c.stats().disarms, 1);
        assert_eq!(c.stats().accesses_after_disarm, 0);
        assert!(c.take_events().contains(&IntcEvent::Disarmed));
    }

    #[test]
    fn late_window_needs_the_enables_off() {
        let mut r = rec();
        let mut c = Intc::new(IntcFaults::default());
        arm(&mut c, &mut r);
        // Tile enable off but the GuC's enable left on: not a teardown.
        c.write(DG1_MSTR_TILE_INTR, 0, &mut r);
        c.write(GFX_MSTR_IRQ, u32::MAX, &mut r);
        assert!(!c.late_window_open());
        assert_eq!(c.stats().disarms, 0);
    }

    #[test]
    fn late_window_counts_handler_path_accesses() {
        let mut r = rec();
        let mut c = Intc::new(IntcFaults::default());
        arm(&mut c, &mut r);
        teardown(&mut c, &mut r);
        c.take_events();
        // A late handler: tile, primary, IIR, selector, identity, error.
        c.write(DG1_MSTR_TILE_INTR, 0, &mut r);
        c.read(DG1_MSTR_TILE_INTR);
        c.read(GFX_MSTR_IRQ);
        c.read(gt_intr_dw(0));
        c.write(iir_reg_selector(0), 1, &mut r);
        c.read(intr_identity_reg(0));
        c.read(err_stat_gt_reg(Severity::Fatal));
        // Enables and masks are not on the handler's path.
        c.read(GUC_SG_INTR_ENABLE);
        c.write(GUC_SG_INTR_MASK, u32::MAX, &mut r);
        assert_eq!(c.stats().accesses_after_disarm, 7);
        let ev = c.take_events();
        assert!(ev.contains(&IntcEvent::AccessAfterDisarm {
            offset: gt_intr_dw(0),
            write: false,
        }));
        assert!(ev.contains(&IntcEvent::AccessAfterDisarm {
            offset: iir_reg_selector(0),
            write: true,
        }));
    }

    #[test]
    fn late_window_closes_on_arm_bus_master_or_reset() {
        let mut r = rec();
        let mut c = Intc::new(IntcFaults::default());
        teardown(&mut c, &mut r);
        assert!(c.late_window_open());
        // The arm's tile-enable write closes the window and is not counted.
        arm(&mut c, &mut r);
        assert!(!c.late_window_open());
        c.read(DG1_MSTR_TILE_INTR);
        assert_eq!(c.stats().accesses_after_disarm, 0);

        teardown(&mut c, &mut r);
        assert_eq!(c.stats().disarms, 2);
        c.bus_master_on();
        assert!(!c.late_window_open());
        // The next binding's own reset is not late; it opens a new window.
        c.write(DG1_MSTR_TILE_INTR, 0, &mut r);
        c.read(DG1_MSTR_TILE_INTR);
        assert_eq!(c.stats().accesses_after_disarm, 0);
        teardown(&mut c, &mut r);
        assert_eq!(c.stats().disarms, 3);

        c.reset();
        assert!(!c.late_window_open());
        c.read(GFX_MSTR_IRQ);
        assert_eq!(c.stats().accesses_after_disarm, 0);
        assert_eq!(c.stats().disarms, 3);
    }
}
