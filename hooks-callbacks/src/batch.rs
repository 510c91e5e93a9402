//! One hand-off per event: all bounded callbacks of one event go to a worker
//! together, and the caller wakes once, when they are all done or when the
//! one running passes its deadline.
//!
//! A [`Batch`] is the event, its calls still to run (in order) and the
//! results of those that ran, under one lock. The worker takes the next call
//! and records its start in the same critical section in which it stores the
//! last one's result, so the caller always knows which call runs and since
//! when. When that call passes its deadline the caller gives it up (the
//! worker finishes it alone, its result discarded), takes the calls that
//! have not started, and hands them to another worker as a new batch, each
//! with its own deadline again.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::Poll;
use std::time::{Duration, Instant};

use futures::task::AtomicWaker;

use super::CallbackResult;
use super::joint::{self, Joint, JointMember, RunCell, Started};
use super::registry::Entry;
use super::runner::{Bounded, Limits, Skip, WorkerPool};
use super::timer;
use super::worker::{execute, hand_over};
use hermes_hooks_core::event::Event;

/// One admitted call: its place among the event's callbacks and its entry in
/// the callback's gates, released when the ticket is dropped.
pub(crate) struct Ticket {
    pub(crate) index: usize,
    pub(crate) entry: Arc<Entry>,
    pub(crate) seq: u64,
    /// The caller gave up on this call at its deadline (counted as an
    /// abandoned worker until it finishes).
    abandoned: bool,
    /// The joint run this member was started in (`joint.rs`): it is
    /// collected from there, never started again.
    started: Option<Started>,
}

impl Ticket {
    /// A call of `entry` at `index`, admitted with gate sequence number `seq`.
    pub(crate) fn new(index: usize, entry: Arc<Entry>, seq: u64) -> Self {
        Ticket {
            index,
            entry,
            seq,
            abandoned: false,
            started: None,
        }
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.entry.gates.release_given_up(self.seq, self.abandoned);
    }
}

/// Why the caller stopped waiting for a batch.
#[derive(Clone, Copy, PartialEq, Eq)]
enum GiveUp {
    /// The running call passed its deadline; the calls not started moved on.
    TimedOut,
    /// The caller's future was dropped.
    Cancelled,
}

/// The call a worker runs now.
struct Running {
    index: usize,
    started: Instant,
}

#[derive(Default)]
struct BatchState {
    /// Calls not started yet, in order.
    queued: VecDeque<Ticket>,
    running: Option<Running>,
    /// The results of the calls that finished (and how long each ran), in order.
    finished: Vec<(usize, CallbackResult, Duration)>,
    given_up: Option<GiveUp>,
}

/// The bounded calls of one event, handed to one worker.
pub(crate) struct Batch {
    event: Event,
    /// The caller's tokio runtime, entered while an async callback runs.
    runtime: Option<tokio::runtime::Handle>,
    state: Mutex<BatchState>,
    /// The worker has nothing more to do for the caller.
    done: AtomicBool,
    /// The waiting caller's task, woken once on `done`.
    waker: AtomicWaker,
}

