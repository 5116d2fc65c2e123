//! From a loaded image to a running uKernel: the boot ROM's checks, the
//! pre-load programming, the boot parameters and the status walk.
//!
//! The boot starts when the driver clears `DMA_CTRL.UOS_MOVE` (upstream
//! writes `0x00100000` right after START_DMA clears) after a `UOS_MOVE` DMA
//! has completed. `[MODEL]`: neither the seed nor upstream say whether the
//! hardware waits for that write; the mock takes it as the hand-over, so an
//! image whose DMA has not completed, or a driver that never clears
//! `UOS_MOVE`, does not boot.
//!
//! # Boot ROM
//!
//! Checks in order; the first failure leaves `GUC_STATUS` at AUTH bad (1),
//! BOOTROM `RSA_FAILED` (0x50), the uKernel not started (`[MODEL]`: the
//! signature covers the header and uCode, so any of these fails it; the
//! other ROM codes would send upstream to registers the mock does not
//! model):
//!
//! 1. the CSS header is consistent and the copy is exactly header + uCode
//!    ([`super::css`]; `guc_css_invalid`);
//! 2. with `--guc-fw FILE`: the copied bytes equal `FILE[0..copy size]`
//!    (`guc_image_mismatch`);
//! 3. the RSA key can be fetched: above 256 bytes from the GGTT address in
//!    `UOS_RSA_SCRATCH(0)` (through the TLB; a fault is `guc_dma_fault`),
//!    otherwise from `UOS_RSA_SCRATCH(0..63)` (upstream `guc_xfer_rsa`); with
//!    `--guc-fw` it must equal the file's key (`guc_rsa_mismatch`);
//! 4. the fault `guc-rsa-reject` fails here even for a good key.
//!
//! A pass sets AUTH good (2), BOOTROM `JUMP_PASSED` (0x76), `MIA_IN_RESET`
//! 0, UKERNEL `START`, and records `guc_loaded` with the release, the
//! submission version and the SHA-256 of the copied image.
//!
//! # uKernel
//!
//! 1. Pre-load programming, as upstream's `guc_prepare_xfer` does it:
//!    `GUC_SHIM_CONTROL` has `read_cache_logic | read_cache_for_sram_data |
//!    read_cache_for_wopcm_data | mia_clock_gating` (0x8602) set
//!    (`guc_preload_shim`), `GT_PM_CONFIG.gt_doorbell_enable`
//!    (`guc_preload_doorbell`), `PMINTRMSK.arat_expired_intrmsk` clear
//!    (`guc_preload_arat`). Any miss: the boot stalls at `START` (`[MODEL]`).
//! 2. Boot parameters (`SOFT_SCRATCH(1 + GUC_CTL_*)`, upstream
//!    `guc_write_params`), first failure reported one step after `START`
//!    (`[MODEL]`):
//!    - `SOFT_SCRATCH(0)` is 0, else `INIT_DATA_INVALID` (0x71);
//!    - `GUC_CTL_DEVID` is `device_id << 16 | revision`, else
//!      `DEVID_BUILD_MISMATCH` (0x02, `guc_devid_mismatch`);
//!    - `GUC_CTL_LOG_PARAMS` has `VALID`, and the whole buffer it
//!      describes (the header page and the three sections, sizes and units
//!      decoded as [`super::log`] says) translates; `GUC_CTL_DEBUG` gives
//!      the log level. A boot that passes every check writes the log's
//!      header page and starts logging ([`super::log`]);
//!    - `GUC_CTL_ADS`: the ADS at `(field 21:1) << 12` translates; its
//!      `scheduler_policies` and `gt_system_info` translate over their whole
//!      size; `policies.is_valid` is 1; `private_data` is not 0 and, if the
//!      CSS header's `private_data_size` is, the whole private area
//!      translates. These pointers are GuC (GGTT) addresses, so "translates"
//!      is all the GuC can ask of them: at or above the WOPCM top, below
//!      `GUC_GGTT_TOP`, every page present ([`super::ggtt`]; upstream
//!      `guc_bo_ggtt_addr` asserts exactly those bounds for every address it
//!      hands the GuC, `xe_guc.c`). Where the driver puts them relative to
//!      the ADS is its own business: upstream happens to keep them in the
//!      ADS BO (`xe_guc_ads.c`), but nothing in the seed or the GuC ABI
//!      requires that, so the mock does not check it.
//!
//!    - then the rest of the ADS and the boot words `GUC_CTL_WA` /
//!      `GUC_CTL_FEATURE` as the firmware consumes them ([`super::ads`]):
//!      a save/restore list or WA KLV buffer that does not translate or
//!      parse fails here; the rest is recorded.
//!
//!    Each ADS or log failure is `INIT_DATA_INVALID` (0x71, "init data
//!    invalid") and `guc_init_data_invalid`.
//! 3. Otherwise the walk `START` (0x01) -> `GDT_DONE` (0x10) -> `IDT_DONE`
//!    (0x20) -> `LAPIC_DONE` (0x30) -> `GUCINT_DONE` (0x40) -> `DPC_READY`
//!    (0x50) -> `READY` (0xF0) in six equal steps over `--guc-boot-ms`
//!    (`[MODEL]`; upstream polls every 10 ms for up to 3 s). Faults:
//!    `guc-boot-stall` stops at `GUCINT_DONE`; `guc-boot-error` goes from
//!    `LAPIC_DONE` to `EXCEPTION` (0x70) with [`EXCEPTION_EIP`] in
//!    `SOFT_SCRATCH(13)` (upstream prints it from there).

