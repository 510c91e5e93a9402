//! Property tests: each merge rule against a naive model written here,
//! independently of the implementation, over random reply sequences.

use hooks_core::merge::{
    context, first_non_empty_string, first_string, gateway_dispatch, merge, tool_gate,
    transcription_fields, verify_continue,
};
use hooks_core::outcome::{DispatchDecision, TranscriptionOverrides};
use hooks_core::{Event, Outcome, Reply, ToolGate};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

fn as_replies(values: &[Value]) -> Vec<Reply> {
    values
        .iter()
        .map(|value| Reply::new("plugin:prop", value.clone()))
        .collect()
}

fn small_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        (0i64..3).prop_map(Value::from),
        "[a-c]{0,2}".prop_map(Value::from),
        Just(Value::Null),
    ]
}

fn small_map() -> impl Strategy<Value = Map<String, Value>> {
    prop::collection::vec(("(a|b|c|path)", small_value()), 0..4)
        .prop_map(|pairs| pairs.into_iter().collect())
}

/// An optional field value: absent (None) or one of `choices`.
fn field(choices: Vec<Value>) -> impl Strategy<Value = Option<Value>> + Clone {
    prop::option::of(prop::sample::select(choices))
}

fn with_fields(action: &str, fields: Vec<(&str, Option<Value>)>) -> Value {
    let mut object = Map::new();
    object.insert("action".into(), json!(action));
    for (key, value) in fields {
        if let Some(value) = value {
            object.insert(key.into(), value);
        }
    }
    Value::Object(object)
}

fn junk() -> impl Strategy<Value = Value> {
    prop::sample::select(vec![
        json!(null),
        json!(3),
        json!("block"),
        json!(["block", "m"]),
        json!({"action": "allow"}),
        json!({"action": "deny", "message": "no"}),
        json!({"message": "orphan"}),
        json!({"action": "Block", "message": "case"}),
    ])
}

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

fn action_of(value: &Value) -> Option<&str> {
    value.get("action")?.as_str()
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
        return Outcome::Tool(ToolGate::Block { message });
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
            Outcome::Tool(ToolGate::Block { message: "the first".into() })
        );
    }
}

fn context_reply() -> impl Strategy<Value = Value> {
    let context_value = prop_oneof![
        "[ \t\na-c]{0,4}".prop_map(Value::from),
        prop::sample::select(vec![
            json!(0),
            json!(1),
            json!(null),
            json!([]),
            json!([1]),
            json!({}),
            json!({"k": 1}),
            json!(true),
            json!(false),
            json!(0.0),
        ]),
    ];
    prop_oneof![
        context_value.prop_map(|c| json!({"context": c})),
        "[ \t\na-c]{0,4}".prop_map(Value::from),
        junk(),
    ]
}

fn context_model(replies: &[Value]) -> Outcome {
    let mut pieces = Vec::new();
    for reply in replies {
        if let Some(object) = reply.as_object() {
            let piece = match object.get("context") {
                None | Some(Value::Null) | Some(Value::Bool(false)) => continue,
                Some(Value::String(text)) if text.is_empty() => continue,
                Some(Value::Array(items)) if items.is_empty() => continue,
                Some(Value::Object(map)) if map.is_empty() => continue,
                Some(Value::Number(n)) if n.as_f64() == Some(0.0) => continue,
                Some(Value::String(text)) => text.clone(),
                Some(other) => serde_json::to_string(other).unwrap_or_default(),
            };
            pieces.push(piece);
        } else if let Some(text) = reply.as_str()
            && text.chars().any(|c| !c.is_whitespace())
        {
            pieces.push(text.to_owned());
        }
    }
    if pieces.is_empty() {
        Outcome::Nothing
    } else {
        Outcome::Context(pieces.join("\n\n"))
    }
}

fn transcription_reply() -> impl Strategy<Value = Value> {
    let value = prop_oneof![
        "[a-c]{0,2}".prop_map(Value::from),
        prop::sample::select(vec![json!(null), json!(1), json!(["x"])]),
    ];
    prop::collection::vec(("(prompt|language|model|file_path|speed)", value), 0..4)
        .prop_map(|pairs| Value::Object(pairs.into_iter().collect()))
}

fn last_string(replies: &[Value], key: &str) -> Option<String> {
    replies
        .iter()
        .rev()
        .find_map(|r| r.get(key)?.as_str().map(str::to_owned))
}

proptest! {
    #[test]
    fn context_is_the_registration_order_join(replies in prop::collection::vec(context_reply(), 0..6)) {
        let event = Event::from_json("pre_llm_call", json!({}));
        prop_assert_eq!(context(&event, &as_replies(&replies)), context_model(&replies));
    }

    #[test]
    fn transcription_is_last_writer_wins_per_key(
        mut replies in prop::collection::vec(transcription_reply(), 0..6),
        junk_reply in junk(),
    ) {
        replies.push(junk_reply);
        let overrides = TranscriptionOverrides {
            prompt: last_string(&replies, "prompt"),
            language: last_string(&replies, "language"),
            model: last_string(&replies, "model"),
        };
        let expected = if overrides == TranscriptionOverrides::default() {
            Outcome::Nothing
        } else {
            Outcome::Transcription(overrides)
        };
        let event = Event::from_json("pre_transcription", json!({"file_path": "/a.wav"}));
        prop_assert_eq!(transcription_fields(&event, &as_replies(&replies)), expected);
    }

    #[test]
    fn string_transforms_take_the_first_acceptable_string(
        replies in prop::collection::vec(prop_oneof!["[a-b]{0,2}".prop_map(Value::from), junk()], 0..5),
    ) {
        let event = Event::from_json("transform_tool_result", json!({}));
        let strings: Vec<&str> = replies.iter().filter_map(Value::as_str).collect();
        let first = strings.first().map_or(Outcome::Nothing, |s| Outcome::Replace((*s).to_owned()));
        let first_non_empty = strings.iter().find(|s| !s.is_empty())
            .map_or(Outcome::Nothing, |s| Outcome::Replace((*s).to_owned()));
        prop_assert_eq!(first_string(&event, &as_replies(&replies)), first);
        prop_assert_eq!(first_non_empty_string(&event, &as_replies(&replies)), first_non_empty);
    }
}

