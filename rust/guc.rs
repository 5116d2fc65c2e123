// SPDX-License-Identifier: GPL-2.0

//! GuC: firmware load through its DMA engine, the boot handshake, and the first messages.
//!
//! The PRM gives the DMA engine's rules (seed 000, lines 1105-1140: what the hardware rejects,
//! 64-byte alignment, WOPCM base and size programmed first, no DMA over a loaded uKernel) and
//! the GuC address map (lines 1080-1086); the sequence and register fields are upstream's
//! (`xe_guc.c` `__xe_guc_upload`, `xe_uc_fw.c` `uc_fw_xfer`, `xe_wopcm.c`), cited per step:
//!
//! 1. reset the GuC (GDRST), which must report MIA_IN_RESET;
//! 2. partition WOPCM, or accept matching values already locked by an earlier load;
//! 3. put the image, the ADS (with the private data area the header asks for) and the log
//!    in local memory, map them into the GGTT, invalidate the GuC's GGTT TLB;
//! 4. write the boot parameters, the shim and PM programming, the RSA key location;
//! 5. DMA header + uCode to WOPCM offset 0x2000, wait for it, then for GUC_STATUS to say
//!    READY or an error, decoded for the log;
//! 6. ask for the hwconfig table over MMIO (the GuC-to-memory direction).
//!
//! A failed load leaves the device bound with the GuC down (debugfs `guc_info` says why), so
//! the rest of the driver stays inspectable. Unbind resets the GuC before any memory it can
//! reach is released.

pub(crate) mod fw;
pub(crate) mod h2g;
pub(crate) mod regs;

use core::mem::{offset_of, size_of};

use kernel::{
    device::Bound,
    firmware::Firmware,
    io::{poll::read_poll_timeout, register::Array},
    pci,
    prelude::*,
    str::CString,
    sync::Mutex,
    time::{Delta, Instant, Monotonic},
};

use crate::{
    abi::*,
    gt::{forcewake::DomainMask, mcr::Mcr, Gt},
    mem::{
        ggtt::{self, Ggtt, Mapping, PAGE},
        lmem::{LmemAccess, LmemPool},
    },
    range::Range,
};
use fw::CssInfo;
use h2g::{Hxg, Reply};
use regs::*;

/// WOPCM on discrete Xe-HPG and the reservations around the GuC's share (upstream
/// `xe_wopcm.c`: `DGFX_WOPCM_SIZE`, `WOPCM_RESERVED_SIZE`, `WOPCM_HW_CTX_RESERVED`,
/// `GUC_WOPCM_RESERVED`, `GUC_WOPCM_STACK_RESERVED`).
const WOPCM_SIZE: u32 = 4 << 20;
const WOPCM_RESERVED: u32 = 16 << 10;
const WOPCM_HW_CTX_RESERVED: u32 = 36 << 10;
const GUC_WOPCM_RESERVED: u32 = 16 << 10;
const GUC_WOPCM_STACK_RESERVED: u32 = 8 << 10;
/// "uCode expects the code to be loaded at 8k; locations below are stack" (`xe_guc.c`).
const UCODE_WOPCM_OFFSET: u32 = 0x2000;
/// DMA address spaces (upstream `regs/xe_guc_regs.h`).
const DMA_ADDRESS_SPACE_WOPCM: u32 = 7;
const DMA_ADDRESS_SPACE_GGTT: u32 = 8;
/// Shim programming for graphics 12.50+: read caches and MIA clock gating
/// (`xe_guc.c`, `guc_prepare_xfer`).
const SHIM_CONTROL_VALUE: u32 = (1 << 1) | (1 << 9) | (1 << 10) | (1 << 15);
/// Log buffer: 4 KiB header + 16 KiB crash dump + 64 KiB events + 1 MiB capture (upstream
/// `xe_guc_log.h`, non-debug build), and its GUC_CTL_LOG_PARAMS size fields
/// (crash 16 KiB = 3 in 4 KiB units less one at 5:4, events 64 KiB = 15 at 9:6, capture
/// 1 MiB = 0 in 1 MiB units at 11:10 with the capture-unit bit 2).
const LOG_SIZE: u64 = (4 + 16 + 64 + 1024) << 10;
const LOG_PARAMS_SIZES: u32 = (3 << 4) | (15 << 6) | (1 << 2);
/// Scheduler policy defaults the GuC expects (`xe_guc_ads.c`, `guc_policies_init`).
const DPC_PROMOTE_TIME_US: u32 = 500_000;
const MAX_NUM_WORK_ITEMS: u32 = 15;
/// Hwconfig tables are a few hundred bytes; refuse anything beyond 64 KiB as corrupt.
const HWCONFIG_MAX: u32 = 64 << 10;

