//! Every live tree of this process, so that all of them can be killed on the
//! way out ([`kill_all_trees`]): a signal ends the host before any `Drop` runs.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use super::kill;

/// What is needed to kill one tree without its `ChildTree`.
#[derive(Debug, Clone)]
pub(crate) struct Registered {
    /// The direct child's pid (and process group id).
    pub pid: u32,
    /// The direct child's start time (`/proc/<pid>/stat`), `0` when unknown:
    /// with the pid, it proves the child is still the one we spawned.
    pub start: u64,
    /// The tree's token.
    pub token: String,
    /// The tree's cgroup directory, when it has one.
    pub cgroup: Option<PathBuf>,
}

static LIVE: Mutex<BTreeMap<u64, Registered>> = Mutex::new(BTreeMap::new());

/// Adds a tree; the id removes it again.
pub(crate) fn register(tree: Registered) -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let id = NEXT.fetch_add(1, Ordering::Relaxed);
    LIVE.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(id, tree);
    id
}

/// Removes a tree (dropped, or detached on purpose).
pub(crate) fn unregister(id: u64) {
    LIVE.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .remove(&id);
}

/// How many trees are live (for tests and diagnostics).
pub fn live_trees() -> usize {
    LIVE.lock().unwrap_or_else(PoisonError::into_inner).len()
}

/// SIGKILLs every live tree this process started (each as
/// [`ChildTree::kill_tree`](super::ChildTree::kill_tree) would), for a host
/// on its way out: a signal handler that is about to exit, a shutdown.
///
/// Callable from any thread, with or without an async runtime; it does not
/// reap the direct children (the exiting process leaves that to init).
/// Trees stay registered: their `ChildTree`s, if ever dropped, kill again
/// harmlessly.
pub fn kill_all_trees() {
    let trees: Vec<Registered> = LIVE
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .values()
        .cloned()
        .collect();
    for tree in &trees {
        kill::kill_tree(&kill::Target {
            pgid: tree.pid,
            token: &tree.token,
            unreaped: unreaped(tree),
            cgroup: tree.cgroup.as_deref(),
        });
    }
    // The host is on its way out: its cgroups go now (they empty within
    // milliseconds), not at the next run.
    #[cfg(target_os = "linux")]
    for dir in trees.iter().filter_map(|tree| tree.cgroup.as_deref()) {
        super::cgroup::remove_dir(dir);
    }
}

/// Whether the tree's direct child is still our unreaped child: the pid's
/// parent is this process and it started when ours did (so the pid was not
/// reused; an unreaped child's pid cannot be).
#[cfg(target_os = "linux")]
fn unreaped(tree: &Registered) -> bool {
    let Ok(pid) = i32::try_from(tree.pid) else {
        return false;
    };
    tree.start != 0
        && std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|stat| super::procfs::parse_stat(pid, &stat))
            .is_some_and(|entry| {
                entry.start == tree.start && entry.ppid == std::process::id() as i32
            })
}

/// Without `/proc`, nothing proves the pid is still ours: only the group is killed.
#[cfg(not(target_os = "linux"))]
fn unreaped(_tree: &Registered) -> bool {
    true
}
