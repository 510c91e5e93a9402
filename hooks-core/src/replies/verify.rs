//! `verify_continue` (`pre_verify`): keep the turn going.

use serde_json::{Value, json};

use crate::pyvalue::{is_truthy, strip, text_of};

/// The answer of a `pre_verify` hook that keeps the turn going (merge rule
/// `verify_continue`); a hook with nothing to say sends no reply.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ContinueReply {
    /// The nudge for the agent (stripped, never blank).
    pub message: String,
}

impl ContinueReply {
    /// Keeps the turn going with `message`.
    pub fn new(message: impl Into<String>) -> Self {
        ContinueReply {
            message: message.into(),
        }
    }

    /// Reads one reply as the `verify_continue` merge (and a shell hook's
    /// stdout) is read: an object whose first truthy of `action`, `decision`
    /// is `continue` or `block` (stripped, case-insensitive: the Claude Code
    /// Stop shape `{"decision": "block", "reason": R}` means "keep going") and
    /// whose first truthy of `message`, `reason` is a string that is not blank;
    /// the message comes stripped. `None` for anything else.
    pub fn from_wire(reply: &Value) -> Option<ContinueReply> {
        let object = reply.as_object()?;
        let first_truthy = |keys: [&str; 2]| {
            keys.into_iter()
                .filter_map(|key| object.get(key))
                .find(|value| is_truthy(value))
        };
        let action = strip(&text_of(first_truthy(["action", "decision"])?)).to_lowercase();
        if action != "continue" && action != "block" {
            return None;
        }
        let message = strip(first_truthy(["message", "reason"])?.as_str()?);
        (!message.is_empty()).then(|| ContinueReply::new(message))
    }

    /// The reply in the Hermes wire shape: `{"action": "continue", "message": M}`.
    pub fn into_wire(self) -> Value {
        json!({"action": "continue", "message": self.message})
    }
}
