// SPDX-License-Identifier: GPL-2.0

//! PCI binding: the device-ID table, and probe handing over to [`Xehpg`], which owns the
//! bring-up and teardown order (unbind is the drop of its state).

use kernel::{
    device::Core,
    ffi::{c_int, c_uint, c_void},
    pci,
    prelude::*, //
};

use crate::{
    compat,
    device::Xehpg,
    platform::Platform,
    sriov::{Pf, Setting, Target},
};

/// Declares the PCI match table and `DEVICE_IDS` (the KUnit build's copy) from one list, so
/// lookups and tests use exactly what the PCI core matches on.
macro_rules! device_ids {
    ($($id:literal => $platform:ident,)*) => {
        kernel::pci_device_table!(
            PCI_TABLE,
            <XehpgDriver as pci::Driver>::IdInfo,
            [$((pci::DeviceId::from_id(pci::Vendor::INTEL, $id), Platform::$platform)),*]
        );

        /// Every device ID the driver binds, with its product (KUnit checks the table).
        #[cfg(xehpg_kunit)]
        pub(crate) const DEVICE_IDS: &[(u16, Platform)] = &[$(($id, Platform::$platform)),*];
    };
}

// `include/drm/intel/pciids.h`: INTEL_DG2_G10/G11/G12_{D,E,M}_IDS, INTEL_ATS_M150_IDS and
// INTEL_ATS_M75_IDS.
device_ids! {
    0x56a0 => Dg2G10, 0x56a1 => Dg2G10, 0x56a2 => Dg2G10,
    0x56be => Dg2G10, 0x56bf => Dg2G10,
    0x5690 => Dg2G10, 0x5691 => Dg2G10, 0x5692 => Dg2G10,
    0x56a5 => Dg2G11, 0x56a6 => Dg2G11, 0x56b0 => Dg2G11, 0x56b1 => Dg2G11,
    0x56ba => Dg2G11, 0x56bb => Dg2G11, 0x56bc => Dg2G11, 0x56bd => Dg2G11,
    0x5693 => Dg2G11, 0x5694 => Dg2G11, 0x5695 => Dg2G11,
    0x56a3 => Dg2G12, 0x56a4 => Dg2G12, 0x56b2 => Dg2G12, 0x56b3 => Dg2G12,
    0x5696 => Dg2G12, 0x5697 => Dg2G12,
    0x56c0 => AtsM150, 0x56c2 => AtsM150,
    0x56c1 => AtsM75,
}

pub(crate) struct XehpgDriver;

impl pci::Driver for XehpgDriver {
    type IdInfo = Platform;
    type Data<'bound> = Xehpg<'bound>;
    const ID_TABLE: pci::IdTable<Self::IdInfo> = &PCI_TABLE;

    /// Probe, process context, device lock held. Unbind is the driver core's drop of the
    /// returned state (every field undoes its step, [`Xehpg`]): no `unbind` of its own.
    fn probe<'bound>(
        pdev: &'bound pci::Device<Core<'_>>,
        info: Option<&'bound Self::IdInfo>,
    ) -> impl PinInit<Self::Data<'bound>, Error> + 'bound {
        pin_init::pin_init_scope(move || Ok(Xehpg::new(pdev, *info.ok_or(ENODEV)?)))
    }
}

// The `sriov_admin` tree's C side (rust/xehpg_glue.c, created and removed through
// `compat::sriov::Admin`): kobjects and sysfs attributes have no 7.3 Rust abstraction. Each
// file's show and store are below.

/// A `core::fmt::Write` into a sysfs page; text beyond it is cut.
struct Page<'a> {
    buf: &'a mut [u8],
    len: usize,
}

impl core::fmt::Write for Page<'_> {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        let room = self.buf.len() - self.len;
        let n = s.len().min(room);
        if let (Some(dst), Some(src)) = (
            self.buf.get_mut(self.len..self.len + n),
            s.as_bytes().get(..n),
        ) {
            dst.copy_from_slice(src);
        }
        self.len += n;
        Ok(())
    }
}

/// The function number of the bulk profile (`XEHPG_SRIOV_BULK` in rust/xehpg_glue.h).
const BULK: c_uint = c_uint::MAX;

/// The `sriov_admin` setting a file number names, and whose it is.
fn file(pf: &Pf, id: c_uint, n: c_uint) -> Option<(Target, Setting)> {
    let s = Setting::ALL.get(usize::try_from(n).ok()?).copied()?;
    Some((pf.target(id, BULK)?, s))
}

/// A negative errno as `ssize_t`.
fn errno(e: Error) -> isize {
    // CAST: errnos are small.
    e.to_errno() as isize
}

