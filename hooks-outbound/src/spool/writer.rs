//! The spool's writer: every durable delivery of a process goes through it.
//! An emitting thread that finds nobody committing commits the queued rows
//! itself (no hand-off to another thread and back); rows that arrive while a
//! commit runs wait and share the next transaction (group commit: one
//! commit, and with `durability: power_loss` one fsync, for many emits). The
//! writer's own thread takes over while the spool fails: it holds and
//! retries.
//!
//! A spool that cannot be written (missing, corrupt, full, read-only, or not
//! openable at all) loses nothing silently: the rows are *held* in a bounded
//! queue in memory and written, oldest first, as soon as a retry succeeds;
//! past the bound a row is refused and counted (`spool_failed`). Rows still
//! held when the process stops are counted as failed too.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use serde::Serialize;

use super::{Durability, NewDelivery, Spool, SpoolError};

/// How many rows the writer holds in memory while the spool cannot be written.
pub const DEFAULT_HOLD_CAPACITY: usize = 4096;
/// How often a failing spool is tried again (opened, or written).
const RETRY_EVERY: Duration = Duration::from_millis(200);
/// The most rows one transaction takes.
const MAX_BATCH: usize = 512;

/// A delivery handed to the writer (owned: it may outlive the emit).
#[derive(Debug, Clone)]
pub struct OwnedDelivery {
    /// [`super::target_key`] of the target.
    pub target_key: String,
    /// The target's label.
    pub target: String,
    /// The event name.
    pub event: String,
    /// The delivery id.
    pub delivery_id: String,
    /// The event's document.
    pub document: Vec<u8>,
    /// The target's `max_spool`.
    pub max_rows: u64,
}

impl OwnedDelivery {
    fn borrowed(&self) -> NewDelivery<'_> {
        NewDelivery {
            target_key: &self.target_key,
            target: &self.target,
            event: &self.event,
            delivery_id: &self.delivery_id,
            document: &self.document,
            max_rows: self.max_rows,
        }
    }
}

/// What became of one row handed to [`SpoolWriter::write`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteOutcome {
    /// Committed to the spool.
    Written,
    /// Refused: its target already holds `max_spool` rows.
    Full,
    /// The spool could not be written: held in memory, written when it recovers.
    Held,
    /// The spool could not be written and the hold was full: not kept
    /// (counted in [`WriterStats::spool_failed`]).
    Refused,
}

/// The writer's counters, for reports, `hooks emit --json` and metrics.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct WriterStats {
    /// Rows committed.
    pub written: u64,
    /// Rows held in memory right now (the spool could not take them yet).
    pub held: u64,
    /// Rows that were held and later written.
    pub recovered: u64,
    /// Rows lost: refused with the hold full, or still held when the writer stopped.
    pub spool_failed: u64,
    /// Of `spool_failed`: rows still held when the writer stopped.
    pub lost_at_stop: u64,
    /// Transactions that failed.
    pub write_errors: u64,
    /// The last error, while the spool is failing (`None` once a write succeeds).
    pub last_error: Option<String>,
}

/// Called after each commit that wrote rows (wakes or starts the worker).
pub type OnWritten = Box<dyn Fn(&Arc<Spool>) + Send + Sync>;

struct State {
    spool: Option<Arc<Spool>>,
    queue: Vec<(u64, OwnedDelivery)>,
    held: VecDeque<OwnedDelivery>,
    results: HashMap<u64, WriteOutcome>,
    next_ticket: u64,
    stopping: bool,
    /// A batch is being committed (by an emitter or the thread).
    committing: bool,
    stats: WriterStats,
}

struct Shared {
    path: PathBuf,
    durability: Durability,
    hold_capacity: usize,
    state: Mutex<State>,
    work: Condvar,
    done: Condvar,
    on_written: OnWritten,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The writer thread of one spool file.
pub struct SpoolWriter {
    shared: Arc<Shared>,
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl std::fmt::Debug for SpoolWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SpoolWriter")
            .field("path", &self.shared.path)
            .field("stats", &self.stats())
            .finish()
    }
}

