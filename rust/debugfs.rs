// SPDX-License-Identifier: GPL-2.0

//! Files under `/sys/kernel/debug/xehpg/<pci address>/` (formats in
//! `Documentation/debugfs.rst`).
//!
//! debugfs data must be `'static`, but the state it shows lives in the bound device's data.
//! [`DeviceRefs`] carries raw pointers to those fields; the directory ([`debugfs::Scope`]) is
//! the first field of [`Xehpg`](crate::driver::Xehpg) to drop, and removing it waits for
//! callbacks in flight, so no callback can see the pointers dangle.

use kernel::{
    debugfs::{self, ScopedDir},
    fmt,
    prelude::*,
    sync::atomic::{Atomic, Relaxed},
    uaccess::UserSliceReader,
};

use crate::{
    gt::{
        forcewake::{self, Forcewake},
        mcr::{self, regs, Mcr, Target},
        AccessStats, Gt,
    },
    guc::{self, Guc, State},
    info::DeviceInfo,
    mmio::{Bar0, Mmio},
};

/// Pointers to the bound device's state (see the module documentation for why they are valid).
pub(crate) struct DeviceRefs {
    pub(crate) dev: *const kernel::device::Device,
    pub(crate) bar: *const Mmio<'static>,
    pub(crate) fw: *const Forcewake,
    pub(crate) mcr: *const Mcr,
    pub(crate) stats: *const AccessStats,
    pub(crate) guc: *const Guc,
}

// SAFETY: the pointees are `Sync` device state that outlives every debugfs callback (module
// documentation); the pointers are only dereferenced as shared references.
unsafe impl Send for DeviceRefs {}
// SAFETY: as above.
unsafe impl Sync for DeviceRefs {}

impl DeviceRefs {
    fn gt(&self) -> Gt<'_> {
        // SAFETY: valid for as long as any debugfs callback runs (module documentation).
        unsafe {
            Gt {
                dev: &*self.dev,
                bar: &*self.bar.cast::<Mmio<'_>>(),
                fw: &*self.fw,
                stats: &*self.stats,
            }
        }
    }

    fn mcr(&self) -> &Mcr {
        // SAFETY: as in `gt`.
        unsafe { &*self.mcr }
    }

    fn guc(&self) -> &Guc {
        // SAFETY: as in `gt`.
        unsafe { &*self.guc }
    }

    fn bar(&self) -> Bar0<'_> {
        self.gt().bar
    }
}

/// What the per-device directory's files read from.
pub(crate) struct DebugCtx {
    pub(crate) info: DeviceInfo,
    pub(crate) refs: DeviceRefs,
    /// Outcome of the last `mcr` command: value and errno (0 = success).
    mcr_value: Atomic<u32>,
    mcr_errno: Atomic<i32>,
}

impl DebugCtx {
    pub(crate) fn new(info: DeviceInfo, refs: DeviceRefs) -> Self {
        Self {
            info,
            refs,
            mcr_value: Atomic::new(0),
            mcr_errno: Atomic::new(0),
        }
    }
}

/// Creates the files in `dir`.
pub(crate) fn populate<'a>(ctx: &'a DebugCtx, dir: &ScopedDir<'a, '_>) {
    dir.read_callback_file(c"info", ctx, &|c: &DebugCtx, f| {
        fmt::Display::fmt(&c.info, f)
    });
    dir.read_callback_file(c"forcewake", ctx, &show_forcewake);
    dir.read_write_callback_file(
        c"forcewake_all",
        ctx,
        &show_forcewake_all,
        &store_forcewake_all,
    );
    dir.read_callback_file(c"steering", ctx, &show_steering);
    dir.read_callback_file(c"topology", ctx, &show_topology);
    dir.read_write_callback_file(c"mcr", ctx, &show_mcr, &store_mcr);
    dir.read_callback_file(c"mmio_stats", ctx, &show_mmio_stats);
    dir.read_callback_file(c"guc_info", ctx, &show_guc_info);
    dir.read_callback_file(c"hwconfig", ctx, &show_hwconfig);
}

