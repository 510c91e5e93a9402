//! The keys each hook format documents for a tool-gate answer, at each
//! place, and what it reads in them (red team round 11, R11-1): the allow
//! list a fail-closed guard's answer is read against.

use super::{Format, Place};

/// What a format reads in a documented key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// A verdict: a string, one of these words.
    Verdict(&'static [&'static str]),
    /// `continue` (and a prompt hook's `ok`): `true` goes on; `false` stops
    /// the call only where `false_stops`.
    GoOn {
        /// Whether `false` is read (as a deny) here.
        false_stops: bool,
    },
    /// `true` or `false`, no verdict (`suppressOutput`).
    Flag,
    /// Text shown or fed back: a string.
    Text,
    /// Claude Code's `hookSpecificOutput`: an object read at [`Place::Specific`].
    Wrapper,
    /// New tool arguments: an object, its keys free-form.
    Arguments,
}

/// Every place a format documents keys at, to look a key up in the others.
const PLACES: &[(Format, Place)] = &[
    (Format::Claude, Place::Top),
    (Format::Claude, Place::Specific),
    (Format::Cursor, Place::Top),
    (Format::Native, Place::Top),
    (Format::PromptHook, Place::Top),
];

/// What `format` reads in `key` at `place` of a `pre_tool_call` answer;
/// `None` for a key it does not read there.
///
/// Claude Code and Codex (PreToolUse): the common `continue`, `stopReason`,
/// `suppressOutput`, `systemMessage`, the older `decision` + `reason`, and
/// `hookSpecificOutput` with `hookEventName`, `permissionDecision`,
/// `permissionDecisionReason`, `updatedInput`, `additionalContext`. Cursor
/// (`beforeShellExecution`, `beforeMCPExecution`, `beforeReadFile`,
/// `preToolUse`): `permission`, `user_message` / `agent_message` (and their
/// camelCase), `updated_input`, `continue` (read on `beforeSubmitPrompt`
/// only). Native `config.yaml` hooks: `action` / `decision`, `message` /
/// `reason`, `args` / `tool_input`, `context` (read on other events).
pub(super) fn documented(format: Format, place: Place, key: &str) -> Option<Kind> {
    use Kind::*;
    let kind = match (format, place, key) {
        (Format::Claude, Place::Top, "continue") => GoOn { false_stops: true },
        (Format::Claude, Place::Top, "suppressOutput") => Flag,
        (Format::Claude, Place::Top, "stopReason" | "systemMessage" | "reason") => Text,
        (Format::Claude, Place::Top, "decision") => Verdict(&["block", "approve"]),
        (Format::Claude, Place::Top, "hookSpecificOutput") => Wrapper,
        (Format::Claude, Place::Specific, "permissionDecision") => {
            Verdict(&["allow", "deny", "ask", "defer"])
        }
        (
            Format::Claude,
            Place::Specific,
            "hookEventName" | "permissionDecisionReason" | "additionalContext",
        ) => Text,
        (Format::Claude, Place::Specific, "updatedInput") => Arguments,
        (Format::Cursor, Place::Top, "permission") => Verdict(&["allow", "deny", "ask"]),
        (
            Format::Cursor,
            Place::Top,
            "user_message" | "userMessage" | "agent_message" | "agentMessage" | "reason"
            | "systemMessage",
        ) => Text,
        (Format::Cursor, Place::Top, "updated_input") => Arguments,
        (Format::Cursor, Place::Top, "continue") => GoOn { false_stops: false },
        (Format::Native, Place::Top, "action" | "decision") => {
            Verdict(&["block", "modify", "allow", "approve"])
        }
        (Format::Native, Place::Top, "message" | "reason" | "context") => Text,
        (Format::Native, Place::Top, "args" | "tool_input") => Arguments,
        (Format::PromptHook, Place::Top, "ok") => GoOn { false_stops: true },
        _ => return None,
    };
    Some(kind)
}

/// What another format reads in `key`, at any place: a key a guard may
/// write so that one script serves several tools (`"permission": "allow"`
/// beside Claude Code's answer). `None` when no format documents it.
pub(super) fn elsewhere(format: Format, place: Place, key: &str) -> Option<Kind> {
    PLACES
        .iter()
        .filter(|&&(other, at)| (other, at) != (format, place))
        .find_map(|&(other, at)| documented(other, at, key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_format_documents_its_own_keys_only() {
        assert_eq!(
            documented(Format::Claude, Place::Top, "decision"),
            Some(Kind::Verdict(&["block", "approve"]))
        );
        assert_eq!(documented(Format::Claude, Place::Top, "permission"), None);
        assert_eq!(
            documented(Format::Claude, Place::Top, "permissionDecision"),
            None
        );
        assert_eq!(documented(Format::Cursor, Place::Top, "decision"), None);
        assert_eq!(documented(Format::Native, Place::Top, "updatedInput"), None);
        assert_eq!(
            documented(Format::Claude, Place::Top, "HookSpecificOutput"),
            None
        );
    }

    #[test]
    fn a_key_of_another_format_is_found_elsewhere() {
        assert_eq!(
            elsewhere(Format::Claude, Place::Top, "permissionDecision"),
            Some(Kind::Verdict(&["allow", "deny", "ask", "defer"]))
        );
        assert_eq!(
            elsewhere(Format::Cursor, Place::Top, "hookSpecificOutput"),
            Some(Kind::Wrapper)
        );
        assert_eq!(elsewhere(Format::Claude, Place::Top, "blocked"), None);
    }
}
