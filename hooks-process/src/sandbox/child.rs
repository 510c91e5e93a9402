//! What a sandboxed child does between fork and exec: raw syscalls only.
//!
//! `unsafe` is allowed in this module alone (the rest of the sandbox is safe
//! code): the syscalls that enter namespaces, mount the private `/tmp`, set
//! `no_new_privs`, apply the Landlock ruleset and lower rlimits have no safe
//! wrapper that is also async-signal-safe. Everything they need (paths as C
//! strings, the uid/gid map lines, the ruleset fd, access masks) is built by
//! the parent before the fork ([`ChildPlan`]); [`apply`] allocates nothing,
//! takes no lock and only calls async-signal-safe functions, as
//! `pre_exec` requires.
//!
//! The forks made once per process for the shared namespaces are in
//! `held.rs`, under the same rules.
#![allow(unsafe_code)]

use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::RawFd;

/// Everything the child needs, built before the fork.
#[derive(Debug, Default)]
pub(crate) struct ChildPlan {
    /// Enter new user (where allowed), mount and cgroup namespaces, and a
    /// network namespace unless `keep_network`.
    pub namespaces: bool,
    /// Keep the host's network (no network namespace).
    pub keep_network: bool,
    /// `"<uid> <uid> 1\n"`: the user namespace maps the user to itself.
    pub uid_map: Vec<u8>,
    /// `"<gid> <gid> 1\n"`.
    pub gid_map: Vec<u8>,
    /// Mount a tmpfs on `/tmp` (in the mount namespace) and let the ruleset
    /// write it with `tmp_access`.
    pub private_tmp: bool,
    /// The Landlock access mask granted on the private `/tmp`.
    pub tmp_access: u64,
    /// The Landlock ruleset to enforce (created and filled by the parent).
    pub ruleset: Option<RawFd>,
    /// A user namespace and its empty network namespace, made once per
    /// process ([`super::shared`]): entered with `setns` instead of creating
    /// both per spawn (only without `keep_network`).
    pub shared: Option<SharedFds>,
    /// Paths bind-mounted read-only onto themselves in the mount namespace
    /// (the project's `.git`, ...), each checked to still be the file the
    /// parent saw.
    pub read_only: Vec<ReadOnlyMount>,
    /// Resource limits to lower to: `(resource, value)`.
    pub limits: [(i32, u64); 3],
    /// Whether `limits` apply.
    pub lower_limits: bool,
    /// `(source, target)`: `source` bind-mounted read-only over `target` in
    /// the mount namespace (see [`super::overlay`]).
    pub overlays: Vec<(CString, CString)>,
    /// Paths an empty read-only file system is mounted over, last, so that
    /// no named socket in them can be reached (see `masked.rs`).
    pub masks: Vec<Mask>,
    /// The kernel's record of what the sandbox denies (`seccomp.rs`),
    /// installed last: where the caller asked for it.
    pub recording: Option<super::seccomp::Recording>,
}

/// A path to mount nothing over: a folder gets an empty read-only tmpfs
/// whose root nobody may enter (mode `000`: what was denied stays denied,
/// not missing), the first one made bound again for the others; a socket
/// gets `/dev/null`.
#[derive(Debug)]
pub(crate) struct Mask {
    /// The absolute path, symlinks resolved by the parent.
    pub path: CString,
    /// Whether it is a folder (else a socket).
    pub folder: bool,
}

/// A path to make read-only, and the file (device, inode) it must be.
#[derive(Debug)]
pub(crate) struct ReadOnlyMount {
    /// The absolute path, symlinks resolved by the parent.
    pub path: CString,
    /// `(st_dev, st_ino)` the parent saw.
    pub identity: (u64, u64),
}

/// The fds of a held user namespace and of the network namespace it owns.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SharedFds {
    /// `/proc/<holder>/ns/user`.
    pub user: RawFd,
    /// `/proc/<holder>/ns/net`.
    pub net: RawFd,
}

/// The Landlock ABI of this kernel (`0`: none).
pub(crate) fn landlock_abi() -> i32 {
    // SAFETY: landlock_create_ruleset(NULL, 0, VERSION) only returns a
    // number; no memory is passed.
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            1u32, // LANDLOCK_CREATE_RULESET_VERSION
        )
    };
    i32::try_from(abi).unwrap_or(0).max(0)
}

