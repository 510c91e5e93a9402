//! [`ChildTree`]: a spawned child, marked so that all it starts can be found and killed.

use std::collections::hash_map::RandomState;
use std::ffi::{OsStr, OsString};
use std::hash::{BuildHasher, Hasher};
use std::io;
use std::process::ExitStatus;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::process::{Child, Command};

#[cfg(target_os = "linux")]
use super::cgroup::Cgroup;
use super::spawn::Setup;
use super::{kill, registry, spawn};

/// The environment variable that marks every process of a tree.
///
/// Its value is a `:`-separated list of tree tokens: a tree started from inside
/// another tree (a hook that runs `hooks`, say) keeps the outer token and adds
/// its own, so both supervisors find it.
pub const TREE_ENV: &str = "HERMES_HOOKS_TREE";

/// A spawned child and every process it starts, same process group or not.
///
/// Dropping it kills the whole tree (unless [`run`](super::run) decided that
/// what is left is detached and must be left alone).
#[derive(Debug)]
pub struct ChildTree {
    child: Child,
    pid: u32,
    token: String,
    armed: bool,
    /// The tree's cgroup v2, where one could be made (Linux).
    #[cfg(target_os = "linux")]
    cgroup: Option<Cgroup>,
    /// Its entry in the registry of live trees.
    registered: Option<u64>,
    /// The inodes of its stdio pipes, to find whoever holds them at kill time.
    pipes: Vec<u64>,
    /// The sandbox's name, when it runs in one.
    sandbox: Option<String>,
    /// A private temporary directory of its sandbox, removed with it.
    private_dir: Option<std::path::PathBuf>,
    /// Its sandbox's mount namespace, held so that its teardown happens
    /// off the reply's path (see `sandbox/release.rs`).
    #[cfg(all(target_os = "linux", feature = "sandbox"))]
    mount_namespace: Option<std::os::fd::OwnedFd>,
    /// The kernel's record of what its sandbox denied, where its sandbox
    /// keeps one (`sandbox/kernel_record.rs`).
    #[cfg(target_os = "linux")]
    record: Option<super::sandbox::kernel_record::KernelRecord>,
}

impl ChildTree {
    /// Spawns `command` with the stdio the caller configured, in its own process
    /// group, marked (see [`TREE_ENV`]) so that descendants that call
    /// `setsid`/`setpgid`, or are reparented, are still found.
    ///
    /// On Linux the child also dies with this process (a parent-death signal),
    /// and is contained by a cgroup v2 of its own where this process may
    /// create one (see [`CGROUP_ENV`](super::CGROUP_ENV)), else made a child
    /// subreaper, so that orphans below it stay its descendants.
    pub fn spawn(command: Command) -> io::Result<ChildTree> {
        ChildTree::spawn_sandboxed(command, None)
    }

