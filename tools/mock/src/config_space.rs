//! PCI configuration space of the mock function (4 KiB, type 0 header).
//!
//! Offsets and bit names follow `include/uapi/linux/pci_regs.h`. Each byte has
//! a write mask: bits outside it are read-only and writes to them are ignored,
//! which also gives standard BAR sizing (writing all-ones to a BAR reads back
//! the size mask plus the read-only type bits).
//!
//! Layout choices without a PRM source are marked `[MODEL]`. QEMU's
//! vfio-pci virtualises the BARs and the MSI capability itself and rewrites
//! the PCIe capability (`ENVIRONMENT.md`), so those mostly matter at realize
//! time and to unit tests; the guest sees command/status, IDs and the
//! capability bodies as the mock serves them.

use thiserror::Error;

pub mod sriov;

pub use sriov::{SriovParams, Violation};

/// Size of PCIe configuration space (with extended space).
pub const CONFIG_SIZE: usize = 4096;

/// Where the PCIe extended configuration space starts.
const EXTENDED_START: usize = 0x100;

// Type 0 header offsets, include/uapi/linux/pci_regs.h.
const PCI_VENDOR_ID: usize = 0x00;
const PCI_DEVICE_ID: usize = 0x02;
const PCI_COMMAND: usize = 0x04;
const PCI_STATUS: usize = 0x06;
const PCI_REVISION_ID: usize = 0x08;
const PCI_CLASS_PROG: usize = 0x09;
const PCI_CACHE_LINE_SIZE: usize = 0x0C;
const PCI_BASE_ADDRESS_0: usize = 0x10;
const PCI_SUBSYSTEM_VENDOR_ID: usize = 0x2C;
const PCI_SUBSYSTEM_ID: usize = 0x2E;
const PCI_CAPABILITY_LIST: usize = 0x34;
const PCI_INTERRUPT_LINE: usize = 0x3C;
const PCI_INTERRUPT_PIN: usize = 0x3D;

// Command register bits the function implements (pci_regs.h): memory space,
// bus master, parity, SERR, INTx disable. No I/O BAR, so I/O space stays 0.
const PCI_COMMAND_WRITABLE: u16 = 0x0002 | PCI_COMMAND_MASTER | 0x0040 | 0x0100 | 0x0400;
/// Command register bit 2, "Bus Master Enable" (PCI Local Bus Spec / PCIe
/// Base Spec, Command register; `PCI_COMMAND_MASTER` in pci_regs.h): while
/// clear the function issues no memory requests. Reset value 0.
const PCI_COMMAND_MASTER: u16 = 0x0004;
/// Status: a capability list is present (`PCI_STATUS_CAP_LIST`).
pub const PCI_STATUS_CAP_LIST: u16 = 0x10;

// BAR low-dword type bits (pci_regs.h).
const PCI_BASE_ADDRESS_MEM_TYPE_64: u32 = 0x04;
const PCI_BASE_ADDRESS_MEM_PREFETCH: u32 = 0x08;

/// Capability IDs (pci_regs.h).
pub const PCI_CAP_ID_EXP: u8 = 0x10;
/// MSI capability ID (pci_regs.h).
pub const PCI_CAP_ID_MSI: u8 = 0x05;

/// Offset of the PCI Express capability (`[MODEL]`, fixed by the project brief).
pub const PCIE_CAP: usize = 0x40;
/// Offset of the MSI capability (`[MODEL]`: first free dword-aligned slot
/// after the 0x34-byte v2 endpoint PCIe capability, `PCI_CAP_EXP_ENDPOINT_SIZEOF_V2`).
pub const MSI_CAP: usize = 0x80;

// PCI Express capability registers, relative to PCIE_CAP (pci_regs.h).
const PCI_EXP_FLAGS: usize = 0x02;
const PCI_EXP_DEVCAP: usize = 0x04;
const PCI_EXP_DEVCTL: usize = 0x08;
const PCI_EXP_LNKCAP: usize = 0x0C;
const PCI_EXP_LNKCTL: usize = 0x10;
const PCI_EXP_LNKSTA: usize = 0x12;
const PCI_EXP_DEVCTL2: usize = 0x28;
const PCI_EXP_LNKCAP2: usize = 0x2C;
const PCI_EXP_LNKCTL2: usize = 0x30;
/// Device Control "Initiate Function Level Reset" (`PCI_EXP_DEVCTL_BCR_FLR`).
const PCI_EXP_DEVCTL_BCR_FLR: u16 = 0x8000;
/// Device Capabilities "FLR capable" (`PCI_EXP_DEVCAP_FLR`).
const PCI_EXP_DEVCAP_FLR: u32 = 0x1000_0000;

