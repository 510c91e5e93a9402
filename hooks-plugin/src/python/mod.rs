//! Python plugins: one long-lived worker process per Hermes home runs every
//! Python plugin's `register(ctx)` and callbacks.
//!
//! The worker (`worker.py`, shipped inside the binary and run with `-c`) imports
//! directory plugins as `hermes_plugins.<slug>` and pip-installed ones through
//! their entry points, all in one interpreter, so plugins import each other and
//! share module state as they do in Hermes. Each `ctx.register_hook` becomes a
//! hooks-core callback that sends the event to the worker and waits for the
//! answer; the core's timeouts, fail modes and queues apply unchanged. Inside
//! the worker every request runs on its own thread (coroutines on one
//! long-lived event loop), so a hung callback holds up nothing else.
//!
//! The worker is spawned in its own process group and killed with it when the
//! [`PythonHost`] is dropped; a worker that dies is restarted at the next call,
//! with a warning, and its plugins are loaded again (their module state is lost).

mod connection;
mod host;
mod process;
mod protocol;

pub use connection::WorkerError;
pub use host::{HookSpec, InterpreterStatus, LoadReport, PythonHost, SectionSpec};
pub use process::WORKER_SCRIPT;
pub use protocol::PluginSpec;