    /// [`ChildTree::spawn`], with the child (and so every process it
    /// starts) in `sandbox` when one is given (see [`super::sandbox`]).
    /// A sandbox that fails to apply in the child fails the spawn.
    pub fn spawn_sandboxed(
        mut command: Command,
        sandbox: Option<super::sandbox::Prepared>,
    ) -> io::Result<ChildTree> {
        #[cfg(target_os = "linux")]
        let mut sandbox = sandbox;
        #[cfg(target_os = "linux")]
        let plan = sandbox
            .as_mut()
            .map(|prepared| prepared.take_plan(&mut command));
        let sandbox_name = sandbox.as_ref().map(|prepared| prepared.name().to_owned());
        let token = new_token();
        let marks = marks_for(&command, &token);
        command
            .process_group(0)
            .kill_on_drop(true)
            .env(TREE_ENV, marks);
        #[cfg(target_os = "linux")]
        let (mut cgroup, setup) = match Cgroup::create(&token) {
            Some((cgroup, procs)) => (
                Some(cgroup),
                Setup {
                    cgroup_procs: Some(procs),
                    // Orphans of a process that left the cgroup stay ours too.
                    subreaper: true,
                    sandbox: plan,
                },
            ),
            None => (
                None,
                Setup {
                    cgroup_procs: None,
                    subreaper: true,
                    sandbox: plan,
                },
            ),
        };
        #[cfg(not(target_os = "linux"))]
        let setup = Setup::default();
        // The kernel's record is answered from the child's own `execve` on:
        // listened on before the spawn, the child's end closed after it.
        #[cfg(target_os = "linux")]
        let listening = sandbox
            .as_mut()
            .and_then(super::sandbox::Prepared::take_record_channel)
            .map(super::sandbox::kernel_record::Channel::listen)
            .transpose();
        #[cfg(target_os = "linux")]
        let (spawned, record) = match listening {
            Ok(listening) => {
                let spawned = spawn::spawn(command, setup);
                let record = listening.map(super::sandbox::kernel_record::Listening::spawned);
                (spawned, record)
            }
            Err(error) => (Err(error), None),
        };
        #[cfg(not(target_os = "linux"))]
        let spawned = spawn::spawn(command, setup);
        #[cfg(target_os = "linux")]
        let spawned = spawned.inspect_err(|_| {
            if let Some(cgroup) = &cgroup {
                // The child could not join (no right over the common
                // ancestor, say), or failed for another reason: either way
                // later trees go without cgroups, by subreaper and mark.
                let _ = std::fs::remove_dir(cgroup.dir());
            }
        });
        #[cfg(target_os = "linux")]
        let spawned = match spawned {
            Err(error) if cgroup.is_some() && error.raw_os_error().is_some_and(is_join_error) => {
                if let Some(cgroup) = cgroup.take() {
                    cgroup.abandon();
                }
                Err(error)
            }
            other => other,
        };
        #[cfg(target_os = "linux")]
        let private_dir = sandbox
            .as_mut()
            .and_then(super::sandbox::Prepared::take_private_dir);
        #[cfg(not(target_os = "linux"))]
        let private_dir = None;
        // The ruleset fd was needed until the child applied it (without the
        // `sandbox` feature `Prepared` holds nothing to release).
        #[allow(clippy::drop_non_drop)]
        drop(sandbox);
        let child = match spawned {
            Ok(child) => child,
            Err(error) => {
                if let Some(dir) = &private_dir {
                    let _ = std::fs::remove_dir_all(dir);
                }
                return Err(error);
            }
        };
        let pipes = pipe_inodes(&child);
        let pid = child
            .id()
            .ok_or_else(|| io::Error::other("the spawned child has no pid"))?;
        #[cfg(all(target_os = "linux", feature = "sandbox"))]
        let mount_namespace = sandbox_name
            .as_ref()
            .and_then(|_| super::sandbox::release::hold_mount_namespace(pid));
        #[cfg(target_os = "linux")]
        let cgroup = cgroup.inspect(|cgroup| {
            // The child joined before exec (a failed join fails the spawn).
            // Not there now: it moved itself out. The tree keeps its cgroup,
            // the subreaper and the pipe scan; cgroups stay on for the others.
            if !cgroup.holds(pid) {
                tracing::debug!("the child {pid} left {}", cgroup.dir().display());
            }
        });
        #[cfg(target_os = "linux")]
        let (start, cgroup_dir) = (
            super::procfs::start_of(pid as i32).unwrap_or(0),
            cgroup.as_ref().map(|cgroup| cgroup.dir().to_path_buf()),
        );
        #[cfg(not(target_os = "linux"))]
        let (start, cgroup_dir) = (0, None);
        let registered = Some(registry::register(registry::Registered {
            pid,
            start,
            token: token.clone(),
            cgroup: cgroup_dir,
        }));
        let tree = ChildTree {
            child,
            pid,
            token,
            armed: true,
            #[cfg(target_os = "linux")]
            cgroup,
            registered,
            pipes,
            sandbox: sandbox_name,
            private_dir,
            #[cfg(all(target_os = "linux", feature = "sandbox"))]
            mount_namespace,
            #[cfg(target_os = "linux")]
            record,
        };
        Ok(tree)
    }

