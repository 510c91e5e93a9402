//! Whether a fail-closed guard's tool-gate answer can be read with
//! certainty. Each of the guard's keys, at each place, must be one its
//! format documents there, holding what the format reads in it (red team
//! round 11, R11-1: an allow list, [`documented`]); any other key (a wrapper
//! spelled `HookSpecificOutput`, `blocked: true`, `verdict: "deny"`, a key
//! with a look-alike letter, a deny one level deeper) is an answer whose
//! meaning is not known, and the call is blocked, naming the key and what
//! to write instead. A key another format documents is read as that
//! format's no objection (`"permission": "allow"` beside Claude Code's
//! answer, for one script serving several tools); any other word in it is
//! a verdict the format does not read (R9-1, R10-1). A rewrite the format
//! does not apply (a native `modify` without `args`, a rewrite under
//! another format's key) is unreadable too: the call would run as it was.
//! A fail-open hook is read as its tool reads it (unknown keys ignored).
//! `docs/decisions/fail-closed-answers-read-whole.md` says why.

use serde_json::{Map, Value};

mod documented;
mod rewrite;

use documented::{Kind, documented, elsewhere};
pub(crate) use rewrite::unapplied_rewrite;

/// Whose words a guard's answer is read in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    /// Our own `config.yaml` hooks: `action` / `decision` of `block` or `modify`.
    Native,
    /// Claude Code and Codex: `decision`, `continue`, `hookSpecificOutput.permissionDecision`.
    Claude,
    /// Cursor: `permission`.
    Cursor,
    /// Claude Code's prompt and agent hooks (`ok`): never a guard's own
    /// format, only a place where a key of another format is looked up.
    PromptHook,
}

/// Where in an answer a key sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// The answer object itself.
    Top,
    /// Inside Claude Code's `hookSpecificOutput`.
    Specific,
}

/// The words with which an answer may say "no objection" in a key that is
/// not its format's: the guard allowed, whatever format it wrote in.
const NO_OBJECTION: &[&str] = &["allow", "approve"];

/// Why the tool-gate answer `object` of a fail-closed guard in `format`
/// cannot be read with certainty, and what to write instead; `None` when
/// every key is one the format reads where it stands, holding what it
/// reads (or another format's no objection).
pub(crate) fn unreadable(format: Format, object: &Map<String, Value>) -> Option<String> {
    let why = keys_unread(format, Place::Top, object)
        .or_else(|| arguments_unread(format, object))
        .or_else(|| reason_without_verdict(object))?;
    Some(format!("{why}; {}", what_to_write(format)))
}

/// [`unreadable`] of the answer `object` parsed from `text`: also an answer
/// that gives a key twice (the last is read, as Claude Code reads it) cannot
/// be read with certainty from a fail-closed guard (`{"hookSpecificOutput":
/// {…deny…}, "hookSpecificOutput": {…allow…}}`).
pub(crate) fn unreadable_text(
    format: Format,
    text: &str,
    object: &Map<String, Value>,
) -> Option<String> {
    if let Some(key) = crate::dialect::json_duplicates::duplicate_keys(text).first() {
        return Some(format!(
            "its answer gives the key {key} more than once, so which one it meant cannot be \
             told; {}",
            what_to_write(format)
        ));
    }
    unreadable(format, object)
}

/// The first key of `object` (at `place`) that `format` does not read. A
/// `null` is read as the key left out, but not where a verdict goes: `{"decision":
/// null, "reason": "blocked"}` says nothing certain (red team round 14, R14-5).
fn keys_unread(format: Format, place: Place, object: &Map<String, Value>) -> Option<String> {
    object.iter().find_map(|(key, value)| {
        let own = documented(format, place, key);
        if value.is_null() {
            let kind = own.or_else(|| elsewhere(format, place, key))?;
            return matches!(kind, Kind::Verdict(_) | Kind::GoOn { .. } | Kind::Wrapper).then(|| {
                format!("its \"{key}\" is null, which is no verdict (leave the key out to say nothing)")
            });
        }
        match own {
            Some(kind) => own_unread(format, kind, key, value),
            None => match elsewhere(format, place, key) {
                Some(kind) => foreign_unread(format, kind, key, value),
                None => Some(unknown_key(key, place)),
            },
        }
    })
}

/// Why `value` under `key`, which the format documents as `kind`, is not
/// what it reads there.
fn own_unread(format: Format, kind: Kind, key: &str, value: &Value) -> Option<String> {
    match (kind, value) {
        (Kind::Verdict(words), Value::String(word)) if words.contains(&word.as_str()) => None,
        (Kind::Verdict(words), _) => Some(format!(
            "its \"{key}\": {value} is not a verdict it reads ({})",
            words.join(", ")
        )),
        (Kind::GoOn { .. }, Value::Bool(true)) => None,
        (Kind::GoOn { false_stops: true }, Value::Bool(false)) => None,
        (Kind::GoOn { .. }, _) => Some(format!("its \"{key}\": {value} is not read as a verdict")),
        (Kind::Flag, Value::Bool(_)) | (Kind::Text, Value::String(_)) => None,
        (Kind::Flag, _) => Some(format!(
            "its \"{key}\" is {} (true or false is read)",
            kind_of(value)
        )),
        (Kind::Text, _) => Some(format!(
            "its \"{key}\" is {} (text is read)",
            kind_of(value)
        )),
        (Kind::Wrapper, Value::Object(inner)) => keys_unread(format, Place::Specific, inner),
        (Kind::Arguments, Value::Object(_)) => None,
        (Kind::Wrapper | Kind::Arguments, _) => Some(format!(
            "its \"{key}\" is {} (an object is read)",
            kind_of(value)
        )),
    }
}

