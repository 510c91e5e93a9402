//! Killing a whole tree: every process proven ours, in rounds until no new one appears.

use std::path::Path;

use rustix::process::{Pid, Signal, kill_process_group};

/// What identifies one tree at kill time.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub(crate) struct Target<'a> {
    /// The direct child's pid, which is also its process group id.
    pub pgid: u32,
    /// The tree's token (see [`TREE_ENV`](super::TREE_ENV)).
    pub token: &'a str,
    /// Whether the direct child is not reaped yet: its pid (and so the group
    /// id) cannot have been reused, so the group and its descendants are ours.
    pub unreaped: bool,
    /// The tree's cgroup, when it has one: everything in it is killed first.
    pub cgroup: Option<&'a Path>,
    /// The inodes of the tree's pipes: whoever holds one is of the tree.
    pub pipes: &'a [u64],
}

/// A process may fork between one scan and the kill that follows; its child
/// inherits the token and is found in the next round. A process that has been
/// sent SIGKILL cannot fork again, so the rounds end; this bounds them anyway.
#[cfg(target_os = "linux")]
const MAX_ROUNDS: usize = 16;

/// SIGKILLs every process of the tree (Linux: found through `/proc`, see
/// [`procfs`](super::procfs)).
#[cfg(target_os = "linux")]
pub(crate) fn kill_tree(target: &Target<'_>) {
    use std::collections::HashSet;

    use super::procfs;

    let Ok(pgid) = i32::try_from(target.pgid) else {
        return;
    };
    let root = target.unreaped.then_some(pgid);
    let find = |table: &[procfs::Entry]| {
        let mut marked = procfs::marked(table, target.token);
        marked.extend(super::holders::holders(target.pipes));
        procfs::members(table, root, pgid, |pid| marked.contains(&pid))
    };
    // Stopped first, the cgroup's and the rest alike: killing the cgroup
    // would orphan whatever left it before the table below names it (see
    // `stop`). Then the cgroup, which holds what the tree started, whatever
    // it did with its environment, session or parentage, in one write.
    let stopped = super::stop::stop_tree(pgid, root.is_some(), find);
    let mut signalled: HashSet<(i32, u64)> = HashSet::new();
    // Descendants before their ancestors, the direct child last: when the
    // last member linking a process group to its session dies while others
    // of the group are stopped, the kernel sends that group SIGHUP and
    // SIGCONT, and a member that survives the hangup (a pid namespace's
    // init ignores it; a shell may trap it) runs again until its own
    // SIGKILL arrives. Killed in this order, whatever that orphans is
    // already bound to die and runs no more code of its own.
    for entry in kill_order(&stopped, root) {
        if Some(entry.pid) == root {
            // The whole group at once (the kernel sends it under the lock a
            // dying member needs to orphan it): found or not, none of it runs again.
            signal_group(pgid, Signal::KILL);
        }
        signal_exactly(entry.pid, entry.start, Signal::KILL);
        signalled.insert((entry.pid, entry.start));
    }
    if let Some(dir) = target.cgroup {
        super::cgroup::kill_dir(dir);
    }
    for _ in 0..MAX_ROUNDS {
        // Read the table before killing anything: a killed parent's children
        // are reparented at once, and the parent links are what find them.
        let table = procfs::snapshot();
        if table.is_empty() {
            // No `/proc` (it lists this process at least): the group is all we can find.
            signal_group(pgid, Signal::KILL);
            return;
        }
        let ours = find(&table);
        if root.is_some() {
            // The whole group in one call. Only while the child is unreaped:
            // afterwards the group id proves nothing, and the members proven
            // ours are signalled one by one below.
            signal_group(pgid, Signal::KILL);
        }
        let mut fresh = false;
        for entry in table.iter().filter(|entry| ours.contains(&entry.pid)) {
            signal_exactly(entry.pid, entry.start, Signal::KILL);
            fresh |= signalled.insert((entry.pid, entry.start));
        }
        if !fresh {
            return;
        }
    }
    tracing::warn!(
        "process tree {} still forking after {MAX_ROUNDS} kill rounds",
        target.pgid
    );
}