use std::time::Duration;

use sha2::Digest;
use sha2::Sha256;

use super::ads::Contract;
use super::css::Css;
use super::ggtt::Gtt;
use super::log::Config;
use super::status;
use super::Bus;
use super::Guc;
use super::AUTH_BAD;
use super::AUTH_GOOD;
use crate::abi;
use crate::recorder::Recorder;
use crate::regs::guc as r;
use crate::trace::Event;

/// The uKernel's exception address under `guc-boot-error` (`[MODEL]`: an
/// address in the GuC's SRAM, 0x8000-0x87FFF in the seed's address map).
pub const EXCEPTION_EIP: u32 = 0x0000_8A3C;

/// The uKernel states of a good boot, in order (`abi/guc_errors_abi.h`).
pub const WALK: [u32; 7] = [
    abi::ukernel::START,
    abi::ukernel::GDT_DONE,
    abi::ukernel::IDT_DONE,
    abi::ukernel::LAPIC_DONE,
    abi::ukernel::GUCINT_DONE,
    abi::ukernel::DPC_READY,
    abi::ukernel::READY,
];

/// `GUC_SHIM_CONTROL` bits the load needs (0x8602).
pub const SHIM_REQUIRED: u32 = r::READ_CACHE_LOGIC.mask32()
    | r::READ_CACHE_FOR_SRAM_DATA.mask32()
    | r::READ_CACHE_FOR_WOPCM_DATA.mask32()
    | r::MIA_CLOCK_GATING.mask32();

/// Status of a running uKernel in state `ukernel`.
const fn running(ukernel: u32) -> u32 {
    status(AUTH_GOOD, ukernel, abi::bootrom::JUMP_PASSED, false)
}

/// A failed check: the status code and the violation to record.
struct Failure {
    code: u32,
    kind: &'static str,
    detail: String,
}

fn fail(code: u32, kind: &'static str, detail: impl Into<String>) -> Failure {
    Failure {
        code,
        kind,
        detail: detail.into(),
    }
}

impl Guc {
    /// The driver cleared `UOS_MOVE`: boot the image if its DMA completed.
    pub(super) fn handoff(&mut self, now: Duration, rec: &mut Recorder, bus: &mut dyn Bus) {
        let Some(img) = self.image.as_mut() else {
            return;
        };
        if img.booted || img.ready_at.is_none_or(|t| t > now) {
            return;
        }
        img.booted = true;
        let rejected = status(AUTH_BAD, 0, abi::bootrom::RSA_FAILED, false);
        let css = match self.authenticate(rec, bus) {
            // The fault rejects a good image without a violation.
            Ok(_) if self.p.faults.rsa_reject => {
                self.status.set(now, rejected, rec);
                return;
            }
            Ok(css) => css,
            Err(f) => {
                rec.violation(f.kind, f.detail);
                self.status
                    .set(now, status(AUTH_BAD, 0, f.code, false), rec);
                return;
            }
        };
        let Some(img) = self.image.as_ref() else {
            return;
        };
        rec.emit(Event::GucLoaded {
            release: css.release(),
            submission: css.submission(),
            sha256: hex(&Sha256::digest(&img.bytes)),
            bytes: img.bytes.len() as u64,
        });
        self.retry_armed = self.p.faults.mmio_retry;
        self.status.set(now, running(abi::ukernel::START), rec);
        if !self.preload_ok(rec) {
            return;
        }
        let step = self.p.boot_time / 6;
        match self.check_params(&css, rec, bus) {
            Err(f) => {
                rec.violation(f.kind, f.detail);
                self.status.plan([(now + step, running(f.code))]);
                return;
            }
            Ok((contract, log)) => {
                let ads = contract.summary(|class, inst| {
                    crate::regfile::engine::ENGINES
                        .iter()
                        .find(|d| {
                            super::ct::submit::guc_class(d.src.class) == Some(class)
                                && u32::from(d.src.instance) == inst
                        })
                        .map(|d| d.name)
                });
                rec.emit(Event::GucAds { ads });
                self.ct.submit.contract = contract;
                self.log_start(log, rec, bus);
            }
        }
        let faults = self.p.faults;
        let mut plan: Vec<(Duration, u32)> = Vec::new();
        let mut t = now;
        for &uk in &WALK[1..] {
            t += step;
            if faults.boot_error && uk == abi::ukernel::GUCINT_DONE {
                plan.push((t, running(abi::ukernel::EXCEPTION)));
                self.eip = Some((t, EXCEPTION_EIP));
                break;
            }
            plan.push((t, running(uk)));
            if faults.boot_stall && uk == abi::ukernel::GUCINT_DONE {
                break;
            }
        }
        self.status.plan(plan);
    }

