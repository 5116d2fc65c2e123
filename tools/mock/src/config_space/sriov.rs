//! SR-IOV on the ATS-M physical function: the SR-IOV extended capability,
//! the virtual functions' configuration spaces, and a test-only window in the
//! PF's config space through which the guest reads both.
//!
//! Capability layout: PCIe Base Specification, "Single Root I/O
//! Virtualization and Sharing", section "SR-IOV Extended Capability"; offsets
//! as `PCI_SRIOV_*` in `include/uapi/linux/pci_regs.h`. Values the PRM does
//! not give are marked `[MODEL]`.
//!
//! Why a window: QEMU's vfio-pci (and so vfio-user-pci) drops the SR-IOV
//! capability from the guest's chain (the dword at 0x100 reads 0, the body
//! passes through; `../shared/ENVIRONMENT.md`), and it forwards config cycles
//! only for the PF's own routing ID, so nothing a VF routing ID is asked for
//! reaches the mock. The guest shim (`tools/guest/sriov-shim/`) wraps the root
//! bus's config accessors and turns a VF's config cycle into two accesses to
//! this window in the PF's config space. The window is **not hardware**: it
//! sits at [`WINDOW`], outside every capability, and exists only so that the
//! VFs' config spaces can live in the mock, where the device model keeps VF
//! Enable and NumVFs (Documentation/sriov.rst, "Guest shim").

use super::{Builder, ConfigParams, ConfigSpace, CONFIG_SIZE};

/// Offset of the SR-IOV extended capability: the first extended capability
/// (`[MODEL]`; extended capabilities start at 0x100, PCIe Base Spec
/// "PCI Express Extended Capabilities").
pub const SRIOV_CAP: usize = 0x100;
/// Extended capability ID of SR-IOV (`PCI_EXT_CAP_ID_SRIOV`).
pub const PCI_EXT_CAP_ID_SRIOV: u16 = 0x10;
/// Size of the capability (`PCI_EXT_CAP_SRIOV_SIZEOF`).
const SRIOV_SIZEOF: usize = 0x40;
// The window must not overlap the capability.
const _: () = assert!(SRIOV_CAP + SRIOV_SIZEOF <= WINDOW);

// Registers relative to SRIOV_CAP (pci_regs.h).
const PCI_SRIOV_CAP: usize = 0x04;
const PCI_SRIOV_CTRL: usize = 0x08;
const PCI_SRIOV_INITIAL_VF: usize = 0x0C;
const PCI_SRIOV_TOTAL_VF: usize = 0x0E;
const PCI_SRIOV_NUM_VF: usize = 0x10;
const PCI_SRIOV_VF_OFFSET: usize = 0x14;
const PCI_SRIOV_VF_STRIDE: usize = 0x16;
const PCI_SRIOV_VF_DID: usize = 0x1A;
const PCI_SRIOV_SUP_PGSIZE: usize = 0x1C;
const PCI_SRIOV_SYS_PGSIZE: usize = 0x20;
const PCI_SRIOV_BAR: usize = 0x24;

/// SR-IOV Control: VF Enable (`PCI_SRIOV_CTRL_VFE`).
pub const PCI_SRIOV_CTRL_VFE: u16 = 0x0001;
/// SR-IOV Control: VF Memory Space Enable (`PCI_SRIOV_CTRL_MSE`).
pub const PCI_SRIOV_CTRL_MSE: u16 = 0x0008;
/// SR-IOV Control: ARI Capable Hierarchy (`PCI_SRIOV_CTRL_ARI`).
const PCI_SRIOV_CTRL_ARI: u16 = 0x0010;

/// Supported Page Sizes: 4 KB, 8 KB, 64 KB, 256 KB, 1 MB and 4 MB, the sizes
/// the SR-IOV chapter requires every PF to support (bit n = 2^(n+12) bytes).
const SUPPORTED_PAGE_SIZES: u32 = 0x0000_0553;

/// The most VFs ATS-M can have: 63. Seed 000 line 382 ("63 VF + 1 PF = 64
/// Entries" in the LMTT directory, indexed by function number) and line 1042
/// ("For SRIOV 63, we have MMIO BAR per VF"); upstream `xe_lmtt_2l.c` sizes
/// the directory the same way. What a shipping Flex card reports as TotalVFs
/// was not found in the sources at hand: the mock reports the architectural
/// maximum, and InitialVFs equals it, as the SR-IOV chapter requires of a PF
/// without VF Migration.
pub const ATS_M_TOTAL_VFS: u16 = 63;

