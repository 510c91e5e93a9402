//! # hermes-hooks-callbacks
//!
//! In-process callbacks: the mechanism embedding hosts and native plugins
//! register Rust closures with. [`Callbacks`] is the [`hermes_hooks_core::Dispatcher`] named
//! `plugins`. It builds on the contract (`hermes-hooks-core`) alone.
//!
//! Each event's catalog run policy decides how its callbacks run:
//! inline on the caller, always on the caller's thread (`subagent_stop`), on a
//! persistent worker bounded by `plugins.hook_callback_timeout`, or through a
//! per-callback queue that never makes the producer wait. A callback that
//! fails, panics or hangs never reaches the host: it is logged warn-once and,
//! on `pre_tool_call`, turns into a block.
//!
//! ```
//! use hermes_hooks_callbacks::Callbacks;
//! use hermes_hooks_core::config::PluginSettings;
//! use hermes_hooks_core::{Dispatcher, Event, HookEvent};
//! use serde_json::json;
//!
//! let callbacks = Callbacks::new(PluginSettings::default());
//! callbacks.register("pre_tool_call", "guard", |event: &Event| {
//!     Ok((event.tool_name() == Some("terminal"))
//!         .then(|| json!({"action": "block", "message": "no shell today"})))
//! });
//! let event = Event::from_json(HookEvent::PreToolCall, json!({"tool_name": "terminal"}));
//! let replies = futures::executor::block_on(callbacks.dispatch(&event));
//! assert_eq!(replies[0].value["action"], "block");
//! ```

mod batch;
mod deliver;
mod error;
#[cfg(test)]
mod handoff_tests;
mod joint;
#[cfg(test)]
mod joint_tests;
mod registry;
mod report;
mod runner;
mod spin;
mod stream;
mod timer;
mod worker;

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use futures::future::BoxFuture;

pub use error::{CallbackError, CallbackResult};
pub use joint::{Joint, JointRun};
pub use registry::Origin;
pub use report::FAILURE_MESSAGE_CHARS;
pub use runner::{MAX_ABANDONED_WORKERS, SUPPRESSION_WINDOW};
pub use stream::DEFAULT_QUEUE_CAPACITY;

use hermes_hooks_core::catalog::{UnknownEvent, VALID_HOOKS};
use hermes_hooks_core::config::PluginSettings;
use hermes_hooks_core::dispatch::invalidate_interest;
use hermes_hooks_core::event::{Event, EventName};
use registry::{CallbackFn, Entry, Registry};
use report::FailureReporter;
use runner::WorkerPool;

/// The handle of one registration, for [`Callbacks::unregister`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CallbackId(u64);

impl fmt::Display for CallbackId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// Registered in-process callbacks, by event, in registration order.
pub struct Callbacks {
    registry: Registry,
    /// The callback timeout in nanoseconds; 0 = bounded events run inline.
    timeout_nanos: AtomicU64,
    stream_reasoning_deltas: AtomicBool,
    suppression_window: Duration,
    queue_capacity: usize,
    reporter: Arc<FailureReporter>,
    workers: Arc<WorkerPool>,
    next_id: AtomicU64,
    /// Checks of owners that hand queued events on (see [`Callbacks::register_settled`]).
    settled: std::sync::Mutex<Vec<Arc<SettledFn>>>,
}

/// A check registered with [`Callbacks::register_settled`]: true when
/// everything the owner was handed has been processed.
pub type SettledFn = dyn Fn() -> bool + Send + Sync;

/// The pauses between two looks of a flush or shutdown at whether everything
/// settled: 50 µs first, doubling up to 1 ms. A burst of events is usually
/// done within a fraction of a millisecond, and a flush that always slept
/// 1 ms made every short burst cost a millisecond; waits that go on are
/// looked at no more than a thousand times a second.
#[derive(Debug)]
struct SettlePauses {
    next: Duration,
}

impl SettlePauses {
    const FIRST: Duration = Duration::from_micros(50);
    const LONGEST: Duration = Duration::from_millis(1);

