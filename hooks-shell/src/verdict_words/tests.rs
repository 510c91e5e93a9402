//! The reading of a fail-closed guard's answer: verdicts in words its
//! format does not read (R9-1, R10-1), keys it does not document (R11-1).

use super::*;
use serde_json::json;

fn read(format: Format, answer: Value) -> Option<String> {
    unreadable(format, answer.as_object().expect("an object"))
}

fn all_unreadable(format: Format, answers: &[Value]) {
    for answer in answers {
        assert!(
            read(format, answer.clone()).is_some(),
            "{format:?} {answer}"
        );
    }
}

#[test]
fn a_verdict_in_words_the_format_does_not_read_is_unreadable() {
    all_unreadable(
        Format::Claude,
        &[
            json!({"decision": "deny"}),
            json!({"decision": "Block"}),
            json!({"decision": true}),
            json!({"decision": ["block"]}),
            json!({"hookSpecificOutput": {"permissionDecision": "Deny"}}),
            json!({"hookSpecificOutput": {"permissionDecision": false}}),
            json!({"hookSpecificOutput": "{\"permissionDecision\":\"deny\"}"}),
            json!({"continue": "false"}),
            json!({"continue": 0}),
            json!({"permission": "deny"}),
        ],
    );
    all_unreadable(
        Format::Cursor,
        &[
            json!({"permission": "Deny"}),
            json!({"permission": false}),
            json!({"decision": "block"}),
            json!({"continue": false}),
        ],
    );
    // Red team round 10 (R10-1): verdict keys where the format reads none.
    all_unreadable(
        Format::Claude,
        &[
            json!({"permissionDecision": "deny", "permissionDecisionReason": "rm -rf"}),
            json!({"hookSpecificOutput": {"permission": "deny"}}),
            json!({"hookSpecificOutput": {"decision": {"behavior": "deny"}}}),
            json!({"ok": false, "reason": "rm -rf"}),
            json!({"Decision": "block"}),
            json!({"hookSpecificOutput": {"PermissionDecision": "deny"}}),
            json!({"hookSpecificOutput": {"permission_decision": "deny"}}),
            json!({"block": true}),
            json!({"hookSpecificOutput": {"permissionDecision": "allow", "updatedInput": "ls"}}),
        ],
    );
    all_unreadable(
        Format::Cursor,
        &[
            json!({"permissionDecision": "deny"}),
            json!({"Permission": "deny"}),
            json!({"ok": false}),
        ],
    );
    all_unreadable(
        Format::Native,
        &[
            json!({"block": true}),
            json!({"ok": false}),
            json!({"action": "modify"}),
            json!({"action": "modify", "args": "echo safe"}),
            json!({"decision": "modify", "args": {"command": "ls"}}),
            json!({"action": "deny"}),
            json!({"action": "Block"}),
            json!({"action": true}),
            json!({"decision": "deny"}),
            json!({"hookSpecificOutput": {"permissionDecision": "deny"}}),
        ],
    );
}

#[test]
fn a_key_its_format_does_not_document_is_unreadable() {
    let deny = json!({"hookEventName": "PreToolUse", "permissionDecision": "deny"});
    all_unreadable(
        Format::Claude,
        &[
            json!({"HookSpecificOutput": deny}),
            json!({"hook_specific_output": deny}),
            json!({"hookSpecificOutputs": deny}),
            json!({"hookSpecificOutput ": deny}),
            json!({"output": deny}),
            json!({"result": {"decision": "block"}}),
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "PreToolUse": {"permissionDecision": "deny"}}}),
            json!({"blocked": true}),
            json!({"allowed": false}),
            json!({"denied": true}),
            json!({"approved": false}),
            json!({"verdict": "deny"}),
            json!({"status": "blocked"}),
            json!({"result": "deny"}),
            json!({"reject": true}),
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "allowed": false}}),
            json!({"permission\u{200b}Decision": "deny"}),
            json!({"permissionD\u{435}cision": "deny"}),
            json!({"h\u{43e}\u{43e}kSpecificOutput": deny}),
            json!({"decisions": [{"permissionDecision": "deny"}]}),
            json!({"hookSpecificOutput": [deny]}),
            json!({"reason": {"decision": "block"}}),
            json!({"updated_input": {"command": "ls"}}),
        ],
    );
    all_unreadable(
        Format::Cursor,
        &[
            json!({"result": {"permission": "deny"}}),
            json!({"permission.": "deny"}),
            json!({"allowed": false}),
            json!({"blocked": true}),
            json!({"hookSpecificOutput": {"updatedInput": {"command": "ls"}}}),
        ],
    );
    all_unreadable(
        Format::Native,
        &[
            json!({"blocked": true, "message": "rm"}),
            json!({"allowed": false}),
            json!({"result": {"action": "block"}}),
            json!({"verdict": "block"}),
            json!({"args": {"command": "echo safe"}}),
            json!({"action": "modify", "args": {"command": "ls"}, "tool_input": {"command": "ls"}}),
        ],
    );
}

