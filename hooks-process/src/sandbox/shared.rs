//! One user namespace (the user mapped to itself) and one empty network
//! namespace in it, made once per process and held by fds, which sandboxed
//! children enter with `setns` instead of creating both per spawn: creating
//! a network namespace, and above all tearing it down, is the slowest part
//! of a sandboxed spawn. Each child still gets its own mount namespace
//! (its private `/tmp`), cgroup namespace and Landlock domain.
//!
//! Hooks that share the network namespace share nothing reachable: its only
//! interface is a loopback that is down and that none of them can bring up
//! (no capability survives their `execve`), Landlock denies them TCP, and
//! abstract unix sockets, which belong to a network namespace, are scoped to
//! each hook's Landlock domain. That scope needs Landlock ABI 6: below it,
//! every spawn makes its own network namespace, as it does when the shared
//! ones cannot be made or entered here (checked once, in a forked child).
//!
//! The pair is made at the second sandboxed spawn of a process, not the
//! first: a one-shot process (`hooks test`) that runs one sandboxed hook
//! would pay for the holder and gain nothing.

use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use super::child::SharedFds;
use super::held::{hold_namespaces, probe_shared};

/// The Landlock ABI that scopes abstract unix sockets to a domain.
const ABSTRACT_SOCKET_SCOPE_ABI: i32 = 6;

/// The held namespaces and whom they map.
#[derive(Debug)]
struct Held {
    uid: u32,
    gid: u32,
    user: OwnedFd,
    net: OwnedFd,
}

/// The shared namespaces for a child of user `uid` / `gid` on a kernel with
/// Landlock `abi`; `None`: the child makes its own (today's path).
pub(crate) fn shared_namespaces(uid: u32, gid: u32, abi: i32) -> Option<SharedFds> {
    if abi < ABSTRACT_SOCKET_SCOPE_ABI {
        return None;
    }
    static SPAWNED: AtomicBool = AtomicBool::new(false);
    if !SPAWNED.swap(true, Ordering::Relaxed) {
        return None;
    }
    static HELD: OnceLock<Option<Held>> = OnceLock::new();
    let held = HELD.get_or_init(|| hold(uid, gid)).as_ref()?;
    (held.uid == uid && held.gid == gid).then(|| SharedFds {
        user: held.user.as_raw_fd(),
        net: held.net.as_raw_fd(),
    })
}

fn hold(uid: u32, gid: u32) -> Option<Held> {
    let uid_map = format!("{uid} {uid} 1\n");
    let gid_map = format!("{gid} {gid} 1\n");
    let made = hold_namespaces(uid_map.as_bytes(), gid_map.as_bytes()).and_then(|(user, net)| {
        probe_shared(SharedFds {
            user: user.as_raw_fd(),
            net: net.as_raw_fd(),
        })?;
        Ok((user, net))
    });
    match made {
        Ok((user, net)) => Some(Held {
            uid,
            gid,
            user,
            net,
        }),
        Err(error) => {
            tracing::debug!("no shared sandbox namespaces ({error}): one per spawn");
            None
        }
    }
}
