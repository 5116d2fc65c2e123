// SPDX-License-Identifier: GPL-2.0

//! WOPCM: the write-once partition of on-die memory the GuC runs from.
//!
//! The PRM asks for the WOPCM base and size to be programmed before the DMA (seed 000, lines
//! 1105-1140); the sizes and the layout are upstream's (`xe_wopcm.c`, without HuC). Both
//! registers latch until a device reset, so a reload (or firmware that set them first) may find
//! them locked; they are accepted if the firmware fits and the region lies inside the largest
//! WOPCM upstream allows for locked values (8 MiB, `xe_wopcm.c` `max_wopcm_size`), not only the
//! 4 MiB the driver programs itself.

use kernel::prelude::*;

use super::{fw::CssInfo, regs::*};
use crate::gt::{Awake, Gt, GtDomain};

/// WOPCM on discrete Xe-HPG and the reservations around the GuC's share (upstream
/// `xe_wopcm.c`: `DGFX_WOPCM_SIZE`, `WOPCM_RESERVED_SIZE`, `WOPCM_HW_CTX_RESERVED`,
/// `GUC_WOPCM_RESERVED`, `GUC_WOPCM_STACK_RESERVED`).
const WOPCM_SIZE: u32 = 4 << 20;
const WOPCM_RESERVED: u32 = 16 << 10;
const WOPCM_HW_CTX_RESERVED: u32 = 36 << 10;
const GUC_WOPCM_RESERVED: u32 = 16 << 10;
const GUC_WOPCM_STACK_RESERVED: u32 = 8 << 10;
/// The WOPCM size upstream checks already-locked values against (`xe_wopcm.c`
/// `max_wopcm_size`: `SZ_8M` for every platform but Nova Lake-P; `xe_wopcm_init` uses it in
/// place of `xe_wopcm_size` when `__wopcm_regs_locked` says BIOS/IFWI or an earlier load
/// programmed them).
const LOCKED_WOPCM_MAX: u32 = 8 << 20;

/// Whether locked values (`base`, `size`, bytes) suit a firmware needing `need` bytes of GuC
/// WOPCM, by upstream's rules for them (`xe_wopcm.c` `__check_layout` against
/// [`LOCKED_WOPCM_MAX`], no HuC): the region ends below the hardware-context reservation at the
/// top, holds the firmware with its reservations, and starts above the reserved first 16 KiB.
/// Any context.
fn locked_layout_fits(base: u32, size: u32, need: u32) -> bool {
    let top = LOCKED_WOPCM_MAX - WOPCM_HW_CTX_RESERVED;
    base < top && size <= top - base && size >= need && base >= WOPCM_RESERVED
}

/// The GuC's WOPCM partition as it runs with it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Wopcm {
    pub(crate) base: u32,
    pub(crate) size: u32,
    /// Found locked by an earlier load rather than programmed now.
    pub(crate) locked: bool,
}

impl kernel::fmt::Display for Wopcm {
    /// The `guc_info` line.
    fn fmt(&self, f: &mut kernel::fmt::Formatter<'_>) -> kernel::fmt::Result {
        let how = if self.locked {
            "found locked"
        } else {
            "programmed"
        };
        f.write_fmt(fmt!(
            "base {:#x} size {:#x} ({})",
            self.base,
            self.size,
            how
        ))
    }
}

/// The GuC's WOPCM share for a firmware of `css`'s size (upstream `xe_wopcm.c`, no HuC):
/// base above the reserved 16 KiB, size up to the hardware-context reservation. Returns
/// (base, size).
///
/// # Errors
///
/// `EFBIG` if the firmware does not fit.
pub(super) fn layout(css: &CssInfo) -> Result<(u32, u32)> {
    let base = WOPCM_RESERVED;
    let size = (WOPCM_SIZE - WOPCM_HW_CTX_RESERVED - base) & !0xfff;
    let need = u32::try_from(css.dma_bytes()).map_err(|_| EFBIG)?
        + GUC_WOPCM_RESERVED
        + GUC_WOPCM_STACK_RESERVED;
    if size < need {
        return Err(EFBIG);
    }
    Ok((base, size))
}

