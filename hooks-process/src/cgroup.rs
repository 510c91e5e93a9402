//! A per-tree cgroup v2 (Linux): the containment a child cannot edit.
//!
//! Where this process may create cgroups below its own (root, or a delegated
//! subtree), each tree's direct child joins a fresh cgroup between fork and
//! exec ([`spawn`](super::spawn)), so everything it ever starts is in it,
//! whatever it does with its environment, session or parentage; killing the
//! tree writes `1` to its `cgroup.kill` (Linux 5.14+). Elsewhere `create`
//! returns `None` and the tree is found as before (see [`kill`](super::kill)).
//!
//! Cgroups are named `hermes-hooks.<owner start>.<owner pid>.<n>.<random>`:
//! one whose owner is gone (killed with SIGKILL, so it could not clean up) is
//! killed and removed by the next process that creates one.

use std::fs;
use std::io;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock, PoisonError};

/// Set to `off` (or `0`, `no`, `false`) to never use cgroups: trees are then
/// contained by the subreaper and the mark alone (the fallback, tested so).
pub const CGROUP_ENV: &str = "HERMES_HOOKS_CGROUP";

const PREFIX: &str = "hermes-hooks.";

/// One tree's cgroup directory.
#[derive(Debug)]
pub(crate) struct Cgroup {
    dir: PathBuf,
}

/// Where this process's own cgroup is, when cgroups may be used at all.
struct Base {
    /// `<cgroup2 mount><our cgroup>`: new cgroups are made in it.
    dir: PathBuf,
    /// Our cgroup as `/proc/<pid>/cgroup` names it (the `0::` line).
    relative: String,
}

/// Cgroups found not to work here (a `mkdir` or the move failed): not tried again.
static BROKEN: OnceLock<()> = OnceLock::new();
/// Cgroups whose removal failed (still emptying): tried again later.
static LEFTOVER: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn base() -> Option<&'static Base> {
    static BASE: OnceLock<Option<Base>> = OnceLock::new();
    BASE.get_or_init(|| {
        let setting = std::env::var(CGROUP_ENV).unwrap_or_default();
        if matches!(
            setting.trim().to_ascii_lowercase().as_str(),
            "off" | "0" | "no" | "false"
        ) {
            return None;
        }
        let base = find_base()?;
        sweep_orphans(&base.dir);
        Some(base)
    })
    .as_ref()
    .filter(|_| BROKEN.get().is_none())
}

/// Our cgroup v2 directory: the `cgroup2` mount (from mountinfo) joined with
/// our path in it (the `0::` line of `/proc/self/cgroup`).
fn find_base() -> Option<Base> {
    let cgroups = fs::read_to_string("/proc/self/cgroup").ok()?;
    let relative = cgroups.lines().find_map(|line| line.strip_prefix("0::"))?;
    let mountinfo = fs::read_to_string("/proc/self/mountinfo").ok()?;
    let mount = mountinfo.lines().find_map(cgroup2_mount)?;
    let dir = Path::new(&mount).join(relative.trim_start_matches('/'));
    // (The root cgroup has no `cgroup.kill` of its own: it is looked for in
    // each new cgroup.)
    dir.join("cgroup.procs").exists().then(|| Base {
        dir,
        relative: relative.to_owned(),
    })
}

/// The mount point of a mountinfo line when it mounts cgroup2 (the root of the
/// hierarchy: a bind mount of a subtree would shift every path).
pub(crate) fn cgroup2_mount(line: &str) -> Option<String> {
    let (mount, fs) = line.split_once(" - ")?;
    if fs.split_ascii_whitespace().next() != Some("cgroup2") {
        return None;
    }
    let mut fields = mount.split_ascii_whitespace();
    let root = fields.nth(3)?;
    let point = fields.next()?;
    (root == "/").then(|| unescape_octal(point))
}

