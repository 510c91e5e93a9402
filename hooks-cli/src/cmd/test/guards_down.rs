//! Fail-closed guards that cannot run (their file no longer parses, their
//! matcher does not compile, `config.yaml` lost them): `hooks test` shows
//! each blocking its event, as `emit` and a host block it (red team
//! R33b-2: `test` said "No shell hooks configured").

use hermes_hooks_core::{Event, HookEvent, HookRun, Reply, RunStatus};
use hermes_hooks_shell::ShellConfig;
use hermes_hooks_shell::dialect::Discovery;
use serde_json::{Value, json};

/// One guard that is down, as `test` shows it.
pub(super) struct GuardDown {
    /// Where it is configured (`claude:/home/u/.claude/settings.json`).
    pub source: String,
    /// The block each call of its event gets.
    pub message: String,
    /// Why it cannot run.
    pub why: String,
    /// A guard that may not run as it is (not approved for what it runs
    /// now): its command and the `hooks approve` line that approves it.
    pub refused: Option<(String, String)>,
}

impl GuardDown {
    /// Its block, as a hook's reply.
    pub fn reply(&self) -> Reply {
        Reply::new(self.source.clone(), self.block())
    }

    /// Its record for `event`: blocked without running.
    pub fn record(&self, event: &Event) -> HookRun {
        HookRun::new(
            "imported",
            self.source.clone(),
            event.name(),
            RunStatus::Blocked,
        )
        .decision(Some(self.block()))
        .diagnostic(format!("failed closed without running: {}", self.why))
    }

    /// Its line in `hooks test --json`'s `hooks`.
    pub fn json(&self) -> Value {
        let mut line = json!({"source": self.source, "blocked": self.message});
        if let Some((command, hint)) = &self.refused {
            line["command"] = json!(command);
            line["allowlisted"] = json!(false);
            line["approve_with"] = json!(hint);
        }
        line
    }

    fn block(&self) -> Value {
        json!({"action": "block", "message": self.message})
    }
}

/// A fail-closed guard that may not run (not approved for what it runs
/// now, or it cannot be): it blocks, as in a host (sweep 59, U2).
pub(super) fn refused(source: String, command: &str, why: &str, hint: String) -> GuardDown {
    GuardDown {
        source,
        message: format!(
            "hook {command} failed closed: {why}; review it, then run `{hint}` (or use --accept-hooks)"
        ),
        why: why.to_owned(),
        refused: Some((command.to_owned(), hint)),
    }
}

/// The guards of `event` that are down among the imported files and the
/// user's `config.yaml`.
pub(super) fn of(discovery: &Discovery, config: &ShellConfig, event: HookEvent) -> Vec<GuardDown> {
    let imported = discovery.guards_down.iter().filter(|g| g.event == event);
    let imported = imported.map(|guard| GuardDown {
        source: format!("{}:{}", guard.dialect, guard.source.display()),
        message: guard.block_message(),
        why: guard.reason.clone(),
        refused: None,
    });
    let lost = config.lost_guards.iter().filter(|g| g.event == event);
    let lost = lost.map(|guard| GuardDown {
        source: format!("shell:{}", guard.file.display()),
        message: guard.block_reason(),
        why: guard.reason.clone(),
        refused: None,
    });
    imported.chain(lost).collect()
}
