//! Persistent worker threads (shared by all callbacks of one `Callbacks`) and
//! the slots through which a caller hands one a job and gets the result.
//!
//! The hand-off is built to move as few cache lines between threads as
//! possible, and to take no lock: each worker has cache-padded slots made of
//! lock-free atomics only, two from the caller and one back.
//!
//! - The *request* slot (caller → worker) holds the signal (`JOB`, `EXIT`),
//!   the `parked` flag and the worker's thread: the line an idle worker
//!   polls, and nothing else, so a polling worker and a caller writing a job
//!   do not pull one line back and forth for every write.
//! - The *job* slot (caller → worker) holds the call's entry, event, gate
//!   sequence number and runtime, and the caller's CPU. The worker takes
//!   entry and event out, runs the callback and puts them back, so the caller
//!   (not the worker) drops the references and their counts never leave the
//!   caller's cache.
//! - The *response* slot (worker → caller) holds the call's state (`RUNNING`,
//!   `WAITING`, `DONE`, or given up), the result (boxed only when there is
//!   one: a callback with nothing to say allocates nothing) and the waiting
//!   caller's waker. The worker marks the call done with one `swap` and wakes
//!   the caller only when it said it is waiting.
//!
//! The caller then releases the call gate and returns the worker to the pool
//! itself. Only a call the caller gave up on (timeout, or its future dropped)
//! is cleaned up by the worker.
//!
//! The job and response slots also carry where their writer last ran
//! (`caller_cpu`, `worker_cpu`): the waiting side spins hot for a moment
//! only when its partner is on another CPU, and yields at once when it
//! shares ours (see `spin.rs`).
//!
//! After a job a worker spins briefly (so a host firing events back to back
//! hands over the next job without a futex wake) and parks. After
//! [`IDLE_RETIRE`] without work, or when its pool closes, it exits.

use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::task::Waker;
use std::thread::Thread;
use std::time::{Duration, Instant};

use crossbeam_utils::CachePadded;
use crossbeam_utils::atomic::AtomicCell;
use futures::FutureExt;
use futures::task::AtomicWaker;
use serde_json::Value;

use super::registry::{CallbackFn, Entry};
use super::runner::WorkerPool;
use super::spin::{HotPhase, NO_CPU, Pace, Partner, current_cpu, locate, spin_until};
use super::{CallbackError, CallbackResult};
use hermes_hooks_core::event::Event;

mod signal_word;
use signal_word::{EXIT, JOB};

/// How long a worker spins for its next job before parking.
const WORKER_SPIN: Duration = Duration::from_micros(50);

/// How much of that spin may be hot (no yield): a host firing calls back to
/// back hands over the next job within a few hundred nanoseconds.
const WORKER_HOT: Duration = Duration::from_micros(2);

/// How long an idle worker waits for work before its thread exits.
pub(crate) const IDLE_RETIRE: Duration = Duration::from_secs(30);

/// Call states in the response slot. A job starts `RUNNING`; a caller that
/// registered its waker moves it to `WAITING`; the worker's `swap` to `DONE`
/// decides the race against a caller that gave up (`ABANDONED` on timeout,
/// `CANCELLED` when its future was dropped): whoever swaps second sees the
/// other's value.
const RUNNING: u8 = 0;
const WAITING: u8 = 1;
const DONE: u8 = 2;
const ABANDONED: u8 = 3;
const CANCELLED: u8 = 4;

// The slots take no lock: every cell must be one machine word.
const _: () = assert!(AtomicCell::<Option<Arc<Entry>>>::is_lock_free());
const _: () = assert!(AtomicCell::<Option<Event>>::is_lock_free());
const _: () = assert!(AtomicCell::<Option<Box<CallbackResult>>>::is_lock_free());
const _: () = assert!(AtomicCell::<Option<Box<tokio::runtime::Handle>>>::is_lock_free());

/// The signal a caller gives a worker: the line an idle worker polls, so it
/// holds nothing else (a caller's writes to the job then never pull it from
/// a polling worker, nor the worker's polls the job from the caller).
struct Request {
    /// The count of signals given and the last one (`signal_word`); 0
    /// before the first.
    signal: AtomicU32,
    /// The worker is (about to be) parked: whoever stores `JOB` or `EXIT` must unpark it.
    parked: AtomicBool,
    /// Set by the spawning caller right after the thread starts.
    thread: OnceLock<Thread>,
}

