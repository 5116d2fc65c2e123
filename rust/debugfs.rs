// SPDX-License-Identifier: GPL-2.0

//! Files under `/sys/kernel/debug/xehpg/<pci address>/` (formats in
//! `Documentation/debugfs.rst`).
//!
//! This module only wires files to the blocks: each block formats its own report and runs its
//! own commands. The directory's data ([`DebugCtx`]) owns what the files read: a snapshot of
//! what probe learned, and shared references (`Arc`) to the device's hardware (the GT state
//! and BAR 0 among it, [`Hw`]) and to the GuC state. The BAR is a device resource: a callback
//! reaches it only while the device is bound (see
//! [`Gttmmadr::try_access_with`](crate::mmio::Gttmmadr::try_access_with)), so a file written
//! while unbind is under way fails with `ENODEV` instead of touching an unmapped BAR.
//!
//! # Why not `kernel::debugfs`
//!
//! The files are debugfs "short" files (`debugfs_create_file_short`, `include/linux/debugfs.h`):
//! the `file_operations` debugfs installs are its own proxy, in the kernel image, and the
//! module's `debugfs_short_fops` are only called while the file exists (under
//! `debugfs_file_get`). The 7.3 `kernel::debugfs` files instead hand debugfs a full
//! `file_operations` in the module's memory without an `owner`, and debugfs calls its `release`
//! on every close, even after the file was removed (`full_proxy_release`, `fs/debugfs/file.c`).
//! A descriptor held across `rmmod` therefore oopsed at close on the freed module memory
//! (`BUG: unable to handle page fault`, RIP `full_proxy_release`; VM scenario
//! `stress-debugfs-rmmod`). With short files rmmod works while descriptors are open, their
//! reads fail with `EIO` once the file is gone, and closing them runs no module code.
//!
//! Removing the directory ([`DeviceDir`]'s drop) waits for reads and writes in flight
//! (`debugfs_remove` drains each file's active users), so [`DebugCtx`] outlives every callback.
//!
//! # Reports and commands
//!
//! A file is a report (0400) or a command file (0200, named `<report>_ctl`), never both, so
//! that every report stays readable under kernel lockdown ([`Access`]).
//!
//! # Production and test builds
//!
//! The production module has every report and the operator's controls (`forcewake_all_ctl`,
//! `irq_ctl`, `sriov_ctl` VF control and thresholds, `gt_reset_ctl`, `mcr_ctl`). The commands
//! that only tests and measurements use build only with `--cfg xehpg_test` (`XEHPG_TEST=y`):
//! the `submit` selftest files, the `ct_ctl` load runs and the `sriov_ctl`
//! `provision`/`unprovision` commands. `Documentation/debugfs.rst` lists which is which.

use core::ffi::c_void;

use kernel::{
    bindings,
    device::Device,
    fmt,
    prelude::*,
    sync::{
        aref::ARef,
        atomic::{Atomic, Relaxed},
        Arc, SetOnce,
    },
    uaccess::{UserPtr, UserSlice, UserSliceReader},
};

use crate::{
    compat,
    gt::{run_mcr_command, Gt},
    guc::{Guc, VfCommand},
    hw::Hw,
    info::DeviceInfo,
    irq::{IrqState, RegSnapshot},
    reset::{GtReset, Why},
    sriov::{threshold_by_name, Pf},
    submit::Submit,
};

/// What the per-device directory's files read from.
pub(crate) struct DebugCtx {
    info: DeviceInfo,
    dev: ARef<Device>,
    hw: Arc<Hw>,
    guc: Arc<Guc>,
    irq: Arc<IrqState>,
    submit: Arc<Submit>,
    late: Arc<Late>,
    /// Outcome of the last `mcr` command: value and errno (0 = success).
    mcr_value: Atomic<u32>,
    mcr_errno: Atomic<i32>,
}

