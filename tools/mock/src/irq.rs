//! Interrupt delivery through the eventfds QEMU sends with SET_IRQS.
//!
//! The mock advertises INTx (index 0) and MSI (index 1), one vector each,
//! with `VFIO_IRQ_INFO_EVENTFD` (ENVIRONMENT.md, "MSI through vfio-user works
//! under TCG"). QEMU virtualises the MSI capability itself: when the guest
//! enables MSI it sends SET_IRQS for index 1 with an eventfd, and an 8-byte
//! write of 1 to that eventfd injects the interrupt. INTx (used when the
//! guest has no MSI, `--no-msi`) is automasked, as the kernel's vfio-pci
//! does it: a trigger masks the vector until QEMU's SET_IRQS UNMASK (QEMU
//! sends it at the guest's next BAR access, its end-of-interrupt), and the
//! device then re-asserts if its line is still up
//! (`Device::set_irqs`). The error-notifier eventfd is stored so QEMU's
//! setup succeeds, but never signalled.

use std::fs::File;
use std::io;
use std::io::Write;

use thiserror::Error;
use vfio_bindings::bindings::vfio::VFIO_IRQ_INFO_AUTOMASKED;
use vfio_bindings::bindings::vfio::VFIO_IRQ_INFO_EVENTFD;
use vfio_bindings::bindings::vfio::VFIO_IRQ_INFO_MASKABLE;
use vfio_bindings::bindings::vfio::VFIO_IRQ_SET_ACTION_MASK;
use vfio_bindings::bindings::vfio::VFIO_IRQ_SET_ACTION_TRIGGER;
use vfio_bindings::bindings::vfio::VFIO_IRQ_SET_ACTION_TYPE_MASK;
use vfio_bindings::bindings::vfio::VFIO_IRQ_SET_ACTION_UNMASK;
use vfio_bindings::bindings::vfio::VFIO_IRQ_SET_DATA_EVENTFD;
use vfio_bindings::bindings::vfio::VFIO_IRQ_SET_DATA_NONE;
use vfio_bindings::bindings::vfio::VFIO_IRQ_SET_DATA_TYPE_MASK;
use vfio_bindings::bindings::vfio::VFIO_PCI_INTX_IRQ_INDEX;
use vfio_bindings::bindings::vfio::VFIO_PCI_MSI_IRQ_INDEX;
use vfio_bindings::bindings::vfio::VFIO_PCI_NUM_IRQS;

/// IRQ index of MSI in the VFIO PCI numbering.
pub const MSI_INDEX: u32 = VFIO_PCI_MSI_IRQ_INDEX;
/// IRQ index of INTx in the VFIO PCI numbering.
pub const INTX_INDEX: u32 = VFIO_PCI_INTX_IRQ_INDEX;

/// What GET_IRQ_INFO reports per VFIO PCI IRQ index: (vectors, flags).
pub const ADVERTISED: [(u32, u32); VFIO_PCI_NUM_IRQS as usize] = [
    // INTx: pin A, with the flags the kernel's vfio-pci reports for INTx.
    (
        1,
        VFIO_IRQ_INFO_EVENTFD | VFIO_IRQ_INFO_MASKABLE | VFIO_IRQ_INFO_AUTOMASKED,
    ),
    // MSI: one vector (the capability's Multiple Message Capable is 0).
    (1, VFIO_IRQ_INFO_EVENTFD),
    // MSI-X: no capability.
    (0, 0),
    // ERR: the PCIe error notifier. With a count other than 1 QEMU warns
    // "Could not enable error recovery" (hw/vfio/pci.c
    // vfio_pci_populate_device); the mock never signals it.
    (1, VFIO_IRQ_INFO_EVENTFD),
    // REQ: device-request notifier, not offered (QEMU skips it silently).
    (0, 0),
];

/// Why an interrupt could not be delivered.
#[derive(Debug, Error)]
pub enum IrqError {
    /// No eventfd is attached (the guest has not enabled the interrupt).
    #[error("no eventfd attached to IRQ index {index} vector {vector}")]
    NotConfigured {
        /// IRQ index.
        index: u32,
        /// Vector within the index.
        vector: u32,
    },
    /// The vector is masked.
    #[error("IRQ index {index} vector {vector} is masked")]
    Masked {
        /// IRQ index.
        index: u32,
        /// Vector within the index.
        vector: u32,
    },
    /// Writing the eventfd failed.
    #[error("eventfd write failed: {0}")]
    Write(#[from] io::Error),
}

impl IrqError {
    /// Short reason for the trace.
    pub fn reason(&self) -> &'static str {
        match self {
            IrqError::NotConfigured { .. } => "not_configured",
            IrqError::Masked { .. } => "masked",
            IrqError::Write(_) => "eventfd_write_failed",
        }
    }
}