/// Applies `plan` in the forked child. Only async-signal-safe calls.
pub(crate) fn apply(plan: &ChildPlan) -> io::Result<()> {
    if plan.namespaces {
        enter_namespaces(plan)?;
    }
    // SAFETY: prctl with integer arguments only.
    check(unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) })?;
    if let Some(ruleset) = plan.ruleset {
        if plan.private_tmp {
            allow_private_tmp(ruleset, plan.tmp_access)?;
        }
        // SAFETY: the fd is the parent's ruleset, open for the whole spawn.
        let restricted = unsafe { libc::syscall(libc::SYS_landlock_restrict_self, ruleset, 0u32) };
        check(i32::try_from(restricted).unwrap_or(-1))?;
    }
    if plan.namespaces {
        drop_capability_bounding_set();
    }
    if plan.lower_limits {
        for (resource, value) in plan.limits {
            lower_limit(resource, value)?;
        }
    }
    if let Some(recording) = &plan.recording {
        super::seccomp::record(recording.channel, &recording.filter)?;
    }
    Ok(())
}

/// Enters the child's cgroup namespace only (the tree's cgroup was just
/// joined): best effort, as only root may without a user namespace.
pub(crate) fn enter_cgroup_namespace() {
    // SAFETY: unshare with a flag only.
    let _ = unsafe { libc::unshare(libc::CLONE_NEWCGROUP) };
}

fn enter_namespaces(plan: &ChildPlan) -> io::Result<()> {
    let mut flags = libc::CLONE_NEWNS | libc::CLONE_NEWCGROUP;
    if !plan.keep_network {
        flags |= libc::CLONE_NEWNET;
    }
    if let Some(shared) = plan.shared.filter(|_| !plan.keep_network) {
        // The held user namespace (the user mapped to itself, as below),
        // then its empty network namespace; the mount and cgroup ones are
        // the child's own. Any failure fails the spawn.
        // SAFETY: setns with fds the parent holds open for the whole spawn.
        check(unsafe { libc::setns(shared.user, libc::CLONE_NEWUSER) })?;
        // SAFETY: as above.
        check(unsafe { libc::setns(shared.net, libc::CLONE_NEWNET) })?;
        // SAFETY: unshare with flags only.
        check(unsafe { libc::unshare(libc::CLONE_NEWNS | libc::CLONE_NEWCGROUP) })?;
    // SAFETY: unshare with flags only. A user namespace first: its root has
    // no capability outside it (root included); where it is refused, root
    // enters the others directly.
    } else if unsafe { libc::unshare(libc::CLONE_NEWUSER | flags) } == 0 {
        write_file(c"/proc/self/setgroups", b"deny")?;
        write_file(c"/proc/self/uid_map", &plan.uid_map)?;
        write_file(c"/proc/self/gid_map", &plan.gid_map)?;
    } else {
        // SAFETY: geteuid has no arguments.
        if unsafe { libc::geteuid() } != 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: as above.
        check(unsafe { libc::unshare(flags) })?;
    }
    // Nothing mounted here may reach the host's namespace.
    // SAFETY: C string literals and a null data pointer.
    check(unsafe {
        libc::mount(
            std::ptr::null(),
            c"/".as_ptr(),
            std::ptr::null(),
            libc::MS_REC | libc::MS_PRIVATE,
            std::ptr::null(),
        )
    })?;
    // Before the private `/tmp`, which could hide a source.
    for (source, target) in &plan.overlays {
        mount_over_read_only(source, target)?;
    }
    if plan.private_tmp {
        // SAFETY: C string literals.
        check(unsafe {
            libc::mount(
                c"tmpfs".as_ptr(),
                c"/tmp".as_ptr(),
                c"tmpfs".as_ptr(),
                libc::MS_NOSUID | libc::MS_NODEV,
                c"mode=1777,size=256m".as_ptr().cast(),
            )
        })?;
    }
    for mount in &plan.read_only {
        mount_read_only(mount)?;
    }
    mask_all(&plan.masks)
}