/// mountinfo writes space, tab, newline and backslash as `\ooo`.
fn unescape_octal(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        let octal = bytes
            .get(index + 1..index + 4)
            .filter(|_| bytes[index] == b'\\');
        match octal.and_then(|digits| u8::from_str_radix(std::str::from_utf8(digits).ok()?, 8).ok())
        {
            Some(byte) => {
                out.push(byte);
                index += 4;
            }
            None => {
                out.push(bytes[index]);
                index += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

impl Cgroup {
    /// A new cgroup for the tree `token`, and its `cgroup.procs` opened for
    /// the child to join; `None` where cgroups cannot be used.
    pub(crate) fn create(token: &str) -> Option<(Cgroup, OwnedFd)> {
        let base = base()?;
        retry_leftovers();
        let own_start = super::procfs::start_of(std::process::id() as i32).unwrap_or(0);
        let dir = base.dir.join(format!("{PREFIX}{own_start}.{token}"));
        if let Err(error) = fs::create_dir(&dir) {
            tracing::debug!(
                "cgroups not usable here ({}: {error}); trees are contained by subreaper and mark",
                dir.display()
            );
            let _ = BROKEN.set(());
            return None;
        }
        let cgroup = Cgroup { dir };
        if !cgroup.dir.join("cgroup.kill").exists() {
            // Before Linux 5.14: no way to kill a cgroup at once.
            tracing::debug!(
                "no cgroup.kill in {}; trees are contained by subreaper and mark",
                cgroup.dir.display()
            );
            let _ = BROKEN.set(());
            cgroup.remove();
            return None;
        }
        match fs::OpenOptions::new()
            .write(true)
            .open(cgroup.dir.join("cgroup.procs"))
        {
            Ok(procs) => Some((cgroup, procs.into())),
            Err(error) => {
                tracing::debug!("cannot open {}/cgroup.procs: {error}", cgroup.dir.display());
                let _ = BROKEN.set(());
                cgroup.remove();
                None
            }
        }
    }

    /// Whether process `pid` is in this cgroup (it joined between fork and exec).
    pub(crate) fn holds(&self, pid: u32) -> bool {
        let Some(base) = base() else { return false };
        let Some(name) = self.dir.file_name().and_then(|name| name.to_str()) else {
            return false;
        };
        let expected = format!("{}/{name}", base.relative.trim_end_matches('/'));
        fs::read_to_string(format!("/proc/{pid}/cgroup")).is_ok_and(|text| {
            text.lines()
                .any(|line| line.strip_prefix("0::") == Some(&expected))
        })
    }

    /// The child could not join: cgroups do not work here; this one goes.
    /// Said once, as a warning: the cgroup could be made, so this was expected
    /// to work, and containment is weaker from now on.
    pub(crate) fn abandon(self) {
        if BROKEN.set(()).is_ok() {
            tracing::warn!(
                "[hooks] a hook process could not join its cgroup {}; processes are contained by subreaper and mark from now on",
                self.dir.display()
            );
        }
        self.remove();
    }

    /// The cgroup's directory.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// SIGKILLs every process in the cgroup, atomically (new forks included).
    pub(crate) fn kill(&self) {
        kill_dir(&self.dir);
    }

    /// Removes the cgroup once it is empty (killed processes go within
    /// milliseconds); if it is not empty yet, later.
    pub(crate) fn remove(self) {
        if !remove_dir(&self.dir) {
            LEFTOVER
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(self.dir);
        }
    }

    /// Leaves what still runs in it alone (detached on purpose): moves those
    /// processes back to our own cgroup, then removes this one.
    pub(crate) fn release(self) {
        let Some(base) = base() else {
            return self.remove();
        };
        let target = base.dir.join("cgroup.procs");
        for _ in 0..16 {
            let procs = fs::read_to_string(self.dir.join("cgroup.procs")).unwrap_or_default();
            if procs.trim().is_empty() {
                break;
            }
            for pid in procs.lines() {
                let _ = fs::write(&target, pid.trim());
            }
        }
        self.remove();
    }
}

/// SIGKILLs every process in the cgroup at `dir` (see [`Cgroup::kill`]).
pub(crate) fn kill_dir(dir: &Path) {
    match fs::write(dir.join("cgroup.kill"), b"1") {
        Ok(()) => {}
        // Removed already: nothing was left in it.
        Err(error) if error.kind() == io::ErrorKind::NotFound => {}
        Err(error) => tracing::warn!("cannot kill the processes of {}: {error}", dir.display()),
    }
}

/// Removes the cgroup at `dir`, waiting up to 100 ms for it to empty;
/// whether it is gone. Child cgroups go first: a `hooks` run inside a tree
/// makes its own trees' cgroups under that tree's, and one killed with the
/// tree leaves them behind; `rmdir` of a cgroup with a child is EBUSY for
/// good (every later host start waited 100 ms per such orphan).
pub(crate) fn remove_dir(dir: &Path) -> bool {
    remove_children(dir);
    for _ in 0..50 {
        match fs::remove_dir(dir) {
            Ok(()) => return true,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return true,
            Err(_) => std::thread::sleep(std::time::Duration::from_millis(2)),
        }
    }
    false
}

/// Removes the child cgroups of `dir`, deepest first.
fn remove_children(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
            remove_dir(&entry.path());
        }
    }
}

fn retry_leftovers() {
    let leftovers = std::mem::take(&mut *LEFTOVER.lock().unwrap_or_else(PoisonError::into_inner));
    let still: Vec<PathBuf> = leftovers
        .into_iter()
        .filter(|dir| {
            remove_children(dir);
            fs::remove_dir(dir).is_err() && dir.exists()
        })
        .collect();
    LEFTOVER
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .extend(still);
}

/// Kills and removes the cgroups left by owners that are gone (a host killed
/// with SIGKILL: its trees' direct children died with it, the rest is here).
fn sweep_orphans(base: &Path) {
    let Ok(entries) = fs::read_dir(base) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some((start, pid)) = name.to_str().and_then(owner_of) else {
            continue;
        };
        if super::procfs::start_of(pid) == Some(start) {
            continue;
        }
        let orphan = Cgroup { dir: entry.path() };
        tracing::debug!(
            "killing what is left of a dead host's tree in {}",
            orphan.dir.display()
        );
        orphan.kill();
        orphan.remove();
    }
}

