//! Pipelined observers: queued events (`on_stream_delta` and the other
//! `run: queued` events, whose replies nobody reads) go to the worker without
//! a round trip. They are posted in batches, one line per callback per
//! batch, by a writer thread of their own; the worker runs each callback's
//! events in order on the callback's own thread and says in a notice how many
//! ran and which raised. What a callback has in flight is bounded: past
//! [`MAX_IN_FLIGHT`] its new events are dropped, counted and reported.
//! [`Pipeline::settled`] (registered with hooks-core's
//! `Callbacks::register_settled`) makes `flush` and `shutdown` wait for the
//! worker as they wait for the core's own queues.
//!
//! A callback's events are written when it has at least as many waiting as
//! it has written and not yet run (ack-clocked, as Nagle's algorithm): an
//! idle worker gets an event at once, a busy one gets batches that grow with
//! its backlog, so the wake-ups and lines per event fall as the rate rises.
//! No event is held longer than [`HOLD`] (200 µs): the tail of a burst, or a
//! hung callback's events, then go anyway (still counted in flight, so a
//! hung callback's backlog stays bounded and what passes the bound is dropped).
//!
//! Per event the caller only clones the event (a reference count) into the
//! buffer: the writer thread encodes it, off the core's consumer thread
//! (`batch.rs`: a stream's repeated fields are sent once per batch).

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use hermes_hooks_callbacks::FAILURE_MESSAGE_CHARS;
use hermes_hooks_core::Event;
use hermes_hooks_core::display::escape;
use hermes_hooks_process::LineWorker;
use serde_json::{Map, Value};

use super::batch::encode;

/// How many events one callback may have posted and not yet run.
pub(crate) const MAX_IN_FLIGHT: u64 = 4096;
/// How long one batch's write may take before the worker is declared broken.
const WRITE_DEADLINE: Duration = Duration::from_secs(30);
/// The longest the writer holds events back to batch them: past it, what
/// waits is written whatever the worker still has to run (so the last events
/// of a burst, or a hung callback's, never wait for a notice).
const HOLD: Duration = Duration::from_micros(200);
/// How often the writer reads the worker's notices while events it wrote
/// have not been reported run and it has nothing to write: first after
/// [`HOLD`], doubling while no notice comes, up to this. Without it a
/// callback whose in-flight bound was reached would drop every later event
/// until something else read the pipe.
const MAX_NOTICE_LOOK: Duration = Duration::from_millis(10);
/// Past this many remembered failures the memory is reset.
const MAX_REMEMBERED_FAILURES: usize = 4096;

/// One event waiting to be written, and the callback it is for.
pub(super) struct Item {
    /// The callback's index in [`State::flights`] (no string hashed or
    /// reference counted per event: a stream's hot path).
    flight: usize,
    pub(super) event: Event,
}

#[cfg(test)]
impl Item {
    /// An item of the first callback, for the encoder's tests.
    pub(super) fn of(event: Event) -> Item {
        Item { flight: 0, event }
    }
}

/// One callback's events in flight.
struct Flight {
    /// The callback's id.
    key: Arc<str>,
    /// Accepted and not yet reported run by the worker.
    accepted: u64,
    /// Of those, written to the worker.
    sent: u64,
    /// Its drops were already warned about.
    warned_full: bool,
}

impl Flight {
    fn new(key: &str) -> Flight {
        Flight {
            key: Arc::from(key),
            accepted: 0,
            sent: 0,
            warned_full: false,
        }
    }

    /// Whether its waiting events are to be written now: some wait, and at
    /// least as many as the worker has not run yet.
    fn sendable(&self) -> bool {
        let waiting = self.accepted.saturating_sub(self.sent);
        waiting > 0 && waiting >= self.sent
    }
}

