//! Red team round 11, R11-1: a fail-closed guard's answer is read against
//! the keys its format documents at each place. A deny said anywhere else
//! (the wrapper spelled otherwise, one level deeper, a natural key such as
//! `blocked: true`, a `verdict` word, a look-alike letter in a key, a list
//! of decisions) blocks, naming the key; so does a native rewrite that sets
//! none of the call's arguments, native or Claude's `updatedInput` (Hermes
//! merges it, so `rm -rf /` would run).
//! Documented answers keep their meaning.

use serde_json::{Value, json};

use crate::dialects::{answering, emit_terminal, home_with, user_fail_closed_guard, write};
use crate::support::TempHome;

fn action(emitted: &Value) -> &Value {
    &emitted["outcome"]["action"]
}

fn message(emitted: &Value) -> &str {
    emitted["outcome"]["message"].as_str().unwrap_or("")
}

/// One answer of each family the old scan missed, in Claude Code's (and
/// Codex's) format, with the key the block must name.
fn claude_family() -> Vec<(Value, &'static str)> {
    let deny = json!({"hookEventName": "PreToolUse", "permissionDecision": "deny"});
    vec![
        (json!({"HookSpecificOutput": deny}), "HookSpecificOutput"),
        (
            json!({"hook_specific_output": deny}),
            "hook_specific_output",
        ),
        (json!({"result": {"decision": "block"}}), "result"),
        (
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "PreToolUse": {"permissionDecision": "deny"}}}),
            "PreToolUse",
        ),
        (json!({"allowed": false, "reason": "rm -rf"}), "allowed"),
        (json!({"verdict": "deny"}), "verdict"),
        (
            json!({"permission\u{200b}Decision": "deny"}),
            "permission\\u{200b}Decision",
        ),
        (
            json!({"decisions": [{"permissionDecision": "deny"}]}),
            "decisions",
        ),
    ]
}

/// The documented answers of Claude Code's format that must still allow.
fn claude_allows() -> [Value; 2] {
    [
        json!({}),
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}),
    ]
}

/// The user's fail-closed `~/.codex/hooks.json` guard of `Bash` answering `answer`.
fn codex_guard(home: &TempHome, answer: &Value) {
    let guard = write(&home.user_home, ".codex/guard.sh", &answering(answer));
    let handler = json!({"type": "command", "command": format!("sh {}", guard.display()), "failClosed": true});
    let hooks = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [handler]}]}});
    write(&home.user_home, ".codex/hooks.json", &hooks.to_string());
}

/// The user's fail-closed `~/.cursor/hooks.json` shell guard answering `answer`.
fn cursor_guard(home: &TempHome, answer: &Value) {
    let guard = write(&home.user_home, ".cursor/guard.sh", &answering(answer));
    let hooks = json!({"version": 1, "hooks": {"beforeShellExecution": [
        {"command": format!("sh {}", guard.display()), "failClosed": true}
    ]}});
    write(&home.user_home, ".cursor/hooks.json", &hooks.to_string());
}

/// A `config.yaml` hook with `fail_closed: true` answering `answer`.
fn native_guard(answer: &Value) -> TempHome {
    let home = TempHome::new();
    let script = home.script("native.sh", &format!("#!/bin/sh\n{}", answering(answer)));
    home.config(&format!(
        "hooks:\n  pre_tool_call:\n    - command: {}\n      fail_closed: true\n",
        script.display()
    ));
    home
}

fn assert_blocks_naming(emitted: &Value, key: &str, case: &str) {
    assert_eq!(action(emitted), &json!("block"), "{case}: {emitted:#}");
    let message = message(emitted);
    assert!(message.contains("failed closed"), "{case}: {message}");
    assert!(message.contains(key), "{case}: {message}");
}

#[test]
fn a_claude_or_codex_guard_answering_in_keys_its_format_does_not_read_blocks() {
    for (dialect, guard) in [
        (
            "claude",
            (|home, answer| user_fail_closed_guard(home, "Bash", &answering(answer), None))
                as fn(&TempHome, &Value),
        ),
        ("codex", codex_guard),
    ] {
        for (answer, key) in claude_family() {
            let (home, project) = home_with(&format!("[{dialect}]"));
            guard(&home, &answer);
            let emitted = emit_terminal(&home, &project, "rm -rf /", true);
            assert_blocks_naming(&emitted, key, &format!("{dialect} {answer}"));
        }
        for answer in claude_allows() {
            let (home, project) = home_with(&format!("[{dialect}]"));
            guard(&home, &answer);
            let emitted = emit_terminal(&home, &project, "ls", true);
            assert_ne!(
                action(&emitted),
                &json!("block"),
                "{dialect} {answer}: {emitted:#}"
            );
        }
    }
}

