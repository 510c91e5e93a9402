//! The `pre_tool_call` gate against a key-by-key model.

use hermes_hooks_core::merge::{merge, tool_gate};
use hermes_hooks_core::{BlockSource, Event, Outcome, ToolGate};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

use crate::{action_of, as_replies, field, junk, small_map, with_fields};

fn tool_reply() -> impl Strategy<Value = Value> {
    let modify = prop_oneof![
        small_map().prop_map(|args| json!({"action": "modify", "args": args})),
        field(vec![json!("a=1"), json!(null), json!([1])])
            .prop_map(|args| with_fields("modify", vec![("args", args)])),
    ];
    let approve = (
        field(vec![json!(""), json!("why-1"), json!("why-2"), json!(5)]),
        field(vec![
            json!(""),
            json!("  "),
            json!(" k1 "),
            json!("k2"),
            json!(1),
        ]),
    )
        .prop_map(|(message, rule_key)| {
            with_fields(
                "approve",
                vec![("message", message), ("rule_key", rule_key)],
            )
        });
    let block = field(vec![json!(""), json!("stop-1"), json!("stop-2"), json!(0)])
        .prop_map(|message| with_fields("block", vec![("message", message)]));
    prop_oneof![3 => modify, 2 => approve, 1 => block, 2 => junk()]
}

fn valid_block_message(value: &Value) -> Option<String> {
    if action_of(value) != Some("block") {
        return None;
    }
    match value.get("message") {
        Some(Value::String(message)) if !message.is_empty() => Some(message.clone()),
        _ => None,
    }
}

/// Naive model of the tool gate: find the cut-off block first, then look at
/// what came before it.
fn tool_gate_model(original: &Value, replies: &[Value]) -> Outcome {
    let cut = replies
        .iter()
        .position(|r| valid_block_message(r).is_some());
    if let Some(index) = cut {
        let message = valid_block_message(&replies[index]).unwrap_or_default();
        return Outcome::Tool(ToolGate::block(message, BlockSource::new("plugin:prop")));
    }
    let modifies: Vec<&Map<String, Value>> = replies
        .iter()
        .filter(|r| action_of(r) == Some("modify"))
        .filter_map(|r| r.get("args")?.as_object())
        .filter(|args| !args.is_empty())
        .collect();
    // Key by key: the last modify naming the key wins, else the original value.
    let original = original.as_object().cloned().unwrap_or_default();
    let mut keys: Vec<String> = original.keys().cloned().collect();
    for args in &modifies {
        for key in args.keys() {
            if !keys.contains(key) {
                keys.push(key.clone());
            }
        }
    }
    let merged: Map<String, Value> = keys
        .into_iter()
        .map(|key| {
            let value = modifies
                .iter()
                .rev()
                .find_map(|args| args.get(&key))
                .or_else(|| original.get(&key))
                .cloned()
                .unwrap_or(Value::Null);
            (key, value)
        })
        .collect();
    let approve = replies.iter().find(|r| action_of(r) == Some("approve"));
    match (approve, modifies.is_empty()) {
        (Some(approve), no_modify) => Outcome::Tool(ToolGate::Approve {
            message: match approve.get("message") {
                Some(Value::String(m)) if !m.is_empty() => Some(m.clone()),
                _ => None,
            },
            rule_key: match approve.get("rule_key") {
                Some(Value::String(k)) if !k.trim().is_empty() => Some(k.trim().to_owned()),
                _ => None,
            },
            args: if no_modify { None } else { Some(merged) },
        }),
        (None, false) => Outcome::Tool(ToolGate::Modify { args: merged }),
        (None, true) => Outcome::Nothing,
    }
}

fn original_args() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => small_map().prop_map(Value::Object),
        1 => prop::sample::select(vec![json!(null), json!("ls"), json!([1])]),
    ]
}

fn args_keys(outcome: &Outcome) -> Option<Vec<String>> {
    match outcome {
        Outcome::Tool(ToolGate::Modify { args })
        | Outcome::Tool(ToolGate::Approve {
            args: Some(args), ..
        }) => Some(args.keys().cloned().collect()),
        _ => None,
    }
}

proptest! {
    #[test]
    fn tool_gate_matches_the_naive_model(
        original in original_args(),
        replies in prop::collection::vec(tool_reply(), 0..8),
    ) {
        let event = Event::from_json("pre_tool_call", json!({"tool_name": "t", "args": original}));
        let actual = tool_gate(&event, &as_replies(&replies));
        let expected = tool_gate_model(&original, &replies);
        // Map equality ignores order, so the key order is checked on its own.
        prop_assert_eq!(args_keys(&actual), args_keys(&expected));
        prop_assert_eq!(&actual, &expected);
        prop_assert_eq!(merge(&event, &as_replies(&replies)), actual);
    }

    #[test]
    fn the_block_reported_is_the_first_valid_one(
        before in prop::collection::vec(tool_reply(), 0..5),
        after in prop::collection::vec(tool_reply(), 0..5),
    ) {
        let mut replies: Vec<Value> = before.into_iter()
            .filter(|r| valid_block_message(r).is_none())
            .collect();
        replies.push(json!({"action": "block", "message": "the first"}));
        replies.extend(after);
        let event = Event::from_json("pre_tool_call", json!({"args": {}}));
        prop_assert_eq!(
            tool_gate(&event, &as_replies(&replies)),
            Outcome::Tool(ToolGate::block("the first", BlockSource::new("plugin:prop")))
        );
    }
}
