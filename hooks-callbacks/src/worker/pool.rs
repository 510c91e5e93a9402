//! The pool of idle workers and the slot a caller hands a worker its job
//! through. Both are plain mutexes: the pool was a lock-free "hot" slot (one
//! atomic swap to take or put back the last worker) beside a locked list,
//! with a `closed` flag read before and after the swap; one uncontended lock
//! measured as fast under load (docs/decisions/worker-pool-plain-mutex.md)
//! and leaves no interleaving to reason about. The list is a stack: the
//! worker put back last, still warm, is the one taken next.
//!
//! Generic over the worker so `tests/loom_pool.rs` includes this file with
//! loom's `Mutex` as `super::sync` and checks the whole hand-off (claim,
//! publish the job, ring, take it, run, return to the pool, complete) with
//! the real doorbell.

use std::sync::Arc;

use super::sync::{Mutex, MutexGuard};

/// How many finished workers a pool keeps parked for reuse.
pub(crate) const MAX_IDLE_WORKERS: usize = 8;

/// What the pool asks of a parked worker.
pub(crate) trait Parked {
    /// Tells the worker to exit (it rings the worker's doorbell: only the
    /// worker's holder may, and the pool holds the workers it lists).
    fn dismiss(&self);
    /// Wakes the worker so it looks at the pool again.
    fn nudge(&self);
}

/// The idle workers of one pool.
pub(crate) struct Pool<W> {
    state: Mutex<State<W>>,
}

struct State<W> {
    /// Parked workers, the warmest last.
    idle: Vec<Arc<W>>,
    closed: bool,
}

impl<W> Default for Pool<W> {
    fn default() -> Self {
        Pool {
            state: Mutex::new(State {
                idle: Vec::new(),
                closed: false,
            }),
        }
    }
}

/// What an idle worker should do after waking without a job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Leave {
    /// A caller took this worker; wait for the job.
    Taken,
    /// Keep waiting.
    Stay,
    /// The worker left the pool; exit.
    Left,
}

impl<W: Parked> Pool<W> {
    fn lock(&self) -> MutexGuard<'_, State<W>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Stops idle workers (each wakes, finds the pool closed and leaves);
    /// busy ones are dismissed when they come back.
    pub(crate) fn close(&self) {
        let mut state = self.lock();
        state.closed = true;
        state.idle.iter().for_each(|worker| worker.nudge());
    }

    /// Claims the warmest idle worker: the caller now holds it and is the
    /// one who may ring it.
    pub(crate) fn take_idle(&self) -> Option<Arc<W>> {
        self.lock().idle.pop()
    }

    /// Takes back a worker that finished its job (called by the worker
    /// before it tells its caller, so the caller's next event finds it), or
    /// dismisses it when the pool is closed; past [`MAX_IDLE_WORKERS`] the
    /// coldest one is dismissed.
    pub(crate) fn put_back(&self, worker: Arc<W>) {
        let mut state = self.lock();
        let dismissed = if state.closed {
            Some(worker)
        } else {
            state.idle.push(worker);
            (state.idle.len() > MAX_IDLE_WORKERS).then(|| state.idle.remove(0))
        };
        drop(state);
        if let Some(worker) = dismissed {
            worker.dismiss();
        }
    }

    /// Called by an idle worker that woke without a job: whether a caller
    /// took it meanwhile, or it stays, or it leaves (when `retire`, or when
    /// the pool closed).
    pub(crate) fn leave_if_idle(&self, worker: &Arc<W>, retire: bool) -> Leave {
        let mut state = self.lock();
        let Some(position) = state.idle.iter().position(|w| Arc::ptr_eq(w, worker)) else {
            return Leave::Taken;
        };
        if !retire && !state.closed {
            return Leave::Stay;
        }
        state.idle.remove(position);
        Leave::Left
    }
}

/// The slot a worker's job waits in: filled by the caller holding the
/// worker before it rings, emptied by the worker after the ring.
pub(crate) struct JobSlot<T> {
    job: Mutex<Option<T>>,
}

impl<T> Default for JobSlot<T> {
    fn default() -> Self {
        JobSlot {
            job: Mutex::new(None),
        }
    }
}

impl<T> JobSlot<T> {
    /// Puts the job in (the caller, before ringing).
    pub(crate) fn put(&self, job: T) {
        *self.job.lock().unwrap_or_else(|e| e.into_inner()) = Some(job);
    }

    /// Takes the job out (the worker, after the ring; the caller, when the
    /// worker thread could not start).
    pub(crate) fn take(&self) -> Option<T> {
        self.job.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}
