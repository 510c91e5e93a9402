//! One running worker process and the request/answer traffic with it.
//!
//! Requests may be in flight concurrently: each gets an id and a channel, one
//! reader thread hands every answer to the request with its id, and a line
//! that answers nothing pending is logged and discarded. The I/O runs on plain
//! threads, so callers may block under any executor (or none).

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use hermes_hooks_core::display::escape;
use serde::Serialize;

use super::process::WorkerProcess;
use super::protocol::{Answer, Envelope, Incoming, attribute_stderr, parse_line};

/// The longest answer line read; a longer one is discarded (the worker caps its own at 8 MiB).
const MAX_LINE_BYTES: usize = 32 * 1024 * 1024;
/// The longest stderr line shown; the rest of the line is cut.
const MAX_STDERR_LINE_BYTES: usize = 8 * 1024;

/// Why a request got no answer from Python code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WorkerError {
    /// The plugin code raised: the exception's type and message.
    #[error("{kind}: {message}")]
    Raised {
        /// The exception type, e.g. `ValueError`.
        kind: String,
        /// `str(exception)`.
        message: String,
    },
    /// The worker could not be started, died, or broke the protocol.
    #[error("{0}")]
    Worker(String),
}

type Pending = Mutex<HashMap<u64, SyncSender<Answer>>>;

/// State the reader thread shares with callers.
struct Shared {
    pending: Pending,
    alive: AtomicBool,
}

impl Shared {
    /// Marks the worker dead and wakes every waiting request.
    fn close(&self) {
        self.alive.store(false, Ordering::SeqCst);
        let waiting: Vec<_> = lock(&self.pending).drain().collect();
        for (_, sender) in waiting {
            let _ = sender.try_send(Answer::Raised {
                kind: "WorkerExited".to_owned(),
                message: "the Python plugin worker exited".to_owned(),
            });
        }
    }
}

/// A started worker: its process, its request pipe and the answers' router.
pub(crate) struct Connection {
    writer: Mutex<File>,
    shared: Arc<Shared>,
    next_id: AtomicU64,
    process: Mutex<WorkerProcess>,
    /// Closed by the stderr thread when it has shown the worker's last line.
    stderr_done: Mutex<mpsc::Receiver<()>>,
    /// `sys.executable` and the version the worker reported.
    pub executable: String,
    pub version: String,
}

impl Connection {
    /// Starts `program -c <worker.py> <home>` and waits (at most `startup`) for its ready line.
    pub(crate) fn start(program: &Path, home: &Path, startup: Duration) -> Result<Self, String> {
        let (process, pipes) = WorkerProcess::spawn(program, home).map_err(|error| {
            format!(
                "cannot start the Python plugin worker with {}: {error}",
                program.display()
            )
        })?;
        let shared = Arc::new(Shared {
            pending: Mutex::default(),
            alive: AtomicBool::new(true),
        });
        let (ready_tx, ready_rx) = mpsc::sync_channel(1);
        let reader = Arc::clone(&shared);
        let stdout = pipes.stdout;
        std::thread::Builder::new()
            .name("hooks-py-reader".to_owned())
            .spawn(move || read_answers(stdout, &reader, &ready_tx))
            .map_err(|error| format!("cannot start the worker's reader thread: {error}"))?;
        let stderr = pipes.stderr;
        let (stderr_tx, stderr_done) = mpsc::channel::<()>();
        std::thread::Builder::new()
            .name("hooks-py-stderr".to_owned())
            .spawn(move || {
                log_stderr(stderr);
                drop(stderr_tx);
            })
            .map_err(|error| format!("cannot start the worker's stderr thread: {error}"))?;
        let mut connection = Connection {
            writer: Mutex::new(pipes.stdin),
            shared,
            next_id: AtomicU64::new(1),
            process: Mutex::new(process),
            stderr_done: Mutex::new(stderr_done),
            executable: String::new(),
            version: String::new(),
        };
        match ready_rx.recv_timeout(startup) {
            Ok((executable, version)) => {
                connection.executable = executable;
                connection.version = version;
                Ok(connection)
            }
            Err(RecvTimeoutError::Timeout) => Err(format!(
                "the Python plugin worker ({}) did not start within {}s",
                program.display(),
                startup.as_secs()
            )),
            Err(RecvTimeoutError::Disconnected) => Err(format!(
                "the Python plugin worker ({}) exited at start-up{}",
                program.display(),
                connection
                    .exit_status()
                    .map_or(String::new(), |s| format!(" ({s})"))
            )),
        }
    }

    /// Whether the worker still answers (its output is open).
    pub(crate) fn is_alive(&self) -> bool {
        self.shared.alive.load(Ordering::SeqCst)
    }

    /// How the worker process ended, once it has.
    pub(crate) fn exit_status(&self) -> Option<String> {
        lock(&self.process).exit_status()
    }

