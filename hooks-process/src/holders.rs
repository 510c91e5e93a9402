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
        // A child of this very process holding the pipe is another tree's
        // root between its fork and its exec (it holds a copy of every fd
        // of ours until then), or this tree's own root, which the caller
        // names anyway: never a stray descendant, which is reparented to
        // its tree's root or to init, not to us.
        if holds && parent_of(&process.path()) != Some(own) {
            found.insert(pid);
        }
    }
    found
}

/// The parent pid in `<proc dir>/stat` (after the command's closing paren).
fn parent_of(proc_dir: &std::path::Path) -> Option<i32> {
    let stat = std::fs::read_to_string(proc_dir.join("stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    /// A descendant holding our pipe is found; our own direct child holding
    /// it is not: that is what another tree's root looks like between its
    /// fork and its exec (a copy of every fd of ours), and killing it with
    /// this tree killed an unrelated hook (seen as a flaky timeout test).
    #[test]
    fn a_descendant_holding_our_pipe_is_found_and_our_own_child_is_not() {
        let mut child = std::process::Command::new("sh")
            .args(["-c", "sleep 30 & echo $!; wait"])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("sh");
        let mut stdout = child.stdout.take().expect("stdout");
        let inode = pipe_inode(stdout.as_raw_fd()).expect("a pipe");
        // The pid line, read byte by byte so the pipe stays ours.
        let mut line = String::new();
        let mut byte = [0u8; 1];
        while std::io::Read::read(&mut stdout, &mut byte).expect("read") == 1 && byte[0] != b'\n' {
            line.push(char::from(byte[0]));
        }
        let grandchild: i32 = line.trim().parse().expect("a pid");
        let found = holders(&[inode]);
        let _ = rustix::process::kill_process(
            rustix::process::Pid::from_raw(grandchild).expect("pid"),
            rustix::process::Signal::KILL,
        );
        let _ = child.kill();
        let _ = child.wait();
        assert!(found.contains(&grandchild), "{found:?}");
        assert!(!found.contains(&(child.id() as i32)), "{found:?}");
        assert!(!found.contains(&(std::process::id() as i32)));
    }
}
