//! `pre_tool_call` aggregation: reference cases §7.8 234–261.

use serde_json::{Map, Value, json};

use super::{replies, tool_call};
use crate::merge::{merge, tool_gate};
use crate::outcome::{BlockSource, Outcome, ToolGate};

fn gate(args: Value, values: Vec<Value>) -> Outcome {
    tool_gate(&tool_call(args), &replies(values))
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("test fixture is not an object: {other}"),
    }
}

/// The block of `message`, decided by the reply at `index` (the fixtures
/// name reply `i` `plugin:p<i>`): the outcome names the hook that blocked.
fn block(message: &str, index: usize) -> Outcome {
    Outcome::Tool(ToolGate::block(
        message,
        BlockSource::new(format!("plugin:p{index}")),
    ))
}

// 234 / 246
#[test]
fn block_message_returned_for_valid_directive() {
    let outcome = gate(
        json!({}),
        vec![json!({"action": "block", "message": "no terminal today"})],
    );
    assert_eq!(outcome, block("no terminal today", 0));
}

// 235
#[test]
fn invalid_returns_are_ignored() {
    let outcome = gate(
        json!({"command": "ls"}),
        vec![
            json!("block"),
            json!(42),
            json!(null),
            json!(["block", "x"]),
            json!({"action": "block"}),
            json!({"action": "deny", "message": "nope"}),
            json!({"action": "allow"}),
            json!({"message": "no action"}),
            json!({"action": "block", "message": 7}),
            json!({"action": "BLOCK", "message": "case matters"}),
        ],
    );
    assert_eq!(outcome, Outcome::Nothing);
}

// 236 / 247 / 260
#[test]
fn nothing_when_no_hooks() {
    assert_eq!(gate(json!({"a": 1}), vec![]), Outcome::Nothing);
}

// 237
#[test]
fn first_valid_block_wins() {
    let outcome = gate(
        json!({}),
        vec![
            json!({"action": "block"}),
            json!({"action": "block", "message": ""}),
            json!({"action": "block", "message": "first"}),
            json!({"action": "block", "message": "second"}),
        ],
    );
    assert_eq!(outcome, block("first", 2));
}

// 239
#[test]
fn approve_directive_returned() {
    let outcome = gate(
        json!({}),
        vec![json!({"action": "approve", "message": "needs a human", "rule_key": "terminal:rm"})],
    );
    assert_eq!(
        outcome,
        Outcome::Tool(ToolGate::Approve {
            message: Some("needs a human".into()),
            rule_key: Some("terminal:rm".into()),
            args: None,
        })
    );
}

// 240
#[test]
fn approve_without_message_is_valid() {
    let outcome = gate(json!({}), vec![json!({"action": "approve"})]);
    assert_eq!(
        outcome,
        Outcome::Tool(ToolGate::Approve {
            message: None,
            rule_key: None,
            args: None,
        })
    );
}

// 241
#[test]
fn block_still_requires_message() {
    let outcome = gate(
        json!({}),
        vec![json!({"action": "block"}), json!({"action": "approve"})],
    );
    assert!(matches!(outcome, Outcome::Tool(ToolGate::Approve { .. })));
}

// 243 (#87420; supersedes 242)
#[test]
fn later_block_outranks_earlier_approve() {
    let outcome = gate(
        json!({"path": "/etc/passwd"}),
        vec![
            json!({"action": "modify", "args": {"path": "/safe"}}),
            json!({"action": "approve", "message": "ask"}),
            json!({"action": "block", "message": "blocked after approve"}),
        ],
    );
    assert_eq!(outcome, block("blocked after approve", 2));
}

// 244
#[test]
fn first_approve_wins_among_approves_and_keeps_later_modify() {
    let outcome = gate(
        json!({"path": "/etc/passwd", "mode": "w"}),
        vec![
            json!({"action": "approve", "message": "first", "rule_key": " write:etc "}),
            json!({"action": "approve", "message": "second", "rule_key": "other"}),
            json!({"action": "modify", "args": {"path": "/safe"}}),
        ],
    );
    assert_eq!(
        outcome,
        Outcome::Tool(ToolGate::Approve {
            message: Some("first".into()),
            rule_key: Some("write:etc".into()),
            args: Some(object(json!({"path": "/safe", "mode": "w"}))),
        })
    );
}