#[derive(Default)]
struct Vector {
    eventfd: Option<File>,
    masked: bool,
}

/// Per-index interrupt state.
pub struct Irqs {
    /// Indexed by VFIO IRQ index, then vector; sized from [`ADVERTISED`].
    indices: Vec<Vec<Vector>>,
}

impl Default for Irqs {
    fn default() -> Self {
        Self::new()
    }
}

impl Irqs {
    /// No eventfds attached; nothing masked.
    pub fn new() -> Self {
        let indices = ADVERTISED
            .iter()
            .map(|&(count, _)| (0..count).map(|_| Vector::default()).collect())
            .collect();
        Self { indices }
    }

    /// Applies a SET_IRQS request (semantics of `VFIO_DEVICE_SET_IRQS`).
    ///
    /// # Errors
    ///
    /// `EINVAL` for an index or vector range the device does not have, a
    /// data type it does not support, or an fd count that does not match.
    pub fn set(
        &mut self,
        index: u32,
        flags: u32,
        start: u32,
        count: u32,
        fds: Vec<File>,
    ) -> io::Result<()> {
        let einval = || io::Error::from_raw_os_error(libc::EINVAL);
        let vectors = self.vectors_mut(index).ok_or_else(einval)?;
        let data = flags & VFIO_IRQ_SET_DATA_TYPE_MASK;
        let action = flags & VFIO_IRQ_SET_ACTION_TYPE_MASK;
        // DATA_NONE with count 0 tears the whole index down.
        if data == VFIO_IRQ_SET_DATA_NONE && count == 0 && action == VFIO_IRQ_SET_ACTION_TRIGGER {
            vectors.iter_mut().for_each(|v| *v = Vector::default());
            return Ok(());
        }
        let range = usize::try_from(start).ok().and_then(|s| {
            let e = s.checked_add(usize::try_from(count).ok()?)?;
            (e <= vectors.len()).then_some(s..e)
        });
        let range = range.ok_or_else(einval)?;
        match (action, data) {
            (VFIO_IRQ_SET_ACTION_TRIGGER, VFIO_IRQ_SET_DATA_EVENTFD) => {
                Self::attach(&mut vectors[range], fds).map_err(|()| einval())
            }
            (VFIO_IRQ_SET_ACTION_MASK, VFIO_IRQ_SET_DATA_NONE) => {
                vectors[range].iter_mut().for_each(|v| v.masked = true);
                Ok(())
            }
            (VFIO_IRQ_SET_ACTION_UNMASK, VFIO_IRQ_SET_DATA_NONE) => {
                vectors[range].iter_mut().for_each(|v| v.masked = false);
                Ok(())
            }
            // DATA_NONE + TRIGGER with count > 0 would fire the interrupt
            // from the host side (loopback test); nothing uses it here.
            _ => Err(einval()),
        }
    }

    /// One eventfd per vector, or none at all to detach the range.
    fn attach(vectors: &mut [Vector], fds: Vec<File>) -> Result<(), ()> {
        if fds.is_empty() {
            vectors.iter_mut().for_each(|v| v.eventfd = None);
            return Ok(());
        }
        if fds.len() != vectors.len() {
            return Err(());
        }
        for (v, fd) in vectors.iter_mut().zip(fds) {
            v.eventfd = Some(fd);
        }
        Ok(())
    }

    /// Signals `vector` of `index` by writing 1 to its eventfd.
    ///
    /// # Errors
    ///
    /// [`IrqError`] if the vector has no eventfd, is masked, or the write fails.
    pub fn trigger(&mut self, index: u32, vector: u32) -> Result<(), IrqError> {
        let not_configured = IrqError::NotConfigured { index, vector };
        let v = usize::try_from(vector)
            .ok()
            .and_then(|i| self.vectors_mut(index)?.get_mut(i));
        let Some(v) = v else {
            return Err(not_configured);
        };
        if v.masked {
            return Err(IrqError::Masked { index, vector });
        }
        let fd = v.eventfd.as_mut().ok_or(not_configured)?;
        // An eventfd takes exactly 8 bytes: the counter increment.
        fd.write_all(&1u64.to_ne_bytes())?;
        if index == INTX_INDEX {
            // VFIO_IRQ_INFO_AUTOMASKED (ADVERTISED): masked until unmasked.
            v.masked = true;
        }
        Ok(())
    }

    /// Whether `vector` of `index` has an eventfd attached.
    pub fn is_attached(&self, index: u32, vector: u32) -> bool {
        usize::try_from(index)
            .ok()
            .and_then(|i| self.indices.get(i))
            .and_then(|vs| vs.get(usize::try_from(vector).ok()?))
            .is_some_and(|v| v.eventfd.is_some())
    }

