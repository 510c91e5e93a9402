//! Red team round 9, the guards: a fail-closed guard's verdict in words its
//! format does not read blocks (R9-1); more matchers no call arrives with
//! guard the tool meant, or are warned about (R9-2); a settings file that
//! still parses but no longer reads as settings keeps blocking what its
//! last good read guarded (R9-3).

use serde_json::{Value, json};

use crate::dialects::{
    answering, emit_terminal, home_with, in_project, user_fail_closed_guard, write,
};
use crate::support::TempHome;

/// The user's fail-closed `~/.claude` guard of `Bash` printing `answer` and exiting 0.
fn claude_guard(home: &TempHome, answer: &Value) {
    user_fail_closed_guard(home, "Bash", &answering(answer), None);
}

fn action(emitted: &Value) -> &Value {
    &emitted["outcome"]["action"]
}

#[test]
fn a_fail_closed_verdict_in_words_its_format_does_not_read_blocks() {
    let unread = [
        json!({"decision": "deny", "reason": "rm -rf"}),
        json!({"decision": true}),
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "Deny"}}),
        json!({"hookSpecificOutput": "{\"permissionDecision\":\"deny\"}"}),
        json!({"continue": "false"}),
    ];
    for answer in &unread {
        let (home, project) = home_with("[claude]");
        claude_guard(&home, answer);
        for accept in [true, false] {
            let emitted = emit_terminal(&home, &project, "rm -rf /", accept);
            assert_eq!(action(&emitted), &json!("block"), "{answer}: {emitted:#}");
            let message = emitted["outcome"]["message"].as_str().unwrap_or("");
            assert!(message.contains("failed closed"), "{answer}: {message}");
        }
    }
    // What Claude Code reads as no objection still allows.
    for answer in [
        json!({}),
        json!({"decision": "approve"}),
        json!({"continue": true}),
    ] {
        let (home, project) = home_with("[claude]");
        claude_guard(&home, &answer);
        let emitted = emit_terminal(&home, &project, "ls", true);
        assert_ne!(action(&emitted), &json!("block"), "{answer}: {emitted:#}");
    }
}

#[test]
fn a_native_or_cursor_fail_closed_verdict_it_cannot_read_blocks() {
    let (home, project) = home_with("[cursor]");
    let guard = write(
        &home.user_home,
        ".cursor/guard.sh",
        "cat >/dev/null\necho '{\"permission\": \"Deny\"}'\n",
    );
    let hooks = json!({"version": 1, "hooks": {"beforeShellExecution": [
        {"command": format!("sh {}", guard.display()), "failClosed": true}
    ]}});
    write(&home.user_home, ".cursor/hooks.json", &hooks.to_string());
    let emitted = emit_terminal(&home, &project, "rm -rf /", true);
    assert_eq!(action(&emitted), &json!("block"), "cursor: {emitted:#}");

    let home = TempHome::new();
    let script = home.script(
        "native.sh",
        "#!/bin/sh\ncat >/dev/null\necho '{\"action\": \"deny\"}'\n",
    );
    home.config(&format!(
        "hooks:\n  pre_tool_call:\n    - command: {}\n      fail_closed: true\n",
        script.display()
    ));
    let emitted = emit_terminal(&home, &home.user_home, "rm -rf /", true);
    assert_eq!(action(&emitted), &json!("block"), "native: {emitted:#}");
    let message = emitted["outcome"]["message"].as_str().unwrap_or("");
    assert!(message.contains("\"action\": \"deny\""), "{message}");
}

#[test]
fn more_matchers_no_call_arrives_with_guard_the_tool_meant() {
    for pattern in ["Terminal", "^bash$", "Bash(rm *)", "BashTool"] {
        let (home, project) = home_with("[claude]");
        let ran = answering(&json!({"decision": "block", "reason": "guard ran"}));
        user_fail_closed_guard(&home, pattern, &ran, None);
        let emitted = emit_terminal(&home, &project, "rm -rf /", true);
        assert_eq!(
            emitted["outcome"]["message"],
            json!("guard ran"),
            "{pattern}: {emitted:#}"
        );
        let doctor = in_project(&home, &project, &["doctor"]);
        assert_ne!(doctor.code(), Some(0), "{pattern}");
    }
}

#[test]
fn a_settings_file_that_no_longer_reads_as_settings_keeps_its_guard() {
    let broken = [
        "null",
        "[]",
        "{\"hooks\": null}",
        "{\"hooks\": {\"PreToolUse\": null}}",
        "{\"hooks\": {\"PreToolUse\": {\"matcher\": \"Bash\"}}}",
        "{\"hooks\": {\"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"failClosed\": true}]}]}}",
    ];
    for text in broken {
        let (home, project) = home_with("[claude]");
        claude_guard(&home, &json!({"decision": "block", "reason": "user guard"}));
        let good = emit_terminal(&home, &project, "rm -rf /", true);
        assert_eq!(good["outcome"]["message"], json!("user guard"), "{good:#}");
        write(&home.user_home, ".claude/settings.json", text);
        let emitted = emit_terminal(&home, &project, "rm -rf /", false);
        assert_eq!(action(&emitted), &json!("block"), "{text}: {emitted:#}");
    }
    // A link whose target is gone (a dotfiles link) is not a removal either.
    let (home, project) = home_with("[claude]");
    claude_guard(&home, &json!({"decision": "block", "reason": "user guard"}));
    emit_terminal(&home, &project, "rm -rf /", true);
    let settings = home.user_home.join(".claude/settings.json");
    std::fs::remove_file(&settings).expect("remove");
    std::os::unix::fs::symlink(home.user_home.join("dotfiles/gone.json"), &settings).expect("link");
    let emitted = emit_terminal(&home, &project, "rm -rf /", false);
    assert_eq!(
        action(&emitted),
        &json!("block"),
        "dangling link: {emitted:#}"
    );

    // The guard taken out cleanly is gone, as the user meant.
    let (home, project) = home_with("[claude]");
    claude_guard(&home, &json!({"decision": "block", "reason": "user guard"}));
    emit_terminal(&home, &project, "rm -rf /", true);
    write(
        &home.user_home,
        ".claude/settings.json",
        "{\"hooks\": {\"PreToolUse\": []}}",
    );
    let emitted = emit_terminal(&home, &project, "rm -rf /", false);
    assert_ne!(action(&emitted), &json!("block"), "removed: {emitted:#}");
}