/// The job a caller hands a worker, on a line of its own: written by the
/// caller before the signal, taken out and put back by the worker.
struct JobSlot {
    seq: AtomicU64,
    /// The CPU the caller loaded the job on ([`NO_CPU`] if unknown).
    caller_cpu: AtomicU32,
    entry: AtomicCell<Option<Arc<Entry>>>,
    event: AtomicCell<Option<Event>>,
    /// The caller's tokio runtime, entered while an async callback runs.
    runtime: AtomicCell<Option<Box<tokio::runtime::Handle>>>,
}

/// What a worker hands back; written by the worker, read by the caller.
struct Response {
    state: AtomicU8,
    /// The CPU the worker delivered its last result on ([`NO_CPU`] before
    /// the first): the caller's hint for its next wait on this worker.
    worker_cpu: AtomicU32,
    /// The result, when it is not "no reply" (`Ok(None)` travels as `None`).
    result: AtomicCell<Option<Box<CallbackResult>>>,
    /// The waiting caller's task, woken on `DONE` when the state was `WAITING`.
    waker: AtomicWaker,
}

/// One worker thread as callers see it.
pub(crate) struct WorkerHandle {
    request: CachePadded<Request>,
    job: CachePadded<JobSlot>,
    response: CachePadded<Response>,
}

/// One call as the caller describes it.
pub(crate) struct Job<'a> {
    pub(crate) entry: &'a Arc<Entry>,
    pub(crate) event: &'a Event,
    /// The call's entry in the callback's gates.
    pub(crate) seq: u64,
    pub(crate) runtime: Option<tokio::runtime::Handle>,
}

impl WorkerHandle {
    fn new() -> Self {
        WorkerHandle {
            request: CachePadded::new(Request {
                signal: AtomicU32::new(0),
                parked: AtomicBool::new(false),
                thread: OnceLock::new(),
            }),
            job: CachePadded::new(JobSlot {
                seq: AtomicU64::new(0),
                caller_cpu: AtomicU32::new(NO_CPU),
                entry: AtomicCell::new(None),
                event: AtomicCell::new(None),
                runtime: AtomicCell::new(None),
            }),
            response: CachePadded::new(Response {
                state: AtomicU8::new(RUNNING),
                worker_cpu: AtomicU32::new(NO_CPU),
                result: AtomicCell::new(None),
                waker: AtomicWaker::new(),
            }),
        }
    }

    /// Writes `job` into the request slot (the signal is left to the caller).
    fn load(&self, job: Job<'_>) {
        let request = &self.job;
        request.seq.store(job.seq, Ordering::Relaxed);
        request.caller_cpu.store(current_cpu(), Ordering::Relaxed);
        request.entry.store(Some(Arc::clone(job.entry)));
        request.event.store(Some(job.event.clone()));
        if let Some(runtime) = job.runtime {
            request.runtime.store(Some(Box::new(runtime)));
        }
    }

    /// Takes the references of the last job back out of the request slot.
    fn unload(&self) -> Option<Arc<Entry>> {
        let request = &self.job;
        drop(request.event.take());
        let entry = request.entry.take();
        // Only an async callback's job carries a runtime (see `run_bounded`).
        if entry.as_deref().is_none_or(Entry::is_async) {
            drop(request.runtime.take());
        }
        entry
    }

    /// Moves the worker to `signal` (`JOB` or `EXIT`), waking it if it
    /// parked; true when it had to be woken.
    fn signal(&self, signal: u32) -> bool {
        // Only the worker's holder writes the word: this load is ours.
        let next = signal_word::next(self.request.signal.load(Ordering::Relaxed), signal);
        // SeqCst pairs with the worker's `parked` store and signal re-check:
        // either it sees the new signal or we see it parked.
        self.request.signal.store(next, Ordering::SeqCst);
        let parked = self.request.parked.load(Ordering::SeqCst);
        if parked {
            self.nudge();
        }
        parked
    }