#[test]
fn a_claude_guard_rewriting_none_of_the_calls_arguments_blocks() {
    let rewrite = |input: Value| {
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
            "updatedInput": input}})
    };
    for (input, named) in [
        (json!({}), "sets no argument"),
        (json!({"cmd": "echo safe"}), "\"cmd\""),
    ] {
        let (home, project) = home_with("[claude]");
        user_fail_closed_guard(&home, "Bash", &answering(&rewrite(input.clone())), None);
        let emitted = emit_terminal(&home, &project, "rm -rf /", true);
        assert_blocks_naming(&emitted, named, &format!("claude updatedInput {input}"));
    }
    let (home, project) = home_with("[claude]");
    let safe = rewrite(json!({"command": "echo safe"}));
    user_fail_closed_guard(&home, "Bash", &answering(&safe), None);
    let emitted = emit_terminal(&home, &project, "rm -rf /", true);
    assert_eq!(
        emitted["outcome"]["args"]["command"],
        json!("echo safe"),
        "{emitted:#}"
    );
}

#[test]
fn a_cursor_guard_answering_in_keys_its_format_does_not_read_blocks() {
    for (answer, key) in [
        (json!({"result": {"permission": "deny"}}), "result"),
        (json!({"permission.": "deny"}), "permission."),
        (json!({"blocked": true}), "blocked"),
        (json!({"perm\u{456}ssion": "deny"}), "perm"),
    ] {
        let (home, project) = home_with("[cursor]");
        cursor_guard(&home, &answer);
        let emitted = emit_terminal(&home, &project, "rm -rf /", true);
        assert_blocks_naming(&emitted, key, &format!("cursor {answer}"));
    }
    let (home, project) = home_with("[cursor]");
    cursor_guard(&home, &json!({"permission": "allow"}));
    let emitted = emit_terminal(&home, &project, "ls", true);
    assert_ne!(
        action(&emitted),
        &json!("block"),
        "cursor allow: {emitted:#}"
    );
}

#[test]
fn a_native_guard_answering_in_keys_it_does_not_read_or_rewriting_nothing_blocks() {
    for (answer, named) in [
        (json!({"blocked": true, "message": "rm"}), "blocked"),
        (json!({"result": {"action": "block"}}), "result"),
        (json!({"verdict": "block"}), "verdict"),
        (json!({"action": "modify", "args": {}}), "sets no argument"),
        (
            json!({"action": "modify", "args": {"cmd": "echo safe"}}),
            "\"cmd\"",
        ),
    ] {
        let home = native_guard(&answer);
        let emitted = emit_terminal(&home, &home.user_home, "rm -rf /", true);
        assert_blocks_naming(&emitted, named, &format!("native {answer}"));
    }
    for answer in [
        json!({}),
        json!({"action": "modify", "args": {"command": "echo safe"}}),
    ] {
        let home = native_guard(&answer);
        let emitted = emit_terminal(&home, &home.user_home, "rm -rf /", true);
        assert_ne!(
            action(&emitted),
            &json!("block"),
            "native {answer}: {emitted:#}"
        );
    }
    let home = native_guard(&json!({"action": "modify", "args": {"command": "echo safe"}}));
    let emitted = emit_terminal(&home, &home.user_home, "rm -rf /", true);
    assert_eq!(
        emitted["outcome"]["args"]["command"],
        json!("echo safe"),
        "{emitted:#}"
    );
}

#[test]
fn a_fail_closed_answer_giving_a_key_twice_blocks() {
    // Red team round 10's duplicate key, read whole (R11-1's rule): a deny
    // then an allow under one key cannot be told apart.
    let deny = r#"{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}"#;
    let allow = r#"{"hookEventName":"PreToolUse","permissionDecision":"allow"}"#;
    let answer = format!(r#"{{"hookSpecificOutput":{deny},"hookSpecificOutput":{allow}}}"#);
    let (home, project) = home_with("[claude]");
    user_fail_closed_guard(
        &home,
        "Bash",
        &format!("cat >/dev/null\necho '{answer}'\n"),
        None,
    );
    let emitted = emit_terminal(&home, &project, "rm -rf /", true);
    assert_blocks_naming(&emitted, "hookSpecificOutput", "claude duplicate key");

    let home = native_guard(&json!({}));
    let script = home.script(
        "twice.sh",
        "#!/bin/sh\ncat >/dev/null\necho '{\"action\":\"block\",\"action\":\"allow\"}'\n",
    );
    home.config(&format!(
        "hooks:\n  pre_tool_call:\n    - command: {}\n      fail_closed: true\n",
        script.display()
    ));
    let project = home.user_home.clone();
    let emitted = emit_terminal(&home, &project, "rm -rf /", true);
    assert_blocks_naming(&emitted, "action", "native duplicate key");
}
