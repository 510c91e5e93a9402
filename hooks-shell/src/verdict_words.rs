//! A fail-closed guard's answer that speaks of a verdict in words its
//! format does not read (red team round 9, R9-1): `{"decision": "deny"}`
//! (Claude Code's top-level `decision` says `block`), `"Block"`,
//! `permissionDecision: false`, a `hookSpecificOutput` that is a string,
//! Cursor's `permission: "Deny"`, another format's keys. Each is read as
//! "no objection" by the format's own rules, so a guard that meant to deny
//! allowed. For a guard that fails closed such an answer is no verdict:
//! the call is blocked, naming the word (a fail-open hook is read as its
//! tool reads it, with the warning it had).

use serde_json::{Map, Value};

/// Whose words a guard's answer is read in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    /// Our own `config.yaml` hooks: `action` / `decision` of `block` or `modify`.
    Native,
    /// Claude Code and Codex: `decision`, `continue`, `hookSpecificOutput.permissionDecision`.
    Claude,
    /// Cursor: `permission`.
    Cursor,
}

/// The words with which an answer may say "no objection" in a key that is
/// not its format's: the guard allowed, whatever format it wrote in.
const NO_OBJECTION: &[&str] = &["allow", "approve"];

/// What `format` understands in `key` at a tool gate (`None`: not its key).
fn understood(format: Format, key: &str) -> Option<&'static [&'static str]> {
    match (format, key) {
        (Format::Native, "action" | "decision") => Some(&["block", "modify", "allow", "approve"]),
        (Format::Claude, "decision") => Some(&["block", "approve"]),
        (Format::Claude, "permissionDecision") | (Format::Cursor, "permission") => {
            Some(&["allow", "deny", "ask"])
        }
        _ => None,
    }
}

/// Why the tool-gate answer `object` of a fail-closed guard in `format`
/// holds a verdict that cannot be read; `None` when every verdict word in
/// it is one the format reads (or says no objection).
pub(crate) fn unreadable(format: Format, object: &Map<String, Value>) -> Option<String> {
    for key in ["action", "decision", "permission"] {
        if let Some(why) = word(format, key, object.get(key)) {
            return Some(why);
        }
    }
    match object.get("continue") {
        None | Some(Value::Null) | Some(Value::Bool(true)) => {}
        Some(Value::Bool(false)) if format == Format::Claude => {}
        Some(other) => {
            return Some(format!(
                "its \"continue\": {other} is not read as a verdict"
            ));
        }
    }
    match object.get("hookSpecificOutput") {
        None | Some(Value::Null) => None,
        Some(Value::Object(specific)) => word(
            format,
            "permissionDecision",
            specific.get("permissionDecision"),
        ),
        Some(other) => Some(format!(
            "its \"hookSpecificOutput\" is {} (an object is read)",
            kind(other)
        )),
    }
}

/// Why `value` of `key` cannot be read in `format`.
fn word(format: Format, key: &str, value: Option<&Value>) -> Option<String> {
    let value = value.filter(|value| !value.is_null())?;
    let text = value.as_str();
    let read = match (understood(format, key), text) {
        (Some(words), Some(text)) => words.contains(&text),
        (None, Some(text)) => NO_OBJECTION.contains(&text),
        (_, None) => false,
    };
    (!read).then(|| match understood(format, key) {
        Some(words) => format!(
            "its \"{key}\": {value} is not a verdict it reads ({})",
            words.join(", ")
        ),
        None => format!("its \"{key}\": {value} is not a word of its hook format"),
    })
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Number(_) => "a number",
        Value::Bool(_) => "true or false",
        _ => "not an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(format: Format, answer: Value) -> Option<String> {
        unreadable(format, answer.as_object().expect("an object"))
    }

    #[test]
    fn a_verdict_in_words_the_format_does_not_read_is_unreadable() {
        for answer in [
            json!({"decision": "deny"}),
            json!({"decision": "Block"}),
            json!({"decision": true}),
            json!({"decision": ["block"]}),
            json!({"hookSpecificOutput": {"permissionDecision": "Deny"}}),
            json!({"hookSpecificOutput": {"permissionDecision": false}}),
            json!({"hookSpecificOutput": "{\"permissionDecision\":\"deny\"}"}),
            json!({"continue": "false"}),
            json!({"continue": 0}),
            json!({"permission": "deny"}),
        ] {
            assert!(read(Format::Claude, answer.clone()).is_some(), "{answer}");
        }
        for answer in [
            json!({"permission": "Deny"}),
            json!({"permission": false}),
            json!({"decision": "block"}),
            json!({"continue": false}),
        ] {
            assert!(read(Format::Cursor, answer.clone()).is_some(), "{answer}");
        }
        for answer in [
            json!({"action": "deny"}),
            json!({"action": "Block"}),
            json!({"action": true}),
            json!({"decision": "deny"}),
            json!({"hookSpecificOutput": {"permissionDecision": "deny"}}),
        ] {
            assert!(read(Format::Native, answer.clone()).is_some(), "{answer}");
        }
    }

    #[test]
    fn what_the_format_reads_or_no_objection_is_readable() {
        for (format, answer) in [
            (Format::Claude, json!({})),
            (
                Format::Claude,
                json!({"decision": "approve", "continue": true}),
            ),
            (
                Format::Claude,
                json!({"continue": false, "stopReason": "no"}),
            ),
            (
                Format::Claude,
                json!({"hookSpecificOutput": {"permissionDecision": "ask"}}),
            ),
            (
                Format::Claude,
                json!({"hookSpecificOutput": {"additionalContext": "x"}}),
            ),
            (
                Format::Claude,
                json!({"decision": null, "systemMessage": "hi"}),
            ),
            (
                Format::Cursor,
                json!({"permission": "allow", "continue": true}),
            ),
            (
                Format::Cursor,
                json!({"hookSpecificOutput": {"permissionDecision": "allow"}}),
            ),
            (Format::Native, json!({"action": "modify", "args": {}})),
            (Format::Native, json!({"context": "x"})),
        ] {
            assert_eq!(read(format, answer.clone()), None, "{format:?} {answer}");
        }
    }
}
