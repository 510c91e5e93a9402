//! Stopping a whole tree before any of it is killed (Linux).
//!
//! A tree's cgroup does not always hold it: a process can write its pid to
//! any `cgroup.procs` it may write. Root can (the kernel checks the cgroup
//! namespace on a move only when the cgroup2 mount has `nsdelegate`, and root
//! may `setns` back into the host's cgroup namespace anyway), and so can the
//! owner of a delegated subtree, within it. Killing the cgroup first then kills
//! the hook, and a descendant that moved out is orphaned (reparented to init)
//! before the process table is read: the parent link that proved it the tree's
//! is gone, and so is its mark if it dropped its environment.
//!
//! So every process found as the tree's (same rules as the kill) is first sent
//! `SIGSTOP`, which no process can catch, ignore or block, in rounds until a
//! round finds none it has not stopped. A stopped process cannot fork or exit,
//! so the parent links hold while the rest is found; a fork under way when the
//! signal arrives is restarted by the kernel after it. Then everything stopped
//! is killed along with the cgroup, descendants before their ancestors (see
//! `kill.rs`): the kernel resumes a stopped process group that the death of
//! its last link to its session orphans (`SIGHUP`, then `SIGCONT`), so the
//! link must die last. That is why the processes are returned with their
//! parent links.

use std::collections::{HashMap, HashSet};

use rustix::process::Signal;

use super::procfs::Entry;

/// Bounds the rounds (a stopped process forks no more, so they end sooner).
const MAX_ROUNDS: usize = 16;

/// A process, named so that a reused pid is never mistaken for it.
pub(crate) type Exact = (i32, u64);

/// Stops every process `find` returns from a fresh process table, round after
/// round, until a round finds no new one; the group `pgid` too when `group`
/// (it is proven ours). Returns what was stopped, for the kill that follows,
/// each as the latest table showed it (its parent link included).
pub(crate) fn stop_tree(
    pgid: i32,
    group: bool,
    find: impl Fn(&[Entry]) -> HashSet<i32>,
) -> Vec<Entry> {
    let mut stopped: HashMap<Exact, Entry> = HashMap::new();
    for _ in 0..MAX_ROUNDS {
        let table = super::procfs::snapshot();
        if table.is_empty() {
            break; // no `/proc`: the kill signals the group
        }
        if group {
            super::kill::signal_group(pgid, Signal::STOP);
        }
        let ours = find(&table);
        let mut fresh = false;
        for entry in table.iter().filter(|entry| ours.contains(&entry.pid)) {
            if stopped.insert((entry.pid, entry.start), *entry).is_none() {
                super::kill::signal_exactly(entry.pid, entry.start, Signal::STOP);
                fresh = true;
            }
        }
        if !fresh {
            return stopped.into_values().collect();
        }
    }
    tracing::warn!("process tree {pgid} still forking after {MAX_ROUNDS} stop rounds");
    stopped.into_values().collect()
}
