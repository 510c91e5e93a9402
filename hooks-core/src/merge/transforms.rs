//! The transform rules: `pre_transcription` field overrides, the string
//! transforms and `transform_api_error_classification`.

use tracing::warn;

use crate::event::Event;
use crate::outcome::{Outcome, TranscriptionOverrides};
use crate::replies::{ClassificationReply, TranscriptionReply};
use crate::reply::Reply;

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
/// [`crate::replies::FAILOVER_REASONS`], as [`ClassificationReply::from_wire`]
/// reads it. The winner is sanitised to `reason`, the hint booleans present
/// (by JSON truthiness), `message` (stripped, at most 500 characters, only
/// when not blank) and `error_context` (only when an object). Valid
/// classifications that lost are counted in a warning.
pub fn error_classification(_event: &Event, replies: &[Reply]) -> Outcome {
    let mut valid = replies
        .iter()
        .filter_map(|reply| ClassificationReply::from_wire(&reply.value));
    let Some(winner) = valid.next() else {
        return Outcome::Nothing;
    };
    let skipped = valid.count();
    if skipped > 0 {
        warn!(
            "transform_api_error_classification: skipped {skipped} valid classification(s) after the first result in registration order won (run-all-then-pick-first)"
        );
    }
    Outcome::Classification(winner.into_wire())
}
