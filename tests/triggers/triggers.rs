// SPDX-License-Identifier: GPL-2.0

//! xehpg_triggers: a test-only module that commits one deliberate bug in its init.
//!
//! Not part of the driver and never shipped: the debug lane's `detectors` suite
//! (`tools/check/src/suites/detectors.rs`) loads it on the debug kernel once per trigger, with
//! `trigger=NAME`, and checks that the matching detector reported on the console. A detector
//! that was silently off (a config line dropped, a report format changed, lockdep disabled by
//! an earlier report) then fails a case instead of passing every "kernel log clean" for free.
//!
//! Every trigger but `overflow` returns from init and the guest unloads the module at once (see
//! the end of [`Triggers::init`] for why init does not fail instead); `overflow` panics, which
//! oopses the loading task and leaves the module stuck half-loaded, so the suite runs it last. Each trigger names the kernel file that prints its
//! report; `tools/check/src/suites/kernel_log.rs` holds the matching console patterns.

use core::hint::black_box;
use kernel::{bindings, error::to_result, new_spinlock, prelude::*, sync::SpinLock};

module! {
    type: Triggers,
    name: "xehpg_triggers",
    authors: ["xehpg developers"],
    description: "Test-only: commits one deliberate bug per load to prove a debug-kernel detector live",
    license: "GPL v2",
}

extern "C" {
    /// The `trigger` module parameter (`glue.c`).
    fn xehpg_trigger_name() -> *const kernel::ffi::c_char;
    /// `1 << amount` in C, for UBSAN's shift check (`glue.c`).
    fn xehpg_trigger_ubsan_shift(amount: kernel::ffi::c_uint) -> kernel::ffi::c_int;
    /// `a[index]` on an `int a[4]` in C, for UBSAN's array-bounds check (`glue.c`).
    fn xehpg_trigger_ubsan_bounds(index: kernel::ffi::c_uint) -> kernel::ffi::c_int;
    /// `WARN_ON(cond)` in C (`glue.c`).
    fn xehpg_trigger_warn(cond: bool);
    /// Frees an object with a pending timer in it, for debugobjects (`glue.c`).
    fn xehpg_trigger_free_active_timer() -> kernel::ffi::c_int;
}

/// How many objects the `leak` trigger drops, and their size: the epilogue's gap was found
/// with this very leak (16 `kzalloc(512)`, `Documentation/testing.rst`).
const LEAK_OBJECTS: usize = 16;
const LEAK_SIZE: usize = 512;

struct Triggers;

impl kernel::Module for Triggers {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        // SAFETY: the glue returns its static, NUL-terminated parameter buffer, which lives as
        // long as the module and is written only while the module is being loaded (mode 0400).
        let name = unsafe { CStr::from_char_ptr(xehpg_trigger_name()) };
        let name = name.to_str().map_err(|_| EINVAL)?;
        pr_info!("trigger {name}\n");
        match name {
            // The control: a load that does nothing wrong must leave its console segment clean.
            // It also says whether CONFIG_RUST_DEBUG_ASSERTIONS reached the module's build:
            // `debug_assert!` failing would panic like `overflow`, and one panic per boot is
            // all the suite can afford, so the switch is read instead of tripped.
            "none" => pr_info!(
                "debug_assertions {}\n",
                if cfg!(debug_assertions) { "on" } else { "off" }
            ),
            "lockdep" => lock_order_inversion()?,
            "atomic-sleep" => sleep_under_spinlock()?,
            "ubsan-shift" => {
                // SAFETY: plain C arithmetic on a value; the undefined shift is the point (see
                // glue.c) and does not touch memory.
                black_box(unsafe { xehpg_trigger_ubsan_shift(black_box(32)) });
            }
            "ubsan-bounds" => {
                // SAFETY: the index 4 is out of `a[4]`'s bounds but inside its enclosing struct
                // (see glue.c), so the load reads initialised memory of a live object.
                black_box(unsafe { xehpg_trigger_ubsan_bounds(black_box(4)) });
            }
            "warn" => {
                // SAFETY: a WARN_ON in C (see glue.c for why not `warn_on!`); it only reports.
                unsafe { xehpg_trigger_warn(black_box(true)) };
            }
            "list" => list_corruption(),
            "debugobjects" => {
                // SAFETY: the helper allocates, arms and frees its own object; debugobjects'
                // fixup deletes the timer before the memory goes (see glue.c).
                to_result(unsafe { xehpg_trigger_free_active_timer() })?;
            }
            "leak" => leak()?,
            "kasan" => use_after_free()?,
            "overflow" => overflow(),
            _ => {
                pr_err!("unknown trigger {name:?}\n");
                return Err(EINVAL);
            }
        }
        // Init succeeds and the guest unloads the module at once. Failing init would be the
        // simpler way not to stay loaded, but busybox's insmod (modutils/modutils.c,
        // bb_init_module) answers any finit_module error by loading the image again with
        // init_module: every trigger would run twice.
        Ok(Triggers)
    }
}

/// Takes lock A then B, drops both, then takes B then A. One task cannot deadlock itself this
/// way, but lockdep records the A -> B dependency at the first nesting and finds the cycle when
/// B -> A is added: `check_noncircular` fails and `print_circular_bug_header`
/// (kernel/locking/lockdep.c) prints "WARNING: possible circular locking dependency detected".
/// Each `new_spinlock!` has its own static lock class, so A and B are distinct classes. Lockdep
/// reports only while `debug_locks` is set, and its first report clears it: this trigger must be
/// the first lockdep report of the boot.
fn lock_order_inversion() -> Result {
    let a = KBox::pin_init(new_spinlock!(0u32, "xehpg_trigger_lock_a"), GFP_KERNEL)?;
    let b = KBox::pin_init(new_spinlock!(0u32, "xehpg_trigger_lock_b"), GFP_KERNEL)?;
    {
        let _a = a.lock();
        let _b = b.lock();
    }
    {
        let _b = b.lock();
        let _a = a.lock();
    }
    Ok(())
}

