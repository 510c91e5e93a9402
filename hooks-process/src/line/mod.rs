//! [`LineWorker`]: the one line-protocol worker, a long-lived child that
//! answers id-tagged JSON lines. Both Python bridges (the plugin worker and
//! the gateway's handler workers) talk to their interpreters through it.
//!
//! - Every request is one JSON object per line with an `id` the answer
//!   repeats; the reader thread hands each answer to the request with its id,
//!   and a line that answers nothing pending is logged and discarded, never
//!   taken as the answer to another request. The child's first message
//!   (`id` 0) is its start-up line, read with [`LineWorker::wait_ready`].
//! - Reads are capped ([`LineOptions::max_line_bytes`]); a longer line is
//!   consumed and dropped (it fails the request in flight when only one is).
//! - The child's stderr is handed line by line to a sink (shown as warnings),
//!   with whether the line was cut at [`LineOptions::max_stderr_line_bytes`].
//! - Every call has a deadline, sync ([`LineWorker::request`]) or async
//!   ([`LineWorker::request_async`]); writes happen on the worker's own
//!   writer thread, so a child that stops reading cannot hold a caller past it.
//! - A write that fails (the child closed its input, or broke the pipe) marks
//!   the worker broken: it is killed and every waiting request fails at once,
//!   so the owner restarts it ([`RestartBudget`] says how soon) instead of
//!   failing every later request.
//! - The child is a [`ChildTree`]: dropping the worker kills its whole tree.
//! - A direct worker ([`LineWorker::spawn_direct`], for blocking callers)
//!   has no reader or writer thread: the caller writes its request and the
//!   thread waiting for an answer reads the pipe itself, both bounded by the
//!   call's deadline (`direct.rs`).

mod direct;
mod errors;
pub(crate) mod many;
mod read;
mod restart;
mod script;
mod slot;
mod start;
mod threads;

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use serde_json::{Map, Value};
use tokio::process::Command;

pub use errors::{LineError, LineOptions};
pub(crate) use read::read_capped_line;
pub use restart::RestartBudget;
pub use script::{PROTOCOL_PRELUDE, concat_bytes};
use slot::Slot;
use start::{spawn_thread, start, with_runtime};

use super::ChildTree;

/// An answer: the answer line's object, or why there is none.
pub type Answer = Result<Map<String, Value>, LineError>;

/// How long an error waits for the exit status of a worker whose output closed.
const EXIT_STATUS_GRACE: Duration = Duration::from_millis(200);

/// How long a dropped worker waits for its last stderr lines to be shown.
const STDERR_DRAIN: Duration = Duration::from_secs(1);

/// State the reader and writer threads share with callers.
struct Shared {
    label: String,
    /// Lines of stderr handed to the sink so far.
    stderr_lines: AtomicU64,
    pending: Mutex<HashMap<u64, Arc<Slot>>>,
    alive: AtomicBool,
    ready: Arc<Slot>,
    ready_seen: AtomicBool,
    tree: Mutex<ChildTree>,
    /// Where lines without an `id` but with a `notice` go ([`LineWorker::on_notice`]).
    notices: Mutex<Option<Arc<NoticeFn>>>,
}

/// A sink for a worker's notices: lines that answer no request.
pub type NoticeFn = dyn Fn(Map<String, Value>) + Send + Sync;

impl Shared {
    /// Marks the worker dead and fails every waiting request with `error`.
    fn close(&self, error: &LineError) {
        self.alive.store(false, Ordering::SeqCst);
        let waiting: Vec<_> = lock(&self.pending).drain().collect();
        for (_, slot) in waiting {
            slot.fill(Err(error.clone()));
        }
        self.ready.fill(Err(error.clone()));
    }

    /// The worker is unusable: kill it (the reader then sees the end) and fail what waits.
    fn broken(&self, error: &LineError) {
        self.close(error);
        with_runtime(|| lock(&self.tree).kill_tree());
    }
}

/// A running line-protocol worker. Calls may come from any thread at once.
pub struct LineWorker {
    shared: Arc<Shared>,
    requests: Mutex<Option<mpsc::Sender<Vec<u8>>>>,
    /// The pipes of a direct worker (then `requests` is `None`).
    direct: Option<direct::Direct>,
    next_id: AtomicU64,
    pid: u32,
    /// Disconnected by the stderr thread when it has forwarded the last line.
    stderr_done: Mutex<mpsc::Receiver<()>>,
}

