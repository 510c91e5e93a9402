//! Imported-dialect fixtures (Claude Code, Codex, Cursor) every CLI test
//! binary shares: a scratch home with `hooks_from:`, a project beside it,
//! and `emit` in that project. HOME is always a scratch directory.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::harness;
use crate::support::{Run, TempHome};

/// A scratch home with `hooks_from: <list>` and a project folder beside it.
pub(crate) fn home_with(hooks_from: &str) -> (TempHome, PathBuf) {
    let home = TempHome::new();
    home.config(&format!("hooks_from: {hooks_from}\n"));
    let project = home.user_home.join("project");
    std::fs::create_dir_all(&project).expect("project");
    (home, project)
}

pub(crate) use crate::project_fixtures::{approve_project_hook, node_tool_package};

pub(crate) fn write(base: &Path, relative: &str, text: &str) -> PathBuf {
    let path = base.join(relative);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(&path, text).expect("write");
    path
}

pub(crate) fn in_project(home: &TempHome, project: &Path, args: &[&str]) -> Run {
    let mut full = vec!["--project", project.to_str().expect("UTF-8 path")];
    full.extend_from_slice(args);
    home.hooks(&full)
}

pub(crate) fn emit_json(
    home: &TempHome,
    project: &Path,
    extra: &[&str],
    event: &str,
    payload: &Value,
) -> Value {
    let file = home.write("payload.json", &payload.to_string());
    let mut args = extra.to_vec();
    args.extend([
        "emit",
        event,
        "--json",
        "--payload-file",
        file.to_str().expect("UTF-8"),
    ]);
    in_project(home, project, &args).json()
}

/// `emit_json` of a `terminal` tool call running `command` at
/// `pre_tool_call`, with `--accept-hooks` when `accept`.
pub(crate) fn emit_terminal(home: &TempHome, project: &Path, command: &str, accept: bool) -> Value {
    let payload = json!({"tool_name": "terminal", "args": {"command": command}, "task_id": "t"});
    let extra: &[&str] = if accept { &["--accept-hooks"] } else { &[] };
    emit_json(home, project, extra, "pre_tool_call", &payload)
}

const GUARD: &str = r#"#!/usr/bin/env bash
# Deny rm -rf with exit 0 + permissionDecision; reads the first line only.
read -r input
cmd=$(printf '%s' "$input" | python3 -c 'import json,sys; print(json.load(sys.stdin)["tool_input"].get("command",""))')
case "$cmd" in
  *"rm -rf"*) echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"rm -rf is not allowed here"}}' ;;
esac
"#;

const ENV_GUARD: &str = r#"#!/usr/bin/env bash
input=$(head -n 1)
if echo "$input" | grep -q '"file_path":"[^"]*\.env"'; then echo "Blocked: .env is protected" >&2; exit 2; fi
"#;

pub(crate) fn claude_project(project: &Path) {
    write(project, ".claude/hooks/guard.sh", GUARD);
    write(project, ".claude/hooks/env.sh", ENV_GUARD);
    let settings = json!({"hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "bash \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/guard.sh"}]},
            {"matcher": "Read|Edit|Write", "hooks": [{"type": "command", "command": "bash ${CLAUDE_PROJECT_DIR}/.claude/hooks/env.sh", "timeout": 20}]}
        ],
        "Notification": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]
    }});
    write(project, ".claude/settings.json", &settings.to_string());
}

pub(crate) fn bash(command: &str) -> Value {
    json!({"tool_name": "terminal", "args": {"command": command}, "session_id": "s"})
}

/// The user's `~/.claude/settings.json` with one fail-closed `PreToolUse`
/// handler for `matcher` running `sh ~/.claude/guard.sh` (whose text is
/// `body`), `if` set to `rule` when given.
pub(crate) fn user_fail_closed_guard(
    home: &TempHome,
    matcher: &str,
    body: &str,
    rule: Option<&str>,
) {
    let guard = write(&home.user_home, ".claude/guard.sh", body);
    let mut handler = json!({"type": "command", "command": format!("sh {}", guard.display()),
        "failClosed": true});
    if let Some(rule) = rule {
        handler["if"] = json!(rule);
    }
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": matcher, "hooks": [handler]}]}});
    write(
        &home.user_home,
        ".claude/settings.json",
        &settings.to_string(),
    );
}

/// A guard body that reads its input and answers `answer` (exit 0).
pub(crate) fn answering(answer: &Value) -> String {
    format!("cat >/dev/null\necho '{answer}'\n")
}

/// The command of `hooks [--accept-hooks] emit pre_tool_call --json` of a
/// `terminal` call of `rm -rf /` in `project` (the caller sets its
/// environment, then runs it).
pub(crate) fn emit_rm_command(
    home: &TempHome,
    project: &Path,
    accept: bool,
) -> std::process::Command {
    emit_terminal_command(home, project, None, "rm -rf /", accept)
}

/// The command of `hooks --project <project> [--accept-hooks] emit
/// pre_tool_call --json` of a `terminal` call of `command`, started in
/// `folder` when given (the caller sets its environment, then runs it).
pub(crate) fn emit_terminal_command(
    home: &TempHome,
    project: &Path,
    folder: Option<&Path>,
    command: &str,
    accept: bool,
) -> std::process::Command {
    let payload = json!({"tool_name": "terminal", "args": {"command": command}, "task_id": "t"});
    let file = home.write("payload.json", &payload.to_string());
    let mut args = vec!["--project", project.to_str().expect("UTF-8")];
    if accept {
        args.push("--accept-hooks");
    }
    args.extend(["emit", "pre_tool_call", "--json", "--payload-file"]);
    args.push(file.to_str().expect("UTF-8"));
    let mut emit = harness::command(home, &args);
    if let Some(folder) = folder {
        emit.current_dir(folder);
    }
    emit
}

/// Makes `path` executable.
pub(crate) fn executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

/// A home importing `~/.claude` whose `settings.json` runs `command`
/// fail-closed (matcher `Bash`), with the executable `~/.claude/hooks/<guard>`
/// holding `body`; returns the home and its project.
pub(crate) fn user_guard_file(command: &str, guard: &str, body: &str) -> (TempHome, PathBuf) {
    let (home, project) = home_with("[claude]");
    executable(&write(
        &home.user_home,
        &format!(".claude/hooks/{guard}"),
        body,
    ));
    user_fail_closed_command(&home, command);
    (home, project)
}

/// Writes the user's `~/.claude/settings.json` with one fail-closed
/// `PreToolUse` handler (matcher `Bash`) running `command`.
pub(crate) fn user_fail_closed_command(home: &TempHome, command: &str) {
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": command, "failClosed": true}
    ]}]}});
    write(
        &home.user_home,
        ".claude/settings.json",
        &settings.to_string(),
    );
}
