//! The kernel's record of what a sandboxed hook was denied, parent side
//! (red team round 7, R7c-3; round 9, R9-4; the child's filter is
//! `seccomp.rs`).
//!
//! [`Channel`] is the socketpair made before the fork. [`Channel::listen`]
//! starts, before the fork too, the thread that receives the listener the
//! child sends (its `pre_exec` fails the spawn otherwise) and answers it:
//! the hook's own `execve` is a recorded call, answered while the spawn
//! waits for it. Each notification is read, recorded, then let go on
//! unchanged (`SECCOMP_USER_NOTIF_FLAG_CONTINUE`: the sandbox still
//! decides, the record changes nothing):
//! - an inet `socket()` is counted (a network the profile denies);
//! - a path look-up (`recorded_path.rs`): a path of the host's `/tmp` that
//!   exists there and not in the hook's private `/tmp` (seen through
//!   `/proc/<pid>/root`; a relative one read from the caller's working
//!   folder or `dirfd`) is recorded, the first one kept. Opens that create
//!   are passed over (a hook's own temporary files);
//! - a `connect()` to a unix socket (`recorded_socket.rs`): one the host
//!   has and the hook cannot reach (masked, hidden by its private `/tmp`,
//!   an abstract one cut off) is recorded, the first one kept.
//!
//! Recorded before it is answered, so when the direct child has exited
//! every call it made is in the record. The thread ends when no process of
//! the tree is left (`POLLHUP`), or once the tree was dropped and nothing
//! came for a second (a kernel without that `POLLHUP`): a detached
//! process's later recorded call then fails (`ENOSYS`). A spawn that fails
//! before the child sent its listener ends it as well (the socketpair hangs
//! up).
//!
//! `unsafe` is allowed here for `recvmsg`, `poll`, `process_vm_readv`
//! (the caller's memory) and the seccomp ioctls.
#![allow(unsafe_code)]
// Compiled on Linux, used only with the `sandbox` feature.
#![cfg_attr(not(feature = "sandbox"), allow(dead_code))]

use std::ffi::OsStr;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use super::recorded_path::{absolute, hidden_by_private_tmp};
use super::recorded_socket::unreachable_socket;
use super::seccomp::{ARCHES, AUDIT_ARCH_X86_64, Lookup};

/// Both ends of the socketpair the child's listener comes over.
#[derive(Debug)]
pub(crate) struct Channel {
    /// The parent's end.
    parent: OwnedFd,
    /// The child's end (close-on-exec: the hook never holds it).
    child: OwnedFd,
    /// Whether the sandbox cuts abstract unix sockets off.
    abstract_denied: bool,
}

/// A channel being listened on: the record, and the child's end to close
/// once the spawn is over.
#[derive(Debug)]
pub(crate) struct Listening {
    record: KernelRecord,
    child_end: OwnedFd,
}

impl Listening {
    /// The spawn is over (the child sent its listener, or never will): the
    /// child's end is closed (a thread still waiting then sees the hang-up),
    /// the record kept.
    pub(crate) fn spawned(self) -> KernelRecord {
        drop(self.child_end);
        self.record
    }
}

impl Channel {
    /// A new socketpair, both ends close-on-exec, for a sandbox that cuts
    /// abstract unix sockets off or not.
    pub(crate) fn new(abstract_denied: bool) -> io::Result<Channel> {
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
        Ok(Channel {
            parent,
            child,
            abstract_denied,
        })
    }

    /// The child's end, for its plan (valid while this channel lives).
    pub(crate) fn child_end(&self) -> RawFd {
        self.child.as_raw_fd()
    }

    /// Starts the thread that receives the listener the child will send
    /// and answers it. Called before the fork: the child's `execve` waits
    /// for an answer. The caller closes the child's end after the spawn.
    pub(crate) fn listen(self) -> io::Result<Listening> {
        let record = KernelRecord::default();
        let shared = record.shared.clone();
        let (parent, abstract_denied) = (self.parent, self.abstract_denied);
        std::thread::Builder::new()
            .name("hooks-kernel-record".into())
            .spawn(move || {
                let Some(listener) = wait_for_listener(&parent, &shared) else {
                    return;
                };
                drop(parent);
                // Linux 6.6+: the caller and this thread hand over on one
                // CPU (`SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP`), much faster
                // per call; older kernels refuse it and answer as before.
                // SAFETY: an ioctl whose argument is the flag itself.
                unsafe {
                    libc::ioctl(
                        listener.as_raw_fd(),
                        libc::SECCOMP_IOCTL_NOTIF_SET_FLAGS,
                        1u64,
                    )
                };
                answer(&listener, &shared, abstract_denied);
            })?;
        Ok(Listening {
            record,
            child_end: self.child,
        })
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
    unix_socket: Mutex<Option<String>>,
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

    /// The first unix socket the host has that its sandbox kept it from:
    /// its path, or `@name` for an abstract one.
    pub(crate) fn denied_unix_socket(&self) -> Option<String> {
        let denied = self.shared.unix_socket.lock();
        denied.unwrap_or_else(PoisonError::into_inner).clone()
    }
}

impl Drop for KernelRecord {
    fn drop(&mut self) {
        self.shared.ended.store(true, Ordering::SeqCst);
    }
}

/// The listener the child sends over `parent`, once it is there; `None`
/// when the child's end hung up first (the spawn failed), or the tree was
/// dropped meanwhile.
fn wait_for_listener(parent: &OwnedFd, shared: &Shared) -> Option<OwnedFd> {
    loop {
        let mut poll = libc::pollfd {
            fd: parent.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one pollfd, alive for the call.
        let ready = unsafe { libc::poll(&mut poll, 1, 1000) };
        if ready < 0 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            return None;
        }
        if poll.revents & libc::POLLIN != 0 {
            return receive_fd(parent).ok();
        }
        if poll.revents != 0 || (ready == 0 && shared.ended.load(Ordering::SeqCst)) {
            return None;
        }
    }
}

/// The fd sent with one byte over `channel`, without waiting.
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
fn answer(listener: &OwnedFd, shared: &Shared, abstract_denied: bool) {
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
            if !let_go(listener, shared, abstract_denied) {
                return;
            }
        } else if poll.revents != 0 || (ready == 0 && shared.ended.load(Ordering::SeqCst)) {
            return;
        }
    }
}

