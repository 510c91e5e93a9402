//! The callback table: per event, an immutable snapshot of entries in
//! registration order, swapped whole on every (rare) registration. Catalog
//! events keep theirs in an [`ArcSwap`], so the hot dispatch path reads it
//! without a lock or a reference-count round trip.

use std::collections::HashMap;
use std::ops::Deref;
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use arc_swap::{ArcSwap, Guard};
use futures::future::BoxFuture;

use super::joint::JointMember;
use super::runner::CallGates;
use super::stream::StreamQueue;
use super::{CallbackId, CallbackResult};
use hermes_hooks_core::catalog::EVENT_COUNT;
use hermes_hooks_core::event::{Event, EventName};

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

/// Who registered a callback, which decides how its runs are labelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Origin {
    /// A plugin (native or Python): source `plugin:<owner>`, mechanism `plugins`.
    Plugin,
    /// The embedding host's own closure: source `host:<owner>`, mechanism `host`.
    Host,
}

impl Origin {
    /// The mechanism name of its run records: `plugins` or `host`.
    pub fn mechanism(self) -> &'static str {
        match self {
            Origin::Plugin => "plugins",
            Origin::Host => "host",
        }
    }

    /// The reply source of a callback registered by `owner`.
    pub fn source(self, owner: &str) -> String {
        match self {
            Origin::Plugin => format!("plugin:{owner}"),
            Origin::Host => format!("host:{owner}"),
        }
    }

    /// The word messages use: `plugin` or `host`.
    pub fn word(self) -> &'static str {
        match self {
            Origin::Plugin => "plugin",
            Origin::Host => "host",
        }
    }
}

/// One registered callback with its run-time state.
///
/// Aligned to a cache-line pair (as `CachePadded` is): a bounded call clones
/// the entry's `Arc` on the caller's thread, and the alignment keeps those
/// reference counts off the line the worker reads the callback from.
#[repr(align(128))]
pub(crate) struct Entry {
    pub(crate) id: CallbackId,
    pub(crate) owner: Arc<str>,
    /// Who registered it.
    pub(crate) origin: Origin,
    /// The reply source, `plugin:<owner>` or `host:<owner>`.
    pub(crate) source: Arc<str>,
    pub(crate) callback: CallbackFn,
    /// Gates of bounded runs: calls in flight, hung workers, suppression.
    pub(crate) gates: Arc<CallGates>,
    /// The observer queue, created on the first queued event.
    pub(crate) queue: OnceLock<Arc<StreamQueue>>,
    /// The joint it is a member of, when a host runs it with others (`joint.rs`).
    pub(crate) joint: Option<JointMember>,
}

impl Entry {
    pub(crate) fn new(
        id: CallbackId,
        owner: &str,
        origin: Origin,
        callback: CallbackFn,
        joint: Option<JointMember>,
    ) -> Self {
        let owner: Arc<str> = owner.into();
        Entry {
            id,
            origin,
            source: origin.source(&owner).into(),
            gates: Arc::default(),
            owner,
            callback,
            queue: OnceLock::new(),
            joint,
        }
    }

    /// Whether the callback is asynchronous (its bounded runs carry the caller's runtime).
    pub(crate) fn is_async(&self) -> bool {
        matches!(self.callback, CallbackFn::Async(_))
    }

    /// Stops the entry's queue (pending events still drain).
    pub(crate) fn retire(&self) {
        if let Some(queue) = self.queue.get() {
            queue.close();
        }
    }
}

/// The entries of one event, in registration order, swapped whole on change.
pub(crate) struct Snapshot {
    entries: Box<[Arc<Entry>]>,
    /// Every entry is a synchronous callback (inline runs need no future then).
    all_sync: bool,
}

impl Snapshot {
    fn new(entries: Vec<Arc<Entry>>) -> Self {
        let all_sync = entries
            .iter()
            .all(|entry| matches!(entry.callback, CallbackFn::Sync(_)));
        Snapshot {
            entries: entries.into_boxed_slice(),
            all_sync,
        }
    }

    /// Whether every entry is a synchronous callback.
    pub(crate) fn all_sync(&self) -> bool {
        self.all_sync
    }
}