// MSI capability registers, relative to MSI_CAP (pci_regs.h).
const PCI_MSI_FLAGS: usize = 0x02;
const PCI_MSI_ADDRESS_LO: usize = 0x04;
const PCI_MSI_ADDRESS_HI: usize = 0x08;
const PCI_MSI_DATA_64: usize = 0x0C;
/// Message Control: 64-bit address capable (`PCI_MSI_FLAGS_64BIT`).
pub const PCI_MSI_FLAGS_64BIT: u16 = 0x0080;
/// Message Control: enable (`PCI_MSI_FLAGS_ENABLE`).
const PCI_MSI_FLAGS_ENABLE: u16 = 0x0001;
/// Message Control: multiple message enable (`PCI_MSI_FLAGS_QSIZE`).
const PCI_MSI_FLAGS_QSIZE: u16 = 0x0070;

/// Identity and BAR sizes the config space is built from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConfigParams {
    /// PCI vendor ID.
    pub vendor_id: u16,
    /// PCI device ID.
    pub device_id: u16,
    /// Revision ID.
    pub revision: u8,
    /// 24-bit class code (base, sub, prog-if).
    pub class_code: u32,
    /// Subsystem vendor ID.
    pub subsystem_vendor_id: u16,
    /// Subsystem ID.
    pub subsystem_id: u16,
    /// BAR0 (GTTMMADR) size in bytes, a power of two >= 16.
    pub bar0_size: u64,
    /// BAR2 (LMEMBAR) size in bytes, a power of two >= 16.
    pub bar2_size: u64,
    /// Whether the MSI capability is in the list (`--no-msi` drops it, so
    /// the guest falls back to INTx).
    pub msi: bool,
    /// The SR-IOV capability of a PF (ATS-M), or none.
    pub sriov: Option<SriovParams>,
}

/// A config access outside the 4 KiB space.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("config access at {offset:#x}+{len} is outside the {CONFIG_SIZE}-byte space")]
pub struct OutOfRange {
    /// First byte of the access.
    pub offset: u64,
    /// Length of the access.
    pub len: usize,
}

/// Side effect of a config write that the device must act on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigEffect {
    /// Nothing beyond the stored bits.
    None,
    /// The guest set Device Control "Initiate FLR": reset the function.
    FunctionLevelReset,
}

/// The function's configuration space.
///
/// # Invariants
///
/// `bytes`, `wmask` and `reset` are each exactly [`CONFIG_SIZE`] long.
pub struct ConfigSpace {
    bytes: Box<[u8]>,
    wmask: Box<[u8]>,
    reset: Box<[u8]>,
    /// SR-IOV state of a PF: the window's selector and the VFs.
    sriov: Option<sriov::Sriov>,
    /// Rules broken by writes since the last [`ConfigSpace::take_violations`].
    violations: Vec<Violation>,
}

impl ConfigSpace {
    /// Builds the reset-state config space.
    pub fn new(p: &ConfigParams) -> Self {
        let mut b = Builder::new();
        b.header(p);
        b.bars(p);
        b.pcie_capability();
        if p.msi {
            b.msi_capability();
        }
        if let Some(s) = &p.sriov {
            b.sriov_capability(s);
        }
        // INVARIANT: Builder allocates CONFIG_SIZE bytes for both arrays.
        Self {
            reset: b.bytes.clone().into_boxed_slice(),
            bytes: b.bytes.into_boxed_slice(),
            wmask: b.wmask.into_boxed_slice(),
            sriov: p.sriov.map(|s| sriov::Sriov::new(s, p)),
            violations: Vec::new(),
        }
    }

