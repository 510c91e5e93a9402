//! Red team R46-1: a file that held fail-closed guards at its last good
//! read, deleted or moved (an editor's save by rename, `git stash -u`, a
//! sync tool, a renamed folder), was read as "no guards" without a word,
//! and `rm -rf /` was allowed. The user's file (and `config.yaml`) keeps
//! blocking what it guarded until it is back, or written back without
//! them; a project's own file gone is the project's to drop, told once.

use serde_json::{Value, json};

use crate::dialects::{
    emit_terminal, emit_terminal_command, home_with, user_fail_closed_command, write,
};
use crate::support::TempHome;

/// A guard that blocks `rm`, letting everything else through.
const BLOCKS_RM: &str = "#!/bin/sh\ngrep -q 'rm -rf' && { echo 'no rm' >&2; exit 2; }\nexit 0\n";

fn action(emitted: &Value) -> &Value {
    &emitted["outcome"]["action"]
}

#[test]
fn a_users_settings_file_gone_keeps_its_guards_blocking() {
    for remove in ["file", "folder"] {
        let (home, project) = home_with("[claude]");
        let guard = home.script("guard.sh", BLOCKS_RM);
        user_fail_closed_command(&home, &guard.display().to_string());
        let emitted = emit_terminal(&home, &project, "rm -rf /", true);
        assert_eq!(action(&emitted), &json!("block"), "{emitted:#}");
        let claude = home.user_home.join(".claude");
        match remove {
            "file" => std::fs::remove_file(claude.join("settings.json")).expect("rm"),
            _ => std::fs::rename(&claude, home.user_home.join(".claude.old")).expect("mv"),
        }
        let emitted = emit_terminal(&home, &project, "rm -rf /", true);
        assert_eq!(action(&emitted), &json!("block"), "{remove}: {emitted:#}");
        let message = emitted["outcome"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("is gone"), "{remove}: {message}");
        // Written back without hooks, on purpose: the guard is out.
        write(&home.user_home, ".claude/settings.json", "{}");
        let emitted = emit_terminal(&home, &project, "rm -rf /", true);
        assert_ne!(action(&emitted), &json!("block"), "{remove}: {emitted:#}");
    }
}

#[test]
fn config_yaml_gone_keeps_its_guards_blocking() {
    let home = TempHome::new();
    let guard = home.script("guard.sh", BLOCKS_RM);
    home.config(&format!(
        "hooks:\n  pre_tool_call:\n    - command: {}\n      fail_closed: true\n",
        guard.display()
    ));
    let emitted = emit_terminal(&home, &home.user_home, "rm -rf /", true);
    assert_eq!(action(&emitted), &json!("block"), "{emitted:#}");
    std::fs::remove_file(home.hermes.join("config.yaml")).expect("rm");
    let emitted = emit_terminal(&home, &home.user_home, "rm -rf /", true);
    assert_eq!(action(&emitted), &json!("block"), "{emitted:#}");
    home.config("hooks: {}\n");
    let emitted = emit_terminal(&home, &home.user_home, "rm -rf /", true);
    assert_ne!(action(&emitted), &json!("block"), "{emitted:#}");
    // An imported guard, the list gone with the file.
    let (home, project) = home_with("[claude]");
    let guard = home.script("guard.sh", BLOCKS_RM);
    user_fail_closed_command(&home, &guard.display().to_string());
    assert_eq!(
        action(&emit_terminal(&home, &project, "rm -rf /", true)),
        &json!("block")
    );
    std::fs::remove_file(home.hermes.join("config.yaml")).expect("rm");
    let emitted = emit_terminal(&home, &project, "rm -rf /", true);
    assert_eq!(action(&emitted), &json!("block"), "{emitted:#}");
}

#[test]
fn a_projects_settings_file_gone_is_told_once() {
    let (home, project) = home_with("[claude]");
    let guard = home.script("guard.sh", BLOCKS_RM);
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": guard.display().to_string(), "failClosed": true}
    ]}]}});
    write(&project, ".claude/settings.json", &settings.to_string());
    let emitted = emit_terminal(&home, &project, "rm -rf /", true);
    assert_eq!(action(&emitted), &json!("block"), "{emitted:#}");
    std::fs::remove_file(project.join(".claude/settings.json")).expect("rm");
    let stderr = |accept: bool| {
        let out = emit_terminal_command(&home, &project, None, "ls", accept)
            .output()
            .expect("emit");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let first = stderr(false);
    assert!(first.contains("is gone"), "{first}");
    let second = stderr(false);
    assert!(!second.contains("is gone"), "{second}");
}
