//! [`GatewayHooks`]: the discovered hooks as one [`Dispatcher`] (named `gateway`).
//!
//! Routing follows the reference: for `ns:action`, the hooks subscribed to
//! exactly `ns:action` run first, then those subscribed to `ns:*`, each group in
//! discovery order, one after another. There is no global `*` and no bare-prefix
//! match (`agent` does not receive `agent:start`).

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use hooks_core::{Dispatcher, Event, EventName, Payload, Reply};
use serde::Serialize;
use serde_json::Value;

use crate::discovery::{Discovery, GatewayHookInfo, HandlerKind, discover};
use crate::error::HandlerError;
use crate::executable::ExecutableHook;
use crate::python::PythonHook;

/// How long one handler may take before it is killed, unless configured otherwise.
pub const DEFAULT_HANDLER_TIMEOUT: Duration = Duration::from_secs(30);
/// The environment variable naming the Python interpreter for `handler.py` hooks.
pub const PYTHON_ENV: &str = "HERMES_HOOKS_PYTHON";
/// The Python interpreter used when neither the options nor [`PYTHON_ENV`] name one.
pub const DEFAULT_PYTHON: &str = "python3";

/// Settings for running gateway hooks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GatewayOptions {
    /// The Python interpreter; `None` means `$HERMES_HOOKS_PYTHON`, else `python3` on `PATH`.
    pub python: Option<OsString>,
    /// The most time one handler call may take (worker start-up included).
    pub handler_timeout: Duration,
}

impl Default for GatewayOptions {
    fn default() -> Self {
        GatewayOptions {
            python: None,
            handler_timeout: DEFAULT_HANDLER_TIMEOUT,
        }
    }
}

impl GatewayOptions {
    /// Uses `program` as the Python interpreter.
    #[must_use = "builder methods return the changed builder; dropping it drops the change"]
    pub fn with_python(mut self, program: impl Into<OsString>) -> Self {
        self.python = Some(program.into());
        self
    }

    /// Sets the per-handler timeout.
    #[must_use = "builder methods return the changed builder; dropping it drops the change"]
    pub fn with_handler_timeout(mut self, timeout: Duration) -> Self {
        self.handler_timeout = timeout;
        self
    }

    /// The interpreter that will run Python handlers: the option, else
    /// `$HERMES_HOOKS_PYTHON` (when non-empty), else `python3`.
    pub fn resolved_python(&self) -> OsString {
        self.python
            .clone()
            .or_else(|| std::env::var_os(PYTHON_ENV).filter(|value| !value.is_empty()))
            .unwrap_or_else(|| DEFAULT_PYTHON.into())
    }
}

enum Runner {
    Python(Box<PythonHook>),
    Executable(ExecutableHook),
}

struct RegisteredHook {
    info: GatewayHookInfo,
    /// `gateway:<name>`, the source of this hook's replies.
    source: Arc<str>,
    runner: Runner,
    /// Whether "could not load the handler" was already logged at warn level.
    reported_unloadable: AtomicBool,
}

/// Gateway hooks, ready to receive gateway events.
///
/// Handlers are trusted code run with the user's rights. Python workers start
/// on a hook's first event and are killed (with everything they started) when
/// this value is dropped.
pub struct GatewayHooks {
    hooks: Vec<RegisteredHook>,
    /// Hook indices per exact event name, in discovery order.
    exact: HashMap<Box<str>, Vec<usize>>,
    /// Hook indices per namespace of a `<namespace>:*` subscription.
    wildcard: HashMap<Box<str>, Vec<usize>>,
    timeout: Duration,
}

#[derive(Serialize)]
struct Request<'a> {
    event: &'a str,
    context: &'a Payload,
}

impl GatewayHooks {
    /// Gateway hooks for everything `discovery` found.
    pub fn new(discovery: &Discovery, options: GatewayOptions) -> Self {
        let python = options.resolved_python();
        let mut gateway = GatewayHooks {
            hooks: Vec::with_capacity(discovery.hooks.len()),
            exact: HashMap::new(),
            wildcard: HashMap::new(),
            timeout: options.handler_timeout,
        };
        for info in &discovery.hooks {
            let index = gateway.hooks.len();
            for event in &info.events {
                match event
                    .strip_suffix(":*")
                    .filter(|ns| !ns.is_empty() && !ns.contains(':'))
                {
                    Some(namespace) => gateway.wildcard.entry(namespace.into()),
                    None => gateway.exact.entry(event.as_str().into()),
                }
                .or_default()
                .push(index);
            }
            let runner = match info.handler {
                HandlerKind::Python => Runner::Python(Box::new(PythonHook::new(
                    info,
                    python.clone(),
                    discovery.home.clone(),
                ))),
                HandlerKind::Executable => {
                    Runner::Executable(ExecutableHook::new(info, discovery.home.clone()))
                }
            };
            gateway.hooks.push(RegisteredHook {
                info: info.clone(),
                source: format!("gateway:{}", info.name).into(),
                runner,
                reported_unloadable: AtomicBool::new(false),
            });
        }
        gateway
    }