    /// Reads `data.len()` bytes at `offset`. Reads have no side effects.
    ///
    /// # Errors
    ///
    /// [`OutOfRange`] if the access does not fit in the space.
    pub fn read(&self, offset: u64, data: &mut [u8]) -> Result<(), OutOfRange> {
        let start = Self::check(offset, data.len())?;
        data.copy_from_slice(&self.bytes[start..start + data.len()]);
        self.window_read(start, data);
        Ok(())
    }

    /// Writes `data` at `offset`; only writable bits change.
    ///
    /// # Errors
    ///
    /// [`OutOfRange`] if the access does not fit in the space.
    pub fn write(&mut self, offset: u64, data: &[u8]) -> Result<ConfigEffect, OutOfRange> {
        let start = Self::check(offset, data.len())?;
        if self.window_write(start, data) {
            // Wholly in the window: nothing of the PF's own changes.
            return Ok(ConfigEffect::None);
        }
        let effect = self.effect_of(start, data);
        let keep = self.sriov_filter(start, data);
        for (i, &v) in data.iter().enumerate() {
            let at = start + i;
            let m = if keep[i] { self.wmask[at] } else { 0 };
            self.bytes[at] = (self.bytes[at] & !m) | (v & m);
        }
        self.sriov_after_write(start, data.len());
        Ok(effect)
    }

    /// Returns the extended configuration space (0x100 on: the SR-IOV
    /// capability) to its reset value, and the VFs with it; the standard
    /// header stays. For a test window (`Device::begin_window`): QEMU hides
    /// the extended capabilities from the guest's PCI core, which reaches
    /// them only through the test-only shim, and the harness unloads that
    /// shim before a window opens, so no kernel state refers to them.
    pub fn reset_extended(&mut self) {
        self.bytes[EXTENDED_START..].copy_from_slice(&self.reset[EXTENDED_START..]);
        if let Some(s) = self.sriov.as_mut() {
            s.reset();
        }
    }

    /// Returns every byte to its reset value (what an FLR does); a PF's VFs
    /// go with VF Enable.
    pub fn reset(&mut self) {
        self.bytes.copy_from_slice(&self.reset);
        if let Some(s) = self.sriov.as_mut() {
            s.reset();
        }
    }

    /// The SR-IOV rules broken by writes since the last call.
    pub fn take_violations(&mut self) -> Vec<Violation> {
        std::mem::take(&mut self.violations)
    }

    /// Little-endian 16-bit read at `offset`; 0 outside the space.
    pub fn u16_at(&self, offset: usize) -> u16 {
        let mut b = [0u8; 2];
        let _ = self.read(offset as u64, &mut b);
        u16::from_le_bytes(b)
    }

    /// Little-endian 32-bit read at `offset`; 0 outside the space.
    pub fn u32_at(&self, offset: usize) -> u32 {
        let mut b = [0u8; 4];
        let _ = self.read(offset as u64, &mut b);
        u32::from_le_bytes(b)
    }

    /// Whether the Command register's Bus Master Enable (bit 2) is set.
    pub fn bus_master(&self) -> bool {
        self.u16_at(PCI_COMMAND) & PCI_COMMAND_MASTER != 0
    }

    /// Whether the guest has enabled MSI in the capability.
    pub fn msi_enabled(&self) -> bool {
        self.bytes[MSI_CAP] == PCI_CAP_ID_MSI
            && self.u16_at(MSI_CAP + PCI_MSI_FLAGS) & PCI_MSI_FLAGS_ENABLE != 0
    }

    fn check(offset: u64, len: usize) -> Result<usize, OutOfRange> {
        let err = OutOfRange { offset, len };
        let start = usize::try_from(offset).map_err(|_| err)?;
        match start.checked_add(len) {
            Some(end) if end <= CONFIG_SIZE => Ok(start),
            _ => Err(err),
        }
    }

    /// Detects writes with side effects before the bytes are stored.
    fn effect_of(&self, start: usize, data: &[u8]) -> ConfigEffect {
        // The FLR trigger is bit 15 of Device Control, i.e. bit 7 of its high byte.
        let flr_byte = PCIE_CAP + PCI_EXP_DEVCTL + 1;
        let hit = flr_byte
            .checked_sub(start)
            .and_then(|i| data.get(i))
            .is_some_and(|&b| (u16::from(b) << 8) & PCI_EXP_DEVCTL_BCR_FLR != 0);
        if hit {
            ConfigEffect::FunctionLevelReset
        } else {
            ConfigEffect::None
        }
    }
}

