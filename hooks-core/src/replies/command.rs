//! `command_decision` (gateway `command:*`): deny, handled or rewrite.

use serde_json::{Map, Value};

use crate::pyvalue::{strip, text_of};

/// The answer of a gateway `command:*` handler (merge rule `command_decision`).
///
/// `allow` (or no `decision`) is no variant: it lets the next handler decide,
/// which is what no reply does.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CommandReply {
    /// Refuse the command; `None` lets the host say "Command `/<name>` was
    /// blocked by a hook."
    Deny {
        /// The reply to the user.
        message: Option<String>,
    },
    /// The handler answered the command itself.
    Handled {
        /// The optional reply to the user.
        message: Option<String>,
    },
    /// Run `/<command> <args>` instead.
    Rewrite {
        /// The new command name, without the leading `/`.
        command: String,
        /// The new raw arguments.
        args: String,
    },
}

impl CommandReply {
    /// Reads one reply as the `command_decision` merge does: an object whose
    /// `decision` (as text, stripped, lower-cased) is `deny` or `handled`
    /// (with a non-empty string `message`, else none), or `rewrite` with a
    /// `command_name` that is not empty once stripped of spaces and leading
    /// `/` (`raw_args` as stripped text, `""` when absent or `null`).
    /// `None` for the rest (`allow`, no decision, an empty rewrite,
    /// non-objects): the merge reads on.
    pub fn from_wire(reply: &Value) -> Option<CommandReply> {
        let object = reply.as_object()?;
        let decision = object
            .get("decision")
            .map(|decision| strip(&text_of(decision)).to_lowercase())
            .unwrap_or_default();
        let message = || {
            object
                .get("message")
                .and_then(Value::as_str)
                .filter(|text| !text.is_empty())
                .map(str::to_owned)
        };
        match decision.as_str() {
            "deny" => Some(CommandReply::Deny { message: message() }),
            "handled" => Some(CommandReply::Handled { message: message() }),
            "rewrite" => {
                let command = present_text(object.get("command_name"));
                let command = strip(&command).trim_start_matches('/');
                (!command.is_empty()).then(|| CommandReply::Rewrite {
                    command: command.to_owned(),
                    args: strip(&present_text(object.get("raw_args"))).to_owned(),
                })
            }
            _ => None,
        }
    }

    /// The reply in the wire shape a handler sends:
    /// `{"decision": "deny"|"handled", "message"?}` or
    /// `{"decision": "rewrite", "command_name", "raw_args"}`.
    pub fn into_wire(self) -> Value {
        let mut wire = Map::new();
        let (decision, message) = match self {
            CommandReply::Deny { message } => ("deny", message),
            CommandReply::Handled { message } => ("handled", message),
            CommandReply::Rewrite { command, args } => {
                wire.insert("decision".into(), "rewrite".into());
                wire.insert("command_name".into(), command.into());
                wire.insert("raw_args".into(), args.into());
                return Value::Object(wire);
            }
        };
        wire.insert("decision".into(), decision.into());
        if let Some(message) = message {
            wire.insert("message".into(), message.into());
        }
        Value::Object(wire)
    }
}

/// The text of an optional value: absent and `null` give `""`.
fn present_text(value: Option<&Value>) -> String {
    value
        .filter(|v| !v.is_null())
        .map(text_of)
        .unwrap_or_default()
}
