//! The wire shapes of merged outcomes (the `--json` outcome hooks-cli's README documents).

use serde_json::json;

use super::{replies, tool_call};
use crate::merge::tool_gate;
use crate::outcome::{Outcome, ToolGate};

#[test]
fn block_wire_shape() {
    let outcome = tool_gate(
        &tool_call(json!({})),
        &replies([json!({"action": "block", "message": "M"})]),
    );
    assert_eq!(
        outcome.to_wire(),
        Some(json!({"action": "block", "message": "M"}))
    );
}

#[test]
fn approve_wire_shape_carries_message_rule_key_and_merged_args() {
    let outcome = tool_gate(
        &tool_call(json!({"a": 1})),
        &replies([json!({"action": "approve", "message": "M", "rule_key": "K"})]),
    );
    assert_eq!(
        outcome.to_wire(),
        Some(json!({"action": "approve", "message": "M", "rule_key": "K"}))
    );
    let outcome = tool_gate(
        &tool_call(json!({"a": 1})),
        &replies([
            json!({"action": "approve"}),
            json!({"action": "modify", "args": {"b": 2}}),
        ]),
    );
    assert_eq!(
        outcome.to_wire(),
        Some(
            json!({"action": "approve", "message": null, "rule_key": null, "args": {"a": 1, "b": 2}})
        )
    );
}

#[test]
fn modify_wire_shape_has_the_full_args_after_merge() {
    let outcome = tool_gate(
        &tool_call(json!({"path": "/x", "content": "old"})),
        &replies([json!({"action": "modify", "args": {"content": "new"}})]),
    );
    assert_eq!(
        outcome.to_wire(),
        Some(json!({"action": "modify", "args": {"path": "/x", "content": "new"}}))
    );
}

#[test]
fn context_and_continue_wire_shapes() {
    assert_eq!(
        Outcome::Context("a\n\nb".into()).to_wire(),
        Some(json!({"context": "a\n\nb"}))
    );
    assert_eq!(
        Outcome::Continue {
            message: "M".into()
        }
        .to_wire(),
        Some(json!({"action": "continue", "message": "M"}))
    );
}

#[test]
fn nothing_and_proceed_have_no_wire_form() {
    assert_eq!(Outcome::Nothing.to_wire(), None);
    assert_eq!(Outcome::Tool(ToolGate::Proceed).to_wire(), None);
    assert_eq!(
        tool_gate(&tool_call(json!({})), &replies([json!("allow")])).to_wire(),
        None
    );
}
