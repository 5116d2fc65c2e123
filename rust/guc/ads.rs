// SPDX-License-Identifier: GPL-2.0

//! ADS, the GuC's Additional Data Structures, in one local-memory object (layout in
//! `include/xehpg_abi.h`, from upstream `xe_guc_fwif.h` and `abi/guc_*_abi.h`), filled twice
//! as upstream does (`xe_guc_ads.c`):
//!
//! - for the first load, [`write_minimal`] (`xe_guc_ads_populate_minimal`): policies, an
//!   all-invalid mapping table and the private data pointer: enough to boot and serve
//!   `GET_HWCONFIG`, "does not support submissions";
//! - for the second, [`write_full`] (`xe_guc_ads_populate`): the engine enable masks and the
//!   logical-to-physical mapping table of the engines the fuses left ([`Present`]), each
//!   engine's register save/restore list, the golden contexts, capture lists that all point at
//!   one empty list, and the workaround KLVs DG2 and ATS-M get.
//!
//! Object layout ([`Layout`]), every part after the fixed head 4 KiB aligned as upstream's:
//! the `xehpg_guc_ads_blob` head, the register lists at `XEHPG_GUC_ADS_REGSET_OFFSET`, then
//! the golden contexts, one page of w/a KLVs, one page holding the null capture list, and the
//! GuC private data the firmware header asks for.
//!
//! Golden contexts differ from upstream in where the image comes from. xe runs a context per
//! class after the full load, lets the engine save it and copies the saved image into the ADS
//! (`xe_gt.c` `xe_gt_record_default_lrcs`, `xe_guc_ads.c` `guc_golden_lrc_populate`). This
//! driver writes the image it gives every context of its own (`engine::lrc::build`, restore
//! inhibited on first load) before the full load: its contexts start from that image, never
//! from a hardware-saved one, so that image is the default the GuC should reset an engine's
//! state to. The addresses and sizes are upstream's (`guc_golden_lrc_init`): the whole image
//! from its PPHWSP, and the engine state size without the execlists register list.
//!
//! Everything here runs in process context (probe), under the GuC's state lock.

use core::mem::{offset_of, size_of};

use kernel::{io::register::Register, prelude::*};

use super::{fw::Version, guc_class, klv::Writer, Obj};
use crate::{
    abi::*,
    engine::{ccs, lrc, regs as ering, workaround_save_restore, Class, Engine, Present, ENGINES},
    gt::{default_target, steering_of, Target, Topology},
    mem::lmem::LmemAccess,
    platform::{Die, Platform},
};

/// Scheduler policy defaults the GuC expects (`xe_guc_ads.c`, `guc_policies_init`).
const DPC_PROMOTE_TIME_US: u32 = 500_000;
const MAX_NUM_WORK_ITEMS: u32 = 15;

/// The GuC classes an Xe-HPG engine can have, with the engine class of each
/// (`xe_guc_ads.c` `guc_class_to_engine_class`; no GSC or paging engine on DG2).
const CLASSES: [(u32, Class); 5] = [
    (XEHPG_GUC_RENDER_CLASS, Class::Render),
    (XEHPG_GUC_VIDEO_CLASS, Class::VideoDecode),
    (XEHPG_GUC_VIDEOENHANCE_CLASS, Class::VideoEnhance),
    (XEHPG_GUC_BLITTER_CLASS, Class::Copy),
    (XEHPG_GUC_COMPUTE_CLASS, Class::Compute),
];

/// "Not mapped" in the mapping table (`guc_mapping_table_init_invalid`:
/// `GUC_MAX_INSTANCES_PER_CLASS`).
pub(crate) const MAPPING_INVALID: u8 = XEHPG_GUC_MAX_INSTANCES_PER_CLASS as u8;

const PAGE: usize = 4096;

const fn page_align(n: usize) -> usize {
    n.next_multiple_of(PAGE)
}

/// What the full ADS describes: the part and the engines its fuses left.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Part {
    pub(crate) platform: Platform,
    pub(crate) present: Present,
    /// The fused topology, for the steering of multicast registers in the save/restore lists.
    pub(crate) topology: Topology,
}

/// Byte offsets of the ADS object's parts.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    pub(crate) golden: usize,
    pub(crate) waklv: usize,
    pub(crate) capture: usize,
    pub(crate) private: usize,
    pub(crate) total: usize,
}

