//! The stdin a Codex hook reads validates against the input schemas Codex
//! generates (copies in `tests/it/fixtures/codex/`, origin in its README).
//!
//! The validator covers the keywords those schemas use: `type` (one or a
//! list), `const`, `enum`, `required`, `properties`, `additionalProperties:
//! false`, `$ref` into `definitions`, and `true` schemas.

use std::path::Path;

use hermes_hooks_core::{Event, HookEvent};
use hermes_hooks_shell::Dialect;
use hermes_hooks_shell::dialect::event_mapping;
use hermes_hooks_shell::dialect::events::CODEX_EVENTS;
use hermes_hooks_shell::dialect::stdin::stdin_document;
use serde_json::{Value, json};

use super::World;

fn validate(schema: &Value, root: &Value, value: &Value, at: &str, errors: &mut Vec<String>) {
    let Some(schema) = schema.as_object() else {
        if schema == &Value::Bool(false) {
            errors.push(format!("{at}: no value allowed"));
        }
        return;
    };
    if let Some(Value::String(reference)) = schema.get("$ref") {
        let name = reference.trim_start_matches("#/definitions/");
        return validate(&root["definitions"][name], root, value, at, errors);
    }
    if let Some(ty) = schema.get("type") {
        let types: Vec<&str> = match ty {
            Value::String(one) => vec![one.as_str()],
            Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        let actual = match value {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        };
        if !types
            .iter()
            .any(|t| *t == actual || (*t == "number" && actual == "integer"))
        {
            errors.push(format!("{at}: {actual} is not {types:?}"));
        }
    }
    if let Some(constant) = schema.get("const").filter(|c| *c != value) {
        errors.push(format!("{at}: {value} is not {constant}"));
    }
    if let Some(Value::Array(options)) = schema
        .get("enum")
        .filter(|_| !schema["enum"].as_array().unwrap().contains(value))
    {
        errors.push(format!("{at}: {value} is not one of {options:?}"));
    }
    let Some(object) = value.as_object() else {
        return;
    };
    let properties = schema.get("properties").and_then(Value::as_object);
    for required in schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let key = required.as_str().unwrap_or("");
        if !object.contains_key(key) {
            errors.push(format!("{at}: missing required {key}"));
        }
    }
    for (key, item) in object {
        match properties.and_then(|p| p.get(key)) {
            Some(property) => validate(property, root, item, &format!("{at}.{key}"), errors),
            None if schema.get("additionalProperties") == Some(&Value::Bool(false)) => {
                errors.push(format!("{at}: property {key} is not allowed"));
            }
            None => {}
        }
    }
}

fn schema(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!(
        "tests/it/fixtures/codex/{name}.command.input.schema.json"
    ));
    serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).expect("JSON")
}

#[test]
fn the_validator_rejects_what_codex_rejects() {
    let schema = schema("stop");
    let mut errors = Vec::new();
    validate(
        &schema,
        &schema,
        &json!({"hook_event_name": "Stop", "extra": 1, "stop_hook_active": "no"}),
        "$",
        &mut errors,
    );
    assert!(
        errors
            .iter()
            .any(|e| e.contains("missing required turn_id")),
        "{errors:?}"
    );
    assert!(
        errors
            .iter()
            .any(|e| e.contains("property extra is not allowed")),
        "{errors:?}"
    );
    assert!(
        errors
            .iter()
            .any(|e| e.contains("stop_hook_active: string")),
        "{errors:?}"
    );
}

