// SPDX-License-Identifier: GPL-2.0

//! GuC boot: reset, boot parameters, the pre-DMA programming, the RSA key, the DMA of the
//! image into WOPCM and the wait for GUC_STATUS (`xe_guc.c` `__xe_guc_upload`, `xe_uc_fw.c`
//! `uc_fw_xfer`), each step cited where it is done. Every function needs GT forcewake held.

use kernel::{prelude::*, time::Delta};

use super::{
    fw::CssInfo,
    regs::*,
    status::{code, Auth, BootOutcome, Bootrom, Ukernel},
    Ctx, Objs,
};
use crate::{
    abi::*,
    gt::{Awake, Gt, GtDomain},
    mmio::poll_timeout,
};

/// "uCode expects the code to be loaded at 8k; locations below are stack" (`xe_guc.c`).
const UCODE_WOPCM_OFFSET: u32 = 0x2000;
/// DMA address spaces (upstream `regs/xe_guc_regs.h`).
const DMA_ADDRESS_SPACE_WOPCM: u32 = 7;
const DMA_ADDRESS_SPACE_GGTT: u32 = 8;

// TIMEOUT: upstream's limits: GDRST 5 ms, DMA 100 ms, boot 3 s polled every 10 ms.
const RESET_TIMEOUT: Delta = Delta::from_millis(5);
const DMA_TIMEOUT: Delta = Delta::from_millis(100);
const BOOT_TIMEOUT: Delta = Delta::from_secs(3);
const BOOT_POLL: Delta = Delta::from_millis(10);

/// GDRST GuC reset; the GuC must then report MIA_IN_RESET (`xe_guc.c`, `xe_guc_reset`).
///
/// # Errors
///
/// `ETIMEDOUT` if GDRST does not clear, `EIO` if the GuC does not report the reset.
pub(super) fn reset(gt: &Gt<'_>, awake: &Awake<'_, GtDomain>) -> Result {
    gt.write(awake, GDRST::zeroed().with_grdom_guc(true));
    poll_timeout(
        || Ok(gt.read::<GDRST, _>(awake)),
        |r| !r.grdom_guc(),
        Delta::from_micros(10),
        RESET_TIMEOUT,
    )
    .inspect_err(|_| {
        dev_err!(
            gt.dev,
            "guc: GDRST GuC reset did not complete within 5 ms\n"
        )
    })?;
    let status: GUC_STATUS = gt.read(awake);
    if !status.mia_in_reset() {
        dev_err!(
            gt.dev,
            "guc: still running after reset (GUC_STATUS {:#010x})\n",
            status.into_raw()
        );
        return Err(EIO);
    }
    Ok(())
}

/// SOFT_SCRATCH(0) = 0, SOFT_SCRATCH(1 + i) = GUC_CTL parameter i (`xe_guc.c`,
/// `guc_write_params`). Log, debug, ADS and device ID are the same for both loads
/// (`guc_init_params`, `guc_init_params_post_hwconfig`); `wa` and `feature` are 0 for the
/// first and the post-hwconfig words for the second ([`super::Phase::words`]).
///
/// # Errors
///
/// `EINVAL` for an object beyond the GuC's 4 GiB.
pub(super) fn params(
    ctx: &Ctx<'_>,
    awake: &Awake<'_, GtDomain>,
    objs: &Objs,
    wa: u32,
    feature: u32,
) -> Result {
    let mut params = [0u32; XEHPG_GUC_CTL_MAX_DWORDS as usize];
    params[XEHPG_GUC_CTL_WA as usize] = wa;
    params[XEHPG_GUC_CTL_FEATURE as usize] = feature;
    let log = u32::try_from(objs.log.map.addr(0)).map_err(|_| EINVAL)?;
    params[XEHPG_GUC_CTL_LOG_PARAMS as usize] = XEHPG_GUC_LOG_VALID
        | XEHPG_GUC_LOG_NOTIFY_ON_HALF_FULL
        | super::log::PARAMS_SIZES
        | (log & XEHPG_GUC_LOG_BUF_ADDR_MASK);
    params[XEHPG_GUC_CTL_DEBUG as usize] = super::log::debug_flags(super::log::level());
    let ads_page = u32::try_from(objs.ads.map.addr(0) >> 12).map_err(|_| EINVAL)?;
    params[XEHPG_GUC_CTL_ADS as usize] =
        (ads_page & XEHPG_GUC_ADS_ADDR_MASK) << XEHPG_GUC_ADS_ADDR_SHIFT;
    params[XEHPG_GUC_CTL_DEVID as usize] =
        (u32::from(ctx.pdev.device_id()) << 16) | u32::from(ctx.pdev.revision_id());
    ctx.gt.write_at(awake, 0, SOFT_SCRATCH::zeroed())?;
    for (i, &p) in params.iter().enumerate() {
        ctx.gt.write_at(awake, 1 + i, SOFT_SCRATCH::from_raw(p))?;
    }
    Ok(())
}

/// Shim, PM doorbell and ARAT unmask, which must precede the DMA (`xe_guc.c`,
/// `guc_prepare_xfer`).
pub(super) fn preload(gt: &Gt<'_>, awake: &Awake<'_, GtDomain>) -> Result {
    // Graphics 12.50+: read caches on and MIA clock gating (`xe_guc.c`, `guc_prepare_xfer`).
    gt.write(
        awake,
        GUC_SHIM_CONTROL::zeroed()
            .with_read_cache_logic(true)
            .with_read_cache_for_sram_data(true)
            .with_read_cache_for_wopcm_data(true)
            .with_mia_clock_gating(true),
    );
    gt.write_aon(GT_PM_CONFIG::zeroed().with_gt_doorbell_enable(true));
    let mask: PMINTRMSK = gt.read(awake);
    gt.write(awake, mask.with_arat_expired_intrmsk(false));
    Ok(())
}

