//! One running worker process, spoken to through the shared line worker
//! ([`hermes_hooks_process::LineWorker`]): id-tagged requests, a
//! deadline on each, stderr lines shown as warnings naming their plugin.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use hermes_hooks_core::Event;
use hermes_hooks_core::display::escape;
use hermes_hooks_process::{Answers, LineError, LineOptions, LineWorker};
use serde::Serialize;
use serde_json::{Map, Value};

use super::WORKER_SCRIPT;
use super::observe::Pipeline;
use super::protocol::{Answer, attribute_stderr, parse_answer};

/// The longest answer line read; a longer one is discarded (the worker caps its own at 8 MiB).
const MAX_LINE_BYTES: usize = 32 * 1024 * 1024;
/// The longest stderr line shown; the rest of the line is cut.
const MAX_STDERR_LINE_BYTES: usize = 8 * 1024;
/// How long the health check after a timed-out call may take before the
/// worker is declared wedged and killed (it is restarted at the next call).
const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

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
    /// No answer within the call's deadline.
    #[error("no answer within {}s", .0.as_secs_f64())]
    TimedOut(Duration),
}

/// A started worker: the line worker and what the interpreter reported.
pub(crate) struct Connection {
    worker: Arc<LineWorker>,
    /// Set while a health check after a timeout is running (one at a time).
    probing: Arc<AtomicBool>,
    /// The observer pipeline, started with the first queued event.
    pipeline: OnceLock<Option<Arc<Pipeline>>>,
    /// `sys.executable` and the version the worker reported.
    pub executable: String,
    pub version: String,
}

impl Connection {
    /// Starts `program -c <worker.py> <home>` and waits (at most `startup`) for its ready line.
    pub(crate) fn start(program: &Path, home: &Path, startup: Duration) -> Result<Self, String> {
        let mut command = tokio::process::Command::new(program);
        command
            .arg("-c")
            .arg(WORKER_SCRIPT)
            .arg(home)
            .env("HERMES_HOME", home);
        let options = LineOptions::new("Python plugin worker")
            .with_max_line_bytes(MAX_LINE_BYTES)
            .with_max_stderr_line_bytes(MAX_STDERR_LINE_BYTES);
        let worker = LineWorker::spawn_direct(command, options, log_stderr).map_err(|error| {
            format!(
                "cannot start the Python plugin worker with {}: {error}",
                program.display()
            )
        })?;
        let ready = worker.wait_ready(startup).map_err(|error| match error {
            LineError::TimedOut(_) => format!(
                "the Python plugin worker ({}) did not start within {}s",
                program.display(),
                startup.as_secs()
            ),
            LineError::Exited(how) => format!(
                "the Python plugin worker ({}) exited at start-up ({how})",
                program.display()
            ),
            other => format!("the Python plugin worker ({}): {other}", program.display()),
        })?;
        let text = |key: &str| {
            ready
                .get(key)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned()
        };
        Ok(Connection {
            executable: text("executable"),
            version: text("version"),
            worker: Arc::new(worker),
            probing: Arc::default(),
            pipeline: OnceLock::new(),
        })
    }

    /// Whether the worker still answers (its output is open, its input writable).
    pub(crate) fn is_alive(&self) -> bool {
        self.worker.is_alive()
    }

    /// Whether the worker was alive when last looked at (no system call).
    pub(crate) fn seems_alive(&self) -> bool {
        self.worker.seems_alive()
    }

    /// How the worker process ended, once it has.
    pub(crate) fn exit_status(&self) -> Option<String> {
        self.worker.exit_status()
    }

    /// Posts a queued event for `callback` without waiting for it to run
    /// (`observe.rs`); false when it was dropped.
    pub(crate) fn observe(&self, callback: &str, event: &Event) -> Result<bool, WorkerError> {
        let pipeline = self.pipeline.get_or_init(|| match Pipeline::start(&self.worker) {
            Ok(pipeline) => Some(pipeline),
            Err(error) => {
                tracing::warn!(
                    "the Python plugin worker's observer pipeline did not start ({error}); observer events wait for each answer"
                );
                None
            }
        });
        match pipeline {
            Some(pipeline) => Ok(pipeline.post(callback, event)),
            None => Err(WorkerError::Worker("no observer pipeline".to_owned())),
        }
    }

    /// Whether every observer event posted to this worker has run (or never will: it is gone).
    pub(crate) fn observers_settled(&self) -> bool {
        match self.pipeline.get() {
            Some(Some(pipeline)) => pipeline.settled(&self.worker),
            _ => true,
        }
    }

    /// How many observer events were dropped (too many in flight for their callback).
    pub(crate) fn observers_dropped(&self) -> u64 {
        match self.pipeline.get() {
            Some(Some(pipeline)) => pipeline.dropped(),
            _ => 0,
        }
    }

