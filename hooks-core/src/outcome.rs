//! Outcomes: the one decision per event that the host acts on, typed and in
//! the Hermes wire shape.

use serde_json::{Map, Value, json};

/// The merged result of one event's replies.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Outcome {
    /// The hooks contributed nothing (observers, or no valid reply).
    Nothing,
    /// `pre_tool_call`: what to do with the tool call.
    Tool(ToolGate),
    /// `pre_llm_call`: context to add to the user message (pieces joined by a blank line).
    Context(String),
    /// `pre_verify`: keep the turn going with this message.
    Continue {
        /// The nudge for the agent.
        message: String,
    },
    /// `pre_gateway_dispatch`: what to do with the incoming message.
    Dispatch(DispatchDecision),
    /// `pre_transcription`: field overrides for the transcription call.
    Transcription(TranscriptionOverrides),
    /// Transform events: the replacement text.
    Replace(String),
    /// `transform_api_error_classification`: the sanitised winning classification.
    Classification(Map<String, Value>),
    /// Gateway `command:*`: what to do with the slash command.
    Command(CommandDecision),
}

/// The decision of the `pre_tool_call` gate.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ToolGate {
    /// Run the tool as asked. The merge reports "no directive" as
    /// [`Outcome::Nothing`]; [`Outcome::tool_gate`] reads that as `Proceed`.
    Proceed,
    /// Run the tool with these arguments (the original ones shallow-merged with every modify).
    Modify {
        /// The full arguments after the merge.
        args: Map<String, Value>,
    },
    /// Ask the user's approval gate before running the tool.
    Approve {
        /// The explanation for the approval prompt.
        message: Option<String>,
        /// The approval rule key (the host falls back to the tool name).
        rule_key: Option<String>,
        /// Modified arguments, when a modify came before the block scan ended.
        args: Option<Map<String, Value>>,
    },
    /// Do not run the tool; `message` becomes the tool result.
    Block {
        /// Why the tool was blocked.
        message: String,
    },
}

/// The decision of `pre_gateway_dispatch`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum DispatchDecision {
    /// Drop the message; nothing is sent.
    Skip {
        /// The reason given, for logs.
        reason: Option<String>,
    },
    /// Replace the message text and dispatch it.
    Rewrite {
        /// The new text.
        text: String,
    },
    /// Dispatch normally and stop asking hooks.
    Allow,
}

/// Field overrides from `pre_transcription` hooks. `None` leaves a field as configured.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TranscriptionOverrides {
    /// The prompt; `Some("")` clears the configured prompt.
    pub prompt: Option<String>,
    /// The language; `Some("")` means "let the backend decide", dropping the
    /// configured language (the reference turns an empty override into none).
    pub language: Option<String>,
    /// The model.
    pub model: Option<String>,
}

/// The decision of gateway `command:*` handlers.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CommandDecision {
    /// Refuse the command and reply with `message`.
    Deny {
        /// The reply to the user.
        message: String,
    },
    /// The hook handled it; reply with `message` if any.
    Handled {
        /// The optional reply.
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

impl Outcome {
    /// The outcome in the Hermes wire shape, or `None` when the hooks contributed nothing.
    ///
    /// Shapes: `{"action":"block","message":M}`, `{"action":"approve","message":M,
    /// "rule_key":K}`, `{"action":"modify","args":A}`, `{"context":C}`,
    /// `{"action":"continue","message":M}`, `{"action":"skip"|"rewrite"|"allow",...}`,
    /// a string for transforms, the classification object, and
    /// `{"decision":"deny"|"handled"|"rewrite",...}` for commands.
    pub fn to_wire(&self) -> Option<Value> {
        Some(match self {
            Outcome::Nothing => return None,
            Outcome::Tool(ToolGate::Proceed) => return None,
            Outcome::Tool(ToolGate::Block { message }) => {
                json!({"action": "block", "message": message})
            }
            Outcome::Tool(ToolGate::Approve {
                message,
                rule_key,
                args,
            }) => {
                let mut wire =
                    json!({"action": "approve", "message": message, "rule_key": rule_key});
                if let (Some(args), Some(object)) = (args, wire.as_object_mut()) {
                    object.insert("args".into(), Value::Object(args.clone()));
                }
                wire
            }
            Outcome::Tool(ToolGate::Modify { args }) => json!({"action": "modify", "args": args}),
            Outcome::Context(context) => json!({"context": context}),
            Outcome::Continue { message } => json!({"action": "continue", "message": message}),
            Outcome::Dispatch(DispatchDecision::Skip { reason }) => {
                json!({"action": "skip", "reason": reason})
            }
            Outcome::Dispatch(DispatchDecision::Rewrite { text }) => {
                json!({"action": "rewrite", "text": text})
            }
            Outcome::Dispatch(DispatchDecision::Allow) => json!({"action": "allow"}),
            Outcome::Transcription(overrides) => {
                let mut wire = Map::new();
                for (key, value) in [
                    ("prompt", &overrides.prompt),
                    ("language", &overrides.language),
                    ("model", &overrides.model),
                ] {
                    if let Some(value) = value {
                        wire.insert(key.into(), Value::String(value.clone()));
                    }
                }
                Value::Object(wire)
            }
            Outcome::Replace(text) => Value::String(text.clone()),
            Outcome::Classification(classification) => Value::Object(classification.clone()),
            Outcome::Command(CommandDecision::Deny { message }) => {
                json!({"decision": "deny", "message": message})
            }
            Outcome::Command(CommandDecision::Handled { message }) => {
                json!({"decision": "handled", "message": message})
            }
            Outcome::Command(CommandDecision::Rewrite { command, args }) => {
                json!({"decision": "rewrite", "command_name": command, "raw_args": args})
            }
        })
    }

    /// The tool gate, when this is a `pre_tool_call` outcome; otherwise [`ToolGate::Proceed`].
    pub fn tool_gate(&self) -> ToolGate {
        match self {
            Outcome::Tool(gate) => gate.clone(),
            _ => ToolGate::Proceed,
        }
    }
}
