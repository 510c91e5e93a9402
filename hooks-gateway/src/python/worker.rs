//! One running worker process (`python -c SHIM handler.py name`) and its
//! request/response protocol: every message carries a request id, and a line
//! that is not the answer to the request in flight is discarded and logged.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use serde_json::Value;
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::process::{ChildStdin, ChildStdout, Command};

use crate::error::HandlerError;
use crate::process::{ChildTree, log_stderr_lines, read_line_capped};
use crate::python::PYTHON_SHIM;

/// The largest response line accepted from a worker; a longer one is an error.
const MAX_RESPONSE_BYTES: usize = 16 * 1024 * 1024;

/// A running worker. Dropping it kills the worker and everything it started.
pub(crate) struct PythonWorker {
    tree: ChildTree,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    name: String,
    handler: PathBuf,
    /// The id of the next request (0 is the start-up message).
    next_id: u64,
}

impl PythonWorker {
    /// Starts the worker; its stderr is shown as warnings naming the hook.
    pub(crate) fn spawn(
        python: &Path,
        handler: &Path,
        name: &str,
        home: &Path,
    ) -> Result<Self, HandlerError> {
        let mut command = Command::new(python);
        command
            .arg("-c")
            .arg(PYTHON_SHIM)
            .arg(handler)
            .arg(name)
            .env("HERMES_HOME", home)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let spawn_error = |source| HandlerError::Spawn {
            program: python.display().to_string(),
            handler: handler.to_path_buf(),
            source,
        };
        let mut tree = ChildTree::spawn(command).map_err(spawn_error)?;
        let child = tree.child_mut();
        let pipes = (child.stdin.take(), child.stdout.take(), child.stderr.take());
        let (Some(stdin), Some(stdout), Some(stderr)) = pipes else {
            return Err(spawn_error(std::io::Error::other("missing stdio pipe")));
        };
        tokio::spawn(log_stderr_lines(stderr, name.to_owned()));
        tracing::debug!(hook = %name, pid = tree.id(), "[hooks] started Python worker");
        Ok(PythonWorker {
            tree,
            stdin,
            stdout: BufReader::new(stdout),
            name: name.to_owned(),
            handler: handler.to_path_buf(),
            next_id: 1,
        })
    }

    /// Waits for the shim's start-up line: the handler was imported, or why not.
    pub(crate) async fn handshake(&mut self) -> Result<(), HandlerError> {
        let message = self.read_answer(0).await?;
        match message.get("ready") {
            Some(Value::Bool(true)) => Ok(()),
            Some(Value::Bool(false)) => Err(HandlerError::Unloadable {
                handler: self.handler.clone(),
                reason: error_text(&message),
            }),
            _ => Err(self.protocol(format!("unexpected first line from the worker: {message}"))),
        }
    }

    /// Sends one event (`body` is `{"event": ..., "context": ...}`) and waits for its answer.
    pub(crate) async fn call(&mut self, body: &[u8]) -> Result<Value, HandlerError> {
        let id = self.next_id;
        self.next_id += 1;
        let request = with_id(id, body);
        let written = async {
            self.stdin.write_all(&request).await?;
            self.stdin.flush().await
        };
        if let Err(error) = written.await {
            return Err(self.protocol(format!("could not send the event to the worker: {error}")));
        }
        let mut message = self.read_answer(id).await?;
        match message.get("ok") {
            Some(Value::Bool(true)) => Ok(message
                .as_object_mut()
                .and_then(|fields| fields.remove("result"))
                .unwrap_or(Value::Null)),
            Some(Value::Bool(false)) => Err(HandlerError::Failed {
                handler: self.handler.clone(),
                message: error_text(&message),
            }),
            _ => Err(self.protocol(format!("unexpected response from the worker: {message}"))),
        }
    }

    /// Reads lines until the one answering request `id`; any other line (not
    /// JSON, no id, a stale id) is discarded and logged, never taken as the
    /// answer. A line past the size cap is an error (the worker is replaced).
    async fn read_answer(&mut self, id: u64) -> Result<Value, HandlerError> {
        loop {
            let line = match read_line_capped(&mut self.stdout, MAX_RESPONSE_BYTES).await {
                Ok(Some(line)) => line,
                Ok(None) => {
                    let status = self.tree.child_mut().try_wait().ok().flatten();
                    let how = status.map_or_else(
                        || "closed its output".to_owned(),
                        |s| format!("exited ({s})"),
                    );
                    return Err(self.protocol(format!("the Python worker {how}")));
                }
                Err(error) => {
                    return Err(self.protocol(format!("could not read from the worker: {error}")));
                }
            };
            if line.truncated {
                // Only the shim writes this channel, so an oversized line is
                // almost surely the answer: fail now rather than at the timeout.
                return Err(self.protocol(format!(
                    "the worker's answer is larger than {MAX_RESPONSE_BYTES} bytes"
                )));
            }
            match serde_json::from_slice::<Value>(&line.bytes) {
                Ok(message) if message.get("id").and_then(Value::as_u64) == Some(id) => {
                    return Ok(message);
                }
                Ok(message) => {
                    let got = message.get("id").map_or("none".into(), Value::to_string);
                    self.discard(id, &format!("a line with request id {got}"));
                }
                Err(_) => self.discard(id, "a line that is not JSON"),
            }
        }
    }

    fn discard(&self, id: u64, what: &str) {
        let name = &self.name;
        tracing::warn!(hook = %name, "[hooks] {name}: discarded {what} from the worker while waiting for request {id}");
    }

    /// Whether the worker process has exited.
    pub(crate) fn has_exited(&mut self) -> bool {
        !matches!(self.tree.child_mut().try_wait(), Ok(None))
    }

    fn protocol(&self, message: impl Into<String>) -> HandlerError {
        HandlerError::Protocol {
            handler: self.handler.clone(),
            message: message.into(),
        }
    }
}

/// `{"id": N, ...body}`: the shared event body with this worker's request id in front.
fn with_id(id: u64, body: &[u8]) -> Vec<u8> {
    let rest = body.strip_prefix(b"{").unwrap_or(body);
    let mut line = format!("{{\"id\":{id},").into_bytes();
    line.extend_from_slice(rest);
    if line.last() != Some(&b'\n') {
        line.push(b'\n');
    }
    line
}

/// The `error` field of a failure message.
pub(crate) fn error_text(message: &Value) -> String {
    match message.get("error") {
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
        None => "unknown error".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_goes_first_in_the_shared_body() {
        let line = with_id(7, b"{\"event\":\"a:b\",\"context\":{}}\n");
        let value: Value = serde_json::from_slice(&line).unwrap_or(Value::Null);
        assert_eq!(
            value,
            serde_json::json!({"id": 7, "event": "a:b", "context": {}})
        );
        assert_eq!(line.last(), Some(&b'\n'));
    }
}