    /// Sends `op` with `body` (a JSON object's fields) and waits at most `deadline`.
    pub(crate) fn request<T: Serialize>(
        &self,
        op: &str,
        body: &T,
        deadline: Duration,
    ) -> Result<Value, WorkerError> {
        // `{"op":..,<body's fields>}`, encoded once (no `Value` tree of the payload).
        let fields = serde_json::to_vec(body)
            .map_err(|error| WorkerError::Worker(format!("cannot encode the request: {error}")))?;
        let mut message = Vec::with_capacity(fields.len() + op.len() + 12);
        message.extend_from_slice(b"{\"op\":");
        serde_json::to_writer(&mut message, op)
            .map_err(|error| WorkerError::Worker(format!("cannot encode the request: {error}")))?;
        match fields.strip_prefix(b"{") {
            Some(rest) if rest.trim_ascii_start().first() != Some(&b'}') => {
                message.push(b',');
                message.extend_from_slice(rest);
            }
            _ => message.push(b'}'),
        }
        let answer = self.worker.request_encoded(&message, deadline);
        self.explain(answer)
    }

    /// Sends one `calls` request (`line`: the encoded object, no `id`) that
    /// the worker answers `count` times, one id per callback; each answer is
    /// then waited for with [`Self::answer`]. The write is bounded by `deadline`.
    pub(crate) fn calls(
        &self,
        line: &[u8],
        count: usize,
        deadline: Duration,
    ) -> Result<Answers, WorkerError> {
        self.worker
            .request_encoded_many(line, count, deadline)
            .map_err(|error| WorkerError::Worker(format!("the Python plugin worker: {error}")))
    }

    /// Waits at most `deadline` for answer `index` of a `calls` request. A
    /// callback the worker gave up at its deadline is [`WorkerError::TimedOut`].
    pub(crate) fn answer(
        &self,
        answers: &Answers,
        index: usize,
        deadline: Duration,
    ) -> Result<Value, WorkerError> {
        let answer = self.worker.wait_answer(answers, index, deadline);
        if let Ok(message) = &answer
            && message.get("timed_out") == Some(&Value::Bool(true))
        {
            // As after a call with no answer: is the worker still healthy?
            self.probe();
            return Err(WorkerError::TimedOut(deadline));
        }
        self.explain(answer)
    }

    /// After a `calls` request was dropped before all its answers were
    /// waited for: someone still waiting reads the pipe.
    pub(crate) fn forgot_answers(&self) {
        self.worker.pass_reading_turn();
    }

    /// An answer as the result of Python code, or why there is none.
    fn explain(&self, answer: hermes_hooks_process::Answer) -> Result<Value, WorkerError> {
        match answer {
            Ok(answer) => match parse_answer(answer) {
                Answer::Ok(value) => Ok(value),
                Answer::Raised { kind, message } => Err(WorkerError::Raised { kind, message }),
                Answer::Garbage(why) => Err(WorkerError::Worker(format!(
                    "the Python plugin worker broke the protocol: {why}"
                ))),
            },
            Err(LineError::TimedOut(limit)) => {
                self.probe();
                Err(WorkerError::TimedOut(limit))
            }
            Err(LineError::Exited(how)) => Err(WorkerError::Worker(format!(
                "the Python plugin worker {how}"
            ))),
            Err(other) => Err(WorkerError::Worker(format!(
                "the Python plugin worker: {other}"
            ))),
        }
    }

    /// After a call timed out: checks in the background that the worker
    /// still reads requests, answers them and runs its event loop (`ping`).
    /// A worker that does not is wedged (a plugin broke it): it is killed, so
    /// the next call restarts it instead of every later call timing out.
    fn probe(&self) {
        if self.probing.swap(true, Ordering::SeqCst) {
            return;
        }
        let worker = Arc::clone(&self.worker);
        let probing = Arc::clone(&self.probing);
        let spawned = std::thread::Builder::new()
            .name("hooks-py-probe".to_owned())
            .spawn(move || {
                let mut ping = Map::new();
                ping.insert("op".to_owned(), Value::from("ping"));
                let healthy = match worker.request(ping, PROBE_TIMEOUT) {
                    Ok(answer) => matches!(parse_answer(answer), Answer::Ok(_)),
                    // Dead already: the next call restarts it.
                    Err(LineError::Exited(_)) => true,
                    Err(_) => false,
                };
                if !healthy && worker.is_alive() {
                    tracing::warn!(
                        "the Python plugin worker did not answer a health check within {}s after a callback timed out; it is stopped and restarted at the next call",
                        PROBE_TIMEOUT.as_secs()
                    );
                    worker.mark_broken("it did not answer a health check");
                }
                probing.store(false, Ordering::SeqCst);
            });
        if spawned.is_err() {
            self.probing.store(false, Ordering::SeqCst);
        }
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        if let Some(Some(pipeline)) = self.pipeline.get() {
            pipeline.close();
        }
    }
}

/// Shows each stderr line as a warning naming the plugin that wrote it.
fn log_stderr(text: &str, _cut: bool) {
    match attribute_stderr(text) {
        (Some(plugin), text) => {
            tracing::warn!("Python plugin '{}': {}", escape(plugin), escape(text));
        }
        (None, text) => tracing::warn!("Python plugin worker: {}", escape(text)),
    }
}
