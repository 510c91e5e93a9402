//! The directive rules other than the tool gate: `pre_llm_call` context,
//! `pre_verify` continue, `pre_gateway_dispatch` and gateway `command:*` decisions.

use super::json::non_empty_str;
use crate::event::Event;
use crate::outcome::{CommandDecision, DispatchDecision, Outcome};
use crate::replies::{CommandReply, ContextReply, ContinueReply, DispatchReply, Reading};
use crate::reply::Reply;

/// Merges `pre_llm_call` replies into the context for the user message.
///
/// An object whose `context` is truthy gives its text (strings verbatim, other
/// values as Python's `str()` writes them: `['x']`); a string with non-whitespace content gives itself,
/// unstripped; everything else is skipped. Pieces are joined by a blank line in
/// registration order; no piece gives [`Outcome::Nothing`].
pub fn context(_event: &Event, replies: &[Reply]) -> Outcome {
    let pieces: Vec<String> = replies
        .iter()
        .filter_map(|reply| ContextReply::from_wire(&reply.value))
        .map(|reply| reply.context)
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
        .find_map(|reply| ContinueReply::from_wire(&reply.value))
        .map_or(Outcome::Nothing, |reply| Outcome::Continue {
            message: reply.message,
        })
}

/// Merges `pre_gateway_dispatch` replies: objects in order, the first
/// recognised action decides.
///
/// `skip` drops the message; `rewrite` with a string `text` replaces it (a
/// rewrite whose `text` is not a string also ends the scan, changing nothing);
/// `allow` dispatches normally and stops asking; other actions keep scanning.
pub fn gateway_dispatch(_event: &Event, replies: &[Reply]) -> Outcome {
    for reply in replies {
        match DispatchReply::from_wire(&reply.value) {
            Reading::Decides(decided) => {
                return Outcome::Dispatch(match decided {
                    DispatchReply::Skip { reason } => DispatchDecision::Skip { reason },
                    DispatchReply::Rewrite { text } => DispatchDecision::Rewrite { text },
                    DispatchReply::Allow => DispatchDecision::Allow,
                });
            }
            Reading::Void => return Outcome::Nothing,
            Reading::Ignored => {}
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
    let Some(reply) = replies
        .iter()
        .find_map(|reply| CommandReply::from_wire(&reply.value))
    else {
        return Outcome::Nothing;
    };
    Outcome::Command(match reply {
        CommandReply::Deny { message } => CommandDecision::Deny {
            message: message.unwrap_or_else(|| {
                format!("Command `/{}` was blocked by a hook.", command_typed(event))
            }),
        },
        CommandReply::Handled { message } => CommandDecision::Handled { message },
        CommandReply::Rewrite { command, args } => CommandDecision::Rewrite { command, args },
    })
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
