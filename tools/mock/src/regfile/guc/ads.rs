//! What the GuC takes from the ADS and the boot words at boot: the
//! contract its scheduler and its engine resets follow.
//!
//! Layouts: `struct guc_ads`, `struct guc_gt_system_info` (`xe_guc_fwif.h`),
//! `struct guc_mmio_reg_set` / `struct guc_mmio_reg`
//! (`abi/guc_capture_abi.h`), the WA KLVs (`abi/guc_klvs_abi.h`
//! `GUC_KLV_0_KEY` / `GUC_KLV_0_LEN`); how upstream fills them:
//! `xe_guc_ads.c` (`fill_engine_enable_masks`, `guc_mapping_table_init`,
//! `guc_golden_lrc_init`, `guc_mmio_reg_state_init`, `guc_capture_prep_lists`,
//! `guc_waklv_init`) and `xe_guc.c` (`guc_ctl_wa_flags`,
//! `guc_ctl_feature_flags`).
//!
//! # Read at boot
//!
//! After the checks of [`super::boot`] pass, the GuC reads:
//!
//! - `gt_system_info.engine_enabled_masks[class]` and
//!   `mapping_table[class][logical]` (= physical instance; 32 = unused).
//!   The minimal ADS upstream loads for hwconfig leaves every mask 0 and
//!   the table unused (`xe_guc_ads_populate_minimal`, "does not support
//!   submissions"): such a GuC schedules nothing.
//! - `reg_state_list[class][instance]` {address, count}: the registers the
//!   GuC saves before an engine reset and restores after it. A set with a
//!   count is read through the GGTT entry by entry (16 bytes each); a set
//!   that does not translate is `INIT_DATA_INVALID` (`[MODEL]`, the
//!   stricter reading: the firmware needs the list at the first reset, with
//!   no way to report a bad one then; upstream keeps it in the ADS BO).
//! - the WA KLV buffer (`wa_klv_addr_lo/hi`, `wa_klv_size`): a size that is
//!   not 0 must translate and parse as KLVs (header key 31:16, length 15:0
//!   dwords, then the value), else `INIT_DATA_INVALID` (`[MODEL]`, same
//!   reason).
//! - `golden_context_lrca[class]` / `eng_state_size[class]` and the capture
//!   list pointers (`capture_instance`, `capture_class`, `capture_global`):
//!   used only when a context is reset or an error is captured, so a
//!   pointer that does not translate is recorded (violation
//!   `guc_ads_pointer`, listed in `guc.ads.faults`) and the boot goes on
//!   (`[MODEL]`: the firmware cannot fail its boot over data it reads
//!   later). The golden image's content is not checked: upstream writes it
//!   only after the GuC is up (`xe_guc_ads_populate_post_load`).
//! - `GUC_CTL_WA` and `GUC_CTL_FEATURE`. The bits the part needs
//!   ([`required_wa`], [`REQUIRED_FEATURE`]) that are missing are recorded;
//!   such a GuC refuses every context registration (`[MODEL]`: what the
//!   firmware does without them is not published; the stricter reading).
//!
//! All of it is the summary's `guc.ads` (an `AdsSummary`, event `guc_ads`).

use std::collections::BTreeMap;

use super::ggtt::Gtt;
use crate::abi;
use crate::ids;
use crate::recorder::Recorder;
use crate::summary::AdsSummary;
use crate::trace::Hex;

/// Entries read from one save/restore set at most (`[MODEL]`: upstream
/// lists well under a hundred per engine; a larger count is a broken ADS).
pub const MAX_REGSET: u16 = 1024;
/// WA KLV bytes read at most (`[MODEL]`: upstream sizes the buffer in pages,
/// `calculate_waklv_size`).
pub const MAX_WA_KLV: u32 = 64 << 10;

/// `GUC_CTL_FEATURE` bits upstream always sets: `GUC_CTL_ENABLE_LITE_RESTORE`
/// (`xe_guc.c` `guc_ctl_feature_flags`).
pub const REQUIRED_FEATURE: u32 = abi::ctl::FEATURE_LITE_RESTORE;