    /// How many inet sockets the tree asked for so far, where its sandbox
    /// records them ([`Context::record_denials`](super::sandbox::Context::record_denials));
    /// `0` elsewhere.
    pub fn network_attempts(&self) -> u64 {
        #[cfg(target_os = "linux")]
        return self
            .record
            .as_ref()
            .map_or(0, |record| record.network_attempts());
        #[cfg(not(target_os = "linux"))]
        return 0;
    }

    /// The first path of the host's `/tmp` the tree looked up that its
    /// private `/tmp` hid, where its sandbox records them (as
    /// [`ChildTree::network_attempts`]).
    pub fn hidden_tmp(&self) -> Option<std::path::PathBuf> {
        #[cfg(target_os = "linux")]
        return self.record.as_ref().and_then(|record| record.hidden_tmp());
        #[cfg(not(target_os = "linux"))]
        return None;
    }

    /// The first path of the host the tree opened to read or ran that its
    /// Landlock ruleset certainly denied (beneath no root the profile
    /// grants, or beneath a hidden one), where its sandbox records them (as
    /// [`ChildTree::network_attempts`]).
    pub fn denied_path(&self) -> Option<std::path::PathBuf> {
        #[cfg(target_os = "linux")]
        return self.record.as_ref().and_then(|record| record.denied_path());
        #[cfg(not(target_os = "linux"))]
        return None;
    }

    /// The first unix socket the host has that the tree's sandbox kept it
    /// from (masked, hidden by its private `/tmp`, an abstract one cut
    /// off): its path, or `@name` for an abstract one; where its sandbox
    /// records them (as [`ChildTree::network_attempts`]).
    pub fn denied_unix_socket(&self) -> Option<String> {
        #[cfg(target_os = "linux")]
        return (self.record.as_ref()).and_then(|record| record.denied_unix_socket());
        #[cfg(not(target_os = "linux"))]
        return None;
    }

    /// The name of the sandbox profile the tree runs in (`None`: no sandbox).
    pub fn sandbox(&self) -> Option<&str> {
        self.sandbox.as_deref()
    }

    /// Whether the tree is contained by a cgroup v2 of its own (see
    /// [`CGROUP_ENV`](super::CGROUP_ENV)); else by the subreaper and the mark.
    pub fn in_cgroup(&self) -> bool {
        #[cfg(target_os = "linux")]
        return self.cgroup.is_some();
        #[cfg(not(target_os = "linux"))]
        return false;
    }

    /// The direct child's pid (== its process group id), captured at spawn.
    pub fn id(&self) -> u32 {
        self.pid
    }

    /// This tree's token, as found in [`TREE_ENV`] of each of its processes.
    pub fn token(&self) -> &str {
        &self.token
    }

    /// The direct child, to take stdin/stdout/stderr.
    pub fn child_mut(&mut self) -> &mut Child {
        &mut self.child
    }

    /// Waits for the direct child to exit (the rest of the tree may live on).
    pub async fn wait(&mut self) -> io::Result<ExitStatus> {
        self.child.wait().await
    }

    /// The direct child's status if it has exited, without waiting.
    pub fn try_wait(&mut self) -> io::Result<Option<ExitStatus>> {
        self.child.try_wait()
    }

