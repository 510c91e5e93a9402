//! `pre_transcription`, the string transforms and `transform_api_error_classification`.

use serde_json::{Map, Value, json};

use super::logs::warnings_of;
use super::{event, replies};
use crate::merge::{
    error_classification, first_non_empty_string, first_string, merge, transcription_fields,
};
use crate::outcome::{Outcome, TranscriptionOverrides};

fn transcription(values: Vec<Value>) -> Outcome {
    let stt = event(
        "pre_transcription",
        json!({"file_path": "/a.ogg", "provider": "groq"}),
    );
    transcription_fields(&stt, &replies(values))
}

#[test]
fn transcription_last_writer_wins_per_key() {
    let outcome = transcription(vec![
        json!({"prompt": "vocab A", "language": "en"}),
        json!({"model": "whisper-large-v3"}),
        json!({"prompt": "vocab B", "language": 7}),
    ]);
    assert_eq!(
        outcome,
        Outcome::Transcription(TranscriptionOverrides {
            prompt: Some("vocab B".into()),
            language: Some("en".into()),
            model: Some("whisper-large-v3".into()),
        })
    );
}

#[test]
fn transcription_empty_strings_are_kept_as_overrides() {
    let outcome = transcription(vec![
        json!({"prompt": "x", "language": "ja"}),
        json!({"prompt": "", "language": ""}),
    ]);
    assert_eq!(
        outcome,
        Outcome::Transcription(TranscriptionOverrides {
            prompt: Some(String::new()),
            language: Some(String::new()),
            model: None,
        })
    );
}

#[test]
fn transcription_file_path_is_read_only_and_warned_about() {
    let (outcome, warnings) = warnings_of(|| {
        transcription(vec![
            json!({"file_path": "/etc/shadow", "speed": 2, "model": null}),
            json!("prompt"),
        ])
    });
    assert_eq!(outcome, Outcome::Nothing);
    assert_eq!(
        warnings,
        [
            "pre_transcription hook attempted to change file_path (read-only) — ignoring the attempt."
        ]
    );
}

#[test]
fn first_string_accepts_the_empty_string() {
    let tool_result = event("transform_tool_result", json!({"result": "raw"}));
    let outcome = first_string(
        &tool_result,
        &replies([json!(null), json!({"text": "x"}), json!(""), json!("later")]),
    );
    assert_eq!(outcome, Outcome::Replace(String::new()));
    assert_eq!(
        first_string(&tool_result, &replies([json!(1)])),
        Outcome::Nothing
    );
    let terminal = event("transform_terminal_output", json!({"output": "o"}));
    assert_eq!(
        merge(&terminal, &replies([json!("short")])),
        Outcome::Replace("short".into())
    );
}

#[test]
fn first_non_empty_string_skips_the_empty_string() {
    let llm = event("transform_llm_output", json!({"response_text": "hello"}));
    let outcome = first_non_empty_string(
        &llm,
        &replies([json!(""), json!(null), json!("Ahoy"), json!("later")]),
    );
    assert_eq!(outcome, Outcome::Replace("Ahoy".into()));
    assert_eq!(
        first_non_empty_string(&llm, &replies([json!("")])),
        Outcome::Nothing
    );
    assert_eq!(
        merge(&llm, &replies([json!(""), json!("b")])),
        Outcome::Replace("b".into())
    );
}

fn classify(values: Vec<Value>) -> (Outcome, Vec<String>) {
    let failure = event(
        "transform_api_error_classification",
        json!({"provider": "acme", "status_code": 404}),
    );
    warnings_of(|| error_classification(&failure, &replies(values)))
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("test fixture is not an object: {other}"),
    }
}

#[test]
fn classification_first_valid_wins_and_is_sanitised() {
    let long = "x".repeat(600);
    let (outcome, warnings) = classify(vec![
        json!({"reason": "no_such_reason"}),
        json!({"reason": 3}),
        json!("rate_limit"),
        json!({
            "reason": "  Model_Not_Found ",
            "retryable": 0,
            "should_fallback": "yes",
            "should_compress": null,
            "message": format!("  {long}  "),
            "error_context": {"model": "m"},
            "extra": "dropped",
        }),
        json!({"reason": "timeout"}),
        json!({"reason": "auth", "message": "   "}),
    ]);
    assert_eq!(
        outcome,
        Outcome::Classification(object(json!({
            "reason": "model_not_found",
            "retryable": false,
            "should_fallback": true,
            "message": "x".repeat(500),
            "error_context": {"model": "m"},
        })))
    );
    assert_eq!(
        warnings,
        [
            "transform_api_error_classification: skipped 2 valid classification(s) after the first result in registration order won (run-all-then-pick-first)"
        ]
    );
}

#[test]
fn classification_single_winner_drops_blank_message_and_non_object_context() {
    let (outcome, warnings) = classify(vec![
        json!({"reason": "billing", "message": "  ", "error_context": "ctx"}),
    ]);
    assert_eq!(
        outcome,
        Outcome::Classification(object(json!({"reason": "billing"})))
    );
    assert!(warnings.is_empty(), "{warnings:?}");
}

#[test]
fn classification_nothing_without_a_valid_reason() {
    let (outcome, _) = classify(vec![
        json!({"reason": ""}),
        json!({"retryable": true}),
        json!(null),
    ]);
    assert_eq!(outcome, Outcome::Nothing);
}
