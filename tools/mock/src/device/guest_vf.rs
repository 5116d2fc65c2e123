//! A VF as a PCI function of its own, for a second VM (`--vf-socket N:PATH`,
//! `server.rs` serves it on its own socket): what the VM's driver (upstream
//! xe as a VF driver) reaches, and how each access lands in the one device.
//!
//! - **Config space.** The VF as the host's `vfio-pci` presents an assigned
//!   VF to a VM (`[MODEL]`: the mock stands in for that host too): vendor
//!   Intel, the SR-IOV capability's VF Device ID (the PF's, `SriovParams`),
//!   the PF's class, BAR0 of the VF BAR0 size (16 MiB, seed 000 line 139),
//!   BAR2 of the VF BAR2 size, a PCIe and an MSI capability. While VF `n`
//!   does not exist (VF Enable clear, or `n` above NumVFs in the PF's SR-IOV
//!   capability) every config read returns all ones, as from an absent
//!   function, and writes are dropped.
//! - **BAR0, registers** (below 4 MiB): the registers a VF may touch are
//!   replicated per VF (seed 000 line 127); the mock models those of
//!   [`RegisterFile::vf_fn_read`]. Any other offset reads 0, drops a write,
//!   and is recorded as unknown (`vf_guest.N.unknown`).
//! - **BAR0, GGTT** (8 MiB up, 8 MiB): the VF's view of the one global GTT
//!   (seed 000 lines 143-157 and 418): an 8-byte entry whose Function Number
//!   (bits 11:2, `isolation::pte_vfid`) is the VF's reads back with that
//!   field 0, and a write updates it except the Function Number and Valid
//!   (bit 0); an entry of another function reads 0 and a write is dropped
//!   (`vf_guest.N.blocked.ggtt_mismatch`). The seed's table says Function
//!   Number 7:2; the mock uses upstream's 11:2 (`GGTT_PTE_VFID`), as the
//!   isolation checker does.
//! - **BAR2**: the VF's local memory, its offset translated through the
//!   LMTT's cache (`lmtt::Tlb::translate`); an offset no valid page maps
//!   reads all ones and drops a write (`blocked.lmem_unmapped`).
//! - **DMA and interrupts** are the VF's own: its VM maps its memory, and
//!   the VF's MSI goes to that VM.
//!
//! Every access is counted under `vf_guest.N` in the summary. While the PF
//! is removed (`surprise-removal`), the VF's BARs read all ones too.

use std::fs::File;
use std::io;

use vfio_bindings::bindings::vfio::VFIO_PCI_BAR0_REGION_INDEX;
use vfio_bindings::bindings::vfio::VFIO_PCI_BAR2_REGION_INDEX;
use vfio_bindings::bindings::vfio::VFIO_PCI_CONFIG_REGION_INDEX;
use vfio_user::DmaMapFlags;

use super::einval;
use super::Device;
use super::GGTT_SIZE;
use super::GGTT_START;
use super::REGS_END;
use crate::config_space::ConfigEffect;
use crate::config_space::ConfigParams;
use crate::config_space::ConfigSpace;
use crate::config_space::SriovParams;
use crate::ids;
use crate::irq;
use crate::irq::Irqs;
use crate::memory::GuestMemory;
use crate::regfile::isolation::pte_vfid;
use crate::regfile::isolation::PTE_VFID_MASK;
use crate::regfile::isolation::PTE_VFID_SHIFT;
use crate::trace::Event;
use crate::trace::Hex;
use crate::trace::Op;

/// The GGTT entry's Valid bit (bit 0).
const PTE_VALID: u64 = 1;
/// A GGTT entry's bytes.
const PTE_BYTES: u64 = 8;

/// One VF's function, as a second VM sees it.
pub struct GuestVf {
    config: ConfigSpace,
    guest: GuestMemory,
    irqs: Irqs,
}

impl GuestVf {
    /// The function of a VF of a PF with `sriov`, `class_code` and
    /// `revision`.
    pub fn new(sriov: &SriovParams, class_code: u32, revision: u8) -> Self {
        Self {
            config: ConfigSpace::new(&ConfigParams {
                vendor_id: ids::VENDOR_INTEL,
                device_id: sriov.vf_device_id,
                revision,
                class_code,
                subsystem_vendor_id: ids::VENDOR_INTEL,
                subsystem_id: sriov.vf_device_id,
                bar0_size: sriov.vf_bar0_size,
                bar2_size: sriov.vf_bar2_size,
                msi: true,
                sriov: None,
            }),
            guest: GuestMemory::new(),
            irqs: Irqs::new(),
        }
    }
}

