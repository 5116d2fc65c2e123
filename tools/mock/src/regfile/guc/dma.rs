//! The GuC DMA engine (GUCDMA, seed 000 lines 1105-1140).
//!
//! Registers: `DMA_ADDR_0_*` is the source, `DMA_ADDR_1_*` the destination
//! (the seed's default assignment, line 1112), each a 48-bit address (low
//! dword; high dword `addr` 15:0) with an address space in `space` 20:16
//! (upstream `DMA_ADDRESS_SPACE_WOPCM` 7, `DMA_ADDRESS_SPACE_GGTT` 8);
//! `DMA_COPY_SIZE` bytes; `DMA_CTRL` (masked) starts a copy with a write that
//! enables and sets `START_DMA`, usually with `UOS_MOVE` (the copy is the
//! uKernel; upstream writes `0x00110011`).
//!
//! The engine rejects a DMA, copying nothing, for the cases the seed lists
//! (lines 1134-1138) and the rules of the note before them (line 1133):
//!
//! - `GUC_WOPCM_SIZE` or `DMA_GUC_WOPCM_OFFSET` not programmed (not
//!   LOCKED / VALID) for a copy into WOPCM;
//! - a copy into the GuC WOPCM that does not fit in it: destination +
//!   size above `GUC_WOPCM_SIZE`;
//! - size 0;
//! - source and destination differing in their low 6 bits ("no provision
//!   for barrel rotation");
//! - a copy over the loaded uKernel ("the HW shall not allow DMA operation
//!   to overwrite them") until a GuC reset unloads it.
//!
//! Placement (line 1133): "uOS and uApps are always located on a 64-byte
//! aligned address". The seed lists this among the rules software follows,
//! not among the cases the engine rejects, so a `UOS_MOVE` copy whose
//! destination (where the uKernel is placed) is not 64-byte aligned is
//! recorded as `guc_ukernel_misaligned` and the DMA is judged by the other
//! rules as usual (`[MODEL]`: the seed does not say what the hardware does
//! with it). The source needs no check of its own: it has to share the
//! destination's low 6 bits.
//!
//! `[MODEL]` The mock also rejects: a START while a copy is in flight; any
//! pair of spaces other than GGTT -> WOPCM (the only one a driver uses;
//! SRAM and PPGTT copies are not modelled); and a GuC WOPCM (offset + size)
//! that does not fit the 4 MiB WOPCM (`DGFX_WOPCM_SIZE`). A rejection is a
//! `guc_dma_rejected` violation naming the reason; START_DMA reads 0 at once
//! and `GUC_STATUS` does not change (the GuC stays in reset).
//!
//! An accepted copy reads the source through the GuC's GGTT translation
//! ([`super::ggtt`]) when START is written. A fault there (non-present PTE,
//! unreachable page, an address below the WOPCM top or from
//! `GUC_GGTT_TOP` up) is `guc_dma_fault`: nothing is copied, START_DMA
//! clears at once and, for a `UOS_MOVE` copy, `GUC_STATUS.bootrom` reads
//! `LOADLOC_FAILED` (0x75, `[MODEL]`: the boot ROM cannot load from that
//! location; another copy leaves the status alone). Otherwise
//! START_DMA reads 1 for [`DMA_TIME`] (`[MODEL]`; upstream allows 100 ms),
//! forever with the fault `guc-dma-never-completes`; a `UOS_MOVE` copy is
//! then the uKernel image [`super::boot`] starts from.

use std::time::Duration;

use super::ggtt;
use super::ggtt::Gtt;
use super::status;
use super::Bus;
use super::Guc;
use super::Image;
use crate::abi;
use crate::recorder::Recorder;
use crate::regs::guc as r;
use crate::trace::Event;
use crate::trace::Hex;

/// How long START_DMA reads 1 after an accepted start (`[MODEL]`).
pub const DMA_TIME: Duration = Duration::from_millis(1);
/// `DMA_ADDRESS_SPACE_WOPCM` (`regs/xe_guc_regs.h`).
pub const SPACE_WOPCM: u64 = 7;
/// `DMA_ADDRESS_SPACE_GGTT` (`regs/xe_guc_regs.h`).
pub const SPACE_GGTT: u64 = 8;
/// Source and destination must agree in these address bits (seed 000
/// line 1133: "The lower 6 bits of addressing of both Source and
/// Destination addresses must be same").
const SAME_BITS: u64 = 0x3F;
/// The uKernel is placed on a 64-byte aligned address (seed 000 line 1133:
/// "uOS and uApps are always located on a 64-byte aligned address").
pub const UKERNEL_ALIGN: u64 = 64;

/// One end of a transfer.
#[derive(Debug, Clone, Copy)]
struct End {
    addr: u64,
    space: u64,
}

fn space_name(space: u64) -> &'static str {
    match space {
        SPACE_WOPCM => "wopcm",
        SPACE_GGTT => "ggtt",
        _ => "other",
    }
}

impl Guc {
    /// The address register pair `i` (0 = source, 1 = destination).
    fn end(&self, i: usize) -> End {
        let high = u64::from(self.dma_addr[2 * i + 1]);
        End {
            addr: u64::from(self.dma_addr[2 * i]) | (r::DMA_ADDR_HI.get(high) << 32),
            space: r::DMA_SPACE.get(high),
        }
    }