// TIMEOUT: upstream's limits: GDRST 5 ms, DMA 100 ms, boot 3 s polled every 10 ms.
const RESET_TIMEOUT: Delta = Delta::from_millis(5);
const DMA_TIMEOUT: Delta = Delta::from_millis(100);
const BOOT_TIMEOUT: Delta = Delta::from_secs(3);
const BOOT_POLL: Delta = Delta::from_millis(10);

/// Where the GuC stands.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum State {
    NotLoaded,
    Running,
    Failed,
}

/// A GuC-visible object: local memory and its GGTT mapping.
#[derive(Copy, Clone, Debug)]
struct Obj {
    lmem: Range,
    map: Mapping,
}

impl Obj {
    /// Unmaps the GGTT range and returns the local memory.
    fn free(&self, ctx: &Ctx<'_>) {
        ctx.ggtt.unmap(ctx.gt.bar, self.map);
        ctx.pool.free(self.lmem);
    }
}

/// Everything the debugfs files report, plus the objects to release.
pub(crate) struct GucState {
    pub(crate) path: Option<CString>,
    pub(crate) css: Option<CssInfo>,
    pub(crate) state: State,
    /// Last GUC_STATUS read.
    pub(crate) status: u32,
    /// Start of reset to READY, in microseconds.
    pub(crate) load_us: i64,
    /// Register reads and writes the load took (hwconfig included).
    pub(crate) load_mmio: (u64, u64),
    /// WOPCM base and size the GuC runs with, and whether they were found locked.
    pub(crate) wopcm: Option<(u32, u32, bool)>,
    /// The step that failed and the error.
    pub(crate) error: Option<(&'static str, Error)>,
    /// The hwconfig table, validated (key, length, values...).
    pub(crate) hwconfig: KVec<u32>,
    objs: KVec<Obj>,
    /// A DMA was started since the last GuC reset: the GuC may hold or run an image.
    touched: bool,
}

/// GuC state of one device.
#[pin_data]
pub(crate) struct Guc {
    #[pin]
    state: Mutex<GucState>,
}

/// What a load needs from the rest of the driver.
pub(crate) struct Ctx<'a> {
    pub(crate) pdev: &'a pci::Device<Bound>,
    pub(crate) gt: Gt<'a>,
    pub(crate) ggtt: &'a Ggtt,
    pub(crate) pool: &'a LmemPool,
    pub(crate) lmem: LmemAccess<'a>,
    pub(crate) mcr: &'a Mcr,
}