fn verify_reply() -> impl Strategy<Value = Value> {
    let action = field(vec![
        json!("continue"),
        json!(" BLOCK "),
        json!("stop"),
        json!(""),
        json!(0),
    ]);
    let text = field(vec![
        json!("go on"),
        json!("  trim me "),
        json!(" "),
        json!(""),
        json!(2),
    ]);
    (action.clone(), action, text.clone(), text).prop_map(|(action, decision, message, reason)| {
        let mut object = Map::new();
        for (key, value) in [
            ("action", action),
            ("decision", decision),
            ("message", message),
            ("reason", reason),
        ] {
            if let Some(value) = value {
                object.insert(key.into(), value);
            }
        }
        Value::Object(object)
    })
}

fn falsy(value: Option<&Value>) -> bool {
    matches!(value, None | Some(Value::Null) | Some(Value::Bool(false)))
        || value == Some(&json!(0))
        || value == Some(&json!(""))
}

fn verify_model(replies: &[Value]) -> Outcome {
    for reply in replies.iter().filter(|r| r.is_object()) {
        let action = if !falsy(reply.get("action")) {
            reply.get("action")
        } else {
            reply.get("decision")
        };
        let action = match action {
            Some(Value::String(a)) => a.trim().to_lowercase(),
            _ => continue,
        };
        if action != "continue" && action != "block" {
            continue;
        }
        let message = if !falsy(reply.get("message")) {
            reply.get("message")
        } else {
            reply.get("reason")
        };
        if let Some(Value::String(message)) = message
            && !message.trim().is_empty()
        {
            return Outcome::Continue {
                message: message.trim().to_owned(),
            };
        }
    }
    Outcome::Nothing
}

fn dispatch_reply() -> impl Strategy<Value = Value> {
    (
        field(vec![
            json!("skip"),
            json!("rewrite"),
            json!("allow"),
            json!("observe"),
            json!("SKIP"),
        ]),
        field(vec![json!("new text"), json!(""), json!(4)]),
        field(vec![json!("busy"), json!(null)]),
    )
        .prop_map(|(action, text, reason)| {
            let mut object = Map::new();
            for (key, value) in [("action", action), ("text", text), ("reason", reason)] {
                if let Some(value) = value {
                    object.insert(key.into(), value);
                }
            }
            Value::Object(object)
        })
}

fn dispatch_model(replies: &[Value]) -> Outcome {
    for reply in replies {
        match action_of(reply) {
            Some("skip") => {
                let reason = reply
                    .get("reason")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                return Outcome::Dispatch(DispatchDecision::Skip { reason });
            }
            Some("rewrite") => {
                return reply.get("text").and_then(Value::as_str).map_or(
                    Outcome::Nothing,
                    |text| {
                        Outcome::Dispatch(DispatchDecision::Rewrite {
                            text: text.to_owned(),
                        })
                    },
                );
            }
            Some("allow") => return Outcome::Dispatch(DispatchDecision::Allow),
            _ => {}
        }
    }
    Outcome::Nothing
}

fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        ".{0,6}".prop_map(Value::from),
        prop::sample::select(vec![
            "block", "approve", "modify", "continue", "skip", "rewrite", "deny", "handled",
            "timeout"
        ])
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::vec(
                (
                    prop::sample::select(vec![
                        "action",
                        "decision",
                        "message",
                        "args",
                        "context",
                        "reason",
                        "text",
                        "command_name",
                        "raw_args",
                        "prompt",
                        "rule_key",
                        "retryable",
                        "error_context"
                    ]),
                    inner
                ),
                0..5,
            )
            .prop_map(|pairs| Value::Object(
                pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
            )),
        ]
    })
}

proptest! {
    #[test]
    fn verify_continue_matches_the_naive_model(replies in prop::collection::vec(verify_reply(), 0..6)) {
        let event = Event::from_json("pre_verify", json!({}));
        prop_assert_eq!(verify_continue(&event, &as_replies(&replies)), verify_model(&replies));
    }

    #[test]
    fn gateway_dispatch_matches_the_naive_model(replies in prop::collection::vec(dispatch_reply(), 0..6)) {
        let event = Event::from_json("pre_gateway_dispatch", json!({}));
        prop_assert_eq!(gateway_dispatch(&event, &as_replies(&replies)), dispatch_model(&replies));
    }

    #[test]
    fn no_rule_panics_on_arbitrary_replies(
        replies in prop::collection::vec(any_json(), 0..5),
        payload in any_json(),
    ) {
        for name in [
            "pre_tool_call", "pre_llm_call", "pre_verify", "pre_gateway_dispatch", "pre_transcription",
            "transform_tool_result", "transform_llm_output", "transform_api_error_classification",
            "command:reset", "post_tool_call",
        ] {
            let event = Event::from_json(name, payload.clone());
            let outcome = merge(&event, &as_replies(&replies));
            // Every outcome has a wire form or none, without panicking.
            let _ = outcome.to_wire();
        }
    }
}
