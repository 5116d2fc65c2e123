//! Termination signals, turned into a flag the runner's loops poll.
//!
//! The runner must not die on SIGINT/SIGTERM/SIGHUP before it has stopped
//! QEMU and the mock and removed its temp dir, so the handlers only record
//! the signal. (The children's PR_SET_PDEATHSIG covers SIGKILL, which cannot
//! be caught.)

use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use anyhow::Context;
use anyhow::Result;
use signal_hook::consts::SIGHUP;
use signal_hook::consts::SIGINT;
use signal_hook::consts::SIGTERM;

/// The signals that end a run early.
const HANDLED: [i32; 3] = [SIGINT, SIGTERM, SIGHUP];

/// Records the last termination signal received.
#[derive(Debug, Clone)]
pub struct Signals {
    /// The signal number, 0 while none has arrived.
    caught: Arc<AtomicUsize>,
}

impl Signals {
    /// Installs the handlers, replacing the default "terminate" action.
    ///
    /// # Errors
    ///
    /// A handler cannot be installed.
    pub fn install() -> Result<Self> {
        let caught = Arc::new(AtomicUsize::new(0));
        for signal in HANDLED {
            // Signal numbers are small and positive; the cast is lossless.
            signal_hook::flag::register_usize(signal, Arc::clone(&caught), signal as usize)
                .with_context(|| format!("installing a handler for signal {signal}"))?;
        }
        Ok(Self { caught })
    }

    /// The signal received, if any.
    pub fn caught(&self) -> Option<i32> {
        match self.caught.load(Ordering::SeqCst) {
            0 => None,
            signal => i32::try_from(signal).ok(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_a_raised_signal() {
        let signals = Signals::install().unwrap();
        assert_eq!(signals.caught(), None);
        // SIGHUP rather than SIGINT, so a test runner's own handling of
        // Ctrl-C is not disturbed; the handler now owns it.
        signal_hook::low_level::raise(SIGHUP).unwrap();
        assert_eq!(signals.caught(), Some(SIGHUP));
    }
}
