//! The callback table: per event, an immutable snapshot of entries in
//! registration order, swapped whole on every (rare) registration so the hot
//! dispatch path only clones an `Arc` under an uncontended read lock.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use futures::future::BoxFuture;

use super::runner::CallGates;
use super::stream::StreamQueue;
use super::{CallbackId, CallbackResult};
use crate::catalog::{EVENT_COUNT, HookEvent};
use crate::event::{Event, EventName};

/// A synchronous callback.
pub(crate) type SyncFn = dyn Fn(&Event) -> CallbackResult + Send + Sync;
/// An asynchronous callback.
pub(crate) type AsyncFn = dyn Fn(Event) -> BoxFuture<'static, CallbackResult> + Send + Sync;

/// The code of one registered callback.
#[derive(Clone)]
pub(crate) enum CallbackFn {
    Sync(Arc<SyncFn>),
    Async(Arc<AsyncFn>),
}

/// One registered callback with its run-time state.
pub(crate) struct Entry {
    pub(crate) id: CallbackId,
    pub(crate) owner: Arc<str>,
    /// The reply source, `plugin:<owner>`.
    pub(crate) source: Arc<str>,
    pub(crate) callback: CallbackFn,
    /// Gates of bounded runs: calls in flight, hung workers, suppression.
    pub(crate) gates: Arc<CallGates>,
    /// The observer queue, created on the first queued event.
    pub(crate) queue: OnceLock<Arc<StreamQueue>>,
}

impl Entry {
    pub(crate) fn new(id: CallbackId, owner: &str, callback: CallbackFn) -> Self {
        let owner: Arc<str> = owner.into();
        Entry {
            id,
            source: format!("plugin:{owner}").into(),
            gates: Arc::default(),
            owner,
            callback,
            queue: OnceLock::new(),
        }
    }

    /// Stops the entry's queue (pending events still drain).
    pub(crate) fn retire(&self) {
        if let Some(queue) = self.queue.get() {
            queue.close();
        }
    }
}

/// The entries of one event, in registration order.
pub(crate) type Entries = Arc<[Arc<Entry>]>;

/// Every registered callback, by event.
pub(crate) struct Registry {
    hooks: [RwLock<Entries>; EVENT_COUNT],
    others: RwLock<HashMap<Box<str>, Entries>>,
    /// Serialises writers so read-modify-write of a snapshot never loses an entry.
    write: Mutex<()>,
}

fn empty() -> Entries {
    Arc::from(Vec::new())
}

impl Registry {
    pub(crate) fn new() -> Self {
        Registry {
            hooks: std::array::from_fn(|_| RwLock::new(empty())),
            others: RwLock::new(HashMap::new()),
            write: Mutex::new(()),
        }
    }

    /// The entries registered for `name`.
    #[inline]
    pub(crate) fn entries(&self, name: &EventName) -> Entries {
        match name {
            EventName::Hook(event) => self.hook_entries(*event),
            other => self
                .others
                .read()
                .unwrap_or_else(|e| e.into_inner())
                .get(other.as_str())
                .cloned()
                .unwrap_or_else(empty),
        }
    }

    #[inline]
    fn hook_entries(&self, event: HookEvent) -> Entries {
        Arc::clone(
            &self.hooks[event.index()]
                .read()
                .unwrap_or_else(|e| e.into_inner()),
        )
    }

    /// Whether anything is registered for `name`.
    pub(crate) fn has(&self, name: &EventName) -> bool {
        match name {
            EventName::Hook(event) => !self.hooks[event.index()]
                .read()
                .unwrap_or_else(|e| e.into_inner())
                .is_empty(),
            other => self
                .others
                .read()
                .unwrap_or_else(|e| e.into_inner())
                .get(other.as_str())
                .is_some_and(|entries| !entries.is_empty()),
        }
    }

    /// Appends `entry` to the entries of `name`.
    pub(crate) fn push(&self, name: &EventName, entry: Arc<Entry>) {
        let _writer = self.write.lock().unwrap_or_else(|e| e.into_inner());
        let appended = |old: &Entries| -> Entries {
            old.iter()
                .cloned()
                .chain(std::iter::once(Arc::clone(&entry)))
                .collect()
        };
        match name {
            EventName::Hook(event) => {
                let mut slot = self.hooks[event.index()]
                    .write()
                    .unwrap_or_else(|e| e.into_inner());
                *slot = appended(&slot);
            }
            other => {
                let mut map = self.others.write().unwrap_or_else(|e| e.into_inner());
                let slot = map.entry(other.as_str().into()).or_insert_with(empty);
                *slot = appended(slot);
            }
        }
    }

    /// Removes every entry `remove` selects and returns them.
    pub(crate) fn remove_where(&self, remove: impl Fn(&Entry) -> bool) -> Vec<Arc<Entry>> {
        let _writer = self.write.lock().unwrap_or_else(|e| e.into_inner());
        let mut removed = Vec::new();
        let mut filter = |slot: &mut Entries| {
            if slot.iter().any(|entry| remove(entry)) {
                let (gone, kept): (Vec<_>, Vec<_>) =
                    slot.iter().cloned().partition(|entry| remove(entry));
                removed.extend(gone);
                *slot = kept.into();
            }
        };
        for slot in &self.hooks {
            filter(&mut slot.write().unwrap_or_else(|e| e.into_inner()));
        }
        let mut map = self.others.write().unwrap_or_else(|e| e.into_inner());
        map.values_mut().for_each(&mut filter);
        map.retain(|_, entries| !entries.is_empty());
        removed
    }

    /// Every entry of every event.
    pub(crate) fn all(&self) -> Vec<Arc<Entry>> {
        let mut all: Vec<Arc<Entry>> = Vec::new();
        for event in HookEvent::ALL {
            all.extend(self.hook_entries(event).iter().cloned());
        }
        let map = self.others.read().unwrap_or_else(|e| e.into_inner());
        all.extend(map.values().flat_map(|entries| entries.iter().cloned()));
        all
    }
}