    /// Wakes the worker (so an idle one notices its pool closed).
    pub(crate) fn nudge(&self) {
        if let Some(thread) = self.request.thread.get() {
            thread.unpark();
        }
    }

    /// Lets a worker the pool has no room for exit.
    pub(crate) fn dismiss(&self) {
        let _ = self.signal(EXIT);
    }
}

/// A job running on a worker, from the caller's side. Dropping it before the
/// result was taken or given up on tells the worker to clean up after itself.
pub(crate) struct Call<'a> {
    worker: Option<Arc<WorkerHandle>>,
    pool: &'a Arc<WorkerPool>,
    /// The worker was parked or new: waking it puts it on a CPU the
    /// scheduler picks (often the caller's), so the caller should not spin hot.
    woke: bool,
}

impl<'a> Call<'a> {
    /// Hands `job` to an idle worker of `pool`, or to a new one.
    pub(crate) fn start(pool: &'a Arc<WorkerPool>, job: Job<'_>) -> std::io::Result<Self> {
        let (worker, woke) = match pool.take_idle() {
            Some(worker) => {
                worker.load(job);
                let woke = worker.signal(JOB);
                (worker, woke)
            }
            None => (spawn(pool, job)?, true),
        };
        Ok(Call {
            worker: Some(worker),
            pool,
            woke,
        })
    }

    /// Where the worker is: a worker just woken is treated as on our CPU
    /// (the scheduler often wakes it there, and it takes microseconds to run
    /// anyway); a running one is where it delivered its last result.
    pub(crate) fn partner(&self) -> Partner {
        match &self.worker {
            _ if self.woke => Partner::Here,
            Some(worker) => locate(worker.response.worker_cpu.load(Ordering::Relaxed)),
            None => Partner::Unknown,
        }
    }

    /// Whether the worker delivered the result.
    #[inline]
    pub(crate) fn is_done(&self) -> bool {
        self.worker
            .as_ref()
            .is_some_and(|worker| worker.response.state.load(Ordering::Acquire) == DONE)
    }

    /// Registers the task to wake when the result arrives; true when it
    /// already has (then no wake comes: take it with [`Call::finish`]).
    pub(crate) fn wait_with(&self, waker: &Waker) -> bool {
        let Some(worker) = &self.worker else {
            return true;
        };
        worker.response.waker.register(waker);
        // After the waker is in place: a worker that swaps `DONE` in after
        // this sees `WAITING` and wakes it.
        match worker.response.state.compare_exchange(
            RUNNING,
            WAITING,
            Ordering::AcqRel,
            Ordering::Acquire,
        ) {
            Ok(_) => false,
            Err(state) => state == DONE,
        }
    }

