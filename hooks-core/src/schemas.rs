//! The generated JSON Schemas of the hook contract, and the one check of a
//! reply against them ([`check_reply`]) that names the field that is wrong.
//!
//! `cargo xtask codegen` writes `schema/generated/<rule>.reply.schema.json`
//! (what a hook under each merge rule may answer, in the Hermes wire shape)
//! and `<event>.stdin.schema.json` (the document a shell hook reads) from
//! `schema/events.yaml`. The reply schemas are compiled in here, so `hooks
//! test`, `hooks doctor` and run records judge a reply by the same file a
//! hook author reads. The checker understands the subset of JSON Schema the
//! generator writes: `type` (one or several), `enum`, `const`, `properties`
//! and `required`; unknown keys are allowed.

use std::sync::OnceLock;

use serde_json::Value;

use crate::catalog::MergeRule;

/// The reply schema of every merge rule, as generated (JSON text).
pub fn reply_schema_text(rule: MergeRule) -> &'static str {
    macro_rules! schema {
        ($name:literal) => {
            include_str!(concat!("../schema/generated/", $name, ".reply.schema.json"))
        };
    }
    match rule {
        MergeRule::Ignore => schema!("ignore"),
        MergeRule::ToolGate => schema!("tool_gate"),
        MergeRule::Context => schema!("context"),
        MergeRule::VerifyContinue => schema!("verify_continue"),
        MergeRule::GatewayDispatch => schema!("gateway_dispatch"),
        MergeRule::TranscriptionFields => schema!("transcription_fields"),
        MergeRule::FirstString => schema!("first_string"),
        MergeRule::FirstNonEmptyString => schema!("first_non_empty_string"),
        MergeRule::ErrorClassification => schema!("error_classification"),
        MergeRule::CommandDecision => schema!("command_decision"),
    }
}

const RULES: [MergeRule; 10] = [
    MergeRule::Ignore,
    MergeRule::ToolGate,
    MergeRule::Context,
    MergeRule::VerifyContinue,
    MergeRule::GatewayDispatch,
    MergeRule::TranscriptionFields,
    MergeRule::FirstString,
    MergeRule::FirstNonEmptyString,
    MergeRule::ErrorClassification,
    MergeRule::CommandDecision,
];

/// The reply schema of `rule`, parsed once.
pub fn reply_schema(rule: MergeRule) -> &'static Value {
    static PARSED: OnceLock<Vec<Value>> = OnceLock::new();
    let parsed = PARSED.get_or_init(|| {
        RULES
            .iter()
            .map(|rule| serde_json::from_str(reply_schema_text(*rule)).unwrap_or(Value::Null))
            .collect()
    });
    let index = RULES.iter().position(|known| *known == rule).unwrap_or(0);
    &parsed[index]
}

/// One field of a reply that does not fit its schema.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct FieldProblem {
    /// Where: the key path (`args`, `extra.tool_call_id`), or `(reply)` for the whole reply.
    pub field: String,
    /// What is wrong: `expected string, got number 42`.
    pub message: String,
}

impl std::fmt::Display for FieldProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "reply field `{}`: {}", self.field, self.message)
    }
}

/// Checks `reply` against the reply schema of `rule`; empty when it fits.
///
/// ```
/// use hermes_hooks_core::catalog::MergeRule;
/// use hermes_hooks_core::schemas::check_reply;
/// use serde_json::json;
///
/// let problems = check_reply(MergeRule::ToolGate, &json!({"action": "block", "message": 42}));
/// assert_eq!(problems[0].field, "message");
/// assert!(check_reply(MergeRule::ToolGate, &json!({"action": "block", "message": "no"})).is_empty());
/// ```
pub fn check_reply(rule: MergeRule, reply: &Value) -> Vec<FieldProblem> {
    check_value(reply_schema(rule), reply)
}

/// Checks `value` against `schema` (the subset described in the module docs).
pub fn check_value(schema: &Value, value: &Value) -> Vec<FieldProblem> {
    let mut problems = Vec::new();
    check_at(schema, value, "", &mut problems);
    problems
}