impl fmt::Debug for LineWorker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LineWorker")
            .field("label", &self.shared.label)
            .field("pid", &self.pid)
            .field("alive", &self.is_alive())
            .finish_non_exhaustive()
    }
}

impl LineWorker {
    /// Spawns `command` (its stdio becomes pipes) as a [`ChildTree`]; each
    /// stderr line goes to `stderr` (the text, and whether it was cut).
    /// Works under any executor, or none.
    pub fn spawn(
        command: Command,
        options: LineOptions,
        stderr: impl Fn(&str, bool) + Send + Sync + 'static,
    ) -> std::io::Result<LineWorker> {
        let (shared, stdin, stdout, done) = start(command, &options, stderr)?;
        let reader = Arc::clone(&shared);
        let cap = options.max_line_bytes;
        spawn_thread("hooks-line-reader", move || {
            threads::read_answers(stdout, &reader, cap)
        })?;
        let (requests, queue) = mpsc::channel::<Vec<u8>>();
        let writer = Arc::clone(&shared);
        spawn_thread("hooks-line-writer", move || {
            threads::write_requests(stdin, &queue, &writer)
        })?;
        Ok(LineWorker::new(shared, Some(requests), None, done))
    }

    /// [`Self::spawn`] without reader and writer threads, for blocking
    /// callers: a request is written by its caller, and the thread waiting
    /// for an answer reads the pipe itself, both within the call's deadline.
    /// Its async calls block the calling thread like the blocking ones.
    pub fn spawn_direct(
        command: Command,
        options: LineOptions,
        stderr: impl Fn(&str, bool) + Send + Sync + 'static,
    ) -> std::io::Result<LineWorker> {
        let (shared, stdin, stdout, done) = start(command, &options, stderr)?;
        let direct = direct::Direct::new(stdin, stdout, options.max_line_bytes)?;
        Ok(LineWorker::new(shared, None, Some(direct), done))
    }

    fn new(
        shared: Arc<Shared>,
        requests: Option<mpsc::Sender<Vec<u8>>>,
        direct: Option<direct::Direct>,
        stderr_done: mpsc::Receiver<()>,
    ) -> LineWorker {
        let pid = lock(&shared.tree).id();
        LineWorker {
            shared,
            requests: Mutex::new(requests),
            direct,
            next_id: AtomicU64::new(1),
            pid,
            stderr_done: Mutex::new(stderr_done),
        }
    }

    /// The child's pid.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Waits at most `timeout` for the start-up line (the first with `id` 0).
    pub fn wait_ready(&self, timeout: Duration) -> Answer {
        let until = deadline_after(timeout);
        let answer = match &self.direct {
            Some(direct) => direct.wait(&self.shared, &self.shared.ready, until),
            None => self.shared.ready.wait_until(until),
        };
        match answer {
            Some(answer) => self.explain(answer),
            None => Err(LineError::TimedOut(timeout)),
        }
    }

    /// [`Self::wait_ready`] for async callers.
    pub async fn ready_async(&self, timeout: Duration) -> Answer {
        if self.direct.is_some() {
            return self.wait_ready(timeout);
        }
        match tokio::time::timeout(timeout, self.shared.ready.answer()).await {
            Ok(answer) => self.explain(answer),
            Err(_) => Err(LineError::TimedOut(timeout)),
        }
    }

    /// Sends `message` (its `id` is set here) and blocks until its answer or `deadline`.
    pub fn request(&self, message: Map<String, Value>, deadline: Duration) -> Answer {
        let until = deadline_after(deadline);
        let (id, slot) = self.send(message, until)?;
        self.wait_blocking(id, &slot, until, deadline)
    }

    /// [`Self::request`] with the request already encoded: `object` is one
    /// JSON object (`{...}`, no `id`), sent as is with the id put first (no
    /// `Value` tree built for a body its caller can serialise directly).
    pub fn request_encoded(&self, object: &[u8], deadline: Duration) -> Answer {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let until = deadline_after(deadline);
        let (id, slot) = self.send_line(id, with_id(id, object), until)?;
        self.wait_blocking(id, &slot, until, deadline)
    }

    fn wait_blocking(&self, id: u64, slot: &Slot, until: Instant, deadline: Duration) -> Answer {
        let answer = match &self.direct {
            Some(direct) => direct.wait(&self.shared, slot, until),
            None => slot.wait_until(until),
        };
        self.settle(id, answer, deadline)
    }

