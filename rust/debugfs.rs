// SPDX-License-Identifier: GPL-2.0

//! Files under `/sys/kernel/debug/xehpg/<pci address>/` (formats in
//! `Documentation/debugfs.rst`).
//!
//! This module only wires files to the blocks: each block formats its own report and runs its
//! own commands. The directory's data ([`DebugCtx`]) owns what the files read: a snapshot of
//! what probe learned, and shared references (`Arc`) to the GT and GuC state and to BAR 0.
//! The BAR is a device resource: a callback reaches it only while the device is bound (see
//! [`Gttmmadr::try_access_with`]), so a file written while unbind is under way fails with
//! `ENODEV` instead of touching an unmapped BAR.

use kernel::{
    debugfs::{self, ScopedDir},
    device::Device,
    fmt,
    prelude::*,
    sync::{
        aref::ARef,
        atomic::{Atomic, Relaxed},
        Arc,
    },
    uaccess::UserSliceReader,
};

use crate::{
    gt::{mcr, Gt, GtState},
    guc::Guc,
    info::DeviceInfo,
    mmio::Gttmmadr,
};

/// What the per-device directory's files read from.
pub(crate) struct DebugCtx {
    info: DeviceInfo,
    dev: ARef<Device>,
    bar: Arc<Gttmmadr>,
    gt: Arc<GtState>,
    guc: Arc<Guc>,
    /// Outcome of the last `mcr` command: value and errno (0 = success).
    mcr_value: Atomic<u32>,
    mcr_errno: Atomic<i32>,
}

impl DebugCtx {
    pub(crate) fn new(
        info: DeviceInfo,
        dev: ARef<Device>,
        bar: Arc<Gttmmadr>,
        gt: Arc<GtState>,
        guc: Arc<Guc>,
    ) -> Self {
        Self {
            info,
            dev,
            bar,
            gt,
            guc,
            mcr_value: Atomic::new(0),
            mcr_errno: Atomic::new(0),
        }
    }

    /// Runs `f` on a GT view unless the device is already unbound (`ENODEV`). `f` must not
    /// sleep (see [`Gttmmadr::try_access_with`]).
    fn with_gt<R>(&self, f: impl FnOnce(&Gt<'_>) -> Result<R>) -> Result<R> {
        self.bar
            .try_access_with(|bar| f(&self.gt.view(&self.dev, bar)))
            .unwrap_or(Err(ENODEV))
    }
}

/// Creates the files in `dir`.
pub(crate) fn populate<'a>(ctx: &'a DebugCtx, dir: &ScopedDir<'a, '_>) {
    dir.read_callback_file(c"info", ctx, &|c: &DebugCtx, f| {
        fmt::Display::fmt(&c.info, f)
    });
    dir.read_callback_file(c"forcewake", ctx, &|c: &DebugCtx, f| c.gt.fmt_forcewake(f));
    dir.read_write_callback_file(
        c"forcewake_all",
        ctx,
        &|c: &DebugCtx, f| f.write_fmt(fmt!("{}\n", u8::from(c.gt.user_holds()))),
        &store_forcewake_all,
    );
    dir.read_callback_file(c"steering", ctx, &|c: &DebugCtx, f| {
        c.gt.mcr().fmt_steering(f)
    });
    dir.read_callback_file(c"topology", ctx, &|c: &DebugCtx, f| {
        fmt::Display::fmt(&c.gt.mcr().topology(), f)
    });
    dir.read_write_callback_file(c"mcr", ctx, &show_mcr, &store_mcr);
    dir.read_callback_file(c"mmio_stats", ctx, &|c: &DebugCtx, f| c.bar.fmt_stats(f));
    dir.read_callback_file(c"guc_info", ctx, &|c: &DebugCtx, f| c.guc.fmt_info(f));
    dir.read_callback_file(c"hwconfig", ctx, &|c: &DebugCtx, f| c.guc.fmt_hwconfig(f));
}

