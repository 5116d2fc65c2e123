// SPDX-License-Identifier: GPL-2.0

//! The device's hardware state in one object: BAR 0, the local-memory BAR, the GT state, the
//! GGTT and the local-memory pool ([`Hw`]), and the guard that keeps forcewake open while the
//! device is bound ([`Open`]).
//!
//! Every block above holds one `Arc<Hw>` (or borrows a `&Hw`) instead of an `Arc` per object,
//! and reaches the objects through [`Hw`]'s accessors. Probe makes the five objects in the order
//! their constraints give (BAR 0 for the early checks; the local-memory BAR; the GT, which is
//! initialised before anything else touches a register; the GGTT; the pool) and makes the
//! [`Hw`] once the last of them exists; the device state drops its `Arc<Hw>` after every block
//! that reaches the hardware through it (rust/device.rs, the field order of `Xehpg`).
//!
//! This block sits on [`crate::mmio`], [`crate::gt`] and [`crate::mem`]; nothing here imports a
//! block above.

use kernel::{device::Bound, pci, prelude::*, sync::Arc};

use crate::{
    gt::GtState,
    mem::{
        ggtt::Ggtt,
        lmem::{LmemPool, Lmembar},
    },
    mmio::Gttmmadr,
};

/// The hardware objects of one bound device, shared (as `Arc<Hw>`) by the blocks that reach
/// them: the GuC, the interrupt handler, submission, the GT reset, the PF and debugfs.
///
/// The objects are dropped in the reverse of the order probe made them: the fields are
/// declared in that reverse order (Rust drops a struct's fields in declaration order).
pub(crate) struct Hw {
    pool: Arc<LmemPool>,
    ggtt: Arc<Ggtt>,
    gt: Arc<GtState>,
    lmembar: Arc<Lmembar>,
    bar: Arc<Gttmmadr>,
}

impl Hw {
    /// The device's hardware from the objects probe made, in the order it made them.
    pub(crate) fn new(
        bar: Arc<Gttmmadr>,
        lmembar: Arc<Lmembar>,
        gt: Arc<GtState>,
        ggtt: Arc<Ggtt>,
        pool: Arc<LmemPool>,
    ) -> Self {
        Self {
            pool,
            ggtt,
            gt,
            lmembar,
            bar,
        }
    }

    /// BAR 0 (GTTMMADR): the registers and the GSM.
    pub(crate) fn bar(&self) -> &Gttmmadr {
        &self.bar
    }

    /// The local-memory BAR (LMEMBAR).
    pub(crate) fn lmembar(&self) -> &Lmembar {
        &self.lmembar
    }

    /// The GT: forcewake, steering and the refused-access counters.
    pub(crate) fn gt(&self) -> &GtState {
        &self.gt
    }

    /// The GGTT.
    pub(crate) fn ggtt(&self) -> &Ggtt {
        &self.ggtt
    }

    /// The pool of CPU-visible local memory the driver's objects come from.
    pub(crate) fn pool(&self) -> &LmemPool {
        &self.pool
    }
}

/// The GT open for forcewake while the device is bound: dropping it closes forcewake
/// ([`crate::gt::Gt::close`]: a debugfs `forcewake_all` hold is released and every later wake
/// refused), so nothing wakes the GT once the blocks dropped before it are gone. The device
/// state makes it once the GT is initialised and drops it after every block that wakes the GT.
pub(crate) struct Open<'bound> {
    pdev: &'bound pci::Device<Bound>,
    hw: Arc<Hw>,
}

impl<'bound> Open<'bound> {
    /// The guard over the GT of `hw`, reached through `pdev`'s BAR 0. Probe, process context.
    pub(crate) fn new(pdev: &'bound pci::Device<Bound>, hw: Arc<Hw>) -> Self {
        Self { pdev, hw }
    }
}

impl Drop for Open<'_> {
    /// Unbind or a failed probe, process context.
    fn drop(&mut self) {
        match self.hw.bar().access(self.pdev) {
            Ok(bar) => self.hw.gt().view(self.pdev.as_ref(), bar).close(),
            // Only if the BAR were not this device's: nothing can wake the GT through it.
            Err(e) => dev_err!(
                self.pdev,
                "gt: forcewake close at teardown cannot reach BAR 0: {}\n",
                e.to_errno()
            ),
        }
    }
}
