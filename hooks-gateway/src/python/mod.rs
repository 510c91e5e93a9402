//! Python handlers: one persistent `python3` worker per hook, started on the
//! hook's first event, reused for later events, replaced when it dies or times out.
//!
//! The worker runs [`PYTHON_SHIM`], which imports `handler.py` and answers one
//! JSON line per request (see the shim's docstring for the protocol).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::Mutex;
use tokio::time::Instant;

use crate::discovery::GatewayHookInfo;
use crate::error::HandlerError;
use crate::process::{kill_group, log_stderr_lines, prepare, read_line_capped};

/// The Python program every worker runs (passed with `-c`): imports the hook's
/// `handler.py` as `hermes_hook_<name>` and serves JSON-line requests.
pub const PYTHON_SHIM: &str = include_str!("shim.py");

/// The largest response line accepted from a worker; a longer one is a protocol error.
const MAX_RESPONSE_BYTES: usize = 16 * 1024 * 1024;

/// A Python hook: where its handler is and the state of its worker.
pub(crate) struct PythonHook {
    name: String,
    handler: PathBuf,
    python: OsString,
    home: PathBuf,
    slot: Mutex<WorkerSlot>,
}

enum WorkerSlot {
    /// No worker yet, or the last one was discarded.
    Idle,
    Running(Box<PythonWorker>),
    /// The handler could not be imported; the hook stays off (like a hook the
    /// reference skipped at load time) until the gateway restarts.
    Unloadable(String),
}

impl PythonHook {
    pub(crate) fn new(info: &GatewayHookInfo, python: OsString, home: PathBuf) -> Self {
        PythonHook {
            name: info.name.clone(),
            handler: info.handler_path(),
            python,
            home,
            slot: Mutex::new(WorkerSlot::Idle),
        }
    }

    /// Sends one request line and waits for the handler's result, all within `timeout`.
    ///
    /// Calls to the same hook are serialised (one worker, one request at a time).
    pub(crate) async fn call(
        &self,
        request: &[u8],
        timeout: Duration,
    ) -> Result<Value, HandlerError> {
        let deadline = Instant::now() + timeout;
        let timed_out = || HandlerError::Timeout {
            handler: self.handler.clone(),
            timeout,
        };
        let mut slot = tokio::time::timeout_at(deadline, self.slot.lock())
            .await
            .map_err(|_| timed_out())?;
        let outcome = tokio::time::timeout_at(deadline, self.call_locked(&mut slot, request)).await;
        let result = outcome.unwrap_or_else(|_| Err(timed_out()));
        if let Err(error) = &result
            && error.poisons_worker()
        {
            // Dropping the worker kills its process group; the next event starts a new one.
            *slot = WorkerSlot::Idle;
        }
        result
    }

    async fn call_locked(
        &self,
        slot: &mut WorkerSlot,
        request: &[u8],
    ) -> Result<Value, HandlerError> {
        if let WorkerSlot::Unloadable(reason) = slot {
            return Err(HandlerError::Unloadable {
                handler: self.handler.clone(),
                reason: reason.clone(),
            });
        }
        if let WorkerSlot::Running(worker) = slot {
            if worker.has_exited() {
                tracing::warn!(hook = %self.name, "[hooks] worker for '{}' had exited; restarting it", self.name);
                *slot = WorkerSlot::Idle;
            } else if worker.in_flight {
                tracing::warn!(hook = %self.name, "[hooks] a call to '{}' was cancelled mid-way; restarting its worker", self.name);
                *slot = WorkerSlot::Idle;
            }
        }
        if matches!(slot, WorkerSlot::Idle) {
            let mut worker =
                PythonWorker::spawn(&self.python, &self.handler, &self.name, &self.home)?;
            match worker.handshake().await {
                Ok(()) => *slot = WorkerSlot::Running(Box::new(worker)),
                Err(HandlerError::Unloadable { handler, reason }) => {
                    *slot = WorkerSlot::Unloadable(reason.clone());
                    return Err(HandlerError::Unloadable { handler, reason });
                }
                Err(error) => return Err(error),
            }
        }
        match slot {
            WorkerSlot::Running(worker) => worker.call(request).await,
            WorkerSlot::Idle | WorkerSlot::Unloadable(_) => {
                Err(self.protocol("worker did not start"))
            }
        }
    }

