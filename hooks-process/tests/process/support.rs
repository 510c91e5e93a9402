//! Shared helpers: shell commands, pid files, and "is it gone" checks.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use hermes_hooks_process::RunLimits;
use rustix::process::{Pid, Signal, kill_process, test_kill_process};
use tokio::process::Command;

/// A bound for waits and requests that must finish: a hang guard, not a speed
/// check (the machine is loaded and shared); whether a run ended at its own
/// timeout is its record's to say, never this margin's.
pub const MARGIN: Duration = Duration::from_secs(30);

/// How long a killed process may take to disappear: a hang guard too.
pub const GONE_WITHIN: Duration = Duration::from_secs(30);

/// A scratch directory for pid files, removed when dropped.
pub struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    pub fn new() -> Scratch {
        Scratch {
            dir: tempfile::tempdir().expect("temporary directory"),
        }
    }

    /// A path in the scratch directory.
    pub fn file(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
}

/// `sh -c script`: inline, so no freshly written file is exec'd (ETXTBSY races).
pub fn sh(script: &str) -> Command {
    let mut command = Command::new("sh");
    command.arg("-c").arg(script);
    command
}

/// Limits with a `timeout` in seconds, a 1 MiB cap and the shell hooks' grace.
pub fn limits(timeout_secs: u64) -> RunLimits {
    RunLimits::new(
        Duration::from_secs(timeout_secs),
        1024 * 1024,
        Duration::from_millis(250),
    )
}

/// Waits for `count` pids, one a line, in `path`.
pub fn read_pids(path: &Path, count: usize) -> Vec<i32> {
    let start = Instant::now();
    loop {
        let pids: Vec<i32> = std::fs::read_to_string(path)
            .unwrap_or_default()
            .lines()
            .filter_map(|line| line.trim().parse().ok())
            .collect();
        if pids.len() >= count {
            return pids;
        }
        assert!(
            start.elapsed() < MARGIN,
            "only {pids:?} of {count} pids in {}",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Whether `pid` is gone: no such process, or a zombie awaiting its reaper.
pub fn gone(pid: i32) -> bool {
    let Some(process) = Pid::from_raw(pid).filter(|_| pid > 0) else {
        return true;
    };
    if test_kill_process(process).is_err() {
        return true;
    }
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|stat| {
            stat.rsplit_once(')')
                .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'))
        })
        .unwrap_or(!cfg!(target_os = "linux"))
}

/// The process group of `pid`, from `/proc` (Linux only).
pub fn group_of(pid: i32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    rest.split_ascii_whitespace().nth(2)?.parse().ok()
}

/// Asserts that every pid is gone within [`GONE_WITHIN`]; survivors are killed
/// before the assertion fails, so a failing test leaves nothing behind.
pub fn assert_all_gone(pids: &[i32], what: &str) {
    let start = Instant::now();
    while start.elapsed() < GONE_WITHIN && !pids.iter().all(|pid| gone(*pid)) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let survivors: Vec<i32> = pids.iter().copied().filter(|pid| !gone(*pid)).collect();
    for pid in &survivors {
        cleanup(*pid);
    }
    assert!(survivors.is_empty(), "{what}: {survivors:?} survived");
}

/// Kills `pid` (cleanup of a process a test expected to live).
pub fn cleanup(pid: i32) {
    // Never pid 0 or below: those name process groups, ours among them.
    if let Some(pid) = Pid::from_raw(pid).filter(|_| pid > 0) {
        let _ = kill_process(pid, Signal::KILL);
    }
}
