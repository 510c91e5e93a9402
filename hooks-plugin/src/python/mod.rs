//! Python plugins: one long-lived worker process per Hermes home runs every
//! Python plugin's `register(ctx)` and callbacks.
//!
//! The worker (`worker.py`, shipped inside the binary and run with `-c`) imports
//! directory plugins as `hermes_plugins.<slug>` and pip-installed ones through
//! their entry points, all in one interpreter, so plugins import each other and
//! share module state as they do in Hermes. Each `ctx.register_hook` becomes a
//! hooks-core callback, a member of the worker's joint (`joint.rs`): the
//! consecutive Python callbacks of a bounded event go to the worker as one
//! `calls` request answered once per callback, other events send one `call`
//! per callback; the core's timeouts, fail modes and queues apply unchanged. Inside
//! the worker the reader runs each request itself, and a standby thread takes
//! over reading when one holds it for ~10 ms (coroutines on one long-lived
//! event loop), so a hung callback holds up nothing else.
//!
//! The worker runs on the shared line worker
//! ([`hermes_hooks_process::LineWorker`]): every call has a deadline
//! (the callback timeout, inline events included), and the worker and all it
//! started are killed when the [`PythonHost`] is dropped. A worker that dies,
//! or that a plugin broke (its protocol pipes closed, its event loop wedged:
//! found by a health check after a timed-out call), is restarted at the next
//! call, with a warning, and its plugins are loaded again (their module state
//! is lost). Callback ids name the callback (plugin, event, qualified name),
//! and what a plugin registers again after a restart is compared with what it
//! registered before (`rewire.rs`): a plugin that registers anything else is
//! failed, so its `pre_tool_call` callbacks block rather than run another
//! function.
//!
//! Queued observer events (`on_stream_delta`, ...) are pipelined
//! (`observe.rs`): posted in batches without a round trip, run in order per
//! callback in the worker, bounded in flight (drops counted and warned), and
//! drained by the core's `flush`/`shutdown` through `Callbacks::register_settled`.

mod batch;
mod connection;
mod host;
mod joint;
mod observe;
mod protocol;
mod rewire;

pub use connection::WorkerError;
pub use host::{HookSpec, InterpreterStatus, LoadReport, PythonHost, SectionSpec};
pub use protocol::PluginSpec;

/// The worker script, passed to the interpreter with `-c`: hooks-core's
/// shared line-protocol prelude (the fd setup), then `worker.py`, then
/// `hermes_api.py` (the `hermes_cli.plugins` view plugins import), then the
/// call of the worker's `main()`.
pub const WORKER_SCRIPT: &str = hermes_hooks_process::line_worker_script!(concat!(
    include_str!("worker.py"),
    include_str!("hermes_api.py"),
    "\nmain()\n"
));
