//! The two short-lived forks made once per process for the shared
//! namespaces (see `shared.rs`): a holder that enters a new user and
//! network namespace for the parent to open, and a probe that checks a
//! spawn could enter them. Raw syscalls only, as in `child.rs`: each child
//! makes async-signal-safe calls on data made before the fork, then
//! `_exit`s; `unsafe` is allowed here for that reason.
#![allow(unsafe_code)]

use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};

use super::child::{SharedFds, check, write_file};

/// Forks a holder that enters a new user namespace (mapping `uid_map` /
/// `gid_map`) with a new network namespace, opens both namespaces from
/// `/proc/<holder>/ns` (close-on-exec), then lets the holder exit: the fds
/// keep the namespaces alive. An error where user namespaces are refused.
pub(crate) fn hold_namespaces(uid_map: &[u8], gid_map: &[u8]) -> io::Result<(OwnedFd, OwnedFd)> {
    let (ready_read, ready_write) = pipe()?;
    let (hold_read, hold_write) = pipe()?;
    // SAFETY: the child only makes async-signal-safe syscalls (close_range,
    // unshare, open, write, read, _exit) on data made before the fork.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(io::Error::last_os_error());
    }
    if pid == 0 {
        let (ready, hold) = (ready_write.as_raw_fd(), hold_read.as_raw_fd());
        close_all_but(ready, hold);
        // SAFETY: unshare with flags only.
        let entered = check(unsafe { libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNET) })
            .and_then(|()| write_file(c"/proc/self/setgroups", b"deny"))
            .and_then(|()| write_file(c"/proc/self/uid_map", uid_map))
            .and_then(|()| write_file(c"/proc/self/gid_map", gid_map));
        let status = [u8::from(entered.is_err())];
        let mut byte = [0u8; 1];
        // SAFETY: writes and reads of local buffers on the pipes above, then
        // _exit, which never returns (no destructor runs in the child).
        unsafe {
            libc::write(ready, status.as_ptr().cast(), 1);
            // Until the parent has opened the namespaces (or died).
            libc::read(hold, byte.as_mut_ptr().cast(), 1);
            libc::_exit(0);
        }
    }
    drop((ready_write, hold_read));
    let mut status = [1u8; 1];
    let read = rustix::io::read(&ready_read, &mut status);
    let held = match read {
        Ok(1) if status[0] == 0 => open_namespaces(pid),
        _ => Err(io::Error::other(
            "the namespace holder could not enter them",
        )),
    };
    drop(hold_write);
    let mut exit = 0;
    // SAFETY: waits for the holder forked above (our own child).
    unsafe { libc::waitpid(pid, &mut exit, 0) };
    held
}

fn open_namespaces(pid: libc::pid_t) -> io::Result<(OwnedFd, OwnedFd)> {
    let open = |kind: &str| -> io::Result<OwnedFd> {
        Ok(std::fs::File::open(format!("/proc/{pid}/ns/{kind}"))?.into())
    };
    Ok((open("user")?, open("net")?))
}

/// Checks in a forked child that `shared` can be entered the way a spawn
/// enters it (setns into both, a new mount namespace); `Ok` if it could.
pub(crate) fn probe_shared(shared: SharedFds) -> io::Result<()> {
    // SAFETY: the child only makes raw syscalls, then _exit.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(io::Error::last_os_error());
    }
    if pid == 0 {
        // SAFETY: setns / unshare with fds and flags; _exit never returns.
        unsafe {
            let entered = libc::setns(shared.user, libc::CLONE_NEWUSER) == 0
                && libc::setns(shared.net, libc::CLONE_NEWNET) == 0
                && libc::unshare(libc::CLONE_NEWNS | libc::CLONE_NEWCGROUP) == 0;
            libc::_exit(if entered { 0 } else { 1 });
        }
    }
    let mut status = 0;
    // SAFETY: waits for the child forked above.
    if unsafe { libc::waitpid(pid, &mut status, 0) } != pid {
        return Err(io::Error::last_os_error());
    }
    if libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0 {
        Ok(())
    } else {
        Err(io::Error::other("the held namespaces cannot be entered"))
    }
}

fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    use std::os::fd::FromRawFd;
    let mut fds = [0 as RawFd; 2];
    // SAFETY: pipe2 fills the two-int array it is given.
    check(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) })?;
    // SAFETY: both fds were just opened and are owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Closes every fd of the (forked) process above stdio but `one` and
/// `other`: the holder must not keep another child's pipe open.
fn close_all_but(one: RawFd, other: RawFd) {
    let (low, high) = (one.min(other) as u32, one.max(other) as u32);
    for (first, last) in [
        (3, low.saturating_sub(1)),
        (low + 1, high.saturating_sub(1)),
        (high + 1, u32::MAX),
    ] {
        if first.max(3) <= last {
            // SAFETY: close_range with numbers only.
            unsafe { libc::syscall(libc::SYS_close_range, first.max(3), last, 0u32) };
        }
    }
}