impl Layout {
    /// The layout for `present` engines and `private_bytes` of GuC private data.
    pub(crate) fn new(present: &Present, private_bytes: u32) -> Self {
        let golden = XEHPG_GUC_ADS_REGSET_END as usize;
        let golden_bytes: usize = CLASSES
            .iter()
            .filter(|(gc, _)| enabled_masks(present)[*gc as usize] != 0)
            .map(|(_, class)| page_align(lrc::lrc_size(*class)))
            .sum();
        let waklv = golden + golden_bytes;
        let capture = waklv + PAGE;
        let private = capture + PAGE;
        Self {
            golden,
            waklv,
            capture,
            private,
            total: private + page_align(private_bytes as usize),
        }
    }
}

// The fixed head and the register lists fit before the first aligned part.
const _: () = assert!(size_of::<xehpg_guc_ads_blob>() <= XEHPG_GUC_ADS_REGSET_OFFSET as usize);
const _: () = assert!(XEHPG_GUC_ADS_REGSET_OFFSET % 16 == 0);
const _: () = assert!(XEHPG_GUC_ADS_REGSET_END as usize % PAGE == 0);
const _: () = assert!(size_of::<xehpg_guc_mmio_reg>() == 16);
const _: () = assert!(size_of::<xehpg_guc_mmio_reg_set>() == 8);
const _: () = assert!(size_of::<xehpg_guc_ads>() == 4572);
const _: () = assert!(size_of::<xehpg_guc_policies>() == 96);
const _: () = assert!(size_of::<xehpg_guc_gt_system_info>() == 640);
/// Every engine's list fits the register-list area.
const _: () = assert!(
    ENGINES.len() * MAX_SAVED * 16
        <= (XEHPG_GUC_ADS_REGSET_END - XEHPG_GUC_ADS_REGSET_OFFSET) as usize
);

/// `engine_enabled_masks` by GuC class: physical instance bits of the present engines
/// (`fill_engine_enable_masks`, `engine_enable_mask`).
pub(crate) fn enabled_masks(p: &Present) -> [u32; XEHPG_GUC_MAX_ENGINE_CLASSES as usize] {
    let mut masks = [0u32; XEHPG_GUC_MAX_ENGINE_CLASSES as usize];
    for e in ENGINES.iter().filter(|e| e.present(p)) {
        if let Some(m) = masks.get_mut(guc_class(e.class) as usize) {
            *m |= 1 << e.instance;
        }
    }
    masks
}

/// The mapping table: for each GuC class, at each logical instance (the rank of the engine
/// among the present ones of its class, `xe_hw_engine.c` logical instances) its physical
/// instance; [`MAPPING_INVALID`] everywhere else (`guc_mapping_table_init`).
pub(crate) fn mapping_table(
    p: &Present,
) -> [[u8; XEHPG_GUC_MAX_INSTANCES_PER_CLASS as usize]; XEHPG_GUC_MAX_ENGINE_CLASSES as usize] {
    let mut t = [[MAPPING_INVALID; XEHPG_GUC_MAX_INSTANCES_PER_CLASS as usize];
        XEHPG_GUC_MAX_ENGINE_CLASSES as usize];
    let mut next = [0usize; XEHPG_GUC_MAX_ENGINE_CLASSES as usize];
    for e in ENGINES.iter().filter(|e| e.present(p)) {
        let gc = guc_class(e.class) as usize;
        if let (Some(row), Some(n)) = (t.get_mut(gc), next.get_mut(gc)) {
            if let Some(slot) = row.get_mut(*n) {
                *slot = e.instance;
            }
            *n += 1;
        }
    }
    t
}

/// One register of a save/restore list.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Saved {
    /// BAR 0 offset.
    pub(crate) offset: u32,
    /// A masked register (`GUC_REGSET_MASKED`).
    pub(crate) masked: bool,
    /// For a multicast register, the instance the GuC steers to (`GUC_REGSET_STEERING_*`).
    pub(crate) steer: Option<Target>,
}