    fn settle(&self, id: u64, answer: Option<Answer>, deadline: Duration) -> Answer {
        match answer {
            Some(answer) => self.explain(answer),
            None => {
                // Its answer, if it ever comes, is logged as stale and dropped.
                lock(&self.shared.pending).remove(&id);
                // A reader leaving as this caller timed out may have handed
                // it the turn to read: passed on, or those still waiting
                // would wait for answers no one reads until their deadlines.
                if let Some(direct) = &self.direct {
                    direct.pass_turn(&self.shared, &Slot::default());
                }
                Err(LineError::TimedOut(deadline))
            }
        }
    }

    /// [`Self::request`] for async callers.
    pub async fn request_async(&self, message: Map<String, Value>, deadline: Duration) -> Answer {
        if self.direct.is_some() {
            return self.request(message, deadline);
        }
        let (id, slot) = self.send(message, deadline_after(deadline))?;
        self.answer_async(id, &slot, deadline).await
    }

    /// [`Self::request_async`] with the request already encoded: `object` is
    /// one JSON object (`{...}`, no `id`), sent as is with the id put first.
    /// A body shared by many workers is encoded once.
    pub async fn request_encoded_async(&self, object: &[u8], deadline: Duration) -> Answer {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let until = deadline_after(deadline);
        let (id, slot) = self.send_line(id, with_id(id, object), until)?;
        if self.direct.is_some() {
            return self.wait_blocking(id, &slot, until, deadline);
        }
        self.answer_async(id, &slot, deadline).await
    }

    async fn answer_async(&self, id: u64, slot: &Slot, deadline: Duration) -> Answer {
        // A caller that stops waiting (its own timeout dropped this future)
        // leaves nothing pending: a late answer is then logged as stale.
        struct Forget<'a>(&'a Shared, u64);
        impl Drop for Forget<'_> {
            fn drop(&mut self) {
                lock(&self.0.pending).remove(&self.1);
            }
        }
        let _forget = Forget(&self.shared, id);
        match tokio::time::timeout(deadline, slot.answer()).await {
            Ok(answer) => self.explain(answer),
            Err(_) => Err(LineError::TimedOut(deadline)),
        }
    }

    /// Sends `line` (one JSON object and its newline) expecting no answer,
    /// within `deadline`. What the worker says back comes as notices.
    pub fn post(&self, line: &[u8], deadline: Duration) -> Result<(), LineError> {
        if !self.shared.alive.load(Ordering::SeqCst) {
            return Err(self.died());
        }
        match &self.direct {
            Some(direct) => direct
                .write(line, deadline_after(deadline))
                .inspect_err(|error| self.shared.broken(error)),
            None => {
                let queued = lock(&self.requests)
                    .as_ref()
                    .is_some_and(|queue| queue.send(line.to_vec()).is_ok());
                if queued { Ok(()) } else { Err(self.died()) }
            }
        }
    }

    /// Hands every notice the worker writes (a line with a `notice` field
    /// and no `id`) to `sink`, on whichever thread reads it.
    pub fn on_notice(&self, sink: impl Fn(Map<String, Value>) + Send + Sync + 'static) {
        *lock(&self.shared.notices) = Some(Arc::new(sink));
    }

    /// Reads what the worker has written so far without waiting, when no
    /// caller is reading (a direct worker has no reader thread): notices
    /// are handed out and an exit is noticed.
    pub fn pump(&self) {
        if let Some(direct) = &self.direct {
            direct.closed(&self.shared);
        }
    }

    /// Whether the sink has been handed `lines` lines of the worker's stderr,
    /// or stderr has ended (nothing more will come): a worker that counts the
    /// lines it writes can tell its host to wait until they were shown.
    pub fn stderr_shown(&self, lines: u64) -> bool {
        self.shared.stderr_lines.load(Ordering::SeqCst) >= lines
            || matches!(
                lock(&self.stderr_done).try_recv(),
                Err(mpsc::TryRecvError::Disconnected)
            )
    }

    /// Whether the worker still answers (its output is open and its input writable).
    pub fn is_alive(&self) -> bool {
        if self.shared.alive.load(Ordering::SeqCst) {
            // A direct worker has no reader thread to notice an exit: look now.
            self.pump();
        }
        self.shared.alive.load(Ordering::SeqCst)
    }

    /// Whether the worker was alive when last looked at: no look at the pipe
    /// (for hot paths that will find out at their next read or write).
    pub fn seems_alive(&self) -> bool {
        self.shared.alive.load(Ordering::SeqCst)
    }

    /// How the child ended, once it has.
    pub fn exit_status(&self) -> Option<String> {
        with_runtime(|| lock(&self.shared.tree).try_wait())
            .ok()
            .flatten()
            .map(|status| status.to_string())
    }

    /// Declares the worker broken (its owner found it wedged): kills it and
    /// everything it started, and fails every waiting request.
    pub fn mark_broken(&self, why: &str) {
        self.shared
            .broken(&LineError::Exited(format!("was killed: {why}")));
    }

    /// Kills the child and everything it started. Idempotent.
    pub fn kill(&self) {
        with_runtime(|| lock(&self.shared.tree).kill_tree());
    }

    fn send(
        &self,
        mut message: Map<String, Value>,
        until: Instant,
    ) -> Result<(u64, Arc<Slot>), LineError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        message.insert("id".to_owned(), Value::from(id));
        let mut line =
            serde_json::to_vec(&message).map_err(|error| LineError::Encode(error.to_string()))?;
        line.push(b'\n');
        self.send_line(id, line, until)
    }

    fn send_line(
        &self,
        id: u64,
        line: Vec<u8>,
        until: Instant,
    ) -> Result<(u64, Arc<Slot>), LineError> {
        let slot = Arc::new(Slot::default());
        lock(&self.shared.pending).insert(id, Arc::clone(&slot));
        if let Some(direct) = &self.direct {
            if !self.shared.alive.load(Ordering::SeqCst) {
                lock(&self.shared.pending).remove(&id);
                return Err(self.died());
            }
            if let Err(error) = direct.write(&line, until) {
                tracing::warn!(
                    "{}: cannot write to it ({error}); it is broken and is stopped",
                    self.shared.label
                );
                self.shared.broken(&error);
                lock(&self.shared.pending).remove(&id);
                return Err(error);
            }
            return Ok((id, slot));
        }
        // Dead already: nothing fills the slot; dying later does (or the answer did).
        let queued = self.is_alive()
            && lock(&self.requests)
                .as_ref()
                .is_some_and(|queue| queue.send(line).is_ok());
        if !queued {
            lock(&self.shared.pending).remove(&id);
            return Err(self.died());
        }
        Ok((id, slot))
    }

    /// An `Exited` answer, with the child's exit status when it has one.
    fn explain(&self, answer: Answer) -> Answer {
        match answer {
            Err(LineError::Exited(_)) => Err(self.died()),
            other => other,
        }
    }

    fn died(&self) -> LineError {
        // The output closes before the exit is reaped: wait a little for the status.
        let until = Instant::now() + EXIT_STATUS_GRACE;
        let mut status = self.exit_status();
        while status.is_none() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(5));
            status = self.exit_status();
        }
        LineError::Exited(status.map_or_else(
            || "closed its output".to_owned(),
            |status| format!("exited ({status})"),
        ))
    }
}

