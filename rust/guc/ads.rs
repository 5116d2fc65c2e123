// SPDX-License-Identifier: GPL-2.0

//! ADS, the GuC's Additional Data Structures: the scheduler policies, the system info and the
//! private data area the firmware header asks for, in one local-memory object (layout in
//! `include/xehpg_abi.h`, from upstream `abi/guc_ads_abi.h`, filled as `xe_guc_ads.c` does
//! for the first load).

use core::mem::{offset_of, size_of};

use kernel::prelude::*;

use super::{fw::CssInfo, Obj};
use crate::{abi::*, mem::lmem::LmemAccess};

/// Scheduler policy defaults the GuC expects (`xe_guc_ads.c`, `guc_policies_init`).
const DPC_PROMOTE_TIME_US: u32 = 500_000;
const MAX_NUM_WORK_ITEMS: u32 = 15;

/// Fills the minimal ADS: pointers to the policies and system info in the same buffer and to
/// the private data area after them (`xe_guc_ads.c`, `xe_guc_ads_populate_minimal`).
///
/// # Errors
///
/// `EINVAL` for an address beyond 4 GiB, or a local-memory access error.
pub(super) fn write(lmem: LmemAccess<'_>, ads: &Obj, css: &CssInfo) -> Result {
    let base = ads.lmem.start;
    let ggtt =
        |off: usize| -> Result<u32> { u32::try_from(ads.map.addr(off as u64)).map_err(|_| EINVAL) };
    lmem.zero(base, u64::from(XEHPG_GUC_ADS_PRIVATE_OFFSET))?;
    let field = |off: usize| base + off as u64;
    let ads_off = offset_of!(xehpg_guc_ads_blob, ads);
    let pol = offset_of!(xehpg_guc_ads_blob, policies);
    let sys = offset_of!(xehpg_guc_ads_blob, system_info);
    lmem.write32(
        field(ads_off + offset_of!(xehpg_guc_ads, scheduler_policies)),
        ggtt(pol)?,
    )?;
    lmem.write32(
        field(ads_off + offset_of!(xehpg_guc_ads, gt_system_info)),
        ggtt(sys)?,
    )?;
    if css.private_data_bytes > 0 {
        let private = ggtt(XEHPG_GUC_ADS_PRIVATE_OFFSET as usize)?;
        lmem.write32(
            field(ads_off + offset_of!(xehpg_guc_ads, private_data)),
            private,
        )?;
    }
    lmem.write32(
        field(pol + offset_of!(xehpg_guc_policies, dpc_promote_time)),
        DPC_PROMOTE_TIME_US,
    )?;
    lmem.write32(
        field(pol + offset_of!(xehpg_guc_policies, max_num_work_items)),
        MAX_NUM_WORK_ITEMS,
    )?;
    lmem.write32(field(pol + offset_of!(xehpg_guc_policies, is_valid)), 1)?;
    const _: () = assert!(size_of::<xehpg_guc_ads_blob>() <= XEHPG_GUC_ADS_PRIVATE_OFFSET as usize);
    Ok(())
}
