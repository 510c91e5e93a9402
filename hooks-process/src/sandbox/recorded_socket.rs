//! The unix sockets of the kernel's record (`kernel_record.rs`, red team
//! round 9, R9-4): a guard whose rules come from a local daemon (a named
//! socket in `/run/user/<uid>`, an abstract one) is denied it by its
//! sandbox, silences that, and allows. A `connect()` of the hook's tree,
//! or a datagram it sends to an address without one (`sendto()` with a
//! destination, `sendmsg()` with a `msg_name`, each message of a
//! `sendmmsg()`: [`unreachable_destination`]), is recorded when it names a
//! unix socket the host has and the hook cannot reach:
//! - a named one that exists on the host (links resolved there) and that
//!   the hook sees as no socket at all (through `/proc/<pid>/root`): a
//!   masked folder or socket (`masked.rs`), the host's `/tmp` hidden by the
//!   private one. A socket of its own at that path is no denial;
//! - an abstract one that a socket of the host's network namespace is
//!   bound to (`/proc/net/unix`), where the sandbox cuts abstract sockets
//!   off (an empty network namespace, Landlock's scope).
//!
//! The name-lookup daemons' sockets ([`NAME_LOOKUPS`]) are passed over:
//! the C library asks them on its own (nscd for every user look-up, where
//! it runs) and falls back to its files when it cannot; a guard that
//! needs a name looked up needs the network too, which is recorded.
//!
//! A message's address is read from the caller's memory (its `struct
//! msghdr`, as the 64-bit arches recorded lay it out); a null or empty one
//! (a connected socket's send) is no record.
// Compiled on Linux, used only with the `sandbox` feature.
#![cfg_attr(not(feature = "sandbox"), allow(dead_code))]

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

use super::kernel_record::read_memory;
use super::recorded_path::absolute;

/// The masked sockets of name look-ups (`masked.rs`'s `SYSTEM_SOCKETS`),
/// which the C library reaches on its own: not recorded.
const NAME_LOOKUPS: &[&str] = &[
    "/run/avahi-daemon",
    "/run/nscd",
    "/run/systemd/resolve/io.systemd.Resolve",
];

/// A unix socket address a caller named.
#[derive(Debug, PartialEq, Eq)]
enum Address {
    /// A path (relative to the caller's working folder, or absolute).
    Named(PathBuf),
    /// An abstract name (the bytes after the leading NUL).
    Abstract(Vec<u8>),
}

/// A recorded call that names a socket address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Addressing {
    /// `connect(fd, address, len)`.
    Connect,
    /// `sendto(fd, buffer, size, flags, destination, len)`.
    SendTo,
    /// `sendmsg(fd, message, flags)`: the message's `msg_name`.
    SendMessage,
    /// `sendmmsg(fd, messages, count, flags)`: each message's `msg_name`.
    SendMessages,
}

/// The most messages one `sendmmsg()` sends (`UIO_MAXIOV`: the kernel
/// sends no more).
const MOST_MESSAGES: u64 = 1024;

/// The first unix socket the call `addressing` with `args` of `pid` names
/// that the host has and the hook cannot reach (as [`unreachable_socket`]);
/// `None` for a call with no address (a connected socket's send).
pub(crate) fn unreachable_destination(
    pid: u32,
    addressing: Addressing,
    args: &[u64; 6],
    abstract_denied: bool,
) -> Option<String> {
    let reach = |(address, len): (u64, u64)| {
        (address != 0 && len != 0)
            .then(|| unreachable_socket(pid, address, len, abstract_denied))
            .flatten()
    };
    match addressing {
        Addressing::Connect => reach((args[1], args[2])),
        Addressing::SendTo => reach((args[4], args[5])),
        Addressing::SendMessage => {
            let header = read_memory(pid, args[1], size_of::<libc::msghdr>())?;
            reach(message_name(&header)?)
        }
        Addressing::SendMessages => {
            let stride = size_of::<libc::mmsghdr>();
            let count = usize::try_from(args[2].min(MOST_MESSAGES)).ok()?;
            let headers = read_memory(pid, args[1], stride * count)?;
            (headers.chunks_exact(stride)).find_map(|header| reach(message_name(header)?))
        }
    }
}

