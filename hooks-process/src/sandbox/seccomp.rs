//! The kernel's record of what a sandboxed hook was denied, child side (red
//! team round 7, R7c-3; round 9, R9-4): a seccomp filter that turns each
//! system call worth recording into a user notification, whose listener is
//! handed to the parent (`kernel_record.rs` reads and records each one,
//! then lets it go on unchanged: the sandbox still decides). A guard may
//! silence its stderr; it cannot silence this. Recorded, where asked for:
//! - without network, each `socket(AF_INET | AF_INET6, ...)` (the empty
//!   network namespace then denies its use);
//! - with a private `/tmp`, each system call that looks a path up (the
//!   `open`, `stat` and `access` families, `chdir`, `execve`, `readlink`,
//!   extended attributes, `inotify_add_watch`, ...: [`ARCHES`]): the
//!   parent reads the path and records one of the host's `/tmp` that the
//!   private `/tmp` hides;
//! - with a Landlock ruleset, the same look-ups: the parent records an
//!   open for reading or a program run of a path beneath no root the
//!   profile grants ([`Checked`]: what Landlock checks of each);
//! - where sockets are masked or abstract ones cut off, each `connect()`,
//!   `sendmsg()` and `sendmmsg()`, and each `sendto()` with a destination
//!   (a null one is let through in the filter: a plain `send()`): the
//!   parent reads the address and records a unix socket the host has and
//!   the hook cannot reach.
//!
//! io_uring is refused to a recorded hook (`ENOSYS`, as Docker's default
//! profile does): an open or a connect submitted through a ring is no
//! system call this filter sees, and libuv and the other runtimes that use
//! one fall back to plain system calls without it.
//!
//! x86_64 (x32's `socket` too) and aarch64 are checked; another arch
//! (i386, x32 but for its `socket`) is let through unrecorded. The filter
//! is built by the parent before the fork ([`program`]); the child installs
//! it last of all (after `no_new_privs` and Landlock: no path it opens
//! itself waits for an answer), sends the listener with
//! `sendmsg(SCM_RIGHTS)` over a socketpair the parent made, then closes it.
//! The parent answers from the hook's own `execve` on: its thread is
//! started before the fork. Only async-signal-safe calls here, nothing
//! allocated (as [`super::child`]). `unsafe` is allowed in this module for
//! those syscalls alone.
#![allow(unsafe_code)]
// Compiled on Linux, used only with the `sandbox` feature.
#![cfg_attr(not(feature = "sandbox"), allow(dead_code))]

use std::io;
use std::os::fd::RawFd;

use super::child::check;

/// `AUDIT_ARCH_X86_64` (`EM_X86_64 | __AUDIT_ARCH_64BIT | __AUDIT_ARCH_LE`).
pub(crate) const AUDIT_ARCH_X86_64: u32 = 0xc000_003e;
/// `AUDIT_ARCH_AARCH64` (`EM_AARCH64 | __AUDIT_ARCH_64BIT | __AUDIT_ARCH_LE`).
pub(crate) const AUDIT_ARCH_AARCH64: u32 = 0xc000_00b7;
/// The bit of an x32 system call number.
const X32_BIT: u32 = 0x4000_0000;

/// What Landlock checks of the path a look-up names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Checked {
    /// Nothing: Landlock lets any path be looked up (`stat`, `access`, ...).
    Nothing,
    /// An open: its flags (the argument [`Lookup::flags`]) say whether it
    /// reads, writes, or only names the file (`O_PATH`).
    Open,
    /// `openat2`: as [`Checked::Open`], its flags the first field of the
    /// `struct open_how` the argument [`Lookup::flags`] points at.
    OpenHow,
    /// A program run (`execve`, `execveat`).
    Execute,
}

/// A system call that looks a path up: the index of its path argument, of
/// the folder fd it is relative to (else the working folder) and of its open
/// flags (if any), and what Landlock checks of the path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Lookup {
    /// Its number.
    pub nr: u32,
    /// The path argument.
    pub path: usize,
    /// The `dirfd` argument of an `*at` call.
    pub dirfd: Option<usize>,
    /// The open flags argument (an open that creates is not recorded).
    pub flags: Option<usize>,
    /// What Landlock checks of the path.
    pub checked: Checked,
}

/// A look-up whose path argument is the first, relative to the working folder.
const fn plain(nr: u32) -> Lookup {
    Lookup {
        nr,
        path: 0,
        dirfd: None,
        flags: None,
        checked: Checked::Nothing,
    }
}

/// An `*at` look-up: `dirfd` first, the path second.
const fn at(nr: u32) -> Lookup {
    Lookup {
        nr,
        path: 1,
        dirfd: Some(0),
        flags: None,
        checked: Checked::Nothing,
    }
}

