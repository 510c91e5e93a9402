//! Property tests: each merge rule against a naive model written here,
//! independently of the implementation, over random reply sequences.

mod directives;
mod text_rules;
mod tool_gate;

use hermes_hooks_core::Reply;
use proptest::prelude::*;
use serde_json::{Map, Value, json};

pub(crate) fn as_replies(values: &[Value]) -> Vec<Reply> {
    values
        .iter()
        .map(|value| Reply::new("plugin:prop", value.clone()))
        .collect()
}

pub(crate) fn small_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        (0i64..3).prop_map(Value::from),
        "[a-c]{0,2}".prop_map(Value::from),
        Just(Value::Null),
    ]
}

pub(crate) fn small_map() -> impl Strategy<Value = Map<String, Value>> {
    prop::collection::vec(("(a|b|c|path)", small_value()), 0..4)
        .prop_map(|pairs| pairs.into_iter().collect())
}

/// An optional field value: absent (None) or one of `choices`.
pub(crate) fn field(choices: Vec<Value>) -> impl Strategy<Value = Option<Value>> + Clone {
    prop::option::of(prop::sample::select(choices))
}

pub(crate) fn with_fields(action: &str, fields: Vec<(&str, Option<Value>)>) -> Value {
    let mut object = Map::new();
    object.insert("action".into(), json!(action));
    for (key, value) in fields {
        if let Some(value) = value {
            object.insert(key.into(), value);
        }
    }
    Value::Object(object)
}

pub(crate) fn junk() -> impl Strategy<Value = Value> {
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

pub(crate) fn action_of(value: &Value) -> Option<&str> {
    value.get("action")?.as_str()
}