/// `GUC_CTL_WA` bits upstream sets on this part (`xe_guc.c`
/// `guc_ctl_wa_flags` with `xe_wa_oob.rules`): every DG2 / ATS-M (graphics
/// 12.55) gets `GUC_WA_PRE_PARSER` (version below 12.70),
/// `GUC_WA_HOLD_CCS_SWITCHOUT` (14014475959, `PLATFORM(DG2)`),
/// `GUC_WA_DUAL_QUEUE` (22011391025, `PLATFORM(DG2)`) and
/// `GUC_WA_ENABLE_TSC_CHECK_ON_RC6` (14018913170: in `xe_wa_oob.rules` its
/// indented lines are alternatives, `xe_gen_wa_oob.c` joins them with OR,
/// and one is `PLATFORM(DG2)`); the G11 subplatform
/// (DG2-G11 and ATS-M75, `xe_pci.c` `dg2_g11_ids`) also
/// `GUC_WA_CONTEXT_ISOLATION` (22012727170 / 22012727685).
pub fn required_wa(device_id: u16) -> u32 {
    let base = abi::ctl::WA_PRE_PARSER
        | abi::ctl::WA_HOLD_CCS_SWITCHOUT
        | abi::ctl::WA_DUAL_QUEUE
        | abi::ctl::WA_ENABLE_TSC_CHECK_ON_RC6;
    let g11 =
        ids::lookup(device_id).is_some_and(|k| k.group.contains("G11") || k.group == "ATS_M75");
    if g11 {
        base | abi::ctl::WA_CONTEXT_ISOLATION
    } else {
        base
    }
}

/// The GuC class names, `GUC_*_CLASS` 0..4 (`abi/guc_scheduler_abi.h`).
pub const CLASS_NAMES: [&str; 5] = ["render", "video", "videoenhance", "blitter", "compute"];

/// A class's name in the summary.
pub fn class_name(class: usize) -> String {
    CLASS_NAMES
        .get(class)
        .map_or_else(|| format!("class{class}"), |n| (*n).to_owned())
}

/// What the GuC took from its ADS and boot words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contract {
    /// `engine_enabled_masks`.
    pub masks: [u32; abi::ads::CLASSES],
    /// `mapping_table`.
    pub mapping: [[u8; abi::ads::INSTANCES]; abi::ads::CLASSES],
    /// `golden_context_lrca`.
    pub golden_lrca: [u32; abi::ads::CLASSES],
    /// `eng_state_size`.
    pub eng_state_size: [u32; abi::ads::CLASSES],
    /// Save/restore register offsets per (GuC class, physical instance),
    /// only sets with a count.
    pub reg_lists: BTreeMap<(u32, u32), Vec<u32>>,
    /// Capture list pointers that are not 0: (`instance`/`class`/`global`,
    /// owner, class) -> address.
    pub capture: BTreeMap<String, u32>,
    /// WA KLV buffer address and size.
    pub wa_klv: (u64, u32),
    /// WA KLV keys, in order.
    pub wa_klv_keys: Vec<u32>,
    /// `GUC_CTL_WA`.
    pub ctl_wa: u32,
    /// `GUC_CTL_FEATURE`.
    pub ctl_feature: u32,
    /// Required `GUC_CTL_WA` bits missing.
    pub wa_missing: u32,
    /// Required `GUC_CTL_FEATURE` bits missing.
    pub feature_missing: u32,
    /// Recorded pointer faults (golden contexts, capture lists).
    pub faults: Vec<String>,
}

impl Default for Contract {
    /// A GuC that read nothing: every mask 0, the table unused.
    fn default() -> Self {
        Self {
            masks: [0; abi::ads::CLASSES],
            mapping: [[abi::ads::INSTANCES as u8; abi::ads::INSTANCES]; abi::ads::CLASSES],
            golden_lrca: [0; abi::ads::CLASSES],
            eng_state_size: [0; abi::ads::CLASSES],
            reg_lists: BTreeMap::new(),
            capture: BTreeMap::new(),
            wa_klv: (0, 0),
            wa_klv_keys: Vec::new(),
            ctl_wa: 0,
            ctl_feature: 0,
            wa_missing: 0,
            feature_missing: 0,
            faults: Vec::new(),
        }
    }
}

/// The dword at byte `off` of `b` (0 past the end).
fn dw(b: &[u8], off: usize) -> u32 {
    abi::dword(b, off).unwrap_or(0)
}