    /// Discovers the hooks under `home` (see [`discover`]) and makes them ready.
    pub fn discover(home: &Path, options: GatewayOptions) -> (Self, Discovery) {
        let discovery = discover(home);
        (GatewayHooks::new(&discovery, options), discovery)
    }

    /// No hooks: interested in nothing.
    pub fn empty() -> Self {
        GatewayHooks::new(&Discovery::default(), GatewayOptions::default())
    }

    /// The loaded hooks, in discovery order.
    pub fn hooks(&self) -> impl Iterator<Item = &GatewayHookInfo> {
        self.hooks.iter().map(|hook| &hook.info)
    }

    /// The per-handler timeout in force.
    pub fn handler_timeout(&self) -> Duration {
        self.timeout
    }

    /// The hooks that receive `event`, in the order they run (exact subscriptions
    /// first, then `<namespace>:*`). A hook subscribed both ways runs twice.
    pub fn handlers_for(&self, event: &str) -> Vec<&GatewayHookInfo> {
        self.route(event)
            .map(|index| &self.hooks[index].info)
            .collect()
    }

    fn route(&self, event: &str) -> impl Iterator<Item = usize> + '_ {
        let exact = self.exact.get(event).map(Vec::as_slice).unwrap_or_default();
        let wildcard = event
            .split_once(':')
            .filter(|(_, action)| *action != "*")
            .and_then(|(namespace, _)| self.wildcard.get(namespace))
            .map(Vec::as_slice)
            .unwrap_or_default();
        exact.iter().chain(wildcard).copied()
    }

    /// Runs the hook named `hook` once for `event` with `context`, whatever its
    /// subscriptions (for `hooks doctor` and tests). `None` when no hook has that name.
    pub async fn call_hook(
        &self,
        hook: &str,
        event: &str,
        context: &Payload,
    ) -> Option<Result<Value, HandlerError>> {
        let registered = self
            .hooks
            .iter()
            .find(|candidate| candidate.info.name == hook)?;
        Some(match request_line(event, context) {
            Ok(request) => self.call(registered, &request).await,
            Err(error) => Err(error),
        })
    }

    async fn call(&self, hook: &RegisteredHook, request: &[u8]) -> Result<Value, HandlerError> {
        match &hook.runner {
            Runner::Python(python) => python.call(request, self.timeout).await,
            Runner::Executable(executable) => executable.call(request, self.timeout).await,
        }
    }

    fn log_failure(&self, hook: &RegisteredHook, event: &str, error: &HandlerError) {
        let name = &hook.info.name;
        if matches!(error, HandlerError::Unloadable { .. })
            && hook.reported_unloadable.swap(true, Ordering::Relaxed)
        {
            tracing::debug!(hook = %name, "[hooks] Skipping {name}: {error}");
            return;
        }
        tracing::warn!(hook = %name, event, "[hooks] Error in handler for '{event}' ({name}): {error}");
    }
}

fn request_line(event: &str, context: &Payload) -> Result<Vec<u8>, HandlerError> {
    let mut line = serde_json::to_vec(&Request { event, context })?;
    line.push(b'\n');
    Ok(line)
}

#[async_trait]
impl Dispatcher for GatewayHooks {
    fn name(&self) -> &str {
        "gateway"
    }

    fn interest(&self, event: &EventName) -> bool {
        match event {
            EventName::Gateway(name) => self.route(name).next().is_some(),
            EventName::Hook(_) | EventName::Other(_) => false,
        }
    }

    async fn dispatch(&self, event: &Event) -> Vec<Reply> {
        let EventName::Gateway(name) = event.name() else {
            return Vec::new();
        };
        let mut handlers = self.route(name).peekable();
        if handlers.peek().is_none() {
            return Vec::new();
        }
        let request = match request_line(name, event.payload()) {
            Ok(request) => request,
            Err(error) => {
                tracing::warn!(event = %name, "[hooks] Error in handlers for '{name}': {error}");
                return Vec::new();
            }
        };
        let mut replies = Vec::new();
        for index in handlers {
            let hook = &self.hooks[index];
            match self.call(hook, &request).await {
                Ok(Value::Null) => {}
                Ok(value) => replies.push(Reply::new(hook.source.clone(), value)),
                Err(error) => self.log_failure(hook, name, &error),
            }
        }
        replies
    }
}

impl std::fmt::Debug for GatewayHooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GatewayHooks")
            .field(
                "hooks",
                &self
                    .hooks()
                    .map(|hook| hook.name.as_str())
                    .collect::<Vec<_>>(),
            )
            .field("handler_timeout", &self.timeout)
            .finish()
    }
}
