// SPDX-License-Identifier: GPL-2.0

//! Where the 7.3 kernel crate lacks an abstraction and the driver goes around it, in one place.
//!
//! Each item says what it works around and which upstream change would let it go; when that
//! change lands, the item is deleted and its callers use the kernel crate directly. Only the
//! low-level steps live here; the blocks that use them (IRQ, PCI binding, debugfs) keep their
//! own logic. C stays in `rust/xehpg_glue.c`; this module holds the Rust side of it that is a
//! workaround (the `sriov_configure` hook), not the glue's other services.
//!
//! A bottom layer, like `mmio`: it imports no driver block (`tools/check/layers.toml`).

/// The IRQ request's lifetime.
///
/// In 7.3, `pci::IrqVectorRegistration::index` hands out an `IrqVector<'_>` borrowed from the
/// registration (`rust/kernel/pci/irq.rs`), so the `IrqRequest` made from it cannot be stored
/// next to the registration in one struct (a self-borrow), which is where both must live for
/// the device's bound lifetime. Removed by an upstream `kernel::pci` in which a vector's request
/// is tied to the bound device's lifetime rather than to the borrow of the allocation (for
/// example, `index` on a registration owned by `Devres`, or a `ThreadedRegistration` that owns
/// the vector allocation it uses); not in 7.3.
pub(crate) mod irq {
    use kernel::irq::IrqRequest;

    /// `request`, with its lifetime widened from the borrow of its vector allocation to
    /// `'bound`. Any context.
    ///
    /// # Safety
    ///
    /// The vector allocation `request` was made from outlives every use of the returned
    /// request: it is kept until the IRQ registration made with it is freed (e.g. both are
    /// fields of one struct, the registration dropped first), and on every failure path the
    /// registration is never made without the allocation in place.
    pub(crate) unsafe fn for_bound<'bound>(request: IrqRequest<'_>) -> IrqRequest<'bound> {
        // SAFETY: an `IrqRequest` is an IRQ number and a lifetime marker, the same layout for
        // any lifetime; the lifetime stands for "the vector is allocated", which the caller
        // guarantees for `'bound` as far as the request is used.
        unsafe { core::mem::transmute::<IrqRequest<'_>, IrqRequest<'bound>>(request) }
    }
}

/// Driver data reached from C.
///
/// The glue's `sriov_configure` (called by the PCI core, device lock held) hands Rust the
/// `pci_get_drvdata` pointer. 7.3 stores the driver's data with `Device::set_drvdata` but keeps
/// its typed borrow (`Device::drvdata_borrow`, `rust/kernel/device.rs`) to the driver core's
/// internal contexts. Removed by upstream support for `sriov_configure` in `kernel::pci::Driver`
/// (below), which would call the driver with its data already borrowed, or by a public typed
/// drvdata borrow for a bound device; neither is in 7.3.
pub(crate) mod drvdata {
    use kernel::ffi::c_void;

    /// The driver's data behind `data`. Any context in which the device stays bound.
    ///
    /// # Safety
    ///
    /// `data` is the driver data of a bound device, stored by the driver core from a pinned
    /// `T` (the type the driver's `pci::Driver::Data` is), and the device stays bound (its
    /// lock held) for `'a`.
    pub(crate) unsafe fn borrow<'a, T>(data: *mut c_void) -> &'a T {
        // SAFETY: by the function's contract `data` points at the pinned `T`, alive and not
        // moving while the device stays bound.
        unsafe { &*data.cast::<T>() }
    }
}

/// `sriov_configure`.
///
/// The PCI core calls a driver's `sriov_configure` when `sriov_numvfs` is written; 7.3's
/// `kernel::pci::Driver` has no such method (`rust/kernel/pci.rs` offers only
/// `sriov_get_totalvfs`), so the glue installs its own on the driver at probe and calls Rust
/// back (`xehpg_sriov_provision` / `xehpg_sriov_unprovision`, `rust/driver.rs`). Removed by an
/// upstream `pci::Driver::sriov_configure` (with `pci_enable_sriov` / `pci_disable_sriov` on
/// `pci::Device`); not in 7.3. xe's C equivalent is `xe_pci_sriov_configure`.
pub(crate) mod sriov {
    use kernel::{
        device::{Bound, DeviceContext},
        ffi::{c_uint, c_void},
        pci,
        prelude::*,
    };