impl Saved {
    /// The entry's `flags` word (`guc_mmio_regset_write_one`).
    fn flags(&self) -> u32 {
        let mut f = if self.masked {
            XEHPG_GUC_REGSET_MASKED
        } else {
            0
        };
        if let Some(t) = self.steer {
            f |= XEHPG_GUC_REGSET_STEERING_NEEDED
                | (u32::from(t.group) & XEHPG_GUC_REGSET_STEERING_GROUP_MASK)
                    << XEHPG_GUC_REGSET_STEERING_GROUP_SHIFT
                | (u32::from(t.instance) & XEHPG_GUC_REGSET_STEERING_INSTANCE_MASK)
                    << XEHPG_GUC_REGSET_STEERING_INSTANCE_SHIFT;
        }
        f
    }
}

/// The longest list an engine gets.
pub(crate) const MAX_SAVED: usize = 8;

/// An engine's save/restore list.
#[derive(Copy, Clone, Debug)]
pub(crate) struct SavedList {
    regs: [Saved; MAX_SAVED],
    len: usize,
}

impl SavedList {
    const fn push(&mut self, offset: u32, masked: bool) {
        if self.len < MAX_SAVED {
            self.regs[self.len] = Saved {
                offset,
                masked,
                steer: None,
            };
            self.len += 1;
        }
    }

    /// The registers, in list order.
    pub(crate) fn as_slice(&self) -> &[Saved] {
        self.regs.get(..self.len).unwrap_or(&[])
    }
}

/// The registers the GuC saves and restores around an engine reset of `e`: what the driver
/// programs for that engine, in upstream's order (`guc_mmio_regset_write`): first the
/// engine's own settings by address (xe's `reg_sr`, `xe_hw_engine.c` `engine_sr`:
/// `RING_HWSTAM`, `RING_CMD_CCTL`, `RING_MODE`, and `RCU_MODE` on the first render-or-compute
/// engine, rcs0, when a CCS exists), then `RING_HWS_PGA`, `RING_IMR`, and `CCS_MODE` on the
/// first engine of the render reset domain (rcs0) when it is programmed. The workaround
/// table's rows for the engine follow in [`engine_list`].
pub(crate) fn saved_regs(e: &Engine, p: &Present) -> SavedList {
    let mut l = SavedList {
        regs: [Saved {
            offset: 0,
            masked: false,
            steer: None,
        }; MAX_SAVED],
        len: 0,
    };
    let base = e.mmio_base;
    // rcs0 is always present on these parts: it is the first render-or-compute engine.
    let first_rc = matches!(e.class, Class::Render);
    l.push(base + ering::offset::<ering::HWSTAM>(), false);
    l.push(base + ering::offset::<ering::CMD_CCTL>(), true);
    l.push(base + ering::offset::<ering::GFX_MODE>(), true);
    if first_rc && ccs::rcu_mode(p).is_some() {
        l.push(ccs::RCU_MODE::OFFSET as u32, true);
    }
    l.push(base + ering::offset::<ering::HWS_PGA>(), false);
    l.push(base + ering::offset::<ering::IMR>(), false);
    if first_rc && ccs::ccs_mode(p).is_some() {
        l.push(ccs::CCS_MODE::OFFSET as u32, true);
    }
    l
}

/// The whole save/restore list of engine `e`: its own registers ([`saved_regs`]), then the
/// workaround table's rows for it that those do not already hold
/// (`engine::workaround_save_restore`; upstream's per-engine `reg_sr` holds both,
/// `xe_guc_ads.c` `guc_mmio_regset_write`), a multicast one steered at the first instance the
/// fuses leave, as the steering API reads it (`guc_mmio_regset_write_one` with
/// `xe_gt_mcr_get_nonterminated_steering`). Process context; allocates.
///
/// # Errors
///
/// `ENOMEM`, or `EINVAL` for a multicast row whose group the fuses left no instance of.
pub(crate) fn engine_list(e: &Engine, part: &Part) -> Result<KVec<Saved>> {
    let own = saved_regs(e, &part.present);
    let mut out = KVec::with_capacity(own.as_slice().len(), GFP_KERNEL)?;
    for r in own.as_slice() {
        out.push(*r, GFP_KERNEL)?;
    }
    for w in workaround_save_restore(e, part.platform.die())? {
        if out.iter().any(|r| r.offset == w.offset) {
            continue;
        }
        let steer = if w.mcr {
            let target = steering_of(w.offset).and_then(|s| default_target(s, &part.topology));
            Some(target.ok_or(EINVAL)?)
        } else {
            None
        };
        out.push(
            Saved {
                offset: w.offset,
                masked: w.masked,
                steer,
            },
            GFP_KERNEL,
        )?;
    }
    Ok(out)
}

