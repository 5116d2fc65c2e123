// SPDX-License-Identifier: GPL-2.0

//! What probe found, as `/sys/kernel/debug/xehpg/<pci address>/info` shows it.
//!
//! A snapshot taken at the end of probe: nothing here reads hardware, so the file is safe to
//! read at any time and costs no MMIO. The format (one `key: value` per line, numbers in hex
//! where they are addresses or raw registers) is documented in `Documentation/debugfs.rst`.

use kernel::{fmt, prelude::*};

use crate::{
    mem::lmem::TileRange,
    platform::{Platform, SteppingInfo},
};

/// A PCI BAR as the PCI core assigned it.
#[derive(Copy, Clone, Debug)]
pub(crate) struct BarInfo {
    pub(crate) start: u64,
    pub(crate) len: u64,
}

/// Everything probe learned about one device.
#[derive(Copy, Clone, Debug)]
pub(crate) struct DeviceInfo {
    pub(crate) platform: Platform,
    pub(crate) device_id: u16,
    pub(crate) revision: u8,
    pub(crate) stepping: SteppingInfo,
    pub(crate) gttmmadr: BarInfo,
    pub(crate) lmembar: BarInfo,
    pub(crate) tile: TileRange,
    /// Local memory below the flat-CCS metadata, in bytes.
    pub(crate) lmem_usable: u64,
    /// DSS enabled by the fuses.
    pub(crate) dss_count: u32,
    /// Raw GU_CNTL at probe.
    pub(crate) gu_cntl: u32,
    /// PCODE init-status queries until "complete".
    pub(crate) pcode_queries: u32,
    /// Of those, the ones that found the mailbox busy and were retried.
    pub(crate) pcode_busy: u32,
    /// Of those, the ones that failed otherwise (stuck, error code) and were retried.
    pub(crate) pcode_failed: u32,
    /// VFs the SR-IOV capability offers (TotalVFs; 0 without the capability).
    pub(crate) total_vfs: u16,
}

impl DeviceInfo {
    /// The CPU cannot reach all of local memory through LMEMBAR.
    pub(crate) fn small_bar(&self) -> bool {
        self.lmembar.len < self.tile.size
    }
}

fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

impl fmt::Display for DeviceInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_fmt(fmt!("platform: {}\n", self.platform))?;
        f.write_fmt(fmt!("device_id: {:#06x}\n", self.device_id))?;
        f.write_fmt(fmt!("revision: {:#04x}\n", self.revision))?;
        let exact = if self.stepping.exact {
            ""
        } else {
            " (nearest known)"
        };
        f.write_fmt(fmt!("stepping: {}{}\n", self.stepping.stepping, exact))?;
        f.write_fmt(fmt!(
            "sriov_pf_capable: {}\n",
            yes_no(self.platform.sriov_pf())
        ))?;
        f.write_fmt(fmt!("sriov_total_vfs: {}\n", self.total_vfs))?;
        f.write_fmt(fmt!("gttmmadr_start: {:#x}\n", self.gttmmadr.start))?;
        f.write_fmt(fmt!("gttmmadr_size: {:#x}\n", self.gttmmadr.len))?;
        f.write_fmt(fmt!("lmembar_start: {:#x}\n", self.lmembar.start))?;
        f.write_fmt(fmt!("lmembar_size: {:#x}\n", self.lmembar.len))?;
        f.write_fmt(fmt!("lmem_size: {:#x}\n", self.tile.size))?;
        f.write_fmt(fmt!("lmem_offset: {:#x}\n", self.tile.offset))?;
        f.write_fmt(fmt!("lmem_usable: {:#x}\n", self.lmem_usable))?;
        f.write_fmt(fmt!("small_bar: {}\n", yes_no(self.small_bar())))?;
        f.write_fmt(fmt!("dss_count: {}\n", self.dss_count))?;
        f.write_fmt(fmt!("sg_tile_addr_range: {:#010x}\n", self.tile.raw))?;
        f.write_fmt(fmt!("gu_cntl: {:#010x}\n", self.gu_cntl))?;
        f.write_fmt(fmt!(
            "pcode_init: complete after {} queries\n",
            self.pcode_queries
        ))?;
        f.write_fmt(fmt!(
            "pcode_retries: busy {} failed {}\n",
            self.pcode_busy,
            self.pcode_failed
        ))
    }
}