#[derive(Default)]
struct State {
    /// Accepted, not yet written.
    buffer: Vec<Item>,
    /// Per callback that got events: its events in flight (a worker has a
    /// few observer callbacks, so a look-up is a short scan; never removed,
    /// so an index stays valid).
    flights: Vec<Flight>,
    /// The writer holds a batch it has not finished writing.
    writing: bool,
    /// The writer waits for events to write and nobody has woken it yet.
    idle: bool,
    /// The most stderr lines a notice said the worker had written: what the
    /// host must have shown before the events count as run (a plugin's last
    /// print is not lost because the process exits right after).
    stderr_lines: u64,
    /// How many notices were read: the writer looks at the pipe less often
    /// while none come (a hung callback).
    notices: u64,
    closed: bool,
}

impl State {
    /// Whether to signal the idle writer, given that there is a reason to:
    /// once, until it ran again (each signal is a futex call, and between a
    /// signal and the writer running the consumer may post many events).
    fn take_wake(&mut self, reason: bool) -> bool {
        let wake = reason && self.idle;
        if wake {
            self.idle = false;
        }
        wake
    }
}

/// The observer pipeline of one worker process.
pub(crate) struct Pipeline {
    state: Mutex<State>,
    wake: Condvar,
    dropped: AtomicU64,
    failures: Mutex<HashSet<(String, String)>>,
}

impl Pipeline {
    /// Starts the pipeline of `worker`: its writer thread, and its notices read.
    pub(crate) fn start(worker: &Arc<LineWorker>) -> std::io::Result<Arc<Pipeline>> {
        let pipeline = Arc::new(Pipeline {
            state: Mutex::default(),
            wake: Condvar::new(),
            dropped: AtomicU64::new(0),
            failures: Mutex::default(),
        });
        let notices = Arc::downgrade(&pipeline);
        worker.on_notice(move |notice| {
            if let Some(pipeline) = notices.upgrade() {
                pipeline.notice(&notice);
            }
        });
        let (writer, worker) = (Arc::clone(&pipeline), Arc::clone(worker));
        std::thread::Builder::new()
            .name("hooks-py-observe".to_owned())
            .spawn(move || writer.write_batches(&worker))?;
        Ok(pipeline)
    }

    /// Queues `event` for `callback` without waiting; false when it was
    /// dropped (the callback has [`MAX_IN_FLIGHT`] events in flight).
    pub(crate) fn post(&self, callback: &str, event: &Event) -> bool {
        let mut state = self.lock();
        if state.closed {
            return false;
        }
        let index = match state.flights.iter().position(|f| &*f.key == callback) {
            Some(index) => index,
            None => {
                state.flights.push(Flight::new(callback));
                state.flights.len() - 1
            }
        };
        let flight = &mut state.flights[index];
        if flight.accepted >= MAX_IN_FLIGHT {
            let first = !std::mem::replace(&mut flight.warned_full, true);
            drop(state);
            let total = self.dropped.fetch_add(1, Ordering::Relaxed) + 1;
            if first {
                tracing::warn!(
                    "Python plugin callback {}: {MAX_IN_FLIGHT} '{}' events are waiting for the worker; newer ones are dropped ({total} dropped so far)",
                    escape(callback),
                    escape(event.name().as_str())
                );
            }
            return false;
        }
        flight.accepted += 1;
        let ready = flight.sendable();
        // The writer starts its hold when the first event waits, and writes
        // when one callback's events are to go now.
        let first = state.buffer.is_empty();
        let wake = state.take_wake(ready || first);
        state.buffer.push(Item {
            flight: index,
            event: event.clone(),
        });
        drop(state);
        if wake {
            self.wake.notify_one();
        }
        true
    }

    /// Whether every posted event has run (or can no longer run: the worker is gone).
    pub(crate) fn settled(&self, worker: &LineWorker) -> bool {
        let shown = || worker.stderr_shown(self.lock().stderr_lines);
        if self.is_settled() && shown() {
            return true;
        }
        // Reads the notices written so far (and notices an exit).
        worker.pump();
        !worker.is_alive() || (self.is_settled() && shown())
    }