/// Receives one notification, records it and lets the call go on. `false`
/// when the listener is unusable.
fn let_go(listener: &OwnedFd, shared: &Shared, abstract_denied: bool) -> bool {
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
    let caller = Caller {
        listener,
        notification: &notification,
    };
    record(&caller, shared, abstract_denied);
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

/// A recorded call, waiting for its answer.
struct Caller<'a> {
    listener: &'a OwnedFd,
    notification: &'a libc::seccomp_notif,
}

impl Caller<'_> {
    /// Whether the caller still waits: what was read of its memory and
    /// `/proc` entries was its own, unless it died and its pid was reused.
    fn still_waiting(&self) -> bool {
        let mut id = self.notification.id;
        // SAFETY: the ioctl reads the u64 it is given.
        let valid = unsafe {
            libc::ioctl(
                self.listener.as_raw_fd(),
                libc::SECCOMP_IOCTL_NOTIF_ID_VALID,
                &mut id,
            )
        };
        valid == 0
    }

    fn pid(&self) -> u32 {
        self.notification.pid
    }

    fn args(&self) -> &[u64; 6] {
        &self.notification.data.args
    }
}

/// Records the call of `caller`: an inet socket, a look-up of a host `/tmp`
/// path the private `/tmp` hides, a connect to a unix socket it cannot
/// reach (the first one of each only).
fn record(caller: &Caller, shared: &Shared, abstract_denied: bool) {
    let data = &caller.notification.data;
    let Some(calls) = ARCHES.iter().find(|calls| calls.arch == data.arch) else {
        return;
    };
    let nr = data.nr as u32;
    let x32_socket = calls.arch == AUDIT_ARCH_X86_64 && nr == calls.socket | 0x4000_0000;
    if nr == calls.socket || x32_socket {
        shared.network_attempts.fetch_add(1, Ordering::SeqCst);
    } else if nr == calls.connect {
        record_connect(caller, shared, abstract_denied);
    } else if let Some(lookup) = calls.lookups.iter().find(|call| call.nr == nr) {
        record_lookup(caller, lookup, shared);
    }
}

/// Keeps the path `lookup` looks up when the private `/tmp` hides it.
fn record_lookup(caller: &Caller, lookup: &Lookup, shared: &Shared) {
    let args = caller.args();
    let creates = (lookup.flags).is_some_and(|at| args[at] & libc::O_CREAT as u64 != 0);
    let mut hidden = shared
        .hidden_tmp
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    if creates || hidden.is_some() {
        return;
    }
    let Some(path) = read_path(caller.pid(), args[lookup.path]) else {
        return;
    };
    // The `dirfd` is an int: its low 32 bits.
    let dirfd = lookup.dirfd.map(|at| args[at] as u32 as i32);
    let found = absolute(caller.pid(), path, dirfd)
        .and_then(|path| hidden_by_private_tmp(caller.pid(), &path));
    if found.is_some() && caller.still_waiting() {
        *hidden = found;
    }
}

/// Keeps the unix socket a `connect()` names when the hook cannot reach it.
fn record_connect(caller: &Caller, shared: &Shared, abstract_denied: bool) {
    let mut denied = shared
        .unix_socket
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    if denied.is_some() {
        return;
    }
    let args = caller.args();
    let found = unreachable_socket(caller.pid(), args[1], args[2], abstract_denied);
    if found.is_some() && caller.still_waiting() {
        *denied = found;
    }
}

/// Up to `len` bytes at `address` in the memory of `pid` (fewer where an
/// unmapped page begins); `None` when nothing could be read.
pub(crate) fn read_memory(pid: u32, address: u64, len: usize) -> Option<Vec<u8>> {
    let mut bytes = vec![0u8; len];
    let local = libc::iovec {
        iov_base: bytes.as_mut_ptr().cast(),
        iov_len: len,
    };
    let remote = libc::iovec {
        iov_base: address as *mut libc::c_void,
        iov_len: len,
    };
    // SAFETY: reads at most `len` bytes into `bytes`, which holds them; the
    // remote address is only read by the kernel, for the caller.
    let read = unsafe { libc::process_vm_readv(pid as libc::pid_t, &local, 1, &remote, 1, 0) };
    let read = usize::try_from(read).ok().filter(|read| *read > 0)?;
    bytes.truncate(read);
    Some(bytes)
}

/// The NUL-terminated path at `address` in the memory of `pid`, read a
/// page at a time (a path may end just before an unmapped page).
pub(crate) fn read_path(pid: u32, address: u64) -> Option<PathBuf> {
    const PAGE: u64 = 4096;
    let mut path = Vec::new();
    let mut at = address;
    while path.len() < libc::PATH_MAX as usize {
        let chunk = read_memory(pid, at, (PAGE - at % PAGE) as usize)?;
        match chunk.iter().position(|byte| *byte == 0) {
            Some(end) => {
                path.extend_from_slice(&chunk[..end]);
                return Some(PathBuf::from(OsStr::from_bytes(&path)));
            }
            None => path.extend_from_slice(&chunk),
        }
        at += chunk.len() as u64;
    }
    None
}
