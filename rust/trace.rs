// SPDX-License-Identifier: GPL-2.0

//! Trace events (`TRACE_SYSTEM xehpg`) and the dynamic debug messages of the slow paths.
//!
//! The events are defined in C (`rust/xehpg_trace.h`, instantiated in `rust/xehpg_trace.c`):
//! 7.3's `kernel::declare_trace!` reaches a tracepoint through the kernel crate's generated
//! bindings, which only the kernel's own headers feed, so a module cannot declare events of its
//! own with it. Each function here is one call into C whose body is the tracepoint: with the
//! event off it costs the call and a static-key test, and touches no device. Strings go to C
//! as pointer and length and are copied only into an enabled event's record.
//! `Documentation/tracing.rst` lists the events and their fields.
//!
//! [`dyn_dbg!`] is the driver's debug message: a dynamic debug call site where the
//! kernel has dynamic debug (7.3's `dev_dbg!` is not one: it prints only in a kernel built with
//! Rust debug assertions, `rust/kernel/device.rs`), the kernel crate's `dev_dbg!` elsewhere.
//!
//! A bottom layer, like `mmio`: it imports no driver block (`tools/check/layers.toml`). Every
//! event function may be called in any context, the interrupt top half included.

use kernel::{device::Device, ffi::c_void};

// Defined in rust/xehpg_trace.c, declared in rust/xehpg_trace.h.
extern "C" {
    fn xehpg_trace_h2g(
        dev: *const c_void,
        action: u32,
        fence: u32,
        len: u32,
        tail: u32,
        fast: bool,
    );
    fn xehpg_trace_g2h(dev: *const c_void, kind: u32, action: u32, fence: u32, len: u32, head: u32);
    fn xehpg_trace_ctx_register(dev: *const c_void, e: *const u8, n: usize, id: u32, class: u32);
    fn xehpg_trace_ctx_sched_enable(
        dev: *const c_void,
        e: *const u8,
        n: usize,
        id: u32,
        class: u32,
    );
    fn xehpg_trace_ctx_sched_disable(
        dev: *const c_void,
        e: *const u8,
        n: usize,
        id: u32,
        class: u32,
    );
    fn xehpg_trace_ctx_sched_done(
        dev: *const c_void,
        e: *const u8,
        n: usize,
        id: u32,
        class: u32,
        enabled: bool,
    );
    fn xehpg_trace_ctx_deregister(dev: *const c_void, e: *const u8, n: usize, id: u32, class: u32);
    fn xehpg_trace_ctx_deregister_done(
        dev: *const c_void,
        e: *const u8,
        n: usize,
        id: u32,
        class: u32,
    );
    fn xehpg_trace_ctx_reset(dev: *const c_void, e: *const u8, n: usize, id: u32, class: u32);
    fn xehpg_trace_engine_failure(dev: *const c_void, class: u32, instance: u32, reason: u32);
    fn xehpg_trace_gt_reset(dev: *const c_void, p: *const u8, pn: usize, w: *const u8, wn: usize);
    fn xehpg_trace_irq(
        dev: *const c_void,
        s: *const u8,
        n: usize,
        bank: u32,
        bit: u32,
        vector: u32,
    );
    fn xehpg_trace_vf_provision(dev: *const c_void, vf: u32, s: *const u8, n: usize);
    fn xehpg_trace_vf_flr(
        dev: *const c_void,
        vf: u32,
        i: *const u8,
        in_: usize,
        f: *const u8,
        fn_: usize,
        t: *const u8,
        tn: usize,
    );
    #[cfg(CONFIG_DYNAMIC_DEBUG_CORE)]
    fn xehpg_dbg(dev: *const c_void, args: *const c_void);
}

/// The C `struct device` behind `dev`: a cast, as `Device` is `#[repr(transparent)]` over it.
fn raw(dev: &Device) -> *const c_void {
    core::ptr::from_ref(dev).cast::<c_void>()
}

/// A step of a GuC submission context's life ([`ctx`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum CtxStep {
    /// `REGISTER_CONTEXT` accepted.
    Register,
    /// `SCHED_CONTEXT_MODE_SET` enable about to go out.
    SchedEnable,
    /// `SCHED_CONTEXT_MODE_SET` disable about to go out.
    SchedDisable,
    /// `SCHED_CONTEXT_MODE_DONE` received, confirming enabled (true) or disabled.
    SchedDone(bool),
    /// `DEREGISTER_CONTEXT` about to go out.
    Deregister,
    /// `DEREGISTER_CONTEXT_DONE` received.
    DeregisterDone,
    /// `CONTEXT_RESET_NOTIFICATION` received.
    Reset,
}

/// `xehpg_h2g`: a message written into H2G and published; `len` in dwords with its CTB
/// header, `tail` the ring's tail after it (dwords).
#[inline]
pub(crate) fn h2g(dev: &Device, action: u32, fence: u16, len: u32, tail: u32, fast: bool) {
    // SAFETY: `dev` is a live device for the call; the C function only records its name.
    unsafe { xehpg_trace_h2g(raw(dev), action, fence.into(), len, tail, fast) };
}

/// The `kind` of a G2H message [`g2h`] records that has no type the host takes (shown as
/// `malformed`).
pub(crate) const G2H_MALFORMED: u32 = 255;