    /// `DMA_CTRL` write.
    pub(super) fn write_dma_ctrl(
        &mut self,
        value: u32,
        now: Duration,
        rec: &mut Recorder,
        bus: &mut dyn Bus,
    ) {
        // CAST: the mask field is bits 31:16.
        let mask = r::DMA_CTRL_MASK.get(value.into()) as u32;
        if mask == 0 {
            rec.violation(
                "masked_write_no_mask",
                format!(
                    "DMA_CTRL written with {value:#x}: bits 31:16 are all 0, so no bit changes"
                ),
            );
            return;
        }
        let start = r::START_DMA.mask32();
        let uos = r::UOS_MOVE.mask32();
        let old = self.dma_ctrl;
        let new = (old & !mask) | (value & mask & 0xFFFF);
        self.dma_ctrl = new & !start;
        if value & mask & start != 0 {
            self.start_dma(now, new & uos != 0, rec, bus);
        }
        if old & uos != 0 && new & uos == 0 {
            self.handoff(now, rec, bus);
        }
    }

    fn start_dma(&mut self, now: Duration, uos_move: bool, rec: &mut Recorder, bus: &mut dyn Bus) {
        let (src, dst) = (self.end(0), self.end(1));
        let size = u64::from(self.dma_size);
        rec.emit(Event::GucDma {
            src: Hex(src.addr),
            dst: Hex(dst.addr),
            size,
            space: space_name(src.space),
            dst_space: space_name(dst.space),
            uos_move,
        });
        if uos_move && dst.addr % UKERNEL_ALIGN != 0 {
            rec.violation(
                "guc_ukernel_misaligned",
                format!(
                    "uKernel DMA to {:#x} ({}): the uKernel must be placed on a {UKERNEL_ALIGN}-byte \
                     aligned address",
                    dst.addr,
                    space_name(dst.space)
                ),
            );
        }
        if let Err(why) = self.dma_check(now, src, dst, size) {
            rec.violation(
                "guc_dma_rejected",
                format!(
                    "DMA {:#x} ({}) -> {:#x} ({}), {size:#x} bytes, rejected: {why}; nothing copied",
                    src.addr,
                    space_name(src.space),
                    dst.addr,
                    space_name(dst.space)
                ),
            );
            return;
        }
        // CAST: dma_check bounded size by the 4 MiB WOPCM.
        let mut bytes = vec![0u8; size as usize];
        let read = Gtt::new(bus, &mut self.tlb).read(src.addr, &mut bytes, "GuC DMA source", rec);
        if let Err(fault) = read {
            rec.violation("guc_dma_fault", fault.0);
            if uos_move {
                self.image = None;
                let loadloc = status(0, 0, abi::bootrom::LOADLOC_FAILED, true);
                self.status.set(now, loadloc, rec);
            }
            return;
        }
        let done_at = (!self.p.faults.dma_never_completes).then(|| now + DMA_TIME);
        self.dma = Some(super::DmaRun {
            done_at,
            bytes: size,
        });
        if uos_move {
            self.image = Some(Image {
                dst: dst.addr,
                bytes,
                ready_at: done_at,
                booted: false,
            });
        }
    }

    /// The hardware's reasons to refuse a DMA (module docs).
    fn dma_check(&self, now: Duration, src: End, dst: End, size: u64) -> Result<(), String> {
        if self.dma_busy(now) {
            return Err("a DMA is still in flight (START_DMA reads 1)".into());
        }
        if src.space != SPACE_GGTT || dst.space != SPACE_WOPCM {
            return Err(format!(
                "source space {} / destination space {}: the mock models GGTT ({SPACE_GGTT}) \
                 -> WOPCM ({SPACE_WOPCM}) copies only",
                src.space, dst.space
            ));
        }
        let (Some(wsize), Some(woffset)) = (self.wopcm_size, self.wopcm_offset) else {
            return Err(
                "GuC WOPCM base and size are not programmed (GUC_WOPCM_SIZE 0xC050 / \
                 DMA_GUC_WOPCM_OFFSET 0xC340 not locked / valid)"
                    .into(),
            );
        };
        if size == 0 {
            return Err("DMA_COPY_SIZE is 0".into());
        }
        let guc_wopcm = r::WOPCM_SIZE.get(wsize.into()) << r::WOPCM_SIZE.lo;
        let base = r::WOPCM_OFFSET.get(woffset.into()) << r::WOPCM_OFFSET.lo;
        if base + guc_wopcm > ggtt::WOPCM_TOP {
            return Err(format!(
                "the GuC WOPCM {base:#x}+{guc_wopcm:#x} does not fit the {:#x}-byte WOPCM",
                ggtt::WOPCM_TOP
            ));
        }
        let end = dst.addr.saturating_add(size);
        if end > guc_wopcm {
            return Err(format!(
                "the copy ends at {end:#x}, beyond the {guc_wopcm:#x}-byte GuC WOPCM"
            ));
        }
        if src.addr & SAME_BITS != dst.addr & SAME_BITS {
            return Err(format!(
                "source and destination differ in their low 6 bits ({:#x} vs {:#x})",
                src.addr & SAME_BITS,
                dst.addr & SAME_BITS
            ));
        }
        if let Some(img) = &self.image {
            let img_end = img.dst + img.bytes.len() as u64;
            if dst.addr < img_end && img.dst < end {
                return Err(format!(
                    "it would overwrite the uKernel loaded at {:#x}..{img_end:#x} \
                     (only a GuC reset unloads it)",
                    img.dst
                ));
            }
        }
        Ok(())
    }
}
