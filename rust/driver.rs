// SPDX-License-Identifier: GPL-2.0

//! PCI binding: the device-ID table, the probe order and teardown.
//!
//! Probe follows upstream's early steps (`drivers/gpu/drm/xe/xe_pci.c`, `xe_pci_probe`, and
//! `xe_device.c`, `xe_device_probe_early`): enable and map the BARs, tell a VF from the PF,
//! wait for PCODE, check local memory. Only always-on registers are read here; GT and fuse
//! registers read 0 until forcewake is taken, which later blocks do.

use kernel::{
    debugfs,
    device::{Bound, Core},
    dma::{Device as _, DmaMask},
    pci,
    prelude::*,
    time::Delta,
};

use crate::{
    debugfs::{DebugCtx, DeviceRefs},
    gt::{
        forcewake::{DomainMask, Forcewake},
        mcr::{self, Mcr},
        topology::Topology,
        AccessStats, Gt,
    },
    guc::{self, Guc},
    info::{BarInfo, DeviceInfo},
    mem::{
        ggtt::Ggtt,
        lmem::{self, BarError, LmemAccess, LmemPool, TileRange},
    },
    mmio::{Bar0, Mmio, GTTMMADR_BAR, GTTMMADR_SIZE, LMEM_BAR},
    pcode,
    platform::{Platform, SteppingInfo},
    regs::{ALL_ONES, GU_CNTL, VF_CAP_REG},
};

/// Xe-HPG addresses 46 bits of system memory (upstream `dma_mask_size` for DG2,
/// `drivers/gpu/drm/xe/xe_pci.c`).
const DMA_BITS: u32 = 46;

/// Declares the PCI match table and [`DEVICE_IDS`] from one list, so lookups and tests use
/// exactly what the PCI core matches on.
macro_rules! device_ids {
    ($($id:literal => $platform:ident,)*) => {
        kernel::pci_device_table!(
            PCI_TABLE,
            <XehpgDriver as pci::Driver>::IdInfo,
            [$((pci::DeviceId::from_id(pci::Vendor::INTEL, $id), Platform::$platform)),*]
        );

        /// Every device ID the driver binds, with its product.
        #[cfg_attr(not(xehpg_kunit), allow(dead_code))]
        pub(crate) const DEVICE_IDS: &[(u16, Platform)] = &[$(($id, Platform::$platform)),*];
    };
}

// `include/drm/intel/pciids.h`: INTEL_DG2_G10/G11/G12_{D,E,M}_IDS, INTEL_ATS_M150_IDS and
// INTEL_ATS_M75_IDS.
device_ids! {
    0x56a0 => Dg2G10, 0x56a1 => Dg2G10, 0x56a2 => Dg2G10,
    0x56be => Dg2G10, 0x56bf => Dg2G10,
    0x5690 => Dg2G10, 0x5691 => Dg2G10, 0x5692 => Dg2G10,
    0x56a5 => Dg2G11, 0x56a6 => Dg2G11, 0x56b0 => Dg2G11, 0x56b1 => Dg2G11,
    0x56ba => Dg2G11, 0x56bb => Dg2G11, 0x56bc => Dg2G11, 0x56bd => Dg2G11,
    0x5693 => Dg2G11, 0x5694 => Dg2G11, 0x5695 => Dg2G11,
    0x56a3 => Dg2G12, 0x56a4 => Dg2G12, 0x56b2 => Dg2G12, 0x56b3 => Dg2G12,
    0x5696 => Dg2G12, 0x5697 => Dg2G12,
    0x56c0 => AtsM150, 0x56c2 => AtsM150,
    0x56c1 => AtsM75,
}

pub(crate) struct XehpgDriver;