/// First VF Offset and VF Stride (`[MODEL]`: no source gives ATS-M's; 1 and 1
/// put VF n at the PF's routing ID + n, as on Intel's integrated GPUs).
pub const VF_OFFSET: u16 = 1;
/// See [`VF_OFFSET`].
pub const VF_STRIDE: u16 = 1;

/// VF BAR0, the VF's GTTMMADR: 16 MiB per VF, "VF hardware allocates the MMIO
/// register space and the Global GTT in the same PCI BAR (GTTMMADR), which is
/// 16MB per VF" (seed 000 line 139).
pub const VF_BAR0_SIZE: u64 = 16 << 20;
/// VF BAR2, the VF LMEM BAR (upstream `VF_LMEM_BAR = 9`, i.e. IOV resource
/// 7 + 2, `xe_bars.h`). The seed says LMEM BARs are configurable (seed 000
/// lines 443, 451) and gives no default; upstream resizes it through the VF
/// Resizable BAR capability before enabling VFs. `[MODEL]`: 64 MiB per VF, so
/// that 63 of them (4032 MiB) fit the guest's 64-bit window beside the PF's.
pub const VF_BAR2_SIZE: u64 = 64 << 20;

/// The test-only config window (not hardware; see the module docs):
/// `WINDOW + WINDOW_SIGNATURE` reads [`SIGNATURE`], `WINDOW + WINDOW_SELECT`
/// selects a function and a dword, `WINDOW + WINDOW_DATA` reads and writes it.
pub const WINDOW: usize = 0xF00;
/// Signature register of the window, relative to [`WINDOW`].
pub const WINDOW_SIGNATURE: usize = 0x0;
/// Selector register, relative to [`WINDOW`]: bits 7:0 function (0 = the PF's
/// own config space as the mock holds it, n = VF n, 1-based), bits 27:16 the
/// byte offset of a dword (dword aligned, below 4096).
pub const WINDOW_SELECT: usize = 0x4;
/// Data register, relative to [`WINDOW`]: the selected dword.
pub const WINDOW_DATA: usize = 0x8;
/// Bytes the window occupies.
const WINDOW_LEN: usize = 0xC;
/// "XVCW" (xehpg VF config window), little-endian.
pub const SIGNATURE: u32 = u32::from_le_bytes(*b"XVCW");

/// What the capability is built from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SriovParams {
    /// TotalVFs and InitialVFs.
    pub total_vfs: u16,
    /// VF Device ID.
    pub vf_device_id: u16,
    /// VF BAR0 size, a power of two.
    pub vf_bar0_size: u64,
    /// VF BAR2 size, a power of two.
    pub vf_bar2_size: u64,
}

impl SriovParams {
    /// ATS-M's capability for a PF with device ID `device_id`. The VF Device
    /// ID is the PF's: upstream xe binds VFs through the same ID table
    /// (`include/drm/intel/pciids.h` has no VF IDs) and tells a VF from a PF
    /// by `VF_CAP_REG` (`xe_sriov.c`), which the mock's `--vf` models.
    pub fn ats_m(device_id: u16) -> Self {
        Self {
            total_vfs: ATS_M_TOTAL_VFS,
            vf_device_id: device_id,
            vf_bar0_size: VF_BAR0_SIZE,
            vf_bar2_size: VF_BAR2_SIZE,
        }
    }
}

/// A rule of the SR-IOV chapter the guest broke with a config write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// Violation kind, as the summary counts it.
    pub kind: &'static str,
    /// What was written.
    pub detail: String,
}

/// The SR-IOV state beside the PF's bytes: the selector of the window and the
/// VFs that exist while VF Enable is set.
pub(super) struct Sriov {
    params: SriovParams,
    select: u32,
    vfs: Vec<ConfigSpace>,
    pf_params: ConfigParams,
}

impl Sriov {
    pub(super) fn new(params: SriovParams, pf_params: &ConfigParams) -> Self {
        Self {
            params,
            select: 0,
            vfs: Vec::new(),
            pf_params: *pf_params,
        }
    }

    /// Back to reset: no VFs, selector 0 (with the PF's bytes, a PF FLR
    /// clears VF Enable: seed 000 line 296).
    pub(super) fn reset(&mut self) {
        self.select = 0;
        self.vfs.clear();
    }

    /// How many VFs exist now.
    pub(super) fn num_vfs(&self) -> usize {
        self.vfs.len()
    }
}