/// Assembles reset values and write masks.
struct Builder {
    bytes: Vec<u8>,
    wmask: Vec<u8>,
    /// Offset of the previous capability's "next" byte, to chain the list.
    last_next: usize,
}

impl Builder {
    fn new() -> Self {
        Self {
            bytes: vec![0; CONFIG_SIZE],
            wmask: vec![0; CONFIG_SIZE],
            last_next: PCI_CAPABILITY_LIST,
        }
    }

    fn put(&mut self, off: usize, le: &[u8]) {
        self.bytes[off..off + le.len()].copy_from_slice(le);
    }

    fn mask(&mut self, off: usize, le: &[u8]) {
        self.wmask[off..off + le.len()].copy_from_slice(le);
    }

    fn u16(&mut self, off: usize, v: u16, writable: u16) {
        self.put(off, &v.to_le_bytes());
        self.mask(off, &writable.to_le_bytes());
    }

    fn u32(&mut self, off: usize, v: u32, writable: u32) {
        self.put(off, &v.to_le_bytes());
        self.mask(off, &writable.to_le_bytes());
    }

    fn header(&mut self, p: &ConfigParams) {
        self.u16(PCI_VENDOR_ID, p.vendor_id, 0);
        self.u16(PCI_DEVICE_ID, p.device_id, 0);
        self.u16(PCI_COMMAND, 0, PCI_COMMAND_WRITABLE);
        self.u16(PCI_STATUS, PCI_STATUS_CAP_LIST, 0);
        self.bytes[PCI_REVISION_ID] = p.revision;
        self.put(PCI_CLASS_PROG, &p.class_code.to_le_bytes()[..3]);
        // Cache line size is a plain read/write byte; latency timer, header
        // type (0, single function) and BIST stay 0.
        self.wmask[PCI_CACHE_LINE_SIZE] = 0xFF;
        self.u16(PCI_SUBSYSTEM_VENDOR_ID, p.subsystem_vendor_id, 0);
        self.u16(PCI_SUBSYSTEM_ID, p.subsystem_id, 0);
        // Interrupt line is scratch for software; pin INTA (`[MODEL]`, as on
        // Intel's other PCI GPUs); the driver uses MSI.
        self.wmask[PCI_INTERRUPT_LINE] = 0xFF;
        self.bytes[PCI_INTERRUPT_PIN] = 1;
    }

    /// BAR0 = GTTMMADR, 64-bit non-prefetchable; BAR2 = LMEMBAR, 64-bit
    /// prefetchable (`drivers/gpu/drm/xe/regs/xe_bars.h`, anchor-xe.md §1.4-1.5).
    fn bars(&mut self, p: &ConfigParams) {
        self.bar64(0, p.bar0_size, false);
        self.bar64(2, p.bar2_size, true);
    }

    fn bar64(&mut self, index: usize, size: u64, prefetch: bool) {
        self.bar64_at(PCI_BASE_ADDRESS_0 + index * 4, size, prefetch);
    }

    /// A 64-bit memory BAR of `size` bytes at config offset `off`.
    fn bar64_at(&mut self, off: usize, size: u64, prefetch: bool) {
        let flags = PCI_BASE_ADDRESS_MEM_TYPE_64
            | if prefetch {
                PCI_BASE_ADDRESS_MEM_PREFETCH
            } else {
                0
            };
        // Address bits below the size are read-only zero; the low nibble is type.
        let addr_mask = !(size.max(16) - 1);
        // CAST: splitting a 64-bit mask into its dwords.
        let (lo, hi) = (addr_mask as u32 & !0xF, (addr_mask >> 32) as u32);
        self.u32(off, flags, lo);
        self.u32(off + 4, 0, hi);
    }

    /// Links a new capability at `off` into the list and writes its header.
    fn capability(&mut self, off: usize, id: u8) {
        // CAST: capability offsets are below 0x100 by construction.
        self.bytes[self.last_next] = off as u8;
        self.bytes[off] = id;
        self.bytes[off + 1] = 0;
        self.last_next = off + 1;
    }

