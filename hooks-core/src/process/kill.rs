//! Killing a whole tree: every process proven ours, in rounds until no new one appears.

use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;

/// What identifies one tree at kill time.
pub(crate) struct Target<'a> {
    /// The direct child's pid, which is also its process group id.
    pub pgid: u32,
    /// The tree's token (see [`TREE_ENV`](super::TREE_ENV)).
    pub token: &'a str,
    /// Whether the direct child is not reaped yet: its pid (and so the group
    /// id) cannot have been reused, so the group and its descendants are ours.
    pub unreaped: bool,
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

    let Ok(pgid) = i32::try_from(target.pgid) else {
        return;
    };
    let root = target.unreaped.then_some(pgid);
    let mut signalled: HashSet<i32> = HashSet::new();
    for _ in 0..MAX_ROUNDS {
        let ours = super::procfs::find(root, pgid, target.token);
        // The group is killed in one call when it is proven ours (the direct
        // child unreaped, or a member of ours still in it).
        if ours.group_is_ours {
            signal_group(pgid);
        }
        let mut fresh = false;
        for pid in ours.pids {
            signal(pid);
            fresh |= signalled.insert(pid);
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

/// SIGKILLs the tree's process group (other unix: no `/proc` to find the rest).
/// Once the direct child is reaped the group id could in theory be reused; the
/// group is still killed, as a hook's grandchild holding our pipes must die.
#[cfg(not(target_os = "linux"))]
pub(crate) fn kill_tree(target: &Target<'_>) {
    if let Ok(pgid) = i32::try_from(target.pgid) {
        signal_group(pgid);
    }
}

fn signal_group(pgid: i32) {
    // ESRCH (the group is already gone) is the expected, harmless failure.
    let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
}

#[cfg(target_os = "linux")]
fn signal(pid: i32) {
    // ESRCH: it died meanwhile; EPERM: it changed credentials (a setuid
    // program) and is beyond our reach either way.
    let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
}
