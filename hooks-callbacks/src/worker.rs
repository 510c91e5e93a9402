//! Persistent worker threads (shared by all callbacks of one `Callbacks`) and
//! the slots through which a caller hands one an event's batch of calls.
//!
//! Each worker has two cache-padded parts written by its holder (the caller
//! that took it from the pool, `worker/pool.rs`):
//!
//! - The *request* holds the signal (`JOB`, `EXIT`), the `parked` flag
//!   and the worker's thread: the line an idle worker looks at, and nothing
//!   else, so a waking worker and a caller writing a job do not pull one
//!   line back and forth.
//! - The *job* slot holds the [`Batch`] (the event and its calls, see
//!   `batch.rs`).
//!
//! The worker takes the batch, runs its calls in order, puts itself back in
//! the pool and only then tells the caller (so a caller firing the next
//! event finds it there instead of starting a thread).
//!
//! After a batch a worker parks at once (a spin-then-yield wait gave its
//! CPU slice to busy loops under load, see `batch.rs`'s `wait`). After
//! [`IDLE_RETIRE`] without work, or when its pool closes, it exits.

use std::panic::AssertUnwindSafe;
use std::sync::{Arc, OnceLock};
use std::thread::Thread;
use std::time::{Duration, Instant};

use crossbeam_utils::CachePadded;
use futures::FutureExt;

use super::batch::Batch;
use super::registry::CallbackFn;
use super::{CallbackError, CallbackResult};
use hermes_hooks_core::event::Event;

mod doorbell;
mod pool;
mod signal_word;
use doorbell::Doorbell;
use pool::{JobSlot, Leave, Parked, Pool};
use signal_word::{EXIT, JOB};

/// The atomics and locks the doorbell and the pool use (loom's in their
/// model tests, `tests/loom_doorbell.rs` and `tests/loom_pool.rs`).
mod sync {
    pub(super) use std::sync::atomic::{AtomicBool, AtomicU32, Ordering, fence};
    pub(super) use std::sync::{Mutex, MutexGuard};
}

/// The workers shared by every callback of one [`super::Callbacks`].
pub(crate) type WorkerPool = Pool<WorkerHandle>;

/// How long an idle worker waits for work before its thread exits.
pub(crate) const IDLE_RETIRE: Duration = Duration::from_secs(30);

/// The signal a caller gives a worker: the line an idle worker polls, so it
/// holds nothing else (a caller's writes to the job then never pull it from
/// a polling worker, nor the worker's polls the job from the caller).
struct Request {
    /// The signal word and the parked flag (`doorbell.rs`).
    bell: Doorbell,
    /// Set by the worker itself before it can first park (the spawner
    /// setting it after `spawn` returned was too late: the worker can run its
    /// first batch, put itself back and park before that, and a caller that
    /// took it then found no thread to unpark: a 30 s lost wake-up).
    thread: OnceLock<Thread>,
}

/// One worker thread as callers see it.
pub(crate) struct WorkerHandle {
    request: CachePadded<Request>,
    /// The job, on a line of its own: put in by the caller before the
    /// signal, taken out by the worker.
    job: CachePadded<JobSlot<Arc<Batch>>>,
}

impl WorkerHandle {
    /// A worker whose doorbell was already rung `rung`.
    fn new(rung: u32) -> Self {
        WorkerHandle {
            request: CachePadded::new(Request {
                bell: Doorbell::new(rung),
                thread: OnceLock::new(),
            }),
            job: CachePadded::new(JobSlot::default()),
        }
    }

    /// Writes `batch` into the job slot (the signal is left to the caller).
    fn load(&self, batch: &Arc<Batch>) {
        self.job.put(Arc::clone(batch));
    }

    /// Moves the worker to `signal` (`JOB` or `EXIT`), waking it if it parked.
    fn signal(&self, signal: u32) {
        if self.request.bell.ring(signal) {
            self.nudge();
        }
    }
}

impl Parked for WorkerHandle {
    /// Wakes the worker (so an idle one notices its pool closed).
    fn nudge(&self) {
        if let Some(thread) = self.request.thread.get() {
            thread.unpark();
        }
    }

    /// Lets a worker the pool has no room for exit.
    fn dismiss(&self) {
        self.signal(EXIT);
    }
}

/// Hands `batch` to an idle worker of `pool`, or to a new one.
pub(crate) fn hand_over(pool: &Arc<WorkerPool>, batch: &Arc<Batch>) -> std::io::Result<()> {
    match pool.take_idle() {
        Some(worker) => {
            worker.load(batch);
            worker.signal(JOB);
            Ok(())
        }
        None => spawn(pool, batch),
    }
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

/// Starts a worker thread whose first job is `batch`.
fn spawn(pool: &Arc<WorkerPool>, batch: &Arc<Batch>) -> std::io::Result<()> {
    // Its first job is given before it starts: the word says so already.
    let worker = Arc::new(WorkerHandle::new(signal_word::next(0, JOB)));
    worker.load(batch);
    let (me, pool) = (Arc::clone(&worker), Arc::clone(pool));
    let spawned = std::thread::Builder::new()
        .name("hook-worker".into())
        .spawn(move || worker_main(&pool, &me));
    match spawned {
        Ok(_) => Ok(()),
        Err(error) => {
            // The batch never ran: the caller takes its calls back.
            drop(worker.job.take());
            Err(error)
        }
    }
}

fn worker_main(pool: &Arc<WorkerPool>, me: &Arc<WorkerHandle>) {
    // Before anything else: whoever sees this worker parked must find its
    // thread (the doorbell's Release store of `parked` publishes it).
    let _ = me.request.thread.set(std::thread::current());
    // The signal word the worker last acted on.
    let mut seen = 0;
    while wait_for_job(pool, me, &mut seen) {
        // Unreachable by construction without one (a caller loads it before `JOB`).
        let Some(batch) = me.job.take() else {
            pool.put_back(Arc::clone(me));
            continue;
        };
        batch.run();
        // Back in the pool before the caller wakes: its next event finds us.
        pool.put_back(Arc::clone(me));
        batch.complete();
    }
}

/// Waits until the worker has a job (true) or should exit (false), parked
/// (no spin: under load a spinning or yielding worker gave its CPU slice to
/// a busy loop and the caller waited for it, a 16 ms p99 for one guard).
/// `seen` is the signal word it last acted on, updated to the new one.
fn wait_for_job(pool: &WorkerPool, me: &Arc<WorkerHandle>, seen: &mut u32) -> bool {
    let request = &me.request;
    let last = *seen;
    let mut take = |word: u32| {
        *seen = word;
        signal_word::is_job(word)
    };
    let word = request.bell.word();
    if word != last {
        return take(word);
    }
    let mut idle_since = Instant::now();
    loop {
        let word = request
            .bell
            .sleep(last, || std::thread::park_timeout(IDLE_RETIRE));
        if word != last {
            return take(word);
        }
        let retire = idle_since.elapsed() >= IDLE_RETIRE;
        match pool.leave_if_idle(me, retire) {
            // Taken by a caller: its job is on the way.
            Leave::Taken => idle_since = Instant::now(),
            Leave::Stay => {}
            Leave::Left => return false,
        }
    }
}