/// The shared state of the blocks the files show.
pub(crate) struct Blocks {
    /// BAR 0, the local-memory BAR and the GT (the GGTT and the pool are not shown).
    pub(crate) hw: Arc<Hw>,
    pub(crate) guc: Arc<Guc>,
    pub(crate) irq: Arc<IrqState>,
    pub(crate) submit: Arc<Submit>,
    pub(crate) late: Arc<Late>,
}

/// The blocks that come up after the directory is made, filled in by probe as they do: the
/// directory is made before the engines start, so that at teardown it goes only after they
/// stopped (a command waiting on an engine is woken by the stop, and the directory's removal
/// waits for it). Until a slot is filled its files answer `ENODEV` (commands) or say so (reads).
pub(crate) struct Late {
    /// The SR-IOV PF, when the device is one.
    pub(crate) sriov: SetOnce<Arc<Pf>>,
    pub(crate) reset: SetOnce<Arc<GtReset>>,
}

impl Late {
    /// Both slots empty.
    pub(crate) fn new() -> Self {
        Self {
            sriov: SetOnce::new(),
            reset: SetOnce::new(),
        }
    }
}

impl DebugCtx {
    pub(crate) fn new(info: DeviceInfo, dev: ARef<Device>, b: Blocks) -> Self {
        Self {
            info,
            dev,
            hw: b.hw,
            guc: b.guc,
            irq: b.irq,
            submit: b.submit,
            late: b.late,
            mcr_value: Atomic::new(0),
            mcr_errno: Atomic::new(0),
        }
    }

    /// Runs `f` on a GT view unless the device is already unbound (`ENODEV`). `f` must not
    /// sleep (see [`crate::mmio::Gttmmadr::try_access_with`]).
    fn with_gt<R>(&self, f: impl FnOnce(&Gt<'_>) -> Result<R>) -> Result<R> {
        self.hw.with_gt(&self.dev, f)
    }
}

/// The CT's load runs (test build) reach the device through both revocable BARs, a send at a
/// time, and sleep outside them.
#[cfg(xehpg_test)]
impl crate::guc::CtAccess for DebugCtx {
    fn dev(&self) -> &Device {
        &self.dev
    }

