//! The JSON document a shell hook reads on stdin and an outbound webhook POSTs.
//!
//! Keys and order follow the reference: `hook_event_name, tool_name, tool_input,
//! session_id, cwd, profile, extra`. Outbound webhooks append `delivery_id` and
//! `timestamp`.

use serde_json::{Map, Value};

use crate::event::Event;

/// Where the hook process runs: the host's working directory and profile name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireContext {
    /// The host process's working directory (`""` when it cannot be read).
    pub cwd: String,
    /// The active profile name (`default` unless the host says otherwise).
    pub profile: String,
}

impl WireContext {
    /// The current process's working directory and the `default` profile.
    pub fn current() -> Self {
        WireContext {
            cwd: std::env::current_dir()
                .map(|dir| dir.to_string_lossy().into_owned())
                .unwrap_or_default(),
            profile: "default".to_owned(),
        }
    }
}

/// Keys lifted out of the payload into the top level; everything else goes to `extra`.
const LIFTED: [&str; 4] = ["tool_name", "args", "session_id", "parent_session_id"];

/// Builds the stdin / webhook document for `event`.
///
/// `tool_input` is the `args` object (null when `args` is not an object),
/// `session_id` falls back to `parent_session_id`, then `""`; every other payload
/// key goes under `extra`, in payload order.
pub fn hook_document(event: &Event, context: &WireContext) -> Map<String, Value> {
    let payload = event.payload();
    let mut document = Map::with_capacity(8);
    document.insert(
        "hook_event_name".into(),
        Value::String(event.name().as_str().to_owned()),
    );
    document.insert(
        "tool_name".into(),
        payload
            .get("tool_name")
            .filter(|value| !value.is_null())
            .map(stringify_non_string)
            .unwrap_or(Value::Null),
    );
    document.insert(
        "tool_input".into(),
        payload
            .get("args")
            .filter(|args| args.is_object())
            .cloned()
            .unwrap_or(Value::Null),
    );
    let session_id = ["session_id", "parent_session_id"]
        .into_iter()
        .filter_map(|key| payload.get(key))
        .find(|value| is_truthy(value))
        .map(stringify_non_string)
        .unwrap_or_else(|| Value::String(String::new()));
    document.insert("session_id".into(), session_id);
    document.insert("cwd".into(), Value::String(context.cwd.clone()));
    document.insert("profile".into(), Value::String(context.profile.clone()));
    let extra: Map<String, Value> = payload
        .iter()
        .filter(|(key, _)| !LIFTED.contains(&key.as_str()))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    document.insert("extra".into(), Value::Object(extra));
    document
}

fn is_truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(flag) => *flag,
        Value::String(text) => !text.is_empty(),
        Value::Array(items) => !items.is_empty(),
        Value::Object(map) => !map.is_empty(),
        Value::Number(number) => number.as_f64() != Some(0.0),
    }
}

fn stringify_non_string(value: &Value) -> Value {
    match value {
        Value::String(_) => value.clone(),
        other => Value::String(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn context() -> WireContext {
        WireContext {
            cwd: "/work".into(),
            profile: "default".into(),
        }
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
                   "profile": "default", "extra": {"task_id": "t1", "tool_call_id": "c1"}})
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
                "profile",
                "extra"
            ]
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
}