impl Drop for LineWorker {
    /// Kills the child (and what it started), then lets the stderr thread show
    /// what it wrote before: a last print must not be lost because the host
    /// exits right after its last request.
    fn drop(&mut self) {
        lock(&self.requests).take();
        self.kill();
        let _ = lock(&self.stderr_done).recv_timeout(STDERR_DRAIN);
    }
}

/// `{"id":N,...object}`: the encoded object with the request id in front, one line.
fn with_id(id: u64, object: &[u8]) -> Vec<u8> {
    let object = object.trim_ascii_end();
    let rest = object.strip_prefix(b"{").unwrap_or(object);
    let mut line = format!("{{\"id\":{id}").into_bytes();
    if rest.trim_ascii_start().first() != Some(&b'}') {
        line.push(b',');
    }
    line.extend_from_slice(rest);
    line.push(b'\n');
    line
}

/// `timeout` from now, or a far deadline when that is past what `Instant` holds.
fn deadline_after(timeout: Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(timeout)
        .or_else(|| now.checked_add(Duration::from_secs(100 * 365 * 86_400)))
        .unwrap_or(now)
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_goes_first_in_an_encoded_object() {
        let line = with_id(7, b"{\"event\":\"a:b\",\"context\":{}}\n");
        let value: Value = serde_json::from_slice(&line).unwrap_or(Value::Null);
        assert_eq!(
            value,
            serde_json::json!({"id": 7, "event": "a:b", "context": {}})
        );
        assert_eq!(line.last(), Some(&b'\n'));
        let empty: Value = serde_json::from_slice(&with_id(1, b"{}")).unwrap_or(Value::Null);
        assert_eq!(empty, serde_json::json!({"id": 1}));
    }

    #[test]
    fn huge_deadlines_do_not_overflow() {
        assert!(deadline_after(Duration::MAX) > Instant::now());
    }
}
