//! The processes that hold a tree's pipes (Linux): found by the pipe
//! inodes in `/proc/<pid>/fd`, so a descendant that left the group, the
//! session, the mark and the cgroup (or had none to leave) is still found
//! while it holds the hook's stdin, stdout or stderr.

use std::collections::HashSet;
use std::os::unix::fs::MetadataExt;

/// The inode of the pipe behind our fd `fd` (`None` if it is not a pipe).
pub(crate) fn pipe_inode(fd: std::os::fd::RawFd) -> Option<u64> {
    let link = std::fs::read_link(format!("/proc/self/fd/{fd}")).ok()?;
    link.to_str()?.starts_with("pipe:[").then_some(())?;
    std::fs::metadata(format!("/proc/self/fd/{fd}"))
        .ok()
        .map(|meta| meta.ino())
}

/// Every other process with an fd on one of the pipes `inodes`.
pub(crate) fn holders(inodes: &[u64]) -> HashSet<i32> {
    let mut found = HashSet::new();
    if inodes.is_empty() {
        return found;
    }
    let wanted: Vec<String> = inodes.iter().map(|ino| format!("pipe:[{ino}]")).collect();
    let own = std::process::id() as i32;
    let Ok(processes) = std::fs::read_dir("/proc") else {
        return found;
    };
    for process in processes.flatten() {
        let Some(pid) = process
            .file_name()
            .to_str()
            .and_then(|name| name.parse::<i32>().ok())
        else {
            continue;
        };
        if pid == own {
            continue;
        }
        let Ok(fds) = std::fs::read_dir(process.path().join("fd")) else {
            continue; // gone, or not ours to read
        };
        let holds = fds.flatten().any(|fd| {
            std::fs::read_link(fd.path())
                .ok()
                .and_then(|link| link.to_str().map(|text| wanted.iter().any(|w| w == text)))
                .unwrap_or(false)
        });
        if holds {
            found.insert(pid);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    #[test]
    fn a_child_holding_our_pipe_is_found() {
        let mut child = std::process::Command::new("sleep")
            .arg("5")
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("sleep");
        let pipe = child.stdout.as_ref().expect("stdout").as_raw_fd();
        let inode = pipe_inode(pipe).expect("a pipe");
        let found = holders(&[inode]);
        let _ = child.kill();
        let _ = child.wait();
        assert!(found.contains(&(child.id() as i32)), "{found:?}");
        assert!(!found.contains(&(std::process::id() as i32)));
    }
}
