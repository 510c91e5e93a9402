//! `transcription_fields` (`pre_transcription`): field overrides.

use serde_json::{Map, Value};
use tracing::{debug, warn};

/// The answer of a `pre_transcription` hook (merge rule `transcription_fields`):
/// the fields to override; `None` leaves a field alone.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TranscriptionReply {
    /// The transcription prompt.
    pub prompt: Option<String>,
    /// The language.
    pub language: Option<String>,
    /// The model.
    pub model: Option<String>,
}

impl TranscriptionReply {
    /// Overrides the prompt (`""` clears the configured one).
    #[must_use]
    pub fn with_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.prompt = Some(prompt.into());
        self
    }

    /// Overrides the language (`""` lets the backend decide).
    #[must_use]
    pub fn with_language(mut self, language: impl Into<String>) -> Self {
        self.language = Some(language.into());
        self
    }

    /// Overrides the model.
    #[must_use]
    pub fn with_model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// Reads one reply as the `transcription_fields` merge does: of an
    /// object, `prompt`, `language` and `model` count when their values are
    /// strings (the empty string included); `file_path` is read-only (a
    /// warning), other keys and non-string values are ignored (debug logs).
    /// `None` when no field counts.
    pub fn from_wire(reply: &Value) -> Option<TranscriptionReply> {
        let object = reply.as_object()?;
        let mut read = TranscriptionReply::default();
        let mut any = false;
        for (key, value) in object {
            let field = match key.as_str() {
                "prompt" => &mut read.prompt,
                "language" => &mut read.language,
                "model" => &mut read.model,
                "file_path" => {
                    warn!(
                        "pre_transcription hook attempted to change file_path (read-only) — ignoring the attempt."
                    );
                    continue;
                }
                _ => {
                    debug!(key = %key, "pre_transcription hook returned an unknown key; ignoring it");
                    continue;
                }
            };
            match value {
                Value::String(text) => {
                    *field = Some(text.clone());
                    any = true;
                }
                _ => {
                    debug!(key = %key, "pre_transcription hook returned a non-string value; ignoring it")
                }
            }
        }
        any.then_some(read)
    }

    /// The fields of `later` that are set replace these (the last writer
    /// wins, field by field).
    pub fn overlay(&mut self, later: TranscriptionReply) {
        for (field, value) in [
            (&mut self.prompt, later.prompt),
            (&mut self.language, later.language),
            (&mut self.model, later.model),
        ] {
            if value.is_some() {
                *field = value;
            }
        }
    }

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
