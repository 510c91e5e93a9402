//! The JSON document a shell hook reads on stdin and an outbound webhook POSTs.
//!
//! Keys and order follow the reference (hermes-agent 0.20.1's
//! `shell_hooks._serialize_payload` and `outbound_webhooks._serialize_payload`):
//! `hook_event_name, tool_name, tool_input, session_id, cwd, extra`. Outbound
//! webhooks append `delivery_id` and `timestamp`. There is no `profile` key:
//! neither the reference nor the user documentation has one.
//!
//! [`HookDocument`] holds the rules once (which keys are lifted, the
//! `session_id` fallback, stringification) and borrows the event, so it can be
//! serialised straight to bytes ([`write_hook_document`]) without copying the
//! payload; [`hook_document`] builds the same document as an owned map.

use std::fmt;

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};

use crate::event::{Event, Payload};
use crate::pyvalue::is_truthy;

#[cfg(test)]
mod tests;

/// Where the hook process runs: the host's working directory and profile name.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct WireContext {
    /// The host process's working directory (`""` when it cannot be read).
    pub cwd: String,
    /// The active profile name (`default` unless the host says otherwise).
    /// The host's own record: it is not written into the document, which has
    /// no `profile` key in the reference or the documentation.
    pub profile: String,
}

impl WireContext {
    /// A context of this working directory and profile name.
    pub fn new(cwd: impl Into<String>, profile: impl Into<String>) -> Self {
        WireContext {
            cwd: cwd.into(),
            profile: profile.into(),
        }
    }

    /// The current process's working directory and the `default` profile.
    pub fn current() -> Self {
        WireContext {
            cwd: std::env::current_dir()
                .map(|dir| dir.to_string_lossy().into_owned())
                .unwrap_or_default(),
            profile: "default".to_owned(),
        }
    }
}

/// Keys lifted out of the payload into the top level; everything else goes to
/// `extra`. [`HookDocument::new`] unpacks them in this order.
const LIFTED: [&str; 4] = ["tool_name", "args", "session_id", "parent_session_id"];

/// The stdin / webhook document of one event, borrowing the event and context.
///
/// `tool_input` is the `args` object (null when `args` is not an object),
/// `session_id` is the first truthy of `session_id` and `parent_session_id`
/// (else `""`), `tool_name` and `session_id` that are not strings become their
/// JSON text, and every other payload key goes under `extra`, in payload order.
///
/// It implements [`Serialize`], writing exactly the bytes of the owned
/// [`hook_document`] map; [`write_hook_document`] is the shortcut to JSON.
#[derive(Clone, Copy)]
pub struct HookDocument<'a> {
    event_name: &'a str,
    tool_name: Field<'a>,
    tool_input: Field<'a>,
    session_id: Field<'a>,
    cwd: &'a str,
    payload: &'a Payload,
}

impl<'a> HookDocument<'a> {
    /// The document of `event` run in `context`.
    pub fn new(event: &'a Event, context: &'a WireContext) -> Self {
        let payload = event.payload();
        // One pass over the payload instead of four hashed look-ups: payloads
        // are small, and `extra` walks them all anyway.
        let mut lifted: [Option<&Value>; LIFTED.len()] = [None; LIFTED.len()];
        for (key, value) in payload {
            if let Some(slot) = LIFTED.iter().position(|name| name == key) {
                lifted[slot] = Some(value);
            }
        }
        let [tool_name, args, session_id, parent_session_id] = lifted;
        let tool_name = tool_name
            .filter(|value| !value.is_null())
            .map_or(Field::Null, Field::text);
        let tool_input = match args {
            Some(Value::Object(args)) => Field::Object(args),
            _ => Field::Null,
        };
        let session_id = [session_id, parent_session_id]
            .into_iter()
            .flatten()
            .find(|value| is_truthy(value))
            .map_or(Field::Str(""), Field::text);
        HookDocument {
            event_name: event.name().as_str(),
            tool_name,
            tool_input,
            session_id,
            cwd: &context.cwd,
            payload,
        }
    }