    /// PCI Express capability, version 2, endpoint (`[MODEL]` link/payload
    /// values: PCIe 4.0 x16, 256-byte max payload; FLR capable so a guest can
    /// reset the function through Device Control).
    fn pcie_capability(&mut self) {
        let c = PCIE_CAP;
        self.capability(c, PCI_CAP_ID_EXP);
        // Version 2, device/port type 0 (PCI Express endpoint).
        self.u16(c + PCI_EXP_FLAGS, 0x0002, 0);
        // Max payload 256 B (1), role-based error reporting, FLR capable.
        self.u32(c + PCI_EXP_DEVCAP, 0x1 | 0x8000 | PCI_EXP_DEVCAP_FLR, 0);
        // Device Control: everything but the FLR trigger (bit 15, reads 0) is
        // read/write; reset value 0x2810 = relaxed ordering, 512 B read
        // request, no snoop, as the PCIe spec's defaults.
        self.u16(c + PCI_EXP_DEVCTL, 0x2810, 0x7FFF);
        // Link: max 16 GT/s (4), width x16.
        self.u32(c + PCI_EXP_LNKCAP, 0x4 | (16 << 4), 0);
        self.u16(c + PCI_EXP_LNKCTL, 0, 0x0FFB);
        self.u16(c + PCI_EXP_LNKSTA, 0x4 | (16 << 4), 0);
        self.u16(c + PCI_EXP_DEVCTL2, 0, 0xFFFF);
        // Supported speeds vector: 2.5, 5, 8, 16 GT/s.
        self.u32(c + PCI_EXP_LNKCAP2, 0x2 | 0x4 | 0x8 | 0x10, 0);
        self.u16(c + PCI_EXP_LNKCTL2, 0x4, 0xFFFF);
    }

