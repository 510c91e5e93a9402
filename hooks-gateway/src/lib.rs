//! # hooks-gateway
//!
//! Gateway hooks for Hermes-compatible agents: folders `$HERMES_HOME/hooks/<name>/`
//! with a `HOOK.yaml` (name, description, events, optional `enabled: false`) and a
//! handler, run on gateway events (`gateway:startup`, `session:*`, `agent:*`,
//! `reaction:*`, `command:<name>`). An existing `~/.hermes/hooks` works as is.
//!
//! - **`handler.py`** defining `handle(event_type, context)` (sync or `async`) runs
//!   in a persistent Python worker per hook, started on the hook's first event
//!   and reused, so module state lives across events as it does in the Python
//!   gateway; its asyncio loop keeps running between events. The worker runs a
//!   small embedded shim ([`PYTHON_SHIM`]) with the interpreter Hermes uses
//!   ([`GatewayOptions::python_interpreter`]).
//! - **An executable `handler`** (any language) runs once per event, reading
//!   `{"event_type": ..., "context": {...}}` on stdin and writing its reply as
//!   JSON on stdout (nothing means no reply).
//!
//! [`GatewayHooks`] implements [`hermes_hooks_core::Dispatcher`] (name `gateway`).
//! Gateway hooks never hold up the host: emitting an event queues it on each
//! subscribed hook's bounded queue and returns; each hook handles its events in
//! order in the background, on the background runtime it was given (a host's). Only `command:*`
//! events, whose answers the host needs (deny, handle or rewrite a slash
//! command), are awaited: all their handlers together, within one bound
//! ([`GatewayOptions::command_timeout`]); their non-null results become
//! [`hermes_hooks_core::Reply`]s (source `gateway:<name>`), exact subscriptions first,
//! then `<namespace>:*`. [`hermes_hooks_core::Dispatcher::flush`] waits for the queues
//! to drain. Errors never reach the agent: an exception, crash, bad output or
//! timeout (default 30 s) is logged and the handler contributes nothing.
//!
//! Every handler process is spawned through hooks-core's process supervisor:
//! on a timeout, restart or shutdown, everything it started dies with it.
//! Discovery imports each `handler.py` once ([`check_handlers`]), so a broken
//! one is reported ([`HookStatus::Broken`]) before any event.
//!
//! **Gateway handlers are trusted code**: they run with the user's rights, with
//! the gateway's environment (plus `HERMES_HOME`), and nothing sandboxes them.
//! Only put hooks you wrote or reviewed in the hooks folder.
//!
//! Differences from the Python gateway: handlers do not delay the host (the
//! reference awaits each one inline), and each handler sees its own copy of the
//! context (a mutation is not visible to later handlers or to the host).
//!
//! ```no_run
//! use hermes_hooks_core::{Dispatcher, Event};
//! use hermes_hooks_gateway::{GatewayHooks, GatewayOptions};
//! use serde_json::json;
//!
//! # async fn run() {
//! let home = hermes_hooks_core::home::resolve_home(None);
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
//! gateway.flush(std::time::Duration::from_secs(5)).await;
//! # }
//! ```

// docs.rs (`--cfg docsrs`, nightly) marks each item with the features it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]

mod discovery;
mod engine;
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