/// The workaround KLV keys DG2 and ATS-M (graphics 12.55, media 12.55) get from
/// `guc_waklv_init`, with the firmware `release` gates; every other KLV there has a rule in
/// `xe_wa_oob.rules` that excludes 12.55:
/// - `BLOCK_INTERRUPTS_WHEN_MGSR_BLOCKED`: Wa_16021333562, `GRAPHICS_VERSION_RANGE(1200,
///   1274)`: applies;
/// - `RESET_BB_STACK_PTR_ON_VF_SWITCH`: Wa_16026508708, `GRAPHICS_VERSION_RANGE(1200, 3005)`,
///   with GuC 70.44 or newer: applies on such firmware;
/// - not: Wa_18024947630 and Wa_16022287689 (2001/2004), Wa_14022866841 (3000),
///   Wa_13011645652 (2004-3005), Wa_14022293748 / Wa_22019794406 (2001-3005), Wa_16026007364
///   (media 3000), Wa_14020001231 (2001-2004, media 2000-3002, PSMI), Wa_14025515070 (2004,
///   media 1301-3000), Wa_22022079272 and Wa_16029897822 (3510, media 3500/3503);
/// - the `DISABLE_MULTI_QUEUE` feature KLV is sent only when configfs turns multi-queue off,
///   which it is not by default (`xe_configfs.c` `enable_multi_queue = true`).
pub(crate) fn wa_klv_keys(release: Version) -> ([u16; 2], usize) {
    let mut keys = [0u16; 2];
    let mut n = 0;
    // CAST: the keys are 16-bit ABI constants.
    keys[n] = XEHPG_GUC_WA_KLV_BLOCK_INTERRUPTS_WHEN_MGSR_BLOCKED as u16;
    n += 1;
    if release >= Version::new(70, 44, 0) {
        keys[n] = XEHPG_GUC_WA_KLV_RESET_BB_STACK_PTR_ON_VF_SWITCH as u16;
        n += 1;
    }
    (keys, n)
}

/// The post-hwconfig `GUC_CTL_WA` word for DG2 / ATS-M (`xe_guc.c` `guc_ctl_wa_flags`):
/// - `HOLD_CCS_SWITCHOUT`: Wa_14014475959, `PLATFORM(DG2)` (ATS-M is a DG2 in xe);
/// - `DUAL_QUEUE`: Wa_22011391025, `PLATFORM(DG2)` (`needs_wa_dual_queue`);
/// - `PRE_PARSER`: graphics below 12.70 (Wa_22011802037);
/// - `ENABLE_TSC_CHECK_ON_RC6`: Wa_14018913170, whose `xe_wa_oob.rules` entry has three
///   alternative rule lines (a continuation line is an OR, `xe_gen_wa_oob.c`), the third
///   `PLATFORM(DG2)`;
/// - `CONTEXT_ISOLATION`: Wa_22012727170 / Wa_22012727685, `SUBPLATFORM(DG2, G11)`, which
///   holds the ATS-M75 IDs too (`xe_pci.c` `dg2_g11_ids`);
/// - not: `POLLCS` (Wa_22012773006, 1200-1250), `RCS_REGS_IN_CCS_REGS_LIST` (PVC),
///   `SAVE_RESTORE_MCFG_REG_AT_MC6` (media 2000/3000).
pub(crate) fn ctl_wa(platform: Platform) -> u32 {
    let mut w = XEHPG_GUC_WA_HOLD_CCS_SWITCHOUT
        | XEHPG_GUC_WA_DUAL_QUEUE
        | XEHPG_GUC_WA_PRE_PARSER
        | XEHPG_GUC_WA_ENABLE_TSC_CHECK_ON_RC6;
    if platform.die() == Die::G11 {
        w |= XEHPG_GUC_WA_CONTEXT_ISOLATION;
    }
    w
}

/// The post-hwconfig `GUC_CTL_FEATURE` word (`xe_guc.c` `guc_ctl_feature_flags`):
/// `ENABLE_LITE_RESTORE` always. Not `ENABLE_SLPC`: xe sets it because it runs SLPC on DG2;
/// this driver does not start SLPC, so the GuC stays without it (host-controlled frequency).
/// Not `DISABLE_MULTI_QUEUE` (multi-queue is on by default), nor the PSMI, GAM queue and L2
/// flush bits (off, or not DG2).
pub(crate) const fn ctl_feature() -> u32 {
    XEHPG_GUC_CTL_ENABLE_LITE_RESTORE
}