    /// The pause before the next look.
    fn next(&mut self) -> Duration {
        let pause = self.next;
        self.next = (pause * 2).min(Self::LONGEST);
        pause
    }
}

impl Default for SettlePauses {
    fn default() -> Self {
        SettlePauses { next: Self::FIRST }
    }
}

/// Builds [`Callbacks`] with non-default timing (mostly for tests).
#[derive(Debug, Clone)]
pub struct CallbacksBuilder {
    settings: PluginSettings,
    suppression_window: Duration,
    queue_capacity: usize,
}

impl CallbacksBuilder {
    /// How long a timed-out callback is skipped (default [`SUPPRESSION_WINDOW`]).
    #[must_use = "builder methods return the changed builder; dropping it drops the change"]
    pub fn suppression_window(mut self, window: Duration) -> Self {
        self.suppression_window = window;
        self
    }

    /// The capacity of each queued observer's FIFO (default [`DEFAULT_QUEUE_CAPACITY`], at least 1).
    #[must_use = "builder methods return the changed builder; dropping it drops the change"]
    pub fn queue_capacity(mut self, capacity: usize) -> Self {
        self.queue_capacity = capacity.max(1);
        self
    }

    /// The callbacks, empty.
    #[must_use = "register callbacks on the result and hand it to a bus"]
    pub fn build(self) -> Arc<Callbacks> {
        let callbacks = Callbacks {
            registry: Registry::new(),
            timeout_nanos: AtomicU64::new(0),
            stream_reasoning_deltas: AtomicBool::new(false),
            suppression_window: self.suppression_window,
            queue_capacity: self.queue_capacity,
            reporter: Arc::default(),
            workers: Arc::default(),
            next_id: AtomicU64::new(1),
            settled: std::sync::Mutex::default(),
        };
        callbacks.set_settings(self.settings);
        Arc::new(callbacks)
    }
}

impl Callbacks {
    /// No callbacks yet, with `settings` (from [`hermes_hooks_core::Config::plugin_settings`]).
    pub fn new(settings: PluginSettings) -> Arc<Callbacks> {
        Callbacks::builder(settings).build()
    }

    /// Starts building callbacks with non-default timing.
    #[must_use = "a builder does nothing until `.build()`"]
    pub fn builder(settings: PluginSettings) -> CallbacksBuilder {
        CallbacksBuilder {
            settings,
            suppression_window: SUPPRESSION_WINDOW,
            queue_capacity: DEFAULT_QUEUE_CAPACITY,
        }
    }

    /// Replaces the settings (e.g. after a config reload); later events use them.
    pub fn set_settings(&self, settings: PluginSettings) {
        let nanos = settings.callback_timeout.map_or(0, |timeout| {
            u64::try_from(timeout.as_nanos()).unwrap_or(u64::MAX)
        });
        self.timeout_nanos.store(nanos, Ordering::Relaxed);
        self.stream_reasoning_deltas
            .store(settings.stream_reasoning_deltas, Ordering::Relaxed);
    }

    /// The current settings.
    pub fn settings(&self) -> PluginSettings {
        PluginSettings::default()
            .with_callback_timeout(self.callback_timeout())
            .with_stream_reasoning_deltas(self.stream_reasoning_deltas.load(Ordering::Relaxed))
    }

    fn callback_timeout(&self) -> Option<Duration> {
        match self.timeout_nanos.load(Ordering::Relaxed) {
            0 => None,
            nanos => Some(Duration::from_nanos(nanos)),
        }
    }

    /// Registers a synchronous callback of plugin `owner` for `event`.
    ///
    /// Unknown event names are kept (forward compatibility: a plugin built
    /// for a newer catalog) with a warning naming the nearest event. A host
    /// registering its own closures uses [`Callbacks::register_host`], which
    /// refuses them.
    pub fn register(
        &self,
        event: &str,
        owner: &str,
        callback: impl Fn(&Event) -> CallbackResult + Send + Sync + 'static,
    ) -> CallbackId {
        self.add(
            event,
            owner,
            Origin::Plugin,
            CallbackFn::Sync(Arc::new(callback)),
        )
    }

