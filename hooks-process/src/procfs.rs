//! Which processes belong to a tree, read from `/proc` (Linux).
//!
//! A process is ours when its initial environment carries the tree's token,
//! when it descends (by parent pid) from the unreaped direct child or from a
//! process that is ours, or when it is in the tree's process group and that
//! group is proven ours. Nothing else is ever returned.

use std::collections::{HashMap, HashSet};
use std::fs;

use super::tree::TREE_ENV;

/// One line of the process table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Entry {
    pub pid: i32,
    pub ppid: i32,
    pub pgid: i32,
    /// When it started, in clock ticks since boot: with the pid, it names one
    /// process, so a pid reused between a scan and a kill is told apart.
    pub start: u64,
    /// Already dead, waiting for its parent to reap it: nothing to kill.
    pub zombie: bool,
}

impl Entry {
    /// Whether this is one of the kernel's own threads (`kthreadd` and its
    /// children): never a tree's, and with no environment to read.
    fn is_kernel_thread(&self) -> bool {
        self.pid == 2 || self.ppid == 2
    }
}

/// The process table now. Processes that vanish while it is read are skipped.
pub(crate) fn snapshot() -> Vec<Entry> {
    let Ok(dir) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|entry| {
        let pid: i32 = entry.ok()?.file_name().to_str()?.parse().ok()?;
        let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        parse_stat(pid, &stat)
    })
    .collect()
}

/// Reads `ppid`, `pgrp`, the start time and the state from a `/proc/<pid>/stat` line. The
/// command name is in parentheses and may itself contain `)` and spaces, so
/// the fields are taken after the last `)`.
pub(crate) fn parse_stat(pid: i32, stat: &str) -> Option<Entry> {
    let (_, rest) = stat.rsplit_once(')')?;
    let mut fields = rest.split_ascii_whitespace();
    let state = fields.next()?;
    let ppid = fields.next()?.parse().ok()?;
    let pgid = fields.next()?.parse().ok()?;
    // Field 22 of stat(5); `fields` is now at field 6 (the session).
    let start = fields.nth(16)?.parse().ok()?;
    Some(Entry {
        pid,
        ppid,
        pgid,
        start,
        zombie: state == "Z" || state == "X",
    })
}

/// Whether a `/proc/<pid>/environ` block marks the process with `token`.
pub(crate) fn environ_has_token(environ: &[u8], token: &str) -> bool {
    let prefix = format!("{TREE_ENV}=");
    environ
        .split(|byte| *byte == 0)
        .filter_map(|variable| variable.strip_prefix(prefix.as_bytes()))
        .any(|marks| {
            marks
                .split(|byte| *byte == b':')
                .any(|mark| mark == token.as_bytes())
        })
}

/// The processes of `table` whose environment carries `token`.
///
/// Each environment is read once. An empty or unreadable one of a process of
/// another user (or of one that changed credentials) stays so: not provably
/// ours, and not killable by us anyway. One of ours reads so only while it is
/// in the middle of an `execve` (its new environment not in place yet) or when
/// it was started with an empty environment (`env -i`): a child that was just
/// forked and is exec'ing `setsid sleep` must not slip through that window, so
/// those are read again, all together, after one short pause per retry. The
/// pause is paid once per scan, never once per such process: a machine with
/// hundreds of `env -i` processes must not stretch a timeout kill.
pub(crate) fn marked(table: &[Entry], token: &str) -> HashSet<i32> {
    let mut found = HashSet::new();
    let mut unsure: Vec<i32> = Vec::new();
    for entry in table.iter().filter(|e| !e.zombie && !e.is_kernel_thread()) {
        match read_environ(entry.pid) {
            Some(environ) if environ_has_token(&environ, token) => {
                found.insert(entry.pid);
            }
            Some(_) => {}
            None if owned_by_us(entry.pid) => unsure.push(entry.pid),
            None => {}
        }
    }
    for _ in 0..ENVIRON_RETRIES {
        if unsure.is_empty() {
            break;
        }
        std::thread::sleep(ENVIRON_PAUSE);
        unsure.retain(|pid| match read_environ(*pid) {
            Some(environ) => {
                if environ_has_token(&environ, token) {
                    found.insert(*pid);
                }
                false
            }
            None => true,
        });
    }
    found
}

