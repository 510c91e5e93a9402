//! Red team round 11, dead matcher names (R11-2): a fail-closed guard whose
//! matcher lists live tools and one misspelt name (`Edit|Bsh`) guards the
//! tool meant; a dead name whose meaning cannot be told is never silent (a
//! warning naming it, a `doctor` problem); a dead `if` rule is read against
//! the widened matcher, so the guard runs for the tool the warning names.

use std::path::Path;

use serde_json::{Value, json};

use crate::dialects::{
    answering, emit_terminal, home_with, in_project, user_fail_closed_guard, write,
};
use crate::support::{Run, TempHome};

/// A guard that blocks whatever it is asked, so a run shows in the outcome.
fn blocking() -> String {
    answering(&json!({"decision": "block", "reason": "guard ran"}))
}

fn ran(emitted: &Value) -> bool {
    emitted["outcome"]["message"] == json!("guard ran")
}

/// `hooks --accept-hooks emit pre_tool_call` of `rm -rf /`, as run (stderr kept).
fn emit_rm(home: &TempHome, project: &Path) -> Run {
    let payload = json!({"tool_name": "terminal", "args": {"command": "rm -rf /"}, "task_id": "t"});
    let file = home.write("payload.json", &payload.to_string());
    let file = file.to_str().expect("UTF-8");
    let args = [
        "--accept-hooks",
        "emit",
        "pre_tool_call",
        "--json",
        "--payload-file",
        file,
    ];
    in_project(home, project, &args)
}

#[test]
fn a_misspelt_name_among_live_ones_guards_the_tool_meant() {
    for matcher in [
        "Edit|Bsh",
        "Write|Edit|Bahs",
        "^(Edit|Bsh)$",
        "(?i)edit|bsh",
    ] {
        let (home, project) = home_with("[claude]");
        user_fail_closed_guard(&home, matcher, &blocking(), None);
        let emitted = emit_terminal(&home, &project, "rm -rf /", true);
        assert!(ran(&emitted), "{matcher}: {emitted:#}");
        let doctor = in_project(&home, &project, &["doctor"]);
        assert_ne!(doctor.code(), Some(0), "{matcher}: {}", doctor.stdout());
    }
    // Codex's hooks.json is read the same way.
    let (home, project) = home_with("[codex]");
    let guard = write(&home.user_home, ".codex/guard.sh", &blocking());
    let handler = json!({"type": "command", "command": format!("sh {}", guard.display()),
        "failClosed": true});
    let hooks = json!({"hooks": {"PreToolUse": [{"matcher": "Edit|Bsh", "hooks": [handler]}]}});
    write(&home.user_home, ".codex/hooks.json", &hooks.to_string());
    let emitted = emit_terminal(&home, &project, "rm -rf /", true);
    assert!(ran(&emitted), "codex: {emitted:#}");
}

#[test]
fn a_dead_name_among_live_ones_that_cannot_be_told_is_not_silent() {
    for (matcher, dead) in [
        ("Edit|shell_exec", "shell_exec"),
        ("^(Edit|frobnicate)$", "frobnicate"),
        // Separators and no name (red team R39-4): it ran for nothing, silently.
        ("|", "(no tool)"),
        ("||", "(no tool)"),
    ] {
        let (home, project) = home_with("[claude]");
        user_fail_closed_guard(&home, matcher, &blocking(), None);
        let run = emit_rm(&home, &project);
        let stderr = run.stderr();
        for said in ["settings.json", "hooks.PreToolUse[0]", dead, "NEVER RUNS"] {
            assert!(stderr.contains(said), "{matcher}: {said} not in {stderr}");
        }
        let doctor = in_project(&home, &project, &["doctor"]);
        assert_ne!(doctor.code(), Some(0), "{matcher}: {}", doctor.stdout());
        assert!(doctor.stdout().contains(dead), "{}", doctor.stdout());
    }
}

#[test]
fn a_dead_if_rule_is_read_against_the_widened_matcher() {
    for (matcher, rule) in [
        ("Edit|bash", "bash(rm *)"),
        ("Edit|Terminal", "Terminal(rm *)"),
        ("bash", "bash(rm *)"),
    ] {
        let (home, project) = home_with("[claude]");
        user_fail_closed_guard(&home, matcher, &blocking(), Some(rule));
        let run = emit_rm(&home, &project);
        let stderr = run.stderr();
        assert!(ran(&run.json()), "{matcher} {rule}: {}", run.stdout());
        assert!(stderr.contains("guards 'Bash"), "{stderr}");
        // The rule still narrows the guard: `ls` is not `rm *`.
        let emitted = emit_terminal(&home, &project, "ls", true);
        assert!(!ran(&emitted), "{matcher} {rule}: {emitted:#}");
        let doctor = in_project(&home, &project, &["doctor"]);
        assert_ne!(doctor.code(), Some(0), "{matcher} {rule}");
    }
}
