//! [`GatewayHooks`]: the discovered hooks as one [`Dispatcher`] (named `gateway`).
//!
//! Routing follows the reference: for `ns:action`, the hooks subscribed to
//! exactly `ns:action` come first, then those subscribed to `ns:*`, each group
//! in discovery order. There is no global `*` and no bare-prefix match (`agent`
//! does not receive `agent:start`).
//!
//! Unlike the reference, which awaits every handler inline, emitting only
//! queues the event on each hook's lane ([`crate::lanes`]) and returns. Only a
//! `command:*` event, whose answer the host needs (deny, handle, rewrite),
//! waits for its handlers, all of them together within one bound.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use hermes_hooks_core::{Dispatcher, Event, EventName, HookRun, Payload, Reply, RunStatus};
use serde::Serialize;
use serde_json::Value;

use crate::discovery::{Discovery, GatewayHookInfo, HandlerKind, discover};
use crate::engine::Lanes;
use crate::error::HandlerError;
use crate::executable::ExecutableHook;
use crate::lanes::{Job, Lane, ReplySender, Runner, Shared, log_failure};
use crate::options::GatewayOptions;
use crate::python::PythonHook;
use crate::trial::check_handlers;

struct RegisteredHook {
    info: GatewayHookInfo,
    /// `gateway:<name>`, the source of this hook's replies.
    source: Arc<str>,
}

/// Per-hook counters, for hosts and `hooks emit`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LaneStats {
    /// The hook's name.
    pub hook: String,
    /// Events waiting for the hook (not counting one being handled).
    pub queued: usize,
    /// Events dropped because the hook's queue was full.
    pub dropped: u64,
}

/// Gateway hooks, ready to receive gateway events.
///
/// Handlers are trusted code run with the user's rights. They run as tasks on
/// the background runtime of [`GatewayOptions::runtime`] (a host's, else the
/// process default), started on the first event; dropping this value (or
/// [`GatewayHooks::shutdown`]) stops them and kills every process they
/// started, waiting for that (bounded).
pub struct GatewayHooks {
    hooks: Vec<RegisteredHook>,
    /// Hook indices per exact event name, in discovery order.
    exact: HashMap<Box<str>, Vec<usize>>,
    /// Hook indices per namespace of a `<namespace>:*` subscription.
    wildcard: HashMap<Box<str>, Vec<usize>>,
    options: GatewayOptions,
    lanes: Lanes,
}

#[derive(Serialize)]
struct Request<'a> {
    event_type: &'a str,
    context: &'a Payload,
}

impl GatewayHooks {
    /// Gateway hooks for everything `discovery` found. A hook whose trial import
    /// failed ([`crate::HookStatus::Broken`]) stays off.
    pub fn new(discovery: &Discovery, options: GatewayOptions) -> Self {
        let python = discovery
            .python
            .clone()
            .unwrap_or_else(|| options.python_interpreter());
        let shared = Arc::new(Shared::default());
        let mut hooks = Vec::with_capacity(discovery.hooks.len());
        let mut exact: HashMap<Box<str>, Vec<usize>> = HashMap::new();
        let mut wildcard: HashMap<Box<str>, Vec<usize>> = HashMap::new();
        let mut runners = Vec::with_capacity(discovery.hooks.len());
        let mut lanes = Vec::with_capacity(discovery.hooks.len());
        for info in &discovery.hooks {
            let index = hooks.len();
            for event in &info.events {
                match event
                    .strip_suffix(":*")
                    .filter(|ns| !ns.is_empty() && !ns.contains(':'))
                {
                    Some(namespace) => wildcard.entry(namespace.into()),
                    None => exact.entry(event.as_str().into()),
                }
                .or_default()
                .push(index);
            }
            runners.push(match info.handler {
                HandlerKind::Python => Runner::Python(Box::new(PythonHook::new(
                    info,
                    &python,
                    discovery.home.clone(),
                ))),
                HandlerKind::Executable => {
                    Runner::Executable(ExecutableHook::new(info, discovery.home.clone()))
                }
            });
            lanes.push(Arc::new(Lane::new(
                &info.name,
                options.queue_size,
                shared.clone(),
            )));
            hooks.push(RegisteredHook {
                info: info.clone(),
                source: format!("gateway:{}", info.name).into(),
            });
        }
        GatewayHooks {
            hooks,
            exact,
            wildcard,
            lanes: Lanes::new(
                lanes,
                runners,
                shared,
                options.handler_timeout,
                options.runtime.clone(),
            ),
            options,
        }
    }

    /// Discovers the hooks under `home` (see [`discover`]), imports each
    /// `handler.py` once to find broken ones (unless
    /// [`GatewayOptions::trial_import`] is off; see [`check_handlers`]) and makes
    /// them ready.
    pub fn discover(home: &Path, options: GatewayOptions) -> (Self, Discovery) {
        let mut discovery = discover(home);
        if options.trial_import {
            check_handlers(&mut discovery, &options);
        }
        (GatewayHooks::new(&discovery, options.clone()), discovery)
    }