/// Writes a GuC-side address field.
fn ggtt(ads: &Obj, off: usize) -> Result<u32> {
    u32::try_from(ads.map.addr(off as u64)).map_err(|_| EINVAL)
}

/// Offsets in the object of the blob's parts.
const ADS: usize = offset_of!(xehpg_guc_ads_blob, ads);
const POL: usize = offset_of!(xehpg_guc_ads_blob, policies);
const SYS: usize = offset_of!(xehpg_guc_ads_blob, system_info);

/// Zeroes everything before the private data, then writes what both loads share: the
/// policies, an all-invalid mapping table, and the pointers to policies, system info and
/// private data (`xe_guc_ads_populate_minimal`; the golden pointers it also writes follow
/// the enable masks, all 0 here, so it writes none).
fn write_common(lmem: LmemAccess<'_>, ads: &Obj, layout: &Layout, private: bool) -> Result {
    let base = ads.lmem.start;
    let at = |off: usize| base + off as u64;
    lmem.zero(base, layout.private as u64)?;
    lmem.write32(
        at(POL + offset_of!(xehpg_guc_policies, dpc_promote_time)),
        DPC_PROMOTE_TIME_US,
    )?;
    lmem.write32(
        at(POL + offset_of!(xehpg_guc_policies, max_num_work_items)),
        MAX_NUM_WORK_ITEMS,
    )?;
    lmem.write32(at(POL + offset_of!(xehpg_guc_policies, is_valid)), 1)?;
    let invalid = [MAPPING_INVALID;
        (XEHPG_GUC_MAX_ENGINE_CLASSES * XEHPG_GUC_MAX_INSTANCES_PER_CLASS) as usize];
    lmem.write_bytes(
        at(SYS + offset_of!(xehpg_guc_gt_system_info, mapping_table)),
        &invalid,
    )?;
    lmem.write32(
        at(ADS + offset_of!(xehpg_guc_ads, scheduler_policies)),
        ggtt(ads, POL)?,
    )?;
    lmem.write32(
        at(ADS + offset_of!(xehpg_guc_ads, gt_system_info)),
        ggtt(ads, SYS)?,
    )?;
    if private {
        lmem.write32(
            at(ADS + offset_of!(xehpg_guc_ads, private_data)),
            ggtt(ads, layout.private)?,
        )?;
    }
    Ok(())
}

/// Fills the minimal ADS of the first load.
///
/// # Errors
///
/// `EINVAL` for an address beyond 4 GiB, or a local-memory access error.
pub(super) fn write_minimal(
    lmem: LmemAccess<'_>,
    ads: &Obj,
    layout: &Layout,
    private: bool,
) -> Result {
    write_common(lmem, ads, layout, private)
}