impl Contract {
    /// Reads the ADS `blob` (a `struct guc_ads`) and `sysinfo` (a
    /// `struct guc_gt_system_info`) the way the module docs say, with the
    /// boot words `ctl_wa` / `ctl_feature` of a device `device_id`.
    ///
    /// # Errors
    ///
    /// The `INIT_DATA_INVALID` detail of a save/restore set or WA KLV
    /// buffer that does not translate or parse.
    pub fn read(
        gtt: &mut Gtt<'_>,
        blob: &[u8],
        sysinfo: &[u8],
        (ctl_wa, ctl_feature, device_id): (u32, u32, u16),
        rec: &mut Recorder,
    ) -> Result<Self, String> {
        use abi::ads;
        use abi::gt_system_info as gsi;
        let mut c = Contract {
            ctl_wa,
            ctl_feature,
            wa_missing: required_wa(device_id) & !ctl_wa,
            feature_missing: REQUIRED_FEATURE & !ctl_feature,
            ..Contract::default()
        };
        for class in 0..ads::CLASSES {
            c.masks[class] = dw(sysinfo, gsi::ENGINE_ENABLED_MASKS + 4 * class);
            for inst in 0..ads::INSTANCES {
                c.mapping[class][inst] = sysinfo
                    .get(gsi::MAPPING_TABLE + class * ads::INSTANCES + inst)
                    .copied()
                    .unwrap_or(ads::INSTANCES as u8);
            }
            c.golden_lrca[class] = dw(blob, ads::GOLDEN_CONTEXT_LRCA + 4 * class);
            c.eng_state_size[class] = dw(blob, ads::ENG_STATE_SIZE + 4 * class);
        }
        // Save/restore lists.
        for class in 0..ads::CLASSES {
            for inst in 0..ads::INSTANCES {
                let at = ads::REG_STATE_LIST + ads::REG_SET_BYTES * (class * ads::INSTANCES + inst);
                let addr = dw(blob, at);
                // CAST: the low half of the second dword is the u16 count.
                let count = dw(blob, at + 4) as u16;
                if count == 0 {
                    continue;
                }
                if count > MAX_REGSET {
                    return Err(format!(
                        "ADS reg_state_list[{class}][{inst}] count {count} is above {MAX_REGSET}"
                    ));
                }
                let mut regs = vec![0u8; usize::from(count) * ads::REG_BYTES];
                let what = format!("ADS reg_state_list[{class}][{inst}] ({count} registers)");
                gtt.read(u64::from(addr), &mut regs, &what, rec)
                    .map_err(|f| f.0)?;
                let offsets = (0..usize::from(count))
                    .map(|i| dw(&regs, i * ads::REG_BYTES))
                    .collect();
                // CAST: below 16 and 32.
                c.reg_lists.insert((class as u32, inst as u32), offsets);
            }
        }
        // WA KLVs.
        let wa_addr = u64::from(dw(blob, ads::WA_KLV_ADDR_LO))
            | u64::from(dw(blob, ads::WA_KLV_ADDR_HI)) << 32;
        let wa_size = dw(blob, ads::WA_KLV_SIZE);
        c.wa_klv = (wa_addr, wa_size);
        if wa_size > 0 {
            if wa_size > MAX_WA_KLV || !wa_size.is_multiple_of(4) {
                return Err(format!(
                    "ADS wa_klv_size {wa_size} is not a dword multiple up to {MAX_WA_KLV}"
                ));
            }
            // CAST: bounded above.
            let mut klv = vec![0u8; wa_size as usize];
            gtt.read(wa_addr, &mut klv, "ADS WA KLV buffer", rec)
                .map_err(|f| f.0)?;
            let dws: Vec<u32> = (0..klv.len() / 4).map(|i| dw(&klv, 4 * i)).collect();
            let mut i = 0;
            while i < dws.len() {
                let key = abi::field(dws[i], abi::klv::KEY);
                // CAST: 16 bits.
                let len = abi::field(dws[i], abi::klv::LEN) as usize;
                if i + 1 + len > dws.len() {
                    return Err(format!(
                        "ADS WA KLV {key:#x} at dword {i} has {len} dwords; the buffer ends at {}",
                        dws.len()
                    ));
                }
                c.wa_klv_keys.push(key);
                i += 1 + len;
            }
        }
        // Read later: recorded.
        for class in 0..ads::CLASSES {
            let (lrca, size) = (c.golden_lrca[class], c.eng_state_size[class]);
            if lrca != 0 {
                let what = format!("ADS golden_context_lrca[{class}]");
                if let Err(f) = gtt.probe(u64::from(lrca), u64::from(size.max(1)), &what, rec) {
                    c.faults.push(f.0);
                }
            }
        }
        let owners = ["pf", "vf"];
        for (owner, name) in owners.iter().enumerate() {
            for class in 0..ads::CLASSES {
                for (kind, base) in [
                    ("instance", ads::CAPTURE_INSTANCE),
                    ("class", ads::CAPTURE_CLASS),
                ] {
                    let p = dw(blob, base + 4 * (owner * ads::CLASSES + class));
                    if p != 0 {
                        c.capture
                            .insert(format!("{kind}.{name}.{}", class_name(class)), p);
                    }
                }
            }
            let p = dw(blob, ads::CAPTURE_GLOBAL + 4 * owner);
            if p != 0 {
                c.capture.insert(format!("global.{name}"), p);
            }
        }
        for (what, &p) in &c.capture {
            let what = format!("ADS capture list {what}");
            if let Err(f) = gtt.probe(u64::from(p), 4, &what, rec) {
                c.faults.push(f.0);
            }
        }
        for f in &c.faults {
            rec.violation("guc_ads_pointer", f.clone());
        }
        Ok(c)
    }

