//! Persistent worker threads (shared by all callbacks of one `Callbacks`) and
//! the mailbox through which a caller hands one a job and gets the result.
//!
//! The hand-off is built to move as few cache lines between threads as
//! possible: the caller writes the job into the worker's mailbox and flips
//! its state; the worker runs the callback, leaves the result *and the job*
//! in the mailbox and flips the state back. The caller then drops the job's
//! references, releases the call gate and returns the worker to the pool
//! itself, so in the common case only the mailbox crosses threads. Only a
//! call the caller gave up on (timeout, or its future dropped) is cleaned up
//! by the worker.
//!
//! After a job a worker spins briefly (so a host firing events back to back
//! hands over the next job without a futex wake) and parks. After
//! [`IDLE_RETIRE`] without work, or when its pool closes, it exits.

use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::task::Waker;
use std::thread::Thread;
use std::time::{Duration, Instant};

use futures::FutureExt;
use futures::task::AtomicWaker;

use super::registry::CallbackFn;
use super::runner::{CallGates, WorkerPool};
use super::spin::spin_until;
use super::{CallbackError, CallbackResult};
use crate::event::Event;

/// How long a worker spins for its next job before parking.
const WORKER_SPIN: Duration = Duration::from_micros(50);

/// How long an idle worker waits for work before its thread exits.
pub(crate) const IDLE_RETIRE: Duration = Duration::from_secs(30);

/// Mailbox states. A worker in the pool is `IDLE`; a caller that took it
/// stores `JOB`; the worker answers `DONE`, unless the caller first moved the
/// state to `ABANDONED` (timed out) or `CANCELLED` (its future was dropped).
/// `EXIT` tells a worker its pool has no room for it.
const IDLE: u8 = 0;
const JOB: u8 = 1;
const DONE: u8 = 2;
const ABANDONED: u8 = 3;
const CANCELLED: u8 = 4;
const EXIT: u8 = 5;

/// One call handed to a worker.
pub(crate) struct Job {
    pub(crate) callback: CallbackFn,
    pub(crate) event: Event,
    /// The gates of the callback, and the entry this call holds there.
    pub(crate) gates: Arc<CallGates>,
    pub(crate) seq: u64,
    /// The caller's tokio runtime, entered while an async callback runs.
    pub(crate) runtime: Option<tokio::runtime::Handle>,
}

#[derive(Default)]
struct Mailbox {
    job: Option<Job>,
    result: Option<CallbackResult>,
}

/// One worker thread as callers see it.
pub(crate) struct WorkerHandle {
    state: AtomicU8,
    /// The worker is (about to be) parked: whoever stores `JOB` or `EXIT` must unpark it.
    parked: AtomicBool,
    mailbox: Mutex<Mailbox>,
    /// The waiting caller's task, woken on `DONE`.
    waker: AtomicWaker,
    /// Set by the spawning caller right after the thread starts.
    thread: OnceLock<Thread>,
}

impl WorkerHandle {
    fn new(state: u8, job: Option<Job>) -> Self {
        WorkerHandle {
            state: AtomicU8::new(state),
            parked: AtomicBool::new(false),
            mailbox: Mutex::new(Mailbox { job, result: None }),
            waker: AtomicWaker::new(),
            thread: OnceLock::new(),
        }
    }

    fn mailbox(&self) -> MutexGuard<'_, Mailbox> {
        self.mailbox.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Moves the worker to `state` (`JOB` or `EXIT`), waking it if it parked.
    fn signal(&self, state: u8) {
        // SeqCst pairs with the worker's `parked` store and state re-check:
        // either it sees the new state or we see it parked.
        self.state.store(state, Ordering::SeqCst);
        if self.parked.load(Ordering::SeqCst) {
            self.nudge();
        }
    }

    /// Wakes the worker (so an idle one notices its pool closed).
    pub(crate) fn nudge(&self) {
        if let Some(thread) = self.thread.get() {
            thread.unpark();
        }
    }

    /// Lets a worker the pool has no room for exit.
    pub(crate) fn dismiss(&self) {
        self.signal(EXIT);
    }

    /// Marks a worker the pool took back as idle.
    pub(crate) fn make_idle(&self) {
        self.state.store(IDLE, Ordering::Release);
    }
}

/// A job running on a worker, from the caller's side. Dropping it before the
/// result was taken or given up on tells the worker to clean up after itself.
pub(crate) struct Call<'a> {
    worker: Option<Arc<WorkerHandle>>,
    pool: &'a Arc<WorkerPool>,
}

impl<'a> Call<'a> {
    /// Hands `job` to an idle worker of `pool`, or to a new one.
    pub(crate) fn start(pool: &'a Arc<WorkerPool>, job: Job) -> std::io::Result<Self> {
        let worker = match pool.take_idle() {
            Some(worker) => {
                worker.mailbox().job = Some(job);
                worker.signal(JOB);
                worker
            }
            None => spawn(pool, job)?,
        };
        Ok(Call {
            worker: Some(worker),
            pool,
        })
    }