/// `/proc/<pid>/environ`, `None` when it is empty or unreadable.
fn read_environ(pid: i32) -> Option<Vec<u8>> {
    fs::read(format!("/proc/{pid}/environ"))
        .ok()
        .filter(|environ| !environ.is_empty())
}

/// How often the empty or unreadable environments of our own processes are read again.
const ENVIRON_RETRIES: u32 = 5;

/// The pause before each of those re-reads (an `execve` completes well within it).
const ENVIRON_PAUSE: std::time::Duration = std::time::Duration::from_millis(2);

/// Whether `/proc/<pid>` belongs to this process's effective user.
fn owned_by_us(pid: i32) -> bool {
    use std::os::unix::fs::MetadataExt;
    fs::metadata(format!("/proc/{pid}"))
        .is_ok_and(|meta| meta.uid() == rustix::process::geteuid().as_raw())
}

/// The live processes of the tree in `table`, as described in the module docs.
///
/// `root` is the direct child's pid while it is unreaped (the pid cannot be
/// reused then, so its descendants and its group are ours); `pgid` the tree's
/// process group. `marked` says whether a pid carries the token (a parameter so
/// tests can supply their own).
pub(crate) fn members(
    table: &[Entry],
    root: Option<i32>,
    pgid: i32,
    marked: impl Fn(i32) -> bool,
) -> HashSet<i32> {
    let protected = protected(table);
    let mut children: HashMap<i32, Vec<i32>> = HashMap::new();
    for entry in table {
        children.entry(entry.ppid).or_default().push(entry.pid);
    }
    let mut ours: HashSet<i32> = table
        .iter()
        .filter(|entry| !entry.zombie && !entry.is_kernel_thread() && marked(entry.pid))
        .map(|entry| entry.pid)
        .chain(root)
        .filter(|pid| !protected.contains(pid))
        .collect();
    add_descendants(&mut ours, &children, &protected);
    let group_is_ours = root.is_some()
        || table
            .iter()
            .any(|entry| entry.pgid == pgid && ours.contains(&entry.pid));
    if group_is_ours {
        let group = table.iter().filter(|e| e.pgid == pgid).map(|e| e.pid);
        ours.extend(group.filter(|pid| !protected.contains(pid)));
        add_descendants(&mut ours, &children, &protected);
    }
    let live: HashSet<i32> = table
        .iter()
        .filter(|entry| !entry.zombie)
        .map(|entry| entry.pid)
        .collect();
    ours.retain(|pid| live.contains(pid));
    ours
}

/// Processes never to be counted as a tree's, whatever they carry: init, the
/// kernel's threads' parent, this process and its ancestors.
fn protected(table: &[Entry]) -> HashSet<i32> {
    let parents: HashMap<i32, i32> = table.iter().map(|e| (e.pid, e.ppid)).collect();
    let mut protected = HashSet::from([0, 1, 2]);
    let mut pid = std::process::id() as i32;
    while protected.insert(pid) {
        match parents.get(&pid) {
            Some(parent) => pid = *parent,
            None => break,
        }
    }
    protected
}

/// Adds to `set` every descendant of its members.
fn add_descendants(
    set: &mut HashSet<i32>,
    children: &HashMap<i32, Vec<i32>>,
    protected: &HashSet<i32>,
) {
    let mut queue: Vec<i32> = set.iter().copied().collect();
    while let Some(pid) = queue.pop() {
        for child in children.get(&pid).into_iter().flatten() {
            if !protected.contains(child) && set.insert(*child) {
                queue.push(*child);
            }
        }
    }
}