/// Per-device state, alive while the device is bound.
///
/// Fields drop in declaration order: the debugfs directory goes first (its callbacks point at
/// the fields below), and the BARs go last, after everything that might still use them.
#[pin_data]
pub(crate) struct Xehpg<'bound> {
    #[pin]
    debugfs: debugfs::Scope<DebugCtx>,
    #[pin]
    forcewake: Forcewake,
    #[pin]
    mcr: Mcr,
    #[pin]
    guc: Guc,
    #[pin]
    ggtt: Ggtt,
    #[pin]
    lmem_pool: LmemPool,
    stats: AccessStats,
    lmembar: pci::Bar<'bound>,
    gttmmadr: Mmio<'bound>,
    pdev: &'bound pci::Device<Bound>,
}

/// What probe learns from GT registers, under forcewake.
struct GtProbe {
    topology: Topology,
    /// Local memory below the flat-CCS metadata, in bytes.
    lmem_usable: u64,
}

/// Reads the fuses (GT domain), records the present forcewake domains, programs the steering
/// defaults and reads the flat-CCS base (a GAM register, so steering must be ready first).
fn probe_gt(gt: &Gt<'_>, mcr: &Mcr, tile: &TileRange) -> Result<GtProbe> {
    let _gt_awake = gt.forcewake(DomainMask::GT)?;
    let topology = Topology::read(gt)?;
    gt.fw.set_present(topology.domains());
    mcr.init(gt.bar, topology)?;
    // Flat CCS takes the top of local memory (upstream `xe_vram.c`, `get_flat_ccs_offset`:
    // the register holds the base in 64 KiB units).
    let ccs =
        mcr::regs::XEHP_FLAT_CCS_BASE_ADDR::from_raw(mcr.read_any(gt, mcr::regs::FLAT_CCS_BASE)?);
    let base = u64::from(ccs.ptr().get()) << 16;
    if base <= tile.offset || base > tile.offset + tile.size {
        dev_err!(
            gt.dev,
            "probe: flat-CCS base {:#x} lies outside local memory [{:#x}, {:#x})\n",
            base,
            tile.offset,
            tile.offset + tile.size
        );
        return Err(EIO);
    }
    Ok(GtProbe {
        topology,
        lmem_usable: base - tile.offset,
    })
}

/// Length of a BAR, or a probe error naming it.
fn bar_len(pdev: &pci::Device<Bound>, bar: u32, name: &str) -> Result<BarInfo> {
    let len = pdev.resource_len(bar)?;
    if len == 0 {
        dev_err!(pdev, "probe: {} (BAR {}) is not assigned\n", name, bar);
        return Err(ENODEV);
    }
    Ok(BarInfo {
        start: pdev.resource_start(bar)?,
        len,
    })
}

/// Checks both BARs before mapping them, so a misconfigured device gets a precise message.
fn check_bars(pdev: &pci::Device<Bound>) -> Result<(BarInfo, BarInfo)> {
    let gtt = bar_len(pdev, GTTMMADR_BAR, "GTTMMADR")?;
    if gtt.len < GTTMMADR_SIZE as u64 {
        dev_err!(
            pdev,
            "probe: GTTMMADR (BAR 0) is {:#x} bytes, the PRM layout needs {:#x}\n",
            gtt.len,
            GTTMMADR_SIZE
        );
        return Err(ENODEV);
    }
    let lmem = bar_len(pdev, LMEM_BAR, "LMEMBAR")?;
    match lmem::check_bar_len(lmem.len) {
        Ok(()) => Ok((gtt, lmem)),
        Err(BarError::TooSmall) => {
            dev_err!(
                pdev,
                "probe: LMEMBAR (BAR 2) is {:#x} bytes, below the {:#x} minimum\n",
                lmem.len,
                lmem::LMEMBAR_MIN
            );
            Err(ENODEV)
        }
        Err(BarError::NotPowerOfTwo) => {
            dev_err!(
                pdev,
                "probe: LMEMBAR (BAR 2) is {:#x} bytes, not a power of two\n",
                lmem.len
            );
            Err(ENODEV)
        }
    }
}