    /// Sends `op` with `body` and waits for its answer (`None`: as long as it takes).
    pub(crate) fn request<T: Serialize>(
        &self,
        op: &str,
        body: &T,
        timeout: Option<Duration>,
    ) -> Result<serde_json::Value, WorkerError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut line = serde_json::to_vec(&Envelope { id, op, body })
            .map_err(|error| WorkerError::Worker(format!("cannot encode the request: {error}")))?;
        line.push(b'\n');
        let (sender, receiver) = mpsc::sync_channel(1);
        lock(&self.shared.pending).insert(id, sender);
        if !self.is_alive() {
            lock(&self.shared.pending).remove(&id);
            return Err(self.died());
        }
        let written = {
            let mut writer = lock(&self.writer);
            writer.write_all(&line).and_then(|()| writer.flush())
        };
        if let Err(error) = written {
            lock(&self.shared.pending).remove(&id);
            return Err(WorkerError::Worker(format!(
                "cannot send the request to the Python plugin worker: {error}"
            )));
        }
        let answer = match timeout {
            None => receiver.recv().map_err(|_| self.died()),
            Some(limit) => receiver.recv_timeout(limit).map_err(|error| match error {
                RecvTimeoutError::Timeout => {
                    // Its answer, if it ever comes, is logged as stale and dropped.
                    lock(&self.shared.pending).remove(&id);
                    WorkerError::Worker(format!("no answer within {}s", limit.as_secs_f64()))
                }
                RecvTimeoutError::Disconnected => self.died(),
            }),
        }?;
        match answer {
            Answer::Ok(value) => Ok(value),
            Answer::Raised { kind, .. } if kind == "WorkerExited" => Err(self.died()),
            Answer::Raised { kind, message } => Err(WorkerError::Raised { kind, message }),
        }
    }

    fn died(&self) -> WorkerError {
        let how = self.exit_status().map_or_else(
            || "closed its output".to_owned(),
            |status| format!("exited ({status})"),
        );
        WorkerError::Worker(format!("the Python plugin worker {how}"))
    }
}

/// Routes answers to their requests until the worker's output closes.
fn read_answers(stdout: File, shared: &Shared, ready: &SyncSender<(String, String)>) {
    let mut reader = BufReader::new(stdout);
    let mut line = Vec::new();
    loop {
        line.clear();
        match read_capped_line(&mut reader, &mut line, MAX_LINE_BYTES) {
            Ok(0) | Err(_) => break,
            Ok(_) if line.len() > MAX_LINE_BYTES => {
                tracing::warn!(
                    "Python plugin worker: discarded a protocol line longer than {MAX_LINE_BYTES} bytes"
                );
                continue;
            }
            Ok(_) => {}
        }
        match parse_line(&line) {
            Incoming::Ready {
                executable,
                version,
            } => {
                let _ = ready.try_send((executable, version));
            }
            Incoming::Answer { id, answer } => {
                let waiting = lock(&shared.pending).remove(&id);
                match waiting {
                    Some(sender) => {
                        let _ = sender.try_send(answer);
                    }
                    None => tracing::warn!(
                        "Python plugin worker: discarded a stale answer (request {id} is no longer waiting)"
                    ),
                }
            }
            Incoming::Garbage(why) => tracing::warn!(
                "Python plugin worker: discarded a line that is not a protocol answer ({why})"
            ),
        }
    }
    shared.close();
}

/// Reads up to a newline; bytes past `cap` are read and dropped (the length tells).
fn read_capped_line(
    reader: &mut impl BufRead,
    line: &mut Vec<u8>,
    cap: usize,
) -> std::io::Result<usize> {
    let mut total = 0;
    loop {
        let buffer = reader.fill_buf()?;
        if buffer.is_empty() {
            return Ok(total);
        }
        let (chunk, done) = match buffer.iter().position(|byte| *byte == b'\n') {
            Some(end) => (&buffer[..end], end + 1),
            None => (buffer, buffer.len()),
        };
        if line.len() <= cap {
            let room = cap + 1 - line.len();
            line.extend_from_slice(&chunk[..chunk.len().min(room)]);
        }
        let found_newline = done > chunk.len();
        total += done;
        reader.consume(done);
        if found_newline {
            return Ok(total);
        }
    }
}

/// How long a closing connection waits for the worker's last stderr lines to be shown.
const STDERR_DRAIN: Duration = Duration::from_secs(1);

impl Drop for Connection {
    /// Stops the worker (and what it started), then lets the stderr thread show
    /// what the worker wrote before it stopped: a plugin's last print must not
    /// be lost because the host exits right after its last event.
    fn drop(&mut self) {
        lock(&self.process).stop();
        let _ = lock(&self.stderr_done).recv_timeout(STDERR_DRAIN);
    }
}

/// Shows each stderr line as a warning naming the plugin that wrote it.
fn log_stderr(stderr: File) {
    let mut reader = BufReader::new(stderr);
    let mut line = Vec::new();
    while let Ok(read) = read_capped_line(&mut reader, &mut line, MAX_STDERR_LINE_BYTES) {
        if read == 0 {
            break;
        }
        let text = String::from_utf8_lossy(&line[..line.len().min(MAX_STDERR_LINE_BYTES)]);
        let text = text.trim_end_matches(['\r', '\n']);
        match attribute_stderr(text) {
            (Some(plugin), text) => {
                tracing::warn!("Python plugin '{}': {}", escape(plugin), escape(text));
            }
            (None, text) => tracing::warn!("Python plugin worker: {}", escape(text)),
        }
        line.clear();
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_are_cut_but_consumed() {
        let mut input = std::io::Cursor::new(b"abcdefgh\nxy\n".to_vec());
        let mut line = Vec::new();
        assert_eq!(read_capped_line(&mut input, &mut line, 4).unwrap(), 9);
        assert_eq!(line, b"abcde");
        line.clear();
        assert_eq!(read_capped_line(&mut input, &mut line, 4).unwrap(), 3);
        assert_eq!(line, b"xy");
        line.clear();
        assert_eq!(read_capped_line(&mut input, &mut line, 4).unwrap(), 0);
    }
}
