//! # hooks-gateway
//!
//! Gateway hooks for Hermes-compatible agents: folders `$HERMES_HOME/hooks/<name>/`
//! with a `HOOK.yaml` (name, description, events, optional `enabled: false`) and a
//! handler, run on gateway events (`gateway:startup`, `session:*`, `agent:*`,
//! `reaction:*`, `command:<name>`). An existing `~/.hermes/hooks` works as is.
//!
//! - **`handler.py`** defining `handle(event_type, context)` (sync or `async`) runs
//!   in a persistent `python3` worker per hook, started on the hook's first event
//!   and reused, so module state lives across events as it does in the Python
//!   gateway. The worker runs a small embedded shim ([`PYTHON_SHIM`]); the
//!   interpreter is `python3` on `PATH`, or `$HERMES_HOOKS_PYTHON`, or
//!   [`GatewayOptions::with_python`].
//! - **An executable `handler`** (any language) runs once per event, reading
//!   `{"event": ..., "context": {...}}` on stdin and writing its reply as JSON on
//!   stdout (nothing means no reply).
//!
//! [`GatewayHooks`] implements [`hooks_core::Dispatcher`] (name `gateway`):
//! exact subscriptions run first, then `<namespace>:*` wildcards, one after the
//! other; non-null results become [`hooks_core::Reply`]s in that order (source
//! `gateway:<name>`), which hooks-core merges (`command:*` replies can deny,
//! handle or rewrite a slash command). Errors never reach the agent: an
//! exception, crash, bad output or timeout (default 30 s, then the handler's
//! process group is killed) is logged and the handler contributes nothing.
//!
//! **Gateway handlers are trusted code**: they run with the user's rights, with
//! the gateway's environment (plus `HERMES_HOME`), and nothing sandboxes them.
//! Only put hooks you wrote or reviewed in the hooks folder.
//!
//! Differences from the Python gateway: each handler sees its own copy of the
//! context (a mutation is not visible to later handlers or to the host), and a
//! `handler.py` is imported when its first event arrives rather than at start-up
//! (discovery only skips a file in which `handle` cannot be defined; an import
//! error is logged on the first event and the hook stays off).
//!
//! ```no_run
//! use hooks_core::{Dispatcher, Event};
//! use hooks_gateway::{GatewayHooks, GatewayOptions};
//! use serde_json::json;
//!
//! # async fn run() {
//! let home = hooks_core::home::resolve_home(None);
//! let (gateway, discovery) = GatewayHooks::discover(&home, GatewayOptions::default());
//! for warning in &discovery.warnings {
//!     eprintln!("{warning}");
//! }
//! let event = Event::from_json("command:reset", json!({"platform": "telegram", "command": "reset"}));
//! if gateway.interest(event.name()) {
//!     for reply in gateway.dispatch(&event).await {
//!         println!("{}: {}", reply.source, reply.value);
//!     }
//! }
//! # }
//! ```

mod discovery;
mod error;
mod executable;
mod gateway;
mod lanes;
mod manifest;
mod options;
mod process;
mod python;
mod trial;

pub use discovery::{
    Discovery, EXECUTABLE_HANDLER_FILE, GatewayHookInfo, GatewayWarning, HOOKS_DIR, HandlerKind,
    HookStatus, MANIFEST_FILE, PYTHON_HANDLER_FILE, discover,
};
pub use error::HandlerError;
pub use gateway::{GatewayHooks, LaneStats};
pub use options::{
    CONFIG_SECTION, DEFAULT_COMMAND_TIMEOUT, DEFAULT_HANDLER_TIMEOUT, DEFAULT_QUEUE_SIZE,
    GatewayOptions, GatewayPython, PythonSource,
};
pub use python::PYTHON_SHIM;
pub use trial::check_handlers;
