// SPDX-License-Identifier: GPL-2.0

//! The GuC's second boot phase: what upstream sends over CT once the GuC runs and its
//! interrupts are armed, before any submission (`xe_guc.c` `xe_guc_post_load_init`, called
//! from `xe_uc.c` `xe_uc_load_hw`). The subset taken here, in upstream's order:
//!
//! 1. opt-in features: `OPT_IN_FEATURE_KLV` (0x550e, `abi/guc_actions_abi.h`) pointing at a
//!    KLV list in GuC-reachable memory, holding `EXT_CAT_ERR_TYPE` (0x4001,
//!    `abi/guc_klvs_abi.h`) when the submission interface is 1.7.0 or newer
//!    (`xe_guc_opt_in_features_enable`). The other two opt-ins upstream knows need newer
//!    firmware or other platforms (uncorrectable-error reporting, dynamic ICS: PVC and Xe2);
//! 2. scheduling policies: `UPDATE_SCHEDULING_POLICIES_KLV` (0x509) with
//!    `RENDER_COMPUTE_YIELD` (0x1001) {80 ms, 20 %} when the part has compute engines and the
//!    submission interface is 1.1.0 or newer (`xe_guc_submit.c`
//!    `guc_init_global_schedule_policy`).
//!
//! Left out: SLPC start and GuC RC6 (the driver boots the GuC without `GUC_CTL_ENABLE_SLPC`,
//! see [`super::ads`]), and the engine activity buffers (a statistics feature).
//!
//! A failure stops the GuC as a failed load does: the driver does not submit through a GuC
//! whose setup is unknown.

use kernel::prelude::*;

use super::{
    fw::Version,
    klv::Writer,
    msg::{OptInFeatures, RenderComputeYield},
    tlb_inval, Ctx, Fail, Guc, GucState, State,
};
use crate::{abi::*, gt::GtDomain};

/// Upstream's RENDER_COMPUTE_YIELD values (`RC_YIELD_DURATION`, `RC_YIELD_RATIO`).
pub(crate) const YIELD_MS: u32 = 80;
pub(crate) const YIELD_RATIO: u32 = 20;
/// Submission interface versions that bring the policy and the opt-in.
const POLICIES_SINCE: Version = Version::new(1, 1, 0);
const OPT_IN_SINCE: Version = Version::new(1, 7, 0);

/// What the second phase set up, for debugfs `guc_info`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Done {
    /// Policy KLVs the GuC applied (its reply's DATA0), if sent.
    pub(crate) policies: Option<u32>,
    /// Opt-in KLVs sent, if any.
    pub(crate) opt_in: Option<u32>,
}

impl Done {
    pub(crate) const NONE: Self = Self {
        policies: None,
        opt_in: None,
    };

    /// The `guc_info` line.
    ///
    /// # Errors
    ///
    /// Only the formatter's.
    pub(crate) fn fmt(&self, f: &mut kernel::fmt::Formatter<'_>) -> kernel::fmt::Result {
        f.write_str("post_load:")?;
        match self.opt_in {
            Some(n) => f.write_fmt(fmt!(" opt_in {}", n))?,
            None => f.write_str(" opt_in none")?,
        }
        match self.policies {
            Some(n) => f.write_fmt(fmt!(
                " policies {} (render_compute_yield {} ms {}%)\n",
                n,
                YIELD_MS,
                YIELD_RATIO
            )),
            None => f.write_str(" policies none\n"),
        }
    }
}

/// The scheduling policy the second boot phase sets.
pub(crate) const YIELD: RenderComputeYield = RenderComputeYield {
    ms: YIELD_MS,
    ratio: YIELD_RATIO,
};

impl Guc {
    /// Runs the second boot phase; called once interrupts are armed, so replies arrive through
    /// the GuC-to-host interrupt. `has_ccs`: the part has compute engines. A failure is logged
    /// with its step, recorded for debugfs, and stops the GuC.
    ///
    /// # Errors
    ///
    /// The failing request's error (the GuC is down then).
    pub(crate) fn post_load(&self, ctx: &Ctx<'_>, has_ccs: bool) -> Result {
        let mut st = self.state.lock();
        if st.state != State::Running {
            return Ok(());
        }
        let Some(css) = st.css else {
            return Ok(());
        };
        match self.post_load_locked(ctx, &mut st, css.submission, has_ccs) {
            Ok(()) => Ok(()),
            Err(Fail(step, e)) => {
                dev_err!(
                    ctx.gt.dev,
                    "guc: load failed at {}: {:?}; stopping the GuC\n",
                    step,
                    e
                );
                self.stop(ctx, &mut st);
                st.state = State::Failed;
                st.error = Some((step, e));
                Err(e)
            }
        }
    }

    fn post_load_locked(
        &self,
        ctx: &Ctx<'_>,
        st: &mut GucState,
        submission: Version,
        has_ccs: bool,
    ) -> Result<(), Fail> {
        if submission >= OPT_IN_SINCE {
            let n = self
                .opt_in(ctx, st)
                .map_err(|e| Fail("CT opt-in features", e))?;
            st.post_load.opt_in = Some(n);
        }
        if has_ccs && submission >= POLICIES_SINCE {
            let applied = self
                .channel
                .request(ctx, &YIELD)
                .map_err(|e| Fail("CT scheduling policies", e))?;
            if applied != 1 {
                // Upstream only checks for an error; i915 warned on a short count.
                dev_warn!(
                    ctx.gt.dev,
                    "guc: the GuC applied {} of 1 scheduling policy KLVs\n",
                    applied
                );
            }
            st.post_load.policies = Some(applied);
        }
        Ok(())
    }

    /// Sends the opt-in list from a one-page GuC object, released once the GuC answered (it
    /// reads the list while serving the request). Returns the KLVs sent.
    fn opt_in(&self, ctx: &Ctx<'_>, st: &mut GucState) -> Result<u32> {
        // The list: one value-less KLV.
        let mut klvs = [0u32; 1];
        // CAST: the key is a 16-bit ABI constant.
        Writer::new(&mut klvs).put(XEHPG_KLV_OPT_IN_FEATURE_EXT_CAT_ERR_TYPE as u16, &[])?;
        let obj = self.obj(ctx, st, 4096)?;
        let sent = ctx
            .lmem
            .write32(obj.lmem.start, klvs[0])
            // The GuC may have cached a translation of these GGTT pages from an earlier use.
            .and_then(|()| {
                let awake = ctx.gt.wake::<GtDomain>()?;
                tlb_inval::ggtt(&ctx.gt, &awake)
            })
            .and_then(|()| {
                let req = OptInFeatures {
                    addr: obj.map.addr(0),
                    // CAST: one entry.
                    dwords: klvs.len() as u32,
                };
                self.channel.request(ctx, &req)
            });
        self.release(ctx, st, obj);
        sent.map(|()| 1)
    }
}