#[test]
fn codex_stdin_validates_against_its_generated_schemas() {
    let world = World::new();
    let file = World::write(
        world.project(),
        ".codex/hooks.json",
        &json!({"hooks": {
            "PreToolUse": [{"hooks": [{"command": "x"}]}],
            "PostToolUse": [{"hooks": [{"command": "x"}]}],
            "UserPromptSubmit": [{"hooks": [{"command": "x"}]}],
            "Stop": [{"hooks": [{"command": "x"}]}],
            "PermissionRequest": [{"hooks": [{"command": "x"}]}],
            "SubagentStart": [{"hooks": [{"command": "x"}]}],
            "SubagentStop": [{"hooks": [{"command": "x"}]}],
            "SessionStart": [{"hooks": [{"command": "x"}]}],
            "SessionEnd": [{"hooks": [{"command": "x"}]}]
        }})
        .to_string(),
    );
    let found = world.discover(json!([{"format": "codex", "path": file}]));
    assert_eq!(found.hooks.len(), 9, "{:?}", found.warnings);
    let events: &[(&str, &str, HookEvent, Value)] = &[
        (
            "PreToolUse",
            "pre-tool-use",
            HookEvent::PreToolCall,
            json!({"tool_name": "terminal", "args": {"command": "ls", "timeout": 5}, "session_id": "s", "tool_call_id": "c", "turn_id": "t"}),
        ),
        (
            "PostToolUse",
            "post-tool-use",
            HookEvent::TransformToolResult,
            json!({"tool_name": "terminal", "args": {"command": "ls"}, "result": "{\"output\": \"a\"}", "session_id": "s", "tool_call_id": "c", "turn_id": "t", "status": "ok"}),
        ),
        (
            "UserPromptSubmit",
            "user-prompt-submit",
            HookEvent::PreLlmCall,
            json!({"session_id": "s", "user_message": "hi", "model": "gpt-5", "turn_id": "t"}),
        ),
        (
            "Stop",
            "stop",
            HookEvent::PreVerify,
            json!({"session_id": "s", "attempt": 0, "final_response": "done", "model": "gpt-5"}),
        ),
        (
            "PermissionRequest",
            "permission-request",
            HookEvent::PreApprovalRequest,
            json!({"command": "rm -rf /", "description": "recursive delete", "session_key": "s", "surface": "cli"}),
        ),
        (
            "SubagentStart",
            "subagent-start",
            HookEvent::SubagentStart,
            json!({"parent_session_id": "p", "child_role": "leaf", "child_goal": "g"}),
        ),
        (
            "SubagentStop",
            "subagent-stop",
            HookEvent::SubagentStop,
            json!({"parent_session_id": "p", "child_summary": "ok", "child_status": "completed"}),
        ),
        (
            "SessionStart",
            "session-start",
            HookEvent::OnSessionStart,
            json!({"session_id": "s", "model": "gpt-5", "platform": "cli"}),
        ),
        (
            "SessionStart",
            "session-start",
            HookEvent::OnSessionStart,
            // A source Codex does not know is sent as one it does.
            json!({"session_id": "s", "platform": "telegram", "source": "gateway"}),
        ),
        (
            "SessionEnd",
            "session-end",
            HookEvent::OnSessionFinalize,
            json!({"session_id": "s", "platform": "cli", "reason": "shutdown"}),
        ),
        (
            "SessionEnd",
            "session-end",
            HookEvent::OnSessionFinalize,
            // No active session: `session_id` is null in Hermes, a string for Codex.
            json!({"session_id": null, "platform": "cli", "reason": "new", "old_session_id": "o"}),
        ),
    ];
    // Every Codex event Hermes fires is checked here.
    let mut covered: Vec<&str> = events.iter().map(|(theirs, ..)| *theirs).collect();
    covered.dedup();
    covered.sort_unstable();
    let mut mapped: Vec<&str> = CODEX_EVENTS
        .iter()
        .copied()
        .filter(|name| event_mapping(Dialect::Codex, name).is_some_and(|m| m.ours.is_some()))
        .collect();
    mapped.sort_unstable();
    assert_eq!(covered, mapped);
    for (theirs, file, ours, payload) in events {
        let hook = found
            .hooks
            .iter()
            .find(|h| h.their_event == *theirs)
            .expect("hook");
        assert_eq!(hook.event(), Some(*ours));
        let bytes = stdin_document(hook, &Event::from_json(*ours, payload.clone()));
        let text = String::from_utf8(bytes).expect("UTF-8");
        assert_eq!(text.matches('\n').count(), 1, "one line: {text}");
        assert!(text.ends_with('\n'));
        let document: Value = serde_json::from_str(&text).expect("JSON");
        let schema = schema(file);
        let mut errors = Vec::new();
        validate(&schema, &schema, &document, "$", &mut errors);
        assert!(errors.is_empty(), "{theirs}: {errors:?} in {document}");
    }
}