/// Show of an `sriov_admin` profile file: setting `n` of function `id` (0: the PF, then the
/// VF number; `BULK`: the bulk profile).
///
/// # Safety
///
/// `pf` is the PF the tree was made for, alive while the tree exists; `buf` is the sysfs
/// page (`PAGE_SIZE` bytes).
#[no_mangle]
unsafe extern "C" fn xehpg_sriov_show(
    pf: *const c_void,
    id: c_uint,
    n: c_uint,
    buf: *mut u8,
) -> isize {
    // SAFETY: by the function's contract.
    let pf = unsafe { &*pf.cast::<Pf>() };
    // SAFETY: sysfs hands a writable page.
    let page = unsafe { core::slice::from_raw_parts_mut(buf, kernel::page::PAGE_SIZE) };
    let Some((t, s)) = file(pf, id, n) else {
        return errno(EINVAL);
    };
    let mut w = Page { buf: page, len: 0 };
    match pf.show(t, s, &mut w) {
        // CAST: at most PAGE_SIZE.
        Ok(_) => w.len as isize,
        Err(e) => errno(e),
    }
}

/// Store of an `sriov_admin` profile file.
///
/// # Safety
///
/// As [`xehpg_sriov_show`]; `buf` holds `len` bytes.
#[no_mangle]
unsafe extern "C" fn xehpg_sriov_store(
    pf: *const c_void,
    id: c_uint,
    n: c_uint,
    buf: *const u8,
    len: usize,
) -> isize {
    // SAFETY: by the function's contract.
    let pf = unsafe { &*pf.cast::<Pf>() };
    // SAFETY: sysfs hands `len` readable bytes.
    let text = unsafe { core::slice::from_raw_parts(buf, len) };
    let (Some((t, s)), Ok(text)) = (file(pf, id, n), core::str::from_utf8(text)) else {
        return errno(EINVAL);
    };
    match pf.set(t, s, text) {
        // CAST: a sysfs write is at most a page.
        Ok(()) => len as isize,
        Err(e) => errno(e),
    }
}

/// `vfN/stop` written with a true value (the glue parsed it): stops VF `id`.
///
/// # Safety
///
/// As [`xehpg_sriov_show`].
#[no_mangle]
unsafe extern "C" fn xehpg_sriov_stop(pf: *const c_void, id: c_uint) -> c_int {
    // SAFETY: by the function's contract.
    let pf = unsafe { &*pf.cast::<Pf>() };
    match pf.target(id, BULK) {
        Some(Target::Vf(vf)) => pf.stop(vf).map_or_else(|e| e.to_errno(), |()| 0),
        _ => EPERM.to_errno(),
    }
}

/// The `sriov_admin` tree of the device whose driver data is `data`, for the glue's
/// `sriov_configure` to link the VFs it enabled; NULL when there is none.
///
/// # Safety
///
/// As [`xehpg_sriov_provision`].
#[no_mangle]
unsafe extern "C" fn xehpg_sriov_admin(data: *mut c_void) -> *mut c_void {
    // SAFETY: as in `xehpg_sriov_provision`.
    let this = unsafe { compat::drvdata::borrow::<Xehpg<'_>>(data) };
    this.sriov_admin_handle()
}

/// The glue's `sriov_configure`, before it enables `num_vfs` VFs: provisions them.
///
/// # Safety
///
/// `data` is the driver data of a bound device (the device lock held by the caller), i.e. the
/// state probe stored.
#[no_mangle]
unsafe extern "C" fn xehpg_sriov_provision(data: *mut c_void, num_vfs: c_int) -> c_int {
    // SAFETY: by the function's contract `data` is the driver data of a bound device, the
    // pinned `Xehpg` probe stored, and the device lock is held for the call.
    let this = unsafe { compat::drvdata::borrow::<Xehpg<'_>>(data) };
    let Ok(n) = u16::try_from(num_vfs) else {
        return ERANGE.to_errno();
    };
    match this.sriov_provision(n) {
        Ok(()) => 0,
        Err(e) => e.to_errno(),
    }
}

/// The glue's `sriov_configure`, after it disabled the VFs (or failed to enable them): gives
/// their shares back.
///
/// # Safety
///
/// As [`xehpg_sriov_provision`].
#[no_mangle]
unsafe extern "C" fn xehpg_sriov_unprovision(data: *mut c_void) {
    // SAFETY: as in `xehpg_sriov_provision`.
    let this = unsafe { compat::drvdata::borrow::<Xehpg<'_>>(data) };
    this.sriov_unprovision();
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_driver)]
mod tests {
    use super::*;

    #[test]
    fn id_table_matches_pciids() {
        // 8 G10 + 11 G11 + 6 G12 IDs (DG2) and 3 ATS-M IDs in pciids.h.
        assert_eq!(DEVICE_IDS.len(), 28);
        let count = |p| DEVICE_IDS.iter().filter(|(_, q)| *q == p).count();
        assert_eq!(count(Platform::Dg2G10), 8);
        assert_eq!(count(Platform::Dg2G11), 11);
        assert_eq!(count(Platform::Dg2G12), 6);
        assert_eq!(count(Platform::AtsM150), 2);
        assert_eq!(count(Platform::AtsM75), 1);
    }

    #[test]
    fn id_table_has_no_duplicates() {
        for (i, (a, _)) in DEVICE_IDS.iter().enumerate() {
            assert!(DEVICE_IDS[i + 1..].iter().all(|(b, _)| b != a));
        }
    }

    #[test]
    fn only_ats_m_is_sriov_pf() {
        for (id, p) in DEVICE_IDS {
            assert_eq!(p.sriov_pf(), (0x56c0..=0x56c2).contains(id));
        }
    }
}
