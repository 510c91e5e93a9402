//! Typed replies, one per merge rule that has a structured answer: what a
//! hook may answer, and the one reading of a reply in the Hermes wire shape
//! ([`ToolDecision::from_wire`], the `tool_gate` merge's own reading).
//!
//! The SDK re-exports these types for native plugins; shell hooks translate
//! their dialects into them; [`ToolDecision::into_wire`] and friends give the
//! wire shape the merge rules read. `schema/generated/<rule>.reply.schema.json`
//! describes the same shapes for hook authors in any language.

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

    /// Reads one reply in the Hermes wire shape as the `tool_gate` merge reads
    /// it: the one parser of tool-call decisions (the merge, shell hooks and
    /// the SDK go through it). `None` for a reply the merge ignores: not an
    /// object, no string `action`, a `block` without a non-empty string
    /// `message`, a `modify` whose `args` is not an object, any other action.
    /// An `approve` keeps a non-empty string `message` and a stripped,
    /// non-empty `rule_key`.
    pub fn from_wire(reply: &Value) -> Option<ToolDecision> {
        let reply = reply.as_object()?;
        let non_empty = |key: &str| {
            reply
                .get(key)
                .and_then(Value::as_str)
                .filter(|text| !text.is_empty())
        };
        match reply.get("action").and_then(Value::as_str)? {
            "block" => non_empty("message").map(ToolDecision::block),
            "approve" => Some(ToolDecision::Approve {
                message: non_empty("message").map(str::to_owned),
                rule_key: reply
                    .get("rule_key")
                    .and_then(Value::as_str)
                    .map(str::trim)
                    .filter(|key| !key.is_empty())
                    .map(str::to_owned),
            }),
            "modify" => match reply.get("args") {
                Some(Value::Object(args)) => Some(ToolDecision::Modify { args: args.clone() }),
                _ => None,
            },
            _ => None,
        }
    }

    /// The decision in the Hermes wire shape the merge reads; `None` for [`ToolDecision::Allow`].
    pub fn into_wire(self) -> Option<Value> {
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
    /// The reply in the Hermes wire shape.
    pub fn into_wire(self) -> Value {
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
    /// The overrides in the Hermes wire shape; `None` when none is set.
    pub fn into_wire(self) -> Option<Value> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_decisions_round_trip_through_the_wire() {
        let mut args = Map::new();
        args.insert("x".into(), 1.into());
        for decision in [
            ToolDecision::block("no"),
            ToolDecision::approve("sure?"),
            ToolDecision::modify(args),
        ] {
            let wire = decision.clone().into_wire();
            assert_eq!(
                wire.as_ref().and_then(ToolDecision::from_wire),
                Some(decision)
            );
        }
        assert_eq!(ToolDecision::Allow.into_wire(), None);
    }

    #[test]
    fn replies_the_merge_ignores_parse_to_none() {
        for ignored in [
            json!("block"),
            json!({"action": "block"}),
            json!({"action": "block", "message": ""}),
            json!({"action": "block", "message": 42}),
            json!({"action": "modify", "args": [1]}),
            json!({"action": "other"}),
            json!({"decision": "block"}),
        ] {
            assert_eq!(ToolDecision::from_wire(&ignored), None, "{ignored}");
        }
        assert_eq!(
            ToolDecision::from_wire(
                &json!({"action": "approve", "rule_key": "  k  ", "message": ""})
            ),
            Some(ToolDecision::Approve {
                message: None,
                rule_key: Some("k".into())
            })
        );
    }
}