impl GuestVf {
    /// The VF's VM's memory, as its DMA map has it.
    pub fn memory(&self) -> &GuestMemory {
        &self.guest
    }

    /// The same, for writing.
    pub fn memory_mut(&mut self) -> &mut GuestMemory {
        &mut self.guest
    }
}

impl Device {
    /// The VF numbers served as functions of their own, with their BAR
    /// sizes (BAR0, BAR2).
    pub fn guest_vf_bars(&self) -> (u64, u64) {
        let s = SriovParams::ats_m(self.opts.device_id);
        (s.vf_bar0_size, s.vf_bar2_size)
    }

    /// Whether VF `vf` exists now (VF Enable set and `vf` within NumVFs).
    fn vf_exists(&self, vf: u32) -> bool {
        usize::try_from(vf).is_ok_and(|n| n >= 1 && n <= self.config.num_vfs())
    }

    fn count_vf(&mut self, vf: u32, what: &'static str) {
        self.rec.emit(Event::VfGuest { vf, what });
    }

    /// A region read from VF `vf`'s VM.
    ///
    /// # Errors
    ///
    /// `EINVAL` for a VF not served, a region it does not have, or an
    /// access outside one.
    pub fn vf_region_read(
        &mut self,
        vf: u32,
        region: u32,
        offset: u64,
        data: &mut [u8],
    ) -> io::Result<()> {
        match region {
            VFIO_PCI_CONFIG_REGION_INDEX => {
                self.count_vf(vf, "config_read");
                let exists = self.vf_exists(vf);
                let f = self.vfs.get(&vf).ok_or_else(einval)?;
                if exists {
                    f.config.read(offset, data).map_err(|_| einval())
                } else {
                    data.fill(0xFF);
                    Ok(())
                }
            }
            VFIO_PCI_BAR0_REGION_INDEX => self.vf_bar0(vf, Op::Read, offset, data),
            VFIO_PCI_BAR2_REGION_INDEX => self.vf_bar2(vf, Op::Read, offset, data),
            _ => Err(einval()),
        }
    }

    /// A region write from VF `vf`'s VM.
    ///
    /// # Errors
    ///
    /// As [`Device::vf_region_read`].
    pub fn vf_region_write(
        &mut self,
        vf: u32,
        region: u32,
        offset: u64,
        data: &[u8],
    ) -> io::Result<()> {
        let mut buf = data.to_vec();
        match region {
            VFIO_PCI_CONFIG_REGION_INDEX => {
                self.count_vf(vf, "config_write");
                let exists = self.vf_exists(vf);
                let f = self.vfs.get_mut(&vf).ok_or_else(einval)?;
                let effect = if exists {
                    f.config.write(offset, data).map_err(|_| einval())?
                } else {
                    ConfigEffect::None
                };
                // DMA follows the VF's own Bus Master Enable.
                let master = f.config.bus_master();
                f.guest.set_bus_master(master);
                // "Initiate FLR" in the VF's own Device Control.
                if effect == ConfigEffect::FunctionLevelReset {
                    self.vf_reset(vf);
                }
                Ok(())
            }
            VFIO_PCI_BAR0_REGION_INDEX => self.vf_bar0(vf, Op::Write, offset, &mut buf),
            VFIO_PCI_BAR2_REGION_INDEX => self.vf_bar2(vf, Op::Write, offset, &mut buf),
            _ => Err(einval()),
        }
    }

    /// DMA_MAP from VF `vf`'s VM: its memory, not the PF's VM's.
    ///
    /// # Errors
    ///
    /// A VF not served, or [`GuestMemory::map`]'s.
    pub fn vf_dma_map(
        &mut self,
        vf: u32,
        flags: DmaMapFlags,
        offset: u64,
        iova: u64,
        size: u64,
        fd: Option<File>,
    ) -> io::Result<()> {
        let f = self.vfs.get_mut(&vf).ok_or_else(einval)?;
        f.guest.map(
            iova,
            size,
            offset,
            flags.contains(DmaMapFlags::READ),
            flags.contains(DmaMapFlags::WRITE),
            fd,
        )?;
        self.count_vf(vf, "dma_map");
        Ok(())
    }