impl Builder {
    /// The SR-IOV extended capability at [`SRIOV_CAP`], last in the chain.
    pub(super) fn sriov_capability(&mut self, s: &SriovParams) {
        let c = SRIOV_CAP;
        // Header: ID, version 1, next 0 (`PCI_EXT_CAP(id, ver, next)`).
        self.u32(c, u32::from(PCI_EXT_CAP_ID_SRIOV) | (1 << 16), 0);
        // Capabilities: no VF Migration, no ARI Capable Hierarchy Preserved.
        self.u32(c + PCI_SRIOV_CAP, 0, 0);
        self.u16(
            c + PCI_SRIOV_CTRL,
            0,
            PCI_SRIOV_CTRL_VFE | PCI_SRIOV_CTRL_MSE | PCI_SRIOV_CTRL_ARI,
        );
        self.u16(c + PCI_SRIOV_INITIAL_VF, s.total_vfs, 0);
        self.u16(c + PCI_SRIOV_TOTAL_VF, s.total_vfs, 0);
        self.u16(c + PCI_SRIOV_NUM_VF, 0, 0xFFFF);
        self.u16(c + PCI_SRIOV_VF_OFFSET, VF_OFFSET, 0);
        self.u16(c + PCI_SRIOV_VF_STRIDE, VF_STRIDE, 0);
        self.u16(c + PCI_SRIOV_VF_DID, s.vf_device_id, 0);
        self.u32(c + PCI_SRIOV_SUP_PGSIZE, SUPPORTED_PAGE_SIZES, 0);
        // System Page Size resets to 4 KB (bit 0).
        self.u32(c + PCI_SRIOV_SYS_PGSIZE, 1, 0xFFFF_FFFF);
        // VF BAR0 (GTTMMADR) 64-bit non-prefetchable, VF BAR2 (LMEM) 64-bit
        // prefetchable, like the PF's BAR0 and BAR2.
        self.bar64_at(c + PCI_SRIOV_BAR, s.vf_bar0_size, false);
        self.bar64_at(c + PCI_SRIOV_BAR + 8, s.vf_bar2_size, true);
    }

    /// A VF's type 0 header and PCIe capability (SR-IOV chapter, "PF/VF
    /// Configuration Space"): Vendor and Device ID read FFFFh (software takes
    /// them from the PF), Memory Space Enable is read-only 0 (VF MSE in the
    /// PF governs), the BARs are read-only zero (the PF's VF BARs describe
    /// them), no INTx. Every VF is FLR capable: "The SR-IOV requires that all
    /// VFs support FLR" (seed 000 line 302). `[MODEL]`: no MSI capability yet.
    pub(super) fn vf_header(&mut self, pf: &ConfigParams) {
        self.u16(super::PCI_VENDOR_ID, 0xFFFF, 0);
        self.u16(super::PCI_DEVICE_ID, 0xFFFF, 0);
        // Bus master only.
        self.u16(super::PCI_COMMAND, 0, 0x0004);
        self.u16(super::PCI_STATUS, super::PCI_STATUS_CAP_LIST, 0);
        self.bytes[super::PCI_REVISION_ID] = pf.revision;
        self.put(super::PCI_CLASS_PROG, &pf.class_code.to_le_bytes()[..3]);
        self.u16(super::PCI_SUBSYSTEM_VENDOR_ID, pf.subsystem_vendor_id, 0);
        self.u16(super::PCI_SUBSYSTEM_ID, pf.subsystem_id, 0);
        self.pcie_capability();
    }
}

impl ConfigSpace {
    /// A VF's configuration space, in its reset state.
    fn new_vf(pf: &ConfigParams) -> Self {
        let mut b = Builder::new();
        b.vf_header(pf);
        // INVARIANT: Builder allocates CONFIG_SIZE bytes for both arrays.
        Self {
            reset: b.bytes.clone().into_boxed_slice(),
            bytes: b.bytes.into_boxed_slice(),
            wmask: b.wmask.into_boxed_slice(),
            sriov: None,
            violations: Vec::new(),
        }
    }

    /// SR-IOV Control as the mock holds it.
    pub fn sriov_ctrl(&self) -> Option<u16> {
        self.sriov
            .as_ref()
            .map(|_| self.u16_at(SRIOV_CAP + PCI_SRIOV_CTRL))
    }