/// Programs (or accepts the already locked) WOPCM registers.
///
/// # Errors
///
/// `EFBIG` if the firmware does not fit, `EINVAL` if locked values do not suit it, `EIO` if
/// the registers do not latch, or a register-access error.
pub(super) fn setup(gt: &Gt<'_>, awake: &Awake<'_, GtDomain>, css: &CssInfo) -> Result<Wopcm> {
    let (base, size) = layout(css).inspect_err(|_| {
        dev_err!(
            gt.dev,
            "guc: firmware of {:#x} bytes does not fit the GuC WOPCM\n",
            css.dma_bytes()
        )
    })?;
    let size_reg: GUC_WOPCM_SIZE = gt.read(awake);
    let off_reg: DMA_GUC_WOPCM_OFFSET = gt.read(awake);
    if size_reg.locked() || off_reg.valid() {
        // Locked by an earlier load (they survive until a device reset): keep them if the
        // firmware fits in what they describe.
        let (cur_base, cur_size) = (off_reg.offset().get() << 14, size_reg.size().get() << 12);
        // CAST: `layout` above proved the image size fits in u32.
        let need = css.dma_bytes() as u32 + GUC_WOPCM_RESERVED + GUC_WOPCM_STACK_RESERVED;
        // Both must be set (`__wopcm_regs_locked`); one alone is a half-programmed pair the
        // driver can neither use nor rewrite.
        let fits =
            size_reg.locked() && off_reg.valid() && locked_layout_fits(cur_base, cur_size, need);
        if !fits {
            dev_err!(
                gt.dev,
                "guc: WOPCM locked at base {:#x} size {:#x} ({:#010x}/{:#010x}), unusable for this firmware\n",
                cur_base,
                cur_size,
                off_reg.into_raw(),
                size_reg.into_raw()
            );
            return Err(EINVAL);
        }
        return Ok(Wopcm {
            base: cur_base,
            size: cur_size,
            locked: true,
        });
    }
    gt.write(awake, GUC_WOPCM_SIZE::zeroed().try_with_size(size >> 12)?);
    gt.write(
        awake,
        DMA_GUC_WOPCM_OFFSET::zeroed().try_with_offset(base >> 14)?,
    );
    let size_back: GUC_WOPCM_SIZE = gt.read(awake);
    let off_back: DMA_GUC_WOPCM_OFFSET = gt.read(awake);
    if !size_back.locked()
        || size_back.size().get() << 12 != size
        || !off_back.valid()
        || off_back.offset().get() << 14 != base
    {
        dev_err!(
            gt.dev,
            "guc: WOPCM registers did not latch: size {:#010x}, offset {:#010x}\n",
            size_back.into_raw(),
            off_back.into_raw()
        );
        return Err(EIO);
    }
    Ok(Wopcm {
        base,
        size,
        locked: false,
    })
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_wopcm)]
mod tests {
    use super::*;

    const NEED: u32 = 400 << 10;

    #[test]
    fn locked_layout_follows_upstream_8m_limit() {
        // What the driver programs itself.
        assert!(locked_layout_fits(0x4000, 0x3f_3000, NEED));
        // Between 4 and 8 MiB: upstream accepts, the old 4 MiB check refused.
        assert!(locked_layout_fits(0x4000, 0x5f_0000, NEED));
        // Up to the hardware-context reservation below 8 MiB, not one page more.
        assert!(locked_layout_fits(0x4000, 0x7f_7000 - 0x4000, NEED));
        assert!(!locked_layout_fits(0x4000, 0x7f_8000 - 0x4000, NEED));
        // Too small, inside the reserved first 16 KiB, base past the top.
        assert!(!locked_layout_fits(0x4000, 0x1_0000, NEED));
        assert!(!locked_layout_fits(0x0, 0x3f_3000, NEED));
        assert!(!locked_layout_fits(0x7f_8000, 0x1000, 0));
        // No overflow with hostile values.
        assert!(!locked_layout_fits(0x4000, !0xfff_u32, NEED));
    }
}