    // Defined by the glue (rust/xehpg_glue.c, declared in rust/xehpg_glue.h).
    extern "C" {
        fn xehpg_sriov_hook(pdev: *mut c_void);
        fn xehpg_sriov_disable(pdev: *mut c_void);
        fn xehpg_sriov_sysfs_add(
            pdev: *mut c_void,
            pf: *const c_void,
            total: c_uint,
        ) -> *mut c_void;
        fn xehpg_sriov_sysfs_remove(handle: *mut c_void);
    }

    /// The C `struct pci_dev` behind `pdev`: a cast, as `pci::Device` is
    /// `#[repr(transparent)]` over it.
    fn raw<Ctx: DeviceContext>(pdev: &pci::Device<Ctx>) -> *mut c_void {
        core::ptr::from_ref(pdev).cast::<c_void>().cast_mut()
    }

    /// The VFs of a PF whose `sriov_numvfs` the driver serves: dropping it disables them (and
    /// the PCI core removes their devices) before the PF's state goes, and gives
    /// `sriov_totalvfs` its value back.
    pub(crate) struct Vfs<'bound> {
        pdev: &'bound pci::Device<Bound>,
        /// TotalVFs as the capability says, restored at drop when it was lowered.
        total: u16,
        lowered: bool,
    }

    impl<'bound> Vfs<'bound> {
        /// Installs the glue's `sriov_configure` on `pdev`'s driver, so that `sriov_numvfs`
        /// writes reach it, and returns the guard that disables the VFs they enable.
        /// `sriov_totalvfs` becomes `offered` when that is below the capability's `total`: 0
        /// for a PF that cannot run VFs, so that `sriov_numvfs` refuses every count (upstream
        /// `xe_sriov.c` `xe_sriov_probe_early`, `xe_sriov_pf.c` `pf_reduce_totalvfs`); a
        /// failure to lower it is logged, and the driver's own refusal still stands. Probe
        /// (process context, device lock held).
        pub(crate) fn hook(
            pdev: &'bound pci::Device<kernel::device::Core<'_>>,
            total: u16,
            offered: u16,
        ) -> Self {
            // SAFETY: `pdev` is a device being probed, whose driver the PCI core set before
            // calling probe; the glue only writes that driver's `sriov_configure`.
            unsafe { xehpg_sriov_hook(raw(pdev)) };
            let lowered = offered < total && set_totalvfs(pdev, offered, "probe");
            Self {
                pdev,
                total,
                lowered,
            }
        }
    }

    /// Sets the PCI core's limit on `sriov_numvfs` (`driver_max_VFs`) to `n`; false, logged
    /// with `step`, if the core refuses. Process context.
    fn set_totalvfs<Ctx: DeviceContext>(pdev: &pci::Device<Ctx>, n: u16, step: &str) -> bool {
        // SAFETY: `pdev` is a valid PCI device (a reference); the call takes no lock the
        // callers hold and refuses (EBUSY) while VFs are enabled.
        let r = unsafe { kernel::bindings::pci_sriov_set_totalvfs(raw(pdev).cast(), n) };
        if r != 0 {
            dev_err!(
                pdev.as_ref(),
                "sriov: {}: setting sriov_totalvfs to {} failed: {}\n",
                step,
                n,
                r
            );
        }
        r == 0
    }

    impl Drop for Vfs<'_> {
        /// Unbind (the driver core drops the driver data in `post_unbind_callback`,
        /// `rust/kernel/driver.rs`, with the device lock held) or a failed probe (the lock held
        /// by probe's caller); process context.
        fn drop(&mut self) {
            // SAFETY: the device is still bound (the guard lives in its driver data, dropped
            // before the driver core unbinds it) and its lock is held, as
            // `pci_disable_sriov` through the glue needs.
            unsafe { xehpg_sriov_disable(raw(self.pdev)) };
            // After an unbind the PCI core restores it too (`pci_iov_remove`); after a failed
            // probe nothing else does.
            if self.lowered {
                set_totalvfs(self.pdev, self.total, "teardown");
            }
        }
    }

    /// The PF's `sriov_admin` sysfs tree: dropping it removes the tree, which waits for a
    /// show or store in flight, so no file reaches the PF after it.
    pub(crate) struct Admin(*mut c_void);

    // SAFETY: the handle is an opaque pointer the glue accepts from any thread; the tree it
    // names is removed once, by the drop.
    unsafe impl Send for Admin {}
    // SAFETY: `&Admin` gives no access to the handle.
    unsafe impl Sync for Admin {}

    impl Admin {
        /// The glue's handle, for the glue's own use (linking VFs into the tree).
        pub(crate) fn handle(&self) -> *mut c_void {
            self.0
        }

        /// Creates `sriov_admin` under `pdev` for `total` VFs, whose files reach `pf`; `None`
        /// if the glue could not (it logs why). Probe, process context.
        ///
        /// # Safety
        ///
        /// `pf` is the `Pf` the glue's show and store callbacks expect, and it stays alive
        /// until the returned guard is dropped.
        pub(crate) unsafe fn add(
            pdev: &pci::Device<Bound>,
            pf: *const c_void,
            total: u32,
        ) -> Option<Self> {
            // SAFETY: `pdev` is a bound device; `pf` as the caller guarantees.
            let handle = unsafe { xehpg_sriov_sysfs_add(raw(pdev), pf, total) };
            (!handle.is_null()).then_some(Self(handle))
        }
    }

    impl Drop for Admin {
        /// Process context (unbind or a failed probe).
        fn drop(&mut self) {
            // SAFETY: the handle `xehpg_sriov_sysfs_add` returned, removed once (here).
            unsafe { xehpg_sriov_sysfs_remove(self.0) };
        }
    }
}