/// A `GFP_KERNEL` allocation (which may sleep to reclaim memory) while holding a spinlock, the
/// classic driver bug. The slab allocator's `might_alloc` (include/linux/sched/mm.h, called from
/// `slab_pre_alloc_hook` in mm/slub.c) calls `might_sleep_if`, and `__might_resched`
/// (kernel/sched/core.c) sees a non-zero preempt count and prints "BUG: sleeping function called
/// from invalid context". It reports at most once per second (its `prev_jiffy` rate limit).
fn sleep_under_spinlock() -> Result {
    let lock: Pin<KBox<SpinLock<u32>>> =
        KBox::pin_init(new_spinlock!(0u32, "xehpg_trigger_atomic"), GFP_KERNEL)?;
    let _guard = lock.lock();
    let _sleepy = KBox::new(black_box(0u64), GFP_KERNEL)?;
    Ok(())
}

/// Adds an entry after a list entry whose `next` no longer points back at the head. The
/// `CONFIG_DEBUG_LIST` check `__list_add_valid_or_report` (lib/list_debug.c) sees
/// `prev->next != next`, prints "list_add corruption. prev->next should be next (...)" under a
/// WARN (`CHECK_DATA_CORRUPTION`, include/linux/bug.h; no BUG_ON_DATA_CORRUPTION here) and refuses
/// the add, so the corrupted list on this stack frame is never walked or changed.
fn list_corruption() {
    let empty = bindings::list_head {
        next: core::ptr::null_mut(),
        prev: core::ptr::null_mut(),
    };
    // head, first, stray, new; reached only through `p` once the C side has them, so no Rust
    // reference goes stale under it.
    let mut nodes = [empty; 4];
    let p = nodes.as_mut_ptr();
    // SAFETY: the four `list_head`s live in this frame, are not moved while linked, and the list
    // dies with the frame. `head` and `first` form a valid list before the deliberate damage;
    // the add after it is refused by the check, so no pointer into `stray` or `new` is followed.
    unsafe {
        let (head, first, stray, new) = (p, p.add(1), p.add(2), p.add(3));
        bindings::INIT_LIST_HEAD(head);
        bindings::INIT_LIST_HEAD(stray);
        bindings::list_add_tail(first, head);
        // The corruption: the last entry's `next` should be `head`.
        core::ptr::write_volatile(&raw mut (*first).next, stray);
        bindings::list_add_tail(new, head);
    }
    black_box(&nodes);
}

/// Drops [`LEAK_OBJECTS`] zeroed allocations of [`LEAK_SIZE`] bytes without freeing them. After
/// kmemleak's minimum age and a scan (mm/kmemleak.c: `kmemleak_scan` prints "N new suspected
/// memory leaks", `print_unreferenced` the "unreferenced object 0x... (size 512)" entries of
/// /sys/kernel/debug/kmemleak), each must be reported, provided no stale copy of its address is
/// left in scanned memory (see `kmemleak_scan_report` in tools/guest/lib.sh).
fn leak() -> Result {
    for i in 0..LEAK_OBJECTS {
        let object = KBox::new([0u8; LEAK_SIZE], GFP_KERNEL)?;
        // The bug: the only pointer to the object is thrown away. Its address goes to the log
        // as text (which kmemleak does not take for a pointer), so a missed object can be
        // looked up with `echo dump=ADDR > /sys/kernel/debug/kmemleak`.
        let leaked = KBox::into_raw(object);
        pr_info!("leaked object {i} at {:#x}\n", leaked as usize);
    }
    Ok(())
}

/// Frees an object and reads it afterwards. The read is instrumented (Rust objects get
/// `-Zsanitizer=kernel-address`, scripts/Makefile.kasan), the freed object sits poisoned in
/// KASAN's quarantine, so `kasan_report` (mm/kasan/report.c, `print_error_description`) prints
/// "BUG: KASAN: slab-use-after-free". KASAN reports once per boot (without kasan_multi_shot)
/// and its report taints the kernel, which turns lockdep off: this trigger comes after the
/// lockdep one.
fn use_after_free() -> Result {
    let object = KBox::new([0x5au64; 8], GFP_KERNEL)?;
    let stale: *const u64 = object.as_ptr();
    drop(object);
    // SAFETY: NOT sound, on purpose: `stale` points into the object freed just above. The read
    // is the use-after-free KASAN must report; the quarantine keeps the memory mapped, so the
    // read itself returns garbage rather than faulting.
    black_box(unsafe { core::ptr::read_volatile(stale) });
    Ok(())
}

/// `u8::MAX + 1` with `CONFIG_RUST_OVERFLOW_CHECKS` (`-Coverflow-checks=on`): the addition
/// panics, and the kernel crate's panic handler (rust/kernel/lib.rs, `panic`) prints
/// "panicked at <file>:<line>:<col>: attempt to add with overflow" and calls BUG(), which
/// oopses the loading task. Without the option the sum would silently wrap to 0.
fn overflow() {
    let max: u8 = black_box(u8::MAX);
    black_box(max + black_box(1));
}
