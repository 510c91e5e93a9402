//! One request per event: the Python callbacks of one worker that a bounded
//! event runs one after another go to the worker as one `calls` request,
//! answered once per callback as each finishes ([`Joint`] for
//! [`PythonHost`]).
//!
//! The worker runs them in order, each with the callback timeout as its own
//! deadline; one past it is answered as timed out and the rest continue on
//! another thread of the worker (`Joint` in `worker.py`), so no callback is
//! ever run twice and none waits on a hung one for longer than its
//! predecessor's deadline. The core still decides each callback's timeout
//! (its deadline is the earlier one: a callback the worker gave up is held
//! here until the core's deadline has passed, and reported as timed out).
//! A worker that dies mid-request fails every callback not answered yet.
//! A run of one callback is one `call` request, as any single callback.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hermes_hooks_callbacks::{CallbackError, CallbackResult, Joint, JointRun};
use hermes_hooks_core::Event;
use hermes_hooks_process::Answers;
use serde_json::Value;

use super::connection::{Connection, WorkerError};
use super::host::{PythonHost, worker_error};
use crate::json;

/// How long a `calls` request may take to be written (the worker reads
/// requests on a standby thread within ~10 ms even while one hangs).
const WRITE_TIMEOUT: Duration = Duration::from_secs(5);

impl Joint for PythonHost {
    fn call(&self, member: &str, event: &Event) -> CallbackResult {
        PythonHost::call(self, member, event)
    }

    fn start(&self, event: &Event, members: &[Arc<str>]) -> Box<dyn JointRun> {
        let deadline = self.bounded_deadline();
        if let [member] = members {
            // One callback: one `call`, run here (the batch worker's thread,
            // its deadline already counting), as any callback.
            let name = event.name().as_str();
            let result = self.call_within(member, name, event.payload(), deadline);
            return Box::new(Done(Mutex::new(Some(result))));
        }
        let connection = match self.connection() {
            Ok(connection) => connection,
            Err(error) => return Box::new(Started::failed(worker_error(error), members.len())),
        };
        // A callback whose plugin is not running in this worker fails
        // without being sent (on `pre_tool_call`: a block).
        let mut places = Vec::with_capacity(members.len());
        let mut sent: Vec<&str> = Vec::with_capacity(members.len());
        for member in members {
            match self.callback_failure(member) {
                Some(reason) => places.push(Place::Failed(CallbackError::new(
                    "PluginWorkerError",
                    reason,
                ))),
                None => {
                    places.push(Place::Sent(sent.len()));
                    sent.push(member);
                }
            }
        }
        if sent.is_empty() {
            return Box::new(Started {
                connection: None,
                answers: None,
                places,
                deadline,
            });
        }
        let line = encode(&sent, event, self.call_timeout());
        let answers = connection.calls(&line, sent.len(), WRITE_TIMEOUT.min(deadline));
        let answers = match answers {
            Ok(answers) => answers,
            Err(error) => return Box::new(Started::failed(worker_error(error), members.len())),
        };
        Box::new(Started {
            connection: Some(connection),
            answers: Some(answers),
            places,
            deadline,
        })
    }
}

/// `{"op":"calls","event":..,"payload":{..},"timeout":s,"callbacks":[..]}`:
/// the payload encoded once for every callback.
fn encode(callbacks: &[&str], event: &Event, timeout: Duration) -> Vec<u8> {
    let mut line = Vec::with_capacity(256);
    line.extend_from_slice(b"{\"op\":\"calls\",\"event\":");
    // Writing to a Vec cannot fail; these strings and values (from JSON) encode.
    let _ = json::write_str(event.name().as_str(), &mut line);
    line.extend_from_slice(b",\"timeout\":");
    line.extend_from_slice(Value::from(timeout.as_secs_f64()).to_string().as_bytes());
    line.extend_from_slice(b",\"callbacks\":[");
    for (index, callback) in callbacks.iter().enumerate() {
        if index > 0 {
            line.push(b',');
        }
        let _ = json::write_str(callback, &mut line);
    }
    line.extend_from_slice(b"],\"payload\":");
    if json::write_object(event.payload(), &mut line).is_err() {
        line.extend_from_slice(b"{}");
    }
    line.push(b'}');
    line
}

/// Where a member's result comes from.
enum Place {
    /// The answer with this index of the request.
    Sent(usize),
    /// Not sent: it fails with this.
    Failed(CallbackError),
}

/// One `calls` request in flight.
struct Started {
    connection: Option<Arc<Connection>>,
    answers: Option<Answers>,
    places: Vec<Place>,
    /// How long each answer is waited for.
    deadline: Duration,
}

impl Started {
    /// A request that could not be sent: each of `count` members fails with `error`.
    fn failed(error: CallbackError, count: usize) -> Self {
        Started {
            connection: None,
            answers: None,
            places: (0..count).map(|_| Place::Failed(error.clone())).collect(),
            deadline: Duration::ZERO,
        }
    }
}

impl JointRun for Started {
    fn result(&self, index: usize) -> CallbackResult {
        let waited = Instant::now();
        let answer = match (self.places.get(index), &self.connection, &self.answers) {
            (Some(Place::Failed(error)), _, _) => return Err(error.clone()),
            (Some(Place::Sent(place)), Some(connection), Some(answers)) => {
                connection.answer(answers, *place, self.deadline)
            }
            _ => Err(WorkerError::Worker(format!(
                "callback {index} was not part of the request"
            ))),
        };
        match answer {
            Ok(Value::Null) => Ok(None),
            Ok(reply) => Ok(Some(reply)),
            Err(WorkerError::TimedOut(limit)) => {
                // The worker gave the callback up at its own deadline, a
                // little before the core's: the core decides (and reports
                // the timeout as its own), so its deadline must pass first.
                let until = waited + self.deadline;
                std::thread::sleep(until.saturating_duration_since(Instant::now()));
                Err(worker_error(WorkerError::TimedOut(limit)))
            }
            Err(error) => Err(worker_error(error)),
        }
    }
}

/// A run of one callback, already answered.
struct Done(Mutex<Option<CallbackResult>>);

impl JointRun for Done {
    fn result(&self, _index: usize) -> CallbackResult {
        let taken = self.0.lock().map(|mut result| result.take()).ok().flatten();
        taken.unwrap_or_else(|| {
            Err(CallbackError::new(
                "PluginWorkerError",
                "the callback's answer was already taken",
            ))
        })
    }
}

impl Drop for Started {
    fn drop(&mut self) {
        // Answers nobody waited for (the caller went away) are forgotten,
        // and the turn to read the pipe must not stay with them.
        if let (Some(connection), Some(answers)) = (&self.connection, self.answers.take()) {
            drop(answers);
            connection.forgot_answers();
        }
    }
}
