//! Red team round 11, the guard memory: guards are told apart, so one lost
//! while another appears is still lost (R11-3); a `failClosed` key where no
//! handler is read blocks, whether or not the file has `hooks` (R11-4); a
//! Codex `config.toml` cut at a line, that had guards, keeps blocking (R11-5),
//! even when the cut leaves a `hooks` table (R12-4).

use serde_json::{Value, json};

use crate::dialects::{answering, emit_terminal, home_with, write};
use crate::support::TempHome;

/// A Claude handler running `script`, fail-closed; `field` names its command.
fn handler(script: &std::path::Path, field: &str) -> Value {
    json!({"type": "command", field: format!("sh {}", script.display()), "failClosed": true})
}

/// A home importing `~/.claude` whose settings are `good`, read (and
/// approved) once; the guard denies with "user guard".
fn read_once(
    good: impl Fn(&std::path::Path) -> Value,
) -> (TempHome, std::path::PathBuf, std::path::PathBuf) {
    let (home, project) = home_with("[claude]");
    let deny = answering(&json!({"decision": "block", "reason": "user guard"}));
    let script = write(&home.user_home, ".claude/guard.sh", &deny);
    settings(&home, &good(&script));
    let approved = emit_terminal(&home, &project, "rm -rf /", true);
    assert_eq!(
        approved["outcome"]["message"],
        json!("user guard"),
        "{approved:#}"
    );
    (home, project, script)
}

fn settings(home: &TempHome, value: &Value) {
    write(&home.user_home, ".claude/settings.json", &value.to_string());
}

#[test]
fn a_guard_lost_while_another_of_its_event_appears_keeps_blocking() {
    let group = |matcher: &str, handler: Value| json!({"matcher": matcher, "hooks": [handler]});
    // A group split in two, with a typo in the half that guards Bash.
    let (home, project, script) = read_once(
        |s| json!({"hooks": {"PreToolUse": [group("Bash|Edit", handler(s, "command"))]}}),
    );
    let split = json!({"hooks": {"PreToolUse": [
        group("Edit", handler(&script, "command")),
        group("Bash", handler(&script, "comand")),
    ]}});
    settings(&home, &split);
    let emitted = emit_terminal(&home, &project, "rm -rf /", false);
    assert_eq!(emitted["outcome"]["action"], "block", "{emitted:#}");

    // The Bash guard broken while a Write guard is added.
    let (home, project, script) =
        read_once(|s| json!({"hooks": {"PreToolUse": [group("Bash", handler(s, "command"))]}}));
    let swapped = json!({"hooks": {"PreToolUse": [
        group("Bash", handler(&script, "comand")),
        group("Write", handler(&script, "command")),
    ]}});
    settings(&home, &swapped);
    let emitted = emit_terminal(&home, &project, "rm -rf /", false);
    assert_eq!(emitted["outcome"]["action"], "block", "{emitted:#}");
}

#[test]
fn a_fail_closed_key_where_no_handler_is_read_blocks() {
    let good = |s: &std::path::Path| json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [handler(s, "command")]}]}});
    let (home, project, script) = read_once(good);
    let moved = json!({"hooks": {}, "Hooks": good(&script)["hooks"].clone()});
    settings(&home, &moved);
    let emitted = emit_terminal(&home, &project, "rm -rf /", false);
    assert_eq!(emitted["outcome"]["action"], "block", "{emitted:#}");

    // A fresh file: failClosed on the group, not on the handler; the guard crashes.
    let (home, project) = home_with("[claude]");
    let crash = write(
        &home.user_home,
        ".claude/crash.sh",
        "cat >/dev/null\nexit 1\n",
    );
    let on_group = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "failClosed": true,
        "hooks": [{"type": "command", "command": format!("sh {}", crash.display())}]}]}});
    settings(&home, &on_group);
    let emitted = emit_terminal(&home, &project, "rm -rf /", true);
    assert_eq!(emitted["outcome"]["action"], "block", "{emitted:#}");
    let doctor = crate::dialects::in_project(&home, &project, &["doctor"]);
    assert_eq!(doctor.code(), Some(1), "{}", doctor.stdout());
}

