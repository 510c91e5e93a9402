//! Spawning a tree's direct child: what runs between fork and exec (Linux),
//! and the thread every child is forked from.
//!
//! The only `unsafe` of hermes-hooks-process: `CommandExt::pre_exec`. The closure runs
//! in the forked child before `execve`, where only async-signal-safe calls are
//! allowed; it makes three raw syscalls through rustix and allocates nothing:
//! - `write(2)` of `0` to the tree's `cgroup.procs` (an fd opened beforehand):
//!   the child joins its cgroup before it can start anything;
//! - `prctl(PR_SET_PDEATHSIG, SIGKILL)`: the child dies with the host, even of
//!   SIGKILL; then `getppid(2)`, as the host may have died before the prctl;
//! - without a cgroup, `prctl(PR_SET_CHILD_SUBREAPER)`: kept across `execve`,
//!   it makes orphans anywhere below the child its children, found by parentage.
//!
//! The parent-death signal fires when the *thread* that forked exits, not the
//! process: children are forked from one thread that lives as long as the
//! process ([`spawner`]), never from a pool thread that may retire.

use std::io;
use std::os::fd::OwnedFd;
#[cfg(target_os = "linux")]
use std::os::fd::{AsRawFd, BorrowedFd};
use std::sync::mpsc;
use std::sync::{Mutex, OnceLock, PoisonError};

use tokio::process::{Child, Command};

/// What the child does before `execve`.
#[derive(Debug, Default)]
pub(crate) struct Setup {
    /// The tree's `cgroup.procs`, to join it.
    pub cgroup_procs: Option<OwnedFd>,
    /// Become a child subreaper (orphans below the child stay its descendants).
    pub subreaper: bool,
    /// The sandbox to enter (namespaces, Landlock, rlimits).
    #[cfg(target_os = "linux")]
    pub sandbox: Option<super::sandbox::child::ChildPlan>,
}

/// Spawns `command` with `setup` applied in the child, from the spawner thread.
pub(crate) fn spawn(mut command: Command, mut setup: Setup) -> io::Result<Child> {
    #[cfg(target_os = "linux")]
    {
        refuse_unknown_formats(&command)?;
        prepare(&mut command, &mut setup);
    }
    // Without a runtime to enter, tokio cannot register the child's pipes:
    // spawned (and failing) here, as the caller would have.
    let handle = tokio::runtime::Handle::try_current().ok();
    let result = match spawner().filter(|_| handle.is_some()) {
        Some(sender) => {
            let (reply, answer) = mpsc::channel();
            let request = Request {
                command,
                handle,
                reply,
            };
            match sender.send(request) {
                Ok(()) => answer
                    .recv()
                    .unwrap_or_else(|_| Err(io::Error::other("the spawner thread is gone"))),
                Err(mpsc::SendError(request)) => spawn_here(request.command, request.handle),
            }
        }
        None => spawn_here(command, handle),
    };
    // The fd was needed by the child only (which has joined by now, or failed to).
    drop(setup);
    result
}

/// What a spawn fails with when the child could not join its cgroup
/// (`ENOMEDIUM`: no exec or fork error uses it).
#[cfg(target_os = "linux")]
pub(crate) const JOIN_FAILED: rustix::io::Errno = rustix::io::Errno::NOMEDIUM;

#[cfg(target_os = "linux")]
fn prepare(command: &mut Command, setup: &mut Setup) {
    use rustix::process::{
        Signal, getpid, getppid, set_child_subreaper, set_parent_process_death_signal,
    };

    let procs = setup.cgroup_procs.as_ref().map(AsRawFd::as_raw_fd);
    let subreaper = setup.subreaper;
    let sandbox = setup.sandbox.take();
    let host = getpid();
    // SAFETY: the closure only makes raw syscalls (write, prctl, getppid,
    // getpid) through rustix, and the sandbox's (`sandbox::child`, built
    // before the fork), allocates nothing and touches no lock, so it is
    // async-signal-safe as `pre_exec` requires. The fd it borrows is owned by
    // `setup`, which outlives the spawn (dropped after it in `spawn`); the
    // sandbox's ruleset fd by the caller's `Prepared`, likewise.
    #[allow(unsafe_code)]
    unsafe {
        command.pre_exec(move || {
            if let Some(procs) = procs {
                // SAFETY (see above): the fd is open for the whole spawn.
                let procs = BorrowedFd::borrow_raw(procs);
                // A failed join fails the spawn (the parent then stops using
                // cgroups): once spawned, a child is known to have joined, so
                // a hook that later moves itself out cannot make the
                // supervisor think cgroups do not work here.
                // Said with an errno exec never gives, so the parent can tell.
                if rustix::io::write(procs, b"0").is_err() {
                    return Err(io::Error::from(JOIN_FAILED));
                }
            }
            set_parent_process_death_signal(Some(Signal::KILL))?;
            if getppid() != Some(host) {
                // The host died before the prctl: nothing would kill us.
                return Err(io::Error::from_raw_os_error(libc_esrch()));
            }
            if subreaper {
                // Best effort: a kernel without it leaves the mark and the group.
                let _ = set_child_subreaper(Some(getpid()));
            }
            match &sandbox {
                Some(plan) => {
                    super::sandbox::child::apply(plan)?;
                    // Entering a user namespace changes credentials, which
                    // may clear the parent-death signal: set it again.
                    set_parent_process_death_signal(Some(Signal::KILL))?;
                    if getppid() != Some(host) {
                        return Err(io::Error::from_raw_os_error(libc_esrch()));
                    }
                }
                // Out of reach of every cgroup outside its own (where the
                // hierarchy delegates at namespaces; root only, best effort).
                None if procs.is_some() => super::sandbox::child::enter_cgroup_namespace(),
                None => {}
            }
            Ok(())
        });
    }
}

