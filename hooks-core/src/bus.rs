//! [`Hooks`]: the bus a host holds. It holds the mechanisms in order and is
//! itself a [`Dispatcher`].
//!
//! Order is fixed by the builder: in-process plugins first, then shell hooks,
//! then outbound webhooks (gateway hooks only see gateway events, so their place
//! does not matter). Interest is asked once per event name and cached, so an
//! event nobody listens to costs an atomic load and a branch. The delivery
//! futures ([`Collect`], [`Emit`]) live in `bus/delivery.rs`.

mod delivery;
mod report;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;

use crate::catalog::{EVENT_COUNT, HookEvent};
use crate::dispatch::{Dispatcher, interest_epoch};
use crate::event::{Event, EventName};
use crate::reply::Reply;
use crate::runs::{HookRun, RunObserver};

pub use delivery::{Collect, Emit};
pub use report::Report;

/// The most mechanisms one bus holds (interest is a bit mask).
pub const MAX_DISPATCHERS: usize = 64;

/// The bus: mechanisms in order, with cached interest per event name.
pub struct Hooks {
    dispatchers: Vec<Arc<dyn Dispatcher>>,
    /// Interest masks of catalog events, valid while `epoch` matches the global epoch.
    hook_masks: [AtomicU64; EVENT_COUNT],
    /// The global interest epoch the masks were computed at, plus one (0 = never).
    epoch: AtomicU64,
    /// Interest masks of names outside the catalog, with their epoch.
    other_masks: Mutex<(u64, HashMap<Box<str>, u64>)>,
    rebuild: Mutex<()>,
    /// Who sees the runs of every emit (trace exporters); empty: emit records nothing.
    observers: Box<[Arc<dyn RunObserver>]>,
}

impl Hooks {
    /// A bus with no mechanisms: every event is unhooked.
    pub fn empty() -> Self {
        Hooks::builder().build()
    }

    /// Starts a bus; add mechanisms in the order they should run.
    #[must_use = "a builder does nothing until `.build()`"]
    pub fn builder() -> HooksBuilder {
        HooksBuilder {
            dispatchers: Vec::new(),
            observers: Vec::new(),
        }
    }

    /// The mechanisms, in order.
    pub fn dispatchers(&self) -> &[Arc<dyn Dispatcher>] {
        &self.dispatchers
    }

    /// Whether any mechanism cares about the catalog event `event`.
    ///
    /// Hosts check this before building a payload: an unhooked event then costs
    /// nothing more.
    #[inline]
    pub fn is_hooked(&self, event: HookEvent) -> bool {
        self.hook_mask(event) != 0
    }

    /// Whether any mechanism cares about `name` (any event name).
    pub fn is_interested(&self, name: &EventName) -> bool {
        self.mask(name) != 0
    }

    #[inline]
    fn hook_mask(&self, event: HookEvent) -> u64 {
        let current = interest_epoch() + 1;
        if self.epoch.load(Ordering::Acquire) != current {
            self.rebuild_hook_masks(current);
        }
        self.hook_masks[event.index()].load(Ordering::Relaxed)
    }

    #[cold]
    fn rebuild_hook_masks(&self, current: u64) {
        let _guard = self.rebuild.lock().unwrap_or_else(|e| e.into_inner());
        if self.epoch.load(Ordering::Acquire) == current {
            return;
        }
        for event in HookEvent::ALL {
            let mask = self.compute_mask(&EventName::Hook(event));
            self.hook_masks[event.index()].store(mask, Ordering::Relaxed);
        }
        self.epoch.store(current, Ordering::Release);
    }

    fn compute_mask(&self, name: &EventName) -> u64 {
        self.dispatchers
            .iter()
            .enumerate()
            .filter(|(_, dispatcher)| dispatcher.interest(name))
            .fold(0, |mask, (index, _)| mask | (1 << index))
    }

    #[inline]
    fn mask(&self, name: &EventName) -> u64 {
        match name {
            EventName::Hook(event) => self.hook_mask(*event),
            other => self.other_mask(other),
        }
    }

    fn other_mask(&self, name: &EventName) -> u64 {
        let current = interest_epoch();
        let mut cache = self.other_masks.lock().unwrap_or_else(|e| e.into_inner());
        if cache.0 != current {
            *cache = (current, HashMap::new());
        }
        if let Some(mask) = cache.1.get(name.as_str()) {
            return *mask;
        }
        let mask = self.compute_mask(name);
        cache.1.insert(name.as_str().into(), mask);
        mask
    }

    /// Delivers `event` to every interested mechanism and returns all replies, in order.
    ///
    /// Nothing runs until the future is first polled. Mechanisms that can
    /// finish on the spot ([`Dispatcher::dispatch_now`]) do so inside that
    /// first poll; only a mechanism that has to wait costs a boxed future.
    #[inline]
    pub fn collect<'a>(&'a self, event: &'a Event) -> Collect<'a> {
        Collect::new(self, event)
    }