    fn with_io<R>(&self, f: impl FnOnce(&crate::guc::CtIo<'_>) -> R) -> Option<R> {
        crate::guc::with_bars(&self.dev, &self.hw, f)
    }
}

/// The files of a device directory. Its position in [`files`] is the file's debugfs `aux`.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Kind {
    Info,
    Forcewake,
    ForcewakeAll,
    Steering,
    Topology,
    Mcr,
    MmioStats,
    GucInfo,
    GucLog,
    Hwconfig,
    Irq,
    Ct,
    Engines,
    #[cfg(xehpg_test)]
    Submit,
    Sriov,
    GtReset,
}

/// How a file is reached. Reports and commands are separate files so that a host under
/// kernel lockdown (Secure Boot) can still read everything: lockdown refuses to open any
/// debugfs file with a write bit, even for reading, but lets a file with no write bit, no
/// `ioctl` and no `mmap` be read (`fs/debugfs/file.c` `debugfs_locked_down`;
/// `LOCKDOWN_DEBUGFS` is an integrity reason, `include/linux/security.h`).
#[derive(Copy, Clone, PartialEq, Eq)]
enum Access {
    /// A report: mode 0400, read only.
    Read,
    /// A command file: mode 0200, write only; what it did shows in the report of the same
    /// kind.
    Command,
}

/// A file: name, kind and access.
type File = (&'static CStr, Kind, Access);

/// The files of both builds: a report per kind, and a `_ctl` command file beside the reports
/// that take commands.
const FILES: [File; 20] = [
    (c"info", Kind::Info, Access::Read),
    (c"forcewake", Kind::Forcewake, Access::Read),
    (c"forcewake_all", Kind::ForcewakeAll, Access::Read),
    (c"forcewake_all_ctl", Kind::ForcewakeAll, Access::Command),
    (c"steering", Kind::Steering, Access::Read),
    (c"topology", Kind::Topology, Access::Read),
    (c"mcr", Kind::Mcr, Access::Read),
    (c"mcr_ctl", Kind::Mcr, Access::Command),
    (c"mmio_stats", Kind::MmioStats, Access::Read),
    (c"guc_info", Kind::GucInfo, Access::Read),
    (c"guc_log", Kind::GucLog, Access::Read),
    (c"hwconfig", Kind::Hwconfig, Access::Read),
    (c"irq", Kind::Irq, Access::Read),
    (c"irq_ctl", Kind::Irq, Access::Command),
    (c"ct", Kind::Ct, Access::Read),
    (c"engines", Kind::Engines, Access::Read),
    (c"sriov", Kind::Sriov, Access::Read),
    (c"sriov_ctl", Kind::Sriov, Access::Command),
    (c"gt_reset", Kind::GtReset, Access::Read),
    (c"gt_reset_ctl", Kind::GtReset, Access::Command),
];

/// The test build's own files, after [`FILES`]: the CT load runs and the submission
/// selftest.
#[cfg(xehpg_test)]
const TEST_FILES: [File; 3] = [
    (c"ct_ctl", Kind::Ct, Access::Command),
    (c"submit", Kind::Submit, Access::Read),
    (c"submit_ctl", Kind::Submit, Access::Command),
];
#[cfg(not(xehpg_test))]
const TEST_FILES: [File; 0] = [];

/// Every file of this build, in order; a file's position is its debugfs `aux`.
fn files() -> impl Iterator<Item = &'static File> {
    Iterator::chain(FILES.iter(), TEST_FILES.iter())
}

/// A file's whole content.
struct Report<'a>(&'a DebugCtx, Kind);

impl fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = self.0;
        match self.1 {
            Kind::Info => fmt::Display::fmt(&c.info, f),
            Kind::Forcewake => c.hw.gt().fmt_forcewake(f),
            Kind::ForcewakeAll => f.write_fmt(fmt!("{}\n", u8::from(c.hw.gt().user_holds()))),
            Kind::Steering => c.hw.gt().mcr().fmt_steering(f),
            Kind::Topology => fmt::Display::fmt(&c.hw.gt().mcr().topology(), f),
            Kind::Mcr => show_mcr(c, f),
            Kind::MmioStats => c.hw.bar().fmt_stats(f),
            Kind::GucInfo => c.guc.fmt_info(f),
            // Binary: copied by `read_file` from the buffer itself, never formatted.
            Kind::GucLog => Ok(()),
            Kind::Hwconfig => c.guc.fmt_hwconfig(f),
            Kind::Irq => {
                let regs =
                    c.hw.bar()
                        .try_access_with(|bar| RegSnapshot::read(&c.hw.gt().view(&c.dev, bar)));
                c.irq.fmt_report(f, regs.as_ref())
            }
            Kind::Engines => c.submit.fmt_engines(f),
            #[cfg(xehpg_test)]
            Kind::Submit => c.submit.fmt_selftest(f),
            Kind::GtReset => match c.late.reset.as_ref() {
                Some(reset) => reset.fmt(f),
                None => f.write_str("not set up\n"),
            },
            Kind::Sriov => match c.late.sriov.as_ref() {
                Some(pf) => pf.fmt(f),
                None => f.write_str("not an SR-IOV PF\n"),
            },
            Kind::Ct => {
                let ct = c.guc.channel();
                // Read inside the device access, formatted outside it.
                let h2g =
                    c.hw.lmembar()
                        .try_access_with(|lmem| ct.h2g_desc(lmem))
                        .flatten();
                ct.fmt(f, h2g)
            }
        }
    }
}