impl Lookup {
    /// The same, an open whose flags are the argument `flags`.
    const fn opens(self, flags: usize) -> Lookup {
        Lookup {
            flags: Some(flags),
            checked: Checked::Open,
            ..self
        }
    }

    /// The same, an `openat2` whose `struct open_how` the argument `how`
    /// points at.
    const fn opens_how(self, how: usize) -> Lookup {
        Lookup {
            flags: Some(how),
            checked: Checked::OpenHow,
            ..self
        }
    }

    /// The same, a program run.
    const fn runs(self) -> Lookup {
        Lookup {
            checked: Checked::Execute,
            ..self
        }
    }

    /// The same, its path the argument `path` (relative to the working folder).
    const fn path_at(self, path: usize) -> Lookup {
        Lookup {
            path,
            dirfd: None,
            ..self
        }
    }
}

/// One arch's system calls: `socket`, those that name a socket address,
/// those that look a path up, and io_uring's, refused.
pub(crate) struct Calls {
    /// `AUDIT_ARCH_*`.
    pub arch: u32,
    /// `socket(2)`.
    pub socket: u32,
    /// `connect(2)`.
    pub connect: u32,
    /// `sendto(2)`: a destination in its fifth and sixth arguments.
    pub sendto: u32,
    /// `sendmsg(2)`: a destination in the `msg_name` of its message.
    pub sendmsg: u32,
    /// `sendmmsg(2)`: one in each message of its vector.
    pub sendmmsg: u32,
    /// The look-ups: opens, `stat`s, `access`es, links and extended
    /// attributes read, a watch, a working folder, a program run.
    pub lookups: &'static [Lookup],
    /// `io_uring_setup`, `io_uring_enter`, `io_uring_register`: a ring's
    /// operations (an open, a connect) are no system calls the filter sees.
    pub refused: [u32; 3],
}

/// The arches recorded, with their numbers (`asm/unistd_64.h`,
/// `asm-generic/unistd.h`; from 424 on both share them).
pub(crate) const ARCHES: [Calls; 2] = [
    Calls {
        arch: AUDIT_ARCH_X86_64,
        socket: 41,
        connect: 42,
        sendto: 44,
        sendmsg: 46,
        sendmmsg: 307,
        lookups: &[
            plain(2).opens(1),     // open
            plain(4),              // stat
            plain(6),              // lstat
            plain(21),             // access
            plain(59).runs(),      // execve
            plain(80),             // chdir
            plain(89),             // readlink
            plain(137),            // statfs
            plain(191),            // getxattr
            plain(192),            // lgetxattr
            plain(194),            // listxattr
            plain(195),            // llistxattr
            plain(254).path_at(1), // inotify_add_watch
            at(257).opens(2),      // openat
            at(262),               // newfstatat
            at(267),               // readlinkat
            at(269),               // faccessat
            at(303),               // name_to_handle_at
            at(322).runs(),        // execveat
            at(332),               // statx
            at(437).opens_how(2),  // openat2
            at(439),               // faccessat2
            at(464),               // getxattrat
            at(465),               // listxattrat
        ],
        refused: [425, 426, 427],
    },
    Calls {
        arch: AUDIT_ARCH_AARCH64,
        socket: 198,
        connect: 203,
        sendto: 206,
        sendmsg: 211,
        sendmmsg: 269,
        lookups: &[
            plain(8),             // getxattr
            plain(9),             // lgetxattr
            plain(11),            // listxattr
            plain(12),            // llistxattr
            plain(27).path_at(1), // inotify_add_watch
            plain(43),            // statfs
            at(48),               // faccessat
            plain(49),            // chdir
            at(56).opens(2),      // openat
            at(78),               // readlinkat
            at(79),               // newfstatat
            plain(221).runs(),    // execve
            at(264),              // name_to_handle_at
            at(281).runs(),       // execveat
            at(291),              // statx
            at(437).opens_how(2), // openat2
            at(439),              // faccessat2
            at(464),              // getxattrat
            at(465),              // listxattrat
        ],
        refused: [425, 426, 427],
    },
];

/// What a recorded run's filter notifies, by what its sandbox denies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Recorded {
    /// No network: inet `socket()` calls.
    pub network: bool,
    /// A private `/tmp` or a Landlock ruleset: the path look-ups.
    pub lookups: bool,
    /// Sockets masked (or abstract ones cut off): `connect()`, `sendmsg()`,
    /// `sendmmsg()` calls, `sendto()` calls with a destination.
    pub unix_sockets: bool,
    /// Abstract unix sockets are out of reach (an empty network namespace,
    /// or Landlock's scope): one the host listens on is a denial.
    pub abstract_denied: bool,
}

impl Recorded {
    /// Whether anything is recorded at all.
    pub(crate) fn any(self) -> bool {
        self.network || self.lookups || self.unix_sockets
    }
}

