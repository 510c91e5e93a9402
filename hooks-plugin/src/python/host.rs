//! The Python plugin host of one Hermes home: one long-lived worker, restarted if it dies.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use hermes_hooks_core::callbacks::{CallbackError, CallbackResult};
use hermes_hooks_core::interpreter::PythonInterpreter;
use hermes_hooks_core::prompt::SessionInfo;
use hermes_hooks_core::{Event, Payload};
use serde::Deserialize;
use serde_json::Value;

use super::connection::{Connection, WorkerError};
use super::protocol::{CallBody, LoadBody, NoBody, PluginSpec, SectionBody};

/// How long the worker may take to start (interpreter start-up, no plugin code).
const STARTUP_TIMEOUT: Duration = Duration::from_secs(30);
/// How long one plugin's import and `register(ctx)` may take.
const LOAD_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a section function may take when a session starts.
const SECTION_TIMEOUT: Duration = Duration::from_secs(30);
/// A worker that dies sooner than this after its start is not restarted at once.
const RESTART_INTERVAL: Duration = Duration::from_secs(1);

/// What a plugin registered in the worker.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct LoadReport {
    /// The hooks, in registration order.
    pub hooks: Vec<HookSpec>,
    /// The system-prompt sections, in registration order.
    pub sections: Vec<SectionSpec>,
    /// Warnings raised while registering (unsupported `ctx` APIs).
    pub warnings: Vec<String>,
}

/// One `ctx.register_hook(event, callback)`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct HookSpec {
    /// The event name.
    pub event: String,
    /// The worker's id of the callback.
    pub callback: String,
    /// The callback's `__qualname__`.
    pub name: String,
}

/// One `ctx.register_system_prompt_section(...)`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct SectionSpec {
    /// The section id.
    pub id: String,
    /// The position (`after_memory`).
    pub position: String,
    /// The section's own cap.
    pub max_chars: usize,
    /// The fixed text, when the content is a string.
    pub text: Option<String>,
    /// The worker's id of the content function, when it is callable.
    pub callback: Option<String>,
}

/// Which interpreter runs the plugins, why, and what it reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InterpreterStatus {
    /// The interpreter chosen and why.
    pub interpreter: PythonInterpreter,
    /// `sys.executable` as the worker reported it.
    pub executable: Option<String>,
    /// The Python version the worker reported.
    pub version: Option<String>,
    /// Why the worker could not start, when it could not.
    pub error: Option<String>,
}

impl fmt::Display for InterpreterStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.interpreter)?;
        if let (Some(executable), Some(version)) = (&self.executable, &self.version) {
            write!(f, ": {executable} (Python {version})")?;
        }
        if let Some(error) = &self.error {
            write!(f, ": {error}")?;
        }
        Ok(())
    }
}

struct State {
    connection: Option<Arc<Connection>>,
    started_at: Instant,
    /// Plugins that loaded, in order, with what they registered (reloaded on restart).
    loaded: Vec<PluginSpec>,
    /// Plugins whose reload after a restart failed, with why.
    failed: BTreeMap<String, String>,
}

/// One home's Python plugins: the worker they run in and calls into them.
///
/// Calls may come from any thread at once; they block the calling thread
/// (never an executor's reactor) until the answer arrives.
pub struct PythonHost {
    home: PathBuf,
    status: InterpreterStatus,
    state: Mutex<State>,
}

impl fmt::Debug for PythonHost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PythonHost")
            .field("home", &self.home)
            .field("status", &self.status)
            .finish_non_exhaustive()
    }
}

impl PythonHost {
    /// Starts the worker for `home` with `interpreter`. `Err` carries the
    /// status with the reason the worker could not start.
    pub fn start(
        home: &Path,
        interpreter: PythonInterpreter,
    ) -> Result<Arc<PythonHost>, InterpreterStatus> {
        let mut status = InterpreterStatus {
            interpreter,
            executable: None,
            version: None,
            error: None,
        };
        match Connection::start(&status.interpreter.program, home, STARTUP_TIMEOUT) {
            Ok(connection) => {
                status.executable = Some(connection.executable.clone());
                status.version = Some(connection.version.clone());
                Ok(Arc::new(PythonHost {
                    home: home.to_owned(),
                    status,
                    state: Mutex::new(State {
                        connection: Some(Arc::new(connection)),
                        started_at: Instant::now(),
                        loaded: Vec::new(),
                        failed: BTreeMap::new(),
                    }),
                }))
            }
            Err(error) => {
                status.error = Some(error);
                Err(status)
            }
        }
    }

    /// The interpreter running the plugins, and why it was chosen.
    pub fn status(&self) -> &InterpreterStatus {
        &self.status
    }