/// Runs the command written to a writable file.
fn store(c: &DebugCtx, kind: Kind, reader: &mut UserSliceReader) -> Result {
    match kind {
        Kind::ForcewakeAll => store_forcewake_all(c, reader),
        Kind::Mcr => store_mcr(c, reader),
        Kind::Irq => {
            let mut buf = [0u8; 64];
            let cmd = read_command(reader, &mut buf)?;
            c.with_gt(|gt| c.irq.command(gt, cmd))
        }
        #[cfg(xehpg_test)]
        Kind::Ct => store_ct(c, reader),
        #[cfg(xehpg_test)]
        Kind::Submit => {
            let mut buf = [0u8; 64];
            let cmd = read_command(reader, &mut buf)?;
            c.submit.selftest(cmd, c.guc.channel())
        }
        Kind::Sriov => {
            let mut buf = [0u8; 64];
            let cmd = read_command(reader, &mut buf)?;
            store_sriov(c, cmd)
        }
        Kind::GtReset => {
            let mut buf = [0u8; 64];
            match read_command(reader, &mut buf)? {
                // As upstream's debugfs `force_reset`: queued, not waited for.
                "1" => GtReset::request(c.late.reset.as_ref().ok_or(ENODEV)?, Why::Debugfs),
                _ => Err(EINVAL),
            }
        }
        // Not reachable: only the `_ctl` files get a write method.
        _ => Err(EINVAL),
    }
}

/// Test build: `provision N` provisions N VFs at the provisioning layer alone (no VF on the
/// bus; see `Owner::Debugfs`), `unprovision` gives them back (refused while `sriov_numvfs`
/// owns the VFs). Both builds: `vfN pause|resume|stop` sends that VF control command to the
/// GuC (upstream's debugfs `control` file, `xe_gt_sriov_pf_debugfs.c`);
/// `vfN threshold NAME VALUE` sets an adverse-event threshold of a provisioned VF (upstream's
/// names, `sriov::config::THRESHOLDS`).
fn store_sriov(c: &DebugCtx, cmd: &str) -> Result {
    let pf = c.late.sriov.as_ref().ok_or(ENODEV)?;
    let vf_number = |w: &str| {
        w.strip_prefix("vf")
            .and_then(|n| n.parse::<u16>().ok())
            .ok_or(EINVAL)
    };
    let mut words = cmd.split_whitespace();
    if let (Some(vf), Some("threshold"), Some(name), Some(value), None) = (
        words.next(),
        words.next(),
        words.next(),
        words.next(),
        words.next(),
    ) {
        let idx = threshold_by_name(name).ok_or(EINVAL)?;
        let value = value.parse::<u32>().map_err(|_| EINVAL)?;
        return pf.set_threshold(vf_number(vf)?, idx, value);
    }
    let mut words = cmd.split_whitespace();
    match (words.next(), words.next(), words.next()) {
        #[cfg(xehpg_test)]
        (Some("provision"), Some(n), None) => {
            let n = n.parse::<u16>().map_err(|_| EINVAL)?;
            pf.provision(n, crate::sriov::Owner::Debugfs)
        }
        #[cfg(xehpg_test)]
        (Some("unprovision"), None, None) => pf.unprovision(crate::sriov::Owner::Debugfs),
        (Some(vf), Some(what), None) => {
            let vf = vf_number(vf)?;
            let cmd = match what {
                "pause" => VfCommand::Pause,
                "resume" => VfCommand::Resume,
                "stop" => VfCommand::Stop,
                _ => return Err(EINVAL),
            };
            pf.control(vf, cmd)
        }
        _ => Err(EINVAL),
    }
}

/// A growing buffer a report is formatted into.
struct Text(KVec<u8>);

impl fmt::Write for Text {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0
            .extend_from_slice(s.as_bytes(), GFP_KERNEL)
            .map_err(|_| fmt::Error)
    }
}