/// Fills the full ADS of the second load (`xe_guc_ads_populate`, in its order).
///
/// # Errors
///
/// `EINVAL` for an address beyond 4 GiB or a list that does not fit, `ENOMEM`, or a
/// local-memory access error.
pub(super) fn write_full(
    lmem: LmemAccess<'_>,
    ads: &Obj,
    layout: &Layout,
    private: bool,
    part: &Part,
    release: Version,
) -> Result {
    let base = ads.lmem.start;
    let at = |off: usize| base + off as u64;
    write_common(lmem, ads, layout, private)?;
    let p = &part.present;
    // Engine enable masks.
    let masks = enabled_masks(p);
    for (gc, &m) in masks.iter().enumerate() {
        lmem.write32(
            at(SYS + offset_of!(xehpg_guc_gt_system_info, engine_enabled_masks) + 4 * gc),
            m,
        )?;
    }
    // Register save/restore lists, indexed by GuC class and physical instance
    // (`guc_mmio_reg_state_init`).
    let mut off = XEHPG_GUC_ADS_REGSET_OFFSET as usize;
    for e in ENGINES.iter().filter(|e| e.present(p)) {
        let list = engine_list(e, part)?;
        let regs = &list[..];
        if off + regs.len() * 16 > XEHPG_GUC_ADS_REGSET_END as usize {
            return Err(EINVAL);
        }
        let set = ADS
            + offset_of!(xehpg_guc_ads, reg_state_list)
            + (guc_class(e.class) as usize * XEHPG_GUC_MAX_INSTANCES_PER_CLASS as usize
                + usize::from(e.instance))
                * size_of::<xehpg_guc_mmio_reg_set>();
        lmem.write32(at(set), ggtt(ads, off)?)?;
        // CAST: at most MAX_SAVED entries; `reserved` (the high half) stays 0.
        lmem.write32(at(set + 4), regs.len() as u32)?;
        for r in regs {
            lmem.write32(at(off + offset_of!(xehpg_guc_mmio_reg, offset)), r.offset)?;
            lmem.write32(at(off + offset_of!(xehpg_guc_mmio_reg, flags)), r.flags())?;
            off += size_of::<xehpg_guc_mmio_reg>();
        }
    }
    // Golden contexts (`guc_golden_lrc_init`, contents as the module documentation says).
    let mut golden = layout.golden;
    for &(gc, class) in CLASSES.iter() {
        if masks[gc as usize] == 0 {
            continue;
        }
        let Some(e) = ENGINES.iter().find(|e| e.class == class && e.present(p)) else {
            continue;
        };
        let words = lrc::state_pages(class) * 1024;
        let mut state = KVec::from_elem(0u32, words, GFP_KERNEL)?;
        // No ring: the GuC restores only the engine state after the execlists registers.
        lrc::build(&mut state, e, 0, PAGE as u32).map_err(|_| EINVAL)?;
        let mut bytes = KVec::with_capacity(words * 4, GFP_KERNEL)?;
        for w in state.iter() {
            bytes.extend_from_slice(&w.to_le_bytes(), GFP_KERNEL)?;
        }
        lmem.write_bytes(at(golden + lrc::PPHWSP_SIZE), &bytes)?;
        let slot = 4 * gc as usize;
        lmem.write32(
            at(ADS + offset_of!(xehpg_guc_ads, golden_context_lrca) + slot),
            ggtt(ads, golden)?,
        )?;
        // CAST: at most 13 pages.
        let state_size = (lrc::state_pages(class) * PAGE) as u32 - XEHPG_LRC_REG_BYTES;
        lmem.write32(
            at(ADS + offset_of!(xehpg_guc_ads, eng_state_size) + slot),
            state_size,
        )?;
        golden += page_align(lrc::lrc_size(class));
    }
    let mapping = mapping_table(p);
    for (gc, row) in mapping.iter().enumerate() {
        lmem.write_bytes(
            at(SYS
                + offset_of!(xehpg_guc_gt_system_info, mapping_table)
                + gc * XEHPG_GUC_MAX_INSTANCES_PER_CLASS as usize),
            row,
        )?;
    }
    // Capture lists: nothing is captured, every pointer names the null list (zeroed above)
    // (`guc_capture_prep_lists` with no list to add).
    let null = ggtt(ads, layout.capture)?;
    for i in 0..XEHPG_GUC_CAPTURE_LIST_INDEX_MAX as usize {
        for j in 0..XEHPG_GUC_CAPTURE_LIST_CLASS_MAX as usize {
            let k = 4 * (i * XEHPG_GUC_MAX_ENGINE_CLASSES as usize + j);
            lmem.write32(at(ADS + offset_of!(xehpg_guc_ads, capture_class) + k), null)?;
            lmem.write32(
                at(ADS + offset_of!(xehpg_guc_ads, capture_instance) + k),
                null,
            )?;
        }
        lmem.write32(
            at(ADS + offset_of!(xehpg_guc_ads, capture_global) + 4 * i),
            null,
        )?;
    }
    // Doorbells: `guc_doorbell_init` fills the per-SQIDI count only on integrated parts.
    // Workaround KLVs (`guc_waklv_init`).
    let (keys, n) = wa_klv_keys(release);
    let mut klvs = [0u32; 2];
    let mut writer = Writer::new(&mut klvs);
    for &k in keys.iter().take(n) {
        writer.put(k, &[])?;
    }
    if n > 0 {
        for (i, &w) in klvs.iter().take(n).enumerate() {
            lmem.write32(at(layout.waklv + 4 * i), w)?;
        }
        let addr = ads.map.addr(layout.waklv as u64);
        // CAST: the low and high dwords of a GGTT address; the size in bytes of n dwords.
        lmem.write32(
            at(ADS + offset_of!(xehpg_guc_ads, wa_klv_addr_lo)),
            addr as u32,
        )?;
        lmem.write32(
            at(ADS + offset_of!(xehpg_guc_ads, wa_klv_addr_hi)),
            (addr >> 32) as u32,
        )?;
        lmem.write32(
            at(ADS + offset_of!(xehpg_guc_ads, wa_klv_size)),
            4 * n as u32,
        )?;
    }
    Ok(())
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_guc_ads)]
mod tests {
    use super::*;

