//! Context, transcription fields and the string transforms.

use hermes_hooks_core::merge::{
    context, first_non_empty_string, first_string, transcription_fields,
};
use hermes_hooks_core::outcome::TranscriptionOverrides;
use hermes_hooks_core::{Event, Outcome};
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::{as_replies, junk};

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
                // Python's `str()` (`True`, `['x']`), checked against Python's
                // own output in `pyvalue`'s tests.
                Some(other) => hermes_hooks_core::pyvalue::text_of(other),
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
        let overrides = TranscriptionOverrides::default()
            .with_prompt(last_string(&replies, "prompt"))
            .with_language(last_string(&replies, "language"))
            .with_model(last_string(&replies, "model"));
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