    /// How many VFs exist (VF Enable set, NumVFs of them); 0 without SR-IOV.
    pub fn num_vfs(&self) -> usize {
        self.sriov.as_ref().map_or(0, Sriov::num_vfs)
    }

    /// Reads `data.len()` bytes of VF `vf` (1-based) at `offset`: all ones
    /// for a VF that does not exist, as a config read of an absent function.
    pub fn vf_read(&self, vf: usize, offset: u64, data: &mut [u8]) {
        match self.vf(vf) {
            Some(v) if v.read(offset, data).is_ok() => {}
            _ => data.fill(0xFF),
        }
    }

    fn vf(&self, vf: usize) -> Option<&ConfigSpace> {
        let s = self.sriov.as_ref()?;
        s.vfs.get(vf.checked_sub(1)?)
    }

    /// Overlays the window's registers on a read of `start..start + len`.
    pub(super) fn window_read(&self, start: usize, data: &mut [u8]) {
        let Some(s) = &self.sriov else { return };
        let mut regs = [0u8; WINDOW_LEN];
        regs[WINDOW_SIGNATURE..WINDOW_SIGNATURE + 4].copy_from_slice(&SIGNATURE.to_le_bytes());
        regs[WINDOW_SELECT..WINDOW_SELECT + 4].copy_from_slice(&s.select.to_le_bytes());
        let mut dword = [0xFFu8; 4];
        if let Some((func, off)) = decode_select(s.select) {
            if func == 0 {
                dword.copy_from_slice(&self.bytes[off..off + 4]);
            } else {
                // CAST: a config offset below 4096 fits a u64.
                self.vf_read(func, off as u64, &mut dword);
            }
        }
        regs[WINDOW_DATA..WINDOW_DATA + 4].copy_from_slice(&dword);
        for (i, b) in data.iter_mut().enumerate() {
            if let Some(r) = (start + i).checked_sub(WINDOW).and_then(|w| regs.get(w)) {
                *b = *r;
            }
        }
    }

    /// Applies the part of a write that falls in the window; returns whether
    /// all of it did. The window's bytes have write mask 0 in the PF's
    /// array, so the caller may store the rest of a wider write as usual.
    pub(super) fn window_write(&mut self, start: usize, data: &[u8]) -> bool {
        let end = start + data.len();
        if self.sriov.is_none() || end <= WINDOW || start >= WINDOW + WINDOW_LEN {
            return false;
        }
        for (i, &v) in data.iter().enumerate() {
            let Some(w) = (start + i).checked_sub(WINDOW) else {
                continue;
            };
            if (WINDOW_SELECT..WINDOW_SELECT + 4).contains(&w) {
                let shift = 8 * (w - WINDOW_SELECT);
                if let Some(s) = self.sriov.as_mut() {
                    s.select = (s.select & !(0xFF << shift)) | (u32::from(v) << shift);
                }
            } else if (WINDOW_DATA..WINDOW_DATA + 4).contains(&w) {
                self.window_data_write(w - WINDOW_DATA, v);
            }
        }
        let inside = start >= WINDOW && end <= WINDOW + WINDOW_LEN;
        if let Some(s) = &self.sriov {
            if decode_select(s.select).is_none() {
                let detail = format!("selector {:#010x}", s.select);
                self.violations.push(Violation {
                    kind: "config_window_bad_selector",
                    detail,
                });
            }
        }
        inside
    }

    /// One byte written through the window's data register: into VF n's
    /// config space (FLR included); the PF's own bytes are read-only here
    /// (the guest writes those through its own config cycles).
    fn window_data_write(&mut self, byte: usize, v: u8) {
        let Some(s) = self.sriov.as_mut() else { return };
        let Some((func, off)) = decode_select(s.select) else {
            return;
        };
        let Some(vf) = func.checked_sub(1).and_then(|i| s.vfs.get_mut(i)) else {
            return;
        };
        // CAST: a config offset below 4096 fits a u64.
        if let Ok(super::ConfigEffect::FunctionLevelReset) = vf.write((off + byte) as u64, &[v]) {
            // A VF FLR clears the VF's own state only; its existence and the
            // PF's VF BARs stay (seed 000 line 302).
            vf.reset();
        }
    }

