//! Each hook's bounded lane: a queue served by one task that calls the hook's
//! handler for one event at a time, in order (the tasks run on the background
//! runtime the gateway was given, `engine.rs`). The host's `emit` only appends to queues, so a
//! slow hook delays nothing but its own later events. A full lane drops its
//! oldest event and counts it.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::{Notify, oneshot};

use crate::error::HandlerError;
use crate::executable::ExecutableHook;
use crate::python::PythonHook;

/// How a hook's handler is called.
pub(crate) enum Runner {
    Python(Box<PythonHook>),
    Executable(ExecutableHook),
}

impl Runner {
    fn broken_at_discovery(&self) -> bool {
        match self {
            Runner::Python(python) => python.broken_at_discovery(),
            Runner::Executable(_) => false,
        }
    }

    async fn call(&mut self, body: &[u8], timeout: Duration) -> Result<Value, HandlerError> {
        match self {
            Runner::Python(python) => python.call(body, timeout).await,
            Runner::Executable(executable) => executable.call(body, timeout).await,
        }
    }
}

/// Where a job's result goes.
pub(crate) type ReplySender = oneshot::Sender<Result<Value, HandlerError>>;

/// One event for one hook.
pub(crate) struct Job {
    /// The event name, for logs.
    pub(crate) event: Arc<str>,
    /// `{"event_type": ..., "context": ...}`, shared by every hook of the event.
    pub(crate) body: Arc<[u8]>,
    /// Set when someone awaits the result (`command:*`, `call_hook`); else
    /// the result is dropped and failures are logged.
    pub(crate) reply: Option<ReplySender>,
    /// When the answer is no use any more (a `command:*` event's bound): the
    /// handler's own timeout is cut to it, so a handler still running then is
    /// killed with its tree instead of holding the lane (and the host's flush)
    /// past the bound. A job whose deadline passed while it was queued is not run.
    pub(crate) deadline: Option<std::time::Instant>,
}

impl Job {
    /// The time the handler gets for this job: the lane's timeout, cut to the
    /// job's deadline; `None` when the deadline has already passed.
    fn budget(&self, timeout: Duration) -> Option<Duration> {
        match self.deadline {
            None => Some(timeout),
            Some(deadline) => {
                let left = deadline.saturating_duration_since(std::time::Instant::now());
                (!left.is_zero()).then(|| timeout.min(left))
            }
        }
    }
}

/// Counters shared by every lane: what is queued or running, for `flush`.
#[derive(Default)]
pub(crate) struct Shared {
    pending: AtomicUsize,
    idle: Notify,
}

impl Shared {
    fn finish_one(&self) {
        if self.pending.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.idle.notify_waiters();
        }
    }

    /// Jobs queued or running in any lane.
    pub(crate) fn pending(&self) -> usize {
        self.pending.load(Ordering::Acquire)
    }

    /// Waits until no job is queued or running.
    pub(crate) async fn idle(&self) {
        loop {
            let notified = self.idle.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.pending() == 0 {
                return;
            }
            notified.await;
        }
    }
}

/// One hook's queue.
pub(crate) struct Lane {
    name: String,
    capacity: usize,
    jobs: Mutex<VecDeque<Job>>,
    wake: Notify,
    dropped: AtomicU64,
    shared: Arc<Shared>,
}

impl Lane {
    pub(crate) fn new(name: &str, capacity: usize, shared: Arc<Shared>) -> Self {
        Lane {
            name: name.to_owned(),
            capacity: capacity.max(1),
            jobs: Mutex::new(VecDeque::new()),
            wake: Notify::new(),
            dropped: AtomicU64::new(0),
            shared,
        }
    }

    /// Appends `job`; when the lane is full its oldest job is dropped (an
    /// awaiting caller sees its reply channel close) and counted.
    pub(crate) fn push(&self, job: Job) {
        self.shared.pending.fetch_add(1, Ordering::AcqRel);
        let evicted = {
            let mut jobs = self.jobs.lock().unwrap_or_else(PoisonError::into_inner);
            let evicted = (jobs.len() >= self.capacity)
                .then(|| jobs.pop_front())
                .flatten();
            jobs.push_back(job);
            evicted
        };
        self.wake.notify_one();
        if let Some(old) = evicted {
            let count = self.dropped.fetch_add(1, Ordering::Relaxed) + 1;
            let name = &self.name;
            let event = &old.event;
            if count == 1 || count.is_power_of_two() {
                tracing::warn!(hook = %name, "[hooks] {name} is behind: dropped its oldest queued event ({event}); {count} dropped so far (queue size {})", self.capacity);
            }
            drop(old);
            self.shared.finish_one();
        }
    }

    /// Events dropped because the lane was full.
    pub(crate) fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// Events waiting (not counting the one being handled).
    pub(crate) fn queued(&self) -> usize {
        self.jobs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    fn pop(&self) -> Option<Job> {
        self.jobs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop_front()
    }

    /// Serves the lane forever: one job at a time, in order.
    pub(crate) async fn serve(self: Arc<Self>, mut runner: Runner, timeout: Duration) {
        // A handler that cannot be imported fails every event the same way:
        // shown once (the trial import at discovery may have shown it already).
        let mut unloadable_shown = runner.broken_at_discovery();
        loop {
            let Some(job) = self.pop() else {
                self.wake.notified().await;
                continue;
            };
            let Some(budget) = job.budget(timeout) else {
                // Its caller stopped waiting already: the answer would be ignored.
                let name = &self.name;
                let event = &job.event;
                tracing::debug!(hook = %name, "[hooks] {name}: '{event}' not run, its bound passed while it was queued");
                drop(job);
                self.shared.finish_one();
                continue;
            };
            let result = runner.call(&job.body, budget).await;
            match job.reply {
                Some(reply) => {
                    let _ = reply.send(result);
                }
                None => match result {
                    Err(error @ HandlerError::Unloadable { .. }) if unloadable_shown => {
                        let name = &self.name;
                        tracing::debug!(hook = %name, "[hooks] Skipping {name}: {error}");
                    }
                    Err(error) => {
                        unloadable_shown |= matches!(error, HandlerError::Unloadable { .. });
                        log_failure(&self.name, &job.event, &error);
                    }
                    Ok(_) => {}
                },
            }
            self.shared.finish_one();
        }
    }
}

/// Logs a handler failure as a warning naming the hook and the event.
pub(crate) fn log_failure(name: &str, event: &str, error: &HandlerError) {
    tracing::warn!(hook = %name, event, "[hooks] Error in handler for '{event}' ({name}): {error}");
}
