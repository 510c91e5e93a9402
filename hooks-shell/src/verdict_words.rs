//! A fail-closed guard's answer that speaks of a verdict in words its
//! format does not read (red team round 9, R9-1): `{"decision": "deny"}`
//! (Claude Code's top-level `decision` says `block`), `"Block"`,
//! `permissionDecision: false`, a `hookSpecificOutput` that is a string,
//! Cursor's `permission: "Deny"`, another format's keys, a verdict key in
//! any spelling where the format reads none (`permissionDecision` at the
//! top, `ok: false`, `block: true`, `decision.behavior`: round 10, R10-1), a
//! rewrite that cannot be applied (a native `modify` without `args`). Each is read as
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

/// Key names (case, `_`, `-` and blanks folded) some format reads as a
/// tool-call verdict: one found where the answer's format does not read it
/// must say no objection.
const VERDICT_KEYS: &[&str] = &[
    "decision",
    "permissiondecision",
    "permission",
    "action",
    "behavior",
    "behaviour",
    "ok",
    "block",
    "deny",
    "allow",
    "continue",
];

/// Where in an answer a key sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    Top,
    /// Inside Claude Code's `hookSpecificOutput`.
    Specific,
}

/// What `format` reads in `key` at `place` of a tool-gate answer (`None`:
/// not read there).
fn understood(format: Format, place: Place, key: &str) -> Option<&'static [&'static str]> {
    match (format, place, key) {
        (Format::Native, Place::Top, "action" | "decision") => {
            Some(&["block", "modify", "allow", "approve"])
        }
        (Format::Claude, Place::Top, "decision") => Some(&["block", "approve"]),
        (Format::Claude, Place::Specific, "permissionDecision") => {
            Some(&["allow", "deny", "ask", "defer"])
        }
        (Format::Cursor, Place::Top, "permission") => Some(&["allow", "deny", "ask"]),
        _ => None,
    }
}

/// Why the tool-gate answer `object` of a fail-closed guard in `format`
/// holds a verdict that cannot be read; `None` when every verdict word in
/// it is one the format reads where it stands (or says no objection).
pub(crate) fn unreadable(format: Format, object: &Map<String, Value>) -> Option<String> {
    if let Some(why) = words(format, Place::Top, object) {
        return Some(why);
    }
    if let Some(why) = rewrite_unread(format, object) {
        return Some(why);
    }
    match object.get("hookSpecificOutput") {
        None | Some(Value::Null) => None,
        Some(Value::Object(specific)) => {
            words(format, Place::Specific, specific).or_else(|| rewrite_unread(format, specific))
        }
        Some(other) => Some(format!(
            "its \"hookSpecificOutput\" is {} (an object is read)",
            kind(other)
        )),
    }
}

/// The first verdict key of `object` (at `place`) that cannot be read.
fn words(format: Format, place: Place, object: &Map<String, Value>) -> Option<String> {
    for (key, value) in object {
        let folded: String = key
            .chars()
            .filter(|c| !matches!(c, '_' | '-') && !c.is_whitespace())
            .flat_map(char::to_lowercase)
            .collect();
        if value.is_null() || !VERDICT_KEYS.contains(&folded.as_str()) {
            continue;
        }
        if folded == "continue" {
            match (key.as_str(), value, format, place) {
                ("continue", Value::Bool(true), _, _) => continue,
                ("continue", Value::Bool(false), Format::Claude, Place::Top) => continue,
                _ => return Some(format!("its \"{key}\": {value} is not read as a verdict")),
            }
        }
        let read = match (understood(format, place, key), value.as_str()) {
            (Some(words), Some(text)) => words.contains(&text),
            (None, Some(text)) => NO_OBJECTION.contains(&text.to_ascii_lowercase().as_str()),
            (None, None) => no_objection_flag(&folded, value),
            (Some(_), None) => false,
        };
        if !read {
            return Some(match understood(format, place, key) {
                Some(words) => format!(
                    "its \"{key}\": {value} is not a verdict it reads ({})",
                    words.join(", ")
                ),
                None => format!("its \"{key}\": {value} is not a word of its hook format"),
            });
        }
    }
    None
}