    /// No hooks: interested in nothing.
    pub fn empty() -> Self {
        GatewayHooks::new(&Discovery::default(), GatewayOptions::default())
    }

    /// The loaded hooks, in discovery order.
    pub fn hooks(&self) -> impl Iterator<Item = &GatewayHookInfo> {
        self.hooks.iter().map(|hook| &hook.info)
    }

    /// The options in force (timeouts, queue size, interpreter).
    pub fn options(&self) -> &GatewayOptions {
        &self.options
    }

    /// The per-handler timeout in force.
    pub fn handler_timeout(&self) -> Duration {
        self.options.handler_timeout
    }

    /// Per-hook queue counters, in discovery order.
    pub fn stats(&self) -> Vec<LaneStats> {
        self.hooks
            .iter()
            .enumerate()
            .map(|(index, hook)| LaneStats {
                hook: hook.info.name.clone(),
                queued: self.lanes.lane(index).queued(),
                dropped: self.lanes.lane(index).dropped(),
            })
            .collect()
    }

    /// Events queued or being handled, over all hooks.
    pub fn pending(&self) -> usize {
        self.lanes.pending()
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
    /// subscriptions, after the events already queued for it (for `hooks
    /// doctor` and tests). `None` when no hook has that name.
    pub async fn call_hook(
        &self,
        hook: &str,
        event: &str,
        context: &Payload,
    ) -> Option<Result<Value, HandlerError>> {
        let index = self.hooks.iter().position(|h| h.info.name == hook)?;
        let body = match request_body(event, context) {
            Ok(body) => body,
            Err(error) => return Some(Err(error)),
        };
        let (sender, receiver) = tokio::sync::oneshot::channel();
        self.push(index, event.into(), body, Some(sender), None);
        Some(receiver.await.unwrap_or_else(|_| {
            Err(HandlerError::Protocol {
                handler: self.hooks[index].info.handler_path(),
                message: "the event was dropped (queue full or gateway shut down)".into(),
            })
        }))
    }

    /// Delivers `event` to its hooks and waits for all their results, together
    /// bounded by the command timeout: the reference's `emit_collect`. A hook
    /// that has not answered by then contributes nothing (it is logged).
    /// [`Dispatcher::dispatch`] does this for `command:*` events only.
    pub async fn collect(&self, event: &Event) -> Vec<Reply> {
        self.collect_with(event, None).await
    }

    /// [`GatewayHooks::collect`], recording a run per hook when `runs` is given.
    async fn collect_with(&self, event: &Event, mut runs: Option<&mut Vec<HookRun>>) -> Vec<Reply> {
        let started = std::time::Instant::now();
        let EventName::Gateway(name) = event.name() else {
            return Vec::new();
        };
        let indices: Vec<usize> = self.route(name).collect();
        if indices.is_empty() {
            return Vec::new();
        }
        let body = match request_body(name, event.payload()) {
            Ok(body) => body,
            Err(error) => {
                tracing::warn!(event = %name, "[hooks] Error in handlers for '{name}': {error}");
                return Vec::new();
            }
        };
        let event_name: Arc<str> = Arc::from(&**name);
        let bound = self.options.command_timeout;
        // One deadline for the handlers and for the wait: a handler still
        // running at the bound is killed then, not left to hold the lane.
        let deadline = std::time::Instant::now() + bound;
        let receivers: Vec<_> = indices
            .iter()
            .map(|&index| {
                let (sender, receiver) = tokio::sync::oneshot::channel();
                let job_body = body.clone();
                self.push(
                    index,
                    event_name.clone(),
                    job_body,
                    Some(sender),
                    Some(deadline),
                );
                receiver
            })
            .collect();
        let waited = self.lanes.run(async move {
            let deadline = tokio::time::Instant::from_std(deadline);
            let waits = receivers
                .into_iter()
                .map(|receiver| tokio::time::timeout_at(deadline, receiver));
            futures::future::join_all(waits).await
        });
        let Some(results) = waited.await else {
            return Vec::new();
        };
        let mut replies = Vec::new();
        for (index, result) in indices.into_iter().zip(results) {
            let hook = &self.hooks[index];
            let hook_name = &hook.info.name;
            let (status, diagnostic) = match result {
                Ok(Ok(Ok(Value::Null))) => (RunStatus::Completed, None),
                Ok(Ok(Ok(value))) => {
                    let status = RunStatus::of_reply(Some(&value));
                    replies.push(Reply::new(hook.source.clone(), value));
                    (status, None)
                }
                // Cut to the command bound (shorter than its own timeout): said as such.
                Ok(Ok(Err(HandlerError::Timeout { timeout, .. })))
                    if timeout < self.options.handler_timeout =>
                {
                    tracing::warn!(hook = %hook_name, "[hooks] {hook_name} did not answer '{name}' within {bound:?} (gateway_hooks.command_timeout); it was stopped and its answer is ignored");
                    let why = format!(
                        "no answer within {bound:?} (gateway_hooks.command_timeout); stopped"
                    );
                    (RunStatus::TimedOut, Some(why))
                }
                Ok(Ok(Err(error))) => {
                    log_failure(hook_name, name, &error);
                    (RunStatus::Failed, Some(error.to_string()))
                }
                Ok(Err(_)) => {
                    tracing::warn!(hook = %hook_name, "[hooks] {hook_name}: its '{name}' event was dropped (queue full or gateway shut down)");
                    let why = "the event was dropped (queue full or gateway shut down)";
                    (RunStatus::Skipped(why.into()), None)
                }
                Err(_) => {
                    tracing::warn!(hook = %hook_name, "[hooks] {hook_name} did not answer '{name}' within {bound:?} (gateway_hooks.command_timeout); its answer is ignored");
                    let why = format!("no answer within {bound:?} (gateway_hooks.command_timeout)");
                    (RunStatus::TimedOut, Some(why))
                }
            };
            if let Some(runs) = runs.as_deref_mut() {
                let decision = match &status {
                    RunStatus::Completed | RunStatus::Blocked => {
                        replies.last().filter(|reply| reply.source == hook.source)
                    }
                    _ => None,
                };
                let mut run = HookRun::new(MECHANISM, hook.source.clone(), event.name(), status)
                    .elapsed(started.elapsed())
                    .decision(decision.map(|reply| reply.value.clone()));
                run.diagnostics.extend(diagnostic);
                runs.push(run);
            }
        }
        replies
    }

    /// Stops every handler now: workers and every process they started are
    /// killed, queued events are dropped, later events are ignored.
    pub fn shutdown(&self) {
        self.lanes.shutdown();
    }

    /// Queues one job on hook `index`'s lane.
    fn push(
        &self,
        index: usize,
        event: Arc<str>,
        body: Arc<[u8]>,
        reply: Option<ReplySender>,
        deadline: Option<std::time::Instant>,
    ) {
        self.lanes.push(
            index,
            Job {
                event,
                body,
                reply,
                deadline,
            },
        );
    }

    /// Queues a non-command gateway event on its hooks' lanes; `false` when it
    /// is not such an event.
    fn enqueue(&self, event: &Event) -> bool {
        let EventName::Gateway(name) = event.name() else {
            return true;
        };
        if is_command(name) {
            return false;
        }
        let mut indices = self.route(name).peekable();
        if indices.peek().is_none() {
            return true;
        }
        match request_body(name, event.payload()) {
            Ok(body) => {
                let event_name: Arc<str> = Arc::from(&**name);
                for index in indices {
                    self.push(index, event_name.clone(), body.clone(), None, None);
                }
            }
            Err(error) => {
                tracing::warn!(event = %name, "[hooks] Error in handlers for '{name}': {error}");
            }
        }
        true
    }
}

/// The mechanism name of gateway hooks in run records.
const MECHANISM: &str = "gateway";

/// Whether the host needs this event's answers (`command:<name>`).
fn is_command(name: &str) -> bool {
    name.starts_with("command:")
}

fn request_body(event: &str, context: &Payload) -> Result<Arc<[u8]>, HandlerError> {
    let mut line = serde_json::to_vec(&Request {
        event_type: event,
        context,
    })?;
    line.push(b'\n');
    Ok(line.into())
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

    /// Queues the event on each of its hooks' lanes and returns at once,
    /// except for `command:*` events (see [`GatewayHooks::collect`]).
    async fn dispatch(&self, event: &Event) -> Vec<Reply> {
        if self.enqueue(event) {
            return Vec::new();
        }
        self.collect(event).await
    }

    /// As [`Dispatcher::dispatch`]; a queued event is a `Queued` run per hook,
    /// a `command:*` event one run per hook with its answer.
    async fn dispatch_recorded(&self, event: &Event, runs: &mut Vec<HookRun>) -> Vec<Reply> {
        if let EventName::Gateway(name) = event.name()
            && !is_command(name)
        {
            runs.extend(self.route(name).map(|index| {
                let source = self.hooks[index].source.clone();
                HookRun::new(MECHANISM, source, event.name(), RunStatus::Queued)
            }));
        }
        if self.enqueue(event) {
            return Vec::new();
        }
        self.collect_with(event, Some(runs)).await
    }

    fn dispatch_now(&self, event: &Event, _replies: &mut Vec<Reply>) -> bool {
        self.enqueue(event)
    }

    /// Waits, at most `timeout`, until every queued event was handled.
    async fn flush(&self, timeout: Duration) {
        if self.pending() == 0 {
            return;
        }
        let shared = self.lanes.shared();
        let _ = self
            .lanes
            .run(async move { tokio::time::timeout(timeout, shared.idle()).await })
            .await;
        let left = self.pending();
        if left > 0 {
            tracing::warn!(
                "[hooks] gateway hooks: {left} event(s) still queued or running after {timeout:?}"
            );
        }
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
            .field("options", &self.options)
            .finish()
    }
}
