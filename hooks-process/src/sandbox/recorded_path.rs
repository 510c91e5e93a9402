//! The paths of the kernel's record (`kernel_record.rs`): a recorded
//! caller's path read from its memory, made absolute from its working
//! folder or `dirfd` as it sees them (a Python `os.chdir("/tmp/x")` then
//! `open("rules.txt")`, a shell's `cd /tmp && cat x/rules`), and checked
//! against the host's `/tmp` its private `/tmp` hides.
// Compiled on Linux, used only with the `sandbox` feature.
#![cfg_attr(not(feature = "sandbox"), allow(dead_code))]

use std::io;
use std::path::{Component, Path, PathBuf};

/// `path` as `pid` looks it up: as it is when absolute, else joined to the
/// folder `dirfd` is open on (`None` or `AT_FDCWD`: its working folder),
/// as `pid` sees that folder. `None` for an empty path (`AT_EMPTY_PATH`:
/// the fd itself) or a folder that cannot be read.
pub(crate) fn absolute(pid: u32, path: PathBuf, dirfd: Option<i32>) -> Option<PathBuf> {
    if path.is_absolute() {
        return Some(path);
    }
    if path.as_os_str().is_empty() {
        return None;
    }
    let folder = match dirfd {
        None | Some(libc::AT_FDCWD) => format!("/proc/{pid}/cwd"),
        Some(fd) if fd >= 0 => format!("/proc/{pid}/fd/{fd}"),
        Some(_) => return None,
    };
    let folder = std::fs::read_link(folder).ok()?;
    folder.is_absolute().then(|| folder.join(path))
}

/// `path` without `.` and `..` (read lexically, as the hook meant it;
/// `..` at the root stays there).
pub(crate) fn lexical(path: &Path) -> PathBuf {
    let mut plain = PathBuf::from("/");
    for part in path.components() {
        match part {
            Component::Normal(name) => plain.push(name),
            Component::ParentDir => {
                plain.pop();
            }
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    plain
}

/// `path` (absolute; read lexically) when it is beneath the host's `/tmp`,
/// exists there, and does not in the private `/tmp` of `pid` (seen through
/// `/proc/<pid>/root`).
pub(crate) fn hidden_by_private_tmp(pid: u32, path: &Path) -> Option<PathBuf> {
    let path = lexical(path);
    let rest = path.strip_prefix("/tmp").ok()?;
    if rest.as_os_str().is_empty() {
        return None;
    }
    std::fs::symlink_metadata(&path).ok()?;
    let seen = Path::new(&format!("/proc/{pid}/root/tmp")).join(rest);
    match std::fs::symlink_metadata(&seen) {
        Err(error) if error.kind() == io::ErrorKind::NotFound => Some(path),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_read_lexically_and_a_relative_one_from_the_callers_folder() {
        for (path, plain) in [
            ("/tmp/x/../y/./rules", "/tmp/y/rules"),
            ("/../../tmp/x", "/tmp/x"),
            ("/tmp/..", "/"),
            ("//tmp//x/", "/tmp/x"),
        ] {
            assert_eq!(lexical(Path::new(path)), Path::new(plain), "{path}");
        }
        let pid = std::process::id();
        let here = std::env::current_dir().unwrap();
        let relative = absolute(pid, PathBuf::from("a/b"), None);
        assert_eq!(relative, Some(here.join("a/b")));
        let at_cwd = absolute(pid, PathBuf::from("a"), Some(libc::AT_FDCWD));
        assert_eq!(at_cwd, Some(here.join("a")));
        let root = std::fs::File::open("/").unwrap();
        let fd = std::os::fd::AsRawFd::as_raw_fd(&root);
        assert_eq!(
            absolute(pid, PathBuf::from("etc"), Some(fd)),
            Some(PathBuf::from("/etc"))
        );
        assert_eq!(absolute(pid, PathBuf::new(), Some(fd)), None);
        assert_eq!(absolute(pid, PathBuf::from("x"), Some(-1)), None);
        let plain = PathBuf::from("/tmp/x");
        assert_eq!(absolute(pid, plain.clone(), Some(fd)), Some(plain));
    }
}
