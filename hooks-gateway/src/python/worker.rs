//! One running worker process (`python -c SHIM handler.py name`), spoken to
//! through hooks-core's shared line worker
//! ([`hermes_hooks_process::LineWorker`]): every message carries a
//! request id, a line that answers nothing pending is discarded and logged,
//! reads are capped, stderr lines are warnings naming the hook. A pyenv or
//! asdf shim named as the interpreter runs once per choice: the program it
//! chose (the worker's `sys.executable`) is remembered in the home and started
//! directly after that ([`ShimChoice`]).

use std::path::{Path, PathBuf};
use std::time::Duration;

use hermes_hooks_core::interpreter::ShimChoice;
use hermes_hooks_process::{LineError, LineOptions, LineWorker};
use serde_json::{Map, Value};
use tokio::process::Command;

use crate::error::HandlerError;
use crate::process::log_stderr_line;
use crate::python::PYTHON_SHIM;

/// The largest response line accepted from a worker; a longer one is an error.
const MAX_RESPONSE_BYTES: usize = 16 * 1024 * 1024;
/// The longest stderr line shown; the rest of it is cut.
const MAX_STDERR_LINE_BYTES: usize = 8 * 1024;

/// A running worker. Dropping it kills the worker and everything it started.
pub(crate) struct PythonWorker {
    worker: LineWorker,
    handler: PathBuf,
    /// The shim's choice to remember once the worker says which program runs
    /// (`None` when `python` is no shim, or its choice was known already).
    learn: Option<(ShimChoice, PathBuf)>,
}

impl PythonWorker {
    /// Starts the worker; its stderr is shown as warnings naming the hook.
    pub(crate) fn spawn(
        python: &Path,
        handler: &Path,
        name: &str,
        home: &Path,
    ) -> Result<Self, HandlerError> {
        let choice = ShimChoice::of(python);
        // The real program a shim chose before; the shim when that fails.
        if let Some(real) = choice.as_ref().and_then(|choice| choice.cached(home))
            && let Ok(worker) = Self::spawn_with(&real, handler, name, home)
        {
            return Ok(worker);
        }
        let mut worker = Self::spawn_with(python, handler, name, home)?;
        worker.learn = choice.map(|choice| (choice, home.to_owned()));
        Ok(worker)
    }

    fn spawn_with(
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
            .env("HERMES_HOME", home);
        let options = LineOptions::new(format!("[hooks] {name}: the worker"))
            .with_max_line_bytes(MAX_RESPONSE_BYTES)
            .with_max_stderr_line_bytes(MAX_STDERR_LINE_BYTES);
        let hook = name.to_owned();
        let worker = LineWorker::spawn(command, options, move |line, cut| {
            log_stderr_line(&hook, line.as_bytes(), cut);
        })
        .map_err(|source| HandlerError::Spawn {
            program: python.display().to_string(),
            handler: handler.to_path_buf(),
            source,
        })?;
        tracing::debug!(hook = %name, pid = worker.pid(), "[hooks] started Python worker");
        Ok(PythonWorker {
            worker,
            handler: handler.to_path_buf(),
            learn: None,
        })
    }

    /// Waits (at most `timeout`) for the shim's start-up line: the handler was
    /// imported, or why not.
    pub(crate) async fn handshake(&mut self, timeout: Duration) -> Result<(), HandlerError> {
        let message = self
            .worker
            .ready_async(timeout)
            .await
            .map_err(|error| self.failure(error, timeout))?;
        match message.get("ready") {
            Some(Value::Bool(true)) => {
                if let (Some((choice, home)), Some(Value::String(executable))) =
                    (self.learn.take(), message.get("executable"))
                {
                    choice.remember(&home, Path::new(executable));
                }
                Ok(())
            }
            Some(Value::Bool(false)) => Err(HandlerError::Unloadable {
                handler: self.handler.clone(),
                reason: fields_error_text(&message),
            }),
            _ => Err(self.protocol(format!(
                "unexpected first line from the worker: {}",
                Value::Object(message)
            ))),
        }
    }

    /// Sends one event (`body` is `{"event": ..., "context": ...}`) and waits
    /// at most `timeout` for its answer.
    pub(crate) async fn call(
        &mut self,
        body: &[u8],
        timeout: Duration,
    ) -> Result<Value, HandlerError> {
        let mut message = self
            .worker
            .request_encoded_async(body, timeout)
            .await
            .map_err(|error| self.failure(error, timeout))?;
        match message.get("ok") {
            Some(Value::Bool(true)) => Ok(message.remove("result").unwrap_or(Value::Null)),
            Some(Value::Bool(false)) => Err(HandlerError::Failed {
                handler: self.handler.clone(),
                message: fields_error_text(&message),
            }),
            _ => Err(self.protocol(format!(
                "unexpected response from the worker: {}",
                Value::Object(message)
            ))),
        }
    }

    /// Whether the worker process has exited (or can no longer be used).
    pub(crate) fn has_exited(&mut self) -> bool {
        !self.worker.is_alive() || self.worker.exit_status().is_some()
    }

    fn failure(&self, error: LineError, timeout: Duration) -> HandlerError {
        match error {
            LineError::TimedOut(_) => HandlerError::Timeout {
                handler: self.handler.clone(),
                timeout,
            },
            LineError::Exited(how) => self.protocol(format!("the Python worker {how}")),
            LineError::Send(why) => {
                self.protocol(format!("could not send the event to the worker: {why}"))
            }
            other => self.protocol(other.to_string()),
        }
    }

    fn protocol(&self, message: impl Into<String>) -> HandlerError {
        HandlerError::Protocol {
            handler: self.handler.clone(),
            message: message.into(),
        }
    }
}

/// The `error` field of a failure message.
pub(crate) fn error_text(message: &Value) -> String {
    message
        .as_object()
        .map_or_else(|| "unknown error".to_owned(), fields_error_text)
}

/// [`error_text`] of a message's fields.
fn fields_error_text(message: &Map<String, Value>) -> String {
    match message.get("error") {
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
        None => "unknown error".to_owned(),
    }
}