    /// MSI capability: one vector, 64-bit addresses, no per-vector masking
    /// (ENVIRONMENT.md: QEMU delivers MSI through vfio-user with this shape).
    fn msi_capability(&mut self) {
        let c = MSI_CAP;
        self.capability(c, PCI_CAP_ID_MSI);
        // Multiple Message Capable = 0 (one vector); enable and MME writable.
        self.u16(
            c + PCI_MSI_FLAGS,
            PCI_MSI_FLAGS_64BIT,
            PCI_MSI_FLAGS_ENABLE | PCI_MSI_FLAGS_QSIZE,
        );
        // Address is dword aligned: bits 1:0 read-only zero.
        self.u32(c + PCI_MSI_ADDRESS_LO, 0, 0xFFFF_FFFC);
        self.u32(c + PCI_MSI_ADDRESS_HI, 0, 0xFFFF_FFFF);
        self.u16(c + PCI_MSI_DATA_64, 0, 0xFFFF);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn params() -> ConfigParams {
        ConfigParams {
            vendor_id: 0x8086,
            device_id: 0x56C0,
            revision: 0x08,
            class_code: 0x038000,
            subsystem_vendor_id: 0x8086,
            subsystem_id: 0x4905,
            bar0_size: 16 << 20,
            bar2_size: 256 << 20,
            msi: true,
            sriov: None,
        }
    }

    fn write32(c: &mut ConfigSpace, off: usize, v: u32) -> ConfigEffect {
        c.write(off as u64, &v.to_le_bytes()).expect("in range")
    }

    #[test]
    fn identity_fields() {
        let c = ConfigSpace::new(&params());
        assert_eq!(c.u32_at(0), 0x56C0_8086);
        assert_eq!(c.u32_at(PCI_REVISION_ID), 0x0380_0008);
        assert_eq!(c.u32_at(PCI_SUBSYSTEM_VENDOR_ID), 0x4905_8086);
        assert_eq!(
            c.u16_at(PCI_STATUS) & PCI_STATUS_CAP_LIST,
            PCI_STATUS_CAP_LIST
        );
        assert_eq!(c.bytes[PCI_INTERRUPT_PIN], 1);
        // Header type 0, single function.
        assert_eq!(c.bytes[0x0E], 0);
    }

    #[test]
    fn read_only_fields_ignore_writes() {
        let mut c = ConfigSpace::new(&params());
        write32(&mut c, 0, 0xFFFF_FFFF);
        write32(&mut c, PCI_REVISION_ID, 0xFFFF_FFFF);
        write32(&mut c, PCI_SUBSYSTEM_VENDOR_ID, 0);
        c.write(PCI_STATUS as u64, &[0xFF, 0xFF]).expect("in range");
        assert_eq!(c.u32_at(0), 0x56C0_8086);
        assert_eq!(c.u32_at(PCI_REVISION_ID), 0x0380_0008);
        assert_eq!(c.u32_at(PCI_SUBSYSTEM_VENDOR_ID), 0x4905_8086);
        assert_eq!(c.u16_at(PCI_STATUS), PCI_STATUS_CAP_LIST);
    }

    #[test]
    fn command_register_keeps_only_implemented_bits() {
        let mut c = ConfigSpace::new(&params());
        c.write(PCI_COMMAND as u64, &[0xFF, 0xFF])
            .expect("in range");
        assert_eq!(c.u16_at(PCI_COMMAND), 0x0546);
        c.write(PCI_COMMAND as u64, &[0x06, 0x00])
            .expect("in range");
        assert_eq!(c.u16_at(PCI_COMMAND), 0x0006);
    }

    #[test]
    fn bus_master_follows_command_bit_2_and_resets_to_0() {
        let mut c = ConfigSpace::new(&params());
        assert!(!c.bus_master(), "reset value");
        c.write(PCI_COMMAND as u64, &[0x02, 0x00])
            .expect("in range");
        assert!(!c.bus_master(), "memory space alone");
        c.write(PCI_COMMAND as u64, &[0x04]).expect("in range");
        assert!(c.bus_master());
        // A dword write of command + status sets it too.
        c.write(PCI_COMMAND as u64, &[0x00, 0x00, 0xFF, 0xFF])
            .expect("in range");
        assert!(!c.bus_master());
        write32(&mut c, PCI_COMMAND, 0x0000_0006);
        assert!(c.bus_master());
        c.reset();
        assert!(!c.bus_master());
    }

    #[test]
    fn bar_sizing_returns_size_masks() {
        let mut c = ConfigSpace::new(&params());
        assert_eq!(c.u32_at(0x10), 0x4, "BAR0: 64-bit, non-prefetchable");
        assert_eq!(c.u32_at(0x18), 0xC, "BAR2: 64-bit, prefetchable");
        for off in (0x10..0x28).step_by(4) {
            write32(&mut c, off, 0xFFFF_FFFF);
        }
        assert_eq!(c.u32_at(0x10), 0xFF00_0004);
        assert_eq!(c.u32_at(0x14), 0xFFFF_FFFF);
        assert_eq!(c.u32_at(0x18), 0xF000_000C);
        assert_eq!(c.u32_at(0x1C), 0xFFFF_FFFF);
        assert_eq!((c.u32_at(0x20), c.u32_at(0x24)), (0, 0), "BAR4/5 absent");
        // Decode the sizes the way the PCI core does.
        let size = |lo: u32, hi: u32| {
            let mask = (u64::from(hi) << 32) | u64::from(lo & !0xF);
            (!mask).wrapping_add(1)
        };
        assert_eq!(size(c.u32_at(0x10), c.u32_at(0x14)), 16 << 20);
        assert_eq!(size(c.u32_at(0x18), c.u32_at(0x1C)), 256 << 20);
        // Programming an address keeps only the bits above the size.
        write32(&mut c, 0x10, 0xFE12_3450);
        assert_eq!(c.u32_at(0x10), 0xFE00_0004);
        // No expansion ROM.
        write32(&mut c, 0x30, 0xFFFF_FFFF);
        assert_eq!(c.u32_at(0x30), 0);
    }

    #[test]
    fn small_bar0_sizes() {
        let mut p = params();
        p.bar0_size = 4 << 20;
        let mut c = ConfigSpace::new(&p);
        write32(&mut c, 0x10, 0xFFFF_FFFF);
        assert_eq!(c.u32_at(0x10), 0xFFC0_0004);
    }

    #[test]
    fn capability_chain() {
        let c = ConfigSpace::new(&params());
        let mut found = Vec::new();
        let mut at = usize::from(c.bytes[PCI_CAPABILITY_LIST]);
        while at != 0 {
            assert_eq!(at % 4, 0, "capabilities are dword aligned");
            assert!(found.len() < 48, "loop in capability list");
            found.push((at, c.bytes[at]));
            at = usize::from(c.bytes[at + 1]);
        }
        assert_eq!(found, vec![(0x40, PCI_CAP_ID_EXP), (0x80, PCI_CAP_ID_MSI)]);
        // PCIe: version 2 endpoint, FLR capable.
        assert_eq!(c.u16_at(0x42), 0x0002);
        assert_ne!(c.u32_at(0x44) & PCI_EXP_DEVCAP_FLR, 0);
        // MSI: 64-bit, one vector, no masking, disabled.
        let flags = c.u16_at(0x82);
        assert_eq!(flags, PCI_MSI_FLAGS_64BIT);
        assert!(!c.msi_enabled());
        // No extended capabilities.
        assert_eq!(c.u32_at(0x100), 0);
    }

    /// `--no-msi`: the PCIe capability ends the list, nothing sits at
    /// 0x80, and writes there change nothing (the guest falls back to INTx
    /// on pin A).
    #[test]
    fn without_msi_the_list_ends_at_pcie() {
        let mut c = ConfigSpace::new(&ConfigParams {
            msi: false,
            ..params()
        });
        assert_eq!(c.bytes[0x34], 0x40);
        assert_eq!(c.bytes[0x41], 0, "PCIe is the last capability");
        assert_eq!(c.u32_at(0x80), 0);
        write32(&mut c, 0x80, 0x0001_0000);
        assert_eq!(c.u32_at(0x80), 0);
        assert!(!c.msi_enabled());
        assert_eq!(c.bytes[0x3D], 1, "interrupt pin INTA");
    }

    #[test]
    fn msi_fields_are_writable_within_limits() {
        let mut c = ConfigSpace::new(&params());
        c.write(0x82, &[0xFF, 0xFF]).expect("in range");
        assert_eq!(c.u16_at(0x82), PCI_MSI_FLAGS_64BIT | 0x71);
        assert!(c.msi_enabled());
        write32(&mut c, 0x84, 0xFEE0_1003);
        write32(&mut c, 0x88, 0x1);
        c.write(0x8C, &[0x41, 0x00]).expect("in range");
        assert_eq!(c.u32_at(0x84), 0xFEE0_1000);
        assert_eq!(c.u32_at(0x88), 1);
        assert_eq!(c.u16_at(0x8C), 0x41);
    }

    #[test]
    fn flr_write_is_reported_and_reset_restores_defaults() {
        let mut c = ConfigSpace::new(&params());
        let pristine = c.bytes.clone();
        c.write(PCI_COMMAND as u64, &[0x06, 0x00])
            .expect("in range");
        write32(&mut c, 0x10, 0xFFFF_FFFF);
        // A write of Device Control without bit 15 has no effect ...
        assert_eq!(
            c.write(0x48, &0x2810u16.to_le_bytes()).expect("in range"),
            ConfigEffect::None
        );
        // ... with it, whether written as a word or just the high byte, FLR.
        assert_eq!(
            c.write(0x48, &0xA810u16.to_le_bytes()).expect("in range"),
            ConfigEffect::FunctionLevelReset
        );
        assert_eq!(
            c.write(0x49, &[0x80]).expect("in range"),
            ConfigEffect::FunctionLevelReset
        );
        assert_eq!(
            write32(&mut c, 0x48, 0x0000_8000),
            ConfigEffect::FunctionLevelReset
        );
        // The trigger bit itself always reads 0.
        assert_eq!(c.u16_at(0x48) & PCI_EXP_DEVCTL_BCR_FLR, 0);
        c.reset();
        assert_eq!(c.bytes, pristine);
    }

    #[test]
    fn whole_space_reads_and_range_checks() {
        let c = ConfigSpace::new(&params());
        let mut all = vec![0u8; CONFIG_SIZE];
        c.read(0, &mut all).expect("whole space");
        assert_eq!(&all[..2], &[0x86, 0x80]);
        let mut one = [0u8; 1];
        assert!(c.read(4095, &mut one).is_ok());
        assert_eq!(
            c.read(4095, &mut [0u8; 2]),
            Err(OutOfRange {
                offset: 4095,
                len: 2
            })
        );
        assert!(c.read(u64::MAX, &mut one).is_err());
    }
}
