//! The kernel's record of what a sandboxed hook was denied, parent side
//! (red team round 7, R7c-3; the child's filter is `seccomp.rs`).
//!
//! [`Channel`] is the socketpair made before the fork; after a spawn the
//! child has sent its listener there (its `pre_exec` fails the spawn
//! otherwise), received without waiting. [`KernelRecord`] answers the
//! listener on a thread of its own. Each notification is read, recorded,
//! then let go on unchanged (`SECCOMP_USER_NOTIF_FLAG_CONTINUE`: the
//! sandbox still decides, the record changes nothing):
//! - an inet `socket()` is counted (a network the profile denies);
//! - a path look-up is read from the caller's memory: a path of the host's
//!   `/tmp` that exists there and not in the hook's private `/tmp` (seen
//!   through `/proc/<pid>/root`) is recorded, the first one kept. Opens
//!   that create are passed over (a hook's own temporary files).
//!
//! Recorded before it is answered, so when the direct child has exited
//! every call it made is in the record. The thread ends when no process of
//! the tree is left (`POLLHUP`), or once the tree was dropped and nothing
//! came for a second (a kernel without that `POLLHUP`): a detached
//! process's later recorded call then fails (`ENOSYS`).
//!
//! `unsafe` is allowed here for `recvmsg`, `poll`, `process_vm_readv` and
//! the seccomp ioctls.
#![allow(unsafe_code)]
// Compiled on Linux, used only with the `sandbox` feature.
#![cfg_attr(not(feature = "sandbox"), allow(dead_code))]

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use super::seccomp::{ARCHES, AUDIT_ARCH_X86_64};

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
    pub(crate) fn watch(self) -> io::Result<KernelRecord> {
        drop(self.child);
        let listener = receive_fd(&self.parent)?;
        // Linux 6.6+: the caller and this thread hand over on one CPU
        // (`SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP`), much faster per call;
        // older kernels refuse it and answer as before.
        // SAFETY: an ioctl whose argument is the flag itself.
        unsafe {
            libc::ioctl(
                listener.as_raw_fd(),
                libc::SECCOMP_IOCTL_NOTIF_SET_FLAGS,
                1u64,
            )
        };
        let record = KernelRecord::default();
        let shared = record.shared.clone();
        std::thread::Builder::new()
            .name("hooks-kernel-record".into())
            .spawn(move || answer(&listener, &shared))?;
        Ok(record)
    }
}

/// What the kernel told of a tree so far, kept by its thread.
#[derive(Debug, Default)]
pub(crate) struct KernelRecord {
    shared: Arc<Shared>,
}

#[derive(Debug, Default)]
struct Shared {
    network_attempts: AtomicU64,
    hidden_tmp: Mutex<Option<PathBuf>>,
    ended: AtomicBool,
}

impl KernelRecord {
    /// The inet sockets asked for so far.
    pub(crate) fn network_attempts(&self) -> u64 {
        self.shared.network_attempts.load(Ordering::SeqCst)
    }

    /// The first path of the host's `/tmp` its private `/tmp` hid.
    pub(crate) fn hidden_tmp(&self) -> Option<PathBuf> {
        let hidden = self.shared.hidden_tmp.lock();
        hidden.unwrap_or_else(PoisonError::into_inner).clone()
    }
}

impl Drop for KernelRecord {
    fn drop(&mut self) {
        self.shared.ended.store(true, Ordering::SeqCst);
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

/// Records and lets go each notification of `listener` until the tree is gone.
fn answer(listener: &OwnedFd, shared: &Shared) {
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
            if !let_go(listener, shared) {
                return;
            }
        } else if poll.revents != 0 || (ready == 0 && shared.ended.load(Ordering::SeqCst)) {
            return;
        }
    }
}

