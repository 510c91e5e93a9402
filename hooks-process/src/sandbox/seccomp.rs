//! The kernel's record of a sandboxed hook's network attempts, child side
//! (red team round 7, R7c-3): a seccomp filter that turns each
//! `socket(AF_INET | AF_INET6, ...)` of the hook's tree into a user
//! notification, whose listener is handed to the parent (`network_watch.rs`
//! counts and lets each one go on unchanged: the empty network namespace
//! still denies). A guard may silence its stderr; it cannot silence this.
//!
//! Installed between fork and exec, after `no_new_privs`: the filter is
//! built on the stack, the listener sent with `sendmsg(SCM_RIGHTS)` over a
//! socketpair the parent made before the fork, then closed. Only
//! async-signal-safe calls, nothing allocated (as [`super::child`]).
//! `unsafe` is allowed here for those syscalls alone.
#![allow(unsafe_code)]

use std::io;
use std::os::fd::RawFd;

use super::child::check;

/// `AUDIT_ARCH_X86_64` (`EM_X86_64 | __AUDIT_ARCH_64BIT | __AUDIT_ARCH_LE`).
const AUDIT_ARCH_X86_64: u32 = 0xc000_003e;
/// `AUDIT_ARCH_AARCH64` (`EM_AARCH64 | __AUDIT_ARCH_64BIT | __AUDIT_ARCH_LE`).
const AUDIT_ARCH_AARCH64: u32 = 0xc000_00b7;
/// `socket(2)` on x86_64 (and, with [`X32_BIT`], on x32).
const X86_64_SOCKET: u32 = 41;
/// The bit of an x32 system call number.
const X32_BIT: u32 = 0x4000_0000;
/// `socket(2)` on aarch64.
const AARCH64_SOCKET: u32 = 198;

/// Offsets in `struct seccomp_data`: `nr`, `arch`, and the low 32 bits of
/// `args[0]` (the domain, an `int`) on the little-endian arches checked.
const NR: u32 = 0;
const ARCH: u32 = 4;
const DOMAIN: u32 = 16;

const fn statement(code: u32, k: u32) -> libc::sock_filter {
    libc::sock_filter {
        code: code as u16,
        jt: 0,
        jf: 0,
        k,
    }
}

const fn jump_if_equal(k: u32, jt: u8, jf: u8) -> libc::sock_filter {
    libc::sock_filter {
        code: (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16,
        jt,
        jf,
        k,
    }
}

const fn load(offset: u32) -> libc::sock_filter {
    statement(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, offset)
}

const fn answer(action: u32) -> libc::sock_filter {
    statement(libc::BPF_RET | libc::BPF_K, action)
}

/// The filter: an inet `socket()` of x86_64 (x32 too) or aarch64 is a user
/// notification, anything else (another arch included) is allowed.
/// Jumps are relative: a jump of `n` skips `n` instructions.
const FILTER: [libc::sock_filter; 15] = [
    /* 0 */ load(ARCH),
    /* 1 */ jump_if_equal(AUDIT_ARCH_X86_64, 0, 4),
    /* 2 */ load(NR),
    /* 3 */ jump_if_equal(X86_64_SOCKET, 6, 0),
    /* 4 */ jump_if_equal(X86_64_SOCKET | X32_BIT, 5, 0),
    /* 5 */ answer(libc::SECCOMP_RET_ALLOW),
    /* 6 */ jump_if_equal(AUDIT_ARCH_AARCH64, 0, 2),
    /* 7 */ load(NR),
    /* 8 */ jump_if_equal(AARCH64_SOCKET, 1, 0),
    /* 9 */ answer(libc::SECCOMP_RET_ALLOW),
    /* 10 */ load(DOMAIN),
    /* 11 */ jump_if_equal(libc::AF_INET as u32, 2, 0),
    /* 12 */ jump_if_equal(libc::AF_INET6 as u32, 1, 0),
    /* 13 */ answer(libc::SECCOMP_RET_ALLOW),
    /* 14 */ answer(libc::SECCOMP_RET_USER_NOTIF),
];

/// Installs the filter and sends its listener over `channel` (the child's
/// end of the parent's socketpair). Needs `no_new_privs`. Any failure fails
/// the spawn: a guard asked to be recorded never runs unrecorded.
pub(crate) fn record_network(channel: RawFd) -> io::Result<()> {
    let program = libc::sock_fprog {
        len: FILTER.len() as u16,
        filter: FILTER.as_ptr().cast_mut(),
    };
    // SAFETY: seccomp(SET_MODE_FILTER, NEW_LISTENER, &program): the program
    // points at a constant filter alive for the call; the result is a new
    // fd (close-on-exec), or -1.
    let listener = unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER,
            libc::SECCOMP_FILTER_FLAG_NEW_LISTENER,
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
