//! The doorbell between a worker's holder and the worker: the signal word
//! (`signal_word.rs`) and the `parked` flag, the one lock-free protocol of
//! the hand-off. A lost wake-up here would leave a job unrun until the
//! worker's idle timeout, turning a guard into a timeout and then a block,
//! so the protocol is model-checked with `loom` (`tests/loom_doorbell.rs`,
//! which includes this file with loom's atomics as `super::sync`).
//!
//! The rule: the holder stores the new word, then looks at `parked`; the
//! worker stores `parked`, then looks at the word; a `SeqCst` fence between
//! the store and the load on both sides, so at least one sees the other's
//! store. Either the worker sees the new word and does not park, or the
//! holder sees it parked and unparks it (an unpark before the park makes that
//! park return at once). Fences rather than `SeqCst` loads and stores: the
//! same guarantee (and the same `mfence`/`xchg` cost on x86), and the form
//! loom models (it treats `SeqCst` accesses as acquire/release,
//! tokio-rs/loom#180, and then finds the lost wake-up they would allow).

use super::signal_word;
use super::sync::{AtomicBool, AtomicU32, Ordering, fence};

/// The signal word and the parked flag of one worker.
pub(crate) struct Doorbell {
    /// The count of signals given and the last one (`signal_word`); 0 before the first.
    signal: AtomicU32,
    /// The worker is (about to be) parked: whoever rings must unpark it.
    parked: AtomicBool,
}

impl Doorbell {
    /// A doorbell already rung `rung` (the word a new worker starts from).
    pub(crate) fn new(rung: u32) -> Self {
        Doorbell {
            signal: AtomicU32::new(rung),
            parked: AtomicBool::new(false),
        }
    }

    /// Gives the signal `kind` (`JOB` or `EXIT`); true when the worker is
    /// parked and the caller must unpark it. Only the worker's holder rings.
    pub(crate) fn ring(&self, kind: u32) -> bool {
        // Only the holder writes the word: this load is ours.
        let next = signal_word::next(self.signal.load(Ordering::Relaxed), kind);
        // Release: the job loaded before it is seen with the word.
        self.signal.store(next, Ordering::Release);
        // Pairs with the fence in `sleep`: either the worker sees the new
        // signal or we see it parked.
        fence(Ordering::SeqCst);
        // Acquire: a worker seen parked is seen with what it did before
        // (its thread handle set, for the unpark).
        self.parked.load(Ordering::Acquire)
    }

    /// The word as the worker polls it.
    pub(crate) fn word(&self) -> u32 {
        self.signal.load(Ordering::Acquire)
    }

    /// The worker's sleep: calls `park` unless the word moved past `last`,
    /// and returns the word after. `park` may return early (a spurious wake,
    /// a timeout): the caller compares the word with `last` again.
    pub(crate) fn sleep(&self, last: u32, park: impl FnOnce()) -> u32 {
        self.parked.store(true, Ordering::Release);
        fence(Ordering::SeqCst);
        if self.signal.load(Ordering::Acquire) == last {
            park();
        }
        self.parked.store(false, Ordering::Relaxed);
        self.signal.load(Ordering::Acquire)
    }
}
