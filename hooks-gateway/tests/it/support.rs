//! Shared helpers: a temporary Hermes home with hook folders, and emitting events.

use std::path::{Path, PathBuf};
use std::time::Duration;

use hermes_hooks_core::{Event, Reply};
use hermes_hooks_gateway::{Discovery, GatewayHooks, GatewayOptions};
use serde_json::Value;
use tempfile::TempDir;

/// A handler timeout generous enough for a loaded machine.
pub const TEST_TIMEOUT: Duration = Duration::from_secs(20);

/// The bound of a hang guard (no speed check): half the 600 s that a test's
/// hung handler sleeps, so only a call that waited for it gets there.
pub const HANG_GUARD: Duration = Duration::from_secs(300);

/// `future`'s output, or a panic saying `what` when it outlives [`HANG_GUARD`].
pub async fn hang_guarded<F: std::future::Future>(what: &str, future: F) -> F::Output {
    tokio::time::timeout(HANG_GUARD, future)
        .await
        .unwrap_or_else(|_| panic!("{what}"))
}

/// A temporary `HERMES_HOME`.
pub struct Home {
    dir: TempDir,
}

impl Home {
    pub fn new() -> Self {
        Home {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn hooks_dir(&self) -> PathBuf {
        self.path().join("hooks")
    }

    /// Writes `hooks/<name>/HOOK.yaml` (reference test layout) and `handler.py`.
    pub fn python_hook(&self, name: &str, events: &str, code: &str) -> PathBuf {
        let dir = self.hook_dir(name);
        write(&dir.join("HOOK.yaml"), &manifest(name, events));
        write(&dir.join("handler.py"), code);
        dir
    }

    /// Writes `hooks/<name>/HOOK.yaml` and an executable `handler` shell script.
    pub fn executable_hook(&self, name: &str, events: &str, script: &str) -> PathBuf {
        let dir = self.hook_dir(name);
        write(&dir.join("HOOK.yaml"), &manifest(name, events));
        let handler = dir.join("handler");
        write(&handler, &format!("#!/bin/sh\n{script}"));
        set_mode(&handler, 0o755);
        dir
    }

    pub fn hook_dir(&self, name: &str) -> PathBuf {
        let dir = self.hooks_dir().join(name);
        std::fs::create_dir_all(&dir).expect("hook dir");
        dir
    }

    pub fn gateway(&self) -> (GatewayHooks, Discovery) {
        self.gateway_with(
            GatewayOptions::default()
                .with_handler_timeout(TEST_TIMEOUT)
                .with_command_timeout(TEST_TIMEOUT),
        )
    }

    pub fn gateway_with(&self, options: GatewayOptions) -> (GatewayHooks, Discovery) {
        GatewayHooks::discover(self.path(), options)
    }
}

fn manifest(name: &str, events: &str) -> String {
    format!("name: {name}\ndescription: Test hook\nevents: {events}\n")
}

pub fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
}

pub fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

/// Delivers `event` with `payload` (a JSON object) and waits for every
/// handler's result (`collect`, the reference's `emit_collect`).
pub async fn emit(gateway: &GatewayHooks, event: &str, payload: Value) -> Vec<Reply> {
    gateway.collect(&Event::from_json(event, payload)).await
}

/// The reply values only.
pub fn values(replies: &[Reply]) -> Vec<Value> {
    replies.iter().map(|reply| reply.value.clone()).collect()
}

/// The reply sources only.
pub fn sources(replies: &[Reply]) -> Vec<String> {
    replies
        .iter()
        .map(|reply| reply.source.to_string())
        .collect()
}

/// Polls `condition` every 50 ms for up to 20 s (a generous bound for a loaded machine).
pub fn wait_for(mut condition: impl FnMut() -> bool) -> bool {
    for _ in 0..400 {
        if condition() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    condition()
}