/// What the child installs: the filter, and the socketpair end its
/// listener is sent over.
pub(crate) struct Recording {
    /// The child's end of the parent's socketpair.
    pub channel: RawFd,
    /// The program ([`program`]).
    pub filter: Vec<libc::sock_filter>,
}

impl std::fmt::Debug for Recording {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Recording({} instructions to fd {})",
            self.filter.len(),
            self.channel
        )
    }
}

/// Offsets in `struct seccomp_data`: `nr`, `arch`, the low 32 bits of
/// `args[0]` (the domain or fd, an `int`), of `args[2]` (`sendmsg`'s flags)
/// and of `args[4]` (`sendto`'s
/// destination, a pointer: its high half next) on the little-endian arches
/// checked.
const NR: u32 = 0;
const ARCH: u32 = 4;
const DOMAIN: u32 = 16;
const FLAGS: u32 = 16 + 2 * 8;
const DESTINATION: u32 = 16 + 4 * 8;

/// A step of the program, jumps by label (resolved by [`assemble`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Step {
    Load(u32),
    /// Jump to the label when the accumulator equals the value, else on.
    JumpIfEqual(u32, Label),
    Return(u32),
    Mark(Label),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Label {
    Arch(usize),
    Domain,
    Destination,
    DestinationHigh,
    Message,
    MessageFlags,
    Allow,
    Refuse,
    Notify,
}

/// The filter for the hook: what `recorded` asks for is a user
/// notification (inet `socket()` calls, path look-ups, `connect()` and
/// `sendmsg()`/`sendmmsg()` calls, `sendto()` calls with a destination),
/// io_uring is refused (`ENOSYS`: libuv and the others fall back to plain
/// system calls, which are recorded); all else is allowed. The child's own
/// `sendmsg(channel, ..., MSG_NOSIGNAL)` of its listener is let through
/// (nobody could answer it yet): `channel` is closed at `execve`.
pub(crate) fn program(recorded: Recorded, channel: RawFd) -> Vec<libc::sock_filter> {
    use Step::*;
    let allow = libc::SECCOMP_RET_ALLOW;
    let mut steps = vec![Load(ARCH)];
    steps.extend(
        (ARCHES.iter().enumerate()).map(|(at, calls)| JumpIfEqual(calls.arch, Label::Arch(at))),
    );
    steps.push(Return(allow));
    for (at, calls) in ARCHES.iter().enumerate() {
        steps.extend([Mark(Label::Arch(at)), Load(NR)]);
        steps.extend((calls.refused.iter()).map(|nr| JumpIfEqual(*nr, Label::Refuse)));
        if recorded.network {
            steps.push(JumpIfEqual(calls.socket, Label::Domain));
            if calls.arch == AUDIT_ARCH_X86_64 {
                steps.push(JumpIfEqual(calls.socket | X32_BIT, Label::Domain));
            }
        }
        if recorded.unix_sockets {
            steps.extend([
                JumpIfEqual(calls.connect, Label::Notify),
                JumpIfEqual(calls.sendmsg, Label::Message),
                JumpIfEqual(calls.sendmmsg, Label::Notify),
                JumpIfEqual(calls.sendto, Label::Destination),
            ]);
        }
        if recorded.lookups {
            steps.extend((calls.lookups.iter()).map(|call| JumpIfEqual(call.nr, Label::Notify)));
        }
        steps.push(Return(allow));
    }
    steps.extend([
        Mark(Label::Domain),
        Load(DOMAIN),
        JumpIfEqual(libc::AF_INET as u32, Label::Notify),
        JumpIfEqual(libc::AF_INET6 as u32, Label::Notify),
        Return(allow),
        // `sendto()` with a null destination is a `send()`: let through.
        Mark(Label::Destination),
        Load(DESTINATION),
        JumpIfEqual(0, Label::DestinationHigh),
        Return(libc::SECCOMP_RET_USER_NOTIF),
        Mark(Label::DestinationHigh),
        Load(DESTINATION + 4),
        JumpIfEqual(0, Label::Allow),
        Return(libc::SECCOMP_RET_USER_NOTIF),
        Mark(Label::Message),
        Load(DOMAIN),
        JumpIfEqual(channel as u32, Label::MessageFlags),
        Return(libc::SECCOMP_RET_USER_NOTIF),
        Mark(Label::MessageFlags),
        Load(FLAGS),
        JumpIfEqual(libc::MSG_NOSIGNAL as u32, Label::Allow),
        Return(libc::SECCOMP_RET_USER_NOTIF),
        Mark(Label::Allow),
        Return(allow),
        Mark(Label::Refuse),
        Return(libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32),
        Mark(Label::Notify),
        Return(libc::SECCOMP_RET_USER_NOTIF),
    ]);
    assemble(&steps)
}

