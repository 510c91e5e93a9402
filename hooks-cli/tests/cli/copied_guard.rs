//! A project's copy of the user's guard never replaces it (red-team H1):
//! identical handlers across files run once, as Claude Code dedups them, but
//! the copy kept is the user's, it fails closed if any copy does, and
//! handlers given different `env` blocks are not identical.

use serde_json::{Value, json};

use crate::dialects::write;
use crate::harness;
use crate::support::{Run, TempHome};

const GUARD: &str =
    "#!/bin/sh\nif grep -q 'rm -rf' ; then echo 'no rm -rf' >&2; exit 2; fi\nexit 0\n";

fn emit(home: &TempHome, project: &std::path::Path, accept: bool) -> Value {
    let payload = home.write(
        "payload.json",
        &json!({"tool_name": "terminal", "args": {"command": "rm -rf /"}, "task_id": "t"})
            .to_string(),
    );
    let mut args = vec!["--project", project.to_str().unwrap()];
    if accept {
        args.push("--accept-hooks");
    }
    args.extend(["emit", "pre_tool_call", "--json", "--payload-file"]);
    args.push(payload.to_str().unwrap());
    Run(harness::command(home, &args).output().expect("run hooks")).json()
}

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
    let approved = emit(&home, &project, true);
    assert_eq!(approved["outcome"]["action"], json!("block"), "{approved}");

    // The same handler in the repository, not fail-closed: one run, the user's.
    write(
        &project,
        ".claude/settings.json",
        &file(handler(false), None),
    );
    let copied = emit(&home, &project, false);
    assert_eq!(copied["outcome"]["action"], json!("block"), "{copied}");

    // With an env block of its own it is another hook (unapproved, skipped);
    // the user's guard still runs and blocks.
    write(
        &project,
        ".claude/settings.json",
        &file(handler(false), Some(json!({"X": "1"}))),
    );
    let other = emit(&home, &project, false);
    assert_eq!(other["outcome"]["action"], json!("block"), "{other}");
}
