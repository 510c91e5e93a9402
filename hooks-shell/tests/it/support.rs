//! Shared helpers: temporary homes, hook scripts, specs, events.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use hermes_hooks_core::wire::WireContext;
use hermes_hooks_core::{Config, Event, HookEvent};
use hermes_hooks_shell::ShellHookSpec;
use serde_json::Value;

/// A temporary Hermes home that lives as long as the value.
pub struct Home {
    pub dir: tempfile::TempDir,
}

impl Home {
    pub fn new() -> Home {
        Home {
            dir: tempfile::tempdir().expect("temporary directory"),
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Writes an executable `/bin/sh` script and returns its path.
    pub fn script(&self, name: &str, body: &str) -> PathBuf {
        let path = self.path().join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("write script");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        path
    }

    /// A command running `body` through `sh` (no exec of a freshly written
    /// file, which can race with forks in other test threads: ETXTBSY).
    pub fn sh(&self, name: &str, body: &str) -> String {
        format!("sh {}", self.script(name, body).display())
    }

    pub fn config(&self, root: Value) -> Config {
        Config::from_value(self.path(), root)
    }

    pub fn spec(&self, event: HookEvent, command: &str) -> ShellHookSpec {
        let mut spec = ShellHookSpec::new(event, command, self.path());
        spec.timeout = Duration::from_secs(5);
        spec
    }
}

pub fn context() -> WireContext {
    WireContext::new("/work", "default")
}

pub fn tool_event(tool: &str) -> Event {
    Event::from_json(
        "pre_tool_call",
        serde_json::json!({"tool_name": tool, "args": {"command": "ls"}, "session_id": "s1",
                           "task_id": "t1", "tool_call_id": "c1"}),
    )
}

pub fn event(name: &str, payload: Value) -> Event {
    Event::from_json(name, payload)
}

/// Whether process `pid` is gone (no such process, or a zombie awaiting its reaper).
pub fn process_gone(pid: i32) -> bool {
    let alive = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_ok();
    if !alive {
        return true;
    }
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|stat| {
            stat.rsplit_once(')')
                .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'))
        })
        .unwrap_or(true)
}

/// Waits up to `limit` for `pid` to be gone.
pub fn wait_gone(pid: i32, limit: Duration) -> bool {
    let start = std::time::Instant::now();
    while start.elapsed() < limit {
        if process_gone(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    process_gone(pid)
}

pub fn read_pid(path: &Path) -> i32 {
    let start = std::time::Instant::now();
    loop {
        if let Some(pid) = std::fs::read_to_string(path)
            .ok()
            .and_then(|text| text.trim().parse().ok())
        {
            return pid;
        }
        // A polling bound (returns as soon as the pid is there), not a speed check.
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "no pid in {}",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}
