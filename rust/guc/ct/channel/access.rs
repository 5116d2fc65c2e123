// SPDX-License-Identifier: GPL-2.0

//! Device access for the channel: what a send or a receive pass needs, and who can lend it.

use kernel::device::Device;

use crate::{gt::Gt, hw::Hw, mem::lmem::LmemAccess};

/// Device access for one send or receive pass.
pub(crate) struct CtIo<'a> {
    pub(crate) gt: &'a Gt<'a>,
    pub(crate) lmem: LmemAccess<'a>,
}

/// Something that can lend device access: probe and unbind have it directly, debugfs and the
/// interrupt thread through the revocable BARs.
pub(crate) trait CtAccess {
    /// The device, for messages.
    fn dev(&self) -> &Device;
    /// Runs `f` with device access, or returns `None` if the device is gone. `f` must not
    /// sleep (it may run under RCU).
    fn with_io<R>(&self, f: impl FnOnce(&CtIo<'_>) -> R) -> Option<R>;
}

/// [`CtAccess::with_io`] for holders of the device's hardware (debugfs, submission, the PF):
/// `f` runs only while the device is bound, under RCU, so it must not sleep.
pub(crate) fn with_bars<R>(dev: &Device, hw: &Hw, f: impl FnOnce(&CtIo<'_>) -> R) -> Option<R> {
    hw.bar()
        .try_access_with(|bar| {
            hw.lmembar().try_access_with(|lmem| {
                f(&CtIo {
                    gt: &hw.gt().view(dev, bar),
                    lmem,
                })
            })
        })
        .flatten()
}