/// A step's failure, for the log and for debugfs.
struct Fail(&'static str, Error);

impl Guc {
    pub(crate) fn new() -> impl PinInit<Self> {
        pin_init!(Self {
            state <- kernel::new_mutex!(GucState {
                path: None,
                css: None,
                state: State::NotLoaded,
                status: 0,
                load_us: 0,
                load_mmio: (0, 0),
                wopcm: None,
                error: None,
                hwconfig: KVec::new(),
                objs: KVec::new(),
                touched: false,
            }),
        })
    }

    /// Runs `f` on the state (debugfs).
    pub(crate) fn with_state<R>(&self, f: impl FnOnce(&GucState) -> R) -> R {
        f(&self.state.lock())
    }

    /// Fetches, checks and loads the firmware at `path`, then reads the hwconfig table.
    /// Failure is recorded (and logged with the step), never fatal to the binding.
    pub(crate) fn load(&self, ctx: &Ctx<'_>, path: &CStr) {
        let mut st = self.state.lock();
        st.path = CString::try_from_fmt(fmt!("{}", path)).ok();
        let (reads0, writes0) = ctx.gt.bar.counts();
        let result = self.load_locked(ctx, &mut st, path);
        let (reads1, writes1) = ctx.gt.bar.counts();
        st.load_mmio = (reads1 - reads0, writes1 - writes0);
        match result {
            Ok(()) => {
                st.state = State::Running;
                st.error = None;
                dev_info!(
                    ctx.gt.dev,
                    "guc: firmware {} running after {} us\n",
                    st.css.map_or(fw::MIN_RELEASE, |c| c.release),
                    st.load_us
                );
            }
            Err(Fail(step, e)) => {
                st.state = State::Failed;
                st.error = Some((step, e));
                dev_err!(
                    ctx.gt.dev,
                    "guc: load failed at {}: {:?}; the GuC stays down\n",
                    step,
                    e
                );
            }
        }
    }

    fn load_locked(&self, ctx: &Ctx<'_>, st: &mut GucState, path: &CStr) -> Result<(), Fail> {
        let dev = ctx.gt.dev;
        let file = Firmware::request(path, dev).map_err(|e| {
            dev_err!(dev, "guc: cannot get firmware {}: {:?}\n", path, e);
            Fail("firmware request", e)
        })?;
        let css = CssInfo::parse(file.data()).map_err(|e| {
            dev_err!(dev, "guc: firmware {} refused: {}\n", path, e);
            Fail("firmware header", EINVAL)
        })?;
        st.css = Some(css);
        let start = Instant::<Monotonic>::now();
        let _gt_awake = ctx
            .gt
            .forcewake(DomainMask::GT)
            .map_err(|e| Fail("forcewake", e))?;
        reset(&ctx.gt).map_err(|e| Fail("GuC reset", e))?;
        st.touched = false;
        st.wopcm = Some(wopcm_setup(&ctx.gt, &css).map_err(|e| Fail("WOPCM", e))?);
        let objs = self
            .place(ctx, st, &css, file.data())
            .map_err(|e| Fail("GuC objects", e))?;
        ggtt::invalidate(&ctx.gt, ctx.mcr).map_err(|e| Fail("GGTT invalidation", e))?;
        boot_params(ctx, &objs).map_err(|e| Fail("boot parameters", e))?;
        preload(&ctx.gt).map_err(|e| Fail("pre-load programming", e))?;
        rsa(&ctx.gt, &css, &objs, file.data()).map_err(|e| Fail("RSA key", e))?;
        st.touched = true;
        dma(&ctx.gt, &css, objs.fw.map.addr(0)).map_err(|e| Fail("DMA", e))?;
        let status = wait_boot(&ctx.gt).map_err(|(raw, e)| {
            st.status = raw;
            Fail("boot", e)
        })?;
        st.status = status;
        st.load_us = start.elapsed().as_micros_ceil();
        st.hwconfig = self.hwconfig(ctx, st).map_err(|e| Fail("hwconfig", e))?;
        Ok(())
    }

    /// Allocates, maps and fills the firmware image, the ADS and the log.
    fn place(&self, ctx: &Ctx<'_>, st: &mut GucState, css: &CssInfo, image: &[u8]) -> Result<Objs> {
        let fw_bytes = (css.dma_bytes() + css.key_bytes) as u64;
        let ads_bytes = u64::from(XEHPG_GUC_ADS_PRIVATE_OFFSET) + u64::from(css.private_data_bytes);
        let fw = self.obj(ctx, st, fw_bytes)?;
        let ads = self.obj(ctx, st, ads_bytes)?;
        let log = self.obj(ctx, st, LOG_SIZE)?;
        ctx.lmem
            .write_bytes(fw.lmem.start, image.get(..fw_bytes as usize).ok_or(EINVAL)?)?;
        write_ads(ctx.lmem, &ads, css)?;
        ctx.lmem.zero(log.lmem.start, LOG_SIZE)?;
        Ok(Objs { fw, ads, log })
    }

    fn obj(&self, ctx: &Ctx<'_>, st: &mut GucState, bytes: u64) -> Result<Obj> {
        st.objs.reserve(1, GFP_KERNEL)?;
        let lmem = ctx.pool.alloc(bytes)?;
        let map = match ctx.ggtt.map_lmem(ctx.gt.bar, lmem.start, lmem.size()) {
            Ok(m) => m,
            Err(e) => {
                ctx.pool.free(lmem);
                return Err(e);
            }
        };
        let obj = Obj { lmem, map };
        // Capacity was reserved above.
        st.objs.push_within_capacity(obj).map_err(|_| ENOMEM)?;
        Ok(obj)
    }

    /// Unmaps and frees `obj`, which the GuC no longer uses.
    fn release(&self, ctx: &Ctx<'_>, st: &mut GucState, obj: Obj) {
        st.objs.retain(|o| o.lmem != obj.lmem);
        obj.free(ctx);
    }

    /// GET_HWCONFIG: ask the size, give the GuC a buffer, check the table it wrote.
    fn hwconfig(&self, ctx: &Ctx<'_>, st: &mut GucState) -> Result<KVec<u32>> {
        let ask = Hxg::request(XEHPG_GUC_ACTION_GET_HWCONFIG, 0).0;
        let size = match h2g::send(&ctx.gt, &[ask, 0, 0, 0])?.0 {
            Reply::Success(n) => n,
            Reply::Failure { error, hint } => {
                dev_err!(
                    ctx.gt.dev,
                    "guc: hwconfig size query failed: error {:#x} hint {:#x}\n",
                    error,
                    hint
                );
                return Err(EIO);
            }
        };
        if size == 0 || size % 4 != 0 || size > HWCONFIG_MAX {
            dev_err!(
                ctx.gt.dev,
                "guc: hwconfig size {:#x} is not a table the driver accepts\n",
                size
            );
            return Err(EPROTO);
        }
        let buf = self.obj(ctx, st, u64::from(size).next_multiple_of(PAGE))?;
        ggtt::invalidate(&ctx.gt, ctx.mcr)?;
        let addr = buf.map.addr(0);
        // CAST: GGTT addresses are below 4 GiB; the high dword is 0.
        let req = [ask, addr as u32, (addr >> 32) as u32, size];
        match h2g::send(&ctx.gt, &req)?.0 {
            Reply::Success(n) if n == size => {}
            Reply::Success(n) => {
                dev_err!(
                    ctx.gt.dev,
                    "guc: hwconfig copy wrote {:#x} bytes, {:#x} asked\n",
                    n,
                    size
                );
                return Err(EPROTO);
            }
            Reply::Failure { error, hint } => {
                dev_err!(
                    ctx.gt.dev,
                    "guc: hwconfig copy failed: error {:#x} hint {:#x}\n",
                    error,
                    hint
                );
                return Err(EIO);
            }
        }
        let mut table = KVec::with_capacity((size / 4) as usize, GFP_KERNEL)?;
        for i in 0..u64::from(size / 4) {
            table.push(ctx.lmem.read32(buf.lmem.start + 4 * i)?, GFP_KERNEL)?;
        }
        // The GuC answered, so it is done with the buffer. (On the error paths above it is kept
        // until unbind: a GuC that did not answer may still write into it.)
        self.release(ctx, st, buf);
        check_klvs(&table).map_err(|(entry, claimed, left)| {
            dev_err!(
                ctx.gt.dev,
                "guc: hwconfig entry {} claims {} dwords, {} remain; table refused\n",
                entry,
                claimed,
                left
            );
            EPROTO
        })?;
        Ok(table)
    }

    /// Unbind: stop the GuC, then release what it could reach. If it cannot be reset the
    /// objects are leaked on purpose (it may still be writing into them).
    pub(crate) fn fini(&self, ctx: &Ctx<'_>) {
        let mut st = self.state.lock();
        if st.touched {
            let stopped = ctx
                .gt
                .forcewake(DomainMask::GT)
                .and_then(|_awake| reset(&ctx.gt));
            if let Err(e) = stopped {
                dev_err!(
                    ctx.gt.dev,
                    "guc: reset at unbind failed ({:?}); leaking its memory\n",
                    e
                );
                // It may still write through the GGTT: keep everything it can reach.
                ctx.ggtt.keep_scratch();
                return;
            }
            st.touched = false;
        }
        for obj in core::mem::take(&mut st.objs).iter() {
            obj.free(ctx);
        }
        st.state = State::NotLoaded;
    }
}

/// The objects of one load.
struct Objs {
    fw: Obj,
    ads: Obj,
    log: Obj,
}

/// Checks the hwconfig KLV layout: (key, length in dwords, values). Returns the first entry
/// whose length overruns the table, with the claimed and remaining dwords.
pub(crate) fn check_klvs(table: &[u32]) -> Result<(), (usize, u32, usize)> {
    let mut i = 0;
    let mut entry = 0;
    while i < table.len() {
        let left = table.len() - i;
        if left < 2 {
            return Err((entry, 0, left));
        }
        let len = table[i + 1];
        if len as usize > left - 2 {
            return Err((entry, len, left - 2));
        }
        i += 2 + len as usize;
        entry += 1;
    }
    Ok(())
}

/// GDRST GuC reset; the GuC must then report MIA_IN_RESET (`xe_guc.c`, `xe_guc_reset`).
fn reset(gt: &Gt<'_>) -> Result {
    gt.write_reg(GDRST::zeroed().with_grdom_guc(true))?;
    read_poll_timeout(
        || gt.read(GDRST),
        |r| !r.grdom_guc(),
        Delta::from_micros(10),
        RESET_TIMEOUT,
    )
    .inspect_err(|_| {
        dev_err!(
            gt.dev,
            "guc: GDRST GuC reset did not complete within 5 ms\n"
        )
    })?;
    let status = gt.read(GUC_STATUS)?;
    if !status.mia_in_reset() {
        dev_err!(
            gt.dev,
            "guc: still running after reset (GUC_STATUS {:#010x})\n",
            status.into_raw()
        );
        return Err(EIO);
    }
    Ok(())
}

/// The GuC's WOPCM share for a firmware of `css`'s size (upstream `xe_wopcm.c`, no HuC):
/// base above the reserved 16 KiB, size up to the hardware-context reservation.
pub(crate) fn wopcm_layout(css: &CssInfo) -> Result<(u32, u32)> {
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

/// Programs (or accepts the already locked) WOPCM registers. Returns (base, size, was_locked).
fn wopcm_setup(gt: &Gt<'_>, css: &CssInfo) -> Result<(u32, u32, bool)> {
    let (base, size) = wopcm_layout(css).inspect_err(|_| {
        dev_err!(
            gt.dev,
            "guc: firmware of {:#x} bytes does not fit the GuC WOPCM\n",
            css.dma_bytes()
        )
    })?;
    let size_reg = gt.read(GUC_WOPCM_SIZE)?;
    let off_reg = gt.read(DMA_GUC_WOPCM_OFFSET)?;
    if size_reg.locked() || off_reg.valid() {
        // Locked by an earlier load (they survive until a device reset): keep them if the
        // firmware fits in what they describe.
        let (cur_base, cur_size) = (off_reg.offset().get() << 14, size_reg.size().get() << 12);
        // CAST: `wopcm_layout` above proved the image size fits in u32.
        let need = css.dma_bytes() as u32 + GUC_WOPCM_RESERVED + GUC_WOPCM_STACK_RESERVED;
        let fits = size_reg.locked()
            && off_reg.valid()
            && cur_base >= WOPCM_RESERVED
            && cur_base
                .checked_add(cur_size)
                .is_some_and(|end| end <= WOPCM_SIZE - WOPCM_HW_CTX_RESERVED)
            && cur_size >= need;
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
        return Ok((cur_base, cur_size, true));
    }
    gt.write_reg(GUC_WOPCM_SIZE::zeroed().try_with_size(size >> 12)?)?;
    gt.write_reg(DMA_GUC_WOPCM_OFFSET::zeroed().try_with_offset(base >> 14)?)?;
    let size_back = gt.read(GUC_WOPCM_SIZE)?;
    let off_back = gt.read(DMA_GUC_WOPCM_OFFSET)?;
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
    Ok((base, size, false))
}

/// Fills the minimal ADS: pointers to the policies and system info in the same buffer and to
/// the private data area after them (`xe_guc_ads.c`, `xe_guc_ads_populate_minimal`).
fn write_ads(lmem: LmemAccess<'_>, ads: &Obj, css: &CssInfo) -> Result {
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

/// SOFT_SCRATCH(0) = 0, SOFT_SCRATCH(1 + i) = GUC_CTL parameter i (`xe_guc.c`,
/// `guc_write_params`; values as `guc_init_params` for the first, pre-hwconfig load).
fn boot_params(ctx: &Ctx<'_>, objs: &Objs) -> Result {
    let mut params = [0u32; XEHPG_GUC_CTL_MAX_DWORDS as usize];
    let log = u32::try_from(objs.log.map.addr(0)).map_err(|_| EINVAL)?;
    params[XEHPG_GUC_CTL_LOG_PARAMS as usize] =
        XEHPG_GUC_LOG_VALID | LOG_PARAMS_SIZES | (log & XEHPG_GUC_LOG_BUF_ADDR_MASK);
    params[XEHPG_GUC_CTL_DEBUG as usize] = XEHPG_GUC_DEBUG_LOG_DISABLED;
    let ads_page = u32::try_from(objs.ads.map.addr(0) >> 12).map_err(|_| EINVAL)?;
    params[XEHPG_GUC_CTL_ADS as usize] =
        (ads_page & XEHPG_GUC_ADS_ADDR_MASK) << XEHPG_GUC_ADS_ADDR_SHIFT;
    params[XEHPG_GUC_CTL_DEVID as usize] =
        (u32::from(ctx.pdev.device_id()) << 16) | u32::from(ctx.pdev.revision_id());
    let scratch = |i: usize| SOFT_SCRATCH::try_at(i).ok_or(EINVAL);
    ctx.gt.write(scratch(0)?, SOFT_SCRATCH::zeroed())?;
    for (i, &p) in params.iter().enumerate() {
        ctx.gt.write(scratch(1 + i)?, SOFT_SCRATCH::from_raw(p))?;
    }
    Ok(())
}

/// Shim, PM doorbell and ARAT unmask, which must precede the DMA (`xe_guc.c`,
/// `guc_prepare_xfer`).
fn preload(gt: &Gt<'_>) -> Result {
    gt.write_reg(GUC_SHIM_CONTROL::from_raw(SHIM_CONTROL_VALUE))?;
    gt.write_reg(GT_PM_CONFIG::zeroed().with_gt_doorbell_enable(true))?;
    let mask = gt.read(PMINTRMSK)?;
    gt.write_reg(mask.with_arat_expired_intrmsk(false))
}

/// Tells the boot ROM where the key is: a key over 256 bytes by GGTT address in
/// UOS_RSA_SCRATCH(0), a smaller one copied into the 64 registers (`xe_guc.c`,
/// `guc_xfer_rsa`).
fn rsa(gt: &Gt<'_>, css: &CssInfo, objs: &Objs, image: &[u8]) -> Result {
    let key_at = css.key_offset();
    if css.key_bytes > 256 {
        let addr = u32::try_from(objs.fw.map.addr(key_at as u64)).map_err(|_| EINVAL)?;
        let loc = UOS_RSA_SCRATCH::try_at(0).ok_or(EINVAL)?;
        return gt.write(loc, UOS_RSA_SCRATCH::from_raw(addr));
    }
    let key = image.get(key_at..key_at + css.key_bytes).ok_or(EINVAL)?;
    for (i, chunk) in key.chunks(4).enumerate() {
        let mut dw = [0u8; 4];
        dw[..chunk.len()].copy_from_slice(chunk);
        let loc = UOS_RSA_SCRATCH::try_at(i).ok_or(EINVAL)?;
        gt.write(loc, UOS_RSA_SCRATCH::from_raw(u32::from_le_bytes(dw)))?;
    }
    Ok(())
}

/// DMA header + uCode from the GGTT to WOPCM 0x2000 (`xe_uc_fw.c`, `uc_fw_xfer`).
fn dma(gt: &Gt<'_>, css: &CssInfo, src: u64) -> Result {
    // The seed's rule: source and destination agree in their low 6 bits (seed 000 line 1133).
    if src % 64 != u64::from(UCODE_WOPCM_OFFSET) % 64 {
        return Err(EINVAL);
    }
    let size = u32::try_from(css.dma_bytes()).map_err(|_| EINVAL)?;
    // CAST: `src` is a GGTT address, below 4 GiB: the low dword and 16 high bits cover it.
    gt.write_reg(DMA_ADDR_0_LOW::zeroed().with_value(src as u32))?;
    gt.write_reg(
        DMA_ADDR_0_HIGH::zeroed()
            .try_with_addr((src >> 32) as u32)?
            .try_with_space(DMA_ADDRESS_SPACE_GGTT)?,
    )?;
    gt.write_reg(DMA_ADDR_1_LOW::zeroed().with_value(UCODE_WOPCM_OFFSET))?;
    gt.write_reg(DMA_ADDR_1_HIGH::zeroed().try_with_space(DMA_ADDRESS_SPACE_WOPCM)?)?;
    gt.write_reg(DMA_COPY_SIZE::zeroed().with_value(size))?;
    gt.write_reg(
        DMA_CTRL::zeroed()
            .with_mask(0x11u16)
            .with_uos_move(true)
            .with_start_dma(true),
    )?;
    let done = read_poll_timeout(
        || gt.read(DMA_CTRL),
        |c| !c.start_dma(),
        Delta::from_micros(50),
        DMA_TIMEOUT,
    );
    // Clear UOS_MOVE whatever happened, as upstream does.
    gt.write_reg(DMA_CTRL::zeroed().with_mask(0x10u16))?;
    done.map(|_| ()).inspect_err(|_| {
        dev_err!(
            gt.dev,
            "guc: DMA of {:#x} bytes did not complete within {} ms\n",
            size,
            DMA_TIMEOUT.as_millis()
        )
    })
}

/// Polls GUC_STATUS until READY or a failure; returns the last raw status either way.
fn wait_boot(gt: &Gt<'_>) -> Result<u32, (u32, Error)> {
    let mut last = 0;
    let done = read_poll_timeout(
        || {
            last = gt.read(GUC_STATUS)?.into_raw();
            Ok(last)
        },
        |&raw| boot_outcome(raw).is_some(),
        BOOT_POLL,
        BOOT_TIMEOUT,
    );
    match done.map(boot_outcome) {
        Ok(Some(Ok(()))) => Ok(last),
        Ok(Some(Err(()))) => {
            report_status(gt, "failed", last);
            Err((last, EPROTO))
        }
        Ok(None) | Err(_) => {
            report_status(gt, "timed out", last);
            Err((last, ETIMEDOUT))
        }
    }
}

fn report_status(gt: &Gt<'_>, what: &str, raw: u32) {
    let s = Status::decode(raw);
    dev_err!(
        gt.dev,
        "guc: boot {} after {} ms: GUC_STATUS {:#010x} (uKernel {:#04x} {}, boot ROM {:#04x} {}, auth {}, MIA reset {})\n",
        what,
        BOOT_TIMEOUT.as_millis(),
        raw,
        s.ukernel,
        ukernel_name(s.ukernel),
        s.bootrom,
        bootrom_name(s.bootrom),
        s.auth,
        u8::from(s.in_reset)
    );
}

/// GUC_STATUS fields.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Status {
    pub(crate) auth: u32,
    pub(crate) ukernel: u32,
    pub(crate) bootrom: u32,
    pub(crate) in_reset: bool,
}

impl Status {
    pub(crate) fn decode(raw: u32) -> Self {
        let r = GUC_STATUS::from_raw(raw);
        Self {
            auth: r.auth().get(),
            ukernel: r.ukernel().get(),
            bootrom: r.bootrom().get(),
            in_reset: r.mia_in_reset(),
        }
    }
}

/// `Some(Ok)` once READY, `Some(Err)` on a terminal failure, `None` while booting
/// (`xe_guc.c`, `guc_load_done`).
pub(crate) fn boot_outcome(raw: u32) -> Option<Result<(), ()>> {
    let s = Status::decode(raw);
    if s.ukernel == XEHPG_GUC_UKERNEL_READY {
        return Some(Ok(()));
    }
    let uk_fail = matches!(
        s.ukernel,
        XEHPG_GUC_UKERNEL_DEVID_BUILD_MISMATCH
            | XEHPG_GUC_UKERNEL_PREPROD_BUILD_MISMATCH
            | XEHPG_GUC_UKERNEL_DEVID_INVALID_GUCTYPE
            | XEHPG_GUC_UKERNEL_HWCONFIG_ERROR
            | XEHPG_GUC_UKERNEL_BOOTROM_VERSION_MISMATCH
            | XEHPG_GUC_UKERNEL_DPC_ERROR
            | XEHPG_GUC_UKERNEL_EXCEPTION
            | XEHPG_GUC_UKERNEL_INIT_DATA_INVALID
            | XEHPG_GUC_UKERNEL_MPU_DATA_INVALID
            | XEHPG_GUC_UKERNEL_INIT_MMIO_SAVE_RESTORE_INVALID
            | XEHPG_GUC_UKERNEL_KLV_WORKAROUND_INIT_ERROR
            | XEHPG_GUC_UKERNEL_INVALID_FTR_FLAG
    );
    let rom_fail = matches!(
        s.bootrom,
        XEHPG_GUC_BOOTROM_NO_KEY_FOUND
            | XEHPG_GUC_BOOTROM_PROD_KEY_CHECK_FAILURE
            | XEHPG_GUC_BOOTROM_RSA_FAILED
            | XEHPG_GUC_BOOTROM_PAVPC_FAILED
            | XEHPG_GUC_BOOTROM_WOPCM_FAILED
            | XEHPG_GUC_BOOTROM_LOADLOC_FAILED
            | XEHPG_GUC_BOOTROM_JUMP_FAILED
            | XEHPG_GUC_BOOTROM_RC6CTXCONFIG_FAILED
            | XEHPG_GUC_BOOTROM_MPUMAP_INCORRECT
            | XEHPG_GUC_BOOTROM_EXCEPTION
    );
    (uk_fail || rom_fail || s.auth == 1).then_some(Err(()))
}

/// Upstream's name for a uKernel status code (`abi/guc_errors_abi.h`).
pub(crate) fn ukernel_name(code: u32) -> &'static str {
    match code {
        XEHPG_GUC_UKERNEL_DEFAULT => "default",
        XEHPG_GUC_UKERNEL_START => "start",
        XEHPG_GUC_UKERNEL_DEVID_BUILD_MISMATCH => "device ID build mismatch",
        XEHPG_GUC_UKERNEL_PREPROD_BUILD_MISMATCH => "pre-production build mismatch",
        XEHPG_GUC_UKERNEL_DEVID_INVALID_GUCTYPE => "invalid GuC type for device",
        XEHPG_GUC_UKERNEL_HWCONFIG_START => "hwconfig start",
        XEHPG_GUC_UKERNEL_HWCONFIG_DONE => "hwconfig done",
        XEHPG_GUC_UKERNEL_HWCONFIG_ERROR => "hwconfig error",
        XEHPG_GUC_UKERNEL_BOOTROM_VERSION_MISMATCH => "boot ROM version mismatch",
        XEHPG_GUC_UKERNEL_GDT_DONE => "GDT done",
        XEHPG_GUC_UKERNEL_IDT_DONE => "IDT done",
        XEHPG_GUC_UKERNEL_LAPIC_DONE => "LAPIC done",
        XEHPG_GUC_UKERNEL_GUCINT_DONE => "GuC interrupts done",
        XEHPG_GUC_UKERNEL_DPC_READY => "DPC ready",
        XEHPG_GUC_UKERNEL_DPC_ERROR => "DPC error",
        XEHPG_GUC_UKERNEL_EXCEPTION => "exception",
        XEHPG_GUC_UKERNEL_INIT_DATA_INVALID => "init data invalid",
        XEHPG_GUC_UKERNEL_PXP_TEARDOWN_CTRL_ENABLED => "PXP teardown control enabled",
        XEHPG_GUC_UKERNEL_MPU_DATA_INVALID => "MPU data invalid",
        XEHPG_GUC_UKERNEL_INIT_MMIO_SAVE_RESTORE_INVALID => "MMIO save/restore list invalid",
        XEHPG_GUC_UKERNEL_KLV_WORKAROUND_INIT_ERROR => "workaround KLV init error",
        XEHPG_GUC_UKERNEL_INVALID_FTR_FLAG => "invalid feature flag",
        XEHPG_GUC_UKERNEL_READY => "ready",
        _ => "unknown",
    }
}

/// Upstream's name for a boot ROM status code (`abi/guc_errors_abi.h`).
pub(crate) fn bootrom_name(code: u32) -> &'static str {
    match code {
        0 => "none",
        XEHPG_GUC_BOOTROM_NO_KEY_FOUND => "no key found",
        XEHPG_GUC_BOOTROM_AES_PROD_KEY_FOUND => "AES production key found",
        XEHPG_GUC_BOOTROM_PROD_KEY_CHECK_FAILURE => "production key check failed",
        XEHPG_GUC_BOOTROM_RSA_FAILED => "RSA verification failed",
        XEHPG_GUC_BOOTROM_PAVPC_FAILED => "PAVPC failed",
        XEHPG_GUC_BOOTROM_WOPCM_FAILED => "WOPCM failed",
        XEHPG_GUC_BOOTROM_LOADLOC_FAILED => "load location failed",
        XEHPG_GUC_BOOTROM_JUMP_PASSED => "jump passed",
        XEHPG_GUC_BOOTROM_JUMP_FAILED => "jump failed",
        XEHPG_GUC_BOOTROM_RC6CTXCONFIG_FAILED => "RC6 context config failed",
        XEHPG_GUC_BOOTROM_MPUMAP_INCORRECT => "MPU map incorrect",
        XEHPG_GUC_BOOTROM_EXCEPTION => "exception",
        _ => "unknown",
    }
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_guc)]
mod tests {
    use super::*;