/// Classic BPF of `steps`: each label becomes the relative jump to it.
fn assemble(steps: &[Step]) -> Vec<libc::sock_filter> {
    let mut at = 0usize;
    let mut marks = Vec::new();
    for step in steps {
        match step {
            Step::Mark(label) => marks.push((*label, at)),
            _ => at += 1,
        }
    }
    let target = |label: Label| {
        marks
            .iter()
            .find(|(mark, _)| *mark == label)
            .map(|(_, at)| *at)
    };
    let mut program = Vec::with_capacity(at);
    for step in steps {
        let (code, k, jt) = match *step {
            Step::Mark(_) => continue,
            Step::Load(offset) => (libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, offset, 0),
            Step::Return(action) => (libc::BPF_RET | libc::BPF_K, action, 0),
            Step::JumpIfEqual(value, label) => {
                let to = target(label).expect("every label is marked");
                let jump = u8::try_from(to - program.len() - 1).expect("a short program");
                (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K, value, jump)
            }
        };
        program.push(libc::sock_filter {
            code: code as u16,
            jt,
            jf: 0,
            k,
        });
    }
    program
}

/// Installs `filter` (with `SPEC_ALLOW`: a filter alone would otherwise
/// turn on the speculative store bypass mitigation for the hook, a cost the
/// same hook unrecorded does not pay) and sends its listener over `channel` (the child's
/// end of the parent's socketpair). Needs `no_new_privs`. Any failure fails
/// the spawn: a guard asked to be recorded never runs unrecorded.
pub(crate) fn record(channel: RawFd, filter: &[libc::sock_filter]) -> io::Result<()> {
    let program = libc::sock_fprog {
        len: u16::try_from(filter.len()).unwrap_or(u16::MAX),
        filter: filter.as_ptr().cast_mut(),
    };
    // SAFETY: seccomp(SET_MODE_FILTER, NEW_LISTENER, &program): the program
    // points at the plan's filter, alive for the call; the result is a new
    // fd (close-on-exec), or -1.
    let listener = unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER,
            libc::SECCOMP_FILTER_FLAG_NEW_LISTENER | libc::SECCOMP_FILTER_FLAG_SPEC_ALLOW,
            &program as *const libc::sock_fprog,
        )
    };
    let listener = i32::try_from(listener).unwrap_or(-1);
    check(listener)?;
    let sent = send_fd(channel, listener);
    // SAFETY: closing the listener made above: the parent holds its copy
    // (or, the send failed, nobody does and the spawn fails).
    unsafe { libc::close(listener) };
    sent
}

/// Control space for one fd (`CMSG_SPACE(sizeof(int))`).
// SAFETY: CMSG_SPACE is arithmetic on its argument.
const CONTROL_LEN: usize = unsafe { libc::CMSG_SPACE(size_of::<libc::c_int>() as u32) } as usize;

/// A control buffer aligned as a `cmsghdr`.
#[repr(C, align(8))]
struct Control([u8; CONTROL_LEN]);

/// Sends `fd` (with one byte: a stream needs data) over `channel`.
fn send_fd(channel: RawFd, fd: RawFd) -> io::Result<()> {
    let mut byte = [1u8];
    let mut iov = libc::iovec {
        iov_base: byte.as_mut_ptr().cast(),
        iov_len: 1,
    };
    let mut control = Control([0; CONTROL_LEN]);
    // SAFETY: a zeroed msghdr is valid (null pointers, zero lengths); the
    // fields set below point at the stack buffers above, alive for the call.
    let mut message: libc::msghdr = unsafe { std::mem::zeroed() };
    message.msg_iov = &mut iov;
    message.msg_iovlen = 1;
    message.msg_control = control.0.as_mut_ptr().cast();
    message.msg_controllen = CONTROL_LEN as _;
    // SAFETY: the control buffer holds one aligned cmsghdr and an int.
    unsafe {
        let header = libc::CMSG_FIRSTHDR(&message);
        (*header).cmsg_level = libc::SOL_SOCKET;
        (*header).cmsg_type = libc::SCM_RIGHTS;
        (*header).cmsg_len = libc::CMSG_LEN(size_of::<libc::c_int>() as u32) as _;
        std::ptr::write_unaligned(libc::CMSG_DATA(header).cast::<libc::c_int>(), fd);
    }
    // SAFETY: the message points at live buffers; MSG_NOSIGNAL: no SIGPIPE.
    let sent = unsafe { libc::sendmsg(channel, &message, libc::MSG_NOSIGNAL) };
    match sent {
        1 => Ok(()),
        0 => Err(io::Error::from_raw_os_error(libc::EPIPE)),
        _ => Err(io::Error::last_os_error()),
    }
}

#[cfg(test)]
#[path = "seccomp_tests.rs"]
mod tests;
