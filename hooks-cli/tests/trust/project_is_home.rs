//! The agent run in `~` (red-team round 5, F12): the project's settings are
//! the user's own files, so its hooks are the user's, read once, and
//! `disableAllHooks` in `~/.claude/settings.local.json` says truly that it
//! turned the user's own hooks off. A project's `disableAllHooks` never
//! turns off the user's hooks: not from a folder of `$HOME`, nor where
//! `$HOME` or the project is spelled through a symbolic link.

use std::path::Path;

use serde_json::{Value, json};

use crate::dialects::{emit_terminal, home_with, in_project, write};
use crate::harness;
use crate::support::{Run, TempHome};

/// The user's own fail-closed guard in `~/.claude`, denying every call.
fn user_guard(home: &TempHome) {
    let guard = write(
        &home.user_home,
        ".claude/hooks/guard.sh",
        "#!/bin/sh\ncat >/dev/null\necho '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"user guard\"}}'\n",
    );
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "failClosed": true, "command": format!("sh {}", guard.display())}
    ]}]}});
    write(
        &home.user_home,
        ".claude/settings.json",
        &settings.to_string(),
    );
}

const DISABLE_ALL: &str = "{\"disableAllHooks\": true}";

#[test]
fn in_the_home_folder_the_users_settings_are_the_users_and_say_what_they_turn_off() {
    let (home, _) = home_with("[claude]");
    user_guard(&home);
    let project = home.user_home.clone();
    let listed = in_project(&home, &project, &["list", "--json"]).json();
    let hooks = listed["imported_hooks"].as_array().expect("imported hooks");
    assert_eq!(hooks.len(), 1, "read once: {listed:#}");
    assert_eq!(hooks[0]["scope"], json!("user"), "{listed:#}");
    let blocked = emit_terminal(&home, &project, "rm -rf /", true);
    assert_eq!(blocked["outcome"]["action"], json!("block"), "{blocked}");

    // The user's own local settings turn the user's hooks off (their
    // file, their choice), and every place says so.
    write(&project, ".claude/settings.local.json", DISABLE_ALL);
    let false_claim = "your own (~/.claude) and managed hooks still run";
    let true_claim = "your own settings file ~/.claude/settings.local.json";
    let emitted = in_project(&home, &project, &["emit", "pre_tool_call", "--json"]);
    let warning = emitted.stderr();
    assert!(warning.contains(true_claim), "{warning}");
    assert!(
        warning.contains("turns off your own Claude Code hooks"),
        "{warning}"
    );
    assert!(warning.contains("managed hooks still run"), "{warning}");
    assert!(!warning.contains(false_claim), "{warning}");
    let list = in_project(&home, &project, &["list"]).ok();
    assert!(
        list.contains("your own Claude Code hooks (~/.claude) are off, by your own settings file"),
        "{list}"
    );
    assert!(!list.contains(false_claim), "{list}");
    assert!(
        !list.contains("this project's Claude Code hooks are off"),
        "{list}"
    );
    let doctor = in_project(&home, &project, &["doctor"]).problems();
    assert!(doctor.contains(true_claim), "{doctor}");
    assert!(!doctor.contains(false_claim), "{doctor}");
}

/// `emit` of `rm -rf /` in `project`, every hook accepted, with `HOME` set to `user_home`.
fn emit_as(home: &TempHome, user_home: &Path, project: &Path) -> Value {
    let payload = json!({"tool_name": "terminal", "args": {"command": "rm -rf /"}, "task_id": "t"});
    let file = home.write("payload.json", &payload.to_string());
    let args = [
        "--project",
        project.to_str().expect("UTF-8"),
        "--accept-hooks",
        "emit",
        "pre_tool_call",
        "--json",
        "--payload-file",
        file.to_str().expect("UTF-8"),
    ];
    let mut command = harness::command(home, &args);
    command.env("HOME", user_home);
    Run(command.output().expect("run hooks")).json()
}

#[test]
fn a_projects_disable_all_hooks_never_turns_off_the_users_guard() {
    let (home, project) = home_with("[claude]");
    user_guard(&home);
    write(&project, ".claude/settings.local.json", DISABLE_ALL);
    // Read as the project's when the project is HOME spelled another way.
    write(&home.user_home, ".claude/settings.local.json", DISABLE_ALL);
    let elsewhere = tempfile::tempdir().expect("scratch");
    let linked_home = elsewhere.path().join("home");
    std::os::unix::fs::symlink(&home.user_home, &linked_home).expect("link");
    let linked_project = linked_home.join("project");
    // (HOME, project): a folder of HOME; HOME through a link (the project
    // spelled without it, and with it); HOME itself spelled another way.
    let cases = [
        (&home.user_home, &project),
        (&linked_home, &project),
        (&home.user_home, &linked_project),
        (&linked_home, &home.user_home),
        (&home.user_home, &linked_home),
    ];
    for (user_home, project) in cases {
        let emitted = emit_as(&home, user_home, project);
        assert_eq!(
            emitted["outcome"]["action"],
            json!("block"),
            "HOME={} project={}: {emitted:#}",
            user_home.display(),
            project.display()
        );
    }
}