    /// How many events were dropped because their callback had too many in flight.
    pub(crate) fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// Stops the writer; what was not written is lost (the worker is going away).
    pub(crate) fn close(&self) {
        self.lock().closed = true;
        self.wake.notify_all();
    }

    fn is_settled(&self) -> bool {
        let state = self.lock();
        state.buffer.is_empty() && !state.writing && state.flights.iter().all(|f| f.accepted == 0)
    }

    /// The writer thread: takes the events of every callback that is
    /// [`Flight::sendable`] (and every event once the oldest held one has
    /// waited [`HOLD`]), writes one line per run of events of one callback,
    /// then reads the notices written meanwhile. With nothing to write while
    /// written events have not been reported run, it still reads the
    /// notices now and then ([`MAX_NOTICE_LOOK`]): they make room for more.
    fn write_batches(&self, worker: &LineWorker) {
        // One buffer for every line this writer encodes.
        let mut line = Vec::new();
        let mut held_since: Option<Instant> = None;
        let mut look = HOLD;
        loop {
            let mut state = self.lock();
            let notices = state.notices;
            let batch = loop {
                if state.closed {
                    return;
                }
                let all = held_since.is_some_and(|since| since.elapsed() >= HOLD);
                let batch = take_sendable(&mut state, all);
                held_since = match held_since {
                    _ if state.buffer.is_empty() => None,
                    Some(since) if !all => Some(since),
                    _ => Some(Instant::now()),
                };
                if !batch.is_empty() {
                    break batch;
                }
                // (A worker gone reports nothing more: no look until closed.)
                let unreported = worker.seems_alive() && state.flights.iter().any(|f| f.sent > 0);
                state.idle = true;
                let timed_out = match held_since {
                    None if !unreported => {
                        state = self
                            .wake
                            .wait(state)
                            .unwrap_or_else(PoisonError::into_inner);
                        false
                    }
                    _ => {
                        let left =
                            held_since.map_or(look, |since| HOLD.saturating_sub(since.elapsed()));
                        let (guard, result) = self
                            .wake
                            .wait_timeout(state, left)
                            .unwrap_or_else(PoisonError::into_inner);
                        state = guard;
                        result.timed_out()
                    }
                };
                state.idle = false;
                if timed_out && unreported && held_since.is_none() {
                    // Nothing to write: read the notices that came meanwhile.
                    break Vec::new();
                }
            };
            if batch.is_empty() {
                drop(state);
            } else {
                state.writing = true;
                // The names of the callbacks in the batch (a flight is never removed).
                let names: Vec<Arc<str>> = runs(&batch)
                    .map(|(flight, _)| Arc::clone(&state.flights[flight].key))
                    .collect();
                drop(state);
                let mut start = 0;
                for (callback, (_, end)) in names.iter().zip(runs(&batch)) {
                    encode(callback, &batch[start..end], &mut line);
                    if worker.post(&line, WRITE_DEADLINE).is_err() {
                        // The worker is broken or gone: what it had is lost with it.
                        self.forget(&batch[start..]);
                        break;
                    }
                    start = end;
                }
                self.lock().writing = false;
            }
            worker.pump();
            // Back off while the worker reports nothing (a hung callback),
            // look again soon once it does.
            look = if self.lock().notices == notices {
                (look * 2).min(MAX_NOTICE_LOOK)
            } else {
                HOLD
            };
        }
    }

    /// Takes back the in-flight count of events that were never delivered.
    fn forget(&self, items: &[Item]) {
        let mut state = self.lock();
        for item in items {
            let flight = &mut state.flights[item.flight];
            flight.accepted = flight.accepted.saturating_sub(1);
            flight.sent = flight.sent.saturating_sub(1);
        }
    }

