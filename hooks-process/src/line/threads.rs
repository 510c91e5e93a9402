//! The worker's two I/O threads: the reader routes answers to their
//! requests, the writer sends queued requests in order. Answers are routed
//! by [`route`] in both modes (a direct worker's reading caller uses it too).

use std::fs::File;
use std::io::{BufReader, Write};
use std::sync::atomic::Ordering;
use std::sync::mpsc;

use serde_json::Value;

use super::{LineError, Shared, lock, read_capped_line};

/// Routes answers to their requests until the worker's output closes.
pub(super) fn read_answers(stdout: File, shared: &Shared, cap: usize) {
    let mut reader = BufReader::new(stdout);
    let mut line = Vec::new();
    loop {
        line.clear();
        match read_capped_line(&mut reader, &mut line, cap) {
            Ok(0) | Err(_) => break,
            Ok(_) if line.len() > cap => {
                too_large(shared, cap);
                continue;
            }
            Ok(_) => {}
        }
        route(shared, &line);
    }
    shared.close(&LineError::Exited("closed its output".to_owned()));
}

/// Hands one complete answer line (at most the cap long) to the request with
/// its id; a line that answers nothing pending is logged and dropped.
pub(super) fn route(shared: &Shared, line: &[u8]) {
    let label = &shared.label;
    let message = match serde_json::from_slice::<Value>(line) {
        Ok(Value::Object(message)) => message,
        _ => {
            tracing::warn!("{label}: discarded a line that is not a JSON object");
            return;
        }
    };
    let Some(id) = message.get("id").and_then(Value::as_u64) else {
        if message.contains_key("notice") && !message.contains_key("id") {
            let sink = lock(&shared.notices).clone();
            if let Some(sink) = sink {
                sink(message);
                return;
            }
        }
        tracing::warn!("{label}: discarded a line without a request id");
        return;
    };
    if id == 0 && !shared.ready_seen.swap(true, Ordering::SeqCst) {
        shared.ready.fill(Ok(message));
        return;
    }
    let waiting = lock(&shared.pending).remove(&id);
    match waiting {
        Some(slot) => slot.fill(Ok(message)),
        None => {
            tracing::warn!("{label}: discarded a stale answer (request {id} is no longer waiting)")
        }
    }
}

/// A line longer than the cap: whose answer it was is unknown; with one
/// request in flight it is that one's.
pub(super) fn too_large(shared: &Shared, cap: usize) {
    let mut pending = lock(&shared.pending);
    if pending.len() == 1 {
        let (_, slot) = pending.drain().next().unwrap_or_default();
        slot.fill(Err(LineError::TooLarge(cap)));
    } else {
        tracing::warn!(
            "{}: discarded a protocol line longer than {cap} bytes",
            shared.label
        );
    }
}

/// Writes queued requests in order; the first failed write breaks the worker.
pub(super) fn write_requests(mut stdin: File, queue: &mpsc::Receiver<Vec<u8>>, shared: &Shared) {
    while let Ok(line) = queue.recv() {
        if let Err(error) = stdin.write_all(&line).and_then(|()| stdin.flush()) {
            tracing::warn!(
                "{}: cannot write to it ({error}); it is broken and is stopped",
                shared.label
            );
            shared.broken(&LineError::Send(error.to_string()));
            return;
        }
    }
}
