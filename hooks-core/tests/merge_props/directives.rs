//! `pre_verify`, `pre_gateway_dispatch`, and no panic on arbitrary replies.

use hermes_hooks_core::merge::{gateway_dispatch, merge, verify_continue};
use hermes_hooks_core::outcome::DispatchDecision;
use hermes_hooks_core::{Event, Outcome};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

use crate::{action_of, as_replies, field};

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