#[test]
fn the_reason_names_the_key_and_what_to_write() {
    let why = read(
        Format::Claude,
        json!({"permission\u{200b}Decision": "deny"}),
    )
    .expect("unreadable");
    assert!(why.contains("\"permission\\u{200b}Decision\""), "{why}");
    assert!(why.contains("outside ASCII"), "{why}");
    assert!(why.contains("\"permissionDecision\":\"deny\""), "{why}");
    let why = read(Format::Cursor, json!({"blocked": true})).expect("unreadable");
    assert!(
        why.contains("\"blocked\"") && why.contains("at the top level"),
        "{why}"
    );
    assert!(why.contains("{\"permission\":\"deny\"}"), "{why}");
    let why = read(
        Format::Claude,
        json!({"hookSpecificOutput": {"allowed": false}}),
    )
    .expect("unreadable");
    assert!(why.contains("in \"hookSpecificOutput\""), "{why}");
}

#[test]
fn what_the_format_reads_or_no_objection_is_readable() {
    for (format, answer) in [
        (Format::Claude, json!({})),
        (
            Format::Claude,
            json!({"decision": "approve", "continue": true}),
        ),
        (
            Format::Claude,
            json!({"continue": false, "stopReason": "no"}),
        ),
        (
            Format::Claude,
            json!({"hookSpecificOutput": {"permissionDecision": "ask"}}),
        ),
        (
            Format::Claude,
            json!({"hookSpecificOutput": {"additionalContext": "x"}}),
        ),
        (
            Format::Claude,
            json!({"reason": null, "systemMessage": "hi"}),
        ),
        (
            Format::Claude,
            json!({"suppressOutput": true, "decision": "block", "reason": "no"}),
        ),
        (
            Format::Cursor,
            json!({"permission": "allow", "continue": true}),
        ),
        (
            Format::Cursor,
            json!({"hookSpecificOutput": {"permissionDecision": "allow"}}),
        ),
        (
            Format::Cursor,
            json!({"permission": "deny", "user_message": "a", "agentMessage": "b"}),
        ),
        (Format::Native, json!({"context": "x"})),
        (Format::Native, json!({"action": "modify", "args": {}})),
        (
            Format::Native,
            json!({"decision": "modify", "tool_input": {"command": "ls"}}),
        ),
        (Format::Native, json!({"action": "block", "message": "no"})),
        (
            Format::Claude,
            json!({"hookSpecificOutput": {"permissionDecision": "defer"}}),
        ),
        (
            Format::Claude,
            json!({"permissionDecision": "allow", "ok": true}),
        ),
        (
            Format::Claude,
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                "updatedInput": {"command": "ls", "anything": {"nested": "deny"}}}}),
        ),
        (
            Format::Claude,
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"},
                "permission": "allow"}),
        ),
        (
            Format::Cursor,
            json!({"permission": "allow", "decision": "allow", "continue": true}),
        ),
        (
            Format::Cursor,
            json!({"permission": "allow", "updated_input": {"command": "ls"}}),
        ),
    ] {
        assert_eq!(read(format, answer.clone()), None, "{format:?} {answer}");
    }
}

#[test]
fn a_verdict_left_null_is_unreadable_and_other_nulls_are_absent_keys() {
    all_unreadable(
        Format::Claude,
        &[
            json!({"decision": null, "reason": "blocked"}),
            json!({"decision": null, "systemMessage": "hi"}),
            json!({"hookSpecificOutput": {"permissionDecision": null,
                "permissionDecisionReason": "rm -rf is blocked"}}),
            json!({"hookSpecificOutput": null, "reason": "blocked"}),
            json!({"continue": null}),
            json!({"permission": null}),
        ],
    );
    all_unreadable(Format::Native, &[json!({"action": null, "message": "no"})]);
    all_unreadable(Format::Cursor, &[json!({"permission": null})]);
    for (format, answer) in [
        (
            Format::Claude,
            json!({"reason": null, "systemMessage": null}),
        ),
        (Format::Native, json!({"message": null, "note": null})),
    ] {
        assert_eq!(read(format, answer.clone()), None, "{format:?} {answer}");
    }
}

#[test]
fn a_reason_without_a_verdict_is_unreadable() {
    all_unreadable(
        Format::Claude,
        &[
            json!({"reason": "blocked by policy"}),
            json!({"hookSpecificOutput": {}, "reason": "blocked"}),
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                "permissionDecisionReason": "rm -rf is blocked"}}),
        ],
    );
    all_unreadable(Format::Native, &[json!({"message": "rm -rf is blocked"})]);
    for (format, answer) in [
        (Format::Claude, json!({"decision": "block", "reason": "no"})),
        (
            Format::Claude,
            json!({"systemMessage": "note", "reason": ""}),
        ),
        (Format::Native, json!({"action": "block", "message": "no"})),
        (Format::Native, json!({})),
    ] {
        assert_eq!(read(format, answer.clone()), None, "{format:?} {answer}");
    }
}
