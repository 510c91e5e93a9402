//! Hooks written for Claude Code, Codex and Cursor, imported with `hooks_from:`.

mod codex_schema;
mod consent;
mod cursor;
mod discovery;
mod fail_closed;
mod guards;
// POSTs to a local server: only with an HTTP client.
#[cfg(feature = "http")]
mod http;
mod matchers;
mod session_env;
mod stop;
mod tree_walks;

use std::path::{Path, PathBuf};

use hermes_hooks_core::{Config, Event, Hooks, Outcome};
use hermes_hooks_shell::ImportedHooks;
use hermes_hooks_shell::dialect::{Discovery, discover};
use serde_json::{Value, json};

/// A Hermes home, a project and a user home (never the real `~`), each temporary.
pub struct World {
    pub home: tempfile::TempDir,
    pub project: tempfile::TempDir,
    pub user: tempfile::TempDir,
}

impl World {
    pub fn new() -> World {
        let dir = || tempfile::tempdir().expect("temporary directory");
        World {
            home: dir(),
            project: dir(),
            user: dir(),
        }
    }

    pub fn project(&self) -> &Path {
        self.project.path()
    }

    /// Writes `text` at `relative` under `base`, creating folders.
    pub fn write(base: &Path, relative: &str, text: &str) -> PathBuf {
        let path = base.join(relative);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, text).expect("write");
        path
    }

    /// `<project>/.claude/settings.json` with `settings`.
    pub fn claude_settings(&self, settings: Value) -> PathBuf {
        World::write(
            self.project(),
            ".claude/settings.json",
            &settings.to_string(),
        )
    }

    /// A script under `<project>/.claude/hooks/`, run as `bash <path>` by its command.
    pub fn hook_script(&self, name: &str, body: &str) -> String {
        World::write(self.project(), &format!(".claude/hooks/{name}"), body);
        format!("bash \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/{name}")
    }

    pub fn config(&self, hooks_from: Value) -> Config {
        Config::from_value(self.home.path(), json!({"hooks_from": hooks_from}))
    }

    pub fn discover(&self, hooks_from: Value) -> Discovery {
        discover(
            &self.config(hooks_from),
            self.project(),
            Some(self.user.path()),
        )
    }

    /// Every discovered hook, consent settled, in a bus.
    pub fn bus(&self, hooks_from: Value) -> Hooks {
        let discovery = self.discover(hooks_from);
        assert!(discovery.warnings.is_empty(), "{:?}", discovery.warnings);
        Hooks::builder()
            .with(ImportedHooks::from_approved(discovery.hooks))
            .build()
    }
}

/// Emits `name` with `payload` on `bus`.
pub async fn emit(bus: &Hooks, name: &str, payload: Value) -> Outcome {
    bus.emit(&Event::from_json(name, payload)).await
}

pub fn bash_call(command: &str) -> Value {
    json!({"tool_name": "terminal", "args": {"command": command}, "session_id": "s1", "tool_call_id": "call-1"})
}
