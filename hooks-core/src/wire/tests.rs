//! Tests of the hook document: the key rules, and byte equality of the
//! borrowed serialiser with the owned map.

use proptest::prelude::*;
use serde_json::{Value, json};

use super::*;

fn context() -> WireContext {
    WireContext {
        cwd: "/work".into(),
        profile: "default".into(),
    }
}

/// The bytes of the borrowed serialiser.
fn borrowed_bytes(event: &Event, context: &WireContext) -> Vec<u8> {
    let mut out = Vec::new();
    if let Err(error) = write_hook_document(event, context, &mut out) {
        panic!("write_hook_document failed: {error}");
    }
    out
}

/// The bytes of the owned map, the way callers serialised it before.
fn owned_bytes(event: &Event, context: &WireContext) -> Vec<u8> {
    serde_json::to_vec(&Value::Object(hook_document(event, context)))
        .unwrap_or_else(|error| panic!("serialising the map failed: {error}"))
}

#[test]
fn tool_event_lifts_tool_fields_and_keeps_the_rest_in_extra() {
    let event = Event::from_json(
        "pre_tool_call",
        json!({"tool_name": "terminal", "args": {"command": "ls"}, "task_id": "t1",
               "session_id": "s1", "tool_call_id": "c1"}),
    );
    let document = Value::Object(hook_document(&event, &context()));
    assert_eq!(
        document,
        json!({"hook_event_name": "pre_tool_call", "tool_name": "terminal",
               "tool_input": {"command": "ls"}, "session_id": "s1", "cwd": "/work",
               "extra": {"task_id": "t1", "tool_call_id": "c1"}})
    );
    let keys: Vec<_> = document
        .as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default();
    assert_eq!(
        keys,
        [
            "hook_event_name",
            "tool_name",
            "tool_input",
            "session_id",
            "cwd",
            "extra"
        ]
    );
}

#[test]
fn the_profile_is_not_written_as_in_the_reference() {
    // hermes-agent 0.20.1's stdin document and webhook body have no `profile`.
    let mut context = context();
    context.profile = "profile-of-the-host".into();
    let event = Event::from_json("pre_llm_call", json!({"user_message": "hi"}));
    let document = hook_document(&event, &context);
    assert!(!document.contains_key("profile"), "{document:?}");
    assert!(
        !String::from_utf8_lossy(&borrowed_bytes(&event, &context)).contains("profile-of-the-host")
    );
}

#[test]
fn args_that_are_not_an_object_become_null() {
    let event = Event::from_json("pre_tool_call", json!({"tool_name": "t", "args": [1, 2]}));
    assert_eq!(hook_document(&event, &context())["tool_input"], Value::Null);
}

#[test]
fn session_id_falls_back_to_parent_session_id_then_empty() {
    let event = Event::from_json("subagent_stop", json!({"parent_session_id": "parent"}));
    let document = hook_document(&event, &context());
    assert_eq!(document["session_id"], json!("parent"));
    assert!(
        !document["extra"]
            .as_object()
            .is_some_and(|e| e.contains_key("parent_session_id"))
    );
    let event = Event::from_json("on_session_start", json!({}));
    assert_eq!(hook_document(&event, &context())["session_id"], json!(""));
    assert_eq!(hook_document(&event, &context())["tool_name"], Value::Null);
}

#[test]
fn falsy_session_id_gives_way_to_parent_and_non_strings_become_json_text() {
    let event = Event::from_json(
        "subagent_stop",
        json!({"session_id": 0, "parent_session_id": {"id": 7}, "tool_name": 42.5}),
    );
    let document = hook_document(&event, &context());
    assert_eq!(document["session_id"], json!(r#"{"id":7}"#));
    assert_eq!(document["tool_name"], json!("42.5"));
    assert_eq!(
        borrowed_bytes(&event, &context()),
        owned_bytes(&event, &context())
    );
}

#[test]
fn borrowed_bytes_are_the_map_bytes_with_escapes_and_unicode() {
    let context = WireContext {
        cwd: "/tmp/dir with \"quotes\"\\and\ttab".into(),
        profile: "prøfile ✓".into(),
    };
    let event = Event::from_json(
        "post_tool_call",
        json!({"tool_name": ["a", "\u{1}"], "args": {"k": "é \"q\"\n", "n": -1.5e300},
               "result": "\u{7f}\u{2028}", "session_id": "", "parent_session_id": false,
               "z": null}),
    );
    let bytes = borrowed_bytes(&event, &context);
    assert_eq!(bytes, owned_bytes(&event, &context));
    let parsed: Value = serde_json::from_slice(&bytes).unwrap_or_default();
    assert_eq!(parsed["tool_name"], json!(r#"["a","\u0001"]"#));
    assert_eq!(parsed["session_id"], json!(""));
    assert_eq!(
        parsed["extra"],
        json!({"result": "\u{7f}\u{2028}", "z": null})
    );
}

#[test]
fn writing_appends_to_what_the_buffer_holds() {
    let event = Event::from_json("on_session_end", json!({"session_id": "s"}));
    let mut out = b"prefix:".to_vec();
    assert!(write_hook_document(&event, &context(), &mut out).is_ok());
    assert!(out.starts_with(b"prefix:{\"hook_event_name\":\"on_session_end\""));
    assert_eq!(&out[7..], &owned_bytes(&event, &context())[..]);
}

#[test]
fn debug_shows_keys_not_values() {
    let event = Event::from_json(
        "pre_tool_call",
        json!({"tool_name": "t", "args": {"token": "hunter2"}}),
    );
    let context = context();
    let shown = format!("{:?}", HookDocument::new(&event, &context));
    assert!(shown.contains("pre_tool_call") && shown.contains("args"));
    assert!(!shown.contains("hunter2"), "{shown}");
}

/// Any JSON value, a few levels deep.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        Just(json!(0)),
        Just(json!(0.0)),
        Just(json!("")),
        ".{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(("[a-z_]{0,6}|.{0,4}", inner), 0..4)
                .prop_map(|entries| Value::Object(entries.into_iter().collect())),
        ]
    })
}

/// Payload keys: mostly the lifted ones and a few usual keys, sometimes anything.
fn payload_key() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("tool_name".to_owned()),
        Just("args".to_owned()),
        Just("session_id".to_owned()),
        Just("parent_session_id".to_owned()),
        Just("task_id".to_owned()),
        Just("extra".to_owned()),
        ".{0,8}",
    ]
}

proptest! {
    #[test]
    fn borrowed_serialiser_writes_the_bytes_of_the_owned_map(
        entries in prop::collection::vec((payload_key(), json_value()), 0..8),
        event_name in prop_oneof![Just("pre_tool_call".to_owned()), Just("agent:start".to_owned()), ".{0,10}"],
        cwd in ".{0,10}",
        profile in ".{0,6}",
    ) {
        let payload: Payload = entries.into_iter().collect();
        let event = Event::new(event_name.as_str(), payload);
        let context = WireContext { cwd, profile };
        prop_assert_eq!(borrowed_bytes(&event, &context), owned_bytes(&event, &context));
    }
}
