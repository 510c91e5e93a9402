//! Typed payloads: one struct per catalog event, generated from the schema.
//!
//! A host builds a struct with `default()` and the `with_<field>` setters (the
//! structs are `#[non_exhaustive]`: the upstream catalog adds fields) and turns
//! it into an [`Event`] with `From`/`Into`;
//! the event's payload has the reference's keys in the reference's order, plus
//! `telemetry_schema_version` last (every event but `gateway_platform_event`).
//! A plugin or tool can go the other way with [`HookPayload::from_event`].
//!
//! ```
//! use hermes_hooks_core::payloads::{HookPayload, PreToolCall};
//! use hermes_hooks_core::{Event, HookEvent};
//!
//! let mut args = serde_json::Map::new();
//! args.insert("command".into(), "ls".into());
//! let event: Event = PreToolCall::default()
//!     .with_tool_name("terminal")
//!     .with_args(args)
//!     .into();
//! assert_eq!(event.hook(), Some(HookEvent::PreToolCall));
//! assert_eq!(event.tool_name(), Some("terminal"));
//! assert_eq!(event.get("telemetry_schema_version").and_then(|v| v.as_str()), Some("hermes.observer.v1"));
//!
//! let back = PreToolCall::from_event(&event).expect("a pre_tool_call payload");
//! assert_eq!(back.args["command"], "ls");
//! ```
//!
//! Fields the schema marks nullable are `Option`s that become `null` when `None`;
//! fields it marks optional are `Option`s whose key is left out when `None`.
//! Decoding is lenient the way payloads evolve: missing keys take their default,
//! a `null` where a plain value is expected counts as missing, and unknown keys
//! are ignored.

mod generated;
mod in_place;

pub use generated::*;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::catalog::HookEvent;
use crate::event::Event;

/// The payload key every event but `gateway_platform_event` carries.
pub const TELEMETRY_KEY: &str = "telemetry_schema_version";

/// The value of [`TELEMETRY_KEY`], the reference's legacy envelope marker.
pub const TELEMETRY_SCHEMA_VERSION: &str = "hermes.observer.v1";

/// A typed payload of one catalog event.
pub trait HookPayload: Serialize + DeserializeOwned + Into<Event> {
    /// The event this payload belongs to.
    const EVENT: HookEvent;

    /// Decodes a payload object from `deserializer` into `place`, reusing
    /// the strings, maps and arrays `place` already holds: `place` ends as
    /// the value [`Deserialize`](serde::Deserialize) would return, without
    /// a fresh allocation per field. For a decoder that runs once per call
    /// (a native plugin's), keeping one struct across calls.
    ///
    /// On `Err`, `place` holds a mix of old and new fields: decode into it
    /// again (or reset it) before reading it.
    ///
    /// ```
    /// use hermes_hooks_core::payloads::{HookPayload, PreToolCall};
    ///
    /// let mut call = PreToolCall::default();
    /// for json in [r#"{"tool_name": "terminal", "args": {"command": "ls"}}"#, r#"{"tool_name": "read_file"}"#] {
    ///     let mut deserializer = serde_json::Deserializer::from_str(json);
    ///     PreToolCall::decode_in_place(&mut deserializer, &mut call).expect("decodes");
    ///     deserializer.end().expect("nothing after the object");
    ///     assert_eq!(call, serde_json::from_str::<PreToolCall>(json).expect("decodes"));
    /// }
    /// assert!(call.args.is_empty());
    /// ```
    fn decode_in_place<'de, D: serde::Deserializer<'de>>(
        deserializer: D,
        place: &mut Self,
    ) -> Result<(), D::Error> {
        *place = Self::deserialize(deserializer)?;
        Ok(())
    }

    /// Decodes the payload of `event`, which must be this payload's event.
    fn from_event(event: &Event) -> Result<Self, PayloadError> {
        if event.hook() != Some(Self::EVENT) {
            return Err(PayloadError::WrongEvent {
                expected: Self::EVENT,
                found: event.name().as_str().to_owned(),
            });
        }
        serde_json::from_value(Value::Object(event.payload().clone())).map_err(|source| {
            PayloadError::Invalid {
                event: Self::EVENT,
                source,
            }
        })
    }
}

/// Why [`HookPayload::from_event`] could not decode an event.
#[derive(Debug)]
#[non_exhaustive]
pub enum PayloadError {
    /// The event is another event than the payload's.
    WrongEvent {
        /// The payload's event.
        expected: HookEvent,
        /// The event's name.
        found: String,
    },
    /// A key holds a value of the wrong type.
    Invalid {
        /// The event.
        event: HookEvent,
        /// serde's description of the bad value.
        source: serde_json::Error,
    },
}

// Written by hand (not with thiserror) so the contract build stays small.
impl std::fmt::Display for PayloadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PayloadError::WrongEvent { expected, found } => {
                write!(f, "expected a '{expected}' event, got '{found}'")
            }
            PayloadError::Invalid { event, source } => write!(f, "'{event}' payload: {source}"),
        }
    }
}

impl std::error::Error for PayloadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PayloadError::WrongEvent { .. } => None,
            PayloadError::Invalid { source, .. } => Some(source),
        }
    }
}

/// Decodes a plain (not `Option`) payload field, taking a JSON `null` as the
/// key being absent: the field's default. The generated structs use it.
pub(crate) fn null_as_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de> + Default,
{
    Ok(<Option<T> as serde::Deserialize>::deserialize(deserializer)?.unwrap_or_default())
}

#[cfg(test)]
mod tests;
