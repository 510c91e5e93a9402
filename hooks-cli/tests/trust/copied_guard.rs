//! A project's copy of the user's guard never replaces it (red-team H1):
//! identical handlers across files run once, as Claude Code dedups them, but
//! the copy kept is the user's, it fails closed if any copy does, and
//! handlers given different `env` blocks are not identical.

use serde_json::{Value, json};

use crate::dialects::{emit_terminal, write};
use crate::support::TempHome;

const GUARD: &str =
    "#!/bin/sh\nif grep -q 'rm -rf' ; then echo 'no rm -rf' >&2; exit 2; fi\nexit 0\n";

#[test]
fn a_projects_copy_of_the_users_guard_never_replaces_it() {
    let home = TempHome::new();
    let guard = home.script("guard.sh", GUARD);
    let guards = guard.parent().expect("dir").join("guard-hooks.json");
    let handler = |fail_closed: bool| {
        let mut handler = json!({"type": "command", "command": guard.display().to_string()});
        if fail_closed {
            handler["failClosed"] = json!(true);
        }
        handler
    };
    let file = |handler: Value, env: Option<Value>| {
        let mut file =
            json!({"hooks": {"PreToolUse": [{"matcher": "Bash|terminal", "hooks": [handler]}]}});
        if let Some(env) = env {
            file["env"] = env;
        }
        file.to_string()
    };
    std::fs::write(&guards, file(handler(true), None)).expect("write");
    // The user's guard through an explicit path, listed after the standard files.
    home.config(&format!(
        "hooks_from:\n  - claude\n  - {{format: claude, path: {}}}\n",
        guards.display()
    ));
    let project = home.user_home.join("cloned");
    std::fs::create_dir_all(&project).expect("project");
    let approved = emit_terminal(&home, &project, "rm -rf /", true);
    assert_eq!(approved["outcome"]["action"], json!("block"), "{approved}");

    // The same handler in the repository, not fail-closed: one run, the user's.
    write(
        &project,
        ".claude/settings.json",
        &file(handler(false), None),
    );
    let copied = emit_terminal(&home, &project, "rm -rf /", false);
    assert_eq!(copied["outcome"]["action"], json!("block"), "{copied}");

    // With an env block of its own it is another hook (unapproved, skipped);
    // the user's guard still runs and blocks.
    write(
        &project,
        ".claude/settings.json",
        &file(handler(false), Some(json!({"X": "1"}))),
    );
    let other = emit_terminal(&home, &project, "rm -rf /", false);
    assert_eq!(other["outcome"]["action"], json!("block"), "{other}");
}

/// A user guard narrowed with `"if": "Bash(rm *)"` runs for every spelling
/// of `rm` a shell accepts (red-team J1): grouped, behind a keyword, escaped,
/// quoted, tab-separated, through `command` / `sudo`; not for `ls`.
#[test]
fn a_guard_narrowed_with_an_if_rule_runs_for_every_spelling() {
    let home = TempHome::new();
    let guard = home.script("guard.sh", GUARD);
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash|terminal", "hooks": [
        {"type": "command", "command": guard.display().to_string(), "failClosed": true, "if": "Bash(rm *)"}
    ]}]}});
    write(
        &home.user_home,
        ".claude/settings.json",
        &settings.to_string(),
    );
    home.config("hooks_from: [claude]\n");
    let project = home.user_home.join("cloned");
    std::fs::create_dir_all(&project).expect("project");
    assert_eq!(
        emit_terminal(&home, &project, "rm -rf /", true)["outcome"]["action"],
        json!("block")
    );
    for spelled in [
        "{ rm -rf /; }",
        "if true; then rm -rf /; fi",
        "\\rm -rf /",
        "\"rm\" -rf /",
        "rm\t-rf /",
        "command rm -rf /",
        "sudo -u root rm -rf /",
        "while rm -rf /; do :; done",
    ] {
        // The guard runs (what it decides is its own business).
        let emitted = emit_terminal(&home, &project, spelled, false);
        let runs = emitted["runs"].as_array().map_or(0, Vec::len);
        assert_eq!(runs, 1, "the guard did not run for {spelled}: {emitted}");
    }
    let other = emit_terminal(&home, &project, "ls -la", false);
    assert_eq!(other["runs"].as_array().map_or(0, Vec::len), 0, "{other}");
}