fn show_forcewake(c: &DebugCtx, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let gt = c.refs.gt();
    f.write_str("domain   present refs ack wakes\n")?;
    for s in gt.fw.status().iter() {
        f.write_fmt(fmt!(
            "{:<8} {:<7} {:>4} {:>3} {:>5}\n",
            fmt!("{}", s.domain),
            if s.present { "yes" } else { "no" },
            s.refs,
            u8::from(s.ack_seen),
            s.wakes
        ))?;
    }
    f.write_fmt(fmt!("failures: {}\n", gt.fw.failures()))?;
    f.write_fmt(fmt!("unheld_accesses: {}\n", gt.stats.unheld.load(Relaxed)))?;
    f.write_fmt(fmt!(
        "unsteered_accesses: {}\n",
        gt.stats.unsteered.load(Relaxed)
    ))
}

fn show_forcewake_all(c: &DebugCtx, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    f.write_fmt(fmt!("{}\n", u8::from(c.refs.gt().fw.user_holds())))
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
    let gt = c.refs.gt();
    match read_command(reader, &mut buf)? {
        "1" => gt.fw.user_hold(gt.dev, c.refs.bar()),
        "0" => {
            gt.fw.user_release(gt.dev, c.refs.bar());
            Ok(())
        }
        _ => Err(EINVAL),
    }
}

fn show_steering(c: &DebugCtx, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let topo = c.refs.mcr().topology();
    f.write_str("group        target\n")?;
    for s in mcr::STEERING_TYPES {
        match mcr::default_target(s, &topo) {
            Some(t) => f.write_fmt(fmt!("{:<12} {},{}\n", s.name(), t.group, t.instance))?,
            None => f.write_fmt(fmt!("{:<12} none\n", s.name()))?,
        }
    }
    Ok(())
}

fn show_topology(c: &DebugCtx, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let t = c.refs.mcr().topology();
    f.write_fmt(fmt!("dss_geometry: {:#010x}\n", t.dss_geometry))?;
    f.write_fmt(fmt!("dss_compute: {:#010x}\n", t.dss_compute))?;
    f.write_fmt(fmt!("dss_count: {}\n", t.dss().count_ones()))?;
    f.write_fmt(fmt!("meml3: {:#x}\n", t.meml3))?;
    f.write_fmt(fmt!("mslice_mask: {:#x}\n", t.mslice_mask()))?;
    f.write_fmt(fmt!("l3bank_mask: {:#010x}\n", t.l3bank_mask()))?;
    f.write_fmt(fmt!("vdbox_mask: {:#x}\n", t.vdbox))?;
    f.write_fmt(fmt!("vebox_mask: {:#x}\n", t.vebox))
}

fn show_mmio_stats(c: &DebugCtx, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let bar = c.refs.bar();
    let (reads, writes) = bar.counts();
    f.write_fmt(fmt!("reads: {}\nwrites: {}\n", reads, writes))?;
    f.write_fmt(fmt!("gsm_writes: {}\n", bar.gsm_writes()))
}

fn show_guc_info(c: &DebugCtx, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    c.refs.guc().with_state(|st| {
        match &st.path {
            Some(p) => f.write_fmt(fmt!("firmware: {}\n", p.to_str().unwrap_or("?")))?,
            None => f.write_str("firmware: none\n")?,
        }
        if let Some(css) = st.css {
            f.write_fmt(fmt!("release: {}\n", css.release))?;
            f.write_fmt(fmt!("submission: {}\n", css.submission))?;
            f.write_fmt(fmt!("ucode_size: {:#x}\n", css.ucode_bytes))?;
            f.write_fmt(fmt!("rsa_size: {:#x}\n", css.key_bytes))?;
            f.write_fmt(fmt!("private_data_size: {:#x}\n", css.private_data_bytes))?;
        }
        let state = match st.state {
            State::NotLoaded => "not loaded",
            State::Running => "running",
            State::Failed => "failed",
        };
        f.write_fmt(fmt!("status: {}\n", state))?;
        let s = guc::Status::decode(st.status);
        f.write_fmt(fmt!(
            "guc_status: {:#010x} (ukernel {:#04x} {}, bootrom {:#04x} {}, auth {})\n",
            st.status,
            s.ukernel,
            guc::ukernel_name(s.ukernel),
            s.bootrom,
            guc::bootrom_name(s.bootrom),
            s.auth
        ))?;
        if let Some((base, size, locked)) = st.wopcm {
            let how = if locked { "found locked" } else { "programmed" };
            f.write_fmt(fmt!("wopcm: base {:#x} size {:#x} ({})\n", base, size, how))?;
        }
        f.write_fmt(fmt!("load_time_us: {}\n", st.load_us))?;
        f.write_fmt(fmt!(
            "load_mmio: reads {} writes {}\n",
            st.load_mmio.0,
            st.load_mmio.1
        ))?;
        f.write_fmt(fmt!("hwconfig_dwords: {}\n", st.hwconfig.len()))?;
        match st.error {
            Some((step, e)) => f.write_fmt(fmt!("last_error: {}: {:?}\n", step, e)),
            None => f.write_str("last_error: none\n"),
        }
    })
}