/// The owner (start time, pid) named by a cgroup of ours.
pub(crate) fn owner_of(name: &str) -> Option<(u64, i32)> {
    let mut parts = name.strip_prefix(PREFIX)?.split('.');
    let start = parts.next()?.parse().ok()?;
    let pid = parts.next()?.parse().ok()?;
    Some((start, pid))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cgroup2_mount_is_found_in_mountinfo() {
        let line = "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw";
        assert_eq!(
            cgroup2_mount(line).as_deref(),
            Some("/sys/fs/cgroup/unified")
        );
        let v1 = "40 31 0:37 / /sys/fs/cgroup/pids rw - cgroup cgroup rw,pids";
        assert_eq!(cgroup2_mount(v1), None);
        let bind = "42 31 0:38 /sub /mnt/cg rw - cgroup2 cgroup2 rw";
        assert_eq!(cgroup2_mount(bind), None);
        let spaced = "43 31 0:38 / /mnt/my\\040cg rw - cgroup2 cgroup2 rw";
        assert_eq!(cgroup2_mount(spaced).as_deref(), Some("/mnt/my cg"));
    }

    /// An orphan with a child cgroup (a `hooks` run inside a tree, killed
    /// with it) is removed, child first; it used to stay, EBUSY, forever.
    #[test]
    fn an_orphan_with_a_child_cgroup_is_swept() {
        let Some(base) = find_base() else {
            return; // no cgroup v2 here
        };
        // Owner pid 0 at start time 1: no such process, so an orphan.
        let unique = format!(
            "{}.{:x}",
            std::process::id(),
            std::ptr::from_ref(&base) as usize
        );
        let orphan = base.dir.join(format!("{PREFIX}1.0.0.test-{unique}"));
        let child = orphan.join(format!("{PREFIX}1.0.1.test-{unique}"));
        if fs::create_dir(&orphan).is_err() {
            return; // cgroups not writable here
        }
        fs::create_dir(&child).expect("a child cgroup");
        sweep_orphans(&base.dir);
        let left = orphan.exists();
        if left {
            // Leave nothing behind for the next host start.
            let _ = fs::remove_dir(&child);
            let _ = fs::remove_dir(&orphan);
        }
        assert!(!left, "{} survived the sweep", orphan.display());
    }

    #[test]
    fn owners_are_read_from_the_name() {
        assert_eq!(owner_of("hermes-hooks.123.456.0.abcdef"), Some((123, 456)));
        assert_eq!(owner_of("hermes-hooks.x.456.0.ab"), None);
        assert_eq!(owner_of("system.slice"), None);
    }
}