/// The `msg_name` pointer and `msg_namelen` of the `struct msghdr` that
/// `header` begins with (`None`: too short).
fn message_name(header: &[u8]) -> Option<(u64, u64)> {
    let field = |at: usize, len: usize| header.get(at..at + len);
    let name = field(std::mem::offset_of!(libc::msghdr, msg_name), 8)?;
    let len = field(std::mem::offset_of!(libc::msghdr, msg_namelen), 4)?;
    Some((
        u64::from_ne_bytes(name.try_into().ok()?),
        u64::from(u32::from_ne_bytes(len.try_into().ok()?)),
    ))
}

/// The unix socket at `address` (`len` bytes) in the memory of `pid` that
/// the host has and the hook cannot reach: its path, or `@name` for an
/// abstract one (`abstract_denied`: the sandbox cuts those off). `None`
/// for any other address.
pub(crate) fn unreachable_socket(
    pid: u32,
    address: u64,
    len: u64,
    abstract_denied: bool,
) -> Option<String> {
    let len = usize::try_from(len).ok()?;
    let len = len.min(size_of::<libc::sockaddr_un>());
    let bytes = read_memory(pid, address, len)?;
    match parse(&bytes)? {
        Address::Abstract(name) => {
            let shown = shown_abstract(&name);
            let listing = std::fs::read("/proc/net/unix").ok()?;
            (abstract_denied && host_has_abstract(&listing, &shown)).then_some(shown)
        }
        Address::Named(path) => {
            let path = absolute(pid, path, None)?;
            unreachable_named(pid, &path).map(|path| path.display().to_string())
        }
    }
}

/// The unix address of a `sockaddr` (`None`: another family, or unnamed).
fn parse(bytes: &[u8]) -> Option<Address> {
    let family = u16::from_ne_bytes([*bytes.first()?, *bytes.get(1)?]);
    if i32::from(family) != libc::AF_UNIX {
        return None;
    }
    let path = bytes.get(2..).filter(|path| !path.is_empty())?;
    if let Some(name) = path.strip_prefix(&[0]) {
        return Some(Address::Abstract(name.to_vec()));
    }
    let end = path
        .iter()
        .position(|byte| *byte == 0)
        .unwrap_or(path.len());
    let path = &path[..end];
    (!path.is_empty()).then(|| Address::Named(PathBuf::from(OsStr::from_bytes(path))))
}

/// An abstract name as `/proc/net/unix` and `ss` show it: `@`, then the
/// name, each NUL in it an `@`.
fn shown_abstract(name: &[u8]) -> String {
    let shown: Vec<u8> = name
        .iter()
        .map(|byte| if *byte == 0 { b'@' } else { *byte })
        .collect();
    format!("@{}", String::from_utf8_lossy(&shown))
}

/// Whether `listing` (`/proc/net/unix`) has a socket bound to `shown`
/// (the path is each line's last field).
fn host_has_abstract(listing: &[u8], shown: &str) -> bool {
    let field = [b" ", shown.as_bytes()].concat();
    listing
        .split(|byte| *byte == b'\n')
        .any(|line| line.ends_with(&field))
}

