//! `gateway_dispatch` (`pre_gateway_dispatch`): skip, rewrite or allow.

use serde_json::{Value, json};

use super::Reading;
use crate::pyvalue::text_of;

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
    /// Reads one reply as the `gateway_dispatch` merge does: an object whose
    /// string `action` is `skip` (with `reason` as text, `null` or absent
    /// giving none), `rewrite` with a string `text`, or `allow` decides; a
    /// `rewrite` whose `text` is not a string is [`Reading::Void`]; anything
    /// else (other actions, a case-changed `Skip`, non-objects) is ignored.
    pub fn from_wire(reply: &Value) -> Reading<DispatchReply> {
        let Some(object) = reply.as_object() else {
            return Reading::Ignored;
        };
        match object.get("action").and_then(Value::as_str) {
            Some("skip") => Reading::Decides(DispatchReply::Skip {
                reason: object.get("reason").filter(|r| !r.is_null()).map(text_of),
            }),
            Some("rewrite") => match object.get("text") {
                Some(Value::String(text)) => {
                    Reading::Decides(DispatchReply::Rewrite { text: text.clone() })
                }
                _ => Reading::Void,
            },
            Some("allow") => Reading::Decides(DispatchReply::Allow),
            _ => Reading::Ignored,
        }
    }

    /// The reply in the Hermes wire shape.
    pub fn into_wire(self) -> Value {
        match self {
            DispatchReply::Skip { reason } => json!({"action": "skip", "reason": reason}),
            DispatchReply::Rewrite { text } => json!({"action": "rewrite", "text": text}),
            DispatchReply::Allow => json!({"action": "allow"}),
        }
    }
}