    /// A notice from the worker: how many of a callback's events ran, and
    /// which raised (warned once per distinct failure, as the core does).
    fn notice(&self, notice: &Map<String, Value>) {
        if notice.get("notice").and_then(Value::as_str) != Some("observed") {
            return;
        }
        let Some(callback) = notice.get("callback").and_then(Value::as_str) else {
            return;
        };
        let ran = notice.get("count").and_then(Value::as_u64).unwrap_or(0);
        let written = notice.get("stderr_lines").and_then(Value::as_u64);
        // Said before the events count as run: a `flush` that sees them run
        // finds their failures logged (one raced past it under load).
        let errors = notice.get("errors").and_then(Value::as_array);
        for error in errors.into_iter().flatten() {
            let text = |key: &str| error.get(key).and_then(Value::as_str).unwrap_or("Error");
            self.report(callback, text("type"), text("error"));
        }
        {
            let mut state = self.lock();
            state.notices += 1;
            if let Some(lines) = written {
                state.stderr_lines = state.stderr_lines.max(lines);
            }
            let mut ready = false;
            if let Some(flight) = state.flights.iter_mut().find(|f| &*f.key == callback) {
                flight.accepted = flight.accepted.saturating_sub(ran);
                flight.sent = flight.sent.saturating_sub(ran);
                ready = flight.sendable();
            }
            let wake = state.take_wake(ready);
            drop(state);
            if wake {
                self.wake.notify_one();
            }
        }
    }

    fn report(&self, callback: &str, kind: &str, message: &str) {
        let short: String = message.chars().take(FAILURE_MESSAGE_CHARS).collect();
        let first = {
            let mut seen = self.failures.lock().unwrap_or_else(PoisonError::into_inner);
            let key = (callback.to_owned(), format!("{kind}: {short}"));
            if seen.len() >= MAX_REMEMBERED_FAILURES && !seen.contains(&key) {
                seen.clear();
            }
            seen.insert(key)
        };
        let callback = escape(callback);
        let message = escape(message);
        if first {
            tracing::warn!(
                "Python observer callback {callback} raised: {message} (identical failures are logged at DEBUG from now on)"
            );
        } else {
            tracing::debug!("Python observer callback {callback} raised again: {message}");
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The runs of `batch`'s items of one callback: (its flight, where the run ends).
fn runs(batch: &[Item]) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut start = 0;
    std::iter::from_fn(move || {
        let flight = batch.get(start)?.flight;
        let end = batch[start..]
            .iter()
            .position(|item| item.flight != flight)
            .map_or(batch.len(), |offset| start + offset);
        start = end;
        Some((flight, end))
    })
}

/// The buffered events of every [`Flight::sendable`] callback (of every
/// callback with `all`), in order, counted as sent; the others' stay
/// buffered, in order.
fn take_sendable(state: &mut State, all: bool) -> Vec<Item> {
    // Decided once per callback for the whole buffer (its events stay in order).
    let send: Vec<bool> = state
        .flights
        .iter()
        .map(|flight| all || flight.sendable())
        .collect();
    let buffer = std::mem::take(&mut state.buffer);
    if send.iter().all(|yes| *yes) {
        // The usual case (one stream, one callback): the whole buffer goes.
        for item in &buffer {
            state.flights[item.flight].sent += 1;
        }
        return buffer;
    }
    let mut batch = Vec::with_capacity(buffer.len());
    for item in buffer {
        if send[item.flight] {
            state.flights[item.flight].sent += 1;
            batch.push(item);
        } else {
            state.buffer.push(item);
        }
    }
    batch
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_idle_writer_is_signalled_once_until_it_runs_again() {
        let mut state = State {
            idle: true,
            ..State::default()
        };
        assert!(!state.take_wake(false), "no reason, no signal");
        assert!(state.take_wake(true));
        // The writer has not run yet: the next events do not signal it again.
        assert!(!state.take_wake(true));
        assert!(!state.take_wake(true));
        // It ran and waits again.
        state.idle = true;
        assert!(state.take_wake(true));
    }
}