fn check_at(schema: &Value, value: &Value, path: &str, problems: &mut Vec<FieldProblem>) {
    let field = if path.is_empty() { "(reply)" } else { path };
    let mut problem = |message: String| {
        problems.push(FieldProblem {
            field: field.to_owned(),
            message,
        })
    };
    if let Some(types) = schema.get("type") {
        let allowed: Vec<&str> = match types {
            Value::String(one) => vec![one.as_str()],
            Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if !allowed.is_empty() && !allowed.iter().any(|name| has_type(value, name)) {
            problem(format!(
                "expected {}, got {}",
                allowed.join(" or "),
                describe(value)
            ));
            return;
        }
    }
    if let Some(Value::Array(words)) = schema.get("enum")
        && !words.contains(value)
    {
        let words: Vec<String> = words.iter().map(Value::to_string).collect();
        problem(format!(
            "expected one of {}, got {}",
            words.join(", "),
            describe(value)
        ));
        return;
    }
    if let Some(expected) = schema.get("const")
        && expected != value
    {
        problem(format!("expected {expected}, got {}", describe(value)));
        return;
    }
    let Value::Object(object) = value else {
        return;
    };
    if let Some(Value::Array(required)) = schema.get("required") {
        for key in required.iter().filter_map(Value::as_str) {
            if !object.contains_key(key) {
                problems.push(FieldProblem {
                    field: join(path, key),
                    message: "required, missing".to_owned(),
                });
            }
        }
    }
    if let Some(Value::Object(properties)) = schema.get("properties") {
        for (key, inner) in properties {
            if let Some(value) = object.get(key) {
                check_at(inner, value, &join(path, key), problems);
            }
        }
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

fn has_type(value: &Value, name: &str) -> bool {
    match name {
        "string" => value.is_string(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "number" => value.is_number(),
        "integer" => value.is_i64() || value.is_u64(),
        _ => true,
    }
}

/// `number 42`, `string "x"` (shortened), `object`.
fn describe(value: &Value) -> String {
    let kind = match value {
        Value::Null => return "null".to_owned(),
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => return "an array".to_owned(),
        Value::Object(_) => return "an object".to_owned(),
    };
    let text = value.to_string();
    let shown: String = text.chars().take(60).collect();
    let ellipsis = if shown.len() < text.len() { "..." } else { "" };
    format!("{kind} {shown}{ellipsis}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_rule_schema_is_valid_json() {
        for rule in RULES {
            assert!(reply_schema(rule).is_object(), "{}", rule.as_str());
        }
    }

    #[test]
    fn wrong_fields_are_named() {
        let problems = check_reply(
            MergeRule::ToolGate,
            &json!({"action": "modify", "args": "x=1"}),
        );
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].field, "args");
        assert_eq!(problems[0].message, "expected object, got string \"x=1\"");
        let problems = check_reply(MergeRule::ToolGate, &json!({"action": "blok"}));
        assert_eq!(problems[0].field, "action");
        assert!(problems[0].message.contains("\"block\""), "{problems:?}");
        let problems = check_reply(MergeRule::FirstString, &json!(3));
        assert_eq!(
            problems[0].to_string(),
            "reply field `(reply)`: expected string, got number 3"
        );
        // Claude Code shapes and unknown keys pass.
        assert!(
            check_reply(
                MergeRule::ToolGate,
                &json!({"decision": "block", "reason": "r"})
            )
            .is_empty()
        );
        assert!(check_reply(MergeRule::Ignore, &json!([1, 2])).is_empty());
    }

    #[test]
    fn the_schema_knows_the_failover_reasons_the_merge_knows() {
        let schema = reply_schema(MergeRule::ErrorClassification);
        let listed: Vec<&str> = schema["properties"]["reason"]["enum"]
            .as_array()
            .map(|words| words.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        assert_eq!(listed, crate::merge::FAILOVER_REASONS);
    }
}