    /// Drops every eventfd and mask (device reset does not do this: the
    /// eventfds belong to QEMU's wiring, not to device state).
    pub fn clear(&mut self) {
        *self = Self::new();
    }

    fn vectors_mut(&mut self, index: u32) -> Option<&mut Vec<Vector>> {
        self.indices.get_mut(usize::try_from(index).ok()?)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::io::Read;
    use std::os::fd::FromRawFd;

    /// A fresh non-blocking eventfd.
    pub(crate) fn eventfd() -> File {
        // SAFETY: eventfd has no memory-safety preconditions.
        let fd = unsafe { libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK) };
        assert!(fd >= 0, "eventfd failed");
        // SAFETY: `fd` is a fresh descriptor owned by nobody else.
        unsafe { File::from_raw_fd(fd) }
    }

    /// Reads and resets an eventfd's counter; 0 if it was never signalled.
    pub(crate) fn drain(f: &File) -> u64 {
        let mut b = [0u8; 8];
        match (&*f).read(&mut b) {
            Ok(8) => u64::from_ne_bytes(b),
            _ => 0,
        }
    }

    fn dup(f: &File) -> File {
        f.try_clone().expect("dup")
    }

    const TRIGGER_EVENTFD: u32 = VFIO_IRQ_SET_ACTION_TRIGGER | VFIO_IRQ_SET_DATA_EVENTFD;

    #[test]
    fn msi_trigger_writes_one_to_the_eventfd() {
        let mut irqs = Irqs::new();
        let efd = eventfd();
        irqs.set(MSI_INDEX, TRIGGER_EVENTFD, 0, 1, vec![dup(&efd)])
            .expect("set");
        assert!(irqs.is_attached(MSI_INDEX, 0));
        irqs.trigger(MSI_INDEX, 0).expect("delivered");
        irqs.trigger(MSI_INDEX, 0).expect("delivered");
        assert_eq!(drain(&efd), 2);
    }

    #[test]
    fn trigger_without_eventfd_or_masked_is_refused() {
        let mut irqs = Irqs::new();
        assert_eq!(
            irqs.trigger(MSI_INDEX, 0).map_err(|e| e.reason()),
            Err("not_configured")
        );
        assert!(irqs.trigger(MSI_INDEX, 1).is_err(), "only one vector");
        assert!(irqs.trigger(7, 0).is_err());
        let efd = eventfd();
        irqs.set(MSI_INDEX, TRIGGER_EVENTFD, 0, 1, vec![dup(&efd)])
            .expect("set");
        irqs.set(
            MSI_INDEX,
            VFIO_IRQ_SET_ACTION_MASK | VFIO_IRQ_SET_DATA_NONE,
            0,
            1,
            vec![],
        )
        .expect("mask");
        assert_eq!(
            irqs.trigger(MSI_INDEX, 0).map_err(|e| e.reason()),
            Err("masked")
        );
        irqs.set(
            MSI_INDEX,
            VFIO_IRQ_SET_ACTION_UNMASK | VFIO_IRQ_SET_DATA_NONE,
            0,
            1,
            vec![],
        )
        .expect("unmask");
        irqs.trigger(MSI_INDEX, 0).expect("delivered");
        assert_eq!(drain(&efd), 1);
    }

    #[test]
    fn data_none_count_zero_detaches() {
        let mut irqs = Irqs::new();
        irqs.set(MSI_INDEX, TRIGGER_EVENTFD, 0, 1, vec![eventfd()])
            .expect("set");
        irqs.set(
            MSI_INDEX,
            VFIO_IRQ_SET_ACTION_TRIGGER | VFIO_IRQ_SET_DATA_NONE,
            0,
            0,
            vec![],
        )
        .expect("teardown");
        assert!(!irqs.is_attached(MSI_INDEX, 0));
    }

    #[test]
    fn bad_requests_are_einval() {
        let mut irqs = Irqs::new();
        for (index, start, count, nfds) in [
            (2, 0, 1, 1),
            (5, 0, 1, 1),
            (MSI_INDEX, 1, 1, 1),
            (MSI_INDEX, 0, 1, 2),
        ] {
            let fds = (0..nfds).map(|_| eventfd()).collect();
            let e = irqs
                .set(index, TRIGGER_EVENTFD, start, count, fds)
                .expect_err("einval");
            assert_eq!(e.raw_os_error(), Some(libc::EINVAL));
        }
        irqs.set(INTX_INDEX, TRIGGER_EVENTFD, 0, 1, vec![eventfd()])
            .expect("intx is accepted");
        assert!(irqs.is_attached(INTX_INDEX, 0));
        irqs.set(3, TRIGGER_EVENTFD, 0, 1, vec![eventfd()])
            .expect("the error notifier is accepted");
    }
}
