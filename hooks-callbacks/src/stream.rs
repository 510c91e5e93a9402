//! Queued observers (reference §2.6): streaming events never wait for a
//! callback. Each callback gets one bounded FIFO and one dedicated worker,
//! created on the first event and reused; a full queue evicts that callback's
//! oldest pending event, so a slow consumer loses only its own backlog.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::registry::{CallbackFn, Entry};
use super::report::FailureReporter;
use super::spin::{HotPhase, NO_CPU, Pace, Partner, Spun, current_cpu, locate, spin_until};
use super::worker::execute;
use hermes_hooks_core::event::Event;

/// The default capacity of one callback's queue.
pub const DEFAULT_QUEUE_CAPACITY: usize = 1024;

/// How long a consumer that emptied its queue watches for the next event
/// before it blocks. Deltas of one stream come microseconds apart; a
/// consumer that blocked after each one made every `enqueue` a futex wake on
/// the agent's thread.
const CONSUMER_SPIN: Duration = Duration::from_micros(20);

/// How much of that watch may be hot (no yield).
const CONSUMER_HOT: Duration = Duration::from_micros(2);

/// One callback's queue and the state its worker shares with producers.
pub(crate) struct StreamQueue {
    state: Mutex<QueueState>,
    /// Signalled when an event arrives or the queue closes.
    ready: Condvar,
    /// Signalled when the worker exits.
    settled: Condvar,
    /// Counts every event queued and the close: a consumer watching for
    /// work reads it without the lock.
    arrivals: AtomicU64,
    /// The CPU the last event was queued on: the consumer watches hot only
    /// when its producer runs elsewhere (see `spin.rs`).
    producer_cpu: AtomicU32,
}

struct QueueState {
    pending: VecDeque<Event>,
    capacity: usize,
    /// The worker is running a callback.
    busy: bool,
    /// The worker is blocked on `ready` (producers signal only then).
    waiting: bool,
    closed: bool,
    exited: bool,
}

impl StreamQueue {
    /// Creates the queue of `entry` and starts its worker.
    pub(crate) fn start(
        entry: &Entry,
        capacity: usize,
        reporter: Arc<FailureReporter>,
    ) -> Arc<StreamQueue> {
        let queue = Arc::new(StreamQueue {
            state: Mutex::new(QueueState {
                pending: VecDeque::new(),
                capacity: capacity.max(1),
                busy: false,
                waiting: false,
                closed: false,
                exited: false,
            }),
            ready: Condvar::new(),
            settled: Condvar::new(),
            arrivals: AtomicU64::new(0),
            producer_cpu: AtomicU32::new(NO_CPU),
        });
        let consumer = Consumer {
            queue: Arc::clone(&queue),
            callback: entry.callback.clone(),
            id: entry.id,
            owner: Arc::clone(&entry.owner),
            reporter,
            runtime: tokio::runtime::Handle::try_current().ok(),
            watch: HotPhase::default(),
        };
        let spawned = std::thread::Builder::new()
            .name(format!("hook-q-{}", entry.owner))
            .spawn(move || consumer.run());
        if let Err(error) = spawned {
            tracing::warn!(
                "observer queue worker for callback {} failed to start: {error}; its events are dropped",
                entry.owner
            );
            let mut state = queue.lock();
            state.closed = true;
            state.exited = true;
        }
        queue
    }

    fn lock(&self) -> MutexGuard<'_, QueueState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queues `event` without ever waiting for the consumer.
    pub(crate) fn enqueue(&self, event: &Event) {
        let mut state = self.lock();
        if state.closed {
            tracing::debug!(event = %event.name(), "observer queue closed; event dropped");
            return;
        }
        if state.pending.len() >= state.capacity {
            state.pending.pop_front();
            tracing::debug!(event = %event.name(), "observer queue full; oldest pending event dropped");
        }
        state.pending.push_back(event.clone());
        self.producer_cpu.store(current_cpu(), Ordering::Relaxed);
        self.arrivals.fetch_add(1, Ordering::Release);
        let wake = state.waiting;
        drop(state);
        if wake {
            self.ready.notify_one();
        }
    }

    /// Whether nothing is pending or running.
    pub(crate) fn is_settled(&self) -> bool {
        let state = self.lock();
        state.exited || (state.pending.is_empty() && !state.busy)
    }

    /// Stops accepting events; the worker drains what is pending, then exits.
    pub(crate) fn close(&self) {
        self.lock().closed = true;
        self.arrivals.fetch_add(1, Ordering::Release);
        self.ready.notify_all();
    }

    /// Waits until the worker exited or `deadline` passed; true when it exited.
    pub(crate) fn wait_exit(&self, deadline: Instant) -> bool {
        let mut state = self.lock();
        while !state.exited {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            state = self
                .settled
                .wait_timeout(state, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        true
    }
}

/// The worker side of one queue.
struct Consumer {
    queue: Arc<StreamQueue>,
    callback: CallbackFn,
    id: super::CallbackId,
    owner: Arc<str>,
    reporter: Arc<FailureReporter>,
    runtime: Option<tokio::runtime::Handle>,
    /// Whether watching for the next event paid off lately (a sparse stream
    /// stops watching, backing off as a hand-off's hot phase does).
    watch: HotPhase,
}

impl Consumer {
    fn run(self) {
        while let Some(event) = self.next() {
            if let Err(error) = execute(&self.callback, &event, self.runtime.as_ref()) {
                self.reporter.report(
                    event.name().as_str(),
                    self.id,
                    &self.owner,
                    error.kind(),
                    error.message(),
                );
            }
        }
    }

    /// The next event, or `None` once the queue is closed and drained.
    fn next(&self) -> Option<Event> {
        let queue = &self.queue;
        let mut state = queue.lock();
        state.busy = false;
        loop {
            if let Some(event) = state.pending.pop_front() {
                state.busy = true;
                return Some(event);
            }
            if state.closed {
                state.exited = true;
                drop(state);
                queue.settled.notify_all();
                return None;
            }
            if self.watch.allowed() {
                // Not busy and not waiting: producers neither wait for us
                // nor signal us while we watch.
                let seen = queue.arrivals.load(Ordering::Acquire);
                drop(state);
                // A producer on our CPU runs only when we yield.
                let pace = match locate(queue.producer_cpu.load(Ordering::Relaxed)) {
                    Partner::Here => Pace::Yield,
                    Partner::Elsewhere | Partner::Unknown => Pace::Hot(CONSUMER_HOT),
                };
                let spun = spin_until(CONSUMER_SPIN, pace, || {
                    queue.arrivals.load(Ordering::Acquire) != seen
                });
                self.watch
                    .learn(if spun.ready() { Spun::Hot } else { spun });
                state = queue.lock();
                // Looked at again under the lock: an event that came after
                // the watch ended had nobody to signal.
                if spun.ready() || !state.pending.is_empty() || state.closed {
                    continue;
                }
            }
            state.waiting = true;
            state = queue.ready.wait(state).unwrap_or_else(|e| e.into_inner());
            state.waiting = false;
        }
    }
}