/// A home importing `~/.codex/config.toml`, written as `head` and then a
/// failClosed `PreToolUse` guard denying with "codex guard", read (and
/// approved) once; returns the config's path too.
pub(crate) fn codex_guard(head: &str) -> (TempHome, std::path::PathBuf, std::path::PathBuf) {
    let (home, project) = home_with("[codex]");
    let deny = answering(&json!({"decision": "block", "reason": "codex guard"}));
    let script = write(&home.user_home, ".codex/guard.sh", &deny);
    let good = format!(
        "{head}[[hooks.PreToolUse]]\nmatcher = \"Bash\"\n[[hooks.PreToolUse.hooks]]\n\
         type = \"command\"\ncommand = \"sh {}\"\nfailClosed = true\n",
        script.display()
    );
    let config = write(&home.user_home, ".codex/config.toml", &good);
    let approved = emit_terminal(&home, &project, "rm -rf /", true);
    assert_eq!(
        approved["outcome"]["message"],
        json!("codex guard"),
        "{approved:#}"
    );
    (home, project, config)
}

/// Writes `text` over `config`, then asserts what `rm -rf /` gets.
pub(crate) fn after(
    home: &TempHome,
    project: &std::path::Path,
    config: &std::path::Path,
    text: &str,
    blocked: bool,
) {
    std::fs::write(config, text).expect("write");
    let emitted = emit_terminal(home, project, "rm -rf /", false);
    if blocked {
        assert_eq!(emitted["outcome"]["action"], "block", "{text}: {emitted:#}");
    } else {
        assert_eq!(emitted["outcome"], Value::Null, "{text}: {emitted:#}");
    }
}

#[test]
fn a_codex_config_toml_cut_at_a_line_keeps_blocking() {
    let (home, project, config) = codex_guard("model = \"o3\"\n");
    after(&home, &project, &config, "model = \"o3\"\n", true);
    // Taken out on purpose: `hooks = {}`.
    after(
        &home,
        &project,
        &config,
        "model = \"o3\"\nhooks = {}\n",
        false,
    );
}

#[test]
fn a_codex_config_toml_cut_before_its_guard_keeps_blocking() {
    // Another event's table first: the cut leaves a `hooks` table (R12-4).
    let head = "model = \"o3\"\n[[hooks.SessionStart]]\n[[hooks.SessionStart.hooks]]\n\
                type = \"command\"\ncommand = \"true\"\n";
    let (home, project, config) = codex_guard(head);
    after(&home, &project, &config, head, true);
    // Changed in another way, it is an edit: the guard is gone as meant.
    after(
        &home,
        &project,
        &config,
        &format!("{head}# no guard here\n"),
        false,
    );
}

#[test]
fn a_guard_whose_matcher_is_read_another_way_is_not_lost() {
    // Round 13, R13-6: `Task` edited to `exec_command` (read as `Bash`) is
    // an edit, not an entry that can no longer be read.
    let (home, project) = home_with("[claude]");
    let deny = answering(&json!({"decision": "block", "reason": "user guard"}));
    let script = write(&home.user_home, ".claude/guard.sh", &deny);
    let with = |matcher: &str| json!({"hooks": {"PreToolUse": [{"matcher": matcher, "hooks": [handler(&script, "command")]}]}});
    settings(&home, &with("Task"));
    emit_terminal(&home, &project, "ls", true);
    settings(&home, &with("exec_command"));
    let emitted = emit_terminal(&home, &project, "rm -rf /", true);
    assert_eq!(
        emitted["outcome"]["message"],
        json!("user guard"),
        "{emitted:#}"
    );
    let read = crate::dialects::emit_json(
        &home,
        &project,
        &[],
        "pre_tool_call",
        &json!({"tool_name": "read_file", "args": {"path": "README.md"}, "task_id": "t"}),
    );
    assert_eq!(read["outcome"], Value::Null, "{read:#}");
}