/// The directory's data and kind of an open file.
///
/// # Safety
///
/// `file` is an open file of a directory [`DeviceDir::new`] created, and the call runs under
/// debugfs's `debugfs_file_get` (every short-fops method does), so the directory has not been
/// removed and its [`DebugCtx`] is alive for the call.
unsafe fn target<'a>(file: *mut bindings::file) -> Result<(&'a DebugCtx, Kind)> {
    // SAFETY: `file` is a valid open file (caller); debugfs's `simple_open` set `private_data`
    // to the inode's data, the `DebugCtx` `DeviceDir::new` passed, alive for the call (caller).
    let ctx = unsafe { &*(*file).private_data.cast::<DebugCtx>() };
    // SAFETY: `file` is an open file of a short file of this module, in a method (caller).
    // The aux is the file's index in `files()`.
    let aux = unsafe { compat::debugfs::aux(file) };
    let (_, kind, _) = files().nth(aux).ok_or(EINVAL)?;
    Ok((ctx, *kind))
}

/// `read` of every file: formats the whole report and copies the part at `*ppos`.
///
/// # Safety
///
/// Called by debugfs's short-fops proxy with an open file of this module's directories, a user
/// buffer of `count` bytes and a valid `ppos`.
unsafe extern "C" fn read_file(
    file: *mut bindings::file,
    buf: *mut c_char,
    count: usize,
    ppos: *mut bindings::loff_t,
) -> isize {
    // SAFETY: the proxy calls this under `debugfs_file_get` (function contract).
    let (ctx, kind) = match unsafe { target(file) } {
        Ok(t) => t,
        Err(e) => return e.to_errno() as isize,
    };
    if kind == Kind::GucLog {
        // SAFETY: as below (function contract).
        return unsafe { read_guc_log(ctx, buf, count, ppos) };
    }
    let mut text = Text(KVec::new());
    if fmt::Write::write_fmt(&mut text, fmt!("{}", Report(ctx, kind))).is_err() {
        // Only the buffer's growth can fail; the reports read memory.
        return ENOMEM.to_errno() as isize;
    }
    // SAFETY: `buf` is a user buffer of `count` bytes and `ppos` is valid (function contract);
    // `text` holds `len` initialised bytes for the duration of the call.
    unsafe {
        bindings::simple_read_from_buffer(
            buf.cast(),
            count,
            ppos,
            text.0.as_ptr().cast(),
            text.0.len(),
        )
    }
}

/// Largest part of the GuC's log one `read` copies: the bounce buffer's size.
const LOG_CHUNK: usize = 16 << 10;

/// `read` of `guc_log`: the GuC's log buffer as the GuC wrote it (header page, event data,
/// crash dump, capture; [`crate::guc::Guc::read_log`]), binary, from `*ppos`.
///
/// # Safety
///
/// As [`read_file`].
unsafe fn read_guc_log(
    ctx: &DebugCtx,
    buf: *mut c_char,
    count: usize,
    ppos: *mut bindings::loff_t,
) -> isize {
    // SAFETY: `ppos` is valid (function contract).
    let pos = unsafe { *ppos };
    let Ok(pos) = u64::try_from(pos) else {
        return EINVAL.to_errno() as isize;
    };
    let mut bounce = KVec::new();
    let len = count.min(LOG_CHUNK);
    if bounce.extend_with(len, 0u8, GFP_KERNEL).is_err() {
        return ENOMEM.to_errno() as isize;
    }
    let n = match ctx.guc.read_log(&ctx.hw, pos, &mut bounce) {
        Ok(n) => n,
        Err(e) => return e.to_errno() as isize,
    };
    let mut writer = UserSlice::new(UserPtr::from_ptr(buf.cast()), n).writer();
    if let Err(e) = writer.write_slice(&bounce[..n]) {
        return e.to_errno() as isize;
    }
    // CAST: `n` is at most `LOG_CHUNK`.
    // SAFETY: `ppos` is valid (function contract).
    unsafe { *ppos += n as bindings::loff_t };
    n as isize
}

