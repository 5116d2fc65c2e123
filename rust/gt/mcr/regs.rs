// SPDX-License-Identifier: GPL-2.0

//! Multicast registers the driver uses, reachable only through the steering API.
//!
//! Each is defined with `register!` (for its fields and for the driver/mock cross-check in
//! `make check`) and made an [`McrRegister`]: the plain GT accessor does not compile for these
//! offsets, so the only way to them is [`super::Mcr`]. Offsets are upstream's
//! (`drivers/gpu/drm/xe/regs/xe_gt_regs.h`, `XE_REG_MCR`); each lies in a seed range of the
//! group named.

use kernel::io::register;

use super::{McrRegister, Steering};

register! {
    /// Flat-CCS base: local memory above it holds compression metadata (GAM range, seed 000
    /// line 472; field from upstream `XEHP_FLAT_CCS_PTR`, decoded in `xe_vram.c`).
    pub(crate) XEHP_FLAT_CCS_BASE_ADDR(u32) @ 0x00004910 {
        /// Base in 64 KiB units.
        31:8 ptr;
    }

    /// A GSLICE-replicated mode register (seed 000 lines 481-484).
    pub(crate) FF_MODE(u32) @ 0x00006210 {
        31:0 value;
    }

    /// A SQIDI register behind the MCFG selector (seed 000 line 499).
    pub(crate) XEHP_SQCM(u32) @ 0x00008724 {
        31:0 value;
    }

    /// An LNCF register (seed 000 line 519).
    pub(crate) XEHP_L3NODEARBCFG(u32) @ 0x0000b0b4 {
        31:0 value;
    }

    /// An L3BANK register (seed 000 line 520).
    pub(crate) XEHP_L3SQCREG5(u32) @ 0x0000b158 {
        31:0 value;
    }

    /// A GAM register (seed 000 line 524, GAM as settled in `mcr`).
    pub(crate) XEHP_GAMCNTRL_CTRL(u32) @ 0x0000cf54 {
        31:0 value;
    }

    /// A DSS register (seed 000 lines 538-541).
    pub(crate) LSC_CHICKEN_BIT_0(u32) @ 0x0000e7c8 {
        31:0 value;
    }

    /// An MSLICE register (seed 000 line 542).
    pub(crate) SARB_CHICKEN1(u32) @ 0x0000e90c {
        31:0 value;
    }

    /// GuC GGTT TLB invalidation on DG2 (upstream `regs/xe_guc_regs.h`, used by
    /// `xe_guc_tlb_inval.c` before CT is up). It lies in the GAM range 0xC800-0xCFFF (seed 000
    /// line 524), so it is written multicast like upstream's plain write.
    pub(crate) GUC_TLB_INV_CR(u32) @ 0x0000cee8 {
        0:0 invalidate => bool;
    }

    /// Local memory enabled and where the LMTT directory lies, in 64 KiB units (upstream
    /// `regs/xe_gt_regs.h` `LMEM_CFG`; the seed says the directory's location is held "in two
    /// MMIO registers ... one in GT (GAM)", seed 000 line 388, without naming them). It lies
    /// in the GAM range 0xC800-0xCFFF (seed 000 line 524), so it is written multicast.
    pub(crate) LMEM_CFG(u32) @ 0x0000cf58 {
        31:31 lmem_en => bool;
        30:0 lmtt_dir_ptr;
    }
}

/// Something to do with one multicast register, chosen by name at run time ([`visit`]).
pub(crate) trait Visitor {
    type Output;

    fn visit<R: McrRegister>(self) -> Self::Output;
}

/// Makes each register an [`McrRegister`] named after itself, asserts at build time that the
/// MCR table puts it in the group it was chosen for, and generates the by-name dispatch.
macro_rules! mcr_registers {
    ($($reg:ident => $steering:ident,)*) => {
        $(
            impl McrRegister for $reg {
                const NAME: &'static str = stringify!($reg);
            }
        )*

        const _: () = {
            $(assert!(matches!(<$reg as McrRegister>::STEERING, Steering::$steering));)*
        };

        /// Every multicast register the driver knows: name, offset and group.
        #[cfg(xehpg_kunit)]
        const ALL: &[(&str, usize, Steering)] =
            &[$((stringify!($reg), <$reg as kernel::io::register::Register>::OFFSET, Steering::$steering)),*];

        /// Runs `v` on the register called `name` (debugfs `mcr`), or `None` if the driver
        /// knows no multicast register of that name.
        pub(crate) fn visit<V: Visitor>(name: &str, v: V) -> Option<V::Output> {
            match name {
                $(stringify!($reg) => Some(v.visit::<$reg>()),)*
                _ => None,
            }
        }
    };
}

mcr_registers! {
    XEHP_FLAT_CCS_BASE_ADDR => Gam,
    GUC_TLB_INV_CR => Gam,
    LMEM_CFG => Gam,
    FF_MODE => Gslice,
    XEHP_SQCM => SqidiMcfg,
    XEHP_L3NODEARBCFG => Lncf,
    XEHP_L3SQCREG5 => L3bank,
    XEHP_GAMCNTRL_CTRL => Gam,
    LSC_CHICKEN_BIT_0 => Dss,
    SARB_CHICKEN1 => Mslice,
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_mcr_regs)]
mod tests {
    use super::*;
    use kernel::prelude::*;

    #[test]
    fn handles_agree_with_the_range_table() {
        for &(_, offset, steering) in ALL {
            let offset = u32::try_from(offset).map_err(|_| EINVAL);
            assert_eq!(offset.map(super::super::steering_of), Ok(Some(steering)));
        }
    }

    /// Reports the offset of the register it visits.
    struct Offset;

    impl Visitor for Offset {
        type Output = usize;

        fn visit<R: McrRegister>(self) -> usize {
            R::OFFSET
        }
    }

    #[test]
    fn lookup_by_name() {
        assert_eq!(visit("SARB_CHICKEN1", Offset), Some(0xe90c));
        assert_eq!(visit("GUC_TLB_INV_CR", Offset), Some(0xcee8));
        assert!(visit("GU_CNTL", Offset).is_none());
        // Every listed name reaches its own register.
        for &(name, offset, _) in ALL {
            assert_eq!(visit(name, Offset), Some(offset));
        }
    }
}
