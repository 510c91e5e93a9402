//! Bounded execution (reference §2.3): a callback runs on one of its pool's
//! persistent workers while the caller waits at most the callback timeout.
//!
//! A timed-out worker is abandoned, never joined: its result is discarded and
//! it rejoins the pool when it finishes. The callback is then suppressed for
//! [`SUPPRESSION_WINDOW`]; a call whose gate key (callback + call identity) is
//! still running is skipped; and a callback with [`MAX_ABANDONED_WORKERS`]
//! hung workers is skipped until one finishes.

use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::CallbackResult;
use super::registry::Entry;
pub(crate) use super::worker::WorkerPool;
use hermes_hooks_core::event::Event;

/// How long a callback is skipped after it timed out.
pub const SUPPRESSION_WINDOW: Duration = Duration::from_secs(60);

/// How many abandoned (hung) workers one callback may have before new calls are skipped.
pub const MAX_ABANDONED_WORKERS: usize = 3;

/// The end of one bounded call.
pub(crate) enum Bounded {
    /// The callback finished in time, taking this long on its worker.
    Finished(CallbackResult, Duration),
    /// The callback did not run (reason already logged).
    Skipped(Skip),
    /// The callback outlived the timeout and its result was given up on (logged).
    TimedOut,
}

/// Why a bounded call did not run the callback at all: never a timeout of
/// this call (the callback never saw it), and said so.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Skip {
    /// An earlier call timed out `ago`; calls are skipped for `window` after a timeout.
    Suppressed { ago: Duration, window: Duration },
    /// An earlier call with the same call identity is still running.
    SameCallRunning,
    /// This many earlier calls outlived the timeout and are still running.
    Hung(usize),
    /// The worker thread could not start.
    NoWorker,
}

impl std::fmt::Display for Skip {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Skip::Suppressed { ago, window } => write!(
                f,
                "an earlier call timed out {:.1}s ago and calls are skipped for {:.1}s after a timeout",
                ago.as_secs_f64(),
                window.as_secs_f64()
            ),
            Skip::SameCallRunning => {
                f.write_str("an earlier call for the same tool call is still running")
            }
            Skip::Hung(n) => write!(
                f,
                "{n} earlier call(s) outlived the timeout and are still running"
            ),
            Skip::NoWorker => f.write_str("its worker thread could not start"),
        }
    }
}

/// One callback's gates: calls in flight, abandoned workers, suppression.
#[derive(Default)]
pub(crate) struct CallGates {
    state: Mutex<GateState>,
}

#[derive(Default)]
struct GateState {
    /// Calls in flight: (gate sequence number, the event holding the call identity).
    running: Vec<(u64, Event)>,
    abandoned: usize,
    /// When the last call timed out and until when calls are skipped.
    suppressed: Option<(Instant, Instant)>,
    next_seq: u64,
}

impl CallGates {
    fn lock(&self) -> MutexGuard<'_, GateState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// How many of this callback's workers are abandoned and still running.
    pub(crate) fn abandoned(&self) -> usize {
        self.lock().abandoned
    }

    /// Counts a call given up at its deadline: one more abandoned worker
    /// (until the call's release), and the callback suppressed for `window`.
    pub(crate) fn count_abandoned(&self, window: Duration) {
        let mut state = self.lock();
        state.abandoned += 1;
        let now = Instant::now();
        state.suppressed = Some((now, now + window));
    }

    /// Releases the gate entry of call `seq` whose caller gave up on it; one
    /// abandoned (timed-out) worker fewer when `abandoned`.
    pub(crate) fn release_given_up(&self, seq: u64, abandoned: bool) {
        let mut state = self.lock();
        state.running.retain(|(running, _)| *running != seq);
        if abandoned {
            state.abandoned = state.abandoned.saturating_sub(1);
        }
    }
}

/// The settings of one bounded call.
pub(crate) struct Limits {
    pub(crate) timeout: Duration,
    pub(crate) suppression: Duration,
}

/// Admits a call of `entry` on `event` through the callback's gates: its
/// gate sequence number, or why it is skipped (logged).
pub(crate) fn admit(entry: &Entry, event: &Event, limits: &Limits) -> Result<u64, Skip> {
    let hook = event.name().as_str();
    let owner = &*entry.owner;
    let mut state = entry.gates.lock();
    // The identity is looked up only when a call is in flight (the
    // usual warm call finds none and skips the payload lookups).
    let gate_busy = !state.running.is_empty() && {
        let identity = event.call_identity();
        state
            .running
            .iter()
            .any(|(_, running)| running.call_identity() == identity)
    };
    // The clock is read only when a timeout suppressed the callback.
    let suppressed = state.suppressed.and_then(|(timed_out, until)| {
        let now = Instant::now();
        (now < until).then(|| Skip::Suppressed {
            ago: now.saturating_duration_since(timed_out),
            window: limits.suppression,
        })
    });
    if let Some(skip) = suppressed.or(gate_busy.then_some(Skip::SameCallRunning)) {
        drop(state);
        tracing::warn!("Hook '{hook}' callback {owner} skipped: {skip}");
        return Err(skip);
    }
    if state.abandoned >= MAX_ABANDONED_WORKERS {
        let abandoned = state.abandoned;
        drop(state);
        tracing::warn!(
            "Hook '{hook}' callback {owner} skipped: {abandoned} abandoned worker(s) still running — the plugin is hung; fix or disable it (retried when a worker finishes)"
        );
        return Err(Skip::Hung(abandoned));
    }
    let seq = state.next_seq;
    state.next_seq = state.next_seq.wrapping_add(1);
    state.running.push((seq, event.clone()));
    Ok(seq)
}