impl Batch {
    fn new(
        event: Event,
        runtime: Option<tokio::runtime::Handle>,
        queued: VecDeque<Ticket>,
    ) -> Self {
        Batch {
            event,
            runtime,
            state: Mutex::new(BatchState {
                queued,
                ..BatchState::default()
            }),
            done: AtomicBool::new(false),
            waker: AtomicWaker::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, BatchState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn is_done(&self) -> bool {
        self.done.load(Ordering::Acquire)
    }

    /// Runs the calls in order on the worker's thread, until none is left or
    /// the caller gave up; then tells the caller.
    pub(crate) fn run(&self) {
        let mut state = self.lock();
        loop {
            if state.given_up.is_some() {
                break;
            }
            let Some(mut ticket) = state.queued.pop_front() else {
                break;
            };
            // The deadline counts from here, under the lock the caller reads it with.
            let started = Instant::now();
            state.running = Some(Running {
                index: ticket.index,
                started,
            });
            let mut starting = None;
            if ticket.started.is_none() && ticket.entry.joint.is_some() {
                // Under the lock: the caller, giving up, takes the queued
                // members only once they know the run they belong to.
                let entry = Arc::clone(&ticket.entry);
                if let Some(member) = &entry.joint {
                    starting = Some(reserve_joint(&mut ticket, member, &mut state.queued));
                }
            }
            drop(state);
            if let Some((cell, joint, members)) = starting {
                let _ = cell.set(joint::start(&*joint, &self.event, &members));
            }
            let result = match &ticket.started {
                Some(joint) => joint.result(),
                None => execute(&ticket.entry.callback, &self.event, self.runtime.as_ref()),
            };
            let took = started.elapsed();
            state = self.lock();
            state.running = None;
            match state.given_up {
                // Under the batch lock, after the caller counted the
                // abandonment: the ticket's drop undoes it.
                Some(GiveUp::TimedOut) => ticket.abandoned = true,
                Some(GiveUp::Cancelled) => {}
                None => state.finished.push((ticket.index, result, took)),
            }
            drop(ticket);
        }
        drop(state);
    }

    /// Tells the waiting caller the worker is done with the batch.
    pub(crate) fn complete(&self) {
        self.done.store(true, Ordering::Release);
        self.waker.wake();
    }
}

/// Reserves one run for `ticket`'s member of `joint` and the members of the
/// same joint queued right after it (admitted, in order, not started yet):
/// each ticket is told its place in the run, to be started with one
/// [`Joint::start`](crate::Joint::start) (by the caller, after the lock).
fn reserve_joint(
    ticket: &mut Ticket,
    joint: &JointMember,
    queued: &mut VecDeque<Ticket>,
) -> (RunCell, Arc<dyn Joint>, Vec<Arc<str>>) {
    let together = queued
        .iter()
        .take_while(|next| {
            next.started.is_none()
                && next
                    .entry
                    .joint
                    .as_ref()
                    .is_some_and(|other| other.same_joint(joint))
        })
        .count();
    let members: Vec<Arc<str>> = std::iter::once(Arc::clone(&joint.member))
        .chain(queued.iter().take(together).filter_map(|next| {
            next.entry
                .joint
                .as_ref()
                .map(|member| Arc::clone(&member.member))
        }))
        .collect();
    let cell = RunCell::default();
    ticket.started = Some(Started {
        run: Arc::clone(&cell),
        index: 0,
    });
    for (place, next) in queued.iter_mut().take(together).enumerate() {
        next.started = Some(Started {
            run: Arc::clone(&cell),
            index: place + 1,
        });
    }
    (cell, Arc::clone(&joint.joint), members)
}

/// Gives up on a batch whose caller stopped waiting (its future dropped):
/// the calls not started are dropped, the running one finishes alone.
struct CancelOnDrop<'a>(Option<&'a Batch>);

impl Drop for CancelOnDrop<'_> {
    fn drop(&mut self) {
        if let Some(batch) = self.0.take() {
            let mut state = batch.lock();
            if state.given_up.is_none() {
                state.given_up = Some(GiveUp::Cancelled);
            }
            let queued = std::mem::take(&mut state.queued);
            drop(state);
            drop(queued);
        }
    }
}

