//! `error_classification` (`transform_api_error_classification`): a failover
//! classification of an API error.

use serde_json::{Map, Value};

use crate::pyvalue::{is_truthy, strip};

/// The `FailoverReason` names a classification's `reason` may take.
pub const FAILOVER_REASONS: [&str; 12] = [
    "auth",
    "auth_permanent",
    "billing",
    "rate_limit",
    "overloaded",
    "server_error",
    "timeout",
    "context_overflow",
    "payload_too_large",
    "model_not_found",
    "format_error",
    "unknown",
];

/// The longest classification message kept, in characters.
const MESSAGE_MAX_CHARS: usize = 500;

/// The answer of a `transform_api_error_classification` hook (merge rule
/// `error_classification`), as the merge keeps it: sanitised.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ClassificationReply {
    /// One of [`FAILOVER_REASONS`].
    pub reason: &'static str,
    /// Whether the call may be retried (`None`: no opinion).
    pub retryable: Option<bool>,
    /// Whether the context should be compressed first.
    pub should_compress: Option<bool>,
    /// Whether the credential should be rotated.
    pub should_rotate_credential: Option<bool>,
    /// Whether to fall back to another model.
    pub should_fallback: Option<bool>,
    /// The explanation: stripped, at most 500 characters, never blank.
    pub message: Option<String>,
    /// Extra context for the host, an object.
    pub error_context: Option<Map<String, Value>>,
}

impl ClassificationReply {
    /// Reads one reply as the `error_classification` merge does: an object
    /// whose `reason` (stripped, lower-cased) is one of [`FAILOVER_REASONS`];
    /// the hints present and not `null` become booleans by truthiness, a
    /// string `message` is stripped and cut to 500 characters (blank: none),
    /// `error_context` counts only as an object. `None` for anything else.
    pub fn from_wire(reply: &Value) -> Option<ClassificationReply> {
        let object = reply.as_object()?;
        let reason = strip(object.get("reason")?.as_str()?).to_lowercase();
        let reason = FAILOVER_REASONS
            .into_iter()
            .find(|known| *known == reason)?;
        // A null hint is "no opinion", not "false".
        let hint = |key: &str| {
            object
                .get(key)
                .filter(|value| !value.is_null())
                .map(is_truthy)
        };
        let message = object
            .get("message")
            .and_then(Value::as_str)
            .map(strip)
            .filter(|message| !message.is_empty())
            .map(|message| message.chars().take(MESSAGE_MAX_CHARS).collect());
        let error_context = match object.get("error_context") {
            Some(Value::Object(context)) => Some(context.clone()),
            _ => None,
        };
        Some(ClassificationReply {
            reason,
            retryable: hint("retryable"),
            should_compress: hint("should_compress"),
            should_rotate_credential: hint("should_rotate_credential"),
            should_fallback: hint("should_fallback"),
            message,
            error_context,
        })
    }

    /// The classification in the wire shape, in the merge's key order:
    /// `reason`, the hints that are set, `message`, `error_context`.
    pub fn into_wire(self) -> Map<String, Value> {
        let mut wire = Map::new();
        wire.insert("reason".into(), Value::String(self.reason.to_owned()));
        for (key, hint) in [
            ("retryable", self.retryable),
            ("should_compress", self.should_compress),
            ("should_rotate_credential", self.should_rotate_credential),
            ("should_fallback", self.should_fallback),
        ] {
            if let Some(hint) = hint {
                wire.insert(key.into(), Value::Bool(hint));
            }
        }
        if let Some(message) = self.message {
            wire.insert("message".into(), Value::String(message));
        }
        if let Some(context) = self.error_context {
            wire.insert("error_context".into(), Value::Object(context));
        }
        wire
    }
}