    /// The boot ROM's checks (module docs); the header on success.
    fn authenticate(&mut self, rec: &mut Recorder, bus: &mut dyn Bus) -> Result<Css, Failure> {
        let rsa_failed = abi::bootrom::RSA_FAILED;
        let Some(img) = self.image.as_ref() else {
            return Err(fail(rsa_failed, "guc_css_invalid", "no image"));
        };
        let copied = img.bytes.len() as u64;
        let css = Css::parse(&img.bytes).ok_or_else(|| {
            fail(
                rsa_failed,
                "guc_css_invalid",
                format!("the image is {copied} bytes, shorter than a CSS header"),
            )
        })?;
        css.check()
            .map_err(|e| fail(rsa_failed, "guc_css_invalid", format!("CSS header: {e}")))?;
        if copied != css.upload_bytes() {
            return Err(fail(
                rsa_failed,
                "guc_css_invalid",
                format!(
                    "the DMA copied {copied} bytes, but the header makes header + uCode {} \
                     (128 + {})",
                    css.upload_bytes(),
                    css.ucode_bytes()
                ),
            ));
        }
        let fw = self.p.fw.clone();
        if let Some(fw) = &fw {
            // CAST: copied bytes are in memory.
            let want = fw.bytes.get(..copied as usize);
            if want != Some(&img.bytes[..]) {
                let at = img
                    .bytes
                    .iter()
                    .zip(fw.bytes.iter())
                    .position(|(a, b)| a != b)
                    .unwrap_or(fw.bytes.len().min(img.bytes.len()));
                return Err(fail(
                    rsa_failed,
                    "guc_image_mismatch",
                    format!(
                        "the {copied} bytes copied differ from --guc-fw (first at byte {at:#x}; \
                         the file has {} bytes)",
                        fw.bytes.len()
                    ),
                ));
            }
        }
        let key = self.fetch_key(&css, rec, bus)?;
        if let Some(fw) = &fw {
            if key != fw.key() {
                return Err(fail(
                    rsa_failed,
                    "guc_rsa_mismatch",
                    format!(
                        "the {}-byte RSA key the driver provided differs from the key in \
                         --guc-fw",
                        key.len()
                    ),
                ));
            }
        }
        Ok(css)
    }

    /// The RSA key as the boot ROM reads it (upstream `guc_xfer_rsa`).
    fn fetch_key(
        &mut self,
        css: &Css,
        rec: &mut Recorder,
        bus: &mut dyn Bus,
    ) -> Result<Vec<u8>, Failure> {
        // CAST: key_size_dw is a u32 count of dwords; bounded below.
        let len = css.key_bytes() as usize;
        let in_regs = self.rsa_scratch.len() * 4;
        if len <= in_regs {
            let regs: Vec<u8> = self
                .rsa_scratch
                .iter()
                .flat_map(|d| d.to_le_bytes())
                .collect();
            return Ok(regs[..len].to_vec());
        }
        if len > 64 << 10 {
            return Err(fail(
                abi::bootrom::RSA_FAILED,
                "guc_css_invalid",
                format!("CSS header: a {len}-byte RSA key"),
            ));
        }
        let addr = u64::from(self.rsa_scratch[0]);
        let mut key = vec![0u8; len];
        Gtt::new(bus, &mut self.tlb)
            .read(addr, &mut key, "RSA key (UOS_RSA_SCRATCH(0))", rec)
            .map_err(|f| fail(abi::bootrom::RSA_FAILED, "guc_dma_fault", f.0))?;
        Ok(key)
    }