/// Runs the admitted calls of `event` on workers of `workers`, one hand-off
/// for all of them (plus one per call that times out, for the calls after
/// it). Returns each call's end by its index, in order. `entries` are the
/// event's callbacks, which the indices point into.
pub(crate) async fn run_all(
    tickets: Vec<Ticket>,
    entries: &[Arc<Entry>],
    event: &Event,
    workers: &Arc<WorkerPool>,
    limits: &Limits,
) -> Vec<(usize, Bounded)> {
    let hook = event.name().as_str();
    let runtime = tickets
        .iter()
        .any(|ticket| ticket.entry.is_async())
        .then(|| tokio::runtime::Handle::try_current().ok())
        .flatten();
    let mut ends = Vec::with_capacity(tickets.len());
    let mut queued: VecDeque<Ticket> = tickets.into();
    while !queued.is_empty() {
        let batch = Arc::new(Batch::new(
            event.clone(),
            runtime.clone(),
            std::mem::take(&mut queued),
        ));
        if let Err(error) = hand_over(workers, &batch) {
            let unstarted = std::mem::take(&mut batch.lock().queued);
            for ticket in unstarted {
                let owner = &*ticket.entry.owner;
                tracing::warn!(
                    "Hook '{hook}' callback {owner} worker failed to start: {error} — skipping"
                );
                ends.push((ticket.index, Bounded::Skipped(Skip::NoWorker)));
            }
            break;
        }
        let handed = Instant::now();
        let mut cancel = CancelOnDrop(Some(&batch));
        let timed_out = wait(&batch, entries, handed, limits).await;
        cancel.0 = None;
        let finished = std::mem::take(&mut batch.lock().finished);
        ends.extend(
            finished
                .into_iter()
                .map(|(index, result, took)| (index, Bounded::Finished(result, took))),
        );
        let Some((index, rest)) = timed_out else {
            break;
        };
        if let Some(entry) = entries.get(index) {
            let (owner, seconds) = (&*entry.owner, limits.timeout.as_secs_f64());
            tracing::warn!("Hook '{hook}' callback {owner} timed out after {seconds}s — skipping");
        }
        ends.push((index, Bounded::TimedOut));
        queued = rest;
    }
    ends.sort_by_key(|(index, _)| *index);
    ends
}

/// Waits until the worker is done with `batch` (`None`), or until its running
/// call passes its deadline: then gives that call up (counting it against
/// its callback) and returns its index and the calls not started.
///
/// No spin before the wait: under two busy loops a caller spinning (and
/// yielding) for the worker's answer handed its CPU slice to a busy loop,
/// a p99 of 16 ms for one guard against 18 µs parked (issue 31; figures in
/// `docs/decisions/one-hand-off-per-event.md`).
async fn wait(
    batch: &Batch,
    entries: &[Arc<Entry>],
    handed: Instant,
    limits: &Limits,
) -> Option<(usize, VecDeque<Ticket>)> {
    let mut alarm: Option<(Instant, RetireOnDrop)> = None;
    futures::future::poll_fn(|cx| {
        loop {
            batch.waker.register(cx.waker());
            if batch.is_done() {
                return Poll::Ready(None);
            }
            let mut state = batch.lock();
            // Before the worker took the first call, the deadline counts from the hand-off.
            let (running, started) = match &state.running {
                Some(running) => (Some(running.index), running.started),
                None => (None, handed),
            };
            let deadline = started + limits.timeout;
            if Instant::now() >= deadline {
                // A worker that never took the batch up: its first call is the one given up.
                let index = match running {
                    Some(index) => index,
                    None => match state.queued.pop_front() {
                        Some(mut ticket) => {
                            ticket.abandoned = true;
                            let index = ticket.index;
                            give_up(entries, index, limits);
                            state.given_up = Some(GiveUp::TimedOut);
                            drop(ticket);
                            return Poll::Ready(Some((index, std::mem::take(&mut state.queued))));
                        }
                        // Between the last call and `done`: the worker is finishing.
                        None => {
                            drop(state);
                            std::thread::yield_now();
                            continue;
                        }
                    },
                };
                give_up(entries, index, limits);
                state.given_up = Some(GiveUp::TimedOut);
                return Poll::Ready(Some((index, std::mem::take(&mut state.queued))));
            }
            drop(state);
            if alarm.as_ref().is_none_or(|(armed, _)| *armed != deadline) {
                alarm = Some((deadline, RetireOnDrop(timer::arm(deadline))));
            }
            if let Some((_, alarm)) = &alarm {
                alarm.0.register(cx);
                if !alarm.0.fired() {
                    return Poll::Pending;
                }
            }
        }
    })
    .await
}

/// Counts a call given up at its deadline against its callback: one more
/// abandoned worker, and the callback suppressed for the window. Called
/// under the batch lock, so the worker's release comes after.
fn give_up(entries: &[Arc<Entry>], index: usize, limits: &Limits) {
    if let Some(entry) = entries.get(index) {
        entry.gates.count_abandoned(limits.suppression);
    }
}

/// Retires an alarm however the wait ends (finished, timed out, or the caller
/// dropped the future), so the timer forgets it early.
struct RetireOnDrop(Arc<timer::Alarm>);

impl Drop for RetireOnDrop {
    fn drop(&mut self) {
        self.0.retire();
    }
}