    const ATS_M150: Present = Present {
        ccs: 0b1111,
        vcs: 0b0000_0101,
        vecs: 0b0011,
    };

    #[test]
    fn masks_are_physical_instances() {
        let p = Present {
            ccs: 0b1010,
            vcs: 0b0001_0100,
            vecs: 0b0010,
        };
        let m = enabled_masks(&p);
        assert_eq!(m[XEHPG_GUC_RENDER_CLASS as usize], 1);
        assert_eq!(m[XEHPG_GUC_BLITTER_CLASS as usize], 1);
        assert_eq!(m[XEHPG_GUC_COMPUTE_CLASS as usize], 0b1010);
        assert_eq!(m[XEHPG_GUC_VIDEO_CLASS as usize], 0b0001_0100);
        assert_eq!(m[XEHPG_GUC_VIDEOENHANCE_CLASS as usize], 0b0010);
        assert!(m[5..].iter().all(|&x| x == 0));
    }

    #[test]
    fn mapping_table_maps_logical_to_physical() {
        let p = Present {
            ccs: 0b1010,
            vcs: 0b0001_0100,
            vecs: 0b0010,
        };
        let t = mapping_table(&p);
        let ccs = &t[XEHPG_GUC_COMPUTE_CLASS as usize];
        assert_eq!((ccs[0], ccs[1], ccs[2]), (1, 3, MAPPING_INVALID));
        let vcs = &t[XEHPG_GUC_VIDEO_CLASS as usize];
        assert_eq!((vcs[0], vcs[1], vcs[2]), (2, 4, MAPPING_INVALID));
        assert_eq!(t[XEHPG_GUC_VIDEOENHANCE_CLASS as usize][0], 1);
        assert_eq!(t[XEHPG_GUC_RENDER_CLASS as usize][0], 0);
        assert_eq!(t[XEHPG_GUC_RENDER_CLASS as usize][1], MAPPING_INVALID);
        // Unused classes are all invalid.
        assert!(t[5..]
            .iter()
            .all(|r| r.iter().all(|&x| x == MAPPING_INVALID)));
        assert_eq!(MAPPING_INVALID, 32);
    }

    #[test]
    fn rcs0_list_holds_the_ccs_switches() {
        let rcs = &ENGINES[0];
        let l = saved_regs(rcs, &ATS_M150);
        let offs: KVec<u32> = {
            let mut v = KVec::new();
            for r in l.as_slice() {
                let _ = v.push(r.offset, GFP_KERNEL);
            }
            v
        };
        assert_eq!(
            &offs[..],
            &[0x2098, 0x20c4, 0x229c, 0x14800, 0x2080, 0x20a8, 0x14804]
        );
        let masked: [bool; 7] = [false, true, true, true, false, false, true];
        for (r, m) in l.as_slice().iter().zip(masked) {
            assert_eq!(r.masked, m);
        }
        // Without CCS there is neither RCU_MODE nor CCS_MODE.
        let none = Present { ccs: 0, ..ATS_M150 };
        assert_eq!(saved_regs(rcs, &none).as_slice().len(), 5);
        // One CCS: RCU_MODE but no CCS_MODE.
        let one = Present {
            ccs: 0b0001,
            ..ATS_M150
        };
        let l1 = saved_regs(rcs, &one);
        assert_eq!(l1.as_slice().len(), 6);
        assert_eq!(l1.as_slice()[3].offset, 0x14800);
    }

