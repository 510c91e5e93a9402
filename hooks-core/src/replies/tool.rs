//! `tool_gate` (`pre_tool_call`): block, approve, modify.

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