/// Why `value` under `key`, which another format documents as `kind`, is
/// not that format's no objection.
fn foreign_unread(format: Format, kind: Kind, key: &str, value: &Value) -> Option<String> {
    let no_objection = match (kind, value) {
        (Kind::Verdict(_), Value::String(word)) => NO_OBJECTION.contains(&word.as_str()),
        (Kind::GoOn { .. }, Value::Bool(flag)) => *flag,
        (Kind::Flag, Value::Bool(_)) | (Kind::Text, Value::String(_)) => true,
        (Kind::Wrapper, Value::Object(inner)) => {
            return keys_unread(format, Place::Specific, inner);
        }
        (Kind::Arguments, _) => {
            return Some(format!(
                "its \"{key}\" is a rewrite of another hook format, not applied here"
            ));
        }
        _ => false,
    };
    (!no_objection).then(|| format!("its \"{key}\": {value} is not a word of its hook format"))
}

/// A key no format documents (at `place`), shown escaped so that an
/// invisible or look-alike letter shows.
fn unknown_key(key: &str, place: Place) -> String {
    let letters = if key.is_ascii() {
        ""
    } else {
        ", and it has letters outside ASCII"
    };
    let place = match place {
        Place::Top => "at the top level",
        Place::Specific => "in \"hookSpecificOutput\"",
    };
    format!("its answer has a key {key:?} its hook format does not read ({place}{letters})")
}

/// Keys that give a verdict's reason, and those that give the verdict
/// (`hookSpecificOutput`'s are read inside it).
const REASONS: &[&str] = &[
    "reason",
    "message",
    "stopReason",
    "user_message",
    "agent_message",
];
const VERDICTS: &[&str] = &["decision", "action", "continue", "permission"];

/// An answer that gives a reason but no verdict (`{"reason": "blocked by
/// policy"}`, `{"hookSpecificOutput": {}, "reason": "…"}`, a native
/// `{"message": "rm -rf is blocked"}`): the verdict was lost on the way,
/// and what it was cannot be told (red team round 15, R15-5).
fn reason_without_verdict(object: &Map<String, Value>) -> Option<String> {
    let given = |object: &Map<String, Value>, key: &str| {
        object
            .get(key)
            .is_some_and(|value| value.as_str().is_some_and(|text| !text.trim().is_empty()))
    };
    let specific = object.get("hookSpecificOutput").and_then(Value::as_object);
    let verdict = VERDICTS.iter().any(|key| object.get(*key).is_some())
        || specific.is_some_and(|inner| inner.get("permissionDecision").is_some());
    let reason = REASONS
        .iter()
        .find(|key| given(object, key))
        .copied()
        .or_else(|| {
            specific
                .filter(|inner| given(inner, "permissionDecisionReason"))
                .map(|_| "permissionDecisionReason")
        });
    match reason {
        Some(key) if !verdict => Some(format!(
            "its \"{key}\" gives a reason but no verdict beside it"
        )),
        _ => None,
    }
}

/// A rewrite the format does not apply (the call would run as it was):
/// a native `args` without `"action": "modify"`, or a `modify` without
/// its `args` / `tool_input` object.
fn arguments_unread(format: Format, object: &Map<String, Value>) -> Option<String> {
    if format != Format::Native {
        return None;
    }
    let is = |key: &str, word: &str| object.get(key).and_then(Value::as_str) == Some(word);
    let applied = if is("action", "modify") {
        Some(("action", "args"))
    } else if is("decision", "modify") {
        Some(("decision", "tool_input"))
    } else {
        None
    };
    if let Some((verdict, arguments)) = applied
        && !object.get(arguments).is_some_and(Value::is_object)
    {
        return Some(format!(
            "its \"{verdict}\": \"modify\" has no \"{arguments}\" object"
        ));
    }
    ["args", "tool_input"]
        .into_iter()
        .filter(|key| object.get(*key).is_some_and(|value| !value.is_null()))
        .find(|key| applied.is_none_or(|(_, arguments)| arguments != *key))
        .map(|key| format!("its \"{key}\" is not applied (no \"modify\" names it)"))
}

/// What a fail-closed guard of `format` should write instead.
fn what_to_write(format: Format) -> &'static str {
    match format {
        Format::Claude | Format::PromptHook => {
            "a fail-closed guard must answer in the keys its format reads: to deny, exit 2 or print \
             {\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\"}}; to allow, print {}"
        }
        Format::Cursor => {
            "a fail-closed guard must answer in the keys its format reads: to deny, exit 2 or print \
             {\"permission\":\"deny\"}; to allow, print {}"
        }
        Format::Native => {
            "a fail-closed guard must answer in the keys its format reads: to block, exit 2 or print \
             {\"action\":\"block\",\"message\":\"...\"}; to rewrite, {\"action\":\"modify\",\"args\":{...}}; to allow, print {}"
        }
    }
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Number(_) => "a number",
        Value::Bool(_) => "true or false",
        Value::Object(_) => "an object",
        Value::Null => "null",
    }
}

#[cfg(test)]
mod tests;