/// The start time of process `pid` now, if it exists.
pub(crate) fn start_of(pid: i32) -> Option<u64> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(pid, &stat).map(|entry| entry.start)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(pid: i32, ppid: i32, pgid: i32) -> Entry {
        Entry {
            pid,
            ppid,
            pgid,
            start: 0,
            zombie: false,
        }
    }

    #[test]
    fn kernel_threads_are_never_members_even_when_marked() {
        let table = [entry(2, 0, 0), entry(40, 2, 0), entry(500, 1, 500)];
        let found = members(&table, None, 999, |_| true);
        assert_eq!(found, HashSet::from([500]));
    }

    #[test]
    fn stat_fields_come_after_the_last_parenthesis() {
        let tail = "0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 2048 1";
        let stat = format!("42 (a) b) (c) S 7 40 40 {tail}");
        let mut expected = entry(42, 7, 40);
        expected.start = 987654;
        assert_eq!(parse_stat(42, &stat), Some(expected));
        let zombie = parse_stat(43, &format!("43 (sh) Z 1 43 43 {tail}")).map(|e| e.zombie);
        assert_eq!(zombie, Some(true));
        assert_eq!(parse_stat(44, "44 (sh) S 1 44 44"), None);
        // This process, read for real.
        let me = std::process::id() as i32;
        assert!(start_of(me).is_some_and(|start| start > 0));
        assert_eq!(parse_stat(1, "garbage"), None);
    }

    #[test]
    fn the_token_must_match_a_whole_mark() {
        let environ = b"PATH=/bin\0HERMES_HOOKS_TREE=outer:1.2.ab\0HOME=/root\0";
        assert!(environ_has_token(environ, "1.2.ab"));
        assert!(environ_has_token(environ, "outer"));
        assert!(!environ_has_token(environ, "1.2.a"));
        assert!(!environ_has_token(environ, "PATH"));
        assert!(!environ_has_token(
            b"X_HERMES_HOOKS_TREE=1.2.ab\0",
            "1.2.ab"
        ));
    }

    #[test]
    fn descendants_of_the_unreaped_child_and_its_group_are_ours() {
        // 100: the child (group 100); 101: its child that called setsid;
        // 102: 101's child; 103: in group 100 but reparented to init;
        // 200: a stranger in group 200.
        let table = [
            entry(100, 1, 100),
            entry(101, 100, 101),
            entry(102, 101, 101),
            entry(103, 1, 100),
            entry(200, 1, 200),
        ];
        let ours = members(&table, Some(100), 100, |_| false);
        assert_eq!(ours, HashSet::from([100, 101, 102, 103]));
    }

    #[test]
    fn after_reaping_only_marked_processes_prove_the_group() {
        // The child (100) was reaped: its pid, and so its group id, may be reused.
        let table = [entry(100, 1, 100), entry(105, 100, 100), entry(300, 1, 300)];
        assert!(members(&table, None, 100, |_| false).is_empty());
        // A marked orphan in a session of its own, with a child of its own.
        let table = [entry(150, 1, 150), entry(151, 150, 150), entry(300, 1, 300)];
        let ours = members(&table, None, 100, |pid| pid == 150);
        assert_eq!(ours, HashSet::from([150, 151]));
        // A marked member proves the group: its unmarked peer dies too.
        let table = [entry(160, 1, 100), entry(161, 1, 100), entry(300, 1, 300)];
        let ours = members(&table, None, 100, |pid| pid == 160);
        assert_eq!(ours, HashSet::from([160, 161]));
    }

    #[test]
    fn never_ourselves_init_or_a_zombie() {
        let me = std::process::id() as i32;
        let mut dead = entry(102, 100, 100);
        dead.zombie = true;
        let table = [entry(me, 1, me), entry(1, 0, 1), entry(100, me, 100), dead];
        let ours = members(&table, None, 100, |_| true);
        assert_eq!(ours, HashSet::from([100]));
        // Even a marked process never makes init's other children ours.
        let table = [entry(1, 0, 1), entry(300, 1, 300)];
        assert!(members(&table, None, 100, |pid| pid == 1).is_empty());
    }
}
