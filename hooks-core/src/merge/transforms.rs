//! The transform rules: `pre_transcription` field overrides, the string
//! transforms and `transform_api_error_classification`.

use serde_json::{Map, Value};
use tracing::warn;

use super::json::is_truthy;
use crate::event::Event;
use crate::outcome::{Outcome, TranscriptionOverrides};
use crate::pyvalue::strip;
use crate::replies::TranscriptionReply;
use crate::reply::Reply;

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

/// The optional recovery hints of a classification, coerced to booleans.
const CLASSIFICATION_HINTS: [&str; 4] = [
    "retryable",
    "should_compress",
    "should_rotate_credential",
    "should_fallback",
];

/// The longest classification message kept, in characters.
const CLASSIFICATION_MESSAGE_MAX_CHARS: usize = 500;

/// Merges `pre_transcription` replies: objects applied in order, key by key,
/// the last writer winning per key.
///
/// `prompt`, `language` and `model` count only with string values; an empty
/// prompt clears the configured one and an empty language lets the backend
/// decide (both kept as `Some("")`). `file_path` is read-only: trying to set it
/// is warned about and ignored. No valid key gives [`Outcome::Nothing`].
pub fn transcription_fields(_event: &Event, replies: &[Reply]) -> Outcome {
    let mut merged: Option<TranscriptionReply> = None;
    for read in replies
        .iter()
        .filter_map(|reply| TranscriptionReply::from_wire(&reply.value))
    {
        merged.get_or_insert_with(Default::default).overlay(read);
    }
    match merged {
        Some(TranscriptionReply {
            prompt,
            language,
            model,
        }) => Outcome::Transcription(TranscriptionOverrides {
            prompt,
            language,
            model,
        }),
        None => Outcome::Nothing,
    }
}

/// `transform_tool_result` / `transform_terminal_output`: the first reply that
/// is a string replaces the text, the empty string included.
pub fn first_string(_event: &Event, replies: &[Reply]) -> Outcome {
    replies
        .iter()
        .find_map(|reply| reply.value.as_str())
        .map_or(Outcome::Nothing, |text| Outcome::Replace(text.to_owned()))
}

/// `transform_llm_output`: the first non-empty string replaces the response;
/// an empty string means "no change".
pub fn first_non_empty_string(_event: &Event, replies: &[Reply]) -> Outcome {
    replies
        .iter()
        .filter_map(|reply| reply.value.as_str())
        .find(|text| !text.is_empty())
        .map_or(Outcome::Nothing, |text| Outcome::Replace(text.to_owned()))
}

/// `transform_api_error_classification`: every callback ran; the first valid
/// classification in registration order wins (run-all-then-pick-first).
///
/// Valid means an object whose `reason` (stripped, lower-cased) is one of
/// [`FAILOVER_REASONS`]. The winner is sanitised to `reason`, the hint booleans
/// present (by JSON truthiness), `message` (stripped, at most 500 characters,
/// only when not blank) and `error_context` (only when an object). Valid
/// classifications that lost are counted in a warning.
pub fn error_classification(_event: &Event, replies: &[Reply]) -> Outcome {
    let mut valid = replies
        .iter()
        .filter_map(|reply| reply.value.as_object())
        .filter_map(|object| failover_reason(object).map(|reason| (reason, object)));
    let Some((reason, winner)) = valid.next() else {
        return Outcome::Nothing;
    };
    let skipped = valid.count();
    if skipped > 0 {
        warn!(
            "transform_api_error_classification: skipped {skipped} valid classification(s) after the first result in registration order won (run-all-then-pick-first)"
        );
    }
    Outcome::Classification(sanitised_classification(reason, winner))
}

/// The canonical `FailoverReason` name of a classification, if it has a valid one.
fn failover_reason(object: &Map<String, Value>) -> Option<&'static str> {
    let reason = strip(object.get("reason")?.as_str()?).to_lowercase();
    FAILOVER_REASONS.into_iter().find(|known| *known == reason)
}

fn sanitised_classification(reason: &str, winner: &Map<String, Value>) -> Map<String, Value> {
    let mut clean = Map::new();
    clean.insert("reason".into(), Value::String(reason.to_owned()));
    for hint in CLASSIFICATION_HINTS {
        // A null hint is "no opinion", not "false".
        if let Some(value) = winner.get(hint).filter(|value| !value.is_null()) {
            clean.insert(hint.into(), Value::Bool(is_truthy(value)));
        }
    }
    if let Some(message) = winner.get("message").and_then(Value::as_str) {
        let message = strip(message);
        if !message.is_empty() {
            let kept: String = message
                .chars()
                .take(CLASSIFICATION_MESSAGE_MAX_CHARS)
                .collect();
            clean.insert("message".into(), Value::String(kept));
        }
    }
    if let Some(context @ Value::Object(_)) = winner.get("error_context") {
        clean.insert("error_context".into(), context.clone());
    }
    clean
}
