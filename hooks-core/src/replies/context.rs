//! `context` (`pre_llm_call`): text added to the user message.

use serde_json::{Value, json};

use crate::pyvalue::{is_truthy, strip, text_of};

/// The answer of a `pre_llm_call` hook (merge rule `context`): context for
/// the user message.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ContextReply {
    /// The text, as the hook gave it (not stripped).
    pub context: String,
}

impl ContextReply {
    /// Adds `context` to the user message.
    pub fn new(context: impl Into<String>) -> Self {
        ContextReply {
            context: context.into(),
        }
    }

    /// Reads one reply as the `context` merge does: an object whose `context`
    /// is truthy gives its text (a string verbatim, another value as JSON
    /// text); a string with non-whitespace content gives itself, unstripped.
    /// `None` for anything else.
    pub fn from_wire(reply: &Value) -> Option<ContextReply> {
        match reply {
            Value::Object(object) => object
                .get("context")
                .filter(|context| is_truthy(context))
                .map(|context| ContextReply::new(text_of(context))),
            Value::String(text) if !strip(text).is_empty() => Some(ContextReply::new(text.clone())),
            _ => None,
        }
    }

    /// The reply in the Hermes wire shape: `{"context": C}`.
    pub fn into_wire(self) -> Value {
        json!({"context": self.context})
    }
}