    /// DMA_UNMAP from VF `vf`'s VM.
    pub fn vf_dma_unmap(&mut self, vf: u32, iova: u64, size: u64) {
        if let Some(f) = self.vfs.get_mut(&vf) {
            f.guest.unmap(iova, size);
        }
        self.count_vf(vf, "dma_unmap");
    }

    /// SET_IRQS from VF `vf`'s VM.
    ///
    /// # Errors
    ///
    /// A VF not served, or [`Irqs::set`]'s.
    pub fn vf_set_irqs(
        &mut self,
        vf: u32,
        index: u32,
        flags: u32,
        start: u32,
        count: u32,
        fds: Vec<File>,
    ) -> io::Result<()> {
        let f = self.vfs.get_mut(&vf).ok_or_else(einval)?;
        f.irqs.set(index, flags, start, count, fds)?;
        self.count_vf(vf, "set_irqs");
        Ok(())
    }

    /// Raises VF `vf`'s MSI, if its VM enabled it.
    pub fn vf_raise_msi(&mut self, vf: u32) -> bool {
        let Some(f) = self.vfs.get_mut(&vf) else {
            return false;
        };
        let ok = f.config.msi_enabled() && f.irqs.trigger(irq::MSI_INDEX, 0).is_ok();
        self.count_vf(vf, if ok { "irq" } else { "irq_dropped" });
        ok
    }

    /// A reset of VF `vf`'s function by its VM (vfio-user reset: the host's
    /// vfio-pci resets an assigned VF with an FLR): its config space as at
    /// reset, its registers cleared (seed 000 line 322), and the GuC told
    /// (`VF_STATE_NOTIFY` VF_FLR to the PF, seed 000 line 310, the same
    /// path as `vf:flr:N`).
    pub fn vf_reset(&mut self, vf: u32) {
        self.count_vf(vf, "reset");
        if let Some(f) = self.vfs.get_mut(&vf) {
            f.config.reset();
        }
        if self.vf_exists(vf) {
            self.control(crate::control::Request::Sriov(
                crate::control::SriovRequest::Flr { vf },
            ));
        }
    }

    fn vf_blocked(&mut self, vf: u32, why: &'static str, op: Op, offset: u64) {
        self.rec.emit(Event::VfGuestBlocked {
            vf,
            why,
            op,
            offset: Hex(offset),
        });
    }

    /// A BAR0 access of VF `vf`.
    fn vf_bar0(&mut self, vf: u32, op: Op, offset: u64, data: &mut [u8]) -> io::Result<()> {
        let (bar0, _) = self.guest_vf_bars();
        let len = data.len() as u64;
        if !self.vfs.contains_key(&vf) || offset.checked_add(len).is_none_or(|e| e > bar0) {
            return Err(einval());
        }
        if self.removed || !self.vf_exists(vf) {
            self.vf_blocked(vf, "absent", op, offset);
            if op == Op::Read {
                data.fill(0xFF);
            }
            return Ok(());
        }
        if (GGTT_START..GGTT_START + GGTT_SIZE).contains(&offset) {
            return self.vf_ggtt(vf, op, offset - GGTT_START, data);
        }
        self.count_vf(
            vf,
            if op == Op::Read {
                "mmio_read"
            } else {
                "mmio_write"
            },
        );
        if offset >= REGS_END || !offset.is_multiple_of(4) || !len.is_multiple_of(4) {
            self.vf_unknown(vf, op, offset, data);
            return Ok(());
        }
        for (i, chunk) in data.chunks_mut(4).enumerate() {
            let at = offset + 4 * i as u64;
            // CAST: below REGS_END.
            let reg = at as u32;
            match op {
                Op::Read => match self.regs.vf_fn_read(vf, reg, &mut self.rec) {
                    Some(v) => chunk.copy_from_slice(&v.to_le_bytes()),
                    None => self.vf_unknown(vf, op, at, chunk),
                },
                Op::Write => {
                    let mut b = [0u8; 4];
                    b.copy_from_slice(chunk);
                    let value = u32::from_le_bytes(b);
                    let known =
                        self.with_bus(|regs, rec, bus| regs.vf_fn_write(vf, reg, value, rec, bus));
                    if !known {
                        self.vf_unknown(vf, op, at, chunk);
                    }
                }
            }
        }
        self.settle_irqs();
        Ok(())
    }