/// Mounts nothing over each of `masks` (none lies beneath another). A
/// path gone since the parent looked holds no socket, and one the child
/// may not look up (in another user's `0700` folder of `/tmp`: the parent,
/// as root, could) is out of the hook's reach too: either is passed over;
/// any other failure fails the spawn.
fn mask_all(masks: &[Mask]) -> io::Result<()> {
    let mut empty: Option<&CStr> = None;
    for mask in masks {
        let target = mask.path.as_ptr();
        let bind = |source: &CStr| {
            // SAFETY: C strings made before the fork, a null type and data.
            check(unsafe {
                libc::mount(
                    source.as_ptr(),
                    target,
                    std::ptr::null(),
                    libc::MS_BIND,
                    std::ptr::null(),
                )
            })
        };
        let mounted = match (mask.folder, empty) {
            (false, _) => bind(c"/dev/null"),
            (true, Some(first)) => bind(first),
            // SAFETY: C strings made before the fork or literals.
            (true, None) => check(unsafe {
                libc::mount(
                    c"tmpfs".as_ptr(),
                    target,
                    c"tmpfs".as_ptr(),
                    libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                    c"mode=0000,size=4k".as_ptr().cast(),
                )
            }),
        };
        match mounted {
            Ok(()) if mask.folder && empty.is_none() => empty = Some(&mask.path),
            Ok(()) => {}
            Err(error)
                if matches!(
                    error.raw_os_error(),
                    Some(libc::ENOENT | libc::ENOTDIR | libc::EACCES)
                ) => {}
            Err(error) => return Err(error),
        }
    }
    Ok(())
}

