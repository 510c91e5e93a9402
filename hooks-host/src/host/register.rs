//! The host's own Rust closures: [`Host::register`] and
//! [`Host::register_async`], labelled `host:<name>` and checked against the
//! catalog.

use hermes_hooks_callbacks::{CallbackId, CallbackResult};
use hermes_hooks_core::Event;
use hermes_hooks_core::catalog::UnknownEvent;

use super::Host;

/// What an async closure of the host returns ([`Host::register_async`]):
/// `Box::pin(async move { ... })`.
pub type CallbackFuture =
    std::pin::Pin<Box<dyn std::future::Future<Output = CallbackResult> + Send + 'static>>;

impl Host {
    /// Registers the host's own Rust closure `name` for `event`. It runs in
    /// the bus's first place, after the plugins' hooks, bounded like theirs
    /// ([`crate::HostOptions::callback_timeout`], [`crate::HostOptions::suppression_window`]);
    /// its replies, run records and blocks are labelled `host:<name>`
    /// (mechanism `host`). An event name that is not in the catalog (nor a
    /// gateway event, `agent:start`, `command:*`, ...) is refused, naming the
    /// nearest one: a typo never leaves a guard unregistered in silence.
    ///
    /// ```no_run
    /// # fn run(host: &hermes_hooks::Host) -> Result<(), hermes_hooks::UnknownEvent> {
    /// use serde_json::json;
    ///
    /// host.register("pre_tool_call", "no-etc", |event| {
    ///     let args = event.get("args").map(|args| args.to_string()).unwrap_or_default();
    ///     let touches_etc = args.contains("/etc");
    ///     Ok(touches_etc.then(|| json!({"action": "block", "message": "/etc is off limits"})))
    /// })?;
    /// # Ok(()) }
    /// ```
    pub fn register(
        &self,
        event: &str,
        name: &str,
        callback: impl Fn(&Event) -> CallbackResult + Send + Sync + 'static,
    ) -> Result<CallbackId, UnknownEvent> {
        self.callbacks.register_host(event, name, callback)
    }

    /// [`Host::register`] for an async closure: on a bounded event it runs on
    /// a worker inside the host's runtime, elsewhere it is awaited inline.
    pub fn register_async(
        &self,
        event: &str,
        name: &str,
        callback: impl Fn(Event) -> CallbackFuture + Send + Sync + 'static,
    ) -> Result<CallbackId, UnknownEvent> {
        self.callbacks.register_host_async(event, name, callback)
    }
}