/// A `pre_exec` makes std fork and `execvp` instead of `posix_spawn`, and
/// glibc's `execvp` runs a file the kernel cannot execute (no `#!`, not ELF)
/// with `/bin/sh`, where `posix_spawn` (and the reference's `subprocess`)
/// fail with `ENOEXEC`. So that stays the error: a file that is found,
/// readable and neither a script nor ELF is refused before the fork. Where
/// binfmt_misc has formats registered the kernel may know more: not checked.
#[cfg(target_os = "linux")]
fn refuse_unknown_formats(command: &Command) -> io::Result<()> {
    use std::io::Read;
    use std::path::{Path, PathBuf};

    let std = command.as_std();
    let program = Path::new(std.get_program());
    let candidates: Vec<PathBuf> = if program.as_os_str().as_encoded_bytes().contains(&b'/') {
        let base = std.get_current_dir().map(Path::to_path_buf);
        vec![base.map_or_else(|| program.to_path_buf(), |dir| dir.join(program))]
    } else {
        let path = std
            .get_envs()
            .find(|(key, _)| *key == "PATH")
            .map(|(_, value)| value.map(std::ffi::OsStr::to_os_string))
            .unwrap_or_else(|| std::env::var_os("PATH"))
            .unwrap_or_default();
        std::env::split_paths(&path)
            .map(|dir| dir.join(program))
            .collect()
    };
    let Some(found) = candidates.into_iter().find(|path| is_executable_file(path)) else {
        return Ok(());
    };
    let mut head = [0_u8; 4];
    let Ok(read) = std::fs::File::open(&found).and_then(|mut file| file.read(&mut head)) else {
        return Ok(());
    };
    let head = &head[..read];
    if head.starts_with(b"#!") || head.starts_with(b"\x7fELF") || binfmt_misc_in_use() {
        return Ok(());
    }
    Err(io::Error::from_raw_os_error(
        rustix::io::Errno::NOEXEC.raw_os_error(),
    ))
}

#[cfg(target_os = "linux")]
fn is_executable_file(path: &std::path::Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}

/// Whether binfmt_misc is mounted with any format registered.
#[cfg(target_os = "linux")]
fn binfmt_misc_in_use() -> bool {
    std::fs::read_dir("/proc/sys/fs/binfmt_misc").is_ok_and(|entries| {
        entries
            .flatten()
            .any(|entry| !matches!(entry.file_name().to_str(), Some("status" | "register")))
    })
}

/// `ESRCH`, without a libc dependency.
#[cfg(target_os = "linux")]
fn libc_esrch() -> i32 {
    rustix::io::Errno::SRCH.raw_os_error()
}

struct Request {
    command: Command,
    handle: Option<tokio::runtime::Handle>,
    reply: mpsc::Sender<io::Result<Child>>,
}

fn spawn_here(mut command: Command, handle: Option<tokio::runtime::Handle>) -> io::Result<Child> {
    let spawned = {
        let _entered = handle.as_ref().map(tokio::runtime::Handle::enter);
        command.spawn()
    };
    match spawned {
        // The runtime chosen (another host's, the newest) stopped between
        // the choice and the spawn: the process's default one serves.
        Err(error) if handle.is_some() && shut_down(&error) => {
            let fallback = crate::runtime::Background::process_default();
            let _entered = fallback
                .as_ref()
                .map(|background| background.handle().enter());
            command.spawn()
        }
        other => other,
    }
}

/// Whether `error` is tokio's for a runtime that is shutting down.
fn shut_down(error: &io::Error) -> bool {
    error.to_string().contains("is being shutdown")
}

/// The thread children are forked from: started once, it lives as long as
/// the process. `None` if it could not be started (children are then forked
/// from the caller's thread).
fn spawner() -> Option<mpsc::Sender<Request>> {
    static SPAWNER: OnceLock<Option<Mutex<mpsc::Sender<Request>>>> = OnceLock::new();
    SPAWNER
        .get_or_init(|| {
            let (sender, requests) = mpsc::channel::<Request>();
            std::thread::Builder::new()
                .name("hooks-spawner".into())
                .spawn(move || {
                    // Started from a background runtime thread it would be
                    // at SCHED_BATCH, and so would every child: children get
                    // the process's own policy instead.
                    crate::runtime::take_the_process_policy();
                    for request in requests {
                        // A panic in one spawn must not take the thread (and
                        // every later child's parent-death signal) with it.
                        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                            spawn_here(request.command, request.handle)
                        }))
                        .unwrap_or_else(|_| Err(io::Error::other("spawning the child panicked")));
                        let _ = request.reply.send(result);
                    }
                })
                .ok()
                .map(|_| Mutex::new(sender))
        })
        .as_ref()
        .map(|sender| {
            sender
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .clone()
        })
}