/// The raw debugfs calls.
///
/// 7.3's `kernel::debugfs` gives debugfs a full `file_operations` in the module's memory
/// without an `owner`, and debugfs calls its `release` on every close, even after the file
/// and the module are gone (`full_proxy_release`, `fs/debugfs/file.c`): a descriptor held
/// across `rmmod` oopses at close (`rust/debugfs.rs`, "Why not `kernel::debugfs`"). The driver
/// therefore makes debugfs "short" files (`debugfs_create_file_short`), whose proxy lives in
/// the kernel image. Removed by an upstream `kernel::debugfs` whose files set the module as
/// `owner` (or use the short-fops proxy); not in 7.3.
pub(crate) mod debugfs {
    use kernel::{
        bindings,
        ffi::c_void,
        prelude::*, //
    };

    /// A debugfs dentry as the C API returns it: valid, or an error pointer or NULL, both of
    /// which every debugfs call accepts and ignores (debugfs's rule: callers need not check).
    pub(crate) type Dentry = *mut bindings::dentry;

    /// Creates directory `name` under `parent` (NULL: the debugfs root). Process context.
    ///
    /// # Safety
    ///
    /// `parent` is NULL, an error pointer, or a directory that is not removed during the call.
    pub(crate) unsafe fn create_dir(name: &CStr, parent: Dentry) -> Dentry {
        // SAFETY: `name` is NUL-terminated; `parent` as the caller guarantees.
        unsafe { bindings::debugfs_create_dir(name.as_char_ptr(), parent) }
    }

    /// Creates short file `name` in `dir` with `mode`, inode data `data` and `aux`. Process
    /// context.
    ///
    /// # Safety
    ///
    /// `dir` as [`create_dir`]'s `parent`; `data` stays valid until `dir` is removed (the file
    /// methods receive it).
    pub(crate) unsafe fn create_file_short(
        name: &CStr,
        mode: u16,
        dir: Dentry,
        data: *mut c_void,
        aux: usize,
        fops: &'static bindings::debugfs_short_fops,
    ) {
        // SAFETY: `name` is NUL-terminated and `fops` static; `dir` and `data` as the caller
        // guarantees. The aux is an integer kept as a pointer, never dereferenced by debugfs.
        unsafe {
            bindings::debugfs_create_file_short(
                name.as_char_ptr(),
                mode,
                dir,
                data,
                aux as *const c_void,
                fops,
            )
        };
    }

    /// Removes `dentry` and everything below it, waiting for file methods in flight and
    /// refusing later ones. Process context.
    ///
    /// # Safety
    ///
    /// `dentry` came from [`create_dir`] (or is NULL or an error pointer) and is removed once.
    pub(crate) unsafe fn remove(dentry: Dentry) {
        // SAFETY: as the caller guarantees.
        unsafe { bindings::debugfs_remove(dentry) };
    }

    /// The `aux` given at [`create_file_short`] for the open `file`. Process context.
    ///
    /// # Safety
    ///
    /// `file` is an open file of a short file this module created, in one of its methods.
    pub(crate) unsafe fn aux(file: *const bindings::file) -> usize {
        // SAFETY: as the caller guarantees.
        let aux = unsafe { bindings::debugfs_get_aux(file) };
        // CAST: the integer `create_file_short` stored as a pointer.
        aux as usize
    }
}