    /// The pip-installed plugins (`hermes_agent.plugins` entry points): name and value.
    pub fn entry_points(&self) -> Result<Vec<(String, String)>, String> {
        let connection = self.connection().map_err(|error| error.to_string())?;
        let value = connection
            .request("entry_points", &NoBody {}, Some(STARTUP_TIMEOUT))
            .map_err(|error| error.to_string())?;
        #[derive(Deserialize)]
        struct EntryPoint {
            name: String,
            value: String,
        }
        let points: Vec<EntryPoint> = serde_json::from_value(value)
            .map_err(|error| format!("unexpected entry-point list: {error}"))?;
        Ok(points.into_iter().map(|ep| (ep.name, ep.value)).collect())
    }

    /// Imports one plugin and runs its `register(ctx)`; `Err` is why it failed.
    pub fn load(&self, spec: &PluginSpec) -> Result<LoadReport, String> {
        // A plugin whose import killed the worker must not fail the ones after it.
        let connection = self
            .connection_with(false)
            .map_err(|error| error.to_string())?;
        let report = load_on(&connection, spec)?;
        lock(&self.state).loaded.push(spec.clone());
        Ok(report)
    }

    /// Runs the callback `callback` of the plugin's hook for `event`.
    pub fn call(&self, callback: &str, event: &Event) -> CallbackResult {
        self.call_payload(callback, event.name().as_str(), event.payload())
    }

    /// Runs the callback `callback` with the event named `event` and `payload`.
    pub fn call_payload(&self, callback: &str, event: &str, payload: &Payload) -> CallbackResult {
        let body = CallBody {
            callback,
            event,
            payload,
        };
        match self.request("call", &body) {
            Ok(Value::Null) => Ok(None),
            Ok(reply) => Ok(Some(reply)),
            Err(WorkerError::Raised { kind, message }) => Err(CallbackError::new(kind, message)),
            Err(WorkerError::Worker(message)) => {
                Err(CallbackError::new("PluginWorkerError", message))
            }
        }
    }

    /// Computes a callable prompt section; `Err` is the exception it raised.
    /// Bounded by 30 s (the reference's default callback timeout): a hung
    /// section function is skipped, never a hung session start.
    pub fn section(&self, callback: &str, info: &SessionInfo) -> Result<Value, String> {
        let connection = self.connection().map_err(|error| error.to_string())?;
        connection
            .request(
                "section",
                &SectionBody { callback, info },
                Some(SECTION_TIMEOUT),
            )
            .map_err(|error| error.to_string())
    }

    /// Why the plugin `key` is not running in the current worker, if it is not
    /// (the worker cannot be started, or its reload after a restart failed).
    pub fn failure(&self, key: &str) -> Option<String> {
        if let Err(error) = self.connection() {
            return Some(error.to_string());
        }
        lock(&self.state).failed.get(key).cloned()
    }

    fn request<T: serde::Serialize>(&self, op: &str, body: &T) -> Result<Value, WorkerError> {
        self.connection()?.request(op, body, None)
    }

    /// The running worker, restarting it (and reloading its plugins) when it died.
    fn connection(&self) -> Result<Arc<Connection>, WorkerError> {
        self.connection_with(true)
    }

    /// [`Self::connection`]; `throttled: false` restarts even right after a start.
    fn connection_with(&self, throttled: bool) -> Result<Arc<Connection>, WorkerError> {
        let mut state = lock(&self.state);
        let previous = match &state.connection {
            Some(connection) if connection.is_alive() => return Ok(Arc::clone(connection)),
            previous => previous.as_ref().and_then(|c| c.exit_status()),
        };
        if throttled && state.started_at.elapsed() < RESTART_INTERVAL {
            return Err(WorkerError::Worker(format!(
                "the Python plugin worker exited ({}) within {}s of its start; not restarted yet",
                previous.as_deref().unwrap_or("no status"),
                RESTART_INTERVAL.as_secs()
            )));
        }
        tracing::warn!(
            "the Python plugin worker for {} exited ({}); restarting it: the module state of its plugins is lost",
            self.home.display(),
            previous.as_deref().unwrap_or("no status")
        );
        state.connection = None;
        state.started_at = Instant::now();
        let connection = Arc::new(
            Connection::start(
                &self.status.interpreter.program,
                &self.home,
                STARTUP_TIMEOUT,
            )
            .map_err(WorkerError::Worker)?,
        );
        state.failed.clear();
        for spec in state.loaded.clone() {
            if let Err(error) = load_on(&connection, &spec) {
                tracing::warn!(
                    "Python plugin '{}' failed to load again after the worker restarted: {error}",
                    spec.name
                );
                state.failed.insert(spec.key.clone(), error);
            }
        }
        state.connection = Some(Arc::clone(&connection));
        Ok(connection)
    }
}

fn load_on(connection: &Connection, spec: &PluginSpec) -> Result<LoadReport, String> {
    let value = connection
        .request("load", &LoadBody { plugin: spec }, Some(LOAD_TIMEOUT))
        .map_err(|error| match error {
            WorkerError::Worker(message) if message.starts_with("no answer") => format!(
                "import and register() did not finish within {}s",
                LOAD_TIMEOUT.as_secs()
            ),
            other => other.to_string(),
        })?;
    serde_json::from_value(value)
        .map_err(|error| format!("unexpected registration report from the worker: {error}"))
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
