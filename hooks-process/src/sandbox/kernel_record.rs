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
//! - the same look-ups, where Landlock holds the hook
//!   (`recorded_outside.rs`): an open for reading or a program run of a
//!   path of the host beneath no root its profile grants (or beneath a
//!   hidden one) is recorded, the first one kept;
//! - a `connect()` to a unix socket, or a datagram sent to one without it
//!   (`sendto()`, `sendmsg()`, `sendmmsg()` with an address;
//!   `recorded_socket.rs`): one the host has and the hook cannot reach
//!   (masked, hidden by its private `/tmp`, an abstract one cut off) is
//!   recorded, the first one kept.
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

use super::recorded_outside::{Granted, landlocked};
use super::recorded_path::{absolute, hidden_by_private_tmp};
use super::recorded_socket::{Addressing, unreachable_destination};
use super::seccomp::{ARCHES, AUDIT_ARCH_X86_64, Checked, Lookup};

/// Both ends of the socketpair the child's listener comes over.
#[derive(Debug)]
pub(crate) struct Channel {
    /// The parent's end.
    parent: OwnedFd,
    /// The child's end (close-on-exec: the hook never holds it).
    child: OwnedFd,
    /// What the sandbox denies, to tell a recorded call's denial by.
    denies: Denies,
}

/// What a sandbox denies, as the record tells it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Denies {
    /// Whether the sandbox cuts abstract unix sockets off.
    pub abstract_denied: bool,
    /// Where its Landlock ruleset grants anything (`None`: no ruleset).
    pub granted: Option<Granted>,
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
    /// A new socketpair, both ends close-on-exec, for a sandbox that
    /// `denies` what it says.
    pub(crate) fn new(denies: Denies) -> io::Result<Channel> {
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
            denies,
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
        let (parent, denies) = (self.parent, self.denies);
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
                answer(&listener, &shared, &denies);
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
    denied_path: Mutex<Option<PathBuf>>,
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
        first(&self.shared.hidden_tmp).clone()
    }

    /// The first path of the host its Landlock ruleset certainly denied
    /// it: opened for reading or run, beneath no root the profile grants.
    pub(crate) fn denied_path(&self) -> Option<PathBuf> {
        first(&self.shared.denied_path).clone()
    }

    /// The first unix socket the host has that its sandbox kept it from:
    /// its path, or `@name` for an abstract one.
    pub(crate) fn denied_unix_socket(&self) -> Option<String> {
        first(&self.shared.unix_socket).clone()
    }
}

/// The first one kept of a kind of record, locked.
fn first<T>(kept: &Mutex<Option<T>>) -> std::sync::MutexGuard<'_, Option<T>> {
    kept.lock().unwrap_or_else(PoisonError::into_inner)
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
fn answer(listener: &OwnedFd, shared: &Shared, denies: &Denies) {
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
            if !let_go(listener, shared, denies) {
                return;
            }
        } else if poll.revents != 0 || (ready == 0 && shared.ended.load(Ordering::SeqCst)) {
            return;
        }
    }
}

/// Receives one notification, records it and lets the call go on. `false`
/// when the listener is unusable.
fn let_go(listener: &OwnedFd, shared: &Shared, denies: &Denies) -> bool {
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
    record(&caller, shared, denies);
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
/// path the private `/tmp` hides or of a path Landlock denies, a connect or
/// a datagram to a unix socket it cannot reach (the first one of each only).
fn record(caller: &Caller, shared: &Shared, denies: &Denies) {
    let data = &caller.notification.data;
    let Some(calls) = ARCHES.iter().find(|calls| calls.arch == data.arch) else {
        return;
    };
    let nr = data.nr as u32;
    let x32_socket = calls.arch == AUDIT_ARCH_X86_64 && nr == calls.socket | 0x4000_0000;
    let addressing = [
        (calls.connect, Addressing::Connect),
        (calls.sendto, Addressing::SendTo),
        (calls.sendmsg, Addressing::SendMessage),
        (calls.sendmmsg, Addressing::SendMessages),
    ];
    if nr == calls.socket || x32_socket {
        shared.network_attempts.fetch_add(1, Ordering::SeqCst);
    } else if let Some((_, addressing)) = addressing.iter().find(|(call, _)| *call == nr) {
        record_destination(caller, *addressing, shared, denies.abstract_denied);
    } else if let Some(lookup) = calls.lookups.iter().find(|call| call.nr == nr) {
        record_lookup(caller, lookup, shared, denies.granted.as_ref());
    }
}

/// The open flags of `lookup`'s call (`openat2`'s read from the caller's
/// `struct open_how`); `None` for a call without, or unreadable ones.
fn open_flags(caller: &Caller, lookup: &Lookup) -> Option<u64> {
    let at = caller.args()[lookup.flags?];
    if lookup.checked != Checked::OpenHow {
        return Some(at);
    }
    let how = read_memory(caller.pid(), at, size_of::<u64>())?;
    Some(u64::from_ne_bytes(how.as_slice().try_into().ok()?))
}

/// Keeps the path `lookup` looks up when the private `/tmp` hides it, or
/// when it opens it to read or runs it and the ruleset `granted` certainly
/// denies it.
fn record_lookup(caller: &Caller, lookup: &Lookup, shared: &Shared, granted: Option<&Granted>) {
    let args = caller.args();
    let flags = open_flags(caller, lookup);
    let creates = flags.is_some_and(|flags| flags & libc::O_CREAT as u64 != 0);
    let landlocked = landlocked(lookup.checked, flags);
    let tmp_wanted = !creates && first(&shared.hidden_tmp).is_none();
    let granted = granted.filter(|_| landlocked && first(&shared.denied_path).is_none());
    if !tmp_wanted && granted.is_none() {
        return;
    }
    let Some(path) = read_path(caller.pid(), args[lookup.path]) else {
        return;
    };
    // The `dirfd` is an int: its low 32 bits.
    let dirfd = lookup.dirfd.map(|at| args[at] as u32 as i32);
    let Some(path) = absolute(caller.pid(), path, dirfd) else {
        return;
    };
    if tmp_wanted
        && let Some(found) = hidden_by_private_tmp(caller.pid(), &path)
        && caller.still_waiting()
    {
        first(&shared.hidden_tmp).get_or_insert(found);
    }
    if let Some(granted) = granted
        && let Some(found) = granted.denies(&path)
        && caller.still_waiting()
    {
        first(&shared.denied_path).get_or_insert(found);
    }
}

/// Keeps the unix socket a `connect()` or a datagram's destination names
/// when the hook cannot reach it.
fn record_destination(
    caller: &Caller,
    addressing: Addressing,
    shared: &Shared,
    abstract_denied: bool,
) {
    if first(&shared.unix_socket).is_some() {
        return;
    }
    let found = unreachable_destination(caller.pid(), addressing, caller.args(), abstract_denied);
    if let Some(found) = found
        && caller.still_waiting()
    {
        first(&shared.unix_socket).get_or_insert(found);
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