    #[test]
    fn engine_lists_add_the_tables_rows_steered() -> Result {
        // ATS-M150, DSS 4-31 fused in (the first DSS is 4: group 1, instance 0).
        let topology = Topology {
            dss_geometry: 0xffff_fff0,
            dss_compute: 0,
            meml3: 0xf,
            vdbox: 0b0101,
            vebox: 0b0011,
        };
        let part = Part {
            platform: Platform::AtsM150,
            present: ATS_M150,
            topology,
        };
        for e in ENGINES.iter().filter(|e| e.present(&ATS_M150)) {
            let list = engine_list(e, &part)?;
            let own = saved_regs(e, &ATS_M150);
            // The engine's own registers come first, unchanged.
            assert!(list.len() >= own.as_slice().len());
            assert_eq!(&list[..own.as_slice().len()], own.as_slice());
            // No register twice.
            for (i, r) in list.iter().enumerate() {
                assert!(list[..i].iter().all(|o| o.offset != r.offset));
            }
            // Every table row for the engine is in, steered exactly when multicast.
            for w in workaround_save_restore(e, Die::G10)? {
                assert!(list
                    .iter()
                    .any(|r| r.offset == w.offset && r.steer.is_some() == w.mcr));
            }
        }
        // With no DSS left by the fuses a DSS-steered row has nowhere to go: refused.
        let none = Part {
            topology: Topology {
                dss_geometry: 0,
                dss_compute: 0,
                ..topology
            },
            ..part
        };
        assert!(matches!(engine_list(&ENGINES[0], &none), Err(e) if e == EINVAL));
        // rcs0 gets the render table rows on top of its seven.
        let rcs = engine_list(&ENGINES[0], &part)?;
        assert!(rcs.len() > 7);
        // A DSS register (LSC_CHICKEN_BIT_0 is one) is steered at the first DSS the fuses leave.
        let dss = rcs
            .iter()
            .find(|r| steering_of(r.offset) == Some(crate::gt::Steering::Dss));
        assert!(dss.is_some());
        if let Some(r) = dss {
            let t = r.steer.unwrap_or(Target {
                group: 0xff,
                instance: 0xff,
            });
            assert_eq!((t.group, t.instance), (1, 0));
            assert_eq!(
                r.flags() & !XEHPG_GUC_REGSET_MASKED,
                XEHPG_GUC_REGSET_STEERING_NEEDED | (1 << 12)
            );
        }
        Ok(())
    }

    #[test]
    fn other_engines_list_their_own_registers() {
        for e in ENGINES.iter().filter(|e| !matches!(e.class, Class::Render)) {
            let l = saved_regs(e, &ATS_M150);
            let offs: [u32; 5] = [0x98, 0xc4, 0x29c, 0x80, 0xa8];
            assert_eq!(l.as_slice().len(), 5);
            for (r, o) in l.as_slice().iter().zip(offs) {
                assert_eq!(r.offset, e.mmio_base + o);
            }
        }
    }

    #[test]
    fn ctl_words_for_dg2() {
        let base = (1 << 17) | (1 << 11) | (1 << 14) | (1 << 22);
        assert_eq!(ctl_wa(Platform::Dg2G10), base);
        assert_eq!(ctl_wa(Platform::AtsM150), base);
        assert_eq!(ctl_wa(Platform::Dg2G12), base);
        // G11 dies (DG2-G11, ATS-M75) add context isolation.
        assert_eq!(ctl_wa(Platform::Dg2G11), base | (1 << 15));
        assert_eq!(ctl_wa(Platform::AtsM75), base | (1 << 15));
        // Lite restore, no SLPC.
        assert_eq!(ctl_feature(), 1 << 4);
        assert_eq!(ctl_feature() & (1 << 2), 0);
    }

    #[test]
    fn wa_klvs_follow_the_release() {
        let (k, n) = wa_klv_keys(Version::new(70, 29, 2));
        assert_eq!(&k[..n], &[0x9002]);
        let (k, n) = wa_klv_keys(Version::new(70, 53, 0));
        assert_eq!(&k[..n], &[0x9002, 0x900b]);
    }

    #[test]
    fn layout_is_page_aligned_and_sized_by_the_engines() {
        let l = Layout::new(&ATS_M150, 0x801000);
        assert_eq!(l.golden, 0x2000);
        // Render and compute 14 pages each, copy, video and enhance 2 each.
        assert_eq!(l.waklv, 0x2000 + (14 + 2 + 2 + 2 + 14) * 4096);
        assert_eq!(l.capture, l.waklv + 4096);
        assert_eq!(l.private, l.capture + 4096);
        assert_eq!(l.total, l.private + 0x801000);
        let bare = Layout::new(
            &Present {
                ccs: 0,
                vcs: 0,
                vecs: 0,
            },
            0,
        );
        assert_eq!(bare.waklv, 0x2000 + (14 + 2) * 4096);
    }
}