    /// The top-level keys and their values, in wire order: the one place the
    /// order is written, shared by the serialiser and [`HookDocument::to_map`].
    fn fields(&self) -> [(&'static str, Field<'a>); 6] {
        [
            ("hook_event_name", Field::Str(self.event_name)),
            ("tool_name", self.tool_name),
            ("tool_input", self.tool_input),
            ("session_id", self.session_id),
            ("cwd", Field::Str(self.cwd)),
            ("extra", Field::Extra(self.payload)),
        ]
    }

    /// The document as an owned JSON map (copies the payload values).
    pub fn to_map(&self) -> Map<String, Value> {
        self.fields()
            .into_iter()
            .map(|(key, field)| (key.to_owned(), field.to_value()))
            .collect()
    }

    /// Appends the document's compact JSON to `out`.
    pub fn write_json(&self, out: &mut Vec<u8>) -> Result<(), serde_json::Error> {
        serde_json::to_writer(out, self)
    }
}

impl Serialize for HookDocument<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let fields = self.fields();
        let mut map = serializer.serialize_map(Some(fields.len()))?;
        for (key, field) in &fields {
            map.serialize_entry(key, field)?;
        }
        map.end()
    }
}

impl fmt::Debug for HookDocument<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Payload values may hold secrets (tool arguments, messages): show only the keys.
        f.debug_struct("HookDocument")
            .field("hook_event_name", &self.event_name)
            .field("payload_keys", &self.payload.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

/// One top-level value of the document, borrowed from the event or context.
#[derive(Clone, Copy)]
enum Field<'a> {
    /// A string as it is.
    Str(&'a str),
    /// A non-string value written as a string of its compact JSON text.
    JsonText(&'a Value),
    /// An object as it is (`tool_input`).
    Object(&'a Map<String, Value>),
    /// `null`.
    Null,
    /// The payload without the [`LIFTED`] keys, in payload order.
    Extra(&'a Payload),
}

impl<'a> Field<'a> {
    /// A field that must be a string: strings as they are, other values as JSON text.
    fn text(value: &'a Value) -> Self {
        match value {
            Value::String(text) => Field::Str(text),
            other => Field::JsonText(other),
        }
    }

    fn extra_entries(payload: &'a Payload) -> impl Iterator<Item = (&'a String, &'a Value)> {
        payload
            .iter()
            .filter(|(key, _)| !LIFTED.contains(&key.as_str()))
    }

    fn to_value(self) -> Value {
        match self {
            Field::Str(text) => Value::String(text.to_owned()),
            Field::JsonText(value) => Value::String(value.to_string()),
            Field::Object(map) => Value::Object(map.clone()),
            Field::Null => Value::Null,
            Field::Extra(payload) => Value::Object(
                Field::extra_entries(payload)
                    .map(|(key, value)| (key.clone(), value.clone()))
                    .collect(),
            ),
        }
    }
}

impl Serialize for Field<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match *self {
            Field::Str(text) => serializer.serialize_str(text),
            // `collect_str` escapes the Display text as it is written: no String in between.
            Field::JsonText(value) => serializer.collect_str(value),
            Field::Object(map) => map.serialize(serializer),
            Field::Null => serializer.serialize_unit(),
            Field::Extra(payload) => serializer.collect_map(Field::extra_entries(payload)),
        }
    }
}

/// Builds the stdin / webhook document for `event` as an owned map.
///
/// The same document as [`HookDocument`] (see there for the rules); prefer
/// [`write_hook_document`] when the goal is bytes, as it copies nothing.
pub fn hook_document(event: &Event, context: &WireContext) -> Map<String, Value> {
    HookDocument::new(event, context).to_map()
}

/// Appends the compact JSON of `event`'s document to `out`: the same bytes as
/// `serde_json::to_vec(&hook_document(event, context))`, without copying the payload.
///
/// Fails only if serde_json does; with a `Vec` as the writer and string keys
/// throughout that does not happen, but the error is passed on rather than hidden.
pub fn write_hook_document(
    event: &Event,
    context: &WireContext,
    out: &mut Vec<u8>,
) -> Result<(), serde_json::Error> {
    HookDocument::new(event, context).write_json(out)
}