    /// Fires `event` through every mechanism and merges the replies by the
    /// event's rule into one outcome.
    ///
    /// An event nobody listens to completes on the first poll with
    /// [`crate::Outcome::Nothing`], after one cached interest lookup.
    #[inline]
    pub fn emit<'a>(&'a self, event: &'a Event) -> Emit<'a> {
        Emit::new(self, event)
    }

    /// Waits, at most `timeout`, for background work (queued deliveries) of every mechanism.
    pub async fn flush(&self, timeout: Duration) {
        crate::join::join_all(self.dispatchers.iter().map(|d| d.flush(timeout))).await;
    }
}

impl Default for Hooks {
    fn default() -> Self {
        Hooks::empty()
    }
}

impl std::fmt::Debug for Hooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hooks")
            .field(
                "dispatchers",
                &self
                    .dispatchers
                    .iter()
                    .map(|d| d.name())
                    .collect::<Vec<_>>(),
            )
            .finish()
    }
}

/// Builds a [`Hooks`] bus.
///
/// Every method returns the builder: `builder.with(x);` on its own line would
/// drop `x`, so the methods are `#[must_use]`:
///
/// ```compile_fail
/// #![deny(unused_must_use)]
/// let builder = hermes_hooks_core::Hooks::builder();
/// builder.with(hermes_hooks_core::NoopDispatcher); // error: the mechanism is dropped
/// ```
pub struct HooksBuilder {
    dispatchers: Vec<Arc<dyn Dispatcher>>,
    observers: Vec<Arc<dyn RunObserver>>,
}

impl HooksBuilder {
    /// Adds a mechanism after the ones already added (past [`MAX_DISPATCHERS`],
    /// it is dropped with an error log).
    #[must_use = "builder methods return the changed builder; dropping it drops the change"]
    pub fn with(mut self, dispatcher: impl Dispatcher + 'static) -> Self {
        self.push(Arc::new(dispatcher));
        self
    }

    /// Adds a shared mechanism after the ones already added.
    #[must_use = "builder methods return the changed builder; dropping it drops the change"]
    pub fn with_shared(mut self, dispatcher: Arc<dyn Dispatcher>) -> Self {
        self.push(dispatcher);
        self
    }

    /// Hands the runs of every event to `observer` (a trace exporter), from
    /// [`Hooks::emit`] and [`Hooks::collect`] too: with an observer, every
    /// hooked event records its runs. Unhooked events still cost one lookup.
    #[must_use = "builder methods return the changed builder; dropping it drops the change"]
    pub fn observe_runs(mut self, observer: Arc<dyn RunObserver>) -> Self {
        self.observers.push(observer);
        self
    }

    fn push(&mut self, dispatcher: Arc<dyn Dispatcher>) {
        if self.dispatchers.len() >= MAX_DISPATCHERS {
            tracing::error!(
                dispatcher = dispatcher.name(),
                "a Hooks bus holds at most {MAX_DISPATCHERS} mechanisms; this one is not added"
            );
            return;
        }
        self.dispatchers.push(dispatcher);
    }

    /// The bus.
    #[must_use = "the bus does nothing unless a host keeps it and emits through it"]
    pub fn build(self) -> Hooks {
        Hooks {
            dispatchers: self.dispatchers,
            hook_masks: std::array::from_fn(|_| AtomicU64::new(0)),
            epoch: AtomicU64::new(0),
            other_masks: Mutex::new((u64::MAX, HashMap::new())),
            rebuild: Mutex::new(()),
            observers: self.observers.into_boxed_slice(),
        }
    }
}

#[async_trait]
impl Dispatcher for Hooks {
    fn name(&self) -> &str {
        "hooks"
    }

    fn interest(&self, event: &EventName) -> bool {
        self.is_interested(event)
    }

    async fn dispatch(&self, event: &Event) -> Vec<Reply> {
        self.collect(event).await
    }

    async fn dispatch_recorded(&self, event: &Event, runs: &mut Vec<HookRun>) -> Vec<Reply> {
        // The outer bus traces and observes; a nested bus only records.
        self.record(event, runs).await
    }

    fn dispatch_now(&self, event: &Event, replies: &mut Vec<Reply>) -> bool {
        if self.observed() {
            // Its observers must see the runs: take the recorded path.
            return false;
        }
        let mask = self.mask(event.name());
        // Finishing on the spot must be all or nothing, and with several
        // mechanisms a later one may have to wait after an earlier one ran.
        match mask.count_ones() {
            0 => true,
            1 => self
                .dispatchers
                .get(mask.trailing_zeros() as usize)
                .is_some_and(|dispatcher| dispatcher.dispatch_now(event, replies)),
            _ => false,
        }
    }

    async fn flush(&self, timeout: Duration) {
        Hooks::flush(self, timeout).await
    }
}