    /// SR-IOV rules for the bytes of a write before they are stored: drops a
    /// NumVFs change while VF Enable is set.
    pub(super) fn sriov_filter(&mut self, start: usize, data: &[u8]) -> Vec<bool> {
        let mut keep = vec![true; data.len()];
        if self.sriov.is_none() {
            return keep;
        }
        let vfe = self.u16_at(SRIOV_CAP + PCI_SRIOV_CTRL) & PCI_SRIOV_CTRL_VFE != 0;
        let num = SRIOV_CAP + PCI_SRIOV_NUM_VF;
        let mut changed = false;
        for (i, &v) in data.iter().enumerate() {
            let at = start + i;
            if vfe && (num..num + 2).contains(&at) {
                keep[i] = false;
                changed |= self.bytes[at] != v;
            }
        }
        if changed {
            // "NumVFs may only be written while VF Enable is Clear" (SR-IOV
            // chapter, NumVFs): the write is dropped.
            let detail = format!("NumVFs write at {start:#x} while VF Enable is set");
            self.violations.push(Violation {
                kind: "sriov_numvfs_while_enabled",
                detail,
            });
        }
        keep
    }

    /// SR-IOV rules after a write was stored: NumVFs within TotalVFs, a
    /// System Page Size of one supported size, and VFs created or removed
    /// with VF Enable.
    pub(super) fn sriov_after_write(&mut self, start: usize, len: usize) {
        let Some(s) = &self.sriov else { return };
        let total = s.params.total_vfs;
        let touches = |reg: usize, width: usize| {
            let at = SRIOV_CAP + reg;
            start < at + width && at < start + len
        };
        let ctrl = self.u16_at(SRIOV_CAP + PCI_SRIOV_CTRL);
        let num = self.u16_at(SRIOV_CAP + PCI_SRIOV_NUM_VF);
        if touches(PCI_SRIOV_NUM_VF, 2) && num > total {
            // "The results are undefined if NumVFs is set to a value greater
            // than TotalVFs" (SR-IOV chapter, NumVFs).
            self.violations.push(Violation {
                kind: "sriov_numvfs_over_total",
                detail: format!("NumVFs {num} > TotalVFs {total}"),
            });
        }
        if touches(PCI_SRIOV_SYS_PGSIZE, 4) {
            let pgsz = self.u32_at(SRIOV_CAP + PCI_SRIOV_SYS_PGSIZE);
            if pgsz.count_ones() != 1 || pgsz & SUPPORTED_PAGE_SIZES == 0 {
                // System Page Size must name exactly one supported size.
                self.violations.push(Violation {
                    kind: "sriov_page_size_invalid",
                    detail: format!("System Page Size {pgsz:#x}"),
                });
            } else if ctrl & PCI_SRIOV_CTRL_VFE != 0 {
                // The VFs' BARs are laid out with it: not while they exist.
                self.violations.push(Violation {
                    kind: "sriov_page_size_while_enabled",
                    detail: format!("System Page Size {pgsz:#x} with VF Enable set"),
                });
            }
        }
        let want = if ctrl & PCI_SRIOV_CTRL_VFE != 0 {
            usize::from(num.min(total))
        } else {
            0
        };
        let pf = s.pf_params;
        if let Some(s) = self.sriov.as_mut() {
            if want == 0 {
                s.vfs.clear();
            } else if s.vfs.is_empty() {
                s.vfs = (0..want).map(|_| ConfigSpace::new_vf(&pf)).collect();
            }
        }
    }
}

/// The function and dword offset a selector names, if it is well formed:
/// function at most 255 (bits 7:0, all valid), offset dword aligned and
/// inside the space, no other bits set.
fn decode_select(select: u32) -> Option<(usize, usize)> {
    // CAST: 8- and 12-bit fields of a u32 fit any usize.
    let func = (select & 0xFF) as usize;
    let off = ((select >> 16) & 0xFFF) as usize;
    let clean = select & !0x0FFF_00FF == 0;
    (clean && off.is_multiple_of(4) && off + 4 <= CONFIG_SIZE).then_some((func, off))
}