    fn protocol(&self, message: impl Into<String>) -> HandlerError {
        HandlerError::Protocol {
            handler: self.handler.clone(),
            message: message.into(),
        }
    }
}

/// One running `python3 -c SHIM handler.py name` process.
struct PythonWorker {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    handler: PathBuf,
    /// Set while a request is out; still set at the next call means the caller
    /// gave up mid-call, so the protocol may be out of step.
    in_flight: bool,
}

impl PythonWorker {
    fn spawn(
        python: &OsString,
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
        prepare(&mut command);
        let spawn_error = |source| HandlerError::Spawn {
            program: python.to_string_lossy().into_owned(),
            handler: handler.to_path_buf(),
            source,
        };
        let mut child = command.spawn().map_err(spawn_error)?;
        let pipes = (child.stdin.take(), child.stdout.take(), child.stderr.take());
        let (Some(stdin), Some(stdout), Some(stderr)) = pipes else {
            kill_group(&mut child);
            return Err(spawn_error(std::io::Error::other("missing stdio pipe")));
        };
        tokio::spawn(log_stderr_lines(stderr, name.to_owned()));
        tracing::debug!(hook = %name, pid = ?child.id(), "[hooks] started Python worker");
        Ok(PythonWorker {
            child,
            stdin,
            stdout: BufReader::new(stdout),
            handler: handler.to_path_buf(),
            in_flight: false,
        })
    }

    /// Waits for the shim's `{"ready": ...}` line.
    async fn handshake(&mut self) -> Result<(), HandlerError> {
        let message = self.read_message().await?;
        match message.get("ready") {
            Some(Value::Bool(true)) => Ok(()),
            Some(Value::Bool(false)) => Err(HandlerError::Unloadable {
                handler: self.handler.clone(),
                reason: error_text(&message),
            }),
            _ => Err(self.protocol(format!("unexpected first line from the worker: {message}"))),
        }
    }

    async fn call(&mut self, request: &[u8]) -> Result<Value, HandlerError> {
        self.in_flight = true;
        let written = async {
            self.stdin.write_all(request).await?;
            self.stdin.flush().await
        };
        if let Err(error) = written.await {
            return Err(self.protocol(format!("could not send the event to the worker: {error}")));
        }
        let mut message = self.read_message().await?;
        self.in_flight = false;
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

    async fn read_message(&mut self) -> Result<Value, HandlerError> {
        let line = match read_line_capped(&mut self.stdout, MAX_RESPONSE_BYTES).await {
            Ok(Some(line)) if !line.truncated => line,
            Ok(Some(_)) => {
                return Err(
                    self.protocol(format!("response larger than {MAX_RESPONSE_BYTES} bytes"))
                );
            }
            Ok(None) => {
                let status = self.child.try_wait().ok().flatten();
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
        serde_json::from_slice(&line.bytes).map_err(|error| {
            self.protocol(format!("worker wrote a line that is not JSON: {error}"))
        })
    }

    fn has_exited(&mut self) -> bool {
        !matches!(self.child.try_wait(), Ok(None))
    }

    fn protocol(&self, message: impl Into<String>) -> HandlerError {
        HandlerError::Protocol {
            handler: self.handler.clone(),
            message: message.into(),
        }
    }
}

impl Drop for PythonWorker {
    fn drop(&mut self) {
        // Threads and processes the handler started die with it; tokio reaps the child.
        kill_group(&mut self.child);
    }
}

fn error_text(message: &Value) -> String {
    match message.get("error") {
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
        None => "unknown error".to_owned(),
    }
}