    /// Takes the delivered result (call after [`Call::is_done`]): releases the
    /// call's gate and returns the worker to the pool.
    pub(crate) fn finish(&mut self) -> CallbackResult {
        let Some(worker) = self.worker.take() else {
            return Ok(None);
        };
        let result = worker.response.result.take();
        // The worker is ours until put back: the next job starts `RUNNING`.
        worker.response.state.store(RUNNING, Ordering::Relaxed);
        let seq = worker.job.seq.load(Ordering::Relaxed);
        if let Some(entry) = worker.unload() {
            entry.gates.release(seq);
        }
        self.pool.put_back(worker);
        result.map_or(Ok(None), |result| *result)
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
        if worker.response.state.swap(state, Ordering::AcqRel) == DONE {
            return false;
        }
        // The worker owns the job now and cleans up when it finishes.
        self.worker = None;
        true
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
fn spawn(pool: &Arc<WorkerPool>, job: Job<'_>) -> std::io::Result<Arc<WorkerHandle>> {
    let worker = Arc::new(WorkerHandle::new());
    worker.load(job);
    worker
        .request
        .signal
        .store(signal_word::next(0, JOB), Ordering::Relaxed);
    let (me, pool) = (Arc::clone(&worker), Arc::clone(pool));
    let spawned = std::thread::Builder::new()
        .name("hook-worker".into())
        .spawn(move || worker_main(&pool, &me));
    let thread = match spawned {
        Ok(thread) => thread,
        Err(error) => {
            // The job never ran: its references go back to the caller's side.
            drop(worker.unload());
            return Err(error);
        }
    };
    // Nobody can see the worker parked before this: it is ours until put back.
    let _ = worker.request.thread.set(thread.thread().clone());
    Ok(worker)
}

fn worker_main(pool: &WorkerPool, me: &Arc<WorkerHandle>) {
    // What the worker's own waits for a job learned (only it reads this).
    let hot = HotPhase::default();
    // The signal word the worker last acted on.
    let mut seen = 0;
    while wait_for_job(pool, me, &hot, &mut seen) {
        let request = &me.job;
        let entry = request.entry.take();
        let event = request.event.take();
        // A sync callback's job has no runtime: one atomic swap fewer each way.
        let runtime = if entry.as_deref().is_none_or(Entry::is_async) {
            request.runtime.take()
        } else {
            None
        };
        let result = match (&entry, &event) {
            (Some(entry), Some(event)) => execute(&entry.callback, event, runtime.as_deref()),
            // Unreachable by construction (a caller loads both before `JOB`);
            // a call that lost its job must still answer.
            _ => Err(CallbackError::msg("worker received no job")),
        };
        // Back where the caller takes them: their counts stay in its cache.
        request.entry.store(entry);
        request.event.store(event);
        if runtime.is_some() {
            request.runtime.store(runtime);
        }
        if !deliver(pool, me, result) {
            return;
        }
    }
}

/// Leaves `result` for the caller, or cleans up after a caller that gave up.
/// False when the worker should exit.
fn deliver(pool: &WorkerPool, me: &Arc<WorkerHandle>, result: CallbackResult) -> bool {
    let response = &me.response;
    let boxed = match result {
        Ok(None | Some(Value::Null)) => None,
        other => Some(Box::new(other)),
    };
    response.result.store(boxed);
    // Same line as the state: the caller reads it with the result.
    response.worker_cpu.store(current_cpu(), Ordering::Relaxed);
    let given_up = match response.state.swap(DONE, Ordering::AcqRel) {
        RUNNING => return true,
        WAITING => {
            response.waker.wake();
            return true;
        }
        given_up => given_up,
    };
    drop(response.result.take());
    let seq = me.job.seq.load(Ordering::Relaxed);
    if let Some(entry) = me.unload() {
        entry.gates.release_given_up(seq, given_up == ABANDONED);
    }
    response.state.store(RUNNING, Ordering::Relaxed);
    pool.rejoin(me)
}

/// Waits until the worker has a job (true) or should exit (false); spins
/// hot first when its last caller ran on another CPU and `hot` allows it,
/// and yields at every check when the caller shares its CPU.
/// `seen` is the signal word it last acted on, updated to the new one.
fn wait_for_job(pool: &WorkerPool, me: &Arc<WorkerHandle>, hot: &HotPhase, seen: &mut u32) -> bool {
    let request = &me.request;
    let last = *seen;
    let decided = || request.signal.load(Ordering::Acquire) != last;
    let caller = locate(me.job.caller_cpu.load(Ordering::Relaxed));
    let pace = Pace::towards(caller, hot, WORKER_HOT);
    let spun = spin_until(WORKER_SPIN, pace, decided);
    if matches!(pace, Pace::Hot(_)) {
        hot.learn(spun);
    }
    let mut take = |word: u32| {
        *seen = word;
        signal_word::is_job(word)
    };
    if spun.ready() {
        return take(request.signal.load(Ordering::Acquire));
    }
    let mut idle_since = Instant::now();
    loop {
        request.parked.store(true, Ordering::SeqCst);
        if request.signal.load(Ordering::SeqCst) == last {
            std::thread::park_timeout(IDLE_RETIRE);
        }
        request.parked.store(false, Ordering::Relaxed);
        let word = request.signal.load(Ordering::Acquire);
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

/// What an idle worker should do after waking without a job.
pub(crate) enum Leave {
    /// A caller took this worker; wait for the job.
    Taken,
    /// Keep waiting.
    Stay,
    /// The worker left the pool; exit.
    Left,
}