/// Receives one notification, records it and lets the call go on. `false`
/// when the listener is unusable.
fn let_go(listener: &OwnedFd, shared: &Shared) -> bool {
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
    record(listener, &notification, shared);
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

/// Records the call of `notification`: an inet socket, or a look-up of a
/// host `/tmp` path the private `/tmp` hides (the first one only).
fn record(listener: &OwnedFd, notification: &libc::seccomp_notif, shared: &Shared) {
    let data = &notification.data;
    let Some(calls) = ARCHES.iter().find(|calls| calls.arch == data.arch) else {
        return;
    };
    let nr = data.nr as u32;
    let x32_socket = calls.arch == AUDIT_ARCH_X86_64 && nr == calls.socket | 0x4000_0000;
    if nr == calls.socket || x32_socket {
        shared.network_attempts.fetch_add(1, Ordering::SeqCst);
        return;
    }
    let Some((_, path_arg, flags_arg)) = calls.lookups.iter().find(|(call, _, _)| *call == nr)
    else {
        return;
    };
    let creates = flags_arg.is_some_and(|at| data.args[at] & libc::O_CREAT as u64 != 0);
    let mut hidden = shared
        .hidden_tmp
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    if creates || hidden.is_some() {
        return;
    }
    let Some(path) = read_path(notification.pid, data.args[*path_arg]) else {
        return;
    };
    // Read while the call waits: the caller (and so its memory) is still
    // the one notified, unless it died and its pid was reused meanwhile.
    let mut id = notification.id;
    // SAFETY: the ioctl reads the u64 it is given.
    let valid = unsafe {
        libc::ioctl(
            listener.as_raw_fd(),
            libc::SECCOMP_IOCTL_NOTIF_ID_VALID,
            &mut id,
        )
    };
    if valid == 0 {
        *hidden = hidden_by_private_tmp(notification.pid, &path);
    }
}

/// The NUL-terminated path at `address` in the memory of `pid`, read a
/// page at a time (a path may end just before an unmapped page).
fn read_path(pid: u32, address: u64) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    const PAGE: u64 = 4096;
    let mut path = Vec::new();
    let mut at = address;
    while path.len() < libc::PATH_MAX as usize {
        let mut chunk = [0u8; PAGE as usize];
        let len = (PAGE - at % PAGE) as usize;
        let local = libc::iovec {
            iov_base: chunk.as_mut_ptr().cast(),
            iov_len: len,
        };
        let remote = libc::iovec {
            iov_base: at as *mut libc::c_void,
            iov_len: len,
        };
        // SAFETY: reads at most `len` bytes into `chunk`, which holds them;
        // the remote address is only read by the kernel, for the caller.
        let read = unsafe { libc::process_vm_readv(pid as libc::pid_t, &local, 1, &remote, 1, 0) };
        let read = usize::try_from(read).ok().filter(|read| *read > 0)?;
        match chunk[..read].iter().position(|byte| *byte == 0) {
            Some(end) => {
                path.extend_from_slice(&chunk[..end]);
                return Some(PathBuf::from(std::ffi::OsStr::from_bytes(&path)));
            }
            None => path.extend_from_slice(&chunk[..read]),
        }
        at += read as u64;
    }
    None
}

/// `path` when it is beneath the host's `/tmp` (plainly: no `..`), exists
/// there, and does not in the private `/tmp` of `pid` (seen through
/// `/proc/<pid>/root`).
fn hidden_by_private_tmp(pid: u32, path: &Path) -> Option<PathBuf> {
    let rest = path.strip_prefix("/tmp").ok()?;
    let plain = rest
        .components()
        .all(|part| matches!(part, Component::Normal(_)));
    if rest.as_os_str().is_empty() || !plain {
        return None;
    }
    std::fs::symlink_metadata(path).ok()?;
    let seen = Path::new(&format!("/proc/{pid}/root/tmp")).join(rest);
    match std::fs::symlink_metadata(&seen) {
        Err(error) if error.kind() == io::ErrorKind::NotFound => Some(path.to_path_buf()),
        _ => None,
    }
}
