//! The one trait every hook mechanism implements.
//!
//! A [`Dispatcher`] answers two questions: "does anything here care about this
//! event name?" (asked once per name and cached by [`crate::Hooks`]) and
//! "deliver this event and give back your replies, in order". Composites
//! (`Vec`, `Option`, `Arc`, `Box`, and the [`crate::Hooks`] bus itself)
//! implement the same trait.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use async_trait::async_trait;

use crate::event::{Event, EventName};
use crate::reply::Reply;
use crate::runs::HookRun;

/// A hook mechanism: in-process callbacks, shell hooks, outbound webhooks, gateway hooks.
///
/// # Writing a mechanism
///
/// Implement [`name`](Dispatcher::name), [`interest`](Dispatcher::interest) and
/// [`dispatch`](Dispatcher::dispatch) under `#[hermes_hooks_core::async_trait]` (re-exported,
/// so no dependency of your own is needed). Reply in the Hermes wire shape
/// ([`Reply`]); the bus merges the replies of every mechanism by the event's rule.
///
/// **The fast path.** When your mechanism can finish an event without waiting
/// (the work is inline, or it only hands the event to a queue), also implement
/// [`dispatch_now`](Dispatcher::dispatch_now): the bus calls it first and only
/// boxes and awaits [`dispatch`](Dispatcher::dispatch) when it returns `false`.
/// An inline mechanism without it pays an allocation per event.
///
/// ```
/// use hermes_hooks_core::{Dispatcher, Event, EventName, HookEvent, Hooks, Reply, ToolGate};
/// use serde_json::json;
///
/// /// Blocks `rm` in `pre_tool_call`; cares about nothing else.
/// struct NoRm;
///
/// impl NoRm {
///     fn decide(&self, event: &Event, replies: &mut Vec<Reply>) {
///         if event.tool_name() == Some("rm") {
///             replies.push(Reply::block("no-rm", "rm is not allowed here"));
///         }
///     }
/// }
///
/// #[hermes_hooks_core::async_trait]
/// impl Dispatcher for NoRm {
///     fn name(&self) -> &str {
///         "no-rm"
///     }
///
///     fn interest(&self, event: &EventName) -> bool {
///         event.hook() == Some(HookEvent::PreToolCall)
///     }
///
///     async fn dispatch(&self, event: &Event) -> Vec<Reply> {
///         let mut replies = Vec::new();
///         self.decide(event, &mut replies);
///         replies
///     }
///
///     // The work above never waits, so finish on the spot (no boxed future).
///     fn dispatch_now(&self, event: &Event, replies: &mut Vec<Reply>) -> bool {
///         self.decide(event, replies);
///         true
///     }
/// }
///
/// let hooks = Hooks::builder().with(NoRm).build();
/// assert!(hooks.is_hooked(HookEvent::PreToolCall));
/// assert!(!hooks.is_hooked(HookEvent::PostToolCall));
///
/// let event = Event::from_json(
///     HookEvent::PreToolCall,
///     json!({"tool_name": "rm", "args": {"path": "/"}}),
/// );
/// // No executor needed here: every mechanism finished on the spot.
/// let outcome = futures::executor::block_on(hooks.emit(&event));
/// match outcome.tool_gate() {
///     ToolGate::Block { message, source, .. } => {
///         assert_eq!(message, "rm is not allowed here");
///         assert_eq!(&*source.source, "no-rm");
///     }
///     other => panic!("expected a block, got {other:?}"),
/// }
/// ```
#[async_trait]
pub trait Dispatcher: Send + Sync {
    /// A short label for logs (`plugins`, `shell`, `outbound`, `gateway`).
    fn name(&self) -> &str;

    /// Whether anything registered here cares about `event`.
    ///
    /// Must be cheap and side-effect free. Callers cache the answer per name
    /// until [`invalidate_interest`] is called.
    fn interest(&self, event: &EventName) -> bool;

    /// Delivers `event` and returns the replies in registration order.
    ///
    /// Never fails: a broken hook is logged and contributes nothing, or, where
    /// its fail mode says so, a block reply.
    async fn dispatch(&self, event: &Event) -> Vec<Reply>;

    /// Delivers `event` without awaiting, when this dispatcher can finish it
    /// on the spot: appends the replies to `replies` and returns `true`. See
    /// "The fast path" in the [trait docs](Dispatcher).
    ///
    /// Returning `false` means nothing was done (no callback ran, nothing was
    /// appended) and the caller must await [`Dispatcher::dispatch`] instead.
    /// The default always returns `false`. The [`crate::Hooks`] bus tries this
    /// first, so a mechanism whose work is synchronous (inline callbacks, a
    /// queue hand-off) skips boxing a future on every event.
    fn dispatch_now(&self, event: &Event, replies: &mut Vec<Reply>) -> bool {
        let _ = (event, replies);
        false
    }

    /// Delivers `event` as [`Dispatcher::dispatch`] does, and appends to `runs`
    /// one [`HookRun`] per hook it touched (ran, skipped or queued), in order.
    ///
    /// Called only when someone asked for records
    /// ([`crate::Hooks::emit_with_report`], a run observer), so
    /// [`Dispatcher::dispatch`] and the fast path stay free of them. The
    /// default reports no runs: a mechanism written before records existed
    /// still works, it is just invisible in reports.
    async fn dispatch_recorded(&self, event: &Event, runs: &mut Vec<HookRun>) -> Vec<Reply> {
        let _ = runs;
        self.dispatch(event).await
    }