    /// SIGKILLs the group and every descendant (including those that left the
    /// group or session), then reaps the direct child if it is already dead.
    /// Idempotent; works after the direct child was reaped.
    pub fn kill_tree(&mut self) {
        // tokio forgets the pid once it has reaped the child: from then on the pid
        // may be reused, so it is neither a root of the ppid walk nor proof that
        // the process group is still ours.
        let unreaped = self.child.id().is_some();
        #[cfg(target_os = "linux")]
        let cgroup = self.cgroup.as_ref().map(Cgroup::dir);
        #[cfg(not(target_os = "linux"))]
        let cgroup = None;
        kill::kill_tree(&kill::Target {
            pgid: self.pid,
            token: &self.token,
            unreaped,
            cgroup,
            pipes: &self.pipes,
        });
        // Safe after reaping too: tokio then refuses instead of signalling a pid.
        let _ = self.child.start_kill();
        let _ = self.child.try_wait();
    }

    /// Leaves whatever is still running alone when this value is dropped: the
    /// descendants of a child that exited normally and that hold none of our
    /// pipes are detached on purpose.
    pub(crate) fn disarm(&mut self) {
        self.armed = false;
        if let Some(id) = self.registered.take() {
            registry::unregister(id);
        }
        // What still runs leaves the cgroup with it: detached, not contained.
        #[cfg(target_os = "linux")]
        if let Some(cgroup) = self.cgroup.take() {
            cgroup.release();
        }
    }
}

impl Drop for ChildTree {
    fn drop(&mut self) {
        if self.armed {
            self.kill_tree();
        }
        #[cfg(target_os = "linux")]
        if let Some(cgroup) = self.cgroup.take() {
            cgroup.remove();
        }
        if let Some(id) = self.registered.take() {
            registry::unregister(id);
        }
        if let Some(dir) = self.private_dir.take() {
            let _ = std::fs::remove_dir_all(dir);
        }
        #[cfg(all(target_os = "linux", feature = "sandbox"))]
        if let Some(namespace) = self.mount_namespace.take() {
            super::sandbox::release::release_later(namespace);
        }
    }
}

/// The inodes of the child's stdio pipes (Linux; empty elsewhere).
fn pipe_inodes(child: &Child) -> Vec<u64> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let fds = [
            child.stdin.as_ref().map(AsRawFd::as_raw_fd),
            child.stdout.as_ref().map(AsRawFd::as_raw_fd),
            child.stderr.as_ref().map(AsRawFd::as_raw_fd),
        ];
        fds.into_iter()
            .flatten()
            .filter_map(super::holders::pipe_inode)
            .collect()
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = child;
        Vec::new()
    }
}

/// A token no other tree of this or any other process carries: our pid, a
/// counter, and 64 random bits (std's hasher keys come from the OS's RNG).
fn new_token() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u64(count);
    format!("{}.{count}.{:016x}", std::process::id(), hasher.finish())
}

/// The value of [`TREE_ENV`] for a child of `command`: the marks it would
/// inherit (or was given), followed by `token`.
fn marks_for(command: &Command, token: &str) -> OsString {
    let given = command
        .as_std()
        .get_envs()
        .find(|(key, _)| *key == OsStr::new(TREE_ENV))
        .map(|(_, value)| value.map(OsStr::to_os_string));
    let inherited = match given {
        Some(value) => value,
        None => std::env::var_os(TREE_ENV),
    };
    let mut marks = OsString::new();
    if let Some(inherited) = inherited.filter(|value| !value.is_empty()) {
        marks.push(inherited);
        marks.push(":");
    }
    marks.push(token);
    marks
}

/// Whether a spawn failed because the child could not join its cgroup.
#[cfg(target_os = "linux")]
fn is_join_error(errno: i32) -> bool {
    errno == spawn::JOIN_FAILED.raw_os_error()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_unique_and_colon_free() {
        let (a, b) = (new_token(), new_token());
        assert_ne!(a, b);
        assert!(!a.contains(':') && !a.contains('='));
    }

    #[test]
    fn an_outer_mark_is_kept() {
        let mut command = Command::new("true");
        command.env(TREE_ENV, "outer");
        assert_eq!(marks_for(&command, "inner"), OsString::from("outer:inner"));
        command.env_remove(TREE_ENV);
        assert_eq!(marks_for(&command, "inner"), OsString::from("inner"));
    }
}