    /// Registers a synchronous closure of the embedding host, labelled
    /// `host:<name>` (mechanism `host`) in replies, run records and block
    /// sources. An event name that is neither in the catalog nor a gateway
    /// event (`agent:start`, `command:*`, ...) is refused, naming the nearest
    /// catalog event: a typo never leaves a guard unregistered in silence.
    pub fn register_host(
        &self,
        event: &str,
        name: &str,
        callback: impl Fn(&Event) -> CallbackResult + Send + Sync + 'static,
    ) -> Result<CallbackId, UnknownEvent> {
        host_event(event)?;
        Ok(self.add(
            event,
            name,
            Origin::Host,
            CallbackFn::Sync(Arc::new(callback)),
        ))
    }

    /// [`Callbacks::register_host`] for an asynchronous closure (run as
    /// [`Callbacks::register_async`] runs one).
    pub fn register_host_async(
        &self,
        event: &str,
        name: &str,
        callback: impl Fn(Event) -> BoxFuture<'static, CallbackResult> + Send + Sync + 'static,
    ) -> Result<CallbackId, UnknownEvent> {
        host_event(event)?;
        Ok(self.add(
            event,
            name,
            Origin::Host,
            CallbackFn::Async(Arc::new(callback)),
        ))
    }

    /// Registers an asynchronous callback of plugin `owner` for `event`.
    ///
    /// Bounded events run it on a worker (entering the caller's tokio runtime,
    /// if any) so a hung future can be abandoned; other events await it inline.
    pub fn register_async(
        &self,
        event: &str,
        owner: &str,
        callback: impl Fn(Event) -> BoxFuture<'static, CallbackResult> + Send + Sync + 'static,
    ) -> CallbackId {
        self.add(
            event,
            owner,
            Origin::Plugin,
            CallbackFn::Async(Arc::new(callback)),
        )
    }

    /// Registers `member` of `joint` (a host running several callbacks with
    /// one request, such as a Python plugin worker) as a callback of plugin
    /// `owner` for `event`. On a bounded event, consecutive admitted members
    /// of one joint are started together with one [`Joint::start`] and each
    /// is collected under its own deadline; elsewhere a member runs alone
    /// through [`Joint::call`]. Otherwise a member is an ordinary callback:
    /// its own order, gates, reply and run record.
    pub fn register_joint(
        &self,
        event: &str,
        owner: &str,
        joint: Arc<dyn Joint>,
        member: &str,
    ) -> CallbackId {
        let member: Arc<str> = member.into();
        let alone = (Arc::clone(&joint), Arc::clone(&member));
        let callback =
            CallbackFn::Sync(Arc::new(move |event: &Event| alone.0.call(&alone.1, event)));
        self.insert(
            event,
            owner,
            Origin::Plugin,
            callback,
            Some(joint::JointMember { joint, member }),
        )
    }

    fn add(&self, event: &str, owner: &str, origin: Origin, callback: CallbackFn) -> CallbackId {
        self.insert(event, owner, origin, callback, None)
    }

    fn insert(
        &self,
        event: &str,
        owner: &str,
        origin: Origin,
        callback: CallbackFn,
        joint: Option<joint::JointMember>,
    ) -> CallbackId {
        if !VALID_HOOKS.contains(&event) {
            let mut valid = VALID_HOOKS.to_vec();
            valid.sort_unstable();
            let nearest = hermes_hooks_core::catalog::suggest(event)
                .map(|nearest| format!(" — did you mean '{nearest}'?"))
                .unwrap_or_default();
            tracing::warn!(
                "Plugin '{owner}' registered unknown hook '{event}'{nearest} (valid: {})",
                valid.join(", ")
            );
        }
        let id = CallbackId(self.next_id.fetch_add(1, Ordering::Relaxed));
        let name = EventName::parse(event);
        self.registry.push(
            &name,
            Arc::new(Entry::new(id, owner, origin, callback, joint)),
        );
        tracing::debug!("{} {owner} registered hook: {event}", origin.word());
        invalidate_interest();
        id
    }

