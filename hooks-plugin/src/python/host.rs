//! The Python plugin host of one Hermes home: one long-lived worker, restarted if it dies.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use hermes_hooks_callbacks::{CallbackError, CallbackResult};
use hermes_hooks_core::catalog::RunPolicy;
use hermes_hooks_core::config::DEFAULT_CALLBACK_TIMEOUT_SECS;
use hermes_hooks_core::interpreter::{PythonInterpreter, ShimChoice};
use hermes_hooks_core::prompt::SessionInfo;
use hermes_hooks_core::{Event, Payload};
use hermes_hooks_process::RestartBudget;
use serde::Deserialize;
use serde_json::Value;

use super::connection::{Connection, WorkerError};
use super::protocol::{CallBody, LoadBody, NoBody, PluginSpec, SectionBody};
use super::rewire::difference;

/// How long the worker may take to start (interpreter start-up, no plugin code).
const STARTUP_TIMEOUT: Duration = Duration::from_secs(30);
/// How long one plugin's import and `register(ctx)` may take.
const LOAD_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a section function may take when a session starts.
const SECTION_TIMEOUT: Duration = Duration::from_secs(30);
/// How much longer than the callback timeout the worker waits on events the
/// core bounds itself (its timeout must win: it also suppresses the callback).
const CORE_TIMEOUT_GRACE: Duration = Duration::from_secs(1);
/// A worker that dies sooner than this after its start is not restarted at once.
const RESTART_INTERVAL: Duration = Duration::from_secs(1);

/// What a plugin registered in the worker.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
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
#[non_exhaustive]
pub struct HookSpec {
    /// The event name.
    pub event: String,
    /// The worker's id of the callback: `<plugin>:<event>:<qualname>`, with
    /// `#n` only among callbacks of the same name.
    pub callback: String,
    /// The callback's `__qualname__`.
    pub name: String,
    /// Where the callback's code is (`file:line`), when Python knows.
    #[serde(default)]
    pub location: String,
}

/// One `ctx.register_system_prompt_section(...)`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
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
#[non_exhaustive]
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
    restarts: RestartBudget,
    /// Plugins that loaded, in order, with what they registered (reloaded on
    /// restart and compared with it).
    loaded: Vec<(PluginSpec, LoadReport)>,
    /// Which plugin (key) each callback id belongs to.
    owners: HashMap<String, String>,
    /// Plugins that are not running in the current worker (their reload after
    /// a restart failed, or registered something else), with why.
    failed: BTreeMap<String, String>,
}