// 251 / 252: the rule key reaches the host only when it is a non-blank string.
#[test]
fn approve_rule_key_is_stripped_and_invalid_keys_dropped() {
    for rule_key in [
        json!(null),
        json!(""),
        json!("   "),
        json!(123),
        json!({"k": 1}),
    ] {
        let outcome = gate(
            json!({}),
            vec![json!({"action": "approve", "message": "m", "rule_key": rule_key})],
        );
        assert_eq!(
            outcome,
            Outcome::Tool(ToolGate::Approve {
                message: Some("m".into()),
                rule_key: None,
                args: None,
            }),
            "rule_key {rule_key}"
        );
    }
}

#[test]
fn approve_message_must_be_a_non_empty_string() {
    for message in [json!(""), json!(5), json!(["x"])] {
        let outcome = gate(
            json!({}),
            vec![json!({"action": "approve", "message": message})],
        );
        assert_eq!(
            outcome,
            Outcome::Tool(ToolGate::Approve {
                message: None,
                rule_key: None,
                args: None,
            })
        );
    }
}

// 254
#[test]
fn modify_returns_merged_args() {
    let outcome = gate(
        json!({"path": "/tmp/a", "content": "x"}),
        vec![json!({"action": "modify", "args": {"content": "y"}})],
    );
    assert_eq!(
        outcome,
        Outcome::Tool(ToolGate::Modify {
            args: object(json!({"path": "/tmp/a", "content": "y"})),
        })
    );
}

// 255
#[test]
fn modify_accumulates_multiple_hooks() {
    let outcome = gate(
        json!({"path": "/tmp/a", "content": "x", "mode": "w"}),
        vec![
            json!({"action": "modify", "args": {"path": "/tmp/b"}}),
            json!({"action": "modify", "args": {"content": "y"}}),
        ],
    );
    assert_eq!(
        outcome,
        Outcome::Tool(ToolGate::Modify {
            args: object(json!({"path": "/tmp/b", "content": "y", "mode": "w"})),
        })
    );
}

// 256
#[test]
fn modify_last_wins_on_same_key() {
    let outcome = gate(
        json!({"path": "/tmp/a"}),
        vec![
            json!({"action": "modify", "args": {"path": "/first", "extra": 1}}),
            json!({"action": "modify", "args": {"path": "/second"}}),
        ],
    );
    assert_eq!(
        outcome,
        Outcome::Tool(ToolGate::Modify {
            args: object(json!({"path": "/second", "extra": 1})),
        })
    );
}

// 257: the block wins; the host does not run the tool, so the merged args are moot.
#[test]
fn modify_with_block_gives_the_block() {
    let outcome = gate(
        json!({"path": "/tmp/a"}),
        vec![
            json!({"action": "modify", "args": {"path": "/safe"}}),
            json!({"action": "block", "message": "stop"}),
        ],
    );
    assert_eq!(outcome, block("stop", 1));
}

// 258
#[test]
fn modify_after_block_is_invisible() {
    let outcome = gate(
        json!({"path": "/tmp/a"}),
        vec![
            json!({"action": "block", "message": "stop"}),
            json!({"action": "modify", "args": {"path": "/later"}}),
            json!({"action": "approve"}),
        ],
    );
    assert_eq!(outcome, block("stop", 0));
}

// 259: args that are not an object start the accumulator empty.
#[test]
fn modify_with_non_object_original_args() {
    for original in [json!(null), json!("ls"), json!([1, 2])] {
        let outcome = gate(
            original,
            vec![json!({"action": "modify", "args": {"command": "ls -la"}})],
        );
        assert_eq!(
            outcome,
            Outcome::Tool(ToolGate::Modify {
                args: object(json!({"command": "ls -la"})),
            })
        );
    }
    let missing = crate::event::Event::from_json("pre_tool_call", json!({"tool_name": "t"}));
    let outcome = tool_gate(
        &missing,
        &replies([json!({"action": "modify", "args": {"k": true}})]),
    );
    assert_eq!(
        outcome,
        Outcome::Tool(ToolGate::Modify {
            args: object(json!({"k": true})),
        })
    );
}

// 261
#[test]
fn modify_invalid_args_ignored() {
    let outcome = gate(
        json!({"path": "/tmp/a"}),
        vec![
            json!({"action": "modify", "args": "path=/x"}),
            json!({"action": "modify", "args": {}}),
            json!({"action": "modify", "args": null}),
            json!({"action": "modify"}),
            json!({"action": "modify", "args": ["path", "/x"]}),
        ],
    );
    assert_eq!(outcome, Outcome::Nothing);
}

#[test]
fn merge_dispatches_pre_tool_call_to_the_gate() {
    let outcome = merge(
        &tool_call(json!({})),
        &replies([json!({"action": "block", "message": "via merge"})]),
    );
    assert_eq!(outcome, block("via merge", 0));
}
