//! §7.1 1–14, 38–39: stdout parsing per event, both dialects.

use hermes_hooks_core::HookEvent::{
    self, PostToolCall, PreLlmCall, PreToolCall, PreVerify, SubagentStop,
};
use hermes_hooks_shell::parse_stdout;
use serde_json::{Value, json};

fn parse(event: HookEvent, stdout: &str) -> Option<Value> {
    parse_stdout(event, stdout)
}

fn block(message: &str) -> Option<Value> {
    Some(json!({"action": "block", "message": message}))
}

#[test]
fn t01_block_claude_code_style() {
    assert_eq!(
        parse(PreToolCall, r#"{"decision": "block", "reason": "nope"}"#),
        block("nope")
    );
}

#[test]
fn t02_block_canonical_style() {
    assert_eq!(
        parse(PreToolCall, r#"{"action": "block", "message": "nope"}"#),
        block("nope")
    );
}

#[test]
fn t03_block_canonical_wins_over_claude_style() {
    let stdout =
        r#"{"action": "block", "message": "canon", "decision": "block", "reason": "claude"}"#;
    assert_eq!(parse(PreToolCall, stdout), block("canon"));
}

#[test]
fn t04_empty_stdout_returns_none() {
    assert_eq!(parse(PreToolCall, ""), None);
    assert_eq!(parse(PreToolCall, "  \n\t "), None);
}

#[test]
fn t05_invalid_json_returns_none() {
    assert_eq!(parse(PreToolCall, "not json"), None);
}

#[test]
fn t06_non_dict_json_returns_none() {
    assert_eq!(parse(PreToolCall, "[1, 2]"), None);
    assert_eq!(parse(PreLlmCall, "\"context\""), None);
}

#[test]
fn t07_non_block_pre_tool_call_returns_none() {
    assert_eq!(parse(PreToolCall, r#"{"decision": "allow"}"#), None);
    assert_eq!(
        parse(PreToolCall, r#"{"action": "approve", "message": "x"}"#),
        None
    );
}

#[test]
fn t08_pre_llm_call_context_passthrough() {
    assert_eq!(
        parse(PreLlmCall, r#"{"context": "  today is Friday "}"#),
        Some(json!({"context": "  today is Friday "}))
    );
    assert_eq!(parse(PreLlmCall, r#"{"context": "   "}"#), None);
    assert_eq!(parse(PreLlmCall, r#"{"context": 42}"#), None);
}

#[test]
fn t09_subagent_stop_context_passthrough() {
    assert_eq!(
        parse(SubagentStop, r#"{"context": "done"}"#),
        Some(json!({"context": "done"}))
    );
}

#[test]
fn t10_pre_llm_call_block_ignored() {
    assert_eq!(
        parse(PreLlmCall, r#"{"action": "block", "message": "x"}"#),
        None
    );
    assert_eq!(
        parse(PostToolCall, r#"{"decision": "block", "reason": "x"}"#),
        None
    );
}

#[test]
fn t11_block_action_without_message_uses_default() {
    assert_eq!(
        parse(PreToolCall, r#"{"action": "block"}"#),
        block("Blocked by shell hook.")
    );
}

#[test]
fn t12_block_decision_without_reason_uses_default() {
    assert_eq!(
        parse(PreToolCall, r#"{"decision": "block"}"#),
        block("Blocked by shell hook.")
    );
}

#[test]
fn t13_block_action_empty_message_uses_default() {
    assert_eq!(
        parse(PreToolCall, r#"{"action": "block", "message": ""}"#),
        block("Blocked by shell hook.")
    );
    // An empty primary falls through to the secondary field.
    assert_eq!(
        parse(
            PreToolCall,
            r#"{"action": "block", "message": "", "reason": "why"}"#
        ),
        block("why")
    );
}

#[test]
fn t14_block_action_non_string_message_uses_default() {
    assert_eq!(
        parse(PreToolCall, r#"{"action": "block", "message": 42}"#),
        block("Blocked by shell hook.")
    );
    // A truthy non-string primary gives the default even with a valid secondary.
    assert_eq!(
        parse(
            PreToolCall,
            r#"{"action": "block", "message": 42, "reason": "why"}"#
        ),
        block("Blocked by shell hook.")
    );
}

#[test]
fn t38_modify_canonical_parsing() {
    assert_eq!(
        parse(
            PreToolCall,
            r#"{"action": "modify", "args": {"path": "/tmp/x"}}"#
        ),
        Some(json!({"action": "modify", "args": {"path": "/tmp/x"}}))
    );
    assert_eq!(
        parse(PreToolCall, r#"{"action": "modify", "args": [1]}"#),
        None
    );
}

#[test]
fn t39_modify_claude_code_parsing() {
    assert_eq!(
        parse(
            PreToolCall,
            r#"{"decision": "modify", "tool_input": {"new_string": "fixed"}}"#
        ),
        Some(json!({"action": "modify", "args": {"new_string": "fixed"}}))
    );
}

#[test]
fn block_wins_over_modify() {
    assert_eq!(
        parse(
            PreToolCall,
            r#"{"decision": "block", "action": "modify", "args": {}}"#
        ),
        block("Blocked by shell hook.")
    );
}

#[test]
fn pre_verify_continue_in_both_dialects() {
    let continued = |m: &str| Some(json!({"action": "continue", "message": m}));
    assert_eq!(
        parse(
            PreVerify,
            r#"{"action": "continue", "message": " Run the formatter. "}"#
        ),
        continued("Run the formatter.")
    );
    assert_eq!(
        parse(
            PreVerify,
            r#"{"decision": "block", "reason": "Run tests."}"#
        ),
        continued("Run tests.")
    );
    assert_eq!(
        parse(PreVerify, r#"{"action": " CONTINUE ", "message": "x"}"#),
        continued("x")
    );
    assert_eq!(parse(PreVerify, r#"{"action": "continue"}"#), None);
    assert_eq!(
        parse(PreVerify, r#"{"action": "continue", "message": "  "}"#),
        None
    );
    assert_eq!(
        parse(PreVerify, r#"{"action": "stop", "message": "x"}"#),
        None
    );
    assert_eq!(parse(PreVerify, r#"{"context": "x"}"#), None);
}