    fn vf_unknown(&mut self, vf: u32, op: Op, offset: u64, data: &mut [u8]) {
        if op == Op::Read {
            data.fill(0);
        }
        self.rec.emit(Event::VfGuestUnknown {
            vf,
            op,
            offset: Hex(offset),
        });
    }

    /// VF `vf`'s access at `rel` in its GGTT view (module docs).
    fn vf_ggtt(&mut self, vf: u32, op: Op, rel: u64, data: &mut [u8]) -> io::Result<()> {
        let len = data.len() as u64;
        if !rel.is_multiple_of(4) || !(len == 4 || len == 8) || rel % PTE_BYTES + len > PTE_BYTES {
            self.vf_blocked(vf, "ggtt_unaligned", op, GGTT_START + rel);
            if op == Op::Read {
                data.fill(0);
            }
            return Ok(());
        }
        let entry = rel - rel % PTE_BYTES;
        let Some(ggtt) = self.ggtt.as_mut() else {
            return Err(einval());
        };
        let mut b = [0u8; 8];
        ggtt.read(GGTT_START + entry, &mut b)
            .map_err(|_| einval())?;
        let pte = u64::from_le_bytes(b);
        let within = (rel % PTE_BYTES) as usize;
        if pte_vfid(pte) != vf {
            if op == Op::Read {
                data.fill(0);
            }
            self.vf_blocked(vf, "ggtt_mismatch", op, GGTT_START + rel);
            return Ok(());
        }
        let vfid = PTE_VFID_MASK << PTE_VFID_SHIFT;
        match op {
            Op::Read => {
                let shown = (pte & !vfid).to_le_bytes();
                data.copy_from_slice(&shown[within..within + data.len()]);
                self.count_vf(vf, "ggtt_read");
            }
            Op::Write => {
                let mut new = b;
                new[within..within + data.len()].copy_from_slice(data);
                let keep = vfid | PTE_VALID;
                let value = (u64::from_le_bytes(new) & !keep) | (pte & keep);
                if let Some(ggtt) = self.ggtt.as_mut() {
                    ggtt.write(GGTT_START + entry, &value.to_le_bytes())
                        .map_err(|_| einval())?;
                }
                self.regs.vf_ggtt_written(entry / PTE_BYTES);
                self.count_vf(vf, "ggtt_write");
            }
        }
        Ok(())
    }

    /// A BAR2 access of VF `vf`: through the LMTT (module docs).
    fn vf_bar2(&mut self, vf: u32, op: Op, offset: u64, data: &mut [u8]) -> io::Result<()> {
        let (_, bar2) = self.guest_vf_bars();
        let len = data.len() as u64;
        if !self.vfs.contains_key(&vf) || offset.checked_add(len).is_none_or(|e| e > bar2) {
            return Err(einval());
        }
        let mut done = 0usize;
        while done < data.len() {
            let at = offset + done as u64;
            // Up to the end of this 2 MiB page.
            let page_left =
                crate::regfile::isolation::LMTT_PAGE - at % crate::regfile::isolation::LMTT_PAGE;
            let n = (data.len() - done).min(usize::try_from(page_left).unwrap_or(usize::MAX));
            let chunk = &mut data[done..done + n];
            let target = (!self.removed && self.vf_exists(vf))
                .then(|| self.regs.guc().lmtt_translate(vf, at))
                .flatten();
            match (target, op) {
                (Some(t), Op::Read) => self.lmem.read(t, chunk).map_err(|_| einval())?,
                (Some(t), Op::Write) => self.lmem.write(t, chunk).map_err(|_| einval())?,
                (None, _) => {
                    if op == Op::Read {
                        chunk.fill(0xFF);
                    }
                    self.vf_blocked(vf, "lmem_unmapped", op, at);
                }
            }
            done += n;
        }
        self.count_vf(
            vf,
            if op == Op::Read {
                "lmem_read"
            } else {
                "lmem_write"
            },
        );
        Ok(())
    }
}
