//! Python handlers: one persistent worker per hook, started on the hook's first
//! event, reused for later events, replaced when it dies or times out.
//!
//! The worker runs [`PYTHON_SHIM`], which imports `handler.py` and answers one
//! JSON line per request (see the shim's docstring for the protocol). A hook's
//! calls come from its lane one at a time, so no lock is needed here.

mod worker;

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant;

use crate::discovery::GatewayHookInfo;
use crate::error::HandlerError;
use worker::PythonWorker;
pub(crate) use worker::error_text;

/// The Python program every worker runs (passed with `-c`): imports the hook's
/// `handler.py` as `hermes_hook_<name>` and serves JSON-line requests. It
/// starts with hooks-core's shared line-protocol prelude (the fd setup).
pub const PYTHON_SHIM: &str = hermes_hooks_process::line_worker_script!(include_str!("shim.py"));

/// A Python hook: where its handler is and the state of its worker.
pub(crate) struct PythonHook {
    name: String,
    handler: PathBuf,
    python: PathBuf,
    home: PathBuf,
    slot: WorkerSlot,
    broken_at_discovery: bool,
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
    /// A hook whose worker starts on its first call. `load_error` is what the
    /// trial import at discovery reported, if it failed: the hook stays off.
    pub(crate) fn new(info: &GatewayHookInfo, python: PathBuf, home: PathBuf) -> Self {
        PythonHook {
            name: info.name.clone(),
            handler: info.handler_path(),
            python,
            home,
            broken_at_discovery: info.status.error().is_some(),
            slot: match info.status.error() {
                Some(reason) => WorkerSlot::Unloadable(reason.to_owned()),
                None => WorkerSlot::Idle,
            },
        }
    }

    /// Sends one event body and waits for the handler's result, all within
    /// `timeout` (worker start-up included). A worker that timed out or broke
    /// the protocol is killed with everything it started; the next call starts
    /// a new one.
    pub(crate) async fn call(
        &mut self,
        body: &[u8],
        timeout: Duration,
    ) -> Result<Value, HandlerError> {
        let deadline = Instant::now() + timeout;
        let outcome = tokio::time::timeout_at(deadline, self.call_inner(body, timeout)).await;
        let result = outcome.unwrap_or_else(|_| {
            Err(HandlerError::Timeout {
                handler: self.handler.clone(),
                timeout,
            })
        });
        if let Err(error) = &result
            && error.poisons_worker()
        {
            self.slot = WorkerSlot::Idle;
        }
        result
    }

    async fn call_inner(&mut self, body: &[u8], timeout: Duration) -> Result<Value, HandlerError> {
        if let WorkerSlot::Unloadable(reason) = &self.slot {
            return Err(HandlerError::Unloadable {
                handler: self.handler.clone(),
                reason: reason.clone(),
            });
        }
        if let WorkerSlot::Running(worker) = &mut self.slot
            && worker.has_exited()
        {
            let name = &self.name;
            tracing::warn!(hook = %name, "[hooks] the worker of '{name}' had exited; restarting it (module state is lost)");
            self.slot = WorkerSlot::Idle;
        }
        if matches!(self.slot, WorkerSlot::Idle) {
            // Placed in the slot before the handshake, so a timeout during
            // start-up drops (kills) it like any other stuck worker.
            let worker = PythonWorker::spawn(&self.python, &self.handler, &self.name, &self.home)?;
            self.slot = WorkerSlot::Running(Box::new(worker));
            let WorkerSlot::Running(worker) = &mut self.slot else {
                return Err(self.protocol("worker did not start"));
            };
            match worker.handshake(timeout).await {
                Ok(()) => {}
                Err(HandlerError::Unloadable { handler, reason }) => {
                    self.slot = WorkerSlot::Unloadable(reason.clone());
                    return Err(HandlerError::Unloadable { handler, reason });
                }
                Err(error) => return Err(error),
            }
        }
        match &mut self.slot {
            WorkerSlot::Running(worker) => worker.call(body, timeout).await,
            WorkerSlot::Idle | WorkerSlot::Unloadable(_) => {
                Err(self.protocol("worker did not start"))
            }
        }
    }

    /// Whether the trial import at discovery already found the handler broken.
    pub(crate) fn broken_at_discovery(&self) -> bool {
        self.broken_at_discovery
    }

    fn protocol(&self, message: impl Into<String>) -> HandlerError {
        HandlerError::Protocol {
            handler: self.handler.clone(),
            message: message.into(),
        }
    }
}