/// The host's socket at `path` (links resolved there) when `pid` sees no
/// socket there: nothing, a folder it may not enter, a file masking it.
/// `None` when the host has none, or `pid`'s root cannot be read.
fn unreachable_named(pid: u32, path: &Path) -> Option<PathBuf> {
    let real = std::fs::canonicalize(path).ok()?;
    if NAME_LOOKUPS.iter().any(|place| real.starts_with(place)) {
        return None;
    }
    let host = std::fs::metadata(&real).ok()?;
    if !host.file_type().is_socket() {
        return None;
    }
    let root = PathBuf::from(format!("/proc/{pid}/root"));
    std::fs::metadata(&root).ok()?;
    let seen = std::fs::symlink_metadata(root.join(real.strip_prefix("/").ok()?));
    match seen {
        Ok(seen) if seen.file_type().is_socket() => None,
        _ => Some(real),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sockaddr(path: &[u8]) -> Vec<u8> {
        let family = u16::try_from(libc::AF_UNIX).unwrap();
        [&family.to_ne_bytes()[..], path].concat()
    }

    #[test]
    fn a_unix_address_is_named_abstract_or_none() {
        let named = parse(&sockaddr(b"/run/user/0/bus\0\0\0"));
        assert_eq!(named, Some(Address::Named("/run/user/0/bus".into())));
        let unterminated = parse(&sockaddr(b"rel.sock"));
        assert_eq!(unterminated, Some(Address::Named("rel.sock".into())));
        let hidden = parse(&sockaddr(b"\0acme\0x"));
        assert_eq!(hidden, Some(Address::Abstract(b"acme\0x".to_vec())));
        assert_eq!(shown_abstract(b"acme\0x"), "@acme@x");
        assert_eq!(parse(&sockaddr(b"")), None);
        let inet = u16::try_from(libc::AF_INET).unwrap().to_ne_bytes();
        assert_eq!(parse(&[&inet[..], b"/x\0"].concat()), None);
        assert_eq!(parse(&[1]), None);
    }

    #[test]
    fn a_message_names_its_destination_by_msg_name_and_msg_namelen() {
        let mut bytes = vec![0u8; size_of::<libc::msghdr>()];
        let name_at = std::mem::offset_of!(libc::msghdr, msg_name);
        let len_at = std::mem::offset_of!(libc::msghdr, msg_namelen);
        bytes[name_at..name_at + 8].copy_from_slice(&0x1234_5678_9abc_u64.to_ne_bytes());
        bytes[len_at..len_at + 4].copy_from_slice(&12u32.to_ne_bytes());
        assert_eq!(message_name(&bytes), Some((0x1234_5678_9abc, 12)));
        assert_eq!(message_name(&bytes[..8]), None);
        // A connected socket's send names nothing: no record, nothing read.
        let pid = std::process::id();
        for addressing in [Addressing::SendTo, Addressing::Connect] {
            assert_eq!(
                unreachable_destination(pid, addressing, &[0; 6], true),
                None
            );
        }
    }

    #[test]
    fn the_name_lookups_passed_over_are_masked_system_sockets() {
        for place in NAME_LOOKUPS {
            assert!(super::super::SYSTEM_SOCKETS.contains(place), "{place}");
        }
    }

    #[test]
    fn an_abstract_name_is_the_last_field_of_a_listing_line() {
        let listing = b"Num       RefCount Protocol Flags    Type St Inode Path\n\
            0000000000000000: 00000002 00000000 00010000 0001 01 12345 @acme-r9\n\
            0000000000000000: 00000002 00000000 00010000 0001 01 12346 /run/x.sock\n";
        assert!(host_has_abstract(listing, "@acme-r9"));
        assert!(!host_has_abstract(listing, "@acme"));
        assert!(!host_has_abstract(listing, "@x.sock"));
    }

    #[test]
    fn a_socket_the_caller_sees_is_reachable_and_a_missing_one_no_denial() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.sock");
        let _listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
        let pid = std::process::id();
        assert_eq!(unreachable_named(pid, &path), None);
        assert_eq!(unreachable_named(pid, &dir.path().join("missing")), None);
        let file = dir.path().join("file");
        std::fs::write(&file, "").unwrap();
        assert_eq!(unreachable_named(pid, &file), None);
    }
}
