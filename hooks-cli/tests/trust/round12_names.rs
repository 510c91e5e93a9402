//! Red team round 12, another agent's real tool names (R12-2): a fail-closed
//! guard whose matcher names Claude Code's `TodoRead` or `BashOutput`, or
//! Codex's `write_stdin`, is not read as the live tool inside the name
//! (`Write`, `Bash`): it never judges (and so never blocks) a file write or
//! a shell command, and the warning does not call the guard a mistake.
//! `TodoWrite` is Hermes's `todo` (its guard judges those calls).

use std::path::Path;

use serde_json::{Value, json};

use crate::dialects::{
    answering, emit_json, emit_terminal, home_with, in_project, user_fail_closed_guard, write,
};
use crate::support::TempHome;

/// A guard that blocks whatever it is asked, so a run shows in the outcome.
fn blocking() -> String {
    answering(&json!({"decision": "block", "reason": "guard ran"}))
}

fn ran(emitted: &Value) -> bool {
    emitted["outcome"]["message"] == json!("guard ran")
}

/// `hooks --accept-hooks emit pre_tool_call --json` of a `write_file` call.
fn emit_write(home: &TempHome, project: &Path) -> Value {
    let payload = json!({"tool_name": "write_file",
        "args": {"path": "notes.txt", "content": "hello"}, "task_id": "t"});
    emit_json(
        home,
        project,
        &["--accept-hooks"],
        "pre_tool_call",
        &payload,
    )
}

#[test]
fn a_todo_list_guard_never_judges_a_file_write() {
    for matcher in ["TodoWrite", "Edit|TodoWrite", "^TodoWrite$"] {
        let (home, project) = home_with("[claude]");
        user_fail_closed_guard(&home, matcher, &blocking(), None);
        assert!(!ran(&emit_write(&home, &project)), "{matcher}");
        // Claude Code's `TodoWrite` is Hermes's `todo`: it judges its calls.
        let payload = json!({"tool_name": "todo",
            "args": {"todos": [{"id": "1", "content": "x", "status": "pending"}]}, "task_id": "t"});
        let todo = emit_json(
            &home,
            &project,
            &["--accept-hooks"],
            "pre_tool_call",
            &payload,
        );
        assert!(ran(&todo), "{matcher}: {todo:#}");
    }
    for matcher in ["TodoRead", "Edit|TodoRead", "^TodoRead$"] {
        let (home, project) = home_with("[claude]");
        user_fail_closed_guard(&home, matcher, &blocking(), None);
        let emitted = emit_write(&home, &project);
        assert!(!ran(&emitted), "{matcher}: {emitted:#}");
        let doctor = in_project(&home, &project, &["doctor"]);
        let said = doctor.stdout();
        assert!(said.contains("Claude Code's tool"), "{matcher}: {said}");
        assert!(!said.contains("guards 'Write'"), "{matcher}: {said}");
    }
    // The control: a guard for `Write` judges it.
    let (home, project) = home_with("[claude]");
    user_fail_closed_guard(&home, "Write", &blocking(), None);
    assert!(ran(&emit_write(&home, &project)));
}

#[test]
fn a_background_shell_guard_never_judges_a_shell_command() {
    for matcher in ["BashOutput", "KillBash", "KillShell", "Read|BashOutput"] {
        let (home, project) = home_with("[claude]");
        user_fail_closed_guard(&home, matcher, &blocking(), None);
        let emitted = emit_terminal(&home, &project, "ls", true);
        assert!(!ran(&emitted), "{matcher}: {emitted:#}");
    }
    let (home, project) = home_with("[claude]");
    user_fail_closed_guard(&home, "Bash", &blocking(), None);
    assert!(ran(&emit_terminal(&home, &project, "ls", true)));
}

#[test]
fn a_codex_write_stdin_guard_never_judges_a_file_write() {
    let (home, project) = home_with("[codex]");
    let guard = write(&home.user_home, ".codex/guard.sh", &blocking());
    let handler = json!({"type": "command", "command": format!("sh {}", guard.display()),
        "failClosed": true});
    let hooks = json!({"hooks": {"PreToolUse": [{"matcher": "write_stdin", "hooks": [handler]}]}});
    write(&home.user_home, ".codex/hooks.json", &hooks.to_string());
    let emitted = emit_write(&home, &project);
    assert!(!ran(&emitted), "{emitted:#}");
}