/// First register read: proves the device answers and is a PF. Returns GU_CNTL.
fn check_alive_pf(pdev: &pci::Device<Bound>, bar: Bar0<'_>) -> Result<u32> {
    let gu_cntl = bar.read(GU_CNTL).into_raw();
    if gu_cntl == ALL_ONES {
        dev_err!(
            pdev,
            "probe: GU_CNTL reads {:#010x}: the device does not respond (surprise removal or \
             a link that fell off the bus)\n",
            gu_cntl
        );
        return Err(EIO);
    }
    if bar.read(VF_CAP_REG).vf_cap() {
        // A VF shares the PF's device ID (seed 000 lines 139-153); it needs a VF driver that
        // talks to the GuC through the PF, which this driver is not.
        dev_info!(
            pdev,
            "probe: function is an SR-IOV VF (VF_CAP_REG bit 0); xehpg drives PFs only\n"
        );
        return Err(ENODEV);
    }
    Ok(gu_cntl)
}

impl pci::Driver for XehpgDriver {
    type IdInfo = Platform;
    type Data<'bound> = Xehpg<'bound>;
    const ID_TABLE: pci::IdTable<Self::IdInfo> = &PCI_TABLE;

    fn probe<'bound>(
        pdev: &'bound pci::Device<Core<'_>>,
        info: Option<&'bound Self::IdInfo>,
    ) -> impl PinInit<Self::Data<'bound>, Error> + 'bound {
        pin_init::pin_init_scope(move || {
            let platform = *info.ok_or(ENODEV)?;
            let revision = pdev.revision_id();
            let stepping = SteppingInfo::from_revid(platform.die(), revision);
            if !stepping.exact {
                dev_warn!(
                    pdev,
                    "probe: unknown revision {:#04x} for {}, using stepping {}\n",
                    revision,
                    platform,
                    stepping.stepping
                );
            }

            let (gtt_info, lmem_info) = check_bars(pdev)?;
            pdev.enable_device_mem()?;
            pdev.set_master();
            // SAFETY: probe has made no DMA allocation or mapping for this device yet, and
            // nothing else runs for it concurrently.
            unsafe { pdev.dma_set_mask_and_coherent(DmaMask::new::<DMA_BITS>())? };

            let gttmmadr = Mmio::new(
                pdev.iomap_region_sized::<GTTMMADR_SIZE>(GTTMMADR_BAR, c"xehpg/gttmmadr")?,
            );
            let gu_cntl = check_alive_pf(pdev, &gttmmadr)?;

            let timeout = Delta::from_millis(i64::from(
                crate::module_parameters::pcode_init_timeout_ms.value(),
            ));
            let pcode = pcode::wait_init_complete(pdev.as_ref(), &gttmmadr, timeout)?;

            // PCODE completes its init only after local memory is trained, so LMEM_INIT must
            // be set now (upstream asserts the same, `xe_device.c`, `assert_lmem_ready`).
            let gu_cntl_now = gttmmadr.read(GU_CNTL);
            if !gu_cntl_now.lmem_init() {
                dev_err!(
                    pdev,
                    "probe: local memory not initialised (GU_CNTL {:#010x}, LMEM_INIT clear)\n",
                    gu_cntl_now.into_raw()
                );
                return Err(EIO);
            }
            let tile = TileRange::read(pdev.as_ref(), &gttmmadr)?;
            let lmembar = pdev.iomap_region(LMEM_BAR, c"xehpg/lmembar")?;

            let root = crate::debugfs::root()?;
            // GuC objects come from the CPU-visible part of local memory.
            let pool_size = lmem_info.len.min(tile.size);
            Ok(try_pin_init!(Xehpg {
                forcewake <- Forcewake::new(),
                mcr <- Mcr::new(),
                guc <- Guc::new(),
                ggtt <- Ggtt::new(pdev.as_ref())?,
                lmem_pool <- LmemPool::new(pool_size)?,
                stats: AccessStats::new(),
                lmembar,
                gttmmadr,
                pdev,
                debugfs <- {
                    let (fw, mcr, stats): (&Forcewake, &Mcr, &AccessStats) = (&forcewake, &mcr, stats);
                    let (guc, ggtt, pool): (&Guc, &Ggtt, &LmemPool) = (&guc, &ggtt, &lmem_pool);
                    let dev: &kernel::device::Device = pdev.as_ref();
                    let gt = Gt { dev, bar: gttmmadr, fw, stats };
                    let gtp = probe_gt(&gt, mcr, &tile)?;
                    ggtt.clear_all(gttmmadr)?;
                    let ctx = guc::Ctx { pdev, gt, ggtt, pool, lmem: LmemAccess(lmembar), mcr };
                    guc.load(&ctx, guc::fw::path());
                    let dev_info = DeviceInfo {
                        platform,
                        device_id: pdev.device_id(),
                        revision,
                        stepping,
                        gttmmadr: gtt_info,
                        lmembar: lmem_info,
                        tile,
                        lmem_usable: gtp.lmem_usable,
                        dss_count: gtp.topology.dss().count_ones(),
                        gu_cntl,
                        pcode_queries: pcode.queries,
                    };
                    report_bound(pdev, &dev_info);
                    let refs = DeviceRefs {
                        dev,
                        bar: core::ptr::from_ref(&*gttmmadr).cast(),
                        fw,
                        mcr,
                        stats,
                        guc,
                    };
                    root.scope(DebugCtx::new(dev_info, refs), pdev.as_ref().name(), |ctx, dir| {
                        crate::debugfs::populate(ctx, dir)
                    })
                },
            }))
        })
    }

    fn unbind<'bound>(pdev: &'bound pci::Device<Core<'_>>, this: Pin<&Self::Data<'bound>>) {
        // Stop the GuC before anything it can reach goes away.
        let gt = Gt {
            dev: pdev.as_ref(),
            bar: &this.gttmmadr,
            fw: &this.forcewake,
            stats: &this.stats,
        };
        let ctx = guc::Ctx {
            pdev,
            gt,
            ggtt: &this.ggtt,
            pool: &this.lmem_pool,
            lmem: LmemAccess(&this.lmembar),
            mcr: &this.mcr,
        };
        this.guc.fini(&ctx);
        // No new wakes from here on; a debugfs `forcewake_all` hold is released.
        this.forcewake.close(pdev.as_ref(), &this.gttmmadr);
        dev_dbg!(pdev, "unbind\n");
    }
}