/// `write` of the `_ctl` files: one command per write.
///
/// # Safety
///
/// As [`read_file`], with a user buffer of `count` bytes to read.
unsafe extern "C" fn write_file(
    file: *mut bindings::file,
    buf: *const c_char,
    count: usize,
    _ppos: *mut bindings::loff_t,
) -> isize {
    // SAFETY: the proxy calls this under `debugfs_file_get` (function contract).
    let res = unsafe { target(file) }.and_then(|(ctx, kind)| {
        let mut reader = UserSlice::new(UserPtr::from_ptr(buf.cast_mut().cast()), count).reader();
        store(ctx, kind, &mut reader)
    });
    match res {
        // CAST: `count` is at most MAX_RW_COUNT (vfs_write), below isize::MAX.
        Ok(()) => count as isize,
        Err(e) => e.to_errno() as isize,
    }
}

/// Methods of the reports; the proxy runs them only while the file exists.
static READ_ONLY: bindings::debugfs_short_fops = bindings::debugfs_short_fops {
    read: Some(read_file),
    write: None,
    llseek: Some(bindings::default_llseek),
};

/// Methods of the command files: nothing to read.
static WRITE_ONLY: bindings::debugfs_short_fops = bindings::debugfs_short_fops {
    read: None,
    write: Some(write_file),
    llseek: Some(bindings::default_llseek),
};

/// One device's directory; dropping it removes the directory, then its data.
pub(crate) struct DeviceDir {
    /// The directory's dentry (or the error debugfs returned, which `debugfs_remove` ignores).
    dir: *mut bindings::dentry,
    /// What the files read, dropped after the directory; boxed so its address, the files' inode
    /// data, never changes.
    _ctx: KBox<DebugCtx>,
}

// SAFETY: `dir` is only passed to `debugfs_remove`, which may run on any thread; `DebugCtx` is
// shared state behind atomics, locks and `Arc`s.
unsafe impl Send for DeviceDir {}
// SAFETY: a shared `DeviceDir` hands out nothing but `&DebugCtx` (see `Send`).
unsafe impl Sync for DeviceDir {}

impl DeviceDir {
    /// Creates `/sys/kernel/debug/xehpg/<name>/` and its files over `ctx`.
    ///
    /// # Errors
    ///
    /// `ENOMEM`, or `ENOENT` outside the module's lifetime. A debugfs failure is not an error
    /// (the kernel's rule for debugfs): the device works without its files.
    pub(crate) fn new(ctx: DebugCtx, name: &CStr) -> Result<Self> {
        let root = root()?;
        let ctx = KBox::new(ctx, GFP_KERNEL)?;
        let data = core::ptr::from_ref::<DebugCtx>(&ctx)
            .cast_mut()
            .cast::<c_void>();
        // SAFETY: `name` is NUL-terminated; `root` is the module's root directory, alive until
        // the driver is unregistered (`RootGuard`), so for as long as any device directory.
        let dir = unsafe { compat::debugfs::create_dir(name, root) };
        for (index, (file, _, access)) in files().enumerate() {
            let (mode, fops) = match access {
                Access::Read => (0o400, &READ_ONLY),
                Access::Command => (0o200, &WRITE_ONLY),
            };
            // SAFETY: `file` is NUL-terminated; `dir` is the directory above (an error pointer
            // makes this fail harmlessly); `data` stays valid until the directory is removed
            // (`Drop`), and `fops` is static. The aux is the index in `FILES` (see `target`).
            unsafe { compat::debugfs::create_file_short(file, mode, dir, data, index, fops) };
        }
        Ok(Self { dir, _ctx: ctx })
    }
}