    /// Waits, at most `timeout`, for work this dispatcher started in the
    /// background (queued deliveries) to finish. The default has none.
    async fn flush(&self, timeout: Duration) {
        let _ = timeout;
    }
}

static INTEREST_EPOCH: AtomicU64 = AtomicU64::new(0);

/// Tells every cache of [`Dispatcher::interest`] answers that registrations changed.
///
/// Call it after adding or removing a callback, hook or target at run time.
pub fn invalidate_interest() {
    INTEREST_EPOCH.fetch_add(1, Ordering::Release);
}

/// The current interest epoch; a cache built at an older epoch is stale.
#[inline]
pub fn interest_epoch() -> u64 {
    INTEREST_EPOCH.load(Ordering::Acquire)
}

/// A dispatcher with nothing registered: cares about nothing, replies nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoopDispatcher;

#[async_trait]
impl Dispatcher for NoopDispatcher {
    fn name(&self) -> &str {
        "noop"
    }

    fn interest(&self, _event: &EventName) -> bool {
        false
    }

    async fn dispatch(&self, _event: &Event) -> Vec<Reply> {
        Vec::new()
    }

    fn dispatch_now(&self, _event: &Event, _replies: &mut Vec<Reply>) -> bool {
        true
    }
}

#[async_trait]
impl<D: Dispatcher + ?Sized> Dispatcher for Arc<D> {
    fn name(&self) -> &str {
        (**self).name()
    }

    fn interest(&self, event: &EventName) -> bool {
        (**self).interest(event)
    }

    async fn dispatch(&self, event: &Event) -> Vec<Reply> {
        (**self).dispatch(event).await
    }

    async fn dispatch_recorded(&self, event: &Event, runs: &mut Vec<HookRun>) -> Vec<Reply> {
        (**self).dispatch_recorded(event, runs).await
    }

    fn dispatch_now(&self, event: &Event, replies: &mut Vec<Reply>) -> bool {
        (**self).dispatch_now(event, replies)
    }

    async fn flush(&self, timeout: Duration) {
        (**self).flush(timeout).await
    }
}

#[async_trait]
impl<D: Dispatcher + ?Sized> Dispatcher for Box<D> {
    fn name(&self) -> &str {
        (**self).name()
    }

    fn interest(&self, event: &EventName) -> bool {
        (**self).interest(event)
    }

    async fn dispatch(&self, event: &Event) -> Vec<Reply> {
        (**self).dispatch(event).await
    }

    async fn dispatch_recorded(&self, event: &Event, runs: &mut Vec<HookRun>) -> Vec<Reply> {
        (**self).dispatch_recorded(event, runs).await
    }

    fn dispatch_now(&self, event: &Event, replies: &mut Vec<Reply>) -> bool {
        (**self).dispatch_now(event, replies)
    }

    async fn flush(&self, timeout: Duration) {
        (**self).flush(timeout).await
    }
}

#[async_trait]
impl<D: Dispatcher> Dispatcher for Option<D> {
    fn name(&self) -> &str {
        self.as_ref().map_or("none", Dispatcher::name)
    }

    fn interest(&self, event: &EventName) -> bool {
        self.as_ref().is_some_and(|inner| inner.interest(event))
    }

    async fn dispatch(&self, event: &Event) -> Vec<Reply> {
        match self {
            Some(inner) => inner.dispatch(event).await,
            None => Vec::new(),
        }
    }

    async fn dispatch_recorded(&self, event: &Event, runs: &mut Vec<HookRun>) -> Vec<Reply> {
        match self {
            Some(inner) => inner.dispatch_recorded(event, runs).await,
            None => Vec::new(),
        }
    }

    fn dispatch_now(&self, event: &Event, replies: &mut Vec<Reply>) -> bool {
        match self {
            Some(inner) => inner.dispatch_now(event, replies),
            None => true,
        }
    }

    async fn flush(&self, timeout: Duration) {
        if let Some(inner) = self {
            inner.flush(timeout).await;
        }
    }
}

/// A list of dispatchers, run in order; replies are concatenated in that order.
#[async_trait]
impl<D: Dispatcher> Dispatcher for Vec<D> {
    fn name(&self) -> &str {
        "list"
    }

    fn interest(&self, event: &EventName) -> bool {
        self.iter().any(|inner| inner.interest(event))
    }

    async fn dispatch(&self, event: &Event) -> Vec<Reply> {
        let mut replies = Vec::new();
        for inner in self {
            if inner.interest(event.name()) && !inner.dispatch_now(event, &mut replies) {
                replies.extend(inner.dispatch(event).await);
            }
        }
        replies
    }

    async fn dispatch_recorded(&self, event: &Event, runs: &mut Vec<HookRun>) -> Vec<Reply> {
        let mut replies = Vec::new();
        for inner in self {
            if inner.interest(event.name()) {
                replies.extend(inner.dispatch_recorded(event, runs).await);
            }
        }
        replies
    }

    async fn flush(&self, timeout: Duration) {
        crate::join::join_all(self.iter().map(|inner| inner.flush(timeout))).await;
    }
}