    #[test]
    fn status_decode_and_outcome() {
        // AUTH good, uKernel READY, boot ROM JUMP_PASSED: upstream's success.
        let ready = (2 << 30) | (0xf0 << 8) | (0x76 << 1);
        assert_eq!(boot_outcome(ready), Some(Ok(())));
        let s = Status::decode(ready);
        assert_eq!(
            (s.auth, s.ukernel, s.bootrom, s.in_reset),
            (2, 0xf0, 0x76, false)
        );
        // Still booting.
        assert_eq!(boot_outcome(0x40 << 8), None);
        assert_eq!(boot_outcome(1), None);
        // Failures from each field.
        assert_eq!(boot_outcome(0x71 << 8), Some(Err(())));
        assert_eq!(boot_outcome(0x50 << 1), Some(Err(())));
        assert_eq!(boot_outcome(1 << 30), Some(Err(())));
        assert_eq!(ukernel_name(0x71), "init data invalid");
        assert_eq!(bootrom_name(0x50), "RSA verification failed");
    }

    #[test]
    fn hwconfig_klv_bounds() {
        assert_eq!(check_klvs(&[]), Ok(()));
        assert_eq!(check_klvs(&[1, 1, 5, 2, 2, 7, 8]), Ok(()));
        // The second entry claims 3 dwords with 2 left.
        assert_eq!(check_klvs(&[1, 1, 5, 2, 3, 7, 8]), Err((1, 3, 2)));
        // A dangling key with no length.
        assert_eq!(check_klvs(&[1, 0, 9]), Err((1, 0, 1)));
        assert_eq!(check_klvs(&[1, u32::MAX]), Err((0, u32::MAX, 0)));
    }

    #[test]
    fn wopcm_layout_like_upstream() -> Result {
        let css = CssInfo {
            release: fw::MIN_RELEASE,
            submission: fw::Version::new(1, 0, 0),
            ucode_bytes: 381248,
            key_bytes: 384,
            private_data_bytes: 8 << 20,
            ukernel_info: 0,
        };
        // DG2 without HuC: base 16 KiB, size 4 MiB - 36 KiB - 16 KiB (upstream's 0x3F3000).
        assert_eq!(wopcm_layout(&css)?, (0x4000, 0x3f3000));
        let huge = CssInfo {
            ucode_bytes: 0x3f3000,
            ..css
        };
        assert_eq!(wopcm_layout(&huge), Err(EFBIG));
        Ok(())
    }
}