impl Drop for DeviceDir {
    fn drop(&mut self) {
        // SAFETY: `dir` came from `debugfs_create_dir` and is removed once. `debugfs_remove`
        // waits for the files' callbacks in flight and refuses later ones, so `ctx`, dropped
        // after this, outlives every callback.
        unsafe { compat::debugfs::remove(self.dir) };
    }
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

/// `mcr` commands (for tests and bring-up); see [`run_mcr_command`].
fn store_mcr(c: &DebugCtx, reader: &mut UserSliceReader) -> Result {
    let mut buf = [0u8; 64];
    let cmd = read_command(reader, &mut buf)?;
    let result = c.with_gt(|gt| run_mcr_command(gt, cmd));
    match result {
        Ok(v) => {
            c.mcr_value.store(v, Relaxed);
            c.mcr_errno.store(0, Relaxed);
        }
        Err(e) => c.mcr_errno.store(e.to_errno(), Relaxed),
    }
    result.map(|_| ())
}

/// Largest N of a `ct` load command.
#[cfg(xehpg_test)]
const CT_LOAD_MAX: u32 = 100_000;

/// `ct` (test build): `ping N`, `fast N`, `fast-each N` or `mmio-ping N` runs a load and
/// records its outcome for the next read; the write fails with the first message's error, if
/// any.
#[cfg(xehpg_test)]
fn store_ct(c: &DebugCtx, reader: &mut UserSliceReader) -> Result {
    let mut buf = [0u8; 64];
    let cmd = read_command(reader, &mut buf)?;
    let mut words = cmd.split_ascii_whitespace();
    let (Some(verb), Some(n), None) = (words.next(), words.next(), words.next()) else {
        return Err(EINVAL);
    };
    let kind = crate::guc::LoadKind::parse(verb).ok_or(EINVAL)?;
    let n = n
        .parse::<u32>()
        .ok()
        .filter(|n| (1..=CT_LOAD_MAX).contains(n))
        .ok_or(EINVAL)?;
    let r = c.guc.channel().load(c, kind, n)?;
    match r.error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// `/sys/kernel/debug/xehpg`, parent of one directory per bound device.
///
/// Set by [`RootGuard::install`] in module init before the driver registers and cleared when
/// the guard drops after it unregisters, so every probe sees it. The kernel crate has no
/// per-module data slot yet; nova-core (`drivers/gpu/nova-core/nova_core.rs`) uses the same
/// arrangement for its debugfs root.
static mut ROOT: *mut bindings::dentry = core::ptr::null_mut();

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
        // SAFETY: `name` is NUL-terminated; a NULL parent is the debugfs root.
        let dir = unsafe { compat::debugfs::create_dir(name, core::ptr::null_mut()) };
        // SAFETY: the caller guarantees no probe can run yet, so nothing reads `ROOT`.
        unsafe { *core::ptr::addr_of_mut!(ROOT) = dir };
        Self
    }
}

impl Drop for RootGuard {
    fn drop(&mut self) {
        // SAFETY: `install`'s contract: dropped after the driver is unregistered, so no probe
        // runs and every per-device directory below the root is already gone.
        let dir =
            unsafe { core::ptr::replace(core::ptr::addr_of_mut!(ROOT), core::ptr::null_mut()) };
        // SAFETY: `dir` came from `debugfs_create_dir` (or is NULL or an error pointer, which
        // `debugfs_remove` ignores) and is removed once.
        unsafe { compat::debugfs::remove(dir) };
    }
}

/// The debugfs root for this module.
///
/// # Errors
///
/// `ENOENT` outside the module's lifetime (never seen by a probe).
fn root() -> Result<*mut bindings::dentry> {
    // SAFETY: `ROOT` is written only by `RootGuard::install` before the driver is registered and
    // by `RootGuard::drop` after it is unregistered; probe (the only caller) cannot run outside
    // that window, so no write races this read.
    let dir = unsafe { *core::ptr::addr_of!(ROOT) };
    if dir.is_null() {
        Err(ENOENT)
    } else {
        Ok(dir)
    }
}