/// `xehpg_g2h`: a message read out of G2H; `kind` its HXG type (255 when it has none that the
/// host takes: [`G2H_MALFORMED`]), `action` an event's action (0 for a reply), `head` the ring's head after it.
#[inline]
pub(crate) fn g2h(dev: &Device, kind: u32, action: u32, fence: u16, len: u32, head: u32) {
    // SAFETY: as in `h2g`.
    unsafe { xehpg_trace_g2h(raw(dev), kind, action, fence.into(), len, head) };
}

/// The `xehpg_ctx_*` event of `step` for context `id` of GuC class `class` on `engine`.
#[inline]
pub(crate) fn ctx(dev: &Device, step: CtxStep, engine: &str, id: u16, class: u32) {
    let (d, e, n, id) = (raw(dev), engine.as_ptr(), engine.len(), u32::from(id));
    // SAFETY: `dev` is a live device and `e` points at `n` bytes, both for the call; the C
    // functions copy what they record.
    unsafe {
        match step {
            CtxStep::Register => xehpg_trace_ctx_register(d, e, n, id, class),
            CtxStep::SchedEnable => xehpg_trace_ctx_sched_enable(d, e, n, id, class),
            CtxStep::SchedDisable => xehpg_trace_ctx_sched_disable(d, e, n, id, class),
            CtxStep::SchedDone(on) => xehpg_trace_ctx_sched_done(d, e, n, id, class, on),
            CtxStep::Deregister => xehpg_trace_ctx_deregister(d, e, n, id, class),
            CtxStep::DeregisterDone => xehpg_trace_ctx_deregister_done(d, e, n, id, class),
            CtxStep::Reset => xehpg_trace_ctx_reset(d, e, n, id, class),
        }
    }
}

/// `xehpg_engine_failure`: the GuC could not reset engine `class`:`instance`.
#[inline]
pub(crate) fn engine_failure(dev: &Device, class: u32, instance: u32, reason: u32) {
    // SAFETY: as in `h2g`.
    unsafe { xehpg_trace_engine_failure(raw(dev), class, instance, reason) };
}

/// `xehpg_gt_reset`: the GT reset reached `phase`; `why` names what asked for it.
#[inline]
pub(crate) fn gt_reset(dev: &Device, phase: &str, why: &str) {
    // SAFETY: as in `ctx`, for both strings.
    unsafe {
        xehpg_trace_gt_reset(
            raw(dev),
            phase.as_ptr(),
            phase.len(),
            why.as_ptr(),
            why.len(),
        )
    };
}

/// `xehpg_irq`: the top half dispatched `vector` of `source`, found at `bank`, `bit`.
#[inline]
pub(crate) fn irq(dev: &Device, source: &str, bank: u8, bit: u8, vector: u16) {
    let (s, n) = (source.as_ptr(), source.len());
    // SAFETY: as in `ctx`.
    unsafe { xehpg_trace_irq(raw(dev), s, n, bank.into(), bit.into(), vector.into()) };
}

/// `xehpg_vf_provision`: VF `vf` went through provisioning step `step`.
#[inline]
pub(crate) fn vf_provision(dev: &Device, vf: u16, step: &str) {
    // SAFETY: as in `ctx`.
    unsafe { xehpg_trace_vf_provision(raw(dev), vf.into(), step.as_ptr(), step.len()) };
}

/// `xehpg_vf_flr`: VF `vf`'s FLR went from `from` to `to` on `input`.
#[inline]
pub(crate) fn vf_flr(dev: &Device, vf: u16, input: &str, from: &str, to: &str) {
    // SAFETY: as in `ctx`, for the three strings.
    unsafe {
        xehpg_trace_vf_flr(
            raw(dev),
            vf.into(),
            input.as_ptr(),
            input.len(),
            from.as_ptr(),
            from.len(),
            to.as_ptr(),
            to.len(),
        )
    };
}

/// Prints `args` at debug level for `dev` when turned on (module docs); [`dyn_dbg!`] calls it.
/// `args` is formatted only when the message prints. Any context printk allows; the driver
/// prints from its slow paths (process context).
pub(crate) fn dbg(dev: &Device, args: kernel::fmt::Arguments<'_>) {
    #[cfg(CONFIG_DYNAMIC_DEBUG_CORE)]
    // SAFETY: `dev` is a live device and `args` a `fmt::Arguments` for the call: what `%pA`
    // formats (the kernel's own Rust printing passes the same).
    unsafe {
        xehpg_dbg(raw(dev), core::ptr::from_ref(&args).cast::<c_void>())
    };
    #[cfg(not(CONFIG_DYNAMIC_DEBUG_CORE))]
    dev.pr_dbg(args);
}

/// A debug message of the driver's for a device: `trace::dyn_dbg!(dev, "fmt", args...)`, as
/// `dev_dbg!` but a dynamic debug call site where the kernel has dynamic debug (`dbg`, above).
macro_rules! dyn_dbg {
    ($dev:expr, $($f:tt)*) => {
        $crate::trace::dbg($dev.as_ref(), ::kernel::prelude::fmt!($($f)*))
    };
}
pub(crate) use dyn_dbg;