    /// The physical instance the GuC schedules for logical instance
    /// `logical` of GuC class `class` (the mapping table), if any.
    pub fn physical(&self, class: u32, logical: u32) -> Option<u32> {
        let p = *self.mapping.get(class as usize)?.get(logical as usize)?;
        (usize::from(p) < abi::ads::INSTANCES).then_some(u32::from(p))
    }

    /// Whether physical instance `inst` of GuC class `class` is enabled.
    pub fn enabled(&self, class: u32, inst: u32) -> bool {
        inst < 32
            && self
                .masks
                .get(class as usize)
                .is_some_and(|m| m & (1 << inst) != 0)
    }

    /// The save/restore list of (GuC class, physical instance): register
    /// offsets, empty if none.
    pub fn restore_list(&self, class: u32, inst: u32) -> &[u32] {
        self.reg_lists
            .get(&(class, inst))
            .map_or(&[], |v| v.as_slice())
    }

    /// The summary's `guc.ads`; `name_of` names an engine by (GuC class,
    /// physical instance).
    pub fn summary(&self, name_of: impl Fn(u32, u32) -> Option<&'static str>) -> AdsSummary {
        let mut s = AdsSummary::default();
        for class in 0..abi::ads::CLASSES {
            let n = class_name(class);
            if self.masks[class] != 0 {
                s.engine_masks.insert(n.clone(), self.masks[class].into());
            }
            let map: Vec<u64> = self.mapping[class]
                .iter()
                .take_while(|&&p| usize::from(p) < abi::ads::INSTANCES)
                .map(|&p| p.into())
                .collect();
            if !map.is_empty() {
                s.mapping.insert(n.clone(), map);
            }
            if self.golden_lrca[class] != 0 || self.eng_state_size[class] != 0 {
                s.golden_lrca
                    .insert(n.clone(), Hex(self.golden_lrca[class].into()));
                s.golden_size.insert(n, self.eng_state_size[class].into());
            }
        }
        for (&(class, inst), list) in &self.reg_lists {
            let key = name_of(class, inst).map_or_else(
                // CAST: below 16.
                || format!("{}{inst}", class_name(class as usize)),
                str::to_owned,
            );
            s.save_restore.insert(key, list.len() as u64);
        }
        s.capture = self
            .capture
            .iter()
            .map(|(k, &v)| (k.clone(), Hex(v.into())))
            .collect();
        s.wa_klv_addr = Hex(self.wa_klv.0);
        s.wa_klv_size = self.wa_klv.1.into();
        s.wa_klv_keys = self.wa_klv_keys.iter().map(|k| format!("{k:#x}")).collect();
        s.ctl_wa = Hex(self.ctl_wa.into());
        s.ctl_feature = Hex(self.ctl_feature.into());
        s.wa_missing = Hex(self.wa_missing.into());
        s.feature_missing = Hex(self.feature_missing.into());
        s.faults = self.faults.clone();
        s
    }
}