impl SpoolWriter {
    /// Starts the writer of the spool at `path`; `spool` is the spool when
    /// it could be opened already (else the thread keeps trying to open it).
    pub fn start(
        path: &Path,
        spool: Option<Arc<Spool>>,
        durability: Durability,
        hold_capacity: usize,
        on_written: OnWritten,
    ) -> Result<SpoolWriter, SpoolError> {
        let shared = Arc::new(Shared {
            path: path.to_owned(),
            durability,
            hold_capacity,
            state: Mutex::new(State {
                spool,
                queue: Vec::new(),
                held: VecDeque::new(),
                results: HashMap::new(),
                next_ticket: 0,
                stopping: false,
                committing: false,
                stats: WriterStats::default(),
            }),
            work: Condvar::new(),
            done: Condvar::new(),
            on_written,
        });
        let running = shared.clone();
        let thread = std::thread::Builder::new()
            .name("hooks-spool-writer".into())
            .spawn(move || run(&running))
            .map_err(|source| SpoolError::Io {
                path: path.to_owned(),
                source,
            })?;
        Ok(SpoolWriter {
            shared,
            thread: Mutex::new(Some(thread)),
        })
    }

    /// Hands `delivery` to the writer and waits for its commit (shared with
    /// the rows handed in meanwhile). Never waits for a failing spool: the
    /// row is then held, or refused when the hold is full.
    pub fn write(&self, delivery: OwnedDelivery) -> WriteOutcome {
        let mut state = self.shared.lock();
        if state.stopping {
            state.stats.spool_failed += 1;
            return WriteOutcome::Refused;
        }
        let ticket = state.next_ticket;
        state.next_ticket += 1;
        state.queue.push((ticket, delivery));
        loop {
            if let Some(outcome) = state.results.remove(&ticket) {
                return outcome;
            }
            if state.committing {
                // Rows arriving meanwhile share the next commit.
                state = self
                    .shared
                    .done
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner);
            } else if state.spool.is_some() && state.held.is_empty() && !state.stopping {
                // A healthy spool and nobody committing: this thread commits
                // the queue itself (no hand-off to the writer thread and back).
                state = commit_queued(&self.shared, state);
            } else {
                // A failing spool: the writer thread holds and retries.
                self.shared.work.notify_one();
                state = self
                    .shared
                    .done
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner);
            }
        }
    }

    /// The spool, once it could be opened.
    pub fn spool(&self) -> Option<Arc<Spool>> {
        self.shared.lock().spool.clone()
    }

    /// The counters.
    pub fn stats(&self) -> WriterStats {
        self.shared.lock().stats.clone()
    }

    /// Tries the held rows once more, then stops the thread; rows still held
    /// are lost and counted in `spool_failed`. Returns the final counters.
    pub fn stop(&self) -> WriterStats {
        {
            let mut state = self.shared.lock();
            state.stopping = true;
            self.shared.work.notify_one();
        }
        let thread = self
            .thread
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(thread) = thread {
            let _ = thread.join();
        }
        self.stats()
    }
}

impl Drop for SpoolWriter {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Commits up to a batch of the queued rows on the calling (emitting)
/// thread, with the lock released meanwhile; answers their emitters.
fn commit_queued<'a>(
    shared: &'a Shared,
    mut state: MutexGuard<'a, State>,
) -> MutexGuard<'a, State> {
    state.committing = true;
    let take = state.queue.len().min(MAX_BATCH);
    let fresh: Vec<(u64, OwnedDelivery)> = state.queue.drain(..take).collect();
    let spool = state.spool.clone();
    drop(state);
    let (spool, written) = write_batch(shared, spool, &[], &fresh);
    let mut state = shared.lock();
    state.committing = false;
    settle(shared, &mut state, Vec::new(), fresh, written);
    shared.done.notify_all();
    if state.stats.last_error.is_some() {
        // Now failing: the thread takes over (holds, retries).
        shared.work.notify_one();
        return state;
    }
    drop(state);
    if let Some(spool) = &spool {
        (shared.on_written)(spool);
    }
    shared.lock()
}

