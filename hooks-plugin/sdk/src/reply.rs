//! The typed replies, one per merge rule: what a hook of that event may answer.
//!
//! Each converts into the Hermes wire shape the host merges (`None`: no reply).

use serde_json::{Map, Value, json};

/// The answer of a `pre_tool_call` hook (merge rule `tool_gate`).
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub enum ToolDecision {
    /// No directive: the tool runs (unless another hook decides otherwise).
    #[default]
    Allow,
    /// Do not run the tool; `message` becomes the tool result. Any block wins.
    Block {
        /// Why the tool was blocked (must not be empty: the host ignores an empty block).
        message: String,
    },
    /// Send the call to the user's approval gate.
    Approve {
        /// The explanation shown in the approval prompt.
        message: Option<String>,
        /// The approval rule key (the host falls back to the tool name).
        rule_key: Option<String>,
    },
    /// Shallow-merge these keys into the tool's arguments.
    Modify {
        /// The keys to set.
        args: Map<String, Value>,
    },
}

impl ToolDecision {
    /// Blocks the tool call with `message`.
    pub fn block(message: impl Into<String>) -> Self {
        ToolDecision::Block {
            message: message.into(),
        }
    }

    /// Sends the call to the approval gate with `message`.
    pub fn approve(message: impl Into<String>) -> Self {
        ToolDecision::Approve {
            message: Some(message.into()),
            rule_key: None,
        }
    }

    /// Merges `args` into the tool's arguments.
    pub fn modify(args: Map<String, Value>) -> Self {
        ToolDecision::Modify { args }
    }

    pub(crate) fn into_wire(self) -> Option<Value> {
        match self {
            ToolDecision::Allow => None,
            ToolDecision::Block { message } => Some(json!({"action": "block", "message": message})),
            ToolDecision::Approve { message, rule_key } => {
                let mut wire = Map::new();
                wire.insert("action".into(), "approve".into());
                if let Some(message) = message {
                    wire.insert("message".into(), message.into());
                }
                if let Some(rule_key) = rule_key {
                    wire.insert("rule_key".into(), rule_key.into());
                }
                Some(Value::Object(wire))
            }
            ToolDecision::Modify { args } => Some(json!({"action": "modify", "args": args})),
        }
    }
}

/// The answer of a `pre_gateway_dispatch` hook (merge rule `gateway_dispatch`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DispatchReply {
    /// Drop the message.
    Skip {
        /// The reason, for logs.
        reason: Option<String>,
    },
    /// Replace the message text.
    Rewrite {
        /// The new text.
        text: String,
    },
    /// Dispatch normally and ask no further hook.
    Allow,
}

impl DispatchReply {
    pub(crate) fn into_wire(self) -> Value {
        match self {
            DispatchReply::Skip { reason } => json!({"action": "skip", "reason": reason}),
            DispatchReply::Rewrite { text } => json!({"action": "rewrite", "text": text}),
            DispatchReply::Allow => json!({"action": "allow"}),
        }
    }
}

/// The answer of a `pre_transcription` hook (merge rule `transcription_fields`):
/// the fields to override; `None` leaves a field alone.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TranscriptionReply {
    /// The transcription prompt.
    pub prompt: Option<String>,
    /// The language.
    pub language: Option<String>,
    /// The model.
    pub model: Option<String>,
}

impl TranscriptionReply {
    pub(crate) fn into_wire(self) -> Option<Value> {
        let mut wire = Map::new();
        for (key, value) in [
            ("prompt", self.prompt),
            ("language", self.language),
            ("model", self.model),
        ] {
            if let Some(value) = value {
                wire.insert(key.into(), Value::String(value));
            }
        }
        (!wire.is_empty()).then_some(Value::Object(wire))
    }
}

/// The wire conversions of the rules whose reply is a plain Rust type.
pub(crate) mod wire {
    use serde_json::{Map, Value, json};

    /// Observers: replies are ignored, so none is sent.
    pub fn ignore(_: ()) -> Option<Value> {
        None
    }

    /// `pre_llm_call`: `Some(text)` adds context.
    pub fn context(reply: Option<String>) -> Option<Value> {
        reply.map(|context| json!({"context": context}))
    }

    /// `pre_verify`: `Some(message)` keeps the turn going.
    pub fn verify_continue(reply: Option<String>) -> Option<Value> {
        reply.map(|message| json!({"action": "continue", "message": message}))
    }

    /// Transforms: `Some(text)` replaces the value.
    pub fn string(reply: Option<String>) -> Option<Value> {
        reply.map(Value::String)
    }

    /// `transform_api_error_classification`: the classification object.
    pub fn classification(reply: Option<Map<String, Value>>) -> Option<Value> {
        reply.map(Value::Object)
    }

    /// `pre_tool_call`.
    pub fn tool_gate(reply: super::ToolDecision) -> Option<Value> {
        reply.into_wire()
    }

    /// `pre_gateway_dispatch`.
    pub fn gateway_dispatch(reply: Option<super::DispatchReply>) -> Option<Value> {
        reply.map(super::DispatchReply::into_wire)
    }

    /// `pre_transcription`.
    pub fn transcription(reply: super::TranscriptionReply) -> Option<Value> {
        reply.into_wire()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_decisions_take_the_wire_shapes() {
        assert_eq!(ToolDecision::Allow.into_wire(), None);
        assert_eq!(
            ToolDecision::block("no").into_wire(),
            Some(json!({"action": "block", "message": "no"}))
        );
        assert_eq!(
            ToolDecision::approve("sure?").into_wire(),
            Some(json!({"action": "approve", "message": "sure?"}))
        );
        let mut args = Map::new();
        args.insert("x".into(), 1.into());
        assert_eq!(
            ToolDecision::modify(args).into_wire(),
            Some(json!({"action": "modify", "args": {"x": 1}}))
        );
    }

    #[test]
    fn other_rules_take_their_wire_shapes() {
        assert_eq!(
            wire::context(Some("c".into())),
            Some(json!({"context": "c"}))
        );
        assert_eq!(wire::context(None), None);
        assert_eq!(
            wire::verify_continue(Some("go".into())),
            Some(json!({"action": "continue", "message": "go"}))
        );
        assert_eq!(wire::string(Some(String::new())), Some(json!("")));
        assert_eq!(
            wire::gateway_dispatch(Some(DispatchReply::Allow)),
            Some(json!({"action": "allow"}))
        );
        assert_eq!(TranscriptionReply::default().into_wire(), None);
        let language = TranscriptionReply {
            language: Some("ja".into()),
            ..TranscriptionReply::default()
        };
        assert_eq!(language.into_wire(), Some(json!({"language": "ja"})));
    }
}