/// `ok: true`, `allow: true`, `block: false`, `deny: false`: no objection.
fn no_objection_flag(folded: &str, value: &Value) -> bool {
    match value {
        Value::Bool(flag) => match folded {
            "ok" | "allow" => *flag,
            "block" | "deny" => !*flag,
            _ => false,
        },
        _ => false,
    }
}

/// A rewrite the format cannot apply (the call would run as it was): a
/// native `modify` without its `args` / `tool_input` object, an
/// `updatedInput` / `updated_input` that is not an object.
fn rewrite_unread(format: Format, object: &Map<String, Value>) -> Option<String> {
    let is = |key: &str, word: &str| object.get(key).and_then(Value::as_str) == Some(word);
    let object_at = |key: &str| object.get(key).is_some_and(Value::is_object);
    if format == Format::Native {
        if is("action", "modify") && !object_at("args") {
            return Some("its \"action\": \"modify\" has no \"args\" object".to_owned());
        }
        if is("decision", "modify") && !object_at("tool_input") {
            return Some("its \"decision\": \"modify\" has no \"tool_input\" object".to_owned());
        }
    }
    ["updatedInput", "updated_input"]
        .into_iter()
        .find_map(|key| {
            let value = object.get(key).filter(|value| !value.is_null())?;
            (!value.is_object())
                .then(|| format!("its \"{key}\" is {} (an object is read)", kind(value)))
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
        // Red team round 10 (R10-1): verdict keys where the format reads none.
        for answer in [
            json!({"permissionDecision": "deny", "permissionDecisionReason": "rm -rf"}),
            json!({"hookSpecificOutput": {"permission": "deny"}}),
            json!({"hookSpecificOutput": {"decision": {"behavior": "deny"}}}),
            json!({"ok": false, "reason": "rm -rf"}),
            json!({"Decision": "block"}),
            json!({"hookSpecificOutput": {"PermissionDecision": "deny"}}),
            json!({"hookSpecificOutput": {"permission_decision": "deny"}}),
            json!({"block": true}),
            json!({"hookSpecificOutput": {"permissionDecision": "allow", "updatedInput": "ls"}}),
        ] {
            assert!(read(Format::Claude, answer.clone()).is_some(), "{answer}");
        }
        for answer in [
            json!({"permissionDecision": "deny"}),
            json!({"Permission": "deny"}),
            json!({"ok": false}),
        ] {
            assert!(read(Format::Cursor, answer.clone()).is_some(), "{answer}");
        }
        for answer in [
            json!({"block": true}),
            json!({"ok": false}),
            json!({"action": "modify"}),
            json!({"action": "modify", "args": "echo safe"}),
            json!({"decision": "modify", "args": {"command": "ls"}}),
        ] {
            assert!(read(Format::Native, answer.clone()).is_some(), "{answer}");
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
            (
                Format::Native,
                json!({"decision": "modify", "tool_input": {"command": "ls"}}),
            ),
            (
                Format::Claude,
                json!({"hookSpecificOutput": {"permissionDecision": "defer"}}),
            ),
            (
                Format::Claude,
                json!({"permissionDecision": "allow", "ok": true}),
            ),
            (
                Format::Claude,
                json!({"hookSpecificOutput": {"permissionDecision": "allow", "updatedInput": {"command": "ls"}}}),
            ),
            (
                Format::Cursor,
                json!({"permission": "allow", "decision": "allow", "continue": true}),
            ),
            (
                Format::Cursor,
                json!({"permission": "allow", "updated_input": {"command": "ls"}}),
            ),
        ] {
            assert_eq!(read(format, answer.clone()), None, "{format:?} {answer}");
        }
    }
}
