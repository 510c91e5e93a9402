//! The directive rules other than the tool gate: `pre_llm_call` context,
//! `pre_verify` continue, `pre_gateway_dispatch` and gateway `command:*` decisions.

use serde_json::Value;

use super::json::{first_truthy, is_truthy, non_empty_str, text_of};
use crate::event::Event;
use crate::outcome::{CommandDecision, DispatchDecision, Outcome};
use crate::pyvalue::strip;
use crate::reply::Reply;

/// Merges `pre_llm_call` replies into the context for the user message.
///
/// An object whose `context` is truthy gives its text (strings verbatim, other
/// values as JSON text); a string with non-whitespace content gives itself,
/// unstripped; everything else is skipped. Pieces are joined by a blank line in
/// registration order; no piece gives [`Outcome::Nothing`].
pub fn context(_event: &Event, replies: &[Reply]) -> Outcome {
    let pieces: Vec<String> = replies
        .iter()
        .filter_map(|reply| match &reply.value {
            Value::Object(object) => object.get("context").filter(|c| is_truthy(c)).map(text_of),
            Value::String(text) if !strip(text).is_empty() => Some(text.clone()),
            _ => None,
        })
        .collect();
    if pieces.is_empty() {
        Outcome::Nothing
    } else {
        Outcome::Context(pieces.join("\n\n"))
    }
}

/// Merges `pre_verify` replies: the first object whose `action` (or `decision`)
/// is `continue` or `block` (stripped, case-insensitive) and whose `message` (or
/// `reason`) is a non-blank string wins, with the message stripped.
///
/// The Claude-Code Stop shape `{"decision":"block","reason":R}` means "keep going".
pub fn verify_continue(_event: &Event, replies: &[Reply]) -> Outcome {
    replies
        .iter()
        .filter_map(|reply| reply.value.as_object())
        .find_map(|object| {
            let action = first_truthy([object.get("action"), object.get("decision")])
                .map(|action| strip(&text_of(action)).to_lowercase())?;
            if action != "continue" && action != "block" {
                return None;
            }
            let message =
                strip(first_truthy([object.get("message"), object.get("reason")])?.as_str()?);
            (!message.is_empty()).then(|| Outcome::Continue {
                message: message.to_owned(),
            })
        })
        .unwrap_or(Outcome::Nothing)
}

/// Merges `pre_gateway_dispatch` replies: objects in order, the first
/// recognised action decides.
///
/// `skip` drops the message; `rewrite` with a string `text` replaces it (a
/// rewrite whose `text` is not a string also ends the scan, changing nothing);
/// `allow` dispatches normally and stops asking; other actions keep scanning.
pub fn gateway_dispatch(_event: &Event, replies: &[Reply]) -> Outcome {
    for object in replies.iter().filter_map(|reply| reply.value.as_object()) {
        match object.get("action").and_then(Value::as_str) {
            Some("skip") => {
                let reason = object.get("reason").filter(|r| !r.is_null()).map(text_of);
                return Outcome::Dispatch(DispatchDecision::Skip { reason });
            }
            Some("rewrite") => {
                return match object.get("text") {
                    Some(Value::String(text)) => {
                        Outcome::Dispatch(DispatchDecision::Rewrite { text: text.clone() })
                    }
                    _ => Outcome::Nothing,
                };
            }
            Some("allow") => return Outcome::Dispatch(DispatchDecision::Allow),
            _ => {}
        }
    }
    Outcome::Nothing
}

/// Merges gateway `command:*` handler replies: objects in order, by
/// `decision` (stripped, case-insensitive).
///
/// `""`/`allow` go on to the next reply; `deny` refuses the command with the
/// reply's non-empty string `message`, else "Command `/<command>` was blocked by
/// a hook."; `handled` stops with its optional message; `rewrite` stops with the
/// new `command_name` (stripped, leading `/` removed; an empty name makes the
/// reply ignored) and `raw_args` (stripped, `""` when absent).
pub fn command_decision(event: &Event, replies: &[Reply]) -> Outcome {
    for object in replies.iter().filter_map(|reply| reply.value.as_object()) {
        let decision = object
            .get("decision")
            .map(|decision| strip(&text_of(decision)).to_lowercase())
            .unwrap_or_default();
        let message = non_empty_str(object.get("message")).map(str::to_owned);
        let decided = match decision.as_str() {
            "deny" => CommandDecision::Deny {
                message: message.unwrap_or_else(|| {
                    format!("Command `/{}` was blocked by a hook.", command_typed(event))
                }),
            },
            "handled" => CommandDecision::Handled { message },
            "rewrite" => {
                let command = present_text(object.get("command_name"));
                let command = strip(&command).trim_start_matches('/');
                if command.is_empty() {
                    continue;
                }
                CommandDecision::Rewrite {
                    command: command.to_owned(),
                    args: strip(&present_text(object.get("raw_args"))).to_owned(),
                }
            }
            _ => continue,
        };
        return Outcome::Command(decided);
    }
    Outcome::Nothing
}

/// The text of an optional value: absent and `null` give `""`.
fn present_text(value: Option<&Value>) -> String {
    value
        .filter(|v| !v.is_null())
        .map(text_of)
        .unwrap_or_default()
}

/// The command as the user typed it, for the default deny message.
///
/// The reference names the alias the user typed (`raw_command`), so that comes
/// first; then the canonical `command`; then the event name after `command:`.
fn command_typed(event: &Event) -> String {
    ["raw_command", "command"]
        .into_iter()
        .find_map(|key| non_empty_str(event.get(key)))
        .map(|command| command.trim_start_matches('/').to_owned())
        .unwrap_or_else(|| {
            let name = event.name().as_str();
            name.strip_prefix("command:").unwrap_or(name).to_owned()
        })
}