/// The selector for function `func`'s dword at `offset`.
pub fn select(func: u8, offset: u16) -> u32 {
    u32::from(func) | (u32::from(offset & 0xFFC) << 16)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config_space::tests::params;

    fn pf() -> ConfigSpace {
        ConfigSpace::new(&ConfigParams {
            sriov: Some(SriovParams::ats_m(0x56C0)),
            ..params()
        })
    }

    fn w16(c: &mut ConfigSpace, off: usize, v: u16) {
        c.write(off as u64, &v.to_le_bytes()).expect("in range");
    }

    fn w32(c: &mut ConfigSpace, off: usize, v: u32) {
        c.write(off as u64, &v.to_le_bytes()).expect("in range");
    }

    fn kinds(c: &mut ConfigSpace) -> Vec<&'static str> {
        c.take_violations().iter().map(|v| v.kind).collect()
    }

    /// Reads VF `vf`'s dword at `off` the way the guest shim does.
    fn through_window(c: &mut ConfigSpace, func: u8, off: u16) -> u32 {
        w32(c, WINDOW + WINDOW_SELECT, select(func, off));
        c.u32_at(WINDOW + WINDOW_DATA)
    }

    fn enable(c: &mut ConfigSpace, n: u16) {
        w16(c, SRIOV_CAP + PCI_SRIOV_NUM_VF, n);
        w16(
            c,
            SRIOV_CAP + PCI_SRIOV_CTRL,
            PCI_SRIOV_CTRL_VFE | PCI_SRIOV_CTRL_MSE,
        );
    }

    #[test]
    fn capability_fields() {
        let mut c = pf();
        let cap = SRIOV_CAP;
        assert_eq!(c.u32_at(cap), 0x0001_0010, "SR-IOV, version 1, last");
        assert_eq!(c.u16_at(cap + PCI_SRIOV_INITIAL_VF), 63);
        assert_eq!(c.u16_at(cap + PCI_SRIOV_TOTAL_VF), 63);
        assert_eq!(c.u16_at(cap + PCI_SRIOV_NUM_VF), 0);
        assert_eq!(c.u16_at(cap + PCI_SRIOV_VF_OFFSET), 1);
        assert_eq!(c.u16_at(cap + PCI_SRIOV_VF_STRIDE), 1);
        assert_eq!(c.u16_at(cap + PCI_SRIOV_VF_DID), 0x56C0);
        assert_eq!(c.u32_at(cap + PCI_SRIOV_SUP_PGSIZE), 0x553);
        assert_eq!(c.u32_at(cap + PCI_SRIOV_SYS_PGSIZE), 1);
        // Read-only fields ignore writes.
        for reg in [PCI_SRIOV_INITIAL_VF, PCI_SRIOV_VF_OFFSET, PCI_SRIOV_VF_DID] {
            w32(&mut c, cap + reg, 0xFFFF_FFFF);
        }
        assert_eq!(c.u16_at(cap + PCI_SRIOV_TOTAL_VF), 63);
        assert_eq!(c.u16_at(cap + PCI_SRIOV_VF_STRIDE), 1);
        assert_eq!(c.u16_at(cap + PCI_SRIOV_VF_DID), 0x56C0);
        // Only VFE, MSE and ARI are writable in Control.
        w16(&mut c, cap + PCI_SRIOV_CTRL, 0xFFFF);
        assert_eq!(c.sriov_ctrl(), Some(0x0019));
        assert!(kinds(&mut c).is_empty());
    }

    #[test]
    fn vf_bars_size_like_the_kernel_decodes_them() {
        let mut c = pf();
        let bar = SRIOV_CAP + PCI_SRIOV_BAR;
        assert_eq!(c.u32_at(bar), 0x4, "VF BAR0 64-bit");
        assert_eq!(c.u32_at(bar + 8), 0xC, "VF BAR2 64-bit prefetchable");
        for i in 0..6 {
            w32(&mut c, bar + 4 * i, 0xFFFF_FFFF);
        }
        let size = |lo: u32, hi: u32| {
            let mask = (u64::from(hi) << 32) | u64::from(lo & !0xF);
            (!mask).wrapping_add(1)
        };
        assert_eq!(size(c.u32_at(bar), c.u32_at(bar + 4)), 16 << 20);
        assert_eq!(size(c.u32_at(bar + 8), c.u32_at(bar + 12)), 64 << 20);
        assert_eq!(
            (c.u32_at(bar + 16), c.u32_at(bar + 20)),
            (0, 0),
            "VF BAR4/5 absent"
        );
        assert!(kinds(&mut c).is_empty());
    }

    /// What `sriov_init` and `compute_max_vf_buses` (drivers/pci/iov.c) do at
    /// scan time breaks no rule and leaves no VF.
    #[test]
    fn the_kernels_scan_sequence_is_legal() {
        let mut c = pf();
        let cap = SRIOV_CAP;
        w16(&mut c, cap + PCI_SRIOV_CTRL, 0);
        w32(&mut c, cap + PCI_SRIOV_SYS_PGSIZE, 1);
        for i in 0..6 {
            let at = cap + PCI_SRIOV_BAR + 4 * i;
            let old = c.u32_at(at);
            w32(&mut c, at, 0xFFFF_FFFF);
            w32(&mut c, at, old);
        }
        for n in (1..=63).rev() {
            w16(&mut c, cap + PCI_SRIOV_NUM_VF, n);
            assert_eq!(c.u16_at(cap + PCI_SRIOV_VF_OFFSET), 1);
        }
        w16(&mut c, cap + PCI_SRIOV_NUM_VF, 0);
        assert!(kinds(&mut c).is_empty());
        assert_eq!(c.num_vfs(), 0);
    }

    #[test]
    fn numvfs_is_frozen_while_vfs_are_enabled() {
        let mut c = pf();
        enable(&mut c, 4);
        assert_eq!(c.num_vfs(), 4);
        w16(&mut c, SRIOV_CAP + PCI_SRIOV_NUM_VF, 2);
        assert_eq!(c.u16_at(SRIOV_CAP + PCI_SRIOV_NUM_VF), 4, "write dropped");
        assert_eq!(c.num_vfs(), 4);
        assert_eq!(kinds(&mut c), ["sriov_numvfs_while_enabled"]);
        // Rewriting the same value (a dword write over NumVFs) is no change.
        w32(&mut c, SRIOV_CAP + PCI_SRIOV_NUM_VF, 4);
        assert!(kinds(&mut c).is_empty());
        w16(&mut c, SRIOV_CAP + PCI_SRIOV_CTRL, 0);
        assert_eq!(c.num_vfs(), 0);
        w16(&mut c, SRIOV_CAP + PCI_SRIOV_NUM_VF, 2);
        assert_eq!(c.u16_at(SRIOV_CAP + PCI_SRIOV_NUM_VF), 2);
        assert!(kinds(&mut c).is_empty());
    }

    #[test]
    fn numvfs_over_total_is_a_violation_and_enables_at_most_total() {
        let mut c = pf();
        enable(&mut c, 64);
        assert_eq!(kinds(&mut c), ["sriov_numvfs_over_total"]);
        assert_eq!(c.num_vfs(), 63);
        assert_eq!(
            through_window(&mut c, 63, 0),
            0xFFFF_FFFF,
            "VF 63 exists, Vendor ID FFFFh"
        );
        assert_eq!(through_window(&mut c, 63, 8) >> 8, 0x03_8000, "VF 63 class");
        assert_eq!(through_window(&mut c, 64, 8), 0xFFFF_FFFF, "no VF 64");
    }

    #[test]
    fn system_page_size_rules() {
        let mut c = pf();
        let at = SRIOV_CAP + PCI_SRIOV_SYS_PGSIZE;
        w32(&mut c, at, 0x10);
        assert!(kinds(&mut c).is_empty(), "64 KB is supported");
        w32(&mut c, at, 0x3);
        w32(&mut c, at, 0x4);
        w32(&mut c, at, 0);
        assert_eq!(
            kinds(&mut c),
            [
                "sriov_page_size_invalid",
                "sriov_page_size_invalid",
                "sriov_page_size_invalid"
            ]
        );
        enable(&mut c, 1);
        w32(&mut c, at, 0x1);
        assert_eq!(kinds(&mut c), ["sriov_page_size_while_enabled"]);
    }

    #[test]
    fn window_serves_the_pf_and_existing_vfs_only() {
        let mut c = pf();
        assert_eq!(c.u32_at(WINDOW + WINDOW_SIGNATURE), SIGNATURE);
        // Function 0 is the PF as the mock holds it: the SR-IOV header QEMU hides.
        assert_eq!(through_window(&mut c, 0, 0x100), 0x0001_0010);
        assert_eq!(through_window(&mut c, 0, 0), 0x56C0_8086);
        assert_eq!(c.u32_at(WINDOW + WINDOW_SELECT), select(0, 0));
        // No VF before VF Enable.
        assert_eq!(through_window(&mut c, 1, 0), 0xFFFF_FFFF);
        enable(&mut c, 2);
        let vf = |c: &mut ConfigSpace, off| through_window(c, 2, off);
        assert_eq!(
            vf(&mut c, 0x00),
            0xFFFF_FFFF,
            "VF Vendor/Device ID read FFFFh"
        );
        assert_eq!(vf(&mut c, 0x08), 0x0380_0008, "PF's class and revision");
        assert_eq!(vf(&mut c, 0x0C) >> 16 & 0xFF, 0, "header type 0");
        assert_eq!(vf(&mut c, 0x2C), 0x4905_8086, "PF's subsystem IDs");
        assert_eq!(vf(&mut c, 0x34) & 0xFF, 0x40, "PCIe capability");
        assert_ne!(vf(&mut c, 0x44) & 0x1000_0000, 0, "FLR capable");
        assert_eq!(vf(&mut c, 0x3C) >> 8 & 0xFF, 0, "no INTx pin");
        assert_eq!(through_window(&mut c, 3, 0), 0xFFFF_FFFF, "NumVFs is 2");
        // The window's bytes are not the PF's: nothing was stored there.
        assert_eq!(c.bytes[WINDOW..WINDOW + 12], [0; 12]);
        // A write straddling the window start leaves its selector alone (the
        // signature is read-only, the bytes before it are unimplemented).
        c.write((WINDOW - 4) as u64, &[0xAA; 8]).expect("in range");
        assert_eq!(
            c.u32_at(WINDOW + WINDOW_SELECT),
            select(3, 0),
            "selector untouched"
        );
        assert_eq!(c.u32_at(WINDOW + WINDOW_SIGNATURE), SIGNATURE);
        assert!(kinds(&mut c).is_empty());
    }

    #[test]
    fn vf_writes_through_the_window_keep_the_vf_rules() {
        let mut c = pf();
        enable(&mut c, 1);
        // BARs are read-only zero; only Bus Master sticks in Command.
        w32(&mut c, WINDOW + WINDOW_SELECT, select(1, 0x10));
        w32(&mut c, WINDOW + WINDOW_DATA, 0xFFFF_FFFF);
        assert_eq!(c.u32_at(WINDOW + WINDOW_DATA), 0);
        w32(&mut c, WINDOW + WINDOW_SELECT, select(1, 0x04));
        c.write((WINDOW + WINDOW_DATA) as u64, &[0x07, 0x00])
            .expect("in range");
        assert_eq!(c.u32_at(WINDOW + WINDOW_DATA) & 0xFFFF, 0x0004);
        // A VF FLR (Device Control bit 15) returns the VF to reset; it stays.
        w32(&mut c, WINDOW + WINDOW_SELECT, select(1, 0x48));
        c.write((WINDOW + WINDOW_DATA + 1) as u64, &[0x80])
            .expect("in range");
        assert_eq!(through_window(&mut c, 1, 0x04) & 0xFFFF, 0);
        assert_eq!(c.num_vfs(), 1);
        // Writing the PF's own bytes through the window changes nothing.
        w32(&mut c, WINDOW + WINDOW_SELECT, select(0, 0x100 + 0x10));
        w32(&mut c, WINDOW + WINDOW_DATA, 5);
        assert_eq!(c.u16_at(SRIOV_CAP + PCI_SRIOV_NUM_VF), 1);
        assert!(kinds(&mut c).is_empty());
        // A selector with an unaligned offset is refused and reads all ones.
        w32(&mut c, WINDOW + WINDOW_SELECT, 0x0002_0001);
        assert_eq!(kinds(&mut c), ["config_window_bad_selector"]);
        assert_eq!(c.u32_at(WINDOW + WINDOW_DATA), 0xFFFF_FFFF);
    }

    /// A PF FLR resets the SR-IOV capability, VF Enable included, so the VFs
    /// are gone (seed 000 line 296).
    #[test]
    fn pf_reset_removes_the_vfs() {
        let mut c = pf();
        enable(&mut c, 3);
        c.reset();
        assert_eq!(c.num_vfs(), 0);
        assert_eq!(c.sriov_ctrl(), Some(0));
        assert_eq!(c.u16_at(SRIOV_CAP + PCI_SRIOV_NUM_VF), 0);
        assert_eq!(through_window(&mut c, 1, 0), 0xFFFF_FFFF);
    }

    #[test]
    fn without_sriov_there_is_no_capability_and_no_window() {
        let mut c = ConfigSpace::new(&params());
        assert_eq!(c.u32_at(SRIOV_CAP), 0);
        assert_eq!(c.u32_at(WINDOW), 0);
        w32(&mut c, WINDOW + WINDOW_SELECT, select(0, 0));
        assert_eq!(c.u32_at(WINDOW + WINDOW_SELECT), 0);
        assert_eq!(c.sriov_ctrl(), None);
        assert!(kinds(&mut c).is_empty());
    }
}
