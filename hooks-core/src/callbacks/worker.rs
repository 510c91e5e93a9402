//! Persistent worker threads (shared by all callbacks of one `Callbacks`), and
//! the result slot a caller waits on.
//!
//! A worker runs one job at a time, then spins briefly (so a host firing events
//! back to back hands the next job over without a futex wake) and parks. After
//! [`IDLE_RETIRE`] without work, or when its pool closes, it exits.

use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::Thread;
use std::time::{Duration, Instant};

use futures::FutureExt;
use futures::task::AtomicWaker;

use super::registry::CallbackFn;
use super::runner::{CallGates, WorkerPool};
use super::{CallbackError, CallbackResult};
use crate::event::Event;

/// How long a worker spins for its next job before parking.
const WORKER_SPIN: Duration = Duration::from_micros(50);

/// How long an idle worker waits for work before its thread exits.
pub(crate) const IDLE_RETIRE: Duration = Duration::from_secs(30);

const WAITING: u8 = 0;
const DONE: u8 = 1;
const ABANDONED: u8 = 2;

/// Where a worker leaves its result; either the worker completes it or the
/// caller abandons it, never both (one compare-and-swap decides).
pub(crate) struct Slot {
    state: AtomicU8,
    result: Mutex<Option<CallbackResult>>,
    pub(crate) waker: AtomicWaker,
}

impl Slot {
    pub(crate) fn new() -> Self {
        Slot {
            state: AtomicU8::new(WAITING),
            result: Mutex::new(None),
            waker: AtomicWaker::new(),
        }
    }

    /// Whether the worker has delivered a result.
    #[inline]
    pub(crate) fn is_done(&self) -> bool {
        self.state.load(Ordering::Acquire) == DONE
    }

    /// The delivered result (call only after [`Slot::is_done`]).
    pub(crate) fn take(&self) -> CallbackResult {
        self.result
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .unwrap_or(Ok(None))
    }

    /// Marks the slot abandoned; false when the worker finished first.
    pub(crate) fn abandon(&self) -> bool {
        self.state
            .compare_exchange(WAITING, ABANDONED, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }

    /// Stores the result; false when the caller already abandoned the slot.
    pub(crate) fn complete(&self, result: CallbackResult) -> bool {
        *self.result.lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
        self.state
            .compare_exchange(WAITING, DONE, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }
}

/// One call handed to a worker.
pub(crate) struct Job {
    pub(crate) callback: CallbackFn,
    pub(crate) event: Event,
    pub(crate) slot: Arc<Slot>,
    /// The gates of the callback, and the entry this call holds there.
    pub(crate) gates: Arc<CallGates>,
    pub(crate) seq: u64,
    /// The caller's tokio runtime, entered while an async callback runs.
    pub(crate) runtime: Option<tokio::runtime::Handle>,
}

/// How long a spin stays on the CPU before it starts yielding it. Zero: on a
/// crowded 2-vCPU machine any busy spin measured worse (see BENCHMARKS.md);
/// raise it on hosts with idle cores.
const HOT_SPIN: Duration = Duration::from_micros(0);

/// Waits up to `budget` for `ready`, without sleeping: a hot spin first, then
/// yielding the CPU between checks, so on a crowded machine the thread we wait
/// for can run on ours. True when `ready` held.
pub(crate) fn spin_until(budget: Duration, ready: impl Fn() -> bool) -> bool {
    let started = Instant::now();
    let mut checks: u32 = 0;
    loop {
        if ready() {
            return true;
        }
        checks = checks.wrapping_add(1);
        if checks.is_multiple_of(16) {
            let spent = started.elapsed();
            if spent >= budget {
                return false;
            }
            if spent >= HOT_SPIN {
                std::thread::yield_now();
                continue;
            }
        }
        std::hint::spin_loop();
    }
}

/// The caller-facing side of a parked or spinning worker.
pub(crate) struct WorkerHandle {
    job: Mutex<Option<Job>>,
    has_job: AtomicBool,
    thread: Thread,
}

impl WorkerHandle {
    /// Gives the (idle) worker its next job.
    pub(crate) fn hand(&self, job: Job) {
        *self.job.lock().unwrap_or_else(|e| e.into_inner()) = Some(job);
        self.has_job.store(true, Ordering::Release);
        self.thread.unpark();
    }

    /// Wakes the worker so it notices its pool closed.
    pub(crate) fn nudge(&self) {
        self.thread.unpark();
    }

    fn take_job(&self) -> Option<Job> {
        if !self.has_job.swap(false, Ordering::AcqRel) {
            return None;
        }
        self.job.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    fn wait_for_job(self: &Arc<Self>, pool: &WorkerPool) -> Option<Job> {
        if spin_until(WORKER_SPIN, || self.has_job.load(Ordering::Acquire))
            && let Some(job) = self.take_job()
        {
            return Some(job);
        }
        let mut idle_since = Instant::now();
        loop {
            std::thread::park_timeout(IDLE_RETIRE);
            if let Some(job) = self.take_job() {
                return Some(job);
            }
            let retire = idle_since.elapsed() >= IDLE_RETIRE;
            match pool.leave_if_idle(self, retire) {
                // Popped by a caller: its job is on the way.
                Leave::Taken => idle_since = Instant::now(),
                Leave::Stay => {}
                Leave::Left => return None,
            }
        }
    }
}

/// What an idle worker should do after waking without a job.
pub(crate) enum Leave {
    /// A caller took this worker; wait for the job.
    Taken,
    /// Keep waiting.
    Stay,
    /// The worker left the pool; exit.
    Left,
}

/// Runs `callback` on `event`, turning a panic into a [`CallbackError`].
pub(crate) fn execute(
    callback: &CallbackFn,
    event: &Event,
    runtime: Option<&tokio::runtime::Handle>,
) -> CallbackResult {
    let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| match callback {
        CallbackFn::Sync(function) => function(event),
        CallbackFn::Async(function) => {
            let future = AssertUnwindSafe(function(event.clone())).catch_unwind();
            let caught = match runtime {
                Some(handle) => handle.block_on(future),
                None => futures::executor::block_on(future),
            };
            caught.unwrap_or_else(|payload| Err(CallbackError::from_panic(payload.as_ref())))
        }
    }));
    outcome.unwrap_or_else(|payload| Err(CallbackError::from_panic(payload.as_ref())))
}

/// Starts a worker thread whose first job is `job`.
pub(crate) fn spawn(pool: Arc<WorkerPool>, job: Job) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name("hook-worker".into())
        .spawn(move || worker_main(&pool, job))
        .map(drop)
}

fn worker_main(pool: &WorkerPool, first: Job) {
    let me = Arc::new(WorkerHandle {
        job: Mutex::new(None),
        has_job: AtomicBool::new(false),
        thread: std::thread::current(),
    });
    let mut job = first;
    loop {
        let result = execute(&job.callback, &job.event, job.runtime.as_ref());
        let stays = pool.rejoin(&me);
        let delivered = job.gates.finish(&job, result);
        if delivered {
            job.slot.waker.wake();
        }
        drop(job);
        if !stays {
            return;
        }
        match me.wait_for_job(pool) {
            Some(next) => job = next,
            None => return,
        }
    }
}
