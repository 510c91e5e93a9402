//! The user's fail-closed guard narrowed to a file rule (`Read(**/.env)`):
//! every spelling of the path that names the file runs it (red-team round
//! 5, F18): `**/` matches no folder too, `./`, `//` and `..` are read as
//! the path they spell, and a link as the file it points to.

use serde_json::{Value, json};

use crate::dialects::{emit_json, home_with, write};
use crate::support::TempHome;

/// Denies every call it is run for.
const DENY_ALL: &str = "#!/bin/sh\ncat >/dev/null\necho '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"user guard\"}}'\n";

/// The user's `~/.claude/settings.json` with one fail-closed Read guard
/// narrowed by `rule`.
fn user_read_guard(home: &TempHome, rule: &str) {
    let guard = home.script("guard.sh", DENY_ALL);
    let handler = json!({"type": "command", "command": guard.display().to_string(),
        "failClosed": true, "if": rule});
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Read", "hooks": [handler]}]}});
    write(
        &home.user_home,
        ".claude/settings.json",
        &settings.to_string(),
    );
}

fn read_action(home: &TempHome, project: &std::path::Path, path: &str) -> Value {
    let payload = json!({"tool_name": "read_file", "args": {"path": path}, "task_id": "t"});
    let emitted = emit_json(
        home,
        project,
        &["--accept-hooks"],
        "pre_tool_call",
        &payload,
    );
    emitted["outcome"]["action"].clone()
}

#[test]
fn a_fail_closed_read_rule_runs_for_every_spelling_of_the_path() {
    let (home, project) = home_with("[claude]");
    write(&project, ".env", "SECRET=1\n");
    std::os::unix::fs::symlink(".env", project.join("env-link")).expect("link");
    let absolute = project.join(".env").display().to_string();
    let top = project.display().to_string();
    user_read_guard(&home, "Read(**/.env)");
    for path in [
        ".env".to_owned(),
        "./.env".to_owned(),
        "sub/../.env".to_owned(),
        "sub/.env".to_owned(),
        absolute,
        format!("{top}//.env"),
        format!("{top}/./sub/../.env"),
        format!("{top}/.env/"),
        format!("{top}/env-link"),
        "$SECRET_FILE".to_owned(),
    ] {
        assert_eq!(
            read_action(&home, &project, &path),
            json!("block"),
            "{path}"
        );
    }
    // The rule still narrows: another file skips the guard.
    for path in ["README.md", "sub/.envrc", "./src/main.rs"] {
        assert_eq!(read_action(&home, &project, path), Value::Null, "{path}");
    }
}