/// The probe summary in the kernel log.
fn report_bound(pdev: &pci::Device<Bound>, info: &DeviceInfo) {
    if info.small_bar() {
        dev_info!(
            pdev,
            "small BAR: LMEMBAR {:#x} bytes of {:#x} local memory\n",
            info.lmembar.len,
            info.tile.size
        );
    }
    dev_info!(
        pdev,
        "{} rev {:#04x} (stepping {}), {} MiB local memory, {} DSS, bound\n",
        info.platform,
        info.revision,
        info.stepping.stepping,
        info.tile.size >> 20,
        info.dss_count
    );
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_driver)]
mod tests {
    use super::*;

    #[test]
    fn id_table_matches_pciids() {
        // 8 G10 + 11 G11 + 6 G12 IDs (DG2) and 3 ATS-M IDs in pciids.h.
        assert_eq!(DEVICE_IDS.len(), 28);
        let count = |p| DEVICE_IDS.iter().filter(|(_, q)| *q == p).count();
        assert_eq!(count(Platform::Dg2G10), 8);
        assert_eq!(count(Platform::Dg2G11), 11);
        assert_eq!(count(Platform::Dg2G12), 6);
        assert_eq!(count(Platform::AtsM150), 2);
        assert_eq!(count(Platform::AtsM75), 1);
    }

    #[test]
    fn id_table_has_no_duplicates() {
        for (i, (a, _)) in DEVICE_IDS.iter().enumerate() {
            assert!(DEVICE_IDS[i + 1..].iter().all(|(b, _)| b != a));
        }
    }

    #[test]
    fn only_ats_m_is_sriov_pf() {
        for (id, p) in DEVICE_IDS {
            assert_eq!(p.sriov_pf(), (0x56c0..=0x56c2).contains(id));
        }
    }
}