/// One home's Python plugins: the worker they run in and calls into them.
///
/// Calls may come from any thread at once; they block the calling thread
/// (never an executor's reactor) until the answer arrives.
pub struct PythonHost {
    home: PathBuf,
    status: InterpreterStatus,
    /// What (re)starts run: the configured program, or the real interpreter
    /// behind it when it is a version-manager shim ([`ShimChoice`]).
    program: PathBuf,
    state: Mutex<State>,
    /// The deadline of a hook call, in nanoseconds (the callback timeout).
    call_timeout_nanos: AtomicU64,
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
        let configured = status.interpreter.program.clone();
        let learn = ShimChoice::of(&configured);
        // The real interpreter a shim chose before; the shim when that fails.
        let started = match learn.as_ref().and_then(|learn| learn.cached(home)) {
            Some(real) => Connection::start(&real, home, STARTUP_TIMEOUT)
                .map(|connection| (connection, false))
                .or_else(|_| {
                    Connection::start(&configured, home, STARTUP_TIMEOUT)
                        .map(|connection| (connection, true))
                }),
            None => Connection::start(&configured, home, STARTUP_TIMEOUT)
                .map(|connection| (connection, true)),
        };
        match started {
            Ok((connection, through_shim)) => {
                let real = Path::new(&connection.executable);
                let program = match &learn {
                    Some(learn) if real.is_absolute() && real.is_file() => {
                        if through_shim {
                            learn.remember(home, real);
                        }
                        real.to_owned()
                    }
                    _ => configured,
                };
                status.executable = Some(connection.executable.clone());
                status.version = Some(connection.version.clone());
                let mut restarts = RestartBudget::new(RESTART_INTERVAL);
                restarts.started();
                Ok(Arc::new(PythonHost {
                    home: home.to_owned(),
                    status,
                    program,
                    state: Mutex::new(State {
                        connection: Some(Arc::new(connection)),
                        restarts,
                        loaded: Vec::new(),
                        owners: HashMap::new(),
                        failed: BTreeMap::new(),
                    }),
                    call_timeout_nanos: AtomicU64::new(nanos(Duration::from_secs_f64(
                        DEFAULT_CALLBACK_TIMEOUT_SECS,
                    ))),
                }))
            }
            Err(error) => {
                status.error = Some(error);
                Err(status)
            }
        }
    }

    /// Sets the deadline of every hook call (the host's callback timeout,
    /// `plugins.hook_callback_timeout`; `None`, the timeout turned off, keeps
    /// the default 30 s): inline events are bounded by it too, so a hung
    /// Python callback never holds the host forever.
    pub fn set_call_timeout(&self, timeout: Option<Duration>) {
        let timeout =
            timeout.unwrap_or_else(|| Duration::from_secs_f64(DEFAULT_CALLBACK_TIMEOUT_SECS));
        self.call_timeout_nanos
            .store(nanos(timeout), Ordering::Relaxed);
    }

    /// The deadline of a hook call.
    pub fn call_timeout(&self) -> Duration {
        Duration::from_nanos(self.call_timeout_nanos.load(Ordering::Relaxed))
    }

    /// How long a callback of an event the core bounds itself is waited
    /// for: a little longer than the core's own timeout, which must win (it
    /// also suppresses the callback).
    pub(super) fn bounded_deadline(&self) -> Duration {
        self.call_timeout() + CORE_TIMEOUT_GRACE
    }

    /// The interpreter running the plugins, and why it was chosen.
    pub fn status(&self) -> &InterpreterStatus {
        &self.status
    }

    /// The pip-installed plugins (`hermes_agent.plugins` entry points): name and value.
    pub fn entry_points(&self) -> Result<Vec<(String, String)>, String> {
        let connection = self.connection().map_err(|error| error.to_string())?;
        let value = connection
            .request("entry_points", &NoBody {}, STARTUP_TIMEOUT)
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
        let mut state = lock(&self.state);
        for hook in &report.hooks {
            state.owners.insert(hook.callback.clone(), spec.key.clone());
        }
        for callback in report.sections.iter().filter_map(|s| s.callback.as_ref()) {
            state.owners.insert(callback.clone(), spec.key.clone());
        }
        state.loaded.push((spec.clone(), report.clone()));
        Ok(report)
    }

    /// Runs the callback `callback` of the plugin's hook for `event`.
    ///
    /// Bounded by [`Self::call_timeout`]. On events the core bounds itself
    /// (run policy `bounded`) the worker waits a little longer, so the core's
    /// timeout (and its suppression of a hung callback) decides.
    ///
    /// Queued events (run policy `queued`: nobody reads their replies) are
    /// posted without waiting (pipelined observers, `observe.rs`); their
    /// failures are warned when the worker reports them.
    pub fn call(&self, callback: &str, event: &Event) -> CallbackResult {
        let run = event.hook().map(|hook| hook.meta().run);
        if run == Some(RunPolicy::Queued) {
            return self.observe(callback, event);
        }
        let deadline = if run == Some(RunPolicy::Bounded) {
            self.bounded_deadline()
        } else {
            self.call_timeout()
        };
        self.call_within(callback, event.name().as_str(), event.payload(), deadline)
    }

    /// Runs the callback `callback` with the event named `event` and `payload`,
    /// bounded by [`Self::call_timeout`]. A callback whose plugin is not
    /// running in the current worker fails (on `pre_tool_call`: a block).
    pub fn call_payload(&self, callback: &str, event: &str, payload: &Payload) -> CallbackResult {
        self.call_within(callback, event, payload, self.call_timeout())
    }

    pub(super) fn call_within(
        &self,
        callback: &str,
        event: &str,
        payload: &Payload,
        deadline: Duration,
    ) -> CallbackResult {
        let body = CallBody {
            callback,
            event,
            payload,
        };
        let connection = self.connection().map_err(worker_error)?;
        if let Some(reason) = self.callback_failure(callback) {
            return Err(CallbackError::new("PluginWorkerError", reason));
        }
        match connection.request("call", &body, deadline) {
            Ok(Value::Null) => Ok(None),
            Ok(reply) => Ok(Some(reply)),
            Err(WorkerError::Raised { kind, message }) => Err(CallbackError::new(kind, message)),
            Err(error) => Err(worker_error(error)),
        }
    }

    fn observe(&self, callback: &str, event: &Event) -> CallbackResult {
        // A streaming hot path: no look at the pipe per event (the pipeline's
        // writer finds a dead worker, and the next round trip restarts it).
        // One lock per event: the live connection, and whether the plugin
        // runs in it (nothing has failed, the usual case, costs no lookup).
        let current = {
            let state = lock(&self.state);
            match &state.connection {
                Some(connection) if connection.seems_alive() && state.failed.is_empty() => {
                    Some(Arc::clone(connection))
                }
                _ => None,
            }
        };
        let connection = match current {
            Some(connection) => connection,
            None => {
                let connection = self.connection().map_err(worker_error)?;
                if let Some(reason) = self.callback_failure(callback) {
                    return Err(CallbackError::new("PluginWorkerError", reason));
                }
                connection
            }
        };
        match connection.observe(callback, event) {
            Ok(_posted) => Ok(None),
            Err(_) => self.call_within(
                callback,
                event.name().as_str(),
                event.payload(),
                self.call_timeout(),
            ),
        }
    }

    /// Whether every observer event posted to the worker has run: `flush`
    /// and `shutdown` wait for it (registered with `Callbacks::register_settled`).
    pub fn observers_settled(&self) -> bool {
        let connection = lock(&self.state).connection.clone();
        connection.is_none_or(|connection| connection.observers_settled())
    }

    /// How many observer events the current worker dropped because their
    /// callback had too many waiting (each callback's first drop is warned).
    pub fn dropped_observer_events(&self) -> u64 {
        let connection = lock(&self.state).connection.clone();
        connection.map_or(0, |connection| connection.observers_dropped())
    }

    /// Why the plugin owning `callback` is not running, if it is not.
    pub(super) fn callback_failure(&self, callback: &str) -> Option<String> {
        let state = lock(&self.state);
        let key = state.owners.get(callback)?;
        let reason = state.failed.get(key)?;
        let name = state
            .loaded
            .iter()
            .find(|(spec, _)| spec.key == *key)
            .map_or(key.as_str(), |(spec, _)| spec.name.as_str());
        Some(format!("Python plugin '{name}' is not running: {reason}"))
    }

    /// Computes a callable prompt section; `Err` is the exception it raised.
    /// Bounded by 30 s (the reference's default callback timeout): a hung
    /// section function is skipped, never a hung session start.
    pub fn section(&self, callback: &str, info: &SessionInfo) -> Result<Value, String> {
        let connection = self.connection().map_err(|error| error.to_string())?;
        connection
            .request("section", &SectionBody { callback, info }, SECTION_TIMEOUT)
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

    /// The running worker, restarting it (and reloading its plugins) when it died.
    pub(super) fn connection(&self) -> Result<Arc<Connection>, WorkerError> {
        self.connection_with(true)
    }

    /// [`Self::connection`]; `throttled: false` restarts even right after a start.
    fn connection_with(&self, throttled: bool) -> Result<Arc<Connection>, WorkerError> {
        let mut state = lock(&self.state);
        let previous = match &state.connection {
            Some(connection) if connection.is_alive() => return Ok(Arc::clone(connection)),
            previous => previous.as_ref().and_then(|c| c.exit_status()),
        };
        if throttled && state.restarts.check().is_err() {
            return Err(WorkerError::Worker(format!(
                "the Python plugin worker exited ({}) within {}s of its start; not restarted yet",
                previous.as_deref().unwrap_or("no status"),
                state.restarts.min_interval().as_secs()
            )));
        }
        tracing::warn!(
            "the Python plugin worker for {} exited or broke ({}); restarting it: the module state of its plugins is lost",
            self.home.display(),
            previous.as_deref().unwrap_or("no status")
        );
        state.connection = None;
        state.restarts.started();
        let connection = Arc::new(
            Connection::start(&self.program, &self.home, STARTUP_TIMEOUT)
                .or_else(|error| {
                    // The real interpreter behind a shim may be gone: the shim decides again.
                    let configured = &self.status.interpreter.program;
                    if *configured == self.program {
                        return Err(error);
                    }
                    Connection::start(configured, &self.home, STARTUP_TIMEOUT)
                })
                .map_err(WorkerError::Worker)?,
        );
        state.failed.clear();
        for (spec, before) in state.loaded.clone() {
            let why = match load_on(&connection, &spec) {
                Err(error) => format!("its reload after the worker restarted failed: {error}"),
                Ok(after) => match difference(&before, &after) {
                    None => continue,
                    Some(why) => why,
                },
            };
            tracing::warn!(
                "Python plugin '{}' is not running after the worker restarted: {why}; its pre_tool_call callbacks block every tool call",
                spec.name
            );
            state.failed.insert(spec.key.clone(), why);
        }
        state.connection = Some(Arc::clone(&connection));
        Ok(connection)
    }
}

fn load_on(connection: &Connection, spec: &PluginSpec) -> Result<LoadReport, String> {
    let value = connection
        .request("load", &LoadBody { plugin: spec }, LOAD_TIMEOUT)
        .map_err(|error| match error {
            WorkerError::TimedOut(_) => format!(
                "import and register() did not finish within {}s",
                LOAD_TIMEOUT.as_secs()
            ),
            other => other.to_string(),
        })?;
    serde_json::from_value(value)
        .map_err(|error| format!("unexpected registration report from the worker: {error}"))
}

pub(super) fn worker_error(error: WorkerError) -> CallbackError {
    match error {
        WorkerError::Raised { kind, message } => CallbackError::new(kind, message),
        other => CallbackError::new("PluginWorkerError", other.to_string()),
    }
}

fn nanos(duration: Duration) -> u64 {
    u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX)
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