    /// Whether the worker delivered the result.
    #[inline]
    pub(crate) fn is_done(&self) -> bool {
        self.worker
            .as_ref()
            .is_some_and(|worker| worker.state.load(Ordering::Acquire) == DONE)
    }

    /// Registers the task to wake when the result arrives.
    pub(crate) fn register(&self, waker: &Waker) {
        if let Some(worker) = &self.worker {
            worker.waker.register(waker);
        }
    }

    /// Takes the delivered result (call after [`Call::is_done`]): releases the
    /// call's gate and returns the worker to the pool.
    pub(crate) fn finish(&mut self) -> CallbackResult {
        let Some(worker) = self.worker.take() else {
            return Ok(None);
        };
        let (job, result) = {
            let mut mailbox = worker.mailbox();
            (mailbox.job.take(), mailbox.result.take())
        };
        if let Some(job) = job {
            job.gates.release(job.seq);
        }
        self.pool.put_back(worker);
        result.unwrap_or(Ok(None))
    }

    /// Gives up on the result; false when the worker delivered it first (then
    /// [`Call::finish`] takes it).
    pub(crate) fn abandon(&mut self) -> bool {
        self.give_up(ABANDONED)
    }

    fn give_up(&mut self, state: u8) -> bool {
        let Some(worker) = &self.worker else {
            return false;
        };
        let given_up = worker
            .state
            .compare_exchange(JOB, state, Ordering::AcqRel, Ordering::Acquire)
            .is_ok();
        if given_up {
            // The worker owns the job now and cleans up when it finishes.
            self.worker = None;
        }
        given_up
    }
}

impl Drop for Call<'_> {
    fn drop(&mut self) {
        if self.worker.is_some() && !self.give_up(CANCELLED) {
            // Delivered, but nobody will read it: still release gate and worker.
            drop(self.finish());
        }
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

/// Starts a worker thread whose first job is `job`.
fn spawn(pool: &Arc<WorkerPool>, job: Job) -> std::io::Result<Arc<WorkerHandle>> {
    let worker = Arc::new(WorkerHandle::new(JOB, Some(job)));
    let (me, pool) = (Arc::clone(&worker), Arc::clone(pool));
    let thread = std::thread::Builder::new()
        .name("hook-worker".into())
        .spawn(move || worker_main(&pool, &me))?;
    // Nobody can see the worker parked before this: it is ours until put back.
    let _ = worker.thread.set(thread.thread().clone());
    Ok(worker)
}

fn worker_main(pool: &WorkerPool, me: &Arc<WorkerHandle>) {
    loop {
        let job = me.mailbox().job.take();
        if let Some(job) = job {
            let result = execute(&job.callback, &job.event, job.runtime.as_ref());
            if !deliver(pool, me, job, result) {
                return;
            }
        }
        if !wait_for_job(pool, me) {
            return;
        }
    }
}

/// Leaves `result` for the caller, or cleans up after a caller that gave up.
/// False when the worker should exit.
fn deliver(pool: &WorkerPool, me: &Arc<WorkerHandle>, job: Job, result: CallbackResult) -> bool {
    let mut mailbox = me.mailbox();
    mailbox.job = Some(job);
    mailbox.result = Some(result);
    let given_up = me
        .state
        .compare_exchange(JOB, DONE, Ordering::AcqRel, Ordering::Acquire)
        .err();
    let Some(state) = given_up else {
        drop(mailbox);
        me.waker.wake();
        return true;
    };
    let job = mailbox.job.take();
    mailbox.result = None;
    drop(mailbox);
    if let Some(job) = job {
        job.gates.release_given_up(job.seq, state == ABANDONED);
    }
    pool.rejoin(me)
}

/// Waits until the worker has a job (true) or should exit (false).
fn wait_for_job(pool: &WorkerPool, me: &Arc<WorkerHandle>) -> bool {
    let decided = || matches!(me.state.load(Ordering::Acquire), JOB | EXIT);
    if spin_until(WORKER_SPIN, decided) {
        return me.state.load(Ordering::Acquire) == JOB;
    }
    let mut idle_since = Instant::now();
    loop {
        me.parked.store(true, Ordering::SeqCst);
        if !decided_seq_cst(me) {
            std::thread::park_timeout(IDLE_RETIRE);
        }
        me.parked.store(false, Ordering::Relaxed);
        match me.state.load(Ordering::Acquire) {
            JOB => return true,
            EXIT => return false,
            _ => {}
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

fn decided_seq_cst(me: &WorkerHandle) -> bool {
    matches!(me.state.load(Ordering::SeqCst), JOB | EXIT)
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
