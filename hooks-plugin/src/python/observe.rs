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

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use hermes_hooks_core::callbacks::FAILURE_MESSAGE_CHARS;
use hermes_hooks_core::display::escape;
use hermes_hooks_core::process::LineWorker;
use serde_json::{Map, Value};

/// How many events one callback may have posted and not yet run.
pub(crate) const MAX_IN_FLIGHT: u64 = 4096;
/// How long one batch's write may take before the worker is declared broken.
const WRITE_DEADLINE: Duration = Duration::from_secs(30);
/// Past this many remembered failures the memory is reset.
const MAX_REMEMBERED_FAILURES: usize = 4096;

/// One event waiting to be written: its callback, event name and payload JSON.
struct Item {
    callback: Arc<str>,
    event: Arc<str>,
    payload: Vec<u8>,
}

#[derive(Default)]
struct State {
    /// Accepted, not yet written.
    buffer: Vec<Item>,
    /// Per callback: accepted and not yet reported run by the worker.
    in_flight: HashMap<Arc<str>, u64>,
    /// Callbacks whose drops were already warned about.
    warned_full: HashSet<Arc<str>>,
    /// The writer holds a batch it has not finished writing.
    writing: bool,
    /// The writer waits for items.
    idle: bool,
    /// The most stderr lines a notice said the worker had written: what the
    /// host must have shown before the events count as run (a plugin's last
    /// print is not lost because the process exits right after).
    stderr_lines: u64,
    closed: bool,
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

    /// Queues one event for `callback` without waiting; false when it was
    /// dropped (the callback has [`MAX_IN_FLIGHT`] events in flight).
    pub(crate) fn post(&self, callback: &str, event: &str, payload: &Map<String, Value>) -> bool {
        let Ok(payload) = serde_json::to_vec(payload) else {
            return false;
        };
        let mut state = self.lock();
        if state.closed {
            return false;
        }
        let key: Arc<str> = match state.in_flight.get_key_value(callback) {
            Some((key, _)) => Arc::clone(key),
            None => Arc::from(callback),
        };
        let count = state.in_flight.entry(Arc::clone(&key)).or_insert(0);
        if *count >= MAX_IN_FLIGHT {
            let first = state.warned_full.insert(Arc::clone(&key));
            drop(state);
            let total = self.dropped.fetch_add(1, Ordering::Relaxed) + 1;
            if first {
                tracing::warn!(
                    "Python plugin callback {}: {MAX_IN_FLIGHT} '{event}' events are waiting for the worker; newer ones are dropped ({total} dropped so far)",
                    escape(callback)
                );
            }
            return false;
        }
        *count += 1;
        let event: Arc<str> = state
            .buffer
            .last()
            .filter(|item| &*item.event == event)
            .map_or_else(|| Arc::from(event), |item| Arc::clone(&item.event));
        state.buffer.push(Item {
            callback: key,
            event,
            payload,
        });
        let wake = state.idle;
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
        state.buffer.is_empty() && !state.writing && state.in_flight.values().all(|n| *n == 0)
    }

    /// The writer thread: takes everything accepted, writes one line per run
    /// of events of one callback, then reads the notices written meanwhile.
    fn write_batches(&self, worker: &LineWorker) {
        loop {
            let mut state = self.lock();
            while state.buffer.is_empty() && !state.closed {
                state.idle = true;
                state = self
                    .wake
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner);
                state.idle = false;
            }
            if state.closed {
                return;
            }
            let batch = std::mem::take(&mut state.buffer);
            state.writing = true;
            drop(state);
            let mut line = Vec::new();
            let mut start = 0;
            while start < batch.len() {
                let callback = &batch[start].callback;
                let end = batch[start..]
                    .iter()
                    .position(|item| item.callback != *callback)
                    .map_or(batch.len(), |offset| start + offset);
                encode(&batch[start..end], &mut line);
                if worker.post(&line, WRITE_DEADLINE).is_err() {
                    // The worker is broken or gone: what it had is lost with it.
                    self.forget(&batch[start..]);
                    break;
                }
                start = end;
            }
            self.lock().writing = false;
            worker.pump();
        }
    }

    /// Takes back the in-flight count of events that were never delivered.
    fn forget(&self, items: &[Item]) {
        let mut state = self.lock();
        for item in items {
            if let Some(count) = state.in_flight.get_mut(&item.callback) {
                *count = count.saturating_sub(1);
            }
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
        {
            let mut state = self.lock();
            if let Some(lines) = written {
                state.stderr_lines = state.stderr_lines.max(lines);
            }
            if let Some(count) = state.in_flight.get_mut(callback) {
                *count = count.saturating_sub(ran);
            }
        }
        let errors = notice.get("errors").and_then(Value::as_array);
        for error in errors.into_iter().flatten() {
            let text = |key: &str| error.get(key).and_then(Value::as_str).unwrap_or("Error");
            self.report(callback, text("type"), text("error"));
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

/// `{"op":"observe","callback":..,"event":..,"payloads":[..]}` and its newline, into `line`.
fn encode(items: &[Item], line: &mut Vec<u8>) {
    line.clear();
    let Some(first) = items.first() else {
        return;
    };
    let text = |value: &str| serde_json::to_string(value).unwrap_or_else(|_| "\"\"".to_owned());
    line.extend_from_slice(b"{\"op\":\"observe\",\"callback\":");
    line.extend_from_slice(text(&first.callback).as_bytes());
    line.extend_from_slice(b",\"event\":");
    line.extend_from_slice(text(&first.event).as_bytes());
    line.extend_from_slice(b",\"payloads\":[");
    for (index, item) in items.iter().enumerate() {
        if index > 0 {
            line.push(b',');
        }
        line.extend_from_slice(&item.payload);
    }
    line.extend_from_slice(b"]}\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_is_one_observe_line() {
        let item = |payload: &str| Item {
            callback: Arc::from("p:on_stream_delta:f"),
            event: Arc::from("on_stream_delta"),
            payload: payload.as_bytes().to_vec(),
        };
        let mut line = Vec::new();
        encode(&[item("{\"delta\":\"a\"}"), item("{}")], &mut line);
        assert_eq!(line.last(), Some(&b'\n'));
        let value: Value = serde_json::from_slice(&line).unwrap_or(Value::Null);
        assert_eq!(
            value,
            serde_json::json!({"op": "observe", "callback": "p:on_stream_delta:f",
                               "event": "on_stream_delta", "payloads": [{"delta": "a"}, {}]})
        );
    }
}
