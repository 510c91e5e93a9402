//! The kernel's record of a sandboxed hook's network attempts, parent side
//! (red team round 7, R7c-3; the child's filter is `seccomp.rs`).
//!
//! [`Channel`] is the socketpair made before the fork; after a spawn the
//! child has sent its listener there (its `pre_exec` fails the spawn
//! otherwise), received without waiting. [`NetworkWatch`] answers the
//! listener on a thread of its own: each notification (an inet `socket()`
//! of the hook's tree) is counted, then let go on unchanged
//! (`SECCOMP_USER_NOTIF_FLAG_CONTINUE`: the empty network namespace still
//! denies, the record changes nothing). Counted before it is answered, so
//! when the direct child has exited every attempt it made is in the count.
//! The thread ends when no process of the tree is left (`POLLHUP`), or
//! once the tree was dropped and nothing came for a second (a kernel
//! without that `POLLHUP`): a detached process's later `socket()` then
//! fails (`ENOSYS`), as it could reach nothing anyway.
//!
//! `unsafe` is allowed here for `recvmsg`, `poll` and the seccomp ioctls.
#![allow(unsafe_code)]

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Both ends of the socketpair the child's listener comes over.
#[derive(Debug)]
pub(crate) struct Channel {
    /// The parent's end.
    parent: OwnedFd,
    /// The child's end (close-on-exec: the hook never holds it).
    child: OwnedFd,
}

impl Channel {
    /// A new socketpair, both ends close-on-exec.
    pub(crate) fn new() -> io::Result<Channel> {
        let mut fds = [-1; 2];
        // SAFETY: socketpair fills the two ints of `fds`.
        let made = unsafe {
            libc::socketpair(
                libc::AF_UNIX,
                libc::SOCK_STREAM | libc::SOCK_CLOEXEC,
                0,
                fds.as_mut_ptr(),
            )
        };
        if made != 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: two fresh fds, owned from here on.
        let (parent, child) =
            unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        Ok(Channel { parent, child })
    }

    /// The child's end, for its plan (valid while this channel lives).
    pub(crate) fn child_end(&self) -> RawFd {
        self.child.as_raw_fd()
    }

    /// Receives the listener the child sent and starts answering it.
    pub(crate) fn watch(self) -> io::Result<NetworkWatch> {
        drop(self.child);
        let listener = receive_fd(&self.parent)?;
        let watch = NetworkWatch::default();
        let (attempts, ended) = (watch.attempts.clone(), watch.ended.clone());
        std::thread::Builder::new()
            .name("hooks-network-record".into())
            .spawn(move || answer(&listener, &attempts, &ended))?;
        Ok(watch)
    }
}

/// The count of a tree's inet `socket()` calls, kept by its thread.
#[derive(Debug, Default)]
pub(crate) struct NetworkWatch {
    attempts: Arc<AtomicU64>,
    ended: Arc<AtomicBool>,
}

impl NetworkWatch {
    /// The attempts counted so far.
    pub(crate) fn attempts(&self) -> u64 {
        self.attempts.load(Ordering::SeqCst)
    }
}

impl Drop for NetworkWatch {
    fn drop(&mut self) {
        self.ended.store(true, Ordering::SeqCst);
    }
}

/// The fd sent with one byte over `channel`, without waiting: the child
/// sent it before `execve`, so it is there after a successful spawn.
fn receive_fd(channel: &OwnedFd) -> io::Result<OwnedFd> {
    let mut byte = [0u8];
    let mut iov = libc::iovec {
        iov_base: byte.as_mut_ptr().cast(),
        iov_len: 1,
    };
    let mut control = [0u64; 8];
    // SAFETY: a zeroed msghdr is valid; the fields set point at live buffers.
    let mut message: libc::msghdr = unsafe { std::mem::zeroed() };
    message.msg_iov = &mut iov;
    message.msg_iovlen = 1;
    message.msg_control = control.as_mut_ptr().cast();
    message.msg_controllen = size_of_val(&control) as _;
    let flags = libc::MSG_DONTWAIT | libc::MSG_CMSG_CLOEXEC;
    // SAFETY: as above.
    let received = unsafe { libc::recvmsg(channel.as_raw_fd(), &mut message, flags) };
    if received < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the kernel filled the control buffer and its length.
    let header = unsafe { libc::CMSG_FIRSTHDR(&message) };
    // SAFETY: a header the kernel wrote, checked non-null first.
    let fd = unsafe {
        (!header.is_null()
            && (*header).cmsg_level == libc::SOL_SOCKET
            && (*header).cmsg_type == libc::SCM_RIGHTS)
            .then(|| std::ptr::read_unaligned(libc::CMSG_DATA(header).cast::<libc::c_int>()))
    };
    match fd {
        // SAFETY: a fresh fd the kernel installed for us.
        Some(fd) if fd >= 0 => Ok(unsafe { OwnedFd::from_raw_fd(fd) }),
        _ => Err(io::Error::other(
            "the sandboxed child sent no network record",
        )),
    }
}

/// Counts and lets go each notification of `listener` until the tree is gone.
fn answer(listener: &OwnedFd, attempts: &AtomicU64, ended: &AtomicBool) {
    loop {
        let mut poll = libc::pollfd {
            fd: listener.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one pollfd, alive for the call.
        let ready = unsafe { libc::poll(&mut poll, 1, 1000) };
        if ready < 0 {
            if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return;
        }
        if poll.revents & libc::POLLIN != 0 {
            if !let_go(listener, attempts) {
                return;
            }
        } else if poll.revents != 0 || (ready == 0 && ended.load(Ordering::SeqCst)) {
            return;
        }
    }
}

/// Receives one notification, counts it and lets the call go on. `false`
/// when the listener is unusable.
fn let_go(listener: &OwnedFd, attempts: &AtomicU64) -> bool {
    // SAFETY: a zeroed seccomp_notif, as NOTIF_RECV requires.
    let mut notification: libc::seccomp_notif = unsafe { std::mem::zeroed() };
    // SAFETY: the ioctl fills the struct it is given.
    let received = unsafe {
        libc::ioctl(
            listener.as_raw_fd(),
            libc::SECCOMP_IOCTL_NOTIF_RECV,
            &mut notification,
        )
    };
    if received < 0 {
        // ENOENT: the caller went away (killed, interrupted) before we read it.
        return matches!(
            io::Error::last_os_error().raw_os_error(),
            Some(libc::ENOENT | libc::EINTR)
        );
    }
    attempts.fetch_add(1, Ordering::SeqCst);
    let mut response = libc::seccomp_notif_resp {
        id: notification.id,
        val: 0,
        error: 0,
        flags: libc::SECCOMP_USER_NOTIF_FLAG_CONTINUE as u32,
    };
    // SAFETY: the ioctl reads the struct it is given. ENOENT (the caller
    // was killed meanwhile) is no error of ours.
    unsafe {
        libc::ioctl(
            listener.as_raw_fd(),
            libc::SECCOMP_IOCTL_NOTIF_SEND,
            &mut response,
        )
    };
    true
}