/// Bind-mounts `mount.path` onto itself and makes that mount read-only
/// (keeping the flags a less privileged namespace may not clear), then
/// checks that the path now is the expected file on a read-only mount:
/// anything else fails the spawn, never runs with the path writable.
// `ST_*` are `c_ulong`: the casts matter on 32-bit targets only.
#[allow(clippy::unnecessary_cast)]
fn mount_read_only(mount: &ReadOnlyMount) -> io::Result<()> {
    let path = mount.path.as_ptr();
    // SAFETY: a C string made before the fork, and null pointers.
    check(unsafe {
        libc::mount(
            path,
            path,
            std::ptr::null(),
            libc::MS_BIND | libc::MS_REC,
            std::ptr::null(),
        )
    })?;
    let flags = statfs_flags(path)?;
    let locked = [
        (libc::ST_NOSUID, libc::MS_NOSUID),
        (libc::ST_NODEV, libc::MS_NODEV),
        (libc::ST_NOEXEC, libc::MS_NOEXEC),
        (libc::ST_NOATIME, libc::MS_NOATIME),
        (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
        (libc::ST_RELATIME, libc::MS_RELATIME),
    ]
    .iter()
    .filter(|(st, _)| flags & *st as u64 != 0)
    .fold(0, |all, (_, ms)| all | ms);
    // SAFETY: as above.
    check(unsafe {
        libc::mount(
            std::ptr::null(),
            path,
            std::ptr::null(),
            libc::MS_BIND | libc::MS_REMOUNT | libc::MS_RDONLY | locked,
            std::ptr::null(),
        )
    })?;
    // SAFETY: a C string; the fd is closed below.
    let fd = unsafe { libc::open(path, libc::O_PATH | libc::O_NOFOLLOW | libc::O_CLOEXEC) };
    check(fd)?;
    // SAFETY: a zeroed stat for the kernel to fill, of the fd opened above.
    let mut stat: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    let stated = unsafe { libc::fstat(fd, &mut stat) };
    // SAFETY: closing the fd opened above.
    unsafe { libc::close(fd) };
    check(stated)?;
    let read_only = statfs_flags(path)? & libc::ST_RDONLY as u64 != 0;
    if (stat.st_dev as u64, stat.st_ino as u64) != mount.identity || !read_only {
        return Err(io::Error::from_raw_os_error(libc::EXDEV));
    }
    Ok(())
}

/// The `ST_*` mount flags of the mount at `path`. `statvfs` is `statfs`
/// with its `f_flags` (valid since Linux 2.6.36: no `/proc` read).
fn statfs_flags(path: *const libc::c_char) -> io::Result<u64> {
    // SAFETY: a zeroed statvfs for the kernel to fill; `path` is a C string.
    let mut fs: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    check(unsafe { libc::statvfs(path, &mut fs) })?;
    #[allow(clippy::unnecessary_cast)]
    Ok(fs.f_flag as u64)
}

/// Grants `access` beneath the freshly mounted private `/tmp` (its tmpfs
/// root, which exists only in this mount namespace).
fn allow_private_tmp(ruleset: RawFd, access: u64) -> io::Result<()> {
    // SAFETY: a C string literal; the fd is closed below.
    let tmp = unsafe { libc::open(c"/tmp".as_ptr(), libc::O_PATH | libc::O_CLOEXEC) };
    check(tmp)?;
    // struct landlock_path_beneath_attr { __u64 allowed_access; __s32 parent_fd; } __packed
    let mut attr = [0u8; 12];
    attr[..8].copy_from_slice(&access.to_ne_bytes());
    attr[8..].copy_from_slice(&tmp.to_ne_bytes());
    // SAFETY: `attr` is the packed struct the syscall reads, alive for the call.
    let added = unsafe {
        libc::syscall(
            libc::SYS_landlock_add_rule,
            ruleset,
            1u32, // LANDLOCK_RULE_PATH_BENEATH
            attr.as_ptr(),
            0u32,
        )
    };
    // SAFETY: closing the fd opened above.
    unsafe { libc::close(tmp) };
    check(i32::try_from(added).unwrap_or(-1))
}

/// Bind-mounts `source` over `target`, then makes that mount read-only,
/// keeping the flags the kernel locked on it (`nosuid`, `nodev`, `noexec`
/// of the source's mount may not be cleared in a user namespace). The
/// atime flags are kept by a remount that names none.
fn mount_over_read_only(source: &CStr, target: &CStr) -> io::Result<()> {
    // SAFETY: C strings made by the parent, a null type and data.
    check(unsafe {
        libc::mount(
            source.as_ptr(),
            target.as_ptr(),
            std::ptr::null(),
            libc::MS_BIND | libc::MS_REC,
            std::ptr::null(),
        )
    })?;
    // nosuid and nodev are harmless here and may be locked on (from the
    // source's mount); noexec too, where the source's mount has it.
    let remount = |extra: libc::c_ulong| {
        // SAFETY: a C string made by the parent, null type and data.
        check(unsafe {
            libc::mount(
                std::ptr::null(),
                target.as_ptr(),
                std::ptr::null(),
                libc::MS_REMOUNT
                    | libc::MS_BIND
                    | libc::MS_RDONLY
                    | libc::MS_NOSUID
                    | libc::MS_NODEV
                    | extra,
                std::ptr::null(),
            )
        })
    };
    remount(0).or_else(|_| remount(libc::MS_NOEXEC))
}

/// No capability survives `execve`, even for root inside the namespaces.
fn drop_capability_bounding_set() {
    for capability in 0..64 {
        // SAFETY: prctl with integer arguments; EINVAL past the last capability.
        if unsafe { libc::prctl(libc::PR_CAPBSET_DROP, capability, 0, 0, 0) } != 0
            && io::Error::last_os_error().raw_os_error() == Some(libc::EINVAL)
        {
            break;
        }
    }
}

fn lower_limit(resource: i32, value: u64) -> io::Result<()> {
    let mut current = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `current` is a valid rlimit for the kernel to fill. The
    // resource type differs between libcs: the casts are of small constants.
    #[allow(clippy::useless_conversion)]
    check(unsafe { libc::getrlimit(resource as _, &mut current) })?;
    let wanted = libc::rlimit {
        rlim_cur: current.rlim_cur.min(value),
        rlim_max: current.rlim_max.min(value),
    };
    // SAFETY: as above.
    #[allow(clippy::useless_conversion)]
    check(unsafe { libc::setrlimit(resource as _, &wanted) })
}

pub(crate) fn write_file(path: &CStr, bytes: &[u8]) -> io::Result<()> {
    // SAFETY: a valid C string; the fd is closed below.
    let fd = unsafe { libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC) };
    check(fd)?;
    // SAFETY: `bytes` is valid for its length.
    let written = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
    // SAFETY: closing the fd opened above.
    unsafe { libc::close(fd) };
    if written < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

pub(crate) fn check(result: i32) -> io::Result<()> {
    if result < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}