/// Tells the boot ROM where the key is: a key over 256 bytes by GGTT address in
/// UOS_RSA_SCRATCH(0), a smaller one copied into the 64 registers (`xe_guc.c`,
/// `guc_xfer_rsa`).
///
/// # Errors
///
/// `EINVAL` for a key the image or the 64 registers cannot hold, or beyond 4 GiB.
pub(super) fn rsa(
    gt: &Gt<'_>,
    awake: &Awake<'_, GtDomain>,
    css: &CssInfo,
    objs: &Objs,
    image: &[u8],
) -> Result {
    let key_at = css.key_offset();
    if css.key_bytes > 256 {
        let addr = u32::try_from(objs.fw.map.addr(key_at as u64)).map_err(|_| EINVAL)?;
        return gt.write_at(awake, 0, UOS_RSA_SCRATCH::from_raw(addr));
    }
    let key = image.get(key_at..key_at + css.key_bytes).ok_or(EINVAL)?;
    for (i, chunk) in key.chunks(4).enumerate() {
        let mut dw = [0u8; 4];
        dw[..chunk.len()].copy_from_slice(chunk);
        gt.write_at(awake, i, UOS_RSA_SCRATCH::from_raw(u32::from_le_bytes(dw)))?;
    }
    Ok(())
}

/// DMA header + uCode from the GGTT to WOPCM 0x2000 (`xe_uc_fw.c`, `uc_fw_xfer`).
///
/// # Errors
///
/// `EINVAL` for a misaligned source or an oversized image, `ETIMEDOUT` if the DMA does not
/// complete.
pub(super) fn dma(gt: &Gt<'_>, awake: &Awake<'_, GtDomain>, css: &CssInfo, src: u64) -> Result {
    // The seed's rule: source and destination agree in their low 6 bits (seed 000 line 1133).
    if src % 64 != u64::from(UCODE_WOPCM_OFFSET) % 64 {
        return Err(EINVAL);
    }
    let size = u32::try_from(css.dma_bytes()).map_err(|_| EINVAL)?;
    // CAST: `src` is a GGTT address, below 4 GiB: the low dword and 16 high bits cover it.
    gt.write(awake, DMA_ADDR_0_LOW::zeroed().with_value(src as u32));
    gt.write(
        awake,
        DMA_ADDR_0_HIGH::zeroed()
            .try_with_addr((src >> 32) as u32)?
            .try_with_space(DMA_ADDRESS_SPACE_GGTT)?,
    );
    gt.write(
        awake,
        DMA_ADDR_1_LOW::zeroed().with_value(UCODE_WOPCM_OFFSET),
    );
    gt.write(
        awake,
        DMA_ADDR_1_HIGH::zeroed().try_with_space(DMA_ADDRESS_SPACE_WOPCM)?,
    );
    gt.write(awake, DMA_COPY_SIZE::zeroed().with_value(size));
    // Masked register: enable writes to UOS_MOVE (bit 4) and START_DMA (bit 0) only.
    gt.write(
        awake,
        DMA_CTRL::zeroed()
            .with_mask(0x11u16)
            .with_uos_move(true)
            .with_start_dma(true),
    );
    let done = poll_timeout(
        || Ok(gt.read::<DMA_CTRL, _>(awake)),
        |c| !c.start_dma(),
        Delta::from_micros(50),
        DMA_TIMEOUT,
    );
    // Clear UOS_MOVE whatever happened, as upstream does.
    gt.write(awake, DMA_CTRL::zeroed().with_mask(0x10u16));
    done.map(|_| ()).inspect_err(|_| {
        dev_err!(
            gt.dev,
            "guc: DMA of {:#x} bytes did not complete within {} ms\n",
            size,
            DMA_TIMEOUT.as_millis()
        )
    })
}

/// Polls GUC_STATUS until READY or a failure; returns the last raw status either way.
///
/// # Errors
///
/// The last status with `EPROTO` for a failure, `ETIMEDOUT` if the GuC is still booting.
pub(super) fn wait(gt: &Gt<'_>, awake: &Awake<'_, GtDomain>) -> Result<u32, (u32, Error)> {
    let mut last = 0;
    let done = poll_timeout(
        || {
            last = gt.read::<GUC_STATUS, _>(awake).into_raw();
            Ok(last)
        },
        |&raw| GUC_STATUS::from_raw(raw).outcome() != BootOutcome::Booting,
        BOOT_POLL,
        BOOT_TIMEOUT,
    );
    match done.map(|raw| GUC_STATUS::from_raw(raw).outcome()) {
        Ok(BootOutcome::Ready) => Ok(last),
        Ok(BootOutcome::Failed) => {
            report_status(gt, "failed", last);
            Err((last, EPROTO))
        }
        Ok(BootOutcome::Booting) | Err(_) => {
            report_status(gt, "timed out", last);
            Err((last, ETIMEDOUT))
        }
    }
}

fn report_status(gt: &Gt<'_>, what: &str, raw: u32) {
    let s = GUC_STATUS::from_raw(raw);
    let (uk, uk_name) = code(s.ukernel(), Ukernel::name);
    let (rom, rom_name) = code(s.bootrom(), Bootrom::name);
    let (_, auth) = code(s.auth(), Auth::name);
    dev_err!(
        gt.dev,
        "guc: boot {} after {} ms: GUC_STATUS {:#010x} (uKernel {:#04x} {}, boot ROM {:#04x} {}, auth {}, MIA reset {})\n",
        what,
        BOOT_TIMEOUT.as_millis(),
        raw,
        uk,
        uk_name,
        rom,
        rom_name,
        auth,
        u8::from(s.mia_in_reset())
    );
}