    /// The pre-load programming; records every miss.
    fn preload_ok(&self, rec: &mut Recorder) -> bool {
        let mut ok = true;
        if self.shim_control & SHIM_REQUIRED != SHIM_REQUIRED {
            ok = false;
            rec.violation(
                "guc_preload_shim",
                format!(
                    "GUC_SHIM_CONTROL is {:#x} at boot; the load needs {SHIM_REQUIRED:#x} set \
                     (read caches and MIA clock gating); the boot stalls at START",
                    self.shim_control
                ),
            );
        }
        if self.gt_pm_config & r::GT_DOORBELL_ENABLE.mask32() == 0 {
            ok = false;
            rec.violation(
                "guc_preload_doorbell",
                "GT_PM_CONFIG.gt_doorbell_enable is 0 at boot; the boot stalls at START",
            );
        }
        if self.pmintrmsk & r::ARAT_EXPIRED_INTRMSK.mask32() != 0 {
            ok = false;
            rec.violation(
                "guc_preload_arat",
                "PMINTRMSK.arat_expired_intrmsk is set at boot: the GuC gets no ARAT \
                 interrupts; the boot stalls at START",
            );
        }
        ok
    }

    /// `GUC_CTL` parameter `i` (`SOFT_SCRATCH(1 + i)`).
    fn param(&self, i: u32) -> u32 {
        self.soft_scratch[1 + i as usize]
    }

    /// The boot parameters (module docs).
    fn check_params(
        &mut self,
        css: &Css,
        rec: &mut Recorder,
        bus: &mut dyn Bus,
    ) -> Result<(Contract, Config), Failure> {
        let invalid = |detail: String| {
            fail(
                abi::ukernel::INIT_DATA_INVALID,
                "guc_init_data_invalid",
                detail,
            )
        };
        if self.soft_scratch[0] != 0 {
            return Err(invalid(format!(
                "SOFT_SCRATCH(0) is {:#x}, not 0",
                self.soft_scratch[0]
            )));
        }
        let devid = u32::from(self.p.device_id) << 16 | u32::from(self.p.revision);
        let got = self.param(abi::ctl::DEVID);
        if got != devid {
            return Err(fail(
                abi::ukernel::DEVID_BUILD_MISMATCH,
                "guc_devid_mismatch",
                format!(
                    "GUC_CTL_DEVID is {got:#x}; this device is {devid:#x} (devid << 16 | revid)"
                ),
            ));
        }
        let log = Config::decode(
            self.param(abi::ctl::LOG_PARAMS),
            self.param(super::log::CTL_DEBUG),
        )
        .map_err(invalid)?;
        let ads_param = self.param(abi::ctl::ADS);
        let words = (
            self.param(abi::ctl::WA),
            self.param(abi::ctl::FEATURE),
            self.p.device_id,
        );
        let mut gtt = Gtt::new(bus, &mut self.tlb);
        gtt.probe(
            log.buf,
            log.total(),
            "GuC log buffer (GUC_CTL_LOG_PARAMS)",
            rec,
        )
        .map_err(|f| invalid(f.0))?;
        let ads = u64::from(abi::field(ads_param, abi::ctl::ADS_ADDR)) << 12;
        let mut blob = vec![0u8; abi::ads::SIZE];
        gtt.read(ads, &mut blob, "ADS (GUC_CTL_ADS)", rec)
            .map_err(|f| invalid(f.0))?;
        let field = |off: usize| u64::from(abi::dword(&blob, off).unwrap_or(0));
        let policies = field(abi::ads::SCHEDULER_POLICIES);
        let mut pol = vec![0u8; abi::policies::SIZE];
        gtt.read(policies, &mut pol, "ADS scheduler_policies", rec)
            .map_err(|f| invalid(f.0))?;
        let is_valid = abi::dword(&pol, abi::policies::IS_VALID).unwrap_or(0);
        if is_valid != 1 {
            return Err(invalid(format!(
                "ADS scheduler_policies.is_valid is {is_valid}, not 1"
            )));
        }
        let sysinfo = field(abi::ads::GT_SYSTEM_INFO);
        // CAST: 640 bytes.
        let sysinfo_len = abi::gt_system_info::SIZE as u64;
        let mut sys = vec![0u8; abi::gt_system_info::SIZE];
        gtt.read(sysinfo, &mut sys, "ADS gt_system_info", rec)
            .map_err(|f| invalid(f.0))?;
        debug_assert_eq!(sys.len() as u64, sysinfo_len);
        let private = field(abi::ads::PRIVATE_DATA);
        if private == 0 {
            return Err(invalid("ADS private_data is 0".into()));
        }
        if css.private_data_size > 0 {
            gtt.probe(
                private,
                u64::from(css.private_data_size),
                "ADS private_data",
                rec,
            )
            .map_err(|f| invalid(f.0))?;
        }
        let contract = Contract::read(&mut gtt, &blob, &sys, words, rec).map_err(invalid)?;
        Ok((contract, log))
    }
}

/// Lower-case hex of `bytes`.
pub(super) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