/// The thread: waits for rows (or the next retry of a failing spool), writes
/// the held rows and the new ones in one transaction, answers the emitters.
fn run(shared: &Shared) {
    loop {
        let mut state = shared.lock();
        while (state.queue.is_empty() || state.committing) && !state.stopping {
            let failing = !state.held.is_empty() || state.spool.is_none();
            if failing {
                let (next, timeout) = shared
                    .work
                    .wait_timeout(state, RETRY_EVERY)
                    .unwrap_or_else(PoisonError::into_inner);
                state = next;
                if timeout.timed_out() && !state.held.is_empty() {
                    break;
                }
            } else {
                state = shared
                    .work
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner);
            }
        }
        let stopping = state.stopping;
        state.committing = true;
        let take = state.queue.len().min(MAX_BATCH);
        let fresh: Vec<(u64, OwnedDelivery)> = state.queue.drain(..take).collect();
        let held: Vec<OwnedDelivery> = state.held.drain(..).collect();
        let spool = state.spool.clone();
        drop(state);
        let (spool, written) = write_batch(shared, spool, &held, &fresh);
        let mut state = shared.lock();
        state.committing = false;
        if spool.is_some() && state.spool.is_none() {
            state.spool.clone_from(&spool);
        }
        settle(shared, &mut state, held, fresh, written);
        shared.done.notify_all();
        let wrote_rows = state.stats.last_error.is_none();
        let finished = stopping && state.queue.is_empty();
        if finished {
            let lost = state.held.len() as u64;
            state.stats.spool_failed += lost;
            state.stats.lost_at_stop += lost;
            state.stats.held = 0;
            state.held.clear();
        }
        drop(state);
        if wrote_rows && let Some(spool) = &spool {
            (shared.on_written)(spool);
        }
        if finished {
            return;
        }
    }
}

/// Opens the spool if needed and writes `held` then `fresh` in one
/// transaction; `Err` with the error when the spool failed.
fn write_batch(
    shared: &Shared,
    spool: Option<Arc<Spool>>,
    held: &[OwnedDelivery],
    fresh: &[(u64, OwnedDelivery)],
) -> (Option<Arc<Spool>>, Result<Vec<bool>, String>) {
    let spool = match spool {
        Some(spool) => spool,
        None => match Spool::open_with(&shared.path, shared.durability) {
            Ok(spool) => Arc::new(spool),
            Err(error) => return (None, Err(error.to_string())),
        },
    };
    if held.is_empty() && fresh.is_empty() {
        return (Some(spool), Ok(Vec::new()));
    }
    let rows: Vec<NewDelivery<'_>> = held
        .iter()
        .chain(fresh.iter().map(|(_, row)| row))
        .map(OwnedDelivery::borrowed)
        .collect();
    let written = spool.insert_batch(&rows).map_err(|error| error.to_string());
    (Some(spool), written)
}

/// Records what became of the batch and answers its emitters.
fn settle(
    shared: &Shared,
    state: &mut State,
    held: Vec<OwnedDelivery>,
    fresh: Vec<(u64, OwnedDelivery)>,
    written: Result<Vec<bool>, String>,
) {
    match written {
        Ok(kept) => {
            let (held_kept, fresh_kept) = kept.split_at(held.len().min(kept.len()));
            let recovered = held_kept.iter().filter(|kept| **kept).count() as u64;
            state.stats.recovered += recovered;
            state.stats.written += recovered;
            // Held rows refused by `max_spool` now: lost, and counted.
            state.stats.spool_failed += held.len() as u64 - recovered;
            for ((ticket, _), kept) in fresh.iter().zip(fresh_kept) {
                let outcome = if *kept {
                    state.stats.written += 1;
                    WriteOutcome::Written
                } else {
                    WriteOutcome::Full
                };
                state.results.insert(*ticket, outcome);
            }
            if state.stats.last_error.take().is_some() || recovered > 0 {
                tracing::warn!(
                    "outbound spool {}: writable again; {recovered} held delivery(ies) written",
                    shared.path.display()
                );
            }
        }
        Err(error) => {
            if state.stats.last_error.is_none() {
                tracing::warn!(
                    "outbound spool {}: cannot write ({error}) — holding durable deliveries in memory (at most {}) until it can",
                    shared.path.display(),
                    shared.hold_capacity
                );
            }
            state.stats.write_errors += 1;
            state.stats.last_error = Some(error);
            state.held.extend(held);
            for (ticket, row) in fresh {
                let outcome = if state.held.len() < shared.hold_capacity {
                    state.held.push_back(row);
                    WriteOutcome::Held
                } else {
                    state.stats.spool_failed += 1;
                    WriteOutcome::Refused
                };
                state.results.insert(ticket, outcome);
            }
        }
    }
    state.stats.held = state.held.len() as u64;
}

#[cfg(test)]
mod tests;