/// An enum over the values of a register field.
///
/// `bounded_enum!` declares a `#[repr]` enum whose variants are the known values of an
/// `N`-bit field, and the conversions `register!`'s `?=>` fields use: `TryFrom<Bounded<T, N>>`
/// (an unknown value is the error, the raw value kept for the log) and `From<Enum> for
/// Bounded<T, N>` (checked at build time: each value fits the field), besides `From<Enum> for
/// T`. With a label per value (`Variant = value => "label"`), `name()` gives it. The same need
/// is met in nova-core by its own `bounded_enum!` (`drivers/gpu/nova-core/num.rs`); 7.3's
/// kernel crate has none. Removed by the upstream derive for Bounded-backed enums, which
/// nova-core marks as pending in its `num.rs`.
macro_rules! bounded_enum {
    // With a label per value: `name()` too.
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident: Bounded<$t:ident, $bits:literal> {
            $($(#[doc = $doc:expr])* $variant:ident = $value:literal => $label:literal),+ $(,)?
        }
    ) => {
        $crate::compat::bounded_enum! {
            $(#[$meta])*
            $vis enum $name: Bounded<$t, $bits> {
                $($(#[doc = $doc])* $variant = $value),+
            }
        }

        impl $name {
            /// The value's label. Any context.
            $vis const fn name(self) -> &'static str {
                match self {
                    $(Self::$variant => $label),+
                }
            }
        }
    };
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident: Bounded<$t:ident, $bits:literal> {
            $($(#[doc = $doc:expr])* $variant:ident = $value:literal),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[repr($t)]
        #[derive(Copy, Clone, Debug, PartialEq, Eq)]
        $vis enum $name {
            $($(#[doc = $doc])* $variant = $value),+
        }

        impl ::core::convert::From<$name> for $t {
            fn from(v: $name) -> $t {
                // CAST: the enum's `repr` is `$t`.
                v as $t
            }
        }

        impl ::core::convert::TryFrom<::kernel::num::Bounded<$t, $bits>> for $name {
            type Error = $t;

            fn try_from(v: ::kernel::num::Bounded<$t, $bits>) -> ::core::result::Result<Self, $t> {
                match v.get() {
                    $($value => Ok(Self::$variant),)+
                    other => Err(other),
                }
            }
        }

        impl ::core::convert::From<$name> for ::kernel::num::Bounded<$t, $bits> {
            fn from(v: $name) -> Self {
                match v {
                    $($name::$variant => ::kernel::num::Bounded::<$t, $bits>::new::<$value>()),+
                }
            }
        }
    };
}
pub(crate) use bounded_enum;

/// Device coredumps.
///
/// 7.3's kernel crate has no binding for `include/linux/devcoredump.h`; the glue wraps
/// `dev_coredumpv` and `dev_coredump_put` (`rust/xehpg_glue.c`). Removed by a
/// `kernel::devcoredump` (upstream has none in 7.3).
pub(crate) mod coredump {
    use kernel::{alloc::VVec, device::Device, ffi::c_void};

    // Defined by the glue (rust/xehpg_glue.c, declared in rust/xehpg_glue.h).
    extern "C" {
        fn xehpg_coredump(dev: *mut c_void, data: *mut c_void, len: usize);
        fn xehpg_coredump_put(dev: *mut c_void);
    }

    /// The C `struct device` behind `dev`: a cast, as `Device` is `#[repr(transparent)]` over
    /// it.
    fn raw(dev: &Device) -> *mut c_void {
        core::ptr::from_ref(dev).cast::<c_void>().cast_mut()
    }

    /// Makes `data` the device coredump of `dev` (`/sys/class/devcoredump/devcdN/data`).
    /// The devcoredump core owns the bytes from here: it refuses the dump (and frees them) when
    /// the device already has one. Process context.
    pub(crate) fn post(dev: &Device, data: VVec<u8>) {
        if data.is_empty() {
            // Nothing to show (and maybe nothing allocated to hand over).
            return;
        }
        let (ptr, len, _capacity) = data.into_raw_parts();
        // SAFETY: `dev` is a valid device; `ptr` holds `len` initialised bytes from the
        // vmalloc allocator, which `dev_coredumpv` frees with `vfree` (also when it refuses
        // the dump); Rust no longer owns them after `into_raw_parts`.
        unsafe { xehpg_coredump(raw(dev), ptr.cast(), len) };
    }

    /// Removes the device coredump of `dev`, if it has one (unbind, as upstream's
    /// `xe_driver_devcoredump_fini`). Process context.
    pub(crate) fn put(dev: &Device) {
        // SAFETY: `dev` is a valid device.
        unsafe { xehpg_coredump_put(raw(dev)) };
    }
}
