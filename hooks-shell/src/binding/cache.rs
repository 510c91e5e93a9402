//! Tree digests (and file hashes) computed once per load, or once per run of
//! an event, however many hooks bind the same roots (or run the same file).
//!
//! Every project hook of a settings file binds the same tool folder: hashed
//! once per hook, a load would take hooks × tree size (30,000 handlers over a
//! few MB: minutes). While a [`TreeCache`] is entered on a thread, each
//! distinct list of roots is walked once and its [`TreeSum`] (or the reason it
//! cannot be bound) reused by every hook of that load. A load enters a fresh
//! cache; the check right before a run enters one per dispatch of an event, so
//! the tree is still hashed again on every run, and the checked copy of a
//! tree ([`Snapshot`]) taken once per run is shared by the hooks that bind it.
//! The check after a run that went by the paths never uses a cache.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::marker::PhantomData;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use super::BindError;
use super::tree::TreeSum;
use crate::snapshot::Snapshot;

type Sums = HashMap<Vec<PathBuf>, Result<TreeSum, BindError>>;
/// What a hook tree's code names ([`super::mentions::Names`]), by the
/// project, folder and roots it was read for.
type Mentions = HashMap<Vec<PathBuf>, Result<Arc<super::mentions::Names>, BindError>>;

/// The tree digests of one load or one run (see the module documentation).
/// Clones share the digests.
#[derive(Debug, Clone, Default)]
pub struct TreeCache {
    sums: Arc<Mutex<Sums>>,
    files: Arc<Mutex<HashMap<PathBuf, String>>>,
    mentions: Arc<Mutex<Mentions>>,
    snapshots: Arc<Mutex<HashMap<Vec<PathBuf>, Arc<Snapshot>>>>,
}

thread_local! {
    static CURRENT: RefCell<Option<TreeCache>> = const { RefCell::new(None) };
    static WALKS: Cell<usize> = const { Cell::new(0) };
    static READINGS: Cell<usize> = const { Cell::new(0) };
}

impl TreeCache {
    /// An empty cache.
    pub fn new() -> TreeCache {
        TreeCache::default()
    }

    /// Uses this cache for tree digests on this thread until the guard is
    /// dropped (the previous one, if any, then applies again). The guard is
    /// not `Send`: it cannot be held across an `.await` of a spawned task.
    pub fn enter(&self) -> TreeCacheEntered {
        let previous = CURRENT.with(|current| current.replace(Some(self.clone())));
        TreeCacheEntered {
            previous,
            _not_send: PhantomData,
        }
    }

    /// How many distinct root lists it holds.
    pub fn len(&self) -> usize {
        self.sums
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The checked copy of `roots` taken in this run, else `take()`'s
    /// (kept for the other hooks of the run when it succeeds).
    pub(crate) fn snapshot(
        &self,
        roots: &[PathBuf],
        take: impl FnOnce() -> Result<Snapshot, BindError>,
    ) -> Result<Arc<Snapshot>, BindError> {
        let mut snapshots = self
            .snapshots
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(snapshot) = snapshots.get(roots) {
            return Ok(Arc::clone(snapshot));
        }
        let snapshot = Arc::new(take()?);
        snapshots.insert(roots.to_vec(), Arc::clone(&snapshot));
        Ok(snapshot)
    }
}

/// While alive, [`TreeCache::enter`]'s cache is used on this thread.
#[derive(Debug)]
#[must_use = "the cache applies only while the guard lives"]
pub struct TreeCacheEntered {
    previous: Option<TreeCache>,
    _not_send: PhantomData<*const ()>,
}

impl Drop for TreeCacheEntered {
    fn drop(&mut self) {
        let previous = self.previous.take();
        CURRENT.with(|current| *current.borrow_mut() = previous);
    }
}

/// `roots`' sum from the entered cache, else `walk()` (stored there).
pub(super) fn cached(
    roots: &[PathBuf],
    walk: impl FnOnce() -> Result<TreeSum, BindError>,
) -> Result<TreeSum, BindError> {
    let Some(cache) = CURRENT.with(|current| current.borrow().clone()) else {
        return walk();
    };
    // Held while walking: another thread sharing the cache waits for the
    // sum instead of walking the same tree.
    let mut sums = cache.sums.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(sum) = sums.get(roots) {
        return sum.clone();
    }
    let sum = walk();
    sums.insert(roots.to_vec(), sum.clone());
    sum
}

/// `path`'s hash ([`crate::fingerprint::content_or_metadata`]) from the
/// entered cache, else `hash()` (stored there).
pub(super) fn cached_file(path: &std::path::Path, hash: impl FnOnce() -> String) -> String {
    let Some(cache) = CURRENT.with(|current| current.borrow().clone()) else {
        return hash();
    };
    let mut files = cache.files.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(known) = files.get(path) {
        return known.clone();
    }
    let known = hash();
    files.insert(path.to_owned(), known.clone());
    known
}

/// What the roots of `key` name, from the entered cache, else `read()`
/// (stored there).
pub(super) fn cached_named(
    key: &[PathBuf],
    read: impl FnOnce() -> Result<Arc<super::mentions::Names>, BindError>,
) -> Result<Arc<super::mentions::Names>, BindError> {
    let Some(cache) = CURRENT.with(|current| current.borrow().clone()) else {
        return read();
    };
    let mut mentions = cache
        .mentions
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    if let Some(known) = mentions.get(key) {
        return known.clone();
    }
    let known = read();
    mentions.insert(key.to_vec(), known.clone());
    known
}

/// Counts one tree walk on this thread.
pub(super) fn count_walk() {
    WALKS.with(|walks| walks.set(walks.get() + 1));
}

/// How many tree digests were walked (not taken from a cache) on this
/// thread so far: tests count the work of a load with it.
#[doc(hidden)]
pub fn tree_walks_on_this_thread() -> usize {
    WALKS.with(Cell::get)
}

/// Counts one reading of what a hook runs on this thread.
pub(super) fn count_reading() {
    READINGS.with(|readings| readings.set(readings.get() + 1));
}

/// How many times what a hook runs was read ([`super::Subject::identify`])
/// on this thread so far: tests count the work of a run nobody is asked
/// for with it.
#[doc(hidden)]
pub fn readings_on_this_thread() -> usize {
    READINGS.with(Cell::get)
}
