// SPDX-License-Identifier: GPL-2.0

//! The device's hardware state in one object: BAR 0, the local-memory BAR, the GT state, the
//! GGTT and the local-memory pool ([`Hw`]), and the guard that keeps forcewake open while the
//! device is bound ([`Open`]).
//!
//! [`Hw`] owns the five objects (the GT and the GGTT pinned in place, as they hold locks);
//! every block above holds one `Arc<Hw>` (or borrows a `&Hw`) and reaches the objects through
//! its accessors. The objects are made in the order their constraints give: probe maps BAR 0
//! (for the early checks) and the local-memory BAR, then [`Hw::new`] makes the GT, lets probe
//! initialise it before anything else touches a GT register, and makes the GGTT and the pool.
//! The device state drops its `Arc<Hw>` after every block that reaches the hardware through it
//! (rust/device.rs, the field order of `Xehpg`), so the last reference goes with it.
//!
//! This block sits on [`crate::mmio`], [`crate::gt`] and [`crate::mem`]; nothing here imports a
//! block above.

use kernel::{
    device::{Bound, Device},
    pci,
    prelude::*,
    sync::Arc,
};

use crate::{
    gt::{Gt, GtState},
    mem::{
        ggtt::Ggtt,
        lmem::{LmemPool, Lmembar},
    },
    mmio::Gttmmadr,
};

/// The hardware objects of one bound device, shared (as `Arc<Hw>`) by the blocks that reach
/// them: the GuC, the interrupt handler, submission, the GT reset, the PF and debugfs.
///
/// [`Hw::new`] makes them in bring-up order: BAR 0 and the local-memory BAR (mapped by probe
/// before, BAR 0 for the early checks), the GT (then initialised by probe's `gt_up`, before
/// anything else touches a GT register), the GGTT, the pool. They are dropped in the reverse
/// of that order: the fields are declared in the reverse order (Rust drops a struct's fields
/// in declaration order), and a failed initialisation drops the fields made so far in reverse.
#[pin_data]
pub(crate) struct Hw {
    pool: LmemPool,
    #[pin]
    ggtt: Ggtt,
    #[pin]
    gt: GtState,
    lmembar: Lmembar,
    bar: Gttmmadr,
}

impl Hw {
    /// The device's hardware from `pdev`'s mapped BARs: the GT is made, then handed to `gt_up`
    /// (which initialises it and whose result is stored in `up`), then the GGTT and a pool of
    /// `pool_size` bytes. Probe, process context.
    ///
    /// # Errors
    ///
    /// `gt_up`'s, or the GGTT's or the pool's setup errors.
    pub(crate) fn new<'a, T: 'a>(
        pdev: &'a pci::Device<Bound>,
        bar: Gttmmadr,
        lmembar: Lmembar,
        pool_size: u64,
        gt_up: impl FnOnce(&Gttmmadr, &GtState) -> Result<T> + 'a,
        up: &'a mut Option<T>,
    ) -> impl PinInit<Self, Error> + 'a {
        try_pin_init!(Self {
            bar,
            lmembar,
            gt <- GtState::new(),
            _: {
                *up = Some(gt_up(bar, &gt)?);
            },
            // The GGTT is pointed at scratch before anything is mapped into it.
            ggtt <- Ggtt::new(pdev.as_ref(), bar.access(pdev)?)?,
            pool: LmemPool::new(pool_size)?,
        }? Error)
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

    /// Runs `f` on a view of the GT through BAR 0, for holders that are not bound (debugfs,
    /// submission's work): `ENODEV` once the device is unbound. `f` must not sleep (it runs
    /// under the BAR's revocable, see [`Gttmmadr::try_access_with`]).
    ///
    /// # Errors
    ///
    /// `ENODEV` for an unbound device, else `f`'s.
    pub(crate) fn with_gt<R>(
        &self,
        dev: &Device,
        f: impl FnOnce(&Gt<'_>) -> Result<R>,
    ) -> Result<R> {
        self.bar
            .try_access_with(|bar| f(&self.gt.view(dev, bar)))
            .unwrap_or(Err(ENODEV))
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
