//! Outcomes: the one decision per event that the host acts on, typed and in
//! the Hermes wire shape.

use std::sync::Arc;
use std::time::Duration;

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
    ///
    /// Match it as `ToolGate::Block { message, .. }` and build it with
    /// [`ToolGate::block`]: the variant grows.
    #[non_exhaustive]
    Block {
        /// Why the tool was blocked.
        message: String,
        /// Which hook's reply decided the block (as its run record names it).
        source: BlockSource,
    },
}

/// Which hook blocked a tool call, so a host can show "blocked by
/// `shell:~/guard.sh` (shell, 3 ms)".
///
/// The merge knows the reply's source; the mechanism and the elapsed time come
/// from the hook's run record, so they are set when the bus recorded runs
/// ([`crate::Hooks::emit_with_report`], run observers) and `None` after a bare
/// [`crate::Hooks::emit`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct BlockSource {
    /// The reply source, as in [`crate::Reply::source`] and
    /// [`crate::HookRun::source`] (`shell:<command>`, `plugin:<name>`, ...).
    pub source: Arc<str>,
    /// The mechanism that ran the hook (`plugins`, `shell`, `imported`,
    /// `gateway`), as in [`crate::HookRun::mechanism`].
    pub mechanism: Option<Arc<str>>,
    /// How long the blocking hook ran.
    pub elapsed: Option<Duration>,
}

impl BlockSource {
    /// The block came from the reply of `source`; mechanism and time unknown.
    pub fn new(source: impl Into<Arc<str>>) -> Self {
        BlockSource {
            source: source.into(),
            mechanism: None,
            elapsed: None,
        }
    }

    /// The same source, run by `mechanism`.
    pub fn with_mechanism(mut self, mechanism: impl Into<Arc<str>>) -> Self {
        self.mechanism = Some(mechanism.into());
        self
    }

    /// The same source, which ran for `elapsed`.
    pub fn with_elapsed(mut self, elapsed: Duration) -> Self {
        self.elapsed = Some(elapsed);
        self
    }
}

impl std::fmt::Display for BlockSource {
    /// `shell:~/guard.sh (shell, 3 ms)`; the parentheses hold what is known.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.source)?;
        let elapsed = self
            .elapsed
            .map(|elapsed| format!("{} ms", elapsed.as_millis()));
        let known: Vec<&str> = self
            .mechanism
            .as_deref()
            .into_iter()
            .chain(elapsed.as_deref())
            .collect();
        if !known.is_empty() {
            write!(f, " ({})", known.join(", "))?;
        }
        Ok(())
    }
}

impl ToolGate {
    /// A block with `message`, decided by the reply of `source`.
    pub fn block(message: impl Into<String>, source: BlockSource) -> Self {
        ToolGate::Block {
            message: message.into(),
            source,
        }
    }

    /// For a block: which hook decided it.
    pub fn block_source(&self) -> Option<&BlockSource> {
        match self {
            ToolGate::Block { source, .. } => Some(source),
            _ => None,
        }
    }
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
#[non_exhaustive]
pub struct TranscriptionOverrides {
    /// The prompt; `Some("")` clears the configured prompt.
    pub prompt: Option<String>,
    /// The language; `Some("")` means "let the backend decide", dropping the
    /// configured language (the reference turns an empty override into none).
    pub language: Option<String>,
    /// The model.
    pub model: Option<String>,
}

impl TranscriptionOverrides {
    /// Sets the prompt override.
    #[must_use]
    pub fn with_prompt(mut self, prompt: Option<String>) -> Self {
        self.prompt = prompt;
        self
    }

    /// Sets the language override.
    #[must_use]
    pub fn with_language(mut self, language: Option<String>) -> Self {
        self.language = language;
        self
    }

    /// Sets the model override.
    #[must_use]
    pub fn with_model(mut self, model: Option<String>) -> Self {
        self.model = model;
        self
    }
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
            // The wire shape is Hermes's: the source stays on the Rust side.
            Outcome::Tool(ToolGate::Block { message, .. }) => {
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

    /// The message of a tool-call block (`None` for any other outcome).
    pub fn block_message(&self) -> Option<&str> {
        match self {
            Outcome::Tool(ToolGate::Block { message, .. }) => Some(message),
            _ => None,
        }
    }

    /// The tool gate, when this is a `pre_tool_call` outcome; otherwise [`ToolGate::Proceed`].
    pub fn tool_gate(&self) -> ToolGate {
        match self {
            Outcome::Tool(gate) => gate.clone(),
            _ => ToolGate::Proceed,
        }
    }
}