/// The hwconfig table, one `[key] = value` line per attribute (multi-dword values in hex,
/// space separated), as upstream's dump (`xe_guc_hwconfig.c`).
fn show_hwconfig(c: &DebugCtx, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    c.refs.guc().with_state(|st| {
        let table = &st.hwconfig;
        let mut i = 0;
        // The table was bounds-checked when it was read (`guc::check_klvs`).
        while i + 2 <= table.len() {
            let (key, len) = (table[i], table[i + 1] as usize);
            let values = table.get(i + 2..i + 2 + len).unwrap_or(&[]);
            f.write_fmt(fmt!("[{:2}] =", key))?;
            for v in values {
                f.write_fmt(fmt!(" {}", v))?;
            }
            f.write_str("\n")?;
            i += 2 + len;
        }
        Ok(())
    })
}

fn show_mcr(c: &DebugCtx, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    match c.mcr_errno.load(Relaxed) {
        0 => f.write_fmt(fmt!("{:#010x}\n", c.mcr_value.load(Relaxed))),
        e => f.write_fmt(fmt!("error {}\n", e)),
    }
}

fn parse_u32(s: &str) -> Result<u32> {
    match s.strip_prefix("0x") {
        Some(hex) => u32::from_str_radix(hex, 16),
        None => s.parse(),
    }
    .map_err(|_| EINVAL)
}

fn parse_u8(s: &str) -> Result<u8> {
    u8::try_from(parse_u32(s)?).map_err(|_| EINVAL)
}

/// `mcr` commands (for tests and bring-up), on the registers of [`regs::ALL`] only:
/// `read NAME`, `read NAME GROUP INSTANCE`, `write NAME GROUP INSTANCE VALUE`,
/// `write NAME all VALUE`. Forcewake for the register's domain is taken for the command.
fn store_mcr(c: &DebugCtx, reader: &mut UserSliceReader) -> Result {
    let mut buf = [0u8; 64];
    let cmd = read_command(reader, &mut buf)?;
    let result = run_mcr(c, cmd);
    match result {
        Ok(v) => {
            c.mcr_value.store(v, Relaxed);
            c.mcr_errno.store(0, Relaxed);
        }
        Err(e) => c.mcr_errno.store(e.to_errno(), Relaxed),
    }
    result.map(|_| ())
}

fn run_mcr(c: &DebugCtx, cmd: &str) -> Result<u32> {
    let mut words = cmd.split_ascii_whitespace();
    let op = words.next().ok_or(EINVAL)?;
    let reg = regs::by_name(words.next().ok_or(EINVAL)?).ok_or(ENOENT)?;
    let args: KVec<&str> = {
        let mut v = KVec::new();
        for w in words {
            v.push(w, GFP_KERNEL)?;
        }
        v
    };
    let gt = c.refs.gt();
    let mcr = c.refs.mcr();
    let mask = match forcewake::lookup(reg.offset) {
        forcewake::Wake::Domain(d) => d.bit(),
        forcewake::Wake::None => forcewake::DomainMask::EMPTY,
    };
    let _fw = gt.forcewake(mask)?;
    let target = |g: &str, i: &str| -> Result<Target> {
        Ok(Target {
            group: parse_u8(g)?,
            instance: parse_u8(i)?,
        })
    };
    match (op, args.as_slice()) {
        ("read", []) => mcr.read_any(&gt, reg),
        ("read", [g, i]) => mcr.read_unicast(&gt, reg, target(g, i)?),
        ("write", ["all", v]) => mcr.write_multicast(&gt, reg, parse_u32(v)?).map(|()| 0),
        ("write", [g, i, v]) => mcr
            .write_unicast(&gt, reg, target(g, i)?, parse_u32(v)?)
            .map(|()| 0),
        _ => Err(EINVAL),
    }
}

/// The debugfs root for this module, or an error if it could not be created.
pub(crate) fn root() -> Result<&'static debugfs::Dir> {
    crate::debugfs_root().ok_or(ENOENT)
}