/// The order in which the stopped processes of a tree are killed: every
/// process after all its descendants (by the parent links among them), the
/// direct child `root` (while unreaped) after everything else.
#[cfg(target_os = "linux")]
fn kill_order(stopped: &[super::procfs::Entry], root: Option<i32>) -> Vec<super::procfs::Entry> {
    use std::collections::HashMap;

    let parents: HashMap<i32, i32> = stopped.iter().map(|e| (e.pid, e.ppid)).collect();
    // How many of its ancestors were stopped with it (bounded: a parent link
    // read from two tables cannot make a cycle, but it costs nothing to be sure).
    let depth = |pid: i32| {
        let (mut at, mut depth) = (pid, 0);
        while let Some(parent) = parents.get(&at).filter(|p| parents.contains_key(p)) {
            if depth == stopped.len() {
                break;
            }
            (at, depth) = (*parent, depth + 1);
        }
        depth
    };
    let mut order: Vec<(bool, std::cmp::Reverse<usize>, super::procfs::Entry)> = stopped
        .iter()
        .map(|e| (Some(e.pid) == root, std::cmp::Reverse(depth(e.pid)), *e))
        .collect();
    order.sort_by_key(|(is_root, depth, e)| (*is_root, *depth, e.pid));
    order.into_iter().map(|(_, _, e)| e).collect()
}

/// SIGKILLs the tree's process group (other unix: no `/proc` to find the rest).
/// Once the direct child is reaped the group id could in theory be reused; the
/// group is still killed, as a grandchild holding our pipes must die.
#[cfg(not(target_os = "linux"))]
pub(crate) fn kill_tree(target: &Target<'_>) {
    if let Ok(pgid) = i32::try_from(target.pgid) {
        signal_group(pgid, Signal::KILL);
    }
}

/// Sends `signal` to process group `pgid`.
pub(crate) fn signal_group(pgid: i32, signal: Signal) {
    if let Some(pgid) = Pid::from_raw(pgid) {
        // ESRCH (the group is already gone) is the expected, harmless failure.
        let _ = kill_process_group(pgid, signal);
    }
}

/// Sends `signal` to process `pid` if it is still the one that started at `start`.
///
/// A pidfd pins the process: the start time read after opening it is that of
/// the process the pidfd refers to, so a pid reused since the scan is never
/// signalled. Kernels without pidfds (before 5.3) get a plain kill right after
/// the same check.
#[cfg(target_os = "linux")]
pub(crate) fn signal_exactly(pid: i32, start: u64, signal: Signal) {
    use rustix::process::{PidfdFlags, kill_process, pidfd_open, pidfd_send_signal};

    let Some(raw) = Pid::from_raw(pid) else {
        return;
    };
    let pidfd = pidfd_open(raw, PidfdFlags::empty());
    if super::procfs::start_of(pid) != Some(start) {
        return;
    }
    // ESRCH: it died meanwhile; EPERM: it changed credentials (a setuid
    // program) and is beyond our reach either way.
    let _ = match pidfd {
        Ok(pidfd) => pidfd_send_signal(&pidfd, signal),
        Err(_) => kill_process(raw, signal),
    };
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::super::procfs::Entry;
    use super::kill_order;

    fn entry(pid: i32, ppid: i32) -> Entry {
        Entry {
            pid,
            ppid,
            pgid: 100,
            start: 0,
            zombie: false,
        }
    }

    #[test]
    fn descendants_die_before_ancestors_and_the_direct_child_last() {
        // 100: the direct child; 101: its `unshare`; 102: the namespace's
        // init; 103: the init's `sleep`; 104: a `sleep` of 100; 150: an
        // orphan of the group, reparented to init.
        let stopped = [
            entry(100, 7),
            entry(101, 100),
            entry(104, 100),
            entry(102, 101),
            entry(150, 1),
            entry(103, 102),
        ];
        let order: Vec<i32> = kill_order(&stopped, Some(100))
            .iter()
            .map(|e| e.pid)
            .collect();
        let at = |pid: i32| order.iter().position(|p| *p == pid).expect("ordered");
        assert_eq!(order.len(), stopped.len());
        assert_eq!(order.last(), Some(&100));
        assert!(at(103) < at(102) && at(102) < at(101));
        assert!(at(150) < at(100) && at(104) < at(100));
        // Reaped: no root, still children first.
        let order: Vec<i32> = kill_order(&stopped[1..], None)
            .iter()
            .map(|e| e.pid)
            .collect();
        assert_eq!(order.first(), Some(&103));
    }
}