    /// Removes one callback; false when it was not registered.
    pub fn unregister(&self, id: CallbackId) -> bool {
        self.remove_where(|entry| entry.id == id) > 0
    }

    /// Removes every callback of plugin `owner` and returns how many there were.
    pub fn unregister_owner(&self, owner: &str) -> usize {
        self.remove_where(|entry| &*entry.owner == owner)
    }

    fn remove_where(&self, remove: impl Fn(&Entry) -> bool) -> usize {
        let removed = self.registry.remove_where(remove);
        removed.iter().for_each(|entry| entry.retire());
        if !removed.is_empty() {
            invalidate_interest();
        }
        removed.len()
    }

    /// Whether any callback is registered for `event`.
    pub fn has(&self, event: &EventName) -> bool {
        self.registry.has(event)
    }

    /// How many workers of all callbacks are abandoned after a timeout and still running.
    pub fn abandoned_workers(&self) -> usize {
        self.registry
            .all()
            .iter()
            .map(|entry| entry.gates.abandoned())
            .sum()
    }

    /// Stops the observer queues: they take no new events, drain what is
    /// pending, and their workers exit. Waits at most `timeout` (a hung
    /// callback is left behind, never joined); true when every queue drained
    /// and every [`Self::register_settled`] check said settled.
    pub fn shutdown(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let queues = self.registry.queues();
        queues.iter().for_each(|queue| queue.close());
        if !queues.iter().all(|queue| queue.wait_exit(deadline)) {
            return false;
        }
        let mut pauses = SettlePauses::default();
        while !self.owners_settled() {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            std::thread::sleep(left.min(pauses.next()));
        }
        true
    }

    /// Registers a check for callbacks that hand queued events on instead of
    /// finishing them (a Python worker's pipelined observers): `flush` and
    /// `shutdown` also wait until it returns true, so draining still means
    /// every queued event was processed. It must not block.
    pub fn register_settled(&self, settled: impl Fn() -> bool + Send + Sync + 'static) {
        lock_settled(&self.settled).push(Arc::new(settled));
    }

    /// Whether every registered check says settled.
    fn owners_settled(&self) -> bool {
        let checks = lock_settled(&self.settled).clone();
        checks.iter().all(|settled| settled())
    }
}

/// `Ok` for a name a host closure may register for: a catalog event or a
/// gateway event (`agent:start`, `command:reset`: the set is open).
fn host_event(event: &str) -> Result<(), UnknownEvent> {
    match EventName::parse(event) {
        EventName::Hook(_) | EventName::Gateway(_) => Ok(()),
        EventName::Other(_) => Err(UnknownEvent(event.to_owned())),
    }
}

fn lock_settled(
    checks: &std::sync::Mutex<Vec<Arc<SettledFn>>>,
) -> std::sync::MutexGuard<'_, Vec<Arc<SettledFn>>> {
    checks
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Drop for Callbacks {
    fn drop(&mut self) {
        self.registry.all().iter().for_each(|entry| entry.retire());
        self.workers.close();
    }
}

impl fmt::Debug for Callbacks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Callbacks")
            .field("callbacks", &self.registry.all().len())
            .field("settings", &self.settings())
            .finish()
    }
}

/// The README's example, compiled and run as a doctest so it stays true.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

#[cfg(test)]
mod tests {
    #[test]
    fn a_flush_looks_again_soon_first_and_at_most_every_millisecond_later() {
        let mut pauses = super::SettlePauses::default();
        let micros: Vec<u128> = (0..8).map(|_| pauses.next().as_micros()).collect();
        assert_eq!(micros, [50, 100, 200, 400, 800, 1000, 1000, 1000]);
    }
}