/// Reads a short command (at most 63 bytes) written to a debugfs file.
fn read_command<'b>(reader: &mut UserSliceReader, buf: &'b mut [u8; 64]) -> Result<&'b str> {
    let len = reader.len();
    if len >= buf.len() {
        return Err(EINVAL);
    }
    reader.read_slice(&mut buf[..len])?;
    core::str::from_utf8(&buf[..len])
        .map(str::trim)
        .map_err(|_| EINVAL)
}

fn store_forcewake_all(c: &DebugCtx, reader: &mut UserSliceReader) -> Result {
    let mut buf = [0u8; 64];
    let hold = match read_command(reader, &mut buf)? {
        "1" => true,
        "0" => false,
        _ => return Err(EINVAL),
    };
    c.with_gt(|gt| {
        if hold {
            gt.user_hold()
        } else {
            gt.user_release();
            Ok(())
        }
    })
}

fn show_mcr(c: &DebugCtx, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    match c.mcr_errno.load(Relaxed) {
        0 => f.write_fmt(fmt!("{:#010x}\n", c.mcr_value.load(Relaxed))),
        e => f.write_fmt(fmt!("error {}\n", e)),
    }
}

/// `mcr` commands (for tests and bring-up); see [`mcr::run_command`].
fn store_mcr(c: &DebugCtx, reader: &mut UserSliceReader) -> Result {
    let mut buf = [0u8; 64];
    let cmd = read_command(reader, &mut buf)?;
    let result = c.with_gt(|gt| mcr::run_command(gt, cmd));
    match result {
        Ok(v) => {
            c.mcr_value.store(v, Relaxed);
            c.mcr_errno.store(0, Relaxed);
        }
        Err(e) => c.mcr_errno.store(e.to_errno(), Relaxed),
    }
    result.map(|_| ())
}

/// `/sys/kernel/debug/xehpg`, parent of one directory per bound device.
///
/// Set by [`RootGuard::install`] in module init before the driver registers and cleared when
/// the guard drops after it unregisters, so every probe sees `Some`. The kernel crate has no
/// per-module data slot yet; nova-core (`drivers/gpu/nova-core/nova_core.rs`) uses the same
/// arrangement.
static mut ROOT: Option<debugfs::Dir> = None;

/// Owns [`ROOT`] for the module's lifetime: the module root holds it after the driver
/// registration, so it drops after the driver is unregistered.
pub(crate) struct RootGuard;

impl RootGuard {
    /// Creates the root directory named `name`.
    ///
    /// # Safety
    ///
    /// Called once, from module init, before the driver is registered (nothing else can touch
    /// [`ROOT`] yet); the guard must be dropped only after the driver is unregistered.
    pub(crate) unsafe fn install(name: &'static CStr) -> Self {
        // SAFETY: the caller guarantees no probe can run yet, so nothing reads `ROOT`.
        unsafe { *core::ptr::addr_of_mut!(ROOT) = Some(debugfs::Dir::new(name)) };
        Self
    }
}

impl Drop for RootGuard {
    fn drop(&mut self) {
        // SAFETY: `install`'s contract: dropped after the driver is unregistered, so no probe
        // runs and every per-device directory below the root is already gone.
        unsafe { *core::ptr::addr_of_mut!(ROOT) = None };
    }
}

/// The debugfs root for this module, or an error if it could not be created.
///
/// # Errors
///
/// `ENOENT` outside the module's lifetime (never seen by a probe).
pub(crate) fn root() -> Result<&'static debugfs::Dir> {
    // SAFETY: `ROOT` is written only by `RootGuard::install` before the driver is registered and
    // by `RootGuard::drop` after it is unregistered; probe (the only caller) cannot run outside
    // that window, so no write races this read.
    unsafe { (*core::ptr::addr_of!(ROOT)).as_ref() }.ok_or(ENOENT)
}