impl Deref for Snapshot {
    type Target = [Arc<Entry>];

    fn deref(&self) -> &[Arc<Entry>] {
        &self.entries
    }
}

/// A snapshot being read. Loading one costs no lock and, on the hot path, no
/// reference-count traffic; a registration meanwhile swaps in a new snapshot
/// and leaves this one intact.
pub(crate) type Entries = Guard<Arc<Snapshot>>;

/// Every registered callback, by event.
pub(crate) struct Registry {
    hooks: [ArcSwap<Snapshot>; EVENT_COUNT],
    others: RwLock<HashMap<Box<str>, Arc<Snapshot>>>,
    /// Serialises writers so read-modify-write of a snapshot never loses an entry.
    write: Mutex<()>,
}

/// The shared empty snapshot (names nobody registered for load it without allocating).
fn empty() -> Arc<Snapshot> {
    static EMPTY: OnceLock<Arc<Snapshot>> = OnceLock::new();
    Arc::clone(EMPTY.get_or_init(|| Arc::new(Snapshot::new(Vec::new()))))
}

impl Registry {
    pub(crate) fn new() -> Self {
        Registry {
            hooks: std::array::from_fn(|_| ArcSwap::new(empty())),
            others: RwLock::new(HashMap::new()),
            write: Mutex::new(()),
        }
    }

    /// The entries registered for `name`.
    #[inline]
    pub(crate) fn entries(&self, name: &EventName) -> Entries {
        match name {
            EventName::Hook(event) => self.hooks[event.index()].load(),
            other => Guard::from_inner(
                self.others
                    .read()
                    .unwrap_or_else(|e| e.into_inner())
                    .get(other.as_str())
                    .cloned()
                    .unwrap_or_else(empty),
            ),
        }
    }

    /// Whether anything is registered for `name`.
    pub(crate) fn has(&self, name: &EventName) -> bool {
        !self.entries(name).is_empty()
    }

    /// Appends `entry` to the entries of `name`.
    pub(crate) fn push(&self, name: &EventName, entry: Arc<Entry>) {
        let _writer = self.write.lock().unwrap_or_else(|e| e.into_inner());
        let appended = |old: &Snapshot| -> Arc<Snapshot> {
            let entries = old
                .iter()
                .cloned()
                .chain(std::iter::once(Arc::clone(&entry)));
            Arc::new(Snapshot::new(entries.collect()))
        };
        match name {
            EventName::Hook(event) => {
                let slot = &self.hooks[event.index()];
                slot.store(appended(&slot.load()));
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
        // The snapshot without the selected entries, when it had any.
        let mut filtered = |snapshot: &Snapshot| -> Option<Arc<Snapshot>> {
            if !snapshot.iter().any(|entry| remove(entry)) {
                return None;
            }
            let (gone, kept): (Vec<_>, Vec<_>) =
                snapshot.iter().cloned().partition(|entry| remove(entry));
            removed.extend(gone);
            Some(Arc::new(Snapshot::new(kept)))
        };
        for slot in &self.hooks {
            if let Some(kept) = filtered(&slot.load()) {
                slot.store(kept);
            }
        }
        let mut map = self.others.write().unwrap_or_else(|e| e.into_inner());
        for slot in map.values_mut() {
            if let Some(kept) = filtered(slot) {
                *slot = kept;
            }
        }
        map.retain(|_, entries| !entries.is_empty());
        removed
    }

    /// Every entry of every event.
    pub(crate) fn all(&self) -> Vec<Arc<Entry>> {
        let mut all: Vec<Arc<Entry>> = Vec::new();
        for slot in &self.hooks {
            all.extend(slot.load().iter().cloned());
        }
        let map = self.others.read().unwrap_or_else(|e| e.into_inner());
        all.extend(map.values().flat_map(|entries| entries.iter().cloned()));
        all
    }

    /// The observer queues started so far (queued events' callbacks, lazily created).
    pub(crate) fn queues(&self) -> Vec<Arc<StreamQueue>> {
        self.all()
            .iter()
            .filter_map(|entry| entry.queue.get().cloned())
            .collect()
    }
}
