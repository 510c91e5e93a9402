//! Red team round 10, the guards: a deny under a verdict key the format
//! does not read there, in any spelling, or a rewrite that cannot be
//! applied, blocks a fail-closed guard (R10-1); a dead tool name among live
//! ones, or an `if` rule on a tool the matcher never matches, guards the
//! tool meant too (R10-2); of two fail-closed guards of one event, the one
//! lost to an unreadable entry keeps blocking (R10-3); a guard moved out of
//! the `hooks` object keeps blocking (R10-4).

use serde_json::{Value, json};

use crate::dialects::{
    answering, emit_terminal, home_with, in_project, user_fail_closed_guard, write,
};
use crate::support::TempHome;

fn action(emitted: &Value) -> &Value {
    &emitted["outcome"]["action"]
}

#[test]
fn a_deny_under_a_key_its_format_does_not_read_there_blocks() {
    for answer in [
        json!({"permissionDecision": "deny", "permissionDecisionReason": "rm -rf"}),
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permission": "deny"}}),
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "decision": {"behavior": "deny"}}}),
        json!({"ok": false, "reason": "rm -rf"}),
        json!({"Decision": "block"}),
        json!({"block": true}),
    ] {
        let (home, project) = home_with("[claude]");
        user_fail_closed_guard(&home, "Bash", &answering(&answer), None);
        let emitted = emit_terminal(&home, &project, "rm -rf /", true);
        assert_eq!(action(&emitted), &json!("block"), "{answer}: {emitted:#}");
    }
    // A native rewrite that cannot be applied would run the call as it was.
    let home = TempHome::new();
    let script = home.script(
        "native.sh",
        "#!/bin/sh\ncat >/dev/null\necho '{\"action\": \"modify\", \"args\": \"echo safe\"}'\n",
    );
    home.config(&format!(
        "hooks:\n  pre_tool_call:\n    - command: {}\n      fail_closed: true\n",
        script.display()
    ));
    let emitted = emit_terminal(&home, &home.user_home, "rm -rf /", true);
    assert_eq!(
        action(&emitted),
        &json!("block"),
        "native modify: {emitted:#}"
    );
    // Ordinary answers still allow.
    for answer in [
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}),
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "x"}}),
        json!({"ok": true}),
    ] {
        let (home, project) = home_with("[claude]");
        user_fail_closed_guard(&home, "Bash", &answering(&answer), None);
        let emitted = emit_terminal(&home, &project, "ls", true);
        assert_ne!(action(&emitted), &json!("block"), "{answer}: {emitted:#}");
    }
}

#[test]
fn a_dead_name_among_live_ones_guards_the_tool_meant_too() {
    let ran = answering(&json!({"decision": "block", "reason": "guard ran"}));
    let cases = [
        ("Edit|bash", None),
        ("^(bash|Edit)$", None),
        ("Edit", Some("Bash(rm *)")),
    ];
    for (matcher, rule) in cases {
        let (home, project) = home_with("[claude]");
        user_fail_closed_guard(&home, matcher, &ran, rule);
        let emitted = emit_terminal(&home, &project, "rm -rf /", true);
        assert_eq!(
            emitted["outcome"]["message"],
            json!("guard ran"),
            "{matcher} {rule:?}: {emitted:#}"
        );
        let doctor = in_project(&home, &project, &["doctor"]);
        assert_ne!(doctor.code(), Some(0), "{matcher} {rule:?}");
    }
}

/// Writes the user's `~/.claude/settings.json`.
fn settings(home: &TempHome, text: &str) {
    write(&home.user_home, ".claude/settings.json", text);
}

#[test]
fn a_guard_lost_beside_another_of_its_event_keeps_blocking() {
    let (home, project) = home_with("[claude]");
    let deny = write(
        &home.user_home,
        ".claude/deny.sh",
        &answering(&json!({"decision": "block", "reason": "user guard"})),
    );
    let quiet = write(&home.user_home, ".claude/quiet.sh", "cat >/dev/null\n");
    let handler = |script: &std::path::Path| json!({"type": "command", "command": format!("sh {}", script.display()), "failClosed": true});
    let good = json!({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [handler(&deny)]},
        {"matcher": "Write|Edit", "hooks": [handler(&quiet)]}
    ]}});
    settings(&home, &good.to_string());
    let approved = emit_terminal(&home, &project, "rm -rf /", true);
    assert_eq!(
        approved["outcome"]["message"],
        json!("user guard"),
        "{approved:#}"
    );
    let broken = json!({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "failClosed": true}]},
        {"matcher": "Write|Edit", "hooks": [handler(&quiet)]}
    ]}});
    settings(&home, &broken.to_string());
    let emitted = emit_terminal(&home, &project, "rm -rf /", false);
    assert_eq!(action(&emitted), &json!("block"), "{emitted:#}");
}

#[test]
fn a_guard_moved_out_of_the_hooks_object_keeps_blocking() {
    for wrapper in ["Hooks", "hooks ", "settings"] {
        let (home, project) = home_with("[claude]");
        let ran = answering(&json!({"decision": "block", "reason": "user guard"}));
        user_fail_closed_guard(&home, "Bash", &ran, None);
        let approved = emit_terminal(&home, &project, "rm -rf /", true);
        assert_eq!(
            approved["outcome"]["message"],
            json!("user guard"),
            "{approved:#}"
        );
        let path = home.user_home.join(".claude/settings.json");
        let good: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("JSON");
        let moved = if wrapper == "settings" {
            json!({"settings": {"hooks": good["hooks"].clone()}})
        } else {
            json!({ wrapper: good["hooks"].clone() })
        };
        settings(&home, &moved.to_string());
        let emitted = emit_terminal(&home, &project, "rm -rf /", false);
        assert_eq!(action(&emitted), &json!("block"), "{wrapper}: {emitted:#}");
    }
}
